//! `wave-rules validate [PATH...]`: every diagnostic, with the source line;
//! `--fix` applies their fixes first (validate_fix.rs), `--format sarif`
//! writes a SARIF log (sarif.rs).

use crate::base::args::{ValidateArgs, ValidateFormat};
use crate::base::color;
use crate::base::display::{self, Sources};
use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::sources::self_load;
use memory_rules::{Diagnostic, Severity};
use std::path::Path;

pub fn run(env: &Env, args: &ValidateArgs) -> Output {
    let mut out = Output::default();
    let (mut diagnostics, mut rules) = match gather(env, args) {
        Ok(found) => found,
        Err(trouble) => return trouble,
    };
    if args.fix {
        let fixed = super::validate_fix::apply(&diagnostics, &env.config.workdir, args.dry_run);
        out.stderr.extend(
            fixed
                .trouble
                .iter()
                .map(|t| display::line(&format!("wave-rules: {t}"))),
        );
        let summary = format!(
            "{} {} in {}",
            if args.dry_run { "would fix" } else { "fixed" },
            plural(fixed.count, "problem"),
            plural(fixed.files, "file")
        );
        if args.dry_run {
            out.stdout = format!("{}{}", fixed.text, display::line(&summary));
            return out;
        }
        out.stderr.push_str(&fixed.text);
        out.stderr.push_str(&display::line(&summary));
        (diagnostics, rules) = match gather(env, args) {
            Ok(found) => found,
            Err(trouble) => return trouble,
        };
    }
    let mut shown = report(env, args, &diagnostics, rules);
    shown.stderr.insert_str(0, &out.stderr);
    shown
}

/// The diagnostics and the rule count: of the whole load, or of the paths.
fn gather(env: &Env, args: &ValidateArgs) -> Result<(Vec<Diagnostic>, usize), Output> {
    if args.paths.is_empty() {
        let loaded = env.load();
        let mut diagnostics = loaded.diagnostics.clone();
        diagnostics.extend(super::eval::scenario_diagnostics(
            &env.config.workdir,
            &loaded,
        ));
        // Where an agent would cut a file or a total (the core's self_load caps).
        let files = self_load::files_seen(loaded.rules.rules(), &loaded.diagnostics);
        diagnostics.extend(self_load::cuts(&files).iter().map(|c| c.diagnostic()));
        Ok((diagnostics, loaded.rules.rules().len()))
    } else {
        check_paths(env, &args.paths)
    }
}

/// The diagnostics as text, annotations, SARIF or JSON, and the exit code.
fn report(env: &Env, args: &ValidateArgs, diagnostics: &[Diagnostic], rules: usize) -> Output {
    let mut out = Output::default();
    let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let failed = errors > 0 || (args.strict && warnings > 0);
    let workdir = &env.config.workdir;
    if args.format == ValidateFormat::Sarif {
        out.stdout = display::json_text(&super::sarif::log(diagnostics, workdir));
    } else if env.json {
        let list: Vec<_> = diagnostics
            .iter()
            .map(|d| display::diagnostic_json(d, workdir))
            .collect();
        out.stdout = display::json_text(&serde_json::json!({
            "ok": !failed,
            "root": workdir.to_string_lossy(),
            "rules": rules,
            "errors": errors,
            "warnings": warnings,
            "infos": infos,
            "diagnostics": list,
        }));
    } else {
        let mut sources = Sources::default();
        for d in diagnostics {
            match args.format {
                ValidateFormat::Text | ValidateFormat::Sarif => {
                    let mut shown = d.clone();
                    shown.file_path = display::show(Path::new(&d.file_path), workdir);
                    let mut text = display::line(&shown.to_string());
                    if env.color {
                        let label = format!(": {}[{}]: ", d.severity, d.code);
                        let painted = format!(
                            ": {}: ",
                            color::paint(
                                true,
                                color::severity(d.severity),
                                &label[2..label.len() - 2]
                            )
                        );
                        text = text.replacen(&label, &painted, 1);
                    }
                    out.stdout.push_str(&text);
                    out.stdout.push_str(&sources.snippet(d));
                }
                ValidateFormat::Github => out.stdout.push_str(&github(d, workdir)),
            }
        }
        if args.paths.is_empty() {
            out.stdout.push_str(&display::line(&env.root_line()));
        }
        out.stdout.push_str(&format!(
            "{} loaded; {}, {}, {}{}\n",
            plural(rules, "rule"),
            plural(errors, "error"),
            plural(warnings, "warning"),
            plural(infos, "info"),
            if failed && errors == 0 {
                " (--strict: warnings fail)"
            } else {
                ""
            },
        ));
        if args.paths.is_empty()
            && rules == 0
            && diagnostics.is_empty()
            && !env.sources_from.chosen()
        {
            out.stdout.push_str(&super::list::empty_hint(env));
        }
    }
    out.code = if failed { EXIT_FAILURE } else { 0 };
    out
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Checks only the given files and directories (the core's
/// `load::check_paths`); a missing path is I/O trouble.
fn check_paths(
    env: &Env,
    paths: &[std::path::PathBuf],
) -> Result<(Vec<Diagnostic>, usize), Output> {
    memory_rules::check_paths(&env.config, paths).map_err(|(path, e)| {
        Output::fail(EXIT_TROUBLE, format!("cannot read {}: {e}", path.display()))
    })
}

/// A GitHub Actions workflow command for one diagnostic.
fn github(d: &Diagnostic, workdir: &Path) -> String {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut props = vec![format!(
        "file={}",
        escape_property(&display::show(Path::new(&d.file_path), workdir))
    )];
    if let Some(line) = d.line {
        props.push(format!("line={line}"));
    }
    if let Some(col) = d.column {
        props.push(format!("col={col}"));
    }
    props.push(format!(
        "title={}",
        escape_property(&format!("{}[{}]", d.severity, d.code))
    ));
    format!(
        "::{level} {}::{}\n",
        props.join(","),
        escape_data(&d.message)
    )
}

pub(crate) fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    display::clean(&s).into_owned()
}

pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}
