//! The prompt text for a set of active rules: the same layout, order and
//! budget as the package's `renderRules` (ts/render.ts), byte for byte, so
//! the CLI's hooks and the TypeScript glue put the same text in front of the
//! model (a Node test compares the two).
//!
//! ```text
//! === MANDATORY RULES ===
//! [database.md] The customer table is read-only.
//! ===========================
//!
//! ## Rules
//! [general.md] Keep functions small.
//!
//! (left out to fit the budget: big.md)
//! ```
//!
//! Rules a prompt topic activated come first, as constraints; then the other
//! rules; then the memory text. Budget: `max_lines` and/or `max_bytes`
//! (UTF-8) bound the rules section; user rules never take more than half of
//! what the entries can use; rules are kept whole, highest priority first,
//! and one closing line names those left out.

use crate::rules::rule::{Rule, Scope};
use std::collections::{HashMap, HashSet};

pub const MANDATORY_HEADER: &str = "=== MANDATORY RULES ===";
pub const MANDATORY_FOOTER: &str = "===========================";
pub const RULES_HEADING: &str = "## Rules";

/// How to render; the defaults render every rule, no budget, no memory.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions<'a> {
    /// Ids of the rules a prompt topic activated: rendered first, as constraints.
    pub topic_rule_ids: HashSet<&'a str>,
    /// The `order` of the previous render: those rules keep their places.
    pub previous_order: &'a [String],
    /// At most this many lines for the rules section.
    pub max_lines: Option<usize>,
    /// At most this many UTF-8 bytes for the rules section.
    pub max_bytes: Option<usize>,
    /// Memory text, placed after the rules section.
    pub memory: Option<&'a str>,
}

/// The text, the order used and what was left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderPlan {
    pub text: String,
    /// Ids in the order rendered; pass as `previous_order` next time.
    pub order: Vec<String>,
    /// Ids left out to fit the budget.
    pub omitted: Vec<String>,
}

/// The prompt text for `rules` (see the module comment).
pub fn render_rules(rules: &[&Rule], options: &RenderOptions) -> String {
    plan_rules(rules, options).text
}

/// [`render_rules`], with the order used and the ids left out.
pub fn plan_rules(rules: &[&Rule], options: &RenderOptions) -> RenderPlan {
    let mut seen = HashSet::new();
    let unique: Vec<&Rule> = rules
        .iter()
        .copied()
        .filter(|r| seen.insert(r.id.as_str()))
        .collect();
    let included = select_within_budget(&unique, options);
    let omitted: Vec<String> = unique
        .iter()
        .filter(|r| !included.contains(r.id.as_str()))
        .map(|r| r.id.clone())
        .collect();
    let kept: Vec<&Rule> = unique
        .iter()
        .copied()
        .filter(|r| included.contains(r.id.as_str()))
        .collect();
    let ordered = stable_order(kept, options.previous_order);
    let section = layout(&ordered, &options.topic_rule_ids, &omitted);
    let memory = options.memory.map(str::trim).unwrap_or("");
    let text = [section.as_str(), memory]
        .iter()
        .filter(|t| !t.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n\n");
    RenderPlan {
        text,
        order: ordered.iter().map(|r| r.id.clone()).collect(),
        omitted,
    }
}

/// Rules in `previous` keep their relative order, first; the others follow
/// in the order given.
pub fn stable_order<'r>(rules: Vec<&'r Rule>, previous: &[String]) -> Vec<&'r Rule> {
    let rank: HashMap<&str, usize> = previous
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let (mut known, new): (Vec<&Rule>, Vec<&Rule>) = rules
        .into_iter()
        .partition(|r| rank.contains_key(r.id.as_str()));
    known.sort_by_key(|r| rank[r.id.as_str()]);
    known.extend(new);
    known
}

/// One rule in a rules section: `[id] content`.
pub fn entry(r: &Rule) -> String {
    format!("[{}] {}", r.id, r.content)
}

fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;")
}

/// The opening tag of a rule's reminder (what a transcript is searched for).
pub fn reminder_tag(id: &str) -> String {
    format!("<system-reminder rule=\"{}\">", escape_attr(id))
}

/// The rule ids of the reminders in `text` (the tags of [`reminder`]), in
/// order of appearance.
pub fn reminder_ids(text: &str) -> Vec<String> {
    const OPEN: &str = "<system-reminder rule=\"";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        rest = &rest[at + OPEN.len()..];
        let Some(end) = rest.find("\">") else { break };
        let raw = &rest[..end];
        if !raw.contains('"') {
            out.push(raw.replace("&quot;", "\"").replace("&amp;", "&"));
        }
        rest = &rest[end..];
    }
    out
}

/// The reminder block for a rule (reminder mode): the rule id in the tag, so
/// a saved transcript tells what was delivered.
pub fn reminder(r: &Rule) -> String {
    format!(
        "{}\nThis {} rule ({}) applies to what you are working on now:\n{}\n</system-reminder>",
        reminder_tag(&r.id),
        r.scope,
        r.id,
        r.content
    )
}

/// One short line for a `remind: every-turn` rule: `[id] description`, or
/// `[id]` and the rule's first line.
pub fn sticky_line(rule: &Rule) -> String {
    let description = rule
        .metadata
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    let text = description.unwrap_or_else(|| rule.content.split('\n').next().unwrap_or("").trim());
    format!("[{}] {text}", rule.id)
}

/// What the model is told at the end of a turn while `remind: every-turn`
/// rules are active (`lines` from [`sticky_line`]).
pub fn stop_reminder(lines: &[String]) -> String {
    let list: Vec<String> = lines.iter().map(|l| format!("- {l}")).collect();
    format!(
        "Before you end your turn, check your work against these standing rules (remind: every-turn):\n{}\nIf it already follows them, end your turn without further changes.",
        list.join("\n")
    )
}

fn layout(ordered: &[&Rule], topic: &HashSet<&str>, omitted: &[String]) -> String {
    let mut blocks = Vec::new();
    let mandatory: Vec<String> = ordered
        .iter()
        .filter(|r| topic.contains(r.id.as_str()))
        .map(|r| entry(r))
        .collect();
    let others: Vec<String> = ordered
        .iter()
        .filter(|r| !topic.contains(r.id.as_str()))
        .map(|r| entry(r))
        .collect();
    if !mandatory.is_empty() {
        blocks.push(format!(
            "{MANDATORY_HEADER}\n{}\n{MANDATORY_FOOTER}",
            mandatory.join("\n")
        ));
    }
    if !others.is_empty() {
        blocks.push(format!("{RULES_HEADING}\n{}", others.join("\n")));
    }
    if !omitted.is_empty() {
        blocks.push(format!(
            "(left out to fit the budget: {})",
            omitted.join(", ")
        ));
    }
    blocks.join("\n\n")
}

/// Lines and bytes; infinite limits are `f64::INFINITY`, as in the TS.
#[derive(Clone, Copy, Default)]
struct Cost {
    lines: f64,
    bytes: f64,
}

fn measure(text: &str) -> Cost {
    let lines = if text.is_empty() {
        0
    } else {
        text.split('\n').count()
    };
    Cost {
        lines: lines as f64,
        bytes: text.len() as f64,
    }
}

/// Priority descending, then project before user, then id.
fn by_priority(a: &&Rule, b: &&Rule) -> std::cmp::Ordering {
    b.priority()
        .cmp(&a.priority())
        .then((a.scope == Scope::User).cmp(&(b.scope == Scope::User)))
        .then_with(|| a.id.cmp(&b.id))
}

fn select_within_budget<'r>(rules: &[&'r Rule], o: &RenderOptions) -> HashSet<&'r str> {
    let limit = Cost {
        lines: o.max_lines.map_or(f64::INFINITY, |n| n as f64),
        bytes: o.max_bytes.map_or(f64::INFINITY, |n| n as f64),
    };
    if o.max_lines.is_none() && o.max_bytes.is_none() {
        return rules.iter().map(|r| r.id.as_str()).collect();
    }
    let fits = |c: Cost| c.lines <= limit.lines && c.bytes <= limit.bytes;
    let topic = &o.topic_rule_ids;
    let mut candidates: Vec<&Rule> = rules.to_vec();
    candidates.sort_by(by_priority);
    // User rules may use at most half of what the entries can use: the
    // budget less the headings of the sections that have candidates.
    let mut frame = Vec::new();
    if candidates.iter().any(|r| topic.contains(r.id.as_str())) {
        frame.push(format!("{MANDATORY_HEADER}\n{MANDATORY_FOOTER}"));
    }
    if candidates.iter().any(|r| !topic.contains(r.id.as_str())) {
        frame.push(RULES_HEADING.to_string());
    }
    let framing = measure(&frame.join("\n\n"));
    let user_cap = Cost {
        lines: ((limit.lines - framing.lines) / 2.0).floor(),
        bytes: ((limit.bytes - framing.bytes) / 2.0).floor(),
    };
    let omitted_by = |chosen: &[&Rule]| -> Vec<String> {
        candidates
            .iter()
            .filter(|r| !chosen.iter().any(|c| std::ptr::eq(*c, **r)))
            .map(|r| r.id.clone())
            .collect()
    };
    // The closing line names what is left out, so it depends on the choice:
    // choose with last round's closing line until the choice is stable.
    let mut guess: Vec<String> = Vec::new();
    let mut chosen: Vec<&Rule> = Vec::new();
    for _ in 0..5 {
        chosen.clear();
        let mut user = Cost::default();
        for r in &candidates {
            let e = entry(r);
            let cost = Cost {
                lines: measure(&e).lines,
                bytes: e.len() as f64 + 1.0,
            };
            let is_user = r.scope == Scope::User;
            if is_user
                && (user.lines + cost.lines > user_cap.lines
                    || user.bytes + cost.bytes > user_cap.bytes)
            {
                continue;
            }
            chosen.push(r);
            let others: Vec<String> = guess.iter().filter(|id| **id != r.id).cloned().collect();
            if !fits(measure(&layout(&chosen, topic, &others))) {
                chosen.pop();
                continue;
            }
            if is_user {
                user.lines += cost.lines;
                user.bytes += cost.bytes;
            }
        }
        let omitted = omitted_by(&chosen);
        if omitted == guess {
            break;
        }
        guess = omitted;
    }
    // Last guard: drop the lowest-priority rules until the text fits.
    while !chosen.is_empty() && !fits(measure(&layout(&chosen, topic, &omitted_by(&chosen)))) {
        chosen.pop();
    }
    chosen.iter().map(|r| r.id.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::rule::Metadata;

    fn rule(id: &str, scope: Scope, priority: i64, content: &str) -> Rule {
        Rule {
            id: id.into(),
            scope,
            file_path: id.into(),
            content: content.into(),
            metadata: Metadata {
                priority: Some(priority),
                ..Metadata::default()
            },
            format: crate::rules::rule_format::Format::Wave,
            origin: Default::default(),
        }
    }

    #[test]
    fn layout_mandatory_rules_memory() {
        let a = rule("db.md", Scope::Project, 5, "Read-only.");
        let b = rule("general.md", Scope::Project, 0, "Small functions.");
        let o = RenderOptions {
            topic_rule_ids: ["db.md"].into(),
            memory: Some("## Project Memory\nx\n"),
            ..Default::default()
        };
        assert_eq!(
            render_rules(&[&a, &b, &a], &o),
            "=== MANDATORY RULES ===\n[db.md] Read-only.\n===========================\n\n## Rules\n[general.md] Small functions.\n\n## Project Memory\nx"
        );
        assert_eq!(render_rules(&[], &RenderOptions::default()), "");
    }

    #[test]
    fn budget_keeps_priority_and_names_the_rest() {
        let a = rule("a.md", Scope::Project, 10, "A");
        let b = rule("b.md", Scope::Project, 0, "B\nB2\nB3");
        let u = rule("u.md", Scope::User, 20, "U");
        let o = RenderOptions {
            max_lines: Some(5),
            ..Default::default()
        };
        let plan = plan_rules(&[&b, &a, &u], &o);
        assert_eq!(plan.omitted, ["b.md"]);
        assert_eq!(
            plan.text,
            "## Rules\n[a.md] A\n[u.md] U\n\n(left out to fit the budget: b.md)"
        );
    }

    #[test]
    fn previous_order_is_kept() {
        let a = rule("a.md", Scope::Project, 0, "A");
        let b = rule("b.md", Scope::Project, 0, "B");
        let prev = vec!["b.md".to_string()];
        let plan = plan_rules(
            &[&a, &b],
            &RenderOptions {
                previous_order: &prev,
                ..Default::default()
            },
        );
        assert_eq!(plan.order, ["b.md", "a.md"]);
    }

    #[test]
    fn reminder_sticky_and_stop_texts() {
        let mut r = rule("a\"&.md", Scope::User, 0, "First line.\nSecond.");
        assert_eq!(
            reminder(&r),
            "<system-reminder rule=\"a&quot;&amp;.md\">\nThis user rule (a\"&.md) applies to what you are working on now:\nFirst line.\nSecond.\n</system-reminder>"
        );
        assert_eq!(sticky_line(&r), "[a\"&.md] First line.");
        let two = format!("x {} y {}", reminder(&r), reminder_tag("b.md"));
        assert_eq!(reminder_ids(&two), ["a\"&.md", "b.md"]);
        r.metadata.description = Some(" Lint ".into());
        assert_eq!(sticky_line(&r), "[a\"&.md] Lint");
        assert_eq!(
            stop_reminder(&[sticky_line(&r)]),
            "Before you end your turn, check your work against these standing rules (remind: every-turn):\n- [a\"&.md] Lint\nIf it already follows them, end your turn without further changes."
        );
    }
}
