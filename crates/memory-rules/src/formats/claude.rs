//! Claude Code's `.claude/rules/*.md` and Wave's `.wave/rules/*.md`: the
//! writers (both are read by [`crate::parse`]). Claude Code reads `paths`
//! only, so a rule with topics, on request or manual would be always-on
//! there: [`super::export::resolve`] leaves those out of Claude Code's
//! files; `.wave/rules` (import) keeps everything Wave can express.

use super::export::{quote, quote_list, Kind, Resolved, Written};

/// Claude Code's file for a rule: `.claude/rules/<stem>.md`, `paths` as a
/// list (exclusions kept), no frontmatter for an always-on rule.
pub(crate) fn write(r: &mut Resolved) -> Written {
    let mut front = Vec::new();
    if r.kind == Kind::Paths {
        let mut paths = r.include.clone();
        paths.extend(r.exclude.iter().map(|e| format!("!{e}")));
        front.push(format!("paths: {}", quote_list(&paths)));
        if let Some(d) = &r.description {
            front.push(format!("description: {}", quote(d)));
        }
    }
    Written::File {
        rel: format!(".claude/rules/{}.md", r.stem),
        front,
    }
}
