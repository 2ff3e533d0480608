//! `wave-rules validate` over every file of `../shared/corpus/rules`: no
//! panic (exit 101), and each file is either clean or has diagnostics that
//! carry a line number. Skipped, with one line, when the corpus is absent.

#[path = "../../memory-rules/tests/common/mod.rs"]
mod common;
use std::process::Command;

#[test]
fn validate_every_corpus_file() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let files = common::corpus_files(&corpus, None);
    assert!(files.len() > 300, "{} files", files.len());
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(["validate", "--json", "--home"])
        .arg(home.path())
        .args(&files)
        .current_dir(home.path())
        .output()
        .unwrap();
    let code = out.status.code().expect("exited, not killed by a signal");
    assert!(
        code == 0 || code == 1,
        "exit {code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diagnostics = v["diagnostics"].as_array().unwrap();
    // Each file is read in the format its name suggests (`*.mdc` as Cursor,
    // `*.instructions.md` as Copilot): every one loads, except those Copilot
    // itself leaves out for coding agents (`excludeAgent: coding-agent`).
    let excluded = diagnostics
        .iter()
        .filter(|d| d["code"] == "excluded-agent")
        .count();
    assert_eq!(
        v["rules"].as_u64().unwrap() as usize + excluded,
        files.len(),
        "every corpus file loads"
    );
    for d in diagnostics {
        assert!(d["line"].is_u64() && d["column"].is_u64(), "no line: {d}");
    }
    let with: std::collections::HashSet<&str> = diagnostics
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    eprintln!(
        "{} files: {} clean, {} with diagnostics ({} diagnostics)",
        files.len(),
        files.len() - with.len(),
        with.len(),
        diagnostics.len()
    );
}
