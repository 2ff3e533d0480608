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

/// How a source's files are found and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Markdown with YAML frontmatter (`paths`, `topics`, `priority`,
    /// `description`, `remind`): `.wave/rules`, and `.claude/rules`, which
    /// holds the same model (Claude Code's `paths` rules).
    Wave,
}

impl Format {
    /// Every format, for parsers of names.
    pub const ALL: &'static [Format] = &[Format::Wave];

    /// The name used by the CLI and the binding: `wave`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Wave => "wave",
        }
    }

    /// The format named `name`.
    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.as_str() == name)
    }

    /// The depth a source of this format gets when none is given: one level
    /// for `.wave/rules`.
    pub fn default_depth(self) -> Option<usize> {
        match self {
            Format::Wave => Some(1),
        }
    }

    /// Whether a file found under a source of this format is a rule file.
    pub fn is_rule_file(self, path: &Path) -> bool {
        match self {
            Format::Wave => path.extension().is_some_and(|e| e == "md"),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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
    pub fn new(dir: impl Into<PathBuf>, scope: Scope, format: Format, depth: Option<usize>) -> Self {
        Source { dir: dir.into(), scope, format, depth }
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
        }
    }

    /// `<base>/.wave/rules`: Wave format, one level of subdirectories.
    pub fn wave(base: &Path, scope: Scope) -> Self {
        Source::new(base.join(".wave").join("rules"), scope, Format::Wave, Some(1))
    }

    /// `<base>/.claude/rules`: the same Markdown model, at any depth.
    pub fn claude(base: &Path, scope: Scope) -> Self {
        Source::new(base.join(".claude").join("rules"), scope, Format::Wave, None)
    }
}

/// What a discovery needs: the workdir (context paths are relative to it,
/// and project links that leave it are reported) and the ordered sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub workdir: PathBuf,
    /// Later sources override earlier ones by id.
    pub sources: Vec<Source>,
}

impl Config {
    pub fn new(workdir: impl Into<PathBuf>, sources: Vec<Source>) -> Self {
        Config { workdir: workdir.into(), sources }
    }

    /// The default sources for this workdir and home.
    pub fn with_home(workdir: impl Into<PathBuf>, home: impl AsRef<Path>) -> Self {
        let workdir = workdir.into();
        let sources = Config::default_sources(&workdir, home.as_ref());
        Config { workdir, sources }
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

    /// Where new rules of `scope` go: the last (winning) Wave-format source
    /// of that scope (`.wave/rules` with the default list).
    pub fn write_source(&self, scope: Scope) -> Option<&Source> {
        self.sources.iter().rev().find(|s| s.scope == scope && s.format == Format::Wave)
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
        let real: Vec<Option<PathBuf>> = self.sources.iter().map(|s| discover::real_root(&s.dir)).collect();
        let mut roots = Vec::with_capacity(self.sources.len());
        for (i, s) in self.sources.iter().enumerate() {
            let shadowed = real[i].is_some()
                && self.sources[i + 1..].iter().zip(&real[i + 1..]).any(|(later, r)| later.format == s.format && *r == real[i]);
            if shadowed {
                continue;
            }
            roots.push(Root { source: i, ..s.root(&self.workdir) });
        }
        roots
    }
}
