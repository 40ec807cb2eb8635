//! Error bodies in every shape, at the stub level: each shape the fake can answer in, plus
//! hand-written variants, sent by the scripted stub to a data call and to the token endpoints.
//! Every consumer of the error code works in each: `Error::code()`, the listed errors, the
//! signature-mismatch detection and the clock-skew retry.

use std::time::Duration;

use jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, Verifier};
use marketplace_client::{ApiFailure, Client, Error, ErrorCode};
use marketplace_tests::fake::{ErrorShape, ServiceError};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};

const TIMESHEET: &str = "/api/pay/getTimesheet";

async fn start() -> (StubServer, Client) {
    let stub = StubServer::start().await.unwrap();
    let client = stub.client();
    (stub, client)
}

fn session(client: &Client) -> marketplace_client::Session {
    client.session(AccessToken::new("token", "token-secret", Timestamp::now()))
}

/// A reply in `shape` for `error`.
fn reply(error: &ServiceError, shape: ErrorShape) -> Reply {
    let (status, content_type, body) = error.render(shape);
    Reply::text(status, content_type, body)
}

fn invalid_id() -> ServiceError {
    ServiceError::new(
        "pay/getTimesheet",
        400,
        "E_VALIDATION_INVALID_ID",
        "validation",
        "Invalid timesheet id 999",
    )
}

fn mismatch(api: &str) -> ServiceError {
    ServiceError::new(
        api,
        401,
        "E_API_AUTH_SIGNATURE_MISMATCH",
        "authentication",
        "signature mismatch",
    )
}

fn assert_mismatch(error: &Error, shape: ErrorShape) {
    assert_eq!(
        ErrorCode::of(error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{shape:?}: {error}"
    );
}

/// Whether the shape carries the message in a structure (not in text or HTML).
fn has_message(shape: ErrorShape) -> bool {
    !matches!(shape, ErrorShape::Text | ErrorShape::Html)
}

fn failure(error: &Error) -> &ApiFailure {
    match error {
        Error::Api { failure, .. } => failure,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_data_call_reads_the_code_message_and_every_error_in_each_shape() {
    for shape in ErrorShape::ALL {
        let (stub, client) = start().await;
        let error = invalid_id();
        stub.enqueue(TIMESHEET, reply(&error, shape));
        let result = session(&client).get_timesheet_by_id(999).send().await;
        let error = result.expect_err("an error");
        assert_eq!(
            ErrorCode::of(&error),
            Some(ErrorCode::ValidationInvalidId),
            "{shape:?}: {error}"
        );
        let expected_status = if shape == ErrorShape::RcodeWithData {
            200
        } else {
            400
        };
        assert_eq!(error.status(), Some(expected_status), "{shape:?}");
        let read = failure(&error);
        if has_message(shape) {
            assert_eq!(
                read.message.as_deref(),
                Some("Invalid timesheet id 999"),
                "{shape:?}"
            );
        }
        let codes: Vec<ErrorCode> = read
            .errors
            .iter()
            .filter_map(|e| e.code.as_ref().map(ErrorCode::from))
            .collect();
        assert_eq!(codes, [ErrorCode::ValidationInvalidId], "{shape:?}");
        if shape == ErrorShape::ErrorsArray {
            assert_eq!(read.errors.len(), 2, "every listed entry is kept");
            assert_eq!(read.errors[0].kind.as_deref(), Some("validation"));
            assert_eq!(read.errors[1].kind.as_deref(), Some("request"));
        }
        assert!(
            error.to_string().contains("E_VALIDATION_INVALID_ID"),
            "{shape:?}: {error}"
        );
    }
}

#[tokio::test]
async fn hand_written_variants_are_read_too() {
    let bodies = [
        // A list keyed "0", "1", … as the service writes its collections.
        r#"{"errors": {"0": {"code": "E_VALIDATION_INVALID_ID", "message": "m"}, "1": {"code": "E_OTHER"}}}"#,
        // rcode as a string, the code two levels down.
        r#"{"rcode": "0", "data": {"error": {"code": "E_VALIDATION_INVALID_ID"}}}"#,
        // An escaped key and value.
        r#"{"error": {"c\u006fde": "E_VALIDATION_\u0049NVALID_ID"}}"#,
        // A bare list of codes.
        r#"["E_VALIDATION_INVALID_ID", "E_OTHER"]"#,
        // Only a word in a sentence, as a proxy might pass it on.
        "Request failed (E_VALIDATION_INVALID_ID). Try again later.",
    ];
    for body in bodies {
        let (stub, client) = start().await;
        stub.enqueue(TIMESHEET, Reply::text(400, "text/plain", body));
        let error = session(&client)
            .get_timesheet_by_id(999)
            .send()
            .await
            .unwrap_err();
        assert_eq!(
            ErrorCode::of(&error),
            Some(ErrorCode::ValidationInvalidId),
            "{body}: {error}"
        );
    }
}

#[tokio::test]
async fn the_token_endpoints_read_errors_in_each_shape() {
    for shape in ErrorShape::ALL {
        let (stub, client) = start().await;
        stub.enqueue(
            "/oauth/getRequestToken",
            reply(&mismatch("oauth/getRequestToken"), shape),
        );
        let error = client.request_token(None).await.unwrap_err();
        assert_mismatch(&error, shape);

        stub.enqueue(
            "/oauth/getRequestToken",
            Reply::text(
                200,
                "application/x-www-form-urlencoded",
                "oauth_token=req&oauth_token_secret=req-secret&oauth_callback_confirmed=true",
            ),
        );
        let request = client.request_token(None).await.unwrap();
        stub.enqueue(
            "/oauth/getAccessToken",
            reply(&mismatch("oauth/getAccessToken"), shape),
        );
        let error = client
            .access_token(&request, &Verifier::new("v").unwrap())
            .await
            .unwrap_err();
        assert_mismatch(&error, shape);

        stub.enqueue(
            "/oauth/revokeToken",
            reply(&mismatch("oauth/revokeToken"), shape),
        );
        let error = session(&client).revoke().await.unwrap_err();
        assert_mismatch(&error, shape);
    }
}

#[tokio::test]
async fn a_token_answer_in_json_is_accepted() {
    let (stub, client) = start().await;
    stub.enqueue(
        "/oauth/getRequestToken",
        Reply::json(
            200,
            r#"{"oauth_token": "req", "oauth_token_secret": "s", "oauth_callback_confirmed": true}"#,
        ),
    );
    let request = client.request_token(None).await.unwrap();
    assert_eq!(request.token, "req");
    assert!(request.callback_confirmed);
}

fn http_date(at: Timestamp) -> String {
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&at)
        .unwrap()
}

fn timestamp(request: &RecordedRequest) -> i64 {
    let header = request.header("authorization").unwrap();
    marketplace_client::oauth::signature::parse_authorization_header(header)
        .unwrap()
        .into_iter()
        .find(|(name, _)| name == "oauth_timestamp")
        .unwrap()
        .1
        .parse()
        .unwrap()
}

#[tokio::test]
async fn the_clock_skew_retry_works_in_each_shape() {
    let body = String::from_utf8(fixtures::read("pay/getTimesheet.json").unwrap()).unwrap();
    for shape in ErrorShape::ALL {
        let (stub, client) = start().await;
        let server_now = Timestamp::now()
            .checked_add(jiff::SignedDuration::from_hours(1))
            .unwrap();
        stub.enqueue(
            TIMESHEET,
            reply(&mismatch("pay/getTimesheet"), shape).header("Date", &http_date(server_now)),
        );
        stub.enqueue(TIMESHEET, Reply::json(200, body.clone()));
        let details = session(&client).get_timesheet_by_id(880104).send().await;
        assert!(details.is_ok(), "{shape:?}: {details:?}");
        let requests = stub.requests();
        assert_eq!(requests.len(), 2, "{shape:?}");
        assert!(
            (timestamp(&requests[1]) - server_now.as_second()).abs() < 30,
            "{shape:?}: retried on the service's clock"
        );
    }
}

#[tokio::test]
async fn a_mismatch_without_skew_is_not_retried_in_any_shape() {
    for shape in ErrorShape::ALL {
        let (stub, client) = start().await;
        stub.fallback(
            TIMESHEET,
            reply(&mismatch("pay/getTimesheet"), shape)
                .header("Date", &http_date(Timestamp::now())),
        );
        let error = session(&client)
            .get_timesheet_by_id(1)
            .customize(|options| options.deadline(Duration::from_secs(5)))
            .send()
            .await
            .unwrap_err();
        assert_mismatch(&error, shape);
        assert_eq!(stub.requests().len(), 1, "{shape:?}");
    }
}
