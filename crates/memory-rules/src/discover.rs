//! Finds rule files on disk.
//!
//! A rules root holds rule files (as its format says: `*.md` for
//! [`Format::Wave`]) in the root itself and in subdirectories down to the
//! root's depth (one level for `.wave/rules`, any for `.claude/rules`);
//! directories deeper than that are reported once each and skipped.
//! Symlinks to files and directories are followed. A directory reached twice
//! (same realpath, e.g. a link back to the root or to a sibling) is a cycle:
//! it is skipped with a warning naming the link. Dangling links and unreadable
//! entries are reported and skipped; everything else still loads. Entries are
//! visited in file-name order, so the result never depends on the file system.

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::rule::Scope;
use crate::formats::nested;
use crate::source::Format;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// A rule file larger than this is not loaded.
pub const MAX_RULE_BYTES: u64 = 256 * 1024;

/// A rules root: a [`Source`](crate::Source) as discovery walks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    pub dir: PathBuf,
    pub scope: Scope,
    pub format: Format,
    /// Directory levels read below `dir`; `None`: any.
    pub depth: Option<usize>,
    /// Index of the source in its [`Config`](crate::Config) (later wins).
    pub source: usize,
    /// Symlinks that lead outside this directory are reported (`info`): the
    /// project workdir for project rules.
    pub boundary: Option<PathBuf>,
}

/// A rule file found under a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub scope: Scope,
    pub format: Format,
    /// Index of the source in its [`Config`](crate::Config).
    pub source: usize,
    /// Path relative to the root with `/` separators.
    pub id: String,
    /// The path as found under the root (not resolved through links).
    pub path: PathBuf,
}

/// The realpath of a root, if it exists.
pub fn real_root(dir: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(dir).ok()
}

/// Lists the rule files of one root. A missing root yields nothing.
pub fn find(root: &Root, diagnostics: &mut Vec<Diagnostic>) -> Vec<Found> {
    let Some(real) = real_root(&root.dir) else {
        if root.dir.symlink_metadata().is_ok() {
            diagnostics.push(Diagnostic::new(Severity::Warning, Code::DanglingSymlink, &root.dir, "the rules root is a symlink to nothing; no rules loaded from it"));
        }
        return Vec::new();
    };
    if !real.is_dir() {
        // Copilot's repository file, a `.clinerules` file, `rules.yaml`, the
        // legacy `.cursorrules` / `.windsurfrules`: a source may be one file.
        let single = matches!(root.format, Format::Copilot | Format::Cline | Format::RulesYaml | Format::Cursor | Format::Windsurf);
        if single && real.is_file() && root.format.is_rule_file(&root.dir) {
            let name = root.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            // A file of several rules is no rule itself: its rules' ids are
            // its own, so the user's and the project's file both load.
            let name = if root.format == Format::RulesYaml { format!("{}/{name}", root.scope) } else { name };
            return vec![Found { scope: root.scope, format: root.format, source: root.source, id: root.format.id(&name), path: root.dir.clone() }];
        }
        diagnostics.push(Diagnostic::new(Severity::Error, Code::Unreadable, &root.dir, "the rules root is not a directory"));
        return Vec::new();
    }
    if root.format == Format::AgentsMd {
        return nested::agents_files(&root.dir, &crate::formats::agents_md::FILE_NAMES, diagnostics)
            .into_iter()
            .map(|f| Found { scope: root.scope, format: root.format, source: root.source, id: root.format.id(&f.rel), path: f.path })
            .collect();
    }
    if root.format == Format::Cursor && !root.dir.ends_with(".cursor/rules") {
        // A Cursor source on a project directory: its nested `.cursor/rules`.
        let mut found = Vec::new();
        for (sub, dir) in nested::cursor_dirs(&root.dir, diagnostics) {
            let inner = Root { dir, ..root.clone() };
            for mut f in find(&inner, diagnostics) {
                let rel = f.id.strip_prefix("cursor:").unwrap_or(&f.id).to_string();
                f.id = root.format.id(&format!("{sub}/.cursor/rules/{rel}"));
                found.push(f);
            }
        }
        return found;
    }
    // Each directory realpath is owned by the path that may load it: the root,
    // a real subdirectory, or else the first link (in name order) to it. So a
    // link to a sibling is the one reported, whatever the names' order.
    let mut owners: HashMap<PathBuf, PathBuf> = HashMap::from([(real, root.dir.clone())]);
    for entry in std::fs::read_dir(&root.dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            if let Ok(real) = std::fs::canonicalize(entry.path()) {
                owners.entry(real).or_insert(entry.path());
            }
        }
    }
    let mut found = Vec::new();
    let boundary = root.boundary.as_deref().and_then(|b| std::fs::canonicalize(b).ok());
    // Files may sit one level below the deepest directory read.
    let max_depth = root.depth.map_or(usize::MAX, |d| d.saturating_add(1));
    let mut walk = WalkDir::new(&root.dir).follow_links(true).max_depth(max_depth).sort_by_file_name().into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                diagnostics.push(walk_error(&e));
                continue;
            }
        };
        let depth = entry.depth();
        if depth == 0 {
            continue;
        }
        let path = entry.path();
        if entry.path_is_symlink() {
            if let Some(outside) = outside_boundary(path, &boundary) {
                diagnostics.push(Diagnostic::new(
                    Severity::Info,
                    Code::SymlinkOutside,
                    path,
                    format!("symlink leads outside the project, to {}", outside.display()),
                ));
            }
        }
        if entry.file_type().is_dir() {
            if depth == max_depth {
                let message = match depth - 1 {
                    0 => "directory is below a rules root read without subdirectories; its files are ignored".to_string(),
                    1 => "directory is more than one level below the rules root; its files are ignored".to_string(),
                    n => format!("directory is more than {n} levels below the rules root; its files are ignored"),
                };
                diagnostics.push(Diagnostic::new(Severity::Info, Code::TooDeep, path, message));
                continue;
            }
            let Ok(real) = std::fs::canonicalize(path) else { continue };
            let owner = owners.entry(real.clone()).or_insert_with(|| path.to_path_buf());
            if owner != path {
                diagnostics.push(Diagnostic::new(
                    Severity::Warning,
                    Code::SymlinkCycle,
                    path,
                    format!("symlink leads to {}, a directory already visited; skipped", real.display()),
                ));
                walk.skip_current_dir();
            }
            continue;
        }
        if !entry.file_type().is_file() || !root.format.is_rule_file(path) {
            continue;
        }
        let Ok(rel) = path.strip_prefix(&root.dir) else { continue };
        let id = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        found.push(Found { scope: root.scope, format: root.format, source: root.source, id: root.format.id(&id), path: path.to_path_buf() });
    }
    found
}

/// The realpath of `link` when it is outside `boundary`.
fn outside_boundary(link: &Path, boundary: &Option<PathBuf>) -> Option<PathBuf> {
    let boundary = boundary.as_ref()?;
    let real = std::fs::canonicalize(link).ok()?;
    (!real.starts_with(boundary)).then_some(real)
}

fn walk_error(e: &walkdir::Error) -> Diagnostic {
    let path = e.path().unwrap_or(Path::new(""));
    if let Some(ancestor) = e.loop_ancestor() {
        return Diagnostic::new(
            Severity::Warning,
            Code::SymlinkCycle,
            path,
            format!("symlink leads back to {}, a directory already visited; skipped", ancestor.display()),
        );
    }
    let is_link = path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
    match e.io_error().map(io::Error::kind) {
        Some(io::ErrorKind::NotFound) if is_link => {
            let target = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
            Diagnostic::new(Severity::Warning, Code::DanglingSymlink, path, format!("symlink points to '{target}', which does not exist; skipped"))
        }
        _ => Diagnostic::new(Severity::Error, Code::Unreadable, path, format!("cannot read: {}", e.io_error().map(|io| io.to_string()).unwrap_or_else(|| e.to_string()))),
    }
}

/// Reads a rule file's text, or reports why it cannot be used.
pub fn read(path: &Path) -> Result<String, Diagnostic> {
    let unreadable = |e: io::Error| Diagnostic::new(Severity::Error, Code::Unreadable, path, format!("cannot read: {e}"));
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if meta.len() > MAX_RULE_BYTES {
        return Err(Diagnostic::new(
            Severity::Error,
            Code::TooLarge,
            path,
            format!("file is {} bytes, over the {MAX_RULE_BYTES}-byte limit for a rule; not loaded", meta.len()),
        ));
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let column = (before.len() - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1)) as u32 + 1;
        Diagnostic::new(Severity::Error, Code::NotUtf8, path, "file is not valid UTF-8; not loaded").at(line, column)
    })
}
