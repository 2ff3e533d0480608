//! Whether telemetry is on, and where it goes: the `[telemetry]` table of
//! the policy directory's `config.toml`, the environment, the project's
//! `.wave/config.toml` and the user's `~/.wave/config.toml`, in that order
//! of precedence (each key from the first place that sets it: the policy
//! wins, as Claude Code's managed settings do).
//!
//! ```toml
//! [telemetry]
//! enabled = true
//! endpoint = "http://collector:4318"   # a base: /v1/logs is appended
//! # logs_endpoint = "http://collector:4318/v1/logs"   # used as given
//! protocol = "http/protobuf"           # or "http/json"
//! headers = { "x-api-key" = "..." }
//! resource_attributes = { "deployment.environment" = "prod" }
//! service_name = "wave-rules"
//! include = ["paths"]                  # opt-in: file paths leave the machine
//! ```
//!
//! The environment: `WAVE_RULES_TELEMETRY` (`1`/`true`/`on` or
//! `0`/`false`/`off`) and the OTLP exporter's variables as the
//! OpenTelemetry specification defines them. Inside an `eval` run
//! ([`EVAL_RUN`] set) telemetry is off, whatever the policy says.

use crate::base::limits::MAX_SETTINGS_BYTES;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The switch in the environment.
pub const TELEMETRY_SETTING: &str = "WAVE_RULES_TELEMETRY";
/// Set by `eval` for the agents it runs: their hooks emit nothing.
pub const EVAL_RUN: &str = "WAVE_RULES_EVAL_RUN";
/// The endpoint when none is set (OTLP/HTTP's default).
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4318";
/// The `service.name` when none is set.
pub const DEFAULT_SERVICE: &str = "wave-rules";

/// The wire format of an export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    #[default]
    HttpProtobuf,
    HttpJson,
}

impl Protocol {
    /// `http/protobuf` or `http/json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::HttpProtobuf => "http/protobuf",
            Protocol::HttpJson => "http/json",
        }
    }

    /// The request's `Content-Type`.
    pub fn content_type(self) -> &'static str {
        match self {
            Protocol::HttpProtobuf => "application/x-protobuf",
            Protocol::HttpJson => "application/json",
        }
    }

    fn parse(text: &str) -> Result<Protocol, String> {
        match text.trim() {
            "http/protobuf" => Ok(Protocol::HttpProtobuf),
            "http/json" => Ok(Protocol::HttpJson),
            "grpc" => Err("protocol `grpc` is not supported (no gRPC client in a hook); use `http/protobuf` or `http/json`".into()),
            other => Err(format!(
                "unknown protocol `{other}`; use `http/protobuf` or `http/json`"
            )),
        }
    }
}

/// Where a setting came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Place {
    #[default]
    Default,
    /// The policy directory's `config.toml`.
    Policy(PathBuf),
    /// This environment variable.
    Env(&'static str),
    /// The project's `.wave/config.toml`.
    Project(PathBuf),
    /// The user's `~/.wave/config.toml`.
    User(PathBuf),
    /// An `eval` run's agent ([`EVAL_RUN`]).
    EvalRun,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Default => f.write_str("the default"),
            Place::Policy(p) => write!(f, "the policy ({})", p.display()),
            Place::Env(v) => write!(f, "the environment ({v})"),
            Place::Project(p) => write!(f, "the project ({})", p.display()),
            Place::User(p) => write!(f, "the user's config ({})", p.display()),
            Place::EvalRun => write!(f, "an eval run ({EVAL_RUN}): off"),
        }
    }
}

/// The `[telemetry]` table as written (in a file, or read from the
/// environment into the same shape).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raw {
    pub enabled: Option<bool>,
    pub endpoint: Option<String>,
    pub logs_endpoint: Option<String>,
    pub protocol: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    pub resource_attributes: Option<BTreeMap<String, String>>,
    pub service_name: Option<String>,
    pub include: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct File {
    telemetry: Option<Raw>,
}

/// The places settings are read from, for one project and user.
#[derive(Clone, Debug, Default)]
pub struct Places {
    pub policy_dir: Option<PathBuf>,
    pub project: Option<PathBuf>,
    pub home: Option<PathBuf>,
}

/// The resolved settings.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub enabled: bool,
    pub enabled_from: Place,
    /// The logs URL the records are posted to.
    pub endpoint: String,
    pub endpoint_from: Place,
    pub protocol: Protocol,
    pub headers: Vec<(String, String)>,
    /// `OTEL_RESOURCE_ATTRIBUTES` and `resource_attributes`.
    pub resource: Vec<(String, String)>,
    pub service_name: String,
    /// `include = ["paths"]`: file paths may leave the machine.
    pub include_paths: bool,
    /// What is wrong with them, each naming its file or variable: records
    /// are still spooled, but not shipped while the endpoint or protocol is
    /// wrong.
    pub problems: Vec<String>,
    /// The endpoint or protocol is unusable: nothing is shipped.
    pub unshippable: bool,
}

impl Settings {
    /// The settings of these places and this environment (`var` reads one
    /// variable: `std::env::var` in use, a map in tests).
    pub fn resolve(places: &Places, var: &dyn Fn(&str) -> Option<String>) -> Settings {
        if var(EVAL_RUN).is_some_and(|v| !v.is_empty()) {
            return Settings {
                enabled_from: Place::EvalRun,
                ..Settings::default()
            };
        }
        let mut problems = Vec::new();
        let mut layers = Vec::new();
        if let Some(dir) = &places.policy_dir {
            let path = dir.join("config.toml");
            layers.extend(read_file(&path, &mut problems).map(|r| (Place::Policy(path), r)));
        }
        layers.extend(from_env(var, &mut problems));
        if let Some(dir) = &places.project {
            let path = dir.join(".wave").join("config.toml");
            layers.extend(read_file(&path, &mut problems).map(|r| (Place::Project(path), r)));
        }
        if let Some(home) = &places.home {
            let path = home.join(".wave").join("config.toml");
            if places.project.as_deref() != Some(home.as_path()) {
                layers.extend(read_file(&path, &mut problems).map(|r| (Place::User(path), r)));
            }
        }
        let mut settings = Settings::from_layers(&layers, &mut problems);
        settings.problems = problems;
        settings
    }

    fn from_layers(layers: &[(Place, Raw)], problems: &mut Vec<String>) -> Settings {
        let first = |f: &dyn Fn(&Raw) -> bool| layers.iter().find(|(_, r)| f(r));
        let (enabled, enabled_from) = first(&|r| r.enabled.is_some())
            .map_or((false, Place::Default), |(p, r)| {
                (r.enabled == Some(true), p.clone())
            });
        let (endpoint, endpoint_from) = endpoint(
            first(&|r| r.endpoint.is_some() || r.logs_endpoint.is_some()),
            problems,
        );
        let mut unshippable = endpoint.is_empty();
        let protocol = match first(&|r| r.protocol.is_some()) {
            Some((place, raw)) => Protocol::parse(raw.protocol.as_deref().unwrap_or_default())
                .unwrap_or_else(|e| {
                    problems.push(format!("telemetry: {place}: {e}"));
                    unshippable = true;
                    Protocol::default()
                }),
            None => Protocol::default(),
        };
        let map = |f: &dyn Fn(&Raw) -> Option<&BTreeMap<String, String>>| {
            layers
                .iter()
                .find_map(|(_, r)| f(r))
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default()
        };
        let include: Vec<String> = layers
            .iter()
            .find_map(|(_, r)| r.include.clone())
            .unwrap_or_default();
        for word in include.iter().filter(|w| *w != "paths") {
            problems.push(format!(
                "telemetry: `include` names `{word}`; the only opt-in is `paths`"
            ));
        }
        Settings {
            enabled,
            enabled_from,
            endpoint,
            endpoint_from,
            protocol,
            headers: map(&|r| r.headers.as_ref()),
            resource: map(&|r| r.resource_attributes.as_ref()),
            service_name: layers
                .iter()
                .find_map(|(_, r)| r.service_name.clone())
                .unwrap_or_else(|| DEFAULT_SERVICE.to_string()),
            include_paths: include.iter().any(|w| w == "paths"),
            problems: Vec::new(),
            unshippable,
        }
    }
}

/// The logs URL of the first layer that sets one: its `logs_endpoint` as
/// given, else its base `endpoint` with `/v1/logs` appended; else the
/// default. A malformed one is a problem and gives "" (nothing shipped).
fn endpoint(layer: Option<&(Place, Raw)>, problems: &mut Vec<String>) -> (String, Place) {
    let Some((place, raw)) = layer else {
        return (format!("{DEFAULT_ENDPOINT}/v1/logs"), Place::Default);
    };
    let url = match (&raw.logs_endpoint, &raw.endpoint) {
        (Some(logs), _) => logs.trim().to_string(),
        (None, Some(base)) => format!("{}/v1/logs", base.trim().trim_end_matches('/')),
        (None, None) => String::new(),
    };
    match check_url(&url) {
        Ok(()) => (url, place.clone()),
        Err(e) => {
            problems.push(format!("telemetry: {place}: endpoint `{url}`: {e}"));
            (String::new(), place.clone())
        }
    }
}

/// An `http://` or `https://` URL with a host and, if any, a numeric port.
pub fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or("not an http:// or https:// URL")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || !p.is_empty() => (h, Some(p)),
        _ => (host_port, None),
    };
    if host.is_empty() || url.chars().any(char::is_whitespace) {
        return Err("no host, or a space in it".into());
    }
    if let Some(p) = port {
        if p.parse::<u16>().is_err() {
            return Err(format!("port `{p}` is not a number up to 65535"));
        }
    }
    Ok(())
}

/// A config file's `[telemetry]` table; none when the file or the table is
/// absent. A table that does not parse is a problem naming the file and line.
fn read_file(path: &Path, problems: &mut Vec<String>) -> Option<Raw> {
    let bytes = match crate::base::fs::read_bounded(
        path,
        MAX_SETTINGS_BYTES,
        crate::base::fs::Links::Follow,
    ) {
        Ok(b) => b,
        Err(crate::base::fs::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return None
        }
        Err(e) => {
            problems.push(format!("telemetry: {}: {e}", path.display()));
            return None;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
    let file: File = match toml::from_str(&text) {
        Ok(f) => f,
        Err(e) => {
            let line = e.span().map_or(1, |s| line_of(s.start));
            problems.push(format!(
                "telemetry: {}:{line}: {}",
                path.display(),
                e.message()
            ));
            return None;
        }
    };
    file.telemetry
}

/// The environment as one layer (none when it sets nothing of ours).
fn from_env(
    var: &dyn Fn(&str) -> Option<String>,
    problems: &mut Vec<String>,
) -> Option<(Place, Raw)> {
    let get = |k: &str| var(k).filter(|v| !v.trim().is_empty());
    let mut raw = Raw::default();
    if let Some(v) = get(TELEMETRY_SETTING) {
        match v.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "on" | "yes" => raw.enabled = Some(true),
            "0" | "false" | "off" | "no" => raw.enabled = Some(false),
            other => problems.push(format!(
                "telemetry: {TELEMETRY_SETTING}=`{other}`: not 1/true/on or 0/false/off; ignored"
            )),
        }
    }
    raw.logs_endpoint = get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT");
    raw.endpoint = get("OTEL_EXPORTER_OTLP_ENDPOINT");
    raw.protocol =
        get("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL").or_else(|| get("OTEL_EXPORTER_OTLP_PROTOCOL"));
    raw.headers = get("OTEL_EXPORTER_OTLP_LOGS_HEADERS")
        .or_else(|| get("OTEL_EXPORTER_OTLP_HEADERS"))
        .map(|h| pairs(&h));
    raw.resource_attributes = get("OTEL_RESOURCE_ATTRIBUTES").map(|h| pairs(&h));
    raw.service_name = get("OTEL_SERVICE_NAME");
    let set = raw.enabled.is_some()
        || raw.logs_endpoint.is_some()
        || raw.endpoint.is_some()
        || raw.protocol.is_some()
        || raw.headers.is_some()
        || raw.resource_attributes.is_some()
        || raw.service_name.is_some();
    let place = if raw.enabled.is_some() {
        TELEMETRY_SETTING
    } else {
        "OTEL_EXPORTER_OTLP_*"
    };
    set.then_some((Place::Env(place), raw))
}

/// `key1=value1,key2=value2` (the W3C Baggage form the OTLP variables use),
/// values percent-decoded; a pair without `=` is skipped.
pub fn pairs(text: &str) -> BTreeMap<String, String> {
    text.split(',')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (percent_decode(k.trim()), percent_decode(v.trim())))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
