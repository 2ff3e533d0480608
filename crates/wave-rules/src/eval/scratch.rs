//! The scratch copy one run works in: the project's files (as git sees
//! them: `.gitignore`d files and `.git` left out, `node_modules` linked),
//! less the rule files under test in the arm without them, plus the
//! scenario's files; and a home of its own. The project is never written.
//! The copy is an empty git repository of its own (what a project usually
//! is), so each agent takes the copy as the project, its root for hooks,
//! trust and rule files, whatever lies above the temp directory. The
//! product's hooks are installed in it as `hook install` writes them
//! ([`Scratch::install_hooks`]).

use super::eval_agent::EvalAgent;
use super::results::Kept;
use super::{MAX_REGRADE_KEPT_BYTES, MAX_SCRATCH_BYTES, MAX_SCRATCH_FILES};
use crate::base::args::{GlobalArgs, InstallArgs, ScopeArg};
use crate::base::env::Env;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One run's directories, removed when dropped unless kept.
#[derive(Debug)]
pub struct Scratch {
    /// Holds the others.
    pub root: PathBuf,
    /// The copy of the project the agent works in.
    pub work: PathBuf,
    /// The agent's home.
    pub home: PathBuf,
    /// The hooks' state directory (`WAVE_RULES_STATE_DIR`).
    pub state: PathBuf,
    keep: bool,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

impl Scratch {
    /// What a finished run keeps for a re-grade; `None` when it is over
    /// [`MAX_REGRADE_KEPT_BYTES`] or a changed file is not text.
    pub fn keep(&self, reply: &str) -> Option<Kept> {
        let diff = self.diff().ok()?;
        let mut kept = Kept {
            reply: reply.to_string(),
            files: Default::default(),
            diff,
        };
        let mut bytes = kept.reply.len() + kept.diff.len();
        for rel in self.changed().ok()? {
            let path = self.work.join(&rel);
            let text = if path.symlink_metadata().is_ok() {
                Some(std::fs::read_to_string(&path).ok()?)
            } else {
                None
            };
            bytes += text.as_ref().map_or(0, String::len);
            kept.files.insert(rel, text);
        }
        (bytes <= MAX_REGRADE_KEPT_BYTES).then_some(kept)
    }

    /// Copies `project` into a new directory under the system's temp
    /// directory, leaves out `removed` (absolute paths of rule files), and
    /// writes `files` (relative path, text) over it.
    pub fn create(
        project: &Path,
        removed: &[PathBuf],
        files: &[(String, String)],
        keep: bool,
    ) -> Result<Scratch, String> {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let root =
            std::env::temp_dir().join(format!("wave-eval-{}-{n}-{nanos}", std::process::id()));
        std::fs::create_dir(&root).map_err(|e| {
            format!(
                "cannot create the scratch directory {}: {e}",
                root.display()
            )
        })?;
        let scratch = Scratch {
            work: root.join("work"),
            home: root.join("home"),
            state: root.join("state"),
            root,
            keep,
        };
        for dir in [&scratch.work, &scratch.home, &scratch.state] {
            std::fs::create_dir(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        copy_project(project, &scratch.work)?;
        init_repository(&scratch.work)?;
        link_node_modules(project, &scratch.work);
        for file in removed {
            if let Ok(rel) = file.strip_prefix(project) {
                let _ = std::fs::remove_file(scratch.work.join(rel));
            }
        }
        for (rel, text) in files {
            scratch.write(rel, text)?;
        }
        Ok(scratch)
    }

    /// Commits the copy as it starts (the scenario's files and the hooks
    /// in), so [`Scratch::diff`] can show what the run changed.
    pub fn commit_start(&self) -> Result<(), String> {
        self.git(&["add", "-A"])?;
        self.git(&[
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            "start",
        ])
        .map(drop)
    }

    /// What the run changed since [`Scratch::commit_start`], as a diff.
    pub fn diff(&self) -> Result<String, String> {
        self.git(&["add", "-A"])?;
        self.git(&["diff", "--cached", "--no-color", "--no-ext-diff", "HEAD"])
    }

    /// The paths the run changed since [`Scratch::commit_start`] (after a
    /// [`Scratch::diff`], which stages them).
    pub fn changed(&self) -> Result<Vec<String>, String> {
        let names = self.git(&[
            "diff",
            "--cached",
            "--name-only",
            "--no-renames",
            "-z",
            "HEAD",
        ])?;
        Ok(names
            .split('\0')
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect())
    }

    fn git(&self, args: &[&str]) -> Result<String, String> {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=wave-rules eval",
                "-c",
                "user.email=eval@localhost",
            ])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args(args)
            .current_dir(&self.work)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run git in the scratch copy: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git {} in the scratch copy failed: {}",
                args[0],
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Writes `text` at `rel` under the work copy (creating folders).
    pub fn write(&self, rel: &str, text: &str) -> Result<(), String> {
        write_file(&self.work.join(rel), text)
    }

    /// Writes `text` at `rel` under the home.
    pub fn write_home(&self, rel: &str, text: &str) -> Result<(), String> {
        write_file(&self.home.join(rel), text)
    }

    /// The product's hooks in the copy, as `hook install` writes them
    /// (opencode: the plugin line a user adds), the hooks running
    /// `hook_command` when it is known; the same in both arms.
    pub fn install_hooks(
        &self,
        agent: EvalAgent,
        hook_command: Option<&str>,
    ) -> Result<(), String> {
        if agent == EvalAgent::Opencode {
            let plugins = self.work.join(".opencode/plugin");
            let has = std::fs::read_dir(&plugins)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| {
                    std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("wave-memory-rules"))
                });
            return if has {
                Ok(())
            } else {
                self.write(
                    ".opencode/plugin/wave-memory-rules.js",
                    "export { WaveMemoryRules } from 'wave-memory-rules/opencode'\n",
                )
            };
        }
        let Some(hook_agent) = agent.hook_agent() else {
            return Ok(());
        };
        let global = GlobalArgs {
            workdir: Some(self.work.clone()),
            home: Some(self.home.clone()),
            ..GlobalArgs::default()
        };
        let options = InstallArgs {
            scope: ScopeArg::Project,
            command: hook_command.map(str::to_string),
            edit_distance: None,
        };
        let out = match Env::new(&global, None, false) {
            Ok(env) => crate::hook::install::install(&env, hook_agent, &options),
            Err(out) => out,
        };
        if out.code != 0 {
            return Err(format!(
                "hook install --agent {} failed: {}",
                hook_agent.as_str(),
                out.stderr.trim()
            ));
        }
        Ok(())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Makes `work` an empty git repository, as git takes one (`HEAD`,
/// `objects`, `refs`) and `git rev-parse --show-toplevel` names it, without
/// needing git.
fn init_repository(work: &Path) -> Result<(), String> {
    let git = work.join(".git");
    for dir in ["objects", "refs/heads", "refs/tags"] {
        std::fs::create_dir_all(git.join(dir))
            .map_err(|e| format!("cannot create {}: {e}", git.join(dir).display()))?;
    }
    write_file(&git.join("HEAD"), "ref: refs/heads/main\n")
}

/// The project's files as git sees them, within [`MAX_SCRATCH_FILES`] and
/// [`MAX_SCRATCH_BYTES`]; `.git`, `node_modules` and stored eval results
/// are left out.
fn copy_project(project: &Path, work: &Path) -> Result<(), String> {
    let walk = ignore::WalkBuilder::new(project)
        .hidden(false)
        .git_global(false)
        .require_git(false)
        .parents(false)
        .filter_entry(|e| {
            let name = e.file_name();
            name != ".git" && name != "node_modules" && !e.path().ends_with(".wave/evals/results")
        })
        .build();
    let (mut files, mut bytes) = (0usize, 0u64);
    for entry in walk {
        let entry = entry.map_err(|e| format!("cannot read the project: {e}"))?;
        let Ok(rel) = entry.path().strip_prefix(project) else {
            continue;
        };
        if rel.as_os_str().is_empty() {
            continue;
        }
        let to = work.join(rel);
        let kind = entry.file_type();
        if kind.is_some_and(|k| k.is_dir()) {
            std::fs::create_dir_all(&to)
                .map_err(|e| format!("cannot create {}: {e}", to.display()))?;
            continue;
        }
        files += 1;
        bytes += entry.metadata().map_or(0, |m| m.len());
        if files > MAX_SCRATCH_FILES || bytes > MAX_SCRATCH_BYTES {
            return Err(format!(
                "the project is too large to copy for a run: over {MAX_SCRATCH_FILES} files or {} MiB (MAX_SCRATCH_FILES, MAX_SCRATCH_BYTES); .gitignore what the agent does not need",
                MAX_SCRATCH_BYTES >> 20
            ));
        }
        copy_entry(entry.path(), &to, kind.is_some_and(|k| k.is_symlink()))?;
    }
    Ok(())
}

fn copy_entry(from: &Path, to: &Path, symlink: bool) -> Result<(), String> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    #[cfg(unix)]
    if symlink {
        let target = std::fs::read_link(from)
            .map_err(|e| format!("cannot read the link {}: {e}", from.display()))?;
        return std::os::unix::fs::symlink(target, to)
            .map_err(|e| format!("cannot link {}: {e}", to.display()));
    }
    let _ = symlink;
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

/// The project's `node_modules`, linked (not copied) into the work copy, so
/// the project's tools and the package's hooks and plugin resolve.
fn link_node_modules(project: &Path, work: &Path) {
    let modules = project.join("node_modules");
    #[cfg(unix)]
    if modules.is_dir() {
        let _ = std::os::unix::fs::symlink(&modules, work.join("node_modules"));
    }
    let _ = (modules, work);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_a_repository_of_its_own_without_the_projects_git() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("p");
        std::fs::create_dir_all(project.join(".git/refs")).unwrap();
        std::fs::write(project.join(".git/HEAD"), "ref: refs/heads/dev\n").unwrap();
        std::fs::write(project.join("a.ts"), "a").unwrap();
        let s = Scratch::create(&project, &[], &[], false).unwrap();
        assert!(memory_rules::sources::is_git_root(&s.work));
        let head = std::fs::read_to_string(s.work.join(".git/HEAD")).unwrap();
        assert_eq!(head, "ref: refs/heads/main\n", "not the project's own");
        assert_eq!(std::fs::read_to_string(s.work.join("a.ts")).unwrap(), "a");
        let git = std::process::Command::new("git")
            .args(["rev-parse", "--show-toplevel"])
            .current_dir(&s.work)
            .output();
        if let Ok(out) = git {
            let top = String::from_utf8_lossy(&out.stdout);
            let want = std::fs::canonicalize(&s.work).unwrap();
            assert_eq!(top.trim(), want.to_string_lossy(), "git names the copy");
        }
    }
}
