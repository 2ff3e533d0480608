//! A `paths` pattern as written, before and beside its compilation
//! (`pattern`): the checks every caller makes in one order (a rule file's
//! diagnostics, `add`'s refusal), and the comma split of a glob list.

use crate::matchers::glob_compile::{self, PatternError};

/// What is wrong with a `paths` pattern that compiles: checked in this one
/// order for every caller (a rule file's diagnostics, `add`'s refusal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobProblem {
    /// It can never match a file in context (a warning in a rule file).
    Unmatchable(&'static str),
    /// A `*` escaped as a Markdown formatter escapes it: the pattern it
    /// was (a warning in a rule file).
    Escaped(String),
    /// A `{` or `[` is never closed (a warning in a rule file).
    Unclosed(&'static str),
}

/// The problem of a pattern as written (`!` exclusions included), if any.
pub fn glob_problem(written: &str) -> Option<GlobProblem> {
    let (_, body) = glob_compile::split_negation(written);
    unmatchable(body)
        .map(GlobProblem::Unmatchable)
        .or_else(|| formatter_escaped(body).map(GlobProblem::Escaped))
        .or_else(|| unclosed(body).map(GlobProblem::Unclosed))
}

/// A `paths` pattern as a rule file's would be checked: an error when it
/// does not compile, else its [`GlobProblem`], if any.
pub fn check_glob(written: &str) -> Result<Option<GlobProblem>, PatternError> {
    glob_compile::compile(written)?;
    Ok(glob_problem(written))
}

/// Whether a pattern is a `!` exclusion.
pub fn is_exclusion(written: &str) -> bool {
    glob_compile::split_negation(written).0
}

/// The pattern a Markdown formatter (Prettier and the like) escaped into
/// `body`, when `body` has an escaped `*`: `docs/\*_/_.{md,mdx}` was
/// `docs/**/*.{md,mdx}` (the first `*` escaped, `*/*` turned into the
/// emphasis `_/_`); `\*\*/\*.ts` was `**/*.ts`. A file name with a literal
/// `*` is so rare that such a pattern never matches a real file.
pub fn formatter_escaped(body: &str) -> Option<String> {
    if !body.contains("\\*") {
        return None;
    }
    let mut meant = body
        .replace("\\*_/_", "**/*")
        .replace("\\*\\*", "**")
        .replace("\\*", "*")
        .replace("\\_", "_");
    // `_/_` left between two stars' places: `a/\*_/_/b` and the like.
    while let Some(i) = meant.find("*_/_") {
        meant.replace_range(i..i + 4, "**/*");
    }
    Some(meant)
}

/// Why a (non-negated) pattern body can never match a normalized relative
/// path, if it cannot.
pub fn unmatchable(body: &str) -> Option<&'static str> {
    if body.starts_with('/') || body.get(1..3) == Some(":/") || body.get(1..3) == Some(":\\") {
        return Some("files in context are relative to the workdir, and this pattern is absolute");
    }
    if body.split('/').any(|seg| seg == "..") {
        return Some("files in context never contain '..' once normalized");
    }
    None
}

/// Whether a pattern has a `{` or `[` that is never closed (outside
/// escapes): minimatch then reads it literally, so `src/{a,b` matches only
/// a file named `src/{a,b`, which is almost never what was meant.
pub fn unclosed(body: &str) -> Option<&'static str> {
    let (mut depth, mut in_class) = (0usize, false);
    let mut chars = body.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                chars.next();
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '{' if !in_class => depth += 1,
            '}' if !in_class && depth > 0 => depth -= 1,
            _ => {}
        }
    }
    if in_class {
        Some("its '[' is never closed, so it is read literally (write \\[ for a literal bracket)")
    } else if depth > 0 {
        Some("its '{' is never closed, so it is read literally and matches only a file with that very name (write \\{ for a literal brace)")
    } else {
        None
    }
}

/// Splits at commas outside braces and brackets, trimming each part.
pub fn split_commas(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut in_class = false;
    let mut current = String::new();
    let mut chars = s.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                current.push(ch);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '{' if !in_class => depth += 1,
            '}' if !in_class && depth > 0 => depth -= 1,
            ',' if depth == 0 && !in_class => {
                parts.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(ch);
    }
    parts.push(current.trim().to_string());
    parts
}
