//! Records into the official OTLP messages (the `opentelemetry-proto`
//! crate's): one spool line is one `LogsData` in OTLP/JSON (the form the
//! Collector's `otlpjsonfile` receiver reads); a batch of lines is one
//! `ExportLogsServiceRequest`, in protobuf or OTLP/JSON.

use super::record::{Record, Value};
use super::settings::{Protocol, Settings};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{
    any_value, AnyValue, ArrayValue, InstrumentationScope, KeyValue,
};
use opentelemetry_proto::tonic::logs::v1::{
    LogRecord, LogsData, ResourceLogs, ScopeLogs, SeverityNumber,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;

/// The instrumentation scope of every record.
pub const SCOPE: &str = "wave-rules";
/// This build's version (`service.version`, the scope's version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Who sends: the resource's attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Origin {
    pub attributes: Vec<(String, Value)>,
}

impl Origin {
    /// `service.name`, `service.version`, the host and OS, then the
    /// settings' resource attributes (which may override all but the name).
    pub fn of(settings: &Settings) -> Origin {
        let mut attributes: Vec<(String, Value)> = vec![
            ("service.name".into(), settings.service_name.clone().into()),
            ("service.version".into(), VERSION.into()),
            ("os.type".into(), os_type().into()),
            ("host.arch".into(), host_arch().into()),
        ];
        if let Some(host) = host_name() {
            attributes.push(("host.name".into(), host.into()));
        }
        for (k, v) in &settings.resource {
            if k == "service.name" {
                continue;
            }
            attributes.retain(|(key, _)| key != k);
            attributes.push((k.clone(), v.clone().into()));
        }
        Origin { attributes }
    }
}

fn os_type() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    }
}

fn host_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "x86",
        other => other,
    }
}

#[cfg(unix)]
fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Some(String::from_utf8_lossy(&buf[..end]).into_owned()).filter(|h| !h.is_empty())
}

#[cfg(not(unix))]
fn host_name() -> Option<String> {
    std::env::var("COMPUTERNAME").ok().filter(|h| !h.is_empty())
}

fn any(value: &Value) -> AnyValue {
    let v = match value {
        Value::Str(s) => any_value::Value::StringValue(s.clone()),
        Value::Int(n) => any_value::Value::IntValue(*n),
        Value::Double(n) => any_value::Value::DoubleValue(*n),
        Value::Bool(b) => any_value::Value::BoolValue(*b),
        Value::Strs(list) => any_value::Value::ArrayValue(ArrayValue {
            values: list
                .iter()
                .map(|s| AnyValue {
                    value: Some(any_value::Value::StringValue(s.clone())),
                })
                .collect(),
        }),
    };
    AnyValue { value: Some(v) }
}

fn key_values(attributes: &[(String, Value)]) -> Vec<KeyValue> {
    attributes
        .iter()
        .map(|(k, v)| KeyValue {
            key: k.clone(),
            value: Some(any(v)),
            ..KeyValue::default()
        })
        .collect()
}

fn log_record(record: &Record) -> LogRecord {
    LogRecord {
        time_unix_nano: record.time_ns,
        observed_time_unix_nano: record.time_ns,
        severity_number: SeverityNumber::Info as i32,
        severity_text: "INFO".into(),
        event_name: record.name.to_string(),
        attributes: key_values(&record.attributes),
        ..LogRecord::default()
    }
}

/// The records as one `LogsData`: one resource, one scope.
pub fn logs_data(origin: &Origin, records: &[Record]) -> LogsData {
    LogsData {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: key_values(&origin.attributes),
                ..Resource::default()
            }),
            scope_logs: vec![ScopeLogs {
                scope: Some(InstrumentationScope {
                    name: SCOPE.into(),
                    version: VERSION.into(),
                    ..InstrumentationScope::default()
                }),
                log_records: records.iter().map(log_record).collect(),
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    }
}

/// One spool line: the records as OTLP/JSON `LogsData`, no newline.
pub fn json_line(origin: &Origin, records: &[Record]) -> String {
    serde_json::to_string(&logs_data(origin, records)).unwrap_or_default()
}

/// A spool line read back (`None`: not OTLP/JSON logs).
pub fn parse_line(line: &str) -> Option<LogsData> {
    serde_json::from_str(line).ok()
}

/// The number of log records in `data`.
pub fn record_count(data: &LogsData) -> usize {
    data.resource_logs
        .iter()
        .flat_map(|r| &r.scope_logs)
        .map(|s| s.log_records.len())
        .sum()
}

/// Several spool lines' `LogsData` as one export request's body.
pub fn request_body(batch: Vec<LogsData>, protocol: Protocol) -> Vec<u8> {
    let request = ExportLogsServiceRequest {
        resource_logs: batch.into_iter().flat_map(|d| d.resource_logs).collect(),
    };
    match protocol {
        Protocol::HttpProtobuf => request.encode_to_vec(),
        Protocol::HttpJson => serde_json::to_vec(&request).unwrap_or_default(),
    }
}
