//! Whether two texts are one sentence with a run of words swapped: another
//! value said in words, or another subject; no restatement, a possible
//! conflict (hygiene.rs's writes).

use super::{Clash, Profile};
use crate::memory::note_values::ValueKind;
use crate::memory::slots::canonical;
use crate::memory::terms::{self, is_function_word};
use std::collections::BTreeSet;

/// At most this many words of one sentence in place of as many of another
/// ([`swapped`]).
pub const SWAP_WORDS: usize = 3;

/// Share of the longer text's words from which two texts that differ in
/// one run of words are one sentence with a word swapped ([`swapped`]).
pub const SWAP_KEPT: f32 = 0.6;

/// Whether `a` and `b` are one sentence with a run of words swapped (`...
/// starts with an uppercase letter` and `... a lowercase letter`; `Run the
/// test suite with pixi run test` and `... pixi run pytest-all`): the same
/// words before and after it ([`SWAP_KEPT`] of the longer), at most
/// [`SWAP_WORDS`] on either side, each side with a word (not a function
/// word) the other lacks. Another value said in words, or another subject:
/// no restatement, a possible conflict ([`ValueKind::Name`], never a flag).
pub(super) fn swapped(a: &Profile, b: &Profile) -> Option<Clash> {
    let tokens = |p: &Profile| -> Vec<String> {
        p.folded
            .split_whitespace()
            .map(|t| {
                t.trim_matches(|c: char| ",;:.!?()\"'`".contains(c))
                    .to_string()
            })
            .filter(|t| !t.is_empty())
            .collect()
    };
    let (ta, tb) = (tokens(a), tokens(b));
    let prefix = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
    let most = ta.len().min(tb.len()) - prefix;
    let suffix = (0..most)
        .take_while(|i| ta[ta.len() - 1 - i] == tb[tb.len() - 1 - i])
        .count();
    let (ma, mb) = (
        &ta[prefix..ta.len() - suffix],
        &tb[prefix..tb.len() - suffix],
    );
    let kept = (prefix + suffix) as f32 >= SWAP_KEPT * ta.len().max(tb.len()) as f32;
    let short = |m: &[String]| (1..=SWAP_WORDS).contains(&m.len());
    if !(kept && short(ma) && short(mb)) {
        return None;
    }
    let stems = |m: &[String]| {
        let mut out = BTreeSet::new();
        for t in m {
            terms::words(t, |x| {
                if !is_function_word(canonical(x)) {
                    out.insert(canonical(x).to_string());
                }
            });
        }
        out
    };
    let (sa, sb) = (stems(ma), stems(mb));
    let own = |x: &BTreeSet<String>, y: &BTreeSet<String>| x.difference(y).next().is_some();
    (own(&sa, &sb) && own(&sb, &sa)).then(|| Clash {
        kind: ValueKind::Name,
        ours: vec![ma.join(" ")],
        theirs: vec![mb.join(" ")],
    })
}
