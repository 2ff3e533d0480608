//! Builds the [`Report`]: the rules loaded as every command loads them, the
//! tree walked, each file matched (the core's `RuleSet::active`, as a hook
//! would for that one file), the problems found, what each export target
//! keeps (the core's `formats::export` plan read back through our readers,
//! the same code as `wave-rules export`) and the delivery log's sessions
//! ([`super::sessions`]).

use super::model::*;
use super::walk;
use crate::base::display;
use crate::base::env::Env;
use memory_rules::base::limits::{MAX_CHECK_FILES_LISTED, MAX_REPORT_MATCH_THREADS};
use memory_rules::delivery::export::{self, Target};
use memory_rules::delivery::tokens;
use memory_rules::sources::self_load;
use memory_rules::{Rule, RuleSet};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What the report is asked for.
pub struct Options {
    /// The last N sessions for "never fired".
    pub window: usize,
    /// `--check`.
    pub budget: Option<u64>,
}

pub fn build(env: &Env, options: &Options) -> Report {
    // The encoder builds while the tree is walked and the rules load.
    tokens::warm();
    let workdir = env.config.workdir.clone();
    let (loaded, walked) = load_and_walk(env, &workdir);
    let set: &RuleSet = &loaded.rules;
    let rules = set.rules();
    let files = &walked.files;

    let mut rows: Vec<RuleRow> = rules.iter().map(|r| row(r, &workdir)).collect();
    let effects = crate::eval::results::effects(&workdir);
    for r in &mut rows {
        r.effect = effects.get(&r.id).cloned();
    }
    let always: Vec<usize> = (0..rules.len())
        .filter(|&i| rules[i].metadata.is_unconditional())
        .collect();
    let always_tokens: u64 = always.iter().map(|&i| rows[i].tokens).sum();
    let grouped = group_files(set, files, &mut rows, always_tokens);
    let total = files.len() as u64;
    for (i, r) in rows.iter_mut().enumerate() {
        r.reach = if rules[i].metadata.is_unconditional() {
            total
        } else {
            r.path_files
        };
    }
    let tree = tree(
        files,
        &grouped.file_set,
        &grouped.sets,
        &grouped.set_tokens,
        &rows,
        always_tokens,
    );
    let (max_file_tokens, max_file) = grouped
        .file_set
        .iter()
        .zip(files)
        .map(|(&s, f)| (grouped.set_tokens[s as usize], f))
        .fold(
            (0, ""),
            |best, (t, f)| if t > best.0 { (t, f) } else { best },
        );

    let mut report = Report {
        version: REPORT_VERSION,
        root: workdir.to_string_lossy().into_owned(),
        tokenizer: Tokenizer {
            encoding: tokens::ENCODING,
            models: tokens::MODEL_FAMILY,
            library: tokens::LIBRARY,
        },
        totals: Totals {
            files: total,
            folders: count_folders(&tree),
            rules: rules.len() as u64,
            always_rules: always.len() as u64,
            always_tokens,
            governed_files: total - grouped.set_files[0],
            max_file_tokens: if files.is_empty() {
                always_tokens
            } else {
                max_file_tokens
            },
            max_file: max_file.to_string(),
            problems: 0,
        },
        rules: Vec::new(),
        sets: grouped.sets,
        set_tokens: grouped.set_tokens,
        tree,
        problems: Vec::new(),
        agents: Vec::new(),
        self_load: Vec::new(),
        sessions: Sessions::default(),
        check: None,
        truncated: walked.truncated.clone(),
    };
    let seen = self_load::files_seen(rules, &loaded.diagnostics);
    report.self_load = self_load_rows(&seen, &workdir);
    let diagnostics = with_cuts(&loaded.diagnostics, &seen);
    report.problems = super::problems::find(set, &diagnostics, &rows, total, &workdir);
    for (p, problem) in report.problems.iter().enumerate() {
        for &r in &problem.rules {
            rows[r as usize].problems.push(p as u32);
        }
    }
    report.totals.problems = report.problems.len() as u64;
    report.agents = agents(set, &rows, files, &workdir);
    report.rules = rows;
    report.sessions = super::sessions::sessions(env, &report.rules, options.window);
    if let Some(budget) = options.budget {
        report.check = Some(check(&report, &grouped.file_set, files, budget));
    }
    report
}

/// The load's diagnostics and, as warnings, where an agent would cut a
/// file or a total (the core's self_load caps).
fn with_cuts(
    diagnostics: &[memory_rules::Diagnostic],
    seen: &[self_load::RuleFileSeen],
) -> Vec<memory_rules::Diagnostic> {
    let mut all = diagnostics.to_vec();
    all.extend(self_load::cuts(seen).iter().map(|c| c.diagnostic()));
    all
}

/// Per agent: what it loads by itself, what we add, what it gets twice.
fn self_load_rows(seen: &[self_load::RuleFileSeen], workdir: &Path) -> Vec<SelfLoadRow> {
    let show = |i: &usize| crate::base::display::show(&seen[*i].path, workdir);
    self_load::agent_loads(seen, workdir)
        .into_iter()
        .map(|a| SelfLoadRow {
            agent: a.agent,
            version: self_load::AgentModel::named(a.agent).map_or("", |m| m.version),
            itself: a.itself.iter().map(show).collect(),
            ours: a.ours.iter().map(show).collect(),
            twice: a
                .twice
                .iter()
                .map(|g| g.iter().map(show).collect())
                .collect(),
        })
        .collect()
}

/// The rules loaded and the tree walked, at once where there are threads
/// to spare.
fn load_and_walk(env: &Env, workdir: &Path) -> (memory_rules::Loaded, walk::Walked) {
    if cfg!(target_family = "wasm") {
        return (env.load(), walk::walk(workdir));
    }
    std::thread::scope(|s| {
        let walking = s.spawn(|| walk::walk(workdir));
        let loaded = env.load();
        let walked = walking.join().unwrap_or_else(|_| walk::Walked {
            files: Vec::new(),
            truncated: Some("the walk failed".into()),
        });
        (loaded, walked)
    })
}

/// The files grouped by the set of path rules that apply to each, so each
/// set is counted once.
struct FileGroups {
    /// Every set of path rules (the empty set first).
    sets: Vec<Vec<u32>>,
    /// Each file's set, by index.
    file_set: Vec<u32>,
    /// Each set's tokens, the always-on rules included.
    set_tokens: Vec<u64>,
    /// How many files each set applies to.
    set_files: Vec<u64>,
}

/// Each file's set of path rules, matched; the files each rule governs
/// counted into its row (`path_files`).
fn group_files(
    set: &RuleSet,
    files: &[String],
    rows: &mut [RuleRow],
    always_tokens: u64,
) -> FileGroups {
    let rules = set.rules();
    let file_sets = match_files(set, files, |i| !rules[i].metadata.is_unconditional());
    let mut sets: Vec<Vec<u32>> = vec![Vec::new()];
    let mut set_index: HashMap<Vec<u32>, u32> = HashMap::from([(Vec::new(), 0)]);
    let file_set: Vec<u32> = file_sets
        .into_iter()
        .map(|s| {
            *set_index.entry(s).or_insert_with_key(|k| {
                sets.push(k.clone());
                (sets.len() - 1) as u32
            })
        })
        .collect();
    let set_tokens: Vec<u64> = sets
        .iter()
        .map(|s| always_tokens + s.iter().map(|&r| rows[r as usize].tokens).sum::<u64>())
        .collect();
    let mut set_files = vec![0u64; sets.len()];
    for &s in &file_set {
        set_files[s as usize] += 1;
    }
    for (s, n) in sets.iter().zip(&set_files) {
        for &r in s {
            rows[r as usize].path_files += n;
        }
    }
    FileGroups {
        sets,
        file_set,
        set_tokens,
        set_files,
    }
}

fn row(r: &Rule, workdir: &Path) -> RuleRow {
    let entry = memory_rules::delivery::render::entry(r);
    RuleRow {
        id: r.id.clone(),
        scope: r.scope.as_str(),
        format: r.format.as_str(),
        pack: r.origin.pack.clone(),
        locked: r.origin.locked,
        file: display::show(&r.file_path, workdir),
        kind: r.metadata.activation_kind(),
        priority: r.priority(),
        tokens: tokens::rule_tokens(r) as u64,
        bytes: entry.len() as u64 + 1,
        version: memory_rules::delivery::rule_version(r),
        paths: r.metadata.paths.clone().unwrap_or_default(),
        topics: r.metadata.topics.clone().unwrap_or_default(),
        description: r.metadata.description.clone(),
        ..RuleRow::default()
    }
}

/// For each file, the rules active for it alone that `keep` keeps
/// (ascending), matched on up to [`MAX_REPORT_MATCH_THREADS`] threads.
fn match_files(
    set: &RuleSet,
    files: &[String],
    keep: impl Fn(usize) -> bool + Sync,
) -> Vec<Vec<u32>> {
    let threads = memory_rules::base::fs::worker_threads(MAX_REPORT_MATCH_THREADS);
    let one = |f: &String| -> Vec<u32> {
        set.active(std::slice::from_ref(f), None)
            .into_iter()
            .filter(|&i| keep(i))
            .map(|i| i as u32)
            .collect()
    };
    if threads < 2 || files.len() < 2048 {
        return files.iter().map(one).collect();
    }
    let chunk = files.len().div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = files
            .chunks(chunk)
            .map(|c| s.spawn(|| c.iter().map(one).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// A folder being built: its children by name, its files.
#[derive(Default)]
struct Building {
    name: String,
    folders: Vec<Building>,
    entries: Vec<(String, u32)>,
}

/// The tree of `files` (sorted), with every folder's totals.
fn tree(
    files: &[String],
    file_set: &[u32],
    sets: &[Vec<u32>],
    set_tokens: &[u64],
    rows: &[RuleRow],
    always_tokens: u64,
) -> Folder {
    let mut root = Building::default();
    // The open folders: a path's folders are contiguous in sorted order.
    let mut stack: Vec<Building> = Vec::new();
    let mut open: Vec<&str> = Vec::new();
    fn close(stack: &mut Vec<Building>, root: &mut Building) {
        let done = stack.pop().expect("an open folder");
        match stack.last_mut() {
            Some(parent) => parent.folders.push(done),
            None => root.folders.push(done),
        }
    }
    for (f, &s) in files.iter().zip(file_set) {
        let mut parts: Vec<&str> = f.split('/').collect();
        let name = parts.pop().unwrap_or("");
        let same = open.iter().zip(&parts).take_while(|(a, b)| a == b).count();
        while open.len() > same {
            open.pop();
            close(&mut stack, &mut root);
        }
        for p in &parts[same..] {
            open.push(p);
            stack.push(Building {
                name: p.to_string(),
                ..Building::default()
            });
        }
        let into = match stack.last_mut() {
            Some(b) => b,
            None => &mut root,
        };
        into.entries.push((name.to_string(), s));
    }
    while !stack.is_empty() {
        close(&mut stack, &mut root);
    }
    finish(root, sets, set_tokens, rows, always_tokens)
}

/// A built folder with its totals, children first.
fn finish(
    b: Building,
    sets: &[Vec<u32>],
    set_tokens: &[u64],
    rows: &[RuleRow],
    always_tokens: u64,
) -> Folder {
    let mut folders: Vec<Folder> = b
        .folders
        .into_iter()
        .map(|c| finish(c, sets, set_tokens, rows, always_tokens))
        .collect();
    folders.sort_by(|a, b| a.name.cmp(&b.name));
    let mut entries = b.entries;
    entries.sort();
    let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
    let mut files = 0;
    let mut governed = 0;
    let mut max = 0;
    for c in &folders {
        files += c.files;
        governed += c.governed;
        max = max.max(c.max);
        for &[r, n] in &c.rules {
            *counts.entry(r).or_default() += n;
        }
    }
    for (_, s) in &entries {
        files += 1;
        let set = &sets[*s as usize];
        if !set.is_empty() {
            governed += 1;
        }
        max = max.max(set_tokens[*s as usize]);
        for &r in set {
            *counts.entry(r as u64).or_default() += 1;
        }
    }
    let tokens = always_tokens + counts.keys().map(|&r| rows[r as usize].tokens).sum::<u64>();
    Folder {
        name: b.name,
        files,
        governed,
        max,
        tokens,
        rules: counts.into_iter().map(|(r, n)| [r, n]).collect(),
        folders,
        entries,
    }
}

fn count_folders(f: &Folder) -> u64 {
    f.folders.iter().map(|c| 1 + count_folders(c)).sum()
}

/// What each export target keeps: the plan of `wave-rules export --to all`
/// and each target's files read back by our reader for that tool.
///
/// A rule's reach in a tool: every file when the tool reads it always-on;
/// its own reach when the tool keeps its paths (the writers keep a glob's
/// meaning or say what they drop, in a note); the files its positive globs
/// match when the tool has no `!` exclusions and so dropped them (one
/// match over the tree, of those globs only); none when it is offered on
/// request, mentioned or left out.
fn agents(set: &RuleSet, rows: &[RuleRow], files: &[String], workdir: &Path) -> Vec<Agent> {
    let rules = set.rules();
    let Ok(plan) = export::plan(rules, workdir, Target::ALL) else {
        return Vec::new();
    };
    let mut notes: HashMap<(Target, &str), Vec<&export::ExportNote>> = HashMap::new();
    for n in &plan.notes {
        notes
            .entry((n.target, n.rule.as_str()))
            .or_default()
            .push(n);
    }
    let mut written: HashMap<(Target, &str), &str> = HashMap::new();
    for f in &plan.files {
        for id in &f.rules {
            written
                .entry((f.target, id.as_str()))
                .or_insert(f.rel.as_str());
        }
    }
    let exported = Exported {
        rules,
        rows,
        ignored: plan.ignored.iter().map(String::as_str).collect(),
        notes,
        written,
        unexcluded: includes_only_reach(rules, files, workdir),
        total: files.len() as u64,
    };
    Target::ALL
        .iter()
        .map(|&target| exported.agent(&plan, target, workdir))
        .collect()
}

/// The export plan of every rule, indexed for [`agents`].
struct Exported<'a> {
    rules: &'a [Rule],
    rows: &'a [RuleRow],
    /// The ids export leaves out for every target.
    ignored: std::collections::HashSet<&'a str>,
    /// What each target could not express of each rule.
    notes: HashMap<(Target, &'a str), Vec<&'a export::ExportNote>>,
    /// The file each target writes each rule into.
    written: HashMap<(Target, &'a str), &'a str>,
    /// [`includes_only_reach`].
    unexcluded: HashMap<usize, u64>,
    /// The files of the tree.
    total: u64,
}

impl Exported<'_> {
    /// One target: each rule as it keeps it, read back, and its always-on
    /// tokens.
    fn agent(&self, plan: &export::Plan, target: Target, workdir: &Path) -> Agent {
        let (back, origins, _) = export::read_back(plan, target, workdir);
        let mut by_source: HashMap<&str, Vec<usize>> = HashMap::new();
        for (b, names) in origins.iter().enumerate() {
            for n in names {
                by_source.entry(n.as_str()).or_default().push(b);
            }
        }
        let mut agent = Agent {
            target: target.as_str(),
            tool: target.tool(),
            ..Agent::default()
        };
        for (i, r) in self.rules.iter().enumerate() {
            if self.ignored.contains(r.id.as_str()) {
                agent.rules.push(None);
                continue;
            }
            let backs = by_source.get(r.id.as_str()).map_or(&[][..], Vec::as_slice);
            let entry = self.agent_rule(&mut agent, target, i, &back, backs);
            agent.rules.push(Some(entry));
        }
        // The tool's always-on text as export writes it (combined files
        // counted once, with their header line), read back.
        for (b, r) in back.rules().iter().enumerate() {
            if r.metadata.is_unconditional() && !origins[b].is_empty() {
                agent.always_tokens += tokens::rule_tokens(r) as u64;
            }
        }
        agent
    }

    /// Rule `i` in `target`: its own format, left out, or kept (exactly or
    /// in a closer form) as the rules `backs` of what export wrote read
    /// back; counted in `agent`'s totals.
    fn agent_rule(
        &self,
        agent: &mut Agent,
        target: Target,
        i: usize,
        back: &RuleSet,
        backs: &[usize],
    ) -> AgentRule {
        let (r, row) = (&self.rules[i], &self.rows[i]);
        let said = self
            .notes
            .get(&(target, r.id.as_str()))
            .cloned()
            .unwrap_or_default();
        let messages: Vec<String> = said.iter().map(|n| n.message.clone()).collect();
        if r.format == target.format() && target != Target::Gemini {
            agent.native += 1;
            if r.metadata.is_unconditional() {
                agent.always_tokens += row.tokens;
            }
            return AgentRule {
                status: "native",
                kind: row.kind.clone(),
                reach: row.reach,
                file: Some(row.file.clone()),
                notes: Vec::new(),
            };
        }
        if said.iter().any(|n| n.skipped) {
            agent.skipped += 1;
            return AgentRule {
                status: "skipped",
                kind: String::new(),
                reach: 0,
                file: None,
                notes: messages,
            };
        }
        let mut kinds: Vec<String> = backs
            .iter()
            .map(|&b| back.rules()[b].metadata.activation_kind())
            .collect();
        kinds.sort();
        kinds.dedup();
        let reach = backs
            .iter()
            .map(|&b| self.reach_back(i, &back.rules()[b].metadata))
            .max()
            .unwrap_or(0);
        let lossy = !said.is_empty();
        if lossy {
            agent.lossy += 1;
        } else {
            agent.kept += 1;
        }
        AgentRule {
            status: if lossy { "lossy" } else { "kept" },
            kind: kinds.join(", "),
            reach,
            file: self
                .written
                .get(&(target, r.id.as_str()))
                .map(|s| s.to_string()),
            notes: messages,
        }
    }

    /// The reach of rule `i` as a tool reads it back with metadata `m`.
    fn reach_back(&self, i: usize, m: &memory_rules::Metadata) -> u64 {
        if m.is_unconditional() {
            self.total
        } else if m.activation != memory_rules::Activation::Auto {
            0
        } else if let Some(paths) = &m.paths {
            let dropped = !paths.iter().any(|p| p.starts_with('!'));
            match self.unexcluded.get(&i) {
                Some(&n) if dropped => n,
                _ => self.rows[i].path_files,
            }
        } else {
            0
        }
    }
}

/// For each path rule with `!` exclusions (by index), the files its
/// positive globs alone match: its reach in a tool that has no exclusions.
/// One match over the tree, of a rule set made of those globs only.
fn includes_only_reach(rules: &[Rule], files: &[String], workdir: &Path) -> HashMap<usize, u64> {
    let mut parsed = Vec::new();
    for (i, r) in rules.iter().enumerate() {
        let Some(paths) = &r.metadata.paths else {
            continue;
        };
        let includes: Vec<&String> = paths.iter().filter(|p| !p.starts_with('!')).collect();
        if includes.len() == paths.len() || includes.is_empty() {
            continue;
        }
        let list = serde_json::to_string(&includes).unwrap_or_default();
        let text = format!("---\npaths: {list}\n---\nx\n");
        let id = format!("{i}.md");
        let outcome =
            memory_rules::parse_rule(memory_rules::Scope::Project, &id, Path::new(&id), &text);
        parsed.extend(outcome.rule);
    }
    let mut out = HashMap::new();
    if parsed.is_empty() {
        return out;
    }
    let only = RuleSet::build(parsed, memory_rules::Workdir::new(workdir));
    // The set orders its rules its own way; each is named by its source's index.
    let owner_of: Vec<Option<usize>> = only
        .rules()
        .iter()
        .map(|r| r.id.trim_end_matches(".md").parse::<usize>().ok())
        .collect();
    for i in owner_of.iter().flatten() {
        out.insert(*i, 0);
    }
    for s in match_files(&only, files, |_| true) {
        for b in s {
            if let Some(Some(i)) = owner_of.get(b as usize) {
                *out.entry(*i).or_default() += 1;
            }
        }
    }
    out
}

/// `--check BUDGET`: the always-on tokens and every file's against it.
fn check(report: &Report, file_set: &[u32], files: &[String], budget: u64) -> Check {
    let mut over: Vec<(String, u64)> = Vec::new();
    if report.totals.always_tokens > budget {
        over.push(("always-on".into(), report.totals.always_tokens));
    }
    let mut files_over: Vec<(u64, &String)> = file_set
        .iter()
        .zip(files)
        .map(|(&s, f)| (report.set_tokens[s as usize], f))
        .filter(|(t, _)| *t > budget)
        .collect();
    let n = files_over.len() as u64;
    files_over.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    over.extend(
        files_over
            .into_iter()
            .take(MAX_CHECK_FILES_LISTED)
            .map(|(t, f)| (f.clone(), t)),
    );
    Check {
        budget,
        ok: over.is_empty(),
        over,
        files_over: n,
    }
}
