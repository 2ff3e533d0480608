//! Every limit of the engine, in one place.
//!
//! Each stage checks its limit *before* the work it bounds, and a limit that
//! is hit becomes a diagnostic (code `limit`) naming it, never a crash, a hang
//! or unbounded memory. The values sit far above any real rule file: the
//! largest of the 330 real files in `../shared/corpus` has 6 frontmatter keys,
//! 27 list items and a 1,046-character line.

/// A rule file larger than this (bytes) is not loaded. Reads never take more
/// than this plus one byte, whatever the file turns into after the walk.
pub const MAX_RULE_BYTES: u64 = 256 * 1024;

/// At most this many rule files are loaded from one rules directory (the
/// rest are reported once and not read).
pub const MAX_RULE_FILES_PER_SOURCE: usize = 10_000;

/// At most this many top-level keys in one frontmatter block.
pub const MAX_FRONTMATTER_KEYS: usize = 256;

/// At most this many entries in one rule's `paths`.
pub const MAX_PATTERNS_PER_RULE: usize = 512;

/// A glob longer than this (characters) is refused.
pub const MAX_PATTERN_CHARS: usize = 4096;

/// Braces nest at most this deep in one glob (parsing is recursive in the
/// nesting, so this also bounds the stack).
pub const MAX_BRACE_DEPTH: usize = 16;

/// Brace expansion yields at most this many globs from one pattern.
pub const MAX_EXPANSIONS: usize = 1024;

/// Brace expansion yields at most this many characters in total from one
/// pattern (counted before expanding, zero-padded ranges included).
pub const MAX_EXPANDED_CHARS: usize = 256 * 1024;

/// At most this many entries in one rule's `topics`.
pub const MAX_TOPICS_PER_RULE: usize = 256;

/// A topic longer than this (characters) is refused.
pub const MAX_TOPIC_CHARS: usize = 256;

/// At most this many topics over all rules of a discovery; the topics of the
/// rules after that (in result order) are reported and not matched.
pub const MAX_TOPICS_TOTAL: usize = 20_000;

/// A memory topic larger than this (bytes) is refused on write and cut on read.
pub const MAX_MEMORY_TOPIC_BYTES: usize = 256 * 1024;

/// A rules section handed to an agent (a hook's answer, an MCP
/// `rules_for_files` answer) takes at most this many UTF-8 bytes unless told
/// otherwise: Claude Code keeps a hook's context to about 10,000 characters.
pub const DEFAULT_RULES_BYTES: usize = 9_000;

/// `load_for_prompt` returns at most this many bytes unless told otherwise.
pub const DEFAULT_MEMORY_PROMPT_BYTES: usize = 64 * 1024;

/// How long a memory write waits for another process's lock before it fails.
pub const MEMORY_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
