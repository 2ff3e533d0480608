//! HTTP/1.1 on the agent's side of the proxy: request heads (httparse),
//! bodies (Content-Length or chunked, refused past the limit before they are
//! read), and answers written back.

use memory_rules::base::limits::{
    MAX_PROXY_HEADERS, MAX_PROXY_HEAD_BYTES, MAX_PROXY_IDLE_SECS, MAX_PROXY_REQUEST_BYTES,
};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often a blocked read looks at the stop flag.
const POLL: Duration = Duration::from_millis(200);

/// A request's line and headers.
pub(super) struct Head {
    pub method: String,
    /// Path and query.
    pub target: String,
    /// HTTP/1.0 (0) or HTTP/1.1 (1).
    pub minor: u8,
    pub headers: Vec<(String, Vec<u8>)>,
}

impl Head {
    pub fn header(&self, name: &str) -> Option<&str> {
        let (_, v) = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))?;
        std::str::from_utf8(v).ok().map(str::trim)
    }

    fn has_token(&self, name: &str, token: &str) -> bool {
        self.header(name)
            .is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    }

    /// Whether the connection stays open after this exchange.
    pub fn keep_alive(&self) -> bool {
        if self.minor == 0 {
            self.has_token("connection", "keep-alive")
        } else {
            !self.has_token("connection", "close")
        }
    }
}

/// Why a request could not be read.
pub(super) enum ReadError {
    /// The socket failed, or the proxy is stopping: close it without an answer.
    Gone,
    /// Not HTTP: answer 400.
    Bad(String),
    /// A head over `MAX_PROXY_HEAD_BYTES`: answer 431.
    HeadTooLarge,
    /// A body over `MAX_PROXY_REQUEST_BYTES` (its size when it was declared): answer 413.
    BodyTooLarge(Option<u64>),
}

/// A client connection and the bytes read past the current request.
pub(super) struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn new(stream: TcpStream) -> Conn {
        let _ = stream.set_read_timeout(Some(POLL));
        let _ = stream.set_write_timeout(Some(Duration::from_secs(MAX_PROXY_IDLE_SECS)));
        let _ = stream.set_nodelay(true);
        Conn {
            stream,
            buf: Vec::new(),
        }
    }

    /// Reads more bytes into the buffer: Ok(false) at the end of the stream;
    /// a wait longer than `MAX_PROXY_IDLE_SECS`, or the proxy stopping, is `Gone`.
    fn fill(&mut self, stop: &AtomicBool) -> Result<bool, ReadError> {
        let deadline = Instant::now() + Duration::from_secs(MAX_PROXY_IDLE_SECS);
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if stop.load(Ordering::SeqCst) || Instant::now() > deadline {
                return Err(ReadError::Gone);
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(true);
                }
                Err(e) if transient(&e) => {}
                Err(_) => return Err(ReadError::Gone),
            }
        }
    }

    /// The next request's head; None when the client closed the connection
    /// between requests.
    pub fn read_head(&mut self, stop: &AtomicBool) -> Result<Option<Head>, ReadError> {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; MAX_PROXY_HEADERS];
            let mut req = httparse::Request::new(&mut headers);
            match req.parse(&self.buf) {
                Ok(httparse::Status::Complete(len)) => {
                    let head = Head {
                        method: req.method.unwrap_or("GET").to_string(),
                        target: req.path.unwrap_or("/").to_string(),
                        minor: req.version.unwrap_or(1),
                        headers: req
                            .headers
                            .iter()
                            .map(|h| (h.name.to_string(), h.value.to_vec()))
                            .collect(),
                    };
                    self.buf.drain(..len);
                    return Ok(Some(head));
                }
                Ok(httparse::Status::Partial) if self.buf.len() > MAX_PROXY_HEAD_BYTES => {
                    return Err(ReadError::HeadTooLarge)
                }
                Ok(httparse::Status::Partial) => {}
                Err(httparse::Error::TooManyHeaders) => return Err(ReadError::HeadTooLarge),
                Err(e) => return Err(ReadError::Bad(format!("not an HTTP/1.1 request: {e}"))),
            }
            if !self.fill(stop)? {
                return if self.buf.is_empty() {
                    Ok(None)
                } else {
                    Err(ReadError::Gone)
                };
            }
        }
    }

    /// The body of the request `head` begins, checked against
    /// `MAX_PROXY_REQUEST_BYTES` before it is read.
    pub fn read_body(&mut self, head: &Head, stop: &AtomicBool) -> Result<Vec<u8>, ReadError> {
        if head
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
        {
            return self.read_chunked(stop);
        }
        let len = match head.header("content-length") {
            None => 0,
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| ReadError::Bad(format!("Content-Length {v:?} is not a number")))?,
        };
        if len > MAX_PROXY_REQUEST_BYTES as u64 {
            return Err(ReadError::BodyTooLarge(Some(len)));
        }
        if head.has_token("expect", "100-continue") {
            let _ = self.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        let len = len as usize;
        while self.buf.len() < len {
            if !self.fill(stop)? {
                return Err(ReadError::Gone);
            }
        }
        Ok(self.buf.drain(..len).collect())
    }

    fn read_chunked(&mut self, stop: &AtomicBool) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line(stop)?;
            let size_text = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16)
                .map_err(|_| ReadError::Bad(format!("bad chunk size {size_text:?}")))?;
            if size == 0 {
                // Trailers, up to the empty line.
                while !self.read_line(stop)?.is_empty() {}
                return Ok(body);
            }
            if body.len() + size > MAX_PROXY_REQUEST_BYTES {
                return Err(ReadError::BodyTooLarge(None));
            }
            while self.buf.len() < size + 2 {
                if !self.fill(stop)? {
                    return Err(ReadError::Gone);
                }
            }
            body.extend(self.buf.drain(..size));
            self.buf.drain(..2);
        }
    }

    fn read_line(&mut self, stop: &AtomicBool) -> Result<String, ReadError> {
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8_lossy(&self.buf[..i]).into_owned();
                self.buf.drain(..i + 2);
                return Ok(line);
            }
            if self.buf.len() > MAX_PROXY_HEAD_BYTES {
                return Err(ReadError::Bad("a chunk line is too long".into()));
            }
            if !self.fill(stop)? {
                return Err(ReadError::Gone);
            }
        }
    }
}

/// Writes a response head: the status, `headers`, and the framing (`chunked`,
/// or a Content-Length of `length`).
pub(super) fn write_head(
    w: &mut impl Write,
    status: u16,
    reason: &str,
    headers: &[(String, Vec<u8>)],
    length: Option<usize>,
    close: bool,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n").into_bytes();
    for (name, value) in headers {
        head.extend_from_slice(name.as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value);
        head.extend_from_slice(b"\r\n");
    }
    match length {
        Some(n) => head.extend_from_slice(format!("content-length: {n}\r\n").as_bytes()),
        None => head.extend_from_slice(b"transfer-encoding: chunked\r\n"),
    }
    if close {
        head.extend_from_slice(b"connection: close\r\n");
    }
    head.extend_from_slice(b"\r\n");
    w.write_all(&head)?;
    w.flush()
}

/// Writes one chunk of a chunked body and flushes it (an empty `data` ends the body).
pub(super) fn write_chunk(w: &mut impl Write, data: &[u8]) -> io::Result<()> {
    if data.is_empty() {
        w.write_all(b"0\r\n\r\n")?;
    } else {
        w.write_all(format!("{:x}\r\n", data.len()).as_bytes())?;
        w.write_all(data)?;
        w.write_all(b"\r\n")?;
    }
    w.flush()
}

/// The proxy's own answer (an error it found, not the model's): a JSON body
/// `{"error":{"type":"proxy_error","message":…}}`, as the APIs shape theirs.
pub(super) fn write_error(
    w: &mut impl Write,
    status: u16,
    message: &str,
    close: bool,
) -> io::Result<()> {
    let body =
        serde_json::json!({"error": {"type": "proxy_error", "message": message}}).to_string();
    let headers = [("content-type".to_string(), b"application/json".to_vec())];
    write_head(w, status, reason(status), &headers, Some(body.len()), close)?;
    w.write_all(body.as_bytes())?;
    w.flush()
}

/// Answers `status` with `message` on a connection that is not served, and closes it.
pub(super) fn refuse(mut stream: TcpStream, status: u16, message: &str) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = write_error(&mut stream, status, message, true);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // One short read of what the client sent, so the close does not reset
    // the answer away (the accepting thread cannot wait longer).
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let _ = stream.read(&mut [0u8; 16 * 1024]);
}

fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Closes a connection whose request was not read whole: the write side
/// first, then what the client still sends is read and dropped for a moment
/// (closing with unread bytes would reset the connection and could lose the
/// answer before the client reads it).
pub(super) fn drain_and_close(stream: &mut TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(POLL));
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut sink = [0u8; 64 * 1024];
    while Instant::now() < deadline {
        match stream.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if transient(&e) => {}
            Err(_) => break,
        }
    }
}

/// A read that timed out (the socket's short timeout, to look at the stop
/// flag) or was interrupted: try again.
fn transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}
