//! Token counts: how much of a model's context a text takes.
//!
//! Counted with OpenAI's `o200k_base` encoding (the `tiktoken-rs` crate,
//! the same byte-pair encoding and split pattern as OpenAI's `tiktoken`):
//! the tokenizer of GPT-4o, GPT-4.1, the o-series and GPT-5 (Codex). Other
//! model families count differently (Anthropic publishes no tokenizer for its
//! current models; their counts for English and code run somewhat higher),
//! so read the numbers as a real tokenizer's measure of size, the same for
//! every rule, rather than one model's exact bill.
//!
//! Building the encoder takes tens of milliseconds (200,000 entries), so it
//! is built once per process, on first use; [`warm`] starts that on another
//! thread for a caller that has other work to do meanwhile.
//!
//! ```
//! let n = memory_rules::delivery::tokens::count("Use strict TypeScript.");
//! assert!(n > 0 && n < 10);
//! ```

use crate::rules::rule::Rule;
use std::sync::OnceLock;

/// The encoding's name.
pub const ENCODING: &str = "o200k_base";
/// The models whose counts [`count`] gives.
pub const MODEL_FAMILY: &str = "OpenAI GPT-4o, GPT-4.1, o-series, GPT-5";
/// The library that counts.
pub const LIBRARY: &str = "tiktoken-rs 0.12";

static ENCODER: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();

fn encoder() -> Option<&'static tiktoken_rs::CoreBPE> {
    ENCODER
        .get_or_init(|| tiktoken_rs::o200k_base().ok())
        .as_ref()
}

/// Builds the encoder on another thread (not on WebAssembly), so the
/// first [`count`] does not wait for it as long.
pub fn warm() {
    if ENCODER.get().is_some() {
        return;
    }
    #[cfg(not(target_family = "wasm"))]
    {
        let _ = std::thread::Builder::new()
            .name("tokenizer".into())
            .spawn(|| {
                encoder();
            });
    }
}

/// The number of `o200k_base` tokens of `text` (special-token text such as
/// `<|endoftext|>` is counted as ordinary text, as a model receives it in a
/// prompt). Should the encoder ever fail to build, a text counts one token
/// per four bytes, rounded up.
pub fn count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    match encoder() {
        Some(e) => e.encode_ordinary(text).len(),
        None => text.len().div_ceil(4),
    }
}

/// The tokens one rule adds to a rules section: its entry as rendered
/// (`[id] text`, see [`crate::delivery::render::entry`]) and the line break after it.
pub fn rule_tokens(rule: &Rule) -> usize {
    count(&crate::delivery::render::entry(rule)) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same counts as an independent `o200k_base` implementation
    /// (GitHub's `bpe-openai` 0.3.2, run on these strings).
    #[test]
    fn counts_match_another_o200k_implementation() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        assert_eq!(count("Use strict TypeScript."), 5);
        assert_eq!(count("[ts.md] Use strict TypeScript."), 9);
        assert_eq!(count("<|endoftext|>"), 7);
    }

    #[test]
    fn a_rule_costs_its_rendered_entry_and_a_line_break() {
        let rule = Rule {
            id: "ts.md".into(),
            scope: crate::rules::scope::Scope::Project,
            file_path: "ts.md".into(),
            content: "Use strict TypeScript.".into(),
            metadata: Default::default(),
            format: crate::rules::rule_format::Format::Wave,
            origin: Default::default(),
        };
        assert_eq!(
            rule_tokens(&rule),
            count("[ts.md] Use strict TypeScript.") + 1
        );
    }
}
