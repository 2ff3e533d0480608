//! Activation on rules loaded from real files.

mod common;
use common::*;
use memory_rules::Reason;

fn tree(rules: &[(&str, &str)]) -> (Tree, memory_rules::Loaded) {
    let t = Tree::new();
    for (id, text) in rules {
        t.project(id, text);
    }
    let loaded = t.load();
    (t, loaded)
}

#[test]
fn unconditional_rules_are_always_active() {
    let (_t, l) = tree(&[
        ("always.md", "Always."),
        ("ts.md", "---\npaths: '**/*.ts'\n---\nTS"),
    ]);
    assert_eq!(active(&l, &[], None), ["always.md"]);
    assert_eq!(active(&l, &["a.ts"], None), ["always.md", "ts.md"]);
}

#[test]
fn paths_are_a_union_over_files() {
    let (_t, l) = tree(&[
        ("ts.md", "---\npaths: 'src/**/*.ts'\n---\nx"),
        ("md.md", "---\npaths: ['docs/*.md', 'README.md']\n---\nx"),
        ("py.md", "---\npaths: '**/*.py'\n---\nx"),
    ]);
    assert_eq!(
        active(&l, &["src/a/b.ts", "README.md"], None),
        ["md.md", "ts.md"]
    );
    assert_eq!(active(&l, &["docs/x/y.md"], None), Vec::<String>::new());
}

#[test]
fn negation_excludes_per_file() {
    let (_t, l) = tree(&[(
        "src.md",
        "---\npaths:\n  - 'src/**/*.ts'\n  - '!**/*.test.ts'\n---\nx",
    )]);
    assert_eq!(active(&l, &["src/a.test.ts"], None), Vec::<String>::new());
    assert_eq!(active(&l, &["src/a.ts"], None), ["src.md"]);
    // Another file in context that is not excluded still fires it.
    assert_eq!(active(&l, &["src/a.test.ts", "src/b.ts"], None), ["src.md"]);
}

#[test]
fn negation_of_one_rule_does_not_affect_another() {
    let (_t, l) = tree(&[
        ("a.md", "---\npaths: ['**/*.ts', '!**/*.test.ts']\n---\nx"),
        ("b.md", "---\npaths: '**/*.test.ts'\n---\nx"),
    ]);
    assert_eq!(active(&l, &["x.test.ts"], None), ["b.md"]);
}

#[test]
fn context_files_are_normalized() {
    let (t, l) = tree(&[("ts.md", "---\npaths: 'src/**/*.ts'\n---\nx")]);
    let abs = t.workdir().join("src/a.ts");
    for file in [
        abs.to_str().unwrap(),
        "./src/a.ts",
        "src\\a.ts",
        ".\\src\\x\\a.ts",
        "src/x/../a.ts",
    ] {
        assert_eq!(active(&l, &[file], None), ["ts.md"], "{file}");
    }
    let outside = t.tmp.path().join("elsewhere/src/a.ts");
    for file in [
        outside.to_str().unwrap(),
        "../src/a.ts",
        "src/../../src/a.ts",
    ] {
        assert!(active(&l, &[file], None).is_empty(), "{file}");
    }
}

#[test]
fn dot_files_and_braces() {
    let (_t, l) = tree(&[
        ("gh.md", "---\npaths: '**/*.yml'\n---\nx"),
        ("brace.md", "---\npaths: '{src,lib}/**/*.{ts,tsx}'\n---\nx"),
        ("range.md", "---\npaths: 'v{1..3}/*.md'\n---\nx"),
    ]);
    assert_eq!(active(&l, &[".github/workflows/ci.yml"], None), ["gh.md"]);
    assert_eq!(active(&l, &["lib/x.tsx"], None), ["brace.md"]);
    assert_eq!(active(&l, &["v2/a.md"], None), ["range.md"]);
    assert!(active(&l, &["v4/a.md"], None).is_empty());
}

#[test]
fn topics_fire_at_word_starts() {
    let (_t, l) = tree(&[
        ("db.md", "---\ntopics: [customer, sql]\n---\nx"),
        ("hu.md", "---\ntopics: ügyfél\n---\nx"),
        ("phrase.md", "---\ntopics: 'release notes'\n---\nx"),
    ]);
    assert_eq!(active(&l, &[], Some("Show the Customers")), ["db.md"]);
    assert_eq!(active(&l, &[], Some("grant on customer_ro")), ["db.md"]);
    assert!(active(&l, &[], Some("configure MySQL")).is_empty());
    assert_eq!(active(&l, &[], Some("az ÜGYFÉL tábla")), ["hu.md"]);
    assert_eq!(
        active(&l, &[], Some("write the Release\n  Notes")),
        ["phrase.md"]
    );
    assert!(active(&l, &[], None).is_empty());
}

#[test]
fn either_trigger_fires_a_rule_with_both() {
    let (_t, l) = tree(&[("both.md", "---\npaths: 'db/**'\ntopics: migration\n---\nx")]);
    assert_eq!(active(&l, &["db/a.sql"], None), ["both.md"]);
    assert_eq!(active(&l, &[], Some("a migration")), ["both.md"]);
    assert!(active(&l, &["src/a.ts"], Some("hello")).is_empty());
}

#[test]
fn results_follow_priority_scope_id() {
    let t = Tree::new();
    t.project("b.md", "---\npaths: '**'\n---\nx");
    t.project("a.md", "---\npaths: '**'\npriority: -2\n---\nx");
    t.user("c.md", "---\npaths: '**'\n---\nx");
    t.user("d.md", "---\npaths: '**'\npriority: 3\n---\nx");
    let l = t.load();
    assert_eq!(active(&l, &["x"], None), ["d.md", "b.md", "c.md", "a.md"]);
}

#[test]
fn explain_names_the_pattern_file_topic_and_word() {
    let (_t, l) = tree(&[
        ("always.md", "x"),
        (
            "ts.md",
            "---\npaths: ['**/*.ts', '!**/*.d.ts']\ntopics: TypeScript\n---\nx",
        ),
        ("idle.md", "---\npaths: 'docs/**'\n---\nx"),
    ]);
    let got = l.rules.explain(
        &["./src/a.ts", "src/b.d.ts"],
        Some("Typescript types please"),
    );
    let id = |e: &memory_rules::Explanation| l.rules.rules()[e.index].id.clone();
    assert_eq!(
        got.iter().map(id).collect::<Vec<_>>(),
        ["always.md", "idle.md", "ts.md"]
    );
    assert_eq!(got[0].reasons, vec![Reason::Always]);
    assert!(!got[1].is_active());
    assert_eq!(
        got[2].reasons,
        vec![
            Reason::Path {
                pattern: "**/*.ts".into(),
                file: "src/a.ts".into()
            },
            Reason::Topic {
                topic: "TypeScript".into(),
                word: "typescript".into()
            },
        ]
    );
    assert_eq!(
        got[2].excluded,
        vec![memory_rules::Excluded {
            file: "src/b.d.ts".into(),
            pattern: "**/*.ts".into(),
            by: "!**/*.d.ts".into()
        }]
    );
}

#[test]
fn unsupported_glob_never_fires_silently() {
    let (_t, l) = tree(&[("ext.md", "---\npaths: '+(a|b).ts'\n---\nx")]);
    assert!(active(&l, &["a.ts", "+(a|b).ts"], None).is_empty());
    assert_eq!(codes(&l), ["unsupported-glob:ext.md"]);
}

#[test]
fn glob_and_regex_routes_combine_with_negation() {
    // `?` and classes are matched per character by the regex route; a
    // negation on one route excludes a match on the other.
    let (_t, l) = tree(&[
        (
            "mixed.md",
            "---\npaths: ['docs/**/*.md', '!docs/[ab]?.md']\n---\nx",
        ),
        ("chars.md", "---\npaths: ['i18n/??.json']\n---\nx"),
    ]);
    assert_eq!(active(&l, &["docs/x/y.md"], None), ["mixed.md"]);
    assert!(active(&l, &["docs/aé.md"], None).is_empty());
    assert_eq!(active(&l, &["docs/cé.md"], None), ["mixed.md"]);
    assert_eq!(active(&l, &["i18n/日本.json"], None), ["chars.md"]);
    assert!(active(&l, &["i18n/é.json"], None).is_empty());
}
