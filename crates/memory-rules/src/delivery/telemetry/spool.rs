//! The spool: records waiting to be shipped, in `<state dir>/telemetry/`.
//!
//! - `spool.jsonl`: one OTLP/JSON `LogsData` per line (the Collector's
//!   `otlpjsonfile` receiver reads it as it is). A writer appends a line
//!   with one `write` under a shared lock (`spool.lock`), so writers never
//!   wait for each other.
//! - `progress.json`: how far the spool was shipped (a byte offset, only
//!   moved past lines a receiver answered 2xx to), when to try again after
//!   a 429/503, the last error, counts. Replaced atomically.
//! - Bounded by [`MAX_SPOOL_BYTES`]: a writer that would pass it takes the
//!   lock exclusively and keeps the newest unsent lines that fit in half,
//!   the first of them a [`names::RECORDS_DROPPED`] record counting the
//!   records dropped. When everything was shipped the file is emptied.
//! - `shipper.lock`: held by a lingering shipper (`telemetry ship
//!   --linger`, the one a hook starts) for its whole life, so a hook that
//!   finds it held starts no other ([`Spool::shipper_running`]).
//! - Never in the way: every call returns an error for the caller to
//!   report once and go on; a corrupt line is skipped (and counted), a
//!   corrupt progress file is read as "nothing shipped" (a receiver may get
//!   records again, with the same ids).

use super::encode::{self, Origin};
use super::record::{names, Record};
use crate::base::limits::{MAX_SPOOL_BYTES, MAX_SPOOL_LINE_BYTES, SPOOL_LOCK_WAIT_MS};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const SPOOL_FILE: &str = "spool.jsonl";
pub const PROGRESS_FILE: &str = "progress.json";
const LOCK_FILE: &str = "spool.lock";
pub(super) const SHIP_LOCK_FILE: &str = "ship.lock";
const SHIPPER_LOCK_FILE: &str = "shipper.lock";

/// What the shipper keeps between runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Progress {
    /// Bytes of `spool.jsonl` shipped (acknowledged with a 2xx).
    pub offset: u64,
    /// Bumped when the file is rewritten (compacted or emptied): an offset
    /// taken before belongs to the old file.
    pub generation: u64,
    /// No export before this time (ms since the epoch): a 429/503's
    /// `Retry-After`, or the backoff after a failure.
    pub retry_at_ms: u64,
    /// Failures in a row (the backoff doubles with each).
    pub failures: u32,
    pub last_error: Option<String>,
    /// Records shipped, dropped (the spool was full) and lines skipped as
    /// corrupt, since the spool was made.
    pub shipped: u64,
    pub dropped: u64,
    pub corrupt: u64,
    /// When the last export succeeded (ms since the epoch).
    pub last_shipped_ms: u64,
}

/// The spool's state, for `doctor`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub dir: PathBuf,
    pub bytes: u64,
    pub unsent_bytes: u64,
    pub progress: Progress,
    /// Why the spool or its progress could not be read.
    pub problem: Option<String>,
}

/// The spool in one directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spool {
    dir: PathBuf,
}

impl Spool {
    /// The spool of a state directory (`<state dir>/telemetry`).
    pub fn in_state_dir(state_dir: &Path) -> Spool {
        Spool::at(state_dir.join("telemetry"))
    }

    pub fn at(dir: impl Into<PathBuf>) -> Spool {
        Spool { dir: dir.into() }
    }

    /// The lingering shipper's lock, held while the file returned lives;
    /// `None` when another shipper holds it (or the folder cannot be made).
    pub fn hold_shipper(&self) -> Option<File> {
        std::fs::create_dir_all(&self.dir).ok()?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join(SHIPPER_LOCK_FILE))
            .ok()?;
        file.try_lock().ok()?;
        Some(file)
    }

    /// Whether a lingering shipper holds its lock now: it will ship what is
    /// appended before it lets go (it looks once more after).
    pub fn shipper_running(&self) -> bool {
        let Ok(file) = OpenOptions::new()
            .write(true)
            .open(self.dir.join(SHIPPER_LOCK_FILE))
        else {
            return false;
        };
        matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn file(&self) -> PathBuf {
        self.dir.join(SPOOL_FILE)
    }

    /// Appends `records` as one line (nothing for none).
    pub fn append(&self, origin: &Origin, records: &[Record]) -> io::Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let mut line = encode::json_line(origin, records);
        if line.len() + 1 > MAX_SPOOL_LINE_BYTES {
            return Err(io::Error::other(format!(
                "a telemetry line of {} bytes is over {MAX_SPOOL_LINE_BYTES}; dropped",
                line.len()
            )));
        }
        line.push(b'\n');
        std::fs::create_dir_all(&self.dir)?;
        let lock = self.lock(false)?;
        let size = std::fs::metadata(self.file()).map_or(0, |m| m.len());
        if size + line.len() as u64 > MAX_SPOOL_BYTES {
            drop(lock);
            let _lock = self.lock(true)?;
            self.compact(origin, MAX_SPOOL_BYTES / 2)?;
            return self.write_line(&line);
        }
        self.write_line(&line)
    }

    fn write_line(&self, line: &[u8]) -> io::Result<()> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.file())?;
        file.write_all(line)
    }

    /// The lock on the spool file: shared for a writer, exclusive for a
    /// rewrite; waited for at most [`SPOOL_LOCK_WAIT_MS`]. Where the file
    /// system cannot lock, none is taken.
    pub(super) fn lock(&self, exclusive: bool) -> io::Result<Option<File>> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join(LOCK_FILE))?;
        let start = Instant::now();
        loop {
            let tried = if exclusive {
                file.try_lock()
            } else {
                file.try_lock_shared()
            };
            match tried {
                Ok(()) => return Ok(Some(file)),
                Err(std::fs::TryLockError::Error(e)) if e.kind() == io::ErrorKind::Unsupported => {
                    return Ok(None)
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
                Err(std::fs::TryLockError::WouldBlock) => {}
            }
            if start.elapsed() > Duration::from_millis(SPOOL_LOCK_WAIT_MS) {
                return Err(io::Error::other(
                    "the telemetry spool is busy; record dropped",
                ));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Keeps the newest unsent lines that fit in `keep` bytes, after a
    /// record of how many were dropped (under the exclusive lock).
    fn compact(&self, origin: &Origin, keep: u64) -> io::Result<()> {
        let mut progress = self.progress();
        let bytes = self.read_from(progress.offset)?;
        let lines: Vec<&str> = bytes.split_inclusive('\n').collect();
        let mut kept = 0u64;
        let mut first = lines.len();
        while first > 0 && kept + lines[first - 1].len() as u64 <= keep {
            first -= 1;
            kept += lines[first].len() as u64;
        }
        let dropped: u64 = lines[..first]
            .iter()
            .map(|l| encode::parse_line(l).map_or(0, |d| encode::record_count(&d) as u64))
            .sum();
        let mut text = Vec::new();
        if dropped > 0 {
            let count =
                Record::new(names::RECORDS_DROPPED).with("wave_rules.dropped.count", dropped);
            text = encode::json_line(origin, &[count]);
            text.push(b'\n');
        }
        lines[first..]
            .iter()
            .for_each(|l| text.extend_from_slice(l.as_bytes()));
        progress.offset = 0;
        progress.generation += 1;
        progress.dropped += dropped;
        self.save_progress(&progress)?;
        crate::base::fs::replace_fast(&self.file(), &text)
    }

    /// The spool's text from `offset` (the whole file if shorter).
    fn read_from(&self, offset: u64) -> io::Result<String> {
        let mut file = match File::open(self.file()) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(String::new()),
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        file.seek(SeekFrom::Start(if offset > len { 0 } else { offset }))?;
        let mut bytes = Vec::new();
        file.take(MAX_SPOOL_BYTES * 2).read_to_end(&mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The progress (the default when absent or unreadable).
    pub fn progress(&self) -> Progress {
        std::fs::read(self.dir.join(PROGRESS_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    pub(super) fn save_progress(&self, progress: &Progress) -> io::Result<()> {
        let bytes = serde_json::to_vec(progress).map_err(io::Error::other)?;
        crate::base::fs::replace_fast(&self.dir.join(PROGRESS_FILE), &bytes)
    }

    /// Up to `max_bytes` of whole lines not shipped yet (at least one line
    /// if there is one), from the offset of `progress`: the lines and the
    /// offset just past them.
    pub(super) fn pending(
        &self,
        progress: &Progress,
        max_bytes: usize,
    ) -> io::Result<(Vec<String>, u64)> {
        let _lock = self.lock(false)?;
        let len = std::fs::metadata(self.file()).map_or(0, |m| m.len());
        let start = if progress.offset > len {
            0
        } else {
            progress.offset
        };
        let text = self.read_from(start)?;
        let mut lines = Vec::new();
        let mut end = start;
        let mut size = 0;
        for line in text.split_inclusive('\n') {
            if !line.ends_with('\n') || (!lines.is_empty() && size + line.len() > max_bytes) {
                break;
            }
            size += line.len();
            end += line.len() as u64;
            lines.push(line.trim_end().to_string());
        }
        Ok((lines, end))
    }

    /// Marks the spool shipped up to `end` (taken at `generation`), under
    /// the exclusive lock; a spool shipped to its end is emptied. False when
    /// the file was rewritten meanwhile (the lines stay, to go again).
    pub(super) fn mark_shipped(
        &self,
        generation: u64,
        end: u64,
        update: impl FnOnce(&mut Progress),
    ) -> io::Result<bool> {
        let _lock = self.lock(true)?;
        let mut progress = self.progress();
        update(&mut progress);
        if progress.generation != generation {
            self.save_progress(&progress)?;
            return Ok(false);
        }
        let len = std::fs::metadata(self.file()).map_or(0, |m| m.len());
        progress.offset = end;
        if end >= len {
            OpenOptions::new()
                .write(true)
                .open(self.file())?
                .set_len(0)?;
            progress.offset = 0;
            progress.generation += 1;
        }
        self.save_progress(&progress)?;
        Ok(true)
    }

    /// The spool's state, for `doctor`.
    pub fn state(&self) -> State {
        let mut state = State {
            dir: self.dir.clone(),
            ..State::default()
        };
        match std::fs::metadata(self.file()) {
            Ok(m) => state.bytes = m.len(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => state.problem = Some(format!("{}: {e}", self.file().display())),
        }
        let raw = std::fs::read(self.dir.join(PROGRESS_FILE));
        match raw {
            Ok(b) => match serde_json::from_slice(&b) {
                Ok(p) => state.progress = p,
                Err(e) => {
                    state.problem = Some(format!(
                        "{}: not readable ({e}); read as nothing shipped",
                        self.dir.join(PROGRESS_FILE).display()
                    ))
                }
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                state.problem = Some(format!("{}: {e}", self.dir.join(PROGRESS_FILE).display()))
            }
        }
        let offset = if state.progress.offset > state.bytes {
            0
        } else {
            state.progress.offset
        };
        state.unsent_bytes = state.bytes - offset;
        state
    }
}
