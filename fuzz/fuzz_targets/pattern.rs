//! A glob and a path (first line, second line): compile and match never
//! panic; the parser's work is linear; small patterns agree with the
//! reference matcher.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memory_rules::internals::matchers::glob_compile;

#[path = "../../crates/memory-rules/tests/oracle/mod.rs"]
mod oracle;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (pat, path) = text.split_once('\n').unwrap_or((text, "a/b.ts"));
    assert!(glob_compile::parse_steps(pat) <= 16 * pat.len() + 64, "parser work for {pat:?}");
    if let Ok(c) = glob_compile::compile(pat) {
        let got = c.is_match(path);
        if let Some(want) = oracle::glob_match(pat, path) {
            assert_eq!(got, want, "pattern {pat:?} path {path:?}");
        }
    }
});
