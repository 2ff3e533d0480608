//! The memory-rules engine: discover rule files, parse their frontmatter,
//! compile their triggers once, and answer "which rules are active" per
//! message.
//!
//! Rules are Markdown files with YAML frontmatter under
//! `<workdir>/.wave/rules` (project) and `<home>/.wave/rules` (user). A rule
//! without `paths` or `topics` is always active; `paths` (minimatch globs with
//! `{dot: true}`) activate it when any file in context matches; `topics`
//! activate it when a keyword starts a word of the prompt. Data flows one way:
//! [`discover`] -> [`parse`] -> [`RuleSet`] -> [`RuleSet::active`].
//!
//! ```
//! use memory_rules::{load, Roots};
//! let dir = tempfile::tempdir()?;
//! let rules = dir.path().join(".wave/rules");
//! std::fs::create_dir_all(&rules)?;
//! std::fs::write(rules.join("ts.md"), "---\npaths: src/**/*.ts\n---\nUse strict TypeScript.")?;
//! std::fs::write(rules.join("sql.md"), "---\ntopics: [sql]\n---\nNo SELECT *.")?;
//!
//! let loaded = load(&Roots::new(dir.path(), dir.path().join("no-home")));
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
pub mod frontmatter;
mod globindex;
pub mod limits;
pub mod memory;
pub mod parse;
pub mod pattern;
pub mod rule;
pub mod ruleset;
pub mod slug;
mod stamp;
pub mod topics;

pub use diagnostic::{Code, Diagnostic, Severity};
pub use rule::{Metadata, Remind, Rule, Scope};
pub use ruleset::{Excluded, Explanation, Reason, RuleSet};

use context::Workdir;
use discover::Root;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// Where to look: the project workdir and the user's home.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roots {
    pub workdir: PathBuf,
    pub home_dir: PathBuf,
    /// Directories outside the workdir that project rules may resolve into
    /// (through symlinks); any other project rule outside it is not loaded.
    pub allow_dirs: Vec<PathBuf>,
}

impl Roots {
    pub fn new(workdir: impl Into<PathBuf>, home_dir: impl Into<PathBuf>) -> Self {
        Roots { workdir: workdir.into(), home_dir: home_dir.into(), allow_dirs: Vec::new() }
    }

    /// Allows project rules to resolve into these directories.
    pub fn with_allow_dirs(mut self, dirs: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        self.allow_dirs.extend(dirs.into_iter().map(Into::into));
        self
    }

    /// `<workdir>/.wave/rules`
    pub fn project_dir(&self) -> PathBuf {
        self.workdir.join(".wave").join("rules")
    }

    /// `<home>/.wave/rules`
    pub fn user_dir(&self) -> PathBuf {
        self.home_dir.join(".wave").join("rules")
    }

    /// The rules directory of a scope.
    pub fn dir(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::Project => self.project_dir(),
            Scope::User => self.user_dir(),
        }
    }

    /// `<workdir>/.wave/rules`, then `<home>/.wave/rules` (left out when it
    /// is the same directory).
    pub fn rule_roots(&self) -> Vec<Root> {
        let project = Root { dir: self.project_dir(), scope: Scope::Project, boundary: Some(self.workdir.clone()), allow: self.allow_dirs.clone() };
        let user = Root { dir: self.user_dir(), scope: Scope::User, boundary: None, allow: Vec::new() };
        let same = match (discover::real_root(&project.dir), discover::real_root(&user.dir)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        if same {
            vec![project]
        } else {
            vec![project, user]
        }
    }
}

/// The result of a discovery: the compiled rules, every diagnostic, and what
/// [`reload`] needs to skip unchanged files.
#[derive(Debug, Default)]
pub struct Loaded {
    pub rules: Arc<RuleSet>,
    pub diagnostics: Vec<Diagnostic>,
    files: HashMap<PathBuf, Arc<stamp::Cached>>,
    scanned_at: Option<SystemTime>,
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

/// Discovers, parses and compiles every rule under both roots. Never fails:
/// whatever cannot be used is a diagnostic, and the rest still loads.
pub fn load(roots: &Roots) -> Loaded {
    scan(roots, None).loaded
}

/// Discovers again, re-reading and re-parsing only the files whose (size,
/// mtime, inode, device) changed, or whose mtime is too close to the previous
/// scan to be trusted (git's "racy" rule). The compiled rule set is rebuilt
/// only if a rule changed; otherwise the same `Arc<RuleSet>` is kept.
pub fn reload(roots: &Roots, previous: &Loaded) -> Reloaded {
    scan(roots, Some(previous))
}

fn scan(roots: &Roots, previous: Option<&Loaded>) -> Reloaded {
    let scanned_at = SystemTime::now();
    let mut diagnostics = Vec::new();
    let mut found = Vec::new();
    for root in roots.rule_roots() {
        found.extend(discover::find(&root, &mut diagnostics));
    }
    let found = apply_overrides(found, &mut diagnostics);
    let mut files = HashMap::with_capacity(found.len());
    let mut entries = Vec::with_capacity(found.len());
    let mut rules_changed = previous.is_none_or(|p| p.files.len() != found.len());
    let mut reparsed = 0;
    for f in &found {
        let before = previous.and_then(|p| p.files.get(&f.path).map(|c| (c, p.scanned_at)));
        let (entry, same) = stamp::refresh(f, before, &mut reparsed);
        rules_changed |= !same;
        diagnostics.extend(entry.diagnostics.iter().cloned());
        files.insert(f.path.clone(), Arc::clone(&entry));
        entries.push(entry);
    }
    // The total topic limit, in discovery order: a rule that would pass it is
    // not loaded (dropping only its topics would make it fire always).
    let mut topics = 0usize;
    let mut parsed = Vec::with_capacity(entries.len());
    for rule in entries.iter().filter_map(|e| e.rule.as_ref()) {
        let n = rule.rule.metadata.topics.as_ref().map_or(0, Vec::len);
        if topics + n > limits::MAX_TOPICS_TOTAL {
            diagnostics.push(Diagnostic::new(
                Severity::Error,
                Code::Limit,
                &rule.rule.file_path,
                format!("the rules have more than {} topics in total (limit); this rule is not loaded", limits::MAX_TOPICS_TOTAL),
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
        _ => Arc::new(RuleSet::build(parsed.into_iter().cloned().collect(), Workdir::new(&roots.workdir))),
    };
    let changed = rules_changed || previous.is_none_or(|p| p.diagnostics != diagnostics);
    Reloaded { loaded: Loaded { rules, diagnostics, files, scanned_at: Some(scanned_at) }, changed, reparsed }
}

/// Reads and parses one found file.
pub fn load_file(found: &discover::Found, diagnostics: &mut Vec<Diagnostic>) -> Option<parse::ParsedRule> {
    let (_, outcome) = read_and_parse(found);
    diagnostics.extend(outcome.diagnostics);
    outcome.rule
}

/// Reads one found file and parses it; the text is returned too (`None` when
/// it could not be read, which the outcome's diagnostics say).
///
/// A panic while parsing (a bug) is caught here, per file, and becomes an
/// `internal` diagnostic: the other files still load, and a later reload
/// reads the file again.
pub(crate) fn read_and_parse(found: &discover::Found) -> (Option<String>, parse::Outcome) {
    match discover::read(&found.path) {
        Ok(text) => {
            let parsed = std::panic::catch_unwind(|| parse::parse_rule(found.scope, &found.id, &found.path, &text));
            let outcome = parsed.unwrap_or_else(|payload| {
                let why = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let d = Diagnostic::new(Severity::Error, Code::Internal, &found.path, format!("internal error while parsing ({why}); the rule is not loaded; please report it"));
                parse::Outcome { rule: None, diagnostics: vec![d] }
            });
            (Some(text), outcome)
        }
        Err(d) => (None, parse::Outcome { rule: None, diagnostics: vec![d] }),
    }
}

/// Drops user rules whose id a project rule also has, with an `info`.
fn apply_overrides(found: Vec<discover::Found>, diagnostics: &mut Vec<Diagnostic>) -> Vec<discover::Found> {
    let project: HashSet<&str> = found.iter().filter(|f| f.scope == Scope::Project).map(|f| f.id.as_str()).collect();
    let mut kept = Vec::with_capacity(found.len());
    for f in &found {
        if f.scope == Scope::User && project.contains(f.id.as_str()) {
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::Overridden,
                &f.path,
                format!("user rule '{}' is overridden by the project rule with the same id", f.id),
            ));
            continue;
        }
        kept.push(f.clone());
    }
    kept
}
