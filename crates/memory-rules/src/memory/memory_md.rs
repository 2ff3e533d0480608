//! `MEMORY.md`: a short header, then one `- [Topic](file.md)` line per topic,
//! sorted by file name. A header someone edited is kept as it is.

/// The header of a new index.
pub const HEADER: &str = "# Memory\n\nWhat the agent has learned, one topic per file.\n";

/// A parsed `MEMORY.md`: its header and its entries `(display name, file)`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TopicList {
    pub header: String,
    pub entries: Vec<(String, String)>,
}

impl TopicList {
    /// Reads an index; lines that are not entries before the first entry form
    /// the header; other stray lines are dropped.
    pub fn parse(text: &str) -> TopicList {
        let mut header = String::new();
        let mut entries = Vec::new();
        for line in text.lines() {
            match entry(line) {
                Some(e) => entries.push(e),
                None if entries.is_empty() => {
                    header.push_str(line);
                    header.push('\n');
                }
                None => {}
            }
        }
        if header.trim().is_empty() {
            header = HEADER.to_string();
        }
        TopicList { header, entries }
    }

    /// The display name recorded for `file`, if any.
    pub fn name_of(&self, file: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(_, f)| f == file)
            .map(|(n, _)| n.as_str())
    }

    /// Adds `file` (once) under `name`, keeping the first name recorded.
    pub fn insert(&mut self, name: &str, file: &str) {
        if self.name_of(file).is_none() {
            self.entries.push((
                name.trim().replace(['[', ']', '\n', '\r'], " "),
                file.to_string(),
            ));
        }
    }

    pub fn remove(&mut self, file: &str) {
        self.entries.retain(|(_, f)| f != file);
    }

    /// The index text: header, a blank line, sorted entries.
    pub fn render(&self) -> String {
        let mut entries = self.entries.clone();
        entries.sort_by(|a, b| a.1.cmp(&b.1));
        entries.dedup_by(|a, b| a.1 == b.1);
        let mut out = self.header.trim_end().to_string();
        out.push_str("\n\n");
        for (name, file) in entries {
            out.push_str(&format!("- [{name}]({file})\n"));
        }
        out
    }
}

/// `- [Name](file.md)` -> (Name, file.md)
fn entry(line: &str) -> Option<(String, String)> {
    let rest = line.trim().strip_prefix("- [")?;
    let (name, rest) = rest.split_once("](")?;
    let file = rest.strip_suffix(')')?;
    (file.ends_with(".md") && !file.contains('/')).then(|| (name.to_string(), file.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_header_sorts_and_dedupes() {
        let mut idx = TopicList::parse("# My notes\nhand-written\n- [Zeta](zeta.md)\n- [Alpha](alpha.md)\nstray\n- [Again](zeta.md)\n");
        assert_eq!(idx.header, "# My notes\nhand-written\n");
        idx.insert("Beta", "beta.md");
        idx.insert("ALPHA!", "alpha.md");
        assert_eq!(idx.render(), "# My notes\nhand-written\n\n- [Alpha](alpha.md)\n- [Beta](beta.md)\n- [Zeta](zeta.md)\n");
        assert_eq!(TopicList::parse("").render(), format!("{}\n", HEADER));
    }
}
