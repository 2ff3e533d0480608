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
    let mut out = String::with_capacity(r.id.len() + 3 + r.content.len());
    write_entry(&mut out, r);
    out
}

/// [`entry`], written at the end of `out`.
fn write_entry(out: &mut String, r: &Rule) {
    out.push('[');
    out.push_str(&r.id);
    out.push_str("] ");
    out.push_str(&r.content);
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
    // Written in place, in one string sized once by the tallied cost (a
    // start gives every always-on rule: no string per rule, no joins).
    let (mandatory, others): (Vec<&Rule>, Vec<&Rule>) = ordered
        .iter()
        .copied()
        .partition(|r| topic.contains(r.id.as_str()));
    let cost = layout_cost(
        Part::of_rules(&mandatory),
        Part::of_rules(&others),
        Part::of_ids(omitted),
    );
    let mut out = String::with_capacity(cost.bytes as usize);
    let block = |out: &mut String, heading: &str, rules: &[&Rule]| {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(heading);
        for r in rules {
            out.push('\n');
            write_entry(out, r);
        }
    };
    if !mandatory.is_empty() {
        block(&mut out, MANDATORY_HEADER, &mandatory);
        out.push('\n');
        out.push_str(MANDATORY_FOOTER);
    }
    if !others.is_empty() {
        block(&mut out, RULES_HEADING, &others);
    }
    if !omitted.is_empty() {
        block(&mut out, LEFT_OUT, &[]);
        out.push_str(&omitted.join(", "));
        out.push(')');
    }
    out
}

/// Some texts to be joined with one separator: how many, their bytes and
/// their newlines (what [`layout_cost`] needs of them).
#[derive(Clone, Copy, Default)]
struct Part {
    n: usize,
    bytes: usize,
    newlines: usize,
}

impl Part {
    /// Adds (`sign` 1) or takes away (-1) one text.
    fn add(&mut self, bytes: usize, newlines: usize, sign: i8) {
        if sign > 0 {
            self.n += 1;
            self.bytes += bytes;
            self.newlines += newlines;
        } else {
            self.n -= 1;
            self.bytes -= bytes;
            self.newlines -= newlines;
        }
    }

    /// The bytes and newlines of a rule's [`entry`], without writing it.
    fn entry(r: &Rule) -> (usize, usize) {
        (
            r.id.len() + 3 + r.content.len(),
            newlines_in(&r.id) + newlines_in(&r.content),
        )
    }

    fn of_rules(rules: &[&Rule]) -> Part {
        let mut part = Part::default();
        for r in rules {
            let (bytes, newlines) = Part::entry(r);
            part.add(bytes, newlines, 1);
        }
        part
    }

    fn of_ids(ids: &[String]) -> Part {
        let mut part = Part::default();
        for id in ids {
            part.add(id.len(), newlines_in(id), 1);
        }
        part
    }
}

fn newlines_in(s: &str) -> usize {
    s.bytes().filter(|&b| b == b'\n').count()
}

/// What [`measure`] gives of [`layout`]'s text for these entries (the
/// mandatory ones, the others) and ids left out, without writing it.
fn layout_cost(mandatory: Part, others: Part, omitted: Part) -> Cost {
    let mut blocks: Vec<(usize, usize)> = Vec::with_capacity(3);
    let joined = |p: Part, sep: &str| {
        (
            p.bytes + sep.len() * (p.n - 1),
            p.newlines + newlines_in(sep) * (p.n - 1),
        )
    };
    if mandatory.n > 0 {
        let (b, l) = joined(mandatory, "\n");
        let frame = [MANDATORY_HEADER, MANDATORY_FOOTER];
        blocks.push((
            b + 2 + frame.iter().map(|f| f.len()).sum::<usize>(),
            l + 2 + frame.iter().map(|f| newlines_in(f)).sum::<usize>(),
        ));
    }
    if others.n > 0 {
        let (b, l) = joined(others, "\n");
        blocks.push((
            b + 1 + RULES_HEADING.len(),
            l + 1 + newlines_in(RULES_HEADING),
        ));
    }
    if omitted.n > 0 {
        let (b, l) = joined(omitted, ", ");
        blocks.push((b + LEFT_OUT.len() + 1, l + newlines_in(LEFT_OUT)));
    }
    let gaps = 2 * blocks.len().saturating_sub(1);
    let bytes: usize = blocks.iter().map(|b| b.0).sum::<usize>() + gaps;
    let newlines: usize = blocks.iter().map(|b| b.1).sum::<usize>() + gaps;
    Cost {
        lines: if bytes == 0 {
            0.0
        } else {
            (newlines + 1) as f64
        },
        bytes: bytes as f64,
    }
}

/// The closing line's opening (then the ids, `, `-separated, and `)`).
const LEFT_OUT: &str = "(left out to fit the budget: ";

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
    // The layout's cost is tallied as rules are chosen (`layout_cost`), not
    // measured on a text written again for every candidate.
    let mut guess: Vec<String> = Vec::new();
    let mut chosen: Vec<&Rule> = Vec::new();
    for _ in 0..5 {
        chosen.clear();
        let mut user = Cost::default();
        let mut tally = [Part::default(); 2];
        let guessed = Part::of_ids(&guess);
        for r in &candidates {
            let (bytes, newlines) = Part::entry(r);
            let cost = Cost {
                lines: (newlines + 1) as f64,
                bytes: bytes as f64 + 1.0,
            };
            let is_user = r.scope == Scope::User;
            if is_user
                && (user.lines + cost.lines > user_cap.lines
                    || user.bytes + cost.bytes > user_cap.bytes)
            {
                continue;
            }
            let section = usize::from(!topic.contains(r.id.as_str()));
            let mut after = tally;
            after[section].add(bytes, newlines, 1);
            let mut others = guessed;
            for id in guess.iter().filter(|id| **id == r.id) {
                others.add(id.len(), newlines_in(id), -1);
            }
            if !fits(layout_cost(after[0], after[1], others)) {
                continue;
            }
            chosen.push(r);
            tally = after;
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
            }
            .into(),
            format: crate::rules::rule_format::Format::Wave,
            origin: Default::default(),
        }
    }

    #[test]
    fn the_tallied_layout_cost_is_the_measure_of_the_layout() {
        let rules = [
            rule("a.md", Scope::Project, 1, "One line."),
            rule("b.md", Scope::User, 2, "Two\nlines."),
            rule("odd\nname.md", Scope::Project, 3, ""),
            rule("d.md", Scope::Project, 4, "x\n\ny"),
        ];
        // Every subset in each section, with 0-3 ids left out.
        for mask in 0u32..81 {
            let (mut m, mut o) = (Vec::new(), Vec::new());
            let mut parts = [Part::default(); 2];
            let mut code = mask;
            for r in &rules {
                match code % 3 {
                    1 => m.push(r),
                    2 => o.push(r),
                    _ => {}
                }
                if code % 3 > 0 {
                    let (b, l) = Part::entry(r);
                    parts[(code % 3 - 1) as usize].add(b, l, 1);
                }
                code /= 3;
            }
            let topic: HashSet<&str> = m.iter().map(|r| r.id.as_str()).collect();
            let ordered: Vec<&Rule> = m.iter().chain(&o).copied().collect();
            for n in 0..4 {
                let left: Vec<String> = rules[..n].iter().map(|r| r.id.clone()).collect();
                let text = layout(&ordered, &topic, &left);
                let (want, got) = (
                    measure(&text),
                    layout_cost(parts[0], parts[1], Part::of_ids(&left)),
                );
                assert_eq!((want.lines, want.bytes), (got.lines, got.bytes), "{text:?}");
            }
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
        std::sync::Arc::make_mut(&mut r.metadata).description = Some(" Lint ".into());
        assert_eq!(sticky_line(&r), "[a\"&.md] Lint");
        assert_eq!(
            stop_reminder(&[sticky_line(&r)]),
            "Before you end your turn, check your work against these standing rules (remind: every-turn):\n- [a\"&.md] Lint\nIf it already follows them, end your turn without further changes."
        );
    }
}
