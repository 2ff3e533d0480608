//! The report's data: one value that the terminal summary, `--json` and the
//! HTML page all show (the page embeds it as it is, compressed).
//!
//! Files are grouped by the set of path rules that apply to them: `sets`
//! lists each distinct set once (rule indices) with its cost, and a file
//! names its set by index, so a 100,000-file tree costs a few bytes per file.

use serde::Serialize;

/// The version of this data's shape.
pub const REPORT_VERSION: u32 = 1;

#[derive(Serialize, Debug, Default)]
pub struct Report {
    pub version: u32,
    /// The project root the report is about.
    pub root: String,
    pub tokenizer: Tokenizer,
    pub totals: Totals,
    /// Every rule loaded, in result order.
    pub rules: Vec<RuleRow>,
    /// The distinct sets of path rules that apply to some file (indices
    /// into `rules`, ascending); `sets[0]` is the empty set.
    pub sets: Vec<Vec<u32>>,
    /// The tokens a conversation that touches a file of each set is given:
    /// the always-on rules and the set's rules.
    pub set_tokens: Vec<u64>,
    /// The tree, from the project root.
    pub tree: Folder,
    pub problems: Vec<Problem>,
    /// What each export target keeps of the rules.
    pub agents: Vec<Agent>,
    /// Per agent (those measured: docs/agents.md), the rule files it loads
    /// by itself, those our roads add, and the texts it gets more than once.
    pub self_load: Vec<SelfLoadRow>,
    /// What the delivery log says was given in this project.
    pub sessions: Sessions,
    /// `--check`: the budget and what is over it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<Check>,
    /// A limit stopped the walk: which one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

#[derive(Serialize, Debug, Default)]
pub struct Tokenizer {
    pub encoding: &'static str,
    pub models: &'static str,
    pub library: &'static str,
}

#[derive(Serialize, Debug, Default)]
pub struct Totals {
    pub files: u64,
    pub folders: u64,
    pub rules: u64,
    /// The always-on rules: given at the start of every conversation.
    pub always_rules: u64,
    pub always_tokens: u64,
    /// Files with at least one path rule.
    pub governed_files: u64,
    /// The costliest file: its tokens (always-on included) and path.
    pub max_file_tokens: u64,
    pub max_file: String,
    pub problems: u64,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct RuleRow {
    pub id: String,
    pub scope: &'static str,
    pub format: &'static str,
    /// The pack it comes from (`@acme/rules@2.3.1`), if any.
    pub pack: Option<String>,
    /// A policy rule: nothing replaces or disables it.
    pub locked: bool,
    /// The rule's file, relative to the root when under it.
    pub file: String,
    /// `always`, `paths`, `topics`, `paths+topics`, `on-request`, `manual`, ...
    pub kind: String,
    pub priority: i64,
    /// The tokens it adds to a rules section (its rendered entry).
    pub tokens: u64,
    /// Its rendered entry's size in bytes.
    pub bytes: u64,
    /// The version the delivery log names (a hash of id and text).
    pub version: String,
    pub paths: Vec<String>,
    pub topics: Vec<String>,
    pub description: Option<String>,
    /// Files of the tree it governs: every file for an always-on rule, the
    /// files its `paths` match for a path rule, none otherwise.
    pub reach: u64,
    /// Files its `paths` match (path rules only): `reach`, or 0.
    pub path_files: u64,
    /// The problems that name it (indices into `problems`).
    pub problems: Vec<u32>,
    /// Its last measured effect (`wave-rules eval`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<crate::eval::results::Effect>,
}

/// One folder of the tree.
#[derive(Serialize, Debug, Default)]
pub struct Folder {
    pub name: String,
    /// Files below it, at any depth.
    pub files: u64,
    /// Of those, the files at least one path rule governs.
    pub governed: u64,
    /// The costliest file below it (tokens, always-on included).
    pub max: u64,
    /// A conversation that touches every file below it: the always-on
    /// rules and every path rule that applies to one of them.
    pub tokens: u64,
    /// `[rule index, files below it that the rule governs]`, path rules only.
    pub rules: Vec<[u64; 2]>,
    pub folders: Vec<Folder>,
    /// `[name, set index]` of each file directly in it.
    pub entries: Vec<(String, u32)>,
}

#[derive(Serialize, Debug, Clone)]
pub struct Problem {
    /// `diagnostic`, `override`, `no-match`, `matches-all`, `duplicate`,
    /// `common-topic`, `too-large`.
    pub kind: &'static str,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
    /// The rules it is about (indices into `rules`).
    pub rules: Vec<u32>,
    /// The file it is about, relative to the root when under it.
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
}

/// What one agent gets of the project's rule files (files relative to the root).
#[derive(Serialize, Debug, Default)]
pub struct SelfLoadRow {
    pub agent: &'static str,
    /// The agent version the table was measured with.
    pub version: &'static str,
    pub itself: Vec<String>,
    pub ours: Vec<String>,
    /// Copies of one text it is given more than once.
    pub twice: Vec<Vec<String>>,
}

/// What one export target keeps.
#[derive(Serialize, Debug, Default)]
pub struct Agent {
    /// The `--to` name.
    pub target: &'static str,
    /// The tool's name.
    pub tool: &'static str,
    /// Rules written as they are, written in a closer form, left out, and
    /// already the tool's own files.
    pub kept: u64,
    pub lossy: u64,
    pub skipped: u64,
    pub native: u64,
    /// Always-on tokens in that tool (its own files included), from the
    /// export read back by our reader for it.
    pub always_tokens: u64,
    /// One entry per rule of `rules`, in order (`None`: not exported: a user
    /// rule, or a generated file read back).
    pub rules: Vec<Option<AgentRule>>,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct AgentRule {
    /// `kept`, `lossy`, `skipped` or `native`.
    pub status: &'static str,
    /// How the tool activates it, in our words (`always`, `paths`,
    /// `on-request`, ...), from the export read back; empty when skipped.
    pub kind: String,
    /// Files of the tree it governs in that tool.
    pub reach: u64,
    /// Where export writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub notes: Vec<String>,
}

/// The delivery log, for this project.
#[derive(Serialize, Debug, Default)]
pub struct Sessions {
    /// Whether the log is on (`WAVE_RULES_LOG`).
    pub enabled: bool,
    /// The log's file.
    pub log: String,
    /// The sessions looked at for `never_fired`.
    pub window: u64,
    pub deliveries: u64,
    pub tokens: u64,
    /// Newest first.
    pub sessions: Vec<SessionRow>,
    /// Rules by tokens delivered: `[rule index, times given, tokens]`, for
    /// every rule given at least once, most tokens first.
    pub by_rule: Vec<[u64; 3]>,
    /// Rules given in none of the last `window` sessions (indices).
    pub never_fired: Vec<u32>,
    /// Rules given that are no longer loaded: `[id, times, tokens]`.
    pub gone: Vec<(String, u64, u64)>,
    /// Log lines that could not be read.
    pub problems: Vec<String>,
}

#[derive(Serialize, Debug, Default, Clone)]
pub struct SessionRow {
    pub session: String,
    pub agent: String,
    /// Milliseconds since the epoch.
    pub first: u64,
    pub last: u64,
    pub deliveries: u64,
    /// Distinct rules given.
    pub rules: u64,
    pub tokens: u64,
}

#[derive(Serialize, Debug, Default)]
pub struct Check {
    pub budget: u64,
    pub ok: bool,
    /// What is over: `always-on` or a file's path, with its tokens.
    pub over: Vec<(String, u64)>,
    /// How many files are over (the list stops at 20).
    pub files_over: u64,
}
