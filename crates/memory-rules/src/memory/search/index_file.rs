//! The saved index's file format, and reading it in place.
//!
//! One file per scope: a 72-byte header (magic, version, counts, the total
//! length of all entries, the time of the scan, the offsets of the tables,
//! and the signature of the scope's directory as scanned: its topic files'
//! and `MEMORY.md`'s names and stamps, 0 when the index does not hold every
//! topic file), then fixed-size records for the topic files, the entries
//! (documents) and the words, the postings of each word sorted by document,
//! and the strings they point into. All numbers are little-endian. The file
//! is mapped (read on WebAssembly), checked once ([`ScopeIndex::from_data`]),
//! and read record by record.

use crate::base::fs::{FileBytes, Links};
use crate::base::limits::MAX_MEMORY_INDEX_BYTES;
use crate::memory::entry::Meta;
use crate::memory::store::MemoryScope;
use std::path::Path;

pub(super) const MAGIC: &[u8; 8] = b"WMEMIDX\0";
/// Bumped whenever the layout or the words change: an index of another
/// version is rebuilt.
pub(super) const VERSION: u32 = 6;
pub(super) const HEADER: usize = 72;
pub(super) const FILE_REC: usize = 64;
pub(super) const DOC_REC: usize = 64;
pub(super) const TERM_REC: usize = 16;
pub(super) const POSTING: usize = 8;

/// Flags of a document record.
pub(super) const PINNED: u32 = 1;

/// One scope's index, read in place.
pub struct ScopeIndex {
    pub(super) scope: MemoryScope,
    pub(super) data: FileBytes,
    pub(super) n_files: usize,
    pub(super) n_docs: usize,
    n_terms: usize,
    pub(super) total_len: u64,
    pub(super) scanned_at: i64,
    /// The directory's signature when it was scanned (see the module
    /// comment); 0: none, the topic files are compared one by one.
    pub(super) signature: u64,
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
    /// Reads the header; `None` when it is not an index of this version or a
    /// table does not fit in the bytes.
    pub(super) fn from_data(scope: MemoryScope, data: FileBytes) -> Option<ScopeIndex> {
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
        let signature = u64_at(b, 64);
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
            signature,
            files_off,
            docs_off,
            terms_off,
            post_off,
            str_off,
        })
    }

    /// The same index with another scan time (nanoseconds since the epoch)
    /// and directory signature.
    pub(super) fn rescanned(&self, scanned_at: i64, signature: u64) -> Option<ScopeIndex> {
        let mut bytes = self.data.to_vec();
        bytes[32..40].copy_from_slice(&scanned_at.to_le_bytes());
        bytes[64..72].copy_from_slice(&signature.to_le_bytes());
        ScopeIndex::from_data(self.scope, FileBytes::Read(bytes))
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

    pub(super) fn file_rec(&self, i: usize) -> FileView<'_> {
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

    pub(super) fn doc_str(&self, i: usize, field: usize) -> &str {
        let at = self.doc_at(i) + field;
        self.str_at(
            u32_at(&self.data, at) as usize,
            u32_at(&self.data, at + 4) as usize,
        )
    }

    fn doc_file(&self, i: usize) -> usize {
        u32_at(&self.data, self.doc_at(i) + 8) as usize
    }

    /// Whether document `i`'s id is `id` (its bytes compared, not read as
    /// a string).
    pub(super) fn doc_id_is(&self, i: usize, id: &str) -> bool {
        let at = self.doc_at(i);
        let (off, len) = (
            u32_at(&self.data, at) as usize,
            u32_at(&self.data, at + 4) as usize,
        );
        len == id.len() && {
            let start = self.str_off.saturating_add(off);
            self.data.get(start..start.saturating_add(len)) == Some(id.as_bytes())
        }
    }

    pub(super) fn doc_flags(&self, i: usize) -> u32 {
        u32_at(&self.data, self.doc_at(i) + 12)
    }

    pub(super) fn doc_updated(&self, i: usize) -> i64 {
        u64_at(&self.data, self.doc_at(i) + 16) as i64
    }

    pub(super) fn doc_len(&self, i: usize) -> u32 {
        u32_at(&self.data, self.doc_at(i) + 24)
    }

    /// The documents' lengths, read from the document table in place.
    pub(super) fn doc_lens(&self) -> DocLens<'_> {
        let end = self
            .docs_off
            .saturating_add(self.n_docs.saturating_mul(DOC_REC));
        DocLens(self.data.get(self.docs_off..end).unwrap_or(&[]))
    }

    pub(super) fn term(&self, t: usize) -> (&str, usize, usize) {
        let at = self.terms_off + t * TERM_REC;
        let b = &self.data;
        (
            self.str_at(u32_at(b, at) as usize, u32_at(b, at + 4) as usize),
            u32_at(b, at + 8) as usize,
            u32_at(b, at + 12) as usize,
        )
    }

    /// The term's (document frequency, first posting), by binary search
    /// (the terms' bytes compared: the order of `str`).
    pub(super) fn lookup(&self, word: &str) -> Option<(usize, usize)> {
        let b: &[u8] = &self.data;
        let (mut lo, mut hi) = (0, self.n_terms);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let at = self.terms_off + mid * TERM_REC;
            let start = self.str_off.saturating_add(u32_at(b, at) as usize);
            let len = u32_at(b, at + 4) as usize;
            let t = b.get(start..start.saturating_add(len)).unwrap_or(&[]);
            let (df, first) = (u32_at(b, at + 8) as usize, u32_at(b, at + 12) as usize);
            match t.cmp(word.as_bytes()) {
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

    pub(super) fn postings(&self, word: &str) -> impl Iterator<Item = (usize, u16, u8, u8)> + '_ {
        let (df, first) = self.lookup(word).unwrap_or((0, 0));
        let max = (self.str_off - self.post_off) / POSTING;
        let end = first.saturating_add(df).min(max);
        (first.min(end)..end)
            .map(|p| self.posting(p))
            .filter(|&(d, ..)| d < self.n_docs)
    }

    /// The bytes of `word`'s postings ([`POSTING`] each, sorted by
    /// document), those of documents past the last left out; empty when
    /// no entry holds it.
    pub(super) fn posting_bytes(&self, word: &str) -> &[u8] {
        let Some((df, first)) = self.lookup(word) else {
            return &[];
        };
        let start = self.post_off.saturating_add(first.saturating_mul(POSTING));
        let end = start
            .saturating_add(df.saturating_mul(POSTING))
            .min(self.str_off);
        let Some(bytes) = self.data.get(start.min(end)..end) else {
            return &[];
        };
        let n = bytes.len() / POSTING;
        let doc = |i: usize| u32_at(bytes, i * POSTING) as usize;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if doc(mid) < self.n_docs {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        &bytes[..lo * POSTING]
    }

    /// Whether `doc` holds `word` (its postings are sorted by doc).
    pub(super) fn holds(&self, word: &str, doc: usize) -> bool {
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
    pub(super) fn forward(&self) -> Vec<Vec<(usize, u16, u8, u8)>> {
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

    pub(super) fn entry(&self, i: usize) -> EntryRef<'_> {
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

pub(super) fn unreachable_empty(scope: MemoryScope) -> ScopeIndex {
    // The empty index always encodes to a valid header; this only satisfies
    // the types.
    ScopeIndex {
        scope,
        data: FileBytes::Read(Vec::new()),
        n_files: 0,
        n_docs: 0,
        n_terms: 0,
        total_len: 0,
        scanned_at: 0,
        signature: 0,
        files_off: 0,
        docs_off: 0,
        terms_off: 0,
        post_off: 0,
        str_off: 0,
    }
}

/// The document table of an index, for the length of each document.
pub(super) struct DocLens<'a>(&'a [u8]);

impl DocLens<'_> {
    /// Document `d`'s length (0 past the table).
    #[inline]
    pub(super) fn len_of(&self, d: usize) -> u32 {
        u32_at(self.0, d * DOC_REC + 24)
    }
}

pub(super) struct FileView<'a> {
    pub(super) name: &'a str,
    pub(super) topic: &'a str,
    pub(super) stamp: [u64; 4],
    pub(super) hash: u64,
    pub(super) first_doc: usize,
    pub(super) n_docs: usize,
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
    /// Its metadata's `superseded_by` (parsed only when the JSON names it).
    pub fn superseded_by(&self) -> Option<String> {
        let json = self.index.doc_str(self.doc, 44);
        if json.contains("superseded_by") {
            self.meta().superseded_by
        } else {
            None
        }
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

/// Maps (or reads) a saved index; `None` when absent, too large, or not an
/// index of this version.
pub(super) fn load_saved(path: &Path, scope: MemoryScope) -> Option<ScopeIndex> {
    let data = crate::base::fs::map_bounded(path, MAX_MEMORY_INDEX_BYTES, Links::Refuse).ok()?;
    ScopeIndex::from_data(scope, data)
}
