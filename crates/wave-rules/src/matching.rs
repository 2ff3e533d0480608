//! `wave-rules match [--prompt TEXT] [--all] FILE...`: which rules fire, and
//! why (or why not).

use crate::args::MatchArgs;
use crate::display;
use crate::{Env, Output};
use memory_rules::{Excluded, Reason, Rule};

pub fn run(env: &Env, args: &MatchArgs) -> Output {
    let loaded = memory_rules::load(&env.config);
    let set = &loaded.rules;
    let prompt = args.prompt.as_deref();
    let explanations = set.explain(&args.files, prompt);
    let (active, inactive): (Vec<_>, Vec<_>) = explanations.iter().partition(|e| e.is_active());
    let outside: Vec<&String> = args.files.iter().filter(|f| set.normalize(f).is_none()).collect();
    let mut out = Output::default();
    if env.json {
        let rule_json = |e: &memory_rules::Explanation| {
            let r = &set.rules()[e.index];
            let mut v = serde_json::json!({ "id": r.id, "scope": r.scope.as_str(), "priority": r.priority() });
            v["reasons"] = e.reasons.iter().map(reason_json).collect();
            if args.all {
                v["excluded"] = e.excluded.iter().map(|x| serde_json::json!({ "file": x.file, "pattern": x.pattern, "by": x.by })).collect();
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
            "active": active.iter().map(|e| rule_json(e)).collect::<Vec<_>>(),
        });
        if args.all {
            let not: Vec<_> = inactive.iter().filter(|e| !set.rules()[e.index].metadata.is_unconditional()).map(|e| rule_json(e)).collect();
            doc["inactive"] = serde_json::Value::Array(not);
        }
        out.stdout = display::json_text(&doc);
        return out;
    }
    for f in &outside {
        out.stdout.push_str(&format!("note: '{f}' is outside the workdir; it matches no pattern\n"));
    }
    let context = match (args.files.len(), prompt.is_some()) {
        (0, false) => "no files and no prompt".to_string(),
        (n, p) => format!("{} file{}{}", n, if n == 1 { "" } else { "s" }, if p { " and the prompt" } else { "" }),
    };
    out.stdout.push_str(&format!("{} of {} rules active for {context}\n", active.len(), set.rules().len()));
    for e in &active {
        let rule = &set.rules()[e.index];
        out.stdout.push_str(&heading(rule));
        for reason in &e.reasons {
            out.stdout.push_str(&format!("    {}\n", describe(reason)));
        }
    }
    if args.all {
        let conditional: Vec<_> = inactive.iter().filter(|e| !set.rules()[e.index].metadata.is_unconditional()).collect();
        out.stdout.push_str(&format!("\n{} conditional rule{} not active\n", conditional.len(), if conditional.len() == 1 { "" } else { "s" }));
        for e in conditional {
            let rule = &set.rules()[e.index];
            out.stdout.push_str(&heading(rule));
            for line in why_not(rule, &e.excluded, args.files.len(), prompt.is_some()) {
                out.stdout.push_str(&format!("    {line}\n"));
            }
        }
    }
    out
}

fn heading(rule: &Rule) -> String {
    format!("  {} ({}, priority {})\n", rule.id, rule.scope, rule.priority())
}

fn describe(reason: &Reason) -> String {
    match reason {
        Reason::Always => "always active: no paths and no topics".into(),
        Reason::Path { pattern, file } => format!("path '{pattern}' matches {file}"),
        Reason::Topic { topic, word } => format!("topic '{topic}' starts the word '{word}' in the prompt"),
    }
}

fn reason_json(reason: &Reason) -> serde_json::Value {
    match reason {
        Reason::Always => serde_json::json!({ "kind": "always" }),
        Reason::Path { pattern, file } => serde_json::json!({ "kind": "path", "pattern": pattern, "file": file }),
        Reason::Topic { topic, word } => serde_json::json!({ "kind": "topic", "topic": topic, "word": word }),
    }
}

/// Why a conditional rule did not fire, one line per trigger.
fn why_not(rule: &Rule, excluded: &[Excluded], files: usize, has_prompt: bool) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(paths) = &rule.metadata.paths {
        for x in excluded {
            lines.push(format!("{} matches '{}' but is excluded by '{}'", x.file, x.pattern, x.by));
        }
        if excluded.is_empty() {
            let what = if files == 0 { "no files in context".to_string() } else { format!("none of the {files} files matches") };
            lines.push(format!("paths: {what} {}", paths.join(", ")));
        }
    }
    if let Some(topics) = &rule.metadata.topics {
        lines.push(if has_prompt {
            format!("topics: none of {} starts a word of the prompt", topics.join(", "))
        } else {
            format!("topics: no prompt given ({})", topics.join(", "))
        });
    }
    lines
}
