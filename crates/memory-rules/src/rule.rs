//! The rule model: what one rule file means once parsed.

use std::fmt;
use std::path::PathBuf;

/// Where a rule comes from. Project rules win over user rules with the same id
/// and sort before them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `<workdir>/.wave/rules`
    Project,
    /// `<home>/.wave/rules`
    User,
}

impl Scope {
    /// `project` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The frontmatter fields we understand, as the author wrote them (after
/// comma-splitting). `paths` keeps `!` exclusions in place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pub paths: Option<Vec<String>>,
    pub priority: Option<i64>,
    pub topics: Option<Vec<String>>,
    pub description: Option<String>,
    /// `remind: every-turn`: re-surfaced at every turn while active.
    pub remind: Option<Remind>,
}

/// How often an active rule is re-surfaced in reminder mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

impl Metadata {
    /// A rule with neither `paths` nor `topics` is always active.
    pub fn is_unconditional(&self) -> bool {
        self.paths.is_none() && self.topics.is_none()
    }
}

/// One rule: a Markdown file's body plus its frontmatter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The path relative to its root, with `/` separators: `frontend/react.md`.
    pub id: String,
    pub scope: Scope,
    /// The file as found (not resolved through symlinks).
    pub file_path: PathBuf,
    /// The body, trimmed.
    pub content: String,
    pub metadata: Metadata,
}

impl Rule {
    /// `priority` (default 0).
    pub fn priority(&self) -> i64 {
        self.metadata.priority.unwrap_or(0)
    }
}

/// The order of every result: priority descending, project before user, id.
pub fn order(a: &Rule, b: &Rule) -> std::cmp::Ordering {
    b.priority()
        .cmp(&a.priority())
        .then(a.scope.cmp(&b.scope))
        .then_with(|| a.id.cmp(&b.id))
}
