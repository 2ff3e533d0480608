//! The command line, as clap sees it: the parser's root ([`Cli`]), its
//! subcommands, and [`run`] that hands each to its command. The options
//! of each command are below (`base/args`, `eval/eval_args.rs`), so every
//! layer takes them without reaching up here.

mod run;

pub use run::{run, run_with_input};

use crate::base::args::*;
use crate::eval::eval_args::EvalArgs;
use clap::{Args, Parser, Subcommand};
use memory_rules::base::limits::DEFAULT_RULES_BYTES;

#[derive(Parser, Debug)]
#[command(
    name = "wave-rules",
    version,
    about = "Memory rules and memory for coding agents: check and edit the rules (.wave/rules and every agent's rule files), deliver them through hooks and an MCP server, export them to every agent"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// `wave-rules hook ...` alone: the hook's arguments and the global ones,
/// the same as under [`Cli`], parsed without building every other
/// subcommand (a hook is a process per agent event, and building and
/// dropping the whole command line was over a quarter of its instructions).
#[derive(Parser, Debug)]
#[command(name = "wave-rules hook")]
pub(crate) struct HookCli {
    #[command(flatten)]
    pub hook: HookArgs,
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// `wave-rules memory ...` alone, as [`HookCli`] (an agent's memory tool
/// runs it per call).
#[derive(Parser, Debug)]
#[command(name = "wave-rules memory")]
pub(crate) struct MemoryCli {
    #[command(flatten)]
    pub memory: MemoryArgs,
    #[command(flatten)]
    pub global: GlobalArgs,
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
    /// Agent hooks for Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, Windsurf, Cline and Qwen Code (--agent): run one (the agent's JSON on stdin), or install them in the agent's settings
    Hook(HookArgs),
    /// The MCP server on stdin/stdout (rules and memory for any MCP client), or install it in a client's settings (claude, cursor, vscode, codex, opencode, gemini, copilot)
    Mcp(McpArgs),
    /// The Language Server on stdin/stdout: diagnostics as you type, quick fixes, hover, completion, go to definition on @imports, symbols, for every rule file (docs/lsp.md)
    Lsp,
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
    /// Measure whether rules change what an agent does: each scenario of
    /// .wave/evals (and each rule's `evals:`) run by real agents with and
    /// without the rules under test, through a recording proxy in front of
    /// the model; pass rates with 95% intervals, the uplift, tokens
    Eval(Box<EvalArgs>),
    /// Deliveries, refusals, recalls and eval results as OTLP log records in your OpenTelemetry (docs/telemetry.md): status, ship
    Telemetry(TelemetryArgs),
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

#[derive(Args, Debug)]
pub struct HookArgs {
    /// The agent that runs the hook: its payload and answer format
    #[arg(long, global = true, value_enum, default_value_t = HookAgent::Claude)]
    pub agent: HookAgent,
    #[command(subcommand)]
    pub action: HookAction,
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
