//! The plan compared with the disk: the [`Sync`] of changes to write,
//! conflicts with hand-written files and copies left out.

use super::on_disk::{on_disk, parent_rel, read_text, OnDisk};
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
pub struct ExportConflict {
    pub rel: String,
    pub path: PathBuf,
    pub message: String,
}

/// What an export would do to the disk: the [`diff`] of a plan.
#[derive(Clone, Debug, Default)]
pub struct Sync {
    pub changes: Vec<Change>,
    pub conflicts: Vec<ExportConflict>,
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
    let disk = on_disk(plan, workdir, walked);
    let mut comparison = Comparison::new(plan, workdir, &disk);
    for f in &plan.files {
        comparison.compare(f, &mut sync);
    }
    sync.remove_stale(plan, disk, workdir);
    sync.changes.sort_by(|a, b| a.rel.cmp(&b.rel));
    sync
}

impl Sync {
    /// The planned file `f` against its text now on disk (`None`: absent).
    fn add_planned(&mut self, f: &PlannedFile, path: PathBuf, now: Result<Option<String>, String>) {
        match now {
            Ok(None) => self.changes.push(Change {
                rel: f.rel.clone(),
                path,
                old: None,
                new: Some(f.text.clone()),
            }),
            Ok(Some(old)) if old == f.text => self.unchanged += 1,
            Ok(Some(old)) if is_generated(&old) => self.changes.push(Change {
                rel: f.rel.clone(),
                path,
                old: Some(old),
                new: Some(f.text.clone()),
            }),
            Ok(Some(_)) => self.conflicts.push(ExportConflict {
                rel: f.rel.clone(),
                path,
                message: format!(
                    "{} exists and was not written by wave-rules export (no generated-file header), so it is not replaced; import it (wave-rules import --from {}) or move it away, then export again",
                    f.rel,
                    f.target.format().as_str()
                ),
            }),
            Err(e) => self.conflicts.push(ExportConflict {
                rel: f.rel.clone(),
                path,
                message: format!("{}: {e}", f.rel),
            }),
        }
    }

    /// The generated files on disk that the plan no longer holds (or holds
    /// only as a copy left out): removed.
    fn remove_stale(&mut self, plan: &Plan, disk: OnDisk, workdir: &Path) {
        let planned: BTreeSet<&str> = plan.files.iter().map(|f| f.rel.as_str()).collect();
        for (rel, text) in disk.texts {
            // A planned file left out as a copy is not planned any more.
            let copy = self.copies.iter().any(|(p, _)| *p == rel);
            if planned.contains(rel.as_str()) && !copy {
                continue;
            }
            if let Some(old) = text.filter(|t| is_generated(t)) {
                self.changes.push(Change {
                    path: workdir.join(&rel),
                    rel,
                    old: Some(old),
                    new: None,
                });
            }
        }
    }
}

/// What a planned file is compared with: the disk as listed and read, the
/// planned files looked up on their own, the hand-written files by body.
struct Comparison<'a> {
    workdir: &'a Path,
    disk: &'a OnDisk,
    /// Planned files neither listed nor read: looked up (in parallel).
    looked_up: HashMap<&'a str, Result<Option<String>, String>>,
    /// The hand-written files of each target's places, by text: a planned
    /// file with the same text under another name would be a second copy.
    hand_written: HashMap<(Target, String), &'a str>,
    /// Whether a parent directory of a planned file is a file (asked once).
    is_file: HashMap<&'a str, bool>,
}

impl<'a> Comparison<'a> {
    fn new(plan: &'a Plan, workdir: &'a Path, disk: &'a OnDisk) -> Self {
        let unknown: Vec<&PlannedFile> = plan
            .files
            .iter()
            .filter(|f| !disk.texts.contains_key(&f.rel) && !disk.known_absent(&f.rel))
            .collect();
        let looked_up = unknown
            .iter()
            .map(|f| f.rel.as_str())
            .zip(par_map(&unknown, |f| read_text(&workdir.join(&f.rel))))
            .collect();
        let mut hand_written = HashMap::new();
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
                    hand_written
                        .entry((*t, body_of(text)))
                        .or_insert(rel.as_str());
                }
            }
        }
        Comparison {
            workdir,
            disk,
            looked_up,
            hand_written,
            is_file: HashMap::new(),
        }
    }

    /// One planned file: a copy left out, a conflict, or a change.
    fn compare(&mut self, f: &'a PlannedFile, sync: &mut Sync) {
        let path = self.workdir.join(&f.rel);
        if let Some(existing) = self.copy_of(f) {
            sync.copies.push((f.rel.clone(), existing.to_string()));
            return;
        }
        if let Some(a) = self.file_above(&f.rel) {
            sync.conflicts.push(ExportConflict {
                rel: f.rel.clone(),
                path: path.clone(),
                message: format!(
                    "{a} is a file, so {} cannot be written below it; move its rules into .wave/rules (wave-rules import --from {}) and remove it",
                    f.rel,
                    f.target.format().as_str()
                ),
            });
            return;
        }
        let now = self.text_now(f, &path);
        sync.add_planned(f, path, now);
    }

    /// The hand-written file under another name holding the same text as
    /// the single-rule file `f`.
    fn copy_of(&self, f: &PlannedFile) -> Option<&'a str> {
        if f.rules.len() != 1 {
            return None;
        }
        let &existing = self.hand_written.get(&(f.target, body_of(&f.text)))?;
        (existing != f.rel).then_some(existing)
    }

    /// A parent of `rel` that is a file (`.clinerules` as one file), in
    /// the way.
    fn file_above(&mut self, rel: &'a str) -> Option<&'a str> {
        let disk = self.disk;
        let workdir = self.workdir;
        let mut a = parent_rel(rel);
        while !a.is_empty() {
            let file = *self.is_file.entry(a).or_insert_with(|| {
                !disk.listed.contains(a) && !disk.known_absent(a) && workdir.join(a).is_file()
            });
            if file {
                return Some(a);
            }
            a = parent_rel(a);
        }
        None
    }

    /// The text at `f`'s path now (`None`: absent).
    fn text_now(&self, f: &PlannedFile, path: &Path) -> Result<Option<String>, String> {
        match self.disk.texts.get(&f.rel) {
            Some(Some(text)) => Ok(Some(text.clone())),
            // Listed but unreadable: read again for the error.
            Some(None) => read_text(path),
            None => self
                .looked_up
                .get(f.rel.as_str())
                .cloned()
                .unwrap_or(Ok(None)),
        }
    }
}
