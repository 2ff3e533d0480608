//! One real file is one rule, whatever names and links reach it, and one
//! text with one activation is one rule, whatever tools' folders hold it.
//!
//! A discovery with several sources often meets the same instructions
//! more than once: `CLAUDE.md` a symlink (or hard link) to the `AGENTS.md`
//! beside it, a `CLAUDE.md` that imports `@AGENTS.md`, a `.windsurf/rules`
//! file copied from `.cursor/rules`. Each would put its text in the prompt
//! again. [`fold`] keeps one:
//!
//! - **the same file** (device and inode, from the stamps the discovery
//!   already took): the rule whose activation covers the other's is kept (an
//!   always-on one covers any; equal activations: the earlier source's);
//!   rules of one file with unrelated activations both stay (a nested
//!   `CLAUDE.md` importing a file that a `.cursor/rules` glob also reads);
//! - **the same text and activation** in files of different tools
//!   (identical after trimming; the same scope, `paths`, `topics`, `regex`,
//!   `skills`, kind): a rule copied into several tools' folders; the earlier
//!   source's is kept. Two files of one tool with one text stay two rules.
//!
//! Each folded rule gets a `duplicate` info naming the one kept. Gemini CLI
//! does the same for its own files ("deduplicate by file identity (device +
//! inode)", `memoryDiscovery.ts`), and Claude Code loads an imported file once.

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::rules::rule::{Activation, Metadata, Rule};
use crate::rules::scope::Scope;
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// A file's identity: (device, inode); `None` where the platform gives none.
pub(crate) type Identity = Option<(u64, u64)>;

/// What decides when a rule fires (not its priority or description).
type ActivationKey<'a> = (
    Activation,
    &'a Option<Vec<String>>,
    &'a Option<Vec<String>>,
    &'a Option<Vec<String>>,
    &'a Option<Vec<String>>,
);

fn activation_key(m: &Metadata) -> ActivationKey<'_> {
    (m.activation, &m.paths, &m.topics, &m.regex, &m.skills)
}

/// Whether `a`'s activation fires at least wherever `b`'s does.
fn covers(a: &Metadata, b: &Metadata) -> bool {
    activation_key(a) == activation_key(b)
        || (a.is_unconditional() && b.activation == Activation::Auto)
}

/// Which of `rules` (in discovery order, with their files' identities) to
/// keep, and an `info` for each one folded.
pub(crate) fn fold(rules: &[(&Rule, Identity)]) -> (Vec<bool>, Vec<Diagnostic>) {
    let mut keep = vec![true; rules.len()];
    let mut diagnostics = Vec::new();
    let mut by_file: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
    for (i, (_, id)) in rules.iter().enumerate() {
        if let Some(id) = id.filter(|&(d, n)| d != 0 || n != 0) {
            by_file.entry(id).or_default().push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = by_file.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    for group in groups {
        for &i in &group {
            if !keep[i] {
                continue;
            }
            // The first rule of the group whose activation covers this one.
            let Some(&k) = group.iter().find(|&&k| {
                k != i
                    && keep[k]
                    && covers(&rules[k].0.metadata, &rules[i].0.metadata)
                    && (k < i || !covers(&rules[i].0.metadata, &rules[k].0.metadata))
            }) else {
                continue;
            };
            keep[i] = false;
            let (r, kept) = (rules[i].0, rules[k].0);
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::Duplicate,
                &r.file_path,
                format!(
                    "the same file as {} (a link, or an import), which is read as '{}'; '{}' is left out, so its text is given once",
                    kept.file_path.display(),
                    kept.id,
                    r.id
                ),
            ));
        }
    }
    // Keyed by the text, the scope and the activation themselves (no
    // string is formatted per rule).
    let mut by_text: FxHashMap<(&str, Scope, ActivationKey), usize> = FxHashMap::default();
    for (i, (r, _)) in rules.iter().enumerate() {
        if !keep[i] || r.content.is_empty() {
            continue;
        }
        let key = (&*r.content, r.scope, activation_key(&r.metadata));
        match by_text.get(&key) {
            Some(&k) if rules[k].0.format == r.format => {}
            Some(&k) => {
                keep[i] = false;
                let kept = rules[k].0;
                diagnostics.push(Diagnostic::new(
                    Severity::Info,
                    Code::Duplicate,
                    &r.file_path,
                    format!(
                        "the same text and activation as '{}' ({}); '{}' is left out, so the text is given once",
                        kept.id,
                        kept.file_path.display(),
                        r.id
                    ),
                ));
            }
            None => {
                by_text.insert(key, i);
            }
        }
    }
    (keep, diagnostics)
}
