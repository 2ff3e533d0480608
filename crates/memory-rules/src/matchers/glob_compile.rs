//! Translates a minimatch pattern (`{dot: true}`) into globset globs.
//!
//! Rule files are written for the agent SDK's TypeScript matcher, which calls
//! `minimatch(file, pattern, { dot: true })`. globset is faster but its syntax
//! differs in the corners, so every pattern goes through this module once, at
//! load time:
//!
//! - A leading `!` negates (`!!` cancels out); a leading `#` is a comment that
//!   matches nothing; leading `./` is dropped, as context files are too.
//! - Braces follow `brace-expansion`: `{a,b}` and sequences `{1..3}`,
//!   `{a..e}`, `{1..9..2}`, `{01..10}` expand; `{a}` and `{}` stay literal;
//!   braces nest. They become globset alternates, except where an alternate
//!   holds or touches `**`, which is expanded into separate globs so `**`
//!   keeps its "whole segment" meaning.
//! - `**` is recursive only as a whole path segment; anywhere else it is `*`.
//! - `?` and classes match one character, not one byte. globset matches
//!   bytes, so a pattern using them is compiled to a Unicode regex instead
//!   (see [`Matcher`]); every other pattern stays a globset glob.
//! - `[...]`, `[!...]` and `[^...]` classes never match `/`, and one that
//!   would span a `/` is literal text (minimatch splits at `/` first);
//!   repeated `/` collapse.
//! - Extglobs (`+(a|b)`, `@(...)`, `!(...)`, `*(...)`, `?(...)`) and POSIX
//!   classes (`[[:alpha:]]`) are refused with [`PatternError::Unsupported`]
//!   rather than silently matching something else.

use crate::base::limits::{MAX_BRACE_DEPTH, MAX_EXPANDED_CHARS, MAX_PATTERN_CHARS};
use globset::{Glob, GlobBuilder};
use thiserror::Error;

pub use crate::base::limits::MAX_EXPANSIONS;

/// Why a pattern cannot be used.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PatternError {
    /// The pattern is empty (or only `!`).
    #[error("empty pattern")]
    Empty,
    /// Starts with `#`: a comment in minimatch, which never matches.
    #[error("a pattern starting with '#' is a comment in minimatch and never matches; write '\\#' for a literal '#'")]
    Comment,
    /// Valid minimatch syntax that we do not implement.
    #[error("{0} is not supported")]
    Unsupported(String),
    /// Brace expansion produces too many patterns (or too much text).
    #[error("braces expand to more than {MAX_EXPANSIONS} patterns or {MAX_EXPANDED_CHARS} characters (limit)")]
    TooManyExpansions,
    /// The pattern is longer than the limit.
    #[error("pattern is {0} characters, over the {MAX_PATTERN_CHARS}-character limit")]
    TooLong(usize),
    /// Braces nest deeper than the limit.
    #[error("braces nest more than {MAX_BRACE_DEPTH} deep (limit)")]
    TooDeep,
    /// globset refused the translated glob.
    #[error("{0}")]
    Invalid(String),
}

/// One compiled form of a pattern.
///
/// A glob is kept as its globset text (checked to build when the pattern was
/// compiled), not as a `globset::Glob`: a `Glob` holds its text, its regex
/// and a token per character (0.7-1.5 KB), and every parsed rule is kept for
/// reload. The rule set looks most globs up by their text and builds a
/// `Glob` ([`glob`]) only for the few shapes it cannot.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// A globset glob's text (`literal_separator`, `backslash_escape`,
    /// `empty_alternates`); [`glob`] builds it.
    Glob(Box<str>),
    /// An anchored regex in Unicode mode, for patterns with `?` or classes.
    Regex(String),
}

/// A pattern ready to be added to a rule set.
#[derive(Clone, Debug)]
pub struct CompiledPattern {
    /// The pattern excludes (`!` prefix).
    pub negated: bool,
    /// One or more matchers; a path matches the pattern if any matches.
    pub matchers: Vec<Matcher>,
}

impl CompiledPattern {
    /// Whether `path` (normalized, relative) matches, ignoring negation.
    /// For tests and tools; the rule set matches all patterns at once.
    pub fn is_match(&self, path: &str) -> bool {
        self.matchers.iter().any(|m| match m {
            Matcher::Glob(g) => glob(g).is_ok_and(|g| g.compile_matcher().is_match(path)),
            Matcher::Regex(r) => {
                regex_automata::meta::Regex::new(r).is_ok_and(|re| re.is_match(path))
            }
        })
    }
}

/// Compiles one minimatch pattern. The result's globs use
/// `literal_separator(true)` and `backslash_escape(true)`.
pub fn compile(pattern: &str) -> Result<CompiledPattern, PatternError> {
    compile_with(pattern, false)
}

/// [`compile`], optionally case-insensitive (Unicode simple case folding), as
/// VS Code matches Copilot's `applyTo`. A case-insensitive pattern always
/// takes the regex route, since the glob index looks paths up verbatim.
pub fn compile_with(
    pattern: &str,
    case_insensitive: bool,
) -> Result<CompiledPattern, PatternError> {
    let (negated, body) = split_negation(pattern);
    if body.starts_with('#') {
        return Err(PatternError::Comment);
    }
    let mut body = body;
    while let Some(rest) = body.strip_prefix("./") {
        body = rest;
    }
    if body.is_empty() {
        return Err(PatternError::Empty);
    }
    let count = body.chars().count();
    if count > MAX_PATTERN_CHARS {
        return Err(PatternError::TooLong(count));
    }
    let chars: Vec<char> = body.chars().collect();
    let seq = Parser::new(&chars).parse_seq(0, chars.len(), 0)?;
    let seqs = if needs_expansion(&seq) || expansions(&seq) <= SMALL_EXPANSION {
        expand(&seq)?
    } else {
        let mut out = Vec::new();
        let mut size = 0usize;
        for s in expand_leading(seq)? {
            for t in expand_trailing(s) {
                size += t.len();
                out.push(t);
            }
            if out.len() > MAX_EXPANSIONS || size > MAX_EXPANDED_CHARS {
                return Err(PatternError::TooManyExpansions);
            }
        }
        out
    };
    let unicode = case_insensitive || seqs.iter().any(|s| needs_unicode(s));
    let flags = if case_insensitive { "(?i)" } else { "" };
    let mut texts: Vec<String> = seqs
        .iter()
        .map(|s| {
            if unicode {
                format!("{flags}{}", emit_regex(s))
            } else {
                emit(s)
            }
        })
        .collect();
    texts.sort();
    texts.dedup();
    let matchers = texts
        .into_iter()
        .map(|text| {
            if unicode {
                check_regex(text).map(Matcher::Regex)
            } else {
                glob(&text).map(|_| Matcher::Glob(text.into_boxed_str()))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CompiledPattern { negated, matchers })
}

fn check_regex(text: String) -> Result<String, PatternError> {
    match regex_automata::meta::Regex::new(&text) {
        Ok(_) => Ok(text),
        Err(e) => Err(PatternError::Invalid(e.to_string())),
    }
}

/// Splits leading `!`s off: an odd count negates.
pub fn split_negation(pattern: &str) -> (bool, &str) {
    let body = pattern.trim_start_matches('!');
    let bangs = pattern.len() - body.len();
    (bangs % 2 == 1, body)
}

/// Builds the globset glob of a [`Matcher::Glob`]'s text (with the options
/// every glob of a rule set uses).
pub fn glob(text: &str) -> Result<Glob, PatternError> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map_err(|e| PatternError::Invalid(e.kind().to_string()))
}

#[derive(Clone, Debug, PartialEq)]
enum BraceNode {
    /// A literal character.
    Lit(char),
    /// A run of `n` stars.
    Star(usize),
    /// `?`
    Any,
    /// A character class: negated?, inclusive ranges (never containing `/`
    /// as a listed member).
    Class(bool, Vec<(char, char)>),
    /// Alternatives (from braces).
    Alt(Vec<Vec<BraceNode>>),
}

/// A recursive-descent parser whose recursion is bounded by the brace depth
/// ([`MAX_BRACE_DEPTH`]) and whose scans are linear: brace pairs are matched
/// once up front, `:]` positions are precomputed, and a class scan that
/// failed marks the positions it visited so later scans stop there.
struct Parser<'a> {
    chars: &'a [char],
    /// For each `{`: the index of its matching `}` (escapes honored).
    brace_close: Vec<Option<usize>>,
    /// For each index: the first `k >= index` with `chars[k..k+2] == ":]"`.
    posix_close: Vec<usize>,
    /// For each index: the `end` of a failed class scan that visited it (0: none).
    dead: Vec<usize>,
    /// Characters looked at, over every scan (the work, for tests).
    steps: usize,
}

/// How many characters the parser looks at for `pattern` (all scans
/// together): the work bound the tests check (a small multiple of the length).
#[doc(hidden)]
// Used by the crate's own tests only (through `internals`).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn parse_steps(pattern: &str) -> usize {
    let chars: Vec<char> = pattern.chars().collect();
    let mut p = Parser::new(&chars);
    let _ = p.parse_seq(0, chars.len(), 0);
    p.steps + chars.len() * 2
}

impl<'a> Parser<'a> {
    fn new(chars: &'a [char]) -> Self {
        let n = chars.len();
        let mut brace_close = vec![None; n];
        let mut open = Vec::new();
        let mut i = 0;
        while i < n {
            match chars[i] {
                '\\' => i += 1,
                '{' => open.push(i),
                '}' => {
                    if let Some(o) = open.pop() {
                        brace_close[o] = Some(i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        let mut posix_close = vec![usize::MAX; n + 1];
        for k in (0..n).rev() {
            posix_close[k] = if chars[k] == ':' && chars.get(k + 1) == Some(&']') {
                k
            } else {
                posix_close[k + 1]
            };
        }
        Parser {
            chars,
            brace_close,
            posix_close,
            dead: vec![0; n],
            steps: 0,
        }
    }

    /// Parses `chars[start..end]` (at brace nesting `depth`) into nodes.
    fn parse_seq(
        &mut self,
        start: usize,
        end: usize,
        depth: usize,
    ) -> Result<Vec<BraceNode>, PatternError> {
        if depth > MAX_BRACE_DEPTH {
            return Err(PatternError::TooDeep);
        }
        let c = self.chars;
        let mut out = Vec::new();
        let mut i = start;
        while i < end {
            self.steps += 1;
            let ch = c[i];
            if matches!(ch, '+' | '@' | '!' | '*' | '?') && i + 1 < end && c[i + 1] == '(' {
                return Err(PatternError::Unsupported(format!(
                    "the extglob '{ch}(...)'"
                )));
            }
            match ch {
                '\\' => {
                    // A trailing backslash is a literal backslash.
                    out.push(BraceNode::Lit(if i + 1 < end { c[i + 1] } else { '\\' }));
                    i += 2;
                }
                '*' => {
                    let run = c[i..end].iter().take_while(|&&x| x == '*').count();
                    out.push(BraceNode::Star(run));
                    i += run;
                }
                '?' => {
                    out.push(BraceNode::Any);
                    i += 1;
                }
                '[' => match self.parse_class(i, end)? {
                    Some((node, next)) => {
                        out.push(node);
                        i = next;
                    }
                    None => {
                        out.push(BraceNode::Lit('['));
                        i += 1;
                    }
                },
                '{' => match self.parse_braces(i, end, depth)? {
                    Some((node, next)) => {
                        out.push(node);
                        i = next;
                    }
                    None => {
                        out.push(BraceNode::Lit('{'));
                        i += 1;
                    }
                },
                // minimatch collapses repeated separators.
                '/' if out.last() == Some(&BraceNode::Lit('/')) => i += 1,
                _ => {
                    out.push(BraceNode::Lit(ch));
                    i += 1;
                }
            }
        }
        Ok(out)
    }

    /// A class starting at `start` (`[`). `None` when it never closes: then
    /// the `[` is literal, as in minimatch.
    fn parse_class(
        &mut self,
        start: usize,
        end: usize,
    ) -> Result<Option<(BraceNode, usize)>, PatternError> {
        let c = self.chars;
        let mut i = start + 1;
        let negated = i < end && (c[i] == '!' || c[i] == '^');
        if negated {
            i += 1;
        }
        let mut items: Vec<(char, char)> = Vec::new();
        let mut visited = Vec::new();
        let first = i;
        let failed = |p: &mut Self, visited: &[usize]| {
            for &v in visited {
                p.dead[v] = p.dead[v].max(end);
            }
            Ok(None)
        };
        while i < end {
            self.steps += 1;
            let ch = c[i];
            if ch == '/' {
                // minimatch splits the pattern at '/' before it reads classes,
                // so a class never spans one: the '[' is literal.
                return failed(self, &visited);
            }
            if ch == ']' && i > first {
                return Ok(Some((BraceNode::Class(negated, items), i + 1)));
            }
            // A scan that failed passed here, within at least this range, and
            // scans from one position on are the same (a ']' is never marked).
            if self.dead[i] >= end {
                return failed(self, &visited);
            }
            if ch != ']' {
                visited.push(i);
            }
            if ch == '[' && i + 1 < end && c[i + 1] == ':' {
                let close = self.posix_close[i + 2];
                if close < end.saturating_sub(1) {
                    let name: String = c[i + 2..close].iter().collect();
                    return Err(PatternError::Unsupported(format!(
                        "the POSIX class '[:{name}:]'"
                    )));
                }
            }
            let (lo, next) = if ch == '\\' && i + 1 < end {
                (c[i + 1], i + 2)
            } else {
                (ch, i + 1)
            };
            if next + 1 < end && c[next] == '-' && c[next + 1] != ']' {
                let (hi, after) = if c[next + 1] == '\\' && next + 2 < end {
                    (c[next + 2], next + 3)
                } else {
                    (c[next + 1], next + 2)
                };
                if lo <= hi {
                    items.push((lo, hi));
                }
                i = after;
            } else {
                items.push((lo, lo));
                i = next;
            }
        }
        failed(self, &visited)
    }

    /// Braces starting at `start` (`{`), following brace-expansion: a set
    /// needs a top-level comma or a valid sequence, else it is literal.
    fn parse_braces(
        &mut self,
        start: usize,
        end: usize,
        nesting: usize,
    ) -> Result<Option<(BraceNode, usize)>, PatternError> {
        let c = self.chars;
        let Some(close) = self.brace_close[start].filter(|&k| k < end) else {
            return Ok(None);
        };
        if nesting + 1 > MAX_BRACE_DEPTH {
            return Err(PatternError::TooDeep);
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut i = start;
        while i < close {
            self.steps += 1;
            match c[i] {
                '\\' => i += 1,
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                ',' if depth == 1 => commas.push(i),
                _ => {}
            }
            i += 1;
        }
        if commas.is_empty() {
            let inner: String = c[start + 1..close].iter().collect();
            return Ok(sequence(&inner)?.map(|items| {
                let alts = items
                    .into_iter()
                    .map(|s| s.chars().map(BraceNode::Lit).collect())
                    .collect();
                (BraceNode::Alt(alts), close + 1)
            }));
        }
        let mut alts = Vec::with_capacity(commas.len() + 1);
        let mut from = start + 1;
        for &comma in commas.iter().chain(std::iter::once(&close)) {
            alts.push(self.parse_seq(from, comma, nesting + 1)?);
            from = comma + 1;
        }
        Ok(Some((BraceNode::Alt(alts), close + 1)))
    }
}

/// A brace sequence body (`1..3`, `a..e`, `1..10..2`, `01..10`), expanded.
/// The size (count times width, zero padding included) is checked before
/// anything is expanded.
fn sequence(inner: &str) -> Result<Option<Vec<String>>, PatternError> {
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return Ok(None);
    }
    let step = match parts.get(2) {
        Some(s) => match s.parse::<i64>() {
            Ok(n) => n.unsigned_abs().max(1),
            Err(_) => return Ok(None),
        },
        None => 1,
    };
    let (a, b) = (parts[0], parts[1]);
    let count = |from: i64, to: i64| (from.abs_diff(to) / step).saturating_add(1);
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let padded = |s: &str| {
            s.trim_start_matches('-').len() > 1 && s.trim_start_matches('-').starts_with('0')
        };
        let width = if padded(a) || padded(b) {
            a.len().max(b.len())
        } else {
            0
        };
        let n = count(x, y);
        // Every value takes at most max(width, 20) characters (an i64).
        if n > MAX_EXPANSIONS as u64
            || n.saturating_mul(width.max(20) as u64) > MAX_EXPANDED_CHARS as u64
        {
            return Err(PatternError::TooManyExpansions);
        }
        return Ok(Some(stepped(x, y, step).map(|v| pad(v, width)).collect()));
    }
    let mut ac = a.chars();
    let mut bc = b.chars();
    if let (Some(x), None, Some(y), None) = (ac.next(), ac.next(), bc.next(), bc.next()) {
        if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() {
            let values = stepped(x as i64, y as i64, step);
            return Ok(Some(
                values
                    .filter_map(|n| u32::try_from(n).ok().and_then(char::from_u32))
                    .map(String::from)
                    .collect(),
            ));
        }
    }
    Ok(None)
}

/// `from`, `from ± step`, ... up to `to` inclusive (no overflow for any step).
fn stepped(from: i64, to: i64, step: u64) -> impl Iterator<Item = i64> {
    let n = (from.abs_diff(to) / step).saturating_add(1);
    let dir: i128 = if from <= to { 1 } else { -1 };
    (0..n as i128).map(move |k| (from as i128 + dir * k * step as i128) as i64)
}

fn pad(n: i64, width: usize) -> String {
    if n < 0 {
        format!("-{:0>w$}", n.unsigned_abs(), w = width.saturating_sub(1))
    } else {
        format!("{n:0>width$}")
    }
}

/// True when braces must be expanded into separate globs rather than emitted
/// as globset alternates: when `**` sits inside an alternate or next to one.
fn needs_expansion(seq: &[BraceNode]) -> bool {
    let globstar = |n: &BraceNode| matches!(n, BraceNode::Star(2));
    seq.iter().enumerate().any(|(i, node)| match node {
        BraceNode::Alt(alts) => {
            alts.iter()
                .any(|alt| alt.iter().any(globstar) || needs_expansion(alt))
                || (i > 0 && globstar(&seq[i - 1]))
                || seq.get(i + 1).is_some_and(globstar)
        }
        _ => false,
    })
}

/// Patterns whose braces expand to at most this many globs are expanded
/// whole: `packages/app/{lib,test}/**/*.ts` becomes two globs the rule set
/// looks up by prefix and suffix (a few bytes each), where one glob with an
/// alternate would need a compiled regex of its own (about 9 KB).
const SMALL_EXPANSION: usize = 16;

/// How many flat sequences `seq` expands to (counting stops past
/// [`SMALL_EXPANSION`]).
fn expansions(seq: &[BraceNode]) -> usize {
    seq.iter().fold(1usize, |acc, node| match node {
        BraceNode::Alt(alts) => {
            let options = alts
                .iter()
                .fold(0usize, |n, alt| n.saturating_add(expansions(alt)))
                .min(SMALL_EXPANSION + 1);
            acc.saturating_mul(options).min(SMALL_EXPANSION + 1)
        }
        _ => acc,
    })
}

/// Expands a leading alternate (`{src,lib}/**/*.ts` into `src/**/*.ts` and
/// `lib/**/*.ts`), so each glob starts with its literal directory, which the
/// rule set indexes by. Later alternates stay as they are. Iterative, with
/// every node copied counted against [`MAX_EXPANDED_CHARS`].
fn expand_leading(seq: Vec<BraceNode>) -> Result<Vec<Vec<BraceNode>>, PatternError> {
    let mut out = Vec::new();
    let mut work = vec![seq];
    let mut copied = 0usize;
    while let Some(seq) = work.pop() {
        let Some(BraceNode::Alt(alts)) = seq.first() else {
            out.push(seq);
            if out.len() > MAX_EXPANSIONS {
                return Err(PatternError::TooManyExpansions);
            }
            continue;
        };
        // Reversed so the output keeps the alternates' order.
        for alt in alts.iter().rev() {
            copied += alt.len() + seq.len();
            if copied > MAX_EXPANDED_CHARS || work.len() > MAX_EXPANSIONS {
                return Err(PatternError::TooManyExpansions);
            }
            let mut s = alt.clone();
            s.extend(seq[1..].iter().cloned());
            work.push(s);
        }
    }
    Ok(out)
}

/// Expands a trailing alternate of plain alternatives (`src/**/*.{ts,tsx}`
/// into `src/**/*.ts` and `src/**/*.tsx`): the rule set looks those shapes up
/// by file-name suffix instead of running a regex.
fn expand_trailing(seq: Vec<BraceNode>) -> Vec<Vec<BraceNode>> {
    let Some(BraceNode::Alt(alts)) = seq.last() else {
        return vec![seq];
    };
    let plain = |alt: &Vec<BraceNode>| {
        alt.iter()
            .all(|n| matches!(n, BraceNode::Lit(c) if *c != '/'))
    };
    if !alts.iter().all(plain) {
        return vec![seq];
    }
    let head = &seq[..seq.len() - 1];
    alts.iter()
        .map(|alt| head.iter().cloned().chain(alt.iter().cloned()).collect())
        .collect()
}

/// Expands every alternate into flat sequences (the cartesian product).
fn expand(seq: &[BraceNode]) -> Result<Vec<Vec<BraceNode>>, PatternError> {
    let mut acc: Vec<Vec<BraceNode>> = vec![Vec::new()];
    for node in seq {
        match node {
            BraceNode::Alt(alts) => {
                let mut options = Vec::new();
                for alt in alts {
                    options.extend(expand(alt)?);
                    if options.len() > MAX_EXPANSIONS {
                        return Err(PatternError::TooManyExpansions);
                    }
                }
                // The size of the product, computed before building it.
                let acc_len: usize = acc.iter().map(Vec::len).sum();
                let opt_len: usize = options.iter().map(Vec::len).sum();
                let size = acc_len
                    .saturating_mul(options.len())
                    .saturating_add(opt_len.saturating_mul(acc.len()));
                if acc.len().saturating_mul(options.len()) > MAX_EXPANSIONS
                    || size > MAX_EXPANDED_CHARS
                {
                    return Err(PatternError::TooManyExpansions);
                }
                acc = acc
                    .iter()
                    .flat_map(|prefix| {
                        options.iter().map(move |opt| {
                            let mut v = prefix.clone();
                            v.extend(opt.iter().cloned());
                            v
                        })
                    })
                    .collect();
            }
            other => acc.iter_mut().for_each(|v| v.push(other.clone())),
        }
    }
    Ok(acc)
}

/// Writes nodes as globset syntax.
fn emit(seq: &[BraceNode]) -> String {
    let mut out = String::new();
    emit_into(seq, &mut out);
    out
}

fn emit_into(seq: &[BraceNode], out: &mut String) {
    for (i, node) in seq.iter().enumerate() {
        match node {
            BraceNode::Lit(ch) => {
                if matches!(ch, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | ',') {
                    out.push('\\');
                }
                out.push(*ch);
            }
            BraceNode::Star(n) => {
                let seg_start = i == 0 || seq[i - 1] == BraceNode::Lit('/');
                let seg_end = i + 1 == seq.len() || seq[i + 1] == BraceNode::Lit('/');
                out.push_str(if *n == 2 && seg_start && seg_end {
                    "**"
                } else {
                    "*"
                });
            }
            // Patterns with `?` or classes take the regex route.
            BraceNode::Any | BraceNode::Class(..) => out.push('?'),
            BraceNode::Alt(alts) => {
                out.push('{');
                for (k, alt) in alts.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    emit_into(alt, out);
                }
                out.push('}');
            }
        }
    }
}

/// True when the sequence has `?` or a class, which must match a character.
fn needs_unicode(seq: &[BraceNode]) -> bool {
    seq.iter().any(|n| match n {
        BraceNode::Any | BraceNode::Class(..) => true,
        BraceNode::Alt(alts) => alts.iter().any(|a| needs_unicode(a)),
        _ => false,
    })
}

/// Writes nodes as an anchored Unicode regex with the same meaning as the
/// globset glob would have (globstars as whole segments only).
fn emit_regex(seq: &[BraceNode]) -> String {
    let mut out = String::from("^");
    emit_regex_into(seq, &mut out);
    out.push('$');
    out
}

fn emit_regex_into(seq: &[BraceNode], out: &mut String) {
    let mut i = 0;
    while i < seq.len() {
        match &seq[i] {
            BraceNode::Lit(ch) => out.push_str(&regex_syntax::escape(ch.encode_utf8(&mut [0; 4]))),
            BraceNode::Star(n) => {
                let seg_start = i == 0 || seq[i - 1] == BraceNode::Lit('/');
                let next_slash = seq.get(i + 1) == Some(&BraceNode::Lit('/'));
                let seg_end = i + 1 == seq.len() || next_slash;
                if *n == 2 && seg_start && seg_end {
                    if next_slash {
                        // `**/`: zero or more whole directories.
                        out.push_str("(?:[^/]*(?:/[^/]*)*/)?");
                        i += 1;
                    } else {
                        out.push_str(".*");
                    }
                } else {
                    out.push_str("[^/]*");
                }
            }
            BraceNode::Any => out.push_str("[^/]"),
            BraceNode::Class(negated, items) => {
                out.push_str(if *negated { "[^/" } else { "[[" });
                for &(lo, hi) in items {
                    out.push_str(&format!("\\x{{{:x}}}", lo as u32));
                    if hi != lo {
                        out.push_str(&format!("-\\x{{{:x}}}", hi as u32));
                    }
                }
                out.push_str(if *negated { "]" } else { "]&&[^/]]" });
            }
            BraceNode::Alt(alts) => {
                out.push_str("(?:");
                for (k, alt) in alts.iter().enumerate() {
                    if k > 0 {
                        out.push('|');
                    }
                    emit_regex_into(alt, out);
                }
                out.push(')');
            }
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(pattern: &str, path: &str) -> bool {
        let p = compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert!(!p.negated);
        p.is_match(path)
    }

    macro_rules! yes {
        ($name:ident, $pat:expr, $path:expr) => {
            #[test]
            fn $name() {
                assert!(is_match($pat, $path), "{} should match {}", $pat, $path);
            }
        };
    }
    macro_rules! no {
        ($name:ident, $pat:expr, $path:expr) => {
            #[test]
            fn $name() {
                assert!(
                    !is_match($pat, $path),
                    "{} should not match {}",
                    $pat,
                    $path
                );
            }
        };
    }

    // `*` and `?` never cross `/`; dot files match (`dot: true`).
    yes!(star_top, "*.ts", "a.ts");
    no!(star_no_cross, "*.ts", "src/a.ts");
    yes!(star_dotfile, "*", ".env");
    yes!(star_dotdir, "src/*/x.ts", "src/.hidden/x.ts");
    yes!(qmark, "a?.ts", "ab.ts");
    no!(qmark_no_slash, "a?b", "a/b");
    // `**` as a segment spans zero or more directories.
    yes!(globstar_zero, "src/**/*.ts", "src/a.ts");
    yes!(globstar_many, "src/**/*.ts", "src/a/b/c.ts");
    yes!(globstar_dot, "**/*.ts", ".github/x/a.ts");
    yes!(globstar_lead_zero, "**/a.ts", "a.ts");
    yes!(globstar_suffix, "src/**", "src/a/b");
    yes!(globstar_alone, "**", "a/b/c");
    // `**` inside a segment is just `*`.
    yes!(double_star_in_segment, "a**b", "axxb");
    no!(double_star_in_segment_no_cross, "a**b", "ax/xb");
    no!(double_star_prefix_no_cross, "src/**.ts", "src/a/b.ts");
    // Only exactly `**` is a globstar (minimatch): `***` is `*`.
    no!(triple_star_no_cross, "***", "a/a");
    yes!(triple_star_segment, "***/b", "a/b");
    no!(triple_star_regex_route_no_cross, "***/?", "a/b/c");
    // Braces.
    yes!(brace_simple, "*.{ts,tsx}", "a.tsx");
    yes!(brace_dirs, "{src,lib}/**/*.ts", "lib/x/a.ts");
    yes!(brace_nested, "a.{js,{ts,tsx}}", "a.tsx");
    yes!(brace_empty_alt, "a{,b}.ts", "a.ts");
    yes!(brace_range_num, "f{1..3}.ts", "f2.ts");
    no!(brace_range_num_out, "f{1..3}.ts", "f4.ts");
    yes!(brace_range_rev, "f{3..1}.ts", "f1.ts");
    yes!(brace_range_step, "f{1..9..4}.ts", "f5.ts");
    no!(brace_range_step_skip, "f{1..9..4}.ts", "f3.ts");
    yes!(brace_range_pad, "f{01..10}.ts", "f07.ts");
    yes!(brace_range_alpha, "{a..c}.md", "b.md");
    no!(brace_range_alpha_out, "{a..c}.md", "d.md");
    yes!(brace_single_literal, "{a}.md", "{a}.md");
    no!(brace_single_not_alt, "{a}.md", "a.md");
    yes!(brace_unclosed_literal, "{a,b.md", "{a,b.md");
    yes!(brace_globstar_inside_zero, "{a/**,b}/c", "a/c");
    yes!(brace_globstar_inside_many, "{a/**,b}/c", "a/x/y/c");
    yes!(brace_globstar_next, "**/{a,b}/**", "q/a/z");
    yes!(brace_with_slash, "{src,lib/sub}/*.ts", "lib/sub/a.ts");
    // Classes.
    yes!(class_simple, "[abc].ts", "b.ts");
    yes!(class_range, "v[0-9].md", "v7.md");
    yes!(class_negated, "[!a].ts", "b.ts");
    no!(class_negated_miss, "[!a].ts", "a.ts");
    yes!(class_caret, "[^a].ts", "b.ts");
    no!(class_negated_no_slash, "x[!a]y", "x/y");
    yes!(class_bracket_first, "[]a].ts", "].ts");
    yes!(class_bang_inside, "[a!].ts", "!.ts");
    yes!(class_dash_last, "[a-].ts", "-.ts");
    yes!(class_unclosed_literal, "[ab", "[ab");
    // Escapes.
    yes!(escape_star, "\\*.md", "*.md");
    no!(escape_star_literal, "\\*.md", "a.md");
    yes!(escape_brace, "\\{a,b\\}.md", "{a,b}.md");
    yes!(escape_comma_in_brace, "{a\\,b,c}.md", "a,b.md");
    yes!(literal_comma, "a,b.md", "a,b.md");
    yes!(leading_dot_slash, "./src/*.ts", "src/a.ts");
    yes!(double_slash_collapses, "a//b.txt", "a/b.txt");
    no!(class_never_spans_slash, "x[!/]y", "xay");
    yes!(class_never_spans_slash_literal, "x[!/]y", "x[!/]y");

    #[test]
    fn negation() {
        assert!(compile("!*.ts").unwrap().negated);
        assert!(!compile("!!*.ts").unwrap().negated);
        assert!(compile("!!!*.ts").unwrap().negated);
    }

    #[test]
    fn refusals() {
        for (pat, want) in [
            ("", PatternError::Empty),
            ("!", PatternError::Empty),
            ("# note", PatternError::Comment),
        ] {
            assert_eq!(compile(pat).unwrap_err(), want, "{pat}");
        }
        for pat in [
            "+(a|b).ts",
            "src/@(a|b)/x",
            "a/!(b)",
            "*(x)",
            "?(x)",
            "[[:alpha:]].md",
            "x[[:digit:]x]",
        ] {
            assert!(
                matches!(compile(pat), Err(PatternError::Unsupported(_))),
                "{pat}"
            );
        }
        assert_eq!(
            compile("{1..100000}").unwrap_err(),
            PatternError::TooManyExpansions
        );
        let wide = "{a,b,c,d}".repeat(6) + "/**";
        assert!(
            compile(&wide).is_ok(),
            "alternates without ** are not expanded"
        );
        let wide_globstar = "{a/**,b,c,d}".repeat(6);
        assert_eq!(
            compile(&wide_globstar).unwrap_err(),
            PatternError::TooManyExpansions
        );
    }

    #[test]
    fn expansion_only_where_needed() {
        assert_eq!(
            compile("src/{a,b}/**/*.{ts,js}x").unwrap().matchers.len(),
            4,
            "braces of few expansions are expanded whole"
        );
        let texts = |p: &str| -> Vec<String> {
            compile(p)
                .unwrap()
                .matchers
                .iter()
                .map(|m| match m {
                    Matcher::Glob(t) => t.to_string(),
                    Matcher::Regex(r) => r.clone(),
                })
                .collect()
        };
        assert_eq!(
            texts("pkg/{lib,test}/**/*.ts"),
            ["pkg/lib/**/*.ts", "pkg/test/**/*.ts"]
        );
        assert_eq!(
            compile("src/{a,b,c,d,e}/{f,g,h,i}/x")
                .unwrap()
                .matchers
                .len(),
            1,
            "20 expansions stay one glob with alternates"
        );
        assert_eq!(
            compile("src/**/*.{ts,tsx}").unwrap().matchers.len(),
            2,
            "a trailing alternate is expanded"
        );
        assert_eq!(
            compile("{src,lib}/**/*.{ts,tsx}").unwrap().matchers.len(),
            4,
            "leading and trailing"
        );
        assert_eq!(
            texts("src/**/*.{ts,*.x}"),
            ["src/**/*.*.x", "src/**/*.ts"],
            "a small product is expanded whatever its alternatives hold"
        );
        assert_eq!(compile("{a/**,b}/c").unwrap().matchers.len(), 2);
    }

    #[test]
    fn only_patterns_with_qmark_or_class_take_the_regex_route() {
        let route = |p: &str| matches!(compile(p).unwrap().matchers[0], Matcher::Regex(_));
        assert!(!route("src/**/*.{ts,tsx}"));
        assert!(route("a?.md"));
        assert!(route("{x,[ab]}.md"));
    }

    // Characters, not bytes.
    yes!(qmark_multibyte, "?.md", "é.md");
    no!(qmark_two_for_one_char, "??.md", "é.md");
    yes!(qmark_cjk, "??.md", "日本.md");
    yes!(class_multibyte, "[é].md", "é.md");
    yes!(class_negated_multibyte, "[!a].md", "é.md");
    yes!(regex_route_globstar_zero, "**/?.md", "a.md");
    yes!(regex_route_globstar_mid, "src/**/[ab].md", "src/x/y/a.md");
    yes!(regex_route_globstar_mid_zero, "src/**/[ab].md", "src/a.md");
    no!(regex_route_star_no_cross, "*/[ab].md", "x/y/a.md");
    yes!(regex_route_suffix, "[st]rc/**", "src/a/b");
    no!(regex_route_range_never_slash, "a[!-0]b", "a/b");
    yes!(regex_route_literal_meta, "[a](x+y).md", "a(x+y).md");
}
