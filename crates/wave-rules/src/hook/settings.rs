//! `wave-rules hook install` / `uninstall`: our entries in Claude Code's
//! settings (`<workdir>/.claude/settings.json`, or `settings.local.json`
//! when the command names a path of this machine, or
//! `~/.claude/settings.json` with `--scope user`).
//!
//! Install merges: every other setting and every other hook stays as it was
//! (keys in their order); an earlier install of ours is replaced, so running
//! it twice changes nothing. Our entries are the commands that end in
//! `hook <Event>` and name `wave-rules`; uninstall removes those and nothing
//! else. What the command runs is [`crate::launch`]'s choice: the project's
//! `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/wave-rules` when the package is
//! installed there (safe to commit), else this program's absolute path (in
//! the local file), or `--command`; never a PATH lookup.

use crate::args::{HookEvent, InstallArgs, ScopeArg};
use crate::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use crate::launch::{self, Program};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt;
use std::path::{Path, PathBuf};

/// The events we install (every [`HookEvent`], by its name), and the matcher of each.
pub const EVENTS: [(&str, Option<&str>); 7] = [
    (HookEvent::SessionStart.name(), None),
    (HookEvent::UserPromptSubmit.name(), None),
    (
        HookEvent::PreToolUse.name(),
        Some(crate::hook::agent::PRE_TOOL_MATCHER),
    ),
    (
        HookEvent::PostToolUse.name(),
        Some("Read|Edit|MultiEdit|Write|NotebookEdit|Bash|Skill"),
    ),
    (HookEvent::Stop.name(), None),
    (HookEvent::SubagentStart.name(), None),
    (HookEvent::SubagentStop.name(), None),
];
/// Seconds Claude Code gives each of our hooks before it moves on.
pub const HOOK_TIMEOUT_SECS: u64 = 10;
/// A settings file larger than this is refused.
const MAX_SETTINGS_BYTES: u64 = 4 << 20;

/// A JSON value that keeps object keys in their order, so a settings file
/// comes back as the user wrote it, with only our entries changed.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key`, keeping its place when it exists, else appending.
    fn set(&mut self, key: &str, value: Json) {
        if let Json::Object(entries) = self {
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => entries.push((key.to_string(), value)),
            }
        }
    }

    fn remove(&mut self, key: &str) {
        if let Json::Object(entries) = self {
            entries.retain(|(k, _)| k != key);
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    fn text(s: &str) -> Json {
        Json::String(s.to_string())
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
                Ok(Json::Number(n.into()))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
                Ok(serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number))
            }
            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::String(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::String(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(v) = seq.next_element()? {
                    items.push(v);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut entries: Vec<(String, Json)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    // A repeated key: the last one wins, as in JSON.parse.
                    entries.retain(|(key, _)| *key != k);
                    entries.push((k, v));
                }
                Ok(Json::Object(entries))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => items.serialize(s),
            Json::Object(entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

/// The settings files a scope's hooks may live in: the shared one and, for
/// the project, the local one (machine paths go there).
pub fn settings_paths(env: &Env, scope: ScopeArg) -> Vec<PathBuf> {
    match scope {
        ScopeArg::Project => {
            let dir = env.config.workdir.join(".claude");
            vec![dir.join("settings.json"), dir.join("settings.local.json")]
        }
        ScopeArg::User => vec![env.home_dir().join(".claude").join("settings.json")],
    }
}

/// Is this hook command one of ours for `event`?
pub fn is_ours(command: &str, event: &str) -> bool {
    let command = launch::without_hook_options(command);
    command.contains("wave-rules") && command.ends_with(&format!(" hook {event}"))
}

/// Reads the settings (an empty object when the file does not exist).
fn read_settings(path: &Path) -> Result<Json, Output> {
    let text = match std::fs::metadata(path) {
        Ok(m) if m.len() > MAX_SETTINGS_BYTES => {
            return Err(Output::fail(
                EXIT_FAILURE,
                format!(
                    "{}: over {MAX_SETTINGS_BYTES} bytes; left as it is",
                    path.display()
                ),
            ))
        }
        Ok(_) => std::fs::read_to_string(path).map_err(|e| {
            Output::fail(EXIT_TROUBLE, format!("cannot read {}: {e}", path.display()))
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Json::Object(Vec::new())),
        Err(e) => {
            return Err(Output::fail(
                EXIT_TROUBLE,
                format!("cannot read {}: {e}", path.display()),
            ))
        }
    };
    if text.trim().is_empty() {
        return Ok(Json::Object(Vec::new()));
    }
    let value: Json = serde_json::from_str(&text).map_err(|e| {
        Output::fail(
            EXIT_FAILURE,
            format!(
                "{}:{}:{}: not valid JSON ({e}); left as it is",
                path.display(),
                e.line(),
                e.column()
            ),
        )
    })?;
    match &value {
        Json::Object(_) => {}
        _ => {
            return Err(Output::fail(
                EXIT_FAILURE,
                format!("{}: not a JSON object; left as it is", path.display()),
            ))
        }
    }
    match value.get("hooks") {
        None | Some(Json::Object(_)) => Ok(value),
        Some(_) => Err(Output::fail(
            EXIT_FAILURE,
            format!(
                "{}: \"hooks\" is not an object; left as it is",
                path.display()
            ),
        )),
    }
}

fn write_settings(path: &Path, value: &Json) -> Result<(), Output> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| {
        Output::fail(
            EXIT_TROUBLE,
            format!("cannot create {}: {e}", dir.display()),
        )
    })?;
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    memory_rules::memory::atomic::replace(path, text.as_bytes()).map_err(|e| {
        Output::fail(
            EXIT_TROUBLE,
            format!("cannot write {}: {e}", path.display()),
        )
    })
}

/// Removes our hooks from `settings.hooks`; empty groups, events and the
/// `hooks` object itself go when we emptied them. Returns how many went.
fn remove_ours(settings: &mut Json) -> usize {
    let mut removed = 0;
    let Some(Json::Object(events)) = settings.get_mut("hooks") else {
        return 0;
    };
    for (event, groups) in events.iter_mut() {
        let Json::Array(groups) = groups else {
            continue;
        };
        groups.retain_mut(|group| {
            let Some(Json::Array(hooks)) = group.get_mut("hooks") else {
                return true;
            };
            let before = hooks.len();
            hooks.retain(|h| {
                !h.get("command")
                    .and_then(Json::as_str)
                    .is_some_and(|c| is_ours(c, event))
            });
            removed += before - hooks.len();
            !(hooks.is_empty() && before > 0)
        });
    }
    events.retain(|(_, groups)| !matches!(groups, Json::Array(g) if g.is_empty()));
    if events.is_empty() && removed > 0 {
        settings.remove("hooks");
    }
    removed
}

pub fn install(env: &Env, args: &InstallArgs) -> Output {
    let workdir = &env.config.workdir;
    let program = match Program::locate(args.command.as_deref(), args.scope, workdir) {
        Ok(p) => p,
        Err(out) => return out,
    };
    let (path, file) = launch::claude_hook_settings(&program, args.scope, workdir, &env.home_dir());
    // An earlier install in the scope's other file goes, so the hooks never run twice.
    let mut moved = Vec::new();
    for other in settings_paths(env, args.scope) {
        if other == path || !other.exists() {
            continue;
        }
        let mut settings = match read_settings(&other) {
            Ok(s) => s,
            Err(out) => return out,
        };
        if remove_ours(&mut settings) > 0 {
            if let Err(e) = write_settings(&other, &settings) {
                return e;
            }
            moved.push(other);
        }
    }
    let mut settings = match read_settings(&path) {
        Ok(s) => s,
        Err(out) => return out,
    };
    let before = settings.clone();
    remove_ours(&mut settings);
    if settings.get("hooks").is_none() {
        settings.set("hooks", Json::Object(Vec::new()));
    }
    let hooks = settings.get_mut("hooks").expect("hooks is an object");
    for (event, matcher) in EVENTS {
        let mut group = Vec::new();
        if let Some(m) = matcher {
            group.push(("matcher".to_string(), Json::text(m)));
        }
        let hook = Json::Object(vec![
            ("type".into(), Json::text("command")),
            (
                "command".into(),
                Json::String(format!(
                    "{}{}",
                    launch::claude_hook_command(&program, event),
                    launch::hook_options(event, args.edit_distance)
                )),
            ),
            ("timeout".into(), Json::Number(HOOK_TIMEOUT_SECS.into())),
        ]);
        group.push(("hooks".to_string(), Json::Array(vec![hook])));
        match hooks.get_mut(event) {
            Some(Json::Array(groups)) => groups.push(Json::Object(group)),
            _ => hooks.set(event, Json::Array(vec![Json::Object(group)])),
        }
    }
    let mut out = Output::default();
    for other in &moved {
        out.stdout.push_str(&format!(
            "removed the earlier wave-rules hooks from {}\n",
            other.display()
        ));
    }
    let note = program.commit_note(file);
    let prefix = launch::claude_hook_prefix(&program);
    if settings == before {
        out.stdout.push_str(&format!(
            "wave-rules hooks already installed in {}\ncommand: {prefix} hook <event>\n{note}\n",
            path.display()
        ));
        return out;
    }
    if let Err(e) = write_settings(&path, &settings) {
        return e;
    }
    out.stdout.push_str(&format!(
        "installed wave-rules hooks ({}) in {}\ncommand: {prefix} hook <event>\n{note}\n",
        EVENTS
            .iter()
            .map(|(e, _)| *e)
            .collect::<Vec<_>>()
            .join(", "),
        path.display()
    ));
    out
}

pub fn uninstall(env: &Env, args: &InstallArgs) -> Output {
    let mut out = Output::default();
    for path in settings_paths(env, args.scope) {
        if !path.exists() {
            continue;
        }
        let mut settings = match read_settings(&path) {
            Ok(s) => s,
            Err(out) => return out,
        };
        let removed = remove_ours(&mut settings);
        if removed == 0 {
            continue;
        }
        if let Err(e) = write_settings(&path, &settings) {
            return e;
        }
        out.stdout.push_str(&format!(
            "removed {removed} wave-rules hook{} from {}\n",
            if removed == 1 { "" } else { "s" },
            path.display()
        ));
    }
    if out.stdout.is_empty() {
        let paths: Vec<String> = settings_paths(env, args.scope)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        out.stdout = format!("no wave-rules hooks in {}\n", paths.join(" or "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order() {
        let text = r#"{"z":1,"a":{"y":[1,2.5,"x",null,true],"b":{}},"hooks":{}}"#;
        let v: Json = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), text);
    }

    #[test]
    fn ours_is_recognised_by_name_and_event() {
        assert!(is_ours("/opt/bin/wave-rules hook Stop", "Stop"));
        assert!(is_ours("'/usr/bin/node' '/x/node_modules/wave-memory-rules/bin/wave-rules.js' hook PostToolUse", "PostToolUse"));
        assert!(!is_ours("/opt/bin/wave-rules hook Stop", "SessionStart"));
        assert!(!is_ours("my-linter hook Stop", "Stop"));
    }
}
