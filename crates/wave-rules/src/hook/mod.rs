//! `wave-rules hook [--agent NAME] <event>`: the agents' hooks (Claude Code's
//! format; the other agents' dialects are mapped onto it by `agent`). Each run reads the hook's
//! JSON on stdin, answers on stdout in the form that event accepts, and
//! exits 0, whatever happens: a broken rule, bad input or an unreadable
//! state file is one line on stderr, never a failure of the agent's turn.
//!
//! | event | stdout |
//! | --- | --- |
//! | `SessionStart` | the always-on rules, then the memory's index of topics and its pinned entries (`--memory lines`: the first lines of every topic); on `resume` only what the session lacks; after `compact` / `clear` every rule active in the session again, and the memory entries it was given |
//! | `UserPromptSubmit` | the rules a topic of the prompt activates, as `=== MANDATORY RULES ===`, every time; the memory entries most relevant to the prompt that the session was not given |
//! | `PostToolUse` | the memory entries tied to the files touched (they name them, or their `paths` match), and the path rules of the file a `Read`/`Edit`/`MultiEdit`/`Write`/`NotebookEdit` touched, or of the files a `Bash` (Codex: `shell`) command reads or writes (the core's `shell`), once per session; the `skills` rules of a skill the `Skill` tool activated or whose `SKILL.md` was read |
//! | `Stop` | `{"decision":"block","reason":...}` with the `remind: every-turn` rules active in the session and, while a skill whose `SKILL.md` uses the memory tools is active, the memory reminder (one text), unless `stop_hook_active` |
//! | `PreCompact` | nothing (no agent gives this event's output to the model): the state records the compaction, and every rule active in the session is due at the next `UserPromptSubmit` or `PostToolUse` with a file (Copilot CLI's preCompact); Gemini CLI's PreCompress, which fires before every model turn, only records the prompt's size, and a smaller one at a later event is the compaction (`agent`) |
//!
//! A skill becomes active in the session (see the core's `skill`) through
//! the agent's skill tool (Claude Code's `Skill`; the dialects map theirs
//! onto it), a prompt `/name` where `name` is a skill found in a skills
//! folder (another slash command activates nothing), or a read of its
//! `<dir>/skills/<name>/SKILL.md` by any file tool or shell command (Codex
//! reads skills that way). Its `SKILL.md` is read then, once, to know
//! whether it uses the memory tools; Stop reads only the state file.
//!
//! The first three answer `{"hookSpecificOutput":{"hookEventName":...,
//! "additionalContext":...}}`, which Claude Code adds to the model's context.
//! A Stop hook can reach the model only by blocking the stop (the reason
//! becomes the model's next instruction); Claude Code then runs the Stop hook
//! again with `stop_hook_active: true`, and we let that one through, so a
//! reminder costs one extra model turn and never loops.
//!
//! The hook is a road: `agent` maps each agent's payload onto the core's
//! agent event (which conversation, what kind of event, the tool call as the
//! agent sent it, the prompt, where it runs) and the answer back onto what
//! that agent reads; what the event means (the files a tool touched, the
//! skills it activated, what is due, the budget, what is delivered) is the
//! core's `Responder`. The conversation's `Session` is kept between hook
//! processes as a small state file (`state`).

pub mod agent;
pub mod agent_install;
pub mod cache;
pub mod dialects;
pub mod input;
pub mod install;
pub mod session_telemetry;
pub mod settings;
pub mod spares;
pub mod state;
pub mod watch;

use crate::base::args::{BudgetArgs, HookAction, HookAgent, MemoryMode};
use crate::base::env::{Env, Output};
use crate::hook::agent::AgentDialect;
use memory_rules::delivery::telemetry::Telemetry;
use memory_rules::delivery::Budget;
use memory_rules::delivery::Event;
use memory_rules::delivery::EventKind;
use memory_rules::delivery::Responder;
use memory_rules::delivery::RulesNeeded;
use memory_rules::delivery::Session;
use memory_rules::delivery::Start;
use memory_rules::memory::agent_memory::MemorySources;
use memory_rules::memory::recall::RecallBudget;
use memory_rules::sources::self_load::AgentModel;
use memory_rules::RuleSet;

pub use input::Input;

/// A hook that could not start (a bad workdir): say why, exit 0.
pub fn skipped(out: Output) -> Output {
    let line = out
        .stderr
        .lines()
        .next()
        .unwrap_or("wave-rules: hook skipped")
        .to_string();
    Output {
        stdout: String::new(),
        stderr: format!("{line}\n"),
        code: 0,
    }
}

fn warn(out: &mut Output, message: impl AsRef<str>) {
    out.stderr.push_str(&format!(
        "wave-rules hook: {}\n",
        message.as_ref().replace('\n', " ")
    ));
}

/// Runs one hook event. Always exits 0.
///
/// The sources the agent gives the model by itself (the core's
/// `self_load` table: Claude Code's `.claude/rules` and `CLAUDE.md`,
/// Codex's `AGENTS.md`, ...) are left out here, whoever chose the sources:
/// the model would get those rules twice.
pub fn run_event(env: &Env, action: &HookAction, input: Input) -> Output {
    let telemetry = session_telemetry::for_hook(env);
    let session = input.payload.session.clone().unwrap_or_default();
    let mut out = answer_event(env, action, input, &telemetry);
    session_telemetry::finish(env, action, &session, &telemetry, &mut out);
    out
}

/// [`run_event`]'s answer, its records given to `telemetry`.
fn answer_event(env: &Env, action: &HookAction, input: Input, telemetry: &Telemetry) -> Output {
    if let Some(own) = without_self_loaded(env, input.agent) {
        return answer_event(&own, action, input, telemetry);
    }
    let mut out = Output::default();
    if let Some(problem) = &input.problem {
        warn(&mut out, problem);
        return out;
    }
    let agent = input.agent;
    let mut event = agent::event(agent, action, input.payload);
    let state_dir = memory_rules::base::fs::state_dir(&env.home_dir());
    let store = state::Store::new(state_dir.clone());
    if agent == HookAgent::Gemini {
        gemini_event(&store, &mut event, &mut out);
    }
    let key = (!event.conversation.session.is_empty()).then(|| event.conversation.key());
    if let EventKind::Stop { .. } | EventKind::Compaction { .. } | EventKind::SubagentStop =
        event.kind
    {
        // No rule is read: a stop reads the state, a compaction records
        // itself, a subagent's stop drops its conversation.
        let asked = (&event, agent, action);
        answer_without_rules(env, &store, key.as_deref(), asked, telemetry, &mut out);
        return out;
    }
    if !event.may_matter() {
        // A tool that touched no file and named no skill: no rule is loaded.
        return out;
    }
    let touched = event.touched();
    let mut need = event.rules_needed(&touched, || {
        key.as_deref().is_some_and(|k| store.regives(k))
    });
    // A subagent's task waits in its parent's state: the topic rules it
    // names are those restored (checked under the lock: `subagent_start`).
    let tasks = waiting_tasks(&store, &event, need);
    let joined = tasks.as_ref().map(|t| t.join("\n"));
    if joined.is_some() {
        need.prompt = joined.as_deref();
    }
    let loaded = cache::load(env, &state_dir, need);
    let set = &*loaded.set;
    if !loaded.broken.is_empty() {
        let n = loaded.broken.len();
        warn(
            &mut out,
            format!(
                "skipped {n} broken rule{}: {}",
                if n == 1 { "" } else { "s" },
                loaded.broken.join("; ")
            ),
        );
    }
    session_telemetry::loaded(telemetry, &event, &loaded.census, &loaded.broken);
    let responder = responder(env, action, set, &mut out).telemetry(telemetry);
    if event.kind == EventKind::ToolBefore {
        before_tool(&store, key.as_deref(), &responder, &event, agent, &mut out);
        return out;
    }
    let Some(key) = key else {
        // No session: answer statelessly (every rule counts as new).
        let answer = responder.respond(&mut Session::new(), &event);
        emit(agent, action, &answer.text, &mut out);
        return out;
    };
    if event.kind == EventKind::SubagentStart {
        let asked = (agent, agent.delivers(action));
        let with = (&store, key.as_str());
        if !subagent_start(with, &responder, &event, asked, tasks.as_deref(), &mut out) {
            // Its task came after the look: every rule, then.
            let loaded = cache::load(env, &state_dir, RulesNeeded::ALL);
            let responder = self::responder(env, action, &loaded.set, &mut out);
            let responder = responder.telemetry(telemetry);
            subagent_start(with, &responder, &event, asked, None, &mut out);
        }
        return out;
    }
    let asked = (agent, action);
    answer_in_session(
        &store,
        &key,
        &responder,
        &event,
        asked,
        loaded.partial,
        &mut out,
    );
    out
}

/// The environment without the sources `agent` loads by itself, when it
/// loads some of the configured ones (see [`run_event`]).
fn without_self_loaded(env: &Env, agent: HookAgent) -> Option<Env> {
    let model = AgentModel::named(agent.as_str())?;
    let config = model.leave_out(&env.config);
    if config.sources.len() == env.config.sources.len() {
        return None;
    }
    Some(Env {
        config,
        json: env.json,
        home: env.home.clone(),
        sources_from: env.sources_from.clone(),
        root: None,
        color: false,
    })
}

/// What Gemini CLI's payloads leave out, filled in: the prompt's size (from
/// its transcript) and the subagent a tool event or a stop belongs to.
fn gemini_event(store: &state::Store, event: &mut Event, out: &mut Output) {
    // Gemini CLI tells the prompt's size only in its transcript; a smaller
    // one than the last seen is the compaction its PreCompress cannot tell.
    if !matches!(event.kind, EventKind::Stop { .. }) {
        event.prompt_tokens = event
            .transcript
            .as_deref()
            .and_then(agent::transcript_prompt_tokens);
    }
    // Gemini CLI names no subagent in its payloads: a tool event while
    // one of the session's subagents is live is that subagent's (the
    // latest one's: see docs/subagents.md), and so is its stop.
    gemini_subagent(store, event, out);
}

/// The answer of a conversation with state: the session updated under its
/// lock (committed where the agent gives the answer to the model), the
/// delivery logged after it, stale sessions cleaned at a startup. `partial`:
/// the responder's rules are only those the event needed.
fn answer_in_session(
    store: &state::Store,
    key: &str,
    responder: &Responder,
    event: &Event,
    (agent, action): (HookAgent, &HookAction),
    partial: bool,
    out: &mut Output,
) {
    let mut problems = Vec::new();
    let delivers = agent.delivers(action);
    let answer = store.update(key, &mut problems, |session| {
        // A compaction recorded by another hook after this one looked
        // (`Store::regives`): these rules are not all it took, so the next
        // event gives again what this one could not.
        let regive_after = partial && session.regive;
        let answer = responder.respond(session, event);
        // Printed on stdout, where this agent gives it to the model:
        // delivered. Where it does not, the rules stay due.
        if delivers {
            responder.commit_unlogged(session, &answer);
        }
        session.regive |= regive_after;
        answer
    });
    // Logged once the session's lock is released.
    if delivers {
        responder.log_answer(&answer);
    }
    let text = answer.text;
    if event.kind == EventKind::Start(Start::Startup) {
        store.clean_stale(&mut problems);
    }
    for p in problems {
        warn(out, p);
    }
    emit(agent, action, &text, out);
}

/// The core's responder for a hook: the budget of the hook's command line,
/// the user's home, the memory (`--memory`: recalled by relevance, the first
/// lines of every topic at the start, or none).
fn responder<'a>(
    env: &'a Env,
    action: &HookAction,
    set: &'a RuleSet,
    out: &mut Output,
) -> Responder<'a> {
    let args = match action {
        HookAction::SessionStart(b)
        | HookAction::UserPromptSubmit(b)
        | HookAction::SubagentStart(b)
        | HookAction::PostToolUse(crate::base::args::ToolArgs { budget: b, .. }) => Some(b),
        _ => None,
    };
    let budget = match args {
        Some(b) => Budget {
            max_lines: b.max_lines,
            max_bytes: Some(b.max_bytes),
            keep_order: false,
        },
        None => Budget::agents(),
    };
    let distance = match action {
        HookAction::PostToolUse(t) => t.edit_distance,
        _ => memory_rules::base::limits::DEFAULT_EDIT_DISTANCE,
    };
    let responder = Responder::new(set, &env.config.workdir)
        .home(env.home_dir())
        .budget(budget)
        .edit_distance(distance);
    match args.map_or(MemoryMode::Recall, |b| b.memory) {
        MemoryMode::Recall => responder
            .with_recall(RecallBudget {
                bytes: args.map_or(memory_rules::base::limits::DEFAULT_RECALL_BYTES, |b| {
                    b.memory_bytes
                }),
                ..RecallBudget::default()
            })
            .memory_sources(recall_sources(env, args, out), env.agent_places()),
        MemoryMode::Lines => responder.with_memory(),
        MemoryMode::Off => responder,
    }
}

/// Whose memory the recall reads (`--memory-sources`, else the project's
/// `memory_sources`, else ours). A config that cannot be read is warned
/// about and ours is read: a hook never stops for it.
fn recall_sources(env: &Env, args: Option<&BudgetArgs>, out: &mut Output) -> MemorySources {
    let given = args.map_or(&[][..], |b| &b.sources.memory_sources[..]);
    env.memory_sources(given).unwrap_or_else(|e| {
        warn(out, e);
        MemorySources::default()
    })
}

/// Before a tool runs: a refusal in the agent's form when a rule that
/// enforces forbids its write or command, else nothing (the tool runs). No
/// state is read or written, unless the tool starts a subagent (its task
/// is remembered for the subagent's start). Whatever goes wrong here lets
/// the tool run: only a decision printed on purpose refuses.
fn before_tool(
    store: &state::Store,
    key: Option<&str>,
    responder: &Responder,
    event: &Event,
    agent: HookAgent,
    out: &mut Output,
) {
    let announces = event
        .tools
        .iter()
        .any(|t| t.kind == memory_rules::delivery::ToolKind::Subagent);
    let answer = match key {
        Some(key) if announces => {
            let mut problems = Vec::new();
            let answer = store.update(key, &mut problems, |session| {
                responder.respond(session, event)
            });
            for p in problems {
                warn(out, p);
            }
            answer
        }
        _ => responder.respond(&mut Session::new(), event),
    };
    responder.record_verdict(&answer, event.tools.first().map(|t| t.name.as_str()));
    for why in &answer.verdict.unchecked {
        warn(
            out,
            format!("not checked against the enforced rules, so let run: {why}"),
        );
    }
    if let Some(reason) = answer.refusal {
        if !dialects::refuse(agent, &reason, out) {
            out.stdout = format!("{}\n", agent::refusal(agent, &reason));
        }
    }
}

/// A subagent starts: recorded live in its parent's conversation, and its
/// own conversation given the always-on rules and its task's topic rules
/// (the subagents forgotten past the bound are dropped). With
/// `restored_for`, the tasks whose topic rules the responder's set holds:
/// when the task it takes is none of them (it was announced after they
/// were read), nothing is done and it returns false.
fn subagent_start(
    (store, child_key): (&state::Store, &str),
    responder: &Responder,
    event: &Event,
    (agent, delivers): (HookAgent, bool),
    restored_for: Option<&[String]>,
    out: &mut Output,
) -> bool {
    let session = event.conversation.session.clone();
    let parent_key = memory_rules::delivery::Conversation::new(session.clone()).key();
    let mut problems = Vec::new();
    let answer = store.update_pair((&parent_key, child_key), &mut problems, |parent, child| {
        let task = parent.task_for(event.subagent_type.as_deref());
        if let (Some(task), Some(tasks)) = (task, restored_for) {
            if !tasks.iter().any(|t| t == task) {
                return (None, Vec::new());
            }
        }
        let (answer, forgotten) = responder.subagent_start(parent, child, event);
        if delivers {
            responder.commit_unlogged(child, &answer);
        }
        let drop = forgotten
            .into_iter()
            .map(|id| memory_rules::delivery::Conversation::subagent(session.clone(), id).key())
            .collect();
        (Some(answer), drop)
    });
    let Some(answer) = answer else {
        return false;
    };
    // Logged once the sessions' lock is released.
    if delivers {
        responder.log_answer(&answer);
    }
    let text = answer.text;
    for p in problems {
        warn(out, p);
    }
    if let Some(doc) = agent::subagent_context(agent, &text, event.tools.first()) {
        out.stdout = format!("{doc}\n");
    }
    true
}

/// The tasks waiting in the parent's state for a subagent's start whose
/// event names none, when only some topic rules are restored for it
/// (`None` otherwise, or when the state cannot be read: every topic rule).
fn waiting_tasks(store: &state::Store, event: &Event, need: RulesNeeded) -> Option<Vec<String>> {
    let wanted = event.kind == EventKind::SubagentStart
        && event.prompt.is_none()
        && need.topics
        && need != RulesNeeded::ALL
        && !event.conversation.session.is_empty();
    if !wanted {
        return None;
    }
    let parent = memory_rules::delivery::Conversation::new(event.conversation.session.clone());
    store.waiting_tasks(&parent.key())
}

/// Gemini CLI's subagents (see [`agent::GEMINI_SUBAGENT_TOOL`]): a tool
/// event of the main conversation while a subagent is live goes to the
/// latest live one, and a subagent's stop names it.
fn gemini_subagent(store: &state::Store, event: &mut Event, out: &mut Output) {
    let tool_event = matches!(event.kind, EventKind::ToolBefore | EventKind::ToolDone);
    let unnamed_stop =
        event.kind == EventKind::SubagentStop && event.conversation.subagent.as_deref() == Some("");
    if event.conversation.session.is_empty()
        || !(unnamed_stop || tool_event && event.conversation.subagent.is_none())
    {
        return;
    }
    let live = match store.read(&event.conversation.session) {
        Ok(Some(s)) => s.subagents().last().map(|a| a.id.clone()),
        Ok(None) => None,
        Err(problem) => {
            warn(out, problem.to_string());
            None
        }
    };
    if let Some(id) = live {
        event.conversation.subagent = Some(id);
    }
}

/// A stop (one read of the conversation's state; blocks the stop with the
/// sticky rules and the memory reminder, unless this stop follows one of
/// ours) or a compaction (recorded; nothing is printed, as no agent gives
/// this event's output to the model: every rule active in the conversation
/// is due at the next prompt or file event). Neither reads a rule.
fn answer_without_rules(
    env: &Env,
    store: &state::Store,
    key: Option<&str>,
    (event, agent, action): (&Event, HookAgent, &HookAction),
    telemetry: &Telemetry,
    out: &mut Output,
) {
    let Some(key) = key else {
        return;
    };
    let none = RuleSet::default();
    let responder = Responder::new(&none, &env.config.workdir)
        .home(env.home_dir())
        .telemetry(telemetry);
    if event.kind == EventKind::SubagentStop {
        let Some(id) = event
            .conversation
            .subagent
            .clone()
            .filter(|id| !id.is_empty())
        else {
            return;
        };
        let session = event.conversation.session.clone();
        let parent = memory_rules::delivery::Conversation::new(session.clone()).key();
        let child = memory_rules::delivery::Conversation::subagent(session, id).key();
        let mut problems = Vec::new();
        store.update_pair((&parent, &child), &mut problems, |parent, _| {
            responder.subagent_stop(parent, event);
            ((), vec![child.clone()])
        });
        for p in problems {
            warn(out, p);
        }
        return;
    }
    if let EventKind::Stop { repeated } = event.kind {
        if repeated {
            return;
        }
        match store.read(key) {
            Ok(Some(mut session)) => {
                let answer = responder.respond(&mut session, event);
                emit(agent, action, &answer.text, out);
                // Printed where this agent gives it to the model: logged.
                if agent.delivers(action) {
                    responder.commit_stop(&session, &answer);
                }
            }
            Ok(None) => {}
            Err(problem) => warn(out, problem.to_string()),
        }
        return;
    }
    let mut problems = Vec::new();
    store.update(key, &mut problems, |session| {
        responder.respond(session, event);
    });
    for p in problems {
        warn(out, p);
    }
}

/// Prints the answer in the agent's form, when there is any and the agent
/// gives it to the model.
fn emit(agent: HookAgent, action: &HookAction, text: &str, out: &mut Output) {
    match agent::output(agent, action, text) {
        // Plain text (Kiro reads stdout as it is).
        Some(serde_json::Value::String(plain)) => out.stdout = format!("{plain}\n"),
        // Serialized straight into the string: `Value`'s `Display` goes
        // through the formatter a piece at a time (about twice the
        // instructions on a session start's hundred rules).
        Some(doc) => {
            out.stdout = serde_json::to_string(&doc).unwrap_or_default();
            out.stdout.push('\n');
        }
        None => {}
    }
}
