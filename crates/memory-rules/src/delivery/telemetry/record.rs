//! One telemetry record: an OTLP log record that is an event (its name in
//! `event_name` and in the `event.name` attribute), with its attributes and
//! a unique id a backend can deduplicate on (`wave_rules.record.id`).
//!
//! Only ids, hashes, counts, names and decisions: never a prompt, a rule's
//! text, a file's contents, a command line or a path (a path only with the
//! `include = ["paths"]` opt-in, and only relative to the project).

use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
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

/// An attribute's value. A string borrows what the record is made of
/// (a hook's start makes a dozen a rule it gives, then writes them out):
/// [`Record::into_owned`] for a record that outlives them.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Double(f64),
    Bool(bool),
    Strs(Vec<String>),
}

impl Value<'_> {
    /// The same value, owning its string.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Str(s) => Value::Str(Cow::Owned(s.into_owned())),
            Value::Int(n) => Value::Int(n),
            Value::Double(n) => Value::Double(n),
            Value::Bool(b) => Value::Bool(b),
            Value::Strs(list) => Value::Strs(list),
        }
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(s: &'a str) -> Value<'a> {
        Value::Str(Cow::Borrowed(s))
    }
}
impl From<String> for Value<'_> {
    fn from(s: String) -> Self {
        Value::Str(Cow::Owned(s))
    }
}
impl From<i64> for Value<'_> {
    fn from(n: i64) -> Self {
        Value::Int(n)
    }
}
impl From<u64> for Value<'_> {
    fn from(n: u64) -> Self {
        Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}
impl From<usize> for Value<'_> {
    fn from(n: usize) -> Self {
        Value::from(n as u64)
    }
}
impl From<f64> for Value<'_> {
    fn from(n: f64) -> Self {
        Value::Double(n)
    }
}
impl From<bool> for Value<'_> {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<Vec<String>> for Value<'_> {
    fn from(v: Vec<String>) -> Self {
        Value::Strs(v)
    }
}

/// An attribute's key: nearly always a name written in the code, kept
/// without a copy (a hook's start makes a dozen per rule it gives).
pub type Key = Cow<'static, str>;

/// One event.
#[derive(Clone, Debug, PartialEq)]
pub struct Record<'a> {
    pub name: &'static str,
    /// Nanoseconds since the Unix epoch.
    pub time_ns: u64,
    pub attributes: Vec<(Key, Value<'a>)>,
}

impl<'a> Record<'a> {
    /// A record of this event, now, with its `event.name` and a fresh id.
    pub fn new(name: &'static str) -> Record<'a> {
        let time_ns = now_ns();
        Record {
            name,
            time_ns,
            attributes: {
                // Room for what the events add (a delivery adds about 12).
                let mut a = Vec::with_capacity(16);
                a.push((Key::Borrowed("event.name"), Value::from(name)));
                a.push((Key::Borrowed(RECORD_ID), Value::from(unique_id(time_ns))));
                a
            },
        }
    }

    /// With one more attribute.
    pub fn with(mut self, key: impl Into<Key>, value: impl Into<Value<'a>>) -> Record<'a> {
        self.attributes.push((key.into(), value.into()));
        self
    }

    /// With `key` when `value` is some.
    pub fn with_some(self, key: impl Into<Key>, value: Option<impl Into<Value<'a>>>) -> Record<'a> {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.attributes
            .iter()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    /// The same record, owning its strings (to be held past what it was
    /// made of: a batched road's).
    pub fn into_owned(self) -> Record<'static> {
        Record {
            name: self.name,
            time_ns: self.time_ns,
            attributes: (self.attributes.into_iter())
                .map(|(k, v)| (k, v.into_owned()))
                .collect(),
        }
    }
}

pub(crate) fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// 32 hex digits, unique across processes and machines in practice: this
/// process's seed (a hash of the time, the process, the address of a stack
/// value and the host, taken once) mixed with a counter by a bijection, so
/// no two ids of one process are the same. One hash a process, not one a
/// record: a hook's start records one per rule it gives.
fn unique_id(time_ns: u64) -> String {
    static SEED: OnceLock<[u64; 2]> = OnceLock::new();
    let seed = SEED.get_or_init(|| {
        let mut h = Sha256::new();
        h.update(time_ns.to_le_bytes());
        h.update(std::process::id().to_le_bytes());
        let local = 0u8;
        h.update((&local as *const u8 as usize).to_le_bytes());
        if let Ok(host) = std::env::var("HOSTNAME") {
            h.update(host.as_bytes());
        }
        let d = h.finalize();
        let half = |at: usize| u64::from_le_bytes(d[at..at + 8].try_into().unwrap_or_default());
        [half(0), half(8)]
    });
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let (hi, lo) = (mix(seed[0] ^ n), mix(seed[1].wrapping_add(n)));
    let mut id = String::with_capacity(32);
    crate::base::fnv::push_hex16(&mut id, hi);
    crate::base::fnv::push_hex16(&mut id, lo);
    id
}

/// SplitMix64's finaliser: a bijection of `u64` that spreads every bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_ids_are_32_hex_digits_and_never_repeat_in_a_process() {
        let ids: std::collections::HashSet<String> =
            (0..10_000).map(|_| unique_id(now_ns())).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())));
    }
}
