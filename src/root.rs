//! The core's project root (`project_root`) as `projectRoot`.

use memory_rules as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// A project root, as `projectRoot` finds it.
#[napi(object)]
pub struct ProjectRootInfo {
    /// The root directory (absolute).
    pub dir: String,
    /// The entry that marks it; absent when no directory at or above the
    /// start has one, and `dir` is the start directory itself.
    #[napi(ts_type = "'.wave' | '.claude' | '.git'")]
    pub marker: Option<String>,
}

/// The nearest directory at or above `dir` holding a project's `.wave`,
/// `.claude` or `.git` (a tool's user data folder so named, the home's
/// `.wave` and `.claude` too, does not count: docs/cli.md "The project
/// root"), else `dir`: the project root the CLI uses when no `--workdir` is
/// given.
#[napi(catch_unwind)]
pub fn project_root(dir: String, home_dir: Option<String>) -> Result<ProjectRootInfo> {
    let home = home_dir.map(std::path::PathBuf::from);
    let root = core::sources::project_root(std::path::Path::new(&dir), home.as_deref())
        .map_err(|e| Error::from_reason(format!("projectRoot({dir}): {e}")))?;
    Ok(ProjectRootInfo {
        dir: root.dir.to_string_lossy().into_owned(),
        marker: root.marker.map(str::to_string),
    })
}
