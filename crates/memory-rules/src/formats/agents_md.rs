//! `AGENTS.md` and `CLAUDE.md` (source name `agents-md`): plain Markdown
//! instructions in the project root and in any subdirectory. The root's
//! file is always active; a subdirectory's applies when a file under that
//! subdirectory is in context. Deeper files sort after shallower ones
//! (closest last, so it wins), as Codex and Claude Code order them.

use crate::format::Format;
use crate::parse::{Context, Input, ParsedRule};
use crate::rule::Metadata;

/// The file names read, in this order within one directory.
pub use crate::format::AGENTS_MD_FILE_NAMES as FILE_NAMES;

/// The name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    if meta.directory.is_some() {
        "subdirectory file"
    } else {
        "project root file"
    }
}

pub(crate) fn parse<'a>(cx: &mut Context<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    // The whole file is the instruction; a leading frontmatter block (rare)
    // is read for its syntax only, so a broken one is still reported.
    let body = match cx.frontmatter(input.text) {
        Some(fm) => fm.body,
        None => input.text,
    };
    let mut meta = Metadata::default();
    let mut patterns = Vec::new();
    if let Some(dir) = input.directory.filter(|d| !d.is_empty()) {
        let written = vec!["**".to_string()];
        let (matched, p) =
            cx.format_patterns("directory", &written, Some(dir), false, str::to_string);
        meta.paths = Some(matched);
        patterns = p;
    }
    let content = cx.check_body(input.text, body);
    Some(crate::parse::rule(
        input,
        Format::AgentsMd,
        content,
        meta,
        patterns,
    ))
}
