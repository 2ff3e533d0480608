//! What a session has been given: the core's [`Session`], serialized, one
//! small JSON file per session under the user's state directory
//! (`$WAVE_RULES_STATE_DIR`, else `$XDG_STATE_HOME/wave-rules`, else
//! `~/.local/state/wave-rules`; `%LOCALAPPDATA%\wave-rules` on Windows),
//! in `sessions/<session id>.json`.
//!
//! Every read and every read-modify-write holds the directory's lock (the
//! file-system layer's `fs::Lock`, which waits at most
//! [`STATE_LOCK_TIMEOUT`]). A new file is written beside and renamed into
//! place; an existing one is written over in place ([`save`]). No fsync: the
//! state is a cache of what was sent, and a hook must stay fast. A file that
//! cannot be read (one a writer killed mid-write left torn) is reported and
//! the session starts afresh; files of sessions idle for
//! [`STATE_STALE_AFTER`] are removed when a new session starts (looked for
//! at most once every [`CLEAN_STALE_EVERY`]).

use memory_rules::base::fs::{self, Links, Lock};
use memory_rules::delivery::Session;
use memory_rules::delivery::SESSION_VERSION;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use memory_rules::base::limits::CLEAN_STALE_EVERY;
use memory_rules::base::limits::MAX_CLEANUP_ENTRIES;
pub use memory_rules::base::limits::MAX_STATE_BYTES;
use memory_rules::base::limits::STATE_LOCK_TIMEOUT;
use memory_rules::base::limits::STATE_STALE_AFTER;

/// A session id as a file name: itself when it is plain, else a hash.
pub fn file_key(session: &str) -> String {
    let plain = !session.is_empty()
        && session.len() <= 128
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        return session.to_string();
    }
    let h = memory_rules::base::fnv::fnv1a(session.as_bytes());
    format!("h-{h:016x}")
}

/// Why a session's state file could not be used (the session then starts
/// afresh).
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{} is over {} bytes; ignored", path.display(), MAX_STATE_BYTES)]
    TooLarge { path: PathBuf },
    #[error("cannot read {}: {error}", path.display())]
    Unreadable { path: PathBuf, error: fs::ReadError },
    #[error("{} is unreadable ({source}); the session starts afresh", path.display())]
    NotJson {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// The sessions directory.
pub struct Store {
    dir: PathBuf,
}

impl Store {
    pub fn new(state_dir: PathBuf) -> Store {
        Store {
            dir: state_dir.join("sessions"),
        }
    }

    /// The store of the state directory that holds the saved discovery
    /// `cache` (`<state dir>/rules/<file>`, as `hook/cache.rs` names it).
    pub fn of_cache(cache: &Path) -> Option<Store> {
        Some(Store::new(cache.parent()?.parent()?.to_path_buf()))
    }

    /// Makes the spare session files that are missing ([`super::spares`]).
    pub fn top_up_spares(&self) -> usize {
        super::spares::top_up(&self.dir)
    }

    pub fn path(&self, session: &str) -> PathBuf {
        self.dir.join(format!("{}.json", file_key(session)))
    }

    /// The session's state; `None` when it has none yet (or a state an
    /// older version wrote). Under the lock (a writer writes in place); a
    /// lock that cannot be had within its timeout is read without.
    pub fn read(&self, session: &str) -> Result<Option<Session>, StateError> {
        let lock = Lock::acquire(&self.dir, "session state", STATE_LOCK_TIMEOUT);
        let state = self.read_unlocked(session);
        drop(lock);
        state
    }

    /// Whether the session has to give again what a compaction took
    /// ([`Session::regive`]), read without the lock and without parsing
    /// the state: it is compact JSON in which `"regive":` can only be that
    /// field (inside a string it is escaped), and it comes near the start.
    /// A state that cannot be read counts as yes (the caller then restores
    /// every rule); none at all, as no.
    pub fn regives(&self, session: &str) -> bool {
        const FIELD: &[u8] = br#""regive":"#;
        match fs::read_bounded(&self.path(session), MAX_STATE_BYTES, Links::Follow) {
            Ok(bytes) => match bytes.windows(FIELD.len()).position(|w| w == FIELD) {
                Some(at) => bytes[at + FIELD.len()..].starts_with(b"true"),
                None => !bytes.is_empty(),
            },
            Err(e) => !e.is_not_found(),
        }
    }

    /// The tasks waiting in the session for their subagent's start
    /// ([`Session::waiting_tasks`]), read without the lock: a subagent's
    /// start restores the topic rules they name before it takes the lock
    /// (and checks then that its task is one of them). `None` when the
    /// state cannot be read.
    pub fn waiting_tasks(&self, session: &str) -> Option<Vec<String>> {
        match fs::read_bounded(&self.path(session), MAX_STATE_BYTES, Links::Follow) {
            Ok(bytes) => Session::waiting_tasks_saved(&bytes).ok(),
            Err(e) => e.is_not_found().then(Vec::new),
        }
    }

    /// [`Store::read`] for a caller that holds the lock.
    fn read_unlocked(&self, session: &str) -> Result<Option<Session>, StateError> {
        let path = self.path(session);
        let bytes = match fs::read_bounded(&path, MAX_STATE_BYTES, Links::Follow) {
            Ok(bytes) => bytes,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(fs::ReadError::TooLarge(_)) => return Err(StateError::TooLarge { path }),
            Err(error) => return Err(StateError::Unreadable { path, error }),
        };
        let unreadable = |source| StateError::NotJson {
            path: path.clone(),
            source,
        };
        // Read straight into the state (not through a `Value` first); only
        // a file this version cannot read is looked at for its version.
        match serde_json::from_slice::<Session>(&bytes) {
            Ok(state) => Ok((state.version == SESSION_VERSION).then_some(state)),
            Err(e) => match serde_json::from_slice::<serde_json::Value>(&bytes) {
                Ok(value) if value.get("version") != Some(&SESSION_VERSION.into()) => Ok(None),
                _ => Err(unreadable(e)),
            },
        }
    }

    /// Runs `f` on the session's state under the lock and saves what it
    /// changed. Trouble (no directory, a lock held too long, a bad file) is
    /// pushed to `problems` and `f` still runs, on what could be read.
    pub fn update<R>(
        &self,
        session: &str,
        problems: &mut Vec<String>,
        f: impl FnOnce(&mut Session) -> R,
    ) -> R {
        if let Err(e) = std::fs::create_dir_all(&self.dir) {
            problems.push(format!(
                "state not saved: cannot create {}: {e}",
                self.dir.display()
            ));
            return f(&mut Session::new());
        }
        let lock = match Lock::acquire(&self.dir, "session state", STATE_LOCK_TIMEOUT) {
            Ok(l) => Some(l),
            Err(e) => {
                problems.push(format!("state not saved: {e}"));
                None
            }
        };
        let mut state = match self.read_unlocked(session) {
            Ok(s) => s.unwrap_or_else(Session::new),
            Err(p) => {
                problems.push(p.to_string());
                Session::new()
            }
        };
        let before = state.clone();
        let result = f(&mut state);
        state.version = SESSION_VERSION;
        if lock.is_some() && state != before {
            let path = self.path(session);
            let bytes = serde_json::to_vec(&state).unwrap_or_default();
            if let Err(e) = save(&path, &bytes) {
                problems.push(format!("state not saved: {}: {e}", path.display()));
            }
        }
        drop(lock);
        // A start's state holds every rule it gave: left to the exit.
        crate::base::exit::release((state, before));
        result
    }

    /// [`Store::update`] of two conversations under one lock (a subagent's
    /// start: its parent's session and its own), then the conversations in
    /// `drop` removed (subagents forgotten or stopped).
    pub fn update_pair<R>(
        &self,
        keys: (&str, &str),
        problems: &mut Vec<String>,
        f: impl FnOnce(&mut Session, &mut Session) -> (R, Vec<String>),
    ) -> R {
        if let Err(e) = std::fs::create_dir_all(&self.dir) {
            problems.push(format!(
                "state not saved: cannot create {}: {e}",
                self.dir.display()
            ));
            return f(&mut Session::new(), &mut Session::new()).0;
        }
        let lock = match Lock::acquire(&self.dir, "session state", STATE_LOCK_TIMEOUT) {
            Ok(l) => Some(l),
            Err(e) => {
                problems.push(format!("state not saved: {e}"));
                None
            }
        };
        let mut read = |key: &str| match self.read_unlocked(key) {
            Ok(s) => s.unwrap_or_else(Session::new),
            Err(p) => {
                problems.push(p.to_string());
                Session::new()
            }
        };
        let (mut a, mut b) = (read(keys.0), read(keys.1));
        let (before_a, before_b) = (a.clone(), b.clone());
        let (result, drop_keys) = f(&mut a, &mut b);
        if lock.is_some() {
            for (key, state, before) in [(keys.0, &mut a, &before_a), (keys.1, &mut b, &before_b)] {
                state.version = SESSION_VERSION;
                if drop_keys.iter().any(|k| k == key) || *state == *before {
                    continue;
                }
                let path = self.path(key);
                let bytes = serde_json::to_vec(&state).unwrap_or_default();
                if let Err(e) = save(&path, &bytes) {
                    problems.push(format!("state not saved: {}: {e}", path.display()));
                }
            }
            for key in &drop_keys {
                match std::fs::remove_file(self.path(key)) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => {
                        problems.push(format!("cannot remove {}: {e}", self.path(key).display()))
                    }
                }
            }
        }
        drop(lock);
        crate::base::exit::release((a, b, before_a, before_b));
        result
    }

    /// Removes the files of sessions idle for [`STATE_STALE_AFTER`] (and temp
    /// files a killed hook left behind), at most once every
    /// [`CLEAN_STALE_EVERY`]: the time of the last look is the mtime of
    /// `.cleaned` in the directory.
    pub fn clean_stale(&self, problems: &mut Vec<String>) {
        let now = SystemTime::now();
        let marker = self.dir.join(".cleaned");
        let looked = std::fs::symlink_metadata(&marker).and_then(|m| m.modified());
        if looked.is_ok_and(|t| now.duration_since(t).is_ok_and(|a| a < CLEAN_STALE_EVERY)) {
            return;
        }
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        // Best effort, as the cleanup: a stamp not written means another
        // look at the next start.
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&marker)
            .and_then(|f| f.set_modified(now));
        for entry in entries.take(MAX_CLEANUP_ENTRIES).flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let max_age = if name.ends_with(".tmp") {
                Duration::from_secs(3600)
            } else if name.ends_with(".json") {
                STATE_STALE_AFTER
            } else {
                continue;
            };
            let age = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| now.duration_since(t).ok());
            if age.is_some_and(|a| a > max_age) {
                if let Err(e) = std::fs::remove_file(entry.path()) {
                    problems.push(format!(
                        "cannot remove stale {}: {e}",
                        entry.path().display()
                    ));
                }
            }
        }
    }
}

/// Saves a session's state `json` (the lock held). A file that exists is
/// written over in place, in one write: a shorter state is padded with
/// spaces (JSON allows them) so the file is never truncated, unless it
/// would be over half padding. On ext4 a rename over a file starts the new
/// file's writeback and frees the old inode (0.23-0.27 ms in a C loop on
/// this project's CI machine, against 6-7 µs for a write in place), and a
/// hook saves its session on nearly every event. A new file is a spare
/// the watcher made ([`super::spares`]) renamed into place, else written
/// beside and renamed into place, so it is never seen empty under the lock.
fn save(path: &Path, json: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let open = || std::fs::OpenOptions::new().write(true).open(path);
    let mut file = match open() {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match super::spares::take(path).then(open) {
                Some(Ok(file)) => file,
                _ => return fs::replace_fast(path, json),
            }
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let old = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    if old <= json.len() {
        return file.write_all(json);
    }
    if old > 2 * json.len() {
        drop(file);
        return fs::replace_fast(path, json);
    }
    let mut padded = Vec::with_capacity(old);
    padded.extend_from_slice(json);
    padded.resize(old, b' ');
    file.write_all(&padded)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_os = "linux")]
    use memory_rules::base::limits::SPARE_SESSION_FILES as SPARES;

    #[test]
    fn keys_are_file_names() {
        assert_eq!(file_key("0b7c-aa_1"), "0b7c-aa_1");
        assert!(file_key("../etc/passwd").starts_with("h-"));
        assert_ne!(file_key("a/b"), file_key("a\\b"));
    }

    #[test]
    fn regives_reads_the_field_as_saved_and_never_a_string_holding_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        assert!(!store.regives("s1"), "no state yet");
        let mut problems = Vec::new();
        store.update("s1", &mut problems, |s| {
            s.commit_given([(r#"docs/"regive":true.md"#, "v1")]);
        });
        assert!(!store.regives("s1"));
        store.update("s1", &mut problems, |s| s.regive = true);
        assert!(store.regives("s1"));
        store.update("s1", &mut problems, |s| s.regive = false);
        assert!(!store.regives("s1"));
        assert!(problems.is_empty(), "{problems:?}");
        std::fs::write(store.path("s1"), "{not json").unwrap();
        assert!(store.regives("s1"), "unreadable: every rule is restored");
    }

    #[test]
    fn update_saves_and_reports_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        let mut problems = Vec::new();
        store.update("s1", &mut problems, |s| s.compactions = 3);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(store.read("s1").unwrap().unwrap().compactions, 3);
        // A state an older version wrote is a fresh session, silently.
        std::fs::write(store.path("s1"), r#"{"version":1,"delivered":["a.md"]}"#).unwrap();
        assert_eq!(store.read("s1").unwrap(), None);
        std::fs::write(store.path("s1"), "{not json").unwrap();
        let delivered = store.update("s1", &mut problems, |s| s.delivered_ids());
        assert!(delivered.is_empty());
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("unreadable"), "{problems:?}");
    }

    /// The bytes of the session file and, on Unix, its inode.
    fn file_of(store: &Store, key: &str) -> (Vec<u8>, u64) {
        let path = store.path(key);
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
        #[cfg(not(unix))]
        let ino = 0;
        (std::fs::read(path).unwrap(), ino)
    }

    #[test]
    fn a_state_saved_over_a_longer_one_is_written_in_place_and_reads_back_as_saved() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        let mut problems = Vec::new();
        let subagent = |s: &mut Session, id: &str| {
            s.subagent_started(id, Some("general-purpose"));
        };
        store.update("s1", &mut problems, |s| {
            subagent(s, "a-long-subagent-id");
            subagent(s, "another-long-subagent-id");
        });
        let (first, ino) = file_of(&store, "s1");
        store.update("s1", &mut problems, |s| s.compactions = 2);
        store.update("s1", &mut problems, |s| {
            s.subagent_stopped("another-long-subagent-id");
        });
        assert!(problems.is_empty(), "{problems:?}");
        let (bytes, same_ino) = file_of(&store, "s1");
        assert_eq!(same_ino, ino, "written over in place, not replaced");
        assert_eq!(bytes.len(), first.len(), "padded, not truncated");
        assert!(bytes.ends_with(b" "), "the padding is spaces");
        let back = store.read("s1").unwrap().unwrap();
        assert_eq!(back.compactions, 2);
        let ids: Vec<&str> = back.subagents().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["a-long-subagent-id"]);
    }

    #[test]
    fn stale_sessions_are_looked_for_at_most_once_an_hour() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        std::fs::create_dir_all(&store.dir).unwrap();
        let ago = |d: Duration| SystemTime::now() - d - Duration::from_secs(60);
        let touch = |path: &Path, at: SystemTime| {
            let mut file = std::fs::OpenOptions::new();
            file.create(true).truncate(false).write(true);
            file.open(path).unwrap().set_modified(at).unwrap();
        };
        let (a, b) = (store.dir.join("a.json"), store.dir.join("b.json"));
        touch(&a, ago(STATE_STALE_AFTER));
        let mut problems = Vec::new();
        store.clean_stale(&mut problems);
        assert!(!a.exists(), "stale, removed");
        touch(&b, ago(STATE_STALE_AFTER));
        store.clean_stale(&mut problems);
        assert!(b.exists(), "looked for less than an hour ago");
        touch(&store.dir.join(".cleaned"), ago(CLEAN_STALE_EVERY));
        store.clean_stale(&mut problems);
        assert!(!b.exists(), "an hour later, looked for again");
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_new_session_is_saved_into_a_spare_file_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        let mut problems = Vec::new();
        store.update("s0", &mut problems, |s| s.compactions = 1);
        assert_eq!(store.top_up_spares(), SPARES);
        let spares = || {
            (0..SPARES)
                .filter_map(|k| std::fs::metadata(store.dir.join(format!(".spare-{k}"))).ok())
                .map(|m| std::os::unix::fs::MetadataExt::ino(&m))
                .collect::<Vec<u64>>()
        };
        let before = spares();
        store.update("s1", &mut problems, |s| s.compactions = 2);
        let (_, ino) = file_of(&store, "s1");
        assert!(before.contains(&ino), "a spare's inode");
        assert_eq!(spares().len(), SPARES - 1);
        assert_eq!(store.read("s1").unwrap().unwrap().compactions, 2);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn a_state_under_half_the_file_replaces_it_and_the_file_shrinks() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf());
        let mut problems = Vec::new();
        let ids: Vec<String> = (0..40).map(|i| format!("subagent-number-{i}")).collect();
        store.update("s1", &mut problems, |s| {
            for id in &ids {
                s.subagent_started(id, Some("general-purpose"));
            }
        });
        let (long, _) = file_of(&store, "s1");
        store.update("s1", &mut problems, |s| {
            for id in &ids {
                s.subagent_stopped(id);
            }
        });
        assert!(problems.is_empty(), "{problems:?}");
        let (short, _) = file_of(&store, "s1");
        assert!(
            short.len() * 2 < long.len(),
            "{} of {}",
            short.len(),
            long.len()
        );
        assert!(!short.ends_with(b" "));
        assert!(store.read("s1").unwrap().unwrap().subagents().is_empty());
    }
}
