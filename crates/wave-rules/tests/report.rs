//! `wave-rules report` and `wave-rules log`, the real binary on real temp
//! trees: what applies where and what it costs (checked against the core's
//! own matcher and tokenizer), every kind of problem, what each agent keeps
//! (against `export`'s own notes), the page's embedded data (equal to
//! `--json`), `--check`, and the delivery log's timelines.

mod common;

use base64::Engine as _;
use common::Tree;
use serde_json::Value;
use std::io::Read as _;
use std::path::Path;
use std::process::Command;

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn run(t: &Tree, state: &Path, envs: &[(&str, &str)], args: &[&str]) -> Run {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wave-rules"));
    c.args(args)
        .arg("--home")
        .arg(t.home())
        .current_dir(t.workdir())
        .env("WAVE_RULES_STATE_DIR", state)
        .env_remove("WAVE_RULES_LOG")
        .env_remove("CLAUDE_PROJECT_DIR");
    for (k, v) in envs {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    Run {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().expect("exited, not killed"),
    }
}

fn json(r: &Run) -> Value {
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", r.stdout, r.stderr))
}

fn made() -> (Tree, tempfile::TempDir) {
    let t = Tree::new();
    std::fs::create_dir_all(t.workdir()).unwrap();
    std::fs::create_dir_all(t.home()).unwrap();
    // A git root, so the project root is the workdir.
    t.git_root(t.workdir());
    (t, tempfile::tempdir().unwrap())
}

fn rule_index(report: &Value, id: &str) -> usize {
    report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .position(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no rule {id}"))
}

/// The folder at `path` (`a/b`) of the report's tree.
fn folder<'a>(report: &'a Value, path: &str) -> &'a Value {
    let mut f = &report["tree"];
    for part in path.split('/').filter(|p| !p.is_empty()) {
        f = f["folders"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == part)
            .unwrap_or_else(|| panic!("no folder {part} in {path}"));
    }
    f
}

/// The set index of a file.
fn file_set(report: &Value, path: &str) -> u64 {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    folder(report, dir)["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e[0] == name)
        .unwrap_or_else(|| panic!("no file {path}"))[1]
        .as_u64()
        .unwrap()
}

fn count(text: &str) -> u64 {
    memory_rules::delivery::tokens::count(text) as u64
}

#[test]
fn report_says_which_rules_apply_where_and_what_they_cost() {
    let (t, state) = made();
    t.project("always.md", "Be brief.");
    t.project(
        "ts.md",
        "---\npaths: \"src/**/*.ts\"\n---\nUse strict TypeScript.",
    );
    t.project(
        "api.md",
        "---\npaths: src/api/**\n---\nValidate every input.",
    );
    t.project("sql.md", "---\ntopics: [sql]\n---\nNo SELECT *.");
    for f in [
        "src/api/users.ts",
        "src/api/README.md",
        "src/ui/App.ts",
        "README.md",
    ] {
        t.write(t.workdir().join(f), "x");
    }
    let r = json(&run(&t, state.path(), &[], &["report", "--json"]));
    let tokens = |id: &str, text: &str| count(&format!("[{id}] {text}")) + 1;
    let always = tokens("always.md", "Be brief.");
    let ts = tokens("ts.md", "Use strict TypeScript.");
    let api = tokens("api.md", "Validate every input.");
    assert_eq!(r["tokenizer"]["encoding"], "o200k_base");
    assert_eq!(r["totals"]["rules"], 4);
    // The files of the tree, .wave/rules included (and .git left out).
    assert_eq!(r["totals"]["files"], 8);
    assert_eq!(r["totals"]["always_rules"], 1);
    assert_eq!(r["totals"]["always_tokens"], always);
    assert_eq!(r["totals"]["governed_files"], 3);
    assert_eq!(r["totals"]["max_file_tokens"], always + ts + api);
    assert_eq!(r["totals"]["max_file"], "src/api/users.ts");
    let i = |id| rule_index(&r, id) as u64;
    let set = |f| r["sets"][file_set(&r, f) as usize].clone();
    assert_eq!(
        set("src/api/users.ts"),
        serde_json::json!([i("api.md").min(i("ts.md")), i("api.md").max(i("ts.md"))])
    );
    assert_eq!(set("src/api/README.md"), serde_json::json!([i("api.md")]));
    assert_eq!(set("src/ui/App.ts"), serde_json::json!([i("ts.md")]));
    assert_eq!(set("README.md"), serde_json::json!([]));
    let cost = |f| r["set_tokens"][file_set(&r, f) as usize].as_u64().unwrap();
    assert_eq!(cost("src/ui/App.ts"), always + ts);
    assert_eq!(cost("README.md"), always);
    let row = |id| &r["rules"][rule_index(&r, id)];
    assert_eq!(row("ts.md")["reach"], 2);
    assert_eq!(row("ts.md")["tokens"], ts);
    assert_eq!(row("api.md")["reach"], 2);
    assert_eq!(row("always.md")["reach"], 8);
    assert_eq!(row("sql.md")["reach"], 0);
    assert_eq!(row("sql.md")["kind"], "topics");
    // Folders: what touching all of them costs, and who governs how much.
    let src = folder(&r, "src");
    assert_eq!(src["files"], 3);
    assert_eq!(src["governed"], 3);
    assert_eq!(src["tokens"], always + ts + api);
    assert_eq!(src["max"], always + ts + api);
    let (first, second) = (i("ts.md").min(i("api.md")), i("ts.md").max(i("api.md")));
    assert_eq!(src["rules"], serde_json::json!([[first, 2], [second, 2]]));
    assert_eq!(folder(&r, "src/ui")["tokens"], always + ts);
    assert_eq!(r["tree"]["files"], 8);
    // The terminal summary says the same.
    let text = run(&t, state.path(), &[], &["report"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains(&format!(
            "always on: 1 rule, {always} tokens in every conversation"
        )),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("path rules govern 3 of 8 files"),
        "{}",
        text.stdout
    );
}

#[test]
fn report_walks_the_tree_as_git_sees_it() {
    let (t, state) = made();
    t.project("all.md", "---\npaths: \"**/*.js\"\n---\nJS.");
    t.write(t.workdir().join(".gitignore"), "dist/\n*.log\n");
    t.write(t.workdir().join("dist/app.js"), "");
    t.write(t.workdir().join("debug.log"), "");
    t.write(t.workdir().join("src/app.js"), "");
    t.write(t.workdir().join(".github/workflows/ci.yml"), "");
    t.write(t.workdir().join(".git/config"), "");
    let r = json(&run(&t, state.path(), &[], &["report", "--json"]));
    let names: Vec<&str> = r["tree"]["folders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, [".github", ".wave", "src"]);
    assert_eq!(r["rules"][0]["reach"], 1);
}

#[test]
fn report_names_every_kind_of_problem() {
    let (t, state) = made();
    for i in 0..25 {
        t.write(t.workdir().join(format!("src/m{i}.ts")), "");
    }
    t.project("nothing.md", "---\npaths: legacy/**\n---\nOld code.");
    t.project("everything.md", "---\npaths: \"**/*\"\n---\nEverywhere.");
    t.project("twin-a.md", "---\npaths: src/**\n---\nSame words.");
    t.project("twin-b.md", "---\npaths: src/**\n---\nSame words.");
    t.project(
        "chatty.md",
        "---\ntopics: [the, database]\n---\nTalk about the database.",
    );
    t.project(
        "huge.md",
        &format!(
            "---\npaths: src/**\n---\n{}",
            "All work and no play. ".repeat(500)
        ),
    );
    t.project("broken.md", "---\npaths: [unclosed\n---\nBroken.");
    t.user("shared.md", "User version.");
    t.project("shared.md", "Project version.");
    let r = json(&run(&t, state.path(), &[], &["report", "--json"]));
    let kinds = |kind: &str| -> Vec<String> {
        r["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["kind"] == kind)
            .map(|p| {
                p["rules"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| {
                        r["rules"][i.as_u64().unwrap() as usize]["id"]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect::<Vec<_>>()
                    .join("+")
                    + " "
                    + p["file"].as_str().unwrap()
            })
            .collect()
    };
    assert_eq!(kinds("no-match"), ["nothing.md .wave/rules/nothing.md"]);
    assert_eq!(
        kinds("matches-all"),
        ["everything.md .wave/rules/everything.md"]
    );
    assert_eq!(
        kinds("duplicate"),
        ["twin-a.md+twin-b.md .wave/rules/twin-a.md"]
    );
    assert_eq!(kinds("common-topic"), ["chatty.md .wave/rules/chatty.md"]);
    assert_eq!(kinds("too-large"), ["huge.md .wave/rules/huge.md"]);
    assert_eq!(kinds("override").len(), 1, "{:?}", r["problems"]);
    assert!(
        kinds("diagnostic")
            .iter()
            .any(|p| p.ends_with(".wave/rules/broken.md")),
        "{:?}",
        kinds("diagnostic")
    );
    let topic = r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "common-topic")
        .unwrap();
    assert!(
        topic["message"].as_str().unwrap().contains("'the'"),
        "{topic}"
    );
    assert!(
        !topic["message"].as_str().unwrap().contains("database"),
        "{topic}"
    );
    // Each rule lists its problems.
    let huge = &r["rules"][rule_index(&r, "huge.md")];
    assert_eq!(huge["problems"].as_array().unwrap().len(), 1);
    assert_eq!(
        r["totals"]["problems"],
        r["problems"].as_array().unwrap().len()
    );
}

#[test]
fn report_agents_are_exports_own_notes() {
    let (t, state) = made();
    t.write(t.workdir().join("src/a.ts"), "");
    t.write(t.workdir().join("src/a.test.ts"), "");
    t.project("always.md", "Be brief.");
    t.project(
        "ts.md",
        "---\npaths: [\"src/**/*.ts\", \"!**/*.test.ts\"]\n---\nStrict.",
    );
    t.project("sql.md", "---\ntopics: [sql]\n---\nNo SELECT *.");
    t.project(
        "ref.md",
        "---\nactivation: on-request\ndescription: The API reference\n---\nRead the API docs.",
    );
    t.user("mine.md", "My own rule.");
    t.write(
        t.workdir().join(".cursor/rules/native.mdc"),
        "---\nalwaysApply: true\n---\nCursor's own.",
    );
    let args = ["--sources", "wave,cursor"];
    let r = json(&run(
        &t,
        state.path(),
        &[],
        &[&["report", "--json"][..], &args].concat(),
    ));
    let export = json(&run(
        &t,
        state.path(),
        &[],
        &[&["export", "--to", "all", "--dry-run", "--json"][..], &args].concat(),
    ));
    // Every note of export is a lossy or skipped rule of the report.
    for note in export["notes"].as_array().unwrap() {
        let agent = r["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["target"] == note["target"])
            .unwrap();
        let i = rule_index(&r, note["rule"].as_str().unwrap());
        let entry = &agent["rules"][i];
        let want = if note["skipped"] == true {
            "skipped"
        } else {
            "lossy"
        };
        assert_eq!(entry["status"], want, "{note} vs {entry}");
        assert!(
            entry["notes"]
                .as_array()
                .unwrap()
                .contains(&note["message"]),
            "{note} vs {entry}"
        );
    }
    let agent = |target: &str| {
        r["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["target"] == target)
            .unwrap()
            .clone()
    };
    let cursor = agent("cursor");
    let entry = |a: &Value, id: &str| a["rules"][rule_index(&r, id)].clone();
    // A user rule is not exported; a tool's own file is its own.
    assert_eq!(entry(&cursor, "mine.md"), Value::Null);
    assert_eq!(entry(&cursor, "cursor:native.mdc")["status"], "native");
    assert_eq!(entry(&cursor, "ts.md")["status"], "lossy");
    assert_eq!(entry(&cursor, "ts.md")["kind"], "paths");
    // Cursor has no exclusions: the test file is governed there too.
    assert_eq!(entry(&cursor, "ts.md")["reach"], 2);
    assert_eq!(r["rules"][rule_index(&r, "ts.md")]["reach"], 1);
    assert_eq!(entry(&cursor, "sql.md")["kind"], "on-request");
    assert_eq!(entry(&agent("claude"), "ts.md")["status"], "kept");
    assert_eq!(entry(&agent("claude"), "ts.md")["reach"], 1);
    assert_eq!(entry(&agent("claude"), "ref.md")["status"], "skipped");
    // The always-on text of each tool, read back: Cursor's own file counts.
    assert!(
        cursor["always_tokens"].as_u64().unwrap() > r["totals"]["always_tokens"].as_u64().unwrap()
    );
    assert_eq!(cursor["native"], 1);
}

#[test]
fn report_out_writes_one_page_that_holds_the_json() {
    let (t, state) = made();
    t.project("always.md", "Be brief. </script><script>alert(1)</script>");
    t.project("ts.md", "---\npaths: src/**\n---\nStrict.");
    t.write(t.workdir().join("src/a.ts"), "");
    let r = run(
        &t,
        state.path(),
        &[],
        &["report", "--json", "--out", "out/report.html"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let page = std::fs::read_to_string(t.workdir().join("out/report.html")).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    assert!(page.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    for reference in [
        "src=",
        "href=\"http",
        "url(",
        "@import",
        "fetch(",
        "XMLHttpRequest",
    ] {
        assert!(
            !page.contains(reference),
            "the page refers to something outside: {reference}"
        );
    }
    assert!(
        !page.contains("alert(1)"),
        "rule text appears only inside the encoded data"
    );
    let start = page.find("data-encoding=\"gzip+base64\">").unwrap()
        + "data-encoding=\"gzip+base64\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let gz = base64::engine::general_purpose::STANDARD
        .decode(&page[start..end])
        .unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text.trim(), r.stdout.trim());
}

#[test]
fn report_check_fails_over_the_budget() {
    let (t, state) = made();
    t.project("always.md", "Be brief.");
    t.project(
        "big.md",
        &format!(
            "---\npaths: src/**\n---\n{}",
            "Check every input twice. ".repeat(40)
        ),
    );
    t.write(t.workdir().join("src/a.ts"), "");
    t.write(t.workdir().join("README.md"), "");
    let r = json(&run(&t, state.path(), &[], &["report", "--json"]));
    let always = r["totals"]["always_tokens"].as_u64().unwrap();
    let max = r["totals"]["max_file_tokens"].as_u64().unwrap();
    let ok = run(
        &t,
        state.path(),
        &[],
        &["report", "--check", &max.to_string()],
    );
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    assert!(ok.stdout.contains("within budget"));
    let file_over = run(
        &t,
        state.path(),
        &[],
        &["report", "--check", &(max - 1).to_string()],
    );
    assert_eq!(file_over.code, 1);
    assert!(
        file_over
            .stderr
            .contains(&format!("src/a.ts: {max} tokens, over the budget")),
        "{}",
        file_over.stderr
    );
    assert!(
        !file_over.stderr.contains("always-on"),
        "{}",
        file_over.stderr
    );
    let always_over = run(
        &t,
        state.path(),
        &[],
        &["report", "--check", &(always - 1).to_string(), "--json"],
    );
    assert_eq!(always_over.code, 1);
    assert!(
        always_over
            .stderr
            .contains(&format!("the always-on rules: {always} tokens")),
        "{}",
        always_over.stderr
    );
    let j = json(&always_over);
    assert_eq!(j["check"]["ok"], false);
    // Every file of the tree: the two and the two rule files.
    assert_eq!(j["check"]["files_over"], 4);
}

/// Writes a delivery log by hand, as the roads write it.
fn write_log(state: &Path, lines: &[Value]) {
    let dir = state.join("log");
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("deliveries.jsonl"), text).unwrap();
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn delivery(time: u64, session: &str, project: &Path, event: &str, rules: &[(&str, u64)]) -> Value {
    serde_json::json!({
        "time": time, "session": session, "agent": "claude", "event": event,
        "project": project.to_string_lossy(),
        "tokens": rules.iter().map(|r| r.1).sum::<u64>(),
        "rules": rules.iter().map(|(id, n)| serde_json::json!({"id": id, "version": "0000000000000000", "tokens": n})).collect::<Vec<_>>(),
    })
}

#[test]
fn report_sessions_come_from_the_log() {
    let (t, state) = made();
    t.project("always.md", "Be brief.");
    t.project("ts.md", "---\npaths: src/**\n---\nStrict.");
    t.project("idle.md", "---\npaths: docs/**\n---\nDocs.");
    let w = t.workdir();
    let now = now_ms();
    write_log(
        state.path(),
        &[
            delivery(now - 5000, "s1", &w, "start:startup", &[("always.md", 7)]),
            delivery(now - 4000, "s1", &w, "files", &[("ts.md", 5)]),
            delivery(
                now - 3000,
                "s2",
                &w,
                "start:startup",
                &[("always.md", 7), ("gone.md", 3)],
            ),
            delivery(
                now - 2000,
                "s3",
                Path::new("/elsewhere"),
                "start:startup",
                &[("idle.md", 4)],
            ),
        ],
    );
    let r = json(&run(&t, state.path(), &[], &["report", "--json"]));
    let s = &r["sessions"];
    assert_eq!(s["deliveries"], 3);
    assert_eq!(s["tokens"], 22);
    let sessions: Vec<&str> = s["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["s2", "s1"]);
    assert_eq!(s["sessions"][1]["rules"], 2);
    assert_eq!(
        s["never_fired"],
        serde_json::json!([rule_index(&r, "idle.md")])
    );
    assert_eq!(
        s["by_rule"][0],
        serde_json::json!([rule_index(&r, "always.md"), 2, 14])
    );
    assert_eq!(s["gone"], serde_json::json!([["gone.md", 1, 3]]));
    // With a window of one session, ts.md (given in s1 only) never fired.
    let one = json(&run(
        &t,
        state.path(),
        &[],
        &["report", "--json", "--sessions", "1"],
    ));
    let mut never: Vec<u64> = one["sessions"]["never_fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    never.sort();
    let mut want = vec![
        rule_index(&r, "idle.md") as u64,
        rule_index(&r, "ts.md") as u64,
    ];
    want.sort();
    assert_eq!(never, want);
}

#[test]
fn log_prints_timelines_filtered_by_session_and_time() {
    let (t, state) = made();
    let w = t.workdir();
    let now = now_ms();
    write_log(
        state.path(),
        &[
            delivery(
                now - 3 * 3_600_000,
                "old",
                &w,
                "start:startup",
                &[("always.md", 7)],
            ),
            delivery(now - 5000, "s1", &w, "start:startup", &[("always.md", 7)]),
            delivery(
                now - 4000,
                "s1",
                &w,
                "files",
                &[("ts.md", 5), ("api.md", 4)],
            ),
            delivery(
                now - 2000,
                "s3",
                Path::new("/elsewhere"),
                "prompt",
                &[("sql.md", 4)],
            ),
        ],
    );
    let all = run(&t, state.path(), &[], &["log"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert!(all.stdout.contains("session old (claude"), "{}", all.stdout);
    assert!(all.stdout.contains("session s1 (claude"), "{}", all.stdout);
    assert!(
        all.stdout.contains("2 deliveries, 3 rules, 16 tokens"),
        "{}",
        all.stdout
    );
    assert!(all.stdout.contains("files"), "{}", all.stdout);
    assert!(all.stdout.contains("ts.md, api.md"), "{}", all.stdout);
    assert!(
        !all.stdout.contains("s3"),
        "another project's session: {}",
        all.stdout
    );
    let recent = run(&t, state.path(), &[], &["log", "--since", "1h"]);
    assert!(!recent.stdout.contains("session old"), "{}", recent.stdout);
    assert!(recent.stdout.contains("session s1"), "{}", recent.stdout);
    let every = run(&t, state.path(), &[], &["log", "--all", "--json"]);
    let j = json(&every);
    assert_eq!(j["deliveries"].as_array().unwrap().len(), 4);
    assert!(j["deliveries"][0]["at"].as_str().unwrap().ends_with('Z'));
    let one = json(&run(
        &t,
        state.path(),
        &[],
        &["log", "--session", "s3", "--json"],
    ));
    assert_eq!(one["deliveries"].as_array().unwrap().len(), 1);
    let bad = run(&t, state.path(), &[], &["log", "--since", "yesterday-ish"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("--since 'yesterday-ish'"),
        "{}",
        bad.stderr
    );
    let off = run(
        &t,
        state.path(),
        &[("WAVE_RULES_LOG", "off")],
        &["log", "--json"],
    );
    assert_eq!(json(&off)["enabled"], false);
}
