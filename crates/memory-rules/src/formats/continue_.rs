//! Continue: `.continue/rules/*.md`.
//!
//! `alwaysApply: true`: always. `globs` (a string or a list, `!` negates)
//! and `regex` (a string or a list, matched against the content of the files
//! in context when the caller provides it): active when a file in context
//! matches (both, when both are given). No `globs` / `regex` and
//! `alwaysApply` not `false`: always, as Continue's own code does.
//! `alwaysApply: false` with a `description`: on request; without one:
//! manual (`@name`). Continue's docs say `alwaysApply: false` with globs is
//! "included if globs exist and match, or the agent decides to pull the
//! rule into context based on its description": such a rule has both, its
//! globs and an on-request offer (the table lists only the
//! description case; we follow the docs).

use super::writer::{push_description, quote, quote_list, Resolved, TargetActivation, WrittenRule};
use crate::base::diagnostic::{Code, Severity};
use crate::rules::parser::{GlobSplit, Input, ParsedRule, RuleReader};
use crate::rules::rule::{Activation, Metadata};
use crate::rules::rule_format::Format;

pub(crate) const KEYS: [&str; 5] = ["name", "description", "globs", "regex", "alwaysApply"];

/// Continue's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    match meta.activation {
        Activation::OnRequest if meta.paths.is_some() || meta.regex.is_some() => {
            "auto attached, or agent requested by description"
        }
        Activation::OnRequest => "agent requested (alwaysApply: false, by description)",
        Activation::Manual => "manual (alwaysApply: false)",
        Activation::Auto if meta.paths.is_some() || meta.regex.is_some() => "auto attached",
        Activation::Auto => "always",
    }
}

pub(crate) fn parse<'a>(cx: &mut RuleReader<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    let fm = cx.frontmatter(input.text)?;
    let mut meta = Metadata::default();
    let mut always = None;
    let mut always_at = None;
    let mut globs = None;
    let mut regex = None;
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "description" => meta.description = cx.description(value, *at),
            "name" => meta.name = value.as_text(),
            "alwaysApply" => {
                always = cx.flag(key, value, *at);
                always_at = *at;
            }
            "globs" => globs = cx.globs(Format::Continue, key, value, *at, GlobSplit::Commas),
            "regex" => {
                // Regexes may hold commas: a string is one regex.
                let list = cx.globs(Format::Continue, key, value, *at, GlobSplit::Whole);
                if let Some(list) = list {
                    let mut ok = Vec::new();
                    for r in list {
                        match regex_automata::meta::Regex::new(&r) {
                            Ok(_) => ok.push(r),
                            Err(e) => {
                                let loc = cx.locate(&r).or(*at);
                                cx.report(
                                    Severity::Error,
                                    Code::InvalidField,
                                    loc,
                                    format!("regex '{r}' is not valid: {e}; ignored"),
                                );
                            }
                        }
                    }
                    regex = (!ok.is_empty()).then_some(ok);
                }
            }
            _ => cx.other_key(Format::Continue, key, *at, &KEYS),
        }
    }
    let mut patterns = Vec::new();
    if always == Some(true) {
        // Always, whatever else it says.
    } else if globs.is_some() || regex.is_some() {
        if let Some(list) = globs {
            let (matched, p) =
                cx.format_patterns("globs", &list, input.directory, false, str::to_string);
            meta.paths = Some(matched);
            patterns = p;
        }
        meta.regex = regex;
        if always == Some(false) && meta.description.is_some() {
            meta.activation = Activation::OnRequest;
        }
    } else if always == Some(false) {
        if meta.description.is_some() {
            meta.activation = Activation::OnRequest;
        } else {
            meta.activation = Activation::Manual;
            cx.report(
                Severity::Info,
                Code::MissingDescription,
                always_at,
                "alwaysApply: false without globs, regex or description: Continue applies this rule only when it is mentioned".into(),
            );
        }
    }
    crate::rules::parser::rule(cx, input, Format::Continue, fm.body, meta, patterns)
}

/// Continue's file for a rule: `.continue/rules/<stem>.md` with `name`,
/// `alwaysApply`, `globs` (a list, `!` exclusions kept), `regex` and
/// `description`.
pub(crate) fn write(r: &mut Resolved) -> WrittenRule {
    let mut front = vec![format!("name: {}", quote(&r.stem))];
    match r.kind {
        TargetActivation::Always => front.push("alwaysApply: true".to_string()),
        TargetActivation::Paths => {
            let mut globs = r.include.clone();
            globs.extend(r.exclude.iter().map(|e| format!("!{e}")));
            // `**` stands for "no globs" beside a regex (any file).
            let any_file = r.include.len() == 1 && r.include[0] == "**" && !r.regex.is_empty();
            if !r.include.is_empty() && !any_file {
                front.push(format!("globs: {}", quote_list(&globs)));
            }
            if !r.regex.is_empty() {
                front.push(format!("regex: {}", quote_list(&r.regex)));
            }
        }
        TargetActivation::OnRequest => {
            front.push("alwaysApply: false".to_string());
            let mut globs = r.include.clone();
            globs.extend(r.exclude.iter().map(|e| format!("!{e}")));
            if !globs.is_empty() {
                front.push(format!("globs: {}", quote_list(&globs)));
            }
            if !r.regex.is_empty() {
                front.push(format!("regex: {}", quote_list(&r.regex)));
            }
        }
        TargetActivation::Manual => front.push("alwaysApply: false".to_string()),
    }
    if r.kind != TargetActivation::Manual {
        push_description(&mut front, r);
    }
    WrittenRule::File {
        rel: format!(".continue/rules/{}.md", r.stem),
        front,
    }
}
