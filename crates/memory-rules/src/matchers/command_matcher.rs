//! Command patterns compiled: the `commands` of a set's enforced rules as
//! one automaton ([`CommandMatcher`]), which the rule set holds and
//! [`crate::rules::rule_set::enforcement`] matches each simple command of a shell line against;
//! [`pattern_regex`] is what one pattern stands for (see `enforce` for the
//! syntax).

use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind, PatternSet};

/// The compiled command patterns of a set's enforced rules: one automaton
/// over every pattern, each pattern's rule and text beside it.
#[derive(Debug, Default)]
pub struct CommandMatcher {
    regex: Option<Regex>,
    /// Per pattern of the automaton: (rule index, pattern text).
    pub(crate) owners: Vec<(u32, String)>,
}

impl CommandMatcher {
    /// Compiles `patterns`, each an enforced `commands` pattern with the
    /// index of its rule (a pattern that does not compile, already reported
    /// by the parser, is left out).
    pub fn build<'p>(patterns: impl IntoIterator<Item = (u32, &'p String)>) -> CommandMatcher {
        let mut texts = Vec::new();
        let mut owners = Vec::new();
        for (rule, pattern) in patterns {
            let text = pattern_regex(pattern);
            if Regex::new(&text).is_ok() {
                texts.push(text);
                owners.push((rule, pattern.clone()));
            }
        }
        if texts.is_empty() {
            return CommandMatcher::default();
        }
        let regex = Regex::builder()
            .configure(Regex::config().match_kind(MatchKind::All))
            .syntax(syntax::Config::new().dot_matches_new_line(true))
            .build_many(&texts)
            .ok();
        CommandMatcher {
            owners: if regex.is_some() { owners } else { Vec::new() },
            regex,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.owners.is_empty()
    }

    /// The (rule, pattern) pairs matching `text` in full.
    pub(crate) fn matching(&self, text: &str, out: &mut Vec<(u32, usize)>) {
        let Some(regex) = &self.regex else { return };
        let mut set = PatternSet::new(regex.pattern_len());
        regex.which_overlapping_matches(&Input::new(text), &mut set);
        out.extend(
            set.iter()
                .map(|p| (self.owners[p.as_usize()].0, p.as_usize())),
        );
    }
}

/// The regex a command pattern stands for: anchored at both ends, `*` any
/// run of characters, `?` one, `\x` the character `x`, the rest literal.
pub fn pattern_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    out.push('^');
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '\\' => match chars.next() {
                Some(next) => out.push_str(&regex_syntax::escape(&next.to_string())),
                None => out.push_str(r"\\"),
            },
            c => out.push_str(&regex_syntax::escape(&c.to_string())),
        }
    }
    out.push('$');
    out
}
