//! The options each command takes, as clap reads them (plain structs with
//! clap's derives, the bottom of the CLI so every layer may take them); the
//! parser's root and the subcommand groups are `cli/`.

use clap::{Args, Subcommand, ValueEnum};
use memory_rules::base::limits::DEFAULT_RULES_BYTES;
use std::path::PathBuf;

mod road_args;
mod telemetry_args;
pub use road_args::*;
pub use telemetry_args::*;

/// The options every command takes (`global`: given before or after the
/// subcommand's name).
#[derive(Args, Debug, Default)]
pub struct GlobalArgs {
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
    /// windsurf (or devin), antigravity, kiro, cline, continue, agents-md, gemini,
    /// rules-yaml, or all; each at
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
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    #[default]
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
    /// The entries and rules nearest to a note (an entry's id or a text), ranked, with their evidence: the shared subject, the value that differs, the rule's line
    Similar(MemorySimilarArgs),
    /// Duplicates, notes that restate or contradict rules or each other, superseded notes, files that no longer exist, topics too large (exit 1 on a problem)
    Lint(MemoryLintArgs),
    /// Copy an agent's own memory (Claude Code's auto memory, Codex's memories, GEMINI.md's saved memories) into ours, through the normal write
    Import(MemoryImportArgs),
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
    #[command(flatten)]
    pub sources: MemorySourcesArg,
}

#[derive(Args, Debug)]
pub struct MemorySimilarArgs {
    /// An entry's id (or a prefix only one id has), or a note's text
    pub what: String,
    /// At most this many candidates
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub limit: usize,
}

/// Whose memory is read: ours (`wave`) and, read-only, the agents' own.
#[derive(Args, Debug, Clone)]
pub struct MemorySourcesArg {
    /// The memories read: wave (ours), claude (Claude Code's auto memory), codex (Codex's memories), gemini (GEMINI.md's saved memories); comma-separated [default: memory_sources in .wave/config.toml, else wave]
    #[arg(long = "memory-sources", value_enum, value_delimiter = ',')]
    pub memory_sources: Vec<MemorySourceArg>,
}

/// One memory `--memory-sources` reads.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorySourceArg {
    Wave,
    Claude,
    Codex,
    Gemini,
}

#[derive(Args, Debug)]
pub struct MemoryLintArgs {
    #[command(flatten)]
    pub sources: MemorySourcesArg,
}

#[derive(Args, Debug)]
pub struct MemoryImportArgs {
    /// The agent whose memory is copied
    #[arg(long, value_enum)]
    pub from: MemorySourceArg,
    /// The scope to write to
    #[arg(long, value_enum, default_value = "project")]
    pub scope: ScopeArg,
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
pub struct ValidateArgs {
    /// Rule files or directories to check instead of the rules roots
    pub paths: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ValidateFormat::Text)]
    pub format: ValidateFormat,
    /// Fail (exit 1) on warnings too
    #[arg(long)]
    pub strict: bool,
    /// Apply the diagnostics' fixes to the files (atomic writes; a move never over a file), then validate again
    #[arg(long)]
    pub fix: bool,
    /// With --fix: show the diff of what would change, write nothing
    #[arg(long, requires = "fix")]
    pub dry_run: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// path:line:col: severity[code]: message, with the source line
    Text,
    /// GitHub Actions annotations (::error file=...,line=...,col=...::message)
    Github,
}

/// `validate`'s output: the two of [`OutputFormat`], and SARIF.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValidateFormat {
    /// path:line:col: severity[code]: message, with the source line
    Text,
    /// GitHub Actions annotations (::error file=...,line=...,col=...::message)
    Github,
    /// SARIF 2.1.0, for GitHub code scanning (upload-sarif)
    Sarif,
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
    /// With --memory: also the agents' own memories matching the prompt and the files (read-only)
    #[command(flatten)]
    pub sources: MemorySourcesArg,
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
    /// The agents to write for: cursor, copilot, windsurf, devin, antigravity,
    /// kiro, cline, continue, claude, agents-md, gemini, or all
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
    /// The agents whose rule files to convert: cursor, copilot, windsurf (or
    /// devin), antigravity, kiro, cline, continue, claude, agents-md, gemini,
    /// rules-yaml, or all
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
