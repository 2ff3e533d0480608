//! The command line, as clap sees it.

use clap::{Args, Parser, Subcommand, ValueEnum};
use memory_rules::base::limits::DEFAULT_RULES_BYTES;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "wave-rules",
    version,
    about = "Memory rules and memory for coding agents: check and edit the rules (.wave/rules and every agent's rule files), deliver them through hooks and an MCP server, export them to every agent"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The project root; project rules live in DIR/.wave/rules [default: the
    /// nearest directory at or above the current one with a .wave, .claude or
    /// .git, else the current directory]
    #[arg(long, global = true, value_name = "DIR")]
    pub workdir: Option<PathBuf>,
    /// The user's home; user rules live in DIR/.claude/rules and DIR/.wave/rules [default: your home]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// A rules source, SCOPE[:FORMAT[:DEPTH]]=DIR (e.g. project=.wave/rules,
    /// user:wave:any=/etc/rules); repeat in override order (later wins). Replaces
    /// the default sources (~/.claude/rules, ~/.wave/rules, ./.claude/rules,
    /// ./.wave/rules). FORMAT: wave (default); DEPTH: a number or any
    /// [default: 1]. A relative DIR is relative to the workdir
    #[arg(long, global = true, value_name = "SPEC", value_parser = SourceArg::parse)]
    pub source: Vec<SourceArg>,
    /// Which agents' rules to read, by name: wave, claude, cursor, copilot,
    /// windsurf, kiro, cline, continue, agents-md, gemini, rules-yaml, or all; each at
    /// its tool's own places [default: claude,wave, what the agent SDK reads]
    #[arg(
        long,
        global = true,
        value_name = "NAME[,NAME...]",
        value_delimiter = ',',
        conflicts_with = "source"
    )]
    pub sources: Vec<String>,
    /// Print machine-readable JSON on stdout
    #[arg(long, global = true)]
    pub json: bool,
    /// Load project rules that resolve (through symlinks) into DIR, outside
    /// the workdir (repeatable); other such rules are not loaded
    #[arg(long = "allow-dir", global = true, value_name = "DIR")]
    pub allow_dirs: Vec<PathBuf>,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--color`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// One `--source` value.
#[derive(Clone, Debug)]
pub struct SourceArg {
    pub scope: memory_rules::Scope,
    pub format: memory_rules::Format,
    pub depth: Option<usize>,
    pub dir: PathBuf,
}

impl SourceArg {
    fn parse(spec: &str) -> Result<SourceArg, String> {
        let (head, dir) = spec
            .split_once('=')
            .ok_or_else(|| format!("'{spec}' is not SCOPE[:FORMAT[:DEPTH]]=DIR"))?;
        if dir.is_empty() {
            return Err(format!("'{spec}' has no directory after '='"));
        }
        let mut parts = head.split(':');
        let scope = match parts.next().unwrap_or("") {
            "project" => memory_rules::Scope::Project,
            "user" => memory_rules::Scope::User,
            other => return Err(format!("scope '{other}' is not project or user")),
        };
        let format = match parts.next() {
            None => memory_rules::Format::Wave,
            Some(f) => memory_rules::Format::parse(f).ok_or_else(|| {
                let known: Vec<&str> = memory_rules::Format::ALL
                    .iter()
                    .map(|f| f.as_str())
                    .collect();
                format!("format '{f}' is not one of: {}", known.join(", "))
            })?,
        };
        let depth = match parts.next() {
            None => format.default_depth(),
            Some("any") => None,
            Some(d) => Some(
                d.parse::<usize>()
                    .map_err(|_| format!("depth '{d}' is not a number or 'any'"))?,
            ),
        };
        if let Some(extra) = parts.next() {
            return Err(format!(
                "unexpected ':{extra}' in '{spec}': SCOPE[:FORMAT[:DEPTH]]=DIR"
            ));
        }
        Ok(SourceArg {
            scope,
            format,
            depth,
            dir: PathBuf::from(dir),
        })
    }

    /// The source, with a relative directory taken from the workdir.
    pub fn resolve(&self, workdir: &std::path::Path) -> memory_rules::sources::Source {
        memory_rules::sources::Source::new(
            workdir.join(&self.dir),
            self.scope,
            self.format,
            self.depth,
        )
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check every rule (or the given files and directories) and print diagnostics
    Validate(ValidateArgs),
    /// List the rules: id, scope, priority, triggers, first line
    List,
    /// Show which rules are active for these files (and prompt), and why
    Match(MatchArgs),
    /// Write a new rule file
    Add(AddArgs),
    /// Delete a rule's file
    Remove(RemoveArgs),
    /// Agent hooks for Claude Code, Codex, Gemini CLI, Copilot CLI and Cursor (--agent): run one (the agent's JSON on stdin), or install them in the agent's settings
    Hook(HookArgs),
    /// The MCP server on stdin/stdout (rules and memory for any MCP client), or install it in a client's settings (claude, cursor, vscode, codex, opencode, gemini, copilot)
    Mcp(McpArgs),
    /// Check the install: engine and platform, sources and their rule counts, diagnostics, installed hooks and MCP entries (stale or non-portable paths), memory locations; exit 1 on a problem
    Doctor,
    /// Write every named agent's native rule files from the configured
    /// sources (default: .claude/rules and .wave/rules of the project)
    Export(ExportArgs),
    /// Convert other agents' rule files into .wave/rules, with the same meaning
    Import(ImportArgs),
    #[command(flatten)]
    Setup(SetupCommand),
    #[command(flatten)]
    Insight(InsightCommand),
    /// Rule packs (npm packages, git repositories, folders) and the policy's: add, list, sync [--frozen], outdated, why
    Packs(PacksArgs),
}

/// `init`, `memory` and `completions`: getting started and housekeeping.
#[derive(Subcommand, Debug)]
pub enum SetupCommand {
    /// Create .wave/rules with one example rule of each kind (and, with a flag, install hooks or the MCP server)
    Init(InitArgs),
    /// The memory the agents keep: write, search, lint, promote, forget, list, show, clear
    Memory(MemoryArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
}

#[derive(Args, Debug)]
pub struct InitArgs {
    /// Also install the hooks for this agent (claude: .claude/settings.json)
    #[arg(long, value_enum, value_name = "AGENT")]
    pub hooks: Option<HookClient>,
    /// Also install the MCP server in this agent's project settings (repeatable)
    #[arg(long, value_enum, value_name = "CLIENT")]
    pub mcp: Vec<McpClient>,
}

/// An agent whose hooks `init --hooks` installs.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookClient {
    Claude,
}

#[derive(Args, Debug)]
pub struct MemoryArgs {
    #[command(subcommand)]
    pub action: MemoryAction,
}

#[derive(Subcommand, Debug)]
pub enum MemoryAction {
    /// Save a note in a topic (folded into a duplicate; a credential is refused; a note a rule already says is not stored)
    Write(MemoryWriteArgs),
    /// The entries most relevant to words and files, from both scopes
    Search(MemorySearchArgs),
    /// Duplicates, notes that restate or contradict rules or each other, files that no longer exist, topics too large (exit 1 on a problem)
    Lint,
    /// Turn an entry into a .wave/rules rule and remove it from memory
    Promote(MemoryPromoteArgs),
    /// Remove an entry
    Forget(MemoryEntryArgs),
    /// List the topics of both scopes (or one), with their files
    List(MemoryScopeArgs),
    /// Print one topic
    Show(MemoryShowArgs),
    /// Delete every topic of one scope
    Clear(MemoryClearArgs),
}

#[derive(Args, Debug)]
pub struct MemoryWriteArgs {
    /// The topic (e.g. build, "staging database")
    pub topic: String,
    /// The note, in Markdown
    pub text: String,
    /// The scope to write to
    #[arg(long, value_enum, default_value = "project")]
    pub scope: ScopeArg,
    /// Globs of the files the note is about: it is recalled when they are in context
    #[arg(long, value_name = "GLOB", num_args = 1..)]
    pub paths: Vec<String>,
    /// Keywords the note is about
    #[arg(long, value_name = "WORD", num_args = 1..)]
    pub topics: Vec<String>,
    /// Give the note at every session start
    #[arg(long)]
    pub pin: bool,
    /// Make it the topic's only note
    #[arg(long)]
    pub replace: bool,
}

#[derive(Args, Debug)]
pub struct MemorySearchArgs {
    /// What to look for
    pub query: String,
    /// Files in context (entries about them rank higher)
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub files: Vec<String>,
    /// At most this many entries
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
}

#[derive(Args, Debug)]
pub struct MemoryPromoteArgs {
    /// The entry's id (or a prefix only it has), as `memory search` shows it
    pub entry: String,
    /// The rule's paths [default: the proposed ones, else the entry's]
    #[arg(long, value_name = "GLOB", num_args = 1..)]
    pub paths: Vec<String>,
    /// The rule's topics [default: the proposed ones, else the entry's]
    #[arg(long, value_name = "WORD", num_args = 1..)]
    pub topics: Vec<String>,
}

#[derive(Args, Debug)]
pub struct MemoryEntryArgs {
    /// The entry's id (or a prefix only it has), as `memory search` shows it
    pub entry: String,
}

#[derive(Args, Debug)]
pub struct MemoryScopeArgs {
    /// Only this scope [default: both]
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
}

#[derive(Args, Debug)]
pub struct MemoryShowArgs {
    /// The topic's name, as `memory list` shows it
    pub topic: String,
    /// The scope to read [default: project, then user]
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
}

#[derive(Args, Debug)]
pub struct MemoryClearArgs {
    /// The scope to clear (required: clearing is not undone)
    #[arg(long, value_enum)]
    pub scope: ScopeArg,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(subcommand)]
    pub action: Option<McpAction>,
    /// At most this many UTF-8 bytes of rules in one rules_for_files answer
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RULES_BYTES)]
    pub max_bytes: usize,
}

#[derive(Subcommand, Debug)]
pub enum McpAction {
    /// Add the server to an agent's MCP settings (keeps every other setting)
    Install(McpInstallArgs),
    /// Remove our server from an agent's MCP settings (and nothing else)
    Uninstall(McpInstallArgs),
}

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

#[derive(Args, Debug)]
pub struct HookArgs {
    /// The agent that runs the hook: its payload and answer format
    #[arg(long, global = true, value_enum, default_value_t = HookAgent::Claude)]
    pub agent: HookAgent,
    #[command(subcommand)]
    pub action: HookAction,
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
            HookAction::Install(_) | HookAction::Uninstall(_) => None,
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
}

impl Default for BudgetArgs {
    fn default() -> BudgetArgs {
        BudgetArgs {
            max_lines: None,
            max_bytes: DEFAULT_RULES_BYTES,
            memory: MemoryMode::Recall,
            memory_bytes: memory_rules::base::limits::DEFAULT_RECALL_BYTES,
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

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Rule files or directories to check instead of the rules roots
    pub paths: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Fail (exit 1) on warnings too
    #[arg(long)]
    pub strict: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// path:line:col: severity[code]: message, with the source line
    Text,
    /// GitHub Actions annotations (::error file=...,line=...,col=...::message)
    Github,
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Files in the agent's context
    pub files: Vec<String>,
    /// The user's prompt (for topics)
    #[arg(long)]
    pub prompt: Option<String>,
    /// A skill active in the session (for `skills`); repeatable
    #[arg(long = "skill", value_name = "NAME")]
    pub skills: Vec<String>,
    /// Also show the conditional rules that did not fire, and why
    #[arg(long)]
    pub all: bool,
    /// Also show the memory entries recalled for the prompt and the files, and why each came
    #[arg(long)]
    pub memory: bool,
    /// A file the agent is about to write: which enforced rules refuse it
    /// or warn, and what the model reads; repeatable
    #[arg(long = "write", value_name = "PATH")]
    pub writes: Vec<String>,
    /// A shell line the agent is about to run: which enforced rules refuse
    /// it or warn (for the files it writes and each command it runs);
    /// repeatable
    #[arg(long = "command", value_name = "LINE")]
    pub commands: Vec<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeArg {
    Project,
    User,
}

impl From<ScopeArg> for memory_rules::Scope {
    fn from(s: ScopeArg) -> Self {
        match s {
            ScopeArg::Project => memory_rules::Scope::Project,
            ScopeArg::User => memory_rules::Scope::User,
        }
    }
}

#[derive(Args, Debug)]
pub struct AddArgs {
    /// The rule's text
    pub content: Option<String>,
    /// Comma-separated keywords that activate the rule
    #[arg(long)]
    pub topics: Option<String>,
    /// Comma-separated globs that activate the rule
    #[arg(long)]
    pub paths: Option<String>,
    /// Higher comes first
    #[arg(long, allow_negative_numbers = true)]
    pub priority: Option<i64>,
    /// Where to write the rule
    #[arg(long, value_enum, default_value_t = ScopeArg::Project)]
    pub scope: ScopeArg,
    /// The rule is always active (no paths, no topics)
    #[arg(long, conflicts_with_all = ["topics", "paths"])]
    pub always: bool,
    /// What the rule is about (shown to the model for on-request rules, and by `list --json`)
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,
    /// The rule's id (its file name in the rules directory, .md added) [default: from the content]
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
}

#[derive(Args, Debug)]
pub struct RemoveArgs {
    /// The rule: its id as `list` shows it (with or without .md), its base
    /// name when only one rule has it, or its file's path
    pub id: String,
    /// Only look in this scope [default: project, then user]
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
}

/// `wave-rules export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The agents to write for: cursor, copilot, windsurf, kiro, cline,
    /// continue, claude, agents-md, gemini, or all
    #[arg(
        long,
        value_name = "NAME[,NAME...]",
        value_delimiter = ',',
        required = true
    )]
    pub to: Vec<String>,
    /// Write nothing; exit 1 with a diff when the files are not what export
    /// would write (for CI)
    #[arg(long, conflicts_with_all = ["dry_run", "watch"])]
    pub check: bool,
    /// Write nothing; list what would be created, updated or removed
    #[arg(long, conflicts_with = "watch")]
    pub dry_run: bool,
    /// Export, then again on every change of the sources (until interrupted)
    #[arg(long)]
    pub watch: bool,
    /// How --check reports: text (a diff) or github (annotations)
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// `wave-rules import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The agents whose rule files to convert: cursor, copilot, windsurf,
    /// kiro, cline, continue, claude, agents-md, gemini, rules-yaml, or all
    #[arg(
        long,
        value_name = "NAME[,NAME...]",
        value_delimiter = ',',
        required = true
    )]
    pub from: Vec<String>,
    /// Write nothing; list what would be created
    #[arg(long)]
    pub dry_run: bool,
}

// ---- `report` and `log`: what the rules do (issue 32) ----

/// `report` and `log`: which rules apply where and what they cost, and
/// what each session was given.
#[derive(Subcommand, Debug)]
pub enum InsightCommand {
    /// Which rules apply where in the repository and what they cost, what
    /// each agent keeps after export, and what the delivery log says was
    /// given: a terminal summary, --json, or one HTML page (--out)
    Report(ReportArgs),
    /// What each session was given: the delivery log as timelines
    Log(LogArgs),
}

/// `wave-rules report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Also write the report as one self-contained HTML page (no request
    /// to anywhere; opens from file://)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Exit 1 when the always-on rules, or the rules any one file brings,
    /// cost more than BUDGET tokens (for CI)
    #[arg(long, value_name = "BUDGET")]
    pub check: Option<u64>,
    /// "Never fired" looks at the last N sessions of the delivery log
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub sessions: usize,
}

/// `wave-rules log`.
#[derive(Args, Debug)]
pub struct LogArgs {
    /// Only this session
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only deliveries since WHEN: a duration back from now (30m, 12h, 7d)
    /// or a date or time (2026-11-20, 2026-11-20T09:30:00Z)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Every project's deliveries, not only this project's
    #[arg(long)]
    pub all: bool,
}

// ---- `wave-rules packs` (issue 31: rule packs and the policy) ----

/// `wave-rules packs`.
#[derive(Args, Debug)]
pub struct PacksArgs {
    #[command(subcommand)]
    pub action: PacksAction,
    /// The policy's packs (<policy dir>/config.toml; WAVE_POLICY_DIR, else
    /// /etc/wave, /Library/Application Support/Wave or %ProgramData%\Wave)
    /// instead of the project's (.wave/config.toml)
    #[arg(long, global = true)]
    pub policy: bool,
}

#[derive(Subcommand, Debug)]
pub enum PacksAction {
    /// Name a pack in the config (SPEC: @acme/rules, @acme/rules@^2,
    /// git+https://host/acme/rules.git#v1.2.0, git+file:///srv/rules.git#main,
    /// ./team-rules), then sync
    Add(PacksAddArgs),
    /// The packs, what each resolved to, its state against the lock and its rule count
    List,
    /// Check out the git packs, check the npm packs, write .wave/packs.lock
    Sync(PacksSyncArgs),
    /// Packs whose source has moved on from the lock (a git ref at a new
    /// commit, an installed npm version other than the locked one)
    Outdated,
    /// Every rule of this id in every layer: which one is used, and why
    Why(PacksWhyArgs),
}

#[derive(Args, Debug)]
pub struct PacksAddArgs {
    /// The pack, as package.json dependencies spell it (git+URL#REF for git, a path for a folder)
    pub spec: String,
}

#[derive(Args, Debug)]
pub struct PacksSyncArgs {
    /// Write nothing to the lock; fail (exit 1) when a pack differs from it:
    /// a git ref at another commit, an npm pack of another version or content
    /// (for CI)
    #[arg(long, conflicts_with = "update")]
    pub frozen: bool,
    /// Move every git pack to the commit its ref names now (default: keep
    /// the locked commit)
    #[arg(long)]
    pub update: bool,
}

#[derive(Args, Debug)]
pub struct PacksWhyArgs {
    /// The rule's id, as `list` shows it
    pub id: String,
}

impl HookAgent {
    pub fn as_str(self) -> &'static str {
        match self {
            HookAgent::Claude => "claude",
            HookAgent::Codex => "codex",
            HookAgent::Gemini => "gemini",
            HookAgent::Copilot => "copilot",
            HookAgent::Cursor => "cursor",
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
