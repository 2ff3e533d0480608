//! `@path` imports in `CLAUDE.md` (Claude Code) and `GEMINI.md` (Gemini
//! CLI): a memory file names other files to load with it.
//!
//! Both tools read an import the same way (Gemini CLI's
//! `packages/core/src/utils/memoryImportProcessor.ts`, google-gemini/gemini-cli
//! at 5411f113, Apache-2.0; Claude Code's memory docs, code.claude.com/docs/en/memory,
//! "Import additional files"): an `@` at the start of the text or after
//! whitespace, followed by a path up to the next whitespace, that starts with
//! `.`, `/`, `~` or a letter; never inside a code span or a fenced block
//! (a run of backticks up to the same run); relative to the importing file's
//! directory (its real one, through a symlink), `~/` from the home (Claude
//! Code); at most [`MAX_IMPORT_DEPTH`] hops; a cycle is not followed. A token
//! whose file does not exist stays text. Claude Code asks before it imports a
//! file outside the project; Gemini CLI refuses one outside the project root:
//! here a project file's import must resolve inside the project or an
//! allowed directory (the link policy), and is otherwise reported and not
//! expanded.
//!
//! What an import becomes: a rule of its own, after the importer, with the
//! importer's activation and the imported file as its file (Claude Code
//! loads each imported file as its own memory file, once; Gemini CLI pastes
//! the same text in place of the token). So one real file is one rule even
//! when it is also read directly (`CLAUDE.md` = `@AGENTS.md` with the
//! `agents-md` source on: `AGENTS.md` once), and export and import keep
//! the imported text. An importer whose own text is nothing but import
//! tokens is no rule itself.

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::base::limits::{MAX_IMPORTS_PER_FILE, MAX_IMPORT_DEPTH};
use std::path::{Path, PathBuf};

/// The tool whose imports a file has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Claude Code (`CLAUDE.md`, `CLAUDE.local.md`): `~/` is the home.
    Claude,
    /// Gemini CLI (`GEMINI.md` and its `context.fileName`s).
    Gemini,
}

impl Dialect {
    fn tool(self) -> &'static str {
        match self {
            Dialect::Claude => "Claude Code",
            Dialect::Gemini => "Gemini CLI",
        }
    }
}

/// Where imports may resolve: inside `boundary` (the project, for project
/// files) or one of `allow`; anywhere when there is no boundary (a user's
/// own memory file).
#[derive(Clone, Debug, Default)]
pub struct Policy<'a> {
    pub boundary: Option<&'a Path>,
    pub allow: &'a [PathBuf],
}

/// One imported file, in load order (depth first, each file once).
#[derive(Clone, Debug)]
pub struct Imported {
    /// The path as resolved (not through links).
    pub path: PathBuf,
    /// The token as written (`AGENTS.md` for `@AGENTS.md`).
    pub written: String,
    pub text: String,
}

/// What a file's imports gave.
#[derive(Clone, Debug, Default)]
pub struct Expansion {
    pub imports: Vec<Imported>,
    /// The importer's text is nothing but import tokens (and whitespace).
    pub only_imports: bool,
    /// Every path looked at, found or not: a change to any of them changes
    /// the outcome (the reload cache watches them).
    pub looked_at: Vec<PathBuf>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The byte ranges of code spans and fenced blocks: a run of backticks up
/// to the next run of the same length (Gemini CLI's `findCodeRegions`).
fn code_regions(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i] == b'`' {
            i += 1;
        }
        let run = i - start;
        // The next run of exactly `run` backticks closes it.
        let mut j = i;
        let mut closed = None;
        while j < b.len() {
            if b[j] == b'`' {
                let s = j;
                while j < b.len() && b[j] == b'`' {
                    j += 1;
                }
                if j - s == run {
                    closed = Some(j);
                    break;
                }
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => {
                out.push((start, end));
                i = end;
            }
            None => break,
        }
    }
    out
}

/// The import tokens of `text` outside code: `(byte start of '@', end,
/// path)`.
pub fn tokens(text: &str) -> Vec<(usize, usize, &str)> {
    let regions = code_regions(text);
    let mut out = Vec::new();
    for (i, _) in text.match_indices('@') {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let rest = &text[i + 1..];
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let path = &rest[..len];
        let first = path.chars().next();
        let starts_well =
            first.is_some_and(|c| c == '.' || c == '/' || c == '~' || c.is_ascii_alphabetic());
        if !starts_well || regions.iter().any(|&(s, e)| i >= s && i < e) {
            continue;
        }
        out.push((i, i + 1 + len, path));
    }
    out
}

/// Expands the imports of `text` (the file at `file`) as `dialect` does,
/// within `policy`.
pub fn expand(text: &str, file: &Path, dialect: Dialect, policy: &Policy) -> Expansion {
    let found = tokens(text);
    let mut rest = text.to_string();
    for &(s, e, _) in found.iter().rev() {
        rest.replace_range(s..e, "");
    }
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut walk = ImportWalk {
        dialect,
        boundary: policy.boundary.and_then(|b| std::fs::canonicalize(b).ok()),
        allow: policy
            .allow
            .iter()
            .filter_map(|a| std::fs::canonicalize(a).ok())
            .collect(),
        seen: vec![real.clone()],
        resolved_any: false,
        x: Expansion::default(),
    };
    walk.visit(text, file, &real, 0);
    let mut x = walk.x;
    x.only_imports = walk.resolved_any && rest.trim().is_empty();
    x
}

/// One expansion of a memory file's imports, depth first.
struct ImportWalk {
    dialect: Dialect,
    /// The real boundary and allowed directories (see [`Policy`]).
    boundary: Option<PathBuf>,
    allow: Vec<PathBuf>,
    /// The real files read so far: each is read once.
    seen: Vec<PathBuf>,
    /// Whether any token named a file that is read (here or before).
    resolved_any: bool,
    x: Expansion,
}

impl ImportWalk {
    /// The imports of `file` (real path `real`, `depth` imports deep), and
    /// theirs.
    fn visit(&mut self, text: &str, file: &Path, real: &Path, depth: usize) {
        let dir = real.parent().unwrap_or(Path::new("/"));
        for (_, _, written) in tokens(text) {
            if self.x.imports.len() >= MAX_IMPORTS_PER_FILE {
                self.x.diagnostics.push(Diagnostic::new(
                    Severity::Warning,
                    Code::Limit,
                    file,
                    format!("more than {MAX_IMPORTS_PER_FILE} imports from one memory file (limit); the rest are not expanded"),
                ));
                return;
            }
            let Some(target) = import_path(self.dialect, dir, written) else {
                continue;
            };
            self.x.looked_at.push(target.clone());
            let Some((target_real, text)) = self.admit(file, written, &target, depth) else {
                continue;
            };
            self.seen.push(target_real.clone());
            self.resolved_any = true;
            self.x.imports.push(Imported {
                path: target.clone(),
                written: written.to_string(),
                text: text.clone(),
            });
            self.visit(&text, &target, &target_real, depth + 1);
        }
    }

    /// The real path and the text of the import `@written` of `file`, when
    /// it is read: an existing file, within the depth, not read before,
    /// inside the bounds, readable. Otherwise nothing, with a diagnostic
    /// saying why (none for a missing file: the token stays text).
    fn admit(
        &mut self,
        file: &Path,
        written: &str,
        target: &Path,
        depth: usize,
    ) -> Option<(PathBuf, String)> {
        let tool = self.dialect.tool();
        // No such file: the token stays text, as both tools leave it.
        let target_real = std::fs::canonicalize(target).ok()?;
        if !target_real.is_file() {
            return None;
        }
        if depth + 1 > MAX_IMPORT_DEPTH {
            self.x.diagnostics.push(Diagnostic::new(
                Severity::Warning,
                Code::Import,
                file,
                format!("@{written} is more than {MAX_IMPORT_DEPTH} imports deep; {tool} stops there, so it is not read"),
            ));
            return None;
        }
        if self.seen.contains(&target_real) {
            self.x.diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::Import,
                file,
                format!("@{written} is already read (imported before, or a cycle back); read once"),
            ));
            self.resolved_any = true;
            return None;
        }
        let outside = self.boundary.as_ref().is_some_and(|b| {
            !target_real.starts_with(b) && !self.allow.iter().any(|a| target_real.starts_with(a))
        });
        if outside {
            self.x.diagnostics.push(Diagnostic::new(
                Severity::Warning,
                Code::Import,
                file,
                format!(
                    "@{written} leads outside the project, to {}; {tool} asks before importing it, so it is not read (allow its directory with the allowDirs option or --allow-dir)",
                    target_real.display()
                ),
            ));
            return None;
        }
        match crate::rules::rule_file::read(target) {
            Ok(text) => Some((target_real, text)),
            Err(d) => {
                self.x.diagnostics.push(Diagnostic::new(
                    Severity::Warning,
                    Code::Import,
                    file,
                    format!("@{written} cannot be imported: {}", d.message),
                ));
                None
            }
        }
    }
}

/// The path an import token names: `~/` from home (Claude Code only),
/// absolute, or relative to the importer's directory.
fn import_path(dialect: Dialect, dir: &Path, written: &str) -> Option<PathBuf> {
    if let Some(home_rel) = written.strip_prefix("~/") {
        match (dialect, std::env::home_dir()) {
            (Dialect::Claude, Some(home)) => Some(home.join(home_rel)),
            _ => None,
        }
    } else if written.starts_with('/') {
        Some(PathBuf::from(written))
    } else {
        Some(dir.join(written))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_outside_code_only() {
        let t = "@AGENTS.md\nsee `-w @google/core` and @docs/a.md.\n```\n@not/this\n```\nmail me@x.com @@no @1x";
        let got: Vec<&str> = tokens(t).into_iter().map(|(_, _, p)| p).collect();
        assert_eq!(got, ["AGENTS.md", "docs/a.md."]);
    }

    #[test]
    fn imports_follow_depth_and_cycles() {
        let tmp = tempfile::tempdir().unwrap();
        let w = tmp.path();
        std::fs::write(w.join("CLAUDE.md"), "@a.md\n").unwrap();
        std::fs::write(w.join("a.md"), "A @b.md @CLAUDE.md").unwrap();
        std::fs::write(w.join("b.md"), "B @a.md @missing.md").unwrap();
        let x = expand(
            "@a.md\n",
            &w.join("CLAUDE.md"),
            Dialect::Claude,
            &Policy {
                boundary: Some(w),
                allow: &[],
            },
        );
        let got: Vec<&str> = x.imports.iter().map(|i| i.written.as_str()).collect();
        assert_eq!(got, ["a.md", "b.md"]);
        assert!(x.only_imports);
        assert!(x.looked_at.iter().any(|p| p.ends_with("missing.md")));
    }
}
