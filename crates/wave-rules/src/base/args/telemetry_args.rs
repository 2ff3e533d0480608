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
    /// A hook that only records (Claude Code's `InstructionsLoaded`: the instruction files it loaded by itself); the event's JSON on stdin, nothing on stdout, exit 0
    Hook(TelemetryHookArgs),
}

/// `telemetry hook <event>`.
#[derive(Args, Debug)]
pub struct TelemetryHookArgs {
    /// The agent's event name (Claude Code's `InstructionsLoaded`)
    pub event: String,
}

impl TelemetryAction {
    /// Whether it reads the agent's event on stdin.
    pub fn reads_stdin(&self) -> bool {
        matches!(self, TelemetryAction::Hook(_))
    }
}

/// `telemetry ship`.
#[derive(Args, Debug)]
pub struct ShipArgs {
    /// Ship for at most this many seconds
    #[arg(long, value_name = "N", default_value_t = memory_rules::base::limits::TELEMETRY_SHIP_SECS)]
    pub seconds: u64,
    /// Once the spool is shipped, wait up to this many seconds for more
    /// records (the shipper a hook starts: TELEMETRY_LINGER_SECS)
    #[arg(long, value_name = "N", default_value_t = 0, hide = true)]
    pub linger: u64,
}
