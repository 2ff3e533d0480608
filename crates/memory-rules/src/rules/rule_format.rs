//! The rule file formats: which tool's files a source holds, and every rule
//! about those files that needs no parsing: their names, which files are
//! rule files, where each tool keeps them, how their ids are formed, the key
//! that holds their globs. Each format's reader is a module of
//! [`crate::formats`]; a new format is one more [`Format`] variant here and
//! one more reader there.

use crate::rules::scope::Scope;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// The file names the `agents-md` format reads in a directory: Codex reads
/// `AGENTS.override.md` instead of `AGENTS.md` when both are there.
pub const AGENTS_MD_FILE_NAMES: [&str; 2] = ["AGENTS.override.md", "AGENTS.md"];

/// Claude Code's memory files in the project and its subdirectories
/// (`CLAUDE.local.md` is the personal, git-ignored one).
pub const CLAUDE_MEMORY_NAMES: [&str; 2] = ["CLAUDE.md", "CLAUDE.local.md"];

/// The subfolders of `.clinerules` Cline does not read as rules, with what
/// they are to Cline (Cline's loader, `cline-rules.ts`:
/// [`crate::formats::cline`]).
pub const CLINE_NOT_RULES: [(&str, &str); 3] = [
    (
        "workflows",
        "Cline's workflows, run as slash commands (/name.md), not rules",
    ),
    ("hooks", "Cline's hook scripts, not rules"),
    ("skills", "Cline's skills, loaded when invoked, not rules"),
];

/// Gemini CLI's default context file name (`context.fileName` may name
/// others: [`crate::formats::gemini`]).
pub const GEMINI_FILE_NAME: &str = "GEMINI.md";

/// Windsurf's new name, Devin Desktop's: a second name of the `windsurf`
/// source and its own export target (`.devin/rules`).
pub const DEVIN_NAME: &str = "devin";

/// Antigravity's rules folder, and the older one it reads when that one is
/// absent ("it will first look for the plural version, then if it does not
/// exist, it will look for the singular version": discuss.ai.google.dev
/// t/126165, confirmed there by Google staff for 1.19.5).
pub const ANTIGRAVITY_RULES: &str = ".agents/rules";
pub const ANTIGRAVITY_OLD_RULES: &str = ".agent/rules";

/// Copilot's file that always applies (`.github/copilot-instructions.md`).
pub const COPILOT_REPOSITORY_FILE: &str = "copilot-instructions.md";

/// How a source's files are found and read: the tool whose meaning a file
/// is read with. Each format's parser is a module of [`crate::formats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Markdown with YAML frontmatter (`paths`, `topics`, `priority`,
    /// `description`, `remind`): `.wave/rules`.
    Wave,
    /// `.claude/rules/**/*.md`: Claude Code's `paths` rules, the same model
    /// as Wave (and the same id space); and Claude Code's memory files,
    /// `CLAUDE.md` / `CLAUDE.local.md` in the project and its subdirectories,
    /// `.claude/CLAUDE.md`, `~/.claude/CLAUDE.md` (ids `claude:...`), with
    /// their `@path` imports.
    Claude,
    /// `.cursor/rules/**/*.mdc` (and nested `.cursor/rules` directories), and
    /// the legacy `.cursorrules` file (always applied).
    Cursor,
    /// `.github/copilot-instructions.md`, `.github/instructions/**/*.instructions.md`.
    Copilot,
    /// Windsurf, now Devin Desktop (source name `windsurf`, or `devin`):
    /// `.devin/rules/*.md`, `.windsurf/rules/*.md` (its fallback), and the
    /// legacy `.windsurfrules` file (always on).
    Windsurf,
    /// Antigravity (Gemini CLI's successor for individuals): `.agents/rules/*.md`
    /// (`.agent/rules/`, the older folder, only when `.agents/rules` is not
    /// there), read as Windsurf's (`trigger`, `globs`, `description`).
    Antigravity,
    /// `.kiro/steering/*.md`.
    Kiro,
    /// `.clinerules/` (`.md`, `.txt`) or a `.clinerules` file.
    Cline,
    /// `.continue/rules/*.md`.
    Continue,
    /// `AGENTS.md` (`AGENTS.override.md`) in the project root and
    /// subdirectories, and the user's `~/.codex/AGENTS.md`.
    AgentsMd,
    /// `GEMINI.md` (or Gemini CLI's `context.fileName`) in the project root
    /// and subdirectories, and `~/.gemini/GEMINI.md`; `@path` imports.
    Gemini,
    /// `.claude/rules.yaml`: keyword rules.
    RulesYaml,
}

impl Format {
    /// Every format, in the order named sources are read.
    pub const ALL: &'static [Format] = &[
        Format::AgentsMd,
        Format::Gemini,
        Format::Cursor,
        Format::Copilot,
        Format::Windsurf,
        Format::Antigravity,
        Format::Kiro,
        Format::Cline,
        Format::Continue,
        Format::RulesYaml,
        Format::Claude,
        Format::Wave,
    ];

    /// The name used by the CLI and the binding (`--sources`, `sources`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Wave => "wave",
            Format::Claude => "claude",
            Format::Cursor => "cursor",
            Format::Copilot => "copilot",
            Format::Windsurf => "windsurf",
            Format::Antigravity => "antigravity",
            Format::Kiro => "kiro",
            Format::Cline => "cline",
            Format::Continue => "continue",
            Format::AgentsMd => "agents-md",
            Format::Gemini => "gemini",
            Format::RulesYaml => "rules-yaml",
        }
    }

    /// The format named `name`; `devin` is Windsurf's new name (Devin
    /// Desktop reads the same files), so it names the `windsurf` format.
    pub fn parse(name: &str) -> Option<Format> {
        match name.trim() {
            DEVIN_NAME => Some(Format::Windsurf),
            name => Format::ALL.iter().copied().find(|f| f.as_str() == name),
        }
    }

    /// The folder read only when `dir` (a default source of this format)
    /// is not there: Antigravity reads `.agent/rules` when `.agents/rules`
    /// is absent, and only then.
    pub fn fallback_for(self, dir: &Path) -> Option<std::path::PathBuf> {
        let parent = dir.parent()?;
        match self {
            Format::Antigravity if dir.ends_with(ANTIGRAVITY_OLD_RULES) => {
                Some(parent.parent()?.join(ANTIGRAVITY_RULES))
            }
            _ => None,
        }
    }

    /// The depth a source of this format gets when none is given: one level
    /// for `.wave/rules`, none for the tools that read one flat directory,
    /// any for the others.
    pub fn default_depth(self) -> Option<usize> {
        match self {
            Format::Wave => Some(1),
            Format::Windsurf | Format::Antigravity | Format::RulesYaml => Some(0),
            _ => None,
        }
    }

    /// Whether a file found under a source of this format is a rule file.
    pub fn is_rule_file(self, path: &Path) -> bool {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let ext = |e: &str| path.extension().is_some_and(|x| x == e);
        match self {
            Format::Wave
            | Format::Claude
            | Format::Kiro
            | Format::Continue
            | Format::Antigravity => ext("md"),
            Format::Cursor => ext("mdc") || name == ".cursorrules",
            Format::Windsurf => ext("md") || name == ".windsurfrules",
            // `copilot-instructions.md` only as the repository (or Copilot
            // CLI's user) file: inside `.github/instructions` Copilot reads
            // only `NAME.instructions.md`.
            Format::Copilot => {
                name.ends_with(".instructions.md")
                    || name == COPILOT_REPOSITORY_FILE && is_copilot_home(path)
            }
            Format::Cline => ext("md") || ext("markdown") || ext("txt") || name == ".clinerules",
            Format::AgentsMd => AGENTS_MD_FILE_NAMES.contains(&name.as_ref()),
            Format::Gemini => ext("md"),
            Format::RulesYaml => name == "rules.yaml" || name == "rules.yml",
        }
    }

    /// Why a directory directly below a root of this format holds no rules,
    /// as the tool reads it (Cline's `workflows`, `hooks`, `skills`).
    pub fn not_rules(self, dir_name: &str) -> Option<&'static str> {
        match self {
            Format::Cline => CLINE_NOT_RULES
                .iter()
                .find(|(n, _)| *n == dir_name)
                .map(|(_, why)| *why),
            _ => None,
        }
    }

    /// Whether the tool skips symlinks in its rules folder (Cline's listing
    /// keeps only `isFile()` entries, which a link is not).
    pub fn skips_links(self) -> bool {
        self == Format::Cline
    }

    /// The format a rule file's path suggests, for `validate FILE` outside
    /// every configured source.
    pub fn guess(path: &Path) -> Format {
        let p = path.to_string_lossy().replace('\\', "/");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.contains(".cursor/rules/") || name.ends_with(".mdc") || name == ".cursorrules" {
            Format::Cursor
        } else if name.ends_with(".instructions.md") || name == COPILOT_REPOSITORY_FILE {
            Format::Copilot
        } else if p.contains(".windsurf/rules/")
            || p.contains(".devin/rules/")
            || name == ".windsurfrules"
        {
            Format::Windsurf
        } else if p.contains(".agents/rules/") || p.contains(".agent/rules/") {
            Format::Antigravity
        } else if p.contains(".kiro/steering/") {
            Format::Kiro
        } else if p.contains(".clinerules") {
            Format::Cline
        } else if p.contains(".continue/rules/") {
            Format::Continue
        } else if Format::AgentsMd.is_rule_file(path) {
            Format::AgentsMd
        } else if name == GEMINI_FILE_NAME {
            Format::Gemini
        } else if CLAUDE_MEMORY_NAMES.contains(&name.as_str()) {
            Format::Claude
        } else if Format::RulesYaml.is_rule_file(path) {
            Format::RulesYaml
        } else if p.contains(".claude/rules/") {
            Format::Claude
        } else {
            Format::Wave
        }
    }

    /// The default sources of this format: `(path relative to the base,
    /// scope)`, user ones first. `.` is the project itself, searched at any
    /// depth by one walk ([`crate::sources::nested`]): for `AGENTS.md`
    /// (`agents-md`), `CLAUDE.md` (`claude`), `GEMINI.md` (`gemini`) and
    /// nested `.cursor/rules` directories (`cursor`).
    pub fn default_locations(self) -> &'static [(&'static str, Scope)] {
        match self {
            Format::Wave => &[
                (".wave/rules", Scope::User),
                (".wave/rules", Scope::Project),
            ],
            // The memory files (always on) when `claude` is named; the
            // agent SDK's own sources ([`crate::sources::source::Config::default_sources`])
            // stay the rules directories.
            Format::Claude => &[
                (".claude/CLAUDE.md", Scope::User),
                (".claude/rules", Scope::User),
                (".", Scope::Project),
                (".claude/CLAUDE.md", Scope::Project),
                (".claude/rules", Scope::Project),
            ],
            Format::Cursor => &[
                (".cursorrules", Scope::Project),
                (".", Scope::Project),
                (".cursor/rules", Scope::Project),
            ],
            Format::Copilot => &[
                // Copilot CLI's user file.
                (".copilot/copilot-instructions.md", Scope::User),
                (".github/copilot-instructions.md", Scope::Project),
                (".github/instructions", Scope::Project),
            ],
            // `.devin/rules` is the renamed folder; `.windsurf/rules` is
            // still read (a rule of the same name there is overridden).
            Format::Windsurf => &[
                (".codeium/windsurf/memories/global_rules.md", Scope::User),
                (".windsurfrules", Scope::Project),
                (".windsurf/rules", Scope::Project),
                (".devin/rules", Scope::Project),
            ],
            // The older `.agent/rules` first: read only when `.agents/rules`
            // is absent ([`Format::fallback_for`]).
            Format::Antigravity => &[
                (ANTIGRAVITY_OLD_RULES, Scope::Project),
                (ANTIGRAVITY_RULES, Scope::Project),
            ],
            Format::Kiro => &[
                (".kiro/steering", Scope::User),
                (".kiro/steering", Scope::Project),
            ],
            // `.cline/rules` beside `.clinerules`: "Workspace rules go in
            // .clinerules/ or .cline/rules/" (docs.cline.bot, Rules), and
            // `~/.cline/rules` (cline/cline `sdk/packages/shared/src/storage/
            // paths.ts`, `resolveRulesConfigSearchPaths`).
            Format::Cline => &[
                ("Documents/Cline/Rules", Scope::User),
                (".cline/rules", Scope::User),
                (".agents/AGENTS.md", Scope::User),
                (".clinerules", Scope::Project),
                (".cline/rules", Scope::Project),
            ],
            Format::Continue => &[(".continue/rules", Scope::Project)],
            // Codex's and opencode's user files.
            Format::AgentsMd => &[
                (".codex/AGENTS.md", Scope::User),
                (".config/opencode/AGENTS.md", Scope::User),
                (".", Scope::Project),
            ],
            Format::Gemini => &[(".gemini/GEMINI.md", Scope::User), (".", Scope::Project)],
            Format::RulesYaml => &[
                (".claude/rules.yaml", Scope::User),
                (".claude/rules.yaml", Scope::Project),
            ],
        }
    }

    /// The tool's name, for explanations.
    pub fn tool(self) -> &'static str {
        match self {
            Format::Wave => "Wave",
            Format::Claude => "Claude Code",
            Format::Cursor => "Cursor",
            Format::Copilot => "Copilot",
            Format::Windsurf => "Windsurf",
            Format::Antigravity => "Antigravity",
            Format::Kiro => "Kiro",
            Format::Cline => "Cline",
            Format::Continue => "Continue",
            Format::AgentsMd => "AGENTS.md",
            Format::Gemini => "Gemini CLI",
            Format::RulesYaml => "rules.yaml",
        }
    }

    /// The key that holds this format's globs.
    pub fn glob_key(self) -> &'static str {
        match self {
            Format::Cursor | Format::Windsurf | Format::Antigravity | Format::Continue => "globs",
            Format::Copilot => "applyTo",
            Format::Kiro => "fileMatchPattern",
            Format::AgentsMd | Format::Gemini => "directory",
            Format::Wave | Format::Claude | Format::Cline | Format::RulesYaml => "paths",
        }
    }

    /// Whether the format's globs match case-insensitively (VS Code reads
    /// Copilot's `applyTo` so).
    pub fn case_insensitive_globs(self) -> bool {
        self == Format::Copilot
    }

    /// Whether ids carry the source name (`cursor:x.mdc`). `wave` and
    /// `claude` share one id space, as the agent SDK reads them.
    pub fn qualifies_ids(self) -> bool {
        !matches!(self, Format::Wave | Format::Claude)
    }

    /// The id of a file (path relative to its source root, `/`-separated).
    pub fn id(self, rel: &str) -> String {
        if self.qualifies_ids() {
            format!("{}:{rel}", self.as_str())
        } else {
            rel.to_string()
        }
    }

    /// What to write in this format for "apply when files match".
    pub(crate) fn glob_advice(self) -> &'static str {
        match self {
            Format::Cursor | Format::Continue => "write 'globs'",
            Format::Windsurf | Format::Antigravity => "write 'trigger: glob' with 'globs'",
            Format::Kiro => "write 'inclusion: fileMatch' with 'fileMatchPattern'",
            Format::Copilot => "write 'applyTo'",
            Format::Cline => "write 'paths' (a list)",
            _ => "write 'paths'",
        }
    }

    /// What to write in this format for "always apply".
    pub(crate) fn always_advice(self) -> &'static str {
        match self {
            Format::Cursor | Format::Continue => "write 'alwaysApply: true'",
            Format::Windsurf | Format::Antigravity => "write 'trigger: always_on'",
            Format::Kiro => "write 'inclusion: always' (the default)",
            Format::Copilot => "write applyTo: \"**\"",
            Format::Cline => "remove it; a rule without 'paths' is always active",
            _ => "remove it; a rule without 'paths' or 'topics' is always active",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parses source names (`cursor`, `agents-md`, ...; `all` for every format)
/// into formats, in [`Format::ALL`] order without repeats.
pub fn formats_named<S: AsRef<str>>(names: &[S]) -> Result<Vec<Format>, String> {
    let mut wanted = Vec::new();
    for name in names {
        let name = name.as_ref().trim();
        if name.is_empty() {
            continue;
        }
        if name == "all" {
            wanted.extend_from_slice(Format::ALL);
            continue;
        }
        match Format::parse(name) {
            Some(f) => wanted.push(f),
            None => {
                let known: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
                let hint = crate::base::suggest::closest(
                    name,
                    known.iter().copied().chain([DEVIN_NAME, "all"]),
                )
                .map(|c| format!(" (did you mean '{c}'?)"))
                .unwrap_or_default();
                return Err(format!(
                    "unknown source '{name}'{hint}; the sources are: {}, {DEVIN_NAME} (windsurf), or all",
                    known.join(", ")
                ));
            }
        }
    }
    if wanted.is_empty() {
        return Err("no source named; give one or more of the source names, or all".to_string());
    }
    Ok(Format::ALL
        .iter()
        .copied()
        .filter(|f| wanted.contains(f))
        .collect())
}

/// Whether `path` (a `copilot-instructions.md`) is where Copilot reads it:
/// in `.github` (the repository file) or `.copilot` (Copilot CLI's user
/// file), not inside `.github/instructions`.
fn is_copilot_home(path: &Path) -> bool {
    path.parent()
        .and_then(|p| p.file_name())
        .is_some_and(|d| d == ".github" || d == ".copilot")
}
