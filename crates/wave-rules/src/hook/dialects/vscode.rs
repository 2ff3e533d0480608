//! VS Code's agent hooks for its Local agent harness (`hook --agent
//! vscode`; Preview). From VS Code's docs (code.visualstudio.com/docs/agent-customization/hooks
//! and the hooks reference, code.visualstudio.com/docs/agents/reference/hooks-reference):
//!
//! - which payloads run is the harness's choice: the Copilot CLI, Claude and
//!   Codex harnesses use those agents' own hooks (`--agent copilot`,
//!   `claude`, `codex`); only the Local harness has the payloads below;
//! - the file: every `*.json` in `.github/hooks/` (the workspace's), and
//!   `~/.copilot/hooks` (the user's), `chat.hookFilesLocations` to change
//!   them: `{"hooks": {"<Event>": [{"type": "command", "command": ...,
//!   "timeout": <s>}]}}` (no matcher: every tool);
//! - every payload: `timestamp`, `cwd`, `sessionId`, `hookEventName`,
//!   `transcript_path`; `source: "new"` (SessionStart), `prompt`
//!   (UserPromptSubmit), `tool_name`, `tool_input`, `tool_use_id`
//!   (PreToolUse, PostToolUse with `tool_response`), `stop_hook_active`
//!   (Stop); tools `readFile`, `editFiles` (`files`), `createFile`,
//!   `runInTerminal` (the docs' tools reference);
//! - the answer: `hookSpecificOutput.additionalContext` at SessionStart,
//!   PreToolUse, PostToolUse and SubagentStart; `permissionDecision: "deny"`
//!   refuses a tool (its reason is shown to the user, so the rule also goes
//!   in `additionalContext`); Stop's `hookSpecificOutput.decision: "block"`
//!   with `reason` goes on. UserPromptSubmit and PreCompact read the common
//!   output only (`continue`, `stopReason`, `systemMessage`): nothing of
//!   theirs reaches the model, so UserPromptSubmit is not installed and
//!   topic rules do not reach this harness by a hook.
//!
//! Its subagent events are not installed: not run here.

use super::{Dialect, HookEntry, Payload, HOOK_TIMEOUT_SECS};
use crate::base::args::{HookAction, HookAgent, HookEvent, ScopeArg};
use crate::base::settings_file;
use jsonc_parser::cst::CstInputValue;
use memory_rules::delivery::ToolKind;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

pub struct Vscode;

/// The hooks installed: (VS Code's event, ours, no matcher).
pub const EVENTS: [HookEntry; 5] = [
    ("SessionStart", HookEvent::SessionStart, None),
    ("PreToolUse", HookEvent::PreToolUse, None),
    ("PostToolUse", HookEvent::PostToolUse, None),
    ("Stop", HookEvent::Stop, None),
    ("PreCompact", HookEvent::PreCompact, None),
];

impl Dialect for Vscode {
    fn agent(&self) -> HookAgent {
        HookAgent::Vscode
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    /// Its UserPromptSubmit reads the common output only.
    fn delivers(&self, event: &HookAction) -> bool {
        !matches!(event, HookAction::UserPromptSubmit(_))
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        tool_kind(name)
    }

    /// Claude Code's keys, but `sessionId`; a new session's `source` is `new`.
    fn payload(&self, v: &Map<String, Value>) -> Payload {
        let mut p = super::claude_code::read(HookAgent::Vscode, v);
        let id = v.get("sessionId").and_then(Value::as_str);
        if let Some(id) = id.filter(|s| !s.is_empty()) {
            p.session = Some(id.to_string());
        }
        if p.source.as_deref() == Some("new") {
            p.source = Some("startup".into());
        }
        p
    }

    fn refusal(&self, reason: &str) -> Value {
        refusal(reason)
    }

    fn output(&self, event: &HookAction, text: &str) -> Value {
        match event {
            HookAction::Stop => stop(text),
            _ => json!({ "hookSpecificOutput": {
                "hookEventName": self.event_name(event),
                "additionalContext": text,
            } }),
        }
    }

    fn file(&self, scope: ScopeArg) -> PathBuf {
        let dir = match scope {
            ScopeArg::Project => ".github/hooks",
            ScopeArg::User => ".copilot/hooks",
        };
        PathBuf::from(dir).join(FILE_NAME)
    }

    fn trust_step(&self) -> &'static str {
        "VS Code runs these hooks in its Local agent harness (agent hooks are in Preview; chat.hookFilesLocations must keep .github/hooks). In its Copilot CLI, Claude or Codex harness, install those agents' hooks: `hook install --agent copilot`, `claude` or `codex`."
    }

    /// Flat entries, no matcher: VS Code's documented layout.
    fn entry(&self, command: String, _matcher: Option<&str>) -> CstInputValue {
        settings_file::object(vec![
            ("type", CstInputValue::String("command".into())),
            ("command", CstInputValue::String(command)),
            (
                "timeout",
                CstInputValue::Number(HOOK_TIMEOUT_SECS.to_string()),
            ),
        ])
    }
}

/// The hooks file `hook install --agent vscode` writes, in `.github/hooks/`
/// (or `~/.copilot/hooks/`): beside Copilot CLI's `wave-rules.json`.
pub const FILE_NAME: &str = "wave-rules-vscode.json";

/// What the Local harness's tools do, by the names its docs give.
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "readFile" => ToolKind::Read,
        "editFiles" | "createFile" | "editNotebook" => ToolKind::Write,
        "runInTerminal" => ToolKind::Shell,
        _ => ToolKind::Other,
    }
}

/// A refusal: denied, and the rule's text given to the model too.
pub fn refusal(reason: &str) -> Value {
    json!({ "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
        "additionalContext": reason,
    } })
}

/// Stop's answer: go on, for `reason`.
pub fn stop(reason: &str) -> Value {
    json!({ "hookSpecificOutput": {
        "hookEventName": "Stop",
        "decision": "block",
        "reason": reason,
    } })
}
