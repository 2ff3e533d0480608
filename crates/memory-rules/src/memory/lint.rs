//! `memory lint`: what keeps memory from being clean.
//!
//! Over both scopes: entries that duplicate another of the same scope,
//! entries that restate a rule, entries that conflict with another entry or
//! a rule (see [`super::hygiene`]), entries a newer one superseded (until
//! `memory forget` removes one), project entries that name files that no
//! longer exist, entry comments that cannot be read, and topics over
//! [`MEMORY_TOPIC_LINT_BYTES`]. Promotions an agent proposed are listed too,
//! as information (they are not problems), and so are possible conflicts:
//! conflicts found but not precise enough to flag ([`hygiene::flagged`]),
//! with their evidence, to read.
//!
//! Each entry is compared with the best matches of a search for its own
//! words ([`super::store::write::COMPARED_ENTRIES`]), not with every other entry, so
//! a lint grows with the number of entries, not with its square.

use super::agent_memory::{AgentEntry, AgentMemory};
use super::entry::{self, Proposal};
use super::hygiene::{self, Clash, Profile, Weights};
use super::search::{EntryRef, MemoryIndex, Query};
use super::secrets::SecretRules;
use super::store::rule_parts::{df_fn, weights, RuleParts};
use super::store::write::COMPARED_ENTRIES;
use super::store::{MemoryScope, MemoryStore};
use super::terms::{self, FileKey};
use crate::base::limits::MEMORY_TOPIC_LINT_BYTES;
use crate::rules::rule_set::RuleSet;
use std::collections::HashSet;
use std::path::Path;

/// What a lint finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingKind {
    Duplicate,
    RestatesRule,
    /// Not a problem: a rule it may restate, in words of its own, to read.
    PossibleRestatement,
    Conflict,
    /// Not a problem: a conflict found but not flagged, to read.
    PossibleConflict,
    /// A newer entry gives another value of the same fact.
    Superseded,
    /// An agent's own memory holds a credential (ours refuses them on write).
    Credential,
    MissingFile,
    BrokenEntry,
    TopicTooLarge,
    /// Not a problem: a promotion waiting for a person.
    Proposed,
}

impl FindingKind {
    /// `duplicate`, `restates-rule`, `possible-restatement`, `conflict`,
    /// `possible-conflict`,
    /// `superseded`, `credential`, `missing-file`,
    /// `broken-entry`, `topic-too-large`, `proposed`.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::Duplicate => "duplicate",
            FindingKind::RestatesRule => "restates-rule",
            FindingKind::PossibleRestatement => "possible-restatement",
            FindingKind::Conflict => "conflict",
            FindingKind::PossibleConflict => "possible-conflict",
            FindingKind::Superseded => "superseded",
            FindingKind::Credential => "credential",
            FindingKind::MissingFile => "missing-file",
            FindingKind::BrokenEntry => "broken-entry",
            FindingKind::TopicTooLarge => "topic-too-large",
            FindingKind::Proposed => "proposed",
        }
    }

    /// Everything but [`FindingKind::Proposed`],
    /// [`FindingKind::PossibleRestatement`] and
    /// [`FindingKind::PossibleConflict`] makes `memory lint` fail.
    pub fn is_problem(self) -> bool {
        !matches!(
            self,
            FindingKind::Proposed
                | FindingKind::PossibleRestatement
                | FindingKind::PossibleConflict
        )
    }
}

/// One finding of `memory lint`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintFinding {
    pub kind: FindingKind,
    pub scope: MemoryScope,
    /// The topic file and line (1-based; 0 for a whole topic).
    pub file: String,
    pub line: usize,
    /// The entry (none for a topic).
    pub id: Option<String>,
    /// The other entry (`scope:id`, or an agent's file and line) or the
    /// rule's id, when there is one.
    pub other: Option<String>,
    /// For an agent's own memory (`--memory-sources`): the agent; `file` is
    /// then the file's full path.
    pub agent: Option<String>,
    /// One sentence.
    pub message: String,
}

impl LintFinding {
    /// As JSON (`memory lint --json`, the binding).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": self.kind.as_str(), "problem": self.kind.is_problem(),
            "scope": self.scope.as_str(), "file": self.file, "line": self.line,
            "id": self.id, "other": self.other, "agent": self.agent, "message": self.message,
        })
    }
}

/// Lints both scopes of `store`; `rules` to compare with (none: no rule
/// checks); `workdir` to look for the files project entries name.
pub fn lint(store: &MemoryStore, rules: Option<&RuleSet>, workdir: &Path) -> Vec<LintFinding> {
    let index = MemoryIndex::open(store);
    let parts = RuleParts::of(rules);
    let df = df_fn(&index, &parts);
    let w = weights(&index, &parts, &df);
    let mut out = Vec::new();
    // A superseded pair is said as that, not again as a conflict.
    let mut paired: HashSet<(String, String)> = index
        .entries()
        .filter_map(|e| {
            let newer = e.meta().superseded_by?;
            Some(pair(e.scope(), e.id(), e.scope(), &newer))
        })
        .collect();
    for e in index.entries() {
        let profile = Profile::of(e.text());
        let meta = e.meta();
        let about = EntryAbout::of(&e);
        if e.meta().id.is_empty() && e.text().is_empty() {
            continue;
        }
        rule_findings(&about, &profile, &parts, &w, &mut out);
        entry_findings(&about, &e, &profile, &index, &w, &mut paired, &mut out);
        if about.scope == MemoryScope::Project {
            for missing in missing_files(e.text(), &meta.paths, workdir) {
                out.push(about.finding(
                    FindingKind::MissingFile,
                    None,
                    format!("names {missing}, which no longer exists"),
                ));
            }
        }
        if let Some(p) = &meta.proposed {
            out.push(proposal_finding(&about, p));
        }
        if let Some(newer) = &meta.superseded_by {
            out.push(about.finding(
                FindingKind::Superseded,
                Some(format!("{}:{newer}", about.scope)),
                format!(
                    "superseded by {newer} (the same fact with another value); settle it: `wave-rules memory forget {}` (or edit the file)",
                    about.id
                ),
            ));
        }
    }
    topic_findings(store, &index, &mut out);
    out.sort_by(|a, b| {
        (a.scope, &a.file, a.line, a.kind, &a.other)
            .cmp(&(b.scope, &b.file, b.line, b.kind, &b.other))
    });
    out
}

/// The entry a finding is about: where it is, and its id.
struct EntryAbout {
    scope: MemoryScope,
    file: String,
    line: usize,
    id: String,
}

impl EntryAbout {
    fn of(e: &EntryRef<'_>) -> EntryAbout {
        EntryAbout {
            scope: e.scope(),
            file: e.file().to_string(),
            line: e.line(),
            id: e.id().to_string(),
        }
    }

    fn finding(&self, kind: FindingKind, other: Option<String>, message: String) -> LintFinding {
        LintFinding {
            kind,
            scope: self.scope,
            file: self.file.clone(),
            line: self.line,
            id: Some(self.id.clone()),
            other,
            agent: None,
            message,
        }
    }
}

/// An entry that restates a rule, and the rules it conflicts with.
fn rule_findings(
    about: &EntryAbout,
    profile: &Profile,
    parts: &RuleParts,
    w: &Weights<'_>,
    out: &mut Vec<LintFinding>,
) {
    if let Some((rule, part, p)) = parts.restated(profile, w) {
        let (kind, says, advice) = if hygiene::adds_nothing(profile, p) {
            (FindingKind::RestatesRule, "restates", "forget it")
        } else {
            (
                FindingKind::PossibleRestatement,
                "may restate",
                "if it says nothing more, forget it",
            )
        };
        out.push(about.finding(
            kind,
            Some(rule.clone()),
            format!(
                "{says} the rule {rule} (\"{}\"{}); {advice} (`wave-rules memory forget {}`)",
                short(part),
                shared_text(profile, p, w),
                about.id
            ),
        ));
    }
    for (rule, part, p) in &parts.parts {
        if let Some(c) = hygiene::conflict(profile, p, w) {
            let (kind, says) = conflict_kind(profile, p, &c, w);
            out.push(about.finding(
                kind,
                Some(rule.clone()),
                format!(
                    "{says} the rule {rule}: {} (\"{}\"{}); `wave-rules memory similar {}` ranks what else is near",
                    clash_text(&c),
                    short(part),
                    shared_text(profile, p, w),
                    about.id
                ),
            ));
        }
    }
}

/// A conflict's finding and how its message starts: flagged
/// ([`hygiene::flagged`]) or possible.
fn conflict_kind(
    a: &Profile,
    b: &Profile,
    c: &Clash,
    w: &Weights<'_>,
) -> (FindingKind, &'static str) {
    if hygiene::flagged(a, b, c, w) {
        (FindingKind::Conflict, "conflicts with")
    } else {
        (
            FindingKind::PossibleConflict,
            "may conflict with (not flagged: read it)",
        )
    }
}

/// The evidence of a finding: `; shared: a, b` (the shared subject, see
/// [`super::hygiene::Profile::shared_subject`]), empty when they share no word.
fn shared_text(a: &Profile, b: &Profile, w: &Weights<'_>) -> String {
    let shared = a.shared_subject(b, w);
    if shared.is_empty() {
        String::new()
    } else {
        format!("; shared: {}", shared.join(", "))
    }
}

/// The entries an entry duplicates (same scope) or conflicts with, among
/// the best matches of a search for its words; each pair is said once.
fn entry_findings(
    about: &EntryAbout,
    e: &EntryRef<'_>,
    profile: &Profile,
    index: &MemoryIndex,
    w: &Weights<'_>,
    paired: &mut HashSet<(String, String)>,
    out: &mut Vec<LintFinding>,
) {
    let scope = about.scope;
    let near = index.search(
        &Query {
            text: e.text(),
            files: &[],
            limit: COMPARED_ENTRIES,
        },
        &|id| id == e.id(),
    );
    for h in near {
        let key = pair(scope, e.id(), h.scope, &h.id);
        if paired.contains(&key) {
            continue;
        }
        let other = Profile::of(&h.text);
        let them = format!("{}:{}", h.scope, h.id);
        if h.scope == scope && hygiene::is_duplicate(profile, &other, w) {
            paired.insert(key);
            out.push(about.finding(
                FindingKind::Duplicate,
                Some(them),
                format!(
                    "duplicates {} in '{}' ({}:{}); forget one",
                    h.id, h.topic, h.file, h.line
                ),
            ));
        } else if let Some(c) = hygiene::conflict(profile, &other, w) {
            paired.insert(key);
            let (kind, says) = conflict_kind(profile, &other, &c, w);
            out.push(about.finding(
                kind,
                Some(them),
                format!(
                    "{says} {} in '{}' ({}:{}): {} (\"{}\"{})",
                    h.id,
                    h.topic,
                    h.file,
                    h.line,
                    clash_text(&c),
                    short(&h.text),
                    shared_text(profile, &other, w)
                ),
            ));
        }
    }
}

/// Lints an agent's own memory (read-only, `--memory-sources`): each entry
/// that holds a credential, restates or contradicts a rule, or duplicates an
/// entry of ours or another agent entry. The files that could not be read
/// are broken entries, named.
pub fn lint_agents(
    store: &MemoryStore,
    rules: Option<&RuleSet>,
    agents: &AgentMemory,
) -> Vec<LintFinding> {
    let index = MemoryIndex::open(store);
    let parts = RuleParts::of(rules);
    let df = df_fn(&index, &parts);
    let w = weights(&index, &parts, &df);
    let profiles: Vec<Profile> = agents
        .entries
        .iter()
        .map(|e| Profile::of(&e.text))
        .collect();
    let mut out: Vec<LintFinding> = agents
        .problems
        .iter()
        .map(|p| agent_finding(None, FindingKind::BrokenEntry, None, p.clone()))
        .collect();
    for (i, (e, profile)) in agents.entries.iter().zip(&profiles).enumerate() {
        if let Some(found) = SecretRules::shipped().find(&e.text) {
            out.push(agent_finding(
                Some(e),
                FindingKind::Credential,
                None,
                format!(
                    "holds what looks like a credential ({}: {}); move it to the secrets manager",
                    found.rule, found.masked
                ),
            ));
        }
        let mut rule_out = Vec::new();
        let about = EntryAbout {
            scope: MemoryScope::User,
            file: String::new(),
            line: e.line,
            id: String::new(),
        };
        rule_findings(&about, profile, &parts, &w, &mut rule_out);
        for f in rule_out {
            let message = match (&f.kind, &f.other) {
                (FindingKind::RestatesRule, Some(rule)) => {
                    format!("restates the rule {rule}; the agent's note can go")
                }
                _ => f.message,
            };
            out.push(agent_finding(Some(e), f.kind, f.other, message));
        }
        let near = index.search(
            &Query {
                text: &e.text,
                files: &[],
                limit: COMPARED_ENTRIES,
            },
            &|_| false,
        );
        if let Some(h) = near
            .iter()
            .find(|h| hygiene::is_duplicate(profile, &Profile::of(&h.text), &w))
        {
            out.push(agent_finding(
                Some(e),
                FindingKind::Duplicate,
                Some(format!("{}:{}", h.scope, h.id)),
                format!(
                    "duplicates our {} memory entry {} in '{}'",
                    h.scope, h.id, h.topic
                ),
            ));
        }
        for (other, p) in agents.entries.iter().zip(&profiles).skip(i + 1) {
            if hygiene::is_duplicate(profile, p, &w) {
                out.push(agent_finding(
                    Some(e),
                    FindingKind::Duplicate,
                    Some(other.origin()),
                    format!("duplicates {}", other.origin()),
                ));
            }
        }
    }
    out
}

fn agent_finding(
    e: Option<&AgentEntry>,
    kind: FindingKind,
    other: Option<String>,
    message: String,
) -> LintFinding {
    LintFinding {
        kind,
        scope: MemoryScope::User,
        file: e.map(|e| e.file.display().to_string()).unwrap_or_default(),
        line: e.map_or(0, |e| e.line),
        id: None,
        other,
        agent: e.map(|e| e.agent.as_str().to_string()),
        message,
    }
}

/// A promotion an agent proposed, as information.
fn proposal_finding(about: &EntryAbout, p: &Proposal) -> LintFinding {
    let mut how = Vec::new();
    if !p.paths.is_empty() {
        how.push(format!("paths {}", p.paths.join(", ")));
    }
    if !p.topics.is_empty() {
        how.push(format!("topics {}", p.topics.join(", ")));
    }
    about.finding(
        FindingKind::Proposed,
        None,
        format!(
            "proposed as a rule{}{}: accept with `wave-rules memory promote {}`",
            if how.is_empty() {
                String::new()
            } else {
                format!(" ({})", how.join("; "))
            },
            if p.reason.is_empty() {
                String::new()
            } else {
                format!(" because \"{}\"", short(&p.reason))
            },
            about.id
        ),
    )
}

/// Topics over [`MEMORY_TOPIC_LINT_BYTES`], and entries whose comment
/// cannot be read.
fn topic_findings(store: &MemoryStore, index: &MemoryIndex, out: &mut Vec<LintFinding>) {
    for scope in [MemoryScope::User, MemoryScope::Project] {
        let dir = store.dir(scope);
        for (s, _, file, _) in index.topics().into_iter().filter(|t| t.0 == scope) {
            let path = dir.join(file);
            let size = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
            if size > MEMORY_TOPIC_LINT_BYTES {
                out.push(LintFinding {
                    kind: FindingKind::TopicTooLarge,
                    scope: s,
                    file: file.to_string(),
                    line: 0,
                    id: None,
                    other: None,
                    agent: None,
                    message: format!(
                        "{size} bytes, over {MEMORY_TOPIC_LINT_BYTES}: split it into topics, or forget what is stale"
                    ),
                });
            }
            if let Ok(Some(text)) =
                crate::base::fs::read_limited(&path, crate::base::limits::MAX_MEMORY_TOPIC_BYTES)
            {
                for e in entry::parse(file, &text).into_iter().filter(|e| e.broken) {
                    out.push(LintFinding {
                        kind: FindingKind::BrokenEntry,
                        scope: s,
                        file: file.to_string(),
                        line: e.line,
                        id: Some(e.meta.id.clone()),
                        other: None,
                        agent: None,
                        message: "its comment line is not an entry's metadata (JSON with an \"id\"); its id and times are lost".into(),
                    });
                }
            }
        }
    }
}

fn pair(a: MemoryScope, x: &str, b: MemoryScope, y: &str) -> (String, String) {
    let (p, q) = (format!("{a}:{x}"), format!("{b}:{y}"));
    if p <= q {
        (p, q)
    } else {
        (q, p)
    }
}

fn clash_text(c: &Clash) -> String {
    format!(
        "another {}, {} here and {} there",
        c.kind.as_str(),
        c.ours.join(", "),
        c.theirs.join(", ")
    )
}

fn short(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 100 {
        flat
    } else {
        let mut s: String = flat.chars().take(100).collect();
        s.push('…');
        s
    }
}

/// The files a project entry names (paths with a directory, and literal
/// `paths`) that do not exist under the workdir.
fn missing_files(text: &str, paths: &[String], workdir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for key in terms::file_keys(text, paths) {
        if let FileKey::File(p) = key {
            if p.starts_with('/') || p.starts_with('~') || p.contains("..") {
                continue;
            }
            if !workdir.join(&p).exists() && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_files_only_with_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "").unwrap();
        let text = "Edit src/a.rs and src/gone.rs, see Cargo.toml and /etc/hosts";
        assert_eq!(
            missing_files(text, &["docs/old.md".into(), "src/**".into()], dir.path()),
            ["docs/old.md", "src/gone.rs"]
        );
    }
}
