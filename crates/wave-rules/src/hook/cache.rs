//! The hooks' rules cache: a hook is a new process per event, so the
//! discovery it made last time is kept in a small file: the core's
//! [`Snapshot`] (every rule file found, with its stamp, the hash of its text
//! and what parsing it gave), one per workdir and set of sources.
//!
//! Each run still walks the rules roots and stats every file, through the
//! core's [`reload_from`]: only the files whose stamp (size, mtime in ns,
//! inode, device) changed, or whose mtime is within the core's racy window
//! of the snapshot's scan, are read and parsed again, whatever their format;
//! the rule set is compiled from the rest as saved. The snapshot is written
//! again when a file was read. Any trouble with the cache file means a full
//! load; the cache never changes a result.

use crate::env::Env;
use memory_rules::base::fs::{self, Links};
use memory_rules::{reload_from, Diagnostic, RuleSet, Severity, Snapshot};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether the process exits right after this command (set by the
/// binary's `main`, never by the addon, which lives on): a hook's rules and
/// snapshot are then left to the exit instead of freed one allocation at a
/// time (about a twentieth of a hook's instructions at 1,000 rules).
static EXITS_AFTER: AtomicBool = AtomicBool::new(false);

/// Called by a process that exits after one command (see [`EXITS_AFTER`]).
pub fn exits_after_command() {
    EXITS_AFTER.store(true, Ordering::Relaxed);
}

/// Drops `value`, or leaves it to the process's exit (see [`EXITS_AFTER`]).
fn release<T>(value: T) {
    if EXITS_AFTER.load(Ordering::Relaxed) {
        std::mem::forget(value);
    }
}

use memory_rules::base::limits::MAX_CACHE_BYTES;

/// The rules a hook works with, and one text per rule file that could not
/// be loaded (for the stderr line).
pub struct Rules {
    pub set: Arc<RuleSet>,
    pub broken: Vec<String>,
}

impl Drop for Rules {
    fn drop(&mut self) {
        release(std::mem::take(&mut self.set));
    }
}

/// The rules of `env`'s sources, reloaded from the snapshot in `state_dir`
/// (a full load without one), which is saved again when a file was read.
pub fn load(env: &Env, state_dir: &Path) -> Rules {
    let path = cache_path(env, state_dir);
    let previous = read(&path).unwrap_or_default();
    let reloaded = reload_from(&env.config, &previous);
    release(previous);
    if reloaded.changed || reloaded.reparsed > 0 {
        write(&path, reloaded.loaded.snapshot());
    }
    let broken = broken_lines(&reloaded.loaded.diagnostics, &env.config.workdir);
    let set = Arc::clone(&reloaded.loaded.rules);
    release(reloaded);
    Rules { set, broken }
}

/// `<state dir>/rules/<hash of the workdir and the sources>.json`
fn cache_path(env: &Env, state_dir: &Path) -> PathBuf {
    let roots: Vec<String> = memory_rules::sources::packs::roots(&env.config)
        .iter()
        .map(|r| format!("{:?}", r))
        .collect();
    let key = format!("{}\0{}", env.config.workdir.display(), roots.join("\0"));
    state_dir.join("rules").join(format!(
        "{}.json",
        super::state::file_key(&format!("roots:{key}"))
    ))
}

fn read(path: &Path) -> Option<Snapshot> {
    Snapshot::from_bytes(&fs::read_bounded(path, MAX_CACHE_BYTES, Links::Follow).ok()?).ok()
}

/// Saves the snapshot; a failure only means a full load next time.
fn write(path: &Path, snapshot: &Snapshot) {
    let Ok(bytes) = snapshot.to_bytes() else {
        return;
    };
    if bytes.len() as u64 > MAX_CACHE_BYTES {
        return;
    }
    if let Some(dir) = path.parent() {
        if std::fs::create_dir_all(dir).is_ok() {
            let _ = fs::replace_fast(path, &bytes);
        }
    }
}

/// `file:line:col message` for every error (a rule file that was skipped).
fn broken_lines(diagnostics: &[Diagnostic], workdir: &Path) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            format!(
                "{}{} {}",
                crate::display::show(Path::new(&d.file_path), workdir),
                d.position(),
                d.message
            )
        })
        .collect()
}
