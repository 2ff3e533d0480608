//! `--regrade`: a scenario's checks run again on its stored runs, with no
//! call to the agent's model. Each run keeps what its checks need (the
//! reply, the files it changed as they ended, the diff of its scratch copy,
//! whose starting state is committed in the copy's own repository): a
//! re-grade rebuilds the copy's start, puts the changed files over it, and
//! runs the checks (a `judge:` check asks the judge again). A `run:` check
//! needs the whole copy: only runs kept with `--keep` have it.

use super::checks::{self, Observed};
use super::results::{Kept, RunOutcome};
use super::runner::{self, RunSpec, Settings};
use super::scenario::Check;
use std::path::{Path, PathBuf};

/// The run graded again by the scenario's checks as they are now; an
/// error (in the outcome) when it kept nothing or a `run:` check needs a
/// copy that was not kept.
pub fn regrade_one(spec: &RunSpec, settings: &Settings, run: &RunOutcome) -> RunOutcome {
    let mut out = run.clone();
    out.failures.clear();
    out.judge_input_tokens = 0;
    out.judge_output_tokens = 0;
    if let Err(e) = grade(spec, settings, run, &mut out) {
        out.error = Some(e);
    }
    out.passed = out.error.is_none() && out.failures.is_empty();
    out
}

fn grade(
    spec: &RunSpec,
    settings: &Settings,
    run: &RunOutcome,
    out: &mut RunOutcome,
) -> Result<(), String> {
    let kept = run.kept.as_ref().ok_or_else(|| {
        format!(
            "run #{} kept nothing to re-grade (measured before --regrade, or over MAX_REGRADE_KEPT_BYTES): run it again with --fresh",
            run.index
        )
    })?;
    if let Some(turn) = spec.scenario.turn_expect.keys().next() {
        return Err(format!("run #{} cannot be re-graded: its scenario checks after turn {turn} (after_turn), and a run keeps only how it ended (run again with --fresh)", run.index));
    }
    let needs_copy = spec
        .scenario
        .expect
        .iter()
        .any(|c| matches!(c, Check::Run(_)));
    let kept_copy = run
        .scratch
        .as_ref()
        .map(|root| PathBuf::from(root).join("work"))
        .filter(|w| w.is_dir());
    if needs_copy && kept_copy.is_none() {
        return Err(format!("run #{} cannot be re-graded: a run: check needs the whole scratch copy, kept only with --keep (run again with --fresh)", run.index));
    }
    let fresh = runner::start(spec, settings, false)?;
    let before = checks::snapshot(&spec.scenario.expect, &fresh.work);
    let work = match &kept_copy {
        Some(w) => w.clone(),
        None => {
            put_over(&fresh.work, kept)?;
            fresh.work.clone()
        }
    };
    let env = vec![
        (
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        ),
        (
            "HOME".to_string(),
            fresh.home.to_string_lossy().into_owned(),
        ),
    ];
    let seen = Observed {
        work: &work,
        before: &before,
        commands: &run.commands,
        reply: &kept.reply,
        env: &env,
        timeout: settings.timeout,
    };
    out.failures = checks::failures(&spec.scenario.expect, &seen);
    let asked = runner::Asked {
        checks: &spec.scenario.expect,
        prompt: &spec.scenario.prompts_through(spec.scenario.turns.len()),
        reply: &kept.reply,
        diff: &kept.diff,
    };
    runner::judge_checks(settings, &asked, out, "")
}

/// The files a run changed, as they ended, over a fresh start of its copy.
fn put_over(work: &Path, kept: &Kept) -> Result<(), String> {
    for (rel, text) in &kept.files {
        let path = work.join(rel);
        match text {
            Some(t) => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                }
                std::fs::write(&path, t)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    Ok(())
}
