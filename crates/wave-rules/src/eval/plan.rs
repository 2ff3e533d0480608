//! An eval's plan: each scenario with what its second arm changes (the
//! rules under test left out, or put back at their text at a git ref, or
//! nothing for `--aa`), and each (scenario, agent) cell with its key, its
//! stored runs and the runs it still needs.

use super::eval_agent::EvalAgent;
use super::options::Shard;
use super::results::{self, Arm, Compare, RunOutcome};
use super::scenario::{Problem, Scenario};
use std::path::{Path, PathBuf};

/// A scenario ready to run.
pub struct Planned {
    pub scenario: Scenario,
    /// Rule files left out of the second arm.
    pub removed: Vec<PathBuf>,
    /// Rule files written in the second arm: (path in the project, text).
    pub rewritten: Vec<(String, String)>,
    /// A line of each rule under test, to look for in what reached the model.
    pub needles: Vec<String>,
    /// The text of the rules it depends on, in both arms (it keys the stored results).
    pub rules_text: String,
    /// The ids of the rules under test (none: the scenario tests every rule).
    pub rule_ids: Vec<String>,
    /// `--against`: each rule under test's file, and its text's hash now and at the ref.
    pub hashes: Vec<RuleHashes>,
}

/// A rule's text now and at `--against`'s ref, as hashes (null: absent).
#[derive(Debug, Clone, serde::Serialize)]
pub struct RuleHashes {
    pub id: String,
    pub file: String,
    pub current: Option<String>,
    pub base: Option<String>,
}

/// One (scenario, agent) pair and its runs.
pub struct Cell {
    pub planned: usize,
    pub agent: EvalAgent,
    pub program: PathBuf,
    pub key: String,
    /// The key without the scenario's checks (`--regrade` matches it).
    pub run_key: String,
    pub file: PathBuf,
    pub runs: Vec<RunOutcome>,
    pub todo: Vec<(Arm, u32)>,
}

/// The rules under test of a scenario and what the second arm does with
/// them; an unknown rule, or one that shares its file with other rules,
/// is a problem at the scenario's line.
pub fn plan(
    scenario: Scenario,
    loaded: &memory_rules::Loaded,
    compare: &Compare,
    project: &Path,
) -> Result<Planned, Problem> {
    let problem = |message: String| Problem {
        file: scenario.file.clone(),
        line: scenario.line,
        message,
    };
    let wanted = wanted(&scenario, loaded.rules.rules()).map_err(problem)?;
    let mut p = Planned {
        removed: Vec::new(),
        rewritten: Vec::new(),
        needles: Vec::new(),
        rules_text: String::new(),
        rule_ids: Vec::new(),
        hashes: Vec::new(),
        scenario,
    };
    for rule in &wanted {
        p.needles.extend(needle(&rule.content));
        p.rules_text.push_str(&rule.content);
        match compare {
            Compare::Ablation => p.removed.push(rule.file_path.clone()),
            Compare::Aa => {}
            Compare::Against(at) => against(&mut p, rule, project, at),
        }
    }
    p.removed.dedup();
    if p.scenario.rules.is_some() {
        p.rule_ids = wanted.iter().map(|r| r.id.clone()).collect();
    }
    Ok(p)
}

/// The rules a scenario tests (every rule when it names none).
fn wanted<'r>(
    scenario: &Scenario,
    rules: &'r [memory_rules::Rule],
) -> Result<Vec<&'r memory_rules::Rule>, String> {
    let Some(names) = &scenario.rules else {
        return Ok(rules.iter().collect());
    };
    let mut out = Vec::new();
    for n in names {
        let rule = find_rule(rules, n).ok_or_else(|| unknown_rule(n, rules))?;
        if rules
            .iter()
            .filter(|r| r.file_path == rule.file_path)
            .count()
            > 1
        {
            return Err(format!("rule '{}' shares its file {} with other rules: leaving it out would leave them out too", rule.id, rule.file_path.display()));
        }
        out.push(rule);
    }
    Ok(out)
}

/// `--against REF`: the rule's file at the ref goes in the second arm
/// (absent there: left out); its text there keys the results too.
fn against(p: &mut Planned, rule: &memory_rules::Rule, project: &Path, at: &str) {
    let Ok(rel) = rule.file_path.strip_prefix(project) else {
        return; // Not in the project's repository: the same in both arms.
    };
    let rel = rel.to_string_lossy().replace('\\', "/");
    let current = std::fs::read_to_string(&rule.file_path).ok();
    let base = super::against::text_at(project, at, &rel);
    if p.hashes.iter().any(|h| h.file == rel) {
        return;
    }
    match &base {
        Some(text) => p.rewritten.push((rel.clone(), text.clone())),
        None => p.removed.push(rule.file_path.clone()),
    }
    p.rules_text
        .push_str(base.as_deref().unwrap_or("\u{0}absent"));
    p.hashes.push(RuleHashes {
        id: rule.id.clone(),
        file: rel,
        current: current.as_deref().map(|t| results::key(&[t])),
        base: base.as_deref().map(|t| results::key(&[t])),
    });
}

impl Planned {
    /// Whether the scenario has a `judge:` check.
    pub fn judged(&self) -> bool {
        self.scenario
            .all_checks()
            .any(|c| matches!(c, super::scenario::Check::Judge(_)))
    }

    /// `--against`: whether a rule under test differs from its text at the ref.
    pub fn changed(&self) -> bool {
        self.hashes.iter().any(|h| h.current != h.base)
    }
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

/// What keys a cell's stored results besides the scenario and the rules:
/// everything that changes an answer.
pub struct KeyParts<'a> {
    pub agent: EvalAgent,
    pub model: Option<&'a str>,
    pub cmd: Option<&'a str>,
    pub base_url: &'a str,
    pub timeout_secs: u64,
    pub compare: &'a Compare,
    /// The judge (API, URL, model, runs): keys the scenarios with `judge:` checks.
    pub judge: &'a str,
}

/// A cell's keys, file, runs (stored or, with `regrade`, stored under the
/// run key whatever their checks) and the runs still to do.
pub struct CellPlan {
    pub key: String,
    pub run_key: String,
    pub file: PathBuf,
    pub runs: Vec<RunOutcome>,
    pub todo: Vec<(Arm, u32)>,
}

/// How a cell's stored runs are taken.
#[derive(Clone, Copy)]
pub struct Reuse {
    pub runs: u32,
    pub fresh: bool,
    pub regrade: bool,
}

/// A cell: its keys, its stored runs (unless `fresh`), and the runs of
/// `1..=runs` in each arm still to do that are this shard's (`first` is
/// the cell's place in the eval's one order of work).
pub fn cell(
    project: &Path,
    p: &Planned,
    parts: &KeyParts,
    reuse: Reuse,
    shard: Option<(Shard, u64)>,
) -> CellPlan {
    let key = cell_key(p, parts, &p.scenario.source);
    // The run key: what the agent saw and did, not what was checked.
    // (One turn keys as a `prompt:` always has: its stored runs stay found.)
    let prompts = match p.scenario.turns.as_slice() {
        [one] => format!("{one:?}"),
        many => format!("{many:?}"),
    };
    let run_source = format!(
        "{prompts}\u{0}{:?}\u{0}{:?}",
        p.scenario.files, p.scenario.rules
    );
    let run_key = cell_key(p, parts, &run_source);
    let file = results::file(project, &p.scenario.name, parts.agent.as_str(), parts.model);
    let runs = reuse.runs;
    let stored = if reuse.regrade {
        results::load_for_regrade(&file, &run_key)
    } else if reuse.fresh {
        None
    } else {
        results::load(&file, &key)
    };
    let mine = |arm: Arm, index: u32| {
        let position = u64::from(arm == Arm::Without) * u64::from(runs) + u64::from(index - 1);
        shard.is_none_or(|(s, first)| s.takes(first + position))
    };
    let mut done: Vec<RunOutcome> = stored
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.error.is_none() && (1..=runs).contains(&r.index) && mine(r.arm, r.index))
        .collect();
    let mut todo = Vec::new();
    for arm in [Arm::With, Arm::Without] {
        for index in (1..=runs).filter(|_| !reuse.regrade) {
            if mine(arm, index) && !done.iter().any(|r| r.arm == arm && r.index == index) {
                todo.push((arm, index));
            }
        }
    }
    done.sort_by_key(|r| (r.arm == Arm::Without, r.index));
    CellPlan {
        key,
        run_key,
        file,
        runs: done,
        todo,
    }
}

/// The key of a cell's results with `source` for the scenario.
fn cell_key(p: &Planned, parts: &KeyParts, source: &str) -> String {
    let compare = match parts.compare {
        Compare::Ablation => "ablation",
        Compare::Aa => "aa",
        Compare::Against(_) => "against",
    };
    let timeout = parts.timeout_secs.to_string();
    let judge = if p.judged() { parts.judge } else { "" };
    results::key(&[
        source,
        &p.rules_text,
        parts.agent.as_str(),
        parts.model.unwrap_or(""),
        parts.cmd.unwrap_or(""),
        parts.base_url,
        &timeout,
        compare,
        judge,
        env!("CARGO_PKG_VERSION"),
    ])
}
