//! Telemetry on the CLI's side (the core's `delivery::telemetry` does the
//! records, the spool and the shipping run): the places the settings are
//! read from for this command line, the HTTP transport (`ureq`, blocking,
//! timeouts on every phase), the shipper a hook starts as a detached child
//! (`hook ship`), and what `doctor` says.

pub mod shipper;
#[cfg(not(target_family = "wasm"))]
pub mod transport;

use crate::env::Env;
use memory_rules::delivery::delivery_log::state_dir;
use memory_rules::delivery::telemetry::{Places, Settings, Spool, Telemetry};
use serde_json::{json, Value};

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

/// `wave-rules telemetry status|ship`.
pub fn command(env: &Env, args: &crate::args::TelemetryArgs) -> crate::env::Output {
    match &args.action {
        crate::args::TelemetryAction::Status => {
            let status = status(env);
            crate::env::Output {
                stdout: if env.json {
                    format!("{}\n", status.json)
                } else {
                    status.text
                },
                stderr: String::new(),
                code: if status.problems > 0 {
                    crate::env::EXIT_FAILURE
                } else {
                    0
                },
            }
        }
        crate::args::TelemetryAction::Ship(a) => {
            shipper::run(&places(env), &state_dir(&env.home_dir()), a.seconds)
        }
    }
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
    });
    Status {
        json,
        text,
        problems: if settings.enabled { problems.len() } else { 0 },
    }
}

/// `doctor --json`'s report with a `telemetry` member added.
pub fn with_status(report: String, status: Value) -> String {
    match serde_json::from_str::<Value>(&report) {
        Ok(Value::Object(mut map)) => {
            map.insert("telemetry".into(), status);
            crate::display::json_text(&Value::Object(map))
        }
        _ => report,
    }
}
