//! The hooks' compiled-rules cache: a hook is a new process per event, so
//! the rules it parsed last time are kept in a small file, keyed by the
//! stamps (size, mtime in ns, inode, device) of every rule file found.
//!
//! Each run still walks the rules roots and stats every file (the core's
//! discovery, the same as `load`); when the list of files, their stamps and
//! the discovery's own diagnostics are what the cache recorded, the rules
//! come from the cache instead of being read and parsed again (their globs
//! are compiled again: that needs no file). A file whose mtime is within
//! [`RACY_WINDOW`] of the cache's scan may have changed within one timestamp
//! tick, so the cache is not trusted then (git's "racy" rule). Any trouble
//! with the cache file means a full load; the cache never changes a result.
//!
//! Only rule sets whose rules are all in the `.wave/rules` format are
//! cached: their globs compile from `paths` as written. Other formats match
//! a dialect's form of the pattern (a prefix, case folding), which the
//! compiled set does not give back; those projects load in full each time.

use crate::env::Env;
use memory_rules::context::Workdir;
use memory_rules::memory::atomic::replace_unsynced;
use memory_rules::parse::{ParsedRule, RulePattern};
use memory_rules::{
    discover, pattern, Activation, Diagnostic, Format, Metadata, Remind, Rule, RuleSet, Scope,
    Severity, Stamp, RACY_WINDOW,
};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// A cache file larger than this is ignored.
const MAX_CACHE_BYTES: u64 = 64 << 20;
const VERSION: u32 = 1;

/// The rules a hook works with, and one text per rule file that could not
/// be loaded (for the stderr line).
pub struct Rules {
    pub set: Arc<RuleSet>,
    pub broken: Vec<String>,
}

#[derive(Serialize, Deserialize, PartialEq, Eq, Debug)]
struct Cache {
    version: u32,
    /// Milliseconds since the epoch when the files were read.
    scanned_at_ms: u128,
    fingerprint: Vec<String>,
    broken: Vec<String>,
    rules: Vec<CachedRule>,
}

#[derive(Serialize, Deserialize, PartialEq, Eq, Debug)]
struct CachedRule {
    id: String,
    user: bool,
    file_path: PathBuf,
    content: String,
    paths: Option<Vec<String>>,
    priority: Option<i64>,
    topics: Option<Vec<String>>,
    description: Option<String>,
    every_turn: Option<bool>,
    /// `auto`, `on-request` or `manual`.
    activation: String,
    regex: Option<Vec<String>>,
    name: Option<String>,
    directory: Option<String>,
}

/// The rules of `env`'s roots, from the cache in `state_dir` when it holds
/// them for the files as they are now.
pub fn load(env: &Env, state_dir: &Path) -> Rules {
    let (fingerprint, newest) = fingerprint(env);
    let path = cache_path(env, state_dir);
    if let Some(cache) = read(&path) {
        let trusted = newest.is_some_and(|n| n + RACY_WINDOW.as_millis() < cache.scanned_at_ms);
        if cache.fingerprint == fingerprint && trusted {
            return Rules {
                set: Arc::new(build(env, &cache.rules)),
                broken: cache.broken,
            };
        }
    }
    let scanned_at_ms = now_ms();
    let loaded = env.load();
    let broken = broken_lines(&loaded.diagnostics, &env.config.workdir);
    if loaded
        .rules
        .rules()
        .iter()
        .any(|r| r.format != Format::Wave)
    {
        return Rules {
            set: loaded.rules,
            broken,
        };
    }
    let rules: Vec<CachedRule> = loaded.rules.rules().iter().map(to_cached).collect();
    let cache = Cache {
        version: VERSION,
        scanned_at_ms,
        fingerprint,
        broken: broken.clone(),
        rules,
    };
    if let Ok(bytes) = serde_json::to_vec(&cache) {
        if std::fs::create_dir_all(path.parent().unwrap_or(state_dir)).is_ok() {
            let _ = replace_unsynced(&path, &bytes);
        }
    }
    Rules {
        set: loaded.rules,
        broken,
    }
}

/// `<state dir>/rules/<hash of the workdir and the sources>.json`
fn cache_path(env: &Env, state_dir: &Path) -> PathBuf {
    let roots: Vec<String> = env
        .config
        .roots()
        .iter()
        .map(|r| format!("{:?}", r))
        .collect();
    let key = format!("{}\0{}", env.config.workdir.display(), roots.join("\0"));
    state_dir.join("rules").join(format!(
        "{}.json",
        super::state::file_key(&format!("roots:{key}"))
    ))
}

/// Every found rule file with its stamp, and the discovery's diagnostics;
/// and the newest mtime among them (ms), `None` when one could not be read.
fn fingerprint(env: &Env) -> (Vec<String>, Option<u128>) {
    let mut diagnostics = Vec::new();
    let mut out = Vec::new();
    let mut newest: Option<u128> = Some(0);
    for root in env.config.roots() {
        out.push(format!("root {}", root.dir.display()));
        for f in discover::find(&root, &mut diagnostics) {
            match Stamp::of(&f.path) {
                Some(stamp) => {
                    let mtime = stamp.mtime().duration_since(UNIX_EPOCH).ok();
                    newest = newest.and_then(|n| mtime.map(|d| n.max(d.as_millis())));
                    out.push(format!("{} {} {} {stamp}", f.scope, f.id, f.path.display()));
                }
                None => newest = None,
            }
        }
    }
    for d in diagnostics {
        out.push(format!(
            "diag {} {} {}",
            d.code.as_str(),
            d.file_path,
            d.message
        ));
    }
    (out, newest)
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

fn read(path: &Path) -> Option<Cache> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_CACHE_BYTES {
        return None;
    }
    let cache: Cache = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    (cache.version == VERSION).then_some(cache)
}

fn to_cached(r: &Rule) -> CachedRule {
    CachedRule {
        id: r.id.clone(),
        user: r.scope == Scope::User,
        file_path: r.file_path.clone(),
        content: r.content.clone(),
        paths: r.metadata.paths.clone(),
        priority: r.metadata.priority,
        topics: r.metadata.topics.clone(),
        description: r.metadata.description.clone(),
        every_turn: r.metadata.remind.map(|m| m == Remind::EveryTurn),
        activation: match r.metadata.activation {
            Activation::Auto => "auto",
            Activation::OnRequest => "on-request",
            Activation::Manual => "manual",
        }
        .to_string(),
        regex: r.metadata.regex.clone(),
        name: r.metadata.name.clone(),
        directory: r.metadata.directory.clone(),
    }
}

/// The rule set from cached rules: the patterns compiled again, as the
/// parser compiles them (a pattern that does not compile was reported and
/// ignored when the rule was parsed).
fn build(env: &Env, rules: &[CachedRule]) -> RuleSet {
    let parsed = rules
        .iter()
        .map(|c| {
            let metadata = Metadata {
                paths: c.paths.clone(),
                priority: c.priority,
                topics: c.topics.clone(),
                description: c.description.clone(),
                remind: c
                    .every_turn
                    .map(|e| if e { Remind::EveryTurn } else { Remind::Once }),
                activation: match c.activation.as_str() {
                    "on-request" => Activation::OnRequest,
                    "manual" => Activation::Manual,
                    _ => Activation::Auto,
                },
                regex: c.regex.clone(),
                name: c.name.clone(),
                directory: c.directory.clone(),
            };
            let patterns = metadata
                .paths
                .iter()
                .flatten()
                .enumerate()
                .filter_map(|(index, p)| {
                    pattern::compile(p)
                        .ok()
                        .map(|compiled| RulePattern { index, compiled })
                })
                .collect();
            let rule = Rule {
                id: c.id.clone(),
                scope: if c.user { Scope::User } else { Scope::Project },
                file_path: c.file_path.clone(),
                content: c.content.clone(),
                metadata,
                format: Format::Wave,
            };
            ParsedRule { rule, patterns }
        })
        .collect();
    RuleSet::build(parsed, Workdir::new(&env.config.workdir))
}

/// `file:line:col message` for every error (a rule file that was skipped).
fn broken_lines(diagnostics: &[Diagnostic], workdir: &Path) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let at = d
                .line
                .map(|l| {
                    format!(
                        ":{l}{}",
                        d.column.map(|c| format!(":{c}")).unwrap_or_default()
                    )
                })
                .unwrap_or_default();
            format!(
                "{}{at} {}",
                crate::display::show(Path::new(&d.file_path), workdir),
                d.message
            )
        })
        .collect()
}
