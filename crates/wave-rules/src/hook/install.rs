//! `wave-rules hook install --agent codex|gemini|copilot|cursor` (and
//! `uninstall`): our hooks in each agent's own file, in the project (or the
//! user's home with `--scope user`). Claude Code's are `settings`.
//!
//! | agent | project file | user file | events |
//! | --- | --- | --- | --- |
//! | `codex` | `.codex/hooks.json` | `~/.codex/hooks.json` | SessionStart, UserPromptSubmit, PreToolUse (matcher [`crate::hook::agent::PRE_TOOL_MATCHER`]), PostToolUse (matcher `Bash\|shell\|apply_patch\|exec_command\|Skill`), Stop, SubagentStart, SubagentStop |
//! | `gemini` | `.gemini/settings.json` (`hooks`) | `~/.gemini/settings.json` | SessionStart, BeforeAgent, BeforeTool (matcher `write_file\|replace\|run_shell_command\|invoke_agent`), AfterTool (matcher `read_file\|read_many_files\|write_file\|replace\|run_shell_command\|activate_skill\|invoke_agent`), AfterAgent, PreCompress |
//! | `copilot` | `.github/hooks/wave-rules.json` | `~/.copilot/hooks/wave-rules.json` | sessionStart, userPromptSubmitted, preToolUse, postToolUse, agentStop, preCompact, subagentStart, subagentStop |
//! | `cursor` | `.cursor/hooks.json` | `~/.cursor/hooks.json` | beforeSubmitPrompt, preToolUse, beforeShellExecution, beforeReadFile, afterFileEdit, afterShellExecution, stop |
//!
//! The table is [`HookAgent::events`]; this copy is for reading.
//!
//! What the hooks run is [`crate::launch`]'s choice, as for Claude Code's
//! hooks and `mcp install`: `--command` as given; else, when the package is
//! installed in the project (`node_modules/.bin/wave-rules`), the project's
//! bin named the way the agent finds it from wherever it runs the hook
//! ([`launch::agent_hook_prefix`]: safe to commit); else this machine's
//! program by its absolute path, with a warning not to commit the file (none
//! of these agents has a local, uncommitted hooks file). User scope never
//! points into one project's `node_modules`. Install replaces our previous
//! entries (a command naming `wave-rules` that ends in `hook --agent <agent>
//! <event>`, or an older `wave-rules hook --agent` one) and keeps every
//! other one. The files are JSON read and written whole (keys of objects
//! come back sorted).

use crate::args::{HookAgent, InstallArgs, ScopeArg};
use crate::env::{Env, Output, EXIT_TROUBLE};
use crate::launch::{self, Program, SettingsFile};
use clap::ValueEnum;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Seconds each agent gives our hook.
pub const TIMEOUT_SECS: u64 = 10;

pub fn path(agent: HookAgent, scope: ScopeArg, workdir: &Path, home: &Path) -> PathBuf {
    let base = match scope {
        ScopeArg::Project => workdir,
        ScopeArg::User => home,
    };
    match (agent, scope) {
        (HookAgent::Claude, _) => base.join(".claude/settings.json"),
        (HookAgent::Codex, _) => base.join(".codex/hooks.json"),
        (HookAgent::Gemini, _) => base.join(".gemini/settings.json"),
        (HookAgent::Copilot, ScopeArg::Project) => base.join(".github/hooks/wave-rules.json"),
        (HookAgent::Copilot, ScopeArg::User) => base.join(".copilot/hooks/wave-rules.json"),
        (HookAgent::Cursor, _) => base.join(".cursor/hooks.json"),
    }
}

/// The trust step each agent needs before it runs project hooks.
pub fn trust_step(agent: HookAgent) -> &'static str {
    match agent {
        HookAgent::Claude => "",
        HookAgent::Codex => "Codex runs project hooks only in a trusted project, once the hooks are trusted too: run `codex` once in the project and accept both (or add it under [projects] with trust_level = \"trusted\" in ~/.codex/config.toml).",
        HookAgent::Gemini => "Gemini CLI runs project hooks only in a trusted folder: trust it when asked (or set GEMINI_CLI_TRUST_WORKSPACE=true in CI).",
        HookAgent::Copilot => "Copilot CLI runs repository hooks only in a trusted folder: trust it when asked, or add it to \"trusted_folders\" in ~/.copilot/config.json.",
        HookAgent::Cursor => "Cursor reads .cursor/hooks.json when the project opens; restart Cursor after installing.",
    }
}

/// Is this hook command one of ours? It names `wave-rules` and ends in
/// `hook --agent <agent> <event>`, whatever runs it (older installs wrote
/// `npx --no-install wave-rules hook --agent ...`).
pub fn is_ours(command: &str) -> bool {
    let command = launch::without_hook_options(command);
    let words: Vec<&str> = command.split_whitespace().collect();
    let tail = match words.as_slice() {
        [.., hook, flag, agent, event] => [*hook, *flag, *agent, *event],
        _ => return false,
    };
    command.contains("wave-rules")
        && tail[..2] == ["hook", "--agent"]
        && HookAgent::value_variants()
            .iter()
            .filter(|a| a.as_str() == tail[2])
            .any(|a| a.events().iter().any(|(_, e, _)| e.name() == tail[3]))
}

fn command_of(hook: &Value) -> &str {
    ["command", "bash"]
        .iter()
        .find_map(|k| hook.get(*k).and_then(Value::as_str))
        .unwrap_or("")
}

/// Removes our entries from `doc.hooks` (both layouts: Claude's groups of
/// `{hooks: [...]}` and the flat lists of Copilot and Cursor).
fn remove_ours(doc: &mut Value) -> usize {
    let mut removed = 0;
    let Some(Value::Object(events)) = doc.get_mut("hooks") else {
        return 0;
    };
    for list in events.values_mut() {
        let Value::Array(items) = list else { continue };
        items.retain_mut(|item| {
            if let Some(Value::Array(inner)) = item.get_mut("hooks") {
                let before = inner.len();
                inner.retain(|h| !is_ours(command_of(h)));
                removed += before - inner.len();
                return !(inner.is_empty() && before > 0);
            }
            if is_ours(command_of(item)) {
                removed += 1;
                return false;
            }
            true
        });
    }
    events.retain(|_, v| !matches!(v, Value::Array(a) if a.is_empty()));
    if events.is_empty() && removed > 0 {
        if let Value::Object(o) = doc {
            o.remove("hooks");
        }
    }
    removed
}

/// Adds our entries to `doc` (an object).
fn add_ours(
    agent: HookAgent,
    doc: &mut Map<String, Value>,
    prefix: &str,
    edit_distance: Option<u64>,
) {
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if !hooks.is_object() {
        *hooks = Value::Object(Map::new());
    }
    let Value::Object(hooks) = hooks else { return };
    for (theirs, ours, matcher) in agent.events() {
        let command = format!(
            "{prefix} hook --agent {} {ours}{}",
            agent.as_str(),
            launch::hook_options(ours.name(), edit_distance)
        );
        let list = hooks
            .entry(theirs.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        let Value::Array(list) = list else { continue };
        let entry = match agent {
            HookAgent::Copilot => {
                json!({ "type": "command", "bash": command, "timeoutSec": TIMEOUT_SECS })
            }
            HookAgent::Cursor => json!({ "command": command }),
            _ => {
                let mut group = Map::new();
                if let Some(m) = matcher {
                    group.insert("matcher".into(), json!(m));
                }
                // Gemini CLI counts the timeout in milliseconds, Codex in seconds.
                let timeout = if agent == HookAgent::Gemini {
                    TIMEOUT_SECS * 1000
                } else {
                    TIMEOUT_SECS
                };
                group.insert(
                    "hooks".into(),
                    json!([{ "type": "command", "command": command, "timeout": timeout }]),
                );
                Value::Object(group)
            }
        };
        list.push(entry);
    }
    if matches!(agent, HookAgent::Copilot | HookAgent::Cursor) {
        doc.entry("version").or_insert(json!(1));
    }
}

fn read(path: &Path) -> Result<Map<String, Value>, Output> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Map::new()),
        Ok(text) => match serde_json::from_str(&text) {
            Ok(Value::Object(o)) => Ok(o),
            Ok(_) => Err(Output::fail(
                EXIT_TROUBLE,
                format!("{}: not a JSON object; left unchanged", path.display()),
            )),
            Err(e) => Err(Output::fail(
                EXIT_TROUBLE,
                format!(
                    "{}:{}:{}: not JSON ({e}); left unchanged",
                    path.display(),
                    e.line(),
                    e.column()
                ),
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(e) => Err(Output::fail(
            EXIT_TROUBLE,
            format!("cannot read {}: {e}", path.display()),
        )),
    }
}

fn write(path: &Path, doc: &Value) -> Result<(), Output> {
    let text = serde_json::to_string_pretty(doc).expect("a JSON value serializes") + "\n";
    crate::env::write_settings(path, &text)
}

pub fn install(env: &Env, agent: HookAgent, args: &InstallArgs) -> Output {
    let workdir = &env.config.workdir;
    let program = match Program::locate(args.command.as_deref(), args.scope, workdir) {
        Ok(p) => p,
        Err(out) => return out,
    };
    let prefix = launch::agent_hook_prefix(agent, &program, workdir);
    let file = path(agent, args.scope, workdir, &env.home_dir());
    let mut doc = match read(&file) {
        Ok(d) => Value::Object(d),
        Err(out) => return out,
    };
    let before = doc.clone();
    remove_ours(&mut doc);
    if let Value::Object(o) = &mut doc {
        add_ours(agent, o, &prefix, args.edit_distance);
    }
    let mut out = Output::default();
    if doc == before {
        out.stdout = format!(
            "the wave-rules hooks for {} are already in {}\n",
            agent.as_str(),
            file.display()
        );
    } else {
        if let Err(o) = write(&file, &doc) {
            return o;
        }
        out.stdout = format!(
            "installed the wave-rules hooks for {} in {}\n",
            agent.as_str(),
            file.display()
        );
    }
    out.stdout.push_str(&format!(
        "command: {prefix} hook --agent {} <event>\n{}\n",
        agent.as_str(),
        program.commit_note(match args.scope {
            ScopeArg::Project => SettingsFile::Shared,
            ScopeArg::User => SettingsFile::User,
        })
    ));
    let step = trust_step(agent);
    if !step.is_empty() {
        out.stdout.push_str(&format!("next: {step}\n"));
    }
    out
}

pub fn uninstall(env: &Env, agent: HookAgent, args: &InstallArgs) -> Output {
    let file = path(agent, args.scope, &env.config.workdir, &env.home_dir());
    let mut doc = match read(&file) {
        Ok(d) => Value::Object(d),
        Err(out) => return out,
    };
    let removed = remove_ours(&mut doc);
    if removed == 0 {
        return Output {
            stdout: format!("no wave-rules hooks in {}\n", file.display()),
            ..Output::default()
        };
    }
    let only_ours = matches!(&doc, Value::Object(o) if o.is_empty() || (o.len() == 1 && o.contains_key("version")));
    let result = if only_ours {
        std::fs::remove_file(&file).map_err(|e| {
            Output::fail(
                EXIT_TROUBLE,
                format!("cannot remove {}: {e}", file.display()),
            )
        })
    } else {
        write(&file, &doc)
    };
    if let Err(o) = result {
        return o;
    }
    Output {
        stdout: format!(
            "removed {removed} wave-rules hook{} from {}\n",
            if removed == 1 { "" } else { "s" },
            file.display()
        ),
        ..Output::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_is_a_wave_rules_command_ending_in_hook_agent_event() {
        for c in [
            "npx --no-install wave-rules hook --agent codex Stop",
            "node_modules/.bin/wave-rules hook --agent copilot PostToolUse",
            "\"$(git rev-parse --show-toplevel 2>/dev/null || pwd)\"/node_modules/.bin/wave-rules hook --agent codex SessionStart",
            "'/opt/my tools/wave-rules' hook --agent gemini UserPromptSubmit",
            "/usr/bin/node /x/wave-memory-rules/bin/wave-rules.js hook --agent cursor Stop",
        ] {
            assert!(is_ours(c), "{c}");
        }
        for c in [
            "my-linter",
            "wave-rules hook --agent codex",
            "other hook --agent codex Stop",
            "wave-rules hook --agent nobody Stop",
            "wave-rules hook --agent gemini Elsewhere",
            "wave-rules hook Stop",
        ] {
            assert!(!is_ours(c), "{c}");
        }
    }
}
