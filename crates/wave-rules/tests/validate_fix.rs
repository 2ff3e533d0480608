//! `validate --fix`, `--fix --dry-run` and `--format sarif` through the
//! real binary on temp trees.

mod common;

use common::{CliTree, Tree};

const MISSPELLED: &str = "---\npath: src/**/*.ts\n---\nStrict.\n";
const QUOTED: &str = "---\ndescription: TS\nglobs: \"src/**/*.ts\"\n---\nStrict.\n";

fn broken_tree() -> Tree {
    let t = Tree::made();
    t.project("ts.md", MISSPELLED);
    t.write(t.workdir().join(".cursor/rules/ts.mdc"), QUOTED);
    t.write(t.workdir().join("Agents.md"), "Be brief.\n");
    t
}

#[test]
fn dry_run_shows_the_diff_and_the_rename_and_writes_nothing() {
    let t = broken_tree();
    let r = t.run(&["validate", "--sources", "all", "--fix", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("-path: src/**/*.ts\n+paths: src/**/*.ts\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("-globs: \"src/**/*.ts\"\n+globs: src/**/*.ts\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("would rename Agents.md -> AGENTS.md\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("would fix 3 problems in 3 files\n"),
        "{}",
        r.stdout
    );
    assert_eq!(
        std::fs::read_to_string(t.project_rules().join("ts.md")).unwrap(),
        MISSPELLED
    );
    assert!(t.workdir().join("Agents.md").exists());
}

#[test]
fn fix_writes_the_fixes_and_validates_clean_after() {
    let t = broken_tree();
    let before = t.run(&["validate", "--sources", "all"]);
    assert_eq!(before.code, 1, "the misspelled key is an error");
    let r = t.run(&["validate", "--sources", "all", "--fix"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("fixed 3 problems in 3 files"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("0 errors, 0 warnings"), "{}", r.stdout);
    let ts = std::fs::read_to_string(t.project_rules().join("ts.md")).unwrap();
    assert_eq!(ts, MISSPELLED.replace("path:", "paths:"));
    let mdc = std::fs::read_to_string(t.workdir().join(".cursor/rules/ts.mdc")).unwrap();
    assert_eq!(mdc, QUOTED.replace("\"src/**/*.ts\"", "src/**/*.ts"));
    assert_eq!(
        std::fs::read_to_string(t.workdir().join("AGENTS.md")).unwrap(),
        "Be brief.\n"
    );
    // No temp file left beside the rules.
    let names: Vec<_> = std::fs::read_dir(t.project_rules())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["ts.md"]);
}

#[test]
fn a_rename_never_goes_over_an_existing_file_and_a_symlink_is_left_alone() {
    let t = Tree::made();
    t.write(t.workdir().join("Agents.md"), "Mine.\n");
    t.write(t.workdir().join(".wave/real/ts.md"), MISSPELLED);
    common::symlink(
        t.workdir().join(".wave/real/ts.md"),
        t.project_rules().join("ts.md"),
    );
    let r = t.run(&["validate", "--fix"]);
    assert!(
        r.stderr.contains("ts.md: not fixed: a symbolic link"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(t.workdir().join(".wave/real/ts.md")).unwrap(),
        MISSPELLED
    );
    assert_eq!(r.code, 1, "the error is still there");
    // An AGENTS.md of its own next to a misnamed one: not moved over it.
    let t = Tree::made();
    t.write(t.workdir().join("AGENTS.md"), "Theirs.\n");
    t.write(t.workdir().join("agents.md"), "Mine.\n");
    let r = t.run(&["validate", "--sources", "all", "--fix"]);
    assert!(
        r.stderr
            .contains("agents.md: not fixed: AGENTS.md exists; not moved"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(t.workdir().join("AGENTS.md")).unwrap(),
        "Theirs.\n"
    );
    assert_eq!(
        std::fs::read_to_string(t.workdir().join("agents.md")).unwrap(),
        "Mine.\n"
    );
}

#[test]
fn dry_run_without_fix_is_a_usage_error() {
    let t = Tree::made();
    let r = t.run(&["validate", "--dry-run"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--fix"), "{}", r.stderr);
}

#[test]
fn sarif_names_each_code_once_with_its_help_and_each_result_with_its_region() {
    let t = broken_tree();
    let r = t.run(&["validate", "--sources", "all", "--format", "sarif"]);
    assert_eq!(r.code, 1);
    let log = common::json(&r);
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["misspelled-key", "quoted-glob", "misplaced"]);
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(rule["help"]["text"].as_str().unwrap().len() > 20, "{rule}");
    }
    let result = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "misspelled-key")
        .unwrap();
    assert_eq!(result["level"], "error");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], ".wave/rules/ts.md");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(
        location["region"],
        serde_json::json!({"startLine": 2, "startColumn": 1, "endColumn": 5})
    );
    let quoted = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "quoted-glob")
        .unwrap();
    let region = &quoted["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startColumn"].as_u64(), region["endColumn"].as_u64()),
        (Some(8), Some(21)),
        "the quoted glob"
    );
}

#[test]
fn fix_moves_a_misplaced_file_or_folder_to_where_its_tool_reads_it() {
    let t = Tree::made();
    t.write(t.workdir().join("copilot-instructions.md"), "Use tabs.\n");
    t.write(t.workdir().join(".claude/rule/style.md"), "Short lines.\n");
    t.write(
        t.workdir().join(".cursor/rules/ts.md"),
        "---\nglobs: src/**\n---\nStrict.\n",
    );
    let dry = t.run(&["validate", "--sources", "all", "--fix", "--dry-run"]);
    assert!(
        dry.stdout
            .contains("would rename copilot-instructions.md -> .github/copilot-instructions.md\n"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout
            .contains("would rename .claude/rule -> .claude/rules\n"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout
            .contains("would rename .cursor/rules/ts.md -> .cursor/rules/ts.mdc\n"),
        "{}",
        dry.stdout
    );
    let r = t.run(&["validate", "--sources", "all", "--fix"]);
    assert!(
        r.stderr.contains("fixed 3 problems in 3 files"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(t.workdir().join(".github/copilot-instructions.md")).unwrap(),
        "Use tabs.\n"
    );
    assert_eq!(
        std::fs::read_to_string(t.workdir().join(".claude/rules/style.md")).unwrap(),
        "Short lines.\n"
    );
    assert!(t.workdir().join(".cursor/rules/ts.mdc").is_file());
    assert!(!r.stdout.contains("misplaced"), "{}", r.stdout);
}
