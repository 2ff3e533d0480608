//! The plan compared with the disk: the [`Sync`] of changes to write,
//! conflicts with hand-written files and copies left out.

use super::on_disk::{on_disk, parent_rel, read_text};
use super::parallel::par_map;
use super::plan::{Plan, PlannedFile};
use super::{is_generated, Target, MARKER};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// One difference between the plan and the disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub rel: String,
    pub path: PathBuf,
    /// The file's text now (`None`: absent).
    pub old: Option<String>,
    /// What export writes (`None`: removed, a stale generated file).
    pub new: Option<String>,
}

impl Change {
    pub fn verb(&self) -> &'static str {
        match (&self.old, &self.new) {
            (None, _) => "create",
            (_, None) => "remove",
            _ => "update",
        }
    }
}

/// A file export may not touch: it exists without the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub rel: String,
    pub path: PathBuf,
    pub message: String,
}

/// What [`sync`] would do.
#[derive(Clone, Debug, Default)]
pub struct Sync {
    pub changes: Vec<Change>,
    pub conflicts: Vec<Conflict>,
    /// Planned files already as export would write them.
    pub unchanged: usize,
    /// Planned files not written because a hand-written file of the same
    /// target already holds the same text: `(planned, existing)`, relative.
    pub copies: Vec<(String, String)>,
}

/// A rule file's text without its frontmatter and export's header, trimmed:
/// what two copies of one rule share.
fn body_of(text: &str) -> String {
    let body = crate::rules::frontmatter::split(text).map_or(text, |s| s.body);
    body.lines()
        .filter(|l| !l.trim_start().starts_with(MARKER))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// Compares the plan with the disk under `workdir`: files to create or
/// update, stale generated files of the plan's targets to remove, and
/// hand-written files in the way. Each place is listed once and each file
/// in it read once; a planned file in a directory listed without it is
/// known to be absent (no lookup).
pub fn diff(plan: &Plan, workdir: &Path) -> Sync {
    diff_with(plan, workdir, None)
}

/// [`diff`] reusing the project walk of the discovery the plan was made
/// from ([`crate::Loaded::tree`]), so an export walks the project once.
pub fn diff_with(
    plan: &Plan,
    workdir: &Path,
    walked: Option<&crate::sources::nested::Tree>,
) -> Sync {
    let mut sync = Sync::default();
    let planned: BTreeSet<&str> = plan.files.iter().map(|f| f.rel.as_str()).collect();
    let disk = on_disk(plan, workdir, walked);
    let mut is_file: HashMap<&str, bool> = HashMap::new();
    // Planned files neither listed nor read: looked up (in parallel).
    let unknown: Vec<&PlannedFile> = plan
        .files
        .iter()
        .filter(|f| !disk.texts.contains_key(&f.rel) && !disk.known_absent(&f.rel))
        .collect();
    let looked_up: HashMap<&str, Result<Option<String>, String>> = unknown
        .iter()
        .map(|f| f.rel.as_str())
        .zip(par_map(&unknown, |f| read_text(&workdir.join(&f.rel))))
        .collect();
    // The hand-written files of each target's places, by text: a planned
    // file with the same text under another name would be a second copy.
    let mut hand_written: HashMap<(Target, String), &str> = HashMap::new();
    for t in &plan.targets {
        let (dirs, _) = t.places();
        for (rel, text) in &disk.texts {
            let Some(text) = text.as_deref().filter(|t| !is_generated(t)) else {
                continue;
            };
            if dirs
                .iter()
                .any(|d| rel.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
            {
                hand_written.entry((*t, body_of(text))).or_insert(rel);
            }
        }
    }
    for f in &plan.files {
        let path = workdir.join(&f.rel);
        if f.rules.len() == 1 {
            if let Some(&existing) = hand_written.get(&(f.target, body_of(&f.text))) {
                if existing != f.rel {
                    sync.copies.push((f.rel.clone(), existing.to_string()));
                    continue;
                }
            }
        }
        // A parent that is a file (`.clinerules` as one file) is in the way.
        let mut blocked = None;
        let mut a = parent_rel(&f.rel);
        while !a.is_empty() {
            let file = *is_file.entry(a).or_insert_with(|| {
                !disk.listed.contains(a) && !disk.known_absent(a) && workdir.join(a).is_file()
            });
            if file {
                blocked = Some(a);
                break;
            }
            a = parent_rel(a);
        }
        if let Some(a) = blocked {
            sync.conflicts.push(Conflict {
                rel: f.rel.clone(),
                path: path.clone(),
                message: format!(
                    "{a} is a file, so {} cannot be written below it; move its rules into .wave/rules (wave-rules import --from {}) and remove it",
                    f.rel,
                    f.target.format().as_str()
                ),
            });
            continue;
        }
        let now = match disk.texts.get(&f.rel) {
            Some(Some(text)) => Ok(Some(text.clone())),
            // Listed but unreadable: read again for the error.
            Some(None) => read_text(&path),
            None => looked_up.get(f.rel.as_str()).cloned().unwrap_or(Ok(None)),
        };
        match now {
            Ok(None) => sync.changes.push(Change {
                rel: f.rel.clone(),
                path,
                old: None,
                new: Some(f.text.clone()),
            }),
            Ok(Some(old)) if old == f.text => sync.unchanged += 1,
            Ok(Some(old)) if is_generated(&old) => sync.changes.push(Change {
                rel: f.rel.clone(),
                path,
                old: Some(old),
                new: Some(f.text.clone()),
            }),
            Ok(Some(_)) => sync.conflicts.push(Conflict {
                rel: f.rel.clone(),
                path,
                message: format!(
                    "{} exists and was not written by wave-rules export (no generated-file header), so it is not replaced; import it (wave-rules import --from {}) or move it away, then export again",
                    f.rel,
                    f.target.format().as_str()
                ),
            }),
            Err(e) => sync.conflicts.push(Conflict {
                rel: f.rel.clone(),
                path,
                message: format!("{}: {e}", f.rel),
            }),
        }
    }
    for (rel, text) in disk.texts {
        // A planned file left out as a copy is not planned any more.
        let copy = sync.copies.iter().any(|(p, _)| *p == rel);
        if planned.contains(rel.as_str()) && !copy {
            continue;
        }
        if let Some(old) = text.filter(|t| is_generated(t)) {
            sync.changes.push(Change {
                path: workdir.join(&rel),
                rel,
                old: Some(old),
                new: None,
            });
        }
    }
    sync.changes.sort_by(|a, b| a.rel.cmp(&b.rel));
    sync
}
