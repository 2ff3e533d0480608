//! A finished run's checks: each scenario check against the scratch copy,
//! the shell commands the model called, and the agent's answer; a failed
//! check says why.

use super::process::{self, Job};
use super::scenario::{Check, FileTest};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// What a run left, for its checks.
pub struct Observed<'a> {
    pub work: &'a Path,
    /// The files `unchanged` checks name, as they were before the run
    /// (`None`: absent).
    pub before: &'a BTreeMap<String, Option<Vec<u8>>>,
    /// The shell commands the model called, in order.
    pub commands: &'a [String],
    /// The agent's final answer (its standard output).
    pub reply: &'a str,
    /// The environment and time limit of `run:` checks.
    pub env: &'a [(String, String)],
    pub timeout: Duration,
}

/// The files that `unchanged` checks compare against, read before the run.
pub fn snapshot<'c>(
    checks: impl IntoIterator<Item = &'c Check>,
    work: &Path,
) -> BTreeMap<String, Option<Vec<u8>>> {
    checks
        .into_iter()
        .filter_map(|c| match c {
            Check::File {
                path,
                test: FileTest::Unchanged,
            } => Some((path.clone(), std::fs::read(work.join(path)).ok())),
            _ => None,
        })
        .collect()
}

/// Why each failed check failed (empty: the run passed).
pub fn failures(checks: &[Check], seen: &Observed) -> Vec<String> {
    checks.iter().filter_map(|c| failure(c, seen)).collect()
}

fn failure(check: &Check, seen: &Observed) -> Option<String> {
    match check {
        Check::File { path, test } => file_failure(path, test, seen),
        Check::CommandRan(p) => {
            (!seen.commands.iter().any(|c| p.regex.is_match(c.as_str()))).then(|| {
                format!(
                    "no command matching /{}/ was run ({} commands)",
                    p.text,
                    seen.commands.len()
                )
            })
        }
        Check::CommandNotRun(p) => seen
            .commands
            .iter()
            .find(|c| p.regex.is_match(c.as_str()))
            .map(|c| format!("ran '{}', which matches /{}/", short(c), p.text)),
        Check::ReplyContains(t) => {
            (!seen.reply.contains(t.as_str())).then(|| format!("the answer does not contain '{t}'"))
        }
        Check::ReplyNotContains(t) => seen
            .reply
            .contains(t.as_str())
            .then(|| format!("the answer contains '{t}'")),
        Check::Run(cmd) => run_failure(cmd, seen),
        // Graded after the others, by the judge model (`judge.rs`).
        Check::Judge(_) => None,
    }
}

fn file_failure(path: &str, test: &FileTest, seen: &Observed) -> Option<String> {
    let bytes = std::fs::read(seen.work.join(path)).ok();
    if let FileTest::Unchanged = test {
        return (seen.before.get(path).cloned().flatten() != bytes)
            .then(|| format!("{path} changed"));
    }
    let text = bytes.as_deref().map(String::from_utf8_lossy);
    match (test, text.as_deref()) {
        (FileTest::Absent, Some(_)) => Some(format!("{path} exists")),
        (FileTest::Absent, None) | (FileTest::Exists | FileTest::Unchanged, Some(_)) => None,
        (_, None) => Some(format!("{path} does not exist")),
        (FileTest::Contains(t), Some(s)) => {
            (!s.contains(t.as_str())).then(|| format!("{path} does not contain '{t}'"))
        }
        (FileTest::NotContains(t), Some(s)) => s
            .contains(t.as_str())
            .then(|| format!("{path} contains '{t}'")),
        (FileTest::Matches(p), Some(s)) => {
            (!p.regex.is_match(s)).then(|| format!("{path} does not match /{}/", p.text))
        }
    }
}

fn run_failure(cmd: &str, seen: &Observed) -> Option<String> {
    let args = vec!["-c".to_string(), cmd.to_string()];
    let job = Job {
        program: Path::new("sh"),
        args: &args,
        cwd: seen.work,
        env: seen.env,
        timeout: seen.timeout,
    };
    match process::run(&job) {
        Err(e) => Some(format!("run '{cmd}': {e}")),
        Ok(done) if done.timed_out => Some(format!(
            "run '{cmd}' did not finish within {} s",
            seen.timeout.as_secs()
        )),
        Ok(done) if done.code == Some(0) => None,
        Ok(done) => {
            let tail: Vec<&str> = done
                .stdout
                .lines()
                .chain(done.stderr.lines())
                .filter(|l| !l.trim().is_empty())
                .collect();
            let tail = tail[tail.len().saturating_sub(3)..].join(" | ");
            Some(format!(
                "run '{cmd}' exited {}: {}",
                done.code.map_or("by a signal".into(), |c| c.to_string()),
                short(&tail)
            ))
        }
    }
}

/// At most 160 characters of `text`.
fn short(text: &str) -> String {
    let mut out: String = text.chars().take(160).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}
