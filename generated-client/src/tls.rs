//! The TLS of the HTTP client the crate builds, chosen by cargo features: `rustls-ring` (the
//! default), `rustls-aws-lc` or `native-tls`. Features add up across a dependency graph, so when
//! several are on, the one an app asked for beyond the default wins: `native-tls`, then
//! `rustls-aws-lc`, then `rustls-ring`.
//!
//! rustls gets its crypto provider here, in the configuration handed to reqwest, never through
//! rustls's process-wide default, which a library must leave to the application. Server
//! certificates are checked by the platform's verifier, as reqwest does by default.
//!
//! Every HTTP client the crate builds comes from [`http_client_builder`], the one place that
//! decides where a request may go: to the URL it names and nowhere else (no redirect, no proxy
//! the environment names, no `Referer`).

use crate::Error;

/// A `reqwest` client builder set up as the client's own: the TLS of this build, redirects never
/// followed, no `Referer`, and no proxy taken from the environment (`HTTP_PROXY`,
/// `HTTPS_PROXY`, `ALL_PROXY`, in either case): a signed request over plain HTTP never goes
/// through an intermediary the app did not name. Customize it (pool settings, …) and hand the
/// result to [`ClientBuilder::http_client`](crate::ClientBuilder::http_client).
///
/// A proxy the app adds itself is its own choice: for HTTPS it is a tunnel and sees the host
/// and port only (`.proxy(reqwest::Proxy::https(url)?)`); for plain HTTP it would see every
/// signed request whole, and the client refuses the answer when it can tell
/// ([`Error::Intermediary`]; see `SECURITY.md`).
///
/// Prefer it to `reqwest::Client::builder()`: with the rustls features, reqwest is built with
/// `rustls-no-provider`, so a reqwest client built without a TLS configuration looks for a
/// process-wide rustls crypto provider and panics when there is none (unless something else in
/// the app turns on reqwest's own `rustls` feature). This one has its provider.
///
/// ```
/// use std::time::Duration;
/// use marketplace_client::{Client, ConsumerCredentials, http_client_builder};
///
/// let http = http_client_builder()?.pool_idle_timeout(Duration::from_secs(30)).build()?;
/// let client = Client::builder("https://marketplace.example", ConsumerCredentials::new("key", "secret"))
///     .http_client(http)
///     .build()?;
/// # let _ = client;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Config`] if the TLS configuration cannot be made (the platform's certificate
/// verifier cannot start).
pub fn http_client_builder() -> Result<reqwest::ClientBuilder, Error> {
    let builder =
        configure(reqwest::Client::builder()).map_err(|reason| Error::Config { reason })?;
    // Never a redirect (the OAuth header would go along), never a Referer, and never a proxy
    // the environment names (it would see a plain-HTTP request whole).
    Ok(builder
        .redirect(reqwest::redirect::Policy::none())
        .referer(false)
        .no_proxy())
}

/// Whether this build can make HTTPS connections on its own (without `ClientBuilder::http_client`).
pub(crate) const AVAILABLE: bool = cfg!(any(
    feature = "native-tls",
    feature = "rustls-aws-lc",
    feature = "rustls-ring"
));

/// `builder` with the TLS of this build.
#[cfg(feature = "native-tls")]
fn configure(builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, String> {
    Ok(builder.tls_backend_native())
}

/// `builder` with the TLS of this build.
#[cfg(all(
    not(feature = "native-tls"),
    any(feature = "rustls-aws-lc", feature = "rustls-ring")
))]
fn configure(builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, String> {
    use rustls_platform_verifier::BuilderVerifierExt;

    #[cfg(feature = "rustls-aws-lc")]
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    #[cfg(not(feature = "rustls-aws-lc"))]
    let provider = rustls::crypto::ring::default_provider();
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(provider))
        .with_safe_default_protocol_versions()
        .and_then(BuilderVerifierExt::with_platform_verifier)
        .map_err(|error| format!("TLS configuration: {error}"))?
        .with_no_client_auth();
    Ok(builder.tls_backend_preconfigured(config))
}

/// `builder` as it is: this build has no TLS, so only plain HTTP works.
#[cfg(not(any(
    feature = "native-tls",
    feature = "rustls-aws-lc",
    feature = "rustls-ring"
)))]
fn configure(builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, String> {
    Ok(builder)
}
