//! Helpers shared by the integration tests: real files in temp dirs. A
//! test whose command finds the project root by walking up makes its own
//! project a root ([`git_root`], or a `.wave/rules`), or passes the workdir:
//! what lies above the temp folder (another tool's `.wave`, `.claude`,
//! `.git`, `AGENTS.md`) is never the test's.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub struct Tree {
    pub tmp: tempfile::TempDir,
}

impl Tree {
    pub fn new() -> Self {
        Tree {
            tmp: tempfile::tempdir().expect("tempdir"),
        }
    }
    pub fn workdir(&self) -> PathBuf {
        self.tmp.path().join("work")
    }
    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    pub fn project_rules(&self) -> PathBuf {
        self.workdir().join(".wave/rules")
    }
    pub fn user_rules(&self) -> PathBuf {
        self.home().join(".wave/rules")
    }
    /// Writes `text` at `path`, creating parents.
    pub fn write(&self, path: impl AsRef<Path>, text: &str) -> PathBuf {
        let path = path.as_ref().to_path_buf();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
    /// Makes `dir` a git repository's root as git takes it (a `.git` with
    /// its `HEAD`); an empty `.git` folder is none.
    pub fn git_root(&self, dir: impl AsRef<Path>) {
        git_root(dir);
    }
    pub fn project(&self, id: &str, text: &str) -> PathBuf {
        self.write(self.project_rules().join(id), text)
    }
    pub fn user(&self, id: &str, text: &str) -> PathBuf {
        self.write(self.user_rules().join(id), text)
    }
    pub fn load(&self) -> memory_rules::Loaded {
        std::fs::create_dir_all(self.workdir()).unwrap();
        memory_rules::load(&memory_rules::sources::Config::with_home(
            self.workdir(),
            self.home(),
        ))
    }
}

/// Makes `dir` a project root of its own, as git takes a repository's (a
/// `.git` with its `HEAD`; an empty `.git` folder is none): what finds the
/// project root from inside it (the CLI without `--workdir`, a hook from
/// its `cwd`) stops there, never at a folder above the temp folder.
pub fn git_root(dir: impl AsRef<Path>) {
    let git = dir.as_ref().join(".git");
    std::fs::create_dir_all(&git).unwrap();
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
}

pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::fs::create_dir_all(link.as_ref().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

pub fn ids(loaded: &memory_rules::Loaded) -> Vec<String> {
    loaded
        .rules
        .rules()
        .iter()
        .map(|r| format!("{}:{}", r.scope, r.id))
        .collect()
}

pub fn active(loaded: &memory_rules::Loaded, files: &[&str], prompt: Option<&str>) -> Vec<String> {
    loaded
        .rules
        .active(files, prompt)
        .into_iter()
        .map(|i| loaded.rules.rules()[i].id.clone())
        .collect()
}

pub fn codes(loaded: &memory_rules::Loaded) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{}:{}",
                d.code,
                Path::new(&d.file_path)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
            )
        })
        .collect()
}

/// The corpus of real rule files: `$WAVE_CORPUS`, else `../shared/corpus`
/// beside the repository. `None` when it is absent, with one line on
/// stderr (once per test binary, past the test harness's capture), so a
/// clone with nothing beside it still passes; with `WAVE_CORPUS_REQUIRED=1`
/// (CI) an absent corpus fails instead.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("WAVE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"));
    if dir.join("rules").is_dir() {
        return Some(dir);
    }
    let why = format!(
        "the corpus of real rule files is not at {} (set WAVE_CORPUS)",
        dir.display()
    );
    if std::env::var_os("WAVE_CORPUS_REQUIRED").is_some_and(|v| v == "1") {
        panic!("{why}, and WAVE_CORPUS_REQUIRED=1");
    }
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "skipped: the corpus tests: {why}");
    });
    None
}

/// The corpus's rule files, `rules/<tool>/<file>` (of one tool's directory
/// when given), sorted.
pub fn corpus_files(corpus: &Path, tool: Option<&str>) -> Vec<PathBuf> {
    let rules = corpus.join("rules");
    let tools: Vec<PathBuf> = match tool {
        Some(t) => vec![rules.join(t)],
        None => std::fs::read_dir(&rules)
            .unwrap()
            .map(|d| d.unwrap().path())
            .filter(|p| p.is_dir())
            .collect(),
    };
    let mut files: Vec<PathBuf> = tools
        .iter()
        .flat_map(|t| std::fs::read_dir(t).unwrap().map(|f| f.unwrap().path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}
