//! `wave-rules export --to NAME[,...]|all` (with `--check`, `--dry-run`,
//! `--watch`) and `wave-rules import --from NAME[,...]`: one source of
//! rules, every agent's native files. The mapping and the writers are in
//! `memory_rules::formats` (a writer beside each reader); this module runs
//! them against the disk and reports.

use crate::base::args::{ExportArgs, ImportArgs, OutputFormat};
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::delivery::export::{self, Plan, Sync, Target};
use memory_rules::sources::self_load;
use std::fmt::Write as _;

/// Plans the export of the configured sources' rules to `targets`.
fn plan(env: &Env, targets: &[Target]) -> Result<(Plan, Sync), Output> {
    let loaded = env.load();
    let plan = export::plan(loaded.rules.rules(), &env.config.workdir, targets)
        .map_err(|e| Output::fail(EXIT_TROUBLE, e.to_string()))?;
    let sync = export::diff_with(&plan, &env.config.workdir, loaded.tree(&env.config.workdir));
    Ok((plan, sync))
}

fn notes_text(plan: &Plan) -> String {
    let mut out = String::new();
    for n in &plan.notes {
        let what = if n.skipped { "not exported" } else { "lossy" };
        out.push_str(&display::line(&format!(
            "{}: {} ({what}): {}",
            n.target, n.source, n.message
        )));
    }
    out
}

fn json_report(plan: &Plan, sync: &Sync, written: bool) -> String {
    let changes: Vec<_> = sync
        .changes
        .iter()
        .map(|c| serde_json::json!({"file": c.rel, "action": c.verb()}))
        .collect();
    let conflicts: Vec<_> = sync
        .conflicts
        .iter()
        .map(|c| serde_json::json!({"file": c.rel, "message": c.message}))
        .collect();
    let notes: Vec<_> = plan
        .notes
        .iter()
        .map(|n| {
            serde_json::json!({
                "target": n.target.as_str(),
                "rule": n.rule,
                "source": n.source,
                "skipped": n.skipped,
                "message": n.message,
            })
        })
        .collect();
    display::json_text(&serde_json::json!({
        "ok": sync.conflicts.is_empty(),
        "written": written,
        "targets": plan.targets.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        "files": plan.files.len(),
        "unchanged": sync.unchanged,
        "changes": changes,
        "conflicts": conflicts,
        "copies": sync.copies.iter().map(|(p, e)| serde_json::json!({"file": p, "existing": e})).collect::<Vec<_>>(),
        "notes": notes,
    }))
}

/// Where an agent would cut a file export writes (the core's self_load
/// caps: Codex's 32 KiB of AGENTS.md, 12,000 characters a Windsurf rule).
fn cuts(env: &Env, plan: &Plan) -> Vec<self_load::Cut> {
    let files: Vec<self_load::RuleFileSeen> = plan
        .files
        .iter()
        .map(|f| {
            let path = env.config.workdir.join(&f.rel);
            self_load::RuleFileSeen {
                format: memory_rules::Format::guess(&path),
                path,
                bytes: f.text.len(),
                chars: f.text.chars().count(),
                copy_of: None,
            }
        })
        .collect();
    self_load::cuts(&files)
}

fn cuts_text(env: &Env, cuts: &[self_load::Cut]) -> String {
    let mut s = String::new();
    for c in cuts {
        s.push_str(&display::line(&format!(
            "wave-rules: warning: {}: {}",
            display::show(&c.file, &env.config.workdir),
            c.message()
        )));
    }
    s
}

fn conflicts_text(sync: &Sync) -> String {
    let mut s = String::new();
    for c in &sync.conflicts {
        s.push_str(&display::line(&format!("wave-rules: {}", c.message)));
    }
    s
}

/// One export (or check, or dry run).
fn once(env: &Env, args: &ExportArgs, targets: &[Target]) -> Output {
    let (plan, sync) = match plan(env, targets) {
        Ok(p) => p,
        Err(out) => return out,
    };
    if args.check {
        return check(env, args, targets, &plan, &sync);
    }
    let mut out = Output::default();
    if !sync.conflicts.is_empty() && !args.dry_run {
        // Nothing is written when any file is in the way.
        if env.json {
            out.stdout = json_report(&plan, &sync, false);
        }
        out.stderr = conflicts_text(&sync);
        out.stderr.push_str(
            "wave-rules: nothing was written; export only replaces or removes files it generated\n",
        );
        out.code = EXIT_FAILURE;
        return out;
    }
    if !args.dry_run {
        if let Err(e) = export::apply(&sync.changes) {
            return Output::fail(EXIT_TROUBLE, e.to_string());
        }
    }
    // A dry run shows the whole plan, conflicts or not (and fails with them).
    if !sync.conflicts.is_empty() {
        out.stderr = conflicts_text(&sync);
        out.stderr.push_str(&format!(
            "wave-rules: {} file{} in the way: an export would write nothing; export only replaces or removes files it generated\n",
            sync.conflicts.len(),
            if sync.conflicts.len() == 1 { " is" } else { "s are" }
        ));
        out.code = EXIT_FAILURE;
    }
    out.stdout = if env.json {
        json_report(&plan, &sync, !args.dry_run)
    } else {
        changes_text(env, &plan, &sync, args.dry_run)
    };
    out.stderr.push_str(&cuts_text(env, &cuts(env, &plan)));
    out
}

/// `--check`: what differs from what export would write (a diff or
/// annotations), exit 1 when anything does.
fn check(env: &Env, args: &ExportArgs, targets: &[Target], plan: &Plan, sync: &Sync) -> Output {
    let mut out = Output::default();
    let stale = !sync.changes.is_empty() || !sync.conflicts.is_empty();
    if env.json {
        out.stdout = json_report(plan, sync, false);
    } else {
        out.stdout = match args.format {
            OutputFormat::Text => check_diff(sync),
            OutputFormat::Github => check_annotations(sync),
        };
        let to: Vec<&str> = targets.iter().map(|t| t.as_str()).collect();
        if stale {
            let _ = writeln!(
                out.stderr,
                "wave-rules: {} of the agents' rule files differ from the sources; run `wave-rules export --to {}`",
                sync.changes.len() + sync.conflicts.len(),
                to.join(",")
            );
        } else {
            let _ = writeln!(
                out.stdout,
                "{} files for {} are up to date",
                plan.files.len(),
                to.join(", ")
            );
        }
    }
    out.code = if stale { EXIT_FAILURE } else { 0 };
    out
}

/// `--check`'s text: a unified diff of each change, then each conflict.
fn check_diff(sync: &Sync) -> String {
    let mut s = String::new();
    for c in &sync.changes {
        s.push_str(&export::unified(&c.rel, c.old.as_deref(), c.new.as_deref()));
    }
    for c in &sync.conflicts {
        s.push_str(&display::line(&c.message));
    }
    s
}

/// `--check --format github`: one annotation per change and conflict.
fn check_annotations(sync: &Sync) -> String {
    let mut s = String::new();
    let mut annotate = |rel: &str, message: &str| {
        let _ = writeln!(
            s,
            "::error file={},title={}::{}",
            super::validate::escape_property(rel),
            super::validate::escape_property("wave-rules export --check"),
            super::validate::escape_data(message)
        );
    };
    for c in &sync.changes {
        let message = match c.verb() {
            "create" => "missing: `wave-rules export` would create this file",
            "remove" => "stale: `wave-rules export` would remove this generated file (its source rule is gone)",
            _ => "differs from what `wave-rules export` writes (edited by hand, or its source rule changed)",
        };
        annotate(&c.rel, message);
    }
    for c in &sync.conflicts {
        annotate(&c.rel, &c.message);
    }
    s
}

/// What an export did (or, `dry_run`, would do): each change, the copies
/// left out, the notes and the counts.
fn changes_text(env: &Env, plan: &Plan, sync: &Sync, dry_run: bool) -> String {
    let mut s = String::new();
    let prefix = if dry_run { "would " } else { "" };
    for c in &sync.changes {
        s.push_str(&display::line(&format!(
            "{prefix}{} {}",
            c.verb(),
            display::show(&c.path, &env.config.workdir)
        )));
    }
    for (planned, existing) in &sync.copies {
        s.push_str(&display::line(&format!(
            "not written: {planned}, the same text is already in {existing} (hand-written)"
        )));
    }
    s.push_str(&notes_text(plan));
    let count = |v: &str| sync.changes.iter().filter(|c| c.verb() == v).count();
    let _ = writeln!(
        s,
        "{} files for {}: {} {prefix}create, {} {prefix}update, {} {prefix}remove, {} unchanged; {} notes",
        plan.files.len(),
        plan.targets
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        count("create"),
        count("update"),
        count("remove"),
        sync.unchanged,
        plan.notes.len()
    );
    s
}

pub fn run(env: &Env, args: &ExportArgs) -> Output {
    let targets = match export::targets_named(&args.to) {
        Ok(t) => t,
        Err(e) => return Output::fail(EXIT_TROUBLE, format!("--to: {e}")),
    };
    if args.watch {
        return watch(env, args, &targets);
    }
    once(env, args, &targets)
}

/// How long the sources must be quiet before a re-export.
#[cfg(not(target_family = "wasm"))]
const DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(100);
/// How much of a changed file the watch reads to tell a generated file by
/// its header (which sits in the first `MARKER_LINES` lines).
#[cfg(not(target_family = "wasm"))]
const HEADER_BYTES: u64 = 16 * 1024;

/// `--watch`: exports, then again after each burst of changes in the
/// sources' directories (debounced), printing each run as it goes, until
/// interrupted. `WAVE_RULES_WATCH_SECONDS` bounds the watch (for tests).
#[cfg(not(target_family = "wasm"))]
fn watch(env: &Env, args: &ExportArgs, targets: &[Target]) -> Output {
    use std::io::Write;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};
    let print = |o: &Output| {
        let _ = std::io::stdout().write_all(o.stdout.as_bytes());
        let _ = std::io::stderr().write_all(o.stderr.as_bytes());
        let _ = std::io::stdout().flush();
    };
    let limit = std::env::var("WAVE_RULES_WATCH_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(|s| Instant::now() + Duration::from_secs(s));
    let (tx, rx) = mpsc::channel();
    let mut watcher = match notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        if let Ok(ev) = ev {
            let _ = tx.send(ev);
        }
    }) {
        Ok(w) => w,
        Err(e) => return Output::fail(EXIT_TROUBLE, format!("--watch: cannot watch files: {e}")),
    };
    let watched = match watch_sources(env, &mut watcher) {
        Ok(w) => w,
        Err(out) => return out,
    };
    let first = once(env, args, targets);
    print(&first);
    let _ = writeln!(
        std::io::stderr(),
        "wave-rules: watching {} source directories; Ctrl-C to stop",
        watched
    );
    let mut last_code = first.code;
    loop {
        let wait = match limit {
            Some(l) => match l.checked_duration_since(Instant::now()) {
                Some(d) => d,
                None => break,
            },
            None => Duration::from_secs(3600),
        };
        let Ok(ev) = rx.recv_timeout(wait) else {
            if limit.is_some() {
                break;
            }
            continue;
        };
        let mut changed = is_source_change(&ev);
        // Debounce: until the sources are quiet for DEBOUNCE.
        while let Ok(ev) = rx.recv_timeout(DEBOUNCE) {
            changed |= is_source_change(&ev);
        }
        if changed {
            let o = once(env, args, targets);
            print(&o);
            last_code = o.code;
        }
    }
    Output {
        code: last_code,
        ..Output::default()
    }
}

/// Watches each project source's directory, or its nearest existing
/// parent (a `.wave/rules` created later is seen through it); how many.
#[cfg(not(target_family = "wasm"))]
fn watch_sources(env: &Env, watcher: &mut impl notify::Watcher) -> Result<usize, Output> {
    use notify::RecursiveMode;
    let mut watched = Vec::new();
    for s in &env.config.sources {
        if s.scope != memory_rules::Scope::Project {
            continue;
        }
        let mut dir = s.dir.clone();
        while !dir.exists() {
            match dir.parent() {
                Some(p) => dir = p.to_path_buf(),
                None => break,
            }
        }
        if watched.contains(&dir) {
            continue;
        }
        let mode = if dir == env.config.workdir {
            RecursiveMode::NonRecursive
        } else {
            RecursiveMode::Recursive
        };
        if let Err(e) = watcher.watch(&dir, mode) {
            return Err(Output::fail(
                EXIT_TROUBLE,
                format!("--watch: cannot watch {}: {e}", dir.display()),
            ));
        }
        watched.push(dir);
    }
    Ok(watched.len())
}

/// Whether an event is a change of the sources: reads (ours included:
/// loading opens every rule) are not, nor our own writes (generated files,
/// export's temporary files).
#[cfg(not(target_family = "wasm"))]
fn is_source_change(ev: &notify::Event) -> bool {
    !matches!(ev.kind, notify::EventKind::Access(_))
        && ev.paths.iter().any(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(".wave-export.tmp"))
                && !memory_rules::base::fs::read_prefix(
                    p,
                    HEADER_BYTES,
                    memory_rules::base::fs::Links::Follow,
                )
                .is_ok_and(|t| export::is_generated(&t))
        })
}

#[cfg(target_family = "wasm")]
fn watch(_env: &Env, _args: &ExportArgs, _targets: &[Target]) -> Output {
    Output::fail(
        EXIT_TROUBLE,
        "--watch is not available in the WebAssembly build; run export again instead",
    )
}

/// `wave-rules import --from NAME[,...]`: each project rule of the named
/// sources as a `.wave/rules` file with the same meaning; an existing file
/// is never replaced. Rules of several tools that hold the same text (the
/// discovery folds identical ones) or nearly the same (equal but for spacing
/// and case) with the same activation are imported once, and said so; a new
/// file that would override a `.claude/rules` rule of the same id (or a
/// user rule) says that too.
pub fn import(env: &Env, args: &ImportArgs) -> Output {
    let formats = match memory_rules::formats_named(&args.from) {
        Ok(f) => f,
        Err(e) => return Output::fail(EXIT_TROUBLE, format!("--from: {e}")),
    };
    let home = env.home_dir();
    let config = memory_rules::sources::Config::named(&env.config.workdir, &home, &formats)
        .with_allow_dirs(env.config.allow_dirs.clone());
    let loaded = memory_rules::load(&config);
    let workdir = &env.config.workdir;
    let mut out = Output::default();
    // What the discovery folded (the same file, the same text).
    for d in loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == memory_rules::Code::Duplicate)
    {
        out.stdout.push_str(&display::line(&format!(
            "folded: {}: {}",
            display::show(std::path::Path::new(&d.file_path), workdir),
            d.message
        )));
    }
    let mut names = ImportNames::default();
    let (mut written, mut refused, mut folded) = (0, 0, 0);
    for rule in loaded.rules.rules() {
        if rule.scope != memory_rules::Scope::Project
            || export::is_generated(&rule.content)
            || rule.format == memory_rules::Format::Wave
        {
            continue;
        }
        let source = export::source_name(rule, workdir);
        let key = loose_text(&rule.content);
        let activation = activation_of(&rule.metadata);
        if let Some((stem, first)) = names.same_as(&key, &activation) {
            folded += 1;
            out.stdout.push_str(&display::line(&format!(
                "folded: {source} into .wave/rules/{stem}.md: the same rule as {first} but for spacing or case"
            )));
            continue;
        }
        let stem = names.name(rule, key, activation, &source, &mut out.stdout);
        match write_imported(env, args.dry_run, rule, &source, &stem, &mut out) {
            Ok(true) => written += 1,
            Ok(false) => refused += 1,
            Err(o) => return o,
        }
    }
    let _ = writeln!(
        out.stdout,
        "{written} {} {}imported into .wave/rules{}{}",
        if written == 1 { "rule" } else { "rules" },
        if args.dry_run { "would be " } else { "" },
        if folded > 0 {
            format!("; {folded} folded into another")
        } else {
            String::new()
        },
        if refused > 0 {
            format!("; {refused} not imported over existing files")
        } else {
            String::new()
        }
    );
    if refused > 0 {
        out.code = EXIT_FAILURE;
    }
    out
}

/// The `.wave/rules` names an import has given, and the rules behind them.
#[derive(Default)]
struct ImportNames {
    /// Each stem taken (lowercase), with the source that took it.
    used: std::collections::BTreeMap<String, String>,
    /// Each rule imported: its loose text, its activation, its stem and
    /// its source.
    near: Vec<(String, String, String, String)>,
}

impl ImportNames {
    /// The stem and source of a rule already imported with this loose text
    /// and activation: near-identical rules are imported once.
    fn same_as(&self, key: &str, activation: &str) -> Option<(&str, &str)> {
        self.near
            .iter()
            .find(|(k, a, _, _)| k == key && a == activation)
            .map(|(_, _, stem, first)| (stem.as_str(), first.as_str()))
    }

    /// A free stem for `rule` (its id's, else numbered), saying in `stdout`
    /// why when it is not the id's own.
    fn name(
        &mut self,
        rule: &memory_rules::Rule,
        key: String,
        activation: String,
        source: &str,
        stdout: &mut String,
    ) -> String {
        let base = export::stem_of(&rule.id);
        let mut stem = base.clone();
        let mut n = 1;
        while self.used.contains_key(&stem.to_lowercase()) {
            n += 1;
            stem = format!("{base}-{n}");
        }
        if let Some(taken) = self.used.get(&base.to_lowercase()) {
            let like = self.near.iter().find(|(k, _, _, _)| *k == key);
            let why = match like {
                Some((_, _, _, first)) => format!(
                    "near-identical to {first} (the same text, another activation), so both are kept"
                ),
                None => format!("{base}.md is taken by {taken}"),
            };
            stdout.push_str(&display::line(&format!("named {stem}.md: {why}")));
        }
        self.used.insert(stem.to_lowercase(), source.to_string());
        self.near
            .push((key, activation, stem.clone(), source.to_string()));
        stem
    }
}

/// Writes one imported rule as `.wave/rules/<stem>.md` (unless `dry_run`),
/// with what it loses, whom it overrides and what was done in `out`:
/// `Ok(false)` when a file is already there (never written over).
fn write_imported(
    env: &Env,
    dry_run: bool,
    rule: &memory_rules::Rule,
    source: &str,
    stem: &str,
    out: &mut Output,
) -> Result<bool, Output> {
    let workdir = &env.config.workdir;
    let home = env.home_dir();
    let dir = workdir.join(".wave/rules");
    let path = dir.join(format!("{stem}.md"));
    let (front, lossy) = memory_rules::delivery::export::write_wave(rule);
    let mut text = export::frontmatter(&front);
    text.push_str(rule.content.trim());
    text.push('\n');
    for l in &lossy {
        out.stdout
            .push_str(&display::line(&format!("{source} (lossy): {l}")));
    }
    if let Some((importer, _)) = rule.id.split_once('@') {
        out.stdout.push_str(&display::line(&format!(
            "{source}: imported by {} (@{}), kept as a rule of its own",
            importer
                .trim_start_matches("claude:")
                .trim_start_matches("gemini:"),
            rule.id.rsplit_once('@').map_or("", |(_, p)| p)
        )));
    }
    if path.exists() {
        out.stderr.push_str(&display::line(&format!(
            "wave-rules: {} exists; {source} is not imported over it",
            display::show(&path, workdir)
        )));
        return Ok(false);
    }
    // The new file's id is `<stem>.md`, shared with `.claude/rules`
    // (project and user) and the user's `.wave/rules`: it overrides them.
    let id = format!("{stem}.md");
    for shadowed in [
        workdir.join(".claude/rules").join(&id),
        home.join(".claude/rules").join(&id),
        home.join(".wave/rules").join(&id),
    ] {
        if shadowed.is_file() {
            out.stdout.push_str(&display::line(&format!(
                "{}: overrides {} (the same id, {id}; the .wave/rules rule wins)",
                display::show(&path, workdir),
                display::show(&shadowed, workdir)
            )));
        }
    }
    if !dry_run {
        let write = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &text));
        if let Err(e) = write {
            return Err(Output::fail(
                EXIT_TROUBLE,
                format!("cannot write {}: {e}", path.display()),
            ));
        }
    }
    out.stdout.push_str(&display::line(&format!(
        "{}{} <- {source}",
        if dry_run { "would create " } else { "" },
        display::show(&path, workdir)
    )));
    Ok(true)
}

/// A rule's text with spacing and case evened out: two copies of one rule
/// that an editor or a formatter touched differently compare equal.
fn loose_text(text: &str) -> String {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| c == '*' || c == '_')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What decides when a rule fires, as one comparable text.
fn activation_of(m: &memory_rules::Metadata) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?}",
        m.activation, m.paths, m.topics, m.regex, m.skills
    )
}
