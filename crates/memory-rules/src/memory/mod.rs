//! Memory topics: what the agent learns as it works, kept per user and per
//! project, read and written through two tools, and loaded into the prompt
//! within a budget.
//!
//! Each scope is a directory holding an index, `MEMORY.md`, and one Markdown
//! file per topic. User memory lives in `<home>/.wave/memory/`; project memory
//! in `<home>/.wave/projects/<hash>/memory/`, where `<hash>` is the first 16
//! hex digits of the SHA-256 of the project root's canonical path (so the same
//! project reached through a symlink shares its memory).
//!
//! Nothing is lost: every file is replaced atomically (temp file in the same
//! directory, fsync, rename, fsync of the directory), and writers in different
//! processes take an advisory lock on the scope (`.lock`) for the whole
//! read-modify-write of a topic and the index.

pub mod agent_memory;
pub(crate) mod entry;
mod holders;
pub(crate) mod hygiene;
pub mod lint;
mod memory_md;
mod mood;
mod name;
pub(crate) mod note_values;
mod polarity;
pub mod promote;
pub mod recall;
pub(crate) mod search;
pub(crate) mod secrets;
#[cfg(feature = "internals")]
pub mod similar;
#[cfg(not(feature = "internals"))]
pub(crate) mod similar;
mod slots;
mod store;
pub(crate) mod terms;
pub(crate) mod tools;

pub use entry::{Entry, Meta, Proposal};
pub use name::topic_file;
pub use search::{search_current, without_superseded, EntryRef, MemoryHit, MemoryIndex, Query};
pub use secrets::SecretFinding;
pub use similar::{similar, Candidate, Verdict};
pub use store::write::{
    Forgotten, Note, NoteAction, NoteConflict, NoteWritten, Other, PossibleRestatement,
};
pub use store::{
    project_hash, MemoryError, MemoryLocations, MemoryScope, MemoryStore, TopicEntry, WriteMode,
};
pub use tools::{
    run_tool, run_tool_with, tool_definitions, ToolAnswer, ToolContext, DEFAULT_SEARCH_LIMIT,
};
