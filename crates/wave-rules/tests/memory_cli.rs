//! `wave-rules memory write/search/lint/promote/forget`, the hooks' recall
//! and `match --memory`, with the real binary on real temp trees.

mod common;
use common::{json, CliTree, Tree};
use std::io::Write;
use std::process::{Command, Stdio};

const LOOM: &str =
    "Loom tests need RUSTFLAGS=\"--cfg loom\" and run only the tests under tokio/tests/loom_*.";
const OTHERS: [(&str, &str); 5] = [
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
        "release",
        "Releases are cut from the release branch by the maintainers on Fridays.",
    ),
];

fn tree() -> Tree {
    let t = Tree::made();
    t.git_root(t.workdir());
    t.project(
        "ports.md",
        "The dev server listens on port 5173; never change it.",
    );
    t
}

fn write(t: &Tree, topic: &str, text: &str) -> serde_json::Value {
    json(&t.run(&["memory", "write", topic, text, "--json"]))
}

#[test]
fn memory_write_says_stored_folded_restated_or_refused_and_search_lint_forget_promote_follow() {
    let t = tree();
    let stored = write(&t, "testing", LOOM);
    assert_eq!(stored["action"], "stored", "{stored}");
    let id = stored["id"].as_str().unwrap().to_string();
    for (topic, text) in OTHERS {
        assert_eq!(write(&t, topic, text)["action"], "stored");
    }
    let folded = write(&t, "testing", LOOM);
    assert_eq!(folded["action"], "folded", "{folded}");
    assert_eq!(folded["id"], id.as_str());
    let restated = write(&t, "dev", "The dev server listens on port 5173.");
    assert_eq!(restated["action"], "restated", "{restated}");
    assert_eq!(restated["rule"], "ports.md");

    let r = t.run(&[
        "memory",
        "write",
        "deploy",
        "The CI token is ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ",
    ]);
    assert_eq!(r.code, 1, "a refusal exits 1: {}", r.stdout);
    assert!(
        format!("{}{}", r.stdout, r.stderr).contains("placeholder"),
        "{}{}",
        r.stdout,
        r.stderr
    );
    assert!(
        !format!("{}{}", r.stdout, r.stderr).contains("ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ"),
        "the credential is not echoed"
    );

    // No problem yet: lint exits 0.
    let r = t.run(&["memory", "lint"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let conflict = write(&t, "dev", "The dev server listens on port 3000.");
    assert_eq!(conflict["action"], "stored", "{conflict}");
    assert!(
        !conflict["conflicts"].as_array().unwrap().is_empty(),
        "{conflict}"
    );
    let r = t.run(&["memory", "lint", "--json"]);
    assert_eq!(r.code, 1, "a conflict is a problem: {}", r.stdout);
    let lint = json(&r);
    assert!(lint["problems"].as_u64().unwrap() >= 1, "{lint}");
    let r = t.run(&["doctor"]);
    assert!(
        r.stdout.contains("memory"),
        "doctor runs memory lint: {}",
        r.stdout
    );

    let found = json(&t.run(&[
        "memory",
        "search",
        "how do I run the loom tests",
        "--limit",
        "3",
        "--json",
    ]));
    let first = &found["entries"][0];
    assert_eq!(first["id"], id.as_str(), "{found}");
    assert_eq!(first["topic"], "testing");
    assert_eq!(first["scope"], "project");
    assert!(first["text"].as_str().unwrap().contains("--cfg loom"));
    assert!(found["entries"].as_array().unwrap().len() <= 3);

    let cid = conflict["id"].as_str().unwrap();
    let r = t.run(&["memory", "forget", cid]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(t.run(&["memory", "lint"]).code, 0);

    let r = t.run(&[
        "memory",
        "promote",
        &id,
        "--paths",
        "tokio/tests/**",
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let promoted = json(&r);
    let rule = t
        .project_rules()
        .join(promoted["rule"]["id"].as_str().unwrap());
    let text = std::fs::read_to_string(&rule).unwrap();
    assert!(
        text.contains("tokio/tests/**") && text.contains("--cfg loom"),
        "{text}"
    );
    let after = json(&t.run(&["memory", "search", "loom tests", "--json"]));
    assert!(
        after["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["id"] != id.as_str()),
        "promoted entries leave memory: {after}"
    );
    let listed = t.run(&["list"]);
    assert!(listed
        .stdout
        .contains(promoted["rule"]["id"].as_str().unwrap()));
}

/// A project memory topic file's text (the tree's one project).
fn project_topic(t: &Tree, file: &str) -> String {
    let projects = t.home().join(".wave/projects");
    let dir = std::fs::read_dir(&projects)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    std::fs::read_to_string(dir.path().join("memory").join(file)).unwrap()
}

#[test]
fn a_newer_value_of_the_same_fact_supersedes_the_older_until_forget_settles_it() {
    let t = tree();
    let old = write(&t, "setup", "The repo pins pnpm 9.15.0 in packageManager.");
    let old_id = old["id"].as_str().unwrap().to_string();
    let other = write(
        &t,
        "setup",
        "First setup: pnpm i, then pnpm run build at the root.",
    );
    assert_eq!(other["supersedes"], serde_json::json!([]), "{other}");
    let new = write(
        &t,
        "setup",
        "The repo pins pnpm 10.4.1 in packageManager now.",
    );
    assert_eq!(new["action"], "stored", "{new}");
    assert_eq!(new["supersedes"], serde_json::json!([old_id]), "{new}");
    assert!(
        new["conflicts"].as_array().unwrap().is_empty(),
        "a supersession is not also a conflict: {new}"
    );
    let new_id = new["id"].as_str().unwrap().to_string();
    let file = project_topic(&t, "setup.md");
    assert!(
        file.contains(&format!("\"superseded_by\":\"{new_id}\"")),
        "the older entry's metadata records it: {file}"
    );
    let found = json(&t.run(&["memory", "search", "which pnpm version", "--json"]));
    let ids: Vec<&str> = found["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&new_id.as_str()) && !ids.contains(&old_id.as_str()),
        "{found}"
    );

    let r = t.run(&["memory", "lint", "--json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let lint = json(&r);
    let findings = lint["findings"].as_array().unwrap();
    let superseded: Vec<_> = findings
        .iter()
        .filter(|f| f["kind"] == "superseded")
        .collect();
    assert_eq!(superseded.len(), 1, "{lint}");
    assert_eq!(superseded[0]["id"], old_id.as_str());
    assert_eq!(superseded[0]["other"], format!("project:{new_id}"));
    assert!(
        findings.iter().all(|f| f["kind"] != "conflict"),
        "the pair is said once: {lint}"
    );
    assert_eq!(t.run(&["memory", "forget", &old_id]).code, 0);
    assert_eq!(t.run(&["memory", "lint"]).code, 0, "forget settles it");
}

#[test]
fn rewordings_fold_and_distinct_notes_on_one_subject_are_kept() {
    let t = tree();
    let first = write(
        &t,
        "testing",
        "pnpm test runs everything and cannot be filtered; for one playground use pnpm run test-serve <match>.",
    );
    let id = first["id"].as_str().unwrap();
    let reworded = write(
        &t,
        "testing",
        "pnpm test cannot be filtered and runs everything; use pnpm run test-serve <match> for a single playground.",
    );
    assert_eq!(reworded["action"], "folded", "{reworded}");
    assert_eq!(reworded["id"], id);
    let distinct = write(
        &t,
        "testing",
        "Unit tests live in __tests__ folders next to the package sources and run with pnpm run test-unit.",
    );
    assert_eq!(distinct["action"], "stored", "{distinct}");
    let serve = write(
        &t,
        "testing",
        "Run one playground in serve mode with `pnpm run test-serve <match>`.",
    );
    let build = write(
        &t,
        "testing",
        "Run one playground in build mode with `pnpm run test-build <match>`.",
    );
    assert_eq!(serve["action"], "stored");
    assert_eq!(build["action"], "stored", "{build}");
    assert_eq!(
        build["supersedes"],
        serde_json::json!([]),
        "two facts, not a newer value: {build}"
    );
    let restated = write(
        &t,
        "dev",
        "Our dev server's port is 5173, so never change it.",
    );
    assert_eq!(restated["action"], "restated", "{restated}");
    assert_eq!(restated["rule"], "ports.md");
}

/// A git project whose rules forbid editing the generated docs/api.md and
/// ask for make fmt before every commit, with an empty memory.
fn docs_and_fmt_rules() -> Tree {
    let t = Tree::made();
    t.git_root(t.workdir());
    t.project(
        "generated.md",
        "Never edit docs/api.md by hand: change the doc comments and run make docs.",
    );
    t.project(
        "fmt.md",
        "Run make fmt before every commit; CI fails on any formatting diff.",
    );
    t
}

#[test]
fn memory_write_flags_a_note_denying_a_rule_and_names_one_restating_it_in_its_own_words() {
    let t = docs_and_fmt_rules();
    let restated = write(
        &t,
        "docs",
        "docs/api.md is generated, so do not hand-edit it; change the doc comments and rerun make docs.",
    );
    assert_eq!(
        restated["action"], "stored",
        "words of its own (`generated`, `rerun`): not sure enough to drop: {restated}"
    );
    assert_eq!(restated["possible_restatement"]["rule"], "generated.md");
    assert!(
        (restated["message"].as_str().unwrap()).contains("Possible restatement"),
        "{restated}"
    );
    // A fresh memory, so the denial does not fold into the note above.
    let t = docs_and_fmt_rules();
    let denied = write(
        &t,
        "docs",
        "Edit docs/api.md by hand; no need to change the doc comments and run make docs.",
    );
    assert_eq!(denied["action"], "stored", "{denied}");
    let conflicts = denied["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{denied}");
    assert_eq!(conflicts[0]["with"]["rule"], "generated.md");
    assert_eq!(conflicts[0]["kind"], "polarity");
    // The same denial of another subject (typos, fixing): possible, to read.
    let other_words = write(
        &t,
        "docs",
        "Small typos can be fixed straight in docs/api.md; no need to run make docs.",
    );
    assert_eq!(
        other_words["conflicts"],
        serde_json::json!([]),
        "{other_words}"
    );
    let possible = other_words["possible_conflicts"].as_array().unwrap();
    assert!(
        possible.iter().any(|c| c["with"]["rule"] == "generated.md"),
        "{other_words}"
    );
    // Other facts near the rules' words stay unflagged.
    for text in [
        "make fmt also sorts the imports of every file.",
        "CI does not run the benchmarks.",
        "Never commit without running make test.",
    ] {
        let other = write(&t, "misc", text);
        assert_eq!(other["action"], "stored", "{other}");
        assert_eq!(other["conflicts"], serde_json::json!([]), "{other}");
    }
}

#[test]
fn another_fact_of_a_rules_subject_is_a_possible_conflict_not_a_flag_and_lint_still_passes() {
    let t = Tree::made();
    t.git_root(t.workdir());
    t.project(
        "stale.md",
        "Issues labelled question are closed after 14 days without activity.",
    );
    let other = write(
        &t,
        "triage",
        "Issues labelled proposal are closed after six months without activity.",
    );
    assert_eq!(other["action"], "stored", "{other}");
    assert_eq!(other["conflicts"], serde_json::json!([]), "{other}");
    let possible = other["possible_conflicts"].as_array().unwrap();
    assert_eq!(possible.len(), 1, "{other}");
    assert_eq!(possible[0]["with"]["rule"], "stale.md");
    assert_eq!(possible[0]["kind"], "number");
    assert!(
        possible[0]["shared"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("activ")),
        "the shared subject is its evidence: {other}"
    );
    assert!(
        other["message"]
            .as_str()
            .unwrap()
            .contains("Possible conflict (not flagged: read it)"),
        "{other}"
    );
    let r = t.run(&["memory", "lint", "--json"]);
    assert_eq!(r.code, 0, "a possible conflict is no problem: {}", r.stdout);
    assert!(r.stdout.contains("possible-conflict"), "{}", r.stdout);
    let swapped = write(
        &t,
        "triage",
        "Issues labelled question are closed after 30 days without activity.",
    );
    let flagged = swapped["conflicts"].as_array().unwrap();
    assert_eq!(
        flagged.len(),
        1,
        "the rule's sentence, another value: {swapped}"
    );
    assert_eq!(flagged[0]["with"]["rule"], "stale.md");
}

#[test]
fn a_rule_in_its_own_words_with_a_swapped_port_or_command_is_stored_with_a_conflict() {
    let t = Tree::made();
    t.git_root(t.workdir());
    t.project(
        "proxy.md",
        "The basic-auth test proxy listens on 127.0.0.1:8080.",
    );
    t.project(
        "phpunit.md",
        "Run the tests with vendor/bin/simple-phpunit.",
    );
    for (text, rule, kind) in [
        (
            "The basic-auth test proxy listens on 127.0.0.1:3128.",
            "proxy.md",
            "address",
        ),
        (
            "Run the tests with vendor/bin/phpunit.",
            "phpunit.md",
            "path",
        ),
    ] {
        let swapped = write(&t, "testing", text);
        assert_eq!(swapped["action"], "stored", "{swapped}");
        let conflicts = swapped["conflicts"].as_array().unwrap();
        assert_eq!(conflicts.len(), 1, "{swapped}");
        assert_eq!(conflicts[0]["with"]["rule"], rule, "{swapped}");
        assert_eq!(conflicts[0]["kind"], kind, "{swapped}");
    }
    for (text, rule) in [
        (
            "A basic-auth test proxy listens on 127.0.0.1:8080.",
            "proxy.md",
        ),
        ("Run tests with vendor/bin/simple-phpunit.", "phpunit.md"),
    ] {
        let same = write(&t, "testing", text);
        assert_eq!(same["action"], "restated", "{same}");
        assert_eq!(same["rule"], rule, "{same}");
    }
}

/// One hook event through the binary with the tree's home, in its session.
fn hook(t: &Tree, event: &str, extra: serde_json::Value, args: &[&str]) -> String {
    hook_run(t, event, extra, args).0
}

/// One hook event (session `s1` unless `extra` names another): its stdout
/// and stderr; a hook never blocks (exit 0).
fn hook_run(t: &Tree, event: &str, extra: serde_json::Value, args: &[&str]) -> (String, String) {
    let mut input = serde_json::json!({
        "session_id": "s1",
        "cwd": t.workdir(),
        "hook_event_name": event,
    });
    for (k, v) in extra.as_object().unwrap() {
        input[k] = v.clone();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(["hook", event])
        .args(args)
        .arg("--home")
        .arg(t.home())
        .current_dir(t.workdir())
        .env("WAVE_RULES_STATE_DIR", t.home().join("state"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CODEX_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "a hook never blocks");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn hooks_recall_an_entry_at_the_prompt_it_is_relevant_to_once_and_again_after_compaction() {
    let t = tree();
    write(&t, "testing", LOOM);
    for (topic, text) in OTHERS {
        write(&t, topic, text);
    }
    let start = hook(
        &t,
        "SessionStart",
        serde_json::json!({"source": "startup"}),
        &[],
    );
    assert!(start.contains("testing"), "the index of topics: {start}");
    assert!(
        !start.contains("--cfg loom"),
        "not before its prompt: {start}"
    );
    let unrelated = hook(
        &t,
        "UserPromptSubmit",
        serde_json::json!({"prompt": "Write a haiku about the sea"}),
        &[],
    );
    assert!(!unrelated.contains("Memory"), "{unrelated}");
    let prompt = serde_json::json!({"prompt": "How do I run the loom tests?"});
    let recalled = hook(&t, "UserPromptSubmit", prompt.clone(), &[]);
    assert!(recalled.contains("--cfg loom"), "{recalled}");
    assert!(!recalled.contains("Fridays"), "{recalled}");
    let again = hook(&t, "UserPromptSubmit", prompt.clone(), &[]);
    assert!(!again.contains("--cfg loom"), "given once: {again}");
    hook(
        &t,
        "PreCompact",
        serde_json::json!({"trigger": "auto"}),
        &[],
    );
    let compacted = hook(
        &t,
        "SessionStart",
        serde_json::json!({"source": "compact"}),
        &[],
    );
    assert!(
        compacted.contains("--cfg loom"),
        "again after compaction: {compacted}"
    );

    // --memory off: none; --memory lines: the first lines at the start.
    let t2 = tree();
    write(&t2, "testing", LOOM);
    let off = hook(&t2, "UserPromptSubmit", prompt, &["--memory", "off"]);
    assert!(!off.contains("--cfg loom"), "{off}");
    let lines = hook(
        &t2,
        "SessionStart",
        serde_json::json!({"source": "startup", "session_id": "s2"}),
        &["--memory", "lines"],
    );
    assert!(lines.contains("--cfg loom"), "{lines}");
}

#[test]
fn match_with_memory_explains_why_each_entry_came() {
    let t = tree();
    let id = write(&t, "testing", LOOM)["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (topic, text) in OTHERS {
        write(&t, topic, text);
    }
    let r = t.run(&[
        "match",
        "--prompt",
        "How do I run the loom tests?",
        "--memory",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(&id), "{}", r.stdout);
    assert!(
        r.stdout.contains("loom"),
        "the words it shares: {}",
        r.stdout
    );
}

#[test]
fn mcp_rules_for_files_gives_the_memory_relevant_to_its_prompt_and_memory_search_finds_it() {
    let t = tree();
    let id = write(&t, "testing", LOOM)["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (topic, text) in OTHERS {
        write(&t, topic, text);
    }
    let answer = common::mcp_call(
        &t.workdir(),
        &t.home(),
        &[],
        "rules_for_files",
        serde_json::json!({"paths": ["src/lib.rs"], "prompt": "How do I run the loom tests?"}),
    );
    assert!(answer.contains("ports.md"), "the rules: {answer}");
    assert!(answer.contains("--cfg loom"), "the memory: {answer}");
    assert!(!answer.contains("Fridays"), "{answer}");
    let found = common::mcp_call(
        &t.workdir(),
        &t.home(),
        &[],
        "memory_search",
        serde_json::json!({"query": "loom tests"}),
    );
    assert!(found.contains(&id), "{found}");
}

/// Every file under `dir`, with its bytes (links as their target's path).
fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                todo.push(p);
            } else if meta.file_type().is_symlink() {
                out.push((
                    p.clone(),
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                ));
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Claude Code's, Codex's and Gemini CLI's memories of the tree's project,
/// with a huge, a binary and a linked-out file among Claude Code's.
fn agent_memories(t: &Tree) -> std::path::PathBuf {
    let project = t.workdir().to_string_lossy().into_owned();
    let name: String = project
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let claude = t.home().join(".claude/projects").join(name).join("memory");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("MEMORY.md"),
        "- [Dev port](dev_port.md) — the dev server's port\n",
    )
    .unwrap();
    std::fs::write(
        claude.join("dev_port.md"),
        "---\nname: dev-port\ndescription: the dev server's port\nmetadata:\n  type: project\n---\n\nThe dev server listens on port 3000.\n",
    )
    .unwrap();
    std::fs::write(
        claude.join("deploy.md"),
        "The deploy token is ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ\n",
    )
    .unwrap();
    std::fs::write(claude.join("huge.md"), "a".repeat(300 * 1024)).unwrap();
    std::fs::write(claude.join("binary.md"), b"PK\x03\x04\0\0binary").unwrap();
    let outside = t.home().parent().unwrap().join("outside.md");
    std::fs::write(&outside, "Outside the home.\n").unwrap();
    std::os::unix::fs::symlink(&outside, claude.join("linked.md")).unwrap();
    let gemini = t.home().join(".gemini");
    std::fs::create_dir_all(&gemini).unwrap();
    std::fs::write(
        gemini.join("GEMINI.md"),
        "# Mine\n\nKeep answers short.\n\n## Gemini Added Memories\n- Our dev server's port is 5173, so never change it.\n- Loom tests need RUSTFLAGS=\"--cfg loom\".\n",
    )
    .unwrap();
    let codex = t.home().join(".codex/memories");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::write(
        codex.join("MEMORY.md"),
        "# Registry\n\n- Benchmarks live in benches/ and use criterion with 100 samples.\n",
    )
    .unwrap();
    claude
}

#[test]
fn every_agents_memory_is_searched_and_linted_read_only_and_bad_files_are_named() {
    let t = tree();
    let claude = agent_memories(&t);
    let before = snapshot(&t.home());
    let r = t.run(&[
        "memory",
        "lint",
        "--memory-sources",
        "wave,claude,codex,gemini",
        "--json",
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let lint = json(&r);
    let findings = lint["findings"].as_array().unwrap();
    let has = |kind: &str, file: &str, text: &str| {
        findings.iter().any(|f| {
            f["kind"] == kind
                && f["file"].as_str().unwrap_or("").ends_with(file)
                && f["message"].as_str().unwrap().contains(text)
        })
    };
    assert!(has("conflict", "dev_port.md", "ports.md"), "{lint}");
    assert!(has("credential", "deploy.md", "github-pat"), "{lint}");
    assert!(has("restates-rule", "GEMINI.md", "ports.md"), "{lint}");
    for (file, why) in [
        ("huge.md", "MAX_AGENT_MEMORY_FILE_BYTES"),
        ("binary.md", "binary"),
        ("linked.md", "symlink leading out of"),
    ] {
        let named = claude.join(file).display().to_string();
        assert!(
            findings.iter().any(|f| f["kind"] == "broken-entry"
                && f["message"].as_str().unwrap().contains(&named)
                && f["message"].as_str().unwrap().contains(why)),
            "{file}: {lint}"
        );
    }
    assert!(
        !r.stdout.contains("Outside the home"),
        "a link out of the home is never read"
    );

    let found = json(&t.run(&[
        "memory",
        "search",
        "benchmarks criterion samples",
        "--memory-sources",
        "codex",
        "--json",
    ]));
    assert_eq!(found["agents"][0]["agent"], "codex", "{found}");
    assert_eq!(
        found["entries"],
        serde_json::json!([]),
        "wave is not among the sources: {found}"
    );
    let ours_only = json(&t.run(&["memory", "search", "benchmarks criterion samples", "--json"]));
    assert_eq!(
        ours_only["agents"],
        serde_json::json!([]),
        "the default is ours only: {ours_only}"
    );
    let matched = json(&t.run(&[
        "match",
        "--prompt",
        "how many criterion samples do the benchmarks take",
        "--memory",
        "--memory-sources",
        "codex",
        "--json",
    ]));
    assert_eq!(matched["agents"][0]["agent"], "codex", "{matched}");
    assert_eq!(snapshot(&t.home()), before, "reading rewrites nothing");

    let imported = json(&t.run(&["memory", "import", "--from", "gemini", "--json"]));
    let actions: Vec<&str> = imported["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["answer"]["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["restated", "stored"], "{imported}");
    let imported = json(&t.run(&["memory", "import", "--from", "claude", "--json"]));
    let actions: Vec<&str> = imported["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["answer"]["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["refused", "stored"],
        "the credential is refused, the rest written: {imported}"
    );
    let loom = json(&t.run(&["memory", "search", "loom tests", "--json"]));
    assert_eq!(
        loom["entries"][0]["text"], "Loom tests need RUSTFLAGS=\"--cfg loom\".",
        "{loom}"
    );
    assert!(std::fs::read_to_string(t.home().join(".gemini/GEMINI.md"))
        .unwrap()
        .contains("## Gemini Added Memories"));
    assert_eq!(
        std::fs::read(claude.join("dev_port.md")).unwrap(),
        before
            .iter()
            .find(|(p, _)| p.ends_with("dev_port.md"))
            .unwrap()
            .1,
        "import never writes the agent's files"
    );
}

/// A prompt through [`hook_run`] in `session`: its stdout and stderr.
fn hook_with_stderr(t: &Tree, prompt: &str, session: &str, args: &[&str]) -> (String, String) {
    let extra = serde_json::json!({ "session_id": session, "prompt": prompt });
    hook_run(t, "UserPromptSubmit", extra, args)
}

#[test]
fn the_hooks_recall_reads_the_memory_sources_of_the_config_or_the_command_line() {
    let t = tree();
    agent_memories(&t);
    write(&t, "testing", LOOM);
    let asked = "how many criterion samples do the benchmarks take";
    let (ours, _) = hook_with_stderr(&t, asked, "s1", &[]);
    assert!(
        !ours.contains("100 samples"),
        "ours only by default: {ours}"
    );

    std::fs::write(
        t.workdir().join(".wave/config.toml"),
        "memory_sources = [\"wave\", \"codex\"]\n",
    )
    .unwrap();
    let (theirs, _) = hook_with_stderr(&t, asked, "s2", &[]);
    assert!(
        theirs.contains("read-only") && theirs.contains("use criterion with 100 samples"),
        "the config's codex memory is recalled: {theirs}"
    );
    let (again, _) = hook_with_stderr(&t, asked, "s2", &[]);
    assert!(!again.contains("criterion"), "given once: {again}");
    let (loom, _) = hook_with_stderr(&t, "How do I run the loom tests?", "s2", &[]);
    assert!(loom.contains("--cfg loom"), "ours still recalled: {loom}");
    let found = json(&t.run(&["memory", "search", "benchmarks criterion samples", "--json"]));
    assert_eq!(
        found["agents"][0]["agent"], "codex",
        "memory search reads it too: {found}"
    );

    let (flag, _) = hook_with_stderr(&t, asked, "s3", &["--memory-sources", "wave"]);
    assert!(
        !flag.contains("criterion"),
        "the flag wins over the config: {flag}"
    );
    let (no_ours, _) = hook_with_stderr(
        &t,
        "How do I run the loom tests?",
        "s4",
        &["--memory-sources", "codex"],
    );
    assert!(!no_ours.contains("--cfg loom"), "wave left out: {no_ours}");

    std::fs::write(
        t.workdir().join(".wave/config.toml"),
        "memory_sources = [\"wave\",\n  \"codx\"]\n",
    )
    .unwrap();
    let (bad, why) = hook_with_stderr(&t, "How do I run the loom tests?", "s5", &[]);
    assert!(bad.contains("--cfg loom"), "ours is read: {bad}");
    assert!(
        why.contains("config.toml:2:3") && why.contains("'codx'"),
        "the hook warns, naming the place: {why}"
    );
    let r = t.run(&["memory", "search", "loom"]);
    assert_eq!(r.code, 2, "a command stops: {}", r.stderr);
    assert!(r.stderr.contains("config.toml:2:3"), "{}", r.stderr);
}

#[test]
fn the_mcp_servers_recall_and_memory_search_read_the_memory_sources_of_the_config() {
    let t = tree();
    agent_memories(&t);
    write(&t, "testing", LOOM);
    let mcp = |tool: &str, args: serde_json::Value| {
        common::mcp_call(&t.workdir(), &t.home(), &[], tool, args)
    };
    let search = serde_json::json!({"query": "benchmarks criterion samples"});
    let recall = serde_json::json!({"paths": ["src/lib.rs"], "prompt": "how many criterion samples do the benchmarks take"});
    let ours = mcp("memory_search", search.clone());
    assert!(
        !ours.contains("100 samples"),
        "ours only by default: {ours}"
    );

    std::fs::write(
        t.workdir().join(".wave/config.toml"),
        "memory_sources = [\"wave\", \"codex\"]\n",
    )
    .unwrap();
    let found = mcp("memory_search", search);
    assert!(
        found.contains("codex") && found.contains("use criterion with 100 samples"),
        "the config's codex memory is searched: {found}"
    );
    let recalled = mcp("rules_for_files", recall);
    assert!(
        recalled.contains("use criterion with 100 samples"),
        "and recalled: {recalled}"
    );

    std::fs::write(
        t.workdir().join(".wave/config.toml"),
        "memory_sources = [\"wave\", \"codx\"]\n",
    )
    .unwrap();
    let bad = mcp("memory_search", serde_json::json!({"query": "loom tests"}));
    assert!(bad.contains("--cfg loom"), "ours, never a failure: {bad}");
}

#[test]
fn a_topic_file_with_broken_entries_is_named_and_the_rest_still_searched() {
    let t = tree();
    let stored = write(&t, "testing", LOOM);
    assert_eq!(stored["action"], "stored");
    let projects = t.home().join(".wave/projects");
    let dir = std::fs::read_dir(&projects)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("memory");
    let path = dir.join("testing.md");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("<!-- entry {not json -->\nA broken entry about criterion benchmarks.\n");
    std::fs::write(&path, &text).unwrap();
    let found = json(&t.run(&["memory", "search", "how do I run the loom tests", "--json"]));
    assert_eq!(found["entries"][0]["id"], stored["id"], "{found}");
    let r = t.run(&["memory", "lint", "--json"]);
    let lint = json(&r);
    assert!(
        lint["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "broken-entry"
                && f["file"] == "testing.md"
                && f["line"].as_u64().unwrap() > 1),
        "{lint}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "nothing rewritten"
    );
}

#[test]
fn memory_similar_ranks_the_rule_a_note_contradicts_first_with_the_shared_subject_and_the_differing_value(
) {
    let t = tree();
    t.project(
        "node.md",
        "Building the app needs Node.js 22.12.0 or newer.",
    );
    for (topic, text) in OTHERS {
        assert_eq!(write(&t, topic, text)["action"], "stored");
    }
    let pnpm = write(&t, "setup", "The repo pins pnpm 9.15.0 in packageManager.");
    let pnpm_id = pnpm["id"].as_str().unwrap().to_string();

    let r = t.run(&[
        "memory",
        "similar",
        "Building the app needs Node.js 20.11.0 or newer.",
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let got = json(&r);
    let first = &got["candidates"][0];
    assert_eq!(first["rule"], "node.md", "{got}");
    assert_eq!(first["verdict"], "conflict", "{got}");
    assert_eq!(first["differs"]["kind"], "version", "{got}");
    assert_eq!(first["differs"]["ours"], serde_json::json!(["20.11.0"]));
    assert_eq!(first["differs"]["theirs"], serde_json::json!(["22.12.0"]));
    for word in ["build", "node", "app"] {
        assert!(
            first["shared"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w == word),
            "{word} in the shared subject: {got}"
        );
    }
    assert_eq!(
        first["text"],
        "Building the app needs Node.js 22.12.0 or newer."
    );

    // The same in text: rank, what, score and verdict, then the evidence.
    let text = t.run(&[
        "memory",
        "similar",
        "Building the app needs Node.js 20.11.0 or newer.",
    ]);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(
        lines[0].starts_with("1. rule node.md (.wave/rules/node.md)"),
        "{}",
        text.stdout
    );
    assert!(lines[0].ends_with(" conflict"), "{}", text.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.trim() == "differs: version 20.11.0 here, 22.12.0 there"),
        "{}",
        text.stdout
    );

    // An entry's id: its text compared, the entry itself left out; a newer
    // value of its fact is ranked with the verdict a write would give.
    let by_id = json(&t.run(&["memory", "similar", &pnpm_id, "--json"]));
    assert_eq!(
        by_id["note"],
        "The repo pins pnpm 9.15.0 in packageManager."
    );
    assert!(
        by_id["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["entry"] != pnpm_id.as_str()),
        "{by_id}"
    );
    let newer = json(&t.run(&[
        "memory",
        "similar",
        "The repo now pins pnpm 10.4.1 in packageManager.",
        "--json",
        "--limit",
        "1",
    ]));
    assert_eq!(newer["candidates"].as_array().unwrap().len(), 1, "{newer}");
    assert_eq!(newer["candidates"][0]["entry"], pnpm_id.as_str(), "{newer}");
    assert_eq!(newer["candidates"][0]["verdict"], "supersedes", "{newer}");

    let nothing = t.run(&["memory", "similar", "zyxw qvut"]);
    assert_eq!(nothing.code, 0);
    assert!(
        nothing.stdout.contains("nothing similar"),
        "{}",
        nothing.stdout
    );
    let empty = t.run(&["memory", "similar", "  "]);
    assert_eq!(empty.code, 1);
    assert!(
        empty.stderr.contains("give an entry's id or a note's text"),
        "{}",
        empty.stderr
    );
}
