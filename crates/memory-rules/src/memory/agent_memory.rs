//! Every agent's own memory, read as entries (never written): Claude Code's
//! auto memory, Codex's memories and the saved memories of Gemini CLI's
//! `GEMINI.md`. `memory search` and `memory lint` take them with
//! `--memory-sources`; `memory import --from AGENT` copies them into our
//! memory through the normal write (hygiene applies). The places and the
//! evidence for them are in docs/memory.md ("Every agent's own memory").
//!
//! Reading never stops at one bad file: a file over
//! [`MAX_AGENT_MEMORY_FILE_BYTES`] (checked before reading), a binary file,
//! or a symlink that leads out of the home (or, for a project file, out of
//! the project) is a problem naming the file, and the others are read.

use super::entry;
use super::hygiene::{self, Profile, Weights};
use crate::base::diagnostic::Diagnostic;
use crate::base::fs::{self, Links, ReadError};
use crate::base::limits::{MAX_AGENT_MEMORY_FILES, MAX_AGENT_MEMORY_FILE_BYTES};
use crate::sources::chosen::chosen_memory_sources;
use std::path::{Path, PathBuf};

/// An agent whose own memory we read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AgentSource {
    Claude,
    Codex,
    Gemini,
}

impl AgentSource {
    pub const ALL: [AgentSource; 3] =
        [AgentSource::Claude, AgentSource::Codex, AgentSource::Gemini];

    /// `claude`, `codex`, `gemini`.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentSource::Claude => "claude",
            AgentSource::Codex => "codex",
            AgentSource::Gemini => "gemini",
        }
    }

    pub fn parse(name: &str) -> Option<AgentSource> {
        AgentSource::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// The memories read: ours (`wave`) and, read-only, the agents' own. Chosen
/// by `--memory-sources`, else by `memory_sources` in the project's
/// `.wave/config.toml` ([`MemorySources::chosen`]), else ours only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemorySources {
    /// Ours (the store) is read.
    pub wave: bool,
    pub agents: Vec<AgentSource>,
}

impl Default for MemorySources {
    /// Ours only.
    fn default() -> MemorySources {
        MemorySources {
            wave: true,
            agents: Vec::new(),
        }
    }
}

impl MemorySources {
    /// `wave`, `claude`, `codex`, `gemini`, as the command line and the
    /// config file name them.
    pub const NAMES: [&'static str; 4] = ["wave", "claude", "codex", "gemini"];

    /// The sources these names give; `Err` names the first unknown one.
    pub fn named<S: AsRef<str>>(names: &[S]) -> Result<MemorySources, String> {
        let mut out = MemorySources {
            wave: false,
            agents: Vec::new(),
        };
        for name in names {
            let name = name.as_ref();
            match (name, AgentSource::parse(name)) {
                ("wave", _) => out.wave = true,
                (_, Some(a)) if !out.agents.contains(&a) => out.agents.push(a),
                (_, Some(_)) => {}
                (_, None) => {
                    return Err(format!(
                        "unknown memory source '{name}' (known: {})",
                        Self::NAMES.join(", ")
                    ))
                }
            }
        }
        Ok(out)
    }

    /// `memory_sources = [...]` in the project's `.wave/config.toml`:
    /// `Ok(None)` when it names none; `Err` naming the file, line and
    /// column of a config that cannot be read or an unknown name.
    pub fn chosen(workdir: &Path) -> Result<Option<MemorySources>, Diagnostic> {
        let Some(chosen) = chosen_memory_sources(workdir)? else {
            return Ok(None);
        };
        for (i, (name, _, _)) in chosen.names.iter().enumerate() {
            if let Err(e) = MemorySources::named(&[name]) {
                return Err(chosen.error_at(i, format!("memory_sources: {e}")));
            }
        }
        let names: Vec<&str> = chosen.names.iter().map(|n| n.0.as_str()).collect();
        Ok(Some(MemorySources::named(&names).unwrap_or_default()))
    }
}

/// Where the agents keep their memory for one project.
#[derive(Clone, Debug)]
pub struct AgentPlaces {
    pub home: PathBuf,
    /// The project root (Claude Code's folder is named after it).
    pub project: PathBuf,
    /// `$CODEX_HOME` when set (else `~/.codex`).
    pub codex_home: Option<PathBuf>,
}

/// One note of an agent's own memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentEntry {
    pub agent: AgentSource,
    pub file: PathBuf,
    /// 1-based line of its first line.
    pub line: usize,
    /// Its topic (a Claude Code memory's `name`, else the file's stem).
    pub topic: String,
    pub text: String,
}

impl AgentEntry {
    /// `claude ~/.claude/projects/-x/memory/testing.md:4`.
    pub fn origin(&self) -> String {
        format!(
            "{} {}:{}",
            self.agent.as_str(),
            self.file.display(),
            self.line
        )
    }
}

/// The entries read and the files that could not be.
#[derive(Clone, Debug, Default)]
pub struct AgentMemory {
    pub entries: Vec<AgentEntry>,
    /// One sentence each, naming the file.
    pub problems: Vec<String>,
}

impl AgentMemory {
    /// The entries most relevant to `query`, best first, at most `limit`:
    /// the IDF (over these entries) of the query's words each has, at least
    /// one rare word shared.
    pub fn search(&self, query: &str, limit: usize) -> Vec<&AgentEntry> {
        if self.entries.is_empty() {
            return Vec::new();
        }
        let profiles: Vec<Profile> = self.entries.iter().map(|e| Profile::of(&e.text)).collect();
        let df = hygiene::document_frequencies(profiles.iter());
        let dff = |w: &str| df.get(w).copied().unwrap_or(0.0);
        let w = Weights {
            n: profiles.len().max(1) as f32,
            df: &dff,
        };
        let asked = Profile::of(query);
        let mut scored: Vec<(f32, usize)> = profiles
            .iter()
            .enumerate()
            .map(|(i, p)| (p.words.intersection(&asked.words).map(|x| w.of(x)).sum(), i))
            .filter(|(s, _)| *s > 0.5)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(limit)
            .map(|(_, i)| &self.entries[i])
            .collect()
    }
}

/// Claude Code's folder name for a project: every character but ASCII
/// letters and digits becomes `-` (its `sanitizePath`); a name over 200
/// characters is cut there and gets a hash, which we match by the prefix.
pub fn claude_project_dir_name(project: &Path) -> String {
    project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Reads the memory of `sources` for the project at `places`.
pub fn read(sources: &[AgentSource], places: &AgentPlaces) -> AgentMemory {
    let mut out = AgentMemory::default();
    for &agent in sources {
        match agent {
            AgentSource::Claude => read_claude(places, &mut out),
            AgentSource::Codex => read_codex(places, &mut out),
            AgentSource::Gemini => read_gemini(places, &mut out),
        }
    }
    out
}

/// `~/.claude/projects/<project>/memory/*.md`: one memory per file
/// (frontmatter `name`, `description`, `metadata.type`, then its text);
/// `MEMORY.md` is the index of links and is not an entry.
fn read_claude(places: &AgentPlaces, out: &mut AgentMemory) {
    let projects = places.home.join(".claude/projects");
    let name = claude_project_dir_name(&places.project);
    let dir = if name.len() <= 200 {
        projects.join(&name).join("memory")
    } else {
        let prefix = format!("{}-", &name[..200]);
        let found = std::fs::read_dir(&projects).ok().and_then(|d| {
            d.flatten().map(|e| e.path()).find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
            })
        });
        match found {
            Some(p) => p.join("memory"),
            None => return,
        }
    };
    for file in md_files(&dir, &places.home, out) {
        if file.file_name().is_some_and(|n| n == "MEMORY.md") {
            continue;
        }
        let Some(text) = read_text(AgentSource::Claude, &file, &places.home, out) else {
            continue;
        };
        let (front, body, line) = split_frontmatter(&text);
        let topic = front_value(front, "name").unwrap_or_else(|| stem(&file));
        let mut note = body.trim().to_string();
        if note.is_empty() {
            note = front_value(front, "description").unwrap_or_default();
        }
        if !note.is_empty() {
            out.entries.push(AgentEntry {
                agent: AgentSource::Claude,
                file,
                line,
                topic,
                text: note,
            });
        }
    }
}

/// `$CODEX_HOME/memories` (default `~/.codex/memories`): `MEMORY.md` (the
/// registry) and `memory_summary.md`, one entry per paragraph or list item,
/// and the ad hoc notes (`extensions/ad_hoc/notes/*.md`), one per file.
fn read_codex(places: &AgentPlaces, out: &mut AgentMemory) {
    let root = places
        .codex_home
        .clone()
        .unwrap_or_else(|| places.home.join(".codex"))
        .join("memories");
    for name in ["MEMORY.md", "memory_summary.md"] {
        let file = root.join(name);
        if !exists(&file) {
            continue;
        }
        if let Some(text) = read_text(AgentSource::Codex, &file, &places.home, out) {
            paragraphs(AgentSource::Codex, &file, &text, out);
        }
    }
    for file in md_files(&root.join("extensions/ad_hoc/notes"), &places.home, out) {
        if let Some(text) = read_text(AgentSource::Codex, &file, &places.home, out) {
            let (_, body, line) = split_frontmatter(&text);
            if !body.trim().is_empty() {
                out.entries.push(AgentEntry {
                    agent: AgentSource::Codex,
                    topic: stem(&file),
                    file,
                    line,
                    text: body.trim().to_string(),
                });
            }
        }
    }
}

/// The `## Gemini Added Memories` section of `~/.gemini/GEMINI.md` and of
/// the project's `GEMINI.md`: one entry per list item.
fn read_gemini(places: &AgentPlaces, out: &mut AgentMemory) {
    for (file, within) in [
        (places.home.join(".gemini/GEMINI.md"), places.home.clone()),
        (places.project.join("GEMINI.md"), places.project.clone()),
    ] {
        if !exists(&file) {
            continue;
        }
        let Some(text) = read_text(AgentSource::Gemini, &file, &within, out) else {
            continue;
        };
        let mut inside = false;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("## ") || line.starts_with("# ") {
                inside = line.trim() == "## Gemini Added Memories";
                continue;
            }
            let item = line
                .trim_start()
                .strip_prefix("- ")
                .or_else(|| line.trim_start().strip_prefix("* "));
            if let (true, Some(item)) = (inside, item) {
                if !item.trim().is_empty() {
                    out.entries.push(AgentEntry {
                        agent: AgentSource::Gemini,
                        file: file.clone(),
                        line: i + 1,
                        topic: "gemini".into(),
                        text: item.trim().to_string(),
                    });
                }
            }
        }
    }
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// The `*.md` files of a folder, in name order, at most
/// [`MAX_AGENT_MEMORY_FILES`] (the rest reported); none when it is absent.
fn md_files(dir: &Path, home: &Path, out: &mut AgentMemory) -> Vec<PathBuf> {
    if !exists(dir) {
        return Vec::new();
    }
    if let Err(why) = inside(dir, home) {
        out.problems
            .push(format!("{}: {why}; not read", dir.display()));
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(d) => d
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect(),
        Err(e) => {
            out.problems
                .push(format!("{}: {e}; not read", dir.display()));
            return Vec::new();
        }
    };
    files.sort();
    if files.len() > MAX_AGENT_MEMORY_FILES {
        out.problems.push(format!(
            "{}: {} memory files, over {MAX_AGENT_MEMORY_FILES}; the rest are not read",
            dir.display(),
            files.len()
        ));
        files.truncate(MAX_AGENT_MEMORY_FILES);
    }
    files
}

/// Whether `path` (followed through its links) stays inside `root`.
fn inside(path: &Path, root: &Path) -> Result<(), String> {
    let real = std::fs::canonicalize(path).map_err(|e| e.to_string())?;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if real.starts_with(&root) {
        Ok(())
    } else {
        Err(format!(
            "a symlink leading out of {} (to {})",
            root.display(),
            real.display()
        ))
    }
}

/// A memory file's text, or a problem naming it: a link out of `within`,
/// over [`MAX_AGENT_MEMORY_FILE_BYTES`] (checked before reading), not a
/// regular file, or binary (a NUL byte or not UTF-8).
fn read_text(
    agent: AgentSource,
    file: &Path,
    within: &Path,
    out: &mut AgentMemory,
) -> Option<String> {
    let problem = |why: String| {
        format!(
            "{} memory {}: {why}; not read",
            agent.as_str(),
            file.display()
        )
    };
    if let Err(why) = inside(file, within) {
        out.problems.push(problem(why));
        return None;
    }
    let bytes = match fs::read_bounded(file, MAX_AGENT_MEMORY_FILE_BYTES, Links::Follow) {
        Ok(b) => b,
        Err(ReadError::TooLarge(n)) => {
            out.problems.push(problem(format!(
                "{n} bytes, over the {MAX_AGENT_MEMORY_FILE_BYTES}-byte limit (MAX_AGENT_MEMORY_FILE_BYTES)"
            )));
            return None;
        }
        Err(e) => {
            out.problems.push(problem(e.to_string()));
            return None;
        }
    };
    if bytes.contains(&0) {
        out.problems
            .push(problem("a binary file (it holds NUL bytes)".into()));
        return None;
    }
    match String::from_utf8(bytes) {
        Ok(t) => Some(t),
        Err(_) => {
            out.problems
                .push(problem("a binary file (not UTF-8)".into()));
            None
        }
    }
}

/// One entry per paragraph or list item of a Markdown file, headings left
/// out.
fn paragraphs(agent: AgentSource, file: &Path, text: &str, out: &mut AgentMemory) {
    // Headings blanked (the lines kept, so the entries' lines are right).
    let text: String = text
        .lines()
        .map(|l| if l.starts_with('#') { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    for e in entry::parse("", &text) {
        let t = e.text.trim();
        let t = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .unwrap_or(t)
            .trim();
        if t.is_empty() {
            continue;
        }
        out.entries.push(AgentEntry {
            agent,
            file: file.to_path_buf(),
            line: e.line.max(1),
            topic: stem(file),
            text: t.to_string(),
        });
    }
}

/// (frontmatter, body, the body's first line).
fn split_frontmatter(text: &str) -> (&str, &str, usize) {
    if let Some(rest) = text.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---") {
            let front = &rest[..end];
            let after = &rest[end + 4..];
            let body = after.strip_prefix('\n').unwrap_or(after);
            let line = front.lines().count() + 3;
            return (front, body, line);
        }
    }
    ("", text, 1)
}

/// A top-level `key: value` of a frontmatter, unquoted.
fn front_value(front: &str, key: &str) -> Option<String> {
    front.lines().find_map(|l| {
        let v = l.strip_prefix(key)?.strip_prefix(':')?.trim();
        let v = v.trim_matches(|c| c == '"' || c == '\'');
        (!v.is_empty()).then(|| v.to_string())
    })
}

fn stem(file: &Path) -> String {
    file.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
