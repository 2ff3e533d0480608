//! Why an export cannot be planned or written: [`ExportError`], naming the
//! path that failed.

use crate::base::limits::MAX_EXPORT_RULES;
use std::path::PathBuf;

/// Why [`plan`](super::plan) or [`apply`](super::apply) failed: too many
/// rules, or the file or directory that could not be written, with the
/// system's reason. Prints as one sentence.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// More than [`MAX_EXPORT_RULES`] rules to export (`count`).
    #[error("{count} rules to export; the limit is {MAX_EXPORT_RULES}")]
    TooManyRules { count: usize },
    /// A new file or a directory could not be created.
    #[error("cannot create {}: {source}", path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file (new, or the temporary file of a replaced one) could not be
    /// written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The temporary file could not be renamed over the file.
    #[error("cannot replace {}: {source}", path.display())]
    Replace {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A stale generated file could not be removed.
    #[error("cannot remove {}: {source}", path.display())]
    Remove {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
