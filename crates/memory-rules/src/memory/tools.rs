//! The agent's two memory tools, `memory_read` and `memory_write`: their
//! JSON-schema definitions and a runner that always answers with text for the
//! model (bad input becomes an error message, never a panic or an error).

use super::store::{MemoryScope, MemoryStore, WriteMode};
use serde_json::{json, Value};

/// The tool specs: `[{ name, description, parameters }]`, where `parameters`
/// is a JSON schema (the shape OpenAI function tools and the agent SDK use;
/// Anthropic calls the same object `input_schema`).
pub fn tool_definitions() -> Value {
    let scope = json!({
        "type": "string",
        "enum": ["project", "user"],
        "description": "project: facts about this repository; user: facts about the user that hold in every project. Default: project."
    });
    json!([
        {
            "name": "memory_read",
            "description": "Read saved memory. Without a topic, returns the index of topics; with a topic, returns that topic's notes.",
            "parameters": {
                "type": "object",
                "properties": {
                    "scope": scope,
                    "topic": { "type": "string", "description": "The topic to read, as listed in the index." }
                },
                "additionalProperties": false
            }
        },
        {
            "name": "memory_write",
            "description": "Save something worth remembering in later sessions (how to build, a constraint, a preference). Appends to the topic unless mode is replace.",
            "parameters": {
                "type": "object",
                "properties": {
                    "scope": scope,
                    "topic": { "type": "string", "description": "A short topic name, e.g. 'build' or 'staging database'." },
                    "content": { "type": "string", "description": "The note, in Markdown." },
                    "mode": { "type": "string", "enum": ["append", "replace"], "description": "Default: append." }
                },
                "required": ["topic", "content"],
                "additionalProperties": false
            }
        }
    ])
}

/// Runs a memory tool; the result is always text for the model.
pub fn run_tool(store: &MemoryStore, name: &str, input: &Value) -> String {
    match run(store, name, input) {
        Ok(text) => text,
        Err(message) => format!("Error: {message}"),
    }
}

fn run(store: &MemoryStore, name: &str, input: &Value) -> Result<String, String> {
    let input = match input {
        Value::Object(map) => map,
        Value::Null => &serde_json::Map::new(),
        other => return Err(format!("{name} takes an object, not {other}")),
    };
    let text = |key: &str| -> Result<Option<&str>, String> {
        match input.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(format!("'{key}' must be a string, not {other}")),
        }
    };
    let scope = match text("scope")? {
        None => MemoryScope::Project,
        Some(s) => MemoryScope::parse(s)
            .ok_or_else(|| format!("'scope' is 'project' or 'user', not '{s}'"))?,
    };
    match name {
        "memory_read" => match text("topic")? {
            Some(topic) => store.read_topic(scope, topic).map_err(|e| e.to_string()),
            None => {
                let index = store.read_index(scope).map_err(|e| e.to_string())?;
                Ok(if index.trim().is_empty() {
                    format!("The {scope} memory has no topics yet.")
                } else {
                    index
                })
            }
        },
        "memory_write" => {
            let topic = text("topic")?.ok_or("memory_write needs 'topic'")?;
            let content = text("content")?.ok_or("memory_write needs 'content'")?;
            if content.trim().is_empty() {
                return Err("'content' is empty; nothing saved".into());
            }
            let mode = match text("mode")? {
                None | Some("append") => WriteMode::Append,
                Some("replace") => WriteMode::Replace,
                Some(other) => {
                    return Err(format!("'mode' is 'append' or 'replace', not '{other}'"))
                }
            };
            let file = store
                .write_topic(scope, topic, content, mode)
                .map_err(|e| e.to_string())?;
            let verb = if mode == WriteMode::Append {
                "Appended to"
            } else {
                "Replaced"
            };
            Ok(format!("{verb} {scope} memory topic '{topic}' ({file})."))
        }
        other => Err(format!(
            "unknown memory tool '{other}'; the tools are memory_read and memory_write"
        )),
    }
}
