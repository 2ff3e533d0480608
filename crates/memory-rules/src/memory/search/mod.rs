//! The search index over both memory scopes.
//!
//! Each scope keeps its index beside its topics, in `.search-index`: every
//! entry (id, topic, title, text, metadata) and, for every word
//! ([`super::terms`]), the entries that hold it with how often in the
//! topic's name, the entry's title and its text; the files an entry names
//! and the globs of its `paths` are words too. The file also records each
//! topic file's stamp (size, mtime, inode, device: the stamps the rule
//! snapshot uses, [`crate::load::stamp::Stamp`]) and a hash of its bytes.
//!
//! Opening ([`MemoryIndex::open`]) maps the file (reads it on WebAssembly)
//! and stats each topic file: only the topics whose stamp changed, or whose
//! mtime falls within [`crate::load::stamp::RACY_WINDOW`] of the index's scan and whose
//! bytes changed, are read and indexed again; the other entries are kept as
//! indexed, and the file is written again (atomically) only when something
//! changed. A search reads only the words it looks up and the entries it
//! returns.
//!
//! Ranking ([`MemoryIndex::search`]): BM25 (k1 1.2, b 0.75) over the three
//! fields, the topic's name counting twice and the title once more, with the
//! document frequencies of both scopes together; plus the entry's affinity
//! to the files in context (it names the file: 1, a glob of its `paths`
//! matches the file: 1, it names a file of the same name elsewhere: 0.6),
//! weighted by [`AFFINITY_WEIGHT`]; ties go to the entry updated last, then
//! to the smaller id. The same files give the same bytes and the same order.

use super::entry::{self, Entry, Meta};
use super::memory_md::TopicList;
use super::store::{MemoryScope, MemoryStore, INDEX_FILE};
use super::terms::{self, FileKey};
use crate::base::limits::{MAX_MEMORY_ENTRIES, MAX_MEMORY_INDEX_BYTES, MAX_MEMORY_TOPICS};
use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

/// The saved index's file name in a scope's directory (kept with the store,
/// which clears it with the topics).
pub use super::store::SEARCH_INDEX_FILE as INDEX_NAME;
/// What a file tie adds to a score, times the affinity (0 to 1).
pub const AFFINITY_WEIGHT: f32 = 6.0;
const K1: f32 = 1.2;
const B: f32 = 0.75;
const TOPIC_WEIGHT: f32 = 2.0;
const TITLE_WEIGHT: f32 = 1.0;

const MAGIC: &[u8; 8] = b"WMEMIDX\0";
/// Bumped whenever the layout or the words change: an index of another
/// version is rebuilt.
const VERSION: u32 = 1;
const HEADER: usize = 64;
const FILE_REC: usize = 64;
const DOC_REC: usize = 64;
const TERM_REC: usize = 16;
const POSTING: usize = 8;

/// Flags of a document record.
const PINNED: u32 = 1;

/// The bytes of an index: mapped, or read (WebAssembly, or a mapping that
/// failed).
enum Data {
    Owned(Vec<u8>),
    #[cfg(not(target_family = "wasm"))]
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Data::Owned(v) => v,
            #[cfg(not(target_family = "wasm"))]
            Data::Mapped(m) => m,
        }
    }
}

/// One scope's index, read in place.
pub struct ScopeIndex {
    scope: MemoryScope,
    data: Data,
    n_files: usize,
    n_docs: usize,
    n_terms: usize,
    total_len: u64,
    scanned_at: i64,
    files_off: usize,
    docs_off: usize,
    terms_off: usize,
    post_off: usize,
    str_off: usize,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

impl ScopeIndex {
    fn empty(scope: MemoryScope) -> ScopeIndex {
        ScopeIndex::from_data(scope, Data::Owned(Builder::default().encode(0)))
            .unwrap_or_else(|| unreachable_empty(scope))
    }

    /// Reads the header; `None` when it is not an index of this version or a
    /// table does not fit in the bytes.
    fn from_data(scope: MemoryScope, data: Data) -> Option<ScopeIndex> {
        let b: &[u8] = &data;
        if b.len() < HEADER || &b[..8] != MAGIC || u32_at(b, 8) != VERSION {
            return None;
        }
        let n_files = u32_at(b, 12) as usize;
        let n_docs = u32_at(b, 16) as usize;
        let n_terms = u32_at(b, 20) as usize;
        let total_len = u64_at(b, 24);
        let scanned_at = u64_at(b, 32) as i64;
        let offs: Vec<usize> = (0..5).map(|i| u32_at(b, 40 + 4 * i) as usize).collect();
        let size = u32_at(b, 60) as usize;
        let (files_off, docs_off, terms_off, post_off, str_off) =
            (offs[0], offs[1], offs[2], offs[3], offs[4]);
        let fits = size == b.len()
            && files_off == HEADER
            && docs_off == files_off + n_files * FILE_REC
            && terms_off == docs_off + n_docs * DOC_REC
            && post_off == terms_off + n_terms * TERM_REC
            && post_off <= str_off
            && str_off <= size
            && (str_off - post_off) % POSTING == 0;
        fits.then_some(ScopeIndex {
            scope,
            data,
            n_files,
            n_docs,
            n_terms,
            total_len,
            scanned_at,
            files_off,
            docs_off,
            terms_off,
            post_off,
            str_off,
        })
    }

    pub fn scope(&self) -> MemoryScope {
        self.scope
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.n_docs
    }

    pub fn is_empty(&self) -> bool {
        self.n_docs == 0
    }

    fn str_at(&self, off: usize, len: usize) -> &str {
        let start = self.str_off.saturating_add(off);
        self.data
            .get(start..start.saturating_add(len))
            .and_then(|s| std::str::from_utf8(s).ok())
            .unwrap_or("")
    }

    fn file_rec(&self, i: usize) -> FileView<'_> {
        let at = self.files_off + i * FILE_REC;
        let b = &self.data;
        FileView {
            name: self.str_at(u32_at(b, at) as usize, u32_at(b, at + 4) as usize),
            topic: self.str_at(u32_at(b, at + 8) as usize, u32_at(b, at + 12) as usize),
            stamp: [
                u64_at(b, at + 16),
                u64_at(b, at + 24),
                u64_at(b, at + 32),
                u64_at(b, at + 40),
            ],
            hash: u64_at(b, at + 48),
            first_doc: u32_at(b, at + 56) as usize,
            n_docs: u32_at(b, at + 60) as usize,
        }
    }

    fn doc_at(&self, i: usize) -> usize {
        self.docs_off + i * DOC_REC
    }

    fn doc_str(&self, i: usize, field: usize) -> &str {
        let at = self.doc_at(i) + field;
        self.str_at(
            u32_at(&self.data, at) as usize,
            u32_at(&self.data, at + 4) as usize,
        )
    }

    fn doc_file(&self, i: usize) -> usize {
        u32_at(&self.data, self.doc_at(i) + 8) as usize
    }

    fn doc_flags(&self, i: usize) -> u32 {
        u32_at(&self.data, self.doc_at(i) + 12)
    }

    fn doc_updated(&self, i: usize) -> i64 {
        u64_at(&self.data, self.doc_at(i) + 16) as i64
    }

    fn doc_len(&self, i: usize) -> u32 {
        u32_at(&self.data, self.doc_at(i) + 24)
    }

    fn term(&self, t: usize) -> (&str, usize, usize) {
        let at = self.terms_off + t * TERM_REC;
        let b = &self.data;
        (
            self.str_at(u32_at(b, at) as usize, u32_at(b, at + 4) as usize),
            u32_at(b, at + 8) as usize,
            u32_at(b, at + 12) as usize,
        )
    }

    /// The term's (document frequency, first posting), by binary search.
    fn lookup(&self, word: &str) -> Option<(usize, usize)> {
        let (mut lo, mut hi) = (0, self.n_terms);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (t, df, first) = self.term(mid);
            match t.cmp(word) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some((df, first)),
            }
        }
        None
    }

    /// Posting `p`: (doc, body count, title count, topic count).
    fn posting(&self, p: usize) -> (usize, u16, u8, u8) {
        let at = self.post_off + p * POSTING;
        let b = &self.data;
        let doc = u32_at(b, at) as usize;
        let rest = u32_at(b, at + 4);
        (doc, rest as u16, (rest >> 16) as u8, (rest >> 24) as u8)
    }

    fn postings(&self, word: &str) -> impl Iterator<Item = (usize, u16, u8, u8)> + '_ {
        let (df, first) = self.lookup(word).unwrap_or((0, 0));
        let max = (self.str_off - self.post_off) / POSTING;
        let end = first.saturating_add(df).min(max);
        (first.min(end)..end)
            .map(|p| self.posting(p))
            .filter(|&(d, ..)| d < self.n_docs)
    }

    /// Calls `f(doc, body, title, topic)` for each posting of `word`, read
    /// straight from the bytes.
    fn for_postings(&self, word: &str, mut f: impl FnMut(usize, u16, u8, u8)) {
        let Some((df, first)) = self.lookup(word) else {
            return;
        };
        let start = self.post_off + first * POSTING;
        let end = start.saturating_add(df * POSTING).min(self.str_off);
        let Some(bytes) = self.data.get(start.min(end)..end) else {
            return;
        };
        for p in bytes.chunks_exact(POSTING) {
            let doc = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
            if doc < self.n_docs {
                f(doc, u16::from_le_bytes([p[4], p[5]]), p[6], p[7]);
            }
        }
    }

    /// Whether `doc` holds `word` (its postings are sorted by doc).
    fn holds(&self, word: &str, doc: usize) -> bool {
        let Some((df, first)) = self.lookup(word) else {
            return false;
        };
        let (mut lo, mut hi) = (first, first + df);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let d = self.posting(mid).0;
            match d.cmp(&doc) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// For each document, its words and counts (to carry unchanged topics
    /// into a new index).
    fn forward(&self) -> Vec<Vec<(usize, u16, u8, u8)>> {
        let mut out = vec![Vec::new(); self.n_docs];
        for t in 0..self.n_terms {
            let (_, df, first) = self.term(t);
            for p in first..first + df {
                let (d, body, title, topic) = self.posting(p);
                if let Some(list) = out.get_mut(d) {
                    list.push((t, body, title, topic));
                }
            }
        }
        out
    }

    fn entry(&self, i: usize) -> EntryRef<'_> {
        EntryRef {
            index: self,
            doc: i,
        }
    }

    /// Every entry, in topic-file order.
    pub fn entries(&self) -> impl Iterator<Item = EntryRef<'_>> {
        (0..self.n_docs).map(|i| self.entry(i))
    }
}

fn unreachable_empty(scope: MemoryScope) -> ScopeIndex {
    // The empty index always encodes to a valid header; this only satisfies
    // the types.
    ScopeIndex {
        scope,
        data: Data::Owned(Vec::new()),
        n_files: 0,
        n_docs: 0,
        n_terms: 0,
        total_len: 0,
        scanned_at: 0,
        files_off: 0,
        docs_off: 0,
        terms_off: 0,
        post_off: 0,
        str_off: 0,
    }
}

struct FileView<'a> {
    name: &'a str,
    topic: &'a str,
    stamp: [u64; 4],
    hash: u64,
    first_doc: usize,
    n_docs: usize,
}

/// An entry as the index holds it.
#[derive(Clone, Copy)]
pub struct EntryRef<'a> {
    index: &'a ScopeIndex,
    doc: usize,
}

impl<'a> EntryRef<'a> {
    pub fn scope(&self) -> MemoryScope {
        self.index.scope
    }
    pub fn id(&self) -> &'a str {
        self.index.doc_str(self.doc, 0)
    }
    /// The topic's name, as `MEMORY.md` lists it (else its file's stem).
    pub fn topic(&self) -> &'a str {
        self.index.file_rec(self.index.doc_file(self.doc)).topic
    }
    /// The topic's file name.
    pub fn file(&self) -> &'a str {
        self.index.file_rec(self.index.doc_file(self.doc)).name
    }
    pub fn title(&self) -> &'a str {
        self.index.doc_str(self.doc, 28)
    }
    pub fn text(&self) -> &'a str {
        self.index.doc_str(self.doc, 36)
    }
    /// Its metadata (parsed from the JSON the index keeps).
    pub fn meta(&self) -> Meta {
        serde_json::from_str(self.index.doc_str(self.doc, 44)).unwrap_or_default()
    }
    /// Seconds since the epoch of its last update; 0 unknown.
    pub fn updated(&self) -> i64 {
        self.index.doc_updated(self.doc)
    }
    pub fn pinned(&self) -> bool {
        self.index.doc_flags(self.doc) & PINNED != 0
    }
    /// The line of its topic file where it starts.
    pub fn line(&self) -> usize {
        u32_at(&self.index.data, self.index.doc_at(self.doc) + 52) as usize
    }
}

/// A search.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// The words to look for (a prompt, a note).
    pub text: &'a str,
    /// Files in context, workdir-relative.
    pub files: &'a [String],
    /// At most this many hits.
    pub limit: usize,
}

/// One entry found, with why.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub scope: MemoryScope,
    pub id: String,
    pub topic: String,
    pub file: String,
    pub title: String,
    pub text: String,
    /// `bm25 + AFFINITY_WEIGHT * affinity`.
    pub score: f32,
    pub bm25: f32,
    /// 0 to 1: how close the entry is to the files in context.
    pub affinity: f32,
    /// The file in context it is tied to, and how (`names it`, a glob).
    pub tie: Option<(String, String)>,
    /// The query's words it holds.
    pub matched: Vec<String>,
    /// The sum of the inverse document frequencies of those words: how much
    /// of what is rare in the query it holds.
    pub matched_idf: f32,
    /// Seconds since the epoch.
    pub updated: i64,
    pub pinned: bool,
    pub line: usize,
}

impl Hit {
    /// As JSON (the CLI's `--json`, the binding): `id`, `scope`, `topic`,
    /// `file`, `line`, `title`, `text`, `score`, `bm25`, `affinity`, `tie`
    /// (`{file, how}`), `matched`, `updated` (a day), `pinned`.
    pub fn to_json(&self) -> serde_json::Value {
        let round = |x: f32| (x as f64 * 1000.0).round() / 1000.0;
        serde_json::json!({
            "id": self.id,
            "scope": self.scope.as_str(),
            "topic": self.topic,
            "file": self.file,
            "line": self.line,
            "title": self.title,
            "text": self.text,
            "score": round(self.score),
            "bm25": round(self.bm25),
            "affinity": round(self.affinity),
            "tie": self.tie.as_ref().map(|(file, how)| serde_json::json!({ "file": file, "how": how })),
            "matched": self.matched,
            "updated": super::entry::day(self.updated),
            "pinned": self.pinned,
        })
    }
}

/// The index of both scopes (user first), opened once per process or event.
pub struct MemoryIndex {
    scopes: Vec<ScopeIndex>,
    problems: Vec<String>,
    /// Topic files indexed again when it was opened because they changed
    /// (for tests and benches).
    pub reindexed: usize,
}

impl MemoryIndex {
    /// The index of both scopes of `store`, brought up to date with the
    /// topic files (see the module comment); never fails: a scope that
    /// cannot be read is empty, and [`MemoryIndex::problems`] says why.
    pub fn open(store: &MemoryStore) -> MemoryIndex {
        let mut out = MemoryIndex {
            scopes: Vec::new(),
            problems: Vec::new(),
            reindexed: 0,
        };
        for scope in [MemoryScope::User, MemoryScope::Project] {
            let (index, reindexed) = open_scope(store, scope, None, &mut out.problems);
            out.reindexed += reindexed;
            out.scopes.push(index);
        }
        out
    }

    /// Brings one scope's saved index up to date after the caller (holding
    /// the scope's lock) wrote `text` to the topic file `file`, without
    /// reading that file again.
    pub fn after_write(store: &MemoryStore, scope: MemoryScope, file: &str, text: &str) {
        let mut problems = Vec::new();
        open_scope(store, scope, Some((file, text)), &mut problems);
    }

    /// What could not be read or saved, one sentence each.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The index of one scope.
    pub fn scope(&self, scope: MemoryScope) -> &ScopeIndex {
        match scope {
            MemoryScope::User => &self.scopes[0],
            MemoryScope::Project => &self.scopes[1],
        }
    }

    /// Every entry of both scopes (user first).
    pub fn entries(&self) -> impl Iterator<Item = EntryRef<'_>> {
        self.scopes.iter().flat_map(ScopeIndex::entries)
    }

    pub fn len(&self) -> usize {
        self.scopes.iter().map(ScopeIndex::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry with this id, or the only one whose id starts with it.
    pub fn find(&self, id: &str) -> Result<EntryRef<'_>, Vec<String>> {
        let mut prefixed = Vec::new();
        for e in self.entries() {
            if e.id() == id {
                return Ok(e);
            }
            if !id.is_empty() && e.id().starts_with(id) {
                prefixed.push(e);
            }
        }
        match prefixed.len() {
            1 => Ok(prefixed[0]),
            _ => Err(prefixed.iter().map(|e| e.id().to_string()).collect()),
        }
    }

    /// The pinned entries, in topic-file order.
    pub fn pinned(&self) -> Vec<EntryRef<'_>> {
        self.entries().filter(EntryRef::pinned).collect()
    }

    /// Each topic: (scope, name, file, entries), user first, by file.
    pub fn topics(&self) -> Vec<(MemoryScope, &str, &str, usize)> {
        let mut out = Vec::new();
        for s in &self.scopes {
            for f in 0..s.n_files {
                let v = s.file_rec(f);
                out.push((s.scope, v.topic, v.name, v.n_docs));
            }
        }
        out
    }

    /// How many entries of both scopes hold a word.
    pub fn df(&self, word: &str) -> usize {
        self.scopes
            .iter()
            .map(|s| s.lookup(word).map_or(0, |(df, _)| df))
            .sum()
    }

    /// Whether an entry has exactly this id.
    pub fn find_exact(&self, id: &str) -> bool {
        self.entries().any(|e| e.id() == id)
    }

    /// The inverse document frequency of a word over both scopes.
    pub fn idf(&self, word: &str) -> f32 {
        let n = self.len() as f32;
        let df: usize = self
            .scopes
            .iter()
            .map(|s| s.lookup(word).map_or(0, |(df, _)| df))
            .sum();
        idf(n, df as f32)
    }

    /// The inverse document frequency of a word only one entry holds: the
    /// rarest a word can be in this memory.
    pub fn rarest_idf(&self) -> f32 {
        idf(self.len() as f32, 1.0)
    }

    /// The best entries for a query, best first (see the module comment);
    /// `skip` leaves entries out by id (those already given).
    pub fn search(&self, query: &Query<'_>, skip: &dyn Fn(&str) -> bool) -> Vec<Hit> {
        let n_total: usize = self.len();
        if n_total == 0 || query.limit == 0 {
            return Vec::new();
        }
        let total_len: u64 = self.scopes.iter().map(|s| s.total_len).sum();
        let avg = (total_len as f32 / n_total as f32).max(1.0);
        let mut words = terms::word_list(query.text);
        words.sort();
        words.dedup();
        let mut scores: Vec<Vec<f32>> = self.scopes.iter().map(|s| vec![0.0; s.n_docs]).collect();
        // Each document's length norm, K1 (1 - B + B len / avg), once.
        let norms: Vec<Vec<f32>> = self
            .scopes
            .iter()
            .map(|s| {
                (0..s.n_docs)
                    .map(|d| K1 * (1.0 - B + B * s.doc_len(d) as f32 / avg))
                    .collect()
            })
            .collect();
        for w in &words {
            let df: usize = self
                .scopes
                .iter()
                .map(|s| s.lookup(w).map_or(0, |(df, _)| df))
                .sum();
            if df == 0 {
                continue;
            }
            let idf = idf(n_total as f32, df as f32) * (K1 + 1.0);
            for ((s, acc), norm) in self.scopes.iter().zip(scores.iter_mut()).zip(&norms) {
                s.for_postings(w, |d, body, title, topic| {
                    let tf =
                        body as f32 + TITLE_WEIGHT * title as f32 + TOPIC_WEIGHT * topic as f32;
                    acc[d] += idf * tf / (tf + norm[d]);
                });
            }
        }
        let bm25: Vec<Vec<f32>> = scores.clone();
        let mut ties: Vec<HashMap<usize, (f32, String, String)>> =
            self.scopes.iter().map(|_| HashMap::new()).collect();
        for file in query.files {
            for (key, weight) in terms::keys_for_file(file) {
                let word = key.word();
                for (s, tie) in self.scopes.iter().zip(ties.iter_mut()) {
                    for (d, ..) in s.postings(&word) {
                        let (aff, how) = match &key {
                            FileKey::File(_) => (weight, "names it".to_string()),
                            FileKey::Base(b) => (weight, format!("names {b}")),
                            FileKey::GlobDir(_) | FileKey::GlobAny => {
                                match glob_match(&s.entry(d).meta().paths, file) {
                                    Some(g) => (weight, format!("paths {g}")),
                                    None => continue,
                                }
                            }
                        };
                        let best = tie.get(&d).map_or(0.0, |t| t.0);
                        if aff > best {
                            tie.insert(d, (aff, file.clone(), how));
                        }
                    }
                }
            }
        }
        for (acc, tie) in scores.iter_mut().zip(&ties) {
            for (&d, (aff, ..)) in tie {
                acc[d] += AFFINITY_WEIGHT * aff;
            }
        }
        // Candidates by score; the newest, then the smaller id, on a tie
        // (read only when scores tie).
        let mut found: Vec<(f32, u32, u32)> = Vec::new();
        for (si, acc) in scores.iter().enumerate() {
            for (d, &score) in acc.iter().enumerate() {
                if score > 0.0 {
                    found.push((score, si as u32, d as u32));
                }
            }
        }
        let order = |a: &(f32, u32, u32), b: &(f32, u32, u32)| {
            b.0.total_cmp(&a.0).then_with(|| {
                let (sa, sb) = (&self.scopes[a.1 as usize], &self.scopes[b.1 as usize]);
                let (da, db) = (a.2 as usize, b.2 as usize);
                sb.doc_updated(db)
                    .cmp(&sa.doc_updated(da))
                    .then_with(|| sa.doc_str(da, 0).cmp(sb.doc_str(db, 0)))
                    .then(a.1.cmp(&b.1))
            })
        };
        // The best `cut` in order, skipped ids left out; a bigger cut when
        // skipping left fewer than the limit.
        let mut cut = query.limit.saturating_mul(2).saturating_add(16);
        let found: Vec<(f32, u32, u32)> = loop {
            let mut part = found.clone();
            let whole = part.len() <= cut;
            if !whole {
                part.select_nth_unstable_by(cut - 1, order);
                part.truncate(cut);
            }
            part.sort_by(order);
            let kept: Vec<(f32, u32, u32)> = part
                .into_iter()
                .filter(|&(_, si, d)| !skip(self.scopes[si as usize].doc_str(d as usize, 0)))
                .take(query.limit)
                .collect();
            if whole || kept.len() >= query.limit {
                break kept;
            }
            cut = cut.saturating_mul(4);
        };
        found
            .into_iter()
            .map(|(score, si, d)| {
                let (si, d) = (si as usize, d as usize);
                let s = &self.scopes[si];
                let e = s.entry(d);
                let tie = ties[si].get(&d);
                let matched: Vec<String> =
                    words.iter().filter(|w| s.holds(w, d)).cloned().collect();
                Hit {
                    scope: s.scope,
                    id: e.id().to_string(),
                    topic: e.topic().to_string(),
                    file: e.file().to_string(),
                    title: e.title().to_string(),
                    text: e.text().to_string(),
                    score,
                    bm25: bm25[si][d],
                    affinity: tie.map_or(0.0, |t| t.0),
                    tie: tie.map(|t| (t.1.clone(), t.2.clone())),
                    matched: matched.clone(),
                    matched_idf: matched.iter().map(|w| self.idf(w)).sum(),
                    updated: e.updated(),
                    pinned: e.pinned(),
                    line: e.line(),
                }
            })
            .collect()
    }
}

fn idf(n: f32, df: f32) -> f32 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The first glob of `paths` that matches `file` (minimatch, as a rule's
/// `paths`), unless a `!` glob excludes it.
fn glob_match(paths: &[String], file: &str) -> Option<String> {
    let mut hit = None;
    for p in paths {
        let Ok(c) = crate::matchers::glob_compile::compile(p) else {
            continue;
        };
        if c.is_match(file) {
            if c.negated {
                return None;
            }
            hit.get_or_insert_with(|| p.clone());
        }
    }
    hit
}

/// A topic file as found on disk.
struct Found {
    name: String,
    stamp: [u64; 4],
    mtime: SystemTime,
}

/// The topic files of a scope's directory, sorted, at most
/// [`MAX_MEMORY_TOPICS`]: `*.md` but `MEMORY.md`, regular files only (no
/// links), no hidden files.
fn topic_files(dir: &Path) -> std::io::Result<(Vec<Found>, bool)> {
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
        out.push(Found {
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

/// Maps (or reads) a saved index; `None` when absent, too large, or not an
/// index of this version.
fn load_saved(path: &Path, scope: MemoryScope) -> Option<ScopeIndex> {
    let file = crate::base::fs::open(path, crate::base::fs::Links::Refuse).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_MEMORY_INDEX_BYTES {
        return None;
    }
    #[cfg(not(target_family = "wasm"))]
    {
        // SAFETY: the index is only ever replaced by a rename (never written
        // in place or truncated), so the mapped file does not change under
        // the mapping.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return ScopeIndex::from_data(scope, Data::Mapped(map));
        }
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    use std::io::Read;
    file.take(MAX_MEMORY_INDEX_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    ScopeIndex::from_data(scope, Data::Owned(bytes))
}

/// One scope's index, up to date; how many topic files were indexed again.
/// `written`: a topic file (name, text) the caller has just written, under
/// the scope's lock, so it is not read again.
fn open_scope(
    store: &MemoryStore,
    scope: MemoryScope,
    written: Option<(&str, &str)>,
    problems: &mut Vec<String>,
) -> (ScopeIndex, usize) {
    let dir = store.dir(scope);
    let (found, over) = match topic_files(dir) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (ScopeIndex::empty(scope), 0);
        }
        Err(e) => {
            problems.push(format!("{}: {e}", dir.display()));
            return (ScopeIndex::empty(scope), 0);
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
enum Plan {
    /// Unchanged: carried over whole (file record `i` of the saved index).
    Keep(usize),
    /// Read (or just written): indexed again, unchanged entries carried.
    Index(String, u64),
}

/// The index for the files found: unchanged topics carried over from
/// `saved`, the others read and indexed (their unchanged entries carried
/// too). Returns it, how many files were read, and whether it differs from
/// `saved`.
fn refresh(
    scope: MemoryScope,
    dir: &Path,
    saved: Option<ScopeIndex>,
    found: &[Found],
    names: &HashMap<String, String>,
    written: Option<(&str, &str)>,
    problems: &mut Vec<String>,
) -> (ScopeIndex, usize, bool) {
    let scanned_time = saved.as_ref().map(|s| {
        SystemTime::UNIX_EPOCH + std::time::Duration::from_nanos(s.scanned_at.max(0) as u64)
    });
    let old: HashMap<&str, usize> = saved
        .as_ref()
        .map(|s| (0..s.n_files).map(|i| (s.file_rec(i).name, i)).collect())
        .unwrap_or_default();
    let mut plan: Vec<Option<Plan>> = Vec::with_capacity(found.len());
    let mut changed = saved.is_none() || old.len() != found.len();
    let mut settled = false;
    let mut read = 0;
    for f in found {
        let topic = name_of(names, &f.name);
        let prev = old.get(f.name.as_str()).and_then(|&i| {
            let v = saved.as_ref()?.file_rec(i);
            (v.topic == topic).then_some((i, v.stamp, v.hash))
        });
        if prev.is_none() {
            changed = true;
        }
        let just_written = written.filter(|(name, _)| *name == f.name);
        if let (Some((i, stamp, _)), None) = (prev, just_written) {
            if stamp == f.stamp && !is_racy(f.mtime, scanned_time) {
                plan.push(Some(Plan::Keep(i)));
                continue;
            }
        }
        let text = match just_written {
            Some((_, text)) => text.to_string(),
            None => {
                let path = dir.join(&f.name);
                match crate::base::fs::read_limited(
                    &path,
                    crate::base::limits::MAX_MEMORY_TOPIC_BYTES,
                ) {
                    Ok(Some(t)) => t,
                    Ok(None) => {
                        changed = true;
                        plan.push(None);
                        continue;
                    }
                    Err(e) => {
                        problems.push(format!("{}: {e}", path.display()));
                        changed = true;
                        plan.push(None);
                        continue;
                    }
                }
            }
        };
        let hash = hash_bytes(text.as_bytes());
        match prev {
            // Racy but the same bytes: nothing changed. Once its mtime is
            // out of the racy window of now, a new scan time saved stops
            // these reads.
            Some((i, stamp, h)) if h == hash && stamp == f.stamp => {
                settled |= !is_racy(f.mtime, Some(SystemTime::now()));
                plan.push(Some(Plan::Keep(i)));
            }
            _ => {
                changed = true;
                read += usize::from(just_written.is_none());
                plan.push(Some(Plan::Index(text, hash)));
            }
        }
    }
    if !changed {
        if let Some(s) = saved {
            if settled {
                // The same index with the time of this scan.
                let mut bytes = s.data.to_vec();
                bytes[32..40].copy_from_slice(&now_ns().to_le_bytes());
                if let Some(index) = ScopeIndex::from_data(scope, Data::Owned(bytes)) {
                    return (index, read, true);
                }
            }
            return (s, read, false);
        }
    }
    let forward = saved.as_ref().map(ScopeIndex::forward);
    let carry = saved.as_ref().zip(forward.as_deref());
    let mut b = Builder::default();
    for (f, p) in found.iter().zip(plan) {
        let topic = name_of(names, &f.name);
        match p {
            None => {}
            Some(Plan::Keep(i)) => {
                if let Some((s, fw)) = carry {
                    b.carry_file(s, i, fw);
                }
            }
            Some(Plan::Index(text, hash)) => {
                let entries = entry::parse(&f.name, &text);
                if b.docs.len() + entries.len() > MAX_MEMORY_ENTRIES {
                    problems.push(format!(
                        "{}: more than {MAX_MEMORY_ENTRIES} entries in the {scope} memory; the rest are not searched",
                        dir.display()
                    ));
                    break;
                }
                let prev = old.get(f.name.as_str()).copied();
                b.add_file(&f.name, topic, f.stamp, hash, &entries, prev.zip(carry));
            }
        }
    }
    let bytes = b.encode(now_ns());
    match ScopeIndex::from_data(scope, Data::Owned(bytes)) {
        Some(index) => (index, read, true),
        None => (ScopeIndex::empty(scope), read, false),
    }
}

fn is_racy(mtime: SystemTime, scanned_at: Option<SystemTime>) -> bool {
    match scanned_at.and_then(|t| t.checked_sub(crate::load::stamp::RACY_WINDOW)) {
        Some(limit) => mtime >= limit,
        None => true,
    }
}

/// Forward lists of a saved index, by document.
type Forward = [Vec<(usize, u16, u8, u8)>];

/// A posting as built: (doc, body count, title count, topic count).
type Posting = (u32, u16, u8, u8);

/// Builds an index in memory and encodes it.
#[derive(Default)]
struct Builder {
    files: Vec<FileOut>,
    docs: Vec<DocOut>,
    terms: HashMap<String, Vec<Posting>>,
    total_len: u64,
}

struct FileOut {
    name: String,
    topic: String,
    stamp: [u64; 4],
    hash: u64,
    first_doc: u32,
    n_docs: u32,
}

struct DocOut {
    id: String,
    file: u32,
    flags: u32,
    updated: i64,
    len: u32,
    title: String,
    text: String,
    meta: String,
    line: u32,
}

impl Builder {
    /// Indexes a topic file's entries; with the saved index and the file's
    /// record in it, an entry whose id, text and metadata are unchanged is
    /// carried over instead of tokenized again.
    fn add_file(
        &mut self,
        name: &str,
        topic: &str,
        stamp: [u64; 4],
        hash: u64,
        entries: &[Entry],
        saved: Option<(usize, (&ScopeIndex, &Forward))>,
    ) {
        let file = self.files.len() as u32;
        let first_doc = self.docs.len() as u32;
        let topic_words = terms::word_list(topic);
        let before: HashMap<&str, usize> = saved
            .map(|(i, (s, _))| {
                let v = s.file_rec(i);
                (v.first_doc..(v.first_doc + v.n_docs).min(s.n_docs))
                    .map(|d| (s.doc_str(d, 0), d))
                    .collect()
            })
            .unwrap_or_default();
        for e in entries {
            if let Some((_, (s, fw))) = saved {
                if let Some(&d) = before.get(e.meta.id.as_str()) {
                    let same = s.doc_str(d, 36) == e.text
                        && serde_json::to_string(&e.meta).is_ok_and(|m| m == s.doc_str(d, 44));
                    if same {
                        self.carry_doc(s, d, fw, file, e.line as u32);
                        continue;
                    }
                }
            }
            self.add_entry(e, file, &topic_words);
        }
        self.files.push(FileOut {
            name: name.to_string(),
            topic: topic.to_string(),
            stamp,
            hash,
            first_doc,
            n_docs: self.docs.len() as u32 - first_doc,
        });
    }

    fn add_entry(&mut self, e: &Entry, file: u32, topic_words: &[String]) {
        let doc = self.docs.len() as u32;
        let mut counts: HashMap<String, (u16, u8, u8)> = HashMap::new();
        let mut len = 0u32;
        for w in topic_words {
            let c = counts.entry(w.clone()).or_default();
            c.2 = c.2.saturating_add(1);
            len += 1;
        }
        for t in &e.meta.topics {
            terms::words(t, |w| {
                let c = counts.entry(w.to_string()).or_default();
                c.2 = c.2.saturating_add(1);
                len += 1;
            });
        }
        let title = e.title();
        terms::words(&title, |w| {
            let c = counts.entry(w.to_string()).or_default();
            c.1 = c.1.saturating_add(1);
            len += 1;
        });
        terms::words(&e.text, |w| {
            let c = counts.entry(w.to_string()).or_default();
            c.0 = c.0.saturating_add(1);
            len += 1;
        });
        for key in terms::file_keys(&e.text, &e.meta.paths) {
            counts.entry(key.word()).or_default().0 = 1;
        }
        for (w, (body, title, topic)) in counts {
            self.terms
                .entry(w)
                .or_default()
                .push((doc, body, title, topic));
        }
        self.total_len += len as u64;
        self.docs.push(DocOut {
            id: e.meta.id.clone(),
            file,
            flags: if e.meta.pinned { PINNED } else { 0 },
            updated: e.updated_secs(),
            len,
            title,
            text: e.text.clone(),
            meta: serde_json::to_string(&e.meta).unwrap_or_default(),
            line: e.line as u32,
        });
    }

    /// Carries a whole topic file of `old` over unchanged.
    fn carry_file(&mut self, old: &ScopeIndex, file: usize, forward: &Forward) {
        let v = old.file_rec(file);
        let new_file = self.files.len() as u32;
        let first_doc = self.docs.len() as u32;
        for d in v.first_doc..(v.first_doc + v.n_docs).min(old.n_docs) {
            let line = old.entry(d).line() as u32;
            self.carry_doc(old, d, forward, new_file, line);
        }
        self.files.push(FileOut {
            name: v.name.to_string(),
            topic: v.topic.to_string(),
            stamp: v.stamp,
            hash: v.hash,
            first_doc,
            n_docs: self.docs.len() as u32 - first_doc,
        });
    }

    /// Carries one document of `old` over, into file `file` at `line`.
    fn carry_doc(&mut self, old: &ScopeIndex, d: usize, forward: &Forward, file: u32, line: u32) {
        let doc = self.docs.len() as u32;
        for &(t, body, title, topic) in forward.get(d).map(Vec::as_slice).unwrap_or(&[]) {
            let word = old.term(t).0;
            match self.terms.get_mut(word) {
                Some(list) => list.push((doc, body, title, topic)),
                None => {
                    self.terms
                        .insert(word.to_string(), vec![(doc, body, title, topic)]);
                }
            }
        }
        let len = old.doc_len(d);
        self.total_len += len as u64;
        let e = old.entry(d);
        self.docs.push(DocOut {
            id: e.id().to_string(),
            file,
            flags: old.doc_flags(d),
            updated: old.doc_updated(d),
            len,
            title: e.title().to_string(),
            text: e.text().to_string(),
            meta: old.doc_str(d, 44).to_string(),
            line,
        });
    }

    fn encode(mut self, scanned_at: i64) -> Vec<u8> {
        let mut strings: Vec<u8> = Vec::new();
        let mut put = |s: &str| -> (u32, u32) {
            let off = strings.len() as u32;
            strings.extend_from_slice(s.as_bytes());
            (off, s.len() as u32)
        };
        let mut files = Vec::with_capacity(self.files.len() * FILE_REC);
        for f in &self.files {
            let (no, nl) = put(&f.name);
            let (to, tl) = put(&f.topic);
            for v in [no, nl, to, tl] {
                files.extend_from_slice(&v.to_le_bytes());
            }
            for v in f.stamp {
                files.extend_from_slice(&v.to_le_bytes());
            }
            files.extend_from_slice(&f.hash.to_le_bytes());
            files.extend_from_slice(&f.first_doc.to_le_bytes());
            files.extend_from_slice(&f.n_docs.to_le_bytes());
        }
        let mut docs = Vec::with_capacity(self.docs.len() * DOC_REC);
        for d in &self.docs {
            let (io, il) = put(&d.id);
            let (to, tl) = put(&d.title);
            let (xo, xl) = put(&d.text);
            let (mo, ml) = put(&d.meta);
            for v in [io, il, d.file, d.flags] {
                docs.extend_from_slice(&v.to_le_bytes());
            }
            docs.extend_from_slice(&d.updated.to_le_bytes());
            docs.extend_from_slice(&d.len.to_le_bytes());
            for v in [to, tl, xo, xl, mo, ml, d.line, 0, 0] {
                docs.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut words: Vec<(String, Vec<Posting>)> = self.terms.drain().collect();
        words.sort_by(|a, b| a.0.cmp(&b.0));
        let mut term_table = Vec::with_capacity(words.len() * TERM_REC);
        let mut postings = Vec::new();
        let mut n_post = 0u32;
        for (w, list) in &words {
            let (wo, wl) = put(w);
            for v in [wo, wl, list.len() as u32, n_post] {
                term_table.extend_from_slice(&v.to_le_bytes());
            }
            for &(doc, body, title, topic) in list {
                postings.extend_from_slice(&doc.to_le_bytes());
                let rest = body as u32 | (title as u32) << 16 | (topic as u32) << 24;
                postings.extend_from_slice(&rest.to_le_bytes());
            }
            n_post += list.len() as u32;
        }
        let files_off = HEADER;
        let docs_off = files_off + files.len();
        let terms_off = docs_off + docs.len();
        let post_off = terms_off + term_table.len();
        let str_off = post_off + postings.len();
        let size = str_off + strings.len();
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION,
            self.files.len() as u32,
            self.docs.len() as u32,
            words.len() as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.total_len.to_le_bytes());
        out.extend_from_slice(&scanned_at.to_le_bytes());
        for v in [files_off, docs_off, terms_off, post_off, str_off, size] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&files);
        out.extend_from_slice(&docs);
        out.extend_from_slice(&term_table);
        out.extend_from_slice(&postings);
        out.extend_from_slice(&strings);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Entry {
        Entry::new(
            text,
            SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000),
        )
    }

    fn index(files: &[(&str, &str, Vec<Entry>)]) -> MemoryIndex {
        let mut b = Builder::default();
        for (name, topic, entries) in files {
            b.add_file(name, topic, [0; 4], 0, entries, None);
        }
        let scope = ScopeIndex::from_data(MemoryScope::Project, Data::Owned(b.encode(0))).unwrap();
        MemoryIndex {
            scopes: vec![ScopeIndex::empty(MemoryScope::User), scope],
            problems: Vec::new(),
            reindexed: 0,
        }
    }

    fn ids(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|h| h.text.as_str()).collect()
    }

    #[test]
    fn bm25_ranks_by_rare_words_and_fields() {
        let idx = index(&[
            (
                "db.md",
                "database",
                vec![
                    doc("The staging database listens on port 5433."),
                    doc("Backups run nightly."),
                ],
            ),
            (
                "build.md",
                "build",
                vec![
                    doc("Run cargo nextest for the integration tests."),
                    doc("The release build strips symbols."),
                ],
            ),
        ]);
        let q = |text: &str| {
            idx.search(
                &Query {
                    text,
                    files: &[],
                    limit: 5,
                },
                &|_| false,
            )
        };
        assert_eq!(
            ids(&q("which port does staging use?"))[0],
            "The staging database listens on port 5433."
        );
        // The topic's name counts: "database" finds both entries of that topic first.
        let hits = q("database");
        assert_eq!(hits.len(), 2);
        assert!(hits.iter().all(|h| h.topic == "database"));
        assert_eq!(
            ids(&q("how do I run the tests"))[0],
            "Run cargo nextest for the integration tests."
        );
        assert!(q("kubernetes").is_empty());
        let h = &q("staging port")[0];
        assert_eq!(h.matched, ["port", "stage"]);
        assert_eq!(h.affinity, 0.0);
    }

    #[test]
    fn files_in_context_pull_entries_that_name_them_or_match_their_globs() {
        let mut glob = doc("Migrations are append-only.");
        glob.meta.paths = vec!["migrations/**/*.sql".into(), "!migrations/old/**".into()];
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("Edit src/db/pool.rs with care: the pool size is tuned."),
                glob,
                doc("Unrelated note about docs."),
            ],
        )]);
        let q = |files: &[&str]| {
            let files: Vec<String> = files.iter().map(|s| s.to_string()).collect();
            idx.search(
                &Query {
                    text: "",
                    files: &files,
                    limit: 5,
                },
                &|_| false,
            )
        };
        let hits = q(&["src/db/pool.rs"]);
        assert_eq!(
            ids(&hits),
            ["Edit src/db/pool.rs with care: the pool size is tuned."]
        );
        assert_eq!(hits[0].tie.as_ref().unwrap().1, "names it");
        assert_eq!(
            ids(&q(&["lib/pool.rs"])),
            ["Edit src/db/pool.rs with care: the pool size is tuned."]
        );
        let hits = q(&["migrations/2024/01_init.sql"]);
        assert_eq!(ids(&hits), ["Migrations are append-only."]);
        assert_eq!(hits[0].tie.as_ref().unwrap().1, "paths migrations/**/*.sql");
        assert!(
            q(&["migrations/old/x.sql"]).is_empty(),
            "excluded by the ! glob"
        );
        assert!(q(&["README.md"]).is_empty());
    }

    #[test]
    fn ties_go_to_the_newest_then_the_id_and_skip_leaves_out() {
        let mut old = doc("deploy with make deploy");
        old.meta.updated = Some("2020-01-01T00:00:00Z".into());
        let mut new = doc("deploy with make deploy");
        new.meta.updated = Some("2024-01-01T00:00:00Z".into());
        let new_id = new.meta.id.clone();
        let old_id = old.meta.id.clone();
        let idx = index(&[("a.md", "a", vec![old, new])]);
        let hits = idx.search(
            &Query {
                text: "deploy",
                files: &[],
                limit: 5,
            },
            &|_| false,
        );
        assert_eq!(hits[0].id, new_id);
        let hits = idx.search(
            &Query {
                text: "deploy",
                files: &[],
                limit: 5,
            },
            &|id| id == new_id,
        );
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, old_id);
    }

    #[test]
    fn a_damaged_index_is_not_read() {
        let mut b = Builder::default();
        b.add_file("a.md", "a", [0; 4], 0, &[doc("x")], None);
        let bytes = b.encode(0);
        assert!(ScopeIndex::from_data(MemoryScope::User, Data::Owned(bytes.clone())).is_some());
        for cut in [0, 8, HEADER, bytes.len() - 1] {
            assert!(
                ScopeIndex::from_data(MemoryScope::User, Data::Owned(bytes[..cut].to_vec()))
                    .is_none()
            );
        }
        let mut other = bytes.clone();
        other[8] = 99;
        assert!(ScopeIndex::from_data(MemoryScope::User, Data::Owned(other)).is_none());
    }
}
