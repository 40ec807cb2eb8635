//! The service a [`Client`](crate::Client) talks to, as the spec describes it. The generated
//! `Client::builder` hands the spec's one [`Service`] value (`marketplace_client::SERVICE`) to
//! the client, so the runtime holds no constant of the spec and never names generated code.

use std::time::Duration;

/// Where the service's methods are and the rules of its OAuth 1.0a endpoints, from the spec's
/// `api` and `oauth` sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Service {
    /// The service's name.
    pub name: &'static str,
    /// Path prefix of the data methods: `{base_url}{data_path}/<group>/<method>`.
    pub data_path: &'static str,
    /// The `apiVersion` every response envelope carries.
    pub api_version: i64,
    /// The error codes of kind `authentication` (a refused signature or timestamp, e.g.
    /// `E_API_AUTH_SIGNATURE_MISMATCH`): with one of them and a `Date` header far from the
    /// local clock, the client corrects its clock and signs again.
    pub authentication_errors: &'static [&'static str],
    /// The OAuth endpoints and their rules.
    pub oauth: OAuthService,
}

/// The OAuth 1.0a endpoints (paths below the base URL) and their rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthService {
    /// Where a request token is obtained (`POST`).
    pub request_token_path: &'static str,
    /// Where the user's browser approves it (`GET`).
    pub authorize_path: &'static str,
    /// Where it is exchanged for an access token (`POST`).
    pub access_token_path: &'static str,
    /// Where an access token is ended (`POST`).
    pub revoke_path: &'static str,
    /// The only accepted `oauth_signature_method` (the client signs with HMAC-SHA1).
    pub signature_method: &'static str,
    /// The `oauth_version` sent.
    pub version: &'static str,
    /// Whether the OAuth endpoints must be called over HTTPS.
    pub https_required: bool,
    /// The longest an access token lives after it is granted; the client refuses to use an
    /// older one without a request.
    pub token_lifetime: Duration,
}
