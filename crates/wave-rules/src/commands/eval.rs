//! `wave-rules eval`: does a rule change what the agent does? Each
//! scenario, run by each agent, N times with the rules under test and N
//! times without them (every other rule still delivered), through a
//! recording proxy in front of `--base-url`; pass rates with 95% intervals,
//! the uplift with its interval, tokens and wall time. Exit 2 on bad input
//! (no run started), 1 below `--min-uplift` / `--min-rate`.
#![cfg_attr(target_family = "wasm", allow(dead_code))]

use crate::base::display;
use crate::base::env::{Env, Output, EXIT_TROUBLE};
use crate::eval::eval_agent::EvalAgent;
use crate::eval::eval_args::EvalArgs;
use crate::eval::results::{self, Arm, RunOutcome};
use crate::eval::scenario::{self, Problem, Scenario};
use crate::eval::{MAX_EVAL_JOBS, MAX_EVAL_RUNS, MAX_SCENARIO_FILES};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A scenario ready to run: the rule files it ablates and a line of each
/// rule to look for in what reached the model.
struct Planned {
    scenario: Scenario,
    removed: Vec<PathBuf>,
    needles: Vec<String>,
    /// The text of the rules it depends on (it keys the stored results).
    rules_text: String,
    /// The ids of the rules under test (none: the scenario tests every rule).
    rule_ids: Vec<String>,
}

/// One (scenario, agent) pair and its runs.
struct Cell {
    planned: usize,
    agent: EvalAgent,
    program: PathBuf,
    key: String,
    file: PathBuf,
    runs: Vec<RunOutcome>,
    todo: Vec<(Arm, u32)>,
}

pub fn run(env: &Env, args: &EvalArgs) -> Output {
    match prepare(env, args) {
        Ok((plans, cells)) if args.dry_run => Output {
            stdout: dry_run(env, args, &plans, &cells),
            stderr: String::new(),
            code: 0,
        },
        Ok((plans, mut cells)) => execute(env, args, &plans, &mut cells),
        Err(out) => out,
    }
}

/// Everything checked before a run starts: the options, the scenarios, the
/// rules under test, the agents, the model's address.
fn prepare(env: &Env, args: &EvalArgs) -> Result<(Vec<Planned>, Vec<Cell>), Output> {
    check_options(args).map_err(|m| Output::fail(EXIT_TROUBLE, m))?;
    let loaded = env.load();
    let project = env.config.workdir.clone();
    let scenarios = read_scenarios(&project, &loaded).map_err(problems)?;
    let scenarios = select(scenarios, &args.names).map_err(|m| Output::fail(EXIT_TROUBLE, m))?;
    let plans = scenarios
        .into_iter()
        .map(|s| plan(s, &loaded))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|p| problems(vec![p]))?;
    let mut cells = Vec::new();
    for agent in dedup(&args.agent) {
        let program = agent
            .find(args.agent_bin.as_deref(), &project)
            .map_err(|m| Output::fail(EXIT_TROUBLE, m))?;
        for (i, p) in plans.iter().enumerate() {
            cells.push(cell(&project, args, i, p, agent, program.clone()));
        }
    }
    if !args.dry_run {
        let url = args.base_url.as_deref().unwrap_or_default();
        reachable(url).map_err(|m| Output::fail(EXIT_TROUBLE, m))?;
    }
    Ok((plans, cells))
}

fn check_options(args: &EvalArgs) -> Result<(), String> {
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
    for (name, bar) in [
        ("--min-uplift", args.min_uplift),
        ("--min-rate", args.min_rate),
    ] {
        if bar.is_some_and(|x| !(-1.0..=1.0).contains(&x)) {
            return Err(format!("{name} is a fraction (0.2 for 20 points)"));
        }
    }
    match args.base_url.as_deref() {
        None if !args.dry_run => Err(
            "--base-url is required: the model's address, as you would give it to the agent".into(),
        ),
        Some(u) if !(u.starts_with("http://") || u.starts_with("https://")) => Err(format!(
            "--base-url '{u}' is not an http:// or https:// URL"
        )),
        _ => Ok(()),
    }
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

/// The rules under test of a scenario: their files (to leave out) and a
/// line of each (to look for); an unknown rule, or one that shares its
/// file with other rules, is a problem at the scenario's line.
fn plan(scenario: Scenario, loaded: &memory_rules::Loaded) -> Result<Planned, Problem> {
    let rules = loaded.rules.rules();
    let problem = |message: String| Problem {
        file: scenario.file.clone(),
        line: scenario.line,
        message,
    };
    let mut removed = Vec::new();
    let mut needles = Vec::new();
    let mut rules_text = String::new();
    let wanted: Vec<&memory_rules::Rule> = match &scenario.rules {
        None => rules.iter().collect(),
        Some(names) => names
            .iter()
            .map(|n| find_rule(rules, n).ok_or_else(|| problem(unknown_rule(n, rules))))
            .collect::<Result<_, _>>()?,
    };
    for rule in &wanted {
        if rules
            .iter()
            .filter(|r| r.file_path == rule.file_path)
            .count()
            > 1
            && scenario.rules.is_some()
        {
            return Err(problem(format!("rule '{}' shares its file {} with other rules: leaving it out would leave them out too", rule.id, rule.file_path.display())));
        }
        removed.push(rule.file_path.clone());
        needles.extend(needle(&rule.content));
        rules_text.push_str(&rule.content);
    }
    if scenario.rules.is_none() {
        // Every rule under test: keyed by all of them, none left out twice.
        removed.dedup();
    }
    let rule_ids = if scenario.rules.is_some() {
        wanted.iter().map(|r| r.id.clone()).collect()
    } else {
        Vec::new()
    };
    Ok(Planned {
        scenario,
        removed,
        needles,
        rules_text,
        rule_ids,
    })
}

fn find_rule<'r>(rules: &'r [memory_rules::Rule], name: &str) -> Option<&'r memory_rules::Rule> {
    let stem = |id: &'r str| id.rsplit_once('.').map_or(id, |(s, _)| s);
    rules.iter().find(|r| r.id == name).or_else(|| {
        rules
            .iter()
            .find(|r| stem(&r.id) == name || r.file_path.ends_with(name))
    })
}

fn unknown_rule(name: &str, rules: &[memory_rules::Rule]) -> String {
    let ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).take(20).collect();
    format!(
        "rule '{name}' is not loaded (rules: {})",
        if ids.is_empty() {
            "none".into()
        } else {
            ids.join(", ")
        }
    )
}

/// The longest line of a rule's text (up to 200 characters): what shows
/// that the rule reached the model, however it was wrapped.
fn needle(content: &str) -> Option<String> {
    let line = content
        .lines()
        .map(str::trim)
        .filter(|l| l.chars().count() >= 12)
        .max_by_key(|l| l.len())?;
    Some(line.chars().take(200).collect())
}

fn cell(
    project: &Path,
    args: &EvalArgs,
    planned: usize,
    p: &Planned,
    agent: EvalAgent,
    program: PathBuf,
) -> Cell {
    let model = args.model.as_deref();
    let key = results::key(&[
        &p.scenario.source,
        &p.rules_text,
        agent.as_str(),
        model.unwrap_or(""),
        args.cmd.as_deref().unwrap_or(""),
        env!("CARGO_PKG_VERSION"),
    ]);
    let file = results::file(project, &p.scenario.name, agent.as_str(), model);
    let stored = if args.fresh {
        None
    } else {
        results::load(&file, &key)
    };
    let mut runs: Vec<RunOutcome> = stored
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.index < args.runs)
        .collect();
    let mut todo = Vec::new();
    for arm in [Arm::With, Arm::Without] {
        for index in 0..args.runs {
            if !runs.iter().any(|r| r.arm == arm && r.index == index) {
                todo.push((arm, index));
            }
        }
    }
    runs.sort_by_key(|r| (r.arm == Arm::Without, r.index));
    Cell {
        planned,
        agent,
        program,
        key,
        file,
        runs,
        todo,
    }
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
        let size = p.scenario.prompt.len()
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
mod native {
    use super::{Cell, Planned};
    use crate::base::display;
    use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
    use crate::eval::eval_args::EvalArgs;
    use crate::eval::results::{self, Arm, Stored};
    use crate::eval::runner::{self, RunSpec, Settings};
    use crate::eval::summary::Report;
    use crate::eval::DEFAULT_RUN_TIMEOUT;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    pub(super) fn execute(
        env: &Env,
        args: &EvalArgs,
        plans: &[Planned],
        cells: &mut [Cell],
    ) -> Output {
        let settings = settings(env, args);
        run_all(plans, cells, &settings, args.jobs);
        let mut stderr = String::new();
        for c in cells.iter() {
            let p = &plans[c.planned];
            let measured = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let stored = Stored {
                key: c.key.clone(),
                scenario: p.scenario.name.clone(),
                agent: c.agent.as_str().into(),
                model: args.model.clone(),
                rules: p.rule_ids.clone(),
                measured,
                runs: c.runs.clone(),
            };
            if let Err(e) = results::save(&c.file, &stored) {
                stderr += &display::line(&format!("wave-rules: {e}"));
            }
        }
        let report = Report::new(
            plans.iter().map(|p| p.scenario.name.as_str()).collect(),
            cells
                .iter()
                .map(|c| (c.planned, c.agent, c.runs.as_slice()))
                .collect(),
        );
        let stdout = if env.json {
            report.json(args)
        } else {
            report.text()
        };
        let code = if report.unreachable() {
            stderr += &display::line(&format!("wave-rules: the model at {} could not be reached or refused: see the errors above; no result is a measurement", args.base_url.as_deref().unwrap_or("")));
            EXIT_TROUBLE
        } else if report.below(args.min_uplift, args.min_rate) {
            EXIT_FAILURE
        } else {
            0
        };
        Output {
            stdout,
            stderr: stderr + &report.bars(args.min_uplift, args.min_rate),
            code,
        }
    }

    fn settings(env: &Env, args: &EvalArgs) -> Settings {
        // The hooks run this program when it is the CLI itself (not Node
        // running the addon); else `hook install` picks the project's bin.
        let exe = std::env::current_exe().ok().filter(|p| {
            p.file_stem()
                .is_some_and(|s| s.to_string_lossy().starts_with("wave-rules"))
        });
        Settings {
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
            hook_command: exe.map(|p| crate::base::launch::shell_quote(&p.to_string_lossy())),
        }
    }

    /// Every run to do, `jobs` at a time, each in a thread of a bounded pool.
    fn run_all(plans: &[Planned], cells: &mut [Cell], settings: &Settings, jobs: u32) {
        let queue: Vec<(usize, Arm, u32)> = cells
            .iter()
            .enumerate()
            .flat_map(|(i, c)| c.todo.iter().map(move |&(a, n)| (i, a, n)))
            .collect();
        let queue = Arc::new(Mutex::new(queue.into_iter()));
        let done = Arc::new(Mutex::new(Vec::new()));
        let cells_ro: &[Cell] = cells;
        std::thread::scope(|s| {
            for _ in 0..jobs {
                let (queue, done) = (Arc::clone(&queue), Arc::clone(&done));
                s.spawn(move || loop {
                    let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                    let Some((i, arm, index)) = next else { break };
                    let c = &cells_ro[i];
                    let p = &plans[c.planned];
                    let spec = RunSpec {
                        scenario: &p.scenario,
                        agent: c.agent,
                        program: &c.program,
                        arm,
                        index,
                        removed: &p.removed,
                        needles: &p.needles,
                    };
                    let outcome = runner::run_one(&spec, settings);
                    if let Ok(mut d) = done.lock() {
                        d.push((i, outcome));
                    }
                });
            }
        });
        let finished = Arc::try_unwrap(done)
            .map(|m| m.into_inner().unwrap_or_default())
            .unwrap_or_default();
        for (i, outcome) in finished {
            cells[i].runs.push(outcome);
        }
        for c in cells.iter_mut() {
            c.runs.sort_by_key(|r| (r.arm == Arm::Without, r.index));
        }
    }
}
#[cfg(not(target_family = "wasm"))]
use native::execute;

/// The WebAssembly build runs no agent and opens no socket.
#[cfg(target_family = "wasm")]
fn execute(_env: &Env, _args: &EvalArgs, _plans: &[Planned], _cells: &mut [Cell]) -> Output {
    Output::fail(EXIT_TROUBLE, "eval runs agents and a proxy: not in the WebAssembly build (install the native package for your platform)")
}
