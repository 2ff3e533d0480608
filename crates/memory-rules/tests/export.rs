//! Export to every target, per activation kind and glob shape: the files
//! written, read back by our reader for that tool, keep each rule's meaning
//! (the same contexts make it active, or offer it on request), or the
//! export says per rule and target what was lost; a conditional rule never
//! becomes always-on.

mod common;
use common::Tree;
use memory_rules::delivery::export::{self, Target};
use memory_rules::sources::Config;
use memory_rules::sources::Source;
use memory_rules::{Format, Scope};
use std::collections::BTreeSet;

const CONTEXTS: &[(&[&str], Option<&str>)] = &[
    (&["README.md"], None),
    (&["src/a.ts"], None),
    (&["src/gen/x.ts"], None),
    (&["lib/a.js"], None),
    (&["app/b.tsx"], None),
    (&["web/x/y.css"], None),
    (&["db/m.sql"], None),
    (&["packages/p/src/a.ts"], None),
    (&["README.md"], Some("write the sql query")),
    (&["README.md"], Some("a migration for users")),
];

fn source_tree() -> Tree {
    let t = Tree::new();
    let w = t.workdir();
    std::fs::create_dir_all(t.home()).unwrap();
    t.project("always.md", "Always on.");
    t.project("ts.md", "---\npaths: src/**/*.ts\n---\nTS.");
    t.project(
        "multi.md",
        "---\npaths: [\"src/**/*.ts\", \"lib/*.js\"]\n---\nMulti.",
    );
    t.project("brace.md", "---\npaths: \"**/*.{ts,tsx}\"\n---\nBrace.");
    t.project(
        "excl.md",
        "---\npaths: [\"src/**\", \"!src/gen/**\"]\n---\nNot generated code.",
    );
    t.project("web.md", "---\npaths: web/**\n---\nWeb directory.");
    t.project("sql.md", "---\ntopics: [sql]\n---\nNo SELECT *.");
    t.project(
        "both.md",
        "---\npaths: db/**\ntopics: [migration]\ndescription: Database work\n---\nDB.",
    );
    t.write(
        w.join(".cursor/rules/req.mdc"),
        "---\ndescription: Release process\n---\nOn request.",
    );
    t.write(
        w.join(".cursor/rules/man.mdc"),
        "---\nalwaysApply: false\n---\nManual.",
    );
    t
}

fn config(t: &Tree) -> Config {
    Config::new(
        t.workdir(),
        vec![
            Source::new(
                t.workdir().join(".cursor/rules"),
                Scope::Project,
                Format::Cursor,
                None,
            ),
            Source::wave(&t.workdir(), Scope::Project),
        ],
    )
}

/// Per source rule: the contexts (by index) where it is active / offered.
fn per_rule(
    set: &memory_rules::RuleSet,
    names: &[Vec<String>],
) -> std::collections::BTreeMap<String, BTreeSet<(usize, bool)>> {
    let mut out = std::collections::BTreeMap::<String, BTreeSet<(usize, bool)>>::new();
    for n in names.iter().flatten() {
        out.entry(n.clone()).or_default();
    }
    for (i, (files, prompt)) in CONTEXTS.iter().enumerate() {
        for (id, on) in export::meaning(set, names, files, *prompt) {
            out.entry(id).or_default().insert((i, on));
        }
    }
    out
}

#[test]
fn every_target_keeps_the_meaning_or_says_what_it_lost() {
    let t = source_tree();
    let loaded = memory_rules::load(&config(&t));
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let rules = loaded.rules.rules().to_vec();
    assert_eq!(rules.len(), 10);
    let names: Vec<Vec<String>> = rules.iter().map(|r| vec![r.id.clone()]).collect();
    let original = per_rule(&loaded.rules, &names);
    let plan = export::plan(&rules, &t.workdir(), Target::ALL).unwrap();
    let mut exact_table = Vec::new();
    for &target in Target::ALL {
        let (set, sources, diags) = export::read_back(&plan, target, &t.workdir());
        let bad: Vec<_> = diags
            .iter()
            .filter(|d| d.severity <= memory_rules::Severity::Warning)
            .collect();
        assert!(bad.is_empty(), "{target}: {bad:?}");
        let back = per_rule(&set, &sources);
        let mut exact = Vec::new();
        for r in &rules {
            if r.format == target.format() && target != Target::Gemini {
                continue; // its own file, not exported
            }
            let noted: Vec<&export::ExportNote> = plan
                .notes
                .iter()
                .filter(|n| n.target == target && n.rule == r.id)
                .collect();
            let was = &original[&r.id];
            let now = back.get(&r.id).cloned().unwrap_or_default();
            if r.id.ends_with("man.mdc") {
                // Manual: never active or offered without a mention.
                assert!(now.is_empty() || !noted.is_empty(), "{target} {}", r.id);
                if noted.is_empty() {
                    exact.push(r.id.clone());
                }
                continue;
            }
            if *was == now {
                exact.push(r.id.clone());
            } else {
                assert!(
                    !noted.is_empty(),
                    "{target}: {} changed meaning without a note: {was:?} -> {now:?}",
                    r.id
                );
            }
            // Never always-on for a rule that was not.
            let was_on_readme = was.contains(&(0, true));
            if !was_on_readme {
                assert!(
                    !now.contains(&(0, true)),
                    "{target}: {} became always-on",
                    r.id
                );
            }
        }
        exact_table.push((target, exact));
    }
    let exact =
        |t: Target| -> Vec<String> { exact_table.iter().find(|(x, _)| *x == t).unwrap().1.clone() };
    let has = |t: Target, id: &str| exact(t).iter().any(|x| x == id);
    for t in [
        Target::Cursor,
        Target::Windsurf,
        Target::Kiro,
        Target::Cline,
        Target::Continue,
        Target::Claude,
    ] {
        for id in ["always.md", "ts.md", "multi.md", "brace.md", "web.md"] {
            assert!(has(t, id), "{t}: {id} not exact: {:?}", exact(t));
        }
    }
    for t in [Target::Continue, Target::Claude] {
        assert!(has(t, "excl.md"), "{t}");
    }
    // (Cursor's own files are not exported back to Cursor.)
    for t in [
        Target::Windsurf,
        Target::Kiro,
        Target::Continue,
        Target::Copilot,
    ] {
        assert!(has(t, "cursor:req.mdc"), "{t}: {:?}", exact(t));
    }
    for t in [Target::AgentsMd, Target::Gemini] {
        assert!(has(t, "always.md") && has(t, "web.md"), "{t}");
    }
    // Copilot: anchored patterns match anywhere, and that is said.
    assert!(!has(Target::Copilot, "ts.md"));
    assert!(plan.notes.iter().any(|n| n.target == Target::Copilot
        && n.rule == "ts.md"
        && n.message.contains("any directory")));
    // Topics: on request with a description where the tool has that, left
    // out where it has not.
    let sql = |t: Target| {
        plan.notes
            .iter()
            .find(|n| n.target == t && n.rule == "sql.md")
            .unwrap_or_else(|| panic!("{t}: no note for sql.md"))
            .clone()
    };
    assert!(!sql(Target::Cursor).skipped);
    assert!(sql(Target::Cline).skipped);
    assert!(sql(Target::Claude).skipped);
    assert!(sql(Target::AgentsMd).skipped);
    // A rule whose paths cannot go into a combined file: each target's note
    // names its own file (GEMINI.md's used to say AGENTS.md).
    let ts = |t: Target| {
        plan.notes
            .iter()
            .find(|n| n.target == t && n.rule == "ts.md")
            .unwrap_or_else(|| panic!("{t}: no note for ts.md"))
            .message
            .clone()
    };
    assert!(
        ts(Target::AgentsMd).contains("DIR/AGENTS.md"),
        "{}",
        ts(Target::AgentsMd)
    );
    assert!(
        ts(Target::Gemini).contains("DIR/GEMINI.md"),
        "{}",
        ts(Target::Gemini)
    );
    assert!(
        !ts(Target::Gemini).contains("AGENTS.md"),
        "{}",
        ts(Target::Gemini)
    );
}

#[test]
fn glob_dialects_are_each_targets_own() {
    let t = source_tree();
    let loaded = memory_rules::load(&config(&t));
    let plan = export::plan(loaded.rules.rules(), &t.workdir(), Target::ALL).unwrap();
    let text = |rel: &str| {
        plan.files
            .iter()
            .find(|f| f.rel == rel)
            .unwrap_or_else(|| {
                panic!(
                    "no {rel}: {:?}",
                    plan.files.iter().map(|f| &f.rel).collect::<Vec<_>>()
                )
            })
            .text
            .clone()
    };
    assert!(text(".kiro/steering/multi.md")
        .contains("fileMatchPattern: [\"src/**/*.ts\", \"lib/*.js\"]"));
    assert!(text(".kiro/steering/ts.md").contains("fileMatchPattern: \"src/**/*.ts\"\n"));
    // Cursor applies only the unquoted comma-joined form (formats/cursor.rs).
    assert!(text(".cursor/rules/multi.mdc").contains("\nglobs: src/**/*.ts,lib/*.js\n"));
    assert!(!text(".cursor/rules/multi.mdc").contains("globs: \""));
    assert!(text(".github/instructions/multi.instructions.md")
        .contains("applyTo: \"src/**/*.ts,lib/*.js\""));
    assert!(text(".continue/rules/excl.md").contains("globs: [\"src/**\", \"!src/gen/**\"]"));
    assert!(text(".clinerules/ts.md").starts_with("---\npaths: [\"src/**/*.ts\"]\n---\n"));
    assert!(text(".github/copilot-instructions.md").contains("Always on."));
    assert!(text("web/AGENTS.md").contains("Web directory."));
    assert!(text("GEMINI.md").contains("Always on."));
    for f in &plan.files {
        assert!(export::is_generated(&f.text), "{} has no header", f.rel);
    }
}

#[test]
fn export_replaces_only_generated_files_and_removes_stale_ones() {
    let t = source_tree();
    let w = t.workdir();
    let cfg = config(&t);
    let run = || {
        let loaded = memory_rules::load(&cfg);
        let plan = export::plan(loaded.rules.rules(), &w, &[Target::Windsurf]).unwrap();
        export::diff(&plan, &w)
    };
    let first = run();
    assert!(first.conflicts.is_empty());
    assert_eq!(first.changes.len(), 10);
    export::apply(&first.changes).unwrap();
    let again = run();
    assert!(again.changes.is_empty(), "{:?}", again.changes);
    assert_eq!(again.unchanged, 10);
    // A hand edit of a generated file is a change back.
    let ts = w.join(".windsurf/rules/ts.md");
    let edited = std::fs::read_to_string(&ts)
        .unwrap()
        .replace("TS.", "Hand edit.");
    std::fs::write(&ts, edited).unwrap();
    let d = run();
    assert_eq!(d.changes.len(), 1);
    let shown = export::unified(
        &d.changes[0].rel,
        d.changes[0].old.as_deref(),
        d.changes[0].new.as_deref(),
    );
    assert!(shown.contains("-Hand edit.\n+TS."), "{shown}");
    // A removed source rule: its generated file goes.
    std::fs::remove_file(t.project_rules().join("ts.md")).unwrap();
    let d = run();
    assert_eq!(d.changes.len(), 1);
    assert_eq!(d.changes[0].verb(), "remove");
    export::apply(&d.changes).unwrap();
    assert!(!ts.exists());
    // A hand-written file in the way: a conflict, never overwritten.
    std::fs::write(w.join(".windsurf/rules/sql.md"), "Mine.").unwrap();
    let d = run();
    assert_eq!(d.conflicts.len(), 1, "{:?}", d.conflicts);
    assert!(d.conflicts[0]
        .message
        .contains("not written by wave-rules export"));
    // A hand-written file that export would not write is left alone.
    std::fs::write(w.join(".windsurf/rules/own.md"), "Own.").unwrap();
    let d = run();
    assert!(d.changes.iter().all(|c| !c.rel.ends_with("own.md")));
}

#[test]
fn enforced_rules_are_written_as_text_with_a_note_in_every_target() {
    let t = Tree::new();
    std::fs::create_dir_all(t.home()).unwrap();
    t.project(
        "gen.md",
        "---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt.",
    );
    t.project(
        "push.md",
        "---\ncommands: [\"git push --force*\"]\nenforce: warn\n---\nAsk before a force push.",
    );
    let loaded = memory_rules::load(&Config::new(
        t.workdir(),
        vec![Source::wave(&t.workdir(), Scope::Project)],
    ));
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let rules = loaded.rules.rules().to_vec();
    let plan = export::plan(&rules, &t.workdir(), Target::ALL).unwrap();
    for &target in Target::ALL {
        let written = |text: &str| {
            plan.files
                .iter()
                .any(|f| f.target == target && f.text.contains(text))
        };
        let noted = |id: &str| {
            plan.notes.iter().any(|n| {
                n.target == target
                    && n.rule == id
                    && !n.skipped
                    && n.message
                        .contains("cannot enforce: the rule is written as text")
            })
        };
        // The command rule has no trigger another tool reads: always there, as text.
        assert!(
            written("Ask before a force push."),
            "{target:?}: {:?}",
            plan.files
        );
        assert!(noted("push.md"), "{target:?}: {:?}", plan.notes);
        assert!(
            plan.notes.iter().any(|n| n.target == target
                && n.rule == "push.md"
                && n.message
                    .contains("'enforce: warn' (the commands it names)")),
            "{target:?}"
        );
        // The path rule keeps its paths where the target has them (a
        // directory rule for AGENTS.md-style files).
        assert!(written("Generated files are rebuilt."), "{target:?}");
        assert!(noted("gen.md"), "{target:?}: {:?}", plan.notes);
    }
}
