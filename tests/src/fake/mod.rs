//! A faithful, stateful fake of the marketplace API, served over HTTPS on 127.0.0.1 (like
//! stripe-mock, but keeping state and verifying OAuth signatures).
//!
//! [`FakeMarketplace`] runs the service: the three-legged OAuth flow (`/oauth/getRequestToken`,
//! the login page at `/oauth/authorizeToken`, `/oauth/getAccessToken`, `/oauth/revokeToken`)
//! and the nine data methods under `/api/<group>/<method>`, answered from the seeded
//! [`world::World`] by [`data::respond`]. Every signed request is verified with the fake's own
//! RFC 5849 code (`verify`), independent of the client's. A test moves time with
//! [`FakeClock`] and injects misbehaviour with [`Faults`].
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use marketplace_tests::fake::{Fault, FakeMarketplace};
//!
//! let fake = FakeMarketplace::start().await?;
//! let http = fake.http_client(); // trusts the fake's certificate
//! fake.faults().inject(Some("/api/pay/getTimesheet"), Fault::Status { status: 503, retry_after: Some(1) }, 2);
//! fake.set_error_shape(marketplace_tests::fake::ErrorShape::ErrorsArray); // `{"errors": [...]}`
//! fake.clock().advance(jiff::SignedDuration::from_hours(6)); // every access token expires
//! # let _ = http;
//! # Ok(())
//! # }
//! ```
//!
//! Decisions where the reference is silent: errors are answered in the shape
//! [`FakeMarketplace::set_error_shape`] sets ([`ErrorShape::Nested`] by default: `{"api",
//! "apiVersion": 1, "rcode": 0, "error": {"code", "type", "message"}}`); every OAuth failure
//! answers 401 with `E_API_AUTH_SIGNATURE_MISMATCH` (type `authentication`); timestamps may be 300 s off the
//! fake's clock; a nonce may be used once per consumer and token; an access token lives six
//! hours by the [`FakeClock`]; an `oauth_callback` that is neither an absolute URI nor `oob`
//! answers 400 `E_VALIDATION_INVALID_CALLBACK`; unknown paths answer 404 JSON errors.

pub mod data;
mod render;
pub mod world;

mod browser;
mod clock;
mod error_shape;
mod faults;
mod oauth;
mod server;
mod tls;
pub mod verify;

pub use clock::FakeClock;
pub use error_shape::{ErrorShape, GENERIC_CODE, ServiceError};
pub use faults::{Fault, Faults};
pub use server::{Authorization, DemoCredentials, FakeMarketplace};
