//! Where a rule came from: its layer (a pack, the user, the project, the
//! policy), the pack that shipped it, whether it is locked, and what it
//! replaced.
//!
//! The layers, in override order (a later layer replaces an earlier one's
//! rule of the same id): packs (in the order the project's
//! `.wave/config.toml` names them) < user < project < policy. Policy rules
//! are *locked*: no rule of another layer replaces them and no `disable`
//! removes them; every attempt is reported. A [`Source`](crate::sources::source::Source)
//! carries its [`Layer`]; each rule of a discovery gets its [`Origin`] from
//! its source when the rules are assembled.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// What a source is, beyond its scope: a pack, a policy directory or pack,
/// or one of the user's and the project's own sources.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layer {
    /// The user's or the project's own rules (the source's scope says which).
    #[default]
    Own,
    /// A rule pack the project names.
    Pack(PackLabel),
    /// The policy: its rules directory (`pack` is `None`) or a pack the
    /// policy names. Locked.
    Policy(Option<PackLabel>),
}

/// A pack as provenance names it, and the directory its rules must stay in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PackLabel {
    /// `@acme/rules@2.3.1`, `security@3f2a1bc`, `./team-rules`.
    pub label: String,
    /// The pack's name without its version (`@acme/rules`): what a
    /// qualified `disable` (`@acme/rules:legacy.md`) names.
    pub name: String,
    /// The pack's root (the package, the checkout, the folder): its rules
    /// may not lead outside it through links.
    pub root: PathBuf,
}

impl Layer {
    /// The kind of layer, for a rule of a source of this layer and scope.
    pub fn kind(&self, scope: crate::rules::scope::Scope) -> LayerKind {
        match self {
            Layer::Own if scope == crate::rules::scope::Scope::User => LayerKind::User,
            Layer::Own => LayerKind::Project,
            Layer::Pack(_) => LayerKind::Pack,
            Layer::Policy(_) => LayerKind::Policy,
        }
    }

    /// Policy rules are locked.
    pub fn locked(&self) -> bool {
        matches!(self, Layer::Policy(_))
    }

    /// The pack, if the source is one (a project's or the policy's).
    pub fn pack(&self) -> Option<&PackLabel> {
        match self {
            Layer::Pack(p) | Layer::Policy(Some(p)) => Some(p),
            _ => None,
        }
    }
}

/// The four layers, in override order.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum LayerKind {
    Pack,
    User,
    #[default]
    Project,
    Policy,
}

impl LayerKind {
    /// `pack`, `user`, `project` or `policy`.
    pub fn as_str(self) -> &'static str {
        match self {
            LayerKind::Pack => "pack",
            LayerKind::User => "user",
            LayerKind::Project => "project",
            LayerKind::Policy => "policy",
        }
    }
}

impl fmt::Display for LayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where one rule of a discovery came from (set by the load, from the rule's
/// source; a rule parsed alone has the default: the project's own).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    pub layer: LayerKind,
    /// `@acme/rules@2.3.1` for a rule of a pack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack: Option<String>,
    /// A policy rule: nothing replaces or disables it.
    #[serde(default)]
    pub locked: bool,
    /// Where it came from, in one string: `@acme/rules@2.3.1:security.md`,
    /// `policy:/etc/wave/rules/x.md`, `project:.wave/rules/x.md`,
    /// `user:/home/me/.wave/rules/x.md`.
    #[serde(default)]
    pub provenance: String,
    /// The provenance of every rule of the same id this one replaced, earliest
    /// first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
}

/// The provenance string of a rule with this id and file, from a source of
/// this layer and scope (`workdir` shortens the project's paths).
pub fn provenance(
    layer: &Layer,
    scope: crate::rules::scope::Scope,
    id: &str,
    file: &std::path::Path,
    workdir: &std::path::Path,
) -> String {
    match layer {
        Layer::Pack(p) => format!("{}:{id}", p.label),
        Layer::Policy(Some(p)) => format!("policy:{}:{id}", p.label),
        Layer::Policy(None) => format!("policy:{}", file.display()),
        Layer::Own => {
            // Every rule of every load: built without the formatter.
            let shown = file.strip_prefix(workdir).unwrap_or(file);
            let shown = shown.to_string_lossy();
            let mut out = String::with_capacity(scope.as_str().len() + 1 + shown.len());
            out.push_str(scope.as_str());
            out.push(':');
            out.push_str(&shown);
            out
        }
    }
}
