//! The MCP server's telemetry (docs/telemetry.md): the core's records of
//! what it gives (its `Responder::telemetry`) and of the notes written, held
//! in the process and spooled together ([`ServerTelemetry::flush`], every
//! `WATCH_INTERVAL` and at the end), the shipper started now and then and at
//! the end, and the session id a client gives in a request's `_meta`.

use crate::base::env::{Env, Output};
use memory_rules::base::limits::{MAX_CLIENT_SESSION_BYTES, TELEMETRY_SHIP_SECS};
use memory_rules::delivery::telemetry::Telemetry;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One server's telemetry: its records (batched) and where the shipper runs.
pub(super) struct ServerTelemetry {
    pub records: Telemetry,
    project: PathBuf,
    home: Option<PathBuf>,
    /// When this server last started the shipper.
    shipper_started: Mutex<Option<Instant>>,
}

impl ServerTelemetry {
    pub fn new(env: &Env) -> ServerTelemetry {
        ServerTelemetry {
            records: crate::telemetry::for_env(env).batched(),
            project: env.config.workdir.clone(),
            home: env.home.clone(),
            shipper_started: Mutex::new(None),
        }
    }

    /// Spools the records held since the last call; starts the shipper
    /// when some were and none was started in the last
    /// [`TELEMETRY_SHIP_SECS`] (a shipping run's longest time), and at the
    /// `end` (the session's id, and the output where what went wrong is
    /// said once, on stderr). Nothing, not even the settings read, for a
    /// server that recorded nothing.
    pub fn flush(&self, end: Option<(&str, &mut Output)>) {
        if self.records.resolved().is_none() || (!self.records.flush() && end.is_none()) {
            return;
        }
        let mut last = self
            .shipper_started
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let wait = Duration::from_secs(TELEMETRY_SHIP_SECS);
        if end.is_some() || last.is_none_or(|at| at.elapsed() >= wait) {
            *last = Some(Instant::now());
            let home = self.home.as_deref();
            crate::telemetry::shipper::start(&self.records, &self.project, home);
        }
        if let Some((session, out)) = end {
            crate::telemetry::warn_once(&self.records, session, "mcp", out);
        }
    }
}

/// The session id a client gives in a request's `_meta` (`sessionID`, as
/// opencode sends it, `sessionId` or `session_id`; at most
/// [`MAX_CLIENT_SESSION_BYTES`]).
pub(super) fn client_session(meta: &Map<String, Value>) -> Option<String> {
    ["sessionID", "sessionId", "session_id"]
        .iter()
        .find_map(|k| meta.get(*k)?.as_str())
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() <= MAX_CLIENT_SESSION_BYTES)
        .map(str::to_string)
}
