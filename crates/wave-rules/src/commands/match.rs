//! `wave-rules match [--prompt TEXT] [--all] FILE...`: which rules fire, and
//! why (or why not); `--write PATH` and `--command 'LINE'`: what the
//! enforced rules would refuse or warn about, and what the model reads.

use crate::base::args::MatchArgs;
use crate::base::display;
use crate::base::env::{Env, Output};
use memory_rules::{Activation, Excluded, Reason, Rule};

/// Files typed on the command line are relative to the current directory,
/// as in every shell tool: when the project root was found above it, they
/// are made absolute (the core then takes them relative to the root).
fn from_cwd(env: &Env, files: &[String]) -> Vec<String> {
    let cwd = match (&env.root, std::env::current_dir()) {
        (Some(root), Ok(cwd)) if cwd != root.dir => cwd,
        _ => return files.to_vec(),
    };
    files
        .iter()
        .map(|f| {
            if std::path::Path::new(f).is_absolute() {
                f.clone()
            } else {
                cwd.join(f).to_string_lossy().into_owned()
            }
        })
        .collect()
}

pub fn run(env: &Env, args: &MatchArgs) -> Output {
    let given = MatchArgs {
        files: from_cwd(env, &args.files),
        prompt: args.prompt.clone(),
        skills: args
            .skills
            .iter()
            .filter_map(|s| memory_rules::skill_name::name(s).ok())
            .collect(),
        all: args.all,
        memory: args.memory,
        sources: args.sources.clone(),
        writes: from_cwd(env, &args.writes),
        commands: args.commands.clone(),
    };
    let args = &given;
    let loaded = env.load();
    let set = &loaded.rules;
    if !args.writes.is_empty() || !args.commands.is_empty() {
        let checks = enforcement(set, args);
        // Only what would be refused, unless files or a prompt were given too.
        if args.files.is_empty() && args.prompt.is_none() && args.skills.is_empty() {
            return enforcement_output(env, set, &checks);
        }
        let mut out = run_match(env, args, &loaded);
        let more = enforcement_output(env, set, &checks);
        if env.json {
            let mut doc: serde_json::Value =
                serde_json::from_str(&out.stdout).unwrap_or(serde_json::Value::Null);
            let checks: serde_json::Value =
                serde_json::from_str(&more.stdout).unwrap_or(serde_json::Value::Null);
            doc["enforcement"] = checks["enforcement"].clone();
            out.stdout = display::json_text(&doc);
        } else {
            out.stdout.push('\n');
            out.stdout.push_str(&more.stdout);
        }
        return out;
    }
    run_match(env, args, &loaded)
}

/// One `--write` or `--command` and its verdict (`Err`: the line does not
/// parse, or is over a limit).
struct EnforcementCheck {
    kind: &'static str,
    target: String,
    verdict: Result<memory_rules::delivery::enforcement::Verdict, String>,
}

fn enforcement(set: &memory_rules::RuleSet, args: &MatchArgs) -> Vec<EnforcementCheck> {
    let cwd = std::env::current_dir().ok();
    let mut out = Vec::new();
    for file in &args.writes {
        out.push(EnforcementCheck {
            kind: "write",
            target: set.normalize(file).unwrap_or(file.into()).into_owned(),
            verdict: Ok(set.enforced_writes(std::slice::from_ref(file))),
        });
    }
    for line in &args.commands {
        out.push(EnforcementCheck {
            kind: "command",
            target: line.clone(),
            verdict: memory_rules::delivery::enforcement::check_shell(set, line, cwd.as_deref())
                .map_err(|e| e.to_string()),
        });
    }
    out
}

/// How each hit came about: the path pattern and file, or the command and
/// the pattern it matched.
fn hit_reason(
    set: &memory_rules::RuleSet,
    hit: &memory_rules::delivery::enforcement::EnforcedHit,
) -> String {
    use memory_rules::delivery::enforcement::EnforcedAction;
    match &hit.action {
        EnforcedAction::Write(file) => {
            let pattern = set
                .explain(std::slice::from_ref(file), None)
                .into_iter()
                .find(|e| e.index == hit.rule)
                .and_then(|e| {
                    e.reasons.into_iter().find_map(|r| match r {
                        Reason::Path { pattern, .. } => Some(pattern),
                        _ => None,
                    })
                });
            let file = set.normalize(file).unwrap_or(file.into());
            match pattern {
                Some(p) => format!("path '{p}' matches {file}"),
                None => format!("its paths match {file}"),
            }
        }
        EnforcedAction::Command { command, pattern } => {
            format!("`{command}` matches the command pattern '{pattern}'")
        }
    }
}

fn enforcement_output(
    env: &Env,
    set: &memory_rules::RuleSet,
    checks: &[EnforcementCheck],
) -> Output {
    use memory_rules::base::limits::DEFAULT_RULES_BYTES;
    let mut out = Output::default();
    if env.json {
        let list: Vec<serde_json::Value> = checks
            .iter()
            .map(|c| match &c.verdict {
                Err(e) => serde_json::json!({ "kind": c.kind, "target": c.target, "decision": "allow", "error": e }),
                Ok(v) => serde_json::json!({
                    "kind": c.kind,
                    "target": c.target,
                    "decision": if v.blocks() { "block" } else if v.is_empty() { "allow" } else { "warn" },
                    "rules": v.hits.iter().map(|h| serde_json::json!({
                        "id": set.rules()[h.rule].id,
                        "enforce": h.enforce.as_str(),
                        "why": hit_reason(set, h),
                    })).collect::<Vec<_>>(),
                    "reason": memory_rules::delivery::enforcement::reason(set, v, DEFAULT_RULES_BYTES, &[]),
                }),
            })
            .collect();
        out.stdout = display::json_text(&serde_json::json!({ "enforcement": list }));
        return out;
    }
    for c in checks {
        let what = match c.kind {
            "write" => format!("write {}", c.target),
            _ => format!("command `{}`", c.target),
        };
        let v = match &c.verdict {
            Err(e) => {
                out.stdout.push_str(&display::line(&format!(
                    "{what}: not checked ({e}); a hook lets it run"
                )));
                continue;
            }
            Ok(v) => v,
        };
        let n = v.hits.len();
        let rules = format!("{n} rule{}", if n == 1 { "" } else { "s" });
        out.stdout.push_str(&display::line(&if v.blocks() {
            format!("{what}: refused by {rules}")
        } else if v.is_empty() {
            format!("{what}: allowed; no enforced rule governs it")
        } else {
            format!("{what}: allowed, with a warning from {rules}")
        }));
        for h in &v.hits {
            let rule = &set.rules()[h.rule];
            out.stdout.push_str(&display::line(&format!(
                "  {} ({}, enforce: {})",
                rule.id,
                rule.scope,
                h.enforce.as_str()
            )));
            out.stdout
                .push_str(&display::line(&format!("    {}", hit_reason(set, h))));
        }
        if !v.is_empty() {
            out.stdout.push_str("  the model reads:\n");
            for l in memory_rules::delivery::enforcement::reason(set, v, DEFAULT_RULES_BYTES, &[])
                .lines()
            {
                out.stdout.push_str(&display::line(&format!("    | {l}")));
            }
        }
    }
    out
}

/// What matching found for the context given.
struct Matched<'a> {
    set: &'a memory_rules::RuleSet,
    active: Vec<&'a memory_rules::Explanation>,
    inactive: Vec<&'a memory_rules::Explanation>,
    /// The rules offered on request (by description), sorted.
    available: Vec<usize>,
    /// Whether rules with a `regex` read the files' content.
    reads_content: bool,
}

fn run_match(env: &Env, args: &MatchArgs, loaded: &memory_rules::Loaded) -> Output {
    let set = &loaded.rules;
    // Rules with a `regex` (Continue) match the content of the files in
    // context, read as every road reads them.
    let read = memory_rules::delivery::file_contents(&env.config.workdir);
    let contents: Option<memory_rules::Contents> = set.has_content_rules().then_some(&read);
    let explanations = set.explain_in(&args.files, args.prompt.as_deref(), &args.skills, contents);
    let (active, inactive): (Vec<_>, Vec<_>) = explanations.iter().partition(|e| e.is_active());
    let active_ids: Vec<usize> = active.iter().map(|e| e.index).collect();
    let matched = Matched {
        set,
        available: set.available(&active_ids),
        active,
        inactive,
        reads_content: contents.is_some(),
    };
    let stdout = if env.json {
        match_json(env, args, loaded, &matched)
    } else {
        let mut s = match_text(args, &matched);
        if args.memory {
            s.push_str(&memory_text(env, args));
        }
        if args.all {
            s.push_str(&inactive_text(args, loaded, &matched));
        }
        s
    };
    Output {
        stdout,
        ..Output::default()
    }
}

fn match_json(env: &Env, args: &MatchArgs, loaded: &memory_rules::Loaded, m: &Matched) -> String {
    let set = m.set;
    let rule_json = |e: &memory_rules::Explanation| {
        let r = &set.rules()[e.index];
        let mut v = serde_json::json!({
            "id": r.id,
            "scope": r.scope.as_str(),
            "priority": r.priority(),
            "format": r.format.as_str(),
            "activation": r.metadata.activation_kind(),
            "kind": memory_rules::delivery::activation_label(r),
        });
        display::origin_json(r, &mut v);
        v["reasons"] = e.reasons.iter().map(reason_json).collect();
        if args.all {
            v["excluded"] = e
                .excluded
                .iter()
                .map(|x| serde_json::json!({ "file": x.file, "pattern": x.pattern, "by": x.by }))
                .collect();
        }
        v
    };
    let files: Vec<_> = args
        .files
        .iter()
        .map(|f| serde_json::json!({ "file": f, "normalized": set.normalize(f).map(|n| n.into_owned()) }))
        .collect();
    let mut doc = serde_json::json!({
        "files": files,
        "prompt": args.prompt,
        "skills": args.skills,
        "active": m.active.iter().map(|e| rule_json(e)).collect::<Vec<_>>(),
        "available": m.available.iter().map(|&i| {
            let r = &set.rules()[i];
            serde_json::json!({ "id": r.id, "description": r.metadata.description, "format": r.format.as_str() })
        }).collect::<Vec<_>>(),
    });
    if args.memory {
        doc["memory"] = recalled(env, args)
            .iter()
            .map(|(event, h)| {
                let mut v = super::memory::hit_json(h);
                v["event"] = (*event).into();
                v["why"] = super::memory::why(h).into();
                v
            })
            .collect();
        doc["agents"] = agent_matches(env, args)
            .iter()
            .map(super::memory::agent_json)
            .collect();
    }
    if args.all {
        let not: Vec<_> = m
            .inactive
            .iter()
            .filter(|e| !set.rules()[e.index].metadata.is_unconditional())
            .map(|e| rule_json(e))
            .collect();
        doc["inactive"] = serde_json::Value::Array(not);
        doc["layers"] = display::layer_notes(&loaded.diagnostics)
            .iter()
            .map(|d| display::diagnostic_json(d, &env.config.workdir))
            .collect();
    }
    display::json_text(&doc)
}

/// The active rules with their reasons, then those available on request.
fn match_text(args: &MatchArgs, m: &Matched) -> String {
    let set = m.set;
    let mut s = String::new();
    for f in args.files.iter().filter(|f| set.normalize(f).is_none()) {
        s.push_str(&display::line(&format!(
            "note: '{f}' is outside the workdir; it matches no pattern"
        )));
    }
    let context = match (args.files.len(), args.prompt.is_some()) {
        (0, false) => "no files and no prompt".to_string(),
        (n, p) => format!(
            "{} file{}{}",
            n,
            if n == 1 { "" } else { "s" },
            if p { " and the prompt" } else { "" }
        ),
    };
    s.push_str(&format!(
        "{} of {} rules active for {context}\n",
        m.active.len(),
        set.rules().len()
    ));
    for e in &m.active {
        let rule = &set.rules()[e.index];
        s.push_str(&heading(rule));
        for reason in &e.reasons {
            s.push_str(&display::line(&format!("    {}", describe(rule, reason))));
        }
    }
    let available = &m.available;
    if !available.is_empty() {
        s.push_str(&format!("\n{} rule{} available on request (offered by description; the model reads them with read_rule)\n", available.len(), if available.len() == 1 { "" } else { "s" }));
        for &i in available {
            let rule = &set.rules()[i];
            s.push_str(&heading(rule));
            s.push_str(&display::line(&format!(
                "    {}",
                display::first_line(
                    rule.metadata
                        .description
                        .as_deref()
                        .unwrap_or("(no description)"),
                    100
                )
            )));
        }
    }
    s
}

/// `--memory --memory-sources`: the agents' own entries matching the prompt
/// and the files' names (read-only; at most as many as a recall gives).
fn agent_matches(
    env: &Env,
    args: &MatchArgs,
) -> Vec<memory_rules::memory::agent_memory::AgentEntry> {
    // A config that cannot be read reads none of the agents' memory here;
    // `memory search` names the problem.
    let sources = env
        .memory_sources(&args.sources.memory_sources)
        .unwrap_or_default();
    let agents = super::memory::agent_entries(env, &sources);
    let query = format!(
        "{} {}",
        args.prompt.as_deref().unwrap_or(""),
        args.files.join(" ")
    );
    let limit = memory_rules::base::limits::DEFAULT_RECALL_ENTRIES;
    agents.search(&query, limit).into_iter().cloned().collect()
}

/// `--memory`: the entries recalled, and why each came.
fn memory_text(env: &Env, args: &MatchArgs) -> String {
    let mut s = String::new();
    let hits = recalled(env, args);
    s.push_str(&format!(
        "\n{} memory entr{} recalled\n",
        hits.len(),
        if hits.len() == 1 { "y" } else { "ies" }
    ));
    for (event, h) in &hits {
        s.push_str(&display::line(&format!(
            "  {} ({}/{}, {}:{}) for the {event}",
            h.id, h.scope, h.topic, h.file, h.line
        )));
        s.push_str(&display::line(&format!("    {}", super::memory::why(h))));
        s.push_str(&display::line(&format!(
            "    {}",
            display::first_line(&h.text, 100)
        )));
    }
    for e in agent_matches(env, args) {
        s.push_str(&display::line(&format!(
            "  {} ({}, an agent's own memory, read-only)",
            e.origin(),
            e.topic
        )));
        s.push_str(&display::line(&format!(
            "    {}",
            display::first_line(&e.text, 100)
        )));
    }
    s
}

/// `--all`: the conditional rules that did not fire and why, then the
/// layers' notes.
fn inactive_text(args: &MatchArgs, loaded: &memory_rules::Loaded, m: &Matched) -> String {
    let set = m.set;
    let mut s = String::new();
    let conditional: Vec<_> = m
        .inactive
        .iter()
        .filter(|e| {
            !set.rules()[e.index].metadata.is_unconditional()
                && m.available.binary_search(&e.index).is_err()
        })
        .collect();
    s.push_str(&format!(
        "\n{} conditional rule{} not active\n",
        conditional.len(),
        if conditional.len() == 1 { "" } else { "s" }
    ));
    for e in conditional {
        let rule = &set.rules()[e.index];
        s.push_str(&heading(rule));
        for line in why_not(
            rule,
            &e.excluded,
            args.files.len(),
            args.prompt.is_some(),
            m.reads_content,
            &args.skills,
        ) {
            s.push_str(&display::line(&format!("    {line}")));
        }
    }
    let notes = display::layer_note_lines(&loaded.diagnostics);
    if !notes.is_empty() {
        s.push_str("\nlayers:\n");
        for l in notes.lines() {
            s.push_str(&display::line(&format!("  {l}")));
        }
    }
    s
}

/// The memory entries a new conversation would be given for this prompt
/// (first) and these files, as the hooks recall them, each with its event.
fn recalled(env: &Env, args: &MatchArgs) -> Vec<(&'static str, memory_rules::memory::MemoryHit)> {
    use memory_rules::memory::recall::{recall, RecallBudget, RecallEvent};
    let store = super::memory::store(env);
    let index = memory_rules::memory::MemoryIndex::open(&store);
    let workdir = memory_rules::Workdir::new(&env.config.workdir);
    let mut out: Vec<(&'static str, memory_rules::memory::MemoryHit)> = Vec::new();
    let mut given: Vec<String> = Vec::new();
    if let Some(p) = &args.prompt {
        let r = recall(
            &index,
            RecallEvent::Prompt(p),
            &|_| false,
            RecallBudget::default(),
        );
        for h in r.entries {
            given.push(h.id.clone());
            out.push(("prompt", h));
        }
    }
    let rel: Vec<String> = args
        .files
        .iter()
        .filter_map(|f| workdir.relative(f).map(|r| r.into_owned()))
        .collect();
    if !rel.is_empty() {
        let r = recall(
            &index,
            RecallEvent::Files(&rel),
            &|id| given.iter().any(|g| g == id),
            RecallBudget::default(),
        );
        out.extend(r.entries.into_iter().map(|h| ("files", h)));
    }
    out
}

fn heading(rule: &Rule) -> String {
    use memory_rules::LayerKind;
    let from = match rule.origin.layer {
        LayerKind::Pack | LayerKind::Policy => format!(", from {}", rule.origin.provenance),
        _ => String::new(),
    };
    let overrides = match rule.origin.overrides.as_slice() {
        [] => String::new(),
        o => format!(", overrides {}", o.join(", ")),
    };
    display::line(&format!(
        "  {} ({}, priority {}{from}{overrides})",
        rule.id,
        rule.scope,
        rule.priority()
    ))
}

/// Why a rule is active, in its own tool's terms for the other agents'
/// formats ("Cursor: Auto Attached, `globs` 'src/**' matches src/x.ts").
fn describe(rule: &Rule, reason: &Reason) -> String {
    let plain = match reason {
        Reason::Always => "always active: no paths and no topics".to_string(),
        Reason::Path { pattern, file } => format!("path '{pattern}' matches {file}"),
        Reason::Topic { topic, word } => {
            format!("topic '{topic}' starts the word '{word}' in the prompt")
        }
        Reason::Mention { name } => format!("the prompt mentions it as @{name}"),
        Reason::Content { regex, file } => {
            format!("`regex` '{regex}' matches the content of {file}")
        }
        Reason::Skill { name } => format!("the skill '{name}' is active"),
    };
    // Claude Code's memory files (`claude:CLAUDE.md`, its imports) are
    // described in Claude Code's words; its `.claude/rules` share Wave's.
    let memory_file = rule.format == memory_rules::Format::Claude && rule.id.starts_with("claude:");
    if !rule.format.qualifies_ids() && !memory_file {
        return plain;
    }
    let tool = rule.format.tool();
    let kind = memory_rules::delivery::activation_label(rule);
    let key = rule.format.glob_key();
    match reason {
        Reason::Always => format!("{tool}: {kind}"),
        Reason::Path { pattern, file }
            if rule
                .metadata
                .directory
                .as_deref()
                .is_some_and(|d| *pattern == format!("{d}/**")) =>
        {
            format!(
                "{tool}: {kind}, for files under {}/: {file}",
                rule.metadata.directory.as_deref().unwrap_or("")
            )
        }
        Reason::Path { pattern, file } => {
            format!("{tool}: {kind}, `{key}` '{pattern}' matches {file}")
        }
        _ => format!("{tool}: {kind}, {plain}"),
    }
}

fn reason_json(reason: &Reason) -> serde_json::Value {
    match reason {
        Reason::Always => serde_json::json!({ "kind": "always" }),
        Reason::Path { pattern, file } => {
            serde_json::json!({ "kind": "path", "pattern": pattern, "file": file })
        }
        Reason::Topic { topic, word } => {
            serde_json::json!({ "kind": "topic", "topic": topic, "word": word })
        }
        Reason::Mention { name } => serde_json::json!({ "kind": "mention", "name": name }),
        Reason::Content { regex, file } => {
            serde_json::json!({ "kind": "content", "regex": regex, "file": file })
        }
        Reason::Skill { name } => serde_json::json!({ "kind": "skill", "name": name }),
    }
}

/// Why a conditional rule did not fire, one line per trigger.
fn why_not(
    rule: &Rule,
    excluded: &[Excluded],
    files: usize,
    has_prompt: bool,
    has_contents: bool,
    skills: &[String],
) -> Vec<String> {
    let mut lines = Vec::new();
    let tool = rule.format.tool();
    match rule.metadata.activation {
        Activation::Manual => {
            let names = rule.mention_names();
            let name = names
                .iter()
                .min_by_key(|n| n.len())
                .cloned()
                .unwrap_or_default();
            lines.push(format!(
                "{tool}: {}: active only when the prompt mentions it, as @{name}",
                memory_rules::delivery::activation_label(rule)
            ));
            return lines;
        }
        Activation::OnRequest => {
            lines.push(format!(
                "{tool}: {}: offered to the model by its description; active when mentioned",
                memory_rules::delivery::activation_label(rule)
            ));
            return lines;
        }
        Activation::Auto => {}
    }
    let qualified = rule.format.qualifies_ids();
    if let Some(paths) = &rule.metadata.paths {
        for x in excluded {
            lines.push(format!(
                "{} matches '{}' but is excluded by '{}'",
                x.file, x.pattern, x.by
            ));
        }
        if excluded.is_empty() {
            let what = if files == 0 {
                "no files in context".to_string()
            } else {
                format!("none of the {files} files matches")
            };
            if qualified {
                lines.push(format!(
                    "{tool}: {}, `{}`: {what} {}",
                    memory_rules::delivery::activation_label(rule),
                    rule.format.glob_key(),
                    paths.join(", ")
                ));
            } else {
                lines.push(format!("paths: {what} {}", paths.join(", ")));
            }
        }
    }
    if let Some(regex) = &rule.metadata.regex {
        lines.push(if has_contents {
            format!(
                "{tool}: `regex` {} matches the content of no file in context that the globs allow",
                regex.join(", ")
            )
        } else {
            format!(
                "{tool}: `regex` {} not checked: no file contents",
                regex.join(", ")
            )
        });
    }
    if let Some(topics) = &rule.metadata.topics {
        lines.push(if has_prompt {
            format!(
                "topics: none of {} starts a word of the prompt",
                topics.join(", ")
            )
        } else {
            format!("topics: no prompt given ({})", topics.join(", "))
        });
    }
    if let Some(names) = &rule.metadata.skills {
        lines.push(if skills.is_empty() {
            format!("skills: no skill given ({})", names.join(", "))
        } else {
            format!(
                "skills: none of {} is active (given: {})",
                names.join(", "),
                skills.join(", ")
            )
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use memory_rules::Metadata;

    #[test]
    fn explanations_speak_each_tool() {
        use memory_rules::Format;
        let rule = |format, metadata: Metadata| Rule {
            id: format!("{format}:x"),
            scope: memory_rules::Scope::Project,
            file_path: "x".into(),
            content: "c".into(),
            metadata: metadata.into(),
            format,
            origin: Default::default(),
        };
        let globbed = Metadata {
            paths: Some(vec!["src/**".into()]),
            ..Metadata::default()
        };
        let path = Reason::Path {
            pattern: "src/**".into(),
            file: "src/x.ts".into(),
        };
        assert_eq!(
            describe(&rule(Format::Cursor, globbed.clone()), &path),
            "Cursor: Auto Attached, `globs` 'src/**' matches src/x.ts"
        );
        assert_eq!(
            describe(&rule(Format::Windsurf, globbed.clone()), &path),
            "Windsurf: Glob, `globs` 'src/**' matches src/x.ts"
        );
        assert_eq!(
            describe(&rule(Format::Kiro, globbed), &path),
            "Kiro: inclusion: fileMatch, `fileMatchPattern` 'src/**' matches src/x.ts"
        );
        assert_eq!(
            describe(&rule(Format::Cursor, Metadata::default()), &Reason::Always),
            "Cursor: Always"
        );
        let manual = Metadata {
            activation: Activation::Manual,
            ..Metadata::default()
        };
        let r = rule(Format::Windsurf, manual);
        assert_eq!(
            describe(&r, &Reason::Mention { name: "x".into() }),
            "Windsurf: Manual, the prompt mentions it as @x"
        );
        assert_eq!(
            why_not(&r, &[], 0, true, false, &[]),
            ["Windsurf: Manual: active only when the prompt mentions it, as @x"]
        );
    }
}
