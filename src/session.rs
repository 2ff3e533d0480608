//! `DeliverySession`: the core's `Session` (one conversation's delivery
//! state: what is due now, what was delivered) for the TypeScript adapters.
//! Every call takes the `RuleEngine` whose rules it answers with; rules are
//! named by id across the boundary.

use crate::engine::RuleEngine;
use memory_rules::session::{self as core_session, Budget, Session, Start};
use memory_rules::RuleSet;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// The budget of a rendered rules section.
#[napi(object)]
#[derive(Default)]
pub struct DeliveryBudget {
    pub max_lines: Option<u32>,
    pub max_bytes: Option<u32>,
    /// Rules given before keep their places when given again.
    pub keep_order: Option<bool>,
}

/// What is due now. Nothing counts as delivered until `commit(due)`.
#[napi(object)]
pub struct Due {
    /// The rendered text ('' when nothing is due).
    pub text: String,
    /// Ids of the rules rendered, in the order rendered.
    pub rule_ids: Vec<String>,
    /// Ids left out to fit the budget.
    pub omitted: Vec<String>,
    /// Ids of the rules active but already delivered.
    pub given: Vec<String>,
    /// The answer to a session start (committing it marks the session started).
    pub starts: bool,
    /// Ids of the memory entries in the text (`recall`).
    pub memory_ids: Option<Vec<String>>,
}

/// Where memory is recalled (`recall`): one of `start` (how the session
/// starts: `startup`, `resume`, `compact`, `clear`), `prompt`, `files`.
#[napi(object)]
#[derive(Default)]
pub struct RecallInput {
    pub start: Option<String>,
    pub prompt: Option<String>,
    pub files: Option<Vec<String>>,
    /// At most this many entries (default 5) and bytes (default 3,000).
    pub max_entries: Option<u32>,
    pub max_bytes: Option<u32>,
}

/// A reminder: the rule id and its `<system-reminder>` block.
#[napi(object)]
pub struct Reminder {
    pub rule_id: String,
    pub text: String,
}

fn budget(b: Option<DeliveryBudget>) -> Budget {
    let b = b.unwrap_or_default();
    Budget {
        max_lines: b.max_lines.map(|n| n as usize),
        max_bytes: b.max_bytes.map(|n| n as usize),
        keep_order: b.keep_order.unwrap_or(false),
    }
}

/// Each rule (by index in `set`) with its `<system-reminder>` block.
fn reminders(set: &RuleSet, rules: impl IntoIterator<Item = usize>) -> Vec<Reminder> {
    rules
        .into_iter()
        .map(|i| Reminder {
            rule_id: set.rules()[i].id.clone(),
            text: memory_rules::render::reminder(&set.rules()[i]),
        })
        .collect()
}

fn to_js(set: &RuleSet, due: core_session::Due) -> Due {
    let ids = |v: &[usize]| v.iter().map(|&i| set.rules()[i].id.clone()).collect();
    Due {
        text: due.text,
        rule_ids: ids(&due.rules),
        omitted: due.omitted,
        given: ids(&due.given),
        starts: due.starts,
        memory_ids: (!due.memory.is_empty()).then_some(due.memory),
    }
}

/// One conversation's delivery state (the core's `Session`).
#[napi]
pub struct DeliverySession {
    inner: Session,
}

impl Default for DeliverySession {
    fn default() -> Self {
        Self::new()
    }
}

#[napi]
impl DeliverySession {
    #[napi(constructor)]
    pub fn new() -> Self {
        DeliverySession {
            inner: Session::new(),
        }
    }

    /// A session saved with `toJson()`.
    #[napi(factory, catch_unwind)]
    pub fn from_json(text: String) -> Result<Self> {
        serde_json::from_str(&text)
            .map(|inner| DeliverySession { inner })
            .map_err(|e| Error::from_reason(format!("not a saved session: {e}")))
    }

    #[napi(catch_unwind)]
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.inner).unwrap_or_default()
    }

    /// A start was delivered.
    #[napi(getter)]
    pub fn started(&self) -> bool {
        self.inner.started
    }

    /// The session starts: `how` is `startup`, `resume`, `compact` or `clear`.
    #[napi(catch_unwind)]
    pub fn start(
        &mut self,
        engine: &RuleEngine,
        how: String,
        memory: Option<String>,
        budget_: Option<DeliveryBudget>,
    ) -> Due {
        let set = engine.rule_set();
        let due = self
            .inner
            .start(&set, Start::parse(&how), memory.as_deref(), budget(budget_));
        to_js(&set, due)
    }

    /// A prompt: its topic rules (every time), the always-on rules not given.
    #[napi(catch_unwind)]
    pub fn prompt(
        &mut self,
        engine: &RuleEngine,
        prompt: String,
        budget_: Option<DeliveryBudget>,
    ) -> Due {
        let set = engine.rule_set();
        let due = self.inner.prompt(&set, &prompt, budget(budget_));
        to_js(&set, due)
    }

    /// Files touched: the conditional rules they activate, not given yet.
    #[napi(catch_unwind)]
    pub fn files_touched(
        &mut self,
        engine: &RuleEngine,
        files: Vec<String>,
        budget_: Option<DeliveryBudget>,
    ) -> Due {
        let set = engine.rule_set();
        let due = self.inner.files_touched(&set, &files, budget(budget_));
        to_js(&set, due)
    }

    /// Every rule active for these files and prompt; those given are named
    /// in `given`, unless `again`.
    #[napi(catch_unwind)]
    pub fn request(
        &mut self,
        engine: &RuleEngine,
        files: Vec<String>,
        prompt: Option<String>,
        again: bool,
        budget_: Option<DeliveryBudget>,
    ) -> Due {
        let set = engine.rule_set();
        let due = self
            .inner
            .request(&set, &files, prompt.as_deref(), again, budget(budget_));
        to_js(&set, due)
    }

    /// Reminder mode: one reminder per conditional rule active for these
    /// files (added to the session's) and prompt, not given yet.
    #[napi(catch_unwind)]
    pub fn reminders(
        &mut self,
        engine: &RuleEngine,
        files: Vec<String>,
        prompt: Option<String>,
    ) -> Vec<Reminder> {
        let set = engine.rule_set();
        reminders(&set, self.inner.reminders(&set, &files, prompt.as_deref()))
    }

    /// Reminder mode when the caller knows what is active: reminders for the
    /// conditional rules among these ids that were not given (records nothing).
    #[napi(catch_unwind)]
    pub fn reminders_for(&self, engine: &RuleEngine, ids: Vec<String>) -> Vec<Reminder> {
        let set = engine.rule_set();
        reminders(&set, self.inner.undelivered(&set, &ids))
    }

    /// The text of `due` reached the model.
    #[napi(catch_unwind)]
    pub fn commit(&mut self, engine: &RuleEngine, due: Due) {
        let set = engine.rule_set();
        self.inner.commit_named(&set, &due.rule_ids, due.starts);
        self.inner
            .commit_memory(due.memory_ids.as_deref().unwrap_or_default());
    }

    /// `due` with the memory due at this point of the conversation added
    /// (the core's `Session::recall`): at a start the index of topics and
    /// the pinned entries (after a compaction, the entries given before
    /// it), at a prompt the entries most relevant to it, for files touched
    /// the entries tied to them; only entries not given yet. Commit the
    /// returned due.
    #[napi(catch_unwind)]
    pub fn recall(
        &self,
        engine: &RuleEngine,
        store: &crate::memory::JsMemoryStore,
        due: Due,
        at: RecallInput,
    ) -> Due {
        use memory_rules::memory::recall::RecallBudget;
        use memory_rules::session::RecallAt;
        let set = engine.rule_set();
        let index = memory_rules::memory::MemoryIndex::open(store.core());
        let mut limit = RecallBudget::default();
        if let Some(n) = at.max_entries {
            limit.entries = n as usize;
        }
        if let Some(n) = at.max_bytes {
            limit.bytes = n as usize;
        }
        let mut core_due = core_session::Due {
            text: due.text,
            memory: due.memory_ids.unwrap_or_default(),
            ..core_session::Due::default()
        };
        if let Some(how) = &at.start {
            self.inner.recall(
                &mut core_due,
                &set,
                &index,
                RecallAt::Start(Start::parse(how)),
                limit,
            );
        }
        if let Some(p) = &at.prompt {
            self.inner
                .recall(&mut core_due, &set, &index, RecallAt::Prompt(p), limit);
        }
        if let Some(files) = &at.files {
            self.inner
                .recall(&mut core_due, &set, &index, RecallAt::Files(files), limit);
        }
        Due {
            text: core_due.text,
            memory_ids: (!core_due.memory.is_empty()).then_some(core_due.memory),
            ..due
        }
    }

    /// These rules (ids) reached the model.
    #[napi(catch_unwind)]
    pub fn commit_ids(&mut self, engine: &RuleEngine, ids: Vec<String>) {
        let set = engine.rule_set();
        self.inner.commit_named(&set, &ids, false);
    }

    /// The conversation was compacted: what was delivered is gone from it.
    #[napi(catch_unwind)]
    pub fn compacted(&mut self) {
        self.inner.compacted();
    }

    /// A saved transcript (since the last compaction): the rules whose
    /// reminder or rendered entry it holds count as delivered.
    #[napi(catch_unwind)]
    pub fn restore(&mut self, engine: &RuleEngine, transcript: String) {
        self.inner.restore(&engine.rule_set(), &transcript);
    }

    /// A skill became active: the rules whose `skills` name it, not given
    /// yet. `usesMemory`: its `SKILL.md` uses the memory tools (then `stop()`
    /// adds the memory reminder while it is active).
    #[napi(catch_unwind)]
    pub fn skill(
        &mut self,
        engine: &RuleEngine,
        name: String,
        uses_memory: Option<bool>,
        budget_: Option<DeliveryBudget>,
    ) -> Due {
        let set = engine.rule_set();
        let due = self
            .inner
            .skill(&set, &name, uses_memory.unwrap_or(false), budget(budget_));
        to_js(&set, due)
    }

    /// Records a skill as active without computing what is due (reminder
    /// mode: the next `reminders` holds its rules). False for a refused name
    /// or past the limit of active skills.
    #[napi(catch_unwind)]
    pub fn note_skill(&mut self, name: String, uses_memory: Option<bool>) -> bool {
        self.inner.note_skill(&name, uses_memory.unwrap_or(false))
    }

    /// The skills active in the session, sorted.
    #[napi(catch_unwind)]
    pub fn active_skills(&self) -> Vec<String> {
        self.inner.skills().iter().map(|s| s.name.clone()).collect()
    }

    /// What to tell the model at the end of a turn for the active
    /// `remind: every-turn` rules and, while a skill that uses memory is
    /// active, the memory reminder; or null.
    #[napi(catch_unwind)]
    pub fn stop(&self) -> Option<String> {
        self.inner.stop()
    }

    /// The short lines of the active `remind: every-turn` rules.
    #[napi(catch_unwind)]
    pub fn sticky_lines(&self) -> Vec<String> {
        self.inner.sticky().iter().map(|s| s.line.clone()).collect()
    }

    /// Ids delivered since the start or the last compaction, sorted.
    #[napi(catch_unwind)]
    pub fn delivered(&self) -> Vec<String> {
        self.inner.delivered_ids()
    }
}

/// The files a tool call's input names (the keys every agent uses:
/// `file_path`, `filePath`, `notebook_path`, `path`).
#[napi(catch_unwind)]
pub fn tool_input_files(input: serde_json::Value) -> Vec<String> {
    core_session::tool_input_files(&input)
}
