//! What is due now: the answer to a session start, a prompt, files
//! touched, a request for rules, reminder mode and the turn's stop.

use super::{is_conditional, Session};
use crate::delivery::render::{plan_rules, RenderOptions};
use crate::rules::rule::Rule;
use crate::rules::rule_set::{Contents, RuleSet};
use std::collections::HashSet;

/// How a session starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A new conversation.
    Startup,
    /// A conversation resumed: it still holds what it was given.
    Resume,
    /// After a compaction: the conversation lost what it was given.
    Compact,
    /// After a clear: the same as a compaction.
    Clear,
}

impl Start {
    /// `startup`, `resume`, `compact` or `clear`; anything else is a startup.
    pub fn parse(name: &str) -> Start {
        match name {
            "resume" => Start::Resume,
            "compact" => Start::Compact,
            "clear" => Start::Clear,
            _ => Start::Startup,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Start::Startup => "startup",
            Start::Resume => "resume",
            Start::Compact => "compact",
            Start::Clear => "clear",
        }
    }
}

/// The budget of a rendered rules section and how it is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Budget {
    pub max_lines: Option<usize>,
    pub max_bytes: Option<usize>,
    /// Rules given before keep their places when given again (a prompt
    /// cache keeps its prefix): the session's render order is passed on.
    pub keep_order: bool,
}

impl Budget {
    /// The budget of a rules section handed to an agent unless told
    /// otherwise: [`crate::base::limits::DEFAULT_RULES_BYTES`], no line limit.
    pub fn agents() -> Budget {
        Budget {
            max_lines: None,
            max_bytes: Some(crate::base::limits::DEFAULT_RULES_BYTES),
            keep_order: false,
        }
    }
}

/// What is due now: the text to put in front of the model and the rules it
/// holds. Nothing is marked delivered until [`Session::commit`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Due {
    /// The rendered text ('' when nothing is due).
    pub text: String,
    /// Indices (into the set's rules) rendered, in the order rendered.
    pub rules: Vec<usize>,
    /// Ids left out to fit the budget.
    pub omitted: Vec<String>,
    /// Indices of the rules active but already delivered (not rendered again).
    pub given: Vec<usize>,
    /// The answer to a session start: committing it marks the session started.
    pub starts: bool,
    /// It gives again what a compaction took (see [`Session::compacted_unsent`]):
    /// committing it ends that.
    pub regives: bool,
    /// Ids of the memory entries in the text ([`Session::recall`]).
    pub memory: Vec<String>,
}

impl Session {
    /// The session starts. `memory` (already read by the caller) comes after
    /// the rules. Startup: a fresh session, the always-on rules. Resume: the
    /// always-on rules it was not given (memory only if it never started).
    /// Compact / clear: everything active in the session again.
    pub fn start(
        &mut self,
        set: &RuleSet,
        how: Start,
        memory: Option<&str>,
        budget: Budget,
    ) -> Due {
        let rules = set.rules();
        let mut give: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional())
            .collect();
        let mut with_memory = true;
        match how {
            Start::Startup => *self = Session::new(),
            Start::Resume => {
                give.retain(|&i| !self.is_delivered(&rules[i]));
                with_memory = !self.started;
            }
            Start::Compact | Start::Clear => {
                self.compacted();
                give = self.active_in_session(set);
            }
        }
        self.update_sticky(set);
        let memory = if with_memory { memory } else { None };
        let mut due = self.render(set, &give, &HashSet::new(), memory, budget);
        due.starts = true;
        due.regives = matches!(how, Start::Compact | Start::Clear);
        due
    }

    /// A prompt: the rules its topics activate, as constraints, every time;
    /// with them the always-on rules the session was not given (no start was
    /// seen, or a rule was added since), and the rules of its active skills
    /// it was not given.
    pub fn prompt(&mut self, set: &RuleSet, prompt: &str, budget: Budget) -> Due {
        let rules = set.rules();
        let topic = self.note_prompt(set, Some(prompt));
        let mut give: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional() && !self.is_delivered(&rules[i]))
            .collect();
        if !self.skills.is_empty() && set.has_skill_rules() {
            let none: [&str; 0] = [];
            give.extend(
                set.active_in(&none, None, &self.skill_names(), None)
                    .into_iter()
                    .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i])),
            );
        }
        give.extend(topic.iter().copied());
        give.extend(self.regiven(set));
        give.sort_unstable();
        give.dedup();
        self.update_sticky(set);
        let topic: HashSet<usize> = topic.into_iter().collect();
        let mut due = self.render(set, &give, &topic, None, budget);
        due.regives = self.regive;
        due
    }

    /// Files touched (read or written, by any tool; absolute or relative to
    /// the workdir): the conditional rules they activate that the session was
    /// not given. Files outside the workdir are ignored.
    pub fn files_touched<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        budget: Budget,
    ) -> Due {
        self.files_touched_in(set, files, None, budget)
    }

    /// [`Session::files_touched`], with the files' contents for the rules
    /// with a `regex` (read by the caller, bounded).
    pub fn files_touched_in<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        contents: Option<Contents>,
        budget: Budget,
    ) -> Due {
        let rel = self.note_files(set, files);
        let rules = set.rules();
        let active = self.active_for(set, &rel, None, contents);
        let mut give: Vec<usize> = active
            .into_iter()
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect();
        give.extend(self.regiven(set));
        give.sort_unstable();
        give.dedup();
        self.update_sticky(set);
        let mut due = self.render(set, &give, &HashSet::new(), None, budget);
        due.regives = self.regive;
        due
    }

    /// A request for the rules of these files and this prompt (the MCP
    /// server's `rules_for_files`): every rule active for them, the ones
    /// already delivered named in [`Due::given`] instead of rendered, unless
    /// `again`.
    pub fn request<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        again: bool,
        budget: Budget,
    ) -> Due {
        self.request_in(set, files, prompt, again, None, budget)
    }

    /// [`Session::request`], with the files' contents for the rules with a
    /// `regex` (read by the caller, bounded).
    pub fn request_in<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        again: bool,
        contents: Option<Contents>,
        budget: Budget,
    ) -> Due {
        let rel = self.note_files(set, files);
        let topic = self.note_prompt(set, prompt);
        let rules = set.rules();
        let (given, give): (Vec<usize>, Vec<usize>) = self
            .active_for(set, &rel, prompt, contents)
            .into_iter()
            .partition(|&i| !again && self.is_delivered(&rules[i]));
        self.update_sticky(set);
        let topic: HashSet<usize> = topic.into_iter().collect();
        let mut due = self.render(set, &give, &topic, None, budget);
        due.given = given;
        // The first request starts the session.
        due.starts = !self.started;
        due
    }

    /// Reminder mode: the conditional rules active for these files in context
    /// (added to the session's; the sticky rules are those of these files) and this prompt that the session was not given, in
    /// result order. Each is delivered as its own reminder
    /// ([`crate::delivery::render::reminder`]); commit them with [`Session::commit_ids`].
    pub fn reminders<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
    ) -> Vec<usize> {
        self.reminders_in(set, files, prompt, None)
    }

    /// [`Session::reminders`], with the files' contents for the rules with a
    /// `regex` (read by the caller, bounded).
    pub fn reminders_in<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
    ) -> Vec<usize> {
        let rel = self.note_files(set, files);
        self.note_prompt(set, prompt);
        let rules = set.rules();
        let due = self
            .active_for(set, &rel, prompt, contents)
            .into_iter()
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect();
        // The files in context now, not every file the session touched.
        self.sticky_for(set, &rel);
        due
    }

    /// Reminder mode, when the caller already knows what is active: of these
    /// rules (by id; unknown ids are skipped), the conditional ones the
    /// session was not given, in result order. Records nothing.
    pub fn undelivered<S: AsRef<str>>(&self, set: &RuleSet, ids: &[S]) -> Vec<usize> {
        let wanted: HashSet<&str> = ids.iter().map(AsRef::as_ref).collect();
        if wanted.is_empty() {
            return Vec::new();
        }
        let rules = set.rules();
        (0..rules.len())
            .filter(|&i| wanted.contains(rules[i].id.as_str()))
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect()
    }

    /// The turn stops: the reason to give the model for the active
    /// `remind: every-turn` rules and, while skills that use memory are
    /// active, the memory reminder (one text), or `None` when there is
    /// neither. Reads only the session (no rule set, no file): whether a
    /// skill uses memory was read when it became active.
    pub fn stop(&self) -> Option<String> {
        let sticky = (!self.sticky.is_empty()).then(|| {
            let lines: Vec<String> = self.sticky.iter().map(|s| s.line.clone()).collect();
            crate::delivery::render::stop_reminder(&lines)
        });
        // O(1) when no skill is active: an empty list, nothing else looked at.
        let memory = if self.skills.is_empty() {
            None
        } else {
            let using: Vec<&str> = self
                .skills
                .iter()
                .filter(|s| s.memory)
                .map(|s| s.name.as_str())
                .collect();
            (!using.is_empty()).then(|| crate::delivery::skills::memory_reminder(&using))
        };
        match (sticky, memory) {
            (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
            (a, b) => a.or(b),
        }
    }

    pub(super) fn render(
        &self,
        set: &RuleSet,
        give: &[usize],
        topic: &HashSet<usize>,
        memory: Option<&str>,
        budget: Budget,
    ) -> Due {
        let rules = set.rules();
        let picked: Vec<&Rule> = give.iter().map(|&i| &rules[i]).collect();
        let options = RenderOptions {
            topic_rule_ids: topic.iter().map(|&i| rules[i].id.as_str()).collect(),
            previous_order: if budget.keep_order { &self.order } else { &[] },
            max_lines: budget.max_lines,
            max_bytes: budget.max_bytes,
            memory,
        };
        let plan = plan_rules(&picked, &options);
        let index: std::collections::HashMap<&str, usize> =
            give.iter().map(|&i| (rules[i].id.as_str(), i)).collect();
        Due {
            text: plan.text,
            rules: plan
                .order
                .iter()
                .filter_map(|id| index.get(id.as_str()).copied())
                .collect(),
            omitted: plan.omitted,
            given: Vec::new(),
            starts: false,
            regives: false,
            memory: Vec::new(),
        }
    }
}
