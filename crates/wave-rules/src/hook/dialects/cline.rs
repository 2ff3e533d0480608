//! Cline's hooks (`hook --agent cline`). From Cline's docs
//! (docs.cline.bot/customization/hooks and its hook reference,
//! docs.cline.bot/features/hooks/hook-reference):
//!
//! - a hook is an executable file named after its event, without an
//!   extension, in `.clinerules/hooks/` (the project's) or
//!   `~/Documents/Cline/Hooks/` (the user's); hooks are turned on in Cline's
//!   settings;
//! - every payload: `clineVersion`, `hookName`, `timestamp`, `taskId` (the
//!   conversation), `workspaceRoots`, `userId`, and one object of the event:
//!   `taskStart` / `taskResume` (`taskMetadata`), `userPromptSubmit`
//!   (`prompt`), `preToolUse` (`toolName`, `parameters`, all strings),
//!   `postToolUse` (`toolName`, `parameters`, `result`, `success`,
//!   `executionTimeMs`), `preCompact`;
//! - the answer, JSON on stdout: `{"cancel": bool, "contextModification":
//!   text, "errorMessage": text}`; `contextModification` is added to the
//!   conversation, `cancel: true` stops the tool (PreToolUse) with
//!   `errorMessage`.
//!
//! Cline's tools: `read_file`, `write_to_file`, `replace_in_file`,
//! `execute_command`, ... (their `path`, `command` parameters).

use super::{Dialect, HookEntry, Payload};
use crate::base::args::{HookAction, HookAgent, HookEvent, InstallArgs, ScopeArg};
use crate::base::env::{Env, Output, EXIT_FAILURE};
use memory_rules::delivery::{ToolCall, ToolKind};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

pub struct Cline;

/// The hooks installed: (Cline's event, its file's name, ours).
pub const EVENTS: [HookEntry; 6] = [
    ("TaskStart", HookEvent::SessionStart, None),
    ("TaskResume", HookEvent::SessionStart, None),
    ("UserPromptSubmit", HookEvent::UserPromptSubmit, None),
    ("PreToolUse", HookEvent::PreToolUse, None),
    ("PostToolUse", HookEvent::PostToolUse, None),
    ("PreCompact", HookEvent::PreCompact, None),
];

impl Dialect for Cline {
    fn agent(&self) -> HookAgent {
        HookAgent::Cline
    }

    fn events(&self) -> &'static [HookEntry] {
        &EVENTS
    }

    fn delivers(&self, event: &HookAction) -> bool {
        !matches!(event, HookAction::Stop)
    }

    fn tool_kind(&self, name: &str) -> ToolKind {
        tool_kind(name)
    }

    fn payload(&self, v: &Map<String, Value>) -> Payload {
        let c = payload(v);
        Payload {
            session: c.session,
            cwd: c.cwd,
            prompt: c.prompt,
            source: c.source,
            tool: c.tool,
            ..Payload::default()
        }
    }

    fn refusal(&self, reason: &str) -> Value {
        refusal(reason)
    }

    fn subagent_context(&self, _text: &str, _tool: Option<&ToolCall>) -> Option<Value> {
        None
    }

    fn output(&self, _event: &HookAction, text: &str) -> Value {
        context(text)
    }

    fn file(&self, scope: ScopeArg) -> PathBuf {
        PathBuf::from(match scope {
            ScopeArg::Project => ".clinerules/hooks",
            ScopeArg::User => "Documents/Cline/Hooks",
        })
    }

    fn trust_step(&self) -> &'static str {
        "Cline runs hooks once they are turned on in its settings."
    }

    fn install(&self, env: &Env, args: &InstallArgs) -> Option<Output> {
        Some(install(env, args))
    }

    fn uninstall(&self, env: &Env, args: &InstallArgs) -> Option<Output> {
        Some(uninstall(env, args))
    }
}

/// What a Cline payload says (its dialect makes it the common `Payload`).
#[derive(Debug, Default, PartialEq)]
pub struct ClineEvent {
    /// `taskId`.
    pub session: Option<String>,
    /// The first of `workspaceRoots`.
    pub cwd: Option<String>,
    pub prompt: Option<String>,
    /// `startup` for TaskStart, `resume` for TaskResume.
    pub source: Option<String>,
    pub tool: Option<ToolCall>,
}

/// What each of Cline's tools does, as far as the core needs to know.
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "read_file" => ToolKind::Read,
        "write_to_file" | "replace_in_file" | "apply_patch" => ToolKind::Write,
        "execute_command" => ToolKind::Shell,
        _ => ToolKind::Other,
    }
}

/// Reads a Cline payload.
pub fn payload(v: &Map<String, Value>) -> ClineEvent {
    let text = |o: Option<&Value>| {
        o.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let hook = text(v.get("hookName")).unwrap_or_default();
    let tool = ["preToolUse", "postToolUse"]
        .iter()
        .find_map(|k| v.get(*k))
        .and_then(|t| {
            let name = text(t.get("toolName"))?;
            let input = t.get("parameters").cloned().unwrap_or(Value::Null);
            Some(ToolCall::new(name.clone(), tool_kind(&name), input))
        });
    ClineEvent {
        session: text(v.get("taskId")),
        cwd: text(v.get("workspaceRoots").and_then(|r| r.get(0))),
        prompt: text(v.get("userPromptSubmit").and_then(|u| u.get("prompt"))),
        source: match hook.as_str() {
            "TaskStart" => Some("startup".into()),
            "TaskResume" => Some("resume".into()),
            _ => None,
        },
        tool,
    }
}

/// The context for the conversation.
pub fn context(text: &str) -> Value {
    json!({ "cancel": false, "contextModification": text })
}

/// A refusal: the tool stops, the reason both shown and added to the
/// conversation.
pub fn refusal(reason: &str) -> Value {
    json!({ "cancel": true, "errorMessage": reason, "contextModification": reason })
}

/// The first line of each script we write: what tells it is ours.
const MARK: &str = "# wave-rules hook (written by `wave-rules hook install --agent cline`)";

fn hooks_dir(env: &Env, scope: ScopeArg) -> PathBuf {
    match scope {
        ScopeArg::Project => env.config.workdir.join(".clinerules/hooks"),
        ScopeArg::User => env.home_dir().join("Documents/Cline/Hooks"),
    }
}

/// Whether the file at `path` is a script we wrote (`None`: no file).
fn ours(path: &Path) -> Result<Option<bool>, Output> {
    match crate::base::settings_file::read_text(path)? {
        None => Ok(None),
        Some(text) => Ok(Some(text.lines().nth(1) == Some(MARK))),
    }
}

/// `hook install --agent cline`: one executable script per event. A hook
/// file of the same name that is not ours is an error naming it, and no
/// script is written (Cline runs one file per event: ours cannot join it).
pub fn install(env: &Env, args: &InstallArgs) -> Output {
    match try_install(env, args) {
        Ok(out) | Err(out) => out,
    }
}

fn try_install(env: &Env, args: &InstallArgs) -> Result<Output, Output> {
    let workdir = &env.config.workdir;
    let program =
        crate::base::launch::Program::locate(args.command.as_deref(), args.scope, workdir)?;
    let prefix = super::hook_prefix(HookAgent::Cline, &program, workdir);
    let dir = hooks_dir(env, args.scope);
    for (name, _, _) in EVENTS {
        let path = dir.join(name);
        if ours(&path)? == Some(false) {
            return Err(Output::fail(
                EXIT_FAILURE,
                format!(
                    "{} is a Cline hook that wave-rules did not write (Cline runs one file per event); left unchanged and nothing installed: call `{prefix} hook --agent cline {}` from it",
                    path.display(),
                    EVENTS.iter().find(|e| e.0 == name).map_or("", |e| e.1.name())
                ),
            ));
        }
    }
    for (name, ours, _) in EVENTS {
        let script = format!(
            "#!/bin/sh\n{MARK}\nexec {prefix} hook --agent cline {}\n",
            ours.name()
        );
        write_script(&dir.join(name), &script)?;
    }
    Ok(Output {
        stdout: format!(
            "installed the wave-rules hooks for cline in {}\ncommand: {prefix} hook --agent cline <event>\nnext: turn hooks on in Cline's settings (Settings > Features > Hooks).\n",
            dir.display()
        ),
        ..Output::default()
    })
}

fn write_script(path: &Path, text: &str) -> Result<(), Output> {
    crate::base::settings_file::save(path, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(path, mode).map_err(|e| {
            Output::fail(
                crate::base::env::EXIT_TROUBLE,
                format!("cannot make {} executable: {e}", path.display()),
            )
        })?;
    }
    Ok(())
}

/// `hook uninstall --agent cline`: our scripts go, any other stays.
pub fn uninstall(env: &Env, args: &InstallArgs) -> Output {
    let dir = hooks_dir(env, args.scope);
    let mut removed = 0;
    for (name, _, _) in EVENTS {
        let path = dir.join(name);
        match ours(&path) {
            Ok(Some(true)) => {
                if let Err(out) = crate::base::settings_file::remove(&path) {
                    return out;
                }
                removed += 1;
            }
            Ok(_) => {}
            Err(out) => return out,
        }
    }
    Output {
        stdout: format!(
            "removed {removed} wave-rules hooks from {}\n",
            dir.display()
        ),
        ..Output::default()
    }
}
