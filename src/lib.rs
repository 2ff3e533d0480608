//! Node binding of the `memory-rules` core: types and conversions only.
//!
//! `RuleEngine` keeps the compiled rule set (one `GlobSet`, one topic
//! automaton) between calls. Discovery runs on the libuv thread pool
//! (`AsyncTask`); the per-message call `active` is synchronous and returns
//! rule indices as a `Uint32Array`, so no rule text crosses the boundary per
//! message: the JS wrapper (`ts/`) holds the rule objects from `rules()`.
//! Every method catches panics, so none can cross into Node.

#![deny(clippy::all)]

// Public so that, in the test build too (where napi registers nothing), the
// exported functions are reachable and not dead code.
pub mod cli;
pub mod config;
pub mod conversations;
pub mod engine;
pub mod memory;
pub mod render;
pub mod root;
pub mod rule;
pub mod wasi;
