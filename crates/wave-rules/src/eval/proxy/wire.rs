//! What each API's answers say: usage, tool calls and text, from a JSON
//! body or a server-sent event stream (see `Usage` for how each API's counts
//! are added up).

use super::exchange::{Api, Exchange, ToolUse, Usage};
use serde_json::Value;
use std::io::Read;

/// Reads the usage, tool calls and text of the answer `body` into `ex`
/// (its `api` says how). A gzip body is inflated first (the proxy asks for
/// none, an upstream may send it anyway).
pub(super) fn read_answer(ex: &mut Exchange, content_type: &str, gzip: bool, body: &[u8]) {
    let inflated;
    let body = if gzip {
        let mut out = Vec::new();
        let _ = flate2::read::GzDecoder::new(body)
            .take(memory_rules::base::limits::MAX_PROXY_RECORDED_BYTES as u64)
            .read_to_end(&mut out);
        inflated = out;
        &inflated[..]
    } else {
        body
    };
    let values = values(content_type, body);
    let mut answer = Answer::default();
    match ex.api {
        Api::Anthropic => values.iter().for_each(|v| answer.anthropic(v)),
        Api::ChatCompletions => values.iter().for_each(|v| answer.chat(v)),
        Api::Responses => answer.responses(&values),
        Api::Gemini => values.iter().for_each(|v| answer.gemini(v)),
        Api::Other => return,
    }
    answer.finish(ex);
}

/// The JSON values of a body: each event's data of an event stream (the
/// `[DONE]` marker left out), the items of a JSON array (Gemini's stream
/// without `alt=sse`), or the one JSON value.
fn values(content_type: &str, body: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(body);
    let sse = content_type.contains("text/event-stream")
        || text.trim_start().starts_with("data:")
        || text.trim_start().starts_with("event:");
    if !sse {
        return match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(items)) => items,
            Ok(v) => vec![v],
            Err(_) => Vec::new(),
        };
    }
    let text = text.replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            (!data.is_empty()).then(|| data.join("\n"))
        })
        .filter(|d| d.trim() != "[DONE]")
        .filter_map(|d| serde_json::from_str(&d).ok())
        .collect()
}

/// One tool call being assembled from pieces.
#[derive(Default)]
struct Call {
    name: String,
    /// The arguments' JSON text as streamed.
    args: String,
    /// The input given whole (a non-streamed answer, or a block's start).
    input: Option<Value>,
}

/// What an answer said so far.
#[derive(Default)]
struct Answer {
    usage: Usage,
    text: String,
    /// By the index the stream gives them.
    calls: Vec<(u64, Call)>,
}

fn u(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

impl Answer {
    fn call(&mut self, index: u64) -> &mut Call {
        if let Some(i) = self.calls.iter().position(|(k, _)| *k == index) {
            return &mut self.calls[i].1;
        }
        self.calls.push((index, Call::default()));
        &mut self.calls.last_mut().expect("just pushed").1
    }

    fn push_call(&mut self, name: &str, input: Value) {
        let index = self.calls.len() as u64 + 1_000_000;
        let call = self.call(index);
        call.name = name.to_string();
        call.input = Some(input);
    }

    fn finish(self, ex: &mut Exchange) {
        ex.usage = self.usage;
        ex.text = self.text;
        ex.tool_calls = self
            .calls
            .into_iter()
            .map(|(_, c)| {
                let input = if c.args.trim().is_empty() {
                    c.input.unwrap_or(Value::Object(Default::default()))
                } else {
                    serde_json::from_str(&c.args).unwrap_or(Value::String(c.args))
                };
                ToolUse {
                    name: c.name,
                    input,
                }
            })
            .collect();
    }

    /// Anthropic's input count plus its cache reads and writes (see `Usage`);
    /// the output count when there is one.
    fn anthropic_usage(&mut self, usage: &Value) {
        if usage.get("input_tokens").is_some() {
            let cached = u(usage, "cache_read_input_tokens");
            self.usage.input =
                u(usage, "input_tokens") + u(usage, "cache_creation_input_tokens") + cached;
            self.usage.cached = cached;
        }
        if usage.get("output_tokens").is_some() {
            self.usage.output = u(usage, "output_tokens");
        }
    }

    /// One Anthropic Messages value: the whole message, or one event.
    fn anthropic(&mut self, v: &Value) {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "message" => {
                v.get("usage").inspect(|usage| self.anthropic_usage(usage));
                for block in v
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.anthropic_block(u64::MAX, block);
                }
            }
            "message_start" => {
                v.pointer("/message/usage")
                    .inspect(|usage| self.anthropic_usage(usage));
            }
            // Its counts are cumulative: the last one is the message's.
            "message_delta" => {
                v.get("usage").inspect(|usage| self.anthropic_usage(usage));
            }
            "content_block_start" => {
                if let Some(block) = v.get("content_block") {
                    self.anthropic_block(u(v, "index"), block);
                }
            }
            "content_block_delta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => self
                        .text
                        .push_str(delta.get("text").and_then(Value::as_str).unwrap_or("")),
                    Some("input_json_delta") => {
                        let piece = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        self.call(u(v, "index")).args.push_str(piece);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// A content block: its text, or a tool call (`u64::MAX`: a whole message's, given whole).
    fn anthropic_block(&mut self, index: u64, block: &Value) {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => self
                .text
                .push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use" | "server_tool_use") => {
                let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                let input = block.get("input").cloned().unwrap_or(Value::Null);
                if index == u64::MAX {
                    self.push_call(name, input);
                } else {
                    let call = self.call(index);
                    call.name = name.to_string();
                    call.input = Some(input);
                }
            }
            _ => {}
        }
    }

    /// One chat completion (whole, or a streamed chunk); choice 0 only.
    fn chat(&mut self, v: &Value) {
        if let Some(usage) = v.get("usage").filter(|u| u.is_object()) {
            self.usage.input = u(usage, "prompt_tokens");
            self.usage.output = u(usage, "completion_tokens");
            self.usage.cached = usage
                .pointer("/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
        }
        let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.iter().find(|c| u(c, "index") == 0))
        else {
            return;
        };
        let Some(message) = choice.get("message").or_else(|| choice.get("delta")) else {
            return;
        };
        match message.get("content") {
            Some(Value::String(s)) => self.text.push_str(s),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .for_each(|t| self.text.push_str(t)),
            _ => {}
        }
        for (i, tc) in message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let call = self.call(tc.get("index").and_then(Value::as_u64).unwrap_or(i as u64));
            let function = tc.get("function").unwrap_or(&Value::Null);
            call.name
                .push_str(function.get("name").and_then(Value::as_str).unwrap_or(""));
            call.args.push_str(
                function
                    .get("arguments")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            );
        }
    }

    /// The Responses API: the response object (whole, or in the stream's
    /// `response.completed`); without one, the items `response.output_item.done` gave.
    fn responses(&mut self, values: &[Value]) {
        let final_response =
            values
                .iter()
                .rev()
                .find_map(|v| match v.get("type").and_then(Value::as_str) {
                    Some(
                        "response.completed"
                        | "response.incomplete"
                        | "response.failed"
                        | "response.done",
                    ) => v.get("response"),
                    None if v.get("object").and_then(Value::as_str) == Some("response") => Some(v),
                    _ => None,
                });
        let items: Vec<&Value> = match final_response {
            Some(r) => {
                if let Some(usage) = r.get("usage").filter(|u| u.is_object()) {
                    self.usage.input = u(usage, "input_tokens");
                    self.usage.output = u(usage, "output_tokens");
                    self.usage.cached = usage
                        .pointer("/input_tokens_details/cached_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                }
                r.get("output")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .collect()
            }
            None => values
                .iter()
                .filter(|v| {
                    v.get("type").and_then(Value::as_str) == Some("response.output_item.done")
                })
                .filter_map(|v| v.get("item"))
                .collect(),
        };
        items.into_iter().for_each(|item| self.responses_item(item));
    }

    fn responses_item(&mut self, item: &Value) {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let parts = item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                parts
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("output_text"))
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .for_each(|t| self.text.push_str(t));
            }
            Some("function_call") => {
                let args = item.get("arguments").and_then(Value::as_str).unwrap_or("");
                let input =
                    serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.to_string()));
                self.push_call(name, input);
            }
            Some("custom_tool_call") => {
                self.push_call(name, item.get("input").cloned().unwrap_or(Value::Null))
            }
            Some("local_shell_call") => self.push_call(
                "local_shell_call",
                item.get("action").cloned().unwrap_or(Value::Null),
            ),
            _ => {}
        }
    }

    /// One Gemini answer (whole, or a streamed piece; a Code Assist
    /// `{response: …}` wrapper is opened): text and function calls of
    /// candidate 0 add up, the last usage counts.
    fn gemini(&mut self, v: &Value) {
        let v = if v.get("candidates").is_none() {
            v.get("response").unwrap_or(v)
        } else {
            v
        };
        if let Some(meta) = v.get("usageMetadata") {
            self.usage.input = u(meta, "promptTokenCount");
            self.usage.output = u(meta, "candidatesTokenCount") + u(meta, "thoughtsTokenCount");
            self.usage.cached = u(meta, "cachedContentTokenCount");
        }
        let parts = v
            .pointer("/candidates/0/content/parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for part in parts {
            if let Some(call) = part.get("functionCall") {
                let name = call.get("name").and_then(Value::as_str).unwrap_or("");
                self.push_call(
                    name,
                    call.get("args")
                        .cloned()
                        .unwrap_or(Value::Object(Default::default())),
                );
            } else if part.get("thought").and_then(Value::as_bool) != Some(true) {
                self.text
                    .push_str(part.get("text").and_then(Value::as_str).unwrap_or(""));
            }
        }
    }
}
