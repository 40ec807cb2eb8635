//! The fake's TLS: a self-signed certificate generated at start (SANs `127.0.0.1` and
//! `localhost`) and a rustls server configuration on the aws-lc-rs provider, chosen explicitly
//! so that no process-wide crypto provider is installed.

use std::io;
use std::sync::Arc;

use rustls::ServerConfig;
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
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
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

/// A `reqwest` client that trusts only `certificate_pem` (when given), ignores proxy settings
/// and follows redirects or not as asked.
///
/// # Errors
///
/// Fails if the certificate cannot be read or the client cannot be built.
pub(crate) fn http_client(
    certificate_pem: Option<&str>,
    follow_redirects: bool,
) -> reqwest::Result<reqwest::Client> {
    let mut builder = reqwest::Client::builder().no_proxy();
    if let Some(pem) = certificate_pem {
        builder = builder.tls_certs_only([reqwest::Certificate::from_pem(pem.as_bytes())?]);
    }
    if !follow_redirects {
        builder = builder.redirect(reqwest::redirect::Policy::none());
    }
    builder.build()
}
