//! What an agent event means, decided once for every road: [`Responder`]
//! answers an [`Event`] for a conversation's [`Session`] with an [`Answer`],
//! and records what the road delivered ([`Responder::commit`]).
//!
//! ```
//! use memory_rules::{load, Config, Conversation, Event, EventKind, Responder, Session, ToolCall, ToolKind};
//! let dir = tempfile::tempdir()?;
//! let rules = dir.path().join(".wave/rules");
//! std::fs::create_dir_all(&rules)?;
//! std::fs::write(rules.join("ts.md"), "---\npaths: src/**/*.ts\n---\nUse strict TypeScript.")?;
//! let loaded = load(&Config::with_home(dir.path(), dir.path().join("no-home")));
//! let responder = Responder::new(&loaded.rules, dir.path());
//!
//! // Any agent's shell tool, under any name: `cat` reads the file.
//! let call = ToolCall::new("bash", ToolKind::Other, serde_json::json!({"command": "cat src/app.ts"}));
//! let event = Event::new(Conversation::new("s1"), EventKind::ToolDone).tool(call).cwd(dir.path());
//! let mut session = Session::new();
//! let answer = responder.respond(&mut session, &event);
//! assert_eq!(answer.text, "## Rules\n[ts.md] Use strict TypeScript.");
//! responder.commit(&mut session, &answer); // the road sent it
//! assert!(responder.respond(&mut session, &event).text.is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! | event | the answer's text |
//! | --- | --- |
//! | `Start` | the always-on rules, then the memory; on a resume only what the conversation lacks; after a compaction or a clear every rule active in it again |
//! | `Prompt` | the rules its topics activate, every time, as constraints; the always-on and skill rules not given |
//! | `ToolDone` | the conditional rules the files touched activate, not given yet (and what a compaction took, when told without a route to the model) |
//! | `ModelCall` | every rule active in the conversation (or, for reminders, the always-on ones: the others are [`Answer::reminders`]), then the memory, then the rules offered on request |
//! | `Request` | every rule active for the files and prompt; those given named in [`Answer::given`], unless `again`; the first one offers the on-request rules ([`Answer::offer`]) |
//! | `Compaction` | nothing: what was given is gone, and due at the next event that reaches the model |
//! | `Stop` | the `remind: every-turn` rules active, and the memory reminder while a skill that uses memory is active (unless `repeated`) |
//!
//! Before that, for a prompt, a tool or a model call: the skills the event
//! activates become active in the conversation (the agent's skill tool, a
//! read of a `<dir>/skills/<name>/SKILL.md`, a prompt `/name` naming a skill
//! found in a skills folder), their `SKILL.md` read once then for whether it
//! uses the memory tools; and the files touched are read, up to
//! [`MAX_CONTENT_FILES`] of [`MAX_CONTENT_BYTES`] each, where a rule with a
//! `regex` wants their content.

use crate::event::{Conversation, Event, EventKind};
use crate::limits::{DEFAULT_MEMORY_LINES, MAX_CONTENT_BYTES, MAX_CONTENT_FILES};
use crate::memory::{MemoryLocations, MemoryStore};
use crate::ruleset::RuleSet;
use crate::session::{rule_version, Budget, Call, Due, Session, Start};
use std::cell::Cell;
use std::path::{Path, PathBuf};

/// One rule an answer gives, in the version given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Given {
    /// Its index in the rule set the answer was made with.
    pub index: usize,
    pub id: String,
    /// [`rule_version`]: a hash of its id and text.
    pub version: String,
}

/// One rule given as a reminder message of its own (an SDK in reminder mode).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reminder {
    pub rule: Given,
    /// The whole `<system-reminder rule="id">` block.
    pub text: String,
}

/// What the core answers to an event. Nothing counts as delivered until the
/// road sends it and calls [`Responder::commit`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    pub conversation: Conversation,
    pub kind: EventKind,
    /// Who asked ([`Event::agent`]).
    pub agent: String,
    /// What to give the model ('' when nothing): context for a start, a
    /// prompt, a tool, a model call or a request; at a stop, the reason to
    /// go on.
    pub text: String,
    /// The rules the text holds, in the order rendered.
    pub rules: Vec<Given>,
    /// Ids left out to fit the budget.
    pub omitted: Vec<String>,
    /// Ids of the rules active but given before (a request): named, not
    /// repeated.
    pub given: Vec<String>,
    /// Rules given as reminder messages (a model call in reminder mode).
    pub reminders: Vec<Reminder>,
    /// The on-request rules offered for the `read_rule` tool ('' for none):
    /// already in the text of a model call; a request's road places it.
    pub offer: String,
    /// Ids of the rules [`Answer::offer`] lists.
    pub offered: Vec<String>,
    /// The files the event touched, relative to the workdir.
    pub touched: Vec<String>,
    /// The files the event named that are outside the workdir (no rule
    /// reads them).
    pub outside: Vec<String>,
    /// The skills the event activated.
    pub skills: Vec<String>,
    /// It answers a session start: committing it marks the session started.
    pub starts: bool,
    /// It gives again what a compaction took: committing it ends that.
    pub regives: bool,
}

impl Answer {
    fn to(event: &Event) -> Answer {
        Answer::empty(event.conversation.clone(), event.kind, &event.agent)
    }

    fn empty(conversation: Conversation, kind: EventKind, agent: &str) -> Answer {
        Answer {
            conversation,
            kind,
            agent: agent.to_string(),
            text: String::new(),
            rules: Vec::new(),
            omitted: Vec::new(),
            given: Vec::new(),
            reminders: Vec::new(),
            offer: String::new(),
            offered: Vec::new(),
            touched: Vec::new(),
            outside: Vec::new(),
            skills: Vec::new(),
            starts: false,
            regives: false,
        }
    }

    /// Whether there is anything to send.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.reminders.is_empty()
    }
}

/// Where the memory given at a session start comes from.
#[derive(Clone, Debug, Default)]
pub enum Memory {
    /// None.
    #[default]
    None,
    /// The user's and the project's memory topics, at most this many lines.
    Store(MemoryLocations, usize),
}

/// Answers the events of one rule set (see the module comment).
#[derive(Clone, Debug)]
pub struct Responder<'a> {
    set: &'a RuleSet,
    workdir: &'a Path,
    home: Option<PathBuf>,
    budget: Budget,
    memory: Memory,
}

impl<'a> Responder<'a> {
    /// The rules of `set`, for a project at `workdir`; the budget of an
    /// agent's rules section ([`Budget::agents`]), no home, no memory.
    pub fn new(set: &'a RuleSet, workdir: &'a Path) -> Responder<'a> {
        Responder {
            set,
            workdir,
            home: None,
            budget: Budget::agents(),
            memory: Memory::None,
        }
    }

    /// The user's home: skills in its folders, and the user memory.
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// The memory store of this project and home, given after the rules at
    /// a session start, at most [`DEFAULT_MEMORY_LINES`] lines.
    pub fn with_memory(mut self) -> Self {
        let home = self.home.clone().unwrap_or_default();
        self.memory = Memory::Store(
            MemoryLocations::new(&home, self.workdir),
            DEFAULT_MEMORY_LINES,
        );
        self
    }

    pub fn memory(mut self, memory: Memory) -> Self {
        self.memory = memory;
        self
    }

    pub fn set(&self) -> &'a RuleSet {
        self.set
    }

    /// What is due for `event` in the conversation `session` (see the
    /// module comment). Records what the event says happened (files, skills,
    /// the prompt, a compaction); marks nothing delivered.
    pub fn respond(&self, session: &mut Session, event: &Event) -> Answer {
        let mut answer = Answer::to(event);
        let set = self.set;
        match event.kind {
            EventKind::Stop { repeated } => {
                if !repeated {
                    answer.text = session.stop().unwrap_or_default();
                }
                return answer;
            }
            EventKind::Compaction { certain } => {
                if certain {
                    session.compacted_unsent();
                } else if let Some(tokens) = event.prompt_tokens {
                    session.prompt_size(tokens);
                }
                return answer;
            }
            _ => {}
        }
        if let Some(tokens) = event.prompt_tokens {
            session.prompt_size(tokens);
        }
        let touched = event.touched();
        if matches!(
            event.kind,
            EventKind::Prompt | EventKind::ToolDone | EventKind::ModelCall { .. }
        ) {
            answer.skills = self.activate_skills(session, event, &touched);
        }
        for f in &touched {
            match set.normalize(f) {
                Some(rel) => answer.touched.push(rel.into_owned()),
                None => answer.outside.push(f.clone()),
            }
        }
        let read = file_contents(self.workdir);
        let contents: Option<crate::ruleset::Contents> = set.has_content_rules().then_some(&read);
        let budget = self.budget;
        let due = match event.kind {
            EventKind::Start(how) => {
                // A resumed session that started before already holds the memory.
                let memory = (how != Start::Resume || !session.started)
                    .then(|| self.memory_text(event))
                    .flatten();
                session.start(set, how, memory.as_deref(), budget)
            }
            EventKind::Prompt => session.prompt(set, event.prompt.as_deref().unwrap_or(""), budget),
            EventKind::ToolDone => session.files_touched_in(set, &touched, contents, budget),
            EventKind::Request { again } => {
                let due = session.request_in(
                    set,
                    &touched,
                    event.prompt.as_deref(),
                    again,
                    contents,
                    budget,
                );
                if due.starts {
                    let mut active = due.rules.clone();
                    active.extend(&due.given);
                    active.sort_unstable();
                    self.offer(&mut answer, &active);
                }
                due
            }
            EventKind::ModelCall { reminders, reset } => {
                let call = session.model_call(
                    set,
                    &touched,
                    event.prompt.as_deref(),
                    contents,
                    Call { reminders, reset },
                    event.memory.as_deref(),
                    budget,
                );
                answer.reminders = call
                    .reminders
                    .into_iter()
                    .map(|i| Reminder {
                        rule: self.given(i),
                        text: crate::render::reminder(&set.rules()[i]),
                    })
                    .collect();
                self.offer(&mut answer, &call.active);
                call.due
            }
            EventKind::Stop { .. } | EventKind::Compaction { .. } => Due::default(),
        };
        self.fill(&mut answer, due);
        if event_has_offer_in_text(event.kind) && !answer.offer.is_empty() {
            let offer = answer.offer.trim_end();
            answer.text = if answer.text.is_empty() {
                offer.to_string()
            } else {
                format!("{}\n\n{offer}", answer.text)
            };
        }
        answer
    }

    /// The answer reached the model: its rules, in the versions it gave,
    /// count as delivered in its conversation. The one place a delivery is
    /// recorded: [`Responder::commit_reminders`] and
    /// [`Responder::commit_ids`] come here too.
    pub fn commit(&self, session: &mut Session, answer: &Answer) {
        let given = answer
            .rules
            .iter()
            .chain(answer.reminders.iter().map(|r| &r.rule));
        session.commit_given(given.map(|g| (g.id.as_str(), g.version.as_str())));
        session.commit_flags(answer.starts, answer.regives);
    }

    /// Some of an answer's reminders reached the model (the road sent these
    /// ids): [`Responder::commit`] of those alone.
    pub fn commit_reminders<S: AsRef<str>>(
        &self,
        session: &mut Session,
        answer: &Answer,
        ids: &[S],
    ) {
        let mut sent = Answer::empty(answer.conversation.clone(), answer.kind, &answer.agent);
        sent.reminders = answer
            .reminders
            .iter()
            .filter(|r| ids.iter().any(|id| id.as_ref() == r.rule.id))
            .cloned()
            .collect();
        self.commit(session, &sent);
    }

    /// These rules (by id, in their current versions) reached the model in
    /// `conversation`, as reminders the road rendered itself (`RuleSession`'s
    /// `markDelivered`): [`Responder::commit`] of an answer holding them.
    pub fn commit_ids<S: AsRef<str>>(
        &self,
        session: &mut Session,
        conversation: &Conversation,
        agent: &str,
        ids: &[S],
    ) {
        let kind = EventKind::ModelCall {
            reminders: true,
            reset: false,
        };
        let mut sent = Answer::empty(conversation.clone(), kind, agent);
        sent.reminders = ids
            .iter()
            .filter_map(|id| self.set.rules().iter().position(|r| r.id == id.as_ref()))
            .map(|i| Reminder {
                rule: self.given(i),
                text: crate::render::reminder(&self.set.rules()[i]),
            })
            .collect();
        self.commit(session, &sent);
    }

    /// A conversation this process has not seen (a restarted plugin, a
    /// continued session): its transcript since the last compaction says
    /// which rules it holds (their reminders or rendered entries), the tool
    /// calls of `seen` what it touched. Nothing is due.
    pub fn restore(&self, session: &mut Session, seen: &Event, transcript: &str) {
        let _seen_not_delivered = self.respond(session, seen);
        session.restore(self.set, transcript);
    }

    fn given(&self, index: usize) -> Given {
        let rule = &self.set.rules()[index];
        Given {
            index,
            id: rule.id.clone(),
            version: rule_version(rule),
        }
    }

    fn fill(&self, answer: &mut Answer, due: Due) {
        let rules = self.set.rules();
        answer.text = due.text;
        answer.rules = due.rules.iter().map(|&i| self.given(i)).collect();
        answer.omitted = due.omitted;
        answer.given = due.given.iter().map(|&i| rules[i].id.clone()).collect();
        answer.starts = due.starts;
        answer.regives = due.regives;
    }

    /// The on-request rules not in `active` (ascending), offered for the
    /// `read_rule` tool.
    fn offer(&self, answer: &mut Answer, active: &[usize]) {
        let rules = self.set.rules();
        let offered = self.set.available(active);
        answer.offer = crate::read_rule::offer(offered.iter().map(|&i| &rules[i]));
        answer.offered = offered.iter().map(|&i| rules[i].id.clone()).collect();
    }

    fn memory_text(&self, event: &Event) -> Option<String> {
        if let Some(text) = &event.memory {
            return Some(text.clone());
        }
        match &self.memory {
            Memory::None => None,
            Memory::Store(locations, lines) => {
                Some(MemoryStore::new(locations.clone()).load_for_prompt(*lines))
            }
        }
    }

    /// The skills the event activates, recorded in the session (each
    /// `SKILL.md` read once, when its skill becomes active, for whether it
    /// uses the memory tools).
    fn activate_skills(
        &self,
        session: &mut Session,
        event: &Event,
        touched: &[String],
    ) -> Vec<String> {
        let mut found: Vec<(String, Option<PathBuf>)> = Vec::new();
        let mut add = |name: String, file: Option<PathBuf>| {
            if !found.iter().any(|(n, _)| *n == name) {
                found.push((name, file));
            }
        };
        for call in &event.tools {
            if let Some(name) = call.skill() {
                add(name, None);
            }
        }
        for f in touched {
            if let Some(name) = crate::skill::from_path(f) {
                let path = Path::new(f);
                let path = if path.is_absolute() {
                    path.to_path_buf()
                } else {
                    event.cwd.as_deref().unwrap_or(self.workdir).join(path)
                };
                add(name, Some(path));
            }
        }
        if event.kind != EventKind::ToolDone {
            // `/name args`: only a skill found in a skills folder.
            let word = event
                .prompt
                .as_deref()
                .and_then(|p| p.split_whitespace().next())
                .unwrap_or("");
            if let Some(rest) = word.strip_prefix('/').filter(|r| !r.is_empty()) {
                if let Ok(name) = crate::skill::name(rest) {
                    if let Some(file) =
                        crate::skill::find(self.workdir, self.home.as_deref(), &name)
                    {
                        add(name, Some(file));
                    }
                }
            }
        }
        let mut activated = Vec::new();
        for (name, file) in found {
            let memory = !session.is_skill_active(&name)
                && file
                    .or_else(|| crate::skill::find(self.workdir, self.home.as_deref(), &name))
                    .is_some_and(|f| crate::skill::file_uses_memory(&f));
            session.note_skill(&name, memory);
            activated.push(name);
        }
        activated
    }
}

/// Reads the files an event touched for the rules with a `regex`, as every
/// road does (the CLI's `match` too): relative ones from `workdir`, a
/// regular file opened without blocking, at most [`MAX_CONTENT_BYTES`] of
/// it, at most [`MAX_CONTENT_FILES`] files for one reader.
pub fn file_contents(workdir: &Path) -> impl Fn(&str) -> Option<String> + '_ {
    let left = Cell::new(MAX_CONTENT_FILES);
    move |file: &str| {
        if left.get() == 0 {
            return None;
        }
        left.set(left.get() - 1);
        let path = Path::new(file);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            workdir.join(path)
        };
        crate::fs::read_prefix(&path, MAX_CONTENT_BYTES).ok()
    }
}

/// A model call's text holds the offer of on-request rules (the system
/// prompt is the road's whole section); a request's road places it.
fn event_has_offer_in_text(kind: EventKind) -> bool {
    matches!(kind, EventKind::ModelCall { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{ToolCall, ToolKind};
    use crate::{load, Config};
    use serde_json::json;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let file = dir.path().join(rel);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        dir
    }

    fn tool(name: &str, kind: ToolKind, input: serde_json::Value) -> Event {
        Event::new(Conversation::new("s"), EventKind::ToolDone)
            .tool(ToolCall::new(name, kind, input))
    }

    #[test]
    fn a_regex_rule_fires_on_the_content_of_a_file_a_tool_touched() {
        let dir = tree(&[
            (
                ".continue/rules/todo.md",
                "---\nregex: TODO\n---\nResolve the TODOs you touch.",
            ),
            ("src/a.ts", "// TODO: split\n"),
            ("src/b.ts", "clean\n"),
        ]);
        let formats = crate::formats_named(&["continue".to_string()]).unwrap();
        let loaded = load(&Config::named(
            dir.path(),
            dir.path().join("home"),
            &formats,
        ));
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let r = Responder::new(&loaded.rules, dir.path());
        let mut s = Session::new();
        let clean = r.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"file_path": "src/b.ts"})),
        );
        assert!(clean.text.is_empty(), "{clean:?}");
        let todo = r.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"file_path": "src/a.ts"})),
        );
        assert_eq!(todo.rules.len(), 1, "{todo:?}");
        assert!(todo.text.contains("Resolve the TODOs"), "{}", todo.text);
        r.commit(&mut s, &todo);
        // After a compaction the rule is active in the session without a read.
        s.compacted_unsent();
        let again = r.respond(
            &mut s,
            &Event::new(Conversation::new("s"), EventKind::Prompt).prompt("go on"),
        );
        assert!(again.text.contains("Resolve the TODOs"), "{}", again.text);
    }

    #[test]
    fn a_skill_md_read_through_any_shell_activates_its_skill_and_its_memory_use() {
        let dir = tree(&[
            (
                ".wave/rules/db.md",
                "---\nskills: [db-work]\n---\nUse the replica.",
            ),
            (".agents/skills/db-work/SKILL.md", "Call memory_read first."),
        ]);
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
        let r = Responder::new(&loaded.rules, dir.path());
        let mut s = Session::new();
        let event = tool(
            "exec",
            ToolKind::Other,
            json!({"command": "cat .agents/skills/db-work/SKILL.md"}),
        )
        .cwd(dir.path());
        let answer = r.respond(&mut s, &event);
        assert_eq!(answer.skills, ["db-work"]);
        assert_eq!(answer.text, "## Rules\n[db.md] Use the replica.");
        assert!(s.stop().unwrap().contains("'db-work'"));
        let stop = r.respond(
            &mut s,
            &Event::new(Conversation::new("s"), EventKind::Stop { repeated: true }),
        );
        assert!(stop.text.is_empty());
    }

    #[test]
    fn commit_records_the_version_given_not_a_later_one() {
        let dir = tree(&[(".wave/rules/ts.md", "---\npaths: '**/*.ts'\n---\nOne.")]);
        let config = Config::with_home(dir.path(), dir.path().join("home"));
        let one = load(&config).rules;
        let r = Responder::new(&one, dir.path());
        let mut s = Session::new();
        let answer = r.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"path": "a.ts"})),
        );
        std::fs::write(
            dir.path().join(".wave/rules/ts.md"),
            "---\npaths: '**/*.ts'\n---\nTwo.",
        )
        .unwrap();
        let two = load(&config).rules;
        let r2 = Responder::new(&two, dir.path());
        r2.commit(&mut s, &answer);
        let later = r2.respond(
            &mut s,
            &tool("Read", ToolKind::Read, json!({"path": "b.ts"})),
        );
        assert_eq!(later.text, "## Rules\n[ts.md] Two.");
    }

    #[test]
    fn a_model_call_matches_new_files_only_and_gives_reminders_once() {
        let dir = tree(&[
            (".wave/rules/always.md", "Be kind."),
            (".wave/rules/ts.md", "---\npaths: src/**/*.ts\n---\nStrict."),
            (
                ".wave/rules/sql.md",
                "---\ntopics: [sql]\n---\nNo SELECT *.",
            ),
        ]);
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("home")));
        let r = Responder::new(&loaded.rules, dir.path());
        let call = |reminders| EventKind::ModelCall {
            reminders,
            reset: false,
        };
        let mut s = Session::new();
        let first = Event::new(Conversation::new("s"), call(false))
            .tool(ToolCall::new(
                "read_file",
                ToolKind::Other,
                json!({"path": "src/a.ts"}),
            ))
            .prompt("the sql");
        let a = r.respond(&mut s, &first);
        assert_eq!(a.text, "=== MANDATORY RULES ===\n[sql.md] No SELECT *.\n===========================\n\n## Rules\n[always.md] Be kind.\n[ts.md] Strict.");
        // Nothing new: the same text, the files remembered.
        let b = r.respond(&mut s, &Event::new(Conversation::new("s"), call(false)));
        assert_eq!(a.text, b.text);

        let mut s = Session::new();
        let first = Event::new(Conversation::new("s"), call(true))
            .tool(ToolCall::new(
                "bash",
                ToolKind::Other,
                json!({"command": "cat src/a.ts"}),
            ))
            .prompt("hello");
        let a = r.respond(&mut s, &first);
        assert_eq!(a.text, "## Rules\n[always.md] Be kind.");
        assert_eq!(
            a.reminders
                .iter()
                .map(|r| r.rule.id.as_str())
                .collect::<Vec<_>>(),
            ["ts.md"]
        );
        r.commit(&mut s, &a);
        let b = r.respond(&mut s, &Event::new(Conversation::new("s"), call(true)));
        assert!(b.reminders.is_empty());
        let reset = Event::new(
            Conversation::new("s"),
            EventKind::ModelCall {
                reminders: true,
                reset: true,
            },
        );
        assert!(
            r.respond(&mut s, &reset).reminders.is_empty(),
            "the files are gone with the reset"
        );
    }
}
