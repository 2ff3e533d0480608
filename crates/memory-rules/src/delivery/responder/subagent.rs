//! A subagent's start and stop: live in its parent's session, a
//! conversation of its own.

use super::{Answer, Responder};
use crate::delivery::event::{Event, EventKind};
use crate::delivery::session::Session;

impl Responder<'_> {
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
}
