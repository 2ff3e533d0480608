//! GitHub Copilot: `.github/copilot-instructions.md` (always) and
//! `.github/instructions/**/*.instructions.md`.
//!
//! `applyTo` is one comma-separated string of globs. `**`, `**/*` and `*`
//! apply always; any other pattern is matched as `**/`+pattern,
//! case-insensitively, as VS Code reads it. Without `applyTo` the file is on
//! request by its `description`. `excludeAgent: coding-agent` leaves the rule
//! out (we serve coding agents); `excludeAgent: code-review` does not.

use super::writer::{quote, Resolved, TargetActivation, WrittenRule};
use crate::base::diagnostic::{Code, Severity};
use crate::rules::frontmatter::Value;
use crate::rules::parser::{At, GlobSplit, Input, ParsedRule, RuleReader};
use crate::rules::rule::{Activation, Metadata};
use crate::rules::rule_format::Format;

pub(crate) const KEYS: [&str; 4] = ["applyTo", "description", "excludeAgent", "name"];

/// The file that always applies.
use crate::rules::rule_format::COPILOT_REPOSITORY_FILE;

/// Copilot's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    match meta.activation {
        Activation::OnRequest => "on request (no applyTo; by description)",
        Activation::Manual => "manual (attached by hand)",
        Activation::Auto if meta.paths.is_some() => "path-specific",
        Activation::Auto => "repository-wide",
    }
}

/// Patterns VS Code treats as "every file": the rule always applies.
fn is_everything(p: &str) -> bool {
    matches!(p, "**" | "**/*" | "*")
}

/// VS Code's reading: `**/`+pattern unless it already starts so.
fn dialect(p: &str) -> String {
    let p = p.trim_start_matches("./").trim_start_matches('/');
    if p.starts_with("**/") {
        p.to_string()
    } else {
        format!("**/{p}")
    }
}

pub(crate) fn parse<'a>(cx: &mut RuleReader<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    let fm = cx.frontmatter(input.text)?;
    let repository_wide = input
        .path
        .file_name()
        .is_some_and(|n| n == COPILOT_REPOSITORY_FILE)
        && Format::Copilot.is_rule_file(input.path)
        && !input
            .path
            .ends_with(format!("instructions/{COPILOT_REPOSITORY_FILE}"));
    let mut meta = Metadata::default();
    let mut apply: Option<(Vec<String>, At)> = None;
    let mut apply_present = false;
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "description" => meta.description = cx.description(value, *at),
            "name" => meta.name = value.as_text(),
            "applyTo" => {
                apply_present = true;
                if let Value::List(_) = value {
                    cx.report(
                        Severity::Warning,
                        Code::InvalidField,
                        *at,
                        "Copilot reads 'applyTo' as one comma-separated string, not a list; write applyTo: \"a, b\"".into(),
                    );
                }
                apply = cx
                    .globs(Format::Copilot, key, value, *at, GlobSplit::Commas)
                    .map(|l| (l, *at));
            }
            "excludeAgent" => {
                // A string; a list of them is read the same way.
                let agents: Vec<String> = match value {
                    Value::List(items) => items.iter().filter_map(Value::as_text).collect(),
                    other => other.as_text().into_iter().collect(),
                };
                let known = !agents.is_empty()
                    && agents
                        .iter()
                        .all(|a| matches!(a.trim(), "coding-agent" | "code-review"));
                if !known {
                    cx.report(
                        Severity::Warning,
                        Code::InvalidField,
                        *at,
                        format!(
                            "'excludeAgent' is 'code-review' or 'coding-agent', not {}; ignored",
                            crate::rules::parser::describe(value)
                        ),
                    );
                } else if agents.iter().any(|a| a.trim() == "coding-agent") {
                    cx.report(
                        Severity::Info,
                        Code::ExcludedAgent,
                        *at,
                        "excludeAgent: coding-agent: Copilot leaves this rule out for coding agents, and so do we".into(),
                    );
                    return None;
                }
            }
            _ => cx.other_key(Format::Copilot, key, *at, &KEYS),
        }
    }
    let mut patterns = Vec::new();
    if repository_wide {
        // Always, whatever its frontmatter says.
    } else if let Some((list, _)) = apply {
        if !list.iter().any(|p| is_everything(p)) {
            let (matched, p) = cx.format_patterns(
                "applyTo",
                &list,
                input.directory,
                Format::Copilot.case_insensitive_globs(),
                dialect,
            );
            meta.paths = Some(matched);
            patterns = p;
        }
    } else {
        meta.activation = Activation::OnRequest;
        let what = if apply_present {
            "(empty applyTo) on-request"
        } else {
            "on-request (no applyTo)"
        };
        cx.needs_description(Format::Copilot, what, &meta, Some((1, 1)));
    }
    crate::rules::parser::rule(cx, input, Format::Copilot, fm.body, meta, patterns)
}

/// Copilot's file for a rule: always-on rules go to the repository file
/// (`.github/copilot-instructions.md`, combined); others to
/// `.github/instructions/<stem>.instructions.md` with `applyTo` (one
/// comma-separated string), or with only a `description` (on request).
/// Copilot matches a pattern not starting with `**/` in any directory and
/// ignoring case: an anchored pattern (`src/**/*.ts`) is reported.
pub(crate) fn write(r: &mut Resolved) -> WrittenRule {
    let mut front = Vec::new();
    // `*` is the project root's files; Copilot reads it as every file and
    // has no way to anchor a pattern: offered by description instead.
    if r.kind == TargetActivation::Paths && r.include.iter().any(|p| p == "*") {
        r.lossy.push(
            "Copilot reads '*' as every file and cannot match the project root's files only; written as on request (offered by its description), never always-on"
                .to_string(),
        );
        r.kind = TargetActivation::OnRequest;
        r.include.clear();
    }
    match r.kind {
        TargetActivation::Always => {
            return WrittenRule::Section {
                rel: format!(".github/{COPILOT_REPOSITORY_FILE}"),
            }
        }
        TargetActivation::Paths => {
            let anchored: Vec<&String> = r
                .include
                .iter()
                .filter(|p| !p.starts_with("**/") && !matches!(p.as_str(), "**" | "**/*"))
                .collect();
            if !anchored.is_empty() {
                let shown: Vec<String> = anchored
                    .iter()
                    .map(|p| {
                        if is_everything(p) {
                            "every file".to_string()
                        } else {
                            dialect(p)
                        }
                    })
                    .collect();
                let written: Vec<&str> = anchored.iter().map(|s| s.as_str()).collect();
                r.lossy.push(format!(
                    "Copilot matches {} in any directory ({}), ignoring case",
                    written.join(", "),
                    shown.join(", ")
                ));
            } else if r.include.iter().any(|p| p.chars().any(char::is_alphabetic)) {
                r.lossy
                    .push("Copilot matches applyTo ignoring case".to_string());
            }
            if let Some(d) = &r.description {
                front.push(format!("description: {}", quote(d)));
            }
            front.push(format!("applyTo: {}", quote(&r.include.join(","))));
        }
        TargetActivation::OnRequest | TargetActivation::Manual => {
            let d = r.description.clone().unwrap_or_else(|| r.stem.clone());
            front.push(format!("description: {}", quote(&d)));
        }
    }
    WrittenRule::File {
        rel: format!(".github/instructions/{}.instructions.md", r.stem),
        front,
    }
}
