//! The client's overhead per call: 50 sequential `pay/getInvoice` calls through the client
//! against the same 50 requests sent with plain reqwest.
//!
//! Both talk to the scripted stub server (`marketplace_tests::stub::StubServer`) on 127.0.0.1,
//! which answers every `GET /api/pay/getInvoice` with the `pay/getInvoice.json` fixture (one
//! connection per request, `Connection: close`, no signature check).
//!
//! - `project`: `session.get_invoice(9003).send()`: argument checks, URL building, a fresh nonce
//!   and HMAC-SHA1 signature, the request with its timeout, retry bookkeeping, a tracing span,
//!   reading the body and decoding it into `InvoiceSummary`;
//! - `plain_reqwest` (baseline): `reqwest::Client::get` of the same URL with a precomputed
//!   `Authorization` header, reading the body bytes.
//!
//! - `project_recording`: `project` with the wire recorder on (`ClientBuilder::record`, files
//!   in a temporary directory): each answer copied and queued, cleaned and written on the
//!   recorder's thread.
//!
//! Targets: project / plain_reqwest <= 1.10 (at most 10% overhead); project_recording / project
//! <= 1.05 (recording costs at most 5%). Each sample starts a fresh
//! stub server and fresh clients outside the timed part (the stub records every request, so
//! this bounds its memory), on one multi-threaded tokio runtime.

#[path = "ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, SamplingMode};
use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::oauth::signature::{self, OAuthParams, SignatureRequest, SigningKey};
use marketplace_client::recording::{Recorder, Rotation};
use marketplace_client::{Client, ConsumerCredentials, Session};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};
use ratio::{Row, Target, id};
use reqwest::header::AUTHORIZATION;

/// Calls per iteration.
const CALLS: usize = 50;
const PATH: &str = "/api/pay/getInvoice";
const CONSUMER_KEY: &str = "bench-consumer-key";
const CONSUMER_SECRET: &str = "bench-consumer-secret";
const TOKEN: &str = "bench-access-token";
const TOKEN_SECRET: &str = "bench-token-secret";

/// A stub answering every getInvoice request with the fixture.
async fn stub(body: &str) -> StubServer {
    let stub = StubServer::start().await.expect("stub server");
    stub.fallback(PATH, Reply::json(200, body));
    stub
}

fn session(stub: &StubServer, recorder: Option<&Recorder>) -> Session {
    let mut builder = Client::builder(
        stub.base_url(),
        ConsumerCredentials::new(CONSUMER_KEY, CONSUMER_SECRET),
    );
    if let Some(recorder) = recorder {
        builder = builder.record(recorder.clone());
    }
    let client = builder.build().expect("client");
    client.session(AccessToken::new(TOKEN, TOKEN_SECRET, Timestamp::now()))
}

/// The URL the client sends, and a valid Authorization header for it (computed once).
fn plain_request(stub: &StubServer) -> (String, String) {
    let url = format!("{}{PATH}?id=9003", stub.base_url());
    let parsed = url::Url::parse(&url).expect("URL");
    let header = signature::authorization_header(
        &SignatureRequest {
            method: "GET",
            url: &parsed,
            form: &[],
        },
        &OAuthParams {
            consumer_key: CONSUMER_KEY,
            token: Some(TOKEN),
            nonce: "0123456789abcdef0123456789abcdef",
            timestamp: Timestamp::now().as_second(),
            callback: None,
            verifier: None,
            version: Some("1.0"),
        },
        &SigningKey {
            consumer_secret: CONSUMER_SECRET,
            token_secret: TOKEN_SECRET,
        },
    );
    (url, header)
}

async fn plain_call(http: &reqwest::Client, url: &str, header: &str) -> bytes::Bytes {
    let response = http
        .get(url)
        .header(AUTHORIZATION, header)
        .send()
        .await
        .expect("response");
    assert!(response.status().is_success());
    response.bytes().await.expect("body")
}

fn main() {
    let started = SystemTime::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let body =
        String::from_utf8(fixtures::read("pay/getInvoice.json").expect("fixture")).expect("UTF-8");

    // Both sides get the same answer, and the client decodes it.
    runtime.block_on(async {
        let stub = stub(&body).await;
        let invoice = session(&stub, None)
            .get_invoice(9003)
            .send()
            .await
            .expect("call");
        assert_eq!(invoice.invoice.id, 9003);
        let (url, header) = plain_request(&stub);
        let bytes = plain_call(&plain_client(), &url, &header).await;
        assert_eq!(bytes, body.as_bytes());
        let requests = stub.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[0].query, requests[1].query);
    });

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(30)
        .configure_from_args();
    let mut group = c.benchmark_group("client_50_calls");
    // An iteration takes milliseconds: the same iteration count in every sample.
    group.sampling_mode(SamplingMode::Flat);
    let recordings = std::env::temp_dir().join(format!("bench-recording-{}", std::process::id()));
    let recorder = Recorder::to_dir(&recordings, "bench", Rotation::default()).expect("recorder");
    for (function, recorder) in [("project", None), ("project_recording", Some(&recorder))] {
        group.bench_function(function, |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let stub = stub(&body).await;
                    let session = session(&stub, recorder);
                    let start = Instant::now();
                    for _ in 0..iters {
                        for _ in 0..CALLS {
                            black_box(session.get_invoice(9003).send().await.expect("call"));
                        }
                    }
                    start.elapsed()
                })
            });
        });
    }
    let stats = recorder.stats();
    assert!(stats.written > 0 && stats.write_errors == 0, "{stats:?}");
    drop(recorder);
    let _ = std::fs::remove_dir_all(&recordings);
    group.bench_function("plain_reqwest", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let stub = stub(&body).await;
                let http = plain_client();
                let (url, header) = plain_request(&stub);
                let start = Instant::now();
                for _ in 0..iters {
                    for _ in 0..CALLS {
                        black_box(plain_call(&http, &url, &header).await);
                    }
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    c.final_summary();

    ratio::report(
        "client overhead, 50 sequential calls",
        started,
        &[
            Row {
                name: "50 x pay/getInvoice",
                project: id("client_50_calls", "project"),
                baseline: Some(id("client_50_calls", "plain_reqwest")),
                target: Target {
                    max_ratio: Some(1.10),
                    min_speedup: None,
                },
            },
            Row {
                name: "50 x pay/getInvoice, recording the wire",
                project: id("client_50_calls", "project_recording"),
                baseline: Some(id("client_50_calls", "project")),
                target: Target {
                    max_ratio: Some(1.05),
                    min_speedup: None,
                },
            },
        ],
    );
}

/// A reqwest client with the TLS of this build: reqwest's own `Client::new()` would look for a
/// process-wide rustls provider (see `marketplace_client::http_client_builder`).
fn plain_client() -> reqwest::Client {
    marketplace_client::http_client_builder()
        .expect("TLS configuration")
        .build()
        .expect("HTTP client")
}
