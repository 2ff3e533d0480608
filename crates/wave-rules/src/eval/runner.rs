//! One run of one scenario by one agent in one arm: a scratch copy, the
//! hooks installed as `hook install` writes them, the agent headless
//! against the recording proxy, then the checks.

use super::checks::{self, Observed};
use super::eval_agent::{EvalAgent, Launch, RunPlace};
use super::process::{self, Finished, Job};
use super::proxy::{Api, Exchange, Proxy};
use super::results::{Arm, RunOutcome};
use super::scenario::Scenario;
use super::scratch::Scratch;
use crate::base::args::{GlobalArgs, InstallArgs, ScopeArg};
use crate::base::env::Env;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What every run of an eval shares.
pub struct Settings {
    pub project: PathBuf,
    pub base_url: String,
    pub model: Option<String>,
    pub timeout: Duration,
    pub keep: bool,
    pub agent_args: Vec<String>,
    pub pass_env: Vec<String>,
    pub cmd: Option<String>,
    /// What the installed hooks run (this program), when it is known.
    pub hook_command: Option<String>,
}

/// One run to do.
pub struct RunSpec<'a> {
    pub scenario: &'a Scenario,
    pub agent: EvalAgent,
    pub program: &'a Path,
    pub arm: Arm,
    pub index: u32,
    /// The files of the rules under test (left out of the arm without).
    pub removed: &'a [PathBuf],
    /// A line of each rule under test, to see whether it reached the model.
    pub needles: &'a [String],
}

/// Does one run; never panics, an error is an outcome.
pub fn run_one(spec: &RunSpec, settings: &Settings) -> RunOutcome {
    let mut outcome = RunOutcome {
        arm: spec.arm,
        index: spec.index,
        passed: false,
        error: None,
        failures: Vec::new(),
        input_tokens: 0,
        output_tokens: 0,
        wall_ms: 0,
        rule_reached: false,
        requests: 0,
        commands: Vec::new(),
    };
    if let Err(e) = attempt(spec, settings, &mut outcome) {
        outcome.error = Some(e);
        outcome.passed = false;
    }
    outcome
}

fn attempt(spec: &RunSpec, settings: &Settings, outcome: &mut RunOutcome) -> Result<(), String> {
    let removed = if spec.arm == Arm::Without {
        spec.removed
    } else {
        &[]
    };
    let scratch = Scratch::create(
        &settings.project,
        removed,
        &spec.scenario.files,
        settings.keep,
    )?;
    install_hooks(spec.agent, &scratch, settings)?;
    let before = checks::snapshot(&spec.scenario.expect, &scratch.work);
    let proxy = Proxy::start(&settings.base_url).map_err(|e| e.to_string())?;
    let launch = launch(spec, settings, &scratch, &proxy.url())?;
    let job = Job {
        program: &launch.program,
        args: &launch.args,
        cwd: &scratch.work,
        env: &launch.env,
        timeout: settings.timeout,
    };
    let done = process::run(&job);
    let exchanges = proxy.exchanges();
    proxy.stop();
    let done = done?;
    outcome.wall_ms = done.elapsed.as_millis() as u64;
    record(outcome, &exchanges, spec.needles);
    judge_model(&exchanges, &settings.base_url)?;
    judge_agent(&done, settings.timeout)?;
    let seen = Observed {
        work: &scratch.work,
        before: &before,
        commands: &outcome.commands,
        reply: &done.stdout,
        env: &launch.env,
        timeout: settings.timeout,
    };
    outcome.failures = checks::failures(&spec.scenario.expect, &seen);
    outcome.passed = outcome.failures.is_empty();
    Ok(())
}

/// The agent's launch for this run, its home files written, the hooks'
/// state kept in the scratch directory.
fn launch(
    spec: &RunSpec,
    settings: &Settings,
    scratch: &Scratch,
    proxy_url: &str,
) -> Result<Launch, String> {
    let place = RunPlace {
        work: &scratch.work,
        home: &scratch.home,
        proxy_url,
        prompt: &spec.scenario.prompt,
        model: settings.model.as_deref(),
        extra_args: &settings.agent_args,
        pass_env: &settings.pass_env,
        cmd: settings.cmd.as_deref(),
    };
    let mut launch = spec.agent.launch(spec.program, &place);
    for (rel, text) in &launch.home_files {
        scratch.write_home(rel, text)?;
    }
    launch.env.push((
        "WAVE_RULES_STATE_DIR".into(),
        scratch.state.to_string_lossy().into_owned(),
    ));
    Ok(launch)
}

/// An agent that ran out of time or exited non-zero crashed: an error.
fn judge_agent(done: &Finished, timeout: Duration) -> Result<(), String> {
    if done.timed_out {
        return Err(format!(
            "the agent did not finish within {} s (killed)",
            timeout.as_secs()
        ));
    }
    if done.code != Some(0) {
        let tail: Vec<&str> = done
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        let code = done.code.map_or("by a signal".into(), |c| c.to_string());
        return Err(format!(
            "the agent exited {code}: {}",
            tail[tail.len().saturating_sub(3)..].join(" | ")
        ));
    }
    Ok(())
}

/// Tokens, commands, requests, and whether a rule under test reached the model.
fn record(outcome: &mut RunOutcome, exchanges: &[Exchange], needles: &[String]) {
    outcome.requests = exchanges.len();
    outcome.input_tokens = exchanges.iter().map(|e| e.usage.input).sum();
    outcome.output_tokens = exchanges.iter().map(|e| e.usage.output).sum();
    outcome.commands = exchanges
        .iter()
        .flat_map(|e| e.tool_calls.iter().filter_map(|t| t.shell_command()))
        .collect();
    outcome.rule_reached = exchanges.iter().any(|e| {
        let text = e.request_text();
        needles.iter().any(|n| text.contains(n.as_str()))
    });
}

/// A model that could not be reached or refused is an error naming it.
fn judge_model(exchanges: &[Exchange], base_url: &str) -> Result<(), String> {
    // Requests to the model itself (not a token count or a model list).
    let calls = || exchanges.iter().filter(|e| e.api != Api::Other);
    if let Some(e) = calls().find_map(|e| e.error.as_ref()) {
        return Err(format!("cannot reach the model at {base_url}: {e}"));
    }
    if let Some(e) = calls().find(|e| matches!(e.status, Some(401 | 403 | 404))) {
        return Err(format!(
            "the model at {base_url} refused {} {}: HTTP {}",
            e.method,
            e.path,
            e.status.unwrap_or(0)
        ));
    }
    Ok(())
}

/// The product's hooks in the scratch copy, as `hook install` writes them
/// (opencode: the plugin line a user adds); the same in both arms.
fn install_hooks(agent: EvalAgent, scratch: &Scratch, settings: &Settings) -> Result<(), String> {
    if agent == EvalAgent::Opencode {
        let plugins = scratch.work.join(".opencode/plugin");
        let has = std::fs::read_dir(&plugins)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("wave-memory-rules"))
            });
        return if has {
            Ok(())
        } else {
            scratch.write(
                ".opencode/plugin/wave-memory-rules.js",
                "export { WaveMemoryRules } from 'wave-memory-rules/opencode'\n",
            )
        };
    }
    let Some(hook_agent) = agent.hook_agent() else {
        return Ok(());
    };
    let global = GlobalArgs {
        workdir: Some(scratch.work.clone()),
        home: Some(scratch.home.clone()),
        ..GlobalArgs::default()
    };
    let options = InstallArgs {
        scope: ScopeArg::Project,
        command: settings.hook_command.clone(),
        edit_distance: None,
    };
    let out = match Env::new(&global, None, false) {
        Ok(env) => crate::hook::install::install(&env, hook_agent, &options),
        Err(out) => out,
    };
    if out.code != 0 {
        return Err(format!(
            "hook install --agent {} failed: {}",
            hook_agent.as_str(),
            out.stderr.trim()
        ));
    }
    Ok(())
}
