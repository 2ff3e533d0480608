//! The `wave-rules` command line: `validate`, `list`, `match`, `add`,
//! `remove`, `hook` (Claude Code hooks) and `mcp` (an MCP server for any
//! agent), over the `memory-rules` core.
//!
//! [`run`] parses arguments and returns what to print and the exit code
//! instead of printing, so the Rust binary and the Node package
//! (`npx wave-rules`, through the addon) produce identical output.
//!
//! Exit codes: 0 success (for `validate`: no error, and no warning with
//! `--strict`); 1 the rules have errors, or the command was refused (`add`
//! without content or trigger, `remove` of an unknown id); 2 usage or I/O
//! trouble.

mod args;
mod color;
mod commands;
mod display;
mod env;
mod eval;
mod hook;
#[cfg(target_os = "linux")]
mod inotify_changes;
pub mod launch;
#[cfg(not(target_family = "wasm"))]
mod lsp;
pub mod mcp;
mod report;
mod settings_file;
mod telemetry;

/// The recording proxy of `wave-rules eval`, for the tests.
#[doc(hidden)]
#[cfg(not(target_family = "wasm"))]
pub use eval::proxy as eval_proxy;

use args::{Cli, Command, HookAction, HookAgent, InsightCommand, McpAction, SetupCommand};
use clap::Parser;
use commands::{
    doctor, edit, eval as evals, export, list, log, matching, memory, packs, setup, validate,
};
use env::Env;
pub use env::{Output, EXIT_FAILURE, EXIT_TROUBLE};
use std::ffi::OsString;

/// The most a hook reads from standard input; a larger event is skipped
/// (with one line on stderr).
pub use memory_rules::base::limits::MAX_HOOK_INPUT_BYTES;

/// Tells the library the process exits right after its one command (the
/// `wave-rules` binary; never the addon): large structures a hook built are
/// then left to the exit rather than freed one by one.
pub use hook::cache::exits_after_command;

/// Runs the command line `args` (the first item is the program name).
pub fn run<I, T>(args: I) -> Output
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_with_input(args, || Ok(Vec::new()))
}

/// [`run`] for commands that read standard input (`hook <event>`): `stdin`
/// is called once, only by them, and should return at most
/// [`MAX_HOOK_INPUT_BYTES`] + 1 bytes.
pub fn run_with_input<I, T>(args: I, stdin: impl FnOnce() -> std::io::Result<Vec<u8>>) -> Output
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let text = e.render().to_string();
            let code = e.exit_code();
            return if e.use_stderr() {
                Output {
                    stdout: String::new(),
                    stderr: text,
                    code,
                }
            } else {
                Output {
                    stdout: text,
                    stderr: String::new(),
                    code,
                }
            };
        }
    };
    if let Command::Setup(SetupCommand::Completions(a)) = &cli.command {
        return setup::completions(a);
    }
    if let Command::Hook(h) = &cli.command {
        if let HookAction::Watch(a) = &h.action {
            // Only where the process exits after it: never inside Node.
            if !hook::cache::exits_after() {
                return Output::default();
            }
            return hook::watch::run(&a.cache);
        }
    }
    if let Command::Telemetry(t) = &cli.command {
        if t.action.reads_stdin() {
            return telemetry::hook_event(&cli, t, stdin);
        }
    }
    let hook_input = match &cli.command {
        Command::Hook(h) if h.action.is_event() => Some(hook::Input::read(h.agent, stdin)),
        _ => None,
    };
    let fallback_workdir = hook_input.as_ref().and_then(hook::Input::project_dir);
    let env = match Env::new(&cli, fallback_workdir) {
        Ok(env) => env,
        // A hook never fails: it says why on stderr and exits 0.
        Err(out) if hook_input.is_some() => return hook::skipped(out),
        Err(out) => return out,
    };
    match &cli.command {
        Command::Validate(a) => validate::run(&env, a),
        Command::List => list::run(&env),
        Command::Setup(SetupCommand::Init(a)) => setup::init(&env, a),
        Command::Setup(SetupCommand::Memory(a)) => memory::run(&env, a),
        Command::Setup(SetupCommand::Completions(a)) => setup::completions(a),
        Command::Doctor => doctor::run(&env),
        Command::Match(a) => matching::run(&env, a),
        Command::Add(a) => edit::add(&env, a),
        Command::Remove(a) => edit::remove(&env, a),
        Command::Hook(h) => match (&h.action, hook_input) {
            (HookAction::Install(a), _) => hook_install(&env, h.agent, a),
            (HookAction::Uninstall(a), _) if h.agent == HookAgent::Claude => {
                hook::settings::uninstall(&env, a)
            }
            (HookAction::Uninstall(a), _) => hook::agent_install::uninstall(&env, h.agent, a),
            (event, Some(input)) => hook::run_event(&env, event, input),
            (_, None) => Output::default(),
        },
        Command::Packs(a) => packs::run(&env, a),
        Command::Eval(a) => evals::run(&env, a),
        Command::Telemetry(a) => telemetry::command(&env, a),
        Command::Export(a) => export::run(&env, a),
        Command::Insight(InsightCommand::Report(a)) => report::run(&env, a),
        Command::Insight(InsightCommand::Log(a)) => log::run(&env, a),
        Command::Import(a) => export::import(&env, a),
        Command::Lsp => lsp_server(&env),
        Command::Mcp(m) => match &m.action {
            None => mcp::serve(&env, m.max_bytes),
            Some(McpAction::Install(a)) => mcp::client_install::install(&env, a),
            Some(McpAction::Uninstall(a)) => mcp::client_install::uninstall(&env, a),
        },
    }
}

/// `hook install`: the agent's hooks, then the sources `--sources` chose
/// (into the project's `.wave/config.toml`: see `hook::settings::save_sources`).
fn hook_install(env: &Env, agent: HookAgent, args: &args::InstallArgs) -> Output {
    // The sources first: a config file that is not TOML stops the install
    // before any hook is written.
    let saved = match hook::settings::save_sources(env, args.scope) {
        Ok(line) => line,
        Err(fail) => return fail,
    };
    let mut out = if agent == HookAgent::Claude {
        hook::settings::install(env, args)
    } else {
        hook::agent_install::install(env, agent, args)
    };
    out.stdout.push_str(&saved);
    out
}

#[cfg(not(target_family = "wasm"))]
fn lsp_server(env: &Env) -> Output {
    lsp::serve(env)
}

/// The WebAssembly build has no threads for the server's stdio.
#[cfg(target_family = "wasm")]
fn lsp_server(_env: &Env) -> Output {
    Output::fail(
        EXIT_TROUBLE,
        "lsp is not available in the WebAssembly build; run the native wave-rules",
    )
}
