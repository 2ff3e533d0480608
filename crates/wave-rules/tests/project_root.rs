//! The project root as the real binary finds it: a tool's user data folder
//! named `.wave` or `.claude` is passed by, and `doctor`, `list` and
//! `validate` say which marker made the root. The temp folder is a git root
//! (the fence), so nothing above it decides the case.

mod common;
use common::{json, CliTree, Tree};

/// A tree whose temp folder is a git root, with `data/` holding the Wave
/// agent SDK's user data folder and an `AGENTS.md` beside it, and the start
/// directory `data/app/src` with nothing of its own.
fn fenced_under_sdk_data() -> (Tree, std::path::PathBuf) {
    let t = Tree::made();
    let top = t.tmp.path().to_path_buf();
    t.git_root(&top);
    for d in ["projects/-tmp-x", "plans", "file-history/s1"] {
        std::fs::create_dir_all(top.join("data/.wave").join(d)).unwrap();
    }
    t.write(top.join("data/AGENTS.md"), "Not this project's.\n");
    std::fs::create_dir_all(top.join("data/.claude/todos")).unwrap();
    let start = top.join("data/app/src");
    std::fs::create_dir_all(&start).unwrap();
    (t, start)
}

#[test]
fn doctor_passes_by_a_wave_or_claude_user_data_folder_and_names_the_marker() {
    let (t, start) = fenced_under_sdk_data();
    let top = t.tmp.path();
    let r = t.run_in(&start, &["doctor"]);
    let want = format!("project root: {} (has .git)\n", top.display());
    assert!(r.stdout.contains(&want), "{}{}", r.stdout, r.stderr);
    let v = json(&t.run_in(&start, &["doctor", "--json"]));
    assert_eq!(v["rootMarker"], ".git");
    assert_eq!(v["workdir"], top.to_string_lossy().as_ref());

    // The project's own `.wave/rules` makes it the root.
    let app = top.join("data/app");
    std::fs::create_dir_all(app.join(".wave/rules")).unwrap();
    let r = t.run_in(&start, &["doctor"]);
    let want = format!("project root: {} (has .wave)\n", app.display());
    assert!(r.stdout.contains(&want), "{}", r.stdout);
    let r = t.run_in(&start, &["--sources", "agents-md", "list", "--json"]);
    assert_eq!(json(&r)["root"], app.to_string_lossy().as_ref());
    assert!(!r.stdout.contains("Not this project's"), "{}", r.stdout);

    // With --workdir, doctor says the workdir was given.
    let r = t.run_in(&start, &["--workdir", ".", "doctor"]);
    let want = format!("workdir: {}\n", start.display());
    assert!(r.stdout.contains(&want), "{}", r.stdout);
}

#[test]
fn a_claude_folder_of_a_project_marks_it_below_a_users_claude_folder() {
    let (t, start) = fenced_under_sdk_data();
    let app = t.tmp.path().join("data/app");
    t.write(app.join(".claude/settings.json"), "{}");
    let r = t.run_in(&start, &["validate"]);
    let want = format!("project root: {} (has .claude)\n", app.display());
    assert!(r.stdout.contains(&want), "{}{}", r.stdout, r.stderr);
}
