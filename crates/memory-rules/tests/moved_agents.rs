//! Where the agents moved: Windsurf is Devin Desktop (`.devin/rules`, with
//! `.windsurf/rules` as its fallback; `devin` names the `windsurf` source),
//! and Antigravity reads `.agents/rules` (the older `.agent/rules` only when
//! `.agents/rules` is absent). Read, exported and read back on real temp
//! trees.

mod common;
use common::Tree;
use memory_rules::delivery::export::{self, Target};
use memory_rules::sources::Config;
use memory_rules::{formats_named, Activation, Format, Loaded};

fn load(t: &Tree, formats: &[Format]) -> Loaded {
    std::fs::create_dir_all(t.workdir()).unwrap();
    std::fs::create_dir_all(t.home()).unwrap();
    memory_rules::load(&Config::named(t.workdir(), t.home(), formats))
}

fn activation(l: &Loaded, id: &str) -> Activation {
    let r = l.rules.rules().iter().find(|r| r.id == id);
    r.unwrap_or_else(|| panic!("{id} not loaded: {:?}", common::ids(l)))
        .metadata
        .activation
}

/// One rule file per trigger, in `folder`.
fn four_triggers(t: &Tree, folder: &str) {
    let w = t.workdir();
    let files = [
        ("always.md", "---\ntrigger: always_on\n---\nAlways."),
        (
            "ts.md",
            "---\ntrigger: glob\nglobs: src/**/*.ts\n---\nTypeScript.",
        ),
        (
            "db.md",
            "---\ntrigger: model_decision\ndescription: Database work\n---\nDB.",
        ),
        ("man.md", "---\ntrigger: manual\n---\nManual."),
    ];
    for (name, text) in files {
        t.write(w.join(folder).join(name), text);
    }
}

#[test]
fn antigravity_reads_agents_rules_with_windsurfs_four_triggers() {
    let t = Tree::new();
    four_triggers(&t, ".agents/rules");
    let l = load(&t, &[Format::Antigravity]);
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    assert_eq!(
        common::active(&l, &["README.md"], None),
        ["antigravity:always.md"]
    );
    let on = common::active(&l, &["src/a.ts"], None);
    assert!(on.contains(&"antigravity:ts.md".to_string()), "{on:?}");
    assert_eq!(activation(&l, "antigravity:db.md"), Activation::OnRequest);
    assert_eq!(activation(&l, "antigravity:man.md"), Activation::Manual);
    let r = &l.rules.rules()[0];
    assert_eq!(r.format, Format::Antigravity);
}

#[test]
fn antigravity_reads_the_old_agent_folder_only_when_agents_rules_is_absent() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".agent/rules/old.md"),
        "---\ntrigger: always_on\n---\nOld folder.",
    );
    let l = load(&t, &[Format::Antigravity]);
    assert_eq!(common::ids(&l), ["project:antigravity:old.md"]);
    t.write(
        w.join(".agents/rules/new.md"),
        "---\ntrigger: always_on\n---\nNew folder.",
    );
    let l = load(&t, &[Format::Antigravity]);
    assert_eq!(common::ids(&l), ["project:antigravity:new.md"]);
}

#[test]
fn devin_names_the_windsurf_source_and_its_folder_wins_over_windsurfs() {
    assert_eq!(formats_named(&["devin"]).unwrap(), [Format::Windsurf]);
    assert_eq!(
        formats_named(&["devin", "windsurf", "antigravity"]).unwrap(),
        [Format::Windsurf, Format::Antigravity]
    );
    let e = formats_named(&["devn"]).unwrap_err();
    assert!(e.contains("did you mean 'devin'"), "{e}");
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".windsurf/rules/style.md"),
        "---\ntrigger: always_on\n---\nFallback text.",
    );
    t.write(
        w.join(".devin/rules/style.md"),
        "---\ntrigger: always_on\n---\nDevin text.",
    );
    t.write(
        w.join(".windsurf/rules/only.md"),
        "---\ntrigger: glob\nglobs: \"**/*.py\"\n---\nPython.",
    );
    let l = load(&t, &formats_named(&["devin"]).unwrap());
    let style = l.rules.rules().iter().find(|r| r.id == "windsurf:style.md");
    assert_eq!(style.unwrap().content.trim(), "Devin text.");
    assert!(common::active(&l, &["a.py"], None).contains(&"windsurf:only.md".to_string()));
}

#[test]
fn export_to_devin_and_antigravity_writes_their_folders_and_reads_back_the_same() {
    let t = Tree::new();
    let w = t.workdir();
    // The same four rules as `.wave/rules`, the export's usual source.
    t.project("always.md", "Always.");
    t.project("ts.md", "---\npaths: src/**/*.ts\n---\nTypeScript.");
    t.project(
        "db.md",
        "---\nactivation: on-request\ndescription: Database work\n---\nDB.",
    );
    t.project("man.md", "---\nactivation: manual\n---\nManual.");
    let src = load(&t, &[Format::Wave]);
    assert!(src.diagnostics.is_empty(), "{:?}", src.diagnostics);
    let targets = export::targets_named(&["devin", "antigravity"]).unwrap();
    assert_eq!(targets, [Target::Devin, Target::Antigravity]);
    let plan = export::plan(src.rules.rules(), &w, &targets).unwrap();
    let d = export::diff(&plan, &w);
    export::apply(&d.changes).unwrap();
    for (folder, format, prefix) in [
        (".devin/rules", Format::Windsurf, "windsurf"),
        (".agents/rules", Format::Antigravity, "antigravity"),
    ] {
        let ts = std::fs::read_to_string(w.join(folder).join("ts.md")).unwrap();
        assert!(ts.starts_with("---\ntrigger: glob\nglobs: "), "{ts}");
        let back = load(&t, &[format]);
        assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
        for (id, want) in [
            ("always.md", Activation::Auto),
            ("ts.md", Activation::Auto),
            ("db.md", Activation::OnRequest),
            ("man.md", Activation::Manual),
        ] {
            assert_eq!(
                activation(&back, &format!("{prefix}:{id}")),
                want,
                "{folder}"
            );
        }
        assert_eq!(
            common::active(&back, &["src/a.ts"], None),
            [format!("{prefix}:always.md"), format!("{prefix}:ts.md")]
        );
    }
    // Nothing written to Windsurf's old folder for `devin`.
    assert!(!w.join(".windsurf").exists());
    // A second export changes nothing.
    let again = export::diff(&export::plan(src.rules.rules(), &w, &targets).unwrap(), &w);
    assert!(again.changes.is_empty(), "{:?}", again.changes);
}

/// Public repositories keep Claude-style rules in `.agents/rules` (a
/// `paths:` list, as opsmill/infrahub-skills does): Antigravity reads no
/// `paths`, so the rule is always on there, and the warning says what to
/// write instead.
#[test]
fn a_claude_style_paths_rule_in_agents_rules_is_always_on_with_a_warning_saying_what_to_write() {
    let t = Tree::new();
    t.write(
        t.workdir().join(".agents/rules/versions.md"),
        "---\npaths:\n  - \"pyproject.toml\"\n---\n# Versions\nBump them together.\n",
    );
    let l = load(&t, &[Format::Antigravity]);
    assert_eq!(
        common::active(&l, &["README.md"], None),
        ["antigravity:versions.md"]
    );
    let d = &l.diagnostics;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, memory_rules::Code::ForeignKey);
    assert_eq!(d[0].line, Some(2));
    assert!(
        d[0].message.contains(
            "'paths' is Claude Code's key, not Antigravity's: write 'trigger: glob' with 'globs'"
        ),
        "{}",
        d[0].message
    );
}

/// `.agents/rules` committed as a link's text (a file holding a path, as in
/// opsmill/infrahub-skills on a checkout without links): not read, and said.
#[test]
fn an_agents_rules_file_is_a_misplaced_warning_naming_it() {
    let t = Tree::new();
    let file = t.write(t.workdir().join(".agents/rules"), "../dev/guidelines");
    let l = load(&t, &[Format::Antigravity]);
    assert!(common::ids(&l).is_empty());
    let d: Vec<_> = l
        .diagnostics
        .iter()
        .filter(|d| d.code == memory_rules::Code::Misplaced)
        .collect();
    assert_eq!(d.len(), 1, "{:?}", l.diagnostics);
    assert_eq!(std::path::Path::new(&d[0].file_path), file);
    assert!(d[0]
        .message
        .starts_with("Antigravity reads .agents/rules as a folder"));
}
