//! Document symbols (one per rule of the file: several in `rules.yaml`)
//! and go to definition on an `@path` import.

use super::diagnostics;
use super::documents::{self, Document};
use super::ranges;
use super::workspace::Workspace;
use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams,
    GotoDefinitionResponse, Location, Position, Range, SymbolKind,
};
use std::path::PathBuf;

pub(super) fn symbols(ws: &Workspace, p: &DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
    let doc = ws.document(&p.text_document.uri)?;
    let (_, set) = diagnostics::check(ws, doc);
    let whole = ranges::range(&doc.text, 0..doc.text.len());
    let list = set
        .rules()
        .iter()
        .map(|r| {
            // `rules-yaml:sql` for `id: sql`.
            let own = r.id.split_once(':').map_or(r.id.as_str(), |(_, i)| i);
            let range = id_line(&doc.text, &r.id)
                .or_else(|| id_line(&doc.text, own))
                .unwrap_or(whole);
            #[allow(deprecated)] // `deprecated` is a field every literal must name
            DocumentSymbol {
                name: r.id.clone(),
                detail: Some(r.metadata.activation_kind()),
                kind: SymbolKind::OBJECT,
                tags: None,
                deprecated: None,
                range,
                selection_range: range,
                children: None,
            }
        })
        .collect();
    Some(DocumentSymbolResponse::Nested(list))
}

/// The line of a `rules.yaml` entry's `id: <id>` (the id as written, without
/// the format's prefix).
fn id_line(text: &str, id: &str) -> Option<Range> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start().trim_start_matches("- ").trim();
        let value = t
            .strip_prefix("id:")
            .map(|v| v.trim().trim_matches(['"', '\'']));
        if value == Some(id) {
            return Some(ranges::range(text, at..at + line.trim_end().len()));
        }
        at += line.len();
    }
    None
}

pub(super) fn definition(
    ws: &Workspace,
    p: &GotoDefinitionParams,
) -> Option<GotoDefinitionResponse> {
    let at = &p.text_document_position_params;
    let doc = ws.document(&at.text_document.uri)?;
    let (_, target) = import_at(ws, doc, at.position)?;
    let uri = documents::uri_of(&target)?;
    let start = Position::default();
    Some(GotoDefinitionResponse::Scalar(Location {
        uri,
        range: Range { start, end: start },
    }))
}

/// The `@path` import under the cursor that names an existing file: the
/// word as written, and the file.
pub(super) fn import_at(ws: &Workspace, doc: &Document, at: Position) -> Option<(String, PathBuf)> {
    let span = ranges::line_span(&doc.text, at.line)?;
    let line = &doc.text[span.clone()];
    let cursor = ranges::offset(&doc.text, at) - span.start;
    let start = line[..cursor]
        .rfind(char::is_whitespace)
        .map_or(0, |i| i + 1);
    let end = line[cursor..]
        .find(char::is_whitespace)
        .map_or(line.len(), |i| cursor + i);
    let word = &line[start..end];
    let name = word
        .strip_prefix('@')?
        .trim_end_matches([',', '.', ')', ';']);
    if name.is_empty() {
        return None;
    }
    let target = match name.strip_prefix("~/") {
        Some(rest) => ws.home.as_ref()?.join(rest),
        None => doc.path.parent()?.join(name),
    };
    target.is_file().then(|| (word.to_string(), target))
}
