//! Where an agent would cut a file or a total, `validate`, `export` and
//! `report` warn, naming the agent and the limit; `report` says per agent
//! what it loads by itself, what we add, and what it loads twice.

mod common;
use common::{CliTree, Tree};

fn write(t: &Tree, rel: &str, text: &str) {
    let p = t.workdir().join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn validate_and_report_warn_where_codex_cuts_the_agents_md_files_together() {
    let t = Tree::made();
    write(&t, "AGENTS.md", "# Agents\n\nKeep commits small.\n");
    write(
        &t,
        "sub/AGENTS.md",
        &format!("# Sub\n\n{}\n", "y".repeat(33_000)),
    );
    let r = t.run(&["--sources", "agents-md", "validate"]);
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("warning[agent-cut]"))
        .unwrap_or_else(|| panic!("no agent-cut warning:\n{}", r.stdout));
    assert!(line.starts_with("sub/AGENTS.md: "), "{line}");
    assert!(
        line.contains("codex reads only 32768 bytes of the AGENTS.md files together"),
        "{line}"
    );
    assert!(line.contains("project_doc_max_bytes"), "{line}");
    assert_eq!(r.code, 0, "a warning does not fail validate");
    let report = common::json(&t.run(&["--sources", "agents-md", "report", "--json"]));
    let problems = report["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("codex reads only 32768 bytes")),
        "{problems:?}"
    );
}

#[test]
fn export_warns_where_windsurf_would_cut_a_rule_it_writes() {
    let t = Tree::made();
    write(
        &t,
        ".wave/rules/long.md",
        &format!("---\npaths: [\"src/**\"]\n---\n{}\n", "z".repeat(12_500)),
    );
    let r = t.run(&["export", "--to", "windsurf"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("wave-rules: warning: .windsurf/rules/")
            && r.stderr
                .contains("windsurf reads only 12000 characters of this file"),
        "{}",
        r.stderr
    );
}

#[test]
fn report_says_one_text_in_claude_gemini_and_agents_md_loads_three_times_in_copilot() {
    let t = Tree::made();
    for f in ["CLAUDE.md", "GEMINI.md", "AGENTS.md"] {
        write(&t, f, "Use tabs.\n");
    }
    let report = common::json(&t.run(&["--sources", "all", "report", "--json"]));
    let rows = report["self_load"].as_array().unwrap();
    let agent = |name: &str| rows.iter().find(|r| r["agent"] == name).unwrap().clone();
    let copilot = agent("copilot");
    assert_eq!(
        copilot["twice"],
        serde_json::json!([["AGENTS.md", "CLAUDE.md", "GEMINI.md"]]),
        "{copilot}"
    );
    let codex = agent("codex");
    assert_eq!(codex["itself"], serde_json::json!(["AGENTS.md"]));
    assert_eq!(codex["twice"], serde_json::json!([]));
    let text = t.run(&["--sources", "all", "report"]).stdout;
    assert!(
        text.contains("what each agent loads by itself, what we add, what loads twice:"),
        "{text}"
    );
    assert!(
        text.contains("twice: AGENTS.md, CLAUDE.md, GEMINI.md"),
        "{text}"
    );
}
