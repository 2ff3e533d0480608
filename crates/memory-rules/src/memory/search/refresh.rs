//! Bringing a scope's saved index up to date with its topic files.
//!
//! Each topic file is stat'ed and its stamp compared with the one the saved
//! index recorded ([`TopicPlanner`]): an unchanged topic is carried over
//! whole; a changed one (or one whose mtime is too close to the last scan to
//! trust, and whose bytes changed) is read and indexed again, its unchanged
//! entries carried. The index is saved again only when something changed.

use super::index_builder::{empty_index, IndexBuilder};
use super::index_file::{load_saved, ScopeIndex};
use super::INDEX_NAME;
use crate::base::fs::FileBytes;
use crate::base::limits::{MAX_MEMORY_ENTRIES, MAX_MEMORY_TOPICS, MAX_MEMORY_TOPIC_BYTES};
use crate::memory::entry;
use crate::memory::memory_md::TopicList;
use crate::memory::store::{MemoryScope, MemoryStore, INDEX_FILE};
use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

/// A topic file as found on disk: its name and stamp.
struct TopicFileStamp {
    name: String,
    stamp: [u64; 4],
    mtime: SystemTime,
}

/// The topic files of a scope's directory, sorted, at most
/// [`MAX_MEMORY_TOPICS`]: `*.md` but `MEMORY.md`, regular files only (no
/// links), no hidden files.
fn topic_files(dir: &Path) -> std::io::Result<(Vec<TopicFileStamp>, bool)> {
    let mut out = Vec::new();
    let mut over = false;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".md") || name == INDEX_FILE || name.starts_with('.') {
            continue;
        }
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if out.len() >= MAX_MEMORY_TOPICS {
            over = true;
            break;
        }
        let Some(stamp) = entry
            .metadata()
            .ok()
            .and_then(|m| crate::load::stamp::Stamp::from_metadata(&m))
        else {
            continue;
        };
        out.push(TopicFileStamp {
            name,
            stamp: stamp.parts(),
            mtime: stamp.mtime(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((out, over))
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

fn hash_bytes(bytes: &[u8]) -> u64 {
    // FNV-1a: stable across processes and versions (the index is saved).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One scope's index, up to date; how many topic files were indexed again.
/// `written`: a topic file (name, text) the caller has just written, under
/// the scope's lock, so it is not read again.
pub(super) fn open_scope(
    store: &MemoryStore,
    scope: MemoryScope,
    written: Option<(&str, &str)>,
    problems: &mut Vec<String>,
) -> (ScopeIndex, usize) {
    let dir = store.dir(scope);
    let (found, over) = match topic_files(dir) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (empty_index(scope), 0);
        }
        Err(e) => {
            problems.push(format!("{}: {e}", dir.display()));
            return (empty_index(scope), 0);
        }
    };
    if over {
        problems.push(format!(
            "{}: more than {MAX_MEMORY_TOPICS} topic files; the rest are not searched",
            dir.display()
        ));
    }
    let path = dir.join(INDEX_NAME);
    let saved = load_saved(&path, scope);
    let names = topic_names(store, scope);
    let (index, read, changed) = refresh(scope, dir, saved, &found, &names, written, problems);
    if changed {
        // A failed save only means the next open reads these topics again.
        let _ = crate::base::fs::replace_fast(&path, &index.data);
    }
    (index, read)
}

/// The display name of each topic file, from `MEMORY.md`.
fn topic_names(store: &MemoryStore, scope: MemoryScope) -> HashMap<String, String> {
    let text = store.read_index(scope).unwrap_or_default();
    TopicList::parse(&text)
        .entries
        .into_iter()
        .map(|(name, file)| (file, name))
        .collect()
}

fn name_of<'a>(names: &'a HashMap<String, String>, file: &'a str) -> &'a str {
    names
        .get(file)
        .map(String::as_str)
        .unwrap_or_else(|| file.strip_suffix(".md").unwrap_or(file))
}

/// What to do with a topic file.
enum TopicPlan {
    /// Unchanged: carried over whole (file record `i` of the saved index).
    Keep(usize),
    /// Read (or just written): indexed again, its unchanged entries carried
    /// from the saved index's record of the same file name, if any.
    Index {
        text: String,
        hash: u64,
        saved: Option<usize>,
    },
}

/// Decides, file by file, what to do with each topic file against the
/// saved index; counts what it read and whether anything changed.
struct TopicPlanner<'a> {
    dir: &'a Path,
    saved: Option<&'a ScopeIndex>,
    names: &'a HashMap<String, String>,
    written: Option<(&'a str, &'a str)>,
    /// The saved index's file records, by file name.
    old: HashMap<&'a str, usize>,
    /// When the saved index was scanned.
    scanned_time: Option<SystemTime>,
    /// The index differs from the saved one.
    changed: bool,
    /// A racy topic was found unchanged and is now out of the racy window:
    /// saving the scan time stops these reads.
    settled: bool,
    /// Topic files read (not counting the one just written).
    read: usize,
}

impl<'a> TopicPlanner<'a> {
    fn new(
        dir: &'a Path,
        saved: Option<&'a ScopeIndex>,
        found: &[TopicFileStamp],
        names: &'a HashMap<String, String>,
        written: Option<(&'a str, &'a str)>,
    ) -> TopicPlanner<'a> {
        let scanned_time = saved.map(|s| {
            SystemTime::UNIX_EPOCH + std::time::Duration::from_nanos(s.scanned_at.max(0) as u64)
        });
        let old: HashMap<&str, usize> = saved
            .map(|s| (0..s.n_files).map(|i| (s.file_rec(i).name, i)).collect())
            .unwrap_or_default();
        let changed = saved.is_none() || old.len() != found.len();
        TopicPlanner {
            dir,
            saved,
            names,
            written,
            old,
            scanned_time,
            changed,
            settled: false,
            read: 0,
        }
    }

    /// What to do with the topic file `f`; `None` when it cannot be read.
    fn plan(&mut self, f: &TopicFileStamp, problems: &mut Vec<String>) -> Option<TopicPlan> {
        let topic = name_of(self.names, &f.name);
        let saved_file = self.old.get(f.name.as_str()).copied();
        let prev = saved_file.and_then(|i| {
            let v = self.saved?.file_rec(i);
            (v.topic == topic).then_some((i, v.stamp, v.hash))
        });
        if prev.is_none() {
            self.changed = true;
        }
        let just_written = self.written.filter(|(name, _)| *name == f.name);
        if let (Some((i, stamp, _)), None) = (prev, just_written) {
            if stamp == f.stamp && !is_racy(f.mtime, self.scanned_time) {
                return Some(TopicPlan::Keep(i));
            }
        }
        let text = match just_written {
            Some((_, text)) => text.to_string(),
            None => match read_topic(&self.dir.join(&f.name), problems) {
                Some(text) => text,
                None => {
                    self.changed = true;
                    return None;
                }
            },
        };
        let hash = hash_bytes(text.as_bytes());
        match prev {
            // Racy but the same bytes: nothing changed. Once its mtime is
            // out of the racy window of now, a new scan time saved stops
            // these reads.
            Some((i, stamp, h)) if h == hash && stamp == f.stamp => {
                self.settled |= !is_racy(f.mtime, Some(SystemTime::now()));
                Some(TopicPlan::Keep(i))
            }
            _ => {
                self.changed = true;
                self.read += usize::from(just_written.is_none());
                Some(TopicPlan::Index {
                    text,
                    hash,
                    saved: saved_file,
                })
            }
        }
    }
}

/// A topic file's text; `None` when it is gone, or cannot be read (said in
/// `problems`).
fn read_topic(path: &Path, problems: &mut Vec<String>) -> Option<String> {
    match crate::base::fs::read_limited(path, MAX_MEMORY_TOPIC_BYTES) {
        Ok(text) => text,
        Err(e) => {
            problems.push(format!("{}: {e}", path.display()));
            None
        }
    }
}

/// The index for the files found: unchanged topics carried over from
/// `saved`, the others read and indexed (their unchanged entries carried
/// too). Returns it, how many files were read, and whether it differs from
/// `saved`.
fn refresh(
    scope: MemoryScope,
    dir: &Path,
    saved: Option<ScopeIndex>,
    found: &[TopicFileStamp],
    names: &HashMap<String, String>,
    written: Option<(&str, &str)>,
    problems: &mut Vec<String>,
) -> (ScopeIndex, usize, bool) {
    let mut planner = TopicPlanner::new(dir, saved.as_ref(), found, names, written);
    let plan: Vec<Option<TopicPlan>> = found.iter().map(|f| planner.plan(f, problems)).collect();
    let (changed, settled, read) = (planner.changed, planner.settled, planner.read);
    if !changed {
        if let Some(s) = saved {
            if settled {
                // The same index with the time of this scan.
                if let Some(index) = s.rescanned(now_ns()) {
                    return (index, read, true);
                }
            }
            return (s, read, false);
        }
    }
    let bytes = rebuild(scope, dir, saved.as_ref(), found, names, plan, problems);
    match ScopeIndex::from_data(scope, FileBytes::Read(bytes)) {
        Some(index) => (index, read, true),
        None => (empty_index(scope), read, false),
    }
}

/// The new index's bytes, following the plan for each topic file found.
fn rebuild(
    scope: MemoryScope,
    dir: &Path,
    saved: Option<&ScopeIndex>,
    found: &[TopicFileStamp],
    names: &HashMap<String, String>,
    plan: Vec<Option<TopicPlan>>,
    problems: &mut Vec<String>,
) -> Vec<u8> {
    let forward = saved.map(ScopeIndex::forward);
    let carry = saved.zip(forward.as_deref());
    let mut b = IndexBuilder::default();
    for (f, p) in found.iter().zip(plan) {
        let topic = name_of(names, &f.name);
        match p {
            None => {}
            Some(TopicPlan::Keep(i)) => {
                if let Some((s, fw)) = carry {
                    b.carry_file(s, i, fw);
                }
            }
            Some(TopicPlan::Index { text, hash, saved }) => {
                let entries = entry::parse(&f.name, &text);
                if b.len() + entries.len() > MAX_MEMORY_ENTRIES {
                    problems.push(format!(
                        "{}: more than {MAX_MEMORY_ENTRIES} entries in the {scope} memory; the rest are not searched",
                        dir.display()
                    ));
                    break;
                }
                b.add_file(&f.name, topic, f.stamp, hash, &entries, saved.zip(carry));
            }
        }
    }
    b.encode(now_ns())
}

fn is_racy(mtime: SystemTime, scanned_at: Option<SystemTime>) -> bool {
    match scanned_at.and_then(|t| t.checked_sub(crate::load::stamp::RACY_WINDOW)) {
        Some(limit) => mtime >= limit,
        None => true,
    }
}
