//! A new user's first ten minutes with the real `wave-rules` binary on real
//! temp trees: the project root, loud typos, `add`/`remove` that refuse what
//! `validate` would flag, `init`, `memory`, completions, colour, and one
//! activation name everywhere.

mod common;
use common::{json, CliTree, Tree};
use memory_rules::memory::{MemoryLocations, MemoryScope, MemoryStore, WriteMode};
use std::path::Path;
use std::process::Command;

/// The file names in the project's `.wave/rules`, sorted.
fn rule_files(t: &Tree) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(t.project_rules())
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn commands_run_from_a_subdirectory_use_the_project_root() {
    let t = Tree::made();
    t.git_root(t.workdir());
    t.project("api.md", "---\npaths: src/api/**\n---\nAPI rule.");
    let sub = t.workdir().join("src/api");
    std::fs::create_dir_all(&sub).unwrap();

    let r = t.run_in(&sub, &["list"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("api.md"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!(
            "project root: {} (has .wave)",
            t.workdir().display()
        )),
        "{}",
        r.stdout
    );
    let r = t.run_in(&sub, &["validate"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains(&format!(
        "project root: {} (has .wave)",
        t.workdir().display()
    )));
    let v = json(&t.run_in(&sub, &["list", "--json"]));
    assert_eq!(v["root"], t.workdir().to_string_lossy().as_ref());

    // `add` from the subdirectory writes into the root's .wave/rules.
    let r = t.run_in(
        &sub,
        &[
            "add",
            "Handlers return typed errors.",
            "--paths",
            "src/api/**",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        !sub.join(".wave").exists(),
        "a stray src/api/.wave was created"
    );
    assert!(rule_files(&t).contains(&"handlers-return-typed-errors.md".to_string()));

    // `match` takes files relative to the current directory, as shells do.
    let r = t.run_in(&sub, &["match", "users.ts"]);
    assert!(r.stdout.contains("api.md"), "{}", r.stdout);
    let r = t.run_in(&sub, &["match", "--json", "users.ts"]);
    assert!(
        r.stdout.contains("\"normalized\": \"src/api/users.ts\""),
        "{}",
        r.stdout
    );

    // An explicit --workdir wins.
    let r = t.run_in(&sub, &["list", "--workdir", "."]);
    assert!(r.stdout.starts_with("0 rules\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!("workdir: {}", sub.display())),
        "{}",
        r.stdout
    );
}

#[test]
fn a_misspelled_trigger_key_is_an_error_naming_the_key_and_the_consequence() {
    let t = Tree::made();
    t.project("ts.md", "---\npath: src/**/*.ts\n---\nStrict TypeScript.");
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            ".wave/rules/ts.md:2:1: error[misspelled-key]: unknown key 'path': did you mean 'paths'? 'path' is ignored, so this rule is now always active"
        ),
        "{}",
        r.stdout
    );
    let v = json(&t.run(&["validate", "--json"]));
    assert_eq!(v["ok"], false);
    assert_eq!(v["diagnostics"][0]["code"], "misspelled-key");
    // `list` says it too.
    let r = t.run(&["list"]);
    assert!(
        r.stderr
            .contains("1 misspelled key makes rules fire where they should not"),
        "{}",
        r.stderr
    );

    // Each format has its own keys: `glob` in a Cursor rule.
    let t = Tree::made();
    t.write(
        t.workdir().join(".cursor/rules/ts.mdc"),
        "---\nglob: src/**/*.ts\n---\nStrict TypeScript.",
    );
    let r = t.run(&["validate", "--sources", "cursor"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("error[misspelled-key]: unknown key 'glob': did you mean 'globs'? Cursor ignores 'glob', so this rule is now Manual (manual)"),
        "{}",
        r.stdout
    );
}

#[test]
fn add_refuses_what_validate_would_flag_and_takes_description_and_id() {
    let t = Tree::made();
    for (glob, why) in [
        ("/abs/**", "can never match: files in context are relative"),
        (
            "../up/*.ts",
            "can never match: files in context never contain '..'",
        ),
        ("src/{a,b", "pattern 'src/{a,b': its '{' is never closed"),
    ] {
        let r = t.run(&["add", "Some rule.", "--paths", glob]);
        assert_eq!(r.code, 1, "{glob}: {}", r.stdout);
        assert!(r.stderr.contains(why), "{glob}: {}", r.stderr);
        assert!(r.stderr.contains("nothing written"), "{}", r.stderr);
    }
    assert!(rule_files(&t).is_empty(), "{:?}", rule_files(&t));

    let r = t.run(&[
        "add",
        "Cut releases from main.",
        "--topics",
        "release",
        "--description",
        "How releases are cut",
        "--id",
        "releasing",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(rule_files(&t), ["releasing.md"]);
    let v = json(&t.run(&["list", "--json"]));
    assert_eq!(v["rules"][0]["description"], "How releases are cut");
    assert_eq!(t.run(&["validate"]).code, 0);
    // An id deeper than the rules directory is read would never load.
    let r = t.run(&["add", "Deep.", "--always", "--id", "a/b/deep"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("is read 1 level deep, so the rule would never load"),
        "{}",
        r.stderr
    );
    let r = t.run(&["add", "Shallow.", "--always", "--id", "team/shallow"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(t.run(&["list"]).stdout.contains("team/shallow.md"));
    std::fs::remove_dir_all(t.workdir().join(".wave/rules/team")).unwrap();
    // The same --id again is refused, not renamed.
    let r = t.run(&["add", "Other text.", "--topics", "x", "--id", "releasing"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("rule releasing.md exists"),
        "{}",
        r.stderr
    );

    // The identical rule again does not become a -2.
    let r = t.run(&["add", "Keep it short.", "--always"]);
    assert_eq!(r.code, 0);
    let r = t.run(&["add", "Keep it short.", "--always"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("already says this"), "{}", r.stdout);
    // The same text with other triggers is refused with what to do.
    let r = t.run(&["add", "Keep it short.", "--topics", "docs"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("already has this text"), "{}", r.stderr);
    assert_eq!(rule_files(&t), ["keep-it-short.md", "releasing.md"]);
}

#[test]
fn remove_takes_an_id_a_base_name_or_a_path_and_suggests_close_ids() {
    let t = Tree::made();
    t.project("frontend/react.md", "React rule.");
    t.project("database.md", "DB rule.");
    t.project("style.md", "Style rule.");
    // Recursive sources: .claude/rules reads subdirectories.
    t.write(
        t.workdir().join(".claude/rules/frontend/vue.md"),
        "Vue rule.",
    );

    let r = t.run(&["remove", "databse"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("did you mean database.md?"),
        "{}",
        r.stderr
    );
    let r = t.run(&["remove", "vue"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!t.workdir().join(".claude/rules/frontend/vue.md").exists());
    let r = t.run(&["remove", ".wave/rules/style.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!t.workdir().join(".wave/rules/style.md").exists());
    let abs = t.workdir().join(".wave/rules/database.md");
    let r = t.run(&["remove", abs.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!abs.exists());
    let r = t.run(&["remove", "nothing-like-it"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("`wave-rules list` shows the ids"),
        "{}",
        r.stderr
    );
}

#[test]
fn sources_suggests_a_close_name() {
    let t = Tree::made();
    let r = t.run(&["list", "--sources", "cursr"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("unknown source 'cursr' (did you mean 'cursor'?)"),
        "{}",
        r.stderr
    );
}

#[test]
fn list_json_names_activation_kinds_as_mcp_does_and_an_empty_project_gets_a_hint() {
    let t = Tree::made();
    let r = t.run(&["list"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with("0 rules\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("hint: ") && r.stdout.contains("wave-rules init"),
        "{}",
        r.stdout
    );
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("0 rules loaded") && r.stdout.contains("wave-rules init"),
        "{}",
        r.stdout
    );

    t.project("db.md", "---\ntopics: [sql]\n---\nNo SELECT *.");
    t.project("ts.md", "---\npaths: '*.ts'\ntopics: [types]\n---\nStrict.");
    t.project("all.md", "Always.");
    let v = json(&t.run(&["list", "--json"]));
    let kinds = activations(&v["rules"]);
    let want = |id: &str, kind: &str| (id.to_string(), kind.to_string());
    for k in [
        want("db.md", "topics"),
        want("ts.md", "paths+topics"),
        want("all.md", "always"),
    ] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    let r = t.run(&["list"]);
    assert!(!r.stdout.contains("hint:"), "{}", r.stdout);

    // The MCP server's list_rules names each rule's activation the same way.
    let mut mcp = activations(&mcp_list_rules(&t));
    let mut listed = kinds.clone();
    mcp.sort();
    listed.sort();
    assert_eq!(mcp, listed);
}

/// `(id, activation)` of each rule in a JSON array of rules.
fn activations(rules: &serde_json::Value) -> Vec<(String, String)> {
    rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().into(),
                r["activation"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// `list_rules` through the real `wave-rules mcp` on stdio (bounded: 30 s).
fn mcp_list_rules(t: &Tree) -> serde_json::Value {
    let text = common::mcp_call(
        &t.workdir(),
        &t.home(),
        &[],
        "list_rules",
        serde_json::json!({}),
    );
    serde_json::from_str(&text).unwrap()
}

#[test]
fn init_writes_one_valid_example_of_each_kind_and_installs_on_request() {
    let t = Tree::made();
    let r = t.run(&["init"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(rule_files(&t).len(), 5, "{:?}", rule_files(&t));
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with("5 rules loaded; 0 errors, 0 warnings, 0 infos\n"),
        "{}",
        r.stdout
    );
    let v = json(&t.run(&["list", "--json"]));
    let mut kinds: Vec<&str> = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["activation"].as_str().unwrap())
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["always", "manual", "on-request", "paths", "topics"]);
    // The manual rule fires on its mention, the paths rule on its files.
    let r = t.run(&["match", "src/app.tsx", "--prompt", "please @review this"]);
    assert!(
        r.stdout.contains("review.md") && r.stdout.contains("typescript.md"),
        "{}",
        r.stdout
    );

    // Again: nothing overwritten; an edited example is kept.
    t.project("project.md", "Mine now.");
    let r = t.run(&[
        "init", "--hooks", "claude", "--mcp", "cursor", "--mcp", "vscode",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("kept .wave/rules/project.md"),
        "{}",
        r.stdout
    );
    assert_eq!(
        std::fs::read_to_string(t.workdir().join(".wave/rules/project.md")).unwrap(),
        "Mine now."
    );
    // Without the package in the project's node_modules, the hooks name this
    // machine's program, so they go to Claude Code's local settings file.
    let hooks = [".claude/settings.json", ".claude/settings.local.json"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(t.workdir().join(f)).ok())
        .collect::<String>();
    assert!(hooks.contains("SessionStart"), "{hooks}");
    for f in [".cursor/mcp.json", ".vscode/mcp.json"] {
        let text = std::fs::read_to_string(t.workdir().join(f)).unwrap();
        assert!(text.contains("wave-rules"), "{f}: {text}");
    }
}

#[test]
fn memory_list_show_and_clear() {
    let t = Tree::made();
    t.git_root(t.workdir());
    let store = MemoryStore::new(MemoryLocations::new(&t.home(), &t.workdir()));
    store
        .write_topic(
            MemoryScope::Project,
            "Build steps",
            "npm run build",
            WriteMode::Replace,
        )
        .unwrap();
    store
        .write_topic(MemoryScope::User, "Editor", "Uses vim.", WriteMode::Replace)
        .unwrap();
    // From a subdirectory: the project root's memory.
    let sub = t.workdir().join("lib");
    std::fs::create_dir_all(&sub).unwrap();
    let r = t.run_in(&sub, &["memory", "list"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("project  Build steps"), "{}", r.stdout);
    assert!(r.stdout.contains("user     Editor"), "{}", r.stdout);
    assert!(r.stdout.contains("2 topics"), "{}", r.stdout);
    let r = t.run_in(&sub, &["memory", "show", "Build steps"]);
    let id = &store.entries(MemoryScope::Project, "build steps").unwrap()[0]
        .meta
        .id;
    assert_eq!((r.code, r.stdout), (0, format!("[{id}]\nnpm run build\n")));
    let r = t.run_in(&sub, &["memory", "show", "Build step"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("did you mean: Build steps?"),
        "{}",
        r.stderr
    );
    let r = t.run_in(&sub, &["memory", "clear"]);
    assert_eq!(r.code, 2, "clear needs --scope");
    let r = t.run_in(&sub, &["memory", "clear", "--scope", "project"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("cleared 1 project memory topic"),
        "{}",
        r.stdout
    );
    let v = json(&t.run_in(&sub, &["memory", "list", "--json"]));
    assert_eq!(v["topics"].as_array().unwrap().len(), 1);
    assert_eq!(v["topics"][0]["scope"], "user");
}

#[test]
fn completions_for_each_shell_name_the_subcommands() {
    let t = Tree::made();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let r = t.run(&["completions", shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        assert!(
            r.stdout.contains("wave-rules") && r.stdout.contains("init"),
            "{shell}"
        );
    }
    let r = t.run(&["completions", "tcsh"]);
    assert_eq!(r.code, 2);
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let t = Tree::made();
    t.project("ts.md", "---\npath: src/**\n---\nx");
    // Piped (as here): no colour by default.
    let r = t.run(&["validate"]);
    assert!(!r.stdout.contains('\x1b'), "{}", r.stdout);
    let r = t.run(&["validate", "--color", "always"]);
    assert!(
        r.stdout.contains("\x1b[1;31merror[misspelled-key]\x1b[0m"),
        "{:?}",
        r.stdout
    );
    let r = t.run(&["list", "--color", "always"]);
    assert!(r.stdout.starts_with("\x1b[1mID"), "{:?}", r.stdout);
    let r = t.run(&["validate", "--color", "never"]);
    assert!(!r.stdout.contains('\x1b'));
}

#[test]
fn colour_on_a_terminal_unless_no_color() {
    // A pseudo-terminal through util-linux `script`, when the machine has it.
    let script = Path::new("/usr/bin/script");
    if !script.exists() {
        // Past the harness's capture, so the skip is seen.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no /usr/bin/script to give the command a terminal"
        );
        return;
    }
    let t = Tree::made();
    t.project("ts.md", "---\npath: src/**\n---\nx");
    let command = format!(
        "{} validate --home {}",
        env!("CARGO_BIN_EXE_wave-rules"),
        t.home().display()
    );
    let on_tty = |no_color: Option<&str>| {
        let mut c = Command::new(script);
        c.args(["-qec", &command, "/dev/null"])
            .current_dir(t.workdir())
            .env("TERM", "xterm")
            .env_remove("NO_COLOR");
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        String::from_utf8_lossy(&c.output().unwrap().stdout).into_owned()
    };
    let out = on_tty(None);
    assert!(
        out.contains("\x1b[1;31merror[misspelled-key]\x1b[0m"),
        "{out:?}"
    );
    let out = on_tty(Some("1"));
    assert!(
        out.contains("error[misspelled-key]") && !out.contains('\x1b'),
        "{out:?}"
    );
}

/// Someone else's repository: no `.wave/rules`, but other tools' rule
/// files. `list` names them per tool and the two commands that use them;
/// `doctor` counts each source's own rules (a project-wide source is not
/// every rule under the project).
#[test]
fn other_tools_files_are_named_with_the_commands_to_use_them() {
    let t = Tree::made();
    let w = t.workdir();
    for (rel, text) in [
        (".cursor/rules/a.mdc", "---\nalwaysApply: true\n---\nA."),
        (".cursor/rules/b.mdc", "---\nglobs: src/**\n---\nB."),
        (".windsurf/rules/c.md", "---\ntrigger: always_on\n---\nC."),
        ("AGENTS.md", "Root."),
        ("pkg/AGENTS.md", "Package."),
    ] {
        let p = w.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let r = t.run(&["list"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("0 rules"), "{}", r.stdout);
    for want in [
        "this project has 5 rules of other tools (AGENTS.md 2, Cursor 2, Windsurf 1)",
        "wave-rules --sources all list",
        "wave-rules import --from agents-md,cursor,windsurf",
    ] {
        assert!(r.stdout.contains(want), "{want}\n{}", r.stdout);
    }
    let v = json(&t.run(&["--sources", "all", "doctor", "--json"]));
    let count = |format: &str, dir: &str| {
        v["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["format"] == format && s["dir"] == dir)
            .unwrap_or_else(|| panic!("no {format} {dir}: {}", v["sources"]))["rules"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(count("agents-md", "."), 2);
    assert_eq!(count("cursor", "."), 0, "no nested .cursor/rules");
    assert_eq!(count("cursor", ".cursor/rules"), 2);
    assert_eq!(count("windsurf", ".windsurf/rules"), 1);
    assert_eq!(v["rules"], 5);
}

/// `--sources claude` reads the project's `CLAUDE.md` (Claude Code's memory
/// file), and `match` gives its reason in Claude Code's words, not
/// AGENTS.md's; a `CLAUDE.md` that is a link to the `AGENTS.md` beside it is
/// one rule when both sources are read.
#[test]
fn claude_md_is_claude_codes_own_file() {
    let t = Tree::made();
    let w = t.workdir();
    std::fs::write(w.join("AGENTS.md"), "Run make test.").unwrap();
    std::fs::write(w.join("CLAUDE.md"), "Use pnpm.").unwrap();
    let r = t.run(&["--sources", "claude", "match", "--all", "src/a.ts"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("claude:CLAUDE.md"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Claude Code: memory file"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("AGENTS.md"), "{}", r.stdout);
    #[cfg(unix)]
    {
        std::fs::remove_file(w.join("CLAUDE.md")).unwrap();
        std::os::unix::fs::symlink("AGENTS.md", w.join("CLAUDE.md")).unwrap();
        let v = json(&t.run(&["--sources", "claude,agents-md", "list", "--json"]));
        let ids: Vec<&str> = v["rules"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids.len(), 1, "{ids:?}");
    }
}
