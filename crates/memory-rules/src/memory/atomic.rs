//! Crash-safe file replacement and the per-scope writer lock.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `bytes`: a temp file in the same directory is
/// written and fsynced, renamed over `path`, and the directory is fsynced.
/// A crash leaves the old or the new file, never a torn one.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().ok_or_else(|| io::Error::other("no parent directory"))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}

/// An exclusive advisory lock on a scope, released on drop.
pub struct ScopeLock {
    file: File,
}

impl ScopeLock {
    /// Blocks until this process holds `<dir>/.lock`.
    pub fn acquire(dir: &Path) -> io::Result<ScopeLock> {
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(".lock"))?;
        file.lock()?;
        Ok(ScopeLock { file })
    }
}

impl Drop for ScopeLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// [`replace`] without the fsyncs: a temp file in the same directory renamed
/// over `path`. Readers see the old or the new file, never a torn one; a
/// power loss may lose the write. For small state that is rebuilt anyway
/// (the hooks' per-session state), where an fsync would cost more than the
/// whole hook.
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().ok_or_else(|| io::Error::other("no parent directory"))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

impl ScopeLock {
    /// Like [`ScopeLock::acquire`], but gives up after `timeout` (a
    /// `TimedOut` error) instead of waiting for ever.
    pub fn acquire_within(dir: &Path, timeout: std::time::Duration) -> io::Result<ScopeLock> {
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(".lock"))?;
        let start = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(ScopeLock { file }),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < timeout => {
                    std::thread::sleep(std::time::Duration::from_millis(2))
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, format!("{} is locked by another process", dir.display())))
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
        }
    }
}
