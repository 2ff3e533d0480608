//! The project root (`sources::project_root`): which `.wave`, `.claude` and
//! `.git` mark a project, and which are a user's data folders passed by.
//! Each tree is fenced: its temp folder is a git root, so what lies above
//! the temp folder never decides a case (a walk that passes every marker
//! of the case ends at the fence, not at the start directory).

use memory_rules::sources::{is_claude_project, is_git_root, is_wave_project, project_root};
use std::path::{Path, PathBuf};

/// A temp folder that is a git root (the fence), and a start directory
/// `data/work/src/api` under it.
struct Fenced {
    tmp: tempfile::TempDir,
}

impl Fenced {
    fn new() -> Fenced {
        let f = Fenced {
            tmp: tempfile::tempdir().unwrap(),
        };
        f.file(".git/HEAD", "ref: refs/heads/main\n");
        std::fs::create_dir_all(f.start()).unwrap();
        f
    }
    fn at(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }
    fn start(&self) -> PathBuf {
        self.at("data/work/src/api")
    }
    fn dir(&self, rel: &str) {
        std::fs::create_dir_all(self.at(rel)).unwrap();
    }
    fn file(&self, rel: &str, text: &str) {
        let p = self.at(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    /// The root found from the start directory (no home), relative to the
    /// temp folder (`""` is the fence), and its marker.
    fn root(&self) -> (String, Option<&'static str>) {
        self.root_with_home(None)
    }
    fn root_with_home(&self, home: Option<&Path>) -> (String, Option<&'static str>) {
        let r = project_root(&self.start(), home).unwrap();
        let rel = r.dir.strip_prefix(self.tmp.path()).unwrap_or_else(|_| {
            panic!(
                "{} is above the fence {}",
                r.dir.display(),
                self.tmp.path().display()
            )
        });
        (rel.to_string_lossy().into_owned(), r.marker)
    }
}

fn fence() -> (String, Option<&'static str>) {
    (String::new(), Some(".git"))
}

fn at(dir: &str, marker: &'static str) -> (String, Option<&'static str>) {
    (dir.to_string(), Some(marker))
}

#[test]
fn the_wave_agent_sdks_user_data_folder_is_passed_by() {
    let f = Fenced::new();
    for d in ["projects/-tmp-x", "plans", "file-history/s1"] {
        f.dir(&format!("data/.wave/{d}"));
    }
    f.file("data/.wave/AGENTS.md", "The SDK's user memory.\n");
    f.file("data/AGENTS.md", "Not this project's.\n");
    assert!(!is_wave_project(&f.at("data")));
    assert_eq!(f.root(), fence());
}

#[test]
fn a_projects_wave_rules_config_evals_or_sdk_settings_mark_it() {
    for entry in [
        "rules/",
        "config.toml",
        "evals/",
        "packs.lock",
        "settings.json",
        "skills/",
    ] {
        let f = Fenced::new();
        match entry.strip_suffix('/') {
            Some(d) => f.dir(&format!("data/work/.wave/{d}")),
            None => f.file(&format!("data/work/.wave/{entry}"), ""),
        }
        assert_eq!(f.root(), at("data/work", ".wave"), ".wave/{entry}");
    }
}

#[test]
fn a_wave_holding_rules_and_user_data_is_a_users_not_a_projects() {
    // A home's `.wave` reached without knowing the home (the SDK's test
    // suites point HOME at the temp folder): user rules beside sessions.
    let f = Fenced::new();
    f.dir("data/.wave/rules");
    f.dir("data/.wave/projects");
    assert_eq!(f.root(), fence());
    f.dir("data/work/.wave/rules");
    assert_eq!(f.root(), at("data/work", ".wave"));
}

#[test]
fn an_empty_wave_or_one_of_unknown_entries_marks_nothing() {
    let f = Fenced::new();
    f.dir("data/work/.wave");
    assert_eq!(f.root(), fence());
    f.file("data/work/.wave/notes.txt", "");
    f.dir("data/work/.wave/cache");
    assert_eq!(f.root(), fence());
    // A `.wave` file is no folder of a project's.
    f.file("data/.wave", "");
    assert_eq!(f.root(), fence());
}

#[test]
fn claude_code_user_data_vetoes_a_claude_folder() {
    for data in ["projects/", "todos/", ".credentials.json"] {
        let f = Fenced::new();
        f.file("data/.claude/settings.json", "{}");
        match data.strip_suffix('/') {
            Some(d) => f.dir(&format!("data/.claude/{d}")),
            None => f.file(&format!("data/.claude/{data}"), "{}"),
        }
        f.file("data/CLAUDE.md", "Not this project's.\n");
        assert!(!is_claude_project(&f.at("data")), ".claude/{data}");
        assert_eq!(f.root(), fence(), ".claude/{data}");
    }
}

#[test]
fn a_projects_claude_folder_marks_it_empty_or_with_settings() {
    let f = Fenced::new();
    f.dir("data/work/.claude");
    assert_eq!(f.root(), at("data/work", ".claude"));
    f.file("data/work/.claude/settings.json", "{}");
    f.dir("data/work/.claude/commands");
    assert_eq!(f.root(), at("data/work", ".claude"));
}

#[test]
fn a_git_folder_with_head_or_a_gitdir_file_marks_a_repository_an_empty_one_does_not() {
    let f = Fenced::new();
    f.dir("data/work/.git");
    assert!(!is_git_root(&f.at("data/work")));
    assert_eq!(f.root(), fence());
    f.file("data/work/.git/HEAD", "ref: refs/heads/main\n");
    assert_eq!(f.root(), at("data/work", ".git"));
    std::fs::remove_dir_all(f.at("data/work/.git")).unwrap();
    f.file("data/work/.git", "gitdir: /elsewhere/.git/worktrees/w\n");
    assert_eq!(f.root(), at("data/work", ".git"));
    f.file("data/work/.git", "not a link\n");
    assert_eq!(f.root(), fence());
}

#[test]
fn the_nearest_marker_wins_and_the_homes_settings_do_not_count() {
    let f = Fenced::new();
    f.file("data/work/.git/HEAD", "ref: refs/heads/main\n");
    f.dir("data/work/src/.wave/rules");
    assert_eq!(f.root(), at("data/work/src", ".wave"));
    std::fs::remove_dir_all(f.at("data/work/src/.wave")).unwrap();
    std::fs::remove_dir_all(f.at("data/work/.git")).unwrap();
    // The home's rules and settings are the user's: `data` as the home.
    f.dir("data/.wave/rules");
    f.dir("data/.claude");
    assert_eq!(f.root(), at("data", ".wave"));
    assert_eq!(f.root_with_home(Some(&f.at("data"))), fence());
}

#[test]
fn with_no_marker_up_to_the_filesystem_root_the_start_directory_is_the_root() {
    // Nothing can be fenced here: the case holds only where nothing above
    // the temp folder marks a project, so it is checked where that is so.
    let t = tempfile::tempdir().unwrap();
    let start = t.path().join("a/b");
    std::fs::create_dir_all(&start).unwrap();
    let r = project_root(&start, None).unwrap();
    if r.marker.is_none() {
        assert_eq!(r.dir, start);
        assert!(r
            .describe()
            .ends_with("(no .wave, .claude or .git here or above)"));
    } else {
        assert!(!r.dir.starts_with(t.path()), "{r:?}");
    }
}
