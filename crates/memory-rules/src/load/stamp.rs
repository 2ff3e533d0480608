//! What reload keeps per rule file: its stamp (size, mtime in ns, inode,
//! device), a hash of its text, and the parse outcome, so an unchanged file
//! is neither read nor parsed again.

use crate::base::diagnostic::Diagnostic;
use crate::rules::parser::ParsedRule;
use crate::rules::rule_format::Format;
use crate::rules::scope::Scope;
use crate::sources::discover::RuleFile;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::SystemTime;

pub use crate::base::limits::RACY_WINDOW;

/// Saved as `[size, mtime ns since the epoch, inode, device]` (a hook
/// reads one per input: four numbers parse faster than a nested time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "[u64; 4]", from = "[u64; 4]")]
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

    /// The file's (device, inode): the same real file, whatever name or
    /// link reached it.
    pub(crate) fn identity(&self) -> (u64, u64) {
        (self.dev, self.ino)
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

impl From<Stamp> for [u64; 4] {
    fn from(s: Stamp) -> [u64; 4] {
        s.parts()
    }
}

/// A stamp saved by [`Stamp::parts`] (an mtime before the epoch was saved
/// as 0: it then differs from the file's, which is read again).
impl From<[u64; 4]> for Stamp {
    fn from([size, ns, ino, dev]: [u64; 4]) -> Stamp {
        Stamp {
            size,
            mtime: std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns),
            ino,
            dev,
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
/// form in a [`Snapshot`](crate::load::snapshot::Snapshot).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cached<R = ParsedRule> {
    scope: Scope,
    format: Format,
    id: String,
    stamp: Option<Stamp>,
    /// Hash of the file's bytes (0 when unreadable).
    hash: u64,
    pub rules: Vec<R>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// The other files the outcome depends on (a memory file's `@path`
    /// imports, found or not), with their stamps when read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    deps: Vec<(std::path::PathBuf, Option<Stamp>)>,
}

impl<R> Cached<R> {
    /// The file's stamp when it was read (`None`: it could not be stat'ed).
    pub(crate) fn stamp(&self) -> Option<Stamp> {
        self.stamp
    }

    /// The other files the outcome depends on, with their stamps.
    pub(crate) fn deps(&self) -> &[(std::path::PathBuf, Option<Stamp>)] {
        &self.deps
    }
}

impl Cached {
    /// The identity of the file a rule of this entry is read from: the
    /// entry's file, or one of its imports.
    pub(crate) fn identity_of(
        &self,
        found: &std::path::Path,
        file: &std::path::Path,
    ) -> Option<(u64, u64)> {
        if file == found {
            return self.stamp.map(|s| s.identity());
        }
        self.deps
            .iter()
            .find(|(p, _)| p == file)
            .and_then(|(_, s)| s.map(|s| s.identity()))
    }
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
            deps: self.deps.clone(),
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
            deps: self.deps,
        })
    }
}

/// The file's entry for this scan, and whether it is the same as before.
/// Reads and parses (and counts in `reparsed`) only when the stamp changed or
/// is racy; a re-read file with the same bytes counts as the same. An
/// unchanged entry is shared, not copied.
pub fn refresh(
    found: &RuleFile,
    before: Option<(&Arc<Cached>, Option<SystemTime>)>,
    reparsed: &mut usize,
) -> (Arc<Cached>, bool) {
    let stamp = Stamp::of(&found.path);
    let same_place =
        |c: &Cached| c.id == found.id && c.scope == found.scope && c.format == found.format;
    if let Some((c, scanned_at)) = before {
        let deps_same = c
            .deps
            .iter()
            .all(|(p, s)| Stamp::of(p) == *s && !s.is_some_and(|s| s.is_racy(scanned_at)));
        if same_place(c)
            && stamp.is_some()
            && c.stamp == stamp
            && !stamp.is_some_and(|s| s.is_racy(scanned_at))
            && deps_same
        {
            return (Arc::clone(c), true);
        }
    }
    *reparsed += 1;
    let (text, outcome) = crate::sources::discover::read_and_parse(found);
    let hash = text.map_or(0, |t| hash_of(t.as_bytes()));
    let (rules, diagnostics) = (outcome.rules, outcome.diagnostics);
    let deps: Vec<_> = outcome
        .deps
        .into_iter()
        .map(|p| {
            let s = Stamp::of(&p);
            (p, s)
        })
        .collect();
    // Same bytes, same imports read: the same outcome.
    let same = before.is_some_and(|(c, _)| {
        same_place(c) && c.hash == hash && c.diagnostics == diagnostics && c.deps == deps
    });
    let entry = Cached {
        scope: found.scope,
        format: found.format,
        id: found.id.clone(),
        stamp,
        hash,
        rules,
        diagnostics,
        deps,
    };
    (Arc::new(entry), same)
}

fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}
