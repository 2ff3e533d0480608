//! Eval scenarios: `.wave/evals/*.yaml` files and a rule's own `evals:`
//! frontmatter key, read into [`Scenario`]s with line-numbered problems.
//!
//! ```yaml
//! prompt: Add a debug line to src/app.ts that prints the user id.
//! rules: [logging]                 # the rules under test; without it: every rule
//! files: { src/app.ts: "export function handler(user) { return user.id }\n" }
//! expect:
//!   - file: src/app.ts
//!     contains: logger.debug       # also not_contains, matches, unchanged, exists, absent
//!   - command_not_run: "rm -rf"    # also command_ran (regexes over the shell commands)
//!   - reply_contains: logger       # also reply_not_contains
//!   - run: npm test                # must exit 0 in the scratch copy afterwards
//! ```
//!
//! A conversation of several turns has `turns:` (a list of prompts) instead
//! of `prompt:`; a check with `after_turn: N` runs after turn N instead of
//! after the last.

use super::{MAX_EVAL_TURNS, MAX_SCENARIO_BYTES};
use regex_automata::meta::Regex;
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One scenario: a prompt, the rules it measures, the files it starts
/// from and the checks every run must pass.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file's stem (`logging` for `.wave/evals/logging.yaml`), or the
    /// rule's id for a rule's `evals:` (`-2`, `-3`... after the first).
    pub name: String,
    /// Where it was written, and its line there.
    pub file: PathBuf,
    pub line: u64,
    /// The prompts of the conversation, in order: one for `prompt:`, each
    /// of `turns:` for a conversation of several turns.
    pub turns: Vec<String>,
    /// The rules under test, as written (ids or file names); `None`: every rule.
    pub rules: Option<Vec<String>>,
    /// Files written into the scratch copy before the run: (relative path, text).
    pub files: Vec<(String, String)>,
    /// The checks after the last turn.
    pub expect: Vec<Check>,
    /// The checks after an earlier turn (`after_turn: N`), by turn (1-based).
    pub turn_expect: BTreeMap<usize, Vec<Check>>,
    /// The scenario as written (it keys the stored results).
    pub source: String,
}

impl Scenario {
    /// Every check, those after an earlier turn first.
    pub fn all_checks(&self) -> impl Iterator<Item = &Check> {
        self.turn_expect.values().flatten().chain(&self.expect)
    }

    /// What the agent was asked up to turn `turn` (1-based), as a judge
    /// reads it: the prompt itself for one turn, else each turn's prompt
    /// after its number.
    pub fn prompts_through(&self, turn: usize) -> String {
        match &self.turns[..turn.min(self.turns.len())] {
            [one] => one.clone(),
            many => many
                .iter()
                .enumerate()
                .map(|(i, p)| format!("Turn {}: {p}", i + 1))
                .collect::<Vec<_>>()
                .join("\n\n"),
        }
    }
}

/// One check of a finished run.
#[derive(Debug, Clone)]
pub enum Check {
    /// A file of the scratch copy, by its path relative to the project.
    File {
        path: String,
        test: FileTest,
    },
    /// Some shell command the model called matches (or none does).
    CommandRan(Pattern),
    CommandNotRun(Pattern),
    /// The agent's final answer (its standard output) holds the text, or not.
    ReplyContains(String),
    ReplyNotContains(String),
    /// A shell command that must exit 0 in the scratch copy afterwards.
    Run(String),
    /// What must hold, graded by a judge model (`--judge-base-url`).
    Judge(String),
}

/// What a `file:` check asks of its file.
#[derive(Debug, Clone)]
pub enum FileTest {
    Contains(String),
    NotContains(String),
    Matches(Pattern),
    Unchanged,
    Exists,
    Absent,
}

/// A compiled regex with the text it was written as.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub text: String,
    pub regex: Regex,
}

/// A problem with a scenario: its file, line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    pub line: u64,
    pub message: String,
}

impl Problem {
    /// The problem as a diagnostic (`invalid-scenario`, an error) of
    /// `path`, the file as the caller names it (the LSP's document).
    pub fn diagnostic(&self, path: &Path) -> memory_rules::Diagnostic {
        let mut d = memory_rules::Diagnostic::new(
            memory_rules::Severity::Error,
            memory_rules::Code::InvalidScenario,
            path,
            self.message.clone(),
        );
        d.line = u32::try_from(self.line).ok();
        d
    }
}

/// The problems of a text as the editor holds it: a scenario file, or a
/// rule file's `evals:` (none when it has none).
pub fn problems_of_text(path: &Path, text: &str, is_rule: bool) -> Vec<Problem> {
    if !is_rule {
        return parse_file(path, text).err().unwrap_or_default();
    }
    let id = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match parse_rule_evals(path, &id, text) {
        Some(Err(problems)) => problems,
        _ => Vec::new(),
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.message)
    }
}

/// The keys a scenario may have.
pub const SCENARIO_KEYS: [&str; 6] = ["prompt", "turns", "rules", "files", "expect", "name"];
/// The key of a check that runs it after an earlier turn than the last.
pub const AFTER_TURN: &str = "after_turn";
/// The keys of one `expect` item.
pub const CHECK_KEYS: [&str; 7] = [
    "file",
    "command_ran",
    "command_not_run",
    "reply_contains",
    "reply_not_contains",
    "run",
    "judge",
];
/// The tests a `file:` check may carry (one or more).
pub const FILE_TESTS: [&str; 6] = [
    "contains",
    "not_contains",
    "matches",
    "unchanged",
    "exists",
    "absent",
];

type Item = Spanned<BTreeMap<String, Spanned<Value>>>;

/// One item of `expect`: its checks, and `after_turn` with its line.
struct Staged {
    after_turn: Option<(usize, u64)>,
    checks: Vec<Check>,
}

/// Reads one `.wave/evals/*.yaml` file.
pub fn parse_file(file: &Path, text: &str) -> Result<Scenario, Vec<Problem>> {
    let at = |line: u64, message: String| Problem {
        file: file.to_path_buf(),
        line,
        message,
    };
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(vec![at(1, format!("the scenario is {} bytes, over the limit of {MAX_SCENARIO_BYTES} (MAX_SCENARIO_BYTES)", text.len()))]);
    }
    let map: BTreeMap<String, Spanned<Value>> = match serde_saphyr::from_str(text) {
        Ok(map) => map,
        Err(e) => {
            return Err(vec![at(
                yaml_line(&e),
                format!("not a YAML mapping: {}", first_line(&e.to_string())),
            )])
        }
    };
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let reader = Reader {
        file,
        yaml: text,
        line_offset: 0,
    };
    reader.scenario(name, 1, &map, text.to_string(), false)
}

/// Reads the scenarios of a rule's `evals:` key (a list of scenarios
/// without `rules:`: the rule itself is under test). `None` when the rule
/// file has no `evals:`.
pub fn parse_rule_evals(
    file: &Path,
    rule_id: &str,
    text: &str,
) -> Option<Result<Vec<Scenario>, Vec<Problem>>> {
    let (yaml, first_line) = frontmatter(text)?;
    if !yaml.lines().any(|l| l.starts_with("evals:")) {
        return None;
    }
    let reader = Reader {
        file,
        yaml,
        line_offset: first_line - 1,
    };
    let items = match serde_saphyr::from_str::<RuleEvals>(yaml) {
        Ok(RuleEvals { evals: Some(items) }) => items,
        Ok(RuleEvals { evals: None }) => return None,
        Err(e) => {
            let line = yaml
                .lines()
                .position(|l| l.starts_with("evals:"))
                .unwrap_or(0) as u64
                + 1;
            return Some(Err(vec![reader.problem(
                line,
                format!(
                    "'evals' is a list of scenarios, each a mapping with prompt and expect ({})",
                    first_line_of(&e)
                ),
            )]));
        }
    };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let stem = rule_id.rsplit_once('.').map_or(rule_id, |(stem, _)| stem);
    for (n, item) in items.iter().enumerate() {
        let name = if n == 0 {
            stem.to_string()
        } else {
            format!("{stem}-{}", n + 1)
        };
        let line = item.referenced.line();
        let shifted = Reader {
            file,
            yaml,
            line_offset: reader.line_offset,
        };
        let source = format!(
            "{rule_id}#{n}:{}",
            serde_json::to_string(&plain(&item.value)).unwrap_or_default()
        );
        match shifted.scenario(name, line, &item.value, source, true) {
            Ok(mut s) => {
                s.line += reader.line_offset;
                s.rules = Some(vec![rule_id.to_string()]);
                out.push(s);
            }
            Err(p) => problems.extend(p),
        }
    }
    Some(if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    })
}

/// The frontmatter of a rule file and the line of its first YAML line.
fn frontmatter(text: &str) -> Option<(&str, u64)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut end = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..end], 2));
        }
        end += line.len();
    }
    None
}

/// A rule's frontmatter, as far as `evals:` goes (the core reads the rest).
#[derive(serde::Deserialize)]
struct RuleEvals {
    evals: Option<Vec<Item>>,
}

struct Reader<'f> {
    file: &'f Path,
    /// The YAML text the lines count in.
    yaml: &'f str,
    /// Added to the YAML's own line numbers (a rule's frontmatter starts at line 2).
    line_offset: u64,
}

impl Reader<'_> {
    fn problem(&self, line: u64, message: String) -> Problem {
        Problem {
            file: self.file.to_path_buf(),
            line: line + self.line_offset,
            message,
        }
    }

    /// A scenario from its keys; `in_rule`: from a rule's `evals:` (no `rules:`).
    fn scenario(
        &self,
        name: String,
        line: u64,
        map: &BTreeMap<String, Spanned<Value>>,
        source: String,
        in_rule: bool,
    ) -> Result<Scenario, Vec<Problem>> {
        let mut problems = Vec::new();
        for (key, value) in map {
            if !SCENARIO_KEYS.contains(&key.as_str()) || (in_rule && key == "rules") {
                let known = SCENARIO_KEYS
                    .iter()
                    .filter(|k| !(in_rule && **k == "rules"))
                    .copied()
                    .collect::<Vec<_>>();
                problems.push(self.problem(
                    value.referenced.line(),
                    format!("unknown key '{key}' (known: {})", known.join(", ")),
                ));
            }
        }
        let turns = self.turns(map, line, &mut problems);
        let rules = map.get("rules").and_then(|v| self.rules(v, &mut problems));
        let files = map
            .get("files")
            .map(|v| self.files(v, &mut problems))
            .unwrap_or_default();
        let staged = match map.get("expect") {
            Some(v) => self.checks(v, &mut problems),
            None => {
                problems
                    .push(self.problem(line, "a scenario needs 'expect', a list of checks".into()));
                Vec::new()
            }
        };
        let (expect, turn_expect) = self.by_turn(staged, turns.len(), &mut problems);
        let name = match map.get("name").map(|v| &v.value) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
            _ => name,
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Scenario {
            name,
            file: self.file.to_path_buf(),
            line,
            turns,
            rules,
            files,
            expect,
            turn_expect,
            source,
        })
    }

    /// The prompts: `prompt:` (one turn) or `turns:` (a list of at least
    /// one, at most [`MAX_EVAL_TURNS`]), never both.
    fn turns(
        &self,
        map: &BTreeMap<String, Spanned<Value>>,
        line: u64,
        problems: &mut Vec<Problem>,
    ) -> Vec<String> {
        let text = |v: &Value| {
            v.as_str()
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string)
        };
        match (map.get("prompt"), map.get("turns")) {
            (Some(p), Some(t)) => {
                let l = p.referenced.line().max(t.referenced.line());
                problems.push(self.problem(l, "a scenario has 'prompt' (one turn) or 'turns' (a list of prompts), not both".into()));
                Vec::new()
            }
            (Some(p), None) => match text(&p.value) {
                Some(s) => vec![s],
                None => {
                    problems.push(self.problem(
                        p.referenced.line(),
                        "'prompt' is the text given to the agent, a non-empty string".into(),
                    ));
                    Vec::new()
                }
            },
            (None, Some(t)) => {
                let l = t.referenced.line();
                let list: Option<Vec<String>> = match &t.value {
                    Value::Array(items) if !items.is_empty() => items.iter().map(text).collect(),
                    _ => None,
                };
                match list {
                    Some(list) if list.len() <= MAX_EVAL_TURNS => list,
                    Some(list) => {
                        problems.push(self.problem(l, format!("'turns' has {} prompts, over the limit of {MAX_EVAL_TURNS} (MAX_EVAL_TURNS)", list.len())));
                        Vec::new()
                    }
                    None => {
                        problems.push(self.problem(l, "'turns' is a list of prompts, each a non-empty string, given to the agent in one conversation".into()));
                        Vec::new()
                    }
                }
            }
            (None, None) => {
                problems.push(self.problem(
                    line,
                    "a scenario needs a 'prompt' (or 'turns', a list of prompts)".into(),
                ));
                Vec::new()
            }
        }
    }

    /// The checks after the last turn, and those after an earlier one by
    /// turn; an `after_turn` past the last turn is a problem.
    fn by_turn(
        &self,
        staged: Vec<Staged>,
        turns: usize,
        problems: &mut Vec<Problem>,
    ) -> (Vec<Check>, BTreeMap<usize, Vec<Check>>) {
        let mut last = Vec::new();
        let mut earlier: BTreeMap<usize, Vec<Check>> = BTreeMap::new();
        for s in staged {
            match s.after_turn {
                Some((n, l)) if turns > 0 && n > turns => problems.push(self.problem(
                    l,
                    format!("'after_turn: {n}': the scenario has {turns} turn(s)"),
                )),
                Some((n, _)) if n < turns => earlier.entry(n).or_default().extend(s.checks),
                _ => last.extend(s.checks),
            }
        }
        (last, earlier)
    }

    fn rules(&self, value: &Spanned<Value>, problems: &mut Vec<Problem>) -> Option<Vec<String>> {
        let line = value.referenced.line();
        let list = match &value.value {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) if items.iter().all(Value::is_string) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => {
                problems
                    .push(self.problem(line, "'rules' is a list of rule ids or file names".into()));
                return None;
            }
        };
        if list.is_empty() {
            problems.push(self.problem(
                line,
                "'rules' is empty: leave it out to test every rule".into(),
            ));
        }
        Some(list)
    }

    fn files(&self, value: &Spanned<Value>, problems: &mut Vec<Problem>) -> Vec<(String, String)> {
        let line = value.referenced.line();
        let Value::Object(map) = &value.value else {
            problems.push(self.problem(line, "'files' maps relative paths to their text".into()));
            return Vec::new();
        };
        let mut out = Vec::new();
        for (path, text) in map {
            if let Err(why) = relative_path(path) {
                problems.push(self.problem(line, format!("files: '{path}' {why}")));
            }
            match text.as_str() {
                Some(t) => out.push((path.clone(), t.to_string())),
                None => problems
                    .push(self.problem(line, format!("files: the text of '{path}' is a string"))),
            }
        }
        out
    }

    fn checks(&self, value: &Spanned<Value>, problems: &mut Vec<Problem>) -> Vec<Staged> {
        let Value::Array(items) = &value.value else {
            problems.push(self.problem(
                value.referenced.line(),
                "'expect' is a list of checks".into(),
            ));
            return Vec::new();
        };
        let mut out = Vec::new();
        // Each item's own line: read the list again with spans.
        let spans: Vec<u64> = self.item_lines(value, items.len());
        for (item, line) in items.iter().zip(spans) {
            let staged = self.after_turn(item, line).and_then(|(after_turn, item)| {
                self.check(&item, line)
                    .map(|checks| Staged { after_turn, checks })
            });
            match staged {
                Ok(s) => out.push(s),
                Err(p) => problems.push(p),
            }
        }
        if out.is_empty() && problems.is_empty() {
            problems.push(self.problem(value.referenced.line(), "'expect' has no check".into()));
        }
        out
    }

    /// The line of each item of a list value (its own line when the list
    /// is written one item per line, else the list's line).
    fn item_lines(&self, value: &Spanned<Value>, n: usize) -> Vec<u64> {
        let first = value.referenced.line();
        let found = block_items(self.yaml, first);
        (0..n)
            .map(|i| found.get(i).copied().unwrap_or(first))
            .collect()
    }

    /// An item's `after_turn: N` (N at least 1) and the item without it.
    fn after_turn(
        &self,
        item: &Value,
        line: u64,
    ) -> Result<(Option<(usize, u64)>, Value), Problem> {
        let Value::Object(map) = item else {
            return Ok((None, item.clone()));
        };
        let Some(n) = map.get(AFTER_TURN) else {
            return Ok((None, item.clone()));
        };
        let n = n
            .as_u64()
            .filter(|&n| n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                self.problem(
                    line,
                    format!("'{AFTER_TURN}' takes a turn's number, 1 for the first"),
                )
            })?;
        let mut rest = map.clone();
        rest.remove(AFTER_TURN);
        Ok((Some((n, line)), Value::Object(rest)))
    }

    fn check(&self, item: &Value, line: u64) -> Result<Vec<Check>, Problem> {
        let Value::Object(map) = item else {
            return Err(self.problem(
                line,
                format!(
                    "a check is a mapping with one of: {}",
                    CHECK_KEYS.join(", ")
                ),
            ));
        };
        let kind = map.keys().find(|k| CHECK_KEYS.contains(&k.as_str()));
        let Some(kind) = kind else {
            let key = map.keys().next().cloned().unwrap_or_default();
            return Err(self.problem(
                line,
                format!("unknown check '{key}' (known: {})", CHECK_KEYS.join(", ")),
            ));
        };
        let text = |key: &str| -> Result<String, Problem> {
            match map.get(key) {
                Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
                _ => Err(self.problem(line, format!("'{key}' takes a non-empty string"))),
            }
        };
        let pattern = |key: &str| -> Result<Pattern, Problem> {
            let t = text(key)?;
            Regex::new(&t)
                .map(|regex| Pattern {
                    text: t.clone(),
                    regex,
                })
                .map_err(|e| {
                    self.problem(
                        line,
                        format!("'{key}': the regex '{t}' does not compile: {e}"),
                    )
                })
        };
        if kind != "file" {
            if let Some(extra) = map.keys().find(|k| *k != kind) {
                return Err(
                    self.problem(line, format!("unknown key '{extra}' in a '{kind}' check"))
                );
            }
        }
        Ok(vec![match kind.as_str() {
            "file" => return self.file_checks(map, line, text("file")?),
            "command_ran" => Check::CommandRan(pattern(kind)?),
            "command_not_run" => Check::CommandNotRun(pattern(kind)?),
            "reply_contains" => Check::ReplyContains(text(kind)?),
            "reply_not_contains" => Check::ReplyNotContains(text(kind)?),
            "judge" => Check::Judge(text(kind)?),
            _ => Check::Run(text(kind)?),
        }])
    }

    fn file_checks(
        &self,
        map: &serde_json::Map<String, Value>,
        line: u64,
        path: String,
    ) -> Result<Vec<Check>, Problem> {
        relative_path(&path).map_err(|why| self.problem(line, format!("file: '{path}' {why}")))?;
        let mut out = Vec::new();
        for (key, value) in map.iter().filter(|(k, _)| *k != "file") {
            let string = || match value {
                Value::String(s) if !s.is_empty() => Ok(s.clone()),
                _ => Err(self.problem(line, format!("'{key}' takes a non-empty string"))),
            };
            let flag = || match value {
                Value::Bool(true) => Ok(()),
                _ => Err(self.problem(line, format!("'{key}' takes true"))),
            };
            let test = match key.as_str() {
                "contains" => FileTest::Contains(string()?),
                "not_contains" => FileTest::NotContains(string()?),
                "matches" => {
                    let t = string()?;
                    let regex = Regex::new(&t).map_err(|e| {
                        self.problem(
                            line,
                            format!("'matches': the regex '{t}' does not compile: {e}"),
                        )
                    })?;
                    FileTest::Matches(Pattern { text: t, regex })
                }
                "unchanged" => flag().map(|()| FileTest::Unchanged)?,
                "exists" => flag().map(|()| FileTest::Exists)?,
                "absent" => flag().map(|()| FileTest::Absent)?,
                other => {
                    return Err(self.problem(
                        line,
                        format!(
                            "unknown test '{other}' of a file check (known: {})",
                            FILE_TESTS.join(", ")
                        ),
                    ))
                }
            };
            out.push(Check::File {
                path: path.clone(),
                test,
            });
        }
        if out.is_empty() {
            return Err(self.problem(
                line,
                format!(
                    "the check of '{path}' has no test (one of: {})",
                    FILE_TESTS.join(", ")
                ),
            ));
        }
        Ok(out)
    }
}

/// The lines of a block list's items (`- ` at the first item's indent),
/// from the list's first line (1-based) on; empty for a flow list.
fn block_items(yaml: &str, first: u64) -> Vec<u64> {
    let lines: Vec<&str> = yaml.lines().collect();
    let Some(start) = (first as usize).checked_sub(1).filter(|&i| i < lines.len()) else {
        return Vec::new();
    };
    let head = lines[start];
    let indent = head.len() - head.trim_start().len();
    if !head.trim_start().starts_with('-') {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(start) {
        let own = line.len() - line.trim_start().len();
        if line.trim().is_empty() || line.trim_start().starts_with('#') || own > indent {
            continue;
        }
        if own < indent || !line.trim_start().starts_with('-') {
            break;
        }
        out.push(i as u64 + 1);
    }
    out
}

/// A relative path that stays inside the project.
fn relative_path(path: &str) -> Result<(), &'static str> {
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() || path.starts_with('~') {
        return Err("is not a relative path inside the project");
    }
    if p.components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err("leaves the project ('..')");
    }
    Ok(())
}

fn plain(map: &BTreeMap<String, Spanned<Value>>) -> BTreeMap<&str, &Value> {
    map.iter().map(|(k, v)| (k.as_str(), &v.value)).collect()
}

fn yaml_line(e: &serde_saphyr::Error) -> u64 {
    e.location().map_or(1, |l| l.line().max(1))
}

fn first_line_of(e: &serde_saphyr::Error) -> String {
    first_line(&e.to_string())
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        parse_file(Path::new(".wave/evals/s.yaml"), text)
            .err()
            .unwrap_or_default()
            .iter()
            .map(|p| p.to_string())
            .collect()
    }

    const GOOD: &str = "prompt: Add a debug line to src/app.ts\nrules: [logging.md]\nfiles:\n  src/app.ts: \"export const a = 1\\n\"\nexpect:\n  - file: src/app.ts\n    contains: logger.debug\n    not_contains: console.log\n  - command_not_run: \"rm -rf\"\n  - reply_contains: logger\n  - run: npm test\n";

    #[test]
    fn the_issue_example_reads_into_its_checks() {
        let s = parse_file(Path::new(".wave/evals/logging.yaml"), GOOD).unwrap();
        assert_eq!(s.name, "logging");
        assert_eq!(s.rules, Some(vec!["logging.md".to_string()]));
        assert_eq!(
            s.files,
            vec![("src/app.ts".to_string(), "export const a = 1\n".to_string())]
        );
        let kinds: Vec<String> = s
            .expect
            .iter()
            .map(|c| {
                format!("{c:?}")
                    .split(['(', ' '])
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            ["File", "File", "CommandNotRun", "ReplyContains", "Run"]
        );
    }

    #[test]
    fn an_unknown_check_is_named_at_its_line() {
        let text = "prompt: p\nexpect:\n  - file: a.ts\n    contains: x\n  - commnd_ran: ls\n";
        assert_eq!(problems(text), [".wave/evals/s.yaml:5: unknown check 'commnd_ran' (known: file, command_ran, command_not_run, reply_contains, reply_not_contains, run, judge)"]);
    }

    #[test]
    fn a_regex_that_does_not_compile_is_named_at_its_line() {
        let p = problems(
            "prompt: p\nexpect:\n  - reply_contains: ok\n  - command_ran: \"(unclosed\"\n",
        );
        assert_eq!(p.len(), 1);
        assert!(
            p[0].starts_with(
                ".wave/evals/s.yaml:4: 'command_ran': the regex '(unclosed' does not compile"
            ),
            "{p:?}"
        );
    }

    #[test]
    fn missing_prompt_and_expect_and_unknown_keys_are_each_reported() {
        let p = problems("promt: p\n");
        assert!(
            p.iter().any(|m| m.contains(":1: unknown key 'promt'")),
            "{p:?}"
        );
        assert!(p.iter().any(|m| m.contains("needs a 'prompt'")), "{p:?}");
        assert!(p.iter().any(|m| m.contains("needs 'expect'")), "{p:?}");
    }

    #[test]
    fn a_file_test_without_a_test_or_outside_the_project_is_refused() {
        assert!(problems("prompt: p\nexpect:\n  - file: a.ts\n")[0].contains("has no test"));
        assert!(
            problems("prompt: p\nexpect:\n  - file: ../a.ts\n    exists: true\n")[0]
                .contains("leaves the project")
        );
        assert!(
            problems("prompt: p\nfiles:\n  /etc/x: y\nexpect:\n  - reply_contains: a\n")[0]
                .contains("not a relative path")
        );
    }

    #[test]
    fn broken_yaml_is_a_problem_with_a_line() {
        let p = problems("prompt: p\nexpect: [\n");
        assert_eq!(p.len(), 1);
        assert!(p[0].starts_with(".wave/evals/s.yaml:"), "{p:?}");
    }

    #[test]
    fn a_rules_evals_are_scenarios_of_that_rule() {
        let rule = "---\npaths: [\"src/**\"]\nevals:\n  - prompt: Add a log line\n    expect:\n      - file: src/a.ts\n        contains: logger\n  - prompt: Second\n    expect:\n      - reply_contains: ok\n---\nUse the logger, never console.log.\n";
        let found = parse_rule_evals(Path::new(".wave/rules/logging.md"), "logging", rule)
            .unwrap()
            .unwrap();
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["logging", "logging-2"]);
        assert_eq!(found[0].rules, Some(vec!["logging".to_string()]));
        assert!(parse_rule_evals(Path::new("r.md"), "r", "---\npaths: [a]\n---\nbody\n").is_none());
    }

    #[test]
    fn a_broken_check_in_a_rules_evals_names_the_rule_file_and_line() {
        let rule = "---\nevals:\n  - prompt: p\n    expect:\n      - file: a.ts\n        containz: x\n---\nbody\n";
        let p = parse_rule_evals(Path::new(".wave/rules/r.md"), "r", rule)
            .unwrap()
            .unwrap_err();
        assert_eq!(p[0].to_string(), ".wave/rules/r.md:5: unknown test 'containz' of a file check (known: contains, not_contains, matches, unchanged, exists, absent)");
    }
}
