//! Recall: the memory entries due at an event of a conversation.
//!
//! At the session's start: the index (one line per topic) and the pinned
//! entries. At a prompt: the entries most relevant to it (and to the files
//! it names). When files are touched: the entries tied to those files (they
//! name them or a folder above them, or a glob of their `paths` matches;
//! an affinity of at least [`MIN_TIE_AFFINITY`]), ranked with the files'
//! path words. Each time only entries
//! the conversation has not been given, at most [`RecallBudget::entries`]
//! of them and [`RecallBudget::bytes`] of text, and only those that hold
//! rare words of the prompt (the inverse document frequencies of the words
//! they share with it add up to [`MIN_MATCHED_IDF`], or to [`MIN_RARE_WORDS`]
//! words only one entry holds in a memory too small for that), or whose own words the
//! prompt covers for at least [`MIN_COVERAGE`] of their weight (what counts
//! in a memory of a few notes, where no word is rare), or that are tied to
//! its files; and scoring at least [`RELATIVE_SCORE`] of the best: an
//! unrelated prompt brings nothing. After a compaction the entries given
//! before come again. The session ([`crate::delivery::session::Session::recall`])
//! records what was given; this module only decides.
//!
//! The other way, the first lines of every topic in index order until a
//! budget is used ([`super::MemoryStore::load_for_prompt`]), stays
//! available; docs/memory.md compares the two.

use super::agent_memory::AgentMemory;
use super::search::{MemoryHit, MemoryIndex, Query};
use super::store::MemoryScope;
use super::terms;
use crate::base::limits::{DEFAULT_RECALL_BYTES, DEFAULT_RECALL_ENTRIES};

/// A recalled entry shares words with the prompt whose inverse document
/// frequencies add up to at least this (or it is tied to a file)...
pub const MIN_MATCHED_IDF: f32 = 5.0;
/// ... or, in a memory too small for any word to weigh that much, to this
/// many of its rarest words (a word only one entry holds).
pub const MIN_RARE_WORDS: f32 = 1.5;
/// ... or the words it shares with the prompt weigh at least this share of
/// its own words (inverse document frequencies).
pub const MIN_COVERAGE: f32 = 0.5;
/// A tie to a file counts from this affinity (a note naming the file, its
/// name, a folder above it or a glob matching it; not one only near it).
pub const MIN_TIE_AFFINITY: f32 = 0.5;
/// ... and at least this share of the best score of its event.
pub const RELATIVE_SCORE: f32 = 0.6;
/// Candidates looked at per event before the thresholds and the budget.
const CANDIDATES: usize = 32;

/// How much memory one event may bring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecallBudget {
    /// At most this many entries.
    pub entries: usize,
    /// At most this many bytes of rendered text.
    pub bytes: usize,
}

impl Default for RecallBudget {
    fn default() -> RecallBudget {
        RecallBudget {
            entries: DEFAULT_RECALL_ENTRIES,
            bytes: DEFAULT_RECALL_BYTES,
        }
    }
}

/// What happened in the conversation.
#[derive(Clone, Copy, Debug)]
pub enum RecallEvent<'a> {
    /// The session starts; `again`: after a compaction or a clear, with the
    /// ids given before it.
    Start { again: &'a [String] },
    /// A prompt.
    Prompt(&'a str),
    /// Files touched (workdir-relative).
    Files(&'a [String]),
}

/// The recall of one event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recalled {
    /// Markdown to give the model ('' when nothing is due).
    pub text: String,
    /// The entries in it, best first, with why each came.
    pub entries: Vec<MemoryHit>,
    /// Ids that were due but left out for the budget.
    pub omitted: Vec<String>,
}

impl Recalled {
    /// The ids given.
    pub fn ids(&self) -> Vec<String> {
        self.entries.iter().map(|h| h.id.clone()).collect()
    }
}

/// What is due at `event` (see the module comment); `given` tells the ids
/// the conversation already holds.
pub fn recall(
    index: &MemoryIndex,
    event: RecallEvent<'_>,
    given: &dyn Fn(&str) -> bool,
    budget: RecallBudget,
) -> Recalled {
    match event {
        RecallEvent::Start { again } => start(index, again, given, budget),
        RecallEvent::Prompt(prompt) => {
            let files: Vec<String> = terms::tokens(prompt).filter_map(terms::file_like).collect();
            let hits = candidates(index, prompt, &files, given);
            let hits = relevant(index, hits, false);
            render(hits, "## Memory (recalled for this prompt)", budget)
        }
        RecallEvent::Files(files) => {
            let hits = candidates(index, "", files, given);
            let hits = relevant(index, hits, true);
            render(hits, "## Memory (recalled for these files)", budget)
        }
    }
}

fn candidates(
    index: &MemoryIndex,
    text: &str,
    files: &[String],
    given: &dyn Fn(&str) -> bool,
) -> Vec<MemoryHit> {
    // A superseded entry is never recalled: its newer note is.
    super::search::search_current(
        index,
        &Query {
            text,
            files,
            limit: CANDIDATES,
        },
        given,
    )
}

/// The hits over the thresholds; for files, only entries tied to them. The
/// relative score is taken against the best of the hits that pass the
/// other thresholds (a hit left out does not raise the bar).
fn relevant(index: &MemoryIndex, hits: Vec<MemoryHit>, tied_only: bool) -> Vec<MemoryHit> {
    let min_idf = MIN_MATCHED_IDF.min(MIN_RARE_WORDS * index.rarest_idf());
    let passing: Vec<MemoryHit> = hits
        .into_iter()
        .filter(|h| {
            h.affinity >= MIN_TIE_AFFINITY
                || (!tied_only && (h.matched_idf >= min_idf || coverage(index, h) >= MIN_COVERAGE))
        })
        .collect();
    let best = passing.first().map_or(0.0, |h| h.score);
    passing
        .into_iter()
        .filter(|h| h.score >= RELATIVE_SCORE * best)
        .collect()
}

/// How much of the entry's own words (by inverse document frequency) the
/// query shares with it.
fn coverage(index: &MemoryIndex, h: &MemoryHit) -> f32 {
    let mut own = terms::word_list(&h.text);
    own.extend(terms::word_list(&h.topic));
    own.sort();
    own.dedup();
    let all: f32 = own.iter().map(|w| index.idf(w)).sum();
    if all == 0.0 {
        0.0
    } else {
        h.matched_idf / all
    }
}

/// `[id · scope/topic] text`, one entry per block.
pub fn entry_block(h: &MemoryHit) -> String {
    format!("[{} · {}/{}] {}", h.id, h.scope, h.topic, h.text.trim())
}

fn render(hits: Vec<MemoryHit>, heading: &str, budget: RecallBudget) -> Recalled {
    let mut out = Recalled::default();
    let mut text = String::new();
    for h in hits {
        let block = entry_block(&h);
        let would = if text.is_empty() {
            heading.len() + 1 + block.len()
        } else {
            text.len() + 2 + block.len()
        };
        if out.entries.len() >= budget.entries || would > budget.bytes {
            out.omitted.push(h.id.clone());
            continue;
        }
        if text.is_empty() {
            text.push_str(heading);
            text.push('\n');
        } else {
            text.push_str("\n\n");
        }
        text.push_str(&block);
        out.entries.push(h);
    }
    out.text = text;
    out
}

/// The agents' own entries (read-only, `memory_sources`) most relevant to
/// `query` that the conversation was not given ([`AgentMemory::search`]),
/// within `budget`: the text and the entries' origins, which serve as
/// their ids.
pub fn recall_agents(
    memory: &AgentMemory,
    query: &str,
    given: &dyn Fn(&str) -> bool,
    budget: RecallBudget,
) -> (String, Vec<String>) {
    let heading = "## Memory (the agents' own, read-only)";
    let mut text = String::new();
    let mut ids = Vec::new();
    for e in memory.search(query, CANDIDATES) {
        let origin = e.origin();
        if given(&origin) || ids.len() >= budget.entries {
            continue;
        }
        let block = format!("[{origin} · {}] {}", e.topic, e.text.trim());
        let sep = if text.is_empty() {
            heading.len() + 1
        } else {
            2
        };
        if text.len() + sep + block.len() > budget.bytes {
            continue;
        }
        text.push_str(if text.is_empty() { heading } else { "\n" });
        text.push('\n');
        text.push_str(&block);
        ids.push(origin);
    }
    (text, ids)
}

fn start(
    index: &MemoryIndex,
    again: &[String],
    given: &dyn Fn(&str) -> bool,
    budget: RecallBudget,
) -> Recalled {
    let topics = index.topics();
    if topics.is_empty() {
        return Recalled::default();
    }
    let mut text = String::from(
        "## Memory\nSaved notes, by topic (memory_read a topic for its notes; memory_search to search; the relevant ones also come with each prompt):\n",
    );
    for scope in [MemoryScope::User, MemoryScope::Project] {
        let line: Vec<String> = topics
            .iter()
            .filter(|t| t.0 == scope)
            .map(|(_, name, file, n)| {
                format!(
                    "{name} ({file}, {n} note{})",
                    if *n == 1 { "" } else { "s" }
                )
            })
            .collect();
        if !line.is_empty() {
            text.push_str(&format!("- {scope}: {}\n", line.join("; ")));
        }
    }
    let mut out = Recalled::default();
    // Pinned entries, then those given before a compaction: the budget
    // holds for them together; the index itself is always given.
    let mut due: Vec<MemoryHit> = Vec::new();
    for e in index.pinned() {
        if !given(e.id()) {
            due.push(hit_of(&e));
        }
    }
    for id in again {
        if let Ok(e) = index.find(id) {
            if e.id() == id && !given(id) && !due.iter().any(|h| h.id == *id) {
                due.push(hit_of(&e));
            }
        }
    }
    let mut used = 0;
    let mut blocks = Vec::new();
    for h in due {
        let block = entry_block(&h);
        if out.entries.len() >= budget.entries.max(again.len().min(budget.entries * 2))
            || used + block.len() > budget.bytes
        {
            out.omitted.push(h.id.clone());
            continue;
        }
        used += block.len() + 2;
        blocks.push(block);
        out.entries.push(h);
    }
    if !blocks.is_empty() {
        text.push('\n');
        text.push_str(&blocks.join("\n\n"));
    }
    out.text = text.trim_end().to_string();
    out
}

fn hit_of(e: &super::search::EntryRef<'_>) -> MemoryHit {
    MemoryHit {
        scope: e.scope(),
        id: e.id().to_string(),
        topic: e.topic().to_string(),
        file: e.file().to_string(),
        title: e.title().to_string(),
        text: e.text().to_string(),
        score: 0.0,
        bm25: 0.0,
        affinity: 0.0,
        tie: None,
        matched: Vec::new(),
        matched_idf: 0.0,
        updated: e.updated(),
        pinned: e.pinned(),
        line: e.line(),
        superseded_by: e.superseded_by(),
    }
}
