//! Secrets (the consumer secret and token secrets) never appear in Debug output, errors or
//! logs, while each call is traced.
//!
//! In a test binary of its own: tracing caches per call site whether anyone listens, and a test
//! on another thread that hit a call site first could hide it from this test's subscriber.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, Verifier};
use marketplace_client::{Client, ConsumerCredentials, RetryPolicy};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};

const CONSUMER_SECRET: &str = "consumer-secret-4f9a";
const ACCESS_SECRET: &str = "access-secret-77c1";
const REQUEST_SECRET: &str = "request-secret-03be";

async fn start() -> (StubServer, Client) {
    let stub = StubServer::start().await.unwrap();
    let client = Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("app-key", CONSUMER_SECRET),
    )
    .allow_plain_http_oauth_on_loopback()
    .retry(
        RetryPolicy::default()
            .max_attempts(3)
            .base_delay(Duration::from_millis(10))
            .max_delay(Duration::from_millis(40))
            .max_retry_after(Duration::from_secs(5)),
    )
    .build()
    .unwrap();
    (stub, client)
}

fn fixture(name: &str) -> String {
    String::from_utf8(fixtures::read(name).unwrap()).unwrap()
}

/// A tracing writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn secrets_never_appear_in_debug_output_errors_or_logs() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let (stub, client) = start().await;
    stub.enqueue(
        "/oauth/getRequestToken",
        Reply::text(
            200,
            "text/plain",
            format!(
                "oauth_token=req&oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true"
            ),
        ),
    );
    // A token answer without oauth_token: the error shows the body, secret redacted.
    stub.enqueue(
        "/oauth/getAccessToken",
        Reply::text(
            200,
            "text/plain",
            format!("oauth_token_secret={ACCESS_SECRET}"),
        ),
    );
    stub.enqueue(
        "/api/pay/getTimesheet",
        Reply::text(500, "text/plain", "down"),
    );
    stub.enqueue(
        "/api/pay/getTimesheet",
        Reply::json(200, fixture("pay/getTimesheet.json")),
    );

    let request = client.request_token(None).await.unwrap();
    let verifier = Verifier::new("v").unwrap();
    let access_error = client.access_token(&request, &verifier).await.unwrap_err();
    let session = client.session(AccessToken::new(
        "access-token",
        ACCESS_SECRET,
        Timestamp::now(),
    ));
    session.get_timesheet_by_id(880104).send().await.unwrap();

    let mut shown = vec![
        format!("{client:?}"),
        format!("{session:?}"),
        format!("{request:?}"),
        format!("{:?}", session.token()),
        format!("{access_error}"),
        format!("{access_error:?}"),
    ];
    let logs = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("marketplace_call"),
        "spans are logged: {logs}"
    );
    assert!(
        logs.contains("method=\"pay/getTimesheet\"") || logs.contains("method=pay/getTimesheet"),
        "{logs}"
    );
    assert!(logs.contains("attempt=2"), "{logs}");
    assert!(logs.contains("status=200"), "{logs}");
    assert!(logs.contains("latency_ms"), "{logs}");
    shown.push(logs);
    for text in &shown {
        for secret in [CONSUMER_SECRET, ACCESS_SECRET, REQUEST_SECRET] {
            assert!(!text.contains(secret), "{secret} leaked in: {text}");
        }
    }
    assert!(shown[5].contains("[redacted]"), "{}", shown[5]);
}
