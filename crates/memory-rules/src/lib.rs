//! The memory-rules engine: discover rule files, parse their frontmatter,
//! compile their triggers once, and answer "which rules are active" per
//! message.
//!
//! Rules are Markdown files with YAML frontmatter read from an ordered list
//! of [`Source`]s (a [`Config`]); by default the agent SDK's four:
//! `~/.claude/rules`, `~/.wave/rules`, `<workdir>/.claude/rules`,
//! `<workdir>/.wave/rules`, later ones overriding earlier ones by id. A rule
//! without `paths` or `topics` is always active; `paths` (minimatch globs with
//! `{dot: true}`) activate it when any file in context matches; `topics`
//! activate it when a keyword starts a word of the prompt. Data flows one way:
//! discovery -> parsing -> [`RuleSet`] -> [`RuleSet::active`]; an agent's
//! events meet the rules through [`Responder`], which answers an [`Event`]
//! for a conversation's [`Session`].
//!
//! This file is the façade: the modules are private, and what callers use
//! (the CLI, the Node binding) is re-exported here, or lives in the few
//! public namespaces ([`export`], [`fs`], [`limits`], [`memory`],
//! [`packs`], [`read_rule`], [`render`], [`suggest`]). The `internals` feature opens
//! the parser, the pattern compiler, the topic matcher and the walker to the
//! crate's own integration tests, benches and fuzz targets; it is not an
//! API.
//!
//! ```
//! use memory_rules::{load, Config};
//! let dir = tempfile::tempdir()?;
//! let rules = dir.path().join(".wave/rules");
//! std::fs::create_dir_all(&rules)?;
//! std::fs::write(rules.join("ts.md"), "---\npaths: src/**/*.ts\n---\nUse strict TypeScript.")?;
//! std::fs::write(rules.join("sql.md"), "---\ntopics: [sql]\n---\nNo SELECT *.")?;
//!
//! let loaded = load(&Config::with_home(dir.path(), dir.path().join("no-home")));
//! let set = &loaded.rules;
//! let ids = |idx: Vec<usize>| idx.into_iter().map(|i| set.rules()[i].id.clone()).collect::<Vec<_>>();
//! assert_eq!(ids(set.active(&["src/app/main.ts"], None)), ["ts.md"]);
//! assert_eq!(ids(set.active(&["README.md"], Some("Write the SQL query"))), ["sql.md"]);
//! assert!(loaded.diagnostics.is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```

// The layers, lowest first: each folder imports only those before it in
// this list (the layering test, `crates/wave-rules/tests/acyclic.rs`). The
// private ones are public (hidden) under the `internals` feature, for the
// crate's own integration tests, benches and fuzz targets. (Plain `mod`
// items, not a macro, so that rustfmt reaches every file.)
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod base;
#[cfg(not(feature = "internals"))]
mod base;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod delivery;
#[cfg(not(feature = "internals"))]
mod delivery;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod formats;
#[cfg(not(feature = "internals"))]
mod formats;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod load;
#[cfg(not(feature = "internals"))]
mod load;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod matchers;
#[cfg(not(feature = "internals"))]
mod matchers;
pub mod memory;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod rules;
#[cfg(not(feature = "internals"))]
mod rules;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod sources;
#[cfg(not(feature = "internals"))]
mod sources;

// The public namespaces of the façade.
pub use base::{fs, limits, suggest};
pub use delivery::export;
pub use delivery::{
    delivery_log, read_rule_tool as read_rule, render, rules_at_edit as recall, tokens,
};
pub use rules::rule_set::enforcement as enforce;
pub use sources::packs;

pub use base::diagnostic::{Code, Diagnostic, Severity};
pub use base::slug::slug;
pub use base::workdir::Workdir;
pub use delivery::conversation::Conversation;
pub use delivery::conversations::Conversations;
pub use delivery::event::{Event, EventKind};
pub use delivery::responder::{file_contents, Answer, Given, Memory, Reminder, Responder};
pub use delivery::session::{rule_version, Budget, Due, Session, Start, SESSION_VERSION};
pub use delivery::tool_call::{ToolCall, ToolKind};
pub use delivery::touched::{
    patch_files, tool_files, Touched, COMMAND_KEYS, FILE_KEYS, FILE_LIST_KEYS, PATCH_KEYS,
};
pub use formats::kind as tool_kind;
pub use load::snapshot::Snapshot;
pub use load::stamp::Stamp;
pub use load::{check_paths, load, reload, reload_from, Loaded, Reloaded};
pub use matchers::glob_check::{check_glob, is_exclusion, split_commas, GlobProblem};
pub use matchers::glob_compile::PatternError;
pub use matchers::topic_matcher::TopicMatcher;
pub use rules::origin::{provenance, Layer, LayerKind, Origin, PackLabel};
pub use rules::parser::{parse_rule, ParsedRule};
pub use rules::rule::{Activation, Enforce, Metadata, Remind, Rule, Scope};
pub use rules::rule_format::{formats_named, Format, DEFAULT_SOURCE_NAMES};
pub use rules::rule_set::{Contents, Excluded, Explanation, Reason, RuleSet};
pub use rules::skill_name::name as skill_name;
pub use sources::discover::{read_bounded as read_rule_file, RuleFile};
pub use sources::project_root::{project_root, ProjectRoot};
pub use sources::source::{Config, Source};
