//! Turns one rule file's text into a [`Rule`] and its diagnostics.
//!
//! Fields: `paths` (a glob or a list; a single string with a comma outside
//! braces is split, list items are not), `priority` (an integer, or a string holding one), `topics` (a
//! keyword or a list; commas split too) and `description`. Unknown keys are
//! warnings; keys other tools use (`globs`, `applyTo`, `alwaysApply`,
//! `fileMatchPattern`) say what to write instead; a key a small edit away
//! from a trigger key (`path`, `Topics`) is an error naming the key to write
//! and what the typo does to the rule. `activation: on-request` (offered to
//! the model by its `description`) and `activation: manual` (only when
//! mentioned as `@name`) are the two kinds besides automatic. A rule whose frontmatter or
//! triggers cannot be understood is not loaded: it would otherwise fire
//! everywhere.

mod enforce_keys;
mod format_keys;
mod wave_keys;

pub use format_keys::Input;
pub(crate) use format_keys::{rule, At, GlobSplit, TYPO_TAIL};

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::base::limits::{
    MAX_FRONTMATTER_KEYS, MAX_PATTERNS_PER_RULE, MAX_TOPICS_PER_RULE, MAX_TOPIC_CHARS,
};
use crate::base::line_index::LineIndex;
use crate::matchers::glob_check::{glob_problem, split_commas, GlobProblem};
use crate::matchers::glob_compile::{self, CompiledPattern, PatternError};
use crate::rules::frontmatter::{self, FrontmatterError, Value};
use crate::rules::rule::{Activation, Metadata, Remind, Rule, Scope};
use crate::rules::rule_format::Format;
use std::collections::HashMap;
use std::path::Path;

/// Keys of the rule format (`evals` is read by `wave-rules eval`, not here).
pub const KNOWN_KEYS: [&str; 11] = [
    "paths",
    "priority",
    "topics",
    "description",
    "remind",
    "activation",
    "skills",
    "enforce",
    "commands",
    "summary",
    "evals",
];

/// The keys that decide when a rule is active or what it refuses: a typo of
/// one of them is an error, since the rule then fires (or refuses) where its
/// author did not mean it to.
pub const TRIGGER_KEYS: [&str; 6] = [
    "paths",
    "topics",
    "activation",
    "skills",
    "enforce",
    "commands",
];

/// A pattern of a rule that compiled, with its index in `metadata.paths`.
#[derive(Clone, Debug)]
pub struct RulePattern {
    pub index: usize,
    pub compiled: CompiledPattern,
}

/// A parsed rule, with its compiled patterns.
#[derive(Clone, Debug)]
pub struct ParsedRule {
    pub rule: Rule,
    pub patterns: Vec<RulePattern>,
}

/// What a file yielded: a rule (unless it was unusable) and diagnostics.
#[derive(Debug, Default)]
pub struct Outcome {
    pub rule: Option<ParsedRule>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a rule file's text.
pub fn parse_rule(scope: Scope, id: &str, path: &Path, text: &str) -> Outcome {
    let mut cx = RuleReader::new(path);
    let rule = cx.parse(scope, id, text);
    Outcome {
        rule,
        diagnostics: cx.finish_typos(TYPO_TAIL),
    }
}

/// Reads one rule file: where its diagnostics go and where its keys are. The other
/// formats (`crate::formats`) reuse it.
pub(crate) struct RuleReader<'a> {
    pub(crate) path: &'a Path,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) yaml: &'a str,
    pub(crate) first_line: u32,
    /// Where offsets of `yaml` are (see [`RuleReader::locate`]).
    lines: LineIndex<'a>,
    /// The first line of each top-level key of `yaml` (see [`key_lines`]).
    keys: HashMap<String, u32>,
    /// Where the next pattern lookup starts (patterns appear in order).
    pattern_cursor: usize,
    /// Misspelled-key errors whose message still lacks its end: what the
    /// rule became without the key, known only once the rule is read
    /// (indices into `diagnostics`; see [`RuleReader::finish_typos`]).
    typos: Vec<usize>,
}

/// The first line (0-based, in the frontmatter) of each top-level key.
fn key_lines(yaml: &str) -> HashMap<String, u32> {
    let mut keys = HashMap::new();
    for (n, line) in yaml.lines().enumerate() {
        if let Some(colon) = line.find(':') {
            let key = line[..colon].trim_end_matches([' ', '\t']);
            if !key.is_empty() && !key.starts_with([' ', '\t', '-', '#']) {
                keys.entry(key.to_string()).or_insert(n as u32);
            }
        }
    }
    keys
}

/// One frontmatter entry: key, value, and the key's (line, column).
pub(crate) type Entry = (String, Value, Option<(u32, u32)>);

/// A file's frontmatter entries (with each key's location), in file order,
/// and its body.
pub(crate) struct Frontmatter<'a> {
    pub(crate) entries: Vec<Entry>,
    pub(crate) body: &'a str,
}

impl<'a> RuleReader<'a> {
    pub(crate) fn new(path: &'a Path) -> Self {
        RuleReader {
            path,
            diagnostics: Vec::new(),
            yaml: "",
            first_line: 1,
            lines: LineIndex::default(),
            keys: HashMap::new(),
            pattern_cursor: 0,
            typos: Vec::new(),
        }
    }

    /// Ends every misspelled-key message left open with `tail` (what the
    /// rule became without the key), and gives the diagnostics.
    pub(crate) fn finish_typos(mut self, tail: &str) -> Vec<Diagnostic> {
        for &i in &self.typos {
            self.diagnostics[i].message.push_str(tail);
        }
        self.diagnostics
    }

    /// Splits the file and reads its frontmatter, reporting what cannot be
    /// read; `None` when the rule must not be loaded.
    pub(crate) fn frontmatter(&mut self, text: &'a str) -> Option<Frontmatter<'a>> {
        let split = match frontmatter::split(text) {
            Ok(s) => s,
            Err(e) => {
                self.report(
                    Severity::Error,
                    Code::UnclosedFrontmatter,
                    Some((1, 1)),
                    format!("{e}; the rule is not loaded"),
                );
                return None;
            }
        };
        self.yaml = split.yaml.unwrap_or("");
        self.first_line = split.yaml_first_line;
        self.lines = LineIndex::new(self.yaml);
        self.keys = key_lines(self.yaml);
        self.pattern_cursor = 0;
        let Some(yaml) = split.yaml else {
            return Some(Frontmatter {
                entries: Vec::new(),
                body: split.body,
            });
        };
        let parsed = self.read_yaml(yaml)?;
        if parsed.entries.len() > MAX_FRONTMATTER_KEYS {
            let n = parsed.entries.len();
            self.report(Severity::Error, Code::Limit, Some((self.first_line, 1)), format!("frontmatter has {n} keys, over the limit of {MAX_FRONTMATTER_KEYS}; the rule is not loaded"));
            return None;
        }
        let mut entries: Vec<_> = parsed
            .entries
            .into_iter()
            .map(|(k, v)| {
                let at = self.key_location(&k);
                (k, v.value, at)
            })
            .collect();
        entries.sort_by_key(|(_, _, at)| at.map_or(u32::MAX, |(l, _)| l));
        Some(Frontmatter {
            entries,
            body: split.body,
        })
    }

    /// The trimmed body; warns when it is empty, at the line where it starts.
    pub(crate) fn check_body(&mut self, text: &str, body: &str) -> String {
        let content = body.trim().to_string();
        if content.is_empty() {
            let head = &text[..text.len() - body.len()];
            let line = head.matches('\n').count() as u32 + 1;
            self.report(
                Severity::Warning,
                Code::EmptyBody,
                Some((line, 1)),
                "the rule body is empty".into(),
            );
        }
        content
    }

    fn read_yaml(&mut self, yaml: &str) -> Option<frontmatter::ParsedYaml> {
        let parsed = match frontmatter::parse(yaml) {
            Ok(p) => p,
            Err(FrontmatterError::Yaml {
                message,
                line,
                column,
            }) => {
                let at = (line + self.first_line - 1, column);
                self.report(
                    Severity::Error,
                    Code::YamlSyntax,
                    Some(at),
                    format!("invalid frontmatter: {message}; the rule is not loaded"),
                );
                return None;
            }
            Err(e) => {
                self.report(
                    Severity::Error,
                    Code::YamlSyntax,
                    Some((1, 1)),
                    e.to_string(),
                );
                return None;
            }
        };
        for r in &parsed.repairs {
            let at = (r.line + self.first_line - 1, r.column);
            self.report(
                Severity::Warning,
                Code::UnquotedValue,
                Some(at),
                format!("unquoted value '{}' is not valid YAML as written; read as the string \"{}\" (quote it)", r.value, r.value),
            );
        }
        Some(parsed)
    }

    pub(crate) fn report(
        &mut self,
        severity: Severity,
        code: Code,
        at: Option<(u32, u32)>,
        message: String,
    ) {
        let d = Diagnostic::new(severity, code, self.path, message);
        self.diagnostics.push(match at {
            Some((line, col)) => d.at(line, col),
            None => d,
        });
    }

    /// Gives the diagnostic just reported a fix: `new` for `old` on its
    /// line (nothing when it has no line).
    pub(crate) fn fix_last(&mut self, old: &str, new: &str) {
        if let Some(d) = self.diagnostics.pop() {
            let fixed = match d.line {
                Some(line) => d.replacing(line, old, new),
                None => d,
            };
            self.diagnostics.push(fixed);
        }
    }

    fn parse(&mut self, scope: Scope, id: &str, text: &'a str) -> Option<ParsedRule> {
        let fm = self.frontmatter(text)?;
        let (metadata, patterns) = self.metadata(&fm.entries)?;
        let content = self.check_body(text, fm.body);
        Some(ParsedRule {
            rule: Rule {
                id: id.to_string(),
                scope,
                file_path: self.path.to_path_buf(),
                content: content.into(),
                metadata: metadata.into(),
                format: Format::Wave,
                origin: Default::default(),
            },
            patterns,
        })
    }

    /// A `description` string (or nothing, with a warning for another type).
    pub(crate) fn description(&mut self, value: &Value, at: Option<(u32, u32)>) -> Option<String> {
        match value.as_text() {
            Some(text) if !text.trim().is_empty() => Some(text.trim().to_string()),
            Some(_) => None,
            None if *value == Value::Null(()) => None,
            None => {
                self.report(
                    Severity::Warning,
                    Code::InvalidField,
                    at,
                    format!(
                        "'description' should be a string, not {}; ignored",
                        value.kind()
                    ),
                );
                None
            }
        }
    }

    /// `skills`: each name as the session compares it (see
    /// [`crate::rules::skill_name::name`]), sorted, each once; `None` (reported) when
    /// one is not a skill name.
    fn skill_names(&mut self, list: &[String], at: Option<(u32, u32)>) -> Option<Vec<String>> {
        let mut names = Vec::with_capacity(list.len());
        for raw in list {
            match crate::rules::skill_name::name(raw) {
                Ok(n) => names.push(n),
                Err(why) => {
                    let loc = self.locate(raw).or(at);
                    self.report(
                        Severity::Error,
                        Code::InvalidField,
                        loc,
                        format!(
                            "'skills' entry \"{}\" is not a skill name: {why}; the rule is not loaded",
                            shorten(raw)
                        ),
                    );
                    return None;
                }
            }
        }
        names.sort_unstable();
        names.dedup();
        Some(names)
    }

    /// `paths` / `topics`: a string or a list of strings. `Ok(None)` when
    /// empty (then the field is treated as absent); `Err` when unusable.
    pub(crate) fn string_list(
        &mut self,
        key: &str,
        value: &Value,
        at: Option<(u32, u32)>,
    ) -> Result<Option<Vec<String>>, ()> {
        // A single string may be a comma list (`"*.ts, *.tsx"`); list items
        // are taken as written, since the author already separated them.
        let items: Vec<String> = match value {
            Value::Null(()) => Vec::new(),
            Value::List(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item.as_text() {
                        Some(s) => out.push(s.trim().to_string()),
                        None => {
                            self.report(Severity::Error, Code::InvalidField, at, format!("'{key}' items must be strings, found {}; the rule is not loaded", item.kind()));
                            return Err(());
                        }
                    }
                }
                out
            }
            Value::Map(_) | Value::Bool(_) => {
                self.report(Severity::Error, Code::InvalidField, at, format!("'{key}' must be a string or a list of strings, not {}; the rule is not loaded", value.kind()));
                return Err(());
            }
            scalar => {
                let text = scalar.as_text().unwrap_or_default();
                let parts = split_commas(&text);
                if parts.len() > 1 {
                    let loc = self.locate(&text).or(at);
                    self.report(
                        Severity::Info,
                        Code::SplitList,
                        loc,
                        format!(
                            "'{text}' was split at its commas into {} entries: {}",
                            parts.len(),
                            parts.join(" | ")
                        ),
                    );
                }
                parts
            }
        };
        let out: Vec<String> = items.into_iter().filter(|p| !p.is_empty()).collect();
        if out.len() > MAX_PATTERNS_PER_RULE {
            self.report(Severity::Error, Code::Limit, at, format!("'{key}' has {} entries, over the limit of {MAX_PATTERNS_PER_RULE}; the rule is not loaded", out.len()));
            return Err(());
        }
        if out.is_empty() {
            self.report(
                Severity::Warning,
                Code::EmptyTrigger,
                at,
                format!("'{key}' is empty, so it does not make the rule conditional"),
            );
            return Ok(None);
        }
        Ok(Some(out))
    }

    fn compile_patterns(&mut self, list: &[String]) -> Vec<RulePattern> {
        let pairs: Vec<(&str, &str)> = list.iter().map(|p| (p.as_str(), p.as_str())).collect();
        self.compile_patterns_as("paths", &pairs, false)
    }

    /// Compiles `(as written, as matched)` pattern pairs of `key`; the
    /// matched form may carry a dialect's prefix (`**/`, a subdirectory).
    /// Diagnostics point at the written form.
    pub(crate) fn compile_patterns_as(
        &mut self,
        key: &str,
        list: &[(&str, &str)],
        case_insensitive: bool,
    ) -> Vec<RulePattern> {
        let mut out = Vec::new();
        if list.len() > MAX_PATTERNS_PER_RULE {
            let at = self.key_location(key);
            self.report(Severity::Error, Code::Limit, at, format!("'{key}' has {} patterns, over the limit of {MAX_PATTERNS_PER_RULE}; they are ignored", list.len()));
            return out;
        }
        self.pattern_cursor = 0;
        for (index, &(written, pat)) in list.iter().enumerate() {
            let at = self.locate_next(written).or_else(|| self.key_location(key));
            match glob_compile::compile_with(pat, case_insensitive) {
                Ok(compiled) => {
                    match glob_problem(written) {
                        Some(GlobProblem::Unmatchable(why)) => self.report(
                            Severity::Warning,
                            Code::UnmatchableGlob,
                            at,
                            format!("pattern '{written}' can never match: {why}"),
                        ),
                        Some(GlobProblem::Escaped(meant)) => {
                            self.report(
                                Severity::Warning,
                                Code::EscapedGlob,
                                at,
                                format!("pattern '{}' has an escaped '*' (\\*), so it matches only a file name with a literal '*': a Markdown formatter's escaping of '{meant}'? write '{meant}'", shorten(written)),
                            );
                            self.fix_last(written, &meant);
                        }
                        Some(GlobProblem::Unclosed(why)) => self.report(
                            Severity::Warning,
                            Code::InvalidGlob,
                            at,
                            format!("pattern '{}': {why}", shorten(written)),
                        ),
                        None => {}
                    }
                    out.push(RulePattern { index, compiled });
                }
                Err(e) => {
                    let code = match e {
                        PatternError::Unsupported(_) => Code::UnsupportedGlob,
                        PatternError::TooLong(_)
                        | PatternError::TooDeep
                        | PatternError::TooManyExpansions => Code::Limit,
                        _ => Code::InvalidGlob,
                    };
                    self.report(
                        Severity::Error,
                        code,
                        at,
                        format!(
                            "pattern '{}': {e}; this pattern is ignored",
                            shorten(written)
                        ),
                    );
                }
            }
        }
        if !out.is_empty() && out.iter().all(|p| p.compiled.negated) {
            let at = self.key_location(key);
            self.report(Severity::Warning, Code::UnmatchableGlob, at, format!("every pattern in '{key}' is a '!' exclusion, so none can activate the rule; add a pattern to include"));
        }
        out
    }

    pub(crate) fn priority(&mut self, value: &Value, at: Option<(u32, u32)>) -> Option<i64> {
        let parsed = match value {
            Value::Int(n) => Some(*n),
            Value::Str(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        if parsed.is_none() {
            self.report(
                Severity::Error,
                Code::InvalidField,
                at,
                format!(
                    "'priority' must be an integer, not {}; using 0",
                    describe(value)
                ),
            );
        }
        parsed
    }

    /// Reports a key this format does not read; returns the trigger key it
    /// is a typo of (reported by the caller, who knows the consequence).
    fn unknown_key(&mut self, key: &str, at: Option<(u32, u32)>) -> Option<&'static str> {
        let hint = match key {
            "globs" => Some("'globs' is Cursor's key: write 'paths' instead (same glob syntax)"),
            "applyTo" => Some("'applyTo' is Copilot's key: write 'paths' instead (same glob syntax)"),
            "fileMatchPattern" => Some("'fileMatchPattern' is Kiro's key: write 'paths' instead (same glob syntax)"),
            "alwaysApply" => Some("'alwaysApply' is Cursor's key: remove it; a rule without 'paths' or 'topics' is always active"),
            _ => None,
        };
        // A file written for two tools (`paths` for Claude Code and `applyTo`
        // for Copilot) means the other tool's key: it cannot misfire here.
        let deliberate = key != "alwaysApply" && self.key_location("paths").is_some();
        match hint {
            Some(_) if deliberate => self.report(Severity::Info, Code::ForeignKey, at, format!("'{key}' is another tool's key; this file's 'paths' applies here and '{key}' is ignored")),
            Some(hint) => {
                self.report(Severity::Warning, Code::ForeignKey, at, format!("{hint}; it is ignored here"));
                if key != "alwaysApply" {
                    self.fix_last(key, "paths");
                }
            }
            None => match crate::base::suggest::closest(key, KNOWN_KEYS) {
                Some(meant) if TRIGGER_KEYS.contains(&meant) => {
                    return KNOWN_KEYS.iter().copied().find(|k| *k == meant)
                }
                Some(meant) => {
                    self.report(Severity::Warning, Code::UnknownKey, at, format!("unknown key '{key}' is ignored: did you mean '{meant}'?"));
                    self.fix_last(key, meant);
                }
                None => self.report(Severity::Warning, Code::UnknownKey, at, format!("unknown key '{key}' is ignored (known keys: {})", KNOWN_KEYS.join(", "))),
            },
        }
        None
    }

    /// The file line and column of a top-level key (from the line index).
    pub(crate) fn key_location(&self, key: &str) -> Option<(u32, u32)> {
        self.keys.get(key).map(|&n| (n + self.first_line, 1))
    }

    /// The file line and column where `needle` first occurs in the frontmatter.
    pub(crate) fn locate(&self, needle: &str) -> Option<(u32, u32)> {
        let byte = self.yaml.find(needle).filter(|_| !needle.is_empty())?;
        let (line, column) = self.lines.at(byte);
        Some((line - 1 + self.first_line, column))
    }

    /// Like `locate`, but searching on from the previous pattern first, so a
    /// list is located in one pass (columns counted on from the last one).
    fn locate_next(&mut self, needle: &str) -> Option<(u32, u32)> {
        if needle.is_empty() {
            return None;
        }
        let from = self.pattern_cursor;
        let byte = match self.yaml.get(from..).and_then(|rest| rest.find(needle)) {
            Some(i) => from + i,
            None => self.yaml.find(needle)?,
        };
        self.pattern_cursor = byte + needle.len();
        let (line, column) = self.lines.next_at(byte);
        Some((line - 1 + self.first_line, column))
    }
}

/// At most 80 characters of `s`, for messages about huge inputs.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Str(s) => format!("\"{s}\""),
        other => other.kind().to_string(),
    }
}

#[cfg(test)]
mod tests;
