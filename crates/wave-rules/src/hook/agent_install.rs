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
//! The table is [`HookAgent::events`]; this copy is for reading.
//!
//! What the hooks run is [`crate::base::launch`]'s choice, as for Claude Code's
//! hooks and `mcp install`: `--command` as given; else, when the package is
//! installed in the project (`node_modules/.bin/wave-rules`), the project's
//! bin named the way the agent finds it from wherever it runs the hook
//! ([`launch::agent_hook_prefix`]: safe to commit); else this machine's
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
use clap::ValueEnum;
use jsonc_parser::cst::CstInputValue;
use std::path::{Path, PathBuf};

/// Seconds each agent gives our hook (Claude Code's too).
use memory_rules::base::limits::HOOK_TIMEOUT_SECS;

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
        (HookAgent::Windsurf, ScopeArg::Project) => base.join(".windsurf/hooks.json"),
        (HookAgent::Windsurf, ScopeArg::User) => base.join(".codeium/windsurf/hooks.json"),
        (HookAgent::Cline, ScopeArg::Project) => base.join(".clinerules/hooks"),
        (HookAgent::Cline, ScopeArg::User) => base.join("Documents/Cline/Hooks"),
        (HookAgent::Qwen, _) => base.join(".qwen/settings.json"),
        (HookAgent::Kiro, _) => base
            .join(".kiro/agents")
            .join(format!("{}.json", crate::hook::dialects::kiro::AGENT_NAME)),
        (HookAgent::Vscode, ScopeArg::Project) => base
            .join(".github/hooks")
            .join(crate::hook::dialects::vscode::FILE_NAME),
        (HookAgent::Vscode, ScopeArg::User) => base
            .join(".copilot/hooks")
            .join(crate::hook::dialects::vscode::FILE_NAME),
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
        HookAgent::Cline => "Cline runs hooks once they are turned on in its settings.",
        HookAgent::Qwen => "Qwen Code runs project hooks unless \"disableAllHooks\" is set in its settings.",
        HookAgent::Vscode => "VS Code runs these hooks in its Local agent harness (agent hooks are in Preview; chat.hookFilesLocations must keep .github/hooks). In its Copilot CLI, Claude or Codex harness, install those agents' hooks: `hook install --agent copilot`, `claude` or `codex`.",
        HookAgent::Kiro => "Kiro CLI runs an agent's hooks: start it with `kiro-cli chat --agent wave-rules` (or make it the default: `kiro-cli settings chat.defaultAgent wave-rules`). Its hooks cannot give path rules after a read or a write: `wave-rules export --to kiro` gives them to Kiro as fileMatch steering.",
        HookAgent::Windsurf => "Devin Desktop (Windsurf) runs these hooks before Cascade writes a file or runs a command: they refuse what an enforced rule forbids. Its hooks cannot give the model rules: run `wave-rules export --to devin` for those.",
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

/// Our entry for one of the agent's events, in its layout.
fn entry(agent: HookAgent, command: String, matcher: Option<&str>) -> CstInputValue {
    let text = |s: &str| CstInputValue::String(s.to_string());
    match agent {
        HookAgent::Copilot => settings_file::object(vec![
            ("type", text("command")),
            ("bash", CstInputValue::String(command)),
            (
                "timeoutSec",
                CstInputValue::Number(HOOK_TIMEOUT_SECS.to_string()),
            ),
        ]),
        HookAgent::Cursor => {
            settings_file::object(vec![("command", CstInputValue::String(command))])
        }
        // Flat entries, no matcher: VS Code's documented layout.
        HookAgent::Vscode => settings_file::object(vec![
            ("type", text("command")),
            ("command", CstInputValue::String(command)),
            (
                "timeout",
                CstInputValue::Number(HOOK_TIMEOUT_SECS.to_string()),
            ),
        ]),
        HookAgent::Kiro => settings_file::object(vec![
            ("command", CstInputValue::String(command)),
            (
                "timeout_ms",
                CstInputValue::Number((HOOK_TIMEOUT_SECS * 1000).to_string()),
            ),
        ]),
        // A refusal's reason reaches the agent from stderr; stdout is for the user.
        HookAgent::Windsurf => settings_file::object(vec![
            ("command", CstInputValue::String(command)),
            ("show_output", CstInputValue::Bool(false)),
        ]),
        _ => {
            // Gemini CLI counts the timeout in milliseconds, Codex in seconds.
            let timeout = if agent == HookAgent::Gemini {
                HOOK_TIMEOUT_SECS * 1000
            } else {
                HOOK_TIMEOUT_SECS
            };
            let hook = settings_file::object(vec![
                ("type", text("command")),
                ("command", CstInputValue::String(command)),
                ("timeout", CstInputValue::Number(timeout.to_string())),
            ]);
            let mut group = Vec::new();
            if let Some(m) = matcher {
                group.push(("matcher", text(m)));
            }
            group.push(("hooks", CstInputValue::Array(vec![hook])));
            settings_file::object(group)
        }
    }
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
    // A new Kiro agent file: the agent itself (every tool, Kiro's own resources).
    if agent == HookAgent::Kiro && object.get("name").is_none() {
        for (key, value) in crate::hook::dialects::kiro::agent_members() {
            object.append(key, settings_file::input(&value, &[]));
        }
    }
    for (theirs, ours, matcher) in agent.events() {
        let command = format!(
            "{prefix} hook --agent {} {ours}{}",
            agent.as_str(),
            launch::hook_options(ours.name(), edit_distance)
        );
        settings_file::add_hook(json, &object, theirs, entry(agent, command, *matcher))?;
    }
    if matches!(agent, HookAgent::Copilot | HookAgent::Cursor) && object.get("version").is_none() {
        object.append("version", CstInputValue::Number("1".into()));
    }
    Ok(())
}

pub fn install(env: &Env, agent: HookAgent, args: &InstallArgs) -> Output {
    if agent == HookAgent::Cline {
        return crate::hook::dialects::cline::install(env, args);
    }
    match try_install(env, agent, args) {
        Ok(out) | Err(out) => out,
    }
}

fn try_install(env: &Env, agent: HookAgent, args: &InstallArgs) -> Result<Output, Output> {
    let workdir = &env.config.workdir;
    let program = Program::locate(args.command.as_deref(), args.scope, workdir)?;
    let prefix = launch::agent_hook_prefix(agent, &program, workdir)
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
    if agent == HookAgent::Cline {
        return crate::hook::dialects::cline::uninstall(env, args);
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
    let made = |k: &String| {
        k == "version"
            || (agent == HookAgent::Kiro
                && crate::hook::dialects::kiro::agent_members()
                    .iter()
                    .any(|(m, _)| m == k))
    };
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
