//! Files, folders and names a newer note says moved or were renamed, and
//! the older notes that name them where they were: superseding for
//! supersede.rs (docs/memory.md, "Superseded notes").

use super::{Clash, Profile};
use crate::memory::note_values::ValueKind;
use crate::memory::terms;
use std::collections::BTreeSet;

/// English words that say a file took another place.
const MOVE_WORDS: &[&str] = &["moved", "renamed", "relocated"];

/// A file or folder the newer note says moved (`moved to
/// contrib/vscode/settings.json`) that the older names at another path
/// ([`moved_path`]).
pub(super) fn moved_file(new: &Profile, old: &Profile) -> Option<Clash> {
    // The words as said, not stemmed: `moving to a new Go minor` tells
    // of no move made.
    let said = terms::tokens(&new.folded).any(|t| MOVE_WORDS.contains(&terms::as_written(t)));
    let kind = ValueKind::Path;
    let (ours, theirs) = (new.of_kind(kind), old.of_kind(kind));
    let moved = |a: &&str| {
        !theirs.contains(a) && (theirs.iter()).any(|b| !ours.contains(b) && moved_path(a, b))
    };
    let to: BTreeSet<&str> = ours.iter().copied().filter(moved).collect();
    (said && !to.is_empty()).then(|| Clash::of_values(kind, to, theirs.clone()))
}

/// Whether two paths can name one thing at two places: by the same name
/// (its words the same, or one's all in the other's, two or more:
/// `UPGRADE_GUIDE_V2.md`, `docs/upgrade-v2.md`), or by the same last
/// part and another part in both (`lib/generators/sidekiq/templates/`,
/// `lib/sidekiq/generators/templates/`).
fn moved_path(a: &str, b: &str) -> bool {
    let parts = |p: &'_ str| -> Vec<String> {
        (p.split('/').filter(|s| !s.is_empty() && *s != "."))
            .map(str::to_string)
            .collect()
    };
    let name = |p: &[String]| -> BTreeSet<String> {
        let last = p.last().map(String::as_str).unwrap_or_default();
        terms::word_list(last).into_iter().collect()
    };
    let (pa, pb) = (parts(a), parts(b));
    let (x, y) = (name(&pa), name(&pb));
    let named = x.len() >= 2 && y.len() >= 2 && (x.is_subset(&y) || y.is_subset(&x));
    let last = pa.last().is_some_and(|l| pb.last() == Some(l));
    let rest = |p: &[String]| -> BTreeSet<String> {
        p[..p.len().saturating_sub(1)].iter().cloned().collect()
    };
    named || (last && !rest(&pa).is_disjoint(&rest(&pb)))
}

/// A name the newer note says was renamed (`fetch-tags was renamed to
/// sync-tags`, `renamed from docs-auto to docs-live`) that the older says:
/// a name with `-` or `_` in it, which few notes share by chance.
pub(super) fn renamed_name(new: &Profile, old: &Profile) -> Option<Clash> {
    let tokens: Vec<&str> = terms::tokens(&new.folded).map(terms::as_written).collect();
    let at = tokens.iter().position(|t| *t == "renamed")?;
    // The name before the word (`X was renamed`), right after it
    // (`renamed X to Y`) or after `from`.
    let from = tokens.get(at + 1).is_some_and(|t| *t == "from");
    let after = tokens.get(at + 1 + usize::from(from));
    let mut near = tokens[at.saturating_sub(3)..at].iter().chain(after);
    let specific = |t: &str| t.contains(['-', '_']) && t.chars().any(|c| c.is_ascii_alphabetic());
    let olds: BTreeSet<&str> = terms::tokens(&old.folded).map(terms::as_written).collect();
    let named = near.find(|t| specific(t) && olds.contains(*t))?;
    Some(Clash {
        kind: ValueKind::Name,
        ours: Vec::new(),
        theirs: vec![named.to_string()],
    })
}

#[cfg(test)]
mod tests {
    use super::super::supersedes;
    use super::*;
    use crate::memory::hygiene::Weights;

    fn weights() -> Weights<'static> {
        Weights {
            n: 100.0,
            df: &|_| 1.0,
        }
    }

    #[test]
    fn a_file_said_moved_supersedes_the_note_naming_it_at_another_path() {
        let w = weights();
        for (old, new) in [
            (
                "Shared editor settings are in contrib/ide/vscode/settings.json.",
                "The shared editor settings file moved to contrib/vscode/settings.json.",
            ),
            (
                "The migration guide is MIGRATION_GUIDE_V3.md at the root.",
                "The migration guide moved to docs/migration-v3.md.",
            ),
            (
                "Generator templates live in lib/generators/app/templates/.",
                "The generator templates were moved to lib/app/generators/templates/.",
            ),
        ] {
            let (o, n) = (Profile::of(old), Profile::of(new));
            assert!(supersedes(&n, &o, &w).is_some(), "{old} / {new}");
        }
        let old = Profile::of("The changelog is kept in CHANGELOG.md at the root.");
        let other = Profile::of("The release notes moved to docs/releases.md.");
        assert!(moved_file(&other, &old).is_none(), "another file's name");
        let said = Profile::of("Shared editor settings are in contrib/ide/vscode/settings.json.");
        let kept = Profile::of("contrib/vscode/settings.json sets the formatter.");
        assert!(moved_file(&kept, &said).is_none(), "no move said");
        let vendored = Profile::of("The Unicode tables come from golang.org/x/text.");
        let moving = Profile::of("Moving to a new Go minor can mean upgrading x/text.");
        assert!(
            moved_file(&moving, &vendored).is_none(),
            "a move told of, not made"
        );
    }

    #[test]
    fn a_name_said_renamed_supersedes_the_note_that_says_it() {
        let w = weights();
        let old = Profile::of("The publish task calls the fetch-tags task first.");
        for new in [
            "The fetch-tags task was renamed to sync-tags; publish calls that now.",
            "We renamed fetch-tags to sync-tags.",
            "The task got renamed from fetch-tags to sync-tags.",
        ] {
            assert!(supersedes(&Profile::of(new), &old, &w).is_some(), "{new}");
        }
        let plain = Profile::of("The build task was renamed to compile.");
        assert!(
            renamed_name(&plain, &old).is_none(),
            "no name of the older note"
        );
    }
}
