//! The report's terminal summary: the totals, the costliest folders, the
//! rules by reach and cost, the problems, what each agent keeps, and the
//! sessions of the delivery log.

use super::model::{Check, Folder, Report};
use crate::base::color::{paint, Style};
use crate::base::display::clean;
use std::fmt::Write as _;

/// Rows of each table in the summary (the page and `--json` have them all).
const ROWS: usize = 10;

/// `1,234`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1.2 MB`, `840 KB`, `12 bytes`.
pub fn size(bytes: u64) -> String {
    if bytes >= 1_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else if bytes >= 1_000 {
        format!("{:.0} KB", bytes as f64 / 1e3)
    } else {
        format!("{bytes} bytes")
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The folders of the tree with their path, deepest-first not needed: the
/// costliest (union tokens) at depth at most 3, for the summary.
fn costly_folders<'a>(
    f: &'a Folder,
    path: String,
    depth: usize,
    out: &mut Vec<(String, &'a Folder)>,
) {
    for c in &f.folders {
        let p = if path.is_empty() {
            c.name.clone()
        } else {
            format!("{path}/{}", c.name)
        };
        out.push((p.clone(), c));
        if depth < 3 {
            costly_folders(c, p, depth + 1, out);
        }
    }
}

pub fn summary(r: &Report, color: bool) -> String {
    let mut o = String::new();
    totals(&mut o, r, color);
    folders(&mut o, r, color);
    rules(&mut o, r, color);
    problems(&mut o, r, color);
    agents(&mut o, r, color);
    self_load(&mut o, r, color);
    sessions(&mut o, r);
    check(&mut o, r, color);
    o
}

/// The first lines: the tree, what is always on, what path rules govern.
fn totals(o: &mut String, r: &Report, color: bool) {
    let t = &r.totals;
    let bold = |s: &str| paint(color, Style::Bold, s);
    let _ = writeln!(
        o,
        "{} {} ({} in {}; {})",
        bold("wave-rules report:"),
        clean(&r.root),
        plural(t.files, "file", "files"),
        plural(t.folders, "folder", "folders"),
        plural(t.rules, "rule", "rules")
    );
    if let Some(why) = &r.truncated {
        let _ = writeln!(
            o,
            "{}",
            paint(color, Style::Yellow, &format!("note: {why}"))
        );
    }
    let _ = writeln!(
        o,
        "always on: {}, {} tokens in every conversation ({}: {})",
        plural(t.always_rules, "rule", "rules"),
        thousands(t.always_tokens),
        r.tokenizer.encoding,
        r.tokenizer.models
    );
    if t.files > 0 {
        let _ = writeln!(
            o,
            "path rules govern {} of {} files; the costliest file brings {} tokens: {}",
            thousands(t.governed_files),
            thousands(t.files),
            thousands(t.max_file_tokens),
            clean(&t.max_file)
        );
    }
}

/// Folders by what touching all of them costs.
fn folders(o: &mut String, r: &Report, color: bool) {
    let t = &r.totals;
    let bold = |s: &str| paint(color, Style::Bold, s);
    let mut folders = Vec::new();
    costly_folders(&r.tree, String::new(), 1, &mut folders);
    folders.sort_by(|a, b| b.1.tokens.cmp(&a.1.tokens).then(a.0.cmp(&b.0)));
    let folders: Vec<_> = folders
        .into_iter()
        .filter(|(_, f)| f.tokens > t.always_tokens)
        .take(ROWS)
        .collect();
    if !folders.is_empty() {
        let _ = writeln!(
            o,
            "\n{}",
            bold("folders by tokens (every rule that applies below):")
        );
        for (p, f) in folders {
            let _ = writeln!(
                o,
                "  {:>8}  {:>15}  {:>12}  {}/",
                thousands(f.tokens),
                plural(f.rules.len() as u64, "path rule", "path rules"),
                plural(f.files, "file", "files"),
                clean(&p)
            );
        }
    }
}

/// The rules by reach times cost.
fn rules(o: &mut String, r: &Report, color: bool) {
    let bold = |s: &str| paint(color, Style::Bold, s);
    if !r.rules.is_empty() {
        let _ = writeln!(o, "\n{}", bold("rules by reach and cost:"));
        let mut idx: Vec<usize> = (0..r.rules.len()).collect();
        idx.sort_by(|&a, &b| {
            let (x, y) = (&r.rules[a], &r.rules[b]);
            (y.reach * y.tokens)
                .cmp(&(x.reach * x.tokens))
                .then(y.tokens.cmp(&x.tokens))
                .then(a.cmp(&b))
        });
        let _ = writeln!(o, "  {:>7}  {:>7}  {:<12}  id", "tokens", "files", "kind");
        for &i in idx.iter().take(ROWS) {
            let row = &r.rules[i];
            let _ = writeln!(
                o,
                "  {:>7}  {:>7}  {:<12}  {}",
                thousands(row.tokens),
                if row.kind == "always" || row.path_files > 0 || !row.paths.is_empty() {
                    thousands(row.reach)
                } else {
                    "-".into()
                },
                clean(&row.kind),
                clean(&row.id)
            );
        }
        if r.rules.len() > ROWS {
            let _ = writeln!(o, "  ... {} more", r.rules.len() - ROWS);
        }
    }
}

/// The problems, the first `2 * ROWS`.
fn problems(o: &mut String, r: &Report, color: bool) {
    let bold = |s: &str| paint(color, Style::Bold, s);
    if !r.problems.is_empty() {
        let _ = writeln!(
            o,
            "\n{}",
            bold(&format!("problems ({}):", r.problems.len()))
        );
        for p in r.problems.iter().take(2 * ROWS) {
            let style = match p.severity {
                "error" => Style::Red,
                "warning" => Style::Yellow,
                _ => Style::Cyan,
            };
            let at = match p.line {
                Some(l) => format!("{}:{l}", p.file),
                None => p.file.clone(),
            };
            let _ = writeln!(
                o,
                "  {} {}: {}",
                paint(color, style, &format!("{:<12}", p.kind)),
                clean(&at),
                clean(&p.message)
            );
        }
        if r.problems.len() > 2 * ROWS {
            let _ = writeln!(o, "  ... {} more", r.problems.len() - 2 * ROWS);
        }
    }
}

/// What each export target keeps, when anything is exported.
fn agents(o: &mut String, r: &Report, color: bool) {
    let bold = |s: &str| paint(color, Style::Bold, s);
    let exported = r.agents.iter().any(|a| a.kept + a.lossy + a.skipped > 0);
    if exported {
        let _ = writeln!(
            o,
            "\n{}",
            bold("what each agent keeps (export, read back):")
        );
        for a in &r.agents {
            let _ = writeln!(
                o,
                "  {:<11} {:>4} kept, {:>3} in a closer form, {:>3} left out, {:>3} its own; always-on there: {} tokens",
                a.target,
                a.kept,
                a.lossy,
                a.skipped,
                a.native,
                thousands(a.always_tokens)
            );
        }
    }
}

/// Per agent: what it loads by itself, what we add, what loads twice.
fn self_load(o: &mut String, r: &Report, color: bool) {
    let bold = |s: &str| paint(color, Style::Bold, s);
    if r.self_load
        .iter()
        .all(|a| a.itself.is_empty() && a.ours.is_empty())
    {
        return;
    }
    let _ = writeln!(
        o,
        "\n{}",
        bold("what each agent loads by itself, what we add, what loads twice:")
    );
    for a in &r.self_load {
        let _ = writeln!(
            o,
            "  {:<9} {:>3} by itself, {:>3} from us{}",
            a.agent,
            a.itself.len(),
            a.ours.len(),
            if a.twice.is_empty() {
                String::new()
            } else {
                format!(", {} loaded twice", a.twice.len())
            }
        );
        for copies in &a.twice {
            let _ = writeln!(o, "    twice: {}", copies.join(", "));
        }
    }
}

/// What the delivery log says of the project's sessions.
fn sessions(o: &mut String, r: &Report) {
    let s = &r.sessions;
    let _ = writeln!(o);
    if !s.enabled {
        let _ = writeln!(o, "sessions: the delivery log is off (WAVE_RULES_LOG)");
    } else if s.sessions.is_empty() {
        let _ = writeln!(
            o,
            "sessions: none logged for this project in the last 30 days ({})",
            clean(&s.log)
        );
    } else {
        let _ = writeln!(
            o,
            "sessions: {}, {}, {} tokens given (last 30 days)",
            plural(s.sessions.len() as u64, "session", "sessions"),
            plural(s.deliveries, "delivery", "deliveries"),
            thousands(s.tokens)
        );
        if !s.never_fired.is_empty() {
            let ids: Vec<String> = s
                .never_fired
                .iter()
                .take(ROWS)
                .map(|&i| clean(&r.rules[i as usize].id).into_owned())
                .collect();
            let more = s.never_fired.len().saturating_sub(ROWS);
            let _ = writeln!(
                o,
                "  given in none of the last {}: {}{}",
                plural(s.window.min(s.sessions.len() as u64), "session", "sessions"),
                ids.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        for row in s.by_rule.iter().take(3) {
            let _ = writeln!(
                o,
                "  {:>8} tokens in {} deliveries: {}",
                thousands(row[2]),
                thousands(row[1]),
                clean(&r.rules[row[0] as usize].id)
            );
        }
    }
}

/// The `--check` verdict.
fn check(o: &mut String, r: &Report, color: bool) {
    if let Some(c) = &r.check {
        let _ = writeln!(
            o,
            "\ncheck: budget {} tokens: {}",
            thousands(c.budget),
            if c.ok {
                paint(color, Style::Bold, "within budget")
            } else {
                paint(color, Style::Red, "over budget")
            }
        );
    }
}

/// What `--check` says on stderr when over budget.
pub fn check_failure(c: &Check) -> String {
    let mut o = String::new();
    for (what, tokens) in &c.over {
        let what = if what == "always-on" {
            "the always-on rules".to_string()
        } else {
            clean(what).into_owned()
        };
        let _ = writeln!(
            o,
            "wave-rules: {what}: {} tokens, over the budget of {}",
            thousands(*tokens),
            thousands(c.budget)
        );
    }
    let listed = c.over.iter().filter(|(w, _)| w != "always-on").count() as u64;
    if c.files_over > listed {
        let _ = writeln!(
            o,
            "wave-rules: ... and {} more files over the budget",
            thousands(c.files_over - listed)
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(1_500), "2 KB");
        assert_eq!(size(1_234_567), "1.2 MB");
    }
}
