//! Crash-safe file replacement and the per-scope writer lock.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `bytes`: a temp file in the same directory is
/// written and fsynced, renamed over `path`, and the directory is fsynced.
/// A crash leaves the old or the new file, never a torn one.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, tmp) = temp_beside(path)?;
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

/// `path`'s directory and a temp file name in it, unique to this process
/// and call (`.NAME.TAG.N.tmp`).
fn temp_beside(path: &Path) -> io::Result<(&Path, std::path::PathBuf)> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("no parent directory"))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    Ok((dir, dir.join(format!(".{name}.{}.{n}.tmp", process_tag()))))
}

/// Tells this process's temp files from another's: the process id, or on
/// WASI, which has none (`std::process::id` panics there), the clock.
#[cfg(target_os = "wasi")]
pub(crate) fn process_tag() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

#[cfg(not(target_os = "wasi"))]
pub(crate) fn process_tag() -> u128 {
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
    /// Takes `<dir>/.lock` (never through a symlink), waiting at most
    /// `timeout` for another process to release it; then a `TimedOut` error
    /// naming the lock file.
    pub fn acquire(dir: &Path, timeout: Duration) -> io::Result<ScopeLock> {
        let path = dir.join(".lock");
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        no_follow(&mut options);
        let file = options.open(&path)?;
        match file.try_lock() {
            Ok(()) => return Ok(ScopeLock { file }),
            // WASI (the package's WebAssembly fallback) has no file locks:
            // there the writes go unlocked, so two processes writing one
            // scope at the same moment can lose one update (docs/platforms.md, WebAssembly fallback).
            Err(TryLockError::Error(e))
                if cfg!(target_os = "wasi") && e.kind() == io::ErrorKind::Unsupported =>
            {
                return Ok(ScopeLock { file });
            }
            Err(TryLockError::Error(e)) => return Err(e),
            Err(TryLockError::WouldBlock) => {}
        }
        // Wait in the kernel's queue (fair between writers) on a helper
        // thread; if the wait times out, the thread keeps waiting and lets
        // go of the lock as soon as it gets it (the receiver is gone).
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let got = file.lock().map(|()| file);
            let _ = tx.send(got);
        });
        match rx.recv_timeout(timeout) {
            Ok(Ok(file)) => Ok(ScopeLock { file }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "another process has held the memory lock {} for over {} ms; try again",
                    path.display(),
                    timeout.as_millis()
                ),
            )),
        }
    }
}

/// Adds `O_NOFOLLOW` (the last component is never a symlink followed) and
/// `O_NONBLOCK` (a FIFO planted there does not block) on Unix.
#[cfg(unix)]
pub fn no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
}

#[cfg(not(unix))]
pub fn no_follow(_: &mut OpenOptions) {}

/// Reads a memory file without following a symlink, refusing anything but a
/// regular file, and at most `limit` bytes (cut at a UTF-8 boundary).
/// `Ok(None)` when it does not exist.
pub fn read_limited(path: &Path, limit: usize) -> io::Result<Option<String>> {
    let mut options = OpenOptions::new();
    options.read(true);
    no_follow(&mut options);
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(refused_link(e)),
    };
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file; refused"));
    }
    let mut bytes = Vec::new();
    file.take(limit as u64).read_to_end(&mut bytes)?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(Some(text))
}

/// ELOOP from O_NOFOLLOW says what it is.
fn refused_link(e: io::Error) -> io::Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return io::Error::other("is a symlink; memory files are never read through links");
    }
    e
}

/// Removes temp files a killed writer left (`.NAME.PID.N.tmp`); only called
/// under the scope lock, when no write of this scope is in flight.
pub fn remove_stray_temps(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.')
            && name.ends_with(".tmp")
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = std::fs::remove_file(entry.path());
        }
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
    let (_, tmp) = temp_beside(path)?;
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
