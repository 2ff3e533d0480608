//! `eval --merge DIR...`: the union of the stored results of several
//! shards (each DIR a shard's `.wave/evals/results`), reported and gated
//! as one unsharded eval would be. Runs nothing. Results of one scenario
//! and agent under different keys (another scenario text, rule text,
//! model, endpoint or version) are refused, naming both.

use super::eval_agent::EvalAgent;
use super::results::{Arm, Stored};
use std::path::{Path, PathBuf};

/// The merged results, one entry per (scenario, agent, model).
pub struct Merged {
    pub stored: Vec<Stored>,
    pub agents: Vec<EvalAgent>,
}

/// Reads every DIR's results and unions them; an error names the file or
/// the two places that disagree.
pub fn merge(dirs: &[PathBuf]) -> Result<Merged, String> {
    let mut out: Vec<(Stored, PathBuf)> = Vec::new();
    for dir in dirs {
        for file in files(dir)? {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("--merge: cannot read {}: {e}", file.display()))?;
            let s: Stored = serde_json::from_str(&text).map_err(|e| {
                format!(
                    "--merge: {}:{}: not eval results: {e}",
                    file.display(),
                    e.line()
                )
            })?;
            add(&mut out, s, file)?;
        }
    }
    if out.is_empty() {
        return Err(format!(
            "--merge: no results in {} (a shard's results are its .wave/evals/results/*.json)",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut stored: Vec<Stored> = out.into_iter().map(|(s, _)| s).collect();
    stored.sort_by(|a, b| (&a.agent, &a.scenario).cmp(&(&b.agent, &b.scenario)));
    let agents = stored
        .iter()
        .map(|s| {
            <EvalAgent as clap::ValueEnum>::from_str(&s.agent, true).map_err(|_| {
                format!(
                    "--merge: unknown agent '{}' in the results of '{}'",
                    s.agent, s.scenario
                )
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Merged { stored, agents })
}

fn files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("--merge: cannot read the directory {}: {e}", dir.display()))?;
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .take(super::MAX_SCENARIO_FILES * 8)
        .collect();
    out.sort();
    Ok(out)
}

/// Adds one shard's stored runs to the union (a run already there, same
/// arm and number, is kept once).
fn add(out: &mut Vec<(Stored, PathBuf)>, s: Stored, file: PathBuf) -> Result<(), String> {
    let same = |o: &Stored| o.scenario == s.scenario && o.agent == s.agent && o.model == s.model;
    let Some((have, from)) = out.iter_mut().find(|(o, _)| same(o)) else {
        out.push((s, file));
        return Ok(());
    };
    if have.key != s.key {
        return Err(format!(
            "--merge: the results of scenario '{}' by {} in {} and {} were measured under different scenario texts, rules, settings or versions of wave-rules (keys {} and {}): merge the shards of one eval only",
            s.scenario,
            s.agent,
            from.display(),
            file.display(),
            &have.key[..12.min(have.key.len())],
            &s.key[..12.min(s.key.len())]
        ));
    }
    for run in s.runs {
        if !have
            .runs
            .iter()
            .any(|r| r.arm == run.arm && r.index == run.index)
        {
            have.runs.push(run);
        }
    }
    have.runs.sort_by_key(|r| (r.arm == Arm::Without, r.index));
    have.measured = have.measured.max(s.measured);
    Ok(())
}
