//! The hook's input: its JSON read from standard input (at most
//! `MAX_HOOK_INPUT_BYTES`), each agent's payload read by its dialect
//! (`agent::payload`), and where the project is.

use super::agent;
use crate::base::args::HookAgent;
use serde_json::Value;
use std::path::PathBuf;

use memory_rules::base::limits::MAX_HOOK_INPUT_BYTES;

/// The hook's input: what the agent's payload says (`agent::payload`).
/// Unusable input gives an empty payload and a problem to report.
#[derive(Debug, Default)]
pub struct Input {
    /// The agent that sent it (its dialect: see `agent`).
    pub agent: HookAgent,
    pub payload: agent::Payload,
    pub problem: Option<String>,
}

impl Input {
    pub fn read(agent: HookAgent, stdin: impl FnOnce() -> std::io::Result<Vec<u8>>) -> Input {
        let bytes = match stdin() {
            Ok(b) => b,
            Err(e) => return Input::problem(agent, format!("cannot read the hook input: {e}")),
        };
        if bytes.len() > MAX_HOOK_INPUT_BYTES {
            return Input::problem(
                agent,
                format!("hook input over {MAX_HOOK_INPUT_BYTES} bytes; skipped"),
            );
        }
        Self::parse_for(agent, &bytes)
    }

    fn problem(agent: HookAgent, problem: String) -> Input {
        Input {
            agent,
            payload: agent::Payload::default(),
            problem: Some(problem),
        }
    }

    /// One agent's payload.
    pub fn parse_for(agent: HookAgent, bytes: &[u8]) -> Input {
        match serde_json::from_slice(bytes) {
            Ok(Value::Object(v)) => Input {
                agent,
                payload: agent::payload(agent, &v),
                problem: None,
            },
            Ok(_) => Input::problem(agent, "hook input is not a JSON object".into()),
            Err(e) => Input::problem(agent, format!("hook input is not JSON: {e}")),
        }
    }

    /// Where the project is: `$CLAUDE_PROJECT_DIR` (set by Claude Code for
    /// hooks), else the project root at or above the input's `cwd` (the
    /// core's `project_root`: an agent started in a subdirectory, as Codex
    /// may be, sends that subdirectory as `cwd`).
    pub fn project_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("CLAUDE_PROJECT_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        let cwd = PathBuf::from(self.payload.cwd.as_ref()?);
        let home = crate::base::env::user_home();
        Some(
            memory_rules::sources::project_root(&cwd, home.as_deref())
                .map(|r| r.dir)
                .unwrap_or(cwd),
        )
    }
}
