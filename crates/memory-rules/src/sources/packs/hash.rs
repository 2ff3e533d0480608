//! A pack's content hash: SHA-256 over every file of its rules folders, in
//! path order, each as its `/`-separated path relative to the pack's root,
//! its length and its bytes (a link as its target's text). The same files
//! give the same hash on every machine and file system; one changed byte,
//! name or file changes it.

use super::manifest::Manifest;
use super::pack_error::PackError;
use crate::base::limits::{MAX_PACK_BYTES, MAX_PACK_FILES};
use sha2::{Digest, Sha256};
use std::path::Path;

/// `sha256:<hex>` of the pack's rules folders, or why it cannot be hashed.
pub fn content_hash(root: &Path, manifest: &Manifest) -> Result<String, PackError> {
    let mut files: Vec<(String, std::path::PathBuf)> = Vec::new();
    for dir in &manifest.rules {
        let base = root.join(&dir.dir);
        for entry in walkdir::WalkDir::new(&base)
            .follow_links(false)
            .sort_by_file_name()
        {
            let entry = entry.map_err(|source| PackError::Walk { source })?;
            let t = entry.file_type();
            if !(t.is_file() || t.is_symlink()) {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(root)
                .unwrap_or(entry.path())
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .filter(|c| c != ".")
                .collect::<Vec<_>>()
                .join("/");
            if rel.split('/').any(|c| c == ".git") {
                continue;
            }
            files.push((rel, entry.path().to_path_buf()));
            if files.len() > MAX_PACK_FILES {
                return Err(PackError::TooManyFiles {
                    root: root.to_path_buf(),
                });
            }
        }
    }
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    let mut hasher = Sha256::new();
    let mut total = 0u64;
    for (rel, path) in &files {
        let failed = |source| PackError::File {
            rel: rel.clone(),
            path: path.clone(),
            source,
        };
        let meta = std::fs::symlink_metadata(path).map_err(failed)?;
        let bytes = if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path).map_err(failed)?;
            format!("link:{}", target.to_string_lossy().replace('\\', "/")).into_bytes()
        } else {
            total += meta.len();
            if total > MAX_PACK_BYTES {
                return Err(PackError::TooManyBytes {
                    root: root.to_path_buf(),
                });
            }
            std::fs::read(path).map_err(failed)?
        };
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let digest = hasher.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("sha256:{hex}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::packs::manifest;

    #[test]
    fn the_hash_follows_every_byte_and_name_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::create_dir_all(root.join("rules/sub")).unwrap();
        std::fs::write(root.join("rules/a.md"), "A").unwrap();
        std::fs::write(root.join("rules/sub/b.md"), "B").unwrap();
        std::fs::write(root.join("README.md"), "not a rule").unwrap();
        let m = manifest::read(root, false).unwrap();
        let h = content_hash(root, &m).unwrap();
        assert!(h.starts_with("sha256:") && h.len() == 7 + 64, "{h}");
        std::fs::write(root.join("README.md"), "changed, still not a rule").unwrap();
        assert_eq!(content_hash(root, &m).unwrap(), h);
        std::fs::write(root.join("rules/a.md"), "a").unwrap();
        let changed = content_hash(root, &m).unwrap();
        assert_ne!(changed, h);
        std::fs::rename(root.join("rules/a.md"), root.join("rules/c.md")).unwrap();
        assert_ne!(content_hash(root, &m).unwrap(), changed);
    }
}
