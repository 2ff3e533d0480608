//! `wave-rules log [--session ID] [--since WHEN] [--all] [--json]`: the
//! delivery log (the core's `delivery_log`) as timelines, one per session:
//! when, which event, which rules and how many tokens. This project's
//! sessions unless `--all` or `--session` says otherwise.

use crate::base::args::LogArgs;
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_TROUBLE};
use memory_rules::delivery::delivery_log::{self, Delivery, DeliveryLog, Filter};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A `--since` that is neither a duration nor a date or time.
#[derive(Debug, thiserror::Error)]
#[error("--since '{text}' is not a duration (30m, 12h, 7d) or a date or time (2026-11-20, 2026-11-20T09:30:00Z)")]
pub struct SinceError {
    pub text: String,
}

/// `--since`: a duration back from `now` (`30m`, `12h`, `7d`), a date
/// (`2026-11-20`, midnight UTC) or an RFC 3339 time; milliseconds since the
/// epoch.
pub fn parse_since(text: &str, now: SystemTime) -> Result<u64, SinceError> {
    let text = text.trim();
    let at = if let Ok(d) = humantime::parse_duration(text) {
        now.checked_sub(d).unwrap_or(UNIX_EPOCH)
    } else {
        let full = if text.len() == 10 {
            format!("{text}T00:00:00Z")
        } else {
            text.to_string()
        };
        humantime::parse_rfc3339_weak(&full).map_err(|_| SinceError {
            text: text.to_string(),
        })?
    };
    Ok(at
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64))
}

/// An RFC 3339 time, to the second, in UTC.
pub fn time_text(ms: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

pub fn run(env: &Env, args: &LogArgs) -> Output {
    let since = match args
        .since
        .as_deref()
        .map(|s| parse_since(s, SystemTime::now()))
    {
        Some(Err(e)) => return Output::fail(EXIT_TROUBLE, e.to_string()),
        Some(Ok(ms)) => Some(ms),
        None => None,
    };
    let log = DeliveryLog::for_home(&env.home_dir());
    let read = log.read(&Filter {
        session: args.session.clone(),
        since,
        project: None,
    });
    let workdir = &env.config.workdir;
    let mut roots = vec![workdir.to_string_lossy().into_owned()];
    if let Ok(real) = std::fs::canonicalize(workdir) {
        roots.push(real.to_string_lossy().into_owned());
    }
    let every_project = args.all || args.session.is_some();
    let deliveries: Vec<&Delivery> = read
        .deliveries
        .iter()
        .filter(|d| every_project || roots.contains(&d.project))
        .collect();
    let mut out = Output::default();
    for p in &read.problems {
        out.stderr
            .push_str(&display::line(&format!("wave-rules: log: {p}")));
    }
    out.stdout = if env.json {
        log_json(&log, &deliveries)
    } else if deliveries.is_empty() {
        let why = if !delivery_log::enabled() {
            " (the log is off: WAVE_RULES_LOG)".to_string()
        } else if every_project {
            String::new()
        } else {
            format!(" for {} (--all for every project)", workdir.display())
        };
        display::line(&format!(
            "no delivery logged{why}; the log is {}",
            log.path().display()
        ))
    } else {
        timelines(&deliveries)
    };
    out
}

fn log_json(log: &DeliveryLog, deliveries: &[&Delivery]) -> String {
    let list: Vec<serde_json::Value> = deliveries
        .iter()
        .map(|d| {
            let mut v = serde_json::to_value(d).unwrap_or_default();
            v["at"] = serde_json::Value::String(time_text(d.time));
            v
        })
        .collect();
    display::json_text(&serde_json::json!({
        "log": log.path().to_string_lossy(),
        "enabled": delivery_log::enabled(),
        "deliveries": list,
    }))
}

/// One timeline per session, sessions in the order they started: a line
/// for the session, then one per delivery.
fn timelines(deliveries: &[&Delivery]) -> String {
    let mut s = String::new();
    let mut sessions: BTreeMap<(&str, &str), Vec<&Delivery>> = BTreeMap::new();
    for d in deliveries {
        sessions
            .entry((d.agent.as_str(), d.session.as_str()))
            .or_default()
            .push(d);
    }
    let mut order: Vec<_> = sessions.into_iter().collect();
    order.sort_by_key(|(_, list)| list[0].time);
    for ((agent, session), list) in order {
        let tokens: u64 = list.iter().map(|d| d.tokens).sum();
        let mut distinct: Vec<&str> = list
            .iter()
            .flat_map(|d| d.rules.iter().map(|g| g.id.as_str()))
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        s.push_str(&display::line(&format!(
            "session {session} ({agent}, {}): {} deliveries, {} rules, {} tokens",
            list[0].project,
            list.len(),
            distinct.len(),
            tokens
        )));
        for d in list {
            let ids: Vec<&str> = d.rules.iter().map(|g| g.id.as_str()).collect();
            let mut line = String::new();
            let _ = write!(
                line,
                "  {}  {:<16} {:>3} rule{} {:>7} tokens  {}",
                time_text(d.time),
                d.event,
                d.rules.len(),
                if d.rules.len() == 1 { " " } else { "s" },
                d.tokens,
                ids.join(", ")
            );
            s.push_str(&display::line(&line));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_reads_durations_dates_and_times() {
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let ms = |s: &str| parse_since(s, now).unwrap();
        assert_eq!(ms("30m"), (1_800_000_000 - 1800) * 1000);
        assert_eq!(ms("7d"), (1_800_000_000 - 7 * 86400) * 1000);
        assert_eq!(ms("2026-11-20"), 1_795_132_800_000);
        assert_eq!(ms("2026-11-20T09:30:00Z"), 1_795_132_800_000 + 34_200_000);
        assert!(parse_since("last tuesday", now)
            .unwrap_err()
            .to_string()
            .contains("--since"));
        assert_eq!(time_text(1_795_132_800_000), "2026-11-20T00:00:00Z");
    }
}
