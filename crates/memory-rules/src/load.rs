//! A discovery as a whole: every source found, read and parsed (or taken
//! from the previous discovery when a file's stamp is unchanged), the
//! overrides by id, the total topic limit, and the compiled rule set. This
//! is the one home of `load` and `reload`.

use crate::context::Workdir;
use crate::diagnostic::{self, Code, Diagnostic, Severity};
use crate::discover;
use crate::format::Format;
use crate::limits;
use crate::ruleset::RuleSet;
use crate::scope::Scope;
use crate::snapshot::Snapshot;
use crate::source::{Config, Source};
use crate::stamp;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// The result of a discovery: the compiled rules, every diagnostic, and the
/// [`Snapshot`] that [`reload`] needs to skip unchanged files.
#[derive(Debug, Default)]
pub struct Loaded {
    pub rules: Arc<RuleSet>,
    pub diagnostics: Vec<Diagnostic>,
    snapshot: Snapshot,
}

impl Loaded {
    /// Every file read, with its stamp and parse outcome: what a later
    /// process needs to [`reload_from`] (see [`Snapshot::to_bytes`]).
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }
}

/// The result of [`reload`] and [`reload_from`].
#[derive(Debug)]
pub struct Reloaded {
    pub loaded: Loaded,
    /// The rules or the diagnostics differ from the previous discovery (from
    /// a snapshot, which has no diagnostics: a file was added, removed or
    /// read with other content).
    pub changed: bool,
    /// How many files were read and parsed again.
    pub reparsed: usize,
}

/// Discovers, parses and compiles every rule of every source. Never fails:
/// whatever cannot be used is a diagnostic, and the rest still loads.
pub fn load(config: &Config) -> Loaded {
    scan(config, &Snapshot::default(), None).loaded
}

/// Discovers again, re-reading and re-parsing only the files whose (size,
/// mtime, inode, device) changed, or whose mtime is too close to the previous
/// scan to be trusted (git's "racy" rule). The compiled rule set is rebuilt
/// only if a rule changed; otherwise the same `Arc<RuleSet>` is kept.
/// The config may differ from the previous one (another home, other
/// sources): files are matched by path.
pub fn reload(config: &Config, previous: &Loaded) -> Reloaded {
    scan(
        config,
        &previous.snapshot,
        Some((&previous.rules, &previous.diagnostics)),
    )
}

/// [`reload`] from a restored [`Snapshot`] (another process's discovery):
/// only the files whose stamp changed since are read and parsed; the rule
/// set is compiled from the rest as saved.
pub fn reload_from(config: &Config, snapshot: &Snapshot) -> Reloaded {
    scan(config, snapshot, None)
}

/// The discovery; `built` is the previous discovery's rule set and
/// diagnostics, kept when nothing changed.
fn scan(
    config: &Config,
    previous: &Snapshot,
    built: Option<(&Arc<RuleSet>, &[Diagnostic])>,
) -> Reloaded {
    let scanned_at = SystemTime::now();
    let mut diagnostics = Vec::new();
    if !config.workdir.is_dir() {
        // The CLI refuses such a workdir; the library says why it has no
        // project rules instead of quietly finding none.
        diagnostics.push(Diagnostic::new(
            Severity::Error,
            Code::Unreadable,
            &config.workdir,
            "the workdir does not exist or is not a directory: no project rules are read",
        ));
    }
    let mut found = Vec::new();
    for root in config.roots() {
        found.extend(discover::find(&root, &mut diagnostics));
    }
    let found = apply_overrides(found, &mut diagnostics);
    let mut files = HashMap::with_capacity(found.len());
    let mut entries = Vec::with_capacity(found.len());
    let mut files_changed =
        previous.files.len() != found.len() || previous.workdir != config.workdir;
    let mut reparsed = 0;
    for f in &found {
        let before = previous
            .files
            .get(&f.path)
            .map(|c| (c, previous.scanned_at));
        let (entry, same) = stamp::refresh(f, before, &mut reparsed);
        files_changed |= !same;
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
    let rules = match built {
        Some((rules, _)) if !files_changed => Arc::clone(rules),
        // Only a rebuild needs the parsed rules themselves.
        _ => Arc::new(RuleSet::build(
            parsed.into_iter().cloned().collect(),
            Workdir::new(&config.workdir),
        )),
    };
    let changed = files_changed || built.is_some_and(|(_, d)| d != diagnostics.as_slice());
    Reloaded {
        loaded: Loaded {
            rules,
            diagnostics,
            snapshot: Snapshot {
                files,
                scanned_at: Some(scanned_at),
                workdir: config.workdir.clone(),
            },
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

/// Checks only the given files (whatever their extension) and directories
/// (as rules roots: those of a configured source as that source says, others
/// in the format their path suggests, such as `.cursor/rules` or
/// `*.instructions.md`, else as `.wave/rules`: `*.md`, one level deep), as
/// `validate PATH...` does: every diagnostic, sorted, and how many rules
/// loaded. A path that cannot be read is the error, with the path.
pub fn check_paths(
    config: &Config,
    paths: &[PathBuf],
) -> Result<(Vec<Diagnostic>, usize), (PathBuf, std::io::Error)> {
    let mut diagnostics = Vec::new();
    let mut rules = 0;
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| (path.clone(), e))?;
        let found: Vec<discover::Found> = if meta.is_dir() {
            let like = config.source_of(path);
            let guessed = Format::guess(&path.join("x"));
            let source = Source {
                dir: path.clone(),
                scope: Scope::Project,
                format: like.map_or(guessed, |s| s.format),
                depth: like.map_or_else(|| guessed.default_depth(), |s| s.depth),
            };
            let root = discover::Root {
                allow: config.allow_dirs.clone(),
                ..source.root(&config.workdir)
            };
            discover::find(&root, &mut diagnostics)
        } else {
            let format = config
                .source_of(path)
                .map_or_else(|| Format::guess(path), |s| s.format);
            let id = format.id(&path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default());
            vec![discover::Found {
                scope: Scope::Project,
                format,
                source: 0,
                id,
                path: path.clone(),
            }]
        };
        for f in &found {
            rules += discover::load_file(f, &mut diagnostics).len();
        }
    }
    diagnostic::sort(&mut diagnostics);
    Ok((diagnostics, rules))
}
