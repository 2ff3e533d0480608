//! What the report flags: every diagnostic of the load (overrides among
//! them), path rules that match no file, globs that match (nearly) every
//! file, rules with the same text, topics that fire on common words and
//! rules too large for a rules section.

use super::model::{Problem, RuleRow};
use crate::base::display;
use memory_rules::base::limits::DEFAULT_RULES_BYTES;
use memory_rules::TopicMatcher;
use memory_rules::{Code, Diagnostic, RuleSet, Severity};
use std::collections::BTreeMap;
use std::path::Path;

/// A rule whose paths match at least this share of the tree's files is
/// reported as always-on in disguise...
pub const NEARLY_ALL: f64 = 0.9;
/// ...when the tree has at least this many files.
pub const NEARLY_ALL_MIN_FILES: u64 = 20;

/// A diagnostic's severity as the report names it.
pub(crate) fn severity(s: Severity) -> &'static str {
    s.as_str()
}

/// Whether a diagnostic is an override (a rule replaced by a later
/// source's rule of the same id).
pub(crate) fn is_override(code: Code) -> bool {
    code == Code::Overridden
}

/// Words that occur in most prompts: the most frequent English words and the
/// words people use in almost every request to a coding agent. A topic fires
/// when it starts a word of the prompt, so a topic that starts one of these
/// (`a`, `the`, `fix`, `file`, `code`) fires in nearly every conversation.
pub const COMMON_WORDS: &str = "the be to of and a in that have i it for not on with he as you do \
at this but his by from they we say her she or an will my one all would there their what so up \
out if about who get which go me when make can like time no just him know take people into year \
your good some could them see other than then now look only come its over think also back after \
use two how our work first well way even new want because any these give day most us is are was \
were been has had did does doing done should must may might shall here where why let lets please \
thanks thank hi hello ok okay yes need help try again same still more less very really much many \
each every both few such own same too just change changes changed add adds added update updates \
updated fix fixes fixed remove removed make makes made run runs running build builds check checks \
look show find write read file files code line lines function functions method class test tests \
error errors issue issue bug bugs problem work works working thing things something anything \
everything project repo part parts next last before after above below keep call calls value \
values name names type types list data set get put create delete move rename open close start \
stop use using used instead also now then";

/// Every problem of the report, most serious first within each kind.
pub fn find(
    set: &RuleSet,
    diagnostics: &[Diagnostic],
    rows: &[RuleRow],
    files: u64,
    workdir: &Path,
) -> Vec<Problem> {
    let rules = set.rules();
    let mut out = Vec::new();
    diagnostic_problems(rules, diagnostics, workdir, &mut out);
    for (i, (r, row)) in rules.iter().zip(rows).enumerate() {
        rule_problems(i as u32, r, row, files, &mut out);
    }
    duplicate_problems(rules, rows, &mut out);
    common_topic_problems(rules, rows, &mut out);
    out
}

/// Every diagnostic of the load, with the rules of its file.
fn diagnostic_problems(
    rules: &[memory_rules::Rule],
    diagnostics: &[Diagnostic],
    workdir: &Path,
    out: &mut Vec<Problem>,
) {
    let by_file: BTreeMap<&Path, Vec<u32>> =
        rules
            .iter()
            .enumerate()
            .fold(BTreeMap::new(), |mut m, (i, r)| {
                m.entry(r.file_path.as_path()).or_default().push(i as u32);
                m
            });
    for d in diagnostics {
        let file = Path::new(&d.file_path);
        out.push(Problem {
            kind: if is_override(d.code) {
                "override"
            } else {
                "diagnostic"
            },
            severity: severity(d.severity),
            rules: by_file.get(file).cloned().unwrap_or_default(),
            file: display::show(file, workdir),
            line: d.line,
            message: format!("{} [{}]", d.message, d.code.as_str()),
        });
    }
}

/// One rule's own problems: paths that match no file or nearly all, a text
/// over a rules section.
fn rule_problems(
    i: u32,
    r: &memory_rules::Rule,
    row: &RuleRow,
    files: u64,
    out: &mut Vec<Problem>,
) {
    let path_rule = r.metadata.paths.is_some() && r.metadata.activation.as_str() == "auto";
    if path_rule && files > 0 && row.path_files == 0 {
        out.push(Problem {
            kind: "no-match",
            severity: "warning",
            rules: vec![i],
            file: row.file.clone(),
            line: None,
            message: format!(
                "its paths ({}) match no file of the tree: it never fires from a file",
                row.paths.join(", ")
            ),
        });
    }
    if path_rule
        && files >= NEARLY_ALL_MIN_FILES
        && row.path_files as f64 >= NEARLY_ALL * files as f64
    {
        out.push(Problem {
            kind: "matches-all",
            severity: "warning",
            rules: vec![i],
            file: row.file.clone(),
            line: None,
            message: format!(
                "its paths ({}) match {} of {} files ({:.0}%): always-on in disguise, {} tokens in nearly every conversation that touches a file",
                row.paths.join(", "),
                row.path_files,
                files,
                100.0 * row.path_files as f64 / files as f64,
                row.tokens
            ),
        });
    }
    if row.bytes as usize > DEFAULT_RULES_BYTES {
        out.push(Problem {
            kind: "too-large",
            severity: "warning",
            rules: vec![i],
            file: row.file.clone(),
            line: None,
            message: format!(
                "its text is {} bytes ({} tokens), over the {} bytes of a hook's or MCP answer's rules section (DEFAULT_RULES_BYTES): those roads leave it out, naming it",
                row.bytes, row.tokens, DEFAULT_RULES_BYTES
            ),
        });
    }
}

/// The same text in two rules: given twice where both apply.
fn duplicate_problems(rules: &[memory_rules::Rule], rows: &[RuleRow], out: &mut Vec<Problem>) {
    let mut by_text: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (i, r) in rules.iter().enumerate() {
        let text = r.content.trim();
        if !text.is_empty() {
            by_text.entry(text).or_default().push(i as u32);
        }
    }
    for same in by_text.values().filter(|v| v.len() > 1) {
        let ids: Vec<&str> = same
            .iter()
            .map(|&i| rules[i as usize].id.as_str())
            .collect();
        out.push(Problem {
            kind: "duplicate",
            severity: "warning",
            rules: same.clone(),
            file: rows[same[0] as usize].file.clone(),
            line: None,
            message: format!(
                "{} rules have the same text ({}): a conversation where both apply is given it twice",
                same.len(),
                ids.join(", ")
            ),
        });
    }
}

/// Topics that fire on common words, matched by the engine's own topic
/// matcher against [`COMMON_WORDS`].
fn common_topic_problems(rules: &[memory_rules::Rule], rows: &[RuleRow], out: &mut Vec<Problem>) {
    let matcher = TopicMatcher::new(
        rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.metadata.topics.as_deref().map(|t| (i, t))),
    );
    let mut common: BTreeMap<usize, Vec<(String, String)>> = BTreeMap::new();
    for hit in matcher.hits(COMMON_WORDS) {
        let topic = rules[hit.rule]
            .metadata
            .topics
            .as_ref()
            .and_then(|t| t.get(hit.topic))
            .cloned()
            .unwrap_or_default();
        common.entry(hit.rule).or_default().push((topic, hit.word));
    }
    for (i, hits) in common {
        let said: Vec<String> = hits
            .iter()
            .map(|(t, w)| {
                if t.to_lowercase() == *w {
                    format!("'{t}'")
                } else {
                    format!("'{t}' (in '{w}')")
                }
            })
            .collect();
        out.push(Problem {
            kind: "common-topic",
            severity: "warning",
            rules: vec![i as u32],
            file: rows[i].file.clone(),
            line: None,
            message: format!(
                "its topic{} {} fire{} on common words: the rule is given in nearly every conversation",
                if hits.len() == 1 { "" } else { "s" },
                said.join(", "),
                if hits.len() == 1 { "s" } else { "" }
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_words_are_plain_lowercase_words() {
        for w in COMMON_WORDS.split_whitespace() {
            assert!(w.chars().all(|c| c.is_ascii_lowercase()), "{w}");
        }
    }
}
