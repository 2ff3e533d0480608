//! The command line of an agent's shell tool call.

use serde_json::Value;

/// The command line of a call to `name` with `input`, when `name` is one of
/// the agents' shell tools (see `ToolUse::shell_command`).
pub(super) fn command_line(name: &str, input: &Value) -> Option<String> {
    let field = match name {
        "Bash" | "bash" | "run_shell_command" | "shell_command" => "command",
        "shell" | "local_shell_call" | "local_shell" | "container.exec" => "command",
        "exec_command" => "cmd",
        _ => return None,
    };
    // A freeform input (a string) is the command itself.
    let value = match input {
        Value::String(_) => input,
        _ => input.get(field)?,
    };
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let argv: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            argv.filter(|a| !a.is_empty()).map(|a| from_argv(&a))
        }
        _ => None,
    }
}

/// An argv as a command line: the script of `bash -lc SCRIPT` (or `sh -c`,
/// `zsh -lc`, ...), else the words joined with shell quoting.
fn from_argv(argv: &[&str]) -> String {
    if let [shell, flag, script] = argv {
        let base = shell.rsplit('/').next().unwrap_or(shell);
        if matches!(base, "bash" | "sh" | "zsh" | "dash") && matches!(*flag, "-c" | "-lc" | "-ic") {
            return script.to_string();
        }
    }
    argv.iter()
        .map(|w| memory_rules::base::sh::quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_agents_shell_tool_gives_its_command_line() {
        let cases = [
            (
                "Bash",
                json!({"command": "ls -la", "description": "run"}),
                Some("ls -la"),
            ),
            ("bash", json!({"command": "npm test"}), Some("npm test")),
            (
                "run_shell_command",
                json!({"command": "git status"}),
                Some("git status"),
            ),
            (
                "exec_command",
                json!({"cmd": "cat a.txt"}),
                Some("cat a.txt"),
            ),
            (
                "shell",
                json!({"command": ["bash", "-lc", "rm -rf x"]}),
                Some("rm -rf x"),
            ),
            (
                "local_shell_call",
                json!({"command": ["ls", "my dir"]}),
                Some("ls 'my dir'"),
            ),
            (
                "shell",
                json!({"command": ["echo", "it's"]}),
                Some(r"echo 'it'\''s'"),
            ),
            ("Read", json!({"file_path": "a"}), None),
            ("bash", json!({"other": 1}), None),
        ];
        for (name, input, want) in cases {
            assert_eq!(
                command_line(name, &input).as_deref(),
                want,
                "{name} {input}"
            );
        }
    }
}
