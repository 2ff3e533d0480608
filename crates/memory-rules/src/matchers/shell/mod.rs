//! The files a shell command line reads and writes.
//!
//! Agents read files through their shell tool as often as through their file
//! tools (`cat src/api.ts`, `sed -n 1,80p src/api.ts`, `git show HEAD:src/api.ts`),
//! and write them with redirections, `tee`, `cp` and `mv`. [`command_files`]
//! parses the command line with a real POSIX/bash parser (`brush-parser`),
//! walks every command it holds (pipelines, `&&`/`||`, `;`, subshells, brace
//! groups, `if`/`for`/`while` bodies, `$(...)` and `<(...)`, `bash -c '...'`)
//! and yields the file operands of the commands it knows, and every simple
//! command it runs ([`CommandWords`]: what `commands` patterns are matched
//! against):
//!
//! | command | reads | writes |
//! | --- | --- | --- |
//! | `cat` `tac` `nl` `less` `more` `bat` `head` `tail` `wc` `sort` `uniq` `cut` `jq` `xxd` | every operand | |
//! | `sed` | every operand after the script | the same, with `-i` |
//! | `awk` `gawk` `mawk` | every operand after the program (not `var=value`) | |
//! | `grep` `egrep` `fgrep` `rg` `ag` | every operand after the pattern | |
//! | `diff` `cmp` | every operand | |
//! | `git show` `git cat-file` | `REV:path` operands, operands after `--` | |
//! | `git diff` `git log` `git blame` | operands after `--`, operands that look like paths | |
//! | `tee` `touch` `rm` `unlink` `truncate` | | every operand |
//! | `perl` | every operand after the script | the same, with `-i` |
//! | `dd` | `if=` | `of=` |
//! | `cp` | the sources | the target (`dir/name` when the target is a directory) |
//! | `mv` | | the target (as `cp`) |
//! | `< f` | `f` | |
//! | `> f` `>> f` `>\| f` `&> f` | | `f` |
//!
//! `sudo`, `env`, `command`, `nice`, `nohup`, `time`, `timeout`, `exec` and `xargs` in
//! front of a command are looked through; `cd DIR` (a literal `DIR`) makes
//! the later relative operands of the same list relative to `DIR` (a `cd` to
//! anything else drops them: the directory is not known). Only literal words
//! count: a word with a parameter, a command substitution, a glob or a `~`
//! is skipped, never guessed. Paths come back as written (relative to the
//! command's working directory, or absolute); `/dev/*` is left out.
//!
//! Bounded: a command longer than [`MAX_COMMAND_BYTES`], with more than
//! [`MAX_COMMAND_WORDS`] words or nesting deeper than [`MAX_COMMAND_DEPTH`]
//! is refused before it is parsed, with a [`ShellError`] saying which limit.

use brush_parser::ast::{
    AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, SimpleCommand,
};
use brush_parser::{Parser, ParserOptions};

mod literal_word;
mod program_files;
mod program_options;
mod working_dir;

use literal_word::literal;
use program_files::{git_files, program_files, ProgramFiles};
use program_options::takes_value;
use working_dir::Cwd;

pub use crate::base::limits::{MAX_COMMAND_BYTES, MAX_COMMAND_DEPTH, MAX_COMMAND_WORDS};

/// The files one command line reads and writes, each once, in order of
/// appearance, and the simple commands it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellFiles {
    pub read: Vec<String>,
    pub written: Vec<String>,
    /// Every simple command of the line, in order of appearance (those of
    /// `$(...)`, `<(...)` and `bash -c '...'` included; a function's body,
    /// which runs only when called, is not).
    pub commands: Vec<CommandWords>,
}

/// One simple command: its words (program and arguments; assignments and
/// redirections in front or after are not words), each as the command gets
/// it when the word is literal (quotes removed), else as written (`$DIR`,
/// `*.ts`, `$(date)`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandWords {
    pub words: Vec<String>,
    /// The index of the program in `words`, past the wrappers the file
    /// table looks through (`sudo`, `env A=1`, `nice -n 5`, `xargs`, ...):
    /// 0 when there is none.
    pub program: usize,
}

impl CommandWords {
    /// The words joined with single spaces.
    pub fn line(&self) -> String {
        self.words.join(" ")
    }

    /// The command without its wrappers, its program by its base name
    /// (`sudo /usr/bin/git push` -> `git push`).
    pub fn unwrapped(&self) -> String {
        let mut words = self.words[self.program.min(self.words.len())..].iter();
        let mut out = words
            .next()
            .map(|p| base_name(p).to_string())
            .unwrap_or_default();
        for w in words {
            out.push(' ');
            out.push_str(w);
        }
        out
    }
}

/// Why a command line was not looked at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    #[error("the command is {bytes} bytes, over the limit of {limit}")]
    TooLong { bytes: usize, limit: usize },
    #[error("the command has {words} words, over the limit of {limit}")]
    TooManyWords { words: usize, limit: usize },
    #[error("the command nests deeper than {limit}")]
    TooDeep { limit: usize },
    #[error("the command does not parse as a shell command: {0}")]
    Syntax(String),
}

/// The files `command` reads and writes (see the module's table).
pub fn command_files(command: &str) -> Result<ShellFiles, ShellError> {
    let mut walk = Walk::default();
    walk.command_line(command, 0)?;
    Ok(walk.files)
}

/// Checks the limits, before any parsing.
fn check_limits(command: &str, depth: usize) -> Result<(), ShellError> {
    if command.len() > MAX_COMMAND_BYTES {
        return Err(ShellError::TooLong {
            bytes: command.len(),
            limit: MAX_COMMAND_BYTES,
        });
    }
    let words = command.split_ascii_whitespace().count();
    if words > MAX_COMMAND_WORDS {
        return Err(ShellError::TooManyWords {
            words,
            limit: MAX_COMMAND_WORDS,
        });
    }
    // An upper bound of the nesting: quotes are not looked at, so a quoted
    // bracket counts too (never less than the real depth).
    let mut level = 0usize;
    let mut deepest = 0usize;
    for b in command.bytes() {
        match b {
            b'(' | b'{' | b'`' => {
                level += 1;
                deepest = deepest.max(level);
            }
            b')' | b'}' => level = level.saturating_sub(1),
            _ => {}
        }
    }
    if depth + deepest > MAX_COMMAND_DEPTH {
        return Err(ShellError::TooDeep {
            limit: MAX_COMMAND_DEPTH,
        });
    }
    Ok(())
}

fn parser_options() -> ParserOptions {
    ParserOptions {
        // `cat a.ts` never needs extglob, and `!(x)` in a path is rare.
        enable_extended_globbing: false,
        tilde_expansion_at_word_start: false,
        ..ParserOptions::default()
    }
}

#[derive(Default)]
struct Walk {
    files: ShellFiles,
}
fn push(list: &mut Vec<String>, path: String) {
    if path.is_empty() || path == "-" || path.starts_with("/dev/") || list.contains(&path) {
        return;
    }
    list.push(path);
}

/// The index of the program in a simple command's words, past the wrappers
/// in front of it (`sudo`, `command`, `nohup`, `time`, `exec`, `builtin`,
/// and `env`, `nice`, `xargs`, `timeout` with their options, `env`'s
/// assignments and `timeout`'s duration).
/// A word that is not literal stops the look.
fn program_index(words: &[Option<String>]) -> usize {
    let mut i = 0;
    while let Some(Some(first)) = words.get(i) {
        let name = base_name(first);
        match name {
            "sudo" | "command" | "nohup" | "time" | "exec" | "builtin" => i += 1,
            "env" | "nice" | "xargs" | "timeout" => {
                i += 1;
                while let Some(Some(w)) = words.get(i) {
                    if w.starts_with('-') && w.len() > 1 {
                        i += if !w.contains('=') && takes_value(name, w) {
                            2
                        } else {
                            1
                        };
                    } else if name == "env" && w.contains('=') {
                        i += 1;
                    } else {
                        break;
                    }
                }
                // `timeout 10s cmd`: the duration comes first.
                if name == "timeout" {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    i
}

fn base_name(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}

impl Walk {
    fn command_line(&mut self, command: &str, depth: usize) -> Result<(), ShellError> {
        check_limits(command, depth)?;
        let mut parser = Parser::new(std::io::Cursor::new(command.as_bytes()), &parser_options());
        let program = parser
            .parse_program()
            .map_err(|e| ShellError::Syntax(e.to_string()))?;
        let mut cwd = Cwd::Here;
        for list in &program.complete_commands {
            self.list(list, &mut cwd, depth);
        }
        Ok(())
    }

    fn list(&mut self, list: &CompoundList, cwd: &mut Cwd, depth: usize) {
        for item in &list.0 {
            self.pipeline(&item.0.first, cwd, depth);
            for next in &item.0.additional {
                match next {
                    AndOr::And(p) | AndOr::Or(p) => self.pipeline(p, cwd, depth),
                }
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline, cwd: &mut Cwd, depth: usize) {
        let single = pipeline.seq.len() == 1;
        for command in &pipeline.seq {
            // Each part of a real pipeline runs in a subshell: its `cd` stays there.
            let mut own = cwd.clone();
            self.command(command, if single { cwd } else { &mut own }, depth);
        }
    }

    fn command(&mut self, command: &Command, cwd: &mut Cwd, depth: usize) {
        match command {
            Command::Simple(simple) => self.simple(simple, cwd, depth),
            Command::Compound(compound, redirects) => {
                self.compound(compound, cwd, depth);
                for r in redirects.iter().flat_map(|r| r.0.iter()) {
                    self.redirect(r, cwd, depth);
                }
            }
            Command::Function(_) => {}
            Command::ExtendedTest(_, redirects) => {
                for r in redirects.iter().flat_map(|r| r.0.iter()) {
                    self.redirect(r, cwd, depth);
                }
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, cwd: &mut Cwd, depth: usize) {
        match compound {
            CompoundCommand::BraceGroup(b) => self.list(&b.list, cwd, depth),
            CompoundCommand::Subshell(s) => self.list(&s.list, &mut cwd.clone(), depth),
            CompoundCommand::ForClause(f) => self.list(&f.body.list, &mut cwd.clone(), depth),
            CompoundCommand::ArithmeticForClause(f) => {
                self.list(&f.body.list, &mut cwd.clone(), depth)
            }
            CompoundCommand::CaseClause(c) => {
                for item in &c.cases {
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd, &mut cwd.clone(), depth);
                    }
                }
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition, &mut cwd.clone(), depth);
                self.list(&i.then, &mut cwd.clone(), depth);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c, &mut cwd.clone(), depth);
                    }
                    self.list(&e.body, &mut cwd.clone(), depth);
                }
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0, &mut cwd.clone(), depth);
                self.list(&w.1.list, &mut cwd.clone(), depth);
            }
            CompoundCommand::Coprocess(c) => self.command(&c.body, &mut cwd.clone(), depth),
            CompoundCommand::Arithmetic(_) => {}
        }
    }

    fn substitution(&mut self, text: &str, depth: usize) {
        // A substitution that does not parse or is over a limit adds nothing.
        let _ = self.command_line(text, depth + 1);
    }

    fn redirect(&mut self, r: &IoRedirect, cwd: &Cwd, depth: usize) {
        match r {
            IoRedirect::File(_, kind, IoFileRedirectTarget::Filename(w)) => {
                let lit = literal(&w.value);
                for s in &lit.substitutions {
                    self.substitution(s, depth);
                }
                let Some(path) = lit.value.and_then(|v| cwd.join(&v)) else {
                    return;
                };
                match kind {
                    IoFileRedirectKind::Read => push(&mut self.files.read, path),
                    IoFileRedirectKind::ReadAndWrite => {
                        push(&mut self.files.read, path.clone());
                        push(&mut self.files.written, path);
                    }
                    IoFileRedirectKind::Write
                    | IoFileRedirectKind::Append
                    | IoFileRedirectKind::Clobber => push(&mut self.files.written, path),
                    IoFileRedirectKind::DuplicateInput | IoFileRedirectKind::DuplicateOutput => {}
                }
            }
            IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(_, s)) => {
                self.list(&s.list, &mut cwd.clone(), depth)
            }
            IoRedirect::OutputAndError(w, _) => {
                if let Some(path) = literal(&w.value).value.and_then(|v| cwd.join(&v)) {
                    push(&mut self.files.written, path);
                }
            }
            _ => {}
        }
    }

    fn simple(&mut self, simple: &SimpleCommand, cwd: &mut Cwd, depth: usize) {
        let mut words: Vec<Option<String>> = Vec::new();
        // Each word as written, for the words that are not literal.
        let mut raw: Vec<&str> = Vec::new();
        let items = simple
            .prefix
            .iter()
            .flat_map(|p| p.0.iter())
            .map(|i| (i, true))
            .chain(
                simple
                    .suffix
                    .iter()
                    .flat_map(|s| s.0.iter())
                    .map(|i| (i, false)),
            );
        let mut name_seen = false;
        for (item, in_prefix) in items {
            if !in_prefix && !name_seen {
                name_seen = true;
                if let Some(w) = &simple.word_or_name {
                    words.push(self.word(&w.value, depth));
                    raw.push(&w.value);
                }
            }
            match item {
                CommandPrefixOrSuffixItem::IoRedirect(r) => self.redirect(r, cwd, depth),
                CommandPrefixOrSuffixItem::Word(w) => {
                    words.push(self.word(&w.value, depth));
                    raw.push(&w.value);
                }
                CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                    // `X=$(cat f) cmd`: the substitution still runs; after
                    // the name (`awk -v n=2`) it is an argument.
                    let value = self.word(&w.value, depth);
                    if !in_prefix {
                        words.push(value);
                        raw.push(&w.value);
                    }
                }
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, s) => {
                    self.list(&s.list, &mut cwd.clone(), depth);
                    words.push(None);
                    raw.push("<(...)");
                }
            }
        }
        if !name_seen {
            if let Some(w) = &simple.word_or_name {
                words.push(self.word(&w.value, depth));
                raw.push(&w.value);
            }
        }
        if !words.is_empty() {
            let text: Vec<String> = words
                .iter()
                .zip(&raw)
                .map(|(w, r)| w.clone().unwrap_or_else(|| r.to_string()))
                .collect();
            self.files.commands.push(CommandWords {
                words: text,
                program: program_index(&words),
            });
        }
        self.run(&words, cwd, depth);
    }

    /// A word's literal value; walks its command substitutions.
    fn word(&mut self, raw: &str, depth: usize) -> Option<String> {
        let lit = literal(raw);
        for s in &lit.substitutions {
            self.substitution(s, depth);
        }
        lit.value
    }
    /// One simple command, its words already evaluated (`None`: not literal).
    fn run(&mut self, words: &[Option<String>], cwd: &mut Cwd, depth: usize) {
        // Look through the wrappers in front of the command.
        let words = &words[program_index(words)..];
        let Some(Some(first)) = words.first() else {
            return;
        };
        let rest = &words[1..];
        match base_name(first) {
            "cd" | "pushd" => *cwd = cwd.after_cd(rest),
            "bash" | "sh" | "zsh" | "dash" => self.shell_script(rest, cwd, depth),
            "git" => {
                let (files, dir) = git_files(rest, cwd);
                self.record(files, &dir);
            }
            name => self.record(program_files(name, rest), cwd),
        }
    }

    /// `bash -c '...'`: its commands count wherever it runs; its files only
    /// where their directory is known.
    fn shell_script(&mut self, rest: &[Option<String>], cwd: &Cwd, depth: usize) {
        let mut it = rest.iter();
        while let Some(Some(w)) = it.next() {
            if w == "-c" || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c')) {
                if let Some(Some(script)) = it.next() {
                    let (read, written) = (self.files.read.len(), self.files.written.len());
                    let _ = self.command_line(script, depth + 1);
                    if *cwd != Cwd::Here {
                        self.files.read.truncate(read);
                        self.files.written.truncate(written);
                    }
                }
                break;
            }
        }
    }

    /// Adds a program's files, relative to `cwd` (left out when it is not
    /// known).
    fn record(&mut self, files: ProgramFiles, cwd: &Cwd) {
        for r in files.read {
            if let Some(p) = cwd.join(&r) {
                push(&mut self.files.read, p);
            }
        }
        for w in files.written {
            if let Some(p) = cwd.join(&w) {
                push(&mut self.files.written, p);
            }
        }
    }
}
