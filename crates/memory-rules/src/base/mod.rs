//! The base layer: limits, the file system, diagnostics and small text
//! helpers. Every other layer may use it; it uses none.
//!
//! Public: [`fnv`], [`fs`], [`limits`], [`sh`] (the one shell quoting) and [`suggest`], which the CLI shares; the
//! rest is re-exported at the crate root (`Diagnostic`, `slug`, `Workdir`).

pub mod fnv;
pub mod fs;
pub mod limits;
pub mod sh;
pub mod suggest;

pub(crate) mod diagnostic;
pub(crate) mod line_index;
pub(crate) mod slug;
pub(crate) mod workdir;
