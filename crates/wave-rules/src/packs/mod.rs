//! `wave-rules packs`: add, list, sync [--frozen|--update], outdated, why.
//!
//! The core finds packs on disk and never fetches ([`memory_rules::packs`]);
//! this is where fetching happens: git packs are checked out into the
//! cache (`git` module), npm packs are checked against their range, and
//! the lockfile is written (or, with `--frozen`, compared).

mod git;

use crate::args::{PacksAction, PacksArgs, PacksSyncArgs};
use crate::display;
use crate::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::packs::{self, hash, manifest, Home, Lock, Locked, PackKind, Pin, Spec};
use serde_json::json;
use std::path::{Path, PathBuf};

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

fn show(path: &Path, env: &Env) -> String {
    display::show(path, &env.config.workdir)
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
        if let Err(o) = crate::settings_file::save(&path, &doc.to_string()) {
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

/// The install command of the package manager the project uses (by its
/// lockfile).
fn install_command(base: &Path, spec: &Spec) -> String {
    let what = match &spec.want {
        Some(r) => format!("{}@{r}", spec.name),
        None => spec.name.clone(),
    };
    let pm = if base.join("pnpm-lock.yaml").is_file() {
        "pnpm add --save-dev"
    } else if base.join("yarn.lock").is_file() {
        "yarn add --dev"
    } else if base.join("bun.lock").is_file() || base.join("bun.lockb").is_file() {
        "bun add --dev"
    } else {
        "npm install --save-dev"
    };
    format!("{pm} {what}")
}

// ---- sync ----

/// One pack's outcome.
struct Row {
    spec: Spec,
    resolved: Option<String>,
    hash: Option<String>,
    /// `locked`, `not pinned` (a folder), `drift`, `missing`, `error`.
    status: &'static str,
    message: Option<String>,
    entry: Option<Locked>,
}

impl Row {
    fn new(spec: &Spec) -> Row {
        Row {
            spec: spec.clone(),
            resolved: None,
            hash: None,
            status: "locked",
            message: None,
            entry: None,
        }
    }
    fn fail(mut self, status: &'static str, message: String) -> Row {
        self.status = status;
        self.message = Some(message);
        self
    }
}

fn sync(env: &Env, home: &Home, args: &PacksSyncArgs) -> Output {
    let mut diagnostics = Vec::new();
    let config = packs::read_config(home, &mut diagnostics);
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity == memory_rules::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if !errors.is_empty() {
        return Output::fail(EXIT_FAILURE, errors.join("\nwave-rules: "));
    }
    let lock_path = home.lock();
    let lock = match Lock::read(&lock_path) {
        Ok(l) => l,
        Err(e) if args.frozen => return Output::fail(EXIT_FAILURE, e),
        // A lock we cannot read is written again.
        Err(_) => None,
    };
    let specs: Vec<Spec> = config
        .iter()
        .flat_map(|c| c.packs.iter().map(|(s, _)| s.clone()))
        .collect();
    let mut rows = Vec::new();
    for spec in &specs {
        let locked = lock.as_ref().and_then(|l| l.get(&spec.text));
        let row = match spec.kind {
            PackKind::Npm => sync_npm(home, spec, locked, args.frozen),
            PackKind::Git => sync_git(home, spec, locked, args),
            PackKind::Folder => {
                let found = packs::find(home, spec, None);
                match found.problem {
                    Some(p) => Row::new(spec).fail("missing", p),
                    None => Row {
                        status: "not pinned",
                        resolved: found.version,
                        ..Row::new(spec)
                    },
                }
            }
        };
        rows.push(row);
    }
    let mut extra = Vec::new();
    if let Some(l) = &lock {
        for p in &l.packs {
            if !specs.iter().any(|s| s.text == p.spec) {
                extra.push(p.spec.clone());
            }
        }
    }
    let new_lock = Lock {
        version: packs::lock::LOCK_VERSION,
        packs: rows.iter().filter_map(|r| r.entry.clone()).collect(),
    };
    let failed = rows
        .iter()
        .any(|r| matches!(r.status, "drift" | "missing" | "error"));
    let mut written = false;
    let mut frozen_problem = false;
    let mut out = Output::default();
    if args.frozen {
        if lock.is_none() && !new_lock.packs.is_empty() {
            frozen_problem = true;
            out.stderr.push_str(&display::line(&format!(
                "wave-rules: packs: there is no {}: run `wave-rules packs sync` and commit it",
                show(&lock_path, env)
            )));
        }
        frozen_problem |= !extra.is_empty();
    } else if !failed
        && (lock.is_some() || !new_lock.packs.is_empty())
        && lock.as_ref() != Some(&new_lock)
    {
        if let Err(o) = crate::settings_file::save(&lock_path, &new_lock.to_text()) {
            return o;
        }
        written = true;
    }
    let failed = failed || frozen_problem;
    if env.json {
        let list: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({
                    "spec": r.spec.text, "kind": r.spec.kind.as_str(), "name": r.spec.name,
                    "resolved": r.resolved, "hash": r.hash, "status": r.status, "message": r.message,
                })
            })
            .collect();
        out.stdout = display::json_text(&json!({
            "packs": list,
            "lock": lock_path.to_string_lossy(),
            "written": written,
            "frozen": args.frozen,
            "notInConfig": extra,
            "ok": !failed,
        }));
    } else {
        let table: Vec<[String; 5]> = rows
            .iter()
            .map(|r| {
                [
                    r.spec.text.clone(),
                    r.spec.kind.to_string(),
                    r.resolved.clone().map(|c| short(&c)).unwrap_or_default(),
                    r.hash.clone().map(|h| short_hash(&h)).unwrap_or_default(),
                    r.status.to_string(),
                ]
            })
            .collect();
        if !table.is_empty() {
            out.stdout = crate::list::table(["PACK", "KIND", "RESOLVED", "HASH", "STATUS"], &table);
        } else {
            out.stdout = display::line(&format!("no packs in {}", show(&home.config(), env)));
        }
        if written {
            out.stdout.push_str(&display::line(&format!(
                "wrote {} ({} pack{})",
                show(&lock_path, env),
                new_lock.packs.len(),
                if new_lock.packs.len() == 1 { "" } else { "s" }
            )));
        }
    }
    for r in &rows {
        if let Some(m) = &r.message {
            out.stderr.push_str(&display::line(&format!(
                "wave-rules: packs: {}: {m}",
                r.spec
            )));
        }
    }
    for e in &extra {
        let what = if args.frozen {
            "is in the lock but not in the config: run `wave-rules packs sync` and commit the lock"
        } else {
            "is no more in the config; left out of the lock"
        };
        out.stderr
            .push_str(&display::line(&format!("wave-rules: packs: {e} {what}")));
    }
    if failed {
        out.code = EXIT_FAILURE;
    }
    out
}

fn short(resolved: &str) -> String {
    if resolved.len() == 40 && resolved.chars().all(|c| c.is_ascii_hexdigit()) {
        resolved[..7].to_string()
    } else {
        resolved.to_string()
    }
}

fn short_hash(h: &str) -> String {
    h.chars().take(7 + 12).collect()
}

fn sync_npm(home: &Home, spec: &Spec, locked: Option<&Locked>, frozen: bool) -> Row {
    let row = Row::new(spec);
    let found = packs::find(home, spec, None);
    if let Some(p) = found.problem {
        return row.fail("missing", p);
    }
    let (Some(root), Some(m)) = (&found.root, &found.manifest) else {
        return row.fail("missing", "not found".into());
    };
    let Some(version) = found.version.clone() else {
        return row.fail(
            "error",
            format!("{} has no version in its package.json", root.display()),
        );
    };
    if let Err(e) = satisfies(&version, spec.want.as_deref()) {
        return row.fail("error", e);
    }
    let hash = match hash::content_hash(root, m) {
        Ok(h) => h,
        Err(e) => return row.fail("error", e),
    };
    let entry = Locked {
        spec: spec.text.clone(),
        kind: "npm".into(),
        name: spec.name.clone(),
        version: Some(version.clone()),
        hash: hash.clone(),
        ..Locked::default()
    };
    let mut row = Row {
        resolved: Some(version.clone()),
        hash: Some(hash.clone()),
        entry: Some(entry),
        ..row
    };
    if frozen {
        let drift = match locked {
            None => Some("not in the lock: run `wave-rules packs sync` and commit the lock".to_string()),
            Some(l) if l.version.as_deref() != Some(version.as_str()) => Some(format!(
                "node_modules has {version}, the lock pins {}: install the locked version, or run `wave-rules packs sync` and commit the lock",
                l.version.as_deref().unwrap_or("(none)")
            )),
            Some(l) if l.hash != hash => Some(format!(
                "the rule files of {} {version} are not what the lock pins ({} here, {} locked): the installed package was changed",
                spec.name,
                short_hash(&hash),
                short_hash(&l.hash)
            )),
            Some(_) => None,
        };
        if let Some(d) = drift {
            row = row.fail("drift", d);
        }
    }
    row
}

/// Whether an installed version satisfies the config's range (npm's rules).
fn satisfies(version: &str, range: Option<&str>) -> Result<(), String> {
    let Some(range) = range else {
        return Ok(());
    };
    let r = nodejs_semver::Range::parse(range)
        .map_err(|_| format!("'{range}' is not an npm version range"))?;
    let v = nodejs_semver::Version::parse(version)
        .map_err(|_| format!("the installed version '{version}' is not a semver version"))?;
    if v.satisfies(&r) {
        Ok(())
    } else {
        Err(format!(
            "node_modules has {version}, which is not in {range}: install a version in range (npm install)"
        ))
    }
}

fn mirror_of(home: &Home, spec: &Spec) -> PathBuf {
    let checkout = home.checkout(spec);
    let name = checkout
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    home.cache().join(".git").join(format!("{name}.git"))
}

fn sync_git(home: &Home, spec: &Spec, locked: Option<&Locked>, args: &PacksSyncArgs) -> Row {
    let mut row = Row::new(spec);
    let mirror = mirror_of(home, spec);
    if let Err(e) = git::fetch(&spec.location, &mirror) {
        return row.fail("error", e);
    }
    let now = match git::resolve(&mirror, spec.want.as_deref()) {
        Ok(c) => c,
        Err(e) => return row.fail("error", format!("{}: {e}", spec.location)),
    };
    let locked_commit = locked.and_then(|l| l.commit.clone());
    let mut drift = None;
    let mut note = None;
    let target = match (&locked_commit, args.update) {
        (Some(c), false) => {
            if *c != now {
                let r = spec.want.as_deref().unwrap_or("HEAD");
                if args.frozen {
                    drift = Some(format!(
                        "{r} is now at {}, the lock pins {}: run `wave-rules packs sync --update` and commit the lock",
                        short(&now),
                        short(c)
                    ));
                } else {
                    note = Some(format!(
                        "{r} has moved to {}; the locked {} is kept (`packs sync --update` moves it)",
                        short(&now),
                        short(c)
                    ));
                }
            }
            if git::resolve(&mirror, Some(c)).is_err() {
                return row.fail(
                    "error",
                    format!("the locked commit {c} is no more in {}", spec.location),
                );
            }
            c.clone()
        }
        _ => {
            if args.frozen {
                drift =
                    Some("not in the lock: run `wave-rules packs sync` and commit the lock".into());
            }
            now.clone()
        }
    };
    let dest = home.checkout(spec);
    let pin_path = home.pin_path(spec);
    let current = Pin::read(&pin_path).filter(|p| p.commit == target && dest.is_dir());
    let reuse = current.as_ref().and_then(|p| {
        let m = manifest::read(&dest, false).ok()?;
        (hash::content_hash(&dest, &m).ok()? == p.hash).then(|| p.hash.clone())
    });
    let hash = match reuse {
        Some(h) => h,
        None => match check_out(&mirror, &target, &dest) {
            Ok(h) => h,
            Err(e) => return row.fail("error", e),
        },
    };
    let pin = Pin {
        url: spec.location.clone(),
        reference: spec.want.clone(),
        commit: target.clone(),
        hash: hash.clone(),
    };
    if let Ok(text) = serde_json::to_string_pretty(&pin) {
        if let Err(o) = crate::settings_file::save(&pin_path, &text) {
            return row.fail("error", o.stderr.trim().to_string());
        }
    }
    let ignore = home.cache().join(".gitignore");
    if !ignore.exists() {
        let _ = std::fs::write(
            &ignore,
            "# Checkouts of git packs (wave-rules packs sync): not committed.\n*\n",
        );
    }
    if drift.is_none() && args.frozen {
        if let Some(l) = locked.filter(|l| l.hash != hash) {
            drift = Some(format!(
                "the rule files at {} are not what the lock pins ({} here, {} locked)",
                short(&target),
                short_hash(&hash),
                short_hash(&l.hash)
            ));
        }
    }
    row.resolved = Some(target.clone());
    row.hash = Some(hash.clone());
    row.entry = Some(Locked {
        spec: spec.text.clone(),
        kind: "git".into(),
        name: spec.name.clone(),
        reference: spec.want.clone(),
        commit: Some(target),
        hash,
        ..Locked::default()
    });
    if let Some(d) = drift {
        return row.fail("drift", d);
    }
    row.message = note;
    row
}

/// Writes `commit` into `dest` through a temporary folder and a rename (the
/// old checkout stays until the new one is complete); its content hash.
fn check_out(mirror: &Path, commit: &str, dest: &Path) -> Result<String, String> {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = dest.parent().unwrap_or(Path::new("."));
    let tmp = parent.join(format!(".tmp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    git::checkout(mirror, commit, &tmp)?;
    let result = manifest::read(&tmp, false).and_then(|m| hash::content_hash(&tmp, &m));
    let hash = match result {
        Ok(h) => h,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(format!("at {}: {e}", short(commit)));
        }
    };
    let old = parent.join(format!(".old-{name}-{}", std::process::id()));
    if dest.exists() {
        std::fs::rename(dest, &old)
            .map_err(|e| format!("cannot replace {}: {e}", dest.display()))?;
    }
    if let Err(e) = std::fs::rename(&tmp, dest) {
        let _ = std::fs::rename(&old, dest);
        return Err(format!("cannot write {}: {e}", dest.display()));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(hash)
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
            let same = match p.spec.kind {
                PackKind::Git => locked.commit.as_deref() == p.resolved(),
                _ => locked.version.as_deref() == p.resolved(),
            };
            if same {
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
    out.stdout = crate::list::table(["PACK", "KIND", "PROVENANCE", "STATUS", "RULES"], &table);
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
        out.stdout = crate::list::table(["PACK", "KIND", "LOCKED", "NOW", "STATUS"], &table);
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

fn out_err(diagnostics: &mut Vec<memory_rules::Diagnostic>, spec: &Spec, e: String) {
    diagnostics.push(memory_rules::Diagnostic::new(
        memory_rules::Severity::Error,
        memory_rules::Code::PackMissing,
        Path::new(&spec.text),
        e,
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
        let hint = memory_rules::suggest::closest(&id, ids.iter().copied())
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
        .push_str(&crate::list::table(["LAYER", "RULE", "STATUS"], &table));
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
