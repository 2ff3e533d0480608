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

/// At most this many entries in one rule's `commands`.
pub const MAX_COMMANDS_PER_RULE: usize = 256;

/// A command pattern longer than this (characters) is refused.
pub const MAX_COMMAND_PATTERN_CHARS: usize = 1024;

/// A rule's `summary` longer than this (characters) is cut there.
pub const MAX_SUMMARY_CHARS: usize = 300;

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

/// At most this many subagents are live in one session (their
/// conversations kept, and the tasks announced for them); a new one past
/// that forgets the oldest, which, if it comes back, starts empty.
pub const MAX_SUBAGENTS: usize = 64;

/// How many tool calls after a path rule was given a write to a file it
/// governs brings it back, in short form, unless told otherwise (`recall`).
pub const DEFAULT_EDIT_DISTANCE: u64 = 20;

/// At most this many rules come back at one write (`recall`).
pub const MAX_RECALLED_RULES: usize = 16;

/// `load_for_prompt` returns at most this many bytes unless told otherwise.
pub const DEFAULT_MEMORY_PROMPT_BYTES: usize = 64 * 1024;

/// How long a memory write waits for another process's lock before it fails.
pub const MEMORY_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// `@path` imports (CLAUDE.md, GEMINI.md) are followed at most this many
/// hops from the memory file, as Claude Code and Gemini CLI follow them.
pub const MAX_IMPORT_DEPTH: usize = 5;

/// At most this many files are imported from one memory file (all hops).
pub const MAX_IMPORTS_PER_FILE: usize = 64;

/// The project root is looked for at most this many directories up.
pub const MAX_ROOT_WALK: usize = 256;

/// "Did you mean" compares words of at most this many characters.
pub const MAX_SUGGEST_CHARS: usize = 128;

/// `shell`: a command line longer than this (bytes) is not parsed.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// `shell`: a command line with more whitespace-separated words than this is not parsed.
pub const MAX_COMMAND_WORDS: usize = 4096;
/// Brackets (`(`, `{`, `` ` ``) nest at most this deep, `$(...)` and `bash -c`
/// included (the parser and the walk recurse in the nesting).
pub const MAX_COMMAND_DEPTH: usize = 32;

/// A skill name (`skills:` in a rule, a skill the agent activates) longer
/// than this (characters) is refused: Claude Code's own limit for a skill's
/// name is 64, a plugin's namespace (`plugin:skill`) comes on top.
pub const MAX_SKILL_NAME_CHARS: usize = 128;
/// A session records at most this many active skills; past it a skill is
/// not recorded (its rules are not delivered, and a hook says so once).
pub const MAX_SKILLS: usize = 64;
/// A skill's `SKILL.md` is read (once, when the skill becomes active, to see
/// whether it uses the memory tools) up to this many bytes; the rest is not
/// looked at.
pub const MAX_SKILL_FILE_BYTES: u64 = 256 * 1024;

/// A file touched is read for the rules with a `regex` (Continue) up to
/// this many bytes; the rest is not looked at.
pub const MAX_CONTENT_BYTES: u64 = 1024 * 1024;
/// At most this many files are read for `regex` rules per agent event; the
/// others are decided without their content (not active by content).
pub const MAX_CONTENT_FILES: usize = 64;
/// The memory text given at a session start takes at most this many lines
/// unless told otherwise.
pub const DEFAULT_MEMORY_LINES: usize = 120;
/// A process keeps at most this many conversations in memory unless told
/// otherwise ([`crate::conversations::Conversations`]); past it the least
/// recently used one is forgotten (it comes back empty: its rules are given
/// again).
pub const DEFAULT_MAX_CONVERSATIONS: usize = 1000;

/// At most this many rule ids per collection of a session (delivered,
/// topics, mentioned, render order, sticky; the rules at the edit's record).
pub const MAX_SESSION_RULES: usize = 20_000;
