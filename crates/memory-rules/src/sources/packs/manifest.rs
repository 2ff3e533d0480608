//! Where a pack keeps its rules: the `waveRules` key of its `package.json`,
//! else its `rules/` folder (or `.wave/rules/`; a folder pack with neither
//! is itself the rules folder).
//!
//! ```json
//! { "name": "@acme/rules", "version": "2.3.1", "waveRules": { "rules": "rules" } }
//! { "waveRules": [{ "rules": "rules" }, { "rules": ".cursor/rules", "format": "cursor" }] }
//! ```
//!
//! `rules` is a folder inside the pack; `format` any format this project
//! reads (default `wave`); `depth` a number or `"any"` (default: the
//! format's).

use super::pack_error::{PackError, RulesDirError};
use crate::base::fs::ReadError;
use crate::rules::rule_format::Format;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// One folder of a pack's rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesDir {
    /// Relative to the pack's root.
    pub dir: PathBuf,
    pub format: Format,
    pub depth: Option<usize>,
}

/// What a pack's root says about itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// `package.json` `name` and `version`, when it has them.
    pub name: Option<String>,
    pub version: Option<String>,
    /// The rules folders, in override order (a later one's rule replaces an
    /// earlier one's of the same id).
    pub rules: Vec<RulesDir>,
}

/// Reads a pack's root. `folder`: a folder pack, which may be its own rules
/// folder. An error says what is wrong, for a diagnostic on the pack.
pub fn read(root: &Path, folder: bool) -> Result<Manifest, PackError> {
    let package = root.join("package.json");
    let mut manifest = Manifest::default();
    let mut declared = None;
    if package.is_file() {
        let path = package.clone();
        let bytes = crate::sources::discover::read_rule_file(&package).map_err(|e| match e {
            ReadError::TooLarge(size) => PackError::TooLarge { path, size },
            ReadError::NotFile => PackError::NotFile { path },
            ReadError::Io(source) => PackError::Read { path, source },
        })?;
        let json: Value = serde_json::from_slice(&bytes).map_err(|source| PackError::NotJson {
            path: package.clone(),
            source,
        })?;
        manifest.name = json.get("name").and_then(Value::as_str).map(String::from);
        manifest.version = json
            .get("version")
            .and_then(Value::as_str)
            .map(String::from);
        declared = json.get("waveRules").cloned();
    }
    if let Some(value) = declared {
        manifest.rules = declared_dirs(&value).map_err(|source| PackError::WaveRules {
            path: package.clone(),
            source,
        })?;
        for d in &manifest.rules {
            if !root.join(&d.dir).is_dir() {
                return Err(PackError::MissingFolder {
                    path: package,
                    dir: d.dir.clone(),
                });
            }
        }
        return Ok(manifest);
    }
    let default = |dir: &str| RulesDir {
        dir: PathBuf::from(dir),
        format: Format::Wave,
        depth: Format::Wave.default_depth(),
    };
    for dir in ["rules", ".wave/rules"] {
        if root.join(dir).is_dir() {
            manifest.rules.push(default(dir));
            return Ok(manifest);
        }
    }
    if folder {
        manifest.rules.push(default("."));
        return Ok(manifest);
    }
    Err(PackError::NoRulesFolder {
        root: root.to_path_buf(),
    })
}

fn declared_dirs(value: &Value) -> Result<Vec<RulesDir>, RulesDirError> {
    match value {
        Value::String(s) => Ok(vec![dir_of(s, None, None)?]),
        Value::Object(_) => Ok(vec![entry(value)?]),
        Value::Array(items) if !items.is_empty() && items.len() <= 64 => {
            items.iter().map(entry).collect()
        }
        Value::Array(_) => Err(RulesDirError::ListLength),
        _ => Err(RulesDirError::NotFolders),
    }
}

fn entry(value: &Value) -> Result<RulesDir, RulesDirError> {
    let Value::Object(map) = value else {
        return Err(RulesDirError::NotAnEntry);
    };
    for key in map.keys() {
        if !["rules", "format", "depth"].contains(&key.as_str()) {
            return Err(RulesDirError::UnknownKey { key: key.clone() });
        }
    }
    let dir = map
        .get("rules")
        .and_then(Value::as_str)
        .ok_or(RulesDirError::NoRules)?;
    let format = map
        .get("format")
        .map(|f| f.as_str().ok_or(RulesDirError::FormatNotText))
        .transpose()?;
    dir_of(dir, format, map.get("depth"))
}

fn dir_of(
    dir: &str,
    format: Option<&str>,
    depth: Option<&Value>,
) -> Result<RulesDir, RulesDirError> {
    let path = PathBuf::from(dir);
    if path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(RulesDirError::OutsidePack {
            dir: dir.to_string(),
        });
    }
    let format = match format {
        None => Format::Wave,
        Some(f) => Format::parse(f).ok_or_else(|| RulesDirError::UnknownFormat {
            format: f.to_string(),
        })?,
    };
    let depth = match depth {
        None => format.default_depth(),
        Some(Value::String(s)) if s == "any" => None,
        Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n <= 64) => {
            Some(n.as_u64().unwrap_or(0) as usize)
        }
        Some(_) => return Err(RulesDirError::Depth),
    };
    Ok(RulesDir {
        dir: path,
        format,
        depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(json: Option<&str>, dirs: &[&str]) -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("p");
        std::fs::create_dir_all(&root).unwrap();
        for d in dirs {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        if let Some(j) = json {
            std::fs::write(root.join("package.json"), j).unwrap();
        }
        (t, root)
    }

    #[test]
    fn package_json_names_the_rules_folder_and_format() {
        let (_t, root) = pack(
            Some(
                r#"{"name":"@acme/rules","version":"2.3.1","waveRules":[{"rules":"rules"},{"rules":"cursor/.cursor/rules","format":"cursor"}]}"#,
            ),
            &["rules", "cursor/.cursor/rules"],
        );
        let m = read(&root, false).unwrap();
        assert_eq!(m.name.as_deref(), Some("@acme/rules"));
        assert_eq!(m.version.as_deref(), Some("2.3.1"));
        assert_eq!(m.rules.len(), 2);
        assert_eq!(m.rules[1].format, Format::Cursor);
        assert_eq!(m.rules[1].depth, None);
    }

    #[test]
    fn without_a_manifest_the_rules_folder_is_used_and_a_folder_pack_is_its_own() {
        let (_t, root) = pack(None, &["rules"]);
        assert_eq!(
            read(&root, false).unwrap().rules[0].dir,
            PathBuf::from("rules")
        );
        let (_t, root) = pack(None, &[]);
        assert!(read(&root, false)
            .unwrap_err()
            .to_string()
            .contains("no rules folder"));
        assert_eq!(read(&root, true).unwrap().rules[0].dir, PathBuf::from("."));
    }

    #[test]
    fn a_manifest_that_leaves_the_pack_or_names_nothing_is_refused() {
        for (json, says) in [
            (r#"{"waveRules":"../x"}"#, "not a folder inside"),
            (r#"{"waveRules":{"rules":"gone"}}"#, "does not have"),
            (
                r#"{"waveRules":{"rules":"rules","format":"nope"}}"#,
                "unknown format",
            ),
            (r#"{"waveRules":{"dir":"rules"}}"#, "unknown key 'dir'"),
            (r#"{"waveRules":3}"#, "a folder name"),
            ("{", "not JSON"),
        ] {
            let (_t, root) = pack(Some(json), &["rules"]);
            let e = read(&root, false).unwrap_err().to_string();
            assert!(e.contains(says), "{json}: {e}");
        }
    }
}
