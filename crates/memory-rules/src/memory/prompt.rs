//! `load_for_prompt`: memory as prompt text within a line budget.
//!
//! ```text
//! ## User Memory
//! <MEMORY.md>
//!
//! ### Topic (topic.md)
//! <topic text>
//!
//! ## Project Memory
//! ...
//! (not loaded to fit the budget: big.md from line 12, later.md)
//! ```
//!
//! User memory takes at most half of `max_lines`; project memory gets the
//! rest. In each scope the index comes first, then the topics in index order
//! while they fit; the first one that does not fit is cut at a line boundary,
//! and one closing line names what was not loaded. Nothing at all gives "".

use super::index::Index;
use super::store::{MemoryScope, MemoryStore};

impl MemoryStore {
    /// Memory text for the prompt, at most `max_lines` lines.
    pub fn load_for_prompt(&self, max_lines: usize) -> String {
        let user = self.section(MemoryScope::User, "## User Memory", max_lines / 2);
        let used = if user.is_empty() { 0 } else { user.len() + 1 };
        let project = self.section(MemoryScope::Project, "## Project Memory", max_lines.saturating_sub(used));
        [user, project].into_iter().filter(|s| !s.is_empty()).map(|s| s.join("\n")).collect::<Vec<_>>().join("\n\n")
    }

    fn section(&self, scope: MemoryScope, heading: &str, budget: usize) -> Vec<String> {
        let index_text = self.read_index(scope).unwrap_or_default();
        if index_text.trim().is_empty() {
            return Vec::new();
        }
        let index = Index::parse(&index_text);
        let mut blocks: Vec<(String, Vec<String>)> = vec![(
            "MEMORY.md".to_string(),
            std::iter::once(heading.to_string()).chain(index_text.trim_end().lines().map(str::to_string)).collect(),
        )];
        for (name, file) in &index.entries {
            let Ok(text) = self.read_topic(scope, name) else { continue };
            let mut lines = vec![String::new(), format!("### {name} ({file})")];
            lines.extend(text.trim_end().lines().map(str::to_string));
            blocks.push((file.clone(), lines));
        }
        fit(blocks, budget)
    }
}

/// Whole blocks while they fit; the first that does not is cut at a line
/// boundary; a closing line names the rest. Needs room for at least one
/// line of content and the closing line, else gives nothing.
fn fit(blocks: Vec<(String, Vec<String>)>, budget: usize) -> Vec<String> {
    let total: usize = blocks.iter().map(|(_, l)| l.len()).sum();
    if total <= budget {
        return blocks.into_iter().flat_map(|(_, l)| l).collect();
    }
    if budget < 3 {
        return Vec::new();
    }
    let room = budget - 1;
    let mut out: Vec<String> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    for (name, lines) in blocks {
        if !missing.is_empty() {
            missing.push(name);
            continue;
        }
        let free = room - out.len();
        if lines.len() <= free {
            out.extend(lines);
            continue;
        }
        // A topic block starts with a blank line and its heading: cutting
        // inside those two would show nothing of it.
        let header_lines = if name == "MEMORY.md" { 1 } else { 2 };
        if free > header_lines {
            let shown = free - header_lines;
            out.extend(lines.into_iter().take(free));
            missing.push(format!("{name} from line {}", shown + 1));
        } else {
            missing.push(name);
        }
    }
    out.push(format!("(not loaded to fit the budget: {})", missing.join(", ")));
    out
}
