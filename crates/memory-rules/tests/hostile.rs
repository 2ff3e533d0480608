//! Hostile inputs (issue 9): each one used to crash, hang or exhaust the
//! host. Every test asserts a limit diagnostic or a work bound, never a time.

mod common;
use common::*;
use memory_rules::internals::matchers::glob_compile::{self, PatternError};
use memory_rules::internals::matchers::topic_matcher::TopicMatcher;
use memory_rules::{Code, Severity};
use std::path::Path;

fn parse(text: &str) -> memory_rules::internals::rules::parser::Outcome {
    memory_rules::internals::rules::parser::parse_rule(
        memory_rules::Scope::Project,
        "r.md",
        Path::new("/x/r.md"),
        text,
    )
}

fn rule_with_paths(pattern: &str) -> memory_rules::internals::rules::parser::Outcome {
    parse(&format!("---\npaths:\n  - '{pattern}'\n---\nbody\n"))
}

/// Finding 1: braces nested 10,000 deep overflowed the stack (SIGSEGV).
#[test]
fn deeply_nested_braces_are_a_limit_not_a_stack_overflow() {
    let deep = "{a,".repeat(10_000) + "b" + &"}".repeat(10_000);
    assert!(matches!(
        glob_compile::compile(&deep),
        Err(PatternError::TooLong(_))
    ));
    // Under the length limit, still far past the depth limit.
    let deep = "{a,".repeat(1_000) + "b" + &"}".repeat(1_000);
    assert_eq!(
        glob_compile::compile(&deep).unwrap_err(),
        PatternError::TooDeep
    );
    let o = rule_with_paths(&deep);
    assert_eq!(o.diagnostics[0].code, Code::Limit, "{:?}", o.diagnostics);
    assert!(o.diagnostics[0].message.contains("limit"));
    assert!(glob_compile::parse_steps(&deep) < 64 * deep.len());
    // Real nesting still works.
    assert!(glob_compile::compile("{a,{b,{c,{d,e}}}}/*.ts").is_ok());
}

/// Finding 2: cubic scans (`[[:` repeated, 100,000 `[` or `{`).
#[test]
fn class_and_brace_scans_are_linear() {
    for unit in ["[[:", "[", "{", "[\\]", "{[", "[{", "[a-", "[!"] {
        let n = 4000 / unit.len();
        let p = unit.repeat(n);
        let steps = glob_compile::parse_steps(&p);
        assert!(
            steps < 16 * p.len(),
            "{unit:?} x {n}: {steps} steps for {} chars",
            p.len()
        );
        let _ = glob_compile::compile(&p);
    }
    for huge in [
        "[[:".repeat(2_500),
        "[".repeat(100_000),
        "{".repeat(100_000),
    ] {
        assert!(matches!(
            glob_compile::compile(&huge),
            Err(PatternError::TooLong(_))
        ));
    }
}

/// Findings 4 and 5: a padded range panicked (format width) or expanded to
/// gigabytes before the cap.
#[test]
fn brace_expansion_size_is_checked_before_expanding() {
    let p = format!("{{{}..1}}", "0".repeat(65_536));
    assert!(matches!(
        glob_compile::compile(&p),
        Err(PatternError::TooLong(_))
    ));
    let p = format!("{{{}..1023}}", "0".repeat(4_000));
    assert_eq!(
        glob_compile::compile(&p).unwrap_err(),
        PatternError::TooManyExpansions
    );
    let p = format!("{{{}..2}}", "0".repeat(4_000));
    assert_eq!(
        glob_compile::compile(&p).unwrap().matchers.len(),
        3,
        "a small padded range still works"
    );
    let alts: Vec<String> = (0..500).map(|i| i.to_string()).collect();
    let p = format!("{{1..1000}}x{{{}}}", alts.join(","));
    assert_eq!(
        glob_compile::compile(&p).unwrap_err(),
        PatternError::TooManyExpansions
    );
    let p = format!(
        "{{1..1000}}x{{{}}}",
        (0..20_000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    assert!(matches!(
        glob_compile::compile(&p),
        Err(PatternError::TooLong(_))
    ));
    // Leading alternates with empty options: the copies are counted.
    let p = "{,a}".repeat(1_000);
    assert_eq!(
        glob_compile::compile(&p).unwrap_err(),
        PatternError::TooManyExpansions
    );
    let o = rule_with_paths(&format!("{{{}..1023}}", "0".repeat(4_000)));
    assert_eq!(o.diagnostics[0].code, Code::Limit);
}

/// Finding 14: a range step of i64::MIN overflowed.
#[test]
fn extreme_range_steps_do_not_overflow() {
    for p in [
        "{1..3..-9223372036854775808}",
        "{3..1..-9223372036854775808}",
        "{-9223372036854775808..9223372036854775807}",
        "{a..z..-9223372036854775808}",
    ] {
        let _ = glob_compile::compile(p);
    }
    assert!(glob_compile::compile("f{3..1..-9223372036854775808}.ts")
        .unwrap()
        .is_match("f3.ts"));
}

/// Finding 4: one bad file emptied the whole rule set; now every file is
/// parsed on its own and the others load.
#[test]
fn one_hostile_file_never_hides_the_others() {
    let t = Tree::new();
    t.project("good.md", "---\npaths: src/**\n---\ngood");
    t.project(
        "bad.md",
        &format!("---\npaths:\n  - '{{{}..1}}'\n---\nbad", "0".repeat(65_536)),
    );
    t.project(
        "deep.md",
        &format!(
            "---\npaths:\n  - '{}b{}'\n---\nbad",
            "{a,".repeat(1_000),
            "}".repeat(1_000)
        ),
    );
    let loaded = t.load();
    let ids = ids(&loaded);
    assert!(ids.contains(&"project:good.md".to_string()), "{ids:?}");
    assert!(
        loaded
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::Limit)
            .count()
            >= 2,
        "{:?}",
        loaded.diagnostics
    );
}

/// Finding 8: the topic scan reported every overlapping occurrence: 599
/// topics `a`, `aa`, ... against a 1 MB prompt took 9.8 s.
#[test]
fn topic_scan_is_linear_in_the_prompt() {
    let topics: Vec<Vec<String>> = (1..=1000).map(|n| vec!["a".repeat(n)]).collect();
    let m = TopicMatcher::new(topics.iter().enumerate().map(|(i, t)| (i, t.as_slice())));
    let prompt = "a".repeat(1 << 20);
    let mut active = vec![false; topics.len()];
    m.activate(&prompt, &mut active);
    assert!(active.iter().all(|&a| a));
    // One hit per topic, not one per occurrence.
    assert_eq!(m.hits(&prompt).len(), 1000);
    let words = "a ".repeat(1 << 19);
    let hits = m.hits(&words);
    assert_eq!(hits.len(), 1, "only `a` starts a word");
    assert_eq!(hits[0].word, "a");
    let mut active = vec![false; topics.len()];
    m.activate(&words, &mut active);
    assert_eq!(active.iter().filter(|&&a| a).count(), 1);
}

/// Finding 11: 20,000 unknown keys, or 12,000 globs, were quadratic.
#[test]
fn key_and_pattern_counts_are_limits() {
    let keys: String = (0..20_000).map(|i| format!("k{i}: v\n")).collect();
    let o = parse(&format!("---\n{keys}---\nbody"));
    assert!(o.rule.is_none());
    assert_eq!(o.diagnostics.len(), 1);
    assert_eq!(
        (o.diagnostics[0].severity, o.diagnostics[0].code),
        (Severity::Error, Code::Limit)
    );
    let globs: String = (0..12_000).map(|i| format!("  - src/d{i}/**\n")).collect();
    let o = parse(&format!("---\npaths:\n{globs}---\nbody"));
    assert!(o.rule.is_none());
    assert_eq!(o.diagnostics[0].code, Code::Limit);
    let topics: String = (0..300).map(|i| format!("  - t{i}\n")).collect();
    let o = parse(&format!("---\ntopics:\n{topics}---\nbody"));
    assert_eq!(o.diagnostics[0].code, Code::Limit);
    // Under the limits, each pattern is still located on its own line.
    let globs: String = (0..500).map(|i| format!("  - '+(d{i})'\n")).collect();
    let o = parse(&format!("---\npaths:\n{globs}---\nbody"));
    let lines: Vec<u32> = o.diagnostics.iter().map(|d| d.line.unwrap()).collect();
    assert_eq!(lines, (3..503).collect::<Vec<u32>>());
    // A flow list on one line: columns still right.
    let o = parse("---\npaths: ['a/**', '+(x)', 'b/**', '+(y)']\n---\nbody");
    let cols: Vec<u32> = o.diagnostics.iter().map(|d| d.column.unwrap()).collect();
    assert_eq!(cols, [18, 34]);
}

/// Finding 12: 100,000 rule files in one directory were all read.
#[test]
fn rule_files_per_source_are_capped() {
    let t = Tree::new();
    let dir = t.project_rules();
    std::fs::create_dir_all(&dir).unwrap();
    let n = memory_rules::base::limits::MAX_RULE_FILES_PER_SOURCE + 5;
    for i in 0..n {
        std::fs::write(dir.join(format!("r{i:06}.md")), "x").unwrap();
    }
    let loaded = t.load();
    assert_eq!(
        loaded.rules.rules().len(),
        memory_rules::base::limits::MAX_RULE_FILES_PER_SOURCE
    );
    let limit: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::Limit)
        .collect();
    assert_eq!(limit.len(), 1);
    assert!(limit[0].message.contains("10000"), "{}", limit[0].message);
}

/// Finding 7: a file that turns into a FIFO hung the read; a link to
/// /dev/zero grew memory without bound.
#[cfg(unix)]
#[test]
fn reads_never_block_or_grow() {
    let t = Tree::new();
    let dir = t.project_rules();
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.md");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let d = memory_rules::internals::sources::discover::read(&fifo).unwrap_err();
    assert_eq!(d.code, Code::Unreadable);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.md")).unwrap();
    let d = memory_rules::internals::sources::discover::read(&dir.join("zero.md")).unwrap_err();
    assert_eq!(d.code, Code::Unreadable, "{d}");
    // The whole load goes on.
    t.project("ok.md", "fine");
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:ok.md"]);
}

/// Finding 14: an unsearchable `.wave` made every project rule vanish silently.
#[cfg(unix)]
#[test]
fn unsearchable_wave_directory_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    if unsafe { libc::geteuid() } == 0 {
        // Root searches anything: run this test again as `nobody`, which
        // cannot (CI runs as root, so this is the path CI takes).
        let exe = std::env::current_exe().unwrap();
        let status = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(exe)
            .args([
                "--exact",
                "unsearchable_wave_directory_is_reported",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("TMPDIR", std::env::temp_dir())
            .status()
            .expect("setpriv (util-linux) runs this test as an unprivileged user");
        assert!(status.success(), "the unprivileged run failed: {status}");
        return;
    }
    let t = Tree::new();
    t.project("a.md", "A");
    let wave = t.workdir().join(".wave");
    std::fs::set_permissions(&wave, std::fs::Permissions::from_mode(0o600)).unwrap();
    let loaded = t.load();
    std::fs::set_permissions(&wave, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(
        loaded
            .diagnostics
            .iter()
            .any(|d| d.code == Code::Unreadable),
        "{:?}",
        loaded.diagnostics
    );
}

/// Finding 14: invalid UTF-8 file names collapsed into one lossy id.
#[cfg(target_os = "linux")]
#[test]
fn invalid_utf8_file_names_get_no_colliding_ids() {
    use std::os::unix::ffi::OsStrExt;
    let t = Tree::new();
    t.project("ok.md", "fine");
    let dir = t.project_rules();
    for name in [&b"a\xff.md"[..], b"a\xfe.md"] {
        std::fs::write(dir.join(std::ffi::OsStr::from_bytes(name)), "x").unwrap();
    }
    let loaded = t.load();
    assert_eq!(ids(&loaded), ["project:ok.md"]);
    assert_eq!(
        loaded
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::NotUtf8)
            .count(),
        2
    );
}

/// Found by fuzzing (fuzz/ parse target): YAML counts a lone CR as a line
/// break, so a syntax error in a file with lone CRs pointed past its end.
#[test]
fn fuzz_regression_lone_carriage_returns() {
    let text = std::str::from_utf8(include_bytes!("regressions/parse-lone-cr.md")).unwrap();
    let o = parse(text);
    let lines = text.split('\n').count() as u32;
    assert!(!o.diagnostics.is_empty());
    for d in &o.diagnostics {
        assert!(
            d.line.is_none_or(|l| l >= 1 && l <= lines),
            "{d} (file has {lines} lines)"
        );
    }
}
