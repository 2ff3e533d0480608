//! The hooks' watcher: a process that outlives the hook and vouches that
//! none of a saved discovery's inputs changed, so that a hook in a large
//! project does not stat every rule file on every event (at 1,000 rules the
//! stats cost about a third of a hook's run on a 2-core virtual machine,
//! whose second core a second thread cannot count on).
//!
//! A hook that found its saved discovery fresh by the stats, with at least
//! [`WATCH_MIN_RULES`] rules, starts `wave-rules hook watch <cache file>`
//! (detached, no standard streams; at most once a
//! [`WATCH_RETRY_SECS`](memory_rules::base::limits::WATCH_RETRY_SECS) per
//! cache file). The watcher takes the cache file's lock (one watcher a
//! cache file), sets an inotify watch on the cache file's folder and on
//! every input's folder (every listed rules directory, the folder of every
//! rule file and import, the closest existing folder of an input that was
//! absent), then checks that every input still holds its saved stamp, and
//! listens on `<cache file>.sock`.
//!
//! A hook asks it about the save it read ([`question`]) and gets `1`
//! (unchanged) or `0`. Before it
//! answers, the watcher drains its inotify queue: the kernel queues an
//! event inside the write, rename or delete itself, so a change that was
//! done before the hook started is in the queue when the hook asks. Any
//! event that could change an input's stamp (the input's name in its
//! folder, a file added, removed or renamed in a listed directory, an event
//! on a watched folder itself, an overflow of the queue), and any change of
//! the cache file, ends the watcher; the next hook stats as before and
//! starts another. No answer within
//! [`WATCH_ANSWER_MS`](memory_rules::base::limits::WATCH_ANSWER_MS), or no
//! watcher: the hook stats. The watcher also ends after
//! [`WATCH_IDLE_SECS`](memory_rules::base::limits::WATCH_IDLE_SECS) without
//! a question and after
//! [`WATCH_MAX_SECS`](memory_rules::base::limits::WATCH_MAX_SECS) in all.
//! `WAVE_RULES_WATCH=off` turns it off. Linux only (inotify); elsewhere a
//! hook always stats.
//!
//! After each answer the watcher also makes the spare session files that a
//! new conversation took ([`crate::hook::spares`]), so that a session's or
//! a subagent's start renames a file into place rather than making one.

use std::path::Path;

pub use memory_rules::base::limits::WATCH_MIN_RULES;

/// Whether a watcher of `cache` vouches that none of the inputs of
/// `bytes` (the cache file as this hook read it) changed.
pub fn vouches(cache: &Path, bytes: &[u8]) -> bool {
    #[cfg(target_os = "linux")]
    if linux::enabled() {
        return linux::ask(cache, &question(bytes)).unwrap_or(false);
    }
    let _ = (cache, bytes);
    false
}

/// The bytes of a saved discovery that tell one save from another, as a
/// hook asks about them: its length (8 bytes, little-endian), then its first
/// [`QUESTION_HEAD`] bytes (the check's version and scan time come first),
/// zero-padded. A watcher vouches only for the save it read: a hook that
/// read an older one (replaced while it asked) is told no.
#[cfg(target_os = "linux")]
pub fn question(bytes: &[u8]) -> [u8; 8 + QUESTION_HEAD] {
    let mut q = [0u8; 8 + QUESTION_HEAD];
    q[..8].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    let head = &bytes[..bytes.len().min(QUESTION_HEAD)];
    q[8..8 + head.len()].copy_from_slice(head);
    q
}

/// How much of a saved discovery's start a question carries.
#[cfg(target_os = "linux")]
pub const QUESTION_HEAD: usize = 256;

/// Starts a watcher of `cache` (running `exe`), unless watchers are off or
/// one was started in the last [`WATCH_RETRY_SECS`].
pub fn start(exe: &Path, cache: &Path) {
    #[cfg(target_os = "linux")]
    if linux::enabled() {
        linux::start(exe, cache);
    }
    let _ = (exe, cache);
}

/// `wave-rules hook watch <cache file>`: watches until a change, idleness
/// or its time limit ends it; nothing on stdout, exit 0. The binary's
/// only: the caller skips it inside Node (the addon's `runCli`), which it
/// would hold for up to a day.
pub fn run(cache: &Path) -> crate::base::env::Output {
    #[cfg(target_os = "linux")]
    let _ = linux::serve(cache);
    let _ = cache;
    crate::base::env::Output::default()
}

#[cfg(target_os = "linux")]
mod linux {
    use inotify::{EventMask, Inotify, WatchDescriptor};
    use memory_rules::base::limits::{
        MAX_CACHE_BYTES, MAX_WATCHED_DIRS, WATCH_ANSWER_MS, WATCH_IDLE_SECS, WATCH_MAX_SECS,
        WATCH_RETRY_SECS,
    };
    use memory_rules::Restored;
    use std::collections::{HashMap, HashSet};
    use std::ffi::OsString;
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant, SystemTime};

    /// Whether watchers are on (`WAVE_RULES_WATCH=off` turns them off).
    pub(super) fn enabled() -> bool {
        std::env::var_os("WAVE_RULES_WATCH").is_none_or(|v| v != "off")
    }

    /// Where the watcher of `cache` listens.
    fn socket_path(cache: &Path) -> PathBuf {
        cache.with_extension("sock")
    }

    /// The watcher's lock, whose time is also when one was last started.
    fn lock_path(cache: &Path) -> PathBuf {
        cache.with_extension("watch")
    }

    pub(super) fn ask(cache: &Path, question: &[u8]) -> Option<bool> {
        let mut stream = UnixStream::connect(socket_path(cache)).ok()?;
        let wait = Some(Duration::from_millis(WATCH_ANSWER_MS));
        stream.set_read_timeout(wait).ok()?;
        stream.set_write_timeout(wait).ok()?;
        stream.write_all(question).ok()?;
        let mut answer = [0u8; 1];
        stream.read_exact(&mut answer).ok()?;
        Some(answer[0] == b'1')
    }

    pub(super) fn start(exe: &Path, cache: &Path) {
        let lock = lock_path(cache);
        let recent = std::fs::metadata(&lock)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age < Duration::from_secs(WATCH_RETRY_SECS));
        if recent {
            return;
        }
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&lock)
        else {
            return;
        };
        let _ = file.set_modified(SystemTime::now());
        let _ = std::process::Command::new(exe)
            .arg("hook")
            .arg("watch")
            .arg(cache)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn();
    }

    /// What counts on one watched folder: every child added, removed or
    /// renamed (a listed directory: its mtime changes), and any event on
    /// these names.
    #[derive(Default)]
    struct Interest {
        listed: bool,
        names: HashSet<OsString>,
    }

    /// The watches of one cache file's inputs.
    struct Watch {
        inotify: Inotify,
        seen: Seen,
        /// The question of the save it watches ([`super::question`]).
        question: [u8; 8 + super::QUESTION_HEAD],
        /// Each folder watched, once (the rule files of a folder share it).
        folders: HashMap<PathBuf, WatchDescriptor>,
        buffer: Vec<u8>,
        /// The sessions whose spare files it keeps made, after each answer
        /// ([`crate::hook::spares`]).
        sessions: Option<crate::hook::state::Store>,
    }

    /// What each watch is for.
    struct Seen {
        interest: HashMap<WatchDescriptor, Interest>,
        /// The cache file's folder, and its name there.
        cache_dir: WatchDescriptor,
        cache_name: OsString,
    }

    pub(super) fn serve(cache: &Path) -> Option<()> {
        // Nothing the agent left open in the hook is held for the
        // watcher's life (its standard streams are /dev/null already).
        // SAFETY: closes descriptors this process never uses; none is open
        // in Rust's hands yet.
        unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(lock_path(cache))
            .ok()?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return None;
        }
        let mut watch = Watch::new(cache)?;
        let socket = socket_path(cache);
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket).ok()?;
        watch.listen(&listener);
        let _ = std::fs::remove_file(&socket);
        drop(lock);
        Some(())
    }

    impl Watch {
        /// The watches of `cache`'s inputs, set before their stamps are
        /// checked (a change in between is an event); `None` when they
        /// cannot be set, are too many, or an input changed already.
        fn new(cache: &Path) -> Option<Watch> {
            let inotify = Inotify::init().ok()?;
            let cache_dir = inotify
                .watches()
                .add(cache.parent()?, crate::base::inotify_changes::mask())
                .ok()?;
            let bytes = memory_rules::base::fs::read_bounded(
                cache,
                MAX_CACHE_BYTES,
                memory_rules::base::fs::Links::Follow,
            )
            .ok()?;
            let inputs = Restored::inputs_of(&bytes)?;
            let mut watch = Watch {
                inotify,
                seen: Seen {
                    interest: HashMap::new(),
                    cache_dir,
                    cache_name: cache.file_name()?.to_os_string(),
                },
                question: super::question(&bytes),
                sessions: crate::hook::state::Store::of_cache(cache),
                folders: HashMap::new(),
                buffer: vec![0; 16 << 10],
            };
            for (path, absent) in inputs.paths.iter().zip(&inputs.absent) {
                watch.add(path, *absent)?;
                if watch.seen.interest.len() > MAX_WATCHED_DIRS {
                    return None;
                }
            }
            Restored::inputs_hold(&bytes).then_some(watch)
        }

        /// Watches what tells that `path` changed: its name in its folder
        /// (the closest existing one, for an input that was absent), every
        /// child of a listed directory, and a symlink's target.
        fn add(&mut self, path: &Path, absent: bool) -> Option<()> {
            let mut at = path;
            if absent {
                while !at.parent()?.is_dir() {
                    at = at.parent()?;
                }
            }
            self.note(at.parent()?, Some(at.file_name()?.to_os_string()))?;
            let link = std::fs::symlink_metadata(at).is_ok_and(|m| m.file_type().is_symlink());
            if !absent && (link || path.is_dir()) {
                let wd = self.watch_dir(path)?;
                self.seen.interest.entry(wd).or_default().listed = true;
            }
            Some(())
        }

        fn note(&mut self, dir: &Path, name: Option<OsString>) -> Option<()> {
            let wd = self.watch_dir(dir)?;
            self.seen.interest.entry(wd).or_default().names.extend(name);
            Some(())
        }

        /// A watch on `dir`; `None` on a file system whose changes inotify
        /// does not all see (made by another machine or the host).
        fn watch_dir(&mut self, dir: &Path) -> Option<WatchDescriptor> {
            if let Some(wd) = self.folders.get(dir) {
                return Some(wd.clone());
            }
            if !local(dir) {
                return None;
            }
            let wd = self
                .inotify
                .watches()
                .add(dir, crate::base::inotify_changes::mask())
                .ok()?;
            self.folders.insert(dir.to_path_buf(), wd.clone());
            Some(wd)
        }

        /// Answers questions until a change, idleness or the time limit.
        fn listen(&mut self, listener: &UnixListener) {
            let started = Instant::now();
            let mut last = Instant::now();
            let idle = Duration::from_secs(WATCH_IDLE_SECS);
            let most = Duration::from_secs(WATCH_MAX_SECS);
            while last.elapsed() < idle && started.elapsed() < most {
                let wait = idle
                    .saturating_sub(last.elapsed())
                    .min(Duration::from_secs(60));
                let mut fds = [
                    libc::pollfd {
                        fd: self.inotify.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                    libc::pollfd {
                        fd: listener.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ];
                // SAFETY: two initialised pollfds, their count given.
                let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, wait.as_millis() as i32) };
                if ready < 0
                    && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
                {
                    return;
                }
                if self.changed() {
                    return;
                }
                if fds[1].revents & libc::POLLIN != 0 {
                    if let Ok((stream, _)) = listener.accept() {
                        last = Instant::now();
                        if !self.answer(stream) {
                            return;
                        }
                    }
                }
            }
        }

        /// Answers one question (after draining the queue); false when an
        /// input changed.
        fn answer(&mut self, mut stream: UnixStream) -> bool {
            let wait = Some(Duration::from_millis(WATCH_ANSWER_MS));
            let _ = stream.set_read_timeout(wait);
            let _ = stream.set_write_timeout(wait);
            let mut question = [0u8; 8 + super::QUESTION_HEAD];
            if stream.read_exact(&mut question).is_err() {
                return true;
            }
            let changed = self.changed();
            let same = question == self.question;
            let _ = stream.write_all(if same && !changed { b"1" } else { b"0" });
            drop(stream);
            if let Some(sessions) = &self.sessions {
                sessions.top_up_spares();
            }
            !changed
        }

        /// Drains the queue: whether any event could change an input's
        /// stamp or the cache file (or the queue overflowed, or broke).
        fn changed(&mut self) -> bool {
            loop {
                let events = match self.inotify.read_events(&mut self.buffer) {
                    Ok(events) => events,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
                    Err(_) => return true,
                };
                let mut any = false;
                for event in events {
                    any = true;
                    if counts(&self.seen, &event.wd, event.mask, event.name) {
                        return true;
                    }
                }
                if !any {
                    return false;
                }
            }
        }
    }

    /// Whether `path` is on a file system that only this machine changes:
    /// not a network or shared one (NFS, SMB, 9P, virtiofs, FUSE, Ceph,
    /// AFS, Coda), where an edit from elsewhere makes no inotify event.
    fn local(path: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        const REMOTE: [i64; 10] = [
            0x6969,      // NFS
            0x517B,      // SMB
            0xFF53_4D42, // CIFS
            0xFE53_4D42, // SMB2
            0x0102_1997, // 9P
            0x6A65_6A63, // virtiofs
            0x6573_5546, // FUSE
            0x00C3_6400, // Ceph
            0x5346_414F, // AFS
            0x7375_7245, // Coda
        ];
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return false;
        };
        let mut fs = std::mem::MaybeUninit::<libc::statfs>::uninit();
        // SAFETY: a NUL-terminated path, and `fs` read only when filled.
        if unsafe { libc::statfs(c.as_ptr(), fs.as_mut_ptr()) } != 0 {
            return false;
        }
        // SAFETY: statfs returned 0, so it filled `fs`.
        #[allow(clippy::unnecessary_cast)] // `f_type`'s type differs by target
        let kind = unsafe { fs.assume_init() }.f_type as i64;
        !REMOTE.contains(&kind)
    }

    /// Whether one event could change an input's stamp or the cache file.
    fn counts(
        seen: &Seen,
        wd: &WatchDescriptor,
        mask: EventMask,
        name: Option<&std::ffi::OsStr>,
    ) -> bool {
        if mask.contains(EventMask::Q_OVERFLOW) {
            return true;
        }
        let Some(name) = name else {
            // On a watched folder itself: removed, moved, touched.
            return true;
        };
        if *wd == seen.cache_dir && name == seen.cache_name.as_os_str() {
            return true;
        }
        let Some(interest) = seen.interest.get(wd) else {
            return false;
        };
        let children =
            EventMask::CREATE | EventMask::DELETE | EventMask::MOVED_FROM | EventMask::MOVED_TO;
        interest.names.contains(name) || (interest.listed && mask.intersects(children))
    }
}
