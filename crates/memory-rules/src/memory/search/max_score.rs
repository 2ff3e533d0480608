//! The best documents of a query without scoring every document that holds
//! one of its words: MaxScore pruning (Turtle and Flood, 1995).
//!
//! A document's score is the sum, in the query's term order, of what each
//! term holding it adds ([`Postings::score`]); each term knows the most it
//! adds to any document ([`Postings::upper_bound`]). Terms are taken from the
//! smallest bound up: while the bounds of the first few add up to less than
//! the `k`-th best score found so far ([`Floor`]), a document holding only
//! those can never reach the best `k`, so only the documents of the other
//! terms are visited, and the first few are looked up in them (a forward
//! search of their postings). A visited document whose bounds cannot reach
//! the floor is not scored.
//!
//! The result is exact: every document scoring at least the final `k`-th
//! best score is returned, with the very score the exhaustive sum
//! ([`exhaustive`]) gives it (the same additions in the same order), so
//! ties are broken as before. Nothing here knows how a term scores: the
//! ranking gives the terms (BM25 words, the file ties).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One term of a query: the documents holding it, ascending, and what it
/// adds to each.
pub(super) trait Postings {
    /// How many documents hold it.
    fn len(&self) -> usize;
    /// The document of posting `i` (ascending in `i`).
    fn doc(&self, i: usize) -> usize;
    /// What posting `i` adds to its document's score (above 0).
    fn score(&self, i: usize) -> f32;
    /// At least [`Postings::score`] of every posting.
    fn upper_bound(&self) -> f32;
}

/// A bound is compared with this much to spare: a sum of bounds added in
/// another order than the score may differ in its last bits.
const SLACK: f32 = 1e-4;

/// The `k` best scores seen so far, across calls (the scopes of one
/// search): the floor a document must reach.
pub(super) struct Floor {
    k: usize,
    best: BinaryHeap<Reverse<OrderedScore>>,
}

#[derive(Clone, Copy)]
struct OrderedScore(f32);
impl PartialEq for OrderedScore {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for OrderedScore {}
impl PartialOrd for OrderedScore {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrderedScore {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl Floor {
    pub(super) fn new(k: usize) -> Floor {
        Floor {
            k: k.max(1),
            best: BinaryHeap::with_capacity(k.max(1) + 1),
        }
    }

    /// The `k`-th best score seen, 0 until `k` were seen.
    pub(super) fn value(&self) -> f32 {
        if self.best.len() < self.k {
            0.0
        } else {
            self.best.peek().map_or(0.0, |s| s.0 .0)
        }
    }

    fn push(&mut self, score: f32) {
        if self.best.len() < self.k {
            self.best.push(Reverse(OrderedScore(score)));
        } else if score > self.value() {
            self.best.pop();
            self.best.push(Reverse(OrderedScore(score)));
        }
    }

    /// Whether a document whose score is at most `bound` cannot reach the
    /// floor.
    fn excludes(&self, bound: f32) -> bool {
        bound * (1.0 + SLACK) < self.value()
    }
}

/// The documents of `terms` that may be among the best `floor.k` (every
/// one scoring at least the final floor is), with their scores, in
/// document order; and whether some document was left unscored.
pub(super) fn top_k(terms: &[&dyn Postings], floor: &mut Floor) -> (Vec<(f32, usize)>, bool) {
    let bound: Vec<f32> = terms.iter().map(|t| t.upper_bound()).collect();
    let len: Vec<usize> = terms.iter().map(|t| t.len()).collect();
    // Terms by bound, smallest first, and the sums of the bounds before each.
    let mut order: Vec<usize> = (0..terms.len()).collect();
    order.sort_by(|&a, &b| bound[a].total_cmp(&bound[b]));
    let mut below = vec![0.0f32; order.len() + 1];
    for (i, &t) in order.iter().enumerate() {
        below[i + 1] = below[i] + bound[t];
    }
    let mut at = vec![0usize; terms.len()];
    // The document at each term's cursor (past the end: none).
    let doc_at = |t: usize, i: usize| {
        if i < len[t] {
            terms[t].doc(i)
        } else {
            usize::MAX
        }
    };
    let mut cur: Vec<usize> = (0..terms.len()).map(|t| doc_at(t, 0)).collect();
    let mut out = Vec::new();
    let mut pruned = false;
    // order[..first]: the terms a document of its own cannot reach the floor with.
    let mut first = 0;
    loop {
        while first < order.len() && floor.excludes(below[first + 1]) {
            first += 1;
            pruned = true;
        }
        let d = order[first..]
            .iter()
            .map(|&t| cur[t])
            .min()
            .unwrap_or(usize::MAX);
        if d == usize::MAX {
            break;
        }
        let mut reach = below[first];
        for &t in &order[first..] {
            if cur[t] == d {
                reach += terms[t].score(at[t]) * (1.0 + SLACK);
            }
        }
        if floor.excludes(reach) {
            pruned = true;
        } else {
            for &t in &order[..first] {
                at[t] = seek(terms[t], at[t], d);
                cur[t] = doc_at(t, at[t]);
            }
            let mut score = 0.0f32;
            for t in 0..terms.len() {
                if cur[t] == d {
                    score += terms[t].score(at[t]);
                }
            }
            if score > 0.0 && !floor.excludes(score) {
                floor.push(score);
                out.push((score, d));
            }
        }
        for &t in &order[first..] {
            if cur[t] == d {
                at[t] += 1;
                cur[t] = doc_at(t, at[t]);
            }
        }
    }
    (out, pruned)
}

/// The score of `d` (the terms whose posting at `at` is `d` add theirs, in
/// term order).
fn sum_at(terms: &[&dyn Postings], at: &[usize], d: usize) -> f32 {
    let mut score = 0.0f32;
    for (t, &i) in terms.iter().zip(at) {
        if i < t.len() && t.doc(i) == d {
            score += t.score(i);
        }
    }
    score
}

/// The first posting at or after `from` whose document is at least `d`
/// (galloping, then a binary search).
fn seek(term: &dyn Postings, from: usize, d: usize) -> usize {
    let n = term.len();
    if from >= n || term.doc(from) >= d {
        return from;
    }
    let mut step = 1;
    let mut lo = from;
    while lo + step < n && term.doc(lo + step) < d {
        lo += step;
        step *= 2;
    }
    let mut hi = (lo + step).min(n);
    lo += 1;
    while lo < hi {
        let mid = (lo + hi) / 2;
        if term.doc(mid) < d {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The score of document `d` alone (for the few documents returned).
pub(super) fn score_of(terms: &[&dyn Postings], d: usize) -> f32 {
    let at: Vec<usize> = terms.iter().map(|t| seek(*t, 0, d)).collect();
    sum_at(terms, &at, d)
}

/// Every document holding a term, with its score, in document order: what
/// [`top_k`] prunes (its reference in the tests).
pub(super) fn exhaustive(terms: &[&dyn Postings], n_docs: usize) -> Vec<(f32, usize)> {
    let mut acc = vec![0.0f32; n_docs];
    for t in terms {
        for i in 0..t.len() {
            if let Some(a) = acc.get_mut(t.doc(i)) {
                *a += t.score(i);
            }
        }
    }
    acc.into_iter()
        .enumerate()
        .filter(|(_, s)| *s > 0.0)
        .map(|(d, s)| (s, d))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<(usize, f32)>);
    impl Postings for Fixed {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn doc(&self, i: usize) -> usize {
            self.0[i].0
        }
        fn score(&self, i: usize) -> f32 {
            self.0[i].1
        }
        fn upper_bound(&self) -> f32 {
            self.0.iter().map(|p| p.1).fold(0.0, f32::max)
        }
    }

    /// A small deterministic generator (no dependency).
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn the_pruned_best_k_are_the_exhaustive_best_k_with_the_same_scores() {
        let mut seed = 7;
        for round in 0..200 {
            let n_docs = 50 + (lcg(&mut seed) % 400) as usize;
            let n_terms = 1 + (lcg(&mut seed) % 6) as usize;
            let terms: Vec<Fixed> = (0..n_terms)
                .map(|_| {
                    let every = 1 + lcg(&mut seed) % 12;
                    let weight = 0.1 + (lcg(&mut seed) % 50) as f32 / 10.0;
                    let mut postings = Vec::new();
                    for d in 0..n_docs {
                        if lcg(&mut seed).is_multiple_of(every) {
                            let tf = (1 + lcg(&mut seed) % 4) as f32;
                            postings.push((d, weight * tf / 4.0));
                        }
                    }
                    Fixed(postings)
                })
                .collect();
            let refs: Vec<&dyn Postings> = terms.iter().map(|t| t as &dyn Postings).collect();
            let k = 1 + (lcg(&mut seed) % 20) as usize;
            let mut all = exhaustive(&refs, n_docs);
            let mut floor = Floor::new(k);
            let (mut found, _) = top_k(&refs, &mut floor);
            let bar = floor.value();
            found.retain(|f| f.0 >= bar);
            all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let kth = all.get(k - 1).map_or(0.0, |x| x.0);
            let expected: Vec<(f32, usize)> = all.iter().copied().filter(|x| x.0 >= kth).collect();
            found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            assert_eq!(found, expected, "round {round}, k {k}");
            for &(s, d) in &expected {
                assert_eq!(score_of(&refs, d).to_bits(), s.to_bits());
            }
        }
    }
}
