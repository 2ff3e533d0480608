//! The agent's memory tools: `memory_read`, `memory_write`, `memory_search`
//! and `memory_propose_rule`; their JSON-schema definitions and a runner
//! that always answers with text for the model (bad input becomes an error
//! message, never a panic or an error).

pub use super::entry::day;
use super::entry::Proposal;
use super::search::{MemoryIndex, Query};
use super::store::write::{Note, NoteWritten};
use super::store::{MemoryError, MemoryScope, MemoryStore};
pub use crate::base::limits::MAX_SEARCH_LIMIT;
use crate::rules::rule_set::RuleSet;
use serde_json::{json, Value};
use thiserror::Error;

/// How many entries `memory_search` returns unless told otherwise.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The tool specs: `[{ name, description, parameters }]`, where `parameters`
/// is a JSON schema (the shape OpenAI function tools and the agent SDK use;
/// Anthropic calls the same object `input_schema`).
pub fn tool_definitions() -> Value {
    let scope = json!({
        "type": "string",
        "enum": ["project", "user"],
        "description": "project: facts about this repository; user: facts about the user that hold in every project. Default: project."
    });
    let strings =
        |what: &str| json!({ "type": "array", "items": { "type": "string" }, "description": what });
    json!([
        {
            "name": "memory_read",
            "description": "Read saved memory. Without a topic, returns the index of topics; with a topic, returns that topic's notes, each with its id.",
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
            "description": "Save one thing worth remembering in later sessions (how to build, a constraint, a preference), as a short note. A note that repeats one already saved is folded into it; one that holds a credential is refused (save where it is kept instead); one that restates a project rule is not saved. The answer says what happened and flags notes or rules it conflicts with.",
            "parameters": {
                "type": "object",
                "properties": {
                    "scope": scope,
                    "topic": { "type": "string", "description": "A short topic name, e.g. 'build' or 'staging database'." },
                    "content": { "type": "string", "description": "The note, in Markdown." },
                    "mode": { "type": "string", "enum": ["append", "replace"], "description": "append adds the note to the topic; replace makes it the topic's only note. Default: append." },
                    "paths": strings("Globs of the files the note is about (e.g. 'src/db/**'): it is recalled when they are in context."),
                    "topics": strings("Keywords the note is about.")
                },
                "required": ["topic", "content"],
                "additionalProperties": false
            }
        },
        {
            "name": "memory_search",
            "description": "Search saved memory (both scopes) for notes relevant to a question or to files; returns the best notes with their ids.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": { "type": "string", "description": "What to look for, in words." },
                    "files": strings("Files in context (relative to the project): notes about them rank higher."),
                    "limit": { "type": "integer", "minimum": 1, "maximum": MAX_SEARCH_LIMIT, "description": "At most this many notes (default 5)." }
                },
                "required": ["query"],
                "additionalProperties": false
            }
        },
        {
            "name": "memory_propose_rule",
            "description": "Propose turning a saved note into a project rule (a rule is given every time its files or words come up). A person reviews and accepts the proposal; you cannot write rules yourself.",
            "parameters": {
                "type": "object",
                "properties": {
                    "entry": { "type": "string", "description": "The note's id, as memory_read or memory_search show it." },
                    "paths": strings("Globs of the files the rule should apply to; none for a rule that always applies."),
                    "topics": strings("Keywords that should bring the rule up."),
                    "reason": { "type": "string", "description": "Why this should be a rule." }
                },
                "required": ["entry", "reason"],
                "additionalProperties": false
            }
        }
    ])
}

/// What the tools know besides their input: the rules to compare a note
/// with, who writes, and the files in context.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToolContext<'a> {
    pub rules: Option<&'a RuleSet>,
    pub agent: Option<&'a str>,
    pub session: Option<&'a str>,
}

/// Runs a memory tool without rules to compare notes with; the result is
/// always text for the model.
pub fn run_tool(store: &MemoryStore, name: &str, input: &Value) -> String {
    run_tool_with(store, name, input, &ToolContext::default()).text
}

/// What a memory tool answered: the text for the model and, for a
/// `memory_write` that reached the store, what the write did (for a road
/// that records it: telemetry's `wave_rules.memory.written`).
#[derive(Clone, Debug)]
pub struct ToolAnswer {
    pub text: String,
    pub written: Option<NoteWritten>,
}

/// Runs a memory tool; the answer's text is always text for the model.
pub fn run_tool_with(
    store: &MemoryStore,
    name: &str,
    input: &Value,
    context: &ToolContext<'_>,
) -> ToolAnswer {
    match run(store, name, input, context) {
        Ok((text, written)) => ToolAnswer { text, written },
        Err(message) => ToolAnswer {
            text: format!("Error: {message}"),
            written: None,
        },
    }
}

/// Why a memory tool could not do what it was asked; the model reads it
/// after `Error: `.
#[derive(Debug, Error)]
pub enum ToolError {
    #[error("{tool} takes an object, not {input}")]
    NotAnObject { tool: String, input: Value },
    #[error("'{key}' must be a string, not {value}")]
    NotAString { key: &'static str, value: Value },
    #[error("'{key}' holds strings, not {item}")]
    NotStrings { key: &'static str, item: Value },
    #[error("'{key}' must be a list of strings, not {value}")]
    NotAList { key: &'static str, value: Value },
    #[error("{tool} needs '{key}'")]
    Missing {
        tool: &'static str,
        key: &'static str,
    },
    #[error("'scope' is 'project' or 'user', not '{0}'")]
    BadScope(String),
    #[error("'content' is empty; nothing saved")]
    EmptyContent,
    #[error("'mode' is 'append' or 'replace', not '{0}'")]
    BadMode(String),
    #[error("'limit' is a whole number from 1, not {0}")]
    BadLimit(Value),
    #[error("unknown memory tool '{0}'; the tools are memory_read, memory_write, memory_search and memory_propose_rule")]
    UnknownTool(String),
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

fn run(
    store: &MemoryStore,
    name: &str,
    input: &Value,
    context: &ToolContext<'_>,
) -> Result<(String, Option<NoteWritten>), ToolError> {
    let empty = serde_json::Map::new();
    let input = match input {
        Value::Object(map) => ToolInput { map },
        Value::Null => ToolInput { map: &empty },
        other => {
            return Err(ToolError::NotAnObject {
                tool: name.to_string(),
                input: other.clone(),
            })
        }
    };
    let scope = match input.text("scope")? {
        None => MemoryScope::Project,
        Some(s) => MemoryScope::parse(s).ok_or_else(|| ToolError::BadScope(s.to_string()))?,
    };
    let text = match name {
        "memory_read" => read(store, scope, &input),
        "memory_write" => {
            let written = write(store, scope, &input, context)?;
            return Ok((written.message(), Some(written)));
        }
        "memory_search" => search(store, &input),
        "memory_propose_rule" => propose_rule(store, &input),
        other => Err(ToolError::UnknownTool(other.to_string())),
    };
    text.map(|t| (t, None))
}

/// A tool's input object, read key by key.
struct ToolInput<'a> {
    map: &'a serde_json::Map<String, Value>,
}

impl<'a> ToolInput<'a> {
    /// A string, if given.
    fn text(&self, key: &'static str) -> Result<Option<&'a str>, ToolError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(ToolError::NotAString {
                key,
                value: other.clone(),
            }),
        }
    }

    /// A string `tool` cannot do without.
    fn needed(&self, tool: &'static str, key: &'static str) -> Result<&'a str, ToolError> {
        self.text(key)?.ok_or(ToolError::Missing { tool, key })
    }

    /// A list of strings (one string is a list of one); empty if not given.
    fn list(&self, key: &'static str) -> Result<Vec<String>, ToolError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| ToolError::NotStrings {
                            key,
                            item: v.clone(),
                        })
                })
                .collect(),
            Some(other) => Err(ToolError::NotAList {
                key,
                value: other.clone(),
            }),
        }
    }
}

/// `memory_read`: a topic's entries, or the scope's index of topics.
fn read(
    store: &MemoryStore,
    scope: MemoryScope,
    input: &ToolInput<'_>,
) -> Result<String, ToolError> {
    match input.text("topic")? {
        Some(topic) => {
            let entries = store.entries(scope, topic)?;
            Ok(entries
                .iter()
                .map(|e| format!("[{}]\n{}\n", e.meta.id, e.text))
                .collect::<Vec<_>>()
                .join("\n"))
        }
        None => {
            let index = store.read_index(scope)?;
            Ok(if index.trim().is_empty() {
                format!("The {scope} memory has no topics yet.")
            } else {
                index
            })
        }
    }
}

/// `memory_write`: a note, through [`MemoryStore::write_note`].
fn write(
    store: &MemoryStore,
    scope: MemoryScope,
    input: &ToolInput<'_>,
    context: &ToolContext<'_>,
) -> Result<NoteWritten, ToolError> {
    let topic = input.needed("memory_write", "topic")?;
    let content = input.needed("memory_write", "content")?;
    if content.trim().is_empty() {
        return Err(ToolError::EmptyContent);
    }
    let replace = match input.text("mode")? {
        None | Some("append") => false,
        Some("replace") => true,
        Some(other) => return Err(ToolError::BadMode(other.to_string())),
    };
    let mut note = Note::new(scope, topic, content);
    note.replace = replace;
    note.paths = input.list("paths")?;
    note.topics = input.list("topics")?;
    note.agent = context.agent.map(str::to_string);
    note.session = context.session.map(str::to_string);
    Ok(store.write_note(&note, context.rules)?)
}

/// `memory_search`: the best entries of both scopes, one block each.
fn search(store: &MemoryStore, input: &ToolInput<'_>) -> Result<String, ToolError> {
    let query = input.needed("memory_search", "query")?;
    let files = input.list("files")?;
    let limit = match input.map.get("limit") {
        None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
        Some(v) => v
            .as_u64()
            .filter(|&n| n >= 1)
            .map(|n| (n as usize).min(MAX_SEARCH_LIMIT))
            .ok_or_else(|| ToolError::BadLimit(v.clone()))?,
    };
    let index = MemoryIndex::open(store);
    let hits = super::search::search_current(
        &index,
        &Query {
            text: query,
            files: &files,
            limit,
        },
        &|_| false,
    );
    if hits.is_empty() {
        return Ok(format!(
            "No saved note matches '{query}' ({} notes searched).",
            index.len()
        ));
    }
    let blocks: Vec<String> = hits
        .iter()
        .map(|h| {
            format!(
                "[{}] {} memory, topic '{}', updated {}\n{}\n",
                h.id,
                h.scope,
                h.topic,
                day(h.updated),
                h.text
            )
        })
        .collect();
    Ok(blocks.join("\n"))
}

/// `memory_propose_rule`: a proposal recorded on the entry.
fn propose_rule(store: &MemoryStore, input: &ToolInput<'_>) -> Result<String, ToolError> {
    let id = input.needed("memory_propose_rule", "entry")?;
    let reason = input.needed("memory_propose_rule", "reason")?;
    let proposal = Proposal {
        paths: input.list("paths")?,
        topics: input.list("topics")?,
        reason: reason.to_string(),
        at: None,
    };
    let (scope, topic, id) = store.propose(id, proposal)?;
    Ok(format!(
        "Proposed {scope} memory entry {id} (topic '{topic}') as a rule. A person accepts it with `wave-rules memory promote {id}`; until then it stays a note."
    ))
}
