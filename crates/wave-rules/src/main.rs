//! `wave-rules`: the binary. All behaviour is in the library's `run`, which
//! the Node package calls too, so both print the same bytes.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let is_hook = args.get(1).is_some_and(|a| a == "hook");
    // This process exits after one command.
    wave_rules::exits_after_command();
    if is_hook {
        // A hook never fails the agent's turn: a panic is one stderr line and exit 0.
        std::panic::set_hook(Box::new(|info| {
            let message = info.to_string().replace('\n', " ");
            eprintln!("wave-rules hook: internal error: {message}");
        }));
    }
    let result = std::panic::catch_unwind(|| {
        wave_rules::run_with_input(args, || {
            use std::io::Read;
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .take(wave_rules::MAX_HOOK_INPUT_BYTES as u64 + 1)
                .read_to_end(&mut bytes)?;
            Ok(bytes)
        })
    });
    let out = match result {
        Ok(out) => out,
        Err(_) => std::process::exit(if is_hook { 0 } else { 101 }),
    };
    use std::io::Write;
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    std::process::exit(out.code);
}
