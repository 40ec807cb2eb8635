//! Test support for the marketplace client: the wire fixtures of `fixtures/` and the checks that
//! every fixture decodes completely and round-trips, a raw-TCP scripted stub, and a tap that
//! records whatever reaches it (an origin, a proxy, the network). The `route_probe` binary
//! calls given origins in whatever environment a test runs it in.
//!
//! The fake marketplace is its own crate, `marketplace-fake` (`tests/fake/`), published for apps
//! to test against; it is re-exported here as [`fake`] for the suites.

pub use marketplace_fake as fake;

pub mod fixtures;
pub mod stub;
pub mod tap;
pub mod workroom_reading;
