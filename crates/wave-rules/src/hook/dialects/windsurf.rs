//! Windsurf's Cascade hooks, Devin Desktop's since the rename (`hook
//! --agent windsurf`, or `devin`). From the Cascade hooks docs
//! (docs.windsurf.com/windsurf/cascade/hooks, now
//! docs.devin.ai/desktop/cascade/hooks):
//!
//! - the file: `.windsurf/hooks.json` in the workspace, `~/.codeium/windsurf/hooks.json`
//!   for the user (and a system one), merged; `{"hooks": {"<event>": [{"command": ..., "show_output": bool}]}}`;
//! - every payload: `agent_action_name` (the event), `trajectory_id` (the
//!   conversation), `execution_id` (one turn), `timestamp`, `tool_info`:
//!   `pre_read_code` / `post_read_code` `{"file_path"}` (a file or a folder
//!   read recursively), `pre_write_code` / `post_write_code` `{"file_path",
//!   "edits"}`, `pre_run_command` / `post_run_command` `{"command_line", "cwd"}`;
//! - the answer: the exit code only. A pre-hook that exits 2 blocks the
//!   action and its stderr is what the agent reads; any other code lets it
//!   run. A hook's stdout is shown to the user (`show_output`), never given
//!   to the model: no hook of Cascade adds context.
//!
//! So our hooks here are the refusals of enforced rules only: before a
//! write (`pre_write_code`) and before a command (`pre_run_command`). Path
//! and topic rules cannot reach Cascade's model by a hook; export them to
//! `.devin/rules` (`export --to devin`), which Devin Desktop reads itself.

use super::{Dialect, HookEntry, Payload};
use crate::base::args::{HookAction, HookAgent, HookEvent, ScopeArg};
use crate::base::env::Output;
use crate::base::settings_file;
use jsonc_parser::cst::CstInputValue;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

pub struct Windsurf;

/// The exit code that blocks a Cascade pre-hook's action.
pub const BLOCK_EXIT: i32 = 2;

/// The hooks installed: (Cascade's event, ours, no matcher).
pub const EVENTS: [HookEntry; 2] = [
    ("pre_write_code", HookEvent::PreToolUse, None),
    ("pre_run_command", HookEvent::PreToolUse, None),
];

impl Dialect for Windsurf {
    fn agent(&self) -> HookAgent {
        HookAgent::Windsurf
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    fn delivers(&self, event: &HookAction) -> bool {
        matches!(event, HookAction::PreToolUse)
    }

    fn payload(&self, v: &Map<String, Value>) -> Payload {
        let c = payload(v);
        Payload {
            session: c.session,
            cwd: c.cwd,
            timestamp: c.timestamp,
            tool: c.tool,
            ..Payload::default()
        }
    }

    /// Reads no JSON: exit 2 and the reason on stderr ([`refuse`]).
    fn refusal(&self, reason: &str) -> Value {
        json!(reason)
    }

    fn refuse(&self, reason: &str, out: &mut Output) -> bool {
        refuse(reason, out);
        true
    }

    fn subagent_context(&self, _text: &str, _tool: Option<&ToolCall>) -> Option<Value> {
        None
    }

    fn file(&self, scope: ScopeArg) -> PathBuf {
        PathBuf::from(match scope {
            ScopeArg::Project => ".windsurf/hooks.json",
            ScopeArg::User => ".codeium/windsurf/hooks.json",
        })
    }

    fn trust_step(&self) -> &'static str {
        "Devin Desktop (Windsurf) runs these hooks before Cascade writes a file or runs a command: they refuse what an enforced rule forbids. Its hooks cannot give the model rules: run `wave-rules export --to devin` for those."
    }

    /// A refusal's reason reaches the agent from stderr; stdout is for the user.
    fn entry(&self, command: String, _matcher: Option<&str>) -> CstInputValue {
        settings_file::object(vec![
            ("command", CstInputValue::String(command)),
            ("show_output", CstInputValue::Bool(false)),
        ])
    }
}

/// What a Cascade payload says (its dialect makes it the common `Payload`).
#[derive(Debug, Default, PartialEq)]
pub struct Cascade {
    /// `trajectory_id`: the conversation.
    pub session: Option<String>,
    /// `tool_info.cwd` (a command's).
    pub cwd: Option<String>,
    pub timestamp: Option<String>,
    pub tool: Option<ToolCall>,
}

/// Reads a Cascade payload: the conversation is `trajectory_id`; the tool
/// call is named by the event, its file or command from `tool_info`.
pub fn payload(v: &Map<String, Value>) -> Cascade {
    let text = |o: &Map<String, Value>, k: &str| {
        o.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let event = text(v, "agent_action_name").unwrap_or_default();
    let empty = Map::new();
    let info = v
        .get("tool_info")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let tool = if let Some(command) = text(info, "command_line") {
        Some(ToolCall::new(
            event.clone(),
            ToolKind::Shell,
            json!({ "command": command }),
        ))
    } else {
        text(info, "file_path").map(|file| {
            let kind = if event.contains("write") {
                ToolKind::Write
            } else {
                ToolKind::Read
            };
            ToolCall::new(event.clone(), kind, json!({ "file_path": file }))
        })
    };
    Cascade {
        session: text(v, "trajectory_id"),
        cwd: text(info, "cwd"),
        timestamp: text(v, "timestamp"),
        tool,
    }
}

/// A refusal: the reason on stderr, exit 2 (what Cascade reads).
pub fn refuse(reason: &str, out: &mut Output) {
    out.stderr.push_str(reason);
    if !reason.ends_with('\n') {
        out.stderr.push('\n');
    }
    out.code = BLOCK_EXIT;
}
