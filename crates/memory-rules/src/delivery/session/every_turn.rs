//! The `remind: every-turn` rules active in the session: what a stop
//! reminds of.

use super::{rule_version, Session, MAX_SESSION_RULES};
use crate::rules::rule::Remind;
use crate::rules::rule_set::RuleSet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A `remind: every-turn` rule active in the session, with its short line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sticky {
    pub id: String,
    pub line: String,
    /// The rule's version ([`rule_version`]), for the delivery log (empty
    /// in state files written before it was kept).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
}

/// The `remind: every-turn` rules among these, with their short lines.
pub(super) fn sticky_of(set: &RuleSet, active: impl IntoIterator<Item = usize>) -> Vec<Sticky> {
    let rules = set.rules();
    active
        .into_iter()
        .filter(|&i| rules[i].metadata.remind == Some(Remind::EveryTurn))
        .take(MAX_SESSION_RULES)
        .map(|i| Sticky {
            id: rules[i].id.clone(),
            line: crate::delivery::render::sticky_line(&rules[i]),
            version: rule_version(&rules[i]),
        })
        .collect()
}

impl Session {
    /// The `remind: every-turn` rules active as of the last event.
    pub fn sticky(&self) -> &[Sticky] {
        &self.sticky
    }

    /// The `remind: every-turn` rules active in the session: always-on, the
    /// files it touched, the topics and mentions of the latest prompt.
    pub(super) fn update_sticky(&mut self, set: &RuleSet) {
        let files: Vec<String> = self.files.iter().cloned().collect();
        self.sticky_for(set, &files);
    }

    pub(super) fn sticky_for(&mut self, set: &RuleSet, files: &[String]) {
        if !set
            .rules()
            .iter()
            .any(|r| r.metadata.remind == Some(Remind::EveryTurn))
        {
            self.sticky.clear();
            return;
        }
        let mut on: BTreeSet<usize> = self
            .active_for(set, files, None, None)
            .into_iter()
            .collect();
        on.extend(self.indices(set, self.prompt_topics.iter().chain(&self.mentioned)));
        self.sticky = sticky_of(set, on);
    }
}
