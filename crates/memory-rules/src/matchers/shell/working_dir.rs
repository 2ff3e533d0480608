//! The directory a command's relative operands are relative to, as `cd`
//! moves it.

/// The directory relative operands are relative to: the command's own
/// (`Here`), a literal one after `cd` (`Dir`), or not known.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Cwd {
    Here,
    Dir(String),
    Unknown,
}

impl Cwd {
    pub(super) fn join(&self, path: &str) -> Option<String> {
        if path.starts_with('/') {
            return Some(path.to_string());
        }
        match self {
            Cwd::Here => Some(path.to_string()),
            Cwd::Dir(d) => Some(join(d, path)),
            Cwd::Unknown => None,
        }
    }

    /// The directory after `cd`/`pushd` with these arguments (`cd` alone
    /// goes home: not known).
    pub(super) fn after_cd(&self, args: &[Option<String>]) -> Cwd {
        let target = args
            .iter()
            .find(|w| w.as_deref().is_none_or(|w| !w.starts_with('-')));
        match target {
            None => Cwd::Unknown,
            Some(t) => self.cd(t.as_deref()),
        }
    }

    pub(super) fn cd(&self, to: Option<&str>) -> Cwd {
        match to {
            Some(t) if t.starts_with('/') => Cwd::Dir(t.to_string()),
            Some("-") | None => Cwd::Unknown,
            Some(t) => match self {
                Cwd::Here => Cwd::Dir(t.to_string()),
                Cwd::Dir(d) => Cwd::Dir(join(d, t)),
                Cwd::Unknown => Cwd::Unknown,
            },
        }
    }
}

pub(super) fn join(dir: &str, path: &str) -> String {
    let mut parts: Vec<&str> = dir
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let absolute = dir.starts_with('/');
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_string()
    } else {
        joined
    }
}
