//! Positions as LSP counts them (0-based lines, UTF-16 code units) against
//! byte offsets of a text, and the range a diagnostic underlines.

use lsp_types::{Position, Range};
use memory_rules::Diagnostic;

/// The byte offset of a position; a line or character past the end is the
/// end of the text (or of the line).
pub(super) fn offset(text: &str, at: Position) -> usize {
    let Some(start) = line_start(text, at.line) else {
        return text.len();
    };
    let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
    let mut units = 0u32;
    for (i, c) in text[start..end].char_indices() {
        if units >= at.character {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    end
}

/// The position of a byte offset (clamped to the text, and back to a
/// character boundary).
pub(super) fn position(text: &str, byte: usize) -> Position {
    let mut byte = byte.min(text.len());
    while !text.is_char_boundary(byte) {
        byte -= 1;
    }
    let before = &text[..byte];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[start..].chars().map(|c| c.len_utf16() as u32).sum();
    Position { line, character }
}

/// The byte offset where 0-based `line` starts (`None`: past the end).
pub(super) fn line_start(text: &str, line: u32) -> Option<usize> {
    if line == 0 {
        return Some(0);
    }
    text.match_indices('\n')
        .nth(line as usize - 1)
        .map(|(i, _)| i + 1)
}

/// The bytes of 0-based `line`, without its line break.
pub(super) fn line_span(text: &str, line: u32) -> Option<std::ops::Range<usize>> {
    let start = line_start(text, line)?;
    let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
    let end = if text[start..end].ends_with('\r') {
        end - 1
    } else {
        end
    };
    Some(start..end)
}

pub(super) fn range(text: &str, bytes: std::ops::Range<usize>) -> Range {
    Range {
        start: position(text, bytes.start),
        end: position(text, bytes.end),
    }
}

/// What a diagnostic underlines: the text its fix replaces; else from its
/// column to the end of its line's text; else (the file as a whole) the
/// first line.
pub(super) fn of_diagnostic(d: &Diagnostic, text: &str) -> Range {
    if let Some(span) = d.fix.as_ref().and_then(|f| f.span(text)) {
        return range(text, span);
    }
    let line = d.line.map_or(0, |l| l.saturating_sub(1));
    let Some(span) = line_span(text, line) else {
        let end = position(text, text.len());
        return Range { start: end, end };
    };
    let column = d.column.map_or(0, |c| c.saturating_sub(1) as usize);
    let start = text[span.clone()]
        .char_indices()
        .nth(column)
        .map_or(span.end, |(i, _)| span.start + i);
    let end = span.start + text[span.clone()].trim_end().len();
    range(text, start..end.max(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn positions_count_utf16_units_and_offsets_come_back() {
        let text = "ab\né😀x\n";
        assert_eq!(position(text, 3), at(1, 0));
        // é is one unit, the emoji two.
        assert_eq!(position(text, text.find('x').unwrap()), at(1, 3));
        assert_eq!(offset(text, at(1, 3)), text.find('x').unwrap());
        assert_eq!(offset(text, at(9, 0)), text.len());
        assert_eq!(offset(text, at(0, 99)), 2);
    }

    #[test]
    fn a_diagnostic_underlines_from_its_column_to_the_end_of_the_line_text() {
        let text = "---\npath: src/**\n---\nbody";
        let d = Diagnostic::new(
            memory_rules::Severity::Error,
            memory_rules::Code::MisspelledKey,
            std::path::Path::new("x.md"),
            "m",
        );
        assert_eq!(
            of_diagnostic(&d.clone().at(2, 1), text),
            Range {
                start: at(1, 0),
                end: at(1, 12)
            }
        );
        let fixed = d.at(2, 1).replacing(2, "path", "paths");
        assert_eq!(
            of_diagnostic(&fixed, text),
            Range {
                start: at(1, 0),
                end: at(1, 4)
            }
        );
    }
}
