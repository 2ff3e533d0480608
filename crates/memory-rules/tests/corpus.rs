//! The real rule files in `../shared/corpus`: every one parses without a
//! panic, and every problem is a diagnostic with a line number. Skipped,
//! with one line, when the corpus is absent (see `common::corpus`).

mod common;
use memory_rules::internals::rules::parser::parse_rule;
use memory_rules::{Code, Scope, Severity};

#[test]
fn every_corpus_file_parses_or_reports_with_a_line() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let files = common::corpus_files(&corpus, None);
    assert!(files.len() > 300, "corpus has {} files", files.len());
    let (mut loaded, mut with_diagnostics) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let outcome = parse_rule(Scope::Project, "x.md", path, &text);
        if outcome.rule.is_some() {
            loaded += 1;
        }
        if !outcome.diagnostics.is_empty() {
            with_diagnostics += 1;
        }
        for d in &outcome.diagnostics {
            assert!(d.line.is_some() && d.column.is_some(), "no location: {d}");
        }
        if outcome.rule.is_none() {
            assert!(
                outcome
                    .diagnostics
                    .iter()
                    .any(|d| d.severity == Severity::Error),
                "{} dropped silently",
                path.display()
            );
        }
    }
    eprintln!(
        "corpus: {} files, {loaded} loaded, {with_diagnostics} with diagnostics",
        files.len()
    );
    // Every file in the corpus is usable once the leniency pass has run.
    assert_eq!(loaded, files.len(), "some corpus files did not load");
}

#[test]
fn cursor_unquoted_globs_are_understood_and_explained() {
    // `globs: **/*.ts,**/*.tsx,...` unquoted: a YAML alias to a strict parser.
    let Some(corpus) = common::corpus() else {
        return;
    };
    let path = common::corpus_files(&corpus, None)
        .into_iter()
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("\nglobs: **/*.ts,**/*.tsx")
        })
        .expect("corpus has an unquoted cursor glob");
    let text = std::fs::read_to_string(&path).unwrap();
    let o = parse_rule(Scope::Project, "x.md", &path, &text);
    assert!(o.rule.is_some());
    let codes: Vec<Code> = o.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::UnquotedValue), "{codes:?}");
    assert!(codes.contains(&Code::ForeignKey), "{codes:?}");
}

#[test]
fn wave_rules_match_their_own_repository() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let tree = std::fs::read_to_string(corpus.join("trees/netease-lcap__wave-agent.txt")).unwrap();
    let paths: Vec<&str> = tree.lines().collect();
    let t = common::Tree::new();
    for f in common::corpus_files(&corpus, Some("wave")) {
        let name = f.file_name().unwrap().to_string_lossy();
        let id = name.rsplit("__").next().unwrap().to_string();
        t.project(&id, &std::fs::read_to_string(&f).unwrap());
    }
    let loaded = t.load();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let test_file = paths
        .iter()
        .find(|p| p.starts_with("packages/") && p.contains("/tests/"))
        .expect("a test file");
    assert_eq!(
        common::active(&loaded, &[test_file], None),
        ["testing.md", "typescript.md"]
    );
    let every = common::active(&loaded, &paths, None);
    assert_eq!(
        every,
        ["cli.md", "examples.md", "testing.md", "typescript.md"]
    );
}
