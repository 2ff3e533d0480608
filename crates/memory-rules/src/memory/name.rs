//! Topic names to file names.
//!
//! The rule (the same as rule ids made by `wave-rules add`, see
//! [`crate::base::slug`]): lowercase; Unicode letters and digits kept; every other
//! run of characters becomes one `-`; no `-` at either end; at most
//! [`MAX_MEMORY_NAME_CHARS`] characters; then `.md`. So `Staging DB`, `staging-db`
//! and `STAGING  db!` are one topic, `staging-db.md`. A name with no letter
//! or digit (empty, `...`, `../`) is refused; since only letters, digits and
//! `-` survive, no name can reach outside the memory directory.
//!
//! A stem Windows reserves (`con`, `nul`, `prn`, `aux`, `com1`-`com9`,
//! `lpt1`-`lpt9`, with any extension) and `memory` (which is `MEMORY.md`
//! itself on a case-insensitive file system) get `-topic` added:
//! `CON` is `con-topic.md`. No topic name produces a reserved file name.

use crate::base::limits::MAX_MEMORY_NAME_CHARS;

/// The file name of a topic, or `None` when the name has no letter or digit.
/// The name is put in Unicode NFC first, so the NFC and NFD spellings of
/// `Ügyfél` are one topic.
pub fn topic_file(name: &str) -> Option<String> {
    let stem = crate::base::slug::slug(&nfc(name), MAX_MEMORY_NAME_CHARS)?;
    Some(if is_reserved(&stem) {
        format!("{stem}-topic.md")
    } else {
        format!("{stem}.md")
    })
}

/// File stems that name a device on Windows (with any extension), and the
/// index's own stem.
fn is_reserved(stem: &str) -> bool {
    const DEVICES: [&str; 5] = ["con", "prn", "aux", "nul", "memory"];
    if DEVICES.contains(&stem) {
        return true;
    }
    // COM1-COM9, LPT1-LPT9 and their superscript-digit forms.
    let numbered = stem
        .strip_prefix("com")
        .or_else(|| stem.strip_prefix("lpt"));
    numbered.is_some_and(|n| {
        let mut chars = n.chars();
        matches!(
            (chars.next(), chars.next()),
            (Some('1'..='9' | '¹' | '²' | '³'), None)
        )
    })
}

/// `name` in Unicode normalization form C.
pub fn nfc(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.nfc().collect()
}

#[cfg(test)]
mod tests {
    use super::topic_file;

    #[test]
    fn names_table() {
        for (name, want) in [
            ("Staging DB", Some("staging-db.md")),
            ("staging-db", Some("staging-db.md")),
            ("STAGING  db!", Some("staging-db.md")),
            ("../../etc/passwd", Some("etc-passwd.md")),
            ("a/b", Some("a-b.md")),
            ("nul\0byte", Some("nul-byte.md")),
            ("構築手順", Some("構築手順.md")),
            ("ÜGYFÉL Tábla", Some("ügyfél-tábla.md")),
            ("ΣΟΦΙΑ", Some("σοφια.md")),
            ("", None),
            ("...", None),
            ("../", None),
            ("/", None),
            ("\0", None),
            ("U\u{308}gyfe\u{301}l", Some("ügyfél.md")),
            ("CON", Some("con-topic.md")),
            ("nul", Some("nul-topic.md")),
            ("Com1", Some("com1-topic.md")),
            ("LPT9", Some("lpt9-topic.md")),
            ("com10", Some("com10.md")),
            ("console", Some("console.md")),
            ("Memory", Some("memory-topic.md")),
            ("memory notes", Some("memory-notes.md")),
        ] {
            assert_eq!(topic_file(name).as_deref(), want, "{name:?}");
        }
    }
}
