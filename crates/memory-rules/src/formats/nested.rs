//! The bounded project walk for files that may sit in any subdirectory:
//! `AGENTS.md` / `CLAUDE.md` and nested `.cursor/rules` directories.
//!
//! The walk (ripgrep's `ignore` crate) honours `.gitignore` (also outside a
//! git repository, and the parents' and `.git/info/exclude`) and `.ignore`
//! files, as agents read the nearest `AGENTS.md` wherever it is checked in:
//! a `build/` or `vendor/` directory that is not ignored is searched. It does
//! not follow symlinked directories, skips hidden directories (a nested
//! `.cursor/rules` is found through its `.cursor`) and [`SKIPPED_DIRS`],
//! goes at most [`MAX_NESTED_DEPTH`] levels down and visits at most [`MAX_NESTED_DIRS`]
//! directories; when a limit stops it, an `info` diagnostic says so and what
//! was found is kept (which directories were visited before the limit then
//! depends on the threads). It runs on up to [`MAX_WALK_THREADS`] threads and
//! sorts what it found, so the result is in path order whatever the threads.

use crate::diagnostic::{Code, Diagnostic, Severity};
use std::path::{Path, PathBuf};

use crate::limits::MAX_NESTED_DEPTH;
use crate::limits::MAX_NESTED_DIRS;
/// Directory names never searched (besides hidden ones), ignored or not:
/// installed dependencies.
pub const SKIPPED_DIRS: [&str; 3] = ["node_modules", "bower_components", "site-packages"];

/// A file found by the walk: its path relative to the project root
/// (`/`-separated) and as found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestedFile {
    pub rel: String,
    pub path: PathBuf,
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

/// What one walk of the project looks for.
enum Want<'a> {
    /// Files with these names, in any directory.
    Files(&'a [&'a str]),
    /// `.cursor/rules` directories below the root.
    CursorDirs,
}

pub use crate::limits::MAX_WALK_THREADS;

/// Walks the project once, in parallel, within the limits, and returns
/// what `want` asks for: `(relative path, path)` of files, or `(relative
/// subdirectory, rules directory)` of nested `.cursor/rules`, in path order
/// (sorted after the walk, so the order does not depend on the threads).
/// Names are compared on the directory entries themselves, before anything
/// else: no entry costs a lookup or an allocation unless its name matches.
fn walk(root: &Path, want: Want, diagnostics: &mut Vec<Diagnostic>) -> Vec<(String, PathBuf)> {
    use ignore::WalkState;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let threads = if cfg!(target_family = "wasm") {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_WALK_THREADS)
    };
    let out: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let dirs = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let want = &want;
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .follow_links(false)
        .max_depth(Some(MAX_NESTED_DEPTH))
        .hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .threads(threads)
        .filter_entry(|e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if !is_dir || e.depth() == 0 {
                return true;
            }
            let name = e.file_name().as_encoded_bytes();
            // Into `.cursor` only to see its `rules`; no other hidden tree.
            let in_cursor = e
                .path()
                .parent()
                .and_then(|p| p.file_name())
                .is_some_and(|n| n == ".cursor");
            !in_cursor
                && (name == b".cursor" || !name.starts_with(b"."))
                && !SKIPPED_DIRS.iter().any(|d| d.as_bytes() == name)
        });
    let visit = |entry: Result<ignore::DirEntry, ignore::Error>| {
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        let name = entry.file_name();
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if is_dir {
            if entry.depth() > 0 && name == ".cursor" {
                if let Want::CursorDirs = want {
                    let rules = entry.path().join("rules");
                    if entry.depth() > 1 && rules.is_dir() {
                        out.lock().unwrap_or_else(|e| e.into_inner()).push(rules);
                    }
                }
                return WalkState::Continue;
            }
            if dirs.fetch_add(1, Ordering::Relaxed) >= MAX_NESTED_DIRS {
                stopped.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
            return WalkState::Continue;
        }
        let Want::Files(names) = want else {
            return WalkState::Continue;
        };
        // By name first: most entries stop here.
        if !names.iter().any(|n| name == *n) {
            return WalkState::Continue;
        }
        let in_cursor = entry
            .path()
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == ".cursor");
        if !in_cursor && entry.path().is_file() {
            out.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(entry.into_path());
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
    if stopped.into_inner() {
        diagnostics.push(Diagnostic::new(
            Severity::Info,
            Code::TooDeep,
            root,
            format!("the search for nested rule files stopped after {MAX_NESTED_DIRS} directories; files further on are not read"),
        ));
    }
    let mut found = out.into_inner().unwrap_or_else(|e| e.into_inner());
    // Path order: component by component, as a walk in name order.
    found.sort();
    found
        .into_iter()
        .filter_map(|path| match want {
            Want::Files(_) => rel_of(&path, root).map(|rel| (rel, path)),
            Want::CursorDirs => {
                let sub = path.parent()?.parent()?;
                rel_of(sub, root)
                    .filter(|r| !r.is_empty())
                    .map(|rel| (rel, path))
            }
        })
        .collect()
}

/// `AGENTS.md` and `CLAUDE.md` (`names`) in the project root and its
/// subdirectories, in path order.
pub fn agents_files(
    root: &Path,
    names: &[&str],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<NestedFile> {
    let mut files: Vec<NestedFile> = walk(root, Want::Files(names), diagnostics)
        .into_iter()
        .map(|(rel, path)| NestedFile { rel, path })
        .collect();
    // Within a directory, in the order of `names`.
    let rank = |rel: &str| {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        (
            dir.to_string(),
            names.iter().position(|n| *n == name).unwrap_or(usize::MAX),
        )
    };
    files.sort_by_key(|f| rank(&f.rel));
    files
}

/// Nested `.cursor/rules` directories (not the project root's own): the
/// subdirectory they belong to (relative) and the rules directory.
pub fn cursor_dirs(root: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<(String, PathBuf)> {
    walk(root, Want::CursorDirs, diagnostics)
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
            ".hidden/AGENTS.md",
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
        let mut d = Vec::new();
        let rels: Vec<String> = agents_files(root, &["AGENTS.md", "CLAUDE.md"], &mut d)
            .into_iter()
            .map(|f| f.rel)
            .collect();
        assert_eq!(
            rels,
            [
                "AGENTS.md",
                "a/AGENTS.md",
                "a/b/CLAUDE.md",
                "build/AGENTS.md",
                "vendor/lib/AGENTS.md"
            ]
        );
        let dirs: Vec<String> = cursor_dirs(root, &mut d)
            .into_iter()
            .map(|(r, _)| r)
            .collect();
        // In path order, whatever the walk's threads did first.
        assert_eq!(dirs, ["a/b", "api", "web"]);
        assert!(d.is_empty());
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
