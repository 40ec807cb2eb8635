//! Hooks and metadata: request hooks and per-call headers on the wire (and never in the
//! signature's place), response hooks on every answer with what a traffic recorder needs and no
//! secret, and `send_with_metadata` reporting what the response said besides its data.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use marketplace_client::jiff::{SignedDuration, Timestamp};
use marketplace_client::oauth::AccessToken;
use marketplace_client::reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};
use marketplace_client::{Client, ClientBuilder, ConsumerCredentials, RetryPolicy};
use marketplace_tests::fake::{Authorization, FakeMarketplace, Fault};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};
use serde_json::{Value, json};

const INVOICE: &str = "/api/pay/getInvoice";
const CONSUMER_SECRET: &str = "consumer-secret-hook";
const ACCESS_SECRET: &str = "access-secret-hook";

fn builder(base_url: &str) -> ClientBuilder {
    Client::builder(
        base_url,
        ConsumerCredentials::new("app-key", CONSUMER_SECRET),
    )
    .retry(
        RetryPolicy::default()
            .base_delay(Duration::from_millis(5))
            .max_delay(Duration::from_millis(10)),
    )
}

fn invoice_body() -> String {
    String::from_utf8(fixtures::read("pay/getInvoice.json").unwrap()).unwrap()
}

/// One answer as a traffic recorder would keep it: one JSON object per exchange.
fn record(response: &marketplace_client::ReceivedResponse<'_>) -> Value {
    json!({
        "api": response.api_method(),
        "method": response.http_method().as_str(),
        "url": response.url().as_str(),
        "params": response.params().map(|(name, value)| json!([name, value])).collect::<Vec<_>>(),
        "attempt": response.attempt(),
        "sent_at": response.sent_at().to_string(),
        "latency_ms": response.latency().as_millis() as u64,
        "status": response.status(),
        "headers": response.headers().iter()
            .map(|(name, value)| json!([name.as_str(), String::from_utf8_lossy(value.as_bytes())]))
            .collect::<Vec<_>>(),
        "body": response.body().map(|body| String::from_utf8_lossy(body).into_owned()),
        "redacted": response.body_is_redacted(),
    })
}

/// A response hook that keeps every record.
fn recorder() -> (
    Arc<Mutex<Vec<Value>>>,
    impl Fn(&marketplace_client::ReceivedResponse<'_>) + Send + Sync + 'static,
) {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    (
        records,
        move |response: &marketplace_client::ReceivedResponse<'_>| {
            sink.lock().unwrap().push(record(response));
        },
    )
}

#[tokio::test]
async fn request_hooks_and_call_headers_reach_every_attempt_and_never_replace_the_signature() {
    let stub = StubServer::start().await.unwrap();
    let attempts = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&attempts);
    let client = builder(&stub.base_url())
        .on_request(move |request| {
            seen.lock().unwrap().push((
                request.api_method(),
                request.attempt(),
                request.url().clone(),
            ));
            // What the call added is visible to the hook.
            assert!(request.headers().contains_key("x-call"));
            let attempt = HeaderValue::from(request.attempt());
            request.headers_mut().insert("x-attempt", attempt);
            request
                .headers_mut()
                .insert(AUTHORIZATION, HeaderValue::from_static("stolen"));
        })
        .build()
        .unwrap();
    let session = client.session(AccessToken::new("t", ACCESS_SECRET, Timestamp::now()));
    stub.enqueue(INVOICE, Reply::json(503, "{}"));
    stub.enqueue(INVOICE, Reply::json(200, invoice_body()));

    session
        .get_invoice(9003)
        .customize(|options| {
            options
                .header(
                    HeaderName::from_static("x-call"),
                    HeaderValue::from_static("a"),
                )
                .header(
                    HeaderName::from_static("x-call"),
                    HeaderValue::from_static("b"),
                )
        })
        .send()
        .await
        .unwrap();

    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    for (n, request) in requests.iter().enumerate() {
        let values = |name: &str| -> Vec<&str> {
            request
                .headers
                .iter()
                .filter(|(header, _)| header == name)
                .map(|(_, value)| value.as_str())
                .collect()
        };
        assert_eq!(values("x-call"), ["a", "b"]);
        assert_eq!(values("x-attempt"), [(n + 1).to_string()]);
        let authorization = values("authorization");
        assert_eq!(authorization.len(), 1, "{authorization:?}");
        assert!(authorization[0].starts_with("OAuth "), "{authorization:?}");
    }
    let attempts = attempts.lock().unwrap();
    assert_eq!(
        attempts
            .iter()
            .map(|(api, attempt, _)| (*api, *attempt))
            .collect::<Vec<_>>(),
        [("pay/getInvoice", 1), ("pay/getInvoice", 2)]
    );
    assert_eq!(attempts[0].2.path(), INVOICE);
    assert_eq!(attempts[0].2.query(), Some("id=9003"));
}

#[tokio::test]
async fn hooked_requests_still_verify_at_the_fake() {
    // The fake checks every signature with its own code: headers added by hooks and options
    // leave it intact.
    let fake = FakeMarketplace::start().await.unwrap();
    let client = fake
        .client_builder()
        .on_request(|request| {
            request
                .headers_mut()
                .insert("x-trace-id", HeaderValue::from_static("trace-1"));
        })
        .build()
        .unwrap();
    let session = fake.sign_in(&client, "dwhitfield").await.unwrap();
    let workroom = fake.world().hourly_workroom();
    session
        .get_timesheet_by_bid_id(workroom.bid_id)
        .customize(|options| {
            options.header(
                HeaderName::from_static("x-call"),
                HeaderValue::from_static("1"),
            )
        })
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn response_hooks_see_every_answer_with_the_body_as_sent() {
    let stub = StubServer::start().await.unwrap();
    let (records, hook) = recorder();
    let client = builder(&stub.base_url()).on_response(hook).build().unwrap();
    let session = client.session(AccessToken::new("t", ACCESS_SECRET, Timestamp::now()));
    let body = invoice_body();
    stub.enqueue(
        INVOICE,
        Reply::json(503, r#"{"error": "busy"}"#).header("x-served-by", "one"),
    );
    stub.enqueue(
        INVOICE,
        Reply::json(200, body.clone()).header("x-served-by", "two"),
    );

    session.get_invoice(9003).send().await.unwrap();

    let records = records.lock().unwrap();
    assert_eq!(records.len(), 2, "{records:#?}");
    let (first, second) = (&records[0], &records[1]);
    assert_eq!(
        (first["attempt"].as_u64(), first["status"].as_u64()),
        (Some(1), Some(503))
    );
    assert_eq!(
        (second["attempt"].as_u64(), second["status"].as_u64()),
        (Some(2), Some(200))
    );
    assert_eq!(second["api"], "pay/getInvoice");
    assert_eq!(second["method"], "GET");
    assert_eq!(second["params"], json!([["id", "9003"]]));
    assert!(
        second["headers"]
            .as_array()
            .unwrap()
            .contains(&json!(["x-served-by", "two"]))
    );
    // Every body goes through the scrubber; with no secret in it, it is the bytes as sent.
    assert_eq!(second["body"].as_str(), Some(body.as_str()));
    assert_eq!(second["redacted"], false);
    assert_eq!(first["body"], r#"{"error": "busy"}"#);
    assert_eq!(first["redacted"], false);
    let sent_at: Timestamp = second["sent_at"].as_str().unwrap().parse().unwrap();
    assert!(Timestamp::now().duration_since(sent_at).as_secs().abs() < 60);
}

#[tokio::test]
async fn response_hooks_see_refused_answers_without_a_body() {
    let stub = StubServer::start().await.unwrap();
    let (records, hook) = recorder();
    let client = builder(&stub.base_url()).on_response(hook).build().unwrap();
    let session = client.session(AccessToken::new("t", ACCESS_SECRET, Timestamp::now()));
    stub.enqueue(
        INVOICE,
        Reply::redirect(302, "http://127.0.0.1:9/elsewhere"),
    );

    session.get_invoice(9003).send().await.unwrap_err();

    let records = records.lock().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["status"], 302);
    assert_eq!(records[0]["body"], Value::Null);
}

#[tokio::test]
async fn a_recorder_of_the_whole_flow_never_holds_a_secret() {
    let fake = FakeMarketplace::start().await.unwrap();
    let (records, hook) = recorder();
    let client = fake.client_builder().on_response(hook).build().unwrap();
    let request = client.request_token(None).await.unwrap();
    let url = client.authorization_url(&request);
    let Authorization::Verifier(verifier) = fake
        .authorize(url.as_str(), "dwhitfield", true)
        .await
        .unwrap()
    else {
        panic!("no callback: the verifier is shown");
    };
    let verifier = marketplace_client::oauth::Verifier::new(&verifier).unwrap();
    let token = client.access_token(&request, &verifier).await.unwrap();
    let session = client.session(token.clone());
    session.get_invoice(1).send().await.unwrap_err(); // no such invoice: an error answer
    session
        .get_timesheets_for_bid(fake.world().hourly_workroom().bid_id)
        .send()
        .await
        .unwrap();
    session.revoke().await.unwrap();

    let records = records.lock().unwrap();
    let apis: Vec<&str> = records.iter().map(|r| r["api"].as_str().unwrap()).collect();
    assert_eq!(
        apis,
        [
            "oauth/getRequestToken",
            "oauth/getAccessToken",
            "pay/getInvoice",
            "pay/getTimesheetsForBid",
            "oauth/revokeToken"
        ]
    );
    let everything = serde_json::to_string(&*records).unwrap();
    for secret in [
        fake.credentials().consumer_secret.as_str(),
        request.secret.expose(),
        token.secret().expose(),
        verifier.as_str(),
    ] {
        assert!(!everything.contains(secret), "{secret:?} in {everything}");
    }
    // The token endpoints' answers are kept by structure, their secrets removed; the token
    // itself, which is no secret, stays.
    assert_eq!(records[1]["redacted"], true);
    assert!(records[1]["body"].as_str().unwrap().contains(token.token()));
    assert_eq!(records[3]["redacted"], false);
}

#[tokio::test]
async fn metadata_comes_from_the_response_and_the_envelope() {
    let fake = FakeMarketplace::start().await.unwrap();
    // The fake's clock 200 s ahead (within its tolerance of signed timestamps): the Date
    // header it sends says so.
    fake.clock().advance(SignedDuration::from_secs(200));
    let workroom = fake.world().hourly_workroom();
    let session = fake.session(workroom.client).unwrap();
    fake.faults().inject(
        Some(INVOICE),
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        1,
    );
    let invoice = workroom.invoices[0];

    let response = session
        .get_invoice(invoice)
        .customize(|options| {
            options.retry(RetryPolicy::default().base_delay(Duration::from_millis(5)))
        })
        .send_with_metadata()
        .await
        .unwrap();

    assert_eq!(response.data.invoice.id, invoice);
    let meta = &response.meta;
    assert_eq!(meta.status(), 200);
    // pay/getInvoice's envelope names pay/getBilling (the spec's delivered_api).
    assert_eq!(meta.api(), "pay/getBilling");
    assert_eq!(meta.api_version(), 1);
    assert_eq!(meta.attempts(), 2);
    assert!(meta.elapsed() > Duration::ZERO);
    let date = meta.date().unwrap();
    let ahead = date.duration_since(Timestamp::now()).as_secs();
    assert!((190..=210).contains(&ahead), "{date}: {ahead} s ahead");
    assert_eq!(
        meta.headers().get("content-type").unwrap(),
        "application/json"
    );
    let (data, _) = response.into_parts();
    assert_eq!(data.invoice.id, invoice);
}
