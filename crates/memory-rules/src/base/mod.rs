//! The base layer: limits, the file system, diagnostics and small text
//! helpers. Every other layer may use it; it uses none.
//!
//! Public: [`fs`], [`limits`] and [`suggest`], which the CLI shares; the
//! rest is re-exported at the crate root (`Diagnostic`, `slug`, `Workdir`).

pub mod fs;
pub mod limits;
pub mod suggest;

#[cfg(feature = "internals")]
pub mod diagnostic;
#[cfg(not(feature = "internals"))]
pub(crate) mod diagnostic;
#[cfg(feature = "internals")]
pub mod line_index;
#[cfg(not(feature = "internals"))]
pub(crate) mod line_index;
#[cfg(feature = "internals")]
pub mod slug;
#[cfg(not(feature = "internals"))]
pub(crate) mod slug;
#[cfg(feature = "internals")]
pub mod workdir;
#[cfg(not(feature = "internals"))]
pub(crate) mod workdir;
