//! Cursor's hooks (`hook --agent cursor`), in `.cursor/hooks.json`
//! (`~/.cursor/hooks.json` for the user), `"version": 1`. Events
//! beforeSubmitPrompt, preToolUse, beforeShellExecution, beforeReadFile,
//! afterFileEdit, afterShellExecution, stop; the payload's conversation is
//! `conversation_id`, its project the first of `workspace_roots`; file
//! events carry `file_path`, shell events `command`. Only `stop`'s
//! `followup_message` and a refusal's `agent_message` reach its model: the
//! others cannot add context, so their rules stay due. No compaction event.

use super::{Dialect, HookEntry, Payload};
use crate::base::args::{HookAction, HookAgent, HookEvent, ScopeArg};
use crate::base::settings_file;
use jsonc_parser::cst::CstInputValue;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

pub struct Cursor;

const EVENTS: [HookEntry; 7] = [
    ("beforeSubmitPrompt", HookEvent::UserPromptSubmit, None),
    ("preToolUse", HookEvent::PreToolUse, None),
    ("beforeShellExecution", HookEvent::PreToolUse, None),
    ("beforeReadFile", HookEvent::PostToolUse, None),
    ("afterFileEdit", HookEvent::PostToolUse, None),
    ("afterShellExecution", HookEvent::PostToolUse, None),
    ("stop", HookEvent::Stop, None),
];

impl Dialect for Cursor {
    fn agent(&self) -> HookAgent {
        HookAgent::Cursor
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    /// A refusal's `agent_message` reaches Cursor's model too.
    fn delivers(&self, event: &HookAction) -> bool {
        matches!(event, HookAction::Stop | HookAction::PreToolUse)
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        match name {
            "StrReplace" | "Delete" | "TabWrite" => ToolKind::Write,
            "Shell" => ToolKind::Shell,
            _ => ToolKind::Other,
        }
    }

    /// `conversation_id`, `workspace_roots`; file events carry `file_path`,
    /// shell events `command` (the rest, a file's content or a command's
    /// output, is not looked at).
    fn payload(&self, v: &Map<String, Value>) -> Payload {
        let text = |keys: &[&str]| super::first_text(v, keys);
        let mut p = super::claude_code::read(HookAgent::Cursor, v);
        p.session = text(&["conversation_id", "session_id"]);
        let root = v
            .get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|r| r.first())
            .and_then(Value::as_str)
            .map(str::to_string);
        p.cwd = root.or(p.cwd);
        let event = text(&["hook_event_name"]).unwrap_or_default();
        p.tool = if let (Some(name), "preToolUse") = (text(&["tool_name"]), event.as_str()) {
            // A tool about to run: its name and input (`tool_input`, maybe a JSON string).
            let input = super::tool_input(v.get("tool_input"));
            let kind = super::tool_kind(HookAgent::Cursor, &name);
            Some(ToolCall::new(name, kind, input))
        } else if let Some(f) = text(&["file_path"]) {
            let kind = if event == "afterFileEdit" {
                ToolKind::Write
            } else {
                ToolKind::Read
            };
            Some(ToolCall::new(event, kind, json!({ "file_path": f })))
        } else {
            text(&["command"])
                .map(|c| ToolCall::new(event, ToolKind::Shell, json!({ "command": c })))
        };
        p
    }

    /// The model reads the reason as the call's result; the user sees its
    /// first line.
    fn refusal(&self, reason: &str) -> Value {
        json!({
            "permission": "deny",
            "agent_message": reason,
            "user_message": reason.lines().next().unwrap_or(reason),
        })
    }

    fn subagent_context(&self, _text: &str, _tool: Option<&ToolCall>) -> Option<Value> {
        None
    }

    fn output(&self, event: &HookAction, text: &str) -> Value {
        match event {
            HookAction::Stop => json!({ "followup_message": text }),
            _ => json!({ "hookSpecificOutput": {
                "hookEventName": self.event_name(event),
                "additionalContext": text,
            } }),
        }
    }

    fn file(&self, _scope: ScopeArg) -> PathBuf {
        PathBuf::from(".cursor/hooks.json")
    }

    /// Cursor runs project hooks in the project root and sets
    /// `CURSOR_PROJECT_DIR`.
    fn project_bin(&self, bin: &str, _workdir: &Path) -> String {
        format!("\"${{CURSOR_PROJECT_DIR:-.}}\"/{bin}")
    }

    fn trust_step(&self) -> &'static str {
        "Cursor reads .cursor/hooks.json when the project opens; restart Cursor after installing."
    }

    fn entry(&self, command: String, _matcher: Option<&str>) -> CstInputValue {
        settings_file::object(vec![("command", CstInputValue::String(command))])
    }

    fn versioned(&self) -> bool {
        true
    }
}
