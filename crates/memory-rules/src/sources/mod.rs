//! Where rules come from: the sources, the walker that finds rule files,
//! the nested project walk, rule packs and the policy, and the project root.
//!
//! Public: [`Config`] and [`Source`] (what a load reads), [`packs`], the
//! project root, and one rule file as the walker finds and reads it.

pub mod chosen;
pub mod packs;
pub mod self_load;

#[cfg(feature = "internals")]
pub mod discover;
#[cfg(not(feature = "internals"))]
pub(crate) mod discover;
#[cfg(feature = "internals")]
pub mod nested;
#[cfg(not(feature = "internals"))]
pub(crate) mod nested;
#[cfg(feature = "internals")]
pub mod project_root;
#[cfg(not(feature = "internals"))]
pub(crate) mod project_root;
#[cfg(feature = "internals")]
pub mod source;
#[cfg(not(feature = "internals"))]
pub(crate) mod source;

pub use crate::rules::rule_file::read_bounded as read_rule_file;
pub use chosen::{chosen_sources, ChosenSources};
pub use discover::RuleFile;
pub use project_root::{
    is_claude_project, is_git_root, is_wave_project, project_root, ProjectRoot,
};
pub use source::{Config, Source};
