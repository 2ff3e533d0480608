//! Kiro CLI's hooks through the real binary, from the payloads of Kiro's
//! CLI hooks docs (kiro.dev/docs/cli/hooks): `hook_event_name`, `cwd`,
//! `prompt`, `tool_name`, `tool_input` (`fs_read`'s `operations`),
//! `tool_response`. agentSpawn's and userPromptSubmit's stdout (plain text)
//! is added to the agent's context; exit 2 in preToolUse blocks the tool
//! with stderr as the reason. `hook install --agent kiro` writes the agent
//! `.kiro/agents/wave-rules.json`; a file not in the documented shape is an
//! error naming it, and stays as it was.

mod common;
use common::hook_run;
use serde_json::{json, Value};
use std::path::Path;

use common::dialect::{project, ALWAYS, DB, GEN};

/// A Kiro CLI hook event as its docs show it.
fn kiro(work: &Path, event: &str, more: Value) -> Vec<u8> {
    let mut v = json!({ "hook_event_name": event, "cwd": work });
    for (k, x) in more.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string().into_bytes()
}

#[test]
fn kiro_gets_rules_as_plain_stdout_at_spawn_and_prompt_and_a_refusal_as_exit_2() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let run = |event: &str, payload: &[u8]| {
        hook_run(&work, &state, &["hook", "--agent", "kiro", event], payload)
    };
    let (out, err, code) = run("SessionStart", &kiro(&work, "agentSpawn", json!({})));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(ALWAYS), "{out}");
    assert!(
        serde_json::from_str::<Value>(&out).is_err(),
        "plain text, not JSON: {out}"
    );
    // A read: Kiro gives postToolUse's stdout to no model, so nothing is
    // printed (the hook is not installed; path rules go to .kiro/steering).
    let read = kiro(
        &work,
        "postToolUse",
        json!({
            "tool_name": "fs_read",
            "tool_input": {"operations": [{"mode": "Line", "path": work.join("src/api/customers.ts")}]},
            "tool_response": {"success": true, "result": ["x"]},
        }),
    );
    let (out, err, code) = run("PostToolUse", &read);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    // The prompt's topic rule.
    let prompt = kiro(
        &work,
        "userPromptSubmit",
        json!({"prompt": "update the customer export"}),
    );
    let (out, err, code) = run("UserPromptSubmit", &prompt);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(DB), "{out}");
    assert!(!out.contains(ALWAYS), "given once: {out}");
    // An enforced rule refuses the write before it runs: exit 2, reason on stderr.
    let write = kiro(
        &work,
        "preToolUse",
        json!({"tool_name": "fs_write", "tool_input": {"command": "create", "path": work.join("gen/api.ts"), "file_text": "x"}}),
    );
    let (out, err, code) = run("PreToolUse", &write);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains(GEN), "{err}");
    let shell = kiro(
        &work,
        "preToolUse",
        json!({"tool_name": "execute_bash", "tool_input": {"command": "echo x > gen/b.ts"}}),
    );
    assert_eq!(run("PreToolUse", &shell).2, 2);
    let ok = kiro(
        &work,
        "preToolUse",
        json!({"tool_name": "write", "tool_input": {"command": "create", "path": "src/a.ts", "file_text": "x"}}),
    );
    assert_eq!(run("PreToolUse", &ok), (String::new(), String::new(), 0));
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn hook_install_for_kiro_writes_an_agent_whose_hooks_run_and_uninstall_takes_only_ours() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let install = ["hook", "install", "--agent", "kiro"];
    let (out, err, code) = hook_run(&work, &state, &install, b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("kiro-cli chat --agent wave-rules"), "{out}");
    let file = work.join(".kiro/agents/wave-rules.json");
    let doc = read_json(&file);
    assert_eq!(doc["name"], "wave-rules");
    assert_eq!(doc["tools"], json!(["*"]));
    let events: Vec<&String> = doc["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events, ["agentSpawn", "preToolUse", "userPromptSubmit"]);
    let entry = &doc["hooks"]["preToolUse"][0];
    assert_eq!(entry["timeout_ms"], 10_000);
    let command = entry["command"].as_str().unwrap();
    assert!(
        command.ends_with("hook --agent kiro PreToolUse"),
        "{command}"
    );
    // Again: nothing changes.
    let before = std::fs::read_to_string(&file).unwrap();
    let (out, _, code) = hook_run(&work, &state, &install, b"");
    assert_eq!(code, 0);
    assert!(out.contains("already"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // The command as Kiro runs it: a shell in the project, the event on stdin.
    let payload = kiro(
        &work,
        "preToolUse",
        json!({"tool_name": "fs_write", "tool_input": {"command": "create", "path": "gen/x.ts", "file_text": "x"}}),
    );
    let done = common::run_installed(command, &work, &state, &payload);
    assert_eq!(done.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&done.stderr).contains(GEN));
    // A hook of the user's own stays at uninstall, and so does the file.
    let mut doc = read_json(&file);
    doc["hooks"]["stop"] = json!([{"command": "npm test"}]);
    std::fs::write(&file, doc.to_string()).unwrap();
    let uninstall = ["hook", "uninstall", "--agent", "kiro"];
    let (out, err, code) = hook_run(&work, &state, &uninstall, b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("removed 3"), "{out}");
    let left = read_json(&file);
    assert_eq!(left["hooks"], json!({"stop": [{"command": "npm test"}]}));
    // Only ours: the file goes.
    hook_run(&work, &state, &install, b"");
    let mut doc = read_json(&file);
    doc["hooks"].as_object_mut().unwrap().remove("stop");
    std::fs::write(&file, doc.to_string()).unwrap();
    let (_, err, code) = hook_run(&work, &state, &uninstall, b"");
    assert_eq!(code, 0, "{err}");
    assert!(!file.exists());
}

#[test]
fn a_kiro_agent_file_not_in_its_documented_shape_is_an_error_naming_it_and_stays_as_it_was() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let file = work.join(".kiro/agents/wave-rules.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let cases = [
        ("{\"hooks\": [\"agentSpawn\"]}\n", "\"hooks\" in"),
        (
            "{\"hooks\": {\"preToolUse\": {\"command\": \"x\"}}}\n",
            "\"hooks.preToolUse\" in",
        ),
        ("{\"hooks\": {\n", "not valid JSON"),
        ("[1, 2]\n", "does not hold a JSON object"),
    ];
    for (text, problem) in cases {
        std::fs::write(&file, text).unwrap();
        let (out, err, code) =
            hook_run(&work, &state, &["hook", "install", "--agent", "kiro"], b"");
        assert_ne!(code, 0, "{text}: {out}");
        assert!(err.contains(problem), "{text}: {err}");
        assert!(
            err.contains(".kiro/agents/wave-rules.json"),
            "{text}: {err}"
        );
        assert!(err.contains("left unchanged"), "{text}: {err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
}

#[test]
fn hook_install_for_kiro_with_the_package_in_the_project_writes_a_command_safe_to_commit_that_runs()
{
    // A project below a git root, its path with a space: Kiro names no
    // project directory, so the command finds the bin from git's root.
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let work = repo.join("the app");
    std::fs::create_dir_all(work.join(".wave/rules")).unwrap();
    std::fs::write(
        work.join(".wave/rules/gen.md"),
        format!("---\npaths: gen/**\nenforce: block\n---\n{GEN}\n"),
    )
    .unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status();
    assert!(matches!(&git, Ok(s) if s.success()), "git init: {git:?}");
    std::fs::create_dir_all(work.join("node_modules/.bin")).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_wave-rules"),
        work.join("node_modules/.bin/wave-rules"),
    )
    .unwrap();
    let state = tmp.path().join("state");
    let install = ["hook", "install", "--agent", "kiro"];
    let (out, err, code) = hook_run(&work, &state, &install, b"");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("safe to commit: it names no path of this machine"),
        "{out}"
    );
    let doc = read_json(&work.join(".kiro/agents/wave-rules.json"));
    let command = doc["hooks"]["preToolUse"][0]["command"].as_str().unwrap();
    assert!(!command.contains(tmp.path().to_str().unwrap()), "{command}");
    let payload = kiro(
        &work,
        "preToolUse",
        json!({"tool_name": "fs_write", "tool_input": {"command": "create", "path": "gen/x.ts", "file_text": "x"}}),
    );
    let done = common::run_installed(command, &work, &state, &payload);
    assert_eq!(
        done.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(String::from_utf8_lossy(&done.stderr).contains(GEN));
}
