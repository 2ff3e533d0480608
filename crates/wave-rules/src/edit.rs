//! `wave-rules add` and `wave-rules remove`: write and delete rule files.

use crate::args::{AddArgs, RemoveArgs};
use crate::display;
use crate::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::discover::{self, Root};
use memory_rules::{parse, pattern, slug, Scope};
use std::io::Write;
use std::path::Path;

/// Longest id (without `.md`) that `add` makes from the content.
pub const MAX_ID_CHARS: usize = 40;

pub fn add(env: &Env, args: &AddArgs) -> Output {
    let content = args.content.as_deref().map(str::trim).unwrap_or("");
    if content.is_empty() {
        return Output::fail(
            EXIT_FAILURE,
            "no content: give the rule's text as the last argument",
        );
    }
    let list = |s: &Option<String>| -> Vec<String> {
        s.as_deref()
            .map(parse::split_commas)
            .unwrap_or_default()
            .into_iter()
            .filter(|x| !x.is_empty())
            .collect()
    };
    let (topics, paths) = (list(&args.topics), list(&args.paths));
    if topics.is_empty() && paths.is_empty() && !args.always {
        return Output::fail(
            EXIT_FAILURE,
            "a rule needs --topics or --paths to say when it applies (or --always for a rule that is always active)",
        );
    }
    for p in &paths {
        if let Err(e) = pattern::compile(p) {
            return Output::fail(EXIT_FAILURE, format!("pattern '{p}': {e}; nothing written"));
        }
    }
    let scope: Scope = args.scope.into();
    let Some(source) = env.config.write_source(scope) else {
        return Output::fail(
            EXIT_FAILURE,
            format!("no {scope} source in the wave format to write the rule to"),
        );
    };
    let dir = source.dir.clone();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Output::fail(
            EXIT_TROUBLE,
            format!("cannot create {}: {e}", dir.display()),
        );
    }
    let base = slug::slug(content, MAX_ID_CHARS).unwrap_or_else(|| "rule".to_string());
    let text = rule_text(&paths, &topics, args.priority, content);
    let mut n = 1;
    let (id, file) = loop {
        let id = if n == 1 {
            format!("{base}.md")
        } else {
            format!("{base}-{n}.md")
        };
        let file = dir.join(&id);
        // create_new: never overwrite, even if another writer raced us.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
        {
            Ok(mut f) => {
                if let Err(e) = f.write_all(text.as_bytes()) {
                    return Output::fail(
                        EXIT_TROUBLE,
                        format!("cannot write {}: {e}", file.display()),
                    );
                }
                break (id, file);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => {
                return Output::fail(
                    EXIT_TROUBLE,
                    format!("cannot write {}: {e}", file.display()),
                )
            }
        }
    };
    done(env, "added", &id, scope, &file)
}

/// Frontmatter (values as JSON strings, which are valid YAML) and body.
fn rule_text(paths: &[String], topics: &[String], priority: Option<i64>, content: &str) -> String {
    let quote = |s: &String| serde_json::to_string(s).unwrap_or_default();
    let mut yaml = String::new();
    for (key, values) in [("paths", paths), ("topics", topics)] {
        if !values.is_empty() {
            yaml.push_str(&format!("{key}:\n"));
            for v in values {
                yaml.push_str(&format!("  - {}\n", quote(v)));
            }
        }
    }
    if let Some(p) = priority {
        yaml.push_str(&format!("priority: {p}\n"));
    }
    // Content starting with a `---` line would be read as frontmatter: an
    // empty frontmatter block first keeps it the body.
    let fenced = content
        .lines()
        .next()
        .is_some_and(|l| l.trim_start_matches('\u{feff}').trim_end() == "---");
    if yaml.is_empty() && !fenced {
        format!("{content}\n")
    } else {
        format!("---\n{yaml}---\n{content}\n")
    }
}

pub fn remove(env: &Env, args: &RemoveArgs) -> Output {
    let given = args.id.as_str();
    if !valid_id(given) {
        return Output::fail(
            EXIT_FAILURE,
            format!("invalid rule id '{given}': an id is a path inside a rules directory, like frontend/react.md"),
        );
    }
    let id = if given.ends_with(".md") {
        given.to_string()
    } else {
        format!("{given}.md")
    };
    // The winning source first: later sources, and project before user.
    let only: Option<Scope> = args.scope.map(Into::into);
    let mut sources: Vec<_> = env
        .config
        .sources
        .iter()
        .rev()
        .filter(|s| only.is_none_or(|o| o == s.scope))
        .collect();
    sources.sort_by_key(|s| s.scope);
    for source in sources {
        let scope = source.scope;
        let root = Root {
            boundary: None,
            ..source.root(&env.config.workdir)
        };
        let found = discover::find(&root, &mut Vec::new());
        let Some(f) = found.into_iter().find(|f| f.id == id) else {
            continue;
        };
        if let Err(why) = inside_root(&f.path, &root.dir) {
            return Output::fail(
                EXIT_FAILURE,
                format!("rule '{given}' is not removed: {why}"),
            );
        }
        if let Err(e) = std::fs::remove_file(&f.path) {
            return Output::fail(
                EXIT_TROUBLE,
                format!("cannot remove {}: {e}", f.path.display()),
            );
        }
        return done(env, "removed", &id, scope, &f.path);
    }
    Output::fail(EXIT_FAILURE, format!("rule '{given}' not found"))
}

/// An id names a file inside a rules root: relative, no `..`, `\` or NUL.
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('/')
        && !id.contains(['\\', '\0'])
        && id.get(1..2).is_none_or(|c| c != ":")
        && id
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

/// The file's directory must resolve inside the root: a rule reached through
/// a symlinked directory lives elsewhere, and is not ours to delete.
fn inside_root(file: &Path, root: &Path) -> Result<(), String> {
    let real = |p: &Path| {
        std::fs::canonicalize(p).map_err(|e| format!("cannot resolve {}: {e}", p.display()))
    };
    let parent = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let (parent, root) = (real(&parent)?, real(root)?);
    if parent.starts_with(&root) {
        Ok(())
    } else {
        Err(format!(
            "its file is in {}, outside the rules directory (through a symlink)",
            parent.display()
        ))
    }
}

fn done(env: &Env, verb: &str, id: &str, scope: Scope, file: &Path) -> Output {
    let shown = display::show(file, &env.config.workdir);
    let stdout = if env.json {
        display::json_text(&serde_json::json!({ "id": id, "scope": scope.as_str(), "file": shown }))
    } else {
        display::line(&format!("{verb} {scope} rule {id}: {shown}"))
    };
    Output {
        stdout,
        stderr: String::new(),
        code: 0,
    }
}
