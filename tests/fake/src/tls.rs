//! The fake's TLS: a self-signed certificate generated at start (SANs `127.0.0.1` and
//! `localhost`), a rustls server configuration, and HTTP clients that trust that certificate
//! only.
//!
//! The crypto provider is chosen by feature, ring (`rustls-ring`, the default) or aws-lc-rs
//! (`rustls-aws-lc`, preferred when both are on), and handed to each configuration, so that no
//! process-wide provider is installed. With `native-tls`, the clients use the platform's TLS
//! instead; the server stays rustls.

#[cfg(not(any(feature = "rustls-ring", feature = "rustls-aws-lc")))]
compile_error!(
    "marketplace-fake serves HTTPS with rustls: enable `rustls-ring` (the default) or \
     `rustls-aws-lc`; `native-tls` only selects the TLS of the HTTP client it hands out"
);

use std::io;
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

/// A freshly generated certificate and the acceptor that serves it.
pub(crate) struct Tls {
    /// The certificate, PEM-encoded, for clients to trust.
    pub(crate) certificate_pem: String,
    /// Accepts TLS connections with that certificate.
    pub(crate) acceptor: TlsAcceptor,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").finish_non_exhaustive()
    }
}

/// The crypto provider of this build.
fn provider() -> Arc<CryptoProvider> {
    #[cfg(feature = "rustls-aws-lc")]
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    #[cfg(all(feature = "rustls-ring", not(feature = "rustls-aws-lc")))]
    let provider = rustls::crypto::ring::default_provider();
    Arc::new(provider)
}

/// Generates a self-signed certificate for `127.0.0.1` and `localhost` and a server
/// configuration offering HTTP/1.1 over TLS 1.2 and 1.3.
///
/// # Errors
///
/// Fails if the key or certificate cannot be generated or rustls refuses them.
pub(crate) fn generate() -> io::Result<Tls> {
    let certified =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .map_err(io::Error::other)?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
        certified.signing_key.serialize_der(),
    ));
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .map_err(io::Error::other)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Tls {
        certificate_pem: certified.cert.pem(),
        acceptor: TlsAcceptor::from(Arc::new(config)),
    })
}

/// A `reqwest` client that trusts only `certificate_pem` (nothing for a plain-HTTP fake),
/// ignores proxy settings and follows no redirects.
///
/// Its TLS is configured even for plain HTTP: reqwest built with `rustls-no-provider` (as
/// marketplace-client's and this crate's rustls features build it) would otherwise look for a
/// process-wide crypto provider, and panic without one.
///
/// # Errors
///
/// Fails if the certificate cannot be read or the client cannot be built.
pub(crate) fn http_client(certificate_pem: Option<&str>) -> io::Result<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none());
    trusting(builder, certificate_pem.unwrap_or_default())?
        .build()
        .map_err(io::Error::other)
}

/// `builder` trusting `pem` and nothing else, over native-tls.
#[cfg(feature = "native-tls")]
fn trusting(builder: reqwest::ClientBuilder, pem: &str) -> io::Result<reqwest::ClientBuilder> {
    let certificate = reqwest::Certificate::from_pem(pem.as_bytes()).map_err(io::Error::other)?;
    Ok(builder.tls_backend_native().tls_certs_only([certificate]))
}

/// `builder` trusting `pem` and nothing else, over rustls with this build's provider.
#[cfg(not(feature = "native-tls"))]
fn trusting(builder: reqwest::ClientBuilder, pem: &str) -> io::Result<reqwest::ClientBuilder> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;

    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(pem.as_bytes()) {
        roots
            .add(certificate.map_err(io::Error::other)?)
            .map_err(io::Error::other)?;
    }
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(builder.tls_backend_preconfigured(config))
}
