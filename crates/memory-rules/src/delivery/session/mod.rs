//! One conversation's delivery state, and what is due now.
//!
//! Every road into an agent (the CLI's hooks, the MCP server, the Node
//! adapters) keeps one [`Session`] per conversation and asks it what to give
//! the model at each event: the session starts (startup, resume, after a
//! compaction or a clear), a prompt arrives, files are touched (read or
//! written, by any tool), the turn stops, the conversation is compacted, or a
//! saved transcript is read back. The answer ([`Due`]) names the rules and
//! carries their text, rendered by [`crate::delivery::render`].
//!
//! Computing what is due changes nothing that was delivered: the caller sends
//! the text and then calls [`Session::commit`], so a send that fails is
//! retried at the next event. A rule counts as delivered in the version (a
//! hash of its text) that was sent: a rule edited since comes again.
//!
//! `Session` is serde-serialisable (the hooks store it as their state file).
//! Every collection it holds is bounded:
//! [`crate::base::limits::MAX_SESSION_FILES`] files, [`MAX_SESSION_RULES`]
//! rule ids per collection, [`MAX_SKILLS`] active skills; past the bound
//! nothing more is recorded (a rule not recorded as delivered is simply
//! delivered again).
//!
//! Skills: [`Session::skill`] records a skill the agent activated (with
//! whether its `SKILL.md` uses the memory tools, which the caller read once
//! then) and gives the rules whose `skills` name it. A skill stays active
//! until the session starts afresh; after a compaction its rules come again.
//! While a skill that uses memory is active, [`Session::stop`] adds the
//! memory reminder ([`crate::delivery::skills::memory_reminder`]).
//!
//! Where each part lives: `due.rs` (what is due at a start, a prompt, files
//! touched, a request, in reminder mode, at a stop), `model_call.rs` (an SDK
//! middleware's model call), `compaction.rs` (what a compaction makes due
//! again), `active_rules.rs` (what an event records and the rules active
//! from it), `active_skills.rs`, `every_turn.rs` (the `remind: every-turn`
//! rules), `live_subagents.rs`, `memory_recall.rs` (the memory due at an
//! event) and `restore.rs` (from a transcript); here the state and its
//! commits.

mod active_rules;
mod active_skills;
mod compaction;
mod due;
mod every_turn;
mod live_subagents;
mod memory_recall;
mod model_call;
mod restore;

pub use active_skills::ActiveSkill;
pub use due::{Budget, Due, Start};
pub use every_turn::Sticky;
pub use live_subagents::{LiveSubagent, PendingTask};
pub use memory_recall::RecallAt;
pub use model_call::Call;

use crate::base::fnv::{fnv1a, Fnv1a};
pub use crate::base::limits::{MAX_SKILLS, MAX_SUBAGENTS};
use crate::rules::rule::Rule;
use crate::rules::rule_set::RuleSet;
use model_call::Derived;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

pub use crate::base::limits::MAX_SESSION_RULES;

/// The version this module writes; state of another version is read as a
/// fresh session.
pub const SESSION_VERSION: u32 = 2;

/// One conversation's delivery state (see the module comment).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Session {
    pub version: u32,
    /// A session start was delivered.
    pub started: bool,
    /// How many times the conversation was compacted (or cleared).
    pub compactions: u32,
    /// Compacted by an event that could not carry the rules: every rule
    /// active in the session is due at the next prompt or files touched.
    pub regive: bool,
    /// The size of the model's latest prompt, in tokens, as last seen
    /// ([`Session::prompt_size`]); 0 when unknown.
    pub prompt_tokens: u64,
    /// Rule id -> version (hash of its text) delivered since the start or
    /// the last compaction.
    delivered: BTreeMap<String, String>,
    /// Workdir-relative files the session's tools touched.
    files: BTreeSet<String>,
    /// Ids of every rule a prompt topic activated in the session.
    topics: BTreeSet<String>,
    /// Ids of the rules the latest prompt's topics activated.
    prompt_topics: Vec<String>,
    /// Ids of the manual and on-request rules the latest prompt mentions.
    mentioned: Vec<String>,
    /// Ids in the order they were rendered (for [`Budget::keep_order`]).
    order: Vec<String>,
    /// The `remind: every-turn` rules active now: what [`Session::stop`] reads.
    sticky: Vec<Sticky>,
    /// The skills active in the session, sorted by name, at most
    /// [`MAX_SKILLS`] (absent in state files written before skills: none).
    skills: Vec<ActiveSkill>,
    /// Ids of the memory entries given since the start or the last
    /// compaction, at most [`MAX_SESSION_MEMORY`].
    memory: BTreeSet<String>,
    /// Ids of the memory entries given before the last compaction: due
    /// again with what the compaction took.
    memory_before: Vec<String>,
    /// The latest memory recalled at a model call: a model call's section is
    /// written anew each call, and keeps it after the rules until a later
    /// recall replaces it or a compaction takes it.
    recalled: String,
    /// The index of topics recalled at the first model call.
    recalled_index: String,
    /// Ids of the rules a file's content activated (a `regex`), at most
    /// [`MAX_SESSION_RULES`]: they are active in the session as the files
    /// are, without the files being read again.
    by_content: BTreeSet<String>,
    /// Rules at the edit they govern: the tool calls counted, and when each
    /// path rule was last put in front of the model ([`crate::delivery::rules_at_edit`]).
    #[serde(rename = "recall")]
    pub at_edit: crate::delivery::rules_at_edit::RulesAtEdit,
    /// The subagents started in this session and not stopped yet, oldest
    /// first, at most [`MAX_SUBAGENTS`] ([`Session::subagent_started`]).
    subagents: Vec<LiveSubagent>,
    /// Tasks the session's subagent tool announced, not started yet, oldest
    /// first, at most [`MAX_SUBAGENTS`].
    tasks: Vec<PendingTask>,
    /// What was computed from the rule set in use, kept while it is (never saved).
    #[serde(skip)]
    derived: Derived,
}

/// At most this many memory entry ids are remembered per session (given
/// now, and given before the last compaction).
pub use crate::base::limits::MAX_SESSION_MEMORY;

/// The version of a rule: a hash of its id and text (FNV-1a, 64 bits,
/// stable across versions and platforms), as 16 hex digits.
pub fn rule_version(rule: &Rule) -> String {
    let h = Fnv1a::default()
        .update(rule.id.as_bytes())
        .update(&[0])
        .update(rule.content.as_bytes())
        .finish();
    crate::base::fnv::hex16(h)
}

/// The rules that fire on something (files, topics, content, a mention, a
/// request), as opposed to the always-on ones.
pub fn is_conditional(rule: &Rule) -> bool {
    !rule.metadata.is_unconditional()
}

impl Session {
    pub fn new() -> Session {
        Session {
            version: SESSION_VERSION,
            ..Session::default()
        }
    }

    /// Whether this rule, in its current version, was delivered.
    pub fn is_delivered(&self, rule: &Rule) -> bool {
        self.delivered
            .get(&rule.id)
            .is_some_and(|v| *v == rule_version(rule))
    }

    /// Ids delivered since the start or the last compaction, sorted.
    pub fn delivered_ids(&self) -> Vec<String> {
        self.delivered.keys().cloned().collect()
    }

    /// The files touched, sorted.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(String::as_str)
    }

    /// The text of `due` reached the model: its rules count as delivered.
    pub fn commit(&mut self, set: &RuleSet, due: &Due) {
        self.commit_ids(set, &due.rules);
        self.started |= due.starts;
        if due.regives {
            self.regive = false;
            self.memory_before.clear();
        }
        for id in &due.memory {
            if self.memory.len() < MAX_SESSION_MEMORY {
                self.memory.insert(id.clone());
            }
        }
    }

    /// These rules (indices) reached the model.
    pub fn commit_ids(&mut self, set: &RuleSet, indices: &[usize]) {
        let rules = set.rules();
        self.mark_all(
            indices
                .iter()
                .filter_map(|&i| rules.get(i))
                .map(|r| (r.id.as_str(), rule_version(r))),
        );
    }

    /// These rules (by id, as found in `set`) reached the model; `starts`:
    /// the answer to a session start.
    pub fn commit_named<S: AsRef<str>>(&mut self, set: &RuleSet, ids: &[S], starts: bool) {
        self.mark_all(
            ids.iter()
                .filter_map(|id| set.find(id.as_ref()))
                .map(|r| (r.id.as_str(), rule_version(r))),
        );
        self.started |= starts;
    }

    /// Marks each rule (id, version) delivered, and rendered in this order
    /// after the ones before. Whether an id is in the order already is
    /// asked of the ids' hashes, made once for all of them and compared as
    /// numbers (a session start gives a hundred rules at 1,000); only a
    /// hash seen before (the same id, or rarely another's) searches the
    /// strings.
    pub(super) fn mark_all<'a, V: AsRef<str>>(
        &mut self,
        marks: impl IntoIterator<Item = (&'a str, V)>,
    ) {
        let mut in_order: Vec<u64> = self.order.iter().map(|o| fnv1a(o.as_bytes())).collect();
        for (id, version) in marks {
            let version = version.as_ref();
            let full = self.delivered.len() >= MAX_SESSION_RULES;
            match self.delivered.get_mut(id) {
                Some(v) if v == version => {}
                Some(v) => *v = version.to_string(),
                None if !full => {
                    self.delivered.insert(id.to_string(), version.to_string());
                }
                None => {}
            }
            let h = fnv1a(id.as_bytes());
            let seen = in_order.contains(&h) && self.order.iter().any(|o| o == id);
            if self.order.len() < MAX_SESSION_RULES && !seen {
                self.order.push(id.to_string());
                in_order.push(h);
            }
        }
    }

    /// These rules, each in the version given (id, [`rule_version`]),
    /// reached the model (see [`crate::delivery::responder::Responder::commit`]).
    pub fn commit_given<'a>(&mut self, given: impl IntoIterator<Item = (&'a str, &'a str)>) {
        self.mark_all(given);
    }

    /// An answer that reached the model started the session (`starts`) or
    /// gave again what a compaction took (`regives`).
    pub fn commit_flags(&mut self, starts: bool, regives: bool) {
        self.started |= starts;
        if regives {
            self.regive = false;
            self.memory_before.clear();
        }
    }
}

#[cfg(test)]
mod tests;
