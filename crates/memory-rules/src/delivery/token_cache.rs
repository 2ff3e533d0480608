//! The token counts the delivery log records, cached per rule version and
//! per line a stop gives (`tokens.bin` beside the log): counting a rule's
//! tokens runs the real tokenizer ([`crate::delivery::tokens`]).
//!
//! The file is read on every event that gives a rule, so it is looked up
//! where it lies, never parsed: records of 12 bytes (a key, 8 bytes, and
//! its count, 4, little-endian), sorted by key, searched by halves. A rule
//! version's key is its [`rule_version`](crate::delivery::session::rule_version)
//! hash; a line's, the same hash of its text with [`LINE_KEY`] mixed in.
//! A file that is not such records is taken as empty (counted again).

use crate::base::fnv::fnv1a;
use crate::base::limits::MAX_CACHED_TOKEN_COUNTS;
use crate::rules::rule::Rule;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One record's bytes.
const RECORD: usize = 12;
/// Mixed into a line's hash, so that a line and a rule version never share
/// a key by construction.
const LINE_KEY: u64 = 0x6c69_6e65_3a00_0000;

/// Token counts per rule version and per line.
pub(crate) struct TokenCache {
    /// The file's records as read (empty when they were not valid).
    saved: Vec<u8>,
    /// Counts made by this process, not in `saved`.
    added: BTreeMap<u64, u32>,
}

impl TokenCache {
    fn path(dir: &Path) -> PathBuf {
        dir.join("tokens.bin")
    }

    pub(crate) fn read(dir: &Path) -> TokenCache {
        let mut saved = Vec::new();
        if let Ok(f) = File::open(Self::path(dir)) {
            let most = (MAX_CACHED_TOKEN_COUNTS * RECORD) as u64;
            if f.take(most + 1).read_to_end(&mut saved).is_err() || !valid(&saved) {
                saved.clear();
            }
        }
        TokenCache {
            saved,
            added: BTreeMap::new(),
        }
    }

    pub(crate) fn get(&mut self, version: &str, rule: &Rule) -> u64 {
        let key = u64::from_str_radix(version, 16)
            .unwrap_or_else(|_| fnv1a(version.as_bytes()) ^ LINE_KEY);
        self.cached(key, || crate::delivery::tokens::rule_tokens(rule))
    }

    /// The tokens of a line of text, cached by a hash of it.
    pub(crate) fn get_text(&mut self, text: &str) -> u64 {
        self.cached(fnv1a(text.as_bytes()) ^ LINE_KEY, || {
            crate::delivery::tokens::count(text)
        })
    }

    fn cached(&mut self, key: u64, count: impl FnOnce() -> usize) -> u64 {
        if let Some(n) = self.added.get(&key).copied().or_else(|| self.lookup(key)) {
            return u64::from(n);
        }
        let n = u32::try_from(count()).unwrap_or(u32::MAX);
        self.added.insert(key, n);
        u64::from(n)
    }

    /// `key`'s count in the saved records.
    fn lookup(&self, key: u64) -> Option<u32> {
        let (mut lo, mut hi) = (0, self.saved.len() / RECORD);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (k, n) = record(&self.saved, mid);
            match k.cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(n),
            }
        }
        None
    }

    /// Saved when this process counted something; past
    /// [`MAX_CACHED_TOKEN_COUNTS`] the cache starts afresh. A failure (or a
    /// race with another writer) only means counting again later.
    pub(crate) fn save(&self, dir: &Path) {
        if self.added.is_empty() {
            return;
        }
        let mut all: BTreeMap<u64, u32> = (0..self.saved.len() / RECORD)
            .map(|i| record(&self.saved, i))
            .collect();
        if all.len() + self.added.len() > MAX_CACHED_TOKEN_COUNTS {
            all.clear();
        }
        all.extend(&self.added);
        let mut bytes = Vec::with_capacity(all.len() * RECORD);
        for (k, n) in all {
            bytes.extend_from_slice(&k.to_le_bytes());
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        let _ = crate::base::fs::replace_fast(&Self::path(dir), &bytes);
    }
}

/// Record `i` of `bytes`: its key and count.
fn record(bytes: &[u8], i: usize) -> (u64, u32) {
    let r = &bytes[i * RECORD..(i + 1) * RECORD];
    let key = u64::from_le_bytes(r[..8].try_into().unwrap_or_default());
    let n = u32::from_le_bytes(r[8..].try_into().unwrap_or_default());
    (key, n)
}

/// Whether `bytes` are whole records, within the limit, keys ascending.
fn valid(bytes: &[u8]) -> bool {
    let n = bytes.len() / RECORD;
    bytes.len().is_multiple_of(RECORD)
        && n <= MAX_CACHED_TOKEN_COUNTS
        && (1..n).all(|i| record(bytes, i - 1).0 < record(bytes, i).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_saved_looked_up_again_and_a_damaged_file_is_counted_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = TokenCache::read(dir.path());
        let mut counted = 0;
        let mut count = |n| {
            counted += 1;
            n
        };
        assert_eq!(cache.cached(7, || count(3)), 3);
        assert_eq!(cache.cached(2, || count(5)), 5);
        assert_eq!(cache.cached(7, || count(99)), 3, "counted once");
        cache.save(dir.path());
        let mut again = TokenCache::read(dir.path());
        assert_eq!(again.lookup(2), Some(5));
        assert_eq!(again.lookup(7), Some(3));
        assert_eq!(again.lookup(8), None);
        assert_eq!(again.get_text("a line"), again.get_text("a line"));
        assert_eq!(counted, 2);
        // Keys out of order, or a torn record: empty.
        let path = TokenCache::path(dir.path());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.rotate_left(RECORD);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(TokenCache::read(dir.path()).lookup(2), None);
        std::fs::write(&path, &bytes[..RECORD + 1]).unwrap();
        assert_eq!(TokenCache::read(dir.path()).lookup(7), None);
    }

    #[test]
    fn past_its_limit_the_cache_starts_afresh_with_the_new_counts() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = TokenCache::read(dir.path());
        for k in 0..MAX_CACHED_TOKEN_COUNTS as u64 {
            cache.cached(k, || 1);
        }
        cache.save(dir.path());
        let mut full = TokenCache::read(dir.path());
        assert_eq!(full.lookup(5), Some(1));
        full.cached(u64::MAX, || 2);
        full.save(dir.path());
        let fresh = TokenCache::read(dir.path());
        assert_eq!(fresh.lookup(u64::MAX), Some(2));
        assert_eq!(fresh.lookup(5), None);
    }
}
