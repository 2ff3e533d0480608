//! Gemini CLI's hooks (`hook --agent gemini`), in `.gemini/settings.json`'s
//! `hooks` (`~/.gemini/settings.json` for the user; JSON with comments,
//! timeouts in milliseconds). Events SessionStart, BeforeAgent (the user's
//! `prompt`), BeforeTool, AfterTool, AfterAgent, PreCompress; the payload
//! in Claude Code's keys; tools `read_file` `read_many_files` `write_file`
//! `replace` `run_shell_command`, its skill tool `activate_skill`
//! (`{"name": name}`; `ACTIVATE_SKILL_TOOL_NAME` and `SKILL_PARAM_NAME` in
//! its 0.61 bundle) and its subagent tool `invoke_agent`. The answer:
//! `hookSpecificOutput.additionalContext` (trusted `<hook_context>`);
//! AfterAgent by blocking; a refusal `{"decision": "deny"}`.
//!
//! No compaction event that is sure: PreCompress (`auto`, `manual` for
//! `/compress`) fires before every model turn, compressing or not. Each of
//! its hooks reads the model's latest prompt size from the transcript
//! ([`transcript_prompt_tokens`]); a prompt smaller than the last one seen
//! is the compaction.

use super::{Dialect, HookEntry, HOOK_TIMEOUT_SECS};
use crate::base::args::{HookAgent, HookEvent, ScopeArg};
use jsonc_parser::cst::CstInputValue;
use memory_rules::base::limits::TRANSCRIPT_TAIL_BYTES;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub struct Gemini;

/// Gemini CLI's subagent tool: its `BeforeTool` is the subagent's start
/// (Gemini CLI has no subagent event, and a subagent's tool events carry
/// nothing of it: see `docs/subagents.md`), its `AfterTool` the stop.
pub const GEMINI_SUBAGENT_TOOL: &str = "invoke_agent";

const EVENTS: [HookEntry; 6] = [
    ("SessionStart", HookEvent::SessionStart, None),
    ("BeforeAgent", HookEvent::UserPromptSubmit, None),
    // Its subagent tool too: a subagent's start (the task is rewritten).
    (
        "BeforeTool",
        HookEvent::PreToolUse,
        Some("write_file|replace|run_shell_command|invoke_agent"),
    ),
    (
        "AfterTool",
        HookEvent::PostToolUse,
        Some("read_file|read_many_files|write_file|replace|run_shell_command|activate_skill|invoke_agent"),
    ),
    ("AfterAgent", HookEvent::Stop, None),
    ("PreCompress", HookEvent::PreCompact, None),
];

impl Dialect for Gemini {
    fn agent(&self) -> HookAgent {
        HookAgent::Gemini
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    /// PreCompress fires before every model turn and only then checks its
    /// threshold (and a `/compress` may find nothing to compress): the
    /// compaction shows as a smaller prompt ([`transcript_prompt_tokens`]).
    fn compaction_is_certain(&self) -> bool {
        false
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        match name {
            "read_file" | "read_many_files" => ToolKind::Read,
            "write_file" | "replace" | "edit" => ToolKind::Write,
            "run_shell_command" => ToolKind::Shell,
            "activate_skill" => ToolKind::Skill,
            _ => ToolKind::Other,
        }
    }

    fn subagent_tool(&self) -> Option<&'static str> {
        Some(GEMINI_SUBAGENT_TOOL)
    }

    fn refusal(&self, reason: &str) -> Value {
        json!({ "decision": "deny", "reason": reason })
    }

    /// Its subagent tool's input, the task starting with the text.
    fn subagent_context(&self, text: &str, tool: Option<&ToolCall>) -> Option<Value> {
        let mut input = tool?.input.clone();
        let task = input.get("prompt").and_then(Value::as_str).unwrap_or("");
        let task = format!("{text}\n\n{task}");
        input.as_object_mut()?.insert("prompt".into(), json!(task));
        Some(
            json!({ "hookSpecificOutput": { "hookEventName": "BeforeTool", "tool_input": input } }),
        )
    }

    fn file(&self, _scope: ScopeArg) -> PathBuf {
        PathBuf::from(".gemini/settings.json")
    }

    /// Gemini CLI replaces `$GEMINI_PROJECT_DIR` in the command with the
    /// project directory, shell-quoted (so no quotes around it), and sets it
    /// in the hook's environment.
    fn project_bin(&self, bin: &str, _workdir: &Path) -> String {
        format!("$GEMINI_PROJECT_DIR/{bin}")
    }

    fn trust_step(&self) -> &'static str {
        "Gemini CLI runs project hooks only in a trusted folder: trust it when asked (or set GEMINI_CLI_TRUST_WORKSPACE=true in CI)."
    }

    /// Claude Code's layout; the timeout in milliseconds.
    fn entry(&self, command: String, matcher: Option<&str>) -> CstInputValue {
        super::claude_code::entry(command, matcher, HOOK_TIMEOUT_SECS * 1000)
    }
}

/// The size of the model's latest prompt (tokens) in a Gemini CLI transcript
/// (JSON lines; a model answer is `{"type":"gemini",...,"tokens":{"input":N}}`,
/// a resumed conversation a `{"$set":{"messages":[...]}}` line): the last
/// such answer in the file's last [`TRANSCRIPT_TAIL_BYTES`]. `None` when
/// there is none or the file cannot be read.
pub fn transcript_prompt_tokens(path: &std::path::Path) -> Option<u64> {
    let tail = memory_rules::base::fs::read_tail(path, TRANSCRIPT_TAIL_BYTES).ok()?;
    let tokens = |m: &Value| {
        if m.get("type").and_then(Value::as_str) != Some("gemini") {
            return None;
        }
        m.pointer("/tokens/input").and_then(Value::as_u64)
    };
    // A cut first line does not parse and is skipped.
    tail.split(|&b| b == b'\n').rev().find_map(|line| {
        if !line.windows(8).any(|w| w == b"\"tokens\"") {
            return None;
        }
        let v: Value = serde_json::from_slice(line).ok()?;
        tokens(&v).or_else(|| {
            v.pointer("/$set/messages")
                .and_then(Value::as_array)?
                .iter()
                .rev()
                .find_map(tokens)
        })
    })
}
