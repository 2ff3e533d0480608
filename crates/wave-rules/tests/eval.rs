//! `wave-rules eval` on bad input and in `--dry-run`: every problem is named
//! with its file and line (or the agent, or the model's URL), exit 2, and
//! no run is started. (The runs themselves, with every agent, are in
//! __test__/agents/eval.test.mjs.)

mod common;
use common::{json, CliTree, Tree};

const RULE: &str = "Log with logger.debug, never console.log.\n";

fn tree(scenario: &str) -> Tree {
    let t = Tree::made();
    t.project("logging.md", RULE);
    t.write(t.workdir().join(".wave/evals/logging.yaml"), scenario);
    t
}

/// An agent program that records that it ran (it must not, on bad input).
fn fake_agent(t: &Tree) -> String {
    let marker = t.workdir().join("agent-ran");
    let bin = t.write(
        t.tmp.path().join("bin/agent"),
        &format!("#!/bin/sh\ntouch {}\n", marker.display()),
    );
    #[cfg(unix)]
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    bin.to_string_lossy().into_owned()
}

/// A listener on 127.0.0.1 that stands for the model (nothing is sent on bad input).
fn model() -> (std::net::TcpListener, String) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    (l, url)
}

fn eval(t: &Tree, extra: &[&str]) -> common::Run {
    let bin = fake_agent(t);
    let (_model, url) = model();
    let mut args = vec![
        "eval",
        "--agent",
        "claude",
        "--agent-bin",
        &bin,
        "--base-url",
        &url,
    ];
    args.extend_from_slice(extra);
    let r = t.run(&args);
    assert!(
        !t.workdir().join("agent-ran").exists(),
        "a run started: {}",
        r.stderr
    );
    r
}

#[test]
fn an_unknown_check_is_named_with_its_file_and_line_and_nothing_runs() {
    let t = tree("prompt: p\nexpect:\n  - file: src/a.ts\n    contains: x\n  - command_rann: ls\n");
    let r = eval(&t, &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains(".wave/evals/logging.yaml:5: unknown check 'command_rann'"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("no run started"), "{}", r.stderr);
}

#[test]
fn a_regex_that_does_not_compile_is_named_with_its_file_and_line() {
    let t = tree("prompt: p\nexpect:\n  - file: src/a.ts\n    matches: \"logger(\"\n");
    let r = eval(&t, &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            ".wave/evals/logging.yaml:3: 'matches': the regex 'logger(' does not compile"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_rule_under_test_that_is_not_loaded_is_named() {
    let t = tree("prompt: p\nrules: [loging]\nexpect:\n  - reply_contains: ok\n");
    let r = eval(&t, &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            ".wave/evals/logging.yaml:1: rule 'loging' is not loaded (rules: logging.md)"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn an_agent_that_is_not_installed_is_named() {
    let t = tree("prompt: p\nexpect:\n  - reply_contains: ok\n");
    let (_model, url) = model();
    let r = t.run(&[
        "eval",
        "--agent",
        "codex",
        "--agent-bin",
        "/nonexistent/codex",
        "--base-url",
        &url,
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--agent-bin /nonexistent/codex for codex is not a file"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_model_that_cannot_be_reached_is_an_error_naming_its_url() {
    let t = tree("prompt: p\nexpect:\n  - reply_contains: ok\n");
    let bin = fake_agent(&t);
    // A port that was just free: nothing listens there.
    let url = {
        let (l, url) = model();
        drop(l);
        url
    };
    let r = t.run(&[
        "eval",
        "--agent",
        "claude",
        "--agent-bin",
        &bin,
        "--base-url",
        &url,
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains(&format!("cannot reach the model at {url}")),
        "{}",
        r.stderr
    );
    assert!(!t.workdir().join("agent-ran").exists());
}

#[test]
fn runs_and_jobs_over_their_limits_are_refused() {
    let t = tree("prompt: p\nexpect:\n  - reply_contains: ok\n");
    assert!(eval(&t, &["--runs", "201"])
        .stderr
        .contains("--runs is 1 to 200 (MAX_EVAL_RUNS)"));
    assert!(eval(&t, &["--jobs", "0"])
        .stderr
        .contains("--jobs is 1 to 16 (MAX_EVAL_JOBS)"));
}

#[test]
fn a_rules_own_evals_are_scenarios_and_a_broken_one_names_the_rule_file() {
    let t = Tree::made();
    t.project("logging.md", "---\nevals:\n  - prompt: p\n    expect:\n      - reply_containz: ok\n---\nLog with logger.debug.\n");
    let r = eval(&t, &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains(".wave/rules/logging.md:5: unknown check 'reply_containz'"),
        "{}",
        r.stderr
    );
    // validate says the same (and the core knows the key: no unknown-key).
    let v = t.run(&["validate"]);
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert!(
        v.stdout.contains(
            ".wave/rules/logging.md:5: error[invalid-scenario]: unknown check 'reply_containz'"
        ),
        "{}",
        v.stdout
    );
    assert!(!v.stdout.contains("unknown-key"), "{}", v.stdout);
}

#[test]
fn dry_run_prints_the_plan_and_sends_nothing() {
    let t = tree("prompt: Add a debug line\nrules: [logging]\nexpect:\n  - reply_contains: ok\n");
    t.project("style.md", "---\nevals:\n  - prompt: Second\n    expect:\n      - reply_contains: ok\n---\nName functions for what they return.\n");
    let bin = fake_agent(&t);
    let r = t.run(&[
        "eval",
        "--agent",
        "claude",
        "--agent-bin",
        &bin,
        "--runs",
        "3",
        "--dry-run",
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let plan = json(&r);
    assert_eq!(plan["runs"], 12, "{plan}");
    let names: Vec<&str> = plan["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["logging", "style"]);
    assert!(
        plan["scenarios"][0]["estimatedInputTokensPerRun"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(!t.workdir().join("agent-ran").exists());
}

#[test]
fn two_scenarios_with_one_name_are_refused() {
    let t = tree("prompt: p\nexpect:\n  - reply_contains: ok\n");
    t.project("logging.md", "---\nevals:\n  - prompt: q\n    expect:\n      - reply_contains: ok\n---\nLog with logger.debug.\n");
    let r = eval(&t, &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(".wave/rules/logging.md:3: a scenario named 'logging' is already in .wave/evals/logging.yaml"), "{}", r.stderr);
}

#[test]
fn validate_reports_a_broken_scenario_on_its_line() {
    let t = tree("prompt: p\nexpect:\n  - reply_contains: ok\n  - command_rann: ls\n");
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            ".wave/evals/logging.yaml:4: error[invalid-scenario]: unknown check 'command_rann'"
        ),
        "{}",
        r.stdout
    );
    let fine = tree("prompt: p\nexpect:\n  - reply_contains: ok\n");
    assert_eq!(fine.run(&["validate"]).code, 0);
}
