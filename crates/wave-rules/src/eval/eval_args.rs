//! `wave-rules eval`'s options: beside the agents they name
//! ([`EvalAgent`]), which are eval's.

use super::eval_agent::EvalAgent;
use clap::Args;
use std::path::PathBuf;

/// `wave-rules eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The scenarios to run, by name [default: all]
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// The agent to run (repeatable): claude, codex, gemini, copilot,
    /// opencode, or command (with --cmd)
    #[arg(long, value_enum, value_name = "AGENT", required = true)]
    pub agent: Vec<EvalAgent>,
    /// The model's base URL, as you would give it to the agent (e.g.
    /// https://api.anthropic.com for claude, http://127.0.0.1:11434/v1 for
    /// an OpenAI-compatible local server); nothing is sent anywhere else
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model the agent is told to use [default: the agent's own]
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// The agent's program [default: its command on PATH, else node_modules/.bin]
    #[arg(long, value_name = "PATH")]
    pub agent_bin: Option<PathBuf>,
    /// --agent command: the shell command line that runs the agent (it finds
    /// the proxy in WAVE_EVAL_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL and
    /// the prompt in WAVE_EVAL_PROMPT)
    #[arg(long, value_name = "CMD")]
    pub cmd: Option<String>,
    /// More arguments for the agent's command line (repeatable)
    #[arg(long = "agent-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub agent_args: Vec<String>,
    /// Also pass this variable of ours to the agent (repeatable; the API key
    /// variables are passed already)
    #[arg(long = "pass-env", value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// Runs per scenario, agent and arm
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub runs: u32,
    /// Runs at once
    #[arg(long, default_value_t = 1, value_name = "J")]
    pub jobs: u32,
    /// One run's time limit in seconds; its processes are killed after it
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// Print the plan (runs, agents, a token estimate) and send nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Run again even where stored results match
    #[arg(long)]
    pub fresh: bool,
    /// Keep each run's scratch directory (its path is in the results)
    #[arg(long)]
    pub keep: bool,
    /// Exit 1 when a scenario's uplift (with minus without) is below X (0 to 1)
    #[arg(long, value_name = "X")]
    pub min_uplift: Option<f64>,
    /// Exit 1 when a scenario's pass rate with the rules is below X (0 to 1)
    #[arg(long, value_name = "X")]
    pub min_rate: Option<f64>,
}
