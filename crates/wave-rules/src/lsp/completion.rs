//! Completion in the frontmatter: the keys the file's format reads (those
//! not yet written), and the values of the keys that take a word.

use super::documents::DocumentKind;
use super::hover::frontmatter_end;
use super::ranges;
use super::workspace::Workspace;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, Position,
};
use memory_rules::Format;

/// The values of the keys that take one of a few words, per key (Wave's
/// and the other tools' own).
const VALUES: [(&str, &[&str]); 7] = [
    ("activation", &["on-request", "manual"]),
    ("enforce", &["block", "warn"]),
    ("remind", &["once", "every-turn"]),
    ("alwaysApply", &["true", "false"]),
    (
        "trigger",
        &["always_on", "glob", "model_decision", "manual"],
    ),
    ("inclusion", &["always", "fileMatch", "manual", "auto"]),
    ("excludeAgent", &["coding-agent", "code-review"]),
];

pub(super) fn complete(ws: &Workspace, p: &CompletionParams) -> Option<CompletionResponse> {
    let at = &p.text_document_position;
    let doc = ws.document(&at.text_document.uri)?;
    if doc.kind != DocumentKind::Rule {
        return None;
    }
    let Position { line, .. } = at.position;
    let end = frontmatter_end(&doc.text).unwrap_or(u32::MAX);
    if line == 0 || line >= end {
        return None;
    }
    let span = ranges::line_span(&doc.text, line)?;
    let cursor = ranges::offset(&doc.text, at.position).clamp(span.start, span.end);
    let before = &doc.text[span.start..cursor];
    let format = ws
        .config
        .source_of(&doc.path)
        .map_or_else(|| Format::guess(&doc.path), |s| s.format);
    let items = match before.split_once(':') {
        None if !before.starts_with(char::is_whitespace) => keys(&doc.text, end, format),
        Some((key, _)) => values(ws, key.trim()),
        None => Vec::new(),
    };
    Some(CompletionResponse::Array(items))
}

fn keys(text: &str, end: u32, format: Format) -> Vec<CompletionItem> {
    let written: Vec<&str> = text
        .lines()
        .take(end as usize)
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim()))
        .collect();
    memory_rules::frontmatter_keys(format)
        .iter()
        .filter(|k| !written.contains(k))
        .map(|k| CompletionItem {
            label: k.to_string(),
            kind: Some(CompletionItemKind::PROPERTY),
            detail: Some(format!("{} key", format.tool())),
            insert_text: Some(format!("{k}: ")),
            ..Default::default()
        })
        .collect()
}

/// A key's words; for a glob key, the project's top folders as `dir/**`.
fn values(ws: &Workspace, key: &str) -> Vec<CompletionItem> {
    let item = |v: String| CompletionItem {
        label: v,
        kind: Some(CompletionItemKind::VALUE),
        ..Default::default()
    };
    if let Some((_, words)) = VALUES.iter().find(|(k, _)| *k == key) {
        return words.iter().map(|w| item(w.to_string())).collect();
    }
    if super::diagnostics::GLOB_KEYS.contains(&key) {
        let mut dirs: Vec<&str> = ws
            .files
            .iter()
            .filter_map(|f| f.split_once('/').map(|(d, _)| d))
            .collect();
        dirs.dedup();
        return dirs.into_iter().map(|d| item(format!("{d}/**"))).collect();
    }
    Vec::new()
}
