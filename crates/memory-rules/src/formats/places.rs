//! Near misses: a file or folder a tool would read if it were named or
//! placed slightly differently. Each gets a `misplaced` warning saying what
//! to move where, for the formats a discovery reads. (A nested file named
//! one slip from `AGENTS.md`, `CLAUDE.md` or `GEMINI.md` is found by the
//! project walk instead: [`super::nested`].)
//!
//! Looked at: the project root's entries and those of the tools' folders
//! there, one listing each, only for the formats asked for.
//!
//! | tool | near miss | what the tool reads (its docs) |
//! |---|---|---|
//! | Copilot | `.github/copilot-instructions/`, `.github/copilot-instruction.md`, `./copilot-instructions.md`, `.github/instructions/x.md` | `.github/copilot-instructions.md`; `.github/instructions/**/NAME.instructions.md` |
//! | Windsurf | `.devin/rules` or `.windsurf/rules` as a file, `.windsurf/rule/`, `.windsurfrules/` | `.windsurf/rules/*.md`, `.devin/rules/*.md`, a `.windsurfrules` file |
//! | Antigravity | `.agents/rules` as a file (a link committed as text, seen in public repositories), `.agents/rule/` | `.agents/rules/*.md` (`.agent/rules/` when it is absent) |
//! | Cursor | `.cursor/rules.mdc`, `.cursor/rule/`, `.cursorrules/`, `.cursor/rules/x.md` | `.cursor/rules/**/*.mdc` ("a plain .md file is ignored"), a `.cursorrules` file |
//! | Claude Code | `.claude/rule/`, `.claude/rules.md` | `.claude/rules/**/*.md` |
//! | Kiro | `.kiro/steerings/`, `.kiro/rules/` | `.kiro/steering/*.md` |
//! | Cline | `.clinerules/x.mdc`, `.clinerule` | `.clinerules/` (`.md`, `.txt`), a `.clinerules` file |
//! | Continue | `.continue/rule/` | `.continue/rules/*.md` |
//! | Gemini CLI | `.gemini/GEMINI.md` in a project | `GEMINI.md` in the project's folders, `~/.gemini/GEMINI.md` |

use crate::base::diagnostic::{Code, Diagnostic, Fix, Severity};
use crate::rules::rule_format::Format;
use std::path::Path;

/// What an entry must be for a near miss.
#[derive(Clone, Copy)]
enum EntryType {
    Folder,
    /// Anything but a folder.
    NotFolder,
    Any,
}

/// A name a tool does not read where a user may expect it to: an entry
/// of `folder` (a folder of the project root; `""`: the root itself) named
/// one of `names`.
struct NearMiss {
    format: Format,
    folder: &'static str,
    names: &'static [&'static str],
    entry: EntryType,
    /// The warning; `{name}` stands for the entry's name.
    message: &'static str,
    /// Where the entry goes (from the project root) when one rename does
    /// it: the diagnostic's fix.
    to: Option<&'static str>,
}

/// The near misses that are a name alone, by format in the order they are
/// looked at. Those that need a test of their own (a prefix, a file
/// extension, a folder searched) are [`near_misses_by_rule`].
const NEAR_MISSES: &[NearMiss] = &[
    NearMiss {
        format: Format::Copilot,
        folder: "",
        names: &["copilot-instructions.md"],
        entry: EntryType::NotFolder,
        message: "Copilot reads copilot-instructions.md only in .github/; move it to .github/copilot-instructions.md",
        to: Some(".github/copilot-instructions.md"),
    },
    NearMiss {
        format: Format::Windsurf,
        folder: ".devin",
        names: &["rules"],
        entry: EntryType::NotFolder,
        message: "Windsurf reads .devin/rules as a folder of .md rules, and this is a file, so it is not read; move it to .devin/rules/rules.md (with a 'trigger')",
        to: None,
    },
    NearMiss {
        format: Format::Windsurf,
        folder: ".devin",
        names: &["rule"],
        entry: EntryType::Folder,
        message: "Windsurf reads .devin/rules/, not .devin/rule/; rename the folder",
        to: Some(".devin/rules"),
    },
    NearMiss {
        format: Format::Windsurf,
        folder: ".windsurf",
        names: &["rules"],
        entry: EntryType::NotFolder,
        message: "Windsurf reads .windsurf/rules as a folder of .md rules, and this is a file, so it is not read; move it to .windsurf/rules/rules.md (with a 'trigger')",
        to: None,
    },
    NearMiss {
        format: Format::Windsurf,
        folder: ".windsurf",
        names: &["rule"],
        entry: EntryType::Folder,
        message: "Windsurf reads .windsurf/rules/, not .windsurf/rule/; rename the folder",
        to: Some(".windsurf/rules"),
    },
    NearMiss {
        format: Format::Antigravity,
        folder: ".agents",
        names: &["rules"],
        entry: EntryType::NotFolder,
        message: "Antigravity reads .agents/rules as a folder of .md rules, and this is a file (a link committed as text, or a link to nothing?), so it is not read; make it a folder of .md rules (with a 'trigger')",
        to: None,
    },
    NearMiss {
        format: Format::Antigravity,
        folder: ".agents",
        names: &["rule"],
        entry: EntryType::Folder,
        message: "Antigravity reads .agents/rules/, not .agents/rule/; rename the folder",
        to: Some(".agents/rules"),
    },
    NearMiss {
        format: Format::Windsurf,
        folder: "",
        names: &[".windsurfrules"],
        entry: EntryType::Folder,
        message: "Windsurf reads .windsurfrules as one file, and this is a folder; move its files to .windsurf/rules/",
        to: None,
    },
    NearMiss {
        format: Format::Cursor,
        folder: ".cursor",
        names: &["rule", "Rules"],
        entry: EntryType::Folder,
        message: "Cursor reads .cursor/rules/, not this folder; rename it to .cursor/rules",
        to: Some(".cursor/rules"),
    },
    NearMiss {
        format: Format::Cursor,
        folder: ".cursor",
        names: &["rules.mdc", "rules.md", "rules"],
        entry: EntryType::NotFolder,
        message: "Cursor reads the folder .cursor/rules/, not a file of this name; move it to .cursor/rules/rules.mdc",
        to: Some(".cursor/rules/rules.mdc"),
    },
    NearMiss {
        format: Format::Cursor,
        folder: "",
        names: &[".cursorrules"],
        entry: EntryType::Folder,
        message: "Cursor reads .cursorrules as one file, and this is a folder; move its files to .cursor/rules/ as .mdc files",
        to: None,
    },
    NearMiss {
        format: Format::Claude,
        folder: ".claude",
        names: &["rule"],
        entry: EntryType::Folder,
        message: "Claude Code reads .claude/rules/, not .claude/rule/; rename the folder",
        to: Some(".claude/rules"),
    },
    NearMiss {
        format: Format::Claude,
        folder: ".claude",
        names: &["rules.md"],
        entry: EntryType::NotFolder,
        message: "Claude Code reads the folder .claude/rules/ (and .claude/CLAUDE.md), not .claude/rules.md; move it to .claude/rules/ or .claude/CLAUDE.md",
        to: None,
    },
    NearMiss {
        format: Format::Kiro,
        folder: ".kiro",
        names: &["steerings", "rules", "Steering"],
        entry: EntryType::Folder,
        message: "Kiro reads .kiro/steering/, not .kiro/{name}/; move its files there",
        to: Some(".kiro/steering"),
    },
    NearMiss {
        format: Format::Cline,
        folder: "",
        names: &[".clinerule", ".clinerules.md", ".cline-rules"],
        entry: EntryType::Any,
        message: "Cline reads .clinerules (a file or a folder), not '{name}'; rename it",
        to: Some(".clinerules"),
    },
    NearMiss {
        format: Format::Continue,
        folder: ".continue",
        names: &["rule"],
        entry: EntryType::Folder,
        message: "Continue reads .continue/rules/, not .continue/rule/; rename the folder",
        to: Some(".continue/rules"),
    },
];

/// The formats with near misses, in the order they are looked at.
const LOOKED_AT: [Format; 9] = [
    Format::Copilot,
    Format::Windsurf,
    Format::Antigravity,
    Format::Cursor,
    Format::Claude,
    Format::Kiro,
    Format::Cline,
    Format::Continue,
    Format::Gemini,
];

impl NearMiss {
    /// Whether an entry named `name` (a folder or not; `None`: absent) is
    /// this near miss.
    fn is(&self, name: &str, is_dir: Option<bool>) -> bool {
        let fits = match self.entry {
            EntryType::Folder => is_dir == Some(true),
            EntryType::NotFolder => is_dir == Some(false),
            EntryType::Any => is_dir.is_some(),
        };
        fits && self.names.contains(&name)
    }

    fn warning(&self, path: &Path, name: &str, workdir: &Path) -> Diagnostic {
        let d = misplaced(path, self.message.replace("{name}", name));
        match self.to {
            Some(to) => moved(d, &workdir.join(to), to),
            None => d,
        }
    }
}

fn misplaced(path: &Path, message: String) -> Diagnostic {
    Diagnostic::new(Severity::Warning, Code::Misplaced, path, message)
}

/// The diagnostic with its fix: the entry renamed to `to` (`shown` as the
/// user reads it).
fn moved(d: Diagnostic, to: &Path, shown: &str) -> Diagnostic {
    d.with_fix(Fix::Move {
        title: format!("move to {shown}"),
        to: to.to_string_lossy().into_owned(),
    })
}

/// The entries of a folder, by name, each with whether it is a folder.
type Listing = Vec<(String, bool)>;

fn names_in(dir: &Path) -> Listing {
    let mut out: Listing = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let is_dir = std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir());
            (e.file_name().to_string_lossy().into_owned(), is_dir)
        })
        .collect();
    out.sort();
    out
}

/// Whether the entry `name` of a listing is a folder (`None`: absent).
fn is_dir_in(listing: &Listing, name: &str) -> Option<bool> {
    listing.iter().find(|(x, _)| x == name).map(|(_, d)| *d)
}

/// The near misses of the project at `workdir` for the `formats` read.
pub fn near_misses(workdir: &Path, formats: &[Format]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let root = names_in(workdir);
    for format in LOOKED_AT.into_iter().filter(|f| formats.contains(f)) {
        let rows: Vec<&NearMiss> = NEAR_MISSES.iter().filter(|m| m.format == format).collect();
        // The tool's folders first, each listed once.
        let mut folders: Vec<&str> = rows.iter().map(|m| m.folder).collect();
        folders.retain(|f| !f.is_empty() && is_dir_in(&root, f) == Some(true));
        folders.dedup();
        for folder in folders {
            let dir = workdir.join(folder);
            for (n, is_dir) in names_in(&dir) {
                let row = rows
                    .iter()
                    .find(|m| m.folder == folder && m.is(&n, Some(is_dir)));
                if let Some(m) = row {
                    out.push(m.warning(&dir.join(&n), &n, workdir));
                }
            }
        }
        near_misses_by_rule(format, workdir, &root, &mut out);
        // Then the project root's own entries.
        for m in rows.iter().filter(|m| m.folder.is_empty()) {
            for n in m.names {
                if m.is(n, is_dir_in(&root, n)) {
                    out.push(m.warning(&workdir.join(n), n, workdir));
                }
            }
        }
    }
    out
}

/// The near misses of `format` that a name alone does not tell.
fn near_misses_by_rule(format: Format, workdir: &Path, root: &Listing, out: &mut Vec<Diagnostic>) {
    match format {
        Format::Copilot if is_dir_in(root, ".github") == Some(true) => {
            copilot_slips(&workdir.join(".github"), out);
            copilot_instruction_names(&workdir.join(".github").join("instructions"), out);
        }
        Format::Cursor if is_dir_in(root, ".cursor") == Some(true) => {
            let rules = workdir.join(".cursor").join("rules");
            for (n, is_dir) in names_in(&rules) {
                if !is_dir && n.ends_with(".md") && n != "README.md" {
                    let stem = n.trim_end_matches(".md");
                    out.push(moved(misplaced(&rules.join(&n), format!("Cursor reads .mdc files in .cursor/rules (its docs: a plain .md file is ignored), so '{n}' is not read; rename it to {stem}.mdc")), &rules.join(format!("{stem}.mdc")), &format!("{stem}.mdc")));
                }
            }
        }
        Format::Cline if is_dir_in(root, ".clinerules") == Some(true) => {
            let c = workdir.join(".clinerules");
            for (n, is_dir) in names_in(&c) {
                if !is_dir && n.ends_with(".mdc") {
                    let stem = n.trim_end_matches(".mdc");
                    out.push(misplaced(&c.join(&n), format!("Cline 4 reads only .md, .markdown and .txt here (Cline 3 reads this as always-on text, its 'globs' ignored), so '{n}' is not read; rename it to {stem}.md and write 'paths' for its globs")));
                }
            }
        }
        Format::Gemini if workdir.join(".gemini").join("GEMINI.md").is_file() => {
            out.push(moved(misplaced(&workdir.join(".gemini/GEMINI.md"), "Gemini CLI reads GEMINI.md in the project's folders (and ~/.gemini/GEMINI.md), not in a project's .gemini/; move it to ./GEMINI.md".into()), &workdir.join("GEMINI.md"), "GEMINI.md"));
        }
        _ => {}
    }
}

/// Entries of `.github` one slip from `copilot-instructions.md`.
fn copilot_slips(gh: &Path, out: &mut Vec<Diagnostic>) {
    for (n, is_dir) in names_in(gh) {
        let p = gh.join(&n);
        let slip = n != "copilot-instructions.md"
            && n.to_lowercase()
                .replace('_', "-")
                .starts_with("copilot-instruction");
        if slip && is_dir {
            out.push(misplaced(&p, "Copilot reads no folder of this name: move its files to .github/instructions/, each named NAME.instructions.md (with applyTo), or merge them into .github/copilot-instructions.md".into()));
        } else if slip {
            out.push(misplaced(&p, format!("Copilot reads .github/copilot-instructions.md by that exact name, so '{n}' is not read; rename it")));
        }
    }
}

/// Markdown files in `.github/instructions` (and below, at most 1,000
/// entries looked at) not named `NAME.instructions.md`.
fn copilot_instruction_names(ins: &Path, out: &mut Vec<Diagnostic>) {
    let mut stack = vec![ins.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        for (n, is_dir) in names_in(&dir) {
            seen += 1;
            if seen > 1_000 {
                break;
            }
            let p = dir.join(&n);
            if is_dir {
                stack.push(p);
            } else if n.ends_with(".md") && !n.ends_with(".instructions.md") && n != "README.md" {
                let stem = n.trim_end_matches(".md");
                out.push(misplaced(&p, format!("Copilot reads only NAME.instructions.md in .github/instructions, so '{n}' is not read; rename it to {stem}.instructions.md")));
            }
        }
    }
}
