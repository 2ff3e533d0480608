//! A conversation: a session of the agent and, inside it, each subagent,
//! a conversation of its own that was given nothing its parent was given
//! ([`Conversation::subagent`]); [`Conversation::key`] names it in state
//! files and the delivery log.

use serde::{Deserialize, Serialize};

/// Which conversation an event belongs to: a session of the agent and, when
/// the event comes from a subagent running in it, that subagent. A subagent
/// is a conversation of its own: it was given nothing its parent was given.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Conversation {
    /// The agent's session id.
    pub session: String,
    /// The subagent's id inside the session (Claude Code's `agent_id`);
    /// `None` for the session's main conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
}

impl Conversation {
    /// The main conversation of a session.
    pub fn new(session: impl Into<String>) -> Conversation {
        Conversation {
            session: session.into(),
            subagent: None,
        }
    }

    /// A subagent's conversation inside a session.
    pub fn subagent(session: impl Into<String>, subagent: impl Into<String>) -> Conversation {
        Conversation {
            session: session.into(),
            subagent: Some(subagent.into()),
        }
    }

    /// One string naming the conversation (a registry's key, a state file's
    /// name): the session id for the main conversation, the session id, a
    /// NUL and the subagent's id for a subagent (no session id holds a NUL,
    /// so the two never meet).
    pub fn key(&self) -> String {
        match &self.subagent {
            None => self.session.clone(),
            Some(agent) => format!("{}\0{agent}", self.session),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subagent_is_a_conversation_of_its_own() {
        let main = Conversation::new("s1");
        let sub = Conversation::subagent("s1", "a7");
        assert_ne!(main, sub);
        assert_ne!(main.key(), sub.key());
        assert_eq!(main.key(), "s1");
        assert_ne!(Conversation::new("s1\0a7").subagent, sub.subagent);
    }
}
