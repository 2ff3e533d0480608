//! `eval`'s results as telemetry: one `gen_ai.evaluation.result` per
//! scenario, agent and arm (the uplift and its interval on the `with`
//! arm), spooled and shipped before `eval` exits (at most
//! [`EVAL_SHIP_SECONDS`]; what is left goes with the next shipper).

use crate::base::env::Env;
use crate::eval::results::ArmSummary;
use crate::eval::summary::Report;
use memory_rules::delivery::telemetry::events::{self, EvalArm};
use memory_rules::delivery::telemetry::Record;

use memory_rules::base::limits::TELEMETRY_EVAL_SHIP_SECS as EVAL_SHIP_SECONDS;

fn arm<'a>(
    name: &'a str,
    agent: &'a str,
    model: Option<&'a str>,
    rule: Option<&'a str>,
    which: &'a str,
    s: &ArmSummary,
) -> EvalArm<'a> {
    EvalArm {
        scenario: name,
        rule,
        agent,
        model,
        arm: which,
        runs: u64::from(s.rate.runs),
        passed: u64::from(s.rate.passed),
        rate: (s.rate.rate, s.rate.low, s.rate.high),
        uplift: None,
    }
}

/// The records of a report; `rules_of` names a scenario's rules under test.
pub fn records(
    report: &Report,
    model: Option<&str>,
    rules_of: &dyn Fn(&str) -> Vec<String>,
) -> Vec<Record<'static>> {
    let mut out = Vec::new();
    for row in &report.rows {
        let rules = rules_of(row.name);
        let rule = rules.first().map(String::as_str);
        let agent = row.agent.as_str();
        let record = |arm: &EvalArm| {
            let record = events::evaluation(arm).with("wave_rules.eval.rules", rules.clone());
            record.into_owned()
        };
        let mut with = arm(row.name, agent, model, rule, "with", &row.with);
        with.uplift = Some((row.uplift.value, row.uplift.low, row.uplift.high));
        out.push(record(&with));
        out.push(record(&arm(
            row.name,
            agent,
            model,
            rule,
            "without",
            &row.without,
        )));
    }
    out
}

/// Spools and ships the report's records when telemetry is on; what went
/// wrong, as stderr lines.
pub fn send(
    env: &Env,
    report: &Report,
    model: Option<&str>,
    rules_of: &dyn Fn(&str) -> Vec<String>,
) -> String {
    let telemetry = crate::telemetry::for_env(env);
    if !telemetry.enabled() {
        return String::new();
    }
    let mut stderr: String = telemetry
        .settings()
        .problems
        .iter()
        .map(|p| format!("wave-rules: {p}\n"))
        .collect();
    if let Err(e) = telemetry.record(&records(report, model, rules_of)) {
        stderr.push_str(&format!("wave-rules: {e}\n"));
        return stderr;
    }
    let out = crate::telemetry::shipper::run(
        &crate::telemetry::places(env),
        &memory_rules::base::fs::state_dir(&env.home_dir()),
        EVAL_SHIP_SECONDS,
        0,
    );
    stderr + &out.stderr
}
