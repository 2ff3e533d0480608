//! The sources a project chose: `sources = [...]` in `.wave/config.toml`,
//! read by every road (the CLI's commands and hooks, the MCP server, the
//! binding's engine) when nothing on the command line or in the options
//! names the sources. `hook install --sources NAMES` writes it.
//!
//! ```toml
//! sources = ["cursor", "wave"]   # or ["all"]
//! ```
//!
//! `memory_sources = ["wave", "claude"]` names the memories the hooks'
//! recall and the `memory` commands read ([`chosen_memory_sources`]: the
//! names are the memory layer's to check).
//!
//! A config file that does not parse, or a `sources` that is not a list of
//! source names, is an error naming the file, line and column: the caller
//! stops there (a road does not guess which sources were meant).

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::base::limits::MAX_SETTINGS_BYTES;
use crate::base::line_index::LineIndex;
use crate::rules::rule_format::{formats_named, Format};
use crate::sources::source::Config;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The config file's path below a project: `.wave/config.toml`.
pub const PROJECT_CONFIG: &str = ".wave/config.toml";

/// `sources = [...]` as a project's config file chose it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChosenSources {
    /// The names as written (`all` kept as written).
    pub names: Vec<String>,
    pub formats: Vec<Format>,
    /// The config file, and the line of `sources`.
    pub path: PathBuf,
    pub line: u32,
}

impl ChosenSources {
    /// The sources these formats name, for this workdir and home.
    pub fn config(&self, workdir: &Path, home: &Path) -> Config {
        Config::named(workdir, home, &self.formats)
    }

    /// `.wave/config.toml:3` (where the choice is written).
    pub fn place(&self) -> String {
        format!("{}:{}", self.path.display(), self.line)
    }
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    sources: Option<toml::Spanned<Vec<toml::Spanned<String>>>>,
}

#[derive(Deserialize)]
struct RawMemory {
    #[serde(default)]
    memory_sources: Option<toml::Spanned<Vec<toml::Spanned<String>>>>,
}

/// `memory_sources = [...]` as a project's config file wrote it: each name
/// with its line and column, for the memory layer to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChosenNames {
    pub names: Vec<(String, u32, u32)>,
    pub path: PathBuf,
    /// The line of the key.
    pub line: u32,
}

impl ChosenNames {
    /// An error about the name at `i`, naming the file, line and column.
    pub fn error_at(&self, i: usize, message: String) -> Diagnostic {
        let (_, l, c) = &self.names[i];
        error(&self.path, message).at(*l, *c)
    }
}

/// The project's `memory_sources`: `Ok(None)` when there is no config file
/// or it names none; `Err` (naming the file, line and column) when the file
/// cannot be read or is not TOML.
pub fn chosen_memory_sources(workdir: &Path) -> Result<Option<ChosenNames>, Diagnostic> {
    let path = workdir.join(PROJECT_CONFIG);
    let text = match crate::base::fs::read_limited(&path, MAX_SETTINGS_BYTES as usize) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => return Err(error(&path, format!("cannot read it: {e}"))),
    };
    parse_memory(&path, &text)
}

/// [`chosen_memory_sources`] of a config file's text.
pub fn parse_memory(path: &Path, text: &str) -> Result<Option<ChosenNames>, Diagnostic> {
    let index = LineIndex::new(text);
    let raw: RawMemory = toml::from_str(text).map_err(|e| {
        let d = error(path, format!("not a config file: {}", e.message()));
        match e.span() {
            Some(s) => {
                let (l, c) = index.at(s.start);
                d.at(l, c)
            }
            None => d,
        }
    })?;
    let Some(list) = raw.memory_sources else {
        return Ok(None);
    };
    let names = list
        .get_ref()
        .iter()
        .map(|n| {
            let (l, c) = index.at(n.span().start);
            (n.get_ref().clone(), l, c)
        })
        .collect();
    Ok(Some(ChosenNames {
        names,
        path: path.to_path_buf(),
        line: index.at(list.span().start).0,
    }))
}

/// The project's chosen sources: `Ok(None)` when there is no config file or
/// it names none; `Err` (naming the file, line and column) when the file
/// cannot be read, is not TOML, or names an unknown source.
pub fn chosen_sources(workdir: &Path) -> Result<Option<ChosenSources>, Diagnostic> {
    let path = workdir.join(PROJECT_CONFIG);
    let text = match crate::base::fs::read_limited(&path, MAX_SETTINGS_BYTES as usize) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => {
            return Err(error(&path, format!("cannot read it: {e}")));
        }
    };
    parse(&path, &text)
}

/// [`chosen_sources`] of a config file's text.
pub fn parse(path: &Path, text: &str) -> Result<Option<ChosenSources>, Diagnostic> {
    let index = LineIndex::new(text);
    let at = |span: Option<std::ops::Range<usize>>, message: String| {
        let d = error(path, message);
        match span {
            Some(s) => {
                let (l, c) = index.at(s.start);
                d.at(l, c)
            }
            None => d,
        }
    };
    let raw: Raw = toml::from_str(text)
        .map_err(|e| at(e.span(), format!("not a config file: {}", e.message())))?;
    let Some(list) = raw.sources else {
        return Ok(None);
    };
    let names: Vec<String> = list.get_ref().iter().map(|n| n.get_ref().clone()).collect();
    for name in list.get_ref() {
        if let Err(e) = formats_named(&[name.get_ref()]) {
            return Err(at(Some(name.span()), format!("sources: {e}")));
        }
    }
    let formats =
        formats_named(&names).map_err(|e| at(Some(list.span()), format!("sources: {e}")))?;
    let (line, _) = index.at(list.span().start);
    Ok(Some(ChosenSources {
        names,
        formats,
        path: path.to_path_buf(),
        line,
    }))
}

fn error(path: &Path, message: String) -> Diagnostic {
    Diagnostic::new(Severity::Error, Code::InvalidConfig, path, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_names_formats_and_the_line_they_are_on() {
        let c = parse(
            Path::new("c.toml"),
            "packs = []\nsources = [\"cursor\", \"wave\"]\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.formats, vec![Format::Cursor, Format::Wave]);
        assert_eq!(c.line, 2);
        let all = parse(Path::new("c.toml"), "sources = [\"all\"]")
            .unwrap()
            .unwrap();
        assert_eq!(all.formats, Format::ALL.to_vec());
        assert_eq!(parse(Path::new("c.toml"), "packs = []").unwrap(), None);
    }

    #[test]
    fn memory_sources_are_read_with_the_place_of_each_name() {
        let c = parse_memory(
            Path::new("c.toml"),
            "sources = [\"wave\"]\nmemory_sources = [\"wave\",\n  \"claude\"]\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            c.names,
            vec![("wave".into(), 2, 19), ("claude".into(), 3, 3)]
        );
        assert_eq!(c.line, 2);
        assert_eq!(c.error_at(1, "x".into()).line, Some(3));
        assert_eq!(
            parse_memory(Path::new("c.toml"), "sources = []").unwrap(),
            None
        );
        let e = parse_memory(Path::new("c.toml"), "memory_sources = \"wave\"").unwrap_err();
        assert!(e.message.contains("not a config file"), "{e}");
    }

    #[test]
    fn an_unknown_source_or_bad_toml_is_an_error_at_its_line() {
        let e = parse(Path::new("c.toml"), "\nsources = [\"wave\", \"cursr\"]\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.message.contains("'cursr'") && e.message.contains("cursor"),
            "{e}"
        );
        let e = parse(Path::new("c.toml"), "a = 1\nsources = [\n").unwrap_err();
        assert!(e.to_string().starts_with("c.toml:"), "{e}");
        assert!(e.line.is_some(), "{e}");
        let e = parse(Path::new("c.toml"), "sources = \"wave\"\n").unwrap_err();
        assert!(e.message.contains("not a config file"), "{e}");
    }
}
