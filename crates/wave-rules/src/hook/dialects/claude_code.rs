//! Claude Code's hooks (`hook --agent claude`, the default): the shape the
//! others are mapped onto. Its hooks file is `.claude/settings.json`
//! (written by `hook/settings.rs`, with Claude Code's local and user
//! files); its payload's keys are `session_id`, `cwd`, `prompt`, `source`,
//! `transcript_path`, `stop_hook_active`, `tool_name`, `tool_input`,
//! `agent_id`, `agent_type`; its answers `hookSpecificOutput.additionalContext`,
//! `permissionDecision: "deny"` and, at Stop, `decision: "block"` (the
//! [`Dialect`] defaults).

use super::{Dialect, HookEntry, Payload};
use crate::base::args::{HookAgent, HookEvent, ScopeArg};
use crate::base::launch;
use crate::base::settings_file;
use jsonc_parser::cst::CstInputValue;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

pub struct ClaudeCode;

/// The tools Claude Code's and Codex's `PreToolUse` hook is installed for:
/// the ones that write a file or run a command, and Claude Code's subagent
/// tool (its task is remembered for the subagent's start).
pub const PRE_TOOL_MATCHER: &str =
    "Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task|shell|apply_patch|exec_command|local_shell";

/// Claude Code's hooks (and Codex's, which took its format).
pub const EVENTS: [HookEntry; 7] = {
    use HookEvent::*;
    [
        (SessionStart.name(), SessionStart, None),
        (UserPromptSubmit.name(), UserPromptSubmit, None),
        (PreToolUse.name(), PreToolUse, Some(PRE_TOOL_MATCHER)),
        (
            PostToolUse.name(),
            PostToolUse,
            Some("Bash|shell|apply_patch|exec_command|Skill"),
        ),
        (Stop.name(), Stop, None),
        (SubagentStart.name(), SubagentStart, None),
        (SubagentStop.name(), SubagentStop, None),
    ]
};

impl Dialect for ClaudeCode {
    fn agent(&self) -> HookAgent {
        HookAgent::Claude
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        match name {
            // Its start event has no task: the tool's input is remembered for it.
            "Agent" | "Task" => ToolKind::Subagent,
            _ => ToolKind::Other,
        }
    }

    fn file(&self, _scope: ScopeArg) -> PathBuf {
        PathBuf::from(".claude/settings.json")
    }

    /// Claude Code sets `CLAUDE_PROJECT_DIR` for hooks.
    fn project_bin(&self, bin: &str, _workdir: &Path) -> String {
        launch::claude_hook_prefix(&launch::Program::Project(bin.to_string()))
    }
}

/// Reads a payload in Claude Code's keys, the tool's kind by `agent`'s names.
pub fn read(agent: HookAgent, v: &Map<String, Value>) -> Payload {
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let tool_input = v.get("tool_input").cloned().unwrap_or(Value::Null);
    Payload {
        session: text("session_id"),
        cwd: text("cwd"),
        prompt: v.get("prompt").and_then(Value::as_str).map(str::to_string),
        source: text("source"),
        transcript: text("transcript_path"),
        repeated: v.get("stop_hook_active").and_then(Value::as_bool) == Some(true),
        tool: text("tool_name")
            .map(|name| ToolCall::new(name.clone(), super::tool_kind(agent, &name), tool_input)),
        agent_id: text("agent_id"),
        agent_type: text("agent_type"),
        timestamp: text("timestamp"),
    }
}

/// A hook entry in Claude Code's layout: a group of one command hook, with
/// the tool matcher when there is one (`timeout` in the agent's unit).
pub fn entry(command: String, matcher: Option<&str>, timeout: u64) -> CstInputValue {
    let text = |s: &str| CstInputValue::String(s.to_string());
    let hook = settings_file::object(vec![
        ("type", text("command")),
        ("command", CstInputValue::String(command)),
        ("timeout", CstInputValue::Number(timeout.to_string())),
    ]);
    let mut group = Vec::new();
    if let Some(m) = matcher {
        group.push(("matcher", text(m)));
    }
    group.push(("hooks", CstInputValue::Array(vec![hook])));
    settings_file::object(group)
}
