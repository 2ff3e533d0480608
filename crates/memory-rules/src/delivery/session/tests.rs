use super::*;
use crate::base::limits::MAX_SESSION_FILES;
use crate::load;
use crate::sources::Config;

fn set(files: &[(&str, &str)]) -> (tempfile::TempDir, std::sync::Arc<RuleSet>) {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join(".wave/rules");
    std::fs::create_dir_all(&rules).unwrap();
    for (name, text) in files {
        std::fs::write(rules.join(name), text).unwrap();
    }
    let loaded = load(&Config::with_home(dir.path(), dir.path().join("no-home")));
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    (dir, loaded.rules)
}

const RULES: &[(&str, &str)] = &[
    ("always.md", "Be kind."),
    ("ts.md", "---\npaths: src/**/*.ts\n---\nStrict TypeScript."),
    ("sql.md", "---\ntopics: [sql]\n---\nNo SELECT *."),
    ("lint.md", "---\npaths: src/**\nremind: every-turn\ndescription: Run the linter\n---\nRun npm run lint.\nAlways."),
];
const NONE: Budget = Budget {
    max_lines: None,
    max_bytes: None,
    keep_order: false,
};

fn ids(set: &RuleSet, due: &Due) -> Vec<String> {
    due.rules
        .iter()
        .map(|&i| set.rules()[i].id.clone())
        .collect()
}

#[test]
fn start_prompt_files_deliver_each_rule_once() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    let due = s.start(&set, Start::Startup, Some("## Memory\nm"), NONE);
    assert_eq!(ids(&set, &due), ["always.md"]);
    assert_eq!(due.text, "## Rules\n[always.md] Be kind.\n\n## Memory\nm");
    s.commit(&set, &due);
    assert!(s.started);

    let due = s.files_touched(&set, &["src/a.ts"], NONE);
    assert_eq!(ids(&set, &due), ["lint.md", "ts.md"]);
    s.commit(&set, &due);
    assert!(s.files_touched(&set, &["src/b.ts"], NONE).text.is_empty());

    // Topic rules come every time, as constraints; given always-on ones do not.
    for _ in 0..2 {
        let due = s.prompt(&set, "write the SQL", NONE);
        assert_eq!(
            due.text,
            "=== MANDATORY RULES ===\n[sql.md] No SELECT *.\n==========================="
        );
        s.commit(&set, &due);
    }
    assert_eq!(
        s.delivered_ids(),
        ["always.md", "lint.md", "sql.md", "ts.md"]
    );
}

#[test]
fn nothing_is_delivered_until_committed() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    let first = s.files_touched(&set, &["src/a.ts"], NONE);
    let again = s.files_touched(&set, &["src/a.ts"], NONE);
    assert_eq!(first, again);
    s.commit(&set, &again);
    assert!(s.files_touched(&set, &["src/a.ts"], NONE).rules.is_empty());
}

#[test]
fn compaction_gives_everything_active_again_resume_only_what_is_missing() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    let due = s.start(&set, Start::Startup, None, NONE);
    s.commit(&set, &due);
    let due = s.files_touched(&set, &["src/a.ts"], NONE);
    s.commit(&set, &due);
    let due = s.prompt(&set, "sql please", NONE);
    s.commit(&set, &due);

    let resumed = s.start(&set, Start::Resume, Some("memory"), NONE);
    assert!(
        resumed.rules.is_empty() && resumed.text.is_empty(),
        "{resumed:?}"
    );

    let due = s.start(&set, Start::Compact, None, NONE);
    assert_eq!(ids(&set, &due), ["always.md", "lint.md", "sql.md", "ts.md"]);
    assert_eq!(s.compactions, 1);
    s.commit(&set, &due);
    // A fresh startup forgets the session.
    let due = s.start(&set, Start::Startup, None, NONE);
    assert_eq!(ids(&set, &due), ["always.md"]);
    assert!(s.delivered_ids().is_empty());
}

#[test]
fn a_compaction_told_without_a_route_to_the_model_is_given_at_the_next_prompt_or_file_once() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    for due in [
        s.start(&set, Start::Startup, None, NONE),
        s.files_touched(&set, &["src/a.ts"], NONE),
        s.prompt(&set, "sql please", NONE),
    ] {
        s.commit(&set, &due);
    }
    s.compacted_unsent();
    assert_eq!(s.compactions, 1);
    assert!(s.delivered_ids().is_empty());
    // A file with no rules of its own brings back all the compaction took.
    let due = s.files_touched(&set, &["README.md"], NONE);
    assert_eq!(ids(&set, &due), ["always.md", "lint.md", "sql.md", "ts.md"]);
    // Not committed (the agent dropped it): still due, at the prompt.
    let due = s.prompt(&set, "go on", NONE);
    assert_eq!(ids(&set, &due), ["always.md", "lint.md", "sql.md", "ts.md"]);
    s.commit(&set, &due);
    assert!(!s.regive);
    // Once: nothing again after the commit.
    assert!(s.files_touched(&set, &["src/b.ts"], NONE).rules.is_empty());
    assert!(s.prompt(&set, "go on", NONE).rules.is_empty());
    // A session start after a compaction also ends it.
    s.compacted_unsent();
    let due = s.start(&set, Start::Compact, None, NONE);
    s.commit(&set, &due);
    assert!(!s.regive && s.files_touched(&set, &["src/a.ts"], NONE).rules.is_empty());
}

#[test]
fn a_prompt_smaller_than_the_last_one_seen_is_a_compaction() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    let due = s.files_touched(&set, &["src/a.ts"], NONE);
    s.commit(&set, &due);
    assert!(!s.prompt_size(10) && !s.prompt_size(10) && !s.prompt_size(600_000));
    assert!(s.files_touched(&set, &["src/a.ts"], NONE).rules.is_empty());
    assert!(s.prompt_size(1_200));
    assert_eq!((s.compactions, s.prompt_tokens), (1, 1_200));
    let due = s.prompt(&set, "go on", NONE);
    assert_eq!(ids(&set, &due), ["always.md", "lint.md", "ts.md"]);
    s.commit(&set, &due);
    assert!(!s.prompt_size(1_300));
    assert!(s.prompt(&set, "go on", NONE).rules.is_empty());
}

#[test]
fn an_edited_rule_is_due_again() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join(".wave/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("ts.md"), "---\npaths: '**/*.ts'\n---\nOne.").unwrap();
    let config = Config::with_home(dir.path(), dir.path().join("no-home"));
    let one = load(&config).rules;
    let mut s = Session::new();
    let due = s.files_touched(&one, &["a.ts"], NONE);
    s.commit(&one, &due);
    assert!(s.files_touched(&one, &["a.ts"], NONE).rules.is_empty());
    std::fs::write(rules.join("ts.md"), "---\npaths: '**/*.ts'\n---\nTwo.").unwrap();
    let two = load(&config).rules;
    let due = s.files_touched(&two, &["b.ts"], NONE);
    assert_eq!(due.text, "## Rules\n[ts.md] Two.");
}

#[test]
fn request_names_what_was_given_unless_again() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    let due = s.request(&set, &["src/a.ts"], None, false, NONE);
    assert_eq!(ids(&set, &due), ["always.md", "lint.md", "ts.md"]);
    assert!(due.starts);
    s.commit(&set, &due);
    let due = s.request(&set, &["src/b.ts"], Some("sql"), false, NONE);
    assert!(!due.starts);
    assert_eq!(ids(&set, &due), ["sql.md"]);
    let given: Vec<&str> = due
        .given
        .iter()
        .map(|&i| set.rules()[i].id.as_str())
        .collect();
    assert_eq!(given, ["always.md", "lint.md", "ts.md"]);
    let due = s.request(&set, &["src/b.ts"], None, true, NONE);
    assert_eq!(due.rules.len(), 3);
    assert!(due.given.is_empty());
}

#[test]
fn reminders_restore_and_stop() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    assert_eq!(s.stop(), None);
    let due = s.reminders(&set, &["src/a.ts"], Some("sql"));
    let names: Vec<&str> = due.iter().map(|&i| set.rules()[i].id.as_str()).collect();
    assert_eq!(names, ["lint.md", "sql.md", "ts.md"]);
    let reason = s.stop().unwrap();
    assert!(reason.contains("- [lint.md] Run the linter"), "{reason}");
    // Sticky rules are those of the files in context now.
    s.reminders(&set, &["README.md"], None);
    assert_eq!(s.stop(), None);

    // A transcript that holds one reminder and one rendered entry.
    let transcript = format!(
        "{}\n...\n## Rules\n[sql.md] No SELECT *.",
        crate::delivery::render::reminder(&set.rules()[due[2]])
    );
    let mut back = Session::new();
    back.restore(&set, &transcript);
    assert_eq!(back.delivered_ids(), ["sql.md", "ts.md"]);
    let left = back.reminders(&set, &["src/a.ts"], Some("sql"));
    assert_eq!(left, [due[0]]);
    let ids = ["ts.md", "always.md", "lint.md", "nope.md"];
    assert_eq!(back.undelivered(&set, &ids), [due[0]]);
}

#[test]
fn serialises_and_bounds_files() {
    let (_d, set) = set(RULES);
    let mut s = Session::new();
    let many: Vec<String> = (0..MAX_SESSION_FILES + 10)
        .map(|i| format!("f{i}.txt"))
        .collect();
    s.files_touched(&set, &many, NONE);
    assert_eq!(s.files().count(), MAX_SESSION_FILES);
    let due = s.start(&set, Start::Resume, None, NONE);
    s.commit(&set, &due);
    let json = serde_json::to_string(&s).unwrap();
    let back: Session = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    // Unknown or missing fields read as defaults.
    let old: Session = serde_json::from_str(r#"{"delivered":{"a.md":"x"},"other":1}"#).unwrap();
    assert_eq!(old.delivered_ids(), ["a.md"]);
}

const SKILL_RULES: &[(&str, &str)] = &[
    ("always.md", "Be kind."),
    ("db.md", "---\nskills: [db-work]\n---\nUse the read replica."),
    ("both.md", "---\nskills: [db-work, deploy]\npaths: infra/**\n---\nTag releases."),
    ("lint.md", "---\npaths: src/**\nremind: every-turn\ndescription: Run the linter\n---\nRun npm run lint."),
];

#[test]
fn a_skill_gives_its_rules_once_and_again_after_compaction() {
    let (_d, set) = set(SKILL_RULES);
    let mut s = Session::new();
    let due = s.start(&set, Start::Startup, None, NONE);
    assert_eq!(
        ids(&set, &due),
        ["always.md"],
        "skills rules are not always-on"
    );
    s.commit(&set, &due);
    assert!(s.files_touched(&set, &["README.md"], NONE).rules.is_empty());

    let due = s.skill(&set, "/DB-Work", false, NONE);
    assert_eq!(ids(&set, &due), ["both.md", "db.md"]);
    assert_eq!(
        due.text,
        "## Rules\n[both.md] Tag releases.\n[db.md] Use the read replica."
    );
    s.commit(&set, &due);
    assert!(s.is_skill_active("db-work"));
    assert!(!s.is_skill_active("deploy"));
    assert!(
        s.skill(&set, "db-work", false, NONE).rules.is_empty(),
        "once per session"
    );
    // The other skill of both.md: already given.
    assert!(s.skill(&set, "deploy", false, NONE).rules.is_empty());
    // A plugin's namespaced name activates the bare name's rules.
    let mut p = Session::new();
    assert_eq!(
        ids(&set, &p.skill(&set, "tools:db-work", false, NONE)),
        ["both.md", "db.md"]
    );

    let due = s.start(&set, Start::Compact, None, NONE);
    assert_eq!(ids(&set, &due), ["always.md", "both.md", "db.md"]);
    s.commit(&set, &due);
    // A fresh session forgets its skills.
    s.start(&set, Start::Startup, None, NONE);
    assert!(s.skills().is_empty());
    // An invalid name activates nothing and records nothing.
    assert_eq!(s.skill(&set, "a b", true, NONE), Due::default());
    assert!(s.skills().is_empty());
}

#[test]
fn explain_and_request_see_the_active_skills() {
    let (_d, set) = set(SKILL_RULES);
    let ex = set.explain_in(&["README.md"], None, &["deploy"], None);
    let both = ex
        .iter()
        .find(|e| set.rules()[e.index].id == "both.md")
        .unwrap();
    assert_eq!(
        both.reasons,
        [crate::rules::rule_set::Reason::Skill {
            name: "deploy".into()
        }]
    );
    assert_eq!(
        set.rules()[both.index].metadata.activation_kind(),
        "paths+skills"
    );
    let mut s = Session::new();
    s.skill(&set, "db-work", false, NONE);
    let due = s.request(&set, &[] as &[&str], None, false, NONE);
    assert_eq!(ids(&set, &due), ["always.md", "both.md", "db.md"]);
}

#[test]
fn stop_reminds_of_memory_while_a_memory_skill_is_active_merged_with_every_turn_rules() {
    let (_d, set) = set(SKILL_RULES);
    let mut s = Session::new();
    // No skill: nothing at stop (the O(1) path: an empty list, no rule set, no file).
    assert_eq!(s.stop(), None);
    s.skill(&set, "deploy", false, NONE);
    assert_eq!(s.stop(), None, "a skill that does not use memory");
    s.skill(&set, "notes", true, NONE);
    let reason = s.stop().unwrap();
    assert!(reason.starts_with("The skill 'notes' "), "{reason}");
    assert!(
        reason.contains("memory_read") && reason.contains("memory_write"),
        "{reason}"
    );
    let due = s.files_touched(&set, &["src/a.ts"], NONE);
    s.commit(&set, &due);
    let both = s.stop().unwrap();
    assert!(
        both.starts_with("Before you end your turn, check your work"),
        "{both}"
    );
    assert!(both.contains("- [lint.md] Run the linter"), "{both}");
    assert!(both.ends_with(&reason), "{both}");
}

#[test]
fn active_skills_are_bounded_and_survive_serialisation() {
    let (_d, set) = set(SKILL_RULES);
    let mut s = Session::new();
    for i in 0..MAX_SKILLS + 5 {
        s.skill(&set, &format!("s{i:03}"), i == 0, NONE);
    }
    assert_eq!(s.skills().len(), MAX_SKILLS);
    // Past the bound a skill's rules still come now; it is not recorded.
    let due = s.skill(&set, "db-work", false, NONE);
    assert_eq!(ids(&set, &due), ["both.md", "db.md"]);
    assert!(!s.is_skill_active("db-work"));
    let json = serde_json::to_string(&s).unwrap();
    let back: Session = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    assert!(back.stop().unwrap().contains("'s000'"));
    // A state file written before skills existed reads with none.
    let old: Session = serde_json::from_str(
        r#"{"version":2,"started":true,"compactions":0,"delivered":{"a.md":"x"},"files":[],"topics":[],"prompt_topics":[],"mentioned":[],"order":["a.md"],"sticky":[]}"#,
    )
    .unwrap();
    assert!(old.skills().is_empty() && old.started);
    assert_eq!(old.stop(), None);
}

#[test]
fn budget_keeps_order_when_asked() {
    let (_d, set) = set(&[
        ("a.md", "---\npaths: a/**\n---\nA"),
        ("b.md", "---\npaths: b/**\n---\nB"),
    ]);
    let mut s = Session::new();
    let keep = Budget {
        keep_order: true,
        ..NONE
    };
    let due = s.request(&set, &["b/x"], None, false, keep);
    s.commit(&set, &due);
    let due = s.request(&set, &["a/x", "b/x"], None, true, keep);
    assert_eq!(ids(&set, &due), ["b.md", "a.md"]);
}

#[test]
fn rules_at_edit_keep_their_name_in_state_files() {
    let mut session = Session::new();
    session.at_edit.tool_call();
    let json = serde_json::to_value(&session).unwrap();
    assert_eq!(json["recall"]["calls"], 1);
    let back: Session = serde_json::from_value(json).unwrap();
    assert_eq!(back, session);
}

#[test]
fn committing_rules_again_keeps_each_once_in_its_first_place_with_its_newest_version() {
    let mut s = Session::new();
    s.commit_given([("a.md", "v1"), ("b.md", "v1")]);
    s.commit_given([("c.md", "v1"), ("a.md", "v2"), ("c.md", "v1")]);
    assert_eq!(s.order, ["a.md", "b.md", "c.md"]);
    assert_eq!(s.delivered["a.md"], "v2");
    assert_eq!(s.delivered_ids(), ["a.md", "b.md", "c.md"]);
}

#[test]
fn waiting_tasks_read_from_a_saved_state_are_those_of_the_whole_state() {
    let mut s = Session::new();
    s.commit_given([("a.md", "v1")]);
    s.task_announced("explore", "map the parser");
    s.task_announced("", "write the docs");
    s.version = SESSION_VERSION;
    let json = serde_json::to_vec(&s).unwrap();
    let whole: Vec<&str> = s.waiting_tasks().collect();
    assert_eq!(Session::waiting_tasks_saved(&json).unwrap(), whole);
    assert_eq!(whole, ["map the parser", "write the docs"]);
    // Another version's state is a fresh session: no tasks.
    let older = br#"{"version":1,"tasks":[{"kind":"","prompt":"x"}]}"#;
    assert!(Session::waiting_tasks_saved(older).unwrap().is_empty());
    assert!(Session::waiting_tasks_saved(b"{not json").is_err());
}
