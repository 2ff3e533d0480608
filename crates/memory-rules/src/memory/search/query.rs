//! What a search asks ([`Query`]) and what it answers ([`MemoryHit`]).

use crate::memory::store::MemoryScope;

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
pub struct MemoryHit {
    pub scope: MemoryScope,
    pub id: String,
    pub topic: String,
    pub file: String,
    pub title: String,
    pub text: String,
    /// `bm25 + AFFINITY_WEIGHT * affinity`, a tie by the note's text
    /// weighed by the query's words it holds ([`super::ranking::TEXT_TIE_FLOOR`]).
    pub score: f32,
    /// The text's score: BM25 plus the prompt's coverage
    /// ([`super::ranking::COVERAGE_WEIGHT`]).
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
    /// The id of the newer entry that superseded it (its metadata's
    /// `superseded_by`), whether or not that entry is still there.
    pub superseded_by: Option<String>,
}

impl MemoryHit {
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
            "updated": crate::memory::entry::day(self.updated),
            "pinned": self.pinned,
        })
    }
}
