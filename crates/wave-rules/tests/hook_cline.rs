//! Cline's hooks through the real binary, from the payloads of Cline's hook
//! reference (docs.cline.bot/features/hooks/hook-reference): the base
//! fields (`clineVersion`, `hookName`, `timestamp`, `taskId`,
//! `workspaceRoots`, `userId`) and the event's object; the answer is
//! `{"cancel", "contextModification", "errorMessage"}` on stdout. `hook
//! install --agent cline` writes one executable script per event in
//! `.clinerules/hooks/`; a hook file there that is not ours is an error
//! naming it, and stays as it was.

mod common;
use common::hook_run;
use serde_json::{json, Value};
use std::path::Path;

use common::dialect::{project, ALWAYS, API, DB, GEN};

/// A Cline payload as its hook reference shows it.
fn cline(work: &Path, hook: &str, event: Value) -> Vec<u8> {
    let mut v = json!({
        "clineVersion": "3.40.0",
        "hookName": hook,
        "timestamp": "1764237600000",
        "taskId": "task-1",
        "workspaceRoots": [work],
        "userId": "user-1",
    });
    let key = format!("{}{}", hook[..1].to_lowercase(), &hook[1..]);
    v[key] = event;
    v.to_string().into_bytes()
}

fn answer(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

#[test]
fn cline_gets_each_rule_once_as_context_modification_and_a_refusal_as_cancel() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let run = |event: &str, payload: &[u8]| {
        let (out, err, code) =
            hook_run(&work, &state, &["hook", "--agent", "cline", event], payload);
        assert_eq!(code, 0, "{event}: {err}");
        out
    };
    let start = cline(
        &work,
        "TaskStart",
        json!({"taskMetadata": {"taskId": "task-1", "ulid": "01", "initialTask": "fix it"}}),
    );
    let a = answer(&run("SessionStart", &start));
    assert_eq!(a["cancel"], false);
    assert!(
        a["contextModification"].as_str().unwrap().contains(ALWAYS),
        "{a}"
    );
    let read = cline(
        &work,
        "PostToolUse",
        json!({"toolName": "read_file", "parameters": {"path": "src/api/customers.ts"}, "result": "x", "success": true, "executionTimeMs": 3}),
    );
    let a = answer(&run("PostToolUse", &read));
    let text = a["contextModification"].as_str().unwrap();
    assert!(text.contains(API) && !text.contains(ALWAYS), "{a}");
    // Once per conversation: the same read again adds nothing.
    assert_eq!(run("PostToolUse", &read), "");
    let prompt = cline(
        &work,
        "UserPromptSubmit",
        json!({"prompt": "update the customer export", "attachments": []}),
    );
    let a = answer(&run("UserPromptSubmit", &prompt));
    assert!(
        a["contextModification"].as_str().unwrap().contains(DB),
        "{a}"
    );
    // An enforced rule refuses the write before it runs.
    let write = cline(
        &work,
        "PreToolUse",
        json!({"toolName": "write_to_file", "parameters": {"path": "gen/api.ts", "content": "x"}}),
    );
    let a = answer(&run("PreToolUse", &write));
    assert_eq!(a["cancel"], true, "{a}");
    assert!(a["errorMessage"].as_str().unwrap().contains(GEN), "{a}");
    // A shell line that writes there too.
    let shell = cline(
        &work,
        "PreToolUse",
        json!({"toolName": "execute_command", "parameters": {"command": "echo x > gen/b.ts", "requires_approval": "false"}}),
    );
    assert_eq!(answer(&run("PreToolUse", &shell))["cancel"], true);
    let ok = cline(
        &work,
        "PreToolUse",
        json!({"toolName": "write_to_file", "parameters": {"path": "src/a.ts", "content": "x"}}),
    );
    assert_eq!(run("PreToolUse", &ok), "");
}

#[test]
fn hook_install_for_cline_writes_a_script_per_event_that_cline_runs() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let (out, err, code) = hook_run(&work, &state, &["hook", "install", "--agent", "cline"], b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(".clinerules/hooks"), "{out}");
    let dir = work.join(".clinerules/hooks");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let want = [
        "PostToolUse",
        "PreCompact",
        "PreToolUse",
        "TaskResume",
        "TaskStart",
        "UserPromptSubmit",
    ];
    assert_eq!(names, want);
    // As Cline runs it: the file itself, the payload on stdin, in the workspace.
    use std::io::Write;
    let script = dir.join("PostToolUse");
    let mut child = std::process::Command::new(&script)
        .current_dir(&work)
        .env("WAVE_RULES_STATE_DIR", &state)
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{} does not run: {e}", script.display()));
    let read = cline(
        &work,
        "PostToolUse",
        json!({"toolName": "read_file", "parameters": {"path": "src/api/a.ts"}, "success": true}),
    );
    child.stdin.take().unwrap().write_all(&read).unwrap();
    let done = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&done.stdout);
    assert!(
        answer(&out)["contextModification"]
            .as_str()
            .unwrap()
            .contains(API),
        "{out}"
    );
    // Again: the same scripts. Uninstall: ours go, another hook stays.
    let (_, err, code) = hook_run(&work, &state, &["hook", "install", "--agent", "cline"], b"");
    assert_eq!(code, 0, "{err}");
    std::fs::write(dir.join("TaskComplete"), "#!/bin/sh\necho '{}'\n").unwrap();
    let (out, err, code) = hook_run(
        &work,
        &state,
        &["hook", "uninstall", "--agent", "cline"],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("removed 6"), "{out}");
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["TaskComplete"]);
}

#[test]
fn a_cline_hook_of_the_same_name_not_ours_is_an_error_naming_it_and_nothing_is_written() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let dir = work.join(".clinerules/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    let theirs = "#!/usr/bin/env bash\necho '{\"cancel\": false}'\n";
    std::fs::write(dir.join("PreToolUse"), theirs).unwrap();
    let (out, err, code) = hook_run(&work, &state, &["hook", "install", "--agent", "cline"], b"");
    assert_ne!(code, 0, "{out}");
    assert!(err.contains(".clinerules/hooks/PreToolUse"), "{err}");
    assert!(err.contains("left unchanged"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("PreToolUse")).unwrap(),
        theirs
    );
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(names.len(), 1, "nothing else written");
}
