//! An eval's results as people read them: per scenario and agent, each
//! arm's pass rate with its interval, the uplift with its interval, tokens
//! and time per run, and why failed runs failed; as a table or as JSON.

use super::eval_agent::EvalAgent;
use super::results::RunOutcome;
use super::results::{round, uplift, Arm, ArmSummary, Compare};
use super::stats::{runs_needed, Uplift};
use super::MAX_EVAL_RUNS;
use crate::base::display;

/// One scenario by one agent.
pub struct Row<'a> {
    pub name: &'a str,
    pub agent: EvalAgent,
    pub with: ArmSummary,
    pub without: ArmSummary,
    pub uplift: Uplift,
    pub runs: &'a [RunOutcome],
    /// Whether the scenario has rules under test whose text can be looked
    /// for in what reached the model.
    pub tested: bool,
}

/// Every row of an eval.
pub struct Report<'a> {
    pub rows: Vec<Row<'a>>,
    pub compare: Compare,
}

/// One (scenario index, agent) pair: its runs, and whether its rules
/// under test can be looked for in what reached the model.
pub type CellRuns<'a> = (usize, EvalAgent, &'a [RunOutcome], bool);

impl<'a> Report<'a> {
    /// From the scenario names and, per (scenario index, agent), its runs.
    pub fn new(names: Vec<&'a str>, cells: Vec<CellRuns<'a>>, compare: Compare) -> Report<'a> {
        let rows = cells
            .into_iter()
            .map(|(i, agent, runs, tested)| {
                let with = ArmSummary::of(runs, Arm::With);
                let without = ArmSummary::of(runs, Arm::Without);
                Row {
                    name: names[i],
                    agent,
                    uplift: uplift(&with, &without),
                    with,
                    without,
                    runs,
                    tested,
                }
            })
            .collect();
        Report { rows, compare }
    }

    /// The table, then why each failed or errored run did.
    pub fn text(&self) -> String {
        let [first, second] = self.compare.labels();
        let mut out = display::line(&format!(
            "{:<24} {:<24} {:<24} {:<26} tokens in/out per run ({first} | {second})",
            "scenario · agent", first, second, "uplift"
        ));
        for r in &self.rows {
            let uplift = r.uplift_text();
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
            .filter(|r| r.uplift.low <= 0.0 && r.uplift.value > 0.0 && r.judged())
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
            out += &failures_text(r, &self.compare);
        }
        out
    }

    /// `{"scenarios":[{"name","agent","arms":{"with":{...},"without":{...}},"uplift":{...},"tokens":{...},"runs":[...]}]}`
    /// (the arms named as the comparison names them).
    pub fn rows_json(&self, model: Option<&str>) -> Vec<serde_json::Value> {
        let [first, second] = self.compare.labels();
        self.rows
            .iter()
            .map(|r| {
                let runs: Vec<serde_json::Value> = r.runs.iter().map(|x| self.run_json(x)).collect();
                serde_json::json!({
                    "name": r.name,
                    "agent": r.agent.as_str(),
                    "model": model,
                    "arms": { first: r.with.json(), second: r.without.json() },
                    "uplift": r.uplift_json(),
                    "tokens": {
                        first: { "input": r.with.input_tokens.round(), "output": r.with.output_tokens.round() },
                        second: { "input": r.without.input_tokens.round(), "output": r.without.output_tokens.round() },
                    },
                    "runs": runs,
                })
            })
            .collect()
    }

    /// One run as JSON, its arm named as the comparison names it.
    fn run_json(&self, run: &RunOutcome) -> serde_json::Value {
        let mut v = serde_json::to_value(run).unwrap_or_default();
        v["arm"] = self.compare.label(run.arm).into();
        if let Some(o) = v.as_object_mut() {
            o.remove("kept"); // What --regrade needs, in the stored results only.
        }
        v
    }
}

impl Row<'_> {
    /// Whether both arms have a judged run (else there is no uplift).
    pub fn judged(&self) -> bool {
        self.with.judged() && self.without.judged()
    }

    /// `+80% [+41%, +95%]`, or `none` when an arm has no judged run.
    pub fn uplift_text(&self) -> String {
        if !self.judged() {
            return "none".into();
        }
        let u = &self.uplift;
        format!(
            "{} [{}, {}]",
            signed(u.value),
            signed(u.low),
            signed(u.high)
        )
    }

    /// `{"value","interval"}`, or nulls when an arm has no judged run.
    pub fn uplift_json(&self) -> serde_json::Value {
        if !self.judged() {
            return serde_json::json!({ "value": null, "interval": null });
        }
        let u = &self.uplift;
        serde_json::json!({ "value": round(u.value), "interval": [round(u.low), round(u.high)] })
    }

    /// The errors of the runs, each once, with how many runs had it.
    pub fn errors(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for e in self.runs.iter().filter_map(|r| r.error.as_ref()) {
            match out.iter_mut().find(|(x, _)| x == e) {
                Some(found) => found.1 += 1,
                None => out.push((e.clone(), 1)),
            }
        }
        out
    }
}

/// Why the runs of a row that did not pass did not, one line per arm and
/// reason, with the runs it holds for.
fn failures_text(r: &Row, compare: &Compare) -> String {
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
            Some(group) => group.2.push(run.index),
            None => groups.push((run.arm, why, vec![run.index])),
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
            compare.label(arm),
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
    if !a.judged() {
        return format!("no run judged{errors}");
    }
    format!("{}{errors}", rate_text(a))
}

/// `9/10 90% [55%, 100%]`: a judged arm's passes, rate and interval.
pub fn rate_text(a: &ArmSummary) -> String {
    let r = &a.rate;
    format!(
        "{}/{} {} [{}, {}]",
        r.passed,
        r.runs,
        pct(r.rate),
        pct(r.low),
        pct(r.high)
    )
}

pub fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

pub fn signed(x: f64) -> String {
    format!("{:+.0}%", x * 100.0)
}
