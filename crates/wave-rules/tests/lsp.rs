//! `wave-rules lsp` over real stdio, as an editor talks to it: diagnostics
//! as typed (the codes and messages of `validate`) and cleared when fixed,
//! the whole load's on open and save, quick fixes, hover, completion,
//! definition, symbols, and bad input that never stops the server.

mod common;

use common::{CliTree, Tree};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any one answer may take before the test fails.
const WAIT: Duration = Duration::from_secs(30);

/// An LSP client over the real binary's stdin and stdout.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Notifications that arrived while waiting for something else.
    queue: Vec<Value>,
    next_id: i64,
}

impl Client {
    fn start(t: &Tree) -> Client {
        Client::start_with(t, &[])
    }

    fn start_with(t: &Tree, env: &[(&str, &str)]) -> Client {
        Client::start_args(t, env, &[])
    }

    fn start_args(t: &Tree, env: &[(&str, &str)], args: &[&str]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
            .arg("lsp")
            .args(args)
            .arg("--workdir")
            .arg(t.workdir())
            .arg("--home")
            .arg(t.home())
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(m) = read_frame(&mut r) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        let mut c = Client {
            stdin: child.stdin.take(),
            child,
            messages: rx,
            queue: Vec::new(),
            next_id: 1,
        };
        let root = uri(&t.workdir());
        let init = c.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {}}),
        );
        assert!(
            init["result"]["capabilities"]["hoverProvider"]
                .as_bool()
                .unwrap(),
            "{init}"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (the whole message).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(|m| m["id"] == id)
    }

    fn wait(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.queue.iter().position(&wanted) {
            return self.queue.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(m) if wanted(&m) => return m,
                Ok(m) => self.queue.push(m),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no answer in {WAIT:?}; had {:?}", self.queue)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server's stdout closed; had {:?}", self.queue)
                }
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let m = self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    fn open(&mut self, path: &Path) -> String {
        let u = uri(path);
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "markdown", "version": 1, "text": text}}),
        );
        u
    }

    /// Replaces `range` (`[line, char, line, char]`) with `text`.
    fn edit(&mut self, uri: &str, version: i64, range: [u32; 4], text: &str) {
        let [l0, c0, l1, c1] = range;
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}, "text": text}],
            }),
        );
    }

    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        self.request(
            method,
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
    }

    /// `shutdown`, `exit`, and the exit status.
    fn stop(mut self) -> i32 {
        let r = self.request("shutdown", Value::Null);
        assert!(r.get("error").is_none(), "{r}");
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect()
}

fn range(d: &Value) -> [u64; 4] {
    let r = &d["range"];
    [
        &r["start"]["line"],
        &r["start"]["character"],
        &r["end"]["line"],
        &r["end"]["character"],
    ]
    .map(|v| v.as_u64().unwrap())
}

#[test]
fn a_misspelled_key_is_diagnosed_as_validate_says_on_its_text_and_cleared_when_fixed() {
    let t = Tree::made();
    let file = t.project(
        "ts.md",
        "---\npath: src/**/*.ts\n---\nUse strict TypeScript.\n",
    );
    let validate = common::json(&t.run(&["validate", "--json"]));
    let expected = &validate["diagnostics"][0];
    let mut c = Client::start(&t);
    let u = c.open(&file);
    let found = c.diagnostics(&u);
    assert_eq!(codes(&found), ["misspelled-key"], "{found:?}");
    assert_eq!(found[0]["code"], expected["code"]);
    assert_eq!(found[0]["message"], expected["message"]);
    assert_eq!(found[0]["severity"], 1, "an error");
    assert_eq!(range(&found[0]), [1, 0, 1, 4], "the key itself");
    // One keystroke: `path` becomes `paths`.
    c.edit(&u, 2, [1, 4, 1, 4], "s");
    assert_eq!(c.diagnostics(&u), Vec::<Value>::new(), "cleared once fixed");
    // And broken again, in an unsaved buffer: the text typed is what counts.
    c.edit(&u, 3, [1, 0, 1, 5], "pathz");
    assert_eq!(codes(&c.diagnostics(&u)), ["misspelled-key"]);
    assert_eq!(c.stop(), 0);
}

#[test]
fn a_quick_fix_is_the_diagnostics_own_fix_as_an_edit() {
    let t = Tree::made();
    let wave = t.project("ts.md", "---\npath: src/**/*.ts\n---\nStrict.\n");
    let cursor = t.write(
        t.workdir().join(".cursor/rules/ts.mdc"),
        "---\ndescription: TS\nglobs: \"src/**/*.ts\"\nalwaysApply: false\n---\nStrict.\n",
    );
    let mut c = Client::start(&t);
    let u = c.open(&wave);
    c.diagnostics(&u);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 2}}, "context": {"diagnostics": []}}),
    );
    let action = &actions["result"][0];
    assert_eq!(action["kind"], "quickfix", "{actions}");
    assert_eq!(action["title"], "replace 'path' with 'paths'");
    let edit = &action["edit"]["changes"][&u][0];
    assert_eq!(edit["newText"], "paths");
    assert_eq!(range(edit), [1, 0, 1, 4]);
    // Cursor keeps the quotes of a glob: the fix unquotes it.
    let u = c.open(&cursor);
    assert_eq!(codes(&c.diagnostics(&u)), ["quoted-glob"]);
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 2, "character": 9}, "end": {"line": 2, "character": 9}}, "context": {"diagnostics": []}}),
    );
    let edit = &actions["result"][0]["edit"]["changes"][&u][0];
    assert_eq!(edit["newText"], "src/**/*.ts", "{actions}");
    assert_eq!(range(edit), [2, 7, 2, 20]);
    // Nowhere near a diagnostic: no action.
    let none = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 1}}, "context": {"diagnostics": []}}),
    );
    assert_eq!(none["result"], json!([]));
}

#[test]
fn a_misplaced_files_quick_fix_renames_it() {
    let t = Tree::made();
    let file = t.write(t.workdir().join("Agents.md"), "Be brief.\n");
    let mut c = Client::start_args(&t, &[], &["--sources", "all"]);
    let u = c.open(&file);
    let found = c.diagnostics(&u);
    assert_eq!(codes(&found), ["misplaced"], "{found:?}");
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}}),
    );
    let action = &actions["result"][0];
    assert_eq!(action["title"], "rename to AGENTS.md", "{actions}");
    let rename = &action["edit"]["documentChanges"][0];
    assert_eq!(rename["kind"], "rename");
    assert_eq!(rename["oldUri"], u);
    assert_eq!(rename["newUri"], uri(&t.workdir().join("AGENTS.md")));
}

#[test]
fn the_whole_loads_diagnostics_come_on_open_and_a_rule_matching_no_file_is_said() {
    let t = Tree::made();
    let user = t.user("style.md", "User style.\n");
    t.project("style.md", "Project style.\n");
    let ghost = t.project("ghost.md", "---\npaths: nowhere/**/*.rs\n---\nGhost.\n");
    t.write(t.workdir().join("src/main.ts"), "x");
    let mut c = Client::start(&t);
    let u = c.open(&user);
    assert_eq!(codes(&c.diagnostics(&u)), ["overridden"]);
    let g = c.open(&ghost);
    let found = c.diagnostics(&g);
    assert_eq!(codes(&found), ["no-match"], "{found:?}");
    assert_eq!(range(&found[0])[0], 1, "on the paths line");
    // Saved with a glob that matches: gone.
    std::fs::write(&ghost, "---\npaths: src/**/*.ts\n---\nGhost.\n").unwrap();
    c.edit(&g, 2, [1, 7, 1, 24], "src/**/*.ts");
    c.diagnostics(&g);
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": g}}));
    assert_eq!(c.diagnostics(&g), Vec::<Value>::new());
}

#[test]
fn hover_says_what_a_glob_matches_when_the_rule_fires_and_what_an_import_is() {
    let t = Tree::made();
    let rule = t.project(
        "ts.md",
        "---\npaths: src/**/*.ts\ntopics: [typescript]\n---\nUse strict TypeScript.\n",
    );
    for f in ["src/a.ts", "src/b/c.ts", "docs/x.md"] {
        t.write(t.workdir().join(f), "x");
    }
    let claude = t.write(
        t.workdir().join("CLAUDE.md"),
        "Read @docs/guide.md first.\n",
    );
    t.write(
        t.workdir().join("docs/guide.md"),
        "The guide's first line.\n",
    );
    let mut c = Client::start(&t);
    let u = c.open(&rule);
    c.diagnostics(&u);
    let globs = c.at("textDocument/hover", &u, 1, 3);
    let text = globs["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.starts_with("**2** of "), "{text}");
    assert!(
        text.contains("`src/a.ts`") && text.contains("`src/b/c.ts`"),
        "{text}"
    );
    let fires = c.at("textDocument/hover", &u, 2, 3);
    let text = fires["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("when a word of the prompt starts with `typescript`"),
        "{text}"
    );
    assert!(text.contains("tokens in a rules section"), "{text}");
    assert!(
        text.contains("**after `wave-rules export`**\n- Cursor: `.cursor/rules/ts.mdc`"),
        "{text}"
    );
    assert!(text.contains("- Claude Code: "), "{text}");
    let body = c.at("textDocument/hover", &u, 4, 3);
    assert_eq!(body["result"], Value::Null, "no hover in the body");
    let m = c.open(&claude);
    c.diagnostics(&m);
    let import = c.at("textDocument/hover", &m, 0, 8);
    let text = import["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("The guide's first line."), "{text}");
    let def = c.at("textDocument/definition", &m, 0, 8);
    assert_eq!(
        def["result"]["uri"],
        uri(&t.workdir().join("docs/guide.md")),
        "{def}"
    );
    let nothing = c.at("textDocument/definition", &m, 0, 1);
    assert_eq!(nothing["result"], Value::Null);
}

#[test]
fn completion_offers_the_formats_own_keys_and_their_values() {
    let t = Tree::made();
    let wave = t.project("a.md", "---\npaths: src/**\n\nactivation: \n---\nBody.\n");
    let cursor = t.write(
        t.workdir().join(".cursor/rules/a.mdc"),
        "---\n\n---\nBody.\n",
    );
    let mut c = Client::start(&t);
    let labels = |v: &Value| -> Vec<String> {
        v["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let u = c.open(&wave);
    let keys = labels(&c.at("textDocument/completion", &u, 2, 0));
    assert!(
        keys.contains(&"topics".into()) && keys.contains(&"enforce".into()),
        "{keys:?}"
    );
    assert!(!keys.contains(&"paths".into()), "already written: {keys:?}");
    let values = labels(&c.at("textDocument/completion", &u, 3, 12));
    assert_eq!(values, ["on-request", "manual"]);
    let u = c.open(&cursor);
    let keys = labels(&c.at("textDocument/completion", &u, 1, 0));
    assert_eq!(keys, ["description", "globs", "alwaysApply"]);
}

#[test]
fn a_rules_yaml_file_has_one_symbol_per_rule() {
    let t = Tree::made();
    let file = t.write(
        t.workdir().join(".claude/rules.yaml"),
        "- id: sql\n  topics: [sql]\n  content: No SELECT *.\n- id: git\n  topics: [git]\n  content: Small commits.\n",
    );
    let mut c = Client::start(&t);
    let u = c.open(&file);
    c.diagnostics(&u);
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": u}}),
    );
    let list = symbols["result"].as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["rules-yaml:git", "rules-yaml:sql"], "{symbols}");
    assert_eq!(range(&list[0])[0], 3, "git's id line");
    assert_eq!(range(&list[1])[0], 0, "sql's id line");
}

#[test]
fn a_broken_eval_scenario_shows_its_problem_at_its_line_and_clears_when_fixed_and_the_config_file_gets_the_loads(
) {
    let t = Tree::made();
    let evals = t.write(
        t.workdir().join(".wave/evals/a.yaml"),
        "prompt: p\nexpect:\n  - reply_contains: ok\n  - command_rann: ls\n",
    );
    let config = t.write(t.workdir().join(".wave/config.toml"), "packs = [\n");
    let mut c = Client::start(&t);
    let u = c.open(&evals);
    let found = c.diagnostics(&u);
    assert_eq!(codes(&found), ["invalid-scenario"], "{found:?}");
    assert_eq!(range(&found[0])[0], 3, "the check's line (0-based)");
    assert!(found[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("unknown check 'command_rann'"));
    // Fixed as typed: the check's key spelled right.
    c.edit(&u, 2, [3, 4, 3, 16], "command_ran");
    assert_eq!(c.diagnostics(&u), Vec::<Value>::new());
    let u = c.open(&config);
    assert_eq!(codes(&c.diagnostics(&u)), ["invalid-config"]);
}

#[test]
fn a_rules_broken_evals_show_on_the_rule() {
    let t = Tree::made();
    let rule = t.project("logging.md", "---\nevals:\n  - prompt: p\n    expect:\n      - reply_containz: ok\n---\nLog with logger.debug.\n");
    let mut c = Client::start(&t);
    let u = c.open(&rule);
    let found = c.diagnostics(&u);
    assert_eq!(codes(&found), ["invalid-scenario"], "{found:?}");
    assert_eq!(range(&found[0])[0], 4);
}

#[test]
fn bad_input_gives_a_diagnostic_or_nothing_and_a_panic_answers_only_its_request() {
    let t = Tree::made();
    let huge = t.project("huge.md", &"x".repeat(300 * 1024));
    let binary = t.project(
        "binary.md",
        "---\npaths: \u{0}\u{1}\u{7f}\n---\n\u{fffd}\u{0}\n",
    );
    let invalid = t.project_rules().join("invalid.md");
    std::fs::write(&invalid, b"---\npaths: src/\xff\xfe\n---\nbody\n").unwrap();
    let mut c = Client::start_with(&t, &[("WAVE_RULES_LSP_CRASH_TEST", "1")]);
    let u = c.open(&huge);
    assert_eq!(codes(&c.diagnostics(&u)), ["too-large"]);
    let u = c.open(&binary);
    c.diagnostics(&u);
    let u = c.open(&invalid);
    assert!(codes(&c.diagnostics(&u)).contains(&"not-utf8"));
    // A file rewritten while the server loads it again, many times.
    let writer_path = binary.clone();
    let writer = std::thread::spawn(move || {
        for i in 0..200 {
            let text = if i % 2 == 0 {
                "---\npaths: a/**\n---\nA.\n".to_string()
            } else {
                "x".repeat(i * 97)
            };
            std::fs::write(&writer_path, text).unwrap();
        }
    });
    for _ in 0..20 {
        c.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri(&binary)}}),
        );
    }
    writer.join().unwrap();
    let crash = c.request("wave-rules/crashTest", Value::Null);
    assert_eq!(crash["error"]["code"], -32603, "{crash}");
    let after = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&binary)}}),
    );
    assert!(
        after["result"].is_array(),
        "served after the panic: {after}"
    );
    let unknown = c.request("no/such/method", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    assert_eq!(c.stop(), 0);
}
