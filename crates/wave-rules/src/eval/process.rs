//! A child process run to completion within a time limit, in a process
//! group of its own that is killed afterwards (whatever it left behind),
//! its output kept up to [`MAX_AGENT_OUTPUT_BYTES`].

use super::MAX_AGENT_OUTPUT_BYTES;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How a process ended.
#[derive(Debug, Clone)]
pub struct Finished {
    /// Its exit code; `None` when it was killed (or by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub elapsed: Duration,
}

/// What to run: program, arguments, working directory and the whole environment.
pub struct Job<'a> {
    pub program: &'a Path,
    pub args: &'a [String],
    pub cwd: &'a Path,
    pub env: &'a [(String, String)],
    pub timeout: Duration,
}

/// Runs `job` with standard input closed; an error when it cannot start.
pub fn run(job: &Job) -> Result<Finished, String> {
    let mut command = Command::new(job.program);
    command
        .args(job.args)
        .current_dir(job.cwd)
        .env_clear()
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", job.program.display()))?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= job.timeout => {
                timed_out = true;
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    kill_group(child.id());
    let _ = child.kill();
    let status = status.or_else(|| child.wait().ok());
    // Output: what the pipes gave before they closed, or within a second
    // after the group was killed (a process that left the group may hold them).
    let wait = Duration::from_secs(1);
    Ok(Finished {
        code: status.and_then(|s| s.code()),
        stdout: stdout.recv_timeout(wait).unwrap_or_default(),
        stderr: stderr.recv_timeout(wait).unwrap_or_default(),
        timed_out,
        elapsed: started.elapsed(),
    })
}

/// Reads a pipe to its end in a thread, keeping its first bytes.
fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let room = MAX_AGENT_OUTPUT_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
        let _ = tx.send(String::from_utf8_lossy(&kept).into_owned());
    });
    rx
}

/// Kills the process group `pid` leads (the agent and whatever it started).
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: killpg has no memory effects; a group that is gone is ESRCH.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Finished {
        let args = vec!["-c".to_string(), script.to_string()];
        let env = vec![(
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        )];
        run(&Job {
            program: Path::new("sh"),
            args: &args,
            cwd: Path::new("/"),
            env: &env,
            timeout,
        })
        .unwrap()
    }

    #[test]
    fn a_process_that_overstays_is_killed_with_its_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("pid");
        // A child in the background that would outlive its parent.
        let script = format!("sleep 30 & echo $! > {}; wait", marker.display());
        let done = sh(&script, Duration::from_millis(500));
        assert!(done.timed_out && done.code.is_none());
        let pid: i32 = std::fs::read_to_string(&marker)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: signal 0 only asks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid);
        assert!(!alive, "the background sleep {pid} outlived the run");
    }

    fn is_zombie(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z "))
    }

    #[test]
    fn output_and_exit_code_are_kept() {
        let done = sh("echo out; echo err >&2; exit 3", Duration::from_secs(10));
        assert_eq!(
            (
                done.code,
                done.stdout.as_str(),
                done.stderr.as_str(),
                done.timed_out
            ),
            (Some(3), "out\n", "err\n", false)
        );
    }
}
