//! What Claude Code loaded by itself: its `InstructionsLoaded` hook event
//! (`file_path`, `memory_type`, `load_reason`, ...), installed with the other
//! hooks as `wave-rules telemetry hook InstructionsLoaded`. Each load is a
//! `wave_rules.rule.delivered` with `delivered_by: agent` and the file's id
//! relative to the project (`~/` for the user's home; never an absolute
//! path), and is checked against the core's self-load table
//! (`sources::self_load`): a file Claude Code loaded by itself that the
//! table says it does not load (so the hooks may give its rules a second
//! time) is kept in `<state dir>/telemetry/self-loads.json`, which `doctor`
//! reports. Claude Code fires this hook without waiting for it, so it only
//! records; it never answers and never decides what is given.

use crate::base::env::Output;
use crate::base::launch::{self, Program};
use crate::base::settings_file::{self, Json};
use jsonc_parser::cst::{CstInputValue, CstObject};
use memory_rules::delivery::telemetry::{events, Telemetry};
use memory_rules::sources::self_load::{AgentModel, Place};
use memory_rules::Format;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Claude Code's event name.
pub const EVENT: &str = "InstructionsLoaded";
/// The file of self-loads seen, beside the spool.
const SEEN_FILE: &str = "self-loads.json";

/// Adds the hook to Claude Code's settings (`install` calls it after the
/// other events); the command ends in `hook InstructionsLoaded`, so
/// `uninstall` finds it as ours.
pub fn install(
    json: &Json,
    object: &CstObject,
    program: &Program,
    flag: &str,
) -> Result<(), Output> {
    let hook = settings_file::object(vec![
        ("type", CstInputValue::String("command".into())),
        (
            "command",
            CstInputValue::String(format!(
                "{}{flag} telemetry hook {EVENT}",
                launch::claude_hook_prefix(program)
            )),
        ),
        (
            "timeout",
            CstInputValue::Number(memory_rules::base::limits::HOOK_TIMEOUT_SECS.to_string()),
        ),
    ]);
    let group = settings_file::object(vec![("hooks", CstInputValue::Array(vec![hook]))]);
    settings_file::add_hook(json, object, EVENT, group)
}

/// One self-load as remembered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub memory_type: String,
    pub load_reason: String,
    /// Whether the self-load table says Claude Code loads this file itself.
    pub in_table: bool,
    pub count: u64,
}

/// The file's id: relative to the project, `~/`-relative in the home, else
/// its name alone.
pub fn id(file: &Path, project: &Path, home: Option<&Path>) -> String {
    if let Ok(rel) = file.strip_prefix(project) {
        return rel.to_string_lossy().replace('\\', "/");
    }
    if let Some(rel) = home.and_then(|h| file.strip_prefix(h).ok()) {
        return format!("~/{}", rel.to_string_lossy().replace('\\', "/"));
    }
    file.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Whether the self-load table says Claude Code loads `id` by itself.
fn in_table(id: &str, project: &Path) -> bool {
    let name = id.rsplit('/').next().unwrap_or(id);
    let format = if id.contains(".claude/") || name.starts_with("CLAUDE") {
        Format::Claude
    } else if name.starts_with("AGENTS") {
        Format::AgentsMd
    } else {
        return false;
    };
    let place = Place::of(format, Path::new(id));
    AgentModel::named("claude").is_some_and(|m| m.loads_itself(place, project))
}

/// The event: recorded (when telemetry is on) and remembered for `doctor`.
pub fn record(telemetry: &Telemetry, payload: &Value, project: &Path, home: Option<&Path>) {
    let text = |k: &str| payload.get(k).and_then(Value::as_str).unwrap_or("");
    let file = text("file_path");
    if file.is_empty() {
        return;
    }
    let id = id(Path::new(file), project, home);
    remember(
        telemetry,
        &id,
        text("memory_type"),
        text("load_reason"),
        project,
    );
    if telemetry.enabled() {
        let record = events::self_loaded(
            "claude",
            text("session_id"),
            &id,
            text("memory_type"),
            text("load_reason"),
        );
        telemetry.record_or_keep(&[record]);
    }
}

fn remember(telemetry: &Telemetry, id: &str, memory_type: &str, load_reason: &str, project: &Path) {
    let path = telemetry.spool().dir().join(SEEN_FILE);
    let mut seen = read_seen(&path);
    let entry = seen.entry(id.to_string()).or_default();
    entry.memory_type = memory_type.to_string();
    entry.load_reason = load_reason.to_string();
    entry.in_table = in_table(id, project);
    entry.count += 1;
    while seen.len() > memory_rules::base::limits::MAX_SELF_LOADS_SEEN {
        let Some(first) = seen.keys().next().cloned() else {
            break;
        };
        seen.remove(&first);
    }
    let _ = std::fs::create_dir_all(telemetry.spool().dir());
    if let Ok(bytes) = serde_json::to_vec(&seen) {
        let _ = memory_rules::base::fs::replace_fast(&path, &bytes);
    }
}

fn read_seen(path: &Path) -> BTreeMap<String, Seen> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// The files Claude Code loaded by itself that the self-load table does
/// not list (the hooks may give their rules twice), as `doctor` findings.
pub fn disagreements(spool_dir: &Path) -> Vec<String> {
    read_seen(&spool_dir.join(SEEN_FILE))
        .into_iter()
        .filter(|(_, s)| !s.in_table)
        .map(|(id, s)| {
            format!(
                "self-load check: Claude Code loaded {id} by itself ({}, {}; {} times) but the self-load table says it does not: its rules may be given twice",
                s.memory_type, s.load_reason, s.count
            )
        })
        .collect()
}
