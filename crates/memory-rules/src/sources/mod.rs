//! Where rules come from: the sources, the walker that finds rule files,
//! the nested project walk, rule packs and the policy, and the project root.
//!
//! Public: [`Config`] and [`Source`] (what a load reads), [`packs`], the
//! project root, and one rule file as the walker finds and reads it.

pub mod chosen;
pub mod packs;
pub mod self_load;

pub(crate) mod discover;
pub(crate) mod nested;
pub(crate) mod project_root;
pub(crate) mod source;

pub use crate::rules::rule_file::read_rule_file;
pub use chosen::{chosen_sources, ChosenSources};
pub use discover::RuleFile;
pub use project_root::{
    is_claude_project, is_git_root, is_wave_project, project_root, ProjectRoot,
};
pub use source::{Config, Source};
