//! The skills active in the session and the rules that name them.

use super::{Budget, Due, Session, MAX_SKILLS};
use crate::rules::rule_set::RuleSet;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// A skill active in the session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveSkill {
    /// As [`crate::rules::skill_name::name`] gives it.
    pub name: String,
    /// Its `SKILL.md` uses the memory tools (read when it became active).
    pub memory: bool,
}

impl Session {
    /// The skills active in the session, sorted by name.
    pub fn skills(&self) -> &[ActiveSkill] {
        &self.skills
    }

    /// Whether this skill (any spelling [`crate::rules::skill_name::name`] accepts) is
    /// active in the session.
    pub fn is_skill_active(&self, name: &str) -> bool {
        crate::rules::skill_name::name(name).is_ok_and(|n| {
            self.skills
                .binary_search_by(|s| s.name.as_str().cmp(&n))
                .is_ok()
        })
    }

    /// Records a skill as active (see [`Session::skill`]) without computing
    /// what is due: the next event's answer ([`Session::prompt`],
    /// [`Session::files_touched`]) holds its rules. Returns whether it is
    /// recorded (false for a refused name or past [`MAX_SKILLS`]).
    pub fn note_skill(&mut self, name: &str, memory: bool) -> bool {
        let Ok(name) = crate::rules::skill_name::name(name) else {
            return false;
        };
        match self.skills.binary_search_by(|s| s.name.cmp(&name)) {
            Ok(at) => self.skills[at].memory |= memory,
            Err(at) if self.skills.len() < MAX_SKILLS => {
                self.skills.insert(at, ActiveSkill { name, memory })
            }
            Err(_) => return false,
        }
        true
    }

    pub(super) fn skill_names(&self) -> Vec<&str> {
        self.skills.iter().map(|s| s.name.as_str()).collect()
    }

    /// A skill becomes active (the agent's skill tool, a `/name` prompt, a
    /// read of its `SKILL.md`); `memory`: its `SKILL.md` uses the memory
    /// tools (the caller read it once, now, so [`Session::stop`] needs no
    /// file). Gives the rules whose `skills` name it that the session was
    /// not given. Past [`MAX_SKILLS`] skills, a new one is not recorded
    /// (its rules are still given now). A name [`crate::rules::skill_name::name`]
    /// refuses gives nothing.
    pub fn skill(&mut self, set: &RuleSet, name: &str, memory: bool, budget: Budget) -> Due {
        let Ok(name) = crate::rules::skill_name::name(name) else {
            return Due::default();
        };
        self.note_skill(&name, memory);
        let rules = set.rules();
        let give: Vec<usize> = set
            .skill_rules(&name)
            .into_iter()
            .filter(|&i| !self.is_delivered(&rules[i]))
            .collect();
        self.update_sticky(set);
        self.render(set, &give, &HashSet::new(), None, budget)
    }
}
