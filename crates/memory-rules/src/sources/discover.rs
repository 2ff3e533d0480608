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
//!
//! The link policy (no secrets through links): a rule file whose real target
//! does not have the format's extension (`notes.md -> ../../.env`) is never
//! loaded, and a project rule whose real path is outside the project root is
//! not loaded unless it is under one of the root's allowed directories; both
//! are warnings naming the link and its target. At most
//! [`MAX_RULE_FILES_PER_SOURCE`] files are taken from one root.

use crate::base::diagnostic::{Code, Diagnostic, Severity};
use crate::base::limits::MAX_RULE_FILES_PER_SOURCE;
use crate::formats;
use crate::rules::parser::ParsedRule;
pub use crate::rules::rule_file::{read, read_rule_file};
use crate::rules::rule_format::Format;
use crate::rules::scope::Scope;
use crate::sources::nested;
pub use crate::sources::nested::Walks;
use rustc_hash::FxHashMap;
use std::io;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// A rules root: a [`Source`](crate::sources::source::Source) as discovery walks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    pub dir: PathBuf,
    pub scope: Scope,
    pub format: Format,
    /// Directory levels read below `dir`; `None`: any.
    pub depth: Option<usize>,
    /// Index of the source in its [`Config`](crate::sources::source::Config) (later wins).
    pub source: usize,
    /// Rule files whose real path is outside this directory are not loaded
    /// (a warning), unless under one of `allow`: the project workdir for
    /// project rules.
    pub boundary: Option<PathBuf>,
    /// Directories outside the boundary whose rules may be loaded anyway
    /// (a team folder linked into the project).
    pub allow: Vec<PathBuf>,
    /// A Cursor source on a project directory reads its nested
    /// `.cursor/rules` folders; a pack's Cursor folder is read as it is.
    pub nested: bool,
}

/// A rule file found under a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleFile {
    pub scope: Scope,
    pub format: Format,
    /// Index of the source in its [`Config`](crate::sources::source::Config).
    pub source: usize,
    /// Path relative to the root with `/` separators.
    pub id: String,
    /// The path as found under the root (not resolved through links).
    pub path: PathBuf,
    /// The project subdirectory its rules are scoped to (a nested
    /// `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` or `.cursor/rules`).
    pub directory: Option<String>,
    /// Where its `@path` imports may resolve: the root's boundary and
    /// allowed directories (see [`Root`]).
    pub boundary: Option<PathBuf>,
    pub allow: Vec<PathBuf>,
}

impl RuleFile {
    /// One file given by path (`validate FILE`), read as `format` for the
    /// project at `workdir`: its id and scoped directory as a discovery of
    /// the project would give them.
    pub fn file(path: &Path, format: Format, workdir: &Path, allow: &[PathBuf]) -> RuleFile {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let rel = abs.strip_prefix(workdir).ok().map(|r| {
            r.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        });
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let nested = matches!(format, Format::AgentsMd | Format::Gemini)
            || format == Format::Claude && formats::is_claude_memory(path);
        let directory = match (&rel, format) {
            (Some(rel), Format::Cursor) => nested::cursor_directory_of(rel).map(str::to_string),
            (Some(rel), _) if nested => nested::directory_of(rel).map(str::to_string),
            _ => None,
        };
        let id = match (&rel, format) {
            (Some(rel), Format::Claude) if nested => format!("claude:{rel}"),
            (Some(rel), _) if nested => format.id(rel),
            _ => format.id(&name),
        };
        RuleFile {
            scope: Scope::Project,
            format,
            source: 0,
            id,
            path: path.to_path_buf(),
            directory,
            boundary: Some(workdir.to_path_buf()),
            allow: allow.to_vec(),
        }
    }

    fn at(root: &Root, id: String, path: PathBuf, directory: Option<String>) -> RuleFile {
        RuleFile {
            scope: root.scope,
            format: root.format,
            source: root.source,
            id,
            path,
            directory,
            boundary: root.boundary.clone(),
            allow: root.allow.clone(),
        }
    }
}

/// The realpath of a root, if it exists.
pub fn real_root(dir: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(dir).ok()
}

impl Root {
    /// The boundary and the allowed directories, resolved (those that do
    /// not exist are left out).
    fn real_bounds(&self) -> (Option<PathBuf>, Vec<PathBuf>) {
        let boundary = self
            .boundary
            .as_deref()
            .and_then(|b| std::fs::canonicalize(b).ok());
        let allow = self
            .allow
            .iter()
            .filter_map(|d| std::fs::canonicalize(d).ok())
            .collect();
        (boundary, allow)
    }

    /// Whether this root is a project searched by the nested walk rather
    /// than a rules folder: an `agents-md` or `gemini` directory, a `claude`
    /// source on the project itself, a `cursor` source on a directory that
    /// is no `.cursor/rules` (its nested `.cursor/rules` directories); a
    /// pack's folders are read as they are.
    fn is_walk(&self) -> bool {
        match self.format {
            Format::AgentsMd | Format::Gemini => true,
            Format::Claude => self.nested && self.boundary.as_deref() == Some(self.dir.as_path()),
            Format::Cursor => self.nested && !self.dir.ends_with(".cursor/rules"),
            _ => false,
        }
    }
}

/// Lists the rule files of one root. A missing root yields nothing.
pub fn find(root: &Root, diagnostics: &mut Vec<Diagnostic>) -> Vec<RuleFile> {
    find_with(root, &mut Walks::default(), diagnostics)
}

/// [`find`] with the walks of the discovery it is part of: a project
/// searched by several nested sources is walked once.
pub fn find_with(
    root: &Root,
    walks: &mut Walks,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<RuleFile> {
    walks.listed.push(root.dir.clone()); // its stamp: there, gone or replaced
    let real = match std::fs::canonicalize(&root.dir) {
        Ok(real) => real,
        Err(e) => {
            if root.dir.symlink_metadata().is_ok() {
                diagnostics.push(Diagnostic::new(
                    Severity::Warning,
                    Code::DanglingSymlink,
                    &root.dir,
                    "the rules root is a symlink to nothing; no rules loaded from it",
                ));
            } else if e.kind() != io::ErrorKind::NotFound {
                // e.g. `.wave` without search permission: say so, rather than
                // every rule silently vanishing.
                diagnostics.push(Diagnostic::new(
                    Severity::Error,
                    Code::Unreadable,
                    &root.dir,
                    format!("cannot reach the rules directory: {e}; no rules loaded from it"),
                ));
            }
            return Vec::new();
        }
    };
    if !real.is_dir() {
        return one_file(root, &real, diagnostics);
    }
    if root.is_walk() {
        return walked(root, walks, diagnostics);
    }
    walk_dir(root, real, &mut walks.listed, diagnostics)
}

/// A root that is not a directory: one file of a format a source may be
/// (Copilot's repository file, `.clinerules`, `rules.yaml`, ...), else an
/// error.
fn one_file(root: &Root, real: &Path, diagnostics: &mut Vec<Diagnostic>) -> Vec<RuleFile> {
    // Copilot's repository file, a `.clinerules` file, `rules.yaml`, the
    // legacy `.cursorrules` / `.windsurfrules`: a source may be one file.
    let single = matches!(
        root.format,
        Format::Copilot
            | Format::Cline
            | Format::RulesYaml
            | Format::Cursor
            | Format::Windsurf
            | Format::AgentsMd
            | Format::Gemini
    ) || (root.format == Format::Claude
        && root.dir.file_name().is_some_and(|n| n == "CLAUDE.md"));
    if single && real.is_file() && root.format.is_rule_file(&root.dir) {
        let name = root
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A file of several rules is no rule itself: its rules' ids are
        // its own, so the user's and the project's file both load.
        // A user's single file (`~/.claude/CLAUDE.md`, Copilot CLI's
        // `~/.copilot/copilot-instructions.md`) must not collide with the
        // project's file of the same name either.
        let name = if root.format == Format::RulesYaml || root.scope == Scope::User {
            // Two user `AGENTS.md` (Codex's and opencode's): by folder.
            match (root.format, root.dir.parent().and_then(|p| p.file_name())) {
                (Format::AgentsMd, Some(dir)) => format!(
                    "{}/{}/{name}",
                    root.scope,
                    dir.to_string_lossy().trim_start_matches('.')
                ),
                _ => format!("{}/{name}", root.scope),
            }
        } else if root.format == Format::Claude {
            // `.claude/CLAUDE.md`: a memory file, not a `.claude/rules` id.
            ".claude/CLAUDE.md".to_string()
        } else {
            name
        };
        let id = match root.format {
            Format::Claude => format!("claude:{name}"),
            f => f.id(&name),
        };
        return vec![RuleFile::at(root, id, root.dir.clone(), None)];
    }
    diagnostics.push(Diagnostic::new(
        Severity::Error,
        Code::Unreadable,
        &root.dir,
        "the rules root is not a directory",
    ));
    Vec::new()
}

/// The files of a rules directory: walked to the source's depth, links followed,
/// each directory owned once by realpath (and pushed on `listed`), every file
/// checked against the format, the boundary and the limit.
fn walk_dir(
    root: &Root,
    real: PathBuf,
    listed: &mut Vec<PathBuf>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<RuleFile> {
    let mut dirs = RulesDirWalk::new(root, real);
    let mut found = Vec::new();
    // In name order. The entries sorted together are one directory's, so
    // their paths differ only after the same `dir/`: comparing the paths'
    // bytes is comparing the names' (`sort_by_file_name`'s order), without
    // parsing each path for its file name at every comparison (a third of
    // the walk at 1,000 rules).
    let mut walk = WalkDir::new(&root.dir)
        .follow_links(true)
        .max_depth(dirs.max_depth)
        .sort_by(|a, b| a.path().as_os_str().cmp(b.path().as_os_str()))
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                diagnostics.push(walk_error(&e));
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let path = entry.path();
        if root.format.skips_links() && entry.path_is_symlink() {
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::NotARule,
                path,
                format!(
                    "{} does not read a symlink in its rules folder (its listing keeps only plain files), so this is not read; put the file itself here",
                    root.format.tool()
                ),
            ));
            if entry.file_type().is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        if entry.file_type().is_dir() {
            listed.push(path.to_path_buf());
            if dirs.skips_dir(&entry, diagnostics) {
                walk.skip_current_dir();
            }
            continue;
        }
        if !entry.file_type().is_file() || !root.format.is_rule_file(path) {
            continue;
        }
        let Some(rel) = dirs.loadable_rel(&entry, diagnostics) else {
            continue;
        };
        if found.len() == MAX_RULE_FILES_PER_SOURCE {
            diagnostics.push(Diagnostic::new(
                Severity::Error,
                Code::Limit,
                &root.dir,
                format!("more than {MAX_RULE_FILES_PER_SOURCE} rule files in this directory (limit); the files after {} are not loaded", found.last().map_or(String::new(), |f: &RuleFile| f.id.clone())),
            ));
            break;
        }
        let Some(id) = utf8_id(rel, path, diagnostics) else {
            continue;
        };
        found.push(RuleFile::at(
            root,
            root.format.id(&id),
            path.to_path_buf(),
            None,
        ));
    }
    found
}

/// What one walk of a rules directory knows: the realpath of each
/// directory walked into and which path owns it, and the boundary.
struct RulesDirWalk<'r> {
    root: &'r Root,
    /// The realpath of each directory walked into: a file that is no link
    /// is its directory's realpath and its name, with no lookup per file.
    reals: FxHashMap<PathBuf, PathBuf>,
    /// Each directory realpath is owned by the path that may load it: the
    /// root, a real subdirectory, or else the first link (in name order) to
    /// it. So a link to a sibling is the one reported, whatever the names'
    /// order.
    owners: FxHashMap<PathBuf, PathBuf>,
    boundary: Option<PathBuf>,
    allow: Vec<PathBuf>,
    /// Files may sit one level below the deepest directory read.
    max_depth: usize,
}

impl<'r> RulesDirWalk<'r> {
    fn new(root: &'r Root, real: PathBuf) -> Self {
        let reals: FxHashMap<PathBuf, PathBuf> =
            FxHashMap::from_iter([(root.dir.clone(), real.clone())]);
        let mut owners: FxHashMap<PathBuf, PathBuf> =
            FxHashMap::from_iter([(real, root.dir.clone())]);
        for entry in std::fs::read_dir(&root.dir).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if let Ok(real) = std::fs::canonicalize(entry.path()) {
                    owners.entry(real).or_insert(entry.path());
                }
            }
        }
        let (boundary, allow) = root.real_bounds();
        RulesDirWalk {
            root,
            reals,
            owners,
            boundary,
            allow,
            max_depth: root.depth.map_or(usize::MAX, |d| d.saturating_add(1)),
        }
    }

    /// Whether a real path is outside the boundary and every allowed
    /// directory.
    fn outside(&self, real: &Path) -> bool {
        self.boundary.as_ref().is_some_and(|b| {
            !real.starts_with(b) && !self.allow.iter().any(|a| real.starts_with(a))
        })
    }

    /// Whether the walk skips the entries of this directory: not rules, out
    /// of the boundary, or a second way into a directory already visited
    /// (one too deep is reported, and not descended anyway).
    fn skips_dir(&mut self, entry: &walkdir::DirEntry, diagnostics: &mut Vec<Diagnostic>) -> bool {
        let (path, depth) = (entry.path(), entry.depth());
        let not_rules = (depth == 1)
            .then(|| {
                self.root
                    .format
                    .not_rules(&entry.file_name().to_string_lossy())
            })
            .flatten();
        if let Some(why) = not_rules {
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::NotARule,
                path,
                format!("{why}; its files are not read as rules"),
            ));
            return true;
        }
        if depth == self.max_depth {
            let message = match depth - 1 {
                0 => "directory is below a rules root read without subdirectories; its files are ignored".to_string(),
                1 => "directory is more than one level below the rules root; its files are ignored".to_string(),
                n => format!("directory is more than {n} levels below the rules root; its files are ignored"),
            };
            diagnostics.push(Diagnostic::new(
                Severity::Info,
                Code::TooDeep,
                path,
                message,
            ));
            return false;
        }
        let Ok(real) = std::fs::canonicalize(path) else {
            return false;
        };
        if self.outside(&real) {
            diagnostics.push(outside_diagnostic(path, &real, "directory"));
            return true;
        }
        let owner = self
            .owners
            .entry(real.clone())
            .or_insert_with(|| path.to_path_buf());
        if owner == path {
            self.reals.insert(path.to_path_buf(), real);
            return false;
        }
        diagnostics.push(Diagnostic::new(
            Severity::Warning,
            Code::SymlinkCycle,
            path,
            format!(
                "symlink leads to {}, a directory already visited; skipped",
                real.display()
            ),
        ));
        true
    }

    /// The path relative to the root of a rule file that the link policy
    /// lets load: its real file a rule file too, inside the boundary.
    fn loadable_rel<'e>(
        &self,
        entry: &'e walkdir::DirEntry,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<&'e Path> {
        let path = entry.path();
        let known = (!entry.path_is_symlink())
            .then(|| path.parent().and_then(|p| self.reals.get(p)))
            .flatten()
            .map(|dir| dir.join(entry.file_name()));
        let real = known.or_else(|| std::fs::canonicalize(path).ok())?;
        // The real file must be a rule file too (by the format's own test,
        // or by having the same extension as the link, for formats that name
        // a file, like AGENTS.md): `notes.md -> ../../.env` never loads.
        let same_ext = path.extension().is_some() && real.extension() == path.extension();
        if !self.root.format.is_rule_file(&real) && !same_ext {
            diagnostics.push(Diagnostic::new(
                Severity::Warning,
                Code::SymlinkTarget,
                path,
                format!("symlink leads to {}, which is not a rule file of this format; not loaded (a link must not put another file into the prompt)", real.display()),
            ));
            return None;
        }
        if self.outside(&real) {
            diagnostics.push(outside_diagnostic(path, &real, "file"));
            return None;
        }
        path.strip_prefix(&self.root.dir).ok()
    }
}

/// The id of a rule file from its path relative to the root, `/`-joined.
/// Ids must be unique: two names that differ only in invalid UTF-8 would
/// collapse into one lossy id, so such a name is not loaded.
fn utf8_id(rel: &Path, path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<String> {
    let Some(parts) = rel
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect::<Option<Vec<_>>>()
    else {
        diagnostics.push(Diagnostic::new(
            Severity::Error,
            Code::NotUtf8,
            path,
            "file name is not valid UTF-8, so it has no rule id; not loaded",
        ));
        return None;
    };
    Some(parts.join("/"))
}

/// The files of a project root that the nested walk found for this root's
/// format ([`Root::is_walk`]): one walk per project per discovery, whatever
/// sources share it. The link policy applies to each file as in a rules
/// folder; a file whose name is one slip from the format's names is
/// reported with the name to give it.
fn walked(root: &Root, walks: &mut Walks, diagnostics: &mut Vec<Diagnostic>) -> Vec<RuleFile> {
    use crate::rules::rule_format::{AGENTS_MD_FILE_NAMES, CLAUDE_MEMORY_NAMES};
    let (gemini_names, settings_problem) = if root.format == Format::Gemini {
        formats::gemini::context_file_names(&root.dir)
    } else {
        (Vec::new(), None)
    };
    diagnostics.extend(settings_problem);
    let tree = walks.tree(&root.dir, diagnostics).clone();
    if root.format == Format::Cursor {
        // A Cursor source on a project directory: its nested `.cursor/rules`.
        let mut found = Vec::new();
        for (sub, dir) in &tree.cursor_dirs {
            let inner = Root {
                dir: dir.clone(),
                ..root.clone()
            };
            for mut f in find_with(&inner, walks, diagnostics) {
                let rel = f.id.strip_prefix("cursor:").unwrap_or(&f.id).to_string();
                let rel = format!("{sub}/.cursor/rules/{rel}");
                f.directory = nested::cursor_directory_of(&rel).map(str::to_string);
                f.id = root.format.id(&rel);
                found.push(f);
            }
        }
        return found;
    }
    let names: Vec<&str> = match root.format {
        Format::AgentsMd => AGENTS_MD_FILE_NAMES.to_vec(),
        Format::Claude => CLAUDE_MEMORY_NAMES.to_vec(),
        _ => gemini_names.iter().map(String::as_str).collect(),
    };
    for (file, right) in &tree.near {
        if names.contains(right) {
            let dir = nested::directory_of(&file.rel).map_or(String::new(), |d| format!("{d}/"));
            diagnostics.push(misnamed(&file.path, root.format, &file.rel, &dir, right));
        }
    }
    let (boundary, allow) = root.real_bounds();
    let mut found: Vec<RuleFile> = Vec::new();
    for f in tree.named(&names) {
        let dir = nested::directory_of(&f.rel).map(str::to_string);
        if root.format == Format::AgentsMd {
            // Codex reads one file per directory: the override if present.
            if let Some(prev) = found.iter().rev().find(|p| p.directory == dir) {
                diagnostics.push(Diagnostic::new(
                    Severity::Info,
                    Code::Overridden,
                    &f.path,
                    format!(
                        "Codex reads {} instead of this file in the same directory; not read",
                        prev.path.display()
                    ),
                ));
                continue;
            }
        }
        if std::fs::symlink_metadata(&f.path).is_ok_and(|m| m.file_type().is_symlink()) {
            let Ok(real) = std::fs::canonicalize(&f.path) else {
                continue;
            };
            if real.extension().is_none_or(|e| e != "md") {
                diagnostics.push(Diagnostic::new(
                    Severity::Warning,
                    Code::SymlinkTarget,
                    &f.path,
                    format!("symlink leads to {}, which is not a Markdown file; not loaded (a link must not put another file into the prompt)", real.display()),
                ));
                continue;
            }
            let outside = boundary.as_ref().is_some_and(|b| {
                !real.starts_with(b) && !allow.iter().any(|a| real.starts_with(a))
            });
            if outside {
                diagnostics.push(outside_diagnostic(&f.path, &real, "file"));
                continue;
            }
        }
        let id = match root.format {
            Format::Claude => format!("claude:{}", f.rel),
            format => format.id(&f.rel),
        };
        found.push(RuleFile::at(root, id, f.path, dir));
    }
    found
}

/// A memory file named slightly otherwise than its tool reads (`Agents.md`),
/// with the rename as its fix.
fn misnamed(path: &Path, format: Format, rel: &str, dir: &str, right: &str) -> Diagnostic {
    let message = format!(
        "{} reads '{right}' by that exact name, so '{rel}' is not read; rename it to {dir}{right}",
        format.tool()
    );
    Diagnostic::new(Severity::Warning, Code::Misplaced, path, message).with_fix(
        crate::base::diagnostic::Fix::Move {
            title: format!("rename to {dir}{right}"),
            to: path.with_file_name(right).to_string_lossy().into_owned(),
        },
    )
}

fn outside_diagnostic(path: &Path, real: &Path, what: &str) -> Diagnostic {
    Diagnostic::new(
        Severity::Warning,
        Code::SymlinkOutside,
        path,
        format!(
            "{what} leads outside the project, to {}; not loaded (allow its directory with the allowDirs option or --allow-dir)",
            real.display()
        ),
    )
}

fn walk_error(e: &walkdir::Error) -> Diagnostic {
    let path = e.path().unwrap_or(Path::new(""));
    if let Some(ancestor) = e.loop_ancestor() {
        return Diagnostic::new(
            Severity::Warning,
            Code::SymlinkCycle,
            path,
            format!(
                "symlink leads back to {}, a directory already visited; skipped",
                ancestor.display()
            ),
        );
    }
    let is_link = path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    match e.io_error().map(io::Error::kind) {
        Some(io::ErrorKind::NotFound) if is_link => {
            let target = std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            Diagnostic::new(
                Severity::Warning,
                Code::DanglingSymlink,
                path,
                format!("symlink points to '{target}', which does not exist; skipped"),
            )
        }
        _ => Diagnostic::new(
            Severity::Error,
            Code::Unreadable,
            path,
            format!(
                "cannot read: {}",
                e.io_error()
                    .map(|io| io.to_string())
                    .unwrap_or_else(|| e.to_string())
            ),
        ),
    }
}

/// Reads and parses one found file: its rules (several for `rules.yaml`,
/// none when unusable).
pub fn load_file(found: &RuleFile, diagnostics: &mut Vec<Diagnostic>) -> Vec<ParsedRule> {
    let (_, outcome) = read_and_parse(found);
    diagnostics.extend(outcome.diagnostics);
    outcome.rules
}

/// Reads one found file and parses it; the text is returned too (`None` when
/// it could not be read, which the outcome's diagnostics say).
///
/// A panic while parsing (a bug) is caught here, per file, and becomes an
/// `internal` diagnostic: the other files still load, and a later reload
/// reads the file again.
pub(crate) fn read_and_parse(found: &RuleFile) -> (Option<String>, formats::Parsed) {
    match read(&found.path) {
        Ok(text) => {
            let outcome = parse_text(found, &text);
            (Some(text), outcome)
        }
        Err(d) => (
            None,
            formats::Parsed {
                rules: Vec::new(),
                diagnostics: vec![d],
                deps: Vec::new(),
            },
        ),
    }
}

/// Parses one found file's `text` (as read, or an editor's unsaved copy);
/// a panic (a bug) becomes an `internal` diagnostic.
pub fn parse_text(found: &RuleFile, text: &str) -> formats::Parsed {
    let input = formats::Input {
        scope: found.scope,
        id: &found.id,
        path: &found.path,
        text,
        directory: found.directory.as_deref(),
    };
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut out = formats::parse(found.format, &input);
        with_imports(found, text, &mut out);
        out
    }));
    parsed.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let d = Diagnostic::new(
            Severity::Error,
            Code::Internal,
            &found.path,
            format!(
                "internal error while parsing ({why}); the rule is not loaded; please report it"
            ),
        );
        formats::Parsed {
            rules: Vec::new(),
            diagnostics: vec![d],
            deps: Vec::new(),
        }
    })
}

/// A memory file's `@path` imports (`CLAUDE.md`, `GEMINI.md`): each
/// imported file becomes a rule after the importer's, with its activation
/// (see [`formats::imports`]); an importer that is nothing but imports is no
/// rule itself.
fn with_imports(found: &RuleFile, text: &str, out: &mut formats::Parsed) {
    use formats::imports::{self, Dialect, Policy};
    let dialect = match found.format {
        Format::Claude if formats::is_claude_memory(&found.path) => Dialect::Claude,
        Format::Gemini => Dialect::Gemini,
        _ => return,
    };
    // Gemini CLI keeps a user file's imports inside its own folder.
    let own_dir = found.path.parent().map(Path::to_path_buf);
    let boundary = match (&found.boundary, dialect) {
        (Some(b), _) => Some(b.as_path()),
        (None, Dialect::Gemini) => own_dir.as_deref(),
        (None, Dialect::Claude) => None,
    };
    let x = imports::expand(
        text,
        &found.path,
        dialect,
        &Policy {
            boundary,
            allow: &found.allow,
        },
    );
    out.diagnostics.extend(x.diagnostics);
    out.deps = x.looked_at;
    let Some(parent) = out.rules.first().cloned() else {
        return;
    };
    for imp in x.imports {
        let content = imp.text.trim();
        if content.is_empty() {
            continue;
        }
        let mut r = parent.clone();
        r.rule.id = format!("{}@{}", parent.rule.id, imp.written);
        r.rule.file_path = imp.path;
        r.rule.content = content.into();
        out.rules.push(r);
    }
    if x.only_imports && out.rules.len() > 1 {
        out.rules.remove(0);
        out.diagnostics.push(Diagnostic::new(
            Severity::Info,
            Code::Import,
            &found.path,
            "this file is nothing but @imports: the files it imports are its rules, as the tool reads them",
        ));
    }
}
