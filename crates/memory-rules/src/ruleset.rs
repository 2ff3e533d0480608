//! The compiled rule set: every pattern of every rule in one `GlobSet` (plus
//! one multi-pattern Unicode regex for the rare patterns with `?` or a class),
//! every topic in one `TopicMatcher`, built once per discovery. Activation
//! touches each context file once.

use crate::context::Workdir;
use crate::parse::ParsedRule;
use crate::pattern::Matcher;
use crate::rule::{self, Rule};
use crate::topics::{TopicHit, TopicMatcher};
use globset::{Candidate, GlobSet, GlobSetBuilder};
use regex_automata::{meta::Regex, Input, MatchKind, PatternSet};

/// Who owns a glob of the set.
#[derive(Clone, Copy, Debug)]
struct Owner {
    rule: u32,
    /// Index of the pattern in the rule's `metadata.paths`.
    pattern: u32,
    negated: bool,
}

/// Rules in result order, with their compiled triggers.
#[derive(Debug, Default)]
pub struct RuleSet {
    rules: Vec<Rule>,
    globs: GlobSet,
    /// Owner of each glob of `globs`.
    owners: Vec<Owner>,
    /// Patterns with `?` or classes, matched by character (see `pattern`).
    regexes: Option<Regex>,
    /// Owner of each pattern of `regexes`.
    regex_owners: Vec<Owner>,
    /// Rules with at least one `!` pattern need per-file bookkeeping.
    has_negation: Vec<bool>,
    topics: TopicMatcher,
    workdir: Workdir,
}

/// One rule's activation, from [`RuleSet::explain`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Index into [`RuleSet::rules`].
    pub index: usize,
    /// Why it is active; empty when it is not.
    pub reasons: Vec<Reason>,
    /// Files a positive pattern matched that a `!` pattern excluded.
    pub excluded: Vec<Excluded>,
}

impl Explanation {
    pub fn is_active(&self) -> bool {
        !self.reasons.is_empty()
    }
}

/// A file a rule's pattern matched but its `!` pattern excluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excluded {
    pub file: String,
    pub pattern: String,
    /// The `!` pattern, as written.
    pub by: String,
}

fn push_new<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// Why a rule is active (see [`RuleSet::explain`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// No `paths` and no `topics`.
    Always,
    /// `pattern` (from `metadata.paths`) matched `file` (normalized).
    Path { pattern: String, file: String },
    /// `topic` starts the word `word` of the (case-folded) prompt.
    Topic { topic: String, word: String },
}

impl RuleSet {
    /// Sorts the rules (priority, scope, id) and compiles their triggers.
    /// Globs globset refuses after translation are left out; the parser has
    /// already vetted each one, so this only guards the build.
    pub fn build(mut parsed: Vec<ParsedRule>, workdir: Workdir) -> RuleSet {
        parsed.sort_by(|a, b| rule::order(&a.rule, &b.rule));
        let mut builder = GlobSetBuilder::new();
        let mut owners = Vec::new();
        let mut regex_texts: Vec<&str> = Vec::new();
        let mut regex_owners = Vec::new();
        let mut has_negation = vec![false; parsed.len()];
        for (r, p) in parsed.iter().enumerate() {
            for pat in &p.patterns {
                has_negation[r] |= pat.compiled.negated;
                let owner = Owner { rule: r as u32, pattern: pat.index as u32, negated: pat.compiled.negated };
                for matcher in &pat.compiled.matchers {
                    match matcher {
                        Matcher::Glob(glob) => {
                            builder.add(glob.clone());
                            owners.push(owner);
                        }
                        Matcher::Regex(text) => {
                            regex_texts.push(text);
                            regex_owners.push(owner);
                        }
                    }
                }
            }
        }
        let globs = builder.build().unwrap_or_else(|_| {
            owners.clear();
            GlobSet::empty()
        });
        let regexes = if regex_texts.is_empty() {
            None
        } else {
            Regex::builder().configure(Regex::config().match_kind(MatchKind::All)).build_many(&regex_texts).ok()
        };
        if regexes.is_none() {
            regex_owners.clear();
        }
        let rules: Vec<Rule> = parsed.into_iter().map(|p| p.rule).collect();
        let topics = TopicMatcher::new(
            rules.iter().enumerate().filter_map(|(i, r)| r.metadata.topics.as_deref().map(|t| (i, t))),
        );
        RuleSet { rules, globs, owners, regexes, regex_owners, has_negation, topics, workdir }
    }

    /// Every rule, in result order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Indices (into [`rules`](Self::rules), ascending, so in result order)
    /// of the rules active for these context files and prompt.
    pub fn active<S: AsRef<str>>(&self, files: &[S], prompt: Option<&str>) -> Vec<usize> {
        let mut active: Vec<bool> = self.rules.iter().map(|r| r.metadata.is_unconditional()).collect();
        self.match_paths(files, |owner, _| active[owner.rule as usize] = true);
        if let Some(prompt) = prompt {
            self.topics.activate(prompt, &mut active);
        }
        active.iter().enumerate().filter_map(|(i, &on)| on.then_some(i)).collect()
    }

    /// Indices (ascending) of the rules a topic in `prompt` activates; these
    /// are the constraints the prompt itself asked for.
    pub fn topic_active(&self, prompt: &str) -> Vec<usize> {
        let mut hit = vec![false; self.rules.len()];
        self.topics.activate(prompt, &mut hit);
        hit.iter().enumerate().filter_map(|(i, &on)| on.then_some(i)).collect()
    }

    /// For every rule, in result order: whether it is active for these files
    /// and prompt, every reason it fired, and the files a positive pattern
    /// matched but a `!` pattern excluded.
    pub fn explain<S: AsRef<str>>(&self, files: &[S], prompt: Option<&str>) -> Vec<Explanation> {
        let mut out: Vec<Explanation> = (0..self.rules.len())
            .map(|index| Explanation { index, reasons: Vec::new(), excluded: Vec::new() })
            .collect();
        for (i, r) in self.rules.iter().enumerate() {
            if r.metadata.is_unconditional() {
                out[i].reasons.push(Reason::Always);
            }
        }
        let pattern = |owner: Owner| {
            self.rules[owner.rule as usize].metadata.paths.as_ref().map(|p| p[owner.pattern as usize].clone()).unwrap_or_default()
        };
        self.match_paths_with_exclusions(files, |owner, file, excluded_by| {
            let e = &mut out[owner.rule as usize];
            match excluded_by {
                None => push_new(&mut e.reasons, Reason::Path { pattern: pattern(owner), file: file.to_string() }),
                Some(by) => push_new(&mut e.excluded, Excluded { file: file.to_string(), pattern: pattern(owner), by: pattern(by) }),
            }
        });
        if let Some(prompt) = prompt {
            for TopicHit { rule, topic, word } in self.topics.hits(prompt) {
                let topic = self.rules[rule].metadata.topics.as_ref().map(|t| t[topic].clone()).unwrap_or_default();
                push_new(&mut out[rule].reasons, Reason::Topic { topic, word });
            }
        }
        out
    }

    /// The workdir-relative form of a context file, `None` when outside.
    pub fn normalize<'a>(&self, file: &'a str) -> Option<std::borrow::Cow<'a, str>> {
        self.workdir.relative(file)
    }

    /// Calls `hit(owner, file)` for each positive pattern that matches a file
    /// that no `!` pattern of the same rule excludes.
    fn match_paths<S: AsRef<str>>(&self, files: &[S], mut hit: impl FnMut(Owner, &str)) {
        self.match_paths_with_exclusions(files, |owner, file, excluded_by| {
            if excluded_by.is_none() {
                hit(owner, file)
            }
        });
    }

    /// Calls `hit(owner, file, None)` for each positive pattern that matches
    /// a file, or `hit(owner, file, Some(negation))` when a `!` pattern of the
    /// same rule excludes that file.
    fn match_paths_with_exclusions<S: AsRef<str>>(&self, files: &[S], mut hit: impl FnMut(Owner, &str, Option<Owner>)) {
        if self.owners.is_empty() && self.regex_owners.is_empty() {
            return;
        }
        let mut matched: Vec<usize> = Vec::new();
        let mut hits: Vec<Owner> = Vec::new();
        let mut regex_hits = self.regexes.as_ref().map(|re| PatternSet::new(re.pattern_len()));
        for raw in files {
            let Some(file) = self.workdir.relative(raw.as_ref()) else { continue };
            hits.clear();
            if !self.owners.is_empty() {
                self.globs.matches_candidate_into(&Candidate::new(file.as_ref()), &mut matched);
                hits.extend(matched.iter().map(|&g| self.owners[g]));
            }
            if let (Some(re), Some(set)) = (&self.regexes, regex_hits.as_mut()) {
                set.clear();
                re.which_overlapping_matches(&Input::new(file.as_ref()), set);
                hits.extend(set.iter().map(|p| self.regex_owners[p.as_usize()]));
            }
            for &owner in &hits {
                if owner.negated {
                    continue;
                }
                let excluded_by = if self.has_negation[owner.rule as usize] {
                    hits.iter().find(|o| o.negated && o.rule == owner.rule).copied()
                } else {
                    None
                };
                hit(owner, &file, excluded_by);
            }
        }
    }
}
