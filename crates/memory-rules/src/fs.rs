//! The file system, as the core uses it: every open that could meet a FIFO
//! or a device, every bounded read.

use std::io::{self, Read};
use std::path::Path;

/// Opens `path` for reading without blocking on a FIFO or a device
/// (`O_NONBLOCK` on Unix); check the handle's metadata before reading.
#[cfg(unix)]
pub fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
pub fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// The first `limit` bytes of a regular file, as text (invalid UTF-8
/// replaced), opened without blocking; an error for anything that is not a
/// regular file.
pub fn read_prefix(path: &Path, limit: u64) -> io::Result<String> {
    let file = open_nonblocking(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
