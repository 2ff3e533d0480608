//! The core's renderer over rule objects: `planRules` / `renderRules`
//! (the text the hooks and every adapter put in front of the model), the
//! reminder block and the sticky line of one rule.

use crate::rule::{from_js_rule, MemoryRule};
use memory_rules::delivery::render;
use napi_derive::napi;

#[napi(object)]
#[derive(Default)]
pub struct RenderOptions {
    /// Ids of the rules a prompt topic activated: rendered first, as constraints.
    pub topic_rule_ids: Option<Vec<String>>,
    /// The `order` of the previous render: those rules keep their places.
    pub previous_order: Option<Vec<String>>,
    /// At most this many lines for the rules section.
    pub max_lines: Option<u32>,
    /// At most this many UTF-8 bytes for the rules section.
    pub max_bytes: Option<u32>,
    /// Memory text, placed after the rules section.
    pub memory: Option<String>,
}

#[napi(object)]
pub struct RenderPlan {
    /// The full text: rules section, then memory.
    pub text: String,
    /// Ids in the order rendered; pass as `previousOrder` next time.
    pub order: Vec<String>,
    /// Ids left out to fit the budget.
    pub omitted: Vec<String>,
}

/// The prompt text for `rules`, the order used and the ids left out (the
/// core's `render::plan_rules`).
#[napi(js_name = "nativePlanRules", catch_unwind)]
pub fn plan_rules(rules: Vec<MemoryRule>, options: Option<RenderOptions>) -> RenderPlan {
    let rules: Vec<memory_rules::Rule> = rules.into_iter().map(from_js_rule).collect();
    plan(&rules.iter().collect::<Vec<_>>(), options)
}

/// [`plan_rules`] over rules the engine holds (no rule object crosses).
pub(crate) fn plan(refs: &[&memory_rules::Rule], options: Option<RenderOptions>) -> RenderPlan {
    let o = options.unwrap_or_default();
    let previous = o.previous_order.unwrap_or_default();
    let topic = o.topic_rule_ids.unwrap_or_default();
    let plan = render::plan_rules(
        refs,
        &render::RenderOptions {
            topic_rule_ids: topic.iter().map(String::as_str).collect(),
            previous_order: &previous,
            max_lines: o.max_lines.map(|n| n as usize),
            max_bytes: o.max_bytes.map(|n| n as usize),
            memory: o.memory.as_deref(),
        },
    );
    RenderPlan {
        text: plan.text,
        order: plan.order,
        omitted: plan.omitted,
    }
}

/// The `<system-reminder rule="id">` block for a rule (reminder mode).
#[napi(js_name = "reminderText", catch_unwind)]
pub fn reminder_text(rule: MemoryRule) -> String {
    render::reminder(&from_js_rule(rule))
}

/// One short line for a `remind: every-turn` rule: `[id] description`, or
/// its first line.
#[napi(js_name = "stickyLine", catch_unwind)]
pub fn sticky_line(rule: MemoryRule) -> String {
    render::sticky_line(&from_js_rule(rule))
}

/// The headings of the rendered text: `[mandatoryHeader, mandatoryFooter, rulesHeading]`.
#[napi(catch_unwind)]
pub fn render_headings() -> Vec<String> {
    vec![
        render::MANDATORY_HEADER.to_string(),
        render::MANDATORY_FOOTER.to_string(),
        render::RULES_HEADING.to_string(),
    ]
}

/// The rule ids of the `<system-reminder rule="id">` blocks in `text`.
#[napi(catch_unwind)]
pub fn reminder_ids(text: String) -> Vec<String> {
    render::reminder_ids(&text)
}
