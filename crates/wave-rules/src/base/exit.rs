//! Whether this process exits after one command (the binary, not the
//! addon): what a command built may then be left to the exit instead of
//! freed one allocation at a time.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the process exits right after this command (set by the
/// binary's `main`, never by the addon, which lives on): a hook's rules and
/// snapshot are then left to the exit instead of freed one allocation at a
/// time (about a twentieth of a hook's instructions at 1,000 rules).
static EXITS_AFTER: AtomicBool = AtomicBool::new(false);

/// Called by a process that exits after one command (see [`EXITS_AFTER`]).
pub fn exits_after_command() {
    EXITS_AFTER.store(true, Ordering::Relaxed);
}

/// Whether this process exits after one command (the binary, not the addon).
pub fn exits_after() -> bool {
    EXITS_AFTER.load(Ordering::Relaxed)
}

/// Drops `value`, or leaves it to the process's exit (see [`EXITS_AFTER`]).
pub(crate) fn release<T>(value: T) {
    if EXITS_AFTER.load(Ordering::Relaxed) {
        std::mem::forget(value);
    }
}
