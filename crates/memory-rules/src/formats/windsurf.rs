//! Windsurf (Devin Desktop): `.devin/rules/*.md` and `.windsurf/rules/*.md`
//! with `trigger: always_on | glob | model_decision | manual`, `globs` and
//! `description`. A file without `trigger` is read as `glob` when it has
//! `globs`, else `always_on`. Antigravity's `.agents/rules/*.md` have the
//! same keys and triggers (its docs' four activation modes), so this one
//! reader reads both, as `format`; each writes its own folder.

use super::writer::{push_description, Resolved, TargetActivation, WrittenRule};
use crate::base::diagnostic::{Code, Severity};
use crate::rules::parser::{GlobSplit, Input, ParsedRule, RuleReader};
use crate::rules::rule::{Activation, Metadata};
use crate::rules::rule_format::Format;

pub(crate) const KEYS: [&str; 3] = ["trigger", "globs", "description"];

/// Windsurf's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    match meta.activation {
        Activation::OnRequest => "Model Decision",
        Activation::Manual => "Manual",
        Activation::Auto if meta.paths.is_some() => "Glob",
        Activation::Auto => "Always On",
    }
}

pub(crate) fn parse<'a>(
    cx: &mut RuleReader<'a>,
    input: &Input<'a>,
    format: Format,
) -> Option<ParsedRule> {
    let fm = cx.frontmatter(input.text)?;
    let mut meta = Metadata::default();
    let mut trigger: Option<(String, Option<(u32, u32)>)> = None;
    let mut globs = None;
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "description" => meta.description = cx.description(value, *at),
            "trigger" => match value.as_text().map(|t| t.trim().to_string()) {
                Some(t)
                    if ["always_on", "glob", "model_decision", "manual"].contains(&t.as_str()) =>
                {
                    trigger = Some((t, *at))
                }
                _ => cx.report(
                    Severity::Warning,
                    Code::InvalidField,
                    *at,
                    format!(
                        "'trigger' is always_on, glob, model_decision or manual, not {}; ignored",
                        crate::rules::parser::describe(value)
                    ),
                ),
            },
            "globs" => globs = cx.globs(format, key, value, *at, GlobSplit::Commas),
            _ => cx.other_key(format, key, *at, &KEYS),
        }
    }
    let mut patterns = Vec::new();
    let (kind, at) = match &trigger {
        Some((t, at)) => (t.as_str(), *at),
        None if globs.is_some() => ("glob", None),
        None => ("always_on", None),
    };
    match kind {
        "glob" => {
            patterns = cx.file_trigger(
                "globs",
                globs.as_deref(),
                input.directory,
                &mut meta,
                at,
                "trigger: glob without 'globs' never applies; add globs",
            );
        }
        "model_decision" => {
            meta.activation = Activation::OnRequest;
            cx.needs_description(format, "model_decision", &meta, at);
        }
        "manual" => meta.activation = Activation::Manual,
        _ => {}
    }
    crate::rules::parser::rule(cx, input, format, fm.body, meta, patterns)
}

/// The file for a rule in `folder` (`.windsurf/rules`, `.devin/rules`,
/// `.agents/rules`): `<folder>/<stem>.md` with `trigger`.
pub(crate) fn write(r: &mut Resolved, folder: &str) -> WrittenRule {
    let mut front = Vec::new();
    match r.kind {
        TargetActivation::Always => front.push("trigger: always_on".to_string()),
        TargetActivation::Paths => {
            front.push("trigger: glob".to_string());
            front.push(format!("globs: {}", globs_value(&r.include)));
        }
        TargetActivation::OnRequest => front.push("trigger: model_decision".to_string()),
        TargetActivation::Manual => front.push("trigger: manual".to_string()),
    }
    push_description(&mut front, r);
    WrittenRule::File {
        rel: format!("{folder}/{}.md", r.stem),
        front,
    }
}

/// A comma-joined YAML string, or a list when a pattern would be split
/// (Windsurf's reader is YAML: no evidence it keeps quotes as Cursor does).
fn globs_value(globs: &[String]) -> String {
    if globs
        .iter()
        .any(|g| crate::matchers::glob_check::split_commas(g).len() != 1)
    {
        super::writer::quote_list(globs)
    } else {
        super::writer::quote(&globs.join(","))
    }
}
