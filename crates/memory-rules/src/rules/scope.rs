//! Where a rule comes from: the project or the user.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a rule comes from. Project rules win over user rules with the same id
/// and sort before them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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
