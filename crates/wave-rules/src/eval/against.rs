//! `--against REF`: a rule's text at a git ref of the project, read with
//! the `git` program (the project's own repository, nothing fetched).

use std::path::Path;
use std::process::{Command, Stdio};

/// The commit `at` names in the project's repository, or an error naming
/// the ref and what git said.
pub fn resolve(project: &Path, at: &str) -> Result<String, String> {
    if at.starts_with('-') {
        return Err(format!("--against '{at}': not a git ref"));
    }
    let out = Command::new("git")
        .arg("-C")
        .arg(project)
        .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{at}^{{commit}}"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("--against '{at}': cannot run git: {e}"))?;
    let sha = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || sha.is_empty() {
        let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(format!(
            "--against '{at}': no such commit in the git repository of {}{}",
            project.display(),
            if said.is_empty() {
                String::new()
            } else {
                format!(" (git: {said})")
            }
        ));
    }
    Ok(sha)
}

/// The text of `rel` (a path in the project) at commit `at`; `None` when
/// it is absent there.
pub fn text_at(project: &Path, at: &str, rel: &str) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(project)
        .args(["show", &format!("{at}:./{rel}")])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}
