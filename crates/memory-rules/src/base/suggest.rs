//! "Did you mean": the closest known name to a mistyped one.
//!
//! Distances are optimal string alignment (Levenshtein plus adjacent
//! transpositions), case-insensitive, over at most
//! [`MAX_SUGGEST_CHARS`](crate::base::limits::MAX_SUGGEST_CHARS) characters per
//! word: a longer word gets no suggestion, so one comparison costs at most
//! that squared.

use crate::base::limits::MAX_SUGGEST_CHARS;

/// The edit distance between `a` and `b` ignoring case (adjacent
/// transpositions count 1); `None` when either is longer than
/// [`MAX_SUGGEST_CHARS`].
pub fn distance(a: &str, b: &str) -> Option<usize> {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    if a.len() > MAX_SUGGEST_CHARS || b.len() > MAX_SUGGEST_CHARS {
        return None;
    }
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    Some(d[a.len() * w + b.len()])
}

/// How far a word may be from a known one to be called a typo of it: 1 for
/// names up to 5 characters, 2 up to 10, else 3.
pub fn tolerance(known: &str) -> usize {
    match known.chars().count() {
        0..=5 => 1,
        6..=10 => 2,
        _ => 3,
    }
}

/// The candidate closest to `word` within its [`tolerance`] (the first of
/// equally close ones), other than `word` itself written the same way.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        let Some(d) = distance(word, c) else { continue };
        if d <= tolerance(c) && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The candidates within tolerance of `word`, closest first (at most `max`).
pub fn close<'a, I>(word: &str, candidates: I, max: usize) -> Vec<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut found: Vec<(usize, &'a str)> = candidates
        .into_iter()
        .filter(|c| *c != word)
        .filter_map(|c| {
            distance(word, c)
                .filter(|&d| d <= tolerance(c))
                .map(|d| (d, c))
        })
        .collect();
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1);
    found.into_iter().take(max).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_transpositions_ignoring_case() {
        assert_eq!(distance("kitten", "sitting"), Some(3));
        assert_eq!(distance("", "abc"), Some(3));
        assert_eq!(distance("Same", "same"), Some(0));
        assert_eq!(distance("deploi", "depoli"), Some(1));
        assert_eq!(distance(&"x".repeat(MAX_SUGGEST_CHARS + 1), "x"), None);
    }

    #[test]
    fn typos_of_keys() {
        assert_eq!(distance("path", "paths"), Some(1));
        assert_eq!(distance("Paths", "paths"), Some(0));
        assert_eq!(distance("tpoics", "topics"), Some(1));
        assert_eq!(distance("", "abc"), Some(3));
        let keys = ["paths", "priority", "topics", "description"];
        assert_eq!(closest("path", keys), Some("paths"));
        assert_eq!(closest("Topics", keys), Some("topics"));
        assert_eq!(closest("topic", keys), Some("topics"));
        assert_eq!(closest("priorty", keys), Some("priority"));
        assert_eq!(closest("name", keys), None);
        assert_eq!(closest("paths", keys), None);
        assert_eq!(close("cursr", ["cursor", "cline", "kiro"], 3), ["cursor"]);
        assert_eq!(distance(&"x".repeat(MAX_SUGGEST_CHARS + 1), "x"), None);
    }
}
