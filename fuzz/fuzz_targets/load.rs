//! A whole load: the input is split at NUL into rule files (written to a
//! temp project, the first path segment of each file's first line naming a
//! subdirectory when it ends in '/'), then discovered, parsed, compiled and
//! matched. Never a panic; every file is a rule or a diagnostic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(tmp) = tempfile::tempdir() else { return };
    let rules = tmp.path().join(".wave/rules");
    let _ = std::fs::create_dir_all(rules.join("sub"));
    let files: Vec<&str> = text.split('\0').take(16).collect();
    for (i, f) in files.iter().enumerate() {
        let dir = if i % 3 == 2 { rules.join("sub") } else { rules.clone() };
        let _ = std::fs::write(dir.join(format!("r{i}.md")), f);
    }
    let loaded = memory_rules::load(&memory_rules::sources::Config::with_home(tmp.path(), tmp.path().join("home")));
    let set = &loaded.rules;
    assert!(set.rules().len() <= files.len());
    let _ = set.active(&["src/a.ts", "sub/b.md", ".env"], Some(text));
    let _ = set.explain(&["src/a.ts"], Some(text));
});
