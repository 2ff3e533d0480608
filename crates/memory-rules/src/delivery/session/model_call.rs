//! A model call (an SDK middleware): every rule active in the conversation
//! at each call, the files new to it matched once, the text rendered again
//! only when what it holds changed.

use super::every_turn::sticky_of;
use super::{is_conditional, Budget, Due, Session};
use crate::base::limits::MAX_SESSION_RULES;
use crate::rules::rule_set::{Contents, RuleSet};
use std::collections::BTreeSet;

/// A model call (an SDK middleware): how the road delivers, and whether the
/// conversation is the one seen so far (see [`crate::delivery::event::EventKind::ModelCall`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Call {
    /// Conditional rules go as reminders; the text holds the always-on ones.
    pub reminders: bool,
    /// What the conversation was given and touched is gone.
    pub reset: bool,
}

/// What is due at a model call ([`Session::model_call`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallDue {
    pub due: Due,
    /// Indices of the conditional rules to give as reminders, ascending.
    pub reminders: Vec<usize>,
    /// Indices of every rule active in the conversation, ascending.
    pub active: Vec<usize>,
}

/// What a session computed from one rule set ([`RuleSet::id`]), kept while
/// that set is in use: a model call then matches only the files new to the
/// conversation, and renders only when what it renders changed.
#[derive(Clone, Debug, Default)]
pub(super) struct Derived {
    set: u64,
    /// Conditional rules the session's files activated (paths, content), ascending.
    fired: BTreeSet<usize>,
    /// The last model call's text, by a hash of what it was made of.
    rendered: Option<(u64, Due)>,
}

/// Derived state is a cache: two sessions that recorded the same are equal.
impl PartialEq for Derived {
    fn eq(&self, _: &Derived) -> bool {
        true
    }
}

impl Eq for Derived {}

impl Session {
    /// A model call (an SDK middleware): `files` the conversation touched
    /// since the last call, `prompt` the latest user text when it changed.
    /// The text holds every rule active in the conversation (always-on, of
    /// every file it touched, of the latest prompt's topics and mentions, of
    /// its active skills), topic rules first, in the order they were given
    /// before, then `memory`; in reminder mode ([`Call::reminders`]) only the
    /// always-on rules, and the second list names the conditional rules
    /// active and not given, each for a reminder of its own. Only the files
    /// new to the conversation are matched while the rule set is the same;
    /// the text is rendered again only when what it holds changed.
    #[allow(clippy::too_many_arguments)]
    pub fn model_call<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
        call: Call,
        memory: Option<&str>,
        budget: Budget,
    ) -> CallDue {
        if call.reset {
            self.compacted();
            self.files.clear();
            self.by_content.clear();
            self.derived = Derived::default();
        }
        let rel = self.note_files(set, files);
        let topic = match prompt {
            Some(_) => self.note_prompt(set, prompt),
            None => self.indices(set, self.prompt_topics.iter()),
        };
        let now = self.fire(set, &rel, contents);
        let rules = set.rules();
        // Active now: always-on, this call's files, the prompt, the skills.
        let mut active: BTreeSet<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional())
            .collect();
        active.extend(now);
        active.extend(topic.iter().copied());
        active.extend(self.indices(set, self.mentioned.iter()));
        if !self.skills.is_empty() && set.has_skill_rules() {
            let none: [&str; 0] = [];
            active.extend(set.active_in(&none, None, &self.skill_names(), None));
        }
        // The sticky rules are those of the files in context now.
        self.sticky = sticky_of(set, active.iter().copied());
        active.extend(self.derived.fired.iter().copied());
        let budget = Budget {
            keep_order: true,
            ..budget
        };
        let active: Vec<usize> = active.into_iter().collect();
        if !call.reminders {
            let due = self.render_once(set, &active, &topic, memory, budget);
            return CallDue {
                due,
                reminders: Vec::new(),
                active,
            };
        }
        let always: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&i| !is_conditional(&rules[i]))
            .collect();
        let due = self.render_once(set, &always, &[], memory, budget);
        let reminders = active
            .iter()
            .copied()
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect();
        CallDue {
            due,
            reminders,
            active,
        }
    }

    /// [`Session::render`] for a model call, skipped when its input is what
    /// the last call rendered; the render order becomes the session's (the
    /// next call keeps it).
    fn render_once(
        &mut self,
        set: &RuleSet,
        give: &[usize],
        topic: &[usize],
        memory: Option<&str>,
        budget: Budget,
    ) -> Due {
        let mut topic = topic.to_vec();
        topic.sort_unstable();
        let key = |order: &[String]| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (set.id(), give, &topic, memory, budget, order).hash(&mut h);
            h.finish()
        };
        if let Some((k, due)) = &self.derived.rendered {
            if *k == key(&self.order) {
                return due.clone();
            }
        }
        let due = self.render(set, give, &topic.iter().copied().collect(), memory, budget);
        self.order = due
            .rules
            .iter()
            .map(|&i| set.rules()[i].id.clone())
            .take(MAX_SESSION_RULES)
            .collect();
        self.derived.rendered = Some((key(&self.order), due.clone()));
        due
    }

    /// The conditional rules these files activate (by paths, or by content
    /// where `contents` reads it), added to [`Derived::fired`]; with another
    /// rule set than last time, every other file of the session is matched
    /// again first.
    fn fire(&mut self, set: &RuleSet, rel: &[String], contents: Option<Contents>) -> Vec<usize> {
        let rules = set.rules();
        if self.derived.set != set.id() {
            self.derived = Derived {
                set: set.id(),
                ..Derived::default()
            };
            let others: Vec<String> = self
                .files
                .iter()
                .filter(|f| !rel.contains(f))
                .cloned()
                .collect();
            if !others.is_empty() || !self.by_content.is_empty() {
                let fired: Vec<usize> = self
                    .active_known(set, &others, None, None)
                    .into_iter()
                    .filter(|&i| is_conditional(&rules[i]))
                    .collect();
                self.derived.fired.extend(fired);
            }
        }
        if rel.is_empty() {
            return Vec::new();
        }
        let now: Vec<usize> = self
            .active_for(set, rel, None, contents)
            .into_iter()
            .filter(|&i| is_conditional(&rules[i]))
            .collect();
        self.derived.fired.extend(now.iter().copied());
        now
    }
}
