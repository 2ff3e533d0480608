//! Topic matching: does a keyword occur in the prompt at the start of a word?
//!
//! Topics and prompt are compared after full Unicode case folding
//! (`caseless`), with every run of white space folded to one space, so a
//! multi-word topic matches as a phrase. A match counts only at the start of a
//! word: the character before it (if any) must not be a letter or a digit.
//! The end is free, so `customer` matches "Customers" and "customer_ro", while
//! `sql` does not match "MySQL". All topics of all rules are compiled into one
//! Aho-Corasick automaton; a prompt is folded once and scanned once.

use aho_corasick::{AhoCorasick, MatchKind};
use caseless::Caseless;
use std::collections::HashMap;

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
        out.extend(std::iter::once(ch).default_case_fold());
    }
    out
}

/// The topics of every rule, compiled once.
#[derive(Debug, Default)]
pub struct TopicMatcher {
    automaton: Option<AhoCorasick>,
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
            AhoCorasick::builder().match_kind(MatchKind::Standard).build(&folded).ok()
        };
        TopicMatcher { automaton, owners }
    }

    /// True when no rule has a topic.
    pub fn is_empty(&self) -> bool {
        self.automaton.is_none()
    }

    /// Marks `active[rule] = true` for every rule with a topic in `prompt`.
    pub fn activate(&self, prompt: &str, active: &mut [bool]) {
        self.scan(prompt, |rule, _topic, _folded, _start| active[rule] = true);
    }

    /// Every topic occurrence, with the word it was found in (for `explain`).
    pub fn hits(&self, prompt: &str) -> Vec<TopicHit> {
        let mut hits = Vec::new();
        self.scan(prompt, |rule, topic, folded, start| {
            let word = folded[start..].split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("");
            hits.push(TopicHit { rule, topic, word: word.to_string() });
        });
        hits
    }

    fn scan(&self, prompt: &str, mut found: impl FnMut(usize, usize, &str, usize)) {
        let Some(ac) = &self.automaton else { return };
        let folded = fold(prompt);
        for m in ac.find_overlapping_iter(&folded) {
            let at_word_start = folded[..m.start()]
                .chars()
                .next_back()
                .is_none_or(|prev| !prev.is_alphanumeric());
            if at_word_start {
                for &(rule, topic) in &self.owners[m.pattern().as_usize()] {
                    found(rule as usize, topic as usize, &folded, m.start());
                }
            }
        }
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
