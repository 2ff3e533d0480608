//! `run`: parses the command line and hands each subcommand to its
//! command, returning what to print and the exit code.

use super::{Cli, Command, HookCli, InsightCommand, McpAction, MemoryCli, SetupCommand};
use crate::base::args::HookAction;
use crate::base::env::{Env, Output};
use crate::commands::{
    doctor, edit, eval as evals, export, list, log, matching, memory, packs, setup, telemetry,
    validate,
};
use crate::{hook, mcp, report};
use clap::{CommandFactory, FromArgMatches, Parser};
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
    let cli = match parse(args.into_iter().map(Into::into).collect()) {
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
            if !crate::base::exit::exits_after() {
                return Output::default();
            }
            return hook::watch::run(&a.cache);
        }
    }
    if let Command::Telemetry(t) = &cli.command {
        if t.action.reads_stdin() {
            return telemetry::hook_event(&cli.global, t, stdin);
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
        Command::Telemetry(a) => telemetry::run(&env, a),
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

/// Parses `args`: a hook's or a memory command's line through its own
/// parser alone ([`HookCli`], [`MemoryCli`]: the same meaning, a fraction
/// of the work, as both run once per agent event or tool call); anything
/// else, and such a line that does not parse there (help, a mistake),
/// through the whole command line.
fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    match parse_alone(&args) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse_from(args),
    }
}

/// `wave-rules hook ...` or `wave-rules memory ...` parsed alone; `None`
/// for another command or on any error.
fn parse_alone(args: &[OsString]) -> Option<Cli> {
    let word = args.get(1)?.to_str()?;
    match word {
        "hook" => parse_with::<HookCli>(word, args).map(|h| Cli {
            command: Command::Hook(h.hook),
            global: h.global,
        }),
        "memory" => parse_with::<MemoryCli>(word, args).map(|m| Cli {
            command: Command::Setup(SetupCommand::Memory(m.memory)),
            global: m.global,
        }),
        _ => None,
    }
}

/// `args` from its third word on, parsed by `P` as `wave-rules <word>`.
/// What clap built is left to the exit where the process exits after the
/// command.
fn parse_with<P: CommandFactory + FromArgMatches>(word: &str, args: &[OsString]) -> Option<P> {
    let mut command = P::command();
    let name = OsString::from(format!("wave-rules {word}"));
    let line = std::iter::once(name).chain(args[2..].iter().cloned());
    let parsed = command
        .try_get_matches_from_mut(line)
        .ok()
        .and_then(|mut matches| {
            let parsed = P::from_arg_matches_mut(&mut matches).ok();
            crate::base::exit::release(matches);
            parsed
        });
    crate::base::exit::release(command);
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(words: &str) -> Vec<OsString> {
        words.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn hook_and_memory_lines_parse_alone_as_under_the_whole_command_line() {
        for words in [
            "wave-rules hook SessionStart",
            "wave-rules hook --agent codex PostToolUse --max-bytes 500 --edit-distance 3",
            "wave-rules hook PostToolUse --agent gemini --memory off --workdir /w",
            "wave-rules hook --json UserPromptSubmit --max-lines 40 --home /h",
            "wave-rules hook SubagentStart --source user=/x --source project:wave:any=.r",
            "wave-rules hook install --agent cursor --scope user",
            "wave-rules hook watch /s/rules/h-1.json",
            "wave-rules memory search parser --files src/a.ts b.py --limit 3 --json",
            "wave-rules memory write build use-pnpm --paths src/** --scope user",
            "wave-rules memory lint --workdir /w",
        ] {
            let alone = parse_alone(&line(words)).unwrap_or_else(|| panic!("{words}"));
            let whole = Cli::try_parse_from(line(words)).unwrap();
            assert_eq!(format!("{alone:?}"), format!("{whole:?}"), "{words}");
        }
    }

    #[test]
    fn help_mistakes_and_other_commands_go_to_the_whole_command_line() {
        for words in [
            "wave-rules hook --help",
            "wave-rules hook SessionStart --max-bytes many",
            "wave-rules hook",
            "wave-rules memory search",
            "wave-rules --json hook SessionStart",
            "wave-rules list",
        ] {
            assert!(parse_alone(&line(words)).is_none(), "{words}");
        }
        let help = run(line("wave-rules hook --help"));
        assert!(
            help.stdout.contains("Usage: wave-rules hook"),
            "{}",
            help.stdout
        );
    }
}
