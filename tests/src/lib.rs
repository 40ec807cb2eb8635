//! Test support for the marketplace client: the wire fixtures of `fixtures/` and the checks that
//! every fixture decodes completely and round-trips.
//!
//! The fake marketplace server and the end-to-end suite build on this crate.

pub mod fake;
pub mod fixtures;
pub mod stub;
