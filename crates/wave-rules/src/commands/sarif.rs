//! `validate --format sarif`: the diagnostics as a SARIF 2.1.0 log, the
//! format GitHub code scanning reads (`github/codeql-action/upload-sarif`).
//! One rule per diagnostic code (its id the code, its help the code's
//! description), one result per diagnostic with the file relative to the
//! project root (`%SRCROOT%`) and its region: the line, and the columns of
//! the text it is about (the fix's text, else to the end of the line).

use crate::base::display;
use memory_rules::{Code, Diagnostic, Severity};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// The schema a SARIF 2.1.0 log names.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The tool's page.
const INFORMATION_URI: &str = "https://www.npmjs.com/package/wave-memory-rules";
/// Where every code is explained.
const CODES_PAGE: &str = "docs/rules.md, section Diagnostics, of the wave-memory-rules package";

pub(crate) fn log(diagnostics: &[Diagnostic], workdir: &Path) -> Value {
    let codes: Vec<Code> = diagnostics
        .iter()
        .map(|d| d.code)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let rules: Vec<Value> = codes.iter().map(|&c| rule(c)).collect();
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| result(d, &codes, workdir))
        .collect();
    let root = format!("{}/", crate::base::display::file_uri(workdir));
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "wave-rules",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

fn rule(code: Code) -> Value {
    json!({
        "id": code.as_str(),
        "name": code.as_str(),
        "shortDescription": {"text": code.description()},
        "fullDescription": {"text": code.description()},
        "help": {
            "text": format!("{} The codes: {CODES_PAGE}.", code.description()),
        },
    })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn result(d: &Diagnostic, codes: &[Code], workdir: &Path) -> Value {
    let path = Path::new(&d.file_path);
    let location = match path.strip_prefix(workdir) {
        Ok(rel) => json!({"uri": display::uri_path(rel), "uriBaseId": "%SRCROOT%"}),
        Err(_) => json!({"uri": display::file_uri(path)}),
    };
    let mut physical = json!({"artifactLocation": location});
    if let Some(region) = region(d) {
        physical["region"] = region;
    }
    json!({
        "ruleId": d.code.as_str(),
        "ruleIndex": codes.iter().position(|&c| c == d.code).unwrap_or(0),
        "level": level(d.severity),
        "message": {"text": d.message},
        "locations": [{"physicalLocation": physical}],
    })
}

/// The line, and the columns (1-based, in characters) of what the
/// diagnostic is about when the file can still be read.
fn region(d: &Diagnostic) -> Option<Value> {
    let line = d.line?;
    let mut region = json!({"startLine": line});
    let Some(column) = d.column else {
        return Some(region);
    };
    region["startColumn"] = json!(column);
    let text = memory_rules::sources::read_rule_file(Path::new(&d.file_path))
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    if let Some((start, end)) = text.and_then(|t| columns(d, &t)) {
        region["startColumn"] = json!(start);
        region["endColumn"] = json!(end.max(start + 1));
    }
    Some(region)
}

/// 1-based start and end (exclusive) columns, in characters, on the
/// diagnostic's line: the fix's text, else from its column to the end of
/// the line's text.
fn columns(d: &Diagnostic, text: &str) -> Option<(usize, usize)> {
    let line = d.line? as usize;
    let start_byte = match line {
        1 => 0,
        n => text.match_indices('\n').nth(n - 2)?.0 + 1,
    };
    let line_text = text[start_byte..].lines().next().unwrap_or("");
    let chars = |bytes: usize| line_text[..bytes].chars().count() + 1;
    if let Some(span) = d.fix.as_ref().and_then(|f| f.span(text)) {
        return Some((chars(span.start - start_byte), chars(span.end - start_byte)));
    }
    let start = d.column? as usize;
    let end = line_text.trim_end().chars().count() + 1;
    Some((start, end))
}
