//! Every file of `../shared/corpus/rules/<tool>/` read as that tool's
//! format: no panic; every file loads or gets an error; every diagnostic
//! has a line and a column. Prints the counts per tool (run with
//! `--nocapture`): files, loaded, activation kinds, diagnostics by code.
//! Skipped, with one line, when the corpus is absent (see `common::corpus`).

mod common;
use memory_rules::internals::formats::{self, Input};
use memory_rules::internals::sources::nested;
use memory_rules::Format;
use memory_rules::{Activation, Scope, Severity};
use std::collections::BTreeMap;
use std::path::Path;

/// The file's path in its repository: `owner__repo__a__b.md` -> `a/b.md`.
fn repo_path(file: &Path) -> String {
    let name = file.file_name().unwrap().to_string_lossy();
    let mut parts = name.splitn(3, "__");
    parts.next();
    parts.next();
    parts.next().unwrap_or("").replace("__", "/")
}

/// The id and scoped directory a discovery would give the file.
fn place(format: Format, rel: &str) -> (String, Option<String>) {
    let (root, nested_ok) = match format {
        Format::Cursor => (".cursor/rules/", true),
        Format::Copilot => (".github/instructions/", false),
        Format::Windsurf if rel.contains(".devin/rules/") => (".devin/rules/", false),
        Format::Windsurf => (".windsurf/rules/", false),
        Format::Antigravity if rel.contains(".agent/rules/") => (".agent/rules/", false),
        Format::Antigravity => (".agents/rules/", false),
        Format::Kiro => (".kiro/steering/", false),
        Format::Cline => (".clinerules/", false),
        Format::Continue => (".continue/rules/", false),
        Format::Claude => (".claude/rules/", false),
        _ => (".wave/rules/", false),
    };
    let (before, after) = match rel.find(root) {
        Some(i) => (&rel[..i], &rel[i + root.len()..]),
        None => ("", rel),
    };
    let dir = before.trim_end_matches('/');
    if nested_ok && !dir.is_empty() {
        (
            format.id(rel),
            nested::cursor_directory_of(rel).map(str::to_string),
        )
    } else {
        (format.id(after), None)
    }
}

#[derive(Default)]
struct Counts {
    files: usize,
    loaded: usize,
    kinds: BTreeMap<&'static str, usize>,
    codes: BTreeMap<String, usize>,
}

#[test]
fn every_corpus_file_reads_as_its_own_format() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let tools = [
        ("cursor", Format::Cursor),
        ("copilot", Format::Copilot),
        ("windsurf", Format::Windsurf),
        ("devin", Format::Windsurf),
        ("antigravity", Format::Antigravity),
        ("kiro", Format::Kiro),
        ("cline", Format::Cline),
        ("continue", Format::Continue),
        ("claude", Format::Claude),
        ("wave", Format::Wave),
    ];
    let mut total = 0;
    let mut report = String::new();
    for (dir, format) in tools {
        // The moved agents' folders, until the shared corpus has them: one line.
        if !corpus.join("rules").join(dir).is_dir() {
            eprintln!("skipped: no {dir} files in the corpus (rules/{dir}/)");
            continue;
        }
        let files = common::corpus_files(&corpus, Some(dir));
        let mut c = Counts::default();
        for path in &files {
            c.files += 1;
            let text = std::fs::read_to_string(path).unwrap();
            let rel = repo_path(path);
            let (id, directory) = place(format, &rel);
            let input = Input {
                scope: Scope::Project,
                id: &id,
                path,
                text: &text,
                directory: directory.as_deref(),
            };
            let parsed = formats::parse(format, &input);
            for d in &parsed.diagnostics {
                assert!(d.line.is_some() && d.column.is_some(), "no location: {d}");
                *c.codes
                    .entry(format!("{} ({})", d.code, d.severity))
                    .or_default() += 1;
            }
            if parsed.rules.is_empty() {
                assert!(
                    parsed
                        .diagnostics
                        .iter()
                        .any(|d| d.severity == Severity::Error
                            || d.code == memory_rules::Code::ExcludedAgent),
                    "{} dropped silently",
                    path.display()
                );
            } else {
                c.loaded += 1;
            }
            for r in &parsed.rules {
                assert_eq!(r.rule.format, format);
                let kind = match r.rule.metadata.activation {
                    Activation::OnRequest if r.rule.metadata.paths.is_some() => {
                        "files or on-request"
                    }
                    Activation::OnRequest => "on-request",
                    Activation::Manual => "manual",
                    Activation::Auto if r.rule.metadata.is_unconditional() => "always",
                    Activation::Auto => "files",
                };
                *c.kinds.entry(kind).or_default() += 1;
            }
        }
        total += c.files;
        let kinds: Vec<String> = c.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let codes: Vec<String> = c.codes.iter().map(|(k, n)| format!("{k} {n}")).collect();
        report.push_str(&format!(
            "| {dir} | {} | {} | {} | {} |\n",
            c.files,
            c.loaded,
            kinds.join(", "),
            if codes.is_empty() {
                "none".to_string()
            } else {
                codes.join(", ")
            }
        ));
    }
    eprintln!("| tool | files | loaded | activation | diagnostics by code |\n|---|---|---|---|---|\n{report}");
    assert!(total > 320, "corpus has {total} files");
}
