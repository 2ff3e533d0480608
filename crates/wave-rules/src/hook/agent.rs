//! One hook front end, one dialect per agent. Every agent's hook payload is
//! mapped onto Claude Code's (the shape `Input` reads), and the answer back
//! onto what that agent reads, by pure functions: `normalize` (payload ->
//! Claude-shaped payload) and `output` (what is due -> the agent's JSON).
//!
//! | agent | file | events -> ours | file tools | shell tool | what reaches the model |
//! | --- | --- | --- | --- | --- | --- |
//! | `claude` | `.claude/settings.json` | same names | `Read` `Edit` `MultiEdit` `Write` `NotebookEdit` | `Bash` | `additionalContext`; Stop by blocking |
//! | `codex` | `.codex/hooks.json` | same names (Claude's format) | `apply_patch` (its patch text) | `Bash`, `shell` (argv) | `additionalContext`; Stop by blocking |
//! | `gemini` | `.gemini/settings.json` `hooks` | SessionStart, BeforeAgent, AfterTool, AfterAgent | `read_file` `read_many_files` `write_file` `replace` | `run_shell_command` | `hookSpecificOutput.additionalContext` (trusted `<hook_context>`); AfterAgent by blocking |
//! | `copilot` | `.github/hooks/wave-rules.json` | sessionStart, userPromptSubmitted, postToolUse, agentStop | `view` `edit` `create` | `bash` | top-level `additionalContext` (native hooks; recorded in -p mode: the `hookSpecificOutput` of Claude-format hooks is dropped there); agentStop by blocking |
//! | `cursor` | `.cursor/hooks.json` | beforeSubmitPrompt, beforeReadFile, afterFileEdit, afterShellExecution, stop | `beforeReadFile` / `afterFileEdit` `file_path` | `command` | only `stop`'s `followup_message`; the others cannot add context, so their rules stay due |
//! | `cline` | `.clinerules/hooks/<Event>` scripts | TaskStart, TaskResume, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact ([`super::dialects::cline`]) | `read_file` `write_to_file` `replace_in_file` (`path`) | `execute_command` | `contextModification`; a refusal is `cancel: true` |
//! | `kiro` | `.kiro/agents/wave-rules.json` `hooks` | agentSpawn, userPromptSubmit, preToolUse ([`super::dialects::kiro`]) | `fs_read` (`operations[].path`), `fs_write` (`path`) | `execute_bash` | agentSpawn's and userPromptSubmit's stdout, plain text; a refusal is exit 2 with the reason on stderr; no hook after a tool reaches its model (path rules: `export --to kiro`) |
//! | `vscode` (Local harness) | `.github/hooks/wave-rules-vscode.json` | SessionStart, PreToolUse, PostToolUse, Stop, PreCompact (same names; [`super::dialects::vscode`]) | `readFile`, `editFiles` (`files`), `createFile` | `runInTerminal` | `hookSpecificOutput.additionalContext`; a refusal is `permissionDecision: "deny"` with the rule in `additionalContext` too; Stop by `hookSpecificOutput.decision: "block"`; UserPromptSubmit's output reaches no model |
//! | `windsurf` (`devin`) | `.windsurf/hooks.json` | pre_write_code, pre_run_command -> PreToolUse ([`super::dialects::windsurf`]) | `tool_info.file_path` | `tool_info.command_line` | a refusal only (exit 2, the reason on stderr); no hook of Cascade adds context |
//!
//! Skill tools, mapped onto Claude Code's `Skill` (`{"skill": name}`):
//! Gemini CLI's `activate_skill` (`{"name": name}`; `ACTIVATE_SKILL_TOOL_NAME`
//! and `SKILL_PARAM_NAME` in its 0.61 bundle), Copilot CLI's `skill`
//! (`{"skill": name}`). Codex has none: it reads the `SKILL.md` with its
//! shell, which activates the skill for every agent (see the core's `skill`).
//!
//! Compaction, per agent (what tells it, and where the rules go again):
//!
//! | agent | compaction event | what reaches the model after it |
//! | --- | --- | --- |
//! | `claude` | SessionStart `source: "compact"` (after `/compact` and auto-compaction) | that SessionStart's `additionalContext`: every rule active in the session |
//! | `codex` | PreCompact, PostCompact (their output has no `additionalContext`; `systemMessage` is shown to the user only), then SessionStart `source: "compact"` | that SessionStart's `additionalContext` (recorded: it is the first developer message after the summary) |
//! | `gemini` | none that is sure: PreCompress (`auto`, `manual` for `/compress`) fires before every model turn, compressing or not. Each of its hooks reads the model's latest prompt size from the transcript (`transcript_path`, the last `gemini` record's `tokens.input`); a prompt smaller than the last one seen (PreCompress sees the one that made it compress) is the compaction | the next BeforeAgent / AfterTool context (PreCompress output is shown to the user only) |
//! | `copilot` | preCompact (`trigger` manual/auto; fired when a background compaction starts: what comes after it stays in the conversation) -> `PreCompact` | the next userPromptSubmitted / postToolUse `additionalContext` (recorded; preCompact's output reaches no model) |
//! | `cursor` | none in its hooks | - |
//!
//! Topic matching sees only the user's words: `prompt` as the agent sends it
//! (Gemini's BeforeAgent `prompt` is the user's message; the SessionStart
//! context is not in it).

use crate::base::args::{HookAction, HookAgent, HookEvent};
use memory_rules::delivery::Conversation;
use memory_rules::delivery::Event;
use memory_rules::delivery::EventKind;
use memory_rules::delivery::Start;
use memory_rules::delivery::ToolCall;
use memory_rules::delivery::ToolKind;
use serde_json::{json, Map, Value};

/// What each agent's hooks do, per agent: its event names, what reaches
/// its model, how it tells a compaction. An extension of the command line's
/// `HookAgent`, so the hook's knowledge stays in `hook/`.
pub trait AgentDialect {
    fn delivers(self, event: &HookAction) -> bool;
    fn events(self) -> &'static [(&'static str, HookEvent, Option<&'static str>)];
    fn compaction_is_certain(self) -> bool;
    fn event_name(self, event: &HookAction) -> &'static str;
}

impl AgentDialect for HookAgent {
    /// Whether this agent gives the model what our hook prints for `event`.
    /// Where it does not, nothing is rendered and nothing is marked
    /// delivered: the rules stay due.
    fn delivers(self, event: &HookAction) -> bool {
        if matches!(event, HookAction::PreCompact | HookAction::SubagentStop) {
            return false;
        }
        match self {
            HookAgent::Claude
            | HookAgent::Codex
            | HookAgent::Gemini
            | HookAgent::Copilot
            | HookAgent::Qwen => true,
            // A refusal's `agent_message` reaches Cursor's model too.
            HookAgent::Cursor => matches!(event, HookAction::Stop | HookAction::PreToolUse),
            HookAgent::Windsurf => matches!(event, HookAction::PreToolUse),
            HookAgent::Cline => !matches!(event, HookAction::Stop),
            // Only agentSpawn's and userPromptSubmit's stdout reach its model.
            HookAgent::Kiro => matches!(
                event,
                HookAction::SessionStart(_)
                    | HookAction::UserPromptSubmit(_)
                    | HookAction::PreToolUse
            ),
            // Its UserPromptSubmit reads the common output only.
            HookAgent::Vscode => !matches!(event, HookAction::UserPromptSubmit(_)),
        }
    }

    /// The hooks this agent runs: (its event, ours, the tool matcher). The
    /// one table of the agents' event names: `hook install --agent` writes
    /// it, and an answer names its event from it.
    fn events(self) -> &'static [(&'static str, HookEvent, Option<&'static str>)] {
        use HookEvent::*;
        const CLAUDE: [(&str, HookEvent, Option<&str>); 7] = [
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
        ];
        match self {
            HookAgent::Claude | HookAgent::Codex => &CLAUDE,
            HookAgent::Gemini => &[
                ("SessionStart", SessionStart, None),
                ("BeforeAgent", UserPromptSubmit, None),
                // Its subagent tool too: a subagent's start (the task is rewritten).
                ("BeforeTool", PreToolUse, Some("write_file|replace|run_shell_command|invoke_agent")),
                (
                    "AfterTool",
                    PostToolUse,
                    Some("read_file|read_many_files|write_file|replace|run_shell_command|activate_skill|invoke_agent"),
                ),
                ("AfterAgent", Stop, None),
                ("PreCompress", PreCompact, None),
            ],
            HookAgent::Copilot => &[
                ("sessionStart", SessionStart, None),
                ("userPromptSubmitted", UserPromptSubmit, None),
                ("preToolUse", PreToolUse, None),
                ("postToolUse", PostToolUse, None),
                ("agentStop", Stop, None),
                ("preCompact", PreCompact, None),
                ("subagentStart", SubagentStart, None),
                ("subagentStop", SubagentStop, None),
            ],
            HookAgent::Cursor => &[
                ("beforeSubmitPrompt", UserPromptSubmit, None),
                ("preToolUse", PreToolUse, None),
                ("beforeShellExecution", PreToolUse, None),
                ("beforeReadFile", PostToolUse, None),
                ("afterFileEdit", PostToolUse, None),
                ("afterShellExecution", PostToolUse, None),
                ("stop", Stop, None),
            ],
            HookAgent::Windsurf => &super::dialects::windsurf::EVENTS,
            HookAgent::Cline => &super::dialects::cline::EVENTS,
            HookAgent::Qwen => &super::dialects::qwen::EVENTS,
            HookAgent::Kiro => &super::dialects::kiro::EVENTS,
            HookAgent::Vscode => &super::dialects::vscode::EVENTS,
        }
    }

    /// Whether this agent's compaction event (our `PreCompact`) means a
    /// compaction. Gemini CLI fires PreCompress before every model turn and
    /// only then checks its threshold (and a `/compress` may find nothing to
    /// compress): there the compaction shows as a smaller prompt
    /// (`transcript_prompt_tokens`).
    fn compaction_is_certain(self) -> bool {
        !matches!(self, HookAgent::Gemini)
    }

    /// The agent's own name of one of our events (for its answer): the
    /// first of its hooks that maps onto it, else Claude Code's name.
    fn event_name(self, event: &HookAction) -> &'static str {
        let Some(ours) = event.event() else {
            return event.event_name();
        };
        self.events()
            .iter()
            .find(|(_, e, _)| *e == ours)
            .map_or(ours.name(), |(theirs, _, _)| theirs)
    }
}

pub use memory_rules::base::limits::TRANSCRIPT_TAIL_BYTES;

/// The tools Claude Code's and Codex's `PreToolUse` hook is installed for:
/// the ones that write a file or run a command, and Claude Code's subagent
/// tool (its task is remembered for the subagent's start).
pub const PRE_TOOL_MATCHER: &str =
    "Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task|shell|apply_patch|exec_command|local_shell";

/// Gemini CLI's subagent tool: its `BeforeTool` is the subagent's start
/// (Gemini CLI has no subagent event, and a subagent's tool events carry
/// nothing of it: see `docs/subagents.md`), its `AfterTool` the stop.
pub const GEMINI_SUBAGENT_TOOL: &str = "invoke_agent";

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

/// What each agent's tool names are, as far as the core needs to know (a
/// skill tool's input names a skill; a file tool reads or writes): the
/// files come from the input's keys, whatever the name, so a tool not named
/// here still fires path rules ([`ToolKind::Other`]).
pub fn tool_kind(agent: HookAgent, name: &str) -> ToolKind {
    match (agent, name) {
        (_, "Read" | "NotebookRead") => ToolKind::Read,
        (_, "Edit" | "MultiEdit" | "Write" | "NotebookEdit") => ToolKind::Write,
        (_, "Bash") => ToolKind::Shell,
        (_, "Skill") => ToolKind::Skill,
        // Its start event has no task: the tool's input is remembered for it.
        (HookAgent::Claude, "Agent" | "Task") => ToolKind::Subagent,
        (HookAgent::Gemini, "read_file" | "read_many_files") => ToolKind::Read,
        (HookAgent::Gemini, "write_file" | "replace" | "edit") => ToolKind::Write,
        (HookAgent::Gemini, "run_shell_command") => ToolKind::Shell,
        (HookAgent::Gemini, "activate_skill") => ToolKind::Skill,
        (HookAgent::Copilot, "skill") => ToolKind::Skill,
        (HookAgent::Copilot, "view" | "read" | "str_replace_editor") => ToolKind::Read,
        (HookAgent::Copilot, "edit" | "create" | "write" | "str_replace") => ToolKind::Write,
        (HookAgent::Copilot, "bash" | "shell") => ToolKind::Shell,
        (HookAgent::Codex, "shell" | "exec_command" | "local_shell") => ToolKind::Shell,
        (HookAgent::Codex, "apply_patch") => ToolKind::Write,
        (HookAgent::Cursor, "StrReplace" | "Delete" | "TabWrite") => ToolKind::Write,
        (HookAgent::Cursor, "Shell") => ToolKind::Shell,
        (HookAgent::Qwen, name) => super::dialects::qwen::tool_kind(name),
        (HookAgent::Kiro, name) => super::dialects::kiro::tool_kind(name),
        (HookAgent::Vscode, name) => super::dialects::vscode::tool_kind(name),
        _ => ToolKind::Other,
    }
}

/// What a hook's payload says, in any agent's keys.
#[derive(Debug, Default, PartialEq)]
pub struct Payload {
    pub session: Option<String>,
    pub cwd: Option<String>,
    pub prompt: Option<String>,
    /// How a session starts (Claude Code's `source`; Copilot CLI's `new` is `startup`).
    pub source: Option<String>,
    pub transcript: Option<String>,
    /// This stop follows one we blocked (`stop_hook_active`).
    pub repeated: bool,
    pub tool: Option<ToolCall>,
    /// The subagent the event comes from (Claude Code's and Codex's
    /// `agent_id`, Copilot CLI's `agentId`); `None` for the main conversation.
    pub agent_id: Option<String>,
    /// Its type (`agent_type`, `agentType`).
    pub agent_type: Option<String>,
    /// When the agent says so, the event's own time (Gemini CLI's
    /// `timestamp`: what names a subagent it does not name).
    pub timestamp: Option<String>,
}

/// The payload of an agent whose dialect lives in `dialects/`.
fn dialect_payload(agent: HookAgent, v: &Map<String, Value>) -> Option<Payload> {
    match agent {
        HookAgent::Windsurf => {
            let c = super::dialects::windsurf::payload(v);
            Some(Payload {
                session: c.session,
                cwd: c.cwd,
                timestamp: c.timestamp,
                tool: c.tool,
                ..Payload::default()
            })
        }
        HookAgent::Cline => {
            let c = super::dialects::cline::payload(v);
            Some(Payload {
                session: c.session,
                cwd: c.cwd,
                prompt: c.prompt,
                source: c.source,
                tool: c.tool,
                ..Payload::default()
            })
        }
        HookAgent::Vscode => {
            // Claude Code's keys, but `sessionId`; a new session's `source` is `new`.
            let mut p = payload(HookAgent::Claude, v);
            let id = v.get("sessionId").and_then(Value::as_str);
            if let Some(id) = id.filter(|s| !s.is_empty()) {
                p.session = Some(id.to_string());
            }
            if p.source.as_deref() == Some("new") {
                p.source = Some("startup".into());
            }
            p.tool = p
                .tool
                .map(|t| ToolCall::new(t.name.clone(), tool_kind(agent, &t.name), t.input));
            Some(p)
        }
        HookAgent::Kiro => {
            let k = super::dialects::kiro::payload(v);
            Some(Payload {
                session: k.session,
                cwd: k.cwd,
                prompt: k.prompt,
                tool: k.tool,
                ..Payload::default()
            })
        }
        _ => None,
    }
}

/// Reads one agent's payload (a JSON object).
pub fn payload(agent: HookAgent, v: &Map<String, Value>) -> Payload {
    if let Some(p) = dialect_payload(agent, v) {
        return p;
    }
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let mut p = Payload {
        session: text(&["session_id"]),
        cwd: text(&["cwd"]),
        prompt: v.get("prompt").and_then(Value::as_str).map(str::to_string),
        source: text(&["source"]),
        transcript: text(&["transcript_path"]),
        repeated: v.get("stop_hook_active").and_then(Value::as_bool) == Some(true),
        tool: None,
        agent_id: text(&["agent_id"]),
        agent_type: text(&["agent_type"]),
        timestamp: text(&["timestamp"]),
    };
    let tool_name = text(&["tool_name"]);
    let tool_input = v.get("tool_input").cloned().unwrap_or(Value::Null);
    match agent {
        HookAgent::Claude
        | HookAgent::Codex
        | HookAgent::Gemini
        | HookAgent::Windsurf
        | HookAgent::Cline
        | HookAgent::Kiro
        | HookAgent::Vscode
        | HookAgent::Qwen => {
            p.tool = tool_name
                .map(|name| ToolCall::new(name.clone(), tool_kind(agent, &name), tool_input));
        }
        HookAgent::Copilot => {
            // Native hooks: camelCase keys, `toolArgs` a JSON string. A
            // subagent's own events carry its id as `sessionId`, with
            // `agentId` and its parent's as `parentAgentId`; its start and
            // stop carry the parent's as `sessionId`.
            p.session = text(&["parentAgentId", "sessionId", "session_id"]);
            p.agent_id = text(&["agentId"]);
            p.agent_type = text(&["agentType", "agentName"]);
            if p.source.as_deref() == Some("new") {
                p.source = Some("startup".into());
            }
            if let Some(name) = text(&["toolName", "tool_name"]) {
                let args = match v.get("toolArgs").or_else(|| v.get("tool_input")) {
                    Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
                    Some(other) => other.clone(),
                    None => Value::Null,
                };
                p.tool = Some(ToolCall::new(name.clone(), tool_kind(agent, &name), args));
            }
        }
        HookAgent::Cursor => {
            // `conversation_id`, `workspace_roots`; file events carry
            // `file_path`, shell events `command` (the rest, a file's
            // content or a command's output, is not looked at).
            p.session = text(&["conversation_id", "session_id"]);
            let root = v
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|r| r.first())
                .and_then(Value::as_str)
                .map(str::to_string);
            p.cwd = root.or(p.cwd);
            let event = text(&["hook_event_name"]).unwrap_or_default();
            if let (Some(name), "preToolUse") = (text(&["tool_name"]), event.as_str()) {
                // A tool about to run: its name and input (`tool_input`, maybe a JSON string).
                let input = match v.get("tool_input") {
                    Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
                    Some(other) => other.clone(),
                    None => Value::Null,
                };
                p.tool = Some(ToolCall::new(name.clone(), tool_kind(agent, &name), input));
            } else if let Some(f) = text(&["file_path"]) {
                let kind = if event == "afterFileEdit" {
                    ToolKind::Write
                } else {
                    ToolKind::Read
                };
                p.tool = Some(ToolCall::new(event, kind, json!({ "file_path": f })));
            } else if let Some(c) = text(&["command"]) {
                p.tool = Some(ToolCall::new(
                    event,
                    ToolKind::Shell,
                    json!({ "command": c }),
                ));
            }
        }
    }
    p
}

/// One of our hook events, with what the payload says, as the core's event.
pub fn event(agent: HookAgent, action: &HookAction, p: Payload) -> Event {
    let kind = match action {
        HookAction::SessionStart(_) => {
            EventKind::Start(Start::parse(p.source.as_deref().unwrap_or("startup")))
        }
        HookAction::UserPromptSubmit(_) => EventKind::Prompt,
        HookAction::Stop => EventKind::Stop {
            repeated: p.repeated,
        },
        HookAction::PreCompact => EventKind::Compaction {
            certain: agent.compaction_is_certain(),
        },
        HookAction::PreToolUse => EventKind::ToolBefore,
        HookAction::SubagentStart(_) => EventKind::SubagentStart,
        HookAction::SubagentStop => EventKind::SubagentStop,
        HookAction::PostToolUse(_)
        | HookAction::Install(_)
        | HookAction::Uninstall(_)
        | HookAction::Watch(_) => EventKind::ToolDone,
    };
    // Gemini CLI's subagent tool: before it, the subagent starts (its task
    // is the tool's `prompt`); after it, the subagent stopped. It names its
    // subagents nowhere: the start's time names it, the stop is the latest
    // live one's (the hook resolves that against the session's state).
    let gemini_subagent = agent == HookAgent::Gemini
        && p.tool
            .as_ref()
            .is_some_and(|t| t.name == GEMINI_SUBAGENT_TOOL);
    let kind = match kind {
        EventKind::ToolBefore if gemini_subagent => EventKind::SubagentStart,
        EventKind::ToolDone if gemini_subagent => EventKind::SubagentStop,
        k => k,
    };
    let session = p.session.unwrap_or_default();
    let conversation = match (&p.agent_id, gemini_subagent, kind) {
        (Some(id), _, _) => Conversation::subagent(session, id.clone()),
        (None, true, EventKind::SubagentStart) => Conversation::subagent(
            session,
            format!("gemini-{}", p.timestamp.as_deref().unwrap_or("subagent")),
        ),
        (None, true, _) => Conversation::subagent(session, String::new()),
        _ => Conversation::new(session),
    };
    let mut event = Event::new(conversation, kind).agent(agent.as_str());
    if let Some(cwd) = p.cwd {
        event = event.cwd(cwd);
    }
    if let Some(t) = p.transcript {
        event = event.transcript(t);
    }
    if let Some(t) = p.agent_type {
        event = event.subagent_type(t);
    }
    match kind {
        EventKind::Prompt => event = event.prompt(p.prompt.unwrap_or_default()),
        EventKind::SubagentStart if gemini_subagent => {
            let task = p
                .tool
                .as_ref()
                .and_then(|t| t.input.get("prompt"))
                .and_then(Value::as_str);
            if let Some(task) = task {
                event = event.prompt(task);
            }
            event = event.tool(p.tool.expect("the subagent tool"));
        }
        EventKind::ToolDone | EventKind::ToolBefore => {
            if let Some(tool) = p.tool {
                event = event.tool(tool);
            }
        }
        _ => {}
    }
    event
}

/// A refusal before a tool runs, in the agent's form: the reason is what
/// the model reads as the call's result (Cursor also shows the user its
/// first line).
pub fn refusal(agent: HookAgent, reason: &str) -> Value {
    match agent {
        HookAgent::Claude | HookAgent::Codex | HookAgent::Qwen => json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        } }),
        HookAgent::Gemini => json!({ "decision": "deny", "reason": reason }),
        HookAgent::Copilot => {
            json!({ "permissionDecision": "deny", "permissionDecisionReason": reason })
        }
        HookAgent::Cursor => json!({
            "permission": "deny",
            "agent_message": reason,
            "user_message": reason.lines().next().unwrap_or(reason),
        }),
        // Reads no JSON: exit 2 and the reason on stderr (`dialects::refuse`).
        HookAgent::Windsurf | HookAgent::Kiro => json!(reason),
        HookAgent::Cline => super::dialects::cline::refusal(reason),
        HookAgent::Vscode => super::dialects::vscode::refusal(reason),
    }
}

/// What a subagent's start gives it, in the agent's form. Gemini CLI: its
/// subagent tool's input with the task starting with the text (`tool`: the
/// call as the agent sent it).
pub fn subagent_context(agent: HookAgent, text: &str, tool: Option<&ToolCall>) -> Option<Value> {
    if text.is_empty() {
        return None;
    }
    Some(match agent {
        HookAgent::Gemini => {
            let mut input = tool?.input.clone();
            let task = input.get("prompt").and_then(Value::as_str).unwrap_or("");
            let task = format!("{text}\n\n{task}");
            input.as_object_mut()?.insert("prompt".into(), json!(task));
            json!({ "hookSpecificOutput": { "hookEventName": "BeforeTool", "tool_input": input } })
        }
        HookAgent::Copilot => json!({ "additionalContext": text }),
        HookAgent::Cursor | HookAgent::Windsurf | HookAgent::Cline | HookAgent::Kiro => {
            return None
        }
        HookAgent::Claude | HookAgent::Codex | HookAgent::Qwen | HookAgent::Vscode => {
            json!({ "hookSpecificOutput": {
            "hookEventName": "SubagentStart",
            "additionalContext": text,
        } })
        }
    })
}

/// The answer for `event` in the agent's form: `text` is the context to
/// add (or, at Stop, the reason to go on).
pub fn output(agent: HookAgent, event: &HookAction, text: &str) -> Option<Value> {
    if text.is_empty() || !agent.delivers(event) {
        return None;
    }
    Some(match (agent, event) {
        (HookAgent::Cursor, HookAction::Stop) => json!({ "followup_message": text }),
        (HookAgent::Cline, _) => super::dialects::cline::context(text),
        (HookAgent::Kiro, _) => super::dialects::kiro::context(text),
        (HookAgent::Vscode, HookAction::Stop) => super::dialects::vscode::stop(text),
        (_, HookAction::Stop) => json!({ "decision": "block", "reason": text }),
        (HookAgent::Copilot, _) => json!({ "additionalContext": text }),
        _ => json!({ "hookSpecificOutput": {
            "hookEventName": agent.event_name(event),
            "additionalContext": text,
        } }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::args::BudgetArgs;

    /// `hook NAME` as the command line parses it.
    fn parse_hook(name: &str) -> Result<HookAction, clap::Error> {
        use clap::{FromArgMatches, Subcommand};
        let cmd = HookAction::augment_subcommands(clap::Command::new("hook"));
        HookAction::from_arg_matches(&cmd.try_get_matches_from(["hook", name])?)
    }

    #[test]
    fn each_event_name_comes_from_one_table_from_command_line_to_agent_answer() {
        let all = [
            HookEvent::SessionStart,
            HookEvent::UserPromptSubmit,
            HookEvent::PostToolUse,
            HookEvent::Stop,
        ];
        for event in all {
            let action = parse_hook(event.name()).unwrap();
            assert_eq!(action.event(), Some(event));
            assert_eq!(action.event_name(), event.name());
            assert_eq!(HookAgent::Claude.event_name(&action), event.name());
            for agent in [
                HookAgent::Claude,
                HookAgent::Codex,
                HookAgent::Gemini,
                HookAgent::Copilot,
            ] {
                assert!(
                    agent.events().iter().any(|(_, e, _)| *e == event),
                    "{} installs no hook for {event}",
                    agent.as_str()
                );
            }
        }
        // The compaction event: installed where the agent tells a compaction
        // only by it (Claude Code and Codex say it in SessionStart's source).
        let compact = parse_hook("PreCompact").unwrap();
        assert_eq!(compact.event(), Some(HookEvent::PreCompact));
        let installs = |agent: HookAgent| {
            agent
                .events()
                .iter()
                .any(|(_, e, _)| *e == HookEvent::PreCompact)
        };
        assert!(installs(HookAgent::Gemini) && installs(HookAgent::Copilot));
        assert!(!installs(HookAgent::Claude) && !installs(HookAgent::Codex));
        assert_eq!(HookAgent::Gemini.event_name(&compact), "PreCompress");
        assert_eq!(HookAgent::Copilot.event_name(&compact), "preCompact");
        let prompt = HookAction::UserPromptSubmit(BudgetArgs::default());
        assert_eq!(HookAgent::Gemini.event_name(&prompt), "BeforeAgent");
        assert_eq!(
            HookAgent::Copilot.event_name(&HookAction::Stop),
            "agentStop"
        );
        assert!(parse_hook("sessionstart").is_err());
    }

    #[test]
    fn each_dialect_maps_onto_the_core_event() {
        let post = HookAction::PostToolUse(crate::base::args::ToolArgs::default());
        let files = |agent: HookAgent, payload: Value| {
            let Value::Object(v) = payload else { panic!() };
            let e = event(agent, &post, super::payload(agent, &v));
            (e.conversation.session.clone(), e.touched())
        };
        let cases = [
            (
                HookAgent::Gemini,
                json!({"session_id":"g","cwd":"/w","hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"absolute_path":"/w/src/a.ts"}}),
                ("g", vec!["/w/src/a.ts"]),
            ),
            (
                HookAgent::Gemini,
                json!({"session_id":"g","tool_name":"read_many_files","tool_input":{"paths":["a.ts","b.ts"]}}),
                ("g", vec!["a.ts", "b.ts"]),
            ),
            (
                HookAgent::Gemini,
                json!({"session_id":"g","cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"cat a.ts","description":"x"}}),
                ("g", vec!["/w/a.ts"]),
            ),
            (
                HookAgent::Copilot,
                json!({"sessionId":"c","cwd":"/w","toolName":"view","toolArgs":"{\"path\":\"/w/src/a.ts\"}"}),
                ("c", vec!["/w/src/a.ts"]),
            ),
            (
                HookAgent::Copilot,
                json!({"sessionId":"c","timestamp":1,"cwd":"/w","toolName":"bash","toolArgs":{"command":"head a.ts"},"toolResult":{"resultType":"success"}}),
                ("c", vec!["/w/a.ts"]),
            ),
            (
                HookAgent::Codex,
                json!({"session_id":"x","tool_name":"apply_patch","tool_input":{"input":"*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** End Patch"}}),
                ("x", vec!["src/new.ts"]),
            ),
            (
                HookAgent::Cursor,
                json!({"conversation_id":"k","workspace_roots":["/w"],"hook_event_name":"beforeReadFile","file_path":"/w/a.ts","content":"x"}),
                ("k", vec!["/w/a.ts"]),
            ),
            (
                HookAgent::Claude,
                json!({"session_id":"s","cwd":"/w","tool_name":"mcp__fs__read_text_file","tool_input":{"path":"src/b.ts"}}),
                ("s", vec!["src/b.ts"]),
            ),
            (
                HookAgent::Kiro,
                json!({"hook_event_name":"postToolUse","cwd":"/w","tool_name":"fs_read","tool_input":{"operations":[{"mode":"Line","path":"/w/src/a.ts"},{"mode":"Directory","path":"/w/src/b.ts"}]},"tool_response":{"success":true}}),
                ("kiro:/w", vec!["/w/src/a.ts", "/w/src/b.ts"]),
            ),
        ];
        for (agent, payload, (session, want)) in cases {
            assert_eq!(
                files(agent, payload.clone()),
                (
                    session.to_string(),
                    want.iter().map(|s| s.to_string()).collect()
                ),
                "{agent:?} {payload}"
            );
        }
        let skill = |agent: HookAgent, payload: Value| {
            let Value::Object(v) = payload else { panic!() };
            event(agent, &post, super::payload(agent, &v)).tools[0].skill()
        };
        assert_eq!(
            skill(
                HookAgent::Gemini,
                json!({"tool_name":"activate_skill","tool_input":{"name":"db-work"}})
            )
            .as_deref(),
            Some("db-work")
        );
        assert_eq!(
            skill(
                HookAgent::Copilot,
                json!({"toolName":"skill","toolArgs":"{\"skill\":\"DB-Work\"}"})
            )
            .as_deref(),
            Some("db-work")
        );
        let start = |agent: HookAgent, payload: Value| {
            let Value::Object(v) = payload else { panic!() };
            event(
                agent,
                &HookAction::SessionStart(BudgetArgs::default()),
                super::payload(agent, &v),
            )
            .kind
        };
        assert_eq!(
            start(HookAgent::Copilot, json!({"source":"new"})),
            EventKind::Start(Start::Startup)
        );
        assert_eq!(
            start(HookAgent::Claude, json!({"source":"compact"})),
            EventKind::Start(Start::Compact)
        );
        assert_eq!(
            start(HookAgent::Vscode, json!({"sessionId":"v","source":"new"})),
            EventKind::Start(Start::Startup)
        );
        let stop = |payload: Value| {
            let Value::Object(v) = payload else { panic!() };
            event(
                HookAgent::Claude,
                &HookAction::Stop,
                super::payload(HookAgent::Claude, &v),
            )
            .kind
        };
        assert_eq!(
            stop(json!({"stop_hook_active": true})),
            EventKind::Stop { repeated: true }
        );
    }

    #[test]
    fn output_only_where_the_agent_gives_it_to_the_model() {
        let post = HookAction::PostToolUse(crate::base::args::ToolArgs::default());
        assert_eq!(
            output(HookAgent::Gemini, &post, "R").unwrap()["hookSpecificOutput"]["hookEventName"],
            "AfterTool"
        );
        assert_eq!(
            output(HookAgent::Copilot, &post, "R"),
            Some(json!({"additionalContext": "R"}))
        );
        assert_eq!(output(HookAgent::Cursor, &post, "R"), None);
        assert_eq!(
            output(HookAgent::Cursor, &HookAction::Stop, "R"),
            Some(json!({"followup_message": "R"}))
        );
        assert_eq!(output(HookAgent::Claude, &post, ""), None);
        for agent in [HookAgent::Gemini, HookAgent::Copilot] {
            assert_eq!(output(agent, &HookAction::PreCompact, "R"), None);
        }
    }
}
