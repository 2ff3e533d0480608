//! What each agent loads by itself, and where it cuts: one table
//! ([`AGENTS`]), read by every road. A hook (and the opencode plugin)
//! leaves out the sources its agent already gives the model
//! ([`AgentModel::leave_out`]); `validate`, `export` and `report` warn where
//! an agent would cut a file ([`AgentModel::cuts`]) and say what loads twice.
//!
//! Every "loads" row was measured with the agent's real binary (the version
//! in `version`) against the loopback model, with no hooks at all
//! (`__test__/agents/self-load.test.mjs`); the caps are from each agent's
//! documentation or measured, as `evidence` says. docs/agents.md is the
//! table for reading. A new agent is one more [`AgentModel`] in [`AGENTS`].

use crate::rules::rule_format::{Format, AGENTS_MD_FILE_NAMES, CLAUDE_MEMORY_NAMES};
use crate::sources::source::{Config, Source};
use std::path::Path;

/// A kind of rule file, as the agents tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// `.claude/rules/**/*.md` (the user's and the project's).
    ClaudeRules,
    /// `CLAUDE.md`, `CLAUDE.local.md`, `.claude/CLAUDE.md`, `~/.claude/CLAUDE.md`.
    ClaudeMd,
    /// `AGENTS.md` (`AGENTS.override.md`), `~/.codex/AGENTS.md`.
    AgentsMd,
    /// `GEMINI.md`, `~/.gemini/GEMINI.md`.
    GeminiMd,
    /// `.github/copilot-instructions.md`.
    CopilotInstructions,
    /// `.github/instructions/**/*.instructions.md`.
    CopilotPathInstructions,
    /// `.windsurf/rules`, `.devin/rules`, `.windsurfrules`.
    WindsurfRules,
    /// Every other kind (read by us only, among the agents in [`AGENTS`]).
    Other,
}

impl Place {
    /// The kind of a rule file (or of a source's folder or file) of `format`.
    pub fn of(format: Format, path: &Path) -> Place {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let p = path.to_string_lossy().replace('\\', "/");
        match format {
            Format::Claude if p.contains(".claude/rules") => Place::ClaudeRules,
            Format::Claude if CLAUDE_MEMORY_NAMES.contains(&name.as_str()) || path.is_dir() => {
                Place::ClaudeMd
            }
            Format::Claude => Place::ClaudeMd,
            Format::AgentsMd if path.is_dir() || AGENTS_MD_FILE_NAMES.contains(&name.as_str()) => {
                Place::AgentsMd
            }
            Format::Gemini => Place::GeminiMd,
            Format::Copilot if name == crate::rules::rule_format::COPILOT_REPOSITORY_FILE => {
                Place::CopilotInstructions
            }
            Format::Copilot => Place::CopilotPathInstructions,
            Format::Windsurf => Place::WindsurfRules,
            _ => Place::Other,
        }
    }

    /// How docs and `report` name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Place::ClaudeRules => ".claude/rules",
            Place::ClaudeMd => "CLAUDE.md",
            Place::AgentsMd => "AGENTS.md",
            Place::GeminiMd => "GEMINI.md",
            Place::CopilotInstructions => ".github/copilot-instructions.md",
            Place::CopilotPathInstructions => ".github/instructions",
            Place::WindsurfRules => ".windsurf/rules",
            Place::Other => "other",
        }
    }
}

/// When an agent gives the model a file of a [`Place`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// At the conversation's start (always on).
    Start,
    /// After a tool touched a file the rule's `paths` match (a read, a
    /// write, a shell `cat`), as `Touch` says.
    Touched(&'static str),
}

/// One file kind an agent loads by itself.
#[derive(Clone, Copy, Debug)]
pub struct SelfLoad {
    pub place: Place,
    pub when: When,
    /// Only when no file of this kind is in the project's root (Claude Code
    /// reads `AGENTS.md` only where there is no `CLAUDE.md`).
    pub unless: Option<Place>,
    /// The first agent version that does it, as far as measured or reported.
    pub since: &'static str,
    /// The test (or the report) that shows it.
    pub evidence: &'static str,
}

/// How a cap counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Chars,
}

/// Where an agent cuts: a file of `place` (or every such file together,
/// with `total`) longer than `limit` is read only up to it.
#[derive(Clone, Copy, Debug)]
pub struct Cap {
    pub place: Place,
    pub limit: usize,
    pub unit: Unit,
    pub total: bool,
    pub evidence: &'static str,
}

/// What one agent loads by itself, and its caps.
#[derive(Clone, Copy, Debug)]
pub struct AgentModel {
    /// Its name, as `hook --agent` and `report` spell it.
    pub agent: &'static str,
    /// The version measured.
    pub version: &'static str,
    pub loads: &'static [SelfLoad],
    pub caps: &'static [Cap],
}

const SELF_LOAD_TEST: &str = "__test__/agents/self-load.test.mjs";
const START: When = When::Start;

/// Every agent we serve, with what it loads by itself (measured) and its caps.
pub const AGENTS: &[AgentModel] = &[
    AgentModel {
        agent: "claude",
        version: "2.1.330",
        loads: &[
            SelfLoad { place: Place::ClaudeMd, when: START, unless: None, since: "1.0", evidence: SELF_LOAD_TEST },
            SelfLoad {
                place: Place::ClaudeRules,
                when: When::Touched("Read, Write, a shell `cat` (Read only before 2.1: claude-code #93248, #79984, #23478)"),
                unless: None,
                since: "2.0",
                evidence: SELF_LOAD_TEST,
            },
            SelfLoad { place: Place::AgentsMd, when: START, unless: Some(Place::ClaudeMd), since: "2.1.277", evidence: SELF_LOAD_TEST },
        ],
        caps: &[],
    },
    AgentModel {
        agent: "codex",
        version: "0.169.0",
        loads: &[SelfLoad { place: Place::AgentsMd, when: START, unless: None, since: "0.1", evidence: SELF_LOAD_TEST }],
        caps: &[Cap {
            place: Place::AgentsMd,
            limit: 32 * 1024,
            unit: Unit::Bytes,
            total: true,
            evidence: "project_doc_max_bytes, default 32 KiB (developers.openai.com/codex/guides/agents-md)",
        }],
    },
    AgentModel {
        agent: "gemini",
        version: "0.61.0",
        loads: &[SelfLoad { place: Place::GeminiMd, when: START, unless: None, since: "0.1", evidence: SELF_LOAD_TEST }],
        caps: &[],
    },
    AgentModel {
        agent: "copilot",
        version: "1.0.102",
        loads: &[
            SelfLoad { place: Place::ClaudeMd, when: START, unless: None, since: "0.0.3", evidence: SELF_LOAD_TEST },
            SelfLoad { place: Place::GeminiMd, when: START, unless: None, since: "0.0.3", evidence: SELF_LOAD_TEST },
            SelfLoad { place: Place::AgentsMd, when: START, unless: None, since: "0.0.3", evidence: SELF_LOAD_TEST },
            SelfLoad { place: Place::CopilotInstructions, when: START, unless: None, since: "0.0.3", evidence: SELF_LOAD_TEST },
        ],
        caps: &[],
    },
    AgentModel {
        agent: "opencode",
        version: "1.18.33",
        loads: &[
            SelfLoad { place: Place::AgentsMd, when: START, unless: None, since: "0.1", evidence: SELF_LOAD_TEST },
            SelfLoad { place: Place::ClaudeMd, when: START, unless: Some(Place::AgentsMd), since: "0.1", evidence: SELF_LOAD_TEST },
        ],
        caps: &[],
    },
    AgentModel {
        agent: "cursor",
        version: "-",
        loads: &[],
        caps: &[],
    },
    AgentModel {
        agent: "windsurf",
        version: "-",
        loads: &[],
        caps: &[Cap {
            place: Place::WindsurfRules,
            limit: 12_000,
            unit: Unit::Chars,
            total: false,
            evidence: "12,000 characters per rule file (docs.windsurf.com/windsurf/cascade/memories#rules)",
        }],
    },
    AgentModel {
        agent: "antigravity",
        version: "-",
        loads: &[],
        caps: &[Cap {
            place: Place::Other,
            limit: 12_000,
            unit: Unit::Chars,
            total: false,
            evidence: "12,000 characters per rule file (antigravity.google/docs/rules-workflows)",
        }],
    },
];

impl AgentModel {
    /// The model of the agent named `agent` (`claude`, `codex`, ...).
    pub fn named(agent: &str) -> Option<&'static AgentModel> {
        AGENTS.iter().find(|a| a.agent == agent)
    }

    /// Whether this agent loads a file of `place` by itself in a project
    /// at `workdir` (its `unless` checked in the project's root).
    pub fn loads_itself(&self, place: Place, workdir: &Path) -> bool {
        self.loads
            .iter()
            .any(|l| l.place == place && l.unless.is_none_or(|u| !place_in_root(u, workdir)))
    }

    /// `config` without the sources this agent gives the model by itself:
    /// what a hook of this agent delivers is exactly the rest.
    pub fn leave_out(&self, config: &Config) -> Config {
        let mut own = config.clone();
        own.sources
            .retain(|s: &Source| !self.loads_itself(Place::of(s.format, &s.dir), &config.workdir));
        own
    }

    /// Where this agent would cut a file of `place` of `len` (bytes and
    /// chars): the cap it passes, if any.
    pub fn cuts(&self, place: Place, bytes: usize, chars: usize) -> Option<&Cap> {
        self.caps.iter().find(|c| {
            c.place == place
                && match c.unit {
                    Unit::Bytes => bytes > c.limit,
                    Unit::Chars => chars > c.limit,
                }
        })
    }
}

impl Cap {
    /// `32768 bytes of AGENTS.md (all of them together)`.
    pub fn describe(&self) -> String {
        let unit = match self.unit {
            Unit::Bytes => "bytes",
            Unit::Chars => "characters",
        };
        let per = if self.total {
            "all of them together"
        } else {
            "per file"
        };
        format!("{} {unit} of {} ({per})", self.limit, self.place.as_str())
    }
}

/// Whether a file of `place` is in the project's root.
fn place_in_root(place: Place, workdir: &Path) -> bool {
    let names: &[&str] = match place {
        Place::ClaudeMd => &["CLAUDE.md", ".claude/CLAUDE.md"],
        Place::AgentsMd => &["AGENTS.md", "AGENTS.override.md"],
        Place::GeminiMd => &["GEMINI.md"],
        _ => &[],
    };
    names.iter().any(|n| workdir.join(n).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::scope::Scope;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x\n").unwrap();
        }
        dir
    }

    fn kept(agent: &str, work: &Path) -> Vec<Place> {
        let config = Config::named(work, work.join("home"), Format::ALL);
        let mut places: Vec<Place> = AgentModel::named(agent)
            .unwrap()
            .leave_out(&config)
            .sources
            .iter()
            .filter(|s| s.scope == Scope::Project)
            .map(|s| Place::of(s.format, &s.dir))
            .collect();
        places.dedup();
        places
    }

    #[test]
    fn claude_code_leaves_its_rules_and_claude_md_to_itself_and_agents_md_only_without_claude_md() {
        let with = tree(&["CLAUDE.md", "AGENTS.md"]);
        let kept_with = kept("claude", with.path());
        assert!(!kept_with.contains(&Place::ClaudeRules) && !kept_with.contains(&Place::ClaudeMd));
        assert!(kept_with.contains(&Place::AgentsMd), "{kept_with:?}");
        let without = tree(&["AGENTS.md"]);
        assert!(!kept("claude", without.path()).contains(&Place::AgentsMd));
    }

    #[test]
    fn codex_leaves_only_agents_md_and_gets_claude_rules_from_us() {
        let work = tree(&["AGENTS.md"]);
        let k = kept("codex", work.path());
        assert!(!k.contains(&Place::AgentsMd));
        assert!(k.contains(&Place::ClaudeRules) && k.contains(&Place::ClaudeMd));
    }

    #[test]
    fn a_cap_is_passed_only_above_its_limit() {
        let codex = AgentModel::named("codex").unwrap();
        assert!(codex.cuts(Place::AgentsMd, 32 * 1024, 100).is_none());
        let cap = codex.cuts(Place::AgentsMd, 32 * 1024 + 1, 100).unwrap();
        assert_eq!(
            cap.describe(),
            "32768 bytes of AGENTS.md (all of them together)"
        );
        let windsurf = AgentModel::named("windsurf").unwrap();
        assert!(windsurf
            .cuts(Place::WindsurfRules, 40_000, 12_001)
            .is_some());
        assert!(windsurf
            .cuts(Place::WindsurfRules, 40_000, 12_000)
            .is_none());
    }
}
