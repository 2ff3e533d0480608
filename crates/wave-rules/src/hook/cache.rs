//! The hooks' rules cache: a hook is a new process per event, so the
//! discovery it made last time is kept in a small file, the core's saved
//! discovery ([`Loaded::to_bytes`](memory_rules::Loaded::to_bytes)): the
//! stamps of everything it read (the rules roots, the listed rules
//! directories, every rule file and import), the rule set as built, and the
//! [`Snapshot`] (every rule file found, with its stamp, the hash of its text
//! and what parsing it gave), one per workdir and set of sources.
//!
//! A run stats those inputs ([`Restored::from_bytes`]): when none changed
//! (and none is within the core's racy window of the scan), the rule set is
//! used as saved, with no walk and no file read, and only the rules the
//! event can activate are decoded ([`RulesNeeded`]). Otherwise it reloads from
//! the snapshot through the core's [`reload_from`]: only the files whose
//! stamp changed are read and parsed again, whatever their format, and the
//! file is written again. Any trouble with the cache file means a full
//! load; the cache never changes a result.

use crate::base::env::Env;
use crate::hook::watch;
use memory_rules::base::fs::{self, Links};
use memory_rules::delivery::telemetry::RuleCensus;
use memory_rules::delivery::RulesNeeded;
use memory_rules::{reload_from, Diagnostic, Restored, RuleSet, Severity, Snapshot};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::base::exit::{exits_after, release};
use memory_rules::base::limits::MAX_CACHE_BYTES;

/// The rules a hook works with, and one text per rule file that could not
/// be loaded (for the stderr line).
pub struct Rules {
    pub set: Arc<RuleSet>,
    pub broken: Vec<String>,
    /// Only the rules the event needed were restored ([`RulesNeeded`]).
    pub partial: bool,
    /// Every rule of the sources, counted by format (restored or not).
    pub census: RuleCensus,
}

impl Drop for Rules {
    fn drop(&mut self) {
        release(std::mem::take(&mut self.set));
    }
}

/// The rules of `env`'s sources, as saved in `state_dir` when nothing they
/// were read from changed (only those `need` takes), else reloaded from the
/// saved snapshot (a full load without one; every rule) and saved again.
pub fn load(env: &Env, state_dir: &Path, need: RulesNeeded) -> Rules {
    let path = cache_path(env, state_dir);
    // Mapped: a fresh check reads the check and the rules, not the snapshot
    // after them (the file is only ever replaced by a rename: `write`).
    let bytes = fs::map_bounded(&path, MAX_CACHE_BYTES, Links::Follow)
        .unwrap_or(fs::FileBytes::Read(Vec::new()));
    let vouched = watch::vouches(&path, &bytes);
    let restored = Restored::restore(&env.config, &bytes, vouched, need);
    let previous = match restored {
        Ok(Restored::Fresh {
            rules,
            diagnostics,
            saved,
        }) => {
            if !vouched && saved.total() >= watch::WATCH_MIN_RULES {
                start_watcher(&path);
            }
            let broken = broken_lines(&diagnostics, &env.config.workdir);
            release(diagnostics);
            release(bytes);
            return Rules {
                partial: saved.total() > rules.rules().len(),
                set: rules,
                broken,
                census: saved,
            };
        }
        Ok(Restored::Stale(snapshot)) => snapshot,
        Err(_) => Snapshot::default(),
    };
    release(bytes);
    let reloaded = reload_from(&env.config, &previous);
    release(previous);
    // Written when a rule changed, and when the stamps it checks are new
    // (unless a project walk makes them uncheckable: then it never is fresh).
    if reloaded.changed || reloaded.reparsed > 0 || reloaded.loaded.walks() == 0 {
        write(&path, &reloaded.loaded);
    }
    let broken = broken_lines(&reloaded.loaded.diagnostics, &env.config.workdir);
    let set = Arc::clone(&reloaded.loaded.rules);
    release(reloaded);
    Rules {
        census: set.census(),
        set,
        broken,
        partial: false,
    }
}

/// Starts a watcher of `cache` (see [`watch`]) from the binary, which
/// exits after one command; never from the addon, whose process is Node.
fn start_watcher(cache: &Path) {
    if !exits_after() {
        return;
    }
    if let Ok(exe) = std::env::current_exe() {
        watch::start(&exe, cache);
    }
}

/// `<state dir>/rules/<hash of the config>.json`: the workdir, the sources,
/// the allowed directories, the packs' and policy's switches (the packs
/// themselves are checked in the file: a change of them reloads).
fn cache_path(env: &Env, state_dir: &Path) -> PathBuf {
    let key = format!("{:?}", env.config);
    state_dir.join("rules").join(format!(
        "{}.json",
        super::state::file_key(&format!("config:{key}"))
    ))
}

/// Saves the discovery; a failure only means a full load next time.
fn write(path: &Path, loaded: &memory_rules::Loaded) {
    let Ok(bytes) = loaded.to_bytes() else {
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
                crate::base::display::show(Path::new(&d.file_path), workdir),
                d.position(),
                d.message
            )
        })
        .collect()
}
