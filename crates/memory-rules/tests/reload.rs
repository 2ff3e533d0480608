//! Incremental reload on real files: what changed is seen, what did not is
//! neither read nor parsed, and the compiled set is kept.

mod common;
use common::*;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Sets a file's mtime to `secs` seconds ago (outside the racy window).
fn age(path: &std::path::Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

fn roots(t: &Tree) -> memory_rules::sources::Config {
    memory_rules::sources::Config::with_home(t.workdir(), t.home())
}

#[test]
fn nothing_changed_keeps_the_compiled_set_and_reads_nothing() {
    let t = Tree::new();
    let a = t.project("a.md", "---\npaths: a/**\n---\nA");
    let b = t.user("b.md", "B");
    age(&a, 60);
    age(&b, 60);
    let first = t.load();
    let again = memory_rules::reload(&roots(&t), &first);
    assert!(!again.changed);
    assert_eq!(again.reparsed, 0);
    assert!(Arc::ptr_eq(&first.rules, &again.loaded.rules));
}

#[test]
fn changed_added_removed_and_renamed_files_are_seen() {
    let t = Tree::new();
    let a = t.project("a.md", "---\npaths: a/**\n---\nA1");
    let b = t.project("b.md", "B");
    let c = t.project("sub/c.md", "C");
    for p in [&a, &b, &c] {
        age(p, 60);
    }
    let l0 = t.load();

    std::fs::write(&a, "---\npaths: z/**\n---\nA2").unwrap();
    let r1 = memory_rules::reload(&roots(&t), &l0);
    assert!(r1.changed);
    assert_eq!(r1.reparsed, 1, "only the changed file is read");
    assert_eq!(
        active(&r1.loaded, &["z/x"], None),
        ["a.md", "b.md", "sub/c.md"]
    );
    assert!(!Arc::ptr_eq(&l0.rules, &r1.loaded.rules));

    t.project("new.md", "---\ntopics: fresh\n---\nN");
    std::fs::remove_file(&b).unwrap();
    std::fs::rename(&c, t.project_rules().join("sub/renamed.md")).unwrap();
    let r2 = memory_rules::reload(&roots(&t), &r1.loaded);
    assert!(r2.changed);
    assert_eq!(
        ids(&r2.loaded),
        ["project:a.md", "project:new.md", "project:sub/renamed.md"]
    );
}

#[test]
fn a_racy_edit_with_same_size_and_mtime_is_still_seen() {
    let t = Tree::new();
    let a = t.project("a.md", "---\npaths: aa/**\n---\nA");
    let mtime = std::fs::metadata(&a).unwrap().modified().unwrap();
    let l0 = t.load();
    // Same size, same mtime, same inode: only the bytes differ.
    std::fs::write(&a, "---\npaths: bb/**\n---\nA").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&a)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let r = memory_rules::reload(&roots(&t), &l0);
    assert!(
        r.changed,
        "a file modified within the racy window is re-read"
    );
    assert_eq!(active(&r.loaded, &["bb/x"], None), ["a.md"]);
}

#[test]
fn a_racy_file_with_the_same_bytes_is_not_a_change() {
    let t = Tree::new();
    t.project("a.md", "A");
    let l0 = t.load();
    let r = memory_rules::reload(&roots(&t), &l0);
    assert_eq!(r.reparsed, 1, "recent file is re-read");
    assert!(!r.changed);
    assert!(Arc::ptr_eq(&l0.rules, &r.loaded.rules));
}

#[test]
fn a_new_diagnostic_alone_is_a_change() {
    let t = Tree::new();
    let a = t.project("a.md", "A");
    age(&a, 60);
    let l0 = t.load();
    symlink(
        t.tmp.path().join("missing.md"),
        t.project_rules().join("dangling.md"),
    );
    let r = memory_rules::reload(&roots(&t), &l0);
    assert!(r.changed);
    assert!(
        Arc::ptr_eq(&l0.rules, &r.loaded.rules),
        "rules did not change"
    );
    assert_eq!(codes(&r.loaded), ["dangling-symlink:dangling.md"]);
}

/// A project with a rule file of several formats (a Copilot glob matches
/// case-insensitively, a nested Cursor rule is scoped to its directory).
fn every_format(t: &Tree) -> (memory_rules::sources::Config, Vec<std::path::PathBuf>) {
    let w = t.workdir();
    let files =
        vec![
        t.project("db.md", "---\ntopics: [customer]\n---\nThe customer table is read-only."),
        t.write(
            w.join(".cursor/rules/ts.mdc"),
            "---\nglobs: src/**/*.ts\n---\nStrict TypeScript.",
        ),
        t.write(
            w.join("web/.cursor/rules/ui.mdc"),
            "---\nalwaysApply: true\n---\nUse the design system.",
        ),
        t.write(
            w.join(".github/instructions/sql.instructions.md"),
            "---\napplyTo: \"*.sql\"\n---\nNo SELECT *.",
        ),
        t.write(
            w.join(".kiro/steering/api.md"),
            "---\ninclusion: fileMatch\nfileMatchPattern: \"api/**\"\n---\nVersion every endpoint.",
        ),
        t.write(w.join("AGENTS.md"), "Run the tests before committing."),
        t.write(
            w.join(".claude/rules.yaml"),
            "- id: deploy\n  topics: [deploy]\n  content: Deploys go through CI.\n",
        ),
    ];
    for f in &files {
        age(f, 60);
    }
    let config = memory_rules::sources::Config::named(&w, t.home(), memory_rules::Format::ALL);
    (config, files)
}

fn answers(loaded: &memory_rules::Loaded) -> Vec<Vec<String>> {
    [
        (&["src/app/main.ts"][..], None),
        (&["db/Q.SQL"][..], None),
        (&["web/button.tsx"][..], None),
        (&["api/users.go"][..], Some("deploy the customer table")),
        (&["README.md"][..], None),
    ]
    .iter()
    .map(|(files, prompt)| active(loaded, files, *prompt))
    .collect()
}

#[test]
fn a_saved_snapshot_reloads_every_format_without_reading_a_file() {
    let t = Tree::new();
    let (config, _) = every_format(&t);
    let first = memory_rules::load(&config);
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    assert_eq!(first.snapshot().len(), 7);
    let bytes = first.snapshot().to_bytes().unwrap();

    let restored = memory_rules::Snapshot::from_bytes(&bytes).unwrap();
    let again = memory_rules::reload_from(&config, &restored);
    assert_eq!(again.reparsed, 0, "nothing is read again");
    assert!(!again.changed);
    assert_eq!(again.loaded.rules.rules(), first.rules.rules());
    assert_eq!(answers(&again.loaded), answers(&first));
    assert_eq!(
        answers(&first)[..3],
        [
            vec![
                "agents-md:AGENTS.md".to_string(),
                "cursor:ts.mdc".to_string()
            ],
            vec![
                "agents-md:AGENTS.md".to_string(),
                "copilot:sql.instructions.md".to_string()
            ],
            vec![
                "agents-md:AGENTS.md".to_string(),
                "cursor:web/.cursor/rules/ui.mdc".to_string()
            ],
        ],
        "the formats' own matching survives the snapshot"
    );
}

#[test]
fn a_restored_snapshot_sees_a_changed_added_and_removed_file() {
    let t = Tree::new();
    let (config, files) = every_format(&t);
    let bytes = memory_rules::load(&config).snapshot().to_bytes().unwrap();
    let restored = memory_rules::Snapshot::from_bytes(&bytes).unwrap();

    let cursor = &files[1];
    std::fs::write(
        cursor,
        "---\nglobs: lib/**/*.ts\n---\nStrict TypeScript, in lib.",
    )
    .unwrap();
    let r = memory_rules::reload_from(&config, &restored);
    assert!(r.changed);
    assert_eq!(r.reparsed, 1, "only the changed file is read");
    assert_eq!(
        active(&r.loaded, &["lib/x.ts"], None),
        ["agents-md:AGENTS.md", "cursor:ts.mdc"]
    );
    assert_eq!(
        active(&r.loaded, &["src/app/main.ts"], None),
        ["agents-md:AGENTS.md"]
    );

    std::fs::remove_file(&files[3]).unwrap();
    t.write(t.workdir().join(".windsurfrules"), "Windsurf, always.");
    let r = memory_rules::reload_from(&config, &restored);
    assert!(r.changed);
    assert_eq!(r.reparsed, 2, "the changed and the new file");
    assert_eq!(
        active(&r.loaded, &["db/q.sql"], None),
        ["agents-md:AGENTS.md", "windsurf:.windsurfrules"]
    );
}

#[test]
fn a_foreign_or_damaged_snapshot_is_refused_with_a_reason() {
    let t = Tree::new();
    let (config, _) = every_format(&t);
    let bytes = memory_rules::load(&config).snapshot().to_bytes().unwrap();
    let cut = memory_rules::Snapshot::from_bytes(&bytes[..bytes.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(cut.contains("not a rules snapshot"), "{cut}");
    let text = String::from_utf8(bytes).unwrap();
    // Whatever version this build writes, another one is refused.
    let at = text.find("\"version\":").unwrap() + "\"version\":".len();
    let end = at + text[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let other = format!("{}999{}", &text[..at], &text[end..]);
    let e = memory_rules::Snapshot::from_bytes(other.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains("version 999"), "{e}");
}

/// A memory file's `@path` import is part of its outcome: when the
/// imported file changes (or appears), the importer is read again, also
/// from a saved snapshot (a hook's next run).
#[test]
fn a_changed_import_is_seen_on_reload() {
    let t = Tree::new();
    let w = t.workdir();
    let claude = t.write(
        w.join("CLAUDE.md"),
        "Own text.\n\n@AGENTS.md @docs/later.md\n",
    );
    let agents = t.write(w.join("AGENTS.md"), "First.");
    age(&claude, 60);
    age(&agents, 60);
    let config =
        memory_rules::sources::Config::named(&w, t.home(), &[memory_rules::Format::Claude]);
    let first = memory_rules::load(&config);
    let content = |l: &memory_rules::Loaded, id: &str| {
        l.rules
            .find(id)
            .map(|r| r.content.to_string())
            .unwrap_or_default()
    };
    assert_eq!(content(&first, "claude:CLAUDE.md@AGENTS.md"), "First.");
    let same = memory_rules::reload(&config, &first);
    assert_eq!(same.reparsed, 0, "nothing changed");
    let saved = first.snapshot().to_bytes().unwrap();
    t.write(w.join("AGENTS.md"), "Second, longer.");
    let again = memory_rules::reload(&config, &first);
    assert!(again.changed);
    assert_eq!(
        content(&again.loaded, "claude:CLAUDE.md@AGENTS.md"),
        "Second, longer."
    );
    // A file that did not exist at the first load, then appears.
    t.write(w.join("docs/later.md"), "Later.");
    let restored = memory_rules::Snapshot::from_bytes(&saved).unwrap();
    let r = memory_rules::reload_from(&config, &restored);
    assert_eq!(
        content(&r.loaded, "claude:CLAUDE.md@docs/later.md"),
        "Later."
    );
    assert_eq!(
        content(&r.loaded, "claude:CLAUDE.md@AGENTS.md"),
        "Second, longer."
    );
}
