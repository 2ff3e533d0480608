//! The conversations of one process, bounded: each conversation's
//! [`Session`] by its [`Conversation`], for the roads that live as long as
//! their agent (the opencode plugin, an SDK middleware). A hook is a process
//! per event and keeps its sessions on disk instead.
//!
//! At most `max` conversations are kept ([`DEFAULT_MAX_CONVERSATIONS`] by default);
//! a new one past the bound forgets the least recently used, which, if it
//! comes back, starts empty (its rules are given again: never lost, at worst
//! repeated).

pub use crate::base::limits::DEFAULT_MAX_CONVERSATIONS;
use crate::delivery::conversation::Conversation;
use crate::delivery::session::Session;
use std::collections::HashMap;

/// The conversations of a process (see the module comment).
#[derive(Debug)]
pub struct Conversations {
    max: usize,
    clock: u64,
    /// Each conversation's session and when it was last used.
    map: HashMap<Conversation, (Session, u64)>,
}

impl Default for Conversations {
    fn default() -> Self {
        Conversations::new(DEFAULT_MAX_CONVERSATIONS)
    }
}

impl Conversations {
    /// At most `max` conversations (at least one).
    pub fn new(max: usize) -> Conversations {
        Conversations {
            max: max.max(1),
            clock: 0,
            map: HashMap::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Whether this conversation is kept (seen, and not forgotten since).
    pub fn contains(&self, conversation: &Conversation) -> bool {
        self.map.contains_key(conversation)
    }

    /// The conversation's session, if it is kept (not counted as a use).
    pub fn get(&self, conversation: &Conversation) -> Option<&Session> {
        self.map.get(conversation).map(|(s, _)| s)
    }

    /// The conversation's session, a new one when it is not kept (the least
    /// recently used one is forgotten when the bound is reached).
    pub fn session(&mut self, conversation: &Conversation) -> &mut Session {
        self.clock += 1;
        let now = self.clock;
        if !self.map.contains_key(conversation) && self.map.len() >= self.max {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                self.map.remove(&oldest);
            }
        }
        let entry = self
            .map
            .entry(conversation.clone())
            .or_insert_with(|| (Session::new(), now));
        entry.1 = now;
        &mut entry.0
    }

    /// Forgets a conversation.
    pub fn forget(&mut self, conversation: &Conversation) {
        self.map.remove(conversation);
    }

    /// A subagent's conversation and its session's main one, both kept (a
    /// subagent's start and stop change both). `None` for a conversation
    /// that is not a subagent's.
    pub fn with_parent(&mut self, child: &Conversation) -> Option<(&mut Session, &mut Session)> {
        child.subagent.as_ref()?;
        let parent = Conversation::new(child.session.clone());
        self.session(&parent);
        self.session(child);
        let [p, c] = self.map.get_disjoint_mut([&parent, child]);
        Some((&mut p?.0, &mut c?.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_conversation_is_forgotten_past_the_bound() {
        let mut c = Conversations::new(2);
        let (a, b, d) = (
            Conversation::new("a"),
            Conversation::new("b"),
            Conversation::subagent("a", "x"),
        );
        c.session(&a).started = true;
        c.session(&b);
        c.session(&a);
        c.session(&d);
        assert!(c.contains(&a) && c.contains(&d) && !c.contains(&b));
        assert!(c.get(&a).unwrap().started, "a subagent is not its session");
        assert!(!c.get(&d).unwrap().started);
        assert_eq!(c.len(), 2);
        c.forget(&a);
        assert!(!c.contains(&a));
        // A subagent and its parent, both kept.
        let mut c = Conversations::new(8);
        let (parent, child) = c.with_parent(&d).unwrap();
        parent.subagent_started("x", None);
        child.started = true;
        assert_eq!(c.get(&a).unwrap().subagents().len(), 1);
        assert!(c.get(&d).unwrap().started);
        assert!(c.with_parent(&a).is_none());
    }
}
