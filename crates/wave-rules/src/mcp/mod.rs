//! `wave-rules mcp`: the rules and the memory of this package as an MCP
//! server over stdio, for every agent that speaks MCP (Cursor, Codex CLI,
//! VS Code, Gemini CLI, Claude Code, opencode, Zed, ...). Built on the
//! official Rust SDK (`rmcp`); one implementation, reached from the binary
//! and from `npx wave-rules mcp` through the addon.
//!
//! | tool | what it gives |
//! | --- | --- |
//! | `rules_for_files {paths, prompt?, again?}` | the rules these files (and words) activate, rendered as the package renders them within `--max-bytes` ([`DEFAULT_RULES_BYTES`](memory_rules::base::limits::DEFAULT_RULES_BYTES) by default); once per connection (a rule already given is named, not repeated, unless `again`); the always-on rules come with the first call |
//! | `read_rule {id}` | one rule's whole text (on-request and manual rules too); an unknown id is a tool error naming the closest ids |
//! | `list_rules {}` | id, source, scope, activation kind, description of every rule |
//! | `memory_read`, `memory_write`, `memory_search`, `memory_propose_rule` | the package's memory tools, the same runner (`memory::tools`), with this project's rules for the write's hygiene; a proposal is recorded on the entry for a person to accept (`wave-rules memory promote`) |
//!
//! Every rule is also a resource (`wave-rules://rule/<id>`). Before each
//! answer the rules are reloaded by stamp check (as `reload()`; on Linux only
//! after an inotify event on the rules directories, see `fresh`), so an edit
//! is seen by the next call; a poll every [`WATCH_INTERVAL`] sends
//! `notifications/resources/list_changed` when a rule file changed.
//!
//! Nothing but protocol messages is written to stdout; diagnostics (broken
//! rule files) go to stderr. Bad input never ends the server and is answered
//! as JSON-RPC 2.0 says, before the SDK sees it (`strict`): a line that is not
//! JSON gets a Parse error, well-formed JSON of the wrong shape an Invalid
//! Request error with `"id": null`, a batch is refused, a known method with
//! params of the wrong shape gets Invalid params; an unknown method is
//! Method not found, an unknown tool or resource a JSON-RPC error, wrong
//! argument values a tool error; then the next request is served.

// The WebAssembly build keeps `mcp install` and the pure helpers, not the
// server (see `serve`).
#![cfg_attr(target_family = "wasm", allow(dead_code, unused_imports))]

pub mod client_install;
mod fresh;
mod server_telemetry;
mod stdio;
pub mod strict;

#[cfg(not(target_family = "wasm"))]
use server_telemetry::ServerTelemetry;
pub(crate) use stdio::serve;

use crate::base::env::Env;
use memory_rules::delivery::read_rule_tool;
use memory_rules::delivery::Budget;
use memory_rules::delivery::Conversation;
use memory_rules::delivery::Event;
use memory_rules::delivery::EventKind;
use memory_rules::delivery::Memory;
use memory_rules::delivery::Responder;
use memory_rules::delivery::Session;
use memory_rules::memory::agent_memory::{self, AgentPlaces, MemorySources};
use memory_rules::memory::recall::RecallBudget;
use memory_rules::memory::{self as memory_tools, MemoryLocations, MemoryStore};
use memory_rules::{Activation, Loaded, Rule, RuleSet, Severity};
#[cfg(not(target_family = "wasm"))]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
#[cfg(not(target_family = "wasm"))]
use rmcp::service::{Peer, RequestContext, RoleServer};
#[cfg(not(target_family = "wasm"))]
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// The server's name in `initialize` and in the agents' settings.
pub const SERVER_NAME: &str = "wave-rules";
pub use memory_rules::base::limits::MAX_INSTRUCTIONS_BYTES;
pub use memory_rules::base::limits::MAX_PROMPT_BYTES;
use memory_rules::base::limits::MAX_REQUEST_PATHS;
pub use memory_rules::base::limits::WATCH_INTERVAL;
/// The URI of a rule: this prefix, then its id (percent-encoded).
pub const URI_PREFIX: &str = "wave-rules://rule/";

const TOOL_RULES_FOR_FILES: &str = "rules_for_files";
/// The conversation of this connection: a server serves one client for
/// its whole life, so one per process (`mcp-<pid>-<start, ms>`), which the
/// delivery log and telemetry name as its session unless the client gives
/// its own ([`Server::client_session`]).
#[cfg(not(target_family = "wasm"))]
fn connection_id() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("mcp-{}-{ms}", std::process::id())
}
const TOOL_LIST_RULES: &str = "list_rules";

/// One connection's server: the rules (reloaded by stamp), what this
/// connection was given, the memory store.
#[cfg(not(target_family = "wasm"))]
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

#[cfg(not(target_family = "wasm"))]
struct Inner {
    config: memory_rules::sources::Config,
    memory: MemoryStore,
    /// Whose memory recall and `memory_search` read: the project's
    /// `memory_sources` (ours only when it names an unknown one), and
    /// where the agents keep theirs.
    sources: MemorySources,
    places: AgentPlaces,
    /// Where deliveries are logged: the user's delivery log.
    log: memory_rules::delivery::delivery_log::DeliveryLog,
    /// This connection's own session id: one per server process.
    connection: String,
    /// Deliveries, recalls and notes written, as telemetry
    /// (`server_telemetry`).
    telemetry: ServerTelemetry,
    max_bytes: usize,
    state: Mutex<State>,
    peer: OnceLock<Peer<RoleServer>>,
}

#[cfg(not(target_family = "wasm"))]
struct State {
    loaded: Loaded,
    /// What this connection was given (the core's session).
    session: Session,
    instructions: String,
    /// Whether the rule files must be looked at again.
    fresh: fresh::Freshness,
    /// The session id the client gave in a request's `_meta` (the latest).
    client_session: Option<String>,
}

#[cfg(not(target_family = "wasm"))]
impl Server {
    pub(crate) fn new(env: &Env, max_bytes: usize) -> Server {
        let mut fresh = fresh::Freshness::new(&env.config);
        let loaded = memory_rules::load(&env.config);
        fresh.add_files(&loaded);
        report(&loaded);
        let instructions = instructions(&loaded.rules);
        let state = State {
            loaded,
            session: Session::new(),
            instructions,
            fresh,
            client_session: None,
        };
        Server {
            inner: Arc::new(Inner {
                config: env.config.clone(),
                memory: MemoryStore::new(MemoryLocations::new(
                    &env.home_dir(),
                    &env.config.workdir,
                )),
                sources: env.memory_sources(&[]).unwrap_or_else(|e| {
                    eprintln!("wave-rules mcp: {e}; our memory only");
                    MemorySources::default()
                }),
                places: env.agent_places(),
                log: memory_rules::delivery::delivery_log::DeliveryLog::for_home(&env.home_dir()),
                connection: connection_id(),
                telemetry: ServerTelemetry::new(env),
                max_bytes,
                state: Mutex::new(state),
                peer: OnceLock::new(),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the data usable.
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reloads by stamp check (after a file event, where files are
    /// watched); true when a rule or a diagnostic changed.
    fn refresh(&self) -> bool {
        let mut state = self.state();
        if !state.fresh.maybe_changed() {
            return false;
        }
        let mut fresh = fresh::Freshness::new(&self.inner.config);
        let reloaded = memory_rules::reload(&self.inner.config, &state.loaded);
        fresh.add_files(&reloaded.loaded);
        state.fresh = fresh;
        if !reloaded.changed {
            return false;
        }
        state.loaded = reloaded.loaded;
        report(&state.loaded);
        state.instructions = instructions(&state.loaded.rules);
        true
    }

    /// [`refresh`](Self::refresh), and on a change the list-changed
    /// notification.
    async fn refresh_and_notify(&self, peer: Option<&Peer<RoleServer>>) {
        if !self.refresh() {
            return;
        }
        if let Some(peer) = peer.or_else(|| self.inner.peer.get()) {
            if let Err(e) = peer.notify_resource_list_changed().await {
                eprintln!("wave-rules mcp: cannot send the list-changed notification: {e}");
            }
        }
    }

    fn rules(&self) -> Arc<RuleSet> {
        self.state().loaded.rules.clone()
    }

    /// Runs one tool: `Ok(text)` or `Err(text)` (a tool error).
    pub fn call(&self, name: &str, args: &Map<String, Value>) -> Option<Result<String, String>> {
        Some(match name {
            TOOL_RULES_FOR_FILES => self.rules_for_files(args),
            read_rule_tool::TOOL_NAME => self.read_rule(args),
            TOOL_LIST_RULES => Ok(list_rules(&self.rules())),
            "memory_read" | "memory_write" | "memory_search" | "memory_propose_rule" => {
                self.memory_tool(name, args)
            }
            _ => return None,
        })
    }

    /// One of the memory tools, through the core's runner; a note written
    /// is recorded as telemetry (`wave_rules.memory.written`).
    fn memory_tool(&self, name: &str, args: &Map<String, Value>) -> Result<String, String> {
        let rules = self.rules();
        let context = memory_tools::ToolContext {
            rules: Some(&rules),
            agent: Some("mcp"),
            session: None,
        };
        let input = Value::Object(args.clone());
        let answer = memory_tools::run_tool_with(&self.inner.memory, name, &input, &context);
        if let Some(w) = &answer.written {
            let session = self.conversation(&self.state()).session;
            let telemetry = &self.inner.telemetry.records;
            crate::telemetry::notes_written(telemetry, &[w], "mcp", Some(&session));
        }
        let text = answer.text;
        if text.starts_with("Error: ") {
            Err(text)
        } else if name == "memory_search" {
            Ok(self.with_agents(text, args))
        } else {
            Ok(text)
        }
    }

    /// This connection's conversation: the session id the client gave,
    /// else the connection's own.
    fn conversation(&self, state: &State) -> Conversation {
        let own = || self.inner.connection.clone();
        Conversation::new(state.client_session.clone().unwrap_or_else(own))
    }

    /// Keeps the session id a client gives in a request's `_meta`
    /// (`server_telemetry::client_session`): this connection's deliveries,
    /// recalls and notes carry it from then on.
    fn client_session(&self, meta: &JsonObject) {
        if let Some(id) = server_telemetry::client_session(meta) {
            self.state().client_session = Some(id);
        }
    }

    /// Spools the telemetry held since the last call (and at the `end`, the
    /// shipper started, what went wrong said on stderr).
    pub(crate) fn flush_telemetry(&self, end: Option<&mut crate::base::env::Output>) {
        let telemetry = &self.inner.telemetry;
        match end {
            None => telemetry.flush(None),
            Some(out) => {
                let session = self.conversation(&self.state()).session;
                telemetry.flush(Some((&session, out)));
            }
        }
    }

    /// `memory_search`'s answer (`ours`) with the hits of the agents'
    /// memories `memory_sources` names, read-only; without ours when it
    /// leaves `wave` out.
    fn with_agents(&self, ours: String, args: &Map<String, Value>) -> String {
        let sources = &self.inner.sources;
        let mut blocks = Vec::new();
        if sources.wave {
            blocks.push(ours);
        }
        if !sources.agents.is_empty() {
            let query = args.get("query").and_then(Value::as_str).unwrap_or("");
            let limit = args
                .get("limit")
                .and_then(Value::as_u64)
                .map_or(memory_tools::DEFAULT_SEARCH_LIMIT, |n| {
                    (n as usize).min(memory_rules::base::limits::MAX_SEARCH_LIMIT)
                });
            let agents = agent_memory::read(&sources.agents, &self.inner.places);
            for e in agents.search(query, limit) {
                blocks.push(format!(
                    "[{}] {} memory (read-only), topic '{}'\n{}\n",
                    e.origin(),
                    e.agent.as_str(),
                    e.topic,
                    e.text
                ));
            }
        }
        if blocks.is_empty() {
            return "No saved note matches in the memories memory_sources names.".to_string();
        }
        blocks.join("\n")
    }

    fn rules_for_files(&self, args: &Map<String, Value>) -> Result<String, String> {
        let paths: Vec<String> = match args.get("paths") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str().map(str::to_string).ok_or_else(|| {
                        format!("Error: every item of 'paths' must be a string, not {v}")
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(Value::String(s)) => vec![s.clone()],
            None | Some(Value::Null) => Vec::new(),
            Some(other) => {
                return Err(format!(
                    "Error: 'paths' must be an array of strings, not {other}"
                ))
            }
        };
        if paths.len() > MAX_REQUEST_PATHS {
            return Err(format!(
                "Error: {} paths, over the limit of {MAX_REQUEST_PATHS} in one call",
                paths.len()
            ));
        }
        let prompt = match args.get("prompt") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.len() > MAX_PROMPT_BYTES => {
                return Err(format!(
                    "Error: 'prompt' is {} bytes, over the limit of {MAX_PROMPT_BYTES}",
                    s.len()
                ))
            }
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => return Err(format!("Error: 'prompt' must be a string, not {other}")),
        };
        let again = match args.get("again") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(format!("Error: 'again' must be true or false, not {other}"))
            }
        };
        let mut state = self.state();
        let set = state.loaded.rules.clone();
        let budget = Budget {
            max_lines: None,
            max_bytes: Some(self.inner.max_bytes),
            keep_order: true,
        };
        // The memory due with it: the index at the first call, then the
        // entries relevant to the prompt and tied to the files.
        let responder = Responder::new(&set, &self.inner.config.workdir)
            .budget(budget)
            .log(Some(self.inner.log.clone()))
            .telemetry(&self.inner.telemetry.records)
            .memory(Memory::Recall(
                self.inner.memory.locations().clone(),
                RecallBudget::default(),
            ))
            .memory_sources(self.inner.sources.clone(), self.inner.places.clone());
        let mut event = Event::new(self.conversation(&state), EventKind::Request { again })
            .agent("mcp")
            .files(paths);
        event.prompt = prompt.map(str::to_string);
        let answer = responder.respond(&mut state.session, &event);
        let mut blocks = Vec::new();
        if !answer.text.is_empty() {
            blocks.push(answer.text.clone());
        }
        if !answer.given.is_empty() {
            blocks.push(format!(
                "(already given in this session, not repeated: {}; call {TOOL_RULES_FOR_FILES} with again: true if they are no longer in your context)",
                answer.given.join(", ")
            ));
        }
        if !answer.offer.is_empty() {
            blocks.push(answer.offer.trim_end().to_string());
        }
        if !answer.outside.is_empty() {
            blocks.push(format!(
                "(outside the project, no rules read for: {})",
                answer.outside.join(", ")
            ));
        }
        if blocks.is_empty() {
            blocks.push("No rules apply to these files.".to_string());
        }
        // The answer goes back to the client as the tool's result: delivered.
        responder.commit(&mut state.session, &answer);
        Ok(blocks.join("\n\n"))
    }

    fn read_rule(&self, args: &Map<String, Value>) -> Result<String, String> {
        let set = self.rules();
        let id = match args.get("id") {
            Some(Value::String(s)) => s.trim(),
            Some(other) => return Err(format!("Error: 'id' must be a string, not {other}")),
            None => return Err(format!("Error: {} needs 'id'", read_rule_tool::TOOL_NAME)),
        };
        let Some(rule) = set.find(id) else {
            return Err(unknown_rule(&set, id));
        };
        let text = read_rule_tool::run(&set, &json!({ "id": id }));
        // The rule's text goes back as the tool's result: delivered.
        let mut state = self.state();
        let responder = Responder::new(&set, &self.inner.config.workdir)
            .log(Some(self.inner.log.clone()))
            .telemetry(&self.inner.telemetry.records);
        let id = rule.id.clone();
        let conversation = self.conversation(&state);
        responder.commit_read(&mut state.session, &conversation, "mcp", &id);
        Ok(text)
    }
}

/// The error for an id that is not a rule, naming the closest ids.
fn unknown_rule(set: &RuleSet, id: &str) -> String {
    let close = closest_ids(set, id, 5);
    if close.is_empty() {
        format!("Error: no rule '{id}'; there are no rules (see {TOOL_LIST_RULES})")
    } else {
        format!(
            "Error: no rule '{id}'; the closest ids are: {} (see {TOOL_LIST_RULES} for all)",
            close.join(", ")
        )
    }
}

/// Up to `n` ids closest to `wanted`: those containing it (or its base name)
/// first, then by edit distance (the core's `suggest::distance`).
pub fn closest_ids(set: &RuleSet, wanted: &str, n: usize) -> Vec<String> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(usize, &str)> = set
        .rules()
        .iter()
        .map(|r| {
            let id = r.id.to_lowercase();
            let base = id.rsplit(['/', ':']).next().unwrap_or(&id).to_string();
            let stem = base.rsplit_once('.').map_or(base.as_str(), |(s, _)| s);
            let score = if !wanted.is_empty() && (id.contains(&wanted) || wanted.contains(stem)) {
                0
            } else {
                1 + edit_distance(&wanted, &id)
                    .min(edit_distance(&wanted, &base))
                    .min(edit_distance(&wanted, stem))
            };
            (score, r.id.as_str())
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(n)
        .map(|(_, id)| id.to_string())
        .collect()
}

/// The core's "did you mean" distance; an id too long to compare ranks
/// last.
fn edit_distance(a: &str, b: &str) -> usize {
    memory_rules::base::suggest::distance(a, b).unwrap_or(usize::MAX / 2)
}

/// `always`, `on-request`, `manual`, or what fires it (`paths`, `topics`,
/// `regex`, joined with `+`).
pub fn activation_kind(rule: &Rule) -> String {
    rule.metadata.activation_kind()
}

/// The rule's description, or its first line.
fn describe(rule: &Rule) -> String {
    let d = rule
        .metadata
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    let text = d.unwrap_or_else(|| {
        rule.content
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
    });
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > read_rule_tool::MAX_DESCRIPTION_CHARS {
        format!(
            "{}...",
            one.chars()
                .take(read_rule_tool::MAX_DESCRIPTION_CHARS - 3)
                .collect::<String>()
        )
    } else {
        one
    }
}

/// `list_rules`: a JSON array, one object per rule.
pub fn list_rules(set: &RuleSet) -> String {
    let items: Vec<Value> = set
        .rules()
        .iter()
        .map(|r| {
            let mut v = json!({
                "id": r.id,
                "source": r.format.as_str(),
                "scope": r.scope.as_str(),
                "activation": activation_kind(r),
                "description": describe(r),
                "uri": rule_uri(&r.id),
            });
            crate::base::display::origin_json(r, &mut v);
            v
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into())
}

/// The server's instructions: when to call which tool, and the rules
/// available on request by id; under [`MAX_INSTRUCTIONS_BYTES`].
pub fn instructions(set: &RuleSet) -> String {
    let mut text = format!(
        "This server holds the project's rules and memory. Before you read, edit or create a file, call {TOOL_RULES_FOR_FILES} with its paths \
         (and the user's request as prompt) and follow the rules it returns; each rule comes once per session (again: true after your context was compacted). \
         When the user names a rule or topic, or a rule below fits the task, call read_rule with its id; list_rules lists every rule. \
         Saved notes relevant to your files and request come with those answers; call memory_search to look for others, memory_read for a topic, \
         memory_write to save what later sessions should know, and memory_propose_rule to propose that a person turn a note into a rule."
    );
    let offered: Vec<&Rule> = set
        .rules()
        .iter()
        .filter(|r| r.metadata.activation == Activation::OnRequest)
        .collect();
    if offered.is_empty() {
        return text;
    }
    text.push_str(" Rules on request:");
    for (i, r) in offered.iter().enumerate() {
        let item = format!(" {} ({});", r.id, describe(r));
        let rest = offered.len() - i - 1;
        let tail = if rest == 0 { 0 } else { 40 };
        if text.len() + item.len() + tail > MAX_INSTRUCTIONS_BYTES {
            let short = format!(" {};", r.id);
            if text.len() + short.len() + tail <= MAX_INSTRUCTIONS_BYTES {
                text.push_str(&short);
                continue;
            }
            text.push_str(&format!(" and {} more (list_rules).", offered.len() - i));
            return text;
        }
        text.push_str(&item);
    }
    text.pop();
    text.push('.');
    text
}

/// `wave-rules://rule/<id>`, the id percent-encoded but for `/`.
pub fn rule_uri(id: &str) -> String {
    let mut uri = String::from(URI_PREFIX);
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The id of a rule URI.
pub fn uri_rule_id(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(URI_PREFIX)?.as_bytes();
    let mut out = Vec::with_capacity(rest.len());
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == b'%' {
            let hex = std::str::from_utf8(rest.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(rest[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// One line on stderr per broken rule file.
fn report(loaded: &Loaded) {
    for d in loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
    {
        eprintln!(
            "wave-rules mcp: skipped {}{}: {}",
            d.file_path,
            d.position(),
            d.message
        );
    }
}

#[cfg(not(target_family = "wasm"))]
fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The tools, in the order listed.
#[cfg(not(target_family = "wasm"))]
pub fn tools() -> Vec<Tool> {
    let mut tools = vec![
        Tool::new(
            TOOL_RULES_FOR_FILES,
            "Call this before you read, edit or create files: it returns the project rules for those files (and for the user's request, when you pass it as prompt). \
             Follow the rules it returns. A rule already returned in this session is named, not repeated; pass again: true after your context was compacted.",
            schema(json!({
                "type": "object",
                "properties": {
                    "paths": { "type": "array", "items": { "type": "string" }, "description": "The files you are about to read, edit or create (relative to the project root, or absolute)." },
                    "prompt": { "type": "string", "description": "The user's request, for rules that fire on its words or name a rule (@id)." },
                    "again": { "type": "boolean", "description": "Return the rules even if this session was already given them. Default: false." }
                },
                "required": ["paths"],
                "additionalProperties": false
            })),
        ),
    ];
    let rr = read_rule_tool::tool_definition();
    tools.push(Tool::new(
        read_rule_tool::TOOL_NAME,
        "Read one project rule's whole text by id: a rule offered on request whose description fits the task, a rule the user names, or any id from list_rules.",
        schema(rr["parameters"].clone()),
    ));
    tools.push(Tool::new(
        TOOL_LIST_RULES,
        "List every project rule: id, source, scope, how it activates, description.",
        schema(json!({ "type": "object", "properties": {}, "additionalProperties": false })),
    ));
    if let Value::Array(defs) = memory_tools::tool_definitions() {
        for d in defs {
            let name = d["name"].as_str().unwrap_or_default().to_string();
            let description = d["description"].as_str().unwrap_or_default().to_string();
            tools.push(Tool::new(
                name,
                description,
                schema(d["parameters"].clone()),
            ));
        }
    }
    // Hints for the clients' permission prompts: only memory_write and
    // memory_propose_rule write (to memory), and nothing reaches outside
    // this project and home.
    for t in &mut tools {
        let writes = t.name == "memory_write" || t.name == "memory_propose_rule";
        t.annotations = Some(
            ToolAnnotations::new()
                .read_only(!writes)
                .destructive(false)
                .idempotent(!writes)
                .open_world(false),
        );
    }
    tools
}

#[cfg(not(target_family = "wasm"))]
fn text_result(result: Result<String, String>) -> CallToolResult {
    match result {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
    }
}

#[cfg(not(target_family = "wasm"))]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions(self.state().instructions.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.refresh_and_notify(Some(&context.peer)).await;
        self.client_session(&context.meta.0 .0);
        let args = request.arguments.unwrap_or_default();
        match self.call(&request.name, &args) {
            Some(result) => Ok(text_result(result).into()),
            None => {
                let names: Vec<String> = tools().into_iter().map(|t| t.name.into_owned()).collect();
                Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool '{}'; the tools are: {}",
                        request.name,
                        names.join(", ")
                    ),
                    None,
                ))
            }
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.refresh_and_notify(Some(&context.peer)).await;
        let set = self.rules();
        let resources = set
            .rules()
            .iter()
            .map(|r| {
                Resource::new(rule_uri(&r.id), r.id.clone())
                    .with_description(format!(
                        "{} ({}, {} rule)",
                        describe(r),
                        activation_kind(r),
                        r.format.as_str()
                    ))
                    .with_mime_type("text/markdown")
                    .with_size(r.content.len() as u64)
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.refresh_and_notify(Some(&context.peer)).await;
        let set = self.rules();
        let Some(id) = uri_rule_id(&request.uri) else {
            return Err(ErrorData::resource_not_found(
                format!("'{}' is not a rule URI ({URI_PREFIX}<id>)", request.uri),
                None,
            ));
        };
        match set.find(&id) {
            Some(rule) => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                rule.content.to_string(),
                request.uri,
            )
            .with_mime_type("text/markdown")])
            .into()),
            None => Err(ErrorData::resource_not_found(
                unknown_rule(&set, &id)
                    .trim_start_matches("Error: ")
                    .to_string(),
                None,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip() {
        for id in [
            "a.md",
            "frontend/react.md",
            "cursor:frontend.mdc",
            "é x%.md",
        ] {
            let uri = rule_uri(id);
            assert!(!uri[URI_PREFIX.len()..].contains(':'), "{uri}");
            assert_eq!(uri_rule_id(&uri).as_deref(), Some(id));
        }
        assert_eq!(uri_rule_id("file:///a.md"), None);
        assert_eq!(uri_rule_id("wave-rules://rule/%zz"), None);
    }

    fn rules(files: &[(String, String)]) -> (tempfile::TempDir, memory_rules::Loaded) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let file = dir.path().join(rel);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let formats =
            memory_rules::formats_named(&["wave".to_string(), "cursor".to_string()]).unwrap();
        let loaded = memory_rules::load(&memory_rules::sources::Config::named(
            dir.path(),
            dir.path().join("home"),
            &formats,
        ));
        (dir, loaded)
    }

    #[test]
    fn list_rules_says_where_each_rule_came_from_and_what_it_replaced() {
        let (_d, loaded) = rules(&[
            (".wave/config.toml".into(), "packs = [\"./team\"]\n".into()),
            ("team/rules/a.md".into(), "Team A.".into()),
            ("team/rules/b.md".into(), "Team B.".into()),
            (".wave/rules/b.md".into(), "Ours.".into()),
        ]);
        let list: Value = serde_json::from_str(&list_rules(&loaded.rules)).unwrap();
        let by = |id: &str| {
            list.as_array()
                .unwrap()
                .iter()
                .find(|r| r["id"] == id)
                .unwrap()
                .clone()
        };
        assert_eq!(by("a.md")["provenance"], "./team:a.md");
        assert_eq!(by("a.md")["layer"], "pack");
        assert_eq!(by("b.md")["provenance"], "project:.wave/rules/b.md");
        assert_eq!(by("b.md")["overrides"][0], "./team:b.md");
    }

    #[test]
    fn instructions_stay_under_the_cut_and_name_what_they_leave_out() {
        let many: Vec<(String, String)> = (0..150)
            .map(|i| (format!(".cursor/rules/r{i:03}.mdc"), format!("---\ndescription: When you touch area {i} of the billing system, with its many special cases\n---\nBody {i}.\n")))
            .collect();
        let (_d, loaded) = rules(&many);
        let text = instructions(&loaded.rules);
        assert!(text.len() < 2048, "{} bytes", text.len());
        assert!(
            text.contains("cursor:r000.mdc (When you touch area 0"),
            "{text}"
        );
        assert!(text.ends_with("more (list_rules)."), "{text}");
        let (_d, loaded) = rules(&many[..2]);
        let text = instructions(&loaded.rules);
        assert!(text.ends_with("cursor:r001.mdc (When you touch area 1 of the billing system, with its many special cases)."), "{text}");
        let (_d, loaded) = rules(&[]);
        assert!(!instructions(&loaded.rules).contains("Rules on request"));
    }

    #[test]
    fn closest_ids_prefer_containment_then_edit_distance() {
        let (_d, loaded) = rules(&[
            (".wave/rules/deploy.md".into(), "Deploy.".into()),
            (".wave/rules/testing.md".into(), "Test.".into()),
            (
                ".cursor/rules/frontend.mdc".into(),
                "---\ndescription: UI\n---\nUI.".into(),
            ),
        ]);
        assert_eq!(closest_ids(&loaded.rules, "deploi", 1), ["deploy.md"]);
        assert_eq!(
            closest_ids(&loaded.rules, "frontend", 1),
            ["cursor:frontend.mdc"]
        );
        assert_eq!(closest_ids(&loaded.rules, "x", 5).len(), 3);
    }
}
