//! Whose value a value is, for superseding (hygiene.rs): the name it is
//! said of (`publint 0.3.15`, `npm@11.17.0`, `wrangler is pinned at
//! exactly 4.107.0`), and when two notes with other values are two records
//! rather than one fact given a newer value.

use super::note_values::{command, token_value, ValueKind};
use super::slots::canonical;
use super::terms::{self, is_function_word};
use std::collections::{BTreeMap, BTreeSet};

/// Each value's holder: the words of the name it is glued to
/// (`npm@11.17.0`, `setuptools>=80`), else of the nearest token before it
/// that names a thing: not a function word, not an adverb (`exactly`) nor a
/// participle (`pinned`, `released`) nor one of `changes` (`went`), which
/// say how it holds the value, not what holds it. A value with no such
/// token before it has no holder.
pub(crate) fn holders(
    text: &str,
    changes: &[&str],
) -> BTreeMap<(ValueKind, String), BTreeSet<String>> {
    let tokens: Vec<&str> = terms::tokens(text).collect();
    let mut out: BTreeMap<(ValueKind, String), BTreeSet<String>> = BTreeMap::new();
    for (i, t) in tokens.iter().enumerate() {
        let Some(value) = token_value(t) else {
            continue;
        };
        // `npm@11.17.0`, `python3.14`, `setuptools>=80`: the name glued on.
        let lower = t.trim_end_matches(['.', ':', '!', '?']).to_lowercase();
        let glued = lower
            .strip_suffix(value.1.as_str())
            .map(name_words)
            .filter(|ws| !ws.is_empty());
        let before = || {
            tokens[..i]
                .iter()
                .rev()
                .filter(|t| match token_value(t) {
                    Some((kind, _)) => !matches!(kind, ValueKind::Version | ValueKind::Number),
                    None => !says_how(t) && !changes.contains(&t.to_lowercase().as_str()),
                })
                .map(|t| name_words(t))
                .find(|ws| !ws.is_empty())
        };
        if let Some(words) = glued.or_else(before) {
            out.entry(value).or_default().extend(words);
        }
    }
    out
}

/// Whether a word says how rather than what: an adverb (`-ly`) or a
/// participle (`-ed`), by their English endings.
fn says_how(token: &str) -> bool {
    let t = token
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    t.len() > 3 && (t.ends_with("ly") || t.ends_with("ed"))
}

/// The words of a token that can name a thing: not function words nor
/// negations nor numbers or single letters (`v` of `v2.1.0`), stemmed as
/// subjects are.
fn name_words(token: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    terms::words(token, |w| {
        let w = canonical(w);
        let named = w.len() >= 2 && w.chars().any(|c| c.is_alphabetic());
        if named && !is_function_word(w) && w != "not" {
            out.insert(w.to_string());
        }
    });
    out
}

/// A note's holders and words, as [`held_apart`] and [`holds_old`] read
/// them.
pub(crate) struct Held<'a> {
    pub holders: &'a BTreeMap<(ValueKind, String), BTreeSet<String>>,
    pub words: &'a BTreeSet<String>,
}

impl Held<'_> {
    /// The holders of its values of `kind`.
    fn of(&self, kind: ValueKind) -> BTreeSet<String> {
        self.holders
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .flat_map(|(_, ws)| ws.iter().cloned())
            .collect()
    }

    /// Whether it says any of `names`, as a word or a holder (`python` of
    /// `python3.14`, which is no word of its own).
    fn says(&self, names: &BTreeSet<String>) -> bool {
        let all: BTreeSet<String> = self.holders.values().flatten().cloned().collect();
        !names.is_disjoint(self.words) || !names.is_disjoint(&all)
    }
}

/// Whether the values of `kind` of two notes are held by other things: each
/// side's values have holders, none of which the other note says at all
/// (`publint is pinned at 0.3.15` and `eslint is at ^9.39.3`: two
/// packages' versions, not one's newer).
pub(crate) fn held_apart(ours: &Held<'_>, theirs: &Held<'_>, kind: ValueKind) -> bool {
    let (a, b) = (ours.of(kind), theirs.of(kind));
    !a.is_empty() && !b.is_empty() && !theirs.says(&a) && !ours.says(&b)
}

/// Whether the newer note names what holds the older one's values of
/// `kind`: a holder of `old`'s is said in `new` (`Python 3.13` and `moved
/// to Python 3.14`; `click 8.1.3` and `The click floor went up to 8.2.0`).
pub(crate) fn holds_old(new: &Held<'_>, old: &Held<'_>, kind: ValueKind) -> bool {
    new.says(&old.of(kind))
}

/// Whether a text says a value was taken somewhere: a participle (`-ed`)
/// or one of `changes` (English words of a change, as a text has them),
/// then `to` (or `up to`, `down to`), then a value at most one word on
/// (`autoupdated to v0.16.2`, `moved to Python 3.14`, `went up to 8.2.0`).
pub(crate) fn taken_to(text: &str, changes: &[&str]) -> bool {
    let tokens: Vec<String> = terms::tokens(text).map(str::to_lowercase).collect();
    (0..tokens.len()).any(|i| {
        let verb = |t: &String| {
            let t = t.trim_end_matches(|c: char| !c.is_alphanumeric());
            (t.len() > 3 && t.ends_with("ed")) || changes.contains(&t)
        };
        let to = [i + 1, i + 2]
            .into_iter()
            .find(|j| tokens.get(*j).is_some_and(|t| t == "to"))
            .filter(|j| *j == i + 1 || ["up", "down"].contains(&tokens[i + 1].as_str()));
        let valued = |j: usize| {
            (j + 1..j + 3).any(|k| tokens.get(k).is_some_and(|t| token_value(t).is_some()))
        };
        verb(&tokens[i]) && to.is_some_and(valued)
    })
}

/// Verbs (third person, present) by which a text says what a thing runs
/// (`The lint job runs X`, `make docs wraps X`): the thing is a runner and
/// the code after the verb is what it runs, not what to run.
const RUN_VERBS: &[&str] = &[
    "runs", "calls", "invokes", "executes", "wraps", "triggers", "lists",
];

/// The commands a text says a runner runs, each with the runner's words:
/// the code spans of a sentence that starts with one (`` `make lint` runs
/// lint-python ``: the first span is what it is about, a definition; no
/// words, the command is its own runner), and those after one of
/// [`RUN_VERBS`] to the sentence's end (`The lint job runs `pnpm lint` and
/// `pnpm check``: the job's words). Such a command is
/// a fact about its runner, not an instruction for a task (hygiene.rs,
/// `flagged`). A colon does not end a sentence here: `Run the tests with:
/// `pytest`` instructs. Commands as [`command`] gives them.
pub(crate) fn run_by(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    // The sentence's plain words so far, and its runner once known.
    let mut before: Vec<&str> = Vec::new();
    let mut runner: Option<BTreeSet<String>> = None;
    for (i, seg) in text.split('`').enumerate() {
        if i % 2 == 0 {
            for (k, piece) in sentences(seg).into_iter().enumerate() {
                if k > 0 {
                    (before, runner) = (Vec::new(), None);
                }
                before.extend(piece.split_whitespace());
            }
            continue;
        }
        if runner.is_none() && before.is_empty() {
            runner = Some(BTreeSet::new());
        } else if runner.is_none() && before.last().is_some_and(|t| runs(t, &before)) {
            let words = before[..before.len() - 1]
                .iter()
                .flat_map(|t| name_words(t));
            runner = Some(words.collect());
        }
        let code = command(seg);
        if let (Some(r), false) = (&runner, code.is_empty()) {
            out.insert(code, r.clone());
        }
        before.push(seg);
    }
    out
}

/// A plain stretch of text cut where a sentence ends: `.`, `;`, `!`, `?`
/// before white space (or at its end), and a line's end; not the `.` of an
/// abbreviation (`e.g.`, `i.e.`: a word of one letter, or with another `.`).
fn sentences(plain: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = plain.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_blank = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let ends = match c {
            '\n' => true,
            '.' => next_blank && !abbreviated(&plain[start..i]),
            ';' | '!' | '?' => next_blank,
            _ => false,
        };
        if ends {
            out.push(&plain[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&plain[start..]);
    out
}

/// Whether the last word of `text` (what a `.` closes) is an abbreviation:
/// one letter, or with a `.` of its own (`e.g`).
fn abbreviated(text: &str) -> bool {
    let word = text.rsplit(char::is_whitespace).next().unwrap_or("");
    word.chars().count() == 1 || word.contains('.')
}

/// Whether `verb`, the last of a sentence's words `before` a code span,
/// says what a runner runs: one of [`RUN_VERBS`], or its plural
/// (`the unit envs run`) in a clause that describes rather than
/// prescribes (`Always run`, `Then run` instruct: [`super::mood`]).
fn runs(verb: &str, before: &[&str]) -> bool {
    let verb = verb.to_lowercase();
    if RUN_VERBS.contains(&verb.as_str()) {
        return true;
    }
    let plural = RUN_VERBS
        .iter()
        .any(|v| v.strip_suffix('s') == Some(verb.as_str()));
    // The clause the verb ends: the words after the last comma.
    let clause = before.rsplit(|t| t.ends_with(',')).next().unwrap_or(before);
    plural && clause.len() > 1 && !super::mood::prescribes(&clause.join(" "))
}

/// How many words a text's leading values are looked for in
/// ([`leading_kinds`]).
pub const LEAD_TOKENS: usize = 3;

/// The values among a text's first [`LEAD_TOKENS`] words: a value that
/// names what the sentence tells of (`Flask 3.1.1 was released on ...`),
/// not what it says of it (`The next minor release is v3.6`).
pub(crate) fn leading(text: &str) -> BTreeSet<(ValueKind, String)> {
    text.split_whitespace()
        .take(LEAD_TOKENS)
        .filter_map(|t| token_value(t.trim_matches(|c: char| ",;()\"'`".contains(c))))
        .collect()
}

/// Whether both texts lead with a version ([`leading`]), none alike: each
/// tells of its own release (`Sidekiq 7.0 reduced the default
/// concurrency ...` and `Sidekiq 8.1.0 moved to connection_pool 3.0`), and
/// one release's news is no newer value of another's.
pub(crate) fn two_releases(
    a: &BTreeSet<(ValueKind, String)>,
    b: &BTreeSet<(ValueKind, String)>,
) -> bool {
    let versions = |v: &BTreeSet<(ValueKind, String)>| -> BTreeSet<String> {
        v.iter()
            .filter(|(k, _)| *k == ValueKind::Version)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let (x, y) = (versions(a), versions(b));
    !x.is_empty() && !y.is_empty() && x.is_disjoint(&y)
}

/// How many kinds of value must differ entirely (none given alike) for two
/// notes to be two records ([`two_records`]).
pub const RECORD_KINDS: usize = 2;

/// Whether two notes' values differ in [`RECORD_KINDS`] kinds or more,
/// none given alike (`Flask 3.1.1 was released on 2025-05-13` and `Flask
/// 2.3.0 was released on 2023-04-25`): a newer value of one fact changes
/// that value and keeps the rest, so these are two records (two releases),
/// not one fact said anew. `alike` says whether a value of one is the
/// other's.
pub(crate) fn two_records(
    ours: &BTreeSet<(ValueKind, String)>,
    theirs: &BTreeSet<(ValueKind, String)>,
    alike: impl Fn(ValueKind, &str) -> bool,
) -> bool {
    let kinds = |v: &BTreeSet<(ValueKind, String)>| -> BTreeSet<ValueKind> {
        v.iter().map(|(k, _)| *k).collect()
    };
    if ours.iter().any(|(k, v)| alike(*k, v)) {
        return false;
    }
    kinds(ours).intersection(&kinds(theirs)).count() >= RECORD_KINDS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(text: &str, kind: ValueKind, value: &str) -> Vec<String> {
        holders(text, &["went"])
            .get(&(kind, value.to_string()))
            .map(|ws| ws.iter().cloned().collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_value_is_held_by_the_name_before_it_past_adverbs_and_participles() {
        let v = ValueKind::Version;
        assert_eq!(
            holder(
                "wrangler is pinned at exactly 4.107.0 in devDependencies.",
                v,
                "4.107.0"
            ),
            ["wrangler"]
        );
        assert_eq!(
            holder("Flask depends on click 8.1.3 or newer.", v, "8.1.3"),
            ["click"]
        );
        assert!(holder("4.2.0 is the floor.", v, "4.2.0").is_empty());
        assert_eq!(
            holder("The job's limit went up to 30.", ValueKind::Number, "30"),
            ["limit"]
        );
    }

    #[test]
    fn a_name_glued_to_its_version_holds_it() {
        let h = holder(
            "The job installs npm@11.17.0 globally.",
            ValueKind::Version,
            "11.17.0",
        );
        assert_eq!(h, ["npm"]);
    }

    #[test]
    fn versions_of_two_packages_are_held_apart_and_a_newer_note_naming_the_old_holder_holds_it() {
        let apart = |a: &str, b: &str| {
            let words = |t: &str| {
                let mut out = BTreeSet::new();
                terms::words(t, |w| {
                    out.insert(canonical(w).to_string());
                });
                out
            };
            let (ha, hb) = (holders(a, &[]), holders(b, &[]));
            let (wa, wb) = (words(a), words(b));
            let (x, y) = (
                Held {
                    holders: &ha,
                    words: &wa,
                },
                Held {
                    holders: &hb,
                    words: &wb,
                },
            );
            (
                held_apart(&x, &y, ValueKind::Version),
                holds_old(&x, &y, ValueKind::Version),
            )
        };
        assert_eq!(
            apart(
                "eslint is at ^9.39.3 in devDependencies.",
                "publint is pinned at 0.3.15 in devDependencies."
            ),
            (true, false)
        );
        assert_eq!(
            apart(
                "The wrangler devDependency moved to 4.112.0.",
                "wrangler is pinned at exactly 4.107.0 in devDependencies."
            ),
            (false, true)
        );
        assert_eq!(
            apart(
                "The docs env now builds with python3.15.",
                "It builds with python3.14."
            ),
            (false, true)
        );
    }

    #[test]
    fn a_value_taken_to_after_a_participle_or_a_change_word_says_a_change() {
        let changes = ["went", "moved"];
        assert!(taken_to(
            "ruff-pre-commit was autoupdated to v0.16.2.",
            &changes
        ));
        assert!(taken_to("The click floor went up to 8.2.0.", &changes));
        assert!(taken_to("The build moved to Python 3.14.", &changes));
        assert!(!taken_to("HTTPException defaults to status 500.", &changes));
        assert!(!taken_to("It is limited to the docs folder.", &changes));
    }

    #[test]
    fn notes_differing_in_two_kinds_of_value_are_two_records_unless_one_value_is_shared() {
        let set = |vs: &[(ValueKind, &str)]| -> BTreeSet<(ValueKind, String)> {
            vs.iter().map(|(k, v)| (*k, v.to_string())).collect()
        };
        let (v, n) = (ValueKind::Version, ValueKind::Number);
        let old = set(&[(v, "3.1.0"), (n, "2024-11-13")]);
        let alike = |k: ValueKind, x: &str| old.contains(&(k, x.to_string()));
        assert!(two_records(
            &set(&[(v, "3.1.1"), (n, "2025-05-13")]),
            &old,
            alike
        ));
        assert!(!two_records(
            &set(&[(v, "3.1.1"), (n, "2024-11-13")]),
            &old,
            alike
        ));
        assert!(!two_records(&set(&[(v, "3.1.1")]), &old, alike));
    }

    #[test]
    fn a_version_among_the_first_words_leads_and_one_said_of_the_subject_does_not() {
        let lead = leading("Flask 3.1.1 was released on 2025-05-13.");
        assert!(lead.contains(&(ValueKind::Version, "3.1.1".to_string())));
        assert!(leading("The next minor release is v3.6, GA Nov 3 2026.").is_empty());
    }

    #[test]
    fn two_notes_led_by_other_versions_tell_of_two_releases_and_by_one_version_do_not() {
        let (a, b, c) = (
            leading("Sidekiq 7.0 reduced the default concurrency from 10 to 5."),
            leading("Sidekiq 8.1.0 moved to connection_pool 3.0."),
            leading("Sidekiq 8.1.0 dropped Ruby 3.1."),
        );
        assert!(two_releases(&a, &b));
        assert!(!two_releases(&b, &c));
        assert!(!two_releases(&a, &leading("The latest Sidekiq is 8.1.0.")));
    }

    #[test]
    fn a_command_said_as_what_a_job_or_another_command_runs_has_that_runner() {
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<BTreeSet<_>>();
        let job = run_by("The docs job runs `mkdocs build` and `vale docs/`.");
        assert_eq!(job.get("mkdocs build"), Some(&words(&["doc", "job"])));
        assert_eq!(job.get("vale docs/"), Some(&words(&["doc", "job"])));
        let defined = run_by("`make check` runs ruff and mypy.");
        assert_eq!(defined.get("make check"), Some(&BTreeSet::new()));
        // Instructions: the command is what to run.
        assert!(run_by("Run the tests with `tox -e py312`.").is_empty());
        assert!(run_by("Lint with: `ruff check`").is_empty());
        // A new sentence starts with its own runner, or none; `e.g.` ends none.
        let two = run_by("The hook runs `ruff`. Format with `black .` first.");
        assert!(two.contains_key("ruff") && !two.contains_key("black ."));
        assert!(run_by("Test with a filter, e.g. `pytest -k unit`.").is_empty());
        // A plural said of its runner describes; an instruction does not.
        let envs = run_by("After the tests, the unit envs run `coverage xml`.");
        assert!(envs.get("coverage xml").is_some_and(|r| r.contains("env")));
        assert!(run_by("Always run `make lint` first.").is_empty());
        assert!(run_by("Then run `make lint`.").is_empty());
    }
}
