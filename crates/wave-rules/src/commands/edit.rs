//! `wave-rules add` and `wave-rules remove`: write and delete rule files.

use crate::base::args::{AddArgs, RemoveArgs};
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::sources::RuleFile;
use memory_rules::{GlobProblem, Scope};
use std::io::Write;
use std::path::{Path, PathBuf};

use memory_rules::base::limits::{MAX_ID_CHARS, MAX_ID_SUFFIX};

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
            .map(memory_rules::split_commas)
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
    let checked = check_paths(&paths)
        .and_then(|()| description(args))
        .and_then(|d| Ok((d, wanted_id(args)?)));
    let (description, wanted_id) = match checked {
        Ok(c) => c,
        Err(out) => return out,
    };
    let scope: Scope = args.scope.into();
    let Some(source) = env.config.write_source(scope) else {
        return Output::fail(
            EXIT_FAILURE,
            format!("no {scope} source in the wave format to write the rule to"),
        );
    };
    if let Err(out) = check_depth(env, source, wanted_id.as_deref()) {
        return out;
    }
    let dir = source.dir.clone();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Output::fail(
            EXIT_TROUBLE,
            format!("cannot create {}: {e}", dir.display()),
        );
    }
    let rule = NewRule {
        scope,
        dir: &dir,
        wanted_id: wanted_id.as_deref(),
        base: memory_rules::slug(content, MAX_ID_CHARS).unwrap_or_else(|| "rule".to_string()),
        content,
        text: rule_text(&paths, &topics, args.priority, description, content),
    };
    write_new(env, &rule)
}

/// The `--paths` patterns, checked as the core checks a rule file's and in
/// the same order: what `validate` would flag, `add` refuses.
fn check_paths(paths: &[String]) -> Result<(), Output> {
    let refuse = |message: String| Err(Output::fail(EXIT_FAILURE, message));
    for p in paths {
        match memory_rules::check_glob(p) {
            Err(e) => return refuse(format!("pattern '{p}': {e}; nothing written")),
            Ok(Some(GlobProblem::Unmatchable(why))) => {
                return refuse(format!("pattern '{p}' can never match: {why}; write it relative to the project root (e.g. src/**/*.ts); nothing written"))
            }
            Ok(Some(GlobProblem::Escaped(meant))) => {
                return refuse(format!("pattern '{p}' has an escaped '*' (\\*), so it matches only a file name with a literal '*'; write '{meant}'; nothing written"))
            }
            Ok(Some(GlobProblem::Unclosed(why))) => {
                return refuse(format!("pattern '{p}': {why}; nothing written"))
            }
            Ok(None) => {}
        }
    }
    if !paths.is_empty() && paths.iter().all(|p| memory_rules::is_exclusion(p)) {
        return refuse(
            "every --paths pattern is a '!' exclusion, so none can activate the rule; add a pattern to include; nothing written".into(),
        );
    }
    Ok(())
}

/// `--description`, trimmed (none when empty); it must be one line.
fn description(args: &AddArgs) -> Result<Option<&str>, Output> {
    let description = args
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    if description.is_some_and(|d| d.contains(['\n', '\r'])) {
        return Err(Output::fail(
            EXIT_FAILURE,
            "--description must be one line; nothing written",
        ));
    }
    Ok(description)
}

/// `--id`, with `.md` added when it has none; it must be a valid id.
fn wanted_id(args: &AddArgs) -> Result<Option<String>, Output> {
    let Some(id) = args.id.as_deref().map(str::trim) else {
        return Ok(None);
    };
    let id = if id.ends_with(".md") {
        id.to_string()
    } else {
        format!("{id}.md")
    };
    if !valid_id(&id) {
        return Err(Output::fail(
            EXIT_FAILURE,
            format!("invalid --id '{id}': an id is a path inside the rules directory, like frontend/react.md"),
        ));
    }
    Ok(Some(id))
}

/// An `--id` deeper than its source is read would never load.
fn check_depth(
    env: &Env,
    source: &memory_rules::sources::Source,
    id: Option<&str>,
) -> Result<(), Output> {
    let (Some(id), Some(depth)) = (id, source.depth) else {
        return Ok(());
    };
    let deep = id.matches('/').count();
    if deep > depth {
        return Err(Output::fail(
            EXIT_FAILURE,
            format!(
                "--id '{id}' is {deep} directories deep, but {} is read {depth} level{} deep, so the rule would never load; nothing written",
                display::show(&source.dir, &env.config.workdir),
                if depth == 1 { "" } else { "s" }
            ),
        ));
    }
    Ok(())
}

/// A rule `add` is about to write: where, under which id, and its text.
struct NewRule<'a> {
    scope: Scope,
    dir: &'a Path,
    /// `--id`; without it the id is `base.md`, else `base-N.md`.
    wanted_id: Option<&'a str>,
    /// The id made from the content.
    base: String,
    content: &'a str,
    /// The whole file: frontmatter and body.
    text: String,
}

/// Writes the rule under the first free id (`base.md`, `base-2.md`, ...,
/// or `--id`), never over a file; the same rule again writes nothing.
fn write_new(env: &Env, rule: &NewRule) -> Output {
    let NewRule {
        scope,
        dir,
        wanted_id,
        base,
        content,
        text,
    } = rule;
    let scope = *scope;
    let mut n = 1;
    let (id, file) = loop {
        let id = match wanted_id {
            Some(id) => id.to_string(),
            None if n == 1 => format!("{base}.md"),
            None => format!("{base}-{n}.md"),
        };
        let file = dir.join(&id);
        if let Some(parent) = file.parent() {
            if let Err(e) = std::fs::create_dir_all(parent) {
                return Output::fail(
                    EXIT_TROUBLE,
                    format!("cannot create {}: {e}", parent.display()),
                );
            }
        }
        // The same rule again is not a second rule: say so and write nothing.
        if let Some(existing) = memory_rules::sources::read_rule_file(&file)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
        {
            let shown = display::show(&file, &env.config.workdir);
            if existing == *text {
                let mut out = done(env, "unchanged", &id, scope, &file);
                if !env.json {
                    out.stdout = display::line(&format!(
                        "{scope} rule {id} already says this ({shown}); nothing written"
                    ));
                }
                return out;
            }
            if wanted_id.is_some() {
                return Output::fail(
                    EXIT_FAILURE,
                    format!("rule {id} exists ({shown}); remove it first or choose another --id; nothing written"),
                );
            }
            if body_of(&existing).trim() == *content {
                return Output::fail(
                    EXIT_FAILURE,
                    format!("rule {id} ({shown}) already has this text, with other triggers; edit that file, or pass --id to add a second rule; nothing written"),
                );
            }
            if n >= MAX_ID_SUFFIX {
                return Output::fail(
                    EXIT_FAILURE,
                    format!(
                        "{MAX_ID_SUFFIX} rules named {base}-N.md exist; pass --id; nothing written"
                    ),
                );
            }
            n += 1;
            continue;
        }
        // create_new: never overwrite, even if another writer raced us.
        match create_new(&file, text) {
            Ok(true) => break (id, file),
            Ok(false) if wanted_id.is_none() && n < MAX_ID_SUFFIX => n += 1,
            Ok(false) => {
                return Output::fail(
                    EXIT_FAILURE,
                    format!(
                    "{} exists and cannot be read as a rule; choose another --id; nothing written",
                    file.display()
                ),
                )
            }
            Err(out) => return out,
        }
    };
    done(env, "added", &id, scope, &file)
}

/// Writes `text` to a file that must not exist yet (`create_new`, so never
/// over a file another writer made meanwhile): `Ok(false)` when it exists;
/// an I/O failure is an `Output` naming the file.
pub(crate) fn create_new(file: &Path, text: &str) -> Result<bool, Output> {
    let fail = |e: std::io::Error| {
        Output::fail(
            EXIT_TROUBLE,
            format!("cannot write {}: {e}", file.display()),
        )
    };
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(file)
    {
        Ok(mut f) => f.write_all(text.as_bytes()).map(|()| true).map_err(fail),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(fail(e)),
    }
}

/// Frontmatter (values as JSON strings, which are valid YAML) and body.
fn rule_text(
    paths: &[String],
    topics: &[String],
    priority: Option<i64>,
    description: Option<&str>,
    content: &str,
) -> String {
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
    if let Some(d) = description {
        yaml.push_str(&format!("description: {}\n", quote(&d.to_string())));
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

/// The text after a frontmatter block (all of it when there is none).
fn body_of(text: &str) -> &str {
    let t = text.trim_start_matches('\u{feff}');
    if let Some(rest) = t.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---\n") {
            return &rest[end + 5..];
        }
    }
    t
}

pub fn remove(env: &Env, args: &RemoveArgs) -> Output {
    let given = args.id.as_str();
    // The file's path (relative to the current directory, or absolute).
    if given.ends_with(".md") && (given.contains(std::path::MAIN_SEPARATOR) || given.contains('/'))
    {
        if let Ok(real) = std::fs::canonicalize(given) {
            if let Some(out) = remove_file_path(env, args, given, &real) {
                return out;
            }
        }
    }
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
    let mut all_ids: Vec<String> = Vec::new();
    let mut by_base: Vec<(Scope, RuleFile, PathBuf)> = Vec::new();
    for source in &sources {
        let scope = source.scope;
        let found = source.files(&env.config.workdir);
        all_ids.extend(found.iter().map(|f| f.id.clone()));
        // A base name (`react` for frontend/react.md) names the rule too.
        if !given.contains('/') {
            for f in &found {
                if f.id.rsplit('/').next() == Some(id.as_str()) && f.id != id {
                    by_base.push((scope, f.clone(), source.dir.clone()));
                }
            }
        }
        let Some(f) = found.into_iter().find(|f| f.id == id) else {
            continue;
        };
        return delete(env, given, scope, &f.id, &f.path, &source.dir);
    }
    match by_base.len() {
        1 => {
            let (scope, f, root) = by_base.remove(0);
            return delete(env, given, scope, &f.id, &f.path, &root);
        }
        0 => {}
        _ => {
            let ids: Vec<&str> = by_base.iter().map(|(_, f, _)| f.id.as_str()).collect();
            return Output::fail(
                EXIT_FAILURE,
                format!(
                    "'{given}' names {} rules: {}; give the id",
                    ids.len(),
                    ids.join(", ")
                ),
            );
        }
    }
    not_found(env, given, all_ids)
}

/// Why no rule file of `given` was removed: a pack's or the policy's rule
/// is not ours to delete; else it is not found, with the closest ids.
fn not_found(env: &Env, given: &str, all_ids: Vec<String>) -> Output {
    // A pack's or the policy's rule is not a file of ours to delete.
    let wanted = [given.to_string(), format!("{given}.md")];
    if let Some(r) = env.load().rules.rules().iter().find(|r| {
        wanted.contains(&r.id)
            && r.origin.layer != memory_rules::LayerKind::Project
            && r.origin.layer != memory_rules::LayerKind::User
    }) {
        let how = if r.origin.locked {
            "it is a locked policy rule; only an administrator can change the policy".to_string()
        } else {
            format!(
                "it comes from a pack ({}); add it to `disable` under [rules] in .wave/config.toml, or write a project rule with the same id",
                r.origin.provenance
            )
        };
        return Output::fail(
            EXIT_FAILURE,
            format!("rule '{given}' is not removed: {how}"),
        );
    }
    let near = closest_ids(given, all_ids);
    let hint = if near.is_empty() {
        "; `wave-rules list` shows the ids".to_string()
    } else {
        format!("; did you mean {}?", near.join(", "))
    };
    Output::fail(EXIT_FAILURE, format!("rule '{given}' not found{hint}"))
}

/// The ids (base names too, so `reakt` finds frontend/react.md) closest to
/// `given`, each once, in order.
fn closest_ids(given: &str, mut all_ids: Vec<String>) -> Vec<String> {
    all_ids.sort();
    all_ids.dedup();
    let bare = |s: &str| s.strip_suffix(".md").unwrap_or(s).to_string();
    let bare_ids: Vec<String> = all_ids.iter().map(|i| bare(i)).collect();
    let mut candidates: Vec<&str> = bare_ids.iter().map(String::as_str).collect();
    // Base names too, so `reakt` finds frontend/react.md.
    let bases: Vec<(String, &str)> = bare_ids
        .iter()
        .filter_map(|i| i.rsplit_once('/').map(|(_, b)| (b.to_string(), i.as_str())))
        .collect();
    candidates.extend(bases.iter().map(|(b, _)| b.as_str()));
    memory_rules::base::suggest::close(&bare(given), candidates, 3)
        .into_iter()
        .map(|c| {
            let full = bases.iter().find(|(b, _)| b == c).map_or(c, |(_, i)| i);
            format!("{full}.md")
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// `remove <file path>`: the rule whose file this is, in any source.
fn remove_file_path(env: &Env, args: &RemoveArgs, given: &str, real: &Path) -> Option<Output> {
    let only: Option<Scope> = args.scope.map(Into::into);
    for source in env.config.sources.iter().rev() {
        if only.is_some_and(|o| o != source.scope) {
            continue;
        }
        for f in source.files(&env.config.workdir) {
            if f.format != memory_rules::Format::Wave && f.format != memory_rules::Format::Claude {
                continue;
            }
            if std::fs::canonicalize(&f.path).is_ok_and(|p| p == real) {
                return Some(delete(
                    env,
                    given,
                    source.scope,
                    &f.id,
                    &f.path,
                    &source.dir,
                ));
            }
        }
    }
    None
}

/// Deletes one found rule file (inside its root, not through a symlink).
fn delete(env: &Env, given: &str, scope: Scope, id: &str, path: &Path, root: &Path) -> Output {
    if let Err(why) = inside_root(path, root) {
        return Output::fail(
            EXIT_FAILURE,
            format!("rule '{given}' is not removed: {why}"),
        );
    }
    if let Err(e) = std::fs::remove_file(path) {
        return Output::fail(
            EXIT_TROUBLE,
            format!("cannot remove {}: {e}", path.display()),
        );
    }
    done(env, "removed", id, scope, path)
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

/// Why a rule file is not ours to delete.
#[derive(Debug, thiserror::Error)]
enum OutsideRoot {
    #[error("cannot resolve {}: {source}", path.display())]
    Unresolved {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("its file is in {}, outside the rules directory (through a symlink)", parent.display())]
    Elsewhere { parent: PathBuf },
}

/// The file's directory must resolve inside the root: a rule reached through
/// a symlinked directory lives elsewhere, and is not ours to delete.
fn inside_root(file: &Path, root: &Path) -> Result<(), OutsideRoot> {
    let real = |p: &Path| {
        std::fs::canonicalize(p).map_err(|source| OutsideRoot::Unresolved {
            path: p.to_path_buf(),
            source,
        })
    };
    let parent = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let (parent, root) = (real(&parent)?, real(root)?);
    if parent.starts_with(&root) {
        Ok(())
    } else {
        Err(OutsideRoot::Elsewhere { parent })
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
