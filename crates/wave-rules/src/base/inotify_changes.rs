//! The inotify events that can change a watched file's or folder's stamp:
//! what the MCP server's freshness (`mcp/fresh.rs`) and the hooks' watcher
//! (`hook/watch.rs`) both watch for.

/// A file written, touched, created, removed or renamed in a watched
/// folder, or the watched file or folder itself removed or moved.
pub fn mask() -> inotify::WatchMask {
    use inotify::WatchMask;
    WatchMask::MODIFY
        | WatchMask::ATTRIB
        | WatchMask::CLOSE_WRITE
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
}
