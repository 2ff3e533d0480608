//! Memory search cost inside Rust (divan): a project memory of 10,000
//! entries in 200 topic files, as `bench/memory-corpus.mjs` writes it for
//! `bench/memory-cost.mjs`: the retrieval set's 316 entries
//! (`bench/memory-retrieval/`), the rest notes of 12 to 52 words drawn by a
//! fixed Zipf-like law from the set's own vocabulary. Queries: the set's 108
//! prompts with their files, in rotation.
//!
//!   cargo bench -p memory-rules --bench memory
//!
//! - `search`: one `MemoryIndex::search` (limit 5) on an open index (the
//!   issue's goal: p50 under 1 ms at 10,000 entries);
//! - `open`: `MemoryIndex::open` of an index saved and up to date (what a
//!   hook or `wave-rules memory search` pays before searching: the index
//!   file mapped, each topic file stat'ed);
//! - `open_and_search`: both, as a process does.

use memory_rules::memory::{MemoryIndex, MemoryLocations, MemoryScope, MemoryStore, Query};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

fn main() {
    divan::main();
}

const ENTRIES: usize = 10_000;
const TOPICS: usize = 200;

struct Fixture {
    _dir: tempfile::TempDir,
    store: MemoryStore,
    queries: Vec<(String, Vec<String>)>,
}

fn set_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/memory-retrieval")
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("retrieval set")).expect("JSON")
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut sets = vec![read_json(&set_dir().join("user.json"))];
        let mut projects: Vec<PathBuf> = std::fs::read_dir(set_dir().join("projects"))
            .expect("projects")
            .flatten()
            .map(|e| e.path())
            .collect();
        projects.sort();
        sets.extend(projects.iter().map(|p| read_json(p)));
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let real: Vec<String> = sets
            .iter()
            .flat_map(|s| s["entries"].as_array().cloned().unwrap_or_default())
            .map(|e| e["text"].as_str().unwrap_or_default().to_string())
            .collect();
        let queries: Vec<(String, Vec<String>)> = sets
            .iter()
            .flat_map(|s| s["queries"].as_array().cloned().unwrap_or_default())
            .map(|q| {
                (
                    q["prompt"].as_str().unwrap_or_default().to_string(),
                    strings(&q["files"]),
                )
            })
            .collect();

        // The vocabulary, most frequent first (ties by the word).
        let mut counts = std::collections::HashMap::<&str, usize>::new();
        for text in &real {
            for w in text
                .split(|c: char| !(c.is_alphanumeric() || "_./-".contains(c)))
                .filter(|w| w.chars().count() > 1)
            {
                *counts.entry(w).or_default() += 1;
            }
        }
        let mut vocab: Vec<(&str, usize)> = counts.into_iter().collect();
        vocab.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let mut state: u32 = 0x2545_f491;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as f64 / 4_294_967_296.0
        };
        let mut topics: Vec<String> = vec![String::new(); TOPICS];
        for i in 0..ENTRIES {
            let text = if i < real.len() {
                real[i].clone()
            } else {
                let len = 12 + (next() * 40.0) as usize;
                let words: Vec<&str> = (0..len)
                    .map(|_| {
                        let r = next();
                        vocab[(r * r * r * vocab.len() as f64) as usize].0
                    })
                    .collect();
                format!("{}.", words.join(" "))
            };
            let created = chrono::DateTime::from_timestamp(1_735_689_600 + 60 * i as i64, 0)
                .expect("a time")
                .format("%Y-%m-%dT%H:%M:%SZ");
            let topic = &mut topics[i % TOPICS];
            if !topic.is_empty() {
                topic.push('\n');
            }
            topic.push_str(&format!(
                "<!-- entry {{\"id\":\"b{i:06x}\",\"created\":\"{created}\"}} -->\n{text}\n"
            ));
        }

        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join(".git")).expect("work");
        let store = MemoryStore::new(MemoryLocations::new(&home, &work));
        let memory = store.dir(MemoryScope::Project).to_path_buf();
        std::fs::create_dir_all(&memory).expect("memory dir");
        // Dated an hour back: out of the index's racy window.
        let old = SystemTime::now() - Duration::from_secs(3600);
        let mut index = String::from("# Memory\n\n");
        for (i, text) in topics.iter().enumerate() {
            let file = format!("topic-{i}.md");
            let path = memory.join(&file);
            std::fs::write(&path, text).expect("topic");
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(old))
                .expect("mtime");
            index.push_str(&format!("- [topic {i}]({file})\n"));
        }
        std::fs::write(memory.join("MEMORY.md"), index).expect("MEMORY.md");
        // The first open builds and saves the index.
        let built = MemoryIndex::open(&store);
        assert_eq!(built.len(), ENTRIES, "{:?}", built.problems());
        let again = MemoryIndex::open(&store);
        assert_eq!(again.reindexed, 0, "the saved index is up to date");
        Fixture {
            _dir: dir,
            store,
            queries,
        }
    })
}

#[divan::bench]
fn search(bencher: divan::Bencher) {
    let f = fixture();
    let index = MemoryIndex::open(&f.store);
    let mut i = 0;
    bencher.bench_local(|| {
        let (text, files) = &f.queries[i % f.queries.len()];
        i += 1;
        index.search(
            &Query {
                text,
                files,
                limit: 5,
            },
            &|_| false,
        )
    });
}

#[divan::bench]
fn open(bencher: divan::Bencher) {
    let f = fixture();
    bencher.bench_local(|| MemoryIndex::open(&f.store));
}

#[divan::bench]
fn open_and_search(bencher: divan::Bencher) {
    let f = fixture();
    let mut i = 0;
    bencher.bench_local(|| {
        let (text, files) = &f.queries[i % f.queries.len()];
        i += 1;
        MemoryIndex::open(&f.store).search(
            &Query {
                text,
                files,
                limit: 5,
            },
            &|_| false,
        )
    });
}
