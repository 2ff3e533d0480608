//! The OTLP/HTTP transport: one blocking `ureq` request per export, with a
//! timeout on every phase, no proxy from the environment, no redirect.

use memory_rules::delivery::telemetry::{Post, Response, Transport};
use std::time::Duration;

use memory_rules::base::limits::{
    TELEMETRY_CONNECT_SECS as CONNECT_SECS, TELEMETRY_EXCHANGE_SECS as EXCHANGE_SECS,
};

pub struct Http {
    agent: ureq::Agent,
}

impl Http {
    pub fn new() -> Http {
        let phase = Some(Duration::from_secs(EXCHANGE_SECS));
        let agent = ureq::Agent::config_builder()
            .proxy(None)
            .max_redirects(0)
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(CONNECT_SECS)))
            .timeout_send_request(phase)
            .timeout_send_body(phase)
            .timeout_recv_response(phase)
            .timeout_recv_body(phase)
            .timeout_global(Some(Duration::from_secs(CONNECT_SECS + 2 * EXCHANGE_SECS)))
            .build()
            .new_agent();
        Http { agent }
    }
}

impl Default for Http {
    fn default() -> Http {
        Http::new()
    }
}

impl Transport for Http {
    fn post(&self, post: &Post) -> Result<Response, String> {
        let limit = post
            .timeout
            .min(Duration::from_secs(CONNECT_SECS + 2 * EXCHANGE_SECS));
        if limit.is_zero() {
            return Err("no time left before the deadline".into());
        }
        let mut request = self
            .agent
            .post(post.url)
            .config()
            .timeout_global(Some(limit))
            .build()
            .header("content-type", post.content_type);
        for (k, v) in post.headers {
            request = request.header(k.as_str(), v.as_str());
        }
        let mut answer = request.send(post.body).map_err(|e| e.to_string())?;
        let status = answer.status().as_u16();
        let retry_after = answer
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        // The answer's body is read (bounded) so the connection ends cleanly.
        let _ = answer
            .body_mut()
            .with_config()
            .limit(64 * 1024)
            .read_to_vec();
        Ok(Response {
            status,
            retry_after,
        })
    }
}
