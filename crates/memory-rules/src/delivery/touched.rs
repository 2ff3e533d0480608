//! Which files a tool call touched, decided once for every agent.
//!
//! A road hands the core a tool call as its agent sent it (the tool's name,
//! what kind of tool the road knows it to be, its input); the files it read
//! and wrote come from the input alone, so an agent, a tool or a plugin the
//! road has never heard of still fires path rules:
//!
//! | where | what |
//! | --- | --- |
//! | [`FILE_KEYS`] | one file each (`file_path`, opencode's `filePath`, Gemini CLI's `absolute_path`, Cursor's `target_file`, a plain `path`, ...) |
//! | [`FILE_LIST_KEYS`] | several files (`file_paths`, `files`, `paths`) |
//! | [`COMMAND_KEYS`] | a shell command line (a string, or Codex's argv array), through the core's [`crate::matchers::shell`] parser: the files it reads and writes, relative ones taken from the event's `cwd`, and the simple commands it runs; an `apply_patch` text there (Codex 0.169 sends its patch as `command`) is a patch |
//! | [`PATCH_KEYS`], or the input itself as a string | an `apply_patch` text (Codex, opencode): the files it adds, updates, moves or deletes |
//!
//! A skill tool's input names a skill, not a file: it touches nothing.

use crate::delivery::tool_call::{ToolCall, ToolKind};
use serde_json::Value;
use std::path::Path;

/// Keys of a tool call's input that name one file, over the agents we serve:
/// Claude Code's `file_path` and `notebook_path`, opencode's `filePath`,
/// Gemini CLI's `absolute_path`, Cursor's `target_file` (`targetFile`), a
/// plain `path`.
pub const FILE_KEYS: [&str; 7] = [
    "file_path",
    "filePath",
    "notebook_path",
    "absolute_path",
    "path",
    "target_file",
    "targetFile",
];

/// Keys that name several files (Gemini CLI's `read_many_files` `paths`, a
/// `files` list, the `file_paths` the older hook dialects wrote).
pub const FILE_LIST_KEYS: [&str; 3] = ["file_paths", "files", "paths"];

/// Keys that hold a shell command line: a string, or an argv array
/// (`["bash", "-lc", "cat a"]`, Codex's shell tool).
pub const COMMAND_KEYS: [&str; 2] = ["command", "cmd"];

/// Keys that hold an `apply_patch` text (Codex's `input` / `patch`,
/// opencode's `patchText`).
pub const PATCH_KEYS: [&str; 3] = ["input", "patch", "patchText"];

/// The files one tool call read and wrote, each once, as written (relative
/// ones are relative to the workdir, a shell command's to its `cwd`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    pub read: Vec<String>,
    pub written: Vec<String>,
    /// The simple commands a shell command line runs (what enforced
    /// `commands` patterns are matched against).
    pub commands: Vec<crate::matchers::shell::CommandWords>,
    /// Why a command line could not be read (over a limit, not shell): its
    /// files and commands are unknown.
    pub unread: Vec<String>,
}

impl Touched {
    /// Every file, read ones first, each once.
    pub fn all(&self) -> Vec<String> {
        let mut out = self.read.clone();
        for f in &self.written {
            push_new(&mut out, f);
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.read.is_empty() && self.written.is_empty()
    }
}

fn push_new(list: &mut Vec<String>, f: &str) {
    if !f.is_empty() && !list.iter().any(|o| o == f) {
        list.push(f.to_string());
    }
}

/// The files a tool call touched (see the module's table). `cwd`: where a
/// shell command ran.
pub fn tool_files(call: &ToolCall, cwd: Option<&Path>) -> Touched {
    let mut out = Touched::default();
    if call.kind == ToolKind::Skill {
        return out;
    }
    let input = &call.input;
    // A file tool the road knows writes puts its files on the written side;
    // anything else (a read, a tool it does not know) on the read side.
    let writes = call.kind == ToolKind::Write;
    for key in FILE_KEYS {
        if let Some(f) = input.get(key).and_then(Value::as_str) {
            push_new(side(&mut out, writes), f);
        }
    }
    for key in FILE_LIST_KEYS {
        let listed = input
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for f in listed.filter_map(Value::as_str) {
            push_new(side(&mut out, writes), f);
        }
    }
    let patches = PATCH_KEYS
        .iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_str))
        .chain(input.as_str());
    for text in patches {
        for f in patch_files(text) {
            push_new(&mut out.written, &f);
        }
    }
    for key in COMMAND_KEYS {
        if let Some(command) = command_line(input.get(key)) {
            // Codex puts its `apply_patch` text under `command`.
            if command.trim_start().starts_with("*** Begin Patch") {
                for f in patch_files(&command) {
                    push_new(&mut out.written, &f);
                }
                continue;
            }
            shell_files(&command, cwd, &mut out);
        }
    }
    out
}

fn side(out: &mut Touched, writes: bool) -> &mut Vec<String> {
    if writes {
        &mut out.written
    } else {
        &mut out.read
    }
}

/// A command line: the string itself, or an argv array joined with each
/// word quoted for the shell.
fn command_line(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(c) => Some(c.clone()),
        Value::Array(argv) => {
            let words = argv.iter().map(Value::as_str).collect::<Option<Vec<_>>>()?;
            Some(
                words
                    .iter()
                    .map(|w| crate::base::sh::quote(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
        _ => None,
    }
}

/// The files the command reads and writes, relative ones joined to `cwd`.
fn shell_files(command: &str, cwd: Option<&Path>, out: &mut Touched) {
    let found = match crate::matchers::shell::command_files(command) {
        Ok(found) => found,
        Err(e) => {
            out.unread.push(e.to_string());
            return;
        }
    };
    let at = |f: String| match cwd {
        Some(base) if !f.starts_with('/') => base.join(&f).to_string_lossy().into_owned(),
        _ => f,
    };
    for f in found.read {
        push_new(&mut out.read, &at(f));
    }
    for f in found.written {
        push_new(&mut out.written, &at(f));
    }
    out.commands.extend(found.commands);
}

/// The files an `apply_patch` text names (`*** Add File: p`, `*** Update
/// File: p`, `*** Move to: p`, `*** Delete File: p`), as Codex and opencode
/// write them.
pub fn patch_files(patch: &str) -> Vec<String> {
    const HEADS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Move to: ",
        "*** Delete File: ",
    ];
    if !patch.contains("*** ") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in patch.lines() {
        if let Some(p) = HEADS.iter().find_map(|h| line.strip_prefix(h)) {
            push_new(&mut out, p.trim());
        }
    }
    out
}

/// What an event touched, decided here with the tool calls' files (the
/// event module stays below this one).
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(kind: ToolKind, input: Value) -> ToolCall {
        ToolCall::new("t", kind, input)
    }

    #[test]
    fn every_agents_file_key_names_a_file_once() {
        let t = tool_files(
            &call(
                ToolKind::Other,
                json!({"filePath": "a.ts", "path": "a.ts", "notebook_path": "n.ipynb", "absolute_path": "/w/b.ts", "target_file": "c.ts", "content": "x"}),
            ),
            None,
        );
        assert_eq!(t.read, ["a.ts", "n.ipynb", "/w/b.ts", "c.ts"]);
        let t = tool_files(
            &call(
                ToolKind::Read,
                json!({"paths": ["a.ts", "b.ts"], "files": ["c.ts", 3]}),
            ),
            None,
        );
        assert_eq!(t.read, ["c.ts", "a.ts", "b.ts"]);
        let t = tool_files(&call(ToolKind::Write, json!({"file_path": "a.ts"})), None);
        assert_eq!(
            (t.read.len(), t.written.as_slice()),
            (0, &["a.ts".to_string()][..])
        );
    }

    #[test]
    fn a_command_under_any_tool_name_is_parsed_relative_to_its_cwd() {
        let t = tool_files(
            &call(
                ToolKind::Other,
                json!({"command": "cat src/a.ts > out.txt"}),
            ),
            Some(Path::new("/w")),
        );
        assert_eq!(t.read, ["/w/src/a.ts"]);
        assert_eq!(t.written, ["/w/out.txt"]);
        let argv = json!({"command": ["bash", "-lc", "sed -n 1,9p 'my file.ts'"]});
        let t = tool_files(&call(ToolKind::Shell, argv), None);
        assert_eq!(t.read, ["my file.ts"]);
        let t = tool_files(&call(ToolKind::Other, json!({"cmd": "head -5 b.ts"})), None);
        assert_eq!(t.read, ["b.ts"]);
    }

    #[test]
    fn patches_name_what_they_add_update_move_and_delete() {
        let patch = "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: a.ts\n*** Move to: b.ts\n*** Delete File: old.ts\n*** End Patch";
        let want = ["src/new.ts", "a.ts", "b.ts", "old.ts"];
        for input in [
            json!({ "input": patch }),
            json!({ "patchText": patch }),
            json!(patch),
        ] {
            assert_eq!(
                tool_files(&call(ToolKind::Write, input), None).written,
                want
            );
        }
        assert!(patch_files("plain text").is_empty());
    }

    #[test]
    fn a_skill_tool_touches_nothing() {
        let t = tool_files(
            &call(ToolKind::Skill, json!({"command": "cat a.ts", "path": "a"})),
            None,
        );
        assert!(t.is_empty());
    }
}
