//! What an agent event means, decided once for every road: [`Responder`]
//! answers an [`Event`] for a conversation's [`Session`] with an [`Answer`],
//! and records what the road delivered ([`Responder::commit`]).
//!
//! ```
//! use memory_rules::{load, Config, Conversation, Event, EventKind, Responder, Session, ToolCall, ToolKind};
//! let dir = tempfile::tempdir()?;
//! let rules = dir.path().join(".wave/rules");
//! std::fs::create_dir_all(&rules)?;
//! std::fs::write(rules.join("ts.md"), "---\npaths: src/**/*.ts\n---\nUse strict TypeScript.")?;
//! let loaded = load(&Config::with_home(dir.path(), dir.path().join("no-home")));
//! let responder = Responder::new(&loaded.rules, dir.path());
//!
//! // Any agent's shell tool, under any name: `cat` reads the file.
//! let call = ToolCall::new("bash", ToolKind::Other, serde_json::json!({"command": "cat src/app.ts"}));
//! let event = Event::new(Conversation::new("s1"), EventKind::ToolDone).tool(call).cwd(dir.path());
//! let mut session = Session::new();
//! let answer = responder.respond(&mut session, &event);
//! assert_eq!(answer.text, "## Rules\n[ts.md] Use strict TypeScript.");
//! responder.commit(&mut session, &answer); // the road sent it
//! assert!(responder.respond(&mut session, &event).text.is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! | event | the answer's text |
//! | --- | --- |
//! | `Start` | the always-on rules, then the memory; on a resume only what the conversation lacks; after a compaction or a clear every rule active in it again |
//! | `Prompt` | the rules its topics activate, every time, as constraints; the always-on and skill rules not given |
//! | `ToolDone` | the conditional rules the files touched activate, not given yet (and what a compaction took, when told without a route to the model) |
//! | `ModelCall` | every rule active in the conversation (or, for reminders, the always-on ones: the others are [`Answer::reminders`]), then the memory, then the rules offered on request |
//! | `Request` | every rule active for the files and prompt; those given named in [`Answer::given`], unless `again`; the first one offers the on-request rules ([`Answer::offer`]) |
//! | `Compaction` | nothing: what was given is gone, and due at the next event that reaches the model |
//! | `Stop` | the `remind: every-turn` rules active, and the memory reminder while a skill that uses memory is active (unless `repeated`) |
//!
//! Before that, for a prompt, a tool or a model call: the skills the event
//! activates become active in the conversation (the agent's skill tool, a
//! read of a `<dir>/skills/<name>/SKILL.md`, a prompt `/name` naming a skill
//! found in a skills folder), their `SKILL.md` read once then for whether it
//! uses the memory tools; and the files touched are read, up to
//! [`MAX_CONTENT_FILES`] of [`MAX_CONTENT_BYTES`] each, where a rule with a
//! `regex` wants their content.

use crate::delivery::delivery_log::{DeliveryLog, Sender};
use crate::rules::rule_set::enforcement::{self, Verdict};
use crate::delivery::conversation::Conversation;
use crate::delivery::event::{Event, EventKind};
use crate::base::limits::{
    DEFAULT_EDIT_DISTANCE, DEFAULT_MEMORY_LINES, MAX_CONTENT_BYTES, MAX_CONTENT_FILES,
};
use crate::memory::recall::RecallBudget;
use crate::memory::{MemoryIndex, MemoryLocations, MemoryStore};
use crate::rules::rule::Enforce;
use crate::rules::rule_set::RuleSet;
use crate::delivery::session::{rule_version, Budget, Call, Due, RecallAt, Session, Start};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// One rule an answer gives, in the version given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Given {
    /// Its index in the rule set the answer was made with.
    pub index: usize,
    pub id: String,
    /// [`rule_version`]: a hash of its id and text.
    pub version: String,
}

/// One rule given as a reminder message of its own (an SDK in reminder mode).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reminder {
    pub rule: Given,
    /// The whole `<system-reminder rule="id">` block.
    pub text: String,
}

/// What the core answers to an event. Nothing counts as delivered until the
/// road sends it and calls [`Responder::commit`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    pub conversation: Conversation,
    pub kind: EventKind,
    /// Who asked ([`Event::agent`]).
    pub agent: String,
    /// What to give the model ('' when nothing): context for a start, a
    /// prompt, a tool, a model call or a request; at a stop, the reason to
    /// go on.
    pub text: String,
    /// The rules the text holds, in the order rendered.
    pub rules: Vec<Given>,
    /// Ids left out to fit the budget.
    pub omitted: Vec<String>,
    /// Ids of the rules active but given before (a request): named, not
    /// repeated.
    pub given: Vec<String>,
    /// Rules given as reminder messages (a model call in reminder mode).
    pub reminders: Vec<Reminder>,
    /// The on-request rules offered for the `read_rule` tool ('' for none):
    /// already in the text of a model call; a request's road places it.
    pub offer: String,
    /// Ids of the rules [`Answer::offer`] lists.
    pub offered: Vec<String>,
    /// The files the event touched, relative to the workdir.
    pub touched: Vec<String>,
    /// The files the event named that are outside the workdir (no rule
    /// reads them).
    pub outside: Vec<String>,
    /// The skills the event activated.
    pub skills: Vec<String>,
    /// It answers a session start: committing it marks the session started.
    pub starts: bool,
    /// It gives again what a compaction took: committing it ends that.
    pub regives: bool,
    /// Ids of the memory entries the text holds ([`Memory::Recall`]):
    /// committing it records them as given in the conversation.
    pub memory: Vec<String>,
    /// Before a tool runs: why the rules that enforce refuse it (the text
    /// the model reads as the call's result); `None`: it may run.
    pub refusal: Option<String>,
    /// Before a tool runs, or after: the enforced rules the call triggered
    /// (blocks first). After it ran, only the warnings are in the text.
    pub verdict: crate::rules::rule_set::enforcement::Verdict,
    /// Path rules that came back at this write in short form (their full
    /// text was given long ago: [`crate::delivery::rules_at_edit`]).
    pub recalled: Vec<Given>,
}

impl Answer {
    fn to(event: &Event) -> Answer {
        Answer::empty(event.conversation.clone(), event.kind, &event.agent)
    }

    fn empty(conversation: Conversation, kind: EventKind, agent: &str) -> Answer {
        Answer {
            conversation,
            kind,
            agent: agent.to_string(),
            text: String::new(),
            rules: Vec::new(),
            omitted: Vec::new(),
            given: Vec::new(),
            reminders: Vec::new(),
            offer: String::new(),
            offered: Vec::new(),
            touched: Vec::new(),
            outside: Vec::new(),
            skills: Vec::new(),
            starts: false,
            regives: false,
            memory: Vec::new(),
            refusal: None,
            verdict: crate::rules::rule_set::enforcement::Verdict::default(),
            recalled: Vec::new(),
        }
    }

    /// Whether there is anything to send.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.reminders.is_empty()
    }
}

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

/// Answers the events of one rule set (see the module comment).
#[derive(Clone, Debug)]
pub struct Responder<'a> {
    set: &'a RuleSet,
    workdir: &'a Path,
    home: Option<PathBuf>,
    budget: Budget,
    memory: Memory,
    edit_distance: u64,
    log: LogPlace,
}

/// Where [`Responder::commit`] logs what was delivered.
#[derive(Clone, Debug)]
enum LogPlace {
    /// The delivery log of the home, when one is given ([`Responder::home`]).
    Home,
    At(DeliveryLog),
    Off,
}

impl<'a> Responder<'a> {
    /// The rules of `set`, for a project at `workdir`; the budget of an
    /// agent's rules section ([`Budget::agents`]), no home, no memory.
    pub fn new(set: &'a RuleSet, workdir: &'a Path) -> Responder<'a> {
        Responder {
            set,
            workdir,
            home: None,
            budget: Budget::agents(),
            memory: Memory::None,
            edit_distance: DEFAULT_EDIT_DISTANCE,
            log: LogPlace::Home,
        }
    }

    /// How many tool calls after a path rule was given a write to a file
    /// it governs brings it back in short form ([`crate::delivery::rules_at_edit`]; default
    /// [`DEFAULT_EDIT_DISTANCE`]; 0: never).
    pub fn edit_distance(mut self, calls: u64) -> Self {
        self.edit_distance = calls;
        self
    }

    /// Where [`Responder::commit`] appends what was delivered: `None`, not
    /// at all. By default the delivery log of the home given to
    /// [`Responder::home`] (none without one); `WAVE_RULES_LOG=off` turns
    /// any log off.
    pub fn log(mut self, log: Option<DeliveryLog>) -> Self {
        self.log = log.map_or(LogPlace::Off, LogPlace::At);
        self
    }

    /// The user's home: skills in its folders, and the user memory.
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

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

    pub fn memory(mut self, memory: Memory) -> Self {
        self.memory = memory;
        self
    }

    pub fn set(&self) -> &'a RuleSet {
        self.set
    }

    /// What is due for `event` in the conversation `session` (see the
    /// module comment). Records what the event says happened (files, skills,
    /// the prompt, a compaction); marks nothing delivered.
    pub fn respond(&self, session: &mut Session, event: &Event) -> Answer {
        let mut answer = Answer::to(event);
        let set = self.set;
        match event.kind {
            EventKind::Stop { repeated } => {
                if !repeated {
                    answer.text = session.stop().unwrap_or_default();
                }
                return answer;
            }
            EventKind::Compaction { certain } => {
                if certain {
                    session.compacted_unsent();
                } else if let Some(tokens) = event.prompt_tokens {
                    session.prompt_size(tokens);
                }
                return answer;
            }
            EventKind::ToolBefore => {
                // A subagent tool's task waits for the subagent's start.
                for call in &event.tools {
                    if let Some((task, kind)) = call.subagent_task() {
                        session.task_announced(&kind, &task);
                    }
                }
                answer.verdict = self.verdict(event);
                if answer.verdict.blocks() {
                    let max = self
                        .budget
                        .max_bytes
                        .unwrap_or(crate::base::limits::DEFAULT_RULES_BYTES);
                    answer.refusal = Some(enforcement::reason(set, &answer.verdict, max, &[]));
                }
                return answer;
            }
            EventKind::SubagentStop => return answer,
            _ => {}
        }
        if let Some(tokens) = event.prompt_tokens {
            session.prompt_size(tokens);
        }
        let touched = event.touched();
        if matches!(
            event.kind,
            EventKind::Prompt | EventKind::ToolDone | EventKind::ModelCall { .. }
        ) {
            answer.skills = self.activate_skills(session, event, &touched);
        }
        for f in &touched {
            match set.normalize(f) {
                Some(rel) => answer.touched.push(rel.into_owned()),
                None => answer.outside.push(f.clone()),
            }
        }
        let read = file_contents(self.workdir);
        let contents: Option<crate::rules::rule_set::Contents> = set.has_content_rules().then_some(&read);
        let budget = self.budget;
        let recall = match &self.memory {
            Memory::Recall(locations, limit) => Some((
                MemoryIndex::open(&MemoryStore::new(locations.clone())),
                *limit,
            )),
            _ => None,
        };
        let recall_at = |session: &Session, due: &mut Due, at: RecallAt<'_>| {
            if let Some((index, limit)) = &recall {
                session.recall(due, set, index, at, *limit);
            }
        };
        let due = match event.kind {
            EventKind::Start(how) => {
                // A resumed session that started before already holds the memory.
                let memory = (how != Start::Resume || !session.started)
                    .then(|| self.memory_text(event))
                    .flatten();
                let mut due = session.start(set, how, memory.as_deref(), budget);
                recall_at(session, &mut due, RecallAt::Start(how));
                due
            }
            EventKind::Prompt => {
                let prompt = event.prompt.as_deref().unwrap_or("");
                let mut due = session.prompt(set, prompt, budget);
                recall_at(session, &mut due, RecallAt::Prompt(prompt));
                due
            }
            EventKind::ToolDone => {
                session.at_edit.tool_call();
                let mut due = session.files_touched_in(set, &touched, contents, budget);
                recall_at(session, &mut due, RecallAt::Files(&touched));
                due
            }
            EventKind::SubagentStart => {
                // A conversation of its own: the always-on rules, and the
                // topic rules of its task (as a prompt's).
                let mut due = match event.prompt.as_deref() {
                    Some(task) => {
                        *session = Session::new();
                        session.prompt(set, task, budget)
                    }
                    None => session.start(set, Start::Startup, None, budget),
                };
                due.starts = true;
                due
            }
            EventKind::Request { again } => {
                let mut due = session.request_in(
                    set,
                    &touched,
                    event.prompt.as_deref(),
                    again,
                    contents,
                    budget,
                );
                if due.starts {
                    let mut active = due.rules.clone();
                    active.extend(&due.given);
                    active.sort_unstable();
                    self.offer(&mut answer, &active);
                }
                // The index of topics at the first request, then the entries
                // relevant to the prompt and tied to the files.
                if due.starts {
                    recall_at(session, &mut due, RecallAt::Start(Start::Startup));
                }
                if let Some(prompt) = event.prompt.as_deref() {
                    recall_at(session, &mut due, RecallAt::Prompt(prompt));
                }
                recall_at(session, &mut due, RecallAt::Files(&touched));
                due
            }
            EventKind::ModelCall { reminders, reset } => {
                // The section is written anew each call: the latest recall
                // (for a new prompt, new files) stays in it after the rules.
                // The index of topics comes once, at the first call, and stays.
                let mut recalled = Due::default();
                if recall.is_some() {
                    let mut start = Due::default();
                    if !session.started {
                        recall_at(session, &mut start, RecallAt::Start(Start::Startup));
                    }
                    if let Some(prompt) = event.prompt.as_deref() {
                        recall_at(session, &mut recalled, RecallAt::Prompt(prompt));
                    }
                    recall_at(session, &mut recalled, RecallAt::Files(&touched));
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
                let call = session.model_call(
                    set,
                    &touched,
                    event.prompt.as_deref(),
                    contents,
                    Call { reminders, reset },
                    memory.as_deref(),
                    budget,
                );
                let mut due = call.due;
                due.memory = recalled.memory;
                answer.reminders = call
                    .reminders
                    .into_iter()
                    .map(|i| Reminder {
                        rule: self.given(i),
                        text: crate::delivery::render::reminder(&set.rules()[i]),
                    })
                    .collect();
                self.offer(&mut answer, &call.active);
                due
            }
            EventKind::Stop { .. }
            | EventKind::Compaction { .. }
            | EventKind::ToolBefore
            | EventKind::SubagentStop => Due::default(),
        };
        self.fill(&mut answer, due);
        if event.kind == EventKind::ToolDone {
            self.after_tool(session, event, &mut answer);
        }
        if event_has_offer_in_text(event.kind) && !answer.offer.is_empty() {
            let offer = answer.offer.trim_end();
            answer.text = if answer.text.is_empty() {
                offer.to_string()
            } else {
                format!("{}\n\n{offer}", answer.text)
            };
        }
        answer
    }

    /// The answer reached the model: its rules, in the versions it gave,
    /// count as delivered in its conversation. The one place a delivery is
    /// recorded: [`Responder::commit_reminders`] and
    /// [`Responder::commit_ids`] come here too.
    pub fn commit(&self, session: &mut Session, answer: &Answer) {
        self.commit_unlogged(session, answer);
        self.log_answer(answer);
    }

    /// [`Responder::commit`] in two steps, for a road that holds a lock on
    /// the session while it commits: the session's part here, under the
    /// lock, and [`Responder::log_answer`] after it (counting a new rule
    /// version's tokens builds the tokenizer, which must not keep another
    /// hook of the same session waiting).
    pub fn commit_unlogged(&self, session: &mut Session, answer: &Answer) {
        let given = answer
            .rules
            .iter()
            .chain(answer.reminders.iter().map(|r| &r.rule));
        session.commit_given(given.map(|g| (g.id.as_str(), g.version.as_str())));
        session.commit_flags(answer.starts, answer.regives);
        session.commit_memory(&answer.memory);
        // In front of the model now: the distance to the edit counts from here.
        let shown: Vec<&str> = answer
            .rules
            .iter()
            .chain(&answer.recalled)
            .map(|g| g.id.as_str())
            .collect();
        session.at_edit.given_ids(self.set, &shown);
    }

    /// A subagent of `parent` starts ([`EventKind::SubagentStart`]): it is
    /// recorded live in its parent's session (the task its parent's subagent
    /// tool announced for it is taken, when the event has none), and its own
    /// conversation `child` gets what is due at its start. Returns the
    /// answer and the ids of the subagents forgotten past
    /// [`crate::base::limits::MAX_SUBAGENTS`] (the road drops their conversations).
    pub fn subagent_start(
        &self,
        parent: &mut Session,
        child: &mut Session,
        event: &Event,
    ) -> (Answer, Vec<String>) {
        let id = event.conversation.subagent.clone().unwrap_or_default();
        let (task, forgotten) = parent.subagent_started(&id, event.subagent_type.as_deref());
        let mut start = event.clone();
        start.kind = EventKind::SubagentStart;
        if start.prompt.is_none() {
            start.prompt = task;
        }
        (self.respond(child, &start), forgotten)
    }

    /// A subagent of `parent` stopped ([`EventKind::SubagentStop`]): it is
    /// no longer live (the road drops its conversation). Returns whether it
    /// was.
    pub fn subagent_stop(&self, parent: &mut Session, event: &Event) -> bool {
        event
            .conversation
            .subagent
            .as_deref()
            .is_some_and(|id| parent.subagent_stopped(id))
    }

    /// The enforced rules a tool call triggers: the files it would write
    /// (file tools the road knows write, the written side of a shell line,
    /// an `apply_patch`'s files) and the simple commands it would run.
    pub fn verdict(&self, event: &Event) -> Verdict {
        if !self.set.has_enforced_rules() {
            return Verdict::default();
        }
        let mut written = Vec::new();
        let mut commands = Vec::new();
        let mut unchecked = Vec::new();
        for call in &event.tools {
            let t = crate::delivery::touched::tool_files(call, event.cwd.as_deref());
            written.extend(t.written);
            commands.extend(t.commands);
            unchecked.extend(t.unread);
        }
        let mut verdict = enforcement::check(self.set, &written, &commands);
        verdict.unchecked = unchecked;
        verdict
    }

    /// After a tool ran: the warnings of the enforced rules it triggered
    /// (`enforce: warn`), and the path rules given long ago that govern a
    /// file it wrote (in short form), after the rules it made due.
    fn after_tool(&self, session: &mut Session, event: &Event, answer: &mut Answer) {
        let set = self.set;
        let max = self
            .budget
            .max_bytes
            .unwrap_or(crate::base::limits::DEFAULT_RULES_BYTES);
        let mut in_text: Vec<usize> = answer.rules.iter().map(|g| g.index).collect();
        let verdict = self.verdict(event);
        let warned = Verdict {
            hits: verdict
                .hits
                .iter()
                .filter(|h| h.enforce == Enforce::Warn)
                .cloned()
                .collect(),
            unchecked: Vec::new(),
        };
        let add = |answer: &mut Answer, text: String| {
            if text.is_empty() {
                return;
            }
            let room = max.saturating_sub(answer.text.len() + 2);
            if text.len() > room {
                return;
            }
            if !answer.text.is_empty() {
                answer.text.push_str(
                    "

",
                );
            }
            answer.text.push_str(&text);
        };
        if !warned.is_empty() {
            let room = max.saturating_sub(answer.text.len() + 2);
            add(answer, enforcement::reason(set, &warned, room, &in_text));
            for i in warned.rules() {
                if !in_text.contains(&i) {
                    answer.rules.push(self.given(i));
                    in_text.push(i);
                }
            }
        }
        answer.verdict = warned;
        let written: Vec<String> = event
            .tools
            .iter()
            .flat_map(|c| crate::delivery::touched::tool_files(c, event.cwd.as_deref()).written)
            .collect();
        let mut back = session.at_edit.due(set, &written, self.edit_distance);
        back.retain(|i| !in_text.contains(i));
        if !back.is_empty() {
            let files: Vec<&str> = written.iter().map(String::as_str).collect();
            let room = max.saturating_sub(answer.text.len() + 2);
            let text = crate::delivery::rules_at_edit::render(set, &back, &files, room);
            if !text.is_empty() {
                answer.recalled = back
                    .iter()
                    .filter(|&&i| text.contains(&format!("[{}] ", set.rules()[i].id)))
                    .map(|&i| self.given(i))
                    .collect();
                add(answer, text);
            }
        }
    }

    /// The delivery log's part of [`Responder::commit`]: appends what the
    /// answer gave.
    pub fn log_answer(&self, answer: &Answer) {
        let given = answer
            .rules
            .iter()
            .chain(answer.reminders.iter().map(|r| &r.rule));
        self.record(answer, given, None);
    }

    /// The model read one rule through the `read_rule` tool (an on-request
    /// rule it judged relevant): it counts as delivered in `conversation`,
    /// logged as a `read-rule` event. False when `id` is not a rule.
    pub fn commit_read(
        &self,
        session: &mut Session,
        conversation: &Conversation,
        agent: &str,
        id: &str,
    ) -> bool {
        let Some(i) = self.set.rules().iter().position(|r| r.id == id) else {
            return false;
        };
        let mut read = Answer::empty(
            conversation.clone(),
            EventKind::Request { again: true },
            agent,
        );
        read.rules.push(self.given(i));
        session.commit_given(
            read.rules
                .iter()
                .map(|g| (g.id.as_str(), g.version.as_str())),
        );
        self.record(&read, read.rules.iter(), Some("read-rule"));
        true
    }

    /// Appends the rules an answer gave to the delivery log: every road's
    /// deliveries are logged here, where they are committed. A log that
    /// cannot be written is skipped (a delivery never fails for it).
    fn record<'g>(
        &self,
        answer: &Answer,
        given: impl Iterator<Item = &'g Given>,
        event: Option<&str>,
    ) {
        let Some(log) = self.log_place() else {
            return;
        };
        let rules: Vec<&crate::rules::rule::Rule> = given
            .filter_map(|g| self.set.rules().get(g.index).filter(|r| r.id == g.id))
            .collect();
        if rules.is_empty() {
            return;
        }
        let event = match (event, answer.kind) {
            (Some(name), _) => name.to_string(),
            (None, EventKind::Start(how)) => format!("start:{}", how.as_str()),
            (None, kind) => kind.name().to_string(),
        };
        let project = self.workdir.to_string_lossy();
        let sender = Sender {
            agent: &answer.agent,
            session: &answer.conversation.session,
            subagent: answer.conversation.subagent.as_deref(),
            event: &event,
            project: &project,
        };
        let _ = log.record_rules(&rules, &sender);
    }

    /// Where deliveries are logged: none when the log is off or no home
    /// was given.
    fn log_place(&self) -> Option<std::borrow::Cow<'_, DeliveryLog>> {
        match &self.log {
            LogPlace::Off => None,
            LogPlace::At(log) => Some(std::borrow::Cow::Borrowed(log)),
            LogPlace::Home => self
                .home
                .as_ref()
                .map(|home| std::borrow::Cow::Owned(DeliveryLog::for_home(home))),
        }
    }

    /// A stop's answer (`answer`, from [`Responder::respond`] on `session`)
    /// reached the model: the `remind: every-turn` rules it named are
    /// logged as a `stop` delivery, each with the tokens of its line. The
    /// rule set is not needed (a stop reads none): the session keeps each
    /// line and version.
    pub fn commit_stop(&self, session: &Session, answer: &Answer) {
        if answer.text.is_empty() || !matches!(answer.kind, EventKind::Stop { .. }) {
            return;
        }
        let Some(log) = self.log_place() else {
            return;
        };
        let lines: Vec<(&str, &str, &str)> = session
            .sticky()
            .iter()
            .filter(|s| !s.version.is_empty())
            .map(|s| (s.id.as_str(), s.version.as_str(), s.line.as_str()))
            .collect();
        let project = self.workdir.to_string_lossy();
        let sender = Sender {
            agent: &answer.agent,
            session: &answer.conversation.session,
            subagent: answer.conversation.subagent.as_deref(),
            event: EventKind::Stop { repeated: false }.name(),
            project: &project,
        };
        let _ = log.record_lines(&lines, &sender);
    }

    /// Some of an answer's reminders reached the model (the road sent these
    /// ids): [`Responder::commit`] of those alone.
    pub fn commit_reminders<S: AsRef<str>>(
        &self,
        session: &mut Session,
        answer: &Answer,
        ids: &[S],
    ) {
        let mut sent = Answer::empty(answer.conversation.clone(), answer.kind, &answer.agent);
        sent.reminders = answer
            .reminders
            .iter()
            .filter(|r| ids.iter().any(|id| id.as_ref() == r.rule.id))
            .cloned()
            .collect();
        self.commit(session, &sent);
    }

    /// These rules (by id, in their current versions) reached the model in
    /// `conversation`, as reminders the road rendered itself (`RuleSession`'s
    /// `markDelivered`): [`Responder::commit`] of an answer holding them.
    pub fn commit_ids<S: AsRef<str>>(
        &self,
        session: &mut Session,
        conversation: &Conversation,
        agent: &str,
        ids: &[S],
    ) {
        let kind = EventKind::ModelCall {
            reminders: true,
            reset: false,
        };
        let mut sent = Answer::empty(conversation.clone(), kind, agent);
        sent.reminders = ids
            .iter()
            .filter_map(|id| self.set.rules().iter().position(|r| r.id == id.as_ref()))
            .map(|i| Reminder {
                rule: self.given(i),
                text: crate::delivery::render::reminder(&self.set.rules()[i]),
            })
            .collect();
        self.commit(session, &sent);
    }

    /// A conversation this process has not seen (a restarted plugin, a
    /// continued session): its transcript since the last compaction says
    /// which rules it holds (their reminders or rendered entries), the tool
    /// calls of `seen` what it touched. Nothing is due.
    pub fn restore(&self, session: &mut Session, seen: &Event, transcript: &str) {
        let _seen_not_delivered = self.respond(session, seen);
        session.restore(self.set, transcript);
    }

    fn given(&self, index: usize) -> Given {
        let rule = &self.set.rules()[index];
        Given {
            index,
            id: rule.id.clone(),
            version: rule_version(rule),
        }
    }

    fn fill(&self, answer: &mut Answer, due: Due) {
        let rules = self.set.rules();
        answer.text = due.text;
        answer.rules = due.rules.iter().map(|&i| self.given(i)).collect();
        answer.omitted = due.omitted;
        answer.given = due.given.iter().map(|&i| rules[i].id.clone()).collect();
        answer.starts = due.starts;
        answer.regives = due.regives;
        answer.memory = due.memory;
    }

    /// The on-request rules not in `active` (ascending), offered for the
    /// `read_rule` tool.
    fn offer(&self, answer: &mut Answer, active: &[usize]) {
        let rules = self.set.rules();
        let offered = self.set.available(active);
        answer.offer = crate::delivery::read_rule_tool::offer(offered.iter().map(|&i| &rules[i]));
        answer.offered = offered.iter().map(|&i| rules[i].id.clone()).collect();
    }

    fn memory_text(&self, event: &Event) -> Option<String> {
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

    /// The skills the event activates, recorded in the session (each
    /// `SKILL.md` read once, when its skill becomes active, for whether it
    /// uses the memory tools).
    fn activate_skills(
        &self,
        session: &mut Session,
        event: &Event,
        touched: &[String],
    ) -> Vec<String> {
        let mut found: Vec<(String, Option<PathBuf>)> = Vec::new();
        let mut add = |name: String, file: Option<PathBuf>| {
            if !found.iter().any(|(n, _)| *n == name) {
                found.push((name, file));
            }
        };
        for call in &event.tools {
            if let Some(name) = call.skill() {
                add(name, None);
            }
        }
        for f in touched {
            if let Some(name) = crate::delivery::skills::from_path(f) {
                let path = Path::new(f);
                let path = if path.is_absolute() {
                    path.to_path_buf()
                } else {
                    event.cwd.as_deref().unwrap_or(self.workdir).join(path)
                };
                add(name, Some(path));
            }
        }
        if event.kind != EventKind::ToolDone {
            // `/name args`: only a skill found in a skills folder.
            let word = event
                .prompt
                .as_deref()
                .and_then(|p| p.split_whitespace().next())
                .unwrap_or("");
            if let Some(rest) = word.strip_prefix('/').filter(|r| !r.is_empty()) {
                if let Ok(name) = crate::rules::skill_name::name(rest) {
                    if let Some(file) =
                        crate::delivery::skills::find(self.workdir, self.home.as_deref(), &name)
                    {
                        add(name, Some(file));
                    }
                }
            }
        }
        let mut activated = Vec::new();
        for (name, file) in found {
            let memory = !session.is_skill_active(&name)
                && file
                    .or_else(|| crate::delivery::skills::find(self.workdir, self.home.as_deref(), &name))
                    .is_some_and(|f| crate::delivery::skills::file_uses_memory(&f));
            session.note_skill(&name, memory);
            activated.push(name);
        }
        activated
    }
}

/// Reads the files an event touched for the rules with a `regex`, as every
/// road does (the CLI's `match` too): relative ones from `workdir`, a
/// regular file opened without blocking, at most [`MAX_CONTENT_BYTES`] of
/// it, at most [`MAX_CONTENT_FILES`] files for one reader.
pub fn file_contents(workdir: &Path) -> impl Fn(&str) -> Option<String> + '_ {
    let left = Cell::new(MAX_CONTENT_FILES);
    move |file: &str| {
        if left.get() == 0 {
            return None;
        }
        left.set(left.get() - 1);
        let path = Path::new(file);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            workdir.join(path)
        };
        crate::base::fs::read_prefix(&path, MAX_CONTENT_BYTES, crate::base::fs::Links::Follow).ok()
    }
}

/// A model call's text holds the offer of on-request rules (the system
/// prompt is the road's whole section); a request's road places it.
fn event_has_offer_in_text(kind: EventKind) -> bool {
    matches!(kind, EventKind::ModelCall { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::tool_call::{ToolCall, ToolKind};
    use crate::{load, Config};
    use serde_json::json;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let file = dir.path().join(rel);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        dir
    }

    fn tool(name: &str, kind: ToolKind, input: serde_json::Value) -> Event {
        Event::new(Conversation::new("s"), EventKind::ToolDone)
            .tool(ToolCall::new(name, kind, input))
    }

    fn before(name: &str, kind: ToolKind, input: serde_json::Value) -> Event {
        Event::new(Conversation::new("s"), EventKind::ToolBefore)
            .tool(ToolCall::new(name, kind, input))
    }

    #[test]
    fn before_a_tool_runs_an_enforced_rule_refuses_its_writes_and_commands() {
        let dir = tree(&[
            (
                ".wave/rules/gen.md",
                "---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt.",
            ),
            (
                ".wave/rules/push.md",
                "---\ncommands: [\"git push --force*\"]\nenforce: warn\n---\nAsk first.",
            ),
        ]);
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
        let r = Responder::new(&loaded.rules, dir.path());
        let mut s = Session::new();
        for event in [
            before("Write", ToolKind::Write, json!({"file_path": "gen/a.ts"})),
            before(
                "bash",
                ToolKind::Other,
                json!({"command": "cd gen && echo x > a.ts"}),
            )
            .cwd(dir.path()),
            before(
                "apply_patch",
                ToolKind::Write,
                json!({"command": "*** Begin Patch\n*** Add File: gen/b.ts\n+x\n*** End Patch"}),
            ),
        ] {
            let a = r.respond(&mut s, &event);
            let refusal = a.refusal.unwrap_or_else(|| panic!("{event:?}"));
            assert!(
                refusal.starts_with("Refused by the project's rules: writing gen/"),
                "{refusal}"
            );
            assert!(
                refusal.ends_with("[gen.md] Generated files are rebuilt."),
                "{refusal}"
            );
            assert!(a.text.is_empty(), "nothing is given before a tool runs");
        }
        // A read, a warned command, a write elsewhere: they run, nothing said before.
        for event in [
            before("Read", ToolKind::Read, json!({"file_path": "gen/a.ts"})),
            before(
                "Bash",
                ToolKind::Shell,
                json!({"command": "git push --force"}),
            ),
            before("Write", ToolKind::Write, json!({"file_path": "src/a.ts"})),
        ] {
            let a = r.respond(&mut s, &event);
            assert_eq!(a.refusal, None, "{event:?}");
        }
        // The warning comes with the call's result, every time.
        let done = |cmd: &str| tool("Bash", ToolKind::Shell, json!({"command": cmd}));
        for _ in 0..2 {
            let a = r.respond(&mut s, &done("git push --force origin"));
            assert_eq!(a.text, "Allowed, with a warning from the project's rules about running `git push --force origin`:\n[push.md] (matches `git push --force*`) Ask first.");
            r.commit(&mut s, &a);
        }
        // A warned write: its path rule once in full, the warning short beside it.
        let dir2 = tree(&[(
            ".wave/rules/gen.md",
            "---\npaths: gen/**\nenforce: warn\n---\nGenerated.\nRebuild with npm run gen.",
        )]);
        let loaded2 = load(&Config::with_home(dir2.path(), dir2.path().join("home")));
        let r2 = Responder::new(&loaded2.rules, dir2.path());
        let mut s2 = Session::new();
        let a = r2.respond(
            &mut s2,
            &tool("Write", ToolKind::Write, json!({"file_path": "gen/a.ts"})),
        );
        assert_eq!(a.text, "## Rules\n[gen.md] Generated.\nRebuild with npm run gen.\n\nAllowed, with a warning from the project's rules about writing gen/a.ts:\n[gen.md] Generated.");
    }

    #[test]
    fn a_subagent_starts_with_the_always_on_rules_and_its_tasks_topic_rules_and_nothing_of_its_parent(
    ) {
        let dir = tree(&[
            (".wave/rules/general.md", "Keep functions small."),
            (
                ".wave/rules/db.md",
                "---\ntopics: [customer]\n---\nThe customer table is read-only.",
            ),
            (
                ".wave/rules/api.md",
                "---\npaths: src/api/**\n---\nValidate input.",
            ),
        ]);
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
        let r = Responder::new(&loaded.rules, dir.path());
        let mut parent = Session::new();
        let start = r.respond(
            &mut parent,
            &Event::new(Conversation::new("s"), EventKind::Start(Start::Startup)),
        );
        r.commit(&mut parent, &start);
        let read = r.respond(
            &mut parent,
            &tool("Read", ToolKind::Read, json!({"file_path": "src/api/a.ts"})),
        );
        assert!(read.text.contains("[api.md]"));
        r.commit(&mut parent, &read);
        // Claude Code: the Agent tool announces the task, the start has none.
        let agent = before(
            "Agent",
            ToolKind::Subagent,
            json!({"prompt": "check the customer orders", "subagent_type": "general-purpose"}),
        );
        assert_eq!(r.respond(&mut parent, &agent).refusal, None);
        let sub = Conversation::subagent("s", "a1");
        let mut child = Session::new();
        let (answer, forgotten) = r.subagent_start(
            &mut parent,
            &mut child,
            &Event::new(sub.clone(), EventKind::SubagentStart).subagent_type("general-purpose"),
        );
        assert!(forgotten.is_empty());
        assert_eq!(answer.text, "=== MANDATORY RULES ===\n[db.md] The customer table is read-only.\n===========================\n\n## Rules\n[general.md] Keep functions small.");
        assert!(answer.starts);
        r.commit(&mut child, &answer);
        assert_eq!(parent.subagents().len(), 1);
        // Its own touches bring the path rules its parent had.
        let read = r.respond(
            &mut child,
            &tool("Read", ToolKind::Read, json!({"file_path": "src/api/a.ts"})),
        );
        assert_eq!(read.text, "## Rules\n[api.md] Validate input.");
        r.commit(&mut child, &read);
        assert!(r.subagent_stop(&mut parent, &Event::new(sub, EventKind::SubagentStop)));
        assert!(parent.subagents().is_empty());
        assert!(
            !parent.delivered_ids().contains(&"db.md".to_string()),
            "nothing the subagent got counts for its parent"
        );
        // Without a task: the always-on rules only.
        let mut other = Session::new();
        let (answer, _) = r.subagent_start(
            &mut parent,
            &mut other,
            &Event::new(Conversation::subagent("s", "a2"), EventKind::SubagentStart),
        );
        assert_eq!(answer.text, "## Rules\n[general.md] Keep functions small.");
    }

    #[test]
    fn live_subagents_are_bounded_the_oldest_forgotten() {
        let mut parent = Session::new();
        let mut forgotten = Vec::new();
        for i in 0..crate::base::limits::MAX_SUBAGENTS + 2 {
            forgotten.extend(parent.subagent_started(&format!("a{i}"), None).1);
        }
        assert_eq!(forgotten, ["a0", "a1"]);
        assert_eq!(parent.subagents().len(), crate::base::limits::MAX_SUBAGENTS);
        assert!(!parent.subagent_stopped("a0"));
        assert!(parent.subagent_stopped("a2"));
    }

    #[test]
    fn a_path_rule_given_long_ago_comes_back_once_at_a_write_it_governs() {
        let dir = tree(&[(
            ".wave/rules/api.md",
            "---\npaths: src/api/**\nsummary: Validate with zod.\n---\nValidate input.\nWith zod.",
        )]);
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
        let r = Responder::new(&loaded.rules, dir.path()).edit_distance(3);
        let mut s = Session::new();
        let step = |s: &mut Session, event: Event| {
            let a = r.respond(s, &event);
            r.commit(s, &a);
            a
        };
        let read = |f: &str| tool("Read", ToolKind::Read, json!({"file_path": f}));
        let write = |f: &str| tool("Write", ToolKind::Write, json!({"file_path": f}));
        assert!(step(&mut s, read("src/api/a.ts"))
            .text
            .contains("With zod."));
        for f in ["b.ts", "c.ts", "d.ts"] {
            assert!(step(&mut s, read(f)).text.is_empty());
        }
        let back = step(&mut s, write("src/api/a.ts"));
        assert_eq!(
            back.text,
            "Still in force for src/api/a.ts:\n[api.md] Validate with zod."
        );
        assert_eq!(back.recalled.len(), 1);
        assert!(
            step(&mut s, write("src/api/b.ts")).text.is_empty(),
            "not at the next write"
        );
        // After a compaction it is given in full again, not recalled.
        s.compacted_unsent();
        assert!(step(&mut s, write("src/api/c.ts"))
            .text
            .starts_with("## Rules\n[api.md] Validate input."));
        let r0 = Responder::new(&loaded.rules, dir.path()).edit_distance(0);
        let mut s0 = Session::new();
        let a = r0.respond(&mut s0, &read("src/api/a.ts"));
        r0.commit(&mut s0, &a);
        for _ in 0..30 {
            let a = r0.respond(&mut s0, &read("x.ts"));
            r0.commit(&mut s0, &a);
        }
        assert!(
            r0.respond(&mut s0, &write("src/api/a.ts")).text.is_empty(),
            "0 turns it off"
        );
    }

    #[test]
    fn a_regex_rule_fires_on_the_content_of_a_file_a_tool_touched() {
        let dir = tree(&[
            (
                ".continue/rules/todo.md",
                "---\nregex: TODO\n---\nResolve the TODOs you touch.",
            ),
            ("src/a.ts", "// TODO: split\n"),
            ("src/b.ts", "clean\n"),
        ]);
        let formats = crate::rules::rule_format::formats_named(&["continue".to_string()]).unwrap();
        let loaded = load(&Config::named(
            dir.path(),
            dir.path().join("home"),
            &formats,
        ));
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let r = Responder::new(&loaded.rules, dir.path());
        let mut s = Session::new();
        let clean = r.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"file_path": "src/b.ts"})),
        );
        assert!(clean.text.is_empty(), "{clean:?}");
        let todo = r.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"file_path": "src/a.ts"})),
        );
        assert_eq!(todo.rules.len(), 1, "{todo:?}");
        assert!(todo.text.contains("Resolve the TODOs"), "{}", todo.text);
        r.commit(&mut s, &todo);
        // After a compaction the rule is active in the session without a read.
        s.compacted_unsent();
        let again = r.respond(
            &mut s,
            &Event::new(Conversation::new("s"), EventKind::Prompt).prompt("go on"),
        );
        assert!(again.text.contains("Resolve the TODOs"), "{}", again.text);
    }

    #[test]
    fn a_skill_md_read_through_any_shell_activates_its_skill_and_its_memory_use() {
        let dir = tree(&[
            (
                ".wave/rules/db.md",
                "---\nskills: [db-work]\n---\nUse the replica.",
            ),
            (".agents/skills/db-work/SKILL.md", "Call memory_read first."),
        ]);
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
        let r = Responder::new(&loaded.rules, dir.path());
        let mut s = Session::new();
        let event = tool(
            "exec",
            ToolKind::Other,
            json!({"command": "cat .agents/skills/db-work/SKILL.md"}),
        )
        .cwd(dir.path());
        let answer = r.respond(&mut s, &event);
        assert_eq!(answer.skills, ["db-work"]);
        assert_eq!(answer.text, "## Rules\n[db.md] Use the replica.");
        assert!(s.stop().unwrap().contains("'db-work'"));
        let stop = r.respond(
            &mut s,
            &Event::new(Conversation::new("s"), EventKind::Stop { repeated: true }),
        );
        assert!(stop.text.is_empty());
    }

    #[test]
    fn commit_records_the_version_given_not_a_later_one() {
        let dir = tree(&[(".wave/rules/ts.md", "---\npaths: '**/*.ts'\n---\nOne.")]);
        let config = Config::with_home(dir.path(), dir.path().join("home"));
        let one = load(&config).rules;
        let r = Responder::new(&one, dir.path());
        let mut s = Session::new();
        let answer = r.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"path": "a.ts"})),
        );
        std::fs::write(
            dir.path().join(".wave/rules/ts.md"),
            "---\npaths: '**/*.ts'\n---\nTwo.",
        )
        .unwrap();
        let two = load(&config).rules;
        let r2 = Responder::new(&two, dir.path());
        r2.commit(&mut s, &answer);
        let later = r2.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"path": "b.ts"})),
        );
        assert_eq!(later.text, "## Rules\n[ts.md] Two.");
    }

    #[test]
    fn a_model_call_matches_new_files_only_and_gives_reminders_once() {
        let dir = tree(&[
            (".wave/rules/always.md", "Be kind."),
            (".wave/rules/ts.md", "---\npaths: src/**/*.ts\n---\nStrict."),
            (
                ".wave/rules/sql.md",
                "---\ntopics: [sql]\n---\nNo SELECT *.",
            ),
        ]);
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
        let r = Responder::new(&loaded.rules, dir.path());
        let call = |reminders| EventKind::ModelCall {
            reminders,
            reset: false,
        };
        let mut s = Session::new();
        let first = Event::new(Conversation::new("s"), call(false))
            .tool(ToolCall::new(
                "read_file",
                ToolKind::Other,
                json!({"path": "src/a.ts"}),
            ))
            .prompt("the sql");
        let a = r.respond(&mut s, &first);
        assert_eq!(a.text, "=== MANDATORY RULES ===\n[sql.md] No SELECT *.\n===========================\n\n## Rules\n[always.md] Be kind.\n[ts.md] Strict.");
        // Nothing new: the same text, the files remembered.
        let b = r.respond(&mut s, &Event::new(Conversation::new("s"), call(false)));
        assert_eq!(a.text, b.text);

        let mut s = Session::new();
        let first = Event::new(Conversation::new("s"), call(true))
            .tool(ToolCall::new(
                "bash",
                ToolKind::Other,
                json!({"command": "cat src/a.ts"}),
            ))
            .prompt("hello");
        let a = r.respond(&mut s, &first);
        assert_eq!(a.text, "## Rules\n[always.md] Be kind.");
        assert_eq!(
            a.reminders
                .iter()
                .map(|r| r.rule.id.as_str())
                .collect::<Vec<_>>(),
            ["ts.md"]
        );
        r.commit(&mut s, &a);
        let b = r.respond(&mut s, &Event::new(Conversation::new("s"), call(true)));
        assert!(b.reminders.is_empty());
        let reset = Event::new(
            Conversation::new("s"),
            EventKind::ModelCall {
                reminders: true,
                reset: true,
            },
        );
        assert!(
            r.respond(&mut s, &reset).reminders.is_empty(),
            "the files are gone with the reset"
        );
    }
}
