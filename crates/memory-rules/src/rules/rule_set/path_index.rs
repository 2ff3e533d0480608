//! The path side of a rule set: every distinct glob of every rule stored
//! once with the (rule, pattern) pairs that own it, indexed by literal
//! directory prefix (`GlobIndex`), plus one multi-pattern Unicode regex for
//! the rare patterns with `?` or a class. Built on a set's first path match
//! (`RuleSet::paths`), so an event that matches no file compiles nothing.

use crate::matchers::glob_compile::Matcher;
use crate::matchers::glob_index::GlobIndex;
use crate::rules::parser::RulePattern;
use regex_automata::{meta::Regex, MatchKind};
use rustc_hash::FxHashMap;

/// Who owns a matcher of the set.
#[derive(Clone, Copy, Debug)]
pub(super) struct Owner {
    pub(super) rule: u32,
    /// Index of the pattern in the rule's `metadata.paths`.
    pub(super) pattern: u32,
    pub(super) negated: bool,
}

/// The compiled path matchers of a rule set.
#[derive(Debug, Default)]
pub(super) struct PathIndex {
    /// Owners of each distinct matcher (glob or regex), by matcher id.
    pub(super) owners: Vec<Vec<Owner>>,
    /// The glob matchers, by id.
    pub(super) globs: GlobIndex,
    /// Patterns with `?` or classes, matched by character (see `pattern`).
    pub(super) regexes: Option<Regex>,
    /// Matcher id of each pattern of `regexes`.
    pub(super) regex_ids: Vec<u32>,
    /// Rules with at least one `!` pattern need per-file bookkeeping.
    pub(super) has_negation: Vec<bool>,
}

impl PathIndex {
    /// The index of each rule's compiled `patterns` (rules in result order).
    pub(super) fn build(patterns: &[Vec<RulePattern>]) -> PathIndex {
        let table = MatcherTable::new(patterns);
        let regexes = table.regexes();
        PathIndex {
            owners: table.owners,
            globs: GlobIndex::build(table.globs),
            // Without a compiled set, its patterns match nothing.
            regex_ids: if regexes.is_some() {
                table.regex_ids
            } else {
                Vec::new()
            },
            regexes,
            has_negation: table.has_negation,
        }
    }
}

/// Every distinct matcher (glob or regex) of the rules' patterns, each once
/// with the (rule, pattern) pairs that own it, by matcher id.
#[derive(Default)]
struct MatcherTable<'a> {
    owners: Vec<Vec<Owner>>,
    /// Matcher id of each distinct (is regex, text).
    ids: FxHashMap<(bool, &'a str), u32>,
    /// The globs, with their matcher id.
    globs: Vec<(Box<str>, u32)>,
    regex_texts: Vec<String>,
    /// Matcher id of each of `regex_texts`.
    regex_ids: Vec<u32>,
    /// Per rule: whether it has a `!` pattern.
    has_negation: Vec<bool>,
}

impl<'a> MatcherTable<'a> {
    /// The matchers of each rule's `patterns` (rules in result order).
    fn new(patterns: &'a [Vec<RulePattern>]) -> MatcherTable<'a> {
        let mut table = MatcherTable {
            has_negation: vec![false; patterns.len()],
            ..MatcherTable::default()
        };
        for (r, p) in patterns.iter().enumerate() {
            for pat in p {
                table.has_negation[r] |= pat.compiled.negated;
                let owner = Owner {
                    rule: r as u32,
                    pattern: pat.index as u32,
                    negated: pat.compiled.negated,
                };
                for matcher in &pat.compiled.matchers {
                    table.add(matcher, owner);
                }
            }
        }
        table
    }

    /// Adds `owner` to `matcher`'s owners (a new id for a new matcher).
    fn add(&mut self, matcher: &'a Matcher, owner: Owner) {
        let key = match matcher {
            Matcher::Glob(text) => (false, &**text),
            Matcher::Regex(text) => (true, text.as_str()),
        };
        let next = self.owners.len() as u32;
        let id = *self.ids.entry(key).or_insert(next);
        if id == next {
            self.owners.push(Vec::new());
            match matcher {
                Matcher::Glob(text) => self.globs.push((text.clone(), id)),
                Matcher::Regex(text) => {
                    self.regex_texts.push(text.clone());
                    self.regex_ids.push(id);
                }
            }
        }
        self.owners[id as usize].push(owner);
    }

    /// The regex matchers in one multi-pattern regex (`None` when there are
    /// none, or they do not build).
    fn regexes(&self) -> Option<Regex> {
        if self.regex_texts.is_empty() {
            return None;
        }
        Regex::builder()
            .configure(Regex::config().match_kind(MatchKind::All))
            .build_many(&self.regex_texts)
            .ok()
    }
}
