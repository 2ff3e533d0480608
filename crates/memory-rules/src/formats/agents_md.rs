//! `AGENTS.md` and `CLAUDE.md` (source name `agents-md`): plain Markdown
//! instructions in the project root and in any subdirectory. The root's
//! file is always active; a subdirectory's applies when a file under that
//! subdirectory is in context. Deeper files sort after shallower ones
//! (closest last, so it wins), as Codex and Claude Code order them.

use super::write::{Caps, Kind, Resolved, Target, Written};
use crate::format::Format;
use crate::parse::{Context, Input, ParsedRule};
use crate::rule::{Activation, Metadata, Rule};

/// The file names read, in this order within one directory.
pub use crate::format::AGENTS_MD_FILE_NAMES as FILE_NAMES;

/// The name for how a rule is activated.
pub fn kind(meta: &Metadata) -> &'static str {
    if meta.directory.is_some() {
        "subdirectory file"
    } else {
        "project root file"
    }
}

pub(crate) fn parse<'a>(cx: &mut Context<'a>, input: &Input<'a>) -> Option<ParsedRule> {
    // The whole file is the instruction; a leading frontmatter block (rare)
    // is read for its syntax only, so a broken one is still reported.
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
    crate::parse::rule(cx, input, Format::AgentsMd, body, meta, patterns)
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
        return super::write::resolve(rule, caps, stem.to_string(), target.tool());
    }
    let dir = directory_rule(rule)?;
    let mut r = super::write::resolve(
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
    let what = match meta.activation {
        Activation::Manual => "manual rules",
        Activation::OnRequest => "on-request rules",
        Activation::Auto if meta.topics.is_some() => "topics",
        Activation::Auto if meta.paths.is_some() => {
            "paths in a file that is always read (only DIR/** goes to DIR/AGENTS.md)"
        }
        Activation::Auto if meta.regex.is_some() => "regex",
        Activation::Auto => return None,
    };
    Some(format!(
        "{} cannot express {what}; left out rather than made always-on",
        target.tool()
    ))
}

/// The combined file the rule goes into: the root's, or its directory's.
pub(crate) fn write(r: &mut Resolved, target: Target) -> Written {
    let name = target.combined_name().unwrap_or("AGENTS.md");
    match (&r.kind, r.include.first()) {
        (Kind::Paths, Some(p)) => Written::Section {
            rel: format!("{}/{name}", p.trim_end_matches("/**")),
        },
        _ => Written::Section {
            rel: name.to_string(),
        },
    }
}
