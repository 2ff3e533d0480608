//! The index in front of the saved rules ([`crate::load::compact`]): for
//! each rule, what alone can activate it ([`Metadata::sole_trigger`]), the
//! length of its record and, for a rule only `topics` activate, its topics
//! as the topic matcher looks them up (folded and marked); for one only
//! `paths` activate, the [`PathKey`] of each of its globs.
//! A restore for one event reads the index and then only the records of the
//! rules that event can activate ([`RulesNeeded`]): a prompt decodes the
//! topic-only rules its words name, a file's event the path-only rules
//! whose keys admit one of its files, not the others.
//!
//! Layout, little-endian: the count of rules (4 bytes); then per rule its
//! trigger (1 byte), its format (1 byte: its place in [`Format::ALL`]),
//! its record's length (4 bytes) and, for a topic-only
//! rule, its marked topics, for a path-only rule each key's start and end, as a
//! list of texts: how many (2 bytes), then each one's length (2 bytes) and
//! text. A rule whose texts do not fit those widths is indexed as
//! [`OTHER`] (always read).

use crate::load::snapshot::SnapshotError;
use crate::matchers::path_key::PathKey;
use crate::matchers::topic_matcher::{fold, marked, marked_folded, WordStarts};
use crate::rules::rule::{Metadata, Trigger};
use crate::rules::rule_format::Format;
use crate::rules::rule_set::RuleCensus;

/// Which saved rules a restore takes ([`Restored::restore`](crate::load::fresh::Restored::restore)): all, or all
/// but those that only `paths` (`paths: false`) or only `topics`
/// (`topics: false`) can activate, or that are always active (`always:
/// false`) ([`Metadata::sole_trigger`](crate::rules::rule::Metadata::sole_trigger)), for an event that
/// cannot give a rule of that kind. Those are skipped unread: at 1,000
/// rules decoding every rule is most of what a hook event costs.
/// With `prompt`, of the topic-only rules only those whose topics it names
/// are taken; with `files` (as the event names them: absolute or relative
/// to the workdir), of the path-only rules only those a glob of which may
/// match one of them ([`PathKey`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesNeeded<'a> {
    pub paths: bool,
    pub topics: bool,
    pub always: bool,
    pub prompt: Option<&'a str>,
    pub files: Option<&'a [String]>,
}

impl RulesNeeded<'_> {
    /// Every rule.
    pub const ALL: RulesNeeded<'static> = RulesNeeded {
        paths: true,
        topics: true,
        always: true,
        prompt: None,
        files: None,
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
    /// Its format's place in [`Format::ALL`].
    format: u8,
    /// Its record's length.
    pub len: usize,
    /// Its texts as saved: a topic-only rule's topics, a path-only rule's
    /// keys (start, end, ...); empty otherwise.
    texts: &'a [u8],
}

/// A rule's entry before its record's length is known: its trigger and,
/// for a topic-only or path-only rule, its texts as the index keeps them.
pub(crate) struct Head {
    trigger: u8,
    format: u8,
    texts: Vec<u8>,
}

impl Head {
    /// The head of a rule with `metadata` whose positive patterns are
    /// `globs` (globset texts; `None` when one is matched by a regex,
    /// whose key is [`PathKey::ANY`]), read as `format`. One whose texts
    /// do not fit the index's widths is [`OTHER`].
    pub(crate) fn of(metadata: &Metadata, globs: Option<Vec<&str>>, format: Format) -> Head {
        let texts = match metadata.sole_trigger() {
            Some(Trigger::Paths) => {
                let keys: Vec<PathKey> = match globs {
                    Some(globs) => globs.into_iter().map(PathKey::of).collect(),
                    None => vec![PathKey::ANY],
                };
                let texts: Vec<&[u8]> = keys.iter().flat_map(|k| [k.start, k.end]).collect();
                text_bytes(&texts).map(|t| (PATHS, t))
            }
            Some(Trigger::Topics) => {
                let keys = topic_keys(metadata.topics.as_deref().unwrap_or_default());
                let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
                text_bytes(&keys).map(|t| (TOPICS, t))
            }
            Some(Trigger::Always) => Some((ALWAYS, Vec::new())),
            None => None,
        };
        let (trigger, texts) = texts.unwrap_or((OTHER, Vec::new()));
        let place = Format::ALL.iter().position(|&f| f == format);
        Head {
            trigger,
            format: place.and_then(|p| u8::try_from(p).ok()).unwrap_or(u8::MAX),
            texts,
        }
    }

    /// Appends the entry to `index` (which starts with the count,
    /// [`start`]), with its record's length `len`.
    pub(crate) fn push(self, index: &mut Vec<u8>, len: u32) {
        index.push(self.trigger);
        index.push(self.format);
        index.extend_from_slice(&len.to_le_bytes());
        index.extend_from_slice(&self.texts);
    }
}

/// Each of `topics` as the topic matcher looks it up ([`marked_folded`]),
/// empty ones left out (the matcher ignores them).
fn topic_keys(topics: &[String]) -> Vec<Vec<u8>> {
    let mut keys = Vec::with_capacity(topics.len());
    for topic in topics {
        let mut key = Vec::new();
        marked_folded(topic, &mut key);
        if key.len() > 1 {
            keys.push(key);
        }
    }
    keys
}

/// An index's start: the count of rules.
pub(crate) fn start(count: usize) -> Option<Vec<u8>> {
    Some(u32::try_from(count).ok()?.to_le_bytes().to_vec())
}

/// `texts` as the index keeps them; `None` when they do not fit.
fn text_bytes(texts: &[&[u8]]) -> Option<Vec<u8>> {
    let mut out = u16::try_from(texts.len()).ok()?.to_le_bytes().to_vec();
    for t in texts {
        out.extend_from_slice(&u16::try_from(t.len()).ok()?.to_le_bytes());
        out.extend_from_slice(t);
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
        let head = take(&mut rest, 6)?;
        let len = u32::from_le_bytes([head[2], head[3], head[4], head[5]]) as usize;
        let texts = if matches!(head[0], TOPICS | PATHS) {
            texts_of(&mut rest)?
        } else {
            &[]
        };
        entries.push(Entry {
            trigger: head[0],
            format: head[1],
            len,
            texts,
        });
    }
    Ok((entries, rest))
}

/// The rules of `entries`, counted by format, none of them restored; an
/// error for a format the index does not know.
pub(crate) fn census(entries: &[Entry]) -> Result<RuleCensus, SnapshotError> {
    let mut counts = [0usize; 256];
    for entry in entries {
        counts[usize::from(entry.format)] += 1;
    }
    if counts[Format::ALL.len()..].iter().any(|&n| n > 0) {
        return Err(damaged("a rule of no known format"));
    }
    let mut census = RuleCensus::default();
    for (&format, &n) in Format::ALL.iter().zip(&counts) {
        census.add(format, n);
    }
    Ok(census)
}

/// The saved texts at the start of `rest` (taken off it).
fn texts_of<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8], SnapshotError> {
    let all = *rest;
    for _ in 0..count(rest)? {
        text(rest)?;
    }
    Ok(&all[..all.len() - rest.len()])
}

/// Which of `entries` `need` takes: by trigger; of the topic-only rules,
/// when `need` names a prompt, only those whose topics the prompt names
/// (looked up as the rule set's [`TopicMatcher`](crate::matchers::topic_matcher::TopicMatcher)
/// does, with the topics saved marked: nothing is folded or built here;
/// a prompt too long for that takes them all); of the
/// path-only rules, when `need` gives `files` (workdir-relative by then:
/// [`Restored::restore`](crate::load::fresh::Restored::restore) makes them
/// so), only those with a key that admits one of them.
pub(crate) fn wanted(entries: &[Entry], need: RulesNeeded) -> Result<Vec<bool>, SnapshotError> {
    let mut take: Vec<bool> = entries.iter().map(|e| takes(need, e.trigger)).collect();
    if let Some(files) = need.files.filter(|_| need.paths) {
        for (i, e) in entries.iter().enumerate() {
            if e.trigger == PATHS {
                take[i] = admits_any(e.texts, files)?;
            }
        }
    }
    let Some(prompt) = need.prompt.filter(|_| need.topics) else {
        return Ok(take);
    };
    if prompt.trim().is_empty() {
        // No topic in it (a subagent's start with no task waiting).
        for (i, e) in entries.iter().enumerate() {
            take[i] &= e.trigger != TOPICS;
        }
        return Ok(take);
    }
    let text = marked(&fold(prompt), None);
    let mut longest = 0;
    for e in entries.iter().filter(|e| e.trigger == TOPICS) {
        for_each_text(e.texts, |key| longest = longest.max(key.len()))?;
    }
    // A prompt too long to look up directly: every topic rule is taken,
    // and the rule set's own matcher scans it.
    let Some(starts) = WordStarts::of(&text, longest) else {
        return Ok(take);
    };
    for (i, e) in entries.iter().enumerate() {
        if e.trigger == TOPICS {
            let mut named = false;
            for_each_text(e.texts, |key| named |= starts.has(key))?;
            take[i] = named;
        }
    }
    Ok(take)
}

/// Whether a key of a path-only rule's `texts` (start, end, ...) admits
/// one of `files`.
fn admits_any(mut texts: &[u8], files: &[String]) -> Result<bool, SnapshotError> {
    let n = count(&mut texts)?;
    for _ in 0..n / 2 {
        let key = PathKey {
            start: text(&mut texts)?,
            end: text(&mut texts)?,
        };
        if files.iter().any(|f| key.admits(f.as_bytes())) {
            return Ok(true);
        }
    }
    Ok(false)
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

/// Calls `f` with each of the texts [`text_bytes`] wrote in `bytes`.
fn for_each_text(mut bytes: &[u8], mut f: impl FnMut(&[u8])) -> Result<(), SnapshotError> {
    for _ in 0..count(&mut bytes)? {
        f(text(&mut bytes)?);
    }
    Ok(())
}

/// How many texts follow, at the start of `rest` (taken off it).
fn count(rest: &mut &[u8]) -> Result<u16, SnapshotError> {
    Ok(u16::from_le_bytes(
        take(rest, 2)?.try_into().unwrap_or_default(),
    ))
}

/// The text at the start of `rest`, after its length (both taken off it).
fn text<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8], SnapshotError> {
    let len = count(rest)?;
    take(rest, len as usize)
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
            Head::of(m, Some(vec!["src/**"]), Format::Wave).push(&mut index, 20);
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
            files: None,
        };
        let all = wanted(&entries, need(true, None)).unwrap();
        assert_eq!(all, [true; 5]);
        let billing = wanted(&entries, need(false, Some("the Invoice run failed")));
        assert_eq!(billing.unwrap(), [true, false, false, true, true]);
        let none = wanted(&entries, need(false, Some("rename a variable"))).unwrap();
        let empty = wanted(&entries, need(false, Some(" "))).unwrap();
        assert_eq!(empty, [false, false, false, true, true]);
        assert_eq!(none, [false, false, false, true, true]);
    }

    #[test]
    fn a_prompt_takes_exactly_the_topic_rules_the_topic_matcher_activates() {
        use crate::matchers::topic_matcher::TopicMatcher;
        let topics: Vec<Vec<String>> = [
            &["billing"][..],
            &["Invoice Run", "  "],
            &["C++", "c#"],
            &["Straße"],
            &["ÜNÏCODE"],
            &["sql"],
            &["customer"],
            &["deploy", "release train"],
            &["a"],
            &[""],
        ]
        .iter()
        .map(|t| t.iter().map(|s| s.to_string()).collect())
        .collect();
        let rules: Vec<Metadata> = topics
            .iter()
            .map(|t| Metadata {
                topics: Some(t.clone()),
                ..Metadata::default()
            })
            .collect();
        let bytes = index(&rules);
        let (entries, _) = read(&bytes).unwrap();
        let matcher = TopicMatcher::new(topics.iter().enumerate().map(|(i, t)| (i, t.as_slice())));
        let long = "word ".repeat(300_000) + "billing";
        let prompts = [
            "fix the BILLING and the invoice\n run",
            "MySQL customers, c++ and C# in the strasse",
            "STRASSE; ünïcode; release  train",
            "an apple",
            "a bill for the release, not the cust or the straw",
            "nothing here",
            long.as_str(),
        ];
        for prompt in prompts {
            let need = RulesNeeded {
                prompt: Some(prompt),
                ..RulesNeeded::ALL
            };
            let taken = wanted(&entries, need).unwrap();
            let mut active = vec![false; rules.len()];
            matcher.activate(prompt, &mut active);
            if prompt.len() > 1_000_000 {
                // Too long to look up: every topic rule, for the set's own
                // matcher to scan.
                assert!(taken.iter().all(|&t| t), "{taken:?}");
                assert!(active[0]);
            } else {
                assert_eq!(taken, active, "{prompt}");
            }
        }
        assert!(wanted(
            &entries,
            RulesNeeded {
                prompt: Some("c++ a"),
                ..RulesNeeded::ALL
            }
        )
        .unwrap()
        .iter()
        .zip([false, false, true, false, false, false, false, false, true, false])
        .all(|(&got, want)| got == want));
    }

    #[test]
    fn the_census_counts_every_saved_rule_by_format_without_its_record() {
        let m = metadata(false, &[]);
        let mut bytes = start(3).unwrap();
        for format in [Format::Cursor, Format::Wave, Format::Cursor] {
            Head::of(&m, None, format).push(&mut bytes, 20);
        }
        bytes.extend_from_slice(&[0u8; 60]);
        let (entries, _) = read(&bytes).unwrap();
        let counted = census(&entries).unwrap();
        assert_eq!(counted.total(), 3);
        let per: Vec<_> = counted.per_format().collect();
        assert_eq!(per, vec![(Format::Wave, 1), (Format::Cursor, 2)]);
        // A format byte past every known format is a damaged index.
        bytes[5] = u8::MAX;
        let (entries, _) = read(&bytes).unwrap();
        assert!(census(&entries).is_err());
    }

    #[test]
    fn a_files_event_takes_the_path_rules_a_glob_of_which_may_match_one_of_its_files() {
        let paths = metadata(true, &[]);
        let mut bytes = start(4).unwrap();
        Head::of(&paths, Some(vec!["src/**", "lib/**/*.rs"]), Format::Wave).push(&mut bytes, 20);
        Head::of(&paths, Some(vec!["docs/**/*.md"]), Format::Wave).push(&mut bytes, 20);
        Head::of(&paths, None, Format::Wave).push(&mut bytes, 20);
        Head::of(&paths, Some(vec![]), Format::Wave).push(&mut bytes, 20);
        bytes.extend_from_slice(&[0u8; 80]);
        let (entries, _) = read(&bytes).unwrap();
        let need = RulesNeeded {
            paths: true,
            topics: false,
            always: false,
            prompt: None,
            files: None,
        };
        let on = |files: &[&str]| {
            let files: Vec<String> = files.iter().map(|f| f.to_string()).collect();
            let need = RulesNeeded {
                files: Some(&files),
                ..need
            };
            wanted(&entries, need).unwrap()
        };
        assert_eq!(on(&["lib/a/b.rs"]), [true, false, true, false]);
        assert_eq!(
            on(&["lib/a/b.ts", "docs/x/y.md"]),
            [false, true, true, false]
        );
        assert_eq!(on(&[]), [false; 4]);
        assert_eq!(wanted(&entries, need).unwrap(), [true; 4]);
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
