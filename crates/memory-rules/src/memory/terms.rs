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
//! Function words ([`is_function_word`]: Snowball's English stop words)
//! weigh [`FUNCTION_WORD_WEIGHT`] of a word, in a prompt searched and in
//! notes compared.
//!
//! File keys (see [`file_keys`]) tie a note to files: the files it names in
//! its text (`src/db/pool.rs`, `package.json`) and the globs of its `paths`;
//! folder keys ([`folder_keys`]) the folders it names (it is about the files
//! below them) and the folders it is near. A file in context gives query
//! words too ([`path_words`]): its folders, its name, its extension.

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

/// What a function word weighs against its IDF, in a prompt searched
/// and in notes compared: a memory of a few notes cannot tell `the` from
/// `staging` by document frequency alone.
pub const FUNCTION_WORD_WEIGHT: f32 = 0.15;

/// Snowball's English stop word list (snowballstem.org, `english/stop.txt`),
/// as [`words`] gives them (folded and stemmed); the negations are
/// one word, `not` (`hygiene`'s `canonical`).
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "abov", "after", "again", "against", "all", "am", "an", "and", "ani", "any",
    "are", "as", "at", "be", "becaus", "been", "befor", "being", "below", "between", "both", "but",
    "by", "can", "could", "did", "do", "doe", "down", "dure", "each", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him",
    "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me",
    "more", "most", "my", "myself", "nor", "not", "of", "off", "on", "onc", "once", "onli", "or",
    "other", "ought", "our", "ours", "ourselv", "out", "over", "own", "same", "she", "should",
    "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselv", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
    "veri", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whi",
    "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselv", "s", "t",
    "also", "now", "instead", "via", "use", "need", "must",
];

/// Whether a word (as [`words`] gives it) is a function word.
pub fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.contains(&word)
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
    /// It names this folder (`services/billing/stripe`, `tests/`): it is
    /// about the files below it (see [`folder_keys`]).
    Folder(String),
    /// A folder it names, the folder of a file it names or the literal
    /// directory of one of its globs is this folder or below it: it is near
    /// the files of this folder.
    Near(String),
    /// It writes this name of words joined by `_` or `-` (`emqx_limiter`,
    /// `codec-http2`), folded: a folder or a file's stem of that name
    /// ([`path_names`]) may be what it is about (see [`name_keys`]).
    Name(String),
    /// It writes a pattern of file names (`*.spec.js`, `<name>.test.ts`,
    /// `test_*.py`), as `prefix*suffix` ([`pattern_keys`]): the files of that
    /// name are its subject.
    Pattern(String),
    /// It writes a dotted module or package, read as this path of folders
    /// ([`dotted_module`]: `io.netty.util`, `io/netty/util`): a run of a
    /// file's folders, or of its folders and its stem, may be it.
    Module(String),
}

impl FileKey {
    /// As stored among the index's words.
    pub fn word(&self) -> String {
        match self {
            FileKey::File(p) => format!("{KEY}f{p}"),
            FileKey::Base(b) => format!("{KEY}b{b}"),
            FileKey::GlobDir(d) => format!("{KEY}g{d}"),
            FileKey::GlobAny => format!("{KEY}*"),
            FileKey::Folder(d) => format!("{KEY}d{d}"),
            FileKey::Near(d) => format!("{KEY}n{d}"),
            FileKey::Name(n) => format!("{KEY}i{n}"),
            FileKey::Module(m) => format!("{KEY}m{m}"),
            FileKey::Pattern(p) => format!("{KEY}p{p}"),
        }
    }
}

/// The file keys of a note: the files its text names and the globs of its
/// `paths`.
pub fn file_keys(text: &str, paths: &[String]) -> Vec<FileKey> {
    let mut out = Vec::new();
    for token in tokens(text) {
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

/// The name keys of a note (see [`FileKey::Name`]): each run of letters,
/// digits, `_` and `-` in its text that joins words with `_` or `-`, its
/// ends' `_` and `-` dropped, folded (`` `lock_objects.py` ``: `lock_objects`;
/// `-pl codec-http2`: `codec-http2`). A name of one word is a word already
/// ([`words`]).
pub fn name_keys(text: &str) -> Vec<FileKey> {
    let mut out = Vec::new();
    let joined = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    for run in text.split(|c: char| !joined(c)) {
        if let Some(name) = joined_name(run) {
            out.push(FileKey::Name(name));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The file name patterns a note writes ([`FileKey::Pattern`]): each word
/// (between white space, quotes, brackets and `,;`) whose last part
/// (after its last `/`) has one wildcard run, a `*` or a placeholder
/// (`<name>`), and after it an extension (`*.spec.js`, `<name>.test.ts`,
/// `src/**/test_*.py`: `*.spec.js`, `*.test.ts`, `test_*.py`), folded. A
/// run of several wildcards (`{a,b}_<x>_<y>.md`) says too little.
pub fn pattern_keys(text: &str) -> Vec<FileKey> {
    let mut out = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || "`'\"(),;[]".contains(c)) {
        let token = token.trim_end_matches(['.', ':', '!', '?']);
        let name = token.rsplit('/').next().unwrap_or(token);
        if let Some(p) = name_pattern(name) {
            out.push(FileKey::Pattern(p));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `name` as `prefix*suffix` when it has one wildcard run (`*`, `**` or
/// one `<placeholder>`), no braces, and after it an extension (a `.` then
/// up to 10 letters or digits) with the suffix starting at a `.` or a
/// prefix before the run (`test_*.py`), folded; none over
/// [`MAX_WORD_BYTES`].
fn name_pattern(name: &str) -> Option<String> {
    if name.len() > MAX_WORD_BYTES || name.contains(['{', '}', '?']) {
        return None;
    }
    let (start, end) = match (name.find('*'), name.find('<')) {
        (Some(s), None) => (s, name.rfind('*')? + 1),
        (None, Some(s)) => (s, s + name[s..].find('>')? + 1),
        _ => return None,
    };
    let (prefix, wild, suffix) = (&name[..start], &name[start..end], &name[end..]);
    let one_run = wild.chars().all(|c| c == '*') || !wild[1..wild.len() - 1].contains(['<', '*']);
    let literal = |t: &str| !t.contains(['*', '<', '>']);
    let ext = suffix.rsplit_once('.').is_some_and(|(_, e)| {
        (1..=10).contains(&e.len()) && e.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let shaped = suffix.starts_with('.') || !prefix.is_empty();
    (one_run && literal(prefix) && literal(suffix) && ext && shaped)
        .then(|| crate::matchers::topic_matcher::fold(&format!("{prefix}*{suffix}")))
}

/// `run` folded, its ends' `_` and `-` dropped, when it joins words with
/// `_` or `-` and fits [`MAX_WORD_BYTES`].
fn joined_name(run: &str) -> Option<String> {
    let run = run.trim_matches(['_', '-']);
    let joins = run.contains(['_', '-']);
    if !joins || run.len() > MAX_WORD_BYTES || !run.chars().any(char::is_alphabetic) {
        return None;
    }
    Some(crate::matchers::topic_matcher::fold(run))
}

/// A file's names, as query words, each with its nearness to the file (as
/// [`path_words`] gives it): the stem of its name (`Http2FrameCodecTest`,
/// `emqx_esockd_limiter`) and each folder's name (`codec-http2`, `http2`,
/// `Writers`), a leading `.` dropped. A name joining words with `_` or `-`
/// is its [`FileKey::Name`] key; a name of one word is that word (its first
/// from [`words`]: the whole of a `camelCase` name); other names are left
/// out. A name in several places keeps its nearest.
pub fn path_names(file: &str) -> Vec<(String, f32)> {
    let parts = path_parts(file);
    let mut out: Vec<(String, f32)> = Vec::new();
    for (i, &(part, near)) in parts.iter().enumerate() {
        let part = part.trim_start_matches('.');
        let name = if i + 1 == parts.len() {
            part.split('.').next().unwrap_or(part)
        } else {
            part
        };
        if let Some(joined) = joined_name(name) {
            out.push((FileKey::Name(joined).word(), near));
        } else if !name.is_empty() && name.chars().all(char::is_alphanumeric) {
            let mut first = None;
            words(name, |w| {
                first.get_or_insert_with(|| w.to_string());
            });
            out.extend(first.map(|w| (w, near)));
        }
    }
    nearest_once(out)
}

/// A path's parts (`./` and empty parts dropped), each with its nearness to
/// the file: the part at depth `i` of `n`, `(i + 1) / n` (the file's name 1).
fn path_parts(file: &str) -> Vec<(&str, f32)> {
    let file = file.trim_start_matches("./");
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty()).collect();
    let n = parts.len() as f32;
    let near = |i: usize| (i + 1) as f32 / n;
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| (*p, near(i)))
        .collect()
}

/// Each word once, at its nearest, in word order.
fn nearest_once(mut words: Vec<(String, f32)>) -> Vec<(String, f32)> {
    words.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    words.dedup_by(|a, b| a.0 == b.0);
    words
}

/// The folder keys of a note (see [`FileKey::Folder`], [`FileKey::Near`],
/// and [`FileKey::Module`] for each dotted module it writes):
/// the folders its text names (a path of folders without an extension,
/// `services/billing/stripe`, or one folder with a trailing slash,
/// `tests/`), and, for nearness, every folder above them, the folders of
/// the files it names and the literal directories of its `paths`.
pub fn folder_keys(text: &str, paths: &[String]) -> Vec<FileKey> {
    let mut out = Vec::new();
    let near = |dir: &str, out: &mut Vec<FileKey>| {
        let mut d = dir;
        while !d.is_empty() {
            out.push(FileKey::Near(d.to_string()));
            d = d.rfind('/').map_or("", |i| &d[..i]);
        }
    };
    for token in tokens(text) {
        if let Some(path) = file_like(token) {
            if let Some(i) = path.rfind('/') {
                near(&path[..i], &mut out);
            }
        } else if let Some(dir) = folder_like(token) {
            out.push(FileKey::Folder(dir.clone()));
            near(&dir, &mut out);
        }
        if let Some(dir) = dotted_module(token) {
            out.push(FileKey::Module(dir));
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
        let dirs = if literal.len() == g.split('/').count() {
            literal.len().saturating_sub(1)
        } else {
            literal.len()
        };
        near(&literal[..dirs].join("/"), &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// A token that names a folder: `a/b` (segments of letters, digits and
/// `._-@+`, none an extension-like file name) or `name/`; trailing `/`, `.`,
/// `:` dropped, `./` too. Not a file ([`file_like`]), a URL, an absolute
/// path or a `<placeholder>`.
pub fn folder_like(token: &str) -> Option<String> {
    let t = token.trim_end_matches(['.', ':', '!', '?']);
    let t = t.strip_prefix("./").unwrap_or(t);
    let slash_end = t.ends_with('/');
    let t = t.trim_end_matches('/');
    if t.is_empty() || t.len() > 512 || t.starts_with(['/', '.', '~']) || t.contains("//") {
        return None;
    }
    let segments_ok = t.split('/').all(|seg| {
        !seg.is_empty()
            && seg != ".."
            && seg.chars().any(char::is_alphabetic)
            && seg
                .chars()
                .all(|c| c.is_alphanumeric() || "._-@+".contains(c))
    });
    if !segments_ok || (!t.contains('/') && !slash_end) || file_like(t).is_some() {
        return None;
    }
    Some(t.to_string())
}

/// A dotted module or package written in a note, as the path of folders
/// it is (`io.netty.util`: `io/netty/util`; `Tests.Readers.*`:
/// `Tests/Readers`; `Text.Pandoc.Writers.Docx`: `Text/Pandoc/Writers/Docx`,
/// a module whose last part may be a file's stem): three parts or more, or
/// two before a `.*`, each an identifier starting with a letter; trailing
/// punctuation dropped. Not a version (`v1.2.3`), a path or a name of two
/// parts (`Cargo.toml`, `Emby.Naming`: a file's or a folder's name).
pub fn dotted_module(token: &str) -> Option<String> {
    let t = token.trim_end_matches([':', '!', '?', ',']);
    let (t, star) = match t.strip_suffix(".*") {
        Some(t) => (t, true),
        None => (t.trim_end_matches('.'), false),
    };
    let parts: Vec<&str> = t.split('.').collect();
    let identifier = |p: &&str| {
        p.chars().next().is_some_and(char::is_alphabetic)
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    let enough = parts.len() >= 3 || (star && parts.len() == 2);
    if !enough || t.len() > 512 || !parts.iter().all(identifier) {
        return None;
    }
    Some(parts.join("/"))
}

/// A file's path words, as query words, each with its nearness to the file
/// (0 to 1): the words of its name (`webhook_test.go`: `webhook`, `test`),
/// its extension and the name of the extension's family (`go`; `ts`,
/// `typescript`) 1; the words of the folder at depth `j` of the file's `k`
/// folders, `j / (k + 1)` (the file's own folder counts most, the top
/// folder least). A word in several places keeps its nearest.
pub fn path_words(file: &str) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = Vec::new();
    for (part, near) in path_parts(file) {
        words(part, |w| out.push((w.to_string(), near)));
    }
    let name = base(file);
    if let Some(i) = name.rfind('.').filter(|&i| i > 0) {
        let family = ext_family(&name[i + 1..].to_ascii_lowercase());
        words(family, |w| out.push((w.to_string(), 1.0)));
    }
    nearest_once(out)
}

/// The name of the language or format family of an extension ('' when
/// none is known or it is its own name).
fn ext_family(ext: &str) -> &'static str {
    match ext {
        "rs" => "rust",
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "py" | "pyi" => "python",
        "rb" => "ruby",
        "md" | "mdx" | "markdown" => "markdown",
        "yml" | "yaml" => "yaml",
        "kt" | "kts" => "kotlin",
        "sh" | "bash" | "zsh" => "shell",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        _ => "",
    }
}

/// The folders above a file, nearest first, each with its depth (`a/b/c.rs`:
/// `a/b` 2, `a` 1) and the file's own folder depth.
pub fn folders_of(file: &str) -> (Vec<(&str, usize)>, usize) {
    let file = file.trim_start_matches("./");
    let depth = file.matches('/').count();
    let mut out = Vec::new();
    let mut dir = file;
    while let Some(i) = dir.rfind('/') {
        dir = &dir[..i];
        out.push((dir, dir.matches('/').count() + 1));
    }
    (out, depth)
}

/// The tokens of a note or prompt: split at white space, quotes, brackets,
/// commas and semicolons, none empty (what file names, values and their
/// holders are read from).
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || "`'\"()[]<>,;".contains(c))
        .filter(|t| !t.is_empty())
}

/// A token as written, without the punctuation around it (`fetch-tags;`
/// is `fetch-tags`; `_` and `-` are kept: `_mocha` is no `mocha`).
pub fn as_written(token: &str) -> &str {
    token.trim_matches(|c: char| !c.is_alphanumeric() && !"_-".contains(c))
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
    }

    #[test]
    fn folder_keys_name_folders_and_their_neighbourhood() {
        let keys = folder_keys(
            "Tests of services/billing/stripe need a key; see tests/ and src/db/pool.rs, and/or 1.2/3",
            &["crates/parser/src/**".into(), "!x/**".into(), "Makefile".into()],
        );
        let words: Vec<String> = keys.iter().map(FileKey::word).collect();
        for want in [
            "\u{1}dservices/billing/stripe",
            "\u{1}dtests",
            "\u{1}nservices/billing/stripe",
            "\u{1}nservices/billing",
            "\u{1}nservices",
            "\u{1}nsrc/db",
            "\u{1}nsrc",
            "\u{1}ncrates/parser/src",
            "\u{1}ncrates",
        ] {
            assert!(words.iter().any(|w| w == want), "{want:?} in {words:?}");
        }
        assert!(
            !words
                .iter()
                .any(|w| w.contains("1.2") || w.starts_with("\u{1}dsrc/db")),
            "{words:?}"
        );
        assert!(!words.iter().any(|w| w.contains("x")), "{words:?}");
        // "and/or" is a folder by its shape: harmless, it ties only files below and/or/.
        assert_eq!(folder_like("https://x.io/a"), None);
        assert_eq!(folder_like("/etc/hosts"), None);
        assert_eq!(folder_like("name"), None);
        assert_eq!(
            folder_like("packages/@biomejs/js-api/").as_deref(),
            Some("packages/@biomejs/js-api")
        );
    }

    #[test]
    fn dotted_modules_are_paths_of_folders() {
        for (token, want) in [
            ("io.netty.util", Some("io/netty/util")),
            ("`Tests.Readers.*`", None),
            ("Tests.Readers.*", Some("Tests/Readers")),
            (
                "org.mockito.internal.exceptions.",
                Some("org/mockito/internal/exceptions"),
            ),
            ("Text.Pandoc.Writers.Docx", Some("Text/Pandoc/Writers/Docx")),
            ("Emby.Naming", None),
            ("Cargo.toml", None),
            ("v1.2.3", None),
            ("1.2.3", None),
            ("e.g.", None),
            ("src/io.netty.util", None),
        ] {
            assert_eq!(dotted_module(token).as_deref(), want, "{token}");
        }
        let words: Vec<String> =
            folder_keys("Readers live in `Tests.Readers.*`; see io.netty.util.", &[])
                .iter()
                .map(FileKey::word)
                .collect();
        for want in ["\u{1}mTests/Readers", "\u{1}mio/netty/util"] {
            assert!(words.iter().any(|w| w == want), "{want:?} in {words:?}");
        }
    }

    #[test]
    fn pattern_keys_read_one_wildcard_or_placeholder_before_an_extension() {
        let keys = |t: &str| -> Vec<String> {
            pattern_keys(t)
                .into_iter()
                .map(|k| match k {
                    FileKey::Pattern(p) => p,
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        assert_eq!(keys("Unit tests are `<name>.spec.js` files"), ["*.spec.js"]);
        assert_eq!(
            keys("run src/**/test_*.py and *.snap."),
            ["*.snap", "test_*.py"]
        );
        assert_eq!(keys("Docs pages are cops_*.adoc"), ["cops_*.adoc"]);
        // Two runs, braces, no extension, a bare wildcard: no pattern.
        for t in [
            "issue-<n>-<slug>.test.ts",
            "{new,fix}_<x>.md",
            "packages/*",
            "a * b",
            "x*y",
        ] {
            assert!(keys(t).is_empty(), "{t}");
        }
    }

    #[test]
    fn name_keys_table() {
        let name = |n: &str| FileKey::Name(n.to_string());
        for (text, want) in [
            ("`lock_objects.py` in each app", vec![name("lock_objects")]),
            ("./mvnw -pl codec-http2 -am test", vec![name("codec-http2")]),
            (
                "the netty_unix_*.c helpers and *_JNI_OnLoad",
                vec![name("jni_onload"), name("netty_unix")],
            ),
            ("--vcr-record=once", vec![name("vcr-record")]),
            (
                "Emqx_Conf_Schema, emqx_conf_schema",
                vec![name("emqx_conf_schema")],
            ),
            (
                "plain words, ResourceLeakDetector, 2024-01-02, a - b",
                vec![],
            ),
        ] {
            assert_eq!(name_keys(text), want, "{text}");
        }
    }

    #[test]
    fn path_names_give_the_stem_and_each_folders_name_by_nearness() {
        let name = |n: &str| FileKey::Name(n.to_string()).word();
        for (file, want) in [
            (
                "codec-http2/src/Http2FrameCodecTest.java",
                vec![
                    (name("codec-http2"), 1.0 / 3.0),
                    ("http2framecodectest".to_string(), 1.0),
                    ("src".to_string(), 2.0 / 3.0),
                ],
            ),
            (
                "apps/emqx_conf/src/emqx_conf_schema.erl",
                vec![
                    (name("emqx_conf"), 0.5),
                    (name("emqx_conf_schema"), 1.0),
                    ("app".to_string(), 0.25),
                    ("src".to_string(), 0.75),
                ],
            ),
            (
                ".ci/UKenglish.lbx.strings",
                vec![("ci".to_string(), 0.5), ("ukenglish".to_string(), 1.0)],
            ),
            (
                "packages/@scope/.gitignore",
                vec![
                    ("gitignor".to_string(), 1.0),
                    ("packag".to_string(), 1.0 / 3.0),
                ],
            ),
        ] {
            let mut want = want;
            want.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(path_names(file), want, "{file}");
        }
    }

    #[test]
    fn path_words_give_folders_stem_extension_and_family() {
        let words = |f: &str| -> Vec<(String, f32)> { path_words(f) };
        assert_eq!(
            words("services/billing/stripe/webhook_test.go"),
            [
                ("bill".to_string(), 0.5),
                ("go".to_string(), 1.0),
                ("servic".to_string(), 0.25),
                ("stripe".to_string(), 0.75),
                ("test".to_string(), 1.0),
                ("webhook".to_string(), 1.0),
            ]
        );
        let names: Vec<String> = words("./src/useEffect.tsx")
            .into_iter()
            .map(|w| w.0)
            .collect();
        assert_eq!(
            names,
            ["effect", "src", "tsx", "typescript", "use", "useeffect"]
        );
        assert_eq!(folders_of("a/b/c.rs"), (vec![("a/b", 2), ("a", 1)], 2));
        assert_eq!(folders_of("Cargo.toml"), (vec![], 0));
    }
}
