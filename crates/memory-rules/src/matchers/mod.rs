//! Matchers: globs (compile, check, index), the topic matcher, the shell
//! parser and the enforced command patterns. Below the rule model: they
//! match text and paths, and know nothing of rules.

pub mod command_matcher;
pub mod glob_check;
pub mod glob_compile;
pub mod glob_index;
pub mod path_key;
pub mod shell;
pub mod topic_matcher;
