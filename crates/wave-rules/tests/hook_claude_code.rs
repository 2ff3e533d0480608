//! `wave-rules hook <event>` as Claude Code runs it: the real binary, the
//! event JSON on stdin, and exit 0 whatever the input.

mod common;
use std::path::Path;

fn hook(work: &Path, state: &Path, event: &str, input: &[u8]) -> (String, String, i32) {
    hook_with(work, state, event, input, &[])
}

/// [`hook`] with more arguments (`--sources ...`).
fn hook_with(
    work: &Path,
    state: &Path,
    event: &str,
    input: &[u8],
    args: &[&str],
) -> (String, String, i32) {
    let args: Vec<&str> = ["hook", event]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    common::hook_run(work, state, &args, input)
}

#[test]
fn prompt_topics_are_mandatory_and_the_cwd_is_the_project() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(work.join(".wave/rules")).unwrap();
    std::fs::write(
        work.join(".wave/rules/db.md"),
        "---\ntopics: [customer]\n---\nThe customer table is read-only.",
    )
    .unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let input =
        serde_json::json!({ "session_id": "s", "cwd": work, "prompt": "Customers?" }).to_string();
    let (out, err, code) = hook(
        &elsewhere,
        &tmp.path().join("state"),
        "UserPromptSubmit",
        input.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    assert_eq!(
        v["hookSpecificOutput"]["additionalContext"],
        "=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n==========================="
    );
}

#[test]
fn bad_input_never_fails_the_hook() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    for (event, input) in [
        ("SessionStart", &b"\xff\xfe not json"[..]),
        ("Stop", b"[1, 2]"),
        (
            "PostToolUse",
            b"{\"session_id\": 5, \"tool_name\": \"Read\", \"tool_input\": {\"file_path\": 7}}",
        ),
        (
            "UserPromptSubmit",
            b"{\"cwd\": \"/no/such/dir\", \"prompt\": \"x\"}",
        ),
        ("UserPromptSubmit", b""),
    ] {
        let (out, err, code) = hook(tmp.path(), &state, event, input);
        assert_eq!(code, 0, "{event}: {err}");
        assert_eq!(out, "", "{event}");
        assert!(err.lines().count() <= 1, "{event}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // An unwritable state directory: the answer still comes, with one line.
    std::fs::write(tmp.path().join("file"), "").unwrap();
    std::fs::create_dir_all(tmp.path().join(".wave/rules")).unwrap();
    std::fs::write(tmp.path().join(".wave/rules/a.md"), "Always.").unwrap();
    let input = br#"{"session_id": "s", "source": "startup"}"#;
    let (out, err, code) = hook(
        tmp.path(),
        &tmp.path().join("file/state"),
        "SessionStart",
        input,
    );
    assert_eq!(code, 0);
    assert!(out.contains("[a.md] Always."), "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("wave-rules hook: state not saved"), "{err}");
}

/// Sets a file's mtime to one fixed time, long past (outside the racy
/// window, and the same again after an edit).
fn age(path: &Path) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000))
        .unwrap();
}

#[test]
fn the_rules_cache_serves_other_agents_formats_until_a_file_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    // Cursor's and Copilot's files make no project root: the project is one.
    common::git_root(&work);
    let state = tmp.path().join("state");
    let cursor = work.join(".cursor/rules/ts.mdc");
    let copilot = work.join(".github/instructions/sql.instructions.md");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    std::fs::create_dir_all(copilot.parent().unwrap()).unwrap();
    let ts = "---\nglobs: src/**/*.ts\n---\nStrict TypeScript.";
    std::fs::write(&cursor, ts).unwrap();
    std::fs::write(&copilot, "---\napplyTo: \"*.sql\"\n---\nNo SELECT *.").unwrap();
    age(&cursor);
    age(&copilot);
    let mut n = 0;
    let mut read = |file: &str| {
        n += 1;
        let input = serde_json::json!({
            "session_id": format!("s{n}"), "cwd": work, "tool_name": "Read",
            "tool_input": { "file_path": work.join(file) },
        })
        .to_string();
        let (out, err, code) = hook_with(
            &work,
            &state,
            "PostToolUse",
            input.as_bytes(),
            &["--sources", "cursor,copilot"],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(err, "");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(read("src/app.ts").contains("Strict TypeScript."));
    let saved: Vec<_> = std::fs::read_dir(state.join("rules")).unwrap().collect();
    assert_eq!(saved.len(), 1, "the snapshot was written");

    // Proof that the next runs read the snapshot: a change that keeps the
    // size, mtime and inode is not seen (as with git's index).
    let fd = std::fs::File::options().write(true).open(&cursor).unwrap();
    std::os::unix::fs::FileExt::write_at(&fd, b"STRICT", ts.find("Strict").unwrap() as u64)
        .unwrap();
    drop(fd);
    age(&cursor);
    assert!(
        read("src/app.ts").contains("Strict TypeScript."),
        "served from the snapshot"
    );
    // Copilot's globs still match case-insensitively once restored.
    assert!(read("db/Q.SQL").contains("No SELECT *."));

    // Any other change is seen.
    std::fs::write(
        &cursor,
        "---\nglobs: src/**/*.ts\n---\nStrict TypeScript, always.",
    )
    .unwrap();
    assert!(
        read("src/app.ts").contains("Strict TypeScript, always."),
        "a new stamp reloads"
    );
    std::fs::remove_file(&copilot).unwrap();
    assert_eq!(read("db/q.sql"), "", "a deleted rule is gone");
}

/// Sets a directory's (or a file's) mtime to the same fixed time as [`age`].
fn age_dir(path: &Path) {
    let f = std::fs::File::open(path).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000))
        .unwrap();
}

#[test]
fn an_unchanged_project_is_served_as_saved_without_listing_its_rules_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let state = tmp.path().join("state");
    let rules = work.join(".wave/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(
        rules.join("a.md"),
        "---\ntopics: [billing]\n---\nBilling in cents.",
    )
    .unwrap();
    age(&rules.join("a.md"));
    for d in [&rules, &work.join(".wave"), &work] {
        age_dir(d);
    }
    let mut n = 0;
    let mut prompt = || {
        n += 1;
        let input = serde_json::json!({
            "session_id": format!("s{n}"), "cwd": work, "prompt": "the billing run",
        })
        .to_string();
        let (out, err, code) = hook_with(&work, &state, "UserPromptSubmit", input.as_bytes(), &[]);
        assert_eq!(code, 0, "{err}");
        out
    };
    assert!(prompt().contains("Billing in cents."));
    let size = std::fs::metadata(&rules).unwrap().len();
    // A file added, and its folder's stamp put back as it was: only a
    // listing of the folder would see it.
    std::fs::write(
        rules.join("b.md"),
        "---\ntopics: [billing]\n---\nInvoices in UTC.",
    )
    .unwrap();
    age(&rules.join("b.md"));
    age_dir(&rules);
    if std::fs::metadata(&rules).unwrap().len() != size {
        eprintln!("skipped: this file system's directory size tells the added file");
        return;
    }
    let out = prompt();
    assert!(out.contains("Billing in cents."), "{out}");
    assert!(
        !out.contains("Invoices in UTC."),
        "the folder was listed again: {out}"
    );
    // Its folder's mtime moves, as any add does: the file is seen.
    std::fs::write(rules.join("c.md"), "C").unwrap();
    assert!(prompt().contains("Invoices in UTC."));
}

#[test]
fn files_read_or_written_through_the_shell_bring_their_path_rules_once() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let rules = work.join(".wave/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::create_dir_all(work.join("src/api")).unwrap();
    std::fs::write(
        rules.join("api.md"),
        "---\npaths: src/api/**\n---\nAPI handlers validate input.\n",
    )
    .unwrap();
    std::fs::write(
        rules.join("docs.md"),
        "---\npaths: docs/**\n---\nDocs in English.\n",
    )
    .unwrap();
    let state = tmp.path().join("state");
    let post = |session: &str, tool: &str, tool_input: serde_json::Value| {
        let input = serde_json::json!({
            "session_id": session, "cwd": work, "tool_name": tool, "tool_input": tool_input,
        })
        .to_string();
        let (out, err, code) = hook(&work, &state, "PostToolUse", input.as_bytes());
        assert_eq!(code, 0, "{err}");
        if out.is_empty() {
            return String::new();
        }
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let api = "API handlers validate input.";
    // Claude Code's Bash tool: a command line.
    for (i, command) in [
        "cat src/api/customers.ts",
        "sed -n '1,40p' src/api/customers.ts",
        "cd src && head -n 5 api/customers.ts | grep export",
        "git show HEAD:src/api/customers.ts",
        "echo x > src/api/new.ts",
    ]
    .iter()
    .enumerate()
    {
        let session = format!("bash-{i}");
        let first = post(&session, "Bash", serde_json::json!({ "command": command }));
        assert!(first.contains(api), "{command}: {first:?}");
        assert!(!first.contains("Docs in English"), "{command}: {first:?}");
        // Once per session.
        let again = post(&session, "Bash", serde_json::json!({ "command": command }));
        assert!(!again.contains(api), "{command} again: {again:?}");
    }
    // Codex's shell tool: an argv array.
    let codex = post(
        "codex",
        "shell",
        serde_json::json!({ "command": ["bash", "-lc", "cat docs/guide.md"] }),
    );
    assert!(codex.contains("Docs in English"), "{codex:?}");
    // Commands that touch no file, or do not parse: nothing, exit 0.
    for command in ["ls -la", "npm test", "cat 'unterminated", "cat $F"] {
        assert_eq!(
            post("none", "Bash", serde_json::json!({ "command": command })),
            ""
        );
    }
}
