//! Shared output helpers: paths as users see them, source snippets, JSON.

use memory_rules::Diagnostic;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

/// Text from a file (a name, key, value, line) made safe to print on one
/// line: control characters (newline, carriage return, ESC, ...), line and
/// paragraph separators and bidi controls are written as escapes (`\n`,
/// `\x1b`, `\u{202e}`), so no file can inject a GitHub Actions workflow
/// command or a terminal escape sequence. Tabs stay.
pub fn clean(s: &str) -> Cow<'_, str> {
    let bad = |c: char| {
        (c.is_control() && c != '\t')
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if bad(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if bad(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `clean(s)` and a newline.
pub fn line(s: &str) -> String {
    let mut l = clean(s).into_owned();
    l.push('\n');
    l
}

/// A path relative to the workdir when inside it, else as it is.
pub fn show(path: &Path, workdir: &Path) -> String {
    match path.strip_prefix(workdir) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => path.to_string_lossy().into_owned(),
    }
}

/// A path as a URI path: `/`-separated, percent-encoded but for `/` and
/// the unreserved characters (`a dir/x.md` is `a%20dir/x.md`).
pub fn uri_path(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `file:` URI of an absolute path (`file:///C:/x` on Windows).
pub fn file_uri(path: &Path) -> String {
    let p = uri_path(path);
    if p.starts_with('/') {
        format!("file://{p}")
    } else {
        format!("file:///{p}")
    }
}

/// Source lines of files, read once each.
#[derive(Default)]
pub struct Sources {
    files: HashMap<String, Option<Vec<String>>>,
}

impl Sources {
    /// The diagnostic's line with a caret under its column, indented; empty
    /// when the file or line cannot be read.
    pub fn snippet(&mut self, d: &Diagnostic) -> String {
        let Some(line) = d.line else {
            return String::new();
        };
        let lines = self.files.entry(d.file_path.clone()).or_insert_with(|| {
            let text = memory_rules::sources::read_rule_file(Path::new(&d.file_path)).ok()?;
            let text = String::from_utf8_lossy(&text);
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            Some(
                text.lines()
                    .map(|l| l.trim_end_matches('\r').to_string())
                    .collect(),
            )
        });
        let Some(source) = lines.as_ref().and_then(|l| l.get(line as usize - 1)) else {
            return String::new();
        };
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        let source = clean(source);
        let mut out = format!("  {number} | {source}\n");
        if let Some(col) = d.column {
            let before: String = source
                .chars()
                .take(col.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&format!("  {pad} | {before}^\n"));
        }
        out
    }
}

/// A diagnostic as JSON, with the path shown relative to the workdir.
pub fn diagnostic_json(d: &Diagnostic, workdir: &Path) -> serde_json::Value {
    serde_json::json!({
        "severity": d.severity.as_str(),
        "code": d.code.as_str(),
        "message": d.message,
        "file": show(Path::new(&d.file_path), workdir),
        "line": d.line,
        "column": d.column,
    })
}

/// Pretty JSON followed by a newline.
pub fn json_text(value: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into());
    s.push('\n');
    s
}

/// The first line of a rule's content, cut to `max` characters.
pub fn first_line(content: &str, max: usize) -> String {
    let line = content.lines().next().unwrap_or("");
    if line.chars().count() > max {
        let cut: String = line.chars().take(max.saturating_sub(3)).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}

/// `paths: a, b; topics: x` or `always`.
pub fn triggers(m: &memory_rules::Metadata) -> String {
    let mut parts = Vec::new();
    if let Some(p) = &m.paths {
        parts.push(format!("paths: {}", p.join(", ")));
    }
    if let Some(t) = &m.topics {
        parts.push(format!("topics: {}", t.join(", ")));
    }
    if let Some(r) = &m.regex {
        parts.push(format!("regex: {}", r.join(", ")));
    }
    if let Some(s) = &m.skills {
        parts.push(format!("skills: {}", s.join(", ")));
    }
    match m.activation {
        memory_rules::Activation::OnRequest => parts.push("on request".into()),
        memory_rules::Activation::Manual => parts.push("manual (@mention)".into()),
        memory_rules::Activation::Auto => {}
    }
    if parts.is_empty() {
        "always".into()
    } else {
        parts.join("; ")
    }
}

/// Where a rule came from, as every JSON output gives it: `layer` (pack,
/// user, project, policy), `provenance` (`@acme/rules@2.3.1:security.md`),
/// `locked`, `pack` when it has one, `overrides` (the provenance of each
/// rule of the same id it replaced).
pub fn origin_json(r: &memory_rules::Rule, into: &mut serde_json::Value) {
    let o = &r.origin;
    into["layer"] = o.layer.as_str().into();
    into["provenance"] = o.provenance.clone().into();
    into["locked"] = o.locked.into();
    if let Some(p) = &o.pack {
        into["pack"] = p.clone().into();
    }
    into["overrides"] = o.overrides.clone().into();
}

/// `  id (provenance) overrides A, B` lines for the rules that replaced
/// others; empty when none did.
pub fn override_lines(rules: &[memory_rules::Rule]) -> String {
    let mut out = String::new();
    for r in rules.iter().filter(|r| !r.origin.overrides.is_empty()) {
        out.push_str(&line(&format!(
            "{} ({}) overrides {}",
            r.id,
            r.origin.provenance,
            r.origin.overrides.join(", ")
        )));
    }
    out
}

/// The diagnostics about the layers that change which rules load: a
/// `disable` applied or refused, a rule not used because a locked one has
/// its id, a pack missing or stale.
pub fn layer_notes(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    use memory_rules::Code;
    diagnostics
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                Code::Disabled | Code::Locked | Code::PackMissing | Code::PackStale
            )
        })
        .collect()
}

/// [`layer_notes`] as text lines: `code: message`.
pub fn layer_note_lines(diagnostics: &[Diagnostic]) -> String {
    layer_notes(diagnostics)
        .into_iter()
        .map(|d| line(&format!("{}: {}", d.code, d.message)))
        .collect()
}
