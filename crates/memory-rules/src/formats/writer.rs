//! What the export's writers share: the [`Target`]s, what a target can
//! express ([`Caps`]), the resolution of a rule's meaning against it
//! ([`resolve`]), and the small text helpers of frontmatter. Below every
//! writer (`formats/<tool>.rs`) and [`super::export`], which dispatches to
//! them: the writers import from here, never from `export`.

use super::Format;
use crate::rules::rule::{Activation, Rule};
use std::collections::BTreeSet;
use std::fmt;

/// Characters of a description synthesized from a rule's body.
const DESCRIPTION_CHARS: usize = 120;

/// An agent whose native rule files export writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Cursor,
    Copilot,
    /// `.windsurf/rules` (Windsurf, and Devin Desktop's fallback).
    Windsurf,
    /// `.devin/rules` (Devin Desktop, Windsurf's new name).
    Devin,
    /// `.agents/rules` (Antigravity).
    Antigravity,
    Kiro,
    Cline,
    Continue,
    Claude,
    /// `AGENTS.md` (Codex, opencode, Amp, Jules and others that read it).
    AgentsMd,
    /// `GEMINI.md` (Gemini CLI).
    Gemini,
}

impl Target {
    pub const ALL: &'static [Target] = &[
        Target::Cursor,
        Target::Copilot,
        Target::Windsurf,
        Target::Devin,
        Target::Antigravity,
        Target::Kiro,
        Target::Cline,
        Target::Continue,
        Target::Claude,
        Target::AgentsMd,
        Target::Gemini,
    ];

    /// The name used by `--to`.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Cursor => "cursor",
            Target::Copilot => "copilot",
            Target::Windsurf => "windsurf",
            Target::Devin => crate::rules::rule_format::DEVIN_NAME,
            Target::Antigravity => "antigravity",
            Target::Kiro => "kiro",
            Target::Cline => "cline",
            Target::Continue => "continue",
            Target::Claude => "claude",
            Target::AgentsMd => "agents-md",
            Target::Gemini => "gemini",
        }
    }

    /// The format our reader reads this target's files as.
    pub fn format(self) -> Format {
        match self {
            Target::Cursor => Format::Cursor,
            Target::Copilot => Format::Copilot,
            Target::Windsurf | Target::Devin => Format::Windsurf,
            Target::Antigravity => Format::Antigravity,
            Target::Kiro => Format::Kiro,
            Target::Cline => Format::Cline,
            Target::Continue => Format::Continue,
            Target::Claude => Format::Claude,
            Target::AgentsMd => Format::AgentsMd,
            Target::Gemini => Format::Gemini,
        }
    }

    /// The tool's name, for reports.
    pub fn tool(self) -> &'static str {
        match self {
            Target::AgentsMd => "AGENTS.md",
            Target::Gemini => "Gemini CLI",
            Target::Windsurf => "Windsurf",
            Target::Devin => "Devin Desktop",
            other => other.format().tool(),
        }
    }

    /// What the target can express.
    pub fn caps(self) -> Caps {
        let base = Caps {
            paths: true,
            exclusions: false,
            on_request: true,
            manual: true,
            regex: false,
            on_request_paths: false,
        };
        match self {
            Target::Cursor
            | Target::Windsurf
            | Target::Devin
            | Target::Antigravity
            | Target::Kiro => base,
            Target::Copilot => Caps {
                manual: false,
                ..base
            },
            Target::Continue => Caps {
                exclusions: true,
                regex: true,
                on_request_paths: true,
                ..base
            },
            Target::Cline => Caps {
                on_request: false,
                manual: false,
                ..base
            },
            // Claude Code reads `paths` only: anything else would be
            // always-on there.
            Target::Claude => Caps {
                exclusions: true,
                on_request: false,
                manual: false,
                ..base
            },
            Target::AgentsMd | Target::Gemini => Caps {
                paths: false,
                on_request: false,
                manual: false,
                ..base
            },
        }
    }

    /// The places this target's generated files may be (relative to the
    /// project root): directories searched, files looked at.
    pub(crate) fn places(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Target::Cursor => (&[".cursor/rules"], &[]),
            Target::Copilot => (
                &[".github/instructions"],
                &[".github/copilot-instructions.md"],
            ),
            Target::Windsurf => (&[".windsurf/rules"], &[]),
            Target::Devin => (&[".devin/rules"], &[]),
            Target::Antigravity => (&[crate::rules::rule_format::ANTIGRAVITY_RULES], &[]),
            Target::Kiro => (&[".kiro/steering"], &[]),
            Target::Cline => (&[".clinerules"], &[]),
            Target::Continue => (&[".continue/rules"], &[]),
            Target::Claude => (&[".claude/rules"], &[]),
            Target::AgentsMd | Target::Gemini => (&[], &[]),
        }
    }

    /// Whether the tool reads rule files in subfolders of its place, so an
    /// export keeps the source's folders (`backend/api.md` is written as
    /// `.cursor/rules/backend/api.mdc`, where a hand-written
    /// `backend/api.mdc` is in the way rather than copied beside it).
    pub fn keeps_folders(self) -> bool {
        matches!(self, Target::Cursor | Target::Claude | Target::Copilot)
    }

    /// Whether the tool reads the file at `rel` (relative to the project
    /// root) itself: a rule read from it is already there for the tool.
    pub fn reads_natively(self, rel: &str) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let (dirs, files) = self.places();
        let in_place = dirs.iter().any(|d| {
            rel.strip_prefix(d).is_some_and(|r| {
                r.starts_with('/')
                    && crate::rules::rule_format::Format::is_rule_file(
                        self.format(),
                        std::path::Path::new(rel),
                    )
            })
        }) || files.contains(&rel);
        in_place
            || match self {
                Target::AgentsMd => crate::rules::rule_format::AGENTS_MD_FILE_NAMES.contains(&name),
                Target::Gemini => name == crate::rules::rule_format::GEMINI_FILE_NAME,
                Target::Claude => crate::rules::rule_format::CLAUDE_MEMORY_NAMES.contains(&name),
                _ => false,
            }
    }

    /// The combined file's name for `AGENTS.md`-style targets.
    pub fn combined_name(self) -> Option<&'static str> {
        match self {
            Target::AgentsMd => Some("AGENTS.md"),
            Target::Gemini => Some("GEMINI.md"),
            _ => None,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parses `--to` names (`all` for every target), in [`Target::ALL`] order.
pub fn targets_named<S: AsRef<str>>(names: &[S]) -> Result<Vec<Target>, TargetNameError> {
    let mut wanted = BTreeSet::new();
    for name in names {
        let name = name.as_ref().trim();
        if name.is_empty() {
            continue;
        }
        if name == "all" {
            wanted.extend(Target::ALL.iter().copied());
            continue;
        }
        // `agents` and `codex` as friendly aliases of `agents-md`.
        let alias = match name {
            "agents" | "codex" | "opencode" => "agents-md",
            other => other,
        };
        match Target::ALL.iter().find(|t| t.as_str() == alias) {
            Some(t) => {
                wanted.insert(*t);
            }
            None => {
                return Err(TargetNameError::Unknown {
                    name: name.to_string(),
                })
            }
        }
    }
    if wanted.is_empty() {
        return Err(TargetNameError::NoneNamed);
    }
    Ok(wanted.into_iter().collect())
}

/// Why [`targets_named`] found no targets.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetNameError {
    /// A name that is no target (nor `all` or an alias).
    #[error("unknown target '{name}'; the targets are: {known}, or all", known = target_names())]
    Unknown { name: String },
    /// Only empty names.
    #[error("no target named; give one or more target names, or all")]
    NoneNamed,
}

/// Every target's `--to` name, comma-separated.
fn target_names() -> String {
    let known: Vec<&str> = Target::ALL.iter().map(|t| t.as_str()).collect();
    known.join(", ")
}

/// What a target can express.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Globs over the files in context.
    pub paths: bool,
    /// `!` exclusions among the globs.
    pub exclusions: bool,
    /// Offered to the model by a description.
    pub on_request: bool,
    /// Only when mentioned.
    pub manual: bool,
    /// Regexes on the content of the files in context.
    pub regex: bool,
    /// An on-request rule also attached by its globs (Continue's
    /// `alwaysApply: false` with `globs`).
    pub on_request_paths: bool,
}

/// How a rule is written for one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetActivation {
    Always,
    /// Globs (positive ones in `include`; `exclude` without the `!`, only
    /// when the target has exclusions) and, for Continue, regexes.
    Paths,
    OnRequest,
    Manual,
}

/// A rule resolved against one target: what to write, and what is lost.
#[derive(Clone, Debug)]
pub struct Resolved<'a> {
    pub rule: &'a Rule,
    pub kind: TargetActivation,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub regex: Vec<String>,
    /// Set when the kind needs one (written or synthesized).
    pub description: Option<String>,
    /// The file's base name, unique within the plan's target.
    pub stem: String,
    /// What the target cannot express, each said once.
    pub lossy: Vec<String>,
}

/// What a target's writer makes of one rule.
#[derive(Clone, Debug)]
pub enum WrittenRule {
    /// Its own file: path relative to the project root and the frontmatter
    /// lines (none for a file without frontmatter).
    File { rel: String, front: Vec<String> },
    /// A section of a combined file (`AGENTS.md`, the Copilot repository
    /// file) at this path.
    Section { rel: String },
    /// Left out: the target cannot express it safely.
    Skipped(String),
}

/// The resolution of a rule's meaning for a target with `caps`: the
/// closest form the target can express that never fires more widely than
/// "offered by description" where the meaning is lost (never always-on
/// for a conditional rule).
pub fn resolve<'a>(rule: &'a Rule, caps: Caps, stem: String, tool: &str) -> Option<Resolved<'a>> {
    let meta = &rule.metadata;
    let mut include = Vec::new();
    let mut exclude = Vec::new();
    for p in meta.paths.iter().flatten() {
        let (neg, body) = crate::matchers::glob_compile::split_negation(p);
        if neg {
            exclude.push(body.to_string());
        } else {
            include.push(p.clone());
        }
    }
    let triggers = Triggers {
        topics: meta.topics.clone().unwrap_or_default(),
        skills: meta.skills.clone().unwrap_or_default(),
    };
    let mut r = Resolved {
        rule,
        kind: TargetActivation::Always,
        include,
        exclude,
        regex: meta.regex.clone().unwrap_or_default(),
        description: meta.description.clone(),
        stem,
        lossy: Vec::new(),
    };
    r.kind = r.activation(caps, tool, &triggers)?;
    r.note_enforcement(tool);
    // What the chosen kind drops.
    match r.kind {
        TargetActivation::Paths => r.fit_paths(caps, tool, &triggers),
        TargetActivation::OnRequest => r.fit_on_request(caps, tool, &triggers),
        TargetActivation::Manual | TargetActivation::Always => r.clear_triggers(),
    }
    Some(r)
}

/// The triggers of a rule no target writes: what a lossy note names.
struct Triggers {
    topics: Vec<String>,
    skills: Vec<String>,
}

impl Resolved<'_> {
    /// The activation the target writes for the rule's (`None`: none it
    /// can express without firing more widely).
    fn activation(&mut self, caps: Caps, tool: &str, t: &Triggers) -> Option<TargetActivation> {
        let conditional = !self.include.is_empty()
            || !t.topics.is_empty()
            || !self.regex.is_empty()
            || !t.skills.is_empty();
        Some(match self.rule.metadata.activation {
            Activation::Manual if caps.manual => TargetActivation::Manual,
            Activation::Manual if caps.on_request => {
                self.lossy.push(format!(
                    "{tool} has no manual rules; written as on request (offered by its description)"
                ));
                TargetActivation::OnRequest
            }
            Activation::Manual => return None,
            Activation::OnRequest if caps.on_request => TargetActivation::OnRequest,
            Activation::OnRequest => return None,
            Activation::Auto if !self.include.is_empty() && caps.paths => TargetActivation::Paths,
            Activation::Auto if !self.regex.is_empty() && caps.regex => TargetActivation::Paths,
            Activation::Auto if conditional && caps.on_request => {
                let what = if !t.topics.is_empty() {
                    "topics"
                } else if !t.skills.is_empty() {
                    "skills"
                } else {
                    "regex"
                };
                self.lossy.push(format!(
                    "{tool} cannot express {what}; written as on request (offered by its description), never always-on"
                ));
                TargetActivation::OnRequest
            }
            Activation::Auto if conditional => return None,
            Activation::Auto => TargetActivation::Always,
        })
    }

    /// Enforcement: no target refuses anything; the text stays, with a note.
    fn note_enforcement(&mut self, tool: &str) {
        let meta = &self.rule.metadata;
        if let Some(enforce) = meta.enforce {
            let what = match (meta.paths.is_some(), meta.enforced_commands().is_some()) {
                (true, true) => "writes to its paths and the commands it names",
                (true, false) => "writes to its paths",
                _ => "the commands it names",
            };
            self.lossy.push(format!(
                "{tool} cannot enforce: the rule is written as text; its 'enforce: {}' ({what}) holds only where the wave-rules hooks run",
                enforce.as_str()
            ));
        }
    }

    /// A rule written with paths: what the target cannot add to them.
    fn fit_paths(&mut self, caps: Caps, tool: &str, t: &Triggers) {
        if !t.skills.is_empty() {
            self.lossy.push(format!(
                "{tool} has no skills: the rule fires on its paths only, not while the skills {} are active",
                t.skills.join(", ")
            ));
        }
        if !t.topics.is_empty() {
            self.lossy.push(format!(
                "{tool} has no topics: the rule fires on its paths only, not on the topics {}",
                t.topics.join(", ")
            ));
        }
        if !self.exclude.is_empty() && !caps.exclusions {
            self.lossy.push(format!(
                "{tool} has no '!' exclusions: the rule also fires for {}",
                self.exclude.join(", ")
            ));
            self.exclude.clear();
        }
        if !self.regex.is_empty() && !caps.regex {
            self.lossy.push(format!(
                "{tool} has no content regex: the rule fires for any file matching its paths"
            ));
            self.regex.clear();
        }
        if self.include.is_empty() && !self.exclude.is_empty() {
            // Exclusions only: read as "everything but".
            self.include.push("**".to_string());
        }
    }

    /// A rule offered on request: attached by its paths too where the
    /// target can, and always with a description.
    fn fit_on_request(&mut self, caps: Caps, tool: &str, t: &Triggers) {
        let on_request = self.rule.metadata.activation == Activation::OnRequest;
        let by_paths = !self.include.is_empty() || !self.regex.is_empty();
        if on_request && by_paths && caps.on_request_paths {
            // Kept: attached by its globs, or offered by description.
        } else {
            if on_request && by_paths {
                self.lossy.push(format!(
                    "{tool} cannot attach an on-request rule by its paths too; it is offered by its description only"
                ));
            }
            self.clear_triggers();
        }
        if self.description.is_none() {
            let d = synthesized_description(self.rule, &t.topics);
            self.lossy.push(format!(
                "no description, and {tool}'s model decides by the description whether to read the rule; written with \"{d}\" (add a description to the source)"
            ));
            self.description = Some(d);
        }
    }

    /// No paths, exclusions or regexes written.
    fn clear_triggers(&mut self) {
        self.include.clear();
        self.exclude.clear();
        self.regex.clear();
    }
}

/// Why [`resolve`] left a rule out for a target, or `None` when it did not.
pub fn skip_reason(rule: &Rule, caps: Caps, tool: &str) -> Option<String> {
    let meta = &rule.metadata;
    let has_paths = meta
        .paths
        .iter()
        .flatten()
        .any(|p| !crate::matchers::glob_compile::split_negation(p).0);
    let topics = meta.topics.as_ref().is_some_and(|t| !t.is_empty());
    let regex = meta.regex.as_ref().is_some_and(|t| !t.is_empty());
    let skills = meta.skills.as_ref().is_some_and(|t| !t.is_empty());
    let what = match meta.activation {
        Activation::Manual if !caps.manual && !caps.on_request => "manual rules",
        Activation::OnRequest if !caps.on_request => "on-request rules",
        Activation::Auto if has_paths && caps.paths => return None,
        Activation::Auto if regex && caps.regex => return None,
        Activation::Auto if (has_paths || topics || regex || skills) && !caps.on_request => {
            if has_paths {
                "paths in a file that is always read"
            } else if topics {
                "topics"
            } else if skills {
                "skills"
            } else {
                "regex"
            }
        }
        _ => return None,
    };
    Some(format!(
        "{tool} cannot express {what}; left out rather than made always-on"
    ))
}

/// A description from the topics or the body's first line.
fn synthesized_description(rule: &Rule, topics: &[String]) -> String {
    if !topics.is_empty() {
        return format!("Use when the task involves: {}", topics.join(", "));
    }
    let line = rule
        .content
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty() && !l.starts_with("<!--"))
        .unwrap_or(rule.id.as_str());
    let mut d: String = line.chars().take(DESCRIPTION_CHARS).collect();
    if line.chars().count() > DESCRIPTION_CHARS {
        d.push('…');
    }
    d
}

/// The `---`-fenced frontmatter holding these lines, each on its own;
/// empty when there are none.
pub fn frontmatter(lines: &[String]) -> String {
    let mut text = String::new();
    if !lines.is_empty() {
        text.push_str("---\n");
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        text.push_str("---\n");
    }
    text
}

/// Pushes the rule's `description:` line, when it has one.
pub(crate) fn push_description(front: &mut Vec<String>, r: &Resolved) {
    if let Some(d) = &r.description {
        front.push(format!("description: {}", quote(d)));
    }
}

/// A YAML double-quoted string.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A YAML flow list of double-quoted strings.
pub fn quote_list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", inner.join(", "))
}
