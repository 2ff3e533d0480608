//! The keys a file in context looks up among the index's file keys
//! ([`FileKey`]): its modules (a dotted module or package written in a note,
//! read as a path of folders) and its folders named elsewhere, with the
//! affinity each gives ([`super::ranking`] adds its path, its name, the
//! globs above it and the folders near it).

use crate::base::limits::MAX_NAMED_FOLDERS;
use crate::memory::terms::{self, FileKey};

/// The affinity of a note naming a file of the same name elsewhere, and
/// of a note naming a folder of the same name (`tests/benchmark/`) that is
/// not at the top of the file's path, times the square of its nearness
/// (the file's own folder counts whole).
pub const SAME_NAME: f32 = 0.6;
/// The affinity of a note near the file's folder, times the square of the
/// share of the file's folders they have in common (under
/// [`super::ranking::BELOW`]: nearness alone ranks, it does not tie).
pub const NEAR: f32 = 0.45;

/// The affinity of a note naming a file's module (`Text.Pandoc.Writers.Docx`
/// for `src/Text/Pandoc/Writers/Docx.hs`, [`terms::dotted_module`]): as
/// [`NEAR`], under recall's tie (0.5): a module written in a sentence ranks
/// the note for the file, it does not tie it (a note naming the module of a
/// file in context need not be about the task).
pub const MODULE: f32 = NEAR;
/// The affinity of a note naming a module or package that is a run of a
/// file's folders (`io.netty.util` for `.../java/io/netty/util/X.java`,
/// `Tests.Readers.*` for `test/Tests/Readers/Markdown.hs`), times the
/// nearness of the run's last folder: a package holds many files, so it
/// only breaks ties among the notes the file's words find.
pub const MODULE_FOLDER: f32 = 0.1;

/// The file name patterns `file` matches ([`FileKey::Pattern`], as
/// [`terms::pattern_keys`] reads a note's): its name from each `.` on
/// (`csp.spec.js`: `*.spec.js`, `*.js`), each also after the name up to
/// its first `_` or `-` (`test_app.py`: `test_*.py`). A pattern with a
/// prefix or of two extensions or more names a kind of file, [`SAME_NAME`];
/// one extension alone (`*.py`) a language, which holds many files as a
/// package does, [`MODULE_FOLDER`] (it only breaks ties among the notes the
/// file's words find).
pub(super) fn pattern_keys(file: &str) -> Vec<(FileKey, f32)> {
    let name = terms::base(file);
    let folded = crate::matchers::topic_matcher::fold(name);
    let lead = folded.len() - folded.trim_start_matches('.').len();
    let body = &folded[lead..];
    let prefix = body
        .find(['_', '-'])
        .map(|j| &body[..=j])
        .filter(|p| p.len() > 1);
    let mut keys = Vec::new();
    for (i, _) in body.match_indices('.').filter(|(i, _)| *i > 0) {
        let suffix = &body[i..];
        let kind = suffix.matches('.').count() >= 2;
        keys.push((
            FileKey::Pattern(format!("*{suffix}")),
            if kind { SAME_NAME } else { MODULE_FOLDER },
        ));
        if let Some(p) = prefix.filter(|p| p.len() <= i) {
            keys.push((FileKey::Pattern(format!("{p}*{suffix}")), SAME_NAME));
        }
    }
    keys
}

/// The modules `file` (`k` folders deep) may be written as, as paths of
/// folders ([`FileKey::Module`], as a note's dotted module is read): each
/// run of two or more of its [`MAX_NAMED_FOLDERS`] nearest folders,
/// [`MODULE_FOLDER`] times the nearness of its last; each run of them that
/// ends at its own folder with its stem (the name before its first `.`)
/// after it, [`MODULE`].
pub(super) fn module_keys(file: &str, k: usize) -> Vec<(FileKey, f32)> {
    let names: Vec<&str> = file.split('/').collect();
    let stem = module_stem(file);
    if stem.is_empty() || k == 0 {
        return Vec::new();
    }
    let first = k.saturating_sub(MAX_NAMED_FOLDERS);
    let mut keys = Vec::new();
    for start in first..k {
        let run = format!("{}/{stem}", names[start..k].join("/"));
        keys.push((FileKey::Module(run), MODULE));
        for end in start + 2..=k {
            let near = end as f32 / k as f32;
            let run = names[start..end].join("/");
            keys.push((FileKey::Module(run), MODULE_FOLDER * near));
        }
    }
    keys
}

/// The folders of `file` (`k` deep) named elsewhere: each run of its
/// folders' names that does not start at the top (`a/tests/fixtures/x.py`:
/// `tests`, `tests/fixtures`, `fixtures`), among its
/// [`MAX_NAMED_FOLDERS`] nearest, with [`SAME_NAME`] times the square of the
/// nearness of the run's last folder.
pub(super) fn named_folder_keys(file: &str, k: usize) -> Vec<(FileKey, f32)> {
    let names: Vec<&str> = file.split('/').take(k).collect();
    let first = 1.max(k.saturating_sub(MAX_NAMED_FOLDERS));
    let mut keys = Vec::new();
    for end in first + 1..=k {
        let near = end as f32 / k as f32;
        let near = SAME_NAME * near * near;
        for start in first..end {
            keys.push((FileKey::Folder(names[start..end].join("/")), near));
        }
    }
    keys
}

/// Whether `run` (a path of folders) is `file`'s folders ending at its own
/// and its stem ([`module_keys`]).
pub(super) fn is_module_of(file: &str, run: &str) -> bool {
    let stem = module_stem(file);
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    run.strip_suffix(stem)
        .and_then(|r| r.strip_suffix('/'))
        .is_some_and(|r| dir == r || dir.ends_with(&format!("/{r}")))
}

/// The last part of `file`'s module: its name before the first `.`.
fn module_stem(file: &str) -> &str {
    terms::base(file).split('.').next().unwrap_or_default()
}

/// The folder of `file` whose name is `name` (`Emby.Naming/Video/x.cs`,
/// `Emby.Naming`: `Emby.Naming`), nearest the file.
pub(super) fn folder_named<'f>(file: &'f str, name: &str) -> Option<&'f str> {
    let (folders, _) = terms::folders_of(file);
    folders
        .into_iter()
        .map(|(dir, _)| dir)
        .find(|dir| terms::base(dir) == name)
}
