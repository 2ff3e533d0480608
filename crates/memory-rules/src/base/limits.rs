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

/// A prompt is looked up among the topics directly (its word starts
/// sorted, each topic binary searched) only when sorting them takes at most
/// this many byte comparisons (word starts x their log x the longest topic
/// in bytes); a longer prompt builds the topic automaton and scans.
pub const MAX_DIRECT_STEPS: usize = 1 << 20;

/// A memory topic larger than this (bytes) is refused on write and cut on read.
pub const MAX_MEMORY_TOPIC_BYTES: usize = 256 * 1024;

/// A rules section handed to an agent (a hook's answer, an MCP
/// `rules_for_files` answer) takes at most this many UTF-8 bytes unless told
/// otherwise: Claude Code keeps a hook's context to about 10,000 characters.
pub const DEFAULT_RULES_BYTES: usize = 9_000;

/// At most this many topic files of one memory scope are searched (the
/// rest are reported and left out of the index).
pub const MAX_MEMORY_TOPICS: usize = 10_000;

/// At most this many entries of one memory scope are searched (the topics
/// after that are reported and left out of the index).
pub const MAX_MEMORY_ENTRIES: usize = 200_000;

/// A memory scope's saved search index larger than this (bytes) is not read:
/// it is built again from the topic files.
pub const MAX_MEMORY_INDEX_BYTES: u64 = 512 << 20;

/// An agent's own memory file (Claude Code's auto memory, Codex's memories,
/// a `GEMINI.md`) larger than this (bytes) is not read: a diagnostic names
/// it and the others are still read (size checked before reading).
pub const MAX_AGENT_MEMORY_FILE_BYTES: u64 = 256 * 1024;

/// At most this many files of one agent's memory folder are read (in name
/// order); the rest are reported.
pub const MAX_AGENT_MEMORY_FILES: usize = 1_000;

/// `memory lint` reports a topic file larger than this (bytes): split it
/// (a topic can hold up to [`MAX_MEMORY_TOPIC_BYTES`]).
pub const MEMORY_TOPIC_LINT_BYTES: u64 = 32 * 1024;

/// Memory recalled at one event of a conversation (a prompt, files
/// touched, a start's pinned entries): at most this many entries...
pub const DEFAULT_RECALL_ENTRIES: usize = 5;

/// ... and at most this many bytes of their text.
pub const DEFAULT_RECALL_BYTES: usize = 3_000;

/// A session remembers at most this many memory entry ids (given since the
/// start, and given before the last compaction); past it an entry may be
/// given again.
pub const MAX_SESSION_MEMORY: usize = 4_096;
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
/// otherwise ([`crate::delivery::conversations::Conversations`]); past it the least
/// recently used one is forgotten (it comes back empty: its rules are given
/// again).
pub const DEFAULT_MAX_CONVERSATIONS: usize = 1000;
/// `export` reads a file already in a target's place (to compare it with
/// what it would write) up to this many bytes; a larger one is a conflict.
pub const MAX_TARGET_FILE_BYTES: u64 = 64 << 20;
/// A settings file an install edits (an agent's hooks, a client's MCP
/// servers) larger than this is refused, left as it is.
pub const MAX_SETTINGS_BYTES: u64 = 8 << 20;

// ---- parsing ----

/// How many times the leniency pass re-parses after quoting the line the
/// parser stopped at.
pub const MAX_REPAIR_ROUNDS: usize = 8;

/// A hit's word is cut to this many characters.
pub const MAX_WORD_CHARS: usize = 80;

// ---- the walks of other agents' formats ----

/// Directory levels below the project root that are searched.
pub const MAX_NESTED_DEPTH: usize = 8;

/// Directories visited at most in one walk.
pub const MAX_NESTED_DIRS: usize = 20_000;

/// Threads the walk runs on at most (no more than the cores there are).
pub const MAX_WALK_THREADS: usize = 4;

/// The most entries read from one file.
pub const MAX_RULES_YAML_ENTRIES: usize = 1000;

// ---- reload ----

/// A file whose mtime is this close to (or after) the previous scan may have
/// changed within the same timestamp tick: it is read again and compared.
/// Two seconds covers the coarsest common file systems (FAT).
pub const RACY_WINDOW: std::time::Duration = std::time::Duration::from_secs(2);

// ---- delivery: sessions, the read_rule offer ----

/// Longest description shown in the list, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 200;

/// At most this many files touched are remembered per session.
pub const MAX_SESSION_FILES: usize = 4096;

/// At most this many rule ids per collection of a session (delivered,
/// topics, mentioned, render order, sticky).
pub const MAX_SESSION_RULES: usize = 20_000;

// ---- memory ----

/// Room kept for the closing line when the byte budget cuts.
pub const MEMORY_CLOSING_BYTES: usize = 256;

/// Longest file stem a topic name maps to.
pub const MAX_MEMORY_NAME_CHARS: usize = 64;

// ---- export ----

/// How many lines from the top of a file the header is looked for in.
pub const MARKER_LINES: usize = 12;

/// Rules exported at most in one plan.
pub const MAX_EXPORT_RULES: usize = 20_000;

/// Files looked at per target when searching for stale generated files.
pub const MAX_SCAN_FILES: usize = 50_000;

/// Threads that read and write the files of one export at most.
pub const MAX_IO_THREADS: usize = 8;

/// Lines per side of an export diff beyond which whole texts are shown.
pub const MAX_DIFF_LINES: usize = 4_000;

// ---- the CLI ----

/// Longest id (without `.md`) that `add` makes from the content.
pub const MAX_ID_CHARS: usize = 40;

/// `add` tries at most this many numbered ids (`x-2.md`, `x-3.md`, ...).
pub const MAX_ID_SUFFIX: usize = 1000;

// ---- the hooks ----

/// The most a hook reads from stdin (a `Write` event carries the file's
/// content): 64 MiB.
pub const MAX_HOOK_INPUT_BYTES: usize = 64 << 20;

/// How long a hook waits for another hook of the same user to finish.
pub const STATE_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// A session file untouched this long is removed.
pub const STATE_STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 3600);

/// A state file larger than this is not read (and the session starts afresh).
pub const MAX_STATE_BYTES: u64 = 4 << 20;

/// At most this many directory entries are looked at per cleanup.
pub const MAX_CLEANUP_ENTRIES: usize = 10_000;

/// Stale session files are looked for at most this often (a listing and a
/// stat per file; a user keeps two weeks of sessions).
pub const CLEAN_STALE_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Empty session files the hooks' watcher keeps ready, so that a new
/// conversation renames one into place instead of making a file (a new
/// inode: 0.2 ms on ext4 against 4 us for a write in place).
pub const SPARE_SESSION_FILES: usize = 4;

/// A cache file larger than this is not read (a full load instead).
pub const MAX_CACHE_BYTES: u64 = 64 << 20;

/// How much of the end of a Gemini CLI transcript is read for the latest
/// prompt size: 1 MiB.
pub const TRANSCRIPT_TAIL_BYTES: u64 = 1 << 20;

/// Seconds Claude Code gives each of our hooks before it moves on.
pub const HOOK_TIMEOUT_SECS: u64 = 10;

// ---- the hooks' watcher (wave-rules hook/watch.rs) ----

/// A hook starts a watcher of its saved discovery from this many rules on
/// (at 100 rules it saves 0.7-1.2 ms an event on a 2-core virtual machine;
/// below this, few projects, and a process each is not worth the stats).
pub const WATCH_MIN_RULES: usize = 64;

/// A hook waits this long for a watcher's answer, then stats the inputs.
pub const WATCH_ANSWER_MS: u64 = 50;

/// A watcher asked nothing for this long ends.
pub const WATCH_IDLE_SECS: u64 = 600;

/// A watcher ends after this long, asked or not (a day).
pub const WATCH_MAX_SECS: u64 = 86_400;

/// A watcher of one cache file is started at most once in this long (one
/// that cannot watch, or ends at every change, is not started on every
/// event).
pub const WATCH_RETRY_SECS: u64 = 60;

// ---- the MCP server ----

/// More directories than this under the sources: no watch (stamp checks).
pub const MAX_WATCHED_DIRS: usize = 2_000;

/// Claude Code cuts a server's instructions at 2,048 characters.
pub const MAX_INSTRUCTIONS_BYTES: usize = 2_000;

/// At most this many paths in one `rules_for_files` call.
pub const MAX_REQUEST_PATHS: usize = 10_000;

/// At most this many bytes of `prompt`.
pub const MAX_PROMPT_BYTES: usize = 256 << 10;

/// How often the rule files are checked for the list-changed notification.
pub const WATCH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(500);

/// One incoming message (a line) is at most this many bytes; a longer one is
/// refused before it is parsed.
pub const MAX_MESSAGE_BYTES: usize = 8 << 20;

// ---- rule packs ----

/// The longest pack SPEC accepted (characters).
pub const MAX_SPEC_CHARS: usize = 2048;

/// At most this many packs in one config file; the rest are not read.
pub const MAX_PACKS: usize = 256;

/// At most this many files are hashed in one pack.
pub const MAX_PACK_FILES: usize = 10_000;

/// At most this many bytes are hashed in one pack.
pub const MAX_PACK_BYTES: u64 = 64 * 1024 * 1024;

/// Codex reads at most this many bytes of project docs (all `AGENTS.md`
/// files of the path together), by default (`project_doc_max_bytes`):
/// `validate` warns of a single file over it.
pub const CODEX_DOC_MAX_BYTES: usize = 32 * 1024;

/// Patterns at most one pattern's braces expand to when written for Cursor.
pub const MAX_CURSOR_GLOB_EXPANSIONS: usize = 64;

/// A log file past this size is rotated.
pub const MAX_LOG_FILE_BYTES: u64 = 2 << 20;

/// Entries older than this are not read, and files older than this are
/// rotated away.
pub const MAX_LOG_AGE: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// One line of the log is at most this long: a delivery of more rules than
/// fit is written as several lines (in the same `write`).
pub const MAX_LOG_LINE_BYTES: usize = 64 * 1024;

/// At most this many rule versions' token counts are cached; past it the
/// cache starts afresh.
pub const MAX_CACHED_TOKEN_COUNTS: usize = 4096;

/// `--check` lists at most this many files over the budget (and counts all).
pub const MAX_CHECK_FILES_LISTED: usize = 20;

/// Threads that match files at most.
pub const MAX_REPORT_MATCH_THREADS: usize = 4;

/// At most this many files are drawn; the walk stops there and says so.
pub const MAX_REPORT_FILES: usize = 1_000_000;

/// Directory levels below the project root that are walked.
pub const MAX_REPORT_DEPTH: usize = 64;

/// Threads the walk runs on at most (no more than the cores there are).
pub const MAX_REPORT_THREADS: usize = 4;

/// The most entries one `memory_search` returns.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The longest rule id (file stem) made from an entry's title.
pub const MAX_PROMOTED_ID_CHARS: usize = 40;

/// Numbered ids tried on a collision.
pub const MAX_PROMOTED_SUFFIX: usize = 1000;

/// Words longer than this (bytes) are not indexed (a hash, a blob).
pub const MAX_WORD_BYTES: usize = 64;

// `wave-rules eval`: the recording proxy between the agent and the model
// (`crates/wave-rules/src/eval/proxy/`).

/// The largest request body the proxy forwards; a larger one is answered
/// 413 (and recorded), never read whole.
pub const MAX_PROXY_REQUEST_BYTES: usize = 32 << 20;

/// The largest request head (request line and headers) the proxy reads.
pub const MAX_PROXY_HEAD_BYTES: usize = 64 << 10;

/// Headers in one request head.
pub const MAX_PROXY_HEADERS: usize = 100;

/// The most of one response the proxy keeps to read usage, tool calls and
/// text from; the agent still gets all of it, and the exchange says it was cut.
pub const MAX_PROXY_RECORDED_BYTES: usize = 16 << 20;

/// Connections the proxy serves at once; one more is answered 503.
pub const MAX_PROXY_CONNECTIONS: usize = 64;

/// Exchanges one proxy records; a request past it is answered 503, not
/// forwarded unrecorded.
pub const MAX_PROXY_EXCHANGES: usize = 10_000;

/// Seconds to connect to the upstream.
pub const MAX_PROXY_CONNECT_SECS: u64 = 30;

/// Seconds the upstream may take to send its response head, and then its
/// whole body (a model thinking, then streaming).
pub const MAX_PROXY_UPSTREAM_SECS: u64 = 600;

/// Seconds a client connection may sit idle between requests.
pub const MAX_PROXY_IDLE_SECS: u64 = 60;

/// Milliseconds `Proxy::stop` waits for the connection threads to end.
pub const MAX_PROXY_STOP_MILLIS: u64 = 5_000;

// `wave-rules eval` (crates/wave-rules/src/eval/).

/// Runs per scenario, agent and arm (`--runs`).
pub const MAX_EVAL_RUNS: u32 = 200;
/// Runs at once (`--jobs`).
pub const MAX_EVAL_JOBS: u32 = 16;
/// One run's time limit unless told otherwise (`--timeout`); its process
/// group is killed after it.
pub const DEFAULT_RUN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);
/// A scenario file (and a rule's `evals:` is read within the rule's own limit).
pub const MAX_SCENARIO_BYTES: usize = 256 * 1024;
/// Scenario files read from `.wave/evals`.
pub const MAX_SCENARIO_FILES: usize = 1_000;
/// Turns of one scenario's conversation (`turns:`); each turn is one run of
/// the agent, bounded by `--timeout`.
pub const MAX_EVAL_TURNS: usize = 20;
/// What a judge model is sent of a run's reply, and of its diff (each).
pub const MAX_JUDGE_EVIDENCE_BYTES: usize = 64 * 1024;
/// What a run keeps for `--regrade` (its reply, the files it changed as
/// they ended, its diff), in all; a run over it keeps nothing.
pub const MAX_REGRADE_KEPT_BYTES: usize = 1024 * 1024;
/// Asks of the judge per `judge:` check (`--judge-runs`, odd).
pub const MAX_JUDGE_RUNS: u32 = 9;
/// Files copied into one run's scratch copy of the project.
pub const MAX_SCRATCH_FILES: usize = 50_000;
/// Bytes copied into one run's scratch copy of the project.
pub const MAX_SCRATCH_BYTES: u64 = 1 << 30;
/// What is kept of an agent's (and a `run:` check's) standard output and error.
pub const MAX_AGENT_OUTPUT_BYTES: usize = 1 << 20;

/// The telemetry spool (`delivery::telemetry::spool`) is kept under this
/// size: a write that would pass it drops the oldest records first (a
/// record counts them).
pub const MAX_SPOOL_BYTES: u64 = 10 << 20;

/// One spool line (the records of one event) is at most this long.
pub const MAX_SPOOL_LINE_BYTES: usize = 256 * 1024;

/// A spool writer waits at most this long for a rewrite of the spool.
pub const SPOOL_LOCK_WAIT_MS: u64 = 20;

/// One OTLP export request carries at most this many bytes of spool lines.
pub const MAX_EXPORT_BYTES: usize = 1 << 20;

/// One shipping run posts at most this many requests.
pub const MAX_SHIP_BATCHES: usize = 64;

/// The longest wait between export attempts (the backoff's and a
/// `Retry-After`'s cap).
pub const MAX_BACKOFF_SECS: u64 = 300;

/// Files Claude Code loaded by itself (`InstructionsLoaded`) remembered for
/// `doctor`'s self-load check.
pub const MAX_SELF_LOADS_SEEN: usize = 256;

/// The telemetry shipper's connect timeout, in seconds.
pub const TELEMETRY_CONNECT_SECS: u64 = 2;

/// The telemetry shipper's send and receive timeouts, each, in seconds.
pub const TELEMETRY_EXCHANGE_SECS: u64 = 10;

/// A shipping run's longest time, in seconds (`telemetry ship --seconds`).
pub const TELEMETRY_SHIP_SECS: u64 = 30;
/// The shipper a hook starts waits this many seconds, after the spool is
/// shipped, for the records of the session's next events (within its
/// `TELEMETRY_SHIP_SECS`); while it waits, hooks start no other.
pub const TELEMETRY_LINGER_SECS: u64 = 10;

/// How long `eval` ships its results before it exits, in seconds.
pub const TELEMETRY_EVAL_SHIP_SECS: u64 = 10;

/// A long-lived road (the MCP server) holds at most this many telemetry
/// records in the process before it spools them (it spools what it holds
/// every `WATCH_INTERVAL` and at its end too).
pub const MAX_TELEMETRY_BATCH_RECORDS: usize = 256;
/// Projects one long-lived process (the addon in an SDK's Node process)
/// keeps telemetry for; past it, a new project's records are not kept.
pub const MAX_TELEMETRY_PROJECTS: usize = 64;

/// An MCP client's session id (`_meta.sessionID`) is kept up to this many
/// bytes; a longer one is ignored (the connection's own id is used).
pub const MAX_CLIENT_SESSION_BYTES: usize = 256;

/// How many of an open file's folders, nearest first, a memory search looks
/// up as folders named elsewhere in its path (`tests/fixtures` in
/// `a/tests/fixtures/x.py`): the lookups grow with the square of it.
pub const MAX_NAMED_FOLDERS: usize = 8;
