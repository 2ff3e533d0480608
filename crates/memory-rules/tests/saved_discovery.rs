//! A saved discovery (`Loaded::to_bytes`) restored by a later process:
//! fresh (the rule set as built, no walk) only while every rules root,
//! listed directory, rule file and import has its stamp; any change seen
//! on real files makes it stale (the snapshot to reload from).

mod common;
use common::*;
use memory_rules::delivery::RulesNeeded;
use memory_rules::Restored;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Sets a file's or a directory's mtime to `secs` seconds ago (outside the
/// racy window).
fn age(path: &Path, secs: u64) {
    let f = std::fs::File::open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

/// Ages every file and directory under `dir`, and `dir`.
fn age_all(dir: &Path, secs: u64) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            age_all(&p, secs);
        } else {
            age(&p, secs);
        }
    }
    age(dir, secs);
}

fn config(t: &Tree) -> memory_rules::sources::Config {
    memory_rules::sources::Config::with_home(t.workdir(), t.home())
}

/// A project of three rules (one in a subfolder, one with an error), all
/// older than the racy window, saved.
fn saved(t: &Tree) -> (Vec<u8>, Vec<PathBuf>) {
    let files = vec![
        t.project("a.md", "---\npaths: src/**\n---\nA"),
        t.project("sub/b.md", "---\ntopics: [billing]\n---\nB"),
        t.project("broken.md", "---\npaths: [\n---\nX"),
        t.user("u.md", "U"),
    ];
    age_all(&t.workdir(), 60);
    age_all(&t.home(), 60);
    let loaded = t.load();
    (loaded.to_bytes().unwrap(), files)
}

fn restore(t: &Tree, bytes: &[u8]) -> Restored {
    Restored::from_bytes(&config(t), bytes).unwrap()
}

fn rule_ids(set: &memory_rules::RuleSet, hits: &[usize]) -> Vec<String> {
    hits.iter().map(|&i| set.rules()[i].id.clone()).collect()
}

#[test]
fn an_unchanged_project_restores_the_rules_and_diagnostics_as_built() {
    let t = Tree::new();
    let (bytes, _) = saved(&t);
    let loaded = t.load();
    match restore(&t, &bytes) {
        Restored::Fresh {
            rules,
            diagnostics,
            saved,
        } => {
            assert_eq!(
                saved.total(),
                3,
                "every rule is restored unless told otherwise"
            );
            assert_eq!(rules.rules(), loaded.rules.rules());
            assert_eq!(rules.rules().len(), 3, "broken.md is not loaded");
            assert_eq!(diagnostics, loaded.diagnostics);
            assert!(diagnostics
                .iter()
                .any(|d| d.severity == memory_rules::Severity::Error
                    && d.file_path.ends_with("broken.md")));
            let want = active(&loaded, &["src/x.rs"], Some("the billing run"));
            let hits = rules.active(&["src/x.rs"], Some("the billing run"));
            assert_eq!(rule_ids(&rules, &hits), want);
            assert!(want.contains(&"a.md".to_string()) && want.contains(&"sub/b.md".to_string()));
            let hits = rules.active(&["lib/x.rs"], None);
            assert_eq!(rule_ids(&rules, &hits), ["u.md"]);
        }
        Restored::Stale(_) => panic!("nothing changed, yet stale"),
    }
}

#[test]
fn a_file_edited_in_place_is_stale_though_its_folder_is_not() {
    let t = Tree::new();
    let (bytes, files) = saved(&t);
    let dir_before = std::fs::metadata(t.project_rules())
        .unwrap()
        .modified()
        .unwrap();
    std::fs::write(&files[0], "---\npaths: lib/**\n---\nA2").unwrap();
    age(&files[0], 30);
    let dir_after = std::fs::metadata(t.project_rules())
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        dir_before, dir_after,
        "an in-place write leaves its folder's mtime"
    );
    assert!(matches!(restore(&t, &bytes), Restored::Stale(_)));
}

#[test]
fn an_added_removed_or_renamed_file_makes_it_stale() {
    let cases: [fn(&Tree, &[PathBuf]); 4] = [
        |t, _| {
            t.project("sub/new.md", "N");
        },
        |_, f| std::fs::remove_file(&f[0]).unwrap(),
        |t, f| std::fs::rename(&f[1], t.project_rules().join("sub/c.md")).unwrap(),
        // A rules root that was absent appears.
        |t, _| {
            t.write(t.workdir().join(".claude/rules/c.md"), "C");
        },
    ];
    for (i, change) in cases.iter().enumerate() {
        let t = Tree::new();
        let (bytes, files) = saved(&t);
        change(&t, &files);
        // Aged again: only the stamps' values differ, not their freshness.
        age_all(&t.workdir(), 30);
        assert!(
            matches!(restore(&t, &bytes), Restored::Stale(_)),
            "case {i} not seen"
        );
    }
}

#[test]
fn a_rules_root_absent_at_the_save_and_there_now_makes_it_stale() {
    let t = Tree::new();
    t.project("a.md", "A");
    age_all(&t.workdir(), 60);
    let bytes = t.load().to_bytes().unwrap();
    assert!(matches!(restore(&t, &bytes), Restored::Fresh { .. }));
    t.user("u.md", "U");
    age_all(&t.home(), 30);
    assert!(matches!(restore(&t, &bytes), Restored::Stale(_)));
}

#[test]
fn a_stamp_within_the_racy_window_is_not_trusted() {
    let t = Tree::new();
    t.project("a.md", "A");
    // Not aged: written within the window of the scan.
    let bytes = t.load().to_bytes().unwrap();
    assert!(matches!(restore(&t, &bytes), Restored::Stale(_)));
}

#[test]
fn a_stale_restore_gives_the_snapshot_that_reloads_only_the_changed_file() {
    let t = Tree::new();
    let (bytes, files) = saved(&t);
    std::fs::write(&files[1], "---\ntopics: [invoices]\n---\nB2").unwrap();
    let Restored::Stale(snapshot) = restore(&t, &bytes) else {
        panic!("an edit not seen");
    };
    let r = memory_rules::reload_from(&config(&t), &snapshot);
    assert_eq!(r.reparsed, 1);
    assert_eq!(
        active(&r.loaded, &[], Some("the invoices")),
        ["sub/b.md", "u.md"]
    );
}

#[test]
fn a_discovery_that_walked_the_project_is_never_fresh() {
    let t = Tree::new();
    let agents = t.write(t.workdir().join("AGENTS.md"), "Run the tests.");
    age_all(&t.workdir(), 60);
    let _ = agents;
    let config = memory_rules::sources::Config::named(
        t.workdir(),
        t.home(),
        &[memory_rules::Format::AgentsMd],
    );
    let bytes = memory_rules::load(&config).to_bytes().unwrap();
    assert!(matches!(
        Restored::from_bytes(&config, &bytes).unwrap(),
        Restored::Stale(_)
    ));
}

#[test]
fn a_plain_snapshot_or_another_version_is_refused() {
    let t = Tree::new();
    let (_, _) = saved(&t);
    let plain = t.load().snapshot().to_bytes().unwrap();
    assert!(Restored::from_bytes(&config(&t), &plain).is_err());
    assert!(Restored::from_bytes(&config(&t), b"").is_err());
}

#[test]
fn a_truncated_or_damaged_file_is_refused_or_stale_never_a_panic() {
    let t = Tree::new();
    let (bytes, _) = saved(&t);
    let rules_start = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let Restored::Fresh { rules: whole, .. } = restore(&t, &bytes) else {
        panic!("stale")
    };
    // A cut in the snapshot (the last part) still restores: it is read only
    // when stale. Anywhere else: an error, or the rules whole.
    for cut in (0..bytes.len()).step_by(7) {
        if let Ok(Restored::Fresh { rules, .. }) = Restored::from_bytes(&config(&t), &bytes[..cut])
        {
            assert_eq!(
                rules.rules(),
                whole.rules(),
                "cut at {cut} of {}",
                bytes.len()
            );
        }
    }
    for at in rules_start..(rules_start + 200).min(bytes.len()) {
        let mut damaged = bytes.clone();
        damaged[at] = damaged[at].wrapping_add(0x41);
        let _ = Restored::from_bytes(&config(&t), &damaged);
    }
}

/// At 300 rules the stamps are checked on a second thread while the rules
/// decode, and then by both threads: still fresh with nothing changed
/// (every rule back, in order), still stale when one file is edited in
/// place, first, deep in the list or last (whichever thread stats it).
#[test]
fn many_rules_checked_beside_the_decoding_are_fresh_or_stale_as_few_are() {
    let t = Tree::new();
    let files: Vec<PathBuf> = (0..300)
        .map(|i| {
            let topics = format!("---\ntopics: [t{i}]\n---\nRule {i}");
            t.project(&format!("g{}/r{i:03}.md", i % 3), &topics)
        })
        .collect();
    age_all(&t.workdir(), 60);
    let loaded = t.load();
    let bytes = loaded.to_bytes().unwrap();
    let Restored::Fresh { rules, .. } = restore(&t, &bytes) else {
        panic!("nothing changed, yet stale");
    };
    let ids =
        |s: &memory_rules::RuleSet| s.rules().iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&rules), ids(&loaded.rules));
    for i in [250, 0, 299] {
        age_all(&t.workdir(), 60);
        let bytes = t.load().to_bytes().unwrap();
        assert!(matches!(restore(&t, &bytes), Restored::Fresh { .. }));
        std::fs::write(
            &files[i],
            format!("---\ntopics: [t{i}]\n---\nRule {i}, edited"),
        )
        .unwrap();
        age(&files[i], 30);
        assert!(
            matches!(restore(&t, &bytes), Restored::Stale(_)),
            "rule {i} edited, yet fresh"
        );
    }
}

#[test]
fn inputs_a_watcher_vouches_for_skip_the_stats_but_not_the_setup_or_a_walk() {
    let t = Tree::new();
    let (bytes, files) = saved(&t);
    let inputs = memory_rules::Restored::inputs_of(&bytes).expect("checkable by stamps");
    for file in &files {
        assert!(inputs.paths.contains(file), "{file:?} is an input");
    }
    assert_eq!(inputs.paths.len(), inputs.absent.len());
    assert!(memory_rules::Restored::inputs_hold(&bytes));
    // Edited in place: the stats see it; a caller that vouches is trusted.
    std::fs::write(&files[0], "---\npaths: lib/**\n---\nA, longer").unwrap();
    assert!(!memory_rules::Restored::inputs_hold(&bytes));
    assert!(matches!(restore(&t, &bytes), Restored::Stale(_)));
    let vouched = Restored::from_bytes_unchanged(&config(&t), &bytes).unwrap();
    assert!(matches!(vouched, Restored::Fresh { .. }));
    // Another setup is never fresh, vouched or not.
    let other = memory_rules::sources::Config::with_home(t.workdir(), t.workdir());
    assert!(matches!(
        Restored::from_bytes_unchanged(&other, &bytes).unwrap(),
        Restored::Stale(_)
    ));
    // Nor is a discovery that walked the project (no stamps to vouch for).
    let config = memory_rules::sources::Config::named(
        t.workdir(),
        t.home(),
        &[memory_rules::Format::AgentsMd],
    );
    t.write(t.workdir().join("AGENTS.md"), "Run the tests.");
    age_all(&t.workdir(), 60);
    let walked = memory_rules::load(&config).to_bytes().unwrap();
    assert!(memory_rules::Restored::inputs_of(&walked).is_none());
    assert!(matches!(
        Restored::from_bytes_unchanged(&config, &walked).unwrap(),
        Restored::Stale(_)
    ));
}

/// The ids of the rules restored with `need`, and whether any was left out.
fn restored_ids(t: &Tree, bytes: &[u8], need: RulesNeeded) -> (Vec<String>, bool) {
    match Restored::restore(&config(t), bytes, false, need).unwrap() {
        Restored::Fresh { rules, saved, .. } => (
            rules.rules().iter().map(|r| r.id.clone()).collect(),
            saved.total() > rules.rules().len(),
        ),
        Restored::Stale(_) => panic!("stale"),
    }
}

#[test]
fn a_restore_in_part_leaves_out_only_the_rules_the_event_cannot_activate() {
    let t = Tree::new();
    let (bytes, _) = saved(&t);
    let (all, partial) = restored_ids(&t, &bytes, RulesNeeded::ALL);
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(!partial);
    // In the order of the whole set, without the rules left out.
    let without = |end: &str| -> Vec<String> {
        all.iter()
            .filter(|id| !id.ends_with(end))
            .cloned()
            .collect()
    };
    let needs = |paths, topics, always| {
        restored_ids(
            &t,
            &bytes,
            RulesNeeded {
                paths,
                topics,
                always,
                prompt: None,
                files: None,
            },
        )
    };
    assert_eq!(
        needs(false, true, true),
        (without("a.md"), true),
        "paths only"
    );
    assert_eq!(
        needs(true, false, true),
        (without("b.md"), true),
        "topics only"
    );
    assert_eq!(
        needs(true, true, false),
        (without("u.md"), true),
        "always on"
    );
    let only =
        |end: &str| -> Vec<String> { all.iter().filter(|id| id.ends_with(end)).cloned().collect() };
    assert_eq!(needs(false, false, true), (only("u.md"), true));
    assert_eq!(needs(false, false, false), (vec![], true));
    let named = |prompt| {
        let need = RulesNeeded {
            prompt: Some(prompt),
            ..RulesNeeded::ALL
        };
        restored_ids(&t, &bytes, need)
    };
    assert_eq!(named("the billing run"), (all.clone(), false));
    assert_eq!(named("rename a variable"), (without("b.md"), true));
    // Of the path rules, those a glob of which may match a file touched
    // (absolute or relative to the workdir).
    let touching = |files: &[String]| {
        let need = RulesNeeded {
            files: Some(files),
            ..RulesNeeded::ALL
        };
        restored_ids(&t, &bytes, need)
    };
    let inside = t.workdir().join("src/deep/x.rs").display().to_string();
    assert_eq!(touching(&[inside]), (all.clone(), false));
    assert_eq!(touching(&["src/y.rs".into()]), (all.clone(), false));
    assert_eq!(touching(&["lib/src/y.rs".into()]), (without("a.md"), true));
    assert_eq!(
        touching(&["/elsewhere/src/y.rs".into()]),
        (without("a.md"), true)
    );
}
