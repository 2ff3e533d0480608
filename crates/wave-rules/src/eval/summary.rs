//! An eval's results as people read them: per scenario and agent, each
//! arm's pass rate with its interval, the uplift with its interval, tokens
//! and time per run, and why failed runs failed; as a table or as JSON.

use super::eval_agent::EvalAgent;
use super::results::RunOutcome;
use super::results::{round, uplift, Arm, ArmSummary};
use super::stats::{runs_needed, Uplift};
use super::MAX_EVAL_RUNS;
use crate::base::display;
use crate::eval::eval_args::EvalArgs;

/// One scenario by one agent.
pub struct Row<'a> {
    pub name: &'a str,
    pub agent: EvalAgent,
    pub with: ArmSummary,
    pub without: ArmSummary,
    pub uplift: Uplift,
    pub runs: &'a [RunOutcome],
}

/// Every row of an eval.
pub struct Report<'a> {
    pub rows: Vec<Row<'a>>,
}

impl<'a> Report<'a> {
    /// From the scenario names and, per (scenario index, agent), its runs.
    pub fn new(
        names: Vec<&'a str>,
        cells: Vec<(usize, EvalAgent, &'a [RunOutcome])>,
    ) -> Report<'a> {
        let rows = cells
            .into_iter()
            .map(|(i, agent, runs)| {
                let with = ArmSummary::of(runs, Arm::With);
                let without = ArmSummary::of(runs, Arm::Without);
                Row {
                    name: names[i],
                    agent,
                    uplift: uplift(&with, &without),
                    with,
                    without,
                    runs,
                }
            })
            .collect();
        Report { rows }
    }

    /// Whether a run could not reach the model (or the model refused it).
    pub fn unreachable(&self) -> bool {
        self.rows.iter().flat_map(|r| r.runs).any(|r| {
            r.error.as_deref().is_some_and(|e| {
                e.starts_with("cannot reach the model") || e.starts_with("the model at")
            })
        })
    }

    /// Whether a row is below `--min-uplift` or `--min-rate` (point estimates).
    pub fn below(&self, min_uplift: Option<f64>, min_rate: Option<f64>) -> bool {
        !self.misses(min_uplift, min_rate).is_empty()
    }

    fn misses(&self, min_uplift: Option<f64>, min_rate: Option<f64>) -> Vec<String> {
        let mut out = Vec::new();
        for r in &self.rows {
            if let Some(bar) = min_uplift.filter(|&b| r.uplift.value < b) {
                out.push(format!(
                    "{} · {}: uplift {} is below --min-uplift {}",
                    r.name,
                    r.agent.as_str(),
                    signed(r.uplift.value),
                    pct(bar)
                ));
            }
            if let Some(bar) = min_rate.filter(|&b| r.with.rate.rate < b) {
                out.push(format!(
                    "{} · {}: pass rate with the rules {} is below --min-rate {}",
                    r.name,
                    r.agent.as_str(),
                    pct(r.with.rate.rate),
                    pct(bar)
                ));
            }
        }
        out
    }

    /// The lines saying which bars were missed (stderr).
    pub fn bars(&self, min_uplift: Option<f64>, min_rate: Option<f64>) -> String {
        self.misses(min_uplift, min_rate)
            .iter()
            .map(|m| display::line(&format!("wave-rules: {m}")))
            .collect()
    }

    /// The table, then why each failed or errored run did.
    pub fn text(&self) -> String {
        let mut out = display::line(&format!(
            "{:<24} {:<24} {:<24} {:<26} tokens in/out per run (with | without)",
            "scenario · agent", "with", "without", "uplift"
        ));
        for r in &self.rows {
            let uplift = format!(
                "{} [{}, {}]",
                signed(r.uplift.value),
                signed(r.uplift.low),
                signed(r.uplift.high)
            );
            let (w, wo) = (&r.with, &r.without);
            let tokens = format!(
                "{:.0}/{:.0} | {:.0}/{:.0}",
                w.input_tokens, w.output_tokens, wo.input_tokens, wo.output_tokens
            );
            out += &display::line(&format!(
                "{:<24} {:<24} {:<24} {:<26} {tokens}",
                format!("{} · {}", r.name, r.agent.as_str()),
                arm_text(w),
                arm_text(wo),
                uplift
            ));
        }
        for r in self
            .rows
            .iter()
            .filter(|r| r.uplift.low <= 0.0 && r.uplift.value > 0.0)
        {
            let hint = match runs_needed(r.without.rate.rate, r.uplift.value, MAX_EVAL_RUNS) {
                Some(n) => format!("a difference this size needs about {n} runs an arm to show"),
                None => format!(
                    "a difference this size does not show within {MAX_EVAL_RUNS} runs an arm"
                ),
            };
            out += &display::line(&format!(
                "  {} · {}: the uplift's interval includes 0; {hint} (docs/eval.md)",
                r.name,
                r.agent.as_str()
            ));
        }
        for r in &self.rows {
            out += &failures_text(r);
        }
        out
    }

    /// `{"scenarios":[{"name","agent","arms":{"with":{...},"without":{...}},"uplift":{...},"tokens":{...},"runs":[...]}]}`.
    pub fn json(&self, args: &EvalArgs) -> String {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "name": r.name,
                    "agent": r.agent.as_str(),
                    "model": args.model,
                    "arms": { "with": r.with.json(), "without": r.without.json() },
                    "uplift": { "value": round(r.uplift.value), "interval": [round(r.uplift.low), round(r.uplift.high)] },
                    "tokens": {
                        "with": { "input": r.with.input_tokens.round(), "output": r.with.output_tokens.round() },
                        "without": { "input": r.without.input_tokens.round(), "output": r.without.output_tokens.round() },
                    },
                    "runs": r.runs,
                })
            })
            .collect();
        display::json_text(&serde_json::json!({ "baseUrl": args.base_url, "scenarios": rows }))
    }
}

/// Why the runs of a row that did not pass did not, one line per arm and
/// reason, with the runs it holds for.
fn failures_text(r: &Row) -> String {
    let mut groups: Vec<(Arm, String, Vec<u32>)> = Vec::new();
    for run in r.runs.iter().filter(|x| !x.passed) {
        let why = match &run.error {
            Some(e) => format!("error: {e}"),
            None => run.failures.join("; "),
        };
        match groups
            .iter_mut()
            .find(|(arm, w, _)| *arm == run.arm && *w == why)
        {
            Some(group) => group.2.push(run.index + 1),
            None => groups.push((run.arm, why, vec![run.index + 1])),
        }
    }
    let mut out = String::new();
    for (arm, why, runs) in groups {
        let mut list: Vec<String> = runs.iter().take(5).map(|n| format!("#{n}")).collect();
        if runs.len() > 5 {
            list.push(format!("and {} more", runs.len() - 5));
        }
        out += &display::line(&format!(
            "  {} · {} {} {}: {why}",
            r.name,
            r.agent.as_str(),
            arm.as_str(),
            list.join(", ")
        ));
    }
    out
}

fn arm_text(a: &ArmSummary) -> String {
    let errors = if a.errors > 0 {
        format!(" +{}err", a.errors)
    } else {
        String::new()
    };
    format!(
        "{}/{} {} [{}, {}]{errors}",
        a.rate.passed,
        a.rate.runs,
        pct(a.rate.rate),
        pct(a.rate.low),
        pct(a.rate.high)
    )
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn signed(x: f64) -> String {
    format!("{:+.0}%", x * 100.0)
}
