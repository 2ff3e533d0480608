//! `wave-rules mcp` over real stdio, line by line: what JSON-RPC 2.0 refuses
//! is answered by the protocol (codes and ids), and the server goes on.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn the_server_answers_bad_messages_as_json_rpc_says_and_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_rules","arguments":"oops"}}"#,
        "this is not json",
        r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
        "[]",
        r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(["mcp", "--home"])
        .arg(tmp.path().join("home"))
        .current_dir(tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for l in lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON on stdout: {l}: {e}")))
        .collect();
    let by_id = |id: Value| {
        answers
            .iter()
            .find(|a| a.get("id") == Some(&id))
            .unwrap_or_else(|| panic!("no answer for {id}: {answers:?}"))
    };
    let code = |a: &Value| a["error"]["code"].as_i64();
    assert!(by_id(json!(1))["result"]["serverInfo"].is_object());
    assert_eq!(
        code(by_id(json!(2))),
        Some(-32602),
        "tools/call with arguments \"oops\""
    );
    let nulls: Vec<i64> = answers
        .iter()
        .filter(|a| a.get("id") == Some(&Value::Null))
        .filter_map(code)
        .collect();
    assert_eq!(nulls, [-32700, -32600, -32600], "{answers:?}");
    let batch = answers
        .iter()
        .find(|a| a.is_array())
        .expect("the batch answered");
    assert_eq!(batch[0]["id"], 3);
    assert_eq!(code(&batch[0]), Some(-32600));
    assert_eq!(code(by_id(json!(4))), Some(-32601));
    assert_eq!(
        by_id(json!(5))["result"],
        json!({}),
        "served after all of it"
    );
}

/// Starts `wave-rules mcp` in a fresh tree with one rule; its stdout lines
/// arrive on the returned channel.
fn server(
    tmp: &std::path::Path,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<Value>,
) {
    std::fs::create_dir_all(tmp.join(".wave/rules")).unwrap();
    std::fs::write(tmp.join(".wave/rules/always.md"), "Always: be brief.\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
        .args(["mcp", "--home"])
        .arg(tmp.join("home"))
        .current_dir(tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout: {line}: {e}"));
            if tx.send(value).is_err() {
                break;
            }
        }
    });
    (child, stdin, rx)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Waits (at most 10 s) for the process to exit; the time it took.
fn exit_time(child: &mut std::process::Child) -> std::time::Duration {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(10) {
        if child.try_wait().unwrap().is_some() {
            return start.elapsed();
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child.kill().unwrap();
    panic!("the server was still running 10 s after stdin closed");
}

#[test]
fn the_server_exits_within_50_ms_of_stdin_closing_after_initialize() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, mut stdin, answers) = server(tmp.path());
    writeln!(stdin, "{INITIALIZE}\n{INITIALIZED}").unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"list_rules","arguments":{{}}}}}}"#
    )
    .unwrap();
    let timeout = std::time::Duration::from_secs(10);
    let first = answers.recv_timeout(timeout).expect("initialize answered");
    assert_eq!(first["id"], 1);
    let second = answers.recv_timeout(timeout).expect("list_rules answered");
    assert_eq!(second["id"], 2);
    // Idle, initialized: the client goes away.
    drop(stdin);
    let took = exit_time(&mut child);
    assert!(child.wait().unwrap().success());
    assert!(
        took < std::time::Duration::from_millis(50),
        "exited {took:?} after stdin closed (at most 50 ms)"
    );
}

#[test]
fn every_answer_written_is_delivered_when_stdin_closes_right_after_the_requests() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, mut stdin, answers) = server(tmp.path());
    let mut text = format!("{INITIALIZE}\n{INITIALIZED}\n");
    let ids: Vec<u64> = (2..202).collect();
    for id in &ids {
        if id % 2 == 0 {
            text.push_str(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"list_rules","arguments":{{}}}}}}"#
            ));
        } else {
            text.push_str(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        }
        text.push('\n');
    }
    // One write, then end of input at once: nothing waits for an answer.
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    exit_time(&mut child);
    assert!(child.wait().unwrap().success());
    let got: Vec<Value> = answers.iter().collect();
    for id in std::iter::once(1).chain(ids.iter().copied()) {
        let answer = got
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer for id {id} ({} answers)", got.len()));
        assert!(answer.get("result").is_some(), "{answer}");
    }
    let list = got.iter().find(|a| a["id"] == 2).unwrap();
    assert!(list.to_string().contains("always.md"), "{list}");
}
