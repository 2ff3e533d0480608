//! Cline: `.clinerules/` (`.md` and `.txt`, recursive), or a single
//! `.clinerules` file. No frontmatter: always; a `paths` list: active when a
//! file in context matches.

use super::write::{quote_list, Kind, Resolved, Written};
use crate::diagnostic::{Code, Severity};
use crate::format::Format;
use crate::frontmatter::Value;
use crate::parse::{Context, Input, ParsedRule, Split};
use crate::rule::Metadata;

const KEYS: [&str; 1] = ["paths"];

/// Cline's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    if meta.paths.is_some() {
        "conditional"
    } else {
        "always"
    }
}

pub(crate) fn parse<'a>(cx: &mut Context<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    let fm = cx.frontmatter(input.text)?;
    let mut meta = Metadata::default();
    let mut patterns = Vec::new();
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "paths" => {
                if let Value::Str(_) = value {
                    // Cline fails open: a `paths` that is not a list is
                    // ignored, and the rule is always on.
                    cx.report(Severity::Warning, Code::InvalidField, *at, "Cline ignores a 'paths' that is not a list, so this rule is always on; write paths: [\"...\"]".into());
                    continue;
                }
                if let Some(list) = cx.globs(Format::Cline, key, value, *at, Split::Whole) {
                    let (matched, p) =
                        cx.format_patterns("paths", &list, input.directory, false, str::to_string);
                    meta.paths = Some(matched);
                    patterns = p;
                }
            }
            _ => cx.other_key(Format::Cline, key, *at, &KEYS),
        }
    }
    crate::parse::rule(cx, input, Format::Cline, fm.body, meta, patterns)
}

/// Cline's file for a rule: `.clinerules/<stem>.md`, no frontmatter for an
/// always-on rule, a `paths` list otherwise. (Cline has no on-request or
/// manual rules: [`super::write::resolve`] leaves those out.)
pub(crate) fn write(r: &mut Resolved) -> Written {
    let front = match r.kind {
        Kind::Paths => vec![format!("paths: {}", quote_list(&r.include))],
        _ => Vec::new(),
    };
    Written::File {
        rel: format!(".clinerules/{}.md", r.stem),
        front,
    }
}
