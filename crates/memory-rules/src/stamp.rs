//! What reload keeps per rule file: its stamp (size, mtime in ns, inode,
//! device), a hash of its text, and the parse outcome, so an unchanged file
//! is neither read nor parsed again.

use crate::diagnostic::Diagnostic;
use crate::discover::Found;
use crate::format::Format;
use crate::parse::ParsedRule;
use crate::scope::Scope;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// A file whose mtime is this close to (or after) the previous scan may have
/// changed within the same timestamp tick: it is read again and compared.
/// Two seconds covers the coarsest common file systems (FAT).
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    size: u64,
    mtime: SystemTime,
    ino: u64,
    dev: u64,
}

impl Stamp {
    /// The stamp of the file at `path` (links followed); `None` when it
    /// cannot be read.
    pub fn of(path: &std::path::Path) -> Option<Stamp> {
        Stamp::from_metadata(&std::fs::metadata(path).ok()?)
    }

    /// The stamp of a file's metadata (a directory listing's, which costs
    /// no lookup of the path).
    pub fn from_metadata(m: &std::fs::Metadata) -> Option<Stamp> {
        let (ino, dev) = inode(m);
        Some(Stamp {
            size: m.len(),
            mtime: m.modified().ok()?,
            ino,
            dev,
        })
    }

    /// When the file was last modified.
    pub fn mtime(&self) -> SystemTime {
        self.mtime
    }

    /// `[size, mtime in ns since the epoch, inode, device]`: what a saved
    /// index keeps (the memory search index, [`crate::memory`]).
    pub fn parts(&self) -> [u64; 4] {
        let ns = self
            .mtime
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos().min(u64::MAX as u128) as u64);
        [self.size, ns, self.ino, self.dev]
    }

    /// The file may have changed within the timestamp tick of a scan made at
    /// `scanned_at` (or the time of that scan is unknown).
    pub fn is_racy(&self, scanned_at: Option<SystemTime>) -> bool {
        match scanned_at.and_then(|t| t.checked_sub(RACY_WINDOW)) {
            Some(limit) => self.mtime >= limit,
            None => true,
        }
    }
}

/// `size mtime-ns inode device`: equal texts, equal stamps.
impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ns = self
            .mtime
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        write!(f, "{} {ns} {} {}", self.size, self.ino, self.dev)
    }
}

#[cfg(unix)]
fn inode(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.ino(), m.dev())
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// One file's cached outcome: its rules are parsed rules, or their saved
/// form in a [`Snapshot`](crate::Snapshot).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cached<R = ParsedRule> {
    scope: Scope,
    format: Format,
    id: String,
    stamp: Option<Stamp>,
    /// Hash of the file's bytes (0 when unreadable).
    hash: u64,
    pub rules: Vec<R>,
    pub diagnostics: Vec<Diagnostic>,
}

impl<R> Cached<R> {
    /// The same entry with each rule mapped.
    pub(crate) fn map_rules<S>(&self, f: impl FnMut(&R) -> S) -> Cached<S> {
        Cached {
            scope: self.scope,
            format: self.format,
            id: self.id.clone(),
            stamp: self.stamp,
            hash: self.hash,
            rules: self.rules.iter().map(f).collect(),
            diagnostics: self.diagnostics.clone(),
        }
    }

    /// The same entry with each rule mapped, or the first error.
    pub(crate) fn try_map_rules<S, E>(
        self,
        f: impl FnMut(R) -> Result<S, E>,
    ) -> Result<Cached<S>, E> {
        Ok(Cached {
            scope: self.scope,
            format: self.format,
            id: self.id,
            stamp: self.stamp,
            hash: self.hash,
            rules: self.rules.into_iter().map(f).collect::<Result<_, _>>()?,
            diagnostics: self.diagnostics,
        })
    }
}

/// The file's entry for this scan, and whether it is the same as before.
/// Reads and parses (and counts in `reparsed`) only when the stamp changed or
/// is racy; a re-read file with the same bytes counts as the same. An
/// unchanged entry is shared, not copied.
pub fn refresh(
    found: &Found,
    before: Option<(&Arc<Cached>, Option<SystemTime>)>,
    reparsed: &mut usize,
) -> (Arc<Cached>, bool) {
    let stamp = Stamp::of(&found.path);
    let same_place =
        |c: &Cached| c.id == found.id && c.scope == found.scope && c.format == found.format;
    if let Some((c, scanned_at)) = before {
        if same_place(c)
            && stamp.is_some()
            && c.stamp == stamp
            && !stamp.is_some_and(|s| s.is_racy(scanned_at))
        {
            return (Arc::clone(c), true);
        }
    }
    *reparsed += 1;
    let (text, outcome) = crate::discover::read_and_parse(found);
    let hash = text.map_or(0, |t| hash_of(t.as_bytes()));
    let (rules, diagnostics) = (outcome.rules, outcome.diagnostics);
    let same = before
        .is_some_and(|(c, _)| same_place(c) && c.hash == hash && c.diagnostics == diagnostics);
    let entry = Cached {
        scope: found.scope,
        format: found.format,
        id: found.id.clone(),
        stamp,
        hash,
        rules,
        diagnostics,
    };
    (Arc::new(entry), same)
}

fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}
