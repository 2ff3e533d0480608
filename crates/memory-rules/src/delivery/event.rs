//! The agent event: the one type every road maps its agent's wire format
//! onto (a hook's JSON, an MCP tool call, the opencode plugin's events, an
//! SDK middleware's model call).
//!
//! A road says *what happened* in its agent's words turned into ours: which
//! conversation ([`Conversation`]: a session, and in it a subagent), what
//! kind of event ([`EventKind`]), the tool calls it reports with their input
//! as the agent sent it ([`ToolCall`]), the user's prompt, where the agent
//! runs and where its transcript is. What that *means* is decided by the core
//! ([`crate::delivery::responder`]): which files were touched ([`crate::delivery::touched`]),
//! which skills became active, what is due for this conversation, within
//! which budget, and what is delivered once the road has sent it.
//!
//! Events are built with [`Event::new`] and the builder methods, so a field
//! added later (a before-tool decision, a subagent's type) is an addition,
//! never a change to every road.

use crate::delivery::session::Start;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

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

/// What happened. New kinds are additions: a road matches the kinds it
/// sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventKind {
    /// The conversation starts: a new one, a resumed one, after a compaction
    /// or a clear.
    Start(Start),
    /// The user's prompt, before the model sees it.
    Prompt,
    /// A tool ran; the event's tool calls say what it touched.
    ToolDone,
    /// The model is about to be called with the conversation (an SDK
    /// middleware, once per model call): the event holds the tool calls and
    /// the files named since the last call, and the latest prompt when it
    /// changed. `reminders`: the road gives conditional rules as reminder
    /// messages (the answer's [`crate::delivery::responder::Answer::reminders`]) and only
    /// the always-on ones in the text; else the text holds every rule active
    /// in the conversation. `reset`: the conversation is not the one seen so
    /// far (compacted, edited): everything it was given and touched is gone.
    ModelCall { reminders: bool, reset: bool },
    /// The agent asks for the rules of the event's files and prompt (the MCP
    /// server's `rules_for_files`): every rule active for them; those the
    /// conversation was given are named instead of repeated, unless `again`.
    Request { again: bool },
    /// A compaction is announced by an event whose answer reaches no model.
    /// `certain`: it happens (Copilot CLI's preCompact); else it may not
    /// (Gemini CLI's PreCompress fires before every model turn): then only
    /// the prompt size the event carries is recorded, and a smaller one at a
    /// later event is the compaction.
    Compaction { certain: bool },
    /// The turn stops. `repeated`: this stop follows one the answer blocked
    /// (Claude Code's `stop_hook_active`): it is let through.
    Stop { repeated: bool },
    /// A tool is about to run (the event's tool calls): the answer says
    /// whether it may ([`crate::delivery::responder::Answer::refusal`]: the rules that
    /// enforce refuse it). A subagent tool's task is remembered for the
    /// subagent's start.
    ToolBefore,
    /// A subagent starts: the event's conversation is the subagent's, its
    /// task (when the road knows it) the event's prompt. It gets the
    /// always-on rules and its task's topic rules; nothing its parent was
    /// given counts for it.
    SubagentStart,
    /// A subagent stopped: its conversation is over (the road drops it).
    SubagentStop,
}

impl EventKind {
    /// A short name, for messages and logs.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Start(_) => "start",
            EventKind::Prompt => "prompt",
            EventKind::ToolDone => "tool-done",
            EventKind::ModelCall { .. } => "model-call",
            EventKind::Request { .. } => "request",
            EventKind::Compaction { .. } => "compaction",
            EventKind::Stop { .. } => "stop",
            EventKind::ToolBefore => "tool-before",
            EventKind::SubagentStart => "subagent-start",
            EventKind::SubagentStop => "subagent-stop",
        }
    }
}

/// What the road knows a tool to be, from its agent's tool names. Only a
/// skill tool changes how the input is read; the others say on which side
/// (read or written) a file key's files go. A tool the road does not know is
/// [`ToolKind::Other`]: its file keys and command still count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolKind {
    /// Reads files (`Read`, `read_file`, `view`).
    Read,
    /// Writes files (`Write`, `Edit`, `apply_patch`, `replace`).
    Write,
    /// Runs a shell command (`Bash`, `run_shell_command`, `exec_command`).
    Shell,
    /// Activates a skill (`Skill`, `activate_skill`, `skill`): its input
    /// names the skill (`skill`, `name` or `command`).
    Skill,
    /// Starts a subagent whose own start event does not carry its task
    /// (Claude Code's `Agent`): its input's task (`prompt`, `message`) and
    /// type (`subagent_type`, `agent_type`) are remembered, before it runs,
    /// for that start ([`EventKind::ToolBefore`]).
    Subagent,
    /// Anything else.
    #[default]
    Other,
}

impl ToolKind {
    /// What a tool is, guessed from a name the road does not know (an SDK
    /// user's own tools): one that writes (`write`, `edit`, `create`,
    /// `patch`, `replace`, `save`, `delete`, `remove`, `move`, `rename`,
    /// `append`, `insert`, `update` in its name), runs a command (`bash`,
    /// `shell`, `exec`, `command`, `terminal`), reads (`read`, `view`,
    /// `cat`, `open`, `show`, `get`, `list`, `search`, `grep`, `glob`,
    /// `find`), else [`ToolKind::Other`]. Compared in lowercase, as words of
    /// `snake_case`, `kebab-case` or `camelCase`.
    pub fn guess(name: &str) -> ToolKind {
        let mut words: Vec<String> = Vec::new();
        let mut word = String::new();
        for c in name.chars() {
            let boundary = c == '_' || c == '-' || c == '.' || c == ' ' || c.is_uppercase();
            if boundary && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            if c.is_alphanumeric() {
                word.extend(c.to_lowercase());
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        if has(&[
            "write",
            "edit",
            "create",
            "patch",
            "replace",
            "save",
            "delete",
            "remove",
            "move",
            "rename",
            "append",
            "insert",
            "update",
            "multiedit",
        ]) {
            ToolKind::Write
        } else if has(&["bash", "shell", "exec", "command", "terminal", "sh"]) {
            ToolKind::Shell
        } else if has(&[
            "read", "view", "cat", "open", "show", "get", "list", "search", "grep", "glob", "find",
        ]) {
            ToolKind::Read
        } else {
            ToolKind::Other
        }
    }
}

/// One tool call, as the agent sent it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolCall {
    /// The agent's own name of the tool.
    pub name: String,
    pub kind: ToolKind,
    /// The tool's input (arguments), as the agent sent it.
    pub input: serde_json::Value,
}

impl ToolCall {
    pub fn new(name: impl Into<String>, kind: ToolKind, input: serde_json::Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            kind,
            input,
        }
    }

    /// The skill a skill tool's input names (`skill`, else `command`, else
    /// `name`), as [`crate::rules::skill_name::name`] gives it.
    pub fn skill(&self) -> Option<String> {
        if self.kind != ToolKind::Skill {
            return None;
        }
        ["skill", "command", "name"]
            .iter()
            .find_map(|k| self.input.get(*k).and_then(serde_json::Value::as_str))
            .and_then(|n| crate::rules::skill_name::name(n).ok())
    }

    /// The task a subagent tool's input gives its subagent (`prompt`, else
    /// `message`), and the subagent's type (`subagent_type`, `agent_type`,
    /// `agent_name`; '' when none).
    pub fn subagent_task(&self) -> Option<(String, String)> {
        if self.kind != ToolKind::Subagent {
            return None;
        }
        let text = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| self.input.get(*k).and_then(serde_json::Value::as_str))
                .map(str::to_string)
        };
        let task = text(&["prompt", "message"])?;
        let kind = text(&["subagent_type", "agent_type", "agent_name"]).unwrap_or_default();
        Some((task, kind))
    }
}

/// One event of one conversation (see the module comment).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub conversation: Conversation,
    pub kind: EventKind,
    /// Who sent it: the agent or road (`claude`, `codex`, `opencode`,
    /// `ai-sdk`, `mcp`, ...), for what is logged of a delivery.
    pub agent: String,
    /// The tool calls the event reports (one for a hook's tool event; every
    /// call since the last one for an SDK's model call).
    pub tools: Vec<ToolCall>,
    /// Files the agent names outright (the MCP server's `paths`, `@path`
    /// mentions in an SDK conversation), relative to the workdir or absolute.
    pub files: Vec<String>,
    /// The user's prompt (the latest one, for a model call: `None` when it
    /// did not change).
    pub prompt: Option<String>,
    /// The subagent's type (Claude Code's `agent_type`), for a subagent's
    /// start: it takes the task its parent's subagent tool announced for
    /// that type.
    pub subagent_type: Option<String>,
    /// Where the agent runs: a shell command's relative paths are taken from
    /// here.
    pub cwd: Option<PathBuf>,
    /// Where the agent keeps the conversation's transcript.
    pub transcript: Option<PathBuf>,
    /// The size of the model's latest prompt, in tokens, where the agent
    /// tells it: a smaller one than the last seen is a compaction.
    pub prompt_tokens: Option<u64>,
    /// Memory text the road supplies (an SDK's `memory` option); else the
    /// responder's memory store is read where the event gives memory.
    pub memory: Option<String>,
}

impl Event {
    pub fn new(conversation: Conversation, kind: EventKind) -> Event {
        Event {
            conversation,
            kind,
            agent: String::new(),
            tools: Vec::new(),
            files: Vec::new(),
            prompt: None,
            subagent_type: None,
            cwd: None,
            transcript: None,
            prompt_tokens: None,
            memory: None,
        }
    }

    pub fn agent(mut self, agent: impl Into<String>) -> Event {
        self.agent = agent.into();
        self
    }

    pub fn tool(mut self, call: ToolCall) -> Event {
        self.tools.push(call);
        self
    }

    pub fn files<S: Into<String>>(mut self, files: impl IntoIterator<Item = S>) -> Event {
        self.files.extend(files.into_iter().map(Into::into));
        self
    }

    pub fn prompt(mut self, prompt: impl Into<String>) -> Event {
        self.prompt = Some(prompt.into());
        self
    }

    pub fn subagent_type(mut self, kind: impl Into<String>) -> Event {
        self.subagent_type = Some(kind.into());
        self
    }

    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Event {
        self.cwd = Some(cwd.into());
        self
    }

    pub fn transcript(mut self, path: impl Into<PathBuf>) -> Event {
        self.transcript = Some(path.into());
        self
    }

    pub fn prompt_tokens(mut self, tokens: u64) -> Event {
        self.prompt_tokens = Some(tokens);
        self
    }

    pub fn memory(mut self, text: impl Into<String>) -> Event {
        self.memory = Some(text.into());
        self
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

    #[test]
    fn an_unknown_tools_kind_is_guessed_from_its_name() {
        for (name, kind) in [
            ("writeFile", ToolKind::Write),
            ("edit_file", ToolKind::Write),
            ("str-replace", ToolKind::Write),
            ("run_bash", ToolKind::Shell),
            ("execCommand", ToolKind::Shell),
            ("readFile", ToolKind::Read),
            ("list_dir", ToolKind::Read),
            ("weather", ToolKind::Other),
            ("overwrite", ToolKind::Other),
        ] {
            assert_eq!(ToolKind::guess(name), kind, "{name}");
        }
    }
}
