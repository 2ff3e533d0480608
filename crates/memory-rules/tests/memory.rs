//! Memory topics on real temp dirs, with real concurrent processes and a
//! writer killed with SIGKILL mid-write.

use memory_rules::memory::{
    project_hash, run_tool, tool_definitions, MemoryError, MemoryLocations, MemoryScope,
    MemoryStore, WriteMode,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use MemoryScope::{Project, User};

/// The texts of a topic's entries.
fn texts(s: &MemoryStore, scope: MemoryScope, topic: &str) -> Vec<String> {
    s.entries(scope, topic)
        .unwrap()
        .into_iter()
        .map(|e| e.text)
        .collect()
}

fn store(dir: &Path) -> MemoryStore {
    MemoryStore::new(MemoryLocations {
        user_dir: dir.join("user"),
        project_dir: dir.join("project"),
    })
}

#[test]
fn default_locations_and_a_stable_project_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    std::os::unix::fs::symlink(&root, tmp.path().join("link")).unwrap();
    let hash = project_hash(&root);
    assert_eq!(hash.len(), 16);
    assert!(hash
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(
        project_hash(&tmp.path().join("link")),
        hash,
        "a symlinked path is the same project"
    );
    assert_eq!(project_hash(&tmp.path().join("repo/../repo")), hash);
    assert_ne!(project_hash(tmp.path()), hash);
    let loc = MemoryLocations::new(Path::new("/home/me"), &root);
    assert_eq!(loc.user_dir, PathBuf::from("/home/me/.wave/memory"));
    assert_eq!(
        loc.project_dir,
        PathBuf::from(format!("/home/me/.wave/projects/{hash}/memory"))
    );
}

#[test]
fn empty_scope_and_unknown_topic() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    assert_eq!(s.read_index(User).unwrap(), "");
    assert_eq!(s.list_topics(Project).unwrap(), vec![]);
    let err = s.read_topic(Project, "Build Steps").unwrap_err();
    assert_eq!(err.to_string(), "no project memory topic 'Build Steps'");
    assert!(matches!(
        s.remove_topic(Project, "nope"),
        Err(MemoryError::UnknownTopic { .. })
    ));
    s.clear(User).unwrap();
    assert_eq!(s.load_for_prompt(100), "");
}

#[test]
fn append_replace_and_the_index_in_step() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    assert_eq!(
        s.write_topic(Project, "Staging DB", "read-only", WriteMode::Append)
            .unwrap(),
        "staging-db.md"
    );
    s.write_topic(
        Project,
        "staging-db",
        "use the replica\n",
        WriteMode::Append,
    )
    .unwrap();
    s.write_topic(
        Project,
        "Build",
        "pnpm -F sdk build first",
        WriteMode::Append,
    )
    .unwrap();
    assert_eq!(
        texts(&s, Project, "STAGING  db!"),
        ["read-only", "use the replica"]
    );
    let raw = s.read_topic(Project, "staging db").unwrap();
    assert!(raw.starts_with("<!-- entry {\"id\":\"m"), "{raw}");
    assert_eq!(
        s.read_index(Project).unwrap(),
        "# Memory\n\nWhat the agent has learned, one topic per file.\n\n- [Build](build.md)\n- [Staging DB](staging-db.md)\n"
    );
    s.write_topic(Project, "build", "cargo build", WriteMode::Replace)
        .unwrap();
    assert_eq!(texts(&s, Project, "Build"), ["cargo build"]);
    let names: Vec<String> = s
        .list_topics(Project)
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        ["Build", "Staging DB"],
        "listed once, under the first name"
    );
    s.remove_topic(Project, "build").unwrap();
    assert_eq!(s.list_topics(Project).unwrap().len(), 1);
    assert!(!tmp.path().join("project/build.md").exists());
    assert_eq!(s.read_index(User).unwrap(), "", "scopes are separate");
    s.clear(Project).unwrap();
    assert_eq!(s.read_index(Project).unwrap(), "");
}

#[test]
fn hostile_and_international_names() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    for (name, file, note) in [
        ("../../escape", "escape.md", "alpha"),
        ("/etc/passwd", "etc-passwd.md", "beta"),
        ("a\0b", "a-b.md", "gamma"),
        ("構築手順", "構築手順.md", "delta"),
        ("ÜGYFÉL", "ügyfél.md", "x"),
        ("CON", "con-topic.md", "epsilon"),
    ] {
        assert_eq!(
            s.write_topic(User, name, note, WriteMode::Append).unwrap(),
            file,
            "{name:?}"
        );
        assert!(
            tmp.path().join("user").join(file).is_file(),
            "{name:?} stays inside"
        );
    }
    assert_eq!(
        texts(&s, User, "ügyfél"),
        ["x"],
        "upper-case non-ASCII folds"
    );
    for bad in ["", "...", "../", "/", "\0", "!!!"] {
        let err = s
            .write_topic(User, bad, "x", WriteMode::Append)
            .unwrap_err();
        assert!(matches!(err, MemoryError::InvalidName { .. }), "{bad:?}");
        assert!(err.to_string().contains("invalid topic name"), "{err}");
    }
    let entries: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        entries,
        ["user"],
        "nothing written outside the memory directory"
    );
}

#[test]
fn load_for_prompt_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    s.write_topic(User, "Style", "short answers", WriteMode::Append)
        .unwrap();
    s.write_topic(Project, "Build", "step 1\nstep 2", WriteMode::Append)
        .unwrap();
    s.write_topic(
        Project,
        "Zeta",
        &(1..=20)
            .map(|i| format!("z{i}"))
            .collect::<Vec<_>>()
            .join("\n"),
        WriteMode::Append,
    )
    .unwrap();
    let full = s.load_for_prompt(1000);
    assert!(full.starts_with("## User Memory\n# Memory\n"), "{full}");
    assert!(full.contains("\n\n## Project Memory\n"), "{full}");
    assert!(
        full.contains("### Build (build.md)\nstep 1\nstep 2"),
        "{full}"
    );
    assert!(full.ends_with("z20"), "{full}");
    let cut = s.load_for_prompt(40);
    let lines: Vec<&str> = cut.lines().collect();
    assert!(lines.len() <= 40, "{} lines", lines.len());
    assert!(cut.contains("### Zeta (zeta.md)\nz1\n"), "{cut}");
    assert!(!cut.contains("z20"));
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("(not loaded to fit the budget: zeta.md from line "),
        "{last}"
    );
    // User memory never takes more than half.
    let user_only_budget = s.load_for_prompt(8);
    let user_lines = user_only_budget
        .split("\n\n## Project Memory")
        .next()
        .unwrap()
        .lines()
        .count();
    assert!(user_lines <= 4, "{user_only_budget}");
}

#[test]
fn tools_answer_with_text_and_never_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    let defs = tool_definitions();
    assert_eq!(defs[0]["name"], "memory_read");
    assert_eq!(defs[1]["name"], "memory_write");
    assert_eq!(
        defs[1]["parameters"]["required"],
        json!(["topic", "content"])
    );
    assert_eq!(
        run_tool(&s, "memory_read", &json!({})),
        "The project memory has no topics yet."
    );
    let stored = run_tool(
        &s,
        "memory_write",
        &json!({"topic": "Build", "content": "make"}),
    );
    assert!(
        stored.starts_with("Stored as m")
            && stored.ends_with(" in project memory topic 'Build' (build.md)."),
        "{stored}"
    );
    let id = s.entries(Project, "build").unwrap()[0].meta.id.clone();
    assert_eq!(
        run_tool(&s, "memory_read", &json!({"topic": "build"})),
        format!("[{id}]\nmake\n")
    );
    assert!(run_tool(&s, "memory_read", &json!(null)).contains("- [Build](build.md)"));
    for (name, input, want) in [
        ("memory_read", json!({"topic": "nope"}), "Error: no project memory topic 'nope'"),
        ("memory_read", json!({"scope": "team"}), "Error: 'scope' is 'project' or 'user', not 'team'"),
        ("memory_write", json!({"topic": "x"}), "Error: memory_write needs 'content'"),
        ("memory_write", json!({"topic": "...", "content": "x"}), "Error: invalid topic name '...': a topic name needs at least one letter or digit"),
        ("memory_write", json!({"topic": 5, "content": "x"}), "Error: 'topic' must be a string, not 5"),
        ("memory_write", json!({"topic": "a", "content": "x", "mode": "merge"}), "Error: 'mode' is 'append' or 'replace', not 'merge'"),
        ("memory_write", json!("text"), "Error: memory_write takes an object, not \"text\""),
        ("memory_delete", json!({}), "Error: unknown memory tool 'memory_delete'; the tools are memory_read, memory_write, memory_search and memory_propose_rule"),
    ] {
        assert_eq!(run_tool(&s, name, &input), want);
    }
}

// ---- real processes -------------------------------------------------------

const CHILD_ENV: &str = "WAVE_MEMORY_TEST_CHILD";

/// Runs this test binary's `child_process` helper with `job` in the env.
fn spawn_child(job: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_process",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, job)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// Not a test: the body of the child processes the two tests below start.
/// Jobs: `append <dir> <writer> <count>` and `replace-forever <dir>`.
#[test]
#[ignore = "helper run as a child process by the concurrency and SIGKILL tests"]
fn child_process() {
    let job = std::env::var(CHILD_ENV).expect("run only by the tests below");
    let parts: Vec<&str> = job.split('|').collect();
    let s = store(Path::new(parts[1]));
    match parts[0] {
        "append" => {
            let count: usize = parts[3].parse().unwrap();
            // Both writers start together: wait for the parent's go file.
            let go = Path::new(parts[1]).join("go");
            let deadline = Instant::now() + Duration::from_secs(30);
            while !go.exists() {
                assert!(Instant::now() < deadline, "no go file");
                std::thread::sleep(Duration::from_millis(2));
            }
            for i in 0..count {
                s.write_topic(
                    Project,
                    "Shared Log",
                    &format!("writer {} entry {i:04}", parts[2]),
                    WriteMode::Append,
                )
                .unwrap();
            }
        }
        "replace-forever" => loop {
            for content in [big('a'), big('b')] {
                s.write_topic(Project, "big", &content, WriteMode::Replace)
                    .unwrap();
            }
        },
        other => panic!("unknown job {other}"),
    }
}

fn big(c: char) -> String {
    let line: String = std::iter::repeat_n(c, 1023).collect();
    // Just under the topic size limit.
    (0..200)
        .map(|_| line.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Entries each of the two writers appends (a write reads the topic and the
/// search index, so a debug build's time grows with the square of it).
const APPENDS: usize = 300;

#[test]
fn two_processes_appending_to_one_topic_at_once_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let children: Vec<_> = (0..2)
        .map(|w| spawn_child(&format!("append|{dir}|{w}|{APPENDS}")))
        .collect();
    std::fs::write(tmp.path().join("go"), "").unwrap();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let s = store(tmp.path());
    let entries = s.entries(Project, "shared log").unwrap();
    assert_eq!(entries.len(), 2 * APPENDS);
    let got: std::collections::HashSet<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    for w in 0..2 {
        for i in 0..APPENDS {
            assert!(
                got.contains(format!("writer {w} entry {i:04}").as_str()),
                "writer {w} entry {i} lost"
            );
        }
    }
    // The writers did write at the same time: their entries interleave.
    let writers: Vec<bool> = entries
        .iter()
        .map(|e| e.text.starts_with("writer 0"))
        .collect();
    let switches = writers.windows(2).filter(|p| p[0] != p[1]).count();
    assert!(
        switches > 2,
        "the writers took turns {switches} times: they did not overlap"
    );
    let ids: std::collections::HashSet<&str> = entries.iter().map(|e| e.id()).collect();
    assert_eq!(ids.len(), 2 * APPENDS, "every entry has its own id");
    assert_eq!(
        s.list_topics(Project).unwrap().len(),
        1,
        "index lists the topic once"
    );
    assert!(s
        .read_index(Project)
        .unwrap()
        .ends_with("\n- [Shared Log](shared-log.md)\n"));
    // The search index saw every write.
    let index = memory_rules::memory::MemoryIndex::open(&s);
    assert_eq!(index.len(), 2 * APPENDS);
    assert_eq!(
        index.reindexed, 0,
        "the writers kept the saved index up to date"
    );
}

#[test]
fn a_writer_killed_mid_write_leaves_old_or_new_never_torn() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    s.write_topic(Project, "big", "the old content", WriteMode::Replace)
        .unwrap();
    let valid = ["the old content".to_string(), big('a'), big('b')];
    let dir = tmp.path().join("project");
    let mut killed_mid_write = 0;
    for round in 0..5 {
        let mut child = spawn_child(&format!("replace-forever|{}", tmp.path().display()));
        // Let it run a while (a different time each round), then kill it
        // while a temp file exists: a write is in progress.
        let started = Instant::now();
        let deadline = started + Duration::from_secs(20);
        loop {
            let writing = dir.is_dir()
                && std::fs::read_dir(&dir)
                    .unwrap()
                    .flatten()
                    .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"));
            if writing && started.elapsed() > Duration::from_millis(300 + round * 37) {
                child.kill().unwrap(); // SIGKILL
                killed_mid_write += 1;
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the writer never started writing"
            );
            std::thread::sleep(Duration::from_micros(200));
        }
        child.wait().unwrap();
        let raw = s.read_topic(Project, "big").unwrap();
        let found = texts(&s, Project, "big");
        assert!(
            found.len() == 1 && valid.contains(&found[0]) && raw.ends_with('\n'),
            "round {round}: torn file of {} bytes",
            raw.len()
        );
        assert_eq!(s.list_topics(Project).unwrap().len(), 1);
    }
    assert_eq!(killed_mid_write, 5);
    // Leftover temp files do not disturb later writes or the index.
    s.write_topic(Project, "after", "fine", WriteMode::Append)
        .unwrap();
    assert_eq!(s.list_topics(Project).unwrap().len(), 2);
}

// ---- issue 9: limits and links ----------------------------------------------

/// Finding 10: a 50 MB topic was accepted, and a line budget let 52 million
/// characters into the prompt.
#[test]
fn topic_size_and_prompt_bytes_are_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    let huge = "x".repeat(50 << 20);
    assert!(matches!(
        s.write_topic(Project, "big", &huge, WriteMode::Append),
        Err(MemoryError::TooLarge { .. })
    ));
    let near = "y".repeat(200 * 1024);
    s.write_topic(Project, "a", &near, WriteMode::Replace)
        .unwrap();
    assert!(
        matches!(
            s.write_topic(Project, "a", &near, WriteMode::Append),
            Err(MemoryError::TooLarge { .. })
        ),
        "append past the limit"
    );
    // A topic file made huge behind the store's back (one line, no newlines).
    std::fs::write(tmp.path().join("project/b.md"), "z".repeat(50 << 20)).unwrap();
    s.write_topic(Project, "b", "", WriteMode::Replace).ok();
    std::fs::write(tmp.path().join("project/b.md"), "z".repeat(50 << 20)).unwrap();
    let text = s.load_for_prompt(120);
    assert!(
        text.len() <= memory_rules::base::limits::DEFAULT_MEMORY_PROMPT_BYTES,
        "{} bytes",
        text.len()
    );
    assert!(text.contains("not loaded to fit the budget"));
    for i in 0..8 {
        s.write_topic(
            User,
            &format!("t{i}"),
            &"w".repeat(200 * 1024),
            WriteMode::Replace,
        )
        .unwrap();
    }
    let text = s.load_for_prompt(120);
    assert!(
        text.len() <= memory_rules::base::limits::DEFAULT_MEMORY_PROMPT_BYTES,
        "{} bytes",
        text.len()
    );
    let text = s.load_for_prompt_within(1000, 4096);
    assert!(text.len() <= 4096, "{} bytes", text.len());
    assert!(
        s.read_topic(Project, "b").unwrap().len()
            <= memory_rules::base::limits::MAX_MEMORY_TOPIC_BYTES
    );
}

/// Finding 13: a lock held by another process blocked forever.
#[test]
fn lock_wait_times_out_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    s.write_topic(Project, "a", "x", WriteMode::Append).unwrap();
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(tmp.path().join("project/.lock"))
        .unwrap();
    // flock locks are per open file description: this one blocks the store.
    lock.lock().unwrap();
    let start = Instant::now();
    let err = s
        .write_topic(Project, "a", "y", WriteMode::Append)
        .unwrap_err();
    assert!(err.to_string().contains("memory lock"), "{err}");
    assert!(start.elapsed() >= memory_rules::base::limits::MEMORY_LOCK_TIMEOUT);
    lock.unlock().unwrap();
    s.write_topic(Project, "a", "y", WriteMode::Append).unwrap();
    assert_eq!(texts(&s, Project, "a"), ["x", "y"]);
}

/// Finding 14: the lock and topic files were followed through symlinks; NFC
/// and NFD names were two topics; a killed writer's temp file stayed.
#[test]
fn no_links_nfc_names_and_stray_temps_cleaned() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    s.write_topic(Project, "\u{dc}gyf\u{e9}l", "nfc", WriteMode::Append)
        .unwrap();
    s.write_topic(Project, "U\u{308}gyfe\u{301}l", "nfd", WriteMode::Append)
        .unwrap();
    assert_eq!(s.list_topics(Project).unwrap().len(), 1);
    assert_eq!(texts(&s, Project, "ÜGYFÉL"), ["nfc", "nfd"]);
    let dir = tmp.path().join("project");
    std::fs::write(tmp.path().join("secret"), "TOKEN").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret"), dir.join("leak.md")).unwrap();
    let err = s.read_topic(Project, "leak").unwrap_err();
    assert!(err.to_string().contains("symlink"), "{err}");
    assert!(
        s.write_topic(Project, "leak", "more", WriteMode::Append)
            .is_err(),
        "append never reads through the link"
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("secret")).unwrap(),
        "TOKEN"
    );
    std::fs::remove_file(dir.join(".lock")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret"), dir.join(".lock")).unwrap();
    assert!(
        s.write_topic(Project, "a", "x", WriteMode::Append).is_err(),
        "the lock is never taken through a link"
    );
    std::fs::remove_file(dir.join(".lock")).unwrap();
    std::fs::write(dir.join(".a.md.999.0.tmp"), "stray").unwrap();
    s.write_topic(Project, "a", "x", WriteMode::Append).unwrap();
    assert!(!dir.join(".a.md.999.0.tmp").exists());
}
