//! A fake OTLP/HTTP logs receiver on 127.0.0.1 for the telemetry tests:
//! answers each request as told (2xx, an error status, 429 with
//! `Retry-After`, or never), keeps every request it read, and decodes
//! them with the official protocol definitions (protobuf or OTLP/JSON).
#![allow(dead_code)]

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use prost::Message;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How the receiver answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Accept,
    Status(u16),
    /// 429 with `Retry-After: N`, then accepts.
    TooManyOnce(u64),
    /// Reads the request and never answers.
    Silent,
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Request {
    pub path: String,
    pub content_type: String,
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl Request {
    /// The request decoded with the official definitions, by its content type.
    pub fn decode(&self) -> ExportLogsServiceRequest {
        if self.content_type.contains("json") {
            serde_json::from_slice(&self.body).expect("OTLP/JSON")
        } else {
            ExportLogsServiceRequest::decode(&self.body[..]).expect("OTLP protobuf")
        }
    }
}

pub struct Receiver {
    pub port: u16,
    mode: Arc<Mutex<Mode>>,
    requests: Arc<Mutex<Vec<Request>>>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Receiver {
    pub fn start(mode: Mode) -> Receiver {
        Self::on(0, mode)
    }

    /// On this port (0: any free one).
    pub fn on(port: u16, mode: Mode) -> Receiver {
        let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let r = Receiver {
            port,
            mode: Arc::new(Mutex::new(mode)),
            requests: Arc::default(),
            open: Arc::default(),
        };
        let (mode, requests, open) = (r.mode.clone(), r.requests.clone(), r.open.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(500).flatten() {
                let (mode, requests, open) = (mode.clone(), requests.clone(), open.clone());
                std::thread::spawn(move || serve(stream, &mode, &requests, &open));
            }
        });
        r
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// The bodies of every request received and accepted, as one text.
    pub fn sent(&self) -> String {
        let bytes: Vec<u8> = self
            .requests()
            .iter()
            .flat_map(|r| r.body.clone())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Every log record received and accepted, in order.
    pub fn records(&self) -> Vec<LogRecord> {
        self.requests()
            .iter()
            .flat_map(|r| r.decode().resource_logs)
            .flat_map(|r| r.scope_logs)
            .flat_map(|s| s.log_records)
            .collect()
    }

    /// Waits (at most `limit`) until `n` records arrived.
    pub fn wait_for(&self, n: usize, limit: Duration) -> Vec<LogRecord> {
        let start = Instant::now();
        loop {
            let got = self.records();
            if got.len() >= n || start.elapsed() > limit {
                return got;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn serve(
    stream: TcpStream,
    mode: &Mutex<Mode>,
    requests: &Mutex<Vec<Request>>,
    open: &Mutex<Vec<TcpStream>>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut headers = BTreeMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let len: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let request = Request {
            path,
            content_type: headers.get("content-type").cloned().unwrap_or_default(),
            headers,
            body,
        };
        let now = *mode.lock().unwrap();
        let answer = match now {
            Mode::Accept => {
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
                    .to_string()
            }
            Mode::Status(code) => format!("HTTP/1.1 {code} Nope\r\ncontent-length: 0\r\n\r\n"),
            Mode::TooManyOnce(secs) => {
                *mode.lock().unwrap() = Mode::Accept;
                format!("HTTP/1.1 429 Too Many Requests\r\nretry-after: {secs}\r\ncontent-length: 0\r\n\r\n")
            }
            Mode::Silent => {
                open.lock().unwrap().push(stream);
                return;
            }
        };
        if now == Mode::Accept {
            requests.lock().unwrap().push(request);
        }
        let mut w = &stream;
        if w.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

/// A record's attribute as text (strings as they are, numbers printed).
pub fn attr(record: &LogRecord, key: &str) -> Option<String> {
    let kv = record.attributes.iter().find(|a| a.key == key)?;
    match kv.value.as_ref()?.value.as_ref()? {
        Any::StringValue(s) => Some(s.clone()),
        Any::IntValue(n) => Some(n.to_string()),
        Any::DoubleValue(n) => Some(n.to_string()),
        Any::BoolValue(b) => Some(b.to_string()),
        other => Some(format!("{other:?}")),
    }
}

/// A port nothing listens on (bound, then let go).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
