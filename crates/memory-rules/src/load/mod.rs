//! A discovery as a whole: every source found, read and parsed (or taken
//! from the previous discovery when a file's stamp is unchanged), the
//! overrides by id, the total topic limit, and the compiled rule set. This
//! is the one home of `load` and `reload`.

pub(crate) mod compact;
pub mod fold;
pub(crate) mod folder_stats;
pub mod fresh;
pub(crate) mod rule_index;
pub mod snapshot;
pub mod stamp;

use crate::base::diagnostic::{self, Code, Diagnostic, Severity};
use crate::base::limits;
use crate::base::workdir::Workdir;
use crate::load::snapshot::Snapshot;
use crate::rules::origin::{self, Origin};
use crate::rules::parser::ParsedRule;
use crate::rules::rule_format::Format;
use crate::rules::rule_set::RuleSet;
use crate::rules::scope::Scope;
use crate::sources::discover;
use crate::sources::packs;
use crate::sources::source::{Config, Source};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

/// The result of a discovery: the compiled rules, every diagnostic, and the
/// [`Snapshot`] that [`reload`] needs to skip unchanged files.
#[derive(Debug, Default)]
pub struct Loaded {
    pub rules: Arc<RuleSet>,
    pub diagnostics: Vec<Diagnostic>,
    snapshot: Snapshot,
    /// How many project walks the discovery ran (nested `AGENTS.md`,
    /// `CLAUDE.md`, `GEMINI.md`, `.cursor/rules`): one per project, however
    /// many of those sources are on.
    walks: usize,
    /// The project walks themselves (what an export looks for, too).
    trees: crate::sources::nested::Walks,
    /// Rules loaded from each source of the config (by index).
    per_source: Vec<usize>,
    /// The packs' and the policy's own diagnostics (a saved discovery
    /// compares them).
    layer_diagnostics: Vec<Diagnostic>,
    /// Every rules root and listed rules directory; `None` when a project
    /// tree was walked (see [`fresh`]).
    listed: Option<Vec<PathBuf>>,
    /// The config it ran with, as `Debug` prints it (see [`fresh`]).
    config: String,
}

impl Loaded {
    /// Every file read, with its stamp and parse outcome: what a later
    /// process needs to [`reload_from`] (see [`Snapshot::to_bytes`]).
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The discovery saved with the stamps of what it read, before its
    /// snapshot: what [`fresh::Restored::from_bytes`] checks and restores
    /// without a walk (see [`fresh`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>, snapshot::SnapshotError> {
        fresh::to_bytes(self)
    }

    /// How many times the discovery walked a project tree for nested rule
    /// files: once per project whatever sources read it, zero without any.
    pub fn walks(&self) -> usize {
        self.walks
    }

    /// What the discovery's walk of `root` found (every nested `AGENTS.md`,
    /// `CLAUDE.md`, `GEMINI.md`, `.cursor/rules`), if it walked it.
    pub fn tree(&self, root: &std::path::Path) -> Option<&crate::sources::nested::Tree> {
        self.trees.get(root)
    }

    /// How many of the loaded rules each source gave, by the source's index
    /// in the layered sources ([`crate::sources::packs::layers`]: the project's
    /// packs, the config's own sources, the policy's); a file of several
    /// rules counts each, a rule folded into another counts for the one
    /// kept, a disabled rule not at all.
    pub fn rules_per_source(&self) -> &[usize] {
        &self.per_source
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
    // The packs and the policy around the config's own sources.
    let layers = packs::layers(config);
    diagnostics.extend(layers.diagnostics.iter().cloned());
    let (found, walks) = discover_files(config, &layers, &mut diagnostics);
    let (found, replaced) =
        apply_overrides(found, &layers.sources, &config.workdir, &mut diagnostics);
    let fingerprint = layers_fingerprint(&layers);
    let refreshed = RefreshedFiles::new(&found, previous, config, &fingerprint);
    for entry in &refreshed.entries {
        diagnostics.extend(entry.diagnostics.iter().cloned());
    }
    let candidates = unique_rules(&refreshed.entries, &found, &mut diagnostics);
    let (parsed, per_source) = admit(candidates, &layers, &found, config, &mut diagnostics);
    name_packs(&layers, &mut diagnostics);
    diagnostic::sort(&mut diagnostics);
    let rules = match built {
        Some((rules, _)) if !refreshed.changed => Arc::clone(rules),
        // Only a rebuild needs the parsed rules themselves.
        _ => Arc::new(rule_set(parsed, &config.workdir, &replaced)),
    };
    let changed = refreshed.changed || built.is_some_and(|(_, d)| d != diagnostics.as_slice());
    Reloaded {
        loaded: Loaded {
            rules,
            diagnostics,
            snapshot: Snapshot {
                files: refreshed.files,
                scanned_at: Some(scanned_at),
                workdir: config.workdir.clone(),
                layers: fingerprint,
            },
            walks: walks.count,
            listed: (walks.count == 0).then(|| walks.listed.clone()),
            trees: walks,
            per_source,
            layer_diagnostics: layers.diagnostics.clone(),
            config: format!("{config:?}"),
        },
        changed,
        reparsed: refreshed.reparsed,
    }
}

/// Every rule file of every source (one walk per project, whichever nested
/// sources read it), and the near misses of the project's sources: what to
/// move where.
fn discover_files(
    config: &Config,
    layers: &packs::Layers,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<discover::RuleFile>, discover::Walks) {
    let mut found = Vec::new();
    let mut walks = discover::Walks::default();
    for root in crate::sources::source::roots_of(&layers.sources, config) {
        found.extend(discover::find_with(&root, &mut walks, diagnostics));
    }
    let mut project_formats: Vec<Format> = config
        .sources
        .iter()
        .filter(|s| s.scope == Scope::Project)
        .map(|s| s.format)
        .collect();
    project_formats.sort();
    project_formats.dedup();
    if config.workdir.is_dir() {
        diagnostics.extend(crate::formats::places::near_misses(
            &config.workdir,
            &project_formats,
        ));
    }
    (found, walks)
}

/// The found files' entries for this scan: unchanged ones shared from the
/// previous snapshot, the others read and parsed again.
struct RefreshedFiles {
    /// The entries by path: the next snapshot's files.
    files: FxHashMap<PathBuf, Arc<stamp::Cached>>,
    /// The entries in discovery order.
    entries: Vec<Arc<stamp::Cached>>,
    /// A file was added, removed or changed, or the workdir or the layers
    /// differ from the previous snapshot's.
    changed: bool,
    /// How many files were read and parsed again.
    reparsed: usize,
}

impl RefreshedFiles {
    fn new(
        found: &[discover::RuleFile],
        previous: &Snapshot,
        config: &Config,
        fingerprint: &str,
    ) -> RefreshedFiles {
        let mut out = RefreshedFiles {
            files: FxHashMap::with_capacity_and_hasher(found.len(), Default::default()),
            entries: Vec::with_capacity(found.len()),
            changed: previous.files.len() != found.len()
                || previous.workdir != config.workdir
                || previous.layers != fingerprint,
            reparsed: 0,
        };
        for f in found {
            let before = previous
                .files
                .get(&f.path)
                .map(|c| (c, previous.scanned_at));
            let (entry, same) = stamp::refresh(f, before, &mut out.reparsed);
            out.changed |= !same;
            out.files.insert(f.path.clone(), Arc::clone(&entry));
            out.entries.push(entry);
        }
        out
    }
}

/// The rules of the entries that are not overridden nor folded, each with
/// its entry's index: one real file is one rule, one text with one
/// activation is one rule (crate::load::fold), in discovery order.
fn unique_rules<'e>(
    entries: &'e [Arc<stamp::Cached>],
    found: &[discover::RuleFile],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(&'e ParsedRule, usize)> {
    // Files of several rules (rules.yaml) share a rule id space too: the
    // later source's rule wins.
    let kept = rule_overrides(entries, diagnostics);
    let candidates: Vec<(&ParsedRule, usize)> = entries
        .iter()
        .zip(&kept)
        .enumerate()
        .flat_map(|(i, (e, keep))| {
            e.rules
                .iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(move |(r, _)| (r, i))
        })
        .collect();
    let identities: Vec<(&crate::rules::rule::Rule, crate::load::fold::Identity)> = candidates
        .iter()
        .map(|&(r, i)| {
            (
                &r.rule,
                entries[i].identity_of(&found[i].path, &r.rule.file_path),
            )
        })
        .collect();
    let (unique, folded) = crate::load::fold::fold(&identities);
    diagnostics.extend(folded);
    candidates
        .into_iter()
        .zip(unique)
        .filter(|(_, u)| *u)
        .map(|(c, _)| c)
        .collect()
}

/// The rules that load, with their source, and how many each source gave:
/// a disabled rule is left out, and so is one past the total topic limit
/// (in discovery order; dropping only its topics would make it fire
/// always).
fn admit<'e, 'l>(
    candidates: Vec<(&'e ParsedRule, usize)>,
    layers: &'l packs::Layers,
    found: &[discover::RuleFile],
    config: &Config,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<(&'e ParsedRule, &'l Source)>, Vec<usize>) {
    let mut disables = Disables::new(layers);
    let mut topics = 0usize;
    let mut parsed = Vec::with_capacity(candidates.len());
    let mut per_source = vec![0usize; layers.sources.len()];
    for (rule, i) in candidates {
        let source = &layers.sources[found[i].source];
        if disables.removes(&rule.rule, source, &config.workdir, diagnostics) {
            continue;
        }
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
        if let Some(c) = per_source.get_mut(found[i].source) {
            *c += 1;
        }
        parsed.push((rule, source));
    }
    disables.report_unused(diagnostics);
    (parsed, per_source)
}

/// The rule set of the rules that load, each with its origin.
fn rule_set(
    parsed: Vec<(&ParsedRule, &Source)>,
    workdir: &Path,
    replaced: &HashMap<String, Vec<String>>,
) -> RuleSet {
    RuleSet::build(
        parsed
            .into_iter()
            .map(|(r, source)| {
                let mut r = r.clone();
                r.rule.origin = origin_of(&r.rule, source, workdir, replaced);
                r
            })
            .collect(),
        Workdir::new(workdir),
    )
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

/// Keeps, for each id, the rule of the last source that has it, unless an
/// earlier one is locked (a policy rule: the last locked one is kept); the
/// others are dropped with a diagnostic naming the rule that replaces them
/// (`locked`, a warning, when a rule tried to replace a locked one). Also
/// gives, per id, the provenance of every rule the kept one replaced.
fn apply_overrides(
    found: Vec<discover::RuleFile>,
    sources: &[Source],
    workdir: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<discover::RuleFile>, HashMap<String, Vec<String>>) {
    let mut winner: HashMap<&str, usize> = HashMap::with_capacity(found.len());
    let locked = |f: &discover::RuleFile| sources[f.source].layer.locked();
    for (i, f) in found.iter().enumerate() {
        match winner.get(f.id.as_str()) {
            Some(&w) if locked(&found[w]) && !locked(f) => {}
            _ => {
                winner.insert(f.id.as_str(), i);
            }
        }
    }
    let provenance_of = |f: &discover::RuleFile| {
        origin::provenance(&sources[f.source].layer, f.scope, &f.id, &f.path, workdir)
    };
    let mut replaced: HashMap<String, Vec<String>> = HashMap::new();
    let mut kept = Vec::with_capacity(winner.len());
    for (i, f) in found.iter().enumerate() {
        let w = winner[f.id.as_str()];
        if w != i {
            let by = &found[w];
            let (from, to) = (provenance_of(f), provenance_of(by));
            let d = if locked(by) && !locked(f) {
                Diagnostic::new(
                    Severity::Warning,
                    Code::Locked,
                    &f.path,
                    format!(
                        "{from} is not used: the policy rule {to} has the same id and is locked"
                    ),
                )
            } else {
                let layer = |x: &discover::RuleFile| sources[x.source].layer.kind(x.scope);
                Diagnostic::new(
                    Severity::Info,
                    Code::Overridden,
                    &f.path,
                    format!(
                        "{} rule '{}' ({from}) is overridden by the {} rule {to} (a later source with the same id)",
                        layer(f), f.id, layer(by)
                    ),
                )
            };
            diagnostics.push(d);
            replaced.entry(f.id.clone()).or_default().push(from);
            continue;
        }
        kept.push(f.clone());
    }
    (kept, replaced)
}

/// A rule's origin, from its source.
fn origin_of(
    rule: &crate::rules::rule::Rule,
    source: &Source,
    workdir: &Path,
    replaced: &HashMap<String, Vec<String>>,
) -> Origin {
    Origin {
        layer: source.layer.kind(rule.scope),
        pack: source.layer.pack().map(|p| p.label.clone()),
        locked: source.layer.locked(),
        provenance: origin::provenance(
            &source.layer,
            rule.scope,
            &rule.id,
            &rule.file_path,
            workdir,
        ),
        overrides: replaced.get(&rule.id).cloned().unwrap_or_default(),
    }
}

/// What identifies the layers in a snapshot: a change of a pack's version or
/// commit, or of the project's `disable`, rebuilds the rules even when no
/// file changed.
fn layers_fingerprint(layers: &packs::Layers) -> String {
    let mut out = String::new();
    for s in &layers.sources {
        if let Some(p) = s.layer.pack() {
            out.push_str(&format!("{}={}\n", s.dir.display(), p.label));
        } else if s.layer.locked() {
            out.push_str(&format!("{}=policy\n", s.dir.display()));
        }
    }
    for d in &layers.disable {
        out.push_str(&format!("disable={}\n", d.text));
    }
    out
}

/// Appends the pack's name to every diagnostic about a file of a pack.
fn name_packs(layers: &packs::Layers, diagnostics: &mut [Diagnostic]) {
    let mut roots: Vec<(&Path, &str)> = Vec::new();
    for s in &layers.sources {
        if let Some(p) = s.layer.pack() {
            if !roots.iter().any(|(r, _)| *r == p.root) {
                roots.push((&p.root, &p.label));
            }
        }
    }
    if roots.is_empty() {
        return;
    }
    for d in diagnostics.iter_mut() {
        let path = Path::new(&d.file_path);
        if let Some((_, label)) = roots.iter().find(|(r, _)| path.starts_with(r)) {
            if !d.message.contains(label) {
                d.message = format!("{} (pack {label})", d.message);
            }
        }
    }
}

/// The project's `[rules] disable`: which rules it removes, which it may
/// not (locked), and which names no rule had.
struct Disables<'l> {
    names: &'l [packs::Named],
    config: Option<&'l Path>,
    used: Vec<bool>,
}

impl<'l> Disables<'l> {
    fn new(layers: &'l packs::Layers) -> Self {
        Disables {
            names: &layers.disable,
            config: layers.config_path.as_deref(),
            used: vec![false; layers.disable.len()],
        }
    }

    /// Whether `rule` is disabled (an `info` says so); a disable of a locked
    /// rule is refused with a warning and the rule stays.
    fn removes(
        &mut self,
        rule: &crate::rules::rule::Rule,
        source: &Source,
        workdir: &Path,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> bool {
        if self.names.is_empty() {
            return false;
        }
        let pack = source.layer.pack().map(|p| p.name.as_str());
        let Some(i) = self.names.iter().position(|n| {
            n.text == rule.id
                || pack.is_some_and(|p| {
                    n.text.strip_prefix(p).and_then(|r| r.strip_prefix(':'))
                        == Some(rule.id.as_str())
                })
        }) else {
            return false;
        };
        self.used[i] = true;
        let n = &self.names[i];
        let config = self.config.unwrap_or(Path::new(".wave/config.toml"));
        let provenance = origin::provenance(
            &source.layer,
            rule.scope,
            &rule.id,
            &rule.file_path,
            workdir,
        );
        if source.layer.locked() {
            diagnostics.push(
                Diagnostic::new(
                    Severity::Warning,
                    Code::Locked,
                    config,
                    format!(
                        "disable '{}' is refused: {provenance} is a locked policy rule",
                        n.text
                    ),
                )
                .at(n.line, n.column),
            );
            return false;
        }
        diagnostics.push(
            Diagnostic::new(
                Severity::Info,
                Code::Disabled,
                config,
                format!("{provenance} is disabled (disable '{}')", n.text),
            )
            .at(n.line, n.column),
        );
        true
    }

    fn report_unused(&self, diagnostics: &mut Vec<Diagnostic>) {
        let config = self.config.unwrap_or(Path::new(".wave/config.toml"));
        for (n, used) in self.names.iter().zip(&self.used) {
            if !used {
                diagnostics.push(
                    Diagnostic::new(
                        Severity::Warning,
                        Code::InvalidConfig,
                        config,
                        format!("disable '{}' names no rule; nothing is disabled", n.text),
                    )
                    .at(n.line, n.column),
                );
            }
        }
    }
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
        let found: Vec<discover::RuleFile> = if meta.is_dir() {
            let like = config.source_of(path);
            let guessed = Format::guess(&path.join("x"));
            let source = Source {
                dir: path.clone(),
                scope: Scope::Project,
                format: like.map_or(guessed, |s| s.format),
                depth: like.map_or_else(|| guessed.default_depth(), |s| s.depth),
                layer: like.map_or_else(Default::default, |s| s.layer.clone()),
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
            vec![discover::RuleFile::file(
                path,
                format,
                &config.workdir,
                &config.allow_dirs,
            )]
        };
        for f in &found {
            rules += discover::load_file(f, &mut diagnostics).len();
        }
    }
    diagnostic::sort(&mut diagnostics);
    Ok((diagnostics, rules))
}

/// Checks one rule file's text as an editor holds it (perhaps unsaved):
/// the diagnostics `validate PATH` gives for that file on disk, and its
/// rules as a set of their own (to ask which files they match), without
/// reading the file (its `@` imports are read). The size
/// limit applies as to a read; a panic while parsing is an `internal`
/// diagnostic.
pub fn check_text(config: &Config, path: &Path, text: &str) -> (Vec<Diagnostic>, RuleSet) {
    if text.len() as u64 > limits::MAX_RULE_BYTES {
        let d = Diagnostic::new(
            Severity::Error,
            Code::TooLarge,
            path,
            format!(
                "file is {} bytes, over the {}-byte limit for a rule; not loaded",
                text.len(),
                limits::MAX_RULE_BYTES
            ),
        );
        return (vec![d], RuleSet::default());
    }
    let format = config
        .source_of(path)
        .map_or_else(|| Format::guess(path), |s| s.format);
    let found = discover::RuleFile::file(path, format, &config.workdir, &config.allow_dirs);
    let parsed = discover::parse_text(&found, text);
    let mut diagnostics = parsed.diagnostics;
    diagnostic::sort(&mut diagnostics);
    let set = RuleSet::build(parsed.rules, Workdir::new(&config.workdir));
    (diagnostics, set)
}
