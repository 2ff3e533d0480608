//! The report's sessions: the delivery log read for this project (its
//! path as given and as resolved), by session and by rule, and the rules
//! that never fired in the last N sessions.

use super::model::{RuleRow, SessionRow, Sessions};
use crate::base::env::Env;
use memory_rules::delivery::delivery_log::{self, DeliveryLog};
use std::collections::{BTreeMap, HashMap};

/// The delivery log's deliveries for this project.
pub(super) fn sessions(env: &Env, rows: &[RuleRow], window: usize) -> Sessions {
    let log = DeliveryLog::for_home(&env.home_dir());
    let read = log.read(&delivery_log::Filter::default());
    let workdir = &env.config.workdir;
    let mut roots = vec![workdir.to_string_lossy().into_owned()];
    if let Ok(real) = std::fs::canonicalize(workdir) {
        roots.push(real.to_string_lossy().into_owned());
    }
    let mut out = Sessions {
        enabled: delivery_log::enabled(),
        log: log.path().to_string_lossy().into_owned(),
        window: window as u64,
        problems: read.problems,
        ..Sessions::default()
    };
    let index: HashMap<&str, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    let mut by_session: BTreeMap<(String, String), SessionRow> = BTreeMap::new();
    let mut session_rules: HashMap<(String, String), std::collections::HashSet<String>> =
        HashMap::new();
    let mut by_rule: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for d in read
        .deliveries
        .iter()
        .filter(|d| roots.contains(&d.project))
    {
        out.deliveries += 1;
        out.tokens += d.tokens;
        let key = (d.agent.clone(), d.session.clone());
        let s = by_session.entry(key.clone()).or_insert_with(|| SessionRow {
            session: d.session.clone(),
            agent: d.agent.clone(),
            first: d.time,
            ..SessionRow::default()
        });
        s.first = s.first.min(d.time);
        s.last = s.last.max(d.time);
        s.deliveries += 1;
        s.tokens += d.tokens;
        let given = session_rules.entry(key).or_default();
        for g in &d.rules {
            given.insert(g.id.clone());
            let e = by_rule.entry(g.id.clone()).or_default();
            e.0 += 1;
            e.1 += g.tokens;
        }
    }
    for (key, s) in by_session.iter_mut() {
        s.rules = session_rules.get(key).map_or(0, |g| g.len() as u64);
    }
    let mut list: Vec<((String, String), SessionRow)> = by_session.into_iter().collect();
    list.sort_by(|a, b| b.1.last.cmp(&a.1.last).then_with(|| a.0.cmp(&b.0)));
    if !list.is_empty() {
        let recent: std::collections::HashSet<&String> = list
            .iter()
            .take(window)
            .filter_map(|(k, _)| session_rules.get(k))
            .flatten()
            .collect();
        out.never_fired = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !recent.contains(&r.id))
            .map(|(i, _)| i as u32)
            .collect();
    }
    let mut ranked: Vec<[u64; 3]> = Vec::new();
    for (id, (times, tokens)) in by_rule {
        match index.get(id.as_str()) {
            Some(&i) => ranked.push([i as u64, times, tokens]),
            None => out.gone.push((id, times, tokens)),
        }
    }
    ranked.sort_by(|a, b| b[2].cmp(&a[2]).then(a[0].cmp(&b[0])));
    out.by_rule = ranked;
    out.sessions = list.into_iter().map(|(_, s)| s).collect();
    out
}
