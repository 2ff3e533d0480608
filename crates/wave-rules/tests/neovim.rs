//! `wave-rules lsp` in a real client: Neovim, headless, with its built-in
//! LSP client (tests/neovim/diagnostics.lua). A broken rule shows its
//! diagnostic; the server's quick fix, applied by Neovim, clears it.
//! Skipped with one line when `nvim` is not on PATH, unless
//! `WAVE_NEOVIM_REQUIRED=1` (CI installs Debian's `neovim`), which fails.

mod common;

use common::{CliTree, Tree};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest the whole Neovim run may take.
const DEADLINE: Duration = Duration::from_secs(90);

fn nvim() -> Option<String> {
    let found = Command::new("nvim")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        });
    if found.is_none() {
        assert!(
            std::env::var("WAVE_NEOVIM_REQUIRED").as_deref() != Ok("1"),
            "WAVE_NEOVIM_REQUIRED=1 but nvim is not on PATH"
        );
    }
    found
}

#[test]
fn neovim_shows_a_broken_rules_diagnostic_and_none_after_the_quick_fix() {
    let Some(version) = nvim() else {
        eprintln!("skipped: nvim is not on PATH (Debian: apt-get install neovim)");
        return;
    };
    let t = Tree::made();
    let file = t.project(
        "ts.md",
        "---\npath: src/**/*.ts\n---\nUse strict TypeScript.\n",
    );
    let out = t.tmp.path().join("nvim.out");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/neovim/diagnostics.lua");
    let mut child = Command::new("nvim")
        .args(["--headless", "--clean", "-c"])
        .arg(format!("luafile {script}"))
        .env("WAVE_BIN", env!("CARGO_BIN_EXE_wave-rules"))
        .env("WAVE_WORKDIR", t.workdir())
        .env("WAVE_HOME", t.home())
        .env("WAVE_FILE", &file)
        .env("WAVE_OUT", &out)
        .env("HOME", t.home())
        .env("XDG_STATE_HOME", t.tmp.path().join("state"))
        .env("XDG_DATA_HOME", t.tmp.path().join("data"))
        .current_dir(t.workdir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "nvim ({version}) did not finish in {DEADLINE:?}: {:?}",
                std::fs::read_to_string(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    let lines: Vec<&str> = seen.lines().collect();
    assert_eq!(
        lines.first(),
        Some(&"diagnostics true"),
        "{version}: {seen}"
    );
    assert!(
        lines[1].starts_with(
            "diagnostic 1:0-4 misspelled-key unknown key 'path': did you mean 'paths'?"
        ),
        "{seen}"
    );
    assert!(
        lines.contains(&"action replace 'path' with 'paths'"),
        "{seen}"
    );
    assert!(lines.contains(&"line2 paths: src/**/*.ts"), "{seen}");
    assert_eq!(lines.last(), Some(&"cleared true"), "{seen}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "---\npath: src/**/*.ts\n---\nUse strict TypeScript.\n",
        "the fix is in the buffer, not saved"
    );
}
