//! A fake model on 127.0.0.1 for `eval`'s runs: OpenAI chat completions,
//! each answer chosen by the test from the request's text and a seeded
//! generator, 10 input and 5 output tokens an answer; it records every
//! request's body. Stopped (and its thread joined) when dropped.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A small seeded generator (SplitMix64), the same on every machine.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

type Answer = dyn Fn(&str, &mut SplitMix) -> String + Send + Sync;

pub struct FakeModel {
    pub url: String,
    pub bodies: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeModel {
    /// Serves `answer(request text, rng)` as the assistant's reply.
    pub fn start(
        seed: u64,
        answer: impl Fn(&str, &mut SplitMix) -> String + Send + Sync + 'static,
    ) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let answer: Arc<Answer> = Arc::new(answer);
        let rng = Arc::new(Mutex::new(SplitMix(seed)));
        let (b, s) = (Arc::clone(&bodies), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming().take(10_000) {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let _ = serve(stream, &b, &*answer, &rng);
            }
        });
        FakeModel {
            url,
            bodies,
            stop,
            thread: Some(thread),
        }
    }

    /// The request bodies the model received.
    pub fn requests(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let addr = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/v1");
        let _ = TcpStream::connect(addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One request on one connection, answered and closed.
fn serve(
    stream: TcpStream,
    bodies: &Mutex<Vec<String>>,
    answer: &Answer,
    rng: &Mutex<SplitMix>,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut head = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length.min(16 << 20)];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();
    let reply = if head.starts_with("POST") && head.contains("/chat/completions") {
        let text = answer(&body, &mut rng.lock().unwrap());
        bodies.lock().unwrap().push(body);
        serde_json::json!({
            "id": "chatcmpl-fake", "object": "chat.completion", "model": "fake-model",
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15 }
        })
    } else {
        serde_json::json!({ "object": "list", "data": [] })
    }
    .to_string();
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
        reply.len()
    )?;
    stream.flush()
}
