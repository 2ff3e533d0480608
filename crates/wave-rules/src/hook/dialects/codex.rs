//! Codex's hooks (`hook --agent codex`): Claude Code's format and event
//! names, in `.codex/hooks.json` (`~/.codex/hooks.json` for the user).
//! Its payload is Claude Code's; its tools: `apply_patch` (a write: its
//! files are in the patch text, `tool_input.input`), `shell`,
//! `exec_command`, `local_shell` (argv). It has no skill tool: it reads the
//! `SKILL.md` with its shell, which activates the skill for every agent
//! (see the core's `skill`). A compaction: PreCompact, PostCompact (their
//! output reaches no model), then SessionStart `source: "compact"`.

use super::{Dialect, HookEntry};
use crate::base::args::{HookAgent, ScopeArg};
use memory_rules::delivery::ToolKind;
use std::path::PathBuf;

pub struct Codex;

impl Dialect for Codex {
    fn agent(&self) -> HookAgent {
        HookAgent::Codex
    }

    fn events(&self) -> &'static [HookEntry] {
        &super::claude_code::EVENTS
    }

    // Its payload: Claude Code's fields (`session_id`, `hook_event_name`,
    // `tool_name`, `tool_input`, `cwd`, ...): the trait's default `payload`,
    // `claude_code::read`.

    fn tool_kind(&self, name: &str) -> ToolKind {
        match name {
            "shell" | "exec_command" | "local_shell" => ToolKind::Shell,
            "apply_patch" => ToolKind::Write,
            _ => ToolKind::Other,
        }
    }

    fn file(&self, _scope: ScopeArg) -> PathBuf {
        PathBuf::from(".codex/hooks.json")
    }

    fn trust_step(&self) -> &'static str {
        "Codex runs project hooks only in a trusted project, once the hooks are trusted too: run `codex` once in the project and accept both (or add it under [projects] with trust_level = \"trusted\" in ~/.codex/config.toml)."
    }
}
