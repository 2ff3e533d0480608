//! Rule sources: where rules are read from, in what format, how deep, and in
//! what order.
//!
//! A [`Config`] is the project workdir plus an ordered list of [`Source`]s.
//! Every source is a directory with a scope (`project` or `user`), a
//! [`Format`] (how its files are found and parsed) and a depth. Rule ids are
//! paths relative to their source's directory, and all sources share one id
//! space: a rule of a later source replaces a rule of an earlier one with the
//! same id (reported as `overridden`). The default list is the agent SDK's:
//! `~/.claude/rules`, `~/.wave/rules`, `<workdir>/.claude/rules`,
//! `<workdir>/.wave/rules`.
//!
//! The formats themselves (file names, file tests, default places) are in
//! [`crate::rules::rule_format`].

use crate::rules::origin::Layer;
use crate::rules::rule_format::Format;
use crate::rules::scope::Scope;
use crate::sources::discover::{self, Root};
use std::path::{Path, PathBuf};

/// One place rules are read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub dir: PathBuf,
    pub scope: Scope,
    pub format: Format,
    /// How many directory levels below `dir` are read: `Some(0)` the
    /// directory itself, `Some(1)` also its immediate subdirectories (the
    /// rule for `.wave/rules`; deeper directories are reported `too-deep`),
    /// `None` any depth (`.claude/rules`).
    pub depth: Option<usize>,
    /// The layer it belongs to: the user's or project's own (the default), a
    /// pack, or the policy (see [`crate::rules::origin`]).
    pub layer: Layer,
}

impl Source {
    pub fn new(
        dir: impl Into<PathBuf>,
        scope: Scope,
        format: Format,
        depth: Option<usize>,
    ) -> Self {
        Source {
            dir: dir.into(),
            scope,
            format,
            depth,
            layer: Layer::Own,
        }
    }

    /// The same source in another layer.
    pub fn in_layer(mut self, layer: Layer) -> Self {
        self.layer = layer;
        self
    }

    /// A root for discovering this source alone. A project source's rules
    /// must stay in the workdir, a pack's in the pack (through links); the
    /// user's and the policy's folders are theirs to arrange.
    pub fn root(&self, workdir: &Path) -> Root {
        let boundary = match &self.layer {
            Layer::Pack(p) | Layer::Policy(Some(p)) => Some(p.root.clone()),
            Layer::Policy(None) => None,
            Layer::Own => (self.scope == Scope::Project).then(|| workdir.to_path_buf()),
        };
        Root {
            dir: self.dir.clone(),
            scope: self.scope,
            format: self.format,
            depth: self.depth,
            source: 0,
            boundary,
            allow: Vec::new(),
            nested: self.layer == Layer::Own,
        }
    }

    /// The rule files of this source as discovery finds them (links
    /// followed, sorted), without the project boundary: a caller that acts
    /// on one (`remove`) checks where it resolves.
    pub fn files(&self, workdir: &Path) -> Vec<discover::RuleFile> {
        let root = Root {
            boundary: None,
            ..self.root(workdir)
        };
        discover::find(&root, &mut Vec::new())
    }

    /// `<base>/.wave/rules`: Wave format, one level of subdirectories.
    pub fn wave(base: &Path, scope: Scope) -> Self {
        Source::new(
            base.join(".wave").join("rules"),
            scope,
            Format::Wave,
            Some(1),
        )
    }

    /// `<base>/.claude/rules`: the same Markdown model, at any depth.
    pub fn claude(base: &Path, scope: Scope) -> Self {
        Source::new(
            base.join(".claude").join("rules"),
            scope,
            Format::Claude,
            None,
        )
    }
}

/// What a discovery needs: the workdir (context paths are relative to it,
/// and project links that leave it are reported) and the ordered sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub workdir: PathBuf,
    /// Later sources override earlier ones by id.
    pub sources: Vec<Source>,
    /// Directories outside the workdir that project rules may resolve into
    /// through symlinks (a shared team folder); any other project rule whose
    /// real path is outside the workdir is not loaded (see `discover`).
    pub allow_dirs: Vec<PathBuf>,
    /// Read the packs the project's `.wave/config.toml` names, before every
    /// other source (see [`crate::sources::packs`]). On in [`with_home`](Self::with_home)
    /// and [`named`](Self::named), off in [`new`](Self::new).
    pub project_packs: bool,
    /// The policy directory: its rules and packs come after every other
    /// source and are locked. [`with_home`](Self::with_home) and
    /// [`named`](Self::named) take [`crate::sources::packs::default_policy_dir`]
    /// (`WAVE_POLICY_DIR`, else the system's); [`new`](Self::new) none.
    pub policy: Option<PathBuf>,
}

impl Config {
    /// Exactly these sources: no packs, no policy (see
    /// [`with_layers`](Self::with_layers)).
    pub fn new(workdir: impl Into<PathBuf>, sources: Vec<Source>) -> Self {
        Config {
            workdir: workdir.into(),
            sources,
            allow_dirs: Vec::new(),
            project_packs: false,
            policy: None,
        }
    }

    /// Adds the organisation's layers: the project's packs and the policy
    /// directory (`None`: no policy).
    pub fn with_layers(mut self, project_packs: bool, policy: Option<PathBuf>) -> Self {
        self.project_packs = project_packs;
        self.policy = policy;
        self
    }

    /// Allows project rules to resolve into these directories.
    pub fn with_allow_dirs(mut self, dirs: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        self.allow_dirs.extend(dirs.into_iter().map(Into::into));
        self
    }

    /// The default sources for this workdir and home.
    pub fn with_home(workdir: impl Into<PathBuf>, home: impl AsRef<Path>) -> Self {
        let workdir = workdir.into();
        let sources = Config::default_sources(&workdir, home.as_ref());
        Config::new(workdir, sources).with_layers(true, default_policy_dir())
    }

    /// The agent SDK's four sources, in override order: `~/.claude/rules`
    /// (any depth), `~/.wave/rules` (depth 1), `<workdir>/.claude/rules`
    /// (any depth), `<workdir>/.wave/rules` (depth 1).
    pub fn default_sources(workdir: &Path, home: &Path) -> Vec<Source> {
        vec![
            Source::claude(home, Scope::User),
            Source::wave(home, Scope::User),
            Source::claude(workdir, Scope::Project),
            Source::wave(workdir, Scope::Project),
        ]
    }

    /// The default sources of the named formats, in override order: every
    /// user source, then every project source, each in [`Format::ALL`]
    /// order. `named(.., &[Format::Claude, Format::Wave])` is the agent
    /// SDK's four ([`default_sources`](Self::default_sources)).
    pub fn named(workdir: impl Into<PathBuf>, home: impl AsRef<Path>, formats: &[Format]) -> Self {
        let workdir = workdir.into();
        let mut sources = Vec::new();
        for scope in [Scope::User, Scope::Project] {
            for &format in Format::ALL.iter().filter(|f| formats.contains(f)) {
                for &(rel, s) in format.default_locations() {
                    if s != scope {
                        continue;
                    }
                    let base = match scope {
                        Scope::User => home.as_ref(),
                        Scope::Project => workdir.as_path(),
                    };
                    let dir = if rel == "." {
                        base.to_path_buf()
                    } else {
                        base.join(rel)
                    };
                    sources.push(Source::new(dir, scope, format, format.default_depth()));
                }
            }
        }
        Config::new(workdir, sources).with_layers(true, default_policy_dir())
    }

    /// Where new rules of `scope` go: the last (winning) Wave-format source
    /// of that scope (`.wave/rules` with the default list).
    pub fn write_source(&self, scope: Scope) -> Option<&Source> {
        self.sources
            .iter()
            .rev()
            .find(|s| s.scope == scope && s.format == Format::Wave && s.layer == Layer::Own)
    }

    /// The last source whose directory holds `path` (compared through
    /// symlinks when both exist), if any.
    pub fn source_of(&self, path: &Path) -> Option<&Source> {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.sources.iter().rev().find(|s| {
            let dir = discover::real_root(&s.dir).unwrap_or_else(|| s.dir.clone());
            real.starts_with(&dir) || path.starts_with(&s.dir)
        })
    }
}

/// The roots of these (layered) sources; a root's `source` is its index in
/// `sources`.
pub(crate) fn roots_of(sources: &[Source], config: &Config) -> Vec<Root> {
    {
        let real: Vec<Option<PathBuf>> = sources
            .iter()
            .map(|s| discover::real_root(&s.dir))
            .collect();
        let mut roots = Vec::with_capacity(sources.len());
        for (i, s) in sources.iter().enumerate() {
            let shadowed = real[i].is_some()
                && sources[i + 1..]
                    .iter()
                    .zip(&real[i + 1..])
                    .any(|(later, r)| later.format == s.format && *r == real[i]);
            // Antigravity's `.agent/rules` when `.agents/rules` is there.
            let replaced =
                s.layer == Layer::Own && s.format.fallback_for(&s.dir).is_some_and(|p| p.is_dir());
            if shadowed || replaced {
                continue;
            }
            let own = s.layer == Layer::Own;
            roots.push(Root {
                source: i,
                allow: if own {
                    config.allow_dirs.clone()
                } else {
                    Vec::new()
                },
                ..s.root(&config.workdir)
            });
        }
        roots
    }
}

/// The environment variable naming the policy directory.
pub const POLICY_ENV: &str = "WAVE_POLICY_DIR";

/// The policy directory: `WAVE_POLICY_DIR` when set (and not empty), else
/// the system's: `/etc/wave` (Linux and other Unix), `/Library/Application
/// Support/Wave` (macOS), `%ProgramData%\Wave` (Windows). The WebAssembly
/// build has only the variable.
pub fn default_policy_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(POLICY_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    system_policy_dir()
}

#[cfg(target_os = "macos")]
fn system_policy_dir() -> Option<PathBuf> {
    Some(PathBuf::from("/Library/Application Support/Wave"))
}

#[cfg(windows)]
fn system_policy_dir() -> Option<PathBuf> {
    let data = std::env::var_os("ProgramData")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(r"C:\ProgramData"));
    Some(data.join("Wave"))
}

#[cfg(all(unix, not(target_os = "macos")))]
fn system_policy_dir() -> Option<PathBuf> {
    Some(PathBuf::from("/etc/wave"))
}

/// WebAssembly (WASI) has no system policy directory: only the variable.
#[cfg(not(any(unix, windows)))]
fn system_policy_dir() -> Option<PathBuf> {
    None
}
