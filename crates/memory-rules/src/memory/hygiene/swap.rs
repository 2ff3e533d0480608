//! Whether two texts are one sentence with runs of words swapped: another
//! value said in words, or another subject; no restatement, a possible
//! conflict (hygiene.rs's writes).

use super::{content_words, Clash, Profile};
use crate::memory::note_values::ValueKind;
use crate::memory::slots::canonical;
use crate::memory::terms::{self, is_function_word};
use std::collections::BTreeSet;

/// At most this many words of one sentence in place of as many of another
/// ([`swapped`]).
pub const SWAP_WORDS: usize = 3;

/// Share of the longer text's words, said in order by both, from which two
/// texts that differ in runs of words are one sentence with words swapped
/// ([`swapped`]).
pub const SWAP_KEPT: f32 = 0.6;

/// At most this many words in the shorter of two texts before [`swapped`]
/// aligns them word by word (the alignment is quadratic): a longer rule
/// part is no sentence a note swaps a word of.
pub const SWAP_ALIGN_WORDS: usize = 80;

/// Function words that say the opposite of each other's (`made before the
/// change commits` and `made after ...`): in a swapped run they count as
/// the word that tells the two apart.
const CONTRAST_WORDS: &[&str] = &[
    "before", "after", "on", "off", "above", "below", "more", "less", "first", "last", "up",
    "down", "in", "out",
];

/// Whether `a` and `b` are one sentence with runs of words swapped (`...
/// starts with an uppercase letter` and `... a lowercase letter`; `Run the
/// test suite with pixi run test` and `... pixi run pytest-all`; `updates
/// are monthly ... with chore-prefixed messages` and `weekly ... fix-prefixed`):
/// aligned word by word, the words both say in order are [`SWAP_KEPT`] of
/// the longer, each run said in place of another is at most [`SWAP_WORDS`]
/// on either side, no word but function words is only added on one side,
/// and one such run has on each side a word the other run
/// lacks (not a function word, but for [`CONTRAST_WORDS`]), one of them
/// said nowhere in the other text (`libstd or libcore` for `libcore or
/// libstd` moves words, it swaps none). Another value said in words, or
/// another subject: no restatement, a possible conflict
/// ([`ValueKind::Name`], never a flag).
pub(super) fn swapped(a: &Profile, b: &Profile) -> Option<Clash> {
    let (ta, tb) = (tokens(a), tokens(b));
    let longer = ta.len().max(tb.len()) as f32;
    if ta.len().min(tb.len()) > SWAP_ALIGN_WORDS || (shared(&ta, &tb) as f32) < SWAP_KEPT * longer {
        return None;
    }
    let (kept, runs) = align(&ta, &tb);
    let short = |m: &[String]| m.len() <= SWAP_WORDS;
    // Words added on one side only (not function words) make it a
    // rewording (`Bullet lists in the docs take asterisks` of `In the docs,
    // unordered lists use asterisks`), not the sentence with words swapped.
    let added = |(x, y): &Run| {
        (x.is_empty() || y.is_empty()) && (!stems(x).is_empty() || !stems(y).is_empty())
    };
    if (kept as f32) < SWAP_KEPT * longer
        || !runs.iter().all(|(x, y)| short(x) && short(y))
        || runs.iter().any(added)
    {
        return None;
    }
    let (ma, mb) = runs.into_iter().find(|(x, y)| {
        let (sa, sb) = (stems(x), stems(y));
        let own = sa.difference(&sb).next().is_some() && sb.difference(&sa).next().is_some();
        own && (lacks(&sa, b) || lacks(&sb, a))
    })?;
    Some(Clash {
        kind: ValueKind::Name,
        ours: vec![ma.join(" ")],
        theirs: vec![mb.join(" ")],
    })
}

/// Whether the note says its words in the part's order: its words (not
/// function words, stemmed; a command's among them) are, one after
/// another, words of the part in that order. The rule's words in another
/// order may pair them otherwise: which files take tabs and which two
/// spaces, which options are deprecated (`... go at the top level; the
/// h2Options object is deprecated` of `... go under h2Options; the
/// top-level options are deprecated`), which comes first in a lookup
/// order. Only a note in the rule's order is sure to say nothing of its
/// own.
pub(super) fn in_order(note: &Profile, part: &Profile) -> bool {
    let mut theirs = content_words(&part.folded).into_iter();
    content_words(&note.folded)
        .iter()
        .all(|w| theirs.any(|x| &x == w))
}

/// Whether the values both texts give (commands, versions, paths) come in
/// another order in each (`` `npm test` runs `A`; `test-all` runs `B` `` of
/// the same with `B` and `A`): which value goes with which is what such a
/// sentence says. A command is found as its code span first.
pub(super) fn values_reordered(a: &Profile, b: &Profile) -> bool {
    let at = |p: &Profile, v: &str| {
        (p.folded.find(&format!("`{v}`")).map(|i| i + 1)).or_else(|| p.folded.find(v))
    };
    let mut places: Vec<(usize, usize)> = (a.values.iter())
        .filter(|x| b.values.contains(*x))
        .filter_map(|(_, v)| Some((at(a, v)?, at(b, v)?)))
        .collect();
    places.sort_unstable();
    places.windows(2).any(|w| w[0].1 > w[1].1)
}

/// The text's words between white space, punctuation around them trimmed,
/// code spans left out (a command is compared as a value, and a long one
/// shared would make any two sentences around it one).
fn tokens(p: &Profile) -> Vec<String> {
    let prose: String = (p.folded.split('`').step_by(2))
        .collect::<Vec<_>>()
        .join(" ");
    (prose.split_whitespace())
        .map(|t| {
            t.trim_matches(|c: char| ",;:.!?()\"'`".contains(c))
                .to_string()
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// How many words the two say alike, counted with repeats (at least the
/// length of their alignment).
fn shared(a: &[String], b: &[String]) -> usize {
    let mut counts: std::collections::HashMap<&str, i32> = std::collections::HashMap::new();
    for t in a {
        *counts.entry(t).or_default() += 1;
    }
    b.iter()
        .filter(|t| {
            counts.get_mut(t.as_str()).is_some_and(|n| {
                *n -= 1;
                *n >= 0
            })
        })
        .count()
}

/// A run of words of one text said in place of a run of the other (one of
/// the two may be empty: words added).
type Run = (Vec<String>, Vec<String>);

/// The longest run of words both say in order (its length), and each place
/// where they say other words, or one says words the other does not.
fn align(a: &[String], b: &[String]) -> (usize, Vec<Run>) {
    let (n, m) = (a.len(), b.len());
    let mut l = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            l[i][j] = if a[i] == b[j] {
                l[i + 1][j + 1] + 1
            } else {
                l[i + 1][j].max(l[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut runs) = (0, 0, Vec::new());
    let mut run: Run = (Vec::new(), Vec::new());
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            if !run.0.is_empty() || !run.1.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
            (i, j) = (i + 1, j + 1);
        } else if j == m || (i < n && l[i + 1][j] >= l[i][j + 1]) {
            run.0.push(a[i].clone());
            i += 1;
        } else {
            run.1.push(b[j].clone());
            j += 1;
        }
    }
    if !run.0.is_empty() || !run.1.is_empty() {
        runs.push(run);
    }
    (l[0][0], runs)
}

/// Whether one of `words` is nowhere in `text` (as a word or a token).
fn lacks(words: &BTreeSet<String>, text: &Profile) -> bool {
    (words.iter())
        .any(|w| !text.words.contains(w) && !text.folded.split_whitespace().any(|t| t == w))
}

/// The words of a run (stemmed) that tell it apart: not function words,
/// but for [`CONTRAST_WORDS`].
fn stems(run: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in run {
        if CONTRAST_WORDS.contains(&t.as_str()) {
            out.insert(t.clone());
        }
        terms::words(t, |x| {
            if !is_function_word(canonical(x)) {
                out.insert(canonical(x).to_string());
            }
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swap(a: &str, b: &str) -> Option<(String, String)> {
        let c = swapped(&Profile::of(a), &Profile::of(b))?;
        Some((c.ours.join(" "), c.theirs.join(" ")))
    }

    #[test]
    fn several_runs_swapped_in_one_sentence_are_another_value_said_in_words() {
        let rule = "Dependabot updates are monthly for gomod, github-actions and docker, grouped into one group with chore-prefixed commit messages.";
        assert_eq!(
            swap(
                "Dependabot updates are weekly for gomod, github-actions and docker, grouped into one group with fix-prefixed commit messages.",
                rule
            ),
            Some(("weekly".into(), "monthly".into()))
        );
        assert_eq!(
            swap(
                "Release with a commit whose subject is the bare version, made before the change commits.",
                "Release with a commit whose subject is the bare version, made after the change commits."
            ),
            Some(("before".into(), "after".into()))
        );
        // The rule's words with some added, or one said in another form:
        // nothing swapped.
        assert_eq!(
            swap(
                "Dependabot updates are monthly for gomod, github-actions and docker.",
                rule
            ),
            None
        );
        assert_eq!(
            swap(
                "Never use the real libstd or libcore in tests.",
                "Never use the real libcore or libstd in tests."
            ),
            None,
            "words moved, none swapped"
        );
        assert_eq!(
            swap(
                "Also run the tests with the PCRE2 feature: `cargo test --all --features pcre2`.",
                "Run the test suite with PCRE2 as well: `cargo test --all --features pcre2`."
            ),
            None,
            "the same command in two sentences"
        );
        assert_eq!(
            swap(
                "Run make fmt before each commit.",
                "Run make fmt before committing."
            ),
            None
        );
    }
}
