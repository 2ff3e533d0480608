//! `wave-rules list`: one row per loaded rule.

use crate::display;
use crate::env::{Env, Output};
use memory_rules::Severity;

pub fn run(env: &Env) -> Output {
    let loaded = memory_rules::load(&env.config);
    let rules = loaded.rules.rules();
    let workdir = &env.config.workdir;
    let mut out = Output::default();
    if env.json {
        let list: Vec<_> = rules
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id,
                    "scope": r.scope.as_str(),
                    "priority": r.priority(),
                    "paths": r.metadata.paths,
                    "topics": r.metadata.topics,
                    "description": r.metadata.description,
                    "format": r.format.as_str(),
                    "activation": r.metadata.activation.as_str(),
                    "regex": r.metadata.regex,
                    "file": display::show(&r.file_path, workdir),
                    "firstLine": display::first_line(&r.content, usize::MAX),
                })
            })
            .collect();
        out.stdout = display::json_text(&serde_json::json!({ "rules": list }));
    } else {
        let rows: Vec<[String; 5]> = rules
            .iter()
            .map(|r| {
                [
                    r.id.clone(),
                    r.scope.to_string(),
                    r.priority().to_string(),
                    display::first_line(&display::triggers(&r.metadata), 48),
                    display::first_line(&r.content, 60),
                ]
            })
            .collect();
        out.stdout = table(["ID", "SCOPE", "PRIORITY", "TRIGGERS", "CONTENT"], &rows);
        out.stdout.push_str(&format!(
            "{} rule{}\n",
            rules.len(),
            if rules.len() == 1 { "" } else { "s" }
        ));
    }
    let errors = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 {
        out.stderr = format!(
            "wave-rules: {errors} problem{} kept rules from loading; run `wave-rules validate`\n",
            if errors == 1 { "" } else { "s" }
        );
    }
    out
}

/// Left-aligned columns, two spaces apart, no trailing spaces.
fn table<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let rows: Vec<[String; N]> = rows
        .iter()
        .map(|r| r.clone().map(|c| crate::display::clean(&c).into_owned()))
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
