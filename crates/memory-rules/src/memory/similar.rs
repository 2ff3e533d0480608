//! Ranked candidates for a note: the entries and rule parts nearest to it,
//! each with its evidence (the words they share, the value that differs,
//! the rule's line) and what hygiene makes of it (`wave-rules memory
//! similar`, and the evidence `memory lint` gives).
//!
//! A fixed similarity threshold tells a rewording from a neighbour on one
//! set and fails on the next, so the ranking is the answer: a person or an
//! agent reads the top few with their evidence and decides; the yes/no
//! flags of [`super::hygiene`] are kept where they are precise, and stated
//! on the candidate that raised them ([`Verdict`]).
//!
//! The score is the weighted cosine of the two word sets (Σ weight(a ∩ b) /
//! √(Σ weight(a) · Σ weight(b)), IDF over the memory and the rules
//! together): what is rare and shared counts, long rules are not favoured
//! over short notes, and entries and rule parts rank on one scale.

use super::hygiene::{self, Clash, Profile, Weights};
#[cfg(test)]
use super::note_values::ValueKind;
use super::search::{MemoryHit, MemoryIndex, Query};
use super::store::rule_parts::{df_fn, weights, RuleParts};
use super::store::write::{Other, COMPARED_ENTRIES};
use super::store::{MemoryScope, MemoryStore};
use crate::rules::rule_set::RuleSet;

/// What hygiene makes of a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// The same note (an entry of the same scope): a write folds into it.
    Duplicate,
    /// The note says what this rule part says and nothing of its own
    /// ([`hygiene::adds_nothing`]): a write is not stored.
    Restates,
    /// The note says what this rule part says in words of its own (perhaps
    /// another fact of its subject): a write is stored and names the rule
    /// in `possible_restatement`; read the evidence.
    PossibleRestatement,
    /// A newer value of this entry's fact: a write marks it superseded.
    Supersedes,
    /// The same subject with another value, or denied, precisely enough
    /// to flag ([`hygiene::flagged`]): a write lists it in `conflicts`.
    Conflict,
    /// A conflict found but not flagged (perhaps another fact of the same
    /// subject): a write lists it in `possible_conflicts`; read the evidence.
    PossibleConflict,
    /// Near, and nothing claimed: read the evidence.
    Related,
}

impl Verdict {
    /// `duplicate`, `restates`, `possible-restatement`, `supersedes`, `conflict`,
    /// `possible-conflict`, `related`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Duplicate => "duplicate",
            Verdict::Restates => "restates",
            Verdict::PossibleRestatement => "possible-restatement",
            Verdict::Supersedes => "supersedes",
            Verdict::Conflict => "conflict",
            Verdict::PossibleConflict => "possible-conflict",
            Verdict::Related => "related",
        }
    }
}

/// One candidate and its evidence.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub with: Other,
    /// The entry's text, or the rule's part (its line or paragraph).
    pub text: String,
    /// The rule's file (none for an entry).
    pub file: Option<String>,
    /// 0 to 1, the weighted cosine of the word sets (see the module comment).
    pub score: f32,
    /// The shared subject: the heaviest words both say (values aside).
    pub shared: Vec<String>,
    /// The value that differs: the one superseded or clashing (or the
    /// polarity), else the values of one kind both give, none alike
    /// ([`hygiene::differing_values`]), claimed or not as `verdict` says.
    pub clash: Option<Clash>,
    pub verdict: Verdict,
}

impl Candidate {
    /// As JSON (`memory similar --json`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "score": (self.score * 1000.0).round() / 1000.0,
            "verdict": self.verdict.as_str(),
            "shared": self.shared,
            "text": self.text,
        });
        match &self.with {
            Other::Entry { scope, id, topic } => {
                v["entry"] = id.as_str().into();
                v["scope"] = scope.as_str().into();
                v["topic"] = topic.as_str().into();
            }
            Other::Rule { id } => {
                v["rule"] = id.as_str().into();
                v["file"] = self.file.clone().into();
            }
        }
        if let Some(c) = &self.clash {
            v["differs"] = serde_json::json!({
                "kind": c.kind.as_str(), "ours": c.ours, "theirs": c.theirs,
            });
        }
        v
    }
}

/// Σ weight(a ∩ b) / √(Σ weight(a) · Σ weight(b)); 0 when either is empty.
pub fn cosine(a: &Profile, b: &Profile, w: &Weights<'_>) -> f32 {
    let inter: f32 = a.words.intersection(&b.words).map(|x| w.of(x)).sum();
    let wa: f32 = a.words.iter().map(|x| w.of(x)).sum();
    let wb: f32 = b.words.iter().map(|x| w.of(x)).sum();
    if wa == 0.0 || wb == 0.0 {
        0.0
    } else {
        inter / (wa * wb).sqrt()
    }
}

/// A note and what it is compared with: its scope (for duplicates and
/// superseding, which stay within one) and the entry it is, if any (left
/// out of its own candidates).
pub struct Subject<'a> {
    pub profile: &'a Profile,
    pub scope: MemoryScope,
    pub entry: Option<&'a str>,
}

/// `Conflict` for a flagged clash, `PossibleConflict` for another, else
/// `Related`.
fn conflict_verdict(a: &Profile, b: &Profile, clash: Option<&Clash>, w: &Weights<'_>) -> Verdict {
    match clash {
        Some(c) if hygiene::flagged(a, b, c, w) => Verdict::Conflict,
        Some(_) => Verdict::PossibleConflict,
        None => Verdict::Related,
    }
}

/// An entry as a candidate for `note`.
fn of_entry(note: &Subject<'_>, h: &MemoryHit, w: &Weights<'_>) -> Candidate {
    let other = Profile::of(&h.text);
    let same_scope = h.scope == note.scope;
    let clash = hygiene::conflict(note.profile, &other, w);
    let superseded = (same_scope)
        .then(|| hygiene::supersedes(note.profile, &other, w))
        .flatten();
    let verdict = if same_scope && hygiene::is_duplicate(note.profile, &other, w) {
        Verdict::Duplicate
    } else if superseded.is_some() {
        Verdict::Supersedes
    } else {
        conflict_verdict(note.profile, &other, clash.as_ref(), w)
    };
    // The evidence: the value superseded, else the clash, else what differs.
    let clash = (superseded.or(clash)).or_else(|| hygiene::differing_values(note.profile, &other));
    Candidate {
        with: Other::Entry {
            scope: h.scope,
            id: h.id.clone(),
            topic: h.topic.clone(),
        },
        text: h.text.clone(),
        file: None,
        score: cosine(note.profile, &other, w),
        shared: note.profile.shared_subject(&other, w),
        clash,
        verdict,
    }
}

/// A rule's part as a candidate for `note`.
fn of_rule(
    note: &Profile,
    rule: &str,
    part: &str,
    p: &Profile,
    file: Option<&String>,
    w: &Weights<'_>,
) -> Candidate {
    let clash = hygiene::conflict(note, p, w);
    let verdict = if hygiene::restates(note, p, w) {
        if hygiene::adds_nothing(note, p) {
            Verdict::Restates
        } else {
            Verdict::PossibleRestatement
        }
    } else {
        conflict_verdict(note, p, clash.as_ref(), w)
    };
    let clash = clash.or_else(|| hygiene::differing_values(note, p));
    Candidate {
        with: Other::Rule {
            id: rule.to_string(),
        },
        text: part.to_string(),
        file: file.cloned(),
        score: cosine(note, p, w),
        shared: note.shared_subject(p, w),
        clash,
        verdict,
    }
}

/// The candidates for a note, best first, at most `limit`: the entries a
/// search for its words finds ([`COMPARED_ENTRIES`]) and every rule part,
/// one (the best part) per rule; nothing that shares no word.
pub(crate) fn rank(
    note: &Subject<'_>,
    near: &[MemoryHit],
    parts: &RuleParts,
    w: &Weights<'_>,
    limit: usize,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = near
        .iter()
        .filter(|h| note.entry != Some(h.id.as_str()))
        .map(|h| of_entry(note, h, w))
        .collect();
    let mut best: Vec<Candidate> = Vec::new();
    for (rule, part, p) in &parts.parts {
        let c = of_rule(note.profile, rule, part, p, parts.files.get(rule), w);
        // A rule's part that raises a flag stands for it, else its nearest.
        let key = |c: &Candidate| (c.verdict != Verdict::Related, c.score);
        match best.iter_mut().find(|b| b.with == c.with) {
            Some(b) if key(&c).partial_cmp(&key(b)) == Some(std::cmp::Ordering::Greater) => *b = c,
            Some(_) => {}
            None => best.push(c),
        }
    }
    out.extend(best);
    out.retain(|c| c.score > 0.0);
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(limit);
    out
}

/// What `wave-rules memory similar` gives: the note's text (an entry's, when
/// `what` is an entry's id or a prefix only one id has) and its candidates.
pub fn similar(
    store: &MemoryStore,
    rules: Option<&RuleSet>,
    what: &str,
    limit: usize,
) -> (String, Vec<Candidate>) {
    let index = MemoryIndex::open(store);
    let parts = RuleParts::of(rules);
    let df = df_fn(&index, &parts);
    let w = weights(&index, &parts, &df);
    let (text, scope, entry) = match index.find(what) {
        Ok(e) if !what.contains(char::is_whitespace) => {
            (e.text().to_string(), e.scope(), Some(e.id().to_string()))
        }
        _ => (what.to_string(), MemoryScope::Project, None),
    };
    let profile = Profile::of(&text);
    let near = index.search(
        &Query {
            text: &text,
            files: &[],
            limit: COMPARED_ENTRIES,
        },
        &|_| false,
    );
    let note = Subject {
        profile: &profile,
        scope,
        entry: entry.as_deref(),
    };
    let ranked = rank(&note, &near, &parts, &w, limit);
    (text, ranked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn hit(id: &str, text: &str) -> MemoryHit {
        MemoryHit {
            scope: MemoryScope::Project,
            id: id.into(),
            topic: "t".into(),
            file: "t.md".into(),
            title: String::new(),
            text: text.into(),
            score: 0.0,
            bm25: 0.0,
            affinity: 0.0,
            tie: None,
            matched: Vec::new(),
            matched_idf: 0.0,
            updated: 0,
            pinned: false,
            line: 1,
            superseded_by: None,
        }
    }

    fn rules(list: &[(&str, &str)]) -> RuleParts {
        let parts: Vec<(String, String, Profile)> = list
            .iter()
            .flat_map(|(id, text)| {
                crate::memory::entry::parts(text)
                    .into_iter()
                    .map(|p| (id.to_string(), p.clone(), Profile::of(&p)))
            })
            .collect();
        let df = hygiene::document_frequencies(parts.iter().map(|(_, _, p)| p));
        let files = list
            .iter()
            .map(|(id, _)| (id.to_string(), format!(".wave/rules/{id}")))
            .collect();
        RuleParts { parts, df, files }
    }

    /// Weights over the texts given, as a memory of that many notes.
    fn ranked(note: &str, hits: &[MemoryHit], parts: &RuleParts) -> Vec<Candidate> {
        let mut df: HashMap<String, f32> = parts.df.clone();
        for h in hits {
            for w in Profile::of(&h.text).words {
                *df.entry(w).or_default() += 1.0;
            }
        }
        let dff = |x: &str| df.get(x).copied().unwrap_or(0.0);
        let w = Weights {
            n: (hits.len() + parts.parts.len()) as f32,
            df: &dff,
        };
        let profile = Profile::of(note);
        let subject = Subject {
            profile: &profile,
            scope: MemoryScope::Project,
            entry: Some("self"),
        };
        rank(&subject, hits, parts, &w, 3)
    }

    fn what(c: &Candidate) -> String {
        match &c.with {
            Other::Entry { id, .. } => id.clone(),
            Other::Rule { id } => id.clone(),
        }
    }

    #[test]
    fn the_nearest_rule_or_entry_ranks_first_with_its_verdict_and_evidence() {
        let parts = rules(&[
            (
                "node.md",
                "Building Electron needs Node.js 22.12.0 or newer.",
            ),
            (
                "lists.md",
                "In the docs, unordered lists use asterisks, not dashes.",
            ),
            (
                "npx.md",
                "Never run tools with npx; run node_modules/.bin/<tool> directly.",
            ),
        ]);
        let hits = [
            hit("self", "Building Electron needs Node.js 20.11.0 or newer."),
            hit("chromium", "DEPS pins Chromium 153.0.8001.0."),
            hit(
                "nvm",
                "The .nvmrc file lets nvm users switch Node.js lines.",
            ),
            hit(
                "yarn",
                "Yarn's release file is committed at .yarn/releases/.",
            ),
        ];
        for (note, first, verdict, kind) in [
            (
                "Building Electron needs Node.js 20.11.0 or newer.",
                "node.md",
                Verdict::Conflict,
                Some(ValueKind::Version),
            ),
            (
                "npx is off limits; use node_modules/.bin instead.",
                "npx.md",
                Verdict::Related,
                None,
            ),
            (
                "DEPS now pins Chromium 154.0.8046.0.",
                "chromium",
                Verdict::Supersedes,
                Some(ValueKind::Version),
            ),
            (
                "DEPS pins Chromium 153.0.8001.0 .",
                "chromium",
                Verdict::Duplicate,
                None,
            ),
            (
                "In the docs unordered lists use asterisks, not dashes.",
                "lists.md",
                Verdict::Restates,
                None,
            ),
            (
                "Unordered lists in the docs use asterisks, not dashes.",
                "lists.md",
                Verdict::PossibleRestatement,
                None,
            ),
            (
                "Bullet lists in the docs take asterisks, not dashes.",
                "lists.md",
                Verdict::PossibleRestatement,
                None,
            ),
        ] {
            let got = ranked(note, &hits, &parts);
            assert_eq!(what(&got[0]), first, "{note}: {got:?}");
            assert_eq!(got[0].verdict, verdict, "{note}: {got:?}");
            assert_eq!(got[0].clash.as_ref().map(|c| c.kind), kind, "{note}");
            assert!(
                !got[0].shared.is_empty(),
                "{note}: the shared subject is named"
            );
            assert!(
                got.windows(2).all(|p| p[0].score >= p[1].score),
                "best first"
            );
            assert!(
                got.iter().all(|c| what(c) != "self"),
                "the note itself is left out"
            );
        }
        let rule = &ranked(
            "Building Electron needs Node.js 20.11.0 or newer.",
            &hits,
            &parts,
        )[0];
        assert_eq!(rule.file.as_deref(), Some(".wave/rules/node.md"));
        assert_eq!(
            rule.text,
            "Building Electron needs Node.js 22.12.0 or newer."
        );
        assert_eq!(
            rule.to_json()["differs"]["theirs"],
            serde_json::json!(["22.12.0"])
        );
        assert!(
            ranked("zyxw qvut", &hits, &parts).is_empty(),
            "nothing shares a word"
        );
    }

    #[test]
    fn a_candidate_shows_the_values_that_differ_though_nothing_is_claimed() {
        let parts = rules(&[]);
        let hits = [
            hit(
                "lint",
                "The lint job runs golangci-lint v1.64.8 on Go 1.23.",
            ),
            hit("docs", "The docs site deploys from the gh-pages branch."),
        ];
        // Another subject with other versions: no conflict or superseding
        // is claimed, yet a reader sees the versions side by side.
        let got = ranked(
            "Hugo 0.140.0 builds the docs site, as the lint job checks.",
            &hits,
            &parts,
        );
        let lint = got.iter().find(|c| what(c) == "lint").expect("lint ranked");
        assert_eq!(lint.verdict, Verdict::Related, "{got:?}");
        let differs = &lint.to_json()["differs"];
        assert_eq!(differs["kind"], "version");
        assert_eq!(differs["ours"], serde_json::json!(["0.140.0"]));
        assert_eq!(differs["theirs"], serde_json::json!(["1.23", "1.64.8"]));
        // The same values in both: nothing differs.
        let same = ranked(
            "golangci-lint v1.64.8 runs the lint job on Go 1.23.",
            &hits,
            &parts,
        );
        assert_eq!(same[0].clash, None, "{same:?}");
    }
}
