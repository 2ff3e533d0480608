//! `wave-rules list`: one row per loaded rule.

use crate::base::env::{Env, Output};
use crate::base::{color, display};
use memory_rules::{Code, Severity};

pub fn run(env: &Env) -> Output {
    let loaded = env.load();
    let stdout = if env.json {
        list_json(env, &loaded)
    } else {
        list_text(env, &loaded)
    };
    Output {
        stdout,
        stderr: load_problems(&loaded.diagnostics),
        code: 0,
    }
}

fn list_json(env: &Env, loaded: &memory_rules::Loaded) -> String {
    let workdir = &env.config.workdir;
    let list: Vec<_> = loaded
        .rules
        .rules()
        .iter()
        .map(|r| {
            let mut v = serde_json::json!({
                "id": r.id,
                "scope": r.scope.as_str(),
                "priority": r.priority(),
                "paths": r.metadata.paths,
                "topics": r.metadata.topics,
                "description": r.metadata.description,
                "format": r.format.as_str(),
                "activation": r.metadata.activation_kind(),
                "regex": r.metadata.regex,
                "skills": r.metadata.skills,
                "file": display::show(&r.file_path, workdir),
                "firstLine": display::first_line(&r.content, usize::MAX),
            });
            display::origin_json(r, &mut v);
            v
        })
        .collect();
    display::json_text(&serde_json::json!({
        "root": workdir.to_string_lossy(),
        "rules": list,
        "layers": display::layer_notes(&loaded.diagnostics).iter().map(|d| display::diagnostic_json(d, workdir)).collect::<Vec<_>>(),
    }))
}

fn list_text(env: &Env, loaded: &memory_rules::Loaded) -> String {
    let rules = loaded.rules.rules();
    // Packs and the policy get a column of their own: where each rule
    // came from.
    let layered = rules.iter().any(|r| {
        matches!(
            r.origin.layer,
            memory_rules::LayerKind::Pack | memory_rules::LayerKind::Policy
        )
    });
    let mut s = rules_table(rules, layered);
    if !rules.is_empty() {
        if env.color {
            // The header is the first line; its text is ours, never a file's.
            let end = s.find('\n').unwrap_or(0);
            let header = color::paint(true, color::Style::Bold, &s[..end]);
            s.replace_range(..end, &header);
        }
        if layered {
            s.push_str(&display::override_lines(rules));
        }
        s.push_str(&display::layer_note_lines(&loaded.diagnostics));
    }
    s.push_str(&format!(
        "{} rule{}\n",
        rules.len(),
        if rules.len() == 1 { "" } else { "s" }
    ));
    s.push_str(&display::line(&env.root_line()));
    if rules.is_empty() && loaded.diagnostics.is_empty() && !env.sources_from.chosen() {
        s.push_str(&empty_hint(env));
    }
    s
}

/// One row per rule (nothing when there is none); with `layered`, a FROM
/// column names the pack or policy rules' provenance.
fn rules_table(rules: &[memory_rules::Rule], layered: bool) -> String {
    let rows: Vec<[String; 5]> = rules
        .iter()
        .map(|r| {
            [
                r.id.clone(),
                r.origin.layer.to_string(),
                r.priority().to_string(),
                display::first_line(&display::triggers(&r.metadata), 48),
                display::first_line(&r.content, 60),
            ]
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    if !layered {
        return table(["ID", "SCOPE", "PRIORITY", "TRIGGERS", "CONTENT"], &rows);
    }
    let rows: Vec<[String; 6]> = rows
        .into_iter()
        .zip(rules)
        .map(|([a, b, c, d, e], r)| {
            let from = match r.origin.layer {
                memory_rules::LayerKind::Pack | memory_rules::LayerKind::Policy => {
                    r.origin.provenance.clone()
                }
                _ => String::new(),
            };
            [a, b, c, d, e, from]
        })
        .collect();
    table(
        ["ID", "SCOPE", "PRIORITY", "TRIGGERS", "CONTENT", "FROM"],
        &rows,
    )
}

/// What kept rules from loading, or makes them misfire, in one line each
/// (`validate` shows the details).
fn load_problems(diagnostics: &[memory_rules::Diagnostic]) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let count = |typo: bool| {
        diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter(|d| (d.code == Code::MisspelledKey) == typo)
            .count()
    };
    let (errors, typos) = (count(false), count(true));
    let mut s = String::new();
    if errors > 0 {
        s = format!(
            "wave-rules: {errors} problem{} kept rules from loading; run `wave-rules validate`\n",
            plural(errors)
        );
    }
    if typos > 0 {
        s.push_str(&format!(
            "wave-rules: {typos} misspelled key{} make{} rules fire where they should not; run `wave-rules validate`\n",
            plural(typos),
            if typos == 1 { "s" } else { "" }
        ));
    }
    s
}

/// What to do in a project without rules: the other tools' rule files the
/// project has (read with every source, counted per tool), and the commands
/// that read them as they are or bring them into `.wave/rules`; else `init`.
pub(crate) fn empty_hint(env: &Env) -> String {
    let dirs: Vec<String> = env
        .config
        .sources
        .iter()
        .map(|s| display::show(&s.dir, &env.config.workdir))
        .collect();
    let mut hint = format!("hint: no rule in {}", dirs.join(", "));
    let others = other_tools(env);
    if others.is_empty() {
        hint.push_str("; run `wave-rules init` for a .wave/rules with one example of each kind, or `wave-rules add`\n");
        return hint;
    }
    let total: usize = others.iter().map(|(_, _, n)| n).sum();
    let list: Vec<String> = others
        .iter()
        .map(|(_, tool, n)| format!("{tool} {n}"))
        .collect();
    let names: Vec<&str> = others.iter().map(|(f, _, _)| f.as_str()).collect();
    hint.push_str(&format!(
        ", but this project has {total} rule{} of other tools ({}).\n  Read them as their tools do: wave-rules --sources all list\n  Bring them into .wave/rules: wave-rules import --from {}\n",
        if total == 1 { "" } else { "s" },
        list.join(", "),
        names.join(",")
    ));
    hint
}

/// The project rules of every format but the default sources', per format:
/// `(source name, tool, rules)`, most first.
fn other_tools(env: &Env) -> Vec<(memory_rules::Format, &'static str, usize)> {
    use memory_rules::{Format, Scope};
    let Ok(all) = memory_rules::formats_named(&["all"]) else {
        return Vec::new();
    };
    let mut config =
        memory_rules::sources::Config::named(&env.config.workdir, env.home_dir(), &all);
    config.sources.retain(|s| s.scope == Scope::Project);
    config.allow_dirs = env.config.allow_dirs.clone();
    let loaded = memory_rules::load(&config);
    let mut counts: Vec<(Format, &'static str, usize)> = Vec::new();
    for r in loaded.rules.rules() {
        // The default sources read `.claude/rules` and `.wave/rules`: what
        // they found is not another tool's (it was none, or there is no hint).
        if r.format == Format::Wave || r.format == Format::Claude && !r.id.starts_with("claude:") {
            continue;
        }
        match counts.iter_mut().find(|(f, _, _)| *f == r.format) {
            Some(c) => c.2 += 1,
            None => counts.push((r.format, r.format.tool(), 1)),
        }
    }
    counts.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.as_str().cmp(b.0.as_str())));
    counts
}

/// Left-aligned columns, two spaces apart, no trailing spaces.
pub(crate) fn table<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let rows: Vec<[String; N]> = rows
        .iter()
        .map(|r| {
            r.clone()
                .map(|c| crate::base::display::clean(&c).into_owned())
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header = header.map(str::to_string);
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            line.push_str(cell);
            if i + 1 < N {
                line.push_str(&" ".repeat(w - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
