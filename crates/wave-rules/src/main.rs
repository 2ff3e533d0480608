//! `wave-rules`: the binary. All behaviour is in the library's `run`, which
//! the Node package calls too, so both print the same bytes.

fn main() {
    let out = wave_rules::run_with_input(std::env::args_os(), || {
        use std::io::Read;
        let mut bytes = Vec::new();
        std::io::stdin().lock().take(wave_rules::MAX_HOOK_INPUT_BYTES as u64 + 1).read_to_end(&mut bytes)?;
        Ok(bytes)
    });
    use std::io::Write;
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    std::process::exit(out.code);
}
