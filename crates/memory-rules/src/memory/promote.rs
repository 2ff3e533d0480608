//! `memory promote`: an entry becomes a `.wave/rules` rule, and leaves
//! memory.
//!
//! The rule file is created first, whole and only if no file of that name
//! exists (a temp file hard-linked into place, so a rule is never
//! overwritten and a reader never sees half a file); then the entry is
//! removed from its topic under the scope's lock. If that removal fails, the
//! new rule file is removed again: either both happen or neither.
//!
//! The rule's triggers are the ones given, else those an agent proposed
//! (`memory_propose_rule`), else the entry's own `paths` and `topics`;
//! without any, the rule is always active. Its id is made from the entry's
//! title like `wave-rules add` makes ids (`-2`, `-3`, ... on a collision).

use super::search::MemoryIndex;
use super::store::{MemoryError, MemoryScope, MemoryStore};
pub use crate::base::limits::{MAX_PROMOTED_ID_CHARS, MAX_PROMOTED_SUFFIX};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Triggers for the new rule; empty lists mean "the proposal's, else the
/// entry's".
#[derive(Clone, Debug, Default)]
pub struct Promotion {
    pub paths: Vec<String>,
    pub topics: Vec<String>,
}

/// A promotion done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Promoted {
    /// The entry that left memory.
    pub id: String,
    pub scope: MemoryScope,
    pub topic: String,
    /// The rule file written.
    pub rule_file: PathBuf,
    pub paths: Vec<String>,
    pub topics: Vec<String>,
}

/// Turns the entry `id` (or the only one starting with it) into a rule file
/// in `rules_dir` (see the module comment).
pub fn promote(
    store: &MemoryStore,
    id: &str,
    rules_dir: &Path,
    how: &Promotion,
) -> Result<Promoted, MemoryError> {
    let index = MemoryIndex::open(store);
    let e = index
        .find(id)
        .map_err(|candidates| MemoryError::unknown_entry(id, candidates))?;
    let meta = e.meta();
    let (paths, topics) = if !how.paths.is_empty() || !how.topics.is_empty() {
        (how.paths.clone(), how.topics.clone())
    } else if let Some(p) = meta
        .proposed
        .as_ref()
        .filter(|p| !p.paths.is_empty() || !p.topics.is_empty())
    {
        (p.paths.clone(), p.topics.clone())
    } else {
        (meta.paths.clone(), meta.topics.clone())
    };
    let text = rule_text(e.text(), &paths, &topics);
    let stem = crate::base::slug::slug(e.title(), MAX_PROMOTED_ID_CHARS)
        .unwrap_or_else(|| "memory".into());
    let (full_id, scope, topic) = (e.id().to_string(), e.scope(), e.topic().to_string());
    drop(index);
    std::fs::create_dir_all(rules_dir).map_err(|source| MemoryError::Io {
        path: rules_dir.to_path_buf(),
        source,
    })?;
    let rule_file = create_new(rules_dir, &stem, &text)?;
    if let Err(e) = store.forget(&full_id) {
        let _ = std::fs::remove_file(&rule_file);
        return Err(e);
    }
    Ok(Promoted {
        id: full_id,
        scope,
        topic,
        rule_file,
        paths,
        topics,
    })
}

/// The rule's Markdown: frontmatter with its triggers (none: always
/// active), then the entry's text.
pub fn rule_text(body: &str, paths: &[String], topics: &[String]) -> String {
    let list = |items: &[String]| {
        items
            .iter()
            .map(|s| serde_json::to_string(s).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut front = String::new();
    if !paths.is_empty() {
        front.push_str(&format!("paths: [{}]\n", list(paths)));
    }
    if !topics.is_empty() {
        front.push_str(&format!("topics: [{}]\n", list(topics)));
    }
    if front.is_empty() {
        format!("{}\n", body.trim())
    } else {
        format!("---\n{front}---\n{}\n", body.trim())
    }
}

/// Writes `text` as `<dir>/<stem>.md` (or `<stem>-N.md`), never over an
/// existing file: a temp file linked into place.
fn create_new(dir: &Path, stem: &str, text: &str) -> Result<PathBuf, MemoryError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| MemoryError::Io { path, source }
    };
    let tmp = dir.join(format!(
        ".{stem}.{}.promote.tmp",
        crate::base::fs::process_tag()
    ));
    {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io(&tmp))?;
        f.write_all(text.as_bytes()).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
    }
    let mut result = Err(MemoryError::Io {
        path: dir.join(format!("{stem}.md")),
        source: std::io::Error::other(format!(
            "{MAX_PROMOTED_SUFFIX} rule files named {stem}-N.md exist"
        )),
    });
    for n in 1..=MAX_PROMOTED_SUFFIX {
        let name = if n == 1 {
            format!("{stem}.md")
        } else {
            format!("{stem}-{n}.md")
        };
        let path = dir.join(&name);
        match std::fs::hard_link(&tmp, &path) {
            Ok(()) => {
                result = Ok(path);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                result = Err(MemoryError::Io { path, source: e });
                break;
            }
        }
    }
    let _ = std::fs::remove_file(&tmp);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_text_table() {
        assert_eq!(rule_text(" Be kind. ", &[], &[]), "Be kind.\n");
        assert_eq!(
            rule_text("Port 5433.", &["src/db/**".into()], &["staging db".into()]),
            "---\npaths: [\"src/db/**\"]\ntopics: [\"staging db\"]\n---\nPort 5433.\n"
        );
    }

    #[test]
    fn create_new_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.md"), "mine").unwrap();
        let p = create_new(dir.path(), "x", "new").unwrap();
        assert_eq!(p, dir.path().join("x-2.md"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("x.md")).unwrap(),
            "mine"
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "no temp file left: {left:?}");
    }
}
