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
    pub attributes: Vec<(String, Value<'static>)>,
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
        Value::Str(s) => any_value::Value::StringValue(s.to_string()),
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

fn key_values<K: AsRef<str>>(attributes: &[(K, Value)]) -> Vec<KeyValue> {
    attributes
        .iter()
        .map(|(k, v)| KeyValue {
            key: k.as_ref().to_string(),
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

/// One spool line: the records as OTLP/JSON `LogsData` in UTF-8, no
/// newline; byte for byte what serde gives of [`logs_data`] (a test holds
/// them equal), written straight from the records: a hook's start records
/// one line per rule it gives, and the generic path cost a hook more than
/// the rest of its event. Bytes, not a `String`: made only of `str`s, so
/// there is nothing to check them for.
pub fn json_line(origin: &Origin, records: &[Record]) -> Vec<u8> {
    // A delivery's record is about 1.1 KB: room enough not to grow.
    let mut out = Vec::with_capacity(512 + records.len() * 2048);
    out.extend_from_slice(b"{\"resourceLogs\":[{\"resource\":{\"attributes\":");
    write_attributes(&mut out, &origin.attributes);
    out.extend_from_slice(
        b",\"droppedAttributesCount\":0,\"entityRefs\":[]},\"scopeLogs\":[{\"scope\":{\"name\":",
    );
    write_str(&mut out, SCOPE);
    out.extend_from_slice(b",\"version\":");
    write_str(&mut out, VERSION);
    out.extend_from_slice(b",\"attributes\":[],\"droppedAttributesCount\":0},\"logRecords\":[");
    for (i, record) in records.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_record(&mut out, record);
    }
    out.extend_from_slice(b"],\"schemaUrl\":\"\"}],\"schemaUrl\":\"\"}]}");
    out
}

/// One `LogRecord` as [`log_record`] makes it, in OTLP/JSON.
fn write_record(out: &mut Vec<u8>, record: &Record) {
    let mut digits = itoa::Buffer::new();
    let time = digits.format(record.time_ns);
    out.extend_from_slice(b"{\"timeUnixNano\":\"");
    out.extend_from_slice(time.as_bytes());
    out.extend_from_slice(b"\",\"observedTimeUnixNano\":\"");
    out.extend_from_slice(time.as_bytes());
    out.extend_from_slice(b"\",\"severityNumber\":");
    out.extend_from_slice(
        itoa::Buffer::new()
            .format(SeverityNumber::Info as i32)
            .as_bytes(),
    );
    out.extend_from_slice(b",\"severityText\":\"INFO\",\"body\":null,\"attributes\":");
    write_attributes(out, &record.attributes);
    out.extend_from_slice(
        b",\"droppedAttributesCount\":0,\"flags\":0,\"traceId\":\"\",\"spanId\":\"\",\"eventName\":",
    );
    write_str(out, record.name);
    out.push(b'}');
}

/// `[{"key": ..., "value": {...}}, ...]`.
fn write_attributes<K: AsRef<str>>(out: &mut Vec<u8>, attributes: &[(K, Value)]) {
    out.push(b'[');
    for (i, (key, value)) in attributes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"key\":");
        write_str(out, key.as_ref());
        out.extend_from_slice(b",\"value\":");
        write_value(out, value);
        out.push(b'}');
    }
    out.push(b']');
}

/// An `AnyValue` (int64 as a string, as OTLP/JSON has it).
fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Str(s) => {
            out.extend_from_slice(b"{\"stringValue\":");
            write_str(out, s);
        }
        Value::Int(n) => {
            out.extend_from_slice(b"{\"intValue\":\"");
            out.extend_from_slice(itoa::Buffer::new().format(*n).as_bytes());
            out.push(b'"');
        }
        Value::Double(n) => {
            out.extend_from_slice(b"{\"doubleValue\":");
            let _ = serde_json::to_writer(&mut *out, n);
        }
        Value::Bool(b) => {
            out.extend_from_slice(if *b {
                b"{\"boolValue\":true"
            } else {
                b"{\"boolValue\":false"
            });
        }
        Value::Strs(list) => {
            out.extend_from_slice(b"{\"arrayValue\":{\"values\":[");
            for (i, s) in list.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"stringValue\":");
                write_str(out, s);
                out.push(b'}');
            }
            out.extend_from_slice(b"]}");
        }
    }
    out.push(b'}');
}

/// A JSON string, escaped as serde_json escapes it (by serde_json itself
/// when it holds a byte to escape: most ids and names hold none).
fn write_str(out: &mut Vec<u8>, s: &str) {
    if needs_escape(s.as_bytes()) {
        let _ = serde_json::to_writer(&mut *out, s);
        return;
    }
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

/// Whether JSON escapes a byte of `bytes` (a control byte, `"` or `\`),
/// eight bytes at a time: a start's line holds a thousand strings, and a
/// byte at a time was a third of writing it.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Some byte of `x` is below `n` (n <= 0x80): exact as a yes or no.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS != 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let x = u64::from_le_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        if below(x, 0x20) || below(x ^ (ONES * 0x22), 1) || below(x ^ (ONES * 0x5c), 1) {
            return true;
        }
    }
    (chunks.remainder().iter()).any(|&b| b < 0x20 || b == b'"' || b == b'\\')
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_to_escape_is_found_wherever_it_is_and_only_then() {
        let plain = b"wave_rules.rule.id group4/rule0909.md \x7f\xc3\xbc~ !#";
        for len in 0..plain.len() {
            assert!(!needs_escape(&plain[..len]), "{len}");
            for at in 0..len {
                for bad in (0u8..0x20).chain([b'"', b'\\']) {
                    let mut s = plain[..len].to_vec();
                    s[at] = bad;
                    assert!(needs_escape(&s), "{len} {at} {bad}");
                }
            }
        }
        for b in 0u8..=255 {
            let want = b < 0x20 || b == b'"' || b == b'\\';
            assert_eq!(
                needs_escape(&[b'a', b, b'a', b'a', b'a', b'a', b'a', b'a']),
                want
            );
        }
    }

    #[test]
    fn a_spool_line_is_byte_for_byte_what_serde_gives_of_the_logs_data() {
        let origin = Origin {
            attributes: vec![
                ("service.name".into(), "wave \"rules\"".into()),
                ("host.name".into(), "hôst\u{1}\n".into()),
            ],
        };
        let mut a = Record::new("wave_rules.rule.delivered")
            .with("wave_rules.rule.id", "a/b.md\t\\x")
            .with("count", 1000u64)
            .with("negative", -3i64)
            .with("ratio", 0.1f64)
            .with("whole", 2.0f64)
            .with("nan", f64::NAN)
            .with("on", true)
            .with("off", false)
            .with("list", vec!["x".to_string(), "ü\"".to_string()])
            .with("empty", Vec::<String>::new());
        a.time_ns = 1_796_020_909_790_657_222;
        let b = Record::new("wave_rules.rules.loaded");
        for records in [vec![], vec![a.clone()], vec![a, b]] {
            let serde = serde_json::to_string(&logs_data(&origin, &records)).unwrap();
            assert_eq!(
                String::from_utf8(json_line(&origin, &records)).unwrap(),
                serde
            );
        }
        let none = Origin::default();
        let serde = serde_json::to_string(&logs_data(&none, &[])).unwrap();
        assert_eq!(String::from_utf8(json_line(&none, &[])).unwrap(), serde);
    }
}
