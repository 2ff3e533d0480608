//! The hook's telemetry (docs/telemetry.md): the core's responder records
//! what each event delivered, recalled and refused (`Responder::telemetry`);
//! here, what only the hook knows: the rules loaded at a session's start,
//! the shipper started at a start and a stop, and the one stderr line per
//! session that says what is wrong (never stdout, which the agent reads;
//! the answer is never changed).

use crate::args::HookAction;
use crate::env::{Env, Output};
use memory_rules::delivery::telemetry::{events, Telemetry};
use memory_rules::delivery::{Event, EventKind, Start};
use memory_rules::RuleSet;
use std::io::Write;

/// Sessions remembered as warned (the newest kept).
const WARNED_KEPT: usize = 64;

/// The hook's telemetry: off until its settings say otherwise (read on the
/// first record, or at a start or a stop).
pub fn for_hook(env: &Env) -> Telemetry {
    crate::telemetry::for_env(env)
}

/// At a session's start (a new one, not a resume): `wave_rules.rules.loaded`.
pub fn loaded(telemetry: &Telemetry, event: &Event, set: &RuleSet, broken: &[String]) {
    if event.kind != EventKind::Start(Start::Startup) || !telemetry.enabled() {
        return;
    }
    let codes: Vec<&str> = broken.iter().map(|_| "broken").collect();
    let record = events::loaded(set, &codes, &event.agent, &event.conversation.session);
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
    if ends && !telemetry.settings().unshippable {
        crate::telemetry::shipper::start(
            telemetry.spool(),
            &env.config.workdir,
            env.home.as_deref(),
        );
    }
    warn_once(telemetry, session, out);
}

/// What went wrong (the settings' problems, a record that could not be
/// spooled), said in one stderr line, once per session, when telemetry is
/// on.
pub fn warn_once(telemetry: &Telemetry, session: &str, out: &mut Output) {
    if !telemetry.enabled() {
        return;
    }
    let mut problems = telemetry.settings().problems.clone();
    problems.extend(telemetry.take_problem());
    if let Some(first) = problems.first() {
        if first_warning(telemetry, session) {
            let more = match problems.len() {
                1 => String::new(),
                n => format!(" (and {} more: wave-rules doctor)", n - 1),
            };
            out.stderr.push_str(&format!(
                "wave-rules hook: {}{more}\n",
                first.replace('\n', " ")
            ));
        }
    }
}

/// Whether this session was not warned yet (and remembers it now). A
/// spool directory that cannot be written warns every time: still one
/// line per event, never on stdout.
fn first_warning(telemetry: &Telemetry, session: &str) -> bool {
    let path = telemetry.spool().dir().join("warned");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    if text.lines().any(|l| l == session) {
        return false;
    }
    let mut lines: Vec<&str> = text.lines().collect();
    lines.push(session);
    let keep = &lines[lines.len().saturating_sub(WARNED_KEPT)..];
    let _ = std::fs::create_dir_all(telemetry.spool().dir());
    if let Ok(mut f) = std::fs::File::create(&path) {
        let _ = f.write_all((keep.join("\n") + "\n").as_bytes());
    }
    true
}
