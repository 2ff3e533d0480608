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
//! deepest prefix any glob has). Globs of other shapes are indexed by their
//! literal directory prefix (`packages` for `packages/*/tests/**`) and
//! matched only for paths under that prefix, each as one pattern of a regex
//! shared by up to 64 such globs (a search anchored at that pattern); globs
//! without a prefix are one `GlobSet`. The answers are those of one `GlobSet`
//! over all globs (a test checks it); only the work differs.

use globset::{Candidate, Glob, GlobSet, GlobSetBuilder};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, PatternID};
use rustc_hash::FxHashMap;
use std::panic::{RefUnwindSafe, UnwindSafe};

/// One `GlobSet` of globs of other shapes.
#[derive(Debug)]
struct Group {
    set: GlobSet,
    /// For each glob of `set`: the id it was added with.
    ids: Vec<u32>,
}

/// What is known under one directory prefix `P`.
#[derive(Debug, Default)]
struct PrefixNode {
    /// `P/**`
    under: Vec<u32>,
    /// `P/**/*S`: (S, id)
    suffixes: Vec<(String, u32)>,
    /// Other globs whose literal directory prefix is `P`: (regex of
    /// `GlobIndex::prefixed`, pattern in it, id).
    others: Vec<(u32, u32, u32)>,
}

/// Globs indexed by shape and prefix.
#[derive(Debug, Default)]
pub struct GlobIndex {
    /// `P`: literal paths.
    exact: FxHashMap<String, Vec<u32>>,
    /// `**/*S`: by `S`.
    name_suffix: FxHashMap<String, Vec<u32>>,
    /// By directory prefix.
    by_prefix: FxHashMap<String, PrefixNode>,
    /// The most segments any prefix has: deeper prefixes are not looked up.
    max_depth: usize,
    /// Every glob of another shape with a literal directory prefix, as lazy
    /// DFAs of up to [`CHUNK`] patterns (one per glob): a path under a
    /// prefix runs an anchored search of each pattern of that prefix's node.
    /// A `GlobSet` per prefix would cost about 9 KB a glob (a compiled
    /// `meta::Regex` each); one DFA for all of them would need every syntax
    /// tree at once while building (about 8 KB a glob).
    prefixed: Vec<Prefixed>,
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

/// The characters of globset's syntax that are not plain text.
pub(crate) const SYNTAX: [char; 8] = ['*', '?', '[', ']', '{', '}', '\\', ','];

fn plain(s: &str) -> bool {
    !s.is_empty() && !s.contains(SYNTAX)
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
    /// [`crate::matchers::glob_compile::Matcher::Glob`]). A glob of another shape is built
    /// here; one globset refuses (it never should: each was built alone
    /// when its pattern was compiled) is left out, as is a group globset
    /// refuses.
    pub fn build(globs: impl IntoIterator<Item = (Box<str>, u32)>) -> GlobIndex {
        Self::build_with(globs, CHUNK)
    }

    /// [`build`](Self::build) with `chunk` globs per regex of prefixed globs.
    fn build_with(globs: impl IntoIterator<Item = (Box<str>, u32)>, chunk: usize) -> GlobIndex {
        let mut index = GlobIndex::default();
        let mut rest: Vec<(Glob, u32)> = Vec::new();
        // (prefix, regex, id) of the prefixed globs of other shapes.
        let mut prefixed: Vec<(String, String, u32)> = Vec::new();
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
                    let Ok(glob) = crate::matchers::glob_compile::glob(&text) else {
                        continue;
                    };
                    match prefix {
                        Some(p) => {
                            max_depth = max_depth.max(segments(p));
                            prefixed.push((p.to_string(), glob.regex().to_string(), id));
                        }
                        None => rest.push((glob, id)),
                    }
                }
            }
        }
        if !rest.is_empty() {
            index.rest = group(rest);
        }
        for part in prefixed.chunks(chunk.max(1)) {
            let regexes: Vec<&str> = part.iter().map(|(_, re, _)| re.as_str()).collect();
            // A chunk that does not build (it never should) is built one
            // glob at a time; a glob that does not build alone is left out.
            let singles: Vec<Vec<&str>> = match regex_set(&regexes) {
                Some(re) => {
                    index.prefixed.push(re);
                    Vec::new()
                }
                None => regexes.iter().map(|r| vec![*r]).collect(),
            };
            if singles.is_empty() {
                let at = (index.prefixed.len() - 1) as u32;
                for (k, (prefix, _, id)) in part.iter().enumerate() {
                    let node = index.by_prefix.entry(prefix.clone()).or_default();
                    node.others.push((at, k as u32, *id));
                }
                continue;
            }
            for (single, (prefix, _, id)) in singles.iter().zip(part) {
                if let Some(re) = regex_set(single) {
                    index.prefixed.push(re);
                    let at = (index.prefixed.len() - 1) as u32;
                    let node = index.by_prefix.entry(prefix.clone()).or_default();
                    node.others.push((at, 0, *id));
                }
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
            for &(regex, pattern, id) in &node.others {
                let input = Input::new(path).earliest(true).anchored(Anchored::Pattern(
                    PatternID::new_unchecked(pattern as usize),
                ));
                if self.prefixed[regex as usize].is_match(&input) {
                    out.push(id);
                }
            }
        }
        if let Some(g) = &self.rest {
            Self::match_group(g, &Candidate::new(path), scratch, out);
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

/// How many prefixed globs of other shapes share one DFA: its fixed cost
/// spread over them, and its syntax trees while building
/// bounded.
const CHUNK: usize = 64;

type CacheFn = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Several globs' regexes (as `globset` compiles each) in one forward lazy
/// DFA, searched one pattern at a time, anchored. Only a forward DFA: a
/// `meta::Regex` would also build a reverse NFA and other engines that an
/// anchored `is_match` never uses.
struct Prefixed {
    dfa: DFA,
    /// The lazy DFA's state cache, one per thread that searches.
    caches: Pool<Cache, CacheFn>,
}

impl std::fmt::Debug for Prefixed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prefixed")
            .field("patterns", &self.dfa.pattern_len())
            .finish()
    }
}

impl Prefixed {
    /// Whether the pattern the input is anchored at matches it.
    fn is_match(&self, input: &Input<'_>) -> bool {
        let mut cache = self.caches.get();
        // No quit bytes and no give-up threshold are configured, so the
        // search cannot fail.
        matches!(self.dfa.try_search_fwd(&mut cache, input), Ok(Some(_)))
    }
}

/// One regex of several globs' regexes (see [`Prefixed`]).
fn regex_set(regexes: &[&str]) -> Option<Prefixed> {
    let nfa = thompson::Compiler::new()
        .syntax(syntax::Config::new().utf8(false).dot_matches_new_line(true))
        .configure(thompson::Config::new().which_captures(WhichCaptures::None))
        .build_many(regexes)
        .ok()?;
    let dfa = DFA::builder()
        .configure(DFA::config().starts_for_each_pattern(true))
        .build_from_nfa(nfa)
        .ok()?;
    let for_cache = dfa.clone();
    let create: CacheFn = Box::new(move || for_cache.create_cache());
    Some(Prefixed {
        dfa,
        caches: Pool::new(create),
    })
}

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
        assert_eq!(index.prefixed.len(), 1);
        // One regex per glob: the same answers.
        let fallback = GlobIndex::build_with(globs(), 1);
        assert!(fallback.prefixed.len() > 1);
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
