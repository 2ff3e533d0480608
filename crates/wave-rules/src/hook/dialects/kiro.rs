//! Kiro CLI's hooks (`hook --agent kiro`). From Kiro's CLI hooks docs
//! (kiro.dev/docs/cli/hooks, the same text as
//! github.com/aws/amazon-q-developer-cli docs/hooks.md) and its agent
//! configuration reference (kiro.dev/docs/cli/custom-agents/configuration-reference):
//!
//! - the file: hooks live in an agent's configuration, `.kiro/agents/<name>.json`
//!   (the project's) or `~/.kiro/agents/<name>.json` (the user's):
//!   `{"hooks": {"<event>": [{"command": ..., "matcher": ..., "timeout_ms": N}]}}`;
//!   events `agentSpawn`, `userPromptSubmit`, `preToolUse`, `postToolUse`,
//!   `stop`; no matcher: every tool;
//! - every payload: `hook_event_name`, `cwd`; `prompt` (userPromptSubmit);
//!   `tool_name`, `tool_input` (tool events; `fs_read`'s files are
//!   `operations[].path`, `fs_write`'s `path`, `execute_bash`'s `command`;
//!   the short names `read`, `write`, `shell` too), `tool_response`
//!   (postToolUse). No conversation id is documented: `session_id` is read
//!   when it is there (Kiro IDE 1.x sends it), else the conversation is the
//!   project's (`kiro:<cwd>`), begun anew at each `agentSpawn`: two Kiro
//!   sessions at once in one directory share it;
//! - the answer: exit 0 and stdout, plain text, "added to agent's context"
//!   for `agentSpawn` and `userPromptSubmit` only; exit 2 in `preToolUse`
//!   blocks the tool and its stderr "is returned to the LLM". The stdout of
//!   `preToolUse`, `postToolUse` and `stop` reaches no model.
//!
//! So no hook of Kiro CLI can give a path rule after a read or a write:
//! `postToolUse` is not installed (`hook --agent kiro PostToolUse` prints
//! nothing). Path rules reach Kiro as steering: `export --to kiro` writes
//! them to `.kiro/steering` with `inclusion: fileMatch`, which Kiro gives
//! the model itself (and our hooks then leave them out: `self_load.rs`).
//!
//! Not written: the Kiro IDE's `.kiro/hooks/*.kiro.hook` files. Its docs
//! (kiro.dev/docs/hooks/actions) give a shell command's stdout to the agent
//! only for the Prompt Submit and Agent Stop triggers, and pass the prompt
//! in `USER_PROMPT` (before 1.0; JSON on stdin since 1.x, measured by
//! awslabs.github.io/aidlc-workflows/reference/kiro-ide-hook-payload, not here).

use super::{Dialect, HookEntry, Payload, HOOK_TIMEOUT_SECS};
use crate::base::args::{HookAction, HookAgent, HookEvent, ScopeArg};
use crate::base::env::Output;
use crate::base::settings_file;
use jsonc_parser::cst::CstInputValue;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

pub struct Kiro;

/// The hooks installed: (Kiro's event, ours, no matcher: every tool).
pub const EVENTS: [HookEntry; 3] = [
    ("agentSpawn", HookEvent::SessionStart, None),
    ("userPromptSubmit", HookEvent::UserPromptSubmit, None),
    ("preToolUse", HookEvent::PreToolUse, None),
];

/// The agent file `hook install --agent kiro` writes (in `.kiro/agents/`),
/// and the agent's name: run it with `kiro-cli chat --agent wave-rules`.
pub const AGENT_NAME: &str = "wave-rules";

impl Dialect for Kiro {
    fn agent(&self) -> HookAgent {
        HookAgent::Kiro
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    /// Only agentSpawn's and userPromptSubmit's stdout reach its model.
    fn delivers(&self, event: &HookAction) -> bool {
        matches!(
            event,
            HookAction::SessionStart(_) | HookAction::UserPromptSubmit(_) | HookAction::PreToolUse
        )
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        tool_kind(name)
    }

    fn payload(&self, v: &Map<String, Value>) -> Payload {
        let k = payload(v);
        Payload {
            session: k.session,
            cwd: k.cwd,
            prompt: k.prompt,
            tool: k.tool,
            ..Payload::default()
        }
    }

    /// Reads no JSON: exit 2 and the reason on stderr, as Cascade.
    fn refusal(&self, reason: &str) -> Value {
        json!(reason)
    }

    fn refuse(&self, reason: &str, out: &mut Output) -> bool {
        super::windsurf::refuse(reason, out);
        true
    }

    fn subagent_context(&self, _text: &str, _tool: Option<&ToolCall>) -> Option<Value> {
        None
    }

    fn output(&self, _event: &HookAction, text: &str) -> Value {
        context(text)
    }

    fn file(&self, _scope: ScopeArg) -> PathBuf {
        PathBuf::from(".kiro/agents").join(format!("{AGENT_NAME}.json"))
    }

    fn trust_step(&self) -> &'static str {
        "Kiro CLI runs an agent's hooks: start it with `kiro-cli chat --agent wave-rules` (or make it the default: `kiro-cli settings chat.defaultAgent wave-rules`). Its hooks cannot give path rules after a read or a write: `wave-rules export --to kiro` gives them to Kiro as fileMatch steering."
    }

    fn entry(&self, command: String, _matcher: Option<&str>) -> CstInputValue {
        settings_file::object(vec![
            ("command", CstInputValue::String(command)),
            (
                "timeout_ms",
                CstInputValue::Number((HOOK_TIMEOUT_SECS * 1000).to_string()),
            ),
        ])
    }

    /// A new agent file: the agent itself (every tool, Kiro's own resources).
    fn file_members(&self) -> Vec<(&'static str, Value)> {
        agent_members().to_vec()
    }
}

/// What Kiro CLI's built-in tools do (their names and short aliases).
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "fs_read" | "read" => ToolKind::Read,
        "fs_write" | "write" => ToolKind::Write,
        "execute_bash" | "execute_cmd" | "shell" => ToolKind::Shell,
        _ => ToolKind::Other,
    }
}

/// What a Kiro payload says (its dialect makes it the common `Payload`).
#[derive(Debug, Default, PartialEq)]
pub struct KiroEvent {
    pub session: Option<String>,
    pub cwd: Option<String>,
    pub prompt: Option<String>,
    pub tool: Option<ToolCall>,
}

/// Reads a Kiro payload. `fs_read`'s `operations[].path` become `paths`
/// (the core reads a tool's files from its input's keys).
pub fn payload(v: &Map<String, Value>) -> KiroEvent {
    let text = |k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let tool = text("tool_name").map(|name| {
        let mut input = v.get("tool_input").cloned().unwrap_or(Value::Null);
        let paths: Vec<Value> = input
            .get("operations")
            .and_then(Value::as_array)
            .map(|ops| ops.iter().filter_map(|o| o.get("path").cloned()).collect())
            .unwrap_or_default();
        if let (false, Some(o)) = (paths.is_empty(), input.as_object_mut()) {
            o.insert("paths".into(), json!(paths));
        }
        ToolCall::new(name.clone(), tool_kind(&name), input)
    });
    let cwd = text("cwd");
    KiroEvent {
        session: text("session_id").or_else(|| cwd.as_ref().map(|c| format!("kiro:{c}"))),
        cwd,
        prompt: text("prompt"),
        tool,
    }
}

/// The context: plain text on stdout (Kiro adds it as it is).
pub fn context(text: &str) -> Value {
    Value::String(text.to_string())
}

/// Our agent file's members besides `hooks`, written when it is new: every
/// tool, and the resources Kiro's default agent loads, so the rules Kiro
/// gives the model by itself (`sources/self_load.rs`) still reach it.
pub fn agent_members() -> [(&'static str, Value); 4] {
    [
        ("name", json!(AGENT_NAME)),
        (
            "description",
            json!("Kiro's default tools, with the wave-rules hooks"),
        ),
        ("tools", json!(["*"])),
        (
            "resources",
            json!(["file://AGENTS.md", "file://.kiro/steering/**/*.md"]),
        ),
    ]
}
