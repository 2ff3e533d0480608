//! `wave-rules doctor`: what this machine and project look like to the
//! engine, and what would break: the engine and platform, the sources read
//! and their rule counts, a diagnostics summary, every installed hook and
//! MCP entry (stale: its program is gone; non-portable: a committed project
//! file names a path of this machine), the memory locations, and what
//! `memory lint` finds (each a problem).
//!
//! Exit 0 when nothing is wrong, 1 when an installed entry is stale or
//! non-portable or a rule has an error (so CI can run it), 2 on trouble.

use crate::base::args::{McpClient, ScopeArg};
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE};
use crate::base::launch;
use crate::hook::settings::{is_ours, EVENTS};
use crate::mcp::client_install;
use crate::mcp::client_install::ClientSettings;
use clap::ValueEnum;
use memory_rules::memory::{MemoryLocations, MemoryScope, MemoryStore};
use memory_rules::Severity;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One installed entry and what is wrong with it.
struct Entry {
    kind: &'static str,
    client: String,
    file: PathBuf,
    shared: bool,
    command: String,
    /// The program the entry starts, on this machine.
    program: PathBuf,
    problems: Vec<String>,
}

fn check(entry: &mut Entry, words: &[String], workdir: &Path) {
    entry.program = launch::expand(words.first().map(String::as_str).unwrap_or(""), workdir);
    let mut paths = vec![entry.program.clone()];
    // `node script`: the script must be there too.
    if let Some(script) = words.get(1).filter(|w| w.ends_with(".js")) {
        paths.push(launch::expand(script, workdir));
    }
    for p in &paths {
        if !p.is_file() {
            entry
                .problems
                .push(format!("stale: {} does not exist", p.display()));
        }
    }
    let machine_path = words.iter().take(2).any(|w| {
        let w = w.trim_matches(|c| c == '\'' || c == '"');
        Path::new(w).is_absolute()
    });
    if entry.shared && machine_path {
        entry.problems.push(
            "non-portable: a file teams commit names a path of this machine; run the install again with the package in the project's node_modules"
                .into(),
        );
    }
    if entry.shared && entry.kind == "mcp" {
        if let Some(project) = launch::project_of_node_modules(&entry.program) {
            if !project.starts_with(workdir) {
                entry.problems.push(format!(
                    "points into another project's node_modules ({})",
                    project.display()
                ));
            }
        }
    }
}

/// The words of a hook's shell command before `hook <event>`, unquoted;
/// a word starting with `"$CLAUDE_PROJECT_DIR"` is kept as written (for
/// [`launch::expand`]).
fn shell_words(prefix: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = prefix.trim();
    while !rest.is_empty() {
        if rest.starts_with("\"$CLAUDE_PROJECT_DIR\"") {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            words.push(rest[..end].to_string());
            rest = rest[end..].trim_start();
            continue;
        }
        let mut word = String::new();
        let mut quote: Option<char> = None;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => quote = Some(c),
                (None, c) if c.is_whitespace() => {
                    end = i;
                    break;
                }
                (None, c) => word.push(c),
            }
        }
        words.push(word);
        rest = rest[end..].trim_start();
    }
    words
}

fn hook_entries(env: &Env) -> Vec<Entry> {
    let workdir = &env.config.workdir;
    let mut files: Vec<(PathBuf, bool)> =
        crate::hook::settings::settings_paths(env, ScopeArg::Project)
            .into_iter()
            .map(|p| {
                let shared = p.ends_with("settings.json");
                (p, shared)
            })
            .collect();
    files.extend(
        crate::hook::settings::settings_paths(env, ScopeArg::User)
            .into_iter()
            .map(|p| (p, false)),
    );
    let mut out = Vec::new();
    for (file, shared) in files {
        if !file.exists() {
            continue;
        }
        let Some(value) = crate::base::settings_file::Json::read(&file)
            .ok()
            .and_then(|json| json.value())
        else {
            out.push(Entry {
                kind: "hook",
                client: "claude".into(),
                file: file.clone(),
                shared,
                command: String::new(),
                program: PathBuf::new(),
                problems: vec!["not valid JSON".into()],
            });
            continue;
        };
        for (event, _) in EVENTS {
            let groups = value
                .get("hooks")
                .and_then(|h| h.get(event))
                .and_then(Value::as_array);
            for hook in groups
                .into_iter()
                .flatten()
                .filter_map(|g| g.get("hooks").and_then(Value::as_array))
                .flatten()
            {
                let Some(command) = hook.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if !is_ours(command, event) {
                    continue;
                }
                let prefix = launch::without_hook_options(command)
                    .trim_end_matches(&format!(" hook {event}"));
                let words = shell_words(prefix);
                let mut entry = Entry {
                    kind: "hook",
                    client: format!("claude {event}"),
                    file: file.clone(),
                    shared,
                    command: command.to_string(),
                    program: PathBuf::new(),
                    problems: Vec::new(),
                };
                check(&mut entry, &words, workdir);
                out.push(entry);
            }
        }
    }
    out
}

fn mcp_entries(env: &Env) -> Vec<Entry> {
    let workdir = &env.config.workdir;
    let home = env.home_dir();
    let mut out = Vec::new();
    for client in McpClient::value_variants() {
        for scope in [ScopeArg::Project, ScopeArg::User] {
            let file = client.settings_path(scope, workdir, &home);
            let Some(words) = client_install::read_entry(*client, &file) else {
                continue;
            };
            let mut entry = Entry {
                kind: "mcp",
                client: client.as_str().into(),
                file,
                shared: scope == ScopeArg::Project,
                command: words.join(" "),
                program: PathBuf::new(),
                problems: Vec::new(),
            };
            check(&mut entry, &words, workdir);
            if scope == ScopeArg::User {
                if let Some(project) = launch::project_of_node_modules(&entry.program) {
                    entry.problems.push(format!(
                        "user settings point into the node_modules of one project ({})",
                        project.display()
                    ));
                }
            }
            out.push(entry);
        }
    }
    out
}

fn platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

/// What doctor found, before it is printed: every part of the report.
struct Checkup<'a> {
    /// One JSON object per source: scope, layer, pack, format, dir, rules.
    sources: Vec<Value>,
    policy: Option<Value>,
    /// The rules that replace another of their id.
    overrides: Vec<Value>,
    /// The diagnostics of the layers: locked, disabled, missing and stale packs.
    refused: Vec<&'a memory_rules::Diagnostic>,
    errors: usize,
    warnings: usize,
    entries: Vec<Entry>,
    /// One JSON object per memory scope, with its `memory lint` problems.
    memory: Value,
    lint_problems: usize,
    engine: &'static str,
    program: String,
    problems: usize,
}

pub fn run(env: &Env) -> Output {
    let loaded = env.load();
    let checkup = examine(env, &loaded);
    let stdout = if env.json {
        json_report(env, &checkup, loaded.rules.rules().len())
    } else {
        text_report(env, &checkup, loaded.rules.rules())
    };
    Output {
        stdout,
        stderr: String::new(),
        code: if checkup.problems > 0 {
            EXIT_FAILURE
        } else {
            0
        },
    }
}

fn examine<'a>(env: &Env, loaded: &'a memory_rules::Loaded) -> Checkup<'a> {
    let rules = loaded.rules.rules();
    let policy = env
        .config
        .policy
        .as_ref()
        .map(|d| json!({ "dir": d, "exists": d.is_dir() }));
    let overrides: Vec<Value> = rules
        .iter()
        .filter(|r| !r.origin.overrides.is_empty())
        .map(|r| json!({ "id": r.id, "provenance": r.origin.provenance, "locked": r.origin.locked, "overrides": r.origin.overrides }))
        .collect();
    let refused: Vec<&memory_rules::Diagnostic> = loaded
        .diagnostics
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                memory_rules::Code::Locked
                    | memory_rules::Code::Disabled
                    | memory_rules::Code::PackMissing
                    | memory_rules::Code::PackStale
            )
        })
        .collect();
    let errors = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = loaded.diagnostics.len() - errors;
    let mut entries = hook_entries(env);
    entries.extend(mcp_entries(env));
    let (memory, lint_problems) = memory_json(env, loaded);
    let engine = std::env::var_os(launch::SELF_ENV)
        .map(|_| "node addon")
        .unwrap_or("native executable");
    let program = launch::this_program().unwrap_or_default().join(" ");
    let problems: usize =
        entries.iter().map(|e| e.problems.len()).sum::<usize>() + errors + lint_problems;
    Checkup {
        sources: sources_json(env, loaded),
        policy,
        overrides,
        refused,
        errors,
        warnings,
        entries,
        memory,
        lint_problems,
        engine,
        program,
        problems,
    }
}

/// Every source with its layer: the project's packs, the config's own, the
/// policy's packs and rules; counted by the source each rule was read from
/// (a project-wide source such as agents-md's `.` is not every rule under
/// the project).
fn sources_json(env: &Env, loaded: &memory_rules::Loaded) -> Vec<Value> {
    let workdir = &env.config.workdir;
    let layers = memory_rules::sources::packs::layers(&env.config);
    let per_source = loaded.rules_per_source();
    layers
        .sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let count = per_source.get(i).copied().unwrap_or(0);
            json!({
                "scope": s.scope.as_str(),
                "layer": s.layer.kind(s.scope).as_str(),
                "pack": s.layer.pack().map(|p| p.label.clone()),
                "format": s.format.as_str(),
                "dir": if s.dir == *workdir { ".".to_string() } else { display::show(&s.dir, workdir) },
                "exists": s.dir.exists(),
                "rules": count,
            })
        })
        .collect()
}

/// The memory locations of both scopes, their topic counts and what
/// `memory lint` finds there with these rules (its problems are doctor's
/// too); and how many problems that is.
fn memory_json(env: &Env, loaded: &memory_rules::Loaded) -> (Value, usize) {
    let workdir = &env.config.workdir;
    let locations = MemoryLocations::new(&env.home_dir(), workdir);
    let store = MemoryStore::new(locations.clone());
    let topics = |scope| store.list_topics(scope).map(|t| t.len()).unwrap_or(0);
    let findings = memory_rules::memory::lint::lint(&store, Some(&loaded.rules), workdir);
    let lint: Vec<&memory_rules::memory::lint::LintFinding> =
        findings.iter().filter(|f| f.kind.is_problem()).collect();
    let lint_of = |scope: MemoryScope| -> Vec<Value> {
        lint.iter()
            .filter(|f| f.scope == scope)
            .map(|f| {
                json!({
                    "kind": f.kind.as_str(), "file": f.file, "line": f.line,
                    "id": f.id, "message": f.message,
                })
            })
            .collect()
    };
    let memory = json!([
        { "scope": "user", "dir": locations.user_dir, "topics": topics(MemoryScope::User), "lint": lint_of(MemoryScope::User) },
        { "scope": "project", "dir": locations.project_dir, "topics": topics(MemoryScope::Project), "lint": lint_of(MemoryScope::Project) },
    ]);
    (memory, lint.len())
}

fn json_report(env: &Env, c: &Checkup, rules: usize) -> String {
    let workdir = &env.config.workdir;
    let list: Vec<Value> = c
        .entries
        .iter()
        .map(|e| {
            json!({
                "kind": e.kind, "client": e.client, "file": e.file, "shared": e.shared,
                "command": e.command, "program": e.program, "problems": e.problems,
            })
        })
        .collect();
    display::json_text(&json!({
        "version": env!("CARGO_PKG_VERSION"),
        "platform": platform(),
        "engine": c.engine,
        "program": c.program,
        "projectBin": launch::project_bin_installed(workdir),
        "workdir": workdir,
        "home": env.home_dir(),
        "sources": c.sources,
        "sourcesFrom": env.sources_from.describe(),
        "policy": c.policy,
        "overrides": c.overrides,
        "layers": c.refused.iter().map(|d| display::diagnostic_json(d, workdir)).collect::<Vec<_>>(),
        "rules": rules,
        "diagnostics": { "errors": c.errors, "warnings": c.warnings },
        "installed": list,
        "memory": c.memory,
        "problems": c.problems,
    }))
}

fn text_report(env: &Env, c: &Checkup, rules: &[memory_rules::Rule]) -> String {
    let workdir = &env.config.workdir;
    let mut s = String::new();
    s.push_str(&format!(
        "wave-rules {} on {} ({}: {})\n",
        env!("CARGO_PKG_VERSION"),
        platform(),
        c.engine,
        c.program
    ));
    s.push_str(&format!("project: {}\n", workdir.display()));
    s.push_str(&format!(
        "project bin: {}\n",
        if let Some(bin) = launch::project_bin(workdir) {
            format!("{bin} (installs write portable entries)")
        } else {
            "none (npm install -D wave-memory-rules for portable installs)".into()
        }
    ));
    text_sources(&mut s, env, c);
    text_layers(&mut s, c, rules);
    text_installed(&mut s, workdir, &c.entries);
    text_memory(&mut s, c);
    s.push_str(&if c.problems == 0 {
        "\nno problems found\n".to_string()
    } else {
        format!(
            "\n{} problem{} found\n",
            c.problems,
            if c.problems == 1 { "" } else { "s" }
        )
    });
    s
}

/// `sources:`, one line each, then the policy directory.
fn text_sources(s: &mut String, env: &Env, c: &Checkup) {
    s.push_str(&format!(
        "\nsources (from {}):\n",
        env.sources_from.describe()
    ));
    for src in &c.sources {
        s.push_str(&format!(
            "  {:<8} {:<10} {:<40} {}{}\n",
            src["layer"].as_str().unwrap_or(""),
            src["format"].as_str().unwrap_or(""),
            src["dir"].as_str().unwrap_or(""),
            if src["exists"].as_bool() == Some(true) {
                format!(
                    "{} rule{}",
                    src["rules"],
                    if src["rules"] == 1 { "" } else { "s" }
                )
            } else {
                "absent".into()
            },
            src["pack"]
                .as_str()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default()
        ));
    }
    match env.config.policy.as_ref() {
        Some(d) if d.is_dir() => s.push_str(&format!("  policy: {} (locked)\n", d.display())),
        Some(d) => s.push_str(&format!(
            "  policy: {} (absent; {} names another)\n",
            d.display(),
            memory_rules::sources::packs::POLICY_ENV
        )),
        None => {}
    }
}

/// `layers:` (overrides and refused rules, when there are any), then the
/// rule and diagnostic counts.
fn text_layers(s: &mut String, c: &Checkup, rules: &[memory_rules::Rule]) {
    let overridden = display::override_lines(rules);
    if !overridden.is_empty() || !c.refused.is_empty() {
        s.push_str("\nlayers:\n");
        for l in overridden.lines() {
            s.push_str(&format!("  {l}\n"));
        }
        for d in &c.refused {
            s.push_str(&format!("  {}: {}\n", d.code, d.message));
        }
    }
    let (errors, warnings) = (c.errors, c.warnings);
    s.push_str(&format!(
        "  {} rule{} loaded; {errors} error{}, {warnings} warning{}{}\n",
        rules.len(),
        if rules.len() == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
        if errors + warnings > 0 {
            " (wave-rules validate shows them)"
        } else {
            ""
        }
    ));
}

/// `installed:`, each hook and MCP entry with its state and command.
fn text_installed(s: &mut String, workdir: &Path, entries: &[Entry]) {
    s.push_str("\ninstalled:\n");
    if entries.is_empty() {
        s.push_str("  no hooks or MCP entries (wave-rules hook install, wave-rules mcp install --client NAME)\n");
    }
    for e in entries {
        let state = if e.problems.is_empty() {
            if e.shared {
                "ok, portable".to_string()
            } else {
                "ok".to_string()
            }
        } else {
            e.problems.join("; ")
        };
        s.push_str(&format!(
            "  {:<5} {:<24} {}: {}\n        {}\n",
            e.kind,
            e.client,
            display::show(&e.file, workdir),
            state,
            e.command
        ));
    }
}

/// `memory:`, each scope's directory and topics, and its lint problems.
fn text_memory(s: &mut String, c: &Checkup) {
    s.push_str("\nmemory:\n");
    for m in c.memory.as_array().into_iter().flatten() {
        s.push_str(&format!(
            "  {:<8} {} ({} topic{})\n",
            m["scope"].as_str().unwrap_or(""),
            m["dir"].as_str().unwrap_or(""),
            m["topics"],
            if m["topics"] == 1 { "" } else { "s" }
        ));
        for f in m["lint"].as_array().into_iter().flatten() {
            s.push_str(&format!(
                "    {}:{} {}: {}\n",
                f["file"].as_str().unwrap_or(""),
                f["line"],
                f["kind"].as_str().unwrap_or(""),
                f["message"].as_str().unwrap_or("")
            ));
        }
    }
    if c.lint_problems > 0 {
        s.push_str("  (wave-rules memory lint lists them with the entries' ids)\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_prefixes_split_like_a_shell() {
        assert_eq!(
            shell_words("\"$CLAUDE_PROJECT_DIR\"/node_modules/.bin/wave-rules"),
            vec!["\"$CLAUDE_PROJECT_DIR\"/node_modules/.bin/wave-rules"]
        );
        assert_eq!(
            shell_words("'/usr/bin/node' '/a b/wave-rules.js'"),
            vec!["/usr/bin/node", "/a b/wave-rules.js"]
        );
        assert_eq!(shell_words("/opt/wave-rules"), vec!["/opt/wave-rules"]);
    }
}
