//! `wave-rules export` and `import`, the real binary on real temp trees:
//! `--check` fails after a hand edit and passes after export, `--dry-run`
//! writes nothing, a hand-written file is never overwritten, `--watch`
//! picks up a new rule within a second, `import` keeps the meaning.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Tree {
    tmp: tempfile::TempDir,
}

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

impl Tree {
    fn new() -> Tree {
        let t = Tree {
            tmp: tempfile::tempdir().unwrap(),
        };
        // The project is a root of its own (a `.git` with its `HEAD`): the
        // binary run in it finds it, never a folder above the temp folder.
        std::fs::create_dir_all(t.work().join(".git")).unwrap();
        std::fs::write(t.work().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(t.home()).unwrap();
        t
    }
    fn work(&self) -> PathBuf {
        self.tmp.path().join("work")
    }
    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.work().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.work().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_wave-rules"));
        c.args(args)
            .arg("--home")
            .arg(self.home())
            .current_dir(self.work());
        c
    }
    fn run(&self, args: &[&str]) -> Run {
        let out = self.command(args).output().unwrap();
        Run {
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
            code: out.status.code().expect("exited, not killed"),
        }
    }
}

fn rules(t: &Tree) {
    t.write(
        ".wave/rules/ts.md",
        "---\npaths: src/**/*.ts\n---\nStrict TS.",
    );
    t.write(
        ".wave/rules/sql.md",
        "---\ntopics: [sql]\n---\nNo SELECT *.",
    );
    t.write(".wave/rules/always.md", "Be kind.");
}

#[test]
fn check_fails_after_a_hand_edit_and_passes_after_export() {
    let t = Tree::new();
    rules(&t);
    let r = t.run(&["export", "--to", "all", "--check"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("+++ .cursor/rules/ts.mdc"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("run `wave-rules export --to"),
        "{}",
        r.stderr
    );

    let r = t.run(&["export", "--to", "all"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("create .cursor/rules/ts.mdc"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("cline: .wave/rules/sql.md (not exported): Cline cannot express topics"),
        "{}",
        r.stdout
    );
    assert!(t
        .read(".kiro/steering/ts.md")
        .contains("inclusion: fileMatch"));
    assert!(t.read("AGENTS.md").contains("Be kind."));
    let r = t.run(&["export", "--to", "all", "--check"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("up to date"), "{}", r.stdout);

    // A hand edit of a generated file: a readable diff, and annotations.
    let edited = t
        .read(".cursor/rules/ts.mdc")
        .replace("Strict TS.", "Loose TS.");
    t.write(".cursor/rules/ts.mdc", &edited);
    let r = t.run(&["export", "--to", "cursor", "--check"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("-Loose TS.\n+Strict TS.\n"),
        "{}",
        r.stdout
    );
    let r = t.run(&["export", "--to", "cursor", "--check", "--format", "github"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.starts_with("::error file=.cursor/rules/ts.mdc,"),
        "{}",
        r.stdout
    );
    // A source rule removed: its generated files go.
    std::fs::remove_file(t.work().join(".wave/rules/ts.md")).unwrap();
    let r = t.run(&["export", "--to", "cursor,kiro"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("remove .cursor/rules/ts.mdc"),
        "{}",
        r.stdout
    );
    assert!(!t.work().join(".kiro/steering/ts.md").exists());
}

#[test]
fn dry_run_writes_nothing_and_hand_written_files_are_never_replaced() {
    let t = Tree::new();
    rules(&t);
    let r = t.run(&["export", "--to", "windsurf", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("would create .windsurf/rules/ts.md"),
        "{}",
        r.stdout
    );
    assert!(!t.work().join(".windsurf").exists());

    let mine = "# Our own AGENTS.md\n";
    t.write("AGENTS.md", mine);
    let r = t.run(&["export", "--to", "agents-md,windsurf"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("AGENTS.md exists and was not written by wave-rules export"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("nothing was written"), "{}", r.stderr);
    assert_eq!(t.read("AGENTS.md"), mine);
    assert!(!t.work().join(".windsurf").exists());

    let r = t.run(&["export", "--to", "nope"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown target 'nope'"), "{}", r.stderr);
}

#[test]
fn watch_picks_up_a_new_rule_within_a_second() {
    let t = Tree::new();
    rules(&t);
    let mut child = t
        .command(&["export", "--to", "cursor", "--watch"])
        .env("WAVE_RULES_WATCH_SECONDS", "20")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let wait_for = |p: &Path, text: Option<&str>, within: Duration| {
        let start = Instant::now();
        while start.elapsed() < within {
            if let Ok(s) = std::fs::read_to_string(p) {
                if text.is_none_or(|x| s.contains(x)) {
                    return true;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    };
    // The first export, then the watch is set up before it.
    let first = wait_for(
        &t.work().join(".cursor/rules/ts.mdc"),
        None,
        Duration::from_secs(10),
    );
    assert!(first, "the first export did not happen");
    std::thread::sleep(Duration::from_millis(200));
    t.write(".wave/rules/new.md", "---\npaths: docs/**\n---\nNew rule.");
    let seen = wait_for(
        &t.work().join(".cursor/rules/new.mdc"),
        Some("New rule."),
        Duration::from_secs(1),
    );
    let changed_too = seen && {
        t.write(
            ".wave/rules/new.md",
            "---\npaths: docs/**\n---\nChanged rule.",
        );
        wait_for(
            &t.work().join(".cursor/rules/new.mdc"),
            Some("Changed rule."),
            Duration::from_secs(1),
        )
    };
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        seen,
        "--watch did not export the new rule within a second:\n{shown}"
    );
    assert!(
        changed_too,
        "--watch did not export the edit within a second"
    );
}

#[test]
fn import_keeps_the_meaning_and_never_replaces_a_file() {
    let t = Tree::new();
    t.write(
        ".cursor/rules/req.mdc",
        "---\ndescription: Release steps\n---\nOn request.",
    );
    t.write(
        ".cursor/rules/man.mdc",
        "---\nalwaysApply: false\n---\nManual.",
    );
    t.write(
        ".cursor/rules/ts.mdc",
        "---\nglobs: src/**/*.ts,lib/*.ts\n---\nTS.",
    );
    t.write(
        ".github/instructions/py.instructions.md",
        "---\napplyTo: \"*.py\"\n---\nPython.",
    );
    t.write(
        "packages/web/.cursor/rules/web.mdc",
        "---\nalwaysApply: true\n---\nWeb.",
    );
    let r = t.run(&["import", "--from", "cursor,copilot"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("5 rules imported"), "{}", r.stdout);
    assert!(t
        .read(".wave/rules/req.md")
        .contains("activation: on-request"));
    assert!(t.read(".wave/rules/man.md").contains("activation: manual"));
    assert!(t
        .read(".wave/rules/ts.md")
        .contains("paths: [\"src/**/*.ts\", \"lib/*.ts\"]"));
    assert!(t.read(".wave/rules/py.md").contains("paths: [\"**/*.py\"]"));
    // The same activation through the Wave reader.
    let m = |files: &[&str]| {
        let mut args = vec!["match", "--sources", "wave"];
        args.extend_from_slice(files);
        t.run(&args).stdout
    };
    let src = m(&["src/a.ts"]);
    assert!(src.contains("ts.md") && !src.contains("py.md"), "{src}");
    let web = m(&["packages/web/x.css"]);
    assert!(web.contains("web.md"), "{web}");
    let validate = t.run(&["validate", "--sources", "wave"]);
    assert!(
        validate.stdout.contains("0 errors, 0 warnings"),
        "{}",
        validate.stdout
    );
    // Again: every file exists, nothing is replaced.
    let r = t.run(&["import", "--from", "cursor"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("exists"), "{}", r.stderr);
}

#[test]
fn an_on_request_rule_without_description_is_warned_about_per_rule_on_export_and_import() {
    let t = Tree::new();
    t.write(
        ".wave/rules/sql.md",
        "---\nactivation: on-request\n---\nUse the SQL style.\n",
    );
    t.write(
        ".wave/rules/described.md",
        "---\nactivation: on-request\ndescription: When writing SQL\n---\nDescribed.\n",
    );
    // validate already says it for the Wave rule itself.
    let v = t.run(&["validate"]);
    assert!(
        v.stdout
            .contains(".wave/rules/sql.md:2:1: warning[missing-description]"),
        "{}",
        v.stdout
    );
    // Export: per rule and per target that offers it by description.
    let r = t.run(&["export", "--to", "cursor,kiro"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for tool in ["cursor: .wave/rules/sql.md (lossy): no description, and Cursor's model decides by the description", "kiro: .wave/rules/sql.md (lossy): no description, and Kiro's model decides"] {
        assert!(r.stdout.contains(tool), "{tool}\n{}", r.stdout);
    }
    assert!(!r.stdout.contains("described.md (lossy)"), "{}", r.stdout);
    // The synthesized description is written, so the rule can be offered.
    assert!(t
        .read(".cursor/rules/sql.mdc")
        .contains("description: Use the SQL style.\n"));

    // Import: a Copilot file without applyTo is on request; without a
    // description it is said per rule, and the id stands in for one.
    t.write(
        ".github/instructions/nodesc.instructions.md",
        "---\nexcludeAgent: code-review\n---\nCopilot on request.\n",
    );
    t.write(
        ".github/instructions/desc.instructions.md",
        "---\ndescription: Release notes\n---\nDescribed.\n",
    );
    let r = t.run(&["import", "--from", "copilot"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(".github/instructions/nodesc.instructions.md (lossy): no description, and the model decides by the description"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.contains("/desc.instructions.md (lossy)"),
        "{}",
        r.stdout
    );
    assert!(t
        .read(".wave/rules/nodesc.md")
        .contains("activation: on-request"));
}

/// A dry run shows the whole plan even with a hand-written file in the way
/// (and fails); folders are kept for tools that read subfolders, so a
/// hand-written `backend/api.mdc` is in the way rather than copied beside
/// it; a hand-written file with the same text under another name is not
/// written again.
#[test]
fn export_never_writes_a_second_copy_and_a_dry_run_shows_the_plan() {
    let t = Tree::new();
    t.write(
        ".claude/rules/backend/api-patterns.md",
        "---\npaths: [\"api/**\"]\n---\nReturn typed errors.\n",
    );
    t.write(".claude/rules/style.md", "Tabs, not spaces.\n");
    t.write(
        ".claude/rules/docs.md",
        "---\npaths: [\"docs/**\"]\n---\nWrite in second person.\n",
    );
    // Hand-written Cursor rules: one at the path export would use, one
    // with the same text as a source under another name.
    t.write(
        ".cursor/rules/backend/api-patterns.mdc",
        "---\nglobs: api/**\n---\nReturn typed errors.\n",
    );
    t.write(
        ".cursor/rules/house-style.mdc",
        "---\nalwaysApply: true\n---\nTabs, not spaces.\n",
    );
    let r = t.run(&["export", "--to", "cursor", "--dry-run"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("would create .cursor/rules/docs.mdc"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("not written: .cursor/rules/style.mdc, the same text is already in .cursor/rules/house-style.mdc"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("backend-api-patterns"), "{}", r.stdout);
    assert!(
        r.stderr.contains(".cursor/rules/backend/api-patterns.mdc exists and was not written by wave-rules export"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("1 file is in the way"), "{}", r.stderr);
    assert!(!t.work().join(".cursor/rules/docs.mdc").exists());
}

/// Import from two tools that hold the same rule: identical texts are
/// folded by the discovery, near-identical ones (spacing, case) by import,
/// each said; a new file that overrides a `.claude/rules` rule says so.
#[test]
fn import_from_several_tools_folds_copies_and_names_what_it_overrides() {
    let t = Tree::new();
    t.write(
        ".windsurf/rules/testing.md",
        "---\ntrigger: glob\nglobs: tests/**\n---\nRun the whole suite before a push.\n",
    );
    t.write(
        ".cursor/rules/testing.mdc",
        "---\nglobs: tests/**\n---\nRun the whole  suite before a push.\n",
    );
    t.write(
        ".windsurf/rules/style.md",
        "---\ntrigger: always_on\n---\nTabs.\n",
    );
    t.write(
        ".cursor/rules/style.mdc",
        "---\nalwaysApply: true\n---\nTabs.\n",
    );
    t.write(".claude/rules/testing.md", "Claude's own testing rule.\n");
    let r = t.run(&["import", "--from", "windsurf,cursor", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for want in [
        "folded: .windsurf/rules/style.md: the same text and activation as 'cursor:style.mdc'",
        "folded: .windsurf/rules/testing.md into .wave/rules/testing.md: the same rule as .cursor/rules/testing.mdc but for spacing or case",
        ".wave/rules/testing.md: overrides .claude/rules/testing.md (the same id, testing.md; the .wave/rules rule wins)",
        "2 rules would be imported into .wave/rules; 1 folded into another",
    ] {
        assert!(r.stdout.contains(want), "{want}\n{}", r.stdout);
    }
    assert!(!r.stdout.contains("-2.md"), "{}", r.stdout);
}

/// A `CLAUDE.md` that is only `@AGENTS.md`, and a `.claude/rules/CLAUDE.md`
/// that repeats `AGENTS.md`: `--sources all` reads one rule, so export
/// writes it once, and import copies the imported text (never the line
/// "@AGENTS.md"), once.
#[test]
fn a_copied_and_an_imported_memory_file_are_exported_and_imported_once() {
    let t = Tree::new();
    let agents = "# Agents\n\nRun the tests with make test.\n";
    t.write("AGENTS.md", agents);
    t.write("CLAUDE.md", "@AGENTS.md\n");
    t.write(".claude/rules/CLAUDE.md", agents);
    let r = t.run(&["--sources", "all", "export", "--to", "cursor", "--dry-run"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.matches("would create .cursor/rules/").count(),
        1,
        "{}",
        r.stdout
    );
    let r = t.run(&["import", "--from", "claude,agents-md"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("1 rule imported into .wave/rules"),
        "{}",
        r.stdout
    );
    let imported: Vec<String> = std::fs::read_dir(t.work().join(".wave/rules"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(imported.len(), 1, "{imported:?}");
    assert!(imported[0].contains("make test"), "{}", imported[0]);
    assert!(!imported[0].contains("@AGENTS.md"), "{}", imported[0]);
}
