//! VS Code's agent hooks (Local harness) through the real binary, from the
//! payloads of its docs (code.visualstudio.com/docs/agent-customization/hooks,
//! .../docs/agents/reference/hooks-reference): the common fields
//! (`timestamp`, `cwd`, `sessionId`, `hookEventName`, `transcript_path`)
//! and each event's; the answer is `hookSpecificOutput`. `hook install
//! --agent vscode` writes `.github/hooks/wave-rules-vscode.json`; a file not
//! in the documented shape is an error naming it, and stays as it was.

mod common;
use common::hook_run;
use serde_json::{json, Value};
use std::path::Path;

use common::dialect::{project, ALWAYS, API, DB, GEN};

/// A VS Code hook payload as its docs show it: the common fields and the event's.
fn vscode(work: &Path, event: &str, more: Value) -> Vec<u8> {
    let mut v = json!({
        "timestamp": "2026-02-09T10:30:00.000Z",
        "cwd": work,
        "sessionId": "session-1",
        "hookEventName": event,
        "transcript_path": work.join("no-transcript.json"),
    });
    for (k, x) in more.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string().into_bytes()
}

fn answer(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

#[test]
fn vscode_local_harness_gets_each_rule_once_as_additional_context_and_a_refusal_as_deny() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let run = |event: &str, payload: &[u8]| {
        let (out, err, code) = hook_run(
            &work,
            &state,
            &["hook", "--agent", "vscode", event],
            payload,
        );
        assert_eq!(code, 0, "{event}: {err}");
        out
    };
    let a = answer(&run(
        "SessionStart",
        &vscode(&work, "SessionStart", json!({"source": "new"})),
    ));
    assert_eq!(a["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let text = a["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.contains(ALWAYS), "{a}");
    let read = vscode(
        &work,
        "PostToolUse",
        json!({"tool_name": "readFile", "tool_input": {"filePath": work.join("src/api/customers.ts")}, "tool_use_id": "tool-1", "tool_response": "x"}),
    );
    let a = answer(&run("PostToolUse", &read));
    assert_eq!(a["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let text = a["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.contains(API) && !text.contains(ALWAYS), "{a}");
    // Once per conversation: the same read again adds nothing.
    assert_eq!(run("PostToolUse", &read), "");
    // UserPromptSubmit reads the common output only: nothing for the model.
    let prompt = vscode(
        &work,
        "UserPromptSubmit",
        json!({"prompt": "update the customer export"}),
    );
    assert_eq!(
        run("UserPromptSubmit", &prompt),
        "",
        "the topic rule ({DB}) has no way to this harness's model"
    );
    // An enforced rule refuses the edit before it runs, the docs' editFiles.
    let edit = vscode(
        &work,
        "PreToolUse",
        json!({"tool_name": "editFiles", "tool_input": {"files": ["gen/api.ts"]}, "tool_use_id": "tool-2"}),
    );
    let a = answer(&run("PreToolUse", &edit));
    let h = &a["hookSpecificOutput"];
    assert_eq!(h["permissionDecision"], "deny", "{a}");
    assert!(h["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .contains(GEN));
    assert!(h["additionalContext"].as_str().unwrap().contains(GEN));
    let shell = vscode(
        &work,
        "PreToolUse",
        json!({"tool_name": "runInTerminal", "tool_input": {"command": "echo x > gen/b.ts"}, "tool_use_id": "tool-3"}),
    );
    let a = answer(&run("PreToolUse", &shell));
    assert_eq!(a["hookSpecificOutput"]["permissionDecision"], "deny");
    let ok = vscode(
        &work,
        "PreToolUse",
        json!({"tool_name": "editFiles", "tool_input": {"files": ["src/a.ts"]}, "tool_use_id": "tool-4"}),
    );
    assert_eq!(run("PreToolUse", &ok), "");
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn hook_install_for_vscode_writes_its_hooks_file_whose_commands_run_and_uninstall_takes_only_ours()
{
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let install = ["hook", "install", "--agent", "vscode"];
    let (out, err, code) = hook_run(&work, &state, &install, b"");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("--agent copilot"),
        "which agent per harness: {out}"
    );
    let file = work.join(".github/hooks/wave-rules-vscode.json");
    let doc = read_json(&file);
    let events: Vec<&String> = doc["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "PostToolUse",
            "PreCompact",
            "PreToolUse",
            "SessionStart",
            "Stop"
        ]
    );
    let entry = &doc["hooks"]["PostToolUse"][0];
    assert_eq!(
        (&entry["type"], &entry["timeout"]),
        (&json!("command"), &json!(10))
    );
    let command = entry["command"].as_str().unwrap();
    assert!(
        command.ends_with("hook --agent vscode PostToolUse"),
        "{command}"
    );
    let before = std::fs::read_to_string(&file).unwrap();
    let (out, _, code) = hook_run(&work, &state, &install, b"");
    assert_eq!(code, 0);
    assert!(out.contains("already"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // The command as VS Code runs it: a shell in the workspace, JSON on stdin.
    let read = vscode(
        &work,
        "PostToolUse",
        json!({"tool_name": "readFile", "tool_input": {"filePath": "src/api/a.ts"}, "tool_response": "x"}),
    );
    let done = common::run_installed(command, &work, &state, &read);
    let out = String::from_utf8_lossy(&done.stdout);
    let text = answer(&out)["hookSpecificOutput"]["additionalContext"].clone();
    assert!(text.as_str().unwrap().contains(API), "{out}");
    // Another hook of the user's in the same file stays at uninstall.
    let mut doc = read_json(&file);
    doc["hooks"]["PostToolUse"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "command", "command": "npx prettier --write ."}));
    std::fs::write(&file, doc.to_string()).unwrap();
    let uninstall = ["hook", "uninstall", "--agent", "vscode"];
    let (out, err, code) = hook_run(&work, &state, &uninstall, b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("removed 5"), "{out}");
    assert_eq!(
        read_json(&file)["hooks"],
        json!({"PostToolUse": [{"type": "command", "command": "npx prettier --write ."}]})
    );
    // Only ours: the file goes.
    std::fs::remove_file(&file).unwrap();
    hook_run(&work, &state, &install, b"");
    let (_, err, code) = hook_run(&work, &state, &uninstall, b"");
    assert_eq!(code, 0, "{err}");
    assert!(!file.exists());
}

#[test]
fn a_vscode_hooks_file_not_in_its_documented_shape_is_an_error_naming_it_and_stays_as_it_was() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let file = work.join(".github/hooks/wave-rules-vscode.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let cases = [
        ("{\"hooks\": [\"PreToolUse\"]}\n", "\"hooks\" in"),
        (
            "{\"hooks\": {\"PreToolUse\": {\"command\": \"x\"}}}\n",
            "\"hooks.PreToolUse\" in",
        ),
        ("{\"hooks\": {\n", "not valid JSON"),
        ("[1, 2]\n", "does not hold a JSON object"),
    ];
    for (text, problem) in cases {
        std::fs::write(&file, text).unwrap();
        let (out, err, code) = hook_run(
            &work,
            &state,
            &["hook", "install", "--agent", "vscode"],
            b"",
        );
        assert_ne!(code, 0, "{text}: {out}");
        assert!(err.contains(problem), "{text}: {err}");
        assert!(
            err.contains(".github/hooks/wave-rules-vscode.json"),
            "{text}: {err}"
        );
        assert!(err.contains("left unchanged"), "{text}: {err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
}
