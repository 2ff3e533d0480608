//! `RuleEngine`: one workdir's compiled rules, discovery on the libuv pool,
//! the per-message matching (rule indices), the `read_rule` tool.

use memory_rules as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::config::{to_config, EngineOptions};
use crate::rule::{
    to_js_fields, to_js_rule, to_js_texts, Diagnostic, MemoryRule, RuleFields, RuleTexts,
};
use crate::wasi::shim as wasi;

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
    config: RwLock<core::sources::Config>,
    state: Shared,
    pipeline: Arc<Mutex<Pipeline>>,
    next_seq: AtomicU64,
    /// The files in context of the last `activeDelta` call.
    context: std::sync::Mutex<Vec<String>>,
    /// The user's home of the options (skills, memory), when given.
    home: RwLock<Option<std::path::PathBuf>>,
}

#[napi]
impl RuleEngine {
    #[napi(constructor)]
    pub fn new(options: EngineOptions) -> Result<Self> {
        let home = options.home_dir.as_ref().map(std::path::PathBuf::from);
        Ok(RuleEngine {
            home: RwLock::new(home),
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
        let home = options.home_dir.as_ref().map(std::path::PathBuf::from);
        let config = to_config(options)?;
        *self
            .home
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = home;
        *self
            .config
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = config;
        Ok(())
    }

    fn current_config(&self) -> core::sources::Config {
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

    /// `rules()` without their text, which `ruleTexts()` holds (the
    /// manager's rule objects read it from there when asked).
    #[napi(catch_unwind)]
    pub fn rule_fields(&self) -> Vec<RuleFields> {
        snapshot(&self.state)
            .rules
            .rules()
            .iter()
            .map(to_js_fields)
            .collect()
    }

    /// The text of each rule of `rules()`, kept as long as the handle is,
    /// whatever discoveries come after.
    #[napi(catch_unwind)]
    pub fn rule_texts(&self) -> RuleTexts {
        to_js_texts(snapshot(&self.state).rules.rules())
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
                text: d.to_string(),
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
        core::delivery::read_rule_tool::offer(
            indices.into_iter().filter_map(|i| rules.get(i as usize)),
        )
    }

    /// Runs the `read_rule` tool; always returns text for the model.
    /// `planRules` over rules of this engine, by index into `rules()` (the
    /// TS `planRules` takes this road when every rule object came from
    /// this engine's current rules, so no rule object crosses).
    #[napi(catch_unwind)]
    pub fn plan(
        &self,
        indices: Uint32Array,
        options: Option<crate::render::RenderOptions>,
    ) -> crate::render::RenderPlan {
        let set = snapshot(&self.state).rules.clone();
        let rules = set.rules();
        let picked: Vec<&core::Rule> = indices
            .iter()
            .filter_map(|&i| rules.get(i as usize))
            .collect();
        crate::render::plan(&picked, options)
    }

    #[napi(catch_unwind)]
    pub fn read_rule(&self, input: serde_json::Value) -> String {
        core::delivery::read_rule_tool::run(&snapshot(&self.state).rules, &input)
    }

    /// For the benchmarks (bench/bench.mjs), not the package's API (left out
    /// of index.d.ts): the median time in nanoseconds of `iterations` calls
    /// of the core's match on these inputs, inside Rust (no boundary crossing).
    #[napi(catch_unwind, skip_typescript)]
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

impl RuleEngine {
    /// The rule set in use (for the conversations binding).
    pub(crate) fn rule_set(&self) -> Arc<core::RuleSet> {
        snapshot(&self.state).rules.clone()
    }

    /// The workdir and the home of the rules in use (for the conversations binding).
    pub(crate) fn places(&self) -> (std::path::PathBuf, Option<std::path::PathBuf>) {
        let workdir = self.current_config().workdir;
        let home = self
            .home
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        (workdir, home)
    }
}

pub struct Discover {
    config: core::sources::Config,
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
        release_free_memory(loaded.rules.rules().len());
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

/// The JSON-schema spec of the `read_rule` tool: `{ name, description, parameters }`.
#[napi(catch_unwind)]
pub fn read_rule_tool_definition() -> serde_json::Value {
    core::delivery::read_rule_tool::tool_definition()
}

/// From this many rules, [`release_free_memory`] trims the allocator.
const TRIM_AFTER_RULES: usize = 1000;

/// Call after a discovery of `rules` rules, once its temporaries are
/// dropped. Loading a large set frees about as much as it keeps (each
/// file's text, the parse's and the compilers' temporaries) in small pieces
/// between the kept ones, on the thread that loaded it (the addon's runs on
/// libuv's pool). glibc keeps that memory resident; `malloc_trim` gives its
/// free pages back to the system: about 3 MiB at 10,000 rules, for a few
/// milliseconds. Below [`TRIM_AFTER_RULES`] rules, and off glibc, nothing.
fn release_free_memory(rules: usize) {
    if rules < TRIM_AFTER_RULES {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds free.
    unsafe {
        libc::malloc_trim(0);
    }
}
