//! The repository tree the report draws: every file a search tool would
//! look at (ripgrep's `ignore` walk: `.gitignore`, `.ignore` and
//! `.git/info/exclude` honoured, also outside a git repository; hidden files
//! included, `.git` itself left out; links not followed), relative to the
//! project root, `/`-separated, sorted.

use memory_rules::base::limits::{MAX_REPORT_DEPTH, MAX_REPORT_FILES, MAX_REPORT_THREADS};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The files found.
pub struct Walked {
    /// Relative, `/`-separated, sorted.
    pub files: Vec<String>,
    /// A limit stopped the walk: which one.
    pub truncated: Option<String>,
}

pub fn walk(root: &Path) -> Walked {
    let threads = memory_rules::base::fs::worker_threads(MAX_REPORT_THREADS);
    let found: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let count = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let mut builder =
        memory_rules::base::fs::project_walk(root, MAX_REPORT_DEPTH, MAX_REPORT_THREADS);
    builder.filter_entry(|e| e.depth() == 0 || e.file_name() != ".git");
    let prefix = root.as_os_str().len();
    // One visitor for both walks: it files each entry into `batch`.
    let visit = |entry: Result<ignore::DirEntry, ignore::Error>, batch: &mut Vec<String>| {
        use ignore::WalkState;
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        if count.fetch_add(1, Ordering::Relaxed) >= MAX_REPORT_FILES {
            stopped.store(true, Ordering::Relaxed);
            return WalkState::Quit;
        }
        let full = entry.path().as_os_str();
        let rel = &full.as_encoded_bytes()[(prefix + 1).min(full.len())..];
        let rel = String::from_utf8_lossy(rel);
        batch.push(if std::path::MAIN_SEPARATOR == '/' {
            rel.into_owned()
        } else {
            rel.replace(std::path::MAIN_SEPARATOR, "/")
        });
        WalkState::Continue
    };
    if threads == 1 {
        // One thread (WebAssembly has no threads to spawn): the plain walk.
        let mut batch = Vec::new();
        for entry in builder.build() {
            if visit(entry, &mut batch) == ignore::WalkState::Quit {
                break;
            }
        }
        found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .append(&mut batch);
    } else {
        let visit = &visit;
        builder.build_parallel().run(|| {
            // Each thread collects a batch and hands it over at the end (on drop).
            struct Flush<'a> {
                batch: Vec<String>,
                into: &'a Mutex<Vec<String>>,
            }
            impl Drop for Flush<'_> {
                fn drop(&mut self) {
                    let mut all = self.into.lock().unwrap_or_else(|e| e.into_inner());
                    all.append(&mut self.batch);
                }
            }
            let mut flush = Flush {
                batch: Vec::new(),
                into: &found,
            };
            Box::new(move |entry| visit(entry, &mut flush.batch))
        });
    }
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort_unstable();
    Walked {
        files,
        truncated: stopped
            .load(Ordering::Relaxed)
            .then(|| format!("the walk stopped at {MAX_REPORT_FILES} files (MAX_REPORT_FILES)")),
    }
}
