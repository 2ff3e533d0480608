//! One rule file's text through the parser: never a panic, locations in range.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memory_rules::Scope;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let o = memory_rules::internals::rules::parser::parse_rule(Scope::Project, "r.md", Path::new("/x/r.md"), text);
    let lines = text.split('\n').count() as u32 + 1;
    for d in &o.diagnostics {
        if let Some(l) = d.line {
            assert!(l >= 1 && l <= lines, "{d}");
        }
    }
});
