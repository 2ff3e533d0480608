//! Rule packs and the policy: rules a whole organisation shares, as one more
//! kind of source.
//!
//! A *pack* is an npm package (its `package.json` names its rules folder:
//! `"waveRules": { "rules": "rules" }`), a git repository at a ref, or a
//! folder. A project names its packs, in override order, in
//! `.wave/config.toml`:
//!
//! ```toml
//! packs = ["@acme/rules@^2", "git+https://example.com/acme/security.git#v1.2.0", "../team-rules"]
//!
//! [rules]
//! disable = ["legacy.md", "@acme/rules:old-style.md"]
//! ```
//!
//! npm packs are found in `node_modules` (at the project or above it: the
//! package manager installs them, with its integrity checks and registries);
//! git packs are checked out by `wave-rules packs sync` into `.wave/packs/`;
//! `.wave/packs.lock` pins each by version or commit and content hash. A
//! load never fetches: a missing or stale pack is a diagnostic, and what is
//! on disk is used.
//!
//! The *policy* is a directory an administrator installs
//! ([`default_policy_dir`]: `WAVE_POLICY_DIR`, else `/etc/wave` on Linux,
//! `/Library/Application Support/Wave` on macOS, `%ProgramData%\Wave` on
//! Windows): its `rules/` folder and the packs its own `config.toml` names.
//! Policy rules are locked (see [`crate::rules::origin`]).
//!
//! [`layers`] turns a [`Config`] into the full, ordered list of sources:
//! project packs, the config's own sources (user, then project), policy
//! packs, the policy's rules.

pub mod hash;
pub mod lock;
pub mod manifest;
mod pack_error;
pub mod spec;

pub use lock::{LockDrift, Locked, PackLock};
pub use manifest::Manifest;
pub use pack_error::{PackError, RulesDirError};
pub use spec::{PackKind, Spec, SpecError};

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::base::limits::MAX_PACKS;
use crate::base::line_index::LineIndex;
use crate::rules::origin::{Layer, PackLabel};
use crate::rules::scope::Scope;
use crate::sources::source::{Config, Source};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The config file of a project (in `.wave/`) and of the policy directory.
pub const CONFIG_FILE: &str = "config.toml";
/// The lockfile, beside the config file.
pub const LOCK_FILE: &str = "packs.lock";
/// The folder of git checkouts, beside the config file.
pub const CACHE_DIR: &str = "packs";

// The policy directory is found by the sources (`Config`'s constructors
// use it), which sit below the packs: defined there, named here too.
pub use crate::sources::source::{default_policy_dir, POLICY_ENV};

/// Where one config's packs live: the project's (`<workdir>/.wave/...`,
/// npm packs from `node_modules` at the workdir or above) or the policy's
/// (`<policy>/...`, npm packs from `<policy>/node_modules`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Home {
    /// Folder packs are relative to it; `node_modules` is looked for here.
    pub base: PathBuf,
    /// The folder of `config.toml`, `packs.lock` and `packs/`.
    pub dir: PathBuf,
    pub policy: bool,
}

impl Home {
    pub fn project(workdir: &Path) -> Home {
        Home {
            base: workdir.to_path_buf(),
            dir: workdir.join(".wave"),
            policy: false,
        }
    }

    pub fn policy(dir: &Path) -> Home {
        Home {
            base: dir.to_path_buf(),
            dir: dir.to_path_buf(),
            policy: true,
        }
    }

    pub fn config(&self) -> PathBuf {
        self.dir.join(CONFIG_FILE)
    }

    pub fn lock(&self) -> PathBuf {
        self.dir.join(LOCK_FILE)
    }

    pub fn cache(&self) -> PathBuf {
        self.dir.join(CACHE_DIR)
    }

    /// The policy's own rules folder (`<policy>/rules`).
    pub fn policy_rules(&self) -> PathBuf {
        self.dir.join("rules")
    }

    /// Where a git pack's checkout goes: `<cache>/<name>-<hash of URL>`.
    pub fn checkout(&self, spec: &Spec) -> PathBuf {
        self.cache().join(checkout_key(spec))
    }

    /// The pin beside a git pack's checkout (commit and content hash of
    /// what it holds).
    pub fn pin_path(&self, spec: &Spec) -> PathBuf {
        self.cache().join(format!("{}.pin", checkout_key(spec)))
    }
}

fn checkout_key(spec: &Spec) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(spec.location.as_bytes());
    let short: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let name: String = spec
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    format!("{name}-{short}")
}

/// What a git checkout holds: written by `packs sync` after a checkout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pin {
    pub url: String,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    pub commit: String,
    pub hash: String,
}

impl Pin {
    pub fn read(path: &Path) -> Option<Pin> {
        let bytes = crate::sources::discover::read_rule_file(path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// A name in a config file, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub text: String,
    pub line: u32,
    pub column: u32,
}

/// A config file (`.wave/config.toml`, `<policy>/config.toml`) as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackConfig {
    pub path: PathBuf,
    pub packs: Vec<(Spec, Named)>,
    /// `[rules] disable`: rule ids (`legacy.md`) or pack-qualified ids
    /// (`@acme/rules:legacy.md`).
    pub disable: Vec<Named>,
}

#[derive(Deserialize)]
struct RawConfig {
    #[serde(default)]
    packs: Vec<toml::Spanned<String>>,
    #[serde(default)]
    rules: Option<RawRules>,
    #[serde(flatten)]
    other: std::collections::BTreeMap<String, toml::Value>,
}

#[derive(Deserialize)]
struct RawRules {
    #[serde(default)]
    disable: Vec<toml::Spanned<String>>,
    #[serde(flatten)]
    other: std::collections::BTreeMap<String, toml::Value>,
}

/// Reads a config file: `None` when there is none; every problem (a bad
/// SPEC, an unknown key, TOML that does not parse) is a diagnostic naming
/// the file, line and column, and the rest is still used.
pub fn read_config(home: &Home, diagnostics: &mut Vec<Diagnostic>) -> Option<PackConfig> {
    let path = home.config();
    let text = match crate::sources::discover::read(&path) {
        Ok(t) => t,
        Err(_) if !path.exists() => return None,
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    let reader = ConfigReader {
        path: &path,
        index: LineIndex::new(&text),
    };
    let raw: RawConfig = match toml::from_str(&text) {
        Ok(r) => r,
        Err(e) => {
            diagnostics.push(reader.error(e.span(), format!("not a config file: {}", e.message())));
            return None;
        }
    };
    // `sources` is the project's chosen sources (`sources::chosen`).
    for key in raw.other.keys().filter(|k| *k != "sources") {
        let hint = crate::base::suggest::closest(key, ["packs", "sources", "rules"])
            .map(|c| format!(" (did you mean '{c}'?)"))
            .unwrap_or_default();
        diagnostics.push(reader.warning(
            None,
            format!("unknown key '{key}'{hint}; the keys are packs, sources and [rules]"),
        ));
    }
    let mut config = PackConfig {
        path: path.clone(),
        packs: reader.packs(&raw.packs, diagnostics),
        ..PackConfig::default()
    };
    if let Some(rules) = raw.rules {
        config.disable = reader.rules(rules, home.policy, diagnostics);
    }
    Some(config)
}

/// One config file's reading: its diagnostics, located in its text.
struct ConfigReader<'c> {
    path: &'c Path,
    index: LineIndex<'c>,
}

impl ConfigReader<'_> {
    /// An error about the config, at `span` (a byte range) when given.
    fn error(&self, span: Option<std::ops::Range<usize>>, message: String) -> Diagnostic {
        let d = Diagnostic::new(Severity::Error, Code::InvalidConfig, self.path, message);
        match span {
            Some(s) => {
                let (l, c) = self.index.at(s.start);
                d.at(l, c)
            }
            None => d,
        }
    }

    fn warning(&self, span: Option<std::ops::Range<usize>>, message: String) -> Diagnostic {
        self.error(span, message).with_severity(Severity::Warning)
    }

    /// The value as written, with where.
    fn named(&self, value: &toml::Spanned<String>) -> Named {
        let (line, column) = self.index.at(value.span().start);
        Named {
            text: value.get_ref().clone(),
            line,
            column,
        }
    }

    /// `packs`: each SPEC parsed, each pack once, at most [`MAX_PACKS`].
    fn packs(
        &self,
        raw: &[toml::Spanned<String>],
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<(Spec, Named)> {
        let mut packs: Vec<(Spec, Named)> = Vec::new();
        for (i, p) in raw.iter().enumerate() {
            if i == MAX_PACKS {
                diagnostics.push(self.error(
                    Some(p.span()),
                    format!("more than {MAX_PACKS} packs (limit); the rest are not read"),
                ));
                break;
            }
            match Spec::parse(p.get_ref()) {
                Ok(spec) if packs.iter().any(|(s, _)| s.text == spec.text) => {
                    diagnostics.push(self.warning(
                        Some(p.span()),
                        format!("the pack '{spec}' is named twice; the first is used"),
                    ));
                }
                Ok(spec) => packs.push((spec, self.named(p))),
                Err(e) => diagnostics.push(self.error(Some(p.span()), format!("packs: {e}"))),
            }
        }
        packs
    }

    /// `[rules]`: its `disable` names (none in the policy's config: its
    /// rules are locked).
    fn rules(
        &self,
        rules: RawRules,
        policy: bool,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Vec<Named> {
        for key in rules.other.keys() {
            diagnostics.push(self.warning(
                None,
                format!("unknown key 'rules.{key}'; [rules] has disable"),
            ));
        }
        let mut disable = Vec::new();
        for d in &rules.disable {
            if policy {
                diagnostics.push(self.warning(Some(d.span()), "the policy does not disable rules (its rules are locked; leave a pack out instead); ignored".into()));
                continue;
            }
            disable.push(self.named(d));
        }
        disable
    }
}

/// One pack as found on disk.
#[derive(Clone, Debug)]
pub struct FoundPack {
    pub spec: Spec,
    /// Where the config names it.
    pub named: Option<Named>,
    /// The pack's root (the package, the checkout, the folder); `None` when
    /// it is not there (`problem` says why).
    pub root: Option<PathBuf>,
    pub manifest: Option<Manifest>,
    /// npm: the installed version; a folder: its `package.json` version.
    pub version: Option<String>,
    /// git: the commit and content hash the checkout holds (its pin).
    pub pin: Option<Pin>,
    /// How provenance names it (`@acme/rules@2.3.1`).
    pub label: String,
    /// Why it cannot be used, if it cannot.
    pub problem: Option<String>,
}

impl FoundPack {
    /// What pins this pack as found now: the installed version or the
    /// checkout's commit.
    pub fn resolved(&self) -> Option<&str> {
        match self.spec.kind {
            PackKind::Git => self.pin.as_ref().map(|p| p.commit.as_str()),
            _ => self.version.as_deref(),
        }
    }

    /// Whether the lock entry `locked` pins what this pack resolved to now
    /// ([`FoundPack::resolved`]: the installed version, the checkout's commit);
    /// the content hash is not compared.
    pub fn pinned_by(&self, locked: &Locked) -> bool {
        LockDrift::of(Some(locked), self.spec.kind, self.resolved(), None).is_none()
    }
}

/// Finds one pack of `home` on disk (reads its `package.json` and, for git,
/// its pin; never fetches).
pub fn find(home: &Home, spec: &Spec, named: Option<Named>) -> FoundPack {
    let mut found = FoundPack {
        spec: spec.clone(),
        named,
        root: None,
        manifest: None,
        version: None,
        pin: None,
        label: spec.text.clone(),
        problem: None,
    };
    let root = match spec.kind {
        PackKind::Npm => {
            let mut dir = Some(home.base.as_path());
            let mut hit = None;
            // Node's own lookup: node_modules here, then in every parent
            // (the policy's packs only in its own).
            for _ in 0..crate::base::limits::MAX_ROOT_WALK {
                let Some(d) = dir else { break };
                let candidate = d.join("node_modules").join(&spec.name);
                if candidate.join("package.json").is_file() {
                    hit = Some(candidate);
                    break;
                }
                if home.policy {
                    break;
                }
                dir = d.parent();
            }
            match hit {
                Some(h) => h,
                None => {
                    let range = spec
                        .want
                        .as_deref()
                        .map(|r| format!("@{r}"))
                        .unwrap_or_default();
                    found.problem = Some(format!(
                        "the npm pack {} is not installed in node_modules: install it with your package manager (npm install --save-dev {}{range})",
                        spec.name, spec.name
                    ));
                    return found;
                }
            }
        }
        PackKind::Git => {
            let dir = home.checkout(spec);
            found.pin = Pin::read(&home.pin_path(spec));
            match (&found.pin, dir.is_dir()) {
                (Some(pin), true) => {
                    let short: String = pin.commit.chars().take(7).collect();
                    found.label = format!("{}@{short}", spec.name);
                    dir
                }
                _ => {
                    found.problem = Some(format!(
                        "the git pack {spec} is not checked out: run `wave-rules packs sync`{}",
                        if home.policy { " --policy" } else { "" }
                    ));
                    return found;
                }
            }
        }
        PackKind::Folder => {
            let given = expand_home(&spec.location);
            let dir = home.base.join(given);
            if !dir.is_dir() {
                found.problem = Some(format!(
                    "the folder pack {} does not exist ({})",
                    spec.location,
                    dir.display()
                ));
                return found;
            }
            dir
        }
    };
    match manifest::read(&root, spec.kind == PackKind::Folder) {
        Ok(m) => {
            if spec.kind != PackKind::Git {
                found.version = m.version.clone();
                if let (Some(name), Some(v)) = (&m.name, &m.version) {
                    found.label = format!("{name}@{v}");
                } else if spec.kind == PackKind::Npm {
                    found.label = spec.name.clone();
                }
            }
            found.manifest = Some(m);
        }
        Err(e) => found.problem = Some(e.to_string()),
    }
    found.root = Some(root);
    found
}

fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(rest))
            .unwrap_or_else(|| PathBuf::from(path)),
        None => PathBuf::from(path),
    }
}

/// Every pack of one home, as found, with the config and the lock.
#[derive(Clone, Debug)]
pub struct HomePacks {
    pub home: Home,
    pub config: Option<PackConfig>,
    pub lock: Option<PackLock>,
    pub packs: Vec<FoundPack>,
}

/// Reads one home's config, lock and packs; problems become diagnostics.
pub fn home_packs(home: Home, diagnostics: &mut Vec<Diagnostic>) -> HomePacks {
    let config = read_config(&home, diagnostics);
    let lock = match PackLock::read(&home.lock()) {
        Ok(l) => l,
        Err(e) => {
            diagnostics.push(Diagnostic::new(
                Severity::Error,
                Code::InvalidConfig,
                &home.lock(),
                e,
            ));
            None
        }
    };
    let packs = config
        .iter()
        .flat_map(|c| &c.packs)
        .map(|(spec, named)| find(&home, spec, Some(named.clone())))
        .collect();
    HomePacks {
        home,
        config,
        lock,
        packs,
    }
}

impl HomePacks {
    /// The diagnostics of its packs: missing, or not what the lock pins.
    pub fn check(&self, diagnostics: &mut Vec<Diagnostic>) {
        let config_path = self.home.config();
        for p in &self.packs {
            let at = |d: Diagnostic| match &p.named {
                Some(n) => d.at(n.line, n.column),
                None => d,
            };
            if let Some(problem) = &p.problem {
                diagnostics.push(at(Diagnostic::new(
                    Severity::Error,
                    Code::PackMissing,
                    &config_path,
                    problem.clone(),
                )));
                continue;
            }
            let sync = if self.home.policy {
                "wave-rules packs sync --policy"
            } else {
                "wave-rules packs sync"
            };
            let Some(lock) = &self.lock else {
                continue;
            };
            let hash = p.pin.as_ref().map(|pin| pin.hash.as_str());
            let drift = match p.spec.kind {
                PackKind::Npm => {
                    LockDrift::of(lock.get(&p.spec.text), p.spec.kind, p.resolved(), None)
                }
                PackKind::Git => {
                    LockDrift::of(lock.get(&p.spec.text), p.spec.kind, p.resolved(), hash)
                }
                PackKind::Folder => lock
                    .get(&p.spec.text)
                    .is_none()
                    .then_some(LockDrift::NotLocked),
            };
            let stale = match (drift, p.spec.kind) {
                (None, _) => None,
                (Some(LockDrift::NotLocked), _) => {
                    diagnostics.push(at(Diagnostic::new(
                        Severity::Warning,
                        Code::PackStale,
                        &config_path,
                        format!(
                            "the pack {} is not in {}: run `{sync}` and commit the lock",
                            p.spec,
                            self.home.lock().display()
                        ),
                    )));
                    continue;
                }
                (Some(LockDrift::Pin { locked }), PackKind::Npm) => Some(format!(
                    "node_modules has {} {}, the lock pins {}: install the locked version, or run `{sync}` and commit the lock",
                    p.spec.name,
                    p.version.as_deref().unwrap_or("(no version)"),
                    locked.as_deref().unwrap_or("(none)")
                )),
                (Some(_), _) => Some(format!(
                    "the checkout of {} is at {}, the lock pins {}: run `{sync}`",
                    p.spec,
                    p.pin.as_ref().map_or("(nothing)", |p| p.commit.as_str()),
                    lock.get(&p.spec.text).and_then(|l| l.commit.as_deref()).unwrap_or("(none)")
                )),
            };
            if let Some(message) = stale {
                diagnostics.push(at(Diagnostic::new(
                    Severity::Warning,
                    Code::PackStale,
                    &config_path,
                    format!("{message}; the rules on disk are used"),
                )));
            }
        }
    }

    /// The sources of its usable packs, in config order.
    pub fn sources(&self) -> Vec<Source> {
        let mut out = Vec::new();
        for p in &self.packs {
            let (Some(root), Some(m)) = (&p.root, &p.manifest) else {
                continue;
            };
            if p.problem.is_some() {
                continue;
            }
            let label = PackLabel {
                label: p.label.clone(),
                name: p.spec.name.clone(),
                root: root.clone(),
            };
            for d in &m.rules {
                let dir = if d.dir == Path::new(".") {
                    root.clone()
                } else {
                    root.join(&d.dir)
                };
                let layer = if self.home.policy {
                    Layer::Policy(Some(label.clone()))
                } else {
                    Layer::Pack(label.clone())
                };
                out.push(Source::new(dir, Scope::Project, d.format, d.depth).in_layer(layer));
            }
        }
        out
    }
}

/// The sources of a config with its layers, in override order, and what
/// reading the layers found.
#[derive(Clone, Debug, Default)]
pub struct Layers {
    pub sources: Vec<Source>,
    /// The project's `[rules] disable`, and the file that says it.
    pub disable: Vec<Named>,
    pub config_path: Option<PathBuf>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The full list of sources of `config`: the project's packs (when
/// `config.project_packs`), the config's own sources, the policy's packs
/// and its rules folder (when `config.policy` names a directory that
/// exists). Reads small files only (the config files, the locks, each
/// pack's `package.json` and pin); never fetches.
pub fn layers(config: &Config) -> Layers {
    let mut out = Layers::default();
    if config.project_packs {
        let project = home_packs(Home::project(&config.workdir), &mut out.diagnostics);
        project.check(&mut out.diagnostics);
        out.sources.extend(project.sources());
        if let Some(c) = &project.config {
            out.disable = c.disable.clone();
            out.config_path = Some(c.path.clone());
        }
    }
    out.sources.extend(config.sources.iter().cloned());
    if let Some(dir) = config.policy.as_deref().filter(|d| d.is_dir()) {
        let policy = home_packs(Home::policy(dir), &mut out.diagnostics);
        policy.check(&mut out.diagnostics);
        out.sources.extend(policy.sources());
        let rules = policy.home.policy_rules();
        out.sources.push(
            Source::new(
                rules,
                Scope::Project,
                crate::rules::rule_format::Format::Wave,
                Some(1),
            )
            .in_layer(Layer::Policy(None)),
        );
    }
    out
}

/// The sources of `config` as discovery walks them, in order, with the
/// packs and the policy ([`layers`]). A source whose directory resolves to
/// the same place, in the same format, as a later one is left out (home and
/// workdir may be the same directory): the later one would replace all its
/// rules anyway. (Here, beside [`layers`], so the sources need not reach up
/// to the packs.)
pub fn roots(config: &Config) -> Vec<crate::sources::discover::Root> {
    crate::sources::source::roots_of(&layers(config).sources, config)
}

/// Every rule file of every root ([`roots`]), as discovery finds them (its
/// diagnostics left out); a file's `source` is its index in [`layers`]'
/// sources.
pub fn rule_files(config: &Config) -> Vec<crate::sources::discover::RuleFile> {
    roots(config)
        .iter()
        .flat_map(|root| crate::sources::discover::find(root, &mut Vec::new()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_problems_name_the_line_and_the_rest_is_used() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::project(t.path());
        std::fs::create_dir_all(&home.dir).unwrap();
        std::fs::write(
            home.config(),
            "pack = 1\npacks = [\n  \"@acme/rules@^2\",\n  \"Bad Name\",\n  \"@acme/rules@^2\",\n]\n[rules]\ndisable = [\"old.md\"]\n",
        )
        .unwrap();
        let mut d = Vec::new();
        let c = read_config(&home, &mut d).unwrap();
        assert_eq!(c.packs.len(), 1);
        assert_eq!(c.packs[0].1.line, 3);
        assert_eq!(c.disable[0].text, "old.md");
        assert_eq!(c.disable[0].line, 8);
        let text: Vec<String> = d.iter().map(|d| d.to_string()).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("unknown key 'pack' (did you mean 'packs'?)")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains(":4:3: error[invalid-config]: packs: 'Bad Name'")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|t| t.contains(
                ":5:3: warning[invalid-config]: the pack '@acme/rules@^2' is named twice"
            )),
            "{text:?}"
        );
    }

    #[test]
    fn a_config_that_is_not_toml_is_one_error_at_its_place() {
        let t = tempfile::tempdir().unwrap();
        let home = Home::project(t.path());
        std::fs::create_dir_all(&home.dir).unwrap();
        std::fs::write(home.config(), "packs = [\"a\"\n").unwrap();
        let mut d = Vec::new();
        assert!(read_config(&home, &mut d).is_none());
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.starts_with("not a config file"), "{}", d[0]);
        assert!(d[0].line.is_some());
    }
}
