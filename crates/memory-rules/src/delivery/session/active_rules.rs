//! What the session records of an event (the files touched, the prompt's
//! topics and mentions, the rules a file's content activated) and the rules
//! active from it.

use super::{Session, MAX_SESSION_RULES};
use crate::base::limits::MAX_SESSION_FILES;
use crate::rules::rule_set::{Contents, RuleSet};
use std::collections::HashSet;

/// A contents reader that reads nothing: `regex` rules are then decided by
/// what the session recorded ([`Session::by_content`]), not by their globs.
fn no_contents(_: &str) -> Option<String> {
    None
}

impl Session {
    pub(super) fn file_list(&self) -> Vec<&str> {
        self.files.iter().map(String::as_str).collect()
    }

    /// The rules active for these (workdir-relative) files and prompt with
    /// the session's skills (see [`Session::active_known`]); the rules with
    /// a `regex` that `contents` found are recorded in [`Session::by_content`].
    pub(super) fn active_for<S: AsRef<str>>(
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
    pub(super) fn active_known<S: AsRef<str>>(
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
    pub(super) fn note_files<S: AsRef<str>>(&mut self, set: &RuleSet, files: &[S]) -> Vec<String> {
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
    pub(super) fn note_prompt(&mut self, set: &RuleSet, prompt: Option<&str>) -> Vec<usize> {
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
        self.mentioned = set
            .mentioned(prompt, &topic)
            .into_iter()
            .map(|i| rules[i].id.clone())
            .take(MAX_SESSION_RULES)
            .collect();
        topic
    }

    pub(super) fn indices<'a>(
        &self,
        set: &RuleSet,
        ids: impl Iterator<Item = &'a String>,
    ) -> Vec<usize> {
        let wanted: HashSet<&str> = ids.map(String::as_str).collect();
        (0..set.rules().len())
            .filter(|&i| wanted.contains(set.rules()[i].id.as_str()))
            .collect()
    }
}
