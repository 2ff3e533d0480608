//! The bounded project walk for files that may sit in any subdirectory:
//! `AGENTS.md` / `AGENTS.override.md`, `CLAUDE.md` / `CLAUDE.local.md`,
//! `GEMINI.md` (and the names Gemini CLI's `context.fileName` sets), and
//! nested `.cursor/rules` directories. One walk finds them all: a discovery
//! walks a project once, whichever of those sources it reads ([`Walks`]).
//!
//! The walk (ripgrep's `ignore` crate) honours `.gitignore` (also outside a
//! git repository, and the parents' and `.git/info/exclude`) and `.ignore`
//! files, as agents read the nearest `AGENTS.md` wherever it is checked in:
//! a `build/` or `vendor/` directory that is not ignored is searched. It does
//! not follow symlinked directories, skips [`SKIPPED_DIRS`] and the hidden
//! directories of [`SKIPPED_HIDDEN`] (version control, caches, and the tools'
//! own folders, which are sources of their own); other hidden directories
//! are searched (`.github/AGENTS.md` scopes `.github/`), and a nested
//! `.cursor/rules` is found through its `.cursor`. It goes at most
//! [`MAX_NESTED_DEPTH`] levels down and visits at most [`MAX_NESTED_DIRS`] directories;
//! when a limit stops it, an `info` diagnostic says so and what was found is
//! kept (which directories were visited before the limit then depends on the
//! threads). It runs on up to [`MAX_WALK_THREADS`] threads and sorts what it
//! found, so the result is in path order whatever the threads.

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::base::limits::{MAX_NESTED_DEPTH, MAX_NESTED_DIRS};
/// Directory names never searched, ignored or not: installed dependencies.
pub const SKIPPED_DIRS: [&str; 3] = ["node_modules", "bower_components", "site-packages"];
/// Hidden directories never searched: version control, tool caches and
/// environments, and the agents' own folders (each read as its own source).
/// Any other hidden directory is searched like a visible one.
pub const SKIPPED_HIDDEN: [&str; 34] = [
    ".git",
    ".hg",
    ".svn",
    ".jj",
    ".venv",
    ".tox",
    ".nox",
    ".cache",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".angular",
    ".turbo",
    ".nx",
    ".yarn",
    ".pnpm-store",
    ".npm",
    ".gradle",
    ".m2",
    ".idea",
    ".terraform",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".direnv",
    ".claude",
    ".wave",
    ".windsurf",
    ".devin",
    ".kiro",
    ".clinerules",
    ".cline",
    ".continue",
    ".gemini",
];

/// File names every walk collects (exactly, case-sensitive): the nested
/// sources' own names. Gemini CLI's `context.fileName` adds to them.
pub const NESTED_NAMES: [&str; 5] = [
    "AGENTS.md",
    "AGENTS.override.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "GEMINI.md",
];

/// Names that are one slip away from a nested source's name (lowercased):
/// a file so named is reported, with the name to give it.
const NEAR_NAMES: [(&str, &str); 6] = [
    ("agents.md", "AGENTS.md"),
    ("agent.md", "AGENTS.md"),
    ("agents.override.md", "AGENTS.override.md"),
    ("claude.md", "CLAUDE.md"),
    ("claude.local.md", "CLAUDE.local.md"),
    ("gemini.md", "GEMINI.md"),
];

/// A file found by the walk: its path relative to the project root
/// (`/`-separated) and as found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestedFile {
    pub rel: String,
    pub path: PathBuf,
}

/// Everything one walk of a project found, in path order.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    /// Files with one of the walk's names.
    pub files: Vec<NestedFile>,
    /// `(subdirectory, rules directory)` of each nested `.cursor/rules`.
    pub cursor_dirs: Vec<(String, PathBuf)>,
    /// Files whose name is a slip of a nested source's name, with that name.
    pub near: Vec<(NestedFile, &'static str)>,
    /// What the walk reported (a limit that stopped it).
    pub diagnostics: Vec<Diagnostic>,
}

impl Tree {
    /// The files named one of `names`, in path order; within one directory
    /// in the order of `names`.
    pub fn named(&self, names: &[&str]) -> Vec<NestedFile> {
        let mut out: Vec<NestedFile> = self
            .files
            .iter()
            .filter(|f| names.contains(&file_name(&f.rel)))
            .cloned()
            .collect();
        out.sort_by_key(|f| {
            let (dir, name) = f.rel.rsplit_once('/').unwrap_or(("", f.rel.as_str()));
            (
                dir.to_string(),
                names.iter().position(|n| *n == name).unwrap_or(usize::MAX),
            )
        });
        out
    }
}

fn file_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// The walks of one discovery, by project directory: a project is walked
/// once, whichever nested sources read it.
#[derive(Debug, Default)]
pub struct Walks {
    trees: HashMap<PathBuf, Tree>,
    /// How many walks ran (a test's witness that there was one).
    pub count: usize,
    /// Every rules root and every directory of a rules folder the
    /// discovery listed (not the project walks): what a saved discovery
    /// stats to tell that no file was added or removed since
    /// (crate::load::fresh).
    pub(crate) listed: Vec<PathBuf>,
}

impl Walks {
    /// The walk of `root`, if this discovery made one.
    pub fn get(&self, root: &Path) -> Option<&Tree> {
        self.trees.get(root)
    }

    /// The walk of `root`, run on first use. Its diagnostics go to
    /// `diagnostics` once, when it runs.
    pub fn tree(&mut self, root: &Path, diagnostics: &mut Vec<Diagnostic>) -> &Tree {
        if !self.trees.contains_key(root) {
            let mut names: Vec<String> = NESTED_NAMES.iter().map(|s| s.to_string()).collect();
            for n in crate::formats::gemini::context_file_names(root).0 {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            let tree = walk(root, &names);
            diagnostics.extend(tree.diagnostics.iter().cloned());
            self.count += 1;
            self.trees.insert(root.to_path_buf(), tree);
        }
        &self.trees[root]
    }
}

fn rel_of(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

pub use crate::base::limits::MAX_WALK_THREADS;

/// What one entry of the walk is to us.
enum WalkHit {
    File(PathBuf),
    CursorRules(PathBuf),
    Near(PathBuf, &'static str),
}

/// Walks the project once, in parallel, within the limits, collecting the
/// files named one of `names`, the nested `.cursor/rules` directories and
/// the near-miss names, in path order (sorted after the walk, so the order
/// does not depend on the threads). Names are compared on the directory
/// entries themselves, before anything else: no entry costs a lookup or an
/// allocation unless its name matches.
fn walk(root: &Path, names: &[String]) -> Tree {
    use ignore::WalkState;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let threads = crate::base::fs::worker_threads(MAX_WALK_THREADS);
    let out: Mutex<Vec<WalkHit>> = Mutex::new(Vec::new());
    let dirs = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let mut builder = crate::base::fs::project_walk(root, MAX_NESTED_DEPTH, MAX_WALK_THREADS);
    builder.filter_entry(is_searched);
    let push = |hit: WalkHit| out.lock().unwrap_or_else(|e| e.into_inner()).push(hit);
    let visit = |entry: Result<ignore::DirEntry, ignore::Error>| {
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if is_dir {
            if entry.depth() > 0 && entry.file_name() == ".cursor" {
                let rules = entry.path().join("rules");
                if entry.depth() > 1 && rules.is_dir() {
                    push(WalkHit::CursorRules(rules));
                }
                return WalkState::Continue;
            }
            if dirs.fetch_add(1, Ordering::Relaxed) >= MAX_NESTED_DIRS {
                stopped.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            return WalkState::Continue;
        }
        if let Some(hit) = file_hit(entry, names) {
            push(hit);
        }
        WalkState::Continue
    };
    if threads == 1 {
        for entry in builder.build() {
            if visit(entry) == WalkState::Quit {
                break;
            }
        }
    } else {
        let visit = &visit;
        builder.build_parallel().run(|| Box::new(visit));
    }
    let hits = out.into_inner().unwrap_or_else(|e| e.into_inner());
    Tree::from_hits(root, hits, stopped.into_inner())
}

/// Whether the walk goes into an entry: every file, and each directory
/// but the skipped ones and what is inside `.cursor` (entered only to see
/// its `rules`).
fn is_searched(e: &ignore::DirEntry) -> bool {
    let is_dir = e.file_type().is_some_and(|t| t.is_dir());
    if !is_dir || e.depth() == 0 {
        return true;
    }
    let name = e.file_name().as_encoded_bytes();
    // Into `.cursor` only to see its `rules`; nothing inside it.
    let in_cursor = e
        .path()
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == ".cursor");
    let skipped = SKIPPED_DIRS.iter().any(|d| d.as_bytes() == name)
        || name.starts_with(b".") && SKIPPED_HIDDEN.iter().any(|d| d.as_bytes() == name);
    !in_cursor && !skipped
}

/// A file entry named one of `names` or one slip from a nested source's
/// name (not inside `.cursor`, and a file through any link).
fn file_hit(entry: ignore::DirEntry, names: &[String]) -> Option<WalkHit> {
    // By name first: most entries stop here.
    let bytes = entry.file_name().as_encoded_bytes();
    let exact = names.iter().any(|n| n.as_bytes() == bytes);
    let near = if exact { None } else { near_name(bytes, names) };
    if !exact && near.is_none() {
        return None;
    }
    let in_cursor = entry
        .path()
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == ".cursor");
    if in_cursor || !entry.path().is_file() {
        return None;
    }
    Some(match near {
        Some(right) => WalkHit::Near(entry.into_path(), right),
        None => WalkHit::File(entry.into_path()),
    })
}

/// The nested source's name a file name (not one of `names`) is a slip
/// of.
fn near_name(bytes: &[u8], names: &[String]) -> Option<&'static str> {
    if bytes.len() > 20 {
        return None;
    }
    let lower = String::from_utf8_lossy(bytes).to_lowercase();
    NEAR_NAMES
        .iter()
        .find(|(slip, right)| {
            lower == *slip && !names.iter().any(|n| n == *right && n.as_bytes() == bytes)
        })
        .map(|(_, right)| *right)
}

impl Tree {
    /// The tree of the walk's hits, in path order, with a note when the
    /// directory limit stopped it.
    fn from_hits(root: &Path, mut hits: Vec<WalkHit>, stopped: bool) -> Tree {
        let mut tree = Tree::default();
        if stopped {
            tree.diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::TooDeep,
                root,
                format!("the search for nested rule files stopped after {MAX_NESTED_DIRS} directories; files further on are not read"),
            ));
        }
        // Path order: component by component, as a walk in name order.
        hits.sort_by(|a, b| a.path().cmp(b.path()));
        for hit in hits {
            match hit {
                WalkHit::File(path) => {
                    if let Some(rel) = rel_of(&path, root) {
                        tree.files.push(NestedFile { rel, path });
                    }
                }
                WalkHit::Near(path, right) => {
                    if let Some(rel) = rel_of(&path, root) {
                        tree.near.push((NestedFile { rel, path }, right));
                    }
                }
                WalkHit::CursorRules(path) => {
                    let sub = path.parent().and_then(|p| p.parent());
                    if let Some(rel) = sub.and_then(|s| rel_of(s, root)).filter(|r| !r.is_empty()) {
                        tree.cursor_dirs.push((rel, path));
                    }
                }
            }
        }
        tree
    }
}

impl WalkHit {
    fn path(&self) -> &Path {
        match self {
            WalkHit::File(p) | WalkHit::CursorRules(p) | WalkHit::Near(p, _) => p,
        }
    }
}

/// `names` (`AGENTS.md`, `CLAUDE.md`, ...) in the project root and its
/// subdirectories, in path order; one walk of its own (a discovery shares
/// one through [`Walks`]).
pub fn agents_files(
    root: &Path,
    names: &[&str],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<NestedFile> {
    let owned: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let tree = walk(root, &owned);
    diagnostics.extend(tree.diagnostics.iter().cloned());
    tree.named(names)
}

/// The subdirectory a rule file is scoped to, from its path relative to
/// the project root: `packages/web` for `packages/web/AGENTS.md` and for
/// `packages/web/.cursor/rules/x.mdc`; `None` at the root.
pub fn directory_of(rel: &str) -> Option<&str> {
    if let Some(i) = rel.find("/.cursor/rules/") {
        return Some(&rel[..i]);
    }
    if rel.starts_with(".cursor/rules/") {
        return None;
    }
    rel.rsplit_once('/')
        .map(|(dir, _)| dir)
        .filter(|d| !d.is_empty())
}

/// The subdirectory a Cursor rule is scoped to, from its id without the
/// source name: only a `.cursor/rules` directory inside a project
/// subdirectory scopes its rules (`web/.cursor/rules/x.mdc` -> `web`).
/// Subfolders of a `.cursor/rules` directory are plain organisation, as
/// Cursor reads them: `team/backend/x.mdc` (found under the root's
/// `.cursor/rules`) is scoped to nothing.
pub fn cursor_directory_of(rel: &str) -> Option<&str> {
    rel.find("/.cursor/rules/")
        .map(|i| &rel[..i])
        .filter(|d| !d.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories() {
        assert_eq!(directory_of("AGENTS.md"), None);
        assert_eq!(directory_of("packages/web/AGENTS.md"), Some("packages/web"));
        assert_eq!(
            directory_of("packages/web/.cursor/rules/a/x.mdc"),
            Some("packages/web")
        );
        assert_eq!(cursor_directory_of("team/backend/x.mdc"), None);
        assert_eq!(cursor_directory_of("x.mdc"), None);
        assert_eq!(
            cursor_directory_of("packages/web/.cursor/rules/team/x.mdc"),
            Some("packages/web")
        );
    }

    #[test]
    fn walk_finds_nested_files_and_honours_gitignore() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for p in [
            "AGENTS.md",
            "a/AGENTS.md",
            "a/b/CLAUDE.md",
            "build/AGENTS.md",
            "vendor/lib/AGENTS.md",
            "out/AGENTS.md",
            "gen/deep/AGENTS.md",
            "node_modules/x/AGENTS.md",
            ".git/AGENTS.md",
            ".venv/AGENTS.md",
            ".claude/AGENTS.md",
            ".github/AGENTS.md",
            "docs/agents.md",
        ] {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        // Ignored by .gitignore (no git repository needed): not searched.
        std::fs::write(root.join(".gitignore"), "/out/\ngen\n").unwrap();
        std::fs::create_dir_all(root.join("web/.cursor/rules")).unwrap();
        std::fs::create_dir_all(root.join("api/.cursor/rules")).unwrap();
        std::fs::create_dir_all(root.join("a/b/.cursor/rules")).unwrap();
        std::fs::create_dir_all(root.join("out/.cursor/rules")).unwrap();
        std::fs::create_dir_all(root.join(".cursor/rules")).unwrap();
        let mut walks = Walks::default();
        let mut d = Vec::new();
        let tree = walks.tree(root, &mut d).clone();
        let rels: Vec<String> = tree
            .named(&["AGENTS.md", "CLAUDE.md"])
            .into_iter()
            .map(|f| f.rel)
            .collect();
        assert_eq!(
            rels,
            [
                "AGENTS.md",
                ".github/AGENTS.md",
                "a/AGENTS.md",
                "a/b/CLAUDE.md",
                "build/AGENTS.md",
                "vendor/lib/AGENTS.md"
            ]
        );
        let dirs: Vec<&str> = tree.cursor_dirs.iter().map(|(r, _)| r.as_str()).collect();
        // In path order, whatever the walk's threads did first.
        assert_eq!(dirs, ["a/b", "api", "web"]);
        let near: Vec<(&str, &str)> = tree
            .near
            .iter()
            .map(|(f, n)| (f.rel.as_str(), *n))
            .collect();
        assert_eq!(near, [("docs/agents.md", "AGENTS.md")]);
        assert!(d.is_empty());
        // A second source on the same project: the same walk.
        walks.tree(root, &mut d);
        assert_eq!(walks.count, 1);
    }

    #[test]
    fn a_parallel_walk_gives_the_same_order_every_time() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let mut expected = Vec::new();
        for i in 0..60 {
            for rel in [
                format!("p{i}/AGENTS.md"),
                format!("p{i}-x/AGENTS.md"),
                format!("p{i}/sub/deeper/AGENTS.md"),
            ] {
                let p = root.join(&rel);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, "x").unwrap();
                expected.push(rel);
            }
        }
        expected.sort_by(|a, b| directory_of(a).cmp(&directory_of(b)));
        for _ in 0..5 {
            let mut d = Vec::new();
            let rels: Vec<String> = agents_files(root, &["AGENTS.md"], &mut d)
                .into_iter()
                .map(|f| f.rel)
                .collect();
            assert_eq!(rels, expected);
        }
    }
}
