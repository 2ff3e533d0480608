//! Topic matching: does a keyword occur in the prompt at the start of a word?
//!
//! Topics and prompt are compared after full Unicode case folding
//! (`caseless`), with every run of white space folded to one space, so a
//! multi-word topic matches as a phrase. A match counts only at the start of a
//! word: the character before it (if any) must not be a letter or a digit.
//! The end is free, so `customer` matches "Customers" and "customer_ro", while
//! `sql` does not match "MySQL". All topics of all rules are compiled into one
//! Aho-Corasick automaton; a prompt is folded once and scanned once.
//!
//! The scan is linear in the prompt whatever the topics: word starts are made
//! explicit with a marker byte (0xFF, never in UTF-8) before the first
//! character and after every character that is not a letter or digit, in the
//! prompt and in the topics alike, so only matches at a word start exist. The
//! scan walks the automaton byte by byte and only records which match
//! states it reached; each distinct state's patterns are read once at the
//! end. A prompt of 1 MB against 1,000 topics that all match everywhere
//! (`a`, `aa`, ...) costs one pass, not one report per occurrence.
//!
//! Building the automaton costs more than a short prompt's scan (at 1,000
//! rules, 4.7 M instructions against 20 thousand), and a hook answers one
//! prompt per process. So a short prompt ([`MAX_DIRECT_STEPS`]) is looked up
//! directly instead: its word starts, each cut at the longest topic, are
//! sorted, and each topic is binary searched among them (a topic occurs at a
//! word start if and only if the first of them not below it starts with it).
//! Once the lookups have cost what building the automaton would
//! ([`BUILD_COMPARISONS_PER_BYTE`] per byte of the topics), the automaton is
//! built and every later prompt is scanned: a process that sees many prompts
//! pays at most twice the build.

use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, MatchKind, PatternID};
use caseless::Caseless;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::base::limits::{MAX_DIRECT_STEPS, MAX_WORD_CHARS};

/// Marks a word start in the scanned text.
const MARK: u8 = 0xFF;

/// What building the automaton costs, in the comparisons of a direct lookup,
/// per byte of its patterns (measured: about 580 instructions a byte against
/// 15 a comparison).
const BUILD_COMPARISONS_PER_BYTE: usize = 32;

/// `text` with [`MARK`] before its first character and after every character
/// that is not alphanumeric; with `map`, the byte offset in `text` of each
/// output byte.
pub(crate) fn marked(text: &str, mut map: Option<&mut Vec<u32>>) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 4 + 1);
    let mut push = |out: &mut Vec<u8>, b: u8, at: usize| {
        out.push(b);
        if let Some(m) = map.as_deref_mut() {
            m.push(at as u32);
        }
    };
    push(&mut out, MARK, 0);
    for (at, ch) in text.char_indices() {
        let mut buf = [0; 4];
        for &b in ch.encode_utf8(&mut buf).as_bytes() {
            push(&mut out, b, at);
        }
        if !ch.is_alphanumeric() {
            push(&mut out, MARK, at + ch.len_utf8());
        }
    }
    out
}

/// `marked(&fold(text), None)` into `out` (cleared first); an ASCII text
/// (most topics) in one pass, without the folded copy.
pub(crate) fn marked_folded(text: &str, out: &mut Vec<u8>) {
    out.clear();
    if !text.is_ascii() {
        out.extend(marked(&fold(text), None));
        return;
    }
    out.push(MARK);
    let (mut any, mut pending_space) = (false, false);
    for &b in text.as_bytes() {
        if char::from(b).is_whitespace() {
            pending_space = any;
            continue;
        }
        if pending_space {
            out.extend([b' ', MARK]);
            pending_space = false;
        }
        any = true;
        out.push(b.to_ascii_lowercase());
        if !b.is_ascii_alphanumeric() {
            out.push(MARK);
        }
    }
}

/// Folds text for topic comparison: full case folding and white space runs
/// collapsed to a single space. Leading and trailing white space is dropped.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        // Among ASCII characters full case folding changes only `A`-`Z`, to
        // their lowercase: the folding table is looked up for the others
        // alone (most topics and prompts are ASCII).
        if ch.is_ascii() {
            out.push(ch.to_ascii_lowercase());
        } else {
            out.extend(std::iter::once(ch).default_case_fold());
        }
    }
    out
}

/// What building the automaton of `patterns` costs, in the comparisons of a
/// direct lookup.
fn build_cost(patterns: &[Vec<u8>]) -> usize {
    let bytes: usize = patterns.iter().map(Vec::len).sum();
    bytes.saturating_mul(BUILD_COMPARISONS_PER_BYTE)
}

/// The topics of every rule, folded once; the automaton built when a scan
/// first needs it.
#[derive(Debug, Default)]
pub struct TopicMatcher {
    /// Each distinct folded topic, [`marked`]: the automaton's patterns.
    patterns: Vec<Vec<u8>>,
    /// The longest pattern, in bytes.
    longest: usize,
    /// For each pattern: the owners `(rule index, topic index in that
    /// rule)` that use it.
    owners: Vec<Vec<(u32, u32)>>,
    /// Built on first use; `None` when it cannot be built.
    automaton: OnceLock<Option<NFA>>,
    /// The comparisons the direct lookups have cost so far.
    spent: AtomicUsize,
    /// What building the automaton costs, in those comparisons.
    build_cost: usize,
}

/// A marked text's word starts, sorted, each cut at the longest pattern
/// looked up: a pattern (which begins with [`MARK`]) occurs at a word
/// start if and only if the first of them not below it starts with it.
/// The same lookup serves the matcher and the hooks' saved rules
/// ([`crate::load::rule_index`]), which keep each topic marked.
pub(crate) struct WordStarts<'t> {
    starts: Vec<&'t [u8]>,
    /// The log of their count (the comparisons of one binary search).
    log: usize,
}

impl<'t> WordStarts<'t> {
    /// The word starts of `text` (from [`marked`]) cut at `longest`;
    /// `None` when sorting them would take more than [`MAX_DIRECT_STEPS`]
    /// byte comparisons (a long prompt: scanned by the automaton instead).
    pub(crate) fn of(text: &'t [u8], longest: usize) -> Option<WordStarts<'t>> {
        // More word starts than this cannot be sorted within the bound: not
        // collected past it.
        let most = MAX_DIRECT_STEPS / longest.max(1) + 1;
        let mut starts: Vec<&[u8]> = (0..text.len())
            .filter(|&i| text[i] == MARK)
            .map(|i| &text[i..text.len().min(i + longest)])
            .take(most)
            .collect();
        let log = (usize::BITS - starts.len().leading_zeros()) as usize;
        if starts.len().saturating_mul(log).saturating_mul(longest) > MAX_DIRECT_STEPS {
            return None;
        }
        starts.sort_unstable();
        starts.dedup();
        Some(WordStarts { starts, log })
    }

    /// What looking up `patterns` patterns costs, in comparisons.
    fn cost(&self, patterns: usize) -> usize {
        (self.starts.len() + patterns) * self.log.max(1)
    }

    /// Whether `pattern` occurs at one of the word starts.
    pub(crate) fn has(&self, pattern: &[u8]) -> bool {
        let at = self.starts.partition_point(|s| *s < pattern);
        self.starts.get(at).is_some_and(|s| s.starts_with(pattern))
    }
}

/// One topic occurrence in a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicHit {
    pub rule: usize,
    pub topic: usize,
    /// The word of the (folded) prompt where the topic starts.
    pub word: String,
}

impl TopicMatcher {
    /// Builds the matcher from `(rule index, topics)` pairs. Empty topics are
    /// ignored (the parser reports them).
    pub fn new<'a>(rules: impl IntoIterator<Item = (usize, &'a [String])>) -> Self {
        let mut index: FxHashMap<Vec<u8>, usize> = FxHashMap::default();
        let mut owners: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut key = Vec::new();
        for (rule, topics) in rules {
            for (t, topic) in topics.iter().enumerate() {
                marked_folded(topic, &mut key);
                if key.len() <= 1 {
                    continue; // nothing but the leading mark: an empty topic
                }
                let owner = (rule as u32, t as u32);
                match index.get(key.as_slice()) {
                    Some(&at) => owners[at].push(owner),
                    None => {
                        index.insert(key.clone(), owners.len());
                        owners.push(vec![owner]);
                    }
                }
            }
        }
        // Each key moved to its place, not copied (a hook builds this on
        // every prompt event).
        let mut patterns = vec![Vec::new(); owners.len()];
        for (key, at) in index {
            patterns[at] = key;
        }
        TopicMatcher {
            longest: patterns.iter().map(Vec::len).max().unwrap_or(0),
            build_cost: build_cost(&patterns),
            patterns,
            owners,
            automaton: OnceLock::new(),
            spent: AtomicUsize::new(0),
        }
    }

    /// The automaton of every pattern, built on first use.
    fn automaton(&self) -> Option<&NFA> {
        self.automaton
            .get_or_init(|| {
                // Standard semantics allow overlapping search, so a topic that
                // is a prefix of another never hides it. No prefilter: the
                // scan steps the automaton itself and never asks for one, and
                // building it costs as much as the trie.
                NFA::builder()
                    .match_kind(MatchKind::Standard)
                    .prefilter(false)
                    .build(&self.patterns)
                    .ok()
            })
            .as_ref()
    }

    /// True when no rule has a topic.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Marks `active[rule] = true` for every rule with a topic in `prompt`.
    pub fn activate(&self, prompt: &str, active: &mut [bool]) {
        if self.is_empty() {
            return;
        }
        let text = marked(&fold(prompt), None);
        let mut fire = |pid: usize| {
            for &(rule, _) in &self.owners[pid] {
                active[rule as usize] = true;
            }
        };
        if let Some(starts) = self.looks_up(&text) {
            self.look_up(starts).into_iter().for_each(&mut fire);
        } else if let Some(nfa) = self.automaton() {
            for (pid, _) in self.first_matches(nfa, &text) {
                fire(pid.as_usize());
            }
        }
    }

    /// `text`'s word starts when `text` is looked up directly: no automaton
    /// is built yet, they are few enough ([`WordStarts::of`]), and the
    /// lookups so far, this one included, cost less than building the
    /// automaton.
    fn looks_up<'t>(&self, text: &'t [u8]) -> Option<WordStarts<'t>> {
        if self.automaton.get().is_some() {
            return None;
        }
        let starts = WordStarts::of(text, self.longest)?;
        let cost = starts.cost(self.patterns.len());
        let spent = self.spent.fetch_add(cost, Ordering::Relaxed) + cost;
        (spent <= self.build_cost).then_some(starts)
    }

    /// The patterns that occur at one of `starts`.
    fn look_up(&self, starts: WordStarts) -> Vec<usize> {
        (0..self.patterns.len())
            .filter(|&pid| starts.has(&self.patterns[pid]))
            .collect()
    }

    /// Each topic's first occurrence, with the word it was found in (for
    /// `explain`), in the order the topics first occur.
    pub fn hits(&self, prompt: &str) -> Vec<TopicHit> {
        let Some(nfa) = self.automaton() else {
            return Vec::new();
        };
        let folded = fold(prompt);
        let mut map = Vec::new();
        let text = marked(&folded, Some(&mut map));
        let mut hits = Vec::new();
        for (pid, end) in self.first_matches(nfa, &text) {
            // The pattern starts with a MARK, which maps to the word's start.
            let start = map[end + 1 - nfa.pattern_len(pid)] as usize;
            // The word, cut at MAX_WORD_CHARS (a 1 MB "word" is not copied per topic).
            let word: String = folded[start..]
                .chars()
                .take_while(|&c| c.is_alphanumeric() || c == '_')
                .take(MAX_WORD_CHARS)
                .collect();
            for &(rule, topic) in &self.owners[pid.as_usize()] {
                hits.push(TopicHit {
                    rule: rule as usize,
                    topic: topic as usize,
                    word: word.clone(),
                });
            }
        }
        hits
    }

    /// Every pattern that occurs in `text`, once, with the offset of the last
    /// byte of its first occurrence. Linear in `text`, plus the patterns of
    /// each distinct match state reached (read once).
    fn first_matches(&self, nfa: &NFA, text: &[u8]) -> Vec<(PatternID, usize)> {
        let Ok(mut sid) = nfa.start_state(Anchored::No) else {
            return Vec::new();
        };
        let mut seen_states = FxHashSet::default();
        let mut seen = vec![false; self.owners.len()];
        let mut out = Vec::new();
        for (at, &byte) in text.iter().enumerate() {
            sid = nfa.next_state(Anchored::No, sid, byte);
            if nfa.is_match(sid) && seen_states.insert(sid) {
                for k in 0..nfa.match_len(sid) {
                    let pid = nfa.match_pattern(sid, k);
                    if !std::mem::replace(&mut seen[pid.as_usize()], true) {
                        out.push((pid, at));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_marked_in_one_pass_is_marked_as_folded_then_marked() {
        let texts = [
            "",
            " ",
            "Billing",
            "  Two  Words ",
            "a\tb\nc\x0bd\x0ce\rf",
            "C++ / C#",
            "snake_case-and.dots",
            "Ünïcode Straße",
            "x  ",
            "MIXED case 42",
            "!!",
        ];
        for text in texts {
            let mut out = vec![1, 2, 3];
            marked_folded(text, &mut out);
            assert_eq!(out, marked(&fold(text), None), "{text:?}");
        }
    }

    fn fires(topic: &str, prompt: &str) -> bool {
        let topics = vec![topic.to_string()];
        let m = TopicMatcher::new([(0, topics.as_slice())]);
        let mut active = [false];
        m.activate(prompt, &mut active);
        active[0]
    }

    macro_rules! topic_cases {
        ($($name:ident: $topic:expr, $prompt:expr => $want:expr;)*) => {
            $(#[test]
            fn $name() {
                assert_eq!(fires($topic, $prompt), $want, "topic {:?} in {:?}", $topic, $prompt);
            })*
        };
    }

    topic_cases! {
        plural: "customer", "list the Customers" => true;
        snake_suffix: "customer", "drop customer_ro please" => true;
        at_start: "customer", "customer table" => true;
        mid_word: "sql", "we use MySQL" => false;
        after_punct: "sql", "(SQL) query" => true;
        after_underscore: "ro", "customer_ro" => true;
        unicode_upper: "ügyfél", "ÜGYFÉL tábla" => true;
        unicode_lower_topic_upper: "ÜGYFÉL", "az ügyfél tábla" => true;
        sharp_s_full_folding: "straße", "STRASSE sign" => true;
        sharp_s_reverse: "STRASSE", "die Straße" => true;
        greek_final_sigma: "ΣΟΦΙΑ", "σοφια" => true;
        phrase: "customer table", "open the Customer  Table now" => true;
        phrase_newline: "customer table", "customer\ntable" => true;
        phrase_broken: "customer table", "customer tables are" => true;
        phrase_wrong_order: "customer table", "table customer" => false;
        absent: "deploy", "build the docs" => false;
        digit_before: "fa", "2fa login" => false;
        empty_prompt: "sql", "" => false;
    }

    #[test]
    fn short_prompts_are_looked_up_until_they_have_cost_the_build_then_scanned() {
        let topics: Vec<String> = (0..50).map(|i| format!("topic{i}")).collect();
        let m = TopicMatcher::new([(0, topics.as_slice())]);
        let mut active = [false];
        m.activate("a topic7 here", &mut active);
        assert!(active[0]);
        assert!(m.automaton.get().is_none(), "one prompt builds nothing");
        let mut prompts = 1;
        while m.automaton.get().is_none() {
            assert!(prompts < 10_000, "never built");
            m.activate("nothing to see", &mut [false]);
            prompts += 1;
        }
        assert!(prompts > 10, "built after {prompts} prompts");
        let mut active = [false];
        m.activate("a topic7 here", &mut active);
        assert!(active[0]);
    }

    #[test]
    fn a_prompt_too_long_to_sort_builds_the_automaton_at_once() {
        let topics = vec!["customer".to_string()];
        let m = TopicMatcher::new([(0, topics.as_slice())]);
        let words = MAX_DIRECT_STEPS / "customer".len();
        let mut active = [false];
        m.activate(&"x ".repeat(words), &mut active);
        assert!(!active[0]);
        assert!(m.automaton.get().is_some());
    }

    #[test]
    fn prefix_topics_do_not_hide_each_other() {
        let a = vec!["cust".to_string()];
        let b = vec!["customer".to_string()];
        let m = TopicMatcher::new([(0, a.as_slice()), (1, b.as_slice())]);
        let mut active = [false, false];
        m.activate("xcust customer", &mut active);
        assert_eq!(active, [true, true]);
    }

    #[test]
    fn shared_topic_fires_every_owner() {
        let t = vec!["SQL".to_string()];
        let u = vec!["sql".to_string()];
        let m = TopicMatcher::new([(0, t.as_slice()), (1, u.as_slice())]);
        let hits = m.hits("write SQLite code");
        assert_eq!(hits.iter().map(|h| h.rule).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(hits[0].word, "sqlite");
    }
}
