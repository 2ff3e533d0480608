//! Export and import: every rule written in each agent's own files (plan,
//! diff against the disk, apply), and a rule written as a `.wave/rules`
//! file. The façade of `formats::export` and the Wave writer.

pub use crate::formats::export::*;
pub use crate::formats::wave::write_wave;
