//! A query's terms as postings, and a document's score as the sum, in the
//! query's term order, of what each term holding it adds
//! ([`Postings::score`]): for every document ([`scores`], one pass over each
//! term's postings into an accumulator per document) or for one
//! ([`score_of`], a search of each term's postings). Nothing here knows how
//! a term scores: the ranking gives the terms (BM25 words, the file ties).
//!
//! MaxScore pruning (Turtle and Flood, 1995) was tried here and measured
//! slower on the 10,000-entry bench (docs/PERFORMANCE.md): visiting
//! documents one at a time across the terms costs more than adding every
//! posting, when a file in context ties most entries.

/// One term of a query: the documents holding it, ascending, and what it
/// adds to each.
pub(super) trait Postings {
    /// How many documents hold it.
    fn len(&self) -> usize;
    /// The document of posting `i` (ascending in `i`).
    fn doc(&self, i: usize) -> usize;
    /// What posting `i` adds to its document's score (above 0).
    fn score(&self, i: usize) -> f32;
    /// Adds what each posting adds to its document's sum in `acc` (those
    /// past its end left out), in posting order.
    fn add_to(&self, acc: &mut [f32]) {
        for i in 0..self.len() {
            if let Some(a) = acc.get_mut(self.doc(i)) {
                *a += self.score(i);
            }
        }
    }
}

/// Postings given as (document, score) pairs, ascending by document (the
/// file ties of a scope).
impl Postings for Vec<(usize, f32)> {
    fn len(&self) -> usize {
        <[(usize, f32)]>::len(self)
    }
    fn doc(&self, i: usize) -> usize {
        self[i].0
    }
    fn score(&self, i: usize) -> f32 {
        self[i].1
    }
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

/// Each document's score (0: it holds no term), the terms added in order;
/// empty when there are no terms.
pub(super) fn sums(terms: &[&dyn Postings], n_docs: usize) -> Vec<f32> {
    if terms.is_empty() {
        return Vec::new();
    }
    let mut acc = vec![0.0f32; n_docs];
    for t in terms {
        t.add_to(&mut acc);
    }
    acc
}

/// Every document holding a term, with its score, in document order.
#[cfg(test)]
pub(super) fn scores(terms: &[&dyn Postings], n_docs: usize) -> Vec<(f32, usize)> {
    let acc = sums(terms, n_docs);
    let mut out = Vec::with_capacity(acc.iter().filter(|s| **s > 0.0).count());
    out.extend(
        acc.into_iter()
            .enumerate()
            .filter(|(_, s)| *s > 0.0)
            .map(|(d, s)| (s, d)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (no dependency).
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn every_document_holding_a_term_is_scored_as_its_own_lookup_scores_it() {
        let mut seed = 7;
        for round in 0..200 {
            let n_docs = 50 + (lcg(&mut seed) % 400) as usize;
            let n_terms = 1 + (lcg(&mut seed) % 6) as usize;
            let terms: Vec<Vec<(usize, f32)>> = (0..n_terms)
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
                    postings
                })
                .collect();
            let refs: Vec<&dyn Postings> = terms.iter().map(|t| t as &dyn Postings).collect();
            let all = scores(&refs, n_docs);
            assert!(
                all.windows(2).all(|w| w[0].1 < w[1].1),
                "round {round}: document order"
            );
            for &(s, d) in &all {
                assert!(s > 0.0);
                assert_eq!(
                    score_of(&refs, d).to_bits(),
                    s.to_bits(),
                    "round {round}, doc {d}"
                );
            }
            let held: usize = (0..n_docs)
                .filter(|&d| terms.iter().any(|t| t.iter().any(|p| p.0 == d)))
                .count();
            assert_eq!(
                all.len(),
                held,
                "round {round}: every document holding a term"
            );
        }
    }
}
