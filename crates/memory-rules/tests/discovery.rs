//! Discovery on real directories: roots, depth, symlinks, overrides, order.

mod common;
use common::*;
use memory_rules::{Code, Severity};

#[test]
fn missing_roots_are_not_errors() {
    let t = Tree::new();
    let loaded = t.load();
    assert!(loaded.rules.rules().is_empty());
    assert!(loaded.diagnostics.is_empty());
}

#[test]
fn root_and_one_level_of_subdirectories() {
    let t = Tree::new();
    t.project("a.md", "A");
    t.project("frontend/react.md", "R");
    t.project("frontend/deep/too-deep.md", "D");
    t.project("frontend/deep/deeper/x.md", "D");
    t.project("notes.txt", "not a rule");
    t.project("frontend/readme.markdown", "not a rule");
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:a.md", "project:frontend/react.md"]);
    let deep: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::TooDeep)
        .collect();
    assert_eq!(
        deep.len(),
        1,
        "once per skipped directory: {:?}",
        loaded.diagnostics
    );
    assert_eq!(deep[0].severity, Severity::Info);
    assert!(deep[0].file_path.ends_with("frontend/deep"));
}

#[test]
fn project_rule_overrides_user_rule_with_same_id() {
    let t = Tree::new();
    t.project("style.md", "project style");
    t.user("style.md", "user style");
    t.user("personal.md", "mine");
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:style.md", "user:personal.md"]);
    let style = &loaded.rules.rules()[0];
    assert_eq!(&*style.content, "project style");
    let d = loaded
        .diagnostics
        .iter()
        .find(|d| d.code == Code::Overridden)
        .expect("override is reported");
    assert_eq!(d.severity, Severity::Info);
    assert!(d.file_path.contains("home"), "{d}");
}

#[test]
fn same_directory_for_both_roots_loads_once() {
    let t = Tree::new();
    t.project("a.md", "A");
    let loaded = memory_rules::load(&memory_rules::sources::Config::with_home(
        t.workdir(),
        t.workdir(),
    ));
    assert_eq!(ids(&loaded), ["project:a.md"]);
    assert!(loaded.diagnostics.is_empty());
}

#[test]
fn symlinked_files_and_directories_are_followed_into_allowed_directories() {
    let t = Tree::new();
    // (Two different real files named team.md: the same one reached twice
    // would be one rule, see `fold`.)
    let shared = t.write(t.tmp.path().join("shared/team.md"), "team rule");
    t.write(t.tmp.path().join("shared/lib/team.md"), "lib team rule");
    t.write(t.tmp.path().join("shared/lib/other.md"), "other");
    symlink(&shared, t.project_rules().join("team.md"));
    symlink(
        t.tmp.path().join("shared/lib"),
        t.project_rules().join("linked"),
    );
    let roots = memory_rules::sources::Config::with_home(t.workdir(), t.home())
        .with_allow_dirs([t.tmp.path().join("shared")]);
    let loaded = memory_rules::load(&roots);
    assert_eq!(
        ids(&loaded),
        [
            "project:linked/other.md",
            "project:linked/team.md",
            "project:team.md"
        ]
    );
    let team = loaded
        .rules
        .rules()
        .iter()
        .find(|r| r.id == "team.md")
        .unwrap();
    assert!(
        team.file_path.ends_with(".wave/rules/team.md"),
        "file path is the link as found"
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    // Without the allow option, neither link loads: a warning each.
    let loaded = t.load();
    assert!(ids(&loaded).is_empty());
    assert_eq!(
        codes(&loaded),
        ["symlink-outside:linked", "symlink-outside:team.md"]
    );
    assert!(loaded
        .diagnostics
        .iter()
        .all(|d| d.severity == Severity::Warning && d.message.contains("allow")));
}

#[test]
fn link_back_to_the_root_is_a_cycle_not_a_loop() {
    let t = Tree::new();
    t.project("a.md", "A");
    symlink(t.project_rules(), t.project_rules().join("loop"));
    symlink("..", t.project_rules().join("sub/up"));
    t.project("sub/b.md", "B");
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:a.md", "project:sub/b.md"]);
    let cycles: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::SymlinkCycle)
        .collect();
    assert_eq!(cycles.len(), 2, "{:?}", loaded.diagnostics);
    assert!(cycles.iter().all(|d| d.severity == Severity::Warning));
    assert!(cycles.iter().any(|d| d.file_path.ends_with("rules/loop")));
    assert!(cycles.iter().any(|d| d.file_path.ends_with("sub/up")));
}

#[test]
fn link_to_a_sibling_is_reported_whatever_the_name_order() {
    for link_name in ["aaa", "zzz"] {
        let t = Tree::new();
        t.project("mmm/rule.md", "R");
        symlink(
            t.project_rules().join("mmm"),
            t.project_rules().join(link_name),
        );
        let loaded = t.load();
        assert_eq!(ids(&loaded), ["project:mmm/rule.md"], "{link_name}");
        let d = loaded
            .diagnostics
            .iter()
            .find(|d| d.code == Code::SymlinkCycle)
            .expect("reported");
        assert!(d.file_path.ends_with(link_name), "{d}");
    }
}

#[test]
fn dangling_link_and_unreadable_file_do_not_stop_the_others() {
    let t = Tree::new();
    t.project("good.md", "good");
    symlink(
        t.tmp.path().join("nowhere.md"),
        t.project_rules().join("dangling.md"),
    );
    std::fs::create_dir_all(t.project_rules().join("locked")).unwrap();
    t.write(t.project_rules().join("bad-utf8.md"), "");
    std::fs::write(t.project_rules().join("bad-utf8.md"), b"ok\n\xff\xfe bad").unwrap();
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:good.md"]);
    let codes = codes(&loaded);
    assert!(
        codes.contains(&"dangling-symlink:dangling.md".to_string()),
        "{codes:?}"
    );
    let utf8 = loaded
        .diagnostics
        .iter()
        .find(|d| d.code == Code::NotUtf8)
        .unwrap();
    assert_eq!((utf8.line, utf8.column), (Some(2), Some(1)));
}

#[test]
fn unreadable_directory_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let t = Tree::new();
    t.project("good.md", "good");
    let locked = t.project_rules().join("locked");
    t.write(locked.join("secret.md"), "x");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = std::fs::read_dir(&locked).is_ok(); // root ignores permissions
    let loaded = t.load();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    if readable_anyway {
        assert_eq!(
            ids(&loaded),
            ["project:good.md", "project:locked/secret.md"]
        );
    } else {
        assert_eq!(ids(&loaded), ["project:good.md"]);
        assert!(
            loaded
                .diagnostics
                .iter()
                .any(|d| d.code == Code::Unreadable),
            "{:?}",
            loaded.diagnostics
        );
    }
}

#[test]
fn oversized_file_is_an_error_and_skipped() {
    let t = Tree::new();
    t.project(
        "big.md",
        &"x".repeat(memory_rules::base::limits::MAX_RULE_BYTES as usize + 1),
    );
    t.project("small.md", "ok");
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:small.md"]);
    assert_eq!(codes(&loaded), ["too-large:big.md"]);
}

#[test]
fn one_broken_rule_never_stops_the_others() {
    let t = Tree::new();
    t.project("broken.md", "---\npaths: [src/**\n---\nbody");
    t.project("unclosed.md", "---\npaths: src/**\nbody");
    t.project("fine.md", "---\npaths: src/**\n---\nbody");
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:fine.md"]);
    let errors: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 2);
    assert!(
        errors
            .iter()
            .all(|d| d.line.is_some() && d.column.is_some()),
        "{errors:?}"
    );
}

#[test]
fn order_is_priority_then_scope_then_id_whatever_the_creation_order() {
    let t = Tree::new();
    for (id, prio) in [
        ("zeta.md", 0),
        ("alpha.md", 0),
        ("mid.md", 5),
        ("neg.md", -1),
    ] {
        t.user(id, &format!("---\npriority: {prio}\n---\n{id}"));
    }
    for (id, prio) in [("beta.md", "0"), ("top.md", "\"9\"")] {
        t.project(id, &format!("---\npriority: {prio}\n---\n{id}"));
    }
    let loaded = t.load();
    assert_eq!(
        ids(&loaded),
        [
            "project:top.md",
            "user:mid.md",
            "project:beta.md",
            "user:alpha.md",
            "user:zeta.md",
            "user:neg.md"
        ]
    );
    // Diagnostics come sorted too.
    let again = t.load();
    assert_eq!(loaded.diagnostics, again.diagnostics);
}

#[test]
fn bom_and_crlf_files() {
    let t = Tree::new();
    t.project(
        "win.md",
        "\u{feff}---\r\npaths:\r\n  - \"src/**\"\r\npriority: 2\r\n---\r\nLine one\r\nLine two\r\n",
    );
    let loaded = t.load();
    let rule = &loaded.rules.rules()[0];
    assert_eq!(
        rule.metadata.paths.as_deref(),
        Some(&["src/**".to_string()][..])
    );
    assert_eq!(rule.metadata.priority, Some(2));
    assert_eq!(&*rule.content, "Line one\r\nLine two");
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
}

#[test]
fn project_symlinks_leading_outside_the_project_are_not_loaded() {
    let t = Tree::new();
    t.write(t.tmp.path().join("shared/team.md"), "team");
    t.write(t.workdir().join("docs/inside.md"), "inside");
    symlink(t.tmp.path().join("shared"), t.project_rules().join("team"));
    symlink(
        t.workdir().join("docs/inside.md"),
        t.project_rules().join("inside.md"),
    );
    symlink(
        t.tmp.path().join("shared/team.md"),
        t.user_rules().join("user-link.md"),
    );
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:inside.md", "user:user-link.md"]);
    let outside: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::SymlinkOutside)
        .collect();
    assert_eq!(outside.len(), 1, "{:?}", loaded.diagnostics);
    assert_eq!(outside[0].severity, Severity::Warning);
    assert!(outside[0].file_path.ends_with("rules/team"));
}

// ---- rule sources -----------------------------------------------------------

use memory_rules::{Format, Scope};

use memory_rules::sources::Config;

use memory_rules::sources::Source;

fn content_of(loaded: &memory_rules::Loaded, id: &str) -> String {
    loaded
        .rules
        .rules()
        .iter()
        .find(|r| r.id == id)
        .map(|r| format!("{}:{}", r.scope, r.content))
        .unwrap_or_default()
}

#[test]
fn the_default_sources_are_the_agent_sdks_four_in_override_order() {
    let t = Tree::new();
    let c = Config::with_home(t.workdir(), t.home());
    let got: Vec<_> = c
        .sources
        .iter()
        .map(|s| (s.dir.clone(), s.scope, s.format, s.depth))
        .collect();
    assert_eq!(
        got,
        [
            (
                t.home().join(".claude/rules"),
                Scope::User,
                Format::Claude,
                None
            ),
            (
                t.home().join(".wave/rules"),
                Scope::User,
                Format::Wave,
                Some(1)
            ),
            (
                t.workdir().join(".claude/rules"),
                Scope::Project,
                Format::Claude,
                None
            ),
            (
                t.workdir().join(".wave/rules"),
                Scope::Project,
                Format::Wave,
                Some(1)
            ),
        ]
    );
    // The same four by name, plus Claude Code's memory files (always on),
    // which `claude` named explicitly also reads.
    let mut named = Config::named(
        t.workdir(),
        t.home(),
        &memory_rules::formats_named(&["claude", "wave"]).unwrap(),
    );
    // (`./CLAUDE.md` and the project's nested ones: the project itself.)
    let is_memory = |s: &memory_rules::sources::Source| {
        s.dir.ends_with(".claude/CLAUDE.md") || s.dir == t.workdir()
    };
    let memory: Vec<_> = named
        .sources
        .iter()
        .filter(|s| is_memory(s))
        .map(|s| s.scope)
        .collect();
    assert_eq!(memory, [Scope::User, Scope::Project, Scope::Project]);
    named.sources.retain(|s| !is_memory(s));
    assert_eq!(named, c);
}

#[test]
fn later_sources_override_earlier_ones_by_id_across_wave_and_claude() {
    let t = Tree::new();
    // One id in all four roots: the project .wave one wins.
    t.write(t.home().join(".claude/rules/all.md"), "user claude");
    t.write(t.home().join(".wave/rules/all.md"), "user wave");
    t.write(t.workdir().join(".claude/rules/all.md"), "project claude");
    t.write(t.workdir().join(".wave/rules/all.md"), "project wave");
    // In the two user roots only: ~/.wave wins over ~/.claude.
    t.write(t.home().join(".claude/rules/user.md"), "user claude");
    t.write(t.home().join(".wave/rules/user.md"), "user wave");
    // A user .wave rule against a project .claude rule: the project one wins.
    t.write(t.home().join(".wave/rules/mixed.md"), "user wave");
    t.write(t.workdir().join(".claude/rules/mixed.md"), "project claude");
    // Only in one root each.
    t.write(t.home().join(".claude/rules/only-uc.md"), "uc");
    t.write(t.workdir().join(".claude/rules/only-pc.md"), "pc");
    let loaded = t.load();
    assert_eq!(content_of(&loaded, "all.md"), "project:project wave");
    assert_eq!(content_of(&loaded, "user.md"), "user:user wave");
    assert_eq!(content_of(&loaded, "mixed.md"), "project:project claude");
    assert_eq!(content_of(&loaded, "only-uc.md"), "user:uc");
    assert_eq!(content_of(&loaded, "only-pc.md"), "project:pc");
    assert_eq!(loaded.rules.rules().len(), 5);
    let overridden: Vec<String> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Overridden)
        .map(|d| {
            d.file_path
                .strip_prefix(t.tmp.path().to_str().unwrap())
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        overridden,
        [
            "/home/.claude/rules/all.md",
            "/home/.claude/rules/user.md",
            "/home/.wave/rules/all.md",
            "/home/.wave/rules/mixed.md",
            "/work/.claude/rules/all.md",
        ]
    );
    let d = loaded
        .diagnostics
        .iter()
        .find(|d| d.file_path.ends_with("home/.wave/rules/mixed.md"))
        .unwrap();
    assert!(
        d.message.contains("overridden by the project rule")
            && d.message.contains(".claude/rules/mixed.md"),
        "{d}"
    );
}

#[test]
fn claude_rules_are_read_at_any_depth_and_wave_rules_at_one_level() {
    let t = Tree::new();
    t.write(
        t.workdir().join(".claude/rules/a/b/c/deep.md"),
        "---\npaths: src/**\n---\ndeep",
    );
    t.write(t.workdir().join(".claude/rules/top.md"), "top");
    t.project("x/y/skipped.md", "too deep for .wave");
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:a/b/c/deep.md", "project:top.md"]);
    assert_eq!(codes(&loaded), ["too-deep:y"]);
    assert_eq!(
        active(&loaded, &["src/main.ts"], None),
        ["a/b/c/deep.md", "top.md"]
    );
}

#[test]
fn a_source_list_is_read_in_its_order_with_its_own_depths() {
    let t = Tree::new();
    let team = t.tmp.path().join("team");
    t.write(team.join("style.md"), "team style");
    t.write(team.join("sub/inner.md"), "inner");
    t.write(team.join("sub/deeper/skipped.md"), "skipped at depth 1");
    t.project("style.md", "project style");
    std::fs::create_dir_all(t.workdir()).unwrap();
    let flat = Source::new(&team, Scope::User, Format::Wave, Some(0));
    let config = Config::new(
        t.workdir(),
        vec![Source::wave(&t.workdir(), Scope::Project), flat.clone()],
    );
    let loaded = memory_rules::load(&config);
    // The team source comes last, so its style.md wins even over the project's.
    assert_eq!(ids(&loaded), ["user:style.md"]);
    assert_eq!(codes(&loaded), ["too-deep:sub", "overridden:style.md"]);
    let two = Source {
        depth: Some(2),
        ..flat
    };
    let loaded = memory_rules::load(&Config::new(t.workdir(), vec![two]));
    assert_eq!(
        ids(&loaded),
        [
            "user:style.md",
            "user:sub/deeper/skipped.md",
            "user:sub/inner.md"
        ]
    );
}

#[test]
fn reload_follows_a_changed_home() {
    let t = Tree::new();
    let other = t.tmp.path().join("other-home");
    t.user("mine.md", "first home");
    t.write(other.join(".claude/rules/theirs.md"), "second home");
    let first = t.load();
    assert_eq!(ids(&first), ["user:mine.md"]);
    let again = memory_rules::reload(&Config::with_home(t.workdir(), &other), &first);
    assert!(again.changed);
    assert_eq!(ids(&again.loaded), ["user:theirs.md"]);
}
