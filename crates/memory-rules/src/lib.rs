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
//! [`discover`] -> [`parse`] -> [`RuleSet`] -> [`RuleSet::active`].
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

pub mod command_pattern;
pub mod context;
pub mod conversations;
pub mod delivery_log;
pub mod diagnostic;
pub mod discover;
pub mod enforce;
pub mod event;
mod fold;
pub mod format;
pub mod formats;
pub mod frontmatter;
pub mod fs;
mod globindex;
pub mod limits;
mod load;
pub mod memory;
pub mod origin;
pub mod packs;
pub mod parse;
pub mod pattern;
pub mod read_rule;
pub mod recall;
pub mod render;
pub mod respond;
pub mod root;
pub mod rule;
pub mod ruleset;
pub mod scope;
pub mod session;
pub mod shell;
pub mod skill;
pub mod slug;
mod snapshot;
pub mod source;
mod stamp;
pub mod suggest;
pub use stamp::{Stamp, RACY_WINDOW};
pub mod tokens;
pub mod topics;
pub mod touched;

pub use conversations::Conversations;
pub use diagnostic::{Code, Diagnostic, Severity};
pub use event::{Conversation, Event, EventKind, ToolCall, ToolKind};
pub use format::{formats_named, Format, DEFAULT_SOURCE_NAMES};
pub use load::{load, reload, reload_from, Loaded, Reloaded};
pub use origin::{Layer, LayerKind, Origin, PackLabel};
pub use respond::{Answer, Given, Memory, Reminder, Responder};
pub use root::{project_root, ProjectRoot};
pub use rule::{Activation, Enforce, Metadata, Remind, Rule, Scope};
pub use ruleset::{Excluded, Explanation, Reason, RuleSet};
pub use session::{Budget, Due, Session, Start};
pub use snapshot::Snapshot;
pub use source::{Config, Source};
