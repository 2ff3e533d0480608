//! The changes of a [`Sync`](super::Sync) written to disk.

use super::diff::Change;
use super::export_error::ExportError;
use super::parallel::par_map;
use std::collections::BTreeSet;
use std::path::Path;

/// Writes one change: a new file in place (never over one that appeared
/// since the plan), a replaced one atomically (a temporary file in the same
/// directory, then a rename), a stale one removed. No fsync (see
/// docs/export.md: the files are rebuilt from the sources by running
/// export again).
fn apply_one(c: &Change) -> Result<(), ExportError> {
    match &c.new {
        Some(text) if c.old.is_none() => {
            // A new file: written in place (nothing to replace, and
            // `create_new` never overwrites a file that appeared since the
            // plan).
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&c.path)
                .map_err(|source| ExportError::Create {
                    path: c.path.clone(),
                    source,
                })?;
            f.write_all(text.as_bytes())
                .map_err(|source| ExportError::Write {
                    path: c.path.clone(),
                    source,
                })
        }
        Some(text) => {
            let name = c
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let tmp = c.path.with_file_name(format!(".{name}.wave-export.tmp"));
            std::fs::write(&tmp, text).map_err(|source| ExportError::Write {
                path: tmp.clone(),
                source,
            })?;
            std::fs::rename(&tmp, &c.path).map_err(|source| {
                let _ = std::fs::remove_file(&tmp);
                ExportError::Replace {
                    path: c.path.clone(),
                    source,
                }
            })
        }
        None => std::fs::remove_file(&c.path).map_err(|source| ExportError::Remove {
            path: c.path.clone(),
            source,
        }),
    }
}

/// Writes the changes: the directories first, then the files on up to
/// [`MAX_IO_THREADS`](super::MAX_IO_THREADS) threads (each file is written
/// or replaced on its own, as [`apply_one`] says). On a failure the other
/// threads stop before their next file, and the first failure (in the
/// changes' order) is returned.
pub fn apply(changes: &[Change]) -> Result<(), ExportError> {
    let mut made: BTreeSet<&Path> = BTreeSet::new();
    for c in changes.iter().filter(|c| c.new.is_some()) {
        if let Some(parent) = c.path.parent() {
            if made.insert(parent) {
                std::fs::create_dir_all(parent).map_err(|source| ExportError::Create {
                    path: parent.to_path_buf(),
                    source,
                })?;
            }
        }
    }
    let failed = std::sync::atomic::AtomicBool::new(false);
    let results = par_map(changes, |c| {
        if failed.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        let r = apply_one(c);
        if r.is_err() {
            failed.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        r
    });
    results.into_iter().collect()
}
