//! A rule file read from disk: bounded, never blocking, its problems as
//! diagnostics (file, line, column). Below the walker and the formats, so
//! both read through it (a format's `@` imports included).

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::base::fs::{Links, ReadError};
use crate::base::limits::MAX_RULE_BYTES;
use std::path::Path;

/// A rule file's bytes: a regular file of at most [`MAX_RULE_BYTES`], read
/// through the file-system layer ([`crate::base::fs::read_bounded`]: opened without
/// blocking, checked on the handle, never more than the limit plus one byte).
pub fn read_rule_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    crate::base::fs::read_bounded(path, MAX_RULE_BYTES, Links::Follow)
}

/// Reads a rule file's text, or reports why it cannot be used.
///
/// The file is opened without blocking (a FIFO does not hang the read), its
/// type is checked on the open handle (`fstat`, so a file swapped for a FIFO
/// or a device after the walk is refused), and at most the size limit plus
/// one byte is read, whatever the file is.
pub fn read(path: &Path) -> Result<String, Diagnostic> {
    let bytes = read_rule_file(path).map_err(|e| match e {
        ReadError::Io(e) => Diagnostic::new(
            Severity::Error,
            Code::Unreadable,
            path,
            format!("cannot read: {e}"),
        ),
        ReadError::NotFile => Diagnostic::new(
            Severity::Error,
            Code::Unreadable,
            path,
            "not a regular file (a FIFO, socket or device); not loaded",
        ),
        ReadError::TooLarge(len) => Diagnostic::new(
            Severity::Error,
            Code::TooLarge,
            path,
            format!(
                "file is {len} bytes, over the {MAX_RULE_BYTES}-byte limit for a rule; not loaded"
            ),
        ),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let column = (before.len()
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)) as u32
            + 1;
        Diagnostic::new(
            Severity::Error,
            Code::NotUtf8,
            path,
            "file is not valid UTF-8; not loaded",
        )
        .at(line, column)
    })
}
