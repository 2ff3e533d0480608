//! The skills an event activates: the agent's skill tool, a read of a
//! `SKILL.md`, a prompt `/name`.

use super::Responder;
use crate::delivery::event::{Event, EventKind};
use crate::delivery::session::Session;
use std::path::{Path, PathBuf};

impl Responder<'_> {
    /// The skills the event activates, recorded in the session (each
    /// `SKILL.md` read once, when its skill becomes active, for whether it
    /// uses the memory tools).
    pub(super) fn activate_skills(
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
            if let Some(name) = crate::delivery::skills::from_path(f) {
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
                if let Ok(name) = crate::rules::skill_name::name(rest) {
                    if let Some(file) =
                        crate::delivery::skills::find(self.workdir, self.home.as_deref(), &name)
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
                    .or_else(|| {
                        crate::delivery::skills::find(self.workdir, self.home.as_deref(), &name)
                    })
                    .is_some_and(|f| crate::delivery::skills::file_uses_memory(&f));
            session.note_skill(&name, memory);
            activated.push(name);
        }
        activated
    }
}
