//! The project root: where a command run from inside a project finds its
//! rules, its memory and its settings.
//!
//! [`project_root`] walks up from a directory to the nearest one holding a
//! project's `.wave`, `.claude` or `.git`. The same names also serve as
//! tools' *user data* folders (the home's, or one a tool's test suite
//! leaves in the temp folder), so each counts only where it is a
//! project's:
//!
//! - `.wave` ([`is_wave_project`]) when it holds something a project's
//!   `.wave` holds ([`WAVE_PROJECT_ENTRIES`]: ours and the Wave agent SDK's
//!   project settings, an allowlist) and none of what only a user's data
//!   folder holds ([`WAVE_USER_DATA`]: the SDK's sessions, plans, file
//!   history). An empty `.wave` is no project's: `wave-rules init` and the
//!   SDK write a `rules/` or a settings file into a project's, and tools
//!   create the folder before they write their data into it.
//! - `.claude` ([`is_claude_project`]) unless it holds what only Claude
//!   Code's user data folder holds ([`CLAUDE_USER_DATA`]: transcripts,
//!   todos, credentials).
//! - `.git` ([`is_git_root`]) where git would take it for a repository: a
//!   directory holding `HEAD`, or a `gitdir:` file, as in a git worktree or
//!   submodule; an empty `.git` folder, as sandboxes and tools leave in
//!   `/tmp`, does not make everything below it one project.
//!
//! The home directory's `.wave` and `.claude` are the user's own settings,
//! not a project's, so they do not make the home a project root (its `.git`
//! does). With no marker up to the filesystem root the start directory is
//! the root. The walk is bounded by
//! [`MAX_ROOT_WALK`](crate::base::limits::MAX_ROOT_WALK) levels; each
//! marker costs at most one `stat` per listed name.

use crate::base::limits::MAX_ROOT_WALK;
use std::path::{Path, PathBuf};

/// The entries that mark a project root, in the order they are reported.
pub const ROOT_MARKERS: [&str; 3] = [".wave", ".claude", ".git"];

/// What a project's `.wave` holds, any one of which makes it a marker:
/// ours (`rules/`, `config.toml`, `evals/`, `packs.lock`, `packs/`) and the
/// Wave agent SDK's project scope (`settings.json`, `settings.local.json`,
/// `skills/`, `agents/`, `commands/`, `scheduled_tasks.json`, `worktrees/`).
pub const WAVE_PROJECT_ENTRIES: [&str; 12] = [
    "rules",
    "config.toml",
    "evals",
    "packs.lock",
    "packs",
    "settings.json",
    "settings.local.json",
    "skills",
    "agents",
    "commands",
    "scheduled_tasks.json",
    "worktrees",
];

/// What only a user's `.wave` holds (the Wave agent SDK's data in
/// `~/.wave`: `projects/` its sessions and memory, `plans/`,
/// `file-history/`, `sessions/`, `tasks/`, `history.jsonl`, `auth.json`;
/// ours: `memory/`): any one of them makes a `.wave` a user's, not a
/// project's, whatever else it holds.
pub const WAVE_USER_DATA: [&str; 8] = [
    "projects",
    "plans",
    "file-history",
    "sessions",
    "tasks",
    "history.jsonl",
    "auth.json",
    "memory",
];

/// What only Claude Code's user data folder (`~/.claude`) holds: its
/// transcripts and project memory (`projects/`), `todos/`, the login
/// (`.credentials.json`), `statsig/`, `shell-snapshots/`, `history.jsonl`
/// and `file-history/`. Any one of them makes a `.claude` a user's.
pub const CLAUDE_USER_DATA: [&str; 7] = [
    "projects",
    "todos",
    ".credentials.json",
    "statsig",
    "shell-snapshots",
    "history.jsonl",
    "file-history",
];

/// A project root and why it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectRoot {
    /// The root directory (absolute).
    pub dir: PathBuf,
    /// The marker found there (`.wave`, `.claude` or `.git`, each only as a
    /// project's: see the module); `None` when no directory up the tree has
    /// one and `dir` is the start directory.
    pub marker: Option<&'static str>,
}

impl ProjectRoot {
    /// `/p (has .git)`, or `/p (no .wave, .claude or .git here or above)`.
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

/// The nearest directory at or above `start` holding a project's `.wave`,
/// `.claude` or `.git` (see the module; a user's data folder so named is
/// passed by). `start` is made absolute (not resolved through
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
                ".wave" => is_wave_project(dir),
                ".claude" => is_claude_project(dir),
                _ => is_git_root(dir),
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

/// Whether `dir/.wave` is a project's: it holds one of
/// [`WAVE_PROJECT_ENTRIES`] and none of [`WAVE_USER_DATA`]. An empty `.wave`,
/// or one holding only what the list does not name, is not.
pub fn is_wave_project(dir: &Path) -> bool {
    let wave = dir.join(".wave");
    holds_any(&wave, &WAVE_PROJECT_ENTRIES) && !holds_any(&wave, &WAVE_USER_DATA)
}

/// Whether `dir/.claude` is a project's: it is there and holds none of
/// [`CLAUDE_USER_DATA`].
pub fn is_claude_project(dir: &Path) -> bool {
    let claude = dir.join(".claude");
    std::fs::symlink_metadata(&claude).is_ok() && !holds_any(&claude, &CLAUDE_USER_DATA)
}

/// Whether `folder` holds an entry (of any kind, a dangling link too) of
/// one of these names: one `stat` per name, no listing of the folder.
fn holds_any(folder: &Path, names: &[&str]) -> bool {
    names
        .iter()
        .any(|name| std::fs::symlink_metadata(folder.join(name)).is_ok())
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
