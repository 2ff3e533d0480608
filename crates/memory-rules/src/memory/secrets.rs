//! Does a note hold a credential? Checked with gitleaks' rules, loaded as
//! data.
//!
//! The rules are gitleaks' default configuration (`config/gitleaks.toml`,
//! MIT, Zachary Rice and contributors), kept unmodified in
//! `crates/memory-rules/data/gitleaks/` with its licence and the commit it
//! came from; updating them is replacing that file. They are read the way
//! gitleaks reads them: a rule is tried only when one of its `keywords`
//! occurs in the text (one Aho-Corasick scan, case-insensitive), its regex
//! (RE2 syntax, which the `regex` engine accepts) is compiled the first time
//! it is tried, the secret is its `secretGroup` (else the first non-empty
//! group, else the whole match), a rule with `entropy` needs a secret of at
//! least that Shannon entropy, and the rule's and the global allowlists
//! (regexes on the secret, the match or the line; stopwords in the secret)
//! let a finding go. Rules on file paths only (`path` without `regex`) do not
//! apply to a note.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_automata::meta::Regex;
use serde::Deserialize;
use std::sync::OnceLock;
use thiserror::Error;

/// gitleaks' default rules (see the module comment).
const GITLEAKS_TOML: &str = include_str!("../../data/gitleaks/gitleaks.toml");

#[derive(Deserialize, Default)]
#[serde(default)]
struct GitleaksConfig {
    allowlist: Option<AllowSpec>,
    rules: Vec<RuleSpec>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RuleSpec {
    id: String,
    description: String,
    regex: Option<String>,
    secret_group: usize,
    entropy: Option<f64>,
    keywords: Vec<String>,
    path: Option<String>,
    allowlists: Vec<AllowSpec>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AllowSpec {
    condition: Option<String>,
    regex_target: Option<String>,
    regexes: Vec<String>,
    stopwords: Vec<String>,
    paths: Vec<String>,
}

/// What an allowlist's regexes are matched against.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AllowTarget {
    Secret,
    Match,
    Line,
}

struct Allow {
    target: AllowTarget,
    regexes: Vec<Lazy>,
    stopwords: Vec<String>,
    /// Only applies to files (a note has no path): skipped.
    paths_only: bool,
    and: bool,
}

/// A regex compiled the first time it is needed; `None` when the engine
/// refuses it (counted by [`SecretRules::refused`]).
struct Lazy {
    source: String,
    compiled: OnceLock<Option<Regex>>,
}

impl Lazy {
    fn new(source: String) -> Lazy {
        Lazy {
            source,
            compiled: OnceLock::new(),
        }
    }

    fn get(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| {
                // RE2 as gitleaks runs it (Go's regexp): `\w`, `\d`, `\s` and
                // classes are ASCII. Matching bytes, not only whole
                // characters, keeps each regex small and quick to compile.
                Regex::builder()
                    .syntax(
                        regex_automata::util::syntax::Config::new()
                            .unicode(false)
                            .utf8(false),
                    )
                    .configure(
                        Regex::config()
                            .nfa_size_limit(Some(64 << 20))
                            .hybrid_cache_capacity(8 << 20),
                    )
                    .build(&self.source)
                    .ok()
            })
            .as_ref()
    }
}

struct SecretRule {
    id: String,
    description: String,
    regex: Lazy,
    secret_group: usize,
    entropy: Option<f64>,
    allows: Vec<Allow>,
}

/// Why a gitleaks configuration could not be read: the TOML error, with
/// where it is.
#[derive(Debug, Error)]
#[error("invalid gitleaks configuration: {source}")]
pub struct GitleaksError {
    #[source]
    source: toml::de::Error,
}

/// gitleaks' rules, ready to check notes.
pub struct SecretRules {
    rules: Vec<SecretRule>,
    /// Keyword automaton: pattern `k` -> the rules that name keyword `k`.
    keywords: Option<AhoCorasick>,
    owners: Vec<Vec<usize>>,
    /// Rules without keywords: always tried.
    always: Vec<usize>,
    global: Vec<Allow>,
}

/// A credential found in a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretFinding {
    /// The gitleaks rule that found it (`github-pat`, `generic-api-key`).
    pub rule: String,
    pub description: String,
    /// The secret, with all but its first 4 characters masked.
    pub masked: String,
}

fn allow_of(spec: AllowSpec) -> Allow {
    Allow {
        target: match spec.regex_target.as_deref() {
            Some("match") => AllowTarget::Match,
            Some("line") => AllowTarget::Line,
            _ => AllowTarget::Secret,
        },
        regexes: spec.regexes.into_iter().map(Lazy::new).collect(),
        stopwords: spec
            .stopwords
            .into_iter()
            .map(|s| s.to_lowercase())
            .collect(),
        paths_only: !spec.paths.is_empty(),
        and: spec
            .condition
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("and")),
    }
}

impl SecretRules {
    /// The rules shipped with the engine (parsed once per process).
    pub fn shipped() -> &'static SecretRules {
        static RULES: OnceLock<SecretRules> = OnceLock::new();
        RULES.get_or_init(|| {
            SecretRules::parse(GITLEAKS_TOML).unwrap_or_else(|_| SecretRules::none())
        })
    }

    /// No rules at all.
    fn none() -> SecretRules {
        SecretRules {
            rules: Vec::new(),
            keywords: None,
            owners: Vec::new(),
            always: Vec::new(),
            global: Vec::new(),
        }
    }

    /// Rules from a gitleaks configuration's text.
    pub fn parse(toml_text: &str) -> Result<SecretRules, GitleaksError> {
        let config: GitleaksConfig =
            toml::from_str(toml_text).map_err(|source| GitleaksError { source })?;
        let mut rules = Vec::new();
        let mut words: Vec<String> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for spec in config.rules {
            let Some(regex) = spec.regex else {
                continue;
            };
            if spec.path.is_some() {
                // A rule tied to file paths: a note is no file.
                continue;
            }
            let at = rules.len();
            if spec.keywords.is_empty() {
                always.push(at);
            }
            for k in &spec.keywords {
                let k = k.to_lowercase();
                match words.iter().position(|w| *w == k) {
                    Some(i) => owners[i].push(at),
                    None => {
                        words.push(k);
                        owners.push(vec![at]);
                    }
                }
            }
            rules.push(SecretRule {
                id: spec.id,
                description: spec.description,
                regex: Lazy::new(regex),
                secret_group: spec.secret_group,
                entropy: spec.entropy,
                allows: spec.allowlists.into_iter().map(allow_of).collect(),
            });
        }
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&words)
            .ok();
        Ok(SecretRules {
            rules,
            keywords,
            owners,
            always,
            global: config.allowlist.into_iter().map(allow_of).collect(),
        })
    }

    #[cfg(test)]
    /// How many rules apply to notes.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    #[cfg(test)]
    /// The ids of the rules whose regex the engine refuses (compiles them all).
    pub fn refused(&self) -> Vec<&str> {
        self.rules
            .iter()
            .filter(|r| r.regex.get().is_none())
            .map(|r| r.id.as_str())
            .collect()
    }

    /// The first credential in `text`, by rule order.
    pub fn find(&self, text: &str) -> Option<SecretFinding> {
        let mut candidates: Vec<usize> = self.always.clone();
        if let Some(ac) = &self.keywords {
            for m in ac.find_overlapping_iter(text) {
                candidates.extend(&self.owners[m.pattern().as_usize()]);
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .find_map(|i| self.check(&self.rules[i], text))
    }

    fn check(&self, rule: &SecretRule, text: &str) -> Option<SecretFinding> {
        let re = rule.regex.get()?;
        let hay = text.as_bytes();
        let mut caps = re.create_captures();
        let mut at = 0;
        while at <= hay.len() {
            let input = regex_automata::Input::new(hay).span(at..hay.len());
            re.search_captures(&input, &mut caps);
            let whole = caps.get_match()?;
            at = whole.end().max(whole.start() + 1);
            let matched = &hay[whole.range()];
            let group = |g: usize| caps.get_group(g).map(|s| &hay[s.range()]);
            let secret = if rule.secret_group > 0 {
                group(rule.secret_group).unwrap_or(matched)
            } else {
                (1..caps.group_len())
                    .filter_map(group)
                    .find(|s| !s.is_empty())
                    .unwrap_or(matched)
            };
            if let Some(min) = rule.entropy {
                if shannon(&String::from_utf8_lossy(secret)) < min {
                    continue;
                }
            }
            let line = line_of(hay, whole.start(), whole.end());
            let allowed = rule
                .allows
                .iter()
                .chain(&self.global)
                .any(|a| a.allows(secret, matched, line));
            if allowed {
                continue;
            }
            return Some(SecretFinding {
                rule: rule.id.clone(),
                description: rule.description.clone(),
                masked: mask(&String::from_utf8_lossy(secret)),
            });
        }
        None
    }
}

impl Allow {
    fn allows(&self, secret: &[u8], matched: &[u8], line: &[u8]) -> bool {
        if self.paths_only && self.and {
            // Needs a path as well: never met by a note.
            return false;
        }
        let subject = match self.target {
            AllowTarget::Secret => secret,
            AllowTarget::Match => matched,
            AllowTarget::Line => line,
        };
        let by_regex = self
            .regexes
            .iter()
            .any(|r| r.get().is_some_and(|re| re.is_match(subject)));
        let lower = String::from_utf8_lossy(secret).to_lowercase();
        let by_stopword = self.stopwords.iter().any(|w| lower.contains(w.as_str()));
        if self.and {
            let need_regex = !self.regexes.is_empty();
            let need_stop = !self.stopwords.is_empty();
            (!need_regex || by_regex) && (!need_stop || by_stopword) && (need_regex || need_stop)
        } else {
            by_regex || by_stopword
        }
    }
}

/// The line (bytes, without its newline) holding `start..end`.
fn line_of(hay: &[u8], start: usize, end: usize) -> &[u8] {
    let s = hay[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let e = hay[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(hay.len(), |i| end + i);
    &hay[s..e]
}

/// Shannon entropy of the characters of `s`, in bits.
pub fn shannon(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

fn mask(secret: &str) -> String {
    let shown: String = secret.chars().take(4).collect();
    format!(
        "{shown}{}",
        "*".repeat(secret.chars().count().saturating_sub(4).min(16))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_that_is_not_toml_is_an_error_naming_it() {
        let err = SecretRules::parse("[[rules]\nid = ").err().unwrap();
        assert!(err
            .to_string()
            .starts_with("invalid gitleaks configuration: "));
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn the_shipped_rules_load_and_every_regex_compiles() {
        let rules = SecretRules::shipped();
        assert!(rules.len() > 200, "{}", rules.len());
        assert_eq!(rules.refused(), Vec::<&str>::new());
    }

    #[test]
    fn credentials_are_found_and_ordinary_notes_are_not() {
        let rules = SecretRules::shipped();
        // Fake credentials of real shapes (none is live).
        for (note, rule) in [
            ("The CI token is ghp_a8Kd2LqPz9Xw3MvN7bTcY1eRf5GhJ0uVsQiZ", "github-pat"),
            ("aws key AKIAQYLPMN5HHHFPZAM2 for the bucket", "aws-access-token"),
            ("export STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dcEXAMPLEtok3n", "stripe-access-token"),
            ("slack bot: xoxb-2608112741-2608921837381-Jv7kF1qLhP9sZ2mN4bX8cR3t", "slack-bot-token"),
            ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7V3Xb9q2Lf0mYcJ4s8KpTQ1ZrW6nHdE5vGxU3aBiO0yNkPjRtSlC\n-----END RSA PRIVATE KEY-----", "private-key"),
        ] {
            let f = rules.find(note).unwrap_or_else(|| panic!("missed {note}"));
            assert_eq!(f.rule, rule, "{note}");
            assert!(f.masked.contains('*'));
        }
        for note in [
            "The staging database listens on port 5433.",
            "Store the API key in 1Password, never in the repo.",
            "Run `cargo nextest run` for the integration tests.",
            "GITHUB_TOKEN comes from the workflow's secrets.",
            "password: <in the team's secrets manager>",
        ] {
            assert_eq!(rules.find(note), None, "{note}");
        }
    }

    #[test]
    fn shannon_table() {
        assert_eq!(shannon(""), 0.0);
        assert_eq!(shannon("aaaa"), 0.0);
        assert!((shannon("ab") - 1.0).abs() < 1e-9);
        assert!((shannon("abcd") - 2.0).abs() < 1e-9);
    }
}
