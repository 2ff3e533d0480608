//! The memory due at an event of the conversation ([`crate::memory::recall`]),
//! and the memory given in it.

use super::{Due, Session, Start, MAX_SESSION_MEMORY};
use crate::rules::rule_set::RuleSet;
use std::collections::HashSet;

/// Where in the conversation memory is recalled ([`Session::recall`]).
#[derive(Clone, Copy, Debug)]
pub enum RecallAt<'a> {
    /// The answer to a session start (resume: nothing when it started).
    Start(Start),
    /// A prompt.
    Prompt(&'a str),
    /// Files touched (absolute or relative to the workdir).
    Files(&'a [String]),
}

impl Session {
    /// These memory entries (ids) reached the model (for callers that keep
    /// answers by id, as the binding does).
    pub fn commit_memory<S: AsRef<str>>(&mut self, ids: &[S]) {
        for id in ids {
            if self.memory.len() < MAX_SESSION_MEMORY {
                self.memory.insert(id.as_ref().to_string());
            }
        }
    }

    /// The memory recalled at model calls ('' for none): the index of
    /// topics given at the first call, then the latest recall.
    pub fn recalled(&self) -> String {
        match (self.recalled_index.as_str(), self.recalled.as_str()) {
            (a, "") => a.to_string(),
            ("", b) => b.to_string(),
            (a, b) => format!("{a}\n\n{b}"),
        }
    }

    /// Keeps what a model call recalled (see [`Session::recalled`]): `index`
    /// (at the first call) and `latest` each replace the one before unless
    /// empty.
    pub fn set_recalled(&mut self, index: &str, latest: &str) {
        if !index.is_empty() {
            self.recalled_index = index.to_string();
        }
        if !latest.is_empty() {
            self.recalled = latest.to_string();
        }
    }

    /// Whether this memory entry was given since the start or the last
    /// compaction.
    pub fn has_memory(&self, id: &str) -> bool {
        self.memory.contains(id)
    }

    /// Adds the memory due at this point of the conversation to `due`
    /// ([`crate::memory::recall`]): at a start, the index of topics and the
    /// pinned entries (after a compaction, with the entries given before
    /// it); at a prompt or files touched, the most relevant entries the
    /// conversation was not given (and, after a compaction told by an event
    /// that reached no model, those given before it). Committing `due`
    /// records them as given. Call it after the rules' answer for the same
    /// event (`start`, `prompt`, `files_touched`).
    pub fn recall(
        &self,
        due: &mut Due,
        set: &RuleSet,
        index: &crate::memory::MemoryIndex,
        at: RecallAt<'_>,
        budget: crate::memory::recall::RecallBudget,
    ) {
        use crate::memory::recall::{recall, RecallEvent};
        let taken: HashSet<String> = due.memory.iter().cloned().collect();
        let given = |id: &str| self.memory.contains(id) || taken.contains(id);
        let mut parts: Vec<crate::memory::recall::Recalled> = Vec::new();
        match at {
            RecallAt::Start(how) => {
                if how == Start::Resume && self.started {
                    return;
                }
                let again: &[String] = if matches!(how, Start::Compact | Start::Clear) {
                    &self.memory_before
                } else {
                    &[]
                };
                parts.push(recall(index, RecallEvent::Start { again }, &given, budget));
            }
            RecallAt::Prompt(prompt) => {
                if self.regive && !self.memory_before.is_empty() {
                    parts.push(given_before_compaction(
                        index,
                        &self.memory_before,
                        &given,
                        budget,
                    ));
                }
                parts.push(recall(index, RecallEvent::Prompt(prompt), &given, budget));
            }
            RecallAt::Files(files) => {
                if self.regive && !self.memory_before.is_empty() {
                    parts.push(given_before_compaction(
                        index,
                        &self.memory_before,
                        &given,
                        budget,
                    ));
                }
                let rel: Vec<String> = files
                    .iter()
                    .filter_map(|f| set.normalize(f).map(|r| r.into_owned()))
                    .collect();
                if !rel.is_empty() {
                    parts.push(recall(index, RecallEvent::Files(&rel), &given, budget));
                }
            }
        }
        for part in parts {
            add_to(due, &part.text, part.ids());
        }
    }

    /// Adds the agents' own entries (read-only: the project's
    /// `memory_sources`) relevant to a prompt or to the files touched that
    /// the conversation was not given to `due`
    /// ([`crate::memory::recall::recall_agents`]); their origins serve as
    /// their ids. Nothing at a start.
    pub fn recall_agents(
        &self,
        due: &mut Due,
        agents: &crate::memory::agent_memory::AgentMemory,
        at: RecallAt<'_>,
        budget: crate::memory::recall::RecallBudget,
    ) {
        let query = match at {
            RecallAt::Start(_) => return,
            RecallAt::Prompt(prompt) => prompt.to_string(),
            RecallAt::Files(files) => files.join(" "),
        };
        let taken: HashSet<String> = due.memory.iter().cloned().collect();
        let given = |id: &str| self.memory.contains(id) || taken.contains(id);
        let (text, ids) = crate::memory::recall::recall_agents(agents, &query, &given, budget);
        add_to(due, &text, ids);
    }
}

/// `text` after what `due` holds, and its entries' ids.
fn add_to(due: &mut Due, text: &str, ids: Vec<String>) {
    if text.is_empty() {
        return;
    }
    if !due.text.is_empty() {
        due.text.push_str("\n\n");
    }
    due.text.push_str(text);
    for id in ids {
        if !due.memory.contains(&id) {
            due.memory.push(id);
        }
    }
}

/// The entries given before a compaction, again (as a start after a
/// compaction gives them), without the index of topics.
fn given_before_compaction(
    index: &crate::memory::MemoryIndex,
    before: &[String],
    given: &dyn Fn(&str) -> bool,
    budget: crate::memory::recall::RecallBudget,
) -> crate::memory::recall::Recalled {
    use crate::memory::recall::{recall, RecallEvent};
    let mut r = recall(index, RecallEvent::Start { again: before }, given, budget);
    // Keep only the entries' blocks: the index came with the start.
    r.text = match r.text.split_once("\n\n") {
        Some((_, blocks)) if !r.entries.is_empty() => {
            format!("## Memory (given again after the compaction)\n{blocks}")
        }
        _ => String::new(),
    };
    if r.text.is_empty() {
        r.entries.clear();
    }
    r
}
