//! Stats of many paths, each looked up from a handle on its folder.
//!
//! `stat` of an absolute path walks every component of it; a hook checks
//! the stamp of every rule file on every event (1,000 of them at 1,000
//! rules, in a handful of folders), and those walks were a fifth of its
//! time. [`FolderStats`] keeps the last folder open and stats the next path
//! by its name in that folder (`fstatat`) while the paths come folder by
//! folder. What it gives is what [`Stamp::of`] and
//! [`std::fs::symlink_metadata`] give for the same path.

use crate::load::stamp::Stamp;
use std::path::Path;

/// Stats paths through a handle on the folder of the last one (see the
/// module documentation). Without one (a path with no folder, a folder that
/// cannot be opened, or not Unix) a path is stat'ed whole.
#[derive(Default)]
pub(crate) struct FolderStats {
    #[cfg(unix)]
    folder: Option<(Vec<u8>, std::fs::File)>,
}

impl FolderStats {
    /// The stamp of `path` (through symlinks), as [`Stamp::of`] gives it.
    pub(crate) fn stamp(&mut self, path: &Path) -> Option<Stamp> {
        #[cfg(unix)]
        if let Some(stat) = self.stat(path, 0) {
            return stat.ok().map(|s| stamp_of(&s));
        }
        Stamp::of(path)
    }

    /// Whether `path` exists (a dangling symlink does), as
    /// [`std::fs::symlink_metadata`] tells.
    pub(crate) fn exists(&mut self, path: &Path) -> bool {
        #[cfg(unix)]
        if let Some(stat) = self.stat(path, libc::AT_SYMLINK_NOFOLLOW) {
            return stat.is_ok();
        }
        std::fs::symlink_metadata(path).is_ok()
    }

    /// `fstatat` of `path`'s name in its folder, kept open for the next
    /// path; `None` when there is no folder handle to stat it through.
    #[cfg(unix)]
    fn stat(&mut self, path: &Path, flags: libc::c_int) -> Option<Result<libc::stat, ()>> {
        use std::os::fd::AsRawFd;
        use std::os::unix::ffi::OsStrExt;
        let (parent, name) = split(path.as_os_str().as_bytes())?;
        if self.folder.as_ref().is_none_or(|(open, _)| open != parent) {
            let folder = std::ffi::OsStr::from_bytes(parent);
            self.folder = std::fs::File::open(folder)
                .ok()
                .map(|f| (parent.to_vec(), f));
        }
        let (_, folder) = self.folder.as_ref()?;
        // The name, NUL-terminated, on the stack (a file name is at most
        // 255 bytes on the file systems rules live on).
        let mut buf = [0u8; NAME_BUF];
        buf.get_mut(..name.len())?.copy_from_slice(name);
        let name = std::ffi::CStr::from_bytes_until_nul(&buf)
            .ok()
            .filter(|c| c.count_bytes() == name.len())?;
        let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: the folder's descriptor is open, `name` is NUL-terminated,
        // and `stat` is written by the call before it is read (on success).
        let rc =
            unsafe { libc::fstatat(folder.as_raw_fd(), name.as_ptr(), stat.as_mut_ptr(), flags) };
        Some(if rc == 0 {
            // SAFETY: fstatat returned 0, so it filled `stat`.
            Ok(unsafe { stat.assume_init() })
        } else {
            Err(())
        })
    }
}

/// Room for a file name and its NUL; a longer name is stat'ed whole.
#[cfg(unix)]
const NAME_BUF: usize = 256;

/// A path's folder and name, split at its last `/` (bytes, not
/// components: this runs for every input of every event); `None` for a
/// name that is empty, `.` or `..`, or a path with no `/`, which are
/// stat'ed whole.
#[cfg(unix)]
fn split(path: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = path.iter().rposition(|&b| b == b'/')?;
    let name = &path[at + 1..];
    if matches!(name, b"" | b"." | b"..") {
        return None;
    }
    Some((if at == 0 { b"/" } else { &path[..at] }, name))
}

/// A [`Stamp`] of what `fstatat` gave: the same parts as of
/// [`std::fs::Metadata`] (a modification time before 1970 counts as 0 ns,
/// as [`Stamp::parts`] counts it).
#[cfg(unix)]
fn stamp_of(s: &libc::stat) -> Stamp {
    let ns =
        u64::try_from(s.st_mtime).map_or(0, |secs| secs * 1_000_000_000 + s.st_mtime_nsec as u64);
    #[allow(clippy::unnecessary_cast)] // `st_dev`, `st_ino` are not u64 everywhere
    Stamp::from([s.st_size as u64, ns, s.st_ino as u64, s.st_dev as u64])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_stats_through_its_folder_as_it_does_whole() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        std::fs::write(&a, "A").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let b = dir.path().join("sub/b.md");
        std::fs::write(&b, "BB").unwrap();
        let dangling = dir.path().join("gone");
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        let mut stats = FolderStats::default();
        for path in [
            &a,
            &b,
            &a,
            dir.path(),
            &dir.path().join("missing.md"),
            &dangling,
        ] {
            assert_eq!(stats.stamp(path), Stamp::of(path), "{}", path.display());
            assert_eq!(
                stats.exists(path),
                std::fs::symlink_metadata(path).is_ok(),
                "{}",
                path.display()
            );
        }
        std::fs::write(&a, "changed").unwrap();
        assert_eq!(stats.stamp(&a), Stamp::of(&a));
        assert_ne!(stats.stamp(&a), stats.stamp(&b));
    }
}
