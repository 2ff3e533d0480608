//! The memory-rules engine: discover rule files, parse their frontmatter,
//! compile their triggers once, and answer "which rules are active" per
//! message.
//!
//! Rules are Markdown files with YAML frontmatter read from an ordered list
//! of sources (a [`sources::Config`]); by default the agent SDK's four:
//! `~/.claude/rules`, `~/.wave/rules`, `<workdir>/.claude/rules`,
//! `<workdir>/.wave/rules`, later ones overriding earlier ones by id. A rule
//! without `paths` or `topics` is always active; `paths` (minimatch globs with
//! `{dot: true}`) activate it when any file in context matches; `topics`
//! activate it when a keyword starts a word of the prompt. Data flows one way:
//! discovery -> parsing -> [`RuleSet`] -> [`RuleSet::active`]; an agent's
//! events meet the rules through [`delivery::Responder`], which answers a
//! [`delivery::Event`] for a conversation's [`delivery::Session`].
//!
//! This file is the façade. The rule model and its loading are at the root;
//! four layers are public namespaces, each name with one path:
//! [`base`] (the file system, limits, "did you mean"), [`sources`] (where
//! rules come from, packs included), [`memory`] (notes) and [`delivery`]
//! (events, sessions, rendering, the delivery log, export). The other layers
//! are private; the `internals` feature opens them to the crate's own
//! integration tests, benches and fuzz targets; it is not an API.
//!
//! ```
//! use memory_rules::load;
//! use memory_rules::sources::Config;
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
// this list (the layering test, `crates/wave-rules/tests/acyclic.rs`). Four
// are public namespaces; the others are private. What the crate's own tests
// reach beyond the façade is opened in one place, [`internals`].
pub mod base;
pub mod delivery;
mod formats;
mod load;
mod matchers;
pub mod memory;
mod rules;
pub mod sources;

/// The one opening for the crate's own integration tests, benches and fuzz
/// targets (the `internals` feature): the private layers and modules they
/// test directly, at the paths they have inside the crate. Not an API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub mod formats {
        pub use crate::formats::*;
    }
    pub mod matchers {
        pub use crate::matchers::*;
    }
    pub mod rules {
        pub use crate::rules::*;
    }
    pub mod sources {
        pub mod discover {
            pub use crate::sources::discover::*;
        }
        pub mod nested {
            pub use crate::sources::nested::*;
        }
    }
}

// The rule model and its loading, at the root.
pub use base::diagnostic::{Code, Diagnostic, Fix, Severity};
pub use base::slug::slug;
pub use base::workdir::Workdir;
pub use formats::frontmatter_keys;
pub use load::fresh::Restored;
pub use load::snapshot::{Snapshot, SnapshotError};
pub use load::{check_paths, check_text, load, reload, reload_from, Loaded, Reloaded};
pub use matchers::glob_check::{check_glob, is_exclusion, split_commas, GlobProblem};
pub use matchers::topic_matcher::TopicMatcher;
pub use rules::origin::{provenance, LayerKind, Origin};
pub use rules::parser::parse_rule;
pub use rules::rule::{Activation, Enforce, Metadata, Remind, Rule, Scope};
pub use rules::rule_format::{formats_named, Format};
pub use rules::rule_set::{Contents, Excluded, Explanation, Reason, RuleSet};
pub use rules::skill_name;
