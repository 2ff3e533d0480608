//! Why a pack cannot be read or hashed: [`PackError`], one type for its
//! manifest ([`super::manifest::read`]) and its content hash
//! ([`super::hash::content_hash`]), each naming the path that failed; and
//! [`RulesDirError`], what is wrong in a manifest's `waveRules`.

use crate::base::limits::{MAX_PACK_BYTES, MAX_PACK_FILES, MAX_RULE_BYTES};
use crate::rules::rule_format::Format;
use std::path::PathBuf;

/// Why a pack's manifest cannot be read or its rules folders hashed: what
/// is wrong, with the file or folder it is wrong in. Prints as one
/// sentence, the message of a diagnostic on the pack.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// The `package.json` is over [`MAX_RULE_BYTES`].
    #[error("{} is {size} bytes, over the {MAX_RULE_BYTES}-byte limit", path.display())]
    TooLarge { path: PathBuf, size: u64 },
    /// The `package.json` is a FIFO, socket, device or directory.
    #[error("{} is not a file", path.display())]
    NotFile { path: PathBuf },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not JSON: {source}", path.display())]
    NotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// The `waveRules` key of the `package.json` at `path` is not a list
    /// of rules folders.
    #[error("{}: waveRules: {source}", path.display())]
    WaveRules {
        path: PathBuf,
        #[source]
        source: RulesDirError,
    },
    /// `waveRules` names a folder `dir` the pack does not have.
    #[error("{}: waveRules names the folder '{}', which the pack does not have", path.display(), dir.display())]
    MissingFolder { path: PathBuf, dir: PathBuf },
    /// No `waveRules`, no `rules/` and not a folder pack.
    #[error("the pack at {} has no rules folder: add a rules/ folder, or name it in package.json (\"waveRules\": {{ \"rules\": \"DIR\" }})", root.display())]
    NoRulesFolder { root: PathBuf },
    /// Walking the rules folders failed (the walker's error names the path).
    #[error("cannot read the pack: {source}")]
    Walk {
        #[source]
        source: walkdir::Error,
    },
    #[error("the pack has more than {MAX_PACK_FILES} files in its rules folders (limit)")]
    TooManyFiles { root: PathBuf },
    #[error("the pack's rules folders hold more than {MAX_PACK_BYTES} bytes (limit)")]
    TooManyBytes { root: PathBuf },
    /// One file of the rules folders cannot be read: `rel` is its
    /// `/`-separated path in the pack.
    #[error("{rel}: {source}")]
    File {
        rel: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why a `waveRules` value names no rules folders: what is wrong, with
/// the key, folder or format it is wrong about (the `package.json` is
/// [`PackError::WaveRules`]' path).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesDirError {
    #[error("a list of 1 to 64 folders")]
    ListLength,
    #[error("a folder name, {{ \"rules\": DIR }}, or a list of those")]
    NotFolders,
    #[error("each entry is {{ \"rules\": DIR, \"format\"?: NAME }}")]
    NotAnEntry,
    #[error("unknown key '{key}' (the keys are rules, format, depth)")]
    UnknownKey { key: String },
    #[error("each entry needs \"rules\": the folder of its rules")]
    NoRules,
    #[error("\"format\" is a format name")]
    FormatNotText,
    #[error("'{dir}' is not a folder inside the pack")]
    OutsidePack { dir: String },
    #[error("unknown format '{format}'; the formats are {}", format_names())]
    UnknownFormat { format: String },
    #[error("\"depth\" is a number up to 64 or \"any\"")]
    Depth,
}

/// The formats a pack may name, comma-separated.
fn format_names() -> String {
    let known: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    known.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_print_their_braces_and_paths_as_one_sentence() {
        assert_eq!(
            RulesDirError::NotFolders.to_string(),
            r#"a folder name, { "rules": DIR }, or a list of those"#
        );
        assert_eq!(
            RulesDirError::NotAnEntry.to_string(),
            r#"each entry is { "rules": DIR, "format"?: NAME }"#
        );
        let e = PackError::NoRulesFolder {
            root: PathBuf::from("/p"),
        };
        assert_eq!(
            e.to_string(),
            r#"the pack at /p has no rules folder: add a rules/ folder, or name it in package.json ("waveRules": { "rules": "DIR" })"#
        );
        let e = PackError::WaveRules {
            path: PathBuf::from("/p/package.json"),
            source: RulesDirError::UnknownFormat {
                format: "nope".into(),
            },
        };
        assert_eq!(
            e.to_string(),
            "/p/package.json: waveRules: unknown format 'nope'; the formats are agents-md, gemini, cursor, copilot, windsurf, antigravity, kiro, cline, continue, rules-yaml, claude, wave"
        );
    }
}
