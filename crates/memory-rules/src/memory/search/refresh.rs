//! Bringing a scope's saved index up to date with its topic files.
//!
//! First the whole directory at once: its topic files' and `MEMORY.md`'s
//! names and stamps hashed into a signature ([`dir_signature`]); the saved
//! index of the same signature, no file changed within the racy window of
//! its scan, is used as it is ([`unchanged`]). Otherwise, file by file:
//! each topic file's stamp is compared with the one the saved
//! index recorded ([`TopicPlanner`]): an unchanged topic is carried over
//! whole; a changed one (or one whose mtime is too close to the last scan to
//! trust, and whose bytes changed) is read and indexed again, its unchanged
//! entries carried. The index is saved again only when something changed.

use super::index_builder::{empty_index, IndexBuilder};
use super::index_file::{load_saved, ScopeIndex};
use crate::base::fnv::fnv1a;
use crate::base::fs::FileBytes;
use crate::base::limits::{MAX_MEMORY_ENTRIES, MAX_MEMORY_TOPICS, MAX_MEMORY_TOPIC_BYTES};
use crate::memory::entry;
use crate::memory::memory_md::TopicList;
use crate::memory::store::{MemoryScope, MemoryStore, INDEX_FILE, SEARCH_INDEX_FILE};
use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

/// A topic file as found on disk: its name and stamp.
struct TopicFileStamp {
    name: String,
    stamp: [u64; 4],
    mtime: SystemTime,
}

/// A scope's directory as scanned: its topic files, whether there were
/// more than [`MAX_MEMORY_TOPICS`], and `MEMORY.md`'s stamp if it is there.
struct DirScan {
    files: Vec<TopicFileStamp>,
    over: bool,
    memory_md: Option<TopicFileStamp>,
}

/// The topic files of a scope's directory, in the directory's order, at
/// most [`MAX_MEMORY_TOPICS`]: `*.md` but `MEMORY.md`, regular files only
/// (no links), no hidden files; and `MEMORY.md`'s stamp (a link's own).
fn topic_files(dir: &Path) -> std::io::Result<DirScan> {
    let mut scan = DirScan {
        files: Vec::new(),
        over: false,
        memory_md: None,
    };
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry
            .file_name()
            .into_string()
            .unwrap_or_else(|n| n.to_string_lossy().into_owned());
        if !name.ends_with(".md") || name.starts_with('.') {
            continue;
        }
        let is_index = name == INDEX_FILE;
        if !is_index && !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if !is_index && scan.files.len() >= MAX_MEMORY_TOPICS {
            scan.over = true;
            continue;
        }
        let Some(stamp) = entry
            .metadata()
            .ok()
            .and_then(|m| crate::load::stamp::Stamp::from_metadata(&m))
        else {
            continue;
        };
        let found = TopicFileStamp {
            name,
            stamp: stamp.parts(),
            mtime: stamp.mtime(),
        };
        if is_index {
            scan.memory_md = Some(found);
        } else {
            scan.files.push(found);
        }
    }
    Ok(scan)
}

/// A 64-bit mix of `h` (SplitMix64's finalizer).
fn mix(mut h: u64) -> u64 {
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The signature of a directory as scanned: each topic file's name and
/// stamp, and `MEMORY.md`'s (whose names the index holds), hashed and added
/// up (the directory's order does not count); never 0 (0 is none).
fn dir_signature(scan: &DirScan) -> u64 {
    let one = |f: &TopicFileStamp| {
        f.stamp
            .iter()
            .fold(fnv1a(f.name.as_bytes()), |h, &p| mix(h ^ p))
    };
    let files = scan
        .files
        .iter()
        .fold(scan.files.len() as u64, |sum, f| sum.wrapping_add(one(f)));
    let md = scan.memory_md.as_ref().map_or(0, |f| mix(one(f)));
    mix(files ^ md).max(1)
}

/// Whether the saved index holds the directory as scanned, without
/// comparing its topic files one by one: the same signature, and no file
/// (`MEMORY.md` included) modified within the racy window of that scan.
fn unchanged(saved: &ScopeIndex, scan: &DirScan, signature: u64) -> bool {
    let scanned =
        SystemTime::UNIX_EPOCH + std::time::Duration::from_nanos(saved.scanned_at.max(0) as u64);
    saved.signature == signature
        && saved.n_files == scan.files.len()
        && !scan
            .files
            .iter()
            .chain(&scan.memory_md)
            .any(|f| is_racy(f.mtime, Some(scanned)))
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
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
    let mut scan = match topic_files(dir) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (empty_index(scope), 0);
        }
        Err(e) => {
            problems.push(format!("{}: {e}", dir.display()));
            return (empty_index(scope), 0);
        }
    };
    if scan.over {
        problems.push(format!(
            "{}: more than {MAX_MEMORY_TOPICS} topic files; the rest are not searched",
            dir.display()
        ));
    }
    let path = dir.join(SEARCH_INDEX_FILE);
    // Over the limit, the files kept depend on the directory's order: no
    // signature, every open compares them.
    let signature = if scan.over { 0 } else { dir_signature(&scan) };
    let saved = match load_saved(&path, scope) {
        // Nothing to compare file by file, nor `MEMORY.md` to read.
        Some(s) if written.is_none() && signature != 0 && unchanged(&s, &scan, signature) => {
            return (s, 0);
        }
        saved => saved,
    };
    scan.files.sort_by(|a, b| a.name.cmp(&b.name));
    let names = topic_names(store, scope);
    let found = Found {
        files: &scan.files,
        signature,
    };
    let (index, read, changed) = refresh(scope, dir, saved, &found, &names, written, problems);
    if changed {
        // A failed save only means the next open reads these topics again.
        let _ = crate::base::fs::replace_fast(&path, &index.data);
    }
    (index, read)
}

/// The topic files found, sorted by name, and the directory's signature.
struct Found<'a> {
    files: &'a [TopicFileStamp],
    signature: u64,
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
        let hash = fnv1a(text.as_bytes());
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
    found: &Found<'_>,
    names: &HashMap<String, String>,
    written: Option<(&str, &str)>,
    problems: &mut Vec<String>,
) -> (ScopeIndex, usize, bool) {
    let mut planner = TopicPlanner::new(dir, saved.as_ref(), found.files, names, written);
    let plan: Vec<Option<TopicPlan>> = found
        .files
        .iter()
        .map(|f| planner.plan(f, problems))
        .collect();
    let (changed, settled, read) = (planner.changed, planner.settled, planner.read);
    if !changed {
        if let Some(s) = saved {
            if settled || s.signature != found.signature {
                // The same index with the time of this scan (once settled)
                // and the directory's signature.
                let scanned_at = if settled { now_ns() } else { s.scanned_at };
                if let Some(index) = s.rescanned(scanned_at, found.signature) {
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
    found: &Found<'_>,
    names: &HashMap<String, String>,
    plan: Vec<Option<TopicPlan>>,
    problems: &mut Vec<String>,
) -> Vec<u8> {
    let forward = saved.map(ScopeIndex::forward);
    let carry = saved.zip(forward.as_deref());
    let mut b = IndexBuilder::default();
    // The signature only of an index holding every topic file.
    let mut signature = found.signature;
    for (f, p) in found.files.iter().zip(plan) {
        let topic = name_of(names, &f.name);
        match p {
            None => signature = 0,
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
                    signature = 0;
                    break;
                }
                b.add_file(&f.name, topic, f.stamp, hash, &entries, saved.zip(carry));
            }
        }
    }
    b.encode(now_ns(), signature)
}

fn is_racy(mtime: SystemTime, scanned_at: Option<SystemTime>) -> bool {
    match scanned_at.and_then(|t| t.checked_sub(crate::load::stamp::RACY_WINDOW)) {
        Some(limit) => mtime >= limit,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::store::write::Note;
    use crate::memory::store::MemoryLocations;
    use std::time::Duration;

    /// A store with two project topics, files dated an hour back (out of
    /// the racy window), and its memory directory.
    fn aged_store(root: &Path) -> (MemoryStore, std::path::PathBuf) {
        let s = MemoryStore::new(MemoryLocations::new(&root.join("home"), &root.join("work")));
        for (topic, text) in [
            ("alpha", "Alpha notes say the parser is hand written."),
            ("beta", "Beta notes say the lexer keeps trivia."),
        ] {
            s.write_note(&Note::new(MemoryScope::Project, topic, text), None)
                .unwrap();
        }
        let dir = s.dir(MemoryScope::Project).to_path_buf();
        for f in ["alpha.md", "beta.md", INDEX_FILE] {
            age(&dir.join(f));
        }
        (s, dir)
    }

    fn age(path: &Path) {
        let old = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    fn open(s: &MemoryStore) -> ScopeIndex {
        let mut problems = Vec::new();
        let (index, _) = open_scope(s, MemoryScope::Project, None, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        index
    }

    fn topics(index: &ScopeIndex) -> Vec<String> {
        (0..index.n_files)
            .map(|i| index.file_rec(i).topic.to_string())
            .collect()
    }

    #[test]
    fn an_unchanged_directory_is_opened_by_its_signature_without_reading_memory_md() {
        let root = tempfile::tempdir().unwrap();
        let (s, dir) = aged_store(root.path());
        let first = open(&s);
        assert_ne!(first.signature, 0, "the scan is signed");
        assert_eq!(topics(&first), ["alpha", "beta"]);
        // MEMORY.md's bytes changed, its stamp (size, mtime, inode) kept:
        // trusted as a topic file's is, so it is not read again.
        let md = dir.join(INDEX_FILE);
        let text = std::fs::read_to_string(&md).unwrap();
        let mtime = std::fs::metadata(&md).unwrap().modified().unwrap();
        std::fs::write(&md, text.replace("[alpha]", "[gamma]")).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&md)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_eq!(topics(&open(&s)), ["alpha", "beta"]);
    }

    #[test]
    fn memory_md_edited_renames_the_topic_on_the_next_open() {
        let root = tempfile::tempdir().unwrap();
        let (s, dir) = aged_store(root.path());
        open(&s);
        let md = dir.join(INDEX_FILE);
        let text = std::fs::read_to_string(&md).unwrap();
        std::fs::write(&md, text.replace("[alpha]", "[Alpha and more]")).unwrap();
        age(&md);
        assert_eq!(topics(&open(&s)), ["Alpha and more", "beta"]);
    }

    #[test]
    fn a_topic_file_added_or_removed_is_seen_on_the_next_open() {
        let root = tempfile::tempdir().unwrap();
        let (s, dir) = aged_store(root.path());
        open(&s);
        std::fs::copy(dir.join("beta.md"), dir.join("gamma.md")).unwrap();
        age(&dir.join("gamma.md"));
        let index = open(&s);
        assert_eq!(topics(&index), ["alpha", "beta", "gamma"]);
        assert_eq!(index.len(), 3);
        std::fs::remove_file(dir.join("alpha.md")).unwrap();
        let index = open(&s);
        assert_eq!(topics(&index), ["beta", "gamma"]);
        assert_eq!(index.len(), 2);
    }

    #[test]
    fn an_index_saved_before_name_patterns_were_read_is_rebuilt() {
        // Version 4 had no module keys (`io.netty.util` as io/netty/util),
        // version 5 no name patterns (`*.spec.js`).
        use super::super::index_file::VERSION;
        let root = tempfile::tempdir().unwrap();
        let (s, dir) = aged_store(root.path());
        open(&s);
        let path = dir.join(SEARCH_INDEX_FILE);
        for old in [4u32, 5] {
            let mut saved = std::fs::read(&path).unwrap();
            saved[8..12].copy_from_slice(&old.to_le_bytes());
            std::fs::write(&path, &saved).unwrap();
            open(&s);
            let saved = std::fs::read(&path).unwrap();
            assert_eq!(
                u32::from_le_bytes(saved[8..12].try_into().unwrap()),
                VERSION
            );
        }
        assert_eq!(VERSION, 6);
    }

    #[test]
    fn an_index_of_an_older_version_or_damaged_is_rebuilt_not_read() {
        let root = tempfile::tempdir().unwrap();
        let (s, dir) = aged_store(root.path());
        open(&s);
        let path = dir.join(SEARCH_INDEX_FILE);
        let good = std::fs::read(&path).unwrap();
        let mut older = good.clone();
        older[8..12].copy_from_slice(&2u32.to_le_bytes());
        let mut garbled = good.clone();
        for b in garbled[40..72].iter_mut() {
            *b = 0xff;
        }
        for bytes in [older, garbled, good[..good.len() / 2].to_vec(), Vec::new()] {
            std::fs::write(&path, &bytes).unwrap();
            let index = open(&s);
            assert_eq!(topics(&index), ["alpha", "beta"]);
            assert_eq!(index.len(), 2);
            let saved = std::fs::read(&path).unwrap();
            assert_eq!(
                u32::from_le_bytes(saved[8..12].try_into().unwrap()),
                super::super::index_file::VERSION
            );
        }
    }
}
