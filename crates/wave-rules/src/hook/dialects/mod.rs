//! The hook dialects, one file per agent: what its payload says
//! ([`Payload`]), its event and tool names, the shape of its answers, and
//! how its hooks are installed ([`Dialect`]). `agent.rs` maps every agent
//! onto the core event through [`of`], the one table of the agents; a new
//! agent is one file here and one line in that table.

pub mod claude_code;
pub mod cline;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod kiro;
pub mod qwen;
pub mod vscode;
pub mod windsurf;

use crate::base::args::{HookAction, HookAgent, HookEvent, InstallArgs, ScopeArg};
use crate::base::env::{Env, Output};
use crate::base::launch::{self, Program};
use jsonc_parser::cst::CstInputValue;
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Each agent's dialect: the one line per agent.
pub fn of(agent: HookAgent) -> &'static dyn Dialect {
    match agent {
        HookAgent::Claude => &claude_code::ClaudeCode,
        HookAgent::Codex => &codex::Codex,
        HookAgent::Gemini => &gemini::Gemini,
        HookAgent::Copilot => &copilot::Copilot,
        HookAgent::Cursor => &cursor::Cursor,
        HookAgent::Windsurf => &windsurf::Windsurf,
        HookAgent::Cline => &cline::Cline,
        HookAgent::Qwen => &qwen::Qwen,
        HookAgent::Kiro => &kiro::Kiro,
        HookAgent::Vscode => &vscode::Vscode,
    }
}

/// One hook entry: (the agent's event, ours, the tool matcher).
pub type HookEntry = (&'static str, HookEvent, Option<&'static str>);

/// What an agent's hooks say and read. The defaults are Claude Code's
/// (whose payload and answers are the shape the others are mapped onto).
pub trait Dialect: Sync {
    /// The agent this dialect is.
    fn agent(&self) -> HookAgent;

    /// The hooks this agent runs: (its event, ours, the tool matcher). The
    /// one table of the agent's event names: `hook install --agent` writes
    /// it, and an answer names its event from it.
    fn events(&self) -> &'static [HookEntry];

    /// Whether the agent gives its model what our hook prints for `event`
    /// (PreCompact and SubagentStop never: `agent.rs` asks those first).
    fn delivers(&self, _event: &HookAction) -> bool {
        true
    }

    /// Whether its compaction event (our `PreCompact`) means a compaction.
    fn compaction_is_certain(&self) -> bool {
        true
    }

    /// What its own tool names do, past the names every agent shares
    /// ([`tool_kind`]).
    fn tool_kind(&self, _name: &str) -> ToolKind {
        ToolKind::Other
    }

    /// Reads its payload (a JSON object).
    fn payload(&self, v: &Map<String, Value>) -> Payload {
        claude_code::read(self.agent(), v)
    }

    /// Its subagent tool, where the tool's call is a subagent's start and
    /// its end the stop (Gemini CLI: it has no subagent events).
    fn subagent_tool(&self) -> Option<&'static str> {
        None
    }

    /// A refusal before a tool runs, as JSON on stdout: the reason is what
    /// the model reads as the call's result.
    fn refusal(&self, reason: &str) -> Value {
        json!({ "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        } })
    }

    /// Refuses by exit code and stderr where the agent reads no JSON from a
    /// hook; false where it reads [`Dialect::refusal`] on stdout.
    fn refuse(&self, _reason: &str, _out: &mut Output) -> bool {
        false
    }

    /// What a subagent's start gives it (`tool`: the call as the agent sent it).
    fn subagent_context(&self, text: &str, _tool: Option<&ToolCall>) -> Option<Value> {
        Some(json!({ "hookSpecificOutput": {
            "hookEventName": "SubagentStart",
            "additionalContext": text,
        } }))
    }

    /// The answer for `event` (delivered, `text` not empty): the context to
    /// add or, at Stop, the reason to go on.
    fn output(&self, event: &HookAction, text: &str) -> Value {
        match event {
            HookAction::Stop => json!({ "decision": "block", "reason": text }),
            _ => json!({ "hookSpecificOutput": {
                "hookEventName": self.event_name(event),
                "additionalContext": text,
            } }),
        }
    }

    /// The agent's own name of one of our events (for its answer): the
    /// first of its hooks that maps onto it, else Claude Code's name.
    fn event_name(&self, event: &HookAction) -> &'static str {
        let Some(ours) = event.event() else {
            return event.event_name();
        };
        self.events()
            .iter()
            .find(|(_, e, _)| *e == ours)
            .map_or(ours.name(), |(theirs, _, _)| theirs)
    }

    /// Its hooks file, from the project (or the user's home).
    fn file(&self, scope: ScopeArg) -> PathBuf;

    /// The project's bin (`bin`, relative to the project) named the way the
    /// agent finds it from wherever it runs the hook. Default: from git's
    /// root (no project variable documented for its hooks).
    fn project_bin(&self, bin: &str, workdir: &Path) -> String {
        launch::git_root_bin(bin, workdir)
    }

    /// The step the agent needs before it runs project hooks ("": none).
    fn trust_step(&self) -> &'static str {
        ""
    }

    /// Our entry for one of its events, in its layout.
    fn entry(&self, command: String, matcher: Option<&str>) -> CstInputValue {
        claude_code::entry(command, matcher, HOOK_TIMEOUT_SECS)
    }

    /// The members a new hooks file gets before the hooks (written when the
    /// first is absent; removed with ours).
    fn file_members(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// Whether its file carries `"version": 1` (written after the hooks).
    fn versioned(&self) -> bool {
        false
    }

    /// `hook install` where the agent takes no hooks file (`None`: the
    /// file of [`Dialect::file`] is edited).
    fn install(&self, _env: &Env, _args: &InstallArgs) -> Option<Output> {
        None
    }

    /// `hook uninstall`, as [`Dialect::install`].
    fn uninstall(&self, _env: &Env, _args: &InstallArgs) -> Option<Output> {
        None
    }
}

/// Seconds each agent gives our hook.
pub use memory_rules::base::limits::HOOK_TIMEOUT_SECS;

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

/// The first of `keys` in a payload that holds a non-empty string.
pub fn first_text(v: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A tool's input as the agent sends it: an object, or that object as a
/// JSON string (Copilot CLI's `toolArgs`, Cursor's `tool_input`); `Null`
/// when absent or not JSON.
pub fn tool_input(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

/// What each agent's tool names are, as far as the core needs to know (a
/// skill tool's input names a skill; a file tool reads or writes): Claude
/// Code's names for every agent, then the agent's own. The files come from
/// the input's keys, whatever the name, so a tool not named here still
/// fires path rules ([`ToolKind::Other`]).
pub fn tool_kind(agent: HookAgent, name: &str) -> ToolKind {
    match name {
        "Read" | "NotebookRead" => ToolKind::Read,
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => ToolKind::Write,
        "Bash" => ToolKind::Shell,
        "Skill" => ToolKind::Skill,
        _ => of(agent).tool_kind(name),
    }
}

/// The command before `hook --agent <name> <event>` in an agent's hook:
/// the project's bin as its dialect names it ([`Dialect::project_bin`];
/// safe to commit); a machine's program its quoted absolute words;
/// `--command` as given.
pub fn hook_prefix(agent: HookAgent, program: &Program, workdir: &Path) -> String {
    match program {
        Program::Project(bin) => of(agent).project_bin(bin, workdir),
        Program::Machine(_) | Program::Given(_) => launch::claude_hook_prefix(program),
    }
}

/// Refuses a tool call where the agent reads no JSON from a hook: Windsurf
/// (Devin Desktop) and Kiro read its exit code 2 and the reason on stderr. False
/// for the others, which read `agent::refusal` on stdout.
pub fn refuse(agent: HookAgent, reason: &str, out: &mut Output) -> bool {
    of(agent).refuse(reason, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn the_table_gives_each_agent_its_own_dialect() {
        for agent in HookAgent::value_variants() {
            assert_eq!(of(*agent).agent(), *agent, "{}", agent.as_str());
            assert!(!of(*agent).events().is_empty(), "{}", agent.as_str());
        }
    }

    #[test]
    fn each_agent_names_the_project_bin_its_own_way() {
        let t = tempfile::tempdir().unwrap();
        // The temp folder is a repository (a fence): what lies above it is
        // never the test's.
        std::fs::create_dir_all(t.path().join(".git")).unwrap();
        std::fs::write(t.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let alone = t.path().join("alone");
        let repo = t.path().join("repo");
        let below = repo.join("my app");
        std::fs::create_dir_all(&alone).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(&below).unwrap();
        // An empty .git folder (as a sandbox leaves in /tmp) is no
        // repository: `alone` is below the fence's.
        std::fs::create_dir_all(alone.join(".git")).unwrap();
        let p = launch::Program::Project(launch::PROJECT_BIN.into());
        let top = "\"$(git rev-parse --show-toplevel 2>/dev/null || pwd)\"/";
        assert_eq!(
            hook_prefix(HookAgent::Codex, &p, &alone),
            format!("{top}alone/node_modules/.bin/wave-rules")
        );
        assert_eq!(
            hook_prefix(HookAgent::Codex, &p, &repo),
            format!("{top}node_modules/.bin/wave-rules")
        );
        assert_eq!(
            hook_prefix(HookAgent::Codex, &p, &below),
            format!("{top}'my app/node_modules/.bin/wave-rules'")
        );
        assert_eq!(
            hook_prefix(HookAgent::Gemini, &p, &alone),
            "$GEMINI_PROJECT_DIR/node_modules/.bin/wave-rules"
        );
        assert_eq!(
            hook_prefix(HookAgent::Copilot, &p, &alone),
            "node_modules/.bin/wave-rules"
        );
        assert_eq!(
            hook_prefix(HookAgent::Cursor, &p, &alone),
            "\"${CURSOR_PROJECT_DIR:-.}\"/node_modules/.bin/wave-rules"
        );
        assert_eq!(
            hook_prefix(HookAgent::Claude, &p, &alone),
            launch::claude_hook_prefix(&p)
        );
        let machine = launch::Program::Machine(vec!["/opt/a b/wave-rules".into()]);
        let given = launch::Program::Given("my-wrapper run".into());
        for agent in [
            HookAgent::Codex,
            HookAgent::Gemini,
            HookAgent::Copilot,
            HookAgent::Cursor,
        ] {
            assert_eq!(
                hook_prefix(agent, &machine, &alone),
                "'/opt/a b/wave-rules'"
            );
            assert_eq!(hook_prefix(agent, &given, &alone), "my-wrapper run");
        }
    }
}
