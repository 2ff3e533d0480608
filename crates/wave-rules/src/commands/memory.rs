//! `wave-rules memory ...`: the memory the agents keep, on the same store
//! the MCP server, the hooks and the binding use (`<home>/.wave/memory` and
//! `<home>/.wave/projects/<hash>/memory`). Every command has `--json`.
//!
//! | command | does | exit |
//! | --- | --- | --- |
//! | `write TOPIC TEXT` | the core's `write_note` with the project's rules: `stored`, `replaced`, `folded`, `restated` or `refused` | 1 when refused |
//! | `search QUERY [--files F...]` | ranked entries of both scopes | 0 |
//! | `similar ENTRY\|TEXT` | the nearest entries and rules, ranked, with their evidence (`memory_similar.rs`) | 0 |
//! | `lint` | the core's `memory::lint` with the project's rules | 1 on a problem |
//! | `import --from AGENT` | an agent's own memory written into ours, each note through `write_note` | 1 when nothing could be read |
//! | `promote ENTRY` | the entry becomes a `.wave/rules` rule, and leaves memory | 1 for an unknown entry |
//! | `forget ENTRY` | removes an entry | 1 for an unknown entry |
//! | `list`, `show`, `clear` | topics | 1 for an unknown topic |

use crate::base::args::{
    MemoryAction, MemoryArgs, MemoryClearArgs, MemoryEntryArgs, MemoryImportArgs,
    MemoryPromoteArgs, MemorySourceArg, MemoryWriteArgs, ScopeArg,
};
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::memory::agent_memory::{self, AgentMemory, AgentSource, MemorySources};
use memory_rules::memory::lint::{self, LintFinding};
use memory_rules::memory::promote::{self, Promotion};
use memory_rules::memory::{
    MemoryError, MemoryHit, MemoryIndex, MemoryLocations, MemoryScope, MemoryStore, Note,
    NoteAction, NoteWritten, Query,
};
use memory_rules::Scope;
use serde_json::{json, Value};

/// The store of this project and home.
pub fn store(env: &Env) -> MemoryStore {
    MemoryStore::new(MemoryLocations::new(&env.home_dir(), &env.config.workdir))
}

fn scope_of(arg: ScopeArg) -> MemoryScope {
    match arg {
        ScopeArg::Project => MemoryScope::Project,
        ScopeArg::User => MemoryScope::User,
    }
}

fn trouble(e: MemoryError) -> Output {
    match e {
        MemoryError::Io { .. } => Output::fail(EXIT_TROUBLE, e.to_string()),
        _ => Output::fail(EXIT_FAILURE, e.to_string()),
    }
}

pub fn run(env: &Env, args: &MemoryArgs) -> Output {
    let store = store(env);
    match &args.action {
        MemoryAction::Write(a) => write_note(env, &store, a),
        MemoryAction::Search(a) => search(env, &store, a),
        MemoryAction::Similar(a) => super::memory_similar::run(env, &store, a),
        MemoryAction::Lint(a) => {
            let sources = match env.memory_sources(&a.sources.memory_sources) {
                Ok(s) => s,
                Err(e) => return Output::fail(EXIT_TROUBLE, e),
            };
            let loaded = memory_rules::load(&env.config);
            let mut findings = if sources.wave {
                lint::lint(&store, Some(&loaded.rules), &env.config.workdir)
            } else {
                Vec::new()
            };
            let agents = agent_entries(env, &sources);
            findings.extend(lint::lint_agents(&store, Some(&loaded.rules), &agents));
            lint_output(env, &findings)
        }
        MemoryAction::Import(a) => import(env, &store, a),
        MemoryAction::Promote(a) => promote_entry(env, &store, a),
        MemoryAction::Forget(a) => forget_entry(env, &store, a),
        MemoryAction::List(a) => list(env, &store, a.scope),
        MemoryAction::Show(a) => show(env, &store, &a.topic, a.scope),
        MemoryAction::Clear(a) => clear_scope(env, &store, a),
    }
}

/// The agents' own memory the sources name (ours, `wave`, is not among them).
pub fn agent_entries(env: &Env, sources: &MemorySources) -> AgentMemory {
    if sources.agents.is_empty() {
        return AgentMemory::default();
    }
    agent_memory::read(&sources.agents, &env.agent_places())
}

/// An agent entry as JSON (`memory search`, `match --memory`).
pub fn agent_json(e: &agent_memory::AgentEntry) -> Value {
    json!({ "agent": e.agent.as_str(), "file": e.file, "line": e.line, "topic": e.topic, "text": e.text })
}

fn agent_of(s: MemorySourceArg) -> Option<AgentSource> {
    match s {
        MemorySourceArg::Wave => None,
        MemorySourceArg::Claude => Some(AgentSource::Claude),
        MemorySourceArg::Codex => Some(AgentSource::Codex),
        MemorySourceArg::Gemini => Some(AgentSource::Gemini),
    }
}

/// `memory import --from AGENT`: each note of the agent's own memory through
/// `write_note` (refused, restated, folded or stored as any write); the
/// agent's files are only read.
fn import(env: &Env, store: &MemoryStore, a: &MemoryImportArgs) -> Output {
    let Some(agent) = agent_of(a.from) else {
        return Output::fail(
            EXIT_FAILURE,
            "import --from names another agent: claude, codex or gemini",
        );
    };
    let agents = agent_entries(
        env,
        &MemorySources {
            wave: false,
            agents: vec![agent],
        },
    );
    let loaded = memory_rules::load(&env.config);
    let mut out = Output::default();
    for p in &agents.problems {
        out.stderr
            .push_str(&display::line(&format!("wave-rules: {p}")));
    }
    let mut answers = Vec::new();
    for e in &agents.entries {
        let mut note = Note::new(scope_of(a.scope), &e.topic, &e.text);
        note.agent = Some(agent.as_str().into());
        match store.write_note(&note, Some(&loaded.rules)) {
            Ok(w) => answers.push((e.origin(), w)),
            Err(err) => out.stderr.push_str(&display::line(&format!(
                "wave-rules: {}: {err}",
                e.origin()
            ))),
        }
    }
    if env.json {
        let list: Vec<Value> = answers
            .iter()
            .map(|(origin, w)| json!({ "origin": origin, "answer": w.to_json() }))
            .collect();
        out.stdout = display::json_text(
            &json!({ "from": agent.as_str(), "notes": list, "problems": agents.problems }),
        );
    } else {
        out.stdout = imported_text(agent.as_str(), &answers);
    }
    if agents.entries.is_empty() && !agents.problems.is_empty() {
        out.code = EXIT_FAILURE;
    }
    let notes: Vec<&NoteWritten> = answers.iter().map(|(_, w)| w).collect();
    record_written(env, &notes, agent.as_str(), &mut out);
    out
}

/// `memory import`'s text: each note's origin, action and id, then the
/// counts.
fn imported_text(from: &str, answers: &[(String, NoteWritten)]) -> String {
    let count = |action: NoteAction| answers.iter().filter(|(_, w)| w.action == action).count();
    let mut text = String::new();
    for (origin, w) in answers {
        text.push_str(&display::line(&format!(
            "{origin}: {} {}",
            w.action.as_str(),
            w.id.as_deref().unwrap_or("")
        )));
    }
    text.push_str(&format!(
        "imported from {from}: {} stored, {} folded, {} restated, {} refused\n",
        count(NoteAction::Stored),
        count(NoteAction::Folded),
        count(NoteAction::Restated),
        count(NoteAction::Refused)
    ));
    text
}

/// `memory write`: the note, checked against the project's rules.
fn write_note(env: &Env, store: &MemoryStore, a: &MemoryWriteArgs) -> Output {
    let loaded = memory_rules::load(&env.config);
    let mut note = Note::new(scope_of(a.scope), &a.topic, &a.text);
    note.paths = a.paths.clone();
    note.topics = a.topics.clone();
    note.pinned = a.pin;
    note.replace = a.replace;
    note.agent = Some("cli".into());
    match store.write_note(&note, Some(&loaded.rules)) {
        Ok(w) => {
            let mut out = written(env, &w);
            record_written(env, &[&w], "cli", &mut out);
            out
        }
        Err(e) => trouble(e),
    }
}

/// The notes' `wave_rules.memory.written` records spooled and the shipper
/// started (a command is a session of its own; docs/telemetry.md), when
/// telemetry is on; what went wrong on stderr. Inside an eval run, nothing.
fn record_written(env: &Env, notes: &[&NoteWritten], agent: &str, out: &mut Output) {
    let telemetry = crate::telemetry::for_env(env);
    crate::telemetry::notes_written(&telemetry, notes, agent, None);
    crate::telemetry::shipper::start(&telemetry, &env.config.workdir, env.home.as_deref());
    if let Some(line) = crate::telemetry::problem_line(&telemetry, "memory") {
        out.stderr.push_str(&line);
    }
}

/// `memory promote`: the entry becomes a `.wave/rules` rule.
fn promote_entry(env: &Env, store: &MemoryStore, a: &MemoryPromoteArgs) -> Output {
    let Some(source) = env.config.write_source(Scope::Project) else {
        return Output::fail(
            EXIT_FAILURE,
            "no project source in the wave format to write the rule to (drop --source/--sources, or add project=.wave/rules)",
        );
    };
    let how = Promotion {
        paths: a.paths.clone(),
        topics: a.topics.clone(),
    };
    match promote::promote(store, &a.entry, &source.dir, &how) {
        Ok(p) => {
            let shown = display::show(&p.rule_file, &env.config.workdir);
            let rule_id = p
                .rule_file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Output {
                stdout: if env.json {
                    display::json_text(&json!({
                        "id": p.id, "scope": p.scope.as_str(), "topic": p.topic,
                        "rule": { "id": rule_id, "file": shown, "paths": p.paths, "topics": p.topics },
                    }))
                } else {
                    display::line(&format!(
                        "promoted {} ({} memory, '{}') to the rule {shown}{}; it is no longer in memory",
                        p.id,
                        p.scope,
                        p.topic,
                        triggers(&p.paths, &p.topics)
                    ))
                },
                ..Output::default()
            }
        }
        Err(e) => trouble(e),
    }
}

/// `memory forget`: one entry removed.
fn forget_entry(env: &Env, store: &MemoryStore, a: &MemoryEntryArgs) -> Output {
    match store.forget(&a.entry) {
        Ok(f) => Output {
            stdout: if env.json {
                display::json_text(&json!({
                    "id": f.entry.meta.id, "scope": f.scope.as_str(), "topic": f.topic,
                    "file": store.dir(f.scope).join(&f.file).to_string_lossy(), "text": f.entry.text,
                }))
            } else {
                display::line(&format!(
                    "forgot {} from {} memory topic '{}' ({})",
                    f.entry.meta.id, f.scope, f.topic, f.file
                ))
            },
            ..Output::default()
        },
        Err(e) => trouble(e),
    }
}

/// `memory clear`: every topic of one scope deleted.
fn clear_scope(env: &Env, store: &MemoryStore, a: &MemoryClearArgs) -> Output {
    let scope = scope_of(a.scope);
    let count = store.list_topics(scope).map(|t| t.len()).unwrap_or(0);
    if let Err(e) = store.clear(scope) {
        return trouble(e);
    }
    let dir = store.dir(scope).to_string_lossy().into_owned();
    Output {
        stdout: if env.json {
            display::json_text(&json!({
                "scope": scope.as_str(), "cleared": count, "dir": dir,
            }))
        } else {
            display::line(&format!(
                "cleared {count} {scope} memory topic{} in {dir}",
                if count == 1 { "" } else { "s" }
            ))
        },
        ..Output::default()
    }
}

fn triggers(paths: &[String], topics: &[String]) -> String {
    match (paths.is_empty(), topics.is_empty()) {
        (true, true) => " (always active)".into(),
        _ => {
            let mut parts = Vec::new();
            if !paths.is_empty() {
                parts.push(format!("paths {}", paths.join(", ")));
            }
            if !topics.is_empty() {
                parts.push(format!("topics {}", topics.join(", ")));
            }
            format!(" ({})", parts.join("; "))
        }
    }
}

fn written(env: &Env, w: &NoteWritten) -> Output {
    let code = if w.action == NoteAction::Refused {
        EXIT_FAILURE
    } else {
        0
    };
    if env.json {
        return Output {
            stdout: display::json_text(&w.to_json()),
            code,
            ..Output::default()
        };
    }
    let mut out = Output {
        code,
        ..Output::default()
    };
    let text = w.message();
    if code == 0 {
        out.stdout = display::line(&text);
    } else {
        out.stderr = display::line(&format!("wave-rules: {text}"));
    }
    out
}

/// A hit as JSON (search, `match --memory`).
pub fn hit_json(h: &MemoryHit) -> Value {
    h.to_json()
}

/// Why a hit came, in words.
pub fn why(h: &MemoryHit) -> String {
    let mut parts = Vec::new();
    if !h.matched.is_empty() {
        parts.push(format!("words {}", h.matched.join(", ")));
    }
    if let Some((file, how)) = &h.tie {
        parts.push(format!("{file}: {how}"));
    }
    format!("score {:.2}: {}", h.score, parts.join("; "))
}

fn search(env: &Env, store: &MemoryStore, a: &crate::base::args::MemorySearchArgs) -> Output {
    let index = MemoryIndex::open(store);
    let files: Vec<String> = a
        .files
        .iter()
        .map(|f| {
            memory_rules::Workdir::new(&env.config.workdir)
                .relative(f)
                .map(|c| c.into_owned())
                .unwrap_or_else(|| f.clone())
        })
        .collect();
    let sources = match env.memory_sources(&a.sources.memory_sources) {
        Ok(s) => s,
        Err(e) => return Output::fail(EXIT_TROUBLE, e),
    };
    let hits = if sources.wave {
        memory_rules::memory::search_current(
            &index,
            &Query {
                text: &a.query,
                files: &files,
                limit: a.limit,
            },
            &|_| false,
        )
    } else {
        Vec::new()
    };
    let agents = agent_entries(env, &sources);
    let theirs = agents.search(&a.query, a.limit);
    let mut out = Output::default();
    for p in index.problems().iter().chain(&agents.problems) {
        out.stderr
            .push_str(&display::line(&format!("wave-rules: {p}")));
    }
    if env.json {
        out.stdout = display::json_text(&json!({
            "query": a.query,
            "files": files,
            "searched": index.len(),
            "entries": hits.iter().map(hit_json).collect::<Vec<_>>(),
            "agents": theirs.iter().map(|e| agent_json(e)).collect::<Vec<_>>(),
        }));
        return out;
    }
    for h in &hits {
        out.stdout.push_str(&display::line(&format!(
            "{}  {} · {} ({}:{})  {}",
            h.id,
            h.scope,
            h.topic,
            h.file,
            h.line,
            why(h)
        )));
        for l in h.text.lines() {
            out.stdout.push_str(&display::line(&format!("    {l}")));
        }
    }
    for e in &theirs {
        out.stdout.push_str(&display::line(&format!(
            "{} · {} (read-only)",
            e.origin(),
            e.topic
        )));
        for l in e.text.lines() {
            out.stdout.push_str(&display::line(&format!("    {l}")));
        }
    }
    out.stdout.push_str(&format!(
        "{} of {} entr{}\n",
        hits.len(),
        index.len(),
        if index.len() == 1 { "y" } else { "ies" }
    ));
    out
}

fn lint_output(env: &Env, findings: &[LintFinding]) -> Output {
    let problems = findings.iter().filter(|f| f.kind.is_problem()).count();
    let code = if problems > 0 { EXIT_FAILURE } else { 0 };
    if env.json {
        let list: Vec<Value> = findings.iter().map(LintFinding::to_json).collect();
        return Output {
            stdout: display::json_text(&json!({ "problems": problems, "findings": list })),
            code,
            ..Output::default()
        };
    }
    let mut out = Output {
        code,
        ..Output::default()
    };
    for f in findings {
        if f.file.is_empty() {
            // An agent's memory file that could not be read: the message names it.
            let line = format!("{}: {}", f.kind.as_str(), f.message);
            out.stdout.push_str(&display::line(&line));
            continue;
        }
        out.stdout.push_str(&display::line(&format!(
            "{} {}:{} {}{}: {}",
            f.agent.as_deref().unwrap_or(f.scope.as_str()),
            f.file,
            f.line,
            f.id.as_deref().map(|i| format!("{i} ")).unwrap_or_default(),
            f.kind.as_str(),
            f.message
        )));
    }
    out.stdout.push_str(&if problems == 0 {
        "memory: no problems found\n".to_string()
    } else {
        format!(
            "memory: {problems} problem{} found\n",
            if problems == 1 { "" } else { "s" }
        )
    });
    out
}

fn list(env: &Env, store: &MemoryStore, only: Option<ScopeArg>) -> Output {
    let scopes = scopes(only);
    let mut rows = Vec::new();
    for &scope in &scopes {
        match store.list_topics(scope) {
            Ok(topics) => rows.extend(topics.into_iter().map(|t| (scope, t))),
            Err(e) => return trouble(e),
        }
    }
    let mut out = Output::default();
    if env.json {
        let list: Vec<_> = rows
            .iter()
            .map(|(scope, t)| {
                json!({
                    "scope": scope.as_str(),
                    "name": t.name,
                    "file": store.dir(*scope).join(&t.file).to_string_lossy(),
                })
            })
            .collect();
        out.stdout = display::json_text(&json!({
            "project": store.dir(MemoryScope::Project).to_string_lossy(),
            "user": store.dir(MemoryScope::User).to_string_lossy(),
            "topics": list,
        }));
        return out;
    }
    for (scope, t) in &rows {
        out.stdout.push_str(&display::line(&format!(
            "{:<8} {}  {}",
            scope.as_str(),
            t.name,
            store.dir(*scope).join(&t.file).display()
        )));
    }
    out.stdout.push_str(&format!(
        "{} topic{}\n",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    ));
    for scope in scopes {
        out.stdout.push_str(&display::line(&format!(
            "{scope} memory: {}",
            store.dir(scope).display()
        )));
    }
    out
}

fn scopes(only: Option<ScopeArg>) -> Vec<MemoryScope> {
    match only {
        Some(s) => vec![scope_of(s)],
        None => vec![MemoryScope::Project, MemoryScope::User],
    }
}

fn show(env: &Env, store: &MemoryStore, topic: &str, only: Option<ScopeArg>) -> Output {
    let mut last = None;
    for scope in scopes(only) {
        match store.read_topic(scope, topic) {
            Ok(text) => {
                let stdout = if env.json {
                    let entries: Vec<Value> = store
                        .entries(scope, topic)
                        .unwrap_or_default()
                        .iter()
                        .map(|e| {
                            json!({
                                "id": e.meta.id, "line": e.line, "text": e.text,
                                "created": e.meta.created, "updated": e.meta.updated.clone().or(e.meta.created.clone()),
                                "paths": e.meta.paths, "topics": e.meta.topics, "pinned": e.meta.pinned,
                            })
                        })
                        .collect();
                    display::json_text(&json!({
                        "scope": scope.as_str(),
                        "name": topic,
                        "content": text,
                        "entries": entries,
                    }))
                } else {
                    // Each entry with its id (for forget and promote).
                    store
                        .entries(scope, topic)
                        .unwrap_or_default()
                        .iter()
                        .map(|e| format!("[{}]\n{}\n", e.meta.id, e.text))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                return Output {
                    stdout,
                    ..Output::default()
                };
            }
            Err(e @ MemoryError::UnknownTopic { .. }) => last = Some(e),
            Err(e) => return trouble(e),
        }
    }
    let mut names: Vec<String> = Vec::new();
    for scope in scopes(only) {
        if let Ok(topics) = store.list_topics(scope) {
            names.extend(topics.into_iter().map(|t| t.name));
        }
    }
    let near = memory_rules::base::suggest::close(topic, names.iter().map(String::as_str), 3);
    let mut out = match last {
        Some(e) => trouble(e),
        None => Output::fail(EXIT_FAILURE, format!("no memory topic '{topic}'")),
    };
    if !near.is_empty() {
        out.stderr.push_str(&display::line(&format!(
            "did you mean: {}?",
            near.join(", ")
        )));
    }
    out
}
