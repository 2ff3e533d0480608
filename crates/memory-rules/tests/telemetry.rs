//! Telemetry in the core: the settings' precedence, the records in the
//! official OTLP messages (OTLP/JSON's rules and protobuf), the bounded
//! spool, and shipping through a transport that answers as told.

use memory_rules::delivery::telemetry::{
    encode, names, ship, Origin, Outcome, Place, Places, Post, Protocol, Record, Response,
    Settings, Spool, Transport,
};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use prost::Message;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k: &str| map.get(k).cloned()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Tree {
    _dir: tempfile::TempDir,
    places: Places,
}

fn tree(policy: Option<&str>, project: Option<&str>, user: Option<&str>) -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (text, path) in [
        (policy, root.join("policy/config.toml")),
        (project, root.join("project/.wave/config.toml")),
        (user, root.join("home/.wave/config.toml")),
    ] {
        if let Some(t) = text {
            write(&path, t);
        }
    }
    let places = Places {
        policy_dir: Some(root.join("policy")),
        project: Some(root.join("project")),
        home: Some(root.join("home")),
    };
    Tree { _dir: dir, places }
}

#[test]
fn telemetry_is_off_by_default_and_on_with_the_environment_switch() {
    let t = tree(None, None, None);
    let off = Settings::resolve(&t.places, &env(&[]));
    assert!(!off.enabled);
    assert_eq!(off.enabled_from, Place::Default);
    assert_eq!(off.endpoint, "http://localhost:4318/v1/logs");
    assert_eq!(off.protocol, Protocol::HttpProtobuf);
    let on = Settings::resolve(&t.places, &env(&[("WAVE_RULES_TELEMETRY", "1")]));
    assert!(on.enabled);
    assert_eq!(on.enabled_from, Place::Env("WAVE_RULES_TELEMETRY"));
    assert!(on.problems.is_empty(), "{:?}", on.problems);
}

#[test]
fn the_policy_wins_over_the_environment_which_wins_over_project_and_user() {
    let t = tree(
        Some("[telemetry]\nenabled = true\n"),
        Some("[telemetry]\nenabled = false\nprotocol = \"http/json\"\nendpoint = \"http://project:4318\"\n"),
        Some("[telemetry]\nendpoint = \"http://user:4318\"\nservice_name = \"mine\"\ninclude = [\"paths\"]\n"),
    );
    let s = Settings::resolve(&t.places, &env(&[("WAVE_RULES_TELEMETRY", "0")]));
    assert!(s.enabled, "the policy switches it on for everyone");
    assert!(matches!(s.enabled_from, Place::Policy(_)));
    assert_eq!(s.protocol, Protocol::HttpJson, "the project's protocol");
    assert_eq!(s.endpoint, "http://project:4318/v1/logs");
    assert!(matches!(s.endpoint_from, Place::Project(_)));
    assert_eq!(
        s.service_name, "mine",
        "the user's, where no one else set it"
    );
    assert!(s.include_paths);
    let env_endpoint = Settings::resolve(
        &t.places,
        &env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env:4318/")]),
    );
    assert_eq!(env_endpoint.endpoint, "http://env:4318/v1/logs");
}

#[test]
fn the_logs_endpoint_is_used_as_given_and_the_base_one_gets_v1_logs() {
    let t = tree(None, None, None);
    let s = Settings::resolve(
        &t.places,
        &env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318/prefix"),
            (
                "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
                "https://logs.example:443/custom",
            ),
        ]),
    );
    assert_eq!(s.endpoint, "https://logs.example:443/custom");
    let base = Settings::resolve(
        &t.places,
        &env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://base:4318/prefix")]),
    );
    assert_eq!(base.endpoint, "http://base:4318/prefix/v1/logs");
}

#[test]
fn headers_resource_attributes_and_service_name_come_from_the_otlp_variables() {
    let t = tree(None, None, None);
    let s = Settings::resolve(
        &t.places,
        &env(&[
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "api-key=a%20b,x-team=platform",
            ),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=prod,team=web",
            ),
            ("OTEL_SERVICE_NAME", "rules"),
        ]),
    );
    assert_eq!(
        s.headers,
        [
            ("api-key".to_string(), "a b".to_string()),
            ("x-team".into(), "platform".into())
        ]
    );
    let origin = Origin::of(&s);
    let get = |k: &str| {
        origin
            .attributes
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get("service.name"), Some("rules".into()));
    assert_eq!(get("deployment.environment"), Some("prod".into()));
    assert!(get("service.version").is_some() && get("os.type").is_some());
}

#[test]
fn grpc_an_unknown_protocol_and_a_malformed_endpoint_are_clear_problems() {
    let t = tree(
        None,
        Some("[telemetry]\nendpoint = \"localhost:4318\"\n"),
        None,
    );
    let grpc = Settings::resolve(&t.places, &env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]));
    assert!(grpc.unshippable);
    assert!(
        grpc.problems
            .iter()
            .any(|p| p.contains("`grpc` is not supported")),
        "{:?}",
        grpc.problems
    );
    let odd = Settings::resolve(&t.places, &env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "udp")]));
    assert!(odd
        .problems
        .iter()
        .any(|p| p.contains("unknown protocol `udp`")));
    let s = Settings::resolve(
        &tree(
            None,
            Some("[telemetry]\nendpoint = \"localhost:4318\"\n"),
            None,
        )
        .places,
        &env(&[]),
    );
    assert!(s.unshippable);
    assert!(
        s.problems
            .iter()
            .any(|p| p.contains("config.toml") && p.contains("not an http:// or https:// URL")),
        "{:?}",
        s.problems
    );
    let bad_port = Settings::resolve(
        &t.places,
        &env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:99999")]),
    );
    assert!(bad_port.problems.iter().any(|p| p.contains("port `99999`")));
}

#[test]
fn a_config_that_does_not_parse_names_its_file_and_line() {
    let t = tree(
        None,
        Some("sources = [\"wave\"]\n\n[telemetry]\nenabled = \"yes\"\n"),
        None,
    );
    let s = Settings::resolve(&t.places, &env(&[]));
    assert!(!s.enabled);
    assert!(
        s.problems.iter().any(|p| p.contains(".wave/config.toml:4")),
        "{:?}",
        s.problems
    );
}

#[test]
fn inside_an_eval_run_telemetry_is_off_whatever_the_policy_says() {
    let t = tree(Some("[telemetry]\nenabled = true\n"), None, None);
    let s = Settings::resolve(&t.places, &env(&[("WAVE_RULES_EVAL_RUN", "1")]));
    assert!(!s.enabled);
    assert_eq!(s.enabled_from, Place::EvalRun);
}

fn record(i: i64) -> Record<'static> {
    Record::new(names::RULE_DELIVERED)
        .with("wave_rules.rule.id", "ts.md")
        .with("wave_rules.rule.tokens", i)
        .with("session.id", "s-1")
}

#[test]
fn a_spool_line_follows_otlp_json_rules_and_reads_back_with_the_official_messages() {
    let settings = Settings {
        service_name: "wave-rules".into(),
        ..Settings::default()
    };
    let line = encode::json_line(&Origin::of(&settings), &[record(42)]);
    let json: serde_json::Value = serde_json::from_slice(&line).unwrap();
    let rec = &json["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
    assert!(
        rec["timeUnixNano"].is_string(),
        "64-bit integers are strings: {rec}"
    );
    assert_eq!(rec["severityNumber"], 9, "enums are numbers");
    assert_eq!(rec["eventName"], "wave_rules.rule.delivered");
    let attrs = rec["attributes"].as_array().unwrap();
    let tokens = attrs
        .iter()
        .find(|a| a["key"] == "wave_rules.rule.tokens")
        .unwrap();
    assert_eq!(tokens["value"]["intValue"], "42");
    let name = attrs.iter().find(|a| a["key"] == "event.name").unwrap();
    assert_eq!(name["value"]["stringValue"], "wave_rules.rule.delivered");
    let id = attrs
        .iter()
        .find(|a| a["key"] == "wave_rules.record.id")
        .unwrap();
    assert_eq!(id["value"]["stringValue"].as_str().unwrap().len(), 32);
    assert_eq!(
        json["resourceLogs"][0]["scopeLogs"][0]["scope"]["name"],
        "wave-rules"
    );
    let data = encode::parse_line(std::str::from_utf8(&line).unwrap()).unwrap();
    assert_eq!(encode::record_count(&data), 1);
    let body = encode::request_body(vec![data.clone(), data], Protocol::HttpProtobuf);
    let decoded = ExportLogsServiceRequest::decode(&body[..]).unwrap();
    assert_eq!(decoded.resource_logs.len(), 2);
    assert_eq!(
        decoded.resource_logs[0].scope_logs[0].log_records[0].event_name,
        "wave_rules.rule.delivered"
    );
}

#[test]
fn every_record_has_its_own_id() {
    let ids: std::collections::HashSet<String> = (0..1000)
        .map(|i| match record(i).get("wave_rules.record.id") {
            Some(memory_rules::delivery::telemetry::Value::Str(s)) => s.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids.len(), 1000);
}

/// A transport that answers from a script and keeps what it was sent.
struct Scripted {
    answers: RefCell<Vec<Result<Response, String>>>,
    sent: RefCell<Vec<ExportLogsServiceRequest>>,
}

impl Scripted {
    fn new(answers: Vec<Result<Response, String>>) -> Scripted {
        Scripted {
            answers: RefCell::new(answers),
            sent: RefCell::new(Vec::new()),
        }
    }
    fn ids(&self) -> Vec<String> {
        self.sent
            .borrow()
            .iter()
            .flat_map(|r| &r.resource_logs)
            .flat_map(|r| &r.scope_logs)
            .flat_map(|s| &s.log_records)
            .map(|l| {
                format!(
                    "{:?}",
                    l.attributes
                        .iter()
                        .find(|a| a.key == "wave_rules.record.id")
                        .unwrap()
                        .value
                )
            })
            .collect()
    }
}

impl Transport for Scripted {
    fn post(&self, post: &Post) -> Result<Response, String> {
        let body = post.body;
        let answer = self.answers.borrow_mut().remove(0);
        if matches!(
            answer,
            Ok(Response {
                status: 200..=299,
                ..
            })
        ) {
            self.sent
                .borrow_mut()
                .push(ExportLogsServiceRequest::decode(body).unwrap());
        }
        answer
    }
}

fn ok() -> Result<Response, String> {
    Ok(Response {
        status: 200,
        retry_after: None,
    })
}

fn on() -> Settings {
    Settings {
        enabled: true,
        endpoint: "http://127.0.0.1:9/v1/logs".into(),
        ..Settings::default()
    }
}

fn spool_with(n: i64) -> (tempfile::TempDir, Spool) {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::at(dir.path().join("telemetry"));
    let origin = Origin::of(&on());
    for i in 0..n {
        spool.append(&origin, &[record(i)]).unwrap();
    }
    (dir, spool)
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

#[test]
fn records_are_marked_shipped_only_on_a_2xx_and_each_arrives_once() {
    let (_d, spool) = spool_with(3);
    let down = Scripted::new(vec![Err("connection refused".into())]);
    let run = ship(&spool, &on(), &down, soon(), &|_| {}).unwrap();
    assert_eq!(run.outcome, Outcome::Failed("connection refused".into()));
    assert_eq!(spool.state().unsent_bytes, spool.state().bytes);
    assert!(
        spool.progress().retry_at_ms > 0,
        "a backoff before the next try"
    );
    let mut p = spool.progress();
    p.retry_at_ms = 0;
    std::fs::write(
        spool.dir().join("progress.json"),
        serde_json::to_vec(&p).unwrap(),
    )
    .unwrap();
    let up = Scripted::new(vec![ok()]);
    let run = ship(&spool, &on(), &up, soon(), &|_| {}).unwrap();
    assert_eq!((run.outcome, run.records), (Outcome::Done, 3));
    assert_eq!(up.ids().len(), 3);
    assert_eq!(
        spool.state().bytes,
        0,
        "a spool shipped to its end is emptied"
    );
    let again = Scripted::new(vec![]);
    assert_eq!(
        ship(&spool, &on(), &again, soon(), &|_| {})
            .unwrap()
            .requests,
        0
    );
}

#[test]
fn a_500_keeps_the_records_for_the_next_run() {
    let (_d, spool) = spool_with(2);
    let refused = Scripted::new(vec![Ok(Response {
        status: 500,
        retry_after: None,
    })]);
    let run = ship(&spool, &on(), &refused, soon(), &|_| {}).unwrap();
    assert_eq!(
        run.outcome,
        Outcome::Failed("the receiver answered 500".into())
    );
    assert_eq!(
        spool.progress().last_error.as_deref(),
        Some("the receiver answered 500")
    );
    assert!(spool.state().unsent_bytes > 0);
}

#[test]
fn a_429_with_retry_after_is_waited_for_then_sent_once() {
    let (_d, spool) = spool_with(2);
    let t = Scripted::new(vec![
        Ok(Response {
            status: 429,
            retry_after: Some(Duration::from_secs(1)),
        }),
        ok(),
    ]);
    let slept = RefCell::new(Vec::new());
    let run = ship(&spool, &on(), &t, soon(), &|d| slept.borrow_mut().push(d)).unwrap();
    assert_eq!(
        (run.outcome, run.records, run.requests),
        (Outcome::Done, 2, 2)
    );
    let waited = slept.borrow();
    assert_eq!(waited.len(), 1);
    assert!(
        waited[0] > Duration::from_millis(500) && waited[0] <= Duration::from_secs(1),
        "{waited:?}"
    );
    assert_eq!(t.ids().len(), 2);
}

#[test]
fn a_retry_after_past_the_deadline_leaves_the_records_for_later() {
    let (_d, spool) = spool_with(1);
    let t = Scripted::new(vec![Ok(Response {
        status: 503,
        retry_after: Some(Duration::from_secs(120)),
    })]);
    let run = ship(&spool, &on(), &t, soon(), &|_| {
        panic!("no sleep past the deadline")
    })
    .unwrap();
    assert_eq!(run.outcome, Outcome::Later);
    assert!(spool.state().unsent_bytes > 0);
}

#[test]
fn a_corrupt_line_is_skipped_and_counted_and_the_others_go() {
    let (_d, spool) = spool_with(1);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(spool.file())
        .unwrap();
    std::io::Write::write_all(&mut f, b"{not json\n").unwrap();
    spool.append(&Origin::of(&on()), &[record(7)]).unwrap();
    std::fs::write(spool.dir().join("progress.json"), "garbage").unwrap();
    assert!(spool.state().problem.unwrap().contains("progress.json"));
    let t = Scripted::new(vec![ok()]);
    let run = ship(&spool, &on(), &t, soon(), &|_| {}).unwrap();
    assert_eq!(run.records, 2);
    assert_eq!(spool.progress().corrupt, 1);
}

#[test]
fn a_full_spool_drops_the_oldest_and_counts_them_in_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let spool = Spool::at(dir.path().join("t"));
    let origin = Origin::of(&on());
    let big = "x".repeat(100_000);
    let fat = |i: i64| record(i).with("wave_rules.memory.ids", vec![big.clone()]);
    let limit = memory_rules::base::limits::MAX_SPOOL_BYTES;
    for i in 0..((limit / 100_000) as i64 + 10) {
        spool.append(&origin, &[fat(i)]).unwrap();
        assert!(spool.state().bytes <= limit);
    }
    let text = std::fs::read_to_string(spool.file()).unwrap();
    let first = encode::parse_line(text.lines().next().unwrap()).unwrap();
    let rec = &first.resource_logs[0].scope_logs[0].log_records[0];
    assert_eq!(rec.event_name, names::RECORDS_DROPPED);
    assert!(spool.progress().dropped > 0);
    let last = encode::parse_line(text.lines().last().unwrap()).unwrap();
    let tokens = last.resource_logs[0].scope_logs[0].log_records[0]
        .attributes
        .iter()
        .find(|a| a.key == "wave_rules.rule.tokens")
        .unwrap()
        .clone();
    let newest = format!("IntValue({})", (limit / 100_000) + 9);
    assert!(
        format!("{:?}", tokens.value).contains(&newest),
        "the newest record is kept"
    );
}

#[test]
fn a_spool_in_an_unwritable_place_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let spool = Spool::at(file.join("telemetry"));
    let err = spool.append(&Origin::of(&on()), &[record(1)]).unwrap_err();
    assert!(!err.to_string().is_empty());
}
