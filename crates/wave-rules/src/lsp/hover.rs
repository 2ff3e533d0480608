//! Hover: on a glob line, how many files of the project the rule's paths
//! match and the first few; elsewhere in the frontmatter, when the rule
//! fires and its tokens; on an `@path` import, the file.

use super::diagnostics::{self, GLOB_KEYS};
use super::documents::{Document, DocumentKind};
use super::ranges;
use super::symbols;
use super::workspace::Workspace;
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};
use memory_rules::{Rule, RuleSet};

/// Files named in a glob hover.
const FIRST_FILES: usize = 5;

pub(super) fn hover(ws: &Workspace, p: &HoverParams) -> Option<Hover> {
    let at = &p.text_document_position_params;
    let doc = ws.document(&at.text_document.uri)?;
    if doc.kind != DocumentKind::Rule {
        return None;
    }
    let text = if let Some((word, target)) = symbols::import_at(ws, doc, at.position) {
        import_text(&word, &target)
    } else {
        let line = at.position.line;
        let end = frontmatter_end(&doc.text)?;
        if line > end {
            return None;
        }
        let (_, set) = diagnostics::check(ws, doc);
        if on_glob_lines(doc, line) {
            globs_text(ws, &set)
        } else {
            format!(
                "{}{}",
                rules_text(&set),
                exports_text(&set, &ws.config.workdir)
            )
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    })
}

/// The 0-based line of the frontmatter's closing `---`.
pub(super) fn frontmatter_end(text: &str) -> Option<u32> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    lines
        .position(|l| l.trim_end() == "---")
        .map(|n| n as u32 + 1)
}

/// Whether `line` is a glob key's line or an item of its list below.
fn on_glob_lines(doc: &Document, line: u32) -> bool {
    let lines: Vec<&str> = doc.text.lines().take(line as usize + 1).collect();
    for l in lines.iter().rev() {
        let key = l.split(':').next().unwrap_or("").trim_end();
        if GLOB_KEYS.contains(&key) && !l.starts_with(char::is_whitespace) {
            return true;
        }
        if !(l.starts_with(char::is_whitespace) || l.trim_start().starts_with('-')) {
            return false;
        }
    }
    false
}

fn globs_text(ws: &Workspace, set: &RuleSet) -> String {
    let mut out = String::new();
    for (i, rule) in set.rules().iter().enumerate() {
        let Some(paths) = &rule.metadata.paths else {
            continue;
        };
        let matched: Vec<&String> = ws
            .files
            .iter()
            .filter(|f| set.active(&[f.as_str()], None).contains(&i))
            .collect();
        out.push_str(&format!(
            "**{}** of {} project files match `{}`",
            matched.len(),
            ws.files.len(),
            paths.join("`, `")
        ));
        for f in matched.iter().take(FIRST_FILES) {
            out.push_str(&format!("\n- `{f}`"));
        }
        if matched.len() > FIRST_FILES {
            out.push_str(&format!("\n- ... and {} more", matched.len() - FIRST_FILES));
        }
        out.push_str("\n\n");
    }
    if out.is_empty() {
        out.push_str("no rule of this file reads these globs");
    }
    out
}

fn rules_text(set: &RuleSet) -> String {
    set.rules()
        .iter()
        .map(rule_text)
        .collect::<Vec<_>>()
        .join("\n\n---\n\n")
}

/// When one rule fires, and what it costs.
fn rule_text(rule: &Rule) -> String {
    let m = &rule.metadata;
    let mut fires = Vec::new();
    if m.is_unconditional() {
        fires.push("always (every conversation)".to_string());
    }
    if let Some(p) = &m.paths {
        fires.push(format!(
            "when a file in context matches `{}`",
            p.join("`, `")
        ));
    }
    if let Some(t) = &m.topics {
        fires.push(format!(
            "when a word of the prompt starts with `{}`",
            t.join("`, `")
        ));
    }
    if let Some(c) = m.enforced_commands() {
        fires.push(format!("on a shell command matching `{}`", c.join("`, `")));
    }
    match m.activation.as_str() {
        "on-request" => {
            fires.push("when the model asks for it (on request, by its description)".into())
        }
        "manual" => fires.push("only when named (manual)".into()),
        _ => {}
    }
    let tokens = memory_rules::delivery::tokens::rule_tokens(rule);
    format!(
        "**rule `{}`** ({}: {})\n\nfires {}\n\n{tokens} tokens in a rules section",
        rule.id,
        rule.format.tool(),
        memory_rules::delivery::activation_label(rule),
        fires.join("; or "),
    )
}

/// What each agent keeps of the file's rules after `wave-rules export`:
/// the file it is written to, or left out, with what its form cannot say.
fn exports_text(set: &RuleSet, workdir: &std::path::Path) -> String {
    use memory_rules::delivery::export::{self, Target};
    let Ok(plan) = export::plan(set.rules(), workdir, Target::ALL) else {
        return String::new();
    };
    let mut out = String::from("\n\n**after `wave-rules export`**");
    for target in Target::ALL {
        let notes: Vec<&export::ExportNote> =
            plan.notes.iter().filter(|n| n.target == *target).collect();
        let file = plan.files.iter().find(|f| f.target == *target);
        let kept = if notes.iter().any(|n| n.skipped) {
            "left out".to_string()
        } else if let Some(f) = file {
            format!("`{}`", f.rel)
        } else {
            "native (its own file)".to_string()
        };
        out.push_str(&format!("\n- {}: {kept}", target.tool()));
        for n in notes {
            out.push_str(&format!("; {}", n.message));
        }
    }
    out
}

fn import_text(word: &str, target: &std::path::Path) -> String {
    // Bounded and never blocking (a FIFO is refused), as every rule read.
    let head: String = memory_rules::sources::read_rule_file(target)
        .map(|b| String::from_utf8_lossy(&b[..b.len().min(600)]).into_owned())
        .unwrap_or_default();
    let span = ranges::line_span(&head, 4).map_or(head.len(), |s| s.end);
    format!(
        "`{word}` imports `{}`\n\n```markdown\n{}\n```",
        target.display(),
        &head[..span]
    )
}
