//! How an agent's settings start `wave-rules`: the one place that decides
//! what `hook install` and `mcp install` write, per client.
//!
//! A settings file that a team commits must name no path of one machine.
//! When the package is installed in the project ([`project_bin`]:
//! `node_modules/.bin/wave-rules`, or under Yarn Plug'n'Play the package's
//! unplugged `bin/wave-rules`), the project's entries run that, through the
//! client's own variable for the project (`$CLAUDE_PROJECT_DIR`,
//! `${workspaceFolder}`) or relative to the project, where the client starts
//! servers there. That bin is a shell script that execs the native executable
//! of the platform package the package manager installed, so no Node starts
//! and no install script is needed (`bin/wave-rules`); the same committed
//! file works on every OS a teammate runs. Otherwise (a `cargo install`ed or global binary) the entry names this
//! machine's program: in the client's local, uncommitted settings file when
//! it has one, else in the project file with a warning not to commit it.
//! User scope never points into one project's `node_modules`.
//!
//! The agents' hook installs reuse [`Program::locate`] and name the program
//! by their hook dialect (`hook/dialects/`, `project_bin`; [`git_root_bin`]
//! where the agent names no project directory): each agent runs hook
//! commands in its own directory with its own variables, so the project's
//! bin is named the way that agent finds it from wherever it runs the hook.

use crate::base::args::{McpClient, ScopeArg};
use crate::base::env::{Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::base::sh::quote;
use memory_rules::sources::is_git_root;
use std::path::{Path, PathBuf};

/// Set by `bin/wave-rules.js`: `[node, script]` or `[executable]`, the
/// absolute command that runs this package's CLI on this machine.
pub const SELF_ENV: &str = "WAVE_RULES_SELF";

/// The project's bin, relative to the project root, as `/`-separated text.
pub const PROJECT_BIN: &str = "node_modules/.bin/wave-rules";

/// Yarn Plug'n'Play's folder of unpacked packages, relative to the project.
pub const YARN_UNPLUGGED: &str = ".yarn/unplugged";

/// What runs `wave-rules` for an installed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Program {
    /// The project's bin ([`project_bin`]: `node_modules/.bin/wave-rules`, or
    /// the package's unplugged bin under Yarn Plug'n'Play), named relative to
    /// the project as `/`-separated text: safe to commit.
    Project(String),
    /// Absolute words of this machine (`[exe]` or `[node, script]`).
    Machine(Vec<String>),
    /// `--command` as the user gave it, written as is.
    Given(String),
}

impl Program {
    /// What to run for `scope` in `workdir`: `--command`, else the project's
    /// bin (project scope, when installed there), else this program.
    pub fn locate(given: Option<&str>, scope: ScopeArg, workdir: &Path) -> Result<Program, Output> {
        if let Some(c) = given.map(str::trim).filter(|c| !c.is_empty()) {
            return Ok(Program::Given(c.to_string()));
        }
        if scope == ScopeArg::Project {
            if let Some(bin) = project_bin(workdir) {
                return Ok(Program::Project(bin));
            }
        }
        let words = this_program()?;
        if scope == ScopeArg::User {
            if let Some(project) = words
                .iter()
                .find_map(|w| project_of_node_modules(Path::new(w)))
            {
                return Err(Output::fail(
                    EXIT_FAILURE,
                    format!(
                        "user settings would run {}, inside the node_modules of the project {}, and break in every other project.\n\
                         Install the package globally (npm install -g wave-memory-rules) and run the global wave-rules with --scope user,\n\
                         install with --scope project (the project's own node_modules/.bin, safe to commit), or pass --command",
                        words.join(" "),
                        project.display()
                    ),
                ));
            }
        }
        Ok(Program::Machine(words))
    }

    /// Whether the entry names no path of this machine.
    pub fn portable(&self) -> bool {
        match self {
            Program::Project(_) => true,
            Program::Machine(_) => false,
            Program::Given(c) => !names_absolute_path(c),
        }
    }

    /// One line for the install's report: whether the file is safe to commit
    /// (and, when this program runs through Node because the package manager
    /// installed no native executable for this platform, a second line that
    /// says so: [`node_fallback_note`]).
    pub fn commit_note(&self, file: SettingsFile) -> String {
        let note = self.commit_line(file);
        match node_fallback_note() {
            Some(fallback) if matches!(self, Program::Project(_)) => format!("{note}\n{fallback}"),
            _ => note,
        }
    }

    fn commit_line(&self, file: SettingsFile) -> String {
        match (self, file == SettingsFile::Shared) {
            _ if file == SettingsFile::User => "your user settings, outside the project: nothing to commit".into(),
            (_, false) => "not for committing: a local settings file of this machine (the client keeps it out of version control)".into(),
            (Program::Project(bin), true) => format!(
                "safe to commit: it names no path of this machine (it runs the project's {bin}; teammates run their package manager's install)"
            ),
            (p, true) if p.portable() => "safe to commit: the command given names no absolute path".into(),
            (_, true) => "NOT safe to commit: it names a path of this machine. Install the package in the project (npm install -D wave-memory-rules) and run this again for a portable entry".into(),
        }
    }
}

/// Which kind of settings file an install wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsFile {
    /// The project's shared file, which a team commits.
    Shared,
    /// The project's local file of this machine (`.claude/settings.local.json`).
    Local,
    /// The user's own settings.
    User,
}

/// The project's own bin, relative to `workdir`:
///
/// - `node_modules/.bin/wave-rules` (npm, Bun, Yarn's node-modules linker;
///   or its Windows shim);
/// - under pnpm (`node_modules/.pnpm`), the package's own
///   `node_modules/wave-memory-rules/bin/wave-rules`: pnpm's `.bin` entry is
///   a shim script that costs a few processes of its own per call (`dirname`,
///   `sed`, `uname`), and this is the same shell script it runs, started
///   directly (pnpm's lockfile makes every teammate's layout the same);
/// - in a Yarn Plug'n'Play project (`.pnp.cjs`), the package's
///   `bin/wave-rules` in `.yarn/unplugged` (the package asks Yarn to unplug
///   it: `preferUnplugged`). The unplugged folder's name is Yarn's, the same
///   on every machine of one lockfile; it changes with the package's version,
///   so an upgrade means installing again (`doctor` reports the stale entry).
pub fn project_bin(workdir: &Path) -> Option<String> {
    let modules = workdir.join("node_modules");
    let bin = modules.join(".bin");
    let own = modules.join(PACKAGE).join("bin/wave-rules");
    let installed = bin.join("wave-rules").exists() || bin.join("wave-rules.cmd").exists();
    if installed && modules.join(".pnpm").is_dir() && own.is_file() {
        return Some(format!("node_modules/{PACKAGE}/bin/wave-rules"));
    }
    if installed {
        return Some(PROJECT_BIN.to_string());
    }
    if !workdir.join(".pnp.cjs").is_file() {
        return None;
    }
    let unplugged = workdir.join(YARN_UNPLUGGED);
    let mut found: Vec<String> = std::fs::read_dir(&unplugged)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            name.starts_with(PACKAGE)
                && unplugged
                    .join(name)
                    .join("node_modules")
                    .join(PACKAGE)
                    .join("bin/wave-rules")
                    .is_file()
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|name| format!("{YARN_UNPLUGGED}/{name}/node_modules/{PACKAGE}/bin/wave-rules"))
}

/// The npm package's name.
const PACKAGE: &str = "wave-memory-rules";

/// Whether the project has its own bin ([`project_bin`]).
pub fn project_bin_installed(workdir: &Path) -> bool {
    project_bin(workdir).is_some()
}

/// When this CLI runs through Node (`bin/wave-rules.js` found no native
/// `wave-rules` in a platform package), what that means for the entries just
/// written: the project's bin falls back to Node too.
pub fn node_fallback_note() -> Option<String> {
    let words = this_program().ok()?;
    let through_node = words.len() == 2 && words[1].ends_with(".js");
    through_node.then(|| {
        "note: no native wave-rules executable for this platform was installed (the package manager skipped the optional platform package): \
         the entries run the CLI through Node and the addon, slower on every call. Install with optional dependencies on \
         (not --omit=optional / --no-optional, and this platform in pnpm's or Yarn's supportedArchitectures)"
            .to_string()
    })
}

/// This program's absolute command: what `bin/wave-rules.js` says, else the
/// running executable.
pub fn this_program() -> Result<Vec<String>, Output> {
    if let Some(raw) = std::env::var_os(SELF_ENV) {
        if let Ok(serde_json::Value::Array(parts)) = serde_json::from_str(&raw.to_string_lossy()) {
            let words: Vec<String> = parts
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            if !words.is_empty() {
                return Ok(words);
            }
        }
    }
    let exe = std::env::current_exe()
        .and_then(|p| std::fs::canonicalize(&p).or(Ok(p)))
        .map_err(|e| {
            Output::fail(
                EXIT_TROUBLE,
                format!("cannot find this program's path ({e}); pass --command"),
            )
        })?;
    Ok(vec![exe.to_string_lossy().into_owned()])
}

/// The project whose `node_modules` holds `path` (the directory above the
/// innermost `node_modules` has a `package.json`); a global install's
/// prefix (`/usr/lib/node_modules`, `%APPDATA%\npm\node_modules`) has none.
pub fn project_of_node_modules(path: &Path) -> Option<PathBuf> {
    let mut found = None;
    for dir in path.ancestors() {
        if dir.file_name().is_some_and(|n| n == "node_modules") {
            found = dir.parent().map(Path::to_path_buf);
            break;
        }
    }
    found.filter(|p| p.join("package.json").is_file())
}

fn names_absolute_path(command: &str) -> bool {
    command.split_whitespace().any(|w| {
        let w = w.trim_matches(|c| c == '\'' || c == '"');
        w.starts_with('/')
            || w.starts_with('~')
            || (w.len() > 2 && w.as_bytes()[1] == b':' && w.as_bytes()[0].is_ascii_alphabetic())
    })
}

/// The options `hook install` writes after an event (`--edit-distance N`
/// after `PostToolUse`), '' for none.
pub fn hook_options(event: &str, edit_distance: Option<u64>) -> String {
    match edit_distance {
        Some(n) if event == crate::base::args::HookEvent::PostToolUse.name() => {
            format!(" --edit-distance {n}")
        }
        _ => String::new(),
    }
}

/// A hook command without the options `hook install` may write after its
/// event ([`hook_options`]), so it ends in the event.
pub fn without_hook_options(command: &str) -> &str {
    let command = command.trim_end();
    let Some((rest, value)) = command.rsplit_once(' ') else {
        return command;
    };
    match rest.strip_suffix(" --edit-distance") {
        Some(before) if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
            before.trim_end()
        }
        _ => command,
    }
}

/// The command before `hook <event>` in a Claude Code hook.
pub fn claude_hook_prefix(program: &Program) -> String {
    match program {
        Program::Project(bin) => format!("\"$CLAUDE_PROJECT_DIR\"/{bin}"),
        Program::Machine(words) => words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "),
        Program::Given(c) => c.clone(),
    }
}

/// The project's bin named from git's root, for an agent that runs its
/// hooks in the session's directory (any subdirectory of the project) and
/// sets no project variable: `"$(git rev-parse --show-toplevel 2>/dev/null
/// || pwd)"/node_modules/.bin/wave-rules`. A project below the git root
/// adds its path from there. Each agent's choice is its hook dialect's
/// (`hook/dialects/`, `project_bin`).
pub fn git_root_bin(bin: &str, workdir: &Path) -> String {
    let below = git_root(workdir)
        .and_then(|root| workdir.strip_prefix(root).ok())
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default();
    let rest = if below.is_empty() {
        bin.to_string()
    } else {
        format!("{below}/{bin}")
    };
    format!(
        "\"$(git rev-parse --show-toplevel 2>/dev/null || pwd)\"/{}",
        quote(&rest)
    )
}

/// The innermost directory at or above `dir` holding a repository's `.git`
/// (as git takes it: [`is_git_root`]): the root `git rev-parse
/// --show-toplevel` names when the hook runs.
fn git_root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| is_git_root(d))
}

/// The settings file a Claude Code hook install writes for `scope`: the
/// shared `settings.json`, or `settings.local.json` (uncommitted) when the
/// command names a path of this machine.
pub fn claude_hook_settings(
    program: &Program,
    scope: ScopeArg,
    workdir: &Path,
    home: &Path,
) -> (PathBuf, SettingsFile) {
    let dir = workdir.join(".claude");
    match scope {
        ScopeArg::User => (
            home.join(".claude").join("settings.json"),
            SettingsFile::User,
        ),
        ScopeArg::Project if program.portable() => {
            (dir.join("settings.json"), SettingsFile::Shared)
        }
        ScopeArg::Project => (dir.join("settings.local.json"), SettingsFile::Local),
    }
}

/// An MCP client's server command and arguments before `mcp` for `scope`.
///
/// | client | project (package installed) |
/// | --- | --- |
/// | claude | `${CLAUDE_PROJECT_DIR:-.}/node_modules/.bin/wave-rules` (Claude Code expands `${VAR:-default}` in `.mcp.json` and starts servers in the project) |
/// | cursor, vscode | `${workspaceFolder}/node_modules/.bin/wave-rules` (both expand it) |
/// | codex, opencode, gemini, copilot | `node_modules/.bin/wave-rules`, relative: they start servers in the project directory |
pub fn mcp_command(client: McpClient, program: &Program, scope: ScopeArg) -> (String, Vec<String>) {
    match program {
        Program::Project(bin) if scope == ScopeArg::Project => {
            let cmd = match client {
                McpClient::Claude => format!("${{CLAUDE_PROJECT_DIR:-.}}/{bin}"),
                McpClient::Cursor | McpClient::Vscode => {
                    format!("${{workspaceFolder}}/{bin}")
                }
                McpClient::Codex | McpClient::Opencode | McpClient::Gemini | McpClient::Copilot => {
                    bin.clone()
                }
            };
            (cmd, Vec::new())
        }
        Program::Project(bin) => (bin.clone(), Vec::new()),
        Program::Machine(words) => {
            let (first, rest) = words.split_first().expect("a program has a first word");
            (first.clone(), rest.to_vec())
        }
        Program::Given(c) => {
            let path = std::path::absolute(c).map(|p| p.to_string_lossy().into_owned());
            (path.unwrap_or_else(|_| c.clone()), Vec::new())
        }
    }
}

/// Replaces the client's project variables in a written command with
/// `project`, as the client would when it starts the server or hook; a
/// relative command is taken from the project. For `doctor` and the tests.
pub fn expand(command: &str, project: &Path) -> PathBuf {
    let p = project.to_string_lossy();
    let text = command
        .replace("\"$CLAUDE_PROJECT_DIR\"", &p)
        .replace("${CLAUDE_PROJECT_DIR:-.}", &p)
        .replace("$CLAUDE_PROJECT_DIR", &p)
        .replace("${CLAUDE_PROJECT_DIR}", &p)
        .replace("${workspaceFolder}", &p);
    let path = PathBuf::from(text.trim_matches('\''));
    if path.is_absolute() {
        path
    } else {
        project.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code: the hook command for `event` (a shell command line; Claude
    /// Code sets `$CLAUDE_PROJECT_DIR` for hooks).
    fn claude_hook_command(program: &Program, event: &str) -> String {
        format!("{} hook {event}", claude_hook_prefix(program))
    }

    #[test]
    fn project_entries_name_no_machine_path() {
        let p = Program::Project(PROJECT_BIN.into());
        assert_eq!(
            claude_hook_command(&p, "Stop"),
            "\"$CLAUDE_PROJECT_DIR\"/node_modules/.bin/wave-rules hook Stop"
        );
        for client in [
            McpClient::Claude,
            McpClient::Cursor,
            McpClient::Vscode,
            McpClient::Codex,
            McpClient::Opencode,
            McpClient::Gemini,
        ] {
            let (cmd, args) = mcp_command(client, &p, ScopeArg::Project);
            assert!(!cmd.starts_with('/'), "{cmd}");
            assert!(args.is_empty());
            assert_eq!(
                expand(&cmd, Path::new("/w")),
                Path::new("/w/node_modules/.bin/wave-rules")
            );
        }
    }

    #[test]
    fn the_project_bin_of_each_package_manager_layout() {
        let t = tempfile::tempdir().unwrap();
        let dir = |name: &str| {
            let d = t.path().join(name);
            std::fs::create_dir_all(&d).unwrap();
            d
        };
        let file = |path: std::path::PathBuf| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        };
        // Nothing installed.
        let none = dir("none");
        assert_eq!(project_bin(&none), None);
        // npm, Bun, Yarn's node-modules linker: the .bin entry.
        let npm = dir("npm");
        file(npm.join("node_modules/.bin/wave-rules"));
        file(npm.join("node_modules/wave-memory-rules/bin/wave-rules"));
        assert_eq!(project_bin(&npm).as_deref(), Some(PROJECT_BIN));
        // pnpm: the package's own bin, not the .bin shim.
        let pnpm = dir("pnpm");
        file(pnpm.join("node_modules/.bin/wave-rules"));
        file(pnpm.join("node_modules/wave-memory-rules/bin/wave-rules"));
        std::fs::create_dir_all(pnpm.join("node_modules/.pnpm")).unwrap();
        assert_eq!(
            project_bin(&pnpm).as_deref(),
            Some("node_modules/wave-memory-rules/bin/wave-rules")
        );
        // Yarn Plug'n'Play: the unplugged package's bin (not its platform package's folder).
        let pnp = dir("pnp");
        file(pnp.join(".pnp.cjs"));
        file(pnp.join(".yarn/unplugged/wave-memory-rules-linux-x64-gnu-npm-0.1.0-aa/node_modules/wave-memory-rules-linux-x64-gnu/wave-rules"));
        assert_eq!(
            project_bin(&pnp),
            None,
            "the platform package alone is no bin"
        );
        file(pnp.join(".yarn/unplugged/wave-memory-rules-npm-0.1.0-0123456789/node_modules/wave-memory-rules/bin/wave-rules"));
        assert_eq!(
            project_bin(&pnp).as_deref(),
            Some(".yarn/unplugged/wave-memory-rules-npm-0.1.0-0123456789/node_modules/wave-memory-rules/bin/wave-rules")
        );
        let p = Program::Project(project_bin(&pnp).unwrap());
        assert!(p.portable());
        assert_eq!(
            claude_hook_command(&p, "Stop"),
            "\"$CLAUDE_PROJECT_DIR\"/.yarn/unplugged/wave-memory-rules-npm-0.1.0-0123456789/node_modules/wave-memory-rules/bin/wave-rules hook Stop"
        );
    }

    #[test]
    fn a_global_install_is_no_project() {
        let t = std::env::temp_dir().join(format!("wave-launch-{}", std::process::id()));
        let global = t.join("usr/lib/node_modules/wave-memory-rules/bin/wave-rules");
        let local = t.join("proj/node_modules/wave-memory-rules/bin/wave-rules");
        std::fs::create_dir_all(local.parent().unwrap()).unwrap();
        std::fs::create_dir_all(global.parent().unwrap()).unwrap();
        std::fs::write(t.join("proj/package.json"), "{}").unwrap();
        assert_eq!(project_of_node_modules(&local), Some(t.join("proj")));
        assert_eq!(project_of_node_modules(&global), None);
        std::fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn given_commands_are_portable_without_absolute_paths() {
        assert!(Program::Given("npx wave-memory-rules".into()).portable());
        assert!(!Program::Given("/opt/wave-rules".into()).portable());
        assert!(!Program::Given("'C:\\x\\wave-rules.exe'".into()).portable());
    }
}
