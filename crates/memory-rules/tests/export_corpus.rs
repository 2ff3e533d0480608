//! Fidelity on the corpus: every file of `../shared/corpus/rules/<tool>/`
//! is read with its tool's reader, imported (written as a `.wave/rules`
//! file and read back), exported back to its own tool and read with that
//! tool's reader; its meaning (which paths of the real file lists in
//! `../shared/corpus/trees/` make it active or offer it, and which
//! prompts naming each of its topics) must be the original's, or the
//! export must say what was lost. Then every file to every other tool.
//! Prints both tables (run with `--nocapture`). Skips with one line when
//! the corpus is absent (set `WAVE_CORPUS` to point at it).

mod common;
use common::corpus;
use memory_rules::delivery::export::{self, Plan, Target};
use memory_rules::internals::formats;
use memory_rules::internals::rules::parser::Input;
use memory_rules::internals::sources::nested;
use memory_rules::Format;
use memory_rules::{RuleSet, Scope};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The file's path in its repository: `owner__repo__a__b.md` -> `a/b.md`.
fn repo_path(file: &Path) -> String {
    let name = file.file_name().unwrap().to_string_lossy();
    let mut parts = name.splitn(3, "__");
    parts.next();
    parts.next();
    parts.next().unwrap_or("").replace("__", "/")
}

/// The scoped directory a discovery would give the file.
fn directory(format: Format, rel: &str) -> Option<String> {
    match format {
        Format::Cursor => nested::cursor_directory_of(rel).map(str::to_string),
        _ => None,
    }
}

/// A context: one file, or one prompt.
type Ctx = (Option<String>, Option<String>);

/// Per rule name: the contexts (by index) where it is active / offered.
type Meaning = BTreeMap<String, BTreeSet<(usize, bool)>>;

fn meaning(set: &RuleSet, names: &[Vec<String>], contexts: &[Ctx]) -> Meaning {
    let mut out = Meaning::new();
    for n in names.iter().flatten() {
        out.entry(n.clone()).or_default();
    }
    for (i, (file, prompt)) in contexts.iter().enumerate() {
        let files: Vec<&str> = file.iter().map(String::as_str).collect();
        for (id, on) in export::meaning(set, names, &files, prompt.as_deref()) {
            out.entry(id).or_default().insert((i, on));
        }
    }
    out
}

/// Cursor's own reading of a `.mdc` frontmatter, written here independently
/// of our reader (formats/cursor.rs) from the public tests of Cursor it
/// cites: the `globs:` line taken as written (`key: rest-of-line`, quotes
/// and brackets kept), split at every comma; a YAML list under `globs:`
/// gives nothing. `None`: no globs.
fn cursor_model_globs(text: &str) -> Option<Vec<String>> {
    let mut lines = text.lines();
    if lines.next()?.trim() != "---" {
        return None;
    }
    for line in lines {
        if line.trim() == "---" {
            break;
        }
        if let Some(rest) = line.strip_prefix("globs:") {
            let parts: Vec<String> = rest
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            return (!parts.is_empty()).then_some(parts);
        }
    }
    None
}

/// Every Cursor file of `plan` read by the model above and by our reader:
/// the globs must be the same (so an export in a form Cursor reads
/// differently, quoted or as a list, is caught even if our reader were
/// wrong too: the meaning comparison then fails). Returns the files checked.
fn check_cursor_model(plan: &Plan, workdir: &Path, bad: &mut Vec<String>) -> usize {
    let mut n = 0;
    for f in plan.files.iter().filter(|f| f.target == Target::Cursor) {
        n += 1;
        let id = Format::Cursor.id(&f.rel);
        let path = workdir.join(&f.rel);
        let parsed = formats::parse(
            Format::Cursor,
            &Input {
                scope: Scope::Project,
                id: &id,
                path: &path,
                text: &f.text,
                directory: None,
            },
        );
        let Some(rule) = parsed.rules.first() else {
            bad.push(format!("{}: not read back", f.rel));
            continue;
        };
        let ours = (rule.rule.metadata.activation == memory_rules::Activation::Auto)
            .then(|| rule.rule.metadata.paths.clone())
            .flatten();
        let model = cursor_model_globs(&f.text);
        let always = f.text.contains("\nalwaysApply: true\n");
        if !always && ours != model {
            bad.push(format!(
                "{}: Cursor reads globs {model:?}, our reader {ours:?}\n{}",
                f.rel, f.text
            ));
        }
        if let Some(m) = &model {
            if m.iter().any(|p| {
                (p.starts_with(['"', '\'']) || p.starts_with('['))
                    && !rule.rule.metadata.paths.iter().flatten().any(|o| o == p)
            }) {
                bad.push(format!("{}: a quoted or list form was written", f.rel));
            }
        }
    }
    n
}

struct Tool {
    dir: &'static str,
    format: Format,
    target: Option<Target>,
}

#[test]
fn round_trip_and_cross_tool_fidelity_on_the_corpus() {
    // Absent: one line past the harness's capture (`common::corpus`), or a
    // failure with WAVE_CORPUS_REQUIRED=1 (CI).
    let Some(corpus) = corpus() else {
        return;
    };
    let tools = [
        Tool {
            dir: "cursor",
            format: Format::Cursor,
            target: Some(Target::Cursor),
        },
        Tool {
            dir: "copilot",
            format: Format::Copilot,
            target: Some(Target::Copilot),
        },
        Tool {
            dir: "windsurf",
            format: Format::Windsurf,
            target: Some(Target::Windsurf),
        },
        Tool {
            dir: "kiro",
            format: Format::Kiro,
            target: Some(Target::Kiro),
        },
        Tool {
            dir: "cline",
            format: Format::Cline,
            target: Some(Target::Cline),
        },
        Tool {
            dir: "continue",
            format: Format::Continue,
            target: Some(Target::Continue),
        },
        Tool {
            dir: "claude",
            format: Format::Claude,
            target: Some(Target::Claude),
        },
        Tool {
            dir: "wave",
            format: Format::Wave,
            target: None,
        },
    ];
    // Every path of the real trees (deduplicated), then a prompt per topic.
    let mut paths = BTreeSet::new();
    for e in std::fs::read_dir(corpus.join("trees")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "txt") {
            for l in std::fs::read_to_string(&p).unwrap().lines() {
                let l = l.trim();
                if !l.is_empty() {
                    paths.insert(l.to_string());
                }
            }
        }
    }
    // Every path in a release build (or with WAVE_FIDELITY_ALL=1); every
    // 16th in a debug build, which is ten times slower per match.
    let every = if cfg!(debug_assertions) && std::env::var_os("WAVE_FIDELITY_ALL").is_none() {
        16
    } else {
        1
    };
    let paths: Vec<String> = paths.into_iter().step_by(every).collect();
    let workdir = Path::new("/corpus-project");
    let mut round_rows = String::new();
    let mut cross: BTreeMap<(&str, Target), (usize, usize)> = BTreeMap::new();
    let mut unexplained = Vec::new();
    let became_always = std::cell::RefCell::new(Vec::<String>::new());
    let mut cross_reasons: BTreeMap<(Target, String), usize> = BTreeMap::new();
    let (mut all_files, mut all_same) = (0, 0);
    let (mut cursor_checked, mut cursor_bad) = (0, Vec::new());
    for tool in &tools {
        let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("rules").join(tool.dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        // Read every file as its tool, then import it (Wave file, read back).
        let mut originals = Vec::new();
        let mut imported = Vec::new();
        let mut import_notes: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for path in &files {
            let text = std::fs::read_to_string(path).unwrap();
            let rel = repo_path(path);
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let id = tool.format.id(&name);
            let dir = directory(tool.format, &rel);
            let file = workdir.join(&rel);
            let parsed = formats::parse(
                tool.format,
                &Input {
                    scope: Scope::Project,
                    id: &id,
                    path: &file,
                    text: &text,
                    directory: dir.as_deref(),
                },
            );
            for r in parsed.rules {
                let (front, lossy) = formats::wave::write_wave(&r.rule);
                let mut wave = String::new();
                if !front.is_empty() {
                    wave = format!("---\n{}\n---\n", front.join("\n"));
                }
                wave.push_str(&r.rule.content);
                let wave_path = workdir.join(".wave/rules").join(&name);
                let back = formats::parse(
                    Format::Wave,
                    &Input {
                        scope: Scope::Project,
                        id: &r.rule.id,
                        path: &wave_path,
                        text: &wave,
                        directory: None,
                    },
                );
                assert!(
                    back.diagnostics
                        .iter()
                        .all(|d| d.severity > memory_rules::Severity::Error),
                    "{}: {:?}\n{wave}",
                    r.rule.id,
                    back.diagnostics
                );
                let mut w = back
                    .rules
                    .into_iter()
                    .next()
                    .expect("imported rule loads")
                    .rule;
                w.file_path = file.clone();
                import_notes.insert(r.rule.id.clone(), lossy);
                imported.push(w);
                originals.push(r);
            }
        }
        let mut contexts: Vec<Ctx> = paths.iter().map(|p| (Some(p.clone()), None)).collect();
        for r in &originals {
            for t in r.rule.metadata.topics.iter().flatten() {
                contexts.push((None, Some(format!("a question about {t} here"))));
            }
        }
        let names: Vec<Vec<String>> = originals.iter().map(|r| vec![r.rule.id.clone()]).collect();
        let ids: Vec<String> = originals.iter().map(|r| r.rule.id.clone()).collect();
        let orig_set = RuleSet::build(originals, memory_rules::Workdir::new(workdir));
        let orig_names: Vec<Vec<String>> = orig_set
            .rules()
            .iter()
            .map(|r| vec![r.id.clone()])
            .collect();
        let _ = names;
        let original = meaning(&orig_set, &orig_names, &contexts);
        let compare = |plan: &Plan,
                       target: Target,
                       import_lossy: bool|
         -> BTreeMap<String, Result<(), Vec<String>>> {
            let (set, sources, _) = export::read_back(plan, target, workdir);
            let back = meaning(&set, &sources, &contexts);
            let mut out = BTreeMap::new();
            for id in &ids {
                let now = back.get(id).cloned().unwrap_or_default();
                let mut reasons: Vec<String> = plan
                    .notes
                    .iter()
                    .filter(|n| &n.rule == id && n.target == target)
                    .map(|n| n.message.clone())
                    .collect();
                if import_lossy {
                    reasons.extend(import_notes[id].iter().cloned());
                }
                // Never always-on where it was not.
                let everywhere =
                    |m: &BTreeSet<(usize, bool)>| (0..paths.len()).all(|i| m.contains(&(i, true)));
                if everywhere(&now) && !everywhere(&original[id]) {
                    became_always.borrow_mut().push(format!("{target}: {id}"));
                }
                if original[id] == now {
                    out.insert(id.clone(), Ok(()));
                } else {
                    if reasons.is_empty() {
                        reasons.push("UNEXPLAINED".to_string());
                    }
                    // Never always-on where it was not: a conditional rule
                    // active for every path is a defect.
                    out.insert(id.clone(), Err(reasons));
                }
            }
            out
        };
        // Round trip: import, then export to the tool itself.
        if let Some(target) = tool.target {
            let plan = export::plan(&imported, workdir, &[target]).unwrap();
            cursor_checked += check_cursor_model(&plan, workdir, &mut cursor_bad);
            let result = compare(&plan, target, true);
            let same = result.values().filter(|r| r.is_ok()).count();
            let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
            for (id, r) in &result {
                if let Err(why) = r {
                    for w in why {
                        if w == "UNEXPLAINED" {
                            unexplained.push(format!("{target} round trip: {id}"));
                        }
                        *reasons.entry(short(w)).or_default() += 1;
                    }
                }
            }
            all_files += result.len();
            all_same += same;
            round_rows.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                tool.dir,
                files.len(),
                files.len().saturating_sub(result.len()),
                same,
                result.len() - same,
                reasons
                    .iter()
                    .map(|(w, n)| format!("{w} ({n})"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        // Cross-tool: every other target.
        let others: Vec<Target> = Target::ALL
            .iter()
            .copied()
            .filter(|t| Some(*t) != tool.target)
            .collect();
        let plan = export::plan(&imported, workdir, &others).unwrap();
        cursor_checked += check_cursor_model(&plan, workdir, &mut cursor_bad);
        for &t in &others {
            let result = compare(&plan, t, true);
            let same = result.values().filter(|r| r.is_ok()).count();
            for (id, r) in &result {
                if let Err(why) = r {
                    if why.iter().any(|w| w == "UNEXPLAINED") {
                        unexplained.push(format!("{} -> {t}: {id}", tool.dir));
                    }
                    for w in why {
                        *cross_reasons.entry((t, short(w))).or_default() += 1;
                    }
                }
            }
            cross.insert((tool.dir, t), (same, result.len()));
        }
    }
    let mut table = String::from(
        "| tool | files | no rule (excluded by the tool) | identical | lossy | reasons (rules) |\n|---|---|---|---|---|---|\n",
    );
    table.push_str(&round_rows);
    let mut x = String::from("| from \\ to |");
    for t in Target::ALL {
        x.push_str(&format!(" {t} |"));
    }
    x.push_str("\n|---|");
    for _ in Target::ALL {
        x.push_str("---|");
    }
    x.push('\n');
    for tool in &tools {
        x.push_str(&format!("| {} |", tool.dir));
        for t in Target::ALL {
            match cross.get(&(tool.dir, *t)) {
                Some((same, n)) => x.push_str(&format!(" {same}/{n} |")),
                None => x.push_str(" - |"),
            }
        }
        x.push('\n');
    }
    x.push_str("\nreasons (rules, all source tools):\n");
    for ((t, w), n) in &cross_reasons {
        x.push_str(&format!("- {t}: {w} ({n})\n"));
    }
    eprintln!(
        "round trip ({all_same}/{all_files} identical over {} paths):\n{table}\ncross-tool (identical/rules):\n{x}",
        paths.len()
    );
    eprintln!(
        "Cursor files read by the quote-keeping Cursor model: {cursor_checked}, differing: {}",
        cursor_bad.len()
    );
    assert!(all_files > 300, "{all_files} rules");
    assert!(
        cursor_checked > 300,
        "{cursor_checked} Cursor files checked"
    );
    assert!(
        cursor_bad.is_empty(),
        "Cursor would read these exports otherwise: {cursor_bad:#?}"
    );
    assert!(
        became_always.borrow().is_empty(),
        "made always-on: {:#?}",
        became_always.borrow()
    );
    assert!(
        unexplained.is_empty(),
        "meaning changed with no note: {unexplained:#?}"
    );
}

/// A reason without its rule-specific part (patterns, topics).
fn short(w: &str) -> String {
    let cut = [
        ": the rule also fires for",
        " (",
        ": the rule fires on its paths only",
        "; written with \"",
    ]
    .iter()
    .filter_map(|c| w.find(c))
    .min()
    .unwrap_or(w.len());
    let s = &w[..cut];
    if s.starts_with("Copilot matches") {
        "Copilot matches a pattern in any directory".to_string()
    } else {
        s.to_string()
    }
}
