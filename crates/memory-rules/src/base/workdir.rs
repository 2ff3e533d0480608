//! Normalizes the agent's "files in context" before matching.
//!
//! Absolute paths are made relative to the workdir, `\` becomes `/`, `.`
//! segments (a leading `./` included) and empty segments are dropped, and
//! `..` is resolved lexically. A path that ends up outside the workdir
//! matches no pattern, so it normalizes to `None`.

use std::borrow::Cow;
use std::path::Path;

/// The workdir in the forms a context path may start with.
#[derive(Clone, Debug, Default)]
pub struct Workdir {
    /// `/`-separated, no trailing `/`: the workdir as given (made absolute),
    /// and its realpath when that differs.
    prefixes: Vec<String>,
}

impl Workdir {
    pub fn new(dir: &Path) -> Self {
        let mut prefixes = Vec::new();
        let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        prefixes.push(slashed(&absolute.to_string_lossy()));
        if let Ok(real) = std::fs::canonicalize(dir) {
            let real = slashed(&real.to_string_lossy());
            if !prefixes.contains(&real) {
                prefixes.push(real);
            }
        }
        Workdir { prefixes }
    }

    /// The path relative to the workdir, or `None` if it is outside.
    pub fn relative<'a>(&self, raw: &'a str) -> Option<Cow<'a, str>> {
        let path: Cow<'a, str> = if raw.contains('\\') {
            Cow::Owned(raw.replace('\\', "/"))
        } else {
            Cow::Borrowed(raw)
        };
        if is_absolute(&path) {
            let rel = self.prefixes.iter().find_map(|p| strip_dir(&path, p))?;
            return clean(rel).map(|c| Cow::Owned(c.into_owned()));
        }
        match path {
            Cow::Borrowed(b) => clean(b),
            Cow::Owned(o) => clean(&o).map(|c| Cow::Owned(c.into_owned())),
        }
    }
}

fn slashed(s: &str) -> String {
    let s = s.replace('\\', "/");
    match s.trim_end_matches('/') {
        "" => "/".to_string(),
        t => t.to_string(),
    }
}

fn is_absolute(p: &str) -> bool {
    p.starts_with('/') || (p.len() >= 3 && p.as_bytes()[1] == b':' && p.as_bytes()[2] == b'/')
}

fn strip_dir<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    if dir == "/" {
        return path.strip_prefix('/');
    }
    let rest = path.strip_prefix(dir)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// Lexical clean-up of a relative path; borrows when nothing changes.
fn clean(p: &str) -> Option<Cow<'_, str>> {
    if !needs_cleaning(p.as_bytes()) {
        return Some(Cow::Borrowed(p));
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(Cow::Owned(parts.join("/")))
}

/// One pass over the bytes: an empty path or segment, or a `.` / `..`
/// segment. (Most context paths are already clean and borrow as they are.)
fn needs_cleaning(p: &[u8]) -> bool {
    let mut seg_start = 0;
    for i in 0..=p.len() {
        if i == p.len() || p[i] == b'/' {
            match &p[seg_start..i] {
                b"" | b"." | b".." => return true,
                _ => {}
            }
            seg_start = i + 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_table() {
        let w = Workdir {
            prefixes: vec!["/repo".into()],
        };
        for (raw, want) in [
            ("src/a.ts", Some("src/a.ts")),
            ("./src/a.ts", Some("src/a.ts")),
            ("././src//a.ts", Some("src/a.ts")),
            ("src\\lib\\a.ts", Some("src/lib/a.ts")),
            (".\\src\\a.ts", Some("src/a.ts")),
            ("/repo/src/a.ts", Some("src/a.ts")),
            ("/repo", None),
            ("/repository/a.ts", None),
            ("/other/a.ts", None),
            ("../a.ts", None),
            ("src/../../a.ts", None),
            ("src/x/../a.ts", Some("src/a.ts")),
            ("", None),
            (".env", Some(".env")),
        ] {
            assert_eq!(w.relative(raw).as_deref(), want, "{raw}");
        }
        let win = Workdir {
            prefixes: vec!["C:/work/repo".into()],
        };
        assert_eq!(
            win.relative("C:\\work\\repo\\src\\a.ts").as_deref(),
            Some("src/a.ts")
        );
    }

    #[test]
    fn realpath_of_workdir_is_accepted() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let w = Workdir::new(&link);
        let real = std::fs::canonicalize(&real).unwrap();
        assert_eq!(
            w.relative(&format!("{}/a.ts", real.display())).as_deref(),
            Some("a.ts")
        );
        assert_eq!(
            w.relative(&format!("{}/a.ts", link.display())).as_deref(),
            Some("a.ts")
        );
    }
}
