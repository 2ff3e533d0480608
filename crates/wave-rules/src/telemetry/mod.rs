//! Telemetry on the CLI's side (the core's `delivery::telemetry` does the
//! records, the spool and the shipping run): the places the settings are
//! read from for this command line, the HTTP transport (`ureq`, blocking,
//! timeouts on every phase), the shipper a hook starts as a detached child
//! (`hook ship`), and what `doctor` says.

pub mod in_process;
pub mod instructions;
pub mod shipper;
#[cfg(not(target_family = "wasm"))]
pub mod transport;

use crate::base::env::{Env, Output};
use memory_rules::base::fs::state_dir;
use memory_rules::delivery::telemetry::{events, Places, Settings, Spool, Telemetry};
use memory_rules::memory::NoteWritten;
use serde_json::{json, Value};
use std::io::Write;

/// Where this command line's settings are read from: the policy
/// directory, the project, the user's home.
pub fn places(env: &Env) -> Places {
    Places {
        policy_dir: env.config.policy.clone(),
        project: Some(env.config.workdir.clone()),
        home: env.home.clone(),
    }
}

/// This command line's telemetry (settings read on the first record).
pub fn for_env(env: &Env) -> Telemetry {
    Telemetry::new(places(env), &state_dir(&env.home_dir()))
}

/// What `doctor` says: on or off and from where, the endpoint and
/// protocol, the spool's state, and every problem (counted when on).
pub struct Status {
    pub json: Value,
    pub text: String,
    pub problems: usize,
}

pub fn status(env: &Env) -> Status {
    let settings = Settings::resolve(&places(env), &|k| std::env::var(k).ok());
    let spool = Spool::in_state_dir(&state_dir(&env.home_dir())).state();
    let mut problems = settings.problems.clone();
    problems.extend(spool.problem.clone());
    let p = &spool.progress;
    let disagreements = instructions::disagreements(&spool.dir);
    if let Some(e) = &p.last_error {
        problems.push(format!("telemetry: the last export failed: {e}"));
    }
    let on = if settings.enabled { "on" } else { "off" };
    let mut text = format!(
        "telemetry: {on} (from {})\n  endpoint: {} ({}, from {})\n  spool: {} ({} bytes, {} unsent; {} records shipped, {} dropped, {} corrupt lines skipped)\n",
        settings.enabled_from,
        if settings.endpoint.is_empty() { "unusable" } else { &settings.endpoint },
        settings.protocol.as_str(),
        settings.endpoint_from,
        spool.dir.display(),
        spool.bytes,
        spool.unsent_bytes,
        p.shipped,
        p.dropped,
        p.corrupt,
    );
    for problem in &problems {
        text.push_str(&format!("  problem: {problem}\n"));
    }
    for finding in &disagreements {
        text.push_str(&format!("  problem: {finding}\n"));
    }
    let json = json!({
        "enabled": settings.enabled,
        "from": settings.enabled_from.to_string(),
        "endpoint": settings.endpoint,
        "endpointFrom": settings.endpoint_from.to_string(),
        "protocol": settings.protocol.as_str(),
        "includePaths": settings.include_paths,
        "spool": {
            "dir": spool.dir,
            "bytes": spool.bytes,
            "unsentBytes": spool.unsent_bytes,
            "shipped": p.shipped,
            "dropped": p.dropped,
            "corrupt": p.corrupt,
            "lastError": p.last_error,
            "retryAtMs": p.retry_at_ms,
            "lastShippedMs": p.last_shipped_ms,
        },
        "problems": problems,
        "selfLoadDisagreements": disagreements,
    });
    Status {
        json,
        text,
        problems: disagreements.len() + if settings.enabled { problems.len() } else { 0 },
    }
}

/// `doctor --json`'s report with a `telemetry` member added.
pub fn with_status(report: String, status: Value) -> String {
    match serde_json::from_str::<Value>(&report) {
        Ok(Value::Object(mut map)) => {
            map.insert("telemetry".into(), status);
            crate::base::display::json_text(&Value::Object(map))
        }
        _ => report,
    }
}

/// Sessions remembered as warned (the newest kept).
const WARNED_KEPT: usize = 64;

/// What went wrong (the settings' problems, a record that could not be
/// spooled), said in one stderr line, once per session, when telemetry is
/// on; `who` is the road (`hook`, `mcp`).
pub fn warn_once(telemetry: &Telemetry, session: &str, who: &str, out: &mut Output) {
    if let Some(line) = problem_line(telemetry, who) {
        if first_warning(telemetry, session) {
            out.stderr.push_str(&line);
        }
    }
}

/// What went wrong as one stderr line, when telemetry is on: the first
/// problem, and how many more `doctor` names.
pub fn problem_line(telemetry: &Telemetry, who: &str) -> Option<String> {
    if !telemetry.enabled() {
        return None;
    }
    let mut problems = telemetry.settings().problems.clone();
    problems.extend(telemetry.take_problem());
    let first = problems.first()?;
    let more = match problems.len() {
        1 => String::new(),
        n => format!(" (and {} more: wave-rules doctor)", n - 1),
    };
    Some(format!(
        "wave-rules {who}: {}{more}\n",
        first.replace('\n', " ")
    ))
}

/// Notes written through our code (`memory write`, `memory import`, the
/// MCP server's `memory_write`): one `wave_rules.memory.written` each, when
/// on; `agent` is who wrote them.
pub fn notes_written(
    telemetry: &Telemetry,
    notes: &[&NoteWritten],
    agent: &str,
    session: Option<&str>,
) {
    let records: Vec<_> = notes
        .iter()
        .map(|w| events::written(w, agent, session))
        .collect();
    telemetry.record_or_keep(&records);
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
