//! `wave-rules mcp install --client NAME [--scope project|user]` and
//! `mcp uninstall`: our server entry in each agent's MCP settings.
//!
//! | client | project | user | entry |
//! | --- | --- | --- | --- |
//! | `claude` | `.mcp.json` | `~/.claude.json` | `mcpServers.wave-rules {type: stdio, command, args}` |
//! | `cursor` | `.cursor/mcp.json` | `~/.cursor/mcp.json` | `mcpServers.wave-rules {command, args}` |
//! | `vscode` | `.vscode/mcp.json` | the user profile's `mcp.json` | `servers.wave-rules {type: stdio, command, args}` |
//! | `codex` | `.codex/config.toml` | `~/.codex/config.toml` (default) | `[mcp_servers.wave-rules] command, args` |
//! | `opencode` | `opencode.json` | `~/.config/opencode/opencode.json` | `mcp.wave-rules {type: local, command: [...], enabled}` |
//! | `gemini` | `.gemini/settings.json` | `~/.gemini/settings.json` | `mcpServers.wave-rules {command, args}` |
//! | `copilot` | `.mcp.json` | `~/.copilot/mcp-config.json` | `mcpServers.wave-rules {type: local, command, args, tools: ["*"]}` |
//!
//! The files are edited in place, not rewritten: JSON (with comments, as
//! these tools accept) through a concrete syntax tree (`jsonc-parser`), TOML
//! through `toml_edit`, so every other entry, comment and space stays byte
//! for byte. Install is idempotent (an entry that is already ours and the
//! same leaves the file untouched); uninstall removes our entry only (and the
//! container or the file when install created them and nothing else is left).
//! The command is [`crate::base::launch::mcp_command`]'s: the project's
//! `node_modules/.bin/wave-rules` through the client's project variable
//! when the package is installed in the project (safe to commit), else this
//! machine's program (the report says not to commit it); never a PATH lookup.

use crate::base::args::{McpClient, McpInstallArgs, ScopeArg};
use crate::base::env::{Env, Output, EXIT_FAILURE};
use crate::base::launch::{self, Program, SettingsFile};
use crate::base::settings_file::{self, Edited, Json};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The key of our entry.
pub const ENTRY: &str = super::SERVER_NAME;

/// Where and how each client reads MCP servers. An extension of the
/// command line's `McpClient`, so the settings knowledge stays in `mcp/`.
pub trait ClientSettings {
    fn settings_path(self, scope: ScopeArg, workdir: &Path, home: &Path) -> PathBuf;
    fn default_scope(self) -> ScopeArg;
    fn container(self) -> &'static str;
    fn entry(self, command: &str, args: &[String]) -> Value;
}

impl ClientSettings for McpClient {
    /// Where the client reads MCP servers for `scope`.
    fn settings_path(self, scope: ScopeArg, workdir: &Path, home: &Path) -> PathBuf {
        match (self, scope) {
            (McpClient::Claude, ScopeArg::Project) => workdir.join(".mcp.json"),
            (McpClient::Claude, ScopeArg::User) => home.join(".claude.json"),
            (McpClient::Cursor, ScopeArg::Project) => workdir.join(".cursor/mcp.json"),
            (McpClient::Cursor, ScopeArg::User) => home.join(".cursor/mcp.json"),
            (McpClient::Vscode, ScopeArg::Project) => workdir.join(".vscode/mcp.json"),
            (McpClient::Vscode, ScopeArg::User) => vscode_user_dir(home).join("mcp.json"),
            (McpClient::Codex, ScopeArg::Project) => workdir.join(".codex/config.toml"),
            (McpClient::Codex, ScopeArg::User) => home.join(".codex/config.toml"),
            (McpClient::Opencode, ScopeArg::Project) => {
                let jsonc = workdir.join("opencode.jsonc");
                if jsonc.is_file() && !workdir.join("opencode.json").exists() {
                    jsonc
                } else {
                    workdir.join("opencode.json")
                }
            }
            (McpClient::Opencode, ScopeArg::User) => home.join(".config/opencode/opencode.json"),
            (McpClient::Gemini, ScopeArg::Project) => workdir.join(".gemini/settings.json"),
            (McpClient::Gemini, ScopeArg::User) => home.join(".gemini/settings.json"),
            // Copilot CLI reads the project's `.mcp.json` (Claude Code's file:
            // one entry serves both) and its own user file.
            (McpClient::Copilot, ScopeArg::Project) => workdir.join(".mcp.json"),
            (McpClient::Copilot, ScopeArg::User) => home.join(".copilot/mcp-config.json"),
        }
    }

    /// The scope used when `--scope` is not given: the project, for every
    /// client (Codex reads `.codex/config.toml` of a trusted project), so an
    /// install never points one user's settings into one project.
    fn default_scope(self) -> ScopeArg {
        ScopeArg::Project
    }

    /// The key that holds the servers.
    fn container(self) -> &'static str {
        match self {
            McpClient::Vscode => "servers",
            McpClient::Opencode => "mcp",
            McpClient::Codex => "mcp_servers",
            _ => "mcpServers",
        }
    }

    /// Our entry, as JSON.
    fn entry(self, command: &str, args: &[String]) -> Value {
        match self {
            McpClient::Claude | McpClient::Vscode => {
                json!({ "type": "stdio", "command": command, "args": args })
            }
            McpClient::Opencode => {
                let mut all = vec![command.to_string()];
                all.extend(args.iter().cloned());
                json!({ "type": "local", "command": all, "enabled": true })
            }
            // Copilot CLI wants the tools it may call listed ("*": all).
            McpClient::Copilot => {
                json!({ "type": "local", "command": command, "args": args, "tools": ["*"] })
            }
            _ => json!({ "command": command, "args": args }),
        }
    }
}

fn vscode_user_dir(home: &Path) -> PathBuf {
    if cfg!(target_os = "macos") {
        home.join("Library/Application Support/Code/User")
    } else if cfg!(windows) {
        std::env::var_os("APPDATA")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join("AppData/Roaming"))
            .join("Code/User")
    } else {
        home.join(".config/Code/User")
    }
}

/// What the user does before the client starts a project's server.
fn trust_step(client: McpClient, scope: ScopeArg) -> &'static str {
    if scope == ScopeArg::User {
        return "";
    }
    match client {
        McpClient::Claude => "\nClaude Code asks once to approve the project's .mcp.json servers",
        McpClient::Cursor => "\nCursor asks to enable the server (Settings > MCP)",
        McpClient::Vscode => "\nVS Code asks to trust the server when it first starts it",
        McpClient::Codex => "\nCodex reads .codex/config.toml only in a trusted project",
        McpClient::Opencode => "",
        McpClient::Gemini => "\nGemini CLI reads .gemini/settings.json only in a trusted folder",
        McpClient::Copilot => {
            "\nCopilot CLI starts the project's .mcp.json servers only in a trusted folder"
        }
    }
}

/// The server's arguments for this client: `mcp`, plus the project folder
/// for the editors that start servers elsewhere and expand
/// `${workspaceFolder}`.
fn server_args(
    client: McpClient,
    scope: ScopeArg,
    prefix: Vec<String>,
    extra: &[String],
) -> Vec<String> {
    let mut args = prefix;
    args.push("mcp".into());
    if scope == ScopeArg::Project && matches!(client, McpClient::Vscode | McpClient::Cursor) {
        args.push("--workdir".into());
        args.push("${workspaceFolder}".into());
    }
    args.extend(extra.iter().cloned());
    args
}

/// The keys of our entry, in the order the agents' own docs write them.
const ENTRY_KEYS: [&str; 4] = ["type", "command", "args", "enabled"];

/// The edited JSON text, or `None` when nothing changes.
pub fn install_json(
    path: &Path,
    text: Option<&str>,
    container: &str,
    entry: &Value,
) -> Result<Option<String>, Output> {
    let json = Json::parse(path, text.map(str::to_string))?;
    let object = json.object()?;
    let servers = json.object_at(&object, container)?;
    match servers.get(ENTRY) {
        Some(prop) if prop.value().and_then(|v| v.to_serde_value()).as_ref() == Some(entry) => {
            return Ok(None)
        }
        Some(prop) => prop.set_value(settings_file::input(entry, &ENTRY_KEYS)),
        None => {
            servers.append(ENTRY, settings_file::input(entry, &ENTRY_KEYS));
        }
    }
    Ok(match json.edited() {
        Edited::Unchanged => None,
        Edited::Text(text) => Some(text),
    })
}

/// The JSON text without our entry, or `None` when it has none; `Some("")`
/// when nothing else is left (the file can go).
pub fn uninstall_json(path: &Path, text: &str, container: &str) -> Result<Option<String>, Output> {
    let json = Json::parse(path, Some(text.to_string()))?;
    let Ok(object) = json.object() else {
        return Ok(None);
    };
    let Some(servers) = object.object_value(container) else {
        return Ok(None);
    };
    let Some(prop) = servers.get(ENTRY) else {
        return Ok(None);
    };
    prop.remove();
    if servers.properties().is_empty() && !settings_file::has_comments(&servers.to_string()) {
        if let Some(p) = object.get(container) {
            p.remove();
        }
    }
    if json.is_empty() {
        return Ok(Some(String::new()));
    }
    Ok(match json.edited() {
        Edited::Unchanged => None,
        Edited::Text(text) => Some(text),
    })
}

/// The edited TOML text, or `None` when nothing changes.
pub fn install_toml(
    path: &Path,
    text: Option<&str>,
    container: &str,
    command: &str,
    args: &[String],
) -> Result<Option<String>, Output> {
    let mut doc: toml_edit::DocumentMut = text.unwrap_or("").parse().map_err(|e| {
        Output::fail(
            EXIT_FAILURE,
            format!("{} is not valid TOML ({e}); left unchanged", path.display()),
        )
    })?;
    let mut entry = toml_edit::Table::new();
    entry.insert("command", toml_edit::value(command));
    let mut list = toml_edit::Array::new();
    for a in args {
        list.push(a.as_str());
    }
    entry.insert("args", toml_edit::value(list));
    let servers = doc.entry(container).or_insert_with(|| {
        let mut t = toml_edit::Table::new();
        t.set_implicit(true);
        toml_edit::Item::Table(t)
    });
    let Some(servers) = servers.as_table_like_mut() else {
        return Err(Output::fail(
            EXIT_FAILURE,
            format!(
                "'{container}' in {} is not a table; left unchanged",
                path.display()
            ),
        ));
    };
    if let Some(existing) = servers.get(ENTRY).and_then(|i| i.as_table_like()) {
        let same_command = existing.get("command").and_then(|v| v.as_str()) == Some(command);
        let same_args = existing
            .get("args")
            .and_then(|v| v.as_array())
            .is_some_and(|a| {
                a.iter().map(|v| v.as_str()).collect::<Vec<_>>()
                    == args.iter().map(|s| Some(s.as_str())).collect::<Vec<_>>()
            });
        if same_command && same_args && existing.len() == 2 {
            return Ok(None);
        }
    }
    servers.insert(ENTRY, toml_edit::Item::Table(entry));
    Ok(Some(doc.to_string()))
}

/// The TOML text without our entry, or `None` when it has none.
pub fn uninstall_toml(path: &Path, text: &str, container: &str) -> Result<Option<String>, Output> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| {
        Output::fail(
            EXIT_FAILURE,
            format!("{} is not valid TOML ({e}); left unchanged", path.display()),
        )
    })?;
    let Some(servers) = doc.get_mut(container).and_then(|i| i.as_table_like_mut()) else {
        return Ok(None);
    };
    if servers.remove(ENTRY).is_none() {
        return Ok(None);
    }
    let empty_implicit = doc
        .get(container)
        .and_then(|i| i.as_table())
        .is_some_and(|t| t.is_empty() && t.is_implicit());
    if empty_implicit {
        doc.remove(container);
    }
    let out = doc.to_string();
    Ok(Some(if out.trim().is_empty() {
        String::new()
    } else {
        out
    }))
}

/// `mcp install`.
pub(crate) fn install(env: &Env, args: &McpInstallArgs) -> Output {
    let client = args.client;
    let scope = args.scope.unwrap_or_else(|| client.default_scope());
    let path = client.settings_path(scope, &env.config.workdir, &env.home_dir());
    let program = match Program::locate(args.command.as_deref(), scope, &env.config.workdir) {
        Ok(p) => p,
        Err(out) => return out,
    };
    let (cmd, prefix) = launch::mcp_command(client, &program, scope);
    let server_args = server_args(client, scope, prefix, &args.server_args);
    let text = match settings_file::read_text(&path) {
        Ok(t) => t,
        Err(out) => return out,
    };
    let edited = match client {
        McpClient::Codex => install_toml(
            &path,
            text.as_deref(),
            client.container(),
            &cmd,
            &server_args,
        ),
        _ => install_json(
            &path,
            text.as_deref(),
            client.container(),
            &client.entry(&cmd, &server_args),
        ),
    };
    let shown = format!("{cmd} {}", server_args.join(" "));
    match edited {
        Err(out) => out,
        Ok(None) => Output {
            stdout: format!(
                "wave-rules MCP server already installed for {} in {}\n",
                client.as_str(),
                path.display()
            ),
            ..Output::default()
        },
        Ok(Some(new)) => match settings_file::save(&path, &new) {
            Err(out) => out,
            Ok(()) => Output {
                stdout: format!(
                    "installed the wave-rules MCP server for {} in {}\ncommand: {shown}\n{}{}\n",
                    client.as_str(),
                    path.display(),
                    program.commit_note(if scope == ScopeArg::User {
                        SettingsFile::User
                    } else {
                        SettingsFile::Shared
                    }),
                    trust_step(client, scope)
                ),
                ..Output::default()
            },
        },
    }
}

/// `mcp uninstall`.
pub(crate) fn uninstall(env: &Env, args: &McpInstallArgs) -> Output {
    let client = args.client;
    let scope = args.scope.unwrap_or_else(|| client.default_scope());
    let path = client.settings_path(scope, &env.config.workdir, &env.home_dir());
    let text = match settings_file::read_text(&path) {
        Ok(Some(t)) => t,
        Ok(None) => {
            return Output {
                stdout: format!("nothing to remove: {} does not exist\n", path.display()),
                ..Output::default()
            }
        }
        Err(out) => return out,
    };
    let edited = match client {
        McpClient::Codex => uninstall_toml(&path, &text, client.container()),
        _ => uninstall_json(&path, &text, client.container()),
    };
    match edited {
        Err(out) => out,
        Ok(None) => Output {
            stdout: format!(
                "nothing to remove: no wave-rules server in {}\n",
                path.display()
            ),
            ..Output::default()
        },
        Ok(Some(new)) if new.is_empty() => match settings_file::remove(&path) {
            Ok(()) => Output {
                stdout: format!(
                    "removed the wave-rules MCP server and the now empty {}\n",
                    path.display()
                ),
                ..Output::default()
            },
            Err(out) => out,
        },
        Ok(Some(new)) => match settings_file::save(&path, &new) {
            Err(out) => out,
            Ok(()) => Output {
                stdout: format!(
                    "removed the wave-rules MCP server from {}\n",
                    path.display()
                ),
                ..Output::default()
            },
        },
    }
}

/// Our entry in a client's settings file, as `[command, args...]`, or `None`
/// when the file or the entry is missing or unreadable (for `doctor`).
pub fn read_entry(client: McpClient, path: &Path) -> Option<Vec<String>> {
    let text = settings_file::read_text(path).ok()??;
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let entry: Value = match client {
        McpClient::Codex => {
            let doc: toml_edit::DocumentMut = text.parse().ok()?;
            let table = doc.get(client.container())?.get(ENTRY)?;
            let mut words = vec![table.get("command")?.as_str()?.to_string()];
            if let Some(args) = table.get("args").and_then(|a| a.as_array()) {
                words.extend(args.iter().filter_map(|a| a.as_str().map(str::to_string)));
            }
            return Some(words);
        }
        _ => {
            let json = Json::parse(path, Some(text)).ok()?;
            let servers = json.value()?.get(client.container())?.clone();
            servers.get(ENTRY)?.clone()
        }
    };
    match entry.get("command")? {
        Value::String(c) => {
            let mut words = vec![c.clone()];
            words.extend(strings(entry.get("args")));
            Some(words)
        }
        Value::Array(_) => Some(strings(entry.get("command"))),
        _ => None,
    }
}
