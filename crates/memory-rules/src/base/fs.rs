//! The file system, as the engine and the CLI use it: one function per
//! contract, so a read is bounded, an open never blocks on a FIFO and a
//! replacement is never torn, wherever it happens.
//!
//! | contract | function |
//! | --- | --- |
//! | open for reading without blocking on a FIFO or a device; without following a last-component link where asked ([`Links::Refuse`]) | [`open`] |
//! | a regular file whole, refused over a limit (at most the limit plus one byte read) | [`read_bounded`] |
//! | the first bytes of a regular file, as text (the rest not read) | [`read_prefix`] |
//! | the last bytes of a regular file (the rest not read) | [`read_tail`] |
//! | replace a file: a temp file beside it renamed over it, fsynced with its directory ([`replace`]) or not ([`replace_fast`], for caches); the directory made first ([`write_file`]) | [`replace`], [`replace_fast`], [`write_file`] |
//! | an exclusive writer lock on a directory, waited for at most a timeout | [`Lock::acquire`] |
//! | the temp files a killed writer left | [`remove_stray_temps`] |
//! | where the user's state lives (hook sessions, caches, the delivery log) | [`state_dir`] |
//!
//! The rule walker, the memory store, the CLI's hooks, installs and caches
//! all come here; nothing above opens a file another way.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Whether an open follows a symlink in the last component of the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Followed (a rule file may be a link; its target is checked elsewhere).
    Follow,
    /// Refused (`O_NOFOLLOW`): memory files, the memory lock.
    Refuse,
}

/// Opens `path` for reading: never blocks on a FIFO or a device
/// (`O_NONBLOCK` on Unix); with [`Links::Refuse`], a symlink is an error
/// that says so. Check the handle's type before reading (the readers below
/// do).
pub fn open(path: &Path, links: Links) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    flags(&mut options, links);
    options.open(path).map_err(|e| refused_link(e, links))
}

#[cfg(unix)]
fn flags(options: &mut OpenOptions, links: Links) {
    use std::os::unix::fs::OpenOptionsExt;
    let no_follow = if links == Links::Refuse {
        libc::O_NOFOLLOW
    } else {
        0
    };
    options.custom_flags(libc::O_NONBLOCK | no_follow);
}

#[cfg(not(unix))]
fn flags(_: &mut OpenOptions, _: Links) {}

/// ELOOP from `O_NOFOLLOW` says what it is.
fn refused_link(e: io::Error, links: Links) -> io::Error {
    #[cfg(unix)]
    if links == Links::Refuse && e.raw_os_error() == Some(libc::ELOOP) {
        return io::Error::other("is a symlink; refused (never read through a link)");
    }
    let _ = links;
    e
}

/// Why a bounded read gave nothing.
#[derive(Debug)]
pub enum ReadError {
    /// The open or the read failed (`NotFound` among them).
    Io(io::Error),
    /// A FIFO, socket, device or directory.
    NotFile,
    /// Over the limit (the size seen).
    TooLarge(u64),
}

impl ReadError {
    /// Whether the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotFile => f.write_str("not a regular file (a FIFO, socket or device)"),
            ReadError::TooLarge(n) => write!(f, "{n} bytes, over the limit"),
        }
    }
}

/// A regular file whole, of at most `limit` bytes: opened without blocking,
/// its type and size checked on the handle, never more than `limit` plus
/// one byte read (a file that grew after the check is caught too).
pub fn read_bounded(path: &Path, limit: u64, links: Links) -> Result<Vec<u8>, ReadError> {
    let (file, len) = open_bounded(path, limit, links)?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// A regular file of at most `limit` bytes, opened without blocking, with
/// its length (type and size checked on the handle).
fn open_bounded(path: &Path, limit: u64, links: Links) -> Result<(File, u64), ReadError> {
    let file = open(path, links).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotFile);
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(meta.len()));
    }
    Ok((file, meta.len()))
}

/// A file's bytes: mapped ([`map_bounded`]), or read.
pub enum FileBytes {
    Read(Vec<u8>),
    #[cfg(not(target_family = "wasm"))]
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Read(v) => v,
            #[cfg(not(target_family = "wasm"))]
            FileBytes::Mapped(m) => m,
        }
    }
}

/// A regular file of at most `limit` bytes, mapped: only the pages read are
/// faulted in and nothing is copied (a hook's rules cache is 1 MB, of which
/// a fresh check reads a third). Read as [`read_bounded`] reads it where
/// mapping fails, and on WebAssembly. **Only for files that are replaced by
/// a rename ([`replace`], [`replace_fast`]), never written in place**: a
/// file truncated under its mapping would fault on the next read.
pub fn map_bounded(path: &Path, limit: u64, links: Links) -> Result<FileBytes, ReadError> {
    #[cfg(not(target_family = "wasm"))]
    {
        let (file, _) = open_bounded(path, limit, links)?;
        // SAFETY: the caller's files are only ever replaced by a rename,
        // never written in place or truncated (see above), so the mapped
        // file does not change under the mapping.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(FileBytes::Mapped(map));
        }
    }
    read_bounded(path, limit, links).map(FileBytes::Read)
}

/// The first `limit` bytes of a regular file, as text (invalid UTF-8, a
/// character cut at the end included, replaced); the rest is not read.
pub fn read_prefix(path: &Path, limit: u64, links: Links) -> io::Result<String> {
    let file = open(path, links)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file; refused"));
    }
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A memory file's text: [`read_prefix`] never through a symlink, `None`
/// when the file does not exist.
pub fn read_limited(path: &Path, limit: usize) -> io::Result<Option<String>> {
    match read_prefix(path, limit as u64, Links::Refuse) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The last `limit` bytes of a regular file (a transcript's end); the rest
/// is not read.
pub fn read_tail(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut file = open(path, Links::Follow)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file; refused"));
    }
    file.seek(SeekFrom::Start(meta.len().saturating_sub(limit)))?;
    let mut tail = Vec::new();
    file.take(limit).read_to_end(&mut tail)?;
    Ok(tail)
}

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

/// [`replace`] without the fsyncs: a temp file in the same directory renamed
/// over `path`. Readers see the old or the new file, never a torn one; a
/// power loss may lose the write. For small state that is rebuilt anyway
/// (the hooks' sessions and rules cache), where an fsync would cost more
/// than the whole hook.
pub fn replace_fast(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (_, tmp) = temp_beside(path)?;
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// [`replace`], its directory made first (a settings file an install writes).
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    replace(path, bytes)
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

/// An exclusive advisory lock on a directory (`<dir>/.lock`), released on
/// drop.
pub struct Lock {
    file: File,
}

impl Lock {
    /// Takes `<dir>/.lock` (never through a symlink), waiting at most
    /// `timeout` for another process to release it; then a `TimedOut` error
    /// naming the lock (`what`: "memory", "session state") and its file.
    pub fn acquire(dir: &Path, what: &str, timeout: Duration) -> io::Result<Lock> {
        let path = dir.join(".lock");
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        flags(&mut options, Links::Refuse);
        let file = options
            .open(&path)
            .map_err(|e| refused_link(e, Links::Refuse))?;
        match file.try_lock() {
            Ok(()) => return Ok(Lock { file }),
            // WASI (the package's WebAssembly fallback) has no file locks:
            // there the writes go unlocked, so two processes writing one
            // scope at the same moment can lose one update (docs/platforms.md, WebAssembly fallback).
            Err(TryLockError::Error(e))
                if cfg!(target_os = "wasi") && e.kind() == io::ErrorKind::Unsupported =>
            {
                return Ok(Lock { file });
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
            Ok(Ok(file)) => Ok(Lock { file }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "another process has held the {what} lock {} for over {} ms; try again",
                    path.display(),
                    timeout.as_millis()
                ),
            )),
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Removes temp files a killed writer left (`.NAME.PID.N.tmp`); only call
/// it under the directory's [`Lock`], when no write of it is in flight.
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

/// Threads for work spread over the cores (a directory walk, file reads):
/// the cores there are, at most `max`; one on WebAssembly, which has no
/// threads to spawn (work sequentially there).
pub fn worker_threads(max: usize) -> usize {
    if cfg!(target_family = "wasm") {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(max)
    }
}

/// The project walk every search of a tree shares, as ripgrep walks it:
/// `.gitignore`, `.ignore` and `.git/info/exclude` honoured (also outside a
/// git repository, never the user's global excludes), hidden entries
/// included, links not followed, at most `max_depth` levels, on
/// [`worker_threads`]`(max_threads)` threads. Callers add their filters.
pub fn project_walk(root: &Path, max_depth: usize, max_threads: usize) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .follow_links(false)
        .max_depth(Some(max_depth))
        .hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .threads(worker_threads(max_threads));
    builder
}

/// The user's state directory (hook sessions, the hooks' rules cache, the
/// delivery log): `$WAVE_RULES_STATE_DIR`, else `$XDG_STATE_HOME/wave-rules`,
/// else `%LOCALAPPDATA%\wave-rules` on Windows, else
/// `<home>/.local/state/wave-rules`.
pub fn state_dir(home: &Path) -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env("WAVE_RULES_STATE_DIR") {
        return d;
    }
    if let Some(d) = env("XDG_STATE_HOME") {
        return d.join("wave-rules");
    }
    if cfg!(windows) {
        if let Some(d) = env("LOCALAPPDATA") {
            return d.join("wave-rules");
        }
    }
    home.join(".local").join("state").join("wave-rules")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_reads_refuse_what_is_too_large_or_not_a_file_and_prefixes_cut() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("a.txt");
        std::fs::write(&f, "hello é").unwrap();
        assert_eq!(
            read_bounded(&f, 64, Links::Follow).unwrap(),
            "hello é".as_bytes()
        );
        assert!(matches!(
            read_bounded(&f, 3, Links::Follow),
            Err(ReadError::TooLarge(8))
        ));
        assert!(matches!(
            read_bounded(tmp.path(), 64, Links::Follow),
            Err(ReadError::NotFile)
        ));
        assert!(read_bounded(&tmp.path().join("none"), 64, Links::Follow)
            .unwrap_err()
            .is_not_found());
        assert_eq!(read_prefix(&f, 7, Links::Follow).unwrap(), "hello \u{fffd}");
        assert_eq!(read_tail(&f, 2).unwrap(), "é".as_bytes());
        assert!(read_prefix(tmp.path(), 7, Links::Follow).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_only_where_asked_and_a_fifo_never_blocks() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("a.txt");
        std::fs::write(&f, "x").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(read_prefix(&link, 9, Links::Follow).is_ok());
        let refused = read_prefix(&link, 9, Links::Refuse).unwrap_err();
        assert!(refused.to_string().contains("symlink"), "{refused}");
        let fifo = tmp.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read_bounded(&fifo, 9, Links::Follow),
            Err(ReadError::NotFile)
        ));
    }

    #[test]
    fn replace_leaves_the_old_or_the_new_file_and_no_temp() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("sub/x.json");
        write_file(&f, b"one").unwrap();
        replace_fast(&f, b"two").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two");
        replace(&f, b"three").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"three");
        let names: Vec<_> = std::fs::read_dir(f.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x.json"]);
        let _lock = Lock::acquire(tmp.path(), "test", Duration::from_millis(10)).unwrap();
    }
}
