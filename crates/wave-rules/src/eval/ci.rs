//! An eval's results in CI's own formats: JUnit XML (one testcase per
//! scenario and agent, a failure when its gate failed, the numbers in the
//! message) and a Markdown table for GitHub's step summary.

use super::suite::Suite;
use super::summary::{rate_text, Report, Row};
use std::io::Write;
use std::path::Path;

/// The JUnit XML of a report; `gated(i)` gives row i's failed gates.
pub fn junit(report: &Report, gated: &dyn Fn(usize) -> Vec<String>) -> String {
    let failed: Vec<Vec<String>> = (0..report.rows.len()).map(gated).collect();
    let failures = failed.iter().filter(|f| !f.is_empty()).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"wave-rules eval\" tests=\"{}\" failures=\"{failures}\">\n<testsuite name=\"wave-rules eval\" tests=\"{}\" failures=\"{failures}\">\n",
        report.rows.len(),
        report.rows.len()
    );
    for (r, f) in report.rows.iter().zip(&failed) {
        let summary = numbers(report, r);
        out += &format!(
            "  <testcase classname=\"eval.{}\" name=\"{}\">\n",
            escape(r.agent.as_str()),
            escape(r.name)
        );
        if !f.is_empty() {
            out += &format!(
                "    <failure message=\"{}\">{}</failure>\n",
                escape(&f.join("; ")),
                escape(&summary)
            );
        }
        out += &format!(
            "    <system-out>{}</system-out>\n  </testcase>\n",
            escape(&summary)
        );
    }
    out + "</testsuite>\n</testsuites>\n"
}

/// `with 9/10 90% [55%, 100%], without ...; uplift +80% [+41%, +95%]`.
fn numbers(report: &Report, r: &Row) -> String {
    let [first, second] = report.compare.labels();
    let [a, b, uplift] = cells(r);
    format!("{first} {a}, {second} {b}; uplift {uplift}")
}

/// Each arm's numbers and the uplift's.
fn cells(r: &Row) -> [String; 3] {
    let arm = |a: &super::results::ArmSummary| {
        if a.judged() {
            rate_text(a)
        } else {
            format!("no run judged ({} errors)", a.errors)
        }
    };
    [arm(&r.with), arm(&r.without), r.uplift_text()]
}

fn escape(s: &str) -> String {
    s.chars()
        .filter(|&c| c == '\n' || c == '\t' || c >= ' ')
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&apos;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// The Markdown table for `GITHUB_STEP_SUMMARY`.
pub fn markdown(report: &Report, suites: &[Suite], gated: &dyn Fn(usize) -> Vec<String>) -> String {
    let [first, second] = report.compare.labels();
    let mut out = format!(
        "### wave-rules eval\n\n| scenario | agent | {first} | {second} | uplift | gate |\n| --- | --- | --- | --- | --- | --- |\n"
    );
    for (i, r) in report.rows.iter().enumerate() {
        let [a, b, uplift] = cells(r);
        let gate = gated(i);
        let verdict = if gate.is_empty() {
            "pass".to_string()
        } else {
            format!("**fail**: {}", gate.join("; "))
        };
        out += &format!(
            "| {} | {} | {a} | {b} | {uplift} | {} |\n",
            md(r.name),
            r.agent.as_str(),
            md(&verdict)
        );
    }
    for s in suites.iter().filter(|s| s.scenarios > 1) {
        out += &format!("\n{}\n", md(&s.text()));
    }
    out + "\n"
}

fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Appends `text` to `file` (GitHub's step summary is one file per step).
pub fn append(file: &Path, text: &str) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot append to {}: {e}", file.display()))
}
