//! One conversation's delivery state, and what is due now.
//!
//! Every road into an agent (the CLI's hooks, the MCP server, the Node
//! adapters) keeps one [`Session`] per conversation and asks it what to give
//! the model at each event: the session starts (startup, resume, after a
//! compaction or a clear), a prompt arrives, files are touched (read or
//! written, by any tool), the turn stops, the conversation is compacted, or a
//! saved transcript is read back. The answer ([`Due`]) names the rules and
//! carries their text, rendered by [`crate::delivery::render`].
//!
//! Computing what is due changes nothing that was delivered: the caller sends
//! the text and then calls [`Session::commit`], so a send that fails is
//! retried at the next event. A rule counts as delivered in the version (a
//! hash of its text) that was sent: a rule edited since comes again.
//!
//! `Session` is serde-serialisable (the hooks store it as their state file).
//! Every collection it holds is bounded: [`MAX_SESSION_FILES`] files,
//! [`MAX_SESSION_RULES`] rule ids per collection, [`MAX_SKILLS`] active
//! skills; past the bound nothing more is recorded (a rule not recorded as
//! delivered is simply delivered again).
//!
//! Skills: [`Session::skill`] records a skill the agent activated (with
//! whether its `SKILL.md` uses the memory tools, which the caller read once
//! then) and gives the rules whose `skills` name it. A skill stays active
//! until the session starts afresh; after a compaction its rules come again.
//! While a skill that uses memory is active, [`Session::stop`] adds the
//! memory reminder ([`crate::delivery::skills::memory_reminder`]).

pub use crate::base::limits::{MAX_SKILLS, MAX_SUBAGENTS};
use crate::delivery::render::{plan_rules, RenderOptions};
use crate::rules::rule::{Remind, Rule};
use crate::rules::rule_set::{Contents, RuleSet};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::base::limits::MAX_SESSION_FILES;
pub use crate::base::limits::MAX_SESSION_RULES;
/// The version this module writes; state of another version is read as a
/// fresh session.
pub const SESSION_VERSION: u32 = 2;

/// How a session starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A new conversation.
    Startup,
    /// A conversation resumed: it still holds what it was given.
    Resume,
    /// After a compaction: the conversation lost what it was given.
    Compact,
    /// After a clear: the same as a compaction.
    Clear,
}

impl Start {
    /// `startup`, `resume`, `compact` or `clear`; anything else is a startup.
    pub fn parse(name: &str) -> Start {
        match name {
            "resume" => Start::Resume,
            "compact" => Start::Compact,
            "clear" => Start::Clear,
            _ => Start::Startup,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Start::Startup => "startup",
            Start::Resume => "resume",
            Start::Compact => "compact",
            Start::Clear => "clear",
        }
    }
}

/// The budget of a rendered rules section and how it is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Budget {
    pub max_lines: Option<usize>,
    pub max_bytes: Option<usize>,
    /// Rules given before keep their places when given again (a prompt
    /// cache keeps its prefix): the session's render order is passed on.
    pub keep_order: bool,
}

impl Budget {
    /// The budget of a rules section handed to an agent unless told
    /// otherwise: [`crate::base::limits::DEFAULT_RULES_BYTES`], no line limit.
    pub fn agents() -> Budget {
        Budget {
            max_lines: None,
            max_bytes: Some(crate::base::limits::DEFAULT_RULES_BYTES),
            keep_order: false,
        }
    }
}

/// A model call (an SDK middleware): how the road delivers, and whether the
/// conversation is the one seen so far (see [`crate::delivery::event::EventKind::ModelCall`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Call {
    /// Conditional rules go as reminders; the text holds the always-on ones.
    pub reminders: bool,
    /// What the conversation was given and touched is gone.
    pub reset: bool,
}

/// What is due now: the text to put in front of the model and the rules it
/// holds. Nothing is marked delivered until [`Session::commit`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Due {
    /// The rendered text ('' when nothing is due).
    pub text: String,
    /// Indices (into the set's rules) rendered, in the order rendered.
    pub rules: Vec<usize>,
    /// Ids left out to fit the budget.
    pub omitted: Vec<String>,
    /// Indices of the rules active but already delivered (not rendered again).
    pub given: Vec<usize>,
    /// The answer to a session start: committing it marks the session started.
    pub starts: bool,
    /// It gives again what a compaction took (see [`Session::compacted_unsent`]):
    /// committing it ends that.
    pub regives: bool,
    /// Ids of the memory entries in the text ([`Session::recall`]).
    pub memory: Vec<String>,
}

/// What is due at a model call ([`Session::model_call`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallDue {
    pub due: Due,
    /// Indices of the conditional rules to give as reminders, ascending.
    pub reminders: Vec<usize>,
    /// Indices of every rule active in the conversation, ascending.
    pub active: Vec<usize>,
}

/// A `remind: every-turn` rule active in the session, with its short line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sticky {
    pub id: String,
    pub line: String,
    /// The rule's version ([`rule_version`]), for the delivery log (empty
    /// in state files written before it was kept).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
}

/// A skill active in the session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveSkill {
    /// As [`crate::rules::skill_name::name`] gives it.
    pub name: String,
    /// Its `SKILL.md` uses the memory tools (read when it became active).
    pub memory: bool,
}

/// One conversation's delivery state (see the module comment).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Session {
    pub version: u32,
    /// A session start was delivered.
    pub started: bool,
    /// How many times the conversation was compacted (or cleared).
    pub compactions: u32,
    /// Compacted by an event that could not carry the rules: every rule
    /// active in the session is due at the next prompt or files touched.
    pub regive: bool,
    /// The size of the model's latest prompt, in tokens, as last seen
    /// ([`Session::prompt_size`]); 0 when unknown.
    pub prompt_tokens: u64,
    /// Rule id -> version (hash of its text) delivered since the start or
    /// the last compaction.
    delivered: BTreeMap<String, String>,
    /// Workdir-relative files the session's tools touched.
    files: BTreeSet<String>,
    /// Ids of every rule a prompt topic activated in the session.
    topics: BTreeSet<String>,
    /// Ids of the rules the latest prompt's topics activated.
    prompt_topics: Vec<String>,
    /// Ids of the manual and on-request rules the latest prompt mentions.
    mentioned: Vec<String>,
    /// Ids in the order they were rendered (for [`Budget::keep_order`]).
    order: Vec<String>,
    /// The `remind: every-turn` rules active now: what [`Session::stop`] reads.
    sticky: Vec<Sticky>,
    /// The skills active in the session, sorted by name, at most
    /// [`MAX_SKILLS`] (absent in state files written before skills: none).
    skills: Vec<ActiveSkill>,
    /// Ids of the memory entries given since the start or the last
    /// compaction, at most [`MAX_SESSION_MEMORY`].
    memory: BTreeSet<String>,
    /// Ids of the memory entries given before the last compaction: due
    /// again with what the compaction took.
    memory_before: Vec<String>,
    /// The latest memory recalled at a model call: a model call's section is
    /// written anew each call, and keeps it after the rules until a later
    /// recall replaces it or a compaction takes it.
    recalled: String,
    /// The index of topics recalled at the first model call.
    recalled_index: String,
    /// Ids of the rules a file's content activated (a `regex`), at most
    /// [`MAX_SESSION_RULES`]: they are active in the session as the files
    /// are, without the files being read again.
    by_content: BTreeSet<String>,
    /// Rules at the edit they govern: the tool calls counted, and when each
    /// path rule was last put in front of the model ([`crate::delivery::rules_at_edit`]).
    pub recall: crate::delivery::rules_at_edit::Recall,
    /// The subagents started in this session and not stopped yet, oldest
    /// first, at most [`MAX_SUBAGENTS`] ([`Session::subagent_started`]).
    subagents: Vec<LiveSubagent>,
    /// Tasks the session's subagent tool announced, not started yet, oldest
    /// first, at most [`MAX_SUBAGENTS`].
    tasks: Vec<PendingTask>,
    /// What was computed from the rule set in use, kept while it is (never saved).
    #[serde(skip)]
    derived: Derived,
}

/// At most this many memory entry ids are remembered per session (given
/// now, and given before the last compaction).
pub use crate::base::limits::MAX_SESSION_MEMORY;

/// Where in the conversation memory is recalled ([`Session::recall`]).
#[derive(Clone, Copy, Debug)]
pub enum RecallAt<'a> {
    /// The answer to a session start (resume: nothing when it started).
    Start(Start),
    /// A prompt.
    Prompt(&'a str),
    /// Files touched (absolute or relative to the workdir).
    Files(&'a [String]),
}

/// A subagent of the session, live until its stop.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveSubagent {
    /// The agent's id of the subagent (its conversation's `subagent`).
    pub id: String,
    /// Its type, as the agent names it ('' when unknown).
    pub kind: String,
}

/// A subagent's task, announced by the session's subagent tool before the
/// subagent starts (Claude Code's `Agent` input: its start event does not
/// carry it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingTask {
    pub kind: String,
    pub prompt: String,
}

/// What a session computed from one rule set ([`RuleSet::id`]), kept while
/// that set is in use: a model call then matches only the files new to the
/// conversation, and renders only when what it renders changed.
#[derive(Clone, Debug, Default)]
struct Derived {
    set: u64,
    /// Conditional rules the session's files activated (paths, content), ascending.
    fired: BTreeSet<usize>,
    /// The last model call's text, by a hash of what it was made of.
    rendered: Option<(u64, Due)>,
}

/// Derived state is a cache: two sessions that recorded the same are equal.
impl PartialEq for Derived {
    fn eq(&self, _: &Derived) -> bool {
        true
    }
}

impl Eq for Derived {}

/// The `remind: every-turn` rules among these, with their short lines.
fn sticky_of(set: &RuleSet, active: impl IntoIterator<Item = usize>) -> Vec<Sticky> {
    let rules = set.rules();
    active
        .into_iter()
        .filter(|&i| rules[i].metadata.remind == Some(Remind::EveryTurn))
        .take(MAX_SESSION_RULES)
        .map(|i| Sticky {
            id: rules[i].id.clone(),
            line: crate::delivery::render::sticky_line(&rules[i]),
            version: rule_version(&rules[i]),
        })
        .collect()
}

/// A contents reader that reads nothing: `regex` rules are then decided by
/// what the session recorded ([`Session::by_content`]), not by their globs.
fn no_contents(_: &str) -> Option<String> {
    None
}

/// The version of a rule: a hash of its id and text (FNV-1a, 64 bits,
/// stable across versions and platforms), as 16 hex digits.
pub fn rule_version(rule: &Rule) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in rule.id.bytes().chain([0]).chain(rule.content.bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The rules that fire on something (files, topics, content, a mention, a
/// request), as opposed to the always-on ones.
pub fn is_conditional(rule: &Rule) -> bool {
    !rule.metadata.is_unconditional()
}

impl Session {
    pub fn new() -> Session {
        Session {
            version: SESSION_VERSION,
            ..Session::default()
        }
    }

    /// Whether this rule, in its current version, was delivered.
    pub fn is_delivered(&self, rule: &Rule) -> bool {
        self.delivered
            .get(&rule.id)
            .is_some_and(|v| *v == rule_version(rule))
    }

    /// Ids delivered since the start or the last compaction, sorted.
    pub fn delivered_ids(&self) -> Vec<String> {
        self.delivered.keys().cloned().collect()
    }

    /// The files touched, sorted.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(String::as_str)
    }

    /// The `remind: every-turn` rules active as of the last event.
    pub fn sticky(&self) -> &[Sticky] {
        &self.sticky
    }

    /// The skills active in the session, sorted by name.
    pub fn skills(&self) -> &[ActiveSkill] {
        &self.skills
    }

    /// Whether this skill (any spelling [`crate::rules::skill_name::name`] accepts) is
    /// active in the session.
    pub fn is_skill_active(&self, name: &str) -> bool {
        crate::rules::skill_name::name(name).is_ok_and(|n| {
            self.skills
                .binary_search_by(|s| s.name.as_str().cmp(&n))
                .is_ok()
        })
    }

    /// Records a skill as active (see [`Session::skill`]) without computing
    /// what is due: the next event's answer ([`Session::prompt`],
    /// [`Session::files_touched`]) holds its rules. Returns whether it is
    /// recorded (false for a refused name or past [`MAX_SKILLS`]).
    pub fn note_skill(&mut self, name: &str, memory: bool) -> bool {
        let Ok(name) = crate::rules::skill_name::name(name) else {
            return false;
        };
        match self.skills.binary_search_by(|s| s.name.cmp(&name)) {
            Ok(at) => self.skills[at].memory |= memory,
            Err(at) if self.skills.len() < MAX_SKILLS => {
                self.skills.insert(at, ActiveSkill { name, memory })
            }
            Err(_) => return false,
        }
        true
    }

    fn skill_names(&self) -> Vec<&str> {
        self.skills.iter().map(|s| s.name.as_str()).collect()
    }

    /// A skill becomes active (the agent's skill tool, a `/name` prompt, a
    /// read of its `SKILL.md`); `memory`: its `SKILL.md` uses the memory
    /// tools (the caller read it once, now, so [`Session::stop`] needs no
    /// file). Gives the rules whose `skills` name it that the session was
    /// not given. Past [`MAX_SKILLS`] skills, a new one is not recorded
    /// (its rules are still given now). A name [`crate::rules::skill_name::name`]
    /// refuses gives nothing.
    pub fn skill(&mut self, set: &RuleSet, name: &str, memory: bool, budget: Budget) -> Due {
        let Ok(name) = crate::rules::skill_name::name(name) else {
            return Due::default();
        };
        self.note_skill(&name, memory);
        let rules = set.rules();
        let give: Vec<usize> = set
            .skill_rules(&name)
            .into_iter()
            .filter(|&i| !self.is_delivered(&rules[i]))
            .collect();
        self.update_sticky(set);
        self.render(set, &give, &HashSet::new(), None, budget)
    }

    /// The session starts. `memory` (already read by the caller) comes after
    /// the rules. Startup: a fresh session, the always-on rules. Resume: the
    /// always-on rules it was not given (memory only if it never started).
    /// Compact / clear: everything active in the session again.
    pub fn start(
        &mut self,
        set: &RuleSet,
        how: Start,
        memory: Option<&str>,
        budget: Budget,
    ) -> Due {
        let rules = set.rules();
        let mut give: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional())
            .collect();
        let mut with_memory = true;
        match how {
            Start::Startup => *self = Session::new(),
            Start::Resume => {
                give.retain(|&i| !self.is_delivered(&rules[i]));
                with_memory = !self.started;
            }
            Start::Compact | Start::Clear => {
                self.compacted();
                give = self.active_in_session(set);
            }
        }
        self.update_sticky(set);
        let memory = if with_memory { memory } else { None };
        let mut due = self.render(set, &give, &HashSet::new(), memory, budget);
        due.starts = true;
        due.regives = matches!(how, Start::Compact | Start::Clear);
        due
    }

    /// A prompt: the rules its topics activate, as constraints, every time;
    /// with them the always-on rules the session was not given (no start was
    /// seen, or a rule was added since), and the rules of its active skills
    /// it was not given.
    pub fn prompt(&mut self, set: &RuleSet, prompt: &str, budget: Budget) -> Due {
        let rules = set.rules();
        let topic = self.note_prompt(set, Some(prompt));
        let mut give: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional() && !self.is_delivered(&rules[i]))
            .collect();
        if !self.skills.is_empty() && set.has_skill_rules() {
            let none: [&str; 0] = [];
            give.extend(
                set.active_in(&none, None, &self.skill_names(), None)
                    .into_iter()
                    .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i])),
            );
        }
        give.extend(topic.iter().copied());
        give.extend(self.regiven(set));
        give.sort_unstable();
        give.dedup();
        self.update_sticky(set);
        let topic: HashSet<usize> = topic.into_iter().collect();
        let mut due = self.render(set, &give, &topic, None, budget);
        due.regives = self.regive;
        due
    }

    /// Files touched (read or written, by any tool; absolute or relative to
    /// the workdir): the conditional rules they activate that the session was
    /// not given. Files outside the workdir are ignored.
    pub fn files_touched<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        budget: Budget,
    ) -> Due {
        self.files_touched_in(set, files, None, budget)
    }

    /// [`Session::files_touched`], with the files' contents for the rules
    /// with a `regex` (read by the caller, bounded).
    pub fn files_touched_in<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        contents: Option<Contents>,
        budget: Budget,
    ) -> Due {
        let rel = self.note_files(set, files);
        let rules = set.rules();
        let active = self.active_for(set, &rel, None, contents);
        let mut give: Vec<usize> = active
            .into_iter()
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect();
        give.extend(self.regiven(set));
        give.sort_unstable();
        give.dedup();
        self.update_sticky(set);
        let mut due = self.render(set, &give, &HashSet::new(), None, budget);
        due.regives = self.regive;
        due
    }

    /// A request for the rules of these files and this prompt (the MCP
    /// server's `rules_for_files`): every rule active for them, the ones
    /// already delivered named in [`Due::given`] instead of rendered, unless
    /// `again`.
    pub fn request<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        again: bool,
        budget: Budget,
    ) -> Due {
        self.request_in(set, files, prompt, again, None, budget)
    }

    /// [`Session::request`], with the files' contents for the rules with a
    /// `regex` (read by the caller, bounded).
    pub fn request_in<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        again: bool,
        contents: Option<Contents>,
        budget: Budget,
    ) -> Due {
        let rel = self.note_files(set, files);
        let topic = self.note_prompt(set, prompt);
        let rules = set.rules();
        let (given, give): (Vec<usize>, Vec<usize>) = self
            .active_for(set, &rel, prompt, contents)
            .into_iter()
            .partition(|&i| !again && self.is_delivered(&rules[i]));
        self.update_sticky(set);
        let topic: HashSet<usize> = topic.into_iter().collect();
        let mut due = self.render(set, &give, &topic, None, budget);
        due.given = given;
        // The first request starts the session.
        due.starts = !self.started;
        due
    }

    /// Reminder mode: the conditional rules active for these files in context
    /// (added to the session's; the sticky rules are those of these files) and this prompt that the session was not given, in
    /// result order. Each is delivered as its own reminder
    /// ([`crate::delivery::render::reminder`]); commit them with [`Session::commit_ids`].
    pub fn reminders<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
    ) -> Vec<usize> {
        self.reminders_in(set, files, prompt, None)
    }

    /// [`Session::reminders`], with the files' contents for the rules with a
    /// `regex` (read by the caller, bounded).
    pub fn reminders_in<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
    ) -> Vec<usize> {
        let rel = self.note_files(set, files);
        self.note_prompt(set, prompt);
        let rules = set.rules();
        let due = self
            .active_for(set, &rel, prompt, contents)
            .into_iter()
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect();
        // The files in context now, not every file the session touched.
        self.sticky_for(set, &rel);
        due
    }

    /// A model call (an SDK middleware): `files` the conversation touched
    /// since the last call, `prompt` the latest user text when it changed.
    /// The text holds every rule active in the conversation (always-on, of
    /// every file it touched, of the latest prompt's topics and mentions, of
    /// its active skills), topic rules first, in the order they were given
    /// before, then `memory`; in reminder mode ([`Call::reminders`]) only the
    /// always-on rules, and the second list names the conditional rules
    /// active and not given, each for a reminder of its own. Only the files
    /// new to the conversation are matched while the rule set is the same;
    /// the text is rendered again only when what it holds changed.
    #[allow(clippy::too_many_arguments)]
    pub fn model_call<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        files: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
        call: Call,
        memory: Option<&str>,
        budget: Budget,
    ) -> CallDue {
        if call.reset {
            self.compacted();
            self.files.clear();
            self.by_content.clear();
            self.derived = Derived::default();
        }
        let rel = self.note_files(set, files);
        let topic = match prompt {
            Some(_) => self.note_prompt(set, prompt),
            None => self.indices(set, self.prompt_topics.iter()),
        };
        let now = self.fire(set, &rel, contents);
        let rules = set.rules();
        // Active now: always-on, this call's files, the prompt, the skills.
        let mut active: BTreeSet<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional())
            .collect();
        active.extend(now);
        active.extend(topic.iter().copied());
        active.extend(self.indices(set, self.mentioned.iter()));
        if !self.skills.is_empty() && set.has_skill_rules() {
            let none: [&str; 0] = [];
            active.extend(set.active_in(&none, None, &self.skill_names(), None));
        }
        // The sticky rules are those of the files in context now.
        self.sticky = sticky_of(set, active.iter().copied());
        active.extend(self.derived.fired.iter().copied());
        let budget = Budget {
            keep_order: true,
            ..budget
        };
        let active: Vec<usize> = active.into_iter().collect();
        if !call.reminders {
            let due = self.render_once(set, &active, &topic, memory, budget);
            return CallDue {
                due,
                reminders: Vec::new(),
                active,
            };
        }
        let always: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&i| !is_conditional(&rules[i]))
            .collect();
        let due = self.render_once(set, &always, &[], memory, budget);
        let reminders = active
            .iter()
            .copied()
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect();
        CallDue {
            due,
            reminders,
            active,
        }
    }

    /// [`Session::render`] for a model call, skipped when its input is what
    /// the last call rendered; the render order becomes the session's (the
    /// next call keeps it).
    fn render_once(
        &mut self,
        set: &RuleSet,
        give: &[usize],
        topic: &[usize],
        memory: Option<&str>,
        budget: Budget,
    ) -> Due {
        let mut topic = topic.to_vec();
        topic.sort_unstable();
        let key = |order: &[String]| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (set.id(), give, &topic, memory, budget, order).hash(&mut h);
            h.finish()
        };
        if let Some((k, due)) = &self.derived.rendered {
            if *k == key(&self.order) {
                return due.clone();
            }
        }
        let due = self.render(set, give, &topic.iter().copied().collect(), memory, budget);
        self.order = due
            .rules
            .iter()
            .map(|&i| set.rules()[i].id.clone())
            .take(MAX_SESSION_RULES)
            .collect();
        self.derived.rendered = Some((key(&self.order), due.clone()));
        due
    }

    /// The conditional rules these files activate (by paths, or by content
    /// where `contents` reads it), added to [`Derived::fired`]; with another
    /// rule set than last time, every other file of the session is matched
    /// again first.
    fn fire(&mut self, set: &RuleSet, rel: &[String], contents: Option<Contents>) -> Vec<usize> {
        let rules = set.rules();
        if self.derived.set != set.id() {
            self.derived = Derived {
                set: set.id(),
                ..Derived::default()
            };
            let others: Vec<String> = self
                .files
                .iter()
                .filter(|f| !rel.contains(f))
                .cloned()
                .collect();
            if !others.is_empty() || !self.by_content.is_empty() {
                let fired: Vec<usize> = self
                    .active_known(set, &others, None, None)
                    .into_iter()
                    .filter(|&i| is_conditional(&rules[i]))
                    .collect();
                self.derived.fired.extend(fired);
            }
        }
        if rel.is_empty() {
            return Vec::new();
        }
        let now: Vec<usize> = self
            .active_for(set, rel, None, contents)
            .into_iter()
            .filter(|&i| is_conditional(&rules[i]))
            .collect();
        self.derived.fired.extend(now.iter().copied());
        now
    }

    /// Reminder mode, when the caller already knows what is active: of these
    /// rules (by id; unknown ids are skipped), the conditional ones the
    /// session was not given, in result order. Records nothing.
    pub fn undelivered<S: AsRef<str>>(&self, set: &RuleSet, ids: &[S]) -> Vec<usize> {
        let wanted: HashSet<&str> = ids.iter().map(AsRef::as_ref).collect();
        if wanted.is_empty() {
            return Vec::new();
        }
        let rules = set.rules();
        (0..rules.len())
            .filter(|&i| wanted.contains(rules[i].id.as_str()))
            .filter(|&i| is_conditional(&rules[i]) && !self.is_delivered(&rules[i]))
            .collect()
    }

    /// The turn stops: the reason to give the model for the active
    /// `remind: every-turn` rules and, while skills that use memory are
    /// active, the memory reminder (one text), or `None` when there is
    /// neither. Reads only the session (no rule set, no file): whether a
    /// skill uses memory was read when it became active.
    pub fn stop(&self) -> Option<String> {
        let sticky = (!self.sticky.is_empty()).then(|| {
            let lines: Vec<String> = self.sticky.iter().map(|s| s.line.clone()).collect();
            crate::delivery::render::stop_reminder(&lines)
        });
        // O(1) when no skill is active: an empty list, nothing else looked at.
        let memory = if self.skills.is_empty() {
            None
        } else {
            let using: Vec<&str> = self
                .skills
                .iter()
                .filter(|s| s.memory)
                .map(|s| s.name.as_str())
                .collect();
            (!using.is_empty()).then(|| crate::delivery::skills::memory_reminder(&using))
        };
        match (sticky, memory) {
            (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
            (a, b) => a.or(b),
        }
    }

    /// The session's subagent tool is about to start a subagent with this
    /// task: it waits for the subagent's start ([`Session::subagent_started`]).
    /// Past [`MAX_SUBAGENTS`] waiting tasks the oldest is dropped.
    pub fn task_announced(&mut self, kind: &str, prompt: &str) {
        if self.tasks.len() >= MAX_SUBAGENTS {
            self.tasks.remove(0);
        }
        self.tasks.push(PendingTask {
            kind: kind.to_string(),
            prompt: prompt.to_string(),
        });
    }

    /// A subagent of this session starts: it is live until
    /// [`Session::subagent_stopped`]. Returns the task announced for it (the
    /// oldest waiting one of its type, else of no type) and the ids of the
    /// subagents past [`MAX_SUBAGENTS`] that are forgotten to make room
    /// (the oldest: the road drops their conversations; one that comes back
    /// starts empty, its rules given again).
    pub fn subagent_started(
        &mut self,
        id: &str,
        kind: Option<&str>,
    ) -> (Option<String>, Vec<String>) {
        let kind = kind.unwrap_or("");
        let at = self.tasks.iter().position(|t| t.kind == kind).or_else(|| {
            self.tasks
                .iter()
                .position(|t| t.kind.is_empty() || kind.is_empty())
        });
        let task = at.map(|i| self.tasks.remove(i).prompt);
        self.subagents.retain(|s| s.id != id);
        let mut forgotten = Vec::new();
        while self.subagents.len() >= MAX_SUBAGENTS {
            forgotten.push(self.subagents.remove(0).id);
        }
        self.subagents.push(LiveSubagent {
            id: id.to_string(),
            kind: kind.to_string(),
        });
        (task, forgotten)
    }

    /// A subagent of this session stopped. Returns whether it was live.
    pub fn subagent_stopped(&mut self, id: &str) -> bool {
        let before = self.subagents.len();
        self.subagents.retain(|s| s.id != id);
        before != self.subagents.len()
    }

    /// The subagents live in this session, oldest first.
    pub fn subagents(&self) -> &[LiveSubagent] {
        &self.subagents
    }

    /// The conversation was compacted (or cleared): what was delivered is no
    /// longer in it.
    pub fn compacted(&mut self) {
        self.recall.forget();
        self.delivered.clear();
        self.order.clear();
        self.recalled.clear();
        self.recalled_index.clear();
        if !self.memory.is_empty() {
            self.memory_before = std::mem::take(&mut self.memory)
                .into_iter()
                .take(MAX_SESSION_MEMORY)
                .collect();
        }
        self.compactions = self.compactions.saturating_add(1);
        self.prompt_tokens = 0;
    }

    /// The size of the model's latest prompt, in tokens, as the agent
    /// records it. A conversation only grows until something leaves it: a
    /// prompt smaller than the last one seen means it was compacted (or tool
    /// outputs were cut), so it counts as [`Session::compacted_unsent`].
    /// Returns whether it shrank.
    pub fn prompt_size(&mut self, tokens: u64) -> bool {
        let shrank = tokens < self.prompt_tokens;
        if shrank {
            self.compacted_unsent();
        }
        self.prompt_tokens = tokens;
        shrank
    }

    /// The conversation is compacted, told by an event whose output does not
    /// reach the model (Copilot CLI's `preCompact`, Gemini CLI's `/compress`):
    /// [`Session::compacted`], and every rule active in the session (always-on,
    /// the files touched, the topics fired) is due at the next [`Session::prompt`]
    /// or [`Session::files_touched`], until a commit of that answer.
    pub fn compacted_unsent(&mut self) {
        self.compacted();
        self.regive = true;
    }

    /// Every rule active in the session: always-on, of the files touched, of
    /// the topics fired.
    fn active_in_session(&self, set: &RuleSet) -> Vec<usize> {
        let rules = set.rules();
        let mut give: Vec<usize> = (0..rules.len())
            .filter(|&i| rules[i].metadata.is_unconditional())
            .collect();
        give.extend(self.active_known(set, &self.file_list(), None, None));
        give.extend(self.indices(set, self.topics.iter()));
        give.sort_unstable();
        give.dedup();
        give
    }

    /// After [`Session::compacted_unsent`]: what the compaction took and the
    /// session was not given since.
    fn regiven(&self, set: &RuleSet) -> Vec<usize> {
        if !self.regive {
            return Vec::new();
        }
        let rules = set.rules();
        self.active_in_session(set)
            .into_iter()
            .filter(|&i| !self.is_delivered(&rules[i]))
            .collect()
    }

    /// Reads a saved transcript back: the rules whose reminder
    /// (`<system-reminder rule="id">`) or rendered entry (`[id] text`)
    /// appears in it count as delivered. Give only the text since the last
    /// compaction.
    pub fn restore(&mut self, set: &RuleSet, transcript: &str) {
        let reminded: HashSet<String> = crate::delivery::render::reminder_ids(transcript)
            .into_iter()
            .collect();
        for rule in set.rules() {
            if reminded.contains(&rule.id) || transcript.contains(&crate::delivery::render::entry(rule)) {
                self.mark(rule);
            }
        }
        self.started |= !self.delivered.is_empty();
    }

    /// The text of `due` reached the model: its rules count as delivered.
    pub fn commit(&mut self, set: &RuleSet, due: &Due) {
        for &i in &due.rules {
            if let Some(rule) = set.rules().get(i) {
                self.mark(rule);
            }
        }
        self.started |= due.starts;
        if due.regives {
            self.regive = false;
            self.memory_before.clear();
        }
        for id in &due.memory {
            if self.memory.len() < MAX_SESSION_MEMORY {
                self.memory.insert(id.clone());
            }
        }
    }

    /// These memory entries (ids) reached the model (for callers that keep
    /// answers by id, as the binding does).
    pub fn commit_memory<S: AsRef<str>>(&mut self, ids: &[S]) {
        for id in ids {
            if self.memory.len() < MAX_SESSION_MEMORY {
                self.memory.insert(id.as_ref().to_string());
            }
        }
    }

    /// The memory recalled at model calls ('' for none): the index of
    /// topics given at the first call, then the latest recall.
    pub fn recalled(&self) -> String {
        match (self.recalled_index.as_str(), self.recalled.as_str()) {
            (a, "") => a.to_string(),
            ("", b) => b.to_string(),
            (a, b) => format!("{a}\n\n{b}"),
        }
    }

    /// Keeps what a model call recalled (see [`Session::recalled`]): `index`
    /// (at the first call) and `latest` each replace the one before unless
    /// empty.
    pub fn set_recalled(&mut self, index: &str, latest: &str) {
        if !index.is_empty() {
            self.recalled_index = index.to_string();
        }
        if !latest.is_empty() {
            self.recalled = latest.to_string();
        }
    }

    /// Whether this memory entry was given since the start or the last
    /// compaction.
    pub fn has_memory(&self, id: &str) -> bool {
        self.memory.contains(id)
    }

    /// Adds the memory due at this point of the conversation to `due`
    /// ([`crate::memory::recall`]): at a start, the index of topics and the
    /// pinned entries (after a compaction, with the entries given before
    /// it); at a prompt or files touched, the most relevant entries the
    /// conversation was not given (and, after a compaction told by an event
    /// that reached no model, those given before it). Committing `due`
    /// records them as given. Call it after the rules' answer for the same
    /// event (`start`, `prompt`, `files_touched`).
    pub fn recall(
        &self,
        due: &mut Due,
        set: &RuleSet,
        index: &crate::memory::MemoryIndex,
        at: RecallAt<'_>,
        budget: crate::memory::recall::RecallBudget,
    ) {
        use crate::memory::recall::{recall, RecallEvent};
        let taken: HashSet<String> = due.memory.iter().cloned().collect();
        let given = |id: &str| self.memory.contains(id) || taken.contains(id);
        let mut parts: Vec<crate::memory::recall::Recalled> = Vec::new();
        match at {
            RecallAt::Start(how) => {
                if how == Start::Resume && self.started {
                    return;
                }
                let again: &[String] = if matches!(how, Start::Compact | Start::Clear) {
                    &self.memory_before
                } else {
                    &[]
                };
                parts.push(recall(index, RecallEvent::Start { again }, &given, budget));
            }
            RecallAt::Prompt(prompt) => {
                if self.regive && !self.memory_before.is_empty() {
                    parts.push(regiven(index, &self.memory_before, &given, budget));
                }
                parts.push(recall(index, RecallEvent::Prompt(prompt), &given, budget));
            }
            RecallAt::Files(files) => {
                if self.regive && !self.memory_before.is_empty() {
                    parts.push(regiven(index, &self.memory_before, &given, budget));
                }
                let rel: Vec<String> = files
                    .iter()
                    .filter_map(|f| set.normalize(f).map(|r| r.into_owned()))
                    .collect();
                if !rel.is_empty() {
                    parts.push(recall(index, RecallEvent::Files(&rel), &given, budget));
                }
            }
        }
        for part in parts {
            if part.text.is_empty() {
                continue;
            }
            if !due.text.is_empty() {
                due.text.push_str("\n\n");
            }
            due.text.push_str(&part.text);
            for id in part.ids() {
                if !due.memory.contains(&id) {
                    due.memory.push(id);
                }
            }
        }
    }

    /// These rules (indices) reached the model.
    pub fn commit_ids(&mut self, set: &RuleSet, indices: &[usize]) {
        for &i in indices {
            if let Some(rule) = set.rules().get(i) {
                self.mark(rule);
            }
        }
    }

    /// These rules (by id, as found in `set`) reached the model; `starts`:
    /// the answer to a session start.
    pub fn commit_named<S: AsRef<str>>(&mut self, set: &RuleSet, ids: &[S], starts: bool) {
        for id in ids {
            if let Some(rule) = set.find(id.as_ref()) {
                self.mark(rule);
            }
        }
        self.started |= starts;
    }

    fn mark(&mut self, rule: &Rule) {
        self.mark_version(&rule.id, &rule_version(rule));
    }

    fn mark_version(&mut self, id: &str, version: &str) {
        if self.delivered.len() < MAX_SESSION_RULES || self.delivered.contains_key(id) {
            self.delivered.insert(id.to_string(), version.to_string());
        }
        if self.order.len() < MAX_SESSION_RULES && !self.order.iter().any(|o| o == id) {
            self.order.push(id.to_string());
        }
    }

    /// These rules, each in the version given (id, [`rule_version`]),
    /// reached the model (see [`crate::delivery::responder::Responder::commit`]).
    pub fn commit_given<'a>(&mut self, given: impl IntoIterator<Item = (&'a str, &'a str)>) {
        for (id, version) in given {
            self.mark_version(id, version);
        }
    }

    /// An answer that reached the model started the session (`starts`) or
    /// gave again what a compaction took (`regives`).
    pub fn commit_flags(&mut self, starts: bool, regives: bool) {
        self.started |= starts;
        if regives {
            self.regive = false;
            self.memory_before.clear();
        }
    }

    fn file_list(&self) -> Vec<&str> {
        self.files.iter().map(String::as_str).collect()
    }

    /// The rules active for these (workdir-relative) files and prompt with
    /// the session's skills (see [`Session::active_known`]); the rules with
    /// a `regex` that `contents` found are recorded in [`Session::by_content`].
    fn active_for<S: AsRef<str>>(
        &mut self,
        set: &RuleSet,
        rel: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
    ) -> Vec<usize> {
        let active = self.active_known(set, rel, prompt, contents);
        if contents.is_some() && set.has_content_rules() {
            let rules = set.rules();
            for &i in &active {
                if rules[i].metadata.regex.is_some() && self.by_content.len() < MAX_SESSION_RULES {
                    self.by_content.insert(rules[i].id.clone());
                }
            }
        }
        active
    }

    /// The rules active for these (workdir-relative) files and prompt with
    /// the session's skills. A rule with a `regex` is active when `contents`
    /// reads a file it matches, or when the session recorded it so before;
    /// never by its globs alone.
    fn active_known<S: AsRef<str>>(
        &self,
        set: &RuleSet,
        rel: &[S],
        prompt: Option<&str>,
        contents: Option<Contents>,
    ) -> Vec<usize> {
        let skills = self.skill_names();
        if !set.has_content_rules() {
            return set.active_in(rel, prompt, &skills, None);
        }
        let mut active =
            set.active_in(rel, prompt, &skills, Some(contents.unwrap_or(&no_contents)));
        let before = active.len();
        active.extend(self.indices(set, self.by_content.iter()));
        if active.len() != before {
            active.sort_unstable();
            active.dedup();
        }
        active
    }

    /// Adds the files (normalized against the workdir) and returns them.
    fn note_files<S: AsRef<str>>(&mut self, set: &RuleSet, files: &[S]) -> Vec<String> {
        let mut rel = Vec::with_capacity(files.len());
        for f in files {
            if let Some(r) = set.normalize(f.as_ref()) {
                let r = r.into_owned();
                if self.files.len() < MAX_SESSION_FILES && !self.files.contains(&r) {
                    self.files.insert(r.clone());
                }
                rel.push(r);
            }
        }
        rel
    }

    /// Records the prompt's topic rules and mentions; returns the topic
    /// rules' indices.
    fn note_prompt(&mut self, set: &RuleSet, prompt: Option<&str>) -> Vec<usize> {
        let Some(prompt) = prompt else {
            return Vec::new();
        };
        let rules = set.rules();
        let topic = set.topic_active(prompt);
        self.prompt_topics = topic.iter().map(|&i| rules[i].id.clone()).collect();
        for id in &self.prompt_topics {
            if self.topics.len() < MAX_SESSION_RULES {
                self.topics.insert(id.clone());
            }
        }
        let none: [&str; 0] = [];
        let with_mentions = set.active(&none, Some(prompt));
        self.mentioned = with_mentions
            .into_iter()
            .filter(|&i| rules[i].metadata.activation != crate::rules::rule::Activation::Auto)
            .map(|i| rules[i].id.clone())
            .take(MAX_SESSION_RULES)
            .collect();
        topic
    }

    fn indices<'a>(&self, set: &RuleSet, ids: impl Iterator<Item = &'a String>) -> Vec<usize> {
        let wanted: HashSet<&str> = ids.map(String::as_str).collect();
        (0..set.rules().len())
            .filter(|&i| wanted.contains(set.rules()[i].id.as_str()))
            .collect()
    }

    /// The `remind: every-turn` rules active in the session: always-on, the
    /// files it touched, the topics and mentions of the latest prompt.
    fn update_sticky(&mut self, set: &RuleSet) {
        let files: Vec<String> = self.files.iter().cloned().collect();
        self.sticky_for(set, &files);
    }

    fn sticky_for(&mut self, set: &RuleSet, files: &[String]) {
        if !set
            .rules()
            .iter()
            .any(|r| r.metadata.remind == Some(Remind::EveryTurn))
        {
            self.sticky.clear();
            return;
        }
        let mut on: BTreeSet<usize> = self
            .active_for(set, files, None, None)
            .into_iter()
            .collect();
        on.extend(self.indices(set, self.prompt_topics.iter().chain(&self.mentioned)));
        self.sticky = sticky_of(set, on);
    }

    fn render(
        &self,
        set: &RuleSet,
        give: &[usize],
        topic: &HashSet<usize>,
        memory: Option<&str>,
        budget: Budget,
    ) -> Due {
        let rules = set.rules();
        let picked: Vec<&Rule> = give.iter().map(|&i| &rules[i]).collect();
        let options = RenderOptions {
            topic_rule_ids: topic.iter().map(|&i| rules[i].id.as_str()).collect(),
            previous_order: if budget.keep_order { &self.order } else { &[] },
            max_lines: budget.max_lines,
            max_bytes: budget.max_bytes,
            memory,
        };
        let plan = plan_rules(&picked, &options);
        let index: std::collections::HashMap<&str, usize> =
            give.iter().map(|&i| (rules[i].id.as_str(), i)).collect();
        Due {
            text: plan.text,
            rules: plan
                .order
                .iter()
                .filter_map(|id| index.get(id.as_str()).copied())
                .collect(),
            omitted: plan.omitted,
            given: Vec::new(),
            starts: false,
            regives: false,
            memory: Vec::new(),
        }
    }
}

/// The entries given before a compaction, again (as a start after a
/// compaction gives them), without the index of topics.
fn regiven(
    index: &crate::memory::MemoryIndex,
    before: &[String],
    given: &dyn Fn(&str) -> bool,
    budget: crate::memory::recall::RecallBudget,
) -> crate::memory::recall::Recalled {
    use crate::memory::recall::{recall, RecallEvent};
    let mut r = recall(index, RecallEvent::Start { again: before }, given, budget);
    // Keep only the entries' blocks: the index came with the start.
    r.text = match r.text.split_once("\n\n") {
        Some((_, blocks)) if !r.entries.is_empty() => {
            format!("## Memory (given again after the compaction)\n{blocks}")
        }
        _ => String::new(),
    };
    if r.text.is_empty() {
        r.entries.clear();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load, Config};

    fn set(files: &[(&str, &str)]) -> (tempfile::TempDir, std::sync::Arc<RuleSet>) {
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join(".wave/rules");
        std::fs::create_dir_all(&rules).unwrap();
        for (name, text) in files {
            std::fs::write(rules.join(name), text).unwrap();
        }
        let loaded = load(&Config::with_home(dir.path(), dir.path().join("no-home")));
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        (dir, loaded.rules)
    }

    const RULES: &[(&str, &str)] = &[
        ("always.md", "Be kind."),
        ("ts.md", "---\npaths: src/**/*.ts\n---\nStrict TypeScript."),
        ("sql.md", "---\ntopics: [sql]\n---\nNo SELECT *."),
        ("lint.md", "---\npaths: src/**\nremind: every-turn\ndescription: Run the linter\n---\nRun npm run lint.\nAlways."),
    ];
    const NONE: Budget = Budget {
        max_lines: None,
        max_bytes: None,
        keep_order: false,
    };

    fn ids(set: &RuleSet, due: &Due) -> Vec<String> {
        due.rules
            .iter()
            .map(|&i| set.rules()[i].id.clone())
            .collect()
    }

    #[test]
    fn start_prompt_files_deliver_each_rule_once() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        let due = s.start(&set, Start::Startup, Some("## Memory\nm"), NONE);
        assert_eq!(ids(&set, &due), ["always.md"]);
        assert_eq!(due.text, "## Rules\n[always.md] Be kind.\n\n## Memory\nm");
        s.commit(&set, &due);
        assert!(s.started);

        let due = s.files_touched(&set, &["src/a.ts"], NONE);
        assert_eq!(ids(&set, &due), ["lint.md", "ts.md"]);
        s.commit(&set, &due);
        assert!(s.files_touched(&set, &["src/b.ts"], NONE).text.is_empty());

        // Topic rules come every time, as constraints; given always-on ones do not.
        for _ in 0..2 {
            let due = s.prompt(&set, "write the SQL", NONE);
            assert_eq!(
                due.text,
                "=== MANDATORY RULES ===\n[sql.md] No SELECT *.\n==========================="
            );
            s.commit(&set, &due);
        }
        assert_eq!(
            s.delivered_ids(),
            ["always.md", "lint.md", "sql.md", "ts.md"]
        );
    }

    #[test]
    fn nothing_is_delivered_until_committed() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        let first = s.files_touched(&set, &["src/a.ts"], NONE);
        let again = s.files_touched(&set, &["src/a.ts"], NONE);
        assert_eq!(first, again);
        s.commit(&set, &again);
        assert!(s.files_touched(&set, &["src/a.ts"], NONE).rules.is_empty());
    }

    #[test]
    fn compaction_gives_everything_active_again_resume_only_what_is_missing() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        let due = s.start(&set, Start::Startup, None, NONE);
        s.commit(&set, &due);
        let due = s.files_touched(&set, &["src/a.ts"], NONE);
        s.commit(&set, &due);
        let due = s.prompt(&set, "sql please", NONE);
        s.commit(&set, &due);

        let resumed = s.start(&set, Start::Resume, Some("memory"), NONE);
        assert!(
            resumed.rules.is_empty() && resumed.text.is_empty(),
            "{resumed:?}"
        );

        let due = s.start(&set, Start::Compact, None, NONE);
        assert_eq!(ids(&set, &due), ["always.md", "lint.md", "sql.md", "ts.md"]);
        assert_eq!(s.compactions, 1);
        s.commit(&set, &due);
        // A fresh startup forgets the session.
        let due = s.start(&set, Start::Startup, None, NONE);
        assert_eq!(ids(&set, &due), ["always.md"]);
        assert!(s.delivered_ids().is_empty());
    }

    #[test]
    fn a_compaction_told_without_a_route_to_the_model_is_given_at_the_next_prompt_or_file_once() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        for due in [
            s.start(&set, Start::Startup, None, NONE),
            s.files_touched(&set, &["src/a.ts"], NONE),
            s.prompt(&set, "sql please", NONE),
        ] {
            s.commit(&set, &due);
        }
        s.compacted_unsent();
        assert_eq!(s.compactions, 1);
        assert!(s.delivered_ids().is_empty());
        // A file with no rules of its own brings back all the compaction took.
        let due = s.files_touched(&set, &["README.md"], NONE);
        assert_eq!(ids(&set, &due), ["always.md", "lint.md", "sql.md", "ts.md"]);
        // Not committed (the agent dropped it): still due, at the prompt.
        let due = s.prompt(&set, "go on", NONE);
        assert_eq!(ids(&set, &due), ["always.md", "lint.md", "sql.md", "ts.md"]);
        s.commit(&set, &due);
        assert!(!s.regive);
        // Once: nothing again after the commit.
        assert!(s.files_touched(&set, &["src/b.ts"], NONE).rules.is_empty());
        assert!(s.prompt(&set, "go on", NONE).rules.is_empty());
        // A session start after a compaction also ends it.
        s.compacted_unsent();
        let due = s.start(&set, Start::Compact, None, NONE);
        s.commit(&set, &due);
        assert!(!s.regive && s.files_touched(&set, &["src/a.ts"], NONE).rules.is_empty());
    }

    #[test]
    fn a_prompt_smaller_than_the_last_one_seen_is_a_compaction() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        let due = s.files_touched(&set, &["src/a.ts"], NONE);
        s.commit(&set, &due);
        assert!(!s.prompt_size(10) && !s.prompt_size(10) && !s.prompt_size(600_000));
        assert!(s.files_touched(&set, &["src/a.ts"], NONE).rules.is_empty());
        assert!(s.prompt_size(1_200));
        assert_eq!((s.compactions, s.prompt_tokens), (1, 1_200));
        let due = s.prompt(&set, "go on", NONE);
        assert_eq!(ids(&set, &due), ["always.md", "lint.md", "ts.md"]);
        s.commit(&set, &due);
        assert!(!s.prompt_size(1_300));
        assert!(s.prompt(&set, "go on", NONE).rules.is_empty());
    }

    #[test]
    fn an_edited_rule_is_due_again() {
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join(".wave/rules");
        std::fs::create_dir_all(&rules).unwrap();
        std::fs::write(rules.join("ts.md"), "---\npaths: '**/*.ts'\n---\nOne.").unwrap();
        let config = Config::with_home(dir.path(), dir.path().join("no-home"));
        let one = load(&config).rules;
        let mut s = Session::new();
        let due = s.files_touched(&one, &["a.ts"], NONE);
        s.commit(&one, &due);
        assert!(s.files_touched(&one, &["a.ts"], NONE).rules.is_empty());
        std::fs::write(rules.join("ts.md"), "---\npaths: '**/*.ts'\n---\nTwo.").unwrap();
        let two = load(&config).rules;
        let due = s.files_touched(&two, &["b.ts"], NONE);
        assert_eq!(due.text, "## Rules\n[ts.md] Two.");
    }

    #[test]
    fn request_names_what_was_given_unless_again() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        let due = s.request(&set, &["src/a.ts"], None, false, NONE);
        assert_eq!(ids(&set, &due), ["always.md", "lint.md", "ts.md"]);
        assert!(due.starts);
        s.commit(&set, &due);
        let due = s.request(&set, &["src/b.ts"], Some("sql"), false, NONE);
        assert!(!due.starts);
        assert_eq!(ids(&set, &due), ["sql.md"]);
        let given: Vec<&str> = due
            .given
            .iter()
            .map(|&i| set.rules()[i].id.as_str())
            .collect();
        assert_eq!(given, ["always.md", "lint.md", "ts.md"]);
        let due = s.request(&set, &["src/b.ts"], None, true, NONE);
        assert_eq!(due.rules.len(), 3);
        assert!(due.given.is_empty());
    }

    #[test]
    fn reminders_restore_and_stop() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        assert_eq!(s.stop(), None);
        let due = s.reminders(&set, &["src/a.ts"], Some("sql"));
        let names: Vec<&str> = due.iter().map(|&i| set.rules()[i].id.as_str()).collect();
        assert_eq!(names, ["lint.md", "sql.md", "ts.md"]);
        let reason = s.stop().unwrap();
        assert!(reason.contains("- [lint.md] Run the linter"), "{reason}");
        // Sticky rules are those of the files in context now.
        s.reminders(&set, &["README.md"], None);
        assert_eq!(s.stop(), None);

        // A transcript that holds one reminder and one rendered entry.
        let transcript = format!(
            "{}\n...\n## Rules\n[sql.md] No SELECT *.",
            crate::delivery::render::reminder(&set.rules()[due[2]])
        );
        let mut back = Session::new();
        back.restore(&set, &transcript);
        assert_eq!(back.delivered_ids(), ["sql.md", "ts.md"]);
        let left = back.reminders(&set, &["src/a.ts"], Some("sql"));
        assert_eq!(left, [due[0]]);
        let ids = ["ts.md", "always.md", "lint.md", "nope.md"];
        assert_eq!(back.undelivered(&set, &ids), [due[0]]);
    }

    #[test]
    fn serialises_and_bounds_files() {
        let (_d, set) = set(RULES);
        let mut s = Session::new();
        let many: Vec<String> = (0..MAX_SESSION_FILES + 10)
            .map(|i| format!("f{i}.txt"))
            .collect();
        s.files_touched(&set, &many, NONE);
        assert_eq!(s.files().count(), MAX_SESSION_FILES);
        let due = s.start(&set, Start::Resume, None, NONE);
        s.commit(&set, &due);
        let json = serde_json::to_string(&s).unwrap();
        let back: Session = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        // Unknown or missing fields read as defaults.
        let old: Session = serde_json::from_str(r#"{"delivered":{"a.md":"x"},"other":1}"#).unwrap();
        assert_eq!(old.delivered_ids(), ["a.md"]);
    }

    const SKILL_RULES: &[(&str, &str)] = &[
        ("always.md", "Be kind."),
        ("db.md", "---\nskills: [db-work]\n---\nUse the read replica."),
        ("both.md", "---\nskills: [db-work, deploy]\npaths: infra/**\n---\nTag releases."),
        ("lint.md", "---\npaths: src/**\nremind: every-turn\ndescription: Run the linter\n---\nRun npm run lint."),
    ];

    #[test]
    fn a_skill_gives_its_rules_once_and_again_after_compaction() {
        let (_d, set) = set(SKILL_RULES);
        let mut s = Session::new();
        let due = s.start(&set, Start::Startup, None, NONE);
        assert_eq!(
            ids(&set, &due),
            ["always.md"],
            "skills rules are not always-on"
        );
        s.commit(&set, &due);
        assert!(s.files_touched(&set, &["README.md"], NONE).rules.is_empty());

        let due = s.skill(&set, "/DB-Work", false, NONE);
        assert_eq!(ids(&set, &due), ["both.md", "db.md"]);
        assert_eq!(
            due.text,
            "## Rules\n[both.md] Tag releases.\n[db.md] Use the read replica."
        );
        s.commit(&set, &due);
        assert!(s.is_skill_active("db-work"));
        assert!(!s.is_skill_active("deploy"));
        assert!(
            s.skill(&set, "db-work", false, NONE).rules.is_empty(),
            "once per session"
        );
        // The other skill of both.md: already given.
        assert!(s.skill(&set, "deploy", false, NONE).rules.is_empty());
        // A plugin's namespaced name activates the bare name's rules.
        let mut p = Session::new();
        assert_eq!(
            ids(&set, &p.skill(&set, "tools:db-work", false, NONE)),
            ["both.md", "db.md"]
        );

        let due = s.start(&set, Start::Compact, None, NONE);
        assert_eq!(ids(&set, &due), ["always.md", "both.md", "db.md"]);
        s.commit(&set, &due);
        // A fresh session forgets its skills.
        s.start(&set, Start::Startup, None, NONE);
        assert!(s.skills().is_empty());
        // An invalid name activates nothing and records nothing.
        assert_eq!(s.skill(&set, "a b", true, NONE), Due::default());
        assert!(s.skills().is_empty());
    }

    #[test]
    fn explain_and_request_see_the_active_skills() {
        let (_d, set) = set(SKILL_RULES);
        let ex = set.explain_in(&["README.md"], None, &["deploy"], None);
        let both = ex
            .iter()
            .find(|e| set.rules()[e.index].id == "both.md")
            .unwrap();
        assert_eq!(
            both.reasons,
            [crate::rules::rule_set::Reason::Skill {
                name: "deploy".into()
            }]
        );
        assert_eq!(
            set.rules()[both.index].metadata.activation_kind(),
            "paths+skills"
        );
        let mut s = Session::new();
        s.skill(&set, "db-work", false, NONE);
        let due = s.request(&set, &[] as &[&str], None, false, NONE);
        assert_eq!(ids(&set, &due), ["always.md", "both.md", "db.md"]);
    }

    #[test]
    fn stop_reminds_of_memory_while_a_memory_skill_is_active_merged_with_every_turn_rules() {
        let (_d, set) = set(SKILL_RULES);
        let mut s = Session::new();
        // No skill: nothing at stop (the O(1) path: an empty list, no rule set, no file).
        assert_eq!(s.stop(), None);
        s.skill(&set, "deploy", false, NONE);
        assert_eq!(s.stop(), None, "a skill that does not use memory");
        s.skill(&set, "notes", true, NONE);
        let reason = s.stop().unwrap();
        assert!(reason.starts_with("The skill 'notes' "), "{reason}");
        assert!(
            reason.contains("memory_read") && reason.contains("memory_write"),
            "{reason}"
        );
        let due = s.files_touched(&set, &["src/a.ts"], NONE);
        s.commit(&set, &due);
        let both = s.stop().unwrap();
        assert!(
            both.starts_with("Before you end your turn, check your work"),
            "{both}"
        );
        assert!(both.contains("- [lint.md] Run the linter"), "{both}");
        assert!(both.ends_with(&reason), "{both}");
    }

    #[test]
    fn active_skills_are_bounded_and_survive_serialisation() {
        let (_d, set) = set(SKILL_RULES);
        let mut s = Session::new();
        for i in 0..MAX_SKILLS + 5 {
            s.skill(&set, &format!("s{i:03}"), i == 0, NONE);
        }
        assert_eq!(s.skills().len(), MAX_SKILLS);
        // Past the bound a skill's rules still come now; it is not recorded.
        let due = s.skill(&set, "db-work", false, NONE);
        assert_eq!(ids(&set, &due), ["both.md", "db.md"]);
        assert!(!s.is_skill_active("db-work"));
        let json = serde_json::to_string(&s).unwrap();
        let back: Session = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        assert!(back.stop().unwrap().contains("'s000'"));
        // A state file written before skills existed reads with none.
        let old: Session = serde_json::from_str(
            r#"{"version":2,"started":true,"compactions":0,"delivered":{"a.md":"x"},"files":[],"topics":[],"prompt_topics":[],"mentioned":[],"order":["a.md"],"sticky":[]}"#,
        )
        .unwrap();
        assert!(old.skills().is_empty() && old.started);
        assert_eq!(old.stop(), None);
    }

    #[test]
    fn budget_keeps_order_when_asked() {
        let (_d, set) = set(&[
            ("a.md", "---\npaths: a/**\n---\nA"),
            ("b.md", "---\npaths: b/**\n---\nB"),
        ]);
        let mut s = Session::new();
        let keep = Budget {
            keep_order: true,
            ..NONE
        };
        let due = s.request(&set, &["b/x"], None, false, keep);
        s.commit(&set, &due);
        let due = s.request(&set, &["a/x", "b/x"], None, true, keep);
        assert_eq!(ids(&set, &due), ["b.md", "a.md"]);
    }
}
