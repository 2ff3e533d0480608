//! The shipper: `wave-rules telemetry ship`, started by a hook as a detached
//! child (its own process group, no stdin/stdout/stderr) at a session's
//! start and at each stop, so the records go within seconds of a session's
//! end with no command run by hand. It ships for at most
//! `TELEMETRY_SHIP_SECS` (`--seconds`) and exits; one runs at a time (the
//! core's ship lock), a second one exits at once. The one a hook starts
//! lingers (`--linger TELEMETRY_LINGER_SECS`): once the spool is shipped it
//! waits that long for the session's next records, holding the spool's
//! shipper lock, and a hook that finds that lock held starts none (a start
//! is a process spawn, the most a hook pays for telemetry).

use memory_rules::delivery::telemetry::{Places, Telemetry};
use std::path::Path;

/// Starts `telemetry ship` in `project`, detached, unless telemetry is off,
/// its settings cannot ship or the spool is empty: at a session's end (a
/// hook's start or stop, the MCP server's end and now and then while it
/// runs, a command that wrote a note). Only from the native executable
/// (never inside Node or WebAssembly).
pub fn start(telemetry: &Telemetry, project: &Path, home: Option<&Path>) {
    if !telemetry.enabled()
        || telemetry.settings().unshippable
        || telemetry.spool().state().unsent_bytes == 0
        || telemetry.spool().shipper_running()
    {
        return;
    }
    spawn(project, home);
}

#[cfg(unix)]
fn spawn(project: &Path, home: Option<&Path>) {
    use std::os::unix::process::CommandExt;
    // Only the `wave-rules` executable starts it (never Node running the addon).
    let Some(exe) = std::env::current_exe().ok().filter(|p| {
        p.file_stem()
            .is_some_and(|s| s.to_string_lossy().starts_with("wave-rules"))
    }) else {
        return;
    };
    let mut command = std::process::Command::new(exe);
    command.arg("--workdir").arg(project);
    if let Some(home) = home {
        command.arg("--home").arg(home);
    }
    let linger = memory_rules::base::limits::TELEMETRY_LINGER_SECS.to_string();
    let _ = command
        .args(["telemetry", "ship", "--linger", &linger])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn();
}

#[cfg(not(unix))]
fn spawn(_project: &Path, _home: Option<&Path>) {}

/// `telemetry ship`: ships the spool of this user for this project's
/// settings for at most `seconds` (and, with `linger`, waits that long for
/// more records once it is shipped); one line on stdout saying what happened.
#[cfg(not(target_family = "wasm"))]
pub fn run(
    places: &Places,
    state_dir: &Path,
    seconds: u64,
    linger: u64,
) -> crate::base::env::Output {
    use memory_rules::delivery::telemetry::{ship, Outcome, Shipped, Spool};
    use std::time::{Duration, Instant};
    let settings =
        memory_rules::delivery::telemetry::Settings::resolve(places, &|k| std::env::var(k).ok());
    let spool = Spool::in_state_dir(state_dir);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let transport = super::transport::Http::new();
    let shipping = || ship(&spool, &settings, &transport, deadline, &std::thread::sleep);
    let held = if linger > 0 {
        spool.hold_shipper()
    } else {
        None
    };
    let mut run = shipping();
    if let Some(lock) = held {
        let (mut records, mut requests) = (0, 0);
        while let Ok(r) = &run {
            if r.outcome != Outcome::Done || !wait_for_records(&spool, deadline, linger) {
                break;
            }
            (records, requests) = (records + r.records, requests + r.requests);
            run = shipping();
        }
        // Let go, then look once more: a hook that found the lock held
        // appended its records before it looked.
        drop(lock);
        if let Ok(r) = &run {
            if r.outcome == Outcome::Done && spool.state().unsent_bytes > 0 {
                (records, requests) = (records + r.records, requests + r.requests);
                run = shipping();
            }
        }
        run = run.map(|last| Shipped {
            records: records + last.records,
            requests: requests + last.requests,
            outcome: last.outcome,
        });
    }
    match run {
        Ok(run) => crate::base::env::Output {
            stdout: format!(
                "shipped {} records in {} requests: {:?}\n",
                run.records, run.requests, run.outcome
            ),
            stderr: settings.problems.iter().map(|p| format!("{p}\n")).collect(),
            code: 0,
        },
        Err(e) => crate::base::env::Output::fail(
            crate::base::env::EXIT_TROUBLE,
            format!("telemetry: {}: {e}", spool.dir().display()),
        ),
    }
}

/// Waits, polling every `WATCH_INTERVAL`, up to `linger` seconds (not past
/// `deadline`) for unsent records; true when some came.
#[cfg(not(target_family = "wasm"))]
fn wait_for_records(
    spool: &memory_rules::delivery::telemetry::Spool,
    deadline: std::time::Instant,
    linger: u64,
) -> bool {
    use memory_rules::base::limits::WATCH_INTERVAL;
    let until = deadline.min(std::time::Instant::now() + std::time::Duration::from_secs(linger));
    while std::time::Instant::now() + WATCH_INTERVAL < until {
        std::thread::sleep(WATCH_INTERVAL);
        if spool.state().unsent_bytes > 0 {
            return true;
        }
    }
    false
}

/// The WebAssembly build has no HTTP client: the records stay spooled.
#[cfg(target_family = "wasm")]
pub fn run(
    _places: &Places,
    _state_dir: &Path,
    _seconds: u64,
    _linger: u64,
) -> crate::base::env::Output {
    crate::base::env::Output::fail(
        crate::base::env::EXIT_TROUBLE,
        "the WebAssembly build only spools telemetry; run the native wave-rules to ship it",
    )
}
