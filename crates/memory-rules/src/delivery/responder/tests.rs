use super::*;
use crate::delivery::conversation::Conversation;
use crate::delivery::tool_call::{ToolCall, ToolKind};
use crate::load;
use crate::sources::Config;
use serde_json::json;

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let file = dir.path().join(rel);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

fn tool(name: &str, kind: ToolKind, input: serde_json::Value) -> Event {
    Event::new(Conversation::new("s"), EventKind::ToolDone).tool(ToolCall::new(name, kind, input))
}

fn before(name: &str, kind: ToolKind, input: serde_json::Value) -> Event {
    Event::new(Conversation::new("s"), EventKind::ToolBefore).tool(ToolCall::new(name, kind, input))
}

#[test]
fn before_a_tool_runs_an_enforced_rule_refuses_its_writes_and_commands() {
    let dir = tree(&[
        (
            ".wave/rules/gen.md",
            "---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt.",
        ),
        (
            ".wave/rules/push.md",
            "---\ncommands: [\"git push --force*\"]\nenforce: warn\n---\nAsk first.",
        ),
    ]);
    let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
    let r = Responder::new(&loaded.rules, dir.path());
    let mut s = Session::new();
    for event in [
        before("Write", ToolKind::Write, json!({"file_path": "gen/a.ts"})),
        before(
            "bash",
            ToolKind::Other,
            json!({"command": "cd gen && echo x > a.ts"}),
        )
        .cwd(dir.path()),
        before(
            "apply_patch",
            ToolKind::Write,
            json!({"command": "*** Begin Patch\n*** Add File: gen/b.ts\n+x\n*** End Patch"}),
        ),
    ] {
        let a = r.respond(&mut s, &event);
        let refusal = a.refusal.unwrap_or_else(|| panic!("{event:?}"));
        assert!(
            refusal.starts_with("Refused by the project's rules: writing gen/"),
            "{refusal}"
        );
        assert!(
            refusal.ends_with("[gen.md] Generated files are rebuilt."),
            "{refusal}"
        );
        assert!(a.text.is_empty(), "nothing is given before a tool runs");
    }
    // A read, a warned command, a write elsewhere: they run, nothing said before.
    for event in [
        before("Read", ToolKind::Read, json!({"file_path": "gen/a.ts"})),
        before(
            "Bash",
            ToolKind::Shell,
            json!({"command": "git push --force"}),
        ),
        before("Write", ToolKind::Write, json!({"file_path": "src/a.ts"})),
    ] {
        let a = r.respond(&mut s, &event);
        assert_eq!(a.refusal, None, "{event:?}");
    }
    // The warning comes with the call's result, every time.
    let done = |cmd: &str| tool("Bash", ToolKind::Shell, json!({"command": cmd}));
    for _ in 0..2 {
        let a = r.respond(&mut s, &done("git push --force origin"));
        assert_eq!(a.text, "Allowed, with a warning from the project's rules about running `git push --force origin`:\n[push.md] (matches `git push --force*`) Ask first.");
        r.commit(&mut s, &a);
    }
    // A warned write: its path rule once in full, the warning short beside it.
    let dir2 = tree(&[(
        ".wave/rules/gen.md",
        "---\npaths: gen/**\nenforce: warn\n---\nGenerated.\nRebuild with npm run gen.",
    )]);
    let loaded2 = load(&Config::with_home(dir2.path(), dir2.path().join("home")));
    let r2 = Responder::new(&loaded2.rules, dir2.path());
    let mut s2 = Session::new();
    let a = r2.respond(
        &mut s2,
        &tool("Write", ToolKind::Write, json!({"file_path": "gen/a.ts"})),
    );
    assert_eq!(a.text, "## Rules\n[gen.md] Generated.\nRebuild with npm run gen.\n\nAllowed, with a warning from the project's rules about writing gen/a.ts:\n[gen.md] Generated.");
}

#[test]
fn a_subagent_starts_with_the_always_on_rules_and_its_tasks_topic_rules_and_nothing_of_its_parent()
{
    let dir = tree(&[
        (".wave/rules/general.md", "Keep functions small."),
        (
            ".wave/rules/db.md",
            "---\ntopics: [customer]\n---\nThe customer table is read-only.",
        ),
        (
            ".wave/rules/api.md",
            "---\npaths: src/api/**\n---\nValidate input.",
        ),
    ]);
    let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
    let r = Responder::new(&loaded.rules, dir.path());
    let mut parent = Session::new();
    let start = r.respond(
        &mut parent,
        &Event::new(Conversation::new("s"), EventKind::Start(Start::Startup)),
    );
    r.commit(&mut parent, &start);
    let read = r.respond(
        &mut parent,
        &tool("Read", ToolKind::Read, json!({"file_path": "src/api/a.ts"})),
    );
    assert!(read.text.contains("[api.md]"));
    r.commit(&mut parent, &read);
    // Claude Code: the Agent tool announces the task, the start has none.
    let agent = before(
        "Agent",
        ToolKind::Subagent,
        json!({"prompt": "check the customer orders", "subagent_type": "general-purpose"}),
    );
    assert_eq!(r.respond(&mut parent, &agent).refusal, None);
    let sub = Conversation::subagent("s", "a1");
    let mut child = Session::new();
    let (answer, forgotten) = r.subagent_start(
        &mut parent,
        &mut child,
        &Event::new(sub.clone(), EventKind::SubagentStart).subagent_type("general-purpose"),
    );
    assert!(forgotten.is_empty());
    assert_eq!(answer.text, "=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n===========================\n\n## Rules\n[general.md] Keep functions small.");
    assert!(answer.starts);
    r.commit(&mut child, &answer);
    assert_eq!(parent.subagents().len(), 1);
    // Its own touches bring the path rules its parent had.
    let read = r.respond(
        &mut child,
        &tool("Read", ToolKind::Read, json!({"file_path": "src/api/a.ts"})),
    );
    assert_eq!(read.text, "## Rules\n[api.md] Validate input.");
    r.commit(&mut child, &read);
    assert!(r.subagent_stop(&mut parent, &Event::new(sub, EventKind::SubagentStop)));
    assert!(parent.subagents().is_empty());
    assert!(
        !parent.delivered_ids().contains(&"db.md".to_string()),
        "nothing the subagent got counts for its parent"
    );
    // Without a task: the always-on rules only.
    let mut other = Session::new();
    let (answer, _) = r.subagent_start(
        &mut parent,
        &mut other,
        &Event::new(Conversation::subagent("s", "a2"), EventKind::SubagentStart),
    );
    assert_eq!(answer.text, "## Rules\n[general.md] Keep functions small.");
}

#[test]
fn live_subagents_are_bounded_the_oldest_forgotten() {
    let mut parent = Session::new();
    let mut forgotten = Vec::new();
    for i in 0..crate::base::limits::MAX_SUBAGENTS + 2 {
        forgotten.extend(parent.subagent_started(&format!("a{i}"), None).1);
    }
    assert_eq!(forgotten, ["a0", "a1"]);
    assert_eq!(parent.subagents().len(), crate::base::limits::MAX_SUBAGENTS);
    assert!(!parent.subagent_stopped("a0"));
    assert!(parent.subagent_stopped("a2"));
}

#[test]
fn a_path_rule_given_long_ago_comes_back_once_at_a_write_it_governs() {
    let dir = tree(&[(
        ".wave/rules/api.md",
        "---\npaths: src/api/**\nsummary: Validate with zod.\n---\nValidate input.\nWith zod.",
    )]);
    let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
    let r = Responder::new(&loaded.rules, dir.path()).edit_distance(3);
    let mut s = Session::new();
    let step = |s: &mut Session, event: Event| {
        let a = r.respond(s, &event);
        r.commit(s, &a);
        a
    };
    let read = |f: &str| tool("Read", ToolKind::Read, json!({"file_path": f}));
    let write = |f: &str| tool("Write", ToolKind::Write, json!({"file_path": f}));
    assert!(step(&mut s, read("src/api/a.ts"))
        .text
        .contains("With zod."));
    for f in ["b.ts", "c.ts", "d.ts"] {
        assert!(step(&mut s, read(f)).text.is_empty());
    }
    let back = step(&mut s, write("src/api/a.ts"));
    assert_eq!(
        back.text,
        "Still in force for src/api/a.ts:\n[api.md] Validate with zod."
    );
    assert_eq!(back.recalled.len(), 1);
    assert!(
        step(&mut s, write("src/api/b.ts")).text.is_empty(),
        "not at the next write"
    );
    // After a compaction it is given in full again, not recalled.
    s.compacted_unsent();
    assert!(step(&mut s, write("src/api/c.ts"))
        .text
        .starts_with("## Rules\n[api.md] Validate input."));
    let r0 = Responder::new(&loaded.rules, dir.path()).edit_distance(0);
    let mut s0 = Session::new();
    let a = r0.respond(&mut s0, &read("src/api/a.ts"));
    r0.commit(&mut s0, &a);
    for _ in 0..30 {
        let a = r0.respond(&mut s0, &read("x.ts"));
        r0.commit(&mut s0, &a);
    }
    assert!(
        r0.respond(&mut s0, &write("src/api/a.ts")).text.is_empty(),
        "0 turns it off"
    );
}

#[test]
fn a_regex_rule_fires_on_the_content_of_a_file_a_tool_touched() {
    let dir = tree(&[
        (
            ".continue/rules/todo.md",
            "---\nregex: TODO\n---\nResolve the TODOs you touch.",
        ),
        ("src/a.ts", "// TODO: split\n"),
        ("src/b.ts", "clean\n"),
    ]);
    let formats = crate::rules::rule_format::formats_named(&["continue".to_string()]).unwrap();
    let loaded = load(&Config::named(
        dir.path(),
        dir.path().join("home"),
        &formats,
    ));
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let r = Responder::new(&loaded.rules, dir.path());
    let mut s = Session::new();
    let clean = r.respond(
        &mut s,
        &tool("Read", ToolKind::Read, json!({"file_path": "src/b.ts"})),
    );
    assert!(clean.text.is_empty(), "{clean:?}");
    let todo = r.respond(
        &mut s,
        &tool("Read", ToolKind::Read, json!({"file_path": "src/a.ts"})),
    );
    assert_eq!(todo.rules.len(), 1, "{todo:?}");
    assert!(todo.text.contains("Resolve the TODOs"), "{}", todo.text);
    r.commit(&mut s, &todo);
    // After a compaction the rule is active in the session without a read.
    s.compacted_unsent();
    let again = r.respond(
        &mut s,
        &Event::new(Conversation::new("s"), EventKind::Prompt).prompt("go on"),
    );
    assert!(again.text.contains("Resolve the TODOs"), "{}", again.text);
}

#[test]
fn a_skill_md_read_through_any_shell_activates_its_skill_and_its_memory_use() {
    let dir = tree(&[
        (
            ".wave/rules/db.md",
            "---\nskills: [db-work]\n---\nUse the replica.",
        ),
        (".agents/skills/db-work/SKILL.md", "Call memory_read first."),
    ]);
    let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
    let r = Responder::new(&loaded.rules, dir.path());
    let mut s = Session::new();
    let event = tool(
        "exec",
        ToolKind::Other,
        json!({"command": "cat .agents/skills/db-work/SKILL.md"}),
    )
    .cwd(dir.path());
    let answer = r.respond(&mut s, &event);
    assert_eq!(answer.skills, ["db-work"]);
    assert_eq!(answer.text, "## Rules\n[db.md] Use the replica.");
    assert!(s.stop().unwrap().contains("'db-work'"));
    let stop = r.respond(
        &mut s,
        &Event::new(Conversation::new("s"), EventKind::Stop { repeated: true }),
    );
    assert!(stop.text.is_empty());
}

#[test]
fn commit_records_the_version_given_not_a_later_one() {
    let dir = tree(&[(".wave/rules/ts.md", "---\npaths: '**/*.ts'\n---\nOne.")]);
    let config = Config::with_home(dir.path(), dir.path().join("home"));
    let one = load(&config).rules;
    let r = Responder::new(&one, dir.path());
    let mut s = Session::new();
    let answer = r.respond(
        &mut s,
        &tool("Read", ToolKind::Read, json!({"path": "a.ts"})),
    );
    std::fs::write(
        dir.path().join(".wave/rules/ts.md"),
        "---\npaths: '**/*.ts'\n---\nTwo.",
    )
    .unwrap();
    let two = load(&config).rules;
    let r2 = Responder::new(&two, dir.path());
    r2.commit(&mut s, &answer);
    let later = r2.respond(
        &mut s,
        &tool("Read", ToolKind::Read, json!({"path": "b.ts"})),
    );
    assert_eq!(later.text, "## Rules\n[ts.md] Two.");
}

#[test]
fn a_model_call_matches_new_files_only_and_gives_reminders_once() {
    let dir = tree(&[
        (".wave/rules/always.md", "Be kind."),
        (".wave/rules/ts.md", "---\npaths: src/**/*.ts\n---\nStrict."),
        (
            ".wave/rules/sql.md",
            "---\ntopics: [sql]\n---\nNo SELECT *.",
        ),
    ]);
    let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
    let r = Responder::new(&loaded.rules, dir.path());
    let call = |reminders| EventKind::ModelCall {
        reminders,
        reset: false,
    };
    let mut s = Session::new();
    let first = Event::new(Conversation::new("s"), call(false))
        .tool(ToolCall::new(
            "read_file",
            ToolKind::Other,
            json!({"path": "src/a.ts"}),
        ))
        .prompt("the sql");
    let a = r.respond(&mut s, &first);
    assert_eq!(a.text, "=== MANDATORY RULES ===\n[sql.md] No SELECT *.\n===========================\n\n## Rules\n[always.md] Be kind.\n[ts.md] Strict.");
    // Nothing new: the same text, the files remembered.
    let b = r.respond(&mut s, &Event::new(Conversation::new("s"), call(false)));
    assert_eq!(a.text, b.text);

    let mut s = Session::new();
    let first = Event::new(Conversation::new("s"), call(true))
        .tool(ToolCall::new(
            "bash",
            ToolKind::Other,
            json!({"command": "cat src/a.ts"}),
        ))
        .prompt("hello");
    let a = r.respond(&mut s, &first);
    assert_eq!(a.text, "## Rules\n[always.md] Be kind.");
    assert_eq!(
        a.reminders
            .iter()
            .map(|r| r.rule.id.as_str())
            .collect::<Vec<_>>(),
        ["ts.md"]
    );
    r.commit(&mut s, &a);
    let b = r.respond(&mut s, &Event::new(Conversation::new("s"), call(true)));
    assert!(b.reminders.is_empty());
    let reset = Event::new(
        Conversation::new("s"),
        EventKind::ModelCall {
            reminders: true,
            reset: true,
        },
    );
    assert!(
        r.respond(&mut s, &reset).reminders.is_empty(),
        "the files are gone with the reset"
    );
}
