//! Building a scope's index in memory and encoding it in the saved format
//! ([`super::index_file`]): entries indexed from their text, or carried
//! over from the saved index when their topic or they are unchanged.

use super::index_file::{
    unreachable_empty, ScopeIndex, DOC_REC, FILE_REC, HEADER, MAGIC, PINNED, TERM_REC, VERSION,
};
use crate::memory::entry::Entry;
use crate::memory::store::MemoryScope;
use crate::memory::terms;
use std::collections::HashMap;

/// Forward lists of a saved index, by document.
pub(super) type Forward = [Vec<(usize, u16, u8, u8)>];

/// A posting as built: (doc, body count, title count, topic count).
type Posting = (u32, u16, u8, u8);

/// Builds an index in memory and encodes it.
#[derive(Default)]
pub(super) struct IndexBuilder {
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

impl IndexBuilder {
    /// How many entries it holds so far.
    pub(super) fn len(&self) -> usize {
        self.docs.len()
    }

    /// Indexes a topic file's entries; with the saved index and the file's
    /// record in it, an entry whose id, text and metadata are unchanged is
    /// carried over instead of tokenized again.
    pub(super) fn add_file(
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
        for key in terms::folder_keys(&e.text, &e.meta.paths) {
            counts.entry(key.word()).or_default().0 = 1;
        }
        for key in terms::name_keys(&e.text) {
            counts.entry(key.word()).or_default().0 = 1;
        }
        for key in terms::pattern_keys(&e.text) {
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
    pub(super) fn carry_file(&mut self, old: &ScopeIndex, file: usize, forward: &Forward) {
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

    /// The index's bytes: scanned at `scanned_at` (nanoseconds since the
    /// epoch), of a directory of this `signature` (0: none).
    pub(super) fn encode(mut self, scanned_at: i64, signature: u64) -> Vec<u8> {
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
        out.extend_from_slice(&signature.to_le_bytes());
        out.extend_from_slice(&files);
        out.extend_from_slice(&docs);
        out.extend_from_slice(&term_table);
        out.extend_from_slice(&postings);
        out.extend_from_slice(&strings);
        out
    }
}

/// An index with no entries.
pub(super) fn empty_index(scope: MemoryScope) -> ScopeIndex {
    ScopeIndex::from_data(
        scope,
        crate::base::fs::FileBytes::Read(IndexBuilder::default().encode(0, 0)),
    )
    .unwrap_or_else(|| unreachable_empty(scope))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn doc(text: &str) -> Entry {
        Entry::new(
            text,
            SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000),
        )
    }

    #[test]
    fn a_damaged_index_is_not_read() {
        let mut b = IndexBuilder::default();
        b.add_file("a.md", "a", [0; 4], 0, &[doc("x")], None);
        let bytes = b.encode(0, 0);
        assert!(ScopeIndex::from_data(
            MemoryScope::User,
            crate::base::fs::FileBytes::Read(bytes.clone())
        )
        .is_some());
        for cut in [0, 8, HEADER, bytes.len() - 1] {
            assert!(ScopeIndex::from_data(
                MemoryScope::User,
                crate::base::fs::FileBytes::Read(bytes[..cut].to_vec())
            )
            .is_none());
        }
        let mut other = bytes.clone();
        other[8] = 99;
        assert!(
            ScopeIndex::from_data(MemoryScope::User, crate::base::fs::FileBytes::Read(other))
                .is_none()
        );
    }
}
