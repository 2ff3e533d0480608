//! `wave-rules match [--prompt TEXT] [--all] FILE...`: which rules fire, and
//! why (or why not).

use crate::args::MatchArgs;
use crate::display;
use crate::env::{Env, Output};
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
            .filter_map(|s| memory_rules::skill_name(s).ok())
            .collect(),
        all: args.all,
        memory: args.memory,
    };
    let args = &given;
    let loaded = env.load();
    let set = &loaded.rules;
    let prompt = args.prompt.as_deref();
    // Rules with a `regex` (Continue) match the content of the files in
    // context, read as every road reads them.
    let read = memory_rules::file_contents(&env.config.workdir);
    let contents: Option<memory_rules::Contents> = set.has_content_rules().then_some(&read);
    let explanations = set.explain_in(&args.files, prompt, &args.skills, contents);
    let (active, inactive): (Vec<_>, Vec<_>) = explanations.iter().partition(|e| e.is_active());
    let active_ids: Vec<usize> = active.iter().map(|e| e.index).collect();
    let available = set.available(&active_ids);
    let outside: Vec<&String> = args
        .files
        .iter()
        .filter(|f| set.normalize(f).is_none())
        .collect();
    let mut out = Output::default();
    if env.json {
        let rule_json = |e: &memory_rules::Explanation| {
            let r = &set.rules()[e.index];
            let mut v = serde_json::json!({
                "id": r.id,
                "scope": r.scope.as_str(),
                "priority": r.priority(),
                "format": r.format.as_str(),
                "activation": r.metadata.activation_kind(),
                "kind": memory_rules::tool_kind(r),
            });
            display::origin_json(r, &mut v);
            v["reasons"] = e.reasons.iter().map(reason_json).collect();
            if args.all {
                v["excluded"] = e
                    .excluded
                    .iter()
                    .map(
                        |x| serde_json::json!({ "file": x.file, "pattern": x.pattern, "by": x.by }),
                    )
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
            "prompt": prompt,
            "skills": args.skills,
            "active": active.iter().map(|e| rule_json(e)).collect::<Vec<_>>(),
            "available": available.iter().map(|&i| {
                let r = &set.rules()[i];
                serde_json::json!({ "id": r.id, "description": r.metadata.description, "format": r.format.as_str() })
            }).collect::<Vec<_>>(),
        });
        if args.memory {
            doc["memory"] = recalled(env, args)
                .iter()
                .map(|(event, h)| {
                    let mut v = crate::memory::hit_json(h);
                    v["event"] = (*event).into();
                    v["why"] = crate::memory::why(h).into();
                    v
                })
                .collect();
        }
        if args.all {
            let not: Vec<_> = inactive
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
        out.stdout = display::json_text(&doc);
        return out;
    }
    for f in &outside {
        out.stdout.push_str(&display::line(&format!(
            "note: '{f}' is outside the workdir; it matches no pattern"
        )));
    }
    let context = match (args.files.len(), prompt.is_some()) {
        (0, false) => "no files and no prompt".to_string(),
        (n, p) => format!(
            "{} file{}{}",
            n,
            if n == 1 { "" } else { "s" },
            if p { " and the prompt" } else { "" }
        ),
    };
    out.stdout.push_str(&format!(
        "{} of {} rules active for {context}\n",
        active.len(),
        set.rules().len()
    ));
    for e in &active {
        let rule = &set.rules()[e.index];
        out.stdout.push_str(&heading(rule));
        for reason in &e.reasons {
            out.stdout
                .push_str(&display::line(&format!("    {}", describe(rule, reason))));
        }
    }
    if !available.is_empty() {
        out.stdout.push_str(&format!("\n{} rule{} available on request (offered by description; the model reads them with read_rule)\n", available.len(), if available.len() == 1 { "" } else { "s" }));
        for &i in &available {
            let rule = &set.rules()[i];
            out.stdout.push_str(&heading(rule));
            out.stdout.push_str(&display::line(&format!(
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
    if args.memory {
        let hits = recalled(env, args);
        out.stdout.push_str(&format!(
            "\n{} memory entr{} recalled\n",
            hits.len(),
            if hits.len() == 1 { "y" } else { "ies" }
        ));
        for (event, h) in &hits {
            out.stdout.push_str(&display::line(&format!(
                "  {} ({}/{}, {}:{}) for the {event}",
                h.id, h.scope, h.topic, h.file, h.line
            )));
            out.stdout
                .push_str(&display::line(&format!("    {}", crate::memory::why(h))));
            out.stdout.push_str(&display::line(&format!(
                "    {}",
                display::first_line(&h.text, 100)
            )));
        }
    }
    if args.all {
        let conditional: Vec<_> = inactive
            .iter()
            .filter(|e| {
                !set.rules()[e.index].metadata.is_unconditional()
                    && available.binary_search(&e.index).is_err()
            })
            .collect();
        out.stdout.push_str(&format!(
            "\n{} conditional rule{} not active\n",
            conditional.len(),
            if conditional.len() == 1 { "" } else { "s" }
        ));
        for e in conditional {
            let rule = &set.rules()[e.index];
            out.stdout.push_str(&heading(rule));
            for line in why_not(
                rule,
                &e.excluded,
                args.files.len(),
                prompt.is_some(),
                contents.is_some(),
                &args.skills,
            ) {
                out.stdout.push_str(&display::line(&format!("    {line}")));
            }
        }
        let notes = display::layer_note_lines(&loaded.diagnostics);
        if !notes.is_empty() {
            out.stdout.push_str("\nlayers:\n");
            for l in notes.lines() {
                out.stdout.push_str(&display::line(&format!("  {l}")));
            }
        }
    }
    out
}

/// The memory entries a new conversation would be given for this prompt
/// (first) and these files, as the hooks recall them, each with its event.
fn recalled(env: &Env, args: &MatchArgs) -> Vec<(&'static str, memory_rules::memory::Hit)> {
    use memory_rules::memory::recall::{recall, RecallBudget, RecallEvent};
    let store = crate::memory::store(env);
    let index = memory_rules::memory::MemoryIndex::open(&store);
    let workdir = memory_rules::Workdir::new(&env.config.workdir);
    let mut out: Vec<(&'static str, memory_rules::memory::Hit)> = Vec::new();
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
    let kind = memory_rules::tool_kind(rule);
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
                memory_rules::tool_kind(rule)
            ));
            return lines;
        }
        Activation::OnRequest => {
            lines.push(format!(
                "{tool}: {}: offered to the model by its description; active when mentioned",
                memory_rules::tool_kind(rule)
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
                    memory_rules::tool_kind(rule),
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
        let rule = |format, metadata| Rule {
            id: format!("{format}:x"),
            scope: memory_rules::Scope::Project,
            file_path: "x".into(),
            content: "c".into(),
            metadata,
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
