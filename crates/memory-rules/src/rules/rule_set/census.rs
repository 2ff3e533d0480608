//! How many rules a set holds, by format: what telemetry reports as the
//! rules loaded at a session's start. A hook counts them from the saved
//! rules' index ([`crate::load::rule_index`]) without restoring a rule; any
//! other road counts its [`RuleSet`].

use crate::rules::rule_format::Format;
use crate::rules::rule_set::RuleSet;
use std::collections::BTreeMap;

/// The rules of a set, counted by format.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleCensus {
    per_format: BTreeMap<Format, usize>,
}

impl RuleCensus {
    /// Counts `n` more rules of `format`.
    pub fn add(&mut self, format: Format, n: usize) {
        if n > 0 {
            *self.per_format.entry(format).or_default() += n;
        }
    }

    /// How many rules in all.
    pub fn total(&self) -> usize {
        self.per_format.values().sum()
    }

    /// Each format with rules, and how many, in [`Format`]'s order.
    pub fn per_format(&self) -> impl Iterator<Item = (Format, usize)> + '_ {
        self.per_format.iter().map(|(&f, &n)| (f, n))
    }
}

impl RuleSet {
    /// Its rules, counted by format.
    pub fn census(&self) -> RuleCensus {
        let mut census = RuleCensus::default();
        for rule in self.rules() {
            census.add(rule.format, 1);
        }
        census
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn census_counts_each_format_and_the_total() {
        let mut census = RuleCensus::default();
        census.add(Format::Cursor, 1);
        census.add(Format::Wave, 1);
        census.add(Format::Cursor, 1);
        census.add(Format::Kiro, 0);
        assert_eq!(census.total(), 3);
        let per: Vec<_> = census.per_format().collect();
        assert_eq!(per, vec![(Format::Wave, 1), (Format::Cursor, 2)]);
        assert_eq!(RuleCensus::default().total(), 0);
    }
}
