//! `run`: parses the command line and hands each subcommand to its
//! command, returning what to print and the exit code.

use super::{Cli, Command, InsightCommand, McpAction, SetupCommand};
use crate::base::args::HookAction;
use crate::base::env::{Env, Output};
use crate::commands::{
    doctor, edit, eval as evals, export, list, log, matching, memory, packs, setup, validate,
};
use crate::{hook, mcp, report};
use clap::Parser;
use std::ffi::OsString;

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
/// [`crate::MAX_HOOK_INPUT_BYTES`] + 1 bytes.
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
        return setup::completions(a, <Cli as clap::CommandFactory>::command());
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
    let hook_input = match &cli.command {
        Command::Hook(h) if h.action.is_event() => Some(hook::Input::read(h.agent, stdin)),
        _ => None,
    };
    let fallback_workdir = hook_input.as_ref().and_then(hook::Input::project_dir);
    let lsp = matches!(cli.command, Command::Lsp);
    let env = match Env::new(&cli.global, fallback_workdir, lsp) {
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
        Command::Setup(SetupCommand::Completions(a)) => {
            setup::completions(a, <Cli as clap::CommandFactory>::command())
        }
        Command::Doctor => doctor::run(&env),
        Command::Match(a) => matching::run(&env, a),
        Command::Add(a) => edit::add(&env, a),
        Command::Remove(a) => edit::remove(&env, a),
        Command::Hook(h) => match (&h.action, hook_input) {
            (HookAction::Install(a), _) => hook::install::install(&env, h.agent, a),
            (HookAction::Uninstall(a), _) => hook::install::uninstall(&env, h.agent, a),
            (event, Some(input)) => hook::run_event(&env, event, input),
            (_, None) => Output::default(),
        },
        Command::Packs(a) => packs::run(&env, a),
        Command::Eval(a) => evals::run(&env, a),
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

#[cfg(not(target_family = "wasm"))]
fn lsp_server(env: &Env) -> Output {
    crate::lsp::serve(env)
}

/// The WebAssembly build has no threads for the server's stdio.
#[cfg(target_family = "wasm")]
fn lsp_server(_env: &Env) -> Output {
    Output::fail(
        crate::base::env::EXIT_TROUBLE,
        "lsp is not available in the WebAssembly build; run the native wave-rules",
    )
}
