//! JSON-RPC 2.0 strictly, in front of the SDK: every incoming line is
//! checked here before `rmcp` sees it, and the messages the protocol says
//! to refuse are answered here.
//!
//! | incoming line | answer |
//! | --- | --- |
//! | not JSON | `-32700` Parse error, `"id": null` |
//! | JSON that is not a request, notification or response (no `"jsonrpc": "2.0"`, a `method` that is not a string, an `id` that is not a string or a number, `params` that are not an object) | `-32600` Invalid Request, `"id": null` |
//! | a known method with params of the wrong shape (`tools/call` with `"arguments": "oops"`, `resources/read` without `uri`, ...) | `-32602` Invalid params, with the request's id |
//! | a batch (an array) | MCP has had no batches since protocol 2025-06-18: an empty array gets one `-32600`; otherwise an array with one `-32600` per request in it (notifications get nothing), or the per-element answer above for an element that is not a valid request |
//! | a line over [`MAX_MESSAGE_BYTES`] | `-32600`, `"id": null`, the line is dropped unread |
//! | anything else | passed on to the SDK unchanged |
//!
//! The check is pure ([`check`]): the server's stdio pump calls it per line.

use serde_json::{json, Map, Value};

pub use memory_rules::base::limits::MAX_MESSAGE_BYTES;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one incoming line.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Valid: give it to the SDK.
    Pass,
    /// Refused: send this answer (one JSON value, an object or a batch array).
    Answer(Value),
    /// Nothing to do (an empty line, a refused notification).
    Drop,
}

/// The error answer to a message.
pub fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// Checks one incoming line (without its newline).
pub fn check(line: &[u8]) -> Verdict {
    if line.len() > MAX_MESSAGE_BYTES {
        return Verdict::Answer(error(
            Value::Null,
            INVALID_REQUEST,
            format!(
                "Invalid Request: the message is {} bytes, over the limit of {MAX_MESSAGE_BYTES}",
                line.len()
            ),
        ));
    }
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Drop;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Answer(error(Value::Null, PARSE_ERROR, format!("Parse error: {e}")))
        }
    };
    match value {
        Value::Array(items) if items.is_empty() => Verdict::Answer(error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: an empty batch",
        )),
        Value::Array(items) => {
            let answers: Vec<Value> = items
                .iter()
                .filter_map(|item| match check_message(item) {
                    Err(answer) => Some(answer),
                    Ok(MessageKind::Request(id)) => Some(error(
                        id,
                        INVALID_REQUEST,
                        "Invalid Request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send each message on its own line",
                    )),
                    Ok(MessageKind::Notification | MessageKind::Response) => None,
                })
                .collect();
            if answers.is_empty() {
                Verdict::Drop
            } else {
                Verdict::Answer(Value::Array(answers))
            }
        }
        other => match check_message(&other) {
            Ok(_) => Verdict::Pass,
            Err(answer) => Verdict::Answer(answer),
        },
    }
}

/// What a valid JSON-RPC message is: a request (with its id), a
/// notification, or a response to one of the server's own requests.
enum MessageKind {
    Request(Value),
    Notification,
    Response,
}

fn invalid(message: &str) -> Value {
    error(
        Value::Null,
        INVALID_REQUEST,
        format!("Invalid Request: {message}"),
    )
}

/// Checks one message; `Err` is the answer that refuses it.
fn check_message(value: &Value) -> Result<MessageKind, Value> {
    let Value::Object(msg) = value else {
        return Err(invalid("a message must be a JSON object"));
    };
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("\"jsonrpc\" must be \"2.0\""));
    }
    let id = match msg.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        Some(_) => return Err(invalid("\"id\" must be a string or a number")),
    };
    let method = match msg.get("method") {
        Some(Value::String(m)) => m.as_str(),
        Some(_) => return Err(invalid("\"method\" must be a string")),
        None => {
            // A response to one of the server's own requests.
            let answered = msg.contains_key("result") || msg.contains_key("error");
            return if answered && id.is_some() {
                Ok(MessageKind::Response)
            } else {
                Err(invalid(
                    "a message needs a \"method\", or an \"id\" with a \"result\" or an \"error\"",
                ))
            };
        }
    };
    let params = match msg.get("params") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => {
            return match id {
                Some(id) => Err(error(
                    id,
                    INVALID_PARAMS,
                    format!("Invalid params: the params of {method} must be an object"),
                )),
                None => Err(invalid("\"params\" must be an object")),
            }
        }
    };
    let Some(id) = id else {
        return Ok(MessageKind::Notification);
    };
    match check_params(method, params) {
        Ok(()) => Ok(MessageKind::Request(id)),
        Err(problem) => Err(error(
            id,
            INVALID_PARAMS,
            format!("Invalid params for {method}: {problem}"),
        )),
    }
}

/// The shape of the params of the methods this server knows.
fn check_params(method: &str, params: Option<&Map<String, Value>>) -> Result<(), String> {
    let empty = Map::new();
    let p = params.unwrap_or(&empty);
    let need_string = |key: &str| match p.get(key) {
        Some(Value::String(_)) => Ok(()),
        Some(other) => Err(format!("\"{key}\" must be a string, not {}", kind(other))),
        None => Err(format!("\"{key}\" is required")),
    };
    let may_be = |key: &str, want: &str, ok: fn(&Value) -> bool| match p.get(key) {
        None | Some(Value::Null) => Ok(()),
        Some(v) if ok(v) => Ok(()),
        Some(other) => Err(format!("\"{key}\" must be {want}, not {}", kind(other))),
    };
    match method {
        "initialize" => {
            need_string("protocolVersion")?;
            may_be("capabilities", "an object", Value::is_object)?;
            may_be("clientInfo", "an object", Value::is_object)
        }
        "tools/call" => {
            need_string("name")?;
            may_be("arguments", "an object", Value::is_object)
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => need_string("uri"),
        "prompts/get" => {
            need_string("name")?;
            may_be("arguments", "an object", Value::is_object)
        }
        "logging/setLevel" => need_string("level"),
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
            may_be("cursor", "a string", Value::is_string)
        }
        _ => Ok(()),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match check(line.as_bytes()) {
            Verdict::Answer(v) => v,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn code(v: &Value) -> i64 {
        v["error"]["code"].as_i64().unwrap()
    }

    #[test]
    fn valid_messages_pass() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"list_rules"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"no/such/method","params":{}}"#,
        ] {
            assert_eq!(check(line.as_bytes()), Verdict::Pass, "{line}");
        }
        assert_eq!(check(b"  "), Verdict::Drop);
    }

    #[test]
    fn bad_params_on_a_known_method_are_invalid_params_with_the_id() {
        for (line, id) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_rules","arguments":"oops"}}"#,
                json!(7),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{}}"#,
                json!("x"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":[1]}"#,
                json!(8),
            ),
            (
                r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":3}}"#,
                json!(9),
            ),
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"initialize","params":{}}"#,
                json!(10),
            ),
        ] {
            let a = answer(line);
            assert_eq!(code(&a), INVALID_PARAMS, "{line}");
            assert_eq!(a["id"], id, "{line}");
        }
        let a = answer(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_rules","arguments":"oops"}}"#,
        );
        assert!(
            a["error"]["message"]
                .as_str()
                .unwrap()
                .contains("\"arguments\" must be an object, not a string"),
            "{a}"
        );
    }

    #[test]
    fn invalid_requests_carry_a_null_id() {
        for line in [
            r#"{"id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"42"#,
            r#""text""#,
        ] {
            let a = answer(line);
            assert_eq!(code(&a), INVALID_REQUEST, "{line}");
            assert!(
                a.as_object().unwrap().contains_key("id") && a["id"].is_null(),
                "{line}: {a}"
            );
        }
        let a = answer("{not json");
        assert_eq!(code(&a), PARSE_ERROR);
        assert!(a["id"].is_null());
    }

    #[test]
    fn batches_are_refused_as_the_spec_says() {
        let a = answer("[]");
        assert_eq!(code(&a), INVALID_REQUEST);
        assert!(a["id"].is_null());
        let a = answer(
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},1,{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":"oops"}}]"#,
        );
        let items = a.as_array().unwrap();
        assert_eq!(items.len(), 3, "{a}");
        assert_eq!(
            (items[0]["id"].clone(), code(&items[0])),
            (json!(1), INVALID_REQUEST)
        );
        assert_eq!(
            (items[1]["id"].clone(), code(&items[1])),
            (Value::Null, INVALID_REQUEST)
        );
        assert_eq!(
            (items[2]["id"].clone(), code(&items[2])),
            (json!(2), INVALID_PARAMS)
        );
        // Only notifications: nothing to answer.
        assert_eq!(
            check(br#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#),
            Verdict::Drop
        );
    }

    #[test]
    fn an_oversized_message_is_refused_unparsed() {
        let big = vec![b' '; MAX_MESSAGE_BYTES + 1];
        let a = answer(std::str::from_utf8(&big).unwrap());
        assert_eq!(code(&a), INVALID_REQUEST);
    }
}
