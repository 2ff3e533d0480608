//! The words of a note or a prompt, as the search index compares them, and
//! the keys of the files a note is about.
//!
//! Words are runs of letters and digits after the topic matcher's Unicode
//! folding ([`crate::matchers::topic_matcher::fold`]: full case folding), so `Café`, `CAFÉ`
//! and `café` are one word; each Han, Hiragana, Katakana or Hangul character
//! is a word of its own (those scripts do not separate words with spaces).
//! A word with a lower-to-upper case change (`useEffect`, `HashMap`) also
//! gives its parts. Words are then reduced to their stem by the Snowball
//! English stemmer (`migrations` and `migration`, `running` and `run` are
//! one word); words of other scripts are left as they are.
//!
//! File keys (see [`file_keys`]) tie a note to files: the files it names in
//! its text (`src/db/pool.rs`, `package.json`) and the globs of its `paths`.

pub use crate::base::limits::MAX_WORD_BYTES;
use std::borrow::Cow;

/// Marks a file key among the index's words (never a byte of UTF-8 text).
pub const KEY: char = '\u{1}';

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Calls `f` with each word of `text`, folded and stemmed.
pub fn words(text: &str, mut f: impl FnMut(&str)) {
    let mut raw = String::new();
    let flush = |raw: &mut String, f: &mut dyn FnMut(&str)| {
        if raw.is_empty() {
            return;
        }
        if raw.len() <= MAX_WORD_BYTES {
            let parts = camel_parts(raw);
            let folded = crate::matchers::topic_matcher::fold(raw);
            f(&stem(&folded));
            if parts.len() > 1 {
                for p in parts {
                    f(&stem(&crate::matchers::topic_matcher::fold(p)));
                }
            }
        }
        raw.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush(&mut raw, &mut f);
            let mut buf = [0u8; 4];
            f(c.encode_utf8(&mut buf));
        } else if c.is_alphanumeric() {
            raw.push(c);
        } else {
            flush(&mut raw, &mut f);
        }
    }
    flush(&mut raw, &mut f);
}

/// The words of `text` as a list.
pub fn word_list(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    words(text, |w| out.push(w.to_string()));
    out
}

/// `useEffect` -> `use`, `Effect`; `HTTPServer` -> `HTTP`, `Server`;
/// `snake` -> `snake`.
fn camel_parts(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut cuts = vec![0];
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let lower_to_upper = prev.is_lowercase() && c.is_uppercase();
        let acronym_end = prev.is_uppercase() && c.is_uppercase() && next_lower;
        let digit_edge = prev.is_alphabetic() != c.is_alphabetic();
        if lower_to_upper || acronym_end || (digit_edge && c.is_alphabetic() && prev.is_numeric()) {
            cuts.push(at);
        }
    }
    cuts.push(word.len());
    cuts.windows(2)
        .map(|w| &word[w[0]..w[1]])
        .filter(|p| !p.is_empty())
        .collect()
}

/// The Snowball English stem of a folded word of Latin letters; other words
/// as they are.
fn stem(word: &str) -> Cow<'_, str> {
    thread_local! {
        static STEMMER: rust_stemmers::Stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    }
    if word.len() < 4 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return Cow::Borrowed(word);
    }
    STEMMER.with(|s| Cow::Owned(s.stem(word).into_owned()))
}

/// One way a note is tied to files.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKey {
    /// It names this file (workdir-relative, as written).
    File(String),
    /// It names a file of this name.
    Base(String),
    /// A glob of its `paths` starting with this literal directory.
    GlobDir(String),
    /// A glob of its `paths` with no literal directory (`**/*.sql`).
    GlobAny,
}

impl FileKey {
    /// As stored among the index's words.
    pub fn word(&self) -> String {
        match self {
            FileKey::File(p) => format!("{KEY}f{p}"),
            FileKey::Base(b) => format!("{KEY}b{b}"),
            FileKey::GlobDir(d) => format!("{KEY}g{d}"),
            FileKey::GlobAny => format!("{KEY}*"),
        }
    }
}

/// The file keys of a note: the files its text names and the globs of its
/// `paths`.
pub fn file_keys(text: &str, paths: &[String]) -> Vec<FileKey> {
    let mut out = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || "`'\"()[]<>,;".contains(c)) {
        if let Some(path) = file_like(token) {
            out.push(FileKey::Base(base(&path).to_string()));
            if path.contains('/') {
                out.push(FileKey::File(path));
            }
        }
    }
    for glob in paths {
        let g = glob.trim().trim_start_matches("./");
        if g.starts_with('!') {
            continue;
        }
        let literal: Vec<&str> = g
            .split('/')
            .take_while(|seg| !seg.contains(['*', '?', '[', '{']))
            .collect();
        let whole = literal.len() == g.split('/').count();
        if whole {
            out.push(FileKey::File(g.to_string()));
            out.push(FileKey::Base(base(g).to_string()));
        } else if literal.is_empty() {
            out.push(FileKey::GlobAny);
        } else {
            out.push(FileKey::GlobDir(literal.join("/")));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A token that names a file: a path with `/` and a name, or a name with an
/// extension of 1 to 6 letters or digits (`Cargo.toml`, `.env`), trimmed of
/// trailing punctuation; `./` dropped. URLs and versions are not files.
pub fn file_like(token: &str) -> Option<String> {
    let t = token.trim_end_matches(['.', ':', '!', '?']);
    let t = t.strip_prefix("./").unwrap_or(t);
    if t.is_empty() || t.len() > 512 || t.contains("://") || t.contains('@') {
        return None;
    }
    if !t
        .chars()
        .all(|c| c.is_alphanumeric() || "/._-+~".contains(c))
    {
        return None;
    }
    let name = base(t);
    let (stem, ext) = match name.rfind('.') {
        Some(0) => ("", &name[1..]),
        Some(i) => (&name[..i], &name[i + 1..]),
        None => (name, ""),
    };
    let has_ext = !ext.is_empty()
        && ext.len() <= 6
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    let is_version = !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == 'v');
    let with_dir = t.contains('/') && !name.is_empty() && !t.starts_with('/') && !t.contains("//");
    if (has_ext && !is_version) || (with_dir && name.contains('.')) {
        Some(t.to_string())
    } else {
        None
    }
}

/// The last `/`-separated part.
pub fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The keys to look up for a file in context, each with how close a note
/// holding it is to the file (1 names the file itself): the file, its name,
/// and each directory above it for globs.
pub fn keys_for_file(file: &str) -> Vec<(FileKey, f32)> {
    let file = file.trim_start_matches("./");
    let mut out = vec![
        (FileKey::File(file.to_string()), 1.0),
        (FileKey::Base(base(file).to_string()), 0.6),
        (FileKey::GlobAny, 1.0),
    ];
    let mut dir = file;
    while let Some(i) = dir.rfind('/') {
        dir = &dir[..i];
        out.push((FileKey::GlobDir(dir.to_string()), 1.0));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_table() {
        for (text, want) in [
            ("Run the Migrations!", vec!["run", "the", "migrat"]),
            ("CAFÉ café", vec!["café", "café"]),
            ("useEffect", vec!["useeffect", "use", "effect"]),
            ("HTTPServer", vec!["httpserver", "http", "server"]),
            ("snake_case-word", vec!["snake", "case", "word"]),
            ("port 5433, v1.2", vec!["port", "5433", "v1", "2"]),
            ("構築手順", vec!["構", "築", "手", "順"]),
            ("Straße", vec!["strass"]),
        ] {
            assert_eq!(word_list(text), want, "{text}");
        }
        assert!(word_list(&"x".repeat(65)).is_empty());
    }

    #[test]
    fn file_like_table() {
        for (token, want) in [
            ("src/db/pool.rs", Some("src/db/pool.rs")),
            ("./Cargo.toml", Some("Cargo.toml")),
            ("package.json.", Some("package.json")),
            (".env", Some(".env")),
            ("docs/guide.md:", Some("docs/guide.md")),
            ("https://x.io/a.md", None),
            ("1.2.3", None),
            ("v1.2", None),
            ("e.g", Some("e.g")),
            ("and/or", None),
            ("user@host.com", None),
            ("hello", None),
        ] {
            assert_eq!(file_like(token).as_deref(), want, "{token}");
        }
    }

    #[test]
    fn file_keys_of_text_and_globs() {
        let keys = file_keys(
            "Edit `src/db/pool.rs` then Cargo.toml",
            &[
                "migrations/**/*.sql".into(),
                "**/*.ts".into(),
                "!x/**".into(),
                "Makefile".into(),
            ],
        );
        assert_eq!(
            keys,
            vec![
                FileKey::File("Makefile".into()),
                FileKey::File("src/db/pool.rs".into()),
                FileKey::Base("Cargo.toml".into()),
                FileKey::Base("Makefile".into()),
                FileKey::Base("pool.rs".into()),
                FileKey::GlobDir("migrations".into()),
                FileKey::GlobAny,
            ]
        );
        let look: Vec<String> = keys_for_file("a/b/c.rs")
            .iter()
            .map(|(k, _)| k.word())
            .collect();
        assert_eq!(
            look,
            [
                "\u{1}fa/b/c.rs",
                "\u{1}bc.rs",
                "\u{1}*",
                "\u{1}ga/b",
                "\u{1}ga"
            ]
        );
    }
}
