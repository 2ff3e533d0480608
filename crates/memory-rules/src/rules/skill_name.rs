//! A skill's name as rules and sessions compare it: `skills:` in a rule's
//! frontmatter and the skills a conversation activates meet here.

use crate::base::limits::MAX_SKILL_NAME_CHARS;

/// Why a text is not a skill name, with the name (trimmed, without its
/// leading `/`). Prints the reason only: the caller names the entry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkillNameError {
    #[error("it is empty")]
    Empty,
    /// Longer than [`MAX_SKILL_NAME_CHARS`].
    #[error("it is longer than the limit of {MAX_SKILL_NAME_CHARS} characters")]
    TooLong { name: String },
    /// A space, a path separator or a control character.
    #[error("a skill name has no spaces, slashes or control characters")]
    BadCharacter { name: String },
}

/// A skill name as the session compares it: trimmed, without a leading `/`
/// (a slash command), lowercased. Refused: empty, longer than
/// [`MAX_SKILL_NAME_CHARS`], or holding a space, a path separator or a
/// control character.
pub fn name(raw: &str) -> Result<String, SkillNameError> {
    let n = raw.trim();
    let n = n.strip_prefix('/').unwrap_or(n);
    if n.is_empty() {
        return Err(SkillNameError::Empty);
    }
    if n.chars().count() > MAX_SKILL_NAME_CHARS {
        return Err(SkillNameError::TooLong {
            name: n.to_string(),
        });
    }
    if n.chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '/' || c == '\\')
    {
        return Err(SkillNameError::BadCharacter {
            name: n.to_string(),
        });
    }
    Ok(n.to_lowercase())
}

/// The name without a plugin's namespace (`plugin:skill` -> `skill`).
pub fn bare(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_compared_lowercased_without_a_leading_slash() {
        assert_eq!(name(" /Deploy-Docs ").unwrap(), "deploy-docs");
        assert_eq!(name("plugin:pdf").unwrap(), "plugin:pdf");
        assert_eq!(bare("plugin:pdf"), "pdf");
        assert_eq!(bare("pdf"), "pdf");
        for bad in ["", "/", "a b", "a/b", "a\\b", "a\u{7}"] {
            assert!(name(bad).is_err(), "{bad:?}");
        }
        assert!(name(&"x".repeat(MAX_SKILL_NAME_CHARS + 1)).is_err());
        assert!(name(&"x".repeat(MAX_SKILL_NAME_CHARS)).is_ok());
    }
}
