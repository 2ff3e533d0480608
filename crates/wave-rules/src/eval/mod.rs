//! `wave-rules eval`: rules measured with and without, in the agents people
//! run (issue 36).

pub mod proxy;
