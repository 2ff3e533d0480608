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
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", process_tag()));
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

/// Tells this process's temp files from another's: the process id, or on
/// WASI, which has none (`std::process::id` panics there), the clock.
#[cfg(target_os = "wasi")]
fn process_tag() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

#[cfg(not(target_os = "wasi"))]
fn process_tag() -> u128 {
    u128::from(std::process::id())
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
        match file.lock() {
            Ok(()) => {}
            // WASI (the package's WebAssembly fallback) has no file locks:
            // there the writes go unlocked, so two processes writing one
            // scope at the same moment can lose one update (README, WASI).
            Err(e) if cfg!(target_os = "wasi") && e.kind() == io::ErrorKind::Unsupported => {}
            Err(e) => return Err(e),
        }
        Ok(ScopeLock { file })
    }
}

impl Drop for ScopeLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}
