//! Whether a clause prescribes (an instruction: `Commit the lockfile`,
//! `Always squash`, `CI must pass`) or describes (`A backport pull request
//! targets the stable branch`, `The settings object is read lazily`).
//!
//! A rule that forbids something (`never force-push to the release
//! branches`) is contradicted by a note that tells one to do it, not by a
//! note that describes it happening (`a branch pushed by mistake is deleted
//! with git push`): the first is a flag, the second at most a possible
//! conflict ([`super::hygiene::flagged`]). English marks the difference
//! with its mood: an instruction starts with its verb or says a modal
//! (`must`, `should`, `always`); a description has its subject first (an
//! article, a demonstrative, a third-person pronoun) or a form of `be`.
//! Nothing here knows a project's words.

use super::terms;

/// Words that start a description: articles, demonstratives and
/// third-person pronouns, the subject of a statement about something.
/// (`we` and `you` are left out: `we squash every merge` is a practice.)
const SUBJECT_STARTS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "it", "its", "they", "their", "there",
];

/// The finite forms of `be`: `X is Y`, `X are kept` describe (`be` itself
/// follows a modal: `must be signed`).
const BE_FORMS: &[&str] = &[
    "is", "are", "was", "were", "isn't", "aren't", "wasn't", "weren't",
];

/// Modals and adverbs of obligation: a clause saying one prescribes,
/// whatever its form (`every release must be signed`, `the changelog
/// should list it`, `always rebase`).
const MODALS: &[&str] = &[
    "must",
    "should",
    "shall",
    "always",
    "never",
    "mustn't",
    "shouldn't",
];

/// Predicates of obligation and permission: a clause saying one is about
/// what is to be done, whatever its form (`--server-side is not needed`,
/// `make fmt is optional`, `a sign-off is required`).
const DEONTIC: &[&str] = &[
    "needed",
    "required",
    "optional",
    "necessary",
    "mandatory",
    "allowed",
    "permitted",
    "forbidden",
];

/// Adverbs that may come before an instruction's verb (`please commit`,
/// `just run`): skipped when finding how a clause starts.
const LEAD_ADVERBS: &[&str] = &["please", "just", "also", "then", "first", "only"];

/// Whether `clause` prescribes: it says a modal, or it starts (after
/// [`LEAD_ADVERBS`]) with neither a subject word nor a form of `be` in it.
pub fn prescribes(clause: &str) -> bool {
    let tokens: Vec<String> = clause
        .split_whitespace()
        .map(bare)
        .filter(|t| !t.is_empty())
        .collect();
    if (tokens.iter()).any(|t| MODALS.contains(&t.as_str()) || DEONTIC.contains(&t.as_str())) {
        return true;
    }
    let first = tokens.iter().find(|t| !LEAD_ADVERBS.contains(&t.as_str()));
    let Some(first) = first else {
        return false;
    };
    !SUBJECT_STARTS.contains(&first.as_str())
        && !tokens.iter().any(|t| BE_FORMS.contains(&t.as_str()))
}

/// The words (as [`terms::words`] gives them, through `canonical`) said in
/// clauses of `clauses` that prescribe ([`prescribes`]).
pub fn prescribed_words<'a>(
    clauses: impl IntoIterator<Item = &'a str>,
    canonical: impl Fn(&str) -> String,
) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for clause in clauses.into_iter().filter(|c| prescribes(c)) {
        terms::words(clause, |w| {
            out.insert(canonical(w));
        });
    }
    out
}

/// The universals: what is said of each one of a kind.
const UNIVERSALS: &[&str] = &["every", "all", "always", "each"];

/// Whether a word of text (between white space) is a universal
/// (`every`, `all`, `always`, `each`).
pub fn is_universal(token: &str) -> bool {
    UNIVERSALS.contains(&bare(token).as_str())
}

/// Whether a word after a negation makes it a hedge: `not every`, `not
/// all`, `not always`, `not necessarily` say that some are not, which
/// denies a universal (`every rule is promoted`) and nothing else.
pub fn hedges(token_after_negation: &str) -> bool {
    let t = bare(token_after_negation);
    t == "necessarily" || UNIVERSALS.contains(&t.as_str())
}

/// A word of text without its punctuation, in lower case.
fn bare(token: &str) -> String {
    token
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instruction_prescribes_and_a_statement_about_a_subject_describes() {
        for clause in [
            "Run the migrations before you start the server",
            "Always rebase onto the release branch",
            "please tag the maintainers",
            "Every public function must have a doc comment",
            "the changelog should name the issue",
            "We squash every merge",
        ] {
            assert!(prescribes(clause), "{clause}");
        }
        for clause in [
            "A release tag points at the merge commit",
            "The cache is rebuilt every night",
            "Hotfixes are cherry-picked onto the old series",
            "it builds the wheels for every platform",
            "There is a nightly job that deploys the docs",
            "Generated clients were committed by the bot",
            "",
        ] {
            assert!(!prescribes(clause), "{clause}");
        }
    }

    #[test]
    fn not_every_and_not_all_hedge_and_every_all_always_each_are_universals() {
        for word in ["every", "all", "always,", "Each", "necessarily"] {
            assert!(hedges(word), "{word}");
        }
        assert!(!hedges("the") && !hedges("run"));
        assert!(is_universal("Every") && is_universal("all") && !is_universal("some"));
    }
}
