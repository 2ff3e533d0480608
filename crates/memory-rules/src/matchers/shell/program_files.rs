//! What each program of the module's table reads and writes, from its
//! arguments: one function per program (or family of programs).

use super::base_name;
use super::program_options::{has_option, option_files, split_args, takes_value};
use super::working_dir::{join, Cwd};

/// The commands that read every operand (after their options).
const READERS: &[&str] = &[
    "cat", "tac", "nl", "less", "more", "bat", "batcat", "head", "tail", "wc", "sort", "uniq",
    "cut", "jq", "xxd", "od", "hexdump", "strings", "column", "fold", "fmt", "expand", "rev",
];

/// The files one program reads and writes, as its operands name them
/// (relative to its working directory, or absolute).
#[derive(Default)]
pub(super) struct ProgramFiles {
    pub(super) read: Vec<String>,
    pub(super) written: Vec<String>,
}

impl ProgramFiles {
    fn reading(read: Vec<String>) -> ProgramFiles {
        ProgramFiles {
            read,
            written: Vec::new(),
        }
    }

    fn writing(written: Vec<String>) -> ProgramFiles {
        ProgramFiles {
            read: Vec::new(),
            written,
        }
    }
}

/// The files `name` reads and writes with the arguments `rest`; none for a
/// program the table does not know (`cd`, the shells and `git` are the
/// walk's: they change the directory or run commands).
pub(super) fn program_files(name: &str, rest: &[Option<String>]) -> ProgramFiles {
    match name {
        n if READERS.contains(&n) => reader(n, rest),
        "sed" => sed(rest),
        "awk" | "gawk" | "mawk" | "nawk" => awk(rest),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" => grep(name, rest),
        "diff" | "cmp" | "colordiff" | "vimdiff" => {
            ProgramFiles::reading(owned(&split_args(name, rest).operands))
        }
        "tee" | "touch" | "rm" | "unlink" | "truncate" => {
            ProgramFiles::writing(owned(&split_args(name, rest).operands))
        }
        "cp" | "mv" | "install" => copy(name, rest),
        "dd" => dd(rest),
        "perl" => perl(rest),
        _ => ProgramFiles::default(),
    }
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// The operands past the first when `skip_first` (the script, program or
/// pattern given as an operand rather than by an option).
fn files_after<'w, 'a>(operands: &'w [&'a str], skip_first: bool) -> &'w [&'a str] {
    &operands[usize::from(skip_first).min(operands.len())..]
}

/// `cat`, `head`, `jq`, ...: every operand (`jq`'s filter aside).
fn reader(name: &str, rest: &[Option<String>]) -> ProgramFiles {
    let mut read = owned(&split_args(name, rest).operands);
    if name == "jq" {
        // The filter is the first operand (unless -f).
        if !read.is_empty() {
            read.remove(0);
        }
    }
    ProgramFiles::reading(read)
}

/// `sed`: the operands after the script (`-f`'s script file too); written
/// as well with `-i`.
fn sed(rest: &[Option<String>]) -> ProgramFiles {
    let args = split_args("sed", rest);
    let has_script = has_option(&args, &["-e", "-f", "--expression", "--file"]);
    let in_place = args.options.iter().any(|(o, _)| {
        o.starts_with("-i")
            || o.starts_with("--in-place")
            || (o.starts_with('-') && !o.starts_with("--") && o.contains('i'))
    });
    let files = files_after(&args.operands, !has_script);
    let mut read = option_files(&args, &["-f", "--file"]);
    read.extend(owned(files));
    let written = if in_place { owned(files) } else { Vec::new() };
    ProgramFiles { read, written }
}

/// `awk`: the operands after the program (`-f`'s program file too), not
/// the `var=value` ones.
fn awk(rest: &[Option<String>]) -> ProgramFiles {
    let args = split_args("awk", rest);
    let has_program = has_option(&args, &["-f", "--file"]);
    let files = files_after(&args.operands, !has_program);
    let mut read = option_files(&args, &["-f", "--file"]);
    read.extend(
        files
            .iter()
            .filter(|f| !f.contains('='))
            .map(|s| s.to_string()),
    );
    ProgramFiles::reading(read)
}

/// `grep`, `rg`, `ag`: the operands after the pattern.
fn grep(name: &str, rest: &[Option<String>]) -> ProgramFiles {
    let table = if name == "egrep" || name == "fgrep" {
        "grep"
    } else {
        name
    };
    let args = split_args(table, rest);
    let has_pattern = has_option(&args, &["-e", "-f", "--regexp", "--file"])
        || (name == "rg" && has_option(&args, &["--files", "--type-list"]));
    ProgramFiles::reading(owned(files_after(&args.operands, !has_pattern)))
}

/// `cp`, `mv`, `install`: the sources are read (not by `mv`), the target is
/// written (`dir/name` per source when the target is a directory).
fn copy(name: &str, rest: &[Option<String>]) -> ProgramFiles {
    let args = split_args(name, rest);
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
            _ => return ProgramFiles::default(),
        },
    };
    let read = if name == "cp" || name == "install" {
        owned(sources)
    } else {
        Vec::new()
    };
    let written = if into_dir {
        sources.iter().map(|s| join(target, base_name(s))).collect()
    } else {
        vec![target.to_string()]
    };
    ProgramFiles { read, written }
}

/// `dd`: reads `if=`, writes `of=`.
fn dd(rest: &[Option<String>]) -> ProgramFiles {
    let mut files = ProgramFiles::default();
    for w in rest.iter().flatten() {
        if let Some(f) = w.strip_prefix("if=") {
            files.read.push(f.to_string());
        } else if let Some(f) = w.strip_prefix("of=") {
            files.written.push(f.to_string());
        }
    }
    files
}

/// `perl -pi -e '...' f`: the operands after the script; edited in place
/// with `-i`.
fn perl(rest: &[Option<String>]) -> ProgramFiles {
    let args = split_args("perl", rest);
    let in_place = args
        .options
        .iter()
        .any(|(o, _)| !o.starts_with("--") && o.starts_with('-') && o[1..].contains('i'));
    // The script is `-e`'s value, else the first operand (after `-ne`, or
    // a script file).
    let script_in_option = has_option(&args, &["-e", "-E"]);
    let files = files_after(&args.operands, !script_in_option);
    let written = if in_place { owned(files) } else { Vec::new() };
    ProgramFiles {
        read: owned(files),
        written,
    }
}

/// `git`: the files its subcommand reads, and the directory they are
/// relative to (`git -C dir`: that directory).
pub(super) fn git_files(rest: &[Option<String>], cwd: &Cwd) -> (ProgramFiles, Cwd) {
    let (at, dir) = git_subcommand(rest, cwd);
    let Some(Some(sub)) = rest.get(at) else {
        return (ProgramFiles::default(), dir);
    };
    let args = &rest[at + 1..];
    let found = match sub.as_str() {
        "show" | "cat-file" => git_show_paths(args),
        "diff" | "log" | "blame" | "annotate" => git_history_paths(sub, args),
        _ => Vec::new(),
    };
    (ProgramFiles::reading(owned(&found)), dir)
}

/// Past git's global options: the index of the subcommand, and the
/// directory `-C` moves to.
fn git_subcommand(rest: &[Option<String>], cwd: &Cwd) -> (usize, Cwd) {
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
    (i, dir)
}

/// `git show` / `git cat-file`: the path of `REV:path` operands, and the
/// operands after `--`.
fn git_show_paths(args: &[Option<String>]) -> Vec<&str> {
    let a = split_args("git-show", args);
    let mut found: Vec<&str> = Vec::new();
    for op in &a.operands {
        if let Some((_, path)) = op.split_once(':') {
            if !path.is_empty() {
                found.push(path);
            }
        }
    }
    found.extend(a.after_dashes.iter().copied());
    found
}

/// `git diff` / `log` / `blame` / `annotate`: the operands after `--`, else
/// blame's last operand, else the operands that look like paths.
fn git_history_paths<'a>(sub: &str, args: &'a [Option<String>]) -> Vec<&'a str> {
    let a = split_args(
        if sub == "blame" {
            "git-blame"
        } else {
            "git-log"
        },
        args,
    );
    if !a.after_dashes.is_empty() {
        a.after_dashes
    } else if sub == "blame" || sub == "annotate" {
        a.operands.last().copied().into_iter().collect()
    } else {
        a.operands
            .into_iter()
            .filter(|o| looks_like_path(o))
            .collect()
    }
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
