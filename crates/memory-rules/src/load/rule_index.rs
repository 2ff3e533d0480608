//! The index in front of the saved rules ([`crate::load::compact`]): for
//! each rule, what alone can activate it ([`Metadata::sole_trigger`]), the
//! length of its record and, for a rule only `topics` activate, its topics.
//! A restore for one event reads the index and then only the records of the
//! rules that event can activate ([`RulesNeeded`]): a prompt decodes the
//! topic-only rules its words name, not the others.
//!
//! Layout, little-endian: the count of rules (4 bytes); then per rule its
//! trigger (1 byte), its record's length (4 bytes) and, for a topic-only
//! rule, how many topics (2 bytes) and each one's length (2 bytes) and
//! text. A rule whose topics do not fit those widths is indexed as
//! [`OTHER`] (always read).

use crate::load::snapshot::SnapshotError;
use crate::matchers::topic_matcher::TopicMatcher;
use crate::rules::rule::{Metadata, Trigger};

/// Which saved rules a restore takes ([`Restored::restore`](crate::load::fresh::Restored::restore)): all, or all
/// but those that only `paths` (`paths: false`) or only `topics`
/// (`topics: false`) can activate, or that are always active (`always:
/// false`) ([`Metadata::sole_trigger`](crate::rules::rule::Metadata::sole_trigger)), for an event that
/// cannot give a rule of that kind. Those are skipped unread: at 1,000
/// rules decoding every rule is most of what a hook event costs.
/// With `prompt`, of the topic-only rules only those whose topics it names
/// are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesNeeded<'a> {
    pub paths: bool,
    pub topics: bool,
    pub always: bool,
    pub prompt: Option<&'a str>,
}

impl RulesNeeded<'_> {
    /// Every rule.
    pub const ALL: RulesNeeded<'static> = RulesNeeded {
        paths: true,
        topics: true,
        always: true,
        prompt: None,
    };
}

/// A rule any event may activate.
const OTHER: u8 = 0;
/// A rule only `paths` can activate.
const PATHS: u8 = 1;
/// A rule only `topics` can activate.
const TOPICS: u8 = 2;
/// A rule always active.
const ALWAYS: u8 = 3;
/// A saved rule's record takes more bytes than this: room is made for no
/// more rules than the records can hold, whatever count the index claims.
const MIN_RULE_BYTES: usize = 16;

/// One rule's entry.
pub(crate) struct Entry<'a> {
    trigger: u8,
    /// Its record's length.
    pub len: usize,
    /// Its topics as saved (a topic-only rule's; empty otherwise).
    topics: &'a [u8],
}

/// A rule's entry before its record's length is known: its trigger and,
/// for a topic-only rule, its topics as the index keeps them.
pub(crate) struct Head {
    trigger: u8,
    topics: Vec<u8>,
}

impl Head {
    /// The head of a rule with `metadata` (one whose topics do not fit the
    /// index's widths is [`OTHER`]).
    pub(crate) fn of(metadata: &Metadata) -> Head {
        let (trigger, topics) = match metadata.sole_trigger() {
            Some(Trigger::Paths) => (PATHS, None),
            Some(Trigger::Topics) => match metadata.topics.as_deref().and_then(topic_bytes) {
                Some(topics) => (TOPICS, Some(topics)),
                None => (OTHER, None),
            },
            Some(Trigger::Always) => (ALWAYS, None),
            None => (OTHER, None),
        };
        Head {
            trigger,
            topics: topics.unwrap_or_default(),
        }
    }

    /// Appends the entry to `index` (which starts with the count,
    /// [`start`]), with its record's length `len`.
    pub(crate) fn push(self, index: &mut Vec<u8>, len: u32) {
        index.push(self.trigger);
        index.extend_from_slice(&len.to_le_bytes());
        index.extend_from_slice(&self.topics);
    }
}

/// An index's start: the count of rules.
pub(crate) fn start(count: usize) -> Option<Vec<u8>> {
    Some(u32::try_from(count).ok()?.to_le_bytes().to_vec())
}

/// `topics` as the index keeps them; `None` when they do not fit.
fn topic_bytes(topics: &[String]) -> Option<Vec<u8>> {
    let mut out = u16::try_from(topics.len()).ok()?.to_le_bytes().to_vec();
    for t in topics {
        out.extend_from_slice(&u16::try_from(t.len()).ok()?.to_le_bytes());
        out.extend_from_slice(t.as_bytes());
    }
    Some(out)
}

/// The entries of the index at the start of `bytes`, and the records after
/// it; an error for an index cut short or claiming more rules than the
/// records can hold.
pub(crate) fn read(bytes: &[u8]) -> Result<(Vec<Entry<'_>>, &[u8]), SnapshotError> {
    let mut rest = bytes;
    let count = u32::from_le_bytes(take(&mut rest, 4)?.try_into().unwrap_or_default()) as usize;
    if count.saturating_mul(MIN_RULE_BYTES) > rest.len() {
        return Err(damaged("more rules than the bytes can hold"));
    }
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let head = take(&mut rest, 5)?;
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let topics = if head[0] == TOPICS {
            topics_of(&mut rest)?
        } else {
            &[]
        };
        entries.push(Entry {
            trigger: head[0],
            len,
            topics,
        });
    }
    Ok((entries, rest))
}

/// The saved topics at the start of `rest` (taken off it).
fn topics_of<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8], SnapshotError> {
    let all = *rest;
    let n = u16::from_le_bytes(take(rest, 2)?.try_into().unwrap_or_default());
    for _ in 0..n {
        let len = u16::from_le_bytes(take(rest, 2)?.try_into().unwrap_or_default());
        take(rest, len as usize)?;
    }
    Ok(&all[..all.len() - rest.len()])
}

/// Which of `entries` `need` takes: by trigger, and of the topic-only rules,
/// when `need` names a prompt, only those whose topics the prompt names
/// (by the same [`TopicMatcher`] the rule set matches with).
pub(crate) fn wanted(entries: &[Entry], need: RulesNeeded) -> Result<Vec<bool>, SnapshotError> {
    let mut take: Vec<bool> = entries.iter().map(|e| takes(need, e.trigger)).collect();
    let Some(prompt) = need.prompt.filter(|_| need.topics) else {
        return Ok(take);
    };
    let mut topics = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if e.trigger == TOPICS {
            topics.push((i, decode_topics(e.topics)?));
        }
    }
    let matcher = TopicMatcher::new(topics.iter().map(|(i, t)| (*i, t.as_slice())));
    let mut hit = vec![false; entries.len()];
    matcher.activate(prompt, &mut hit);
    for (i, _) in &topics {
        take[*i] = hit[*i];
    }
    Ok(take)
}

/// Whether a rule of this trigger byte is needed; an unknown byte is.
fn takes(need: RulesNeeded, trigger: u8) -> bool {
    match trigger {
        PATHS => need.paths,
        TOPICS => need.topics,
        ALWAYS => need.always,
        _ => true,
    }
}

/// The topics [`topic_bytes`] wrote.
fn decode_topics(mut bytes: &[u8]) -> Result<Vec<String>, SnapshotError> {
    let n = u16::from_le_bytes(take(&mut bytes, 2)?.try_into().unwrap_or_default());
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let len = u16::from_le_bytes(take(&mut bytes, 2)?.try_into().unwrap_or_default());
        let text = std::str::from_utf8(take(&mut bytes, len as usize)?)
            .map_err(|_| damaged("a topic that is not UTF-8"))?;
        out.push(text.to_string());
    }
    Ok(out)
}

/// The first `n` bytes of `rest` (taken off it).
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], SnapshotError> {
    let (head, after) = rest
        .split_at_checked(n)
        .ok_or_else(|| damaged("an index cut short"))?;
    *rest = after;
    Ok(head)
}

fn damaged(why: &str) -> SnapshotError {
    SnapshotError::NotASnapshot {
        source: serde::de::Error::custom(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(paths: bool, topics: &[&str]) -> Metadata {
        Metadata {
            paths: paths.then(|| vec!["src/**".to_string()]),
            topics: (!topics.is_empty()).then(|| topics.iter().map(|t| t.to_string()).collect()),
            ..Metadata::default()
        }
    }

    fn index(rules: &[Metadata]) -> Vec<u8> {
        let mut index = start(rules.len()).unwrap();
        for m in rules {
            Head::of(m).push(&mut index, 20);
        }
        index.extend_from_slice(&vec![0u8; 20 * rules.len()]);
        index
    }

    #[test]
    fn a_prompt_takes_the_topic_rules_it_names_and_every_rule_of_another_kind() {
        let rules = [
            metadata(false, &["billing", "invoice run"]),
            metadata(true, &[]),
            metadata(false, &["deploy"]),
            metadata(false, &[]),
            metadata(true, &["billing"]),
        ];
        let bytes = index(&rules);
        let (entries, records) = read(&bytes).unwrap();
        assert_eq!(records.len(), 100);
        let need = |paths, prompt| RulesNeeded {
            paths,
            topics: true,
            always: true,
            prompt,
        };
        let all = wanted(&entries, need(true, None)).unwrap();
        assert_eq!(all, [true; 5]);
        let billing = wanted(&entries, need(false, Some("the Invoice run failed"))).unwrap();
        assert_eq!(billing, [true, false, false, true, true]);
        let none = wanted(&entries, need(false, Some("rename a variable"))).unwrap();
        assert_eq!(none, [false, false, false, true, true]);
    }

    #[test]
    fn an_index_cut_short_or_claiming_too_many_rules_is_refused() {
        let bytes = index(&[metadata(false, &["billing"]), metadata(true, &[])]);
        let index_len = bytes.len() - 40;
        for cut in [0, 3, 6, index_len - 1] {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut claims = bytes.clone();
        claims[..4].copy_from_slice(&1000u32.to_le_bytes());
        assert!(read(&claims).is_err());
    }
}
