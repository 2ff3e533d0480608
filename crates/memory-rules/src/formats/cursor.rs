//! Cursor: `.cursor/rules/**/*.mdc`. A `.cursor/rules` in a subdirectory
//! applies to files under that subdirectory: its globs are matched relative
//! to it, and its always-on rules fire only for files under it.
//!
//! | frontmatter | Cursor's name | here |
//! |---|---|---|
//! | `alwaysApply: true` | Always | always (nested: files under the directory) |
//! | `globs` (comma-separated, unquoted) | Auto Attached | files in context |
//! | only `description` | Agent Requested | on request |
//! | none | Manual | only when mentioned as `@rule-name` |
//!
//! The legacy `.cursorrules` file at the project root (deprecated by Cursor,
//! still read by it) is plain Markdown, always applied.
//!
//! **How Cursor reads `globs`** (what it does, not what YAML says). Cursor
//! takes the `globs:` line as written (`key: rest-of-line`), splits it at
//! commas, and does not unquote it:
//!
//! | written | Cursor's patterns | attaches |
//! |---|---|---|
//! | `globs: src/**/*.ts,docs/*.md` | `src/**/*.ts`, `docs/*.md` | yes |
//! | `globs: "src/**/*.ts"` (or `'…'`) | `"src/**/*.ts"`, quotes included | never |
//! | `globs: ["a", "b"]` | `["a"`, `"b"]` | never |
//! | `globs:` + `  - a` (a YAML list) | none: the line is empty | no globs |
//!
//! Evidence: a test of every form on Cursor 3.17.8 (cosai-oasis/project-codeguard
//! issue #121, 2026-08-21: "a line-splitting reader that takes `key:
//! rest-of-line` verbatim — and keeps the quote characters"; "a YAML list of
//! quoted patterns … returns empty"); sanity-io/agent-toolkit PR #15 (closed
//! unmerged: Cursor's rules UI showed `"**/probe-quoted.ts"` with the quotes);
//! paralleldrive/aidd PR #10 (quotes removed so the globs attach); a Cursor
//! staff reply on forum.cursor.com/t/rule-frontmatter-format/146274 ("comma
//! separated values, no brackets or quotes", quoted in PIsberg/vibetags issue
//! #699). A space after a comma is reported to stop the next pattern matching
//! (two forum threads, quoted in nefarius/BthPS3 PR #143) while Cursor's own
//! docs show `docs/**/*.md, docs/**/*.mdx`: read as matching, with a warning,
//! and never written. Cursor's docs are silent on all of it; so `globs` is
//! read here from the line as Cursor does, whatever YAML makes of it, and
//! `validate` explains each trap (`quoted-glob`, `spaced-globs`). The other
//! keys are read as YAML when the block is YAML; when it is not (`globs:
//! **/*.ts` is an alias to strict YAML), Cursor still reads the file, and so
//! does this reader, line by line, without a YAML warning.

use super::writer::{push_description, Resolved, TargetActivation, WrittenRule};
use crate::base::diagnostic::{Code, Severity};
use crate::base::limits::MAX_CURSOR_GLOB_EXPANSIONS;
use crate::rules::frontmatter::Value;
use crate::rules::parser::{Entry, Frontmatter, Input, ParsedRule, RuleReader};
use crate::rules::rule::{Activation, Metadata};
use crate::rules::rule_format::Format;

pub(crate) const KEYS: [&str; 3] = ["description", "globs", "alwaysApply"];

/// Cursor's name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    match meta.activation {
        Activation::OnRequest => "Agent Requested",
        Activation::Manual => "Manual",
        Activation::Auto
            if meta.paths.is_none() || meta.directory.is_some() && is_always_nested(meta) =>
        {
            "Always"
        }
        Activation::Auto => "Auto Attached",
    }
}

fn is_always_nested(meta: &Metadata) -> bool {
    let dir = meta.directory.as_deref().unwrap_or("");
    meta.paths
        .as_ref()
        .is_some_and(|p| p.len() == 1 && p[0] == format!("{dir}/**"))
}

/// One top-level line of a frontmatter block as Cursor's line reader sees
/// it: the key, the rest of the line (trimmed, quotes kept), its 1-based
/// line in the block, and whether indented lines (a YAML block list or
/// mapping) follow it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub key: &'a str,
    pub raw: &'a str,
    pub line: u32,
    pub nested: bool,
}

/// The frontmatter's top-level `key: value` lines, as Cursor reads them.
pub(crate) fn lines(yaml: &str) -> Vec<Line<'_>> {
    let mut out: Vec<Line> = Vec::new();
    for (n, line) in yaml.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.starts_with([' ', '\t', '-']) {
            if let Some(last) = out.last_mut() {
                if !line.trim().is_empty() {
                    last.nested = true;
                }
            }
            continue;
        }
        if line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() {
            continue;
        }
        out.push(Line {
            key,
            raw: rest.trim(),
            line: n as u32 + 1,
            nested: false,
        });
    }
    out
}

/// Cursor's patterns of a raw `globs` line: split at commas outside braces
/// (brackets are no group to a line reader: `["a", "b"]` is `["a"` and
/// `"b"]`), each trimmed, quotes and brackets kept as written.
pub(crate) fn globs_of(raw: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    let mut chars = raw.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(raw[from..i].trim().to_string());
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(raw[from..].trim().to_string());
    parts.retain(|p| !p.is_empty());
    parts
}

pub(crate) fn parse<'a>(cx: &mut RuleReader<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    let split = match crate::rules::frontmatter::split(input.text) {
        Ok(s) => s,
        Err(_) => {
            // Reported by the context, as for every format.
            return cx.frontmatter(input.text).and(None);
        }
    };
    let raw_lines = lines(split.yaml.unwrap_or(""));
    let before = cx.diagnostics.len();
    let parsed = cx.frontmatter(input.text);
    // Cursor never reads the block as strict YAML only: its line reader
    // takes `globs: **/*.ts` (an alias to YAML) as written, so the YAML
    // repairs and a block YAML cannot read at all are no problem here.
    let yaml_failed = parsed.is_none();
    let mut kept = Vec::with_capacity(cx.diagnostics.len());
    for (i, d) in cx.diagnostics.drain(..).enumerate() {
        let ours = i >= before;
        let drop =
            ours && (d.code == Code::UnquotedValue || (yaml_failed && d.code == Code::YamlSyntax));
        if !drop {
            kept.push(d);
        }
    }
    cx.diagnostics = kept;
    if yaml_failed && cx.diagnostics.len() > before {
        // Another reason (a limit): as reported.
        return None;
    }
    let fm = match parsed {
        Some(fm) => fm,
        None => Frontmatter {
            entries: raw_lines
                .iter()
                .map(|l| -> Entry {
                    let value = if l.raw.is_empty() {
                        Value::Null(())
                    } else {
                        Value::Str(l.raw.to_string())
                    };
                    (
                        l.key.to_string(),
                        value,
                        Some((cx.first_line + l.line - 1, 1)),
                    )
                })
                .collect(),
            body: split.body,
        },
    };
    let mut meta = Metadata::default();
    let mut always = None;
    let mut globs = None;
    for (key, value, at) in &fm.entries {
        match key.as_str() {
            "description" => meta.description = cx.description(value, *at),
            "alwaysApply" => always = cx.flag(key, value, *at),
            "globs" => {
                let line = raw_lines.iter().find(|l| l.key == "globs");
                globs = line.and_then(|l| globs_line(cx, l));
            }
            _ => cx.other_key(Format::Cursor, key, *at, &KEYS),
        }
    }
    let mut patterns = Vec::new();
    let dir = input.directory.filter(|d| !d.is_empty());
    let legacy = input.path.file_name().is_some_and(|n| n == ".cursorrules");
    if always == Some(true) {
        // An Always rule attaches whatever its globs say: no trap to explain.
        cx.diagnostics
            .retain(|d| !matches!(d.code, Code::QuotedGlob | Code::SpacedGlobs));
    }
    if legacy {
        // Always, as Cursor reads it.
    } else if always == Some(true) {
        // Always; nested, "always" means for the files under its directory.
        if let Some(d) = dir {
            let written = vec!["**".to_string()];
            let (matched, p) =
                cx.format_patterns("alwaysApply", &written, Some(d), false, str::to_string);
            meta.paths = Some(matched);
            patterns = p;
        }
    } else if let Some(list) = globs {
        let (matched, p) = cx.format_patterns("globs", &list, dir, false, str::to_string);
        meta.paths = Some(matched);
        patterns = p;
    } else if meta.description.is_some() {
        meta.activation = Activation::OnRequest;
    } else {
        meta.activation = Activation::Manual;
    }
    crate::rules::parser::rule(cx, input, Format::Cursor, fm.body, meta, patterns)
}

/// The patterns Cursor reads from the `globs` line, with a warning for each
/// form that Cursor keeps as written: quotes, a flow list's brackets, a
/// block list (nothing), a space after a comma.
fn globs_line(cx: &mut RuleReader, line: &Line) -> Option<Vec<String>> {
    let at = Some((cx.first_line + line.line - 1, 1));
    if line.raw.is_empty() {
        if line.nested {
            cx.report(
                Severity::Warning,
                Code::QuotedGlob,
                at,
                "Cursor reads no globs from a YAML list (its reader takes the 'globs:' line as written, and that line is empty), so this rule never attaches by its files; write the patterns on the line, comma-separated and unquoted: globs: src/**/*.ts,docs/*.md".into(),
            );
        }
        return None;
    }
    let list = globs_of(line.raw);
    if list.is_empty() {
        return None;
    }
    let fix = fixed(line.raw);
    if line.raw.starts_with('[') {
        cx.report(
            Severity::Warning,
            Code::QuotedGlob,
            at,
            format!(
                "Cursor reads '{}' as written, brackets and quotes included, so no file matches and this rule never attaches; write globs: {fix}",
                line.raw
            ),
        );
    } else if list
        .iter()
        .any(|p| p.starts_with(['"', '\'']) || p.ends_with(['"', '\'']))
    {
        cx.report(
            Severity::Warning,
            Code::QuotedGlob,
            at,
            format!(
                "Cursor keeps the quote characters of '{}', so no file matches and this rule never attaches; write it unquoted: globs: {fix}",
                line.raw
            ),
        );
    } else if list.len() > 1 && line.raw.contains(", ") {
        cx.report(
            Severity::Warning,
            Code::SpacedGlobs,
            at,
            format!(
                "a space after a comma in 'globs' is reported to stop Cursor matching the pattern after it (its editor shows no sign of it); write globs: {fix}"
            ),
        );
    } else {
        return Some(list);
    }
    cx.fix_last(line.raw, &fix);
    Some(list)
}

/// The working form of a raw `globs` value: unquoted, comma-joined, no spaces.
fn fixed(raw: &str) -> String {
    let inner = raw.trim().trim_start_matches('[').trim_end_matches(']');
    let parts: Vec<String> = crate::matchers::glob_check::split_commas(inner)
        .into_iter()
        .map(|p| p.trim_matches(|c| c == '"' || c == '\'').trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    parts.join(",")
}

/// Cursor's file for a rule: `.cursor/rules/<stem>.mdc`, with `globs` in
/// the one form Cursor applies (see the module documentation): unquoted,
/// comma-joined, no spaces; a pattern whose braces hold a comma is written
/// as its expansions, so no reader can split it inside the braces.
pub(crate) fn write(r: &mut Resolved) -> WrittenRule {
    let mut front = Vec::new();
    match r.kind {
        TargetActivation::Always => {
            push_bare_description(&mut front, r);
            front.push("alwaysApply: true".to_string());
        }
        TargetActivation::Paths => {
            let globs = match globs_value(&r.include) {
                Ok(g) => g,
                Err(why) => return WrittenRule::Skipped(why),
            };
            push_bare_description(&mut front, r);
            front.push(format!("globs: {globs}"));
            front.push("alwaysApply: false".to_string());
        }
        TargetActivation::OnRequest => {
            push_bare_description(&mut front, r);
            front.push("alwaysApply: false".to_string());
        }
        // No description: with one, Cursor offers the rule to the model.
        TargetActivation::Manual => front.push("alwaysApply: false".to_string()),
    }
    WrittenRule::File {
        rel: format!(".cursor/rules/{}.mdc", r.stem),
        front,
    }
}

/// The `description:` line, bare when YAML reads the bare text back as the
/// same string (Cursor's line reader would show quotes as written).
fn push_bare_description(front: &mut Vec<String>, r: &Resolved) {
    let Some(d) = &r.description else {
        return;
    };
    let one_line: String = d.split_whitespace().collect::<Vec<_>>().join(" ");
    if is_plain_scalar(&one_line) {
        front.push(format!("description: {one_line}"));
    } else {
        push_description(front, r);
    }
}

/// Whether `s` is read back by YAML, unquoted, as the string `s`.
fn is_plain_scalar(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    !s.is_empty()
        && !s.starts_with([
            '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%',
            '@', '`', ' ',
        ])
        && !s.ends_with([' ', ':'])
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.chars().any(|c| c.is_control())
        && !matches!(
            lower.as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "~"
        )
        && s.parse::<f64>().is_err()
}

/// The `globs` value Cursor applies: the patterns comma-joined with no
/// spaces, never quoted; braces holding a comma expanded first. `Err` when
/// a pattern cannot be written so (a comma outside braces, a line break,
/// surrounding spaces).
pub(crate) fn globs_value(globs: &[String]) -> Result<String, String> {
    let mut out: Vec<String> = Vec::new();
    for g in globs {
        let Some(expanded) = comma_braces_expanded(g) else {
            return Err(format!(
                "the braces of '{g}' expand to more than {MAX_CURSOR_GLOB_EXPANSIONS} patterns, too many for Cursor's one 'globs' line; left out"
            ));
        };
        for p in expanded {
            // Quotes and brackets are written as they are: Cursor reads them
            // back as the same literal characters (a source read from
            // Cursor's own line keeps its meaning, matching or not).
            let bad = globs_of(&p).len() != 1 || p.trim() != p || p.contains(['\n', '\r']);
            if bad {
                return Err(format!(
                    "Cursor reads 'globs' as one unquoted comma-separated line, which cannot hold the pattern '{g}'; left out rather than written in a form Cursor does not apply"
                ));
            }
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(out.join(","))
}

/// `p` with every brace group that holds a comma expanded (`a/{x,y}.md` ->
/// `a/x.md`, `a/y.md`; `{1..3}` and comma-free braces stay); `None` past
/// [`MAX_CURSOR_GLOB_EXPANSIONS`].
fn comma_braces_expanded(p: &str) -> Option<Vec<String>> {
    let mut done = Vec::new();
    let mut todo = vec![p.to_string()];
    while let Some(p) = todo.pop() {
        match first_comma_group(&p) {
            None => done.push(p),
            Some((open, close, alts)) => {
                for alt in alts.iter().rev() {
                    todo.push(format!("{}{alt}{}", &p[..open], &p[close + 1..]));
                }
            }
        }
        if done.len() + todo.len() > MAX_CURSOR_GLOB_EXPANSIONS {
            return None;
        }
    }
    Some(done)
}

/// The first `{...}` of `p` (outside escapes and classes) whose top level
/// holds a comma: its byte range and its alternatives.
fn first_comma_group(p: &str) -> Option<(usize, usize, Vec<String>)> {
    let bytes = p.as_bytes();
    let mut i = 0;
    let mut in_class = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'{' if !in_class => {
                // The matching close, and the top-level commas inside.
                let (mut depth, mut j, mut class) = (0usize, i, false);
                let mut cuts = Vec::new();
                while j < bytes.len() {
                    match bytes[j] {
                        b'\\' => j += 1,
                        b'[' if !class => class = true,
                        b']' if class => class = false,
                        b'{' if !class => depth += 1,
                        b'}' if !class => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        b',' if !class && depth == 1 => cuts.push(j),
                        _ => {}
                    }
                    j += 1;
                }
                if j < bytes.len() && !cuts.is_empty() {
                    let mut alts = Vec::new();
                    let mut from = i + 1;
                    for c in cuts.into_iter().chain([j]) {
                        alts.push(p[from..c].to_string());
                        from = c + 1;
                    }
                    return Some((i, j, alts));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (as written, Cursor's patterns): the table of the module documentation.
    #[test]
    fn the_globs_line_as_cursor_reads_it() {
        let cases: &[(&str, &[&str])] = &[
            (
                "globs: src/**/*.ts,docs/*.md",
                &["src/**/*.ts", "docs/*.md"],
            ),
            ("globs: \"src/**/*.ts\"", &["\"src/**/*.ts\""]),
            ("globs: '**/*.probe'", &["'**/*.probe'"]),
            ("globs: [\"a\", \"b\"]", &["[\"a\"", "\"b\"]"]),
            ("globs: **/*.{ts,tsx}", &["**/*.{ts,tsx}"]),
            ("globs:\n  - \"a\"\n  - b", &[]),
            ("globs:", &[]),
        ];
        for (yaml, want) in cases {
            let l = lines(yaml);
            let got = globs_of(l[0].raw);
            assert_eq!(got, *want, "{yaml}");
        }
        assert!(lines("globs:\n  - a")[0].nested);
        assert!(!lines("globs:\nalwaysApply: true")[0].nested);
    }

    #[test]
    fn globs_are_written_unquoted_and_comma_joined() {
        let v = |g: &[&str]| globs_value(&g.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            v(&["src/**/*.ts", "lib/*.js"]).unwrap(),
            "src/**/*.ts,lib/*.js"
        );
        assert_eq!(
            v(&["src/**/*.{ts,tsx}"]).unwrap(),
            "src/**/*.ts,src/**/*.tsx"
        );
        assert_eq!(
            v(&["a/{x,y}/*.md", "a/x/*.md"]).unwrap(),
            "a/x/*.md,a/y/*.md"
        );
        assert!(v(&["weird,name.md"]).is_err());
        // A quote that is part of the pattern stays one: Cursor reads it so.
        assert_eq!(v(&["\"x.json", "y/**\""]).unwrap(), "\"x.json,y/**\"");
        assert_eq!(v(&["{a,b}/{c,d}"]).unwrap(), "a/c,a/d,b/c,b/d");
        assert_eq!(v(&["x/{1..3}.md"]).unwrap(), "x/{1..3}.md");
        assert_eq!(v(&["x/{a,{b,c}}.md"]).unwrap(), "x/a.md,x/b.md,x/c.md");
    }

    #[test]
    fn plain_descriptions_are_written_bare() {
        assert!(is_plain_scalar("How to write API handlers"));
        assert!(!is_plain_scalar("Schema: fields"));
        assert!(!is_plain_scalar("true"));
        assert!(!is_plain_scalar("1.5"));
        assert!(!is_plain_scalar("- item"));
        assert!(!is_plain_scalar("a #b"));
    }
}
