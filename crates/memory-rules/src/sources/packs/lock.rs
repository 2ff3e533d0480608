//! `.wave/packs.lock`: each pack pinned by what it resolved to (an npm
//! pack's version, a git pack's commit) and the hash of its rule files.
//! `wave-rules packs sync` writes it; `packs sync --frozen` fails when the
//! packs differ from it; a load only compares (a stale pack is a
//! diagnostic, never a fetch).
//!
//! ```toml
//! # Written by `wave-rules packs sync`. Commit it: `wave-rules packs sync --frozen` checks it.
//! version = 1
//!
//! [[pack]]
//! spec = "@acme/rules@^2"
//! kind = "npm"
//! name = "@acme/rules"
//! version = "2.3.1"
//! hash = "sha256:9f2c..."
//! ```

use super::spec::PackKind;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The lockfile format's version.
pub const LOCK_VERSION: u32 = 1;

/// The first line of every lockfile written.
pub const LOCK_HEADER: &str =
    "# Written by `wave-rules packs sync`. Commit it: `wave-rules packs sync --frozen` checks it.\n";

/// The lockfile.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackLock {
    pub version: u32,
    #[serde(default, rename = "pack", skip_serializing_if = "Vec::is_empty")]
    pub packs: Vec<Locked>,
}

/// One pack's pin.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locked {
    /// The SPEC as the config names it.
    pub spec: String,
    /// `npm`, `git` or `folder`.
    pub kind: String,
    pub name: String,
    /// npm: the installed version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// git: the ref the commit was resolved from (`None`: the default branch).
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// git: the commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// `sha256:<hex>` of the pack's rule files (see `hash`).
    pub hash: String,
}

impl PackLock {
    /// The lockfile at `path`: `Ok(None)` when there is none, an error naming
    /// the file and the problem when it cannot be used.
    pub fn read(path: &Path) -> Result<Option<PackLock>, String> {
        let text = match crate::sources::discover::read(path) {
            Ok(t) => t,
            Err(_) if !path.exists() => return Ok(None),
            Err(d) => return Err(d.to_string()),
        };
        let lock: PackLock = toml::from_str(&text)
            .map_err(|e| format!("{}: not a packs lockfile: {}", path.display(), e.message()))?;
        if lock.version != LOCK_VERSION {
            return Err(format!(
                "{}: a lockfile of version {}, not {LOCK_VERSION}; write it again with `wave-rules packs sync`",
                path.display(),
                lock.version
            ));
        }
        Ok(Some(lock))
    }

    /// The entry of this SPEC.
    pub fn get(&self, spec: &str) -> Option<&Locked> {
        self.packs.iter().find(|p| p.spec == spec)
    }

    /// The text to write: the header, then the TOML (entries in config order).
    pub fn to_text(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!("{LOCK_HEADER}{body}")
    }
}

/// How a pack as found differs from what the lock pins: the one lock-drift
/// check, for the load's pack diagnostics and `packs sync --frozen`, each
/// saying it in its own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockDrift {
    /// The pack has no entry in the lock.
    NotLocked,
    /// Another version (npm, a folder) or commit (git) than the lock's
    /// (`locked`: the lock's).
    Pin { locked: Option<String> },
    /// The pinned version or commit, other rule files (`locked`: the lock's
    /// hash).
    Content { locked: String },
}

impl LockDrift {
    /// `locked` against a pack of `kind` resolved to `pin` (npm and folders:
    /// the installed version; git: the commit) whose rule files hash to
    /// `hash` (`None`: the content is not compared). `None`: no drift.
    pub fn of(
        locked: Option<&Locked>,
        kind: PackKind,
        pin: Option<&str>,
        hash: Option<&str>,
    ) -> Option<LockDrift> {
        let Some(locked) = locked else {
            return Some(LockDrift::NotLocked);
        };
        let pinned = match kind {
            PackKind::Git => locked.commit.as_deref(),
            _ => locked.version.as_deref(),
        };
        if pinned != pin {
            return Some(LockDrift::Pin {
                locked: pinned.map(str::to_string),
            });
        }
        hash.filter(|h| *h != locked.hash)
            .map(|_| LockDrift::Content {
                locked: locked.hash.clone(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_round_trips_through_its_text() {
        let lock = PackLock {
            version: LOCK_VERSION,
            packs: vec![
                Locked {
                    spec: "@acme/rules@^2".into(),
                    kind: "npm".into(),
                    name: "@acme/rules".into(),
                    version: Some("2.3.1".into()),
                    hash: "sha256:00".into(),
                    ..Locked::default()
                },
                Locked {
                    spec: "git+file:///r.git#v1".into(),
                    kind: "git".into(),
                    name: "r".into(),
                    reference: Some("v1".into()),
                    commit: Some("abc".into()),
                    hash: "sha256:11".into(),
                    ..Locked::default()
                },
            ],
        };
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("packs.lock");
        std::fs::write(&p, lock.to_text()).unwrap();
        assert!(lock.to_text().starts_with(LOCK_HEADER));
        assert!(lock.to_text().contains("[[pack]]"), "{}", lock.to_text());
        assert_eq!(PackLock::read(&p).unwrap(), Some(lock));
        assert_eq!(PackLock::read(&t.path().join("none")).unwrap(), None);
        std::fs::write(&p, "version = 9\n").unwrap();
        assert!(PackLock::read(&p).unwrap_err().contains("version 9"));
    }

    #[test]
    fn lock_drift_names_a_missing_entry_another_pin_and_other_files() {
        let locked = Locked {
            kind: "npm".into(),
            version: Some("2.3.1".into()),
            commit: Some("abc".into()),
            hash: "sha256:1".into(),
            ..Locked::default()
        };
        let npm = |pin, hash| LockDrift::of(Some(&locked), PackKind::Npm, pin, hash);
        assert_eq!(
            LockDrift::of(None, PackKind::Npm, Some("2.3.1"), None),
            Some(LockDrift::NotLocked)
        );
        assert_eq!(npm(Some("2.3.1"), None), None);
        assert_eq!(npm(Some("2.3.1"), Some("sha256:1")), None);
        assert_eq!(
            npm(Some("2.4.0"), Some("sha256:1")),
            Some(LockDrift::Pin {
                locked: Some("2.3.1".into())
            })
        );
        assert_eq!(
            npm(Some("2.3.1"), Some("sha256:2")),
            Some(LockDrift::Content {
                locked: "sha256:1".into()
            })
        );
        // A git pack is pinned by its commit, not a version.
        let git = |pin| LockDrift::of(Some(&locked), PackKind::Git, pin, None);
        assert_eq!(git(Some("abc")), None);
        assert_eq!(
            git(Some("2.3.1")),
            Some(LockDrift::Pin {
                locked: Some("abc".into())
            })
        );
        assert_eq!(
            git(None),
            Some(LockDrift::Pin {
                locked: Some("abc".into())
            })
        );
    }
}
