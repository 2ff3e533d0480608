//! The values a note states, by kind: commands (a code span or a quoted
//! string), flags, versions, numbers, addresses, accounts, paths and
//! settings; two notes on one subject with different values of one kind
//! conflict (hygiene.rs).

use super::terms;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The kind of a value a note states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueKind {
    Command,
    Version,
    Number,
    Address,
    Account,
    Flag,
    /// A file or folder (`src/db/pool.rs`, `vendor/bin/phpunit`, `tests/`).
    Path,
    /// A variable or setting given a value (`RUST_LOG=debug`).
    Setting,
    /// Not a value: one says what the other denies (`denies` in hygiene.rs).
    Polarity,
    /// Not a value: the words a newer note retires (`replacing black`;
    /// superseding in hygiene.rs).
    Name,
}

impl ValueKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ValueKind::Command => "command",
            ValueKind::Version => "version",
            ValueKind::Number => "number",
            ValueKind::Address => "address",
            ValueKind::Account => "account",
            ValueKind::Flag => "flag",
            ValueKind::Path => "path",
            ValueKind::Setting => "setting",
            ValueKind::Polarity => "polarity",
            ValueKind::Name => "name",
        }
    }
}

/// The values a text states, and the text without them (for its subject).
/// Code spans are commands; outside them, URLs are addresses, e-mail
/// addresses and `@name`s accounts, dotted numbers versions, and the other
/// numbers numbers.
pub fn values(text: &str) -> (BTreeSet<(ValueKind, String)>, String) {
    let mut out = BTreeSet::new();
    let mut rest = String::with_capacity(text.len());
    // Code spans first: what is inside is one value. Segment `i` of the
    // split is inside backticks when `i` is odd and a backtick closes it.
    let mut plain = String::with_capacity(text.len());
    let segments: Vec<&str> = text.split('`').collect();
    for (i, seg) in segments.iter().enumerate() {
        if i % 2 == 1 && i + 1 < segments.len() {
            let code = command(seg);
            if !code.is_empty() {
                out.insert(literal_value(code));
            }
            plain.push(' ');
        } else {
            if i % 2 == 1 {
                plain.push('`');
            }
            plain.push_str(seg);
        }
    }
    let plain = quoted(&plain, &mut out);
    for token in plain.split(|c: char| c.is_whitespace() || "()[]<>,;\"'".contains(c)) {
        out.extend(assigned(token).and_then(token_value));
        match token_value(token) {
            // A path is a word of the subject too.
            Some(value) if value.0 == ValueKind::Path => {
                out.insert(value);
                rest.push_str(token);
                rest.push(' ');
            }
            Some(value) => {
                out.insert(value);
                rest.push(' ');
            }
            None => {
                rest.push_str(token);
                rest.push(' ');
            }
        }
    }
    (out, rest)
}

/// The text without its double-quoted strings (`"r"`, `“main”`), each one
/// a value as a code span is.
pub(crate) fn quoted(text: &str, out: &mut BTreeSet<(ValueKind, String)>) -> String {
    let text = text.replace(['\u{201c}', '\u{201d}'], "\"");
    let segments: Vec<&str> = text.split('"').collect();
    let mut plain = String::with_capacity(text.len());
    for (i, seg) in segments.iter().enumerate() {
        if i % 2 == 1 && i + 1 < segments.len() {
            let literal = command(seg);
            if !literal.is_empty() {
                out.insert(literal_value(literal));
            }
            plain.push(' ');
        } else {
            plain.push_str(seg);
        }
    }
    plain
}

/// The value a word of text (between white space and brackets) states, if
/// any (see [`values`]).
pub(crate) fn token_value(token: &str) -> Option<(ValueKind, String)> {
    let t = token.trim_end_matches(['.', ':', '!', '?']);
    let t = t.strip_suffix('%').unwrap_or(t);
    let kind = if t.contains("://") || is_host_port(t) || is_network(t) {
        ValueKind::Address
    } else if let Some(version) = pinned_version(t) {
        return Some((ValueKind::Version, version.to_string()));
    } else if let Some(name) = flag(t) {
        return Some((ValueKind::Flag, name.to_string()));
    } else if is_setting(t) {
        ValueKind::Setting
    } else if is_account(t) {
        ValueKind::Account
    } else if let Some(version) = version_of(t) {
        return Some((ValueKind::Version, version.to_string()));
    } else if is_number(t) || is_date(t) || is_quantity(t) || is_measure(t) {
        ValueKind::Number
    } else if let Some(n) = spelled_number(t) {
        return Some((ValueKind::Number, n.to_string()));
    } else if let Some(path) = path(token) {
        return Some((ValueKind::Path, path.to_lowercase()));
    } else {
        return None;
    };
    Some((kind, t.to_lowercase()))
}

/// `2026-10-21`, `2028-04` (as [`dated`] writes `April 2028`): a date, a
/// number of its own.
pub(crate) fn is_date(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    let digits = |p: &str, most: usize| {
        !p.is_empty() && p.len() <= most && p.bytes().all(|b| b.is_ascii_digit())
    };
    (2..=3).contains(&parts.len())
        && parts[0].len() == 4
        && digits(parts[0], 4)
        && parts[1..].iter().all(|p| digits(p, 2))
}

/// Digits only (`5433`), or digits grouped with `_` as code writes them
/// (`1_000_000`).
fn is_number(t: &str) -> bool {
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    digits(t) || (t.contains('_') && t.split('_').all(digits))
}

/// A major version alone (`5` of `@v5`, `27` of `v27`): a number of at
/// most four digits.
fn is_major(t: &str) -> bool {
    is_number(t) && t.len() <= 4
}

/// A number with its unit in one word: `3m`, `30s`, `512MB`.
fn is_quantity(t: &str) -> bool {
    let unit = t.trim_start_matches(|c: char| c.is_ascii_digit());
    unit.len() < t.len()
        && (1..=3).contains(&unit.len())
        && unit.chars().all(|c| c.is_ascii_alphabetic())
}

/// A number and its unit joined by a hyphen: `4-space`, `120-column`,
/// `64-bit` (the unit a word of letters).
fn is_measure(t: &str) -> bool {
    t.split_once('-').is_some_and(|(n, unit)| {
        is_number(n) && unit.len() >= 2 && unit.chars().all(|c| c.is_ascii_alphabetic())
    })
}

/// A name pinned at a version: `apache/kafka:3.7.0`, `actions/checkout@v4.2.1`,
/// `golang-builder:1.26-base`: the version after the last `:` or `@`.
fn pinned_version(t: &str) -> Option<&str> {
    let at = t.rfind([':', '@'])?;
    let (name, version) = (&t[..at], &t[at + 1..]);
    let bare = version.trim_start_matches(['v', 'V']);
    let named = name.chars().any(|c| c.is_ascii_alphabetic()) && !name.contains("://");
    // `actions/checkout@v4`, `node@20`: a major alone, pinned with `@`
    // (not `:`, which also ends `file.rs:42`).
    let major = t[at..].starts_with('@') && is_major(bare);
    (named && (is_version(bare) || tagged_version(bare) || major)).then_some(bare)
}

/// An IPv4 network: `10.0.0.0/16` (an address with its prefix length).
fn is_network(t: &str) -> bool {
    t.split_once('/').is_some_and(|(ip, bits)| {
        let parts: Vec<&str> = ip.split('.').collect();
        parts.len() == 4
            && parts.iter().all(|p| p.parse::<u8>().is_ok())
            && bits.parse::<u8>().is_ok_and(|b| b <= 32)
    })
}

/// The value a flag or a setting is given (`--test-threads=4`,
/// `version=4.0.0-SNAPSHOT`): a value of its own, beside the flag or the
/// setting.
pub(crate) fn assigned(token: &str) -> Option<&str> {
    let (_, given) = token.split_once('=')?;
    (flag(token).is_some() || is_setting(token)).then_some(given)
}

/// English month names (and their first three letters, `Sept`): 1 to 12.
fn month(word: &str) -> Option<usize> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let w = word.trim_end_matches(['.', ',']).to_lowercase();
    let named = |m: &&str| {
        *m == w || (w.len() == 3 && m.starts_with(&w)) || w == "sept" && *m == "september"
    };
    MONTHS.iter().position(named).map(|i| i + 1)
}

/// The text with its dates in English words written as numbers: `April
/// 2028` is `2028-04`, `June 24, 2026` and `4 Aug 2026` are `2026-06-24`
/// and `2026-08-04` (a month is a value, not a word: `October 2028` is
/// another date than `April 2028`).
pub(crate) fn dated(text: &str) -> Cow<'_, str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i, mut changed) = (0, 0, false);
    while i < words.len() {
        let Some((n, date)) = date_at(&words[i..]) else {
            i += 1;
            continue;
        };
        let start = words[i].as_ptr() as usize - text.as_ptr() as usize;
        let last = words[i + n - 1];
        let end = last.as_ptr() as usize - text.as_ptr() as usize + last.len();
        out.push_str(&text[copied..start]);
        out.push_str(&date);
        (copied, i, changed) = (end, i + n, true);
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// A year (1900 to 2099) a word starts with, and what follows it (`2026).`).
fn year(t: &str) -> Option<(&str, &str)> {
    let y = t.trim_end_matches(|c: char| !c.is_ascii_digit());
    let year = y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit());
    (year && (y.starts_with("19") || y.starts_with("20"))).then(|| (y, &t[y.len()..]))
}

/// A day of a month (`4`, `24,`, `21st`).
fn day(t: &str) -> Option<u8> {
    let d = t.trim_end_matches(',');
    let d = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| d.strip_suffix(s))
        .unwrap_or(d);
    d.parse::<u8>().ok().filter(|d| (1..=31).contains(d))
}

/// The date the words start with (see [`dated`]): how many words it
/// takes, and it as numbers with what punctuation the words had around it.
fn date_at(ws: &[&str]) -> Option<(usize, String)> {
    let first = ws.first()?;
    let lead_len = first.len()
        - first
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .len();
    let (lead, ws0) = first.split_at(lead_len);
    let word = |i: usize| {
        if i == 0 {
            Some(ws0)
        } else {
            ws.get(i).copied()
        }
    };
    if let (Some(d), Some(m), Some((y, tail))) = (
        word(0).and_then(day),
        word(1).and_then(month),
        word(2).and_then(year),
    ) {
        return Some((3, format!("{lead}{y}-{m:02}-{d:02}{tail}")));
    }
    let m = month(word(0)?)?;
    if let Some((y, tail)) = word(1).and_then(year) {
        return Some((2, format!("{lead}{y}-{m:02}{tail}")));
    }
    let d = word(1).and_then(day)?;
    let (y, tail) = word(2).and_then(year)?;
    Some((3, format!("{lead}{y}-{m:02}-{d:02}{tail}")))
}

/// English's numbers one to twelve, spelled (`two` is 2).
pub(crate) fn spelled_number(t: &str) -> Option<usize> {
    const NUMBERS: [&str; 12] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve",
    ];
    let t = t.to_lowercase();
    NUMBERS.iter().position(|n| *n == t).map(|i| i + 1)
}

/// A file or folder a word names, as file keys find them
/// ([`terms::file_like`], [`terms::folder_like`]: `src/db/pool.rs`,
/// `vendor/bin/phpunit`, `tests/`, `parent-X.Y.Z`), not an abbreviation
/// (`e.g.`: no part of it longer than a letter).
pub(crate) fn path(token: &str) -> Option<String> {
    let literal;
    let token = if token.contains(['*', '?', '[', '{']) {
        // A glob names its literal folders: `cli/docs/*.md` is `cli/docs`.
        let kept: Vec<&str> = token
            .split('/')
            .filter(|seg| !seg.contains(['*', '?', '[', '{']))
            .collect();
        literal = format!("{}/", kept.join("/"));
        literal.as_str()
    } else {
        token
    };
    let p = terms::file_like(token).or_else(|| terms::folder_like(token))?;
    let abbreviation = !p.contains('/') && p.split('.').all(|s| s.chars().count() <= 1);
    (!abbreviation).then_some(p)
}

/// A name and its number in one word, as runner images, toolchains and
/// bases are named (`clang-18`, `macos-14`, `core22`,
/// `nightly-2026-05-04`): the name (two letters or more) and the number (a
/// major of at most four digits, or a date). Not a value of [`values`]:
/// `utf-8` or `arm64` would clash with every other number.
pub(crate) fn glued_number(token: &str) -> Option<(&str, &str)> {
    let t = token.trim_end_matches(['.', ':', '!', '?']);
    let (name, number) = t.split_at(t.find(|c: char| c.is_ascii_digit())?);
    let name = name.strip_suffix('-').unwrap_or(name);
    let named = name.len() >= 2 && name.chars().all(|c| c.is_ascii_alphabetic());
    (named && (is_major(number) || is_date(number))).then_some((name, number))
}

/// Whether two paths name one place in other spellings: the parts of one
/// are a run of the other's (`CHANGELOG.md` and
/// `packages/app/CHANGELOG.md`, `cli/docs` and `cli/docs/a.md`).
pub(crate) fn same_place(a: &str, b: &str) -> bool {
    let parts = |p: &str| -> Vec<String> {
        p.split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (parts(a), parts(b));
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    !short.is_empty() && long.windows(short.len()).any(|w| w == short.as_slice())
}

/// `NAME=value`, `key=value` outside a code span (a flag's is the flag's):
/// an environment variable or a setting given its value.
pub(crate) fn is_setting(t: &str) -> bool {
    t.split_once('=').is_some_and(|(name, value)| {
        name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
            && !value.is_empty()
            && !value.starts_with('=')
    })
}

/// `host:port`: `localhost:3000`, `127.0.0.1:8080`, `db:5432`.
pub(crate) fn is_host_port(t: &str) -> bool {
    t.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty()
            && !port.is_empty()
            && port.len() <= 5
            && port.bytes().all(|b| b.is_ascii_digit())
            && host.chars().any(|c| c.is_ascii_alphanumeric())
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c))
    })
}

/// A command as compared: white space folded, quotes dropped, `--flag=x`
/// as `--flag x`, placeholders (`<rule>`, `<crate-name>`) left out: they
/// stand for what the reader puts there, so `"allow <rule>"` and `"allow"`
/// name one command.
pub(crate) fn command(code: &str) -> String {
    let unquoted: String = code.chars().filter(|c| !"\"'".contains(*c)).collect();
    unquoted
        .split_whitespace()
        .filter(|t| !is_placeholder(t))
        .map(|t| match flag(t) {
            Some(name) if t.len() > name.len() => format!("{name} {}", &t[name.len() + 1..]),
            _ => t.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A code span's or a quoted string's value: a version when it is one
/// and nothing else (`Version = "5.4.0"`), else a command.
fn literal_value(literal: String) -> (ValueKind, String) {
    match token_value(&literal) {
        Some((ValueKind::Version, v)) if !literal.contains(char::is_whitespace) => {
            (ValueKind::Version, v)
        }
        _ => (ValueKind::Command, literal),
    }
}

/// Whether a word of a command is a placeholder: `<name>`.
fn is_placeholder(t: &str) -> bool {
    t.len() > 2 && t.starts_with('<') && t.ends_with('>') && !t[1..t.len() - 1].contains(['<', '>'])
}

/// The name of a flag (`-x`, `--use-cross`, `--features=pcre2`'s
/// `--features`), outside code spans too.
pub(crate) fn flag(t: &str) -> Option<&str> {
    let name = t.split('=').next().unwrap_or(t);
    let bare = name.strip_prefix("--").or_else(|| name.strip_prefix('-'))?;
    (bare.starts_with(|c: char| c.is_ascii_alphabetic())
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then_some(name)
}

pub(crate) fn is_account(t: &str) -> bool {
    if let Some(name) = t.strip_prefix('@') {
        return !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || "-_./".contains(c))
            && name.chars().any(char::is_alphabetic);
    }
    match t.split_once('@') {
        Some((user, host)) => {
            !user.is_empty() && host.contains('.') && !host.starts_with('.') && !host.contains('/')
        }
        None => false,
    }
}

/// A version, ranges' marks dropped: `v1.2`, `^0.20.0`, `~1.2`, `>=3.10`,
/// `setuptools>=80`'s `80`.
pub(crate) fn version_of(t: &str) -> Option<&str> {
    let given = match t.find(['>', '<', '=', '~', '^']) {
        Some(at) => t[at..].trim_start_matches(['>', '<', '=', '~', '^']),
        None => t,
    };
    let bare = given.trim_start_matches(['v', 'V']);
    let ranged = given.len() != t.len();
    // `v27`: a major alone, said as a tag (a lower-case `v`; `V8` is the engine).
    let major = given.starts_with('v') && bare.len() + 1 == given.len() && is_major(bare);
    if is_version(given)
        || (ranged && is_number(bare))
        || (!ranged && (tagged_version(bare) || major))
    {
        return Some(bare);
    }
    // `python3.14`, `release-0.17`: a name and its version in one word.
    let (name, rest) = t.split_at(t.find(|c: char| c.is_ascii_digit())?);
    let name = name.strip_suffix('-').unwrap_or(name);
    let named = name.len() >= 2 && name.chars().all(|c| c.is_ascii_alphabetic() || c == '-');
    (named && !ranged && is_version(rest)).then_some(rest)
}

/// English's marks of a pre-release (`rc`, `beta1`, `alpha`) and `x` (any).
const VERSION_TAGS: &[&str] = &["alpha", "beta", "rc", "pre", "dev", "x"];

/// A version with a pre-release or a wildcard: `3.15.0-rc.0`,
/// `8.2.0.beta1`, `20.x`.
fn tagged_version(t: &str) -> bool {
    let tagged = |tag: &str| {
        VERSION_TAGS.iter().any(|m| {
            tag.strip_prefix(m)
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        })
    };
    let core = |c: &str| is_version(c) || is_number(c);
    if let Some((c, tag)) = t.split_once('-') {
        // `1.5.6-6`, `4.0.0-SNAPSHOT`: a dotted version takes any build tag.
        let build = !tag.is_empty()
            && tag.len() <= 12
            && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
        return core(c) && tagged(tag) || is_version(c) && build;
    }
    // `2.14.0b1`, `3.0rc2`: a pre-release glued on, as PEP 440 writes it.
    let glued = t.find(|c: char| c.is_ascii_alphabetic()).is_some_and(|at| {
        let (c, tag) = t.split_at(at);
        let short = ["a", "b", "rc"].iter().any(|m| {
            tag.strip_prefix(m)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        is_version(c) && (short || tagged(tag))
    });
    glued
        || t.rsplit_once('.')
            .is_some_and(|(c, tag)| core(c) && tagged(tag))
}

pub(crate) fn is_version(t: &str) -> bool {
    let t = t.strip_prefix(['v', 'V']).unwrap_or(t);
    let parts: Vec<&str> = t.split('.').collect();
    parts.len() >= 2
        && parts.len() <= 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Two versions in release order: part by part (at `.`, `-`, `+`), parts
/// that are numbers as numbers (`0.271.0` after `0.27.0`, `1.10` after
/// `1.9`), others as text (`beta1` after `alpha`); a version that is a
/// prefix of the other comes first.
pub(crate) fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    let parts = |v| -> Vec<&str> { str::split(v, ['.', '-', '+']).collect() };
    let (pa, pb) = (parts(a), parts(b));
    for (x, y) in pa.iter().zip(&pb) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(m), Ok(n)) => m.cmp(&n),
            _ => x.cmp(y),
        };
        if order.is_ne() {
            return order;
        }
    }
    pa.len().cmp(&pb.len())
}

/// Whether two versions are one release, trailing zero parts aside (`2.2`
/// and `2.2.0`; not `2.2` and `2.2.1`).
pub(crate) fn same_version(a: &str, b: &str) -> bool {
    let trimmed = |v: &str| -> String {
        let mut v = v.to_string();
        while let Some(rest) = v.strip_suffix(".0").filter(|r| r.contains('.')) {
            v = rest.to_string();
        }
        v
    };
    a == b || trimmed(a) == trimmed(b)
}

/// Whether every version of `new` is older than every one of `old`: no
/// newer value of it (`Poetry 2.3.0 was released ...` after `Poetry 2.4.0
/// was released ...` is another fact, an older release's).
pub(crate) fn all_older(new: &[String], old: &[String]) -> bool {
    !new.is_empty()
        && new
            .iter()
            .all(|n| old.iter().all(|o| version_order(n, o).is_lt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_images_build_tags_networks_and_hyphenated_measures_are_values() {
        let v = |t: &str| token_value(t);
        let version = |x: &str| Some((ValueKind::Version, x.to_string()));
        assert_eq!(v("apache/kafka:3.7.0"), version("3.7.0"));
        assert_eq!(v("clowdhaus/terraform-min-max@v2.1.0"), version("2.1.0"));
        assert_eq!(
            v("quay.io/x/golang-builder:1.26-base"),
            version("1.26-base")
        );
        assert_eq!(v("1.5.6-6"), version("1.5.6-6"));
        assert_eq!(v("4.0.0-SNAPSHOT"), version("4.0.0-SNAPSHOT"));
        assert_eq!(
            v("10.0.0.0/16"),
            Some((ValueKind::Address, "10.0.0.0/16".to_string()))
        );
        assert_eq!(
            v("4-space"),
            Some((ValueKind::Number, "4-space".to_string()))
        );
        assert_eq!(v("localhost:3000").map(|x| x.0), Some(ValueKind::Address));
        assert_eq!(v("ops@example.com").map(|x| x.0), Some(ValueKind::Account));
        assert_eq!(v("2026-10-21").map(|x| x.0), Some(ValueKind::Number));
        assert_eq!(v("x86-64"), None);
    }

    #[test]
    fn a_major_pinned_with_at_or_tagged_with_v_a_glued_pre_release_are_versions_grouped_digits_a_number(
    ) {
        let v = |t: &str| token_value(t);
        let version = |x: &str| Some((ValueKind::Version, x.to_string()));
        assert_eq!(v("codecov/codecov-action@v5"), version("5"));
        assert_eq!(v("node@20"), version("20"));
        assert_eq!(v("v27"), version("27"));
        assert_ne!(v("src/main.rs:42"), version("42"), "a line, not a tag");
        assert_eq!(v("V8"), None, "the engine");
        assert_eq!(
            v("1_200_000"),
            Some((ValueKind::Number, "1_200_000".to_string()))
        );
        assert_eq!(v("1__0").map(|x| x.0), None);
        assert_eq!(v("2.14.0b2"), version("2.14.0b2"));
        assert_eq!(v("3.0rc1"), version("3.0rc1"));
        assert_ne!(v("1.2ab").map(|x| x.0), Some(ValueKind::Version));
    }

    #[test]
    fn a_quoted_version_is_a_version_and_a_quoted_command_a_command() {
        let (found, _) = values("version.go sets Version = \"5.4.0\"; run `go 1.24.0`.");
        assert!(found.contains(&(ValueKind::Version, "5.4.0".to_string())));
        assert!(found.contains(&(ValueKind::Command, "go 1.24.0".to_string())));
    }

    #[test]
    fn a_settings_value_is_a_value_too() {
        let (found, _) = values("trunk's gradle.properties sets version=4.0.0-SNAPSHOT.");
        assert!(found.contains(&(ValueKind::Version, "4.0.0-SNAPSHOT".to_string())));
        assert!(found.contains(&(ValueKind::Setting, "version=4.0.0-snapshot".to_string())));
        let (found, _) = values("Set RUST_LOG=debug.");
        assert_eq!(found.len(), 1, "debug is no value of its own");
    }

    #[test]
    fn versions_are_ordered_part_by_part_numbers_as_numbers() {
        assert!(version_order("1.10", "1.9").is_gt());
        assert!(version_order("0.271.0", "0.27.0").is_gt());
        assert!(version_order("8.2.0.alpha", "8.2.0.beta1").is_lt());
        assert!(version_order("3.15", "3.15.0").is_lt());
        assert!(version_order("2.4.0", "2.4.0").is_eq());
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(all_older(&s(&["2.3.0"]), &s(&["2.4.0", "2.5"])));
        assert!(!all_older(&s(&["3.20"]), &s(&["3.17", "8.20.0"])));
        assert!(!all_older(&s(&[]), &s(&["1.0"])));
    }
}
