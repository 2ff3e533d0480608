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

// The public namespaces of the façade.
pub mod delivery_log;
pub mod enforce;
pub mod export;
pub mod fs;
pub mod limits;
pub mod memory;
pub mod packs;
pub mod read_rule;
pub mod recall;
pub mod render;
pub mod suggest;
pub mod tokens;

/// Private modules, public (and hidden) under the `internals` feature, for
/// the crate's own integration tests, benches and fuzz targets.
macro_rules! internals {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        #[allow(dead_code)]
        mod $name;
    )*};
}

internals!(
    context,
    discover,
    formats,
    frontmatter,
    parse,
    pattern,
    shell,
    topics
);

mod command_pattern;
mod conversations;
mod diagnostic;
mod event;
mod fold;
mod format;
mod globindex;
mod globs;
mod load;
mod origin;
mod respond;
mod root;
mod rule;
mod rule_file;
mod ruleset;
mod scope;
mod session;
mod skill;
mod slug;
mod snapshot;
mod source;
mod stamp;
mod touched;

pub use context::Workdir;
pub use conversations::Conversations;
pub use diagnostic::{Code, Diagnostic, Severity};
pub use discover::{read_bounded as read_rule_file, Found};
pub use event::{Conversation, Event, EventKind, ToolCall, ToolKind};
pub use format::{formats_named, Format, DEFAULT_SOURCE_NAMES};
pub use formats::kind as tool_kind;
pub use globs::{check_glob, is_exclusion, split_commas, GlobProblem};
pub use load::{check_paths, load, reload, reload_from, Loaded, Reloaded};
pub use origin::{provenance, Layer, LayerKind, Origin, PackLabel};
pub use parse::{parse_rule, ParsedRule};
pub use pattern::PatternError;
pub use respond::{file_contents, Answer, Given, Memory, Reminder, Responder};
pub use root::{project_root, ProjectRoot};
pub use rule::{Activation, Enforce, Metadata, Remind, Rule, Scope};
pub use ruleset::{Contents, Excluded, Explanation, Reason, RuleSet};
pub use session::{rule_version, Budget, Due, Session, Start, SESSION_VERSION};
pub use skill::name as skill_name;
pub use slug::slug;
pub use snapshot::Snapshot;
pub use source::{Config, Source};
pub use stamp::Stamp;
pub use topics::TopicMatcher;
pub use touched::{
    patch_files, tool_files, Touched, COMMAND_KEYS, FILE_KEYS, FILE_LIST_KEYS, PATCH_KEYS,
};
