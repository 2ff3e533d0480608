//! `wave-rules hook install` / `uninstall`: our entries in Claude Code's
//! settings (`<workdir>/.claude/settings.json`, or `settings.local.json`
//! when the command names a path of this machine, or
//! `~/.claude/settings.json` with `--scope user`).
//!
//! Install merges, through the one settings editor (`settings_file`): every
//! other setting, every other hook and every comment stays as it was, byte
//! for byte; an earlier install of ours is replaced, so running it twice
//! changes nothing. Our entries are the commands that end in
//! `hook <Event>` and name `wave-rules`; uninstall removes those and nothing
//! else. What the command runs is [`crate::base::launch`]'s choice: the project's
//! `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/wave-rules` when the package is
//! installed there (safe to commit), else this program's absolute path (in
//! the local file), or `--command`; never a PATH lookup.

use crate::base::args::{HookEvent, InstallArgs, ScopeArg};
use crate::base::env::{Env, Output, SourcesFrom, EXIT_FAILURE};
use crate::base::launch::{self, Program};
use crate::base::settings_file::{self, Json};
use jsonc_parser::cst::CstInputValue;
use std::path::PathBuf;

/// The events we install (every [`HookEvent`], by its name), and the matcher of each.
pub const EVENTS: [(&str, Option<&str>); 7] = [
    (HookEvent::SessionStart.name(), None),
    (HookEvent::UserPromptSubmit.name(), None),
    (
        HookEvent::PreToolUse.name(),
        Some(crate::hook::agent::PRE_TOOL_MATCHER),
    ),
    (
        HookEvent::PostToolUse.name(),
        Some("Read|Edit|MultiEdit|Write|NotebookEdit|Bash|Skill"),
    ),
    (HookEvent::Stop.name(), None),
    (HookEvent::SubagentStart.name(), None),
    (HookEvent::SubagentStop.name(), None),
];
pub use memory_rules::base::limits::HOOK_TIMEOUT_SECS;

/// The settings files a scope's hooks may live in: the shared one and, for
/// the project, the local one (machine paths go there).
pub fn settings_paths(env: &Env, scope: ScopeArg) -> Vec<PathBuf> {
    match scope {
        ScopeArg::Project => {
            let dir = env.config.workdir.join(".claude");
            vec![dir.join("settings.json"), dir.join("settings.local.json")]
        }
        ScopeArg::User => vec![env.home_dir().join(".claude").join("settings.json")],
    }
}

/// Is this hook command one of ours for `event`?
pub fn is_ours(command: &str, event: &str) -> bool {
    let command = launch::without_hook_options(command);
    command.contains("wave-rules") && command.ends_with(&format!(" hook {event}"))
}

/// Removes our hooks from the file's `hooks`; what that empties goes too.
fn remove_ours(json: &Json) -> Result<usize, Output> {
    let object = json.object()?;
    Ok(settings_file::remove_hooks(&object, |event, command| {
        is_ours(command, event)
    }))
}

pub fn install(env: &Env, args: &InstallArgs) -> Output {
    match try_install(env, args) {
        Ok(out) | Err(out) => out,
    }
}

fn try_install(env: &Env, args: &InstallArgs) -> Result<Output, Output> {
    let workdir = &env.config.workdir;
    let program = Program::locate(args.command.as_deref(), args.scope, workdir)?;
    let (path, file) = launch::claude_hook_settings(&program, args.scope, workdir, &env.home_dir());
    // An earlier install in the scope's other file goes, so the hooks never run twice.
    let mut moved = Vec::new();
    for other in settings_paths(env, args.scope) {
        if other == path || !other.exists() {
            continue;
        }
        let json = Json::read(&other)?;
        if remove_ours(&json)? > 0 {
            json.save()?;
            moved.push(other);
        }
    }
    let json = Json::read(&path)?;
    let object = json.object()?;
    remove_ours(&json)?;
    let flag = sources_flag(env, args.scope);
    for (event, matcher) in EVENTS {
        let hook = settings_file::object(vec![
            ("type", CstInputValue::String("command".into())),
            (
                "command",
                CstInputValue::String(format!(
                    "{}{flag} hook {event}{}",
                    launch::claude_hook_prefix(&program),
                    launch::hook_options(event, args.edit_distance)
                )),
            ),
            (
                "timeout",
                CstInputValue::Number(HOOK_TIMEOUT_SECS.to_string()),
            ),
        ]);
        let mut group = Vec::new();
        if let Some(m) = matcher {
            group.push(("matcher", CstInputValue::String(m.to_string())));
        }
        group.push(("hooks", CstInputValue::Array(vec![hook])));
        settings_file::add_hook(&json, &object, event, settings_file::object(group))?;
    }
    let mut out = Output::default();
    for other in &moved {
        out.stdout.push_str(&format!(
            "removed the earlier wave-rules hooks from {}\n",
            other.display()
        ));
    }
    let note = program.commit_note(file);
    let prefix = launch::claude_hook_prefix(&program);
    if !json.save()? {
        out.stdout.push_str(&format!(
            "wave-rules hooks already installed in {}\ncommand: {prefix} hook <event>\n{note}\n",
            path.display()
        ));
        return Ok(out);
    }
    out.stdout.push_str(&format!(
        "installed wave-rules hooks ({}) in {}\ncommand: {prefix} hook <event>\n{note}\n",
        EVENTS
            .iter()
            .map(|(e, _)| *e)
            .collect::<Vec<_>>()
            .join(", "),
        path.display()
    ));
    Ok(out)
}

/// The names `--sources` gave, when the command line chose them that way.
fn chosen_names(env: &Env) -> Option<&[String]> {
    match &env.sources_from {
        SourcesFrom::CommandLine(names) if !names.is_empty() => Some(names),
        _ => None,
    }
}

/// ` --sources a,b` for a user-scope hook command (one file for every
/// project, so the choice travels in the command), '' otherwise.
pub fn sources_flag(env: &Env, scope: ScopeArg) -> String {
    match (chosen_names(env), scope) {
        (Some(names), ScopeArg::User) => format!(" --sources {}", names.join(",")),
        _ => String::new(),
    }
}

/// `hook install --sources NAMES` in a project: the choice written as
/// `sources = [...]` in `.wave/config.toml`, which every road reads (the
/// hooks, `mcp`, the binding's engine, `report`, `doctor`). Every other
/// key, comment and space of the file stays; a file that is not TOML is an
/// error naming it (line and column), and it is left as it was.
pub fn save_sources(env: &Env, scope: ScopeArg) -> Result<String, Output> {
    let Some(names) = chosen_names(env).filter(|_| scope == ScopeArg::Project) else {
        return Ok(String::new());
    };
    let path = env
        .config
        .workdir
        .join(memory_rules::sources::chosen::PROJECT_CONFIG);
    let text = settings_file::read_text(&path)?.unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        Output::fail(
            EXIT_FAILURE,
            format!(
                "{}: not TOML ({}); left unchanged",
                path.display(),
                e.to_string().lines().next().unwrap_or_default()
            ),
        )
    })?;
    let mut list = toml_edit::Array::new();
    for n in names {
        list.push(n.as_str());
    }
    let same = doc
        .get("sources")
        .and_then(|v| v.as_array())
        .is_some_and(|a| {
            a.iter()
                .map(|v| v.as_str())
                .eq(names.iter().map(|n| Some(n.as_str())))
        });
    if same {
        return Ok(format!(
            "sources: already [{}] in {}\n",
            names.join(", "),
            path.display()
        ));
    }
    doc.insert("sources", toml_edit::value(list));
    settings_file::save(&path, &doc.to_string())?;
    Ok(format!(
        "sources: [{}] written to {} (the hooks, MCP, the SDK adapters and report read it)\n",
        names.join(", "),
        path.display()
    ))
}

pub fn uninstall(env: &Env, args: &InstallArgs) -> Output {
    let mut out = Output::default();
    for path in settings_paths(env, args.scope) {
        if !path.exists() {
            continue;
        }
        let removed = match Json::read(&path).and_then(|json| {
            let n = remove_ours(&json)?;
            if n > 0 {
                json.save()?;
            }
            Ok(n)
        }) {
            Ok(n) => n,
            Err(fail) => return fail,
        };
        if removed == 0 {
            continue;
        }
        out.stdout.push_str(&format!(
            "removed {removed} wave-rules hook{} from {}\n",
            if removed == 1 { "" } else { "s" },
            path.display()
        ));
    }
    if out.stdout.is_empty() {
        let paths: Vec<String> = settings_paths(env, args.scope)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        out.stdout = format!("no wave-rules hooks in {}\n", paths.join(" or "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_is_recognised_by_name_and_event() {
        assert!(is_ours("/opt/bin/wave-rules hook Stop", "Stop"));
        assert!(is_ours("'/usr/bin/node' '/x/node_modules/wave-memory-rules/bin/wave-rules.js' hook PostToolUse", "PostToolUse"));
        assert!(!is_ours("/opt/bin/wave-rules hook Stop", "SessionStart"));
        assert!(!is_ours("my-linter hook Stop", "Stop"));
    }
}
