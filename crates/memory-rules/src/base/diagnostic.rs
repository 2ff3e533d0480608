//! Diagnostics: what went wrong (or is worth knowing) about one rule file.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The rule (or part of it) could not be used.
    Error,
    /// The rule loaded, but probably not the way its author meant.
    Warning,
    /// Worth knowing; nothing is wrong.
    Info,
}

impl Severity {
    /// The lowercase name used in every output: `error`, `warning`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stable, machine-readable diagnostic code. The string form (`code.as_str()`)
/// is part of the public interface (CLI `--json`, Node `Diagnostic.code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// A symlink leads back to a directory already visited.
    SymlinkCycle,
    /// A symlink points at nothing.
    DanglingSymlink,
    /// A file or directory could not be read.
    Unreadable,
    /// A directory more than one level below a rules root; its files are ignored.
    TooDeep,
    /// A rule file is larger than the size limit.
    TooLarge,
    /// A rule file is not valid UTF-8.
    NotUtf8,
    /// The first line is `---` but no closing `---` follows.
    UnclosedFrontmatter,
    /// The frontmatter is not YAML we can read.
    YamlSyntax,
    /// An unquoted value a strict YAML parser misreads (`paths: *.ts`) was read as text.
    UnquotedValue,
    /// A key we do not know.
    UnknownKey,
    /// A key from another tool (`globs`, `applyTo`, ...), with what to write instead.
    ForeignKey,
    /// A field has a value of the wrong type.
    InvalidField,
    /// A comma-separated string was split into several patterns or topics.
    SplitList,
    /// A `paths` or `topics` field is present but empty.
    EmptyTrigger,
    /// A glob pattern is not valid.
    InvalidGlob,
    /// A glob uses syntax we do not support (extglobs, POSIX classes).
    UnsupportedGlob,
    /// A glob that can never match a file in context.
    UnmatchableGlob,
    /// The rule body is empty.
    EmptyBody,
    /// A user rule is replaced by the project rule with the same id.
    Overridden,
    /// A project rule (or directory) is a symlink to somewhere outside the
    /// project (and outside every allowed directory): not loaded.
    SymlinkOutside,
    /// A rule file is a symlink to a file that does not have the format's
    /// extension (`.wave/rules/notes.md -> ../../.env`): not loaded.
    SymlinkTarget,
    /// A documented limit was hit (see the `limits` module); the message names it.
    Limit,
    /// An internal error (a bug) while reading one file; the other files still load.
    Internal,
    /// A rule offered to the model by its description (on request) has none.
    MissingDescription,
    /// A comma-joined string that the rule's own tool reads as ONE literal
    /// pattern (Kiro's `fileMatchPattern`).
    CommaJoinedPattern,
    /// The rule's own tool leaves it out for coding agents (Copilot
    /// `excludeAgent: coding-agent`).
    ExcludedAgent,
    /// A rules file that is not a list of rules (`.claude/rules.yaml`).
    InvalidRulesFile,
    /// A key a small edit away from a key that decides activation (`path:`
    /// for `paths:`): the rule fires where its author did not mean it to.
    MisspelledKey,
    /// A `commands` pattern that can never match, or hardly what was meant
    /// (a shell operator or redirection in it, a pattern matching every command).
    UnmatchableCommand,
    /// `enforce` with neither `paths` nor `commands`: nothing is refused.
    EnforceWithoutTrigger,
    /// A glob written in a form its tool keeps as written, so it matches no
    /// file: Cursor keeps the quotes of `globs: "src/**/*.ts"`, and reads
    /// nothing (or brackets and quotes) from a YAML list of globs.
    QuotedGlob,
    /// A form of a glob list its tool is reported to misread (Cursor: a
    /// space after a comma); the rule loads as written.
    SpacedGlobs,
    /// A glob a Markdown formatter escaped (`docs/\\*_/_.md` for
    /// `docs/**/*.md`): it matches only names with a literal `*`.
    EscapedGlob,
    /// A file in a rules folder that its tool does not read as a rule (a
    /// Cline workflow, hook or skill; a symlink Cline's listing skips).
    NotARule,
    /// The same real file reached twice (a symlink, a hard link), or a rule
    /// with the same text and activation as another: read once.
    Duplicate,
    /// An `@path` import (CLAUDE.md, GEMINI.md) that could not be expanded:
    /// missing, a cycle, too deep, outside the project, not text.
    Import,
    /// A file or folder a tool would read if it were named or placed
    /// slightly differently (`.github/copilot-instructions/`, a `.devin/rules`
    /// file): the message says what to move where.
    Misplaced,
    /// A config file (`.wave/config.toml`, the policy's) or a packs lockfile
    /// that cannot be used as written.
    InvalidConfig,
    /// An eval scenario (`.wave/evals/*.yaml`, a rule's `evals:`) that
    /// `wave-rules eval` cannot run as written.
    InvalidScenario,
    /// A pack the config names is not there (not installed, not checked
    /// out, no such folder, no rules folder).
    PackMissing,
    /// A pack is not what `.wave/packs.lock` pins (another version or
    /// commit, or not in the lock); the rules on disk are used.
    PackStale,
    /// A rule, or a `disable`, tried to replace a locked (policy) rule; the
    /// policy rule stays.
    Locked,
    /// A rule is left out by the project's `disable`.
    Disabled,
    /// A file an agent reads only up to its cap (Codex: 32 KiB of
    /// `AGENTS.md` together; Windsurf/Devin, Antigravity: 12,000 characters
    /// a file): the rest never reaches that agent's model.
    AgentCut,
}

impl Code {
    /// What the code means, in a sentence or two: the help text of a
    /// report (SARIF's rule descriptions).
    pub fn description(self) -> &'static str {
        match self {
            Code::SymlinkCycle => "A symlink leads back to a directory already visited.",
            Code::DanglingSymlink => "A symlink points at nothing.",
            Code::Unreadable => "A file or directory could not be read.",
            Code::TooDeep => "A directory more than one level below a rules root; its files are ignored.",
            Code::TooLarge => "A rule file is larger than the size limit.",
            Code::NotUtf8 => "A rule file is not valid UTF-8.",
            Code::UnclosedFrontmatter => "The first line is --- but no closing --- follows.",
            Code::YamlSyntax => "The frontmatter is not YAML we can read.",
            Code::UnquotedValue => "An unquoted value a strict YAML parser misreads (paths: *.ts) was read as text.",
            Code::UnknownKey => "A key we do not know.",
            Code::ForeignKey => "A key from another tool (globs, applyTo, ...), with what to write instead.",
            Code::InvalidField => "A field has a value of the wrong type.",
            Code::SplitList => "A comma-separated string was split into several patterns or topics.",
            Code::EmptyTrigger => "A paths or topics field is present but empty.",
            Code::InvalidGlob => "A glob pattern is not valid.",
            Code::UnsupportedGlob => "A glob uses syntax we do not support (extglobs, POSIX classes).",
            Code::UnmatchableGlob => "A glob that can never match a file in context.",
            Code::EmptyBody => "The rule body is empty.",
            Code::Overridden => "A user rule is replaced by the project rule with the same id.",
            Code::SymlinkOutside => "A project rule (or directory) is a symlink to somewhere outside the project (and outside every allowed directory): not loaded.",
            Code::SymlinkTarget => "A rule file is a symlink to a file that does not have the format's extension (.wave/rules/notes.md -> ../../.env): not loaded.",
            Code::Limit => "A documented limit was hit (see the limits module); the message names it.",
            Code::Internal => "An internal error (a bug) while reading one file; the other files still load.",
            Code::MissingDescription => "A rule offered to the model by its description (on request) has none.",
            Code::CommaJoinedPattern => "A comma-joined string that the rule's own tool reads as ONE literal pattern (Kiro's fileMatchPattern).",
            Code::ExcludedAgent => "The rule's own tool leaves it out for coding agents (Copilot excludeAgent: coding-agent).",
            Code::InvalidRulesFile => "A rules file that is not a list of rules (.claude/rules.yaml).",
            Code::MisspelledKey => "A key a small edit away from a key that decides activation (path: for paths:): the rule fires where its author did not mean it to.",
            Code::UnmatchableCommand => "A commands pattern that can never match, or hardly what was meant (a shell operator or redirection in it, a pattern matching every command).",
            Code::EnforceWithoutTrigger => "enforce with neither paths nor commands: nothing is refused.",
            Code::QuotedGlob => "A glob written in a form its tool keeps as written, so it matches no file: Cursor keeps the quotes of globs: \"src/**/*.ts\", and reads nothing (or brackets and quotes) from a YAML list of globs.",
            Code::SpacedGlobs => "A form of a glob list its tool is reported to misread (Cursor: a space after a comma); the rule loads as written.",
            Code::EscapedGlob => "A glob a Markdown formatter escaped (docs/\\*_/_.md for docs/**/*.md): it matches only names with a literal *.",
            Code::NotARule => "A file in a rules folder that its tool does not read as a rule (a Cline workflow, hook or skill; a symlink Cline's listing skips).",
            Code::Duplicate => "The same real file reached twice (a symlink, a hard link), or a rule with the same text and activation as another: read once.",
            Code::Import => "An @path import (CLAUDE.md, GEMINI.md) that could not be expanded: missing, a cycle, too deep, outside the project, not text.",
            Code::Misplaced => "A file or folder a tool would read if it were named or placed slightly differently (.github/copilot-instructions/, a .devin/rules file): the message says what to move where.",
            Code::InvalidConfig => "A config file (.wave/config.toml, the policy's) or a packs lockfile that cannot be used as written.",
            Code::InvalidScenario => "An eval scenario (.wave/evals/*.yaml, a rule's evals:) that wave-rules eval cannot run as written: an unknown key or check, a regex that does not compile, a path outside the project.",
            Code::PackMissing => "A pack the config names is not there (not installed, not checked out, no such folder, no rules folder).",
            Code::PackStale => "A pack is not what .wave/packs.lock pins (another version or commit, or not in the lock); the rules on disk are used.",
            Code::Locked => "A rule, or a disable, tried to replace a locked (policy) rule; the policy rule stays.",
            Code::Disabled => "A rule is left out by the project's disable.",
            Code::AgentCut => "An agent reads this file only up to its cap (Codex: 32 KiB of AGENTS.md together; Windsurf/Devin, Antigravity: 12,000 characters a file): the rest never reaches its model.",
        }
    }

    /// The kebab-case name of the code.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::SymlinkCycle => "symlink-cycle",
            Code::DanglingSymlink => "dangling-symlink",
            Code::Unreadable => "unreadable",
            Code::TooDeep => "too-deep",
            Code::TooLarge => "too-large",
            Code::NotUtf8 => "not-utf8",
            Code::UnclosedFrontmatter => "unclosed-frontmatter",
            Code::YamlSyntax => "yaml-syntax",
            Code::UnquotedValue => "unquoted-value",
            Code::UnknownKey => "unknown-key",
            Code::ForeignKey => "foreign-key",
            Code::InvalidField => "invalid-field",
            Code::SplitList => "split-list",
            Code::EmptyTrigger => "empty-trigger",
            Code::InvalidGlob => "invalid-glob",
            Code::UnsupportedGlob => "unsupported-glob",
            Code::UnmatchableGlob => "unmatchable-glob",
            Code::EmptyBody => "empty-body",
            Code::Overridden => "overridden",
            Code::SymlinkOutside => "symlink-outside",
            Code::SymlinkTarget => "symlink-target",
            Code::Limit => "limit",
            Code::Internal => "internal",
            Code::MissingDescription => "missing-description",
            Code::CommaJoinedPattern => "comma-joined-pattern",
            Code::ExcludedAgent => "excluded-agent",
            Code::InvalidRulesFile => "invalid-rules-file",
            Code::MisspelledKey => "misspelled-key",
            Code::UnmatchableCommand => "unmatchable-command",
            Code::EnforceWithoutTrigger => "enforce-without-trigger",
            Code::QuotedGlob => "quoted-glob",
            Code::SpacedGlobs => "spaced-globs",
            Code::EscapedGlob => "escaped-glob",
            Code::NotARule => "not-a-rule",
            Code::Duplicate => "duplicate",
            Code::Import => "import",
            Code::Misplaced => "misplaced",
            Code::InvalidConfig => "invalid-config",
            Code::InvalidScenario => "invalid-scenario",
            Code::PackMissing => "pack-missing",
            Code::PackStale => "pack-stale",
            Code::Locked => "locked",
            Code::Disabled => "disabled",
            Code::AgentCut => "agent-cut",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mechanical repair of what a [`Diagnostic`] reports: what `validate
/// --fix` writes and what an editor offers as a quick fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Fix {
    /// On the 1-based `line`, the first `old` (at or after the diagnostic's
    /// column when on its line) becomes `new`.
    Replace {
        title: String,
        line: u32,
        old: String,
        new: String,
    },
    /// The file moves to `to` (a sibling name a tool reads).
    Move { title: String, to: String },
}

impl Fix {
    /// What the fix does, in a few words (`replace 'path' with 'paths'`).
    pub fn title(&self) -> &str {
        match self {
            Fix::Replace { title, .. } | Fix::Move { title, .. } => title,
        }
    }

    /// The bytes of `text` a replacement writes over, or `None` when the
    /// text no longer holds `old` on its line (edited since) or the fix is
    /// a move.
    pub fn span(&self, text: &str) -> Option<std::ops::Range<usize>> {
        let Fix::Replace { line, old, .. } = self else {
            return None;
        };
        let start = match *line {
            0 => return None,
            1 => 0,
            n => text.match_indices('\n').nth(n as usize - 2)?.0 + 1,
        };
        let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
        let at = text[start..end].find(old.as_str())?;
        Some(start + at..start + at + old.len())
    }

    /// `text` with the replacement made (`None` as for [`Fix::span`]).
    pub fn apply(&self, text: &str) -> Option<String> {
        let (span, Fix::Replace { new, .. }) = (self.span(text)?, self) else {
            return None;
        };
        Some(format!("{}{new}{}", &text[..span.start], &text[span.end..]))
    }
}

/// One finding about one file: severity, code, message, (when known) a
/// 1-based line and column in that file, and (when mechanical) its fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub file_path: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    /// A diagnostic about a file as a whole.
    pub fn new(severity: Severity, code: Code, path: &Path, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            file_path: path.to_string_lossy().into_owned(),
            line: None,
            column: None,
            fix: None,
        }
    }

    /// The same diagnostic with a fix.
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(Box::new(fix));
        self
    }

    /// The same diagnostic with a fix that writes `new` for `old` on `line`.
    pub fn replacing(self, line: u32, old: &str, new: &str) -> Self {
        let title = format!("replace '{old}' with '{new}'");
        self.with_fix(Fix::Replace {
            title,
            line,
            old: old.to_string(),
            new: new.to_string(),
        })
    }

    /// The same diagnostic with another severity.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Points the diagnostic at a 1-based line and column.
    pub fn at(mut self, line: u32, column: u32) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    /// Where in the file, as it follows a path: `:line:col`, `:line`, or
    /// nothing for the file as a whole.
    pub fn position(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!(":{l}:{c}"),
            (Some(l), None) => format!(":{l}"),
            _ => String::new(),
        }
    }
}

impl fmt::Display for Diagnostic {
    /// `path:line:col: severity[code]: message`, the form compilers use.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}: {}[{}]: {}",
            self.file_path,
            self.position(),
            self.severity,
            self.code,
            self.message
        )
    }
}

/// Sorts diagnostics by file, line, column, then severity: the same input
/// always reports in the same order.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (&a.file_path, a.line, a.column, a.severity, a.code).cmp(&(
            &b.file_path,
            b.line,
            b.column,
            b.severity,
            b.code,
        ))
    });
}

#[cfg(test)]
mod fix_tests {
    use super::Fix;

    fn replace(line: u32, old: &str, new: &str) -> Fix {
        Fix::Replace {
            title: String::new(),
            line,
            old: old.into(),
            new: new.into(),
        }
    }

    #[test]
    fn a_replacement_writes_over_old_on_its_line_only() {
        let text = "---\npath: a\npath: b\n---\n";
        assert_eq!(
            replace(3, "path", "paths").apply(text).as_deref(),
            Some("---\npath: a\npaths: b\n---\n")
        );
        assert_eq!(replace(1, "---", "+++").span(text), Some(0..3));
    }

    #[test]
    fn a_replacement_whose_text_is_gone_or_whose_line_is_past_the_end_does_nothing() {
        let text = "---\npaths: a\n---";
        assert_eq!(replace(2, "path:", "x").apply(text), None);
        assert_eq!(replace(9, "a", "b").apply(text), None);
        assert_eq!(replace(0, "a", "b").apply(text), None);
        let moved = Fix::Move {
            title: String::new(),
            to: "x".into(),
        };
        assert_eq!(moved.apply(text), None);
    }
}
