//! Other agents' rule files, read with the meaning their own tool gives them.
//!
//! One module per format, each mapping one file (its id, path and text) to
//! the common rule model ([`Rule`], with an [`Activation`]) plus diagnostics
//! with line and column. They share the frontmatter reader and the glob
//! compiler of the `.wave/rules` format ([`crate::rules::parser`]); what differs is
//! each tool's keys, its activation kinds and its glob dialect:
//!
//! | format | activation |
//! |---|---|
//! | [`cursor`] | `alwaysApply`; `globs` (comma string or list); `description` only: on request; none: manual |
//! | [`copilot`] | `applyTo` (comma string; `**`/`**/*`/`*` always; else `**/`+pattern, case-insensitive) |
//! | [`windsurf`] | `trigger: always_on / glob / model_decision / manual` (Devin Desktop's `.devin/rules`, Antigravity's `.agents/rules` too) |
//! | [`kiro`] | `inclusion: always / fileMatch / manual / auto`; a comma-joined `fileMatchPattern` is ONE literal pattern |
//! | [`cline`] | no frontmatter: always; `paths` list: files in context |
//! | [`continue_`] | `alwaysApply`, `globs` (`!` negation), `regex` on file content, `description` |
//! | [`agents_md`] | `AGENTS.md` (`AGENTS.override.md`): the root always, a subdirectory's for files under it |
//! | [`gemini`] | `GEMINI.md`: the same, with `@path` imports ([`imports`]) |
//! | `claude` | `.claude/rules` as `.wave/rules`; `CLAUDE.md` / `CLAUDE.local.md` as `AGENTS.md`, with `@path` imports |
//! | [`rules_yaml`] | `.claude/rules.yaml`: a list of keyword (topic) rules |
//!
//! Ids of these formats carry the source name (`cursor:frontend.mdc`), so
//! they never collide across formats; `wave` and `claude` share one id space.

pub mod agents_md;
pub mod claude;
pub mod cline;
pub mod continue_;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod imports;
pub mod kiro;
pub mod places;
pub mod rules_yaml;
pub mod wave;
pub mod windsurf;
pub mod writer;

use crate::base::diagnostic::Diagnostic;
use crate::rules::parser::{self, ParsedRule, RuleReader, TYPO_TAIL};
use crate::rules::rule::{Activation, Rule};
use crate::rules::rule_format::Format;

pub use crate::rules::parser::Input;

/// What a file yielded: its rules (none when unusable; several for
/// `rules.yaml` and for a memory file's imports) and diagnostics.
#[derive(Debug, Default)]
pub struct Parsed {
    pub rules: Vec<ParsedRule>,
    pub diagnostics: Vec<Diagnostic>,
    /// Other files the outcome depends on (a memory file's imports, found
    /// or not): a change to one of them changes it.
    pub deps: Vec<std::path::PathBuf>,
}

/// Whether `path` is one of Claude Code's memory files (`CLAUDE.md`,
/// `CLAUDE.local.md`), read whole, rather than a `.claude/rules` rule.
pub fn is_claude_memory(path: &std::path::Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| crate::rules::rule_format::CLAUDE_MEMORY_NAMES.contains(&n))
}

/// The frontmatter keys `format` reads (an editor completes them); each
/// rule's keys for `rules.yaml`; none for the whole-file memory formats.
pub fn frontmatter_keys(format: Format) -> &'static [&'static str] {
    match format {
        Format::Wave | Format::Claude => &parser::KNOWN_KEYS,
        Format::Cursor => &cursor::KEYS,
        Format::Copilot => &copilot::KEYS,
        Format::Windsurf | Format::Antigravity => &windsurf::KEYS,
        Format::Kiro => &kiro::KEYS,
        Format::Cline => &cline::KEYS,
        Format::Continue => &continue_::KEYS,
        Format::RulesYaml => &rules_yaml::KEYS,
        Format::AgentsMd | Format::Gemini => &[],
    }
}

/// Reads one file as `format`. Never panics on any text.
pub fn parse(format: Format, input: &Input) -> Parsed {
    let mut cx = RuleReader::new(input.path);
    let rules = match format {
        Format::Claude if is_claude_memory(input.path) => {
            agents_md::parse_memory(&mut cx, input, Format::Claude)
                .into_iter()
                .collect()
        }
        Format::Gemini => agents_md::parse_memory(&mut cx, input, Format::Gemini)
            .into_iter()
            .collect(),
        Format::Wave | Format::Claude => {
            let mut o = parser::parse_rule(input.scope, input.id, input.path, input.text);
            if let Some(r) = o.rule.as_mut() {
                r.rule.format = format;
            }
            return Parsed {
                rules: o.rule.into_iter().collect(),
                diagnostics: o.diagnostics,
                deps: Vec::new(),
            };
        }
        Format::Cursor => cursor::parse(&mut cx, input).into_iter().collect(),
        Format::Copilot => copilot::parse(&mut cx, input).into_iter().collect(),
        Format::Windsurf | Format::Antigravity => windsurf::parse(&mut cx, input, format)
            .into_iter()
            .collect(),
        Format::Kiro => kiro::parse(&mut cx, input).into_iter().collect(),
        Format::Cline => cline::parse(&mut cx, input).into_iter().collect(),
        Format::Continue => continue_::parse(&mut cx, input).into_iter().collect(),
        Format::AgentsMd => agents_md::parse(&mut cx, input).into_iter().collect(),
        Format::RulesYaml => rules_yaml::parse(&mut cx, input),
    };
    // A misspelled activation key: say what the rule became without it.
    let diagnostics = match rules.as_slice() {
        [only] => cx.finish_typos(&format!(
            ", so this rule is now {} ({})",
            activation_label(&only.rule),
            only.rule.metadata.activation_kind()
        )),
        _ => cx.finish_typos(TYPO_TAIL),
    };
    Parsed {
        rules,
        diagnostics,
        deps: Vec::new(),
    }
}

/// The tool's own name for how a rule is activated ("Auto Attached",
/// "Model Decision", "inclusion: fileMatch", ...).
pub fn activation_label(rule: &Rule) -> &'static str {
    let meta = &rule.metadata;
    match rule.format {
        Format::Cursor => cursor::kind(meta),
        Format::Copilot => copilot::kind(meta),
        Format::Windsurf | Format::Antigravity => windsurf::kind(meta),
        Format::Kiro => kiro::kind(meta),
        Format::Cline => cline::kind(meta),
        Format::Continue => continue_::kind(meta),
        Format::AgentsMd => agents_md::kind(meta),
        Format::Gemini if rule.id.contains('@') => "imported by a context file (@path)",
        Format::Gemini => gemini::kind(meta),
        Format::Claude if rule.id.contains('@') => "imported by CLAUDE.md (@path)",
        Format::Claude if is_claude_memory(&rule.file_path) || rule.id.starts_with("claude:") => {
            if meta.directory.is_some() {
                "subdirectory memory file (loaded when a file under it is read)"
            } else {
                "memory file"
            }
        }
        Format::RulesYaml => "keyword rule",
        Format::Wave | Format::Claude => match (meta.paths.is_some(), meta.topics.is_some()) {
            _ if meta.activation == Activation::OnRequest => "`activation: on-request`",
            _ if meta.activation == Activation::Manual => "`activation: manual`",
            _ if meta.skills.is_some() => "`skills`",
            (false, false) => "always",
            (true, false) => "`paths`",
            (false, true) => "`topics`",
            (true, true) => "`paths` and `topics`",
        },
    }
}
