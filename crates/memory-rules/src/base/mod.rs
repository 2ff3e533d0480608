//! The base layer: limits, the file system, diagnostics and small text
//! helpers. Every other layer may use it; it uses none.

pub mod diagnostic;
pub mod fs;
pub mod limits;
pub mod line_index;
pub mod slug;
pub mod suggest;
pub mod workdir;
