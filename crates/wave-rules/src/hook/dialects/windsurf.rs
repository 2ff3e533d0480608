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

use crate::base::args::HookEvent;
use crate::base::env::Output;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Map, Value};

/// The exit code that blocks a Cascade pre-hook's action.
pub const BLOCK_EXIT: i32 = 2;

/// The hooks installed: (Cascade's event, ours, no matcher).
pub const EVENTS: [(&str, HookEvent, Option<&str>); 2] = [
    ("pre_write_code", HookEvent::PreToolUse, None),
    ("pre_run_command", HookEvent::PreToolUse, None),
];

/// What a Cascade payload says (`agent.rs` makes it the common `Payload`).
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
