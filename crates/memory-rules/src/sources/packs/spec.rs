//! A pack as a project names it: the SPEC of `wave-rules packs add` and of
//! `packs = [...]` in `.wave/config.toml`, spelled as `package.json`
//! dependencies and `npm install` spell it.
//!
//! - npm: `@acme/rules`, `@acme/rules@^2`, `team-rules@~1.4.0` (a name and
//!   an optional semver range; the package manager installs it).
//! - git: `git+file:///srv/git/rules.git#v1.2.0`, `git+https://host/acme/rules.git#main`,
//!   `git+ssh://git@host/acme/rules.git` (a URL and an optional ref after `#`;
//!   `packs sync` fetches it).
//! - folder: `./team-rules`, `../shared/rules`, `/opt/acme/rules`, `file:../rules`.

use crate::base::limits::MAX_SPEC_CHARS;
use std::fmt;

/// What kind of pack a SPEC names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PackKind {
    Npm,
    Git,
    Folder,
}

impl PackKind {
    /// `npm`, `git` or `folder`.
    pub fn as_str(self) -> &'static str {
        match self {
            PackKind::Npm => "npm",
            PackKind::Git => "git",
            PackKind::Folder => "folder",
        }
    }
}

impl fmt::Display for PackKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a SPEC names no pack: what is wrong, with the SPEC (trimmed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("an empty pack spec")]
    Empty,
    #[error("a pack spec longer than {MAX_SPEC_CHARS} characters (limit)")]
    TooLong { spec: String },
    #[error("'{spec}': a git pack is git+file://, git+https://, git+http:// or git+ssh:// followed by the repository URL")]
    GitScheme { spec: String },
    #[error("'{spec}': the git URL names no repository")]
    NoRepository { spec: String },
    #[error("'{spec}': an npm package name is at most 214 characters")]
    NpmNameTooLong { spec: String },
    #[error("'{spec}': a scoped npm name is @scope/name")]
    NpmScope { spec: String },
    /// A `/` in an unscoped name: neither npm, git nor a path.
    #[error("'{spec}': not a package name, a git URL (git+...) or a path (./, ../, /)")]
    NotAPackName { spec: String },
    /// `part` (the scope or the name) breaks npm's rules for a name.
    #[error("'{spec}': '{part}' is not an npm package name (lowercase letters, digits, - . _ ~)")]
    NpmNamePart { spec: String, part: String },
}

/// One pack, parsed from its SPEC.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    /// The SPEC as written (the lockfile's key).
    pub text: String,
    pub kind: PackKind,
    /// npm: the package name; git: the repository's base name without
    /// `.git`; folder: the path as written.
    pub name: String,
    /// npm: the version range (`None`: any); git: the ref (`None`: the
    /// remote's default branch).
    pub want: Option<String>,
    /// git: the URL without `git+`; folder: the path without `file:`.
    pub location: String,
}

impl Spec {
    /// Parses a SPEC, or says what is wrong with it.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        if text.chars().count() > MAX_SPEC_CHARS {
            return Err(SpecError::TooLong {
                spec: text.to_string(),
            });
        }
        if let Some(url) = text.strip_prefix("git+") {
            let (url, reference) = match url.split_once('#') {
                Some((u, r)) => (u, Some(r.to_string()).filter(|r| !r.is_empty())),
                None => (url, None),
            };
            let known = ["file://", "https://", "http://", "ssh://"];
            if !known.iter().any(|k| url.starts_with(k)) {
                return Err(SpecError::GitScheme {
                    spec: text.to_string(),
                });
            }
            let base = url
                .trim_end_matches('/')
                .rsplit(['/', ':'])
                .next()
                .unwrap_or("")
                .trim_end_matches(".git");
            if base.is_empty() {
                return Err(SpecError::NoRepository {
                    spec: text.to_string(),
                });
            }
            return Ok(Spec {
                text: text.to_string(),
                kind: PackKind::Git,
                name: base.to_string(),
                want: reference,
                location: url.to_string(),
            });
        }
        let folder = text.strip_prefix("file:").unwrap_or(text);
        let is_path = folder.starts_with('.')
            || folder.starts_with('/')
            || folder.starts_with('~')
            || folder.starts_with('\\')
            || folder.as_bytes().get(1) == Some(&b':');
        if text.starts_with("file:") || is_path {
            return Ok(Spec {
                text: text.to_string(),
                kind: PackKind::Folder,
                name: folder.to_string(),
                want: None,
                location: folder.to_string(),
            });
        }
        // npm: NAME or NAME@RANGE, NAME possibly scoped (@scope/name).
        let at = text[1..].find('@').map(|i| i + 1);
        let (name, range) = match at {
            Some(i) => (&text[..i], Some(text[i + 1..].trim().to_string())),
            None => (text, None),
        };
        check_npm_name(text, name)?;
        Ok(Spec {
            text: text.to_string(),
            kind: PackKind::Npm,
            name: name.to_string(),
            want: range.filter(|r| !r.is_empty()),
            location: name.to_string(),
        })
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// npm's rules for a package name, as far as a path is concerned: at most
/// 214 characters, lowercase, URL-safe, `@scope/name` or `name`. `spec`:
/// the SPEC the name is from, for the error.
fn check_npm_name(spec: &str, name: &str) -> Result<(), SpecError> {
    let spec = || spec.to_string();
    if name.len() > 214 {
        return Err(SpecError::NpmNameTooLong { spec: spec() });
    }
    let parts: Vec<&str> = match name.strip_prefix('@') {
        Some(rest) => {
            let parts: Vec<&str> = rest.split('/').collect();
            if parts.len() != 2 {
                return Err(SpecError::NpmScope { spec: spec() });
            }
            parts
        }
        None if name.contains('/') => return Err(SpecError::NotAPackName { spec: spec() }),
        None => vec![name],
    };
    for p in parts {
        let ok = !p.is_empty()
            && !p.starts_with('.')
            && !p.starts_with('_')
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._~".contains(c));
        if !ok {
            return Err(SpecError::NpmNamePart {
                spec: spec(),
                part: p.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! spec {
        ($text:expr, $kind:expr, $name:expr, $want:expr, $loc:expr) => {
            let s = Spec::parse($text).unwrap();
            assert_eq!(
                (
                    s.kind,
                    s.name.as_str(),
                    s.want.as_deref(),
                    s.location.as_str()
                ),
                ($kind, $name, $want, $loc),
                "{}",
                $text
            );
        };
    }

    #[test]
    fn specs_parse_as_package_json_spells_them() {
        spec!(
            "@acme/rules",
            PackKind::Npm,
            "@acme/rules",
            None,
            "@acme/rules"
        );
        spec!(
            "@acme/rules@^2",
            PackKind::Npm,
            "@acme/rules",
            Some("^2"),
            "@acme/rules"
        );
        spec!(
            "team-rules@~1.4.0",
            PackKind::Npm,
            "team-rules",
            Some("~1.4.0"),
            "team-rules"
        );
        spec!(
            "git+file:///srv/git/sec.git#v1.2.0",
            PackKind::Git,
            "sec",
            Some("v1.2.0"),
            "file:///srv/git/sec.git"
        );
        spec!(
            "git+https://example.com/acme/rules.git",
            PackKind::Git,
            "rules",
            None,
            "https://example.com/acme/rules.git"
        );
        spec!(
            "git+ssh://git@example.com/acme/rules#main",
            PackKind::Git,
            "rules",
            Some("main"),
            "ssh://git@example.com/acme/rules"
        );
        spec!(
            "./team-rules",
            PackKind::Folder,
            "./team-rules",
            None,
            "./team-rules"
        );
        spec!(
            "../shared",
            PackKind::Folder,
            "../shared",
            None,
            "../shared"
        );
        spec!(
            "/opt/acme/rules",
            PackKind::Folder,
            "/opt/acme/rules",
            None,
            "/opt/acme/rules"
        );
        spec!(
            "file:../rules",
            PackKind::Folder,
            "../rules",
            None,
            "../rules"
        );
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        for (text, says) in [
            ("", "empty"),
            ("Acme", "not an npm package name"),
            ("@acme", "@scope/name"),
            ("acme/rules", "git URL"),
            ("git+ftp://x/y.git", "git+file://"),
        ] {
            let e = Spec::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
