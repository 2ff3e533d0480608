//! Where a note's values sit: each value's slot (the words next to it:
//! what it is the value of) and the values it says as the old ones
//! (`bumped from 1.2 to 1.3`), for hygiene.rs's conflicts and superseding.

use super::note_values::{assigned, token_value, ValueKind};
use super::terms::{self, is_function_word};
use std::collections::{BTreeMap, BTreeSet};

/// How far (in words) after a value its slot's word is looked for
/// ([`Profile::slots`]; before it, as far as the text goes).
pub const SLOT_REACH: usize = 3;

/// Each value's slot, and the values said as the old ones: a value right
/// after `from` when a value of its kind follows after `to` (`moved from
/// 0.18 to 0.20`), or after `instead of`, `rather than`, `replacing`
/// ([`REPLACED_WORDS`]: `on port 3001 instead of 3000`).
#[allow(clippy::type_complexity)]
pub(crate) fn slots(
    text: &str,
) -> (
    BTreeMap<(ValueKind, String), BTreeSet<String>>,
    BTreeSet<(ValueKind, String)>,
) {
    let tokens: Vec<&str> = super::terms::tokens(text).collect();
    let found: Vec<Option<(ValueKind, String)>> = tokens.iter().map(|t| token_value(t)).collect();
    let mut slots: BTreeMap<(ValueKind, String), BTreeSet<String>> = BTreeMap::new();
    let mut previous = BTreeSet::new();
    let said = |j: usize, word: &str| tokens.get(j).is_some_and(|t| t.eq_ignore_ascii_case(word));
    // What the text is about, its first word: `mirrors-mypy runs at v2.3.1`.
    let first: Vec<String> = (0..tokens.len())
        .map(|j| slot_words(tokens[j], found[j].is_some()))
        .find(|ws| !ws.is_empty())
        .unwrap_or_default();
    for (i, value) in found.iter().enumerate() {
        let Some(value) = value else { continue };
        let content = |j: &usize| slot_words(tokens[*j], found[*j].is_some());
        let before = (0..i).rev().map(|j| content(&j)).find(|ws| !ws.is_empty());
        let after = (i + 1..tokens.len())
            .take(SLOT_REACH)
            .map(|j| content(&j))
            .find(|ws| !ws.is_empty());
        // `setuptools>=80`: the name is the slot.
        let named = tokens[i]
            .split_once(['>', '<', '=', '~', '^'])
            .map(|(name, _)| slot_words(name, false));
        let mut words: BTreeSet<String> = before
            .into_iter()
            .chain(after)
            .chain(named)
            .flatten()
            .collect();
        words.extend(first.iter().cloned());
        // `--test-threads=4`: 4 is a value too, in the flag's slot.
        if let Some(v) = assigned(tokens[i]).and_then(token_value) {
            slots.entry(v).or_default().extend(words.iter().cloned());
        }
        slots.entry(value.clone()).or_default().extend(words);
        let later = (i + 1..tokens.len().min(i + 4))
            .any(|j| said(j - 1, "to") && found[j].as_ref().is_some_and(|v| v.0 == value.0));
        if (i > 0 && said(i - 1, "from") && later) || replaced(&tokens[..i]) {
            previous.insert(value.clone());
        }
    }
    (slots, previous)
}

/// English words after which a value is the old one (`instead of 3000`,
/// `rather than 1.2`, `replacing 2.1.0`), function words between them and
/// the value aside.
const REPLACED_WORDS: &[&str] = &["instead", "rather", "replacing", "replaces"];

/// Whether the tokens before a value end in one of [`REPLACED_WORDS`] and
/// at most two function words (`instead of the`).
fn replaced(before: &[&str]) -> bool {
    let glue = |t: &str| {
        let mut all = true;
        terms::words(t, |w| all &= is_function_word(w));
        all
    };
    // `instead` is a glue word too: a marker is looked for first.
    let marker = |t: &&&str| REPLACED_WORDS.contains(&t.to_lowercase().as_str());
    before
        .iter()
        .rev()
        .take(3)
        .find(|t| marker(t) || !glue(t))
        .is_some_and(|t| marker(&t))
}

/// English words after which what a clause says is the old one
/// (`replacing black and isort`); not `instead` nor `rather`, which as
/// often contrast two ways of doing a thing (`squash rather than merge`).
const RETIRING_WORDS: &[&str] = &["replacing", "replaces"];

/// English words before which what a clause says is no longer so
/// (`chromedriver is no longer used`, `ADR 0007 is deprecated`), each said
/// so only after the words of [`RETIRED_AFTER`].
const RETIRED_WORDS: &[&str] = &["longer", "deprecated", "obsolete"];

/// What must come right before a word of [`RETIRED_WORDS`] for it to say
/// a retirement: `no` (`no longer`) or a form of `be` (the participle as
/// what is said of the subject: `X is deprecated`, not `removes the
/// deprecated X` nor `made X obsolete`, which name or tell of it).
const RETIRED_AFTER: &[&str] = &[
    "no", "is", "are", "was", "were", "be", "been", "being", "now", "became",
];

/// The words a text says as the old ones, which it retires: after
/// [`RETIRING_WORDS`] to the clause's end, between `from` and `to` (`moved
/// from Selenium to Playwright`), before [`RETIRED_WORDS`] (`OSSRH staging
/// is no longer used`); function words aside. And whether it says a
/// retirement outright (before [`RETIRED_WORDS`]).
pub(crate) fn retired(text: &str) -> (BTreeSet<String>, bool) {
    let mut out = BTreeSet::new();
    let mut outright = false;
    for clause in punctuated(text) {
        let tokens: Vec<String> = clause
            .split_whitespace()
            .map(|t| {
                t.trim_matches(|c: char| "()[]<>,;:.!?\"'`".contains(c))
                    .to_lowercase()
            })
            .filter(|t| !t.is_empty())
            .collect();
        let is = |t: &String, set: &[&str]| set.contains(&t.as_str());
        let (span, says): (&[String], bool) =
            if let Some(at) = tokens.iter().position(|t| is(t, RETIRING_WORDS)) {
                (&tokens[at + 1..], false)
            } else if let Some(at) = (1..tokens.len())
                .find(|at| is(&tokens[*at], RETIRED_WORDS) && is(&tokens[at - 1], RETIRED_AFTER))
            {
                (&tokens[..at], true)
            } else {
                let from_to = tokens.iter().position(|t| t == "from").and_then(|from| {
                    let to = (from + 2..tokens.len().min(from + 6)).find(|j| tokens[*j] == "to")?;
                    Some(&tokens[from + 1..to])
                });
                (from_to.unwrap_or_default(), false)
            };
        let words: Vec<String> = span.iter().flat_map(|t| slot_words(t, false)).collect();
        outright |= says && !words.is_empty();
        out.extend(words);
    }
    (out, outright)
}

/// A text cut at `;`, at a line's end, at `(` and `)`, and at `.`, `,`,
/// `:`, `!`, `?` before white space.
pub(super) fn punctuated(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_blank = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if ";\n()".contains(c) || (".,:!?".contains(c) && next_blank) {
            out.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&text[start..]);
    out
}

/// The words of a token that can make a slot: none for a value, a function
/// word or a negation.
fn slot_words(token: &str, is_value: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !is_value {
        terms::words(token, |w| {
            let w = canonical(w);
            if !is_function_word(w) && w != "not" {
                out.push(w.to_string());
            }
        });
    }
    out
}

/// One word for words of one meaning: the negations (`never`, `no`,
/// `don't`) are `not`; the words of a lower bound (`or newer`, `or later`,
/// `the oldest`, `minimum`) are `minimum`.
pub(crate) fn canonical(word: &str) -> &str {
    match word {
        "never" | "no" | "don" | "doesn" | "isn" | "aren" | "cannot" | "nt" => "not",
        "newer" | "later" | "oldest" | "minimum" => "minimum",
        w => w,
    }
}
