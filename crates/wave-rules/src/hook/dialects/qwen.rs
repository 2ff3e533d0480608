//! Qwen Code's hooks (`hook --agent qwen`). Qwen Code is a Gemini CLI fork
//! whose hooks took Claude Code's format (read in its 0.24.4 bundle,
//! `packages/core/src/hooks` and the settings schema, and run end to end in
//! `__test__/agents/qwen.test.mjs`):
//!
//! - the file: `.qwen/settings.json` in the project, `~/.qwen/settings.json`
//!   for the user; `{"hooks": {"<Event>": [{"matcher": "<regex of tool
//!   names>", "hooks": [{"type": "command", "command": ..., "timeout": <s>}]}]}}`,
//!   Claude Code's event names (`SessionStart`, `UserPromptSubmit`,
//!   `PreToolUse`, `PostToolUse`, `Stop`, `PreCompact`, `SubagentStart`, ...);
//! - the payload: Claude Code's keys (`session_id`, `cwd`, `transcript_path`,
//!   `hook_event_name`, `prompt`, `tool_name`, `tool_input`), with Qwen's
//!   tool names (Gemini CLI's: `read_file`, `write_file`, `edit`,
//!   `run_shell_command`, `skill`, `agent`) and absolute `file_path`s;
//! - the answer: Claude Code's (`hookSpecificOutput.additionalContext`, a
//!   PostToolUse's in the tool's result; `permissionDecision: "deny"`), and
//!   `$QWEN_PROJECT_DIR` set for the command (and replaced in it on
//!   Windows shells). Its `UserPromptSubmit` runs again before each model
//!   turn of a prompt, so what it adds is given once by our session state.
//!
//! Its subagents' hooks (`SubagentStart`, the `agent` tool) are not
//! installed: they are not yet run end to end here.

use super::{Dialect, HookEntry};
use crate::base::args::{HookAgent, HookEvent, ScopeArg};
use memory_rules::delivery::ToolKind;
use std::path::{Path, PathBuf};

pub struct Qwen;

impl Dialect for Qwen {
    fn agent(&self) -> HookAgent {
        HookAgent::Qwen
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        tool_kind(name)
    }

    fn file(&self, _scope: ScopeArg) -> PathBuf {
        PathBuf::from(".qwen/settings.json")
    }

    /// Qwen Code sets `QWEN_PROJECT_DIR` for hooks and passes a bash command
    /// unchanged (it replaces it, quoted, only for cmd.exe and PowerShell).
    fn project_bin(&self, bin: &str, _workdir: &Path) -> String {
        format!("\"$QWEN_PROJECT_DIR\"/{bin}")
    }

    fn trust_step(&self) -> &'static str {
        "Qwen Code runs project hooks unless \"disableAllHooks\" is set in its settings."
    }
}

/// The hooks installed: (Qwen Code's event, ours, the tool matcher).
pub const EVENTS: [HookEntry; 5] = [
    ("SessionStart", HookEvent::SessionStart, None),
    ("UserPromptSubmit", HookEvent::UserPromptSubmit, None),
    (
        "PreToolUse",
        HookEvent::PreToolUse,
        Some("write_file|edit|run_shell_command"),
    ),
    (
        "PostToolUse",
        HookEvent::PostToolUse,
        Some("read_file|write_file|edit|run_shell_command|skill"),
    ),
    ("Stop", HookEvent::Stop, None),
];

/// What Qwen Code's tools do, by name.
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "read_file" => ToolKind::Read,
        "write_file" | "edit" => ToolKind::Write,
        "run_shell_command" => ToolKind::Shell,
        "skill" => ToolKind::Skill,
        _ => ToolKind::Other,
    }
}
