//! `validate --fix`: the diagnostics' own fixes (the core's, the same the
//! editor offers as quick fixes) written to the files: each file's
//! replacements applied in order and the file replaced atomically, a move
//! made by rename and never over an existing file. `--dry-run` shows the
//! diff and writes nothing.

use crate::base::display;
use memory_rules::delivery::export::unified;
use memory_rules::{Diagnostic, Fix};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `--fix` did (or, dry, would do).
#[derive(Default)]
pub(crate) struct Fixed {
    /// Fixes applied (or to apply).
    pub count: usize,
    /// Files changed or moved.
    pub files: usize,
    /// The diffs and renames (dry run), or one line per file written.
    pub text: String,
    /// A fix that could not be made, and why (one line each).
    pub trouble: Vec<String>,
}

pub(crate) fn apply(diagnostics: &[Diagnostic], workdir: &Path, dry: bool) -> Fixed {
    let mut by_file: BTreeMap<PathBuf, Vec<&Fix>> = BTreeMap::new();
    for d in diagnostics {
        if let Some(fix) = d.fix.as_deref() {
            by_file
                .entry(PathBuf::from(&d.file_path))
                .or_default()
                .push(fix);
        }
    }
    let mut fixed = Fixed::default();
    for (path, fixes) in by_file {
        let shown = display::show(&path, workdir);
        let target = Target {
            path: &path,
            shown: &shown,
            workdir,
        };
        match fix_file(&target, &fixes, dry, &mut fixed) {
            Ok(0) => {}
            Ok(n) => {
                fixed.count += n;
                fixed.files += 1;
            }
            Err(why) => fixed.trouble.push(format!("{shown}: not fixed: {why}")),
        }
    }
    fixed
}

/// The file fixed, as found and as shown.
struct Target<'a> {
    path: &'a Path,
    shown: &'a str,
    workdir: &'a Path,
}

/// One file's fixes: the replacements, then a move. The number made.
fn fix_file(target: &Target, fixes: &[&Fix], dry: bool, out: &mut Fixed) -> Result<usize, String> {
    let (path, shown) = (target.path, target.shown);
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err("a symbolic link (fix the file it points to)".into());
    }
    let mut made = 0;
    let replacements: Vec<&&Fix> = fixes
        .iter()
        .filter(|f| matches!(f, Fix::Replace { .. }))
        .collect();
    if !replacements.is_empty() {
        let bytes = memory_rules::sources::read_rule_file(path).map_err(|e| e.to_string())?;
        let old = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
        let mut new = old.clone();
        for fix in replacements {
            if let Some(next) = fix.apply(&new) {
                new = next;
                made += 1;
            }
        }
        if made > 0 {
            if dry {
                out.text.push_str(&unified(shown, Some(&old), Some(&new)));
            } else {
                memory_rules::base::fs::replace(path, new.as_bytes()).map_err(|e| e.to_string())?;
                out.text.push_str(&display::line(&format!("fixed {shown}")));
            }
        }
    }
    if let Some(Fix::Move { to, .. }) = fixes.iter().find(|f| matches!(f, Fix::Move { .. })) {
        let to = Path::new(to);
        let to_shown = display::show(to, target.workdir);
        if to.exists() {
            return Err(format!("{to_shown} exists; not moved"));
        }
        if !dry {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::rename(path, to).map_err(|e| e.to_string())?;
        }
        let verb = if dry { "would rename" } else { "renamed" };
        out.text
            .push_str(&display::line(&format!("{verb} {shown} -> {to_shown}")));
        made += 1;
    }
    Ok(made)
}
