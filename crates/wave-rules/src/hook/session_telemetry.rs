//! The hook's telemetry (docs/telemetry.md): the core's responder records
//! what each event delivered, recalled and refused (`Responder::telemetry`);
//! here, what only the hook knows: the rules loaded at a session's start,
//! the shipper started at a start and a stop, and the one stderr line per
//! session that says what is wrong (never stdout, which the agent reads;
//! the answer is never changed).

use crate::base::args::HookAction;
use crate::base::env::{Env, Output};
use memory_rules::delivery::telemetry::RuleCensus;
use memory_rules::delivery::telemetry::{events, Telemetry};
use memory_rules::delivery::{Event, EventKind, Start};

/// The hook's telemetry: off until its settings say otherwise (read on the
/// first record, or at a start or a stop).
pub fn for_hook(env: &Env) -> Telemetry {
    crate::telemetry::for_env(env)
}

/// At a session's start (a new one, not a resume): `wave_rules.rules.loaded`.
pub fn loaded(telemetry: &Telemetry, event: &Event, census: &RuleCensus, broken: &[String]) {
    if event.kind != EventKind::Start(Start::Startup) || !telemetry.enabled() {
        return;
    }
    let codes: Vec<&str> = broken.iter().map(|_| "broken").collect();
    let record = events::loaded(census, &codes, &event.agent, &event.conversation.session);
    telemetry.record_or_keep(&[record]);
}

/// After the event: the shipper started at a start or a stop, and what
/// went wrong said once per session.
pub fn finish(
    env: &Env,
    action: &HookAction,
    session: &str,
    telemetry: &Telemetry,
    out: &mut Output,
) {
    let ends = matches!(action, HookAction::Stop | HookAction::SessionStart(_));
    if !ends && telemetry.resolved().is_none() {
        return;
    }
    if !telemetry.enabled() {
        return;
    }
    if ends {
        crate::telemetry::shipper::start(telemetry, &env.config.workdir, env.home.as_deref());
    }
    crate::telemetry::warn_once(telemetry, session, "hook", out);
}
