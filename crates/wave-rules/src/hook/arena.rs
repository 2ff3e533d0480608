//! The hook process's allocator: a hook is a process of a few milliseconds
//! that builds its rule set (at 1,000 rules, about ten thousand small
//! allocations) and exits, so its allocations are cut from one block,
//! in order, and never freed one by one: the exit frees them. At 1,000
//! rules glibc's `malloc` and `free` took about a quarter of a hook's
//! instructions.
//!
//! Only the binary installs it (`main.rs`), and turns it on
//! ([`Arena::start`]) only for a hook event, never for the long-lived
//! commands (`hook watch`, `mcp`, `lsp`), which would grow without end.
//! It holds at most [`ARENA_BYTES`]; past that, and before it is turned
//! on, every allocation is the system allocator's, as is every free of
//! memory the arena did not give.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most one process's arena gives (64 MiB), taken from the system as
/// one zeroed block: its pages are only made resident as they are used.
pub const ARENA_BYTES: usize = 64 << 20;

/// The largest block the arena gives: larger ones (the lists that grow,
/// the files read) are few, and the system allocator reuses what they free.
pub static SMALL: AtomicUsize = AtomicUsize::new(usize::MAX);

/// A bump allocator over one block, falling back to [`System`].
pub struct Arena {
    /// The block's first byte (0 while off).
    start: AtomicUsize,
    /// The next free byte: everything from here to the end is untouched,
    /// and so still zero.
    next: AtomicUsize,
}

impl Arena {
    /// An arena that is off: every call goes to [`System`].
    pub const fn new() -> Arena {
        Arena {
            start: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
        }
    }

    /// Turns the arena on (once; later calls do nothing). A block that
    /// cannot be had leaves it off.
    pub fn start(&self) {
        if self.start.load(Ordering::Acquire) != 0 {
            return;
        }
        // Aligned as `calloc` gives, so that std asks `calloc`, which
        // leaves a fresh mapping's pages untouched (a wider alignment is
        // zeroed by hand, page by page); the arena aligns each block.
        let Ok(layout) = Layout::from_size_align(ARENA_BYTES, 16) else {
            return;
        };
        // SAFETY: the layout is not zero-sized.
        let block = unsafe { System.alloc_zeroed(layout) } as usize;
        if block == 0 {
            return;
        }
        let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<usize>().ok());
        if let Some(n) = env("WAVE_ARENA_SMALL") {
            SMALL.store(n, Ordering::Relaxed);
        }
        if let Some(n) = env("WAVE_ARENA_PREFAULT") {
            #[cfg(target_os = "linux")]
            unsafe {
                let page = block & !4095;
                libc::madvise(page as *mut libc::c_void, n, 23);
            }
        }
        self.next.store(block, Ordering::Relaxed);
        self.start.store(block, Ordering::Release);
    }

    /// How many bytes the arena has given (0 while off).
    pub fn used(&self) -> usize {
        let start = self.start.load(Ordering::Acquire);
        if start == 0 {
            0
        } else {
            self.next.load(Ordering::Relaxed) - start
        }
    }

    /// Whether `p` was given by the arena.
    fn owns(&self, p: *mut u8) -> bool {
        let start = self.start.load(Ordering::Acquire);
        start != 0 && (start..start + ARENA_BYTES).contains(&(p as usize))
    }

    /// `layout`'s room cut from the block, or `None` when the arena is
    /// off or full.
    fn bump(&self, layout: Layout) -> Option<*mut u8> {
        let start = self.start.load(Ordering::Acquire);
        if start == 0 || layout.size() > SMALL.load(Ordering::Relaxed) {
            return None;
        }
        let end = start + ARENA_BYTES;
        let align = layout.align();
        let mut next = self.next.load(Ordering::Relaxed);
        loop {
            let at = next.checked_add(align - 1)? & !(align - 1);
            let after = at.checked_add(layout.size())?;
            if after > end {
                return None;
            }
            match self
                .next
                .compare_exchange_weak(next, after, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(at as *mut u8),
                Err(now) => next = now,
            }
        }
    }
}

impl Default for Arena {
    fn default() -> Arena {
        Arena::new()
    }
}

// SAFETY: every block given is `layout`'s size and alignment, from the
// arena (never given twice: the cursor only moves forward) or from
// `System`; each free, grow or shrink goes back to whichever gave it.
unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.bump(layout) {
            Some(p) => p,
            None => System.alloc(layout),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // What the arena gives is past every byte it gave before: zero.
        match self.bump(layout) {
            Some(p) => p,
            None => System.alloc_zeroed(layout),
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if !self.owns(p) {
            System.dealloc(p, layout)
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.owns(p) {
            return System.realloc(p, layout, new_size);
        }
        if new_size <= layout.size() {
            return p;
        }
        // The last block given grows in place.
        let (end, start) = (p as usize + layout.size(), p as usize);
        let limit = self.start.load(Ordering::Acquire) + ARENA_BYTES;
        if start + new_size <= limit
            && self
                .next
                .compare_exchange(end, start + new_size, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            return p;
        }
        // SAFETY: the caller guarantees `new_size` with `layout`'s alignment is a valid layout.
        let grown = Layout::from_size_align_unchecked(new_size, layout.align());
        let q = self.alloc(grown);
        if !q.is_null() {
            std::ptr::copy_nonoverlapping(p, q, layout.size());
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn an_arena_that_is_off_gives_the_system_allocators_memory() {
        let arena = Arena::new();
        unsafe {
            let p = arena.alloc(layout(64, 8));
            assert!(!p.is_null() && !arena.owns(p));
            arena.dealloc(p, layout(64, 8));
        }
    }

    #[test]
    fn a_started_arena_gives_aligned_blocks_in_order_and_zeroed() {
        let arena = Arena::new();
        arena.start();
        unsafe {
            let a = arena.alloc(layout(3, 1));
            let b = arena.alloc_zeroed(layout(40, 16));
            assert!(arena.owns(a) && arena.owns(b));
            assert_eq!(b as usize % 16, 0, "aligned");
            assert!(b as usize >= a as usize + 3, "after the first");
            assert!(std::slice::from_raw_parts(b, 40).iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn the_last_block_grows_in_place_and_another_moves_with_its_bytes() {
        let arena = Arena::new();
        arena.start();
        unsafe {
            let a = arena.alloc(layout(8, 8));
            a.write_bytes(7, 8);
            let grown = arena.realloc(a, layout(8, 8), 32);
            assert_eq!(grown, a, "the last block grows where it is");
            let b = arena.alloc(layout(8, 8));
            let moved = arena.realloc(grown, layout(32, 8), 64);
            assert!(moved != grown && moved as usize > b as usize);
            assert_eq!(std::slice::from_raw_parts(moved, 8), &[7; 8]);
        }
    }

    #[test]
    fn a_full_arena_falls_back_to_the_system_allocator() {
        let arena = Arena::new();
        arena.start();
        unsafe {
            let big = arena.alloc(layout(ARENA_BYTES - 64, 8));
            assert!(arena.owns(big));
            let next = arena.alloc(layout(128, 8));
            assert!(!next.is_null() && !arena.owns(next), "from the system");
            arena.dealloc(next, layout(128, 8));
            let grown = arena.realloc(big, layout(ARENA_BYTES - 64, 8), ARENA_BYTES);
            assert!(!grown.is_null() && !arena.owns(grown));
            arena.dealloc(grown, layout(ARENA_BYTES, 8));
        }
    }
}
