//! Gemini CLI (source name `gemini`): `GEMINI.md` in the project root
//! (always) and in any subdirectory (for the files under it), and
//! `~/.gemini/GEMINI.md`; `@path` imports expanded ([`super::imports`]).
//!
//! As Gemini CLI reads them (google-gemini/gemini-cli at 5411f113,
//! Apache-2.0, `packages/core/src/utils/memoryDiscovery.ts`): the files
//! from the working directory up to the git root load at the start, a
//! subdirectory's when a file under it is read ("JIT" memory), the global
//! one always; the same file reached twice (by dev and inode) is read once.
//! The file names are `context.fileName` of `.gemini/settings.json`, a
//! string or a list of strings (`packages/cli/src/config/settingsSchema.ts`;
//! the file may hold comments, stripped as Gemini CLI strips them), else
//! `GEMINI.md`: `"fileName": ["AGENTS.md", "GEMINI.md"]` makes every
//! `AGENTS.md` a Gemini context file too.

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::rules::rule::Metadata;
use std::path::Path;

/// Gemini CLI's default context file name.
use crate::rules::rule_format::GEMINI_FILE_NAME;

/// Gemini CLI's name for how a context file applies.
pub fn kind(meta: &Metadata) -> &'static str {
    if meta.directory.is_some() {
        "subdirectory context file (loaded when a file under it is read)"
    } else {
        "context file"
    }
}

/// The context file names of the project at `root`: `context.fileName` of
/// its `.gemini/settings.json`, else [`GEMINI_FILE_NAME`]; and a diagnostic
/// when the settings file cannot be read as Gemini CLI reads it.
pub fn context_file_names(root: &Path) -> (Vec<String>, Option<Diagnostic>) {
    let path = root.join(".gemini").join("settings.json");
    let default = || vec![GEMINI_FILE_NAME.to_string()];
    // Read as a rule file is (at most its size limit; a larger one is not
    // read), without the discovery's reader, which sits above the formats.
    let limit = crate::base::limits::MAX_RULE_BYTES;
    let text = match crate::base::fs::read_prefix(&path, limit + 1, crate::base::fs::Links::Follow)
    {
        Ok(t) if t.len() as u64 <= limit => t,
        _ => return (default(), None),
    };
    let value: serde_json::Value = match serde_json::from_str(&strip_json_comments(&text)) {
        Ok(v) => v,
        Err(e) => {
            let d = Diagnostic::new(
                Severity::Warning,
                Code::InvalidRulesFile,
                &path,
                format!("not JSON Gemini CLI can read ({e}); its context.fileName is not known, so GEMINI.md is read"),
            );
            return (default(), Some(d));
        }
    };
    let names: Vec<String> = match value.pointer("/context/fileName") {
        Some(serde_json::Value::String(s)) => vec![s.clone()],
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let names: Vec<String> = names
        .into_iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty() && !n.contains(['/', '\\']))
        .collect();
    if names.is_empty() {
        (default(), None)
    } else {
        (names, None)
    }
}

/// JSON with `//` and `/* */` comments outside strings removed (what
/// Gemini CLI's `strip-json-comments` does before `JSON.parse`).
pub fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_file_names_come_from_the_settings() {
        let tmp = tempfile::tempdir().unwrap();
        let w = tmp.path();
        assert_eq!(context_file_names(w).0, ["GEMINI.md"]);
        std::fs::create_dir_all(w.join(".gemini")).unwrap();
        std::fs::write(
            w.join(".gemini/settings.json"),
            "{\n  // which files\n  \"context\": { \"fileName\": [\"AGENTS.md\", \"GEMINI.md\"] /* both */ },\n  \"url\": \"http://x//y\"\n}",
        )
        .unwrap();
        assert_eq!(context_file_names(w).0, ["AGENTS.md", "GEMINI.md"]);
        std::fs::write(
            w.join(".gemini/settings.json"),
            "{\"context\":{\"fileName\":\"CONTEXT.md\"}}",
        )
        .unwrap();
        assert_eq!(context_file_names(w).0, ["CONTEXT.md"]);
        std::fs::write(w.join(".gemini/settings.json"), "{ not json").unwrap();
        let (names, d) = context_file_names(w);
        assert_eq!(names, ["GEMINI.md"]);
        assert!(d.is_some());
    }
}
