//! The command line of the roads: `hook` (each agent's events and the
//! install) and `mcp` (the server and the install).

use super::*;
use clap::{Args, Subcommand, ValueEnum};

#[derive(Args, Debug)]
pub struct McpInstallArgs {
    /// The agent whose settings to edit
    #[arg(long, value_enum)]
    pub client: McpClient,
    /// project: the project's settings file; user: yours [default: project]
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
    /// The program to run, written as given [default: the project's bin when the package is installed there, else this program's absolute path]
    #[arg(long, value_name = "PATH")]
    pub command: Option<String>,
    /// More arguments for the server, after `--` (e.g. -- --max-bytes 6000)
    #[arg(last = true)]
    pub server_args: Vec<String>,
}

/// An agent that reads MCP servers from a settings file.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpClient {
    Claude,
    Cursor,
    Vscode,
    Codex,
    Opencode,
    Gemini,
    /// GitHub Copilot CLI
    Copilot,
}

/// An agent CLI with lifecycle hooks (`hook --agent`, `hook install --agent`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HookAgent {
    /// Claude Code (.claude/settings.json)
    #[default]
    Claude,
    /// OpenAI Codex CLI (.codex/hooks.json)
    Codex,
    /// Gemini CLI (.gemini/settings.json)
    Gemini,
    /// GitHub Copilot CLI (.github/hooks/wave-rules.json)
    Copilot,
    /// Cursor (.cursor/hooks.json)
    Cursor,
    /// Windsurf, now Devin Desktop (.windsurf/hooks.json): refusals only
    #[value(alias = "devin")]
    Windsurf,
    /// Cline (executable scripts in .clinerules/hooks/)
    Cline,
    /// Qwen Code (.qwen/settings.json), Claude Code's hook format
    Qwen,
    /// Kiro CLI (an agent of its own: .kiro/agents/wave-rules.json)
    Kiro,
    /// VS Code's Local agent harness (.github/hooks/wave-rules-vscode.json); its Copilot CLI, Claude and Codex harnesses take those agents' hooks
    Vscode,
}

/// One of our hook events, by Claude Code's name. The one list of these
/// names: the `hook <event>` subcommands, the entries `hook install` writes
/// and each agent's own event names (`HookAgent::events`) are made from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HookEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PostToolUse,
    Stop,
    PreCompact,
    SubagentStart,
    SubagentStop,
}

impl HookEvent {
    /// Claude Code's name of the event (also our subcommand's).
    pub const fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
        }
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A hook event (run by Claude Code, JSON on stdin) or a setup action.
#[derive(Subcommand, Debug, Clone)]
pub enum HookAction {
    /// Print the always-on rules and the memory (again every active rule after a compaction)
    #[command(name = HookEvent::SessionStart.name())]
    SessionStart(BudgetArgs),
    /// Print the rules whose topics occur in the prompt, as the MANDATORY RULES section
    #[command(name = HookEvent::UserPromptSubmit.name())]
    UserPromptSubmit(BudgetArgs),
    /// Refuse the tool about to run when a rule that enforces forbids its write or command (the rule's text is the reason)
    #[command(name = HookEvent::PreToolUse.name())]
    PreToolUse,
    /// Print the path rules of the files the agent read, wrote or ran a command on, once per conversation; a rule given long ago again, in short form, at a write it governs; the warnings of enforce: warn rules
    #[command(name = HookEvent::PostToolUse.name())]
    PostToolUse(ToolArgs),
    /// Print the `remind: every-turn` rules active in the conversation
    #[command(name = HookEvent::Stop.name())]
    Stop,
    /// Mark every active rule due again at the next prompt or file: the conversation is being compacted (agents whose compaction event reaches no model)
    #[command(name = HookEvent::PreCompact.name())]
    PreCompact,
    /// Print the always-on rules and its task's topic rules for a subagent that starts, in a conversation of its own
    #[command(name = HookEvent::SubagentStart.name())]
    SubagentStart(BudgetArgs),
    /// Drop the conversation of a subagent that stopped
    #[command(name = HookEvent::SubagentStop.name())]
    SubagentStop,
    /// Add the hooks to the agent's settings (--agent: .claude/settings.json by default; keeps every other setting)
    Install(InstallArgs),
    /// Remove our hooks from the agent's settings (and nothing else)
    Uninstall(InstallArgs),
    /// The watcher a hook starts in a large project (see hook/watch.rs)
    #[command(hide = true)]
    Watch(WatchArgs),
}

/// `hook watch <cache file>` (started by a hook, never by hand).
#[derive(Args, Debug, Clone)]
pub struct WatchArgs {
    /// The hook's saved discovery whose inputs to watch
    pub cache: std::path::PathBuf,
}

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
            (None, HookAction::Watch(_)) => "watch",
            (None, _) => "uninstall",
        }
    }

    /// The event this action answers; `None` for `install` / `uninstall`.
    pub fn event(&self) -> Option<HookEvent> {
        match self {
            HookAction::SessionStart(_) => Some(HookEvent::SessionStart),
            HookAction::UserPromptSubmit(_) => Some(HookEvent::UserPromptSubmit),
            HookAction::PreToolUse => Some(HookEvent::PreToolUse),
            HookAction::PostToolUse(_) => Some(HookEvent::PostToolUse),
            HookAction::SubagentStart(_) => Some(HookEvent::SubagentStart),
            HookAction::SubagentStop => Some(HookEvent::SubagentStop),
            HookAction::Stop => Some(HookEvent::Stop),
            HookAction::PreCompact => Some(HookEvent::PreCompact),
            HookAction::Install(_) | HookAction::Uninstall(_) | HookAction::Watch(_) => None,
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct BudgetArgs {
    /// At most this many lines for the rules section
    #[arg(long, value_name = "N")]
    pub max_lines: Option<usize>,
    /// At most this many UTF-8 bytes for the rules section
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RULES_BYTES)]
    pub max_bytes: usize,
    /// How memory comes with the rules: recall (the relevant entries at each prompt and file touched, the index of topics at the start), lines (the first lines of every topic at the start), off
    #[arg(long, value_enum, default_value_t = MemoryMode::Recall)]
    pub memory: MemoryMode,
    /// At most this many UTF-8 bytes of memory recalled at one event
    #[arg(long, value_name = "N", default_value_t = memory_rules::base::limits::DEFAULT_RECALL_BYTES)]
    pub memory_bytes: usize,
    #[command(flatten)]
    pub sources: MemorySourcesArg,
}

impl Default for BudgetArgs {
    fn default() -> BudgetArgs {
        BudgetArgs {
            max_lines: None,
            max_bytes: DEFAULT_RULES_BYTES,
            memory: MemoryMode::Recall,
            memory_bytes: memory_rules::base::limits::DEFAULT_RECALL_BYTES,
            sources: MemorySourcesArg {
                memory_sources: Vec::new(),
            },
        }
    }
}

/// How memory comes with the rules (`--memory`).
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryMode {
    /// The relevant entries at each event (the index of topics and the pinned entries at the start)
    #[default]
    Recall,
    /// The first lines of every topic, in index order, at the start (as before entries were searched)
    Lines,
    /// No memory
    Off,
}

/// `PostToolUse`'s options: the budget, and how far back a rule's giving
/// must be for a write it governs to bring it again.
#[derive(Args, Debug, Clone)]
pub struct ToolArgs {
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// A path rule given more than N tool calls ago comes back, once, in
    /// short form, when the agent writes a file it governs (0: never)
    #[arg(long, value_name = "N", default_value_t = memory_rules::base::limits::DEFAULT_EDIT_DISTANCE)]
    pub edit_distance: u64,
}

impl Default for ToolArgs {
    fn default() -> Self {
        ToolArgs {
            budget: BudgetArgs::default(),
            edit_distance: memory_rules::base::limits::DEFAULT_EDIT_DISTANCE,
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct InstallArgs {
    /// project: the agent's settings in the project (e.g. <workdir>/.claude/settings.json); user: the agent's user settings (e.g. ~/.claude/settings.json)
    #[arg(long, value_enum, default_value_t = ScopeArg::Project)]
    pub scope: ScopeArg,
    /// The command the hooks run, before `hook <event>` [default: the project's bin (node_modules/.bin/wave-rules, or the unplugged package's under Yarn Plug'n'Play) when the package is installed there, else this program's absolute path]
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// Written into the PostToolUse hook: a path rule given more than N tool calls ago comes back at a write it governs [default: 20; 0: never]
    #[arg(long, value_name = "N")]
    pub edit_distance: Option<u64>,
}

impl HookAgent {
    pub fn as_str(self) -> &'static str {
        match self {
            HookAgent::Claude => "claude",
            HookAgent::Codex => "codex",
            HookAgent::Gemini => "gemini",
            HookAgent::Copilot => "copilot",
            HookAgent::Cursor => "cursor",
            HookAgent::Windsurf => "windsurf",
            HookAgent::Cline => "cline",
            HookAgent::Qwen => "qwen",
            HookAgent::Kiro => "kiro",
            HookAgent::Vscode => "vscode",
        }
    }
}

impl McpClient {
    pub fn as_str(self) -> &'static str {
        match self {
            McpClient::Claude => "claude",
            McpClient::Cursor => "cursor",
            McpClient::Vscode => "vscode",
            McpClient::Codex => "codex",
            McpClient::Opencode => "opencode",
            McpClient::Gemini => "gemini",
            McpClient::Copilot => "copilot",
        }
    }
}
