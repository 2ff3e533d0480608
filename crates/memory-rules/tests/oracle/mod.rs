//! Reference implementations for differential tests (property tests and the
//! fuzz targets share this file): slow and obviously right, for small inputs.

#![allow(dead_code)]

/// minimatch (`{dot: true}`) for patterns over `a b . * ? /` only, against
/// normalized paths: `*` any run within a segment, `?` one character, `**`
/// as a whole segment zero or more segments (one or more at the end;
/// elsewhere it is `*`).
/// `None` when the input is outside what this reference covers.
pub fn glob_match(pattern: &str, path: &str) -> Option<bool> {
    if pattern.is_empty() || !pattern.chars().all(|c| "ab.*?/".contains(c)) {
        return None;
    }
    if pattern.starts_with('/')
        || pattern.ends_with('/')
        || pattern.contains("//")
        || pattern.starts_with("./")
        || pattern == "."
    {
        return None;
    }
    if path.is_empty() || path.starts_with('/') || path.ends_with('/') || path.contains("//") {
        return None;
    }
    let segs: Vec<&str> = path.split('/').collect();
    if segs.iter().any(|s| *s == "." || *s == "..") {
        return None;
    }
    let pats: Vec<&str> = pattern.split('/').collect();
    if pats.iter().any(|s| *s == "." || *s == "..") {
        return None;
    }
    Some(match_segments(&pats, &segs))
}

fn match_segments(pats: &[&str], segs: &[&str]) -> bool {
    match pats.split_first() {
        None => segs.is_empty(),
        // A trailing `**` swallows the rest, but there must be a rest:
        // minimatch's `a/**` matches `a/b`, not `a`.
        Some((&"**", [])) => !segs.is_empty(),
        Some((&"**", rest)) => (0..=segs.len()).any(|k| match_segments(rest, &segs[k..])),
        Some((p, rest)) => {
            !segs.is_empty()
                && match_segment(
                    &p.chars().collect::<Vec<_>>(),
                    &segs[0].chars().collect::<Vec<_>>(),
                )
                && match_segments(rest, &segs[1..])
        }
    }
}

fn match_segment(p: &[char], s: &[char]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some(('*', rest)) => (0..=s.len()).any(|k| match_segment(rest, &s[k..])),
        Some(('?', rest)) => !s.is_empty() && match_segment(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && match_segment(rest, &s[1..]),
    }
}

/// Whether `topic` starts a word of `prompt`, by brute force over every
/// position of the folded prompt.
pub fn topic_fires(topic: &str, prompt: &str) -> bool {
    use memory_rules::internals::matchers::topic_matcher::fold;
    let t = fold(topic);
    if t.is_empty() {
        return false;
    }
    let p = fold(prompt);
    p.char_indices().any(|(i, _)| {
        p[i..].starts_with(&t)
            && p[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
    })
}
