//! Decodes OTLP/HTTP logs requests with the official protocol definitions
//! (the `opentelemetry-proto` crate's prost messages and serde), for the
//! end-to-end tests in Node: `otlp_decode DIR` reads every `N.bin` with its
//! content type in `N.type` and prints one OTLP/JSON `ExportLogsServiceRequest`
//! per line (an error line `{"error": ...}` for a body that does not decode).

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use prost::Message;

fn decode(body: &[u8], content_type: &str) -> Result<ExportLogsServiceRequest, String> {
    if content_type.contains("json") {
        serde_json::from_slice(body).map_err(|e| e.to_string())
    } else {
        ExportLogsServiceRequest::decode(body).map_err(|e| e.to_string())
    }
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: otlp_decode DIR");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("a directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    names.sort();
    for path in names {
        let body = std::fs::read(&path).unwrap_or_default();
        let content_type = std::fs::read_to_string(path.with_extension("type")).unwrap_or_default();
        match decode(&body, &content_type) {
            Ok(request) => println!("{}", serde_json::to_string(&request).unwrap_or_default()),
            Err(e) => println!("{}", serde_json::json!({ "error": e, "file": path })),
        }
    }
}
