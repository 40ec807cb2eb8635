//! Test support for the marketplace client: the wire fixtures of `fixtures/` and the checks that
//! every fixture decodes completely and round-trips, a raw-TCP scripted stub, and a tap that
//! records whatever reaches it (an origin, a proxy, the network). The `route_probe` binary
//! calls given origins in whatever environment a test runs it in.
//!
//! The fake marketplace is its own crate, `marketplace-fake` (`tests/fake/`), published for apps
//! to test against; it is re-exported here as [`fake`] for the suites.

pub use marketplace_fake as fake;

pub mod fixtures;
pub mod runtime;
pub mod stub;
pub mod tap;
pub mod workroom_reading;

pub use runtime::{current_thread_runtime, runtime, runtime_with_workers};

/// The Rust examples of the README and of the manual in `docs/`, compiled (and, unless marked
/// `no_run`, run) as doctests of this crate, which has the client, the fake and tokio: an
/// example that no longer compiles fails `cargo test`. The links of the same pages are checked
/// by `tests/tests/doc_links.rs`.
#[cfg(doctest)]
pub mod manual {
    #[doc = include_str!("../../README.md")]
    pub struct Readme;
    #[doc = include_str!("../../docs/using-the-client.md")]
    pub struct UsingTheClient;
    #[doc = include_str!("../../docs/testing-with-the-fake.md")]
    pub struct TestingWithTheFake;
    #[doc = include_str!("../../docs/changing-the-spec.md")]
    pub struct ChangingTheSpec;
    #[doc = include_str!("../../docs/reviewing-spec-changes.md")]
    pub struct ReviewingSpecChanges;
    #[doc = include_str!("../../docs/auditing.md")]
    pub struct Auditing;
    #[doc = include_str!("../../docs/openapi.md")]
    pub struct OpenApi;
    #[doc = include_str!("../../docs/publishing.md")]
    pub struct Publishing;
    #[doc = include_str!("../../docs/bad-input.md")]
    pub struct BadInput;
    #[doc = include_str!("../../docs/commands.md")]
    pub struct Commands;
}
