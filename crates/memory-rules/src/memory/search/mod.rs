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
//! and stats each topic file and `MEMORY.md`: when their names and stamps
//! hash to the signature the index saved, and none has an mtime within
//! [`crate::load::stamp::RACY_WINDOW`] of the index's scan, the index is
//! used as it is (`MEMORY.md` not read, no record compared). Otherwise
//! only the topics whose stamp changed, or whose
//! mtime falls within [`crate::load::stamp::RACY_WINDOW`] of the index's scan and whose
//! bytes changed, are read and indexed again; the other entries are kept as
//! indexed, and the file is written again (atomically) only when something
//! changed. A search reads only the words it looks up and the entries it
//! returns.
//!
//! Ranking ([`MemoryIndex::search`]): BM25 (k1 1.2, b 0.75) over the three
//! fields, the topic's name counting twice and the title once more (a word
//! of the prompt there 1.75 times more, `PROMPT_TITLE_WEIGHT`), with the
//! document frequencies of both scopes together and SQLite FTS5's idf
//! (a word in over half the entries counts for nothing), the prompt's
//! function words ([`super::terms::is_function_word`]) weighing
//! [`super::terms::FUNCTION_WORD_WEIGHT`]; plus a coverage
//! bonus, [`ranking::COVERAGE_WEIGHT`] times the share of the prompt's idf
//! the entry holds; plus the entry's affinity
//! to the files in context (it names the file: 1, a glob of its `paths`
//! matches the file, it names a folder above it or a folder of the same
//! name deeper in the file's path: by nearness, less for a folder many
//! notes name; it writes its module or package dotted, `io.netty.util`,
//! weakly: [`file_keys::MODULE`]; see [`ranking`]), weighted by
//! [`ranking::AFFINITY_WEIGHT`] (a tie by a name the note writes, not the
//! file's path or a glob, down to [`ranking::TEXT_TIE_FLOOR`] when the note
//! holds little of the query's words),
//! and the files' path words ([`super::terms::path_words`]) as query words
//! by their nearness, their names (the stem, each folder's
//! name, whole: `codec-http2`, `emqx_conf_schema`;
//! [`super::terms::path_names`]) by their nearness;
//! ties go to the entry updated last, then
//! to the smaller id. The same files give the same bytes and the same order.
//!
//! By file: `index_file.rs` (the saved format, read in place),
//! `index_builder.rs` (building and encoding it), `refresh.rs` (bringing it
//! up to date with the topic files), `ranking.rs` (BM25, coverage and file affinity),
//! `postings.rs` (a query's terms as postings, summed per entry),
//! `query.rs` (what a search asks, what it answers).

mod current;
mod file_keys;
mod index_builder;
mod index_file;
mod postings;
mod query;
mod ranking;
mod refresh;

pub use current::{search_current, without_superseded};
pub use index_file::{EntryRef, ScopeIndex};
pub use query::{MemoryHit, Query};

use super::store::{MemoryScope, MemoryStore};
use ranking::idf;
use refresh::open_scope;

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
        self.scopes
            .iter()
            .any(|s| (0..s.n_docs).any(|d| s.doc_id_is(d, id)))
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
    pub fn search(&self, query: &Query<'_>, skip: &dyn Fn(&str) -> bool) -> Vec<MemoryHit> {
        ranking::search(self, query, skip)
    }
}
