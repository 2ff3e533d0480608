//! A search of the current entries: without those a newer entry
//! superseded (their metadata's `superseded_by` names an entry still in
//! the index), for every caller that gives entries to a reader (recall,
//! the `memory_search` tool, `memory search`, `MemoryStore.search`).

use super::{MemoryHit, MemoryIndex, Query};

/// A search without the entries a newer one superseded (their metadata's
/// `superseded_by` names an entry still there): the best `query.limit` of
/// the best twice as many.
pub fn search_current(
    index: &MemoryIndex,
    query: &Query<'_>,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<MemoryHit> {
    let wider = Query {
        limit: query.limit.saturating_mul(2),
        ..*query
    };
    let mut hits = without_superseded(index, index.search(&wider, skip));
    hits.truncate(query.limit);
    hits
}

/// `hits` without the entries a newer entry superseded.
pub fn without_superseded(index: &MemoryIndex, hits: Vec<MemoryHit>) -> Vec<MemoryHit> {
    hits.into_iter()
        .filter(|h| {
            !h.superseded_by
                .as_deref()
                .is_some_and(|n| index.find_exact(n))
        })
        .collect()
}
