//! Shipping the spool: batches of lines posted to the OTLP/HTTP logs
//! endpoint through a [`Transport`] (the CLI's blocking HTTP client; the
//! WebAssembly build has none and only spools).
//!
//! One shipper at a time (`ship.lock`, never waited for). A batch is marked
//! shipped only on a 2xx; a 429 or 503 waits its `Retry-After` (or the
//! backoff) and tries again while the deadline allows; any other answer or a
//! failure to connect ends the run with the records still in the spool, and
//! the next run waits the backoff (doubling, up to [`MAX_BACKOFF_SECS`]).

use super::encode;
use super::settings::Settings;
use super::spool::{Progress, Spool, SHIP_LOCK_FILE};
use crate::base::limits::{MAX_BACKOFF_SECS, MAX_EXPORT_BYTES, MAX_SHIP_BATCHES};
use std::fs::OpenOptions;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A receiver's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Its `Retry-After`, in seconds.
    pub retry_after: Option<Duration>,
}

/// One export request: where, in which form, with which headers, and the
/// longest it may take.
pub struct Post<'a> {
    pub url: &'a str,
    pub content_type: &'a str,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
    pub timeout: Duration,
}

/// Posts one export request; an error is a failure to connect, send or
/// read (a timeout included), in words.
pub trait Transport {
    fn post(&self, post: &Post) -> Result<Response, String>;
}

/// How a shipping run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing left to ship.
    Done,
    /// Another shipper is running.
    Busy,
    /// Waiting for a `Retry-After` or a backoff past the deadline.
    Later,
    /// The receiver refused or could not be reached: why.
    Failed(String),
    /// The settings name no usable endpoint or protocol.
    Unshippable,
}

/// A run's counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shipped {
    pub records: u64,
    pub requests: u32,
    pub outcome: Outcome,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Ships the spool until it is empty, the receiver fails, or `deadline`.
/// `sleep` waits (the thread's sleep; a test's clock).
pub fn ship(
    spool: &Spool,
    settings: &Settings,
    transport: &dyn Transport,
    deadline: Instant,
    sleep: &dyn Fn(Duration),
) -> std::io::Result<Shipped> {
    let mut shipped = Shipped {
        records: 0,
        requests: 0,
        outcome: Outcome::Done,
    };
    if settings.unshippable {
        shipped.outcome = Outcome::Unshippable;
        return Ok(shipped);
    }
    std::fs::create_dir_all(spool.dir())?;
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(spool.dir().join(SHIP_LOCK_FILE))?;
    if let Err(std::fs::TryLockError::WouldBlock) = lock.try_lock() {
        shipped.outcome = Outcome::Busy;
        return Ok(shipped);
    }
    for _ in 0..MAX_SHIP_BATCHES {
        let progress = spool.progress();
        let wait = Duration::from_millis(progress.retry_at_ms.saturating_sub(now_ms()));
        if !wait.is_zero() {
            if Instant::now() + wait >= deadline {
                shipped.outcome = Outcome::Later;
                return Ok(shipped);
            }
            sleep(wait);
        }
        let pending = spool.pending(&progress, MAX_EXPORT_BYTES)?;
        if pending.0.is_empty() {
            return Ok(shipped);
        }
        if Instant::now() >= deadline {
            shipped.outcome = Outcome::Later;
            return Ok(shipped);
        }
        match send(
            spool,
            settings,
            transport,
            &progress,
            pending,
            deadline,
            &mut shipped,
        )? {
            Some(outcome) => {
                shipped.outcome = outcome;
                return Ok(shipped);
            }
            None => continue,
        }
    }
    shipped.outcome = Outcome::Later;
    Ok(shipped)
}

/// One batch posted and its answer recorded: `None` to go on, else how the
/// run ends.
fn send(
    spool: &Spool,
    settings: &Settings,
    transport: &dyn Transport,
    progress: &Progress,
    (lines, end): (Vec<String>, u64),
    deadline: Instant,
    shipped: &mut Shipped,
) -> std::io::Result<Option<Outcome>> {
    let mut batch = Vec::new();
    let mut corrupt = 0;
    for line in &lines {
        match encode::parse_line(line) {
            Some(data) => batch.push(data),
            None => corrupt += 1,
        }
    }
    let records: u64 = batch.iter().map(|d| encode::record_count(d) as u64).sum();
    if batch.is_empty() {
        spool.mark_shipped(progress.generation, end, |p| p.corrupt += corrupt)?;
        return Ok(None);
    }
    let body = encode::request_body(batch, settings.protocol);
    shipped.requests += 1;
    let answer = transport.post(&Post {
        url: &settings.endpoint,
        content_type: settings.protocol.content_type(),
        headers: &settings.headers,
        body: &body,
        timeout: deadline.saturating_duration_since(Instant::now()),
    });
    let failure = match answer {
        Ok(r) if (200..300).contains(&r.status) => {
            spool.mark_shipped(progress.generation, end, |p| {
                p.corrupt += corrupt;
                p.shipped += records;
                p.failures = 0;
                p.retry_at_ms = 0;
                p.last_error = None;
                p.last_shipped_ms = now_ms();
            })?;
            shipped.records += records;
            return Ok(None);
        }
        Ok(r) => (
            format!("the receiver answered {}", r.status),
            r.retry_after.filter(|_| r.status == 429 || r.status == 503),
            r.status == 429 || r.status == 503,
        ),
        Err(e) => (e, None, false),
    };
    let (why, retry_after, retryable) = failure;
    let mut update = spool.progress();
    update.failures = update.failures.saturating_add(1);
    let backoff = Duration::from_secs((1u64 << update.failures.min(16)).min(MAX_BACKOFF_SECS));
    let wait = retry_after.map_or(backoff, |r| r.min(Duration::from_secs(MAX_BACKOFF_SECS)));
    update.retry_at_ms = now_ms() + wait.as_millis() as u64;
    update.last_error = Some(why.clone());
    spool.save_progress(&update)?;
    Ok(if retryable {
        None
    } else {
        Some(Outcome::Failed(why))
    })
}
