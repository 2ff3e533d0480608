//! Work over many files on a few threads, in order.

pub use crate::base::limits::MAX_IO_THREADS;

/// `f` over `items`, in order, on up to [`MAX_IO_THREADS`] threads (the
/// cores there are): file creation is the kernel's work, per file, so two
/// cores create twice the files. One thread for few items, and on
/// WebAssembly (no threads).
pub(super) fn par_map<T: std::marker::Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + std::marker::Sync,
) -> Vec<R> {
    const PER_THREAD: usize = 64;
    let threads = crate::base::fs::worker_threads(MAX_IO_THREADS)
        .min(items.len().div_ceil(PER_THREAD))
        .max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}
