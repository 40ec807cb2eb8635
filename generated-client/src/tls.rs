//! The TLS of the HTTP client the crate builds, chosen by cargo features: `rustls-ring` (the
//! default), `rustls-aws-lc` or `native-tls`. Features add up across a dependency graph, so when
//! several are on, the one an app asked for beyond the default wins: `native-tls`, then
//! `rustls-aws-lc`, then `rustls-ring`.
//!
//! rustls gets its crypto provider here, in the configuration handed to reqwest, never through
//! rustls's process-wide default, which a library must leave to the application. Server
//! certificates are checked against the system's roots: by the platform's verifier on macOS,
//! iOS, Windows and Android; on Linux and the BSDs against the certificates of the system's own
//! store ([`system_roots`]), read from its paths and never from `SSL_CERT_FILE` or
//! `SSL_CERT_DIR`. Those variables would let any parent process make the client trust a CA of
//! its choosing, and so hand the signed requests to whoever holds it (SECURITY.md, Routes); the
//! platform verifier and OpenSSL both read them there, so neither is asked for its roots.
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
/// Its TLS configuration is set whole, roots included: reqwest's `add_root_certificate` and
/// `tls_certs_*` calls on it do not change what it trusts. An app that must trust other roots
/// (a test server's certificate, a company's TLS inspection) names them with
/// [`http_client_builder_trusting`]: a trust the app chooses, not one the environment chooses
/// for it.
///
/// # Errors
///
/// [`Error::Config`] if the TLS configuration cannot be made (the platform's certificate
/// verifier cannot start, or the system's store holds no root certificate).
pub fn http_client_builder() -> Result<reqwest::ClientBuilder, Error> {
    builder_with(Roots::System)
}

/// [`http_client_builder`], trusting the certificates of `roots_pem` (PEM text: one or more
/// `-----BEGIN CERTIFICATE-----` blocks) and no other: for a server whose certificate the app
/// holds, such as the standalone fake marketplace (`fake-marketplace` prints the path of its
/// `certificate.pem`), or a company's own CA. Everything else is the client's own: the TLS of
/// this build, no redirect, no `Referer`, no proxy from the environment.
///
/// ```no_run
/// use marketplace_client::{Client, ConsumerCredentials, http_client_builder_trusting};
///
/// let pem = std::fs::read("/tmp/fake-marketplace/certificate.pem")?; // the path it printed
/// let client = Client::builder("https://127.0.0.1:8443", ConsumerCredentials::new("key", "secret"))
///     .http_client(http_client_builder_trusting(&pem)?.build()?)
///     .build()?;
/// # let _ = client;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::Config`] when `roots_pem` holds no certificate or is not valid PEM (its text is
/// not shown: it may be another file than the one meant), or when this build has no TLS.
pub fn http_client_builder_trusting(roots_pem: &[u8]) -> Result<reqwest::ClientBuilder, Error> {
    builder_with(Roots::Pem(roots_pem))
}

/// What the client's HTTP client trusts.
#[derive(Clone, Copy)]
enum Roots<'a> {
    /// The system's roots (see the module docs).
    System,
    /// The certificates of this PEM text, and nothing else.
    Pem(&'a [u8]),
}

/// The one maker of the crate's HTTP client builders.
fn builder_with(roots: Roots<'_>) -> Result<reqwest::ClientBuilder, Error> {
    let builder =
        configure(reqwest::Client::builder(), roots).map_err(|reason| Error::Config { reason })?;
    // Never a redirect (the OAuth header would go along), never a Referer, and never a proxy
    // the environment names (it would see a plain-HTTP request whole).
    Ok(builder
        .redirect(reqwest::redirect::Policy::none())
        .referer(false)
        .no_proxy())
}

/// Why a PEM text given to trust was not taken; its text is not shown.
#[cfg(any(
    feature = "native-tls",
    feature = "rustls-aws-lc",
    feature = "rustls-ring"
))]
fn invalid_pem() -> String {
    "the PEM text given to trust is not valid (expected `-----BEGIN CERTIFICATE-----` blocks; \
     its text is not shown)"
        .to_owned()
}

/// Why a PEM text given to trust was not taken: it holds no certificate.
#[cfg(any(
    feature = "native-tls",
    feature = "rustls-aws-lc",
    feature = "rustls-ring"
))]
fn no_certificate_in_pem() -> String {
    "the PEM text given to trust holds no certificate (`-----BEGIN CERTIFICATE-----` block)"
        .to_owned()
}

/// Whether this build can make HTTPS connections on its own (without `ClientBuilder::http_client`).
pub(crate) const AVAILABLE: bool = cfg!(any(
    feature = "native-tls",
    feature = "rustls-aws-lc",
    feature = "rustls-ring"
));

/// `builder` with the TLS of this build: the platform's, with the system's roots read by
/// [`system_roots`] where OpenSSL would read them from the environment.
#[cfg(feature = "native-tls")]
fn configure(
    builder: reqwest::ClientBuilder,
    roots: Roots<'_>,
) -> Result<reqwest::ClientBuilder, String> {
    let builder = builder.tls_backend_native();
    if let Roots::Pem(pem) = roots {
        let certificates = reqwest::Certificate::from_pem_bundle(pem).map_err(|_| invalid_pem())?;
        if certificates.is_empty() {
            return Err(no_certificate_in_pem());
        }
        return Ok(builder.tls_certs_only(certificates));
    }
    #[cfg(all(unix, not(target_os = "android"), not(target_vendor = "apple")))]
    let builder = {
        let roots = system_store::system_roots()?
            .certs
            .iter()
            .filter_map(|root| reqwest::Certificate::from_der(root.as_ref()).ok())
            .collect::<Vec<_>>();
        if roots.is_empty() {
            return Err(system_store::no_roots());
        }
        builder.tls_certs_only(roots)
    };
    Ok(builder)
}

/// `builder` with the TLS of this build.
#[cfg(all(
    not(feature = "native-tls"),
    any(feature = "rustls-aws-lc", feature = "rustls-ring")
))]
fn configure(
    builder: reqwest::ClientBuilder,
    roots: Roots<'_>,
) -> Result<reqwest::ClientBuilder, String> {
    #[cfg(feature = "rustls-aws-lc")]
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    #[cfg(not(feature = "rustls-aws-lc"))]
    let provider = rustls::crypto::ring::default_provider();
    let versions = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(provider))
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("TLS configuration: {error}"))?;
    if let Roots::Pem(pem) = roots {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;

        let mut store = rustls::RootCertStore::empty();
        for certificate in CertificateDer::pem_slice_iter(pem) {
            store
                .add(certificate.map_err(|_| invalid_pem())?)
                .map_err(|_| invalid_pem())?;
        }
        if store.is_empty() {
            return Err(no_certificate_in_pem());
        }
        let verified = versions.with_root_certificates(store);
        return Ok(builder.tls_backend_preconfigured(verified.with_no_client_auth()));
    }

    #[cfg(all(unix, not(target_os = "android"), not(target_vendor = "apple")))]
    let verified = {
        let mut store = rustls::RootCertStore::empty();
        let (added, _unparsable) =
            store.add_parsable_certificates(system_store::system_roots()?.certs);
        if added == 0 {
            return Err(system_store::no_roots());
        }
        versions.with_root_certificates(store)
    };
    #[cfg(not(all(unix, not(target_os = "android"), not(target_vendor = "apple"))))]
    let verified = rustls_platform_verifier::BuilderVerifierExt::with_platform_verifier(versions)
        .map_err(|error| format!("TLS configuration: {error}"))?;

    Ok(builder.tls_backend_preconfigured(verified.with_no_client_auth()))
}

/// `builder` as it is: this build has no TLS, so only plain HTTP works.
#[cfg(not(any(
    feature = "native-tls",
    feature = "rustls-aws-lc",
    feature = "rustls-ring"
)))]
fn configure(
    builder: reqwest::ClientBuilder,
    roots: Roots<'_>,
) -> Result<reqwest::ClientBuilder, String> {
    match roots {
        Roots::System => Ok(builder),
        Roots::Pem(pem) => Err(format!(
            "certificates to trust were given ({} bytes of PEM), but marketplace-client was \
             built without a TLS feature (rustls-ring, rustls-aws-lc or native-tls)",
            pem.len()
        )),
    }
}

/// The system's store on Linux and the BSDs, read without the environment (see the module
/// docs).
#[cfg(all(
    unix,
    not(target_os = "android"),
    not(target_vendor = "apple"),
    any(
        feature = "native-tls",
        feature = "rustls-aws-lc",
        feature = "rustls-ring"
    )
))]
mod system_store {
    /// The bundles of the system's root certificates outside the directories
    /// `openssl_probe::candidate_cert_dirs` names: the files Go's `crypto/x509` and openssl-probe
    /// look for on Linux and the BSDs. The first one found is read.
    const SYSTEM_BUNDLES: &[&str] = &[
        "/etc/ssl/certs/ca-certificates.crt", // Debian, Ubuntu, Gentoo, Arch
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // Fedora, RHEL, CentOS
        "/etc/pki/tls/certs/ca-bundle.crt",   // older Fedora and RHEL
        "/etc/ssl/ca-bundle.pem",             // openSUSE
        "/etc/pki/tls/cacert.pem",            // OpenELEC
        "/etc/ssl/cert.pem",                  // Alpine, OpenBSD
        "/usr/local/etc/ssl/cert.pem",        // FreeBSD
        "/usr/local/share/certs/ca-root-nss.crt", // DragonFly
        "/etc/openssl/certs/ca-certificates.crt", // NetBSD
    ];

    /// The root certificates of the system's own store on Linux and the BSDs: the first of
    /// [`SYSTEM_BUNDLES`] found and every certificate in the system's certificate directories, read
    /// from those paths. `SSL_CERT_FILE` and `SSL_CERT_DIR` are not read: a parent process sets
    /// them, and a root is a route (SECURITY.md). Files that cannot be read or parsed are skipped,
    /// as the platform verifier skips them.
    pub(super) fn system_roots() -> Result<rustls_native_certs::CertificateResult, String> {
        use std::path::Path;

        let bundle = SYSTEM_BUNDLES
            .iter()
            .map(Path::new)
            .find(|path| path.is_file());
        let mut roots = rustls_native_certs::CertificateResult::default();
        let mut bundle_read = false;
        for dir in openssl_probe::candidate_cert_dirs() {
            // The bundle goes with the first directory, so a bundle linked from it is read once.
            let file = if bundle_read { None } else { bundle };
            bundle_read = true;
            roots
                .certs
                .extend(rustls_native_certs::load_certs_from_paths(file, Some(dir)).certs);
        }
        if !bundle_read {
            roots
                .certs
                .extend(rustls_native_certs::load_certs_from_paths(bundle, None).certs);
        }
        if roots.certs.is_empty() {
            return Err(no_roots());
        }
        Ok(roots)
    }

    /// Why no HTTPS client can be made: the system's store holds no root certificate.
    pub(super) fn no_roots() -> String {
        format!(
            "TLS configuration: no root certificate in the system's store (the first of {} found, \
             and the directories {}); SSL_CERT_FILE and SSL_CERT_DIR are not read (SECURITY.md, \
             Routes): install the system's CA certificates (Debian: ca-certificates), or build a \
             reqwest client trusting the roots you choose and pass it to ClientBuilder::http_client",
            SYSTEM_BUNDLES.join(", "),
            openssl_probe::candidate_cert_dirs()
                .map(|dir| dir.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        )
    }

    #[cfg(all(test, any(feature = "rustls-aws-lc", feature = "rustls-ring")))]
    mod tests {
        use super::*;

        /// The store this machine's HTTPS is checked against is found at the system's paths (CI runs
        /// on a Linux with the distribution's CA certificates) and every root in it is a DER
        /// certificate rustls takes.
        #[test]
        fn the_system_store_is_read_from_its_own_paths() {
            let roots = system_roots().expect("this machine has a CA store");
            let mut store = rustls::RootCertStore::empty();
            let (added, _unparsable) = store.add_parsable_certificates(roots.certs);
            assert!(
                added > 10,
                "only {added} roots read from the system's store"
            );
        }
    }
}
