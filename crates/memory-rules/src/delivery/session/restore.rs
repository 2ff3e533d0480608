//! A session read back from a saved transcript.

use super::Session;
use crate::rules::rule_set::RuleSet;
use std::collections::HashSet;

impl Session {
    /// Reads a saved transcript back: the rules whose reminder
    /// (`<system-reminder rule="id">`) or rendered entry (`[id] text`)
    /// appears in it count as delivered. Give only the text since the last
    /// compaction.
    pub fn restore(&mut self, set: &RuleSet, transcript: &str) {
        let reminded: HashSet<String> = crate::delivery::render::reminder_ids(transcript)
            .into_iter()
            .collect();
        let seen = set.rules().iter().filter(|rule| {
            reminded.contains(&rule.id)
                || transcript.contains(&crate::delivery::render::entry(rule))
        });
        self.mark_all(seen.map(|r| (r.id.as_str(), super::rule_version(r))));
        self.started |= !self.delivered.is_empty();
    }
}
