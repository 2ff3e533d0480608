//! Cursor: `.cursor/rules/**/*.mdc`. A `.cursor/rules` in a subdirectory
//! applies to files under that subdirectory: its globs are matched relative
//! to it, and its always-on rules fire only for files under it.
//!
//! | frontmatter | Cursor's name | here |
//! |---|---|---|
//! | `alwaysApply: true` | Always | always (nested: files under the directory) |
//! | `globs` (comma-separated string or list) | Auto Attached | files in context |
//! | only `description` | Agent Requested | on request |
//! | none | Manual | only when mentioned as `@rule-name` |
//!
//! The legacy `.cursorrules` file at the project root (deprecated by Cursor,
//! still read by it) is plain Markdown, always applied.

use super::write::{push_description, quote, quote_list, Kind, Resolved, Written};
use crate::format::Format;
use crate::parse::{Context, Input, ParsedRule, Split};
use crate::rule::{Activation, Metadata};

const KEYS: [&str; 3] = ["description", "globs", "alwaysApply"];

/// Cursor's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    match meta.activation {
        Activation::OnRequest => "Agent Requested",
        Activation::Manual => "Manual",
        Activation::Auto
            if meta.paths.is_none() || meta.directory.is_some() && is_always_nested(meta) =>
        {
            "Always"
        }
        Activation::Auto => "Auto Attached",
    }
}

fn is_always_nested(meta: &Metadata) -> bool {
    let dir = meta.directory.as_deref().unwrap_or("");
    meta.paths
        .as_ref()
        .is_some_and(|p| p.len() == 1 && p[0] == format!("{dir}/**"))
}

pub(crate) fn parse<'a>(cx: &mut Context<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    let fm = cx.frontmatter(input.text)?;
    let mut meta = Metadata::default();
    let mut always = None;
    let mut globs = None;
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "description" => meta.description = cx.description(value, *at),
            "alwaysApply" => always = cx.flag(key, value, *at),
            "globs" => globs = cx.globs(Format::Cursor, key, value, *at, Split::Commas),
            _ => cx.other_key(Format::Cursor, key, *at, &KEYS),
        }
    }
    let mut patterns = Vec::new();
    let dir = input.directory.filter(|d| !d.is_empty());
    let legacy = input.path.file_name().is_some_and(|n| n == ".cursorrules");
    if legacy {
        // Always, as Cursor reads it.
    } else if always == Some(true) {
        // Always; nested, "always" means for the files under its directory.
        if let Some(d) = dir {
            let written = vec!["**".to_string()];
            let (matched, p) =
                cx.format_patterns("alwaysApply", &written, Some(d), false, str::to_string);
            meta.paths = Some(matched);
            patterns = p;
        }
    } else if let Some(list) = globs {
        let (matched, p) = cx.format_patterns("globs", &list, dir, false, str::to_string);
        meta.paths = Some(matched);
        patterns = p;
    } else if meta.description.is_some() {
        meta.activation = Activation::OnRequest;
    } else {
        meta.activation = Activation::Manual;
    }
    crate::parse::rule(cx, input, Format::Cursor, fm.body, meta, patterns)
}

/// Cursor's file for a rule: `.cursor/rules/<stem>.mdc`. `globs` is one
/// comma-separated string, as Cursor writes it (a list when a pattern holds
/// a comma outside braces).
pub(crate) fn write(r: &mut Resolved) -> Written {
    let mut front = Vec::new();
    match r.kind {
        Kind::Always => {
            push_description(&mut front, r);
            front.push("alwaysApply: true".to_string());
        }
        Kind::Paths => {
            push_description(&mut front, r);
            front.push(format!("globs: {}", globs_value(&r.include)));
            front.push("alwaysApply: false".to_string());
        }
        Kind::OnRequest => {
            push_description(&mut front, r);
            front.push("alwaysApply: false".to_string());
        }
        // No description: with one, Cursor offers the rule to the model.
        Kind::Manual => front.push("alwaysApply: false".to_string()),
    }
    Written::File {
        rel: format!(".cursor/rules/{}.mdc", r.stem),
        front,
    }
}

/// A comma-joined string, or a list when a pattern would be split.
pub(crate) fn globs_value(globs: &[String]) -> String {
    if globs
        .iter()
        .any(|g| crate::globs::split_commas(g).len() != 1)
    {
        quote_list(globs)
    } else {
        quote(&globs.join(","))
    }
}
