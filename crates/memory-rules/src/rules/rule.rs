//! The rule model: what one rule file means once parsed.

use crate::rules::origin::Origin;
use crate::rules::rule_format::Format;
pub use crate::rules::scope::Scope;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// The frontmatter fields we understand, as the author wrote them (after
/// comma-splitting). `paths` keeps `!` exclusions in place. Saved (in the
/// hooks' rules snapshot) without the fields it does not have, which read
/// back as `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `remind: every-turn`: re-surfaced at every turn while active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remind: Option<Remind>,
    /// How the rule becomes active (see [`Activation`]).
    pub activation: Activation,
    /// Regexes matched against the content of the files in context, when the
    /// caller provides it (Continue's `regex`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regex: Option<Vec<String>>,
    /// A name the rule can be mentioned by (`@name`), besides its id and base
    /// name (Continue's and Kiro's `name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The project subdirectory the rule is scoped to (a nested
    /// `.cursor/rules` or `AGENTS.md`), `/`-separated; its `paths` already
    /// carry it as a prefix. Deeper rules sort after shallower ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
    /// `skills`: the rule is active while one of these skills is active in
    /// the session (lowercased names, as the agent names the skill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// `enforce`: a write to a file of the rule's `paths`, or a shell command
    /// matching one of its `commands`, is refused (`block`) or let through
    /// with the rule put in front of the model (`warn`). See `enforce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforce: Option<Enforce>,
    /// `commands`: patterns matched against each simple command of a shell
    /// line (`git push --force*`); read only with `enforce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<String>>,
    /// `summary`: the one line that stands for the rule where it comes back
    /// in short form (at the edit it governs); else its first line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// What an enforced rule does to a write or command it governs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Enforce {
    /// Refused before it runs; the rule's text is the reason the model sees.
    Block,
    /// Let through; the rule is put in front of the model.
    Warn,
}

impl Enforce {
    /// `block` or `warn`.
    pub fn as_str(self) -> &'static str {
        match self {
            Enforce::Block => "block",
            Enforce::Warn => "warn",
        }
    }
}

/// How a rule becomes active.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// Always, or when its `paths` / `topics` / `regex` fire.
    #[default]
    Auto,
    /// Offered to the model by its description; the model reads it when it
    /// judges it relevant (Cursor "Agent Requested", Windsurf
    /// `model_decision`, Kiro `auto`, ...). Also active when mentioned.
    OnRequest,
    /// Active only when the prompt mentions it (`@name`, `@id`).
    Manual,
}

impl Activation {
    /// `auto`, `on-request` or `manual`.
    pub fn as_str(self) -> &'static str {
        match self {
            Activation::Auto => "auto",
            Activation::OnRequest => "on-request",
            Activation::Manual => "manual",
        }
    }
}

/// How often an active rule is re-surfaced in reminder mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Remind {
    /// Once per session (and again after compaction): the default.
    Once,
    /// At every turn while active, as one short line.
    EveryTurn,
}

impl Remind {
    pub fn as_str(self) -> &'static str {
        match self {
            Remind::Once => "once",
            Remind::EveryTurn => "every-turn",
        }
    }
}

/// The one trigger that alone can activate a rule ([`Metadata::sole_trigger`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Only a file its `paths` match.
    Paths,
    /// Only a prompt (or a subagent's task) naming one of its `topics`.
    Topics,
    /// Nothing: it is always active ([`Metadata::is_unconditional`]).
    Always,
}

impl Metadata {
    /// `Paths` or `Topics` when that alone can activate the rule, `Always`
    /// when it is always active: an `auto` rule with one of the two or
    /// neither, and no other trigger or duty (no `regex`, `skills`,
    /// enforcement, `commands`, every-turn reminder or nested `directory`);
    /// `None` for every other rule. A hook whose event cannot give a rule of
    /// that kind need not restore it at all.
    pub fn sole_trigger(&self) -> Option<Trigger> {
        let nothing_else = self.activation == Activation::Auto
            && self.regex.is_none()
            && self.skills.is_none()
            && self.enforce.is_none()
            && self.commands.is_none()
            && self.remind != Some(Remind::EveryTurn)
            && self.directory.is_none();
        match (nothing_else, self.paths.is_some(), self.topics.is_some()) {
            (true, true, false) => Some(Trigger::Paths),
            (true, false, true) => Some(Trigger::Topics),
            (true, false, false) => Some(Trigger::Always),
            _ => None,
        }
    }

    /// A rule with neither `paths` nor `topics` (nor `regex`, nor
    /// `skills`, nor enforced `commands`) is always active, unless it is on
    /// request or manual.
    pub fn is_unconditional(&self) -> bool {
        self.activation == Activation::Auto
            && self.paths.is_none()
            && self.topics.is_none()
            && self.regex.is_none()
            && self.skills.is_none()
            && self.enforced_commands().is_none()
    }

    /// The `commands` patterns, when the rule enforces them.
    pub fn enforced_commands(&self) -> Option<&[String]> {
        self.enforce.and(self.commands.as_deref())
    }

    /// The one line standing for the rule in short form: its `summary`,
    /// else the first non-empty line of `body`.
    pub fn short<'a>(&'a self, body: &'a str) -> &'a str {
        self.summary
            .as_deref()
            .or_else(|| body.lines().map(str::trim).find(|l| !l.is_empty()))
            .unwrap_or("")
    }

    /// One name per way a rule becomes active, the same in every output
    /// (`list --json`, MCP `list_rules`): `always`, `on-request`, `manual`,
    /// or what fires it (`paths`, `topics`, `regex`, `skills`, `commands`,
    /// joined with `+`).
    pub fn activation_kind(&self) -> String {
        match self.activation {
            Activation::OnRequest => return "on-request".into(),
            Activation::Manual => return "manual".into(),
            Activation::Auto => {}
        }
        if self.is_unconditional() {
            return "always".into();
        }
        let kinds: Vec<&str> = [
            ("paths", self.paths.is_some()),
            ("topics", self.topics.is_some()),
            ("regex", self.regex.is_some()),
            ("skills", self.skills.is_some()),
            ("commands", self.enforced_commands().is_some()),
        ]
        .into_iter()
        .filter_map(|(k, on)| on.then_some(k))
        .collect();
        kinds.join("+")
    }

    /// How many directories deep the rule's `directory` is (0 for none).
    pub fn depth(&self) -> usize {
        self.directory
            .as_deref()
            .map_or(0, |d| d.split('/').filter(|s| !s.is_empty()).count())
    }
}

/// One rule: a Markdown file's body plus its frontmatter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    /// The path relative to its root, with `/` separators: `frontend/react.md`.
    pub id: String,
    pub scope: Scope,
    /// The file as found (not resolved through symlinks).
    pub file_path: PathBuf,
    /// The body, trimmed. Shared, not copied, by every clone of the rule
    /// (the reload cache and the rule set hold the same text).
    pub content: Arc<str>,
    /// The frontmatter's meaning. Shared, not copied, like the body (a
    /// rule's 240 bytes and its lists, held once for the reload cache and
    /// the rule set).
    pub metadata: Arc<Metadata>,
    /// The format (and so the tool) the rule was read as.
    pub format: Format,
    /// Where it came from (its layer, pack, lock, what it replaced); set by
    /// the load from the rule's source.
    #[serde(default)]
    pub origin: Origin,
}

impl Rule {
    /// The names a rule can be mentioned by in a prompt (`@name`), lowercased:
    /// its id, its id without the source name, its file's base name without
    /// extension (as Cursor and Windsurf write it), and its `name`.
    pub fn mention_names(&self) -> Vec<String> {
        let mut names = vec![self.id.to_lowercase()];
        let bare = self.id.split_once(':').map_or(self.id.as_str(), |(_, r)| r);
        names.push(bare.to_lowercase());
        let base = bare.rsplit('/').next().unwrap_or(bare);
        names.push(base.to_lowercase());
        let stem = [".instructions.md", ".mdc", ".md", ".txt", ".yaml"]
            .iter()
            .find_map(|ext| base.strip_suffix(ext))
            .unwrap_or(base);
        names.push(stem.to_lowercase());
        if let Some(name) = &self.metadata.name {
            names.push(name.trim().to_lowercase());
        }
        names.retain(|n| !n.is_empty());
        names.sort();
        names.dedup();
        names
    }

    /// `priority` (default 0).
    pub fn priority(&self) -> i64 {
        self.metadata.priority.unwrap_or(0)
    }
}

/// The order of every result: priority descending, project before user,
/// shallower scoped directory before deeper (so the closest comes last),
/// id.
pub fn order(a: &Rule, b: &Rule) -> std::cmp::Ordering {
    b.priority()
        .cmp(&a.priority())
        .then(a.scope.cmp(&b.scope))
        .then_with(|| a.metadata.depth().cmp(&b.metadata.depth()))
        .then_with(|| a.id.cmp(&b.id))
}
