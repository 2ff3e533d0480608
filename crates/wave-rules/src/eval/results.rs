//! What an eval measured: the runs of one scenario by one agent, stored in
//! `.wave/evals/results/` under a key made of what they depend on (the
//! scenario as written, the rules' text, the agent, the model, this
//! program's version), so a re-run only runs what changed; and the numbers
//! of each arm.

use super::stats::{Rate, Uplift};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Where results are kept, under the project.
pub const RESULTS_DIR: &str = ".wave/evals/results";

/// With the rules under test, or without them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arm {
    With,
    Without,
}

/// What the two arms of an eval compare: a rule with and without it
/// (ablation), its text now and at a git ref (`--against`), or the same
/// rules twice (`--aa`, a check of the instrument).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compare {
    Ablation,
    Against(String),
    Aa,
}

impl Compare {
    /// The names of the two arms in the table and the JSON.
    pub fn labels(&self) -> [&'static str; 2] {
        match self {
            Compare::Ablation => ["with", "without"],
            Compare::Against(_) => ["current", "base"],
            Compare::Aa => ["a", "b"],
        }
    }

    /// The name of `arm` in this comparison.
    pub fn label(&self, arm: Arm) -> &'static str {
        self.labels()[usize::from(arm == Arm::Without)]
    }
}

/// How one run went (`index` counts from 1, in the table as in the JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOutcome {
    pub arm: Arm,
    pub index: u32,
    pub passed: bool,
    /// The run could not be judged (the agent crashed or timed out, the
    /// model could not be reached); it counts apart from failed runs.
    pub error: Option<String>,
    /// Why each failed check failed.
    pub failures: Vec<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub wall_ms: u64,
    /// Whether a rule under test reached the model in this run.
    pub rule_reached: bool,
    /// The model's requests in this run.
    pub requests: usize,
    /// The shell commands the model called.
    pub commands: Vec<String>,
    /// The judge's tokens (`judge:` checks), counted apart from the agent's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub judge_input_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub judge_output_tokens: u64,
    /// What `--regrade` needs of the run (not in the report's JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<Kept>,
    /// Where the run's scratch copy was kept (`--keep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch: Option<String>,
}

/// What a run kept for its checks to run again without the model: the
/// agent's reply, each file it changed as it ended (`None`: deleted), and
/// the diff of the scratch copy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    pub reply: String,
    pub files: std::collections::BTreeMap<String, Option<String>>,
    pub diff: String,
}

/// One scenario's runs by one agent, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    pub key: String,
    /// The key without the scenario's checks: what `--regrade` matches.
    #[serde(default)]
    pub run_key: String,
    pub scenario: String,
    pub agent: String,
    pub model: Option<String>,
    /// The ids of the rules under test.
    #[serde(default)]
    pub rules: Vec<String>,
    /// When the last run was added (seconds since 1970).
    #[serde(default)]
    pub measured: u64,
    pub runs: Vec<RunOutcome>,
    /// The model's address the runs went to.
    #[serde(default)]
    pub base_url: Option<String>,
    /// `--against`'s ref, when the arms were `current` and `base`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against: Option<String>,
    /// `--aa`: both arms had the same rules.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aa: bool,
    /// Whether the rules under test could be looked for in what reached the model.
    #[serde(default = "yes")]
    pub tested: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn yes() -> bool {
    true
}

impl Stored {
    /// What the two arms compared.
    pub fn compare(&self) -> Compare {
        match (&self.against, self.aa) {
            (Some(at), _) => Compare::Against(at.clone()),
            (None, true) => Compare::Aa,
            (None, false) => Compare::Ablation,
        }
    }
}

/// A rule's last measured effect, for `report`.
#[derive(Debug, Clone, Serialize)]
pub struct Effect {
    pub scenario: String,
    pub agent: String,
    pub model: Option<String>,
    pub measured: u64,
    pub uplift: f64,
    pub interval: [f64; 2],
    /// Passed and judged runs with the rule, and without it.
    pub with: [u32; 2],
    pub without: [u32; 2],
}

/// Each rule's last measured effect among the stored results (a rule
/// under test in several scenarios: the newest).
pub fn effects(project: &Path) -> std::collections::HashMap<String, Effect> {
    let mut out: std::collections::HashMap<String, Effect> = std::collections::HashMap::new();
    let files = std::fs::read_dir(project.join(RESULTS_DIR))
        .into_iter()
        .flatten()
        .flatten()
        .take(super::MAX_SCENARIO_FILES * 8);
    for entry in files {
        let Some(stored) = std::fs::read_to_string(entry.path())
            .ok()
            .and_then(|t| serde_json::from_str::<Stored>(&t).ok())
        else {
            continue;
        };
        if stored.compare() != Compare::Ablation {
            continue; // Not the rule against its absence.
        }
        let (with, without) = (
            ArmSummary::of(&stored.runs, Arm::With),
            ArmSummary::of(&stored.runs, Arm::Without),
        );
        let u = uplift(&with, &without);
        let effect = Effect {
            scenario: stored.scenario.clone(),
            agent: stored.agent.clone(),
            model: stored.model.clone(),
            measured: stored.measured,
            uplift: round(u.value),
            interval: [round(u.low), round(u.high)],
            with: [with.rate.passed, with.rate.runs],
            without: [without.rate.passed, without.rate.runs],
        };
        for id in &stored.rules {
            if out.get(id).is_none_or(|e| e.measured < effect.measured) {
                out.insert(id.clone(), effect.clone());
            }
        }
    }
    out
}

/// The key of a scenario's results: every input they depend on.
pub fn key(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The file of a scenario's results by an agent and model.
pub fn file(project: &Path, scenario: &str, agent: &str, model: Option<&str>) -> PathBuf {
    let clean = |s: &str| {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    project.join(RESULTS_DIR).join(format!(
        "{}.{}.{}.json",
        clean(scenario),
        clean(agent),
        clean(model.unwrap_or("default"))
    ))
}

/// The stored runs under `key`, when the file holds them (any other key,
/// or a file that cannot be read, is no result).
pub fn load(file: &Path, key: &str) -> Option<Vec<RunOutcome>> {
    let text = std::fs::read_to_string(file).ok()?;
    let stored: Stored = serde_json::from_str(&text).ok()?;
    (stored.key == key).then_some(stored.runs)
}

/// The stored runs measured under `run_key` (whatever their checks were),
/// for `--regrade`.
pub fn load_for_regrade(file: &Path, run_key: &str) -> Option<Vec<RunOutcome>> {
    let text = std::fs::read_to_string(file).ok()?;
    let stored: Stored = serde_json::from_str(&text).ok()?;
    (!stored.run_key.is_empty() && stored.run_key == run_key).then_some(stored.runs)
}

/// Writes `stored` atomically (a temp file renamed over the old one).
pub fn save(file: &Path, stored: &Stored) -> Result<(), String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = file.with_extension(format!("json.{}.tmp", std::process::id()));
    let text = serde_json::to_string_pretty(stored).map_err(|e| e.to_string())?;
    std::fs::write(&tmp, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, file).map_err(|e| format!("cannot write {}: {e}", file.display()))
}

/// One arm's numbers: its runs, errors apart, the pass rate over the runs
/// that could be judged, tokens and wall time per run.
#[derive(Debug, Clone, Copy)]
pub struct ArmSummary {
    pub runs: u32,
    pub errors: u32,
    pub rate: Rate,
    pub input_tokens: f64,
    pub output_tokens: f64,
    pub wall_ms: f64,
    /// Runs where a rule under test reached the model.
    pub reached: u32,
}

impl ArmSummary {
    pub fn of(runs: &[RunOutcome], arm: Arm) -> ArmSummary {
        let mine: Vec<&RunOutcome> = runs.iter().filter(|r| r.arm == arm).collect();
        let judged: Vec<&&RunOutcome> = mine.iter().filter(|r| r.error.is_none()).collect();
        let passed = judged.iter().filter(|r| r.passed).count() as u32;
        let mean = |f: &dyn Fn(&RunOutcome) -> u64| {
            if mine.is_empty() {
                0.0
            } else {
                mine.iter().map(|r| f(r) as f64).sum::<f64>() / mine.len() as f64
            }
        };
        ArmSummary {
            runs: mine.len() as u32,
            errors: (mine.len() - judged.len()) as u32,
            rate: Rate::new(passed, judged.len() as u32),
            input_tokens: mean(&|r| r.input_tokens),
            output_tokens: mean(&|r| r.output_tokens),
            wall_ms: mean(&|r| r.wall_ms),
            reached: mine.iter().filter(|r| r.rule_reached).count() as u32,
        }
    }

    /// Whether a run of the arm could be judged (else it has no rate).
    pub fn judged(&self) -> bool {
        self.rate.runs > 0
    }

    /// The arm as JSON (`runs`, `passed`, `rate`, `interval`...); with no
    /// run judged, `rate` and `interval` are null.
    pub fn json(&self) -> serde_json::Value {
        let judged = self.judged();
        serde_json::json!({
            "runs": self.runs,
            "judged": self.rate.runs,
            "passed": self.rate.passed,
            "errors": self.errors,
            "rate": judged.then(|| round(self.rate.rate)),
            "interval": judged.then(|| [round(self.rate.low), round(self.rate.high)]),
            "ruleReached": self.reached,
            "wallMs": self.wall_ms.round(),
        })
    }
}

/// The uplift of an eval: with minus without.
pub fn uplift(with: &ArmSummary, without: &ArmSummary) -> Uplift {
    Uplift::new(&with.rate, &without.rate)
}

/// Four decimals, for JSON.
pub fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
