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

// ---- Runs against a fake model on 127.0.0.1, by the ready-made command
// agent of examples/eval-agent.mjs (Node). ----

mod eval_support;
use eval_support::FakeModel;

const FRENCH: &str = "Answer only in French, whatever the language of the question.\n";

/// A model that answers in French when the rule reached it, with
/// probability `follow` (seeded), and in English otherwise.
fn french_model(follow: f64) -> FakeModel {
    FakeModel::start(7, move |body, rng| {
        let reached = body.contains("Answer only in French");
        if reached && rng.next_f64() < follow {
            "Bonjour".into()
        } else {
            "Hello".into()
        }
    })
}

fn agent_cmd() -> String {
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/eval-agent.mjs");
    format!("node {}", example.display())
}

fn node_missing() -> bool {
    let missing = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err();
    if missing {
        eprintln!("skipped: node is not installed (the example agent is a Node script)");
    }
    missing
}

/// A project with the rule `french.md` and scenarios that ask for a reply in French.
fn french_tree(scenarios: &[&str]) -> Tree {
    let t = Tree::made();
    t.project("french.md", FRENCH);
    for name in scenarios {
        t.write(
            t.workdir().join(format!(".wave/evals/{name}.yaml")),
            "prompt: Say hello.\nrules: [french]\nexpect:\n  - reply_contains: Bonjour\n",
        );
    }
    t
}

/// [`french_tree`] and [`french_model`], or `None` (the test skips) when
/// Node is missing.
fn french(scenarios: &[&str], follow: f64) -> Option<(Tree, FakeModel)> {
    if node_missing() {
        return None;
    }
    Some((french_tree(scenarios), french_model(follow)))
}

fn run_eval(t: &Tree, model: &FakeModel, extra: &[&str]) -> common::Run {
    let cmd = agent_cmd();
    let mut args = vec![
        "eval",
        "--agent",
        "command",
        "--cmd",
        &cmd,
        "--base-url",
        &model.url,
        "--timeout",
        "60",
    ];
    args.extend_from_slice(extra);
    t.run(&args)
}

fn stored_runs(t: &Tree) -> Vec<serde_json::Value> {
    let dir = t.workdir().join(".wave/evals/results");
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .flat_map(|e| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            v["runs"].as_array().unwrap().clone()
        })
        .collect()
}

#[test]
fn an_agent_that_crashes_in_every_run_has_no_rate_names_its_error_and_nothing_is_stored() {
    let Some((t, model)) = french(&["hello"], 1.0) else {
        return;
    };
    let url = model.url.clone();
    let r = t.run(&[
        "eval",
        "--agent",
        "command",
        "--cmd",
        "node missing-agent.mjs",
        "--base-url",
        &url,
        "--runs",
        "2",
        "--json",
    ]);
    assert_eq!(r.code, 2, "{}\n{}", r.stderr, r.stdout);
    let v = json(&r);
    let arms = &v["scenarios"][0]["arms"];
    assert!(
        arms["with"]["rate"].is_null() && arms["without"]["interval"].is_null(),
        "{arms}"
    );
    assert!(r.stderr.contains("no run judged with"), "{}", r.stderr);
    // The line that says what went wrong, not only the stack's last lines.
    assert!(r.stderr.contains("Cannot find module"), "{}", r.stderr);
    assert!(
        stored_runs(&t).is_empty(),
        "an error was stored as a result"
    );
    // The agent put right, the same eval runs every run again (no stored error replayed).
    let cmd = agent_cmd();
    std::fs::write(
        t.workdir().join("missing-agent.mjs"),
        format!("import {:?}\n", cmd.trim_start_matches("node ")),
    )
    .unwrap();
    let again = t.run(&[
        "eval",
        "--agent",
        "command",
        "--cmd",
        "node missing-agent.mjs",
        "--base-url",
        &url,
        "--runs",
        "2",
        "--json",
    ]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(json(&again)["scenarios"][0]["arms"]["with"]["rate"], 1.0);
    assert_eq!(model.requests().len(), 4);
}

#[test]
fn stored_results_are_not_reused_for_another_endpoint_or_timeout() {
    if node_missing() {
        return;
    }
    let t = french_tree(&["hello"]);
    let (a, b) = (french_model(1.0), french_model(1.0));
    assert_eq!(run_eval(&t, &a, &["--runs", "1"]).code, 0);
    assert_eq!(a.requests().len(), 2);
    assert_eq!(run_eval(&t, &a, &["--runs", "1"]).code, 0);
    assert_eq!(
        a.requests().len(),
        2,
        "the same endpoint reuses the stored runs"
    );
    assert_eq!(run_eval(&t, &b, &["--runs", "1"]).code, 0);
    assert_eq!(b.requests().len(), 2, "another endpoint runs again");
    let cmd = agent_cmd();
    let r = t.run(&[
        "eval",
        "--agent",
        "command",
        "--cmd",
        &cmd,
        "--base-url",
        &b.url,
        "--timeout",
        "61",
        "--runs",
        "1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(b.requests().len(), 4, "another --timeout runs again");
}

#[test]
fn a_rule_that_never_reached_the_model_is_no_measurement() {
    if node_missing() {
        return;
    }
    let t = french_tree(&["hello"]);
    // An agent that sends the prompt alone: the rule never reaches the model.
    t.write(
        t.workdir().join("bare.mjs"),
        "const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: process.env.WAVE_EVAL_PROMPT }] }) }); console.log((await r.json()).choices[0].message.content)\n",
    );
    let model = french_model(1.0);
    let r = t.run(&[
        "eval",
        "--agent",
        "command",
        "--cmd",
        "node bare.mjs",
        "--base-url",
        &model.url,
        "--runs",
        "2",
    ]);
    assert_eq!(r.code, 2, "{}\n{}", r.stderr, r.stdout);
    assert!(
        r.stderr.contains("hello · command: the rule never reached the model in any run: check how the agent gets its rules"),
        "{}",
        r.stderr
    );
}

#[test]
fn keep_reports_each_runs_scratch_path_and_runs_are_numbered_from_1_in_table_and_json() {
    let Some((t, model)) = french(&["hello"], 0.0) else {
        return;
    };
    let r = run_eval(
        &t,
        &model,
        &[
            "--runs",
            "2",
            "--keep",
            "--model",
            "my-local-model",
            "--json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    let runs = v["scenarios"][0]["runs"].as_array().unwrap();
    let numbers: Vec<(String, u64)> = runs
        .iter()
        .map(|x| {
            (
                x["arm"].as_str().unwrap().into(),
                x["index"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        numbers,
        [
            ("with".into(), 1),
            ("with".into(), 2),
            ("without".into(), 1),
            ("without".into(), 2)
        ]
    );
    for run in runs {
        let dir = std::path::PathBuf::from(run["scratch"].as_str().expect("a kept run's path"));
        assert!(
            dir.join("work/.wave/evals/hello.yaml").is_file(),
            "{}",
            dir.display()
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
    // --model reaches the command agent as WAVE_EVAL_MODEL.
    assert!(model
        .requests()
        .iter()
        .all(|b| b.contains("\"model\":\"my-local-model\"")));
    // The table names the failed runs by the JSON's numbers.
    let table = run_eval(&t, &model, &["--runs", "2", "--model", "my-local-model"]);
    assert!(
        table
            .stdout
            .contains("hello · command with #1, #2: the answer does not contain"),
        "{}",
        table.stdout
    );
}

#[test]
fn min_uplift_gates_on_the_lower_bound_and_names_the_runs_that_would_clear_it() {
    let Some((t, model)) = french(&["hello"], 1.0) else {
        return;
    };
    // 3/3 against 0/3: point +100%, lower bound about +30%.
    let r = run_eval(
        &t,
        &model,
        &["--runs", "3", "--min-uplift", "0.6", "--json"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let low = json(&r)["scenarios"][0]["uplift"]["interval"][0]
        .as_f64()
        .unwrap();
    assert!(low < 0.6 && low > 0.0, "{low}");
    assert!(
        r.stderr.contains(&format!("hello · command: the uplift's lower bound +{:.0}% (point +100%, 3 and 3 runs judged) is below --min-uplift +60%; at the observed rates, ", low * 100.0)),
        "{}",
        r.stderr
    );
    let n: u32 = r
        .stderr
        .split("at the observed rates, ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // Those runs clear it: run them (stored runs are reused) and the gate passes.
    let cleared = run_eval(
        &t,
        &model,
        &["--runs", &n.to_string(), "--min-uplift", "0.6"],
    );
    assert_eq!(cleared.code, 0, "{n} runs: {}", cleared.stderr);
    let fewer = run_eval(
        &t,
        &model,
        &["--runs", &(n - 1).to_string(), "--min-uplift", "0.6"],
    );
    assert_eq!(fewer.code, 1, "{} runs: {}", n - 1, fewer.stderr);
    // --min-rate goes by the lower bound of the rate with the rule too.
    let rate = run_eval(&t, &model, &["--runs", "3", "--min-rate", "0.9"]);
    assert_eq!(rate.code, 1);
    assert!(
        rate.stderr
            .contains("the with arm's pass rate's lower bound")
            && rate
                .stderr
                .contains("(point 100%, 3 runs judged) is below --min-rate 90%"),
        "{}",
        rate.stderr
    );
}

#[test]
fn aa_runs_both_arms_with_the_rule_and_reports_that_the_interval_holds_0() {
    let Some((t, model)) = french(&["hello"], 1.0) else {
        return;
    };
    let r = run_eval(&t, &model, &["--runs", "3", "--aa", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    let s = &v["scenarios"][0];
    assert_eq!(v["arms"], serde_json::json!(["a", "b"]));
    assert_eq!(
        (
            s["arms"]["a"]["passed"].as_u64(),
            s["arms"]["b"]["passed"].as_u64()
        ),
        (Some(3), Some(3))
    );
    assert_eq!(s["holdsZero"], true);
    let table = run_eval(&t, &model, &["--runs", "3", "--aa"]);
    assert!(
        table
            .stdout
            .contains("hello · command: --aa: the uplift's interval [")
            && table.stdout.contains("] holds 0"),
        "{}",
        table.stdout
    );
    // Every request carried the rule, in both arms.
    assert!(model
        .requests()
        .iter()
        .all(|b| b.contains("Answer only in French")));
}

#[test]
fn a_suite_counts_scenarios_not_runs_and_its_gate_names_the_sign_tests_p() {
    let Some((t, model)) = french(&["one", "two", "three"], 1.0) else {
        return;
    };
    let r = run_eval(
        &t,
        &model,
        &["--runs", "3", "--max-suite-p", "0.05", "--json"],
    );
    // 3 of 3 scenarios up (9 runs to 0 each way): the scenarios say p = 0.25.
    assert_eq!(r.code, 1, "{}", r.stderr);
    let suite = &json(&r)["suites"][0];
    assert_eq!(suite["agent"], "command");
    assert_eq!(
        suite["suite"],
        serde_json::json!({"scenarios": 3, "improved": 3, "worsened": 0, "unchanged": 0, "up": 3, "down": 0, "p": 0.25})
    );
    assert!(r.stderr.contains("command: the suite's sign test p = 0.2500 (3 of 3 scenarios up, 0 down) is above --max-suite-p 0.05 (with fewer than 6 scenarios no p under 0.05 is possible)"), "{}", r.stderr);
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A project committed with the rule saying English, then changed to French.
fn changed_rule_tree() -> Tree {
    let t = french_tree(&["hello"]);
    t.project(
        "french.md",
        "Answer in English, whatever the language of the question.\n",
    );
    git(&t.workdir(), &["init", "-q"]);
    git(&t.workdir(), &["add", "-A"]);
    git(&t.workdir(), &["commit", "-qm", "base"]);
    t.project("french.md", FRENCH);
    t
}

#[test]
fn against_a_ref_compares_the_rules_text_now_with_its_text_there() {
    if node_missing() {
        return;
    }
    let t = changed_rule_tree();
    let model = french_model(1.0);
    let r = run_eval(
        &t,
        &model,
        &[
            "--runs",
            "3",
            "--against",
            "HEAD",
            "--min-uplift",
            "-0.1",
            "--json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["arms"], serde_json::json!(["current", "base"]));
    assert_eq!(v["against"]["ref"], "HEAD");
    assert_eq!(v["against"]["commit"].as_str().unwrap().len(), 40);
    let s = &v["scenarios"][0];
    assert_eq!(
        (
            s["arms"]["current"]["passed"].as_u64(),
            s["arms"]["base"]["passed"].as_u64()
        ),
        (Some(3), Some(0))
    );
    let rule = &s["rules"][0];
    assert_eq!(rule["file"], ".wave/rules/french.md");
    assert!(
        rule["current"].is_string() && rule["base"].is_string() && rule["current"] != rule["base"],
        "{rule}"
    );
    // The base arm got the text at the ref.
    assert_eq!(
        model
            .requests()
            .iter()
            .filter(|b| b.contains("Answer in English"))
            .count(),
        3
    );
    // A regression gate: the base is better than the current text by 100 points.
    git(&t.workdir(), &["commit", "-qam", "french"]);
    t.project(
        "french.md",
        "Answer in English, whatever the language of the question.\n",
    );
    let worse = run_eval(
        &t,
        &model,
        &["--runs", "3", "--against", "HEAD", "--min-uplift", "-0.1"],
    );
    assert_eq!(worse.code, 1, "{}", worse.stderr);
    assert!(
        worse.stderr.contains("is below --min-uplift -10%"),
        "{}",
        worse.stderr
    );
}

#[test]
fn against_a_ref_with_no_rule_changed_runs_nothing_and_an_unknown_ref_is_refused() {
    if node_missing() {
        return;
    }
    let t = changed_rule_tree();
    git(&t.workdir(), &["commit", "-qam", "french"]);
    let model = french_model(1.0);
    let r = run_eval(&t, &model, &["--against", "HEAD"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("no rule under test changed since HEAD: nothing to run"),
        "{}",
        r.stderr
    );
    let bad = run_eval(&t, &model, &["--against", "no-such-branch"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("--against 'no-such-branch': no such commit in the git repository of"),
        "{}",
        bad.stderr
    );
    assert!(model.requests().is_empty());
}

#[test]
fn a_token_budget_stops_the_runs_keeps_those_done_and_exits_3() {
    let Some((t, model)) = french(&["hello"], 1.0) else {
        return;
    };
    // 15 tokens a run: after 2 runs, 30 >= 30, no run starts.
    let r = run_eval(
        &t,
        &model,
        &[
            "--runs",
            "5",
            "--max-tokens",
            "30",
            "--min-uplift",
            "0.9",
            "--json",
        ],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["stopped"], "budget");
    assert_eq!(v["spent"]["tokens"], 30);
    assert_eq!(model.requests().len(), 2);
    assert_eq!(stored_runs(&t).len(), 2, "the runs done are kept");
    // A price table: $1 per million input tokens, $2 per million output.
    t.write(
        t.tmp.path().join("prices.json"),
        "{\"m\": {\"input\": 1000, \"output\": 2000}}\n",
    );
    let prices = t.tmp.path().join("prices.json");
    let p = prices.to_str().unwrap();
    let costly = run_eval(
        &t,
        &model,
        &[
            "--runs",
            "5",
            "--fresh",
            "--model",
            "m",
            "--max-cost",
            "0.05",
            "--prices",
            p,
        ],
    );
    assert_eq!(costly.code, 3, "{}", costly.stderr);
    // 0.02 a run: 3 runs reach 0.06.
    assert_eq!(model.requests().len(), 5);
    let unpriced = run_eval(
        &t,
        &model,
        &["--model", "other", "--max-cost", "1", "--prices", p],
    );
    assert_eq!(unpriced.code, 2);
    assert!(
        unpriced
            .stderr
            .contains("no price for the model 'other' (models: m)"),
        "{}",
        unpriced.stderr
    );
}

#[test]
fn errors_come_before_the_budget_in_the_exit_code() {
    let Some((t, model)) = french(&["hello"], 1.0) else {
        return;
    };
    // Each run asks the model (15 tokens), then the agent fails: the
    // budget of 15 stops the runs after one, which was an error.
    let cmd = format!("{}; exit 1", agent_cmd());
    let r = t.run(&[
        "eval",
        "--agent",
        "command",
        "--cmd",
        &cmd,
        "--base-url",
        &model.url,
        "--runs",
        "3",
        "--max-tokens",
        "15",
        "--json",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(json(&r)["stopped"], "budget");
    assert_eq!(model.requests().len(), 1);
}

fn move_results(t: &Tree, to: &str) -> String {
    let dir = t.tmp.path().join(to);
    std::fs::rename(t.workdir().join(".wave/evals/results"), &dir).unwrap();
    dir.to_string_lossy().into_owned()
}

#[test]
fn shards_merged_give_the_numbers_of_one_unsharded_eval() {
    let Some((t, model)) = french(&["one", "two"], 1.0) else {
        return;
    };
    let whole = run_eval(&t, &model, &["--runs", "3", "--json"]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    std::fs::remove_dir_all(t.workdir().join(".wave/evals/results")).unwrap();
    let before = model.requests().len();
    let mut dirs = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let r = run_eval(&t, &model, &["--runs", "3", "--shard", &shard]);
        assert_eq!(r.code, 0, "{shard}: {}", r.stderr);
        dirs.push(move_results(&t, &format!("shard{k}")));
    }
    // 2 scenarios x 2 arms x 3 runs, each run once over the shards.
    assert_eq!(model.requests().len() - before, 12);
    let junit = t.tmp.path().join("junit.xml");
    let mut args = vec![
        "eval",
        "--json",
        "--min-uplift",
        "0.5",
        "--junit",
        junit.to_str().unwrap(),
        "--merge",
    ];
    args.extend(dirs.iter().map(String::as_str));
    let merged = t.run(&args);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let (mut a, mut b) = (json(&whole), json(&merged));
    // The numbers, not the wall time each run took.
    for v in [&mut a, &mut b] {
        for s in v["scenarios"].as_array_mut().unwrap() {
            for arm in ["with", "without"] {
                s["arms"][arm].as_object_mut().unwrap().remove("wallMs");
            }
        }
    }
    for i in 0..2 {
        assert_eq!(a["scenarios"][i]["arms"], b["scenarios"][i]["arms"]);
        assert_eq!(a["scenarios"][i]["uplift"], b["scenarios"][i]["uplift"]);
    }
    assert_eq!(a["suites"], b["suites"]);
    assert_eq!(model.requests().len() - before, 12, "--merge runs nothing");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), 2, "{xml}");
    assert!(
        xml.contains("<testcase classname=\"eval.command\" name=\"one\">"),
        "{xml}"
    );
    assert!(
        xml.contains("<failure message=\"one · command: the uplift&apos;s lower bound"),
        "{xml}"
    );
    assert!(xml.contains("with 3/3 100% ["), "{xml}");
}

#[test]
fn bad_shard_specs_and_a_merge_of_different_scenario_texts_are_refused() {
    let Some((t, model)) = french(&["hello"], 1.0) else {
        return;
    };
    for bad in ["3/2", "0/4"] {
        let r = run_eval(&t, &model, &["--shard", bad]);
        assert_eq!(r.code, 2, "{bad}");
        assert!(
            r.stderr
                .contains(&format!("--shard '{bad}': give K/N with 1 <= K <= N")),
            "{}",
            r.stderr
        );
    }
    assert!(model.requests().is_empty());
    assert_eq!(
        run_eval(&t, &model, &["--runs", "1", "--shard", "1/2"]).code,
        0
    );
    let one = move_results(&t, "one");
    t.write(
        t.workdir().join(".wave/evals/hello.yaml"),
        "prompt: Say hello again.\nrules: [french]\nexpect:\n  - reply_contains: Bonjour\n",
    );
    assert_eq!(
        run_eval(&t, &model, &["--runs", "1", "--shard", "2/2"]).code,
        0
    );
    let two = move_results(&t, "two");
    let r = t.run(&["eval", "--merge", &one, &two]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("--merge: the results of scenario 'hello' by command in ")
            && r.stderr
                .contains("were measured under different scenario texts"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(&one) && r.stderr.contains(&two),
        "{}",
        r.stderr
    );
}

#[test]
fn github_step_summary_gets_a_markdown_table() {
    let Some((t, model)) = french(&["hello"], 1.0) else {
        return;
    };
    let summary = t.tmp.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let cmd = agent_cmd();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args([
            "eval",
            "--agent",
            "command",
            "--cmd",
            &cmd,
            "--base-url",
            &model.url,
            "--runs",
            "2",
            "--home",
        ])
        .arg(t.home())
        .current_dir(t.workdir())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step\n### wave-rules eval\n"),
        "{md}"
    );
    assert!(
        md.contains("| scenario | agent | with | without | uplift | gate |"),
        "{md}"
    );
    assert!(md.contains("| hello | command | 2/2 100% ["), "{md}");
    assert!(md.contains("| pass |"), "{md}");
}

/// A project whose scenario is graded by a judge.
fn judged_tree() -> Tree {
    let t = Tree::made();
    t.project("french.md", FRENCH);
    t.write(
        t.workdir().join(".wave/evals/hello.yaml"),
        "prompt: Say hello.\nrules: [french]\nexpect:\n  - judge: the reply is in French\n",
    );
    t
}

/// A judge that passes a reply of Bonjour (it reads the evidence it is sent).
fn judge_model() -> FakeModel {
    FakeModel::start(1, |body, _| {
        if body.contains("final reply:\\nBonjour") {
            "{\"pass\": true, \"reason\": \"the reply is French\"}".into()
        } else {
            "{\"pass\": false, \"reason\": \"the reply is English\"}".into()
        }
    })
}

#[test]
fn a_judge_check_is_graded_blind_by_the_judge_model_and_its_tokens_are_counted_apart() {
    if node_missing() {
        return;
    }
    let t = judged_tree();
    let (model, judge) = (french_model(1.0), judge_model());
    let r = run_eval(
        &t,
        &model,
        &[
            "--runs",
            "2",
            "--judge-base-url",
            &judge.url,
            "--judge-model",
            "j",
            "--judge-runs",
            "3",
            "--json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    let s = &v["scenarios"][0];
    assert_eq!(
        (
            s["arms"]["with"]["passed"].as_u64(),
            s["arms"]["without"]["passed"].as_u64()
        ),
        (Some(2), Some(0))
    );
    let failed = s["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["arm"] == "without")
        .unwrap();
    assert_eq!(
        failed["failures"][0],
        "the judge: 'the reply is in French' does not hold: the reply is English"
    );
    // 3 answers a check, 10 input and 5 output tokens each, apart from the agent's.
    assert_eq!(
        (
            failed["judgeInputTokens"].as_u64(),
            failed["judgeOutputTokens"].as_u64()
        ),
        (Some(30), Some(15))
    );
    assert_eq!(failed["inputTokens"], 10);
    // Blind: the judge saw the rubric and the reply, never the rule nor the arm.
    let asked = judge.requests();
    assert_eq!(asked.len(), 12);
    assert!(asked.iter().all(|b| b.contains("the reply is in French")
        && !b.contains("Answer only in French")
        && !b.contains("without")));
}

#[test]
fn an_unreachable_judge_is_refused_before_any_run_and_a_judge_without_json_is_an_error() {
    if node_missing() {
        return;
    }
    let t = judged_tree();
    let model = french_model(1.0);
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let r = run_eval(
        &t,
        &model,
        &["--judge-base-url", &closed, "--judge-model", "j"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "--judge-base-url: cannot reach the model at {closed}"
        )),
        "{}",
        r.stderr
    );
    let none = run_eval(&t, &model, &[]);
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains(".wave/evals/hello.yaml:1: scenario 'hello' has a judge: check: give --judge-base-url and --judge-model"), "{}", none.stderr);
    assert!(model.requests().is_empty(), "a run started");
    let mute = FakeModel::start(1, |_, _| "I think it passes.".into());
    let r = run_eval(
        &t,
        &model,
        &[
            "--runs",
            "1",
            "--judge-base-url",
            &mute.url,
            "--judge-model",
            "j",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("the judge answered no verdict"),
        "{}",
        r.stderr
    );
}

#[test]
fn regrade_runs_the_changed_checks_on_the_stored_runs_without_the_model() {
    if node_missing() {
        return;
    }
    let t = french_tree(&[]);
    let scenario = |checks: &str| {
        t.write(
            t.workdir().join(".wave/evals/hello.yaml"),
            &format!("prompt: Say hello.\nrules: [french]\nexpect:\n{checks}"),
        );
    };
    scenario("  - file: answer.txt\n    contains: Bonjour\n");
    let model = french_model(1.0);
    // The agent's answer also goes to a file of the scratch copy.
    let cmd = format!("{} | tee answer.txt", agent_cmd());
    let eval = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--agent",
            "command",
            "--cmd",
            &cmd,
            "--base-url",
            &model.url,
            "--runs",
            "2",
            "--json",
        ];
        args.extend_from_slice(extra);
        t.run(&args)
    };
    let first = eval(&[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let arms = |r: &common::Run| {
        let v = json(r);
        (
            v["scenarios"][0]["arms"]["with"]["passed"].as_u64(),
            v["scenarios"][0]["arms"]["without"]["passed"].as_u64(),
        )
    };
    assert_eq!(arms(&first), (Some(2), Some(0)));
    assert!(first.stdout.contains("\"index\"") && !first.stdout.contains("\"kept\""));
    // The checks change: the same runs, graded again, no model call.
    scenario("  - file: answer.txt\n    not_contains: Bonjour\n  - reply_contains: Hello\n");
    let again = eval(&["--regrade"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(arms(&again), (Some(0), Some(2)));
    assert_eq!(model.requests().len(), 4, "--regrade called the model");
    let failures = &json(&again)["scenarios"][0]["runs"][0]["failures"];
    assert_eq!(failures[0], "answer.txt contains 'Bonjour'", "{failures}");
    // A run: check needs the whole copy, which only --keep keeps.
    scenario("  - run: \"test -f answer.txt\"\n");
    let refused = eval(&["--regrade"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("a run: check needs the whole scratch copy, kept only with --keep"),
        "{}",
        refused.stderr
    );
    assert_eq!(model.requests().len(), 4);
    // The refused re-grade left the stored runs: the checks back, they re-grade.
    scenario("  - file: answer.txt\n    contains: Bonjour\n");
    let back = eval(&["--regrade"]);
    assert_eq!(arms(&back), (Some(2), Some(0)), "{}", back.stderr);
    assert_eq!(model.requests().len(), 4);
}

// ---- Multi-turn: `turns:` runs one conversation, `after_turn: N` checks
// after turn N. ----

/// A model that says hello in French when the rule reached it, and answers
/// the second turn by what it still has of the first: "Au revoir" only when
/// the first turn's prompt is in the request (the conversation went on).
fn two_turn_model() -> FakeModel {
    FakeModel::start(7, |body, _| {
        let french = body.contains("Answer only in French");
        let second = body.contains("Now say goodbye");
        let remembers = body.contains("Say hello.");
        match (second, remembers, french) {
            (true, true, true) => "Au revoir".into(),
            (true, true, false) => "Goodbye".into(),
            (true, false, _) => "Goodbye to whom?".into(),
            (false, _, true) => "Bonjour".into(),
            (false, _, false) => "Hello".into(),
        }
    })
}

const TWO_TURNS: &str = "turns:\n  - Say hello.\n  - Now say goodbye.\nrules: [french]\nexpect:\n  - reply_contains: Bonjour\n    after_turn: 1\n  - reply_contains: Au revoir\n  - reply_not_contains: Bonjour\n";

#[test]
fn turns_run_one_conversation_and_after_turn_checks_the_answer_of_that_turn() {
    if node_missing() {
        return;
    }
    let t = Tree::made();
    t.project("french.md", FRENCH);
    t.write(t.workdir().join(".wave/evals/talk.yaml"), TWO_TURNS);
    let model = two_turn_model();
    let r = run_eval(&t, &model, &["--runs", "2", "--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, r.stdout);
    let v = json(&r);
    let s = &v["scenarios"][0];
    assert_eq!(s["arms"]["with"]["passed"], 2, "{s}");
    assert_eq!(s["arms"]["without"]["passed"], 0, "{s}");
    // Without the rule, each turn's check fails, named by its turn; the
    // last turn's checks carry no turn.
    for run in s["runs"].as_array().unwrap() {
        if run["arm"] == "without" {
            let failures: Vec<&str> = run["failures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect();
            assert_eq!(
                failures,
                [
                    "after turn 1: the answer does not contain 'Bonjour'",
                    "the answer does not contain 'Au revoir'"
                ],
                "{run}"
            );
        }
    }
    // Four conversations of two turns: every second turn's requests held the
    // first turn's prompt and answer (the agent went on with its conversation).
    let requests = model.requests();
    let second: Vec<&String> = requests
        .iter()
        .filter(|b| b.contains("Now say goodbye"))
        .collect();
    assert_eq!(second.len(), 4, "{requests:#?}");
    assert!(second
        .iter()
        .all(|b| b.contains("Say hello.") && (b.contains("Bonjour") || b.contains("Hello"))));
    let conversations = requests.iter().filter(|b| b.contains("Say hello.")).count();
    assert_eq!(conversations, 8, "{requests:#?}");
}

/// The scenario is refused (exit 2, nothing run) with `message` on stderr.
fn refused(scenario: &str, message: &str) {
    let r = eval(&tree(scenario), &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains(message), "{}", r.stderr);
}

#[test]
fn turns_and_after_turn_on_bad_input_are_named_with_their_line() {
    refused(
        "prompt: p\nturns: [a, b]\nexpect:\n  - reply_contains: ok\n",
        "logging.yaml:2: a scenario has 'prompt' (one turn) or 'turns'",
    );
    refused(
        "turns: [a, b]\nexpect:\n  - reply_contains: ok\n    after_turn: 3\n",
        "logging.yaml:3: 'after_turn: 3': the scenario has 2 turn(s)",
    );
    refused(
        "prompt: p\nexpect:\n  - reply_contains: ok\n    after_turn: 0\n",
        "logging.yaml:3: 'after_turn' takes a turn's number, 1 for the first",
    );
    let many = format!(
        "turns: [{}]\nexpect:\n  - reply_contains: ok\n",
        vec!["p"; 21].join(", ")
    );
    refused(
        &many,
        "logging.yaml:1: 'turns' has 21 prompts, over the limit of 20 (MAX_EVAL_TURNS)",
    );
    refused(
        "turns: []\nexpect:\n  - reply_contains: ok\n",
        "'turns' is a list of prompts, each a non-empty string",
    );
}

#[test]
fn regrade_refuses_a_scenario_that_checks_after_an_earlier_turn() {
    if node_missing() {
        return;
    }
    let t = Tree::made();
    t.project("french.md", FRENCH);
    t.write(t.workdir().join(".wave/evals/talk.yaml"), TWO_TURNS);
    let model = two_turn_model();
    assert_eq!(run_eval(&t, &model, &["--runs", "1"]).code, 0);
    let sent = model.requests().len();
    let r = run_eval(&t, &model, &["--runs", "1", "--regrade"]);
    assert_eq!(r.code, 2, "{}\n{}", r.stderr, r.stdout);
    assert!(
        r.stderr
            .contains("cannot be re-graded: its scenario checks after turn 1"),
        "{}",
        r.stderr
    );
    assert_eq!(model.requests().len(), sent, "re-grading called the model");
}
