//! Telemetry: what the rules do, as OTLP log records in the organisation's
//! own OpenTelemetry pipeline (docs/telemetry.md).
//!
//! A road records events through a [`Telemetry`] (off unless the settings
//! switch it on: [`settings`]); the records go to the spool ([`spool`],
//! microseconds, never in the way), and a shipper posts them to the OTLP/HTTP
//! logs endpoint ([`ship`], through the road's HTTP client). The records are
//! built from the official protocol definitions ([`encode`]); what each
//! event carries is in [`events`].

pub mod encode;
pub mod events;
pub mod record;
pub mod settings;
pub mod ship;
pub mod spool;

pub use crate::rules::rule_set::RuleCensus;
pub use encode::Origin;
pub use record::{names, Record, Value};
pub use settings::{Place, Places, Protocol, Settings};
pub use ship::{ship, Outcome, Post, Response, Shipped, Transport};
pub use spool::{Progress, Spool, State};

use crate::base::limits::MAX_TELEMETRY_BATCH_RECORDS;
use std::sync::{Mutex, OnceLock};

/// A road's telemetry: the settings resolved on the first record (a road
/// that records nothing reads no config), the spool, who sends.
#[derive(Debug)]
pub struct Telemetry {
    places: Places,
    spool: Spool,
    settings: OnceLock<Settings>,
    origin: OnceLock<Origin>,
    /// The first error of a record, kept for the road to say once.
    problem: Mutex<Option<String>>,
    /// A long-lived road's records, held in the process until
    /// [`Telemetry::flush`] ([`Telemetry::batched`]).
    batch: Option<Mutex<Vec<Record<'static>>>>,
}

impl Telemetry {
    /// Telemetry for these places, spooled in `<state dir>/telemetry`.
    pub fn new(places: Places, state_dir: &std::path::Path) -> Telemetry {
        Telemetry {
            places,
            spool: Spool::in_state_dir(state_dir),
            settings: OnceLock::new(),
            origin: OnceLock::new(),
            problem: Mutex::new(None),
            batch: None,
        }
    }

    /// Records held in the process and spooled together by
    /// [`Telemetry::flush`] (or once [`MAX_TELEMETRY_BATCH_RECORDS`] wait),
    /// for a long-lived road (the MCP server) that flushes now and then.
    pub fn batched(mut self) -> Telemetry {
        self.batch = Some(Mutex::new(Vec::new()));
        self
    }

    /// With settings already resolved (tests, a road that resolved them).
    pub fn with_settings(mut self, settings: Settings) -> Telemetry {
        self.settings = OnceLock::from(settings);
        self
    }

    /// The settings (resolved from the process's environment on first use).
    pub fn settings(&self) -> &Settings {
        self.settings
            .get_or_init(|| Settings::resolve(&self.places, &|k| std::env::var(k).ok()))
    }

    /// The settings if something already read them (no file is read).
    pub fn resolved(&self) -> Option<&Settings> {
        self.settings.get()
    }

    pub fn spool(&self) -> &Spool {
        &self.spool
    }

    /// Whether records are kept.
    pub fn enabled(&self) -> bool {
        self.settings().enabled
    }

    /// Spools `records` when telemetry is on. An error is for the road to
    /// say once; nothing here fails its caller.
    pub fn record(&self, records: &[Record]) -> Result<(), String> {
        if records.is_empty() || !self.enabled() {
            return Ok(());
        }
        let origin = self.origin.get_or_init(|| Origin::of(self.settings()));
        self.spool
            .append(origin, records)
            .map_err(|e| format!("telemetry: {}: {e}", self.spool.dir().display()))
    }
}

impl Telemetry {
    /// [`Telemetry::record`], its error kept for [`Telemetry::take_problem`]
    /// (the core's roads record where they cannot report); held in the
    /// process when [`Telemetry::batched`].
    pub fn record_or_keep(&self, records: &[Record]) {
        let Some(batch) = &self.batch else {
            return self.keep(self.record(records));
        };
        if records.is_empty() || !self.enabled() {
            return;
        }
        let full = batch.lock().is_ok_and(|mut b| {
            b.extend(records.iter().map(|r| r.clone().into_owned()));
            b.len() >= MAX_TELEMETRY_BATCH_RECORDS
        });
        if full {
            self.flush();
        }
    }

    /// Spools the records a [`Telemetry::batched`] road holds; true when
    /// there were some.
    pub fn flush(&self) -> bool {
        let Some(records) = self
            .batch
            .as_ref()
            .and_then(|b| b.lock().ok().map(|mut b| std::mem::take(&mut *b)))
            .filter(|r| !r.is_empty())
        else {
            return false;
        };
        self.keep(self.record(&records));
        true
    }

    fn keep(&self, result: Result<(), String>) {
        if let Err(e) = result {
            if let Ok(mut p) = self.problem.lock() {
                p.get_or_insert(e);
            }
        }
    }

    /// The first error kept by [`Telemetry::record_or_keep`], once.
    pub fn take_problem(&self) -> Option<String> {
        self.problem.lock().ok().and_then(|mut p| p.take())
    }
}
