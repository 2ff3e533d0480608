//! A document's diagnostics: the core's `check_text` of the text as typed,
//! plus what only a whole load finds, from the last load of the project.

use super::documents::{Document, DocumentKind};
use super::ranges;
use super::workspace::Workspace;
use lsp_types::{DiagnosticSeverity, NumberOrString, PublishDiagnosticsParams};
use memory_rules::{Code, Diagnostic, RuleSet, Severity};
use std::path::Path;

/// The codes only a whole load gives (other files, the folders, the packs):
/// shown from the last load (on open and save); every other code comes from
/// the document's text as typed.
const PROJECT_CODES: [Code; 16] = [
    // The file on disk, which the editor may show otherwise (its bytes
    // decoded with replacement characters, or cut).
    Code::NotUtf8,
    Code::Unreadable,
    Code::Overridden,
    Code::Duplicate,
    Code::Locked,
    Code::Disabled,
    Code::Misplaced,
    Code::SymlinkOutside,
    Code::SymlinkTarget,
    Code::SymlinkCycle,
    Code::DanglingSymlink,
    Code::TooDeep,
    Code::NotARule,
    Code::PackMissing,
    Code::PackStale,
    Code::InvalidConfig,
];

/// What the server's own checks call a path rule that matches no file of
/// the project (the report's name for it).
const NO_MATCH: &str = "no-match";

/// A document's diagnostics as the core gives them, and its rules as a set.
pub(super) fn check(ws: &Workspace, doc: &Document) -> (Vec<Diagnostic>, RuleSet) {
    let from_load = |all: bool| {
        ws.loaded
            .diagnostics
            .iter()
            .filter(|d| Path::new(&d.file_path) == doc.path)
            .filter(|d| all || PROJECT_CODES.contains(&d.code))
            .cloned()
            .collect::<Vec<_>>()
    };
    match doc.kind {
        DocumentKind::Rule => {
            let (mut live, set) = memory_rules::check_text(&ws.config, &doc.path, &doc.text);
            live.extend(from_load(false));
            live.extend(scenario_problems(doc, true));
            (live, set)
        }
        DocumentKind::Config => (from_load(true), RuleSet::default()),
        // `wave-rules eval`'s scenario files: its own reading of them.
        DocumentKind::Evals => (scenario_problems(doc, false), RuleSet::default()),
        DocumentKind::Other => (Vec::new(), RuleSet::default()),
    }
}

/// The problems `wave-rules eval` finds in a scenario file, or in a rule's
/// `evals:`, as diagnostics (`invalid-scenario`).
fn scenario_problems(doc: &Document, is_rule: bool) -> Vec<Diagnostic> {
    crate::eval::scenario::problems_of_text(&doc.path, &doc.text, is_rule)
        .iter()
        .map(|p| p.diagnostic(&doc.path))
        .collect()
}

/// Checks a document, remembers its diagnostics (for quick fixes) and
/// gives what to publish.
pub(super) fn publish(
    ws: &mut Workspace,
    uri: &lsp_types::Uri,
) -> Option<PublishDiagnosticsParams> {
    let doc = ws.document(uri)?;
    let (found, _) = check(ws, doc);
    let mut shown: Vec<lsp_types::Diagnostic> =
        found.iter().map(|d| to_lsp(d, &doc.text)).collect();
    if doc.kind == DocumentKind::Rule {
        shown.extend(no_match(ws, doc));
    }
    let params = PublishDiagnosticsParams {
        uri: uri.clone(),
        diagnostics: shown,
        version: None,
    };
    ws.shown.insert(uri.as_str().to_string(), found);
    Some(params)
}

pub(super) fn to_lsp(d: &Diagnostic, text: &str) -> lsp_types::Diagnostic {
    lsp_types::Diagnostic {
        range: ranges::of_diagnostic(d, text),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        source: Some("wave-rules".into()),
        message: d.message.clone(),
        ..Default::default()
    }
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The last load's path rules of this file that match no file of the
/// project, on their glob key's line.
fn no_match(ws: &Workspace, doc: &Document) -> Vec<lsp_types::Diagnostic> {
    let Some(ids) = ws.no_match.get(&doc.path) else {
        return Vec::new();
    };
    let line = glob_key_line(&doc.text).unwrap_or(0);
    let span = ranges::line_span(&doc.text, line).unwrap_or(0..0);
    ids.iter()
        .map(|id| lsp_types::Diagnostic {
            range: ranges::range(&doc.text, span.clone()),
            severity: Some(DiagnosticSeverity::WARNING),
            code: Some(NumberOrString::String(NO_MATCH.into())),
            source: Some("wave-rules".into()),
            message: format!(
                "rule '{id}': its paths match no file of the project ({} files looked at when last opened or saved): it never fires from a file",
                ws.files.len()
            ),
            ..Default::default()
        })
        .collect()
}

/// The keys that hold a rule's globs, in every format.
pub(super) const GLOB_KEYS: [&str; 4] = ["paths", "globs", "applyTo", "fileMatchPattern"];

/// The 0-based line of the first glob key of the frontmatter.
pub(super) fn glob_key_line(text: &str) -> Option<u32> {
    text.lines()
        .take(200)
        .position(|l| {
            GLOB_KEYS.iter().any(|k| {
                l.strip_prefix(k)
                    .is_some_and(|r| r.trim_start().starts_with(':'))
            })
        })
        .map(|n| n as u32)
}
