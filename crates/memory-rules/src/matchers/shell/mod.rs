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
use brush_parser::word::{self, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

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

fn options() -> ParserOptions {
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

/// The directory relative operands are relative to: the command's own
/// (`Here`), a literal one after `cd` (`Dir`), or not known.
#[derive(Clone, Debug, PartialEq)]
enum Cwd {
    Here,
    Dir(String),
    Unknown,
}

impl Cwd {
    fn join(&self, path: &str) -> Option<String> {
        if path.starts_with('/') {
            return Some(path.to_string());
        }
        match self {
            Cwd::Here => Some(path.to_string()),
            Cwd::Dir(d) => Some(join(d, path)),
            Cwd::Unknown => None,
        }
    }

    fn cd(&self, to: Option<&str>) -> Cwd {
        match to {
            Some(t) if t.starts_with('/') => Cwd::Dir(t.to_string()),
            Some("-") | None => Cwd::Unknown,
            Some(t) => match self {
                Cwd::Here => Cwd::Dir(t.to_string()),
                Cwd::Dir(d) => Cwd::Dir(join(d, t)),
                Cwd::Unknown => Cwd::Unknown,
            },
        }
    }
}

fn join(dir: &str, path: &str) -> String {
    let mut parts: Vec<&str> = dir
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let absolute = dir.starts_with('/');
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_string()
    } else {
        joined
    }
}

fn push(list: &mut Vec<String>, path: String) {
    if path.is_empty() || path == "-" || path.starts_with("/dev/") || list.contains(&path) {
        return;
    }
    list.push(path);
}

/// One word: its literal value when it has one, and the command
/// substitutions it holds (walked for their own files).
struct Lit {
    value: Option<String>,
    substitutions: Vec<String>,
}

fn literal(raw: &str) -> Lit {
    let mut lit = Lit {
        value: Some(String::new()),
        substitutions: Vec::new(),
    };
    match word::parse(raw, &options()) {
        Ok(pieces) => pieces_into(&pieces, &mut lit, false),
        Err(_) => lit.value = None,
    }
    lit
}

fn pieces_into(pieces: &[WordPieceWithSource], lit: &mut Lit, quoted: bool) {
    for p in pieces {
        match &p.piece {
            WordPiece::Text(t) => {
                let at_start = lit.value.as_ref().is_some_and(|v| v.is_empty());
                if !quoted && (t.contains(['*', '?', '[']) || (at_start && t.starts_with('~'))) {
                    lit.value = None;
                }
                if let Some(v) = &mut lit.value {
                    v.push_str(t);
                }
            }
            WordPiece::SingleQuotedText(t) => {
                if let Some(v) = &mut lit.value {
                    v.push_str(t);
                }
            }
            WordPiece::EscapeSequence(t) => {
                if let Some(v) = &mut lit.value {
                    v.push_str(t.strip_prefix('\\').unwrap_or(t));
                }
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => pieces_into(inner, lit, true),
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                lit.substitutions.push(s.clone());
                lit.value = None;
            }
            _ => lit.value = None,
        }
    }
}

/// The commands that read every operand (after their options).
const READERS: &[&str] = &[
    "cat", "tac", "nl", "less", "more", "bat", "batcat", "head", "tail", "wc", "sort", "uniq",
    "cut", "jq", "xxd", "od", "hexdump", "strings", "column", "fold", "fmt", "expand", "rev",
];

/// Options that take a value in the next word, per command (short options
/// may also carry it attached: `-n5`; long ones after `=`).
fn takes_value(cmd: &str, opt: &str) -> bool {
    let list: &[&str] = match cmd {
        "head" | "tail" => &[
            "-n",
            "-c",
            "-s",
            "--lines",
            "--bytes",
            "--sleep-interval",
            "--pid",
        ],
        "bat" | "batcat" => &[
            "-l",
            "--language",
            "-r",
            "--line-range",
            "-H",
            "--highlight-line",
            "--style",
            "--theme",
            "-m",
            "--map-syntax",
            "--tabs",
            "--wrap",
            "--terminal-width",
            "--file-name",
        ],
        "less" => &[
            "-b", "-h", "-j", "-k", "-o", "-O", "-p", "-P", "-t", "-T", "-x", "-y", "-z",
        ],
        "sort" => &[
            "-k",
            "-t",
            "-o",
            "-S",
            "-T",
            "--key",
            "--field-separator",
            "--output",
        ],
        "cut" => &[
            "-b",
            "-c",
            "-d",
            "-f",
            "--bytes",
            "--characters",
            "--delimiter",
            "--fields",
        ],
        "uniq" => &["-f", "-s", "-w"],
        "wc" | "nl" | "tac" => &["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"],
        "jq" => &[
            "--arg",
            "--argjson",
            "--slurpfile",
            "--rawfile",
            "--indent",
            "-L",
        ],
        "xxd" | "od" | "hexdump" => &["-c", "-g", "-l", "-s", "-n", "-j", "-A", "-t", "-N", "-e"],
        "sed" => &["-e", "-f", "-l", "--expression", "--file", "--line-length"],
        "truncate" => &["-s", "-r", "--size", "--reference"],
        "nice" => &["-n", "--adjustment"],
        "env" => &["-u", "-C", "--unset", "--chdir"],
        "xargs" => &[
            "-I",
            "-n",
            "-P",
            "-L",
            "-d",
            "-E",
            "-s",
            "-a",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--arg-file",
        ],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "perl" => &["-e", "-E", "-I", "-M", "-m", "-x"],
        "awk" | "gawk" | "mawk" => &["-F", "-v", "-f", "--field-separator", "--assign", "--file"],
        "grep" | "egrep" | "fgrep" => &[
            "-e",
            "-f",
            "-m",
            "-A",
            "-B",
            "-C",
            "-d",
            "-D",
            "--regexp",
            "--file",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--exclude-from",
            "--label",
            "--binary-files",
            "--devices",
            "--directories",
        ],
        "rg" => &[
            "-e",
            "-f",
            "-g",
            "-t",
            "-T",
            "-m",
            "-A",
            "-B",
            "-C",
            "-j",
            "-M",
            "-E",
            "-r",
            "--regexp",
            "--file",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--threads",
            "--max-columns",
            "--encoding",
            "--replace",
            "--max-depth",
            "--type-add",
            "--type-clear",
            "--sort",
            "--sortr",
            "--color",
            "--colors",
            "--max-filesize",
            "--pre",
            "--pre-glob",
            "--ignore-file",
            "--path-separator",
            "--context-separator",
            "--engine",
            "-d",
        ],
        "ag" => &[
            "-A",
            "-B",
            "-C",
            "-G",
            "-m",
            "--ignore",
            "--file-search-regex",
            "--depth",
        ],
        "diff" => &[
            "-U",
            "-C",
            "-I",
            "-x",
            "-X",
            "-L",
            "-F",
            "-W",
            "-S",
            "--label",
            "--exclude",
            "--exclude-from",
            "--ignore-matching-lines",
            "--starting-file",
            "--width",
            "--unified",
            "--context",
            "--show-function-line",
        ],
        "cmp" => &["-i", "-n", "--ignore-initial", "--bytes"],
        "cp" | "mv" => &["-t", "-S", "--target-directory", "--suffix"],
        "touch" => &["-d", "-r", "-t", "--date", "--reference"],
        "git" => &[
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--exec-path",
        ],
        "git-blame" => &[
            "-L",
            "-S",
            "-C",
            "-M",
            "--contents",
            "--ignore-rev",
            "--ignore-revs-file",
        ],
        "git-log" | "git-show" | "git-diff" => {
            &["-n", "--max-count", "--skip", "-L", "-G", "-S", "-O"]
        }
        _ => &[],
    };
    let opt = opt.split_once('=').map_or(opt, |(o, _)| o);
    list.contains(&opt)
}

/// Splits `args` into options (with their values) and operands.
struct Args<'a> {
    /// `(option, value)`: the value is the attached one or the next word.
    options: Vec<(&'a str, Option<&'a str>)>,
    operands: Vec<&'a str>,
    /// Operands that came after `--`.
    after_dashes: Vec<&'a str>,
}

fn split_args<'a>(cmd: &str, args: &'a [Option<String>]) -> Args<'a> {
    let mut out = Args {
        options: Vec::new(),
        operands: Vec::new(),
        after_dashes: Vec::new(),
    };
    let mut i = 0;
    let mut dashes = false;
    while i < args.len() {
        let Some(a) = args[i].as_deref() else {
            i += 1;
            continue;
        };
        i += 1;
        if dashes {
            out.operands.push(a);
            out.after_dashes.push(a);
        } else if a == "--" {
            dashes = true;
        } else if a.starts_with('-') && a != "-" {
            if a.contains('=') || !takes_value(cmd, a) {
                // `-n5`: a short option with its value attached.
                let attached = (!a.starts_with("--")
                    && a.len() > 2
                    && a.is_char_boundary(2)
                    && takes_value(cmd, &a[..2]))
                .then(|| &a[2..]);
                match attached {
                    Some(v) => out.options.push((&a[..2], Some(v))),
                    None => out.options.push((a, a.split_once('=').map(|(_, v)| v))),
                }
            } else {
                let value = args.get(i).and_then(|v| v.as_deref());
                i += 1;
                out.options.push((a, value));
            }
        } else {
            out.operands.push(a);
        }
    }
    out
}

/// The values of these options (files the command reads, as `sed -f`).
fn option_files(args: &Args<'_>, names: &[&str]) -> Vec<String> {
    args.options
        .iter()
        .filter(|(o, _)| names.contains(o))
        .filter_map(|(_, v)| v.map(str::to_string))
        .collect()
}

/// A `git diff`/`log`/`blame` operand that is a path rather than a revision:
/// it has a `/` or a `.` and is not a range (`a..b`) or a `REV:path`.
fn looks_like_path(a: &str) -> bool {
    (a.contains('/') || a.contains('.'))
        && !a.contains("..")
        && !a.contains(':')
        && !a.starts_with("HEAD")
        && !a.starts_with('@')
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
        let mut parser = Parser::new(std::io::Cursor::new(command.as_bytes()), &options());
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
        let name = base_name(first).to_string();
        let rest = &words[1..];
        let mut read: Vec<String> = Vec::new();
        let mut written: Vec<String> = Vec::new();
        match name.as_str() {
            "cd" | "pushd" => {
                let target = rest
                    .iter()
                    .find(|w| w.as_deref().is_none_or(|w| !w.starts_with('-')));
                *cwd = match target {
                    None => Cwd::Unknown, // `cd` alone: home
                    Some(t) => cwd.cd(t.as_deref()),
                };
                return;
            }
            "bash" | "sh" | "zsh" | "dash" => {
                let mut it = rest.iter();
                while let Some(Some(w)) = it.next() {
                    if w == "-c" || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))
                    {
                        if let Some(Some(script)) = it.next() {
                            // Its commands count wherever it runs; its files
                            // only where their directory is known.
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
                return;
            }
            n if READERS.contains(&n) => {
                let args = split_args(n, rest);
                read.extend(args.operands.iter().map(|s| s.to_string()));
                if n == "jq" {
                    // The filter is the first operand (unless -f).
                    if !read.is_empty() {
                        read.remove(0);
                    }
                }
            }
            "sed" => {
                let args = split_args("sed", rest);
                let has_script = args
                    .options
                    .iter()
                    .any(|(o, _)| matches!(*o, "-e" | "-f" | "--expression" | "--file"));
                let in_place = args.options.iter().any(|(o, _)| {
                    o.starts_with("-i")
                        || o.starts_with("--in-place")
                        || (o.starts_with('-') && !o.starts_with("--") && o.contains('i'))
                });
                let files = &args.operands[usize::from(!has_script).min(args.operands.len())..];
                read.extend(option_files(&args, &["-f", "--file"]));
                read.extend(files.iter().map(|s| s.to_string()));
                if in_place {
                    written.extend(files.iter().map(|s| s.to_string()));
                }
            }
            "awk" | "gawk" | "mawk" | "nawk" => {
                let args = split_args("awk", rest);
                let has_program = args
                    .options
                    .iter()
                    .any(|(o, _)| matches!(*o, "-f" | "--file"));
                let files = &args.operands[usize::from(!has_program).min(args.operands.len())..];
                read.extend(option_files(&args, &["-f", "--file"]));
                read.extend(
                    files
                        .iter()
                        .filter(|f| !f.contains('='))
                        .map(|s| s.to_string()),
                );
            }
            "grep" | "egrep" | "fgrep" | "rg" | "ag" => {
                let args = split_args(
                    if name == "egrep" || name == "fgrep" {
                        "grep"
                    } else {
                        &name
                    },
                    rest,
                );
                let has_pattern = args
                    .options
                    .iter()
                    .any(|(o, _)| matches!(*o, "-e" | "-f" | "--regexp" | "--file"))
                    || (name == "rg"
                        && args
                            .options
                            .iter()
                            .any(|(o, _)| matches!(*o, "--files" | "--type-list")));
                let files = &args.operands[usize::from(!has_pattern).min(args.operands.len())..];
                read.extend(files.iter().map(|s| s.to_string()));
            }
            "diff" | "cmp" | "colordiff" | "vimdiff" => {
                read.extend(
                    split_args(&name, rest)
                        .operands
                        .iter()
                        .map(|s| s.to_string()),
                );
            }
            "tee" | "touch" | "rm" | "unlink" | "truncate" => {
                written.extend(
                    split_args(&name, rest)
                        .operands
                        .iter()
                        .map(|s| s.to_string()),
                );
            }
            "cp" | "mv" | "install" => {
                let args = split_args(&name, rest);
                let target_dir = args
                    .options
                    .iter()
                    .find(|(o, _)| matches!(*o, "-t" | "--target-directory"))
                    .and_then(|(_, v)| *v);
                let (sources, target, into_dir) = match target_dir {
                    Some(dir) => (&args.operands[..], dir, true),
                    None => match args.operands.split_last() {
                        Some((dest, sources)) if !sources.is_empty() => {
                            (sources, *dest, sources.len() > 1 || dest.ends_with('/'))
                        }
                        _ => return,
                    },
                };
                if name == "cp" || name == "install" {
                    read.extend(sources.iter().map(|s| s.to_string()));
                }
                if into_dir {
                    for s in sources {
                        written.push(join(target, base_name(s)));
                    }
                } else {
                    written.push(target.to_string());
                }
            }
            "dd" => {
                for w in rest.iter().flatten() {
                    if let Some(f) = w.strip_prefix("if=") {
                        read.push(f.to_string());
                    } else if let Some(f) = w.strip_prefix("of=") {
                        written.push(f.to_string());
                    }
                }
            }
            "perl" => {
                // `perl -pi -e '...' f`: edits its operands in place.
                let args = split_args("perl", rest);
                let in_place = args.options.iter().any(|(o, _)| {
                    !o.starts_with("--") && o.starts_with('-') && o[1..].contains('i')
                });
                // The script is `-e`'s value, else the first operand (after
                // `-ne`, or a script file).
                let script_in_option = args.options.iter().any(|(o, _)| matches!(*o, "-e" | "-E"));
                let files =
                    &args.operands[usize::from(!script_in_option).min(args.operands.len())..];
                read.extend(files.iter().map(|s| s.to_string()));
                if in_place {
                    written.extend(files.iter().map(|s| s.to_string()));
                }
            }
            "git" => self.git(rest, cwd),
            _ => {}
        }
        for r in read {
            if let Some(p) = cwd.join(&r) {
                push(&mut self.files.read, p);
            }
        }
        for w in written {
            if let Some(p) = cwd.join(&w) {
                push(&mut self.files.written, p);
            }
        }
    }

    fn git(&mut self, rest: &[Option<String>], cwd: &Cwd) {
        // Global options, then the subcommand.
        let mut i = 0;
        let mut dir = cwd.clone();
        while let Some(Some(w)) = rest.get(i) {
            if !w.starts_with('-') {
                break;
            }
            if w == "-C" {
                dir = dir.cd(rest.get(i + 1).and_then(|v| v.as_deref()));
                i += 2;
            } else if takes_value("git", w) && !w.contains('=') {
                i += 2;
            } else {
                i += 1;
            }
        }
        let Some(Some(sub)) = rest.get(i) else {
            return;
        };
        let args = &rest[i + 1..];
        let mut found: Vec<&str> = Vec::new();
        match sub.as_str() {
            "show" | "cat-file" => {
                let a = split_args("git-show", args);
                for op in &a.operands {
                    if let Some((_, path)) = op.split_once(':') {
                        if !path.is_empty() {
                            found.push(path);
                        }
                    }
                }
                found.extend(a.after_dashes.iter().copied());
            }
            "diff" | "log" | "blame" | "annotate" => {
                let a = split_args(
                    if sub == "blame" {
                        "git-blame"
                    } else {
                        "git-log"
                    },
                    args,
                );
                if !a.after_dashes.is_empty() {
                    found.extend(a.after_dashes.iter().copied());
                } else if sub == "blame" || sub == "annotate" {
                    found.extend(a.operands.last().copied());
                } else {
                    found.extend(a.operands.iter().copied().filter(|o| looks_like_path(o)));
                }
            }
            _ => {}
        }
        for f in found {
            // `git -C dir`: relative to that directory.
            if let Some(p) = dir.join(f) {
                push(&mut self.files.read, p);
            }
        }
    }
}
