//! The CLI transcript: the real `wave-rules` binary run over a committed
//! script of commands (tests/transcript/commands) on committed fixture trees
//! (tests/transcript/trees, copied to a fresh temp dir), its output compared
//! byte for byte with tests/transcript/expected. A change of any command's
//! output, exit code or written files shows as a unified diff.
//!
//! Deterministic by construction: the environment is cleared (HOME, PATH,
//! the state and policy directories point into the temp dir, TZ=UTC), each
//! tree has its own `.git/HEAD` (so it is a project root whatever lies above
//! the temp dir), and the temp path, the version, the platform, times and time-based ids are replaced by
//! `@ROOT@`, `@VERSION@`, `@PLATFORM@`, `@TIME@`, `@MS@`, `@M1@`... The root's
//! path has one length everywhere (columns a path widens line up the same),
//! and the binary runs from `@ROOT@/exe/wave-rules` (its own path, which
//! hooks and settings name, is the same wherever the checkout is).
//!
//! After an intended change of output: `WAVE_TRANSCRIPT_UPDATE=1 cargo test
//! -p wave-rules --test transcript` rewrites the snapshot; review its diff.
//!
//! The script's lines (docs in the script's header):
//! `# text` and blank lines are copied; `cd DIR` (from the temp root);
//! `[NAME=VALUE...] wave-rules ARGS... [< PAYLOAD]` runs the binary, stdin
//! from tests/transcript/payloads; `cat FILE` and `ls DIR` show what it wrote.
//! `@ROOT@` in arguments, variables and payloads is the temp root.
//! `WAVE_TRANSCRIPT_TIMES=1` prints each command's time on stderr.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One command's time limit; a command still running is killed.
const LIMIT: Duration = Duration::from_secs(60);
/// The script must cover at least this many `wave-rules` commands.
const MIN_COMMANDS: usize = 100;
/// The fixture tree that is the user's home.
const HOME_TREE: &str = "home";
/// The fixture trees that are no project (no `.git`): the home, the policy.
const NOT_PROJECTS: [&str; 2] = [HOME_TREE, "policy"];

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcript")
}

/// The temp root's path is padded to this many bytes, so columns that a
/// path widens line up the same under every TMPDIR.
const ROOT_LEN: usize = 96;

/// A directory under `tmp` whose canonical path is [`ROOT_LEN`] bytes long.
fn fixed_length_root(tmp: &Path) -> PathBuf {
    let base = tmp.canonicalize().unwrap();
    let used = base.to_str().unwrap().len() + 1;
    assert!(
        used < ROOT_LEN,
        "TMPDIR is too long for the transcript ({used} of {ROOT_LEN} bytes): {}",
        base.display()
    );
    let root = base.join("r".repeat(ROOT_LEN - used));
    fs::create_dir(&root).unwrap();
    root
}

/// The binary, linked (else copied) to `@ROOT@/exe/wave-rules`: the paths
/// it writes of itself are the same length wherever the checkout is.
fn place_binary(root: &Path) -> PathBuf {
    let exe = root
        .join("exe")
        .join(format!("wave-rules{}", std::env::consts::EXE_SUFFIX));
    fs::create_dir_all(exe.parent().unwrap()).unwrap();
    let built = Path::new(env!("CARGO_BIN_EXE_wave-rules"));
    if fs::hard_link(built, &exe).is_err() {
        fs::copy(built, &exe).unwrap();
    }
    exe
}

/// The temp root: every fixture tree copied in, each but the home made a
/// git root, and the empty places the environment points at.
fn stage(root: &Path) {
    for entry in fs::read_dir(here().join("trees")).unwrap() {
        let entry = entry.unwrap();
        let to = root.join(entry.file_name());
        copy_tree(&entry.path(), &to);
        if !NOT_PROJECTS.iter().any(|n| entry.file_name() == *n) {
            fs::create_dir_all(to.join(".git")).unwrap();
            fs::write(to.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        }
    }
    for dir in [HOME_TREE, "bin", ".transcript"] {
        fs::create_dir_all(root.join(dir)).unwrap();
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// One line of the script, read.
enum Step {
    Text(String),
    Cd(String),
    Cat(String),
    Ls(String),
    Run {
        vars: Vec<(String, String)>,
        args: Vec<String>,
        stdin: Option<String>,
    },
}

fn parse(n: usize, line: &str) -> Step {
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Step::Text(line.to_string());
    }
    let mut words =
        shlex::split(trimmed).unwrap_or_else(|| panic!("commands:{n}: unbalanced quotes: {line}"));
    match words[0].as_str() {
        "cd" | "cat" | "ls" if words.len() == 2 => {
            let arg = words.pop().unwrap();
            match words[0].as_str() {
                "cd" => Step::Cd(arg),
                "cat" => Step::Cat(arg),
                _ => Step::Ls(arg),
            }
        }
        _ => parse_run(n, line, words),
    }
}

fn parse_run(n: usize, line: &str, mut words: Vec<String>) -> Step {
    let mut stdin = None;
    if words.len() >= 2 && words[words.len() - 2] == "<" {
        stdin = words.pop();
        words.pop();
    }
    let vars: Vec<(String, String)> = words
        .iter()
        .map_while(|w| w.split_once('=').filter(|(k, _)| is_var(k)))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let rest = words.split_off(vars.len());
    if rest.first().map(String::as_str) != Some("wave-rules") {
        panic!("commands:{n}: not cd/cat/ls/wave-rules: {line}");
    }
    Step::Run {
        vars,
        args: rest[1..].to_vec(),
        stdin,
    }
}

fn is_var(k: &str) -> bool {
    !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// The run: the temp root, the current directory in it, the output so far.
struct Session {
    root: PathBuf,
    exe: PathBuf,
    cwd: PathBuf,
    out: String,
    commands: usize,
}

impl Session {
    fn step(&mut self, step: Step) {
        match step {
            Step::Text(t) => self.out.push_str(&format!("{t}\n")),
            Step::Cd(dir) => {
                self.cwd = self.root.join(&dir);
                assert!(self.cwd.is_dir(), "cd {dir}: no such directory");
                self.out.push_str(&format!("$ cd {dir}\n"));
            }
            Step::Cat(file) => {
                let path = self.cwd.join(&file);
                let text = fs::read_to_string(&path).unwrap_or_else(|e| format!("({e})\n"));
                self.out.push_str(&format!("$ cat {file}\n{text}"));
                if !text.ends_with('\n') {
                    self.out.push_str("\n[no newline at end]\n");
                }
            }
            Step::Ls(dir) => {
                let mut files = Vec::new();
                list(&self.cwd.join(&dir), Path::new(""), &mut files);
                files.sort();
                self.out.push_str(&format!("$ ls {dir}\n"));
                for f in files {
                    self.out.push_str(&format!("{f}\n"));
                }
            }
            Step::Run { vars, args, stdin } => self.run(vars, args, stdin),
        }
    }

    fn run(&mut self, vars: Vec<(String, String)>, args: Vec<String>, stdin: Option<String>) {
        self.commands += 1;
        let shown: Vec<String> = vars
            .iter()
            .map(|(k, v)| format!("{k}={}", shlex::try_quote(v).unwrap()))
            .chain(std::iter::once("wave-rules".to_string()))
            .chain(
                args.iter()
                    .map(|a| shlex::try_quote(a).unwrap().into_owned()),
            )
            .collect();
        let redirect = stdin
            .as_ref()
            .map(|s| format!(" < {s}"))
            .unwrap_or_default();
        writeln!(self.out, "$ {}{redirect}", shown.join(" ")).unwrap();
        let (stdout, stderr, code) = self.spawn(&vars, &args, stdin.as_deref());
        self.out.push_str(&stdout);
        if !stdout.is_empty() && !stdout.ends_with('\n') {
            self.out.push_str("\n[no newline at end of stdout]\n");
        }
        if !stderr.is_empty() {
            self.out.push_str("[stderr]\n");
            self.out.push_str(&stderr);
            if !stderr.ends_with('\n') {
                self.out.push('\n');
            }
        }
        if code != 0 {
            writeln!(self.out, "[exit {code}]").unwrap();
        }
    }

    fn spawn(
        &self,
        vars: &[(String, String)],
        args: &[String],
        stdin: Option<&str>,
    ) -> (String, String, i32) {
        let root = self.root.to_str().unwrap();
        let scratch = self.root.join(".transcript");
        let input = match stdin {
            Some(name) => {
                let text = fs::read_to_string(here().join("payloads").join(name))
                    .unwrap_or_else(|e| panic!("payload {name}: {e}"));
                fs::write(scratch.join("stdin"), text.replace("@ROOT@", root)).unwrap();
                Stdio::from(File::open(scratch.join("stdin")).unwrap())
            }
            None => Stdio::null(),
        };
        let (out, err) = (scratch.join("stdout"), scratch.join("stderr"));
        let mut cmd = Command::new(&self.exe);
        cmd.args(args.iter().map(|a| a.replace("@ROOT@", root)))
            .current_dir(&self.cwd)
            .env_clear()
            .env("HOME", self.root.join(HOME_TREE))
            .env("PATH", self.root.join("bin"))
            .env("TZ", "UTC")
            .env("LANG", "C")
            // A build of the whole workspace turns on clap's wrap_help (divan,
            // a bench dependency, asks for it), which wraps help at the
            // terminal's width, else $COLUMNS, else 100; the shipped binary
            // (built alone) never wraps. So: wide enough never to wrap.
            .env("COLUMNS", "10000")
            .env("WAVE_POLICY_DIR", self.root.join("policy"))
            // No watcher process left behind by a hook.
            .env("WAVE_RULES_WATCH", "off")
            .stdin(input)
            .stdout(File::create(&out).unwrap())
            .stderr(File::create(&err).unwrap());
        for (k, v) in vars {
            cmd.env(k, v.replace("@ROOT@", root));
        }
        let start = Instant::now();
        let code = wait_bounded(cmd.spawn().unwrap(), args);
        if std::env::var_os("WAVE_TRANSCRIPT_TIMES").is_some() {
            eprintln!("{:>6} ms  {args:?}", start.elapsed().as_millis());
        }
        let read = |p: &Path| String::from_utf8_lossy(&fs::read(p).unwrap()).into_owned();
        (read(&out), read(&err), code)
    }
}

fn wait_bounded(mut child: std::process::Child, args: &[String]) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if start.elapsed() > LIMIT {
            child.kill().ok();
            child.wait().ok();
            panic!("wave-rules {args:?}: still running after {LIMIT:?}, killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Every file under `dir`, as paths relative to it (`.git` left out).
fn list(dir: &Path, rel: &Path, files: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        files.push("(no such directory)".to_string());
        return;
    };
    for entry in entries {
        let entry = entry.unwrap();
        let name = rel.join(entry.file_name());
        if entry.file_name() == ".git" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            list(&entry.path(), &name, files);
        } else {
            files.push(name.display().to_string());
        }
    }
}

/// The output with what differs between machines and runs replaced.
fn normalise(text: &str, root: &Path) -> String {
    let mut text = text.replace(root.to_str().unwrap(), "@ROOT@");
    text = text.replace(env!("CARGO_PKG_VERSION"), "@VERSION@");
    let platform = format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH);
    text = text.replace(&platform, "@PLATFORM@");
    text = replace_all(&text, TIME, "@TIME@");
    text = replace_all(&text, EPOCH_MS, "@MS@");
    text = replace_all(&text, UPDATED, r#""updated": "@DATE@""#);
    text = number_all(&text, PROJECT_KEY, "/projects/@KEY");
    number_all(&text, MEMORY_ID, "@M")
}

/// Milliseconds since 1970 (2020 to 2286).
const EPOCH_MS: &str = r"\b1[6-9]\d{11}\b";
/// A project's memory folder in the home, keyed by a hash of its path.
const PROJECT_KEY: &str = r"/projects/[0-9a-f]{16}";
/// A memory entry's id (a hash of its text and the time it was written).
const MEMORY_ID: &str = r"\bm[0-9a-f]{12}\b";

/// A memory entry's day of writing, in `memory search --json` (the day
/// the transcript runs).
const UPDATED: &str = r#""updated": "\d{4}-\d{2}-\d{2}""#;

/// RFC 3339 and `YYYY-MM-DD HH:MM[:SS]` times.
const TIME: &str = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}| UTC)?";

fn replace_all(text: &str, pattern: &str, with: &str) -> String {
    replace_with(text, pattern, |_| with.to_string())
}

/// Each distinct match replaced by `{prefix}N@`, N counting from 1 in the
/// order of first appearance (so the same id stays the same id).
fn number_all(text: &str, pattern: &str, prefix: &str) -> String {
    let mut seen: Vec<String> = Vec::new();
    replace_with(text, pattern, |m| {
        let n = match seen.iter().position(|s| s == m) {
            Some(i) => i + 1,
            None => {
                seen.push(m.to_string());
                seen.len()
            }
        };
        format!("{prefix}{n}@")
    })
}

fn replace_with(text: &str, pattern: &str, mut with: impl FnMut(&str) -> String) -> String {
    let re = regex_automata::meta::Regex::new(pattern).unwrap();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in re.find_iter(text) {
        out.push_str(&text[last..m.start()]);
        out.push_str(&with(&text[m.range()]));
        last = m.end();
    }
    out.push_str(&text[last..]);
    out
}

/// Runs the script in a fresh temp root: the normalised transcript and the
/// number of `wave-rules` commands it ran.
fn transcript() -> (String, usize) {
    let tmp = tempfile::tempdir().unwrap();
    let root = fixed_length_root(tmp.path());
    stage(&root);
    let script = fs::read_to_string(here().join("commands")).unwrap();
    let mut s = Session {
        exe: place_binary(&root),
        cwd: root.clone(),
        root: root.clone(),
        out: String::new(),
        commands: 0,
    };
    for (i, line) in script.lines().enumerate() {
        s.step(parse(i + 1, line));
    }
    (normalise(&s.out, &root), s.commands)
}

#[test]
fn cli_output_matches_the_committed_transcript() {
    let (actual, commands) = transcript();
    assert!(commands >= MIN_COMMANDS, "only {commands} commands");
    let path = here().join("expected");
    let expected = fs::read_to_string(&path).unwrap_or_default();
    if actual == expected {
        return;
    }
    if std::env::var_os("WAVE_TRANSCRIPT_UPDATE").is_some_and(|v| v == "1") {
        fs::write(&path, &actual).unwrap();
        eprintln!("{} rewritten ({commands} commands)", path.display());
        return;
    }
    let diff = similar::TextDiff::from_lines(&expected, &actual);
    panic!(
        "the CLI's output differs from tests/transcript/expected \
         (WAVE_TRANSCRIPT_UPDATE=1 rewrites it after an intended change):\n{}",
        diff.unified_diff()
            .context_radius(3)
            .header("expected", "actual")
    );
}
