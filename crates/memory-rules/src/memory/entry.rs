//! Entries: the notes of a topic file, each with an id and its metadata.
//!
//! A topic file stays Markdown a person reads and edits. Each entry starts
//! with one HTML comment line (invisible when the Markdown is rendered)
//! holding its metadata as JSON, and runs to the next such line:
//!
//! ```text
//! <!-- entry {"id":"m3f9a2c1b7d4e","created":"2025-06-01T10:00:00Z","updated":"2025-06-03T08:12:40Z","agent":"claude-code","paths":["src/db/**"]} -->
//! The staging database listens on port 5433; `psql -p 5433 staging` reaches it.
//! ```
//!
//! The id lives in the comment, so editing the text by hand keeps it; a
//! paragraph a person adds below an entry belongs to that entry. Text before
//! the first comment (a topic file written before entries existed, or a
//! note a person put at the top) is read as entries too, one per paragraph
//! or top-level list item, with an id made from the file and the text
//! (`h` + 12 hex digits); the next write to the topic writes their comments,
//! with those same ids, so nothing needs migrating. A comment whose JSON
//! cannot be read still starts an entry (with an id made from its text) and
//! is reported by `memory lint`.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::{SystemTime, UNIX_EPOCH};

/// The opening of an entry's comment line.
pub const MARKER: &str = "<!-- entry ";
const MARKER_END: &str = "-->";

/// Who or what wrote an entry, and when.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    pub id: String,
    /// RFC 3339, UTC, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// The agent that wrote it (`claude-code`, an MCP client's name, `cli`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The agent's session (conversation) id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Globs (as a rule's `paths`): files this note is about.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Keywords (as a rule's `topics`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    /// Given at every session start, whatever the prompt.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// An agent proposed turning it into a rule (a person accepts it with
    /// `wave-rules memory promote`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposed: Option<Proposal>,
    /// A newer entry gives another value of the same fact (its id): search
    /// and recall give that one; `memory lint` lists the pair until `memory
    /// forget` (or a person) removes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// A proposed promotion of an entry into a rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Proposal {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// One note of a topic file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub meta: Meta,
    /// The note, Markdown, without its comment line, trimmed.
    pub text: String,
    /// The 1-based line of the file where it starts (its comment, or its
    /// first line when it has none).
    pub line: usize,
    /// It has a comment line (false: text before the first comment).
    pub marked: bool,
    /// Its comment line could not be read (its metadata is lost; lint says so).
    pub broken: bool,
}

impl Entry {
    /// A new entry with a fresh id, created and updated now.
    pub fn new(text: &str, now: SystemTime) -> Entry {
        let stamp = rfc3339(now);
        Entry {
            meta: Meta {
                id: fresh_id(text, now),
                created: Some(stamp.clone()),
                updated: Some(stamp),
                ..Meta::default()
            },
            text: text.trim().to_string(),
            line: 0,
            marked: true,
            broken: false,
        }
    }

    pub fn id(&self) -> &str {
        &self.meta.id
    }

    /// Its first line without Markdown list or heading marks, at most 80
    /// characters.
    pub fn title(&self) -> String {
        title_of(&self.text)
    }

    /// Seconds since the epoch of its last update (or creation); 0 unknown.
    pub fn updated_secs(&self) -> i64 {
        self.meta
            .updated
            .as_deref()
            .or(self.meta.created.as_deref())
            .and_then(parse_rfc3339)
            .unwrap_or(0)
    }

    /// The comment line and the text, as written in a topic file (an
    /// `updated` equal to `created` is left out).
    pub fn render(&self) -> String {
        let mut meta = self.meta.clone();
        if meta.updated == meta.created {
            meta.updated = None;
        }
        let json = serde_json::to_string(&meta).unwrap_or_else(|_| "{}".into());
        // `>` only occurs inside JSON strings: escaped, no value can close
        // the comment early.
        let json = json.replace('>', "\\u003e");
        format!("{MARKER}{json} {MARKER_END}\n{}\n", self.text.trim())
    }
}

/// The first line of a note without Markdown list or heading marks, at most
/// 80 characters.
pub fn title_of(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line = line.trim_start_matches('#').trim_start();
    let line = strip_list_mark(line);
    let mut out: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        out.push('…');
    }
    out
}

fn strip_list_mark(line: &str) -> &str {
    for mark in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(mark) {
            return rest;
        }
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        if let Some(rest) = line[digits..]
            .strip_prefix(". ")
            .or_else(|| line[digits..].strip_prefix(") "))
        {
            return rest;
        }
    }
    line
}

/// The entries of a topic file's text. `file` (the topic's file name) goes
/// into the ids of entries without a comment, so the same text in two
/// topics has two ids.
pub fn parse(file: &str, text: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut legacy: Vec<(usize, String)> = Vec::new();
    let mut current: Option<Entry> = None;
    let mut fence: Option<&str> = None;
    let mut block = Block::default();
    for (n, line) in text.lines().enumerate() {
        let lineno = n + 1;
        if fence.is_none() {
            if let Some(meta) = marker(line) {
                if let Some(mut e) = current.take() {
                    e.text = e.text.trim().to_string();
                    entries.push(e);
                } else {
                    block.flush(&mut legacy);
                }
                let (meta, broken) = match meta {
                    Some(m) => (m, false),
                    None => (Meta::default(), true),
                };
                current = Some(Entry {
                    meta,
                    text: String::new(),
                    line: lineno,
                    marked: true,
                    broken,
                });
                continue;
            }
        }
        let trimmed = line.trim_start();
        let opens = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
        match (fence, opens) {
            (None, Some(f)) => fence = Some(f),
            (Some(f), Some(g)) if f == g => fence = None,
            _ => {}
        }
        match current.as_mut() {
            Some(e) => {
                e.text.push_str(line);
                e.text.push('\n');
            }
            None => block.line(
                line,
                lineno,
                fence.is_some() && opens.is_none(),
                &mut legacy,
            ),
        }
    }
    if let Some(mut e) = current.take() {
        e.text = e.text.trim().to_string();
        entries.push(e);
    } else {
        block.flush(&mut legacy);
    }
    // Entries before the first comment come first, in file order.
    let mut out: Vec<Entry> = legacy
        .into_iter()
        .map(|(line, text)| Entry {
            meta: Meta {
                id: derived_id(file, &text),
                ..Meta::default()
            },
            text,
            line,
            marked: false,
            broken: false,
        })
        .collect();
    for e in entries
        .iter_mut()
        .filter(|e| e.broken || e.meta.id.is_empty())
    {
        e.meta.id = derived_id(file, &e.text);
    }
    out.extend(entries);
    // Ids are unique within a file: a repeated one gets `-2`, `-3`, ...
    let mut seen = std::collections::HashSet::new();
    for e in &mut out {
        if !seen.insert(e.meta.id.clone()) {
            let base = e.meta.id.clone();
            let mut n = 2;
            while !seen.insert(format!("{base}-{n}")) {
                n += 1;
            }
            e.meta.id = format!("{base}-{n}");
        }
    }
    out.retain(|e| !e.text.is_empty() || e.marked);
    out
}

/// The text of a topic file holding these entries.
pub fn render(entries: &[Entry]) -> String {
    let mut out = String::new();
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&e.render());
    }
    out
}

/// `Some(Some(meta))` for an entry comment, `Some(None)` for one whose JSON
/// cannot be read, `None` for any other line.
fn marker(line: &str) -> Option<Option<Meta>> {
    let rest = line.trim().strip_prefix(MARKER)?;
    let json = rest.strip_suffix(MARKER_END)?.trim();
    Some(
        serde_json::from_str::<Meta>(json)
            .ok()
            .filter(|m| valid_id(&m.id)),
    )
}

/// An id as written: 1 to 64 ASCII letters, digits, `-` or `_`.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Splits text before the first comment into blocks: paragraphs (blank
/// lines between), each top-level list item its own block, a heading joined
/// to what follows it; never inside a code fence.
#[derive(Default)]
struct Block {
    text: String,
    start: usize,
    /// The block so far is only a heading.
    heading_only: bool,
}

impl Block {
    fn line(&mut self, line: &str, lineno: usize, in_fence: bool, out: &mut Vec<(usize, String)>) {
        if in_fence {
            self.push(line, lineno);
            self.heading_only = false;
            return;
        }
        if line.trim().is_empty() {
            if self.heading_only {
                self.text.push('\n');
            } else {
                self.flush(out);
            }
            return;
        }
        let top_item = !line.starts_with([' ', '\t'])
            && (["- ", "* ", "+ "].iter().any(|m| line.starts_with(m))
                || strip_list_mark(line).len() < line.len());
        let heading = line.starts_with('#');
        if (top_item || heading) && !self.heading_only {
            self.flush(out);
        }
        self.push(line, lineno);
        self.heading_only = heading && (self.heading_only || self.text.lines().count() == 1);
    }

    fn push(&mut self, line: &str, lineno: usize) {
        if self.text.is_empty() {
            self.start = lineno;
        }
        self.text.push_str(line);
        self.text.push('\n');
    }

    fn flush(&mut self, out: &mut Vec<(usize, String)>) {
        let text = std::mem::take(&mut self.text);
        self.heading_only = false;
        let text = text.trim();
        if !text.is_empty() {
            out.push((self.start, text.to_string()));
        }
    }
}

/// The id of an entry without a comment: `h` and 12 hex digits of the
/// SHA-256 of its file name and its text (white space folded).
pub fn derived_id(file: &str, text: &str) -> String {
    let folded: Vec<&str> = text.split_whitespace().collect();
    let digest = Sha256::digest(format!("{file}\0{}", folded.join(" ")).as_bytes());
    format!("h{}", hex(&digest[..6]))
}

/// A new entry's id: `m` and 12 hex digits of the SHA-256 of the time, this
/// process, a counter and the text: unique across processes writing at once.
pub fn fresh_id(text: &str, now: SystemTime) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let digest = Sha256::digest(
        format!("{nanos}\0{}\0{n}\0{text}", crate::base::fs::process_tag()).as_bytes(),
    );
    format!("m{}", hex(&digest[..6]))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `2025-06-01T10:00:00Z`.
pub fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Seconds since the epoch of an RFC 3339 time; `None` when it is not one.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|t| t.timestamp())
}

/// `2025-06-01` (UTC) from seconds since the epoch; `unknown` for 0.
pub fn day(secs: i64) -> String {
    if secs == 0 {
        return "unknown".into();
    }
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs.max(0) as u64);
    rfc3339(t).chars().take(10).collect()
}

/// The parts of a rule (or of any note): paragraphs and list items, as
/// [`parse`] splits text without comments.
pub fn parts(text: &str) -> Vec<String> {
    parse("", text).into_iter().map(|e| e.text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.text.as_str()).collect()
    }

    #[test]
    fn legacy_text_splits_into_paragraphs_items_and_headed_blocks() {
        let text = "# Build\n\nRun `make` first.\nThen `make test`.\n\n- Use pnpm\n- Node 22\n  (not 20)\n1. one\n2. two\n\n## Ports\nstaging 5433\n\n```sh\nx\n\n- not an item\n```\n";
        let e = parse("build.md", text);
        assert_eq!(
            texts(&e),
            [
                "# Build\n\nRun `make` first.\nThen `make test`.",
                "- Use pnpm",
                "- Node 22\n  (not 20)",
                "1. one",
                "2. two",
                "## Ports\nstaging 5433",
                "```sh\nx\n\n- not an item\n```"
            ]
        );
        assert_eq!(e[1].line, 6);
        assert!(e.iter().all(|e| !e.marked && e.meta.id.starts_with('h')));
        assert_eq!(e[0].title(), "Build");
        assert_eq!(e[1].title(), "Use pnpm");
    }

    #[test]
    fn derived_ids_are_stable_and_depend_on_file_and_text() {
        let a = parse("a.md", "one\n\ntwo\n");
        let again = parse("a.md", "one\n\n\n  two  \n");
        assert_eq!(a[0].meta.id, again[0].meta.id);
        assert_eq!(a[1].meta.id, again[1].meta.id);
        assert_ne!(a[0].meta.id, parse("b.md", "one\n")[0].meta.id);
        let dup = parse("a.md", "same\n\nsame\n\nsame\n");
        let ids: Vec<&str> = dup.iter().map(Entry::id).collect();
        assert_eq!(ids[1], format!("{}-2", ids[0]));
        assert_eq!(ids[2], format!("{}-3", ids[0]));
    }

    #[test]
    fn marked_entries_round_trip_and_keep_their_ids_through_hand_edits() {
        let now = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_750_000_000);
        let mut a = Entry::new("Port is 5433.", now);
        a.meta.paths = vec!["src/{a,b}/**".into()];
        a.meta.agent = Some("x --> y".into());
        let b = Entry::new("- Use pnpm, not npm.", now);
        assert_ne!(a.meta.id, b.meta.id);
        let text = render(&[a.clone(), b.clone()]);
        assert!(!text.contains("x --> y"), "{text}");
        let back = parse("t.md", &text);
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].meta.updated, None, "the same as created: left out");
        assert_eq!(back[0].meta.created, a.meta.created);
        assert_eq!(back[0].meta.paths, a.meta.paths);
        assert_eq!(back[0].meta.agent, a.meta.agent);
        assert_eq!(back[0].text, "Port is 5433.");
        assert_eq!(back[1].meta.id, b.meta.id);
        assert_eq!(a.meta.created.as_deref(), Some("2025-06-15T15:06:40Z"));
        assert_eq!(a.updated_secs(), 1_750_000_000);
        // A person rewrites the text and adds a paragraph: same id, one entry.
        let edited = text.replace("Port is 5433.", "Port is 5434 now.\n\nSee the wiki.");
        let back = parse("t.md", &edited);
        assert_eq!(back[0].meta.id, a.meta.id);
        assert_eq!(back[0].text, "Port is 5434 now.\n\nSee the wiki.");
    }

    #[test]
    fn text_above_the_first_comment_and_a_broken_comment() {
        let now = SystemTime::UNIX_EPOCH;
        let e = Entry::new("kept", now);
        let text = format!(
            "old note\n\n{}<!-- entry {{not json -->\nbroken meta\n",
            e.render()
        );
        let back = parse("t.md", &text);
        assert_eq!(texts(&back), ["old note", "kept", "broken meta"]);
        assert!(!back[0].marked && back[1].marked && back[2].broken);
        assert!(back[2].meta.id.starts_with('h'));
        assert_eq!(back[2].line, 5);
    }

    #[test]
    fn a_comment_inside_a_code_fence_is_text() {
        let text = "```\n<!-- entry {\"id\":\"x1\"} -->\n```\n";
        let back = parse("t.md", text);
        assert_eq!(back.len(), 1);
        assert!(!back[0].marked);
    }

    #[test]
    fn ids_are_checked() {
        assert!(valid_id("m3f9a2c1b7d4e"));
        assert!(!valid_id(""));
        assert!(!valid_id("a b"));
        assert!(!valid_id(&"x".repeat(65)));
        let back = parse("t.md", "<!-- entry {\"id\":\"../x\"} -->\nbad id\n");
        assert!(back[0].broken);
    }
}
