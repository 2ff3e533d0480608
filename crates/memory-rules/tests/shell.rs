//! The files shell command lines read and write: a table of the forms agents
//! use, then the limits and bad input.

use memory_rules::internals::matchers::shell::{
    command_files, CommandWords, ShellError, MAX_COMMAND_BYTES, MAX_COMMAND_DEPTH,
    MAX_COMMAND_WORDS,
};

fn files(cmd: &str) -> (Vec<String>, Vec<String>) {
    let f = command_files(cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    (f.read, f.written)
}

#[test]
fn reads_and_writes_of_each_form() {
    // (command, files read, files written)
    let table: &[(&str, &[&str], &[&str])] = &[
        ("cat src/api/customers.ts", &["src/api/customers.ts"], &[]),
        ("cat a.ts b.ts", &["a.ts", "b.ts"], &[]),
        ("cat -n 'src/my file.ts'", &["src/my file.ts"], &[]),
        (
            "cat \"src/q.ts\" src/e\\ x.ts",
            &["src/q.ts", "src/e x.ts"],
            &[],
        ),
        ("head -n 40 src/a.ts", &["src/a.ts"], &[]),
        ("head -n40 src/a.ts", &["src/a.ts"], &[]),
        ("head --lines=40 src/a.ts", &["src/a.ts"], &[]),
        ("tail -f -n 5 logs/app.log", &["logs/app.log"], &[]),
        ("tail -5 src/a.ts", &["src/a.ts"], &[]),
        ("less src/a.ts", &["src/a.ts"], &[]),
        ("nl -ba src/a.ts", &["src/a.ts"], &[]),
        ("bat -l ts --line-range 1:20 src/a.ts", &["src/a.ts"], &[]),
        ("sed -n '1,80p' src/a.ts", &["src/a.ts"], &[]),
        (
            "sed -n 1,80p src/a.ts src/b.ts",
            &["src/a.ts", "src/b.ts"],
            &[],
        ),
        ("sed -e 's/a/b/' -e 's/c/d/' src/a.ts", &["src/a.ts"], &[]),
        (
            "sed -i 's/foo/bar/g' src/a.ts",
            &["src/a.ts"],
            &["src/a.ts"],
        ),
        (
            "sed -i.bak -e 's/foo/bar/' src/a.ts",
            &["src/a.ts"],
            &["src/a.ts"],
        ),
        ("awk '{print $1}' data/x.csv", &["data/x.csv"], &[]),
        (
            "awk -F, -v n=2 '{print $n}' data/x.csv",
            &["data/x.csv"],
            &[],
        ),
        (
            "awk -f prog.awk OFS=, data/x.csv",
            &["prog.awk", "data/x.csv"],
            &[],
        ),
        ("grep -n 'export function' src/a.ts", &["src/a.ts"], &[]),
        ("grep -rn TODO src/api", &["src/api"], &[]),
        (
            "grep -e foo -e bar src/a.ts src/b.ts",
            &["src/a.ts", "src/b.ts"],
            &[],
        ),
        ("grep -A 3 -C2 foo src/a.ts", &["src/a.ts"], &[]),
        ("rg -n 'fn main' src/main.rs", &["src/main.rs"], &[]),
        ("rg -g '*.ts' --type ts foo src/api", &["src/api"], &[]),
        ("rg --files src", &["src"], &[]),
        ("git show HEAD:src/a.ts", &["src/a.ts"], &[]),
        ("git show HEAD~2 -- src/a.ts", &["src/a.ts"], &[]),
        ("git show abc123", &[], &[]),
        ("git --no-pager diff src/a.ts", &["src/a.ts"], &[]),
        (
            "git diff HEAD~1..HEAD -- src/a.ts src/b.ts",
            &["src/a.ts", "src/b.ts"],
            &[],
        ),
        ("git diff main", &[], &[]),
        ("git blame src/a.ts", &["src/a.ts"], &[]),
        ("git blame -L 10,20 HEAD src/a.ts", &["src/a.ts"], &[]),
        ("git log -p -- src/a.ts", &["src/a.ts"], &[]),
        ("git -C sub show HEAD:x.ts", &["sub/x.ts"], &[]),
        ("diff src/a.ts src/b.ts", &["src/a.ts", "src/b.ts"], &[]),
        ("diff -u -U 5 old.ts new.ts", &["old.ts", "new.ts"], &[]),
        ("echo hi > out.txt", &[], &["out.txt"]),
        ("echo hi >> log/out.txt", &[], &["log/out.txt"]),
        ("echo hi >| out.txt", &[], &["out.txt"]),
        ("make &> build.log", &[], &["build.log"]),
        ("wc -l < src/a.ts", &["src/a.ts"], &[]),
        (
            "cat > src/new.ts <<'EOF'\nexport const x = 1;\nEOF",
            &[],
            &["src/new.ts"],
        ),
        (
            "echo x | tee out/a.txt out/b.txt",
            &[],
            &["out/a.txt", "out/b.txt"],
        ),
        ("echo x | tee -a out/a.txt", &[], &["out/a.txt"]),
        ("touch src/new.ts", &[], &["src/new.ts"]),
        ("cp src/a.ts src/b.ts", &["src/a.ts"], &["src/b.ts"]),
        (
            "cp -r src/a.ts src/b.ts dest",
            &["src/a.ts", "src/b.ts"],
            &["dest/a.ts", "dest/b.ts"],
        ),
        ("cp src/a.ts lib/", &["src/a.ts"], &["lib/a.ts"]),
        ("cp -t lib src/a.ts", &["src/a.ts"], &["lib/a.ts"]),
        ("mv old.ts src/new.ts", &[], &["src/new.ts"]),
        ("mv -f a.ts b.ts dir", &[], &["dir/a.ts", "dir/b.ts"]),
        // Lists, pipelines, subshells, substitutions.
        ("cat a.ts | grep foo", &["a.ts"], &[]),
        (
            "grep foo a.ts | sort | uniq > out.txt",
            &["a.ts"],
            &["out.txt"],
        ),
        (
            "cat a.ts && cat b.ts; head c.ts || tail d.ts",
            &["a.ts", "b.ts", "c.ts", "d.ts"],
            &[],
        ),
        (
            "(cat a.ts; cat b.ts) > both.txt",
            &["a.ts", "b.ts"],
            &["both.txt"],
        ),
        ("{ cat a.ts; } 2>/dev/null", &["a.ts"], &[]),
        ("echo $(cat VERSION)", &["VERSION"], &[]),
        ("X=$(head -1 a.ts) make", &["a.ts"], &[]),
        ("diff <(sort a.txt) <(sort b.txt)", &["a.txt", "b.txt"], &[]),
        ("if [ -f a.ts ]; then cat a.ts; fi", &["a.ts"], &[]),
        ("for f in x y; do cat b.ts; done", &["b.ts"], &[]),
        ("bash -lc 'cat src/a.ts'", &["src/a.ts"], &[]),
        ("sh -c \"sed -n 1,5p src/a.ts\"", &["src/a.ts"], &[]),
        ("sudo cat /etc/hosts", &["/etc/hosts"], &[]),
        ("env LANG=C grep -n foo src/a.ts", &["src/a.ts"], &[]),
        ("cd src && cat api/a.ts", &["src/api/a.ts"], &[]),
        ("cd src/api && cat ../b.ts", &["src/b.ts"], &[]),
        ("cd /abs && cat a.ts", &["/abs/a.ts"], &[]),
        ("(cd sub && cat a.ts); cat b.ts", &["sub/a.ts", "b.ts"], &[]),
        ("cd $DIR && cat a.ts", &[], &[]),
        // Not literal, not files, or nothing to read.
        ("cat $FILE", &[], &[]),
        ("cat src/*.ts", &[], &[]),
        ("cat ~/notes.md", &[], &[]),
        ("cat -", &[], &[]),
        ("grep foo", &[], &[]),
        ("ls -la src", &[], &[]),
        ("echo hi 2>&1 >/dev/null", &[], &[]),
        ("npm test", &[], &[]),
        ("cat a.ts a.ts", &["a.ts"], &[]),
        // Removed, truncated, overwritten: written.
        ("rm -f gen/a.ts gen/b.ts", &[], &["gen/a.ts", "gen/b.ts"]),
        ("unlink gen/a.ts", &[], &["gen/a.ts"]),
        ("truncate -s 0 logs/app.log", &[], &["logs/app.log"]),
        ("dd if=a.bin of=b.bin bs=1M", &["a.bin"], &["b.bin"]),
        (
            "perl -pi -e 's/a/b/' src/a.ts",
            &["src/a.ts"],
            &["src/a.ts"],
        ),
        ("perl -ne 'print' src/a.ts", &["src/a.ts"], &[]),
        // `bash -c` after a `cd` somewhere unknown: its files are not known.
        ("cd $DIR && bash -c 'echo x > a.ts'", &[], &[]),
    ];
    let mut failures = Vec::new();
    for (cmd, read, written) in table {
        let (r, w) = files(cmd);
        if r != *read || w != *written {
            failures.push(format!(
                "{cmd:?}: read {r:?} written {w:?}, expected read {read:?} written {written:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each simple command of a line, as `line()`, then `unwrapped()` where it differs.
fn commands(cmd: &str) -> Vec<String> {
    let f = command_files(cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    f.commands
        .iter()
        .map(|c: &CommandWords| {
            let (line, bare) = (c.line(), c.unwrapped());
            if line == bare {
                line
            } else {
                format!("{line} => {bare}")
            }
        })
        .collect()
}

#[test]
fn simple_commands_of_each_form() {
    // (command line, each simple command it runs)
    let table: &[(&str, &[&str])] = &[
        (
            "git push --force origin main",
            &["git push --force origin main"],
        ),
        (
            "git add . && git commit -m 'a b' ; git push -f",
            &["git add .", "git commit -m a b", "git push -f"],
        ),
        (
            "cat a | grep -v x | wc -l",
            &["cat a", "grep -v x", "wc -l"],
        ),
        ("echo x > out.txt 2>&1", &["echo x"]),
        ("FOO=1 BAR=2 make test", &["make test"]),
        ("sudo rm -rf /", &["sudo rm -rf / => rm -rf /"]),
        (
            "env A=1 /usr/bin/git push",
            &["env A=1 /usr/bin/git push => git push"],
        ),
        ("nice -n 5 xargs rm", &["nice -n 5 xargs rm => rm"]),
        ("rm -rf $DIR/*", &["rm -rf $DIR/*"]),
        // A substitution runs before the command holding it.
        (
            "echo $(git push --force)",
            &["git push --force", "echo $(git push --force)"],
        ),
        ("timeout 10 git push", &["timeout 10 git push => git push"]),
        (
            "bash -lc 'psql -U customer_rw prod'",
            &[
                "bash -lc psql -U customer_rw prod",
                "psql -U customer_rw prod",
            ],
        ),
        (
            "cd $DIR && sh -c 'rm -rf build'",
            &["cd $DIR", "sh -c rm -rf build", "rm -rf build"],
        ),
        ("(cd sub && make) || exit 1", &["cd sub", "make", "exit 1"]),
        ("if true; then git push; fi", &["true", "git push"]),
        ("f() { rm -rf /; }", &[]),
        ("diff <(sort a) b", &["sort a", "diff <(...) b"]),
        ("awk -v n=2 '{print}' f", &["awk -v n=2 {print} f"]),
    ];
    let mut failures = Vec::new();
    for (cmd, want) in table {
        let got = commands(cmd);
        if got != *want {
            failures.push(format!("{cmd:?}: {got:?}, expected {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn limits_are_checked_before_parsing() {
    let long = format!("cat {}", "a".repeat(MAX_COMMAND_BYTES));
    assert!(matches!(
        command_files(&long),
        Err(ShellError::TooLong { .. })
    ));
    let many = "cat a ".repeat(MAX_COMMAND_WORDS);
    assert!(matches!(
        command_files(&many),
        Err(ShellError::TooManyWords { .. })
    ));
    let deep = format!(
        "{}cat a.ts{}",
        "{ ".repeat(MAX_COMMAND_DEPTH + 1),
        "; }".repeat(MAX_COMMAND_DEPTH + 1)
    );
    assert!(matches!(
        command_files(&deep),
        Err(ShellError::TooDeep { .. })
    ));
    // Just under the nesting limit still parses.
    let ok = format!(
        "{}cat a.ts{}",
        "{ ".repeat(MAX_COMMAND_DEPTH),
        "; }".repeat(MAX_COMMAND_DEPTH)
    );
    assert_eq!(files(&ok).0, ["a.ts"]);
    // Nested substitutions count towards the same depth.
    let substitutions = |n: usize| format!("echo {}cat a.ts{}", "$(".repeat(n), ")".repeat(n));
    assert_eq!(files(&substitutions(MAX_COMMAND_DEPTH - 1)).0, ["a.ts"]);
    assert!(matches!(
        command_files(&substitutions(MAX_COMMAND_DEPTH + 1)),
        Err(ShellError::TooDeep { .. })
    ));
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    for cmd in [
        "cat 'unterminated",
        "if then fi",
        "cat a.ts |",
        "((",
        "cat <",
        "-\u{e9}x a",
    ] {
        match command_files(cmd) {
            Ok(_) | Err(ShellError::Syntax(_)) => {}
            Err(e) => panic!("{cmd:?}: {e}"),
        }
    }
    let err = command_files("cat 'unterminated").unwrap_err();
    assert!(err.to_string().contains("does not parse"), "{err}");
    // Odd options never slice a character in two.
    assert_eq!(files("head -\u{e9}5 a.ts").0, ["a.ts"]);
}
