//! The rules' parts (each paragraph or list item of a rule) as notes are
//! compared with them, and the word weights over the memory and the rules
//! together: what `memory write`, `memory lint` and `memory similar` share.

use crate::memory::hygiene::{self, Profile, Weights};
use crate::memory::search::MemoryIndex;
use crate::rules::rule_set::RuleSet;
use std::collections::HashMap;

/// The rules' parts as compared with notes.
pub(crate) struct RuleParts {
    pub parts: Vec<(String, String, Profile)>,
    pub df: HashMap<String, f32>,
    /// Each rule's file.
    pub files: HashMap<String, String>,
}

impl RuleParts {
    /// The part (rule id, text, profile) a note restates, if any: not one
    /// whose words it shares less than those of a part it conflicts with
    /// (`HTML templates are indented with four spaces` says Python's indent
    /// of HTML's subject, where HTML's rule says two: a conflict, not a
    /// restatement).
    pub(crate) fn restated(
        &self,
        profile: &Profile,
        w: &Weights<'_>,
    ) -> Option<&(String, String, Profile)> {
        let found = (self.parts.iter()).find(|(_, _, p)| hygiene::restates(profile, p, w))?;
        let near = hygiene::dice(&profile.words, &found.2.words, w);
        let nearer_clash = (self.parts.iter()).any(|(_, _, other)| {
            hygiene::dice(&profile.words, &other.words, w) > near
                && hygiene::conflict(profile, other, w).is_some()
        });
        (!nearer_clash).then_some(found)
    }

    pub(crate) fn of(rules: Option<&RuleSet>) -> RuleParts {
        let mut parts = Vec::new();
        let mut files = HashMap::new();
        for rule in rules.map(RuleSet::rules).unwrap_or(&[]) {
            files.insert(rule.id.clone(), rule.file_path.display().to_string());
            for p in crate::memory::entry::parts(&rule.content) {
                let profile = Profile::of(&p);
                parts.push((rule.id.clone(), p, profile));
            }
        }
        let df = hygiene::document_frequencies(parts.iter().map(|(_, _, p)| p));
        RuleParts { parts, df, files }
    }
}

/// Word weights over the memory and the rules' parts together.
pub(crate) fn weights<'a>(
    index: &'a MemoryIndex,
    rules: &'a RuleParts,
    df: &'a dyn Fn(&str) -> f32,
) -> Weights<'a> {
    Weights {
        n: (index.len() + rules.parts.len()).max(1) as f32,
        df,
    }
}

pub(crate) fn df_fn<'a>(index: &'a MemoryIndex, rules: &'a RuleParts) -> impl Fn(&str) -> f32 + 'a {
    move |w: &str| index.df(w) as f32 + rules.df.get(w).copied().unwrap_or(0.0)
}
