//! Colour on a terminal: `--color auto` (the default) colours only when
//! standard output is a terminal, `NO_COLOR` is unset or empty and `TERM`
//! is not `dumb`; `always` and `never` decide alone. The Node package runs
//! the same code in its own process, so it decides the same way.

use crate::base::args::ColorChoice;
use std::io::IsTerminal;

/// Whether to write ANSI colour.
pub fn enabled(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                && std::io::stdout().is_terminal()
        }
    }
}

/// A style: an SGR code.
#[derive(Clone, Copy)]
pub enum Style {
    Red,
    Yellow,
    Cyan,
    Bold,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Red => "1;31",
            Style::Yellow => "1;33",
            Style::Cyan => "1;36",
            Style::Bold => "1",
        }
    }
}

/// `text` in `style` when `on`, else `text` unchanged. `text` must already
/// be clean (see `display::clean`): colour never wraps file content raw.
pub fn paint(on: bool, style: Style, text: &str) -> String {
    if on && !text.is_empty() {
        format!("\x1b[{}m{text}\x1b[0m", style.code())
    } else {
        text.to_string()
    }
}

/// The style of a severity word.
pub fn severity(s: memory_rules::Severity) -> Style {
    match s {
        memory_rules::Severity::Error => Style::Red,
        memory_rules::Severity::Warning => Style::Yellow,
        memory_rules::Severity::Info => Style::Cyan,
    }
}
