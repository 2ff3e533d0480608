//! The enforcement matrix at the hook: every agent's pre-tool hook payload
//! (as each pinned agent sends it, recorded; Cursor's as documented) x every
//! way of writing a file (its file tools and the shell forms) x `block` /
//! `warn`, and forbidden commands, through the real binary
//! (`wave-rules hook --agent NAME <event>`). A refusal is each agent's own
//! answer with the rule's text as the reason; `warn` and everything
//! ungoverned pass with nothing printed (the warning comes with the tool's
//! result, at the post-tool hook). A hook that fails never refuses.

mod common;
use common::*;
use serde_json::{json, Value};
use std::path::Path;

const GEN: &str = "Generated files are rebuilt by `npm run gen`.";
const DEPLOY: &str = "Production deploys go through CI.";

fn project(mode: &str) -> Tree {
    let t = Tree::made();
    t.project(
        "gen.md",
        &format!("---\npaths: gen/**\nenforce: {mode}\n---\n{GEN}\n"),
    );
    t.project(
        "deploy.md",
        &format!("---\ncommands: [\"*deploy.sh --prod*\", \"git push --force*\"]\nenforce: {mode}\n---\n{DEPLOY}\n"),
    );
    t.project("ts.md", "---\npaths: src/**\n---\nStrict TS.\n");
    t
}

/// A pre-tool payload of `agent` for a tool call, in that agent's shape.
fn payload(agent: &str, work: &Path, tool: &str, input: Value) -> Value {
    let cwd = work.to_string_lossy();
    match agent {
        "copilot" => {
            json!({"sessionId": "s1", "timestamp": 1, "cwd": cwd, "toolName": tool, "toolArgs": input})
        }
        "cursor" if tool == "beforeShellExecution" => {
            json!({"hook_event_name": "beforeShellExecution", "conversation_id": "c1", "generation_id": "g1", "workspace_roots": [cwd], "command": input["command"], "cwd": cwd})
        }
        "cursor" => {
            json!({"hook_event_name": "preToolUse", "conversation_id": "c1", "generation_id": "g1", "workspace_roots": [cwd], "tool_name": tool, "tool_input": input})
        }
        "gemini" => {
            json!({"session_id": "s1", "transcript_path": "", "cwd": cwd, "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z", "tool_name": tool, "tool_input": input})
        }
        _ => {
            json!({"session_id": "s1", "transcript_path": "/nowhere.jsonl", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "t1"})
        }
    }
}

/// The refusal's reason in the agent's answer, `None` when it lets the call run.
fn refusal(agent: &str, out: &str) -> Option<String> {
    if out.trim().is_empty() {
        return None;
    }
    let v: Value =
        serde_json::from_str(out).unwrap_or_else(|e| panic!("{agent}: not JSON ({e}): {out}"));
    let text = |v: &Value| v.as_str().map(str::to_string);
    match agent {
        "claude" | "codex" => {
            let h = &v["hookSpecificOutput"];
            assert_eq!(h["hookEventName"], "PreToolUse", "{out}");
            (h["permissionDecision"] == "deny")
                .then(|| text(&h["permissionDecisionReason"]))
                .flatten()
        }
        "gemini" => (v["decision"] == "deny")
            .then(|| text(&v["reason"]))
            .flatten(),
        "copilot" => (v["permissionDecision"] == "deny")
            .then(|| text(&v["permissionDecisionReason"]))
            .flatten(),
        "cursor" => (v["permission"] == "deny")
            .then(|| text(&v["agent_message"]))
            .flatten(),
        _ => unreachable!(),
    }
}

/// (agent, tool, input, what it writes or runs) for every write form each
/// agent has, then the shell forms through its shell tool.
fn cases() -> Vec<(&'static str, &'static str, Value, &'static str)> {
    let mut out = vec![
        (
            "claude",
            "Write",
            json!({"file_path": "gen/a.ts", "content": "x"}),
            "gen/a.ts",
        ),
        (
            "claude",
            "Edit",
            json!({"file_path": "gen/a.ts", "old_string": "a", "new_string": "b"}),
            "gen/a.ts",
        ),
        (
            "claude",
            "MultiEdit",
            json!({"file_path": "gen/a.ts", "edits": [{"old_string": "a", "new_string": "b"}]}),
            "gen/a.ts",
        ),
        (
            "claude",
            "NotebookEdit",
            json!({"notebook_path": "gen/a.ipynb", "new_source": "x"}),
            "gen/a.ipynb",
        ),
        (
            "codex",
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Add File: gen/a.ts\n+x\n*** End Patch\n"}),
            "gen/a.ts",
        ),
        (
            "codex",
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Update File: src/b.ts\n*** Move to: gen/b.ts\n@@\n-a\n+b\n*** End Patch\n"}),
            "gen/b.ts",
        ),
        (
            "gemini",
            "write_file",
            json!({"file_path": "gen/a.ts", "content": "x"}),
            "gen/a.ts",
        ),
        (
            "gemini",
            "replace",
            json!({"file_path": "gen/a.ts", "old_string": "a", "new_string": "b", "instruction": "x"}),
            "gen/a.ts",
        ),
        (
            "copilot",
            "create",
            json!({"path": "gen/a.ts", "file_text": "x"}),
            "gen/a.ts",
        ),
        (
            "copilot",
            "edit",
            json!({"path": "gen/a.ts", "old_str": "a", "new_str": "b"}),
            "gen/a.ts",
        ),
        (
            "cursor",
            "Write",
            json!({"file_path": "gen/a.ts", "contents": "x"}),
            "gen/a.ts",
        ),
        (
            "cursor",
            "StrReplace",
            json!({"file_path": "gen/a.ts", "old_string": "a", "new_string": "b"}),
            "gen/a.ts",
        ),
    ];
    let shells = [
        ("claude", "Bash"),
        ("codex", "Bash"),
        ("gemini", "run_shell_command"),
        ("copilot", "bash"),
        ("cursor", "beforeShellExecution"),
    ];
    let forms = [
        ("echo x > gen/a.ts", "gen/a.ts"),
        ("echo x >> gen/a.ts", "gen/a.ts"),
        ("echo x | tee gen/a.ts", "gen/a.ts"),
        ("cp src/b.ts gen/a.ts", "gen/a.ts"),
        ("mv src/b.ts gen/", "gen/b.ts"),
        ("sed -i 's/a/b/' gen/a.ts", "gen/a.ts"),
        ("cd gen && printf x > a.ts", "gen/a.ts"),
        ("rm gen/a.ts", "gen/a.ts"),
        ("sh deploy.sh --prod", "`sh deploy.sh --prod`"),
        (
            "npm test && git push --force origin main",
            "`git push --force origin main`",
        ),
    ];
    for (agent, tool) in shells {
        for (command, what) in forms {
            out.push((agent, tool, json!({"command": command}), what));
        }
    }
    out
}

#[test]
fn block_refuses_every_write_form_and_command_in_each_agents_own_answer() {
    let t = project("block");
    let state = t.workdir().join("state");
    let mut failures = Vec::new();
    for (agent, tool, input, what) in cases() {
        let p = payload(agent, &t.workdir(), tool, input.clone());
        // What `hook install --agent` writes for the agent's pre-tool hook.
        let args = ["hook", "--agent", agent, "PreToolUse"];
        let (out, err, code) = hook_run(&t.workdir(), &state, &args, p.to_string().as_bytes());
        let reason = refusal(agent, &out);
        let ok = code == 0
            && reason.as_deref().is_some_and(|r| {
                r.starts_with("Refused by the project's rules: ")
                    && r.contains(what)
                    && (r.contains(GEN) || r.contains(DEPLOY))
            });
        if !ok {
            failures.push(format!(
                "{agent} {tool} {input}: code {code}, answer {out:?}, stderr {err:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn warn_and_ungoverned_calls_run_with_nothing_said_before_them() {
    let t = project("warn");
    let state = t.workdir().join("state");
    let mut calls = cases();
    // Ungoverned: reads of guarded files, writes elsewhere, other commands.
    calls.push(("claude", "Read", json!({"file_path": "gen/a.ts"}), ""));
    calls.push((
        "claude",
        "Bash",
        json!({"command": "cat gen/a.ts && git push origin"}),
        "",
    ));
    calls.push((
        "gemini",
        "write_file",
        json!({"file_path": "src/a.ts", "content": "x"}),
        "",
    ));
    for (agent, tool, input, _) in calls {
        let p = payload(agent, &t.workdir(), tool, input.clone());
        // What `hook install --agent` writes for the agent's pre-tool hook.
        let args = ["hook", "--agent", agent, "PreToolUse"];
        let (out, err, code) = hook_run(&t.workdir(), &state, &args, p.to_string().as_bytes());
        assert_eq!(code, 0, "{agent} {tool} {input}: {err}");
        assert_eq!(refusal(agent, &out), None, "{agent} {tool} {input}: {out}");
    }
}

#[test]
fn the_warning_comes_with_the_tools_result_once_per_call() {
    let t = project("warn");
    let state = t.workdir().join("state");
    let post = json!({"session_id": "s1", "cwd": t.workdir(), "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "sh deploy.sh --prod"}, "tool_response": {}});
    for _ in 0..2 {
        let (out, err, code) = hook_run(
            &t.workdir(),
            &state,
            &["hook", "PostToolUse"],
            post.to_string().as_bytes(),
        );
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or("");
        assert!(text.contains("Allowed, with a warning from the project's rules about running `sh deploy.sh --prod`"), "{text}");
        assert!(text.contains(DEPLOY), "{text}");
    }
}

#[test]
fn a_hook_that_fails_never_refuses_and_says_why() {
    let t = project("block");
    let state = t.workdir().join("state");
    // Input it cannot read, a command over the parser's limits.
    let long = format!("echo {} > gen/a.ts", "x ".repeat(5000));
    let inputs: Vec<Vec<u8>> = vec![
        b"not json".to_vec(),
        b"[]".to_vec(),
        json!({"session_id": "s1", "cwd": t.workdir(), "tool_name": "Bash", "tool_input": {"command": long}}).to_string().into_bytes(),
    ];
    for input in inputs {
        let (out, err, code) = hook_run(&t.workdir(), &state, &["hook", "PreToolUse"], &input);
        assert_eq!((code, out.as_str()), (0, ""), "{err}");
        assert_eq!(err.lines().count(), 1, "one line says why: {err}");
    }
    // A broken rule beside the good ones.
    t.project("broken.md", "---\npaths: [gen/**\n---\nnever loaded\n");
    // The broken rule does not stop the others from refusing.
    let p = payload(
        "claude",
        &t.workdir(),
        "Write",
        json!({"file_path": "gen/a.ts", "content": "x"}),
    );
    let (out, _, code) = hook_run(
        &t.workdir(),
        &state,
        &["hook", "PreToolUse"],
        p.to_string().as_bytes(),
    );
    assert_eq!(code, 0);
    assert!(refusal("claude", &out).is_some(), "{out}");
    // A state directory it cannot write does not matter to a refusal (none is kept).
    let blocked = t.workdir().join("state-file");
    std::fs::write(&blocked, "").unwrap();
    let (out, _, code) = hook_run(
        &t.workdir(),
        &blocked,
        &["hook", "PreToolUse"],
        p.to_string().as_bytes(),
    );
    assert_eq!(code, 0);
    assert!(refusal("claude", &out).is_some(), "{out}");
}
