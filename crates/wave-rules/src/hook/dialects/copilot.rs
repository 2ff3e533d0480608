//! GitHub Copilot CLI's native hooks (`hook --agent copilot`), in
//! `.github/hooks/wave-rules.json` (`~/.copilot/hooks/wave-rules.json` for
//! the user), `"version": 1`. Events sessionStart (`source: "new"`),
//! userPromptSubmitted, preToolUse, postToolUse, agentStop, preCompact
//! (`trigger` manual/auto; fired when a background compaction starts: what
//! comes after it stays in the conversation), subagentStart, subagentStop;
//! camelCase keys, `toolArgs` a JSON string; tools `view` `edit` `create`
//! `bash` and its skill tool `skill` (`{"skill": name}`). The answer: a
//! top-level `additionalContext` (recorded in -p mode: the
//! `hookSpecificOutput` of Claude-format hooks is dropped there); agentStop
//! by blocking; preCompact's output reaches no model.

use super::{Dialect, HookEntry, Payload, HOOK_TIMEOUT_SECS};
use crate::base::args::{HookAction, HookAgent, HookEvent, ScopeArg};
use crate::base::settings_file;
use jsonc_parser::cst::CstInputValue;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

pub struct Copilot;

const EVENTS: [HookEntry; 8] = [
    ("sessionStart", HookEvent::SessionStart, None),
    ("userPromptSubmitted", HookEvent::UserPromptSubmit, None),
    ("preToolUse", HookEvent::PreToolUse, None),
    ("postToolUse", HookEvent::PostToolUse, None),
    ("agentStop", HookEvent::Stop, None),
    ("preCompact", HookEvent::PreCompact, None),
    ("subagentStart", HookEvent::SubagentStart, None),
    ("subagentStop", HookEvent::SubagentStop, None),
];

impl Dialect for Copilot {
    fn agent(&self) -> HookAgent {
        HookAgent::Copilot
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        match name {
            "skill" => ToolKind::Skill,
            "view" | "read" | "str_replace_editor" => ToolKind::Read,
            "edit" | "create" | "write" | "str_replace" => ToolKind::Write,
            "bash" | "shell" => ToolKind::Shell,
            _ => ToolKind::Other,
        }
    }

    /// Native hooks: camelCase keys, `toolArgs` a JSON string. A subagent's
    /// own events carry its id as `sessionId`, with `agentId` and its
    /// parent's as `parentAgentId`; its start and stop carry the parent's
    /// as `sessionId`.
    fn payload(&self, v: &Map<String, Value>) -> Payload {
        let text = |keys: &[&str]| super::first_text(v, keys);
        let mut p = super::claude_code::read(HookAgent::Copilot, v);
        p.session = text(&["parentAgentId", "sessionId", "session_id"]);
        p.agent_id = text(&["agentId"]);
        p.agent_type = text(&["agentType", "agentName"]);
        if p.source.as_deref() == Some("new") {
            p.source = Some("startup".into());
        }
        if let Some(name) = text(&["toolName", "tool_name"]) {
            let args = super::tool_input(v.get("toolArgs").or_else(|| v.get("tool_input")));
            let kind = super::tool_kind(HookAgent::Copilot, &name);
            p.tool = Some(ToolCall::new(name, kind, args));
        }
        p
    }

    fn refusal(&self, reason: &str) -> Value {
        json!({ "permissionDecision": "deny", "permissionDecisionReason": reason })
    }

    fn subagent_context(&self, text: &str, _tool: Option<&ToolCall>) -> Option<Value> {
        Some(json!({ "additionalContext": text }))
    }

    fn output(&self, event: &HookAction, text: &str) -> Value {
        match event {
            HookAction::Stop => json!({ "decision": "block", "reason": text }),
            _ => json!({ "additionalContext": text }),
        }
    }

    fn file(&self, scope: ScopeArg) -> PathBuf {
        PathBuf::from(match scope {
            ScopeArg::Project => ".github/hooks/wave-rules.json",
            ScopeArg::User => ".copilot/hooks/wave-rules.json",
        })
    }

    /// Copilot CLI (1.0.88 and later) runs a hook without `cwd` in the
    /// project root.
    fn project_bin(&self, bin: &str, _workdir: &Path) -> String {
        bin.to_string()
    }

    fn trust_step(&self) -> &'static str {
        "Copilot CLI runs repository hooks only in a trusted folder: trust it when asked, or add it to \"trusted_folders\" in ~/.copilot/config.json."
    }

    fn entry(&self, command: String, _matcher: Option<&str>) -> CstInputValue {
        settings_file::object(vec![
            ("type", CstInputValue::String("command".into())),
            ("bash", CstInputValue::String(command)),
            (
                "timeoutSec",
                CstInputValue::Number(HOOK_TIMEOUT_SECS.to_string()),
            ),
        ])
    }

    fn versioned(&self) -> bool {
        true
    }
}
