//! The sources a user chose reach every road: `hook install --sources`
//! writes them to `.wave/config.toml`, and the hooks, `list`, `doctor` and
//! the MCP server read them; each agent's hook leaves out what that agent
//! loads by itself (the core's `self_load` table). A bad config file is an
//! error naming the file and line, and is left as it was.

mod common;
use common::{CliTree, Tree};
use serde_json::json;

const CURSOR: &str = "Cursor says: API handlers log every call.";
const CLAUDE_RULE: &str = "Claude rule: API handlers validate input.";
const CLAUDE_MD: &str = "Project memory: run the tests.";
const AGENTS_MD: &str = "Agents file: keep commits small.";

fn project() -> Tree {
    let t = Tree::made();
    let w = t.workdir();
    let write = |rel: &str, text: &str| {
        let p = w.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        ".cursor/rules/api.mdc",
        &format!("---\nglobs: src/api/**\nalwaysApply: false\n---\n{CURSOR}\n"),
    );
    write(
        ".claude/rules/api.md",
        &format!("---\npaths: [\"src/api/**\"]\n---\n{CLAUDE_RULE}\n"),
    );
    write("CLAUDE.md", &format!("# Memory\n\n{CLAUDE_MD}\n"));
    write("AGENTS.md", &format!("# Agents\n\n{AGENTS_MD}\n"));
    write("src/api/x.ts", "export const x = 1\n");
    t
}

/// One hook event of `agent` (`None`: Claude Code) in the tree's workdir.
fn hook(t: &Tree, agent: Option<&str>, event: &str, payload: serde_json::Value) -> String {
    let mut args = vec!["hook"];
    if let Some(a) = agent {
        args.extend(["--agent", a]);
    }
    args.push(event);
    let state = t.workdir().join("../state");
    let (out, err, code) =
        common::hook_run(&t.workdir(), &state, &args, payload.to_string().as_bytes());
    assert_eq!(code, 0, "{err}");
    out
}

fn read(t: &Tree, session: &str) -> serde_json::Value {
    let file = t.workdir().join("src/api/x.ts");
    json!({"session_id": session, "cwd": t.workdir(), "hook_event_name": "PostToolUse",
        "tool_name": "Read", "tool_input": {"file_path": file}, "tool_response": {}})
}

#[test]
fn hook_install_sources_writes_the_project_config_that_hooks_list_and_doctor_read() {
    let t = project();
    let config = t.workdir().join(".wave/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "# our team's packs\npacks = []\n").unwrap();
    let r = t.run(&[
        "hook",
        "install",
        "--agent",
        "codex",
        "--sources",
        "cursor,wave",
        "--command",
        "wave-rules",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("sources: [cursor, wave] written to"),
        "{}",
        r.stdout
    );
    let text = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        text,
        "# our team's packs\npacks = []\nsources = [\"cursor\", \"wave\"]\n"
    );
    // The hook command names no sources: the hooks read the config.
    let hooks = std::fs::read_to_string(t.workdir().join(".codex/hooks.json")).unwrap();
    assert!(!hooks.contains("--sources"), "{hooks}");
    // A Cursor rule reaches Codex through its hook.
    let payload = json!({"session_id": "s1", "cwd": t.workdir(), "tool_name": "Bash",
        "tool_input": {"command": "cat src/api/x.ts"}});
    let out = hook(&t, Some("codex"), "PostToolUse", payload);
    assert!(out.contains(CURSOR), "{out}");
    assert!(!out.contains(CLAUDE_RULE), "claude was not chosen: {out}");
    let list = t.run(&["list"]);
    assert!(
        list.stdout.contains("api.mdc") || list.stdout.contains("cursor"),
        "{}",
        list.stdout
    );
    let doctor = t.run(&["doctor"]);
    assert!(
        doctor
            .stdout
            .contains("sources (from sources = [cursor, wave] in ")
            && doctor.stdout.contains("config.toml:3)"),
        "{}",
        doctor.stdout
    );
    // Installing again with the same choice changes nothing.
    let again = t.run(&[
        "hook",
        "install",
        "--agent",
        "codex",
        "--sources",
        "cursor,wave",
        "--command",
        "wave-rules",
    ]);
    assert!(
        again.stdout.contains("sources: already [cursor, wave]"),
        "{}",
        again.stdout
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
}

#[test]
fn a_user_scope_install_carries_the_sources_in_its_command() {
    let t = project();
    let r = t.run(&[
        "hook",
        "install",
        "--agent",
        "codex",
        "--scope",
        "user",
        "--sources",
        "all",
        "--command",
        "wave-rules",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hooks = std::fs::read_to_string(t.home().join(".codex/hooks.json")).unwrap();
    assert!(
        hooks.contains("wave-rules --sources all hook --agent codex SessionStart"),
        "{hooks}"
    );
    assert!(!t.workdir().join(".wave/config.toml").exists());
    // Reinstalling replaces our entries (they are still ours with the flag).
    let r = t.run(&[
        "hook",
        "install",
        "--agent",
        "codex",
        "--scope",
        "user",
        "--command",
        "wave-rules",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hooks = std::fs::read_to_string(t.home().join(".codex/hooks.json")).unwrap();
    assert_eq!(
        hooks.matches("hook --agent codex SessionStart").count(),
        1,
        "{hooks}"
    );
}

#[test]
fn a_bad_config_is_an_error_naming_file_and_line_and_is_left_as_it_was() {
    let t = project();
    let config = t.workdir().join(".wave/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "packs = []\nsources = [\"wave\", \"cursr\"]\n").unwrap();
    let r = t.run(&["list"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("config.toml:2:") && r.stderr.contains("'cursr'"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("did you mean 'cursor'"), "{}", r.stderr);
    // A hook does not block its agent: one line, exit 0.
    let (out, err, code) = common::hook_run(
        &t.workdir(),
        &t.workdir().join("../state"),
        &["hook", "UserPromptSubmit"],
        b"{}",
    );
    assert_eq!((out.as_str(), code), ("", 0));
    assert!(err.contains("config.toml:2:"), "{err}");
    // Not TOML at all: install stops before writing any hook, the file as it was.
    let broken = "packs = [\n";
    std::fs::write(&config, broken).unwrap();
    let r = t.run(&[
        "hook",
        "install",
        "--sources",
        "all",
        "--command",
        "wave-rules",
    ]);
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("config.toml") && r.stderr.contains("line"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), broken);
    assert!(!t.workdir().join(".claude/settings.json").exists());
}

#[test]
fn each_agents_hook_leaves_out_what_that_agent_loads_itself_and_gives_the_rest() {
    let t = project();
    let r = t.run(&[
        "hook",
        "install",
        "--sources",
        "all",
        "--command",
        "wave-rules",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Claude Code reads .claude/rules and CLAUDE.md itself; AGENTS.md it
    // reads only without a CLAUDE.md, so here it is ours to give.
    let start = json!({"session_id": "c1", "cwd": t.workdir(), "hook_event_name": "SessionStart", "source": "startup"});
    let out = hook(&t, None, "SessionStart", start);
    assert!(out.contains(AGENTS_MD) && !out.contains(CLAUDE_MD), "{out}");
    let out = hook(&t, None, "PostToolUse", read(&t, "c1"));
    assert!(out.contains(CURSOR) && !out.contains(CLAUDE_RULE), "{out}");
    // Codex reads AGENTS.md itself, and not the Claude files.
    let start = json!({"session_id": "x1", "cwd": t.workdir(), "hook_event_name": "SessionStart", "source": "startup"});
    let out = hook(&t, Some("codex"), "SessionStart", start);
    assert!(out.contains(CLAUDE_MD) && !out.contains(AGENTS_MD), "{out}");
    let payload = json!({"session_id": "x1", "cwd": t.workdir(), "tool_name": "Bash", "tool_input": {"command": "cat src/api/x.ts"}});
    let out = hook(&t, Some("codex"), "PostToolUse", payload);
    assert!(out.contains(CLAUDE_RULE) && out.contains(CURSOR), "{out}");
    // Without CLAUDE.md, Claude Code reads AGENTS.md itself, unless a folder
    // above the project has a CLAUDE.md (CI's temp folder lies under one).
    std::fs::remove_file(t.workdir().join("CLAUDE.md")).unwrap();
    let start = json!({"session_id": "c2", "cwd": t.workdir(), "hook_event_name": "SessionStart", "source": "startup"});
    let out = hook(&t, None, "SessionStart", start);
    let work = t.workdir();
    let claude_md_above = work
        .ancestors()
        .skip(1)
        .any(|d| d.join("CLAUDE.md").is_file());
    assert_eq!(out.contains(AGENTS_MD), claude_md_above, "{out}");
    // A CLAUDE.md above the project: AGENTS.md is ours to give.
    t.write(t.tmp.path().join("CLAUDE.md"), "Above the project.");
    let start = json!({"session_id": "c3", "cwd": t.workdir(), "hook_event_name": "SessionStart", "source": "startup"});
    let out = hook(&t, None, "SessionStart", start);
    assert!(out.contains(AGENTS_MD), "{out}");
}
