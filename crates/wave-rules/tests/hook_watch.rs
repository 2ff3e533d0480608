//! The hooks' watcher (`hook/watch.rs`): the real binary starts it in a
//! project of many rules, it vouches only while no input changed, and a
//! hook after an edit gives the edited rule.
#![cfg(target_os = "linux")]

mod common;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A project of `n` topic rules (`kw<i>`), as old as in a working repository.
fn project(root: &Path, n: usize) -> PathBuf {
    let work = root.join("work");
    let rules = work.join(".wave/rules");
    std::fs::create_dir_all(&rules).unwrap();
    let old = SystemTime::now() - Duration::from_secs(3600);
    for i in 0..n {
        let path = rules.join(format!("r{i:03}.md"));
        std::fs::write(
            &path,
            format!("---\ntopics: [kw{i}]\n---\nRule {i}: first line.\n"),
        )
        .unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    std::fs::File::open(&rules)
        .unwrap()
        .set_modified(old)
        .unwrap();
    work
}

fn prompt(work: &Path, state: &Path, session: &str, text: &str) -> String {
    let input = serde_json::json!({ "session_id": session, "cwd": work, "prompt": text });
    let (out, err, code) = common::hook_run(
        work,
        state,
        &["hook", "UserPromptSubmit"],
        input.to_string().as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    out
}

/// The watcher's socket, once it listens (bounded: 10 s).
fn socket(state: &Path) -> Option<PathBuf> {
    for _ in 0..200 {
        let found = std::fs::read_dir(state.join("rules"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "sock"));
        if found.is_some() {
            return found;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// Whether the watcher vouches that nothing changed (after a change it
/// answers no, or has ended already).
fn vouches(socket: &Path) -> bool {
    ask(socket) == Some(true)
}

/// The question a hook asks about the save in `cache` (hook/watch.rs
/// `question`: the length, then the first 256 bytes, zero-padded).
fn question(cache: &Path) -> Vec<u8> {
    let bytes = std::fs::read(cache).unwrap_or_default();
    let mut q = (bytes.len() as u64).to_le_bytes().to_vec();
    q.extend(bytes.iter().take(256));
    q.resize(8 + 256, 0);
    q
}

fn ask(socket: &Path) -> Option<bool> {
    ask_about(socket, &question(&socket.with_extension("json")))
}

fn ask_about(socket: &Path, question: &[u8]) -> Option<bool> {
    let mut stream = UnixStream::connect(socket).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.write_all(question).ok()?;
    let mut answer = [0u8; 1];
    stream.read_exact(&mut answer).ok()?;
    Some(answer[0] == b'1')
}

/// A project of 300 rules with a watcher of its hooks' saved discovery.
fn watched(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let work = project(root, 300);
    let state = root.join("state");
    // The first hook discovers and saves, the second finds the save fresh
    // by the stats and starts the watcher.
    prompt(&work, &state, "a", "kw7");
    prompt(&work, &state, "b", "kw7");
    let socket = socket(&state).expect("a watcher listens");
    // The socket's file is there from `bind`, a moment before `listen`:
    // a question in between is refused (bounded: 1 s).
    let listening = (0..20).any(|_| {
        let answer = ask(&socket);
        if answer.is_none() {
            std::thread::sleep(Duration::from_millis(50));
        }
        answer == Some(true)
    });
    assert!(listening, "nothing changed");
    (work, state, socket)
}

#[test]
fn a_watcher_vouches_until_a_rule_is_edited_in_place_and_the_next_hook_gives_the_edit() {
    let tmp = tempfile::tempdir().unwrap();
    let (work, state, socket) = watched(tmp.path());
    assert!(prompt(&work, &state, "c", "kw7").contains("Rule 7: first line."));
    // A question about another save (a hook that read an older one) is
    // told no, and the watcher goes on.
    let mut other = question(&socket.with_extension("json"));
    other[0] ^= 1;
    assert_eq!(ask_about(&socket, &other), Some(false));
    assert!(vouches(&socket), "still watching");
    // Written in place: same file, same length, no rename.
    let mut file = std::fs::File::options()
        .write(true)
        .open(work.join(".wave/rules/r007.md"))
        .unwrap();
    file.write_all(b"---\ntopics: [kw7]\n---\nRule 7: FIRST line.\n")
        .unwrap();
    drop(file);
    assert!(!vouches(&socket), "an input changed");
    assert!(prompt(&work, &state, "d", "kw7").contains("Rule 7: FIRST line."));
}

#[test]
fn a_watcher_ignores_files_that_are_no_input_but_not_a_rule_added() {
    let tmp = tempfile::tempdir().unwrap();
    let (work, state, socket) = watched(tmp.path());
    std::fs::write(work.join("notes.txt"), "not a rule").unwrap();
    std::fs::write(state.join("other.json"), "{}").unwrap();
    assert!(vouches(&socket), "no input changed");
    std::fs::write(
        work.join(".wave/rules/new.md"),
        "---\ntopics: [kw7]\n---\nA new rule.\n",
    )
    .unwrap();
    assert!(!vouches(&socket), "a listed folder changed");
    assert!(prompt(&work, &state, "e", "kw7").contains("A new rule."));
}

#[test]
fn a_project_of_few_rules_starts_no_watcher() {
    let tmp = tempfile::tempdir().unwrap();
    let work = project(tmp.path(), 20);
    let state = tmp.path().join("state");
    for session in ["a", "b", "c"] {
        assert!(prompt(&work, &state, session, "kw3").contains("Rule 3"));
    }
    let files: Vec<_> = std::fs::read_dir(state.join("rules"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(files.len(), 1, "only the saved discovery: {files:?}");
}

#[test]
fn a_watcher_stops_vouching_when_a_rules_root_that_was_absent_appears() {
    let tmp = tempfile::tempdir().unwrap();
    let (work, state, socket) = watched(tmp.path());
    // The hooks run with `--home work/no-home`: its rules root was absent.
    let user = work.join("no-home/.wave/rules");
    std::fs::create_dir_all(&user).unwrap();
    assert!(!vouches(&socket), "a rules root appeared");
    std::fs::write(
        user.join("mine.md"),
        "---\ntopics: [kw7]\n---\nMy own rule.\n",
    )
    .unwrap();
    assert!(prompt(&work, &state, "f", "kw7").contains("My own rule."));
}
