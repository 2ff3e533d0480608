//! How a search ranks entries: BM25 over the three fields and the prompt's
//! coverage, plus the entry's affinity to the files in context (see the
//! module comment of [`super`]).
//!
//! A search runs in named steps: the scores of the query's words
//! ([`bm25_scores`], each word's by [`TermScore`]), the files in context each entry is tied to
//! ([`file_ties`]), the best candidates in order with the skipped ones left
//! out ([`best_candidates`]), and a [`MemoryHit`] for each.

use super::index_file::ScopeIndex;
use super::query::{MemoryHit, Query};
use super::MemoryIndex;
use crate::memory::terms::{self, FileKey};
use std::cmp::Ordering;
use std::collections::HashMap;

/// What a file tie adds to a score, times the affinity (0 to 1).
pub const AFFINITY_WEIGHT: f32 = 6.0;
/// A path word of a file in context weighs this much of a word of the text.
pub const PATH_WORD_WEIGHT: f32 = 0.5;
/// The affinity of a note naming a file of the same name elsewhere.
pub const SAME_NAME: f32 = 0.6;
/// The affinity of a note naming a folder above a file in context, plus
/// [`BELOW_DEPTH`] times the share of the file's folders it covers.
pub const BELOW: f32 = 0.6;
pub const BELOW_DEPTH: f32 = 0.35;
/// The affinity of a note near the file's folder, times the share of the
/// file's folders they have in common (under [`BELOW`]: nearness alone
/// ranks, it does not tie).
pub const NEAR: f32 = 0.45;
const K1: f32 = 1.2;
const B: f32 = 0.75;
const TOPIC_WEIGHT: f32 = 2.0;
const TITLE_WEIGHT: f32 = 1.0;
/// What a document holding every word of the prompt gets on top of its
/// BM25 score; one holding some of them gets this times their share of the
/// prompt's [`term_idf`] (the rarer the words it holds, the more). A prompt
/// of common words only counts as one rarest word (its words' shares of
/// that stay small).
pub const COVERAGE_WEIGHT: f32 = 4.0;
/// The least [`term_idf`] of a word (SQLite FTS5's floor): a word in more
/// than half the documents counts for next to nothing.
const MIN_TERM_IDF: f32 = 1e-6;

/// Per scope, a value for each of its documents.
type PerDoc<T> = Vec<Vec<T>>;

/// A file in context an entry is tied to: how close (0 to 1), which file,
/// and how (`names it`, `names x.rs`, `paths <glob>`).
struct FileTie {
    affinity: f32,
    file: String,
    how: String,
}

/// Per scope, the entries tied to a file in context, by document.
type FileTies = Vec<HashMap<usize, FileTie>>;

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
    let bm25 = bm25_scores(&index.scopes, &words);
    let ties = file_ties(&index.scopes, query.files);
    let mut scores = bm25.clone();
    for (acc, tie) in scores.iter_mut().zip(&ties) {
        for (&d, t) in tie {
            acc[d] += AFFINITY_WEIGHT * t.affinity;
        }
    }
    let words: Vec<String> = words.into_iter().map(|(w, _)| w).collect();
    best_candidates(&index.scopes, candidates(&scores), query.limit, skip)
        .into_iter()
        .map(|(score, si, d)| {
            let (si, d) = (si as usize, d as usize);
            let tie = ties[si].get(&d);
            hit(index, si, d, score, bm25[si][d], tie, &words)
        })
        .collect()
}

/// The query's words, sorted and distinct, each with its weight: 1 for a
/// word of the text ([`terms::FUNCTION_WORD_WEIGHT`] for a function word,
/// `the`, `how`: Snowball's stop words), [`PATH_WORD_WEIGHT`] times the square of its nearness
/// for a path word of a file in context only ([`terms::path_words`]: the
/// file's name counts whole, its folders less the farther they are).
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
                .map(|(w, near)| (w, PATH_WORD_WEIGHT * near * near)),
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
struct TermScore {
    /// The word's weight times its idf times (K1 + 1).
    bm25: f32,
    /// What holding the word adds whatever its frequency.
    coverage: f32,
}

impl TermScore {
    /// The score of a word of `weight` that `df` of `n` documents hold, in
    /// a query whose prompt words' [`term_idf`] add up to `prompt_idf`.
    fn new(weight: f32, n: f32, df: f32, prompt_idf: f32) -> TermScore {
        let idf = term_idf(n, df);
        let coverage = if is_prompt_word(weight) {
            COVERAGE_WEIGHT * idf / prompt_idf.max(term_idf(n, 1.0))
        } else {
            0.0
        };
        TermScore {
            bm25: weight * idf * (K1 + 1.0),
            coverage,
        }
    }

    /// What the word adds to a document with these field frequencies and
    /// length norm, K1 (1 - B + B len / avg).
    fn of(&self, body: u16, title: u8, topic: u8, norm: f32) -> f32 {
        let tf = body as f32 + TITLE_WEIGHT * title as f32 + TOPIC_WEIGHT * topic as f32;
        self.bm25 * tf / (tf + norm) + self.coverage
    }
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

/// The BM25 score of each document for `words` (sorted, distinct, each
/// with its weight), with the document frequencies of all scopes together,
/// plus what holding the prompt's words adds ([`TermScore`]).
fn bm25_scores(scopes: &[ScopeIndex], words: &[(String, f32)]) -> PerDoc<f32> {
    let n_total: usize = scopes.iter().map(ScopeIndex::len).sum();
    let total_len: u64 = scopes.iter().map(|s| s.total_len).sum();
    let avg = (total_len as f32 / n_total as f32).max(1.0);
    let mut scores: PerDoc<f32> = scopes.iter().map(|s| vec![0.0; s.n_docs]).collect();
    // Each document's length norm, K1 (1 - B + B len / avg), once.
    let norms: PerDoc<f32> = scopes
        .iter()
        .map(|s| {
            (0..s.n_docs)
                .map(|d| K1 * (1.0 - B + B * s.doc_len(d) as f32 / avg))
                .collect()
        })
        .collect();
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
    for (w, weight, df) in found {
        let term = TermScore::new(weight, n_total as f32, df as f32, prompt_idf);
        for ((s, acc), norm) in scopes.iter().zip(scores.iter_mut()).zip(&norms) {
            s.for_postings(w, |d, body, title, topic| {
                acc[d] += term.of(body, title, topic, norm[d]);
            });
        }
    }
    scores
}

/// For each document tied to a file in context, its closest tie.
fn file_ties(scopes: &[ScopeIndex], files: &[String]) -> FileTies {
    let mut ties: FileTies = scopes.iter().map(|_| HashMap::new()).collect();
    for file in files {
        for (key, weight) in tie_keys(file) {
            let word = key.word();
            for (s, tie) in scopes.iter().zip(ties.iter_mut()) {
                for (d, ..) in s.postings(&word) {
                    let best = tie.get(&d).map_or(0.0, |t| t.affinity);
                    if weight <= best {
                        continue;
                    }
                    let how = match &key {
                        FileKey::File(_) => "names it".to_string(),
                        FileKey::Base(b) => format!("names {b}"),
                        FileKey::Folder(f) => format!("below {f}"),
                        FileKey::Near(f) => format!("near {f}"),
                        FileKey::GlobDir(_) | FileKey::GlobAny => {
                            match glob_match(&s.entry(d).meta().paths, file) {
                                Some(g) => format!("paths {g}"),
                                None => continue,
                            }
                        }
                    };
                    let tied = FileTie {
                        affinity: weight,
                        file: file.clone(),
                        how,
                    };
                    tie.insert(d, tied);
                }
            }
        }
    }
    ties
}

/// The keys to look up for a file in context, each with the affinity of a
/// note holding it: the file itself 1, a file of its name elsewhere
/// [`SAME_NAME`], a glob of no literal folder (`**/*.snap`, checked against
/// the file) [`BELOW`] + [`BELOW_DEPTH`]; then for each folder above the
/// file at depth `j` of the file's `k`: a note naming that folder or a glob
/// under it (checked) [`BELOW`] + [`BELOW_DEPTH`] j/k (the file's own folder
/// counts most), and a note near it [`NEAR`] j/k (the same folder over a
/// sibling over the same top folder).
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
        let below = BELOW + BELOW_DEPTH * share;
        keys.push((FileKey::GlobDir(dir.to_string()), below));
        keys.push((FileKey::Folder(dir.to_string()), below));
        keys.push((FileKey::Near(dir.to_string()), NEAR * share));
    }
    keys
}

/// Every document with a positive score.
fn candidates(scores: &PerDoc<f32>) -> Vec<Candidate> {
    let mut found = Vec::new();
    for (si, acc) in scores.iter().enumerate() {
        for (d, &score) in acc.iter().enumerate() {
            if score > 0.0 {
                found.push((score, si as u32, d as u32));
            }
        }
    }
    found
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

/// The best `limit` candidates in order, skipped ids left out: the best
/// `cut` are ordered first, and a bigger cut taken when skipping left fewer
/// than the limit.
fn best_candidates(
    scopes: &[ScopeIndex],
    found: Vec<Candidate>,
    limit: usize,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<Candidate> {
    let order = |a: &Candidate, b: &Candidate| rank_order(scopes, a, b);
    let mut cut = limit.saturating_mul(2).saturating_add(16);
    loop {
        let mut part = found.clone();
        let whole = part.len() <= cut;
        if !whole {
            part.select_nth_unstable_by(cut - 1, order);
            part.truncate(cut);
        }
        part.sort_by(order);
        let kept: Vec<Candidate> = part
            .into_iter()
            .filter(|&(_, si, d)| !skip(scopes[si as usize].doc_str(d as usize, 0)))
            .take(limit)
            .collect();
        if whole || kept.len() >= limit {
            return kept;
        }
        cut = cut.saturating_mul(4);
    }
}

/// Document `d` of scope number `si` as a hit.
fn hit(
    index: &MemoryIndex,
    si: usize,
    d: usize,
    score: f32,
    bm25: f32,
    tie: Option<&FileTie>,
    words: &[String],
) -> MemoryHit {
    let s = &index.scopes[si];
    let e = s.entry(d);
    let matched: Vec<String> = words.iter().filter(|w| s.holds(w, d)).cloned().collect();
    MemoryHit {
        scope: s.scope,
        id: e.id().to_string(),
        topic: e.topic().to_string(),
        file: e.file().to_string(),
        title: e.title().to_string(),
        text: e.text().to_string(),
        score,
        bm25,
        affinity: tie.map_or(0.0, |t| t.affinity),
        tie: tie.map(|t| (t.file.clone(), t.how.clone())),
        matched: matched.clone(),
        matched_idf: matched.iter().map(|w| index.idf(w)).sum(),
        updated: e.updated(),
        pinned: e.pinned(),
        line: e.line(),
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
    use crate::memory::entry::Entry;
    use crate::memory::search::index_builder::{empty_index, IndexBuilder};
    use crate::memory::search::index_file::IndexBytes;
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
            ScopeIndex::from_data(MemoryScope::Project, IndexBytes::Owned(b.encode(0))).unwrap();
        MemoryIndex {
            scopes: vec![empty_index(MemoryScope::User), scope],
            problems: Vec::new(),
            reindexed: 0,
        }
    }

    fn ids(hits: &[MemoryHit]) -> Vec<&str> {
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
