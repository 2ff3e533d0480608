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
use crate::rules::parser::RulePattern;
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

/// The rules (with their compiled patterns), in order, as postcard.
pub(crate) fn to_bytes(rules: Vec<SavedRule>) -> Result<Vec<u8>, postcard::Error> {
    let compact: Vec<CompactRule> = rules.into_iter().map(CompactRule::from).collect();
    postcard::to_allocvec(&compact)
}

/// The rules [`to_bytes`] wrote, with their patterns as saved; an error for
/// anything else. Each rule is restored as soon as it is read, into a list
/// made at its final size: no list of mirrors grows and is copied first.
pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Restored, SnapshotError> {
    let not = |e: postcard::Error| SnapshotError::NotASnapshot {
        source: serde::de::Error::custom(e),
    };
    // A saved rule takes more bytes than this: room is made for no more
    // rules than the bytes can hold, whatever count they claim.
    const MIN_RULE_BYTES: usize = 16;
    let seed = Restore {
        most: bytes.len() / MIN_RULE_BYTES,
    };
    let mut de = postcard::Deserializer::from_bytes(bytes);
    serde::de::DeserializeSeed::deserialize(seed, &mut de).map_err(not)?
}

/// The rules [`from_bytes`] gives, in order, and each one's patterns (at
/// the same index), as [`RuleSet::build_ordered`](crate::rules::rule_set::RuleSet::build_ordered) takes them.
pub(crate) type Restored = (Vec<Rule>, Vec<Vec<RulePattern>>);

/// Reads the rules of [`from_bytes`], each restored as it is read, with
/// room made for at most `most`; the first rule that cannot be restored is
/// the error.
struct Restore {
    most: usize,
}

impl<'de> serde::de::DeserializeSeed<'de> for Restore {
    type Value = Result<Restored, SnapshotError>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Restore {
    type Value = Result<Restored, SnapshotError>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of rules")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let room = seq.size_hint().unwrap_or(0).min(self.most);
        let (mut rules, mut patterns) = (Vec::with_capacity(room), Vec::with_capacity(room));
        while let Some(rule) = seq.next_element::<CompactRule>()? {
            match restore_rule(SavedRule::from(rule)) {
                Ok(parsed) => {
                    rules.push(parsed.rule);
                    patterns.push(parsed.patterns);
                }
                Err(e) => return Ok(Err(e)),
            }
        }
        Ok(Ok((rules, patterns)))
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
        let (rules, patterns) = from_bytes(&bytes).unwrap();
        assert_eq!(rules, [want]);
        assert_eq!(patterns.len(), 1);
        assert_eq!(patterns[0].len(), parsed.patterns.len());
        assert!(from_bytes(&bytes[..bytes.len() / 2]).is_err(), "truncated");
    }
}
