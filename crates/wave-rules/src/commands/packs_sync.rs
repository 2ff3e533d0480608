//! `wave-rules packs sync [--frozen|--update]`: git packs checked out into
//! the cache (`packs_git`), npm packs checked against their range, and the
//! lockfile written (or, with `--frozen`, compared). `packs add` syncs too.

use super::packs_git::{self as git, GitError};
use crate::base::args::PacksSyncArgs;
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE};
use memory_rules::sources::packs::{
    self, hash, manifest, Home, Locked, PackKind, PackLock, Pin, Spec,
};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A path as the CLI shows it: relative to the workdir when inside it.
pub(super) fn show(path: &Path, env: &Env) -> String {
    display::show(path, &env.config.workdir)
}

/// One pack's outcome.
struct Row {
    spec: Spec,
    resolved: Option<String>,
    hash: Option<String>,
    /// `locked`, `not pinned` (a folder), `drift`, `missing`, `error`.
    status: &'static str,
    message: Option<String>,
    entry: Option<Locked>,
}

impl Row {
    fn new(spec: &Spec) -> Row {
        Row {
            spec: spec.clone(),
            resolved: None,
            hash: None,
            status: "locked",
            message: None,
            entry: None,
        }
    }
    fn fail(mut self, status: &'static str, message: String) -> Row {
        self.status = status;
        self.message = Some(message);
        self
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "spec": self.spec.text, "kind": self.spec.kind.as_str(), "name": self.spec.name,
            "resolved": self.resolved, "hash": self.hash, "status": self.status, "message": self.message,
        })
    }
}

pub(super) fn sync(env: &Env, home: &Home, args: &PacksSyncArgs) -> Output {
    let (specs, lock) = match config_and_lock(home, args.frozen) {
        Ok(c) => c,
        Err(out) => return out,
    };
    let rows: Vec<Row> = specs
        .iter()
        .map(|spec| sync_one(home, spec, lock.as_ref(), args))
        .collect();
    let extra: Vec<String> = lock
        .iter()
        .flat_map(|l| &l.packs)
        .filter(|p| !specs.iter().any(|s| s.text == p.spec))
        .map(|p| p.spec.clone())
        .collect();
    let lock_path = home.lock();
    let new_lock = PackLock {
        version: packs::lock::LOCK_VERSION,
        packs: rows.iter().filter_map(|r| r.entry.clone()).collect(),
    };
    let failed = rows
        .iter()
        .any(|r| matches!(r.status, "drift" | "missing" | "error"));
    let mut written = false;
    let mut frozen_problem = false;
    let mut out = Output::default();
    if args.frozen {
        if lock.is_none() && !new_lock.packs.is_empty() {
            frozen_problem = true;
            out.stderr.push_str(&display::line(&format!(
                "wave-rules: packs: there is no {}: run `wave-rules packs sync` and commit it",
                show(&lock_path, env)
            )));
        }
        frozen_problem |= !extra.is_empty();
    } else if !failed
        && (lock.is_some() || !new_lock.packs.is_empty())
        && lock.as_ref() != Some(&new_lock)
    {
        if let Err(o) = crate::base::settings_file::save(&lock_path, &new_lock.to_text()) {
            return o;
        }
        written = true;
    }
    let failed = failed || frozen_problem;
    out.stdout = if env.json {
        display::json_text(&json!({
            "packs": rows.iter().map(Row::json).collect::<Vec<_>>(),
            "lock": lock_path.to_string_lossy(),
            "written": written,
            "frozen": args.frozen,
            "notInConfig": extra,
            "ok": !failed,
        }))
    } else {
        let wrote = written.then_some(new_lock.packs.len());
        sync_table(env, home, &rows, wrote)
    };
    out.stderr
        .push_str(&sync_messages(&rows, &extra, args.frozen));
    if failed {
        out.code = EXIT_FAILURE;
    }
    out
}

/// The packs the config names, and the lock (`None` when there is none; a
/// lock that cannot be read is written again, but fails `--frozen`).
fn config_and_lock(home: &Home, frozen: bool) -> Result<(Vec<Spec>, Option<PackLock>), Output> {
    let mut diagnostics = Vec::new();
    let config = packs::read_config(home, &mut diagnostics);
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity == memory_rules::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if !errors.is_empty() {
        return Err(Output::fail(EXIT_FAILURE, errors.join("\nwave-rules: ")));
    }
    let lock = match PackLock::read(&home.lock()) {
        Ok(l) => l,
        Err(e) if frozen => return Err(Output::fail(EXIT_FAILURE, e)),
        Err(_) => None,
    };
    let specs = config
        .iter()
        .flat_map(|c| c.packs.iter().map(|(s, _)| s.clone()))
        .collect();
    Ok((specs, lock))
}

/// One pack synced by its kind: an npm pack checked, a git pack checked
/// out, a folder found (never pinned).
fn sync_one(home: &Home, spec: &Spec, lock: Option<&PackLock>, args: &PacksSyncArgs) -> Row {
    let locked = lock.and_then(|l| l.get(&spec.text));
    match spec.kind {
        PackKind::Npm => sync_npm(home, spec, locked, args.frozen),
        PackKind::Git => sync_git(home, spec, locked, args),
        PackKind::Folder => {
            let found = packs::find(home, spec, None);
            match found.problem {
                Some(p) => Row::new(spec).fail("missing", p),
                None => Row {
                    status: "not pinned",
                    resolved: found.version,
                    ..Row::new(spec)
                },
            }
        }
    }
}

/// The rows as a table, and the lock written (`wrote`: its pack count).
fn sync_table(env: &Env, home: &Home, rows: &[Row], wrote: Option<usize>) -> String {
    let table: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                r.spec.text.clone(),
                r.spec.kind.to_string(),
                r.resolved.clone().map(|c| short(&c)).unwrap_or_default(),
                r.hash.clone().map(|h| short_hash(&h)).unwrap_or_default(),
                r.status.to_string(),
            ]
        })
        .collect();
    let mut s = if !table.is_empty() {
        super::list::table(["PACK", "KIND", "RESOLVED", "HASH", "STATUS"], &table)
    } else {
        display::line(&format!("no packs in {}", show(&home.config(), env)))
    };
    if let Some(n) = wrote {
        s.push_str(&display::line(&format!(
            "wrote {} ({} pack{})",
            show(&home.lock(), env),
            n,
            if n == 1 { "" } else { "s" }
        )));
    }
    s
}

/// Each pack's message, then each locked pack the config no longer names.
fn sync_messages(rows: &[Row], extra: &[String], frozen: bool) -> String {
    let mut s = String::new();
    for r in rows {
        if let Some(m) = &r.message {
            s.push_str(&display::line(&format!(
                "wave-rules: packs: {}: {m}",
                r.spec
            )));
        }
    }
    for e in extra {
        let what = if frozen {
            "is in the lock but not in the config: run `wave-rules packs sync` and commit the lock"
        } else {
            "is no more in the config; left out of the lock"
        };
        s.push_str(&display::line(&format!("wave-rules: packs: {e} {what}")));
    }
    s
}

pub(super) fn short(resolved: &str) -> String {
    if resolved.len() == 40 && resolved.chars().all(|c| c.is_ascii_hexdigit()) {
        resolved[..7].to_string()
    } else {
        resolved.to_string()
    }
}

fn short_hash(h: &str) -> String {
    h.chars().take(7 + 12).collect()
}

fn sync_npm(home: &Home, spec: &Spec, locked: Option<&Locked>, frozen: bool) -> Row {
    let row = Row::new(spec);
    let found = packs::find(home, spec, None);
    if let Some(p) = found.problem {
        return row.fail("missing", p);
    }
    let (Some(root), Some(m)) = (&found.root, &found.manifest) else {
        return row.fail("missing", "not found".into());
    };
    let Some(version) = found.version.clone() else {
        return row.fail(
            "error",
            format!("{} has no version in its package.json", root.display()),
        );
    };
    if let Err(e) = satisfies(&version, spec.want.as_deref()) {
        return row.fail("error", e.to_string());
    }
    let hash = match hash::content_hash(root, m) {
        Ok(h) => h,
        Err(e) => return row.fail("error", e.to_string()),
    };
    let entry = Locked {
        spec: spec.text.clone(),
        kind: "npm".into(),
        name: spec.name.clone(),
        version: Some(version.clone()),
        hash: hash.clone(),
        ..Locked::default()
    };
    let mut row = Row {
        resolved: Some(version.clone()),
        hash: Some(hash.clone()),
        entry: Some(entry),
        ..row
    };
    if frozen {
        let drift = match locked {
            None => Some("not in the lock: run `wave-rules packs sync` and commit the lock".to_string()),
            Some(l) if l.version.as_deref() != Some(version.as_str()) => Some(format!(
                "node_modules has {version}, the lock pins {}: install the locked version, or run `wave-rules packs sync` and commit the lock",
                l.version.as_deref().unwrap_or("(none)")
            )),
            Some(l) if l.hash != hash => Some(format!(
                "the rule files of {} {version} are not what the lock pins ({} here, {} locked): the installed package was changed",
                spec.name,
                short_hash(&hash),
                short_hash(&l.hash)
            )),
            Some(_) => None,
        };
        if let Some(d) = drift {
            row = row.fail("drift", d);
        }
    }
    row
}

/// Why an installed npm pack does not satisfy the config's range.
#[derive(Debug, thiserror::Error)]
pub(super) enum RangeError {
    #[error("'{range}' is not an npm version range")]
    NotARange { range: String },
    #[error("the installed version '{version}' is not a semver version")]
    NotSemver { version: String },
    #[error("node_modules has {version}, which is not in {range}: install a version in range (npm install)")]
    OutOfRange { version: String, range: String },
}

/// Whether an installed version satisfies the config's range (npm's rules).
pub(super) fn satisfies(version: &str, range: Option<&str>) -> Result<(), RangeError> {
    let Some(range) = range else {
        return Ok(());
    };
    let r = nodejs_semver::Range::parse(range).map_err(|_| RangeError::NotARange {
        range: range.to_string(),
    })?;
    let v = nodejs_semver::Version::parse(version).map_err(|_| RangeError::NotSemver {
        version: version.to_string(),
    })?;
    if v.satisfies(&r) {
        Ok(())
    } else {
        Err(RangeError::OutOfRange {
            version: version.to_string(),
            range: range.to_string(),
        })
    }
}

/// Why a git pack could not be synced.
#[derive(Debug, thiserror::Error)]
enum GitSyncError {
    #[error(transparent)]
    Git(#[from] GitError),
    /// The ref does not resolve in the repository.
    #[error("{location}: {source}")]
    Unresolved { location: String, source: GitError },
    #[error("the locked commit {commit} is no more in {location}")]
    LockedCommitGone { commit: String, location: String },
    /// The commit's files are not a pack (no manifest, an unreadable file).
    #[error("at {}: {message}", short(commit))]
    NotAPack { commit: String, message: String },
    #[error("cannot replace {}: {source}", path.display())]
    Replace {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The pin beside the checkout could not be saved (the save's message).
    #[error("{0}")]
    PinNotSaved(String),
}

fn mirror_of(home: &Home, spec: &Spec) -> PathBuf {
    let checkout = home.checkout(spec);
    let name = checkout
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    home.cache().join(".git").join(format!("{name}.git"))
}

fn sync_git(home: &Home, spec: &Spec, locked: Option<&Locked>, args: &PacksSyncArgs) -> Row {
    let mut row = Row::new(spec);
    let mirror = mirror_of(home, spec);
    let checked_out = git::fetch(&spec.location, &mirror)
        .map_err(GitSyncError::from)
        .and_then(|()| {
            git::resolve(&mirror, spec.want.as_deref()).map_err(|source| GitSyncError::Unresolved {
                location: spec.location.clone(),
                source,
            })
        })
        .and_then(|now| git_target(spec, &mirror, &now, locked, args))
        .and_then(|target| {
            let hash = materialize(home, spec, &mirror, &target.commit)?;
            Ok((target, hash))
        });
    let (
        GitTarget {
            commit: target,
            mut drift,
            note,
        },
        hash,
    ) = match checked_out {
        Ok(c) => c,
        Err(e) => return row.fail("error", e.to_string()),
    };
    if drift.is_none() && args.frozen {
        if let Some(l) = locked.filter(|l| l.hash != hash) {
            drift = Some(format!(
                "the rule files at {} are not what the lock pins ({} here, {} locked)",
                short(&target),
                short_hash(&hash),
                short_hash(&l.hash)
            ));
        }
    }
    row.resolved = Some(target.clone());
    row.hash = Some(hash.clone());
    row.entry = Some(Locked {
        spec: spec.text.clone(),
        kind: "git".into(),
        name: spec.name.clone(),
        reference: spec.want.clone(),
        commit: Some(target),
        hash,
        ..Locked::default()
    });
    if let Some(d) = drift {
        return row.fail("drift", d);
    }
    row.message = note;
    row
}

/// The commit a git pack is checked out at, and what sync says of it.
struct GitTarget {
    commit: String,
    /// `--frozen`: how the ref differs from the lock.
    drift: Option<String>,
    /// The ref has moved on from the locked commit, which is kept.
    note: Option<String>,
}

/// The locked commit (unless `--update`), else the ref's commit `now`; an
/// error when the locked commit is gone from the mirror.
fn git_target(
    spec: &Spec,
    mirror: &Path,
    now: &str,
    locked: Option<&Locked>,
    args: &PacksSyncArgs,
) -> Result<GitTarget, GitSyncError> {
    let locked_commit = locked.and_then(|l| l.commit.clone());
    let mut target = GitTarget {
        commit: now.to_string(),
        drift: None,
        note: None,
    };
    match (&locked_commit, args.update) {
        (Some(c), false) => {
            if *c != now {
                let r = spec.want.as_deref().unwrap_or("HEAD");
                if args.frozen {
                    target.drift = Some(format!(
                        "{r} is now at {}, the lock pins {}: run `wave-rules packs sync --update` and commit the lock",
                        short(now),
                        short(c)
                    ));
                } else {
                    target.note = Some(format!(
                        "{r} has moved to {}; the locked {} is kept (`packs sync --update` moves it)",
                        short(now),
                        short(c)
                    ));
                }
            }
            if git::resolve(mirror, Some(c)).is_err() {
                return Err(GitSyncError::LockedCommitGone {
                    commit: c.clone(),
                    location: spec.location.clone(),
                });
            }
            target.commit = c.clone();
        }
        _ => {
            if args.frozen {
                target.drift =
                    Some("not in the lock: run `wave-rules packs sync` and commit the lock".into());
            }
        }
    }
    Ok(target)
}

/// The checkout of `commit` in the cache, reused when its pin and its files
/// still say so, else written again; its pin saved; its content hash.
fn materialize(
    home: &Home,
    spec: &Spec,
    mirror: &Path,
    commit: &str,
) -> Result<String, GitSyncError> {
    let dest = home.checkout(spec);
    let pin_path = home.pin_path(spec);
    let current = Pin::read(&pin_path).filter(|p| p.commit == commit && dest.is_dir());
    let reuse = current.as_ref().and_then(|p| {
        let m = manifest::read(&dest, false).ok()?;
        (hash::content_hash(&dest, &m).ok()? == p.hash).then(|| p.hash.clone())
    });
    let hash = match reuse {
        Some(h) => h,
        None => check_out(mirror, commit, &dest)?,
    };
    let pin = Pin {
        url: spec.location.clone(),
        reference: spec.want.clone(),
        commit: commit.to_string(),
        hash: hash.clone(),
    };
    if let Ok(text) = serde_json::to_string_pretty(&pin) {
        if let Err(o) = crate::base::settings_file::save(&pin_path, &text) {
            return Err(GitSyncError::PinNotSaved(o.stderr.trim().to_string()));
        }
    }
    let ignore = home.cache().join(".gitignore");
    if !ignore.exists() {
        let _ = std::fs::write(
            &ignore,
            "# Checkouts of git packs (wave-rules packs sync): not committed.\n*\n",
        );
    }
    Ok(hash)
}

/// Writes `commit` into `dest` through a temporary folder and a rename (the
/// old checkout stays until the new one is complete); its content hash.
fn check_out(mirror: &Path, commit: &str, dest: &Path) -> Result<String, GitSyncError> {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = dest.parent().unwrap_or(Path::new("."));
    let tmp = parent.join(format!(".tmp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    git::checkout(mirror, commit, &tmp)?;
    let result = manifest::read(&tmp, false).and_then(|m| hash::content_hash(&tmp, &m));
    let hash = match result {
        Ok(h) => h,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(GitSyncError::NotAPack {
                commit: commit.to_string(),
                message: e.to_string(),
            });
        }
    };
    let old = parent.join(format!(".old-{name}-{}", std::process::id()));
    if dest.exists() {
        std::fs::rename(dest, &old).map_err(|source| GitSyncError::Replace {
            path: dest.to_path_buf(),
            source,
        })?;
    }
    if let Err(source) = std::fs::rename(&tmp, dest) {
        let _ = std::fs::rename(&old, dest);
        return Err(GitSyncError::Write {
            path: dest.to_path_buf(),
            source,
        });
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(hash)
}
