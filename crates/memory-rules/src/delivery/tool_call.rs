//! One tool call as the agent sent it ([`ToolCall`]), and what the road
//! knows its tool to be ([`ToolKind`], or [`ToolKind::guess`] from a name it
//! does not know). Which files it touched is [`crate::delivery::touched`]'s.

/// What the road knows a tool to be, from its agent's tool names. Only a
/// skill tool changes how the input is read; the others say on which side
/// (read or written) a file key's files go. A tool the road does not know is
/// [`ToolKind::Other`]: its file keys and command still count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolKind {
    /// Reads files (`Read`, `read_file`, `view`).
    Read,
    /// Writes files (`Write`, `Edit`, `apply_patch`, `replace`).
    Write,
    /// Runs a shell command (`Bash`, `run_shell_command`, `exec_command`).
    Shell,
    /// Activates a skill (`Skill`, `activate_skill`, `skill`): its input
    /// names the skill (`skill`, `name` or `command`).
    Skill,
    /// Starts a subagent whose own start event does not carry its task
    /// (Claude Code's `Agent`): its input's task (`prompt`, `message`) and
    /// type (`subagent_type`, `agent_type`) are remembered, before it runs,
    /// for that start ([`crate::delivery::event::EventKind::ToolBefore`]).
    Subagent,
    /// Anything else.
    #[default]
    Other,
}

impl ToolKind {
    /// What a tool is, guessed from a name the road does not know (an SDK
    /// user's own tools): one that writes (`write`, `edit`, `create`,
    /// `patch`, `replace`, `save`, `delete`, `remove`, `move`, `rename`,
    /// `append`, `insert`, `update` in its name), runs a command (`bash`,
    /// `shell`, `exec`, `command`, `terminal`), reads (`read`, `view`,
    /// `cat`, `open`, `show`, `get`, `list`, `search`, `grep`, `glob`,
    /// `find`), else [`ToolKind::Other`]. Compared in lowercase, as words of
    /// `snake_case`, `kebab-case` or `camelCase`.
    pub fn guess(name: &str) -> ToolKind {
        let mut words: Vec<String> = Vec::new();
        let mut word = String::new();
        for c in name.chars() {
            let boundary = c == '_' || c == '-' || c == '.' || c == ' ' || c.is_uppercase();
            if boundary && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            if c.is_alphanumeric() {
                word.extend(c.to_lowercase());
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        if has(&[
            "write",
            "edit",
            "create",
            "patch",
            "replace",
            "save",
            "delete",
            "remove",
            "move",
            "rename",
            "append",
            "insert",
            "update",
            "multiedit",
        ]) {
            ToolKind::Write
        } else if has(&["bash", "shell", "exec", "command", "terminal", "sh"]) {
            ToolKind::Shell
        } else if has(&[
            "read", "view", "cat", "open", "show", "get", "list", "search", "grep", "glob", "find",
        ]) {
            ToolKind::Read
        } else {
            ToolKind::Other
        }
    }
}

/// One tool call, as the agent sent it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolCall {
    /// The agent's own name of the tool.
    pub name: String,
    pub kind: ToolKind,
    /// The tool's input (arguments), as the agent sent it.
    pub input: serde_json::Value,
}

impl ToolCall {
    pub fn new(name: impl Into<String>, kind: ToolKind, input: serde_json::Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            kind,
            input,
        }
    }

    /// The skill a skill tool's input names (`skill`, else `command`, else
    /// `name`), as [`crate::rules::skill_name::name`] gives it.
    pub fn skill(&self) -> Option<String> {
        if self.kind != ToolKind::Skill {
            return None;
        }
        ["skill", "command", "name"]
            .iter()
            .find_map(|k| self.input.get(*k).and_then(serde_json::Value::as_str))
            .and_then(|n| crate::rules::skill_name::name(n).ok())
    }

    /// The task a subagent tool's input gives its subagent (`prompt`, else
    /// `message`), and the subagent's type (`subagent_type`, `agent_type`,
    /// `agent_name`; '' when none).
    pub fn subagent_task(&self) -> Option<(String, String)> {
        if self.kind != ToolKind::Subagent {
            return None;
        }
        let text = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| self.input.get(*k).and_then(serde_json::Value::as_str))
                .map(str::to_string)
        };
        let task = text(&["prompt", "message"])?;
        let kind = text(&["subagent_type", "agent_type", "agent_name"]).unwrap_or_default();
        Some((task, kind))
    }
}
