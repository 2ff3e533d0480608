//! Where the heap goes when a workdir's rules are loaded: live bytes and
//! allocations of `load` (the rule set plus what reload keeps per file), of
//! the parsed rules alone, and of the compiled rule set built from them, for
//! all rules and for each kind of rule alone.
//!
//! ```text
//! node bench/memory.mjs --write 10000          # prints <dir>
//! cargo run -p memory-rules --release --example heap -- <dir>/work
//! ```

use memory_rules::internals::rules::parser::{parse_rule, ParsedRule};
use memory_rules::sources::Config;
use memory_rules::Workdir;
use memory_rules::{load, RuleSet, Scope};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        COUNT.fetch_add(1, Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
            PEAK.fetch_max(live, Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Live bytes, peak over the start and allocations of `f`'s result.
fn measure<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let (live, count) = (LIVE.load(Relaxed), COUNT.load(Relaxed));
    PEAK.store(live, Relaxed);
    let out = f();
    let kept = LIVE.load(Relaxed) as f64 - live as f64;
    let peak = PEAK.load(Relaxed) - live;
    println!(
        "{what:<40} kept {:>8.2} MiB   peak {:>8.2} MiB   allocations {:>9}",
        kept / 1048576.0,
        peak as f64 / 1048576.0,
        COUNT.load(Relaxed) - count
    );
    out
}

fn main() {
    let workdir = std::env::args().nth(1).expect("usage: heap <workdir>");
    let workdir = Path::new(&workdir);
    let config = Config::with_home(workdir, workdir.join("no-home"));
    let rss0 = rss();
    let loaded = std::thread::scope(|s| {
        // On another thread, as the addon's discovery runs on libuv's pool.
        s.spawn(|| {
            measure("load (rule set + reload's per-file cache)", || {
                load(&config)
            })
        })
        .join()
        .unwrap()
    });
    println!(
        "  {} rules; resident set grew {:.2} MiB",
        loaded.rules.rules().len(),
        (rss() - rss0) / 1048576.0
    );
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe { libc::malloc_trim(0) };
        println!(
            "  after malloc_trim: grew {:.2} MiB",
            (rss() - rss0) / 1048576.0
        );
    }
    drop(loaded);

    let mut files: Vec<_> = walk(&workdir.join(".wave/rules"));
    files.sort();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let id = p.file_name().unwrap().to_string_lossy().into_owned();
            (id, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    let parsed: Vec<ParsedRule> = measure("parsed rules", || {
        texts
            .iter()
            .zip(&files)
            .filter_map(|((id, text), p)| parse_rule(Scope::Project, id, p, text).rule)
            .collect()
    });
    let all = parsed.clone();
    let set = measure("rule set built from them", || {
        RuleSet::build(all, Workdir::new(workdir))
    });
    drop(set);
    type Kind = (&'static str, fn(&ParsedRule) -> bool);
    let kinds: [Kind; 4] = [
        ("  only rules with paths of 2 globs", |r| {
            r.rule.metadata.paths.as_ref().is_some_and(|p| p.len() == 2)
        }),
        ("  only rules with 1 extension glob", |r| {
            r.rule.metadata.paths.as_ref().is_some_and(|p| p.len() == 1)
        }),
        ("  only rules with topics", |r| {
            r.rule.metadata.topics.is_some()
        }),
        ("  only always-on rules", |r| {
            r.rule.metadata.is_unconditional()
        }),
    ];
    for (what, keep) in kinds {
        let some: Vec<ParsedRule> = parsed.iter().filter(|r| keep(r)).cloned().collect();
        let n = some.len();
        let set = measure(&format!("{what} ({n})"), || {
            RuleSet::build(some, Workdir::new(workdir))
        });
        drop(set);
    }
}

/// The resident set in bytes (Linux; 0 elsewhere).
fn rss() -> f64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |pages| pages * 4096.0)
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
