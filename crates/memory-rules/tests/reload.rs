//! Incremental reload on real files: what changed is seen, what did not is
//! neither read nor parsed, and the compiled set is kept.

mod common;
use common::*;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Sets a file's mtime to `secs` seconds ago (outside the racy window).
fn age(path: &std::path::Path, secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

fn roots(t: &Tree) -> memory_rules::Config {
    memory_rules::Config::with_home(t.workdir(), t.home())
}

#[test]
fn nothing_changed_keeps_the_compiled_set_and_reads_nothing() {
    let t = Tree::new();
    let a = t.project("a.md", "---\npaths: a/**\n---\nA");
    let b = t.user("b.md", "B");
    age(&a, 60);
    age(&b, 60);
    let first = t.load();
    let again = memory_rules::reload(&roots(&t), &first);
    assert!(!again.changed);
    assert_eq!(again.reparsed, 0);
    assert!(Arc::ptr_eq(&first.rules, &again.loaded.rules));
}

#[test]
fn changed_added_removed_and_renamed_files_are_seen() {
    let t = Tree::new();
    let a = t.project("a.md", "---\npaths: a/**\n---\nA1");
    let b = t.project("b.md", "B");
    let c = t.project("sub/c.md", "C");
    for p in [&a, &b, &c] {
        age(p, 60);
    }
    let l0 = t.load();

    std::fs::write(&a, "---\npaths: z/**\n---\nA2").unwrap();
    let r1 = memory_rules::reload(&roots(&t), &l0);
    assert!(r1.changed);
    assert_eq!(r1.reparsed, 1, "only the changed file is read");
    assert_eq!(
        active(&r1.loaded, &["z/x"], None),
        ["a.md", "b.md", "sub/c.md"]
    );
    assert!(!Arc::ptr_eq(&l0.rules, &r1.loaded.rules));

    t.project("new.md", "---\ntopics: fresh\n---\nN");
    std::fs::remove_file(&b).unwrap();
    std::fs::rename(&c, t.project_rules().join("sub/renamed.md")).unwrap();
    let r2 = memory_rules::reload(&roots(&t), &r1.loaded);
    assert!(r2.changed);
    assert_eq!(
        ids(&r2.loaded),
        ["project:a.md", "project:new.md", "project:sub/renamed.md"]
    );
}

#[test]
fn a_racy_edit_with_same_size_and_mtime_is_still_seen() {
    let t = Tree::new();
    let a = t.project("a.md", "---\npaths: aa/**\n---\nA");
    let mtime = std::fs::metadata(&a).unwrap().modified().unwrap();
    let l0 = t.load();
    // Same size, same mtime, same inode: only the bytes differ.
    std::fs::write(&a, "---\npaths: bb/**\n---\nA").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&a)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let r = memory_rules::reload(&roots(&t), &l0);
    assert!(
        r.changed,
        "a file modified within the racy window is re-read"
    );
    assert_eq!(active(&r.loaded, &["bb/x"], None), ["a.md"]);
}

#[test]
fn a_racy_file_with_the_same_bytes_is_not_a_change() {
    let t = Tree::new();
    t.project("a.md", "A");
    let l0 = t.load();
    let r = memory_rules::reload(&roots(&t), &l0);
    assert_eq!(r.reparsed, 1, "recent file is re-read");
    assert!(!r.changed);
    assert!(Arc::ptr_eq(&l0.rules, &r.loaded.rules));
}

#[test]
fn a_new_diagnostic_alone_is_a_change() {
    let t = Tree::new();
    let a = t.project("a.md", "A");
    age(&a, 60);
    let l0 = t.load();
    symlink(
        t.tmp.path().join("missing.md"),
        t.project_rules().join("dangling.md"),
    );
    let r = memory_rules::reload(&roots(&t), &l0);
    assert!(r.changed);
    assert!(
        Arc::ptr_eq(&l0.rules, &r.loaded.rules),
        "rules did not change"
    );
    assert_eq!(codes(&r.loaded), ["dangling-symlink:dangling.md"]);
}
