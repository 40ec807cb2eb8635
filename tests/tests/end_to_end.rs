//! The client against the fake marketplace over real HTTPS: the whole OAuth flow, every data
//! method, every item of every paged method through its stream, every documented error of
//! every method (and of the OAuth endpoints) in every error shape, revocation and expiry, and
//! every fault.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use futures::TryStreamExt;
use jiff::SignedDuration;
use marketplace_client::oauth::signature::{self, OAuthParams, SignatureRequest, SigningKey};
use marketplace_client::oauth::{AccessToken, Verifier};
use marketplace_client::{
    ApiFailure, Client, ConsumerCredentials, Error, ErrorCode, RawErrorCode, ReportStatus,
    RetryPolicy, Session,
};
use marketplace_tests::fake::{Authorization, ErrorShape, FakeMarketplace, Fault};

const HOURLY_BID: u64 = 310001;
const FIXED_BID: u64 = 310002;
const SCREENS_BID: u64 = 310003;
const SCREENS_USER: u64 = 50003;
const OTHER_CLIENTS_BID: u64 = 320001;

fn client(fake: &FakeMarketplace) -> Client {
    let demo = fake.credentials();
    Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&demo.consumer_key, &demo.consumer_secret),
    )
    .http_client(fake.http_client())
    .retry(
        RetryPolicy::default()
            .max_attempts(3)
            .base_delay(Duration::from_millis(10))
            .max_delay(Duration::from_millis(50))
            .max_retry_after(Duration::from_secs(5)),
    )
    .build()
    .unwrap()
}

async fn start() -> (FakeMarketplace, Client, Session) {
    let fake = FakeMarketplace::start().await.unwrap();
    let client = client(&fake);
    let session = fake.sign_in(&client, "dwhitfield").await.unwrap();
    (fake, client, session)
}

fn code(error: &Error) -> Option<ErrorCode> {
    ErrorCode::of(error)
}

// ---- OAuth --------------------------------------------------------------------------------------

#[tokio::test]
async fn the_flow_with_a_callback_over_https() {
    let (fake, _client, session) = start().await;
    assert!(fake.base_url().starts_with("https://"));
    let list = session
        .get_timesheets_for_bid(HOURLY_BID)
        .send()
        .await
        .unwrap();
    assert_eq!(list.bid_details.bid_id, HOURLY_BID);
}

#[tokio::test]
async fn the_fake_gets_the_normalized_callback_and_verifies_its_signature() {
    let fake = FakeMarketplace::start().await.unwrap();
    let client = client(&fake);
    // Accepted at all means the fake verified the signature over the value it received.
    let request = client
        .request_token(Some("E2E://Callback.Example:443/a/../done?x=a b"))
        .await
        .unwrap();
    let url = client.authorization_url(&request);
    let Authorization::Callback(callback) = fake
        .authorize(url.as_str(), "dwhitfield", true)
        .await
        .unwrap()
    else {
        panic!("expected a redirect to the callback");
    };
    let stored = callback.as_str();
    assert!(
        stored.starts_with("e2e://Callback.Example:443/done?x=a%20b&oauth_token="),
        "{stored}"
    );
    let verifier = client.verifier_from_callback(&request, stored).unwrap();
    client.access_token(&request, &verifier).await.unwrap();
}

#[tokio::test]
async fn the_flow_without_a_callback_shows_a_verifier_to_type_in() {
    let fake = FakeMarketplace::start().await.unwrap();
    let client = client(&fake);
    let request = client.request_token(None).await.unwrap();
    let url = client.authorization_url(&request);
    let Authorization::Verifier(shown) = fake
        .authorize(url.as_str(), "dwhitfield", true)
        .await
        .unwrap()
    else {
        panic!("expected a verifier page");
    };
    let verifier = Verifier::new(&format!("  {shown}\n")).unwrap();
    let session = client.session(client.access_token(&request, &verifier).await.unwrap());
    session.get_my_providers().send().await.unwrap();
}

#[tokio::test]
async fn a_denied_request_token_gets_no_access_token() {
    let fake = FakeMarketplace::start().await.unwrap();
    let client = client(&fake);
    let request = client.request_token(Some("e2e://callback")).await.unwrap();
    let url = client.authorization_url(&request);
    let outcome = fake
        .authorize(url.as_str(), "dwhitfield", false)
        .await
        .unwrap();
    assert!(matches!(outcome, Authorization::Denied), "{outcome:?}");
    let guessed = Verifier::new("guessed").unwrap();
    let error = client.access_token(&request, &guessed).await.unwrap_err();
    assert_eq!(
        code(&error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{error}"
    );
}

#[tokio::test]
async fn a_request_token_is_discarded_after_the_exchange() {
    let fake = FakeMarketplace::start().await.unwrap();
    let client = client(&fake);
    let request = client.request_token(Some("e2e://callback")).await.unwrap();
    let url = client.authorization_url(&request);
    let Authorization::Callback(callback) = fake
        .authorize(url.as_str(), "dwhitfield", true)
        .await
        .unwrap()
    else {
        panic!("expected a redirect");
    };
    let verifier = client
        .verifier_from_callback(&request, callback.as_str())
        .unwrap();
    client.access_token(&request, &verifier).await.unwrap();
    let error = client.access_token(&request, &verifier).await.unwrap_err();
    assert_eq!(
        code(&error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{error}"
    );
}

#[tokio::test]
async fn a_wrong_consumer_secret_is_a_signature_mismatch() {
    let fake = FakeMarketplace::start().await.unwrap();
    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&fake.credentials().consumer_key, "not-the-secret"),
    )
    .http_client(fake.http_client())
    .build()
    .unwrap();
    let error = client.request_token(None).await.unwrap_err();
    assert_eq!(
        code(&error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{error}"
    );
    assert_eq!(error.status(), Some(401));
}

#[tokio::test]
async fn plain_http_oauth_is_refused_by_the_client() {
    let fake = FakeMarketplace::start_plain_http().await.unwrap();
    let demo = fake.credentials();
    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&demo.consumer_key, &demo.consumer_secret),
    )
    .build()
    .unwrap();
    let error = client.request_token(None).await.unwrap_err();
    assert!(matches!(error, Error::Config { .. }), "{error}");
    assert_eq!(fake.requests_served(), 0);
}

#[tokio::test]
async fn revocation_ends_the_token_at_once() {
    let (_fake, _client, session) = start().await;
    session
        .get_invoice(first_invoice(&session).await)
        .send()
        .await
        .unwrap();
    session.revoke().await.unwrap();
    let error = session.get_my_providers().send().await.unwrap_err();
    assert_eq!(
        code(&error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{error}"
    );
}

#[tokio::test]
async fn expiry_after_six_hours() {
    let (fake, _client, session) = start().await;
    session.get_my_providers().send().await.unwrap();
    // A minute past the lifetime: the Date header that corrects the client's clock has
    // one-second resolution, so exactly six hours could still look valid to the client.
    fake.clock().advance(SignedDuration::from_mins(6 * 60 + 1));
    // The service refuses the expired token; its Date header moves the client's clock on.
    let error = session.get_my_providers().send().await.unwrap_err();
    assert_eq!(
        code(&error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{error}"
    );
    // From then on the client knows the token expired and sends nothing.
    let served = fake.requests_served();
    let error = session.get_my_providers().send().await.unwrap_err();
    assert!(matches!(error, Error::TokenExpired { .. }), "{error}");
    assert_eq!(fake.requests_served(), served);
}

// ---- every data method and every item of every stream --------------------------------------

async fn first_invoice(session: &Session) -> u64 {
    let sheets: Vec<_> = session
        .get_timesheets_for_bid(HOURLY_BID)
        .items()
        .try_collect()
        .await
        .unwrap();
    sheets
        .iter()
        .find_map(|s| s.invoice_id)
        .expect("an invoiced timesheet")
}

#[tokio::test]
async fn timesheets_every_item_through_the_stream() {
    let (_fake, _client, session) = start().await;
    let first = session
        .get_timesheets_for_bid(HOURLY_BID)
        .send()
        .await
        .unwrap();
    assert!(first.total_pages > 1, "spans several pages");
    let sheets: Vec<_> = session
        .get_timesheets_for_bid(HOURLY_BID)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(sheets.len() as u64, first.total_results);
    let ids: BTreeSet<u64> = sheets.iter().map(|s| s.id).collect();
    assert_eq!(ids.len(), sheets.len(), "each once");
    assert!(sheets.iter().any(|s| s.status == ReportStatus::Draft));
    for sheet in sheets.iter().filter(|s| s.status == ReportStatus::Sent) {
        assert!(sheet.submit_date.is_some(), "{}", sheet.id);
    }
    // At the cap, fewer pages.
    let pages: Vec<_> = session
        .get_timesheets_for_bid(HOURLY_BID)
        .rpp(25)
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        pages.iter().map(|p| p.timesheets.len()).sum::<usize>(),
        sheets.len()
    );
}

#[tokio::test]
async fn status_reports_every_item_through_the_stream() {
    let (_fake, _client, session) = start().await;
    let first = session
        .get_status_reports_for_bid(FIXED_BID)
        .send()
        .await
        .unwrap();
    let reports: Vec<_> = session
        .get_status_reports_for_bid(FIXED_BID)
        .rpp(5)
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(reports.len() as u64, first.total_results);
    assert!(reports.len() > 5);
    assert_eq!(
        reports.iter().filter(|r| r.id.is_none()).count(),
        1,
        "one unstored draft"
    );
}

#[tokio::test]
async fn providers_every_item_through_the_stream() {
    let (_fake, _client, session) = start().await;
    let first = session.get_my_providers().send().await.unwrap();
    assert!(first.total_pages > 1);
    let agents: Vec<_> = session
        .get_my_providers()
        .items()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(agents.len() as u64, first.total_results);
    let users: BTreeSet<u64> = agents.iter().map(|a| a.screen_data.user_id).collect();
    assert_eq!(users.len(), agents.len());
    assert!(first.job_name.is_none());
    let one = session
        .get_my_providers()
        .bid_id(HOURLY_BID)
        .send()
        .await
        .unwrap();
    assert_eq!(one.agents.len(), 1);
    assert!(one.job_name.is_some());
}

#[tokio::test]
async fn workview_every_bucket_of_every_day_through_the_stream() {
    let (_fake, _client, session) = start().await;
    let newest = session
        .get_workview_details(SCREENS_BID, SCREENS_USER)
        .send()
        .await
        .unwrap();
    assert_eq!(newest.next_date, None, "the newest day has no next day");
    let mut day = Some(newest.date);
    let mut largest = 0;
    let mut days = 0;
    while let Some(date) = day {
        let buckets: Vec<_> = session
            .get_workview_details(SCREENS_BID, SCREENS_USER)
            .date(date)
            .items()
            .try_collect()
            .await
            .unwrap();
        let titles: BTreeSet<&str> = buckets.iter().map(|b| b.title.as_str()).collect();
        assert_eq!(titles.len(), buckets.len(), "each bucket once on {date}");
        largest = largest.max(buckets.len());
        days += 1;
        day = session
            .get_workview_details(SCREENS_BID, SCREENS_USER)
            .date(date)
            .send()
            .await
            .unwrap()
            .prev_date;
    }
    assert!(days >= 3, "navigated {days} days");
    assert!(largest > 6, "a day spans more than one page of buckets");
}

#[tokio::test]
async fn single_records_billing_invoices_and_payments() {
    let (_fake, _client, session) = start().await;
    let current = session
        .get_timesheet_by_bid_id(HOURLY_BID)
        .send()
        .await
        .unwrap();
    assert_eq!(current.timesheet.status, ReportStatus::Draft);
    let by_id = session
        .get_timesheet_by_id(current.timesheet.id)
        .send()
        .await
        .unwrap();
    assert_eq!(by_id.timesheet.id, current.timesheet.id);

    let draft = session
        .get_status_report_by_bid_id(FIXED_BID)
        .send()
        .await
        .unwrap();
    assert_eq!(draft.status_report.id, None);
    let reports: Vec<_> = session
        .get_status_reports_for_bid(FIXED_BID)
        .items()
        .try_collect()
        .await
        .unwrap();
    let stored = reports.iter().find_map(|r| r.id).unwrap();
    let report = session
        .get_status_report_by_id(stored)
        .send()
        .await
        .unwrap();
    assert_eq!(report.status_report.id, Some(stored));

    let invoice_id = first_invoice(&session).await;
    let billing = session
        .get_billing(invoice_id)
        .send()
        .await
        .unwrap()
        .billing;
    assert_eq!(billing.invoice.id, invoice_id);
    let summary = session.get_invoice(invoice_id).send().await.unwrap();
    assert_eq!(summary.invoice, billing.invoice);
    let payment_id = *billing.invoice.payment_ids.first().expect("a payment");
    let payment = session
        .get_payment(payment_id)
        .send()
        .await
        .unwrap()
        .payment;
    assert_eq!(payment.invoice_id, invoice_id);
    assert!(billing.payments.contains(&payment));
}

// ---- documented errors, in every shape --------------------------------------------------------

/// Every (method, code) pair the spec documents (`Api::errors_of`: a method's `errors:`, and
/// every code that names no method).
fn documented_errors() -> BTreeSet<(String, String)> {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    let sources = marketplace_codegen::load_spec_dir(&spec, "spec").unwrap();
    let api = marketplace_codegen::resolve(&sources).unwrap();
    api.methods
        .iter()
        .flat_map(|method| {
            api.error_codes_of(method)
                .map(|code| (method.name.clone(), code.to_owned()))
        })
        .collect()
}

/// Provokes `code` from `method` through the typed API: with `session` for the data errors,
/// with `forged` (a wrong token secret) for the signature mismatch. `None` when there is no way
/// (a new documented error needs a scenario here).
async fn provoke(
    session: &Session,
    forged: &Session,
    method: &str,
    code: &str,
) -> Option<Result<(), Error>> {
    let done = |result: Result<(), Error>| Some(result);
    const MISMATCH: &str = "E_API_AUTH_SIGNATURE_MISMATCH";
    let s = if code == MISMATCH { forged } else { session };
    let workview = |bid: u64, user: u64| async move {
        s.get_workview_details(bid, user).send().await.map(drop)
    };
    match (method, code) {
        ("pay/getTimesheetsForBid", MISMATCH) => {
            done(s.get_timesheets_for_bid(HOURLY_BID).send().await.map(drop))
        }
        ("pay/getStatusReportsForBid", MISMATCH) => done(
            s.get_status_reports_for_bid(FIXED_BID)
                .send()
                .await
                .map(drop),
        ),
        ("pay/getTimesheet", MISMATCH) => {
            done(s.get_timesheet_by_bid_id(HOURLY_BID).send().await.map(drop))
        }
        ("pay/getTimesheet", "E_VALIDATION_INVALID_ID") => {
            done(s.get_timesheet_by_id(999_999).send().await.map(drop))
        }
        ("pay/getStatusReport", MISMATCH) => done(
            s.get_status_report_by_bid_id(FIXED_BID)
                .send()
                .await
                .map(drop),
        ),
        ("pay/getStatusReport", "E_VALIDATION_INVALID_ID") => done(
            s.get_status_report_by_bid_id(OTHER_CLIENTS_BID)
                .send()
                .await
                .map(drop),
        ),
        ("pay/getTimesheetsForBid", "E_VALIDATION_INVALID_ID") => done(
            s.get_timesheets_for_bid(OTHER_CLIENTS_BID)
                .send()
                .await
                .map(drop),
        ),
        ("pay/getStatusReportsForBid", "E_VALIDATION_INVALID_ID") => done(
            s.get_status_reports_for_bid(OTHER_CLIENTS_BID)
                .send()
                .await
                .map(drop),
        ),
        ("pay/getBilling", "E_VALIDATION_INVALID_ID") => {
            done(s.get_billing(999_999).send().await.map(drop))
        }
        ("pay/getInvoice", "E_VALIDATION_INVALID_ID") => {
            done(s.get_invoice(999_999).send().await.map(drop))
        }
        ("pay/getPayment", "E_VALIDATION_INVALID_ID") => {
            done(s.get_payment(999_999).send().await.map(drop))
        }
        ("pay/getBilling", MISMATCH) => done(s.get_billing(1).send().await.map(drop)),
        ("pay/getInvoice", MISMATCH) => done(s.get_invoice(1).send().await.map(drop)),
        ("pay/getPayment", MISMATCH) => done(s.get_payment(1).send().await.map(drop)),
        ("manage/getMyProviders", MISMATCH) => done(s.get_my_providers().send().await.map(drop)),
        ("manage/getMyProviders", "E_VALIDATION_INVALID_ID") => done(
            s.get_my_providers()
                .bid_id(OTHER_CLIENTS_BID)
                .send()
                .await
                .map(drop),
        ),
        ("workroom/getWorkviewDetails", MISMATCH) => {
            done(workview(SCREENS_BID, SCREENS_USER).await)
        }
        ("workroom/getWorkviewDetails", "E_API_NOT_AUTHORIZED") => {
            done(workview(OTHER_CLIENTS_BID, 50004).await)
        }
        ("workroom/getWorkviewDetails", "E_WORKROOM_INVALID_BID") => {
            done(workview(999_999, SCREENS_USER).await)
        }
        ("workroom/getWorkviewDetails", "E_WORKROOM_BID_ACCESS") => {
            done(workview(SCREENS_BID, 50001).await)
        }
        _ => None,
    }
}

/// E_VALIDATION_INVALID_ID_BIDID cannot be sent through the typed API (each constructor sets
/// id or bidId): a signed GET without either, straight to the fake, read with the client's
/// reader. Returns the status and what the body says.
async fn without_id_or_bid(
    fake: &FakeMarketplace,
    session: &Session,
    path: &str,
) -> (u16, ApiFailure) {
    let url = url::Url::parse(&format!("{}{path}", fake.base_url())).unwrap();
    let header = signature::authorization_header(
        &SignatureRequest {
            method: "GET",
            url: &url,
            form: &[],
        },
        &OAuthParams {
            consumer_key: &fake.credentials().consumer_key,
            token: Some(session.token().token()),
            nonce: &signature::nonce().unwrap(),
            timestamp: fake.clock().now().as_second(),
            callback: None,
            verifier: None,
            version: Some("1.0"),
        },
        &SigningKey {
            consumer_secret: &fake.credentials().consumer_secret,
            token_secret: session.token().secret().expose(),
        },
    );
    let response = fake
        .http_client()
        .get(url)
        .header(reqwest::header::AUTHORIZATION, header)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.bytes().await.unwrap();
    let failure = ApiFailure::parse(&body)
        .unwrap_or_else(|| panic!("no error read from {}", String::from_utf8_lossy(&body)));
    (status, failure)
}

/// Checks what the client read of one documented error in `shape`.
fn check_read(
    shape: ErrorShape,
    what: &str,
    wanted: &str,
    status: Option<u16>,
    failure: &ApiFailure,
) {
    assert_eq!(
        failure.code.as_ref().map(RawErrorCode::as_str),
        Some(wanted),
        "{shape:?} {what}: {failure}"
    );
    match shape {
        ErrorShape::RcodeWithData => assert_eq!(status, Some(200), "{shape:?} {what}"),
        _ => assert!(
            status.is_some_and(|status| (400..500).contains(&status)),
            "{shape:?} {what}: {status:?}"
        ),
    }
    let listed = if shape == ErrorShape::ErrorsArray {
        2
    } else {
        1
    };
    assert_eq!(
        failure.errors.len(),
        listed,
        "{shape:?} {what}: {failure:?}"
    );
    if !matches!(shape, ErrorShape::Text | ErrorShape::Html) {
        assert!(failure.message.is_some(), "{shape:?} {what}: {failure:?}");
    }
}

fn api_failure(error: &Error) -> &ApiFailure {
    match error {
        Error::Api { failure, .. } => failure,
        other => panic!("expected an API error, got {other}"),
    }
}

#[tokio::test]
async fn every_documented_error_of_every_method_in_every_error_shape() {
    let (fake, client, session) = start().await;
    let documented = documented_errors();
    assert!(documented.len() >= 15, "{documented:?}");
    let token = session.token();
    let forged = client.session(AccessToken::new(
        token.token(),
        "not-the-secret",
        token.granted_at(),
    ));
    let demo = fake.credentials();
    let wrong_consumer = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&demo.consumer_key, "not-the-secret"),
    )
    .http_client(fake.http_client())
    .build()
    .unwrap();
    let mismatch = ErrorCode::ApiAuthSignatureMismatch.as_str();
    for shape in ErrorShape::ALL {
        fake.set_error_shape(shape);
        for (method, code) in &documented {
            let what = format!("{method} {code}");
            if code == "E_VALIDATION_INVALID_ID_BIDID" {
                let path = format!("/api/{method}");
                let (status, failure) = without_id_or_bid(&fake, &session, &path).await;
                check_read(shape, &what, code, Some(status), &failure);
                continue;
            }
            let outcome = provoke(&session, &forged, method, code)
                .await
                .unwrap_or_else(|| panic!("no scenario provokes {what}: add one to provoke()"));
            let error = outcome.expect_err(&what);
            assert_eq!(
                error.code().map(RawErrorCode::as_str),
                Some(code.as_str()),
                "{shape:?} {what}: {error}"
            );
            check_read(shape, &what, code, error.status(), api_failure(&error));
        }

        // The OAuth endpoints answer their errors in the same shape.
        let error = wrong_consumer.request_token(None).await.unwrap_err();
        check_read(
            shape,
            "oauth/getRequestToken",
            mismatch,
            error.status(),
            api_failure(&error),
        );
        let request = client.request_token(None).await.unwrap();
        let unapproved = Verifier::new("never-approved").unwrap();
        let error = client
            .access_token(&request, &unapproved)
            .await
            .unwrap_err();
        check_read(
            shape,
            "oauth/getAccessToken",
            mismatch,
            error.status(),
            api_failure(&error),
        );
        let error = forged.revoke().await.unwrap_err();
        check_read(
            shape,
            "oauth/revokeToken",
            mismatch,
            error.status(),
            api_failure(&error),
        );

        // A skewed clock is still corrected from the mismatch, whatever its shape (a fresh
        // client, which has not corrected its clock yet).
        fake.clock().set_offset(SignedDuration::from_mins(10));
        let fresh = self::client(&fake).session(session.token().clone());
        let corrected = fresh.get_my_providers().send().await;
        fake.clock().set_offset(SignedDuration::ZERO);
        assert!(corrected.is_ok(), "{shape:?}: {corrected:?}");
    }
    // The session itself was never refused.
    fake.set_error_shape(ErrorShape::default());
    session.get_my_providers().send().await.unwrap();
}

// ---- faults -------------------------------------------------------------------------------------

#[tokio::test]
async fn each_fault_ends_in_a_successful_retry_or_a_typed_error() {
    let (fake, _client, session) = start().await;
    let path = Some("/api/manage/getMyProviders");
    let call = || session.get_my_providers().send();

    fake.faults()
        .inject(path, Fault::Latency(Duration::from_millis(200)), 1);
    call().await.unwrap();

    fake.faults().inject(
        path,
        Fault::Status {
            status: 503,
            retry_after: Some(1),
        },
        1,
    );
    call().await.unwrap();

    fake.faults().inject(path, Fault::Reset, 1);
    call().await.unwrap();

    fake.faults().inject(path, Fault::Truncated, 1);
    call().await.unwrap();

    fake.faults()
        .inject(path, Fault::HtmlErrorPage { status: 502 }, 1);
    call().await.unwrap();

    // A JSON body under the wrong content type still decodes.
    fake.faults().inject(path, Fault::WrongContentType, 1);
    call().await.unwrap();

    fake.faults().inject(path, Fault::Rcode(2), 1);
    let error = call().await.unwrap_err();
    assert!(
        matches!(&error, Error::Api { failure, .. } if failure.rcode == Some(2)),
        "{error}"
    );

    fake.faults().inject(
        path,
        Fault::Status {
            status: 500,
            retry_after: None,
        },
        3,
    );
    let error = call().await.unwrap_err();
    assert_eq!(error.status(), Some(500), "{error}");

    fake.faults()
        .inject(path, Fault::HtmlErrorPage { status: 502 }, 3);
    let error = call().await.unwrap_err();
    assert!(
        matches!(&error, Error::Status { status: 502, body, .. } if body.contains("<html")),
        "{error}"
    );

    fake.faults().inject(path, Fault::Reset, 3);
    let error = call().await.unwrap_err();
    assert!(matches!(error, Error::Transport { .. }), "{error}");

    fake.faults().clear();
    call().await.unwrap();
}

#[tokio::test]
async fn a_skewed_server_clock_is_corrected_and_the_call_succeeds() {
    let (fake, _client, session) = start().await;
    fake.clock().set_offset(SignedDuration::from_mins(10));
    session.get_my_providers().send().await.unwrap();
    session.get_my_providers().send().await.unwrap();
}
