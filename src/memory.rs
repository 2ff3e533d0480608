//! Memory topics: the core's `MemoryStore`, every operation an `AsyncTask`.

use memory_rules as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

use core::memory::{MemoryLocations, MemoryScope, WriteMode};
use std::sync::Arc;

/// A note to write (`writeNote`).
#[napi(object)]
pub struct NoteInput {
    /// `project` (default) or `user`.
    pub scope: Option<String>,
    pub topic: String,
    pub text: String,
    /// Make it the topic's only note.
    pub replace: Option<bool>,
    /// Globs of the files it is about.
    pub paths: Option<Vec<String>>,
    /// Keywords it is about.
    pub topics: Option<Vec<String>>,
    /// Given at every session start.
    pub pinned: Option<bool>,
    /// Who writes (an agent's name) and in which conversation.
    pub agent: Option<String>,
    pub session: Option<String>,
}

/// A note another entry or a rule conflicts with (`writeNote`).
#[napi(object)]
pub struct MemoryConflict {
    /// The other entry's id, or none for a rule.
    pub entry: Option<String>,
    /// The rule's id, or none for an entry.
    pub rule: Option<String>,
    /// `command`, `version`, `number`, `address`, `account`, `flag`, `path`, `setting` or `polarity`.
    pub kind: String,
    /// This note's values of that kind, and the other side's.
    pub ours: Vec<String>,
    pub theirs: Vec<String>,
    /// The other side's text.
    pub text: String,
    /// The shared subject: the heaviest words both say, values aside.
    pub shared: Vec<String>,
}

/// A rule part a stored note may restate.
#[napi(object)]
pub struct MemoryRestatement {
    pub rule: String,
    /// The rule's part.
    pub text: String,
    /// The heaviest words both say.
    pub shared: Vec<String>,
}

/// The answer to `writeNote`.
#[napi(object)]
pub struct WriteAnswer {
    /// `stored`, `replaced`, `folded`, `restated` or `refused`.
    pub action: String,
    /// The entry (new, or the one it was folded into).
    pub id: Option<String>,
    pub scope: String,
    pub topic: String,
    pub file: String,
    /// The name given, when the topic existed under another name.
    pub respelled: Option<String>,
    /// The rule it restates (not stored: the note says nothing of its own).
    pub rule: Option<String>,
    /// The rule it may restate, in words of its own (stored all the same): to read, with the evidence.
    pub possible_restatement: Option<MemoryRestatement>,
    /// The conflicts flagged (precise: the same sentence with another value, or a denial of one subject).
    pub conflicts: Vec<MemoryConflict>,
    /// Conflicts found but not flagged (perhaps another fact of the same subject): to read, with their evidence.
    pub possible_conflicts: Vec<MemoryConflict>,
    /// The entries of its scope it supersedes (a newer value of the same fact).
    pub supersedes: Vec<String>,
    /// The gitleaks rule that found a credential.
    pub credential: Option<String>,
    /// One paragraph saying what happened.
    pub message: String,
}

/// An entry found by `search`.
#[napi(object)]
pub struct MemoryHit {
    pub id: String,
    pub scope: String,
    pub topic: String,
    pub file: String,
    pub line: u32,
    pub title: String,
    pub text: String,
    /// BM25 plus file affinity.
    pub score: f64,
    pub bm25: f64,
    /// 0 to 1: how close it is to the files in context.
    pub affinity: f64,
    /// The file in context it is tied to, and how.
    pub tie_file: Option<String>,
    pub tie_how: Option<String>,
    /// The query's words it holds (folded and stemmed).
    pub matched: Vec<String>,
    /// Seconds since the epoch of its last update.
    pub updated: i64,
    pub pinned: bool,
}

/// A finding of `lint`.
#[napi(object)]
pub struct MemoryFinding {
    /// `duplicate`, `restates-rule`, `possible-restatement` (not a problem), `conflict`, `possible-conflict` (not a problem), `superseded`, `missing-file`, `broken-entry`, `topic-too-large`, `proposed`.
    pub kind: String,
    /// False for `proposed` (information, not a problem).
    pub problem: bool,
    pub scope: String,
    pub file: String,
    pub line: u32,
    pub id: Option<String>,
    pub other: Option<String>,
    pub message: String,
}

pub(crate) fn hit_to_js(h: &core::memory::MemoryHit) -> MemoryHit {
    MemoryHit {
        id: h.id.clone(),
        scope: h.scope.as_str().into(),
        topic: h.topic.clone(),
        file: h.file.clone(),
        line: h.line as u32,
        title: h.title.clone(),
        text: h.text.clone(),
        score: h.score as f64,
        bm25: h.bm25 as f64,
        affinity: h.affinity as f64,
        tie_file: h.tie.as_ref().map(|t| t.0.clone()),
        tie_how: h.tie.as_ref().map(|t| t.1.clone()),
        matched: h.matched.clone(),
        updated: h.updated,
        pinned: h.pinned,
    }
}

fn conflict_to_js(c: core::memory::NoteConflict) -> MemoryConflict {
    use core::memory::Other;
    let (entry, rule) = match c.with {
        Other::Entry { id, .. } => (Some(id), None),
        Other::Rule { id } => (None, Some(id)),
    };
    MemoryConflict {
        entry,
        rule,
        kind: c.clash.kind.as_str().into(),
        ours: c.clash.ours,
        theirs: c.clash.theirs,
        text: c.text,
        shared: c.shared,
    }
}

fn written_to_js(w: core::memory::NoteWritten) -> WriteAnswer {
    WriteAnswer {
        action: w.action.as_str().into(),
        message: w.message(),
        id: w.id,
        scope: w.scope.as_str().into(),
        topic: w.topic,
        file: w.file,
        respelled: w.respelled,
        rule: w.rule,
        possible_restatement: w.possible_restatement.map(|r| MemoryRestatement {
            rule: r.rule,
            text: r.text,
            shared: r.shared,
        }),
        supersedes: w.supersedes,
        conflicts: w.conflicts.into_iter().map(conflict_to_js).collect(),
        possible_conflicts: w
            .possible_conflicts
            .into_iter()
            .map(conflict_to_js)
            .collect(),
        credential: w.credential.map(|f| f.rule),
    }
}

/// An entry `forget` removed, or `promote` made a rule of.
#[napi(object)]
pub struct EntryMoved {
    pub id: String,
    pub scope: String,
    pub topic: String,
    /// The entry's text.
    pub text: String,
    /// `promote`: the rule file written, its paths and topics.
    pub rule_file: Option<String>,
    pub paths: Vec<String>,
    pub topics: Vec<String>,
}

/// How `promote` makes the rule.
#[napi(object)]
pub struct PromoteInput {
    /// The directory of the new rule file (the package passes the project's `.wave/rules`).
    pub rules_dir: String,
    pub paths: Option<Vec<String>>,
    pub topics: Option<Vec<String>>,
}

#[napi(object, js_name = "NativeMemoryStoreOptions")]
pub struct MemoryStoreOptions {
    /// The project root (its canonical path names the project's memory).
    pub workdir: String,
    pub home_dir: String,
    /// Overrides `<homeDir>/.wave/memory`.
    pub user_dir: Option<String>,
    /// Overrides `<homeDir>/.wave/projects/<hash>/memory`.
    pub project_dir: Option<String>,
}

#[napi(object)]
pub struct TopicEntry {
    /// The name the topic was first written under.
    pub name: String,
    /// Its file in the scope's directory.
    pub file: String,
}

fn scope(s: &str) -> Result<MemoryScope> {
    MemoryScope::parse(s).ok_or_else(|| {
        Error::new(
            Status::InvalidArg,
            format!("scope must be 'user' or 'project', not '{s}'"),
        )
    })
}

fn memory_err(e: core::memory::MemoryError) -> Error {
    Error::from_reason(e.to_string())
}

/// One memory operation, run on the libuv pool: a write may wait for another
/// process's lock (up to the core's timeout), which must never block the
/// event loop.
pub enum MemoryOp {
    ReadIndex(MemoryScope),
    ReadTopic(MemoryScope, String),
    WriteTopic(MemoryScope, String, String, WriteMode),
    ListTopics(MemoryScope),
    RemoveTopic(MemoryScope, String),
    Clear(MemoryScope),
    LoadForPrompt(usize, usize),
    RunTool(String, serde_json::Value),
    WriteNote(NoteInput, Option<Arc<core::RuleSet>>),
    Search(String, Vec<String>, usize),
    Lint(Option<Arc<core::RuleSet>>, String),
    Forget(String),
    Promote(String, PromoteInput),
}

pub struct MemoryTask {
    store: core::memory::MemoryStore,
    op: Option<MemoryOp>,
}

/// Text, the topic list (`listTopics`), or an answer.
pub enum MemoryOut {
    Text(String),
    Topics(Vec<TopicEntry>),
    Moved(EntryMoved),
    Written(WriteAnswer),
    Hits(Vec<MemoryHit>),
    Findings(Vec<MemoryFinding>),
}

impl MemoryOp {
    /// Runs the operation against `store` (on the libuv pool).
    fn run(self, store: &core::memory::MemoryStore) -> Result<MemoryOut> {
        use MemoryOut::Text;
        Ok(match self {
            MemoryOp::ReadIndex(s) => Text(store.read_index(s).map_err(memory_err)?),
            MemoryOp::ReadTopic(s, t) => Text(store.read_topic(s, &t).map_err(memory_err)?),
            MemoryOp::WriteTopic(s, t, c, m) => {
                Text(store.write_topic(s, &t, &c, m).map_err(memory_err)?)
            }
            MemoryOp::ListTopics(s) => {
                let topics = store.list_topics(s).map_err(memory_err)?;
                MemoryOut::Topics(
                    topics
                        .into_iter()
                        .map(|t| TopicEntry {
                            name: t.name,
                            file: t.file,
                        })
                        .collect(),
                )
            }
            MemoryOp::RemoveTopic(s, t) => {
                store.remove_topic(s, &t).map_err(memory_err)?;
                Text(String::new())
            }
            MemoryOp::Clear(s) => {
                store.clear(s).map_err(memory_err)?;
                Text(String::new())
            }
            MemoryOp::LoadForPrompt(lines, bytes) => {
                Text(store.load_for_prompt_within(lines, bytes))
            }
            MemoryOp::RunTool(name, input) => Text(core::memory::run_tool(store, &name, &input)),
            MemoryOp::WriteNote(n, rules) => write_note(store, n, rules)?,
            MemoryOp::Search(query, files, limit) => {
                let index = core::memory::MemoryIndex::open(store);
                let hits = core::memory::search_current(
                    &index,
                    &core::memory::Query {
                        text: &query,
                        files: &files,
                        limit,
                    },
                    &|_| false,
                );
                MemoryOut::Hits(hits.iter().map(hit_to_js).collect())
            }
            MemoryOp::Lint(rules, workdir) => lint(store, rules, workdir)?,
            MemoryOp::Forget(id) => forget(store, id)?,
            MemoryOp::Promote(id, how) => promote(store, id, how)?,
        })
    }
}

fn write_note(
    store: &core::memory::MemoryStore,
    n: NoteInput,
    rules: Option<Arc<core::RuleSet>>,
) -> Result<MemoryOut> {
    let scope = scope(n.scope.as_deref().unwrap_or("project"))?;
    let mut note = core::memory::Note::new(scope, &n.topic, &n.text);
    note.replace = n.replace.unwrap_or(false);
    note.paths = n.paths.unwrap_or_default();
    note.topics = n.topics.unwrap_or_default();
    note.pinned = n.pinned.unwrap_or(false);
    note.agent = n.agent;
    note.session = n.session;
    let written = store
        .write_note(&note, rules.as_deref())
        .map_err(memory_err)?;
    Ok(MemoryOut::Written(written_to_js(written)))
}

fn lint(
    store: &core::memory::MemoryStore,
    rules: Option<Arc<core::RuleSet>>,
    workdir: String,
) -> Result<MemoryOut> {
    let findings =
        core::memory::lint::lint(store, rules.as_deref(), std::path::Path::new(&workdir));
    Ok(MemoryOut::Findings(
        findings
            .into_iter()
            .map(|f| MemoryFinding {
                kind: f.kind.as_str().into(),
                problem: f.kind.is_problem(),
                scope: f.scope.as_str().into(),
                file: f.file,
                line: f.line as u32,
                id: f.id,
                other: f.other,
                message: f.message,
            })
            .collect(),
    ))
}

fn forget(store: &core::memory::MemoryStore, id: String) -> Result<MemoryOut> {
    let f = store.forget(&id).map_err(memory_err)?;
    Ok(MemoryOut::Moved(EntryMoved {
        id: f.entry.meta.id,
        scope: f.scope.as_str().into(),
        topic: f.topic,
        text: f.entry.text,
        rule_file: None,
        paths: f.entry.meta.paths,
        topics: f.entry.meta.topics,
    }))
}

fn promote(store: &core::memory::MemoryStore, id: String, how: PromoteInput) -> Result<MemoryOut> {
    let p = core::memory::promote::promote(
        store,
        &id,
        std::path::Path::new(&how.rules_dir),
        &core::memory::promote::Promotion {
            paths: how.paths.unwrap_or_default(),
            topics: how.topics.unwrap_or_default(),
        },
    )
    .map_err(memory_err)?;
    Ok(MemoryOut::Moved(EntryMoved {
        id: p.id,
        scope: p.scope.as_str().into(),
        topic: p.topic,
        text: String::new(),
        rule_file: Some(p.rule_file.to_string_lossy().into_owned()),
        paths: p.paths,
        topics: p.topics,
    }))
}

impl Task for MemoryTask {
    type Output = MemoryOut;
    type JsValue = Either6<
        String,
        Vec<TopicEntry>,
        EntryMoved,
        WriteAnswer,
        Vec<MemoryHit>,
        Vec<MemoryFinding>,
    >;

    fn compute(&mut self) -> Result<Self::Output> {
        let op = self
            .op
            .take()
            .ok_or_else(|| Error::from_reason("memory task run twice"))?;
        let store = &self.store;
        catch_unwind(AssertUnwindSafe(|| op.run(store)))
            .map_err(|_| Error::from_reason("memory: unexpected internal error (a bug)"))?
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(match output {
            MemoryOut::Text(t) => Either6::A(t),
            MemoryOut::Topics(t) => Either6::B(t),
            MemoryOut::Moved(v) => Either6::C(v),
            MemoryOut::Written(w) => Either6::D(w),
            MemoryOut::Hits(h) => Either6::E(h),
            MemoryOut::Findings(f) => Either6::F(f),
        })
    }
}

/// User and project memory topics (see the core's `memory` module). Every
/// operation runs off the main thread and returns a promise.
/// (`NativeMemoryStore` in JS: the package's `MemoryStore` wraps it with defaults.)
#[napi(js_name = "NativeMemoryStore")]
pub struct JsMemoryStore {
    inner: core::memory::MemoryStore,
}

#[napi]
impl JsMemoryStore {
    #[napi(constructor)]
    pub fn new(options: MemoryStoreOptions) -> Self {
        let mut locations =
            MemoryLocations::new(options.home_dir.as_ref(), options.workdir.as_ref());
        if let Some(dir) = options.user_dir {
            locations.user_dir = dir.into();
        }
        if let Some(dir) = options.project_dir {
            locations.project_dir = dir.into();
        }
        JsMemoryStore {
            inner: core::memory::MemoryStore::new(locations),
        }
    }

    #[napi(getter)]
    pub fn user_dir(&self) -> String {
        self.inner
            .locations()
            .user_dir
            .to_string_lossy()
            .into_owned()
    }

    #[napi(getter)]
    pub fn project_dir(&self) -> String {
        self.inner
            .locations()
            .project_dir
            .to_string_lossy()
            .into_owned()
    }

    fn task(&self, op: MemoryOp) -> AsyncTask<MemoryTask> {
        AsyncTask::new(MemoryTask {
            store: self.inner.clone(),
            op: Some(op),
        })
    }

    /// The index text of a scope; empty when it has none.
    #[napi(
        ts_args_type = "scope: 'user' | 'project'",
        ts_return_type = "Promise<string>"
    )]
    pub fn read_index(&self, scope_name: String) -> Result<AsyncTask<MemoryTask>> {
        Ok(self.task(MemoryOp::ReadIndex(scope(&scope_name)?)))
    }

    /// A topic's content; rejects with an error naming an unknown topic.
    #[napi(
        ts_args_type = "scope: 'user' | 'project', topic: string",
        ts_return_type = "Promise<string>"
    )]
    pub fn read_topic(&self, scope_name: String, topic: String) -> Result<AsyncTask<MemoryTask>> {
        Ok(self.task(MemoryOp::ReadTopic(scope(&scope_name)?, topic)))
    }

    /// Appends (default) or replaces a topic and updates the index; resolves to the file name.
    #[napi(
        ts_args_type = "scope: 'user' | 'project', topic: string, content: string, mode?: 'append' | 'replace'",
        ts_return_type = "Promise<string>"
    )]
    pub fn write_topic(
        &self,
        scope_name: String,
        topic: String,
        content: String,
        mode: Option<String>,
    ) -> Result<AsyncTask<MemoryTask>> {
        let mode = match mode.as_deref() {
            None | Some("append") => WriteMode::Append,
            Some("replace") => WriteMode::Replace,
            Some(other) => {
                return Err(Error::new(
                    Status::InvalidArg,
                    format!("mode must be 'append' or 'replace', not '{other}'"),
                ))
            }
        };
        Ok(self.task(MemoryOp::WriteTopic(
            scope(&scope_name)?,
            topic,
            content,
            mode,
        )))
    }

    /// The topics of a scope, sorted by file.
    #[napi(
        ts_args_type = "scope: 'user' | 'project'",
        ts_return_type = "Promise<Array<TopicEntry>>"
    )]
    pub fn list_topics(&self, scope_name: String) -> Result<AsyncTask<MemoryTask>> {
        Ok(self.task(MemoryOp::ListTopics(scope(&scope_name)?)))
    }

    /// Deletes a topic and its index line; rejects for an unknown topic.
    #[napi(
        ts_args_type = "scope: 'user' | 'project', topic: string",
        ts_return_type = "Promise<void>"
    )]
    pub fn remove_topic(&self, scope_name: String, topic: String) -> Result<AsyncTask<MemoryTask>> {
        Ok(self.task(MemoryOp::RemoveTopic(scope(&scope_name)?, topic)))
    }

    /// Deletes every topic of a scope and its index.
    #[napi(
        ts_args_type = "scope: 'user' | 'project'",
        ts_return_type = "Promise<void>"
    )]
    pub fn clear(&self, scope_name: String) -> Result<AsyncTask<MemoryTask>> {
        Ok(self.task(MemoryOp::Clear(scope(&scope_name)?)))
    }

    /// Memory text for the prompt within `maxLines` and `maxBytes` (user memory at most half).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn load_for_prompt(&self, max_lines: u32, max_bytes: Option<u32>) -> AsyncTask<MemoryTask> {
        let bytes = max_bytes.map_or(core::base::limits::DEFAULT_MEMORY_PROMPT_BYTES, |b| {
            b as usize
        });
        self.task(MemoryOp::LoadForPrompt(max_lines as usize, bytes))
    }

    /// Writes a note with hygiene (duplicates folded, credentials refused,
    /// a note a rule of `engine` says not stored, conflicts flagged);
    /// resolves to the answer (`action`, `id`, `message`, ...).
    #[napi(ts_return_type = "Promise<WriteAnswer>")]
    pub fn write_note(
        &self,
        note: NoteInput,
        engine: Option<&crate::engine::RuleEngine>,
    ) -> AsyncTask<MemoryTask> {
        self.task(MemoryOp::WriteNote(note, engine.map(|e| e.rule_set())))
    }

    /// The entries of both scopes most relevant to `query` and the files in
    /// context (workdir-relative), best first.
    #[napi(ts_return_type = "Promise<Array<MemoryHit>>")]
    pub fn search(
        &self,
        query: String,
        files: Option<Vec<String>>,
        limit: Option<u32>,
    ) -> AsyncTask<MemoryTask> {
        self.task(MemoryOp::Search(
            query,
            files.unwrap_or_default(),
            limit.map_or(10, |n| n as usize),
        ))
    }

    /// `memory lint`: duplicates, notes that restate or contradict the
    /// rules of `engine` or each other, files named that no longer exist
    /// (under `workdir`), topics too large, pending proposals.
    #[napi(ts_return_type = "Promise<Array<MemoryFinding>>")]
    pub fn lint(
        &self,
        workdir: String,
        engine: Option<&crate::engine::RuleEngine>,
    ) -> AsyncTask<MemoryTask> {
        self.task(MemoryOp::Lint(engine.map(|e| e.rule_set()), workdir))
    }

    /// Removes an entry (by id or a prefix only it has).
    #[napi(ts_return_type = "Promise<EntryMoved>")]
    pub fn forget(&self, id: String) -> AsyncTask<MemoryTask> {
        self.task(MemoryOp::Forget(id))
    }

    /// Turns an entry into a rule file in `rulesDir` and removes it from memory.
    #[napi(ts_return_type = "Promise<EntryMoved>")]
    pub fn promote(&self, id: String, options: PromoteInput) -> AsyncTask<MemoryTask> {
        self.task(MemoryOp::Promote(id, options))
    }

    /// Runs a memory tool (`memory_read`, `memory_write`, `memory_search`,
    /// `memory_propose_rule`); resolves to text for the model.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn run_tool(&self, name: String, input: serde_json::Value) -> AsyncTask<MemoryTask> {
        self.task(MemoryOp::RunTool(name, input))
    }
}

/// JSON-schema specs of the memory tools: `[{ name, description, parameters }]`.
#[napi(catch_unwind)]
pub fn memory_tool_definitions() -> serde_json::Value {
    core::memory::tool_definitions()
}
