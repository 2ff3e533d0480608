//! One hook front end, one dialect per agent. Every agent's hook payload is
//! mapped onto Claude Code's (the shape `Input` reads), and the answer back
//! onto what that agent reads, by pure functions: [`payload`] (payload ->
//! [`Payload`]), [`event`] (-> the core's event) and [`output`] (what is due
//! -> the agent's JSON). Each agent's part is its file in `dialects/` (a
//! [`dialects::Dialect`]), found through the one table [`dialects::of`].
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

use super::dialects::{self, HookEntry};
use crate::base::args::{HookAction, HookAgent};
use memory_rules::delivery::Conversation;
use memory_rules::delivery::Event;
use memory_rules::delivery::EventKind;
use memory_rules::delivery::Start;
use memory_rules::delivery::ToolCall;
use serde_json::{Map, Value};

pub use super::dialects::claude_code::PRE_TOOL_MATCHER;
pub use super::dialects::gemini::transcript_prompt_tokens;
pub use super::dialects::Payload;

/// What each agent's hooks do, per agent: its event names, what reaches
/// its model, how it tells a compaction. An extension of the command line's
/// `HookAgent`, so the hook's knowledge stays in `hook/`: each answer is
/// its dialect's ([`dialects::of`]).
pub trait AgentDialect {
    fn delivers(self, event: &HookAction) -> bool;
    fn events(self) -> &'static [HookEntry];
    fn compaction_is_certain(self) -> bool;
}

impl AgentDialect for HookAgent {
    /// Whether this agent gives the model what our hook prints for `event`.
    /// Where it does not, nothing is rendered and nothing is marked
    /// delivered: the rules stay due.
    fn delivers(self, event: &HookAction) -> bool {
        if matches!(event, HookAction::PreCompact | HookAction::SubagentStop) {
            return false;
        }
        dialects::of(self).delivers(event)
    }

    /// The hooks this agent runs: (its event, ours, the tool matcher).
    fn events(self) -> &'static [HookEntry] {
        dialects::of(self).events()
    }

    /// Whether this agent's compaction event (our `PreCompact`) means a
    /// compaction (not Gemini CLI's: see `dialects/gemini.rs`).
    fn compaction_is_certain(self) -> bool {
        dialects::of(self).compaction_is_certain()
    }
}

/// Reads one agent's payload (a JSON object).
pub fn payload(agent: HookAgent, v: &Map<String, Value>) -> Payload {
    dialects::of(agent).payload(v)
}

/// The core's kind of one of our hook events, before a subagent tool.
fn kind(agent: HookAgent, action: &HookAction, p: &Payload) -> EventKind {
    match action {
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
    }
}

/// One of our hook events, with what the payload says, as the core's event.
pub fn event(agent: HookAgent, action: &HookAction, p: Payload) -> Event {
    let kind = kind(agent, action, &p);
    // Gemini CLI's subagent tool: before it, the subagent starts (its task
    // is the tool's `prompt`); after it, the subagent stopped. It names its
    // subagents nowhere: the start's time names it, the stop is the latest
    // live one's (the hook resolves that against the session's state).
    let tool_subagent = dialects::of(agent)
        .subagent_tool()
        .is_some_and(|name| p.tool.as_ref().is_some_and(|t| t.name == name));
    let kind = match kind {
        EventKind::ToolBefore if tool_subagent => EventKind::SubagentStart,
        EventKind::ToolDone if tool_subagent => EventKind::SubagentStop,
        k => k,
    };
    let session = p.session.unwrap_or_default();
    let conversation = match (&p.agent_id, tool_subagent, kind) {
        (Some(id), _, _) => Conversation::subagent(session, id.clone()),
        (None, true, EventKind::SubagentStart) => Conversation::subagent(
            session,
            format!(
                "{}-{}",
                agent.as_str(),
                p.timestamp.as_deref().unwrap_or("subagent")
            ),
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
        EventKind::SubagentStart if tool_subagent => {
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
    dialects::of(agent).refusal(reason)
}

/// What a subagent's start gives it, in the agent's form. Gemini CLI: its
/// subagent tool's input with the task starting with the text (`tool`: the
/// call as the agent sent it).
pub fn subagent_context(agent: HookAgent, text: &str, tool: Option<&ToolCall>) -> Option<Value> {
    if text.is_empty() {
        return None;
    }
    dialects::of(agent).subagent_context(text, tool)
}

/// The answer for `event` in the agent's form: `text` is the context to
/// add (or, at Stop, the reason to go on).
pub fn output(agent: HookAgent, event: &HookAction, text: &str) -> Option<Value> {
    if text.is_empty() || !agent.delivers(event) {
        return None;
    }
    Some(dialects::of(agent).output(event, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::args::{BudgetArgs, HookEvent};
    use serde_json::json;

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
            assert_eq!(
                dialects::of(HookAgent::Claude).event_name(&action),
                event.name()
            );
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
        assert_eq!(
            dialects::of(HookAgent::Gemini).event_name(&compact),
            "PreCompress"
        );
        assert_eq!(
            dialects::of(HookAgent::Copilot).event_name(&compact),
            "preCompact"
        );
        let prompt = HookAction::UserPromptSubmit(BudgetArgs::default());
        assert_eq!(
            dialects::of(HookAgent::Gemini).event_name(&prompt),
            "BeforeAgent"
        );
        assert_eq!(
            dialects::of(HookAgent::Copilot).event_name(&HookAction::Stop),
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
