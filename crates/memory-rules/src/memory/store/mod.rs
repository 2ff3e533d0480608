//! `MemoryStore`: read and write topics and keep `MEMORY.md` in step.

pub mod prompt;
pub mod rule_parts;
pub mod write;

use super::memory_md::TopicList;
use super::name::topic_file;
use crate::base::fs::{self, Links, Lock};
use crate::base::limits::{MAX_MEMORY_TOPIC_BYTES, MEMORY_LOCK_TIMEOUT};
use sha2::{Digest, Sha256};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The index file of a scope.
pub const INDEX_FILE: &str = "MEMORY.md";
/// The saved search index's file in a scope's directory (`memory::search`).
pub const SEARCH_INDEX_FILE: &str = ".search-index";

/// Whose memory: the user's (all projects) or this project's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryScope {
    User,
    Project,
}

impl MemoryScope {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryScope::User => "user",
            MemoryScope::Project => "project",
        }
    }

    /// `user` or `project`.
    pub fn parse(s: &str) -> Option<MemoryScope> {
        match s {
            "user" => Some(MemoryScope::User),
            "project" => Some(MemoryScope::Project),
            _ => None,
        }
    }
}

impl fmt::Display for MemoryScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How `write_topic` treats existing content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMode {
    /// Adds the content after what is there, on a new line.
    Append,
    /// Replaces the topic's content.
    Replace,
}

/// Why a memory operation failed; each names what it was about.
#[derive(Debug, Error)]
pub enum MemoryError {
    #[error("invalid topic name '{name}': a topic name needs at least one letter or digit")]
    InvalidName { name: String },
    #[error("no {scope} memory topic '{topic}'")]
    UnknownTopic { scope: MemoryScope, topic: String },
    #[error("{scope} memory topic '{topic}' would be {size} bytes, over the {MAX_MEMORY_TOPIC_BYTES}-byte limit for a topic; nothing written (replace it with a shorter text)")]
    TooLarge {
        scope: MemoryScope,
        topic: String,
        size: usize,
    },
    #[error("the note is empty; nothing saved")]
    Empty,
    #[error("{}", unknown_entry_message(id, candidates))]
    UnknownEntry { id: String, candidates: Vec<String> },
    #[error("{0}")]
    Refused(String),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

impl MemoryError {
    pub(crate) fn unknown_entry(id: &str, candidates: Vec<String>) -> MemoryError {
        MemoryError::UnknownEntry {
            id: id.to_string(),
            candidates,
        }
    }
}

fn unknown_entry_message(id: &str, candidates: &[String]) -> String {
    if candidates.len() > 1 {
        let shown: Vec<&str> = candidates.iter().take(5).map(String::as_str).collect();
        format!(
            "'{id}' starts {} memory entry ids ({}{}); give more of it",
            candidates.len(),
            shown.join(", "),
            if candidates.len() > 5 { ", ..." } else { "" }
        )
    } else {
        format!("no memory entry '{id}' (`wave-rules memory search` shows ids)")
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> MemoryError + '_ {
    move |source| MemoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Where the two scopes live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLocations {
    pub user_dir: PathBuf,
    pub project_dir: PathBuf,
}

impl MemoryLocations {
    /// The default places for a home and a project root.
    pub fn new(home: &Path, project_root: &Path) -> MemoryLocations {
        MemoryLocations {
            user_dir: home.join(".wave").join("memory"),
            project_dir: home
                .join(".wave")
                .join("projects")
                .join(project_hash(project_root))
                .join("memory"),
        }
    }
}

/// First 16 hex digits of the SHA-256 of the project root's canonical path
/// (its absolute path if it cannot be resolved).
pub fn project_hash(project_root: &Path) -> String {
    let path = std::fs::canonicalize(project_root)
        .or_else(|_| std::path::absolute(project_root))
        .unwrap_or_else(|_| project_root.to_path_buf());
    let digest = Sha256::digest(path.to_string_lossy().as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// A topic as the index lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicEntry {
    /// The name given when the topic was first written.
    pub name: String,
    /// Its file in the scope's directory.
    pub file: String,
}

/// Reads and writes memory topics. Cheap to clone; holds only paths.
#[derive(Clone, Debug)]
pub struct MemoryStore {
    locations: MemoryLocations,
}

impl MemoryStore {
    pub fn new(locations: MemoryLocations) -> MemoryStore {
        MemoryStore { locations }
    }

    pub fn locations(&self) -> &MemoryLocations {
        &self.locations
    }

    /// The directory of a scope.
    pub fn dir(&self, scope: MemoryScope) -> &Path {
        match scope {
            MemoryScope::User => &self.locations.user_dir,
            MemoryScope::Project => &self.locations.project_dir,
        }
    }

    /// The index text; empty when the scope has none yet.
    pub fn read_index(&self, scope: MemoryScope) -> Result<String, MemoryError> {
        read_or_empty(&self.dir(scope).join(INDEX_FILE))
    }

    /// The topics the index lists, sorted by file.
    pub fn list_topics(&self, scope: MemoryScope) -> Result<Vec<TopicEntry>, MemoryError> {
        let index = TopicList::parse(&self.read_index(scope)?);
        let mut entries: Vec<TopicEntry> = index
            .entries
            .into_iter()
            .map(|(name, file)| TopicEntry { name, file })
            .collect();
        entries.sort_by(|a, b| a.file.cmp(&b.file));
        entries.dedup_by(|a, b| a.file == b.file);
        Ok(entries)
    }

    /// A topic's content. An unknown topic is an error that names it.
    pub fn read_topic(&self, scope: MemoryScope, topic: &str) -> Result<String, MemoryError> {
        let file = self.file_of(topic)?;
        let path = self.dir(scope).join(&file);
        match fs::read_prefix(&path, MAX_MEMORY_TOPIC_BYTES as u64, Links::Refuse) {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(MemoryError::UnknownTopic {
                scope,
                topic: topic.to_string(),
            }),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Deletes a topic and its index line. An unknown topic is an error.
    pub fn remove_topic(&self, scope: MemoryScope, topic: &str) -> Result<(), MemoryError> {
        let file = self.file_of(topic)?;
        let dir = self.dir(scope);
        if !dir.is_dir() {
            return Err(MemoryError::UnknownTopic {
                scope,
                topic: topic.to_string(),
            });
        }
        let _lock = Lock::acquire(dir, "memory", MEMORY_LOCK_TIMEOUT).map_err(io_err(dir))?;
        let path = dir.join(&file);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(MemoryError::UnknownTopic {
                    scope,
                    topic: topic.to_string(),
                })
            }
            Err(e) => return Err(io_err(&path)(e)),
        }
        self.update_index(dir, |index| index.remove(&file))
    }

    /// Deletes every topic of a scope and its index.
    pub fn clear(&self, scope: MemoryScope) -> Result<(), MemoryError> {
        let dir = self.dir(scope);
        if !dir.is_dir() {
            return Ok(());
        }
        let _lock = Lock::acquire(dir, "memory", MEMORY_LOCK_TIMEOUT).map_err(io_err(dir))?;
        for entry in std::fs::read_dir(dir).map_err(io_err(dir))?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_ours = name.ends_with(".md")
                || name == SEARCH_INDEX_FILE
                || (name.starts_with('.') && name.ends_with(".tmp"));
            if is_ours && entry.file_type().is_ok_and(|t| t.is_file()) {
                std::fs::remove_file(entry.path()).map_err(io_err(&entry.path()))?;
            }
        }
        Ok(())
    }

    pub(crate) fn file_of(&self, topic: &str) -> Result<String, MemoryError> {
        topic_file(topic).ok_or_else(|| MemoryError::InvalidName {
            name: topic.to_string(),
        })
    }

    /// Read-modify-write of the index; the caller holds the lock.
    fn update_index(
        &self,
        dir: &Path,
        change: impl FnOnce(&mut TopicList),
    ) -> Result<(), MemoryError> {
        let path = dir.join(INDEX_FILE);
        let mut index = TopicList::parse(&read_or_empty(&path)?);
        change(&mut index);
        fs::replace(&path, index.render().as_bytes()).map_err(io_err(&path))
    }
}

/// A memory file's text (never through a symlink, at most a topic's limit
/// plus one byte, so an oversized file is caught); empty when missing.
fn read_or_empty(path: &Path) -> Result<String, MemoryError> {
    match fs::read_prefix(path, MAX_MEMORY_TOPIC_BYTES as u64 + 1, Links::Refuse) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(io_err(path)(e)),
    }
}
