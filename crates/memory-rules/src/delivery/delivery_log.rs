//! The delivery log: what each conversation was given, rule by rule.
//!
//! Every road that puts rules in front of a model (each agent's hooks, the
//! SDK adapters, the opencode plugin, the MCP server) appends one line per
//! delivery to one file per user: when, which session and agent, which event,
//! which project, and each rule given with its version (the hash the session
//! keeps, [`crate::delivery::session::rule_version`]) and its tokens
//! ([`crate::delivery::tokens::rule_tokens`]). Never a prompt's text, a rule's text or
//! a file's contents. `wave-rules log` prints it as timelines and
//! `wave-rules report` adds its sessions view.
//!
//! The file is `<state dir>/log/deliveries.jsonl` ([`state_dir`]): JSON
//! Lines, one [`Delivery`] per line.
//!
//! - **Concurrent writers.** A delivery is one `write` to a file opened with
//!   `O_APPEND`: two hooks writing at once each land whole lines, in some
//!   order, and none is lost.
//! - **Bounded.** Past [`MAX_LOG_FILE_BYTES`], or when it was started more
//!   than [`MAX_LOG_AGE`] ago, the file is rotated: renamed to
//!   `deliveries.1.jsonl` (the older ones shift up to
//!   `deliveries.{LOG_FILES_KEPT - 1}.jsonl`, and the oldest is removed), and
//!   rotated files older than [`MAX_LOG_AGE`] are removed. Rotation never
//!   waits: the writer that finds the file over its limit takes a lock with
//!   `try_lock`, and when another process holds it, leaves the rotation to
//!   it. A writer that still has the old file open appends to it under its
//!   new name, so no line is lost to a rotation. Reading skips entries older
//!   than [`MAX_LOG_AGE`].
//! - **Off with one setting.** `WAVE_RULES_LOG=off` (or `0`, `false`, `no`)
//!   in the environment: nothing is written (reading still works).
//! - **Never in the way.** Appending returns an error for the caller to
//!   report and go on; nothing here can fail a delivery.
//!
//! Token counts are cached per rule version in `<state dir>/log/tokens.bin`
//! (at most `MAX_CACHED_TOKEN_COUNTS` entries, looked up in place), so a hook builds the
//! tokenizer only when it delivers a rule version it never counted.

use crate::base::fs::state_dir;
use crate::base::limits::{MAX_LOG_AGE, MAX_LOG_FILE_BYTES, MAX_LOG_LINE_BYTES};
use crate::delivery::token_cache::TokenCache;
use crate::rules::rule::Rule;
use crate::rules::rule_set::RuleSet;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The current log file's name.
pub const LOG_FILE: &str = "deliveries.jsonl";
/// Log files kept: the current one and the rotated ones (so the log takes
/// at most about this many times [`MAX_LOG_FILE_BYTES`]).
pub const LOG_FILES_KEPT: usize = 4;
/// The environment variable that turns the log off (`off`, `0`, `false`, `no`).
pub const LOG_SETTING: &str = "WAVE_RULES_LOG";

/// Whether the log is on ([`LOG_SETTING`]).
pub fn enabled() -> bool {
    match std::env::var(LOG_SETTING) {
        Ok(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no"
        ),
        Err(_) => true,
    }
}

/// One rule given in a delivery.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedRule {
    pub id: String,
    /// [`crate::delivery::session::rule_version`]: a hash of the id and text.
    pub version: String,
    pub tokens: u64,
}

/// Who delivered, in which conversation, at which event, for which project.
#[derive(Clone, Copy, Debug)]
pub struct Sender<'a> {
    pub agent: &'a str,
    pub session: &'a str,
    /// The subagent's conversation inside the session, if it is one.
    pub subagent: Option<&'a str>,
    pub event: &'a str,
    pub project: &'a str,
}

/// One delivery: one line of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// Milliseconds since the Unix epoch.
    pub time: u64,
    /// The conversation's id, as the agent names it.
    pub session: String,
    /// The subagent's id inside the session (a conversation of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
    /// Who delivered: `claude`, `codex`, `gemini`, `copilot`, `cursor`,
    /// `opencode`, `mcp`, `ai-sdk`, `openai-agents`, `sdk` (a
    /// `RuleSession` that names no agent), or the name a road gives.
    pub agent: String,
    /// The event that delivered (the core event's name).
    pub event: String,
    /// The project (the workdir the rules were read for).
    pub project: String,
    /// The tokens of every rule given.
    pub tokens: u64,
    pub rules: Vec<LoggedRule>,
}

impl Delivery {
    /// A delivery of `rules`, now, by `sender` (tokens not counted yet).
    pub fn of(rules: &[&Rule], sender: &Sender) -> Delivery {
        let versions = rules
            .iter()
            .map(|r| crate::delivery::session::rule_version(r));
        Delivery::of_versions(rules, versions, sender)
    }

    /// [`Delivery::of`] with each rule's version already known (an answer's
    /// [`crate::delivery::responder::Given`] carries it): hashing a rule's
    /// text is most of what a delivery costs per rule.
    pub fn of_versions(
        rules: &[&Rule],
        versions: impl IntoIterator<Item = String>,
        sender: &Sender,
    ) -> Delivery {
        let given: Vec<LoggedRule> = rules
            .iter()
            .zip(versions)
            .map(|(r, version)| LoggedRule {
                id: r.id.clone(),
                version,
                tokens: 0,
            })
            .collect();
        Delivery {
            time: now_ms(),
            session: sender.session.to_string(),
            subagent: sender.subagent.map(str::to_string),
            agent: sender.agent.to_string(),
            event: sender.event.to_string(),
            project: sender.project.to_string(),
            tokens: 0,
            rules: given,
        }
    }

    /// Fills in the tokens of each rule (from the cache in `dir`, counting
    /// the versions it lacks) and the total.
    fn count_tokens(&mut self, rules: &[&Rule], dir: &Path) {
        let mut cache = TokenCache::read(dir);
        for (g, r) in self.rules.iter_mut().zip(rules) {
            g.tokens = cache.get(&g.version, r);
        }
        self.tokens = self.rules.iter().map(|g| g.tokens).sum();
        cache.save(dir);
    }

    /// The lines of this delivery: one, or several when its rules do not fit
    /// in [`MAX_LOG_LINE_BYTES`] (each with its part of the rules and tokens).
    fn lines(&self) -> String {
        let one = serde_json::to_string(self).unwrap_or_default();
        if one.len() < MAX_LOG_LINE_BYTES || self.rules.len() < 2 {
            return one + "\n";
        }
        let mut out = String::new();
        let mut part = Delivery {
            rules: Vec::new(),
            tokens: 0,
            ..self.clone()
        };
        let base = serde_json::to_string(&part).unwrap_or_default().len();
        let mut size = base;
        for g in &self.rules {
            let len = serde_json::to_string(g).map_or(0, |s| s.len()) + 1;
            if !part.rules.is_empty() && size + len >= MAX_LOG_LINE_BYTES {
                out.push_str(&serde_json::to_string(&part).unwrap_or_default());
                out.push('\n');
                part.rules.clear();
                part.tokens = 0;
                size = base;
            }
            part.tokens += g.tokens;
            part.rules.push(g.clone());
            size += len;
        }
        out.push_str(&serde_json::to_string(&part).unwrap_or_default());
        out.push('\n');
        out
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The delivery log of one state directory.
#[derive(Clone, Debug)]
pub struct DeliveryLog {
    dir: PathBuf,
}

/// What [`DeliveryLog::read`] returns.
#[derive(Clone, Debug, Default)]
pub struct Deliveries {
    /// Oldest first.
    pub deliveries: Vec<Delivery>,
    /// Lines that could not be read (torn or edited by hand), with where.
    pub problems: Vec<String>,
}

/// Which deliveries [`DeliveryLog::read`] returns.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only this session.
    pub session: Option<String>,
    /// Only at or after this time (ms since the epoch).
    pub since: Option<u64>,
    /// Only for this project.
    pub project: Option<String>,
}

impl DeliveryLog {
    /// The log in `<state dir>/log`.
    pub fn new(state_dir: &Path) -> DeliveryLog {
        DeliveryLog {
            dir: state_dir.join("log"),
        }
    }

    /// The log of the user whose home is `home` ([`state_dir`]).
    pub fn for_home(home: &Path) -> DeliveryLog {
        DeliveryLog::new(&state_dir(home))
    }

    /// The directory of the log files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The current file.
    pub fn path(&self) -> PathBuf {
        self.dir.join(LOG_FILE)
    }

    fn rotated(&self, n: usize) -> PathBuf {
        self.dir.join(format!("deliveries.{n}.jsonl"))
    }

    /// Appends the delivery of `rules` (indices into `set`) by `sender`,
    /// unless the log is off ([`enabled`]) or nothing was delivered.
    pub fn record(&self, set: &RuleSet, rules: &[usize], sender: &Sender) -> io::Result<()> {
        let given: Vec<&Rule> = rules.iter().filter_map(|&i| set.rules().get(i)).collect();
        self.record_rules(&given, sender)
    }

    /// Appends a delivery of short lines about rules (the reminders a stop
    /// gives: `(id, version, line)`), each counted by the tokens of its
    /// line, unless the log is off or there is none.
    pub fn record_lines(&self, lines: &[(&str, &str, &str)], sender: &Sender) -> io::Result<()> {
        if lines.is_empty() || !enabled() {
            return Ok(());
        }
        self.record_lines_counted(lines, sender).1
    }

    /// [`DeliveryLog::record_lines`], whether the log is on or off, giving
    /// back the delivery with its tokens counted (for telemetry).
    pub fn record_lines_counted(
        &self,
        lines: &[(&str, &str, &str)],
        sender: &Sender,
    ) -> (Delivery, io::Result<()>) {
        let delivery = self.lines_delivery(lines, sender);
        let appended = self.append(&delivery);
        (delivery, appended)
    }

    fn lines_delivery(&self, lines: &[(&str, &str, &str)], sender: &Sender) -> Delivery {
        let _ = std::fs::create_dir_all(&self.dir);
        let mut cache = TokenCache::read(&self.dir);
        let rules: Vec<LoggedRule> = lines
            .iter()
            .map(|&(id, version, line)| LoggedRule {
                id: id.to_string(),
                version: version.to_string(),
                tokens: cache.get_text(line),
            })
            .collect();
        cache.save(&self.dir);
        Delivery {
            time: now_ms(),
            session: sender.session.to_string(),
            subagent: sender.subagent.map(str::to_string),
            agent: sender.agent.to_string(),
            event: sender.event.to_string(),
            project: sender.project.to_string(),
            tokens: rules.iter().map(|g| g.tokens).sum(),
            rules,
        }
    }

    /// [`DeliveryLog::record`] for rules given as references.
    pub fn record_rules(&self, rules: &[&Rule], sender: &Sender) -> io::Result<()> {
        if rules.is_empty() || !enabled() {
            return Ok(());
        }
        self.record_counted(rules, sender).1
    }

    /// [`DeliveryLog::record_rules`], whether the log is on or off, giving
    /// back the delivery with its tokens counted (for telemetry).
    pub fn record_counted(&self, rules: &[&Rule], sender: &Sender) -> (Delivery, io::Result<()>) {
        self.record_delivery(Delivery::of(rules, sender), rules)
    }

    /// [`DeliveryLog::record_counted`] for a delivery made already (of
    /// `rules`, in order).
    pub fn record_delivery(
        &self,
        mut delivery: Delivery,
        rules: &[&Rule],
    ) -> (Delivery, io::Result<()>) {
        if let Err(e) = std::fs::create_dir_all(&self.dir) {
            return (delivery, Err(e));
        }
        delivery.count_tokens(rules, &self.dir);
        let appended = self.append(&delivery);
        (delivery, appended)
    }

    /// Appends one delivery as it is (its tokens already counted), unless
    /// the log is off; rotates the file when it is over its limits.
    pub fn append(&self, delivery: &Delivery) -> io::Result<()> {
        if !enabled() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path();
        let mut file = OpenOptions::new().create(true).append(true).open(&path)?;
        // One write: O_APPEND puts it whole at the end, whoever else writes.
        file.write_all(delivery.lines().as_bytes())?;
        let meta = file.metadata()?;
        drop(file);
        if over_limits(&meta) {
            self.rotate();
        }
        Ok(())
    }

    /// Rotates the current file when it is still over its limits, unless
    /// another process is rotating (never waits).
    fn rotate(&self) {
        let lock_path = self.dir.join(".rotate.lock");
        let Ok(lock) = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
        else {
            return;
        };
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return,
            // WASI has no file locks: rotate unlocked.
            Err(TryLockError::Error(e)) if e.kind() == io::ErrorKind::Unsupported => {}
            Err(TryLockError::Error(_)) => return,
        }
        // Another writer may have rotated between our write and the lock.
        let still = std::fs::metadata(self.path()).is_ok_and(|m| over_limits(&m));
        if still {
            let _ = std::fs::remove_file(self.rotated(LOG_FILES_KEPT - 1));
            for n in (1..LOG_FILES_KEPT - 1).rev() {
                let _ = std::fs::rename(self.rotated(n), self.rotated(n + 1));
            }
            let _ = std::fs::rename(self.path(), self.rotated(1));
        }
        for n in 1..LOG_FILES_KEPT {
            let p = self.rotated(n);
            let old = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age > MAX_LOG_AGE);
            if old {
                let _ = std::fs::remove_file(p);
            }
        }
        let _ = lock.unlock();
    }

    /// The files to read, oldest first.
    fn files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = (1..LOG_FILES_KEPT).rev().map(|n| self.rotated(n)).collect();
        out.push(self.path());
        out
    }

    /// The deliveries that pass `filter`, oldest first, none older than
    /// [`MAX_LOG_AGE`]. Each file is read up to twice its size limit.
    pub fn read(&self, filter: &Filter) -> Deliveries {
        let mut out = Deliveries::default();
        let oldest = now_ms().saturating_sub(MAX_LOG_AGE.as_millis() as u64);
        let since = filter.since.unwrap_or(0).max(oldest);
        for path in self.files() {
            let bytes = match File::open(&path) {
                Ok(f) => {
                    let mut bytes = Vec::new();
                    if let Err(e) = f.take(2 * MAX_LOG_FILE_BYTES).read_to_end(&mut bytes) {
                        out.problems
                            .push(format!("cannot read {}: {e}", path.display()));
                        continue;
                    }
                    bytes
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    out.problems
                        .push(format!("cannot read {}: {e}", path.display()));
                    continue;
                }
            };
            for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match serde_json::from_slice::<Delivery>(line) {
                    Ok(d) => {
                        let keep = d.time >= since
                            && filter.session.as_ref().is_none_or(|s| *s == d.session)
                            && filter.project.as_ref().is_none_or(|p| *p == d.project);
                        if keep {
                            out.deliveries.push(d);
                        }
                    }
                    Err(e) => out.problems.push(format!(
                        "{}:{}: not a delivery ({e}); skipped",
                        path.display(),
                        n + 1
                    )),
                }
            }
        }
        // Concurrent writers append in any order; rotation keeps files in order.
        out.deliveries.sort_by_key(|d| d.time);
        out
    }
}

/// Whether a log file is over its size, or was started more than
/// [`MAX_LOG_AGE`] ago (where the file system tells when it was created).
fn over_limits(meta: &std::fs::Metadata) -> bool {
    if meta.len() > MAX_LOG_FILE_BYTES {
        return true;
    }
    meta.len() > 0
        && meta
            .created()
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > MAX_LOG_AGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(session: &str, ids: &[&str]) -> Delivery {
        Delivery {
            time: now_ms(),
            session: session.into(),
            subagent: None,
            agent: "claude".into(),
            event: "start".into(),
            project: "/p".into(),
            tokens: 3 * ids.len() as u64,
            rules: ids
                .iter()
                .map(|id| LoggedRule {
                    id: id.to_string(),
                    version: "0123456789abcdef".into(),
                    tokens: 3,
                })
                .collect(),
        }
    }

    #[test]
    fn appends_and_reads_back_by_session() {
        let dir = tempfile::tempdir().unwrap();
        let log = DeliveryLog::new(dir.path());
        log.append(&delivery("s1", &["a.md"])).unwrap();
        log.append(&delivery("s2", &["b.md", "c.md"])).unwrap();
        let all = log.read(&Filter::default());
        assert!(all.problems.is_empty(), "{:?}", all.problems);
        assert_eq!(all.deliveries.len(), 2);
        let s2 = log.read(&Filter {
            session: Some("s2".into()),
            ..Filter::default()
        });
        assert_eq!(
            s2.deliveries,
            [delivery("s2", &["b.md", "c.md"])].map(|mut d| {
                d.time = s2.deliveries[0].time;
                d
            })
        );
    }

    #[test]
    fn a_torn_line_is_a_problem_and_the_rest_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let log = DeliveryLog::new(dir.path());
        log.append(&delivery("s1", &["a.md"])).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .unwrap()
            .write_all(b"{\"time\":1,\"sess\n")
            .unwrap();
        log.append(&delivery("s1", &["b.md"])).unwrap();
        let read = log.read(&Filter::default());
        assert_eq!(read.deliveries.len(), 2);
        assert_eq!(read.problems.len(), 1);
        assert!(
            read.problems[0].contains(":2: not a delivery"),
            "{:?}",
            read.problems
        );
    }

    #[test]
    fn a_delivery_too_long_for_one_line_is_split_whole() {
        let ids: Vec<String> = (0..2000)
            .map(|i| format!("rules/{i:04}-{}.md", "x".repeat(40)))
            .collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let d = delivery("s", &refs);
        let text = d.lines();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 1);
        let mut back = Vec::new();
        let mut tokens = 0;
        for l in &lines {
            assert!(l.len() < MAX_LOG_LINE_BYTES);
            let part: Delivery = serde_json::from_str(l).unwrap();
            tokens += part.tokens;
            back.extend(part.rules);
        }
        assert_eq!(back, d.rules);
        assert_eq!(tokens, d.tokens);
    }

    #[test]
    fn a_full_file_is_rotated_and_old_files_shift() {
        let dir = tempfile::tempdir().unwrap();
        let log = DeliveryLog::new(dir.path());
        std::fs::create_dir_all(log.dir()).unwrap();
        for round in 0..LOG_FILES_KEPT + 1 {
            std::fs::write(log.path(), vec![b'\n'; MAX_LOG_FILE_BYTES as usize]).unwrap();
            log.append(&delivery(&format!("s{round}"), &["a.md"]))
                .unwrap();
            assert!(!log.path().exists(), "round {round}: rotated away");
        }
        for n in 1..LOG_FILES_KEPT {
            assert!(log.rotated(n).exists());
        }
        assert!(!log.rotated(LOG_FILES_KEPT).exists());
        // The newest rotations are read; the oldest were removed.
        let sessions: Vec<String> = log
            .read(&Filter::default())
            .deliveries
            .into_iter()
            .map(|d| d.session)
            .collect();
        assert_eq!(sessions, ["s2", "s3", "s4"]);
    }

    #[test]
    fn rotation_is_left_to_the_process_that_holds_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let log = DeliveryLog::new(dir.path());
        std::fs::create_dir_all(log.dir()).unwrap();
        let held = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(log.dir().join(".rotate.lock"))
            .unwrap();
        held.lock().unwrap();
        std::fs::write(log.path(), vec![b'\n'; MAX_LOG_FILE_BYTES as usize]).unwrap();
        // Returns at once, the line written, the file not rotated.
        log.append(&delivery("s1", &["a.md"])).unwrap();
        assert!(log.path().exists());
        assert!(!log.rotated(1).exists());
        held.unlock().unwrap();
        log.append(&delivery("s2", &["a.md"])).unwrap();
        assert!(log.rotated(1).exists());
        assert_eq!(log.read(&Filter::default()).deliveries.len(), 2);
    }

    /// Eight writers at once, across a rotation: every line is read back
    /// whole (processes: the CLI's `two_hooks_at_once_lose_no_line`).
    #[test]
    fn concurrent_writers_across_a_rotation_lose_no_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = DeliveryLog::new(dir.path());
        std::fs::create_dir_all(log.dir()).unwrap();
        std::fs::write(
            log.path(),
            vec![b'\n'; MAX_LOG_FILE_BYTES as usize - 20_000],
        )
        .unwrap();
        std::thread::scope(|s| {
            for w in 0..8 {
                let log = log.clone();
                s.spawn(move || {
                    for i in 0..300 {
                        log.append(&delivery(&format!("w{w}-{i}"), &["a.md", "b.md"]))
                            .unwrap();
                    }
                });
            }
        });
        assert!(log.rotated(1).exists(), "the run crossed a rotation");
        let read = log.read(&Filter::default());
        assert!(
            read.problems.is_empty(),
            "{:?}",
            &read.problems[..3.min(read.problems.len())]
        );
        let mut sessions: Vec<String> = read.deliveries.into_iter().map(|d| d.session).collect();
        sessions.sort();
        sessions.dedup();
        assert_eq!(sessions.len(), 8 * 300);
    }

    #[test]
    fn tokens_are_counted_once_per_rule_version() {
        let dir = tempfile::tempdir().unwrap();
        let log = DeliveryLog::new(dir.path());
        let rule = Rule {
            id: "ts.md".into(),
            scope: crate::rules::scope::Scope::Project,
            file_path: "ts.md".into(),
            content: "Use strict TypeScript.".into(),
            metadata: Default::default(),
            format: crate::rules::rule_format::Format::Wave,
            origin: Default::default(),
        };
        let sender = Sender {
            agent: "claude",
            session: "s1",
            subagent: None,
            event: "start",
            project: "/p",
        };
        log.record_rules(&[&rule], &sender).unwrap();
        let cache = std::fs::read(log.dir().join("tokens.bin")).unwrap();
        let version = crate::delivery::session::rule_version(&rule);
        let tokens = crate::delivery::tokens::rule_tokens(&rule) as u32;
        let key = u64::from_str_radix(&version, 16).unwrap();
        let record = |n: u32| [&key.to_le_bytes()[..], &n.to_le_bytes()[..]].concat();
        assert_eq!(cache, record(tokens));
        // A count in the cache is used as it is.
        std::fs::write(log.dir().join("tokens.bin"), record(77)).unwrap();
        log.record_rules(&[&rule, &rule], &sender).unwrap();
        let read = log.read(&Filter::default()).deliveries;
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].tokens, u64::from(tokens));
        assert_eq!(read[0].rules[0].version, version);
        assert_eq!(read[1].tokens, 154);
        assert_eq!(
            (read[1].agent.as_str(), read[1].event.as_str()),
            ("claude", "start")
        );
    }
}
