//! The hook dialects of the agents added after the first five, one module
//! each on the core event (`agent.rs` dispatches to them): what their
//! payload says ([`super::agent::Payload`]), which of their events we
//! install, and how a refusal reaches their model.

pub mod windsurf;

use crate::args::HookAgent;
use crate::env::Output;

/// Refuses a tool call in the agent's form: Windsurf (Devin Desktop) reads
/// no JSON from a hook, only its exit code 2 and the reason on stderr;
/// the others read [`super::agent::refusal`] on stdout.
pub fn refuse(agent: HookAgent, reason: &str, out: &mut Output) {
    match agent {
        HookAgent::Windsurf => windsurf::refuse(reason, out),
        _ => out.stdout = format!("{}\n", super::agent::refusal(agent, reason)),
    }
}
