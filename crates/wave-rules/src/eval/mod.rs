//! `wave-rules eval`'s machinery: scenarios ([`scenario`]), the agents and
//! how each runs headless ([`eval_agent`]), the scratch copy a run works in
//! ([`scratch`]), the recording proxy in front of the model ([`proxy`]), one
//! run ([`runner`]), its checks ([`checks`]), the numbers ([`stats`]) and
//! the stored results ([`results`]); the plan of an eval ([`plan`],
//! [`against`] for `--against`, [`options`]), its runs within a budget
//! ([`execute`], [`budget`]), and what is concluded from them ([`gates`],
//! [`suite`], [`conclude`], [`ci`], [`merge`] for shards), and the judge of
//! `judge:` checks ([`judge`]). The command itself is
//! `commands/eval.rs`. The WebAssembly build reads and plans scenarios but
//! runs none (no process, no socket): what only the runs use is left out there.
#![cfg_attr(target_family = "wasm", allow(dead_code, unused_imports))]

pub(crate) mod against;
pub(crate) mod budget;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod checks;
pub(crate) mod ci;
pub(crate) mod conclude;
pub(crate) mod eval_agent;
pub(crate) mod eval_args;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod evaluation_records;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod execute;
pub(crate) mod gates;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod judge;
pub(crate) mod merge;
pub(crate) mod options;
pub(crate) mod plan;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod process;
#[cfg(not(target_family = "wasm"))]
pub mod proxy;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod regrade;
pub(crate) mod results;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod runner;
pub(crate) mod scenario;
#[cfg(not(target_family = "wasm"))]
pub(crate) mod scratch;
pub(crate) mod stats;
pub(crate) mod suite;
pub(crate) mod summary;

pub use memory_rules::base::limits::{
    DEFAULT_RUN_TIMEOUT, MAX_AGENT_OUTPUT_BYTES, MAX_EVAL_JOBS, MAX_EVAL_RUNS, MAX_EVAL_TURNS,
    MAX_JUDGE_EVIDENCE_BYTES, MAX_JUDGE_RUNS, MAX_REGRADE_KEPT_BYTES, MAX_SCENARIO_BYTES,
    MAX_SCENARIO_FILES, MAX_SCRATCH_BYTES, MAX_SCRATCH_FILES,
};
