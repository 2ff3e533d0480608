//! How exported files are named: a rule's source name, and the file stems
//! made from rule ids (flat or keeping folders, unique per target).

use crate::rules::rule::Rule;
use std::collections::BTreeMap;
use std::path::Path;

/// The rule's file relative to `workdir` (as found otherwise).
pub fn source_name(rule: &Rule, workdir: &Path) -> String {
    // A pack's rule is named by its provenance (`@acme/rules@2.3.1:x.md`).
    if rule.origin.layer == crate::rules::origin::LayerKind::Pack {
        return rule.origin.provenance.clone();
    }
    let p = rule
        .file_path
        .strip_prefix(workdir)
        .unwrap_or(&rule.file_path);
    p.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A base name from a rule id: `frontend/react.md` -> `frontend-react`.
pub fn stem_of(id: &str) -> String {
    let bare = id.split_once(':').map_or(id, |(_, r)| r);
    let bare = [".instructions.md", ".mdc", ".md", ".txt", ".yaml", ".yml"]
        .iter()
        .find_map(|e| bare.strip_suffix(e))
        .unwrap_or(bare);
    let mut out = String::with_capacity(bare.len());
    for c in bare.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches(|c| c == '-' || c == '.').to_string();
    if out.is_empty() {
        "rule".to_string()
    } else {
        out
    }
}

/// A file path (without extension) from a rule id, keeping its folders:
/// `backend/api-patterns.md` -> `backend/api-patterns`,
/// `cursor:team/x y.mdc` -> `team/x-y`; each folder cleaned as [`stem_of`]
/// cleans a name (no hidden or parent folders).
pub fn path_stem_of(id: &str) -> String {
    let bare = id.split_once(':').map_or(id, |(_, r)| r);
    let parts: Vec<String> = bare
        .split('/')
        .map(stem_of)
        .filter(|p| !p.is_empty())
        .collect();
    let (last, dirs) = match parts.split_last() {
        Some((last, dirs)) => (last.clone(), dirs),
        None => return "rule".to_string(),
    };
    let mut out: Vec<String> = dirs.to_vec();
    out.push(last);
    out.join("/")
}

/// Unique stems for `ids`, in order: the second of a name gets `-2`.
pub(super) fn unique_stems(ids: &[&str], stem: impl Fn(&str) -> String) -> Vec<String> {
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    ids.iter()
        .map(|id| {
            let base = stem(id);
            let n = used.entry(base.to_lowercase()).or_insert(0);
            *n += 1;
            if *n == 1 {
                base
            } else {
                format!("{base}-{n}")
            }
        })
        .collect()
}
