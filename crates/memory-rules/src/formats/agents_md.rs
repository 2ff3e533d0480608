//! `AGENTS.md` (source name `agents-md`: Codex, opencode, Amp, Jules, Copilot's
//! coding agent and the others that read it): plain Markdown instructions in
//! the project root and in any subdirectory. The root's file is always
//! active; a subdirectory's applies when a file under that subdirectory is in
//! context. Deeper files sort after shallower ones (closest last, so it
//! wins), as Codex orders them.
//!
//! As Codex reads them (openai/codex, `codex-rs/core/src/project_doc.rs`
//! and its docs, `docs/agents_md.md`, Apache-2.0): in each directory
//! `AGENTS.override.md` is read instead of `AGENTS.md` (at most one file per
//! directory); the user's `~/.codex/AGENTS.md` applies to every project;
//! project docs past 32 KiB in total are cut (`project_doc_max_bytes`), which
//! `validate` says of a single file over it. `CLAUDE.md` is Claude Code's
//! (the `claude` source) and `GEMINI.md` Gemini CLI's (`gemini`); the same
//! file reached under several names is one rule (see `discover`).
//!
//! [`parse_memory`] reads every such whole-file memory format: this one,
//! `CLAUDE.md` and `GEMINI.md`.

use super::writer::{Caps, Resolved, Target, TargetActivation, WrittenRule};
use crate::base::diagnostic::{Code, Severity};
use crate::rules::parser::{Input, ParsedRule, RuleReader};
use crate::rules::rule::{Activation, Metadata, Rule};
use crate::rules::rule_format::Format;

use crate::base::limits::CODEX_DOC_MAX_BYTES;

/// The name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    if meta.directory.is_some() {
        "subdirectory file"
    } else {
        "project root file"
    }
}

pub(crate) fn parse<'a>(cx: &mut RuleReader<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    if input.text.len() > CODEX_DOC_MAX_BYTES {
        cx.report(
            Severity::Warning,
            Code::Limit,
            Some((1, 1)),
            format!(
                "this file is {} bytes; Codex reads at most {CODEX_DOC_MAX_BYTES} bytes of AGENTS.md files in all (project_doc_max_bytes), so it cuts the rest; split it into nested AGENTS.md files",
                input.text.len()
            ),
        );
    }
    parse_memory(cx, input, Format::AgentsMd)
}

/// A whole-file memory format (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`): the
/// file is the instruction; a leading frontmatter block (rare) is read for
/// its syntax only, so a broken one is still reported; a file in a
/// subdirectory applies to the files under it.
pub(crate) fn parse_memory<'a>(
    cx: &mut RuleReader<'a>,
    input: &Input<'a>,
    format: Format,
) -> Option<ParsedRule> {
    let body = match cx.frontmatter(input.text) {
        Some(fm) => fm.body,
        None => input.text,
    };
    let mut meta = Metadata::default();
    let mut patterns = Vec::new();
    if let Some(dir) = input.directory.filter(|d| !d.is_empty()) {
        let written = vec!["**".to_string()];
        let (matched, p) =
            cx.format_patterns("directory", &written, Some(dir), false, str::to_string);
        meta.paths = Some(matched);
        patterns = p;
    }
    crate::rules::parser::rule(cx, input, format, body, meta, patterns)
}

/// How a rule goes into `AGENTS.md`-style files (read always, or for the
/// files under their directory): an always-on rule into the root file, a
/// rule whose only paths are `DIR/**` into `DIR/AGENTS.md`; anything else
/// cannot be expressed ([`skip_reason`]).
pub(crate) fn resolve<'a>(rule: &'a Rule, stem: &str, target: Target) -> Option<Resolved<'a>> {
    let caps = Caps {
        paths: false,
        exclusions: false,
        on_request: false,
        manual: false,
        regex: false,
        on_request_paths: false,
    };
    // An enforced rule with only `commands` is written as text, read always.
    let meta = &rule.metadata;
    let commands_only = meta.enforced_commands().is_some()
        && meta.activation == Activation::Auto
        && meta.paths.is_none()
        && meta.topics.is_none()
        && meta.regex.is_none()
        && meta.skills.is_none();
    if meta.is_unconditional() || commands_only {
        return super::writer::resolve(rule, caps, stem.to_string(), target.tool());
    }
    let dir = directory_rule(rule)?;
    let mut r = super::writer::resolve(
        rule,
        Caps {
            paths: true,
            ..caps
        },
        stem.to_string(),
        target.tool(),
    )?;
    r.include = vec![format!("{dir}/**")];
    Some(r)
}

/// The directory of a rule whose only trigger is `DIR/**` (no glob
/// characters in `DIR`).
fn directory_rule(rule: &Rule) -> Option<&str> {
    let meta = &rule.metadata;
    if meta.activation != Activation::Auto || meta.topics.is_some() || meta.regex.is_some() {
        return None;
    }
    match meta.paths.as_deref() {
        Some([one]) => {
            let dir = one.strip_suffix("/**")?;
            let plain = !dir.is_empty()
                && !dir.starts_with('!')
                && !dir.contains(['*', '?', '[', '{', ']', '}', '!'])
                && !dir.split('/').any(|s| s.is_empty() || s.starts_with('.'));
            plain.then_some(dir)
        }
        _ => None,
    }
}

/// Why an `AGENTS.md`-style target leaves a rule out.
pub(crate) fn skip_reason(rule: &Rule, target: Target) -> Option<String> {
    let meta = &rule.metadata;
    let name = target.combined_name().unwrap_or("AGENTS.md");
    let what = match meta.activation {
        Activation::Manual => "manual rules".to_string(),
        Activation::OnRequest => "on-request rules".to_string(),
        Activation::Auto if meta.topics.is_some() => "topics".to_string(),
        Activation::Auto if meta.paths.is_some() => {
            format!("paths in a file that is always read (only DIR/** goes to DIR/{name})")
        }
        Activation::Auto if meta.regex.is_some() => "regex".to_string(),
        Activation::Auto => return None,
    };
    Some(format!(
        "{} cannot express {what}; left out rather than made always-on",
        target.tool()
    ))
}

/// The combined file the rule goes into: the root's, or its directory's.
pub(crate) fn write(r: &mut Resolved, target: Target) -> WrittenRule {
    let name = target.combined_name().unwrap_or("AGENTS.md");
    match (&r.kind, r.include.first()) {
        (TargetActivation::Paths, Some(p)) => WrittenRule::Section {
            rel: format!("{}/{name}", p.trim_end_matches("/**")),
        },
        _ => WrittenRule::Section {
            rel: name.to_string(),
        },
    }
}
