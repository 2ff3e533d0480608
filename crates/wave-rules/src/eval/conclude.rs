//! From an eval's report to what the user sees: the table or the JSON,
//! the suites, the lines saying why the results are no measurement or
//! which gate failed, the JUnit file and GitHub's step summary, and the
//! exit code, in this order: 2 (errors) before 3 (budget) before 1 (a gate).

use super::ci;
use super::gates::{self, Bars};
use super::results::Compare;
use super::suite::{suites, Suite};
use super::summary::Report;
use crate::base::display;
use crate::base::env::{Output, EXIT_FAILURE, EXIT_TROUBLE};
use std::path::Path;

/// Exit 3: the budget stopped the runs.
pub const EXIT_BUDGET: i32 = 3;

/// What to conclude from.
pub struct Conclusion<'a> {
    pub report: &'a Report<'a>,
    pub base_url: &'a str,
    pub model: Option<&'a str>,
    pub bars: Bars,
    /// Whether the gates apply (not in a shard: its merge gates).
    pub gate: bool,
    /// The budget stopped the runs: tokens and US dollars spent.
    pub stopped: Option<(u64, f64)>,
    /// `--against`: the commit of the ref.
    pub commit: Option<&'a str>,
    /// Per row, `--against`'s rule hashes.
    pub hashes: Vec<Option<serde_json::Value>>,
    pub json: bool,
    pub junit: Option<&'a Path>,
}

pub fn conclude(c: &Conclusion) -> Output {
    let suites = suites(c.report);
    let trouble = gates::trouble(c.report, c.base_url);
    let misses = if c.gate {
        gates::misses(c.report, &suites, &c.bars)
    } else {
        Vec::new()
    };
    let mut stderr: String = trouble
        .iter()
        .chain(&misses)
        .map(|m| display::line(&format!("wave-rules: {m}")))
        .collect();
    if let Some((tokens, cost)) = c.stopped {
        stderr += &display::line(&format!("wave-rules: the budget is spent ({tokens} tokens, ${cost:.4}): no more runs started; the runs done are kept and reported"));
    }
    let mut code = if !trouble.is_empty() {
        EXIT_TROUBLE
    } else if c.stopped.is_some() {
        EXIT_BUDGET
    } else if !misses.is_empty() {
        EXIT_FAILURE
    } else {
        0
    };
    if let Err(e) = write_ci(c, &suites) {
        stderr += &display::line(&format!("wave-rules: {e}"));
        code = EXIT_TROUBLE;
    }
    let stdout = if c.json {
        json(c, &suites)
    } else {
        text(c.report, &suites)
    };
    Output {
        stdout,
        stderr,
        code,
    }
}

/// The JUnit file (`--junit`) and GitHub's step summary (when
/// `GITHUB_STEP_SUMMARY` is set), each row with the gates it failed.
fn write_ci(c: &Conclusion, suites: &[Suite]) -> Result<(), String> {
    let gated = |i: usize| {
        let r = &c.report.rows[i];
        let mut m = gates::row_misses(r, &c.report.compare, &c.bars);
        if !r.judged() {
            m.push("no run judged in an arm".into());
        }
        if c.gate {
            m
        } else {
            Vec::new()
        }
    };
    if let Some(file) = c.junit {
        std::fs::write(file, ci::junit(c.report, &gated))
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    if let Some(file) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|f| !f.is_empty()) {
        ci::append(Path::new(&file), &ci::markdown(c.report, suites, &gated))
            .map_err(|e| format!("GITHUB_STEP_SUMMARY: {e}"))?;
    }
    Ok(())
}

fn text(report: &Report, suites: &[Suite]) -> String {
    let mut out = report.text();
    for r in report
        .rows
        .iter()
        .filter(|r| report.compare == Compare::Aa && r.judged())
    {
        let holds = if gates::holds_zero(r) {
            "holds 0"
        } else {
            "does not hold 0"
        };
        out += &display::line(&format!(
            "  {} · {}: --aa: the uplift's interval [{}, {}] {holds}",
            r.name,
            r.agent.as_str(),
            super::summary::signed(r.uplift.low),
            super::summary::signed(r.uplift.high)
        ));
    }
    for s in suites.iter().filter(|s| s.scenarios > 1) {
        out += &display::line(&s.text());
    }
    out
}

/// `{"baseUrl","compare","against"?,"stopped"?,"scenarios":[...],"suites":[...]}`.
fn json(c: &Conclusion, suites: &[Suite]) -> String {
    let mut rows = c.report.rows_json(c.model);
    for (i, row) in rows.iter_mut().enumerate() {
        if c.report.compare == Compare::Aa {
            row["holdsZero"] = gates::holds_zero(&c.report.rows[i]).into();
        }
        if let Some(Some(h)) = c.hashes.get(i).filter(|_| c.commit.is_some()) {
            row["rules"] = h.clone();
        }
    }
    let mut v = serde_json::json!({
        "baseUrl": c.base_url,
        "arms": c.report.compare.labels(),
        "scenarios": rows,
        "suites": suites.iter().map(Suite::json).collect::<Vec<_>>(),
    });
    if let Compare::Against(at) = &c.report.compare {
        v["against"] = serde_json::json!({ "ref": at, "commit": c.commit });
    }
    if c.report.compare == Compare::Aa {
        v["aa"] = true.into();
    }
    if let Some((tokens, cost)) = c.stopped {
        v["stopped"] = "budget".into();
        v["spent"] = serde_json::json!({ "tokens": tokens, "usd": super::results::round(cost) });
    }
    display::json_text(&v)
}
