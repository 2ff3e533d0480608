//! The compiled rule set, built once per discovery: every distinct glob of
//! every rule stored once with the (rule, pattern) pairs that own it, indexed
//! by literal directory prefix (`GlobIndex`), plus one multi-pattern Unicode
//! regex for the rare patterns with `?` or a class, and every topic in one
//! `TopicMatcher`. Activation touches each context file once, and a glob
//! whose owners are all active already is skipped for the files after.

use crate::context::Workdir;
use crate::parse::ParsedRule;
use crate::pattern::Matcher;
use crate::rule::{self, Rule};
use crate::globindex::GlobIndex;
use crate::topics::{TopicHit, TopicMatcher};
use regex_automata::{meta::Regex, Input, MatchKind, PatternSet};
use std::collections::HashMap;

/// Who owns a matcher of the set.
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
    /// Owners of each distinct matcher (glob or regex), by matcher id.
    owners: Vec<Vec<Owner>>,
    /// The glob matchers, by id.
    globs: GlobIndex,
    /// Patterns with `?` or classes, matched by character (see `pattern`).
    regexes: Option<Regex>,
    /// Matcher id of each pattern of `regexes`.
    regex_ids: Vec<u32>,
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
    pub fn build(mut parsed: Vec<ParsedRule>, workdir: Workdir) -> RuleSet {
        parsed.sort_by(|a, b| rule::order(&a.rule, &b.rule));
        let mut owners: Vec<Vec<Owner>> = Vec::new();
        let mut ids: HashMap<(bool, String), u32> = HashMap::new();
        let mut globs = Vec::new();
        let mut regex_texts: Vec<String> = Vec::new();
        let mut regex_ids = Vec::new();
        let mut has_negation = vec![false; parsed.len()];
        for (r, p) in parsed.iter().enumerate() {
            for pat in &p.patterns {
                has_negation[r] |= pat.compiled.negated;
                let owner = Owner { rule: r as u32, pattern: pat.index as u32, negated: pat.compiled.negated };
                for matcher in &pat.compiled.matchers {
                    let key = match matcher {
                        Matcher::Glob(g) => (false, g.glob().to_string()),
                        Matcher::Regex(text) => (true, text.clone()),
                    };
                    let next = owners.len() as u32;
                    let id = *ids.entry(key).or_insert(next);
                    if id == next {
                        owners.push(Vec::new());
                        match matcher {
                            Matcher::Glob(g) => globs.push((g.clone(), id)),
                            Matcher::Regex(text) => {
                                regex_texts.push(text.clone());
                                regex_ids.push(id);
                            }
                        }
                    }
                    owners[id as usize].push(owner);
                }
            }
        }
        let regexes = if regex_texts.is_empty() {
            None
        } else {
            Regex::builder().configure(Regex::config().match_kind(MatchKind::All)).build_many(&regex_texts).ok()
        };
        if regexes.is_none() {
            regex_ids.clear();
        }
        let rules: Vec<Rule> = parsed.into_iter().map(|p| p.rule).collect();
        let topics = TopicMatcher::new(
            rules.iter().enumerate().filter_map(|(i, r)| r.metadata.topics.as_deref().map(|t| (i, t))),
        );
        RuleSet { rules, owners, globs: GlobIndex::build(globs), regexes, regex_ids, has_negation, topics, workdir }
    }

    /// Every rule, in result order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Indices (into [`rules`](Self::rules), ascending, so in result order)
    /// of the rules active for these context files and prompt.
    pub fn active<S: AsRef<str>>(&self, files: &[S], prompt: Option<&str>) -> Vec<usize> {
        let mut active: Vec<bool> = self.rules.iter().map(|r| r.metadata.is_unconditional()).collect();
        if !self.owners.is_empty() {
            self.activate_paths(files, &mut active);
        }
        if let Some(prompt) = prompt {
            self.topics.activate(prompt, &mut active);
        }
        active.iter().enumerate().filter_map(|(i, &on)| on.then_some(i)).collect()
    }

    /// The per-message path match. A matcher whose owners are all active
    /// (or whose `!` owners' rules are all active) is done for this call, so
    /// a common glob owned by many rules costs once, not once per file.
    fn activate_paths<S: AsRef<str>>(&self, files: &[S], active: &mut [bool]) {
        let mut done = vec![false; self.owners.len()];
        let mut scratch = Vec::new();
        let mut matched: Vec<u32> = Vec::new();
        let mut excluded: Vec<u32> = Vec::new();
        let mut regex_hits = self.regexes.as_ref().map(|re| PatternSet::new(re.pattern_len()));
        for raw in files {
            let Some(file) = self.workdir.relative(raw.as_ref()) else { continue };
            self.matchers_for(&file, &mut scratch, &mut regex_hits, &mut matched);
            // Rules a `!` pattern excludes this file from (not yet active).
            excluded.clear();
            for &m in &matched {
                if done[m as usize] {
                    continue;
                }
                let mut pending = false;
                for o in &self.owners[m as usize] {
                    if o.negated && !active[o.rule as usize] {
                        excluded.push(o.rule);
                        pending = true;
                    }
                }
                if !pending && self.owners[m as usize].iter().all(|o| o.negated) {
                    done[m as usize] = true;
                }
            }
            excluded.sort_unstable();
            excluded.dedup();
            for &m in &matched {
                if done[m as usize] {
                    continue;
                }
                let mut all_active = true;
                for o in &self.owners[m as usize] {
                    let rule = o.rule as usize;
                    if active[rule] {
                        continue;
                    }
                    if o.negated || (self.has_negation[rule] && excluded.binary_search(&o.rule).is_ok()) {
                        all_active = false;
                        continue;
                    }
                    active[rule] = true;
                }
                done[m as usize] = all_active;
            }
        }
    }

    /// The ids of the matchers (globs and regexes) that match a file.
    fn matchers_for(&self, file: &str, scratch: &mut Vec<usize>, regex_hits: &mut Option<PatternSet>, out: &mut Vec<u32>) {
        out.clear();
        self.globs.matching(file, scratch, out);
        if let (Some(re), Some(set)) = (&self.regexes, regex_hits.as_mut()) {
            set.clear();
            re.which_overlapping_matches(&Input::new(file), set);
            out.extend(set.iter().map(|p| self.regex_ids[p.as_usize()]));
        }
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

    /// Calls `hit(owner, file, None)` for each positive pattern that matches
    /// a file, or `hit(owner, file, Some(negation))` when a `!` pattern of the
    /// same rule excludes that file. Reports everything (for `explain`).
    fn match_paths_with_exclusions<S: AsRef<str>>(&self, files: &[S], mut hit: impl FnMut(Owner, &str, Option<Owner>)) {
        if self.owners.is_empty() {
            return;
        }
        let mut scratch = Vec::new();
        let mut matched: Vec<u32> = Vec::new();
        let mut regex_hits = self.regexes.as_ref().map(|re| PatternSet::new(re.pattern_len()));
        for raw in files {
            let Some(file) = self.workdir.relative(raw.as_ref()) else { continue };
            self.matchers_for(&file, &mut scratch, &mut regex_hits, &mut matched);
            let mut negations: Vec<Owner> = matched.iter().flat_map(|&m| &self.owners[m as usize]).filter(|o| o.negated).copied().collect();
            negations.sort_by_key(|o| (o.rule, o.pattern));
            for &m in &matched {
                for &owner in &self.owners[m as usize] {
                    if owner.negated {
                        continue;
                    }
                    let excluded_by = if self.has_negation[owner.rule as usize] {
                        let at = negations.partition_point(|n| n.rule < owner.rule);
                        negations.get(at).filter(|n| n.rule == owner.rule).copied()
                    } else {
                        None
                    };
                    hit(owner, &file, excluded_by);
                }
            }
        }
    }
}
