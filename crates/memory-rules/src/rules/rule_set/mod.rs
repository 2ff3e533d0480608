//! The compiled rule set, built once per discovery: every distinct glob of
//! every rule stored once with the (rule, pattern) pairs that own it, indexed
//! by literal directory prefix (`GlobIndex`), plus one multi-pattern Unicode
//! regex for the rare patterns with `?` or a class, and every topic in one
//! `TopicMatcher`. Activation touches each context file once, and a glob
//! whose owners are all active already is skipped for the files after.

mod census;
pub mod enforcement;
mod path_index;

pub use census::RuleCensus;

use crate::base::workdir::Workdir;
use crate::matchers::command_matcher::CommandMatcher;
use crate::matchers::glob_compile::Matcher;
use crate::matchers::topic_matcher::{TopicHit, TopicMatcher};
use crate::rules::parser::{ParsedRule, RulePattern};
use crate::rules::rule::Activation;
use crate::rules::rule::{self, Rule};
use path_index::{Owner, PathIndex};
use regex_automata::{meta::Regex, Input, PatternSet};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// Rules in result order, with their compiled triggers.
#[derive(Debug, Default)]
pub struct RuleSet {
    rules: Vec<Rule>,
    /// Each rule's compiled patterns (in result order): what the path
    /// index is built from.
    patterns: Vec<Vec<RulePattern>>,
    /// Whether any rule has a pattern that compiled (the path index is
    /// not empty).
    has_paths: bool,
    /// The path matchers, built on first use: an event that matches no
    /// file (a prompt, a stop) never compiles a glob.
    paths: OnceLock<PathIndex>,
    /// Every topic in one matcher, built on first use (a file event never
    /// needs it).
    topics: OnceLock<TopicMatcher>,
    workdir: Workdir,
    /// On-request and manual rules by every (lowercased) name a prompt may
    /// mention them by (`@name`).
    mentions: FxHashMap<String, Vec<u32>>,
    /// Rules with a `regex` on file content (Continue).
    content_rules: Vec<ContentRule>,
    /// Rules with `skills`, by each skill name they name.
    skills: FxHashMap<String, Vec<u32>>,
    /// The enforced rules' `commands`, compiled (see `enforce`) on first use.
    commands: OnceLock<CommandMatcher>,
    /// Tells this set from every other one built in the process (see [`RuleSet::id`]).
    id: u64,
}

/// The next [`RuleSet::id`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A rule whose `regex` is matched against the content of the files in
/// context that its globs (if any) match.
#[derive(Debug)]
struct ContentRule {
    rule: u32,
    regex: Regex,
    include: Vec<FileMatcher>,
    exclude: Vec<FileMatcher>,
}

/// One compiled pattern, for the few rules checked one by one.
#[derive(Debug)]
struct FileMatcher {
    globs: Option<globset::GlobSet>,
    regex: Option<Regex>,
}

impl FileMatcher {
    fn new(matchers: &[Matcher]) -> FileMatcher {
        let mut set = globset::GlobSetBuilder::new();
        let mut regexes = Vec::new();
        for m in matchers {
            match m {
                Matcher::Glob(text) => {
                    if let Ok(g) = crate::matchers::glob_compile::glob(text) {
                        set.add(g);
                    }
                }
                Matcher::Regex(r) => regexes.push(r.clone()),
            }
        }
        FileMatcher {
            globs: set.build().ok(),
            regex: Regex::new_many(&regexes)
                .ok()
                .filter(|_| !regexes.is_empty()),
        }
    }

    fn is_match(&self, file: &str) -> bool {
        self.globs.as_ref().is_some_and(|g| g.is_match(file))
            || self.regex.as_ref().is_some_and(|r| r.is_match(file))
    }
}

impl ContentRule {
    /// The content rule of `parsed` (rule `rule`), when it has a `regex`
    /// that compiles.
    fn new(rule: u32, of: &Rule, patterns: &[RulePattern]) -> Option<ContentRule> {
        let list = of.metadata.regex.as_ref()?;
        let regex = Regex::new_many(list).ok()?;
        let (mut include, mut exclude) = (Vec::new(), Vec::new());
        for pat in patterns {
            let m = FileMatcher::new(&pat.compiled.matchers);
            if pat.compiled.negated {
                exclude.push(m)
            } else {
                include.push(m)
            }
        }
        Some(ContentRule {
            rule,
            regex,
            include,
            exclude,
        })
    }

    fn wants(&self, file: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|m| m.is_match(file)))
            && !self.exclude.iter().any(|m| m.is_match(file))
    }
}

/// The content of a file in context (as the caller gave its path), when the
/// caller can provide it: Continue's `regex` rules are matched against it.
pub type Contents<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The names mentioned in a prompt: `@name` or `#name` (Kiro), lowercased,
/// without trailing punctuation.
pub fn mentions_in(prompt: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, ch) in prompt.char_indices() {
        if ch != '@' && ch != '#' {
            continue;
        }
        // Only at the start of a word: not `a@b.c` (an e-mail address).
        if prompt[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric())
        {
            continue;
        }
        let rest = &prompt[i + 1..];
        let end = rest
            .find(|c: char| c.is_whitespace() || ",;()[]{}<>\"'`".contains(c))
            .unwrap_or(rest.len());
        let name = rest[..end].trim_end_matches(['.', ':', '!', '?']);
        if !name.is_empty() {
            out.push(name.to_lowercase());
        }
    }
    out
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
    /// The prompt mentions the (on-request or manual) rule as `@name`.
    Mention { name: String },
    /// `regex` matched the content of `file` (which the rule's globs, if
    /// any, match).
    Content { regex: String, file: String },
    /// The skill `name` (from `metadata.skills`) is active in the session.
    Skill { name: String },
}

/// On-request and manual rules by each name a prompt may mention them by.
fn mention_index(rules: &[Rule]) -> FxHashMap<String, Vec<u32>> {
    let mut mentions: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    for (i, r) in rules.iter().enumerate() {
        if r.metadata.activation != Activation::Auto {
            for name in r.mention_names() {
                mentions.entry(name).or_default().push(i as u32);
            }
        }
    }
    mentions
}

/// Rules with `skills`, by each skill name they name.
fn skill_index(rules: &[Rule]) -> FxHashMap<String, Vec<u32>> {
    let mut skills: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    for (i, r) in rules.iter().enumerate() {
        for name in r.metadata.skills.iter().flatten() {
            skills.entry(name.clone()).or_default().push(i as u32);
        }
    }
    skills
}

/// The enforced rules' `commands`, compiled.
fn enforced_commands(rules: &[Rule]) -> CommandMatcher {
    CommandMatcher::build(rules.iter().enumerate().flat_map(|(i, rule)| {
        let patterns = rule.metadata.enforced_commands().into_iter().flatten();
        patterns.map(move |p| (i as u32, p))
    }))
}

impl RuleSet {
    /// Sorts the rules (priority, scope, id) and compiles their triggers.
    /// The matchers (globs, topics, commands) are compiled on first use.
    pub fn build(mut parsed: Vec<ParsedRule>, workdir: Workdir) -> RuleSet {
        parsed.sort_by(|a, b| rule::order(&a.rule, &b.rule));
        let (rules, patterns) = parsed.into_iter().map(|p| (p.rule, p.patterns)).unzip();
        RuleSet::assemble(rules, patterns, workdir)
    }

    /// [`RuleSet::build`] of rules given apart from their patterns (each
    /// rule's at the same index), as a saved set restores them: already in
    /// result order, so not paired up, sorted and split again (at 1,000
    /// rules a second list of rules is a hundred pages written afresh).
    pub fn build_ordered(
        rules: Vec<Rule>,
        patterns: Vec<Vec<RulePattern>>,
        workdir: Workdir,
    ) -> RuleSet {
        let ordered = rules.len() == patterns.len()
            && rules.is_sorted_by(|a, b| rule::order(a, b) != std::cmp::Ordering::Greater);
        if !ordered {
            let mut patterns = patterns.into_iter();
            let parsed = rules.into_iter().map(|rule| ParsedRule {
                rule,
                patterns: patterns.next().unwrap_or_default(),
            });
            return RuleSet::build(parsed.collect(), workdir);
        }
        RuleSet::assemble(rules, patterns, workdir)
    }

    /// The set of `rules` in result order, each with its patterns.
    fn assemble(rules: Vec<Rule>, patterns: Vec<Vec<RulePattern>>, workdir: Workdir) -> RuleSet {
        let content_rules = rules
            .iter()
            .zip(&patterns)
            .enumerate()
            .filter_map(|(r, (rule, p))| ContentRule::new(r as u32, rule, p))
            .collect();
        let has_paths = patterns
            .iter()
            .flatten()
            .any(|p| !p.compiled.matchers.is_empty());
        RuleSet {
            mentions: mention_index(&rules),
            skills: skill_index(&rules),
            patterns,
            has_paths,
            paths: OnceLock::new(),
            topics: OnceLock::new(),
            commands: OnceLock::new(),
            rules,
            workdir,
            content_rules,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The path matchers, compiled on first use.
    fn paths(&self) -> &PathIndex {
        self.paths.get_or_init(|| PathIndex::build(&self.patterns))
    }

    /// The topic matcher, built on first use.
    fn topics(&self) -> &TopicMatcher {
        self.topics.get_or_init(|| {
            TopicMatcher::new(
                self.rules
                    .iter()
                    .enumerate()
                    .filter_map(|(i, r)| r.metadata.topics.as_deref().map(|t| (i, t))),
            )
        })
    }

    /// A number no other set built in this process has: what a session
    /// keeps beside what it computed from this set, to know it still holds
    /// (a reload that changed nothing keeps the set, and its id). 0 for an
    /// empty default set.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Every rule, in result order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Each rule's compiled patterns, in the order of [`rules`](Self::rules)
    /// (what a saved discovery keeps with each rule).
    pub(crate) fn patterns(&self) -> &[Vec<RulePattern>] {
        &self.patterns
    }

    /// Indices (into [`rules`](Self::rules), ascending, so in result order)
    /// of the rules active for these context files and prompt.
    pub fn active<S: AsRef<str>>(&self, files: &[S], prompt: Option<&str>) -> Vec<usize> {
        self.active_with(files, prompt, None)
    }

    /// [`active`](Self::active), with the content of the files in context
    /// when the caller can provide it (for rules with a `regex`). Without
    /// it, such a rule is decided by its globs alone (and one without globs
    /// is not active).
    pub fn active_with<S: AsRef<str>>(
        &self,
        files: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
    ) -> Vec<usize> {
        self.active_in(files, prompt, &[] as &[&str], contents)
    }

    /// [`active_with`](Self::active_with), with the skills active in the
    /// session (names as [`crate::rules::skill_name::name`] gives them): a rule with
    /// `skills` is active while one of them is, or when its `paths` /
    /// `topics` fire (the triggers of a rule add up, as `paths` and
    /// `topics` do).
    pub fn active_in<S: AsRef<str>, K: AsRef<str>>(
        &self,
        files: &[S],
        prompt: Option<&str>,
        skills: &[K],
        contents: Option<Contents>,
    ) -> Vec<usize> {
        let mut active: Vec<bool> = self
            .rules
            .iter()
            .map(|r| r.metadata.is_unconditional())
            .collect();
        if self.has_paths && !files.is_empty() {
            self.activate_paths(files, &mut active);
        }
        if let Some(prompt) = prompt {
            self.topics().activate(prompt, &mut active);
            self.for_mentions(prompt, |rule, _| active[rule] = true);
        }
        if let Some(contents) = contents {
            for cr in &self.content_rules {
                active[cr.rule as usize] = self.content_hit(cr, files, contents).is_some();
            }
        }
        self.for_skills(skills, |rule, _| active[rule] = true);
        active
            .iter()
            .enumerate()
            .filter_map(|(i, &on)| on.then_some(i))
            .collect()
    }

    /// Calls `hit(rule, name)` for each on-request or manual rule the prompt
    /// mentions.
    fn for_mentions(&self, prompt: &str, mut hit: impl FnMut(usize, &str)) {
        if self.mentions.is_empty() || !prompt.contains(['@', '#']) {
            return;
        }
        for name in mentions_in(prompt) {
            if let Some(rules) = self.mentions.get(&name) {
                for &r in rules {
                    hit(r as usize, &name);
                }
            }
        }
    }

    /// Calls `hit(rule, name)` for each rule whose `skills` names an active
    /// skill, by its full name or without a plugin's namespace
    /// (`plugin:pdf` activates `skills: [pdf]`).
    fn for_skills<K: AsRef<str>>(&self, skills: &[K], mut hit: impl FnMut(usize, &str)) {
        if self.skills.is_empty() {
            return;
        }
        for skill in skills {
            let full = skill.as_ref();
            let bare = crate::rules::skill_name::bare(full);
            for name in [full, bare] {
                for &r in self.skills.get(name).into_iter().flatten() {
                    hit(r as usize, name);
                }
                if bare == full {
                    break;
                }
            }
        }
    }

    /// Indices (ascending) of the rules that name this skill (see
    /// [`active_in`](Self::active_in)).
    pub fn skill_rules(&self, skill: &str) -> Vec<usize> {
        let mut out = Vec::new();
        self.for_skills(&[skill], |r, _| out.push(r));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether any rule has `skills`.
    pub fn has_skill_rules(&self) -> bool {
        !self.skills.is_empty()
    }

    /// The first (regex, file) of a content rule that matches.
    fn content_hit<S: AsRef<str>>(
        &self,
        cr: &ContentRule,
        files: &[S],
        contents: Contents,
    ) -> Option<(String, String)> {
        for raw in files {
            let raw = raw.as_ref();
            let Some(file) = self.workdir.relative(raw) else {
                continue;
            };
            if !cr.wants(&file) {
                continue;
            }
            let Some(text) = contents(raw) else { continue };
            if let Some(m) = cr.regex.find(&text) {
                let list = self.rules[cr.rule as usize]
                    .metadata
                    .regex
                    .as_deref()
                    .unwrap_or_default();
                let regex = list
                    .get(m.pattern().as_usize())
                    .cloned()
                    .unwrap_or_default();
                return Some((regex, file.into_owned()));
            }
        }
        None
    }

    /// Whether any rule has a `regex` on file content.
    pub fn has_content_rules(&self) -> bool {
        !self.content_rules.is_empty()
    }

    /// Indices (ascending) of the on-request rules that are not in `active`
    /// (ascending): the ones to offer the model by id and description.
    pub fn available(&self, active: &[usize]) -> Vec<usize> {
        self.rules
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                r.metadata.activation == Activation::OnRequest && active.binary_search(i).is_err()
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The rule with this id (ids are unique within a set).
    pub fn find(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The per-message path match. A matcher whose owners are all active
    /// (or whose `!` owners' rules are all active) is done for this call, so
    /// a common glob owned by many rules costs once, not once per file.
    /// The enforced rules' compiled `commands`.
    pub(crate) fn command_matcher(&self) -> &CommandMatcher {
        self.commands.get_or_init(|| enforced_commands(&self.rules))
    }

    pub(crate) fn activate_paths<S: AsRef<str>>(&self, files: &[S], active: &mut [bool]) {
        let index = self.paths();
        let mut done = vec![false; index.owners.len()];
        let mut scratch = Vec::new();
        let mut matched: Vec<u32> = Vec::new();
        let mut excluded: Vec<u32> = Vec::new();
        let mut regex_hits = index
            .regexes
            .as_ref()
            .map(|re| PatternSet::new(re.pattern_len()));
        for raw in files {
            let Some(file) = self.workdir.relative(raw.as_ref()) else {
                continue;
            };
            self.matchers_for(&file, &mut scratch, &mut regex_hits, &mut matched);
            // Rules a `!` pattern excludes this file from (not yet active).
            excluded.clear();
            for &m in &matched {
                if done[m as usize] {
                    continue;
                }
                let mut pending = false;
                for o in &index.owners[m as usize] {
                    if o.negated && !active[o.rule as usize] {
                        excluded.push(o.rule);
                        pending = true;
                    }
                }
                if !pending && index.owners[m as usize].iter().all(|o| o.negated) {
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
                for o in &index.owners[m as usize] {
                    let rule = o.rule as usize;
                    if active[rule] {
                        continue;
                    }
                    if o.negated
                        || (index.has_negation[rule] && excluded.binary_search(&o.rule).is_ok())
                    {
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
    fn matchers_for(
        &self,
        file: &str,
        scratch: &mut Vec<usize>,
        regex_hits: &mut Option<PatternSet>,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        let index = self.paths();
        index.globs.matching(file, scratch, out);
        if let (Some(re), Some(set)) = (&index.regexes, regex_hits.as_mut()) {
            set.clear();
            re.which_overlapping_matches(&Input::new(file), set);
            out.extend(set.iter().map(|p| index.regex_ids[p.as_usize()]));
        }
    }

    /// Indices (ascending) of the rules a topic in `prompt` activates; these
    /// are the constraints the prompt itself asked for.
    pub fn topic_active(&self, prompt: &str) -> Vec<usize> {
        let mut hit = vec![false; self.rules.len()];
        self.topics().activate(prompt, &mut hit);
        hit.iter()
            .enumerate()
            .filter_map(|(i, &on)| on.then_some(i))
            .collect()
    }

    /// Indices (ascending) of the on-request and manual rules `prompt` makes
    /// active (by a mention, or a topic among `topic`, the prompt's
    /// [`topic_active`](Self::topic_active)): those of [`active`](Self::active)
    /// for the prompt alone that are not automatic, without scanning the
    /// topics again.
    pub fn mentioned(&self, prompt: &str, topic: &[usize]) -> Vec<usize> {
        let mut hit = vec![false; self.rules.len()];
        for &i in topic {
            hit[i] = true;
        }
        self.for_mentions(prompt, |rule, _| hit[rule] = true);
        hit.iter()
            .enumerate()
            .filter(|&(i, &on)| on && self.rules[i].metadata.activation != Activation::Auto)
            .map(|(i, _)| i)
            .collect()
    }

    /// For every rule, in result order: whether it is active for these files
    /// and prompt, every reason it fired, and the files a positive pattern
    /// matched but a `!` pattern excluded.
    pub fn explain<S: AsRef<str>>(&self, files: &[S], prompt: Option<&str>) -> Vec<Explanation> {
        self.explain_with(files, prompt, None)
    }

    /// [`explain`](Self::explain) with file contents (see
    /// [`active_with`](Self::active_with)).
    pub fn explain_with<S: AsRef<str>>(
        &self,
        files: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
    ) -> Vec<Explanation> {
        self.explain_in(files, prompt, &[] as &[&str], contents)
    }

    /// [`explain_with`](Self::explain_with) with the active skills (see
    /// [`active_in`](Self::active_in)).
    pub fn explain_in<S: AsRef<str>, K: AsRef<str>>(
        &self,
        files: &[S],
        prompt: Option<&str>,
        skills: &[K],
        contents: Option<Contents>,
    ) -> Vec<Explanation> {
        let mut out: Vec<Explanation> = (0..self.rules.len())
            .map(|index| Explanation {
                index,
                reasons: Vec::new(),
                excluded: Vec::new(),
            })
            .collect();
        for (i, r) in self.rules.iter().enumerate() {
            if r.metadata.is_unconditional() {
                out[i].reasons.push(Reason::Always);
            }
        }
        let pattern = |owner: Owner| {
            self.rules[owner.rule as usize]
                .metadata
                .paths
                .as_ref()
                .map(|p| p[owner.pattern as usize].clone())
                .unwrap_or_default()
        };
        self.match_paths_with_exclusions(files, |owner, file, excluded_by| {
            let e = &mut out[owner.rule as usize];
            match excluded_by {
                None => push_new(
                    &mut e.reasons,
                    Reason::Path {
                        pattern: pattern(owner),
                        file: file.to_string(),
                    },
                ),
                Some(by) => push_new(
                    &mut e.excluded,
                    Excluded {
                        file: file.to_string(),
                        pattern: pattern(owner),
                        by: pattern(by),
                    },
                ),
            }
        });
        if let Some(prompt) = prompt {
            for TopicHit { rule, topic, word } in self.topics().hits(prompt) {
                let topic = self.rules[rule]
                    .metadata
                    .topics
                    .as_ref()
                    .map(|t| t[topic].clone())
                    .unwrap_or_default();
                push_new(&mut out[rule].reasons, Reason::Topic { topic, word });
            }
            self.for_mentions(prompt, |rule, name| {
                push_new(
                    &mut out[rule].reasons,
                    Reason::Mention {
                        name: name.to_string(),
                    },
                )
            });
        }
        if let Some(contents) = contents {
            for cr in &self.content_rules {
                let e = &mut out[cr.rule as usize];
                e.reasons.retain(|r| !matches!(r, Reason::Path { .. }));
                if let Some((regex, file)) = self.content_hit(cr, files, contents) {
                    e.reasons.push(Reason::Content { regex, file });
                }
            }
        }
        self.for_skills(skills, |rule, name| {
            push_new(
                &mut out[rule].reasons,
                Reason::Skill {
                    name: name.to_string(),
                },
            )
        });
        out
    }

    /// The workdir-relative form of a context file, `None` when outside.
    pub fn normalize<'a>(&self, file: &'a str) -> Option<std::borrow::Cow<'a, str>> {
        self.workdir.relative(file)
    }

    /// Calls `hit(owner, file, None)` for each positive pattern that matches
    /// a file, or `hit(owner, file, Some(negation))` when a `!` pattern of the
    /// same rule excludes that file. Reports everything (for `explain`).
    fn match_paths_with_exclusions<S: AsRef<str>>(
        &self,
        files: &[S],
        mut hit: impl FnMut(Owner, &str, Option<Owner>),
    ) {
        if !self.has_paths {
            return;
        }
        let index = self.paths();
        let mut scratch = Vec::new();
        let mut matched: Vec<u32> = Vec::new();
        let mut regex_hits = index
            .regexes
            .as_ref()
            .map(|re| PatternSet::new(re.pattern_len()));
        for raw in files {
            let Some(file) = self.workdir.relative(raw.as_ref()) else {
                continue;
            };
            self.matchers_for(&file, &mut scratch, &mut regex_hits, &mut matched);
            let mut negations: Vec<Owner> = matched
                .iter()
                .flat_map(|&m| &index.owners[m as usize])
                .filter(|o| o.negated)
                .copied()
                .collect();
            negations.sort_by_key(|o| (o.rule, o.pattern));
            for &m in &matched {
                for &owner in &index.owners[m as usize] {
                    if owner.negated {
                        continue;
                    }
                    let excluded_by = if index.has_negation[owner.rule as usize] {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::parser::parse_rule;
    use crate::rules::rule::Scope;
    use std::path::Path;

    fn parsed(id: &str, text: &str) -> ParsedRule {
        parse_rule(Scope::Project, id, Path::new(id), text)
            .rule
            .unwrap_or_else(|| panic!("{id} did not load"))
    }

    /// Rules given out of order to `build_ordered` are sorted with their
    /// patterns, as `build` sorts them: each rule still matches its own files.
    #[test]
    fn rules_built_in_order_apart_from_their_patterns_match_as_built_together() {
        let all = || {
            vec![
                parsed("z.md", "---\npaths: z/**\npriority: 9\n---\nZ"),
                parsed("a.md", "---\npaths: a/**\n---\nA"),
                parsed("m.md", "---\npaths: m/**\npriority: 2\n---\nM"),
            ]
        };
        let workdir = || Workdir::new(Path::new("/w"));
        let built = RuleSet::build(all(), workdir());
        let (rules, patterns): (Vec<Rule>, Vec<Vec<RulePattern>>) =
            all().into_iter().map(|p| (p.rule, p.patterns)).unzip();
        let ordered = RuleSet::build_ordered(rules, patterns, workdir());
        let ids = |s: &RuleSet, hits: Vec<usize>| -> Vec<String> {
            hits.into_iter().map(|i| s.rules()[i].id.clone()).collect()
        };
        for file in ["z/x.ts", "a/x.ts", "m/x.ts"] {
            assert_eq!(
                ids(&ordered, ordered.active(&[file], None)),
                ids(&built, built.active(&[file], None)),
                "{file}"
            );
        }
        let order = |s: &RuleSet| s.rules().iter().map(|r| r.id.clone()).collect::<Vec<_>>();
        assert_eq!(order(&ordered), order(&built));
    }
}
