//! What an eval's results let through. First what makes them no
//! measurement at all (exit 2): a model that could not be reached, an arm
//! with no judged run, a rule under test that never reached the model.
//! Then the gates (exit 1), all on intervals, never on point estimates:
//! `--min-uplift` on the uplift's lower bound, `--min-rate` on the first
//! arm's, `--max-suite-p` on the suite's sign test, and `--aa`'s check that
//! identical arms show no difference.

use super::results::Compare;
use super::stats::{runs_to_clear_rate, runs_to_clear_uplift};
use super::suite::Suite;
use super::summary::{pct, signed, Report, Row};
use super::MAX_EVAL_RUNS;

/// The bars a team sets.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bars {
    pub min_uplift: Option<f64>,
    pub min_rate: Option<f64>,
    pub max_suite_p: Option<f64>,
}

/// Why the results are no measurement (each line names the row).
pub fn trouble(report: &Report, base_url: &str) -> Vec<String> {
    let mut out = Vec::new();
    if unreachable(report) {
        out.push(format!("the model at {base_url} could not be reached or refused: see the errors above; no result is a measurement"));
    }
    for r in &report.rows {
        let [first, second] = report.compare.labels();
        for (label, arm) in [(first, &r.with), (second, &r.without)] {
            if arm.runs > 0 && !arm.judged() {
                out.push(format!(
                    "{}: no run judged {label}: {}",
                    row_name(r),
                    errors_text(r)
                ));
            }
        }
        if r.tested && r.with.judged() && r.with.reached == 0 {
            out.push(format!(
                "{}: the rule never reached the model in any run: check how the agent gets its rules (docs/eval.md)",
                row_name(r)
            ));
        }
    }
    out
}

/// Whether a run could not reach the model (or the model refused it).
fn unreachable(report: &Report) -> bool {
    report.rows.iter().flat_map(|r| r.runs).any(|r| {
        r.error.as_deref().is_some_and(|e| {
            e.starts_with("cannot reach the model") || e.starts_with("the model at")
        })
    })
}

/// `3 runs: the agent exited 1: ...; 1 run: ...`.
fn errors_text(r: &Row) -> String {
    let list: Vec<String> = r
        .errors()
        .iter()
        .map(|(e, n)| format!("{n} run{}: {e}", if *n == 1 { "" } else { "s" }))
        .collect();
    if list.is_empty() {
        "no run was judged".into()
    } else {
        list.join("; ")
    }
}

fn row_name(r: &Row) -> String {
    format!("{} · {}", r.name, r.agent.as_str())
}

/// The gates a row or suite missed, each a line with the bound, the point
/// estimate and the runs an arm that would clear it.
pub fn misses(report: &Report, suites: &[Suite], bars: &Bars) -> Vec<String> {
    let mut out = Vec::new();
    for r in report.rows.iter().filter(|r| r.judged()) {
        out.extend(row_misses(r, &report.compare, bars));
    }
    if let Some(bar) = bars.max_suite_p {
        out.extend(suites.iter().filter_map(|s| suite_miss(s, bar)));
    }
    out
}

/// The gates one (scenario, agent) row missed.
pub fn row_misses(r: &Row, compare: &Compare, bars: &Bars) -> Vec<String> {
    let mut out = Vec::new();
    let first = compare.labels()[0];
    if let Some(bar) = bars.min_uplift.filter(|&b| r.uplift.low < b) {
        let clear = runs_to_clear_uplift(r.with.rate.rate, r.without.rate.rate, bar, MAX_EVAL_RUNS);
        out.push(format!(
            "{}: the uplift's lower bound {} (point {}, {} and {} runs judged) is below --min-uplift {}; {}",
            row_name(r),
            signed(r.uplift.low),
            signed(r.uplift.value),
            r.with.rate.runs,
            r.without.rate.runs,
            signed(bar),
            clears(clear)
        ));
    }
    if let Some(bar) = bars.min_rate.filter(|&b| r.with.rate.low < b) {
        let clear = runs_to_clear_rate(r.with.rate.rate, bar, MAX_EVAL_RUNS);
        out.push(format!(
            "{}: the {first} arm's pass rate's lower bound {} (point {}, {} runs judged) is below --min-rate {}; {}",
            row_name(r),
            pct(r.with.rate.low),
            pct(r.with.rate.rate),
            r.with.rate.runs,
            pct(bar),
            clears(clear)
        ));
    }
    if *compare == Compare::Aa && !holds_zero(r) {
        out.push(format!(
            "{}: --aa: the interval [{}, {}] of identical arms does not hold 0: the instrument shows a difference where there is none",
            row_name(r),
            signed(r.uplift.low),
            signed(r.uplift.high)
        ));
    }
    out
}

/// Whether the uplift's interval holds 0 (`--aa` expects it to).
pub fn holds_zero(r: &Row) -> bool {
    r.uplift.low <= 0.0 && 0.0 <= r.uplift.high
}

fn clears(runs: Option<u32>) -> String {
    match runs {
        Some(n) => format!("at the observed rates, {n} runs an arm would clear it"),
        None => format!(
            "at the observed rates, no number of runs up to {MAX_EVAL_RUNS} an arm clears it"
        ),
    }
}

/// A suite fails `--max-suite-p` when its sign test's p is above the bar
/// or its scenarios lean the wrong way.
fn suite_miss(s: &Suite, bar: f64) -> Option<String> {
    let split = format!("{} of {} scenarios up, {} down", s.up, s.scenarios, s.down);
    let few = if s.scenarios < 6 {
        " (with fewer than 6 scenarios no p under 0.05 is possible)"
    } else {
        ""
    };
    if s.p > bar {
        Some(format!(
            "{}: the suite's sign test p = {:.4} ({split}) is above --max-suite-p {bar}{few}",
            s.agent, s.p
        ))
    } else if s.down >= s.up {
        Some(format!(
            "{}: the suite's scenarios lean down ({split}, p = {:.4}): --max-suite-p asks for an improvement",
            s.agent, s.p
        ))
    } else {
        None
    }
}
