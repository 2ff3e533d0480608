//! Every agent's hook dialect through the real binary: the payloads each
//! agent sends (Codex, Gemini CLI, Copilot CLI native, Cursor, Qwen Code), what comes
//! back, what the session marks delivered, and `hook install --agent`.

mod common;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn wave(work: &Path, state: &Path, args: &[&str], input: &[u8]) -> (String, String, i32) {
    common::hook_run(work, state, args, input)
}

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(work.join(".wave/rules")).unwrap();
    std::fs::create_dir_all(work.join("src/api")).unwrap();
    std::fs::write(
        work.join(".wave/rules/api.md"),
        "---\npaths: src/api/**\n---\nAPI handlers validate input.\n",
    )
    .unwrap();
    std::fs::write(
        work.join(".wave/rules/db.md"),
        "---\ntopics: [customer]\n---\nThe customer table is read-only.\n",
    )
    .unwrap();
    (tmp, work)
}

const API: &str = "API handlers validate input.";

#[test]
fn each_agent_gets_path_rules_in_its_own_answer_once() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let file = work.join("src/api/customers.ts");
    let file = file.to_str().unwrap();
    let w = work.to_str().unwrap();
    // (agent, payload of a read, where the context is in the answer)
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "codex",
            json!({"session_id":"cx","cwd":w,"tool_name":"Bash","tool_input":{"command":"sed -n 1,40p src/api/customers.ts"}}),
            "PostToolUse",
        ),
        (
            "codex",
            json!({"session_id":"cx2","cwd":w,"tool_name":"apply_patch","tool_input":{"input":"*** Begin Patch\n*** Add File: src/api/new.ts\n+x\n*** End Patch"}}),
            "PostToolUse",
        ),
        // Codex started in a subdirectory: its `cwd` is that directory, and
        // the rules are the project's (found above it).
        (
            "codex",
            json!({"session_id":"cx3","cwd":format!("{w}/src"),"tool_name":"Bash","tool_input":{"command":"cat api/customers.ts"}}),
            "PostToolUse",
        ),
        (
            "gemini",
            json!({"session_id":"gm","cwd":w,"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":file}}),
            "AfterTool",
        ),
        (
            "gemini",
            json!({"session_id":"gm2","cwd":w,"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"cat src/api/customers.ts"}}),
            "AfterTool",
        ),
        (
            "qwen",
            json!({"session_id":"qw","cwd":w,"hook_event_name":"PostToolUse","tool_name":"read_file","tool_input":{"file_path":file}}),
            "PostToolUse",
        ),
        (
            "qwen",
            json!({"session_id":"qw2","cwd":w,"hook_event_name":"PostToolUse","tool_name":"run_shell_command","tool_input":{"command":"cat src/api/customers.ts"}}),
            "PostToolUse",
        ), // VS Code's Local harness: its docs' common fields (`sessionId`).
        (
            "vscode",
            json!({"timestamp":"2026-02-09T10:30:00.000Z","sessionId":"vs","cwd":w,"hookEventName":"PostToolUse","transcript_path":"/nowhere","tool_name":"readFile","tool_input":{"filePath":file},"tool_use_id":"t1","tool_response":"x"}),
            "PostToolUse",
        ),
        (
            "vscode",
            json!({"timestamp":"2026-02-09T10:30:00.000Z","sessionId":"vs2","cwd":w,"hookEventName":"PostToolUse","tool_name":"runInTerminal","tool_input":{"command":"cat src/api/customers.ts"},"tool_use_id":"t2","tool_response":"x"}),
            "PostToolUse",
        ),
    ];
    for (agent, payload, event) in cases {
        let args = ["hook", "--agent", agent, "PostToolUse"];
        let (out, err, code) = wave(&work, &state, &args, payload.to_string().as_bytes());
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out)
            .unwrap_or_else(|_| panic!("{agent} {payload}: {out:?} {err}"));
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
        assert!(v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains(API));
        // Once per session.
        let (again, _, _) = wave(&work, &state, &args, payload.to_string().as_bytes());
        assert_eq!(again, "", "{agent}: given twice");
    }
}

#[test]
fn where_the_hook_output_does_not_reach_the_model_the_rules_stay_due() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let w = work.to_str().unwrap();
    // Cursor: beforeReadFile cannot add context; the session learns the
    // file, nothing is marked delivered.
    let cursor_read = json!({"conversation_id":"cu","workspace_roots":[w],"hook_event_name":"beforeReadFile","file_path":"src/api/customers.ts"});
    let args = ["hook", "--agent", "cursor", "PostToolUse"];
    for _ in 0..2 {
        let (out, err, code) = wave(&work, &state, &args, cursor_read.to_string().as_bytes());
        assert_eq!((out.as_str(), code), ("", 0), "{err}");
    }
    let session: Value = json_files(&state)
        .into_iter()
        .find(|v| v.get("files").is_some())
        .expect("the session state was written");
    let nothing = match &session["delivered"] {
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    assert!(nothing, "nothing marked delivered: {session}");
    assert_eq!(
        session["files"],
        json!(["src/api/customers.ts"]),
        "{session}"
    );
    // Its stop is the one route: a follow-up message.
    let stop = json!({"conversation_id":"cu2","workspace_roots":[w],"hook_event_name":"stop","status":"completed"});
    let (out, _, code) = wave(
        &work,
        &state,
        &["hook", "--agent", "cursor", "Stop"],
        stop.to_string().as_bytes(),
    );
    assert_eq!(
        (out.as_str(), code),
        ("", 0),
        "no sticky rule, no follow-up"
    );
}

/// The agents' hook files, where each keeps its list of one event.
const AGENT_FILES: [(&str, &str, &str); 6] = [
    ("codex", ".codex/hooks.json", "PostToolUse"),
    ("gemini", ".gemini/settings.json", "AfterTool"),
    ("copilot", ".github/hooks/wave-rules.json", "postToolUse"),
    ("cursor", ".cursor/hooks.json", "beforeReadFile"),
    ("qwen", ".qwen/settings.json", "PostToolUse"),
    (
        "vscode",
        ".github/hooks/wave-rules-vscode.json",
        "PostToolUse",
    ),
];

/// Every command of `doc.hooks` (Claude's groups and the flat lists).
fn hook_commands(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for list in doc["hooks"]
        .as_object()
        .into_iter()
        .flat_map(|o| o.values())
    {
        for item in list.as_array().into_iter().flatten() {
            let hooks = item["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![item.clone()]);
            for h in hooks {
                if let Some(c) = h["command"].as_str().or(h["bash"].as_str()) {
                    out.push(c.to_string());
                }
            }
        }
    }
    out
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs an installed hook command as `agent` runs it: its shell, its
/// directory, its variables (Gemini CLI also replaces `$GEMINI_PROJECT_DIR`
/// in the text with the directory, shell-quoted). Codex runs it in the
/// session's directory, here a subdirectory of the project.
fn run_as_agent(agent: &str, command: &str, work: &Path, input: &[u8]) -> (String, String, i32) {
    use std::io::Write;
    let w = work.to_str().unwrap();
    let quoted = format!("'{}'", w.replace('\'', r"'\''"));
    let (shell, flag, dir, command, vars): (&str, &str, PathBuf, String, Vec<(&str, &str)>) =
        match agent {
            "codex" => ("sh", "-lc", work.join("src/api"), command.into(), vec![]),
            "gemini" => (
                "bash",
                "-c",
                work.into(),
                command.replace("$GEMINI_PROJECT_DIR", &quoted),
                vec![("GEMINI_PROJECT_DIR", w), ("CLAUDE_PROJECT_DIR", w)],
            ),
            "copilot" => ("bash", "-c", work.into(), command.into(), vec![]),
            // Qwen Code sets all three and passes a bash command unchanged.
            "qwen" => (
                "bash",
                "-c",
                work.into(),
                command.into(),
                vec![
                    ("QWEN_PROJECT_DIR", w),
                    ("CLAUDE_PROJECT_DIR", w),
                    ("GEMINI_PROJECT_DIR", w),
                ],
            ),
            _ => (
                "sh",
                "-c",
                work.into(),
                command.into(),
                vec![("CURSOR_PROJECT_DIR", w)],
            ),
        };
    let mut child = std::process::Command::new(shell)
        .arg(flag)
        .arg(&command)
        .current_dir(dir)
        .envs(vars)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env("WAVE_RULES_STATE_DIR", work.join("no-home/state"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A command that does not run closes stdin unread: its exit says so.
    let _ = child.stdin.take().unwrap().write_all(input);
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A read of `src/api/customers.ts` in each agent's payload.
fn read_payload(agent: &str, w: &str) -> Value {
    let file = format!("{w}/src/api/customers.ts");
    match agent {
        "codex" => tool_payload(agent, "inst-codex", w, "Bash", "cat src/api/customers.ts"),
        "gemini" => tool_payload(agent, "inst-gemini", w, "read_file", &file),
        "copilot" => tool_payload(agent, "inst-copilot", w, "view", &file),
        "qwen" => tool_payload(agent, "inst-qwen", w, "read_file", &file),
        "vscode" => tool_payload(agent, "inst-vscode", w, "readFile", &file),
        _ => tool_payload(agent, "inst-cursor", w, "beforeReadFile", &file),
    }
}

#[test]
fn a_compaction_event_prints_nothing_and_the_rules_come_at_the_next_event_that_reaches_the_model() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let w = work.to_str().unwrap();
    let hook = |agent: &str, event: &str, payload: Value| {
        let (out, err, code) = wave(
            &work,
            &state,
            &["hook", "--agent", agent, event],
            payload.to_string().as_bytes(),
        );
        assert_eq!(code, 0, "{err}");
        out
    };
    // Gemini CLI: PreCompress fires before every model turn, compressing or
    // not: by itself it changes nothing. A prompt smaller than the last one
    // its hooks saw (in the transcript) is the compaction.
    let transcript = tmp.path().join("gemini.jsonl");
    let t = transcript.to_str().unwrap();
    let read = json!({"session_id":"g","cwd":w,"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"src/api/customers.ts"},"transcript_path":t});
    let prompt = json!({"session_id":"g","cwd":w,"hook_event_name":"BeforeAgent","prompt":"go on","transcript_path":t});
    let pre = json!({"session_id":"g","cwd":w,"hook_event_name":"PreCompress","trigger":"auto","transcript_path":t});
    std::fs::write(&transcript, gemini_transcript(10)).unwrap();
    assert!(hook("gemini", "PostToolUse", read.clone()).contains(API));
    for tokens in [10, 600_000] {
        std::fs::write(&transcript, gemini_transcript(tokens)).unwrap();
        assert_eq!(hook("gemini", "PreCompact", pre.clone()), "");
        assert_eq!(hook("gemini", "UserPromptSubmit", prompt.clone()), "");
    }
    // A transcript cut mid-line (or gone) tells nothing.
    std::fs::write(&transcript, "{\"type\":\"gemini\",\"tokens\":{\"inp").unwrap();
    assert_eq!(hook("gemini", "UserPromptSubmit", prompt.clone()), "");
    std::fs::write(&transcript, gemini_transcript(1_200)).unwrap();
    let again: Value =
        serde_json::from_str(&hook("gemini", "UserPromptSubmit", prompt.clone())).unwrap();
    assert_eq!(again["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
    assert_eq!(
        again["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .matches(API)
            .count(),
        1
    );
    assert_eq!(hook("gemini", "UserPromptSubmit", prompt), "");
    assert_eq!(hook("gemini", "PostToolUse", read), "");
    // Copilot CLI: preCompact, then the next postToolUse (of another file) brings it.
    let view = |path: &str| json!({"sessionId":"c","timestamp":1,"cwd":w,"toolName":"view","toolArgs":{"path":path}});
    assert!(hook("copilot", "PostToolUse", view("src/api/customers.ts")).contains(API));
    let pre = json!({"sessionId":"c","timestamp":2,"cwd":w,"transcriptPath":"/nowhere","trigger":"auto","customInstructions":""});
    assert_eq!(hook("copilot", "PreCompact", pre), "");
    let next: Value =
        serde_json::from_str(&hook("copilot", "PostToolUse", view("README.md"))).unwrap();
    assert_eq!(
        next["additionalContext"]
            .as_str()
            .unwrap()
            .matches(API)
            .count(),
        1
    );
    assert_eq!(
        hook("copilot", "PostToolUse", view("src/api/customers.ts")),
        ""
    );
}

#[test]
fn hook_install_with_the_package_in_the_project_writes_a_command_each_agent_runs_from_its_own_directory(
) {
    // A project below a git root, its path with a space: the written command
    // must find the bin from the agent's directory, quoting included.
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let work = repo.join("the app");
    std::fs::create_dir_all(work.join(".wave/rules")).unwrap();
    std::fs::create_dir_all(work.join("src/api")).unwrap();
    std::fs::write(
        work.join(".wave/rules/api.md"),
        "---\npaths: src/api/**\n---\nAPI handlers validate input.\n",
    )
    .unwrap();
    std::fs::write(work.join("src/api/customers.ts"), "export const c = 1\n").unwrap();
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
    let w = work.to_str().unwrap();
    for (agent, file, event) in AGENT_FILES {
        let (out, err, code) = wave(&work, &state, &["hook", "install", "--agent", agent], b"");
        assert_eq!(code, 0, "{agent}: {err}");
        assert!(
            out.contains("safe to commit: it names no path of this machine"),
            "{agent}: {out}"
        );
        let doc = read_json(&work.join(file));
        let text = doc.to_string();
        assert!(
            !text.contains(tmp.path().to_str().unwrap()),
            "{agent}: a machine path in {file}: {text}"
        );
        assert!(doc["hooks"][event].is_array(), "{agent}: {text}");
        let commands = hook_commands(&doc);
        // One of ours in each of the agent's events, and nothing else.
        for (theirs, list) in doc["hooks"].as_object().unwrap() {
            let ours = hook_commands(&json!({ "hooks": { theirs: list } }));
            assert_eq!(ours.len(), 1, "{agent} {theirs}: {text}");
        }
        assert!(commands.len() >= 4, "{agent}: {text}");
        assert!(
            out.contains(&format!(
                "command: {}",
                commands[0].rsplit_once(" hook --agent").unwrap().0
            )),
            "{out}"
        );
        let post = commands
            .iter()
            .find(|c| c.ends_with(&format!("hook --agent {agent} PostToolUse")))
            .unwrap();
        let input = read_payload(agent, w).to_string();
        let (stdout, stderr, code) = run_as_agent(agent, post, &work, input.as_bytes());
        assert_eq!(
            (code, stderr.as_str()),
            (0, ""),
            "{agent}: `{post}` did not run: {stdout}"
        );
        if agent == "cursor" {
            // Cursor gives no context there; the session still records the file.
            assert_eq!(stdout, "", "{agent}");
        } else {
            assert!(stdout.contains(API), "{agent}: `{post}` answered {stdout}");
        }
    }
}

#[test]
fn hook_install_without_the_package_in_the_project_names_this_program_and_says_not_to_commit() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_wave-rules")).unwrap();
    for (agent, file, _) in AGENT_FILES {
        let (out, err, code) = wave(&work, &state, &["hook", "install", "--agent", agent], b"");
        assert_eq!(code, 0, "{agent}: {err}");
        assert!(out.contains("NOT safe to commit"), "{agent}: {out}");
        assert!(
            out.contains("npm install -D wave-memory-rules"),
            "{agent}: {out}"
        );
        for c in hook_commands(&read_json(&work.join(file))) {
            assert!(
                c.starts_with(&format!("{} hook --agent {agent} ", exe.display())),
                "{agent}: {c}"
            );
        }
    }
}

#[test]
fn hook_install_with_a_command_writes_it_as_given() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    for (agent, file, _) in AGENT_FILES {
        let args = [
            "hook",
            "install",
            "--agent",
            agent,
            "--command",
            "my-wrapper wave-rules",
        ];
        let (out, err, code) = wave(&work, &state, &args, b"");
        assert_eq!(code, 0, "{agent}: {err}");
        assert!(
            out.contains("safe to commit: the command given"),
            "{agent}: {out}"
        );
        let commands = hook_commands(&read_json(&work.join(file)));
        assert!(!commands.is_empty());
        for c in commands {
            assert!(
                c.starts_with(&format!("my-wrapper wave-rules hook --agent {agent} ")),
                "{c}"
            );
        }
    }
}

#[test]
fn hook_reinstall_replaces_only_our_entries_and_uninstall_removes_only_them() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    // Another tool's hook, and ours as an older release wrote it.
    let foreign = json!({"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"my-linter"}]}]}});
    let mut old = foreign.clone();
    old["hooks"]["Stop"] = json!([{"hooks":[{"type":"command","command":"npx --no-install wave-rules hook --agent codex Stop","timeout":10}]}]);
    std::fs::create_dir_all(work.join(".codex")).unwrap();
    std::fs::write(work.join(".codex/hooks.json"), old.to_string()).unwrap();
    for (agent, file, _) in AGENT_FILES {
        // This machine's program first, then the project's bin: one set of ours.
        let (_, err, code) = wave(&work, &state, &["hook", "install", "--agent", agent], b"");
        assert_eq!(code, 0, "{agent}: {err}");
        let ours_of = |text: &str| {
            hook_commands(&serde_json::from_str(text).unwrap())
                .into_iter()
                .filter(|c| c.contains("wave-rules"))
                .collect::<Vec<_>>()
        };
        let first = ours_of(&std::fs::read_to_string(work.join(file)).unwrap());
        assert!(first.len() >= 4, "{agent}: {first:?}");
        if agent == "codex" {
            std::fs::create_dir_all(work.join("node_modules/.bin")).unwrap();
            std::os::unix::fs::symlink(
                env!("CARGO_BIN_EXE_wave-rules"),
                work.join("node_modules/.bin/wave-rules"),
            )
            .unwrap();
        }
        let (_, err, code) = wave(&work, &state, &["hook", "install", "--agent", agent], b"");
        assert_eq!(code, 0, "{agent}: {err}");
        let text = std::fs::read_to_string(work.join(file)).unwrap();
        let ours = ours_of(&text);
        assert_eq!(ours.len(), first.len(), "{agent}: {text}");
        assert!(
            ours.iter()
                .all(|c| c.contains("node_modules/.bin/wave-rules hook --agent")),
            "{agent}: {text}"
        );
        // Idempotent.
        let (again, _, _) = wave(&work, &state, &["hook", "install", "--agent", agent], b"");
        assert!(again.contains("already"), "{again}");
        assert_eq!(std::fs::read_to_string(work.join(file)).unwrap(), text);
    }
    let codex = read_json(&work.join(".codex/hooks.json"));
    assert_eq!(
        codex["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "my-linter"
    );
    let (out, _, code) = wave(
        &work,
        &state,
        &["hook", "uninstall", "--agent", "codex"],
        b"",
    );
    assert_eq!(code, 0);
    // SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SubagentStart, SubagentStop.
    assert!(out.contains("removed 7"), "{out}");
    assert_eq!(read_json(&work.join(".codex/hooks.json")), foreign);
    let (_, _, code) = wave(
        &work,
        &state,
        &["hook", "uninstall", "--agent", "copilot"],
        b"",
    );
    assert_eq!(code, 0);
    assert!(!work.join(".github/hooks/wave-rules.json").exists());
}

#[test]
fn every_install_edits_a_settings_file_with_comments_in_place_and_uninstall_gives_its_bytes_back() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    // Gemini CLI reads JSON with comments; hooks and MCP share this file.
    let text = "{\n  // my theme\n  \"ui\": { \"theme\": \"dark\" },\n  /* tools */ \"tools\": { \"sandbox\": false }\n}\n";
    let file = work.join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    let claude = work.join(".claude/settings.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    let claude_text = "{\n  // keep\n  \"permissions\": { \"allow\": [] }\n}\n";
    std::fs::write(&claude, claude_text).unwrap();
    for args in [
        &["hook", "install", "--agent", "gemini"][..],
        &["mcp", "install", "--client", "gemini"][..],
        // A command as given is portable: Claude Code's shared file.
        &[
            "hook",
            "install",
            "--command",
            "npx --no-install wave-rules",
        ][..],
    ] {
        let (out, err, code) = wave(&work, &state, args, b"");
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    }
    let edited = std::fs::read_to_string(&file).unwrap();
    assert!(edited.starts_with("{\n  // my theme\n  \"ui\": { \"theme\": \"dark\" },\n  /* tools */ \"tools\": { \"sandbox\": false },"), "{edited}");
    assert!(
        edited.contains("hook --agent gemini PostToolUse") && edited.contains("\"mcpServers\""),
        "{edited}"
    );
    let edited = std::fs::read_to_string(&claude).unwrap();
    assert!(
        edited.starts_with("{\n  // keep\n  \"permissions\": { \"allow\": [] },"),
        "{edited}"
    );
    for args in [
        &["hook", "uninstall", "--agent", "gemini"][..],
        &["mcp", "uninstall", "--client", "gemini"][..],
        &["hook", "uninstall"][..],
    ] {
        let (out, err, code) = wave(&work, &state, args, b"");
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    assert_eq!(std::fs::read_to_string(&claude).unwrap(), claude_text);
    // Not JSON: named with its line and column, and left as it is.
    std::fs::write(&file, "{\n  \"ui\": ,\n}").unwrap();
    let (_, err, code) = wave(
        &work,
        &state,
        &["hook", "install", "--agent", "gemini"],
        b"",
    );
    assert_ne!(code, 0);
    assert!(
        err.contains(".gemini/settings.json:2:9: not valid JSON"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{\n  \"ui\": ,\n}");
}

/// Every JSON file under `dir`, parsed.
fn json_files(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(json_files(&path));
        } else if let Ok(v) = serde_json::from_slice(&std::fs::read(&path).unwrap_or_default()) {
            out.push(v);
        }
    }
    out
}

/// The shell forms of the access-method matrix: each reads or writes
/// `src/api/customers.ts`.
const SHELL_FORMS: &[(&str, &str)] = &[
    ("cat", "cat src/api/customers.ts"),
    ("head", "head -n 20 src/api/customers.ts"),
    ("tail", "tail -n 5 src/api/customers.ts"),
    ("less", "less src/api/customers.ts"),
    ("sed", "sed -n '1,80p' src/api/customers.ts"),
    ("awk", "awk '{print NR\": \"$0}' src/api/customers.ts"),
    ("grep", "grep -n export src/api/customers.ts"),
    ("rg", "rg -n export src/api/customers.ts"),
    ("git show", "git show HEAD:src/api/customers.ts"),
    ("git diff", "git diff -- src/api/customers.ts"),
    ("git blame", "git blame src/api/customers.ts"),
    ("diff", "diff src/api/customers.ts src/a.ts"),
    ("> redirect", "echo x > src/api/customers.ts"),
    (">> redirect", "echo x >> src/api/customers.ts"),
    ("tee", "echo x | tee src/api/customers.ts"),
    ("cp target", "cp src/a.ts src/api/customers.ts"),
    ("mv target", "mv src/b.ts src/api/customers.ts"),
    ("pipeline", "cat src/api/customers.ts | wc -l"),
    ("&& list", "cd src && cat api/customers.ts"),
    ("subshell", "(cat src/api/customers.ts)"),
];

/// One agent's payload for a file tool or a shell command.
fn tool_payload(agent: &str, session: &str, w: &str, tool: &str, arg: &str) -> Value {
    match agent {
        "copilot" => {
            let args = if tool == "bash" {
                json!({ "command": arg })
            } else {
                json!({ "path": arg })
            };
            json!({"sessionId": session, "timestamp": 1, "cwd": w, "toolName": tool, "toolArgs": args})
        }
        "cursor" => {
            let key = if tool == "shell" {
                "command"
            } else {
                "file_path"
            };
            json!({"conversation_id": session, "workspace_roots": [w], "hook_event_name": tool, key: arg})
        }
        _ => {
            let input = match tool {
                "Bash" | "shell" | "run_shell_command" => json!({ "command": arg }),
                "NotebookEdit" => json!({ "notebook_path": arg }),
                "apply_patch" => {
                    json!({ "input": format!("*** Begin Patch\n*** Update File: {arg}\n*** End Patch") })
                }
                "read_many_files" => json!({ "paths": [arg] }),
                _ => json!({ "file_path": arg }),
            };
            json!({"session_id": session, "cwd": w, "tool_name": tool, "tool_input": input})
        }
    }
}

/// A Gemini CLI transcript whose latest model answer saw a prompt of
/// `tokens` (the records it writes: a header, the user's message, the answer).
fn gemini_transcript(tokens: u64) -> String {
    [
        json!({"sessionId":"g","kind":"main"}),
        json!({"id":"u","type":"user","content":[{"text":"go on"}]}),
        json!({"id":"m","type":"gemini","content":"","tokens":{"input":tokens,"output":5,"total":tokens + 5},"model":"gemini-2.5-pro"}),
        json!({"$set":{"lastUpdated":"2026-11-23T18:22:26.279Z"}}),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect()
}

/// How an agent tells its hooks of a compaction: the payloads, each sent to
/// our hook event (Gemini CLI's with its transcript as it is then); the rules
/// come again in the last one's answer.
fn compaction_events(
    agent: &str,
    session: &str,
    w: &str,
    dir: &Path,
) -> Vec<(&'static str, Value, Option<String>)> {
    let transcript = dir.join(format!("{session}.jsonl"));
    let t = transcript.to_str().unwrap();
    match agent {
        // SessionStart `source: "compact"` after the compaction (Codex: after
        // PreCompact and PostCompact, which are not installed).
        "claude" | "codex" => vec![(
            "SessionStart",
            json!({"session_id": session, "cwd": w, "source": "compact"}),
            None,
        )],
        // PreCompress sees the prompt that makes it compress; the next
        // prompt's BeforeAgent sees a smaller one.
        "gemini" => vec![
            (
                "PreCompact",
                json!({"session_id": session, "cwd": w, "hook_event_name": "PreCompress", "trigger": "auto", "transcript_path": t}),
                Some(gemini_transcript(600_000)),
            ),
            (
                "UserPromptSubmit",
                json!({"session_id": session, "cwd": w, "hook_event_name": "BeforeAgent", "prompt": "go on", "transcript_path": t}),
                Some(gemini_transcript(1_200)),
            ),
        ],
        // preCompact, then the next userPromptSubmitted.
        "copilot" => vec![
            (
                "PreCompact",
                json!({"sessionId": session, "timestamp": 2, "cwd": w, "trigger": "auto", "customInstructions": ""}),
                None,
            ),
            (
                "UserPromptSubmit",
                json!({"sessionId": session, "timestamp": 3, "cwd": w, "prompt": "go on"}),
                None,
            ),
        ],
        _ => Vec::new(),
    }
}

/// Every agent x every file tool it has and every shell form: the path rule
/// comes exactly once per session, and again (once) after a compaction.
#[test]
fn access_method_matrix() {
    let (tmp, work) = project();
    std::fs::write(work.join("src/a.ts"), "x\n").unwrap();
    let state = tmp.path().join("state");
    let w = work.to_str().unwrap();
    let file = "src/api/customers.ts";
    // (agent, its file tools, its shell tool); each has a compaction its
    // hooks see (`compaction_events`).
    let agents: &[(&str, &[&str], &str)] = &[
        (
            "claude",
            &["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"],
            "Bash",
        ),
        ("codex", &["apply_patch"], "Bash"),
        (
            "gemini",
            &["read_file", "read_many_files", "write_file", "replace"],
            "run_shell_command",
        ),
        ("copilot", &["view", "edit", "create"], "bash"),
    ];
    let mut table = Vec::new();
    let mut failures = Vec::new();
    let mut n = 0;
    for (agent, tools, shell) in agents {
        let methods = tools
            .iter()
            .map(|t| (t.to_string(), t.to_string(), file.to_string()))
            .chain(SHELL_FORMS.iter().map(|(name, cmd)| {
                (
                    format!("{shell}: {name}"),
                    shell.to_string(),
                    cmd.to_string(),
                )
            }));
        for (label, tool, arg) in methods {
            n += 1;
            let session = format!("m{n}");
            let payload = tool_payload(agent, &session, w, &tool, &arg).to_string();
            let post = ["hook", "--agent", agent, "PostToolUse"];
            let first = wave(&work, &state, &post, payload.as_bytes()).0;
            let second = wave(&work, &state, &post, payload.as_bytes()).0;
            let mut ok = first.matches(API).count() == 1 && !second.contains(API);
            // Compacted: the rule once more, in the answer to the last of
            // the agent's events, and not at the next read.
            let events = compaction_events(agent, &session, w, tmp.path());
            let mut counts: Vec<usize> = events
                .iter()
                .map(|(event, payload, transcript)| {
                    if let (Some(text), Some(path)) =
                        (transcript, payload["transcript_path"].as_str())
                    {
                        std::fs::write(path, text).unwrap();
                    }
                    let args = ["hook", "--agent", agent, event];
                    let answer = wave(&work, &state, &args, payload.to_string().as_bytes()).0;
                    answer.matches(API).count()
                })
                .collect();
            counts.push(
                wave(&work, &state, &post, payload.as_bytes())
                    .0
                    .matches(API)
                    .count(),
            );
            let once = counts.len() > 1
                && counts[counts.len() - 2] == 1
                && counts.iter().sum::<usize>() == 1;
            let after = if once {
                "once".to_string()
            } else {
                format!("WRONG {counts:?}")
            };
            ok &= once;
            table.push(format!(
                "| {agent} | {label} | {} | {} | {after} |",
                first.matches(API).count(),
                second.matches(API).count()
            ));
            if !ok {
                failures.push(format!(
                    "{agent} {label}: first {first:?} second {second:?} after compaction {after}"
                ));
            }
        }
    }
    eprintln!(
        "| agent | method | first read | again | after compaction |\n| --- | --- | --- | --- | --- |\n{}",
        table.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A project with a `skills:` rule, a skill whose SKILL.md uses the memory
/// tools and one whose does not.
fn skills_project() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, work) = project();
    std::fs::write(
        work.join(".wave/rules/replica.md"),
        "---\nskills: [db-work]\n---\nQueries go to the read replica.\n",
    )
    .unwrap();
    for (dir, text) in [
        (
            ".claude/skills/db-work",
            "---\nname: db-work\ndescription: database work\n---\nFirst call mcp__wave-rules__memory_read with topic db; save findings with memory_write.\n",
        ),
        (
            ".agents/skills/format",
            "---\nname: format\ndescription: formatting\n---\nRun the formatter.\n",
        ),
    ] {
        std::fs::create_dir_all(work.join(dir)).unwrap();
        std::fs::write(work.join(dir).join("SKILL.md"), text).unwrap();
    }
    (tmp, work)
}

const REPLICA: &str = "Queries go to the read replica.";

/// The context (or, at stop, the reason) in an agent's answer; "" when none.
fn said(out: &str) -> String {
    if out.is_empty() {
        return String::new();
    }
    let v: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .or_else(|| v["additionalContext"].as_str())
        .or_else(|| v["reason"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_skill_activated_by_each_agents_tool_or_a_read_of_its_skill_md_brings_its_rules_once_and_the_memory_reminder_at_stop(
) {
    let (tmp, work) = skills_project();
    let state = tmp.path().join("state");
    let w = work.to_str().unwrap();
    let skill_md = work.join(".claude/skills/db-work/SKILL.md");
    let skill_md = skill_md.to_str().unwrap();
    // (agent, its PostToolUse event, the payload that activates db-work, its stop payload)
    let cases: Vec<(&str, &str, Value, Value)> = vec![
        (
            "claude",
            "PostToolUse",
            json!({"session_id":"cl","cwd":w,"tool_name":"Skill","tool_input":{"skill":"db-work"}}),
            json!({"session_id":"cl","cwd":w,"stop_hook_active":false}),
        ),
        (
            "claude",
            "PostToolUse",
            json!({"session_id":"cl-read","cwd":w,"tool_name":"Read","tool_input":{"file_path":skill_md}}),
            json!({"session_id":"cl-read","cwd":w}),
        ),
        (
            "codex",
            "PostToolUse",
            json!({"session_id":"cx","cwd":w,"tool_name":"Bash","tool_input":{"command":"cat .claude/skills/db-work/SKILL.md"}}),
            json!({"session_id":"cx","cwd":w,"stop_hook_active":false}),
        ),
        (
            "codex",
            "PostToolUse",
            json!({"session_id":"cx2","cwd":w,"tool_name":"exec_command","tool_input":{"command":["bash","-lc","sed -n 1,200p .claude/skills/db-work/SKILL.md"]}}),
            json!({"session_id":"cx2","cwd":w}),
        ),
        (
            "gemini",
            "AfterTool",
            json!({"session_id":"gm","cwd":w,"hook_event_name":"AfterTool","tool_name":"activate_skill","tool_input":{"name":"db-work"}}),
            json!({"session_id":"gm","cwd":w,"hook_event_name":"AfterAgent","stop_hook_active":false}),
        ),
        (
            "copilot",
            "postToolUse",
            json!({"sessionId":"cp","cwd":w,"toolName":"skill","toolArgs":"{\"skill\":\"db-work\"}"}),
            json!({"sessionId":"cp","cwd":w}),
        ),
    ];
    for (agent, event, payload, stop) in cases {
        let post = ["hook", "--agent", agent, "PostToolUse"];
        let stop_args = ["hook", "--agent", agent, "Stop"];
        // Before the skill: nothing at stop.
        let (out, err, code) = wave(&work, &state, &stop_args, stop.to_string().as_bytes());
        assert_eq!((out.as_str(), code), ("", 0), "{agent}: {err}");
        let (out, err, code) = wave(&work, &state, &post, payload.to_string().as_bytes());
        assert_eq!(code, 0, "{err}");
        assert!(
            said(&out).contains(REPLICA),
            "{agent} {payload}: {out:?} {err}"
        );
        if agent != "copilot" {
            let v: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{agent}");
        }
        let (again, _, _) = wave(&work, &state, &post, payload.to_string().as_bytes());
        assert_eq!(said(&again), "", "{agent}: given twice");
        // Stop: the memory reminder, blocking the stop.
        let (out, err, code) = wave(&work, &state, &stop_args, stop.to_string().as_bytes());
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{agent}: {out:?}"));
        assert_eq!(v["decision"], "block", "{agent}");
        let reason = v["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("The skill 'db-work' "),
            "{agent}: {reason}"
        );
        assert!(
            reason.contains("memory_read") && reason.contains("memory_write"),
            "{reason}"
        );
        // The stop that follows ours goes through.
        let mut through = stop.clone();
        through["stop_hook_active"] = json!(true);
        let (out, _, _) = wave(&work, &state, &stop_args, through.to_string().as_bytes());
        assert_eq!(out, "", "{agent}: stop_hook_active lets it through");
    }
}

#[test]
fn a_slash_prompt_activates_only_a_known_skill_and_stop_reads_no_skill_file() {
    let (tmp, work) = skills_project();
    let state = tmp.path().join("state");
    let w = work.to_str().unwrap();
    let prompt = |session: &str, text: &str| {
        let input = json!({"session_id":session,"cwd":w,"prompt":text}).to_string();
        let (out, err, code) = wave(
            &work,
            &state,
            &["hook", "UserPromptSubmit"],
            input.as_bytes(),
        );
        assert_eq!(code, 0, "{err}");
        said(&out)
    };
    let stop = |session: &str| {
        let input = json!({"session_id":session,"cwd":w}).to_string();
        let (out, err, code) = wave(&work, &state, &["hook", "Stop"], input.as_bytes());
        assert_eq!(code, 0, "{err}");
        said(&out)
    };
    // A slash command that is not a skill, and a skill without memory.
    assert_eq!(prompt("s", "/help me"), "");
    assert_eq!(prompt("s", "/format the code"), "");
    assert_eq!(stop("s"), "", "neither uses memory");
    assert_eq!(
        prompt("s", "please /db-work later"),
        "",
        "only at the start"
    );
    let given = prompt("s", "/db-work fix the slow query");
    assert!(given.contains(REPLICA), "{given:?}");
    assert_eq!(prompt("s", "/db-work again"), "", "once per session");
    // The SKILL.md was read when the skill became active: Stop needs no file.
    std::fs::remove_dir_all(work.join(".claude/skills")).unwrap();
    assert!(stop("s").contains("The skill 'db-work' "));
    // After a compaction, the skill's rules come again.
    let start = json!({"session_id":"s","cwd":w,"source":"compact"}).to_string();
    let (out, _, _) = wave(&work, &state, &["hook", "SessionStart"], start.as_bytes());
    assert!(said(&out).contains(REPLICA), "{out:?}");
    // A fresh session has no skill.
    let start = json!({"session_id":"s","cwd":w,"source":"startup"}).to_string();
    wave(&work, &state, &["hook", "SessionStart"], start.as_bytes());
    assert_eq!(stop("s"), "");
}
