//! One telemetry record: an OTLP log record that is an event (its name in
//! `event_name` and in the `event.name` attribute), with its attributes and
//! a unique id a backend can deduplicate on (`wave_rules.record.id`).
//!
//! Only ids, hashes, counts, names and decisions: never a prompt, a rule's
//! text, a file's contents, a command line or a path (a path only with the
//! `include = ["paths"]` opt-in, and only relative to the project).

use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The event names, one per kind of record.
pub mod names {
    pub const RULE_DELIVERED: &str = "wave_rules.rule.delivered";
    pub const RULE_ENFORCED: &str = "wave_rules.rule.enforced";
    pub const MEMORY_RECALLED: &str = "wave_rules.memory.recalled";
    pub const MEMORY_WRITTEN: &str = "wave_rules.memory.written";
    pub const RULES_LOADED: &str = "wave_rules.rules.loaded";
    pub const EVALUATION_RESULT: &str = "gen_ai.evaluation.result";
    /// The spool was full: this many of the oldest records were dropped.
    pub const RECORDS_DROPPED: &str = "wave_rules.telemetry.dropped";
}

/// The attribute a backend deduplicates on.
pub const RECORD_ID: &str = "wave_rules.record.id";

/// An attribute's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Double(f64),
    Bool(bool),
    Strs(Vec<String>),
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}
impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}
impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}
impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::from(n as u64)
    }
}
impl From<f64> for Value {
    fn from(n: f64) -> Value {
        Value::Double(n)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<Vec<String>> for Value {
    fn from(v: Vec<String>) -> Value {
        Value::Strs(v)
    }
}

/// One event.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub name: &'static str,
    /// Nanoseconds since the Unix epoch.
    pub time_ns: u64,
    pub attributes: Vec<(String, Value)>,
}

impl Record {
    /// A record of this event, now, with its `event.name` and a fresh id.
    pub fn new(name: &'static str) -> Record {
        let time_ns = now_ns();
        Record {
            name,
            time_ns,
            attributes: vec![
                ("event.name".into(), Value::from(name)),
                (RECORD_ID.into(), Value::Str(unique_id(time_ns))),
            ],
        }
    }

    /// With one more attribute.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Record {
        self.attributes.push((key.to_string(), value.into()));
        self
    }

    /// With `key` when `value` is some.
    pub fn with_some(self, key: &str, value: Option<impl Into<Value>>) -> Record {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }
}

pub(crate) fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// 32 hex digits, unique across processes and machines in practice: a hash
/// of the time, the process, a counter and the address of a stack value.
fn unique_id(time_ns: u64) -> String {
    let mut h = Sha256::new();
    h.update(time_ns.to_le_bytes());
    h.update(std::process::id().to_le_bytes());
    h.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let local = 0u8;
    h.update((&local as *const u8 as usize).to_le_bytes());
    if let Ok(host) = std::env::var("HOSTNAME") {
        h.update(host.as_bytes());
    }
    let digest = h.finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}
