//! `wave-rules packs`: add, list, sync [--frozen|--update], outdated, why.
//!
//! The core finds packs on disk and never fetches ([`memory_rules::sources::packs`]);
//! this is where fetching happens: `packs_sync` checks out the git packs
//! into the cache (through `packs_git`), checks the npm packs against their
//! range and writes the lockfile (or, with `--frozen`, compares it).

use super::packs_git as git;
use super::packs_sync::{satisfies, short, show, sync};
use crate::base::args::{PacksAction, PacksArgs, PacksSyncArgs};
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::sources::packs::{self, Home, PackKind, Spec};
use serde_json::json;
use std::path::Path;

pub fn run(env: &Env, args: &PacksArgs) -> Output {
    if let PacksAction::Why(a) = &args.action {
        return why(env, &a.id);
    }
    let home = match home(env, args.policy) {
        Ok(h) => h,
        Err(out) => return out,
    };
    match &args.action {
        PacksAction::Add(a) => add(env, &home, &a.spec),
        PacksAction::List => list(env, &home),
        PacksAction::Sync(a) => sync(env, &home, a),
        PacksAction::Outdated => outdated(env, &home),
        PacksAction::Why(_) => unreachable!("answered above"),
    }
}

/// The project's home, or the policy's (`--policy`).
fn home(env: &Env, policy: bool) -> Result<Home, Output> {
    if !policy {
        return Ok(Home::project(&env.config.workdir));
    }
    match env.config.policy.clone().or_else(packs::default_policy_dir) {
        Some(dir) => Ok(Home::policy(&dir)),
        None => Err(Output::fail(
            EXIT_TROUBLE,
            format!(
                "no policy directory on this system: set {}",
                packs::POLICY_ENV
            ),
        )),
    }
}

// ---- add ----

fn add(env: &Env, home: &Home, text: &str) -> Output {
    let spec = match Spec::parse(text) {
        Ok(s) => s,
        Err(e) => return Output::fail(EXIT_TROUBLE, format!("packs add: {e}")),
    };
    let path = home.config();
    let before = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Output::fail(EXIT_TROUBLE, format!("cannot read {}: {e}", path.display()))
        }
    };
    let mut doc: toml_edit::DocumentMut = match before.parse() {
        Ok(d) => d,
        Err(e) => {
            return Output::fail(EXIT_TROUBLE, format!("{} is not TOML: {e}", path.display()))
        }
    };
    let list = doc
        .entry("packs")
        .or_insert_with(|| toml_edit::value(toml_edit::Array::new()));
    let Some(array) = list.as_array_mut() else {
        return Output::fail(
            EXIT_TROUBLE,
            format!("{}: packs is not a list", path.display()),
        );
    };
    let mut out = Output::default();
    let added = !array.iter().any(|v| v.as_str() == Some(spec.text.as_str()));
    if !added {
        out.stdout = display::line(&format!("{spec} is already in {}", show(&path, env)));
    } else {
        array.push(spec.text.as_str());
        if let Err(o) = crate::base::settings_file::save(&path, &doc.to_string()) {
            return o;
        }
        out.stdout = display::line(&format!("added {spec} to {}", show(&path, env)));
    }
    let report = |install: Option<String>, synced: Option<serde_json::Value>| {
        display::json_text(&json!({
            "spec": spec.text, "kind": spec.kind.as_str(), "config": path.to_string_lossy(),
            "added": added, "install": install, "sync": synced,
        }))
    };
    if spec.kind == PackKind::Npm && packs::find(home, &spec, None).root.is_none() {
        let install = install_command(&home.base, &spec);
        if env.json {
            out.stdout = report(Some(install), None);
            return out;
        }
        out.stdout.push_str(&display::line(&format!(
            "next: install it with your package manager, then run `wave-rules packs sync`:\n  {install}"
        )));
        return out;
    }
    let synced = sync(
        env,
        home,
        &PacksSyncArgs {
            frozen: false,
            update: false,
        },
    );
    if env.json {
        out.stdout = report(None, serde_json::from_str(&synced.stdout).ok());
    } else {
        out.stdout.push_str(&synced.stdout);
    }
    out.stderr = synced.stderr;
    out.code = synced.code;
    out
}

/// Each package manager by its lockfiles, in the order they are looked for,
/// with its command to add a dev dependency; npm's when none is there.
const PACKAGE_MANAGERS: &[(&[&str], &str)] = &[
    (&["pnpm-lock.yaml"], "pnpm add --save-dev"),
    (&["yarn.lock"], "yarn add --dev"),
    (&["bun.lock", "bun.lockb"], "bun add --dev"),
];

/// The install command of the package manager the project uses (by its
/// lockfile).
fn install_command(base: &Path, spec: &Spec) -> String {
    let what = match &spec.want {
        Some(r) => format!("{}@{r}", spec.name),
        None => spec.name.clone(),
    };
    let pm = PACKAGE_MANAGERS
        .iter()
        .find(|(lockfiles, _)| lockfiles.iter().any(|l| base.join(l).is_file()))
        .map_or("npm install --save-dev", |(_, command)| command);
    format!("{pm} {what}")
}

// ---- list ----

fn list(env: &Env, home: &Home) -> Output {
    let mut diagnostics = Vec::new();
    let found = packs::home_packs(home.clone(), &mut diagnostics);
    found.check(&mut diagnostics);
    let loaded = env.load();
    let mut rows = Vec::new();
    for p in &found.packs {
        let locked = found.lock.as_ref().and_then(|l| l.get(&p.spec.text));
        let status = if p.problem.is_some() {
            "missing"
        } else if p.spec.kind == PackKind::Folder {
            "not pinned"
        } else if let Some(locked) = locked {
            // The core's own comparison, as a load's `pack-stale` makes it
            // (which also compares a git checkout's content hash).
            if p.pinned_by(locked) {
                "locked"
            } else {
                "stale"
            }
        } else {
            "not in lock"
        };
        let rules = loaded
            .rules
            .rules()
            .iter()
            .filter(|r| p.problem.is_none() && r.origin.pack.as_deref() == Some(p.label.as_str()))
            .count();
        rows.push((p, status, rules));
    }
    let mut out = Output::default();
    if env.json {
        let list: Vec<_> = rows
            .iter()
            .map(|(p, status, rules)| {
                json!({
                    "spec": p.spec.text, "kind": p.spec.kind.as_str(), "name": p.spec.name,
                    "label": p.label, "resolved": p.resolved(), "root": p.root.as_ref().map(|r| r.to_string_lossy()),
                    "status": status, "rules": rules, "problem": p.problem,
                })
            })
            .collect();
        out.stdout = display::json_text(&json!({
            "config": home.config().to_string_lossy(),
            "policy": home.policy,
            "packs": list,
            "diagnostics": diagnostics.iter().map(|d| display::diagnostic_json(d, &env.config.workdir)).collect::<Vec<_>>(),
        }));
        return out;
    }
    if rows.is_empty() {
        out.stdout = display::line(&format!(
            "no packs in {}; add one with `wave-rules packs add SPEC`",
            show(&home.config(), env)
        ));
        return out;
    }
    let table: Vec<[String; 5]> = rows
        .iter()
        .map(|(p, status, rules)| {
            [
                p.spec.text.clone(),
                p.spec.kind.to_string(),
                if p.problem.is_some() {
                    String::new()
                } else {
                    p.label.clone()
                },
                status.to_string(),
                rules.to_string(),
            ]
        })
        .collect();
    out.stdout = super::list::table(["PACK", "KIND", "PROVENANCE", "STATUS", "RULES"], &table);
    for d in &diagnostics {
        out.stderr
            .push_str(&display::line(&format!("wave-rules: {d}")));
    }
    out
}

// ---- outdated ----

fn outdated(env: &Env, home: &Home) -> Output {
    let mut diagnostics = Vec::new();
    let found = packs::home_packs(home.clone(), &mut diagnostics);
    let mut rows = Vec::new();
    let mut any = false;
    let mut trouble = false;
    for p in &found.packs {
        let locked = found.lock.as_ref().and_then(|l| l.get(&p.spec.text));
        let (current, latest, status) = match p.spec.kind {
            PackKind::Folder => continue,
            PackKind::Npm => {
                let installed = p.version.clone();
                let locked_v = locked.and_then(|l| l.version.clone());
                let status = if installed.is_none() {
                    "missing"
                } else if locked_v != installed {
                    "outdated"
                } else if satisfies(installed.as_deref().unwrap_or(""), p.spec.want.as_deref())
                    .is_err()
                {
                    "out of range"
                } else {
                    "up to date"
                };
                (locked_v, installed, status)
            }
            PackKind::Git => {
                let locked_c = locked.and_then(|l| l.commit.clone());
                match git::remote_commit(&p.spec.location, p.spec.want.as_deref()) {
                    Ok(now) => {
                        let status = if locked_c.as_deref() == Some(now.as_str()) {
                            "up to date"
                        } else {
                            "outdated"
                        };
                        (locked_c, Some(now), status)
                    }
                    Err(e) => {
                        trouble = true;
                        out_err(&mut diagnostics, &p.spec, e);
                        (locked_c, None, "failed")
                    }
                }
            }
        };
        any |= status != "up to date";
        rows.push((p.spec.clone(), current, latest, status));
    }
    let mut out = Output::default();
    if env.json {
        let list: Vec<_> = rows
            .iter()
            .map(|(s, c, l, st)| json!({"spec": s.text, "kind": s.kind.as_str(), "locked": c, "latest": l, "status": st}))
            .collect();
        out.stdout = display::json_text(&json!({ "packs": list }));
    } else if rows.is_empty() {
        out.stdout = display::line("no npm or git packs");
    } else {
        let table: Vec<[String; 5]> = rows
            .iter()
            .map(|(s, c, l, st)| {
                [
                    s.text.clone(),
                    s.kind.to_string(),
                    c.as_deref().map(short).unwrap_or_default(),
                    l.as_deref().map(short).unwrap_or_default(),
                    st.to_string(),
                ]
            })
            .collect();
        out.stdout = super::list::table(["PACK", "KIND", "LOCKED", "NOW", "STATUS"], &table);
        if rows.iter().any(|r| r.0.kind == PackKind::Npm) {
            out.stdout.push_str("npm packs: NOW is what node_modules holds; `npm outdated` tells what the registry has\n");
        }
    }
    for d in &diagnostics {
        out.stderr
            .push_str(&display::line(&format!("wave-rules: {d}")));
    }
    out.code = if trouble {
        EXIT_TROUBLE
    } else if any {
        EXIT_FAILURE
    } else {
        0
    };
    out
}

/// A git pack `outdated` could not ask about, as a diagnostic.
fn out_err(diagnostics: &mut Vec<memory_rules::Diagnostic>, spec: &Spec, e: git::GitError) {
    diagnostics.push(memory_rules::Diagnostic::new(
        memory_rules::Severity::Error,
        memory_rules::Code::PackMissing,
        Path::new(&spec.text),
        e.to_string(),
    ));
}

// ---- why ----

fn why(env: &Env, id: &str) -> Output {
    let loaded = env.load();
    let rules = loaded.rules.rules();
    let id = if rules.iter().any(|r| r.id == id) || id.ends_with(".md") {
        id.to_string()
    } else if rules.iter().any(|r| r.id == format!("{id}.md")) {
        format!("{id}.md")
    } else {
        id.to_string()
    };
    let layers = packs::layers(&env.config);
    let mut candidates = Vec::new();
    for f in packs::rule_files(&env.config) {
        if f.id == id {
            let source = &layers.sources[f.source.min(layers.sources.len() - 1)];
            let provenance = memory_rules::provenance(
                &source.layer,
                f.scope,
                &f.id,
                &f.path,
                &env.config.workdir,
            );
            candidates.push((provenance, source.layer.kind(f.scope), f.path.clone()));
        }
    }
    let used = rules.iter().find(|r| r.id == id);
    let notes: Vec<&memory_rules::Diagnostic> = loaded
        .diagnostics
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                memory_rules::Code::Disabled | memory_rules::Code::Locked
            ) && d.message.contains(&format!("'{id}'"))
                || d.code == memory_rules::Code::Disabled
                    && d.message.contains(&format!(":{id} is disabled"))
        })
        .collect();
    if candidates.is_empty() && used.is_none() {
        let ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
        let hint = memory_rules::base::suggest::closest(&id, ids.iter().copied())
            .map(|c| format!(" (did you mean '{c}'?)"))
            .unwrap_or_default();
        return Output::fail(EXIT_FAILURE, format!("no rule has the id '{id}'{hint}"));
    }
    let status_of = |path: &Path| -> String {
        match used {
            Some(u) if u.file_path == path => {
                if u.origin.locked {
                    "used (locked policy rule)".into()
                } else {
                    "used".into()
                }
            }
            Some(u) if u.origin.locked => format!("not used: {} is locked", u.origin.provenance),
            Some(u) => format!("replaced by {}", u.origin.provenance),
            None => "disabled".into(),
        }
    };
    let mut out = Output::default();
    if env.json {
        let list: Vec<_> = candidates
            .iter()
            .map(|(p, layer, path)| json!({"provenance": p, "layer": layer.as_str(), "file": path.to_string_lossy(), "status": status_of(path)}))
            .collect();
        out.stdout = display::json_text(&json!({
            "id": id,
            "used": used.map(|u| u.origin.provenance.clone()),
            "locked": used.is_some_and(|u| u.origin.locked),
            "candidates": list,
            "notes": notes.iter().map(|d| display::diagnostic_json(d, &env.config.workdir)).collect::<Vec<_>>(),
        }));
        return out;
    }
    let head = match used {
        Some(u) => format!(
            "{id}: {} is used{}",
            u.origin.provenance,
            if u.origin.locked { " (locked)" } else { "" }
        ),
        None => format!("{id}: no rule of this id is used"),
    };
    out.stdout = display::line(&head);
    let table: Vec<[String; 3]> = candidates
        .iter()
        .map(|(p, layer, path)| [layer.to_string(), p.clone(), status_of(path)])
        .collect();
    out.stdout
        .push_str(&super::list::table(["LAYER", "RULE", "STATUS"], &table));
    for d in notes {
        out.stdout.push_str(&display::line(&format!(
            "{}{}: {}",
            show(Path::new(&d.file_path), env),
            d.line.map(|l| format!(":{l}")).unwrap_or_default(),
            d.message
        )));
    }
    out
}
