//! The recording proxy of `wave-rules eval`: a plain HTTP/1.1 server on
//! 127.0.0.1 that forwards every request to the model's base URL and streams
//! the answer back unchanged, and records each exchange: what reached the
//! model (the request body), the model's own usage counts, the tool calls it
//! asked for and its text, read from the four APIs the agents speak
//! (Anthropic Messages, OpenAI chat completions and Responses, Gemini).
//!
//! One thread accepts; one thread serves each connection (at most
//! [`MAX_PROXY_CONNECTIONS`]), keep-alive, idle at most
//! `MAX_PROXY_IDLE_SECS`. Nothing is sent anywhere but the upstream: its
//! client reads no proxy from the environment and follows no redirect (a 3xx
//! reaches the agent as it came).

mod connection;
mod exchange;
mod http;
mod shell;
mod upstream;
mod wire;

pub use exchange::{Api, Exchange, ToolUse, Usage};

use memory_rules::base::limits::{
    MAX_PROXY_CONNECTIONS, MAX_PROXY_EXCHANGES, MAX_PROXY_STOP_MILLIS,
};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use upstream::Upstream;

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The base URL is not an `http://` or `https://` URL with a host.
    #[error("the model's base URL {url:?} is not usable: {reason}")]
    BadUrl { url: String, reason: String },
    /// 127.0.0.1 gave no port, or no thread could be started.
    #[error("cannot start the recording proxy in front of {url}: {source}")]
    Start { url: String, source: std::io::Error },
}

/// A running recording proxy; [`Proxy::stop`] (or dropping it) stops it.
pub struct Proxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

/// What the accepting thread and the connection threads share.
struct Shared {
    upstream: Upstream,
    stopping: AtomicBool,
    /// Exchanges by the order their requests were read.
    exchanges: Mutex<Vec<(usize, Exchange)>>,
    /// Requests admitted so far (the next one's number).
    admitted: AtomicUsize,
    /// Connections being served (their threads, and their sockets to shut down on stop).
    connections: Mutex<Vec<(JoinHandle<()>, TcpStream)>>,
}

impl Shared {
    /// A number for the next request, or None past `MAX_PROXY_EXCHANGES`.
    fn admit(&self) -> Option<usize> {
        let n = self.admitted.fetch_add(1, Ordering::SeqCst);
        (n < MAX_PROXY_EXCHANGES).then_some(n)
    }

    fn record(&self, seq: usize, exchange: Exchange) {
        lock(&self.exchanges).push((seq, exchange));
    }

    fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }
}

/// A lock that a panicked holder did not poison for the others (the data is
/// a list that is only ever pushed to).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Proxy {
    /// Binds 127.0.0.1 on a free port and serves in background threads;
    /// every request is forwarded to `upstream` (an `http://` or `https://`
    /// base URL: the request's path and query are appended to its path, so
    /// base `http://h:1/v1` and `/chat/completions` give
    /// `http://h:1/v1/chat/completions`).
    pub fn start(upstream: &str) -> Result<Proxy, ProxyError> {
        let up = Upstream::new(upstream)?;
        let start_err = |source| ProxyError::Start {
            url: upstream.to_string(),
            source,
        };
        let listener = TcpListener::bind(("127.0.0.1", 0)).map_err(start_err)?;
        let addr = listener.local_addr().map_err(start_err)?;
        let shared = Arc::new(Shared {
            upstream: up,
            stopping: AtomicBool::new(false),
            exchanges: Mutex::new(Vec::new()),
            admitted: AtomicUsize::new(0),
            connections: Mutex::new(Vec::new()),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name(format!("evp{}a", addr.port()))
            .spawn(move || accept_loop(listener, accept_shared))
            .map_err(start_err)?;
        Ok(Proxy {
            addr,
            shared,
            accept: Some(accept),
        })
    }

    /// The proxy's base URL, `http://127.0.0.1:PORT`, for the agent.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every exchange recorded so far, in the order the requests came in
    /// (one still being answered is not among them yet).
    pub fn exchanges(&self) -> Vec<Exchange> {
        let mut all = lock(&self.shared.exchanges).clone();
        all.sort_by_key(|(seq, _)| *seq);
        all.into_iter().map(|(_, e)| e).collect()
    }

    /// Stops accepting, closes the open connections, interrupts the requests
    /// still waiting on the model (recorded with that error) and waits at
    /// most `MAX_PROXY_STOP_MILLIS` for the threads to end (only one still
    /// connecting to the model outlasts it, until `MAX_PROXY_CONNECT_SECS`).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        let Some(accept) = self.accept.take() else {
            return;
        };
        self.shared.stopping.store(true, Ordering::SeqCst);
        // Wake the accepting thread out of accept().
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        let _ = accept.join();
        let connections = std::mem::take(&mut *lock(&self.shared.connections));
        // Requests waiting on the model, and answers being read, fail now.
        self.shared.upstream.shutdown();
        for (_, stream) in &connections {
            let _ = stream.shutdown(Shutdown::Both);
        }
        let deadline = Instant::now() + Duration::from_millis(MAX_PROXY_STOP_MILLIS);
        let mut pending: Vec<JoinHandle<()>> = connections.into_iter().map(|(h, _)| h).collect();
        while !pending.is_empty() && Instant::now() < deadline {
            let (done, rest): (Vec<_>, Vec<_>) = pending.into_iter().partition(|h| h.is_finished());
            for h in done {
                let _ = h.join();
            }
            pending = rest;
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Accepts until the proxy stops; a connection past `MAX_PROXY_CONNECTIONS`
/// (or one no thread could be started for) is answered 503.
fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping() {
            return;
        }
        let Ok(stream) = stream else { continue };
        let mut connections = lock(&shared.connections);
        connections.retain(|(h, _)| !h.is_finished());
        if connections.len() >= MAX_PROXY_CONNECTIONS {
            drop(connections);
            let why = format!(
                "the recording proxy serves at most {MAX_PROXY_CONNECTIONS} connections at once"
            );
            http::refuse(stream, 503, &why);
            continue;
        }
        let Ok(kept) = stream.try_clone() else {
            continue;
        };
        let port = stream.local_addr().map(|a| a.port()).unwrap_or(0);
        let conn_shared = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name(format!("evp{port}c"))
            .spawn(move || connection::serve(stream, &conn_shared));
        match spawned {
            Ok(handle) => connections.push((handle, kept)),
            Err(e) => http::refuse(
                kept,
                503,
                &format!("the recording proxy cannot start a thread: {e}"),
            ),
        }
    }
}
