//! Whether a newer note supersedes an older one of its scope: a newer
//! value of the same fact (docs/memory.md, "Superseded notes"), for
//! hygiene.rs's writes and `memory similar`.

use super::moved::{moved_file, renamed_name};
use super::{
    containment, overlap, similarity, value_clash, Clash, Profile, Weights, CONFLICT_SUBJECT,
};
use crate::memory::holders::{held_apart, holds_old, leading, two_records, two_releases};
use crate::memory::note_values::{all_older, glued_number, version_order, ValueKind};
use crate::memory::slots::canonical;
use crate::memory::terms;
use std::collections::BTreeSet;

/// Weighted Jaccard similarity of two conflicting notes' subjects from
/// which the newer supersedes the older (the same sentence with another
/// value: 0.91 and up; two facts on one subject, e.g. serve and build mode's
/// commands: 0.56).
pub const SUPERSEDE_SUBJECT: f32 = 0.8;

/// For a version or a number (a newer release, a new limit): the share of
/// the smaller subject's weight found in the other from which the newer
/// supersedes the older, however much the larger says besides (`... now
/// needs Visual Studio 2022 17.0.0; 2019 no longer works`: 1.0; another
/// fact of one subject with its own path or flag: 0.81).
pub const SUPERSEDE_OVERLAP: f32 = 0.85;

/// [`SUPERSEDE_OVERLAP`] for a note that says it changed (`now`, `moved
/// to`, `bumped`; [`CHANGE_WORDS`]): `codespell moved up to v2.5.0` of
/// `codespell runs at rev v2.4.1`, 0.68.
pub const SUPERSEDE_CHANGED_OVERLAP: f32 = 0.6;

/// English words that say a value changed (as [`terms::words`] stems
/// them), not a project's words.
pub(crate) const CHANGE_WORDS: &[&str] = &[
    "now",
    "moved",
    "bumped",
    "raised",
    "lowered",
    "upgraded",
    "updated",
    "changed",
    "switched",
    "went",
    "became",
    "increased",
    "decreased",
    "reduced",
    "replaced",
    "replacing",
    "instead",
];

/// English phrases that say a value is the one of today, unlike before
/// (`is at ^0.0.60 these days`).
const CHANGE_PHRASES: &[&str] = &["these days", "nowadays"];

/// Whether a note says that something changed ([`CHANGE_WORDS`], a value
/// said as the old one: `went from 3 days to 7 days`, or one taken to:
/// `autoupdated to v0.16.2`).
pub(crate) fn says_change(p: &Profile) -> bool {
    let phrase = CHANGE_PHRASES.iter().any(|c| p.folded.contains(c));
    phrase || !p.previous.is_empty() || p.retires || p.taken || says_any(p, CHANGE_WORDS)
}

/// Whether a note says any of some English words (as [`terms::words`]
/// stems them).
fn says_any(p: &Profile, words: &[&str]) -> bool {
    words.iter().any(|c| {
        let mut hit = false;
        terms::words(c, |w| hit |= p.words.contains(w));
        hit
    })
}

/// A subject without the words that say a change ([`CHANGE_WORDS`]): what
/// a newer note is about, not that it is newer (`NTLM removal is now
/// planned for ...` is about `NTLM removal`).
fn unchanged_subject(p: &Profile) -> BTreeSet<String> {
    // The change words as a subject holds them, stemmed once a process.
    static SAID: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    let said = SAID.get_or_init(|| {
        let mut said = BTreeSet::new();
        for c in CHANGE_WORDS {
            terms::words(c, |w| {
                said.insert(canonical(w).to_string());
            });
        }
        said
    });
    p.subject.difference(said).cloned().collect()
}

/// Whether the newer note `new` supersedes `old`: they conflict (one kind
/// of value, all different) and say it of the same subject in nearly the
/// same words ([`SUPERSEDE_SUBJECT`]): a new value of the same fact, not
/// another fact with its own value. The words that say the change (`now`,
/// `bumped`) are no part of the subject; a note that says it changed needs
/// no slot shared for a version or a number ([`changed_clash`]); one that
/// retires what the older one says (`replacing black`) supersedes it
/// ([`retires`]).
pub fn supersedes(new: &Profile, old: &Profile, w: &Weights<'_>) -> Option<Clash> {
    let subject = unchanged_subject(new);
    let named = names_old(new, old, &subject, w)
        .or_else(|| renamed_name(new, old))
        .or_else(|| newest_release(new, old, &subject, w));
    if let Some(clash) = named {
        return Some(clash);
    }
    let share = overlap(&subject, &old.subject, w);
    let changed = says_change(new) && share >= SUPERSEDE_CHANGED_OVERLAP;
    let held = held_clash(new, old, &subject, w);
    let clash = value_clash(new, old, w)
        .or_else(|| changed_clash(new, old, changed))
        .or_else(|| shifted(new, old, &subject, w))
        .or_else(|| held.clone());
    let Some(clash) = clash else {
        return retires(new, old, &subject, w);
    };
    if clash.kind == ValueKind::Version && all_older(&clash.ours, &clash.theirs) {
        return None; // an older release's fact, not a newer value
    }
    if another_fact(new, old, clash.kind) {
        return retires(new, old, &subject, w);
    }
    let counted = matches!(clash.kind, ValueKind::Version | ValueKind::Number);
    let same = similarity(&subject, &old.subject, w) >= SUPERSEDE_SUBJECT
        || (counted && share >= SUPERSEDE_OVERLAP)
        || (counted && changed)
        || held.is_some_and(|h| h.kind == clash.kind);
    if same {
        Some(clash)
    } else {
        retires(new, old, &subject, w)
    }
}

/// Whether two notes with other values of `kind` tell of two things rather
/// than one thing's newer value: the values are held by other names
/// ([`held_apart`]: `publint 0.3.15`, `eslint ^9.39.3`), or they differ in
/// two kinds of value ([`two_records`]), one of a kind both lead with
/// ([`leading`]: `Flask 3.1.1 was released on ...`, two releases, each
/// with its date; not `The newest CI job now runs Elixir 1.20.2 on OTP
/// 29`, one job's newer pair), or both lead with other versions
/// ([`two_releases`]).
fn another_fact(new: &Profile, old: &Profile, kind: ValueKind) -> bool {
    let (ours, theirs) = (leading(&new.folded), leading(&old.folded));
    let kinds = |v: &BTreeSet<(ValueKind, String)>| -> BTreeSet<ValueKind> {
        v.iter().map(|(k, _)| *k).collect()
    };
    let led = !kinds(&ours).is_disjoint(&kinds(&theirs));
    held_apart(&new.held(), &old.held(), kind)
        || two_releases(&ours, &theirs)
        || (led && two_records(&new.values, &old.values, |k, v| old.has(k, v)))
}

/// Share of the smaller subject's weight found in the other from which a
/// note that says it changed supersedes one whose value of its kind is held
/// by a name it says ([`held_clash`]): set by hand, below
/// [`SUPERSEDE_CHANGED_OVERLAP`] since the held name says what the value
/// is of.
pub const SUPERSEDE_HELD_OVERLAP: f32 = 0.3;

/// For a note that says it changed: a version all different from the
/// older note's and not the one it leads with ([`leading`]), whose holder
/// it names ([`holds_old`]:
/// `The .readthedocs.yaml build moved to Python 3.14` of `... with Python
/// 3.13 on ubuntu-24.04`), of a shared subject
/// ([`SUPERSEDE_HELD_OVERLAP`]); or, whatever else the two say, a newer
/// version of a thing both name by its full name ([`named_bump`]); or, of
/// a shared subject, a newer number glued to a name ([`glued_bump`]) or a
/// file said moved ([`moved_file`]).
fn held_clash(
    new: &Profile,
    old: &Profile,
    subject: &BTreeSet<String>,
    w: &Weights<'_>,
) -> Option<Clash> {
    let kind = ValueKind::Version;
    // A version the note leads with is the release it tells of, not a
    // newer value (`Sidekiq 8.1.6 replaced its uses of Rack::Utils`).
    let led = leading(&new.folded).iter().any(|(k, _)| *k == kind);
    if !says_change(new) || led {
        return None;
    }
    let shared = overlap(subject, &old.subject, w) >= SUPERSEDE_HELD_OVERLAP;
    let named = shared && holds_old(&new.held(), &old.held(), kind);
    named
        .then(|| other_values(new, old, kind).or_else(|| per_holder(new, old, kind)))
        .flatten()
        .or_else(|| named_bump(new, old))
        .or_else(|| shared.then(|| glued_bump(new, old)).flatten())
        .or_else(|| shared.then(|| moved_file(new, old)).flatten())
}

/// A newer number of a name both notes glue one to ([`glued_number`]:
/// `macos-15` of `macos-14`, `clang-20` of `clang-18`): the newer note's
/// highest of that name is after the older's highest (`moved to macos-14
/// after the macos-13 image was retired` of `runs on macos-13`).
fn glued_bump(new: &Profile, old: &Profile) -> Option<Clash> {
    let glued = |p: &Profile| -> Vec<(String, String)> {
        (terms::tokens(&p.folded).filter_map(glued_number))
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    };
    let (ours, theirs) = (glued(new), glued(old));
    let highest = |all: &[(String, String)], name: &str| {
        (all.iter().filter(|(n, _)| n == name))
            .max_by(|a, b| version_order(&a.1, &b.1))
            .cloned()
    };
    let (newer, older) = ours.iter().find_map(|(name, _)| {
        let (a, b) = (highest(&ours, name)?, highest(&theirs, name)?);
        version_order(&a.1, &b.1).is_gt().then_some((a, b))
    })?;
    let spell = |(n, v): (String, String)| vec![format!("{n}-{v}")];
    Some(Clash {
        kind: ValueKind::Version,
        ours: spell(newer),
        theirs: spell(older),
    })
}

/// English words that say a version is the newest of its thing.
const NEWEST_WORDS: &[&str] = &["latest", "newest"];

/// Both notes tell the newest release of one thing (`The latest stable
/// Poetry release is 2.4.1`, `Poetry 2.4.2 is the newest stable
/// release`), one version each, the newer's after the older's, of a
/// shared subject ([`SUPERSEDE_HELD_OVERLAP`]).
fn newest_release(
    new: &Profile,
    old: &Profile,
    subject: &BTreeSet<String>,
    w: &Weights<'_>,
) -> Option<Clash> {
    let shared = overlap(subject, &old.subject, w) >= SUPERSEDE_HELD_OVERLAP;
    let said = says_any(new, NEWEST_WORDS) && says_any(old, NEWEST_WORDS);
    (shared && said)
        .then(|| one_newer_version(new, old))
        .flatten()
}

/// One version in each note, the newer's after the older's, and a name
/// of a scope or an owner (`@hapi/boom`, `actions/checkout`: an account or
/// a path with `/` and no extension) in both, or in one with its last part
/// said in the other (`hashicorpdev/backport-assistant 0.4.7`, then
/// `backport-assistant bumped to 0.5.8`): that thing's newer version
/// (`@swc/core was bumped to ^1.16.0` of `@swc/core is a root
/// devDependency at ^1.15.47`), though the words around it differ.
fn named_bump(new: &Profile, old: &Profile) -> Option<Clash> {
    let full = |(k, v): &(ValueKind, String)| {
        matches!(k, ValueKind::Account | ValueKind::Path)
            && v.contains('/')
            && !terms::base(v).contains('.')
    };
    // Spelled as written: `bin/_mocha` is no `mocha`.
    let said = |p: &Profile, (_, v): &(ValueKind, String)| {
        let last = terms::base(v);
        p.values.contains(&(ValueKind::Account, v.clone()))
            || p.values.contains(&(ValueKind::Path, v.clone()))
            || terms::tokens(&p.folded).any(|t| terms::as_written(t) == last)
    };
    let named = (new.values.iter()).any(|x| full(x) && said(old, x))
        || (old.values.iter()).any(|x| full(x) && said(new, x));
    named.then(|| one_newer_version(new, old)).flatten()
}

/// One version in each note, the newer's after the older's: their clash.
fn one_newer_version(new: &Profile, old: &Profile) -> Option<Clash> {
    let kind = ValueKind::Version;
    let (ours, theirs) = (new.of_kind(kind), old.of_kind(kind));
    let one_each = ours.len() == 1 && theirs.len() == 1;
    let newer = one_each && version_order(ours.first()?, theirs.first()?).is_gt();
    newer.then(|| Clash::of_values(kind, ours, theirs))
}

/// The values of one kind both notes give, none of `new`'s among `old`'s
/// (versions first, then numbers, paths, commands, flags, settings,
/// addresses, accounts): what differs between two notes, as evidence to
/// read when no conflict or superseding is claimed (`memory similar`).
pub fn differing_values(new: &Profile, old: &Profile) -> Option<Clash> {
    const KINDS: [ValueKind; 8] = [
        ValueKind::Version,
        ValueKind::Number,
        ValueKind::Path,
        ValueKind::Command,
        ValueKind::Flag,
        ValueKind::Setting,
        ValueKind::Address,
        ValueKind::Account,
    ];
    KINDS
        .into_iter()
        .find_map(|kind| other_values(new, old, kind))
}

/// The clash of `new`'s values of `kind` with `old`'s, when both have some
/// and none of `new`'s is `old`'s.
fn other_values(new: &Profile, old: &Profile, kind: ValueKind) -> Option<Clash> {
    let (ours, theirs) = (new.of_kind(kind), old.of_kind(kind));
    let differ = !ours.is_empty() && !theirs.is_empty();
    (differ && !ours.iter().any(|v| old.has(kind, v))).then(|| Clash::of_values(kind, ours, theirs))
}

/// For a note that says it changed (`changed`): a version or a number all
/// different from the older note's, wherever it sits (`The spotless plugin
/// was bumped to 7.0.1` of `The com.diffplug.spotless Gradle plugin is at
/// 6.25.0`).
fn changed_clash(new: &Profile, old: &Profile, changed: bool) -> Option<Clash> {
    if !changed {
        return None;
    }
    let kinds = [ValueKind::Version, ValueKind::Number];
    (kinds.into_iter())
        .find_map(|kind| other_values(new, old, kind))
        .or_else(|| {
            kinds
                .into_iter()
                .find_map(|kind| replaced_in_slot(new, old, kind))
        })
}

/// The values of `kind` only `new` gives that fill the slot of one only
/// `old` gives (a word next to them shared), though the two give some
/// value alike (`PARALLEL_COUNT was raised to 20 for CI runs; local runs
/// still use 100` of `... is 10 when CI is detected and 100 otherwise`).
fn replaced_in_slot(new: &Profile, old: &Profile, kind: ValueKind) -> Option<Clash> {
    let slot = |p: &Profile, v: &str| p.slots.get(&(kind, v.to_string())).cloned();
    let fresh: BTreeSet<&str> = (new.of_kind(kind).into_iter())
        .filter(|v| !old.has(kind, v))
        .collect();
    let dropped: BTreeSet<&str> = (old.of_kind(kind).into_iter())
        .filter(|v| !new.has(kind, v))
        .collect();
    let fills = |v: &&str, u: &&str| match (slot(new, v), slot(old, u)) {
        (Some(a), Some(b)) => !a.is_disjoint(&b),
        _ => false,
    };
    let ours: BTreeSet<&str> = (fresh.iter())
        .filter(|v| dropped.iter().any(|u| fills(v, u)))
        .copied()
        .collect();
    (!ours.is_empty()).then(|| Clash::of_values(kind, ours, dropped))
}

/// The clash of versions held by one name in both notes, each name's
/// newer one another than its older one (`actions/checkout@v8 and
/// actions/setup-python@v7` of `actions/checkout@v7 and
/// actions/setup-python@v6`, where `7` is in both but of two names).
fn per_holder(new: &Profile, old: &Profile, kind: ValueKind) -> Option<Clash> {
    let (ours_held, theirs_held) = (held_of(new, kind), held_of(old, kind));
    let (mut ours, mut theirs) = (BTreeSet::new(), BTreeSet::new());
    for (v, names) in ours_held {
        let olds = theirs_held
            .iter()
            .filter(|(_, on)| *on == names)
            .map(|(u, _)| *u);
        let olds: Vec<&str> = olds.collect();
        if olds.contains(&v) {
            return None; // one name's value kept: no newer value of it
        }
        if !olds.is_empty() {
            ours.insert(v);
            theirs.extend(olds);
        }
    }
    (!ours.is_empty()).then(|| Clash::of_values(kind, ours, theirs))
}

/// `p`'s values of `kind` with the names that hold them, where it names any.
fn held_of(p: &Profile, kind: ValueKind) -> Vec<(&str, &BTreeSet<String>)> {
    (p.holders.iter())
        .filter(|((k, _), names)| *k == kind && !names.is_empty())
        .map(|((_, v), names)| (v.as_str(), names))
        .collect()
}

/// Versions that moved up, some kept (`checks Kubernetes 1.34, 1.35 and
/// 1.36` of `... 1.33, 1.34 and 1.35`): the newer's oldest and newest both
/// after the older's, said in nearly the same words ([`SUPERSEDE_SUBJECT`]).
fn shifted(
    new: &Profile,
    old: &Profile,
    subject: &BTreeSet<String>,
    w: &Weights<'_>,
) -> Option<Clash> {
    let kind = ValueKind::Version;
    let (ours, theirs) = (new.of_kind(kind), old.of_kind(kind));
    let ((a, b), (c, d)) = (ends(&ours)?, ends(&theirs)?);
    let up = version_order(a, c).is_gt() && version_order(b, d).is_gt();
    (up && similarity(subject, &old.subject, w) >= SUPERSEDE_SUBJECT)
        .then(|| Clash::of_values(kind, ours, theirs))
}

/// The oldest and the newest of some versions.
fn ends<'a>(v: &BTreeSet<&'a str>) -> Option<(&'a str, &'a str)> {
    let first = v.iter().copied().min_by(|a, b| version_order(a, b))?;
    let last = v.iter().copied().max_by(|a, b| version_order(a, b))?;
    Some((first, last))
}

/// Share of the words a newer note retires ([`Profile::retired`]) that
/// the older one must say for the newer to supersede it ([`retires`]).
pub const RETIRED_FOUND: f32 = 0.5;

/// Whether the newer note retires what `old` says: it says it changed,
/// most of the words it says as the old ones ([`RETIRED_FOUND`]) are
/// `old`'s (and not retired there too), and they share a subject
/// ([`CONFLICT_SUBJECT`]; `subject` is `new`'s without its change words):
/// `System tests moved from Selenium to Playwright` of `System tests run on
/// Selenium`.
fn retires(
    new: &Profile,
    old: &Profile,
    subject: &BTreeSet<String>,
    w: &Weights<'_>,
) -> Option<Clash> {
    // What the older one retires too is no newer news (`X is deprecated`
    // said twice).
    let said: BTreeSet<String> = old.words.difference(&old.retired).cloned().collect();
    let found: Vec<String> = new.retired.intersection(&said).cloned().collect();
    let shared = overlap(subject, &old.subject, w) >= CONFLICT_SUBJECT;
    let enough = !found.is_empty() && containment(&new.retired, &said, w) >= RETIRED_FOUND;
    (says_change(new) && enough && shared).then(|| Clash {
        kind: ValueKind::Name,
        ours: Vec::new(),
        theirs: found,
    })
}

/// Whether the newer note says the old one's value as its previous one
/// (`raised from 2.1.0 to 2.5.0`, `3001 instead of 3000`) and gives
/// another in its slot or of their shared subject ([`CONFLICT_SUBJECT`]):
/// a new value of that fact, however it is worded (`subject` is `new`'s
/// without its change words).
fn names_old(
    new: &Profile,
    old: &Profile,
    subject: &BTreeSet<String>,
    w: &Weights<'_>,
) -> Option<Clash> {
    let (kind, _) = new.previous.iter().find(|(k, v)| old.has_spelled(*k, v))?;
    let ours = new.of_kind(*kind);
    let fresh = !ours.is_empty() && !ours.iter().any(|v| old.has(*kind, v));
    let placed = new.same_slot(old, *kind) || overlap(subject, &old.subject, w) >= CONFLICT_SUBJECT;
    (fresh && placed).then(|| Clash::of_values(*kind, ours, old.of_kind(*kind)))
}
#[cfg(test)]
mod tests {
    use super::*;

    fn weights() -> Weights<'static> {
        Weights {
            n: 100.0,
            df: &|_| 1.0,
        }
    }

    #[test]
    fn each_names_newer_version_supersedes_though_one_number_is_said_in_both() {
        let old =
            Profile::of("Every workflow uses actions/checkout@v7 and actions/setup-python@v6.");
        let new = Profile::of(
            "The workflows have moved on to actions/checkout@v8 and actions/setup-python@v7.",
        );
        assert!(
            supersedes(&new, &old, &weights()).is_some(),
            "a newer pin of each action"
        );
        let clash = per_holder(&new, &old, ValueKind::Version).expect("by name");
        assert_eq!(clash.ours, ["7", "8"]);
        let kept = Profile::of(
            "The workflows have moved on to actions/checkout@v7 and actions/setup-python@v7.",
        );
        assert!(
            per_holder(&kept, &old, ValueKind::Version).is_none(),
            "checkout kept at v7: no newer value of it"
        );
    }

    #[test]
    fn a_newer_version_of_a_thing_named_in_full_supersedes_whatever_else_the_two_say() {
        let w = weights();
        let old = Profile::of("@swc/core is a root devDependency at ^1.15.47.");
        for (new, newer) in [
            ("@swc/core was bumped to ^1.16.0.", true),
            ("@swc/core was bumped back to ^1.14.0.", false),
            ("swc was bumped to ^1.16.0.", false),
            (
                "@swc/core and typescript were bumped to ^1.16.0 and ^6.0.3.",
                false,
            ),
        ] {
            let n = Profile::of(new);
            assert_eq!(supersedes(&n, &old, &w).is_some(), newer, "{new}");
        }
        let image = Profile::of("Releases are cut by the acme/release-bot 0.4.7 image.");
        let bumped = Profile::of("release-bot bumped to 0.5.8.");
        assert!(
            named_bump(&bumped, &image).is_some(),
            "named in full in one, by its last part in the other"
        );
        let script = Profile::of("bin/_release ships 0.4.7.");
        let plain = Profile::of("release was bumped to 0.5.8.");
        assert!(
            named_bump(&plain, &script).is_none(),
            "`_release` spelled otherwise"
        );
        let other = Profile::of("release-tools bumped to 0.5.8.");
        assert!(named_bump(&other, &image).is_none(), "another thing");
        let file = Profile::of("docs/index.html is at 1.2.0.");
        let moved = Profile::of("docs/index.html was bumped to 1.3.0 by the docs build.");
        assert!(
            named_bump(&moved, &file).is_none(),
            "a file is no package's name"
        );
    }

    #[test]
    fn a_changed_value_in_the_old_ones_slot_supersedes_though_another_value_is_kept() {
        let old = Profile::of("PARALLEL_COUNT is 10 when CI is detected and 100 otherwise.");
        let new = Profile::of("PARALLEL_COUNT was raised to 20 for CI; local runs still use 100.");
        let clash = replaced_in_slot(&new, &old, ValueKind::Number).expect("20 in 10's slot");
        assert_eq!(
            (clash.ours, clash.theirs),
            (vec!["20".to_string()], vec!["10".to_string()])
        );
        let same = Profile::of("PARALLEL_COUNT is 10 when CI is detected, 100 locally.");
        assert!(
            replaced_in_slot(&same, &old, ValueKind::Number).is_none(),
            "no value of its own"
        );
    }

    #[test]
    fn a_note_naming_the_old_file_or_script_it_moved_from_supersedes() {
        let w = weights();
        for (old, new) in [
            (
                "ProblemError lives in rfc9457.go at the repository root.",
                "The problem-details handler moved from rfc9457.go into problem.go.",
            ),
            (
                "Benchmarks are run locally with `make benchmark`.",
                "`make benchmark` was renamed `make bench`; run that now.",
            ),
            (
                "`npm run check:type` chains the JS and the TS checks.",
                "The script was renamed from `check:type` to `typecheck`.",
            ),
        ] {
            let (o, n) = (Profile::of(old), Profile::of(new));
            assert!(supersedes(&n, &o, &w).is_some(), "{old} / {new}");
        }
    }

    #[test]
    fn a_newer_number_glued_to_the_same_name_supersedes() {
        let w = weights();
        for (old, new, newer) in [
            (
                "The lint job builds with CC set to clang-18.",
                "The lint job now builds with clang-20 as CC.",
                true,
            ),
            (
                "The macOS legs of the matrix run on macos-14.",
                "The macOS runners were moved up to macos-15.",
                true,
            ),
            (
                "The arm jobs run on macos-13.",
                "The arm jobs moved to macos-14 after the macos-13 image was retired.",
                true,
            ),
            (
                "The snap is built on base core22.",
                "The snap builds on base core24 now.",
                true,
            ),
            (
                "The lint job builds with CC set to clang-20.",
                "The lint job now builds with clang-18 as CC.",
                false,
            ),
            (
                "The macOS legs of the matrix run on macos-14.",
                "The Windows legs now run on windows-2025.",
                false,
            ),
            (
                "The macOS legs of the matrix run on macos-14.",
                "The macOS legs of the matrix also test on macos-15.",
                false,
            ),
        ] {
            let (o, n) = (Profile::of(old), Profile::of(new));
            assert_eq!(supersedes(&n, &o, &w).is_some(), newer, "{old} / {new}");
        }
    }

    #[test]
    fn the_newest_release_said_anew_supersedes_the_older_newest() {
        let w = weights();
        let old = Profile::of("The latest stable Foo release is 2.4.1.");
        let new = Profile::of("Foo 2.4.2 is the newest stable release.");
        assert!(supersedes(&new, &old, &w).is_some());
        let back = Profile::of("Foo 2.3.9 is the newest stable release.");
        assert!(
            newest_release(&back, &old, &unchanged_subject(&back), &w).is_none(),
            "an older one"
        );
        let plain = Profile::of("Foo 2.4.2 fixed the stable release script.");
        assert!(
            newest_release(&plain, &old, &unchanged_subject(&plain), &w).is_none(),
            "not said newest"
        );
    }

    #[test]
    fn these_days_says_a_change() {
        assert!(says_change(&Profile::of(
            "The wrapper is at ^0.0.60 these days."
        )));
        assert!(!says_change(&Profile::of("The wrapper waits three days.")));
    }
}
