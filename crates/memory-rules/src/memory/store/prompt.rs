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
//! User memory takes at most half of `max_lines` (and of the byte budget,
//! [`DEFAULT_MEMORY_PROMPT_BYTES`] unless told otherwise); project memory gets
//! the rest. Topics are read only while they can still fit. In each scope the index comes first, then the topics in index order
//! while they fit; the first one that does not fit is cut at a line boundary,
//! and one closing line names what was not loaded. Nothing at all gives "".

use super::{MemoryScope, MemoryStore};
pub use crate::base::limits::DEFAULT_MEMORY_PROMPT_BYTES;
use crate::memory::memory_md::TopicList;

use crate::base::limits::MEMORY_CLOSING_BYTES;

impl MemoryStore {
    /// Memory text for the prompt, at most `max_lines` lines and
    /// [`DEFAULT_MEMORY_PROMPT_BYTES`] bytes.
    pub fn load_for_prompt(&self, max_lines: usize) -> String {
        self.load_for_prompt_within(max_lines, DEFAULT_MEMORY_PROMPT_BYTES)
    }

    /// Memory text for the prompt, at most `max_lines` lines and about
    /// `max_bytes` bytes (never more).
    pub fn load_for_prompt_within(&self, max_lines: usize, max_bytes: usize) -> String {
        let user = self.section(
            MemoryScope::User,
            "## User Memory",
            max_lines / 2,
            max_bytes / 2,
        );
        let used = if user.is_empty() { 0 } else { user.len() + 1 };
        let used_bytes: usize = user.iter().map(|l| l.len() + 1).sum::<usize>() + 1;
        let project = self.section(
            MemoryScope::Project,
            "## Project Memory",
            max_lines.saturating_sub(used),
            max_bytes.saturating_sub(used_bytes),
        );
        [user, project]
            .into_iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.join("\n"))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    fn section(
        &self,
        scope: MemoryScope,
        heading: &str,
        budget: usize,
        bytes: usize,
    ) -> Vec<String> {
        let index_text = self.read_index(scope).unwrap_or_default();
        if index_text.trim().is_empty() {
            return Vec::new();
        }
        let index = TopicList::parse(&index_text);
        let mut blocks: Vec<(String, Option<Vec<String>>)> = vec![(
            "MEMORY.md".to_string(),
            Some(
                std::iter::once(heading.to_string())
                    .chain(index_text.trim_end().lines().map(str::to_string))
                    .collect(),
            ),
        )];
        let size = |l: &Vec<String>| (l.len(), l.iter().map(|s| s.len() + 1).sum::<usize>());
        let (mut lines_so_far, mut bytes_so_far) =
            size(blocks[0].1.as_ref().unwrap_or(&Vec::new()));
        for (name, file) in &index.entries {
            // Past the budget, a topic is only named, never read.
            if lines_so_far > budget || bytes_so_far > bytes {
                blocks.push((file.clone(), None));
                continue;
            }
            let Ok(entries) = self.entries(scope, name) else {
                continue;
            };
            // The notes without their comment lines, one after the other.
            let mut lines = vec![String::new(), format!("### {name} ({file})")];
            for e in &entries {
                lines.extend(e.text.lines().map(str::to_string));
            }
            let (l, b) = size(&lines);
            lines_so_far += l;
            bytes_so_far += b;
            blocks.push((file.clone(), Some(lines)));
        }
        fit(blocks, budget, bytes)
    }
}

/// Whole blocks while they fit (in lines and bytes); the first that does not
/// is cut at a line boundary; a closing line names the rest. Needs room for
/// at least one line of content and the closing line, else gives nothing.
/// A block not read (`None`) does not fit.
fn fit(blocks: Vec<(String, Option<Vec<String>>)>, budget: usize, max_bytes: usize) -> Vec<String> {
    let unread = blocks.iter().any(|(_, l)| l.is_none());
    let total: usize = blocks
        .iter()
        .map(|(_, l)| l.as_ref().map_or(0, Vec::len))
        .sum();
    let total_bytes: usize = blocks
        .iter()
        .flat_map(|(_, l)| l.iter().flatten())
        .map(|s| s.len() + 1)
        .sum();
    if !unread && total <= budget && total_bytes <= max_bytes {
        return blocks
            .into_iter()
            .flat_map(|(_, l)| l.unwrap_or_default())
            .collect();
    }
    if budget < 3 || max_bytes < MEMORY_CLOSING_BYTES * 2 {
        return Vec::new();
    }
    let room = budget - 1;
    let byte_room = max_bytes - MEMORY_CLOSING_BYTES;
    let mut out: Vec<String> = Vec::new();
    let mut out_bytes = 0usize;
    let mut missing: Vec<String> = Vec::new();
    for (name, lines) in blocks {
        if !missing.is_empty() {
            missing.push(name);
            continue;
        }
        let Some(lines) = lines else {
            missing.push(name);
            continue;
        };
        // Lines that fit the byte budget too.
        let mut fitting = 0;
        let mut b = out_bytes;
        for l in &lines {
            if b + l.len() + 1 > byte_room {
                break;
            }
            b += l.len() + 1;
            fitting += 1;
        }
        let free = (room - out.len()).min(fitting);
        if lines.len() <= free {
            out_bytes = b;
            out.extend(lines);
            continue;
        }
        // A topic block starts with a blank line and its heading: cutting
        // inside those two would show nothing of it.
        let header_lines = if name == "MEMORY.md" { 1 } else { 2 };
        if free > header_lines {
            let shown = free - header_lines;
            out_bytes += lines.iter().take(free).map(|l| l.len() + 1).sum::<usize>();
            out.extend(lines.into_iter().take(free));
            missing.push(format!("{name} from line {}", shown + 1));
        } else {
            missing.push(name);
        }
    }
    let mut closing = format!("(not loaded to fit the budget: {})", missing.join(", "));
    if closing.len() > MEMORY_CLOSING_BYTES {
        let mut cut = MEMORY_CLOSING_BYTES - 5;
        while !closing.is_char_boundary(cut) {
            cut -= 1;
        }
        closing.truncate(cut);
        closing.push_str("...)");
    }
    let _ = out_bytes;
    out.push(closing);
    out
}
