//! `eval`'s options for comparisons, gates, budgets and CI (flattened into
//! `EvalArgs`): `--against`, `--aa`, `--max-suite-p`, `--max-tokens`,
//! `--max-cost`/`--prices`, `--shard`, `--merge`, `--junit`.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug, Default, Clone)]
pub struct CiArgs {
    /// Compare each rule under test with its text at this git ref (arms
    /// `current` and `base`; absent at REF: no rule)
    #[arg(long, value_name = "REF", conflicts_with = "aa")]
    pub against: Option<String>,
    /// Both arms with the same rules, to check the instrument: reports
    /// whether each interval holds 0 (exit 1 when one does not)
    #[arg(long)]
    pub aa: bool,
    /// Exit 1 unless each agent's suite of scenarios improves with the
    /// sign test's p at most P (fewer than 6 scenarios: never under 0.05)
    #[arg(long, value_name = "P")]
    pub max_suite_p: Option<f64>,
    /// Start no run once this many tokens (input and output, this eval's
    /// runs) are spent; exit 3
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Start no run once this many US dollars are spent, priced by --prices; exit 3
    #[arg(long, value_name = "USD", requires = "prices")]
    pub max_cost: Option<f64>,
    /// The price table for --max-cost: JSON, {"MODEL": {"input": USD, "output": USD}} per million tokens
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Run only shard K of N of the (scenario, agent, arm, run) work (1-based)
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Print the union of the stored results in these directories (each a
    /// shard's .wave/evals/results); runs nothing
    #[arg(long, value_name = "DIR", num_args = 1..)]
    pub merge: Vec<PathBuf>,
    /// Run only the checks again on the stored runs (after a scenario's
    /// checks changed); no call to the agent's model
    #[arg(long, conflicts_with_all = ["fresh", "shard", "merge"])]
    pub regrade: bool,
    /// Write JUnit XML to FILE: one testcase per scenario and agent
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// The judge model's base URL, for `judge:` checks (best of another
    /// model family than the agent's)
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
    /// The judge model
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// The judge's API: openai (chat completions) or anthropic (Messages)
    #[arg(long, value_enum, default_value_t, value_name = "API")]
    pub judge_api: JudgeApi,
    /// Ask the judge K times per check and take the majority (odd, 1 to 9)
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub judge_runs: u32,
}

/// The judge's API (`--judge-api`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum JudgeApi {
    /// OpenAI chat completions (`POST {base}/chat/completions`)
    #[default]
    Openai,
    /// Anthropic Messages (`POST {base}/v1/messages`)
    Anthropic,
}

/// `--shard K/N`, checked: 1 <= K <= N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl Shard {
    pub fn parse(spec: &str) -> Result<Shard, String> {
        let bad =
            || format!("--shard '{spec}': give K/N with 1 <= K <= N (shard 2 of 4: --shard 2/4)");
        let (k, n) = spec.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Whether the work item at `position` (in the eval's one order) is this shard's.
    pub fn takes(&self, position: u64) -> bool {
        position % u64::from(self.n) == u64::from(self.k - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::Shard;

    #[test]
    fn a_shard_spec_is_k_of_n_with_k_from_1_to_n() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { k: 2, n: 4 }));
        for bad in ["3/2", "0/4", "4", "a/b", "1/0", "-1/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_shards_of_n_take_every_item_once() {
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { k, n: 3 }).collect();
        for p in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.takes(p)).count(), 1);
        }
    }
}
