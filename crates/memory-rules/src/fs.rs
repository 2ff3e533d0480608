//! File access shared by the stages that read files (discovery, skills).

use std::io;
use std::path::Path;

/// Opens `path` for reading without blocking on a FIFO or a device: the
/// caller checks on the handle that it is a regular file before reading.
#[cfg(unix)]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Opens `path` for reading (no FIFOs to block on here).
#[cfg(not(unix))]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(path)
}
