//! The client side: one `ureq` agent for the model's base URL, with
//! timeouts, no proxy from the environment, no redirects followed, and no
//! header of its own added.

use super::ProxyError;
use memory_rules::base::limits::{MAX_PROXY_CONNECT_SECS, MAX_PROXY_UPSTREAM_SECS};
use std::time::Duration;
use ureq::config::AutoHeaderValue;
use ureq::http;

/// Request headers that belong to one hop, never forwarded (the client sets
/// Host and the body's length; `accept-encoding` is replaced by `identity`
/// so the proxy can read the answer).
const HOP_HEADERS: [&str; 12] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "expect",
];

/// Whether a header is one hop's only (not forwarded either way).
pub(super) fn is_hop_header(name: &str) -> bool {
    HOP_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name))
        || name.eq_ignore_ascii_case("accept-encoding")
}

/// The model's base URL and the client that reaches it.
pub(super) struct Upstream {
    /// The base URL without a trailing `/`.
    base: String,
    agent: ureq::Agent,
}

impl Upstream {
    pub fn new(url: &str) -> Result<Upstream, ProxyError> {
        let bad = |reason: &str| ProxyError::BadUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let uri: http::Uri = url
            .parse()
            .map_err(|e: http::uri::InvalidUri| bad(&e.to_string()))?;
        if !matches!(uri.scheme_str(), Some("http" | "https")) {
            return Err(bad("it must start with http:// or https://"));
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(bad("it names no host"));
        }
        if uri.query().is_some() {
            return Err(bad("it has a query; the agents' paths are appended to it"));
        }
        let upstream_time = Some(Duration::from_secs(MAX_PROXY_UPSTREAM_SECS));
        let agent = ureq::Agent::config_builder()
            .proxy(None)
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(AutoHeaderValue::None)
            .accept(AutoHeaderValue::None)
            .accept_encoding(AutoHeaderValue::None)
            .timeout_connect(Some(Duration::from_secs(MAX_PROXY_CONNECT_SECS)))
            .timeout_send_request(upstream_time)
            .timeout_send_body(upstream_time)
            .timeout_recv_response(upstream_time)
            .timeout_recv_body(upstream_time)
            .build()
            .new_agent();
        Ok(Upstream {
            base: url.trim_end_matches('/').to_string(),
            agent,
        })
    }

    /// The URL a request target (path and query) goes to.
    pub fn url_for(&self, target: &str) -> String {
        let target = if target.starts_with('/') {
            target.to_string()
        } else {
            format!("/{target}")
        };
        format!("{}{target}", self.base)
    }

    /// Interrupts every request in flight (their reads and writes fail at
    /// once) and fails the new ones: the proxy is stopping. A connect in
    /// progress ends at its own timeout.
    pub fn shutdown(&self) {
        self.agent.clone().shutdown();
    }

    /// Sends a request to `url`; the error names the URL.
    pub fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, Vec<u8>)],
        body: Vec<u8>,
    ) -> Result<http::Response<ureq::Body>, String> {
        let mut builder = http::Request::builder().method(method).uri(url);
        for (name, value) in headers.iter().filter(|(n, _)| !is_hop_header(n)) {
            builder = builder.header(name.as_str(), value.as_slice());
        }
        builder = builder.header("accept-encoding", "identity");
        let result = if body.is_empty() {
            builder
                .body(())
                .map_err(|e| e.to_string())
                .and_then(|r| self.agent.run(r).map_err(|e| e.to_string()))
        } else {
            builder
                .body(body)
                .map_err(|e| e.to_string())
                .and_then(|r| self.agent.run(r).map_err(|e| e.to_string()))
        };
        result.map_err(|e| format!("cannot reach {url}: {e}"))
    }
}
