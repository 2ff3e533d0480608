//! Core benchmarks (divan): glob-set build, match per path, parse per file,
//! discovery. Inputs: the real rule files and repository file lists of
//! `../shared/corpus` (or `WAVE_CORPUS`), and rule sets generated from those
//! repositories' directory names, as in `bench/bench.mjs`.
//!
//!   cargo bench -p memory-rules

use memory_rules::internals::rules::parser::{parse_rule, ParsedRule};
use memory_rules::sources::Config;
use memory_rules::{RuleSet, Scope};
use std::path::{Path, PathBuf};

fn main() {
    divan::main();
}

fn corpus() -> PathBuf {
    std::env::var_os("WAVE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
}

/// Every path of the corpus's repository file lists, in a fixed order.
fn tree_paths() -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join("trees"))
        .expect("corpus trees")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut paths: Vec<String> = files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    // A fixed shuffle (LCG), so the first N paths mix repositories.
    let mut state = 7u64;
    for i in (1..paths.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        paths.swap(i, (state >> 33) as usize % (i + 1));
    }
    paths
}

/// `n` rule texts with realistic patterns over the corpus's directories.
fn rule_texts(n: usize, paths: &[String]) -> Vec<(String, String)> {
    let mut dirs: Vec<&str> = paths
        .iter()
        .filter_map(|p| p.split_once('/').map(|(d, _)| d))
        .collect();
    dirs.sort();
    dirs.dedup();
    let exts = ["ts", "tsx", "rs", "md", "json", "py"];
    let words = [
        "customer",
        "deploy",
        "migration",
        "billing",
        "auth",
        "cache",
    ];
    (0..n)
        .map(|i| {
            let d = dirs[i * 7 % dirs.len()];
            let e = exts[i % exts.len()];
            let patterns = match i % 6 {
                0 => format!("[\"{d}/**/*.{e}\"]"),
                1 => format!("[\"{{{d},{}}}/**/*.{{ts,tsx}}\"]", dirs[i * 3 % dirs.len()]),
                2 => "[\"packages/*/tests/**/*\"]".to_string(),
                3 => "[\"**/*.md\"]".to_string(),
                4 => format!("[\"{d}/**\", \"!**/*.test.ts\"]"),
                _ => format!("[\"**/*.{e}\"]"),
            };
            let topics = if i % 4 == 0 {
                format!("topics: [{}{}]\n", words[i % words.len()], i % 7)
            } else {
                String::new()
            };
            (
                format!("r{i:05}.md"),
                format!(
                    "---\npaths: {patterns}\n{topics}priority: {}\n---\nRule {i}.\n",
                    i % 5
                ),
            )
        })
        .collect()
}

fn parsed(n: usize, paths: &[String]) -> Vec<ParsedRule> {
    rule_texts(n, paths)
        .into_iter()
        .filter_map(|(id, text)| parse_rule(Scope::Project, &id, Path::new(&id), &text).rule)
        .collect()
}

fn rule_set(n: usize, paths: &[String]) -> RuleSet {
    RuleSet::build(
        parsed(n, paths),
        memory_rules::Workdir::new(Path::new("/repo")),
    )
}

#[divan::bench(args = [10, 100, 1000, 10000])]
fn build_rule_set(bencher: divan::Bencher, n: usize) {
    let paths = tree_paths();
    bencher
        .with_inputs(|| parsed(n, &paths))
        .bench_values(|rules| RuleSet::build(rules, memory_rules::Workdir::default()));
}

/// One path in context (the cost per path), for growing rule sets.
#[divan::bench(args = [10, 100, 1000, 10000])]
fn match_one_path(bencher: divan::Bencher, n: usize) {
    let paths = tree_paths();
    let set = rule_set(n, &paths);
    let mut i = 0;
    bencher.bench_local(|| {
        i = (i + 1) % 1000;
        set.active(&[paths[i].as_str()], None)
    });
}

/// 1,000 paths and a prompt, for growing rule sets: the per-message match.
#[divan::bench(args = [10, 100, 1000, 10000])]
fn match_message(bencher: divan::Bencher, n: usize) {
    let paths = tree_paths();
    let set = rule_set(n, &paths);
    let files: Vec<&str> = paths.iter().take(1000).map(String::as_str).collect();
    bencher.bench_local(|| set.active(&files, Some("deploy the customer migration")));
}

/// Every real rule file of the corpus, parsed (divide by the file count for per file).
#[divan::bench]
fn parse_corpus(bencher: divan::Bencher) {
    let mut texts = Vec::new();
    for system in std::fs::read_dir(corpus().join("rules")).unwrap().flatten() {
        if system.path().is_dir() {
            for f in std::fs::read_dir(system.path()).unwrap().flatten() {
                texts.push((f.path(), std::fs::read_to_string(f.path()).unwrap()));
            }
        }
    }
    bencher
        .counter(divan::counter::ItemsCount::new(texts.len()))
        .bench_local(|| {
            texts
                .iter()
                .filter_map(|(p, t)| parse_rule(Scope::Project, "x.md", p, t).rule)
                .count()
        });
}

/// Discovery of rule files on disk (walk, read, parse, compile).
#[divan::bench(args = [10, 100, 1000])]
fn discover(bencher: divan::Bencher, n: usize) {
    let paths = tree_paths();
    let tmp = tempfile::tempdir().unwrap();
    let rules = tmp.path().join(".wave/rules");
    for (k, (id, text)) in rule_texts(n, &paths).into_iter().enumerate() {
        let dir = rules.join(format!("group{}", k % 10));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(id), text).unwrap();
    }
    let roots = Config::with_home(tmp.path(), tmp.path().join("no-home"));
    bencher.bench_local(|| memory_rules::load(&roots));
}

/// Reload with nothing changed (files older than the racy window).
#[divan::bench(args = [10, 100, 1000])]
fn reload_unchanged(bencher: divan::Bencher, n: usize) {
    let paths = tree_paths();
    let tmp = tempfile::tempdir().unwrap();
    let rules = tmp.path().join(".wave/rules");
    std::fs::create_dir_all(&rules).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for (id, text) in rule_texts(n, &paths) {
        std::fs::write(rules.join(&id), text).unwrap();
        std::fs::File::options()
            .write(true)
            .open(rules.join(&id))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let roots = Config::with_home(tmp.path(), tmp.path().join("no-home"));
    let loaded = memory_rules::load(&roots);
    bencher.bench_local(|| memory_rules::reload(&roots, &loaded));
}
