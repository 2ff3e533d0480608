//! Rules at the edit they govern.
//!
//! A path rule is given once per conversation, at the first touch of a file
//! it governs; the write it governs may come many turns later. [`RulesAtEdit`]
//! counts the conversation's tool calls and remembers, for every rule with
//! `paths` put in front of the model, at which call that was; when the agent
//! writes a file the rule governs more than `distance` calls later, the rule
//! is due again, once, in short form (`[id] ` and its `summary`, else its
//! first line: [`crate::rules::rule::Metadata::short`]). Once recalled, the
//! distance counts from there again: a rule never comes back on every write.
//!
//! Only the calls the road sees count (the hooks see the file tools and the
//! shells they are installed for), and a `distance` of 0 turns recalling
//! off. After a compaction the counts are forgotten with everything the
//! conversation was given ([`RulesAtEdit::forget`]).

pub use crate::base::limits::MAX_RECALLED_RULES;
use crate::base::limits::MAX_SESSION_RULES;
use crate::rules::rule_set::RuleSet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One conversation's tool-call count and when each path rule was last put
/// in front of the model (see the module comment).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesAtEdit {
    /// The tool calls seen in the conversation so far.
    #[serde(default)]
    pub calls: u64,
    /// Rule id -> the call count when it was last given or recalled.
    #[serde(default)]
    pub given: BTreeMap<String, u64>,
}

impl RulesAtEdit {
    /// One more tool call.
    pub fn tool_call(&mut self) {
        self.calls = self.calls.saturating_add(1);
    }

    /// These rules were put in front of the model now (given in full, or
    /// recalled): the distance counts from here. Rules without `paths` are
    /// not recalled and not recorded; past [`MAX_SESSION_RULES`] ids nothing
    /// new is recorded (such a rule is simply never recalled).
    pub fn given(&mut self, set: &RuleSet, rules: &[usize]) {
        for &i in rules {
            let Some(rule) = set.rules().get(i) else {
                continue;
            };
            if rule.metadata.paths.is_none() {
                continue;
            }
            if self.given.len() < MAX_SESSION_RULES || self.given.contains_key(&rule.id) {
                self.given.insert(rule.id.clone(), self.calls);
            }
        }
    }

    /// The rules (indices, in rule order) that come back for a write to
    /// `written`: rules whose `paths` match a written file, given in this
    /// conversation more than `distance` tool calls ago. At most
    /// [`MAX_RECALLED_RULES`] at once (the first in rule order).
    pub fn due<S: AsRef<str>>(&self, set: &RuleSet, written: &[S], distance: u64) -> Vec<usize> {
        if distance == 0 || written.is_empty() || self.given.is_empty() {
            return Vec::new();
        }
        let mut on = vec![false; set.rules().len()];
        set.activate_paths(written, &mut on);
        let mut out = Vec::new();
        for (i, rule) in set.rules().iter().enumerate() {
            if !on[i] || rule.metadata.paths.is_none() {
                continue;
            }
            let Some(&at) = self.given.get(&rule.id) else {
                continue;
            };
            if self.calls.saturating_sub(at) > distance {
                out.push(i);
                if out.len() == MAX_RECALLED_RULES {
                    break;
                }
            }
        }
        out
    }

    /// Everything the conversation was given is gone (a compaction, a
    /// clear): nothing is recalled until given again.
    pub fn forget(&mut self) {
        self.given.clear();
    }
}

/// The text of recalled rules: a heading naming the written files, then one
/// line per rule, `[id] short`, within `max_bytes` (whole lines; a rule that
/// does not fit is left out). Empty when no rule fits.
pub fn render(set: &RuleSet, rules: &[usize], written: &[&str], max_bytes: usize) -> String {
    if rules.is_empty() {
        return String::new();
    }
    let files: Vec<String> = written
        .iter()
        .map(|f| {
            set.normalize(f)
                .map_or_else(|| f.to_string(), |n| n.into_owned())
        })
        .collect();
    let mut out = format!("Still in force for {}:\n", files.join(", "));
    let heading = out.len();
    for &i in rules {
        let rule = &set.rules()[i];
        let line = format!("[{}] {}\n", rule.id, rule.metadata.short(&rule.content));
        if out.len() + line.len() <= max_bytes {
            out.push_str(&line);
        }
    }
    if out.len() == heading {
        return String::new();
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::workdir::Workdir;
    use crate::rules::parser::parse_rule;
    use crate::rules::rule::Scope;
    use std::path::Path;

    fn set() -> RuleSet {
        let rules = [
            ("api.md", "---\npaths: src/api/**\nsummary: Validate input with zod.\n---\nAPI handlers validate input.\nUse zod.\n"),
            ("ts.md", "---\npaths: \"**/*.ts\"\n---\nStrict TS.\nNo any.\n"),
            ("always.md", "Keep functions small.\n"),
        ];
        let parsed = rules
            .iter()
            .map(|(id, text)| {
                parse_rule(Scope::Project, id, Path::new(id), text)
                    .rule
                    .unwrap()
            })
            .collect();
        RuleSet::build(parsed, Workdir::new(Path::new("/w")))
    }

    fn ids(set: &RuleSet, rules: &[usize]) -> Vec<String> {
        rules.iter().map(|&i| set.rules()[i].id.clone()).collect()
    }

    #[test]
    fn a_rule_comes_back_after_the_distance_once_then_counts_again() {
        let s = set();
        let mut r = RulesAtEdit::default();
        let all: Vec<usize> = (0..s.rules().len()).collect();
        r.tool_call(); // the read that brought the rules
        r.given(&s, &all);
        assert!(
            !r.given.contains_key("always.md"),
            "only path rules are recalled"
        );
        for _ in 0..3 {
            r.tool_call();
            assert!(
                r.due(&s, &["src/api/a.ts"], 3).is_empty(),
                "not within the distance"
            );
        }
        r.tool_call(); // the write: 4 calls after the rules
        let due = r.due(&s, &["src/api/a.ts"], 3);
        assert_eq!(ids(&s, &due), ["api.md", "ts.md"]);
        assert_eq!(
            render(&s, &due, &["/w/src/api/a.ts"], 9_000),
            "Still in force for src/api/a.ts:\n[api.md] Validate input with zod.\n[ts.md] Strict TS."
        );
        r.given(&s, &due);
        r.tool_call();
        assert!(
            r.due(&s, &["src/api/b.ts"], 3).is_empty(),
            "never on every write"
        );
        // Only the rules of the written file; a file no rule governs, nothing.
        for _ in 0..4 {
            r.tool_call();
        }
        assert_eq!(ids(&s, &r.due(&s, &["lib/x.ts"], 3)), ["ts.md"]);
        assert!(r.due(&s, &["README.md"], 3).is_empty());
        // 0: off. A compaction forgets.
        assert!(r.due(&s, &["src/api/a.ts"], 0).is_empty());
        r.forget();
        assert!(r.due(&s, &["src/api/a.ts"], 3).is_empty());
    }

    #[test]
    fn a_rule_never_given_is_not_recalled_and_the_text_keeps_its_budget() {
        let s = set();
        let mut r = RulesAtEdit::default();
        for _ in 0..10 {
            r.tool_call();
        }
        assert!(
            r.due(&s, &["src/api/a.ts"], 3).is_empty(),
            "the post-tool hook gives it in full instead"
        );
        let at = |id: &str| s.rules().iter().position(|r| r.id == id).unwrap();
        let both = [at("api.md"), at("ts.md")];
        let text = render(&s, &both, &["src/api/a.ts"], 70);
        assert_eq!(
            text,
            "Still in force for src/api/a.ts:\n[api.md] Validate input with zod."
        );
        assert_eq!(render(&s, &both, &["src/api/a.ts"], 10), "");
        // Serialized with the session, read back the same.
        r.given(&s, &both);
        let back: RulesAtEdit = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        let empty: RulesAtEdit = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, RulesAtEdit::default());
    }
}
