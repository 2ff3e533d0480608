//! One shell word: its literal value, when it has one, and the command
//! substitutions it holds.

use brush_parser::word::{self, WordPiece, WordPieceWithSource};

use super::parser_options;

/// One word: its literal value when it has one, and the command
/// substitutions it holds (walked for their own files).
pub(super) struct LiteralWord {
    pub(super) value: Option<String>,
    pub(super) substitutions: Vec<String>,
}

pub(super) fn literal(raw: &str) -> LiteralWord {
    let mut lit = LiteralWord {
        value: Some(String::new()),
        substitutions: Vec::new(),
    };
    match word::parse(raw, &parser_options()) {
        Ok(pieces) => pieces_into(&pieces, &mut lit, false),
        Err(_) => lit.value = None,
    }
    lit
}

fn pieces_into(pieces: &[WordPieceWithSource], lit: &mut LiteralWord, quoted: bool) {
    for p in pieces {
        match &p.piece {
            WordPiece::Text(t) => {
                let at_start = lit.value.as_ref().is_some_and(|v| v.is_empty());
                if !quoted && (t.contains(['*', '?', '[']) || (at_start && t.starts_with('~'))) {
                    lit.value = None;
                }
                if let Some(v) = &mut lit.value {
                    v.push_str(t);
                }
            }
            WordPiece::SingleQuotedText(t) => {
                if let Some(v) = &mut lit.value {
                    v.push_str(t);
                }
            }
            WordPiece::EscapeSequence(t) => {
                if let Some(v) = &mut lit.value {
                    v.push_str(t.strip_prefix('\\').unwrap_or(t));
                }
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => pieces_into(inner, lit, true),
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                lit.substitutions.push(s.clone());
                lit.value = None;
            }
            _ => lit.value = None,
        }
    }
}
