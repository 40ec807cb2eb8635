//! Every route a request can take to a party other than the configured origin, each shown over
//! real HTTP on loopback (SECURITY.md, "Routes"; redirects are `redirects.rs`, proxies the
//! environment names `env_proxies.rs`):
//!
//! - the plain-HTTP OAuth exemption holds for loopback addresses written as IP literals and
//!   for nothing else, in every spelling the URL parser reads (a generator of spellings: every
//!   IPv4 form, IPv6 forms, IDNA and percent forms, names that resolve to loopback);
//! - a proxy of an app's HTTP client that carries a plain-HTTP request has its answer refused
//!   (when the base URL's host is an IP literal), and only tunnels HTTPS;
//! - connections are reused only for their own origin, even by a client two origins share;
//! - a certificate the platform does not trust ends the call before any request.
//!
//! A tap (`marketplace_tests::tap`) stands in for every party that is not the origin, and, in
//! the generator, for the network itself: the client is given an HTTP client that sends every
//! request to the tap as its proxy, so that no case sends a packet beyond the machine, whatever
//! address it names.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::{
    Client, ConsumerCredentials, Error, RetryPolicy, http_client_builder,
    http_client_builder_trusting,
};
use marketplace_tests::fake::FakeMarketplace;
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};
use marketplace_tests::tap::{Tap, TapAnswer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

fn invoice() -> String {
    String::from_utf8(fixtures::read("pay/getInvoice.json").unwrap()).unwrap()
}

fn token() -> AccessToken {
    AccessToken::new("access-token", "access-secret", Timestamp::now())
}

/// A client of `base_url` with the plain-HTTP OAuth opt-in, no retries, and `http` if given.
fn client(base_url: &str, key: &str, http: Option<reqwest::Client>) -> Result<Client, Error> {
    let mut builder = Client::builder(base_url, ConsumerCredentials::new(key, "consumer-secret"))
        .allow_plain_http_oauth_on_loopback()
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(5));
    if let Some(http) = http {
        builder = builder.http_client(http);
    }
    builder.build()
}

// ---- the plain-HTTP OAuth exemption -----------------------------------------------------------

/// How a host is written in a base URL, and whether the exemption must hold for it: decided
/// from the address the spelling was made from (or from its being a name), not by the URL
/// parser or the client.
#[derive(Clone, Debug)]
struct Spelling {
    host: String,
    loopback_literal: bool,
}

/// One part of a WHATWG IPv4 address: decimal, hexadecimal (`0x`/`0X`) or octal (a leading 0).
fn ipv4_part(value: u64, radix: u8) -> String {
    match radix {
        0 => value.to_string(),
        1 => format!("0x{value:x}"),
        2 => format!("0X{value:X}"),
        _ => format!("0{value:o}"),
    }
}

/// A character as IDNA maps it back: a full-width digit or a full stop of another script.
fn widened(c: char, style: u8) -> String {
    match (c, style) {
        ('0'..='9', 1) => char::from_u32(0xFF10 + (c as u32 - '0' as u32))
            .unwrap()
            .to_string(),
        ('.', 1) => "\u{3002}".to_owned(),
        ('.', 2) => "\u{FF0E}".to_owned(),
        ('.', 3) => "\u{FF61}".to_owned(),
        _ => c.to_string(),
    }
}

/// `text` with the characters `mask` picks percent-encoded (every UTF-8 byte of each).
fn percent_encoded(text: &str, mask: u64) -> String {
    text.chars()
        .enumerate()
        .map(|(at, c)| {
            if mask >> (at % 64) & 1 == 1 {
                let mut bytes = [0; 4];
                c.encode_utf8(&mut bytes)
                    .bytes()
                    .map(|byte| format!("%{byte:02X}"))
                    .collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// An IPv4 address, most often in or at the edge of 127.0.0.0/8, written in any of the forms
/// a URL parser reads as it: one to four parts, each decimal, hexadecimal or octal, a trailing
/// dot, full-width digits and other full stops (IDNA), percent-encoded characters.
fn ipv4_spelling() -> impl Strategy<Value = Spelling> {
    let address = prop_oneof![
        4 => (0_u32..1 << 24).prop_map(|low| 0x7f00_0000 | low),
        1 => Just(0x7f00_0001),
        1 => prop::sample::select(vec![0, 0x7eff_ffff, 0x8000_0000, 0x0a00_0001, 0xffff_ffff]),
        2 => any::<u32>(),
    ];
    (
        address,
        1_usize..=4,
        prop::collection::vec(0_u8..4, 4),
        any::<bool>(),
        0_u8..4,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(
            |(address, parts, radixes, trailing_dot, wide, mask, encode)| {
                let bytes = address.to_be_bytes();
                let mut written: Vec<String> = (0..parts - 1)
                    .map(|at| ipv4_part(u64::from(bytes[at]), radixes[at]))
                    .collect();
                let rest = bytes[parts - 1..]
                    .iter()
                    .fold(0_u64, |value, byte| value << 8 | u64::from(*byte));
                written.push(ipv4_part(rest, radixes[parts - 1]));
                let mut host = written.join(".");
                if trailing_dot {
                    host.push('.');
                }
                let host: String = host.chars().map(|c| widened(c, wide)).collect();
                let host = if encode {
                    percent_encoded(&host, mask)
                } else {
                    host
                };
                Spelling {
                    host,
                    loopback_literal: address >> 24 == 127,
                }
            },
        )
}

/// An IPv6 address, most often `::1`, IPv4-mapped loopback or `::`, written compressed or
/// whole, with leading zeros, in either case, or with its last 32 bits as dotted IPv4.
fn ipv6_spelling() -> impl Strategy<Value = Spelling> {
    let address = prop_oneof![
        3 => Just(Ipv6Addr::LOCALHOST),
        1 => any::<u32>().prop_map(|low| Ipv6Addr::from(0xffff_0000_0000 | u128::from(low))),
        1 => (0_u32..1 << 24).prop_map(|low| Ipv4Addr::from(0x7f00_0000 | low).to_ipv6_mapped()),
        1 => prop::sample::select(vec![Ipv6Addr::UNSPECIFIED, Ipv6Addr::from(2), Ipv6Addr::from(1 << 64 | 1)]),
        2 => any::<u128>().prop_map(Ipv6Addr::from),
    ];
    (address, 0_u8..4, any::<bool>()).prop_map(|(address, form, upper)| {
        let groups = address.segments();
        let host = match form {
            0 => address.to_string(),
            1 => groups.map(|group| format!("{group:04x}")).join(":"),
            2 => groups.map(|group| format!("{group:x}")).join(":"),
            _ => {
                let [a, b, c, d] = (address.to_bits() as u32).to_be_bytes();
                let head = groups[..6]
                    .iter()
                    .map(|g| format!("{g:x}"))
                    .collect::<Vec<_>>();
                format!("{}:{a}.{b}.{c}.{d}", head.join(":"))
            }
        };
        let host = if upper { host.to_uppercase() } else { host };
        Spelling {
            host: format!("[{host}]"),
            loopback_literal: address == Ipv6Addr::LOCALHOST,
        }
    })
}

/// A name: `localhost` and its relatives in any case, with a trailing dot or below another
/// name, names public resolvers answer with a loopback address, and any other name.
fn name_spelling() -> impl Strategy<Value = Spelling> {
    let known = prop::sample::select(vec![
        "localhost",
        "localhost.localdomain",
        "ip6-localhost",
        "ip6-loopback",
        "loopback",
        "127.0.0.1.nip.io",
        "127-0-0-1.sslip.io",
        "localtest.me",
        "lvh.me",
        "xn--lcalhost-0za",
    ]);
    let label = "[a-z][a-z0-9-]{0,8}";
    (
        prop_oneof![
            3 => known.prop_map(str::to_owned),
            1 => label.prop_map(|label| format!("{label}.localhost")),
            1 => (label, label).prop_map(|(a, b)| format!("{a}.{b}z")),
        ],
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(name, case_mask, trailing_dot)| {
            let mut host: String = name
                .chars()
                .enumerate()
                .map(|(at, c)| {
                    if case_mask >> (at % 64) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            if trailing_dot {
                host.push('.');
            }
            Spelling {
                host,
                loopback_literal: false,
            }
        })
}

fn spelling() -> impl Strategy<Value = Spelling> {
    prop_oneof![4 => ipv4_spelling(), 2 => ipv6_spelling(), 2 => name_spelling()]
}

/// The OAuth calls may use plain HTTP (with the opt-in) exactly when the base URL's host is a
/// loopback address written as an IP literal: every spelling of 127.0.0.0/8 and `::1` the URL
/// parser reads is exempt, and nothing else is (no name, `localhost` included, whatever it
/// resolves to). A refused call sends nothing; an exempt one reaches the network, here the tap
/// standing in for it (and, since the tap is a proxy, its answer is then refused as one).
#[test]
fn the_plain_http_oauth_exemption_holds_for_loopback_literals_and_nothing_else() {
    let runtime = marketplace_tests::runtime();
    let network = runtime
        .block_on(Tap::start(TapAnswer::Status(503)))
        .unwrap();
    let http = http_client_builder()
        .unwrap()
        .proxy(reqwest::Proxy::all(network.url()).unwrap())
        .build()
        .unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 512,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(spelling(), 1_u16..), |(spelling, port)| {
            let base_url = format!("http://{}:{port}/", spelling.host);
            let client = client(&base_url, "app-key", Some(http.clone()))
                .map_err(|error| TestCaseError::fail(format!("{base_url}: {error}")))?;
            let before = network.requests().len();
            let result = runtime.block_on(client.request_token(None));
            let sent = network.requests().len() - before;
            let error = result.expect_err("the tap never grants a token");
            if spelling.loopback_literal {
                prop_assert_eq!(sent, 1, "{}: {}", base_url, error);
                prop_assert!(
                    matches!(&error, Error::Intermediary { peer, .. } if *peer == network.addr()),
                    "{}: {}",
                    base_url,
                    error
                );
            } else {
                prop_assert_eq!(sent, 0, "{}: {}", base_url, error);
                prop_assert!(
                    matches!(&error, Error::Config { reason } if reason.contains("must use HTTPS")),
                    "{}: {}",
                    base_url,
                    error
                );
            }
            Ok(())
        })
        .unwrap();
}

// ---- proxies an app's HTTP client has ---------------------------------------------------------

/// A plain-HTTP data call that a proxy of the app's HTTP client carried is refused, even with
/// a well-formed answer: the base URL names an IP literal, and the answer came from elsewhere.
/// The same client's proxy for HTTPS only leaves plain HTTP direct, and the answer is taken.
/// For a name the client cannot tell the proxy from the origin: the limit SECURITY.md states.
#[tokio::test]
async fn a_proxy_carrying_plain_http_has_its_answer_refused_when_the_origin_is_a_literal() {
    let origin = StubServer::start().await.unwrap();
    origin.fallback("/api/pay/getInvoice", Reply::json(200, invoice()));
    let proxy = Tap::start(TapAnswer::Json(invoice())).await.unwrap();
    let proxied =
        |proxy: reqwest::Proxy| http_client_builder().unwrap().proxy(proxy).build().unwrap();

    let http = proxied(reqwest::Proxy::http(proxy.url()).unwrap());
    let session = client(&origin.base_url(), "app-key", Some(http.clone()))
        .unwrap()
        .session(token());
    let error = session.get_invoice(9003).send().await.unwrap_err();
    match &error {
        Error::Intermediary {
            origin: named,
            peer,
            ..
        } => {
            assert_eq!(*peer, proxy.addr(), "{error}");
            assert_eq!(*named, origin.base_url().trim_start_matches("http://"));
        }
        other => panic!("expected the proxy's answer refused, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .contains("never goes through an intermediary"),
        "{error}"
    );
    assert!(origin.requests().is_empty());
    assert_eq!(proxy.requests().len(), 1);

    // A proxy for HTTPS only: plain HTTP goes to the origin itself, and its answer is taken.
    let tunnel_only = proxied(reqwest::Proxy::https(proxy.url()).unwrap());
    let session = client(&origin.base_url(), "app-key", Some(tunnel_only))
        .unwrap()
        .session(token());
    session.get_invoice(9003).send().await.unwrap();
    assert_eq!(origin.requests().len(), 1);
    assert_eq!(proxy.requests().len(), 1);

    // The limit: a name names no address, so the proxy's answer cannot be told apart.
    let port = origin.base_url().rsplit(':').next().unwrap().to_owned();
    let session = client(&format!("http://localhost:{port}"), "app-key", Some(http))
        .unwrap()
        .session(token());
    session.get_invoice(9003).send().await.unwrap();
    assert_eq!(proxy.requests().len(), 2);
}

/// A proxy of the app's HTTP client carries HTTPS as a tunnel: it sees `CONNECT host:port`
/// and nothing of the request (no path, no `Authorization`), and the call succeeds end to end.
#[tokio::test]
async fn a_proxy_only_tunnels_https_and_sees_no_request() {
    let fake = FakeMarketplace::start().await.unwrap();
    let proxy = Tap::start(TapAnswer::Tunnel).await.unwrap();
    let http = trusting(fake.certificate_pem())
        .proxy(reqwest::Proxy::all(proxy.url()).unwrap())
        .build()
        .unwrap();
    let credentials = fake.credentials();
    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&credentials.consumer_key, &credentials.consumer_secret),
    )
    .http_client(http)
    .build()
    .unwrap();
    client.request_token(Some("oob")).await.unwrap();
    assert_eq!(fake.requests_served(), 1);
    let seen = proxy.requests();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let authority = fake
        .base_url()
        .trim_start_matches("https://")
        .trim_end_matches('/');
    assert_eq!(seen[0].method, "CONNECT");
    assert_eq!(seen[0].target, authority);
    assert_eq!(seen[0].header("authorization"), None);
}

/// A reqwest client builder trusting `pem` only (rustls with ring, as this suite builds it).
fn trusting(pem: &str) -> reqwest::ClientBuilder {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;

    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(pem.as_bytes()) {
        roots.add(certificate.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .tls_backend_preconfigured(config)
}

// ---- connection reuse -------------------------------------------------------------------------

/// One HTTP client shared by the clients of two origins (as an app may share its pool): every
/// connection carries requests for one origin only, each signed with that origin's consumer
/// key, over HTTP/1.1; connections are reused (the test would show nothing otherwise).
#[tokio::test]
async fn connections_are_reused_for_their_own_origin_only() {
    let first = Tap::start(TapAnswer::Json(invoice())).await.unwrap();
    let second = Tap::start(TapAnswer::Json(invoice())).await.unwrap();
    let shared = http_client_builder().unwrap().build().unwrap();
    let sessions = [(&first, "first-key"), (&second, "second-key")].map(|(tap, key)| {
        client(&tap.url(), key, Some(shared.clone()))
            .unwrap()
            .session(token())
    });
    for _ in 0..4 {
        for session in &sessions {
            session.get_invoice(9003).send().await.unwrap();
        }
    }
    for (tap, key) in [(&first, "first-key"), (&second, "second-key")] {
        let connections = tap.connections();
        let requests: Vec<_> = connections.iter().flat_map(|c| &c.requests).collect();
        assert_eq!(requests.len(), 4);
        assert!(
            connections.iter().any(|c| c.requests.len() > 1),
            "no connection was reused: {connections:?}"
        );
        let host = tap.addr().to_string();
        for request in requests {
            assert_eq!(request.version, "HTTP/1.1");
            assert_eq!(request.header("host"), Some(host.as_str()), "{request:?}");
            let authorization = request.header("authorization").unwrap();
            assert!(
                authorization.contains(&format!("oauth_consumer_key=\"{key}\"")),
                "{authorization}"
            );
        }
    }
}

// ---- TLS ----------------------------------------------------------------------------------------

/// The client's own HTTP client checks certificates with the platform's verifier: a service
/// whose certificate the platform does not trust (the fake's self-signed one) gets no request;
/// the call ends with a connect error.
/// `http_client_builder_trusting` trusts the certificates it is given and no other: a client
/// built on it with one fake's certificate signs in and calls that fake, and refuses the
/// handshake of a second fake (its own certificate) before any request; a PEM text without a
/// certificate, or not PEM at all, is a configuration error that shows none of its text.
#[tokio::test]
async fn a_client_trusting_a_given_certificate_trusts_it_and_no_other() {
    let trusted = FakeMarketplace::start().await.unwrap();
    let other = FakeMarketplace::start().await.unwrap();
    let client_of = |fake: &FakeMarketplace| {
        let credentials = fake.credentials();
        let http = http_client_builder_trusting(trusted.certificate_pem().as_bytes())
            .unwrap()
            .build()
            .unwrap();
        Client::builder(
            fake.base_url(),
            ConsumerCredentials::new(&credentials.consumer_key, &credentials.consumer_secret),
        )
        .http_client(http)
        .retry(RetryPolicy::none())
        .build()
        .unwrap()
    };
    let login = trusted.credentials().logins[0].clone();
    let session = trusted.sign_in(&client_of(&trusted), &login).await.unwrap();
    session.get_my_providers().send().await.unwrap();

    let error = client_of(&other)
        .request_token(Some("oob"))
        .await
        .unwrap_err();
    match &error {
        Error::Transport { source, .. } => {
            assert!(source.is_connect(), "{error}");
            // The message names where the request went (the base URL's origin).
            assert_eq!(source.origin(), other.base_url());
            assert!(
                error.to_string().starts_with(&format!(
                    "oauth/getRequestToken: the request to {} failed: ",
                    other.base_url()
                )),
                "{error}"
            );
        }
        other => panic!("expected a refused handshake, got {other:?}"),
    }
    assert_eq!(other.requests_served(), 0);

    let key = "-----BEGIN PRIVATE KEY-----\nTUFSS0VSLXByaXZhdGUta2V5LXRleHQ=\n-----END PRIVATE KEY-----\n";
    for pem in [
        String::new(),
        "MARKER-not-pem-at-all".to_owned(),
        key.to_owned(),
        "-----BEGIN CERTIFICATE-----\nMARKER!!not-base64\n-----END CERTIFICATE-----\n".to_owned(),
    ] {
        let error = http_client_builder_trusting(pem.as_bytes()).unwrap_err();
        let shown = format!("{error} {error:?}");
        assert!(matches!(error, Error::Config { .. }), "{shown}");
        assert!(
            !shown.contains("MARKER") && !shown.contains("TUFS"),
            "{shown}"
        );
    }
}

#[tokio::test]
async fn an_untrusted_certificate_ends_the_call_before_any_request() {
    let fake = FakeMarketplace::start().await.unwrap();
    let credentials = fake.credentials();
    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&credentials.consumer_key, &credentials.consumer_secret),
    )
    .retry(RetryPolicy::none())
    .build()
    .unwrap();
    let error = client.request_token(Some("oob")).await.unwrap_err();
    match &error {
        Error::Transport { source, .. } => assert!(source.is_connect(), "{error}"),
        other => panic!("expected a refused handshake, got {other:?}"),
    }
    assert_eq!(fake.requests_served(), 0);
}
