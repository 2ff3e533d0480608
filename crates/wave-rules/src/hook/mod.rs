//! `wave-rules hook <event>`: Claude Code hooks. Each run reads the hook's
//! JSON on stdin, answers on stdout in the form that event accepts, and
//! exits 0, whatever happens: a broken rule, bad input or an unreadable
//! state file is one line on stderr, never a failure of the agent's turn.
//!
//! | event | stdout |
//! | --- | --- |
//! | `SessionStart` | the always-on rules, then the memory; on `resume` only what the session lacks; after `compact` / `clear` every rule active in the session again |
//! | `UserPromptSubmit` | the rules a topic of the prompt activates, as `=== MANDATORY RULES ===`, every time |
//! | `PostToolUse` | the path rules of the file a `Read`/`Edit`/`MultiEdit`/`Write`/`NotebookEdit` touched, once per session |
//! | `Stop` | `{"decision":"block","reason":...}` with the `remind: every-turn` rules active in the session, unless `stop_hook_active` |
//!
//! The first three answer `{"hookSpecificOutput":{"hookEventName":...,
//! "additionalContext":...}}`, which Claude Code adds to the model's context.
//! A Stop hook can reach the model only by blocking the stop (the reason
//! becomes the model's next instruction); Claude Code then runs the Stop hook
//! again with `stop_hook_active: true`, and we let that one through, so a
//! reminder costs one extra model turn and never loops.
//!
//! The text is rendered by the core's `render` (the package's `renderRules`
//! layout, byte for byte). What a session was given lives in a small state
//! file per session (`state`).

pub mod cache;
pub mod settings;
pub mod state;

use crate::args::{BudgetArgs, HookAction};
use crate::env::{Env, Output};
use memory_rules::memory::{MemoryLocations, MemoryStore};
use memory_rules::render::{plan_rules, RenderOptions};
use memory_rules::{Format, Remind, Rule, RuleSet};
use serde_json::{json, Value};
use state::{SessionState, Sticky};
use std::collections::HashSet;
use std::path::PathBuf;

/// The most a hook reads from stdin (a `Write` event carries the file's
/// content): 64 MiB.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// Memory text after the rules at `SessionStart`, in lines.
pub const MEMORY_MAX_LINES: usize = 120;
/// The tools whose `PostToolUse` brings path rules.
pub const FILE_TOOLS: [&str; 5] = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"];
/// Keys of `tool_input` that name a file.
const FILE_KEYS: [&str; 3] = ["file_path", "notebook_path", "path"];

impl HookAction {
    /// A hook event (reads stdin), not `install` / `uninstall`.
    pub fn is_event(&self) -> bool {
        !matches!(self, HookAction::Install(_) | HookAction::Uninstall(_))
    }

    /// Claude Code's name of the event.
    pub fn event_name(&self) -> &'static str {
        match self {
            HookAction::SessionStart(_) => "SessionStart",
            HookAction::UserPromptSubmit(_) => "UserPromptSubmit",
            HookAction::PostToolUse(_) => "PostToolUse",
            HookAction::Stop => "Stop",
            HookAction::Install(_) => "install",
            HookAction::Uninstall(_) => "uninstall",
        }
    }
}

/// The hook's input, as Claude Code sends it. Unusable input gives an
/// empty `Input` and a problem to report.
#[derive(Debug, Default)]
pub struct Input {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub prompt: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Value,
    pub source: Option<String>,
    pub stop_hook_active: bool,
    pub problem: Option<String>,
}

impl Input {
    pub fn read(stdin: impl FnOnce() -> std::io::Result<Vec<u8>>) -> Input {
        let bytes = match stdin() {
            Ok(b) => b,
            Err(e) => {
                return Input {
                    problem: Some(format!("cannot read the hook input: {e}")),
                    ..Input::default()
                }
            }
        };
        if bytes.len() > MAX_INPUT_BYTES {
            return Input {
                problem: Some(format!("hook input over {MAX_INPUT_BYTES} bytes; skipped")),
                ..Input::default()
            };
        }
        Self::parse(&bytes)
    }

    pub fn parse(bytes: &[u8]) -> Input {
        let v: Value = match serde_json::from_slice(bytes) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                return Input {
                    problem: Some("hook input is not a JSON object".into()),
                    ..Input::default()
                }
            }
            Err(e) => {
                return Input {
                    problem: Some(format!("hook input is not JSON: {e}")),
                    ..Input::default()
                }
            }
        };
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Input {
            session_id: text("session_id").filter(|s| !s.is_empty()),
            cwd: text("cwd").filter(|s| !s.is_empty()),
            prompt: text("prompt"),
            tool_name: text("tool_name"),
            tool_input: v.get("tool_input").cloned().unwrap_or(Value::Null),
            source: text("source"),
            stop_hook_active: v
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            problem: None,
        }
    }

    /// Where the project is: `$CLAUDE_PROJECT_DIR` (set by Claude Code for
    /// hooks), else the input's `cwd`.
    pub fn project_dir(&self) -> Option<PathBuf> {
        std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| self.cwd.as_ref().map(PathBuf::from))
    }

    /// The files `tool_input` names.
    fn files(&self) -> Vec<String> {
        FILE_KEYS
            .iter()
            .filter_map(|k| self.tool_input.get(*k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
}

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
/// Claude Code reads `.claude/rules` itself, so unless `--source` /
/// `--sources` chose the sources, the Claude-format ones are left out here:
/// the model would get those rules twice.
pub fn run_event(env: &Env, action: &HookAction, input: Input) -> Output {
    if !env.explicit_sources
        && env
            .config
            .sources
            .iter()
            .any(|s| s.format == Format::Claude)
    {
        let mut config = env.config.clone();
        config.sources.retain(|s| s.format != Format::Claude);
        let own = Env {
            config,
            json: env.json,
            home: env.home.clone(),
            explicit_sources: true,
        };
        return run_event(&own, action, input);
    }
    let mut out = Output::default();
    if let Some(problem) = &input.problem {
        warn(&mut out, problem);
        return out;
    }
    let state_dir = state::state_dir(&env.home_dir());
    let store = state::Store::new(state_dir.clone());
    if let HookAction::Stop = action {
        stop(&store, &input, &mut out);
        return out;
    }
    let budget = match action {
        HookAction::SessionStart(b)
        | HookAction::UserPromptSubmit(b)
        | HookAction::PostToolUse(b) => b.clone(),
        _ => BudgetArgs::default(),
    };
    if let HookAction::PostToolUse(_) = action {
        // Nothing to do for other tools: do not even load the rules.
        if !input
            .tool_name
            .as_deref()
            .is_some_and(|t| FILE_TOOLS.contains(&t))
            || input.files().is_empty()
        {
            return out;
        }
    }
    let loaded = cache::load(env, &state_dir);
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
    let Some(session) = input.session_id.as_deref() else {
        // No session: answer statelessly (every rule counts as new).
        let mut state = SessionState::default();
        let text = respond(action, &budget, env, set, &input, &mut state);
        emit(action, text, &mut out);
        return out;
    };
    let mut problems = Vec::new();
    let text = store.update(session, &env.config.workdir, &mut problems, |state| {
        let text = respond(action, &budget, env, set, &input, state);
        state.sticky = sticky(set, state);
        text
    });
    if matches!(action, HookAction::SessionStart(_))
        && input.source.as_deref().is_none_or(|s| s == "startup")
    {
        store.clean_stale(&mut problems);
    }
    for p in problems {
        warn(&mut out, p);
    }
    emit(action, text, &mut out);
    out
}

/// Prints the additional context, when there is any.
fn emit(action: &HookAction, text: String, out: &mut Output) {
    if text.is_empty() {
        return;
    }
    let doc = json!({ "hookSpecificOutput": { "hookEventName": action.event_name(), "additionalContext": text } });
    out.stdout = format!("{doc}\n");
}

/// The text for this event, and the state changes it implies.
fn respond(
    action: &HookAction,
    budget: &BudgetArgs,
    env: &Env,
    set: &RuleSet,
    input: &Input,
    state: &mut SessionState,
) -> String {
    let rules = set.rules();
    let always: Vec<usize> = (0..rules.len())
        .filter(|&i| rules[i].metadata.is_unconditional())
        .collect();
    let mut options = RenderOptions {
        max_lines: budget.max_lines,
        max_bytes: Some(budget.max_bytes),
        ..RenderOptions::default()
    };
    match action {
        HookAction::SessionStart(_) => {
            let source = input.source.as_deref().unwrap_or("startup");
            let mut give: Vec<usize> = always;
            let mut with_memory = true;
            match source {
                "compact" | "clear" => {
                    // The conversation lost what it was given: everything
                    // that was active in the session comes again.
                    state.delivered.clear();
                    let mut on: HashSet<usize> = give.iter().copied().collect();
                    on.extend(set.active(&state.files, None));
                    on.extend(ids_to_indices(set, &state.topics));
                    give = on.into_iter().collect();
                    give.sort_unstable();
                }
                "resume" => {
                    // The resumed conversation still holds what it was
                    // given; only what it lacks comes.
                    give.retain(|&i| !state.delivered.contains(&rules[i].id));
                    with_memory = !state.started;
                }
                _ => *state = SessionState::default(),
            }
            let memory = if with_memory {
                MemoryStore::new(MemoryLocations::new(&env.home_dir(), &env.config.workdir))
                    .load_for_prompt(MEMORY_MAX_LINES)
            } else {
                String::new()
            };
            options.memory = Some(&memory);
            let picked: Vec<&Rule> = give.iter().map(|&i| &rules[i]).collect();
            state.started = true;
            deliver(state, &picked, &options)
        }
        HookAction::UserPromptSubmit(_) => {
            let prompt = input.prompt.as_deref().unwrap_or("");
            let topic = set.topic_active(prompt);
            state.prompt_topics = topic.iter().map(|&i| rules[i].id.clone()).collect();
            for id in &state.prompt_topics {
                if !state.topics.contains(id) {
                    state.topics.push(id.clone());
                }
            }
            // Always-on rules the session has not been given (no
            // SessionStart ran, or a rule was added since) come along.
            let mut give: Vec<usize> = always
                .into_iter()
                .filter(|&i| !state.delivered.contains(&rules[i].id))
                .collect();
            give.extend(topic.iter().copied());
            give.sort_unstable();
            give.dedup();
            options.topic_rule_ids = topic.iter().map(|&i| rules[i].id.as_str()).collect();
            let picked: Vec<&Rule> = give.iter().map(|&i| &rules[i]).collect();
            deliver(state, &picked, &options)
        }
        HookAction::PostToolUse(_) => {
            let mut files = Vec::new();
            for f in input.files() {
                if let Some(rel) = set.normalize(&f) {
                    let rel = rel.into_owned();
                    state.add_file(&rel);
                    files.push(rel);
                }
            }
            let picked: Vec<&Rule> = set
                .active(&files, None)
                .into_iter()
                .map(|i| &rules[i])
                .filter(|r| !r.metadata.is_unconditional() && !state.delivered.contains(&r.id))
                .collect();
            deliver(state, &picked, &options)
        }
        HookAction::Stop | HookAction::Install(_) | HookAction::Uninstall(_) => String::new(),
    }
}

/// Renders `picked` and marks what was rendered as delivered.
fn deliver(state: &mut SessionState, picked: &[&Rule], options: &RenderOptions) -> String {
    let plan = plan_rules(picked, options);
    for id in &plan.order {
        state.mark_delivered(id);
    }
    plan.text
}

fn ids_to_indices(set: &RuleSet, ids: &[String]) -> Vec<usize> {
    let wanted: HashSet<&str> = ids.iter().map(String::as_str).collect();
    (0..set.rules().len())
        .filter(|&i| wanted.contains(set.rules()[i].id.as_str()))
        .collect()
}

/// The `remind: every-turn` rules active in the session: always-on, the
/// files it touched, the topics of the latest prompt.
fn sticky(set: &RuleSet, state: &SessionState) -> Vec<Sticky> {
    let rules = set.rules();
    if !rules
        .iter()
        .any(|r| r.metadata.remind == Some(Remind::EveryTurn))
    {
        return Vec::new();
    }
    let mut on: HashSet<usize> = set.active(&state.files, None).into_iter().collect();
    on.extend(ids_to_indices(set, &state.prompt_topics));
    let mut on: Vec<usize> = on
        .into_iter()
        .filter(|&i| rules[i].metadata.remind == Some(Remind::EveryTurn))
        .collect();
    on.sort_unstable();
    on.into_iter()
        .map(|i| Sticky {
            id: rules[i].id.clone(),
            line: sticky_line(&rules[i]),
        })
        .collect()
}

/// `[id] description`, or the first line of the rule (as `stickyLine` in
/// the package).
pub fn sticky_line(rule: &Rule) -> String {
    let description = rule
        .metadata
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    let text = description.unwrap_or_else(|| rule.content.split('\n').next().unwrap_or("").trim());
    format!("[{}] {text}", rule.id)
}

/// `Stop`: one read of the session's state; blocks the stop with the sticky
/// rules, unless this stop already follows one of ours.
fn stop(store: &state::Store, input: &Input, out: &mut Output) {
    if input.stop_hook_active {
        return;
    }
    let Some(session) = input.session_id.as_deref() else {
        return;
    };
    let sticky = match store.read(session) {
        Ok(Some(s)) => s.sticky,
        Ok(None) => return,
        Err(problem) => return warn(out, problem),
    };
    if sticky.is_empty() {
        return;
    }
    let lines: Vec<String> = sticky.iter().map(|s| format!("- {}", s.line)).collect();
    let reason = format!(
        "Before you end your turn, check your work against these standing rules (remind: every-turn):\n{}\nIf it already follows them, end your turn without further changes.",
        lines.join("\n")
    );
    out.stdout = format!("{}\n", json!({ "decision": "block", "reason": reason }));
}
