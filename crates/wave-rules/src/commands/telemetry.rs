//! `wave-rules telemetry`: `status` (what `doctor` says of it), `ship` (the
//! spool to the OTLP endpoint now; hooks start it by themselves) and `hook`
//! (an agent's event that is only recorded: Claude Code's
//! `InstructionsLoaded`). See docs/telemetry.md.

use crate::base::args::{GlobalArgs, TelemetryAction, TelemetryArgs};
use crate::base::env::{Env, Output, EXIT_FAILURE};
use crate::telemetry;
use memory_rules::base::fs::state_dir;
use serde_json::Value;

/// `wave-rules telemetry status|ship`.
pub fn run(env: &Env, args: &TelemetryArgs) -> Output {
    match &args.action {
        TelemetryAction::Status => {
            let status = telemetry::status(env);
            Output {
                stdout: if env.json {
                    format!("{}\n", status.json)
                } else {
                    status.text
                },
                stderr: String::new(),
                code: if status.problems > 0 { EXIT_FAILURE } else { 0 },
            }
        }
        TelemetryAction::Ship(a) => telemetry::shipper::run(
            &telemetry::places(env),
            &state_dir(&env.home_dir()),
            a.seconds,
            a.linger,
        ),
        // Read from stdin before an Env is made: `hook_event`.
        TelemetryAction::Hook(_) => Output::default(),
    }
}

/// `telemetry hook <event>`: the agent's event read from stdin and
/// recorded; nothing on stdout, exit 0 whatever happens (at most one line on
/// stderr per session).
pub fn hook_event(
    global: &GlobalArgs,
    args: &TelemetryArgs,
    stdin: impl FnOnce() -> std::io::Result<Vec<u8>>,
) -> Output {
    let TelemetryAction::Hook(hook) = &args.action else {
        return Output::default();
    };
    let bytes = stdin().unwrap_or_default();
    let payload: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| payload.get("cwd").and_then(Value::as_str).map(Into::into));
    let env = match Env::new(global, project, false) {
        Ok(env) => env,
        // A hook never fails: it says why on stderr and exits 0.
        Err(out) => {
            return Output {
                stderr: out.stderr,
                ..Output::default()
            }
        }
    };
    let mut out = Output::default();
    if hook.event != telemetry::instructions::EVENT || !payload.is_object() {
        return out;
    }
    let telemetry = telemetry::for_env(&env);
    let home = env.home.clone().or_else(crate::base::env::user_home);
    telemetry::instructions::record(&telemetry, &payload, &env.config.workdir, home.as_deref());
    let session = payload
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or("");
    telemetry::warn_once(&telemetry, session, "hook", &mut out);
    out
}
