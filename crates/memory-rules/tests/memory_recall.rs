//! Memory hygiene on write and recall through the core's responder, on real
//! temp trees: what every road (hooks, MCP, the SDK adapters) gets.

use memory_rules::delivery::Conversation;
use memory_rules::delivery::Event;
use memory_rules::delivery::EventKind;
use memory_rules::delivery::Responder;
use memory_rules::delivery::Session;
use memory_rules::delivery::Start;
use memory_rules::load;
use memory_rules::memory::recall::RecallBudget;
use memory_rules::memory::{MemoryLocations, MemoryScope, MemoryStore, Note, NoteAction};
use memory_rules::sources::Config;
use std::path::Path;

fn tree(rules: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("work/.git")).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    for (rel, text) in rules {
        let file = dir.path().join("work/.wave/rules").join(rel);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

fn store(dir: &Path) -> MemoryStore {
    MemoryStore::new(MemoryLocations::new(&dir.join("home"), &dir.join("work")))
}

/// The rules of the tree at `dir`, as a fresh load finds them.
fn rules_of(dir: &Path) -> std::sync::Arc<memory_rules::RuleSet> {
    load(&Config::with_home(dir.join("work"), dir.join("home"))).rules
}

fn project(topic: &'static str, text: &'static str) -> Note<'static> {
    Note::new(MemoryScope::Project, topic, text)
}

#[test]
fn a_duplicate_is_folded_a_rule_restated_is_not_stored_a_conflict_is_flagged_a_credential_refused()
{
    let dir = tree(&[(
        "ports.md",
        "The dev server listens on port 5173; never change it.",
    )]);
    let loaded = rules_of(dir.path());
    let s = store(dir.path());
    let rules = Some(&*loaded);

    let first = s
        .write_note(
            &project(
                "testing",
                "Run the loom tests with RUSTFLAGS=\"--cfg loom\" and cargo test --release.",
            ),
            rules,
        )
        .unwrap();
    assert_eq!(first.action, NoteAction::Stored, "{}", first.message());
    let id = first.id.clone().unwrap();

    let again = s
        .write_note(
            &project(
                "testing",
                "Run the loom tests with RUSTFLAGS=\"--cfg loom\" and cargo test --release",
            ),
            rules,
        )
        .unwrap();
    assert_eq!(again.action, NoteAction::Folded, "{}", again.message());
    assert_eq!(again.id.as_deref(), Some(id.as_str()));
    assert!(again.message().contains("folded"), "{}", again.message());

    let restated = s
        .write_note(
            &project("dev", "The dev server listens on port 5173."),
            rules,
        )
        .unwrap();
    assert_eq!(
        restated.action,
        NoteAction::Restated,
        "{}",
        restated.message()
    );
    assert_eq!(restated.rule.as_deref(), Some("ports.md"));
    assert!(
        restated.message().contains("ports.md"),
        "{}",
        restated.message()
    );

    let conflict = s
        .write_note(
            &project("dev", "The dev server listens on port 3000."),
            rules,
        )
        .unwrap();
    assert_eq!(
        conflict.action,
        NoteAction::Stored,
        "{}",
        conflict.message()
    );
    assert!(!conflict.conflicts.is_empty(), "{}", conflict.message());

    let secret = s
        .write_note(
            &project(
                "deploy",
                "The deploy token is ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ",
            ),
            rules,
        )
        .unwrap();
    assert_eq!(secret.action, NoteAction::Refused, "{}", secret.message());
    assert!(secret.credential.is_some());
    assert!(
        secret.message().contains("placeholder"),
        "{}",
        secret.message()
    );
    let topics = s.list_topics(MemoryScope::Project).unwrap();
    assert!(topics.iter().all(|t| t.name != "deploy"), "{topics:?}");

    // `..\x` and `x` are one topic file: the answer says where it went.
    let respelled = s
        .write_note(
            &project("..\\testing", "Miri runs with cargo +nightly miri test."),
            rules,
        )
        .unwrap();
    assert_eq!(respelled.action, NoteAction::Stored);
    assert_eq!(respelled.topic, "testing");
    assert_eq!(respelled.respelled.as_deref(), Some("..\\testing"));
}

#[test]
fn a_note_with_one_rules_value_on_a_nearer_rules_subject_conflicts_with_that_rule_and_restates_neither(
) {
    let dir = tree(&[
        (
            "indent-python.md",
            "Indent Python code with four spaces per level.",
        ),
        (
            "indent-html.md",
            "HTML templates are indented with two spaces per level.",
        ),
    ]);
    let loaded = rules_of(dir.path());
    let s = store(dir.path());
    let rules = Some(&*loaded);
    let crossed = s
        .write_note(
            &project(
                "style",
                "HTML templates are indented with four spaces per level.",
            ),
            rules,
        )
        .unwrap();
    assert_eq!(crossed.action, NoteAction::Stored, "{}", crossed.message());
    let with: Vec<String> = (crossed.conflicts.iter().chain(&crossed.possible_conflicts))
        .map(|c| format!("{:?}", c.with))
        .collect();
    assert!(
        with.iter().any(|w| w.contains("indent-html.md")),
        "{with:?}"
    );
    let same = s
        .write_note(
            &project(
                "style",
                "Indent the Python code with four spaces per level.",
            ),
            rules,
        )
        .unwrap();
    assert_eq!(same.action, NoteAction::Restated, "{}", same.message());
    assert_eq!(same.rule.as_deref(), Some("indent-python.md"));
}

fn event(kind: EventKind) -> Event {
    Event::new(Conversation::new("s1"), kind)
}

#[test]
fn recall_gives_the_index_at_start_an_entry_at_its_prompt_once_and_again_after_a_compaction() {
    let dir = tree(&[("always.md", "Be brief.")]);
    let work = dir.path().join("work");
    let s = store(dir.path());
    let loom = s
        .write_note(&project("testing", "Loom tests need RUSTFLAGS=\"--cfg loom\" and run only the tests under tokio/tests/loom_*."), None)
        .unwrap()
        .id
        .unwrap();
    for (topic, text) in [
        (
            "ci",
            "CI runs clippy with -D warnings on stable and the MSRV job on 1.70.",
        ),
        (
            "docs",
            "Doc examples are compiled by cargo test --doc; keep them runnable.",
        ),
        (
            "style",
            "Imports are grouped std, external crates, then crate modules.",
        ),
        (
            "benches",
            "Benchmarks live in benches/ and use criterion with 100 samples.",
        ),
        (
            "windows",
            "Named pipes on Windows need the full \\\\.\\pipe\\ prefix.",
        ),
    ] {
        s.write_note(&project(topic, text), None).unwrap();
    }
    s.write_note(
        &project(
            "release",
            "Releases are cut from the release branch by the maintainers on Fridays.",
        ),
        None,
    )
    .unwrap();
    let loaded = load(&Config::with_home(&work, dir.path().join("home")));
    let r = Responder::new(&loaded.rules, &work)
        .home(dir.path().join("home"))
        .with_recall(RecallBudget::default());
    let mut session = Session::new();

    let start = r.respond(&mut session, &event(EventKind::Start(Start::Startup)));
    assert!(start.text.contains("Be brief."), "{}", start.text);
    assert!(
        start.text.contains("testing"),
        "the index of topics: {}",
        start.text
    );
    assert!(
        !start.text.contains("--cfg loom"),
        "no entry before its prompt: {}",
        start.text
    );
    r.commit(&mut session, &start);

    let unrelated = r.respond(
        &mut session,
        &event(EventKind::Prompt).prompt("Write a haiku about the sea"),
    );
    assert!(unrelated.memory.is_empty(), "{}", unrelated.text);

    let prompt = event(EventKind::Prompt).prompt("How do I run the loom tests?");
    let answer = r.respond(&mut session, &prompt);
    assert!(answer.text.contains("--cfg loom"), "{}", answer.text);
    assert!(
        !answer.text.contains("Fridays"),
        "only what is relevant: {}",
        answer.text
    );
    assert_eq!(answer.memory, std::slice::from_ref(&loom));
    r.commit(&mut session, &answer);
    assert!(session.has_memory(&loom));

    let twice = r.respond(&mut session, &prompt);
    assert!(
        !twice.text.contains("--cfg loom"),
        "given once: {}",
        twice.text
    );

    // A compaction takes it; the start after it gives it again.
    r.respond(
        &mut session,
        &event(EventKind::Compaction { certain: true }),
    );
    let after = r.respond(&mut session, &event(EventKind::Start(Start::Compact)));
    assert!(after.text.contains("--cfg loom"), "{}", after.text);
    r.commit(&mut session, &after);
    assert!(session.has_memory(&loom));
}

#[test]
fn a_file_touched_recalls_the_entries_tied_to_it_and_memory_off_recalls_nothing() {
    let dir = tree(&[]);
    let work = dir.path().join("work");
    let s = store(dir.path());
    let mut note = project(
        "parser",
        "The lexer's token table is generated: edit the grammar, then run just gen.",
    );
    note.paths = vec!["crates/parser/src/lexer/**".to_string()];
    let id = s.write_note(&note, None).unwrap().id.unwrap();
    let loaded = load(&Config::with_home(&work, dir.path().join("home")));
    let call = memory_rules::delivery::ToolCall::new(
        "Read",
        memory_rules::delivery::ToolKind::Read,
        serde_json::json!({"file_path": "crates/parser/src/lexer/tokens.rs"}),
    );
    let touched = event(EventKind::ToolDone).tool(call).cwd(&work);

    let r = Responder::new(&loaded.rules, &work)
        .home(dir.path().join("home"))
        .with_recall(RecallBudget::default());
    let mut session = Session::new();
    let answer = r.respond(&mut session, &touched);
    assert_eq!(answer.memory, [id], "{}", answer.text);
    assert!(answer.text.contains("just gen"), "{}", answer.text);

    let off = Responder::new(&loaded.rules, &work).home(dir.path().join("home"));
    let answer = off.respond(&mut Session::new(), &touched);
    assert!(
        answer.text.is_empty() && answer.memory.is_empty(),
        "{answer:?}"
    );
}

#[test]
fn a_note_naming_a_folder_comes_for_a_file_below_it_once_and_not_for_a_sibling_or_an_unrelated_file(
) {
    let dir = tree(&[]);
    let work = dir.path().join("work");
    let s = store(dir.path());
    let stripe = s
        .write_note(
            &project(
                "billing",
                "services/billing/stripe talks to the Stripe sandbox: export STRIPE_API_KEY from the team vault before go test ./...",
            ),
            None,
        )
        .unwrap()
        .id
        .unwrap();
    for (topic, text) in [
        (
            "auth",
            "services/auth issues session cookies; keep them HttpOnly.",
        ),
        ("docs", "The docs site is built with mkdocs from docs/."),
        ("ci", "CI runs golangci-lint with the repo's .golangci.yml."),
        ("release", "Tag releases as vMAJOR.MINOR.PATCH from main."),
    ] {
        s.write_note(&project(topic, text), None).unwrap();
    }
    let loaded = load(&Config::with_home(&work, dir.path().join("home")));
    let r = Responder::new(&loaded.rules, &work)
        .home(dir.path().join("home"))
        .with_recall(RecallBudget::default());
    let read = |file: &str| {
        let call = memory_rules::delivery::ToolCall::new(
            "Read",
            memory_rules::delivery::ToolKind::Read,
            serde_json::json!({ "file_path": work.join(file) }),
        );
        event(EventKind::ToolDone).tool(call).cwd(&work)
    };
    let mut session = Session::new();

    let unrelated = r.respond(&mut session, &read("tools/gen/main.go"));
    assert!(unrelated.memory.is_empty(), "{}", unrelated.text);
    let sibling = r.respond(&mut session, &read("services/billing/paypal/client.go"));
    assert!(!sibling.memory.contains(&stripe), "{}", sibling.text);

    let below = r.respond(
        &mut session,
        &read("services/billing/stripe/webhook_test.go"),
    );
    assert_eq!(
        below.memory,
        std::slice::from_ref(&stripe),
        "{}",
        below.text
    );
    assert!(below.text.contains("STRIPE_API_KEY"), "{}", below.text);
    r.commit(&mut session, &below);

    let again = r.respond(&mut session, &read("services/billing/stripe/client.go"));
    assert!(again.memory.is_empty(), "given once: {}", again.text);
}

#[test]
fn the_index_reads_again_only_the_topic_edited_by_hand_and_its_entry_keeps_its_id() {
    use memory_rules::memory::{MemoryIndex, Query};
    let dir = tree(&[]);
    let s = store(dir.path());
    let mut ids = Vec::new();
    for (topic, text) in [
        ("ci", "CI runs clippy with -D warnings on stable."),
        ("docs", "Doc examples are compiled by cargo test --doc."),
        (
            "style",
            "Imports are grouped std, external crates, then crate modules.",
        ),
    ] {
        ids.push(
            s.write_note(&project(topic, text), None)
                .unwrap()
                .id
                .unwrap(),
        );
    }
    let memory = s.dir(MemoryScope::Project).to_path_buf();
    // Dated an hour back: out of the racy window, as files a while after writing.
    let age = |file: &str| {
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(memory.join(file))
            .unwrap()
            .set_modified(old)
            .unwrap();
    };
    for f in ["ci.md", "docs.md", "style.md"] {
        age(f);
    }
    MemoryIndex::open(&s);
    assert_eq!(MemoryIndex::open(&s).reindexed, 0, "nothing changed");

    // A person edits one note's text in place.
    let file = memory.join("docs.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "cargo test --doc",
            "cargo test --doc --workspace; keep them runnable",
        ),
    )
    .unwrap();
    age("docs.md");
    let index = MemoryIndex::open(&s);
    assert_eq!(index.reindexed, 1, "only the edited topic is read again");
    let hits = index.search(
        &Query {
            text: "keep doc examples runnable",
            files: &[],
            limit: 1,
        },
        &|_| false,
    );
    assert_eq!(hits[0].id, ids[1], "{hits:?}");
    assert!(hits[0].text.contains("--workspace"));
}

#[test]
fn a_superseded_note_is_not_recalled_its_newer_note_is() {
    let dir = tree(&[]);
    let work = dir.path().join("work");
    let s = store(dir.path());
    let old = s
        .write_note(
            &project(
                "dev",
                "The billing dev server listens on port 3000 (npm run dev).",
            ),
            None,
        )
        .unwrap();
    let new = s
        .write_note(
            &project(
                "dev",
                "The billing dev server listens on port 4000 (npm run dev).",
            ),
            None,
        )
        .unwrap();
    let (old, new) = (old.id.unwrap(), new.id.unwrap());
    assert_ne!(new, old);
    let loaded = load(&Config::with_home(&work, dir.path().join("home")));
    let r = Responder::new(&loaded.rules, &work)
        .home(dir.path().join("home"))
        .with_recall(RecallBudget::default());
    let mut session = Session::new();
    let prompt =
        event(EventKind::Prompt).prompt("which port does the billing dev server listen on?");
    let answer = r.respond(&mut session, &prompt);
    assert!(answer.memory.contains(&new), "{}", answer.text);
    assert!(!answer.memory.contains(&old), "{}", answer.text);
    assert!(
        answer.text.contains("4000") && !answer.text.contains("3000"),
        "{}",
        answer.text
    );
}
