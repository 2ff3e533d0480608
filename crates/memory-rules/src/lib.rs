//! The memory-rules engine: discover rule files, parse their frontmatter,
//! compile their triggers once, and answer "which rules are active" per
//! message.
//!
//! Rules are Markdown files with YAML frontmatter read from an ordered list
//! of [`Source`]s (a [`Config`]); by default the agent SDK's four:
//! `~/.claude/rules`, `~/.wave/rules`, `<workdir>/.claude/rules`,
//! `<workdir>/.wave/rules`, later ones overriding earlier ones by id. A rule
//! without `paths` or `topics` is always active; `paths` (minimatch globs with
//! `{dot: true}`) activate it when any file in context matches; `topics`
//! activate it when a keyword starts a word of the prompt. Data flows one way:
//! [`discover`] -> [`parse`] -> [`RuleSet`] -> [`RuleSet::active`].
//!
//! ```
//! use memory_rules::{load, Config};
//! let dir = tempfile::tempdir()?;
//! let rules = dir.path().join(".wave/rules");
//! std::fs::create_dir_all(&rules)?;
//! std::fs::write(rules.join("ts.md"), "---\npaths: src/**/*.ts\n---\nUse strict TypeScript.")?;
//! std::fs::write(rules.join("sql.md"), "---\ntopics: [sql]\n---\nNo SELECT *.")?;
//!
//! let loaded = load(&Config::with_home(dir.path(), dir.path().join("no-home")));
//! let set = &loaded.rules;
//! let ids = |idx: Vec<usize>| idx.into_iter().map(|i| set.rules()[i].id.clone()).collect::<Vec<_>>();
//! assert_eq!(ids(set.active(&["src/app/main.ts"], None)), ["ts.md"]);
//! assert_eq!(ids(set.active(&["README.md"], Some("Write the SQL query"))), ["sql.md"]);
//! assert!(loaded.diagnostics.is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod context;
pub mod diagnostic;
pub mod discover;
pub mod format;
pub mod formats;
pub mod frontmatter;
mod globindex;
pub mod limits;
pub mod memory;
pub mod parse;
pub mod pattern;
pub mod read_rule;
pub mod render;
pub mod rule;
pub mod ruleset;
pub mod scope;
pub mod slug;
pub mod source;
mod stamp;
pub use stamp::{Stamp, RACY_WINDOW};
pub mod topics;

pub use diagnostic::{Code, Diagnostic, Severity};
pub use format::{formats_named, Format, DEFAULT_SOURCE_NAMES};
pub use rule::{Activation, Metadata, Remind, Rule, Scope};
pub use ruleset::{Excluded, Explanation, Reason, RuleSet};
pub use source::{Config, Source};

use context::Workdir;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// The result of a discovery: the compiled rules, every diagnostic, and what
/// [`reload`] needs to skip unchanged files.
#[derive(Debug, Default)]
pub struct Loaded {
    pub rules: Arc<RuleSet>,
    pub diagnostics: Vec<Diagnostic>,
    files: HashMap<PathBuf, Arc<stamp::Cached>>,
    scanned_at: Option<SystemTime>,
    /// The workdir the rule set was built for (context paths are relative to it).
    workdir: PathBuf,
}

/// The result of [`reload`].
#[derive(Debug)]
pub struct Reloaded {
    pub loaded: Loaded,
    /// The rules or the diagnostics differ from the previous discovery.
    pub changed: bool,
    /// How many files were read and parsed again.
    pub reparsed: usize,
}

/// Discovers, parses and compiles every rule of every source. Never fails:
/// whatever cannot be used is a diagnostic, and the rest still loads.
pub fn load(config: &Config) -> Loaded {
    scan(config, None).loaded
}

/// Discovers again, re-reading and re-parsing only the files whose (size,
/// mtime, inode, device) changed, or whose mtime is too close to the previous
/// scan to be trusted (git's "racy" rule). The compiled rule set is rebuilt
/// only if a rule changed; otherwise the same `Arc<RuleSet>` is kept.
/// The config may differ from the previous one (another home, other
/// sources): files are matched by path.
pub fn reload(config: &Config, previous: &Loaded) -> Reloaded {
    scan(config, Some(previous))
}

fn scan(config: &Config, previous: Option<&Loaded>) -> Reloaded {
    let scanned_at = SystemTime::now();
    let mut diagnostics = Vec::new();
    let mut found = Vec::new();
    for root in config.roots() {
        found.extend(discover::find(&root, &mut diagnostics));
    }
    let found = apply_overrides(found, &mut diagnostics);
    let mut files = HashMap::with_capacity(found.len());
    let mut entries = Vec::with_capacity(found.len());
    let mut rules_changed =
        previous.is_none_or(|p| p.files.len() != found.len() || p.workdir != config.workdir);
    let mut reparsed = 0;
    for f in &found {
        let before = previous.and_then(|p| p.files.get(&f.path).map(|c| (c, p.scanned_at)));
        let (entry, same) = stamp::refresh(f, before, &mut reparsed);
        rules_changed |= !same;
        diagnostics.extend(entry.diagnostics.iter().cloned());
        files.insert(f.path.clone(), Arc::clone(&entry));
        entries.push(entry);
    }
    // Files of several rules (rules.yaml) share a rule id space too: the
    // later source's rule wins.
    let kept = rule_overrides(&entries, &mut diagnostics);
    // The total topic limit, in discovery order: a rule that would pass it is
    // not loaded (dropping only its topics would make it fire always).
    let mut topics = 0usize;
    let mut parsed = Vec::with_capacity(entries.len());
    for rule in entries.iter().zip(&kept).flat_map(|(e, keep)| {
        e.rules
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(r, _)| r)
    }) {
        let n = rule.rule.metadata.topics.as_ref().map_or(0, Vec::len);
        if topics + n > limits::MAX_TOPICS_TOTAL {
            diagnostics.push(Diagnostic::new(
                Severity::Error,
                Code::Limit,
                &rule.rule.file_path,
                format!(
                    "the rules have more than {} topics in total (limit); this rule is not loaded",
                    limits::MAX_TOPICS_TOTAL
                ),
            ));
            continue;
        }
        topics += n;
        parsed.push(rule);
    }
    diagnostic::sort(&mut diagnostics);
    let rules = match previous {
        Some(p) if !rules_changed => p.rules.clone(),
        // Only a rebuild needs the parsed rules themselves.
        _ => Arc::new(RuleSet::build(
            parsed.into_iter().cloned().collect(),
            Workdir::new(&config.workdir),
        )),
    };
    let changed = rules_changed || previous.is_none_or(|p| p.diagnostics != diagnostics);
    Reloaded {
        loaded: Loaded {
            rules,
            diagnostics,
            files,
            scanned_at: Some(scanned_at),
            workdir: config.workdir.clone(),
        },
        changed,
        reparsed,
    }
}

/// For each entry's rules, whether it is kept: a rule whose id a later
/// entry also has is dropped, with an `info` (files already are by id, so
/// this only concerns files of several rules).
fn rule_overrides(
    entries: &[Arc<stamp::Cached>],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Vec<bool>> {
    let mut last: HashMap<&str, (usize, usize)> = HashMap::new();
    for (e, entry) in entries.iter().enumerate() {
        for (r, rule) in entry.rules.iter().enumerate() {
            last.insert(rule.rule.id.as_str(), (e, r));
        }
    }
    let mut kept = Vec::with_capacity(entries.len());
    for (e, entry) in entries.iter().enumerate() {
        let mut keep = Vec::with_capacity(entry.rules.len());
        for (r, rule) in entry.rules.iter().enumerate() {
            let (we, wr) = last[rule.rule.id.as_str()];
            let wins = (we, wr) == (e, r);
            if !wins {
                let by = &entries[we].rules[wr].rule;
                diagnostics.push(Diagnostic::new(
                    Severity::Info,
                    Code::Overridden,
                    &rule.rule.file_path,
                    format!(
                        "{} rule '{}' is overridden by the {} rule of the same id in {}",
                        rule.rule.scope,
                        rule.rule.id,
                        by.scope,
                        by.file_path.display()
                    ),
                ));
            }
            keep.push(wins);
        }
        kept.push(keep);
    }
    kept
}

/// Keeps, for each id, the rule of the last source that has it; the others
/// are dropped with an `info` naming the rule that replaces them.
fn apply_overrides(
    found: Vec<discover::Found>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<discover::Found> {
    let mut winner: HashMap<&str, usize> = HashMap::with_capacity(found.len());
    for (i, f) in found.iter().enumerate() {
        winner.insert(f.id.as_str(), i);
    }
    let mut kept = Vec::with_capacity(winner.len());
    for (i, f) in found.iter().enumerate() {
        let w = winner[f.id.as_str()];
        if w != i {
            let by = &found[w];
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::Overridden,
                &f.path,
                format!("{} rule '{}' is overridden by the {} rule {} (a later source with the same id)", f.scope, f.id, by.scope, by.path.display()),
            ));
            continue;
        }
        kept.push(f.clone());
    }
    kept
}
