//! Claude Code's `.claude/rules/*.md`: the writer (the files are read by
//! [`crate::rules::parser`], as Wave's are). Claude Code reads `paths` only, so a
//! rule with topics, on request or manual would be always-on there:
//! [`super::writer::resolve`] leaves those out of Claude Code's files.

use super::writer::{push_description, quote_list, Resolved, TargetActivation, WrittenRule};

/// Claude Code's file for a rule: `.claude/rules/<stem>.md`, `paths` as a
/// list (exclusions kept), no frontmatter for an always-on rule.
pub(crate) fn write(r: &mut Resolved) -> WrittenRule {
    let mut front = Vec::new();
    if r.kind == TargetActivation::Paths {
        let mut paths = r.include.clone();
        paths.extend(r.exclude.iter().map(|e| format!("!{e}")));
        front.push(format!("paths: {}", quote_list(&paths)));
        push_description(&mut front, r);
    }
    WrittenRule::File {
        rel: format!(".claude/rules/{}.md", r.stem),
        front,
    }
}
