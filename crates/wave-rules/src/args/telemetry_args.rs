//! `wave-rules telemetry`: the telemetry's state, and shipping its spool.

use clap::{Args, Subcommand};

#[derive(Args, Debug)]
pub struct TelemetryArgs {
    #[command(subcommand)]
    pub action: TelemetryAction,
}

#[derive(Subcommand, Debug)]
pub enum TelemetryAction {
    /// On or off and from where, the endpoint, the spool's state and every problem (as doctor says)
    Status,
    /// Ship the spool to the OTLP endpoint now (hooks start this by themselves at a session's start and stop)
    Ship(ShipArgs),
}

/// `telemetry ship`.
#[derive(Args, Debug)]
pub struct ShipArgs {
    /// Ship for at most this many seconds
    #[arg(long, value_name = "N", default_value_t = crate::telemetry::shipper::SHIP_SECONDS)]
    pub seconds: u64,
}
