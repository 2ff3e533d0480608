//! One event, every road: what `match` says is active, a hook and the MCP
//! server deliver, because each maps its agent's wire format onto the core's
//! agent event and the core decides (files touched, file contents for
//! `regex` rules, what is due).

mod common;
use common::{CliTree, Tree};

/// A Continue rule with a `regex` and no globs, a file that holds a match
/// and one that does not.
fn todo_tree() -> Tree {
    let t = Tree::made();
    let w = t.workdir();
    t.write(
        w.join(".continue/rules/todo.md"),
        "---\nname: todo\nregex: TODO\n---\nResolve the TODOs you touch.",
    );
    t.write(w.join("src/a.ts"), "export const a = 1 // TODO: split\n");
    t.write(w.join("src/b.ts"), "export const b = 2\n");
    t
}

#[test]
fn a_regex_rule_is_active_for_match_a_hook_and_mcp_alike() {
    let t = todo_tree();
    let work = t.workdir();
    let state = t.tmp.path().join("state");
    for (file, active) in [("src/a.ts", true), ("src/b.ts", false)] {
        let matched = t.run(&["match", file, "--sources", "continue", "--json"]);
        let ids: Vec<String> = common::json(&matched)["active"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(!ids.is_empty(), active, "match {file}: {ids:?}");

        let input = serde_json::json!({
            "session_id": format!("s-{file}"), "cwd": work,
            "tool_name": "Read", "tool_input": { "file_path": work.join(file) },
        })
        .to_string();
        let (out, err, code) = common::hook_run(
            &work,
            &state,
            &["hook", "PostToolUse", "--sources", "continue"],
            input.as_bytes(),
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out.contains("Resolve the TODOs"),
            active,
            "hook {file}: {out}{err}"
        );

        // Through the agent's shell too.
        let input = serde_json::json!({
            "session_id": format!("sh-{file}"), "cwd": work,
            "tool_name": "Bash", "tool_input": { "command": format!("sed -n 1,5p {file}") },
        })
        .to_string();
        let (out, _, _) = common::hook_run(
            &work,
            &state,
            &["hook", "PostToolUse", "--sources", "continue"],
            input.as_bytes(),
        );
        assert_eq!(
            out.contains("Resolve the TODOs"),
            active,
            "shell hook {file}: {out}"
        );

        let text = common::mcp_call(
            &work,
            &t.home(),
            &["--sources", "continue"],
            "rules_for_files",
            serde_json::json!({ "paths": [file] }),
        );
        assert_eq!(
            text.contains("Resolve the TODOs"),
            active,
            "mcp {file}: {text}"
        );
    }
}

#[test]
fn a_tool_no_road_names_still_fires_path_rules_through_its_file_keys_and_command() {
    let t = Tree::made();
    t.project("ts.md", "---\npaths: src/**/*.ts\n---\nStrict TypeScript.");
    let work = t.workdir();
    let state = t.tmp.path().join("state");
    for (tool, input) in [
        (
            "mcp__files__read_text_file",
            serde_json::json!({ "path": "src/a.ts" }),
        ),
        (
            "custom_shell",
            serde_json::json!({ "command": "head -3 src/a.ts" }),
        ),
    ] {
        let payload = serde_json::json!({
            "session_id": format!("s-{tool}"), "cwd": work, "tool_name": tool, "tool_input": input,
        })
        .to_string();
        let (out, err, code) =
            common::hook_run(&work, &state, &["hook", "PostToolUse"], payload.as_bytes());
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("[ts.md] Strict TypeScript."),
            "{tool}: {out}{err}"
        );
    }
}
