//! What a discovery read, in a form that outlives the process: every rule
//! file found, with its stamp (size, mtime, inode, device), the hash of its
//! text and what parsing it gave (rules and diagnostics), plus when and for
//! which workdir the files were scanned.
//!
//! [`reload`](crate::load::reload) needs exactly this of a previous discovery, so
//! a process that starts afresh for every event (a hook) saves the snapshot
//! ([`Snapshot::to_bytes`]), restores it next time
//! ([`Snapshot::from_bytes`]) and reloads from it
//! ([`reload_from`](crate::load::reload_from)): only the files whose stamp changed
//! are read and parsed again, whatever their format. Each rule's compiled
//! patterns are saved too (the globs and regexes `glob_compile` made of its
//! `paths`), so a restored rule compiles nothing: the rule set builds its
//! matchers from them when an event first needs them. A change to what the
//! pattern compiler makes of a pattern bumps [`VERSION`].

use crate::load::stamp::Cached;
use crate::matchers::glob_compile::{CompiledPattern, Matcher};
use crate::rules::parser::{ParsedRule, RulePattern};
use crate::rules::rule::Rule;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// The saved form's version: a snapshot of another version is refused.
/// 2: rules carry `skills` (a file parsed before that key existed is
/// parsed again). 3: the layers (packs, policy) the rules were assembled
/// with. 4: files carry the stamps of their `@path` imports, and
/// `CLAUDE.md` / `GEMINI.md` are read as memory files. 5: `enforce`,
/// `commands`, `summary`. 6: the compiled patterns are saved (restoring
/// compiles nothing). 7: the hooks' file puts the rule set and the stamps
/// of every input before the snapshot (crate::load::fresh). (8 was a
/// layout tried and reverted.) 9: the check keeps the inputs' paths and
/// stamps as two strings, and the rule set's rules are postcard
/// (crate::load::compact). 10: the inputs' paths and stamps (in bytes)
/// follow the rules and the diagnostics, outside the check. 11: the rules
/// start with an index (each rule's sole trigger and length), so that a
/// hook restores only the rules its event can activate. 12: the index
/// keeps a path-only rule's keys (crate::matchers::path_key), so that a
/// file's event restores only the path rules its files may match. 13:
/// the index keeps each rule's format, so that telemetry counts the rules
/// loaded without restoring them, and each topic-only rule's topics as the
/// topic matcher looks them up (folded and marked), so that a prompt
/// neither folds them nor builds a matcher to choose its rules.
pub(crate) const VERSION: u32 = 13;

/// Every file of a discovery with its stamp and parse outcome (see the
/// module documentation).
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// By path (FxHash: a hook looks every rule file up here).
    pub(crate) files: FxHashMap<PathBuf, Arc<Cached>>,
    pub(crate) scanned_at: Option<SystemTime>,
    /// The workdir the rules were parsed for (context paths are relative to it).
    pub(crate) workdir: PathBuf,
    /// The packs and policy the rules were assembled with (their labels and
    /// the project's `disable`): when they differ, the rules are rebuilt.
    pub(crate) layers: String,
}

/// Why a snapshot cannot be saved or restored: what is wrong, with the
/// rule and pattern when one is. The caller keeps no snapshot, or loads
/// afresh.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The snapshot cannot be written as JSON (a path that is not UTF-8).
    #[error("the rules snapshot cannot be saved: {source}")]
    Save {
        #[source]
        source: serde_json::Error,
    },
    /// Truncated, damaged or foreign bytes.
    #[error("not a rules snapshot: {source}")]
    NotASnapshot {
        #[source]
        source: serde_json::Error,
    },
    /// A snapshot of another [`VERSION`].
    #[error("a rules snapshot of version {version}, not {VERSION}")]
    Version { version: u32 },
    /// A saved rule names a pattern index its `paths` do not have.
    #[error("rules snapshot: rule '{rule}' has no pattern {index}")]
    NoPattern { rule: String, index: usize },
}

#[derive(Serialize, Deserialize)]
struct Saved {
    version: u32,
    scanned_at: Option<SystemTime>,
    workdir: PathBuf,
    #[serde(default)]
    layers: String,
    files: Vec<SavedFile>,
}

#[derive(Serialize, Deserialize)]
struct SavedFile {
    path: PathBuf,
    entry: Cached<SavedRule>,
}

/// A parsed rule with what its `paths` that compiled were compiled to.
#[derive(Serialize, Deserialize)]
pub(crate) struct SavedRule {
    pub(crate) rule: Rule,
    pub(crate) compiled: Vec<SavedPattern>,
}

impl SavedRule {
    /// A rule with its compiled patterns, saved.
    pub(crate) fn of(rule: &Rule, patterns: &[RulePattern]) -> SavedRule {
        SavedRule {
            rule: rule.clone(),
            compiled: patterns.iter().map(SavedPattern::of).collect(),
        }
    }
}

/// One compiled pattern: its index in `metadata.paths`, whether it
/// excludes, and its matchers.
#[derive(Serialize, Deserialize)]
pub(crate) struct SavedPattern {
    index: usize,
    negated: bool,
    matchers: Vec<SavedMatcher>,
}

/// A [`Matcher`], saved.
#[derive(Serialize, Deserialize)]
enum SavedMatcher {
    Glob(Box<str>),
    Regex(String),
}

impl Snapshot {
    /// How many rule files it holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether it holds no file (a snapshot of nothing found, or none yet).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The saved form (JSON). A path that is not UTF-8 cannot be saved:
    /// the error says so, and the caller simply keeps no snapshot.
    pub fn to_bytes(&self) -> Result<Vec<u8>, SnapshotError> {
        let mut files: Vec<SavedFile> = self
            .files
            .iter()
            .map(|(path, entry)| SavedFile {
                path: path.clone(),
                entry: entry.map_rules(|p| SavedRule::of(&p.rule, &p.patterns)),
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let saved = Saved {
            version: VERSION,
            scanned_at: self.scanned_at,
            workdir: self.workdir.clone(),
            layers: self.layers.clone(),
            files,
        };
        serde_json::to_vec(&saved).map_err(|source| SnapshotError::Save { source })
    }

    /// A snapshot from its saved form; an error for anything else (another
    /// version, a truncated or foreign file). The patterns that compiled
    /// when a rule was parsed are compiled again; one that no longer
    /// compiles (a newer engine) makes the whole snapshot unusable, so the
    /// caller loads afresh instead.
    pub fn from_bytes(bytes: &[u8]) -> Result<Snapshot, SnapshotError> {
        let saved: Saved = serde_json::from_slice(bytes)
            .map_err(|source| SnapshotError::NotASnapshot { source })?;
        if saved.version != VERSION {
            return Err(SnapshotError::Version {
                version: saved.version,
            });
        }
        let mut files = FxHashMap::with_capacity_and_hasher(saved.files.len(), Default::default());
        for f in saved.files {
            let entry = f.entry.try_map_rules(restore_rule)?;
            files.insert(f.path, Arc::new(entry));
        }
        Ok(Snapshot {
            files,
            scanned_at: saved.scanned_at,
            workdir: saved.workdir,
            layers: saved.layers,
        })
    }
}

impl SavedPattern {
    fn of(p: &RulePattern) -> SavedPattern {
        SavedPattern {
            index: p.index,
            negated: p.compiled.negated,
            matchers: p
                .compiled
                .matchers
                .iter()
                .map(|m| match m {
                    Matcher::Glob(g) => SavedMatcher::Glob(g.clone()),
                    Matcher::Regex(r) => SavedMatcher::Regex(r.clone()),
                })
                .collect(),
        }
    }
}

impl SavedRule {
    /// The globset texts of its patterns that include (not `!`); `None`
    /// when one of them is matched by a regex.
    pub(crate) fn positive_globs(&self) -> Option<Vec<&str>> {
        let mut globs = Vec::new();
        for p in self.compiled.iter().filter(|p| !p.negated) {
            for m in &p.matchers {
                match m {
                    SavedMatcher::Glob(g) => globs.push(&**g),
                    SavedMatcher::Regex(_) => return None,
                }
            }
        }
        Some(globs)
    }
}

/// A saved rule with its compiled patterns as saved (each names a pattern
/// its `paths` has).
pub(crate) fn restore_rule(saved: SavedRule) -> Result<ParsedRule, SnapshotError> {
    let paths = saved.rule.metadata.paths.as_deref().unwrap_or_default();
    let mut patterns = Vec::with_capacity(saved.compiled.len());
    for p in saved.compiled {
        if p.index >= paths.len() {
            return Err(SnapshotError::NoPattern {
                rule: saved.rule.id.clone(),
                index: p.index,
            });
        }
        let matchers = p
            .matchers
            .into_iter()
            .map(|m| match m {
                SavedMatcher::Glob(g) => Matcher::Glob(g),
                SavedMatcher::Regex(r) => Matcher::Regex(r),
            })
            .collect();
        patterns.push(RulePattern {
            index: p.index,
            compiled: CompiledPattern {
                negated: p.negated,
                matchers,
            },
        });
    }
    Ok(ParsedRule {
        rule: saved.rule,
        patterns,
    })
}
