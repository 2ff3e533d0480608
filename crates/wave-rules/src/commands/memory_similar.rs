//! `wave-rules memory similar ENTRY|TEXT`: the entries and rule parts
//! nearest to a note, ranked, each with its evidence (the shared subject,
//! the value that differs, the rule's line) and what hygiene makes of it
//! (`duplicate`, `restates`, `supersedes`, `conflict`, `related`); the
//! core's `memory::similar`. Exit 0 (a ranking is information, not a
//! problem); 1 for an empty text.

use crate::base::args::MemorySimilarArgs;
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE};
use memory_rules::memory::{Candidate, MemoryStore, Other};
use serde_json::{json, Value};

pub fn run(env: &Env, store: &MemoryStore, a: &MemorySimilarArgs) -> Output {
    let what = a.what.trim();
    if what.is_empty() {
        return Output::fail(
            EXIT_FAILURE,
            "memory similar: give an entry's id or a note's text",
        );
    }
    let loaded = memory_rules::load(&env.config);
    let (text, candidates) =
        memory_rules::memory::similar(store, Some(&loaded.rules), what, a.limit);
    if env.json {
        let list: Vec<Value> = candidates.iter().map(Candidate::to_json).collect();
        return Output {
            stdout: display::json_text(&json!({ "note": text, "candidates": list })),
            ..Output::default()
        };
    }
    let mut out = Output::default();
    for (i, c) in candidates.iter().enumerate() {
        for line in render(i + 1, c, env).lines() {
            out.stdout.push_str(&display::line(line));
        }
    }
    if candidates.is_empty() {
        out.stdout
            .push_str("memory: nothing similar (no entry or rule shares a word)\n");
    }
    out
}

/// One candidate: rank, what it is, score and verdict, then its evidence.
fn render(rank: usize, c: &Candidate, env: &Env) -> String {
    let what = match &c.with {
        Other::Entry { scope, id, topic } => format!("{scope} entry {id} ('{topic}')"),
        Other::Rule { id } => {
            let file = c
                .file
                .as_deref()
                .map(|f| display::show(std::path::Path::new(f), &env.config.workdir));
            format!(
                "rule {id}{}",
                file.map(|f| format!(" ({f})")).unwrap_or_default()
            )
        }
    };
    let mut s = format!("{rank}. {what}  {:.2} {}", c.score, c.verdict.as_str());
    if !c.shared.is_empty() {
        s.push_str(&format!("\n   shared: {}", c.shared.join(", ")));
    }
    if let Some(d) = &c.clash {
        s.push_str(&format!(
            "\n   differs: {} {} here, {} there",
            d.kind.as_str(),
            d.ours.join(", "),
            d.theirs.join(", ")
        ));
    }
    let flat = c.text.split_whitespace().collect::<Vec<_>>().join(" ");
    s.push_str(&format!("\n   \"{flat}\""));
    s
}
