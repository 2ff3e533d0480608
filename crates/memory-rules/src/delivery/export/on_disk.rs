//! What is on disk in the places of a plan's targets: one listing of each
//! place and one read of each file found there.

use super::is_generated;
use super::parallel::par_map;
use super::plan::Plan;
use crate::base::limits::{MAX_SCAN_FILES, MAX_TARGET_FILE_BYTES};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

pub(super) fn read_text(path: &Path) -> Result<Option<String>, String> {
    use crate::base::fs::{read_bounded, Links, ReadError};
    match read_bounded(path, MAX_TARGET_FILE_BYTES, Links::Follow) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.is_not_found() => Ok(None),
        Err(ReadError::NotFile) if path.is_dir() => Err("is a directory".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// What is on disk in the places of the plan's targets, from one listing
/// of each place: every entry's relative path, the directories whose
/// entries were all listed, and the text of every file read.
#[derive(Default)]
pub(super) struct OnDisk {
    /// Every entry (file, directory, link) found, relative, `/`-separated
    /// and lowercased: on a case-insensitive file system `Foo.mdc` is there
    /// when `foo.mdc` is, so it is looked up rather than known absent.
    pub(super) present: HashSet<String>,
    /// Directories listed completely (an entry absent from `present` below
    /// them does not exist, so it is not looked up again).
    pub(super) listed: HashSet<String>,
    /// Places that do not exist (nothing below them does).
    pub(super) absent: Vec<String>,
    /// The files that may be generated (in a target's place), with their
    /// text (`None`: unreadable).
    pub(super) texts: BTreeMap<String, Option<String>>,
}

/// `rel`'s parent (`""` for the root).
pub(super) fn parent_rel(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

fn rel_string(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Lists the places of the plan's targets once each (the directories, with
/// at most [`MAX_SCAN_FILES`] entries per target; one project walk for all
/// `AGENTS.md`-style names) and reads every file found there, in parallel.
pub(super) fn on_disk(
    plan: &Plan,
    workdir: &Path,
    walked: Option<&crate::sources::nested::Tree>,
) -> OnDisk {
    let mut disk = OnDisk::default();
    let mut candidates: BTreeSet<String> = BTreeSet::new();
    let mut combined: Vec<&str> = Vec::new();
    for &t in &plan.targets {
        let (dirs, files) = t.places();
        candidates.extend(files.iter().map(|f| f.to_string()));
        if let Some(name) = t.combined_name() {
            combined.push(name);
        }
        for d in dirs {
            let root = workdir.join(d);
            match std::fs::metadata(&root) {
                Ok(m) if m.is_dir() => {}
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        && std::fs::symlink_metadata(&root).is_err() =>
                {
                    disk.absent.push(d.to_string());
                    continue;
                }
                _ => continue,
            }
            const DEPTH: usize = 8;
            let mut listed = Vec::new();
            let mut seen = 0usize;
            let mut complete = true;
            for e in walkdir::WalkDir::new(&root)
                .follow_links(false)
                .max_depth(DEPTH)
                .into_iter()
            {
                let Ok(e) = e else {
                    complete = false;
                    continue;
                };
                seen += 1;
                if seen > MAX_SCAN_FILES {
                    complete = false;
                    break;
                }
                let Ok(rel) = e.path().strip_prefix(workdir) else {
                    continue;
                };
                let rel = rel_string(rel);
                if e.file_type().is_dir() && e.depth() < DEPTH {
                    listed.push(rel.clone());
                }
                if e.file_type().is_file() {
                    candidates.insert(rel.clone());
                }
                disk.present.insert(rel.to_lowercase());
            }
            if complete {
                disk.listed.extend(listed);
            }
        }
    }
    if !combined.is_empty() {
        // The discovery's walk of this project when it made one (it collects
        // every AGENTS.md and GEMINI.md), else a walk of its own.
        let found = match walked {
            Some(tree) => tree.named(&combined),
            None => crate::sources::nested::agents_files(workdir, &combined, &mut Vec::new()),
        };
        for f in found {
            candidates.insert(f.rel);
        }
    }
    let candidates: Vec<String> = candidates.into_iter().collect();
    let texts = par_map(&candidates, |rel| {
        read_text(&workdir.join(rel)).ok().flatten()
    });
    for (rel, text) in candidates.into_iter().zip(texts) {
        disk.present.insert(rel.to_lowercase());
        disk.texts.insert(rel, text);
    }
    disk
}

impl OnDisk {
    /// Whether `rel` is known not to exist without looking it up.
    pub(super) fn known_absent(&self, rel: &str) -> bool {
        (self.listed.contains(parent_rel(rel)) && !self.present.contains(&rel.to_lowercase()))
            || self.absent.iter().any(|d| {
                rel.strip_prefix(d.as_str())
                    .is_some_and(|r| r.starts_with('/'))
            })
    }
}

/// The generated files already on disk in the places of the plan's
/// targets (relative paths, sorted).
pub fn generated_files(plan: &Plan, workdir: &Path) -> Vec<String> {
    on_disk(plan, workdir, None)
        .texts
        .into_iter()
        .filter(|(_, t)| t.as_deref().is_some_and(is_generated))
        .map(|(rel, _)| rel)
        .collect()
}
