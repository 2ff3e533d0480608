//! Helpers shared by the CLI's integration tests: the core's temp-tree
//! fixture (crates/memory-rules/tests/common) and the real `wave-rules`
//! binary run in it.
#![allow(dead_code)]

#[path = "../../../memory-rules/tests/common/mod.rs"]
mod tree;
pub use tree::*;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// What one run of the binary gave.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// A temp tree with its workdir and home made, and the binary run in it.
pub trait CliTree {
    /// The workdir is a project root of its own (a `.git` with its `HEAD`),
    /// so the binary run in it without `--workdir` never takes a folder
    /// above the temp folder for its project (another tool's `.wave` or
    /// `.git` there). A test of the walk itself builds its own tree.
    fn made() -> Tree;
    /// Runs the binary in the workdir with `--home` set.
    fn run(&self, args: &[&str]) -> Run;
    /// Runs the binary in `dir` with `--home` set and no colour variables.
    fn run_in(&self, dir: &Path, args: &[&str]) -> Run;
}

impl CliTree for Tree {
    fn made() -> Tree {
        let t = Tree::new();
        t.git_root(t.workdir());
        std::fs::create_dir_all(t.home()).unwrap();
        t
    }

    fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.workdir(), args)
    }

    fn run_in(&self, dir: &Path, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
            .args(args)
            .arg("--home")
            .arg(self.home())
            .current_dir(dir)
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        Run {
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
            code: out.status.code().expect("exited, not killed"),
        }
    }
}

/// The run's stdout as JSON (a panic naming both outputs when it is not).
pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", run.stdout, run.stderr))
}

/// Runs the binary as an agent runs a hook: in `work`, `input` on stdin,
/// `--home` an empty place under `work`, the session state in `state`, no
/// `CLAUDE_PROJECT_DIR`. Returns stdout, stderr and the exit code.
pub fn hook_run(work: &Path, state: &Path, args: &[&str], input: &[u8]) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(args)
        .arg("--home")
        .arg(work.join("no-home"))
        .current_dir(work)
        .env("WAVE_RULES_STATE_DIR", state)
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// One tool call through the real `wave-rules mcp` on stdio, in `work` with
/// `--home home` and `args`: the text of its answer (bounded: 30 s).
pub fn mcp_call(
    work: &Path,
    home: &Path,
    args: &[&str],
    tool: &str,
    arguments: serde_json::Value,
) -> String {
    let call = serde_json::json!({"name": tool, "arguments": arguments});
    mcp_calls(work, home, args, &[], &[call]).remove(0)
}

/// Tool calls through the real `wave-rules mcp` on stdio, in `work` with
/// `--home home`, `args` and `env` set: each call's params (`name`,
/// `arguments`, and `_meta` if the client gives it) in order, and the text
/// of each answer (bounded: 30 s); then stdin closes, as a client ends the
/// server, and the server is waited for (10 s, then killed).
pub fn mcp_calls(
    work: &Path,
    home: &Path,
    args: &[&str],
    env: &[(&str, String)],
    calls: &[serde_json::Value],
) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .arg("mcp")
        .args(args)
        .arg("--home")
        .arg(home)
        .current_dir(work)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = vec![
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
    ];
    for (i, params) in calls.iter().enumerate() {
        lines.push(
            serde_json::json!({"jsonrpc":"2.0","id":i + 2,"method":"tools/call","params":params})
                .to_string(),
        );
    }
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let answers = mcp_answers(child.stdout.take().unwrap(), calls.len());
    drop(stdin);
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    answers
}

/// The texts of the answers to requests 2 to `n + 1`, in order (bounded: 30 s).
fn mcp_answers(stdout: std::process::ChildStdout, n: usize) -> Vec<String> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .take(100)
        {
            let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            if v["id"].as_u64().is_some_and(|id| id >= 2) && tx.send(v).is_err() {
                return;
            }
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut answers = vec![String::new(); n];
    for _ in 0..n {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let answer = rx
            .recv_timeout(left)
            .expect("the tool calls answered within 30 s");
        let i = answer["id"].as_u64().unwrap() as usize - 2;
        answers[i] = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
    }
    answers
}

/// The rules the agent dialects' tests share: an enforced path rule, a path
/// rule, an always-on rule and a topic rule, in a temp project's `.wave/rules`.
pub mod dialect {
    use std::path::PathBuf;

    pub const GEN: &str = "Generated files are rebuilt by `npm run gen`.";
    pub const API: &str = "API handlers validate input.";
    pub const ALWAYS: &str = "Answer in English.";
    pub const DB: &str = "The customer table is read-only.";

    /// The temp dir (kept alive by the caller) and its project, `work/`.
    pub fn project() -> (tempfile::TempDir, PathBuf) {
        let rules = [
            (
                "gen.md",
                format!("---\npaths: gen/**\nenforce: block\n---\n{GEN}\n"),
            ),
            ("api.md", format!("---\npaths: src/api/**\n---\n{API}\n")),
            ("always.md", format!("{ALWAYS}\n")),
            ("db.md", format!("---\ntopics: [customer]\n---\n{DB}\n")),
        ];
        project_of(&rules)
    }

    /// A temp dir (kept alive by the caller) and its project, `work/`, with
    /// these files in `.wave/rules`.
    pub fn project_of(rules: &[(&str, String)]) -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("work");
        std::fs::create_dir_all(work.join(".wave/rules")).unwrap();
        for (name, text) in rules {
            std::fs::write(work.join(".wave/rules").join(name), text).unwrap();
        }
        (tmp, work)
    }
}

/// An installed hook command as an agent runs it: `sh -c` in the project,
/// the payload on stdin, the state in `state`.
pub fn run_installed(
    command: &str,
    work: &Path,
    state: &Path,
    stdin: &[u8],
) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(work)
        .env("WAVE_RULES_STATE_DIR", state)
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Sets the mtime of every file and folder under `dir` (and its own) long
/// past, outside the racy window: the hooks then answer from their saved
/// rules, restoring only those an event can activate.
pub fn age_tree(dir: &Path) {
    let past = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            age_tree(&path);
        } else {
            let f = std::fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(past).unwrap();
        }
    }
    std::fs::File::open(dir)
        .unwrap()
        .set_modified(past)
        .unwrap();
}
