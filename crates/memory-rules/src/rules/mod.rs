//! The rule model and its parser: a rule, its scope, origin and format,
//! frontmatter, the shared parser, and the compiled rule set.

pub mod frontmatter;
pub mod origin;
pub mod parser;
pub mod rule;
pub mod rule_file;
pub mod rule_format;
pub mod rule_set;
pub mod scope;
pub mod skill_name;
