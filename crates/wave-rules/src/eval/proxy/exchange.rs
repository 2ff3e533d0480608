//! What the proxy records of one request and its answer.

use serde::Serialize;
use serde_json::Value;

/// The model API a request is for, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Api {
    /// Anthropic Messages: `…/messages` (Claude Code).
    Anthropic,
    /// OpenAI chat completions: `…/chat/completions` (opencode, Copilot CLI, most local servers).
    ChatCompletions,
    /// OpenAI Responses: `…/responses` (Codex).
    Responses,
    /// Gemini: `…:generateContent`, `…:streamGenerateContent` (Gemini CLI).
    Gemini,
    /// Anything else (model lists, token counting): forwarded and recorded, no usage read.
    Other,
}

impl Api {
    /// The API of a request target (path and query). Token counting
    /// (`/messages/count_tokens`, `:countTokens`) is `Other`: its counts are
    /// no model's usage.
    pub fn from_path(target: &str) -> Api {
        let path = target.split('?').next().unwrap_or("").trim_end_matches('/');
        if path.ends_with("/messages") {
            Api::Anthropic
        } else if path.ends_with("/chat/completions") {
            Api::ChatCompletions
        } else if path.ends_with("/responses") {
            Api::Responses
        } else if path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent") {
            Api::Gemini
        } else {
            Api::Other
        }
    }
}

/// The model's own token counts in one response.
///
/// `input` is every prompt token the model processed, cached ones included,
/// so the APIs compare: Anthropic's `input_tokens` +
/// `cache_creation_input_tokens` + `cache_read_input_tokens` (its
/// `input_tokens` leaves the cached ones out); OpenAI's `prompt_tokens`
/// (chat) or `input_tokens` (Responses), which already hold their
/// `cached_tokens`; Gemini's `promptTokenCount`, which holds its
/// `cachedContentTokenCount`. `cached` is the part of `input` read from a
/// cache (Anthropic: `cache_read_input_tokens`). `output` is every token
/// generated, reasoning included: Anthropic's `output_tokens`, OpenAI's
/// `completion_tokens` / `output_tokens`, Gemini's `candidatesTokenCount` +
/// `thoughtsTokenCount`. All 0 when the response carries no usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cached: u64,
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUse {
    /// The tool's name as the model wrote it.
    pub name: String,
    /// Its arguments: the JSON the model wrote (a string when they were not
    /// JSON, as a freeform tool's input is).
    pub input: Value,
}

impl ToolUse {
    /// The command line, when the tool is an agent's shell tool: Claude Code
    /// `Bash {command}`, Codex `shell {command: argv}`, `exec_command {cmd}`
    /// and `local_shell_call {command: argv}`, Gemini CLI
    /// `run_shell_command {command}`, Copilot CLI and opencode
    /// `bash {command}`. An argv of `bash -lc SCRIPT` gives the script;
    /// another argv is joined with shell quoting.
    pub fn shell_command(&self) -> Option<String> {
        super::shell::command_line(&self.name, &self.input)
    }
}

/// One request through the proxy and what came back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exchange {
    pub method: String,
    /// The request's path and query, as the agent sent it.
    pub path: String,
    pub api: Api,
    /// The request body (Null when it was not JSON).
    pub request: Value,
    /// The upstream's status; None when the request never reached it (it
    /// could not be reached, or the proxy refused the request).
    pub status: Option<u16>,
    /// What went wrong, naming the URL: the upstream could not be reached,
    /// the body was over the limit, the stream broke.
    pub error: Option<String>,
    pub usage: Usage,
    /// The tool calls the model asked for in this response, in order.
    pub tool_calls: Vec<ToolUse>,
    /// The assistant's text in this response (reasoning left out).
    pub text: String,
    /// The response was longer than `MAX_PROXY_RECORDED_BYTES`: the agent got
    /// all of it, and usage, tool calls and text were read from the first
    /// part only.
    pub truncated: bool,
}

impl Exchange {
    /// A new record of a request, with nothing answered yet.
    pub(super) fn new(method: &str, path: &str, body: &[u8]) -> Exchange {
        Exchange {
            method: method.to_string(),
            path: path.to_string(),
            api: Api::from_path(path),
            request: serde_json::from_slice(body).unwrap_or(Value::Null),
            status: None,
            error: None,
            usage: Usage::default(),
            tool_calls: Vec::new(),
            text: String::new(),
            truncated: false,
        }
    }

    /// Every string in the request body, depth first, joined by `\n` (to ask
    /// whether a rule's text reached the model).
    pub fn request_text(&self) -> String {
        let mut out = Vec::new();
        strings(&self.request, &mut out);
        out.join("\n")
    }
}

fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}
