//! Agent skills: their names, where their `SKILL.md` lives, and whether a
//! skill uses the memory tools (zero configuration: its `SKILL.md` names
//! them).
//!
//! A skill is a folder `<dir>/skills/<name>/` holding a `SKILL.md`. The
//! folders each agent reads, as found in the pinned packages (Gemini CLI: its
//! bundle's `Storage`; Claude Code: the `Skill` tool's input schema in its
//! binary; Codex and Copilot CLI: the skills list and tools each sent to the
//! loopback model server when run offline with a skill in every folder):
//!
//! | agent | project | user | how the model activates one |
//! | --- | --- | --- | --- |
//! | Claude Code 2.1 | `.claude/skills` | `~/.claude/skills` | the `Skill` tool, `{"skill": name, "args"?}`, or the prompt `/name` |
//! | Gemini CLI 0.61 | `.gemini/skills`, `.agents/skills` | `~/.gemini/skills`, `~/.agents/skills` | the `activate_skill` tool, `{"name": name}` (`ACTIVATE_SKILL_TOOL_NAME`, `SKILL_PARAM_NAME`) |
//! | Codex 0.169 | `.codex/skills`, `.agents/skills` | `~/.codex/skills` (`$CODEX_HOME/skills`), `~/.agents/skills` | no skill tool: its instructions list each skill's `SKILL.md` path and the model reads it with its shell (`exec_command`) |
//! | Copilot CLI 1.0 | `.github/skills`, `.claude/skills`, `.agents/skills` | `~/.copilot/skills` | the `skill` tool, `{"skill": name}` |
//!
//! So, besides the tools, any read of a file `<dir>/skills/<name>/SKILL.md`
//! (by a file tool or a shell command, by any agent) activates skill
//! `<name>` ([`from_path`]): one rule that covers every agent.

use crate::base::limits::MAX_SKILL_FILE_BYTES;
use crate::rules::skill_name::{bare, name};
use std::path::{Path, PathBuf};

/// The folders (relative to the project) whose `<name>/SKILL.md` are skills.
pub const PROJECT_DIRS: [&str; 5] = [
    ".claude/skills",
    ".agents/skills",
    ".gemini/skills",
    ".github/skills",
    ".codex/skills",
];

/// The folders (relative to the home) whose `<name>/SKILL.md` are skills.
pub const HOME_DIRS: [&str; 5] = [
    ".claude/skills",
    ".agents/skills",
    ".gemini/skills",
    ".copilot/skills",
    ".codex/skills",
];

/// A skill's file in its folder.
pub const SKILL_FILE: &str = "SKILL.md";

/// What a `SKILL.md` names when its skill uses our memory: the MCP tools
/// (under any server prefix: `mcp__wave-rules__memory_read`,
/// `wave-rules_memory_write`) or the CLI.
pub const MEMORY_MARKERS: [&str; 3] = ["memory_read", "memory_write", "wave-rules memory"];

/// The skill a file is the `SKILL.md` of: `<anything>/skills/<name>/SKILL.md`
/// (`/` or `\` separated), else `None`.
pub fn from_path(path: &str) -> Option<String> {
    let mut parts = path.rsplit(['/', '\\']);
    if parts.next()? != SKILL_FILE {
        return None;
    }
    let skill = parts.next()?;
    if parts.next()? != "skills" {
        return None;
    }
    name(skill).ok()
}

/// The `SKILL.md` of the skill `name` in the project's folders, then the
/// home's ([`PROJECT_DIRS`], [`HOME_DIRS`]); at most ten `stat`s.
pub fn find(workdir: &Path, home: Option<&Path>, name: &str) -> Option<PathBuf> {
    let dir = bare(name);
    if dir.is_empty() || dir == "." || dir == ".." {
        return None;
    }
    let project = PROJECT_DIRS.iter().map(|d| workdir.join(d));
    let user = home
        .into_iter()
        .flat_map(|h| HOME_DIRS.iter().map(move |d| h.join(d)));
    project
        .chain(user)
        .map(|d| d.join(dir).join(SKILL_FILE))
        .find(|f| f.is_file())
}

/// Whether a skill's text names the memory tools ([`MEMORY_MARKERS`]).
pub fn uses_memory(text: &str) -> bool {
    MEMORY_MARKERS.iter().any(|m| text.contains(m))
}

/// Whether the `SKILL.md` at `path` uses the memory tools: one read of at
/// most [`MAX_SKILL_FILE_BYTES`] of a regular file (opened without blocking);
/// `false` when it cannot be read.
pub fn file_uses_memory(path: &Path) -> bool {
    crate::base::fs::read_prefix(path, MAX_SKILL_FILE_BYTES, crate::base::fs::Links::Follow)
        .is_ok_and(|text| uses_memory(&text))
}

/// The Stop reminder while skills that use memory are active.
pub fn memory_reminder(skills: &[&str]) -> String {
    let (noun, list) = match skills {
        [one] => ("skill", format!("'{one}'")),
        more => (
            "skills",
            more.iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    };
    format!(
        "The {noun} {list} you are using keeps memory. Before you end your turn: recall what memory \
         holds for this work (the memory_read tool, or `wave-rules memory show TOPIC`) if you have not \
         yet, and save what you learned that a later session needs (the memory_write tool). If both \
         are done, end your turn."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_md_under_any_skills_folder_names_its_skill() {
        for (path, want) in [
            ("/w/.claude/skills/db-work/SKILL.md", Some("db-work")),
            (".agents/skills/Deploy/SKILL.md", Some("deploy")),
            ("C:\\u\\.codex\\skills\\x\\SKILL.md", Some("x")),
            ("/w/.claude/skills/db-work/README.md", None),
            ("/w/skills/SKILL.md", None),
            ("/w/.claude/other/db/SKILL.md", None),
            ("SKILL.md", None),
        ] {
            assert_eq!(from_path(path).as_deref(), want, "{path}");
        }
    }

    #[test]
    fn find_looks_in_the_project_then_the_home_and_reads_memory_use_once() {
        let tmp = tempfile::tempdir().unwrap();
        let (work, home) = (tmp.path().join("w"), tmp.path().join("h"));
        let mem = home.join(".codex/skills/notes/SKILL.md");
        std::fs::create_dir_all(mem.parent().unwrap()).unwrap();
        std::fs::write(
            &mem,
            "---\nname: notes\n---\nCall mcp__wave-rules__memory_read first.",
        )
        .unwrap();
        let plain = work.join(".claude/skills/notes/SKILL.md");
        assert_eq!(find(&work, Some(&home), "notes"), Some(mem.clone()));
        assert_eq!(find(&work, Some(&home), "plugin:notes"), Some(mem.clone()));
        std::fs::create_dir_all(plain.parent().unwrap()).unwrap();
        std::fs::write(&plain, "Format the notes.").unwrap();
        assert_eq!(find(&work, Some(&home), "notes"), Some(plain.clone()));
        assert_eq!(find(&work, None, "other"), None);
        assert_eq!(find(&work, None, ".."), None);
        assert!(file_uses_memory(&mem));
        assert!(!file_uses_memory(&plain));
        assert!(!file_uses_memory(&work.join("missing")));
        assert!(!file_uses_memory(&work));
        assert!(uses_memory("run `wave-rules memory show db`"));
        assert!(uses_memory("memory_write"));
        assert!(!uses_memory("remember things"));
    }

    #[test]
    fn only_the_first_bytes_of_a_huge_skill_md_are_read() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("SKILL.md");
        let mut text = "x".repeat(MAX_SKILL_FILE_BYTES as usize);
        text.push_str("memory_read");
        std::fs::write(&f, &text).unwrap();
        assert!(!file_uses_memory(&f));
        std::fs::write(&f, format!("memory_read{text}")).unwrap();
        assert!(file_uses_memory(&f));
    }

    #[test]
    fn the_reminder_names_the_skills_and_the_memory_tools() {
        let one = memory_reminder(&["db-work"]);
        assert!(one.starts_with("The skill 'db-work' "), "{one}");
        for needle in ["memory_read", "memory_write", "wave-rules memory"] {
            assert!(one.contains(needle), "{needle}: {one}");
        }
        assert!(memory_reminder(&["a", "b"]).starts_with("The skills 'a', 'b' "));
    }
}
