//! When the server must look at the rule files again.
//!
//! A stamp check of every rule file (`memory_rules::reload`) costs about as
//! much as the rest of a tool call at 200 rules (a walk and two `stat`s per
//! file). On Linux an inotify watch on every rules directory (and every rule
//! file, so a symlinked file's target counts) answers "did anything change?"
//! with one non-blocking `read`: the kernel queues the event inside the
//! write itself, so an edit that finished before a request was sent is seen
//! by that request. The stamp check runs only after an event. Where the
//! watch cannot be set up (another OS, the inotify limits, a source walked at
//! any depth over more than [`MAX_WATCHED_DIRS`] directories), every answer
//! does the stamp check, as before.

use memory_rules::Loaded;

use memory_rules::sources::Config;

pub use memory_rules::base::limits::MAX_WATCHED_DIRS;

/// Decides whether a reload is needed before an answer.
pub struct Freshness {
    #[cfg(target_os = "linux")]
    watch: Option<linux::Watch>,
}

impl Freshness {
    /// Watches the sources' directories (no watch where unsupported). Set
    /// it up before reading the rules, then [`Freshness::add_files`], so an
    /// edit made while they are read is not missed.
    pub fn new(config: &Config) -> Freshness {
        #[cfg(target_os = "linux")]
        {
            Freshness {
                watch: linux::Watch::new(config),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = config;
            Freshness {}
        }
    }

    /// Watches the rule files read (a symlinked file's target is elsewhere).
    pub fn add_files(&mut self, loaded: &Loaded) {
        #[cfg(target_os = "linux")]
        if let Some(w) = &mut self.watch {
            if !w.add_files(loaded) {
                self.watch = None;
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = loaded;
    }

    /// Whether something may have changed since the watch was set (always
    /// true without a watch). After true: a new [`Freshness`], the reload,
    /// then [`Freshness::add_files`].
    pub fn maybe_changed(&mut self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.watch.as_mut().is_none_or(linux::Watch::has_events)
        }
        #[cfg(not(target_os = "linux"))]
        {
            true
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::MAX_WATCHED_DIRS;
    use inotify::Inotify;
    use memory_rules::sources::Config;
    use memory_rules::Loaded;
    use std::collections::HashSet;
    use std::path::{Path, PathBuf};

    pub struct Watch {
        inotify: Inotify,
        buffer: Vec<u8>,
    }

    /// The closest ancestor of `dir` that exists (to see it created).
    fn existing(dir: &Path) -> Option<PathBuf> {
        dir.ancestors().find(|a| a.is_dir()).map(Path::to_path_buf)
    }

    impl Watch {
        pub fn new(config: &Config) -> Option<Watch> {
            let mut dirs: HashSet<PathBuf> = HashSet::new();
            // The packs' and the policy's folders too, and the folders of
            // the config files that name them (a pack added or dropped).
            for dir in [Some(config.workdir.join(".wave")), config.policy.clone()]
                .into_iter()
                .flatten()
                .filter(|d| d.is_dir())
            {
                dirs.insert(dir);
            }
            for source in &memory_rules::sources::packs::layers(config).sources {
                if !source.dir.is_dir() {
                    dirs.insert(existing(&source.dir)?);
                    continue;
                }
                let depth = source.depth.unwrap_or(usize::MAX);
                for entry in walkdir::WalkDir::new(&source.dir)
                    .follow_links(true)
                    .max_depth(depth)
                {
                    let Ok(entry) = entry else { continue };
                    if entry.file_type().is_dir() {
                        dirs.insert(entry.into_path());
                        if dirs.len() > MAX_WATCHED_DIRS {
                            return None;
                        }
                    }
                }
            }
            let inotify = Inotify::init().ok()?;
            let mut watches = inotify.watches();
            for dir in &dirs {
                watches
                    .add(dir, crate::base::inotify_changes::mask())
                    .ok()?;
            }
            Some(Watch {
                inotify,
                buffer: vec![0; 4096],
            })
        }

        /// False when a watch could not be added.
        pub fn add_files(&mut self, loaded: &Loaded) -> bool {
            let mut watches = self.inotify.watches();
            let files = loaded
                .rules
                .rules()
                .iter()
                .map(|r| r.file_path.clone())
                .chain(
                    loaded
                        .diagnostics
                        .iter()
                        .map(|d| PathBuf::from(&d.file_path)),
                );
            for file in files {
                if file.is_symlink()
                    && file.is_file()
                    && watches
                        .add(&file, crate::base::inotify_changes::mask())
                        .is_err()
                {
                    return false;
                }
            }
            true
        }

        /// Drains the queue; true if anything (or an overflow) was queued,
        /// or the watch broke.
        pub fn has_events(&mut self) -> bool {
            let mut any = false;
            loop {
                match self.inotify.read_events(&mut self.buffer) {
                    Ok(events) => {
                        let n = events.count();
                        if n == 0 {
                            return any;
                        }
                        any = true;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return any,
                    Err(_) => return true,
                }
            }
        }
    }
}
