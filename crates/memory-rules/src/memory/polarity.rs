//! Which words a note denies: each word's polarity in a text, by its
//! clauses and the negations in them (`not`, `never`, `without`, `n't`),
//! and the opposites a note may say instead (`enable` / `disable`). Read by
//! [`super::hygiene`]'s profiles of notes and rules.

use super::mood;
use super::note_values::flag;
use super::slots::{canonical, punctuated};
use super::terms::{self, is_function_word};
use std::collections::BTreeMap;

/// Each word's polarity in `text` (see [`Profile::negated`]). A clause
/// ends at `;`, or at `.`, `,`, `:`, `!`, `?` before white space (not the
/// dots of `1.2` or `a.yaml`); the words after a negation in it (`not`,
/// `no`, `never`, `nor`, `cannot`, `without`, a word ending in `n't`) are
/// negated, and a second negation negates again (`never commit without
/// running the tests`); the words before the first are not counted (the
/// subject of `X must not do Y` is not denied); the words of a clause
/// without a negation are plain.
pub fn polarities(text: &str) -> BTreeMap<String, bool> {
    let mut out: BTreeMap<String, Option<bool>> = BTreeMap::new();
    let mut say = |word: String, negated: bool| {
        let seen = out.entry(word).or_insert(Some(negated));
        if *seen != Some(negated) {
            *seen = None;
        }
    };
    for clause in clauses(text) {
        let tokens: Vec<&str> = clause.split_whitespace().collect();
        // `never wider than 79 columns`: a bound, said plainly.
        let first_negation = tokens
            .iter()
            .position(|t| denies_word(t))
            .filter(|at| !is_bound(&tokens[*at..]));
        let bound = first_negation.is_none() && tokens.iter().any(|t| denies_word(t));
        // `X is not needed`, `squash merges are not used`: nothing but
        // function words and [`LIGHT_PREDICATES`] after the negation, so it
        // denies what comes before it.
        let denies_before = first_negation.is_some_and(|at| {
            let mut content = false;
            for t in &tokens[at + 1..] {
                terms::words(t, |w| content |= !is_function_word(w) && !is_light(w));
            }
            !content
        });
        let mut negated = false;
        let mut skip = false;
        for (i, t) in tokens.iter().enumerate() {
            if std::mem::take(&mut skip) || (bound && denies_word(t)) {
                continue;
            }
            // `use X rather than Y`: Y is denied, X said plainly.
            if is_alternative(t, tokens.get(i + 1)) {
                negated = !negated;
                skip = true;
                continue;
            }
            if is_negation(t) {
                negated = !negated;
                continue;
            }
            if let Some(partner) = opposite(t) {
                negated = !negated;
                if let Some(word) = partner {
                    say(word.to_string(), negated);
                }
                continue;
            }
            let before = first_negation.is_some_and(|at| i < at);
            if before && !denies_before {
                continue;
            }
            let negated = negated || before;
            if let Some(name) = flag(t.trim_matches(|c: char| "()[]<>,;:.!?\"'`".contains(c))) {
                say(name.to_string(), negated);
            }
            terms::words(t, |w| say(canonical(w).to_string(), negated));
        }
    }
    out.remove("not");
    out.into_iter().filter_map(|(w, n)| Some((w, n?))).collect()
}

/// Whether a word of text and the next one say the other of two choices
/// (`rather than`, `instead of`): what follows is not chosen, what comes
/// before is.
fn is_alternative(token: &str, next: Option<&&str>) -> bool {
    let plain = |t: &str| {
        t.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let next = next.map(|t| plain(t)).unwrap_or_default();
    matches!(
        (plain(token).as_str(), next.as_str()),
        ("rather", "than") | ("instead", "of")
    )
}

/// English's past participles that say only whether a thing is wanted:
/// `X is not used`, `Y is not required`, `Z isn't supported` deny X, Y and
/// Z as much as `no X` does.
const LIGHT_PREDICATES: &[&str] = &[
    "used",
    "needed",
    "required",
    "allowed",
    "supported",
    "necessary",
    "permitted",
    "wanted",
];

/// Whether a word as [`terms::words`] gives it (stemmed) is one of
/// [`LIGHT_PREDICATES`].
fn is_light(word: &str) -> bool {
    let mut light = false;
    for p in LIGHT_PREDICATES {
        terms::words(p, |stem| light |= stem == word);
    }
    light
}

/// English's words of comparison that make a negation a bound: `never
/// wider than 79 columns`, `no -j value above 200`, `no deeper than two
/// levels` say a limit (`79 columns at most`), not a denial.
const BOUND_WORDS: &[&str] = &["than", "above", "below", "beyond"];

/// Whether the tokens from a negation on say a bound ([`BOUND_WORDS`]).
fn is_bound(from_negation: &[&str]) -> bool {
    (0..from_negation.len()).any(|i| {
        let t = from_negation[i]
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let alternative = i > 0 && is_alternative(from_negation[i - 1], Some(&from_negation[i]));
        BOUND_WORDS.contains(&t.as_str()) && !alternative
    })
}

/// Whether `text` negates and each of its negations is a hedge
/// ([`mood::hedges`]: `not every preview rule is promoted`).
pub(super) fn only_hedged(text: &str) -> bool {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let negations: Vec<usize> = (0..tokens.len())
        .filter(|i| denies_word(tokens[*i]))
        .collect();
    !negations.is_empty()
        && negations
            .iter()
            .all(|i| tokens.get(i + 1).is_some_and(|t| mood::hedges(t)))
}

/// Whether a word of text (between white space) is a negation or one of
/// [`OPPOSITES`].
fn denies_word(token: &str) -> bool {
    is_negation(token) || opposite(token).is_some()
}

/// Whether a word of text (between white space) is a negation.
fn is_negation(token: &str) -> bool {
    let t = token
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
        .to_lowercase();
    matches!(
        t.as_str(),
        "not" | "no" | "never" | "nor" | "cannot" | "without"
    ) || t.ends_with("n't")
        || t.ends_with("n\u{2019}t")
}

/// Words that say "not" with another (`disable` is "not enable", `skip` and
/// `avoid` "not do"), as [`terms::words`] gives them: `Some(word)` the word
/// they deny, `None` plain denial. English's common opposites of
/// instructions, not a project's words.
const OPPOSITES: &[(&str, Option<&str>)] = &[
    ("disabl", Some("enabl")),
    ("forbid", Some("allow")),
    ("forbidden", Some("allow")),
    ("disallow", Some("allow")),
    ("prohibit", Some("allow")),
    ("exclud", Some("includ")),
    ("reject", Some("accept")),
    ("skip", None),
    ("avoid", None),
];

/// What a word of text (between white space) denies, if it is one of
/// [`OPPOSITES`] (`optional` is "not required"; its stem, `option`, is not).
pub(super) fn opposite(token: &str) -> Option<Option<&'static str>> {
    let t = token
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    if t == "optional" {
        return Some(Some("requir"));
    }
    let mut stem = None;
    terms::words(&t, |w| {
        stem.get_or_insert_with(|| w.to_string());
    });
    let stem = stem?;
    OPPOSITES
        .iter()
        .find(|(w, _)| *w == stem && t.chars().all(char::is_alphabetic))
        .map(|(_, partner)| *partner)
}

/// English conjunctions that start another clause, where a negation's
/// reach ends (`// comments are not allowed because curl is written in
/// C89` does not deny C89).
const CLAUSE_WORDS: &[&str] = &[
    "because", "since", "so", "but", "although", "though", "whereas",
];

/// The clauses of a text (see [`polarities`]): cut at punctuation, then
/// before each of [`CLAUSE_WORDS`].
pub(super) fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for clause in punctuated(text) {
        let mut start = 0;
        for t in clause.split_whitespace() {
            let at = t.as_ptr() as usize - clause.as_ptr() as usize;
            if at > start && CLAUSE_WORDS.contains(&t.to_lowercase().as_str()) {
                out.push(&clause[start..at]);
                start = at;
            }
        }
        out.push(&clause[start..]);
    }
    out
}
