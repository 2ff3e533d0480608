//! The memory given at an event: the [`Memory`] modes, and the entries
//! recalled by relevance at each kind of event.

use super::Responder;
use crate::base::limits::DEFAULT_MEMORY_LINES;
use crate::delivery::event::Event;
use crate::delivery::session::{Due, RecallAt, Session, Start};
use crate::memory::agent_memory::{self, AgentMemory, AgentPlaces, MemorySources};
use crate::memory::recall::RecallBudget;
use crate::memory::{MemoryIndex, MemoryLocations, MemoryStore};
use crate::rules::rule_set::RuleSet;

/// Where the memory given at a session start comes from.
#[derive(Clone, Debug, Default)]
pub enum Memory {
    /// None.
    #[default]
    None,
    /// The user's and the project's memory topics, at most this many lines,
    /// at a session start (the first-lines behaviour).
    Store(MemoryLocations, usize),
    /// Recall by relevance from the user's and the project's memory
    /// ([`Session::recall`]): at a start the index of topics and the pinned
    /// entries; at a prompt, files touched, a model call or a request the
    /// entries most relevant to them that the conversation was not given,
    /// within the budget; again after a compaction.
    Recall(MemoryLocations, RecallBudget),
}

impl Responder<'_> {
    /// Memory recalled by relevance from this project's and home's store
    /// ([`Memory::Recall`]) within `budget`.
    pub fn with_recall(mut self, budget: RecallBudget) -> Self {
        let home = self.home.clone().unwrap_or_default();
        self.memory = Memory::Recall(MemoryLocations::new(&home, self.workdir), budget);
        self
    }

    /// The memory store of this project and home, given after the rules at
    /// a session start, at most [`DEFAULT_MEMORY_LINES`] lines.
    pub fn with_memory(mut self) -> Self {
        let home = self.home.clone().unwrap_or_default();
        self.memory = Memory::Store(
            MemoryLocations::new(&home, self.workdir),
            DEFAULT_MEMORY_LINES,
        );
        self
    }

    /// Whose memory the recall reads ([`Memory::Recall`]): ours unless
    /// `sources.wave` is off, and the agents' own (read-only) at `places`.
    /// By default ours only.
    pub fn memory_sources(mut self, sources: MemorySources, places: AgentPlaces) -> Self {
        self.recall_from = Some((sources, places));
        self
    }

    pub fn memory(mut self, memory: Memory) -> Self {
        self.memory = memory;
        self
    }

    pub(super) fn memory_text(&self, event: &Event) -> Option<String> {
        if let Some(text) = &event.memory {
            return Some(text.clone());
        }
        match &self.memory {
            Memory::None | Memory::Recall(..) => None,
            Memory::Store(locations, lines) => {
                Some(MemoryStore::new(locations.clone()).load_for_prompt(*lines))
            }
        }
    }
}

/// The memory recalled by relevance at one event ([`Memory::Recall`]): the
/// store's index (unless the sources leave ours out) and the agents' own
/// memory the sources name, read once for the event, and the budget. In
/// the other modes nothing is recalled.
pub(super) struct MemoryAtEvent<'s> {
    set: &'s RuleSet,
    recall: Option<(Option<MemoryIndex>, RecallBudget)>,
    agents: AgentMemory,
}

impl<'s> MemoryAtEvent<'s> {
    pub(super) fn open(
        set: &'s RuleSet,
        memory: &Memory,
        from: Option<&(MemorySources, AgentPlaces)>,
    ) -> MemoryAtEvent<'s> {
        let Memory::Recall(locations, limit) = memory else {
            return MemoryAtEvent {
                set,
                recall: None,
                agents: AgentMemory::default(),
            };
        };
        let wave = from.is_none_or(|(s, _)| s.wave);
        let index = wave.then(|| MemoryIndex::open(&MemoryStore::new(locations.clone())));
        let agents = match from {
            Some((s, places)) if !s.agents.is_empty() => agent_memory::read(&s.agents, places),
            _ => AgentMemory::default(),
        };
        MemoryAtEvent {
            set,
            recall: Some((index, *limit)),
            agents,
        }
    }

    /// Adds the entries due at `at` to `due` ([`Session::recall`], then
    /// [`Session::recall_agents`]).
    pub(super) fn add(&self, session: &Session, due: &mut Due, at: RecallAt<'_>) {
        if let Some((index, limit)) = &self.recall {
            if let Some(index) = index {
                session.recall(due, self.set, index, at, *limit);
            }
            if !self.agents.entries.is_empty() {
                session.recall_agents(due, &self.agents, at, *limit);
            }
        }
    }

    /// The memory of a model call's section, which is written anew each
    /// call: the latest recall (for a new prompt, new files) stays in it
    /// after the rules; the index of topics comes once, at the first call,
    /// and stays. Returns the section's memory text (the event's own, then
    /// what the session recalled) and the ids of the entries recalled now.
    pub(super) fn at_model_call(
        &self,
        session: &mut Session,
        event: &Event,
        touched: &[String],
    ) -> (Option<String>, Vec<String>) {
        let mut recalled = Due::default();
        if self.recall.is_some() {
            let mut start = Due::default();
            if !session.started {
                self.add(session, &mut start, RecallAt::Start(Start::Startup));
            }
            if let Some(prompt) = event.prompt.as_deref() {
                self.add(session, &mut recalled, RecallAt::Prompt(prompt));
            }
            self.add(session, &mut recalled, RecallAt::Files(touched));
            session.set_recalled(&start.text, &recalled.text);
            start.memory.append(&mut recalled.memory);
            recalled.memory = start.memory;
        }
        let recalled_text = session.recalled();
        let memory = match (event.memory.as_deref(), recalled_text.as_str()) {
            (m, "") => m.map(str::to_string),
            (None | Some(""), r) => Some(r.to_string()),
            (Some(m), r) => Some(format!("{m}\n\n{r}")),
        };
        (memory, recalled.memory)
    }
}
