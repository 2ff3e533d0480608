//! `wave-rules`: the binary. All behaviour is in the library's `run`, which
//! the Node package calls too, so both print the same bytes.

fn main() {
    let out = wave_rules::run(std::env::args_os());
    use std::io::Write;
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    std::process::exit(out.code);
}
