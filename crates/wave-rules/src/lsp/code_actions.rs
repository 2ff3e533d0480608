//! Quick fixes: each diagnostic's own fix (the core's, the one `validate
//! --fix` writes), as an edit of the document or a rename of the file.

use super::workspace::Workspace;
use super::{diagnostics, documents, ranges};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, DocumentChangeOperation,
    DocumentChanges, Range, RenameFile, ResourceOp, TextEdit, WorkspaceEdit,
};
use memory_rules::Fix;
use std::collections::HashMap;
use std::path::Path;

pub(super) fn actions(ws: &Workspace, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let uri = &p.text_document.uri;
    let (Some(doc), Some(shown)) = (ws.document(uri), ws.shown.get(uri.as_str())) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for d in shown {
        let Some(fix) = d.fix.as_deref() else {
            continue;
        };
        let range = ranges::of_diagnostic(d, &doc.text);
        if !overlaps(range, p.range) {
            continue;
        }
        let edit = match fix {
            Fix::Replace { new, .. } => {
                let Some(span) = fix.span(&doc.text) else {
                    continue;
                };
                let edit = TextEdit {
                    range: ranges::range(&doc.text, span),
                    new_text: new.clone(),
                };
                WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                    ..Default::default()
                }
            }
            Fix::Move { to, .. } => {
                let Some(new_uri) = documents::uri_of(Path::new(to)) else {
                    continue;
                };
                let rename = RenameFile {
                    old_uri: uri.clone(),
                    new_uri,
                    options: None,
                    annotation_id: None,
                };
                WorkspaceEdit {
                    document_changes: Some(DocumentChanges::Operations(vec![
                        DocumentChangeOperation::Op(ResourceOp::Rename(rename)),
                    ])),
                    ..Default::default()
                }
            }
        };
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: fix.title().to_string(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostics::to_lsp(d, &doc.text)]),
            edit: Some(edit),
            is_preferred: Some(true),
            ..Default::default()
        }));
    }
    out
}

/// Whether two ranges share a position (ends included: a cursor at the end
/// of a word asks for its fix).
fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}
