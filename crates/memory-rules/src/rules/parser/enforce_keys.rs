//! The keys of enforcement as the `.wave/rules` parser reads them:
//! `enforce`, `commands` and `summary`, with their lints at the key's line.
//! Below the parser's callers and beside it: the parser calls these, and
//! they know nothing of the rule set that later matches the patterns.

use crate::base::limits::{MAX_COMMANDS_PER_RULE, MAX_COMMAND_PATTERN_CHARS};
use crate::rules::rule::Enforce;

/// How bad a problem of a command pattern is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gravity {
    /// It can never match anything: the pattern is left out.
    Never,
    /// It matches, but hardly what its author meant.
    Doubtful,
}

/// Why a command pattern will not do what it says, if it will not (the
/// parser reports it at the pattern's line): empty, over the length limit,
/// spaces at its ends (a command's words never start or end with a space
/// unless quoted so), shell operators or redirections (each simple command
/// is matched on its own, without its redirections), a pattern matching
/// every command.
pub fn pattern_problem(pattern: &str) -> Option<(Gravity, String)> {
    let chars = pattern.chars().count();
    if chars > MAX_COMMAND_PATTERN_CHARS {
        return Some((
            Gravity::Never,
            format!("the command pattern is {chars} characters, over the limit of {MAX_COMMAND_PATTERN_CHARS}"),
        ));
    }
    if pattern.trim().is_empty() {
        return Some((
            Gravity::Never,
            "an empty command pattern never matches".into(),
        ));
    }
    if pattern.trim_matches('*').is_empty() {
        return Some((
            Gravity::Doubtful,
            format!("'{pattern}' matches every command: the rule refuses or warns about every shell call"),
        ));
    }
    if pattern.starts_with(char::is_whitespace) || pattern.ends_with(char::is_whitespace) {
        return Some((
            Gravity::Never,
            format!("'{pattern}' starts or ends with a space, which a command never does: write it without"),
        ));
    }
    if pattern.contains("  ") {
        return Some((
            Gravity::Doubtful,
            format!("'{pattern}' has two spaces in a row: a command's words are joined with one"),
        ));
    }
    for op in ["&&", "||", ";", "|", "\n"] {
        if pattern.contains(op) {
            let shown = if op == "\n" { "a line break" } else { op };
            return Some((
                Gravity::Doubtful,
                format!("'{}' holds `{shown}`: each simple command of a line is matched on its own, so this matches only an argument quoted to hold it; write one pattern per command", pattern.replace('\n', "\\n")),
            ));
        }
    }
    for op in [" > ", " >> ", " < ", " 2>"] {
        if pattern.contains(op) {
            return Some((
                Gravity::Doubtful,
                format!("'{pattern}' holds the redirection `{}`: redirections are not part of a command's words; guard the file with 'paths' and 'enforce' instead", op.trim()),
            ));
        }
    }
    None
}

// Reading the keys (the `.wave/rules` format's `enforce`, `commands` and
// `summary`, with their lints at the key's line).

use crate::base::diagnostic::{Code, Severity};
use crate::rules::frontmatter::Value;
use crate::rules::parser::RuleReader;
use crate::rules::rule::Metadata;

type At = Option<(u32, u32)>;

impl RuleReader<'_> {
    /// `enforce: block | warn`. Anything else is an error, and the rule
    /// loads without enforcement (its text still reaches the model).
    pub(crate) fn enforce(&mut self, value: &Value, at: At) -> Option<Enforce> {
        match value.as_text().as_deref().map(str::trim) {
            Some("block") => Some(Enforce::Block),
            Some("warn") => Some(Enforce::Warn),
            _ => {
                self.report(
                    Severity::Error,
                    Code::InvalidField,
                    at,
                    format!(
                        "'enforce' is 'block' or 'warn', not {}; the rule loads without enforcement",
                        crate::rules::parser::describe(value)
                    ),
                );
                None
            }
        }
    }

    /// `commands`: one pattern or a list of them, never split at commas (a
    /// command holds commas). Each pattern's problems are reported at its
    /// line; one that can never match is left out. `Err` when the value is
    /// unusable (the rule is not loaded: it would enforce less than written).
    pub(crate) fn commands(&mut self, value: &Value, at: At) -> Result<Option<Vec<String>>, ()> {
        let items: Vec<String> = match value {
            Value::Null(()) => Vec::new(),
            Value::List(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item.as_text() {
                        Some(s) => out.push(s.to_string()),
                        None => {
                            self.report(Severity::Error, Code::InvalidField, at, format!("'commands' items must be strings, found {}; the rule is not loaded", item.kind()));
                            return Err(());
                        }
                    }
                }
                out
            }
            Value::Map(_) | Value::Bool(_) => {
                self.report(Severity::Error, Code::InvalidField, at, format!("'commands' must be a pattern or a list of patterns, not {}; the rule is not loaded", value.kind()));
                return Err(());
            }
            scalar => vec![scalar.as_text().unwrap_or_default().to_string()],
        };
        if items.len() > MAX_COMMANDS_PER_RULE {
            self.report(Severity::Error, Code::Limit, at, format!("'commands' has {} patterns, over the limit of {MAX_COMMANDS_PER_RULE}; the rule is not loaded", items.len()));
            return Err(());
        }
        let mut out = Vec::new();
        for pattern in items {
            let loc = self
                .locate(&format!("\"{pattern}\""))
                .or_else(|| self.locate(pattern.trim()))
                .or(at);
            match pattern_problem(&pattern) {
                Some((Gravity::Never, why)) => {
                    self.report(
                        Severity::Error,
                        Code::UnmatchableCommand,
                        loc,
                        format!("{why}; the pattern is left out"),
                    );
                }
                Some((Gravity::Doubtful, why)) => {
                    self.report(Severity::Warning, Code::UnmatchableCommand, loc, why);
                    out.push(pattern);
                }
                None => out.push(pattern),
            }
        }
        if out.is_empty() {
            self.report(
                Severity::Warning,
                Code::EmptyTrigger,
                at,
                "'commands' is empty, so no command is checked".to_string(),
            );
            return Ok(None);
        }
        Ok(Some(out))
    }

    /// `summary`: one line, at most [`MAX_SUMMARY_CHARS`] characters.
    pub(crate) fn summary(&mut self, value: &Value, at: At) -> Option<String> {
        let Some(text) = value.as_text() else {
            self.report(
                Severity::Warning,
                Code::InvalidField,
                at,
                format!(
                    "'summary' is one line of text, not {}; the rule's first line stands for it",
                    value.kind()
                ),
            );
            return None;
        };
        let mut lines = text.trim().lines();
        let first = lines.next().unwrap_or("").trim();
        if first.is_empty() {
            return None;
        }
        if lines.next().is_some() {
            self.report(
                Severity::Warning,
                Code::InvalidField,
                at,
                "'summary' is one line; only its first line is used".to_string(),
            );
        }
        let chars = first.chars().count();
        if chars > MAX_SUMMARY_CHARS {
            self.report(Severity::Warning, Code::Limit, at, format!("'summary' is {chars} characters, over the limit of {MAX_SUMMARY_CHARS}; it is cut there"));
            return Some(first.chars().take(MAX_SUMMARY_CHARS).collect());
        }
        Some(first.to_string())
    }

    /// What the keys say together: `enforce` needs `paths` or `commands` to
    /// check (an error: the author meant something to be refused);
    /// `commands` does nothing without `enforce` (a warning).
    pub(crate) fn check_enforcement(&mut self, meta: &Metadata) {
        if let Some(enforce) = meta.enforce {
            if meta.paths.is_none() && meta.commands.is_none() {
                let at = self.key_location("enforce");
                self.report(
                    Severity::Error,
                    Code::EnforceWithoutTrigger,
                    at,
                    format!("'enforce: {}' has nothing to check: add 'paths' (the files whose writes it governs) or 'commands' (the shell commands it governs)", enforce.as_str()),
                );
            }
        } else if meta.commands.is_some() {
            let at = self.key_location("commands");
            self.report(
                Severity::Warning,
                Code::InvalidField,
                at,
                "'commands' is read only with 'enforce: block' or 'enforce: warn'; no command is checked".to_string(),
            );
        }
    }
}

use crate::base::limits::MAX_SUMMARY_CHARS;
