//! The runs of an eval, `jobs` at a time within the budget, their results
//! stored (never an error: a run that could not be judged is run again
//! next time), then the report and the exit code: 2 when the results are
//! no measurement, 3 when the budget stopped the runs, 1 when a gate failed.

use super::budget::Budget;
use super::conclude::{conclude, Conclusion};
use super::gates::Bars;
use super::plan::{Cell, Planned};
use super::results::{self, Arm, Compare, RunOutcome, Stored};
use super::runner::{self, RunSpec, Settings};
use super::summary::Report;
use crate::base::display;
use crate::base::env::{Env, Output};
use crate::eval::eval_args::EvalArgs;
use std::sync::{Arc, Mutex};

/// What the command decided before the runs.
pub struct Context {
    pub compare: Compare,
    /// `--against`: the commit the ref named.
    pub commit: Option<String>,
    pub sharded: bool,
    pub budget: Budget,
    pub settings: Settings,
}

pub fn execute(
    env: &Env,
    args: &EvalArgs,
    plans: &[Planned],
    cells: &mut [Cell],
    ctx: &Context,
) -> Output {
    let stopped = if args.ci.regrade {
        regrade_all(plans, cells, ctx);
        false
    } else {
        run_all(plans, cells, ctx, args.jobs)
    };
    let mut stderr = String::new();
    for c in cells.iter() {
        if args.ci.regrade && c.runs.iter().any(|r| r.error.is_some()) {
            continue; // A re-grade that failed leaves the stored runs as they were.
        }
        if let Err(e) = results::save(&c.file, &stored(c, &plans[c.planned], args, ctx)) {
            stderr += &display::line(&format!("wave-rules: {e}"));
        }
    }
    let report = Report::new(
        plans.iter().map(|p| p.scenario.name.as_str()).collect(),
        cells
            .iter()
            .map(|c| {
                let p = &plans[c.planned];
                (c.planned, c.agent, c.runs.as_slice(), !p.needles.is_empty())
            })
            .collect(),
        ctx.compare.clone(),
    );
    let rules_of = |name: &str| {
        let plan = plans.iter().find(|p| p.scenario.name == name);
        plan.map(|p| p.rule_ids.clone()).unwrap_or_default()
    };
    stderr += &super::evaluation_records::send(env, &report, args.model.as_deref(), &rules_of);
    let hashes = cells
        .iter()
        .map(|c| serde_json::to_value(&plans[c.planned].hashes).ok())
        .collect();
    let mut out = conclude(&Conclusion {
        report: &report,
        base_url: args.base_url.as_deref().unwrap_or(""),
        model: args.model.as_deref(),
        bars: Bars {
            min_uplift: args.min_uplift,
            min_rate: args.min_rate,
            max_suite_p: args.ci.max_suite_p,
        },
        gate: !ctx.sharded,
        stopped: stopped.then(|| ctx.budget.spent()),
        commit: ctx.commit.as_deref(),
        hashes,
        json: env.json,
        junit: args.ci.junit.as_deref(),
    });
    out.stderr = stderr + &out.stderr;
    out
}

/// What is stored of a cell: its judged runs only.
fn stored(c: &Cell, p: &Planned, args: &EvalArgs, ctx: &Context) -> Stored {
    let measured = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Stored {
        key: c.key.clone(),
        run_key: c.run_key.clone(),
        scenario: p.scenario.name.clone(),
        agent: c.agent.as_str().into(),
        model: args.model.clone(),
        rules: p.rule_ids.clone(),
        measured,
        runs: c
            .runs
            .iter()
            .filter(|r| r.error.is_none())
            .cloned()
            .collect(),
        base_url: args.base_url.clone(),
        against: match &ctx.compare {
            Compare::Against(at) => Some(at.clone()),
            _ => None,
        },
        aa: ctx.compare == Compare::Aa,
        tested: !p.needles.is_empty(),
    }
}

/// `--regrade`: each cell's stored runs graded again by its checks now.
fn regrade_all(plans: &[Planned], cells: &mut [Cell], ctx: &Context) {
    for c in cells.iter_mut() {
        let p = &plans[c.planned];
        let runs: Vec<_> = c
            .runs
            .iter()
            .map(|run| {
                let spec = spec(c, p, run.arm, run.index);
                super::regrade::regrade_one(&spec, &ctx.settings, run)
            })
            .collect();
        for run in &runs {
            ctx.budget.charge(&RunOutcome {
                input_tokens: 0,
                output_tokens: 0,
                ..run.clone()
            });
        }
        c.runs = runs;
    }
}

/// The spec of one run of a cell.
fn spec<'a>(c: &'a Cell, p: &'a Planned, arm: Arm, index: u32) -> RunSpec<'a> {
    RunSpec {
        scenario: &p.scenario,
        agent: c.agent,
        program: &c.program,
        arm,
        index,
        removed: &p.removed,
        rewritten: &p.rewritten,
        needles: &p.needles,
    }
}

/// Every run to do, `jobs` at a time, each in a thread of a bounded pool;
/// once the budget is spent no run starts. True when the budget stopped it.
fn run_all(plans: &[Planned], cells: &mut [Cell], ctx: &Context, jobs: u32) -> bool {
    let queue: Vec<(usize, Arm, u32)> = cells
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.todo.iter().map(move |&(a, n)| (i, a, n)))
        .collect();
    let total = queue.len();
    let queue = Arc::new(Mutex::new(queue.into_iter()));
    let done = Arc::new(Mutex::new(Vec::new()));
    let cells_ro: &[Cell] = cells;
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let (queue, done) = (Arc::clone(&queue), Arc::clone(&done));
            s.spawn(move || loop {
                if !ctx.budget.allows() {
                    break;
                }
                let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                let Some((i, arm, index)) = next else { break };
                let c = &cells_ro[i];
                let p = &plans[c.planned];
                let outcome = runner::run_one(&spec(c, p, arm, index), &ctx.settings);
                ctx.budget.charge(&outcome);
                if let Ok(mut d) = done.lock() {
                    d.push((i, outcome));
                }
            });
        }
    });
    let finished = Arc::try_unwrap(done)
        .map(|m| m.into_inner().unwrap_or_default())
        .unwrap_or_default();
    let stopped = finished.len() < total;
    for (i, outcome) in finished {
        cells[i].runs.push(outcome);
    }
    for c in cells.iter_mut() {
        c.runs.sort_by_key(|r| (r.arm == Arm::Without, r.index));
    }
    stopped
}
