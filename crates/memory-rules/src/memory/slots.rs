//! Where a note's values sit: each value's slot (the words next to it:
//! what it is the value of) and the values it says as the old ones
//! (`bumped from 1.2 to 1.3`), for hygiene.rs's conflicts and superseding.

use super::note_values::{assigned, command, token_value, ValueKind};
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
    // Whether a `,` or `;` sits between token `j - 1` and token `j`.
    let at = |t: &str| t.as_ptr() as usize - text.as_ptr() as usize;
    let breaks: Vec<bool> = (0..tokens.len())
        .map(|j| {
            j > 0
                && text[at(tokens[j - 1]) + tokens[j - 1].len()..at(tokens[j])].contains([',', ';'])
        })
        .collect();
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
        let kind_at = |j: usize| found[j].as_ref().is_some_and(|v| v.0 == value.0);
        let later = (i + 1..tokens.len().min(i + 4))
            .any(|j| (said(j - 1, "to") || said(j - 1, "into")) && kind_at(j));
        if (i > 0 && said(i - 1, "from") && later)
            || replaced(&tokens[..i])
            || renamed(&tokens, &breaks, i, kind_at)
        {
            previous.insert(value.clone());
        }
    }
    previous.extend(
        renamed_commands(text)
            .into_iter()
            .map(|c| (ValueKind::Command, c)),
    );
    (slots, previous)
}

/// The code spans a text says as the old ones of a rename or a move:
/// `` `make benchmark` was renamed `make bench` ``, `` renamed `a` to `b` ``,
/// `` from `a` to `b` ``: a span with another right after it, only glue,
/// [`RENAMED_WORDS`] and [`RENAMED_TO`] between, and one of those words
/// said between or right before.
fn renamed_commands(text: &str) -> Vec<String> {
    let segments: Vec<&str> = text.split('`').collect();
    let words = |seg: &str| -> Vec<String> {
        seg.split_whitespace()
            .map(|t| {
                t.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|t| !t.is_empty())
            .collect()
    };
    let marker = |t: &String| RENAMED_WORDS.contains(&t.as_str()) || t == "from";
    let mut out = Vec::new();
    // Spans sit at odd indexes, closed when a segment follows.
    for i in (1..segments.len().saturating_sub(2)).step_by(2) {
        let between = words(segments[i + 1]);
        let joined = between.len() <= 4
            && between
                .iter()
                .all(|t| is_glue(t) || marker(t) || RENAMED_TO.contains(&t.as_str()));
        let said_between = between.iter().any(marker);
        let said_before = words(segments[i - 1]).last().is_some_and(marker);
        if joined && (said_between || said_before) {
            let old = command(segments[i]);
            if !old.is_empty() {
                out.push(old);
            }
        }
    }
    out
}

/// Whether every word of a token is a function word (`of`, `the`, `was`):
/// glue between a marker word and its value.
fn is_glue(token: &str) -> bool {
    let mut all = true;
    terms::words(token, |w| all &= is_function_word(w));
    all
}

/// English words after which a value is the old one (`instead of 3000`,
/// `rather than 1.2`, `replacing 2.1.0`), function words between them and
/// the value aside.
const REPLACED_WORDS: &[&str] = &["instead", "rather", "replacing", "replaces"];

/// Whether the tokens before a value end in one of [`REPLACED_WORDS`] and
/// at most two function words (`instead of the`).
fn replaced(before: &[&str]) -> bool {
    // `instead` is a glue word too: a marker is looked for first.
    let marker = |t: &&&str| REPLACED_WORDS.contains(&t.to_lowercase().as_str());
    before
        .iter()
        .rev()
        .take(3)
        .find(|t| marker(t) || !is_glue(t))
        .is_some_and(|t| marker(&t))
}

/// English words that say a thing took another name or place (`renamed`,
/// `moved`): the value before them is the old one when one of its kind
/// follows (`` `make benchmark` was renamed `make bench` ``), and so is one
/// right after them when one follows after `to` (`renamed `a` to `b``).
const RENAMED_WORDS: &[&str] = &["renamed", "moved", "replaced", "superseded"];

/// Words after a rename word before the new value (`to`, `into`, `by`).
const RENAMED_TO: &[&str] = &["to", "into", "by", "with", "as"];

/// Rename words that take an object (`26.x replaced 25.x`): the value
/// before one is the old one only when a form of `be` says it passive
/// (`25.x was replaced by 26.x`); said active, the value after it is.
const TRANSITIVE_RENAMED: &[&str] = &["replaced", "superseded"];

/// Forms of `be` (and `get`) that make a past participle passive.
const PASSIVE_BE: &[&str] = &[
    "is", "are", "was", "were", "been", "being", "be", "got", "gets",
];

/// Whether the value at `i` is the old one of a rename (see
/// [`RENAMED_WORDS`]); `kind_at(j)`: whether token `j` is a value of its kind.
/// `breaks[j]`: a `,` or `;` before token `j`, which ends the rename.
fn renamed(tokens: &[&str], breaks: &[bool], i: usize, kind_at: impl Fn(usize) -> bool) -> bool {
    let is = |j: usize, set: &[&str]| {
        tokens
            .get(j)
            .is_some_and(|t| set.contains(&t.to_lowercase().as_str()))
    };
    let glue = |j: usize| is_glue(tokens[j]);
    let end = tokens.len();
    // The new value soon after the word at `at`, only glue and `to` between.
    let follows = |at: usize| {
        (at + 1..end.min(at + 4))
            .take_while(|j| !breaks[*j] && (kind_at(*j) || is(*j, RENAMED_TO) || glue(*j)))
            .any(&kind_at)
    };
    // `A was renamed B`: glue, then the word (`replaced` said passive).
    let passive = |j: usize| (i + 1..j).any(|k| is(k, PASSIVE_BE));
    let after = (i + 1..end.min(i + 4))
        .take_while(|j| !breaks[*j] && (is(*j, RENAMED_WORDS) || glue(*j)))
        .find(|j| is(*j, RENAMED_WORDS))
        .is_some_and(|j| (!is(j, TRANSITIVE_RENAMED) || passive(j)) && follows(j));
    // `renamed A to B`: the word right before, a new value after `to`.
    let before = i > 0 && is(i - 1, RENAMED_WORDS) && {
        (i + 1..end.min(i + 4))
            .take_while(|j| !breaks[*j])
            .any(|j| is(j - 1, RENAMED_TO) && kind_at(j))
    };
    // `B replaced A`: the word right before, said active, a value before it.
    let object = i > 1
        && is(i - 1, TRANSITIVE_RENAMED)
        && !is(i - 2, PASSIVE_BE)
        && (i.saturating_sub(4)..i - 1)
            .rev()
            .take_while(|j| !breaks[j + 1])
            .any(&kind_at);
    after || before || object
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
            } else if let Some(at) = (1..tokens.len()).find(|at| {
                is(&tokens[*at], RETIRED_WORDS)
                    && is(&tokens[at - 1], RETIRED_AFTER)
                    && !compares(&tokens, *at)
            }) {
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

/// Whether the word at `at` compares rather than retires: `longer than`
/// (`functions no longer than 5 lines`).
fn compares(tokens: &[String], at: usize) -> bool {
    tokens[at] == "longer" && tokens.get(at + 1).is_some_and(|t| t == "than")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn previous(text: &str) -> Vec<String> {
        slots(text).1.into_iter().map(|(_, v)| v).collect()
    }

    #[test]
    fn a_renamed_or_moved_value_is_the_old_one() {
        assert_eq!(
            previous("`make benchmark` was renamed `make bench`"),
            ["make benchmark"]
        );
        assert_eq!(
            previous("renamed `docs-auto` to `docs-live`"),
            ["docs-auto"]
        );
        assert_eq!(previous("from `check:type` to `typecheck`"), ["check:type"]);
        assert_eq!(previous("a.md was moved to docs/b.md"), ["a.md"]);
        assert_eq!(previous("renamed a.md to b.md"), ["a.md"]);
        assert_eq!(
            previous("moved from rfc9457.go into problem.go"),
            ["rfc9457.go"]
        );
        assert_eq!(
            previous("pyo3 0.30.0 replaced 0.29.2 in Cargo.toml"),
            ["0.29.2"]
        );
        assert_eq!(previous("0.29.2 was replaced by 0.30.0"), ["0.29.2"]);
        assert_eq!(
            previous("Node 26.x superseded 25.x as the newest line"),
            ["25.x"]
        );
    }

    #[test]
    fn two_values_without_a_rename_between_are_no_old_one() {
        assert!(previous("`make bench` and `make test` were renamed").is_empty());
        assert!(previous("run `make bench`, then `make test`").is_empty());
        assert!(previous("a.md moved; b.md stays").is_empty());
    }

    #[test]
    fn no_longer_retires_and_no_longer_than_compares() {
        let (words, outright) = retired("chromedriver is no longer used");
        assert!(outright && !words.is_empty(), "{words:?}");
        let (words, outright) =
            retired("naked returns pass only in functions no longer than 5 lines");
        assert!(!outright && words.is_empty(), "{words:?}");
    }
}
