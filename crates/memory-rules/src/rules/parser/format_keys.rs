//! The readers the other agents' formats share with the `.wave/rules`
//! parser: globs, flags, foreign keys, file triggers, one file to read.

use super::*;

// What the other agents' formats read with the same context.

/// How a format reads a glob string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GlobSplit {
    /// At commas outside braces (Cursor, Windsurf, Copilot, Continue).
    Commas,
    /// As one pattern, commas included (Kiro); a comma outside braces is
    /// reported, since the tool reads it literally.
    Literal,
    /// As one value, silently (a regex may hold commas).
    Whole,
}

/// The end of a misspelled-key message when what the rule became cannot
/// be said (a rules file of several rules).
pub(crate) const TYPO_TAIL: &str = ", so this rule is activated as if it did not have it";

/// The keys of the other formats that decide when a rule is active (a
/// `description` alone makes a Cursor, Copilot or Continue rule on request).
const ACTIVATION_KEYS: [&str; 10] = [
    "globs",
    "alwaysApply",
    "applyTo",
    "trigger",
    "inclusion",
    "fileMatchPattern",
    "regex",
    "paths",
    "description",
    "directory",
];

/// Location: 1-based (line, column) in the file.
pub(crate) type At = Option<(u32, u32)>;

impl<'a> RuleReader<'a> {
    /// A glob key's value as a list of patterns: a string (split per
    /// `split`) or a list of strings. `None` when empty or unusable (an
    /// unusable value is reported).
    pub(crate) fn globs(
        &mut self,
        format: Format,
        key: &str,
        value: &Value,
        at: At,
        split: GlobSplit,
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
                GlobSplit::Commas => split_commas(text),
                GlobSplit::Whole => vec![text.trim().to_string()],
                GlobSplit::Literal => {
                    let parts = split_commas(text);
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
                        describe(other)
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
            None => match crate::base::suggest::closest(key, known.iter().copied()) {
                // A typo of a key that decides activation changes when the
                // rule fires: an error, as in the Wave format.
                Some(meant) if ACTIVATION_KEYS.contains(&meant) => {
                    self.report(
                        Severity::Error,
                        Code::MisspelledKey,
                        at,
                        format!(
                            "unknown key '{key}': did you mean '{meant}'? {} ignores '{key}'",
                            format.tool(),
                        ),
                    );
                    self.fix_last(key, meant);
                    self.typos.push(self.diagnostics.len() - 1);
                }
                Some(meant) => {
                    self.report(
                        Severity::Warning,
                        Code::UnknownKey,
                        at,
                        format!(
                            "'{key}' is not a {} key and is ignored: did you mean '{meant}'?",
                            format.tool()
                        ),
                    );
                    self.fix_last(key, meant);
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
            },
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
                let (negated, body) = glob_compile::split_negation(w);
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

/// Builds the parsed rule of a single-rule format: the body checked by
/// [`RuleReader::check_body`], the metadata and patterns read from the file.
pub(crate) fn rule(
    cx: &mut RuleReader,
    input: &Input,
    format: Format,
    body: &str,
    mut metadata: Metadata,
    patterns: Vec<RulePattern>,
) -> Option<ParsedRule> {
    let content = cx.check_body(input.text, body);
    metadata.directory = input
        .directory
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    Some(ParsedRule {
        rule: Rule {
            id: input.id.to_string(),
            scope: input.scope,
            file_path: input.path.to_path_buf(),
            content: content.into(),
            metadata: metadata.into(),
            format,
            origin: Default::default(),
        },
        patterns,
    })
}
