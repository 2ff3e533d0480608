//! The CLI's base, under every other layer: the command line's options
//! ([`args`]), the resolved environment and what a command gives back
//! ([`env`]), whether the process exits after one command ([`exit`]), output ([`display`], [`color`]), the agents' settings files
//! ([`settings_file`]), how settings start `wave-rules` ([`launch`]) and the
//! file-change mask ([`inotify_changes`]).

pub mod args;
pub mod color;
pub mod display;
pub mod env;
pub mod exit;
#[cfg(target_os = "linux")]
pub mod inotify_changes;
pub mod launch;
pub mod settings_file;
