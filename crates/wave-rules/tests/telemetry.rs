//! Telemetry through the real binary: hooks spool their records and start
//! the shipper, which posts them to a fake OTLP receiver on 127.0.0.1
//! (decoded with the official definitions, protobuf and OTLP/JSON); the
//! receiver down, failing, throttling or silent loses nothing and holds no
//! hook; bad settings are one stderr line per session, the answer unchanged;
//! nothing private leaves the machine.

mod common;
#[path = "common/otlp.rs"]
mod otlp;

use common::{age_tree, mcp_calls, CliTree, Tree};
use otlp::{attr, free_port, Mode, Receiver};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ALWAYS: &str = "ALWAYS_RULE_BODY: indent with tabs.";
const TS: &str = "TS_RULE_BODY: strict TypeScript only.";
const GEN: &str = "GEN_RULE_BODY: never write generated files.";
const PROMPT: &str = "PROMPT_TEXT_QX: please refactor";
const CONTENT: &str = "FILE_CONTENT_QX";
const COMMAND: &str = "COMMAND_TEXT_QX --flag";

fn project() -> Tree {
    let t = Tree::made();
    t.git_root(t.workdir());
    t.write(t.workdir().join(".wave/rules/always.md"), ALWAYS);
    t.write(
        t.workdir().join(".wave/rules/ts.md"),
        &format!("---\npaths: src/**/*.ts\n---\n{TS}\n"),
    );
    t.write(
        t.workdir().join(".wave/rules/gen.md"),
        &format!("---\npaths: gen/**\nenforce: block\n---\n{GEN}\n"),
    );
    t.write(t.workdir().join("src/a.ts"), CONTENT);
    t
}

/// Runs one Claude Code hook event in the tree with `env`; stdout, stderr,
/// exit code.
fn hook(
    t: &Tree,
    env: &[(&str, String)],
    event: &str,
    payload: serde_json::Value,
) -> (String, String, i32) {
    run(t, &["hook", event], env, &payload)
}

/// Runs `wave-rules ARGS --home HOME` in the tree with `payload` on stdin,
/// the machine's telemetry and project variables removed and `env` set;
/// stdout, stderr, exit code.
fn run(
    t: &Tree,
    args: &[&str],
    env: &[(&str, String)],
    payload: &serde_json::Value,
) -> (String, String, i32) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wave-rules"));
    cmd.args(args)
        .arg("--home")
        .arg(t.home())
        .current_dir(t.workdir())
        .env("WAVE_RULES_STATE_DIR", t.tmp.path().join("state"))
        .env("WAVE_POLICY_DIR", t.tmp.path().join("no-policy"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("WAVE_RULES_TELEMETRY")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    // A command that reads no stdin (`memory write`) may be gone already.
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A session of Claude Code's hooks: start, a prompt, a read of a path
/// rule's file, a refused write, a command, a stop. The answers, in order.
fn session(t: &Tree, env: &[(&str, String)], id: &str) -> Vec<(String, String, i32)> {
    let work = t.workdir();
    let cwd = work.to_string_lossy().to_string();
    let base = |event: &str| json!({ "session_id": id, "cwd": cwd, "hook_event_name": event });
    let with = |mut v: serde_json::Value, extra: serde_json::Value| {
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    vec![
        hook(
            t,
            env,
            "SessionStart",
            with(base("SessionStart"), json!({"source": "startup"})),
        ),
        hook(
            t,
            env,
            "UserPromptSubmit",
            with(base("UserPromptSubmit"), json!({"prompt": PROMPT})),
        ),
        hook(
            t,
            env,
            "PostToolUse",
            with(
                base("PostToolUse"),
                json!({"tool_name": "Read", "tool_input": {"file_path": work.join("src/a.ts")}, "tool_response": CONTENT}),
            ),
        ),
        hook(
            t,
            env,
            "PreToolUse",
            with(
                base("PreToolUse"),
                json!({"tool_name": "Write", "tool_input": {"file_path": work.join("gen/out.ts"), "content": CONTENT}}),
            ),
        ),
        hook(
            t,
            env,
            "PostToolUse",
            with(
                base("PostToolUse"),
                json!({"tool_name": "Bash", "tool_input": {"command": COMMAND}}),
            ),
        ),
        hook(
            t,
            env,
            "Stop",
            with(base("Stop"), json!({"stop_hook_active": false})),
        ),
    ]
}

fn on(receiver: &str, protocol: &str) -> Vec<(&'static str, String)> {
    vec![
        ("WAVE_RULES_TELEMETRY", "1".into()),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.to_string()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol.to_string()),
        (
            "OTEL_RESOURCE_ATTRIBUTES",
            "deployment.environment=test".into(),
        ),
    ]
}

fn names(records: &[opentelemetry_proto::tonic::logs::v1::LogRecord]) -> Vec<String> {
    records.iter().map(|r| r.event_name.clone()).collect()
}

fn shipped_session(protocol: &str) -> (Tree, Receiver, Vec<(String, String, i32)>) {
    let t = project();
    let receiver = Receiver::start(Mode::Accept);
    let answers = session(&t, &on(&receiver.url(), protocol), "sess-1");
    (t, receiver, answers)
}

/// The `wave_rules.rules.loaded` record of session `id`: its total and its
/// count of `.wave` rules.
fn loaded_counts(
    records: &[opentelemetry_proto::tonic::logs::v1::LogRecord],
    id: &str,
) -> Option<(String, String)> {
    let r = records.iter().find(|r| {
        r.event_name == "wave_rules.rules.loaded" && attr(r, "session.id").as_deref() == Some(id)
    })?;
    let n = |k: &str| attr(r, k).unwrap_or_default();
    Some((n("wave_rules.rules.count"), n("wave_rules.rules.wave")))
}

#[test]
fn the_rules_loaded_at_a_start_are_counted_alike_from_a_full_load_and_from_the_saved_index() {
    let t = project();
    t.write(t.home().join(".wave/rules/user.md"), "USER_RULE_BODY\n");
    std::fs::create_dir_all(t.tmp.path().join("state")).unwrap();
    age_tree(&t.workdir());
    age_tree(&t.home());
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/json");
    let cwd = t.workdir().to_string_lossy().to_string();
    // The first start loads every rule and saves them; the second restores
    // only the always-on one and counts the others from the saved index.
    for id in ["s-full", "s-saved"] {
        let start = json!({ "session_id": id, "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup" });
        let (_, stderr, code) = hook(&t, &env, "SessionStart", start);
        assert_eq!(code, 0, "{stderr}");
        let stop = json!({ "session_id": id, "cwd": cwd, "hook_event_name": "Stop", "stop_hook_active": false });
        hook(&t, &env, "Stop", stop);
    }
    // Each start: its count and the always-on rule's delivery, twice.
    let records = receiver.wait_for(6, Duration::from_secs(15));
    // The project's three and the user's one.
    let want = Some(("4".to_string(), "4".to_string()));
    assert_eq!(loaded_counts(&records, "s-full"), want);
    assert_eq!(loaded_counts(&records, "s-saved"), want);
}

#[test]
fn a_sessions_deliveries_refusal_and_load_arrive_with_its_session_id_over_http_protobuf() {
    let (t, receiver, answers) = shipped_session("http/protobuf");
    let records = receiver.wait_for(4, Duration::from_secs(10));
    let got = names(&records);
    assert!(
        got.iter().any(|n| n == "wave_rules.rules.loaded"),
        "{got:?}"
    );
    assert!(
        got.iter().any(|n| n == "wave_rules.rule.enforced"),
        "{got:?}"
    );
    let delivered: Vec<String> = records
        .iter()
        .filter(|r| r.event_name == "wave_rules.rule.delivered")
        .filter_map(|r| attr(r, "wave_rules.rule.id"))
        .collect();
    assert!(
        delivered.contains(&"always.md".to_string()) && delivered.contains(&"ts.md".to_string()),
        "{delivered:?}"
    );
    for r in &records {
        assert_eq!(attr(r, "session.id").as_deref(), Some("sess-1"), "{r:?}");
        assert_eq!(
            attr(r, "event.name").as_deref(),
            Some(r.event_name.as_str())
        );
        assert_eq!(attr(r, "wave_rules.record.id").map(|s| s.len()), Some(32));
    }
    let refusal = records
        .iter()
        .find(|r| r.event_name == "wave_rules.rule.enforced")
        .unwrap();
    assert_eq!(
        attr(refusal, "wave_rules.rule.id").as_deref(),
        Some("gen.md")
    );
    assert_eq!(
        attr(refusal, "wave_rules.enforce.decision").as_deref(),
        Some("block")
    );
    assert_eq!(
        attr(refusal, "wave_rules.action.kind").as_deref(),
        Some("write")
    );
    let ts = records
        .iter()
        .find(|r| attr(r, "wave_rules.rule.id").as_deref() == Some("ts.md"))
        .unwrap();
    assert_eq!(
        attr(ts, "wave_rules.delivery.why").as_deref(),
        Some("paths")
    );
    assert_eq!(
        attr(ts, "wave_rules.rule.layer").as_deref(),
        Some("project")
    );
    assert!(
        attr(ts, "wave_rules.rule.tokens")
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 0
    );
    let request = &receiver.requests()[0];
    assert_eq!(request.path, "/v1/logs");
    assert_eq!(request.content_type, "application/x-protobuf");
    let resource = request.decode().resource_logs[0].resource.clone().unwrap();
    let keys: Vec<&str> = resource.attributes.iter().map(|a| a.key.as_str()).collect();
    for k in [
        "service.name",
        "service.version",
        "os.type",
        "host.arch",
        "deployment.environment",
    ] {
        assert!(keys.contains(&k), "{keys:?}");
    }
    assert!(answers.iter().all(|(_, _, code)| *code == 0));
    assert!(
        answers[3].0.contains("deny"),
        "the refusal still refuses: {}",
        answers[3].0
    );
    drop(t);
}

#[test]
fn the_same_records_arrive_over_http_json() {
    let (_t, receiver, _) = shipped_session("http/json");
    let records = receiver.wait_for(4, Duration::from_secs(10));
    assert!(names(&records)
        .iter()
        .any(|n| n == "wave_rules.rule.enforced"));
    assert_eq!(receiver.requests()[0].content_type, "application/json");
    let body: serde_json::Value = serde_json::from_slice(&receiver.requests()[0].body).unwrap();
    let first = &body["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
    assert!(first["timeUnixNano"].is_string(), "{first}");
}

#[test]
fn by_default_no_prompt_rule_text_file_content_command_or_path_leaves_the_machine() {
    let (t, receiver, _) = shipped_session("http/json");
    receiver.wait_for(4, Duration::from_secs(10));
    let sent = receiver.sent();
    assert!(!sent.is_empty());
    let work = t.workdir().to_string_lossy().to_string();
    for secret in [
        ALWAYS,
        TS,
        GEN,
        PROMPT,
        CONTENT,
        COMMAND,
        "src/a.ts",
        "gen/out.ts",
        work.as_str(),
        "PROMPT_TEXT",
        "BODY",
    ] {
        assert!(!sent.contains(secret), "`{secret}` left the machine");
    }
}

#[test]
fn the_answers_are_the_same_with_telemetry_on_and_off() {
    let (_t, receiver, with) = shipped_session("http/protobuf");
    let t2 = project();
    let without = session(&t2, &[], "sess-1");
    let strip = |s: &str, t: &Tree| s.replace(&t.workdir().to_string_lossy().to_string(), "W");
    for (a, b) in with.iter().zip(&without) {
        assert_eq!(strip(&a.0, &_t), strip(&b.0, &t2));
        assert_eq!(a.2, b.2);
    }
    drop(receiver);
}

fn ship(t: &Tree, env: &[(&str, String)], seconds: u64) -> (String, Duration) {
    let start = Instant::now();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wave-rules"));
    cmd.args(["telemetry", "ship", "--seconds", &seconds.to_string()])
        .arg("--home")
        .arg(t.home())
        .current_dir(t.workdir())
        .env("WAVE_RULES_STATE_DIR", t.tmp.path().join("state"))
        .env("WAVE_POLICY_DIR", t.tmp.path().join("no-policy"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        start.elapsed(),
    )
}

/// Spools a session's records with nothing listening (the hooks' own
/// shippers fail at once and back off).
fn spooled_with_receiver_down(port: u16) -> Tree {
    let t = project();
    let env = on(&format!("http://127.0.0.1:{port}"), "http/protobuf");
    session(&t, &env, "sess-down");
    ship_when_free(&t, &env);
    t
}

/// The detached shippers a session started are done: `telemetry ship` run
/// (bounded, 10 s) until none holds the spool on two checks in a row, so
/// the test's own next `telemetry ship` is not Busy; each run that was not
/// Busy shipped what it could.
fn ship_when_free(t: &Tree, env: &[(&str, String)]) {
    let mut free_in_a_row = 0;
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(250));
        if ship(t, env, 1).0.contains("Busy") {
            free_in_a_row = 0;
        } else {
            free_in_a_row += 1;
            if free_in_a_row == 2 {
                break;
            }
        }
    }
}

fn clear_backoff(t: &Tree) {
    let path = t.tmp.path().join("state/telemetry/progress.json");
    let Ok(bytes) = std::fs::read(&path) else {
        return;
    };
    let mut p: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    p["retry_at_ms"] = json!(0);
    std::fs::write(&path, p.to_string()).unwrap();
}

#[test]
fn with_the_receiver_down_records_wait_and_then_each_arrives_once() {
    let port = free_port();
    let t = spooled_with_receiver_down(port);
    let progress: serde_json::Value = serde_json::from_slice(
        &std::fs::read(t.tmp.path().join("state/telemetry/progress.json")).unwrap(),
    )
    .unwrap();
    assert!(progress["last_error"].is_string(), "{progress}");
    clear_backoff(&t);
    let receiver = Receiver::on(port, Mode::Accept);
    let env = on(&receiver.url(), "http/protobuf");
    let (said, _) = ship(&t, &env, 10);
    assert!(said.contains("Done"), "{said}");
    let records = receiver.records();
    let mut ids: Vec<String> = records
        .iter()
        .filter_map(|r| attr(r, "wave_rules.record.id"))
        .collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert!(n >= 4, "{n}");
    assert_eq!(ids.len(), n, "every record once");
    assert_eq!(
        ship(&t, &env, 5).0,
        "shipped 0 records in 0 requests: Done\n"
    );
}

#[test]
fn a_500_keeps_the_records_and_a_429_retry_after_is_honoured() {
    let port = free_port();
    let t = spooled_with_receiver_down(port);
    clear_backoff(&t);
    let failing = Receiver::on(port, Mode::Status(500));
    let (said, _) = ship(&t, &on(&failing.url(), "http/protobuf"), 5);
    assert!(said.contains("answered 500"), "{said}");
    drop(failing);
    clear_backoff(&t);
    let throttling = Receiver::start(Mode::TooManyOnce(1));
    let (said, took) = ship(&t, &on(&throttling.url(), "http/protobuf"), 10);
    assert!(said.contains("Done"), "{said}");
    assert!(
        took >= Duration::from_millis(900),
        "waited its Retry-After: {took:?}"
    );
    assert!(throttling.records().len() >= 4);
}

#[test]
fn a_receiver_that_never_answers_holds_no_hook_and_the_shipper_stops_at_its_deadline() {
    let receiver = Receiver::start(Mode::Silent);
    let t = project();
    let env = on(&receiver.url(), "http/protobuf");
    let start = Instant::now();
    let answers = session(&t, &env, "sess-silent");
    assert!(answers.iter().all(|(_, _, c)| *c == 0));
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "six hooks, none waited: {:?}",
        start.elapsed()
    );
    clear_backoff(&t);
    let (said, took) = ship(&t, &env, 2);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        !said.contains("Done") || said.contains("0 records"),
        "{said}"
    );
    assert!(
        t.tmp
            .path()
            .join("state/telemetry/spool.jsonl")
            .metadata()
            .unwrap()
            .len()
            > 0,
        "kept"
    );
}

#[test]
fn a_malformed_endpoint_is_one_stderr_line_per_session_and_doctor_names_it() {
    let t = project();
    let env = vec![
        ("WAVE_RULES_TELEMETRY", "1".to_string()),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318".to_string()),
    ];
    let answers = session(&t, &env, "sess-bad");
    let lines: Vec<&str> = answers
        .iter()
        .flat_map(|a| a.1.lines())
        .filter(|l| l.contains("telemetry"))
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("not an http:// or https:// URL"),
        "{lines:?}"
    );
    assert!(answers
        .iter()
        .all(|a| !a.0.contains("telemetry") && a.2 == 0));
    let next = session(&t, &env, "sess-bad-2");
    assert_eq!(
        next.iter()
            .flat_map(|a| a.1.lines())
            .filter(|l| l.contains("telemetry"))
            .count(),
        1
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wave-rules"));
    cmd.arg("doctor")
        .arg("--home")
        .arg(t.home())
        .current_dir(t.workdir())
        .env("WAVE_RULES_STATE_DIR", t.tmp.path().join("state"))
        .env("WAVE_POLICY_DIR", t.tmp.path().join("no-policy"));
    for (k, v) in &env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("telemetry: on (from the environment (WAVE_RULES_TELEMETRY))"),
        "{text}"
    );
    assert!(
        text.contains("problem: telemetry: the environment"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn grpc_is_a_clear_error_and_an_unwritable_spool_never_changes_the_answer() {
    let t = project();
    let grpc = vec![
        ("WAVE_RULES_TELEMETRY", "1".to_string()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc".to_string()),
    ];
    let answers = session(&t, &grpc, "sess-grpc");
    let said: String = answers.iter().map(|a| a.1.clone()).collect();
    assert!(said.contains("`grpc` is not supported"), "{said}");
    let t2 = project();
    std::fs::create_dir_all(t2.tmp.path().join("state")).unwrap();
    std::fs::write(
        t2.tmp.path().join("state/telemetry"),
        "a file, not a folder",
    )
    .unwrap();
    let receiver = Receiver::start(Mode::Accept);
    let broken = session(&t2, &on(&receiver.url(), "http/protobuf"), "sess-full");
    let fine = session(&project(), &[], "sess-full");
    for (a, b) in broken.iter().zip(&fine) {
        assert_eq!(a.2, 0);
        assert_eq!(a.0.is_empty(), b.0.is_empty());
    }
    let lines = broken
        .iter()
        .flat_map(|a| a.1.lines())
        .filter(|l| l.contains("telemetry"))
        .count();
    assert!(
        (1..=broken.len()).contains(&lines),
        "said, never on stdout: {broken:?}"
    );
}

#[test]
fn hooks_inside_an_eval_run_emit_nothing_even_when_the_policy_says_on() {
    let t = project();
    let policy = t.tmp.path().join("policy");
    std::fs::create_dir_all(&policy).unwrap();
    std::fs::write(policy.join("config.toml"), "[telemetry]\nenabled = true\n").unwrap();
    let receiver = Receiver::start(Mode::Accept);
    let mut env = on(&receiver.url(), "http/protobuf");
    env.retain(|(k, _)| *k != "WAVE_RULES_TELEMETRY");
    env.push(("WAVE_POLICY_DIR", policy.to_string_lossy().into_owned()));
    env.push(("WAVE_RULES_EVAL_RUN", "1".into()));
    session(&t, &env, "sess-eval");
    assert!(!t.tmp.path().join("state/telemetry/spool.jsonl").exists());
    env.retain(|(k, _)| *k != "WAVE_RULES_EVAL_RUN");
    session(&t, &env, "sess-policy");
    assert!(
        !receiver.wait_for(1, Duration::from_secs(10)).is_empty(),
        "the policy alone switches it on"
    );
}

/// `telemetry hook InstructionsLoaded` as Claude Code runs it.
fn instructions_loaded(
    t: &Tree,
    env: &[(&str, String)],
    file: &Path,
    memory_type: &str,
) -> (String, String, i32) {
    let payload = json!({
        "session_id": "sess-il", "hook_event_name": "InstructionsLoaded", "cwd": t.workdir(),
        "file_path": file, "memory_type": memory_type, "load_reason": "session_start",
    });
    let project = (
        "CLAUDE_PROJECT_DIR",
        t.workdir().to_string_lossy().into_owned(),
    );
    let env: Vec<(&str, String)> = env.iter().cloned().chain([project]).collect();
    let args = ["telemetry", "hook", "InstructionsLoaded"];
    run(t, &args, &env, &payload)
}

#[test]
fn claude_codes_own_loads_are_deliveries_by_the_agent_with_project_relative_ids() {
    let t = project();
    t.write(t.workdir().join("CLAUDE.md"), "Project memory.");
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/protobuf");
    let (stdout, _, code) =
        instructions_loaded(&t, &env, &t.workdir().join("CLAUDE.md"), "Project");
    assert_eq!((stdout.as_str(), code), ("", 0));
    let (said, _) = ship(&t, &env, 5);
    assert!(said.contains("Done"), "{said}");
    let records = receiver.records();
    let own = records
        .iter()
        .find(|r| attr(r, "wave_rules.delivered_by").as_deref() == Some("agent"))
        .unwrap();
    assert_eq!(
        attr(own, "wave_rules.rule.id").as_deref(),
        Some("CLAUDE.md")
    );
    assert_eq!(attr(own, "session.id").as_deref(), Some("sess-il"));
    assert_eq!(attr(own, "gen_ai.agent.name").as_deref(), Some("claude"));
    let sent = String::from_utf8_lossy(&receiver.requests()[0].body).into_owned();
    assert!(
        !sent.contains(&*t.workdir().to_string_lossy()),
        "no absolute path"
    );
}

#[test]
fn a_self_load_the_table_does_not_list_is_a_doctor_finding() {
    let t = project();
    t.write(t.workdir().join("notes/extra.md"), "Loaded by an @import.");
    instructions_loaded(&t, &[], &t.workdir().join("CLAUDE.md"), "Project");
    instructions_loaded(&t, &[], &t.workdir().join("notes/extra.md"), "Project");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wave-rules"));
    cmd.args(["telemetry", "status", "--home"])
        .arg(t.home())
        .current_dir(t.workdir())
        .env("WAVE_RULES_STATE_DIR", t.tmp.path().join("state"))
        .env("WAVE_POLICY_DIR", t.tmp.path().join("no-policy"));
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("self-load check: Claude Code loaded notes/extra.md by itself"),
        "{text}"
    );
    assert!(
        !text.contains("loaded CLAUDE.md"),
        "CLAUDE.md is in the table: {text}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn hook_install_adds_the_instructions_loaded_hook_and_uninstall_removes_it() {
    let t = project();
    let run = t.run(&["hook", "install", "--command", "/opt/wave-rules"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let file = ["settings.local.json", "settings.json"]
        .iter()
        .map(|f| t.workdir().join(".claude").join(f))
        .find(|p| p.exists())
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let command = doc["hooks"]["InstructionsLoaded"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        command.ends_with("telemetry hook InstructionsLoaded"),
        "{command}"
    );
    assert_eq!(t.run(&["hook", "uninstall"]).code, 0);
    let after = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(!after.contains("InstructionsLoaded"), "{after}");
}

const NOTE: &str = "NOTE_TEXT_QX: the build needs make twice";
const NOTE_TOPIC: &str = "TOPIC_NAME_QX";
const NOTE_PATHS: &str = "NOTE_PATH_QX/**";
const CREDENTIAL: &str = "The CI token is ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ";

/// The records of one event, by name.
fn named<'r>(
    records: &'r [opentelemetry_proto::tonic::logs::v1::LogRecord],
    name: &str,
) -> Vec<&'r opentelemetry_proto::tonic::logs::v1::LogRecord> {
    records.iter().filter(|r| r.event_name == name).collect()
}

/// Everything the receiver was sent, as text, with none of `secrets` in it.
fn assert_none_sent(receiver: &Receiver, secrets: &[&str]) {
    let sent = receiver.sent();
    assert!(!sent.is_empty());
    for secret in secrets {
        assert!(!sent.contains(secret), "`{secret}` left the machine");
    }
}

#[test]
fn memory_write_sends_each_notes_outcome_and_why_and_never_its_text() {
    let t = project();
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/json");
    let write = |text: &str| {
        let args = ["memory", "write", NOTE_TOPIC, text, "--paths", NOTE_PATHS];
        run(&t, &args, &env, &json!(null))
    };
    assert_eq!(write(NOTE).2, 0);
    let first = receiver.wait_for(1, Duration::from_secs(10));
    assert_eq!(
        names(&first),
        ["wave_rules.memory.written"],
        "the command started the shipper"
    );
    assert_eq!(write(NOTE).2, 0);
    assert_eq!(write(CREDENTIAL).2, 1);
    ship_when_free(&t, &env);
    let records = receiver.records();
    let written = named(&records, "wave_rules.memory.written");
    let what: Vec<(Option<String>, Option<String>)> = written
        .iter()
        .map(|r| {
            (
                attr(r, "wave_rules.memory.outcome"),
                attr(r, "wave_rules.memory.why"),
            )
        })
        .collect();
    let pair = |o: &str, w: &str| (Some(o.to_string()), Some(w.to_string()));
    assert_eq!(
        what,
        [
            pair("stored", "new"),
            pair("folded", "duplicate"),
            pair("refused", "credential")
        ]
    );
    let id = attr(written[0], "wave_rules.memory.id").unwrap();
    assert_eq!(attr(written[1], "wave_rules.memory.id"), Some(id));
    assert_eq!(
        attr(written[2], "wave_rules.memory.credential.rule").as_deref(),
        Some("github-pat")
    );
    for r in &written {
        assert_eq!(attr(r, "gen_ai.agent.name").as_deref(), Some("cli"));
        assert_eq!(
            attr(r, "wave_rules.memory.scope").as_deref(),
            Some("project")
        );
        assert_eq!(attr(r, "session.id"), None);
    }
    let work = t.workdir().to_string_lossy().to_string();
    assert_none_sent(
        &receiver,
        &[NOTE, "NOTE_TEXT", NOTE_TOPIC, "NOTE_PATH", "ghp_", &work],
    );
}

#[test]
fn memory_import_sends_one_record_per_note_with_the_agent_it_came_from() {
    let t = project();
    let gemini = "# Mine\n\n## Gemini Added Memories\n- IMPORTED_NOTE_QX: run make twice.\n";
    t.write(t.home().join(".gemini/GEMINI.md"), gemini);
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/protobuf");
    let args = ["memory", "import", "--from", "gemini"];
    assert_eq!(run(&t, &args, &env, &json!(null)).2, 0);
    ship_when_free(&t, &env);
    let records = receiver.records();
    let written = named(&records, "wave_rules.memory.written");
    assert_eq!(written.len(), 1, "{:?}", names(&records));
    assert_eq!(
        attr(written[0], "gen_ai.agent.name").as_deref(),
        Some("gemini")
    );
    assert_eq!(
        attr(written[0], "wave_rules.memory.outcome").as_deref(),
        Some("stored")
    );
    assert_none_sent(&receiver, &["IMPORTED_NOTE", "make twice", "GEMINI.md"]);
}

#[test]
fn memory_write_inside_an_eval_run_spools_nothing() {
    let t = project();
    let mut env = on("http://127.0.0.1:9", "http/protobuf");
    env.push(("WAVE_RULES_EVAL_RUN", "1".into()));
    assert_eq!(
        run(&t, &["memory", "write", "build", NOTE], &env, &json!(null)).2,
        0
    );
    assert!(!t.tmp.path().join("state/telemetry/spool.jsonl").exists());
}

/// `wave-rules mcp` as a client drives it, in the tree with `env`: a note
/// written about `src/`, the rules for `src/a.ts` (the note recalled with
/// them), an on-request read of `gen.md`; `meta` is each call's `_meta`.
fn mcp_session(t: &Tree, env: &[(&str, String)], meta: serde_json::Value) -> Vec<String> {
    let mut env = env.to_vec();
    env.push((
        "WAVE_RULES_STATE_DIR",
        t.tmp.path().join("state").to_string_lossy().into_owned(),
    ));
    env.push((
        "WAVE_POLICY_DIR",
        t.tmp
            .path()
            .join("no-policy")
            .to_string_lossy()
            .into_owned(),
    ));
    let call = |name: &str, arguments: serde_json::Value| json!({"name": name, "arguments": arguments, "_meta": meta});
    let calls = [
        call(
            "memory_write",
            json!({"topic": NOTE_TOPIC, "content": NOTE, "paths": ["src/**"]}),
        ),
        call(
            "rules_for_files",
            json!({"paths": ["src/a.ts"], "prompt": PROMPT}),
        ),
        call("read_rule", json!({"id": "gen.md"})),
    ];
    mcp_calls(&t.workdir(), &t.home(), &[], &env, &calls)
}

#[test]
fn the_mcp_server_sends_deliveries_recalls_and_notes_with_the_clients_session_id() {
    let t = project();
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/protobuf");
    let answers = mcp_session(&t, &env, json!({"sessionID": "oc-sess-7"}));
    assert!(answers[1].contains(TS), "{answers:?}");
    ship_when_free(&t, &env);
    let records = receiver.records();
    let delivered: Vec<(Option<String>, Option<String>)> =
        named(&records, "wave_rules.rule.delivered")
            .iter()
            .map(|r| {
                (
                    attr(r, "wave_rules.rule.id"),
                    attr(r, "wave_rules.delivery.why"),
                )
            })
            .collect();
    for (id, why) in [
        ("always.md", "always"),
        ("ts.md", "paths"),
        ("gen.md", "request"),
    ] {
        assert!(
            delivered.contains(&(Some(id.into()), Some(why.into()))),
            "{delivered:?}"
        );
    }
    assert_eq!(
        named(&records, "wave_rules.memory.recalled").len(),
        1,
        "{:?}",
        names(&records)
    );
    let written = named(&records, "wave_rules.memory.written");
    assert_eq!(
        attr(written[0], "wave_rules.memory.outcome").as_deref(),
        Some("stored")
    );
    for r in &records {
        assert_eq!(attr(r, "session.id").as_deref(), Some("oc-sess-7"), "{r:?}");
        assert_eq!(
            attr(r, "gen_ai.agent.name").as_deref(),
            Some("mcp"),
            "{r:?}"
        );
    }
    let work = t.workdir().to_string_lossy().to_string();
    assert_none_sent(
        &receiver,
        &[
            NOTE,
            "NOTE_TEXT",
            NOTE_TOPIC,
            PROMPT,
            TS,
            ALWAYS,
            GEN,
            &work,
        ],
    );
}

#[test]
fn without_the_clients_session_id_the_mcp_server_names_its_connection() {
    let t = project();
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/json");
    mcp_session(&t, &env, json!({}));
    ship_when_free(&t, &env);
    let records = receiver.records();
    assert!(records.len() >= 4, "{:?}", names(&records));
    let sessions: std::collections::BTreeSet<String> = records
        .iter()
        .filter_map(|r| attr(r, "session.id"))
        .collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert!(
        sessions.iter().all(|s| s.starts_with("mcp-")),
        "{sessions:?}"
    );
}

/// The records of a hook session and an MCP session in the tree, shipped,
/// and everything sent as text.
fn hook_and_mcp_records(
    t: &Tree,
) -> (Vec<opentelemetry_proto::tonic::logs::v1::LogRecord>, String) {
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/json");
    session(t, &env, "sess-paths");
    mcp_session(t, &env, json!({"sessionID": "sess-paths"}));
    ship_when_free(t, &env);
    (receiver.records(), receiver.sent())
}

#[test]
fn paths_leave_only_with_the_opt_in_and_only_relative_to_the_project() {
    let keys = [
        "wave_rules.rule.file",
        "wave_rules.action.file",
        "wave_rules.trigger.files",
    ];
    let (records, _) = hook_and_mcp_records(&project());
    assert!(records.len() >= 6, "{:?}", names(&records));
    assert!(records
        .iter()
        .all(|r| keys.iter().all(|k| attr(r, k).is_none())));
    let t = project();
    t.write(
        t.workdir().join(".wave/config.toml"),
        "[telemetry]\ninclude = [\"paths\"]\n",
    );
    let (records, sent) = hook_and_mcp_records(&t);
    let by = |name: &str, id: &str| {
        named(&records, name)
            .into_iter()
            .find(|r| attr(r, "wave_rules.rule.id").as_deref() == Some(id))
            .unwrap_or_else(|| panic!("no {name} of {id}: {:?}", names(&records)))
    };
    let ts = by("wave_rules.rule.delivered", "ts.md");
    assert_eq!(
        attr(ts, "wave_rules.rule.file").as_deref(),
        Some(".wave/rules/ts.md")
    );
    let refusal = by("wave_rules.rule.enforced", "gen.md");
    assert_eq!(
        attr(refusal, "wave_rules.action.file").as_deref(),
        Some("gen/out.ts")
    );
    let recalled = named(&records, "wave_rules.memory.recalled");
    let trigger = attr(recalled[0], "wave_rules.trigger.files").unwrap();
    assert!(trigger.contains("\"src/a.ts\""), "{trigger}");
    assert!(
        !sent.contains(&*t.workdir().to_string_lossy()),
        "no absolute path"
    );
}

#[test]
fn a_path_rule_given_again_at_the_edit_it_governs_is_a_delivery_why_edit() {
    let t = project();
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/protobuf");
    let work = t.workdir();
    let cwd = work.to_string_lossy().to_string();
    let payload = |event: &str, extra: serde_json::Value| {
        let mut v = json!({ "session_id": "sess-edit", "cwd": cwd, "hook_event_name": event });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let post = ["hook", "PostToolUse", "--edit-distance", "1"];
    hook(
        &t,
        &env,
        "SessionStart",
        payload("SessionStart", json!({"source": "startup"})),
    );
    let read = json!({"tool_name": "Read", "tool_input": {"file_path": work.join("src/a.ts")}});
    run(&t, &post, &env, &payload("PostToolUse", read));
    for _ in 0..2 {
        let ls = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}});
        run(&t, &post, &env, &payload("PostToolUse", ls));
    }
    let edit = json!({"tool_name": "Edit", "tool_input": {"file_path": work.join("src/a.ts"), "old_string": "a", "new_string": "b"}});
    let (out, err, code) = run(&t, &post, &env, &payload("PostToolUse", edit));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("ts.md"),
        "the rule came back at the edit: {out}"
    );
    ship(&t, &env, 5);
    let records = receiver.wait_for(4, Duration::from_secs(10));
    let why = |r: &opentelemetry_proto::tonic::logs::v1::LogRecord| {
        (
            attr(r, "wave_rules.rule.id"),
            attr(r, "wave_rules.delivery.why"),
            attr(r, "wave_rules.delivery.event"),
        )
    };
    let delivered: Vec<_> = records
        .iter()
        .filter(|r| r.event_name == "wave_rules.rule.delivered")
        .map(why)
        .collect();
    let ts = |w: &str, e: &str| {
        (
            Some("ts.md".to_string()),
            Some(w.to_string()),
            Some(e.to_string()),
        )
    };
    assert!(
        delivered.contains(&ts("paths", "tool-done")),
        "{delivered:?}"
    );
    assert!(delivered.contains(&ts("edit", "edit")), "{delivered:?}");
}

#[test]
fn a_hook_starts_no_shipper_while_a_lingering_one_holds_the_lock_and_one_once_it_is_gone() {
    let t = project();
    let receiver = Receiver::start(Mode::Accept);
    let env = on(&receiver.url(), "http/json");
    let spool = memory_rules::delivery::telemetry::Spool::in_state_dir(&t.tmp.path().join("state"));
    let cwd = t.workdir().to_string_lossy().to_string();
    let stop = |id: &str| {
        let payload = json!({ "session_id": id, "cwd": cwd, "hook_event_name": "Stop", "stop_hook_active": false });
        hook(&t, &env, "Stop", payload)
    };
    let start = json!({ "session_id": "s-held", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup" });
    // A lingering shipper holds the lock (here, this test): the hooks spool
    // their records and start none, so nothing is sent.
    let held = spool.hold_shipper().expect("the lock is free");
    assert!(spool.shipper_running());
    hook(&t, &env, "SessionStart", start);
    stop("s-held");
    assert!(spool.state().unsent_bytes > 0, "the records are spooled");
    assert!(
        receiver.wait_for(1, Duration::from_secs(3)).is_empty(),
        "a shipper was started while the lock was held"
    );
    // Gone: the next stop starts one, and every record goes.
    drop(held);
    assert!(!spool.shipper_running());
    stop("s-held");
    let records = receiver.wait_for(2, Duration::from_secs(15));
    let got = names(&records);
    assert!(
        got.contains(&"wave_rules.rules.loaded".to_string()),
        "{got:?}"
    );
    assert!(
        got.contains(&"wave_rules.rule.delivered".to_string()),
        "{got:?}"
    );
}
