//! File names from free text: rule ids made by `wave-rules add`, and (later)
//! memory topic names.
//!
//! The rule: lowercase; Unicode letters and digits kept; every other run of
//! characters becomes one `-`; no `-` at either end; at most `max` characters
//! (cut at a character boundary, then trailing `-` dropped). Text with no
//! letter or digit has no slug.

/// The slug of `text`, or `None` when it has no letter or digit.
pub fn slug(text: &str, max: usize) -> Option<String> {
    let mut out = String::new();
    let mut count = 0;
    let mut dash = false;
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            if dash && !out.is_empty() {
                if count + 1 >= max {
                    break;
                }
                out.push('-');
                count += 1;
            }
            dash = false;
            for lower in ch.to_lowercase() {
                if count >= max {
                    break;
                }
                out.push(lower);
                count += 1;
            }
            if count >= max {
                break;
            }
        } else {
            dash = true;
        }
    }
    let trimmed = out.trim_end_matches('-');
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slug_table() {
        for (text, want) in [
            (
                "Use the customer_rw procedures!",
                Some("use-the-customer-rw-procedures"),
            ),
            ("  --Leading and trailing--  ", Some("leading-and-trailing")),
            ("ÜGYFÉL tábla", Some("ügyfél-tábla")),
            ("日本語のルール", Some("日本語のルール")),
            ("a/../b\0c", Some("a-b-c")),
            ("!!! ??? ...", None),
            ("", None),
            (
                "x".repeat(50).as_str(),
                Some("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
            ),
            (
                "Never commit secrets to the repository, ever, at all",
                Some("never-commit-secrets-to-the-repository-e"),
            ),
        ] {
            assert_eq!(slug(text, 40).as_deref(), want, "{text:?}");
        }
        for text in [
            "Never commit secrets to the repository, ever",
            "abcdefghij klmnopqrst uvwxyzabcd efghijklmn",
        ] {
            let s = slug(text, 40).unwrap();
            assert!(s.chars().count() <= 40 && !s.ends_with('-'), "{s}");
        }
    }
}
