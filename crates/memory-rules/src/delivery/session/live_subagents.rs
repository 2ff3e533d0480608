//! The subagents a session started and their tasks, announced by its
//! subagent tool before they start.

use super::{Session, MAX_SUBAGENTS};
use serde::{Deserialize, Serialize};

/// A subagent of the session, live until its stop.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveSubagent {
    /// The agent's id of the subagent (its conversation's `subagent`).
    pub id: String,
    /// Its type, as the agent names it ('' when unknown).
    pub kind: String,
}

/// A subagent's task, announced by the session's subagent tool before the
/// subagent starts (Claude Code's `Agent` input: its start event does not
/// carry it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingTask {
    pub kind: String,
    pub prompt: String,
}

impl Session {
    /// The session's subagent tool is about to start a subagent with this
    /// task: it waits for the subagent's start ([`Session::subagent_started`]).
    /// Past [`MAX_SUBAGENTS`] waiting tasks the oldest is dropped.
    pub fn task_announced(&mut self, kind: &str, prompt: &str) {
        if self.tasks.len() >= MAX_SUBAGENTS {
            self.tasks.remove(0);
        }
        self.tasks.push(PendingTask {
            kind: kind.to_string(),
            prompt: prompt.to_string(),
        });
    }

    /// A subagent of this session starts: it is live until
    /// [`Session::subagent_stopped`]. Returns the task announced for it (the
    /// oldest waiting one of its type, else of no type) and the ids of the
    /// subagents past [`MAX_SUBAGENTS`] that are forgotten to make room
    /// (the oldest: the road drops their conversations; one that comes back
    /// starts empty, its rules given again).
    pub fn subagent_started(
        &mut self,
        id: &str,
        kind: Option<&str>,
    ) -> (Option<String>, Vec<String>) {
        let kind = kind.unwrap_or("");
        let task = self.task_at(kind).map(|i| self.tasks.remove(i).prompt);
        self.subagents.retain(|s| s.id != id);
        let mut forgotten = Vec::new();
        while self.subagents.len() >= MAX_SUBAGENTS {
            forgotten.push(self.subagents.remove(0).id);
        }
        self.subagents.push(LiveSubagent {
            id: id.to_string(),
            kind: kind.to_string(),
        });
        (task, forgotten)
    }

    /// The task a subagent of type `kind` starting now would take
    /// ([`Session::subagent_started`]), left waiting.
    pub fn task_for(&self, kind: Option<&str>) -> Option<&str> {
        let at = self.task_at(kind.unwrap_or(""))?;
        Some(&self.tasks[at].prompt)
    }

    /// The tasks waiting for their subagent's start, oldest first.
    pub fn waiting_tasks(&self) -> impl Iterator<Item = &str> {
        self.tasks.iter().map(|t| t.prompt.as_str())
    }

    /// [`Session::waiting_tasks`] of a saved state (`json` as a session
    /// serializes), read without building the rest of the state: its other
    /// fields are skipped, not kept (a subagent's start reads them before
    /// its lock, and the whole state once under it). No tasks for a state
    /// of another version, which [`Session`] reads as a fresh session.
    pub fn waiting_tasks_saved(json: &[u8]) -> serde_json::Result<Vec<String>> {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Saved {
            version: u32,
            tasks: Vec<PendingTask>,
        }
        let saved: Saved = serde_json::from_slice(json)?;
        Ok(match saved.version == super::SESSION_VERSION {
            true => saved.tasks.into_iter().map(|t| t.prompt).collect(),
            false => Vec::new(),
        })
    }

    /// Where the task for a subagent of type `kind` is: the oldest of its
    /// type, else of no type.
    fn task_at(&self, kind: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.kind == kind).or_else(|| {
            self.tasks
                .iter()
                .position(|t| t.kind.is_empty() || kind.is_empty())
        })
    }

    /// A subagent of this session stopped. Returns whether it was live.
    pub fn subagent_stopped(&mut self, id: &str) -> bool {
        let before = self.subagents.len();
        self.subagents.retain(|s| s.id != id);
        before != self.subagents.len()
    }

    /// The subagents live in this session, oldest first.
    pub fn subagents(&self) -> &[LiveSubagent] {
        &self.subagents
    }
}
