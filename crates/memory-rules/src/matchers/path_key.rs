//! What a path must have for a glob to match it, in plain text: the
//! glob's text before its first wildcard is the path's start, its text
//! after its last one the path's end. A key never refuses a path its glob
//! matches (a test checks it against globset); it may admit paths the glob
//! does not match. It lets a caller skip rules whose globs cannot match a
//! file without compiling a glob (the hooks' saved rules,
//! [`crate::load::rule_index`]).

use crate::matchers::glob_index::SYNTAX;

/// A path's required start and end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathKey<'a> {
    pub start: &'a [u8],
    pub end: &'a [u8],
}

impl<'a> PathKey<'a> {
    /// The key that admits every path (for a pattern compiled to a regex).
    pub const ANY: PathKey<'static> = PathKey {
        start: b"",
        end: b"",
    };

    /// The key of a globset glob's text (`literal_separator`,
    /// `backslash_escape`): a plain glob is the whole path, so its text is
    /// the start. A class or an escape can make text after it literal that
    /// looks like syntax, so such a glob has no end.
    pub fn of(glob: &'a str) -> PathKey<'a> {
        let Some(first) = glob.find(SYNTAX) else {
            return PathKey {
                start: glob.as_bytes(),
                end: b"",
            };
        };
        let end = if glob.contains(['[', '\\']) {
            ""
        } else {
            glob.rfind(SYNTAX).map_or("", |last| &glob[last + 1..])
        };
        PathKey {
            start: &glob.as_bytes()[..first],
            end: end.as_bytes(),
        }
    }

    /// Whether a (workdir-relative) path may match the key's glob.
    pub fn admits(&self, path: &[u8]) -> bool {
        path.starts_with(self.start) && path.ends_with(self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchers::glob_compile::{compile, Matcher};

    #[test]
    fn a_key_is_the_text_before_the_first_wildcard_and_after_the_last() {
        let key = |g| {
            let k = PathKey::of(g);
            let text = |b| std::str::from_utf8(b).unwrap();
            (text(k.start), text(k.end))
        };
        assert_eq!(key("src/**"), ("src/", ""));
        assert_eq!(key("**/*.test.ts"), ("", ".test.ts"));
        assert_eq!(key("crates/core/**/*.rs"), ("crates/core/", ".rs"));
        assert_eq!(key("docs/README.md"), ("docs/README.md", ""));
        assert_eq!(key("packages/*/tests/{a,b}.json"), ("packages/", ".json"));
        assert_eq!(key("src/[ab]*.rs"), ("src/", ""));
        assert_eq!(key("a\\*b/*.md"), ("a", ""));
    }

    #[test]
    fn a_key_admits_every_path_its_glob_matches() {
        let patterns = [
            "src/**",
            "**/*.ts",
            "**/*.test.ts",
            "docs/*.md",
            "README.md",
            "src/mod4/**/*.ts",
            "packages/*/src/**",
            "**/tests/**",
            "*.{js,ts}",
            "src/{a,b}/*.rs",
            "src/[ab]*.rs",
            "**/index.*",
            "a/**/b/**/c.md",
            "lib/**/*",
            "*",
            "**",
            "{src,lib}/**/*.go",
            "src/**/?.rs",
            "x\\*y.md",
            "src/*,v",
            "src/{,x}.md",
        ];
        let paths = [
            "src/a.rs",
            "src/b1.rs",
            "src/mod4/a.ts",
            "src/mod4/x/y.ts",
            "a.test.ts",
            "pkg/b.test.ts",
            "docs/guide.md",
            "docs/x/y.md",
            "README.md",
            "x/README.md",
            "packages/p/src/lib.ts",
            "tests/t.rs",
            "a/tests/b/c.py",
            "index.js",
            "a.js",
            "src/a/x.rs",
            "src/b/y.rs",
            "lib/a/b/c",
            "lib/x",
            "a/b/c.md",
            "a/x/b/y/c.md",
            "src/q/z.go",
            "lib/z.go",
            "src/x/a.rs",
            "x*y.md",
            "src/a,v",
            "src/.md",
            "src/x.md",
            "src",
            "lib",
        ];
        for p in patterns {
            for m in compile(p).unwrap().matchers {
                let Matcher::Glob(text) = m else { continue };
                let glob = crate::matchers::glob_compile::glob(&text)
                    .unwrap()
                    .compile_matcher();
                for path in paths {
                    if glob.is_match(path) {
                        assert!(
                            PathKey::of(&text).admits(path.as_bytes()),
                            "{p} ({text}) matches {path}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_key_refuses_paths_outside_its_start_or_end() {
        let under = PathKey::of("src/mod4/**/*.ts");
        assert!(under.admits(b"src/mod4/a.ts"));
        assert!(!under.admits(b"src/mod5/a.ts"));
        assert!(!under.admits(b"src/mod4/a.rs"));
        assert!(PathKey::ANY.admits(b"anything"));
    }
}
