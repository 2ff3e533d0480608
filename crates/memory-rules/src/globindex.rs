//! Every glob of every rule, indexed so that a path meets only the globs
//! that could match it.
//!
//! A plain `GlobSet` tests globs that share an extension one regex at a time,
//! so its cost per path grows with the number of globs. (The rule set stores
//! identical globs once, so each glob here is unique.) To keep the cost flat
//! as rules grow, globs are grouped by their literal directory prefix: the leading path
//!   segments without glob syntax, before the last segment (`crates/core` in
//!   `crates/core/**/*.rs`). A path is matched only against the groups of
//!   its own directory prefixes (`a`, `a/b`, ... for `a/b/c.ts`: a few hash
//!   lookups) and the group of globs with no such prefix (`**/*.md`).
//!   (The pattern compiler expands a leading `{a,b}/...` so that each
//!   alternative gets its prefix.)
//!
//! Matching is the same as one `GlobSet` over all globs; only the work
//! differs.

use globset::{Candidate, Glob, GlobSet, GlobSetBuilder};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// One group of globs.
#[derive(Debug)]
struct Group {
    set: GlobSet,
    /// For each glob of `set`: the id it was added with.
    ids: Vec<u32>,
}

/// Globs indexed by literal directory prefix.
#[derive(Debug, Default)]
pub struct GlobIndex {
    /// Globs with a literal directory prefix, by that prefix (a fast hash:
    /// these lookups are on the per-message path).
    by_prefix: FxHashMap<String, Group>,
    /// The most segments any prefix has: deeper prefixes are not looked up.
    max_depth: usize,
    /// Globs without one.
    rest: Option<Group>,
}

/// The leading segments of a glob that are plain text (no glob syntax),
/// before its last segment: `crates/core` for `crates/core/**/*.rs`.
fn literal_prefix(glob: &str) -> Option<&str> {
    let plain = |seg: &str| !seg.is_empty() && !seg.contains(['*', '?', '[', ']', '{', '}', '\\', ',']);
    let segments: Vec<&str> = glob.split('/').collect();
    let mut end = None;
    let mut offset = 0;
    for seg in &segments[..segments.len().saturating_sub(1)] {
        if !plain(seg) {
            break;
        }
        offset += seg.len();
        end = Some(offset);
        offset += 1;
    }
    end.map(|e| &glob[..e])
}

impl GlobIndex {
    /// Builds the index from `(glob, id)` pairs. A group globset refuses (it
    /// never should: each glob was built alone first) is left out.
    pub fn build(globs: impl IntoIterator<Item = (Glob, u32)>) -> GlobIndex {
        let mut grouped: HashMap<Option<String>, Vec<(Glob, u32)>> = HashMap::new();
        for (glob, id) in globs {
            let key = literal_prefix(glob.glob()).map(str::to_string);
            grouped.entry(key).or_default().push((glob, id));
        }
        let mut index = GlobIndex::default();
        for (key, globs) in grouped {
            let mut builder = GlobSetBuilder::new();
            let mut ids = Vec::with_capacity(globs.len());
            for (glob, id) in globs {
                builder.add(glob);
                ids.push(id);
            }
            let Ok(set) = builder.build() else { continue };
            let group = Group { set, ids };
            match key {
                Some(k) => {
                    index.max_depth = index.max_depth.max(k.split('/').count());
                    index.by_prefix.insert(k, group);
                }
                None => index.rest = Some(group),
            }
        }
        index
    }

    /// Appends the ids of the globs that match `path` to `out`. `scratch` is
    /// reused between calls to avoid allocating.
    pub fn matching(&self, path: &str, scratch: &mut Vec<usize>, out: &mut Vec<u32>) {
        let candidate = Candidate::new(path);
        let slashes = path.bytes().enumerate().filter(|&(_, b)| b == b'/').map(|(i, _)| i);
        let prefixes = slashes.take(self.max_depth).map(|i| &path[..i]);
        let groups = prefixes.filter_map(|p| self.by_prefix.get(p)).chain(self.rest.as_ref());
        for group in groups {
            group.set.matches_candidate_into(&candidate, scratch);
            out.extend(scratch.iter().map(|&g| group.ids[g]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(s: &str) -> Glob {
        globset::GlobBuilder::new(s).literal_separator(true).build().unwrap()
    }

    #[test]
    fn same_answers_as_one_globset() {
        let texts = ["src/**/*.ts", "**/*.md", "docs/*.md", "*.md", "{a,b}/**", "src", "packages/*/tests/**", "src/lib/**", "src/lib/x.ts", "src/lib"];
        let index = GlobIndex::build(texts.iter().enumerate().map(|(i, t)| (glob(t), i as u32)));
        assert!(index.by_prefix.contains_key("src") && index.by_prefix.contains_key("src/lib"));
        let mut all = GlobSetBuilder::new();
        for t in &texts {
            all.add(glob(t));
        }
        let all = all.build().unwrap();
        for path in ["src/a/b.ts", "src", "docs/x.md", "x.md", "a/q", "packages/p/tests/t.rs", "nothing", "src/lib/x.ts", "src/lib", "src/lib/deep/y.ts", "src/f3/z", "src/lib/g7.ts"] {
            let mut got = Vec::new();
            index.matching(path, &mut Vec::new(), &mut got);
            got.sort();
            let want: Vec<u32> = all.matches(path).into_iter().map(|i| i as u32).collect();
            assert_eq!(got, want, "{path}");
        }
    }

    #[test]
    fn literal_prefixes() {
        assert_eq!(literal_prefix("crates/**/*.rs"), Some("crates"));
        assert_eq!(literal_prefix("crates/core/src/**"), Some("crates/core/src"));
        assert_eq!(literal_prefix("docs/guide/intro.md"), Some("docs/guide"));
        assert_eq!(literal_prefix("**/*.rs"), None);
        assert_eq!(literal_prefix("{a,b}/x"), None);
        assert_eq!(literal_prefix("README.md"), None);
        assert_eq!(literal_prefix("a\\*b/x"), None);
    }
}
