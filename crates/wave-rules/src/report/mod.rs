//! `wave-rules report [--out FILE] [--json] [--check BUDGET]`: which rules
//! apply where in the repository and what they cost, what each agent keeps
//! of them after `export`, and what the delivery log says was given.
//!
//! One [`model::Report`] is built ([`compute`]; the delivery log's part in
//! [`sessions`]) and shown three ways: a
//! terminal summary ([`text`]), `--json` (the value itself, compact), and
//! with `--out`, one self-contained HTML page ([`html`]: inline CSS and
//! script, the same value embedded, no request to anywhere).
//!
//! `--check BUDGET` exits 1 when the always-on rules, or the rules any one
//! file brings, cost more than BUDGET tokens.

mod compute;
mod html;
pub mod model;
mod problems;
mod sessions;
mod text;
pub(crate) mod walk;

use crate::base::args::ReportArgs;
use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};

pub fn run(env: &Env, args: &ReportArgs) -> Output {
    let report = compute::build(
        env,
        &compute::Options {
            window: args.sessions,
            budget: args.check,
        },
    );
    let mut out = Output::default();
    let json = serde_json::to_string(&report).unwrap_or_else(|_| "null".into());
    if let Some(path) = &args.out {
        let page = html::page(&json, &report);
        // Relative to the current directory, as an output file is.
        let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
        let write = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| std::fs::write(&path, &page));
        if let Err(e) = write {
            return Output::fail(
                EXIT_TROUBLE,
                format!("cannot write {}: {e}", path.display()),
            );
        }
        if !env.json {
            out.stdout.push_str(&crate::base::display::line(&format!(
                "wrote {} ({})",
                crate::base::display::show(&path, &env.config.workdir),
                text::size(page.len() as u64)
            )));
        }
    }
    if env.json {
        out.stdout = json;
        out.stdout.push('\n');
    } else {
        let summary = text::summary(&report, env.color);
        out.stdout.insert_str(0, &summary);
    }
    if let Some(check) = &report.check {
        if !check.ok {
            out.code = EXIT_FAILURE;
            out.stderr.push_str(&text::check_failure(check));
        }
    }
    out
}
