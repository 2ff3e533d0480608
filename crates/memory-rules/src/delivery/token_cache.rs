//! The token counts the delivery log records, cached per rule version and
//! per line a stop gives (`tokens.json` beside the log): counting a rule's
//! tokens runs the real tokenizer ([`crate::delivery::tokens`]).

use crate::base::limits::MAX_CACHED_TOKEN_COUNTS;
use crate::rules::rule::Rule;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Token counts per rule version (`tokens.json` beside the log).
pub(crate) struct TokenCache {
    counts: BTreeMap<String, u64>,
    changed: bool,
}

impl TokenCache {
    fn path(dir: &Path) -> PathBuf {
        dir.join("tokens.json")
    }

    pub(crate) fn read(dir: &Path) -> TokenCache {
        let counts = File::open(Self::path(dir))
            .ok()
            .and_then(|f| {
                let mut bytes = Vec::new();
                // 64 bytes an entry is far more than one takes.
                f.take((MAX_CACHED_TOKEN_COUNTS * 64) as u64)
                    .read_to_end(&mut bytes)
                    .ok()?;
                serde_json::from_slice(&bytes).ok()
            })
            .unwrap_or_default();
        TokenCache {
            counts,
            changed: false,
        }
    }

    pub(crate) fn get(&mut self, version: &str, rule: &Rule) -> u64 {
        self.cached(version.to_string(), || {
            crate::delivery::tokens::rule_tokens(rule)
        })
    }

    /// The tokens of a line of text, cached by a hash of it.
    pub(crate) fn get_text(&mut self, text: &str) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        self.cached(format!("line:{h:016x}"), || {
            crate::delivery::tokens::count(text)
        })
    }

    fn cached(&mut self, key: String, count: impl FnOnce() -> usize) -> u64 {
        if let Some(&n) = self.counts.get(&key) {
            return n;
        }
        let n = count() as u64;
        if self.counts.len() >= MAX_CACHED_TOKEN_COUNTS {
            self.counts.clear();
        }
        self.counts.insert(key, n);
        self.changed = true;
        n
    }

    /// Saved when it changed; a failure (or a race with another writer)
    /// only means counting again later.
    pub(crate) fn save(&self, dir: &Path) {
        if self.changed {
            if let Ok(bytes) = serde_json::to_vec(&self.counts) {
                let _ = crate::base::fs::replace_fast(&Self::path(dir), &bytes);
            }
        }
    }
}
