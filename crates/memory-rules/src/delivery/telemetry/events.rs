//! What each event carries, built from the core's own values (a delivery
//! as the log counts it, a verdict, a load, an eval arm). Attribute names
//! are ours under `wave_rules.*`, and the semantic conventions' where they
//! exist (`session.id`, `gen_ai.agent.name`, `gen_ai.tool.name`,
//! `gen_ai.evaluation.*`, `gen_ai.request.model`).

use super::record::{names, Record};
use crate::delivery::delivery_log::Delivery;
use crate::memory::{NoteAction, NoteWritten};
use crate::rules::rule::{Activation, Rule};
use crate::rules::rule_set::enforcement::{EnforcedAction, Verdict};
use crate::rules::rule_set::{RuleCensus, RuleSet};
use std::path::{Component, Path};

/// Who gave a rule to the model: us, or the agent by itself (its own
/// instruction files: Claude Code's `InstructionsLoaded`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeliveredBy {
    WaveRules,
    Agent,
}

impl DeliveredBy {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveredBy::WaveRules => "wave-rules",
            DeliveredBy::Agent => "agent",
        }
    }
}

/// Why a rule was given at this event: `always`, `paths`, `topics`,
/// `mention` (named in the prompt, or on request), `edit` (back at the
/// write it governs), `subagent` (a subagent's start), `request` (the model
/// read it with `read_rule`), `reminder` (a stop's every-turn line).
pub fn why(rule: &Rule, event: &str) -> &'static str {
    let m = &rule.metadata;
    match event {
        "read-rule" => return "request",
        "edit" => return "edit",
        "stop" => return "reminder",
        "subagent-start" => return "subagent",
        _ => {}
    }
    if m.activation != Activation::Auto {
        return "mention";
    }
    let paths = m.paths.as_ref().is_some_and(|p| !p.is_empty());
    let topics = m.topics.as_ref().is_some_and(|t| !t.is_empty());
    match (paths, topics, event) {
        (true, _, "tool-done") => "paths",
        (_, true, "prompt") => "topics",
        (true, _, _) => "paths",
        (_, true, _) => "topics",
        _ if m.regex.is_some() => "paths",
        _ => "always",
    }
}

/// The rule's layer and, for a pack's, its name and version
/// (`@acme/rules@2.3.1`).
fn with_origin<'a>(record: Record<'a>, rule: Option<&'a Rule>) -> Record<'a> {
    let Some(rule) = rule else { return record };
    let mut record = record
        .with("wave_rules.rule.format", rule.format.as_str())
        .with("wave_rules.rule.layer", rule.origin.layer.as_str());
    if let Some(pack) = &rule.origin.pack {
        let (name, version) = match pack.rsplit_once('@').filter(|(n, _)| !n.is_empty()) {
            Some((n, v)) => (n, Some(v)),
            None => (pack.as_str(), None),
        };
        record = record
            .with("wave_rules.pack.name", name)
            .with_some("wave_rules.pack.version", version);
    }
    record
}

/// `path` relative to `project`, `/`-separated, for the `include =
/// ["paths"]` opt-in: only a path inside the project (an absolute one
/// under it, or a relative one that does not climb out), never an
/// absolute path.
pub fn project_path(path: &Path, project: &Path) -> Option<String> {
    let rel = if path.is_absolute() {
        path.strip_prefix(project).ok()?
    } else {
        path
    };
    let inside = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    let text = rel.to_string_lossy().replace('\\', "/");
    (inside && !text.is_empty()).then_some(text)
}

/// One `wave_rules.rule.delivered` per rule of a delivery (as the delivery
/// log counted it); `rules` finds each rule's format and layer by id.
/// `paths`: the project, when the settings include paths (the rule's file
/// as `wave_rules.rule.file`, relative to it).
pub fn delivered<'a>(
    delivery: &'a Delivery,
    rules: &[&'a Rule],
    by: DeliveredBy,
    paths: Option<&Path>,
) -> Vec<Record<'a>> {
    let mut next = 0;
    delivery
        .rules
        .iter()
        .map(|given| {
            let rule = find_from(rules, &given.id, &mut next);
            let why = match rule {
                Some(r) => why(r, &delivery.event),
                None if delivery.event == "stop" => "reminder",
                None => "always",
            };
            let record = Record::new(names::RULE_DELIVERED)
                .with("wave_rules.rule.id", given.id.as_str())
                .with("wave_rules.rule.hash", given.version.as_str())
                .with("wave_rules.delivery.why", why)
                .with("wave_rules.delivery.event", delivery.event.as_str())
                .with("wave_rules.delivered_by", by.as_str())
                .with("wave_rules.rule.tokens", given.tokens)
                .with("gen_ai.agent.name", delivery.agent.as_str())
                .with("session.id", delivery.session.as_str())
                .with_some("wave_rules.subagent.id", delivery.subagent.clone())
                .with_some(
                    "wave_rules.rule.file",
                    paths
                        .zip(rule)
                        .and_then(|(p, r)| project_path(&r.file_path, p)),
                );
            with_origin(record, rule)
        })
        .collect()
}

/// The rule of this id, looked for from `next` on and then from the
/// start: a delivery lists its rules in the order it was given them, so
/// each is found at once (not a scan per rule: a start gives a hundred).
fn find_from<'a>(rules: &[&'a Rule], id: &str, next: &mut usize) -> Option<&'a Rule> {
    let start = (*next).min(rules.len());
    let (after, before) = (&rules[start..], &rules[..start]);
    let at = (after.iter().position(|r| r.id == id).map(|i| start + i))
        .or_else(|| before.iter().position(|r| r.id == id))?;
    *next = at + 1;
    Some(rules[at])
}

/// The agent gave the model one of its own instruction files by itself:
/// a `wave_rules.rule.delivered` with `delivered_by: agent`. `id` is the
/// file relative to the project (never an absolute path); `memory_type`
/// and `load_reason` as the agent names them.
pub fn self_loaded<'a>(
    agent: &'a str,
    session: &'a str,
    id: &'a str,
    memory_type: &'a str,
    load_reason: &'a str,
) -> Record<'a> {
    Record::new(names::RULE_DELIVERED)
        .with("wave_rules.rule.id", id)
        .with("wave_rules.delivery.why", load_reason)
        .with("wave_rules.delivery.event", "instructions-loaded")
        .with("wave_rules.delivered_by", DeliveredBy::Agent.as_str())
        .with("wave_rules.rule.layer", memory_type)
        .with("gen_ai.agent.name", agent)
        .with("session.id", session)
}

/// One `wave_rules.rule.enforced` per rule a tool call triggered.
/// `paths`: the project, when the settings include paths (a write's file
/// as `wave_rules.action.file`, relative to it).
pub fn enforced<'a>(
    set: &'a RuleSet,
    verdict: &Verdict,
    agent: &'a str,
    session: &'a str,
    tool: Option<&'a str>,
    paths: Option<&Path>,
) -> Vec<Record<'a>> {
    verdict
        .hits
        .iter()
        .filter_map(|hit| {
            let rule = set.rules().get(hit.rule)?;
            let decision = hit.enforce.as_str();
            let (action, file) = match &hit.action {
                EnforcedAction::Write(f) => ("write", Some(f)),
                EnforcedAction::Command { .. } => ("command", None),
            };
            let file = paths
                .zip(file)
                .and_then(|(p, f)| project_path(Path::new(f), p));
            let record = Record::new(names::RULE_ENFORCED)
                .with("wave_rules.rule.id", rule.id.as_str())
                .with(
                    "wave_rules.rule.hash",
                    crate::delivery::session::rule_version(rule),
                )
                .with("wave_rules.enforce.decision", decision)
                .with("wave_rules.action.kind", action)
                .with("gen_ai.agent.name", agent)
                .with("session.id", session)
                .with_some("gen_ai.tool.name", tool)
                .with_some("wave_rules.action.file", file);
            Some(with_origin(record, Some(rule)))
        })
        .collect()
}

/// `wave_rules.memory.recalled`: the entries given at an event. `files`:
/// the files in context that brought them up (relative to the project),
/// when the settings include paths (`wave_rules.trigger.files`).
pub fn recalled<'a>(
    ids: &[String],
    agent: &'a str,
    session: &'a str,
    files: Option<(&[String], &Path)>,
) -> Option<Record<'a>> {
    let files: Option<Vec<String>> = files.map(|(files, project)| {
        let paths = files.iter().map(|f| project_path(Path::new(f), project));
        paths.flatten().collect()
    });
    (!ids.is_empty()).then(|| {
        Record::new(names::MEMORY_RECALLED)
            .with("wave_rules.memory.ids", ids.to_vec())
            .with("wave_rules.memory.count", ids.len())
            .with("gen_ai.agent.name", agent)
            .with("session.id", session)
            .with_some("wave_rules.trigger.files", files.filter(|f| !f.is_empty()))
    })
}

/// `wave_rules.memory.written`: what a note's write did
/// (`wave_rules.memory.outcome`: `stored`, `replaced`, `folded`,
/// `restated`, `refused`) and why, in a word (`wave_rules.memory.why`:
/// `new`, `supersedes`, `replace`, `duplicate`, `rule`, `credential`), with
/// ids and counts only: the scope, the entry's id, the entries it
/// supersedes, its conflicts, the rule it restates, the credential rule
/// that refused it. Never the note's text, its topic or a path.
pub fn written<'a>(note: &'a NoteWritten, agent: &'a str, session: Option<&'a str>) -> Record<'a> {
    Record::new(names::MEMORY_WRITTEN)
        .with("wave_rules.memory.outcome", note.action.as_str())
        .with("wave_rules.memory.why", written_why(note))
        .with("wave_rules.memory.scope", note.scope.as_str())
        .with_some("wave_rules.memory.id", note.id.clone())
        .with("wave_rules.memory.conflicts", note.conflicts.len())
        .with_some(
            "wave_rules.memory.supersedes",
            (!note.supersedes.is_empty()).then(|| note.supersedes.clone()),
        )
        .with_some("wave_rules.rule.id", note.rule.clone())
        .with_some(
            "wave_rules.memory.credential.rule",
            note.credential.as_ref().map(|c| c.rule.clone()),
        )
        .with("gen_ai.agent.name", agent)
        .with_some("session.id", session)
}

/// Why a write did what it did, in a word.
fn written_why(note: &NoteWritten) -> &'static str {
    match note.action {
        NoteAction::Stored if !note.supersedes.is_empty() => "supersedes",
        NoteAction::Stored => "new",
        NoteAction::Replaced => "replace",
        NoteAction::Folded => "duplicate",
        NoteAction::Restated => "rule",
        NoteAction::Refused => "credential",
    }
}

/// `wave_rules.rules.loaded` at a session's start: the rules per format
/// (`wave_rules.rules.<format>`), the diagnostics per code
/// (`wave_rules.diagnostics.<code>`), and the totals.
pub fn loaded<'a>(
    census: &RuleCensus,
    diagnostic_codes: &[&str],
    agent: &'a str,
    session: &'a str,
) -> Record<'a> {
    let mut per_code = std::collections::BTreeMap::<&str, u64>::new();
    for code in diagnostic_codes {
        *per_code.entry(code).or_default() += 1;
    }
    let mut record = Record::new(names::RULES_LOADED)
        .with("wave_rules.rules.count", census.total())
        .with("wave_rules.diagnostics.count", diagnostic_codes.len())
        .with("gen_ai.agent.name", agent)
        .with("session.id", session);
    for (format, n) in census.per_format() {
        record = record.with(format!("wave_rules.rules.{}", format.as_str()), n);
    }
    for (code, n) in per_code {
        record = record.with(format!("wave_rules.diagnostics.{code}"), n);
    }
    record
}

/// One arm of one eval scenario, as `eval` measured it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalArm<'a> {
    pub scenario: &'a str,
    pub rule: Option<&'a str>,
    pub agent: &'a str,
    pub model: Option<&'a str>,
    /// `with`, `without`, or a git ref.
    pub arm: &'a str,
    pub runs: u64,
    pub passed: u64,
    /// The pass rate and its interval.
    pub rate: (f64, f64, f64),
    /// The uplift over the other arm and its interval, on the `with` arm.
    pub uplift: Option<(f64, f64, f64)>,
}

/// `gen_ai.evaluation.result` for one arm.
pub fn evaluation<'a>(arm: &EvalArm<'a>) -> Record<'a> {
    let mut record = Record::new(names::EVALUATION_RESULT)
        .with("gen_ai.evaluation.name", arm.scenario)
        .with("gen_ai.evaluation.score.value", arm.rate.0)
        .with("gen_ai.agent.name", arm.agent)
        .with_some("gen_ai.request.model", arm.model)
        .with_some("wave_rules.rule.id", arm.rule)
        .with("wave_rules.eval.arm", arm.arm)
        .with("wave_rules.eval.runs", arm.runs)
        .with("wave_rules.eval.passed", arm.passed)
        .with("wave_rules.eval.rate.low", arm.rate.1)
        .with("wave_rules.eval.rate.high", arm.rate.2);
    if let Some((u, low, high)) = arm.uplift {
        record = record
            .with("wave_rules.eval.uplift", u)
            .with("wave_rules.eval.uplift.low", low)
            .with("wave_rules.eval.uplift.high", high);
    }
    record
}

#[cfg(test)]
mod tests {
    use super::super::record::Value;
    use super::*;
    use crate::delivery::delivery_log::Sender;
    use crate::rules::rule::{Metadata, Scope};
    use crate::rules::rule_format::Format;

    fn rule(id: &str, format: Format, topics: bool) -> Rule {
        Rule {
            id: id.into(),
            scope: Scope::Project,
            file_path: id.into(),
            content: "Text.".into(),
            metadata: Metadata {
                topics: topics.then(|| vec!["x".to_string()]),
                ..Metadata::default()
            }
            .into(),
            format,
            origin: Default::default(),
        }
    }

    fn format_and_why(record: &Record) -> (String, String, String) {
        let text = |k| match record.get(k) {
            Some(Value::Str(s)) => s.to_string(),
            other => format!("{other:?}"),
        };
        (
            text("wave_rules.rule.id"),
            text("wave_rules.rule.format"),
            text("wave_rules.delivery.why"),
        )
    }

    #[test]
    fn each_delivered_record_carries_its_own_rules_format_in_any_order() {
        let rules = [
            rule("a.md", Format::Wave, false),
            rule("b.mdc", Format::Cursor, true),
            rule("c.md", Format::Claude, false),
        ];
        let sender = Sender {
            agent: "claude",
            session: "S",
            subagent: None,
            event: "prompt",
            project: "/p",
        };
        let given: Vec<&Rule> = [2, 0, 1, 2].iter().map(|&i| &rules[i]).collect();
        let delivery = Delivery::of(&given, &sender);
        let listed: Vec<&Rule> = rules.iter().collect();
        let records = delivered(&delivery, &listed, DeliveredBy::WaveRules, None);
        let seen: Vec<_> = records.iter().map(format_and_why).collect();
        let want = |id: &str, f: Format, why: &str| (id.into(), f.as_str().into(), why.into());
        assert_eq!(
            seen,
            [
                want("c.md", Format::Claude, "always"),
                want("a.md", Format::Wave, "always"),
                want("b.mdc", Format::Cursor, "topics"),
                want("c.md", Format::Claude, "always"),
            ]
        );
        let none = delivered(&delivery, &[], DeliveredBy::WaveRules, None);
        assert!(none
            .iter()
            .all(|r| r.get("wave_rules.rule.format").is_none()));
    }
}
