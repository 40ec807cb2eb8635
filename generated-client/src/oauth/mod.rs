//! OAuth 1.0a (RFC 5849, HMAC-SHA1): request signing and the three-legged flow's credentials.
//! The endpoints and their rules come from the spec, in
//! [`Service::oauth`](crate::Service::oauth).
//!
//! The flow itself is on [`Client`](crate::Client): [`request_token`](crate::Client::request_token),
//! [`authorization_url`](crate::Client::authorization_url),
//! [`verifier_from_callback`](crate::Client::verifier_from_callback),
//! [`access_token`](crate::Client::access_token); revocation is
//! [`Session::revoke`](crate::Session::revoke).

mod base_string;
mod percent;
// Signing plumbing, public for the test suites' signature oracles and benchmarks; not part of
// the API (nor of its semver).
#[doc(hidden)]
pub mod signature;
mod token;

pub use token::{AccessToken, RequestToken, Verifier};
pub(crate) use token::{MAX_TOKEN_BYTES, foreign_character};
