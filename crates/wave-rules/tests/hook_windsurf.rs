//! Windsurf's (Devin Desktop's) Cascade hooks through the real binary, from
//! the payloads its docs show (docs.windsurf.com/windsurf/cascade/hooks):
//! `agent_action_name`, `trajectory_id`, `execution_id`, `timestamp` and
//! `tool_info`. Cascade reads a pre-hook's exit code only: 2 blocks the
//! action, with the reason on stderr. `hook install --agent windsurf` (or
//! `devin`) writes `.windsurf/hooks.json`; a file not in the documented
//! shape is an error naming it, and stays as it was.

mod common;
use common::hook_run;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const GEN: &str = "Generated files are rebuilt by `npm run gen`.";
const DEPLOY: &str = "Production deploys go through CI.";

fn project() -> (tempfile::TempDir, PathBuf) {
    let rules = [
        (
            "gen.md",
            format!("---\npaths: gen/**\nenforce: block\n---\n{GEN}\n"),
        ),
        (
            "deploy.md",
            format!("---\ncommands: [\"*deploy.sh --prod*\"]\nenforce: block\n---\n{DEPLOY}\n"),
        ),
        ("ts.md", "---\npaths: src/**\n---\nStrict TS.\n".to_string()),
    ];
    common::dialect::project_of(&rules)
}

/// A Cascade payload as its docs show it: the common fields and `tool_info`.
fn cascade(event: &str, tool_info: Value) -> Vec<u8> {
    json!({
        "agent_action_name": event,
        "trajectory_id": "traj-1",
        "execution_id": "exec-1",
        "timestamp": "2026-11-27T10:00:00Z",
        "tool_info": tool_info,
    })
    .to_string()
    .into_bytes()
}

#[test]
fn cascade_pre_hooks_refuse_an_enforced_write_or_command_with_exit_2_and_the_reason_on_stderr() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let w = work.to_str().unwrap();
    let gen = work.join("gen/api.ts");
    let edits = json!([{"old_string": "a", "new_string": "b"}]);
    let write = |file: &Path| {
        cascade(
            "pre_write_code",
            json!({"file_path": file, "edits": edits.clone()}),
        )
    };
    for agent in ["windsurf", "devin"] {
        let args = ["hook", "--agent", agent, "PreToolUse"];
        let (out, err, code) = hook_run(&work, &state, &args, &write(&gen));
        assert_eq!(code, 2, "{agent}: {err}");
        assert!(err.contains(GEN), "{agent}: {err}");
        assert_eq!(out, "", "{agent}: Cascade reads no JSON");
        let run = cascade(
            "pre_run_command",
            json!({"command_line": "./scripts/deploy.sh --prod", "cwd": w}),
        );
        let (out, err, code) = hook_run(&work, &state, &args, &run);
        assert_eq!((code, out.as_str()), (2, ""), "{agent}: {err}");
        assert!(err.contains(DEPLOY), "{agent}: {err}");
    }
    // What no rule enforces runs: exit 0, nothing said.
    let args = ["hook", "--agent", "windsurf", "PreToolUse"];
    let ok = write(&work.join("src/a.ts"));
    assert_eq!(
        hook_run(&work, &state, &args, &ok),
        (String::new(), String::new(), 0)
    );
    let ls = cascade("pre_run_command", json!({"command_line": "ls", "cwd": w}));
    assert_eq!(
        hook_run(&work, &state, &args, &ls),
        (String::new(), String::new(), 0)
    );
    // A payload that is no JSON never blocks: exit 0 and one line why.
    let (out, err, code) = hook_run(&work, &state, &args, b"not json");
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("not JSON"), "{err}");
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn hook_install_for_devin_writes_windsurf_hooks_json_and_the_installed_command_refuses() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let install = ["hook", "install", "--agent", "devin"];
    let (out, err, code) = hook_run(&work, &state, &install, b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(".windsurf/hooks.json"), "{out}");
    assert!(out.contains("export --to devin"), "{out}");
    let file = work.join(".windsurf/hooks.json");
    let doc = read_json(&file);
    let hooks = doc["hooks"].as_object().unwrap();
    let events: Vec<&String> = hooks.keys().collect();
    assert_eq!(events, ["pre_run_command", "pre_write_code"]);
    let entry = &doc["hooks"]["pre_write_code"][0];
    assert_eq!(entry["show_output"], false);
    let command = entry["command"].as_str().unwrap();
    assert!(
        command.ends_with("hook --agent windsurf PreToolUse"),
        "{command}"
    );
    // Again: nothing changes.
    let (out, _, code) = hook_run(&work, &state, &install, b"");
    assert_eq!(code, 0);
    assert!(out.contains("already"), "{out}");
    // The command as Cascade runs it: a shell in the workspace, the payload on stdin.
    let payload = cascade(
        "pre_write_code",
        json!({"file_path": work.join("gen/x.ts"), "edits": []}),
    );
    let done = common::run_installed(command, &work, &state, &payload);
    assert_eq!(done.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&done.stderr).contains(GEN));
    // Uninstall: the file held only ours, so it goes.
    let (_, err, code) = hook_run(
        &work,
        &state,
        &["hook", "uninstall", "--agent", "windsurf"],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert!(!file.exists());
}

#[test]
fn a_windsurf_hooks_file_not_in_its_documented_shape_is_an_error_naming_it_and_stays_as_it_was() {
    let (tmp, work) = project();
    let state = tmp.path().join("state");
    let file = work.join(".windsurf/hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let cases = [
        ("{\"hooks\": [\"pre_write_code\"]}\n", "\"hooks\" in"),
        (
            "{\"hooks\": {\"pre_write_code\": {\"command\": \"x\"}}}\n",
            "\"hooks.pre_write_code\" in",
        ),
        ("{\"hooks\": {\n", "not valid JSON"),
        ("[1, 2]\n", "does not hold a JSON object"),
    ];
    for (text, problem) in cases {
        std::fs::write(&file, text).unwrap();
        let (out, err, code) = hook_run(
            &work,
            &state,
            &["hook", "install", "--agent", "windsurf"],
            b"",
        );
        assert_ne!(code, 0, "{text}: {out}");
        assert!(err.contains(problem), "{text}: {err}");
        assert!(err.contains(".windsurf/hooks.json"), "{text}: {err}");
        assert!(err.contains("left unchanged"), "{text}: {err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
}
