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

use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, MatchKind, PatternID};
use caseless::Caseless;
use rustc_hash::FxHashSet;
use std::collections::HashMap;

use crate::base::limits::MAX_WORD_CHARS;

/// Marks a word start in the scanned text.
const MARK: u8 = 0xFF;

/// `text` with [`MARK`] before its first character and after every character
/// that is not alphanumeric; with `map`, the byte offset in `text` of each
/// output byte.
fn marked(text: &str, mut map: Option<&mut Vec<u32>>) -> Vec<u8> {
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

/// The topics of every rule, compiled once.
#[derive(Debug, Default)]
pub struct TopicMatcher {
    automaton: Option<NFA>,
    /// For each automaton pattern: the folded topic and the owners
    /// `(rule index, topic index in that rule)` that use it.
    owners: Vec<Vec<(u32, u32)>>,
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
        let mut folded: Vec<String> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut owners: Vec<Vec<(u32, u32)>> = Vec::new();
        for (rule, topics) in rules {
            for (t, topic) in topics.iter().enumerate() {
                let key = fold(topic);
                if key.is_empty() {
                    continue;
                }
                let owner = (rule as u32, t as u32);
                match index.get(&key) {
                    Some(&i) => owners[i].push(owner),
                    None => {
                        index.insert(key.clone(), folded.len());
                        folded.push(key);
                        owners.push(vec![owner]);
                    }
                }
            }
        }
        let automaton = if folded.is_empty() {
            None
        } else {
            // Standard semantics allow overlapping search, so a topic that is a
            // prefix of another never hides it.
            let marked: Vec<Vec<u8>> = folded.iter().map(|t| marked(t, None)).collect();
            // No prefilter: the scan steps the automaton itself and never
            // asks for one, and building it costs as much as the trie.
            NFA::builder()
                .match_kind(MatchKind::Standard)
                .prefilter(false)
                .build(&marked)
                .ok()
        };
        TopicMatcher { automaton, owners }
    }

    /// True when no rule has a topic.
    pub fn is_empty(&self) -> bool {
        self.automaton.is_none()
    }

    /// Marks `active[rule] = true` for every rule with a topic in `prompt`.
    pub fn activate(&self, prompt: &str, active: &mut [bool]) {
        let Some(nfa) = &self.automaton else { return };
        let text = marked(&fold(prompt), None);
        for (pid, _) in self.first_matches(nfa, &text) {
            for &(rule, _) in &self.owners[pid.as_usize()] {
                active[rule as usize] = true;
            }
        }
    }

    /// Each topic's first occurrence, with the word it was found in (for
    /// `explain`), in the order the topics first occur.
    pub fn hits(&self, prompt: &str) -> Vec<TopicHit> {
        let Some(nfa) = &self.automaton else {
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
