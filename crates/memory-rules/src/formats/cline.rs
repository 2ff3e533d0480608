//! Cline: `.clinerules/` (recursive) or a single `.clinerules` file, and
//! `.cline/rules/`. No frontmatter: always; a `paths` list: active when a
//! file in context matches.
//!
//! Read as Cline's own loader reads them (cline/cline, the VS Code
//! extension's `core/context/instructions/user-instructions/`: `cline-rules.ts`,
//! `rule-helpers.ts`, `rule-conditionals.ts`, `frontmatter.ts`, at commit
//! abf3081e56 "Wire up conditional rules", 2026-01-22, live until 78b1f30133,
//! 2026-06-05; Apache-2.0), quirks included:
//!
//! - `.clinerules/workflows/`, `.clinerules/hooks/` and `.clinerules/skills/`
//!   are left out of the rules (`readDirectory(path, [[".clinerules",
//!   "workflows"], ...])`): workflows are slash commands, hooks are scripts,
//!   skills are skills. They get a `not-a-rule` info here, never a rule.
//! - The listing keeps only `entry.isFile()` entries of `fs.readdir(...,
//!   {withFileTypes, recursive})`: a symlink is no file to it, so a linked
//!   rule is not read (Cline 4's SDK loader, `user-instruction-config-loader.ts`,
//!   does the same).
//! - `paths` must be a list of non-empty strings; anything else (a string, a
//!   list with an empty or non-string item) is ignored and the rule is always
//!   on ("fail-open"); `paths: []` (or only blank items) matches nothing, so
//!   the rule never activates ("fail-closed": Cline's docs, "Conditional
//!   rules", say the same).
//! - Frontmatter that is not YAML (js-yaml, JSON schema) is "fail-open": the
//!   whole file, frontmatter fence included, is the rule, always on.
//! - An empty file (after trimming) is no rule.
//!
//! Cline 4 (the SDK loader, 2026-06) reads only the top level of
//! `.clinerules/` and `.cline/rules/` (`.md`, `.markdown`, `.txt`) and keeps
//! `paths` as data; the files both versions read are the ones read here.

use super::writer::{quote_list, Resolved, TargetActivation, WrittenRule};
use crate::base::diagnostic::{Code, Severity};
use crate::rules::frontmatter::Value;
use crate::rules::parser::{Input, ParsedRule, RuleReader};
use crate::rules::rule::Metadata;
use crate::rules::rule_format::Format;

pub(crate) const KEYS: [&str; 1] = ["paths"];

/// Cline's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    if meta.paths.is_some() {
        "conditional"
    } else {
        "always"
    }
}

pub(crate) fn parse<'a>(cx: &mut RuleReader<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    if input.text.trim().is_empty() {
        // Cline skips an empty file: no rule, and nothing to warn about.
        return None;
    }
    let before = cx.diagnostics.len();
    let Some(fm) = cx.frontmatter(input.text) else {
        // Cline fails open on frontmatter it cannot parse: the raw file,
        // fence and all, is an always-on rule.
        let why = cx
            .diagnostics
            .drain(before..)
            .map(|d| d.message)
            .collect::<Vec<_>>()
            .join("; ");
        cx.report(
            Severity::Warning,
            Code::YamlSyntax,
            Some((1, 1)),
            format!("Cline cannot read this frontmatter ({why}), so it puts the whole file, frontmatter included, in every request: the rule is always on"),
        );
        let meta = Metadata::default();
        return crate::rules::parser::rule(cx, input, Format::Cline, input.text, meta, Vec::new());
    };
    let mut meta = Metadata::default();
    let mut patterns = Vec::new();
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "paths" => match value {
                Value::List(items) => {
                    let strings: Option<Vec<String>> = items
                        .iter()
                        .map(|i| match i {
                            Value::Str(s) if !s.is_empty() => Some(s.trim().to_string()),
                            _ => None,
                        })
                        .collect();
                    match strings {
                        None => cx.report(Severity::Warning, Code::InvalidField, *at, "Cline ignores a 'paths' list with an empty or non-string item, so this rule is always on; write paths: [\"...\"] with a pattern in every item".into()),
                        Some(list) => {
                            let list: Vec<String> =
                                list.into_iter().filter(|p| !p.is_empty()).collect();
                            if list.is_empty() {
                                // Never active in Cline: no rule here either
                                // (written anywhere else it would fire).
                                cx.report(Severity::Warning, Code::EmptyTrigger, *at, "Cline reads 'paths: []' as matching nothing, so this rule never activates (not loaded); remove 'paths' to make it always on, or add a pattern".into());
                                return None;
                            }
                            let (matched, p) = cx.format_patterns(
                                "paths",
                                &list,
                                input.directory,
                                false,
                                str::to_string,
                            );
                            meta.paths = Some(matched);
                            patterns = p;
                        }
                    }
                }
                Value::Null(()) => {}
                _ => cx.report(Severity::Warning, Code::InvalidField, *at, "Cline ignores a 'paths' that is not a list, so this rule is always on; write paths: [\"...\"]".into()),
            },
            _ => cx.other_key(Format::Cline, key, *at, &KEYS),
        }
    }
    crate::rules::parser::rule(cx, input, Format::Cline, fm.body, meta, patterns)
}

/// Cline's file for a rule: `.clinerules/<stem>.md`, no frontmatter for an
/// always-on rule, a `paths` list otherwise. (Cline has no on-request or
/// manual rules: [`super::writer::resolve`] leaves those out.)
pub(crate) fn write(r: &mut Resolved) -> WrittenRule {
    let front = match r.kind {
        TargetActivation::Paths => vec![format!("paths: {}", quote_list(&r.include))],
        _ => Vec::new(),
    };
    WrittenRule::File {
        rel: format!(".clinerules/{}.md", r.stem),
        front,
    }
}
