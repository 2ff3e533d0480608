//! A plan's files read back by our own reader, and what a rule set does
//! for one context: the check that export keeps a rule's meaning.

use super::plan::Plan;
use super::Target;
use crate::rules::rule::Scope;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The plan's files of `target` read back by our reader for that tool (no
/// disk involved): the compiled rules, and for each rule (by index) the ids
/// of the source rules its file holds.
pub fn read_back(
    plan: &Plan,
    target: Target,
    workdir: &Path,
) -> (
    crate::rules::rule_set::RuleSet,
    Vec<Vec<String>>,
    Vec<crate::base::diagnostic::Diagnostic>,
) {
    let mut parsed = Vec::new();
    let mut diagnostics = Vec::new();
    let mut origin: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let format = target.format();
    for f in plan.files.iter().filter(|f| f.target == target) {
        let (id_rel, directory) = match target {
            Target::AgentsMd | Target::Gemini => {
                (f.rel.clone(), crate::sources::nested::directory_of(&f.rel))
            }
            _ => {
                let (dir, _) = target.places();
                let rel = dir
                    .iter()
                    .find_map(|d| f.rel.strip_prefix(&format!("{d}/")))
                    .or_else(|| f.rel.rsplit('/').next())
                    .unwrap_or(&f.rel);
                (rel.to_string(), None)
            }
        };
        let id = format.id(&id_rel);
        let path = workdir.join(&f.rel);
        let input = crate::formats::Input {
            scope: Scope::Project,
            id: &id,
            path: &path,
            text: &f.text,
            directory,
        };
        let out = crate::formats::parse(format, &input);
        diagnostics.extend(out.diagnostics);
        for r in out.rules {
            origin.insert(r.rule.id.clone(), f.rules.clone());
            parsed.push(r);
        }
    }
    let set =
        crate::rules::rule_set::RuleSet::build(parsed, crate::base::workdir::Workdir::new(workdir));
    let sources = set
        .rules()
        .iter()
        .map(|r| origin.get(&r.id).cloned().unwrap_or_default())
        .collect();
    (set, sources, diagnostics)
}

/// What a rule set does for one context: `(rule, true)` for each active
/// rule and `(rule, false)` for each one offered on request, with rules
/// named by `names` (by index; several names for a combined file).
pub fn meaning<S: AsRef<str>>(
    set: &crate::rules::rule_set::RuleSet,
    names: &[Vec<String>],
    files: &[S],
    prompt: Option<&str>,
) -> BTreeSet<(String, bool)> {
    let active = set.active(files, prompt);
    let offered = set.available(&active);
    let mut out = BTreeSet::new();
    for (list, on) in [(&active, true), (&offered, false)] {
        for &i in list {
            for n in &names[i] {
                out.insert((n.clone(), on));
            }
        }
    }
    out
}
