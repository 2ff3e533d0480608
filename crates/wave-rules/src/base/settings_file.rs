//! One editor for the agents' settings files, used by every install: the
//! hooks of every agent (Claude Code's settings, Codex's, Gemini CLI's,
//! Copilot CLI's and Cursor's hooks files) and every client's MCP servers.
//!
//! JSON is edited through a concrete syntax tree (`jsonc-parser`), so the
//! comments these tools accept (Claude Code, Gemini CLI, VS Code, opencode
//! read JSON with comments), the keys in their order and every byte an edit
//! does not change stay as they were; TOML (Codex's `config.toml`) the same
//! way through `toml_edit` ([`read_text`], [`save`]). Reads are bounded
//! ([`MAX_SETTINGS_BYTES`]) and go through the core's file-system layer;
//! writes replace the file atomically, its directory made first.
//!
//! The hooks layouts ([`remove_hooks`], [`add_hook`]): `hooks.<event>` is a
//! list of either groups (`{matcher?, hooks: [{type, command, timeout}]}`:
//! Claude Code, Codex, Gemini CLI) or entries (`{type, bash, timeoutSec}`,
//! `{command}`: Copilot CLI, Cursor).

use crate::base::env::{Output, EXIT_FAILURE, EXIT_TROUBLE};
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use memory_rules::base::fs::{self, Links, ReadError};
pub use memory_rules::base::limits::MAX_SETTINGS_BYTES;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A settings file's text, `None` when it does not exist; a file over
/// [`MAX_SETTINGS_BYTES`] or that cannot be read is an error naming it.
pub fn read_text(path: &Path) -> Result<Option<String>, Output> {
    match fs::read_bounded(path, MAX_SETTINGS_BYTES, Links::Follow) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            Output::fail(
                EXIT_FAILURE,
                format!("{} is not UTF-8; left unchanged", path.display()),
            )
        }),
        Err(e) if e.is_not_found() => Ok(None),
        Err(ReadError::TooLarge(_)) => Err(Output::fail(
            EXIT_FAILURE,
            format!(
                "{} is over {MAX_SETTINGS_BYTES} bytes; left unchanged",
                path.display()
            ),
        )),
        Err(e) => Err(Output::fail(
            EXIT_TROUBLE,
            format!("cannot read {}: {e}", path.display()),
        )),
    }
}

/// Writes `text` over `path` atomically (its directory made first).
pub fn save(path: &Path, text: &str) -> Result<(), Output> {
    fs::write_file(path, text.as_bytes()).map_err(|e| {
        Output::fail(
            EXIT_TROUBLE,
            format!("cannot write {}: {e}", path.display()),
        )
    })
}

/// Removes `path` (an uninstall left nothing in it).
pub fn remove(path: &Path) -> Result<(), Output> {
    std::fs::remove_file(path).map_err(|e| {
        Output::fail(
            EXIT_TROUBLE,
            format!("cannot remove {}: {e}", path.display()),
        )
    })
}

/// A JSON settings file being edited (see the module comment).
pub struct Json {
    path: PathBuf,
    /// The text as read ('' for a missing file).
    original: String,
    root: CstRootNode,
}

/// What an edit comes to.
#[derive(Debug, PartialEq, Eq)]
pub enum Edited {
    /// The text is what it was: nothing to write.
    Unchanged,
    /// The new text.
    Text(String),
}

impl Json {
    /// Reads and parses the file (a missing or empty one is an empty
    /// object); text that is not JSON is an error naming the file, the line
    /// and the problem, and the file is left as it is.
    pub fn read(path: &Path) -> Result<Json, Output> {
        let text = read_text(path)?;
        Json::parse(path, text)
    }

    /// [`Json::read`] of text already read (`None`: no file).
    pub fn parse(path: &Path, text: Option<String>) -> Result<Json, Output> {
        let original = text.unwrap_or_default();
        let root = CstRootNode::parse(&original, &ParseOptions::default()).map_err(|e| {
            Output::fail(
                EXIT_FAILURE,
                format!(
                    "{}:{}:{}: not valid JSON ({}); left unchanged",
                    path.display(),
                    e.line_display(),
                    e.column_display(),
                    e.kind()
                ),
            )
        })?;
        Ok(Json {
            path: path.to_path_buf(),
            original,
            root,
        })
    }

    /// The top-level object, made when the file is empty; an error when the
    /// file holds another value.
    pub fn object(&self) -> Result<CstObject, Output> {
        self.root.object_value_or_create().ok_or_else(|| {
            Output::fail(
                EXIT_FAILURE,
                format!(
                    "{} does not hold a JSON object; left unchanged",
                    self.path.display()
                ),
            )
        })
    }

    /// The object at `key` of `parent`, made when missing; an error naming
    /// the key when it holds another value.
    pub fn object_at(&self, parent: &CstObject, key: &str) -> Result<CstObject, Output> {
        parent.object_value_or_create(key).ok_or_else(|| {
            Output::fail(
                EXIT_FAILURE,
                format!(
                    "\"{key}\" in {} is not an object; left unchanged",
                    self.path.display()
                ),
            )
        })
    }

    /// The whole value, for reading (`doctor`).
    pub fn value(&self) -> Option<Value> {
        self.root.to_serde_value()
    }

    /// Whether nothing but an empty object (and white space) is left: an
    /// uninstall can remove the file. A comment is something.
    pub fn is_empty(&self) -> bool {
        let text = self.root.to_string();
        !has_comments(&text)
            && self
                .root
                .object_value()
                .is_none_or(|o| o.properties().is_empty())
    }

    /// The edited text, or [`Edited::Unchanged`] when it is what was read.
    pub fn edited(&self) -> Edited {
        let mut text = self.root.to_string();
        if text == self.original {
            return Edited::Unchanged;
        }
        if self.original.trim().is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        Edited::Text(text)
    }

    /// Writes the edit; true when something was written.
    pub fn save(&self) -> Result<bool, Output> {
        match self.edited() {
            Edited::Unchanged => Ok(false),
            Edited::Text(text) => save(&self.path, &text).map(|()| true),
        }
    }
}

/// Whether JSON text holds a comment: `//` or `/*` outside its strings (a
/// URL in a string, such as Kiro's `file://` resources, is none).
pub fn has_comments(text: &str) -> bool {
    let (mut in_string, mut escaped, mut slash) = (false, false, false);
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => escaped = false,
            }
            continue;
        }
        if slash && (c == '/' || c == '*') {
            return true;
        }
        slash = c == '/';
        in_string = c == '"';
    }
    false
}

/// A JSON value for the syntax tree, an object's keys listed in `first`
/// first (in that order), the others in the value's order.
pub fn input(value: &Value, first: &[&str]) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => {
            CstInputValue::Array(items.iter().map(|v| input(v, first)).collect())
        }
        Value::Object(map) => {
            let rank = |k: &str| first.iter().position(|x| *x == k).unwrap_or(usize::MAX);
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by_key(|(k, _)| rank(k));
            CstInputValue::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), input(v, first)))
                    .collect(),
            )
        }
    }
}

/// A string member of an object node (`None` when it is not one).
fn text_of(node: &CstNode, keys: &[&str]) -> Option<String> {
    let object = node.as_object()?;
    keys.iter().find_map(|k| {
        object
            .get(k)?
            .value()?
            .to_serde_value()?
            .as_str()
            .map(str::to_string)
    })
}

/// The command a hook entry runs (`command`, or Copilot CLI's `bash`).
pub fn hook_command(node: &CstNode) -> Option<String> {
    text_of(node, &["command", "bash"])
}

/// Removes the hooks `ours(event, command)` claims from `object.hooks`, in
/// both layouts; a group, an event's list and `hooks` itself go when this
/// emptied them. Returns how many hooks went.
pub fn remove_hooks(object: &CstObject, ours: impl Fn(&str, &str) -> bool) -> usize {
    let Some(hooks) = object.object_value("hooks") else {
        return 0;
    };
    let mut removed = 0;
    for prop in hooks.properties() {
        let event = prop.decoded_name().unwrap_or_default();
        let Some(list) = prop.array_value() else {
            continue;
        };
        let mut here = 0;
        for item in list.elements() {
            let group = item.as_object().and_then(|o| o.array_value("hooks"));
            if let Some(inner) = group {
                let entries = inner.elements();
                let before = entries.len();
                let mut gone = 0;
                for h in entries {
                    if hook_command(&h).is_some_and(|c| ours(&event, &c)) {
                        h.remove();
                        gone += 1;
                    }
                }
                here += gone;
                if gone > 0 && gone == before {
                    item.remove();
                }
            } else if hook_command(&item).is_some_and(|c| ours(&event, &c)) {
                item.remove();
                here += 1;
            }
        }
        if here > 0 && list.elements().is_empty() && !has_comments(&list.to_string()) {
            prop.remove();
        }
        removed += here;
    }
    if removed > 0 && hooks.properties().is_empty() && !has_comments(&hooks.to_string()) {
        if let Some(p) = object.get("hooks") {
            p.remove();
        }
    }
    removed
}

/// Appends `entry` to `object.hooks.<event>` (each made when missing); an
/// error when one of them holds another value.
pub fn add_hook(
    json: &Json,
    object: &CstObject,
    event: &str,
    entry: CstInputValue,
) -> Result<(), Output> {
    let hooks = json.object_at(object, "hooks")?;
    let list = hooks.array_value_or_create(event).ok_or_else(|| {
        Output::fail(
            EXIT_FAILURE,
            format!(
                "\"hooks.{event}\" in {} is not a list; left unchanged",
                json.path.display()
            ),
        )
    })?;
    list.append(entry);
    Ok(())
}

/// An object of these members, in this order.
pub fn object(members: Vec<(&str, CstInputValue)>) -> CstInputValue {
    CstInputValue::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        Json::parse(Path::new("s.json"), Some(text.to_string())).unwrap()
    }

    #[test]
    fn a_comment_is_one_outside_the_strings() {
        assert!(has_comments("{\n  // x\n  \"a\": 1\n}"));
        assert!(has_comments("{\"a\": 1 /* keep */}"));
        assert!(!has_comments(
            "{\"r\": [\"file://AGENTS.md\", \"a\\\"//b\"]}"
        ));
    }

    #[test]
    fn an_edit_keeps_comments_key_order_and_every_other_byte() {
        let text = "{\n  // the model\n  \"model\": \"x\",\n  \"hooks\": {\n    \"Stop\": [\n      { \"hooks\": [ { \"type\": \"command\", \"command\": \"mine\" } ] }\n    ]\n  },\n  \"a\": 1 /* keep */\n}\n";
        let j = json(text);
        let o = j.object().unwrap();
        let entry = object(vec![
            ("type", CstInputValue::String("command".into())),
            ("command", CstInputValue::String("ours".into())),
        ]);
        add_hook(
            &j,
            &o,
            "Stop",
            object(vec![("hooks", CstInputValue::Array(vec![entry]))]),
        )
        .unwrap();
        let Edited::Text(added) = j.edited() else {
            panic!("unchanged")
        };
        assert!(
            added.starts_with("{\n  // the model\n  \"model\": \"x\",\n"),
            "{added}"
        );
        assert!(
            added.contains("\"command\": \"mine\"") && added.contains("\"command\": \"ours\""),
            "{added}"
        );
        assert!(added.ends_with("  \"a\": 1 /* keep */\n}\n"), "{added}");
        assert_eq!(
            remove_hooks(&o, |event, c| event == "Stop" && c == "ours"),
            1
        );
        assert_eq!(j.edited(), Edited::Unchanged, "back to the bytes read");
    }

    #[test]
    fn removing_the_last_hook_removes_what_it_emptied_only() {
        let j =
            json(r#"{"hooks":{"Stop":[{"type":"command","bash":"ours"}],"Other":[]},"version":1}"#);
        let o = j.object().unwrap();
        assert_eq!(remove_hooks(&o, |_, c| c == "ours"), 1);
        assert_eq!(
            j.value().unwrap(),
            serde_json::json!({"hooks":{"Other":[]},"version":1})
        );
        let j = json(r#"{"hooks":{"Stop":[{"hooks":[{"command":"ours"}]}]}}"#);
        let o = j.object().unwrap();
        assert_eq!(remove_hooks(&o, |_, c| c == "ours"), 1);
        assert!(j.is_empty());
    }

    #[test]
    fn what_is_not_an_object_or_not_json_is_refused_with_the_file_named() {
        let j = json("[1]");
        assert!(j
            .object()
            .unwrap_err()
            .stderr
            .contains("s.json does not hold a JSON object"));
        let j = json(r#"{"hooks": 3}"#);
        let o = j.object().unwrap();
        let err = add_hook(&j, &o, "Stop", CstInputValue::Null).unwrap_err();
        assert!(
            err.stderr.contains("\"hooks\" in s.json is not an object"),
            "{}",
            err.stderr
        );
        let err = Json::parse(Path::new("s.json"), Some("{,".into()))
            .err()
            .unwrap();
        assert!(
            err.stderr.contains("s.json:1:2: not valid JSON ("),
            "{}",
            err.stderr
        );
    }
}
