//! The hook dialects of the agents added after the first five, one module
//! each on the core event (`agent.rs` dispatches to them): what their
//! payload says ([`super::agent::Payload`]), which of their events we
//! install, and how a refusal reaches their model.

pub mod cline;
pub mod kiro;
pub mod qwen;
pub mod vscode;
pub mod windsurf;

use crate::base::args::HookAgent;
use crate::base::env::Output;

/// Refuses a tool call where the agent reads no JSON from a hook: Windsurf
/// (Devin Desktop) and Kiro read its exit code 2 and the reason on stderr. False
/// for the others, which read `agent::refusal` on stdout.
pub fn refuse(agent: HookAgent, reason: &str, out: &mut Output) -> bool {
    match agent {
        HookAgent::Windsurf | HookAgent::Kiro => windsurf::refuse(reason, out),
        _ => return false,
    }
    true
}
