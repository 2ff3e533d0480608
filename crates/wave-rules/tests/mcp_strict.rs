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
