//! Node binding of the `memory-rules` core: types and conversions only.
//!
//! `RuleEngine` keeps the compiled rule set (one `GlobSet`, one topic
//! automaton) between calls. Discovery runs on the libuv thread pool
//! (`AsyncTask`); the per-message call `active` is synchronous and returns
//! rule indices as a `Uint32Array`, so no rule text crosses the boundary per
//! message: the JS wrapper (`ts/`) holds the rule objects from `rules()`.
//! Every method catches panics, so none can cross into Node.

#![deny(clippy::all)]

use memory_rules as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

#[napi(object)]
pub struct EngineOptions {
    /// The project root: context paths are relative to it.
    pub workdir: String,
    /// The user's home, for the default sources (`~/.claude/rules`,
    /// `~/.wave/rules`, `<workdir>/.claude/rules`, `<workdir>/.wave/rules`).
    /// Ignored when `sources` is given; one of the two is required.
    pub home_dir: Option<String>,
    /// The rule sources in override order (later wins by id). A string is a
    /// source name (`'cursor'`, `'agents-md'`, ..., `'all'`): that tool's own
    /// places under the workdir and `homeDir`; consecutive names are read
    /// user sources first, then project ones, as the defaults are.
    #[napi(
        ts_type = "Array<RuleSource | 'wave' | 'claude' | 'cursor' | 'copilot' | 'windsurf' | 'kiro' | 'cline' | 'continue' | 'agents-md' | 'rules-yaml' | 'all'>"
    )]
    pub sources: Option<Vec<Either<String, RuleSource>>>,
    /// Directories outside the workdir that project rules may resolve into
    /// through symlinks (a shared team folder); any other project rule whose
    /// real path is outside the workdir is not loaded (`symlink-outside`).
    pub allow_dirs: Option<Vec<String>>,
}

/// One place rules are read from.
#[napi(object)]
pub struct RuleSource {
    /// The directory (a relative one is taken from the workdir).
    pub dir: String,
    #[napi(ts_type = "'project' | 'user'")]
    pub scope: String,
    /// Default `'wave'` (Markdown with frontmatter); any source name reads
    /// the directory as that tool's format.
    #[napi(
        ts_type = "'wave' | 'claude' | 'cursor' | 'copilot' | 'windsurf' | 'kiro' | 'cline' | 'continue' | 'agents-md' | 'rules-yaml'"
    )]
    pub format: Option<String>,
    /// Directory levels read below `dir`: 1 = its immediate subdirectories;
    /// `'any'` = any depth. Default: the format's (1 for `wave`).
    #[napi(ts_type = "number | 'any'")]
    pub depth: Option<Either<u32, String>>,
}

fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

fn to_source(workdir: &std::path::Path, s: RuleSource) -> Result<core::Source> {
    let scope = match s.scope.as_str() {
        "project" => core::Scope::Project,
        "user" => core::Scope::User,
        other => {
            return Err(invalid(format!(
                "source {}: scope must be 'project' or 'user', not '{other}'",
                s.dir
            )))
        }
    };
    let format = match s.format.as_deref() {
        None => core::Format::Wave,
        Some(f) => core::Format::parse(f)
            .ok_or_else(|| invalid(format!("source {}: unknown format '{f}'", s.dir)))?,
    };
    let depth = match s.depth {
        None => format.default_depth(),
        Some(Either::A(n)) => Some(n as usize),
        Some(Either::B(any)) if any == "any" => None,
        Some(Either::B(other)) => {
            return Err(invalid(format!(
                "source {}: depth must be a number or 'any', not '{other}'",
                s.dir
            )))
        }
    };
    Ok(core::Source::new(
        workdir.join(&s.dir),
        scope,
        format,
        depth,
    ))
}

fn to_config(mut options: EngineOptions) -> Result<core::Config> {
    let workdir = std::path::PathBuf::from(&options.workdir);
    let allow: Vec<std::path::PathBuf> = options
        .allow_dirs
        .take()
        .unwrap_or_default()
        .iter()
        .map(|d| workdir.join(d))
        .collect();
    to_sources(options, workdir).map(|c| c.with_allow_dirs(allow))
}

fn to_sources(options: EngineOptions, workdir: std::path::PathBuf) -> Result<core::Config> {
    if let Some(sources) = options.sources {
        let mut out = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let flush = |names: &mut Vec<String>, out: &mut Vec<core::Source>| -> Result<()> {
            if names.is_empty() {
                return Ok(());
            }
            let formats =
                core::formats_named(names).map_err(|e| invalid(format!("sources: {e}")))?;
            let home = options
                .home_dir
                .as_deref()
                .ok_or_else(|| invalid("sources: a source name needs homeDir".to_string()))?;
            out.extend(core::Config::named(&workdir, home, &formats).sources);
            names.clear();
            Ok(())
        };
        for s in sources {
            match s {
                Either::A(name) => names.push(name),
                Either::B(source) => {
                    flush(&mut names, &mut out)?;
                    out.push(to_source(&workdir, source)?);
                }
            }
        }
        flush(&mut names, &mut out)?;
        return Ok(core::Config::new(workdir, out));
    }
    match options.home_dir {
        Some(home) => Ok(core::Config::with_home(workdir, home)),
        None => Err(invalid(
            "RuleEngine: give homeDir (for the default sources) or sources".to_string(),
        )),
    }
}

#[napi(object)]
pub struct RuleMetadata {
    pub paths: Option<Vec<String>>,
    pub priority: Option<i64>,
    pub topics: Option<Vec<String>>,
    pub description: Option<String>,
    /// `'every-turn'`: re-surfaced at every turn while active (reminder mode).
    #[napi(ts_type = "'once' | 'every-turn'")]
    pub remind: Option<String>,
    /// `'on-request'`: offered to the model by its description (read with
    /// the `read_rule` tool); `'manual'`: active only when the prompt
    /// mentions it (`@name`). Absent: always, or by `paths` / `topics`.
    #[napi(ts_type = "'on-request' | 'manual'")]
    pub activation: Option<String>,
    /// Regexes matched against the content of the files in context (Continue).
    pub regex: Option<Vec<String>>,
    /// The project subdirectory the rule is scoped to (a nested `.cursor/rules`
    /// or `AGENTS.md`).
    pub directory: Option<String>,
}

#[napi(object)]
pub struct MemoryRule {
    /// Path relative to its rules root, `/`-separated: `frontend/react.md`.
    pub id: String,
    /// The body, trimmed.
    pub content: String,
    pub metadata: RuleMetadata,
    #[napi(ts_type = "'project' | 'user'")]
    pub source: String,
    pub file_path: String,
    /// The other agent's format the rule was read as (`'cursor'`, ...);
    /// absent for the agent SDK's own (`.wave/rules`, `.claude/rules`), whose
    /// rules keep exactly the SDK's shape.
    #[napi(
        ts_type = "'wave' | 'claude' | 'cursor' | 'copilot' | 'windsurf' | 'kiro' | 'cline' | 'continue' | 'agents-md' | 'rules-yaml'"
    )]
    pub format: Option<String>,
}

#[napi(object)]
pub struct Diagnostic {
    #[napi(ts_type = "'error' | 'warning' | 'info'")]
    pub severity: String,
    pub code: String,
    pub message: String,
    pub file_path: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

/// What the per-message calls use: one discovery's result and its
/// generation, swapped only on the JS thread (in a task's `resolve`), so rule
/// objects, diagnostics and indices fetched in one synchronous run of JS
/// always come from the same discovery.
#[derive(Default)]
struct State {
    loaded: Arc<core::Loaded>,
    generation: u32,
    /// The sequence number of the task whose result is in use.
    applied: u64,
}

type Shared = Arc<RwLock<State>>;

fn snapshot(state: &Shared) -> Arc<core::Loaded> {
    state
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .loaded
        .clone()
}

/// Discoveries run one at a time (each incremental one diffs against the
/// newest result), in the order they were asked for.
#[derive(Default)]
struct Pipeline {
    latest: Arc<core::Loaded>,
}

/// The compiled rules of one workdir and its sources.
#[napi]
pub struct RuleEngine {
    config: RwLock<core::Config>,
    state: Shared,
    pipeline: Arc<Mutex<Pipeline>>,
    next_seq: AtomicU64,
    /// The files in context of the last `activeDelta` call.
    context: std::sync::Mutex<Vec<String>>,
}

#[napi]
impl RuleEngine {
    #[napi(constructor)]
    pub fn new(options: EngineOptions) -> Result<Self> {
        Ok(RuleEngine {
            config: RwLock::new(to_config(options)?),
            state: Arc::default(),
            pipeline: Arc::default(),
            next_seq: AtomicU64::new(1),
            context: Default::default(),
        })
    }

    /// Replaces the workdir and sources; the next `discover()` or `reload()`
    /// uses them (reload still skips unchanged files).
    #[napi(catch_unwind)]
    pub fn configure(&self, options: EngineOptions) -> Result<()> {
        let config = to_config(options)?;
        *self
            .config
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = config;
        Ok(())
    }

    fn current_config(&self) -> core::Config {
        self.config
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Changes each time a discovery's result replaces the rules in use; a
    /// wrapper holding `rules()` fetches them again when it differs.
    #[napi(getter)]
    pub fn generation(&self) -> u32 {
        self.state
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .generation
    }

    fn task(&self, incremental: bool) -> AsyncTask<Discover> {
        AsyncTask::new(Discover {
            config: self.current_config(),
            state: self.state.clone(),
            pipeline: self.pipeline.clone(),
            seq: self.next_seq.fetch_add(1, Ordering::Relaxed),
            incremental,
        })
    }

    /// Discovers, parses and compiles every rule, off the main thread. The new
    /// rules replace the old ones when the promise resolves.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn discover(&self) -> AsyncTask<Discover> {
        self.task(false)
    }

    /// Discovers again off the main thread, re-reading only files whose size,
    /// mtime, inode or device changed. Resolves to `true` when the rules or the
    /// diagnostics changed (then fetch `rules()` and `diagnostics()` again).
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn reload(&self) -> AsyncTask<Discover> {
        self.task(true)
    }

    /// Every rule, in result order (priority, project before user, id).
    #[napi(catch_unwind)]
    pub fn rules(&self) -> Vec<MemoryRule> {
        snapshot(&self.state)
            .rules
            .rules()
            .iter()
            .map(to_js_rule)
            .collect()
    }

    /// For each rule of `rules()`: true when it has `paths` or `topics`.
    #[napi(catch_unwind)]
    pub fn conditional(&self) -> Vec<bool> {
        let loaded = snapshot(&self.state);
        loaded
            .rules
            .rules()
            .iter()
            .map(|r| !r.metadata.is_unconditional())
            .collect()
    }

    /// Diagnostics of the last discovery, sorted by file and line.
    #[napi(catch_unwind)]
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        snapshot(&self.state)
            .diagnostics
            .iter()
            .map(|d| Diagnostic {
                severity: d.severity.as_str().to_string(),
                code: d.code.as_str().to_string(),
                message: d.message.clone(),
                file_path: d.file_path.clone(),
                line: d.line,
                column: d.column,
            })
            .collect()
    }

    /// Indices (ascending) of the rules that a topic in `prompt` activates.
    #[napi(catch_unwind)]
    pub fn topic_active(&self, prompt: String) -> Uint32Array {
        let loaded = snapshot(&self.state);
        let hits = loaded.rules.topic_active(&prompt);
        Uint32Array::new(hits.into_iter().map(|i| i as u32).collect())
    }

    /// Indices into `rules()` of the rules active for these files in context
    /// and prompt, ascending (which is result order).
    #[napi(catch_unwind)]
    pub fn active(&self, files: Vec<String>, prompt: Option<String>) -> Uint32Array {
        let loaded = snapshot(&self.state);
        let active = loaded.rules.active(&files, prompt.as_deref());
        Uint32Array::new(active.into_iter().map(|i| i as u32).collect())
    }

    /// The per-message call of the TS wrapper. The engine keeps the files in
    /// context from the previous call: the first `keep` stay, the rest are
    /// replaced by the `added` files (`count` of them, joined by NUL; the
    /// wrapper drops paths containing NUL), so a message whose files repeat or
    /// grow converts only the new ones. The active indices are written into
    /// `out`, a buffer the caller keeps (as long as `rules()`); returns how
    /// many were written. When the kept list cannot be what the caller thinks
    /// (`keep` beyond it, or `added` not splitting into `count` paths), the
    /// list is cleared and `0xFFFFFFFF` returned: send every file again.
    #[napi(catch_unwind)]
    pub fn active_delta(
        &self,
        env: Env,
        keep: u32,
        count: u32,
        added: String,
        prompt: Option<String>,
        mut out: Uint32ArraySlice,
    ) -> u32 {
        let mut context = self
            .context
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let parts = if count > 0 {
            added.split('\0').count()
        } else {
            0
        };
        if keep as usize > context.len() || parts != count as usize {
            context.clear();
            return u32::MAX;
        }
        context.truncate(keep as usize);
        if count > 0 {
            context.extend(added.split('\0').map(str::to_string));
        }
        let loaded = snapshot(&self.state);
        let active = loaded.rules.active(&context, prompt.as_deref());
        // SAFETY: this runs synchronously on the JS thread, so no JS code can
        // touch the buffer while the slice is borrowed.
        let buf = unsafe { out.as_mut() };
        for (slot, &i) in buf.iter_mut().zip(&active) {
            *slot = i as u32;
        }
        let written = active.len().min(buf.len());
        wasi::write_back(&env, &out, written);
        written as u32
    }

    /// `active`, with the content of files in context (by the path given in
    /// `files`) for rules with a `regex` (Continue).
    #[napi(catch_unwind)]
    pub fn active_with_contents(
        &self,
        files: Vec<String>,
        prompt: Option<String>,
        contents: std::collections::HashMap<String, String>,
    ) -> Uint32Array {
        let loaded = snapshot(&self.state);
        let read = |f: &str| contents.get(f).cloned();
        let active = loaded
            .rules
            .active_with(&files, prompt.as_deref(), Some(&read));
        Uint32Array::new(active.into_iter().map(|i| i as u32).collect())
    }

    /// The short list of these rules (indices into `rules()`) for the model:
    /// a heading naming the `read_rule` tool, then `- id: description` lines.
    #[napi(catch_unwind)]
    pub fn offer_text(&self, indices: Vec<u32>) -> String {
        let loaded = snapshot(&self.state);
        let rules = loaded.rules.rules();
        core::read_rule::offer(indices.into_iter().filter_map(|i| rules.get(i as usize)))
    }

    /// Runs the `read_rule` tool; always returns text for the model.
    #[napi(catch_unwind)]
    pub fn read_rule(&self, input: serde_json::Value) -> String {
        core::read_rule::run(&snapshot(&self.state).rules, &input)
    }

    /// For benchmarks: the median time in nanoseconds of `iterations` calls of
    /// the core's match on these inputs, inside Rust (no boundary crossing).
    #[napi(catch_unwind)]
    pub fn measure_active(
        &self,
        files: Vec<String>,
        prompt: Option<String>,
        iterations: u32,
    ) -> f64 {
        let loaded = snapshot(&self.state);
        let mut times: Vec<u128> = (0..iterations.max(1))
            .map(|_| {
                let start = std::time::Instant::now();
                std::hint::black_box(
                    loaded
                        .rules
                        .active(std::hint::black_box(&files), prompt.as_deref()),
                );
                start.elapsed().as_nanos()
            })
            .collect();
        times.sort_unstable();
        times[times.len() / 2] as f64
    }
}

pub struct Discover {
    config: core::Config,
    state: Shared,
    pipeline: Arc<Mutex<Pipeline>>,
    /// Order of the call: a result never replaces a newer call's.
    seq: u64,
    incremental: bool,
}

impl Task for Discover {
    type Output = Arc<core::Loaded>;
    type JsValue = bool;

    fn compute(&mut self) -> Result<Self::Output> {
        // One discovery at a time; each diffs against the newest result.
        let mut pipeline = self
            .pipeline
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let loaded = catch_unwind(AssertUnwindSafe(|| {
            if self.incremental {
                core::reload(&self.config, &pipeline.latest).loaded
            } else {
                core::load(&self.config)
            }
        }))
        .map_err(|_| {
            Error::from_reason(
                "memory-rules: discovery failed unexpectedly (a bug); the previous rules are kept",
            )
        })?;
        let loaded = Arc::new(loaded);
        pipeline.latest = loaded.clone();
        // The discovery's temporaries (and the previous result) are freed
        // now, on this pool thread: give their pages back.
        core::ruleset::release_free_memory(loaded.rules.rules().len());
        Ok(loaded)
    }

    /// On the JS thread: the new result replaces the one in use unless a
    /// newer call's result already did. Resolves to whether the rules or the
    /// diagnostics in use changed.
    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        let mut state = self
            .state
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if self.seq < state.applied {
            return Ok(false);
        }
        let same = state.generation > 0
            && Arc::ptr_eq(&state.loaded.rules, &output.rules)
            && state.loaded.diagnostics == output.diagnostics;
        state.applied = self.seq;
        state.loaded = output;
        if same {
            return Ok(false);
        }
        state.generation = state.generation.wrapping_add(1).max(1);
        Ok(true)
    }
}

/// Makes `dir` the working directory of the WASI build, which has none of
/// its own (it starts at `/`): relative paths in `runCli` arguments and
/// relative workdirs then mean what they mean to the caller. The package's
/// loader calls it with `process.cwd()`. Natively a no-op: the engine shares
/// the process's working directory.
#[napi(catch_unwind)]
pub fn set_working_dir(dir: String) -> Result<()> {
    wasi::set_working_dir(&dir)
        .map_err(|e| Error::from_reason(format!("cannot use {dir} as the working directory: {e}")))
}

/// What the WebAssembly (WASI) build needs that the native one does not.
mod wasi {
    use napi::bindgen_prelude::*;

    #[cfg(target_family = "wasm")]
    extern "C" {
        // emnapi's (linked into every napi-rs WASI build).
        fn emnapi_sync_memory(
            env: napi::sys::napi_env,
            js_to_wasm: bool,
            view: *mut napi::sys::napi_value,
            offset: usize,
            len: usize,
        ) -> napi::sys::napi_status;
    }

    /// Under WASI a typed array from JS is a copy in wasm memory (emnapi), so
    /// the `len` elements written into it are copied back to JS. Natively the
    /// slice is the JS memory itself: nothing to do.
    #[cfg(target_family = "wasm")]
    pub fn write_back(env: &Env, out: &Uint32ArraySlice, len: usize) {
        if len == 0 {
            return;
        }
        // SAFETY: `out` came from JS in this same synchronous call.
        if let Ok(mut raw) = unsafe { ToNapiValue::to_napi_value(env.raw(), out) } {
            unsafe {
                emnapi_sync_memory(
                    env.raw(),
                    false,
                    &mut raw,
                    0,
                    len * std::mem::size_of::<u32>(),
                )
            };
        }
    }

    #[cfg(not(target_family = "wasm"))]
    pub fn write_back(_: &Env, _: &Uint32ArraySlice, _: usize) {}

    #[cfg(target_family = "wasm")]
    pub fn set_working_dir(dir: &str) -> std::io::Result<()> {
        std::env::set_current_dir(dir)
    }

    #[cfg(not(target_family = "wasm"))]
    pub fn set_working_dir(_: &str) -> std::io::Result<()> {
        Ok(())
    }
}

#[napi(object)]
pub struct CliOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

/// Runs the `wave-rules` command line (`args` without the program name) in
/// this process: the same code as the Rust binary, so the same output.
/// `stdin` is what a `hook <event>` reads as its standard input.
#[napi(catch_unwind)]
pub fn run_cli(args: Vec<String>, stdin: Option<Buffer>) -> CliOutput {
    let argv = std::iter::once("wave-rules".to_string()).chain(args);
    let out =
        wave_rules::run_with_input(argv, || Ok(stdin.map(|b| b.to_vec()).unwrap_or_default()));
    CliOutput {
        stdout: out.stdout,
        stderr: out.stderr,
        exit_code: out.code,
    }
}

/// The command line on a worker thread: [`run_cli_async`].
pub struct CliTask {
    args: Vec<String>,
}

impl Task for CliTask {
    type Output = wave_rules::Output;
    type JsValue = CliOutput;

    fn compute(&mut self) -> Result<Self::Output> {
        let argv: Vec<String> = std::iter::once("wave-rules".to_string())
            .chain(std::mem::take(&mut self.args))
            .collect();
        catch_unwind(AssertUnwindSafe(|| wave_rules::run(argv)))
            .map_err(|_| Error::from_reason("wave-rules: the command failed unexpectedly (a bug)"))
    }

    fn resolve(&mut self, _env: Env, out: Self::Output) -> Result<Self::JsValue> {
        Ok(CliOutput {
            stdout: out.stdout,
            stderr: out.stderr,
            exit_code: out.code,
        })
    }
}

/// [`run_cli`] on a worker thread, so Node's event loop stays free. `mcp`
/// runs this way: the server reads stdin and writes stdout itself, on that
/// thread, until stdin closes, and the promise then resolves.
#[napi(ts_return_type = "Promise<CliOutput>")]
pub fn run_cli_async(args: Vec<String>) -> AsyncTask<CliTask> {
    AsyncTask::new(CliTask { args })
}

fn to_js_rule(rule: &core::Rule) -> MemoryRule {
    let m = &rule.metadata;
    MemoryRule {
        id: rule.id.clone(),
        content: rule.content.clone(),
        metadata: RuleMetadata {
            paths: m.paths.clone(),
            priority: m.priority,
            topics: m.topics.clone(),
            description: m.description.clone(),
            remind: m.remind.map(|r| r.as_str().to_string()),
            activation: (m.activation != core::Activation::Auto)
                .then(|| m.activation.as_str().to_string()),
            regex: m.regex.clone(),
            directory: m.directory.clone(),
        },
        source: rule.scope.as_str().to_string(),
        file_path: rule.file_path.to_string_lossy().into_owned(),
        format: rule
            .format
            .qualifies_ids()
            .then(|| rule.format.as_str().to_string()),
    }
}

// ---- memory topics ----------------------------------------------------------

use core::memory::{MemoryLocations, MemoryScope, WriteMode};

#[napi(object)]
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
#[napi(js_name = "MemoryStore")]
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

/// The JSON-schema spec of the `read_rule` tool: `{ name, description, parameters }`.
#[napi(catch_unwind)]
pub fn read_rule_tool_definition() -> serde_json::Value {
    core::read_rule::tool_definition()
}

/// The source names: `wave`, `claude`, `cursor`, `copilot`, `windsurf`,
/// `kiro`, `cline`, `continue`, `agents-md`, `rules-yaml`.
#[napi(catch_unwind)]
pub fn source_names() -> Vec<String> {
    core::Format::ALL
        .iter()
        .map(|f| f.as_str().to_string())
        .collect()
}

/// JSON-schema specs of the memory tools: `[{ name, description, parameters }]`.
#[napi(catch_unwind)]
pub fn memory_tool_definitions() -> serde_json::Value {
    core::memory::tool_definitions()
}
