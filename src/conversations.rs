//! `Conversations`: the core's agent event, its answer and its bounded
//! registry of conversations, for the TypeScript roads (the opencode plugin,
//! the SDK middlewares, `RuleSession`). Every call takes the `RuleEngine`
//! whose rules it answers with; conversions only.

use crate::engine::RuleEngine;
use memory_rules as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;
use wave_rules::InProcess;

/// Which conversation: a session and, inside it, a subagent.
#[napi(object)]
#[derive(Clone)]
pub struct ConversationKey {
    pub session: String,
    pub subagent: Option<String>,
}

fn key(c: ConversationKey) -> core::delivery::Conversation {
    core::delivery::Conversation {
        session: c.session,
        subagent: c.subagent,
    }
}

/// One tool call, as the agent sent it.
#[napi(object)]
pub struct AgentToolCall {
    /// The agent's name of the tool.
    pub name: String,
    /// What the road knows the tool to be; default: guessed from its name
    /// (`writeFile` writes, `bash` runs commands, `readFile` reads; else
    /// `'other'`: its file keys and command still count). `'subagent'`:
    /// starts a subagent (its input's `prompt` is the task).
    #[napi(ts_type = "'read' | 'write' | 'shell' | 'skill' | 'subagent' | 'other'")]
    pub kind: Option<String>,
    /// The tool's input (arguments).
    pub input: serde_json::Value,
}

fn tool(t: AgentToolCall) -> core::delivery::ToolCall {
    let kind = match t.kind.as_deref() {
        Some("read") => core::delivery::ToolKind::Read,
        Some("write") => core::delivery::ToolKind::Write,
        Some("shell") => core::delivery::ToolKind::Shell,
        Some("skill") => core::delivery::ToolKind::Skill,
        Some("subagent") => core::delivery::ToolKind::Subagent,
        Some("other") => core::delivery::ToolKind::Other,
        _ => core::delivery::ToolKind::guess(&t.name),
    };
    core::delivery::ToolCall::new(t.name, kind, t.input)
}

/// One event of one conversation (the core's agent event).
#[napi(object)]
pub struct AgentEvent {
    pub conversation: ConversationKey,
    #[napi(
        ts_type = "'start' | 'prompt' | 'tool-before' | 'tool-done' | 'model-call' | 'request' | 'compaction' | 'stop' | 'subagent-start' | 'subagent-stop'"
    )]
    pub kind: String,
    /// `subagent-start`: the subagent's type (takes the task its parent's
    /// subagent tool announced for that type).
    pub subagent_type: Option<String>,
    /// `start`: how (default `'startup'`).
    #[napi(ts_type = "'startup' | 'resume' | 'compact' | 'clear'")]
    pub how: Option<String>,
    /// `model-call`: conditional rules go as reminders.
    pub reminders: Option<bool>,
    /// `model-call`: the conversation is not the one seen so far.
    pub reset: Option<bool>,
    /// `request`: give the rules again even if given.
    pub again: Option<bool>,
    /// `compaction`: it surely happens (default true).
    pub certain: Option<bool>,
    /// `stop`: this stop follows one the answer blocked.
    pub repeated: Option<bool>,
    /// Who sent it (`'opencode'`, `'ai-sdk'`, ...).
    pub agent: Option<String>,
    pub tools: Option<Vec<AgentToolCall>>,
    /// Files the agent names outright (`@path` mentions).
    pub files: Option<Vec<String>>,
    pub prompt: Option<String>,
    /// Where a shell command's relative paths start.
    pub cwd: Option<String>,
    pub transcript: Option<String>,
    pub prompt_tokens: Option<f64>,
    /// Memory text, given after the rules (a model call, a start).
    pub memory: Option<String>,
}

fn event(e: AgentEvent) -> Result<core::delivery::Event> {
    let kind = match e.kind.as_str() {
        "start" => core::delivery::EventKind::Start(core::delivery::Start::parse(
            e.how.as_deref().unwrap_or("startup"),
        )),
        "prompt" => core::delivery::EventKind::Prompt,
        "tool-done" => core::delivery::EventKind::ToolDone,
        "tool-before" => core::delivery::EventKind::ToolBefore,
        "subagent-start" => core::delivery::EventKind::SubagentStart,
        "subagent-stop" => core::delivery::EventKind::SubagentStop,
        "model-call" => core::delivery::EventKind::ModelCall {
            reminders: e.reminders.unwrap_or(false),
            reset: e.reset.unwrap_or(false),
        },
        "request" => core::delivery::EventKind::Request {
            again: e.again.unwrap_or(false),
        },
        "compaction" => core::delivery::EventKind::Compaction {
            certain: e.certain.unwrap_or(true),
        },
        "stop" => core::delivery::EventKind::Stop {
            repeated: e.repeated.unwrap_or(false),
        },
        other => {
            return Err(Error::new(
                Status::InvalidArg,
                format!("unknown event kind '{other}'"),
            ))
        }
    };
    let mut out = core::delivery::Event::new(key(e.conversation), kind)
        .agent(e.agent.unwrap_or_default())
        .files(e.files.unwrap_or_default());
    out.tools = e.tools.unwrap_or_default().into_iter().map(tool).collect();
    out.prompt = e.prompt;
    out.cwd = e.cwd.map(Into::into);
    out.transcript = e.transcript.map(Into::into);
    out.prompt_tokens = e.prompt_tokens.filter(|t| *t >= 0.0).map(|t| t as u64);
    out.memory = e.memory;
    out.subagent_type = e.subagent_type;
    Ok(out)
}

/// A rule given as a reminder message of its own.
#[napi(object)]
pub struct Reminder {
    pub rule_id: String,
    /// The whole `<system-reminder>` block.
    pub text: String,
}

/// What the core answers to an event. Nothing counts as delivered until
/// `commit(engine, answer)`.
#[napi]
pub struct Answer {
    inner: core::delivery::Answer,
    /// The rules the answer was made with (its verdict names them by index).
    set: std::sync::Arc<core::RuleSet>,
}

#[napi]
impl Answer {
    /// What to give the model ('' when nothing is due).
    #[napi(getter)]
    pub fn text(&self) -> String {
        self.inner.text.clone()
    }

    /// Ids of the rules the text holds, in the order rendered.
    #[napi(getter)]
    pub fn rule_ids(&self) -> Vec<String> {
        self.inner.rules.iter().map(|g| g.id.clone()).collect()
    }

    /// Ids left out to fit the budget.
    #[napi(getter)]
    pub fn omitted(&self) -> Vec<String> {
        self.inner.omitted.clone()
    }

    /// Ids of the rules active but given before (a request).
    #[napi(getter)]
    pub fn given(&self) -> Vec<String> {
        self.inner.given.clone()
    }

    /// Rules given as reminder messages (a model call in reminder mode).
    #[napi(getter)]
    pub fn reminders(&self) -> Vec<Reminder> {
        self.inner
            .reminders
            .iter()
            .map(|r| Reminder {
                rule_id: r.rule.id.clone(),
                text: r.text.clone(),
            })
            .collect()
    }

    /// Whether the answer holds reminders (without converting them).
    #[napi(getter)]
    pub fn has_reminders(&self) -> bool {
        !self.inner.reminders.is_empty()
    }

    /// Ids of the on-request rules offered.
    #[napi(getter)]
    pub fn offered(&self) -> Vec<String> {
        self.inner.offered.clone()
    }

    /// The files the event touched, relative to the workdir.
    #[napi(getter)]
    pub fn touched(&self) -> Vec<String> {
        self.inner.touched.clone()
    }

    /// The skills the event activated.
    #[napi(getter)]
    pub fn skills(&self) -> Vec<String> {
        self.inner.skills.clone()
    }

    /// Ids of the memory entries the text holds (recalled).
    #[napi(getter)]
    pub fn memory_ids(&self) -> Vec<String> {
        self.inner.memory.clone()
    }

    /// It answers a session start.
    #[napi(getter)]
    pub fn starts(&self) -> bool {
        self.inner.starts
    }

    /// Before a tool runs: why the rules that enforce refuse it (what the
    /// model should read as the call's result); absent: it may run.
    #[napi(getter)]
    pub fn refusal(&self) -> Option<String> {
        self.inner.refusal.clone()
    }

    /// Ids of the enforced rules the call triggered (blocks first).
    #[napi(getter)]
    pub fn enforced_ids(&self) -> Vec<String> {
        self.inner
            .verdict
            .hits
            .iter()
            .filter_map(|h| self.rule_id(h.rule))
            .collect()
    }

    /// Ids of the path rules that came back at this write, in short form.
    #[napi(getter)]
    pub fn recalled_ids(&self) -> Vec<String> {
        self.inner.recalled.iter().map(|g| g.id.clone()).collect()
    }
}

impl Answer {
    fn rule_id(&self, index: usize) -> Option<String> {
        self.set.rules().get(index).map(|r| r.id.clone())
    }
}

#[napi(object)]
#[derive(Default)]
pub struct ConversationsOptions {
    /// Conversations kept at most (default: the core's
    /// `DEFAULT_MAX_CONVERSATIONS`); the least recently used is forgotten past it.
    pub max_conversations: Option<u32>,
    /// The budget of a rendered rules section: lines (default none) and
    /// UTF-8 bytes (default: the core's `DEFAULT_RULES_BYTES`); `Infinity`
    /// is no limit.
    pub max_lines: Option<f64>,
    pub max_bytes: Option<f64>,
    /// Give the memory store's text after the rules at a session start.
    pub memory: Option<bool>,
    /// A path rule given more than this many tool calls ago comes back, in
    /// short form, at a write it governs (default: the core's
    /// `DEFAULT_EDIT_DISTANCE`; 0: never).
    pub edit_distance: Option<f64>,
    /// Recall memory by relevance from these directories at every event
    /// (the core's `Memory::Recall`); wins over `memory`.
    pub recall: Option<RecallOptions>,
}

/// Where memory is recalled from, and how much at one event.
#[napi(object)]
pub struct RecallOptions {
    pub user_dir: String,
    pub project_dir: String,
    /// UTF-8 bytes recalled at one event at most (default: the core's
    /// `DEFAULT_RECALL_BYTES`).
    pub max_bytes: Option<f64>,
}

/// The conversations of this process, each one's delivery state (the core's
/// `Session`), bounded.
#[napi]
pub struct Conversations {
    inner: core::delivery::Conversations,
    budget: core::delivery::Budget,
    memory: bool,
    recall: Option<(
        core::memory::MemoryLocations,
        core::memory::recall::RecallBudget,
    )>,
    edit_distance: u64,
}

/// The telemetry of this process for an engine's project and home
/// (docs/telemetry.md: off unless the settings switch it on).
fn telemetry_of(
    places: &(std::path::PathBuf, Option<std::path::PathBuf>),
) -> Option<Arc<InProcess>> {
    InProcess::of(&places.0, places.1.as_deref())
}

impl Conversations {
    fn responder<'a>(
        &self,
        set: &'a core::RuleSet,
        places: &'a (std::path::PathBuf, Option<std::path::PathBuf>),
        telemetry: Option<&'a InProcess>,
    ) -> core::delivery::Responder<'a> {
        let mut r = core::delivery::Responder::new(set, &places.0)
            .budget(self.budget)
            .edit_distance(self.edit_distance);
        if let Some(t) = telemetry {
            r = r.telemetry(t.telemetry());
        }
        if let Some(home) = &places.1 {
            r = r.home(home.clone());
        }
        if let Some((locations, budget)) = &self.recall {
            r = r.memory(core::delivery::Memory::Recall(locations.clone(), *budget));
        } else if self.memory {
            r = r.with_memory();
        }
        r
    }
}

#[napi]
impl Conversations {
    #[napi(constructor)]
    pub fn new(options: Option<ConversationsOptions>) -> Self {
        let o = options.unwrap_or_default();
        let limit = |n: f64| n.is_finite().then(|| n.max(0.0) as usize);
        let mut budget = core::delivery::Budget::agents();
        if let Some(lines) = o.max_lines {
            budget.max_lines = limit(lines);
        }
        if let Some(bytes) = o.max_bytes {
            budget.max_bytes = limit(bytes);
        }
        Conversations {
            inner: core::delivery::Conversations::new(
                o.max_conversations
                    .map_or(core::base::limits::DEFAULT_MAX_CONVERSATIONS, |n| {
                        n as usize
                    }),
            ),
            budget,
            memory: o.memory.unwrap_or(false),
            recall: o.recall.map(|r| {
                let mut budget = core::memory::recall::RecallBudget::default();
                if let Some(bytes) = r.max_bytes.filter(|b| *b >= 0.0) {
                    budget.bytes = if bytes.is_finite() {
                        bytes as usize
                    } else {
                        usize::MAX
                    };
                }
                (
                    core::memory::MemoryLocations {
                        user_dir: r.user_dir.into(),
                        project_dir: r.project_dir.into(),
                    },
                    budget,
                )
            }),
            edit_distance: o
                .edit_distance
                .filter(|n| n.is_finite() && *n >= 0.0)
                .map_or(core::base::limits::DEFAULT_EDIT_DISTANCE, |n| n as u64),
        }
    }

    /// What is due for this event in its conversation; marks nothing delivered.
    #[napi(catch_unwind)]
    pub fn respond(&mut self, engine: &RuleEngine, event: AgentEvent) -> Result<Answer> {
        let event = self::event(event)?;
        let set = engine.rule_set();
        let places = engine.places();
        let telemetry = telemetry_of(&places);
        let responder = self.responder(&set, &places, telemetry.as_deref());
        if event.kind == core::delivery::EventKind::SubagentStart {
            if let Some((parent, child)) = self.inner.with_parent(&event.conversation) {
                let (answer, forgotten) = responder.subagent_start(parent, child, &event);
                for id in forgotten {
                    let gone = core::delivery::Conversation::subagent(
                        event.conversation.session.clone(),
                        id,
                    );
                    self.inner.forget(&gone);
                }
                return Ok(Answer {
                    inner: answer,
                    set: set.clone(),
                });
            }
        }
        if event.kind == core::delivery::EventKind::SubagentStop {
            if let Some((parent, _)) = self.inner.with_parent(&event.conversation) {
                responder.subagent_stop(parent, &event);
            }
            self.inner.forget(&event.conversation);
            return Ok(Answer {
                inner: responder.respond(&mut core::delivery::Session::new(), &event),
                set: set.clone(),
            });
        }
        let session = self.inner.session(&event.conversation);
        let answer = responder.respond(session, &event);
        // A refusal (or warning) before a tool runs is recorded here; what
        // is given, when the answer is committed.
        responder.record_verdict(&answer, event.tools.first().map(|t| t.name.as_str()));
        if let Some(t) = &telemetry {
            t.recorded();
        }
        Ok(Answer {
            inner: answer,
            set: set.clone(),
        })
    }

    /// The answer reached the model: its rules count as delivered.
    #[napi(catch_unwind)]
    pub fn commit(&mut self, engine: &RuleEngine, answer: &Answer) {
        let set = engine.rule_set();
        let places = engine.places();
        let telemetry = telemetry_of(&places);
        let responder = self.responder(&set, &places, telemetry.as_deref());
        let session = self.inner.session(&answer.inner.conversation);
        responder.commit(session, &answer.inner);
        if let Some(t) = &telemetry {
            t.recorded();
        }
    }

    /// These rules (by id, in their current versions) reached the model;
    /// `agent` names the road in the delivery log (default `sdk`).
    #[napi(catch_unwind)]
    pub fn commit_ids(
        &mut self,
        engine: &RuleEngine,
        conversation: ConversationKey,
        ids: Vec<String>,
        agent: Option<String>,
    ) {
        let set = engine.rule_set();
        let places = engine.places();
        let telemetry = telemetry_of(&places);
        let responder = self.responder(&set, &places, telemetry.as_deref());
        let conversation = key(conversation);
        let session = self.inner.session(&conversation);
        let agent = agent.unwrap_or_else(|| "sdk".to_string());
        responder.commit_ids(session, &conversation, &agent, &ids);
        if let Some(t) = &telemetry {
            t.recorded();
        }
    }

    /// A conversation not seen by this process: its transcript (since the
    /// last compaction) says which rules it holds, its tool calls what it
    /// touched. Nothing is due.
    #[napi(catch_unwind)]
    pub fn restore(
        &mut self,
        engine: &RuleEngine,
        conversation: ConversationKey,
        transcript: String,
        tools: Option<Vec<AgentToolCall>>,
        cwd: Option<String>,
    ) {
        let set = engine.rule_set();
        let places = engine.places();
        // Restoring a conversation records nothing.
        let responder = self.responder(&set, &places, None);
        let conversation = key(conversation);
        let mut seen =
            core::delivery::Event::new(conversation.clone(), core::delivery::EventKind::ToolDone);
        seen.tools = tools.unwrap_or_default().into_iter().map(tool).collect();
        seen.cwd = cwd.map(Into::into);
        responder.restore(self.inner.session(&conversation), &seen, &transcript);
    }

    /// Whether this conversation is kept (seen, not forgotten since).
    #[napi(catch_unwind)]
    pub fn has(&self, conversation: ConversationKey) -> bool {
        self.inner.contains(&key(conversation))
    }

    /// Whether the conversation was given a session start.
    #[napi(catch_unwind)]
    pub fn started(&self, conversation: ConversationKey) -> bool {
        self.inner
            .get(&key(conversation))
            .is_some_and(|s| s.started)
    }

    #[napi(catch_unwind)]
    pub fn forget(&mut self, conversation: ConversationKey) {
        self.inner.forget(&key(conversation));
    }

    /// Ids delivered since the start or the last compaction, sorted.
    #[napi(catch_unwind)]
    pub fn delivered(&self, conversation: ConversationKey) -> Vec<String> {
        self.inner
            .get(&key(conversation))
            .map(|s| s.delivered_ids())
            .unwrap_or_default()
    }

    /// Records a skill as active (the next answer holds its rules); false
    /// for a refused name or past the limit of active skills.
    #[napi(catch_unwind)]
    pub fn note_skill(
        &mut self,
        conversation: ConversationKey,
        name: String,
        uses_memory: Option<bool>,
    ) -> bool {
        self.inner
            .session(&key(conversation))
            .note_skill(&name, uses_memory.unwrap_or(false))
    }

    /// The skills active in the conversation, sorted.
    #[napi(catch_unwind)]
    pub fn active_skills(&self, conversation: ConversationKey) -> Vec<String> {
        self.inner
            .get(&key(conversation))
            .map(|s| s.skills().iter().map(|k| k.name.clone()).collect())
            .unwrap_or_default()
    }

    /// The short lines of the active `remind: every-turn` rules.
    #[napi(catch_unwind)]
    pub fn sticky_lines(&self, conversation: ConversationKey) -> Vec<String> {
        self.inner
            .get(&key(conversation))
            .map(|s| s.sticky().iter().map(|k| k.line.clone()).collect())
            .unwrap_or_default()
    }

    /// The conversation's delivery state, as JSON (to keep it elsewhere).
    #[napi(catch_unwind)]
    pub fn to_json(&self, conversation: ConversationKey) -> Option<String> {
        let session = self.inner.get(&key(conversation))?;
        serde_json::to_string(session).ok()
    }

    /// A conversation's delivery state saved with `toJson`.
    #[napi(catch_unwind)]
    pub fn load_json(&mut self, conversation: ConversationKey, text: String) -> Result<()> {
        let saved: core::delivery::Session = serde_json::from_str(&text)
            .map_err(|e| Error::from_reason(format!("not a saved conversation: {e}")))?;
        *self.inner.session(&key(conversation)) = saved;
        Ok(())
    }
}

/// What the rules that enforce say of one tool call, before it runs.
#[napi(object)]
pub struct ToolCheck {
    /// The call is refused: `reason` is what the model should read.
    pub refused: bool,
    /// Why it is refused ('' when it is not).
    pub reason: String,
    /// The warnings of `enforce: warn` rules, for the model ('' for none).
    pub warning: String,
    /// Ids of the enforced rules the call triggered (blocks first).
    pub rule_ids: Vec<String>,
    /// Why part of the call could not be checked (it is let run).
    pub unchecked: Vec<String>,
}

/// The enforced rules' verdict on one tool call, before it runs (no
/// conversation: a tool guard calls it for every call); a shell command's
/// relative paths are taken from `cwd`.
#[napi(catch_unwind)]
pub fn check_tool_call(engine: &RuleEngine, call: AgentToolCall, cwd: Option<String>) -> ToolCheck {
    let set = engine.rule_set();
    let places = engine.places();
    let mut event = core::delivery::Event::new(
        core::delivery::Conversation::new("check"),
        core::delivery::EventKind::ToolBefore,
    )
    .tool(tool(call));
    event.cwd = cwd.map(Into::into);
    let telemetry = telemetry_of(&places);
    let mut responder = core::delivery::Responder::new(&set, &places.0);
    if let Some(t) = &telemetry {
        responder = responder.telemetry(t.telemetry());
    }
    let verdict = responder.verdict(&event);
    let tool_name = event.tools.first().map(|t| t.name.as_str());
    responder.record_tool_verdict(&verdict, "sdk", "check", tool_name);
    if let Some(t) = &telemetry {
        t.recorded();
    }
    let max = core::base::limits::DEFAULT_RULES_BYTES;
    let blocks = verdict.blocks();
    let warned = core::delivery::enforcement::Verdict {
        hits: verdict
            .hits
            .iter()
            .filter(|h| h.enforce == core::Enforce::Warn)
            .cloned()
            .collect(),
        unchecked: Vec::new(),
    };
    ToolCheck {
        refused: blocks,
        reason: if blocks {
            core::delivery::enforcement::reason(&set, &verdict, max, &[])
        } else {
            String::new()
        },
        warning: core::delivery::enforcement::reason(&set, &warned, max, &[]),
        rule_ids: verdict
            .hits
            .iter()
            .filter_map(|h| set.rules().get(h.rule).map(|r| r.id.clone()))
            .collect(),
        unchecked: verdict.unchecked,
    }
}

/// Spools the telemetry records this process holds (the package calls it
/// when the process exits; records are otherwise spooled every 500 ms).
#[napi(catch_unwind)]
pub fn flush_telemetry() {
    InProcess::flush_all();
}

/// The files each of these tool calls touched, one list per call (the core
/// decides: every agent's file keys, shell commands, patches); a shell
/// command's relative paths are taken from `cwd`.
#[napi(catch_unwind)]
pub fn touched_files(tools: Vec<AgentToolCall>, cwd: Option<String>) -> Vec<Vec<String>> {
    let cwd: Option<std::path::PathBuf> = cwd.map(Into::into);
    tools
        .into_iter()
        .map(|t| core::delivery::tool_files(&tool(t), cwd.as_deref()).all())
        .collect()
}

/// Whether the event could make anything due before the rules are loaded
/// (a tool event that touched no file and named no skill cannot).
#[napi(catch_unwind)]
pub fn event_may_matter(event: AgentEvent) -> Result<bool> {
    Ok(self::event(event)?.may_matter())
}

/// The keys of a tool call's input the core reads: `{ file, fileList, command, patch }`.
#[napi(object)]
pub struct ToolInputKeys {
    pub file: Vec<String>,
    pub file_list: Vec<String>,
    pub command: Vec<String>,
    pub patch: Vec<String>,
}

#[napi(catch_unwind)]
pub fn tool_input_keys() -> ToolInputKeys {
    let v = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect();
    ToolInputKeys {
        file: v(&core::delivery::FILE_KEYS),
        file_list: v(&core::delivery::FILE_LIST_KEYS),
        command: v(&core::delivery::COMMAND_KEYS),
        patch: v(&core::delivery::PATCH_KEYS),
    }
}
