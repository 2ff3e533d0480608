//! The [`Plan`]: every file to write and every note, made from the rules
//! without touching the disk.

use super::naming::{path_stem_of, source_name, stem_of, unique_stems};
use super::{frontmatter, header, is_generated, resolve, skip_reason, Target, Written};
use crate::base::limits::MAX_EXPORT_RULES;
use crate::rules::rule::{Rule, Scope};
use std::collections::BTreeMap;
use std::path::Path;

/// One file of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedFile {
    pub target: Target,
    /// Relative to the project root, `/`-separated.
    pub rel: String,
    pub text: String,
    /// The ids of the rules it holds.
    pub rules: Vec<String>,
}

/// One thing a target could not express for one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub target: Target,
    pub rule: String,
    /// The rule's file (relative to the project root when under it).
    pub source: String,
    /// Left out entirely (else written in the closest form).
    pub skipped: bool,
    pub message: String,
}

/// Every file to write and every note, for the given targets.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub targets: Vec<Target>,
    pub files: Vec<PlannedFile>,
    pub notes: Vec<Note>,
    /// Rules not exported: user rules, generated files read back.
    pub ignored: Vec<String>,
}

/// Plans the export of `rules` (in their order) to `targets`. Only
/// project rules are exported (a user's own rules stay out of the
/// project); files that carry the header (read back as a source) and a
/// target's own files (already native) are left out.
pub fn plan(rules: &[Rule], workdir: &Path, targets: &[Target]) -> Result<Plan, String> {
    if rules.len() > MAX_EXPORT_RULES {
        return Err(format!(
            "{} rules to export; the limit is {MAX_EXPORT_RULES}",
            rules.len()
        ));
    }
    let mut plan = Plan {
        targets: targets.to_vec(),
        ..Plan::default()
    };
    let mut exported: Vec<&Rule> = Vec::new();
    for r in rules {
        // The policy is this machine's, delivered at run time; it is not
        // written into the project's files.
        if r.scope != Scope::Project
            || is_generated(&r.content)
            || r.origin.layer == crate::rules::origin::LayerKind::Policy
        {
            plan.ignored.push(r.id.clone());
        } else {
            exported.push(r);
        }
    }
    // Unique stems, in rule order: flat, and keeping the source's folders
    // for the targets that read subfolders.
    let ids: Vec<&str> = exported.iter().map(|r| r.id.as_str()).collect();
    let flat = unique_stems(&ids, stem_of);
    let foldered = unique_stems(&ids, path_stem_of);
    for &target in targets {
        let caps = target.caps();
        let tool = target.tool();
        let stems = if target.keeps_folders() {
            &foldered
        } else {
            &flat
        };
        // Combined files: path -> (rule ids, sources, bodies).
        let mut sections: BTreeMap<String, Vec<(&Rule, String)>> = BTreeMap::new();
        for (r, stem) in exported.iter().zip(stems) {
            // A pack's rule is written into the project's own files.
            let own = r.origin.layer != crate::rules::origin::LayerKind::Pack;
            if own && r.format == target.format() {
                // Already this tool's own file.
                continue;
            }
            let source = source_name(r, workdir);
            // A file the tool reads itself (an `AGENTS.md` that a `CLAUDE.md`
            // imports, for `agents-md`): written again, it would be read
            // twice.
            if r.format != crate::Format::Wave && target.reads_natively(&source) {
                plan.notes.push(Note {
                    target,
                    rule: r.id.clone(),
                    source: source.clone(),
                    skipped: true,
                    message: format!("{tool} reads {source} itself; not written again"),
                });
                continue;
            }
            let resolved = match target {
                Target::AgentsMd | Target::Gemini => {
                    crate::formats::agents_md::resolve(r, stem, target)
                }
                _ => resolve(r, caps, stem.clone(), tool),
            };
            let Some(resolved) = resolved else {
                let message = match target {
                    Target::AgentsMd | Target::Gemini => {
                        crate::formats::agents_md::skip_reason(r, target)
                    }
                    _ => skip_reason(r, caps, tool),
                }
                .unwrap_or_else(|| format!("{tool} cannot express this rule; left out"));
                plan.notes.push(Note {
                    target,
                    rule: r.id.clone(),
                    source,
                    skipped: true,
                    message,
                });
                continue;
            };
            let mut resolved = resolved;
            let written = match target {
                Target::Cursor => crate::formats::cursor::write(&mut resolved),
                Target::Copilot => crate::formats::copilot::write(&mut resolved),
                Target::Windsurf => crate::formats::windsurf::write(&mut resolved),
                Target::Kiro => crate::formats::kiro::write(&mut resolved),
                Target::Cline => crate::formats::cline::write(&mut resolved),
                Target::Continue => crate::formats::continue_::write(&mut resolved),
                Target::Claude => crate::formats::claude::write(&mut resolved),
                Target::AgentsMd | Target::Gemini => {
                    crate::formats::agents_md::write(&mut resolved, target)
                }
            };
            for m in &resolved.lossy {
                plan.notes.push(Note {
                    target,
                    rule: r.id.clone(),
                    source: source.clone(),
                    skipped: false,
                    message: m.clone(),
                });
            }
            match written {
                Written::File { rel, front } => {
                    let mut text = frontmatter(&front);
                    text.push_str(&header(std::slice::from_ref(&source), target));
                    text.push_str("\n\n");
                    text.push_str(r.content.trim());
                    text.push('\n');
                    plan.files.push(PlannedFile {
                        target,
                        rel,
                        text,
                        rules: vec![r.id.clone()],
                    });
                }
                Written::Section { rel } => {
                    sections.entry(rel).or_default().push((r, source));
                }
                Written::Skipped(message) => plan.notes.push(Note {
                    target,
                    rule: r.id.clone(),
                    source,
                    skipped: true,
                    message,
                }),
            }
        }
        for (rel, parts) in sections {
            let sources: Vec<String> = parts.iter().map(|(_, s)| s.clone()).collect();
            let mut text = header(&sources, target);
            text.push('\n');
            for (r, _) in &parts {
                text.push('\n');
                text.push_str(r.content.trim());
                text.push('\n');
            }
            plan.files.push(PlannedFile {
                target,
                rel,
                text,
                rules: parts.iter().map(|(r, _)| r.id.clone()).collect(),
            });
        }
    }
    Ok(plan)
}
