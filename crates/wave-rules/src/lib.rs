//! The `wave-rules` command line: `validate`, `list`, `match`, `add`,
//! `remove`, `hook` (Claude Code hooks) and `mcp` (an MCP server for any
//! agent), over the `memory-rules` core.
//!
//! [`run`] parses arguments and returns what to print and the exit code
//! instead of printing, so the Rust binary and the Node package
//! (`npx wave-rules`, through the addon) produce identical output.
//!
//! Exit codes: 0 success (for `validate`: no error, and no warning with
//! `--strict`); 1 the rules have errors, or the command was refused (`add`
//! without content or trigger, `remove` of an unknown id); 2 usage or I/O
//! trouble.

mod base;
mod cli;
mod commands;
mod eval;
mod hook;
#[cfg(not(target_family = "wasm"))]
mod lsp;
mod mcp;
mod report;
mod telemetry;

/// The one opening for the crate's own integration tests (the recording
/// proxy of `wave-rules eval`, tested over real sockets). Not an API.
#[doc(hidden)]
#[cfg(not(target_family = "wasm"))]
pub mod internals {
    pub use crate::eval::proxy;
}

pub use base::env::{Output, EXIT_FAILURE, EXIT_TROUBLE};
pub use cli::{run, run_with_input};
/// Telemetry in a long-lived process that is not ours: the addon in an
/// SDK's Node process (docs/telemetry.md).
pub use telemetry::in_process::InProcess;

/// The most a hook reads from standard input; a larger event is skipped
/// (with one line on stderr).
pub use memory_rules::base::limits::MAX_HOOK_INPUT_BYTES;

/// Tells the library the process exits right after its one command (the
/// `wave-rules` binary; never the addon): large structures a hook built are
/// then left to the exit rather than freed one by one.
pub use base::exit::exits_after_command;
