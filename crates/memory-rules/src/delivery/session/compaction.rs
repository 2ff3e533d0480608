//! Due again after a compaction: what the conversation was given is gone
//! (told by the agent's start, by an event that reaches no model, or by a
//! prompt that shrank), and every rule active in it comes again.

use super::{Session, MAX_SESSION_MEMORY};
use crate::rules::rule_set::RuleSet;

impl Session {
    /// The conversation was compacted (or cleared): what was delivered is no
    /// longer in it.
    pub fn compacted(&mut self) {
        self.at_edit.forget();
        self.delivered.clear();
        self.order.clear();
        self.recalled.clear();
        self.recalled_index.clear();
        if !self.memory.is_empty() {
            self.memory_before = std::mem::take(&mut self.memory)
                .into_iter()
                .take(MAX_SESSION_MEMORY)
                .collect();
        }
        self.compactions = self.compactions.saturating_add(1);
        self.prompt_tokens = 0;
    }

    /// The size of the model's latest prompt, in tokens, as the agent
    /// records it. A conversation only grows until something leaves it: a
    /// prompt smaller than the last one seen means it was compacted (or tool
    /// outputs were cut), so it counts as [`Session::compacted_unsent`].
    /// Returns whether it shrank.
    pub fn prompt_size(&mut self, tokens: u64) -> bool {
        let shrank = tokens < self.prompt_tokens;
        if shrank {
            self.compacted_unsent();
        }
        self.prompt_tokens = tokens;
        shrank
    }

    /// The conversation is compacted, told by an event whose output does not
    /// reach the model (Copilot CLI's `preCompact`, Gemini CLI's `/compress`):
    /// [`Session::compacted`], and every rule active in the session (always-on,
    /// the files touched, the topics fired) is due at the next [`Session::prompt`]
    /// or [`Session::files_touched`], until a commit of that answer.
    pub fn compacted_unsent(&mut self) {
        self.compacted();
        self.regive = true;
    }

    /// Every rule active in the session: always-on, of the files touched, of
    /// the topics fired.
    pub(super) fn active_in_session(&self, set: &RuleSet) -> Vec<usize> {
        let rules = set.rules();
        let mut give: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional())
            .collect();
        give.extend(self.active_known(set, &self.file_list(), None, None));
        give.extend(self.indices(set, self.topics.iter()));
        give.sort_unstable();
        give.dedup();
        give
    }

    /// After [`Session::compacted_unsent`]: what the compaction took and the
    /// session was not given since.
    pub(super) fn regiven(&self, set: &RuleSet) -> Vec<usize> {
        if !self.regive {
            return Vec::new();
        }
        let rules = set.rules();
        self.active_in_session(set)
            .into_iter()
            .filter(|&i| !self.is_delivered(&rules[i]))
            .collect()
    }
}
