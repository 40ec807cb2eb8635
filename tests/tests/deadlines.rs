//! The deadline of a call and the timeout of each attempt, against the scripted stub, with
//! limits of tens of milliseconds (no long sleeps): a `Retry-After` storm, a body that stalls,
//! both at once, a `Retry-After` beyond the deadline, per-call options, and paged streams.
//!
//! Every call is also wrapped in a generous outer timeout, so a broken deadline fails the test
//! instead of hanging it.

use std::future::Future;
use std::time::Duration;

use futures::StreamExt;
use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::{
    Client, ClientBuilder, ConsumerCredentials, Error, ErrorCode, RetryPolicy, Session,
    TimeoutLimit,
};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};
use serde_json::{Value, json};

const INVOICE: &str = "/api/pay/getInvoice";
/// Far longer than any limit under test: a stalled body or a delayed reply.
const FOREVER: Duration = Duration::from_secs(5);

fn fixture(name: &str) -> String {
    String::from_utf8(fixtures::read(name).unwrap()).unwrap()
}

/// Retries without backoff, as many as the deadline allows.
fn eager_retries() -> RetryPolicy {
    RetryPolicy::default()
        .max_attempts(1_000)
        .base_delay(Duration::ZERO)
        .max_delay(Duration::ZERO)
        .max_retry_after(Duration::from_secs(30))
}

fn builder(stub: &StubServer) -> ClientBuilder {
    Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("app-key", "consumer-secret"),
    )
}

fn session(client: &Client) -> Session {
    client.session(AccessToken::new("token", "token-secret", Timestamp::now()))
}

/// Awaits `call`, failing the test if it runs past ten seconds.
async fn bounded<T>(call: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call ended by its own limits")
}

/// The error of a `pay/getInvoice` call that must fail.
async fn invoice_error(client: &Client) -> Error {
    bounded(session(client).get_invoice(9003).send())
        .await
        .unwrap_err()
}

/// An invoice whose body stalls halfway for far longer than any limit under test.
fn stalled_invoice() -> Reply {
    Reply::json(200, fixture("pay/getInvoice.json")).stalled(FOREVER)
}

/// The parts of a timeout error.
fn timeout_of(error: &Error) -> (TimeoutLimit, Duration, u32) {
    match error {
        Error::Timeout {
            limit,
            after,
            attempts,
            ..
        } => (*limit, *after, *attempts),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn a_retry_after_storm_ends_at_the_deadline() {
    let stub = StubServer::start().await.unwrap();
    stub.fallback(
        INVOICE,
        Reply::text(503, "text/plain", "busy")
            .header("Retry-After", "0")
            .delay(Duration::from_millis(20)),
    );
    let deadline = Duration::from_millis(150);
    let client = builder(&stub)
        .deadline(deadline)
        .retry(eager_retries())
        .build()
        .unwrap();
    let error = invoice_error(&client).await;
    let (limit, after, attempts) = timeout_of(&error);
    assert_eq!(limit, TimeoutLimit::Deadline, "{error}");
    assert!(after >= deadline, "{error}");
    assert!(attempts >= 2, "retried while time was left: {error}");
    assert!(stub.requests().len() <= attempts as usize);
    let text = error.to_string();
    assert!(
        text.contains("the call's deadline") && text.contains("attempts"),
        "{text}"
    );
}

#[tokio::test]
async fn a_body_that_stalls_is_an_attempt_timeout_not_a_decode_error() {
    let stub = StubServer::start().await.unwrap();
    stub.fallback(INVOICE, stalled_invoice());
    let client = builder(&stub)
        .timeout(Duration::from_millis(50))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let error = invoice_error(&client).await;
    let (limit, after, attempts) = timeout_of(&error);
    assert_eq!((limit, attempts), (TimeoutLimit::Attempt, 1), "{error}");
    assert!(after >= Duration::from_millis(50), "{error}");
    assert!(!error.to_string().contains("decoding"), "{error}");

    // With retries, every attempt stalls and is cut; the last one is reported.
    let client = builder(&stub)
        .timeout(Duration::from_millis(30))
        .retry(eager_retries().max_attempts(3))
        .build()
        .unwrap();
    let before = stub.requests().len();
    let error = invoice_error(&client).await;
    assert_eq!(timeout_of(&error).0, TimeoutLimit::Attempt, "{error}");
    assert_eq!(timeout_of(&error).2, 3, "{error}");
    assert_eq!(stub.requests().len() - before, 3);
}

#[tokio::test]
async fn a_body_that_stalls_past_the_deadline_is_a_deadline_timeout() {
    let stub = StubServer::start().await.unwrap();
    stub.fallback(INVOICE, stalled_invoice());
    let client = builder(&stub)
        .timeout(Duration::from_secs(2))
        .deadline(Duration::from_millis(80))
        .retry(eager_retries())
        .build()
        .unwrap();
    let error = invoice_error(&client).await;
    let (limit, after, attempts) = timeout_of(&error);
    assert_eq!((limit, attempts), (TimeoutLimit::Deadline, 1), "{error}");
    assert!(after >= Duration::from_millis(80), "{error}");
}

#[tokio::test]
async fn storms_and_stalls_together_end_at_the_deadline() {
    let stub = StubServer::start().await.unwrap();
    let busy = Reply::text(503, "text/plain", "busy").header("Retry-After", "0");
    let stalled = stalled_invoice();
    for _ in 0..3 {
        stub.enqueue(INVOICE, busy.clone());
        stub.enqueue(INVOICE, stalled.clone());
    }
    stub.fallback(INVOICE, busy);
    let client = builder(&stub)
        .timeout(Duration::from_millis(30))
        .deadline(Duration::from_millis(200))
        .retry(eager_retries())
        .build()
        .unwrap();
    let error = invoice_error(&client).await;
    let (limit, after, attempts) = timeout_of(&error);
    assert_eq!(limit, TimeoutLimit::Deadline, "{error}");
    assert!(after >= Duration::from_millis(200), "{error}");
    // A 503, then a stalled body, then more: each kind was retried.
    assert!(attempts >= 3, "both kinds of failure were retried: {error}");
}

#[tokio::test]
async fn a_retry_after_beyond_the_deadline_ends_the_call_at_once_with_the_answer() {
    let stub = StubServer::start().await.unwrap();
    stub.enqueue(
        INVOICE,
        Reply::text(503, "text/plain", "down for maintenance").header("Retry-After", "20"),
    );
    let body = json!({"rcode": 0, "error": {"code": "E_API_RATE_LIMITED", "message": "slow down"}});
    stub.enqueue(
        INVOICE,
        Reply::json(429, body.to_string()).header("Retry-After", "20"),
    );
    let client = builder(&stub)
        .deadline(Duration::from_millis(500))
        .retry(eager_retries())
        .build()
        .unwrap();
    let session = session(&client);
    let error = bounded(session.get_invoice(9003).send()).await.unwrap_err();
    assert!(
        matches!(&error, Error::Status { status: 503, body, .. } if body.contains("maintenance")),
        "{error:?}"
    );
    assert_eq!(stub.requests().len(), 1, "no attempt after the answer");

    let error = bounded(session.get_invoice(9003).send()).await.unwrap_err();
    assert_eq!(error.status(), Some(429));
    assert_eq!(
        ErrorCode::of(&error),
        Some(ErrorCode::Other("E_API_RATE_LIMITED".to_owned()))
    );
    assert_eq!(stub.requests().len(), 2);
}

#[tokio::test]
async fn per_call_options_override_the_client() {
    let stub = StubServer::start().await.unwrap();
    stub.fallback(INVOICE, stalled_invoice());
    // The client's own limits are the defaults (30 s per attempt, 60 s in all).
    let client = builder(&stub).build().unwrap();
    let session = session(&client);
    let error = bounded(
        session
            .get_invoice(9003)
            .customize(|options| {
                options
                    .timeout(Duration::from_millis(40))
                    .retry(RetryPolicy::none())
            })
            .send(),
    )
    .await
    .unwrap_err();
    assert_eq!(timeout_of(&error).0, TimeoutLimit::Attempt, "{error}");
    assert_eq!(timeout_of(&error).2, 1, "{error}");

    let error = bounded(
        session
            .get_invoice(9003)
            .customize(|options| options.deadline(Duration::from_millis(60)))
            .send(),
    )
    .await
    .unwrap_err();
    assert_eq!(timeout_of(&error).0, TimeoutLimit::Deadline, "{error}");

    // And the other way round: a call may take longer than the client allows.
    let stub = StubServer::start().await.unwrap();
    stub.fallback(
        INVOICE,
        Reply::json(200, fixture("pay/getInvoice.json")).delay(Duration::from_millis(100)),
    );
    let client = builder(&stub)
        .timeout(Duration::from_millis(20))
        .deadline(Duration::from_millis(20))
        .build()
        .unwrap();
    let summary = bounded(
        self::session(&client)
            .get_invoice(9003)
            .customize(|options| {
                options
                    .timeout(Duration::from_secs(5))
                    .deadline(Duration::from_secs(5))
            })
            .send(),
    )
    .await
    .unwrap();
    assert_eq!(summary.invoice.id, 9003);
}

#[tokio::test]
async fn a_paged_stream_applies_the_options_to_every_page() {
    let stub = StubServer::start().await.unwrap();
    let mut first: Value = serde_json::from_str(&fixture("pay/getTimesheetsForBid.json")).unwrap();
    first["data"]["totalPages"] = json!(2);
    let first = first.to_string();
    stub.route("/api/pay/getTimesheetsForBid", move |request| {
        let second = request
            .query_pairs()
            .iter()
            .any(|(name, value)| name == "page" && value == "2");
        let reply = Reply::json(200, first.clone());
        if second {
            reply.stalled(FOREVER)
        } else {
            reply
        }
    });
    let client = builder(&stub).build().unwrap();
    let pages: Vec<_> = bounded(
        session(&client)
            .get_timesheets_for_bid(310001)
            .customize(|options| {
                options
                    .timeout(Duration::from_millis(300))
                    .retry(RetryPolicy::none())
            })
            .pages()
            .collect::<Vec<_>>(),
    )
    .await;
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(pages[0].is_ok());
    let error = pages[1].as_ref().unwrap_err();
    assert_eq!(
        timeout_of(error),
        (TimeoutLimit::Attempt, timeout_of(error).1, 1)
    );
}

/// Cleaning a large hostile body of secrets is CPU work no timer interrupts: it runs on a
/// blocking thread the call awaits only until its deadline. An error answer of 8 MiB of
/// escapes nested three deep (seconds of cleaning in a debug build) and a data answer seen by
/// a response hook each end the call at its deadline, not when the cleaning is done.
#[tokio::test]
async fn a_body_costly_to_clean_still_ends_the_call_at_its_deadline() {
    let stub = StubServer::start().await.unwrap();
    let hostile = "secret=%25252F\\u0025&amp; ".repeat(8 << 20 >> 5);
    for (status, hooked) in [(500, false), (200, true)] {
        stub.enqueue(INVOICE, Reply::text(status, "text/plain", hostile.clone()));
        let mut builder = builder(&stub)
            .retry(RetryPolicy::none())
            .deadline(Duration::from_millis(1_500));
        if hooked {
            builder = builder.on_response(|response| {
                assert!(response.body().is_some());
            });
        }
        let client = builder.build().unwrap();
        let error = invoice_error(&client).await;
        let (limit, after, attempts) = timeout_of(&error);
        assert_eq!((limit, attempts), (TimeoutLimit::Deadline, 1), "{error}");
        assert!(
            after < Duration::from_millis(3_000),
            "ended {after:?} after it started, the deadline being 1.5 s"
        );
    }
}

/// The sibling of the case above where the cleaning under the deadline finishes: the error
/// then leaves the call through the session's own cleaning (`Error::scrubbed`), which must be
/// bounded by the same deadline. Error answers whose bodies cost the scrubber most per byte
/// and hold nothing it removes (so the cleaned text costs as much again), of growing sizes
/// (each cleaned in some share of the deadline): every call ends by its deadline and a quarter,
/// with the answer's error or a timeout.
#[tokio::test]
async fn an_error_cleaned_by_its_deadline_leaves_the_call_by_it_too() {
    let stub = StubServer::start().await.unwrap();
    let deadline = Duration::from_millis(600);
    let unit = "%25252F\\u0025&amp; x ";
    let mut late = Vec::new();
    let mut size = 16 << 10;
    while size <= 8 << 20 {
        let body = unit.repeat(size / unit.len());
        stub.enqueue(INVOICE, Reply::text(500, "text/plain", body));
        let client = builder(&stub)
            .retry(RetryPolicy::none())
            .deadline(deadline)
            .build()
            .unwrap();
        let started = std::time::Instant::now();
        let error = invoice_error(&client).await;
        let took = started.elapsed();
        assert!(
            matches!(
                error,
                Error::Status { status: 500, .. } | Error::Timeout { .. }
            ),
            "{size} bytes: {error:.200}"
        );
        if took > deadline * 5 / 4 {
            let kind = if matches!(error, Error::Timeout { .. }) {
                "a timeout"
            } else {
                "the status"
            };
            late.push(format!("{size} bytes: {kind} after {took:?}"));
        }
        size = size * 5 / 4;
    }
    assert!(
        late.is_empty(),
        "deadline {deadline:?}, calls ended late:\n{}",
        late.join("\n")
    );
}
