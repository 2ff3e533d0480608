//! The core's `Rule` and `Diagnostic` as JS objects, and back (for the
//! renderer, which takes rule objects).

use memory_rules as core;
use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypeName, ValidateNapiValue};
use napi::{sys, ValueType};
use napi_derive::napi;
use std::sync::Arc;

/// A rule's text, shared with the core's rule: made into a JS string straight
/// from the core's bytes (no Rust copy made and freed on the way, which the
/// allocator would keep as resident memory); a string from JS as usual.
pub struct SharedText(pub Arc<str>);

impl TypeName for SharedText {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ValidateNapiValue for SharedText {}

impl ToNapiValue for SharedText {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        // SAFETY: the same call as for a `&str`, on the shared bytes.
        unsafe { <&str as ToNapiValue>::to_napi_value(env, &val.0) }
    }
}

impl FromNapiValue for SharedText {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: the caller's contract, passed on to `String`'s conversion.
        unsafe { String::from_napi_value(env, value) }.map(|s| SharedText(s.into()))
    }
}

#[napi(object)]
pub struct RuleMetadata {
    pub paths: Option<Vec<String>>,
    pub priority: Option<i64>,
    pub topics: Option<Vec<String>>,
    pub description: Option<String>,
    /// `'every-turn'`: re-surfaced at every turn while active (reminder mode).
    #[napi(ts_type = "'once' | 'every-turn'")]
    pub remind: Option<String>,
    /// `'on-request'`: offered to the model by its description (read with
    /// the `read_rule` tool); `'manual'`: active only when the prompt
    /// mentions it (`@name`). Absent: always, or by `paths` / `topics`.
    #[napi(ts_type = "'on-request' | 'manual'")]
    pub activation: Option<String>,
    /// Regexes matched against the content of the files in context (Continue).
    pub regex: Option<Vec<String>>,
    /// The project subdirectory the rule is scoped to (a nested `.cursor/rules`
    /// or `AGENTS.md`).
    pub directory: Option<String>,
    /// `skills`: active while one of these skills is active in the session.
    pub skills: Option<Vec<String>>,
}

#[napi(object)]
pub struct MemoryRule {
    /// Path relative to its rules root, `/`-separated: `frontend/react.md`.
    pub id: String,
    /// The body, trimmed.
    #[napi(ts_type = "string")]
    pub content: SharedText,
    pub metadata: RuleMetadata,
    #[napi(ts_type = "'project' | 'user'")]
    pub source: String,
    pub file_path: String,
    /// The other agent's format the rule was read as (`'cursor'`, ...);
    /// absent for the agent SDK's own (`.wave/rules`, `.claude/rules`), whose
    /// rules keep exactly the SDK's shape.
    #[napi(ts_type = "RuleSource['format']")]
    pub format: Option<String>,
    /// Where the rule came from, for a rule of a pack or of the policy, or
    /// one that replaced a rule of the same id; absent otherwise (the agent
    /// SDK's shape).
    pub origin: Option<RuleOrigin>,
}

/// Where a rule came from: its layer, pack, lock and what it replaced.
#[napi(object)]
pub struct RuleOrigin {
    #[napi(ts_type = "'pack' | 'user' | 'project' | 'policy'")]
    pub layer: String,
    /// `@acme/rules@2.3.1:security.md`, `policy:/etc/wave/rules/x.md`,
    /// `project:.wave/rules/x.md`.
    pub provenance: String,
    /// `@acme/rules@2.3.1`, for a rule of a pack.
    pub pack: Option<String>,
    /// A policy rule: no rule of another layer replaces it, no `disable`
    /// removes it.
    pub locked: bool,
    /// The provenance of each rule of the same id this one replaced.
    pub overrides: Vec<String>,
}

#[napi(object)]
pub struct Diagnostic {
    #[napi(ts_type = "'error' | 'warning' | 'info'")]
    pub severity: String,
    pub code: String,
    pub message: String,
    pub file_path: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// `file:line:col: severity[code]: message`, as the CLI prints it.
    pub text: String,
}

/// A rule's fields but its text: what `RuleEngine.ruleFields()` gives the
/// manager, whose rule objects read their text from a `RuleTexts`.
#[napi(object, object_from_js = false)]
pub struct RuleFields {
    pub id: String,
    pub metadata: RuleMetadata,
    #[napi(ts_type = "'project' | 'user'")]
    pub source: String,
    pub file_path: String,
    #[napi(ts_type = "RuleSource['format']")]
    pub format: Option<String>,
    pub origin: Option<RuleOrigin>,
}

/// The texts of one discovery's rules, by index into its `rules()`. Holds
/// the core's text (shared, not copied) for as long as the handle lives, so
/// a rule object from before a reload still reads its own text.
#[napi]
pub struct RuleTexts {
    texts: Box<[Arc<str>]>,
}

#[napi]
impl RuleTexts {
    /// The text of rule `index`; `null` past the end.
    #[napi(ts_return_type = "string | null")]
    pub fn get(&self, index: u32) -> Option<SharedText> {
        let text = self.texts.get(index as usize)?;
        Some(SharedText(text.clone()))
    }
}

pub(crate) fn to_js_texts(rules: &[core::Rule]) -> RuleTexts {
    RuleTexts {
        texts: rules.iter().map(|r| r.content.clone()).collect(),
    }
}

pub(crate) fn to_js_rule(rule: &core::Rule) -> MemoryRule {
    let f = to_js_fields(rule);
    MemoryRule {
        id: f.id,
        content: SharedText(rule.content.clone()),
        metadata: f.metadata,
        source: f.source,
        file_path: f.file_path,
        format: f.format,
        origin: f.origin,
    }
}

pub(crate) fn to_js_fields(rule: &core::Rule) -> RuleFields {
    let m = &rule.metadata;
    RuleFields {
        id: rule.id.clone(),
        metadata: RuleMetadata {
            paths: m.paths.clone(),
            priority: m.priority,
            topics: m.topics.clone(),
            description: m.description.clone(),
            remind: m.remind.map(|r| r.as_str().to_string()),
            activation: (m.activation != core::Activation::Auto)
                .then(|| m.activation.as_str().to_string()),
            regex: m.regex.clone(),
            directory: m.directory.clone(),
            skills: m.skills.clone(),
        },
        source: rule.scope.as_str().to_string(),
        file_path: rule.file_path.to_string_lossy().into_owned(),
        format: rule
            .format
            .qualifies_ids()
            .then(|| rule.format.as_str().to_string()),
        origin: to_js_origin(&rule.origin),
    }
}

fn to_js_origin(o: &core::Origin) -> Option<RuleOrigin> {
    let layered = matches!(o.layer, core::LayerKind::Pack | core::LayerKind::Policy);
    (layered || !o.overrides.is_empty()).then(|| RuleOrigin {
        layer: o.layer.as_str().to_string(),
        provenance: o.provenance.clone(),
        pack: o.pack.clone(),
        locked: o.locked,
        overrides: o.overrides.clone(),
    })
}

/// A rule object from JS (for the renderer): what the text depends on is
/// kept (id, scope, content, priority, description); the rest as given.
pub(crate) fn from_js_rule(rule: MemoryRule) -> core::Rule {
    let m = rule.metadata;
    core::Rule {
        id: rule.id,
        scope: if rule.source == "user" {
            core::Scope::User
        } else {
            core::Scope::Project
        },
        file_path: rule.file_path.into(),
        content: rule.content.0,
        metadata: core::Metadata {
            paths: m.paths,
            priority: m.priority,
            topics: m.topics,
            description: m.description,
            remind: match m.remind.as_deref() {
                Some("every-turn") => Some(core::Remind::EveryTurn),
                Some("once") => Some(core::Remind::Once),
                _ => None,
            },
            activation: match m.activation.as_deref() {
                Some("on-request") => core::Activation::OnRequest,
                Some("manual") => core::Activation::Manual,
                _ => core::Activation::Auto,
            },
            regex: m.regex,
            name: None,
            directory: m.directory,
            skills: m.skills,
            // Enforcement is decided natively, never from a JS rule object.
            enforce: None,
            commands: None,
            summary: None,
        }
        .into(),
        format: rule
            .format
            .as_deref()
            .and_then(core::Format::parse)
            .unwrap_or(core::Format::Wave),
        origin: Default::default(),
    }
}
