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

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::base::limits::MAX_RULE_BYTES;
use crate::rules::rule::Rule;
use crate::rules::rule_format::Format;
use crate::sources::source::{Config, Source};
use std::path::{Path, PathBuf};

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
    /// `.agents/rules` (Antigravity).
    AntigravityRules,
    /// `.kiro/steering/*.md` (Kiro), each by its `inclusion`.
    KiroSteering,
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
        if p.contains(".agents/rules") {
            return Place::AntigravityRules;
        }
        match format {
            // No file system call: a hook classifies its sources at every event.
            Format::Claude if p.contains(".claude/rules") => Place::ClaudeRules,
            Format::Claude => Place::ClaudeMd,
            Format::AgentsMd => Place::AgentsMd,
            Format::Gemini => Place::GeminiMd,
            Format::Copilot if name == crate::rules::rule_format::COPILOT_REPOSITORY_FILE => {
                Place::CopilotInstructions
            }
            Format::Copilot => Place::CopilotPathInstructions,
            Format::Windsurf => Place::WindsurfRules,
            Format::Kiro => Place::KiroSteering,
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
            Place::AntigravityRules => ".agents/rules",
            Place::KiroSteering => ".kiro/steering",
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
    /// Each file as its own front matter says (Kiro's `inclusion`), as the
    /// text says.
    ByItsOwnMode(&'static str),
}

/// One file kind an agent loads by itself.
#[derive(Clone, Copy, Debug)]
pub struct SelfLoad {
    pub place: Place,
    pub when: When,
    /// A fallback: loaded only when no such file is there (Claude Code
    /// reads `AGENTS.md` only where there is no `CLAUDE.md`).
    pub unless: Option<Unless>,
    /// The first agent version that does it, as far as measured or reported.
    pub since: &'static str,
    /// The test (or the report) that shows it.
    pub evidence: &'static str,
}

/// Where a file stops a fallback load ([`SelfLoad::unless`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unless {
    /// A file of this kind in the project's root (opencode reads `CLAUDE.md`
    /// only without an `AGENTS.md` there, whatever lies above).
    InRoot(Place),
    /// A file of this kind in the project's root, or a `CLAUDE.md` in any
    /// folder above it: Claude Code 2.1.330 gives no `AGENTS.md` under a
    /// folder with a `CLAUDE.md`, even outside the repository (measured;
    /// the user's `~/.claude/CLAUDE.md` does not count).
    InRootOrAbove(Place),
}

impl Unless {
    /// Whether this stops the fallback in a project at `workdir`.
    fn holds(self, workdir: &Path) -> bool {
        match self {
            Unless::InRoot(place) => place_in_root(place, workdir),
            Unless::InRootOrAbove(place) => {
                place_in_root(place, workdir)
                    || (place == Place::ClaudeMd
                        && workdir
                            .ancestors()
                            .skip(1)
                            .any(|d| d.join("CLAUDE.md").is_file()))
            }
        }
    }
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
/// Kiro's steering docs: from docs, not measured (no Kiro binary runs here).
const KIRO_STEERING_DOCS: &str = "from docs, not measured: kiro.dev/docs/steering (inclusion modes; AGENTS.md always included); kiro.dev/docs/cli/custom-agents/configuration-reference (an agent's `resources`)";
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
            SelfLoad { place: Place::AgentsMd, when: START, unless: Some(Unless::InRootOrAbove(Place::ClaudeMd)), since: "2.1.277", evidence: SELF_LOAD_TEST },
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
            evidence: "\"stops adding files once the combined size reaches the limit defined by project_doc_max_bytes (32 KiB by default)\" (developers.openai.com/codex/guides/agents-md)",
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
            SelfLoad { place: Place::CopilotPathInstructions, when: When::Touched("after a read (view) of a matching file"), unless: None, since: "1.0", evidence: SELF_LOAD_TEST },
            SelfLoad { place: Place::ClaudeRules, when: When::Touched("after a read (view) of a matching file, not after a write (create)"), unless: None, since: "1.0", evidence: SELF_LOAD_TEST },
        ],
        caps: &[],
    },
    AgentModel {
        agent: "opencode",
        version: "1.18.33",
        loads: &[
            SelfLoad { place: Place::AgentsMd, when: START, unless: None, since: "0.1", evidence: SELF_LOAD_TEST },
            SelfLoad { place: Place::ClaudeMd, when: START, unless: Some(Unless::InRoot(Place::AgentsMd)), since: "0.1", evidence: SELF_LOAD_TEST },
        ],
        caps: &[],
    },
    AgentModel {
        agent: "kiro",
        version: "-",
        loads: &[
            SelfLoad {
                place: Place::KiroSteering,
                when: When::ByItsOwnMode("`inclusion: always` (the default) at the start; `fileMatch` when a file matching `fileMatchPattern` is in the context; `auto` when the request matches its `description`; `manual` when named (`#name`)"),
                unless: None,
                since: "-",
                evidence: KIRO_STEERING_DOCS,
            },
            SelfLoad { place: Place::AgentsMd, when: START, unless: None, since: "-", evidence: KIRO_STEERING_DOCS },
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
            evidence: "12,000 characters per rule file (docs.windsurf.com/windsurf/cascade/memories#rules; a 3.9 MB .windsurfrules was read for its first 6,000: issue 40)",
        }],
    },
    AgentModel {
        agent: "antigravity",
        version: "-",
        loads: &[],
        caps: &[Cap {
            place: Place::AntigravityRules,
            limit: 12_000,
            unit: Unit::Chars,
            total: false,
            evidence: "\"Rule files are limited to 12,000 characters each\" (Antigravity's Rules docs, as quoted at skly.ai/docs/rules/antigravity)",
        }],
    },
];

impl AgentModel {
    /// The model of the agent named `agent` (`claude`, `codex`, ...).
    pub fn named(agent: &str) -> Option<&'static AgentModel> {
        AGENTS.iter().find(|a| a.agent == agent)
    }

    /// Whether this agent loads a file of `place` by itself in a project
    /// at `workdir` (its `unless` checked there).
    pub fn loads_itself(&self, place: Place, workdir: &Path) -> bool {
        self.loads
            .iter()
            .any(|l| l.place == place && l.unless.is_none_or(|u| !u.holds(workdir)))
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

/// One rule file as the agents see it: its kind, size, and the file it is
/// a copy of (the same text folded into one rule by the load), if any.
#[derive(Clone, Debug)]
pub struct RuleFileSeen {
    pub format: Format,
    pub path: PathBuf,
    pub bytes: usize,
    pub chars: usize,
    /// The index (in the same list) of the file whose rule this one's text
    /// was folded into.
    pub copy_of: Option<usize>,
}

impl RuleFileSeen {
    /// A file's size read from disk (at most [`MAX_RULE_BYTES`]: a larger
    /// file counts as that many; it is cut by every agent with a cap).
    pub fn read(format: Format, path: &Path) -> RuleFileSeen {
        let text = crate::base::fs::read_limited(path, MAX_RULE_BYTES as usize)
            .ok()
            .flatten()
            .unwrap_or_default();
        RuleFileSeen {
            format,
            path: path.to_path_buf(),
            bytes: text.len(),
            chars: text.chars().count(),
            copy_of: None,
        }
    }

    fn place(&self) -> Place {
        Place::of(self.format, &self.path)
    }
}

/// Where an agent would cut: a file (or, for a total cap, the last file
/// that passes it) and the size that passes the cap.
#[derive(Clone, Debug)]
pub struct Cut {
    pub agent: &'static str,
    pub file: PathBuf,
    pub size: usize,
    pub cap: Cap,
}

impl Cut {
    /// `codex cuts AGENTS.md: 40000 bytes of AGENTS.md (all of them
    /// together) is over its 32768 bytes of AGENTS.md (...)`.
    pub fn message(&self) -> String {
        let what = if self.cap.total {
            format!("the {} files together", self.cap.place.as_str())
        } else {
            "this file".to_string()
        };
        let unit = match self.cap.unit {
            Unit::Bytes => "bytes",
            Unit::Chars => "characters",
        };
        format!(
            "{} reads only {} {unit} of {what} ({} here); the rest never reaches its model. Source: {}",
            self.agent, self.cap.limit, self.size, self.cap.evidence
        )
    }
}

impl Cut {
    /// The cut as a warning on its file (`agent-cut`).
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::new(
            Severity::Warning,
            Code::AgentCut,
            &self.file,
            self.message(),
        )
    }
}

/// The rule files of a load: each rule's file, and each file a rule was
/// folded from (its `duplicate` info names the kept file), as a copy of it.
pub fn files_seen(rules: &[Rule], diagnostics: &[Diagnostic]) -> Vec<RuleFileSeen> {
    let mut files: Vec<RuleFileSeen> = Vec::new();
    for r in rules {
        if !files.iter().any(|f| f.path == r.file_path) {
            files.push(RuleFileSeen::read(r.format, &r.file_path));
        }
    }
    let kept = files.len();
    for d in diagnostics.iter().filter(|d| d.code == Code::Duplicate) {
        let path = PathBuf::from(&d.file_path);
        if files.iter().any(|f| f.path == path) {
            continue;
        }
        let copy_of = (0..kept).find(|&i| d.message.contains(&*files[i].path.to_string_lossy()));
        let mut seen = RuleFileSeen::read(Format::guess(&path), &path);
        seen.copy_of = copy_of;
        files.push(seen);
    }
    files
}

/// Every cut the agents in [`AGENTS`] would make to these files.
pub fn cuts(files: &[RuleFileSeen]) -> Vec<Cut> {
    let mut out = Vec::new();
    for model in AGENTS {
        for cap in model.caps {
            let of_place = files.iter().filter(|f| f.place() == cap.place);
            let size = |f: &RuleFileSeen| match cap.unit {
                Unit::Bytes => f.bytes,
                Unit::Chars => f.chars,
            };
            if cap.total {
                let mut sum = 0;
                if let Some(f) = of_place.clone().find(|f| {
                    sum += size(f);
                    sum > cap.limit
                }) {
                    let total = of_place.map(size).sum();
                    out.push(Cut {
                        agent: model.agent,
                        file: f.path.clone(),
                        size: total,
                        cap: *cap,
                    });
                }
                continue;
            }
            for f in of_place.filter(|f| size(f) > cap.limit) {
                out.push(Cut {
                    agent: model.agent,
                    file: f.path.clone(),
                    size: size(f),
                    cap: *cap,
                });
            }
        }
    }
    out
}

/// What one agent gets of a project's rule files: what it loads by
/// itself, what our roads add, and the texts it gets more than once.
#[derive(Clone, Debug, Default)]
pub struct AgentLoads {
    pub agent: &'static str,
    /// Indices into the files.
    pub itself: Vec<usize>,
    pub ours: Vec<usize>,
    /// Groups of copies of one text it gets more than once (by itself, or
    /// by itself and from us).
    pub twice: Vec<Vec<usize>>,
}

/// [`AgentLoads`] of every agent with a measured model, for these files.
pub fn agent_loads(files: &[RuleFileSeen], workdir: &Path) -> Vec<AgentLoads> {
    let root = |mut i: usize| {
        for _ in 0..files.len() {
            match files[i].copy_of {
                Some(j) if j != i => i = j,
                _ => break,
            }
        }
        i
    };
    AGENTS
        .iter()
        .filter(|m| !m.loads.is_empty())
        .map(|model| {
            let mut view = AgentLoads {
                agent: model.agent,
                ..AgentLoads::default()
            };
            let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
            for (i, f) in files.iter().enumerate() {
                if model.loads_itself(f.place(), workdir) {
                    view.itself.push(i);
                    groups.entry(root(i)).or_default().push(i);
                } else if f.copy_of.is_none() {
                    view.ours.push(i);
                }
            }
            for (head, mut copies) in groups {
                // Ours too when the kept copy is one the agent does not load.
                if !copies.contains(&head) && view.ours.contains(&head) {
                    copies.insert(0, head);
                }
                if copies.len() > 1 {
                    view.twice.push(copies);
                }
            }
            view
        })
        .collect()
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
        // Without a CLAUDE.md, Claude Code reads AGENTS.md itself, unless a
        // folder above the temp folder has one (CI's does: .ci/run).
        let without = tree(&["AGENTS.md"]);
        let mut above = without.path().ancestors().skip(1);
        let claude_md_above = above.any(|d| d.join("CLAUDE.md").is_file());
        let ours = kept("claude", without.path()).contains(&Place::AgentsMd);
        assert_eq!(ours, claude_md_above);
    }

    #[test]
    fn a_claude_md_above_the_project_stops_claude_codes_agents_md_but_not_opencodes_claude_md() {
        let outer = tree(&["CLAUDE.md", "AGENTS.md", "work/AGENTS.md", "work/CLAUDE.md"]);
        std::fs::remove_file(outer.path().join("work/CLAUDE.md")).unwrap();
        let work = outer.path().join("work");
        assert!(
            kept("claude", &work).contains(&Place::AgentsMd),
            "ours to give"
        );
        std::fs::remove_file(work.join("AGENTS.md")).unwrap();
        std::fs::write(work.join("CLAUDE.md"), "x\n").unwrap();
        assert!(
            !kept("opencode", &work).contains(&Place::ClaudeMd),
            "opencode's own"
        );
    }

    #[test]
    fn kiro_leaves_its_steering_and_agents_md_to_itself_and_gets_claude_rules_from_us() {
        let work = tree(&["AGENTS.md", ".kiro/steering/api.md", "CLAUDE.md"]);
        let k = kept("kiro", work.path());
        assert!(
            !k.contains(&Place::KiroSteering) && !k.contains(&Place::AgentsMd),
            "{k:?}"
        );
        assert!(k.contains(&Place::ClaudeMd), "{k:?}");
        assert_eq!(
            Place::of(Format::Kiro, Path::new("/p/.kiro/steering/api.md")),
            Place::KiroSteering
        );
    }

    #[test]
    fn codex_leaves_only_agents_md_and_gets_claude_rules_from_us() {
        let work = tree(&["AGENTS.md"]);
        let k = kept("codex", work.path());
        assert!(!k.contains(&Place::AgentsMd));
        assert!(k.contains(&Place::ClaudeRules) && k.contains(&Place::ClaudeMd));
    }

    fn seen(format: Format, path: &str, bytes: usize, copy_of: Option<usize>) -> RuleFileSeen {
        RuleFileSeen {
            format,
            path: PathBuf::from(path),
            bytes,
            chars: bytes,
            copy_of,
        }
    }

    #[test]
    fn codex_cuts_the_agents_md_files_together_and_windsurf_each_file() {
        let files = [
            seen(Format::AgentsMd, "/p/AGENTS.md", 20_000, None),
            seen(Format::AgentsMd, "/p/src/AGENTS.md", 20_000, None),
            seen(Format::Windsurf, "/p/.windsurf/rules/a.md", 12_001, None),
            seen(Format::Windsurf, "/p/.windsurf/rules/b.md", 12_000, None),
        ];
        let cuts = cuts(&files);
        let named: Vec<(&str, &str)> = cuts
            .iter()
            .map(|c| (c.agent, c.file.to_str().unwrap()))
            .collect();
        assert_eq!(
            named,
            [
                ("codex", "/p/src/AGENTS.md"),
                ("windsurf", "/p/.windsurf/rules/a.md")
            ]
        );
        assert!(
            cuts[0].message().starts_with(
                "codex reads only 32768 bytes of the AGENTS.md files together (40000 here)"
            ),
            "{}",
            cuts[0].message()
        );
    }

    #[test]
    fn one_text_exported_to_claude_gemini_and_agents_md_loads_three_times_in_copilot() {
        let work = tree(&["CLAUDE.md"]);
        let files = [
            seen(Format::AgentsMd, "/p/AGENTS.md", 10, None),
            seen(Format::Gemini, "/p/GEMINI.md", 10, Some(0)),
            seen(Format::Claude, "/p/CLAUDE.md", 10, Some(0)),
        ];
        let loads = agent_loads(&files, work.path());
        let copilot = loads.iter().find(|l| l.agent == "copilot").unwrap();
        assert_eq!(copilot.twice, vec![vec![0, 1, 2]]);
        let codex = loads.iter().find(|l| l.agent == "codex").unwrap();
        assert_eq!((codex.itself.clone(), codex.twice.len()), (vec![0], 0));
        let claude = loads.iter().find(|l| l.agent == "claude").unwrap();
        // Claude Code reads CLAUDE.md; AGENTS.md (kept) is ours: twice.
        assert_eq!(claude.itself, vec![2]);
        assert_eq!(claude.twice, vec![vec![0, 2]]);
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
