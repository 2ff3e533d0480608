//! The real `wave-rules` binary on real temp trees: every subcommand, every
//! exit code, every check.

mod common;
use common::{json, CliTree, Run, Tree};
use std::process::Command;

#[test]
fn validate_clean_tree_exits_0() {
    let t = Tree::made();
    t.project("a.md", "---\npaths: src/**\n---\nA");
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        format!(
            "project root: {} (has .wave)\n1 rule loaded; 0 errors, 0 warnings, 0 infos\n",
            t.workdir().display()
        )
    );
}

#[test]
fn validate_prints_location_message_and_source_line_and_exits_1() {
    let t = Tree::made();
    t.project("ok.md", "fine");
    t.project(
        "bad.md",
        "---\ndescription: x\npaths: [src/**, \"lib/**\"\n---\nbody",
    );
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.starts_with(
            ".wave/rules/bad.md:3:8: error[yaml-syntax]: invalid frontmatter: unclosed bracket '['; the rule is not loaded\n  3 | paths: [src/**, \"lib/**\"\n    |        ^\n"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .ends_with("1 rule loaded; 1 error, 0 warnings, 0 infos\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn validate_strict_fails_on_warnings_only() {
    let t = Tree::made();
    t.project("cursor.md", "---\nglobs: '*.ts'\n---\nbody");
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("warning[foreign-key]: 'globs' is Cursor's key: write 'paths' instead"),
        "{}",
        r.stdout
    );
    let r = t.run(&["validate", "--strict"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.ends_with("(--strict: warnings fail)\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn validate_reports_every_check() {
    let t = Tree::made();
    t.project(
        "bad-glob.md",
        "---\npaths: ['src/[[:alpha:]]', 'a/{b,c']\n---\nx",
    );
    t.project("ext.md", "---\npaths: '+(a|b).ts'\n---\nx");
    t.project("never.md", "---\npaths: ['/etc/**', '../up/*.ts']\n---\nx");
    t.project("dup.md", "project wins");
    t.user("dup.md", "user loses");
    t.project(
        "foreign.md",
        "---\napplyTo: '**'\nalwaysApply: true\n---\nx",
    );
    t.project("empty.md", "---\ntopics: x\n---\n\n");
    t.project("big.md", &"y".repeat(300 * 1024));
    t.write(t.tmp.path().join("elsewhere/r.md"), "outside");
    std::os::unix::fs::symlink(
        t.tmp.path().join("elsewhere"),
        t.workdir().join(".wave/rules/linked"),
    )
    .unwrap();
    let r = t.run(&["validate", "--json"]);
    assert_eq!(r.code, 1);
    let v = json(&r);
    let got: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {} {}",
                d["severity"].as_str().unwrap(),
                d["code"].as_str().unwrap(),
                d["file"].as_str().unwrap()
            )
        })
        .collect();
    let home_dup = format!(
        "info overridden {}",
        t.home().join(".wave/rules/dup.md").display()
    );
    for want in [
        "error unsupported-glob .wave/rules/bad-glob.md",
        "error unsupported-glob .wave/rules/ext.md",
        "warning unmatchable-glob .wave/rules/never.md",
        home_dup.as_str(),
        "warning foreign-key .wave/rules/foreign.md",
        "warning empty-body .wave/rules/empty.md",
        "error too-large .wave/rules/big.md",
        "warning symlink-outside .wave/rules/linked",
    ] {
        assert!(
            got.iter().any(|g| g == want),
            "missing '{want}' in {got:#?}"
        );
    }
    assert!(
        got.iter()
            .filter(|g| g.contains("unmatchable-glob"))
            .count()
            == 2,
        "{got:#?}"
    );
    assert_eq!(v["ok"], false);
    assert!(r.stderr.is_empty());
}

#[test]
fn validate_github_annotations() {
    let t = Tree::made();
    t.project("bad, name.md", "---\npriority: high\n---\nx");
    let r = t.run(&["validate", "--format", "github"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().next().unwrap(),
        "::error file=.wave/rules/bad%2C name.md,line=2,col=1,title=error[invalid-field]::'priority' must be an integer, not \"high\"; using 0"
    );
}

#[test]
fn validate_only_the_given_paths() {
    let t = Tree::made();
    t.project("broken.md", "---\npaths: [\n---\nx");
    let good = t.write(
        t.workdir().join("proposed/rule.md"),
        "---\npaths: '*.ts'\n---\nok",
    );
    let r = t.run(&["validate", good.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.stdout, "1 rule loaded; 0 errors, 0 warnings, 0 infos\n");
    // A file outside every source is read in the format its path suggests.
    let cursor = t.write(
        t.workdir().join("proposed/rule.mdc"),
        "---\npaths: '*.ts'\n---\nok",
    );
    let r = t.run(&["validate", cursor.to_str().unwrap()]);
    assert!(r.stdout.starts_with("proposed/rule.mdc:2:1: warning[foreign-key]: 'paths' is Claude Code's key, not Cursor's: write 'globs'"), "{}", r.stdout);
    let r = t.run(&["validate", ".wave/rules"]);
    assert_eq!(r.code, 1);
    let r = t.run(&["validate", "missing.md"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("wave-rules: cannot read missing.md:"),
        "{}",
        r.stderr
    );
}

#[test]
fn usage_and_io_trouble_exit_2() {
    let t = Tree::made();
    let r = t.run(&["validate", "--format", "xml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid value 'xml'"), "{}", r.stderr);
    assert_eq!(t.run(&["frobnicate"]).code, 2);
    let r = t.run(&["list", "--workdir", "/nonexistent/dir"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not a directory"), "{}", r.stderr);
    let r = t.run(&["--help"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("validate") && r.stdout.contains("remove"));
}

#[test]
fn the_help_says_what_each_command_does_today() {
    let t = Tree::made();
    let r = t.run(&["--help"]);
    // A command's entry: its line and the lines clap wraps it onto (indented
    // deeper than the command names).
    let line = |name: &str| {
        let lines: Vec<&str> = r.stdout.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no `{name}` in the help:\n{}", r.stdout));
        let indent = |l: &str| l.len() - l.trim_start().len();
        let own = indent(lines[at]);
        let mut entry = lines[at].trim().to_string();
        for l in &lines[at + 1..] {
            if l.trim().is_empty() || indent(l) <= own {
                break;
            }
            entry.push(' ');
            entry.push_str(l.trim());
        }
        entry
    };
    let hook = line("hook");
    for agent in [
        "Claude Code",
        "Codex",
        "Gemini CLI",
        "Copilot CLI",
        "Cursor",
    ] {
        assert!(hook.contains(agent), "{hook}");
    }
    let mcp = line("mcp");
    for client in [
        "claude", "cursor", "vscode", "codex", "opencode", "gemini", "copilot",
    ] {
        assert!(mcp.contains(client), "{mcp}");
    }
    // Every command, and every subcommand of hook, mcp and memory, has its line.
    for cmd in [&["hook"][..], &["mcp"], &["memory"]] {
        let r = t.run(&[cmd, &["--help"]].concat());
        assert_eq!(r.code, 0, "{}", r.stderr);
        let listed = r
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .filter(|l| !l.trim_start().starts_with("help "))
            // Lines clap wrapped an entry onto are indented past the names.
            .filter(|l| l.len() - l.trim_start().len() <= 2)
            .collect::<Vec<_>>();
        assert!(!listed.is_empty(), "{}", r.stdout);
        for l in listed {
            let words = l.split_whitespace().count();
            assert!(
                words >= 4,
                "`{}` {l:?}: one line that says what it does",
                cmd[0]
            );
        }
    }
}

#[test]
fn list_table_and_json() {
    let t = Tree::made();
    t.project(
        "db.md",
        "---\ntopics: [customer, sql]\npriority: 4\n---\nThe customer table is read-only.\nMore.",
    );
    t.user("mine.md", "Always mine.");
    t.project("broken.md", "---\n[\n---\nx");
    let r = t.run(&["list"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        "ID       SCOPE    PRIORITY  TRIGGERS               CONTENT\n\
         db.md    project  4         topics: customer, sql  The customer table is read-only.\n\
         mine.md  user     0         always                 Always mine.\n\
         2 rules\n"
            .to_string()
            + &format!("project root: {} (has .wave)\n", t.workdir().display())
    );
    assert_eq!(
        r.stderr,
        "wave-rules: 1 problem kept rules from loading; run `wave-rules validate`\n"
    );
    let v = json(&t.run(&["list", "--json"]));
    assert_eq!(v["rules"][0]["id"], "db.md");
    assert_eq!(
        v["rules"][0]["topics"],
        serde_json::json!(["customer", "sql"])
    );
    assert_eq!(v["rules"][1]["scope"], "user");
    assert_eq!(v["rules"][1]["paths"], serde_json::Value::Null);
}

#[test]
fn match_explains_why_and_why_not() {
    let t = Tree::made();
    t.project(
        "ts.md",
        "---\npaths: ['src/**/*.ts', '!**/*.test.ts']\n---\nTS",
    );
    t.project("db.md", "---\ntopics: customer\n---\nDB");
    t.project("css.md", "---\npaths: '**/*.css'\n---\nCSS");
    t.project("always.md", "A");
    let r = t.run(&[
        "match",
        "--prompt",
        "list Customers",
        "src/a.ts",
        "../elsewhere.ts",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        "note: '../elsewhere.ts' is outside the workdir; it matches no pattern\n\
         3 of 4 rules active for 2 files and the prompt\n  \
         always.md (project, priority 0)\n    always active: no paths and no topics\n  \
         db.md (project, priority 0)\n    topic 'customer' starts the word 'customers' in the prompt\n  \
         ts.md (project, priority 0)\n    path 'src/**/*.ts' matches src/a.ts\n"
    );
    let r = t.run(&["match", "--all", "src/a.test.ts"]);
    assert!(
        r.stdout.contains("3 conditional rules not active\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "    src/a.test.ts matches 'src/**/*.ts' but is excluded by '!**/*.test.ts'\n"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("    paths: none of the 1 files matches **/*.css\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("    topics: no prompt given (customer)\n"),
        "{}",
        r.stdout
    );
    let v = json(&t.run(&["match", "--json", "--all", "./src/x.ts"]));
    assert_eq!(v["files"][0]["normalized"], "src/x.ts");
    assert_eq!(
        v["active"][1]["reasons"][0],
        serde_json::json!({"kind": "path", "pattern": "src/**/*.ts", "file": "src/x.ts"})
    );
    assert_eq!(v["inactive"].as_array().unwrap().len(), 2);
}

#[test]
fn match_write_and_command_say_what_would_be_refused_and_what_the_model_reads() {
    let t = Tree::made();
    t.project(
        "gen.md",
        "---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by `npm run gen`.\n",
    );
    t.project(
        "push.md",
        "---\ncommands: [\"git push --force*\", \"git push -f*\"]\nenforce: warn\n---\nAsk before a force push.\n",
    );
    t.project("ts.md", "---\npaths: src/**\n---\nTS\n");
    let r = t.run(&[
        "match",
        "--write",
        "gen/a.ts",
        "--write",
        "src/x.ts",
        "--command",
        "cd gen && echo x > a.ts",
        "--command",
        "sudo git push -f origin",
        "--command",
        "if then",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "write gen/a.ts: refused by 1 rule\n  \
         gen.md (project, enforce: block)\n    \
         path 'gen/**' matches gen/a.ts\n  \
         the model reads:\n    \
         | Refused by the project's rules: writing gen/a.ts is not allowed.\n    \
         | [gen.md] Generated files are rebuilt by `npm run gen`.\n\
         write src/x.ts: allowed; no enforced rule governs it\n\
         command `cd gen && echo x > a.ts`: refused by 1 rule\n  \
         gen.md (project, enforce: block)\n    \
         path 'gen/**' matches gen/a.ts\n  \
         the model reads:\n    \
         | Refused by the project's rules: writing gen/a.ts is not allowed.\n    \
         | [gen.md] Generated files are rebuilt by `npm run gen`.\n\
         command `sudo git push -f origin`: allowed, with a warning from 1 rule\n  \
         push.md (project, enforce: warn)\n    \
         `sudo git push -f origin` matches the command pattern 'git push -f*'\n  \
         the model reads:\n    \
         | Allowed, with a warning from the project's rules about running `sudo git push -f origin`:\n    \
         | [push.md] (matches `git push -f*`) Ask before a force push.\n\
         command `if then`: not checked (the command does not parse as a shell command: syntax error at end of input); a hook lets it run\n"
    );
    // From a subdirectory, a written path is relative to it, as in a shell.
    std::fs::create_dir_all(t.workdir().join("gen")).unwrap();
    let r = t.run_in(
        &t.workdir().join("gen"),
        &["match", "--write", "b.ts", "--command", "touch c.ts"],
    );
    assert!(
        r.stdout.starts_with("write gen/b.ts: refused by 1 rule\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("command `touch c.ts`: refused by 1 rule\n"),
        "{}",
        r.stdout
    );
    // With files, the match output comes first; JSON holds both.
    let v = json(&t.run(&[
        "match",
        "--json",
        "src/a.ts",
        "--command",
        "git push --force",
    ]));
    assert_eq!(v["active"][0]["id"], "ts.md");
    assert_eq!(v["enforcement"][0]["decision"], "warn");
    assert_eq!(v["enforcement"][0]["rules"][0]["id"], "push.md");
    let v = json(&t.run(&["match", "--json", "--command", "ls"]));
    assert_eq!(v["enforcement"][0]["decision"], "allow");
}

#[test]
fn validate_is_loud_about_what_weakens_an_enforced_rule() {
    let t = Tree::made();
    t.project("a.md", "---\nenforce: block\n---\nNothing to check.\n");
    t.project("b.md", "---\npaths: gen/**\nenforced: block\n---\nTypo.\n");
    t.project("c.md", "---\nenforce: block\ncommands: [\" git push\", \"npm test && git push\"]\n---\nPatterns.\n");
    let r = t.run(&["validate"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    for needle in [
        "a.md:2:1: error[enforce-without-trigger]: 'enforce: block' has nothing to check",
        "b.md:3:1: error[misspelled-key]: unknown key 'enforced': did you mean 'enforce'? 'enforced' is ignored, so this rule refuses nothing",
        "c.md:3:12: error[unmatchable-command]: ' git push' starts or ends with a space",
        "c.md:3:25: warning[unmatchable-command]: 'npm test && git push' holds `&&`",
    ] {
        assert!(r.stdout.contains(needle), "{needle}\n{}", r.stdout);
    }
}

#[test]
fn match_skill_shows_the_rules_a_skill_activates_and_list_shows_the_key() {
    let t = Tree::made();
    t.project("replica.md", "---\nskills: [db-work]\n---\nReplica");
    t.project("always.md", "A");
    let r = t.run(&["match", "--skill", "/DB-Work", "README.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("  replica.md (project, priority 0)\n    the skill 'db-work' is active\n"),
        "{}",
        r.stdout
    );
    let r = t.run(&["match", "--all", "README.md"]);
    assert!(
        r.stdout.contains("    skills: no skill given (db-work)\n"),
        "{}",
        r.stdout
    );
    let v = json(&t.run(&["match", "--json", "--skill", "db-work"]));
    assert_eq!(v["skills"], serde_json::json!(["db-work"]));
    let replica = v["active"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "replica.md")
        .unwrap();
    assert_eq!(replica["activation"], "skills");
    assert_eq!(
        replica["reasons"][0],
        serde_json::json!({"kind": "skill", "name": "db-work"})
    );
    let v = json(&t.run(&["list", "--json"]));
    let listed = v
        .as_array()
        .or_else(|| v["rules"].as_array())
        .unwrap()
        .iter()
        .find(|r| r["id"] == "replica.md")
        .unwrap()
        .clone();
    assert_eq!(listed["skills"], serde_json::json!(["db-work"]));
    assert!(t.run(&["list"]).stdout.contains("skills: db-work"));
}

#[test]
fn add_writes_a_rule_that_loads_and_fires() {
    let t = Tree::made();
    let r = t.run(&[
        "add",
        "--topics",
        "customer, sql",
        "--paths",
        "db/**,{src,lib}/**/*.sql",
        "--priority",
        "-3",
        "The customer table is read-only!",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "added project rule the-customer-table-is-read-only.md: .wave/rules/the-customer-table-is-read-only.md\n");
    let text = std::fs::read_to_string(
        t.workdir()
            .join(".wave/rules/the-customer-table-is-read-only.md"),
    )
    .unwrap();
    assert_eq!(
        text,
        "---\npaths:\n  - \"db/**\"\n  - \"{src,lib}/**/*.sql\"\ntopics:\n  - \"customer\"\n  - \"sql\"\npriority: -3\n---\nThe customer table is read-only!\n"
    );
    assert_eq!(t.run(&["validate"]).code, 0);
    let v = json(&t.run(&["match", "--json", "lib/x/q.sql"]));
    assert_eq!(v["active"][0]["id"], "the-customer-table-is-read-only.md");
    // Other texts with the same id get -2, -3.
    for (n, text) in [
        (2, "The customer table is read-only?"),
        (3, "The customer table is read-only."),
    ] {
        let r = t.run(&["add", "--topics", "x", text]);
        assert!(
            r.stdout
                .contains(&format!("the-customer-table-is-read-only-{n}.md")),
            "{}",
            r.stdout
        );
    }
}

#[test]
fn add_slug_user_scope_always_and_json() {
    let t = Tree::made();
    let r = t.run(&[
        "add",
        "--always",
        "--scope",
        "user",
        "--json",
        "ÜGYFÉL: never delete rows from the production database",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["id"], "ügyfél-never-delete-rows-from-the-produc.md");
    assert_eq!(v["scope"], "user");
    let file = t
        .home()
        .join(".wave/rules/ügyfél-never-delete-rows-from-the-produc.md");
    assert_eq!(
        std::fs::read_to_string(file).unwrap(),
        "ÜGYFÉL: never delete rows from the production database\n"
    );
    let r = t.run(&["add", "--always", "!!!"]);
    assert!(
        r.stdout.contains("added project rule rule.md"),
        "{}",
        r.stdout
    );
}

#[test]
fn add_refusals() {
    let t = Tree::made();
    for (args, message) in [
        (vec!["add", "--topics", "x"], "wave-rules: no content: give the rule's text as the last argument\n"),
        (vec!["add", "--topics", "x", "   "], "wave-rules: no content: give the rule's text as the last argument\n"),
        (
            vec!["add", "Some rule"],
            "wave-rules: a rule needs --topics or --paths to say when it applies (or --always for a rule that is always active)\n",
        ),
        (vec!["add", "--paths", "+(a|b)", "Some rule"], "wave-rules: pattern '+(a|b)': the extglob '+(...)' is not supported; nothing written\n"),
    ] {
        let r = t.run(&args);
        assert_eq!((r.code, r.stderr.as_str()), (1, message), "{args:?}");
    }
    assert_eq!(
        t.run(&["add", "--always", "--topics", "x", "y"]).code,
        2,
        "conflicting flags are a usage error"
    );
    assert!(
        !t.workdir().join(".wave/rules").exists()
            || std::fs::read_dir(t.workdir().join(".wave/rules"))
                .unwrap()
                .count()
                == 0
    );
}

#[test]
fn remove_by_id_with_or_without_extension() {
    let t = Tree::made();
    let a = t.project("frontend/react.md", "R");
    let b = t.user("mine.md", "M");
    let r = t.run(&["remove", "frontend/react"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            0,
            "removed project rule frontend/react.md: .wave/rules/frontend/react.md\n"
        )
    );
    assert!(!a.exists());
    assert_eq!(t.run(&["remove", "mine.md", "--json"]).code, 0);
    assert!(!b.exists());
    let r = t.run(&["remove", "nope"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "wave-rules: rule 'nope' not found; `wave-rules list` shows the ids\n"
        )
    );
}

#[test]
fn remove_never_reaches_outside_the_roots() {
    let t = Tree::made();
    let victim = t.write(t.workdir().join("keep.md"), "not a rule");
    let outside = t.write(t.tmp.path().join("team/shared.md"), "team");
    std::fs::create_dir_all(t.workdir().join(".wave/rules")).unwrap();
    std::os::unix::fs::symlink(
        t.tmp.path().join("team"),
        t.workdir().join(".wave/rules/team"),
    )
    .unwrap();
    for id in [
        "../../keep",
        "../../keep.md",
        "/etc/passwd",
        "a/../../keep",
        "..\\keep",
        "",
    ] {
        let r = t.run(&["remove", id]);
        assert_eq!(r.code, 1, "{id}: {}", r.stderr);
        assert!(r.stderr.contains("invalid rule id"), "{id}: {}", r.stderr);
    }
    let r = t.run(&["remove", "team/shared"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("outside the rules directory"),
        "{}",
        r.stderr
    );
    assert!(victim.exists() && outside.exists());
    // A symlinked file is removed as a link; its target stays.
    let target = t.write(t.tmp.path().join("solo.md"), "solo");
    std::os::unix::fs::symlink(&target, t.workdir().join(".wave/rules/solo.md")).unwrap();
    assert_eq!(t.run(&["remove", "solo"]).code, 0);
    assert!(target.exists());
    assert!(!t.workdir().join(".wave/rules/solo.md").exists());
}

/// Issue 9, finding 3: a committed link must not put a secret (or any file
/// outside the project) into every prompt; `validate --strict` fails on it.
#[test]
fn validate_reports_links_to_secrets_and_outside_files() {
    let t = Tree::made();
    t.project("ok.md", "fine");
    t.write(t.workdir().join(".env"), "API_KEY=secret");
    std::os::unix::fs::symlink("../../.env", t.workdir().join(".wave/rules/notes.md")).unwrap();
    t.write(t.tmp.path().join("team/security.md"), "No secrets in code.");
    std::os::unix::fs::symlink(
        t.tmp.path().join("team"),
        t.workdir().join(".wave/rules/team"),
    )
    .unwrap();
    let r = t.run(&["validate", "--strict"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains(".wave/rules/notes.md: warning[symlink-target]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(".env, which is not a rule file"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(".wave/rules/team: warning[symlink-outside]"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1 rule loaded"), "{}", r.stdout);
    let r = t.run(&["list", "--json"]);
    assert!(
        !r.stdout.contains("secret") && !r.stdout.contains("notes.md"),
        "{}",
        r.stdout
    );
    // The team folder, allowed: loads; the .env link still never does.
    let team = t.tmp.path().join("team");
    let r = t.run(&[
        "validate",
        "--strict",
        "--allow-dir",
        team.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 1);
    assert!(!r.stdout.contains("symlink-outside"), "{}", r.stdout);
    assert!(r.stdout.contains("2 rules loaded"), "{}", r.stdout);
    std::fs::remove_file(t.workdir().join(".wave/rules/notes.md")).unwrap();
    let r = t.run(&[
        "validate",
        "--strict",
        "--allow-dir",
        team.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

/// Issue 9, finding 7: `validate` on a FIFO hung; on a link to /dev/zero it
/// grew to 4 GB.
#[test]
fn validate_never_blocks_on_fifos_or_devices() {
    let t = Tree::made();
    let fifo = t.workdir().join("fifo.md");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::os::unix::fs::symlink("/dev/zero", t.workdir().join("zero.md")).unwrap();
    let r = t.run(&["validate", "fifo.md", "zero.md"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout
            .matches("error[unreadable]: not a regular file")
            .count(),
        2,
        "{}",
        r.stdout
    );
}

/// Issue 9, finding 9: a file name or YAML key must not inject a GitHub
/// Actions workflow command or a terminal escape into the text output.
#[test]
fn control_characters_from_files_are_escaped_in_every_format() {
    let t = Tree::made();
    t.project(
        "evil\n::error file=x::pwned.md",
        "---\npaths: src/**\n---\nrule",
    );
    t.project("key.md", "---\n\"a\\n::error ::injected\\u001b[31m\": 1\ntopics: \"\\u001b]0;title\\u0007x\"\n---\nbody\u{1b}[2J");
    for args in [
        &["validate"][..],
        &["validate", "--format", "github"],
        &["list"],
        &["match", "--all", "--prompt", "x", "src/a.ts"],
    ] {
        let r = t.run(args);
        for line in r.stdout.lines().chain(r.stderr.lines()) {
            assert!(
                !line.starts_with("::error file=x") && !line.starts_with("::error ::injected"),
                "{args:?} injected: {line}"
            );
            if args[0] != "validate" || args.len() == 1 {
                assert!(!line.starts_with("::"), "{args:?}: {line}");
            }
            assert!(
                !line.contains('\u{1b}') && !line.contains('\u{7}'),
                "{args:?} raw escape: {line:?}"
            );
        }
    }
    let r = t.run(&["validate"]);
    assert!(
        r.stdout.contains("a\\n::error ::injected\\x1b[31m"),
        "{}",
        r.stdout
    );
    let r = t.run(&["list", "--json"]);
    assert!(
        !r.stdout.contains('\u{1b}'),
        "JSON escapes control characters itself"
    );
}

/// Issue 9, finding 14: `add` with content starting with `---` wrote a
/// conditional or broken rule.
#[test]
fn add_keeps_content_that_starts_with_a_fence_as_the_body() {
    let t = Tree::made();
    let content = "---\npaths: secret/**\n---\nnot frontmatter";
    let out = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(["add", "--always", "--home"])
        .arg(t.home())
        .args(["--", content])
        .current_dir(t.workdir())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = t.run(&["list", "--json"]);
    let v = json(&r);
    let rule = &v["rules"][0];
    assert_eq!(rule["firstLine"], "---", "{v}");
    assert!(
        rule["paths"].is_null() && rule["topics"].is_null(),
        "the rule stays always-on: {v}"
    );
    let r = t.run(&["match", "--json", "x.ts"]);
    assert!(
        r.stdout.contains("not frontmatter")
            || json(&r)["active"].as_array().is_some_and(|a| a.len() == 1),
        "{}",
        r.stdout
    );
    let r = t.run(&["validate", "--strict"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn claude_rules_are_read_by_default_and_source_replaces_the_list() {
    let t = Tree::made();
    t.write(
        t.home().join(".claude/rules/a/b/deep.md"),
        "user claude, deep",
    );
    t.write(t.workdir().join(".claude/rules/style.md"), "project claude");
    t.project("style.md", "project wave wins");
    t.write(t.workdir().join("team/x.md"), "team");
    t.write(t.workdir().join("team/sub/y.md"), "team, one level down");
    let ids = |r: &Run| -> Vec<String> {
        json(r)["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                format!(
                    "{}:{}",
                    x["scope"].as_str().unwrap(),
                    x["id"].as_str().unwrap()
                )
            })
            .collect()
    };
    let r = t.run(&["list", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(ids(&r), ["project:style.md", "user:a/b/deep.md"]);

    let r = t.run(&[
        "list",
        "--json",
        "--source",
        "user:wave:0=team",
        "--source",
        "project=.claude/rules",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(ids(&r), ["project:style.md", "user:x.md"]);
    let r = t.run(&["list", "--json", "--source", "project:wave:any=team"]);
    assert_eq!(ids(&r), ["project:sub/y.md", "project:x.md"]);

    // `add` writes into the last wave source of the scope.
    let r = t.run(&[
        "add",
        "--always",
        "--source",
        "project:wave:any=team",
        "Team rule",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(t.workdir().join("team/team-rule.md").is_file());

    for bad in [
        "nowhere",
        "group=dir",
        "project:nosuch=dir",
        "project:wave:deep=dir",
        "project=",
    ] {
        let r = t.run(&["list", "--source", bad]);
        assert_eq!(r.code, 2, "{bad}: {}", r.stderr);
        assert!(r.stderr.contains("--source"), "{bad}: {}", r.stderr);
    }
}

#[test]
fn sources_by_name_on_every_subcommand() {
    let t = Tree::made();
    t.project("style.md", "Wave.");
    t.write(
        t.workdir().join(".cursor/rules/ui.mdc"),
        "---\nglobs: src/**/*.tsx\n---\nCursor UI.",
    );
    t.write(
        t.workdir().join(".cursor/rules/api.mdc"),
        "---\ndescription: API handlers\n---\nCursor API.",
    );
    t.write(
        t.workdir().join(".kiro/steering/k.md"),
        "---\ninclusion: fileMatch\nfileMatchPattern: '*.ts,*.tsx'\n---\nKiro.",
    );
    t.write(t.workdir().join("AGENTS.md"), "Agents.");
    let ids = |r: &Run| -> Vec<String> {
        json(r)["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap().to_string())
            .collect()
    };
    // The default is what the agent SDK reads: no other agent's files.
    assert_eq!(ids(&t.run(&["list", "--json"])), ["style.md"]);
    assert_eq!(
        ids(&t.run(&["list", "--json", "--sources", "cursor,wave"])),
        ["cursor:api.mdc", "cursor:ui.mdc", "style.md"]
    );
    assert_eq!(
        ids(&t.run(&["list", "--json", "--sources", "all"])).len(),
        5
    );

    // validate lints every format it reads, same output forms.
    let r = t.run(&["validate", "--sources", "kiro"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.starts_with(".kiro/steering/k.md:3:20: warning[comma-joined-pattern]: Kiro reads '*.ts,*.tsx' as ONE literal pattern"), "{}", r.stdout);
    let r = t.run(&[
        "validate",
        "--sources",
        "kiro",
        "--strict",
        "--format",
        "github",
    ]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.starts_with("::warning file=.kiro/steering/k.md,line=3,col=20,title=warning[comma-joined-pattern]::"), "{}", r.stdout);
    let r = t.run(&["validate", "--json", "--sources", "kiro"]);
    assert_eq!(json(&r)["diagnostics"][0]["code"], "comma-joined-pattern");

    // match: each format in its tool's terms; on-request rules are available.
    let r = t.run(&[
        "match",
        "--all",
        "--sources",
        "all",
        "src/a/b.tsx",
        "lib/x.ts",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("  cursor:ui.mdc (project, priority 0)\n    Cursor: Auto Attached, `globs` 'src/**/*.tsx' matches src/a/b.tsx\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("    AGENTS.md: project root file\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1 rule available on request (offered by description; the model reads them with read_rule)\n  cursor:api.mdc (project, priority 0)\n    API handlers\n"), "{}", r.stdout);
    assert!(r.stdout.contains("  kiro:k.md (project, priority 0)\n    Kiro: inclusion: fileMatch, `fileMatchPattern`: none of the 2 files matches *.ts,*.tsx\n"), "{}", r.stdout);
    let r = t.run(&[
        "match",
        "--json",
        "--sources",
        "cursor",
        "--prompt",
        "see @api",
    ]);
    let doc = json(&r);
    assert_eq!(doc["active"][0]["id"], "cursor:api.mdc");
    assert_eq!(doc["active"][0]["reasons"][0]["kind"], "mention");
    assert_eq!(doc["available"], serde_json::json!([]));
    let doc = json(&t.run(&["match", "--json", "--sources", "cursor"]));
    assert_eq!(
        doc["available"],
        serde_json::json!([{ "id": "cursor:api.mdc", "description": "API handlers", "format": "cursor" }])
    );

    // A bad name is usage trouble; --sources and --source do not mix.
    let r = t.run(&["list", "--sources", "cursor,vim"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown source 'vim'"), "{}", r.stderr);
    assert_eq!(
        t.run(&["list", "--sources", "cursor", "--source", "project=x"])
            .code,
        2
    );
}
