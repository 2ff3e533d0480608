//! Splits a rule file into frontmatter and body, and reads the frontmatter
//! with a real YAML parser (serde-saphyr), plus the leniency real files need.
//!
//! The frontmatter is the block between a first line `---` and the next line
//! `---` (a UTF-8 BOM and CRLF line ends are accepted). Values that a strict
//! YAML parser misreads are very common in rule files written for other tools:
//! `paths: *.ts` is an alias to YAML, `paths: {src,lib}/**` a broken flow
//! mapping, `paths: !*.test.ts` a tag. When the strict parse fails (or a value
//! starts with a lone `!`), such plain values are quoted and the block is
//! parsed again; each repaired line is reported as a warning.

use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use thiserror::Error;

/// A YAML value, as much as rule frontmatter needs.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Value {
    Null(()),
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Map(BTreeMap<String, Value>),
}

impl Value {
    /// A short name of the value's type, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null(()) => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::List(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// The scalar as text (strings, numbers, booleans); `None` otherwise.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.clone()),
            Value::Int(n) => Some(n.to_string()),
            Value::Float(x) => Some(x.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// A file split at its frontmatter.
#[derive(Debug, PartialEq, Eq)]
pub struct FrontmatterSplit<'a> {
    /// The YAML between the `---` lines, if the file has frontmatter.
    pub yaml: Option<&'a str>,
    /// Everything after the closing `---` (or the whole file).
    pub body: &'a str,
    /// 1-based line of the first YAML line in the file.
    pub yaml_first_line: u32,
}

/// Why a frontmatter block could not be read at all.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FrontmatterError {
    #[error("frontmatter opened with '---' on line 1 is never closed by a '---' line")]
    Unclosed,
    #[error("{message}")]
    Yaml {
        message: String,
        line: u32,
        column: u32,
    },
}

/// Splits `text` (BOM already allowed) into frontmatter and body.
pub fn split(text: &str) -> Result<FrontmatterSplit<'_>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if !is_fence(first) {
        return Ok(FrontmatterSplit {
            yaml: None,
            body: text,
            yaml_first_line: 1,
        });
    }
    let start = first.len();
    let mut offset = start;
    for line in lines {
        if is_fence(line) {
            return Ok(FrontmatterSplit {
                yaml: Some(&text[start..offset]),
                body: &text[offset + line.len()..],
                yaml_first_line: 2,
            });
        }
        offset += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

fn is_fence(line: &str) -> bool {
    line.trim_end_matches(['\n', '\r']).trim_end() == "---"
}

/// The top-level entries of a frontmatter block, with the 1-based line and
/// column of each value (relative to the YAML block).
pub type Entries = BTreeMap<String, Spanned<Value>>;

/// A line the leniency pass quoted: 1-based line within the block, and the
/// value as it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repair {
    pub line: u32,
    pub column: u32,
    pub value: String,
}

/// The parsed block and the repairs made to read it.
#[derive(Debug)]
pub struct ParsedYaml {
    pub entries: Entries,
    pub repairs: Vec<Repair>,
}

use crate::base::limits::MAX_REPAIR_ROUNDS;

/// Parses a frontmatter block. Line numbers in errors are relative to the
/// block (line 1 = first YAML line). When the strict parse fails, suspicious
/// plain values are quoted, then the plain value on the line where the parser
/// stops (e.g. `description: core: details`), a few rounds at most; if that
/// still fails, the strict error is returned.
pub fn parse(yaml: &str) -> Result<ParsedYaml, FrontmatterError> {
    let strict = parse_strict(yaml);
    let tagged = strict.is_ok() && has_lone_bang_value(yaml);
    if strict.is_ok() && !tagged {
        return strict.map(|entries| ParsedYaml {
            entries,
            repairs: Vec::new(),
        });
    }
    let bang_only = strict.is_ok();
    let mut lines: Vec<String> = yaml.split_inclusive('\n').map(str::to_string).collect();
    let mut repairs = Vec::new();
    for (n, line) in lines.iter_mut().enumerate() {
        if let Some(r) = quote_line(line, n, |v| suspicious_start(v, bang_only)) {
            repairs.push(r);
        }
    }
    for _ in 0..MAX_REPAIR_ROUNDS {
        if repairs.is_empty() && bang_only {
            break;
        }
        let text = lines.concat();
        match parse_strict(&text) {
            Ok(entries) if !repairs.is_empty() => {
                repairs.sort_by_key(|r| r.line);
                return Ok(ParsedYaml { entries, repairs });
            }
            Ok(_) => break,
            Err(FrontmatterError::Yaml { line, .. }) if !bang_only => {
                let n = line.saturating_sub(1) as usize;
                let Some(target) = lines.get_mut(n) else {
                    break;
                };
                match quote_line(target, n, is_plain) {
                    Some(r) => repairs.push(r),
                    None => break,
                }
            }
            Err(_) => break,
        }
    }
    strict.map(|entries| ParsedYaml {
        entries,
        repairs: Vec::new(),
    })
}

fn parse_strict(yaml: &str) -> Result<Entries, FrontmatterError> {
    serde_saphyr::from_str::<Entries>(yaml).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line() as u32, l.column() as u32))
            .unwrap_or((1, 1));
        FrontmatterError::Yaml {
            message: bare_message(&e.without_snippet().to_string()),
            line: newline_line(yaml, line),
            column,
        }
    })
}

/// YAML counts a lone `\r` as a line break too; diagnostics count `\n`
/// lines (what editors and the rest of this crate count). Converts the
/// parser's 1-based line to ours (found by fuzzing: a file with lone CRs got
/// error lines past its end).
fn newline_line(yaml: &str, yaml_line: u32) -> u32 {
    let bytes = yaml.as_bytes();
    let (mut yl, mut nl) = (1u32, 1u32);
    let mut i = 0;
    while i < bytes.len() && yl < yaml_line {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                yl += 1;
                nl += 1;
                i += 1;
            }
            b'\r' => yl += 1,
            b'\n' => {
                yl += 1;
                nl += 1;
            }
            _ => {}
        }
        i += 1;
    }
    nl
}

/// serde-saphyr renders `mapping values are not allowed in this context at
/// line 2, column 5`; we keep the reason, as the location is reported
/// separately.
fn bare_message(rendered: &str) -> String {
    let first = rendered.lines().next().unwrap_or(rendered);
    let first = first.strip_prefix("error: ").unwrap_or(first);
    match first.rfind(" at line ") {
        Some(i) if first[i..].contains(", column ") => first[..i].to_string(),
        _ => first.to_string(),
    }
}

/// Characters that start a plain value a strict parser misreads in a glob.
fn suspicious_start(value: &str, bang_only: bool) -> bool {
    let mut chars = value.chars();
    match chars.next() {
        Some('!') => chars.next().is_some_and(|c| c != '!' && !c.is_whitespace()),
        _ if bang_only => false,
        Some('*' | '&' | '@' | '`' | '%' | '{') => true,
        // `[abc]*.md` is a class, `[a, b]` a list, `[a, b` a broken list.
        Some('[') => value.contains(']') && !value.trim_end().ends_with(']'),
        _ => false,
    }
}

/// Splits a YAML line into (prefix up to the value, value) for `key: value`,
/// `- value` and `- key: value` lines. `None` for other lines.
fn value_of(line: &str) -> Option<(usize, &str)> {
    let mut pos = line.len() - line.trim_start().len();
    loop {
        let rest = &line[pos..];
        if let Some(after) = rest.strip_prefix("- ") {
            pos += 2 + (after.len() - after.trim_start().len());
            continue;
        }
        break;
    }
    let rest = &line[pos..];
    if let Some(colon) = rest.find(": ") {
        let key = &rest[..colon];
        if !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        {
            let after = &rest[colon + 2..];
            pos += colon + 2 + (after.len() - after.trim_start().len());
        }
    }
    let value = line[pos..].trim_end();
    if value.is_empty() {
        None
    } else {
        Some((pos, value))
    }
}

fn has_lone_bang_value(yaml: &str) -> bool {
    yaml.lines()
        .any(|l| value_of(l).is_some_and(|(_, v)| suspicious_start(v, true)))
}

/// A plain (unquoted, non-collection, non-block) scalar.
fn is_plain(value: &str) -> bool {
    !value.starts_with(['"', '\'', '[', '{', '|', '>', '#'])
}

/// Quotes the value of `line` (line index `n`) if `wanted(value)`.
fn quote_line(line: &mut String, n: usize, wanted: impl Fn(&str) -> bool) -> Option<Repair> {
    let content = line.trim_end_matches(['\n', '\r']);
    let ending = line[content.len()..].to_string();
    let (pos, value) = value_of(content)?;
    if !wanted(value) {
        return None;
    }
    // A ` #` starts a YAML comment; keep it outside the quotes.
    let (value, comment) = match value.find(" #") {
        Some(i) => (value[..i].trim_end(), &value[i..]),
        None => (value, ""),
    };
    let column = content[..pos].chars().count() as u32 + 1;
    let repaired = format!(
        "{}'{}'{}{}",
        &content[..pos],
        value.replace('\'', "''"),
        comment,
        ending
    );
    let repair = Repair {
        line: n as u32 + 1,
        column,
        value: value.to_string(),
    };
    *line = repaired;
    Some(repair)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_cases() {
        let s = split("---\npaths: a\n---\nbody\n").unwrap();
        assert_eq!((s.yaml, s.body), (Some("paths: a\n"), "body\n"));
        let s = split("\u{feff}---\r\npaths: a\r\n---\r\nbody").unwrap();
        assert_eq!((s.yaml, s.body), (Some("paths: a\r\n"), "body"));
        let s = split("# Title\n---\nx").unwrap();
        assert_eq!((s.yaml, s.body), (None, "# Title\n---\nx"));
        let s = split("---\n---\n").unwrap();
        assert_eq!((s.yaml, s.body), (Some(""), ""));
        assert_eq!(
            split("---\npaths: a\nbody"),
            Err(FrontmatterError::Unclosed)
        );
        assert_eq!(split("").unwrap().body, "");
    }

    fn value(yaml: &str, key: &str) -> Value {
        parse(yaml).unwrap().entries.remove(key).unwrap().value
    }

    #[test]
    fn strict_values() {
        assert_eq!(value("priority: 5", "priority"), Value::Int(5));
        assert_eq!(
            value("paths: [a, 'b']", "paths"),
            Value::List(vec![Value::Str("a".into()), Value::Str("b".into())])
        );
        assert_eq!(value("x: ~", "x"), Value::Null(()));
    }

    #[test]
    fn lenient_values() {
        for (yaml, key, want) in [
            ("paths: *.ts", "paths", "*.ts"),
            ("globs: **/*.ts,**/*.tsx", "globs", "**/*.ts,**/*.tsx"),
            ("paths: {src,lib}/**/*.ts", "paths", "{src,lib}/**/*.ts"),
            ("paths: !*.test.ts", "paths", "!*.test.ts"),
            ("paths: *.ts # a comment", "paths", "*.ts"),
            ("paths: *it's", "paths", "*it's"),
            ("paths: [abc]*.md", "paths", "[abc]*.md"),
        ] {
            let p = parse(yaml).unwrap_or_else(|e| panic!("{yaml}: {e}"));
            assert_eq!(p.entries[key].value, Value::Str(want.into()), "{yaml}");
            assert_eq!(p.repairs.len(), 1, "{yaml}");
        }
        let p = parse("paths:\n  - src/**\n  - *.ts\n").unwrap();
        assert_eq!(
            p.entries["paths"].value,
            Value::List(vec![Value::Str("src/**".into()), Value::Str("*.ts".into())])
        );
        assert_eq!(
            p.repairs,
            vec![Repair {
                line: 3,
                column: 5,
                value: "*.ts".into()
            }]
        );
        // A colon inside an unquoted description, then an alias on the next line.
        let p = parse(
            "description: core: details here\nglobs: **/*.spec*,**/*.test*\nalwaysApply: false\n",
        )
        .unwrap();
        assert_eq!(
            p.entries["description"].value,
            Value::Str("core: details here".into())
        );
        assert_eq!(
            p.entries["globs"].value,
            Value::Str("**/*.spec*,**/*.test*".into())
        );
        assert_eq!(
            p.repairs.iter().map(|r| r.line).collect::<Vec<_>>(),
            vec![1, 2]
        );
        // A proper tag is left alone.
        assert_eq!(value("priority: !!int 3", "priority"), Value::Int(3));
    }

    #[test]
    fn errors_keep_the_strict_location() {
        match parse("a: 1\n  b: c\n") {
            Err(FrontmatterError::Yaml {
                line,
                column,
                message,
            }) => {
                assert_eq!((line, column), (2, 4));
                assert!(message.contains("mapping values"), "{message}");
                assert!(!message.contains("line 2"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse("- a\n- b\n"),
            Err(FrontmatterError::Yaml { .. })
        ));
        assert!(matches!(
            parse("paths: \"open\n"),
            Err(FrontmatterError::Yaml { .. })
        ));
        assert!(matches!(
            parse("paths: [a, b\n"),
            Err(FrontmatterError::Yaml { .. })
        ));
    }
}
