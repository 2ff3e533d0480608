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
//! What is due at each event is the core's `Session` (rendered by the core's
//! `render`); `respond` maps Claude Code's events onto it, and the session
//! is kept between hook processes as a small state file (`state`).

pub mod agent;
pub mod cache;
pub mod install;
pub mod settings;
pub mod state;

use crate::args::{BudgetArgs, HookAction, HookAgent, MemoryMode};
use crate::env::{Env, Output};
use memory_rules::memory::recall::RecallBudget;
use memory_rules::memory::{MemoryIndex, MemoryLocations, MemoryStore};
use memory_rules::session::{tool_input_files, Budget, Due, RecallAt, Session, Start};
use memory_rules::{Format, RuleSet};
use serde_json::Value;
use std::path::PathBuf;

/// The most a hook reads from stdin (a `Write` event carries the file's
/// content): 64 MiB.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// Memory text after the rules at `SessionStart` with `--memory lines`, in
/// lines.
pub const MEMORY_MAX_LINES: usize = 120;
/// The tools whose `PostToolUse` brings path rules.
pub const FILE_TOOLS: [&str; 5] = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"];
/// The shell tools: the files their command reads and writes (parsed by the
/// core's `shell`) bring path rules as a file tool's would.
pub const SHELL_TOOLS: [&str; 2] = ["Bash", "shell"];
/// Claude Code's skill tool (`{"skill": name, "args"?}`); the dialects map
/// their skill tools onto it.
pub const SKILL_TOOL: &str = "Skill";

impl HookAction {
    /// A hook event (reads stdin), not `install` / `uninstall`.
    pub fn is_event(&self) -> bool {
        self.event().is_some()
    }

    /// Claude Code's name of the event, or the setup action's.
    pub fn event_name(&self) -> &'static str {
        match (self.event(), self) {
            (Some(event), _) => event.name(),
            (None, HookAction::Install(_)) => "install",
            (None, _) => "uninstall",
        }
    }
}

/// The hook's input, as Claude Code sends it. Unusable input gives an
/// empty `Input` and a problem to report.
#[derive(Debug, Default)]
pub struct Input {
    /// The agent that sent it (its dialect: see `agent`).
    pub agent: HookAgent,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub prompt: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Value,
    pub source: Option<String>,
    /// The size of the model's latest prompt, in tokens, where the agent's
    /// transcript tells it (Gemini CLI: `agent::transcript_prompt_tokens`).
    pub prompt_tokens: Option<u64>,
    pub stop_hook_active: bool,
    pub transcript_path: Option<String>,
    pub problem: Option<String>,
}

impl Input {
    pub fn read(agent: HookAgent, stdin: impl FnOnce() -> std::io::Result<Vec<u8>>) -> Input {
        let mut input = Self::read_claude(agent, stdin);
        input.agent = agent;
        if agent == HookAgent::Gemini {
            input.prompt_tokens = input
                .transcript_path
                .as_deref()
                .and_then(|p| agent::transcript_prompt_tokens(std::path::Path::new(p)));
        }
        input
    }

    fn read_claude(agent: HookAgent, stdin: impl FnOnce() -> std::io::Result<Vec<u8>>) -> Input {
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
        Self::parse_for(agent, &bytes)
    }

    /// One agent's payload, mapped onto Claude Code's by `agent::normalize`.
    pub fn parse_for(agent: HookAgent, bytes: &[u8]) -> Input {
        let v: Value = match serde_json::from_slice(bytes) {
            Ok(v @ Value::Object(_)) => agent::normalize(agent, v),
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
            agent,
            session_id: text("session_id").filter(|s| !s.is_empty()),
            cwd: text("cwd").filter(|s| !s.is_empty()),
            prompt: text("prompt"),
            tool_name: text("tool_name"),
            tool_input: v.get("tool_input").cloned().unwrap_or(Value::Null),
            source: text("source"),
            transcript_path: text("transcript_path").filter(|s| !s.is_empty()),
            prompt_tokens: None,
            stop_hook_active: v
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            problem: None,
        }
    }

    /// Where the project is: `$CLAUDE_PROJECT_DIR` (set by Claude Code for
    /// hooks), else the project root at or above the input's `cwd` (the
    /// core's `project_root`: an agent started in a subdirectory, as Codex
    /// may be, sends that subdirectory as `cwd`).
    pub fn project_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("CLAUDE_PROJECT_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        let cwd = PathBuf::from(self.cwd.as_ref()?);
        let home = crate::env::user_home();
        Some(
            memory_rules::project_root(&cwd, home.as_deref())
                .map(|r| r.dir)
                .unwrap_or(cwd),
        )
    }

    /// The files `tool_input` names: a file tool's path (and the list the
    /// dialects map theirs onto), or the files a shell tool's command reads
    /// and writes (relative to `cwd`).
    fn files(&self) -> Vec<String> {
        if self
            .tool_name
            .as_deref()
            .is_some_and(|t| SHELL_TOOLS.contains(&t))
        {
            return self.shell_files();
        }
        let mut files = tool_input_files(&self.tool_input);
        let listed = self
            .tool_input
            .get("file_paths")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty());
        for f in listed {
            if !files.iter().any(|o| o == f) {
                files.push(f.to_string());
            }
        }
        files
    }

    /// The skills this event activates, each with its `SKILL.md` when the
    /// event names the file: the skill tool's `skill` (also `command` or
    /// `name`), a file touched that is a `<dir>/skills/<name>/SKILL.md`,
    /// or a prompt `/name` (a known skill only: see [`Input::skill_file`]).
    fn skills(
        &self,
        workdir: &std::path::Path,
        home: &std::path::Path,
    ) -> Vec<(String, Option<PathBuf>)> {
        let mut out: Vec<(String, Option<PathBuf>)> = Vec::new();
        if self.tool_name.as_deref() == Some(SKILL_TOOL) {
            let named = ["skill", "command", "name"]
                .iter()
                .find_map(|k| self.tool_input.get(*k).and_then(Value::as_str));
            if let Some(n) = named.and_then(|n| memory_rules::skill::name(n).ok()) {
                out.push((n, None));
            }
            return out;
        }
        if self.tool_name.is_some() {
            for f in self.files() {
                if let Some(n) = memory_rules::skill::from_path(&f) {
                    if !out.iter().any(|(o, _)| *o == n) {
                        let base = self.cwd.as_deref().map(PathBuf::from);
                        let path = match base {
                            Some(b) if !f.starts_with('/') => b.join(&f),
                            _ => PathBuf::from(&f),
                        };
                        out.push((n, Some(path)));
                    }
                }
            }
            return out;
        }
        if let Some(prompt) = &self.prompt {
            // `/name args`: only a skill found in a skills folder.
            let word = prompt.split_whitespace().next().unwrap_or("");
            if let Some(rest) = word.strip_prefix('/').filter(|r| !r.is_empty()) {
                if let Ok(n) = memory_rules::skill::name(rest) {
                    if let Some(file) = memory_rules::skill::find(workdir, Some(home), &n) {
                        out.push((n, Some(file)));
                    }
                }
            }
        }
        out
    }

    fn shell_files(&self) -> Vec<String> {
        let command = match self.tool_input.get("command") {
            Some(Value::String(c)) => c.clone(),
            // Codex's shell tool: an argv array (`["bash", "-lc", "cat a"]`).
            Some(Value::Array(argv)) => {
                match argv.iter().map(Value::as_str).collect::<Option<Vec<_>>>() {
                    Some(words) => words
                        .iter()
                        .map(|w| shell_quote(w))
                        .collect::<Vec<_>>()
                        .join(" "),
                    None => return Vec::new(),
                }
            }
            _ => return Vec::new(),
        };
        let Ok(found) = memory_rules::shell::command_files(&command) else {
            return Vec::new();
        };
        let base = self.cwd.as_deref().map(PathBuf::from);
        found
            .read
            .into_iter()
            .chain(found.written)
            .map(|f| match &base {
                Some(b) if !f.starts_with('/') => b.join(&f).to_string_lossy().into_owned(),
                _ => f,
            })
            .collect()
    }
}

/// One word quoted for the shell (`'...'`), so an argv joins into a command line.
fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
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
    if let HookAction::PreCompact = action {
        compact(&store, &input, &mut out);
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
        let tool = input.tool_name.as_deref().unwrap_or("");
        if tool != SKILL_TOOL
            && (!(FILE_TOOLS.contains(&tool) || SHELL_TOOLS.contains(&tool))
                || input.files().is_empty())
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
        emit(input.agent, action, due.text, &mut out);
        return out;
    };
    let mut problems = Vec::new();
    let delivers = input.agent.delivers(action);
    let text = store.update(session, &mut problems, |session| {
        if let Some(tokens) = input.prompt_tokens {
            session.prompt_size(tokens);
        }
        let due = respond(action, &budget, env, set, &input, session);
        // Printed on stdout, where this agent gives it to the model:
        // delivered. Where it does not, the rules stay due.
        if delivers {
            session.commit(set, &due);
        }
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
    emit(input.agent, action, text, &mut out);
    out
}

/// Prints the additional context in the agent's form, when there is any and
/// the agent gives it to the model.
fn emit(agent: HookAgent, action: &HookAction, text: String, out: &mut Output) {
    if let Some(doc) = agent::output(agent, action, &text) {
        out.stdout = format!("{doc}\n");
    }
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
    let budget_args = budget;
    let budget = Budget {
        max_lines: budget.max_lines,
        max_bytes: Some(budget.max_bytes),
        keep_order: false,
    };
    if matches!(
        action,
        HookAction::PostToolUse(_) | HookAction::UserPromptSubmit(_)
    ) {
        // Skills first: the answer below then holds their rules too.
        let home = env.home_dir();
        for (name, file) in input.skills(&env.config.workdir, &home) {
            // Its SKILL.md is read once, when the skill becomes active.
            let memory = !session.is_skill_active(&name)
                && file
                    .or_else(|| memory_rules::skill::find(&env.config.workdir, Some(&home), &name))
                    .is_some_and(|f| memory_rules::skill::file_uses_memory(&f));
            session.note_skill(&name, memory);
        }
    }
    let store = || MemoryStore::new(MemoryLocations::new(&env.home_dir(), &env.config.workdir));
    let recall = |session: &Session, due: &mut Due, at: RecallAt<'_>| {
        if budget_args.memory == MemoryMode::Recall {
            let index = MemoryIndex::open(&store());
            let limit = RecallBudget {
                bytes: budget_args.memory_bytes,
                ..RecallBudget::default()
            };
            session.recall(due, set, &index, at, limit);
        }
    };
    match action {
        HookAction::SessionStart(_) => {
            let how = Start::parse(input.source.as_deref().unwrap_or("startup"));
            // A resumed session that started before already holds the memory.
            let lines = (budget_args.memory == MemoryMode::Lines
                && (how != Start::Resume || !session.started))
                .then(|| store().load_for_prompt(MEMORY_MAX_LINES));
            let mut due = session.start(set, how, lines.as_deref(), budget);
            recall(session, &mut due, RecallAt::Start(how));
            due
        }
        HookAction::UserPromptSubmit(_) => {
            let prompt = input.prompt.as_deref().unwrap_or("");
            let mut due = session.prompt(set, prompt, budget);
            recall(session, &mut due, RecallAt::Prompt(prompt));
            due
        }
        HookAction::PostToolUse(_) => {
            let files = input.files();
            let mut due = session.files_touched(set, &files, budget);
            recall(session, &mut due, RecallAt::Files(&files));
            due
        }
        HookAction::Stop
        | HookAction::PreCompact
        | HookAction::Install(_)
        | HookAction::Uninstall(_) => Due::default(),
    }
}

/// `PreCompact`: records the compaction (no rules are read; nothing is
/// printed): what was delivered is gone, and every rule active in the
/// session is due at the next prompt or file event, whose output does reach
/// the model. Where the agent fires it whether or not it compacts (Gemini
/// CLI's PreCompress, before every model turn), it only records the prompt's
/// size, which tells the compaction at the next event
/// (`HookAgent::compaction_is_certain`, `Session::prompt_size`).
fn compact(store: &state::Store, input: &Input, out: &mut Output) {
    let Some(session) = input.session_id.as_deref() else {
        return;
    };
    let mut problems = Vec::new();
    store.update(session, &mut problems, |s| {
        if input.agent.compaction_is_certain() {
            s.compacted_unsent();
        } else if let Some(tokens) = input.prompt_tokens {
            s.prompt_size(tokens);
        }
    });
    for p in problems {
        warn(out, p);
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
    if let Some(doc) = reason.and_then(|r| agent::output(input.agent, &HookAction::Stop, &r)) {
        out.stdout = format!("{doc}\n");
    }
}
