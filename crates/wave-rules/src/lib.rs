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
mod display;
mod edit;
mod export;
mod hook;
mod list;
mod matching;
pub mod mcp;
pub(crate) mod validate;

use args::{Cli, Command, HookAction, McpAction};
use clap::Parser;
use std::ffi::OsString;
use std::path::PathBuf;

/// What a command prints and how it exits.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Output {
    fn fail(code: i32, message: impl AsRef<str>) -> Output {
        Output {
            stdout: String::new(),
            stderr: display::line(&format!("wave-rules: {}", message.as_ref())),
            code,
        }
    }
}

/// Exit code: the rules have errors, or the command was refused.
pub const EXIT_FAILURE: i32 = 1;
/// Exit code: usage or I/O trouble.
pub const EXIT_TROUBLE: i32 = 2;

/// The most a hook reads from standard input; a larger event is skipped
/// (with one line on stderr).
pub const MAX_HOOK_INPUT_BYTES: usize = hook::MAX_INPUT_BYTES;

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
    let hook_input = match &cli.command {
        Command::Hook(h) if h.action.is_event() => Some(hook::Input::read(stdin)),
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
        Command::Match(a) => matching::run(&env, a),
        Command::Add(a) => edit::add(&env, a),
        Command::Remove(a) => edit::remove(&env, a),
        Command::Hook(h) => match (&h.action, hook_input) {
            (HookAction::Install(a), _) => hook::settings::install(&env, a),
            (HookAction::Uninstall(a), _) => hook::settings::uninstall(&env, a),
            (event, Some(input)) => hook::run_event(&env, event, input),
            (_, None) => Output::default(),
        },
        Command::Export(a) => export::run(&env, a),
        Command::Import(a) => export::import(&env, a),
        Command::Mcp(m) => match &m.action {
            None => mcp::serve(&env, m.max_bytes),
            Some(McpAction::Install(a)) => mcp::install::install(&env, a),
            Some(McpAction::Uninstall(a)) => mcp::install::uninstall(&env, a),
        },
    }
}

/// The resolved global options.
pub(crate) struct Env {
    pub config: memory_rules::Config,
    pub json: bool,
    /// `--home`, else the user's home (memory, hook state, user settings).
    pub home: Option<PathBuf>,
    /// `--source` or `--sources` chose the rule sources.
    pub explicit_sources: bool,
}

impl Env {
    /// The home for memory, hook state and user settings (`.` when there is
    /// none: only with `--source` and no home at all).
    pub fn home_dir(&self) -> PathBuf {
        self.home.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// Discovers and compiles the rules of these sources.
    pub fn load(&self) -> memory_rules::Loaded {
        memory_rules::load(&self.config)
    }

    /// `fallback_workdir` is used when `--workdir` is not given (a hook's
    /// project directory); the default is the current directory.
    fn new(cli: &Cli, fallback_workdir: Option<PathBuf>) -> Result<Env, Output> {
        let workdir = cli
            .workdir
            .clone()
            .or(fallback_workdir)
            .unwrap_or_else(|| PathBuf::from("."));
        let workdir = std::path::absolute(&workdir).map_err(|e| {
            Output::fail(
                EXIT_TROUBLE,
                format!("cannot use --workdir {}: {e}", workdir.display()),
            )
        })?;
        if !workdir.is_dir() {
            return Err(Output::fail(
                EXIT_TROUBLE,
                format!("workdir {} is not a directory", workdir.display()),
            ));
        }
        let home_dir = cli
            .home
            .as_ref()
            .map(|h| std::path::absolute(h).unwrap_or_else(|_| h.clone()))
            .or_else(std::env::home_dir);
        if !cli.source.is_empty() {
            let sources = cli.source.iter().map(|s| s.resolve(&workdir)).collect();
            return Ok(Env {
                config: memory_rules::Config::new(workdir, sources),
                json: cli.json,
                home: home_dir,
                explicit_sources: true,
            });
        }
        let home = match &cli.home {
            Some(h) => std::path::absolute(h).unwrap_or_else(|_| h.clone()),
            None => std::env::home_dir().ok_or_else(|| {
                Output::fail(
                    EXIT_TROUBLE,
                    "cannot find the home directory; pass --home DIR",
                )
            })?,
        };
        let allow: Vec<PathBuf> = cli.allow_dirs.iter().map(|d| workdir.join(d)).collect();
        if !cli.sources.is_empty() {
            let formats = memory_rules::formats_named(&cli.sources)
                .map_err(|e| Output::fail(EXIT_TROUBLE, format!("--sources: {e}")))?;
            return Ok(Env {
                config: memory_rules::Config::named(workdir, &home, &formats)
                    .with_allow_dirs(allow),
                json: cli.json,
                home: Some(home),
                explicit_sources: true,
            });
        }
        Ok(Env {
            config: memory_rules::Config::with_home(workdir, &home).with_allow_dirs(allow),
            json: cli.json,
            home: Some(home),
            explicit_sources: false,
        })
    }
}
