//! Rules that enforce: a rule with `enforce: block` or `enforce: warn`
//! governs the writes to the files of its `paths` and the shell commands its
//! `commands` patterns match.
//!
//! ```text
//! ---
//! paths: "src/generated/**"
//! enforce: block
//! ---
//! Generated files are rebuilt by `npm run gen`; never edit them by hand.
//! ```
//!
//! A road asks before a tool runs: the files the call would write (a file
//! tool's path, the written side of a shell line, an `apply_patch`'s files)
//! and the simple commands of its shell line ([`crate::matchers::shell`]) go to
//! [`RuleSet::enforced_writes`] and [`RuleSet::enforced_commands`] (or both
//! at once, for a shell line, [`check_shell`]). The [`Verdict`] lists every
//! rule hit, blocks first; [`reason`] is the text the model reads: why the
//! call was refused (`block`), or the rules it should heed (`warn`, the call
//! runs). A rule is checked by its triggers alone: whether it was delivered
//! to the conversation, or is active there, does not matter.
//!
//! **Command patterns.** Each simple command of a line is matched on its own
//! (a line `a && b | c` is three commands, those inside `$(...)` and `bash
//! -c '...'` too), as its words joined with single spaces, the way the
//! command gets them (quotes removed; a word the shell would expand, `$DIR`,
//! `*.ts`, as written), and again without the wrappers in front (`sudo`,
//! `env A=1`, `nice`, `timeout 10`, `xargs`) with the program by its base
//! name (`/usr/bin/git` is `git`). A pattern matches the whole of one of
//! them: `*` is any run of characters (spaces included), `?` one character,
//! `\` makes the next character literal; everything else is itself, case
//! and all.
//!
//! | pattern | matches | does not match |
//! | --- | --- | --- |
//! | `git push --force*` | `git push --force`, `git push --force-with-lease origin` | `git push origin --force` |
//! | `git push*--force*` | `git push origin main --force` | `git pull --force` |
//! | `rm -rf /*` | `rm -rf /`, `sudo rm -rf /home` | `rm -rf build` |
//! | `psql*customer_rw*` | `psql -U customer_rw prod` | `psql -U reader prod` |
//!
//! Bounded: at most [`MAX_COMMANDS_PER_RULE`] patterns per rule, each at
//! most [`MAX_COMMAND_PATTERN_CHARS`] characters (checked when the rule is
//! parsed); every pattern of a set is compiled once into one automaton
//! ([`CommandMatcher`]), so a check is one pass per simple command.

pub use crate::base::limits::{MAX_COMMANDS_PER_RULE, MAX_COMMAND_PATTERN_CHARS};
pub use crate::matchers::command_matcher::{pattern_regex, CommandMatcher};
use crate::matchers::shell::{CommandWords, ShellError};
use crate::rules::rule::Enforce;
use crate::rules::rule_set::RuleSet;

/// What a rule's enforcement was triggered by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnforcedAction {
    /// A write to this file (as the road gave it).
    Write(String),
    /// This simple command (its words joined), matched by this pattern.
    Command { command: String, pattern: String },
}

/// One enforced rule a tool call triggers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnforcedHit {
    /// The rule's index in the set.
    pub rule: usize,
    pub enforce: Enforce,
    pub action: EnforcedAction,
}

/// Every enforced rule one tool call triggers: the blocking ones first, then
/// in rule order, one hit per rule (the first action that triggered it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    pub hits: Vec<EnforcedHit>,
    /// Why part of the call could not be checked (a command line over the
    /// parser's limits, or not shell): it is let through, and the road says
    /// so where a person sees it.
    pub unchecked: Vec<String>,
}

impl Verdict {
    fn new(mut hits: Vec<EnforcedHit>) -> Verdict {
        let mut seen = Vec::new();
        hits.retain(|h| {
            let new = !seen.contains(&h.rule);
            seen.push(h.rule);
            new
        });
        hits.sort_by_key(|h| (h.enforce != Enforce::Block, h.rule));
        Verdict {
            hits,
            unchecked: Vec::new(),
        }
    }

    /// Whether the call is refused (some rule says `block`).
    pub fn blocks(&self) -> bool {
        self.hits.iter().any(|h| h.enforce == Enforce::Block)
    }

    /// Whether no enforced rule governs the call.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// The rules hit, in the verdict's order.
    pub fn rules(&self) -> Vec<usize> {
        self.hits.iter().map(|h| h.rule).collect()
    }
}

impl RuleSet {
    /// The enforced rules whose `paths` match a file among `files` (each the
    /// way a tool names it: relative to the workdir, or absolute), whether
    /// or not the rule is active in any conversation.
    pub fn enforced_writes<S: AsRef<str>>(&self, files: &[S]) -> Verdict {
        let mut hits = Vec::new();
        if !self.rules().iter().any(|r| r.metadata.enforce.is_some()) {
            return Verdict::default();
        }
        for file in files {
            let mut on = vec![false; self.rules().len()];
            self.activate_paths(&[file.as_ref()], &mut on);
            for (i, rule) in self.rules().iter().enumerate() {
                let Some(enforce) = rule.metadata.enforce else {
                    continue;
                };
                if on[i] && rule.metadata.paths.is_some() {
                    hits.push(EnforcedHit {
                        rule: i,
                        enforce,
                        action: EnforcedAction::Write(file.as_ref().to_string()),
                    });
                }
            }
        }
        Verdict::new(hits)
    }

    /// The enforced rules one of whose `commands` matches one of these
    /// simple commands (see the module's table).
    pub fn enforced_commands(&self, commands: &[CommandWords]) -> Verdict {
        let matcher = self.command_matcher();
        if matcher.is_empty() {
            return Verdict::default();
        }
        let mut hits = Vec::new();
        let mut found = Vec::new();
        for command in commands {
            let line = command.line();
            let bare = command.unwrapped();
            found.clear();
            matcher.matching(&line, &mut found);
            if bare != line {
                matcher.matching(&bare, &mut found);
            }
            for &(rule, pattern) in &found {
                let rule = rule as usize;
                let Some(enforce) = self.rules()[rule].metadata.enforce else {
                    continue;
                };
                hits.push(EnforcedHit {
                    rule,
                    enforce,
                    action: EnforcedAction::Command {
                        command: line.clone(),
                        pattern: matcher.owners[pattern].1.clone(),
                    },
                });
            }
        }
        Verdict::new(hits)
    }

    /// Whether any rule of the set enforces anything (a road skips its
    /// before-tool work when none does).
    pub fn has_enforced_rules(&self) -> bool {
        self.rules().iter().any(|r| r.metadata.enforce.is_some())
    }
}

/// A tool call's verdict from the files it would write and the simple
/// commands it would run.
pub fn check<S: AsRef<str>>(set: &RuleSet, written: &[S], commands: &[CommandWords]) -> Verdict {
    let mut hits = set.enforced_writes(written).hits;
    hits.extend(set.enforced_commands(commands).hits);
    Verdict::new(hits)
}

/// A shell line's verdict: the files it writes (relative ones taken from
/// `cwd` when given) and the commands it runs. A line the parser refuses
/// (over a limit, not shell) is an error: the road decides (a hook lets it
/// run and says why; see the hook's docs).
pub fn check_shell(
    set: &RuleSet,
    line: &str,
    cwd: Option<&std::path::Path>,
) -> Result<Verdict, ShellError> {
    let parsed = crate::matchers::shell::command_files(line)?;
    let written: Vec<String> = parsed
        .written
        .into_iter()
        .map(|f| match cwd {
            Some(base) if !f.starts_with('/') => base.join(&f).to_string_lossy().into_owned(),
            _ => f,
        })
        .collect();
    Ok(check(set, &written, &parsed.commands))
}

/// What the model reads of a verdict, at most `max_bytes` (whole lines):
/// for a refusal, which call was refused and each rule that refused it, in
/// full (`[id] text`); for a warning, the same heading with "allowed". A rule
/// among `short` (its full text is beside this one), or one that does not
/// fit, is one line: its `summary` or first line. Empty for an empty verdict.
pub fn reason(set: &RuleSet, verdict: &Verdict, max_bytes: usize, short: &[usize]) -> String {
    let Some(first) = verdict.hits.first() else {
        return String::new();
    };
    // A file under the workdir by its project path, as the rules name it.
    let what = |a: &EnforcedAction| match a {
        EnforcedAction::Write(file) => {
            format!("writing {}", set.normalize(file).unwrap_or(file.into()))
        }
        EnforcedAction::Command { command, .. } => format!("running `{command}`"),
    };
    let mut out = if verdict.blocks() {
        format!(
            "Refused by the project's rules: {} is not allowed.\n",
            what(&first.action)
        )
    } else {
        format!(
            "Allowed, with a warning from the project's rules about {}:\n",
            what(&first.action)
        )
    };
    for hit in &verdict.hits {
        let rule = &set.rules()[hit.rule];
        let why = match &hit.action {
            EnforcedAction::Write(_) => String::new(),
            EnforcedAction::Command { pattern, .. } => format!(" (matches `{pattern}`)"),
        };
        let entry = format!("[{}]{why} {}\n", rule.id, rule.content.trim());
        if short.contains(&hit.rule) || out.len() + entry.len() > max_bytes {
            let line = format!(
                "[{}]{why} {}\n",
                rule.id,
                rule.metadata.short(&rule.content)
            );
            if out.len() + line.len() <= max_bytes {
                out.push_str(&line);
            }
            continue;
        }
        out.push_str(&entry);
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::diagnostic::Code;
    use crate::base::limits::MAX_SUMMARY_CHARS;
    use crate::base::workdir::Workdir;
    use crate::rules::parser::{parse_rule, Outcome};
    use crate::rules::rule::Scope;
    use std::path::Path;

    fn parse(text: &str) -> Outcome {
        parse_rule(
            Scope::Project,
            "r.md",
            Path::new("/w/.wave/rules/r.md"),
            text,
        )
    }

    /// A set of `(id, text)` rules in the workdir `/w`.
    fn set(rules: &[(&str, &str)]) -> RuleSet {
        let parsed = rules
            .iter()
            .map(|(id, text)| {
                parse_rule(Scope::Project, id, Path::new(id), text)
                    .rule
                    .unwrap_or_else(|| panic!("{id} did not load"))
            })
            .collect();
        RuleSet::build(parsed, Workdir::new(Path::new("/w")))
    }

    fn commands(line: &str) -> Vec<CommandWords> {
        crate::matchers::shell::command_files(line)
            .unwrap()
            .commands
    }

    macro_rules! matches_command {
        ($($pattern:expr, $line:expr => $want:expr;)*) => {{
            let mut failures = Vec::new();
            $(
                let s = set(&[("c.md", &format!("---\ncommands: [\"{}\"]\nenforce: block\n---\nNo.\n", $pattern))]);
                let got = !s.enforced_commands(&commands($line)).is_empty();
                if got != $want {
                    failures.push(format!("{:?} on {:?}: {got}, expected {}", $pattern, $line, $want));
                }
            )*
            assert!(failures.is_empty(), "{}", failures.join("\n"));
        }};
    }

    #[test]
    fn command_patterns_match_each_simple_command_whole() {
        matches_command! {
            "git push --force*", "git push --force" => true;
            "git push --force*", "git push --force-with-lease origin" => true;
            "git push --force*", "git push origin --force" => false;
            "git push*--force*", "git push origin main --force" => true;
            "git push*--force*", "git pull --force" => false;
            "rm -rf /*", "rm -rf /" => true;
            "rm -rf /*", "sudo rm -rf /home" => true;
            "rm -rf /*", "rm -rf build" => false;
            "psql*customer_rw*", "psql -U customer_rw prod" => true;
            "psql*customer_rw*", "psql -U reader prod" => false;
            // Each command of a line, substitutions and `bash -c` included.
            "git push --force*", "npm test && git push --force" => true;
            "git push --force*", "echo $(git push --force)" => true;
            "git push --force*", "bash -lc 'git push --force'" => true;
            "git push --force*", "cat notes | grep 'git push --force'" => false;
            // The program by its base name, past the wrappers; or as written.
            "git push*", "/usr/bin/git push" => true;
            "git push*", "env GIT_SSH=x nice -n 5 git push" => true;
            "sudo rm*", "sudo rm -rf x" => true;
            // Quotes removed; expansions as written; `?` and `\\*`.
            "git commit -m wip*", "git commit -m 'wip: x'" => true;
            "rm -rf $HOME*", "rm -rf $HOME/x" => true;
            "rm ?", "rm a" => true;
            "rm ?", "rm ab" => false;
            "echo \\\\*", "echo *" => true;
            "echo \\\\*", "echo x" => false;
            // Case and spacing are the command's own.
            "GIT PUSH*", "git push" => false;
        }
    }

    #[test]
    fn writes_are_checked_against_enforced_paths_only() {
        let s = set(&[
            ("gen.md", "---\npaths: gen/**\nenforce: block\n---\nGenerated files are rebuilt by `npm run gen`.\n"),
            ("api.md", "---\npaths: src/api/**\nenforce: warn\nsummary: API handlers validate input.\n---\nAPI handlers validate input.\nUse zod.\n"),
            ("ts.md", "---\npaths: src/**/*.ts\n---\nStrict TS.\n"),
            ("always.md", "Keep functions small.\n"),
        ]);
        let v = s.enforced_writes(&["gen/a.ts"]);
        assert!(v.blocks());
        assert_eq!(v.hits.len(), 1);
        assert_eq!(s.rules()[v.hits[0].rule].id, "gen.md");
        assert_eq!(v.hits[0].action, EnforcedAction::Write("gen/a.ts".into()));
        // Absolute paths under the workdir are the same file.
        assert!(s.enforced_writes(&["/w/gen/a.ts"]).blocks());
        // Warn: not a refusal; a plain path rule is never enforced.
        let v = s.enforced_writes(&["src/api/x.ts"]);
        assert!(!v.blocks());
        assert_eq!(v.rules().len(), 1);
        assert!(s
            .enforced_writes(&["src/b.ts", "README.md", "/elsewhere/gen/a.ts"])
            .is_empty());
        // Blocks first, whatever the order of the files.
        let v = s.enforced_writes(&["src/api/x.ts", "gen/b.ts"]);
        assert_eq!(
            v.hits
                .iter()
                .map(|h| s.rules()[h.rule].id.as_str())
                .collect::<Vec<_>>(),
            ["gen.md", "api.md"]
        );
        let text = reason(&s, &v, 9_000, &[]);
        assert!(text.starts_with("Refused by the project's rules: writing gen/b.ts is not allowed.\n[gen.md] Generated files"), "{text}");
        assert!(
            text.contains("[api.md] API handlers validate input.\nUse zod."),
            "{text}"
        );
        // Over the budget, a rule shrinks to its summary line.
        let short = reason(&s, &v, 160, &[]);
        assert!(short.len() <= 160, "{short}");
        assert!(
            short.contains("[api.md] API handlers validate input.") && !short.contains("zod"),
            "{short}"
        );
    }

    #[test]
    fn a_shell_line_is_checked_for_its_writes_and_its_commands() {
        let s = set(&[
            ("gen.md", "---\npaths: gen/**\nenforce: block\n---\nGenerated.\n"),
            ("push.md", "---\ncommands: [\"git push --force*\", \"git push -f*\"]\nenforce: warn\n---\nAsk before a force push.\n"),
        ]);
        for line in [
            "echo x > gen/a.ts",
            "echo x >> gen/a.ts",
            "echo x | tee gen/a.ts",
            "cp src/a.ts gen/a.ts",
            "mv src/a.ts gen/",
            "sed -i 's/a/b/' gen/a.ts",
            "rm gen/a.ts",
            "cd gen && echo x > a.ts",
        ] {
            let v = check_shell(&s, line, None).unwrap();
            assert!(v.blocks(), "{line}");
        }
        assert!(check_shell(&s, "cat gen/a.ts", None).unwrap().is_empty());
        // A relative write from another directory, named against the workdir.
        assert!(check_shell(&s, "echo x > a.ts", Some(Path::new("/w/gen")))
            .unwrap()
            .blocks());
        let v = check_shell(&s, "git push -f origin", None).unwrap();
        assert!(!v.blocks() && !v.is_empty());
        let text = reason(&s, &v, 9_000, &[]);
        assert_eq!(text, "Allowed, with a warning from the project's rules about running `git push -f origin`:\n[push.md] (matches `git push -f*`) Ask before a force push.");
        assert!(check_shell(&s, "git push origin", None).unwrap().is_empty());
        assert!(check_shell(&s, "if then", None).is_err());
    }

    #[test]
    fn a_rule_is_checked_whether_or_not_it_is_active() {
        // A manual rule reaches the model only when mentioned, and refuses
        // its writes all the same.
        let s = set(&[(
            "m.md",
            "---\npaths: gen/**\nenforce: block\nactivation: manual\n---\nNo.\n",
        )]);
        assert!(s.active::<&str>(&[], Some("fix it")).is_empty());
        assert!(s.enforced_writes(&["gen/a.ts"]).blocks());
    }

    #[test]
    fn commands_make_a_rule_conditional_only_with_enforce() {
        let s = set(&[
            (
                "c.md",
                "---\ncommands: [\"make*\"]\nenforce: block\n---\nNo.\n",
            ),
            ("plain.md", "---\ncommands: [\"make*\"]\n---\nNo.\n"),
        ]);
        let kinds: Vec<String> = s
            .rules()
            .iter()
            .map(|r| r.metadata.activation_kind())
            .collect();
        assert_eq!(kinds, ["commands", "always"]);
        assert_eq!(s.active::<&str>(&[], None), [1]);
        // Without enforce, `commands` checks nothing.
        assert_eq!(s.enforced_commands(&commands("make all")).rules(), [0]);
    }

    fn diagnostics(text: &str) -> Vec<(Code, Option<u32>, String)> {
        parse(text)
            .diagnostics
            .iter()
            .map(|d| (d.code, d.line, d.message.clone()))
            .collect()
    }

    #[test]
    fn the_keys_are_read_and_linted_at_their_line() {
        let o = parse(
            "---\npaths: gen/**\nenforce: block\nsummary: Never by hand.\n---\nGenerated files.\n",
        );
        let m = &o.rule.unwrap().rule.metadata;
        assert_eq!(
            (m.enforce, m.summary.as_deref()),
            (Some(Enforce::Block), Some("Never by hand."))
        );
        assert!(o.diagnostics.is_empty(), "{:?}", o.diagnostics);
        // A list item holding commas stays one pattern.
        let o = parse("---\ncommands: \"psql -c select a,b*\"\nenforce: warn\n---\nx\n");
        assert_eq!(
            o.rule.unwrap().rule.metadata.commands.clone().unwrap(),
            ["psql -c select a,b*"]
        );

        let cases: &[(&str, Code, u32, &str)] = &[
            (
                "---\nenforce: block\n---\nx\n",
                Code::EnforceWithoutTrigger,
                2,
                "'enforce: block' has nothing to check",
            ),
            (
                "---\npaths: a\nenforce: true\n---\nx\n",
                Code::InvalidField,
                3,
                "'enforce' is 'block' or 'warn', not a boolean; the rule loads without enforcement",
            ),
            (
                "---\npaths: a\nenforce: refuse\n---\nx\n",
                Code::InvalidField,
                3,
                "not \"refuse\"",
            ),
            (
                "---\npaths: a\nenforced: block\n---\nx\n",
                Code::MisspelledKey,
                3,
                "did you mean 'enforce'? 'enforced' is ignored, so this rule refuses nothing",
            ),
            (
                "---\nenforce: block\ncommand: [\"git push*\"]\n---\nx\n",
                Code::MisspelledKey,
                3,
                "did you mean 'commands'?",
            ),
            (
                "---\ncommands: [\"make*\"]\n---\nx\n",
                Code::InvalidField,
                2,
                "'commands' is read only with 'enforce",
            ),
            (
                "---\nenforce: block\ncommands:\n  - \"git push\"\n  - \" \"\n---\nx\n",
                Code::UnmatchableCommand,
                5,
                "an empty command pattern never matches; the pattern is left out",
            ),
            (
                "---\nenforce: block\ncommands: [\"npm test && git push*\"]\n---\nx\n",
                Code::UnmatchableCommand,
                3,
                "holds `&&`: each simple command of a line is matched on its own",
            ),
            (
                "---\nenforce: block\ncommands: [\"echo x > out*\"]\n---\nx\n",
                Code::UnmatchableCommand,
                3,
                "redirections are not part of a command's words",
            ),
            (
                "---\nenforce: block\ncommands: [\"*\"]\n---\nx\n",
                Code::UnmatchableCommand,
                3,
                "matches every command",
            ),
            (
                "---\nenforce: block\ncommands: [\" git push\"]\n---\nx\n",
                Code::UnmatchableCommand,
                3,
                "starts or ends with a space",
            ),
            (
                "---\nsummary: |\n  one\n  two\n---\nx\n",
                Code::InvalidField,
                2,
                "'summary' is one line",
            ),
        ];
        for (text, code, line, needle) in cases {
            let d = diagnostics(text);
            assert!(
                d.iter()
                    .any(|(c, l, m)| c == code && *l == Some(*line) && m.contains(needle)),
                "{text:?}: expected {code} at line {line} containing {needle:?}, got {d:?}"
            );
        }
        // The enforce typo: an error, and the rule still loads (as a plain rule).
        let o = parse("---\npaths: a\nenforce: true\n---\nx\n");
        assert!(o.rule.unwrap().rule.metadata.enforce.is_none());
        let long = format!(
            "---\nsummary: {}\n---\nx\n",
            "a".repeat(MAX_SUMMARY_CHARS + 5)
        );
        assert_eq!(
            parse(&long)
                .rule
                .unwrap()
                .rule
                .metadata
                .summary
                .clone()
                .unwrap()
                .chars()
                .count(),
            MAX_SUMMARY_CHARS
        );
        let many = format!(
            "---\nenforce: block\ncommands: [{}]\n---\nx\n",
            vec!["\"a\""; MAX_COMMANDS_PER_RULE + 1].join(",")
        );
        let o = parse(&many);
        assert!(o.rule.is_none() && o.diagnostics.iter().any(|d| d.code == Code::Limit));
    }

    #[test]
    fn the_regex_of_a_pattern_is_anchored_and_literal_but_for_wildcards() {
        for (pattern, regex) in [
            ("git push*", "^git push.*$"),
            ("a.b?", r"^a\.b.$"),
            (r"x\*y", r"^x\*y$"),
            ("(a)[b]", r"^\(a\)\[b\]$"),
            (r"end\", r"^end\\$"),
        ] {
            assert_eq!(pattern_regex(pattern), regex, "{pattern}");
        }
    }
}
