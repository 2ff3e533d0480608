//! Memory topics: the core's `MemoryStore`, every operation an `AsyncTask`.

use memory_rules as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

use core::memory::{MemoryLocations, MemoryScope, WriteMode};

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
}

pub struct MemoryTask {
    store: core::memory::MemoryStore,
    op: Option<MemoryOp>,
}

/// Text, or the topic list (`listTopics`).
pub enum MemoryOut {
    Text(String),
    Topics(Vec<TopicEntry>),
}

impl Task for MemoryTask {
    type Output = MemoryOut;
    type JsValue = Either<String, Vec<TopicEntry>>;

    fn compute(&mut self) -> Result<Self::Output> {
        use MemoryOut::Text;
        let op = self
            .op
            .take()
            .ok_or_else(|| Error::from_reason("memory task run twice"))?;
        let store = &self.store;
        catch_unwind(AssertUnwindSafe(|| -> Result<MemoryOut> {
            Ok(match op {
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
                MemoryOp::RunTool(name, input) => {
                    Text(core::memory::run_tool(store, &name, &input))
                }
            })
        }))
        .map_err(|_| Error::from_reason("memory: unexpected internal error (a bug)"))?
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(match output {
            MemoryOut::Text(t) => Either::A(t),
            MemoryOut::Topics(t) => Either::B(t),
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
        let bytes = max_bytes.map_or(core::limits::DEFAULT_MEMORY_PROMPT_BYTES, |b| b as usize);
        self.task(MemoryOp::LoadForPrompt(max_lines as usize, bytes))
    }

    /// Runs `memory_read` or `memory_write`; resolves to text for the model.
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
