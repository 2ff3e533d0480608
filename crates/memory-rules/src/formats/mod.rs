//! Other agents' rule files, read with the meaning their own tool gives them.
//!
//! One module per format, each mapping one file (its id, path and text) to
//! the common rule model ([`Rule`], with an [`Activation`]) plus diagnostics
//! with line and column. They share the frontmatter reader and the glob
//! compiler of the `.wave/rules` format ([`crate::parse`]); what differs is
//! each tool's keys, its activation kinds and its glob dialect:
//!
//! | format | activation |
//! |---|---|
//! | [`cursor`] | `alwaysApply`; `globs` (comma string or list); `description` only: on request; none: manual |
//! | [`copilot`] | `applyTo` (comma string; `**`/`**/*`/`*` always; else `**/`+pattern, case-insensitive) |
//! | [`windsurf`] | `trigger: always_on / glob / model_decision / manual` |
//! | [`kiro`] | `inclusion: always / fileMatch / manual / auto`; a comma-joined `fileMatchPattern` is ONE literal pattern |
//! | [`cline`] | no frontmatter: always; `paths` list: files in context |
//! | [`continue_`] | `alwaysApply`, `globs` (`!` negation), `regex` on file content, `description` |
//! | [`agents_md`] | `AGENTS.md` / `CLAUDE.md`: the root always, a subdirectory's for files under it |
//! | [`rules_yaml`] | `.claude/rules.yaml`: a list of keyword (topic) rules |
//!
//! Ids of these formats carry the source name (`cursor:frontend.mdc`), so
//! they never collide across formats; `wave` and `claude` share one id space.

pub mod agents_md;
pub mod claude;
pub mod cline;
pub mod continue_;
pub mod copilot;
pub mod cursor;
pub mod export;
pub mod kiro;
pub mod nested;
pub mod rules_yaml;
pub mod windsurf;

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::frontmatter::Value;
use crate::parse::{self, Context, ParsedRule, RulePattern};
use crate::rule::{Activation, Metadata, Rule, Scope};
use std::path::Path;

pub use crate::source::Format;

/// What the other agents' formats add to [`Format`].
impl Format {
    /// The tool's name, for explanations.
    pub fn tool(self) -> &'static str {
        match self {
            Format::Wave => "Wave",
            Format::Claude => "Claude Code",
            Format::Cursor => "Cursor",
            Format::Copilot => "Copilot",
            Format::Windsurf => "Windsurf",
            Format::Kiro => "Kiro",
            Format::Cline => "Cline",
            Format::Continue => "Continue",
            Format::AgentsMd => "AGENTS.md",
            Format::RulesYaml => "rules.yaml",
        }
    }

    /// The key that holds this format's globs.
    pub fn glob_key(self) -> &'static str {
        match self {
            Format::Cursor | Format::Windsurf | Format::Continue => "globs",
            Format::Copilot => "applyTo",
            Format::Kiro => "fileMatchPattern",
            Format::AgentsMd => "directory",
            Format::Wave | Format::Claude | Format::Cline | Format::RulesYaml => "paths",
        }
    }

    /// Whether ids carry the source name (`cursor:x.mdc`). `wave` and
    /// `claude` share one id space, as the agent SDK reads them.
    pub fn qualifies_ids(self) -> bool {
        !matches!(self, Format::Wave | Format::Claude)
    }

    /// The id of a file (path relative to its source root, `/`-separated).
    pub fn id(self, rel: &str) -> String {
        if self.qualifies_ids() {
            format!("{}:{rel}", self.as_str())
        } else {
            rel.to_string()
        }
    }

    /// What to write in this format for "apply when files match".
    fn glob_advice(self) -> &'static str {
        match self {
            Format::Cursor | Format::Continue => "write 'globs'",
            Format::Windsurf => "write 'trigger: glob' with 'globs'",
            Format::Kiro => "write 'inclusion: fileMatch' with 'fileMatchPattern'",
            Format::Copilot => "write 'applyTo'",
            Format::Cline => "write 'paths' (a list)",
            _ => "write 'paths'",
        }
    }

    /// What to write in this format for "always apply".
    fn always_advice(self) -> &'static str {
        match self {
            Format::Cursor | Format::Continue => "write 'alwaysApply: true'",
            Format::Windsurf => "write 'trigger: always_on'",
            Format::Kiro => "write 'inclusion: always' (the default)",
            Format::Copilot => "write applyTo: \"**\"",
            Format::Cline => "remove it; a rule without 'paths' is always active",
            _ => "remove it; a rule without 'paths' or 'topics' is always active",
        }
    }
}

/// One file to read as a format.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    pub scope: Scope,
    /// The rule's id (already source-qualified, see [`Format::id`]).
    pub id: &'a str,
    pub path: &'a Path,
    pub text: &'a str,
    /// The project subdirectory the file is scoped to (a nested
    /// `.cursor/rules`, a subdirectory's `AGENTS.md`), `/`-separated.
    pub directory: Option<&'a str>,
}

/// What a file yielded: its rules (none when unusable; several for
/// `rules.yaml`) and diagnostics.
#[derive(Debug, Default)]
pub struct Parsed {
    pub rules: Vec<ParsedRule>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads one file as `format`. Never panics on any text.
pub fn parse(format: Format, input: &Input) -> Parsed {
    let mut cx = Context::new(input.path);
    let rules = match format {
        Format::Wave | Format::Claude => {
            let mut o = parse::parse_rule(input.scope, input.id, input.path, input.text);
            if let Some(r) = o.rule.as_mut() {
                r.rule.format = format;
            }
            return Parsed {
                rules: o.rule.into_iter().collect(),
                diagnostics: o.diagnostics,
            };
        }
        Format::Cursor => cursor::parse(&mut cx, input).into_iter().collect(),
        Format::Copilot => copilot::parse(&mut cx, input).into_iter().collect(),
        Format::Windsurf => windsurf::parse(&mut cx, input).into_iter().collect(),
        Format::Kiro => kiro::parse(&mut cx, input).into_iter().collect(),
        Format::Cline => cline::parse(&mut cx, input).into_iter().collect(),
        Format::Continue => continue_::parse(&mut cx, input).into_iter().collect(),
        Format::AgentsMd => agents_md::parse(&mut cx, input).into_iter().collect(),
        Format::RulesYaml => rules_yaml::parse(&mut cx, input),
    };
    Parsed {
        rules,
        diagnostics: cx.diagnostics,
    }
}

/// How a format reads a glob string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Split {
    /// At commas outside braces (Cursor, Windsurf, Copilot, Continue).
    Commas,
    /// As one pattern, commas included (Kiro); a comma outside braces is
    /// reported, since the tool reads it literally.
    Literal,
    /// As one value, silently (a regex may hold commas).
    Whole,
}

/// Location: 1-based (line, column) in the file.
pub(crate) type At = Option<(u32, u32)>;

impl<'a> Context<'a> {
    /// A glob key's value as a list of patterns: a string (split per
    /// `split`) or a list of strings. `None` when empty or unusable (an
    /// unusable value is reported).
    pub(crate) fn globs(
        &mut self,
        format: Format,
        key: &str,
        value: &Value,
        at: At,
        split: Split,
    ) -> Option<Vec<String>> {
        let items: Vec<String> = match value {
            Value::Null(()) => return None,
            Value::List(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item.as_text() {
                        Some(s) => out.push(s.trim().to_string()),
                        None => self.report(
                            Severity::Warning,
                            Code::InvalidField,
                            at,
                            format!(
                                "'{key}' items must be strings, found {}; that item is ignored",
                                item.kind()
                            ),
                        ),
                    }
                }
                out
            }
            Value::Str(text) => match split {
                Split::Commas => parse::split_commas(text),
                Split::Whole => vec![text.trim().to_string()],
                Split::Literal => {
                    let parts = parse::split_commas(text);
                    if parts.len() > 1 {
                        let loc = self.locate(text).or(at);
                        self.report(
                            Severity::Warning,
                            Code::CommaJoinedPattern,
                            loc,
                            format!(
                                "{} reads '{text}' as ONE literal pattern (commas included), so it matches no file; write a list ({}) or braces ({{{}}})",
                                format.tool(),
                                parts.iter().map(|p| format!("\"{p}\"")).collect::<Vec<_>>().join(", "),
                                parts.join(","),
                            ),
                        );
                    }
                    vec![text.trim().to_string()]
                }
            },
            other => {
                self.report(
                    Severity::Warning,
                    Code::InvalidField,
                    at,
                    format!(
                        "'{key}' must be a string or a list of strings, not {}; {} ignores it",
                        other.kind(),
                        format.tool()
                    ),
                );
                return None;
            }
        };
        let out: Vec<String> = items.into_iter().filter(|p| !p.is_empty()).collect();
        (!out.is_empty()).then_some(out)
    }

    /// A boolean flag; `"true"` / `"false"` strings are read with a warning.
    pub(crate) fn flag(&mut self, key: &str, value: &Value, at: At) -> Option<bool> {
        match value {
            Value::Bool(b) => Some(*b),
            Value::Null(()) => None,
            other => {
                let text = other.as_text().map(|t| t.trim().to_ascii_lowercase());
                let parsed = match text.as_deref() {
                    Some("true") => Some(true),
                    Some("false") => Some(false),
                    _ => None,
                };
                let what = match parsed {
                    Some(b) => format!("read as {b}"),
                    None => "ignored".to_string(),
                };
                self.report(
                    Severity::Warning,
                    Code::InvalidField,
                    at,
                    format!(
                        "'{key}' should be true or false, not {}; {what}",
                        parse::describe(other)
                    ),
                );
                parsed
            }
        }
    }

    /// A key this format does not read: another tool's key (with what to
    /// write instead in this format) is a warning; anything else an info,
    /// since the tool itself ignores it too.
    pub(crate) fn other_key(&mut self, format: Format, key: &str, at: At, known: &[&str]) {
        let owner = match key {
            "globs" => Some(("Cursor's", true)),
            "applyTo" => Some(("Copilot's", true)),
            "fileMatchPattern" => Some(("Kiro's", true)),
            "paths" => Some(("Claude Code's", true)),
            "alwaysApply" => Some(("Cursor's", false)),
            "trigger" => Some(("Windsurf's", false)),
            "inclusion" => Some(("Kiro's", false)),
            "topics" => Some(("Wave's", true)),
            _ => None,
        };
        // A file written for two tools (`applyTo` for Copilot and `paths` for
        // Claude Code): the other tool's key is deliberate, not a mistake.
        let own_present = owner.is_some_and(|(_, globs)| globs)
            && key != "topics"
            && self.key_location(format.glob_key()).is_some();
        match owner {
            Some((owner, _)) if own_present => self.report(
                Severity::Info,
                Code::ForeignKey,
                at,
                format!(
                    "'{key}' is {owner} key; {} ignores it and reads this file's '{}'",
                    format.tool(),
                    format.glob_key()
                ),
            ),
            Some((owner, globs)) => {
                let advice = if key == "topics" {
                    format!(
                        "{} has no keyword trigger; use a .wave/rules file for topics",
                        format.tool()
                    )
                } else if globs {
                    format.glob_advice().to_string()
                } else {
                    format.always_advice().to_string()
                };
                self.report(
                    Severity::Warning,
                    Code::ForeignKey,
                    at,
                    format!(
                        "'{key}' is {owner} key, not {}'s: {advice}; it is ignored here",
                        format.tool()
                    ),
                );
            }
            None => self.report(
                Severity::Info,
                Code::UnknownKey,
                at,
                format!(
                    "'{key}' is not a {} key and is ignored (its keys: {})",
                    format.tool(),
                    known.join(", ")
                ),
            ),
        }
    }

    /// A rule that needs a description to be offered (on request) has none.
    pub(crate) fn needs_description(
        &mut self,
        format: Format,
        what: &str,
        meta: &Metadata,
        at: At,
    ) {
        if meta.activation == Activation::OnRequest && meta.description.is_none() {
            let at = at.or(Some((1, 1)));
            self.report(
                Severity::Warning,
                Code::MissingDescription,
                at,
                format!("{} {what} rule has no 'description', so the model has nothing to decide by; add one", format.tool()),
            );
        }
    }

    /// A file-matching trigger (`trigger: glob`, `inclusion: fileMatch`):
    /// its globs become the rule's paths; without any, the rule could never
    /// fire, so it gets a warning and stays manual.
    pub(crate) fn file_trigger(
        &mut self,
        key: &str,
        written: Option<&[String]>,
        directory: Option<&str>,
        meta: &mut Metadata,
        at: At,
        missing: &str,
    ) -> Vec<RulePattern> {
        match written {
            Some(list) => {
                let (matched, patterns) =
                    self.format_patterns(key, list, directory, false, str::to_string);
                meta.paths = Some(matched);
                patterns
            }
            None => {
                self.report(
                    Severity::Warning,
                    Code::EmptyTrigger,
                    at,
                    missing.to_string(),
                );
                meta.activation = Activation::Manual;
                Vec::new()
            }
        }
    }

    /// Compiles a format's patterns: `written` as in the file, matched with
    /// `dialect` applied, then prefixed with the scoped directory.
    pub(crate) fn format_patterns(
        &mut self,
        key: &str,
        written: &[String],
        directory: Option<&str>,
        case_insensitive: bool,
        dialect: impl Fn(&str) -> String,
    ) -> (Vec<String>, Vec<RulePattern>) {
        let matched: Vec<String> = written
            .iter()
            .map(|w| {
                let (negated, body) = crate::pattern::split_negation(w);
                let body = scoped(directory, &dialect(body));
                if negated {
                    format!("!{body}")
                } else {
                    body
                }
            })
            .collect();
        let pairs: Vec<(&str, &str)> = written
            .iter()
            .map(String::as_str)
            .zip(matched.iter().map(String::as_str))
            .collect();
        let patterns = self.compile_patterns_as(key, &pairs, case_insensitive);
        (matched, patterns)
    }
}

/// `dir/` + pattern (a leading `./` or `/` of the pattern dropped).
pub(crate) fn scoped(directory: Option<&str>, pattern: &str) -> String {
    match directory {
        Some(d) if !d.is_empty() => {
            let p = pattern.trim_start_matches("./").trim_start_matches('/');
            format!("{}/{p}", d.trim_end_matches('/'))
        }
        _ => pattern.to_string(),
    }
}

/// Builds the parsed rule of a single-rule format.
pub(crate) fn rule(
    input: &Input,
    format: Format,
    content: String,
    mut metadata: Metadata,
    patterns: Vec<RulePattern>,
) -> ParsedRule {
    metadata.directory = input
        .directory
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    ParsedRule {
        rule: Rule {
            id: input.id.to_string(),
            scope: input.scope,
            file_path: input.path.to_path_buf(),
            content,
            metadata,
            format,
        },
        patterns,
    }
}

/// The tool's own name for how a rule is activated ("Auto Attached",
/// "Model Decision", "inclusion: fileMatch", ...).
pub fn kind(rule: &Rule) -> &'static str {
    let meta = &rule.metadata;
    match rule.format {
        Format::Cursor => cursor::kind(meta),
        Format::Copilot => copilot::kind(meta),
        Format::Windsurf => windsurf::kind(meta),
        Format::Kiro => kiro::kind(meta),
        Format::Cline => cline::kind(meta),
        Format::Continue => continue_::kind(meta),
        Format::AgentsMd => agents_md::kind(meta),
        Format::RulesYaml => "keyword rule",
        Format::Wave | Format::Claude => match (meta.paths.is_some(), meta.topics.is_some()) {
            (false, false) => "always",
            (true, false) => "`paths`",
            (false, true) => "`topics`",
            (true, true) => "`paths` and `topics`",
        },
    }
}

/// The names a rule can be mentioned by in a prompt (`@name`), lowercased:
/// its id, its id without the source name, its file's base name without
/// extension (as Cursor and Windsurf write it), and its `name`.
pub fn mention_names(rule: &Rule) -> Vec<String> {
    let mut names = vec![rule.id.to_lowercase()];
    let bare = rule.id.split_once(':').map_or(rule.id.as_str(), |(_, r)| r);
    names.push(bare.to_lowercase());
    let base = bare.rsplit('/').next().unwrap_or(bare);
    names.push(base.to_lowercase());
    let stem = [".instructions.md", ".mdc", ".md", ".txt", ".yaml"]
        .iter()
        .find_map(|ext| base.strip_suffix(ext))
        .unwrap_or(base);
    names.push(stem.to_lowercase());
    if let Some(name) = &rule.metadata.name {
        names.push(name.trim().to_lowercase());
    }
    names.retain(|n| !n.is_empty());
    names.sort();
    names.dedup();
    names
}
