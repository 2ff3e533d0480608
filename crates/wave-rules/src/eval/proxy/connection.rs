//! One client connection: read a request, forward it, stream the answer
//! back as it arrives while keeping a copy, record the exchange; again while
//! the client keeps the connection open.

use super::exchange::Exchange;
use super::http::{self, Conn, Head, ReadError};
use super::upstream::is_hop_header;
use super::{wire, Shared};
use memory_rules::base::limits::{
    MAX_PROXY_EXCHANGES, MAX_PROXY_RECORDED_BYTES, MAX_PROXY_REQUEST_BYTES,
};
use std::io::{Read, Write};
use std::net::TcpStream;
use ureq::http as h;

/// Serves requests on `stream` until the client closes it, an answer cannot
/// be kept alive, or the proxy stops.
pub(super) fn serve(stream: TcpStream, shared: &Shared) {
    let mut conn = Conn::new(stream);
    // Each turn reads one request; `read_head` ends the loop on an idle
    // connection (`MAX_PROXY_IDLE_SECS`) or when the proxy stops.
    loop {
        let head = match conn.read_head(&shared.stopping) {
            Ok(Some(head)) => head,
            Ok(None) | Err(ReadError::Gone) => return,
            Err(ReadError::HeadTooLarge) => {
                return refuse(&mut conn, 431, "the request head is too large")
            }
            Err(ReadError::Bad(why)) => return refuse(&mut conn, 400, &why),
            Err(ReadError::BodyTooLarge(_)) => return,
        };
        let body = match conn.read_body(&head, &shared.stopping) {
            Ok(body) => body,
            Err(ReadError::BodyTooLarge(declared)) => {
                return too_large(&mut conn, &head, declared, shared)
            }
            Err(ReadError::Bad(why)) => return refuse(&mut conn, 400, &why),
            Err(_) => return,
        };
        if !exchange(&mut conn, &head, body, shared) || !head.keep_alive() {
            return;
        }
    }
}

fn refuse(conn: &mut Conn, status: u16, why: &str) {
    let _ = http::write_error(&mut conn.stream, status, why, true);
    http::drain_and_close(&mut conn.stream);
}

/// A body over the limit: answered 413, recorded, the connection closed.
fn too_large(conn: &mut Conn, head: &Head, declared: Option<u64>, shared: &Shared) {
    let size = declared.map_or_else(
        || "a chunked request body".to_string(),
        |n| format!("a request body of {n} bytes"),
    );
    let why = format!("{size} is over the recording proxy's limit of {MAX_PROXY_REQUEST_BYTES} bytes (MAX_PROXY_REQUEST_BYTES); not sent to {}", shared.upstream.url_for(&head.target));
    if let Some(seq) = shared.admit() {
        let mut ex = Exchange::new(&head.method, &head.target, &[]);
        ex.error = Some(why.clone());
        shared.record(seq, ex);
    }
    refuse(conn, 413, &why);
}

/// Forwards one request and relays the answer; false when the connection
/// cannot carry another request.
fn exchange(conn: &mut Conn, head: &Head, body: Vec<u8>, shared: &Shared) -> bool {
    let mut ex = Exchange::new(&head.method, &head.target, &body);
    let Some(seq) = shared.admit() else {
        let why = format!("the recording proxy records at most {MAX_PROXY_EXCHANGES} exchanges (MAX_PROXY_EXCHANGES); this request was not sent");
        refuse(conn, 503, &why);
        return false;
    };
    let url = shared.upstream.url_for(&head.target);
    match shared
        .upstream
        .send(&head.method, &url, &head.headers, body)
    {
        Err(why) => {
            ex.error = Some(why.clone());
            // Recorded before the answer is written: an agent that has its
            // answer finds the exchange in `Proxy::exchanges`.
            shared.record(seq, ex);
            http::write_error(&mut conn.stream, 502, &why, !head.keep_alive()).is_ok()
        }
        Ok(response) => {
            ex.status = Some(response.status().as_u16());
            let no_body = head.method.eq_ignore_ascii_case("HEAD")
                || matches!(ex.status, Some(204 | 304) | Some(100..=199));
            let complete = relay(
                &mut conn.stream,
                response,
                no_body,
                !head.keep_alive(),
                |relayed| {
                    if let Some(why) = &relayed.error {
                        ex.error = Some(format!("{why} (answer from {url})"));
                    }
                    ex.truncated = relayed.truncated;
                    wire::read_answer(
                        &mut ex,
                        &relayed.content_type,
                        relayed.gzip,
                        &relayed.recorded,
                    );
                    shared.record(seq, ex);
                },
            );
            complete
        }
    }
}

/// What relaying an answer gave.
struct Relayed {
    /// The first `MAX_PROXY_RECORDED_BYTES` of the body.
    recorded: Vec<u8>,
    truncated: bool,
    content_type: String,
    gzip: bool,
    error: Option<String>,
}

/// Writes the upstream's answer to the client: its status and headers (less
/// those of one hop), then its body chunk by chunk as it arrives, flushed.
/// `done` gets what was read before the answer's last bytes are written (so
/// the exchange is recorded once the client has its whole answer). True when
/// the client got the whole answer.
fn relay(
    client: &mut TcpStream,
    response: h::Response<ureq::Body>,
    no_body: bool,
    close: bool,
    done: impl FnOnce(&Relayed),
) -> bool {
    let (parts, body) = response.into_parts();
    let header = |name: h::header::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let mut out = Relayed {
        recorded: Vec::new(),
        truncated: false,
        content_type: header(h::header::CONTENT_TYPE),
        gzip: header(h::header::CONTENT_ENCODING).contains("gzip"),
        error: None,
    };
    let headers: Vec<(String, Vec<u8>)> = parts
        .headers
        .iter()
        .filter(|(n, _)| !is_hop_header(n.as_str()))
        .map(|(n, v)| (n.as_str().to_string(), v.as_bytes().to_vec()))
        .collect();
    let reason = parts.status.canonical_reason().unwrap_or("");
    if no_body {
        done(&out);
        return http::write_head(
            client,
            parts.status.as_u16(),
            reason,
            &headers,
            Some(0),
            close,
        )
        .is_ok();
    }
    if let Err(e) = http::write_head(client, parts.status.as_u16(), reason, &headers, None, close) {
        out.error = Some(format!("the agent closed the connection: {e}"));
        done(&out);
        return false;
    }
    let whole = copy_body(client, body.into_reader(), &mut out);
    done(&out);
    // The last chunk: the client's answer is complete only now.
    whole && http::write_chunk(client, &[]).is_ok()
}

/// Copies the body to the client as chunks, keeping the first
/// `MAX_PROXY_RECORDED_BYTES`; ends at the body's end (true), a read error,
/// or a client that went away (bounded by the upstream's timeouts).
fn copy_body(client: &mut TcpStream, mut reader: impl Read, out: &mut Relayed) -> bool {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // The client sees a cut chunked body (no last chunk): an error, not a short answer.
                out.error = Some(format!("the answer broke off: {e}"));
                let _ = client.flush();
                return false;
            }
        };
        let room = MAX_PROXY_RECORDED_BYTES.saturating_sub(out.recorded.len());
        out.recorded.extend_from_slice(&buf[..n.min(room)]);
        out.truncated |= n > room;
        if let Err(e) = http::write_chunk(client, &buf[..n]) {
            out.error = Some(format!("the agent closed the connection: {e}"));
            return false;
        }
    }
}
