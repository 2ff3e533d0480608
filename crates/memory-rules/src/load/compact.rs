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

use crate::load::rule_index::{self, RulesNeeded};
use crate::load::snapshot::{restore_rule, SavedPattern, SavedRule, SnapshotError};
use crate::rules::origin::{LayerKind, Origin};
use crate::rules::parser::RulePattern;
use crate::rules::rule::{Activation, Enforce, Metadata, Remind, Rule};
use crate::rules::rule_format::Format;
use crate::rules::rule_set::RuleCensus;
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
    #[serde(deserialize_with = "arc_str")]
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

/// The rules (with their compiled patterns), in order: their index
/// ([`crate::load::rule_index`]: what alone activates each, its length),
/// then their records, each a rule as postcard. A restore that does not
/// need a rule skips its record unread ([`from_bytes`]).
pub(crate) fn to_bytes(rules: Vec<SavedRule>) -> Result<Vec<u8>, postcard::Error> {
    let too_many = || postcard::Error::SerializeBufferFull;
    let mut index = rule_index::start(rules.len()).ok_or_else(too_many)?;
    let mut records = Vec::new();
    for saved in rules {
        let head = rule_index::Head::of(
            &saved.rule.metadata,
            saved.positive_globs(),
            saved.rule.format,
        );
        let before = records.len();
        records = postcard::to_extend(&CompactRule::from(saved), records)?;
        let len = u32::try_from(records.len() - before).map_err(|_| too_many())?;
        head.push(&mut index, len);
    }
    index.extend_from_slice(&records);
    Ok(index)
}

/// The rules [`to_bytes`] wrote that `need` takes (its `files` relative
/// to the workdir), in order, with their
/// patterns as saved, and whether any was left out; an error for anything
/// else (an index that does not add up to the records, a record that is
/// no rule). The rules left out are never read.
pub(crate) fn from_bytes(bytes: &[u8], need: RulesNeeded) -> Result<Restored, SnapshotError> {
    let (entries, mut records) = rule_index::read(bytes)?;
    let wanted = rule_index::wanted(&entries, need)?;
    let mut restored = Restored::with_room(wanted.iter().filter(|&&w| w).count());
    restored.saved = rule_index::census(&entries)?;
    for (entry, wanted) in entries.iter().zip(wanted) {
        let (record, after) = records
            .split_at_checked(entry.len)
            .ok_or_else(|| not_a_rule("a rule beyond the bytes"))?;
        records = after;
        if !wanted {
            continue;
        }
        let rule: CompactRule = postcard::from_bytes(record).map_err(not_a_rule)?;
        let parsed = restore_rule(SavedRule::from(rule))?;
        restored.rules.push(parsed.rule);
        restored.patterns.push(parsed.patterns);
    }
    if !records.is_empty() {
        return Err(not_a_rule("bytes after the last rule"));
    }
    Ok(restored)
}

fn not_a_rule(why: impl std::fmt::Display) -> SnapshotError {
    SnapshotError::NotASnapshot {
        source: serde::de::Error::custom(why),
    }
}

/// The rules [`from_bytes`] gives, in order, and each one's patterns (at
/// the same index), as [`RuleSet::build_ordered`](crate::rules::rule_set::RuleSet::build_ordered) takes them.
pub(crate) struct Restored {
    pub rules: Vec<Rule>,
    pub patterns: Vec<Vec<RulePattern>>,
    /// The rules saved, counted by format (more than `rules` holds when
    /// some were not needed).
    pub saved: RuleCensus,
}

impl Restored {
    /// Room for `count` rules.
    fn with_room(count: usize) -> Restored {
        Restored {
            rules: Vec::with_capacity(count),
            patterns: Vec::with_capacity(count),
            saved: RuleCensus::default(),
        }
    }
}

/// A text read straight into an [`Arc<str>`] from the bytes (one
/// allocation; serde's `Arc<str>` reads a `Box<str>` first and copies it).
fn arc_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
    struct ArcStr;
    impl serde::de::Visitor<'_> for ArcStr {
        type Value = Arc<str>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Arc<str>, E> {
            Ok(Arc::from(s))
        }
    }
    d.deserialize_str(ArcStr)
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
impl From<Arc<Metadata>> for CompactMetadata {
    fn from(x: Arc<Metadata>) -> CompactMetadata {
        Arc::unwrap_or_clone(x).into()
    }
}

impl From<CompactMetadata> for Arc<Metadata> {
    fn from(x: CompactMetadata) -> Arc<Metadata> {
        Arc::new(x.into())
    }
}

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
        Arc::make_mut(&mut parsed.rule.metadata).regex = Some(vec!["TODO".into()]);
        Arc::make_mut(&mut parsed.rule.metadata).directory = Some("a".into());
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
        let restored = from_bytes(&bytes, RulesNeeded::ALL).unwrap();
        assert_eq!(restored.rules, [want]);
        assert_eq!(restored.patterns.len(), 1);
        assert_eq!(restored.patterns[0].len(), parsed.patterns.len());
        assert_eq!(restored.saved.total(), 1);
        let cut = &bytes[..bytes.len() / 2];
        assert!(from_bytes(cut, RulesNeeded::ALL).is_err(), "truncated");
    }
}
