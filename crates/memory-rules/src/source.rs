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
//! A new format is one more [`Format`] variant: its file test
//! ([`Format::is_rule_file`]) and its parser (the match in
//! `crate::read_and_parse`).

use crate::discover::{self, Root};
use crate::rule::Scope;
use std::fmt;
use std::path::{Path, PathBuf};

/// How a source's files are found and read: the tool whose meaning a file
/// is read with. Each format's parser is a module of [`crate::formats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// Markdown with YAML frontmatter (`paths`, `topics`, `priority`,
    /// `description`, `remind`): `.wave/rules`.
    Wave,
    /// `.claude/rules/**/*.md`: Claude Code's `paths` rules, the same model
    /// as Wave (and the same id space).
    Claude,
    /// `.cursor/rules/**/*.mdc` (and nested `.cursor/rules` directories), and
    /// the legacy `.cursorrules` file (always applied).
    Cursor,
    /// `.github/copilot-instructions.md`, `.github/instructions/**/*.instructions.md`.
    Copilot,
    /// `.windsurf/rules/*.md`, and the legacy `.windsurfrules` file (always on).
    Windsurf,
    /// `.kiro/steering/*.md`.
    Kiro,
    /// `.clinerules/` (`.md`, `.txt`) or a `.clinerules` file.
    Cline,
    /// `.continue/rules/*.md`.
    Continue,
    /// `AGENTS.md` / `CLAUDE.md` in the project root and subdirectories.
    AgentsMd,
    /// `.claude/rules.yaml`: keyword rules.
    RulesYaml,
}

impl Format {
    /// Every format, in the order named sources are read.
    pub const ALL: &'static [Format] = &[
        Format::AgentsMd,
        Format::Cursor,
        Format::Copilot,
        Format::Windsurf,
        Format::Kiro,
        Format::Cline,
        Format::Continue,
        Format::RulesYaml,
        Format::Claude,
        Format::Wave,
    ];

    /// The name used by the CLI and the binding (`--sources`, `sources`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Wave => "wave",
            Format::Claude => "claude",
            Format::Cursor => "cursor",
            Format::Copilot => "copilot",
            Format::Windsurf => "windsurf",
            Format::Kiro => "kiro",
            Format::Cline => "cline",
            Format::Continue => "continue",
            Format::AgentsMd => "agents-md",
            Format::RulesYaml => "rules-yaml",
        }
    }

    /// The format named `name`.
    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.as_str() == name.trim())
    }

    /// The depth a source of this format gets when none is given: one level
    /// for `.wave/rules`, none for the tools that read one flat directory,
    /// any for the others.
    pub fn default_depth(self) -> Option<usize> {
        match self {
            Format::Wave => Some(1),
            Format::Windsurf | Format::RulesYaml => Some(0),
            _ => None,
        }
    }

    /// Whether a file found under a source of this format is a rule file.
    pub fn is_rule_file(self, path: &Path) -> bool {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let ext = |e: &str| path.extension().is_some_and(|x| x == e);
        match self {
            Format::Wave | Format::Claude | Format::Kiro | Format::Continue => ext("md"),
            Format::Cursor => ext("mdc") || name == ".cursorrules",
            Format::Windsurf => ext("md") || name == ".windsurfrules",
            Format::Copilot => {
                name.ends_with(".instructions.md")
                    || name == crate::formats::copilot::REPOSITORY_FILE
            }
            Format::Cline => ext("md") || ext("txt") || name == ".clinerules",
            Format::AgentsMd => crate::formats::agents_md::FILE_NAMES.contains(&name.as_ref()),
            Format::RulesYaml => name == "rules.yaml" || name == "rules.yml",
        }
    }

    /// The format a rule file's path suggests, for `validate FILE` outside
    /// every configured source.
    pub fn guess(path: &Path) -> Format {
        let p = path.to_string_lossy().replace('\\', "/");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.contains(".cursor/rules/") || name.ends_with(".mdc") || name == ".cursorrules" {
            Format::Cursor
        } else if name.ends_with(".instructions.md")
            || name == crate::formats::copilot::REPOSITORY_FILE
        {
            Format::Copilot
        } else if p.contains(".windsurf/rules/") || name == ".windsurfrules" {
            Format::Windsurf
        } else if p.contains(".kiro/steering/") {
            Format::Kiro
        } else if p.contains(".clinerules") {
            Format::Cline
        } else if p.contains(".continue/rules/") {
            Format::Continue
        } else if Format::AgentsMd.is_rule_file(path) {
            Format::AgentsMd
        } else if Format::RulesYaml.is_rule_file(path) {
            Format::RulesYaml
        } else if p.contains(".claude/rules/") {
            Format::Claude
        } else {
            Format::Wave
        }
    }

    /// The default sources of this format: `(path relative to the base,
    /// scope)`, user ones first. `.` for [`Format::AgentsMd`] is the
    /// project itself (searched for `AGENTS.md` / `CLAUDE.md` at any
    /// depth); a Cursor source on the project itself finds nested
    /// `.cursor/rules` directories.
    pub fn default_locations(self) -> &'static [(&'static str, Scope)] {
        match self {
            Format::Wave => &[
                (".wave/rules", Scope::User),
                (".wave/rules", Scope::Project),
            ],
            Format::Claude => &[
                (".claude/rules", Scope::User),
                (".claude/rules", Scope::Project),
            ],
            Format::Cursor => &[
                (".cursorrules", Scope::Project),
                (".", Scope::Project),
                (".cursor/rules", Scope::Project),
            ],
            Format::Copilot => &[
                (".github/copilot-instructions.md", Scope::Project),
                (".github/instructions", Scope::Project),
            ],
            Format::Windsurf => &[
                (".windsurfrules", Scope::Project),
                (".windsurf/rules", Scope::Project),
            ],
            Format::Kiro => &[
                (".kiro/steering", Scope::User),
                (".kiro/steering", Scope::Project),
            ],
            Format::Cline => &[(".clinerules", Scope::Project)],
            Format::Continue => &[(".continue/rules", Scope::Project)],
            Format::AgentsMd => &[(".", Scope::Project)],
            Format::RulesYaml => &[
                (".claude/rules.yaml", Scope::User),
                (".claude/rules.yaml", Scope::Project),
            ],
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The sources read when the caller names none: what the agent SDK reads.
pub const DEFAULT_SOURCE_NAMES: [&str; 2] = ["claude", "wave"];

/// Parses source names (`cursor`, `agents-md`, ...; `all` for every format)
/// into formats, in [`Format::ALL`] order without repeats.
pub fn formats_named<S: AsRef<str>>(names: &[S]) -> Result<Vec<Format>, String> {
    let mut wanted = Vec::new();
    for name in names {
        let name = name.as_ref().trim();
        if name.is_empty() {
            continue;
        }
        if name == "all" {
            wanted.extend_from_slice(Format::ALL);
            continue;
        }
        match Format::parse(name) {
            Some(f) => wanted.push(f),
            None => {
                let known: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
                let hint = crate::suggest::closest(name, known.iter().copied().chain(["all"]))
                    .map(|c| format!(" (did you mean '{c}'?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "unknown source '{name}'{hint}; the sources are: {}, or all",
                    known.join(", ")
                ));
            }
        }
    }
    if wanted.is_empty() {
        return Err("no source named; give one or more of the source names, or all".to_string());
    }
    Ok(Format::ALL
        .iter()
        .copied()
        .filter(|f| wanted.contains(f))
        .collect())
}

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
        }
    }

    /// A root for discovering this source alone.
    pub fn root(&self, workdir: &Path) -> Root {
        Root {
            dir: self.dir.clone(),
            scope: self.scope,
            format: self.format,
            depth: self.depth,
            source: 0,
            boundary: (self.scope == Scope::Project).then(|| workdir.to_path_buf()),
            allow: Vec::new(),
        }
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
}

impl Config {
    pub fn new(workdir: impl Into<PathBuf>, sources: Vec<Source>) -> Self {
        Config {
            workdir: workdir.into(),
            sources,
            allow_dirs: Vec::new(),
        }
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
        Config {
            workdir,
            sources,
            allow_dirs: Vec::new(),
        }
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
        Config {
            workdir,
            sources,
            allow_dirs: Vec::new(),
        }
    }

    /// Where new rules of `scope` go: the last (winning) Wave-format source
    /// of that scope (`.wave/rules` with the default list).
    pub fn write_source(&self, scope: Scope) -> Option<&Source> {
        self.sources
            .iter()
            .rev()
            .find(|s| s.scope == scope && s.format == Format::Wave)
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

    /// The sources as discovery walks them, in order. A source whose
    /// directory resolves to the same place, in the same format, as a later
    /// one is left out (home and workdir may be the same directory): the
    /// later one would replace all its rules anyway.
    pub fn roots(&self) -> Vec<Root> {
        let real: Vec<Option<PathBuf>> = self
            .sources
            .iter()
            .map(|s| discover::real_root(&s.dir))
            .collect();
        let mut roots = Vec::with_capacity(self.sources.len());
        for (i, s) in self.sources.iter().enumerate() {
            let shadowed = real[i].is_some()
                && self.sources[i + 1..]
                    .iter()
                    .zip(&real[i + 1..])
                    .any(|(later, r)| later.format == s.format && *r == real[i]);
            if shadowed {
                continue;
            }
            roots.push(Root {
                source: i,
                allow: self.allow_dirs.clone(),
                ..s.root(&self.workdir)
            });
        }
        roots
    }
}
