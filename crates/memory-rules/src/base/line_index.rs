//! Line and column of byte offsets in one text, for diagnostics.
//!
//! The line starts are found once; each lookup is then a binary search and
//! a count of characters from the line's start. [`LineIndex::next_at`]
//! counts on from the previous lookup when it is further along the same
//! line, so the many locations of one long line are counted once.

/// The line starts of one text.
#[derive(Debug)]
pub struct LineIndex<'t> {
    text: &'t str,
    /// Byte offset of each line's first byte.
    starts: Vec<usize>,
    /// The last [`LineIndex::next_at`]: (byte, 0-based line, column).
    last: Option<(usize, usize, u32)>,
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            text,
            starts,
            last: None,
        }
    }

    /// 1-based line and column (in characters) of a byte offset; an
    /// offset past the end is the end.
    pub fn at(&self, byte: usize) -> (u32, u32) {
        let line = self.line(byte);
        let column = 1 + self.count(self.starts[line], byte);
        (line as u32 + 1, column)
    }

    /// [`LineIndex::at`], counting the column on from the previous
    /// `next_at` when it was on the same line, at or before `byte`.
    pub fn next_at(&mut self, byte: usize) -> (u32, u32) {
        let line = self.line(byte);
        let (from, base) = match self.last {
            Some((b, l, c)) if l == line && b <= byte => (b, c),
            _ => (self.starts[line], 1),
        };
        let column = base + self.count(from, byte);
        self.last = Some((byte, line, column));
        (line as u32 + 1, column)
    }

    /// The 0-based line of a byte offset.
    fn line(&self, byte: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= byte)
            .saturating_sub(1)
    }

    /// The characters between two byte offsets.
    fn count(&self, from: usize, to: usize) -> u32 {
        let to = to.min(self.text.len());
        self.text[from.min(to)..to].chars().count() as u32
    }
}

impl Default for LineIndex<'_> {
    /// The index of the empty text.
    fn default() -> Self {
        LineIndex::new("")
    }
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let text = "ab\nçé x\n\nlast";
        let index = LineIndex::new(text);
        assert_eq!(index.at(0), (1, 1));
        assert_eq!(index.at(1), (1, 2));
        assert_eq!(index.at(2), (1, 3));
        assert_eq!(index.at(3), (2, 1));
        assert_eq!(index.at(text.find('x').unwrap()), (2, 4));
        assert_eq!(index.at(text.find("\n\n").unwrap() + 1), (3, 1));
        assert_eq!(index.at(text.find("last").unwrap()), (4, 1));
        assert_eq!(index.at(text.len() + 10), (4, 5));
    }

    #[test]
    fn next_at_counts_on_along_a_line_and_agrees_with_at() {
        let text = "a: [é1, é2, é3]\nb: [x, y]";
        let mut index = LineIndex::new(text);
        let offsets: Vec<usize> = ["é1", "é2", "é3", "x", "y", "é2"]
            .iter()
            .map(|n| text.find(n).unwrap())
            .collect();
        for byte in offsets {
            assert_eq!(index.next_at(byte), index.at(byte), "at byte {byte}");
        }
    }
}
