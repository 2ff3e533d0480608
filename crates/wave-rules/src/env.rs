//! What every command is given and gives back: the resolved global options
//! ([`Env`]), what it prints and how it exits ([`Output`], the exit codes).

use crate::args::Cli;
use crate::color;
use crate::display;
use std::path::{Path, PathBuf};

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
    pub config: memory_rules::sources::Config,
    pub json: bool,
    /// `--home`, else the user's home (memory, hook state, user settings).
    pub home: Option<PathBuf>,
    /// `--source` or `--sources` chose the rule sources.
    pub explicit_sources: bool,
    /// How the workdir was chosen: the project root found from the current
    /// directory, or `None` when given (`--workdir`, a hook's project).
    pub root: Option<memory_rules::sources::ProjectRoot>,
    /// Whether to write ANSI colour.
    pub color: bool,
}

impl Env {
    /// The home for memory, hook state and user settings (`.` when there is
    /// none: only with `--source` and no home at all).
    pub fn home_dir(&self) -> PathBuf {
        self.home.clone().unwrap_or_else(|| PathBuf::from("."))
    }

    /// `project root: DIR (has .git)` when the root was found by walking
    /// up, `workdir: DIR` when it was given.
    pub fn root_line(&self) -> String {
        match &self.root {
            Some(r) => format!("project root: {}", r.describe()),
            None => format!("workdir: {}", self.config.workdir.display()),
        }
    }

    /// Discovers and compiles the rules of these sources.
    pub fn load(&self) -> memory_rules::Loaded {
        memory_rules::load(&self.config)
    }

    /// `fallback_workdir` is used when `--workdir` is not given (a hook's
    /// project directory); the default is the current directory.
    pub(crate) fn new(cli: &Cli, fallback_workdir: Option<PathBuf>) -> Result<Env, Output> {
        let home_dir = cli
            .home
            .as_ref()
            .map(|h| std::path::absolute(h).unwrap_or_else(|_| h.clone()))
            .or_else(user_home);
        let given = cli.workdir.clone().or(fallback_workdir);
        let root = match &given {
            Some(_) => None,
            None => Some(
                memory_rules::sources::project_root(Path::new("."), home_dir.as_deref()).map_err(
                    |e| {
                        Output::fail(
                            EXIT_TROUBLE,
                            format!("cannot read the current directory: {e}; pass --workdir DIR"),
                        )
                    },
                )?,
            ),
        };
        let workdir = match (&given, &root) {
            (Some(w), _) => w.clone(),
            (None, Some(r)) => r.dir.clone(),
            (None, None) => PathBuf::from("."),
        };
        let color = color::enabled(cli.color);
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
        if !cli.source.is_empty() {
            let sources = cli.source.iter().map(|s| s.resolve(&workdir)).collect();
            return Ok(Env {
                // Explicit sources, and still the project's packs and the
                // policy (which no flag turns off).
                config: memory_rules::sources::Config::new(workdir, sources)
                    .with_layers(true, memory_rules::sources::packs::default_policy_dir()),
                json: cli.json,
                home: home_dir,
                explicit_sources: true,
                root,
                color,
            });
        }
        let home = match &cli.home {
            Some(h) => std::path::absolute(h).unwrap_or_else(|_| h.clone()),
            None => user_home().ok_or_else(|| {
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
                config: memory_rules::sources::Config::named(workdir, &home, &formats)
                    .with_allow_dirs(allow),
                json: cli.json,
                home: Some(home),
                explicit_sources: true,
                root,
                color,
            });
        }
        Ok(Env {
            config: memory_rules::sources::Config::with_home(workdir, &home).with_allow_dirs(allow),
            json: cli.json,
            home: Some(home),
            explicit_sources: false,
            root,
            color,
        })
    }
}

/// The user's home: the platform's answer, else `$HOME` (the WebAssembly
/// build has no `home_dir`, but Node hands it the environment).
pub fn user_home() -> Option<PathBuf> {
    std::env::home_dir().or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    })
}
