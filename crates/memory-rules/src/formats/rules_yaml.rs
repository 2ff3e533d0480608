//! Keyword rules: `.claude/rules.yaml`, a list of rules (at the top level or
//! under `rules:`), each with an `id`, `topics` (a keyword or a list) and
//! `content`, optionally `priority` and `description`. A rule is active when
//! one of its topics starts a word of the prompt, so it renders in the
//! MANDATORY section. A malformed file is skipped with a diagnostic; a
//! malformed entry is skipped and the others load.

use crate::base::diagnostic::{Code, Severity};
use crate::rules::frontmatter::Value;
use crate::rules::parser::{Input, ParsedRule, RuleReader};
use crate::rules::rule::{Metadata, Rule};
use crate::rules::rule_format::Format;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// The keys of one rule of the list.
pub(crate) const KEYS: [&str; 5] = ["id", "topics", "content", "priority", "description"];

type Entry = BTreeMap<String, Spanned<Value>>;

#[derive(serde::Deserialize)]
struct Wrapped {
    rules: Vec<Spanned<Entry>>,
}

use crate::base::limits::MAX_RULES_YAML_ENTRIES;

pub(crate) fn parse<'a>(cx: &mut RuleReader<'a>, input: &Input<'a>) -> Vec<ParsedRule> {
    let text = input.text.strip_prefix('\u{feff}').unwrap_or(input.text);
    if text.trim().is_empty() {
        cx.report(
            Severity::Warning,
            Code::InvalidRulesFile,
            Some((1, 1)),
            "rules.yaml is empty; no rules".into(),
        );
        return Vec::new();
    }
    let entries = match serde_saphyr::from_str::<Vec<Spanned<Entry>>>(text) {
        Ok(list) => list,
        Err(list_err) => match serde_saphyr::from_str::<Wrapped>(text) {
            Ok(w) => w.rules,
            Err(_) => {
                let (line, column) = list_err
                    .location()
                    .map(|l| (l.line() as u32, l.column() as u32))
                    .unwrap_or((1, 1));
                let message = list_err.without_snippet().to_string();
                let first = message.lines().next().unwrap_or("").to_string();
                cx.report(
                    Severity::Error,
                    Code::InvalidRulesFile,
                    Some((line.max(1), column.max(1))),
                    format!("rules.yaml must be a list of rules (each with id, topics, content), or 'rules:' holding one: {first}; the file is skipped"),
                );
                return Vec::new();
            }
        },
    };
    let mut out: Vec<ParsedRule> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for entry in entries.into_iter().take(MAX_RULES_YAML_ENTRIES) {
        let at = Some((
            entry.referenced.line() as u32,
            entry.referenced.column() as u32,
        ));
        if let Some(rule) = one(cx, input, &entry.value, at) {
            if !seen.insert(rule.rule.id.clone()) {
                cx.report(
                    Severity::Warning,
                    Code::Overridden,
                    at,
                    format!("id '{}' appears twice; the later entry wins", rule.rule.id),
                );
                out.retain(|r| r.rule.id != rule.rule.id);
            }
            out.push(rule);
        }
    }
    out
}

fn one(
    cx: &mut RuleReader,
    input: &Input,
    entry: &Entry,
    at: Option<(u32, u32)>,
) -> Option<ParsedRule> {
    let loc = |key: &str| {
        entry
            .get(key)
            .map(|v| (v.referenced.line() as u32, v.referenced.column() as u32))
            .or(at)
    };
    let text = |key: &str| {
        entry
            .get(key)
            .and_then(|v| v.value.as_text())
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    };
    let Some(id) = text("id") else {
        cx.report(
            Severity::Error,
            Code::InvalidField,
            at,
            "a rule needs an 'id' (a string); this entry is skipped".into(),
        );
        return None;
    };
    let Some(content) = text("content") else {
        cx.report(
            Severity::Error,
            Code::InvalidField,
            loc("content"),
            format!("rule '{id}' needs 'content' (a string); skipped"),
        );
        return None;
    };
    let mut meta = Metadata::default();
    match entry.get("topics").map(|v| &v.value) {
        Some(value) => match cx.string_list("topics", value, loc("topics")) {
            Ok(Some(list)) => meta.topics = Some(list),
            Ok(None) | Err(()) => {
                cx.report(Severity::Error, Code::EmptyTrigger, loc("topics"), format!("rule '{id}' has no usable topics, so it would fire on every message; skipped"));
                return None;
            }
        },
        None => {
            cx.report(
                Severity::Error,
                Code::EmptyTrigger,
                at,
                format!("rule '{id}' has no 'topics', so it would fire on every message; skipped"),
            );
            return None;
        }
    }
    if let Some(v) = entry.get("priority") {
        meta.priority = cx.priority(&v.value, loc("priority"));
    }
    if let Some(v) = entry.get("description") {
        meta.description = cx.description(&v.value, loc("description"));
    }
    for key in entry.keys() {
        if !KEYS.contains(&key.as_str()) {
            cx.report(Severity::Info, Code::UnknownKey, loc(key), format!("'{key}' is not a rules.yaml key and is ignored (keys: id, topics, content, priority, description)"));
        }
    }
    let id = Format::RulesYaml.id(&id);
    Some(ParsedRule {
        rule: Rule {
            id,
            scope: input.scope,
            file_path: input.path.to_path_buf(),
            content: content.into(),
            metadata: meta.into(),
            format: Format::RulesYaml,
            origin: Default::default(),
        },
        patterns: Vec::new(),
    })
}
