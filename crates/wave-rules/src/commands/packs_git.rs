//! Git packs through the `git` program: a bare mirror per repository in the
//! cache, the ref resolved there, the commit's tree written into the
//! checkout folder with a throwaway index (`read-tree` + `checkout-index`),
//! so the checkout holds the files only and no `.git`.
//!
//! Why the `git` program and not a library: it is the user's own git, with
//! their credentials (SSH keys, credential helpers), proxies and `insteadOf`
//! rewrites, for every transport, at no cost to the build; it runs only
//! in `packs sync`/`add`/`outdated`, never at hook, SDK or MCP time.
//! Measured on this project's 2-core machine (a 500-rule repository cloned
//! over file://, median of 5): the git program 1.39 s, gix 1.29 s, git2 0.37
//! s; gix adds 174 crates (984 s release build, 5.0 MB stripped), git2 52
//! crates and libgit2's C build (616 s, 1.6 MB, and https would need OpenSSL
//! besides). The numbers are in the commit that added this module.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why a git call failed, in one sentence.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git is not on PATH: git packs need the git program (install git)")]
    NotOnPath,
    #[error("cannot run git: {0}")]
    CannotRun(std::io::Error),
    /// A git subcommand that failed, and the last line it wrote on stderr.
    #[error("git {subcommand}: {message}")]
    Failed { subcommand: String, message: String },
    #[error("cannot create {}: {source}", path.display())]
    CannotCreate {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the repository has no ref or commit '{reference}'")]
    NoCommit { reference: String },
    #[error("{url} has no ref '{reference}'")]
    NoRemoteRef { url: String, reference: String },
}

fn git(args: &[&str], index: Option<&Path>) -> Result<String, GitError> {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Never wait for a password on a terminal nobody watches.
        .env("GIT_TERMINAL_PROMPT", "0");
    if let Some(i) = index {
        cmd.env("GIT_INDEX_FILE", i);
    }
    let out = cmd.output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            GitError::NotOnPath
        } else {
            GitError::CannotRun(e)
        }
    })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        // The subcommand, past `--git-dir DIR` / `--work-tree DIR`.
        let mut it = args.iter();
        let mut sub = "";
        while let Some(a) = it.next() {
            if a.starts_with("--") && !a.contains('=') {
                it.next();
                continue;
            }
            sub = a;
            break;
        }
        return Err(GitError::Failed {
            subcommand: sub.to_string(),
            message: last.trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The bare mirror of `url` in `cache`, cloned or fetched now.
pub fn fetch(url: &str, mirror: &Path) -> Result<(), GitError> {
    let m = mirror.to_string_lossy();
    if mirror.join("HEAD").is_file() {
        git(
            &[
                "--git-dir",
                &m,
                "fetch",
                "--quiet",
                "--force",
                "--prune",
                "--tags",
                url,
                "+refs/heads/*:refs/heads/*",
            ],
            None,
        )
        .map(|_| ())
    } else {
        if let Some(parent) = mirror.parent() {
            std::fs::create_dir_all(parent).map_err(|source| GitError::CannotCreate {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        git(&["clone", "--bare", "--quiet", "--", url, &m], None).map(|_| ())
    }
}

/// The commit `reference` names in the mirror (`None`: its HEAD, the
/// remote's default branch).
pub fn resolve(mirror: &Path, reference: Option<&str>) -> Result<String, GitError> {
    let m = mirror.to_string_lossy();
    let want = format!("{}^{{commit}}", reference.unwrap_or("HEAD"));
    git(
        &["--git-dir", &m, "rev-parse", "--verify", "--quiet", &want],
        None,
    )
    .map_err(|_| GitError::NoCommit {
        reference: reference.unwrap_or("HEAD").to_string(),
    })
}

/// The commit `reference` names at `url` now, without fetching (`ls-remote`).
pub fn remote_commit(url: &str, reference: Option<&str>) -> Result<String, GitError> {
    let want = reference.unwrap_or("HEAD");
    let out = git(
        &["ls-remote", "--", url, want, &format!("{want}^{{}}")],
        None,
    )?;
    // A peeled tag (`v1^{}`) names the commit; else the first line does.
    let mut first = None;
    for line in out.lines() {
        let mut parts = line.split_whitespace();
        let (Some(sha), Some(name)) = (parts.next(), parts.next()) else {
            continue;
        };
        if name.ends_with("^{}") {
            return Ok(sha.to_string());
        }
        first.get_or_insert(sha.to_string());
    }
    match first {
        Some(sha) => Ok(sha),
        // A commit id is not advertised: it names itself.
        None if want.len() >= 7 && want.chars().all(|c| c.is_ascii_hexdigit()) => {
            Ok(want.to_string())
        }
        None => Err(GitError::NoRemoteRef {
            url: url.to_string(),
            reference: want.to_string(),
        }),
    }
}

/// Writes the tree of `commit` into `dest` (which must not exist): the
/// files only, through a temporary index.
pub fn checkout(mirror: &Path, commit: &str, dest: &Path) -> Result<(), GitError> {
    let m = mirror.to_string_lossy();
    let index: PathBuf = dest.with_extension("index");
    let _ = std::fs::remove_file(&index);
    std::fs::create_dir_all(dest).map_err(|source| GitError::CannotCreate {
        path: dest.to_path_buf(),
        source,
    })?;
    let d = dest.to_string_lossy();
    let result = (|| {
        git(&["--git-dir", &m, "read-tree", commit], Some(&index))?;
        git(
            &[
                "--git-dir",
                &m,
                "--work-tree",
                &d,
                "checkout-index",
                "--all",
                "--force",
            ],
            Some(&index),
        )?;
        Ok(())
    })();
    let _ = std::fs::remove_file(&index);
    result
}
