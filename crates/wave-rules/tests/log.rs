//! The delivery log as the hooks write it, real processes on real temp
//! trees: what reached the agent is what the log says (ids, versions,
//! tokens, event, agent, session; a stop's every-turn reminders too), two
//! hooks at once lose no line, a full log rotates without blocking a hook
//! (another process holding the rotation), and `WAVE_RULES_LOG=off` writes
//! nothing.

mod common;

use common::hook_run;
use serde_json::Value;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

fn project() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let w = t.path();
    std::fs::create_dir_all(w.join(".git")).unwrap();
    std::fs::write(w.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let rules = w.join(".wave/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("always.md"), "Be brief.").unwrap();
    std::fs::write(
        rules.join("ts.md"),
        "---\npaths: \"src/**/*.ts\"\n---\nUse strict TypeScript.",
    )
    .unwrap();
    std::fs::write(
        rules.join("sql.md"),
        "---\ntopics: [sql]\n---\nNo SELECT *.",
    )
    .unwrap();
    t
}

fn log_lines(state: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for name in [
        "deliveries.3.jsonl",
        "deliveries.2.jsonl",
        "deliveries.1.jsonl",
        "deliveries.jsonl",
    ] {
        let Ok(text) = std::fs::read_to_string(state.join("log").join(name)) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            out.push(serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")));
        }
    }
    out
}

/// The rule ids in the hook's answer (`[id] text` entries).
fn answered(stdout: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("");
    text.lines()
        .filter_map(|l| {
            l.strip_prefix('[')
                .and_then(|r| r.split_once(']'))
                .map(|(id, _)| id.to_string())
        })
        .collect()
}

fn tokens(id: &str, text: &str) -> u64 {
    memory_rules::delivery::tokens::count(&format!("[{id}] {text}")) as u64 + 1
}

#[test]
fn the_log_says_what_each_hook_event_gave() {
    let p = project();
    let w = p.path();
    let state = tempfile::tempdir().unwrap();
    let input = |v: Value| v.to_string().into_bytes();
    let (out, err, code) = hook_run(
        w,
        state.path(),
        &["hook", "SessionStart"],
        &input(serde_json::json!({"session_id": "s1", "source": "startup", "cwd": w})),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(answered(&out), ["always.md"]);
    let (out, _, _) = hook_run(
        w,
        state.path(),
        &["hook", "UserPromptSubmit"],
        &input(serde_json::json!({"session_id": "s1", "prompt": "fix the sql", "cwd": w})),
    );
    assert_eq!(answered(&out), ["sql.md"]);
    let (out, _, _) = hook_run(
        w,
        state.path(),
        &["hook", "PostToolUse"],
        &input(
            serde_json::json!({"session_id": "s1", "tool_name": "Read", "tool_input": {"file_path": "src/a.ts"}, "cwd": w}),
        ),
    );
    assert_eq!(answered(&out), ["ts.md"]);
    // Nothing new: nothing given, nothing logged.
    let (out, _, _) = hook_run(
        w,
        state.path(),
        &["hook", "PostToolUse"],
        &input(
            serde_json::json!({"session_id": "s1", "tool_name": "Read", "tool_input": {"file_path": "src/b.ts"}, "cwd": w}),
        ),
    );
    assert_eq!(out, "");
    let log = log_lines(state.path());
    let summary: Vec<(String, Vec<String>, u64)> = log
        .iter()
        .map(|d| {
            (
                d["event"].as_str().unwrap().to_string(),
                d["rules"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["id"].as_str().unwrap().to_string())
                    .collect(),
                d["tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "start:startup".to_string(),
                vec!["always.md".to_string()],
                tokens("always.md", "Be brief.")
            ),
            (
                "prompt".to_string(),
                vec!["sql.md".to_string()],
                tokens("sql.md", "No SELECT *.")
            ),
            (
                "tool-done".to_string(),
                vec!["ts.md".to_string()],
                tokens("ts.md", "Use strict TypeScript.")
            ),
        ]
    );
    for d in &log {
        assert_eq!(d["session"], "s1");
        assert_eq!(d["agent"], "claude");
        assert_eq!(
            Path::new(d["project"].as_str().unwrap())
                .canonicalize()
                .unwrap(),
            w.canonicalize().unwrap()
        );
        assert_eq!(d["rules"][0]["version"].as_str().unwrap().len(), 16);
        let line = d.to_string();
        for secret in ["Be brief", "fix the sql", "SELECT", "strict"] {
            assert!(!line.contains(secret), "the log holds text: {line}");
        }
    }
    // `wave-rules log` prints the timeline.
    let shown = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(["log", "--session", "s1", "--home"])
        .arg(w.join("no-home"))
        .env("WAVE_RULES_STATE_DIR", state.path())
        .current_dir(w)
        .output()
        .unwrap();
    let text = String::from_utf8(shown.stdout).unwrap();
    assert!(text.contains("session s1 (claude"), "{text}");
    assert!(text.contains("3 deliveries, 3 rules"), "{text}");
}

#[test]
fn a_stop_logs_the_every_turn_rules_it_reminds_of() {
    let p = project();
    let w = p.path();
    std::fs::write(
        w.join(".wave/rules/review.md"),
        "---\npaths: \"src/**\"\nremind: every-turn\ndescription: Run the type checker.\n---\nRun tsc --noEmit before you finish.",
    )
    .unwrap();
    let state = tempfile::tempdir().unwrap();
    let input = |v: Value| v.to_string().into_bytes();
    let read = serde_json::json!({"session_id": "s1", "tool_name": "Read", "tool_input": {"file_path": "src/a.ts"}, "cwd": w});
    hook_run(w, state.path(), &["hook", "PostToolUse"], &input(read));
    let stop = |active: bool| {
        hook_run(
            w,
            state.path(),
            &["hook", "Stop"],
            &input(serde_json::json!({"session_id": "s1", "stop_hook_active": active, "cwd": w})),
        )
    };
    let (out, err, code) = stop(false);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[review.md] Run the type checker."), "{out}");
    // The stop that follows ours gives nothing, and logs nothing.
    let (again, _, _) = stop(true);
    assert_eq!(again, "");
    let log = log_lines(state.path());
    let stops: Vec<&Value> = log.iter().filter(|d| d["event"] == "stop").collect();
    assert_eq!(stops.len(), 1, "{log:?}");
    let given = &stops[0]["rules"];
    assert_eq!(given.as_array().unwrap().len(), 1, "{given}");
    assert_eq!(given[0]["id"], "review.md");
    let tool = log.iter().find(|d| d["event"] == "tool-done").unwrap();
    let version = tool["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "review.md")
        .unwrap()["version"]
        .clone();
    assert_eq!(given[0]["version"], version, "the version it was given in");
    let line_tokens =
        memory_rules::delivery::tokens::count("[review.md] Run the type checker.") as u64;
    assert_eq!(given[0]["tokens"], line_tokens);
    assert_eq!(stops[0]["tokens"], line_tokens);
    assert_eq!(stops[0]["session"], "s1");
    assert_eq!(stops[0]["agent"], "claude");
}

#[test]
fn two_hooks_at_once_lose_no_line() {
    let p = project();
    let w = p.path();
    let state = tempfile::tempdir().unwrap();
    // Warm the rules cache and the token cache once, so the hooks below race
    // on the log alone.
    hook_run(
        w,
        state.path(),
        &["hook", "SessionStart"],
        serde_json::json!({"session_id": "warm", "cwd": w})
            .to_string()
            .as_bytes(),
    );
    const N: usize = 24;
    let children: Vec<_> = (0..N)
        .map(|i| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
                .args(["hook", "SessionStart", "--home"])
                .arg(w.join("no-home"))
                .current_dir(w)
                .env("WAVE_RULES_STATE_DIR", state.path())
                .env_remove("CLAUDE_PROJECT_DIR")
                .env_remove("WAVE_RULES_LOG")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            c.stdin
                .take()
                .unwrap()
                .write_all(
                    serde_json::json!({"session_id": format!("s{i}"), "cwd": w})
                        .to_string()
                        .as_bytes(),
                )
                .unwrap();
            c
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut sessions: Vec<String> = log_lines(state.path())
        .iter()
        .map(|d| d["session"].as_str().unwrap().to_string())
        .filter(|s| s != "warm")
        .collect();
    sessions.sort();
    let mut want: Vec<String> = (0..N).map(|i| format!("s{i}")).collect();
    want.sort();
    assert_eq!(sessions, want);
}

#[test]
fn a_full_log_rotates_without_blocking_a_hook() {
    let p = project();
    let w = p.path();
    let state = tempfile::tempdir().unwrap();
    let dir = state.path().join("log");
    std::fs::create_dir_all(&dir).unwrap();
    let full = memory_rules::base::limits::MAX_LOG_FILE_BYTES as usize;
    std::fs::write(dir.join("deliveries.jsonl"), vec![b'\n'; full]).unwrap();
    // Another process is rotating: it holds the lock.
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".rotate.lock"))
        .unwrap();
    held.lock().unwrap();
    let start = |session: &str| {
        hook_run(
            w,
            state.path(),
            &["hook", "SessionStart"],
            serde_json::json!({"session_id": session, "cwd": w})
                .to_string()
                .as_bytes(),
        )
    };
    let (out, err, code) = start("s1");
    assert_eq!(
        (code, answered(&out)),
        (0, vec!["always.md".to_string()]),
        "{err}"
    );
    // The hook answered and logged; the rotation was left to the holder.
    assert!(!dir.join("deliveries.1.jsonl").exists());
    assert_eq!(log_lines(state.path()).len(), 1);
    held.unlock().unwrap();
    start("s2");
    assert!(
        dir.join("deliveries.1.jsonl").exists(),
        "rotated once the lock was free"
    );
    let sessions: Vec<Value> = log_lines(state.path())
        .iter()
        .map(|d| d["session"].clone())
        .collect();
    assert_eq!(sessions, ["s1", "s2"]);
}

#[test]
fn the_log_is_off_with_one_setting() {
    let p = project();
    let w = p.path();
    let state = tempfile::tempdir().unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(["hook", "SessionStart", "--home"])
        .arg(w.join("no-home"))
        .current_dir(w)
        .env("WAVE_RULES_STATE_DIR", state.path())
        .env("WAVE_RULES_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin
        .take()
        .unwrap()
        .write_all(
            serde_json::json!({"session_id": "s1", "cwd": w})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    let out = c.wait_with_output().unwrap();
    assert_eq!(
        answered(&String::from_utf8(out.stdout).unwrap()),
        ["always.md"]
    );
    assert!(!state.path().join("log").exists());
}
