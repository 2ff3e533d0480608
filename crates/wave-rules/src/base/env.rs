//! What every command is given and gives back: the resolved global options
//! ([`Env`]), what it prints and how it exits ([`Output`], the exit codes).

use crate::base::args::{GlobalArgs, MemorySourceArg};
use crate::base::color;
use crate::base::display;
use clap::ValueEnum;
use memory_rules::memory::agent_memory::{AgentPlaces, MemorySources};
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

/// What chose the rule sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SourcesFrom {
    /// The defaults (`.claude/rules` and `.wave/rules`, the user's and the project's).
    Default,
    /// `--source` or `--sources` (the names `--sources` gave).
    CommandLine(Vec<String>),
    /// `sources = [...]` in the project's `.wave/config.toml`.
    Project(memory_rules::sources::ChosenSources),
}

impl SourcesFrom {
    /// Whether the sources were chosen (not the defaults).
    pub fn chosen(&self) -> bool {
        *self != SourcesFrom::Default
    }

    /// Where the sources came from, as `doctor` says it.
    pub fn describe(&self) -> String {
        match self {
            SourcesFrom::Default => {
                "the defaults (no --sources, no sources in .wave/config.toml)".into()
            }
            SourcesFrom::CommandLine(_) => "the command line (--source / --sources)".into(),
            SourcesFrom::Project(c) => {
                format!("sources = [{}] in {}", c.names.join(", "), c.place())
            }
        }
    }
}

/// The resolved global options.
pub(crate) struct Env {
    pub config: memory_rules::sources::Config,
    pub json: bool,
    /// `--home`, else the user's home (memory, hook state, user settings).
    pub home: Option<PathBuf>,
    /// What chose the rule sources: the defaults, the command line, or the
    /// project's `.wave/config.toml`.
    pub sources_from: SourcesFrom,
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

    /// The memories read: `given` (`--memory-sources`), else
    /// `memory_sources` in the project's `.wave/config.toml`, else ours
    /// only. `Err`: the config cannot be read or names an unknown source
    /// (naming the file and line).
    pub fn memory_sources(&self, given: &[MemorySourceArg]) -> Result<MemorySources, String> {
        if !given.is_empty() {
            let names: Vec<String> = given
                .iter()
                .filter_map(|s| s.to_possible_value().map(|v| v.get_name().to_string()))
                .collect();
            return MemorySources::named(&names);
        }
        match MemorySources::chosen(&self.config.workdir) {
            Ok(chosen) => Ok(chosen.unwrap_or_default()),
            Err(d) => Err(d.to_string()),
        }
    }

    /// Where the agents keep their memory for this project and home.
    pub fn agent_places(&self) -> AgentPlaces {
        AgentPlaces {
            home: self.home_dir(),
            project: self.config.workdir.clone(),
            codex_home: std::env::var_os("CODEX_HOME").map(PathBuf::from),
        }
    }

    /// Discovers and compiles the rules of these sources.
    pub fn load(&self) -> memory_rules::Loaded {
        memory_rules::load(&self.config)
    }

    /// `fallback_workdir` is used when `--workdir` is not given (a hook's
    /// project directory); the default is the current directory. `lsp`: for
    /// the language server, which serves the default sources when the
    /// project's config cannot be read.
    pub(crate) fn new(
        cli: &GlobalArgs,
        fallback_workdir: Option<PathBuf>,
        lsp: bool,
    ) -> Result<Env, Output> {
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
                sources_from: SourcesFrom::CommandLine(Vec::new()),
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
                sources_from: SourcesFrom::CommandLine(cli.sources.clone()),
                root,
                color,
            });
        }
        // The project's choice (`sources` in .wave/config.toml), else the defaults.
        let chosen = project_sources(lsp, &workdir)?;
        let (config, sources_from) = match chosen {
            Some(c) => (c.config(&workdir, &home), SourcesFrom::Project(c)),
            None => (
                memory_rules::sources::Config::with_home(workdir, &home),
                SourcesFrom::Default,
            ),
        };
        Ok(Env {
            config: config.with_allow_dirs(allow),
            json: cli.json,
            home: Some(home),
            sources_from,
            root,
            color,
        })
    }
}

/// The project's chosen sources. A config that cannot be read stops a
/// command (naming the file and line), but not the language server: the
/// editor shows the problem in that file, and the rest is served from the
/// default sources.
fn project_sources(
    lsp: bool,
    workdir: &Path,
) -> Result<Option<memory_rules::sources::ChosenSources>, Output> {
    match memory_rules::sources::chosen_sources(workdir) {
        Ok(chosen) => Ok(chosen),
        Err(d) if lsp => {
            eprintln!("{d}; serving the default sources");
            Ok(None)
        }
        Err(d) => Err(Output::fail(EXIT_TROUBLE, d.to_string())),
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
