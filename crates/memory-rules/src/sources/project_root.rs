//! The project root: where a command run from inside a project finds its
//! rules, its memory and its settings.
//!
//! [`project_root`] walks up from a directory to the nearest one holding a
//! `.wave`, `.claude` or `.git` entry. A `.git` counts only where git would
//! take it for a repository ([`is_git_root`]): a directory holding `HEAD`, or
//! a `gitdir:` file, as in a git worktree or submodule; an empty `.git`
//! folder, as sandboxes and tools leave in `/tmp`, does not make everything
//! below it one project. The home directory's `.wave` and `.claude` are the
//! user's own settings, not a project's, so they do not make the home a
//! project root (its `.git` does). With no marker up to the filesystem root
//! the start directory is the root. The walk is bounded by
//! [`MAX_ROOT_WALK`](crate::base::limits::MAX_ROOT_WALK) levels.

use crate::base::limits::MAX_ROOT_WALK;
use std::path::{Path, PathBuf};

/// The entries that mark a project root, in the order they are reported.
pub const ROOT_MARKERS: [&str; 3] = [".wave", ".claude", ".git"];

/// A project root and why it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectRoot {
    /// The root directory (absolute).
    pub dir: PathBuf,
    /// The marker found there (`.wave`, `.claude` or `.git`); `None` when no
    /// directory up the tree has one and `dir` is the start directory.
    pub marker: Option<&'static str>,
}

impl ProjectRoot {
    /// `/p (has .git)` or `/p (no .wave, .claude or .git above: this directory)`.
    pub fn describe(&self) -> String {
        match self.marker {
            Some(m) => format!("{} (has {m})", self.dir.display()),
            None => format!(
                "{} (no .wave, .claude or .git here or above)",
                self.dir.display()
            ),
        }
    }
}

/// The nearest directory at or above `start` holding a `.wave`, `.claude` or
/// `.git` (see the module). `start` is made absolute (not resolved through
/// symlinks, so the root is shown as the user reached it); `home` is the
/// user's home, whose `.wave` and `.claude` do not count.
pub fn project_root(start: &Path, home: Option<&Path>) -> std::io::Result<ProjectRoot> {
    let start = std::path::absolute(start)?;
    let same_as_home = |dir: &Path| {
        home.is_some_and(|h| {
            dir == h
                || matches!(
                    (std::fs::canonicalize(dir), std::fs::canonicalize(h)),
                    (Ok(a), Ok(b)) if a == b
                )
        })
    };
    for dir in start.ancestors().take(MAX_ROOT_WALK) {
        let is_home = same_as_home(dir);
        for marker in ROOT_MARKERS {
            if is_home && marker != ".git" {
                continue;
            }
            let found = match marker {
                ".git" => is_git_root(dir),
                _ => std::fs::symlink_metadata(dir.join(marker)).is_ok(),
            };
            if found {
                return Ok(ProjectRoot {
                    dir: dir.to_path_buf(),
                    marker: Some(marker),
                });
            }
        }
    }
    Ok(ProjectRoot {
        dir: start,
        marker: None,
    })
}

/// Whether `dir/.git` is a repository as git takes it: a directory holding a
/// `HEAD` file (git's first check; `git rev-parse` refuses a folder without
/// one), or a file starting `gitdir:` (a worktree's or a submodule's link).
/// Reads at most the link's first 7 bytes.
pub fn is_git_root(dir: &Path) -> bool {
    let git = dir.join(".git");
    match std::fs::metadata(&git) {
        Ok(m) if m.is_dir() => git.join("HEAD").is_file(),
        Ok(m) if m.is_file() => {
            let mut head = [0u8; 7];
            std::fs::File::open(&git)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                .is_ok_and(|()| &head == b"gitdir:")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_marker_wins_and_home_settings_do_not_count() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let repo = home.join("code/repo");
        let deep = repo.join("src/api");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        // What lies above the temp dir (a `.wave` or `.git` there) is not
        // the test's: a marker-free folder as deep as `deep` finds it.
        let probe = t.path().join("probe/a/b/c/d");
        std::fs::create_dir_all(&probe).unwrap();
        let above = project_root(&probe, None).unwrap();
        let nothing = match above.marker {
            None => (deep.as_path(), None),
            Some(_) => (above.dir.as_path(), above.marker),
        };
        // Nothing in the project: the home's .claude does not make it a root.
        let r = project_root(&deep, Some(&home)).unwrap();
        assert_eq!((r.dir.as_path(), r.marker), nothing);
        // A .git file (a worktree) marks the root.
        std::fs::write(repo.join(".git"), "gitdir: /elsewhere\n").unwrap();
        let r = project_root(&deep, Some(&home)).unwrap();
        assert_eq!((r.dir.as_path(), r.marker), (repo.as_path(), Some(".git")));
        // A nearer .wave wins over the repository's .git.
        std::fs::create_dir_all(repo.join("src/.wave")).unwrap();
        let r = project_root(&deep, Some(&home)).unwrap();
        assert_eq!(r.dir, repo.join("src"));
        assert_eq!(r.marker, Some(".wave"));
        std::fs::remove_dir_all(repo.join("src/.wave")).unwrap();
        // A .git folder is a repository only with its HEAD, as git has it.
        std::fs::remove_file(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let r = project_root(&deep, Some(&home)).unwrap();
        assert_eq!((r.dir.as_path(), r.marker), nothing);
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let r = project_root(&deep, Some(&home)).unwrap();
        assert_eq!((r.dir.as_path(), r.marker), (repo.as_path(), Some(".git")));
        // Without a home, the home's .claude counts like any other.
        let r = project_root(&home.join("code"), None).unwrap();
        assert_eq!(
            (r.dir.as_path(), r.marker),
            (home.as_path(), Some(".claude"))
        );
    }
}
