//! Telemetry in a long-lived process that is not ours (the addon in an SDK's
//! Node process): one [`InProcess`] per project and home, shared by every
//! road of the process (its conversations, its tool checks). Records are
//! held in the process ([`Telemetry::batched`]) and spooled every
//! `WATCH_INTERVAL` by one thread of our own, which ships the spool too,
//! each shipping run at most `TELEMETRY_SHIP_SECS` (the detached `telemetry
//! ship` a hook starts needs our executable, which Node is not). The
//! WebAssembly build has no HTTP client: its thread spools only.

use memory_rules::base::fs::state_dir;
use memory_rules::base::limits::{MAX_TELEMETRY_PROJECTS, WATCH_INTERVAL};
use memory_rules::delivery::telemetry::{Places, Telemetry};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// One project's telemetry in this process, and its thread once started.
pub struct InProcess {
    telemetry: Arc<Telemetry>,
    worker: OnceLock<()>,
}

/// The process's telemetries: (project, home as given, its telemetry), at
/// most `MAX_TELEMETRY_PROJECTS`: a short list, searched by borrowed paths
/// (no allocation on a message's way).
type Registry = Vec<(PathBuf, Option<PathBuf>, Arc<InProcess>)>;

fn registry() -> &'static Mutex<Registry> {
    static ALL: OnceLock<Mutex<Registry>> = OnceLock::new();
    ALL.get_or_init(|| Mutex::new(Vec::new()))
}

impl InProcess {
    /// The process's telemetry for `project` and `home` (the user's when
    /// `None`; the policy directory is the default one, as for the command
    /// line without flags); `None` past [`MAX_TELEMETRY_PROJECTS`] projects.
    pub fn of(project: &Path, home: Option<&Path>) -> Option<Arc<InProcess>> {
        let mut all = registry().lock().unwrap_or_else(|p| p.into_inner());
        let found = all
            .iter()
            .find(|(p, h, _)| p == project && h.as_deref() == home);
        if let Some((_, _, one)) = found {
            return Some(Arc::clone(one));
        }
        if all.len() >= MAX_TELEMETRY_PROJECTS {
            return None;
        }
        let given = home.map(Path::to_path_buf);
        let home = given.clone().or_else(crate::base::env::user_home);
        let state = state_dir(home.as_deref().unwrap_or(Path::new(".")));
        let places = Places {
            policy_dir: memory_rules::sources::packs::default_policy_dir(),
            project: Some(project.to_path_buf()),
            home,
        };
        let made = Arc::new(InProcess {
            telemetry: Arc::new(Telemetry::new(places, &state).batched()),
            worker: OnceLock::new(),
        });
        all.push((project.to_path_buf(), given, Arc::clone(&made)));
        Some(made)
    }

    /// What the roads record through (a responder's `telemetry`).
    pub fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }

    /// After a road recorded: starts the thread once, when telemetry is on
    /// (nothing, not even the settings read, before a record).
    pub fn recorded(&self) {
        if !self.telemetry.resolved().is_some_and(|s| s.enabled) {
            return;
        }
        self.worker.get_or_init(|| {
            let telemetry = Arc::clone(&self.telemetry);
            let _ = std::thread::Builder::new()
                .name("wave-rules-telemetry".into())
                .spawn(move || work(&telemetry));
        });
    }

    /// Spools every project's held records now (the process is ending).
    pub fn flush_all() {
        let all = registry().lock().unwrap_or_else(|p| p.into_inner());
        for (_, _, one) in all.iter() {
            one.telemetry.flush();
        }
    }
}

/// The thread: every `WATCH_INTERVAL`, the held records spooled, then a
/// shipping run when the spool holds unsent records (one at a time: this
/// thread; across processes, the core's ship lock).
fn work(telemetry: &Telemetry) {
    #[cfg(not(target_family = "wasm"))]
    let transport = super::transport::Http::new();
    loop {
        std::thread::sleep(WATCH_INTERVAL);
        telemetry.flush();
        #[cfg(not(target_family = "wasm"))]
        ship(telemetry, &transport);
    }
}

#[cfg(not(target_family = "wasm"))]
fn ship(telemetry: &Telemetry, transport: &super::transport::Http) {
    use memory_rules::base::limits::TELEMETRY_SHIP_SECS;
    let settings = telemetry.settings();
    if settings.unshippable || telemetry.spool().state().unsent_bytes == 0 {
        return;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(TELEMETRY_SHIP_SECS);
    let _ = memory_rules::delivery::telemetry::ship(
        telemetry.spool(),
        settings,
        transport,
        deadline,
        &std::thread::sleep,
    );
}
