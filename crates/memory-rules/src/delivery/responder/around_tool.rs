//! Before and after a tool runs: the enforced rules it triggers, and the
//! path rules given long ago that govern a file it writes.

use super::{Answer, Responder};
use crate::delivery::event::Event;
use crate::delivery::session::Session;
use crate::delivery::touched::Touched;
use crate::rules::rule::Enforce;
use crate::rules::rule_set::enforcement::{self, Verdict};

impl Responder<'_> {
    /// The enforced rules a tool call triggers: the files it would write
    /// (file tools the road knows write, the written side of a shell line,
    /// an `apply_patch`'s files) and the simple commands it would run.
    pub fn verdict(&self, event: &Event) -> Verdict {
        self.verdict_of(&event.tool_touched())
    }

    /// [`Responder::verdict`] of the tool calls that touched `calls`
    /// ([`Event::tool_touched`]).
    fn verdict_of(&self, calls: &[Touched]) -> Verdict {
        if !self.set.has_enforced_rules() {
            return Verdict::default();
        }
        let mut written = Vec::new();
        let mut commands = Vec::new();
        let mut unchecked = Vec::new();
        for t in calls {
            written.extend(t.written.iter().cloned());
            commands.extend(t.commands.iter().cloned());
            unchecked.extend(t.unread.iter().cloned());
        }
        let mut verdict = enforcement::check(self.set, &written, &commands);
        verdict.unchecked = unchecked;
        verdict
    }

    /// After a tool ran: the warnings of the enforced rules it triggered
    /// (`enforce: warn`), and the path rules given long ago that govern a
    /// file it wrote (in short form), after the rules it made due. `calls`:
    /// what each of its tool calls touched.
    pub(super) fn after_tool(&self, session: &mut Session, calls: &[Touched], answer: &mut Answer) {
        let set = self.set;
        let max = self
            .budget
            .max_bytes
            .unwrap_or(crate::base::limits::DEFAULT_RULES_BYTES);
        let mut in_text: Vec<usize> = answer.rules.iter().map(|g| g.index).collect();
        let verdict = self.verdict_of(calls);
        let warned = Verdict {
            hits: verdict
                .hits
                .iter()
                .filter(|h| h.enforce == Enforce::Warn)
                .cloned()
                .collect(),
            unchecked: Vec::new(),
        };
        let add = |answer: &mut Answer, text: String| {
            if text.is_empty() {
                return;
            }
            let room = max.saturating_sub(answer.text.len() + 2);
            if text.len() > room {
                return;
            }
            if !answer.text.is_empty() {
                answer.text.push_str(
                    "

",
                );
            }
            answer.text.push_str(&text);
        };
        if !warned.is_empty() {
            let room = max.saturating_sub(answer.text.len() + 2);
            add(answer, enforcement::reason(set, &warned, room, &in_text));
            for i in warned.rules() {
                if !in_text.contains(&i) {
                    answer.rules.push(self.given(i));
                    in_text.push(i);
                }
            }
        }
        answer.verdict = warned;
        let written: Vec<String> = calls
            .iter()
            .flat_map(|t| t.written.iter().cloned())
            .collect();
        let mut back = session.at_edit.due(set, &written, self.edit_distance);
        back.retain(|i| !in_text.contains(i));
        if !back.is_empty() {
            let files: Vec<&str> = written.iter().map(String::as_str).collect();
            let room = max.saturating_sub(answer.text.len() + 2);
            let text = crate::delivery::rules_at_edit::render(set, &back, &files, room);
            if !text.is_empty() {
                answer.recalled = back
                    .iter()
                    .filter(|&&i| text.contains(&format!("[{}] ", set.rules()[i].id)))
                    .map(|&i| self.given(i))
                    .collect();
                add(answer, text);
            }
        }
    }

    /// Before a tool runs: a subagent tool's task waits for the subagent's
    /// start; the enforced rules the call triggers give the verdict, and the
    /// refusal when one blocks it. `calls`: what each of its tool calls
    /// touched.
    pub(super) fn before_tool(
        &self,
        session: &mut Session,
        event: &Event,
        calls: &[Touched],
        answer: &mut Answer,
    ) {
        for call in &event.tools {
            if let Some((task, kind)) = call.subagent_task() {
                session.task_announced(&kind, &task);
            }
        }
        answer.verdict = self.verdict_of(calls);
        if answer.verdict.blocks() {
            let max = self
                .budget
                .max_bytes
                .unwrap_or(crate::base::limits::DEFAULT_RULES_BYTES);
            answer.refusal = Some(enforcement::reason(self.set, &answer.verdict, max, &[]));
        }
    }
}
