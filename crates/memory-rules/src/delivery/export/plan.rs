//! The [`Plan`]: every file to write and every note, made from the rules
//! without touching the disk.

use super::export_error::ExportError;
use super::naming::{path_stem_of, source_name, stem_of, unique_stems};
use super::{
    frontmatter, header, is_generated, resolve, skip_reason, Resolved, Target, WrittenRule,
};
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
pub struct ExportNote {
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
    pub notes: Vec<ExportNote>,
    /// Rules not exported: user rules, generated files read back.
    pub ignored: Vec<String>,
}

/// Plans the export of `rules` (in their order) to `targets`. Only
/// project rules are exported (a user's own rules stay out of the
/// project); files that carry the header (read back as a source) and a
/// target's own files (already native) are left out.
pub fn plan(rules: &[Rule], workdir: &Path, targets: &[Target]) -> Result<Plan, ExportError> {
    if rules.len() > MAX_EXPORT_RULES {
        return Err(ExportError::TooManyRules { count: rules.len() });
    }
    let mut plan = Plan {
        targets: targets.to_vec(),
        ..Plan::default()
    };
    let exported = plan.take_exported(rules);
    // Unique stems, in rule order: flat, and keeping the source's folders
    // for the targets that read subfolders.
    let ids: Vec<&str> = exported.iter().map(|r| r.id.as_str()).collect();
    let flat = unique_stems(&ids, stem_of);
    let foldered = unique_stems(&ids, path_stem_of);
    for &target in targets {
        let stems = if target.keeps_folders() {
            &foldered
        } else {
            &flat
        };
        plan.add_target(target, &exported, stems, workdir);
    }
    Ok(plan)
}

/// The sections of a target's combined files: path -> (rule, source name).
type Sections<'r> = BTreeMap<String, Vec<(&'r Rule, String)>>;

impl Plan {
    /// The rules to export, in order; the ids of the others go to
    /// `ignored`.
    fn take_exported<'r>(&mut self, rules: &'r [Rule]) -> Vec<&'r Rule> {
        let mut exported: Vec<&Rule> = Vec::new();
        for r in rules {
            // The policy is this machine's, delivered at run time; it is not
            // written into the project's files.
            if r.scope != Scope::Project
                || is_generated(&r.content)
                || r.origin.layer == crate::rules::origin::LayerKind::Policy
            {
                self.ignored.push(r.id.clone());
            } else {
                exported.push(r);
            }
        }
        exported
    }

    /// The files and notes of one target: each rule's own file in rule
    /// order, then the combined files.
    fn add_target(&mut self, target: Target, exported: &[&Rule], stems: &[String], workdir: &Path) {
        let mut sections: Sections = BTreeMap::new();
        for (r, stem) in exported.iter().zip(stems) {
            if let Some((rel, source)) = self.add_rule(target, r, stem, workdir) {
                sections.entry(rel).or_default().push((r, source));
            }
        }
        for (rel, parts) in sections {
            self.files.push(combined_file(target, rel, &parts));
        }
    }

    /// One rule for one target: its own file, or (returned) the path of
    /// the combined file it is a section of with its source name; a note
    /// for each thing lost and for a rule left out.
    fn add_rule(
        &mut self,
        target: Target,
        r: &Rule,
        stem: &str,
        workdir: &Path,
    ) -> Option<(String, String)> {
        // A pack's rule is written into the project's own files.
        let own = r.origin.layer != crate::rules::origin::LayerKind::Pack;
        if own && r.format == target.format() {
            // Already this tool's own file.
            return None;
        }
        let tool = target.tool();
        let source = source_name(r, workdir);
        // A file the tool reads itself (an `AGENTS.md` that a `CLAUDE.md`
        // imports, for `agents-md`): written again, it would be read
        // twice.
        if r.format != crate::Format::Wave && target.reads_natively(&source) {
            let message = format!("{tool} reads {source} itself; not written again");
            self.note(target, r, source, true, message);
            return None;
        }
        let Some(mut resolved) = resolve_for(target, r, stem) else {
            let message = skip_message(target, r);
            self.note(target, r, source, true, message);
            return None;
        };
        let written = write_for(target, &mut resolved);
        for m in &resolved.lossy {
            self.note(target, r, source.clone(), false, m.clone());
        }
        match written {
            WrittenRule::File { rel, front } => {
                self.files.push(own_file(target, rel, &front, r, source));
            }
            WrittenRule::Section { rel } => return Some((rel, source)),
            WrittenRule::Skipped(message) => self.note(target, r, source, true, message),
        }
        None
    }

    fn note(
        &mut self,
        target: Target,
        rule: &Rule,
        source: String,
        skipped: bool,
        message: String,
    ) {
        self.notes.push(ExportNote {
            target,
            rule: rule.id.clone(),
            source,
            skipped,
            message,
        });
    }
}

/// The rule resolved against what `target` can express (`None`: left out).
fn resolve_for<'r>(target: Target, r: &'r Rule, stem: &str) -> Option<Resolved<'r>> {
    match target {
        Target::AgentsMd | Target::Gemini => crate::formats::agents_md::resolve(r, stem, target),
        _ => resolve(r, target.caps(), stem.to_string(), target.tool()),
    }
}

/// Why `target` leaves the rule out.
fn skip_message(target: Target, r: &Rule) -> String {
    let tool = target.tool();
    match target {
        Target::AgentsMd | Target::Gemini => crate::formats::agents_md::skip_reason(r, target),
        _ => skip_reason(r, target.caps(), tool),
    }
    .unwrap_or_else(|| format!("{tool} cannot express this rule; left out"))
}

/// What `target`'s writer makes of the resolved rule.
fn write_for(target: Target, resolved: &mut Resolved) -> WrittenRule {
    match target {
        Target::Cursor => crate::formats::cursor::write(resolved),
        Target::Copilot => crate::formats::copilot::write(resolved),
        Target::Windsurf | Target::Devin | Target::Antigravity => {
            let (folders, _) = target.places();
            crate::formats::windsurf::write(resolved, folders[0])
        }
        Target::Kiro => crate::formats::kiro::write(resolved),
        Target::Cline => crate::formats::cline::write(resolved),
        Target::Continue => crate::formats::continue_::write(resolved),
        Target::Claude => crate::formats::claude::write(resolved),
        Target::AgentsMd | Target::Gemini => crate::formats::agents_md::write(resolved, target),
    }
}

/// A rule's own file: its frontmatter, the header, its text.
fn own_file(
    target: Target,
    rel: String,
    front: &[String],
    r: &Rule,
    source: String,
) -> PlannedFile {
    let mut text = frontmatter(front);
    text.push_str(&header(std::slice::from_ref(&source), target));
    text.push_str("\n\n");
    text.push_str(r.content.trim());
    text.push('\n');
    PlannedFile {
        target,
        rel,
        text,
        rules: vec![r.id.clone()],
    }
}

/// A combined file: the header naming every source, then each rule's text.
fn combined_file(target: Target, rel: String, parts: &[(&Rule, String)]) -> PlannedFile {
    let sources: Vec<String> = parts.iter().map(|(_, s)| s.clone()).collect();
    let mut text = header(&sources, target);
    text.push('\n');
    for (r, _) in parts {
        text.push('\n');
        text.push_str(r.content.trim());
        text.push('\n');
    }
    PlannedFile {
        target,
        rel,
        text,
        rules: parts.iter().map(|(r, _)| r.id.clone()).collect(),
    }
}
