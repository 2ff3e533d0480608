//! The engine's options (`EngineOptions`, `RuleSource`) to the core's
//! `Config`, and the source names.

use memory_rules as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi(object)]
pub struct EngineOptions {
    /// The project root: context paths are relative to it.
    pub workdir: String,
    /// The user's home, for the default sources (`~/.claude/rules`,
    /// `~/.wave/rules`, `<workdir>/.claude/rules`, `<workdir>/.wave/rules`).
    /// Ignored when `sources` is given; one of the two is required.
    pub home_dir: Option<String>,
    /// The rule sources in override order (later wins by id). A string is a
    /// source name (`'cursor'`, `'agents-md'`, ..., `'all'`): that tool's own
    /// places under the workdir and `homeDir`; consecutive names are read
    /// user sources first, then project ones, as the defaults are.
    #[napi(ts_type = "Array<RuleSource | NonNullable<RuleSource['format']> | 'all'>")]
    pub sources: Option<Vec<Either<String, RuleSource>>>,
    /// Directories outside the workdir that project rules may resolve into
    /// through symlinks (a shared team folder); any other project rule whose
    /// real path is outside the workdir is not loaded (`symlink-outside`).
    pub allow_dirs: Option<Vec<String>>,
    /// Read the packs the project's `.wave/config.toml` names (default
    /// `true`). They come first: user and project rules replace theirs.
    pub packs: Option<bool>,
    /// The policy directory, whose rules and packs come last and are locked.
    /// Default: `WAVE_POLICY_DIR`, else the system's (`/etc/wave`,
    /// `/Library/Application Support/Wave`, `%ProgramData%\\Wave`).
    pub policy_dir: Option<String>,
    /// The agent whose model gets the rules (`'claude'`, `'codex'`,
    /// `'gemini'`, `'copilot'`, `'opencode'`, ...): the sources it loads by
    /// itself are left out, so each rule reaches the model once (the core's
    /// `self_load` table; docs/agents.md). Default: none left out.
    pub agent: Option<String>,
}

/// One place rules are read from.
#[napi(object)]
pub struct RuleSource {
    /// The directory (a relative one is taken from the workdir).
    pub dir: String,
    #[napi(ts_type = "'project' | 'user'")]
    pub scope: String,
    /// Default `'wave'` (Markdown with frontmatter); any source name reads
    /// the directory as that tool's format.
    // The one TypeScript copy of the core's `Format::ALL` (every other type
    // of a format name is `RuleSource['format']`); a Node test checks that
    // it equals `sourceNames()`.
    #[napi(
        ts_type = "'agents-md' | 'gemini' | 'cursor' | 'copilot' | 'windsurf' | 'antigravity' | 'kiro' | 'cline' | 'continue' | 'rules-yaml' | 'claude' | 'wave'"
    )]
    pub format: Option<String>,
    /// Directory levels read below `dir`: 1 = its immediate subdirectories;
    /// `'any'` = any depth. Default: the format's (1 for `wave`).
    #[napi(ts_type = "number | 'any'")]
    pub depth: Option<Either<u32, String>>,
}

pub(crate) fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

fn to_source(workdir: &std::path::Path, s: RuleSource) -> Result<core::sources::Source> {
    let scope = match s.scope.as_str() {
        "project" => core::Scope::Project,
        "user" => core::Scope::User,
        other => {
            return Err(invalid(format!(
                "source {}: scope must be 'project' or 'user', not '{other}'",
                s.dir
            )))
        }
    };
    let format = match s.format.as_deref() {
        None => core::Format::Wave,
        Some(f) => core::Format::parse(f)
            .ok_or_else(|| invalid(format!("source {}: unknown format '{f}'", s.dir)))?,
    };
    let depth = match s.depth {
        None => format.default_depth(),
        Some(Either::A(n)) => Some(n as usize),
        Some(Either::B(any)) if any == "any" => None,
        Some(Either::B(other)) => {
            return Err(invalid(format!(
                "source {}: depth must be a number or 'any', not '{other}'",
                s.dir
            )))
        }
    };
    Ok(core::sources::Source::new(
        workdir.join(&s.dir),
        scope,
        format,
        depth,
    ))
}

pub(crate) fn to_config(mut options: EngineOptions) -> Result<core::sources::Config> {
    let workdir = std::path::PathBuf::from(&options.workdir);
    let packs = options.packs.take().unwrap_or(true);
    let policy = match options.policy_dir.take() {
        Some(dir) => Some(std::path::PathBuf::from(dir)),
        None => core::sources::packs::default_policy_dir(),
    };
    let allow: Vec<std::path::PathBuf> = options
        .allow_dirs
        .take()
        .unwrap_or_default()
        .iter()
        .map(|d| workdir.join(d))
        .collect();
    let agent = match options.agent.take() {
        Some(name) => Some(
            core::sources::self_load::AgentModel::named(&name)
                .ok_or_else(|| invalid(format!("agent: unknown agent '{name}'")))?,
        ),
        None => None,
    };
    let config = to_sources(options, workdir)
        .map(|c| c.with_allow_dirs(allow).with_layers(packs, policy))?;
    Ok(match agent {
        Some(model) => model.leave_out(&config),
        None => config,
    })
}

/// The sources the project chose (`sources = [...]` in its
/// `.wave/config.toml`), `null` when it chose none; a config file that does
/// not parse, or names an unknown source, throws naming the file and line.
#[napi(catch_unwind)]
pub fn chosen_sources(workdir: String) -> Result<Option<Vec<String>>> {
    core::sources::chosen_sources(std::path::Path::new(&workdir))
        .map(|c| c.map(|c| c.names))
        .map_err(|d| invalid(d.to_string()))
}

fn to_sources(
    options: EngineOptions,
    workdir: std::path::PathBuf,
) -> Result<core::sources::Config> {
    if let Some(sources) = options.sources {
        let mut out = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let flush = |names: &mut Vec<String>, out: &mut Vec<core::sources::Source>| -> Result<()> {
            if names.is_empty() {
                return Ok(());
            }
            let formats =
                core::formats_named(names).map_err(|e| invalid(format!("sources: {e}")))?;
            let home = options
                .home_dir
                .as_deref()
                .ok_or_else(|| invalid("sources: a source name needs homeDir".to_string()))?;
            out.extend(core::sources::Config::named(&workdir, home, &formats).sources);
            names.clear();
            Ok(())
        };
        for s in sources {
            match s {
                Either::A(name) => names.push(name),
                Either::B(source) => {
                    flush(&mut names, &mut out)?;
                    out.push(to_source(&workdir, source)?);
                }
            }
        }
        flush(&mut names, &mut out)?;
        return Ok(core::sources::Config::new(workdir, out));
    }
    match options.home_dir {
        Some(home) => Ok(core::sources::Config::with_home(workdir, home)),
        None => Err(invalid(
            "RuleEngine: give homeDir (for the default sources) or sources".to_string(),
        )),
    }
}

/// The format (source) names: the core's `Format::ALL`, in order (a source
/// may also be `all`).
#[napi(
    catch_unwind,
    ts_return_type = "Array<NonNullable<RuleSource['format']>>"
)]
pub fn source_names() -> Vec<String> {
    core::Format::ALL
        .iter()
        .map(|f| f.as_str().to_string())
        .collect()
}

/// The agent SDK's four sources for this workdir and home, in override
/// order (the core's `Config::default_sources`).
#[napi(catch_unwind)]
pub fn default_sources(workdir: String, home_dir: String) -> Vec<RuleSource> {
    core::sources::Config::default_sources(
        std::path::Path::new(&workdir),
        std::path::Path::new(&home_dir),
    )
    .into_iter()
    .map(|s| RuleSource {
        dir: s.dir.to_string_lossy().into_owned(),
        scope: s.scope.as_str().to_string(),
        format: Some(s.format.as_str().to_string()),
        depth: Some(match s.depth {
            Some(n) => Either::A(n as u32),
            None => Either::B("any".to_string()),
        }),
    })
    .collect()
}
