//! Spare session files: empty files in the sessions directory
//! (`.spare-0` .. `.spare-N`, [`SPARE_SESSION_FILES`]) that the hooks'
//! watcher makes ahead of time, so that a new conversation's first save
//! renames one into place and writes it over, instead of making a file.
//! Making a file allocates an inode, which on ext4 costs about 0.2 ms (the
//! allocator skips recently freed inodes), against a few us for a rename
//! and for a write in place; a session's start and a subagent's start
//! each make one. Without a watcher (other systems, fewer rules, or
//! `WAVE_RULES_WATCH=off`) there are no spares and the file is made as
//! before.

use memory_rules::base::limits::SPARE_SESSION_FILES;
use std::path::{Path, PathBuf};

fn spare(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!(".spare-{k}"))
}

/// Renames a spare of `path`'s directory to `path`, which must not exist;
/// false when there is none (or on a system without `renameat2`).
pub fn take(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(dir) = path.parent() {
        return (0..SPARE_SESSION_FILES).any(|k| rename_no_replace(&spare(dir, k), path));
    }
    let _ = path;
    false
}

/// Makes the spares of the sessions directory `dir` that are missing (not
/// the directory itself). Returns how many it made.
pub fn top_up(dir: &Path) -> usize {
    (0..SPARE_SESSION_FILES)
        .filter(|&k| {
            // A stat first: it walks the path without the directory's lock,
            // which an open that may create takes, while a hook is at work
            // in the same directory (the watcher does this after answering).
            let path = spare(dir, k);
            let mut file = std::fs::OpenOptions::new();
            std::fs::symlink_metadata(&path).is_err()
                && file.write(true).create_new(true).open(&path).is_ok()
        })
        .count()
}

/// `rename(from, to)` that fails rather than replace an existing `to`.
#[cfg(target_os = "linux")]
fn rename_no_replace(from: &Path, to: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (Ok(from), Ok(to)) = (
        std::ffi::CString::new(from.as_os_str().as_bytes()),
        std::ffi::CString::new(to.as_os_str().as_bytes()),
    ) else {
        return false;
    };
    // SAFETY: two NUL-terminated paths that live across the call.
    unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        ) == 0
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_takes_a_spare_and_the_spares_are_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s1.json");
        assert!(!take(&file), "no spares yet");
        assert_eq!(top_up(dir.path()), SPARE_SESSION_FILES);
        assert_eq!(top_up(dir.path()), 0, "all there");
        assert!(take(&file));
        assert!(file.is_file());
        assert_eq!(top_up(dir.path()), 1);
    }

    #[test]
    fn a_spare_never_replaces_a_file_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s1.json");
        std::fs::write(&file, "{}").unwrap();
        top_up(dir.path());
        assert!(!take(&file));
        assert_eq!(std::fs::read(&file).unwrap(), b"{}");
        assert_eq!(top_up(dir.path()), 0, "no spare was used");
    }

    #[test]
    fn spares_are_not_made_without_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(top_up(&dir.path().join("sessions")), 0);
        assert!(!dir.path().join("sessions").exists());
    }
}
