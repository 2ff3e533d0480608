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
//! | Cursor | `.cursor/rules.mdc`, `.cursor/rule/`, `.cursorrules/`, `.cursor/rules/x.md` | `.cursor/rules/**/*.mdc` ("a plain .md file is ignored"), a `.cursorrules` file |
//! | Claude Code | `.claude/rule/`, `.claude/rules.md` | `.claude/rules/**/*.md` |
//! | Kiro | `.kiro/steerings/`, `.kiro/rules/` | `.kiro/steering/*.md` |
//! | Cline | `.clinerules/x.mdc`, `.clinerule` | `.clinerules/` (`.md`, `.txt`), a `.clinerules` file |
//! | Continue | `.continue/rule/` | `.continue/rules/*.md` |
//! | Gemini CLI | `.gemini/GEMINI.md` in a project | `GEMINI.md` in the project's folders, `~/.gemini/GEMINI.md` |

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::rules::rule_format::Format;
use std::path::Path;

fn names_in(dir: &Path) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = std::fs::read_dir(dir)
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

/// The near misses of the project at `workdir` for the `formats` read.
pub fn near_misses(workdir: &Path, formats: &[Format]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let root = names_in(workdir);
    let has = |n: &str| root.iter().find(|(x, _)| x == n).map(|(_, d)| *d);
    let mut warn = |path: &Path, message: String| {
        out.push(Diagnostic::new(
            Severity::Warning,
            Code::Misplaced,
            path,
            message,
        ))
    };
    let on = |f: Format| formats.contains(&f);
    if on(Format::Copilot) {
        let gh = workdir.join(".github");
        if has(".github") == Some(true) {
            for (n, is_dir) in names_in(&gh) {
                let p = gh.join(&n);
                let slip = n != "copilot-instructions.md"
                    && n.to_lowercase()
                        .replace('_', "-")
                        .starts_with("copilot-instruction");
                if slip && is_dir {
                    warn(&p, "Copilot reads no folder of this name: move its files to .github/instructions/, each named NAME.instructions.md (with applyTo), or merge them into .github/copilot-instructions.md".into());
                } else if slip {
                    warn(&p, format!("Copilot reads .github/copilot-instructions.md by that exact name, so '{n}' is not read; rename it"));
                }
            }
            let ins = gh.join("instructions");
            let mut stack = vec![ins.clone()];
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
                    } else if n.ends_with(".md")
                        && !n.ends_with(".instructions.md")
                        && n != "README.md"
                    {
                        let stem = n.trim_end_matches(".md");
                        warn(&p, format!("Copilot reads only NAME.instructions.md in .github/instructions, so '{n}' is not read; rename it to {stem}.instructions.md"));
                    }
                }
            }
        }
        if has("copilot-instructions.md") == Some(false) {
            warn(&workdir.join("copilot-instructions.md"), "Copilot reads copilot-instructions.md only in .github/; move it to .github/copilot-instructions.md".into());
        }
    }
    if on(Format::Windsurf) {
        for folder in [".devin", ".windsurf"] {
            if has(folder) != Some(true) {
                continue;
            }
            for (n, is_dir) in names_in(&workdir.join(folder)) {
                let p = workdir.join(folder).join(&n);
                if n == "rules" && !is_dir {
                    warn(&p, format!("Windsurf reads {folder}/rules as a folder of .md rules, and this is a file, so it is not read; move it to {folder}/rules/rules.md (with a 'trigger')"));
                } else if n == "rule" && is_dir {
                    warn(
                        &p,
                        format!(
                            "Windsurf reads {folder}/rules/, not {folder}/rule/; rename the folder"
                        ),
                    );
                }
            }
        }
        if has(".windsurfrules") == Some(true) {
            warn(&workdir.join(".windsurfrules"), "Windsurf reads .windsurfrules as one file, and this is a folder; move its files to .windsurf/rules/".into());
        }
    }
    if on(Format::Cursor) {
        if has(".cursor") == Some(true) {
            let c = workdir.join(".cursor");
            for (n, is_dir) in names_in(&c) {
                let p = c.join(&n);
                if (n == "rule" || n == "Rules") && is_dir {
                    warn(
                        &p,
                        "Cursor reads .cursor/rules/, not this folder; rename it to .cursor/rules"
                            .into(),
                    );
                } else if !is_dir && (n == "rules.mdc" || n == "rules.md" || n == "rules") {
                    warn(&p, "Cursor reads the folder .cursor/rules/, not a file of this name; move it to .cursor/rules/rules.mdc".into());
                }
            }
            let rules = c.join("rules");
            for (n, is_dir) in names_in(&rules) {
                if !is_dir && n.ends_with(".md") && n != "README.md" {
                    let stem = n.trim_end_matches(".md");
                    warn(&rules.join(&n), format!("Cursor reads .mdc files in .cursor/rules (its docs: a plain .md file is ignored), so '{n}' is not read; rename it to {stem}.mdc"));
                }
            }
        }
        if has(".cursorrules") == Some(true) {
            warn(&workdir.join(".cursorrules"), "Cursor reads .cursorrules as one file, and this is a folder; move its files to .cursor/rules/ as .mdc files".into());
        }
    }
    if on(Format::Claude) && has(".claude") == Some(true) {
        let c = workdir.join(".claude");
        for (n, is_dir) in names_in(&c) {
            let p = c.join(&n);
            if n == "rule" && is_dir {
                warn(
                    &p,
                    "Claude Code reads .claude/rules/, not .claude/rule/; rename the folder".into(),
                );
            } else if n == "rules.md" && !is_dir {
                warn(&p, "Claude Code reads the folder .claude/rules/ (and .claude/CLAUDE.md), not .claude/rules.md; move it to .claude/rules/ or .claude/CLAUDE.md".into());
            }
        }
    }
    if on(Format::Kiro) && has(".kiro") == Some(true) {
        let k = workdir.join(".kiro");
        for (n, is_dir) in names_in(&k) {
            if is_dir && (n == "steerings" || n == "rules" || n == "Steering") {
                warn(
                    &k.join(&n),
                    format!("Kiro reads .kiro/steering/, not .kiro/{n}/; move its files there"),
                );
            }
        }
    }
    if on(Format::Cline) {
        if has(".clinerules") == Some(true) {
            let c = workdir.join(".clinerules");
            for (n, is_dir) in names_in(&c) {
                if !is_dir && n.ends_with(".mdc") {
                    let stem = n.trim_end_matches(".mdc");
                    warn(&c.join(&n), format!("Cline 4 reads only .md, .markdown and .txt here (Cline 3 reads this as always-on text, its 'globs' ignored), so '{n}' is not read; rename it to {stem}.md and write 'paths' for its globs"));
                }
            }
        }
        for slip in [".clinerule", ".clinerules.md", ".cline-rules"] {
            if has(slip).is_some() {
                warn(
                    &workdir.join(slip),
                    format!(
                        "Cline reads .clinerules (a file or a folder), not '{slip}'; rename it"
                    ),
                );
            }
        }
    }
    if on(Format::Continue) && has(".continue") == Some(true) {
        let p = workdir.join(".continue").join("rule");
        if p.is_dir() {
            warn(
                &p,
                "Continue reads .continue/rules/, not .continue/rule/; rename the folder".into(),
            );
        }
    }
    if on(Format::Gemini) && workdir.join(".gemini").join("GEMINI.md").is_file() {
        warn(&workdir.join(".gemini/GEMINI.md"), "Gemini CLI reads GEMINI.md in the project's folders (and ~/.gemini/GEMINI.md), not in a project's .gemini/; move it to ./GEMINI.md".into());
    }
    out
}
