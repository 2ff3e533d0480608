//! Kiro steering: `.kiro/steering/*.md` and `~/.kiro/steering`.
//!
//! `inclusion: always` (the default) `| fileMatch | manual | auto`.
//! `fileMatchPattern` is a string or a list; Kiro reads a string as ONE
//! pattern, so a comma-joined string (`"*.ts,*.tsx"`) is a literal pattern
//! that matches no file. We read it as Kiro does and report it. `auto`
//! (Kiro's docs: included when the request matches the `description`) is on
//! request here. Manual steering is mentioned as `#name` in Kiro's chat; a
//! mention with `#` or `@` activates it.

use super::writer::{push_description, quote, quote_list, Resolved, TargetActivation, WrittenRule};
use crate::base::diagnostic::{Code, Severity};
use crate::rules::parser::{GlobSplit, Input, ParsedRule, RuleReader};
use crate::rules::rule::{Activation, Metadata};
use crate::rules::rule_format::Format;

pub(crate) const KEYS: [&str; 4] = ["inclusion", "fileMatchPattern", "name", "description"];

/// Kiro's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    match meta.activation {
        Activation::OnRequest => "inclusion: auto",
        Activation::Manual => "inclusion: manual",
        Activation::Auto if meta.paths.is_some() => "inclusion: fileMatch",
        Activation::Auto => "inclusion: always",
    }
}

pub(crate) fn parse<'a>(cx: &mut RuleReader<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    let fm = cx.frontmatter(input.text)?;
    let mut meta = Metadata::default();
    let mut inclusion: Option<(String, Option<(u32, u32)>)> = None;
    let mut pattern = None;
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "description" => meta.description = cx.description(value, *at),
            "name" => meta.name = value.as_text(),
            "inclusion" => match value.as_text().map(|t| t.trim().to_string()) {
                Some(t) if ["always", "fileMatch", "manual", "auto"].contains(&t.as_str()) => {
                    inclusion = Some((t, *at))
                }
                _ => cx.report(
                    Severity::Warning,
                    Code::InvalidField,
                    *at,
                    format!(
                        "'inclusion' is always, fileMatch, manual or auto, not {}; read as always",
                        crate::rules::parser::describe(value)
                    ),
                ),
            },
            "fileMatchPattern" => {
                pattern = cx
                    .globs(Format::Kiro, key, value, *at, GlobSplit::Literal)
                    .map(|p| (p, *at))
            }
            _ => cx.other_key(Format::Kiro, key, *at, &KEYS),
        }
    }
    let mut patterns = Vec::new();
    let (kind, at) = match &inclusion {
        Some((t, at)) => (t.as_str(), *at),
        None => ("always", None),
    };
    match kind {
        "fileMatch" => {
            patterns = cx.file_trigger(
                "fileMatchPattern",
                pattern.as_ref().map(|(list, _)| list.as_slice()),
                input.directory,
                &mut meta,
                at,
                "inclusion: fileMatch without 'fileMatchPattern' never applies; add one",
            );
        }
        "auto" => {
            meta.activation = Activation::OnRequest;
            cx.needs_description(Format::Kiro, "inclusion: auto", &meta, at);
        }
        "manual" => meta.activation = Activation::Manual,
        _ => {
            if let Some((_, pat_at)) = &pattern {
                cx.report(
                    Severity::Warning,
                    Code::ForeignKey,
                    *pat_at,
                    "'fileMatchPattern' only applies with 'inclusion: fileMatch'; this steering file is always included".into(),
                );
            }
        }
    }
    crate::rules::parser::rule(cx, input, Format::Kiro, fm.body, meta, patterns)
}

/// Kiro's file for a rule: `.kiro/steering/<stem>.md` with `inclusion`;
/// `fileMatchPattern` is a string for one pattern and a list for several,
/// never one comma-joined string (Kiro reads that as one literal pattern).
pub(crate) fn write(r: &mut Resolved) -> WrittenRule {
    let mut front = Vec::new();
    match r.kind {
        TargetActivation::Always => front.push("inclusion: always".to_string()),
        TargetActivation::Paths => {
            front.push("inclusion: fileMatch".to_string());
            let value = match r.include.as_slice() {
                [one] if crate::matchers::glob_check::split_commas(one).len() == 1 => quote(one),
                many => quote_list(many),
            };
            front.push(format!("fileMatchPattern: {value}"));
        }
        TargetActivation::OnRequest => {
            front.push("inclusion: auto".to_string());
            front.push(format!("name: {}", quote(&r.stem)));
        }
        TargetActivation::Manual => front.push("inclusion: manual".to_string()),
    }
    push_description(&mut front, r);
    WrittenRule::File {
        rel: format!(".kiro/steering/{}.md", r.stem),
        front,
    }
}
