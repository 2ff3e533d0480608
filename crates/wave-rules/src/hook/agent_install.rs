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
//! | `windsurf` (`devin`) | `.windsurf/hooks.json` | `~/.codeium/windsurf/hooks.json` | pre_write_code, pre_run_command |
//! | `cline` | `.clinerules/hooks/<Event>` (a script each) | `~/Documents/Cline/Hooks/<Event>` | TaskStart, TaskResume, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact ([`crate::hook::dialects::cline`]) |
//! | `vscode` (Local harness) | `.github/hooks/wave-rules-vscode.json` | `~/.copilot/hooks/wave-rules-vscode.json` | SessionStart, PreToolUse, PostToolUse, Stop, PreCompact ([`crate::hook::dialects::vscode`]) |
//! | `kiro` | `.kiro/agents/wave-rules.json` (an agent: its `hooks`; `name`, `tools`, `resources` when new) | `~/.kiro/agents/wave-rules.json` | agentSpawn, userPromptSubmit, preToolUse ([`crate::hook::dialects::kiro`]) |
//!
//! The table is each agent's [`dialects::Dialect`] (its `events`, `file`,
//! `entry`); this copy is for reading.
//!
//! What the hooks run is [`crate::base::launch`]'s choice, as for Claude Code's
//! hooks and `mcp install`: `--command` as given; else, when the package is
//! installed in the project (`node_modules/.bin/wave-rules`), the project's
//! bin named the way the agent finds it from wherever it runs the hook
//! ([`dialects::hook_prefix`]: safe to commit); else this machine's
//! program by its absolute path, with a warning not to commit the file (none
//! of these agents has a local, uncommitted hooks file). User scope never
//! points into one project's `node_modules`. Install replaces our previous
//! entries (a command naming `wave-rules` that ends in `hook --agent <agent>
//! <event>`, or an older `wave-rules hook --agent` one) and keeps every
//! other one. The files are edited in place by the one settings editor
//! (`settings_file`): comments (Gemini CLI reads JSON with comments), key
//! order and every byte not ours stay as they were.

use crate::base::args::{HookAgent, InstallArgs, ScopeArg};
use crate::base::env::{Env, Output};
use crate::base::launch::{self, Program, SettingsFile};
use crate::base::settings_file::{self, Json};
use crate::hook::agent::AgentDialect;
use crate::hook::dialects;
use clap::ValueEnum;
use jsonc_parser::cst::CstInputValue;
use std::path::{Path, PathBuf};

pub fn path(agent: HookAgent, scope: ScopeArg, workdir: &Path, home: &Path) -> PathBuf {
    let base = match scope {
        ScopeArg::Project => workdir,
        ScopeArg::User => home,
    };
    base.join(dialects::of(agent).file(scope))
}

/// The trust step each agent needs before it runs project hooks.
pub fn trust_step(agent: HookAgent) -> &'static str {
    dialects::of(agent).trust_step()
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

/// Removes our entries (both layouts); returns how many went.
fn remove_ours(json: &Json) -> Result<usize, Output> {
    let object = json.object()?;
    Ok(settings_file::remove_hooks(&object, |_, command| {
        is_ours(command)
    }))
}

/// Adds our entries (and Copilot's and Cursor's `version`).
fn add_ours(
    json: &Json,
    agent: HookAgent,
    prefix: &str,
    edit_distance: Option<u64>,
) -> Result<(), Output> {
    let object = json.object()?;
    let dialect = dialects::of(agent);
    // A new file's own members (Kiro's agent: every tool, its own resources).
    let members = dialect.file_members();
    if members
        .first()
        .is_some_and(|(k, _)| object.get(k).is_none())
    {
        for (key, value) in members {
            object.append(key, settings_file::input(&value, &[]));
        }
    }
    for (theirs, ours, matcher) in agent.events() {
        let command = format!(
            "{prefix} hook --agent {} {ours}{}",
            agent.as_str(),
            launch::hook_options(ours.name(), edit_distance)
        );
        settings_file::add_hook(json, &object, theirs, dialect.entry(command, *matcher))?;
    }
    if dialect.versioned() && object.get("version").is_none() {
        object.append("version", CstInputValue::Number("1".into()));
    }
    Ok(())
}

pub fn install(env: &Env, agent: HookAgent, args: &InstallArgs) -> Output {
    if let Some(out) = dialects::of(agent).install(env, args) {
        return out;
    }
    match try_install(env, agent, args) {
        Ok(out) | Err(out) => out,
    }
}

fn try_install(env: &Env, agent: HookAgent, args: &InstallArgs) -> Result<Output, Output> {
    let workdir = &env.config.workdir;
    let program = Program::locate(args.command.as_deref(), args.scope, workdir)?;
    let prefix = dialects::hook_prefix(agent, &program, workdir)
        + &crate::hook::settings::sources_flag(env, args.scope);
    let file = path(agent, args.scope, workdir, &env.home_dir());
    let json = Json::read(&file)?;
    remove_ours(&json)?;
    add_ours(&json, agent, &prefix, args.edit_distance)?;
    let mut stdout = if json.save()? {
        format!(
            "installed the wave-rules hooks for {} in {}\n",
            agent.as_str(),
            file.display()
        )
    } else {
        format!(
            "the wave-rules hooks for {} are already in {}\n",
            agent.as_str(),
            file.display()
        )
    };
    stdout.push_str(&format!(
        "command: {prefix} hook --agent {} <event>\n{}\n",
        agent.as_str(),
        program.commit_note(match args.scope {
            ScopeArg::Project => SettingsFile::Shared,
            ScopeArg::User => SettingsFile::User,
        })
    ));
    let step = trust_step(agent);
    if !step.is_empty() {
        stdout.push_str(&format!("next: {step}\n"));
    }
    Ok(Output {
        stdout,
        ..Output::default()
    })
}

pub fn uninstall(env: &Env, agent: HookAgent, args: &InstallArgs) -> Output {
    if let Some(out) = dialects::of(agent).uninstall(env, args) {
        return out;
    }
    match try_uninstall(env, agent, args) {
        Ok(out) | Err(out) => out,
    }
}

fn try_uninstall(env: &Env, agent: HookAgent, args: &InstallArgs) -> Result<Output, Output> {
    let file = path(agent, args.scope, &env.config.workdir, &env.home_dir());
    let json = Json::read(&file)?;
    let removed = remove_ours(&json)?;
    if removed == 0 {
        return Ok(Output {
            stdout: format!("no wave-rules hooks in {}\n", file.display()),
            ..Output::default()
        });
    }
    // Nothing but what install made (`version` for Copilot and Cursor): the file goes.
    let object = json.object()?;
    let rest: Vec<String> = object
        .properties()
        .iter()
        .filter_map(|p| p.decoded_name())
        .collect();
    let members = dialects::of(agent).file_members();
    let made = |k: &String| k == "version" || members.iter().any(|(m, _)| m == k);
    let only_ours = rest.iter().all(made);
    if only_ours && !settings_file::has_comments(&object.to_string()) {
        settings_file::remove(&file)?;
    } else {
        json.save()?;
    }
    Ok(Output {
        stdout: format!(
            "removed {removed} wave-rules hook{} from {}\n",
            if removed == 1 { "" } else { "s" },
            file.display()
        ),
        ..Output::default()
    })
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
