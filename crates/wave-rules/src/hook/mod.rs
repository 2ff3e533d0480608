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
//! What is due at each event is the core's `Session` (rendered by the core's
//! `render`); `respond` maps Claude Code's events onto it, and the session
//! is kept between hook processes as a small state file (`state`).

pub mod cache;
pub mod settings;
pub mod state;

use crate::args::{BudgetArgs, HookAction};
use crate::env::{Env, Output};
use memory_rules::memory::{MemoryLocations, MemoryStore};
use memory_rules::session::{tool_input_files, Budget, Due, Session, Start};
use memory_rules::{Format, RuleSet};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The most a hook reads from stdin (a `Write` event carries the file's
/// content): 64 MiB.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// Memory text after the rules at `SessionStart`, in lines.
pub const MEMORY_MAX_LINES: usize = 120;
/// The tools whose `PostToolUse` brings path rules.
pub const FILE_TOOLS: [&str; 5] = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"];

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
        tool_input_files(&self.tool_input)
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
            root: None,
            color: false,
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
        let due = respond(action, &budget, env, set, &input, &mut Session::new());
        emit(action, due.text, &mut out);
        return out;
    };
    let mut problems = Vec::new();
    let text = store.update(session, &mut problems, |session| {
        let due = respond(action, &budget, env, set, &input, session);
        // Printed on stdout, which Claude Code reads: delivered.
        session.commit(set, &due);
        due.text
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

/// Claude Code's events onto the session: what is due now. The caller sends
/// the text and commits it.
fn respond(
    action: &HookAction,
    budget: &BudgetArgs,
    env: &Env,
    set: &RuleSet,
    input: &Input,
    session: &mut Session,
) -> Due {
    let budget = Budget {
        max_lines: budget.max_lines,
        max_bytes: Some(budget.max_bytes),
        keep_order: false,
    };
    match action {
        HookAction::SessionStart(_) => {
            let how = Start::parse(input.source.as_deref().unwrap_or("startup"));
            // A resumed session that started before already holds the memory.
            let memory = (how != Start::Resume || !session.started).then(|| {
                MemoryStore::new(MemoryLocations::new(&env.home_dir(), &env.config.workdir))
                    .load_for_prompt(MEMORY_MAX_LINES)
            });
            session.start(set, how, memory.as_deref(), budget)
        }
        HookAction::UserPromptSubmit(_) => {
            session.prompt(set, input.prompt.as_deref().unwrap_or(""), budget)
        }
        HookAction::PostToolUse(_) => session.files_touched(set, &input.files(), budget),
        HookAction::Stop | HookAction::Install(_) | HookAction::Uninstall(_) => Due::default(),
    }
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
    let reason = match store.read(session) {
        Ok(Some(s)) => s.stop(),
        Ok(None) => return,
        Err(problem) => return warn(out, problem),
    };
    if let Some(reason) = reason {
        out.stdout = format!("{}\n", json!({ "decision": "block", "reason": reason }));
    }
}
