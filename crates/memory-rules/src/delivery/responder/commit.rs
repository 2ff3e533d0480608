//! What reached the model: recorded in the conversation's session, and
//! appended to the delivery log.

use super::{Answer, Given, Reminder, Responder};
use crate::delivery::conversation::Conversation;
use crate::delivery::delivery_log::{DeliveryLog, Sender};
use crate::delivery::event::EventKind;
use crate::delivery::session::Session;
use crate::delivery::telemetry::events::{self, DeliveredBy};
use crate::delivery::telemetry::Telemetry;
use crate::rules::rule_set::enforcement::Verdict;

/// Where [`Responder::commit`] logs what was delivered.
#[derive(Clone, Debug)]
pub(super) enum LogPlace {
    /// The delivery log of the home, when one is given ([`Responder::home`]).
    Home,
    At(DeliveryLog),
    Off,
}

impl Responder<'_> {
    /// The answer reached the model: its rules, in the versions it gave,
    /// count as delivered in its conversation. The one place a delivery is
    /// recorded: [`Responder::commit_reminders`] and
    /// [`Responder::commit_ids`] come here too.
    pub fn commit(&self, session: &mut Session, answer: &Answer) {
        self.commit_unlogged(session, answer);
        self.log_answer(answer);
    }

    /// [`Responder::commit`] in two steps, for a road that holds a lock on
    /// the session while it commits: the session's part here, under the
    /// lock, and [`Responder::log_answer`] after it (counting a new rule
    /// version's tokens builds the tokenizer, which must not keep another
    /// hook of the same session waiting).
    pub fn commit_unlogged(&self, session: &mut Session, answer: &Answer) {
        let given = answer
            .rules
            .iter()
            .chain(answer.reminders.iter().map(|r| &r.rule));
        session.commit_given(given.map(|g| (g.id.as_str(), g.version.as_str())));
        session.commit_flags(answer.starts, answer.regives);
        session.commit_memory(&answer.memory);
        // In front of the model now: the distance to the edit counts from
        // here. Each by its index in this responder's set (not looked up
        // by id among all the rules).
        let rules = self.set.rules();
        let shown: Vec<usize> = answer
            .rules
            .iter()
            .chain(&answer.recalled)
            .filter(|g| rules.get(g.index).is_some_and(|r| r.id == g.id))
            .map(|g| g.index)
            .collect();
        session.at_edit.given(self.set, &shown);
    }

    /// The delivery log's part of [`Responder::commit`]: appends what the
    /// answer gave.
    pub fn log_answer(&self, answer: &Answer) {
        let given = answer
            .rules
            .iter()
            .chain(answer.reminders.iter().map(|r| &r.rule));
        self.record(answer, given, None);
        if let Some(t) = self.telemetry_on() {
            let session = &answer.conversation.session;
            let files = self.paths(t).map(|p| (answer.touched.as_slice(), p));
            let recalled = events::recalled(&answer.memory, &answer.agent, session, files);
            t.record_or_keep(recalled.as_slice());
            self.record_at_edit(answer, t);
        }
    }

    /// The path rules an answer gave again in short form at a write they
    /// govern (`answer.recalled`): telemetry's deliveries `why: edit`, event
    /// `edit`. The delivery log keeps only full givings, so it is not
    /// written here.
    fn record_at_edit(&self, answer: &Answer, t: &Telemetry) {
        let rules: Vec<&crate::rules::rule::Rule> = answer
            .recalled
            .iter()
            .filter_map(|g| self.set.rules().get(g.index).filter(|r| r.id == g.id))
            .collect();
        if rules.is_empty() {
            return;
        }
        let project = self.workdir.to_string_lossy();
        let sender = Sender {
            agent: &answer.agent,
            session: &answer.conversation.session,
            subagent: answer.conversation.subagent.as_deref(),
            event: "edit",
            project: &project,
        };
        let delivery = crate::delivery::delivery_log::Delivery::of(&rules, &sender);
        t.record_or_keep(&events::delivered(
            &delivery,
            &rules,
            DeliveredBy::WaveRules,
            self.paths(t),
        ));
    }

    /// The telemetry, when it is on.
    fn telemetry_on(&self) -> Option<&Telemetry> {
        self.telemetry.filter(|t| t.enabled())
    }

    /// The project, when telemetry's settings include paths (`include =
    /// ["paths"]`): what a record's paths are relative to.
    fn paths(&self, telemetry: &Telemetry) -> Option<&std::path::Path> {
        telemetry.settings().include_paths.then_some(self.workdir)
    }

    /// Before a tool runs: the enforced rules the call triggered
    /// (`answer.verdict`), recorded as telemetry (`wave_rules.rule.enforced`,
    /// block or warn). `tool` is the agent's tool name.
    pub fn record_verdict(&self, answer: &Answer, tool: Option<&str>) {
        let session = &answer.conversation.session;
        self.record_tool_verdict(&answer.verdict, &answer.agent, session, tool);
    }

    /// [`Responder::record_verdict`] for a verdict with no conversation's
    /// answer (a tool guard that checks each call), `agent` and `session` as
    /// the road names them. Nothing, not even the settings read, for a
    /// verdict no rule gave.
    pub fn record_tool_verdict(
        &self,
        verdict: &Verdict,
        agent: &str,
        session: &str,
        tool: Option<&str>,
    ) {
        if verdict.hits.is_empty() {
            return;
        }
        let Some(t) = self.telemetry_on() else {
            return;
        };
        t.record_or_keep(&events::enforced(
            self.set,
            verdict,
            agent,
            session,
            tool,
            self.paths(t),
        ));
    }

    /// The model read one rule through the `read_rule` tool (an on-request
    /// rule it judged relevant): it counts as delivered in `conversation`,
    /// logged as a `read-rule` event. False when `id` is not a rule.
    pub fn commit_read(
        &self,
        session: &mut Session,
        conversation: &Conversation,
        agent: &str,
        id: &str,
    ) -> bool {
        let Some(i) = self.set.rules().iter().position(|r| r.id == id) else {
            return false;
        };
        let mut read = Answer::empty(
            conversation.clone(),
            EventKind::Request { again: true },
            agent,
        );
        read.rules.push(self.given(i));
        session.commit_given(
            read.rules
                .iter()
                .map(|g| (g.id.as_str(), g.version.as_str())),
        );
        self.record(&read, read.rules.iter(), Some("read-rule"));
        true
    }

    /// Appends the rules an answer gave to the delivery log: every road's
    /// deliveries are logged here, where they are committed. A log that
    /// cannot be written is skipped (a delivery never fails for it).
    fn record<'g>(
        &self,
        answer: &Answer,
        given: impl Iterator<Item = &'g Given>,
        event: Option<&str>,
    ) {
        let log = self.log_place();
        let telemetry = self.telemetry_on();
        if log.is_none() && telemetry.is_none() {
            return;
        }
        let (rules, versions): (Vec<&crate::rules::rule::Rule>, Vec<String>) = given
            .filter_map(|g| {
                let rule = self.set.rules().get(g.index).filter(|r| r.id == g.id)?;
                Some((rule, g.version.clone()))
            })
            .unzip();
        if rules.is_empty() {
            return;
        }
        let event = match (event, answer.kind) {
            (Some(name), _) => name.to_string(),
            (None, EventKind::Start(how)) => format!("start:{}", how.as_str()),
            (None, kind) => kind.name().to_string(),
        };
        let project = self.workdir.to_string_lossy();
        let sender = Sender {
            agent: &answer.agent,
            session: &answer.conversation.session,
            subagent: answer.conversation.subagent.as_deref(),
            event: &event,
            project: &project,
        };
        let made = crate::delivery::delivery_log::Delivery::of_versions(&rules, versions, &sender);
        let delivery = match (log, telemetry) {
            (Some(log), Some(_)) => log.record_delivery(made, &rules).0,
            (Some(log), None) => {
                if crate::delivery::delivery_log::enabled() {
                    let _ = log.record_delivery(made, &rules);
                }
                return;
            }
            (None, _) => made,
        };
        if let Some(t) = telemetry {
            t.record_or_keep(&events::delivered(
                &delivery,
                &rules,
                DeliveredBy::WaveRules,
                self.paths(t),
            ));
        }
    }

    /// Where deliveries are logged: none when the log is off or no home
    /// was given.
    fn log_place(&self) -> Option<std::borrow::Cow<'_, DeliveryLog>> {
        match &self.log {
            LogPlace::Off => None,
            LogPlace::At(log) => Some(std::borrow::Cow::Borrowed(log)),
            LogPlace::Home => self
                .home
                .as_ref()
                .map(|home| std::borrow::Cow::Owned(DeliveryLog::for_home(home))),
        }
    }

    /// A stop's answer (`answer`, from [`Responder::respond`] on `session`)
    /// reached the model: the `remind: every-turn` rules it named are
    /// logged as a `stop` delivery, each with the tokens of its line. The
    /// rule set is not needed (a stop reads none): the session keeps each
    /// line and version.
    pub fn commit_stop(&self, session: &Session, answer: &Answer) {
        if answer.text.is_empty() || !matches!(answer.kind, EventKind::Stop { .. }) {
            return;
        }
        let Some(log) = self.log_place() else {
            return;
        };
        let telemetry = self.telemetry_on();
        let lines: Vec<(&str, &str, &str)> = session
            .sticky()
            .iter()
            .filter(|s| !s.version.is_empty())
            .map(|s| (s.id.as_str(), s.version.as_str(), s.line.as_str()))
            .collect();
        let project = self.workdir.to_string_lossy();
        let sender = Sender {
            agent: &answer.agent,
            session: &answer.conversation.session,
            subagent: answer.conversation.subagent.as_deref(),
            event: EventKind::Stop { repeated: false }.name(),
            project: &project,
        };
        let Some(t) = telemetry else {
            let _ = log.record_lines(&lines, &sender);
            return;
        };
        let (delivery, _) = log.record_lines_counted(&lines, &sender);
        let records = events::delivered(&delivery, &[], DeliveredBy::WaveRules, None);
        t.record_or_keep(&records);
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
                text: crate::delivery::render::reminder(&self.set.rules()[i]),
            })
            .collect();
        self.commit(session, &sent);
    }
}
