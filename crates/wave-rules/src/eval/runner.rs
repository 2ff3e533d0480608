//! One run of one scenario by one agent in one arm: a scratch copy, the
//! hooks installed as `hook install` writes them, the agent headless
//! against the recording proxy, then the checks.

use super::checks::{self, Observed};
use super::eval_agent::{EvalAgent, Launch, RunPlace};
use super::process::{self, Finished, Job};
use super::proxy::{Api, Exchange, Proxy};
use super::results::{Arm, RunOutcome};
use super::scenario::{Check, Scenario};
use super::scratch::Scratch;
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
    /// The judge of `judge:` checks.
    pub judge: Option<super::judge::Judge>,
}

/// One run to do.
pub struct RunSpec<'a> {
    pub scenario: &'a Scenario,
    pub agent: EvalAgent,
    pub program: &'a Path,
    pub arm: Arm,
    pub index: u32,
    /// The files of the rules under test (left out of the second arm).
    pub removed: &'a [PathBuf],
    /// Rule files written in the second arm (`--against`: their text at the ref).
    pub rewritten: &'a [(String, String)],
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
        scratch: None,
        kept: None,
        judge_input_tokens: 0,
        judge_output_tokens: 0,
    };
    if let Err(e) = attempt(spec, settings, &mut outcome) {
        outcome.error = Some(e);
        outcome.passed = false;
    }
    outcome
}

fn attempt(spec: &RunSpec, settings: &Settings, outcome: &mut RunOutcome) -> Result<(), String> {
    let scratch = start(spec, settings, settings.keep)?;
    if settings.keep {
        outcome.scratch = Some(scratch.root.to_string_lossy().into_owned());
    }
    scratch.install_hooks(spec.agent, settings.hook_command.as_deref())?;
    scratch.commit_start()?;
    let before = checks::snapshot(spec.scenario.all_checks(), &scratch.work);
    let proxy = Proxy::start(&settings.base_url).map_err(|e| e.to_string())?;
    let conversation = Conversation {
        spec,
        settings,
        scratch: &scratch,
        proxy: &proxy,
        before: &before,
    };
    let last = conversation.converse(outcome);
    proxy.stop();
    let (done, launch) = last?;
    outcome.kept = scratch.keep(&done.stdout);
    let seen = Observed {
        work: &scratch.work,
        before: &before,
        commands: &outcome.commands,
        reply: &done.stdout,
        env: &launch.env,
        timeout: settings.timeout,
    };
    outcome
        .failures
        .extend(checks::failures(&spec.scenario.expect, &seen));
    let diff = outcome.kept.as_ref().map(|k| k.diff.clone());
    let diff = match diff {
        Some(d) => d,
        None => scratch.diff()?,
    };
    let turns = spec.scenario.turns.len();
    let asked = Asked {
        checks: &spec.scenario.expect,
        prompt: &spec.scenario.prompts_through(turns),
        reply: &done.stdout,
        diff: &diff,
    };
    judge_checks(settings, &asked, outcome, "")?;
    outcome.passed = outcome.failures.is_empty();
    Ok(())
}

/// One run's conversation: its scratch copy, the proxy its agent talks
/// through, and the files `unchanged` checks compare against.
struct Conversation<'a> {
    spec: &'a RunSpec<'a>,
    settings: &'a Settings,
    scratch: &'a Scratch,
    proxy: &'a Proxy,
    before: &'a std::collections::BTreeMap<String, Option<Vec<u8>>>,
}

impl Conversation<'_> {
    /// Each turn in order: the agent once per prompt (continuing its
    /// conversation after the first), what reached the model recorded,
    /// then the checks of that turn (`after_turn`), their failures named
    /// by turn. Returns the last turn's process and launch; an error (the
    /// agent's, the model's) ends the conversation.
    fn converse(&self, outcome: &mut RunOutcome) -> Result<(Finished, Launch), String> {
        let (spec, settings) = (self.spec, self.settings);
        let turns = spec.scenario.turns.len();
        let mut last = None;
        for (i, prompt) in spec.scenario.turns.iter().enumerate() {
            let turn = i + 1;
            let launch = launch(
                spec,
                settings,
                self.scratch,
                &self.proxy.url(),
                (turn, prompt),
            )?;
            let job = Job {
                program: &launch.program,
                args: &launch.args,
                cwd: &self.scratch.work,
                env: &launch.env,
                timeout: settings.timeout,
            };
            let done = process::run(&job)?;
            outcome.wall_ms += done.elapsed.as_millis() as u64;
            let exchanges = self.proxy.exchanges();
            record(outcome, &exchanges, spec.needles);
            judge_model(&exchanges, &settings.base_url)?;
            judge_agent(&done, settings.timeout).map_err(|e| {
                if turns > 1 {
                    format!("turn {turn}: {e}")
                } else {
                    e
                }
            })?;
            if let Some(checks) = spec.scenario.turn_expect.get(&turn) {
                self.check_turn(turn, checks, &done, &launch, outcome)?;
            }
            last = Some((done, launch));
        }
        last.ok_or_else(|| "the scenario has no turn".to_string())
    }

    /// The checks after turn `turn` (not the last): the files as they are
    /// then, the commands called so far, that turn's answer.
    fn check_turn(
        &self,
        turn: usize,
        checks: &[Check],
        done: &Finished,
        launch: &Launch,
        outcome: &mut RunOutcome,
    ) -> Result<(), String> {
        let seen = Observed {
            work: &self.scratch.work,
            before: self.before,
            commands: &outcome.commands,
            reply: &done.stdout,
            env: &launch.env,
            timeout: self.settings.timeout,
        };
        let failed = checks::failures(checks, &seen);
        outcome.failures.extend(
            failed
                .into_iter()
                .map(|f| format!("after turn {turn}: {f}")),
        );
        if !checks.iter().any(|c| matches!(c, Check::Judge(_))) {
            return Ok(());
        }
        let asked = Asked {
            checks,
            prompt: &self.spec.scenario.prompts_through(turn),
            reply: &done.stdout,
            diff: &self.scratch.diff()?,
        };
        judge_checks(
            self.settings,
            &asked,
            outcome,
            &format!("after turn {turn}: "),
        )
    }
}

/// The scratch copy of a run's arm: the project, the second arm's rule
/// files left out or rewritten, the scenario's files written.
pub fn start(spec: &RunSpec, settings: &Settings, keep: bool) -> Result<Scratch, String> {
    let (removed, rewritten) = if spec.arm == Arm::Without {
        (spec.removed, spec.rewritten)
    } else {
        (&[][..], &[][..])
    };
    let files: Vec<(String, String)> = rewritten
        .iter()
        .chain(&spec.scenario.files)
        .cloned()
        .collect();
    Scratch::create(&settings.project, removed, &files, keep)
}

/// What a judge is shown of a run at the time its checks run.
pub struct Asked<'a> {
    pub checks: &'a [Check],
    pub prompt: &'a str,
    pub reply: &'a str,
    pub diff: &'a str,
}

/// The `judge:` checks of `asked`, graded blind, a failure's text after
/// `label`; a judge that cannot answer is an error.
pub fn judge_checks(
    settings: &Settings,
    asked: &Asked,
    outcome: &mut RunOutcome,
    label: &str,
) -> Result<(), String> {
    for check in asked.checks {
        let Check::Judge(rubric) = check else {
            continue;
        };
        let judge = settings
            .judge
            .as_ref()
            .ok_or("a judge: check needs --judge-base-url and --judge-model")?;
        let seen = super::judge::Seen {
            rubric,
            prompt: asked.prompt,
            reply: asked.reply,
            commands: &outcome.commands,
            diff: asked.diff,
        };
        let verdict = judge.grade(&seen)?;
        outcome.judge_input_tokens += verdict.input_tokens;
        outcome.judge_output_tokens += verdict.output_tokens;
        if !verdict.pass {
            outcome.failures.push(format!(
                "{label}the judge: '{rubric}' does not hold: {}",
                verdict.reason
            ));
        }
    }
    Ok(())
}

/// The agent's launch for one turn of this run, its home files written, the hooks'
/// state kept in the scratch directory.
fn launch(
    spec: &RunSpec,
    settings: &Settings,
    scratch: &Scratch,
    proxy_url: &str,
    (turn, prompt): (usize, &str),
) -> Result<Launch, String> {
    let conversation = scratch
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let place = RunPlace {
        work: &scratch.work,
        home: &scratch.home,
        proxy_url,
        prompt,
        turn,
        turns: spec.scenario.turns.len(),
        conversation: &conversation,
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
    // The hooks of a run emit no telemetry (a policy that switches it on
    // must not flood it with eval runs): `eval` sends its results itself.
    launch.env.push((
        memory_rules::delivery::telemetry::settings::EVAL_RUN.into(),
        "1".into(),
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
        let code = done.code.map_or("by a signal".into(), |c| c.to_string());
        return Err(format!(
            "the agent exited {code}: {}",
            telling_lines(&done.stderr)
        ));
    }
    Ok(())
}

/// What an agent's error output says went wrong: the first line that
/// reads as the error (Node's `Error: Cannot find module ...`, a shell's
/// `not found`), then the last lines, at most three in all.
pub fn telling_lines(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let telling = |l: &&str| {
        let low = l.to_ascii_lowercase();
        [
            "error",
            "cannot",
            "not found",
            "no such",
            "denied",
            "failed",
            "refused",
        ]
        .iter()
        .any(|w| low.contains(w))
            && !l.starts_with("at ")
    };
    let mut out: Vec<&str> = lines.iter().copied().find(telling).into_iter().collect();
    for l in &lines[lines.len().saturating_sub(3)..] {
        if out.len() < 3 && !out.contains(l) {
            out.push(l);
        }
    }
    out.join(" | ")
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
