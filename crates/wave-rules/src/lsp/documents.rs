//! One open document: its text as the editor holds it, kept up to date by
//! the editor's incremental edits, and what kind of file it is.

use super::ranges;
use lsp_types::{TextDocumentContentChangeEvent, Uri};
use memory_rules::sources::Config;
use memory_rules::Format;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// What the server does with a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DocumentKind {
    /// A rule file of one of the formats: checked as typed.
    Rule,
    /// `.wave/evals/*.yaml`: the scenario files of `wave-rules eval`.
    Evals,
    /// `.wave/config.toml`: the diagnostics of the last load name it.
    Config,
    /// Anything else: no diagnostics of its own.
    Other,
}

pub(super) struct Document {
    pub uri: Uri,
    pub path: PathBuf,
    pub text: String,
    pub kind: DocumentKind,
}

impl Document {
    pub fn new(uri: Uri, path: PathBuf, text: String, config: &Config, known: bool) -> Document {
        let kind = DocumentKind::of(&path, config, known);
        Document {
            uri,
            path,
            text,
            kind,
        }
    }

    /// Applies the editor's changes in order (a change without a range
    /// replaces the whole text). A range outside the text is clamped to it.
    pub fn apply(&mut self, changes: Vec<TextDocumentContentChangeEvent>) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let start = ranges::offset(&self.text, range.start);
                    let end = ranges::offset(&self.text, range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
        }
    }
}

impl DocumentKind {
    /// `known`: the last load read this file or named it in a diagnostic.
    fn of(path: &Path, config: &Config, known: bool) -> DocumentKind {
        let rel = path.strip_prefix(&config.workdir).ok();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if rel.is_some_and(|r| r == Path::new(".wave/config.toml")) {
            return DocumentKind::Config;
        }
        let in_evals = rel.is_some_and(|r| r.parent() == Some(Path::new(".wave/evals")));
        if in_evals && (name.ends_with(".yaml") || name.ends_with(".yml")) {
            return DocumentKind::Evals;
        }
        if known || is_rule_path(path, config) {
            DocumentKind::Rule
        } else {
            DocumentKind::Other
        }
    }
}

/// Whether a file not (yet) loaded would be read as a rule: a name one of
/// the formats reads, or a Markdown file inside a `.wave/rules` source.
fn is_rule_path(path: &Path, config: &Config) -> bool {
    let format = Format::guess(path);
    if !format.is_rule_file(path) {
        return false;
    }
    format != Format::Wave
        || config
            .source_of(path)
            .is_some_and(|s| s.format == Format::Wave)
}

/// The file a `file:` URI names (percent-decoded); `None` for another
/// scheme or a name that is not UTF-8.
pub(super) fn path_of(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let text = String::from_utf8(out).ok()?;
    // `file:///C:/x` on Windows.
    let text = match text.as_bytes() {
        [b'/', _, b':', ..] if cfg!(windows) => text[1..].to_string(),
        _ => text,
    };
    Some(PathBuf::from(text))
}

/// The `file:` URI of a path (the one encoding every output uses).
pub(super) fn uri_of(path: &Path) -> Option<Uri> {
    Uri::from_str(&crate::base::display::file_uri(path)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_goes_to_a_uri_and_back_with_spaces_and_non_ascii() {
        let path = Path::new("/tmp/a dir/règle #1.md");
        let uri = uri_of(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/r%C3%A8gle%20%231.md");
        assert_eq!(path_of(&uri).unwrap(), path);
    }

    #[test]
    fn a_uri_of_another_scheme_is_no_path() {
        assert_eq!(
            path_of(&Uri::from_str("untitled:Untitled-1").unwrap()),
            None
        );
    }
}
