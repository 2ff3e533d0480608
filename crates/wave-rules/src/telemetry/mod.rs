//! Telemetry on the CLI's side (the core's `delivery::telemetry` does the
//! records, the spool and the shipping run): the places the settings are
//! read from for this command line, the HTTP transport (`ureq`, blocking,
//! timeouts on every phase), the shipper a hook starts as a detached child
//! (`hook ship`), and what `doctor` says.

#[cfg(not(target_family = "wasm"))]
pub mod evaluation;
pub mod instructions;
pub mod shipper;
#[cfg(not(target_family = "wasm"))]
pub mod transport;

use crate::env::Env;
use memory_rules::delivery::delivery_log::state_dir;
use memory_rules::delivery::telemetry::{Places, Settings, Spool, Telemetry};
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
        // Read from stdin before an Env is made: `hook_event`.
        crate::args::TelemetryAction::Hook(_) => crate::env::Output::default(),
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
            crate::display::json_text(&Value::Object(map))
        }
        _ => report,
    }
}

/// `telemetry hook <event>`: the agent's event read from stdin and
/// recorded; nothing on stdout, exit 0 whatever happens (at most one line on
/// stderr per session).
pub fn hook_event(
    cli: &crate::args::Cli,
    args: &crate::args::TelemetryArgs,
    stdin: impl FnOnce() -> std::io::Result<Vec<u8>>,
) -> crate::env::Output {
    let crate::args::TelemetryAction::Hook(hook) = &args.action else {
        return crate::env::Output::default();
    };
    let bytes = stdin().unwrap_or_default();
    let payload: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| payload.get("cwd").and_then(Value::as_str).map(Into::into));
    let env = match Env::new(cli, project) {
        Ok(env) => env,
        // A hook never fails: it says why on stderr and exits 0.
        Err(out) => {
            return crate::env::Output {
                stderr: out.stderr,
                ..crate::env::Output::default()
            }
        }
    };
    let mut out = crate::env::Output::default();
    if hook.event != instructions::EVENT || !payload.is_object() {
        return out;
    }
    let telemetry = for_env(&env);
    let home = env.home.clone().or_else(crate::env::user_home);
    instructions::record(&telemetry, &payload, &env.config.workdir, home.as_deref());
    let session = payload
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or("");
    warn_once(&telemetry, session, &mut out);
    out
}

/// Sessions remembered as warned (the newest kept).
const WARNED_KEPT: usize = 64;

/// What went wrong (the settings' problems, a record that could not be
/// spooled), said in one stderr line, once per session, when telemetry is
/// on.
pub fn warn_once(telemetry: &Telemetry, session: &str, out: &mut crate::env::Output) {
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
