//! What every command is given and gives back: the resolved global options
//! ([`Env`]), what it prints and how it exits ([`Output`], the exit codes).

use crate::args::Cli;
use crate::display;
use std::path::PathBuf;

/// What a command prints and how it exits.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Output {
    pub(crate) fn fail(code: i32, message: impl AsRef<str>) -> Output {
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
    pub(crate) fn new(cli: &Cli, fallback_workdir: Option<PathBuf>) -> Result<Env, Output> {
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
