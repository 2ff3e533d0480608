//! Wave's own `.wave/rules/*.md`: the writer `wave-rules import` uses (the
//! files are read by [`crate::rules::parser`]). It keeps everything Wave can
//! express, and says what it cannot.

use super::writer::{quote, quote_list};

/// A rule as a `.wave/rules` file (for `wave-rules import`): its
/// frontmatter lines and what Wave cannot express. The rule's `paths`
/// are written as its tool matches them (a tool's dialect and a nested
/// directory are already applied by its reader), so the meaning is kept;
/// a content `regex` is not (Wave has none): a rule with globs keeps them,
/// one without is offered by its description.
pub fn write_wave(rule: &crate::rules::rule::Rule) -> (Vec<String>, Vec<String>) {
    use crate::rules::rule::Activation;
    let meta = &rule.metadata;
    let mut front = Vec::new();
    let mut lossy = Vec::new();
    let mut activation = meta.activation;
    let mut description = meta.description.clone();
    if let Some(paths) = &meta.paths {
        front.push(format!("paths: {}", quote_list(paths)));
    }
    if let Some(topics) = &meta.topics {
        front.push(format!("topics: {}", quote_list(topics)));
    }
    if let Some(skills) = &meta.skills {
        front.push(format!("skills: {}", quote_list(skills)));
    }
    if meta.regex.is_some() {
        if meta.paths.is_some() {
            lossy.push(
                "Wave has no content regex: the rule fires for any file matching its globs"
                    .to_string(),
            );
        } else if activation == Activation::Auto {
            lossy.push("Wave has no content regex: written as on request".to_string());
            activation = Activation::OnRequest;
        }
    }
    if rule.format == crate::rules::rule_format::Format::Copilot && meta.paths.is_some() {
        lossy.push("Copilot ignores case in applyTo; Wave's paths do not".to_string());
    }
    if activation == Activation::OnRequest && description.is_none() {
        description = Some(rule.id.clone());
        lossy.push(
            "no description, and the model decides by the description whether to read an on-request rule; the rule's id is written as its description (add a real one)"
                .to_string(),
        );
    }
    if let Some(d) = &description {
        front.push(format!("description: {}", quote(d)));
    }
    match activation {
        Activation::Auto => {}
        Activation::OnRequest => front.push("activation: on-request".to_string()),
        Activation::Manual => front.push("activation: manual".to_string()),
    }
    if let Some(p) = meta.priority {
        front.push(format!("priority: {p}"));
    }
    if let Some(r) = meta.remind {
        front.push(format!("remind: {}", r.as_str()));
    }
    (front, lossy)
}
