//! Is a note a duplicate of another, a restatement of a rule, or in
//! conflict with either?
//!
//! Notes are compared by their words ([`super::terms`]), each weighted by
//! its inverse document frequency over the memory and the rules together
//! ([`Weights`]): words every note has (`the`, `use`) count for little, rare
//! ones (`staging`, `pnpm`) for much, so no list of stop words is needed and
//! the comparison works in any language the tokenizer splits.
//!
//! - duplicate: weighted Jaccard similarity of the two word sets at least
//!   [`DUPLICATE_SIMILARITY`], and the same values (below);
//! - restates a rule: the note and one paragraph or list item of the rule
//!   say nearly the same words (weighted Dice similarity, the harmonic mean
//!   of how much of the note is in the rule and of the rule in the note, at
//!   least [`RESTATES_SIMILARITY`]: the note says what the rule says and
//!   little else), or the note is nearly all in it (at least
//!   [`RESTATES_CONTAINMENT`] of the note's weight: it says one point of a
//!   longer rule); no value of the note missing from the rule, and what
//!   they share not said mostly the other way (`tags are not signed` does
//!   not restate `... tags are signed ...`; see the conflict below);
//! - conflict: the same subject (the words that are not values: at least
//!   [`CONFLICT_SUBJECT`] of the smaller subject's weight is in the other)
//!   with different values of one kind: another command (a code span or a
//!   quoted string), flag (`--release`), version, number (a port, a size),
//!   address (a URL, `host:port`), account (an e-mail address or `@name`),
//!   path (a file or folder as file keys find them, the same place in
//!   other spellings one value) or setting (`RUST_LOG=debug`); or the other polarity: one says without a
//!   negation (or an opposite: `disable`, `optional`) what the other says
//!   after one (`run make fmt before committing` and `make fmt is not
//!   checked`; [`denies`]).

use super::holders::{held_apart, holders, run_by, taken_to, Held};
use super::mood;
use super::note_values::*;
pub use super::polarity::polarities;
use super::polarity::{clauses, only_hedged};
use super::slots::{canonical, retired, slots};
mod moved;
mod supersede;
mod swap;
use super::terms::{self, is_function_word, FUNCTION_WORD_WEIGHT};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use supersede::CHANGE_WORDS;
pub use supersede::{differing_values, supersedes};
use swap::{in_order, swapped, values_reordered};

// The thresholds, value slots and opposites are chosen on labelled pairs
// (bench/memory-pairs: tuning/, and the spent held-out sets heldout/ and
// heldout-2/; `node bench/memory-pairs.mjs`), never on a held-out set not
// yet scored; docs/memory.md gives the numbers.

/// Weighted Jaccard similarity from which two notes are one (a rewording:
/// 0.61 and up on the tuning set but one pair at 0.41; distinct notes on
/// the same subject 0.32 at most).
pub const DUPLICATE_SIMILARITY: f32 = 0.55;
/// Weighted Dice similarity of a note and one part of a rule from which
/// the note restates the rule (on the nine labelled sets, 0.55-0.60 held 12
/// restatements and 14 notes of the rule's subject that say another thing).
pub const RESTATES_SIMILARITY: f32 = 0.6;
/// Share of a note's weight found in one part of a rule from which the note
/// restates the rule whatever else the rule says (see [`restates`]): nearly
/// all of it (at 0.7-0.88, only notes that say another thing of the rule).
pub const RESTATES_CONTAINMENT: f32 = 0.9;
/// Share of the larger text's weight that one text says after a negation
/// and the other without from which (with [`DENIED_RATIO`]) the two deny
/// each other ([`denies`]).
pub const DENIED_SHARE: f32 = 0.2;
/// How many times what they say the same way the words said with other
/// polarities must weigh (contradictions: 1.8 and up; restatements
/// worded around a negation: 1.05 at most).
pub const DENIED_RATIO: f32 = 1.5;
/// Share of the smaller subject's weight found in the other from which two
/// notes with different values conflict.
pub const CONFLICT_SUBJECT: f32 = 0.5;
/// A note as compared: its words, its values and its subject.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Every word (folded, stemmed), once.
    pub words: BTreeSet<String>,
    /// The values it states, by kind.
    pub values: BTreeSet<(ValueKind, String)>,
    /// The words outside its values.
    pub subject: BTreeSet<String>,
    /// The text with white space folded and case folded (exact duplicates).
    pub folded: String,
    /// Each word's polarity: `true` when it is said only in negated clauses
    /// (`never edit X`, `X is not needed`), `false` when only in plain
    /// ones; a word said both ways is left out ([`polarities`]).
    pub negated: BTreeMap<String, bool>,
    /// Each value's slot: the nearest word either side of it that is not a
    /// function word nor a value ([`super::slots::SLOT_REACH`]) and the text's first
    /// such word (what it is about), what the value is the value of (`Node
    /// 20` and `Node 22` fill one slot; `port 5433` and `30 days` do not).
    pub slots: BTreeMap<(ValueKind, String), BTreeSet<String>>,
    /// The values said as the old ones (`bumped from 1.2 to 1.3`: 1.2),
    /// not among `values`.
    pub previous: BTreeSet<(ValueKind, String)>,
    /// The words said in clauses that prescribe (an instruction, not a
    /// description: [`super::mood::prescribes`]).
    pub prescribed: BTreeSet<String>,
    /// Whether each of its negations is a hedge (`not every`, `not all`:
    /// some are not), which denies only a universal ([`mood::hedges`]).
    pub hedged: bool,
    /// Whether it says a universal (`every`, `all`, `always`, `each`).
    pub universal: bool,
    /// The words it says as the old ones (`replacing black and isort`,
    /// `chromedriver is no longer used`; [`super::slots::retired`]).
    pub retired: BTreeSet<String>,
    /// Whether it says outright that something is no longer so.
    pub retires: bool,
    /// Each value's holder, the name it is said of
    /// ([`super::holders::holders`]: `click` of `click 8.1.3`).
    pub holders: BTreeMap<(ValueKind, String), BTreeSet<String>>,
    /// Whether it says a value was taken somewhere (`autoupdated to
    /// v0.16.2`: [`super::holders::taken_to`]).
    pub taken: bool,
    /// The commands it says a runner runs, with the runner's words
    /// (`The lint job runs ...`: [`super::holders::run_by`]).
    pub run_by: BTreeMap<String, BTreeSet<String>>,
}

/// How many shared words a candidate's evidence names (the heaviest).
pub const SHARED_WORDS: usize = 6;

impl Profile {
    /// The heaviest words both subjects say, function words aside, at most
    /// [`SHARED_WORDS`]: the shared subject a candidate's evidence names.
    pub fn shared_subject(&self, other: &Profile, w: &Weights<'_>) -> Vec<String> {
        let mut shared: Vec<(f32, &String)> = self
            .subject
            .intersection(&other.subject)
            .filter(|x| !is_function_word(x))
            .map(|x| (w.of(x), x))
            .collect();
        shared.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(y.1)));
        shared
            .into_iter()
            .take(SHARED_WORDS)
            .map(|(_, x)| x.clone())
            .collect()
    }

    pub fn of(text: &str) -> Profile {
        let text = &dated(text);
        let (mut values, rest) = values(text);
        let (slots, previous) = slots(text);
        let (retired, retires) = retired(text);
        values.retain(|v| !previous.contains(v));
        let mut words = BTreeSet::new();
        terms::words(text, |w| {
            words.insert(canonical(w).to_string());
        });
        let mut subject = BTreeSet::new();
        terms::words(&rest, |w| {
            subject.insert(canonical(w).to_string());
        });
        Profile {
            words,
            values,
            subject,
            folded: crate::matchers::topic_matcher::fold(text),
            negated: polarities(text),
            slots,
            previous,
            prescribed: mood::prescribed_words(clauses(text), |w| canonical(w).to_string()),
            hedged: only_hedged(text),
            universal: text.split_whitespace().any(mood::is_universal),
            retired,
            retires,
            holders: holders(text, CHANGE_WORDS),
            taken: taken_to(text, CHANGE_WORDS),
            run_by: run_by(text),
        }
    }

    /// Whether a value of `kind` here and one there fill one slot (share a
    /// word next to them). Commands (code spans) are not slotted: true.
    pub(super) fn same_slot(&self, other: &Profile, kind: ValueKind) -> bool {
        if kind == ValueKind::Command {
            return true;
        }
        let slot = |p: &'_ Profile, v: &str| p.slots.get(&(kind, v.to_string())).cloned();
        self.of_kind(kind).iter().any(|x| {
            other
                .of_kind(kind)
                .iter()
                .any(|y| match (slot(self, x), slot(other, y)) {
                    (Some(a), Some(b)) => !a.is_disjoint(&b),
                    _ => false,
                })
        })
    }

    /// Its holders and words, as [`held_apart`] reads them.
    pub(super) fn held(&self) -> Held<'_> {
        Held {
            holders: &self.holders,
            words: &self.words,
        }
    }

    /// Whether it says a value of `old` as the old one (`3001 instead of
    /// 3000` of a note giving 3000): the entry it most plainly replaces.
    pub fn names_old_of(&self, old: &Profile) -> bool {
        self.previous.iter().any(|(k, v)| old.has(*k, v))
    }

    pub(super) fn kinds(&self) -> BTreeSet<ValueKind> {
        self.values.iter().map(|(k, _)| *k).collect()
    }

    /// Whether it states this value: the same value, or for a path one
    /// of the same file or folder ([`same_place`]).
    pub(super) fn has(&self, kind: ValueKind, value: &str) -> bool {
        match kind {
            ValueKind::Path => self.of_kind(kind).iter().any(|p| same_place(p, value)),
            ValueKind::Version => self.of_kind(kind).iter().any(|v| same_version(v, value)),
            _ => self.values.contains(&(kind, value.to_string())),
        }
    }

    /// [`Profile::has`], or for a command one that ends in its words
    /// (`npm run check:type` has `check:type`): a command named as a
    /// script.
    pub(super) fn has_spelled(&self, kind: ValueKind, value: &str) -> bool {
        let ends = |c: &&str| {
            c.strip_suffix(value)
                .is_some_and(|head| head.ends_with(' '))
        };
        self.has(kind, value) || (kind == ValueKind::Command && self.of_kind(kind).iter().any(ends))
    }

    pub(super) fn of_kind(&self, kind: ValueKind) -> BTreeSet<&str> {
        self.values
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// Word weights: inverse document frequency over a corpus of `n` texts.
pub struct Weights<'a> {
    pub n: f32,
    pub df: &'a dyn Fn(&str) -> f32,
}

impl Weights<'_> {
    /// The word's IDF alone (no function-word discount).
    pub fn idf(&self, word: &str) -> f32 {
        let n = self.n.max(MIN_IDF_DOCUMENTS);
        let df = (self.df)(word).min(n);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The word's IDF; a function word's ([`is_function_word`]) times
    /// [`FUNCTION_WORD_WEIGHT`], which a small memory cannot learn.
    pub fn of(&self, word: &str) -> f32 {
        let idf = self.idf(word);
        if is_function_word(word) {
            idf * FUNCTION_WORD_WEIGHT
        } else {
            idf
        }
    }
}

/// A note with fewer words than this that are not function words is
/// short: it is a duplicate only at [`SHORT_DUPLICATE_SIMILARITY`] by plain
/// IDF (one word is all that tells `port of service a is 5` from `... b is
/// 5`, and a short note is seldom reworded).
pub const SHORT_NOTE_WORDS: usize = 6;
/// See [`SHORT_NOTE_WORDS`].
pub const SHORT_DUPLICATE_SIMILARITY: f32 = 0.8;

/// The IDF counts at least this many documents: in a memory of a few notes
/// a word no note has yet would otherwise outweigh the words two notes
/// share several times over.
pub const MIN_IDF_DOCUMENTS: f32 = 50.0;

/// Σ weight(a ∩ b) / Σ weight(a ∪ b); 0 for two empty sets.
pub fn similarity(a: &BTreeSet<String>, b: &BTreeSet<String>, w: &Weights<'_>) -> f32 {
    let inter: f32 = a.intersection(b).map(|x| w.of(x)).sum();
    let union: f32 = a.union(b).map(|x| w.of(x)).sum();
    if union == 0.0 {
        0.0
    } else {
        inter / union
    }
}

/// Σ weight(a ∩ b) / Σ weight(a): how much of `a` is in `b`.
pub fn containment(a: &BTreeSet<String>, b: &BTreeSet<String>, w: &Weights<'_>) -> f32 {
    let inter: f32 = a.intersection(b).map(|x| w.of(x)).sum();
    let all: f32 = a.iter().map(|x| w.of(x)).sum();
    if all == 0.0 {
        0.0
    } else {
        inter / all
    }
}

/// Σ weight(a ∩ b) / min(Σ weight(a), Σ weight(b)): how much of the smaller
/// set is in the other.
pub fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>, w: &Weights<'_>) -> f32 {
    let inter: f32 = a.intersection(b).map(|x| w.of(x)).sum();
    let wa: f32 = a.iter().map(|x| w.of(x)).sum();
    let wb: f32 = b.iter().map(|x| w.of(x)).sum();
    let least = wa.min(wb);
    if least == 0.0 {
        0.0
    } else {
        inter / least
    }
}

/// Whether two notes are one (see the module comment).
pub fn is_duplicate(a: &Profile, b: &Profile, w: &Weights<'_>) -> bool {
    if a.folded == b.folded {
        return true;
    }
    // Flags and paths are words too; `-n monitoring` may be said or left
    // out, `tests/` said or not; `one` is as often a pronoun as a number
    // (`a CommonJS one`, `for one playground`).
    let values = |p: &Profile| -> BTreeSet<(ValueKind, String)> {
        p.values
            .iter()
            .filter(|(k, _)| !matches!(k, ValueKind::Flag | ValueKind::Path))
            .filter(|(k, v)| !(*k == ValueKind::Number && v == "1"))
            .cloned()
            .collect()
    };
    // Paths both give, none of one place: two files, not one said twice.
    let (pa, pb) = (a.of_kind(ValueKind::Path), b.of_kind(ValueKind::Path));
    let other_places =
        !pa.is_empty() && !pb.is_empty() && !pa.iter().any(|x| b.has(ValueKind::Path, x));
    if values(a) != values(b) || other_places {
        return false;
    }
    let content = |p: &Profile| p.words.iter().filter(|x| !is_function_word(x)).count();
    if content(a).min(content(b)) < SHORT_NOTE_WORDS {
        let inter: f32 = a.words.intersection(&b.words).map(|x| w.idf(x)).sum();
        let union: f32 = a.words.union(&b.words).map(|x| w.idf(x)).sum();
        return union > 0.0 && inter / union >= SHORT_DUPLICATE_SIMILARITY;
    }
    similarity(&a.words, &b.words, w) >= DUPLICATE_SIMILARITY
}

/// 2 Σ weight(a ∩ b) / (Σ weight(a) + Σ weight(b)): the harmonic mean of
/// how much of `a` is in `b` and of `b` in `a`; 0 for two empty sets.
pub fn dice(a: &BTreeSet<String>, b: &BTreeSet<String>, w: &Weights<'_>) -> f32 {
    let inter: f32 = a.intersection(b).map(|x| w.of(x)).sum();
    let all: f32 = a.iter().chain(b).map(|x| w.of(x)).sum();
    if all == 0.0 {
        0.0
    } else {
        2.0 * inter / all
    }
}

/// Whether the note restates this part of a rule (see the module comment).
pub fn restates(note: &Profile, part: &Profile, w: &Weights<'_>) -> bool {
    !note.words.is_empty()
        && note.values.iter().all(|(kind, v)| part.has(*kind, v))
        && (dice(&note.words, &part.words, w) >= RESTATES_SIMILARITY
            || containment(&note.words, &part.words, w) >= RESTATES_CONTAINMENT)
        && !Stances::of(note, part, w).opposed()
        && !affirms_what_it_denies(note, part)
        && !denies_what_it_affirms(note, part)
        && swapped(note, part).is_none()
}

/// Whether a note that [`restates`] a part says nothing of its own: each
/// of its words but function words is one of the part's, and none is said
/// there with the other polarity. Only then is a restatement sure enough
/// to keep the note out of memory; a note that restates a part in words of
/// its own may as well be another fact of its subject, or the rule with
/// one word changed, so it is stored and the rule named as a possible
/// restatement, with the evidence, to read. Nor does a note that says
/// the part's words in another order ([`in_order`]: which goes with
/// which), gives the values both say in another order, or says `only` of fewer
/// values than the part gives (`on ubuntu and macos only` of `on ubuntu,
/// windows and macos`).
pub fn adds_nothing(note: &Profile, part: &Profile) -> bool {
    let own = |x: &String| !is_function_word(x) && !part.words.contains(x);
    let other_way = |(x, n): (&String, &bool)| part.negated.get(x).is_some_and(|m| m != n);
    !note.words.iter().any(own)
        && !note.negated.iter().any(other_way)
        && in_order(note, part)
        && !values_reordered(note, part)
        && !restricts(note, part)
}

/// Whether the note says `only` and the part does not, and the part gives
/// a value of a kind the note gives that the note leaves out: fewer
/// values, said as all there are.
fn restricts(note: &Profile, part: &Profile) -> bool {
    let only = |p: &Profile| {
        p.folded
            .split_whitespace()
            .any(|t| t.trim_matches(|c: char| !c.is_alphanumeric()) == "only")
    };
    let kinds = note.kinds();
    only(note)
        && !only(part)
        && (part.values.iter()).any(|(k, v)| kinds.contains(k) && !note.has(*k, v))
}

/// Whether the note denies a word the part affirms and says another in its
/// place, next to a word they share (`rebase merges; squash merges are not
/// used` of `merge with squash merge`; `Rebase and Merge, never squashed`
/// of `Squash and Merge`): a contrast with the rule, however much else
/// they share.
fn denies_what_it_affirms(note: &Profile, part: &Profile) -> bool {
    let denied =
        |w: &str| note.negated.get(w) == Some(&true) && part.negated.get(w) == Some(&false);
    let instead = |x: &str| note.negated.get(x) == Some(&false) && !part.words.contains(x);
    let (ours, theirs) = (neighbours(&note.folded), neighbours(&part.folded));
    theirs
        .iter()
        .any(|(w, next)| denied(w) && ours.iter().any(|(x, y)| y == next && x != w && instead(x)))
}

/// Each content word of `text` (stemmed, as [`Profile::words`]) with the
/// next one, function words skipped.
fn neighbours(text: &str) -> Vec<(String, String)> {
    (content_words(text).windows(2))
        .map(|p| (p[0].clone(), p[1].clone()))
        .collect()
}

/// The words of `text` in order, stemmed as [`Profile::words`], function
/// words left out.
fn content_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    terms::words(text, |w| {
        let c = canonical(w);
        if !is_function_word(c) {
            out.push(c.to_string());
        }
    });
    out
}

/// Whether a note that negates nothing says a word the part negates
/// (`lists are written with dashes` of `lists use asterisks, not dashes`;
/// `squash-merge the release` of `merged, never squash-merged`): the other
/// side of a contrast, however much else they share. A note worded around
/// a negation of its own (`do not hand-edit it`) is left to [`Stances`].
fn affirms_what_it_denies(note: &Profile, part: &Profile) -> bool {
    let plain = note.negated.values().all(|n| !n);
    plain
        && note
            .negated
            .keys()
            .any(|w| !is_function_word(w) && part.negated.get(w) == Some(&true))
}

/// What two texts say with the same polarity and with other ones (one
/// after a negation, the other without): the weight of the words of each,
/// the weight of those `a` negates, and whether a flag is said both ways
/// (then whether `a` negates it).
struct Stances {
    same: f32,
    other: f32,
    negated_here: f32,
    flag: Option<bool>,
}

impl Stances {
    fn of(a: &Profile, b: &Profile, w: &Weights<'_>) -> Stances {
        let mut s = Stances {
            same: 0.0,
            other: 0.0,
            negated_here: 0.0,
            flag: None,
        };
        for (word, negated) in &a.negated {
            match b.negated.get(word) {
                Some(n) if n != negated && word.starts_with('-') => s.flag = Some(*negated),
                Some(n) if n == negated => s.same += w.of(word),
                Some(_) => {
                    s.other += w.of(word);
                    if *negated {
                        s.negated_here += w.of(word);
                    }
                }
                None => {}
            }
        }
        s
    }

    /// Whether what they say the other way outweighs what they say the same
    /// way ([`DENIED_RATIO`]), however little they share.
    fn opposed(&self) -> bool {
        self.flag.is_some() || (self.other > 0.0 && self.other >= DENIED_RATIO * self.same)
    }
}

/// Whether `a` and `b` deny each other: a flag said both ways, or words said
/// with other polarities weighing at least [`DENIED_SHARE`] of the larger
/// text (one shared verb does not make two short notes deny each other)
/// and [`DENIED_RATIO`] times the words both say the same way; then whether
/// `a` is the one that negates (most of) them.
pub fn denies(a: &Profile, b: &Profile, w: &Weights<'_>) -> Option<bool> {
    let s = Stances::of(a, b, w);
    if s.flag.is_some() {
        return s.flag;
    }
    let weight = |p: &Profile| p.words.iter().map(|x| w.of(x)).sum::<f32>();
    let most = weight(a).max(weight(b));
    (most > 0.0 && s.other >= DENIED_SHARE * most && s.opposed())
        .then_some(s.negated_here * 2.0 >= s.other)
}

/// Two notes on one subject with different values of a kind: that kind, and
/// each side's values of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clash {
    pub kind: ValueKind,
    pub ours: Vec<String>,
    pub theirs: Vec<String>,
}

impl Clash {
    /// The clash of two notes' values of `kind`, each as the note gives them.
    pub(super) fn of_values(
        kind: ValueKind,
        ours: BTreeSet<&str>,
        theirs: BTreeSet<&str>,
    ) -> Clash {
        let owned = |v: BTreeSet<&str>| v.into_iter().map(str::to_string).collect();
        Clash {
            kind,
            ours: owned(ours),
            theirs: owned(theirs),
        }
    }
}

/// Whether `a` and `b` conflict (see the module comment): different
/// values first, then the other polarity ([`ValueKind::Polarity`]:
/// `negated` here and `affirmed` there, or the other way round).
pub fn conflict(a: &Profile, b: &Profile, w: &Weights<'_>) -> Option<Clash> {
    if a.folded == b.folded {
        return None;
    }
    if let Some(clash) = value_clash(a, b, w) {
        return Some(clash);
    }
    let Some(negated) = denies(a, b, w) else {
        return swapped(a, b);
    };
    let said = |negated: bool| if negated { "negated" } else { "affirmed" }.to_string();
    Some(Clash {
        kind: ValueKind::Polarity,
        ours: vec![said(negated)],
        theirs: vec![said(!negated)],
    })
}

/// Share of the smaller subject's weight (the words outside the values)
/// found in the other from which a value conflict is a flag ([`flagged`]):
/// all of it but glue words, the same sentence with another value
/// (`Node.js 20.11.0` for `Node.js 22.12.0`: 1.0). Below it the two may
/// be two facts of one subject (`tox-uv 1.25 or newer` and `Python 3.10
/// and newer`: 0.51; `security fixes for three years` and `bug fixes for
/// one year`: 0.89), and the conflict is a possible one.
pub const FLAG_SUBJECT: f32 = 0.95;

/// Share of the smaller text's weight found in the other from which a
/// denial is a flag ([`flagged`]): true denials 0.47 and up on the tuning
/// sets but two (`Tag repositories with the govuk topic` against `Do not
/// use GitHub topics`: 0.22); false ones on a shared `pull request` or
/// `GitHub` 0.22-0.38, and a few at 0.5 that deny another subject's verb
/// (`they are never backported`, said of new features).
pub const DENIAL_SUBJECT: f32 = 0.45;

/// Whether a conflict found by [`conflict`] is precise enough to flag
/// (a write's `conflicts`, `memory lint`'s `conflict`), or only a possible
/// conflict to read with its evidence (`possible_conflicts`,
/// `possible-conflict`): another command (a command is a whole
/// instruction told, [`instructs`]) of one subject
/// ([`FLAG_TOLD_SUBJECT`]); another value of another kind when
/// the two say the same sentence with it ([`FLAG_SUBJECT`]) and it is the
/// value of one thing (not of two: [`super::holders::held_apart`]); a
/// denial when they share a subject
/// ([`DENIAL_SUBJECT`]: one shared `pull request` or `GitHub` is no
/// subject; and [`FLAG_TOLD_SUBJECT`]) and give no number or version alike (`79 columns is the hard
/// limit` and `never wider than 79 columns` say one bound in two ways), and,
/// when the note affirms what the other denies, the note prescribes it
/// (an instruction, not a description of it happening: [`super::mood`]).
pub fn flagged(a: &Profile, b: &Profile, clash: &Clash, w: &Weights<'_>) -> bool {
    match clash.kind {
        // A command is a whole instruction: another one for one task.
        ValueKind::Command => return instructs(a, b, clash) && shares_subject(a, b, w),
        // A swapped word may be another subject as well as another value.
        ValueKind::Name => return false,
        ValueKind::Polarity => {}
        // Values of other things (`@rollup/plugin-replace 5.0.4` and
        // `TypeScript ~6.0.3`) are two facts, however alike the sentences.
        kind => {
            let apart = held_apart(&a.held(), &b.held(), kind);
            return !apart && overlap(&a.subject, &b.subject, w) >= FLAG_SUBJECT;
        }
    }
    let affirmed = clash.ours == ["affirmed"];
    if (affirmed && !prescribes_denied(a, b))
        || (!affirmed && (!prescribes_affirmed(a, b) || (a.hedged && !b.universal)))
    {
        return false;
    }
    !gives_alike(a, b)
        && overlap(&a.words, &b.words, w) >= DENIAL_SUBJECT
        && shares_subject(a, b, w)
}

/// Share of the smaller subject's weight (the words outside the values)
/// found in the other from which another command or a denial is a flag
/// rather than a possible conflict: a command or a `not` can be told of a
/// broad subject (`run`, `test`, `build`) in two facts (`A subset of unit
/// tests runs by target, e.g. ...` against `Run E2E tests through Bazel
/// ...`: 0.58; `tsconfig.build.json excludes src/**/*.test.ts` against
/// `Unit tests sit next to the code ...`: 0.52); one subject told another
/// way shares more (`Run the unit tests with `nox -s tests`` against `...
/// with `tox -e py``: 0.71). Set on the tuning sets: their command and
/// denial flags were 49 right and 23 wrong without it, 43 and 6 with it.
pub const FLAG_TOLD_SUBJECT: f32 = 0.6;

/// Weighted Jaccard similarity of two subjects below which a command or
/// a denial is no flag however much of the smaller subject the other has:
/// a short note's few words are all in a long rule that names its file
/// (`package.json sets "sideEffects": false.` against a rule on the test
/// runner's settings in package.json: 1.00 of the note's subject, 0.15
/// alike). True command and denial flags past [`FLAG_TOLD_SUBJECT`] on
/// the tuning sets are 0.29 and up; it took three false ones (0.07-0.24)
/// and no true one.
pub const FLAG_TOLD_SIMILARITY: f32 = 0.25;

/// Whether `a` and `b` say one subject ([`FLAG_TOLD_SUBJECT`],
/// [`FLAG_TOLD_SIMILARITY`]).
fn shares_subject(a: &Profile, b: &Profile, w: &Weights<'_>) -> bool {
    overlap(&a.subject, &b.subject, w) >= FLAG_TOLD_SUBJECT
        && similarity(&a.subject, &b.subject, w) >= FLAG_TOLD_SIMILARITY
}

/// Whether a clash of commands is another instruction for one task: the
/// note gives one of its commands as what to run ([`is_program`]: not an
/// option or a glob, which say how to run one), not as what a runner runs
/// (`The lint job runs `pnpm check``, `` `make lint` runs ruff ``:
/// [`super::holders::run_by`], a fact about the job, one of whose steps a
/// rule's command may be); or both give options only (another option for
/// one thing); or it gives another command for a runner the other names
/// too (`the typecheck hook runs X` and `the typecheck pre-commit hook runs
/// Y`: one's words all the other's).
fn instructs(a: &Profile, b: &Profile, clash: &Clash) -> bool {
    let told = |c: &String| is_program(c) && !a.run_by.contains_key(c);
    if clash.ours.iter().any(told) {
        return true;
    }
    let options = |cs: &[String]| cs.iter().all(|c| !is_program(c));
    if options(&clash.ours) && options(&clash.theirs) {
        return true;
    }
    let theirs = runners(b, &clash.theirs);
    runners(a, &clash.ours)
        .into_iter()
        .any(|x| theirs.iter().any(|y| x.is_subset(y) || y.is_subset(x)))
}

/// The runners' words of those of `commands` `p` says a runner runs
/// ([`Profile::run_by`]); a command defining itself names no runner.
fn runners<'p>(p: &'p Profile, commands: &[String]) -> Vec<&'p BTreeSet<String>> {
    let named = commands.iter().filter_map(|c| p.run_by.get(c));
    named.filter(|r| !r.is_empty()).collect()
}

/// Whether a command (a code span or quoted string, as compared) starts
/// with a program to run, not an option (`--config e2e`) nor a glob
/// (`tests/i18n/*`): those say how to run a command or what it takes; nor
/// a number or a dot (`"2"`, `"."`: a setting's value, a folder), nor
/// words one of which ends in a colon (`"ci: drop old go versions"`,
/// `"Private API: ..."`: a commit's subject, a message), which are quoted,
/// not run.
fn is_program(command: &str) -> bool {
    let first = command.split_whitespace().next().unwrap_or("");
    first.chars().any(char::is_alphabetic)
        && !first.starts_with('-')
        && !first.contains(['*', '?', '['])
        && !command.split_whitespace().any(|w| w.ends_with(':'))
}

/// Whether `a` and `b` give a value alike: a number or version (`79
/// columns is the hard limit` and `never wider than 79 columns` say one
/// bound), or a flag neither says the other way (`git commit -s adds a
/// sign-off and does not sign the commit` and `sign off with git commit
/// -s` agree on the command; what one denies is beside it).
fn gives_alike(a: &Profile, b: &Profile) -> bool {
    a.values.iter().any(|(kind, v)| match kind {
        ValueKind::Number | ValueKind::Version => b.has(*kind, v),
        ValueKind::Flag => {
            let (here, there) = (a.negated.get(v), b.negated.get(v));
            b.has(*kind, v) && !matches!((here, there), (Some(x), Some(y)) if x != y)
        }
        _ => false,
    })
}

/// Whether the note `a`, affirming what `b` negates, says it in a clause
/// that prescribes ([`super::mood`]): `Commit the generated files` against
/// `never commit generated files` is a flag; `A bot commits the generated
/// files` (a description of it happening) is not.
fn prescribes_denied(a: &Profile, b: &Profile) -> bool {
    a.negated.iter().any(|(word, negated)| {
        !negated
            && !is_function_word(word)
            && b.negated.get(word) == Some(&true)
            && a.prescribed.contains(word)
    })
}

/// Whether the note `a`, negating what `b` affirms, says it in the mood
/// `b` says it ([`super::mood`]): against an instruction (`Start every
/// file with the header`), a note that prescribes (`Don't add the header`,
/// `the header is not needed`) is a flag, one that describes an exception
/// (`The TUI files have no header`) is not; against a description, a
/// description (`Not every deprecated feature is removed ...` of `Every
/// deprecated feature is removed ...`).
fn prescribes_affirmed(a: &Profile, b: &Profile) -> bool {
    a.negated.iter().any(|(word, negated)| {
        *negated
            && !is_function_word(word)
            && b.negated.get(word) == Some(&false)
            && (a.prescribed.contains(word) || !b.prescribed.contains(word))
    })
}

/// One kind of value all different between `a` and `b`, of one subject.
pub(super) fn value_clash(a: &Profile, b: &Profile, w: &Weights<'_>) -> Option<Clash> {
    if a.values.is_empty() || b.values.is_empty() {
        return None;
    }
    if overlap(&a.subject, &b.subject, w) < CONFLICT_SUBJECT {
        return None;
    }
    for kind in a.kinds().intersection(&b.kinds()) {
        let (ours, theirs) = (a.of_kind(*kind), b.of_kind(*kind));
        if !ours.iter().any(|v| b.has(*kind, v)) && a.same_slot(b, *kind) {
            return Some(Clash::of_values(*kind, ours, theirs));
        }
    }
    None
}

/// Document frequencies over texts (the rules' parts).
pub fn document_frequencies<'a>(
    texts: impl IntoIterator<Item = &'a Profile>,
) -> HashMap<String, f32> {
    let mut df: HashMap<String, f32> = HashMap::new();
    for p in texts {
        for w in &p.words {
            *df.entry(w.clone()).or_default() += 1.0;
        }
    }
    df
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Common words weigh little, as in a real memory.
    fn realistic() -> Weights<'static> {
        Weights {
            n: 100.0,
            df: &|w| match w {
                "the" | "a" | "an" | "is" | "on" | "with" | "to" | "for" | "use" | "run" | "in"
                | "of" => 60.0,
                _ => 2.0,
            },
        }
    }

    fn v(text: &str) -> Vec<(ValueKind, String)> {
        values(text).0.into_iter().collect()
    }

    #[test]
    fn values_table() {
        assert_eq!(
            v("Run `npm  test` on port 5433 with node v20.11.1, ask @ops-team or ops@example.com; see https://x.io/a"),
            vec![
                (ValueKind::Command, "npm test".into()),
                (ValueKind::Version, "20.11.1".into()),
                (ValueKind::Number, "5433".into()),
                (ValueKind::Address, "https://x.io/a".into()),
                (ValueKind::Account, "@ops-team".into()),
                (ValueKind::Account, "ops@example.com".into()),
            ]
        );
        assert_eq!(
            v("step 1 of the plan"),
            vec![(ValueKind::Number, "1".into())]
        );
        assert_eq!(v("a plain sentence"), vec![]);
        assert_eq!(v("an `unclosed span"), vec![]);
        assert_eq!(
            v("`a` and `b`"),
            vec![
                (ValueKind::Command, "a".into()),
                (ValueKind::Command, "b".into())
            ]
        );
    }

    #[test]
    fn duplicates_table() {
        let w = realistic();
        for (a, b, dup) in [
            (
                "The staging DB is read-only.",
                "the staging db is READ-ONLY",
                true,
            ),
            (
                "Integration tests need Docker running locally.",
                "The integration tests need Docker running locally",
                true,
            ),
            (
                "Staging DB port is 5433.",
                "Staging DB port is 5434.",
                false,
            ),
            (
                "Integration tests need Docker running locally.",
                "Release builds strip debug symbols.",
                false,
            ),
            // Word order and inflections.
            (
                "Slow heavy tests only run with RUN_SLOW_TESTS=1; CI runs them.",
                "CI runs the slow heavy tests; locally they only run with RUN_SLOW_TESTS=1.",
                true,
            ),
            (
                "Concurrency primitives must go through the crate's loom shims, never std directly.",
                "Never use std concurrency primitives directly; go through the crate's loom shims.",
                true,
            ),
            // `one` may be a pronoun.
            (
                "--esm emits an ESM loader instead of CommonJS, only with --platform.",
                "Only with --platform, --esm emits an ESM loader instead of a CommonJS one.",
                true,
            ),
            // Short notes told apart by one word.
            ("Port of service alpha is 5.", "Port of service beta is 5.", false),
            ("a 5", "b 5", false),
            // One subject, two facts.
            (
                "Integration tests live in tests/ and use the rgtest! macro.",
                "Integration test outputs are compared with eqnice!, which prints both outputs.",
                false,
            ),
        ] {
            assert_eq!(
                is_duplicate(&Profile::of(a), &Profile::of(b), &w),
                dup,
                "{a} / {b}"
            );
        }
    }

    #[test]
    fn conflicts_table() {
        let w = realistic();
        for (a, b, kind) in [
            (
                "The staging database listens on port 5433.",
                "Staging database port: 5432",
                Some(ValueKind::Number),
            ),
            (
                "Run the unit tests with `npm test`.",
                "Run the unit tests with `pnpm vitest run`.",
                Some(ValueKind::Command),
            ),
            (
                "The project builds with Node 20.11.",
                "The project builds with Node 22.3.",
                Some(ValueKind::Version),
            ),
            (
                "Deploys go through @release-bot.",
                "Deploys go through @ops-bot.",
                Some(ValueKind::Account),
            ),
            (
                "The staging database listens on port 5433.",
                "The staging database listens on port 5433.",
                None,
            ),
            (
                "Run the unit tests with `npm test`.",
                "Lint the styles with `npm run stylelint`.",
                None,
            ),
            (
                "Staging port is 5433.",
                "Backups are kept for 30 days.",
                None,
            ),
        ] {
            let got = conflict(&Profile::of(a), &Profile::of(b), &w).map(|c| c.kind);
            assert_eq!(got, kind, "{a} / {b}");
        }
    }

    #[test]
    fn supersedes_table() {
        let w = realistic();
        for (old, new, yes) in [
            (
                "CI pins cross to version 0.2.4; do not bump it casually.",
                "CI pins cross to version 0.2.5 now; do not bump it casually.",
                true,
            ),
            (
                "Run the CLI in dev mode with `cargo biome-cli-dev check file.js`.",
                "Run the CLI in dev mode with `cargo run -p biome_cli -- check file.js`.",
                true,
            ),
            // Two facts of one subject, each with its command.
            (
                "Run one playground in serve mode with `pnpm run test-serve`.",
                "Run one playground in build mode with `pnpm run test-build`.",
                false,
            ),
            // A newer version, part by part as numbers (271 after 27).
            (
                "The crypto crate is at 0.27.0.",
                "The crypto crate is at 0.271.0.",
                true,
            ),
            // An older version is an older release's fact, no newer value.
            (
                "The crypto crate is at 0.271.0.",
                "The crypto crate is at 0.27.0.",
                false,
            ),
            (
                "Poetry 2.4.0 was released on a Monday.",
                "Poetry 2.3.0 was released on a Monday.",
                false,
            ),
            // Another subject.
            (
                "Staging port is 5433.",
                "Backups are kept for 30 days.",
                false,
            ),
        ] {
            let got = supersedes(&Profile::of(new), &Profile::of(old), &w).is_some();
            assert_eq!(got, yes, "{old} / {new}");
        }
    }

    #[test]
    fn a_date_in_words_is_one_value_and_another_month_supersedes() {
        let p = Profile::of("Django 5.2 LTS is supported until at least April 2028.");
        assert!(p.values.contains(&(ValueKind::Number, "2028-04".into())));
        assert!(!p.subject.contains("april"));
        let p = Profile::of("GA on Aug 4, 2026 (or 2026-08-11).");
        assert!(p.values.contains(&(ValueKind::Number, "2026-08-04".into())));
        assert!(p.values.contains(&(ValueKind::Number, "2026-08-11".into())));
        // `may` is a month only before a year.
        assert!(Profile::of("It may 2 fail.")
            .values
            .iter()
            .all(|(_, v)| v != "2026-05"));
        let w = realistic();
        let old = Profile::of("The bundled local crypto code is removed in October 2026.");
        let new = Profile::of("The bundled local crypto code is now removed in December 2026.");
        assert!(supersedes(&new, &old, &w).is_some());
    }

    #[test]
    fn a_pre_release_a_wildcard_a_name_glued_to_its_version_and_a_number_with_its_unit_are_values()
    {
        for (text, kind, value) in [
            (
                "VERSION on main now reads 3.15.0-rc.0.",
                ValueKind::Version,
                "3.15.0-rc.0",
            ),
            (
                "RAILS_VERSION reads 8.2.0.beta1 on main.",
                ValueKind::Version,
                "8.2.0.beta1",
            ),
            ("The CI job uses Node 24.x.", ValueKind::Version, "24.x"),
            (
                "The docs env builds with python3.15.",
                ValueKind::Version,
                "3.15",
            ),
            (
                "The latest release branch is release-0.18.",
                ValueKind::Version,
                "0.18",
            ),
            ("Lint runs with --timeout=5m.", ValueKind::Number, "5m"),
        ] {
            let p = Profile::of(text);
            assert!(
                p.values.contains(&(kind, value.into())),
                "{text}: {:?}",
                p.values
            );
        }
        let w = realistic();
        let old = Profile::of("The docs tox env builds with python3.14.");
        let new = Profile::of("The docs tox env now builds with python3.15.");
        assert!(!is_duplicate(&new, &old, &w));
        assert!(supersedes(&new, &old, &w).is_some());
    }

    #[test]
    fn notes_that_name_other_files_are_not_folded_and_one_file_said_twice_is() {
        let w = realistic();
        let dup = |a: &str, b: &str| is_duplicate(&Profile::of(a), &Profile::of(b), &w);
        assert!(!dup(
            "The release workflow is defined in .github/workflows/release.yml today.",
            "The release workflow is defined in .github/workflows/publish.yml today.",
        ));
        assert!(dup(
            "Every change is noted in packages/app/CHANGELOG.md by its author.",
            "Every change is noted by its author in CHANGELOG.md.",
        ));
    }

    #[test]
    fn a_lower_bound_said_in_other_words_is_one_word() {
        let words = |t: &str| Profile::of(t).subject;
        for t in [
            "Python 3.10 or newer",
            "3.10 or later",
            "the oldest is 3.10",
            "minimum 3.10",
        ] {
            assert!(words(t).contains("minimum"), "{t}");
        }
    }

    #[test]
    fn a_value_after_instead_of_is_the_old_one_and_naming_the_old_value_supersedes() {
        let p = Profile::of("The cluster now listens on port 3001 instead of 3000.");
        assert!(p.previous.contains(&(ValueKind::Number, "3000".into())));
        assert!(!p.values.contains(&(ValueKind::Number, "3000".into())));
        let w = realistic();
        for (old, new) in [
            (
                "Django requires asgiref 3.11.0 or newer.",
                "Django's minimum asgiref went from 3.11.0 to 3.12.0.",
            ),
            (
                "The lock workflow locks an issue after 180 days of inactivity.",
                "The lock workflow now locks an issue after 365 days of inactivity instead of 180.",
            ),
            (
                "The quick-start cluster listens on port 3000.",
                "The quick-start cluster now listens on port 3001 instead of 3000.",
            ),
        ] {
            let (o, n) = (Profile::of(old), Profile::of(new));
            assert!(supersedes(&n, &o, &w).is_some(), "{old} / {new}");
        }
    }

    #[test]
    fn a_value_conflicts_or_supersedes_only_in_its_slot_and_a_change_note_supersedes_its_old_value()
    {
        let w = realistic();
        for (old, new, conflict_kind, supersedes_too) in [
            // One slot, another value.
            (
                "Code is formatted by ruff format at 88 columns.",
                "Code is formatted by ruff format at 100 columns.",
                Some(ValueKind::Number),
                true,
            ),
            // Spelled numbers are numbers.
            (
                "Each plugin has at least three people who can release it.",
                "Each plugin has at least two people who can release it.",
                Some(ValueKind::Number),
                true,
            ),
            // `from X to Y` gives Y; a range's marks are dropped.
            (
                "mirrors-mypy runs at rev v2.3.1.",
                "mirrors-mypy was bumped from v2.3.1 to v2.4.0.",
                Some(ValueKind::Version),
                true,
            ),
            (
                "markdownlint-cli2 is at ^0.18.0 in devDependencies.",
                "markdownlint-cli2 moved to ^0.20.0.",
                Some(ValueKind::Version),
                true,
            ),
            (
                "The build needs setuptools>=77.",
                "The build now needs setuptools>=80.",
                Some(ValueKind::Version),
                true,
            ),
            // Values of other slots: no conflict.
            (
                "Python scripts under script/ are written for Python 3.9.",
                "typings/ holds hand-written TypeScript declarations used while compiling lib/.",
                None,
                false,
            ),
            (
                "The staging port is 5433 and backups are kept 30 days.",
                "The staging backups are kept 14 days.",
                Some(ValueKind::Number),
                true,
            ),
            (
                "The staging port is 5433.",
                "Staging backups are kept 14 days.",
                None,
                false,
            ),
            // Another fact of one subject, with its own path: a conflict at most, never superseding.
            (
                "release.yml publishes the Linux release binaries.",
                "macos-publish.yml publishes the macOS release binaries.",
                Some(ValueKind::Path),
                false,
            ),
        ] {
            let (o, n) = (Profile::of(old), Profile::of(new));
            assert_eq!(
                conflict(&n, &o, &w).map(|c| c.kind),
                conflict_kind,
                "{old} / {new}"
            );
            assert_eq!(
                supersedes(&n, &o, &w).is_some(),
                supersedes_too,
                "{old} / {new}"
            );
        }
        assert_eq!(
            v("rev ^0.20.0, ~1.2 and >=3.10"),
            vec![
                (ValueKind::Version, "0.20.0".into()),
                (ValueKind::Version, "1.2".into()),
                (ValueKind::Version, "3.10".into()),
            ]
        );
        assert_eq!(Profile::of("bumped from 1.2 to 1.3").previous.len(), 1);
        assert!(Profile::of("from 1.2 onwards").previous.is_empty());
    }

    #[test]
    fn function_words_weigh_little_and_negations_are_one_word() {
        // A memory of two notes: every word seen once.
        let w = Weights {
            n: 2.0,
            df: &|_| 1.0,
        };
        assert!((w.of("the") - FUNCTION_WORD_WEIGHT * w.of("staging")).abs() < 1e-6);
        assert!(Profile::of("Never edit a .snap file").words.contains("not"));
        assert!(Profile::of("don't edit a .snap file").words.contains("not"));
    }

    #[test]
    fn restates_table() {
        let w = realistic();
        let rule = "Never edit a migration that has been applied; write a new one.\n\n- Use pnpm, not npm.";
        let parts: Vec<Profile> = crate::memory::entry::parts(rule)
            .iter()
            .map(|p| Profile::of(p))
            .collect();
        assert_eq!(parts.len(), 2);
        for (note, yes) in [
            ("never edit an applied migration", true),
            ("Use pnpm", true),
            ("Migrations live in db/migrations and run on deploy.", false),
            ("Use pnpm 9.1", false),
        ] {
            let p = Profile::of(note);
            assert_eq!(parts.iter().any(|r| restates(&p, r, &w)), yes, "{note}");
        }
        // One point of a longer rule: the note is all in it.
        let long = Profile::of(
            "Releases are cut from main on Fridays. The changelog is written by the \
             maintainer on duty, tags are signed, and the crates are published in \
             dependency order by the release workflow.",
        );
        // Mostly the rule's words, with a fact of its own: no restatement.
        let rule = Profile::of(
            "Run the unit tests through cargo test, never directly with the test binary of the build.",
        );
        let note = Profile::of("cargo test runs all runtime unit tests.");
        let held = containment(&note.words, &rule.words, &w);
        assert!((0.7..RESTATES_CONTAINMENT).contains(&held), "{held}");
        assert!(dice(&note.words, &rule.words, &w) < RESTATES_SIMILARITY);
        assert!(!restates(&note, &rule, &w));
        let point = Profile::of("Tags are signed.");
        assert!(dice(&point.words, &long.words, &w) < RESTATES_SIMILARITY);
        assert!(restates(&point, &long, &w));
        assert!(!restates(&Profile::of("Tags are not signed."), &long, &w));
        // The other side of a contrast the rule draws is no restatement.
        let contrast = Profile::of("In the docs, unordered lists use asterisks, not dashes.");
        assert!(!restates(
            &Profile::of("Unordered lists in the docs are written with dashes."),
            &contrast,
            &w
        ));
        assert!(restates(
            &Profile::of("Unordered lists in the docs use asterisks."),
            &contrast,
            &w
        ));
    }

    #[test]
    fn a_rule_in_its_own_words_with_another_value_or_an_antonym_conflicts_and_is_not_restated() {
        let w = realistic();
        for (rule, other, same) in [
            (
                "The basic-auth test proxy listens on 127.0.0.1:8080.",
                "The basic-auth test proxy listens on 127.0.0.1:3128.",
                "The basic-auth test proxy listens on 127.0.0.1:8080.",
            ),
            (
                "Run the tests with vendor/bin/simple-phpunit.",
                "Run the tests with vendor/bin/phpunit.",
                "The tests run with vendor/bin/simple-phpunit.",
            ),
            (
                "Release tags are named parent-X.Y.Z.",
                "Release tags are named okhttp-X.Y.Z.",
                "Name release tags parent-X.Y.Z.",
            ),
            (
                "Run the database tests with --test-threads=1.",
                "Run the database tests with --test-threads=4.",
                "The database tests run with --test-threads=1.",
            ),
            (
                "Set RUST_LOG=debug when debugging the tests.",
                "Set RUST_LOG=trace when debugging the tests.",
                "When debugging the tests, set RUST_LOG=debug.",
            ),
            (
                "Enable the build cache in CI.",
                "Disable the build cache in CI.",
                "CI builds enable the build cache.",
            ),
            (
                "Formatting with make fmt is required before committing.",
                "Formatting with make fmt is optional before committing.",
                "Formatting with make fmt is required before committing anything.",
            ),
        ] {
            let (rule, other, same) = (Profile::of(rule), Profile::of(other), Profile::of(same));
            assert!(!restates(&other, &rule, &w), "{other:?}");
            assert!(conflict(&other, &rule, &w).is_some(), "{other:?}");
            assert!(restates(&same, &rule, &w), "{same:?}");
            assert_eq!(conflict(&same, &rule, &w), None, "{same:?}");
        }
    }

    #[test]
    fn paths_host_ports_and_settings_are_values_and_paths_compare_as_places() {
        assert_eq!(
            v("Edit cli/docs/*.md, CHANGELOG.md or ./gradlew (e.g. not bin/ci); db:5432"),
            vec![
                (ValueKind::Address, "db:5432".into()),
                (ValueKind::Path, "bin/ci".into()),
                (ValueKind::Path, "changelog.md".into()),
                (ValueKind::Path, "cli/docs".into()),
            ]
        );
        assert_eq!(
            v("RUST_LOG=debug with --jobs=4 and --features=pcre2"),
            vec![
                (ValueKind::Number, "4".into()),
                (ValueKind::Flag, "--features".into()),
                (ValueKind::Flag, "--jobs".into()),
                (ValueKind::Setting, "rust_log=debug".into()),
            ]
        );
        assert!(same_place("changelog.md", "packages/app/changelog.md"));
        assert!(same_place("cli/docs", "cli/docs/a.md"));
        assert!(!same_place("bin/ci", "bin/rails"));
        assert!(!same_place(
            "vendor/bin/phpunit",
            "vendor/bin/simple-phpunit"
        ));
        assert!(Profile::of("Edit src/lib.rs").subject.contains("lib"));
        assert!(is_duplicate(
            &Profile::of("Integration tests live in tests/ and use the rgtest macro."),
            &Profile::of("Integration tests live in tests and use the rgtest macro."),
            &realistic()
        ));
    }

    #[test]
    fn polarity_is_per_clause_after_the_negation_and_a_second_negation_undoes_it() {
        let p = polarities("Never edit docs/api.md by hand: change the doc comments.");
        assert_eq!(p.get("edit"), Some(&true));
        assert_eq!(p.get("api"), Some(&true));
        assert_eq!(p.get("chang"), Some(&false));
        let p = polarities("The ide crates must not depend on LSP types.");
        assert_eq!(p.get("ide"), None, "the subject before the negation");
        assert_eq!(p.get("depend"), Some(&true));
        let p = polarities("Never commit without running the tests, and don't push.");
        assert_eq!(p.get("commit"), Some(&true));
        assert_eq!(p.get("run"), Some(&false));
        assert_eq!(p.get("push"), Some(&true));
        let p = polarities("Apply it with kubectl; --server-side is not needed.");
        assert_eq!(
            p.get("--server-side"),
            Some(&true),
            "nothing but `needed` after `not`"
        );
        assert_eq!(p.get("server"), Some(&true));
        assert_eq!(p.get("kubectl"), Some(&false));
        for text in [
            "Squash merges are not used.",
            "Squash merges aren't allowed.",
        ] {
            assert_eq!(polarities(text).get("squash"), Some(&true), "{text}");
        }
        let p = polarities("Squash merges are not used by the release job.");
        assert_eq!(p.get("squash"), None, "content after the participle");
        let p = polarities("Pass --no-dts-cache to rebuild the types.");
        assert_eq!(
            p.get("rebuild"),
            Some(&false),
            "a flag's `no` is no negation"
        );
    }

    #[test]
    fn the_other_of_two_choices_is_denied_and_the_one_chosen_said_plainly() {
        for text in ["Use pnpm rather than npm.", "Use pnpm instead of npm."] {
            let p = polarities(text);
            assert_eq!(p.get("pnpm"), Some(&false), "{text}");
            assert_eq!(p.get("npm"), Some(&true), "{text}");
        }
        let p = polarities("Never lint with flake8 rather than ruff.");
        assert_eq!(p.get("flake8"), Some(&true), "`rather than` is no bound");
        assert_eq!(p.get("ruff"), Some(&false), "a second negation undoes it");
        let p = polarities("Lines are never wider than 79 columns.");
        assert_eq!(p.get("column"), Some(&false), "a bound still");
    }

    #[test]
    fn a_restatement_is_sure_only_when_the_note_says_nothing_of_its_own() {
        let w = realistic();
        let rule = Profile::of("In the docs, unordered lists use asterisks, not dashes.");
        let sure = Profile::of("In the docs unordered lists use asterisks, not dashes.");
        assert!(restates(&sure, &rule, &w) && adds_nothing(&sure, &rule));
        let moved = Profile::of("Unordered lists in the docs use asterisks, not dashes.");
        assert!(
            restates(&moved, &rule, &w),
            "the rule's words in another order"
        );
        assert!(!adds_nothing(&moved, &rule), "possible only");
        let own = Profile::of("Bullet lists in the docs take asterisks, not dashes.");
        assert!(restates(&own, &rule, &w), "a restatement in its own words");
        assert!(
            !adds_nothing(&own, &rule),
            "`bullet`, `take`: possible only"
        );
        let denied = Profile::of("In the docs, unordered lists use dashes, not asterisks.");
        assert!(
            !adds_nothing(&denied, &rule),
            "the rule's words said the other way"
        );
        let order = "Keep the lookup order: override, flags, env, config, defaults.";
        let scripts = "`npm test` runs `node --test && npm run lint`; `npm run all` runs `node --test && npm run tsc`.";
        let matrix = "CI tests Node 22.x, 24.x and 26.x.";
        for (note, part, sure, why) in [
            (
                "Tests never use the real libstd or libcore.",
                "Tests never use the real libcore or libstd.",
                false,
                "words moved: which goes with which is not read",
            ),
            (
                "Indent with 2 spaces; only YAML files are indented with tabs.",
                "Indent with tabs; only YAML files are indented with 2 spaces.",
                false,
                "the rule's words paired otherwise",
            ),
            (
                "Tests never use the real libcore.",
                "Tests never use the real libcore or libstd.",
                true,
                "the rule's words in its order, some left out",
            ),
            (
                "Keep the lookup order: override, env, flags, config, defaults.",
                order,
                false,
                "a list whose order is its meaning",
            ),
            (order, order, true, "the same list"),
            (
                "`npm test` runs `node --test && npm run tsc`; `npm run all` runs `node --test && npm run lint`.",
                scripts,
                false,
                "which command goes with which",
            ),
            (scripts, scripts, true, "the same commands"),
            (
                "CI tests Node 22.x and 24.x only.",
                matrix,
                false,
                "`only` of fewer values",
            ),
            (
                "CI tests Node 22.x, 24.x and 26.x only.",
                matrix,
                true,
                "`only` of all of them",
            ),
        ] {
            let (n, p) = (Profile::of(note), Profile::of(part));
            assert_eq!(adds_nothing(&n, &p), sure, "{why}: {note}");
        }
    }

    #[test]
    fn a_flag_one_says_is_not_needed_denies_a_rule_giving_it() {
        let w = realistic();
        let rule = Profile::of("Apply manifests/setup with kubectl apply --server-side.");
        let note = Profile::of(
            "Apply manifests/setup with a plain kubectl apply -f; --server-side is not needed.",
        );
        assert_eq!(
            conflict(&note, &rule, &w).map(|c| c.kind),
            Some(ValueKind::Polarity)
        );
        assert!(!restates(&note, &rule, &w));
        let same =
            Profile::of("Use server-side apply (kubectl apply --server-side) for manifests/setup.");
        assert_eq!(conflict(&same, &rule, &w), None);
        assert!(restates(&same, &rule, &w));
    }

    #[test]
    fn flags_are_values_and_commands_are_compared_normalised() {
        assert_eq!(
            v("Pass --features=pcre2 or -x, not -1."),
            vec![
                (ValueKind::Flag, "--features".into()),
                (ValueKind::Flag, "-x".into()),
            ],
            "`-1` is no flag"
        );
        assert_eq!(
            v("`cargo test --features=pcre2 '*.rs'`"),
            v("`cargo test  --features pcre2 \"*.rs\"`")
        );
        assert_eq!(
            v("at 100% coverage"),
            vec![(ValueKind::Number, "100".into())]
        );
    }

    #[test]
    fn a_note_denying_what_a_rule_says_conflicts_and_does_not_restate_it() {
        let w = realistic();
        let rule = Profile::of(
            "Never edit docs/api.md by hand: change the doc comments and run make docs.",
        );
        for (note, kind) in [
            (
                "Small typos can be fixed straight in docs/api.md; no need to run make docs.",
                Some(ValueKind::Polarity),
            ),
            (
                "docs/api.md is generated: do not hand-edit it; change the doc comments and run make docs.",
                None,
            ),
            ("CI does not run the benchmarks.", None),
            ("make docs is run by CI.", None),
            ("Never commit without running make test.", None),
        ] {
            let p = Profile::of(note);
            assert_eq!(conflict(&p, &rule, &w).map(|c| c.kind), kind, "{note}");
            assert!(kind.is_none() || !restates(&p, &rule, &w), "{note}");
        }
        let denied = conflict(&Profile::of("Edit docs/api.md by hand."), &rule, &w).unwrap();
        assert_eq!(
            (denied.ours, denied.theirs),
            (vec!["affirmed".to_string()], vec!["negated".to_string()])
        );
    }

    #[test]
    fn a_note_putting_another_word_in_the_place_of_one_it_denies_does_not_restate_the_rule() {
        let w = realistic();
        let rule = Profile::of("Pull requests are merged with Squash and Merge.");
        for note in [
            "Pull requests are merged with Rebase and Merge, never squashed.",
            "Merge pull requests with a rebase merge; squash merges are not used.",
        ] {
            assert!(!restates(&Profile::of(note), &rule, &w), "{note}");
        }
        // Worded around a negation of its own, with new words beside it,
        // yet nothing put in the place of what it denies: a restatement.
        let generated =
            Profile::of("manifests/ is generated by make generate; never edit its YAML by hand.");
        let note = Profile::of(
            "Do not hand-edit YAML under manifests/; change the jsonnet and rerun make generate.",
        );
        assert!(!denies_what_it_affirms(&note, &generated));
        assert!(restates(
            &Profile::of("Pull requests are squashed when they are merged."),
            &rule,
            &w
        ));
    }

    /// `conflict` then `flagged`: `None` no conflict, `Some(flag)`.
    fn flag_of(note: &str, rule: &str, w: &Weights<'_>) -> Option<bool> {
        let (a, b) = (Profile::of(note), Profile::of(rule));
        let clash = conflict(&a, &b, w)?;
        Some(flagged(&a, &b, &clash, w))
    }

    #[test]
    fn a_swapped_value_in_the_rules_own_sentence_is_a_flag_another_fact_of_its_subject_only_possible(
    ) {
        let w = realistic();
        let rule = "Issues labelled question are closed after 14 days without activity.";
        assert_eq!(
            flag_of(
                "Issues labelled question are closed after 30 days without activity.",
                rule,
                &w
            ),
            Some(true)
        );
        assert_eq!(
            flag_of(
                "Issues labelled proposal are closed after six months without activity.",
                rule,
                &w
            ),
            Some(false),
            "another label, another unit: a possible conflict"
        );
        assert_eq!(
            flag_of(
                "Format the generated code with `cargo fmt --all`.",
                "Format the generated code with `rustfmt --check`.",
                &w
            ),
            Some(true),
            "another command for one task"
        );
        assert_eq!(
            flag_of(
                "Format the code with `cargo fmt --all`.",
                "Format with `rustfmt --check`; cargo fmt does not work here.",
                &w
            ),
            Some(false),
            "half of the note's subject in the rule: a possible conflict to read"
        );
        assert_eq!(
            flag_of(
                "tsconfig.build.json excludes src/**/*.test.ts and src/**/*.test.tsx.",
                "Unit tests sit next to the code they test under src/, named *.test.ts.",
                &w
            ),
            Some(false),
            "a denial of another subject's words: possible, not a flag"
        );
        assert_eq!(
            flag_of(
                "package.json sets \"sideEffects\": false.",
                "AVA is configured in package.json with `workerThreads: false`, `concurrency: 1` \
                 and a 240s timeout; keep those settings, since the tests spawn real subprocesses.",
                &w
            ),
            Some(false),
            "a short note's few words all in a long rule: not one subject"
        );
    }

    #[test]
    fn a_note_saying_it_changed_supersedes_without_the_change_words_in_its_subject() {
        let w = realistic();
        for (old, new) in [
            (
                "NTLM support gets removed in September 2026.",
                "NTLM removal is now planned for January 2027 in NTLM support.",
            ),
            (
                "kamal is required at 2.1.0 or newer in the Gemfile.",
                "The Gemfile's kamal requirement was raised from 2.1.0 to 2.5.0.",
            ),
            (
                "The com.diffplug.spotless Gradle plugin is at 6.25.0.",
                "The spotless Gradle plugin was bumped to 7.0.1.",
            ),
        ] {
            assert!(
                supersedes(&Profile::of(new), &Profile::of(old), &w).is_some(),
                "{new}"
            );
        }
        assert_eq!(
            supersedes(
                &Profile::of("The release bot now opens pull requests at 4am."),
                &Profile::of("Renovate pins its lockfile maintenance to 12 weeks."),
                &w
            ),
            None,
            "another subject"
        );
    }

    #[test]
    fn versions_moved_up_in_the_same_sentence_supersede() {
        let w = realistic();
        let old = Profile::of("make validate checks Kubernetes 1.33, 1.34 and 1.35.");
        let new = Profile::of("make validate checks Kubernetes 1.34, 1.35 and 1.36.");
        assert!(supersedes(&new, &old, &w).is_some());
        assert_eq!(
            supersedes(&old, &new, &w),
            None,
            "moved down: an older fact"
        );
    }

    #[test]
    fn a_note_retiring_what_an_older_one_names_supersedes_it() {
        let w = realistic();
        let old = Profile::of("System tests run on Selenium with chromedriver.");
        let new = Profile::of(
            "System tests moved from Selenium to Playwright; chromedriver is no longer used.",
        );
        assert!(new.retired.contains("selenium"));
        assert_eq!(
            supersedes(&new, &old, &w).map(|c| c.kind),
            Some(ValueKind::Name)
        );
        let plain = Profile::of("System tests run on Playwright with its own browsers.");
        assert_eq!(
            supersedes(&plain, &old, &w),
            None,
            "no change said, nothing retired"
        );
        let old = Profile::of("Code is formatted with black and imports are sorted with isort.");
        let new = Profile::of(
            "Formatting and import order are now handled by ruff, replacing black and isort.",
        );
        assert!(supersedes(&new, &old, &w).is_some());
        let other = Profile::of("Release notes are written by hand in CHANGELOG.md.");
        assert_eq!(supersedes(&new, &other, &w), None, "nothing of it retired");
        let old =
            Profile::of("Flow logs in the root module are deprecated; use the flow-log module.");
        let again =
            Profile::of("The root module's flow logs are deprecated: use the flow-log module.");
        assert_eq!(supersedes(&again, &old, &w), None, "retired in both");
        let old = Profile::of("Backport pull requests are squashed, never merged.");
        let contrast = Profile::of("Backport pull requests are merged rather than squashed.");
        assert_eq!(
            supersedes(&contrast, &old, &w),
            None,
            "a contrast, no change"
        );
    }

    #[test]
    fn another_version_is_a_flag_only_when_it_is_the_same_things() {
        let w = realistic();
        let rule = Profile::of("TypeScript is pinned to 5.4.2.");
        let flag = |note: &str| {
            let p = Profile::of(note);
            conflict(&p, &rule, &w).map(|c| flagged(&p, &rule, &c, &w))
        };
        assert_eq!(flag("TypeScript is pinned to 5.6.0."), Some(true));
        assert_ne!(
            flag("@rollup/plugin-replace is pinned to 5.0.4."),
            Some(true)
        );
    }

    #[test]
    fn another_command_is_a_flag_when_told_to_run_not_when_said_of_what_a_job_runs() {
        let rule = Profile::of("Run the unit tests with `pnpm test:unit`.");
        let w = realistic();
        let flag = |note: &str| {
            let p = Profile::of(note);
            let clash = conflict(&p, &rule, &w)?;
            Some(flagged(&p, &rule, &clash, &w))
        };
        assert_eq!(flag("Run the unit tests with `vitest run`."), Some(true));
        assert_eq!(
            flag("The unit test job runs `vitest run --coverage`."),
            Some(false)
        );
        assert_eq!(
            flag("`pnpm test` runs the unit tests and the lint."),
            Some(false)
        );
        // An option or a glob says how to run a command, not another one.
        assert_eq!(
            flag("Run the unit tests with `--coverage` to see it."),
            Some(false)
        );
        assert_eq!(
            flag("Unit tests can be picked with `src/**/*.spec.ts`."),
            Some(false)
        );
        // A commit's subject, a message or a setting's value is quoted, not run.
        for quoted in [
            "The unit tests were split in \"test: split the unit tests\".",
            "The unit tests print \"Private API: internal\".",
            "The unit tests' config says version `2`.",
        ] {
            assert_eq!(flag(quoted), Some(false), "{quoted}");
        }
        // Both say what one runner runs: another command for it.
        let hook = Profile::of("The pre-commit hook runs `lint-staged`.");
        let note = Profile::of("The pre-commit hook runs `pretty-quick --staged`.");
        let clash = conflict(&note, &hook, &w).unwrap();
        assert!(flagged(&note, &hook, &clash, &w));
        let other = Profile::of("The commit-msg hook runs `commitlint --edit`.");
        assert!(conflict(&other, &hook, &w).is_none_or(|c| !flagged(&other, &hook, &c, &w)));
    }

    #[test]
    fn one_sentence_with_a_word_swapped_is_no_restatement_but_a_possible_conflict() {
        let w = realistic();
        let rule = "PR titles use a conventional commit prefix and the subject starts with an uppercase letter.";
        let note = "PR titles use a conventional commit prefix and the subject starts with a lowercase letter.";
        let (n, r) = (Profile::of(note), Profile::of(rule));
        assert!(!restates(&n, &r, &w));
        assert_eq!(flag_of(note, rule, &w), Some(false));
        assert_eq!(conflict(&n, &r, &w).map(|c| c.kind), Some(ValueKind::Name));
        assert_eq!(
            flag_of(
                "Run the test suite with pixi run pytest-all.",
                "Run the test suite with pixi run test.",
                &w
            ),
            Some(false)
        );
        for same in [
            "PR titles use a conventional commit prefix, and the subject starts with an uppercase letter.",
            "PR titles use a conventional commit prefix and their subject starts with an uppercase letter.",
        ] {
            assert!(swapped(&Profile::of(same), &r).is_none(), "{same}");
        }
    }

    #[test]
    fn a_note_of_history_is_no_flag() {
        let w = realistic();
        let rule = "pytest supports Python 3.10 and newer; requires-python is >=3.10.";
        assert_eq!(
            flag_of("pytest supports Python 3.9 and newer.", rule, &w),
            Some(true)
        );
        assert_ne!(
            flag_of(
                "The pytest 8.0 to 8.3 series supported Python 3.8 and newer.",
                rule,
                &w
            ),
            Some(true)
        );
    }

    #[test]
    fn a_denial_on_one_shared_word_is_no_flag_and_one_of_the_rules_subject_is() {
        let w = realistic();
        let rule = "Never report a security vulnerability in a public GitHub issue.";
        assert_ne!(
            flag_of(
                "GitHub Codespaces can start a development environment from the devcontainer.",
                rule,
                &w
            ),
            Some(true)
        );
        assert_eq!(
            flag_of(
                "Report a security vulnerability in a public GitHub issue.",
                rule,
                &w
            ),
            Some(true)
        );
    }

    #[test]
    fn a_negated_comparison_is_a_bound_and_a_negation_ends_at_because_or_a_parenthesis() {
        let w = realistic();
        let bound = polarities("With reclient, never run autoninja with a -j value above 200.");
        assert_eq!(bound.get("autoninja"), Some(&false));
        assert_eq!(
            flag_of(
                "With reclient set up, e build picks the autoninja -j value for you.",
                "With reclient, never run autoninja with a -j value above 200.",
                &w
            ),
            None,
            "no denial"
        );
        assert_ne!(
            flag_of(
                "79 columns is the hard limit for any line of C code.",
                "C source lines are never wider than 79 columns.",
                &w
            ),
            Some(true)
        );
        let p = polarities("// comments are not allowed because curl is written in C89.");
        assert_eq!(p.get("allow"), Some(&true));
        assert_eq!(p.get("c89"), Some(&false));
        let p = polarities("parent-X.Y.Z is the tag name format (not vX.Y.Z).");
        assert_eq!(p.get("parent"), Some(&false));
        assert_eq!(p.get("tag"), Some(&false));
    }

    #[test]
    fn a_note_describing_what_a_rule_forbids_is_no_flag_and_one_telling_to_do_it_is() {
        let w = realistic();
        let rule = "Never commit the generated API clients; CI regenerates them.";
        assert_eq!(
            flag_of(
                "Commit the generated API clients with your change.",
                rule,
                &w
            ),
            Some(true)
        );
        assert_eq!(
            flag_of(
                "The generated API clients are committed by the release bot.",
                rule,
                &w
            ),
            Some(false),
            "a description: a possible conflict, not a flag"
        );
        let rule = "Release branches are never rebased.";
        assert_eq!(
            flag_of("The release branches are rebased nightly.", rule, &w),
            Some(false),
            "what happens to them, described"
        );
        assert_eq!(
            flag_of("Always rebase the release branches.", rule, &w),
            Some(true)
        );
        assert_eq!(
            flag_of("Release branches must be rebased.", rule, &w),
            Some(true),
            "a modal prescribes whatever the clause's form"
        );
    }

    #[test]
    fn a_denial_of_an_instruction_is_a_flag_when_it_prescribes_not_when_it_describes_an_exception()
    {
        let w = realistic();
        let rule = "Start every new Ruby file in lib/ with the frozen_string_literal comment.";
        assert_eq!(
            flag_of(
                "Don't start new Ruby files in lib/ with the frozen_string_literal comment.",
                rule,
                &w
            ),
            Some(true),
            "an instruction against an instruction"
        );
        assert_eq!(
            flag_of(
                "The frozen_string_literal comment is not needed in new Ruby files in lib/.",
                rule,
                &w
            ),
            Some(true),
            "`not needed` says what is to be done"
        );
        assert_eq!(
            flag_of(
                "The TUI Ruby files in lib/ have no frozen_string_literal comment.",
                rule,
                &w
            ),
            Some(false),
            "a description of an exception: possible, read it"
        );
    }

    #[test]
    fn a_flag_both_give_alike_or_a_hedged_negation_is_no_denial_flag() {
        let w = realistic();
        let rule = "Sign off every commit with git commit -s for the DCO.";
        assert_eq!(
            flag_of(
                "The DCO sign-off is no signature: git commit -s does not sign the commit with GPG.",
                rule,
                &w
            ),
            Some(false),
            "the same flag said alike: they agree on the command"
        );
        assert_eq!(
            flag_of("Never sign off a commit with git commit -s.", rule, &w),
            Some(true),
            "the flag denied"
        );
        let rule = "A deprecated feature stays through a minor release before it is removed.";
        let note = "Not every deprecated feature is removed in the next major release.";
        assert_eq!(
            flag_of(note, rule, &w),
            Some(false),
            "not every: some are not, which the rule does not deny"
        );
        assert_eq!(
            flag_of(
                note,
                "Every deprecated feature is removed in the next major release.",
                &w
            ),
            Some(true),
            "not every against every"
        );
    }

    #[test]
    fn a_placeholder_in_a_command_is_no_part_of_it_so_the_template_and_its_words_do_not_clash() {
        let w = realistic();
        assert_eq!(
            v("Publish with `npm publish --tag <dist-tag>`."),
            vec![(ValueKind::Command, "npm publish --tag".to_string())]
        );
        assert_eq!(
            flag_of(
                "Each setting reads as \"enable\" plus its name; never a negative name.",
                "Settings read as \"enable <setting>\" and are never named in the negative.",
                &w
            ),
            None,
            "the template and its literal word are one command"
        );
        assert_eq!(
            flag_of(
                "Publish with `npm publish --tag next`.",
                "Publish with `yarn npm publish --tag <dist-tag>`.",
                &w
            ),
            Some(true),
            "another command is still a clash"
        );
    }
}
