//! Rules offered on request: the short list of ids and descriptions put in
//! front of the model, and the `read_rule` tool it calls to read one (a tool
//! spec plus a runner that always answers with text, like the memory tools).

use crate::rules::rule::{Activation, Rule};
use crate::rules::rule_set::RuleSet;
use serde_json::{json, Value};

/// The tool's name.
pub const TOOL_NAME: &str = "read_rule";

pub use crate::base::limits::MAX_DESCRIPTION_CHARS;

/// The tool spec: `{ name, description, parameters }` (JSON schema).
pub fn tool_definition() -> Value {
    json!({
        "name": TOOL_NAME,
        "description": "Read a project rule that is available on request. Call it with a rule id from the list of available rules when that rule's description is relevant to the task.",
        "parameters": {
            "type": "object",
            "properties": {
                "id": { "type": "string", "description": "The rule id, exactly as listed (e.g. cursor:frontend.mdc)." }
            },
            "required": ["id"],
            "additionalProperties": false
        }
    })
}

fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > MAX_DESCRIPTION_CHARS {
        let cut: String = line.chars().take(MAX_DESCRIPTION_CHARS - 3).collect();
        format!("{cut}...")
    } else {
        line
    }
}

/// The short list of rules the model may read: one `- id: description` line
/// each, under a heading that names the tool. Empty when there are none.
pub fn offer<'a>(rules: impl IntoIterator<Item = &'a Rule>) -> String {
    let lines: Vec<String> = rules
        .into_iter()
        .map(|r| {
            format!(
                "- {}: {}",
                r.id,
                one_line(
                    r.metadata
                        .description
                        .as_deref()
                        .unwrap_or("(no description)")
                )
            )
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!("## Rules available on request\nRead a rule with the {TOOL_NAME} tool when its description is relevant to the task:\n{}\n", lines.join("\n"))
}

/// Runs `read_rule`: the rule's text, or an error message for the model.
pub fn run(set: &RuleSet, input: &Value) -> String {
    let id = match input {
        Value::Object(map) => match map.get("id") {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(other) => return format!("Error: 'id' must be a string, not {other}"),
            None => return format!("Error: {TOOL_NAME} needs 'id'"),
        },
        Value::String(s) => s.trim().to_string(),
        other => return format!("Error: {TOOL_NAME} takes an object {{\"id\": ...}}, not {other}"),
    };
    match set.find(&id) {
        Some(rule) => format!("[{}]\n{}", rule.id, rule.content),
        None => {
            let offered: Vec<&str> = set
                .rules()
                .iter()
                .filter(|r| r.metadata.activation == Activation::OnRequest)
                .map(|r| r.id.as_str())
                .collect();
            if offered.is_empty() {
                format!("Error: no rule '{id}'; no rules are available on request")
            } else {
                format!(
                    "Error: no rule '{id}'; the rules available on request are: {}",
                    offered.join(", ")
                )
            }
        }
    }
}
