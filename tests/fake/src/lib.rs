//! A faithful, stateful fake of the freelance-marketplace developer API, served over HTTPS on
//! 127.0.0.1 (like stripe-mock, but keeping state and verifying OAuth signatures), for testing
//! apps built on [`marketplace_client`].
//!
//! # Testing an app
//!
//! Start the fake, get a [`Session`](marketplace_client::Session) for a seeded user without the
//! OAuth dance, and read the seeded workrooms, users and IDs from [`FakeMarketplace::world`]:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use marketplace_fake::FakeMarketplace;
//!
//! let fake = FakeMarketplace::start().await?;
//! let workroom = fake.world().hourly_workroom(); // bid 310001: 23 weekly timesheets
//! let session = fake.session(workroom.client)?; // Dana Whitfield, the client
//!
//! let sheet = session.get_timesheet_by_bid_id(workroom.bid_id).send().await?;
//! assert_eq!(sheet.timesheet.id, *workroom.timesheets.last().unwrap());
//! # Ok(())
//! # }
//! ```
//!
//! The flow itself stays available: [`FakeMarketplace::client_builder`] is the demo
//! application's [`ClientBuilder`](marketplace_client::ClientBuilder) (add hooks, limits),
//! [`FakeMarketplace::sign_in`] runs the whole flow for a client, and
//! [`FakeMarketplace::authorize`] plays the user's browser at the authorization page. A test moves time with [`FakeClock`], injects
//! misbehaviour with [`Faults`], and picks the shape of error bodies with
//! [`FakeMarketplace::set_error_shape`]:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use marketplace_client::jiff::SignedDuration;
//! use marketplace_fake::{ErrorShape, Fault, FakeMarketplace};
//!
//! let fake = FakeMarketplace::start().await?;
//! fake.faults().inject(Some("/api/pay/getTimesheet"), Fault::Status { status: 503, retry_after: Some(1) }, 2);
//! fake.set_error_shape(ErrorShape::ErrorsArray); // `{"errors": [...]}`
//! fake.clock().advance(SignedDuration::from_hours(6)); // every access token expires
//! # Ok(())
//! # }
//! ```
//!
//! # Real traffic: replay and varied spellings
//!
//! [`FakeMarketplace::replay`] answers data calls from recordings (the files a client's
//! `ClientBuilder::record` or a fake writes, see [`marketplace_client::recording`]): a test
//! signs in through the fake's own OAuth flow and reads what the service really sent. A request
//! no recording matches fails with the nearest recorded request and what differs;
//! [`FakeMarketplace::check_replay`] says whether every request matched and, for a
//! [strict](Replay::strict) replay, every recording was used, and how many requests the
//! recordings answered (none is an error: nothing replayed is not a pass; see [`replay`]). A
//! call the recording server refused by its own OAuth is never replayed: the fake's OAuth
//! decides it, and the count names the refusals left out:
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use marketplace_client::TryStreamExt;
//! use marketplace_fake::{FakeMarketplace, Replay};
//!
//! let fake = FakeMarketplace::start().await?;
//! fake.replay(Replay::from_files(["tests/recordings/workroom.jsonl"])?);
//! let session = fake.sign_in(&fake.client()?, "dwhitfield").await?;
//! let sheets: Vec<_> = session.get_timesheets_for_bid(310001).rpp(10).items().try_collect().await?;
//! fake.check_replay()?;
//! # Ok(())
//! # }
//! ```
//!
//! [`FakeMarketplace::set_spellings`] (or `MARKETPLACE_FAKE_SPELLING_SEED` for a whole test run)
//! makes every value of a data answer take one of the spellings the spec declares for that
//! field in that method, chosen by a seed ([`Spellings`], [`spelling`]): a `string_or_number`
//! value as a string or a number, an index-keyed collection in any key order. A varied fake
//! prints its seed when it starts, so a failing test's output says how to repeat it.
//!
//! # What it serves
//!
//! The three-legged OAuth flow (`/oauth/getRequestToken`, the login page at
//! `/oauth/authorizeToken`, `/oauth/getAccessToken`, `/oauth/revokeToken`) and the nine data
//! methods under `/api/<group>/<method>`, answered from the seeded [`World`] by
//! [`data::respond`] in the exact wire shapes of the reference. Every signed request is verified
//! with the fake's own RFC 5849 code ([`verify`]), independent of the client's.
//!
//! # Recording
//!
//! [`FakeMarketplace::record`] writes every answer the fake sends as a JSON line of
//! [`marketplace_client::recording`] (or set `MARKETPLACE_FAKE_RECORD_DIR` to record every fake
//! a process starts), for `cargo xtask wire-audit`, which checks the answers against the spec.
//! CI records the whole end-to-end suite that way and requires the audit to find nothing.
//!
//! # TLS
//!
//! The server is rustls with a certificate generated at start; [`FakeMarketplace::http_client`]
//! trusts that certificate only. Features: `rustls-ring` (default) or `rustls-aws-lc` choose
//! the crypto provider; `native-tls` makes the handed-out HTTP client use the platform's TLS.
//!
//! Decisions where the reference is silent: errors are answered in the shape
//! [`FakeMarketplace::set_error_shape`] sets ([`ErrorShape::Nested`] by default: `{"api",
//! "apiVersion": 1, "rcode": 0, "error": {"code", "type", "message"}}`); every OAuth failure
//! answers 401 with `E_API_AUTH_SIGNATURE_MISMATCH` (type `authentication`), or whatever
//! status the shape set answers every error with ([`ErrorShape::RcodeWithData`]: 200, the
//! envelope alone saying it failed); timestamps may be 300 s off the
//! fake's clock; a nonce may be used once per consumer and token; an access token lives six
//! hours by the [`FakeClock`]; an `oauth_callback` that is neither an absolute URI nor `oob`
//! answers 400 `E_VALIDATION_INVALID_CALLBACK`; unknown paths answer 404 JSON errors.

// The fake prints nothing but the seed of varied spellings (`Spellings`' own text, shown with a
// failing test's output through the harness's capture); its binary prints through its own
// writers.
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]
// Each connection's task is moved whole when spawned: a future over clippy.toml's threshold is
// boxed where it is awaited.
#![warn(clippy::large_futures)]

pub mod data;
mod render;
pub mod replay;
pub mod spelling;
pub mod world;

mod app;
mod browser;
mod clock;
mod credentials;
mod error;
mod error_shape;
mod faults;
mod html;
mod kit;
mod oauth;
mod refusal;
mod server;
mod tls;
mod tokens;
pub mod verify;

pub use browser::BROWSER_TIMEOUT;
pub use clock::FakeClock;
pub use credentials::DemoCredentials;
pub use error::FakeError;
pub use error_shape::{ErrorShape, ServiceError};
pub use faults::{Fault, Faults};
pub use replay::{Latency, Replay, ReplayCount, ReplayError};
pub use server::{Authorization, FakeMarketplace, RECORD_DIR_VARIABLE};
pub use spelling::{SPELLING_SEED_VARIABLE, Spellings};
pub use world::{User, Workroom, World};
