//! The recording proxy of `wave-rules eval` (issue 36), over real sockets on
//! 127.0.0.1: a scripted upstream per API (streamed and not), the bytes the
//! agent gets, what is recorded, the errors, the limits, stop(); and the
//! repository's fake model (`__test__/agents/fake-model.mjs`) behind it.
#![cfg(not(target_family = "wasm"))]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use wave_rules::internals::proxy::{Api, Exchange, Proxy, Usage};

/// One answer of the scripted upstream.
struct Scripted {
    /// The status line's code and reason.
    status: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
    /// Extra header lines (`name: value`).
    headers: Vec<String>,
}

fn scripted(content_type: &'static str, body: impl Into<Vec<u8>>) -> Scripted {
    Scripted {
        status: "200 OK",
        content_type,
        body: body.into(),
        headers: Vec::new(),
    }
}

/// A request the scripted upstream received: its head (as text) and body.
struct Received {
    head: String,
    body: Vec<u8>,
}

/// A model on 127.0.0.1 that answers each connection with the next scripted
/// answer (chunked, written in several pieces, then closed); it stops after
/// the last one or after 20 s without a connection. The handle gives what it received.
fn scripted_upstream(answers: Vec<Scripted>) -> (String, JoinHandle<Vec<Received>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let handle = std::thread::spawn(move || {
        let mut received = Vec::new();
        for answer in answers {
            let deadline = Instant::now() + Duration::from_secs(20);
            let mut stream = loop {
                match listener.accept() {
                    Ok((s, _)) => break s,
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(_) => return received,
                }
            };
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let (head, body) = read_message(&mut stream);
            received.push(Received { head, body });
            let mut out = format!("HTTP/1.1 {}\r\ncontent-type: {}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n", answer.status, answer.content_type);
            for h in &answer.headers {
                out.push_str(&format!("{h}\r\n"));
            }
            out.push_str("\r\n");
            stream.write_all(out.as_bytes()).unwrap();
            // In pieces, flushed one by one, as a model streams.
            for piece in answer.body.chunks(answer.body.len().div_ceil(5).max(1)) {
                stream
                    .write_all(format!("{:x}\r\n", piece.len()).as_bytes())
                    .unwrap();
                stream.write_all(piece).unwrap();
                stream.write_all(b"\r\n").unwrap();
                stream.flush().unwrap();
                std::thread::sleep(Duration::from_millis(2));
            }
            stream.write_all(b"0\r\n\r\n").unwrap();
        }
        received
    });
    (url, handle)
}

/// Reads one HTTP message (head, then a Content-Length or chunked body).
fn read_message(stream: &mut impl Read) -> (String, Vec<u8>) {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        assert!(buf.len() < 1 << 20, "a head over 1 MiB");
        if stream.read(&mut byte).unwrap() == 0 {
            break;
        }
        buf.push(byte[0]);
    }
    let head = String::from_utf8(buf).unwrap();
    let lower = head.to_ascii_lowercase();
    let mut body = Vec::new();
    if lower.contains("transfer-encoding: chunked") {
        for _ in 0..1_000_000 {
            let mut line = Vec::new();
            while !line.ends_with(b"\r\n") {
                stream.read_exact(&mut byte).unwrap();
                line.push(byte[0]);
            }
            let size =
                usize::from_str_radix(std::str::from_utf8(&line).unwrap().trim(), 16).unwrap();
            let mut chunk = vec![0u8; size + 2];
            stream.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(len) = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
    {
        body = vec![0u8; len.trim().parse().unwrap()];
        stream.read_exact(&mut body).unwrap();
    }
    (head, body)
}

/// Sends one request to the proxy on a connection of its own and reads the answer.
fn call(proxy: &Proxy, path: &str, body: &Value) -> (u16, String, Vec<u8>) {
    let mut stream = connect(proxy);
    send(&mut stream, path, body);
    let (head, body) = read_message(&mut stream);
    (status_of(&head), head, body)
}

fn connect(proxy: &Proxy) -> TcpStream {
    let stream = TcpStream::connect(proxy.url().trim_start_matches("http://")).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
}

fn send(stream: &mut TcpStream, path: &str, body: &Value) {
    let body = body.to_string();
    let head = format!("POST {path} HTTP/1.1\r\nhost: example\r\ncontent-type: application/json\r\nauthorization: Bearer test-key\r\naccept-encoding: gzip, br\r\ncontent-length: {}\r\n\r\n", body.len());
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
}

fn status_of(head: &str) -> u16 {
    head.split(' ').nth(1).unwrap().parse().unwrap()
}

/// An SSE stream of `(event, data)` pairs, as the APIs write them.
fn sse(events: &[(Option<&str>, Value)]) -> Vec<u8> {
    let mut out = String::new();
    for (event, data) in events {
        if let Some(e) = event {
            out.push_str(&format!("event: {e}\n"));
        }
        out.push_str(&format!("data: {data}\n\n"));
    }
    out.into_bytes()
}

/// Runs one request through a proxy in front of a scripted upstream giving
/// `answer`: checks the agent got the upstream's bytes and returns the one
/// exchange recorded and what the upstream received.
fn through_proxy(
    base_path: &str,
    path: &str,
    request: Value,
    answer: Scripted,
) -> (Exchange, Received) {
    let want = answer.body.clone();
    let (url, upstream) = scripted_upstream(vec![answer]);
    let proxy = Proxy::start(&format!("{url}{base_path}")).unwrap();
    let (status, _, got) = call(&proxy, path, &request);
    assert_eq!(status, 200);
    assert_eq!(got, want, "the agent gets the upstream's bytes unchanged");
    let exchanges = proxy.exchanges();
    proxy.stop();
    let mut received = upstream.join().unwrap();
    assert_eq!((exchanges.len(), received.len()), (1, 1));
    (exchanges.into_iter().next().unwrap(), received.remove(0))
}

const RULE: &str = "RULE-TEXT: never print the user id";

fn anthropic_request(stream: bool) -> Value {
    json!({"model": "m", "stream": stream, "system": [{"type": "text", "text": RULE}],
           "messages": [{"role": "user", "content": "add a debug line"}], "tools": [{"name": "Bash"}]})
}

#[test]
fn anthropic_stream_reaches_the_agent_unchanged_and_its_usage_tool_call_and_text_are_recorded() {
    let body = sse(&[
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "m1", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 10, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 2, "output_tokens": 1}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Removing "}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "the build."}}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"command\": \"rm -rf"}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": " build\", \"description\": \"run\"}"}}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ]);
    let (ex, received) = through_proxy(
        "",
        "/v1/messages",
        anthropic_request(true),
        scripted("text/event-stream", body),
    );
    assert_eq!(
        (
            ex.method.as_str(),
            ex.path.as_str(),
            ex.api,
            ex.status,
            ex.error.as_deref()
        ),
        ("POST", "/v1/messages", Api::Anthropic, Some(200), None)
    );
    assert_eq!(
        ex.usage,
        Usage {
            input: 15,
            output: 7,
            cached: 2
        }
    );
    assert_eq!(ex.text, "Removing the build.");
    assert_eq!(ex.tool_calls.len(), 1);
    assert_eq!(ex.tool_calls[0].name, "Bash");
    assert_eq!(
        ex.tool_calls[0].input,
        json!({"command": "rm -rf build", "description": "run"})
    );
    assert_eq!(
        ex.tool_calls[0].shell_command().as_deref(),
        Some("rm -rf build")
    );
    assert!(
        ex.request_text().contains(RULE),
        "the rule's text is in what reached the model"
    );
    assert!(!ex.request_text().contains("RULE-TEXT: other"));
    // What the upstream got: the path, the key, identity encoding, its own host.
    let head = received.head.to_ascii_lowercase();
    assert!(head.starts_with("post /v1/messages http/1.1\r\n"), "{head}");
    assert!(head.contains("authorization: bearer test-key"), "{head}");
    assert!(
        head.contains("accept-encoding: identity") && !head.contains("gzip"),
        "{head}"
    );
    assert!(!head.contains("host: example"), "{head}");
    assert_eq!(
        serde_json::from_slice::<Value>(&received.body).unwrap(),
        anthropic_request(true)
    );
}

#[test]
fn anthropic_json_answer_is_recorded() {
    let body = json!({"id": "m", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "Done."}, {"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "a.ts"}}],
                      "usage": {"input_tokens": 20, "output_tokens": 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}});
    let (ex, _) = through_proxy(
        "",
        "/v1/messages",
        anthropic_request(false),
        scripted("application/json", body.to_string()),
    );
    assert_eq!(
        ex.usage,
        Usage {
            input: 20,
            output: 4,
            cached: 0
        }
    );
    assert_eq!(ex.text, "Done.");
    assert_eq!(ex.tool_calls[0].name, "Read");
    assert_eq!(ex.tool_calls[0].input, json!({"file_path": "a.ts"}));
    assert_eq!(ex.tool_calls[0].shell_command(), None);
}

fn chat_request(stream: bool) -> Value {
    json!({"model": "m", "stream": stream, "messages": [{"role": "system", "content": RULE}, {"role": "user", "content": "go"}]})
}

#[test]
fn chat_completions_stream_puts_the_pieces_of_each_tool_call_together() {
    let base = json!({"id": "c", "object": "chat.completion.chunk", "model": "m"});
    let chunk = |choices: Value| {
        let mut v = base.clone();
        v["choices"] = choices;
        v
    };
    let mut body = sse(&[
        (
            None,
            chunk(json!([{"index": 0, "delta": {"role": "assistant", "content": "Running "}}])),
        ),
        (
            None,
            chunk(json!([{"index": 0, "delta": {"content": "tests."}}])),
        ),
        (
            None,
            chunk(
                json!([{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "bash", "arguments": ""}}]}}]),
            ),
        ),
        (
            None,
            chunk(
                json!([{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"command\":"}}]}}]),
            ),
        ),
        (
            None,
            chunk(
                json!([{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"npm test\"}"}}]}}]),
            ),
        ),
        (
            None,
            chunk(
                json!([{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_2", "function": {"name": "read", "arguments": "{\"filePath\":\"a\"}"}}]}}]),
            ),
        ),
        (
            None,
            chunk(json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])),
        ),
        (None, {
            let mut v = chunk(json!([]));
            v["usage"] = json!({"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39, "prompt_tokens_details": {"cached_tokens": 12}});
            v
        }),
    ]);
    body.extend_from_slice(b"data: [DONE]\n\n");
    let (ex, received) = through_proxy(
        "/v1",
        "/chat/completions",
        chat_request(true),
        scripted("text/event-stream", body),
    );
    assert!(
        received
            .head
            .starts_with("POST /v1/chat/completions HTTP/1.1\r\n"),
        "the base URL's path comes first: {}",
        received.head
    );
    assert_eq!(
        (ex.api, ex.usage),
        (
            Api::ChatCompletions,
            Usage {
                input: 30,
                output: 9,
                cached: 12
            }
        )
    );
    assert_eq!(ex.text, "Running tests.");
    let names: Vec<&str> = ex.tool_calls.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["bash", "read"]);
    assert_eq!(
        ex.tool_calls[0].shell_command().as_deref(),
        Some("npm test")
    );
    assert_eq!(ex.tool_calls[1].input, json!({"filePath": "a"}));
    assert!(ex.request_text().contains(RULE));
}

#[test]
fn chat_completions_json_answer_is_recorded() {
    let body = json!({"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13}});
    let (ex, _) = through_proxy(
        "/v1",
        "/chat/completions",
        chat_request(false),
        scripted("application/json", body.to_string()),
    );
    assert_eq!(
        ex.usage,
        Usage {
            input: 11,
            output: 2,
            cached: 0
        }
    );
    assert_eq!(ex.tool_calls[0].shell_command().as_deref(), Some("ls"));
    assert_eq!(ex.text, "");
}

#[test]
fn responses_stream_records_function_custom_and_local_shell_calls_from_response_completed() {
    let items = json!([
        {"type": "reasoning", "id": "r", "summary": []},
        {"type": "message", "id": "m", "role": "assistant", "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
        {"type": "function_call", "id": "f", "call_id": "c1", "name": "exec_command", "arguments": "{\"cmd\":\"cat a.txt\"}"},
        {"type": "function_call", "id": "g", "call_id": "c2", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"git status\"]}"},
        {"type": "custom_tool_call", "id": "p", "call_id": "c3", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"},
        {"type": "local_shell_call", "id": "l", "call_id": "c4", "action": {"type": "exec", "command": ["ls", "-la"]}}
    ]);
    let usage = json!({"input_tokens": 100, "output_tokens": 20, "total_tokens": 120, "input_tokens_details": {"cached_tokens": 64}});
    let body = sse(&[
        (
            Some("response.created"),
            json!({"type": "response.created", "response": {"id": "r1", "status": "in_progress", "output": []}}),
        ),
        (
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": items[2]}),
        ),
        (
            Some("response.completed"),
            json!({"type": "response.completed", "response": {"id": "r1", "status": "completed", "output": items, "usage": usage}}),
        ),
    ]);
    let request = json!({"model": "m", "instructions": RULE, "input": [{"role": "user", "content": [{"type": "input_text", "text": "go"}]}], "stream": true});
    let (ex, _) = through_proxy(
        "/v1",
        "/responses",
        request,
        scripted("text/event-stream", body),
    );
    assert_eq!(
        (ex.api, ex.usage),
        (
            Api::Responses,
            Usage {
                input: 100,
                output: 20,
                cached: 64
            }
        )
    );
    assert_eq!(ex.text, "Checking.");
    let commands: Vec<Option<String>> = ex.tool_calls.iter().map(|t| t.shell_command()).collect();
    assert_eq!(
        commands,
        [
            Some("cat a.txt".into()),
            Some("git status".into()),
            None,
            Some("ls -la".into())
        ]
    );
    assert_eq!(ex.tool_calls[2].name, "apply_patch");
    assert_eq!(
        ex.tool_calls[2].input,
        json!("*** Begin Patch\n*** End Patch\n")
    );
    assert!(ex.request_text().contains(RULE));
}

fn gemini_answer(parts: Value, usage: Option<Value>) -> Value {
    let mut v = json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]});
    if let Some(u) = usage {
        v["usageMetadata"] = u;
    }
    v
}

#[test]
fn gemini_stream_and_json_answers_are_recorded() {
    let request = json!({"systemInstruction": {"parts": [{"text": RULE}]}, "contents": [{"role": "user", "parts": [{"text": "go"}]}]});
    let body = sse(&[
        (
            None,
            gemini_answer(
                json!([{"text": "thinking", "thought": true}, {"text": "Let me "}]),
                None,
            ),
        ),
        (
            None,
            gemini_answer(
                json!([{"text": "look."}, {"functionCall": {"name": "run_shell_command", "args": {"command": "ls src"}}}]),
                Some(
                    json!({"promptTokenCount": 40, "candidatesTokenCount": 6, "thoughtsTokenCount": 4, "cachedContentTokenCount": 8}),
                ),
            ),
        ),
    ]);
    let path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    let (ex, received) = through_proxy(
        "",
        path,
        request.clone(),
        scripted("text/event-stream", body),
    );
    assert!(
        received.head.starts_with(&format!("POST {path} HTTP/1.1")),
        "the query is kept: {}",
        received.head
    );
    assert_eq!(
        (ex.api, ex.usage),
        (
            Api::Gemini,
            Usage {
                input: 40,
                output: 10,
                cached: 8
            }
        )
    );
    assert_eq!(ex.text, "Let me look.");
    assert_eq!(ex.tool_calls[0].shell_command().as_deref(), Some("ls src"));

    let json_body = gemini_answer(
        json!([{"text": "Done."}]),
        Some(json!({"promptTokenCount": 12, "candidatesTokenCount": 2})),
    );
    let (ex, _) = through_proxy(
        "",
        "/v1beta/models/g:generateContent",
        request,
        scripted("application/json", json_body.to_string()),
    );
    assert_eq!(
        (ex.api, ex.usage, ex.text.as_str()),
        (
            Api::Gemini,
            Usage {
                input: 12,
                output: 2,
                cached: 0
            },
            "Done."
        )
    );
    assert!(ex.tool_calls.is_empty());
}

#[test]
fn a_gzip_answer_reaches_the_agent_as_sent_and_is_read_inflated() {
    let plain = json!({"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "zipped"}}], "usage": {"prompt_tokens": 5, "completion_tokens": 1}});
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(plain.to_string().as_bytes()).unwrap();
    let mut answer = scripted("application/json", gz.finish().unwrap());
    answer.headers.push("content-encoding: gzip".into());
    let (ex, _) = through_proxy("", "/chat/completions", chat_request(false), answer);
    assert_eq!(
        (ex.usage.input, ex.usage.output, ex.text.as_str()),
        (5, 1, "zipped")
    );
}

/// A URL on 127.0.0.1 where nothing listens (a port just freed).
fn refused_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    url
}

#[test]
fn an_upstream_that_refuses_gives_the_agent_a_502_and_an_exchange_naming_the_url() {
    let url = refused_url();
    let proxy = Proxy::start(&url).unwrap();
    let (status, _, body) = call(&proxy, "/messages", &anthropic_request(false));
    assert_eq!(status, 502);
    let message = serde_json::from_slice::<Value>(&body).unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    let exchanges = proxy.exchanges();
    proxy.stop();
    assert_eq!(exchanges.len(), 1);
    let ex = &exchanges[0];
    assert_eq!(ex.status, None);
    let error = ex.error.as_deref().unwrap();
    assert!(
        error.contains(&format!("cannot reach {url}/messages")),
        "{error}"
    );
    assert_eq!(message, error, "the agent reads the same message");
    assert!(
        ex.request_text().contains(RULE),
        "what was sent is still recorded"
    );
}

#[test]
fn a_request_body_over_the_limit_is_refused_with_413_recorded_and_not_sent() {
    let (url, upstream) = scripted_upstream(vec![]);
    let proxy = Proxy::start(&url).unwrap();
    let mut stream = connect(&proxy);
    let over = memory_rules::base::limits::MAX_PROXY_REQUEST_BYTES + 1;
    let head = format!("POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {over}\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&[b' '; 4096]).unwrap();
    let (head, body) = read_message(&mut stream);
    assert_eq!(status_of(&head), 413);
    assert!(String::from_utf8_lossy(&body).contains("MAX_PROXY_REQUEST_BYTES"));
    let exchanges = proxy.exchanges();
    proxy.stop();
    assert_eq!(exchanges.len(), 1);
    let error = exchanges[0].error.as_deref().unwrap();
    assert!(
        error.contains(&format!("{over} bytes")) && error.contains(&url),
        "{error}"
    );
    assert_eq!(exchanges[0].status, None);
    assert!(
        upstream.join().unwrap().is_empty(),
        "nothing reached the upstream"
    );
}

#[test]
fn a_base_url_that_is_not_http_is_a_clear_error() {
    for url in ["ftp://h/v1", "localhost:11434", "http:///v1"] {
        let err = Proxy::start(url)
            .err()
            .unwrap_or_else(|| panic!("{url} was taken"));
        assert!(err.to_string().contains(url), "{err}");
    }
}

/// Names of this process's threads (Linux: /proc/self/task/*/comm).
fn thread_names() -> Vec<String> {
    let tasks = std::fs::read_dir("/proc/self/task").unwrap();
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|s| s.trim().to_string())
        .collect()
}

#[test]
#[cfg(target_os = "linux")]
fn stop_returns_and_leaves_no_proxy_thread_running() {
    let (url, upstream) = scripted_upstream(vec![scripted("application/json", "{}")]);
    let proxy = Proxy::start(&url).unwrap();
    let port = proxy.url().rsplit(':').next().unwrap().to_string();
    let ours = |names: &[String]| {
        names
            .iter()
            .filter(|n| n.starts_with(&format!("evp{port}")))
            .cloned()
            .collect::<Vec<_>>()
    };
    // A keep-alive connection left open after its answer, and an idle one.
    let mut kept = connect(&proxy);
    send(&mut kept, "/v1/messages", &anthropic_request(false));
    let (head, _) = read_message(&mut kept);
    assert_eq!(status_of(&head), 200);
    let _idle = connect(&proxy);
    let deadline = Instant::now() + Duration::from_secs(10);
    while ours(&thread_names()).len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        ours(&thread_names()).len(),
        3,
        "the accepting thread and two connections: {:?}",
        thread_names()
    );
    proxy.stop();
    assert_eq!(ours(&thread_names()), Vec::<String>::new());
    upstream.join().unwrap();
}

#[test]
fn two_requests_on_one_connection_are_both_answered_and_recorded_in_order() {
    let answers = ["first", "second"].map(|t| {
        scripted(
            "application/json",
            json!({"choices": [{"index": 0, "message": {"content": t}}]}).to_string(),
        )
    });
    let (url, upstream) = scripted_upstream(answers.into_iter().collect());
    let proxy = Proxy::start(&url).unwrap();
    let mut stream = connect(&proxy);
    for _ in 0..2 {
        send(&mut stream, "/chat/completions", &chat_request(false));
        assert_eq!(status_of(&read_message(&mut stream).0), 200);
    }
    let texts: Vec<String> = proxy.exchanges().into_iter().map(|e| e.text).collect();
    proxy.stop();
    assert_eq!(texts, ["first", "second"]);
    assert_eq!(upstream.join().unwrap().len(), 2);
}

/// The repository root (two levels above this crate).
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .parent()
        .unwrap()
}

/// Starts the repository's fake model in Node; it prints its URL and stops
/// when its standard input closes. None (with one line) without Node.
fn fake_model() -> Option<(std::process::Child, String)> {
    let module = repo().join("__test__/agents/fake-model.mjs");
    let script = format!(
        "import {{ startFakeModel }} from {:?}; const m = await startFakeModel({{ workdir: process.cwd() }}); console.log(m.url); process.stdin.on('end', async () => {{ await m.close(); process.exit(0) }}); process.stdin.resume()",
        format!("file://{}", module.display())
    );
    let child = Command::new("node")
        .args(["--input-type=module", "-e", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("skipped: node is not installed");
        return None;
    };
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.starts_with("http://127.0.0.1:"),
        "the fake model printed {line:?}"
    );
    Some((child, line.trim().to_string()))
}

fn b64url(text: &str) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

#[test]
fn the_repositorys_fake_model_behind_the_proxy_is_read_in_all_four_apis() {
    let Some((mut node, url)) = fake_model() else {
        return;
    };
    let proxy = Proxy::start(&url).unwrap();
    let prompt = format!("{RULE} SH:{}", b64url("echo hi > out.txt"));
    let user = json!([{"role": "user", "content": prompt}]);
    let requests = [
        (
            "/v1/messages",
            json!({"model": "m", "stream": true, "messages": user, "tools": [{"name": "Bash"}]}),
        ),
        (
            "/v1/messages",
            json!({"model": "m", "stream": false, "messages": user, "tools": [{"name": "Bash"}]}),
        ),
        (
            "/v1/chat/completions",
            json!({"model": "m", "stream": true, "messages": user, "tools": [{"type": "function", "function": {"name": "bash"}}]}),
        ),
        (
            "/v1/chat/completions",
            json!({"model": "m", "messages": user, "tools": [{"type": "function", "function": {"name": "bash"}}]}),
        ),
        (
            "/v1/responses",
            json!({"model": "m", "stream": true, "input": user, "tools": [{"type": "function", "name": "exec_command"}]}),
        ),
        (
            "/v1beta/models/g:streamGenerateContent?alt=sse",
            json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}], "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]}),
        ),
        (
            "/v1beta/models/g:generateContent",
            json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}], "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]}),
        ),
        (
            "/v1/messages/count_tokens",
            json!({"model": "m", "messages": user}),
        ),
    ];
    for (path, body) in &requests {
        let (status, _, _) = call(&proxy, path, body);
        assert_eq!(status, 200, "{path}");
    }
    let exchanges = proxy.exchanges();
    proxy.stop();
    drop(node.stdin.take());
    let _ = node.wait();
    assert_eq!(exchanges.len(), requests.len());
    let (models, other) = exchanges.split_at(requests.len() - 1);
    for ex in models {
        assert_ne!(ex.api, Api::Other, "{}", ex.path);
        assert_eq!(ex.tool_calls.len(), 1, "{}: {:?}", ex.path, ex.tool_calls);
        assert_eq!(
            ex.tool_calls[0].shell_command().as_deref(),
            Some("echo hi > out.txt"),
            "{}",
            ex.path
        );
        // The fake model reports 10 in (Anthropic: and no cache) and 5 out.
        assert_eq!((ex.usage.input, ex.usage.output), (10, 5), "{}", ex.path);
        assert!(ex.request_text().contains(RULE), "{}", ex.path);
    }
    assert_eq!(
        (other[0].api, other[0].usage),
        (Api::Other, Usage::default()),
        "token counting is no usage"
    );
}

#[test]
fn each_piece_of_a_stream_reaches_the_agent_before_the_model_sends_the_next() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (got_first, wait_first) = std::sync::mpsc::channel::<()>();
    let first = sse(&[(
        Some("message_start"),
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 3}}}),
    )]);
    let rest = sse(&[(
        Some("message_delta"),
        json!({"type": "message_delta", "usage": {"output_tokens": 2}}),
    )]);
    let (first_sent, rest_sent) = (first.clone(), rest.clone());
    let model = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        read_message(&mut stream);
        stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n").unwrap();
        stream
            .write_all(format!("{:x}\r\n", first_sent.len()).as_bytes())
            .unwrap();
        stream.write_all(&first_sent).unwrap();
        stream.write_all(b"\r\n").unwrap();
        // The rest only once the agent has the first event (or after 10 s: then the test fails).
        let streamed = wait_first.recv_timeout(Duration::from_secs(10)).is_ok();
        stream
            .write_all(format!("{:x}\r\n", rest_sent.len()).as_bytes())
            .unwrap();
        stream.write_all(&rest_sent).unwrap();
        stream.write_all(b"\r\n0\r\n\r\n").unwrap();
        streamed
    });
    let proxy = Proxy::start(&url).unwrap();
    let mut client = connect(&proxy);
    send(&mut client, "/v1/messages", &anthropic_request(true));
    // The head, then the first chunk's size line and data.
    let mut reader = BufReader::new(client);
    let mut line = String::new();
    for _ in 0..100 {
        line.clear();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
    }
    line.clear();
    reader.read_line(&mut line).unwrap();
    let mut piece = vec![0u8; usize::from_str_radix(line.trim(), 16).unwrap() + 2];
    reader.read_exact(&mut piece).unwrap();
    assert_eq!(
        piece[..piece.len() - 2],
        first,
        "the first event arrived on its own"
    );
    got_first.send(()).unwrap();
    // The rest of the chunked body, to its last (empty) chunk.
    for _ in 0..100 {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let size = usize::from_str_radix(line.trim(), 16).unwrap();
        let mut chunk = vec![0u8; size + 2];
        reader.read_exact(&mut chunk).unwrap();
        if size == 0 {
            break;
        }
    }
    assert!(
        model.join().unwrap(),
        "the model sent the rest only after the agent had the first event"
    );
    assert_eq!(
        proxy.exchanges()[0].usage,
        Usage {
            input: 3,
            output: 2,
            cached: 0
        }
    );
    proxy.stop();
}

#[test]
fn a_connection_past_the_limit_is_answered_503() {
    let proxy = Proxy::start(&refused_url()).unwrap();
    let limit = memory_rules::base::limits::MAX_PROXY_CONNECTIONS;
    let open: Vec<TcpStream> = (0..limit).map(|_| connect(&proxy)).collect();
    let (status, _, body) = call(&proxy, "/v1/messages", &anthropic_request(false));
    assert_eq!(status, 503);
    assert!(String::from_utf8_lossy(&body).contains(&format!("at most {limit} connections")));
    drop(open);
    proxy.stop();
}

/// The command every real agent is told to run through its shell tool.
const AGENT_COMMAND: &str = "echo proxied > proxied.txt";

/// Runs a real agent headless (`program args`, in a temp project with a temp
/// HOME and only `env` besides PATH) pointed at a proxy in front of the fake
/// model; `agent(work, home, proxy_url)` gives the program, its arguments
/// and environment. Checks the agent ran the command and the proxy recorded
/// it; returns the exchanges. None (with one line) when the agent or Node is
/// not installed.
fn real_agent(
    name: &str,
    program: &Path,
    agent: impl FnOnce(&Path, &Path, &str) -> (Vec<String>, Vec<(String, String)>),
) -> Option<Vec<Exchange>> {
    if !program.exists() {
        eprintln!("skipped: {name} is not installed ({})", program.display());
        return None;
    }
    let (mut node, url) = fake_model()?;
    let proxy = Proxy::start(&url).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, home) = (dir.path().join("work"), dir.path().join("home"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let (args, env) = agent(&work, &home, &proxy.url());
    let mut child = Command::new(program)
        .args(&args)
        .current_dir(&work)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("LANG", "C.UTF-8")
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let exchanges = proxy.exchanges();
    proxy.stop();
    drop(node.stdin.take());
    let _ = node.wait();
    assert!(
        status.is_some_and(|s| s.success()),
        "{name} ended with {status:?}"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("proxied.txt")).unwrap_or_default(),
        "proxied\n",
        "{name} ran the command"
    );
    let commands: Vec<String> = exchanges
        .iter()
        .flat_map(|e| e.tool_calls.iter().filter_map(|t| t.shell_command()))
        .collect();
    assert_eq!(
        commands,
        [AGENT_COMMAND],
        "{name}: the shell commands the proxy saw"
    );
    assert!(
        exchanges
            .iter()
            .all(|e| e.error.is_none() && e.status.is_some()),
        "{name}: {exchanges:#?}"
    );
    Some(exchanges)
}

fn node_modules(rel: &str) -> std::path::PathBuf {
    repo().join("node_modules").join(rel)
}

fn agent_prompt() -> String {
    format!("Run the command. SH:{}", b64url(AGENT_COMMAND))
}

/// The model's answers with tools: their usage is the fake model's (10 in, 5 out).
fn assert_model_usage(exchanges: &[Exchange], api: Api) {
    let answers: Vec<&Exchange> = exchanges
        .iter()
        .filter(|e| e.api == api && !e.tool_calls.is_empty())
        .collect();
    assert!(!answers.is_empty(), "{api:?}: {exchanges:#?}");
    assert!(
        answers
            .iter()
            .all(|e| (e.usage.input, e.usage.output) == (10, 5)),
        "{answers:#?}"
    );
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn claude_code_through_the_proxy_runs_the_command_the_proxy_records() {
    let program = node_modules("@anthropic-ai/claude-code-linux-x64/claude");
    let Some(exchanges) = real_agent("Claude Code", &program, |_, _, url| {
        let args = [
            "-p",
            &agent_prompt(),
            "--model",
            "claude-sonnet-4-5",
            "--output-format",
            "json",
            "--permission-mode",
            "bypassPermissions",
        ];
        let env = [
            ("ANTHROPIC_BASE_URL", url),
            ("ANTHROPIC_API_KEY", "sk-ant-dummy"),
            ("DISABLE_TELEMETRY", "1"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("DISABLE_AUTOUPDATER", "1"),
            ("IS_SANDBOX", "1"),
        ];
        (
            args.map(String::from).to_vec(),
            env.map(|(k, v)| (k.to_string(), v.to_string())).to_vec(),
        )
    }) else {
        return;
    };
    assert_model_usage(&exchanges, Api::Anthropic);
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn codex_through_the_proxy_runs_the_command_the_proxy_records() {
    let program =
        node_modules("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");
    let Some(exchanges) = real_agent("Codex", &program, |_, home, url| {
        let codex_home = home.join(".codex");
        std::fs::create_dir_all(&codex_home).unwrap();
        let provider = format!(
            "model_providers.fake={{name=\"fake\",base_url=\"{url}/v1\",wire_api=\"responses\"}}"
        );
        let args = [
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "-c",
            "model_provider=fake",
            "-c",
            &provider,
            "-m",
            "fake-model",
            &agent_prompt(),
        ];
        (
            args.map(String::from).to_vec(),
            vec![("CODEX_HOME".to_string(), codex_home.display().to_string())],
        )
    }) else {
        return;
    };
    assert_model_usage(&exchanges, Api::Responses);
}

#[test]
#[cfg(target_os = "linux")]
fn gemini_cli_through_the_proxy_runs_the_command_the_proxy_records() {
    let script = node_modules("@google/gemini-cli/bundle/gemini.js");
    let node = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("node"))
            .find(|n| n.exists())
    });
    let Some(node) = node else {
        return eprintln!("skipped: node is not installed");
    };
    if !script.exists() {
        return eprintln!("skipped: Gemini CLI is not installed");
    }
    let Some(exchanges) = real_agent("Gemini CLI", &node, |_, home, url| {
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(
            home.join(".gemini/settings.json"),
            r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
        )
        .unwrap();
        let args = [
            script.display().to_string(),
            "-m".into(),
            "gemini-2.5-pro".into(),
            "--yolo".into(),
            "-p".into(),
            agent_prompt(),
        ];
        let env = [
            ("GEMINI_API_KEY", "dummy-key"),
            ("GOOGLE_GEMINI_BASE_URL", url),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
            ("GEMINI_TELEMETRY_ENABLED", "false"),
            ("NO_BROWSER", "true"),
        ];
        (
            args.to_vec(),
            env.map(|(k, v)| (k.to_string(), v.to_string())).to_vec(),
        )
    }) else {
        return;
    };
    assert_model_usage(&exchanges, Api::Gemini);
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn copilot_cli_through_the_proxy_runs_the_command_the_proxy_records() {
    let program = node_modules("@github/copilot-linux-x64/copilot");
    let Some(exchanges) = real_agent("Copilot CLI", &program, |work, home, url| {
        std::fs::create_dir_all(home.join(".copilot")).unwrap();
        std::fs::write(
            home.join(".copilot/config.json"),
            json!({"trusted_folders": [work]}).to_string(),
        )
        .unwrap();
        let args = ["-p", &agent_prompt(), "--allow-all-tools"];
        let env = [
            ("COPILOT_OFFLINE", "true".to_string()),
            ("COPILOT_PROVIDER_BASE_URL", format!("{url}/v1")),
            ("COPILOT_MODEL", "gpt-4.1".to_string()),
        ];
        (
            args.map(String::from).to_vec(),
            env.map(|(k, v)| (k.to_string(), v)).to_vec(),
        )
    }) else {
        return;
    };
    assert_model_usage(&exchanges, Api::ChatCompletions);
}

#[test]
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn opencode_through_the_proxy_runs_the_command_the_proxy_records() {
    let program = node_modules("opencode-linux-x64/bin/opencode");
    let Some(exchanges) = real_agent("opencode", &program, |work, _, url| {
        let provider = json!({"npm": "@ai-sdk/openai-compatible", "name": "Fake", "options": {"baseURL": format!("{url}/v1"), "apiKey": "dummy"}, "models": {"fake-model": {"name": "Fake model"}}});
        let config = json!({"provider": {"fake": provider}, "model": "fake/fake-model", "small_model": "fake/fake-model"});
        std::fs::write(work.join("opencode.json"), config.to_string()).unwrap();
        let args = ["run", &agent_prompt(), "--model", "fake/fake-model"];
        let env = [
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
            ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
        ];
        (
            args.map(String::from).to_vec(),
            env.map(|(k, v)| (k.to_string(), v.to_string())).to_vec(),
        )
    }) else {
        return;
    };
    assert_model_usage(&exchanges, Api::ChatCompletions);
}

/// A listener that counts the connections it gets in `secs` seconds.
fn trap(secs: u64) -> (String, JoinHandle<usize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    listener.set_nonblocking(true).unwrap();
    let handle = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(secs);
        let mut count = 0;
        while Instant::now() < deadline {
            match listener.accept() {
                Ok(_) => count += 1,
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        count
    });
    (addr, handle)
}

#[test]
fn a_redirect_reaches_the_agent_as_it_came_and_is_not_followed() {
    let (elsewhere, trap) = trap(2);
    let mut answer = scripted("application/json", "{}");
    answer.status = "302 Found";
    answer
        .headers
        .push(format!("location: http://{elsewhere}/v1/messages"));
    let (url, upstream) = scripted_upstream(vec![answer]);
    let proxy = Proxy::start(&url).unwrap();
    let (status, head, _) = call(&proxy, "/v1/messages", &anthropic_request(false));
    assert_eq!(status, 302);
    assert!(
        head.to_ascii_lowercase()
            .contains(&format!("location: http://{elsewhere}/v1/messages")),
        "{head}"
    );
    assert_eq!(proxy.exchanges()[0].status, Some(302));
    proxy.stop();
    upstream.join().unwrap();
    assert_eq!(
        trap.join().unwrap(),
        0,
        "nothing went to the redirect's host"
    );
}

/// Run by `the_proxy_variables_of_the_environment_are_not_used` in a child
/// process whose environment names a proxy.
#[test]
#[ignore = "run in a child process with HTTP_PROXY set"]
fn child_with_proxy_variables_reaches_the_upstream_directly() {
    let Ok(trap_addr) = std::env::var("EVAL_PROXY_TEST_TRAP") else {
        return;
    };
    assert!(std::env::var("HTTP_PROXY").unwrap().contains(&trap_addr));
    let (url, upstream) = scripted_upstream(vec![scripted("application/json", "{}")]);
    let proxy = Proxy::start(&url.replace("127.0.0.1", "localhost")).unwrap();
    let (status, _, _) = call(&proxy, "/v1/messages", &anthropic_request(false));
    proxy.stop();
    assert_eq!(status, 200);
    assert_eq!(upstream.join().unwrap().len(), 1);
}

#[test]
fn the_proxy_variables_of_the_environment_are_not_used() {
    let (trap_addr, trap) = trap(5);
    let proxy_url = format!("http://{trap_addr}");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_with_proxy_variables_reaches_the_upstream_directly",
            "--ignored",
            "--test-threads=1",
        ])
        .env("EVAL_PROXY_TEST_TRAP", &trap_addr)
        .envs(
            [
                "HTTP_PROXY",
                "HTTPS_PROXY",
                "ALL_PROXY",
                "http_proxy",
                "https_proxy",
                "all_proxy",
            ]
            .map(|k| (k, proxy_url.as_str())),
        )
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        trap.join().unwrap(),
        0,
        "nothing went to the environment's proxy"
    );
}

#[test]
fn an_answer_over_the_recorded_limit_reaches_the_agent_whole_and_is_marked_truncated() {
    let limit = memory_rules::base::limits::MAX_PROXY_RECORDED_BYTES;
    let text = "x".repeat(limit);
    let body = json!({"choices": [{"index": 0, "message": {"content": text}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).to_string();
    assert!(body.len() > limit);
    let (ex, _) = through_proxy(
        "",
        "/chat/completions",
        chat_request(false),
        scripted("application/json", body),
    );
    assert!(ex.truncated);
    assert_eq!((ex.status, ex.error.as_deref()), (Some(200), None));
    let (short, _) = through_proxy(
        "",
        "/chat/completions",
        chat_request(false),
        scripted("application/json", json!({"choices": []}).to_string()),
    );
    assert!(!short.truncated);
}

/// A model that accepts, reads the request, sends `first` (raw bytes, maybe
/// none) and then says nothing more for 30 s; it tells `accepted` once the
/// request is in.
fn silent_model(first: &'static [u8]) -> (String, std::sync::mpsc::Receiver<()>, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (accepted, wait) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        read_message(&mut stream);
        stream.write_all(first).unwrap();
        let _ = accepted.send(());
        // Until the proxy closes its side (or 30 s).
        let _ = stream.read(&mut [0u8; 1]);
    });
    (url, wait, handle)
}

#[test]
#[cfg(target_os = "linux")]
fn stop_interrupts_requests_still_waiting_on_the_model_and_leaves_no_thread() {
    let head_only: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5\r\ndata:\r\n";
    for first in [&b""[..], head_only] {
        let (url, accepted, model) = silent_model(first);
        let proxy = Proxy::start(&url).unwrap();
        let port = proxy.url().rsplit(':').next().unwrap().to_string();
        let mut client = connect(&proxy);
        send(&mut client, "/v1/messages", &anthropic_request(true));
        accepted.recv_timeout(Duration::from_secs(10)).unwrap();
        proxy.stop();
        let left: Vec<String> = thread_names()
            .into_iter()
            .filter(|n| n.starts_with(&format!("evp{port}")))
            .collect();
        assert_eq!(
            left,
            Vec::<String>::new(),
            "a thread waiting on the model outlived stop"
        );
        model.join().unwrap();
    }
}
