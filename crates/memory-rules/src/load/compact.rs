//! The rule set's rules in the hooks' file ([`crate::load::fresh`]) as
//! postcard, not JSON: a hook restores every rule on every event, and at
//! 1,000 rules JSON's keys, escapes and digits cost 11 M instructions, more
//! than half of the run.
//!
//! Postcard writes fields by position, so it cannot skip one: `Rule`,
//! `Metadata` and `Origin` skip their empty fields in JSON (the form users
//! see), so they are written here through mirrors that write every field.
//! Each mirror is built and taken apart by naming every field, so a field
//! added to the model does not compile until it is added here too.

use crate::load::snapshot::{restore_rule, SavedPattern, SavedRule, SnapshotError};
use crate::rules::origin::{LayerKind, Origin};
use crate::rules::parser::ParsedRule;
use crate::rules::rule::{Activation, Enforce, Metadata, Remind, Rule};
use crate::rules::rule_format::Format;
use crate::rules::scope::Scope;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// A rule with its compiled patterns, every field written.
#[derive(Serialize, Deserialize)]
struct CompactRule {
    rule: CompactBody,
    compiled: Vec<SavedPattern>,
}

/// [`Rule`], every field written.
#[derive(Serialize, Deserialize)]
struct CompactBody {
    id: String,
    scope: Scope,
    file_path: PathBuf,
    content: Arc<str>,
    metadata: CompactMetadata,
    format: Format,
    origin: CompactOrigin,
}

/// [`Metadata`], every field written.
#[derive(Serialize, Deserialize)]
struct CompactMetadata {
    paths: Option<Vec<String>>,
    priority: Option<i64>,
    topics: Option<Vec<String>>,
    description: Option<String>,
    remind: Option<Remind>,
    activation: Activation,
    regex: Option<Vec<String>>,
    name: Option<String>,
    directory: Option<String>,
    skills: Option<Vec<String>>,
    enforce: Option<Enforce>,
    commands: Option<Vec<String>>,
    summary: Option<String>,
}

/// [`Origin`], every field written.
#[derive(Serialize, Deserialize)]
struct CompactOrigin {
    layer: LayerKind,
    pack: Option<String>,
    locked: bool,
    provenance: String,
    overrides: Vec<String>,
}

/// The rules (with their compiled patterns), in order, as postcard.
pub(crate) fn to_bytes(rules: Vec<SavedRule>) -> Result<Vec<u8>, postcard::Error> {
    let compact: Vec<CompactRule> = rules.into_iter().map(CompactRule::from).collect();
    postcard::to_allocvec(&compact)
}

/// The rules [`to_bytes`] wrote, with their patterns as saved; an error for
/// anything else.
pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Vec<ParsedRule>, SnapshotError> {
    let compact: Vec<CompactRule> =
        postcard::from_bytes(bytes).map_err(|e| SnapshotError::NotASnapshot {
            source: serde::de::Error::custom(e),
        })?;
    compact
        .into_iter()
        .map(|c| restore_rule(SavedRule::from(c)))
        .collect()
}

/// Moves every field of one struct into the field of the same name of
/// another, each converted (a mirror's field is the model's, or its mirror).
macro_rules! same_fields {
    ($from:ident => $to:ident { $($field:ident),* $(,)? }) => {
        impl From<$from> for $to {
            #[allow(clippy::useless_conversion)]
            fn from(x: $from) -> $to {
                let $from { $($field),* } = x;
                $to { $($field: $field.into()),* }
            }
        }
    };
}

same_fields!(SavedRule => CompactRule { rule, compiled });
same_fields!(CompactRule => SavedRule { rule, compiled });
same_fields!(Rule => CompactBody { id, scope, file_path, content, metadata, format, origin });
same_fields!(CompactBody => Rule { id, scope, file_path, content, metadata, format, origin });

same_fields!(Metadata => CompactMetadata {
    paths, priority, topics, description, remind, activation, regex, name,
    directory, skills, enforce, commands, summary,
});
same_fields!(CompactMetadata => Metadata {
    paths, priority, topics, description, remind, activation, regex, name,
    directory, skills, enforce, commands, summary,
});
same_fields!(Origin => CompactOrigin { layer, pack, locked, provenance, overrides });
same_fields!(CompactOrigin => Origin { layer, pack, locked, provenance, overrides });

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::parser::parse_rule;
    use std::path::Path;

    /// A rule with every frontmatter key, an origin with every field and a
    /// compiled pattern comes back as it went.
    #[test]
    fn a_rule_with_every_field_set_comes_back_as_it_went() {
        let text = "---\npaths: [\"src/**/*.ts\", \"!**/*.test.ts\"]\npriority: 3\n\
            topics: [billing, \"phrase two\"]\ndescription: d\nremind: every-turn\n\
            activation: on-request\nname: n\nskills: [deploy]\nenforce: block\n\
            commands: [\"git push --force*\"]\nsummary: s\n---\nBody: ünïcode \"quoted\"\n";
        let mut parsed = parse_rule(Scope::Project, "a/r.md", Path::new("/w/a/r.md"), text)
            .rule
            .expect("a rule");
        parsed.rule.metadata.regex = Some(vec!["TODO".into()]);
        parsed.rule.metadata.directory = Some("a".into());
        parsed.rule.origin = Origin {
            layer: LayerKind::Pack,
            pack: Some("@acme/rules".into()),
            locked: true,
            provenance: "@acme/rules:a/r.md".into(),
            overrides: vec!["user:a/r.md".into()],
        };
        assert!(!parsed.patterns.is_empty());
        let want = parsed.rule.clone();
        let bytes = to_bytes(vec![SavedRule::of(&parsed.rule, &parsed.patterns)]).unwrap();
        let back = from_bytes(&bytes).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].rule, want);
        assert_eq!(back[0].patterns.len(), parsed.patterns.len());
        assert!(from_bytes(&bytes[..bytes.len() / 2]).is_err(), "truncated");
    }
}
