//! How a search ranks entries: BM25 over the three fields and the prompt's
//! coverage, plus the entry's affinity to the files in context (see the
//! module comment of [`super`]).
//!
//! A search runs in named steps: the scores of the query's words
//! ([`QueryTerms`], each word's by [`TermScore`]), the files in context each entry is tied to
//! ([`file_ties`]), the best candidates in order with the skipped ones left
//! out ([`best_candidates`]), and a [`MemoryHit`] for each.

use super::file_keys::{
    folder_named, is_module_of, module_keys, named_folder_keys, pattern_keys, NEAR, SAME_NAME,
};
use super::index_file::{ScopeIndex, POSTING};
use super::postings::{self, Postings};
use super::query::{MemoryHit, Query};
use super::MemoryIndex;
use crate::memory::terms::{self, FileKey};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// What a file tie adds to a score, times the affinity (0 to 1).
pub const AFFINITY_WEIGHT: f32 = 6.0;
/// A path word of a file in context weighs this much of a word of the text.
pub const PATH_WORD_WEIGHT: f32 = 0.5;
/// A name of a file in context ([`terms::path_names`]: its stem, its
/// folders' names) weighs this much of a word of the text, times its
/// nearness: a module's folder, whole, counts on top of the path words of
/// its parts ([`PATH_WORD_WEIGHT`] times the nearness).
pub const NAME_WEIGHT: f32 = 0.5;
/// How a name key ([`FileKey::Name`]) starts among the index's words.
const NAME_KEY: &str = "\u{1}i";
/// The affinity of a note whose `paths` glob is under a folder above a
/// file in context, plus [`BELOW_DEPTH`] times the share of the file's
/// folders it covers.
pub const BELOW: f32 = 0.6;
pub const BELOW_DEPTH: f32 = 0.35;
/// The affinity of a note whose text names a folder above a file in
/// context (`apps/`, `services/billing`), plus [`NAMED_BELOW_DEPTH`] times
/// the share of the file's folders it covers: a folder named in passing
/// far above the file (the top of a monorepo) says less than a glob of the
/// note's `paths` ([`BELOW`]); the file's own folder counts as much.
pub const NAMED_BELOW: f32 = 0.3;
pub const NAMED_BELOW_DEPTH: f32 = 0.65;
/// What a tie by the note's text ([`FileTie::by_text`]: a folder named far
/// above the file, `tests/`, `scripts/`; a file of the same name elsewhere)
/// keeps when the note holds none of the query's words: a folder written
/// in passing says less about the file than the file's own rarer words
/// (its stem, its folder's name) do, so a note holding those comes first.
/// A note naming the file itself and a glob of its `paths` keep their tie
/// whole.
pub const TEXT_TIE_FLOOR: f32 = 0.7;
/// The share of the query's weighted idf ([`TermScore::held`]) from which a
/// tie by text counts whole.
pub const TEXT_TIE_FULL: f32 = 0.25;
const K1: f32 = 1.2;
const B: f32 = 0.75;
const TOPIC_WEIGHT: f32 = 2.0;
const TITLE_WEIGHT: f32 = 1.0;
/// A word of the prompt ([`is_prompt_word`]) in the entry's title (its
/// first line) counts this much on top of its count in the text, not
/// [`TITLE_WEIGHT`]: a note's first line says what it is about, as its
/// topic does, so a word the prompt asks about weighs nearly as much
/// there as in the topic. A word of a file's path keeps [`TITLE_WEIGHT`]:
/// a folder or a name in a note's first line is often only where it
/// applies (weighing it more put other notes before the ones a file's own
/// notes give, on files-only queries).
const PROMPT_TITLE_WEIGHT: f32 = 1.75;
/// What a document holding every word of the prompt gets on top of its
/// BM25 score; one holding some of them gets this times their share of the
/// prompt's [`term_idf`] (the rarer the words it holds, the more). A prompt
/// of common words only counts as one rarest word (its words' shares of
/// that stay small).
pub const COVERAGE_WEIGHT: f32 = 4.0;
/// The least [`term_idf`] of a word (SQLite FTS5's floor): a word in more
/// than half the documents counts for next to nothing.
const MIN_TERM_IDF: f32 = 1e-6;

/// A file in context an entry is tied to: how close (0 to 1), which file
/// (its number in the query), and how: by its key of that number
/// ([`tie_keys`]), or by a glob of the entry's `paths`. Described only for
/// the hits ([`FileTie::describe`]).
struct FileTie {
    affinity: f32,
    file: usize,
    how: TieHow,
    /// Tied by a name the note's text writes (a folder, a file's name
    /// elsewhere, a module, a folder near it), not by the file's path or a
    /// glob of its `paths`.
    by_text: bool,
}

enum TieHow {
    Key(usize),
    Glob(String),
}

impl FileTie {
    /// (the file, how: `names it`, `names x.rs`, `names *.spec.js`, `below
    /// src`, `near src`, `paths <glob>`).
    fn describe(&self, files: &[String], keys: &[Vec<(FileKey, f32)>]) -> (String, String) {
        let how = match &self.how {
            TieHow::Glob(g) => format!("paths {g}"),
            TieHow::Key(k) => match &keys[self.file][*k].0 {
                FileKey::File(_) => "names it".to_string(),
                FileKey::Base(b) => match folder_named(&files[self.file], b) {
                    Some(dir) => format!("below {dir}"),
                    None => format!("names {b}"),
                },
                FileKey::Folder(f) if files[self.file].starts_with(&format!("{f}/")) => {
                    format!("below {f}")
                }
                FileKey::Module(m) if is_module_of(&files[self.file], m) => {
                    format!("names module {m}")
                }
                FileKey::Module(m) => format!("in module {m}"),
                FileKey::Folder(f) => format!("in a {f} folder"),
                FileKey::Near(f) => format!("near {f}"),
                FileKey::Pattern(p) => format!("names {p}"),
                FileKey::GlobDir(_) | FileKey::GlobAny | FileKey::Name(_) => String::new(),
            },
        };
        (files[self.file].clone(), how)
    }
}

/// One scope's entries tied to a file in context: for each document, the
/// number of its tie in `ties` (`NO_TIE`: none); a table, not a hash map,
/// as a file ties most entries of a large memory.
#[derive(Default)]
struct ScopeTies {
    slot: Vec<u32>,
    ties: Vec<FileTie>,
}

const NO_TIE: u32 = u32::MAX;

impl ScopeTies {
    fn get(&self, d: usize) -> Option<&FileTie> {
        let i = *self.slot.get(d)?;
        self.ties.get(i as usize)
    }

    /// Ties `d` (replacing its tie, if any).
    fn insert(&mut self, d: usize, tie: FileTie) {
        let Some(slot) = self.slot.get_mut(d) else {
            return;
        };
        match self.ties.get_mut(*slot as usize) {
            Some(old) => *old = tie,
            None => {
                *slot = self.ties.len() as u32;
                self.ties.push(tie);
            }
        }
    }

    /// The tied documents in order, each with what its tie adds to its
    /// score and whether the tie is by the note's text ([`FileTie::by_text`]).
    fn postings(&self) -> Vec<(usize, f32, bool)> {
        self.slot
            .iter()
            .enumerate()
            .filter_map(|(d, &i)| {
                let t = self.ties.get(i as usize)?;
                Some((d, AFFINITY_WEIGHT * t.affinity, t.by_text))
            })
            .collect()
    }
}

/// Per scope, the entries tied to a file in context, by document.
type FileTies = Vec<ScopeTies>;

/// An entry worth returning: (score, scope number, document).
type Candidate = (f32, u32, u32);

/// The best entries of `index` for `query`, best first; `skip` leaves
/// entries out by id.
pub(super) fn search(
    index: &MemoryIndex,
    query: &Query<'_>,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<MemoryHit> {
    if index.is_empty() || query.limit == 0 {
        return Vec::new();
    }
    let words = query_words(query);
    let (ties, keys) = file_ties(&index.scopes, query.files);
    let terms = QueryTerms::new(&index.scopes, &words, &ties);
    let found = terms.candidates();
    let mut cut = query.limit.saturating_mul(2).saturating_add(16);
    let best = loop {
        let whole = found.len() <= cut;
        let kept = best_candidates(&index.scopes, &found, cut, query.limit, skip);
        if whole || kept.len() >= query.limit {
            break kept;
        }
        cut = cut.saturating_mul(4);
    };
    let words: Vec<String> = words.into_iter().map(|(w, _)| w).collect();
    best.into_iter()
        .map(|(score, si, d)| {
            let (si, d) = (si as usize, d as usize);
            let bm25 = terms.bm25_of(si, d);
            let tie = ties[si].get(d);
            let tie = tie.map(|t| (t.affinity, t.describe(query.files, &keys)));
            hit(index, si, d, score, bm25, tie, &words)
        })
        .collect()
}

/// The query's terms in each scope, as [`postings`] reads them: each word
/// of the query the scope holds, scored by BM25 straight from the index's
/// postings, then the file ties.
struct QueryTerms<'a> {
    words: Vec<Vec<WordPostings<'a>>>,
    /// Per scope, the file ties as postings: (entry, what its tie adds).
    ties: Vec<Vec<(usize, f32, bool)>>,
    n_docs: Vec<usize>,
    /// The query's words' weights times their [`term_idf`], summed.
    query_idf: f32,
}

impl<'a> QueryTerms<'a> {
    /// With the document frequencies of all scopes together.
    fn new(scopes: &'a [ScopeIndex], words: &[(String, f32)], ties: &FileTies) -> QueryTerms<'a> {
        let n_total: usize = scopes.iter().map(ScopeIndex::len).sum();
        let total_len: u64 = scopes.iter().map(|s| s.total_len).sum();
        let avg = (total_len as f32 / n_total as f32).max(1.0);
        let mut per_scope: Vec<Vec<WordPostings<'a>>> = scopes.iter().map(|_| Vec::new()).collect();
        let found: Vec<(&str, f32, usize)> = words
            .iter()
            .map(|(w, weight)| {
                let df = scopes.iter().map(|s| s.lookup(w).map_or(0, |(df, _)| df));
                (w.as_str(), *weight, df.sum())
            })
            .filter(|&(.., df)| df > 0)
            .collect();
        let prompt_idf: f32 = found
            .iter()
            .filter(|&&(_, weight, _)| is_prompt_word(weight))
            .map(|&(.., df)| term_idf(n_total as f32, df as f32))
            .sum();
        let query_idf: f32 = found
            .iter()
            .map(|&(_, weight, df)| weight * term_idf(n_total as f32, df as f32))
            .sum();
        for (w, weight, df) in found {
            let term = TermScore::new(weight, n_total as f32, df as f32, prompt_idf);
            for (s, terms) in scopes.iter().zip(per_scope.iter_mut()) {
                let bytes = s.posting_bytes(w);
                if !bytes.is_empty() {
                    terms.push(WordPostings {
                        scope: s,
                        bytes,
                        term: term.clone(),
                        avg,
                    });
                }
            }
        }
        let ties = ties.iter().map(ScopeTies::postings).collect();
        QueryTerms {
            words: per_scope,
            ties,
            n_docs: scopes.iter().map(ScopeIndex::len).collect(),
            query_idf: query_idf.max(f32::MIN_POSITIVE),
        }
    }

    /// Scope `si`'s sums by document: its words' scores, then each file
    /// tie times [`tie_share`] of the query's words the document holds.
    fn scope_sums(&self, si: usize) -> Vec<f32> {
        let n = self.n_docs[si];
        if self.ties[si].is_empty() {
            let words: Vec<&dyn Postings> =
                self.words[si].iter().map(|w| w as &dyn Postings).collect();
            return postings::sums(&words, n);
        }
        let mut acc = vec![0.0f32; n];
        let mut held = vec![0.0f32; n];
        for w in &self.words[si] {
            w.add_with_held(&mut acc, &mut held);
        }
        for &(d, tie, by_text) in &self.ties[si] {
            if let (Some(a), Some(h)) = (acc.get_mut(d), held.get(d)) {
                *a += if by_text {
                    tie * tie_share(*h / self.query_idf)
                } else {
                    tie
                };
            }
        }
        acc
    }

    /// Every entry with a positive score, with its score (the terms of
    /// each scope summed by document: [`postings::scores`]). Scoring every
    /// posting measured cheaper than MaxScore pruning on 10,000 entries
    /// (docs/PERFORMANCE.md): a file tie keeps most entries in play.
    fn candidates(&self) -> Vec<Candidate> {
        let sums: Vec<Vec<f32>> = (0..self.words.len())
            .map(|si| self.scope_sums(si))
            .collect();
        let held = sums.iter().flatten().filter(|s| **s > 0.0).count();
        let mut found = Vec::with_capacity(held);
        for (si, acc) in sums.iter().enumerate() {
            for (d, &s) in acc.iter().enumerate() {
                if s > 0.0 {
                    found.push((s, si as u32, d as u32));
                }
            }
        }
        found
    }

    /// Document `d`'s BM25 score (its words only).
    fn bm25_of(&self, si: usize, d: usize) -> f32 {
        let terms: Vec<&dyn Postings> = self.words[si].iter().map(|w| w as &dyn Postings).collect();
        postings::score_of(&terms, d)
    }
}

/// A word's postings in one scope, each scored by its [`TermScore`] (BM25
/// and the prompt's coverage).
struct WordPostings<'a> {
    scope: &'a ScopeIndex,
    bytes: &'a [u8],
    term: TermScore,
    avg: f32,
}

impl Postings for WordPostings<'_> {
    fn len(&self) -> usize {
        self.bytes.len() / POSTING
    }
    fn doc(&self, i: usize) -> usize {
        let p = &self.bytes[i * POSTING..];
        u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize
    }
    fn score(&self, i: usize) -> f32 {
        let p = &self.bytes[i * POSTING..];
        let d = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
        self.score_of(p, self.scope.doc_len(d))
    }
    /// The same sums as the trait's loop, the document table read in place
    /// (every posting of a common word is added).
    fn add_to(&self, acc: &mut [f32]) {
        let docs = self.scope.doc_lens();
        for p in self.bytes.chunks_exact(POSTING) {
            let d = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
            if let Some(a) = acc.get_mut(d) {
                *a += self.score_of(p, docs.len_of(d));
            }
        }
    }
}

impl WordPostings<'_> {
    /// As [`Postings::add_to`], and the word's weighted idf
    /// ([`TermScore::held`]) to each document's in `held`, in one pass.
    fn add_with_held(&self, acc: &mut [f32], held: &mut [f32]) {
        let docs = self.scope.doc_lens();
        for p in self.bytes.chunks_exact(POSTING) {
            let d = u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize;
            if let (Some(a), Some(h)) = (acc.get_mut(d), held.get_mut(d)) {
                *a += self.score_of(p, docs.len_of(d));
                *h += self.term.held;
            }
        }
    }

    /// What posting `p` (its bytes) adds to a document of length `len`.
    #[inline]
    fn score_of(&self, p: &[u8], len: u32) -> f32 {
        let (body, title, topic) = (u16::from_le_bytes([p[4], p[5]]), p[6], p[7]);
        let norm = K1 * (1.0 - B + B * len as f32 / self.avg);
        self.term.of(body, title, topic, norm)
    }
}

/// The query's words, sorted and distinct, each with its weight: 1 for a
/// word of the text ([`terms::FUNCTION_WORD_WEIGHT`] for a function word,
/// `the`, `how`: Snowball's stop words); for a word of the files in context
/// only, the greater of [`PATH_WORD_WEIGHT`] times its nearness
/// ([`terms::path_words`]: the file's name counts whole, its folders less
/// the farther they are: a plain word of the file's own folder, `proto`,
/// `expect`, counts nearly as much as its extension) and [`NAME_WEIGHT`]
/// times the nearness of a name it is ([`terms::path_names`]: the stem, a
/// folder's name).
fn query_words(query: &Query<'_>) -> Vec<(String, f32)> {
    let mut words: Vec<(String, f32)> = terms::word_list(query.text)
        .into_iter()
        .map(|w| {
            let weight = if terms::is_function_word(&w) {
                terms::FUNCTION_WORD_WEIGHT
            } else {
                1.0
            };
            (w, weight)
        })
        .collect();
    for file in query.files {
        words.extend(
            terms::path_words(file)
                .into_iter()
                .map(|(w, near)| (w, PATH_WORD_WEIGHT * near)),
        );
        words.extend(
            terms::path_names(file)
                .into_iter()
                .map(|(w, near)| (w, NAME_WEIGHT * near)),
        );
    }
    // The heaviest of each word first, then one of each.
    words.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    words.dedup_by(|a, b| a.0 == b.0);
    words
}

/// What one word of the query adds to a document holding it: its BM25
/// term (its weight times its [`term_idf`], saturated by the document's
/// length norm) and, for a word of the prompt, its share of the prompt's
/// coverage ([`COVERAGE_WEIGHT`]).
#[derive(Clone)]
struct TermScore {
    /// The word's weight times its idf times (K1 + 1).
    bm25: f32,
    /// What holding the word adds whatever its frequency.
    coverage: f32,
    /// The word's weight times its idf: its part of the query's words a
    /// document holds ([`tie_share`]).
    held: f32,
    /// What the title's count weighs: [`PROMPT_TITLE_WEIGHT`] for a word
    /// of the prompt, [`TITLE_WEIGHT`] otherwise.
    title: f32,
}

impl TermScore {
    /// The score of a word of `weight` that `df` of `n` documents hold, in
    /// a query whose prompt words' [`term_idf`] add up to `prompt_idf`.
    fn new(weight: f32, n: f32, df: f32, prompt_idf: f32) -> TermScore {
        let idf = term_idf(n, df);
        let prompt = is_prompt_word(weight);
        let coverage = if prompt {
            COVERAGE_WEIGHT * idf / prompt_idf.max(term_idf(n, 1.0))
        } else {
            0.0
        };
        TermScore {
            bm25: weight * idf * (K1 + 1.0),
            coverage,
            held: weight * idf,
            title: if prompt {
                PROMPT_TITLE_WEIGHT
            } else {
                TITLE_WEIGHT
            },
        }
    }

    /// What the word adds to a document with these field frequencies and
    /// length norm, K1 (1 - B + B len / avg).
    fn of(&self, body: u16, title: u8, topic: u8, norm: f32) -> f32 {
        let tf = body as f32 + self.title * title as f32 + TOPIC_WEIGHT * topic as f32;
        self.bm25 * tf / (tf + norm) + self.coverage
    }
}

/// How much of a tie by text ([`FileTie::by_text`]) counts for a note
/// holding `share` of the query's weighted idf ([`TermScore::held`]):
/// [`TEXT_TIE_FLOOR`] for a note holding none of the query's words, rising
/// to all of it at [`TEXT_TIE_FULL`] of them.
fn tie_share(share: f32) -> f32 {
    let held = (share / TEXT_TIE_FULL).min(1.0);
    TEXT_TIE_FLOOR + (1.0 - TEXT_TIE_FLOOR) * held
}

/// A word of the prompt (weight 1), not a function word and not only of a
/// file's path.
fn is_prompt_word(weight: f32) -> bool {
    weight >= 1.0
}

/// The idf a word's score uses: Robertson and Sparck Jones' ln((n - df +
/// 0.5) / (df + 0.5)), at least [`MIN_TERM_IDF`], as SQLite FTS5's bm25()
/// (recall's relevance gates use [`idf`], always positive).
fn term_idf(n: f32, df: f32) -> f32 {
    ((n - df + 0.5) / (df + 0.5)).ln().max(MIN_TERM_IDF)
}

/// For each document tied to a file in context, its closest tie; and the
/// keys of each file ([`tie_keys`]) the ties refer to.
fn file_ties(scopes: &[ScopeIndex], files: &[String]) -> (FileTies, Vec<Vec<(FileKey, f32)>>) {
    let keys: Vec<Vec<(FileKey, f32)>> = files.iter().map(|f| tie_keys(f)).collect();
    let mut ties: FileTies = scopes
        .iter()
        .map(|s| ScopeTies {
            slot: if files.is_empty() {
                Vec::new()
            } else {
                vec![NO_TIE; s.len()]
            },
            ties: Vec::new(),
        })
        .collect();
    let n: usize = scopes.iter().map(ScopeIndex::len).sum();
    for (fi, file) in files.iter().enumerate() {
        for (ki, (key, weight)) in keys[fi].iter().enumerate() {
            let word = key.word();
            let weight = *weight * hub_discount(scopes, key, &word, n);
            for (s, tie) in scopes.iter().zip(ties.iter_mut()) {
                for (d, ..) in s.postings(&word) {
                    let best = tie.get(d).map_or(0.0, |t| t.affinity);
                    if weight <= best {
                        continue;
                    }
                    let how = match key {
                        FileKey::GlobDir(_) | FileKey::GlobAny => {
                            match glob_match(&s.entry(d).meta().paths, file) {
                                Some(g) => TieHow::Glob(g),
                                None => continue,
                            }
                        }
                        _ => TieHow::Key(ki),
                    };
                    let by_text = !matches!(key, FileKey::File(_)) && matches!(how, TieHow::Key(_));
                    let tied = FileTie {
                        affinity: weight,
                        file: fi,
                        how,
                        by_text,
                    };
                    tie.insert(d, tied);
                }
            }
        }
    }
    (ties, keys)
}

/// What a folder or a file's name written in notes' text
/// ([`FileKey::Folder`], [`FileKey::Near`], [`FileKey::Base`]) keeps of its
/// affinity: its idf over the rarest idf (1 for a name one note writes). A
/// folder many notes name (the top of a monorepo, `apps/`) is a hub: naming
/// it says little about a file below; so is a file's name many notes
/// write (`Cargo.toml`). The globs of `paths` and the paths named keep
/// theirs.
fn hub_discount(scopes: &[ScopeIndex], key: &FileKey, word: &str, n: usize) -> f32 {
    if !matches!(
        key,
        FileKey::Folder(_)
            | FileKey::Near(_)
            | FileKey::Base(_)
            | FileKey::Module(_)
            | FileKey::Pattern(_)
    ) {
        return 1.0;
    }
    let df: usize = scopes
        .iter()
        .map(|s| s.lookup(word).map_or(0, |(df, _)| df))
        .sum();
    if df <= 1 {
        return 1.0;
    }
    idf(n as f32, df as f32) / idf(n as f32, 1.0)
}

/// The keys to look up for a file in context, each with the affinity of a
/// note holding it: the file itself 1, a file of its name elsewhere
/// [`SAME_NAME`], a glob of no literal folder (`**/*.snap`, checked against
/// the file) [`BELOW`] + [`BELOW_DEPTH`]; then for each folder above the
/// file at depth `j` of the file's `k`: a glob under it (checked)
/// [`BELOW`] plus [`BELOW_DEPTH`] j/k, a note naming that folder
/// [`NAMED_BELOW`] plus [`NAMED_BELOW_DEPTH`] j/k (the file's own folder
/// counts most), and a
/// note near it [`NEAR`] (j/k)² (the same folder over a sibling over the
/// same top folder); a folder whose name is shaped like a file's
/// (`Emby.Naming`, `Jellyfin.Naming.Tests`: a .NET project, a dotted
/// module) named in a note's text by that name ties as a note naming that
/// folder; then the folders of the file named elsewhere
/// ([`named_folder_keys`]). A folder or a name written in text loses what
/// [`hub_discount`] says.
fn tie_keys(file: &str) -> Vec<(FileKey, f32)> {
    let file = file.trim_start_matches("./");
    let mut keys = vec![
        (FileKey::File(file.to_string()), 1.0),
        (FileKey::Base(terms::base(file).to_string()), SAME_NAME),
        (FileKey::GlobAny, BELOW + BELOW_DEPTH),
    ];
    let (folders, k) = terms::folders_of(file);
    for (dir, j) in folders {
        let share = j as f32 / k as f32;
        keys.push((
            FileKey::GlobDir(dir.to_string()),
            BELOW + BELOW_DEPTH * share,
        ));
        let named = NAMED_BELOW + NAMED_BELOW_DEPTH * share;
        keys.push((FileKey::Folder(dir.to_string()), named));
        let name = terms::base(dir);
        if terms::file_like(name).is_some() {
            keys.push((FileKey::Base(name.to_string()), named));
        }
        keys.push((FileKey::Near(dir.to_string()), NEAR * share * share));
    }
    keys.extend(named_folder_keys(file, k));
    keys.extend(module_keys(file, k));
    keys.extend(pattern_keys(file));
    keys
}

/// Candidates by score; the newest, then the smaller id, on a tie (read
/// only when scores tie).
fn rank_order(scopes: &[ScopeIndex], a: &Candidate, b: &Candidate) -> Ordering {
    b.0.total_cmp(&a.0).then_with(|| {
        let (sa, sb) = (&scopes[a.1 as usize], &scopes[b.1 as usize]);
        let (da, db) = (a.2 as usize, b.2 as usize);
        sb.doc_updated(db)
            .cmp(&sa.doc_updated(da))
            .then_with(|| sa.doc_str(da, 0).cmp(sb.doc_str(db, 0)))
            .then(a.1.cmp(&b.1))
    })
}

/// The best `limit` of `found` in order, skipped ids left out, from the
/// best `cut` of them (the caller takes a bigger cut when skipping left
/// fewer than the limit).
fn best_candidates(
    scopes: &[ScopeIndex],
    found: &[Candidate],
    cut: usize,
    limit: usize,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<Candidate> {
    let order = |a: &Candidate, b: &Candidate| rank_order(scopes, a, b);
    let mut found: Vec<Candidate> = if found.len() > cut {
        // By score alone first (the order's first key, a float compare):
        // only the candidates at least the `cut`-th best score can be in
        // the cut, and only ties there need the whole order.
        let kth = kth_best(found.iter().map(|c| c.0), cut);
        found.iter().filter(|c| c.0 >= kth).copied().collect()
    } else {
        found.to_vec()
    };
    if found.len() > cut {
        found.select_nth_unstable_by(cut - 1, order);
        found.truncate(cut);
    }
    found.sort_by(order);
    found
        .into_iter()
        .filter(|&(_, si, d)| !skip(scopes[si as usize].doc_str(d as usize, 0)))
        .take(limit)
        .collect()
}

/// A score ordered by [`f32::total_cmp`].
#[derive(Clone, Copy, PartialEq)]
struct Total(f32);

impl Eq for Total {}

impl PartialOrd for Total {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Total {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The `k`-th best of `scores` (`k` from 1; the least of them when there
/// are fewer), as sorting them best first would place it: the best `k` kept
/// in a heap in one pass (most scores are below its least and only compared).
fn kth_best(scores: impl Iterator<Item = f32>, k: usize) -> f32 {
    let mut best: BinaryHeap<Reverse<Total>> = BinaryHeap::with_capacity(k + 1);
    for s in scores {
        if best.len() < k {
            best.push(Reverse(Total(s)));
        } else if let Some(mut least) = best.peek_mut() {
            if s.total_cmp(&least.0 .0) == Ordering::Greater {
                *least = Reverse(Total(s));
            }
        }
    }
    best.peek().map_or(f32::NEG_INFINITY, |r| r.0 .0)
}

/// Document `d` of scope number `si` as a hit.
fn hit(
    index: &MemoryIndex,
    si: usize,
    d: usize,
    score: f32,
    bm25: f32,
    tie: Option<(f32, (String, String))>,
    words: &[String],
) -> MemoryHit {
    let s = &index.scopes[si];
    let e = s.entry(d);
    let held: Vec<&String> = words.iter().filter(|w| s.holds(w, d)).collect();
    let matched_idf = held.iter().map(|w| index.idf(w)).sum();
    // A name key is shown as the name.
    let matched: Vec<String> = held
        .iter()
        .map(|w| w.strip_prefix(NAME_KEY).unwrap_or(w).to_string())
        .collect();
    MemoryHit {
        scope: s.scope,
        id: e.id().to_string(),
        topic: e.topic().to_string(),
        file: e.file().to_string(),
        title: e.title().to_string(),
        text: e.text().to_string(),
        score,
        bm25,
        affinity: tie.as_ref().map_or(0.0, |t| t.0),
        tie: tie.map(|t| t.1),
        matched,
        matched_idf,
        updated: e.updated(),
        pinned: e.pinned(),
        line: e.line(),
        superseded_by: e.superseded_by(),
    }
}

/// The inverse document frequency of a word `df` of `n` documents hold.
pub(super) fn idf(n: f32, df: f32) -> f32 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::fs::FileBytes;
    use crate::memory::entry::Entry;
    use crate::memory::search::file_keys::{MODULE, MODULE_FOLDER};
    use crate::memory::search::index_builder::{empty_index, IndexBuilder};
    use crate::memory::store::MemoryScope;
    use std::time::SystemTime;

    fn doc(text: &str) -> Entry {
        Entry::new(
            text,
            SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000),
        )
    }

    fn index(files: &[(&str, &str, Vec<Entry>)]) -> MemoryIndex {
        let mut b = IndexBuilder::default();
        for (name, topic, entries) in files {
            b.add_file(name, topic, [0; 4], 0, entries, None);
        }
        let scope =
            ScopeIndex::from_data(MemoryScope::Project, FileBytes::Read(b.encode(0, 0))).unwrap();
        MemoryIndex {
            scopes: vec![empty_index(MemoryScope::User), scope],
            problems: Vec::new(),
            reindexed: 0,
        }
    }

    fn ids(hits: &[MemoryHit]) -> Vec<&str> {
        hits.iter().map(|h| h.text.as_str()).collect()
    }

    /// A generated store: `n` entries in 20 topics over a vocabulary where
    /// a few words are common and most are rare, some naming files and
    /// globs; and queries of a few words, some with files.
    fn generated(n: usize) -> (MemoryIndex, Vec<(String, Vec<String>)>) {
        let mut seed: u64 = 11;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let vocab: Vec<String> = (0..400).map(|i| format!("w{i}x")).collect();
        let word = |next: &mut dyn FnMut(u64) -> u64| {
            // Skewed: word i drawn about as often as 1 / (i + 1).
            let r = next(400 * 400) as f64 / (400.0 * 400.0);
            vocab[((400f64).powf(r) as usize - 1).min(399)].clone()
        };
        let files: Vec<(String, String, Vec<Entry>)> = (0..20)
            .map(|t| {
                let entries = (0..n / 20)
                    .map(|_| {
                        let len = 3 + next(12) as usize;
                        let mut text: Vec<String> = (0..len).map(|_| word(&mut next)).collect();
                        if next(5) == 0 {
                            text.push(format!("src/m{}/f{}.rs", next(4), next(6)));
                        }
                        let mut e = doc(&text.join(" "));
                        if next(9) == 0 {
                            e.meta.paths = vec![format!("src/m{}/**", next(4))];
                        }
                        e
                    })
                    .collect();
                (
                    format!("t{t}.md"),
                    format!("topic {}", word(&mut next)),
                    entries,
                )
            })
            .collect();
        let refs: Vec<(&str, &str, Vec<Entry>)> = files
            .iter()
            .map(|(f, t, e)| (f.as_str(), t.as_str(), e.clone()))
            .collect();
        let queries = (0..60)
            .map(|_| {
                let len = 1 + next(8) as usize;
                let text: Vec<String> = (0..len).map(|_| word(&mut next)).collect();
                let files = if next(3) == 0 {
                    vec![format!("src/m{}/f{}.rs", next(4), next(6))]
                } else {
                    Vec::new()
                };
                (text.join(" "), files)
            })
            .collect();
        (index(&refs), queries)
    }

    #[test]
    fn a_file_matches_the_name_patterns_of_its_extensions_and_prefix() {
        let keys = |f: &str| -> Vec<(String, f32)> {
            pattern_keys(f)
                .into_iter()
                .map(|(k, w)| (k.word().trim_start_matches("\u{1}p").to_string(), w))
                .collect()
        };
        assert_eq!(
            keys("packages/kit/src/csp.spec.js"),
            [
                ("*.spec.js".to_string(), SAME_NAME),
                ("*.js".to_string(), MODULE_FOLDER)
            ]
        );
        assert_eq!(
            keys("tests/test_app.py"),
            [
                ("*.py".to_string(), MODULE_FOLDER),
                ("test_*.py".to_string(), SAME_NAME)
            ]
        );
        assert!(keys(".github/CODEOWNERS").is_empty());
        assert_eq!(
            keys(".eslintrc.json"),
            [("*.json".to_string(), MODULE_FOLDER)]
        );
    }

    #[test]
    fn a_limited_search_skipping_ids_returns_the_head_of_an_unlimited_one() {
        let (idx, queries) = generated(1200);
        let mut compared = 0;
        for (text, files) in &queries {
            // Skipping every third id makes the cut grow.
            let skip = |id: &str| id.bytes().map(u32::from).sum::<u32>() % 3 == 0;
            for skip in [&(|_: &str| false) as &dyn Fn(&str) -> bool, &skip] {
                let all = Query {
                    text,
                    files,
                    limit: 100_000,
                };
                let every = search(&idx, &all, skip);
                for limit in [1, 5, 10, 40] {
                    let q = Query { text, files, limit };
                    let head = &every[..every.len().min(limit)];
                    assert_eq!(
                        search(&idx, &q, skip),
                        head,
                        "{text:?} {files:?} limit {limit}"
                    );
                    compared += head.len();
                }
            }
        }
        assert!(compared > 2_000, "the queries find entries: {compared}");
    }

    #[test]
    fn a_words_postings_add_to_each_entry_what_each_posting_scores_alone() {
        let (idx, queries) = generated(1200);
        let mut added = 0;
        for (text, files) in &queries {
            let words = query_words(&Query {
                text,
                files,
                limit: 5,
            });
            let (ties, _) = file_ties(&idx.scopes, files);
            let terms = QueryTerms::new(&idx.scopes, &words, &ties);
            for (si, scope) in idx.scopes.iter().enumerate() {
                for w in &terms.words[si] {
                    let mut fast = vec![0.0f32; scope.len()];
                    w.add_to(&mut fast);
                    let mut one_by_one = vec![0.0f32; scope.len()];
                    for i in 0..w.len() {
                        one_by_one[w.doc(i)] += w.score(i);
                    }
                    let bits = |v: &[f32]| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&fast), bits(&one_by_one), "{text:?}");
                    let (mut with_held, mut held) =
                        (vec![0.0f32; scope.len()], vec![0.0f32; scope.len()]);
                    w.add_with_held(&mut with_held, &mut held);
                    assert_eq!(bits(&with_held), bits(&one_by_one), "{text:?}");
                    assert_eq!(
                        held.iter().filter(|h| **h > 0.0).count(),
                        w.len(),
                        "{text:?}"
                    );
                    added += w.len();
                }
            }
        }
        assert!(added > 10_000, "the queries' words hold entries: {added}");
    }

    #[test]
    fn an_entry_naming_a_files_name_and_a_folder_above_it_is_tied_by_the_closer() {
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("webhook_test.go is flaky; services/billing/stripe has the fix."),
                doc("Nothing about the files."),
            ],
        )]);
        let files = ["services/billing/stripe/webhook_test.go".to_string()];
        let query = Query {
            text: "",
            files: &files,
            limit: 5,
        };
        let hits = idx.search(&query, &|_| false);
        assert_eq!(hits.len(), 1, "{hits:?}");
        let tie = hits[0].tie.as_ref().unwrap();
        assert_eq!(tie.1, "below services/billing/stripe");
    }

    #[test]
    fn the_kth_best_score_is_the_one_a_sort_places_kth() {
        let mut seed: u64 = 5;
        for round in 0..300 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let n = 1 + (seed >> 33) as usize % 200;
            let scores: Vec<f32> = (0..n)
                .map(|i| ((seed >> (i % 40)) % 17) as f32 * 0.25)
                .collect();
            for k in [1, 2, 7, n.div_ceil(2), n].into_iter().filter(|&k| k <= n) {
                let mut sorted = scores.clone();
                sorted.sort_by(|a, b| b.total_cmp(a));
                let kth = kth_best(scores.iter().copied(), k);
                assert_eq!(
                    kth.to_bits(),
                    sorted[k - 1].to_bits(),
                    "round {round}, k {k}"
                );
            }
        }
    }

    /// The best 5 entries of `idx` for a prompt alone, none skipped.
    fn prompt_search(idx: &MemoryIndex, text: &str) -> Vec<MemoryHit> {
        let query = Query {
            text,
            files: &[],
            limit: 5,
        };
        idx.search(&query, &|_| false)
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
        let q = |text: &str| prompt_search(&idx, text);
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
    fn a_note_holding_more_of_the_prompts_rare_words_ranks_first_and_common_words_count_for_little()
    {
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("Flaky snapshot tests: the snapshot snapshot snapshot diff."),
                doc("Snapshot tests on the Windows runner are flaky."),
                doc("The release is tagged on the main branch."),
                doc("The docs are built in the CI."),
                doc("The lint runs in the CI."),
            ],
        )]);
        let q = |text: &str| prompt_search(&idx, text);
        // Both hold "flaky" and "snapshot"; only the second holds "windows"
        // too, however often the first repeats "snapshot".
        assert_eq!(
            ids(&q("flaky snapshot windows"))[0],
            "Snapshot tests on the Windows runner are flaky."
        );
        // "the" is in every note: its score is next to nothing, coverage
        // included.
        let the = q("the");
        assert_eq!(the.len(), 5);
        assert!(the.iter().all(|h| h.score < 0.01), "{the:?}");
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
        // Excluded by the ! glob: not tied below its folder (its path words
        // and its nearness may still rank it).
        assert!(q(&["migrations/old/x.sql"])
            .iter()
            .all(|h| h.affinity < BELOW));
        assert!(q(&["README.md"]).is_empty());
    }

    #[test]
    fn a_folder_named_ties_the_files_below_it_nearest_first_and_a_sibling_only_ranks() {
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("Keys for services/billing go in the vault."),
                doc("Run services/billing/stripe against the sandbox."),
                doc("services/billing/paypal needs its own fixtures."),
                doc("Nothing about the files: lunch is at noon."),
                doc("Tools under tools/gen are generated."),
            ],
        )]);
        let files = ["services/billing/stripe/webhook_test.go".to_string()];
        let hits = idx.search(
            &Query {
                text: "",
                files: &files,
                limit: 5,
            },
            &|_| false,
        );
        assert_eq!(
            ids(&hits),
            [
                "Run services/billing/stripe against the sandbox.",
                "Keys for services/billing go in the vault.",
                "services/billing/paypal needs its own fixtures.",
            ]
        );
        let how: Vec<&str> = hits
            .iter()
            .map(|h| h.tie.as_ref().unwrap().1.as_str())
            .collect();
        assert_eq!(
            how,
            [
                "below services/billing/stripe",
                "below services/billing",
                "near services/billing"
            ]
        );
        assert!(hits[0].affinity > hits[1].affinity && hits[1].affinity > hits[2].affinity);
        assert!(hits[2].affinity < BELOW, "a sibling ranks, it does not tie");
        // The path's words are query words: the stem's "webhook" finds a note.
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("Webhook signatures are checked with the signing secret."),
                doc("Unrelated."),
            ],
        )]);
        let hits = idx.search(
            &Query {
                text: "",
                files: &files,
                limit: 5,
            },
            &|_| false,
        );
        assert_eq!(
            ids(&hits),
            ["Webhook signatures are checked with the signing secret."]
        );
        assert_eq!(hits[0].matched, ["webhook"]);
    }

    #[test]
    fn a_note_naming_a_files_module_stem_or_folder_ranks_first_for_a_deep_file() {
        // Each note names the file its own way, never by a path from the
        // top; the decoys share the file's words but not its names.
        let notes = [
            "Test one module: ./mvnw -pl codec-http2 -am test.",
            "The codec tests use http fixtures from the common module.",
            "emqx_conf_schema holds the cluster-wide config.",
            "Config schema descriptions live in rel/i18n.",
            "Benchmark tests sit in each app's tests/benchmark/ folder.",
            "Benchmark numbers are posted on the PR.",
            "Docs for Text.Pandoc.Writers.Docx and its StyleMap.",
            "Pandoc readers and writers are tested against goldens.",
        ];
        let idx = index(&[("notes.md", "notes", notes.iter().map(|t| doc(t)).collect())]);
        for (file, first, how) in [
            (
                "codec-http2/src/test/java/io/netty/handler/codec/http2/FrameTest.java",
                notes[0],
                "",
            ),
            ("apps/emqx_conf/src/emqx_conf_schema.erl", notes[2], ""),
            (
                "saleor/graphql/product/tests/benchmark/test_category.py",
                notes[4],
                "in a tests/benchmark folder",
            ),
            (
                "src/Text/Pandoc/Writers/Docx/StyleMap.hs",
                notes[6],
                "in module Text/Pandoc/Writers/Docx",
            ),
        ] {
            let files = [file.to_string()];
            let query = Query {
                text: "",
                files: &files,
                limit: 5,
            };
            let hits = idx.search(&query, &|_| false);
            assert_eq!(hits[0].text, first, "{file}: {hits:?}");
            let tie = hits[0].tie.as_ref().map_or("", |t| t.1.as_str());
            assert_eq!(tie, how, "{file}");
        }
    }

    #[test]
    fn a_folder_many_notes_name_ties_less_than_one_a_single_note_names() {
        let mut notes: Vec<Entry> = (0..4)
            .map(|i| doc(&format!("Note {i} about every app under apps/.")))
            .collect();
        notes.push(doc("The proto folder apps/emqx/src/proto is versioned."));
        notes.extend((0..6).map(|i| doc(&format!("Unrelated note {i}."))));
        let idx = index(&[("notes.md", "notes", notes)]);
        let files = ["apps/emqx/src/proto/emqx_broker_proto_v1.erl".to_string()];
        let query = Query {
            text: "",
            files: &files,
            limit: 5,
        };
        let hits = idx.search(&query, &|_| false);
        assert_eq!(
            hits[0].text,
            "The proto folder apps/emqx/src/proto is versioned."
        );
        let hub = hits.iter().find(|h| h.text.contains("every app")).unwrap();
        let named_once = NAMED_BELOW + NAMED_BELOW_DEPTH / 4.0;
        assert!(hub.affinity < 0.8 * named_once, "{hub:?}");
        assert_eq!(hub.tie.as_ref().unwrap().1, "below apps");
    }

    /// The best 5 entries of `idx` for `file` alone.
    fn file_search(idx: &MemoryIndex, file: &str) -> Vec<MemoryHit> {
        let files = [file.to_string()];
        let query = Query {
            text: "",
            files: &files,
            limit: 5,
        };
        idx.search(&query, &|_| false)
    }

    #[test]
    fn a_note_writing_a_dotted_folders_name_ties_the_files_below_it() {
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("File name parsing is Emby.Naming; NamingOptions holds the regexes."),
                doc("Dates and times in migrations parse as ISO 8601."),
                doc("Unrelated note about the docs."),
                doc("Unrelated note about the release."),
            ],
        )]);
        let hits = file_search(&idx, "Emby.Naming/Video/CleanDateTimeParser.cs");
        assert_eq!(
            hits[0].text, "File name parsing is Emby.Naming; NamingOptions holds the regexes.",
            "{hits:?}"
        );
        assert_eq!(hits[0].tie.as_ref().unwrap().1, "below Emby.Naming");
        assert!(hits[0].affinity >= NAMED_BELOW + NAMED_BELOW_DEPTH / 2.0);
    }

    #[test]
    fn a_note_naming_a_dotted_package_ranks_first_for_a_file_below_its_folders() {
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("Leak detection lives in io.netty.util; keep it allocation free."),
                doc("Buffers are pooled by default in this project."),
                doc("Unrelated note about the docs."),
                doc("Unrelated note about the release."),
            ],
        )]);
        let hits = file_search(
            &idx,
            "common/src/main/java/io/netty/util/ResourceLeakDetector.java",
        );
        assert_eq!(
            hits[0].text, "Leak detection lives in io.netty.util; keep it allocation free.",
            "{hits:?}"
        );
        assert_eq!(hits[0].tie.as_ref().unwrap().1, "in module io/netty/util");
    }

    #[test]
    fn a_note_naming_a_files_dotted_module_ranks_first_for_it_and_not_for_a_sibling() {
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("Text.Pandoc.Writers.Docx keeps the reference styles."),
                doc("Writers of the formats share the options record."),
                doc("Unrelated note about the docs."),
                doc("Unrelated note about the release."),
            ],
        )]);
        let hits = file_search(&idx, "src/Text/Pandoc/Writers/Docx.hs");
        assert_eq!(
            hits[0].text,
            "Text.Pandoc.Writers.Docx keeps the reference styles."
        );
        let tie = hits[0].tie.as_ref().unwrap();
        assert_eq!(tie.1, "names module Text/Pandoc/Writers/Docx");
        assert_eq!(hits[0].affinity, MODULE);
        assert!(file_search(&idx, "src/Text/Pandoc/Writers/Odt.hs")
            .iter()
            .all(|h| h.affinity < MODULE));
    }

    #[test]
    fn a_note_holding_the_words_of_the_files_folder_ranks_above_one_holding_a_word_of_its_name() {
        let idx = index(&[(
            "notes.md",
            "notes",
            vec![
                doc("The proto codec checks each length prefix."),
                doc("The frame size is capped."),
                doc("Unrelated note about the docs."),
                doc("Unrelated note about the release."),
                doc("Unrelated note about the changelog."),
            ],
        )]);
        let hits = file_search(&idx, "src/proto-codec/frame.ml");
        assert_eq!(
            ids(&hits),
            [
                "The proto codec checks each length prefix.",
                "The frame size is capped."
            ]
        );
    }

    #[test]
    fn a_file_name_many_notes_write_ties_less_than_one_a_single_note_writes() {
        let mut notes: Vec<Entry> = (0..4)
            .map(|i| doc(&format!("Note {i}: bump the version in Cargo.toml.")))
            .collect();
        notes.extend((0..6).map(|i| doc(&format!("Unrelated note {i}."))));
        let idx = index(&[("notes.md", "notes", notes)]);
        let hits = file_search(&idx, "crates/parser/Cargo.toml");
        assert_eq!(hits.len(), 4, "{hits:?}");
        for h in &hits {
            assert_eq!(h.tie.as_ref().unwrap().1, "names Cargo.toml");
            assert!(h.affinity > 0.0 && h.affinity < 0.8 * SAME_NAME, "{h:?}");
        }
    }

    #[test]
    fn a_note_holding_the_files_rarer_words_comes_before_one_tied_only_by_a_folder_far_above_it() {
        let mut notes = vec![
            doc("Everything under tests/ runs with pytest -n auto in CI; keep tests independent."),
            doc("The rate limiter allows 100 requests a minute per API token."),
        ];
        notes.extend(
            [
                "A test that needs the network is marked slow.",
                "Snapshot tests are updated with --snapshot-update.",
                "Every bug fix comes with a test.",
                "Factories, not fixtures, build the models in tests.",
                "Deploys go through the staging cluster first.",
                "The changelog is written at release time.",
            ]
            .map(doc),
        );
        let idx = index(&[("notes.md", "notes", notes)]);
        let hits = file_search(&idx, "tests/integration/api/test_rate_limiter.py");
        assert_eq!(
            ids(&hits)[..2],
            [
                "The rate limiter allows 100 requests a minute per API token.",
                "Everything under tests/ runs with pytest -n auto in CI; keep tests independent.",
            ],
            "{hits:?}"
        );
        assert_eq!(hits[1].tie.as_ref().unwrap().1, "below tests");
    }

    #[test]
    fn a_tie_by_text_counts_less_when_the_note_holds_none_of_the_querys_words_and_a_path_or_glob_counts_whole(
    ) {
        let mut glob = doc("Keep these idempotent.");
        glob.meta.paths = vec!["db/migrations/**".into()];
        let notes = vec![
            doc("Everything in db/ is reviewed by the data team."),
            doc("Never rewrite db/migrations/0042_orders.sql by hand."),
            glob,
            doc("The orders table in db/ is partitioned by month."),
        ];
        let idx = index(&[("notes.md", "notes", notes)]);
        let hits = file_search(&idx, "db/migrations/0042_orders.sql");
        let tie_part = |text: &str| {
            let h = hits.iter().find(|h| h.text.starts_with(text)).unwrap();
            (h.score - h.bm25) / (AFFINITY_WEIGHT * h.affinity)
        };
        let close = |a: f32, b: f32| (a - b).abs() < 1e-4;
        assert!(
            close(tie_part("Everything in db/"), TEXT_TIE_FLOOR),
            "{hits:?}"
        );
        assert!(close(tie_part("Never rewrite"), 1.0), "{hits:?}");
        assert!(close(tie_part("Keep these"), 1.0), "{hits:?}");
        let orders = tie_part("The orders table");
        assert!(orders > TEXT_TIE_FLOOR && orders <= 1.0, "{hits:?}");
    }

    #[test]
    fn the_name_key_prefix_is_the_one_terms_writes() {
        assert_eq!(FileKey::Name(String::new()).word(), NAME_KEY);
    }

    #[test]
    fn a_prompt_word_in_a_notes_first_line_outweighs_it_written_twice_below() {
        // The same length and the same topic: `flaky` once in the first
        // line against twice below it (the newer note, first on a tie).
        let lead = doc("Flaky tests retry once.\nCI logs stay a week.");
        let mut below = doc("Slow tests retry once.\nFlaky jobs: see flaky list.");
        below.meta.updated = Some("2030-01-01T00:00:00Z".into());
        let others = [
            "Deploy with make deploy.",
            "Backups run nightly.",
            "Lint with clippy.",
        ];
        let mut entries = vec![lead, below];
        entries.extend(others.iter().map(|t| doc(t)));
        let idx = index(&[("ci.md", "ci", entries)]);
        let hits = prompt_search(&idx, "flaky");
        assert_eq!(
            ids(&hits)[..2],
            [
                "Flaky tests retry once.\nCI logs stay a week.",
                "Slow tests retry once.\nFlaky jobs: see flaky list."
            ]
        );
        assert!(hits[0].score > hits[1].score, "not a tie broken by date");
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
}
