//! What the core answers to an event: [`Answer`], the rules it gives
//! ([`Given`]) and the reminders of its own ([`Reminder`]).

use crate::delivery::conversation::Conversation;
use crate::delivery::event::{Event, EventKind};

/// One rule an answer gives, in the version given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Given {
    /// Its index in the rule set the answer was made with.
    pub index: usize,
    pub id: String,
    /// [`crate::delivery::session::rule_version`]: a hash of its id and text.
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
/// road sends it and calls [`super::Responder::commit`].
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
    /// Ids of the memory entries the text holds ([`super::Memory::Recall`]):
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
    pub(super) fn to(event: &Event) -> Answer {
        Answer::empty(event.conversation.clone(), event.kind, &event.agent)
    }

    pub(super) fn empty(conversation: Conversation, kind: EventKind, agent: &str) -> Answer {
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
