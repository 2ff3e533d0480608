//! One module per subcommand: each parses nothing (clap did), loads through
//! the core and returns the `Output` to print.

pub mod doctor;
pub mod edit;
pub mod eval;
pub mod export;
pub mod list;
pub mod log;
#[path = "match.rs"]
pub mod matching;
pub mod memory;
pub mod memory_similar;
pub mod packs;
pub mod packs_git;
pub mod packs_sync;
pub mod sarif;
pub mod setup;
pub mod telemetry;
pub mod validate;
pub mod validate_fix;
