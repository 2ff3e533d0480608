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

use crate::delivery::conversation::Conversation;
use crate::delivery::session::Start;
use crate::delivery::tool_call::{ToolCall, ToolKind};
use crate::delivery::touched::{tool_files, Touched};
use crate::load::rule_index::RulesNeeded;
use std::path::PathBuf;

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

impl Event {
    /// Every file the event touched: its tool calls' (see
    /// [`crate::delivery::touched`]) and the files it names, each once.
    pub fn touched(&self) -> Vec<String> {
        self.touched_by(&self.tool_touched())
    }

    /// What each of the event's tool calls touched, in order: computed once
    /// per event (a shell command is parsed then) and passed to whatever
    /// needs it.
    pub fn tool_touched(&self) -> Vec<Touched> {
        self.tools
            .iter()
            .map(|call| tool_files(call, self.cwd.as_deref()))
            .collect()
    }

    /// [`Event::touched`] from what [`Event::tool_touched`] gave.
    pub fn touched_by(&self, calls: &[Touched]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |f: &str| {
            if !f.is_empty() && !out.iter().any(|o| o == f) {
                out.push(f.to_string());
            }
        };
        for t in calls {
            for f in t.all() {
                add(&f);
            }
        }
        for f in &self.files {
            add(f);
        }
        out
    }

    /// The rules a road must restore to answer this event as the whole set
    /// would ([`RulesNeeded`]), `touched` being what it touched
    /// ([`Event::touched`]). A rule only `paths` can activate matters to an
    /// event that touched a file, when one of its globs may match one of
    /// them; one only `topics` can activate, to a prompt that names one of
    /// its topics and to a subagent's task; an always-on one, to a start, a
    /// prompt and a subagent's task (a tool's event gives only conditional
    /// rules); none of them before a tool (only the enforced rules decide
    /// there, and none is one of them). Every rule is needed after a
    /// compaction: a start after one, or any event of a session that has
    /// to give again what one took (`regive`,
    /// [`crate::delivery::Session::regive`]) or that tells the prompt's
    /// size (a smaller one is a compaction). Other events need them all.
    /// (Telemetry's count of the rules loaded at a start reads the saved
    /// rules' index: [`RuleCensus`](crate::delivery::telemetry::RuleCensus).)
    pub fn rules_needed<'a>(
        &'a self,
        touched: &'a [String],
        regive: impl FnOnce() -> bool,
    ) -> RulesNeeded<'a> {
        let touches = !touched.is_empty();
        let needs = |topics: bool, always: bool| RulesNeeded {
            paths: touches,
            topics,
            always,
            prompt: None,
            files: Some(touched),
        };
        match self.kind {
            EventKind::Start(Start::Compact | Start::Clear) => RulesNeeded::ALL,
            EventKind::Start(_) => needs(false, true),
            EventKind::ToolBefore => RulesNeeded {
                paths: false,
                files: None,
                ..needs(false, false)
            },
            // A prompt's size smaller than the last one seen is itself a
            // compaction ([`crate::delivery::Session::prompt_size`]).
            _ if self.prompt_tokens.is_some() || regive() => RulesNeeded::ALL,
            // Of the topic-only rules, those the prompt names (a subagent's
            // task may be in its parent's state, unread here: without a
            // prompt, all of them).
            EventKind::Prompt | EventKind::SubagentStart => RulesNeeded {
                prompt: self.prompt.as_deref(),
                ..needs(true, true)
            },
            EventKind::ToolDone => needs(false, false),
            _ => RulesNeeded::ALL,
        }
    }

    /// Whether the event could make anything due before the rules are
    /// loaded: a tool event that touched no file, ran no command and
    /// activated no skill cannot (a hook answers it without reading a rule).
    pub fn may_matter(&self) -> bool {
        match self.kind {
            // A command can be warned about (`enforce: warn` on `commands`).
            EventKind::ToolDone => {
                self.tools.iter().any(|c| {
                    c.skill().is_some() || {
                        let t = tool_files(c, self.cwd.as_deref());
                        !t.is_empty() || !t.commands.is_empty()
                    }
                }) || !self.files.is_empty()
            }
            // Only a write, a command or a subagent's task can matter before a tool runs.
            EventKind::ToolBefore => self.tools.iter().any(|c| {
                c.kind == ToolKind::Subagent || {
                    let t = tool_files(c, self.cwd.as_deref());
                    !t.written.is_empty() || !t.commands.is_empty() || !t.unread.is_empty()
                }
            }),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_event_matters_only_when_it_touches_a_file_or_names_a_skill() {
        let event = |call| Event::new(Conversation::new("s"), EventKind::ToolDone).tool(call);
        let other = ToolCall::new("TodoWrite", ToolKind::Other, json!({"todos": []}));
        assert!(!event(other).may_matter());
        let grep = ToolCall::new("custom_read", ToolKind::Other, json!({"filePath": "a.ts"}));
        assert!(event(grep).may_matter());
        let skill = ToolCall::new("Skill", ToolKind::Skill, json!({"skill": "db-work"}));
        assert_eq!(skill.skill().as_deref(), Some("db-work"));
        assert!(event(skill).may_matter());
        let prompt = Event::new(Conversation::new("s"), EventKind::Prompt);
        assert!(prompt.may_matter());
    }

    #[test]
    fn an_event_needs_only_the_rules_it_can_activate_unless_a_compaction_took_them() {
        let at = |kind| Event::new(Conversation::new("s"), kind);
        let (no, yes) = (|| false, || true);
        let read = ToolCall::new("Read", ToolKind::Read, json!({"file_path": "src/a.ts"}));
        let file_done = at(EventKind::ToolDone).tool(read.clone());
        let a_ts = file_done.touched();
        assert_eq!(a_ts, ["src/a.ts"]);
        let needs = |files: &'static [String], topics, always| RulesNeeded {
            paths: !files.is_empty(),
            topics,
            always,
            prompt: None,
            files: Some(files),
        };
        let a_ts: &'static [String] = a_ts.leak();
        let none: &'static [String] = &[];
        assert_eq!(file_done.rules_needed(a_ts, no), needs(a_ts, false, false));
        assert_eq!(
            file_done.rules_needed(a_ts, yes),
            RulesNeeded::ALL,
            "regive"
        );
        let prompt = at(EventKind::Prompt).prompt("fix billing");
        let named = RulesNeeded {
            prompt: Some("fix billing"),
            ..needs(none, true, true)
        };
        assert_eq!(prompt.rules_needed(none, no), named);
        assert_eq!(prompt.rules_needed(none, yes), RulesNeeded::ALL, "regive");
        let sized = at(EventKind::Prompt).prompt("go on").prompt_tokens(1_200);
        assert_eq!(sized.rules_needed(none, no), RulesNeeded::ALL, "may shrink");
        let with_file = at(EventKind::Prompt).prompt("fix it").tool(read.clone());
        let named = RulesNeeded {
            prompt: Some("fix it"),
            ..needs(a_ts, true, true)
        };
        assert_eq!(with_file.rules_needed(a_ts, no), named);
        let subagent = at(EventKind::SubagentStart);
        assert_eq!(subagent.rules_needed(none, no), needs(none, true, true));
        let before = at(EventKind::ToolBefore).tool(read);
        let nothing = RulesNeeded {
            files: None,
            ..needs(none, false, false)
        };
        assert_eq!(before.rules_needed(a_ts, yes), nothing);
        let startup = at(EventKind::Start(Start::Startup));
        assert_eq!(startup.rules_needed(none, yes), needs(none, false, true));
        for how in [Start::Compact, Start::Clear] {
            assert_eq!(
                at(EventKind::Start(how)).rules_needed(none, no),
                RulesNeeded::ALL
            );
        }
        let request = at(EventKind::Request { again: false });
        assert_eq!(request.rules_needed(none, no), RulesNeeded::ALL);
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
