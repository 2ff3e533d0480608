//! Which options of which program take a value, and a command's arguments
//! split into options (with their values) and operands.

/// The options that take a value in the next word, per program: `(programs,
/// options)`. Short options may also carry it attached (`-n5`), long ones
/// after `=`. `git` is git's global options; `git-blame`, `git-log`,
/// `git-show` and `git-diff` are those of its subcommands.
const VALUE_OPTIONS: &[(&[&str], &[&str])] = &[
    (
        &["head", "tail"],
        &[
            "-n",
            "-c",
            "-s",
            "--lines",
            "--bytes",
            "--sleep-interval",
            "--pid",
        ],
    ),
    (
        &["bat", "batcat"],
        &[
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
    ),
    (
        &["less"],
        &[
            "-b", "-h", "-j", "-k", "-o", "-O", "-p", "-P", "-t", "-T", "-x", "-y", "-z",
        ],
    ),
    (
        &["sort"],
        &[
            "-k",
            "-t",
            "-o",
            "-S",
            "-T",
            "--key",
            "--field-separator",
            "--output",
        ],
    ),
    (
        &["cut"],
        &[
            "-b",
            "-c",
            "-d",
            "-f",
            "--bytes",
            "--characters",
            "--delimiter",
            "--fields",
        ],
    ),
    (&["uniq"], &["-f", "-s", "-w"]),
    (
        &["wc", "nl", "tac"],
        &["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"],
    ),
    (
        &["jq"],
        &[
            "--arg",
            "--argjson",
            "--slurpfile",
            "--rawfile",
            "--indent",
            "-L",
        ],
    ),
    (
        &["xxd", "od", "hexdump"],
        &["-c", "-g", "-l", "-s", "-n", "-j", "-A", "-t", "-N", "-e"],
    ),
    (
        &["sed"],
        &["-e", "-f", "-l", "--expression", "--file", "--line-length"],
    ),
    (&["truncate"], &["-s", "-r", "--size", "--reference"]),
    (&["nice"], &["-n", "--adjustment"]),
    (&["env"], &["-u", "-C", "--unset", "--chdir"]),
    (
        &["xargs"],
        &[
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
    ),
    (&["timeout"], &["-s", "-k", "--signal", "--kill-after"]),
    (&["perl"], &["-e", "-E", "-I", "-M", "-m", "-x"]),
    (
        &["awk", "gawk", "mawk"],
        &["-F", "-v", "-f", "--field-separator", "--assign", "--file"],
    ),
    (
        &["grep", "egrep", "fgrep"],
        &[
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
    ),
    (
        &["rg"],
        &[
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
    ),
    (
        &["ag"],
        &[
            "-A",
            "-B",
            "-C",
            "-G",
            "-m",
            "--ignore",
            "--file-search-regex",
            "--depth",
        ],
    ),
    (
        &["diff"],
        &[
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
    ),
    (&["cmp"], &["-i", "-n", "--ignore-initial", "--bytes"]),
    (
        &["cp", "mv"],
        &["-t", "-S", "--target-directory", "--suffix"],
    ),
    (&["touch"], &["-d", "-r", "-t", "--date", "--reference"]),
    (
        &["git"],
        &[
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--exec-path",
        ],
    ),
    (
        &["git-blame"],
        &[
            "-L",
            "-S",
            "-C",
            "-M",
            "--contents",
            "--ignore-rev",
            "--ignore-revs-file",
        ],
    ),
    (
        &["git-log", "git-show", "git-diff"],
        &["-n", "--max-count", "--skip", "-L", "-G", "-S", "-O"],
    ),
];

/// Whether `opt` (`--name=value` counts as `--name`) takes a value when
/// `cmd` is the program.
pub(super) fn takes_value(cmd: &str, opt: &str) -> bool {
    let opt = opt.split_once('=').map_or(opt, |(o, _)| o);
    VALUE_OPTIONS
        .iter()
        .find(|(programs, _)| programs.contains(&cmd))
        .is_some_and(|(_, options)| options.contains(&opt))
}

/// Splits `args` into options (with their values) and operands.
pub(super) struct Args<'a> {
    /// `(option, value)`: the value is the attached one or the next word.
    pub(super) options: Vec<(&'a str, Option<&'a str>)>,
    pub(super) operands: Vec<&'a str>,
    /// Operands that came after `--`.
    pub(super) after_dashes: Vec<&'a str>,
}

pub(super) fn split_args<'a>(cmd: &str, args: &'a [Option<String>]) -> Args<'a> {
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
pub(super) fn option_files(args: &Args<'_>, names: &[&str]) -> Vec<String> {
    args.options
        .iter()
        .filter(|(o, _)| names.contains(o))
        .filter_map(|(_, v)| v.map(str::to_string))
        .collect()
}

/// Whether one of these options was given.
pub(super) fn has_option(args: &Args<'_>, names: &[&str]) -> bool {
    args.options.iter().any(|(o, _)| names.contains(o))
}
