//! A discovery's result saved with what it was read from, so that a process
//! started afresh for every event (a hook) can tell, without walking or
//! reading any rules folder, that nothing changed, and then use the rule
//! set as it was built: no walk, no fold, no provenance, no parse of the
//! per-file entries.
//!
//! The saved form ([`Loaded::to_bytes`](crate::load::Loaded::to_bytes),
//! snapshot version 10) is five parts in one file:
//!
//! 1. the check (JSON, one line): the version, when the files were scanned,
//!    the config (`Debug`), the workdir, the layers' fingerprint and
//!    diagnostics, and the lengths of the next three parts; then a newline;
//! 2. the rule set's rules (with their origins and compiled patterns) in
//!    order, as postcard ([`crate::load::compact`]);
//! 3. every diagnostic (JSON);
//! 4. the inputs (each rules root, each directory of a rules folder the
//!    discovery listed, each rule file, each `@path` import): their paths,
//!    each followed by a NUL, then their stamps, [`STAMP_BYTES`] each (size,
//!    mtime in ns, inode, device, little-endian; every bit set for an
//!    absent one); then a newline. They come after the rules, and not as
//!    JSON strings, because a hook a watcher vouched for never reads them
//!    (at 1,000 rules they are a third of what the check and the rules
//!    take: pages that every event would fault in and scan), and one that
//!    stats them has no escape to look for;
//! 5. the [`Snapshot`] (every file's entry, JSON), read only when the check
//!    fails, to reload only the files that changed.
//!
//! What is checked: every input is stat'ed (not read, not listed). A file
//! added to, removed from or renamed in a listed directory changes that
//! directory's mtime; a file edited in place changes its own stamp. A
//! stamp within the racy window ([`RACY_WINDOW`](crate::load::stamp::RACY_WINDOW)) of the scan (or none: a file that could not
//! be stat'ed) is not trusted, and neither is a discovery that walked a
//! project tree (nested `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, nested
//! `.cursor/rules`: its inputs are the whole tree and its ignore files), so
//! those reload from the snapshot as before. The layers (packs, policy,
//! `disable`) are computed again and compared. The diagnostics given back
//! are those of the last full discovery: a near miss added in the project
//! since (a misplaced rules folder, a warning) shows at the next one.

use crate::base::diagnostic::Diagnostic;
use crate::base::workdir::Workdir;
use crate::load::compact;
use crate::load::folder_stats::FolderStats;
use crate::load::rule_index::RulesNeeded;
use crate::load::snapshot::{SavedRule, Snapshot, SnapshotError, VERSION};
use crate::load::stamp::Stamp;
use crate::load::Loaded;
use crate::rules::rule_set::{RuleCensus, RuleSet};
use crate::sources::packs;
use crate::sources::source::Config;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

/// What a saved discovery gives back ([`Restored::from_bytes`]).
#[derive(Debug)]
pub enum Restored {
    /// Nothing it was read from changed: its rules and diagnostics.
    Fresh {
        rules: Arc<RuleSet>,
        diagnostics: Vec<Diagnostic>,
        /// The rules saved, counted by format: more than `rules` holds
        /// when only those the [`RulesNeeded`] took were restored.
        saved: RuleCensus,
    },
    /// Something changed, or cannot be told without a walk: the snapshot to
    /// [`reload_from`](crate::load::reload_from).
    Stale(Snapshot),
}

/// The first line: what the result was read from, and where the parts
/// after it end.
#[derive(Serialize, Deserialize)]
struct Check {
    version: u32,
    scanned_at: Option<SystemTime>,
    /// The config the discovery ran with (`Debug`): another config's file
    /// is never fresh.
    config: String,
    workdir: PathBuf,
    layers: String,
    layer_diagnostics: Vec<Diagnostic>,
    /// The rules' length in bytes (postcard).
    rules_len: usize,
    /// The diagnostics' length in bytes (JSON).
    diagnostics_len: usize,
    /// The length in bytes of the inputs' paths (each followed by a NUL);
    /// `None`: the discovery walked a project tree (not checkable by
    /// stamps), or an input's stamp was racy (never fresh).
    inputs_len: Option<usize>,
    /// The length in bytes of the inputs' stamps ([`STAMP_BYTES`] each).
    stamps_len: usize,
}

/// A saved discovery taken apart ([`Saved::of`]): its check, and each part
/// after it, not yet read.
struct Saved<'a> {
    check: Check,
    rules: &'a [u8],
    diagnostics: &'a [u8],
    /// The inputs' paths; `None` when not checkable by stamps.
    paths: Option<&'a [u8]>,
    stamps: &'a [u8],
    /// What follows the stamps' newline.
    snapshot: &'a [u8],
}

/// The saved form of `loaded` (see the module documentation).
pub(crate) fn to_bytes(loaded: &Loaded) -> Result<Vec<u8>, SnapshotError> {
    let save = |source| SnapshotError::Save { source };
    let set = &loaded.rules;
    let saved = set.rules().iter().zip(set.patterns());
    let rules = compact::to_bytes(saved.map(|(r, p)| SavedRule::of(r, p)).collect())
        .map_err(|e| save(serde::ser::Error::custom(e)))?;
    let diagnostics = serde_json::to_vec(&loaded.diagnostics).map_err(save)?;
    let snapshot = loaded.snapshot.to_bytes()?;
    let (paths, stamps) = match inputs(loaded) {
        Some(all) => joined(&all, loaded.snapshot.scanned_at).map_err(save)?,
        None => (None, Vec::new()),
    };
    let check = Check {
        version: VERSION,
        scanned_at: loaded.snapshot.scanned_at,
        config: loaded.config.clone(),
        workdir: loaded.snapshot.workdir.clone(),
        layers: loaded.snapshot.layers.clone(),
        layer_diagnostics: loaded.layer_diagnostics.clone(),
        rules_len: rules.len(),
        diagnostics_len: diagnostics.len(),
        inputs_len: paths.as_ref().map(String::len),
        stamps_len: stamps.len(),
    };
    let mut out = serde_json::to_vec(&check).map_err(save)?;
    out.push(b'\n');
    out.extend_from_slice(&rules);
    out.extend_from_slice(&diagnostics);
    out.extend_from_slice(paths.unwrap_or_default().as_bytes());
    out.extend_from_slice(&stamps);
    out.push(b'\n');
    out.extend_from_slice(&snapshot);
    Ok(out)
}

/// Every input with its stamp: the listed directories as stat'ed now (the
/// racy rule covers a change between the listing and now), the files and
/// their imports as stat'ed before they were read.
fn inputs(loaded: &Loaded) -> Option<Vec<(PathBuf, Option<Stamp>)>> {
    let listed = loaded.listed.as_ref()?;
    let mut out: Vec<(PathBuf, Option<Stamp>)> =
        listed.iter().map(|p| (p.clone(), Stamp::of(p))).collect();
    for (path, entry) in &loaded.snapshot.files {
        out.push((path.clone(), entry.stamp()));
        out.extend(entry.deps().iter().cloned());
    }
    // By path: the files of one folder one after another, as FolderStats
    // stats them best.
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Some(out)
}

/// The inputs as they are saved: their paths, each followed by a NUL, and
/// their stamps; no paths when a stamp is racy (it is never trusted, so
/// the check could never pass). An error for a path that is not UTF-8.
fn joined(
    inputs: &[(PathBuf, Option<Stamp>)],
    scanned_at: Option<SystemTime>,
) -> Result<(Option<String>, Vec<u8>), serde_json::Error> {
    let mut paths = String::new();
    let mut stamps = Vec::with_capacity(inputs.len() * STAMP_BYTES);
    for (path, stamp) in inputs {
        let text = path
            .to_str()
            .ok_or_else(|| serde::ser::Error::custom("a path that is not UTF-8"))?;
        paths.push_str(text);
        paths.push('\0');
        if stamp.is_some_and(|s| s.is_racy(scanned_at)) {
            return Ok((None, Vec::new()));
        }
        stamps.extend_from_slice(&stamp_bytes(stamp.as_ref()));
    }
    Ok((Some(paths), stamps))
}

/// The bytes of one saved stamp.
const STAMP_BYTES: usize = 32;

/// The saved stamp of an absent input: every bit set (no file is 2^64 - 1
/// bytes long).
const ABSENT: [u8; STAMP_BYTES] = [0xff; STAMP_BYTES];

/// A stamp as saved: its four parts, little-endian; [`ABSENT`] for none.
fn stamp_bytes(stamp: Option<&Stamp>) -> [u8; STAMP_BYTES] {
    let Some(stamp) = stamp else {
        return ABSENT;
    };
    let mut out = [0; STAMP_BYTES];
    for (bytes, part) in out.chunks_exact_mut(8).zip(stamp.parts()) {
        bytes.copy_from_slice(&part.to_le_bytes());
    }
    out
}

impl Restored {
    /// The saved discovery in `bytes` for `config`: fresh when every input
    /// has the stamp it had (none racy) and the layers are the same, else
    /// its snapshot. An error for anything that is no saved discovery of
    /// this version.
    pub fn from_bytes(config: &Config, bytes: &[u8]) -> Result<Restored, SnapshotError> {
        Restored::restore(config, bytes, false, RulesNeeded::ALL)
    }

    /// [`Restored::from_bytes`] for a caller that knows none of the inputs
    /// changed since their stamps last held (a watcher that saw no event on
    /// them since it checked: [`Restored::inputs_of`]): they are not stat'ed again.
    /// The setup still is, and a discovery not checkable by stamps is still
    /// stale.
    pub fn from_bytes_unchanged(config: &Config, bytes: &[u8]) -> Result<Restored, SnapshotError> {
        Restored::restore(config, bytes, true, RulesNeeded::ALL)
    }

    /// [`Restored::from_bytes`] (or, `unchanged`, [`Restored::from_bytes_unchanged`])
    /// with only the rules `need` takes: a rule set in part, for an event
    /// that cannot activate the others (see [`RulesNeeded`]).
    pub fn restore(
        config: &Config,
        bytes: &[u8],
        unchanged: bool,
        need: RulesNeeded,
    ) -> Result<Restored, SnapshotError> {
        let saved = Saved::of(bytes)?;
        let workdir = Workdir::new(&config.workdir);
        let files: Option<Vec<String>> = need.files.map(|files| {
            let relative = files.iter().filter_map(|f| workdir.relative(f));
            relative.map(|r| r.into_owned()).collect()
        });
        // The index matches workdir-relative paths.
        let need = RulesNeeded {
            files: files.as_deref(),
            ..need
        };
        let decode = || compact::from_bytes(saved.rules, need);
        let decoded = if unchanged {
            (saved.paths.is_some() && saved.check.same_setup(config)).then(decode)
        } else {
            saved.fresh_while(config, decode)
        };
        if let Some(restored) = decoded {
            let restored = restored?;
            let diagnostics = serde_json::from_slice(saved.diagnostics).map_err(not_saved)?;
            return Ok(Restored::Fresh {
                rules: Arc::new(RuleSet::build_ordered(
                    restored.rules,
                    restored.patterns,
                    workdir,
                )),
                diagnostics,
                saved: restored.saved,
            });
        }
        Ok(Restored::Stale(Snapshot::from_bytes(saved.snapshot)?))
    }
}

/// The error for bytes that are no saved discovery.
fn not_saved(source: serde_json::Error) -> SnapshotError {
    SnapshotError::NotASnapshot { source }
}

/// From this many inputs on, a hook stats them on a second thread while
/// it decodes the rules: at 1,000 rules the stats (one `fstatat` each) cost
/// as much as the decoding or more, and neither needs the other. Below it,
/// starting a thread costs more than it overlaps.
const PARALLEL_CHECK_INPUTS: usize = 256;

/// The inputs a thread claims at a time when two check them: the files of
/// one folder stay together (the inputs are sorted by path), and the claims
/// stay few.
const CHECK_CHUNK: usize = 32;

impl<'a> Saved<'a> {
    /// The check at the start of `bytes` and the parts after it; an error
    /// for anything that is no saved discovery of this version, or one cut
    /// short.
    fn of(bytes: &'a [u8]) -> Result<Saved<'a>, SnapshotError> {
        let first = bytes
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(bytes.len());
        let check: Check = serde_json::from_slice(&bytes[..first]).map_err(not_saved)?;
        if check.version != VERSION {
            return Err(SnapshotError::Version {
                version: check.version,
            });
        }
        let mut rest = bytes.get(first + 1..).unwrap_or_default();
        let mut take = |len: usize| match rest.split_at_checked(len) {
            Some((part, after)) => {
                rest = after;
                Ok(part)
            }
            None => Err(not_saved(serde::de::Error::custom("truncated"))),
        };
        Ok(Saved {
            rules: take(check.rules_len)?,
            diagnostics: take(check.diagnostics_len)?,
            paths: check.inputs_len.map(&mut take).transpose()?,
            stamps: take(check.stamps_len)?,
            snapshot: rest.get(1..).unwrap_or_default(),
            check,
        })
    }
}

/// What a saved discovery was read from ([`Restored::inputs_of`]), for a
/// watcher that vouches for it ([`Restored::from_bytes_unchanged`]): every
/// input's path (rules roots, listed directories, rule files, imports).
#[derive(Debug)]
pub struct SavedInputs {
    pub paths: Vec<PathBuf>,
    /// Whether each input was absent at the save (a rules root not there).
    pub absent: Vec<bool>,
}

impl Restored {
    /// The inputs of the saved discovery in `bytes`; `None` for one that is
    /// not checkable by stamps (a project walk, a racy stamp) or no saved
    /// discovery.
    pub fn inputs_of(bytes: &[u8]) -> Option<SavedInputs> {
        let saved = Saved::of(bytes).ok()?;
        let inputs = saved.inputs()?;
        let absent = inputs
            .stamps
            .chunks_exact(STAMP_BYTES)
            .map(|s| s == ABSENT)
            .collect();
        let paths = inputs.paths.iter().map(PathBuf::from).collect();
        Some(SavedInputs { paths, absent })
    }

    /// Whether every input of the saved discovery in `bytes` holds its
    /// stamp now (stat'ed, one thread); false for one that is not checkable.
    pub fn inputs_hold(bytes: &[u8]) -> bool {
        Saved::of(bytes)
            .ok()
            .and_then(|saved| saved.inputs().map(|inputs| inputs.hold()))
            .unwrap_or(false)
    }
}

impl Saved<'_> {
    /// `decode`'s result when the saved discovery is fresh
    /// ([`Check::is_fresh`]), else `None`. With many inputs the check runs
    /// on a second thread while `decode` runs here, and this thread then
    /// takes its share of the stats still unclaimed (the stats cost more
    /// than the decoding: on a virtual machine, about 2.5 ms against 1 ms
    /// at 1,000 rules); the decoding is dropped when the check fails. With
    /// few inputs, or when no thread can be started, the check runs first
    /// and `decode` only when it holds.
    fn fresh_while<T>(&self, config: &Config, decode: impl FnOnce() -> T) -> Option<T> {
        if self.stamps.len() / STAMP_BYTES < PARALLEL_CHECK_INPUTS {
            return self.is_fresh(config).then(decode);
        }
        let inputs = self.inputs()?;
        std::thread::scope(|scope| {
            let check = std::thread::Builder::new()
                .name("wave-rules-check".into())
                .spawn_scoped(scope, || self.holds(config, &inputs));
            match check {
                Ok(check) => {
                    let decoded = decode();
                    let here = inputs.hold();
                    let there = check.join().unwrap_or(false);
                    (here && there).then_some(decoded)
                }
                Err(_) => self.holds(config, &inputs).then(decode),
            }
        })
    }

    /// Same workdir, same layers, and every input's stamp the same (none
    /// was racy at the save).
    fn is_fresh(&self, config: &Config) -> bool {
        self.inputs()
            .is_some_and(|inputs| self.holds(config, &inputs))
    }

    /// The same setup as at the save ([`Check::same_setup`]) and `inputs`
    /// holding their stamps ([`Inputs::hold`]); a different setup stops the
    /// other thread's share too.
    fn holds(&self, config: &Config, inputs: &Inputs) -> bool {
        if !self.check.same_setup(config) {
            inputs.stale.store(true, Ordering::Relaxed);
            return false;
        }
        inputs.hold()
    }

    /// The inputs with their saved stamps, to check; `None` when there is
    /// nothing to check by stamps (never fresh) or the two lists differ.
    fn inputs(&self) -> Option<Inputs<'_>> {
        let paths = std::str::from_utf8(self.paths?).ok()?;
        let paths: Vec<&str> = paths.split_terminator('\0').collect();
        (paths.len() * STAMP_BYTES == self.stamps.len()).then(|| Inputs {
            paths,
            stamps: self.stamps,
            next: AtomicUsize::new(0),
            stale: AtomicBool::new(false),
        })
    }
}

impl Check {
    /// The same workdir, config and layers as at the save.
    fn same_setup(&self, config: &Config) -> bool {
        if self.workdir != config.workdir
            || self.scanned_at.is_none()
            || self.config != format!("{config:?}")
        {
            return false;
        }
        let layers = packs::layers(config);
        layers.diagnostics == self.layer_diagnostics
            && super::layers_fingerprint(&layers) == self.layers
    }
}

/// The inputs of a [`Saved`] discovery, claimed [`CHECK_CHUNK`] at a time by the
/// threads that check them; the first changed input stops every thread.
struct Inputs<'a> {
    paths: Vec<&'a str>,
    stamps: &'a [u8],
    next: AtomicUsize,
    stale: AtomicBool,
}

impl Inputs<'_> {
    /// Whether every input this thread claimed holds its saved stamp, and
    /// no other thread found one that changed.
    fn hold(&self) -> bool {
        let mut stats = FolderStats::default();
        loop {
            if self.stale.load(Ordering::Relaxed) {
                return false;
            }
            let start = self.next.fetch_add(CHECK_CHUNK, Ordering::Relaxed);
            if start >= self.paths.len() {
                return true;
            }
            let end = (start + CHECK_CHUNK).min(self.paths.len());
            let saved =
                self.stamps[start * STAMP_BYTES..end * STAMP_BYTES].chunks_exact(STAMP_BYTES);
            let same = self.paths[start..end]
                .iter()
                .zip(saved)
                .all(|(path, saved)| holds(&mut stats, std::path::Path::new(path), saved));
            if !same {
                self.stale.store(true, Ordering::Relaxed);
                return false;
            }
        }
    }
}

/// Whether `path` is as `saved` says: absent (a rules root that was not
/// there) and still absent, or present with the same stamp.
fn holds(stats: &mut FolderStats, path: &std::path::Path, saved: &[u8]) -> bool {
    if saved == ABSENT {
        return !stats.exists(path);
    }
    stats
        .stamp(path)
        .is_some_and(|now| stamp_bytes(Some(&now)) == saved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_its_four_parts_little_endian_and_none_is_every_bit_set() {
        let stamp = Stamp::from([1, 0x1234_5678_9abc_def0, 0xff, u64::MAX]);
        let bytes = stamp_bytes(Some(&stamp));
        assert_eq!(bytes[..8], [1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            bytes[8..16],
            [0xf0, 0xde, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12]
        );
        assert_eq!(bytes[16..24], [0xff, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes[24..], [0xff; 8]);
        assert_eq!(stamp_bytes(None), ABSENT);
        assert_ne!(bytes, ABSENT);
    }
}
