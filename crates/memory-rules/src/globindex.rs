//! Every glob of every rule, indexed so that the cost of matching a path
//! hardly depends on how many globs there are.
//!
//! A plain `GlobSet` tests globs that share an extension one regex at a time,
//! so its cost per path grows with the number of globs. (The rule set stores
//! identical globs once, so each glob here is unique.) Nearly every glob in
//! real rule files has one of four shapes, which become hash lookups:
//!
//! | shape | example | matches when |
//! | --- | --- | --- |
//! | `P` | `docs/README.md` | the path is `P` |
//! | `**/*S` | `**/*.test.ts` | the file name ends with `S` (a `.`-suffix) |
//! | `P/**` | `src/**` | the path is under `P` |
//! | `P/**/*S` | `crates/core/**/*.rs` | under `P`, and the file name ends with `S` |
//!
//! where `P` and `S` are plain text. A path looks up itself, the `.`-suffixes
//! of its file name, and its directory prefixes (`a`, `a/b`, ... up to the
//! deepest prefix any glob has). Globs of other shapes are grouped into
//! `GlobSet`s by their literal directory prefix (`packages` for
//! `packages/*/tests/**`), matched only for paths under that prefix, plus one
//! `GlobSet` for globs without one. The answers are those of one `GlobSet`
//! over all globs (a test checks it); only the work differs.

use globset::{Candidate, Glob, GlobSet, GlobSetBuilder};
use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input, PatternID};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// One `GlobSet` of globs of other shapes.
#[derive(Debug)]
struct Group {
    set: GlobSet,
    /// For each glob of `set`: the id it was added with.
    ids: Vec<u32>,
}

/// What is known under one directory prefix `P`.
#[derive(Debug, Default)]
struct Node {
    /// `P/**`
    under: Vec<u32>,
    /// `P/**/*S`: (S, id)
    suffixes: Vec<(String, u32)>,
    /// Other globs whose literal directory prefix is `P`: (pattern of
    /// `GlobIndex::prefixed`, id).
    others: Vec<(u32, u32)>,
    /// The same, when `GlobIndex::prefixed` could not be built.
    group: Option<Group>,
}

/// Globs indexed by shape and prefix.
#[derive(Debug, Default)]
pub struct GlobIndex {
    /// `P`: literal paths.
    exact: FxHashMap<String, Vec<u32>>,
    /// `**/*S`: by `S`.
    name_suffix: FxHashMap<String, Vec<u32>>,
    /// By directory prefix.
    by_prefix: FxHashMap<String, Node>,
    /// The most segments any prefix has: deeper prefixes are not looked up.
    max_depth: usize,
    /// Every glob of another shape with a literal directory prefix, one
    /// pattern each, in one regex: a path under a prefix runs an anchored
    /// search of each pattern of that prefix's node. One regex for all of
    /// them costs about 1-2 KB a glob, where a `GlobSet` per prefix costs
    /// about 9 KB (a compiled regex of its own).
    prefixed: Option<Regex>,
    /// Other globs without a literal directory prefix.
    rest: Option<Group>,
}

/// A glob's shape, from its text.
#[derive(Debug, PartialEq, Eq)]
enum Shape<'a> {
    Exact(&'a str),
    NameSuffix(&'a str),
    Under(&'a str),
    UnderWithSuffix(&'a str, &'a str),
    /// Anything else, with its literal directory prefix if it has one.
    Other(Option<&'a str>),
}

fn plain(s: &str) -> bool {
    !s.is_empty() && !s.contains(['*', '?', '[', ']', '{', '}', '\\', ','])
}

/// A `.`-suffix: `.ts`, `.test.ts` (what a file name can be looked up by).
fn dot_suffix(s: &str) -> bool {
    s.starts_with('.') && plain(s) && !s.contains('/')
}

fn shape(glob: &str) -> Shape<'_> {
    if plain(glob) {
        return Shape::Exact(glob);
    }
    if let Some(s) = glob.strip_prefix("**/*") {
        if dot_suffix(s) {
            return Shape::NameSuffix(s);
        }
    }
    if let Some(p) = glob.strip_suffix("/**") {
        if plain(p) {
            return Shape::Under(p);
        }
    }
    if let Some((p, s)) = glob.split_once("/**/*") {
        if plain(p) && dot_suffix(s) {
            return Shape::UnderWithSuffix(p, s);
        }
    }
    Shape::Other(literal_prefix(glob))
}

/// The leading segments of a glob that are plain text, before its last
/// segment: `crates/core` for `crates/core/*/x.rs`.
fn literal_prefix(glob: &str) -> Option<&str> {
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

fn group(globs: Vec<(Glob, u32)>) -> Option<Group> {
    let mut builder = GlobSetBuilder::new();
    let mut ids = Vec::with_capacity(globs.len());
    for (glob, id) in globs {
        builder.add(glob);
        ids.push(id);
    }
    builder.build().ok().map(|set| Group { set, ids })
}

impl GlobIndex {
    /// Builds the index from `(glob text, id)` pairs (texts of
    /// [`crate::pattern::Matcher::Glob`]). A glob of another shape is built
    /// here; one globset refuses (it never should: each was built alone
    /// when its pattern was compiled) is left out, as is a group globset
    /// refuses.
    pub fn build(globs: impl IntoIterator<Item = (Box<str>, u32)>) -> GlobIndex {
        Self::build_with(globs, MAX_PREFIXED_NFA_BYTES)
    }

    /// [`build`](Self::build) with another bound on the prefixed globs' NFA.
    fn build_with(globs: impl IntoIterator<Item = (Box<str>, u32)>, nfa_limit: usize) -> GlobIndex {
        let mut index = GlobIndex::default();
        let mut others: HashMap<Option<String>, Vec<(Glob, u32)>> = HashMap::new();
        let mut max_depth = 0;
        for (text, id) in globs {
            match shape(&text) {
                Shape::Exact(p) => index.exact.entry(p.to_string()).or_default().push(id),
                Shape::NameSuffix(s) => {
                    index.name_suffix.entry(s.to_string()).or_default().push(id)
                }
                Shape::Under(p) => {
                    max_depth = max_depth.max(segments(p));
                    index
                        .by_prefix
                        .entry(p.to_string())
                        .or_default()
                        .under
                        .push(id);
                }
                Shape::UnderWithSuffix(p, s) => {
                    max_depth = max_depth.max(segments(p));
                    index
                        .by_prefix
                        .entry(p.to_string())
                        .or_default()
                        .suffixes
                        .push((s.to_string(), id));
                }
                Shape::Other(prefix) => {
                    let Ok(glob) = crate::pattern::glob(&text) else {
                        continue;
                    };
                    if let Some(p) = prefix {
                        max_depth = max_depth.max(segments(p));
                    }
                    others
                        .entry(prefix.map(str::to_string))
                        .or_default()
                        .push((glob, id));
                }
            }
        }
        if let Some(globs) = others.remove(&None) {
            index.rest = group(globs);
        }
        let regexes: Vec<&str> = others.values().flatten().map(|(g, _)| g.regex()).collect();
        index.prefixed = regex_set(&regexes, nfa_limit);
        let mut pattern = 0u32;
        for (prefix, globs) in others {
            let node = index
                .by_prefix
                .entry(prefix.unwrap_or_default())
                .or_default();
            if index.prefixed.is_some() {
                for (_, id) in globs {
                    node.others.push((pattern, id));
                    pattern += 1;
                }
            } else {
                node.group = group(globs);
            }
        }
        index.max_depth = max_depth;
        index
    }

    /// Appends the ids of the globs that match `path` to `out`. `scratch` is
    /// reused between calls to avoid allocating.
    pub fn matching(&self, path: &str, scratch: &mut Vec<usize>, out: &mut Vec<u32>) {
        if let Some(ids) = self.exact.get(path) {
            out.extend_from_slice(ids);
        }
        let name_start = path.rfind('/').map_or(0, |i| i + 1);
        let name = &path[name_start..];
        if !self.name_suffix.is_empty() {
            for (i, _) in name.match_indices('.') {
                if let Some(ids) = self.name_suffix.get(&name[i..]) {
                    out.extend_from_slice(ids);
                }
            }
        }
        let mut candidate = None;
        let slashes = path
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'/')
            .map(|(i, _)| i);
        for end in slashes.take(self.max_depth) {
            let Some(node) = self.by_prefix.get(&path[..end]) else {
                continue;
            };
            out.extend_from_slice(&node.under);
            for (suffix, id) in &node.suffixes {
                if name.ends_with(suffix.as_str()) {
                    out.push(*id);
                }
            }
            if let Some(re) = &self.prefixed {
                for &(pattern, id) in &node.others {
                    let input = Input::new(path).anchored(Anchored::Pattern(
                        PatternID::new_unchecked(pattern as usize),
                    ));
                    if re.is_match(input) {
                        out.push(id);
                    }
                }
            }
            if let Some(g) = &node.group {
                Self::match_group(
                    g,
                    candidate.get_or_insert_with(|| Candidate::new(path)),
                    scratch,
                    out,
                );
            }
        }
        if let Some(g) = &self.rest {
            Self::match_group(
                g,
                candidate.get_or_insert_with(|| Candidate::new(path)),
                scratch,
                out,
            );
        }
    }

    fn match_group(
        group: &Group,
        candidate: &Candidate<'_>,
        scratch: &mut Vec<usize>,
        out: &mut Vec<u32>,
    ) {
        group.set.matches_candidate_into(candidate, scratch);
        out.extend(scratch.iter().map(|&g| group.ids[g]));
    }
}

/// One regex of many globs' regexes (as `globset` compiles each), a search
/// per pattern anchored at it. `None` when it cannot be built (the NFA is
/// bounded at [`MAX_PREFIXED_NFA_BYTES`]); then each prefix has a `GlobSet`.
fn regex_set(regexes: &[&str], nfa_limit: usize) -> Option<Regex> {
    if regexes.is_empty() {
        return None;
    }
    let syntax = regex_automata::util::syntax::Config::new()
        .utf8(false)
        .dot_matches_new_line(true);
    let config = Regex::config()
        .utf8_empty(false)
        .nfa_size_limit(Some(nfa_limit));
    Regex::builder()
        .syntax(syntax)
        .configure(config)
        .build_many(regexes)
        .ok()
}

/// The size bound of the NFA of all prefixed globs of other shapes (about
/// 20,000 globs); past it the index falls back to a `GlobSet` per prefix.
const MAX_PREFIXED_NFA_BYTES: usize = 32 << 20;

/// How many segments a prefix has.
fn segments(prefix: &str) -> usize {
    prefix.split('/').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(s: &str) -> Glob {
        globset::GlobBuilder::new(s)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .unwrap()
    }

    #[test]
    fn shapes() {
        assert_eq!(shape("docs/README.md"), Shape::Exact("docs/README.md"));
        assert_eq!(shape("**/*.test.ts"), Shape::NameSuffix(".test.ts"));
        assert_eq!(shape("src/**"), Shape::Under("src"));
        assert_eq!(
            shape("crates/core/**/*.rs"),
            Shape::UnderWithSuffix("crates/core", ".rs")
        );
        assert_eq!(shape("**/*"), Shape::Other(None));
        assert_eq!(
            shape("**/*test"),
            Shape::Other(None),
            "only .-suffixes are looked up"
        );
        assert_eq!(shape("src/**/*.{ts,tsx}"), Shape::Other(Some("src")));
        assert_eq!(shape("packages/*/tests/**"), Shape::Other(Some("packages")));
        assert_eq!(shape("a\\*b/**"), Shape::Other(None));
        assert_eq!(
            literal_prefix("crates/core/src/*.rs"),
            Some("crates/core/src")
        );
        assert_eq!(literal_prefix("{a,b}/x"), None);
        assert_eq!(literal_prefix("README.md"), None);
    }

    /// The index answers exactly what one GlobSet over the same globs does.
    #[test]
    fn same_answers_as_one_globset() {
        let texts = [
            "src/**/*.ts",
            "**/*.md",
            "**/*.test.ts",
            "docs/*.md",
            "*.md",
            "{a,b}/**",
            "src",
            "src/**",
            "packages/*/tests/**",
            "src/lib/**",
            "src/lib/x.ts",
            "src/lib",
            "README.md",
            "src/lib/**/*.d.ts",
            "**/*",
            "a\\*b/**",
            "**/.*",
            "src/**/*.{ts,tsx}",
            "**/*.ts",
            "packages/*/src/**",
            "packages/app/{lib,test}/**/*.ts",
            "packages/app/*.json",
            "src/lib/*/z.rs",
        ];
        let globs = || {
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (Box::from(*t), i as u32))
        };
        let index = GlobIndex::build(globs());
        assert!(index.prefixed.is_some());
        // Past the NFA bound: a GlobSet per prefix, the same answers.
        let fallback = GlobIndex::build_with(globs(), 1);
        assert!(fallback.prefixed.is_none());
        let mut all = GlobSetBuilder::new();
        for t in texts {
            all.add(glob(t));
        }
        let all = all.build().unwrap();
        for path in [
            "src/a/b.ts",
            "src",
            "docs/x.md",
            "x.md",
            "a/q",
            "packages/p/tests/t.rs",
            "nothing",
            "src/lib/x.ts",
            "src/lib",
            "src/lib/deep/y.d.ts",
            "src/x.test.ts",
            "README.md",
            "a*b/c",
            ".env",
            "src/.ts",
            "x/y/.md",
            "src/a.tsx",
            "srcx/a.ts",
            "src/lib.ts",
            "packages/app/src/x.ts",
            "packages/app/lib/deep/x.ts",
            "packages/app/test/x.js",
            "packages/app/package.json",
            "packages/app/deep/package.json",
            "src/lib/q/z.rs",
            "src/lib/q/r/z.rs",
        ] {
            let want: Vec<u32> = all.matches(path).into_iter().map(|i| i as u32).collect();
            for index in [&index, &fallback] {
                let mut got = Vec::new();
                index.matching(path, &mut Vec::new(), &mut got);
                got.sort();
                assert_eq!(got, want, "{path}");
            }
        }
    }
}
