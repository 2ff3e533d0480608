//! `wave-rules eval`: does a rule change what the agent does? Each
//! scenario, run by each agent, N times with the rules under test and N
//! times without them (every other rule still delivered), through a
//! recording proxy in front of `--base-url`; pass rates with 95% intervals,
//! the uplift with its interval, tokens and wall time. Exit 2 on bad input
//! (no run started), 1 below `--min-uplift` / `--min-rate`.
#![cfg_attr(target_family = "wasm", allow(dead_code))]

use crate::base::display;
use crate::base::env::{Env, Output, EXIT_TROUBLE};
use crate::eval::budget::{self, Budget};
use crate::eval::eval_agent::EvalAgent;
use crate::eval::eval_args::EvalArgs;
use crate::eval::options::Shard;
use crate::eval::plan::{self, Cell, KeyParts, Planned};
use crate::eval::results::Compare;
use crate::eval::scenario::{self, Problem, Scenario};
use crate::eval::{
    DEFAULT_RUN_TIMEOUT, MAX_EVAL_JOBS, MAX_EVAL_RUNS, MAX_JUDGE_RUNS, MAX_SCENARIO_FILES,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `prepare` decided: the plans, the cells, the comparison.
struct Prepared {
    plans: Vec<Planned>,
    cells: Vec<Cell>,
    compare: Compare,
    commit: Option<String>,
    budget: Budget,
}

pub fn run(env: &Env, args: &EvalArgs) -> Output {
    if !args.ci.merge.is_empty() {
        return merged(env, args);
    }
    match prepare(env, args) {
        Ok(p) if p.plans.is_empty() => Output {
            stdout: String::new(),
            stderr: display::line(&format!(
                "wave-rules: no rule under test changed since {}: nothing to run",
                args.ci.against.as_deref().unwrap_or("")
            )),
            code: 0,
        },
        Ok(p) if args.dry_run => Output {
            stdout: dry_run(env, args, &p.plans, &p.cells),
            stderr: String::new(),
            code: 0,
        },
        Ok(mut p) => execute(env, args, &mut p),
        Err(out) => out,
    }
}

/// Everything checked before a run starts: the options, the scenarios, the
/// rules under test (and `--against`'s ref), the agents, the price table,
/// the model's address.
fn prepare(env: &Env, args: &EvalArgs) -> Result<Prepared, Output> {
    let fail = |m: String| Output::fail(EXIT_TROUBLE, m);
    let shard = check_options(args).map_err(fail)?;
    let loaded = env.load();
    let project = env.config.workdir.clone();
    let scenarios = read_scenarios(&project, &loaded).map_err(problems)?;
    let scenarios = select(scenarios, &args.names).map_err(fail)?;
    let (compare, commit) = match &args.ci.against {
        Some(at) => {
            let sha = crate::eval::against::resolve(&project, at).map_err(fail)?;
            (Compare::Against(at.clone()), Some(sha))
        }
        None if args.ci.aa => (Compare::Aa, None),
        None => (Compare::Ablation, None),
    };
    let at = match (&compare, &commit) {
        (Compare::Against(_), Some(sha)) => Compare::Against(sha.clone()),
        _ => compare.clone(),
    };
    let mut plans = scenarios
        .into_iter()
        .map(|s| plan::plan(s, &loaded, &at, &project))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|p| problems(vec![p]))?;
    if commit.is_some() {
        plans.retain(Planned::changed);
    }
    let price = match &args.ci.prices {
        Some(file) if args.ci.max_cost.is_some() => {
            Some(budget::price_of(file, args.model.as_deref()).map_err(fail)?)
        }
        _ => None,
    };
    let mut budget = Budget::new(args.ci.max_tokens, args.ci.max_cost, price);
    let judged = check_judge(args, &plans).map_err(fail)?;
    if judged && price.is_some() {
        let file = args.ci.prices.as_deref().unwrap_or(Path::new(""));
        budget.judge_price =
            Some(budget::price_of(file, args.ci.judge_model.as_deref()).map_err(fail)?);
    }
    let cells = cells(args, &project, &plans, &compare, shard)?;
    if !args.dry_run && !plans.is_empty() {
        let url = args.base_url.as_deref().unwrap_or_default();
        if !args.ci.regrade {
            reachable(url).map_err(fail)?;
        }
        if judged {
            let judge = args.ci.judge_base_url.as_deref().unwrap_or_default();
            reachable(judge).map_err(|e| fail(format!("--judge-base-url: {e}")))?;
        }
    }
    Ok(Prepared {
        plans,
        cells,
        compare,
        commit,
        budget,
    })
}

/// A cell per (agent, scenario), each agent's program found.
fn cells(
    args: &EvalArgs,
    project: &Path,
    plans: &[Planned],
    compare: &Compare,
    shard: Option<Shard>,
) -> Result<Vec<Cell>, Output> {
    let timeout = args
        .timeout
        .map_or(DEFAULT_RUN_TIMEOUT, Duration::from_secs);
    let judge = format!(
        "{:?} {} {} {}",
        args.ci.judge_api,
        args.ci.judge_base_url.as_deref().unwrap_or(""),
        args.ci.judge_model.as_deref().unwrap_or(""),
        args.ci.judge_runs
    );
    let mut out = Vec::new();
    for agent in dedup(&args.agent) {
        let program = agent
            .find(args.agent_bin.as_deref(), project)
            .map_err(|m| Output::fail(EXIT_TROUBLE, m))?;
        for (i, p) in plans.iter().enumerate() {
            let parts = KeyParts {
                agent,
                model: args.model.as_deref(),
                cmd: args.cmd.as_deref(),
                base_url: args.base_url.as_deref().unwrap_or(""),
                timeout_secs: timeout.as_secs(),
                compare,
                judge: &judge,
            };
            // The eval's one order of work: agents, scenarios, arms, runs.
            let first = out.len() as u64 * 2 * u64::from(args.runs);
            let reuse = plan::Reuse {
                runs: args.runs,
                fresh: args.fresh,
                regrade: args.ci.regrade,
            };
            let c = plan::cell(project, p, &parts, reuse, shard.map(|s| (s, first)));
            out.push(Cell {
                planned: i,
                agent,
                program: program.clone(),
                key: c.key,
                run_key: c.run_key,
                file: c.file,
                runs: c.runs,
                todo: c.todo,
            });
        }
    }
    Ok(out)
}

/// The options' own problems; the shard, when one is asked for.
fn check_options(args: &EvalArgs) -> Result<Option<Shard>, String> {
    if args.runs == 0 || args.runs > MAX_EVAL_RUNS {
        return Err(format!(
            "--runs is 1 to {MAX_EVAL_RUNS} (MAX_EVAL_RUNS), not {}",
            args.runs
        ));
    }
    if args.jobs == 0 || args.jobs > MAX_EVAL_JOBS {
        return Err(format!(
            "--jobs is 1 to {MAX_EVAL_JOBS} (MAX_EVAL_JOBS), not {}",
            args.jobs
        ));
    }
    if args.agent.contains(&EvalAgent::Command) != args.cmd.is_some() {
        return Err("--agent command and --cmd go together".into());
    }
    check_bars(args)?;
    let shard = args.ci.shard.as_deref().map(Shard::parse).transpose()?;
    match args.base_url.as_deref() {
        None if !args.dry_run => Err(
            "--base-url is required: the model's address, as you would give it to the agent".into(),
        ),
        Some(u) if !(u.starts_with("http://") || u.starts_with("https://")) => Err(format!(
            "--base-url '{u}' is not an http:// or https:// URL"
        )),
        _ => Ok(shard),
    }
}

/// Whether a scenario has a `judge:` check; if one has, the judge's
/// options must be given (the error names the scenario's file and line).
fn check_judge(args: &EvalArgs, plans: &[Planned]) -> Result<bool, String> {
    let ci = &args.ci;
    if ci.judge_runs == 0 || ci.judge_runs > MAX_JUDGE_RUNS || ci.judge_runs.is_multiple_of(2) {
        return Err(format!(
            "--judge-runs is odd, 1 to {MAX_JUDGE_RUNS} (MAX_JUDGE_RUNS; a majority), not {}",
            ci.judge_runs
        ));
    }
    if let Some(u) = ci.judge_base_url.as_deref() {
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            return Err(format!(
                "--judge-base-url '{u}' is not an http:// or https:// URL"
            ));
        }
    }
    let Some(p) = plans.iter().find(|p| p.judged()) else {
        return Ok(false);
    };
    if ci.judge_base_url.is_none() || ci.judge_model.is_none() {
        return Err(format!(
            "{}:{}: scenario '{}' has a judge: check: give --judge-base-url and --judge-model (docs/eval.md)",
            p.scenario.file.display(),
            p.scenario.line,
            p.scenario.name
        ));
    }
    Ok(true)
}

/// The gates' and the budget's numbers are in range.
fn check_bars(args: &EvalArgs) -> Result<(), String> {
    if args.min_uplift.is_some_and(|x| !(-1.0..=1.0).contains(&x)) {
        return Err("--min-uplift is a fraction from -1 to 1 (0.2 for 20 points)".into());
    }
    if args.min_rate.is_some_and(|x| !(0.0..=1.0).contains(&x)) {
        return Err("--min-rate is a fraction from 0 to 1 (0.9 for 90%)".into());
    }
    if args
        .ci
        .max_suite_p
        .is_some_and(|x| !(0.0..=1.0).contains(&x))
    {
        return Err("--max-suite-p is a probability from 0 to 1 (0.05)".into());
    }
    if args.ci.max_tokens == Some(0) {
        return Err("--max-tokens is 1 or more".into());
    }
    if args.ci.max_cost.is_some_and(|x| x.is_nan() || x <= 0.0) {
        return Err("--max-cost is a number of US dollars above 0".into());
    }
    Ok(())
}

fn dedup(agents: &[EvalAgent]) -> Vec<EvalAgent> {
    let mut out = agents.to_vec();
    out.sort();
    out.dedup();
    out
}

/// The problems of every scenario, as `validate` shows them
/// (`invalid-scenario` errors on their files and lines).
pub fn scenario_diagnostics(
    project: &Path,
    loaded: &memory_rules::Loaded,
) -> Vec<memory_rules::Diagnostic> {
    let problems = read_scenarios(project, loaded).err().unwrap_or_default();
    problems
        .iter()
        .map(|p| p.diagnostic(&project.join(&p.file)))
        .collect()
}

/// The scenarios of `.wave/evals/*.yaml` and of the rules' `evals:`, all
/// read before any is refused (every problem at once).
fn read_scenarios(
    project: &Path,
    loaded: &memory_rules::Loaded,
) -> Result<Vec<Scenario>, Vec<Problem>> {
    let dir = project.join(".wave/evals");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    let mut problems = Vec::new();
    if files.len() > MAX_SCENARIO_FILES {
        problems.push(Problem {
            file: dir.clone(),
            line: 1,
            message: format!(
                "{} scenario files, over the limit of {MAX_SCENARIO_FILES} (MAX_SCENARIO_FILES)",
                files.len()
            ),
        });
        files.truncate(MAX_SCENARIO_FILES);
    }
    for file in files {
        match std::fs::read_to_string(&file) {
            Ok(text) => push(
                scenario::parse_file(&show(&file, project), &text).map(|s| vec![s]),
                &mut out,
                &mut problems,
            ),
            Err(e) => problems.push(Problem {
                file: show(&file, project),
                line: 1,
                message: format!("cannot read: {e}"),
            }),
        }
    }
    // `evals:` is a key of the rule format (`.wave/rules`, `.claude/rules`)
    // only: the other formats' files are not read again, a file once.
    let mut read = std::collections::HashSet::new();
    let own = loaded.rules.rules().iter().filter(|r| {
        matches!(
            r.format,
            memory_rules::Format::Wave | memory_rules::Format::Claude
        )
    });
    for rule in own.filter(|r| read.insert(r.file_path.clone())) {
        let text = std::fs::read_to_string(&rule.file_path).unwrap_or_default();
        if let Some(found) =
            scenario::parse_rule_evals(&show(&rule.file_path, project), &rule.id, &text)
        {
            push(found, &mut out, &mut problems);
        }
    }
    for (i, s) in out.iter().enumerate() {
        if let Some(first) = out[..i].iter().find(|f| f.name == s.name) {
            problems.push(Problem {
                file: s.file.clone(),
                line: s.line,
                message: format!(
                    "a scenario named '{}' is already in {} (give one a `name:`)",
                    s.name,
                    first.file.display()
                ),
            });
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn push(
    found: Result<Vec<Scenario>, Vec<Problem>>,
    out: &mut Vec<Scenario>,
    problems: &mut Vec<Problem>,
) {
    match found {
        Ok(s) => out.extend(s),
        Err(p) => problems.extend(p),
    }
}

fn show(path: &Path, project: &Path) -> PathBuf {
    PathBuf::from(display::show(path, project))
}

/// The scenarios named (all when none is); an unknown name is an error.
fn select(all: Vec<Scenario>, names: &[String]) -> Result<Vec<Scenario>, String> {
    if all.is_empty() {
        return Err("no scenario: write one in .wave/evals/NAME.yaml (docs/eval.md), or an `evals:` list in a rule's frontmatter".into());
    }
    if let Some(unknown) = names.iter().find(|n| !all.iter().any(|s| &&s.name == n)) {
        let known: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        return Err(format!(
            "no scenario named '{unknown}' (scenarios: {})",
            known.join(", ")
        ));
    }
    Ok(all
        .into_iter()
        .filter(|s| names.is_empty() || names.contains(&s.name))
        .collect())
}

/// The model's host and port answer a connection (within 5 s).
fn reachable(url: &str) -> Result<(), String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?']).next().unwrap_or("");
    let with_port = if host.contains(':') && !host.ends_with(']') {
        host.to_string()
    } else {
        format!("{host}:{}", if url.starts_with("https") { 443 } else { 80 })
    };
    let addrs = std::net::ToSocketAddrs::to_socket_addrs(&with_port)
        .map_err(|e| format!("cannot reach the model at {url}: {e}"))?;
    let mut last = String::from("no address");
    for addr in addrs {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!("cannot reach the model at {url}: {last}"))
}

fn problems(list: Vec<Problem>) -> Output {
    let text: String = list
        .iter()
        .map(|p| display::line(&format!("{p}")))
        .collect();
    Output {
        stdout: String::new(),
        stderr: text
            + &display::line(&format!(
                "wave-rules: {} problem(s) in the scenarios; no run started",
                list.len()
            )),
        code: EXIT_TROUBLE,
    }
}

/// The plan, and a floor for the tokens it sends (the scenario's own text;
/// each agent adds its system prompt and tools, often 5,000 to 20,000 tokens a request).
fn dry_run(env: &Env, args: &EvalArgs, plans: &[Planned], cells: &[Cell]) -> String {
    let mut rows = Vec::new();
    let mut total_runs = 0usize;
    for c in cells {
        let p = &plans[c.planned];
        let size = p.scenario.turns.iter().map(String::len).sum::<usize>()
            + p.scenario.files.iter().map(|(_, t)| t.len()).sum::<usize>()
            + p.rules_text.len();
        total_runs += c.todo.len();
        rows.push(serde_json::json!({ "name": p.scenario.name, "agent": c.agent.as_str(), "runs": c.todo.len(), "stored": c.runs.len(), "estimatedInputTokensPerRun": size / 4 }));
    }
    let plan = serde_json::json!({ "dryRun": true, "runs": total_runs, "jobs": args.jobs, "baseUrl": args.base_url, "model": args.model, "scenarios": rows });
    if env.json {
        return display::json_text(&plan);
    }
    let mut out = String::new();
    for r in &rows {
        out += &display::line(&format!(
            "{} · {}: {} runs to do ({} stored), at least {} input tokens a run",
            r["name"].as_str().unwrap_or(""),
            r["agent"].as_str().unwrap_or(""),
            r["runs"],
            r["stored"],
            r["estimatedInputTokensPerRun"]
        ));
    }
    out + &display::line(&format!(
        "{total_runs} runs in all, {} at a time; nothing sent (--dry-run)",
        args.jobs
    ))
}

/// The runs themselves (not in the WebAssembly build: no process, no socket).
#[cfg(not(target_family = "wasm"))]
fn execute(env: &Env, args: &EvalArgs, p: &mut Prepared) -> Output {
    use crate::eval::execute::Context;
    let ctx = Context {
        compare: p.compare.clone(),
        commit: p.commit.clone(),
        sharded: args.ci.shard.is_some(),
        budget: std::mem::take(&mut p.budget),
        settings: settings(env, args),
    };
    crate::eval::execute::execute(env, args, &p.plans, &mut p.cells, &ctx)
}

#[cfg(not(target_family = "wasm"))]
fn settings(env: &Env, args: &EvalArgs) -> crate::eval::runner::Settings {
    // The hooks run this program when it is the CLI itself (not Node
    // running the addon); else `hook install` picks the project's bin.
    let exe = std::env::current_exe().ok().filter(|p| {
        p.file_stem()
            .is_some_and(|s| s.to_string_lossy().starts_with("wave-rules"))
    });
    crate::eval::runner::Settings {
        project: env.config.workdir.clone(),
        base_url: args.base_url.clone().unwrap_or_default(),
        model: args.model.clone(),
        timeout: args
            .timeout
            .map_or(DEFAULT_RUN_TIMEOUT, Duration::from_secs),
        keep: args.keep,
        agent_args: args.agent_args.clone(),
        pass_env: args.pass_env.clone(),
        cmd: args.cmd.clone(),
        hook_command: exe.map(|p| memory_rules::base::sh::quote(&p.to_string_lossy())),
        judge: judge(args),
    }
}

/// The judge of `judge:` checks, when its options are given.
#[cfg(not(target_family = "wasm"))]
fn judge(args: &EvalArgs) -> Option<crate::eval::judge::Judge> {
    let ci = &args.ci;
    Some(crate::eval::judge::Judge {
        base_url: ci.judge_base_url.clone()?,
        model: ci.judge_model.clone()?,
        api: ci.judge_api,
        runs: ci.judge_runs,
        timeout: args
            .timeout
            .map_or(DEFAULT_RUN_TIMEOUT, Duration::from_secs),
    })
}

/// The WebAssembly build runs no agent and opens no socket.
#[cfg(target_family = "wasm")]
fn execute(_env: &Env, _args: &EvalArgs, _p: &mut Prepared) -> Output {
    Output::fail(EXIT_TROUBLE, "eval runs agents and a proxy: not in the WebAssembly build (install the native package for your platform)")
}

/// `--merge DIR...`: the union of shards' stored results, reported and
/// gated as one eval; no run.
fn merged(env: &Env, args: &EvalArgs) -> Output {
    use crate::eval::conclude::{conclude, Conclusion};
    use crate::eval::summary::Report;
    let m = match crate::eval::merge::merge(&args.ci.merge) {
        Ok(m) => m,
        Err(e) => return Output::fail(EXIT_TROUBLE, e),
    };
    let compare = m.stored[0].compare();
    if let Some(other) = m.stored.iter().find(|s| s.compare() != compare) {
        return Output::fail(EXIT_TROUBLE, format!("--merge: the results of scenario '{}' compare {:?}, others {:?}: merge the shards of one eval only", other.scenario, other.compare().labels(), compare.labels()));
    }
    let report = Report::new(
        m.stored.iter().map(|s| s.scenario.as_str()).collect(),
        m.stored
            .iter()
            .zip(&m.agents)
            .enumerate()
            .map(|(i, (s, &a))| (i, a, s.runs.as_slice(), s.tested))
            .collect(),
        compare,
    );
    let base_url = m.stored[0].base_url.clone().unwrap_or_default();
    conclude(&Conclusion {
        report: &report,
        base_url: &base_url,
        model: m.stored[0].model.as_deref(),
        bars: crate::eval::gates::Bars {
            min_uplift: args.min_uplift,
            min_rate: args.min_rate,
            max_suite_p: args.ci.max_suite_p,
        },
        gate: true,
        stopped: None,
        commit: None,
        hashes: Vec::new(),
        json: env.json,
        junit: args.ci.junit.as_deref(),
    })
}
