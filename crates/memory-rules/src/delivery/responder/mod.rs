//! What an agent event means, decided once for every road: [`Responder`]
//! answers an [`Event`] for a conversation's [`Session`] with an [`Answer`],
//! and records what the road delivered ([`Responder::commit`]).
//!
//! ```
//! use memory_rules::delivery::{Conversation, Event, EventKind, Responder, Session, ToolCall, ToolKind};
//! use memory_rules::{load, sources::Config};
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
//!
//! Where each part lives: `answer.rs` (what an answer holds), `commit.rs`
//! (what reached the model, recorded in the session and the delivery log),
//! `around_tool.rs` (before and after a tool runs), `subagent.rs` (a
//! subagent's start and stop), `memory_at_event.rs` (the [`Memory`] modes
//! and recall at an event) and `skill_activation.rs` (the skills an event
//! activates); here the builder and [`Responder::respond`], step by step.

mod answer;
mod around_tool;
mod commit;
mod memory_at_event;
mod skill_activation;
mod subagent;

pub use answer::{Answer, Given, Reminder};
pub use memory_at_event::Memory;

use crate::base::limits::{DEFAULT_EDIT_DISTANCE, MAX_CONTENT_BYTES, MAX_CONTENT_FILES};
use crate::delivery::delivery_log::DeliveryLog;
use crate::delivery::event::{Event, EventKind};
use crate::delivery::session::{rule_version, Budget, Call, Due, RecallAt, Session, Start};
use crate::delivery::touched::Touched;
use crate::memory::agent_memory::{AgentPlaces, MemorySources};
use crate::rules::rule_set::{Contents, RuleSet};
use commit::LogPlace;
use memory_at_event::MemoryAtEvent;
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// Answers the events of one rule set (see the module comment).
#[derive(Clone, Debug)]
pub struct Responder<'a> {
    set: &'a RuleSet,
    workdir: &'a Path,
    home: Option<PathBuf>,
    budget: Budget,
    memory: Memory,
    /// Whose memory the recall reads; `None`: ours only.
    recall_from: Option<(MemorySources, AgentPlaces)>,
    edit_distance: u64,
    log: LogPlace,
    /// Where deliveries, refusals and recalls are recorded as telemetry
    /// (off unless its settings switch it on).
    telemetry: Option<&'a crate::delivery::telemetry::Telemetry>,
}

/// What answering one event reads besides the session: the event, the
/// files it touched, their contents where a rule with a `regex` wants them,
/// and the memory recalled at it.
struct AtEvent<'e> {
    event: &'e Event,
    touched: &'e [String],
    contents: Option<Contents<'e>>,
    memory: MemoryAtEvent<'e>,
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
            recall_from: None,
            edit_distance: DEFAULT_EDIT_DISTANCE,
            log: LogPlace::Home,
            telemetry: None,
        }
    }

    /// Records what is committed (and [`Responder::record_verdict`]) as
    /// telemetry too, when `telemetry`'s settings switch it on.
    pub fn telemetry(mut self, telemetry: &'a crate::delivery::telemetry::Telemetry) -> Self {
        self.telemetry = Some(telemetry);
        self
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

    pub fn set(&self) -> &'a RuleSet {
        self.set
    }

    /// What is due for `event` in the conversation `session` (see the
    /// module comment). Records what the event says happened (files, skills,
    /// the prompt, a compaction); marks nothing delivered.
    pub fn respond(&self, session: &mut Session, event: &Event) -> Answer {
        let mut answer = Answer::to(event);
        // What each tool call touched, once for the whole event.
        let calls = event.tool_touched();
        if self.answered_without_rules(session, event, &calls, &mut answer) {
            return answer;
        }
        if let Some(tokens) = event.prompt_tokens {
            session.prompt_size(tokens);
        }
        let touched = event.touched_by(&calls);
        self.note_touched(session, event, &touched, &mut answer);
        let due = self.due(session, event, &touched, &mut answer);
        self.fill(&mut answer, due);
        if event.kind == EventKind::ToolDone {
            self.after_tool(session, &calls, &mut answer);
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

    /// The events answered without rules due: a stop (the `remind:
    /// every-turn` rules and the memory reminder, unless repeated), a
    /// compaction (nothing: what was given is due at the next event that
    /// reaches the model), before a tool (the enforced rules' verdict) and a
    /// subagent's stop. Returns whether `event` is one; its answer is then
    /// complete. `calls`: what each of its tool calls touched.
    fn answered_without_rules(
        &self,
        session: &mut Session,
        event: &Event,
        calls: &[Touched],
        answer: &mut Answer,
    ) -> bool {
        match event.kind {
            EventKind::Stop { repeated } => {
                if !repeated {
                    answer.text = session.stop().unwrap_or_default();
                }
            }
            EventKind::Compaction { certain } => {
                if certain {
                    session.compacted_unsent();
                } else if let Some(tokens) = event.prompt_tokens {
                    session.prompt_size(tokens);
                }
            }
            EventKind::ToolBefore => self.before_tool(session, event, calls, answer),
            EventKind::SubagentStop => {}
            _ => return false,
        }
        true
    }

    /// What the event touched, recorded: the skills a prompt, a tool or a
    /// model call activates, and its files, inside the workdir or outside.
    fn note_touched(
        &self,
        session: &mut Session,
        event: &Event,
        touched: &[String],
        answer: &mut Answer,
    ) {
        if matches!(
            event.kind,
            EventKind::Prompt | EventKind::ToolDone | EventKind::ModelCall { .. }
        ) {
            answer.skills = self.activate_skills(session, event, touched);
        }
        for f in touched {
            match self.set.normalize(f) {
                Some(rel) => answer.touched.push(rel.into_owned()),
                None => answer.outside.push(f.clone()),
            }
        }
    }

    /// The rules and the memory due for the event, by its kind (see the
    /// module comment's table).
    fn due(
        &self,
        session: &mut Session,
        event: &Event,
        touched: &[String],
        answer: &mut Answer,
    ) -> Due {
        let set = self.set;
        let budget = self.budget;
        let read = file_contents(self.workdir);
        let at = AtEvent {
            event,
            touched,
            contents: set.has_content_rules().then_some(&read),
            memory: MemoryAtEvent::open(set, &self.memory, self.recall_from.as_ref()),
        };
        match event.kind {
            EventKind::Start(how) => {
                // A resumed session that started before already holds the memory.
                let memory = (how != Start::Resume || !session.started)
                    .then(|| self.memory_text(event))
                    .flatten();
                let mut due = session.start(set, how, memory.as_deref(), budget);
                at.memory.add(session, &mut due, RecallAt::Start(how));
                due
            }
            EventKind::Prompt => {
                let prompt = event.prompt.as_deref().unwrap_or("");
                let mut due = session.prompt(set, prompt, budget);
                at.memory.add(session, &mut due, RecallAt::Prompt(prompt));
                due
            }
            EventKind::ToolDone => {
                session.at_edit.tool_call();
                let mut due = session.files_touched_in(set, touched, at.contents, budget);
                at.memory.add(session, &mut due, RecallAt::Files(touched));
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
            EventKind::Request { again } => self.due_at_request(session, &at, again, answer),
            EventKind::ModelCall { reminders, reset } => {
                self.due_at_model_call(session, &at, Call { reminders, reset }, answer)
            }
            EventKind::Stop { .. }
            | EventKind::Compaction { .. }
            | EventKind::ToolBefore
            | EventKind::SubagentStop => Due::default(),
        }
    }

    /// A request: every rule active for its files and prompt (the first
    /// request offers the on-request rules), then the memory: the index of
    /// topics at the first request, then the entries relevant to the prompt
    /// and tied to the files.
    fn due_at_request(
        &self,
        session: &mut Session,
        at: &AtEvent<'_>,
        again: bool,
        answer: &mut Answer,
    ) -> Due {
        let prompt = at.event.prompt.as_deref();
        let mut due = session.request_in(
            self.set,
            at.touched,
            prompt,
            again,
            at.contents,
            self.budget,
        );
        if due.starts {
            let mut active = due.rules.clone();
            active.extend(&due.given);
            active.sort_unstable();
            self.offer(answer, &active);
        }
        if due.starts {
            at.memory
                .add(session, &mut due, RecallAt::Start(Start::Startup));
        }
        if let Some(prompt) = prompt {
            at.memory.add(session, &mut due, RecallAt::Prompt(prompt));
        }
        at.memory
            .add(session, &mut due, RecallAt::Files(at.touched));
        due
    }

    /// A model call: every rule active in the conversation (in reminder
    /// mode the always-on ones, and a reminder for each other not given),
    /// then the memory; the rules offered on request are named in the
    /// answer.
    fn due_at_model_call(
        &self,
        session: &mut Session,
        at: &AtEvent<'_>,
        call: Call,
        answer: &mut Answer,
    ) -> Due {
        let set = self.set;
        let (memory, recalled) = at.memory.at_model_call(session, at.event, at.touched);
        let call_due = session.model_call(
            set,
            at.touched,
            at.event.prompt.as_deref(),
            at.contents,
            call,
            memory.as_deref(),
            self.budget,
        );
        let mut due = call_due.due;
        due.memory = recalled;
        answer.reminders = call_due
            .reminders
            .into_iter()
            .map(|i| Reminder {
                rule: self.given(i),
                text: crate::delivery::render::reminder(&set.rules()[i]),
            })
            .collect();
        self.offer(answer, &call_due.active);
        due
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
mod tests;
