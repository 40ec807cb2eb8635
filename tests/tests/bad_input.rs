//! Every kind of bad input gets a clear, typed error that says what and where: response values
//! (the JSON path and the value), arguments (the method and the parameter), callback URLs.
//! Spec files are covered rule by rule in `codegen/tests/validation.rs`.

use marketplace_client::oauth::{AccessToken, RequestToken};
use marketplace_client::{
    Client, ConsumerCredentials, Envelope, Error, Secret, TimesheetList, decode,
};
use marketplace_tests::fixtures;

/// The list fixture with the first timesheet's `field` set to `value` (raw JSON).
fn timesheets_with(field: &str, value: &str) -> Vec<u8> {
    let mut body: serde_json::Value =
        serde_json::from_slice(&fixtures::read("pay/getTimesheetsForBid.json").unwrap()).unwrap();
    body["data"]["timesheets"]["0"][field] = serde_json::from_str(value).unwrap();
    serde_json::to_vec(&body).unwrap()
}

/// Decoding fails at `data.timesheets.0.<field>` with a message that quotes the value.
fn refused(field: &str, value: &str, says: &str) {
    let error = decode::<Envelope<TimesheetList>>(&timesheets_with(field, value))
        .expect_err(&format!("{field} = {value} must be refused"));
    assert_eq!(error.path, format!("data.timesheets.0.{field}"), "{value}");
    assert!(
        error.message.contains(says),
        "{field} = {value}: {}",
        error.message
    );
}

#[test]
fn invalid_dates_are_refused_with_their_path_and_value() {
    refused("week", r#""31-FEB-26""#, "31-FEB-26");
    refused("week", r#""5-JAN-26""#, "5-JAN-26");
    refused("week", r#""05-jan-26""#, "05-jan-26");
    refused("week", r#""05-JAN-2026""#, "05-JAN-2026");
    refused("week", r#""""#, "\"\"");
}

#[test]
fn epochs_beyond_the_representable_range_are_refused() {
    let mut body: serde_json::Value =
        serde_json::from_slice(&fixtures::read("pay/getTimesheet.json").unwrap()).unwrap();
    body["data"]["timesheet"]["startDate"] = serde_json::json!(99_999_999_999_999i64);
    let error = decode::<Envelope<marketplace_client::TimesheetDetails>>(
        &serde_json::to_vec(&body).unwrap(),
    )
    .unwrap_err();
    assert_eq!(error.path, "data.timesheet.startDate");
    assert!(
        error.message.contains("99999999999999"),
        "{}",
        error.message
    );
}

#[test]
fn malformed_numbers_are_refused_with_their_path_and_value() {
    refused("rate", r#""1,000.00""#, "1,000.00");
    refused("rate", r#"" 30.00""#, " 30.00");
    refused("rate", r#""30.00 ""#, "30.00 ");
    refused("rate", r#""3e1""#, "3e1");
    refused("rate", r#""""#, "\"\"");
    refused("bidId", r#""310 001""#, "310 001");
    refused("bidId", r#""-5""#, "-5");
    refused("totalHours", r#""twelve""#, "twelve");
}

#[test]
fn numbers_too_large_for_their_type_are_refused() {
    refused("bidId", r#""18446744073709551616""#, "too large");
    refused("bidId", "18446744073709551616", "too large");
    refused(
        "rate",
        r#""79228162514264337593543950336""#,
        "79228162514264337593543950336",
    );
    let mut body: serde_json::Value =
        serde_json::from_slice(&fixtures::read("pay/getTimesheetsForBid.json").unwrap()).unwrap();
    body["data"]["totalPages"] = serde_json::json!("18446744073709551616");
    let error = decode::<Envelope<TimesheetList>>(&serde_json::to_vec(&body).unwrap()).unwrap_err();
    assert_eq!(error.path, "data.totalPages");
    assert!(error.message.contains("too large"), "{}", error.message);
}

#[test]
fn bad_collections_are_refused_with_the_key() {
    let body = String::from_utf8(fixtures::read("pay/getTimesheetsForBid.json").unwrap()).unwrap();
    for (key, says) in [("01", "01"), ("-1", "-1"), ("first", "first")] {
        let bad = body.replacen("\"1\": {", &format!("\"{key}\": {{"), 1);
        let error = decode::<Envelope<TimesheetList>>(bad.as_bytes()).unwrap_err();
        assert_eq!(error.path, format!("data.timesheets.{key}"), "{key}");
        assert!(error.message.contains(says), "{key}: {}", error.message);
    }
}

fn session() -> marketplace_client::Session {
    let client = Client::builder(
        "https://marketplace.example",
        ConsumerCredentials::new("key", "secret"),
    )
    .build()
    .unwrap();
    client.session(AccessToken::new("token", "secret", jiff::Timestamp::now()))
}

#[tokio::test]
async fn bad_arguments_are_refused_before_any_request() {
    let session = session();
    let cases: Vec<(Error, &str)> = vec![
        (
            session
                .get_timesheets_for_bid(1)
                .rpp(0)
                .send()
                .await
                .unwrap_err(),
            "`rpp`: 0 is below the minimum 1",
        ),
        (
            session
                .get_timesheets_for_bid(1)
                .rpp(u64::MAX)
                .send()
                .await
                .unwrap_err(),
            "above the documented cap 25",
        ),
        (
            session
                .get_status_reports_for_bid(1)
                .page(0)
                .send()
                .await
                .unwrap_err(),
            "`page`: 0 is below the minimum 1",
        ),
        (
            session.get_my_providers().page(0).send().await.unwrap_err(),
            "`page`: 0 is below the minimum 1",
        ),
        (
            session
                .get_workview_details(1, 2)
                .rpp(11)
                .send()
                .await
                .unwrap_err(),
            "above the documented cap 10",
        ),
        (
            session.get_billing(0).send().await.unwrap_err(),
            "`id`: 0 is not an ID",
        ),
        (
            session
                .get_workview_details(1, 2)
                .date(jiff::civil::date(1999, 12, 31))
                .send()
                .await
                .unwrap_err(),
            "cannot be written as DD-MON-YY",
        ),
    ];
    for (error, says) in cases {
        assert!(matches!(error, Error::InvalidArgument { .. }), "{error}");
        assert!(error.to_string().contains(says), "{error}");
        assert!(
            error.to_string().contains(": invalid argument `"),
            "names the method: {error}"
        );
    }
}

#[test]
fn malformed_callback_urls_are_refused_with_the_reason() {
    let client = Client::builder(
        "https://marketplace.example",
        ConsumerCredentials::new("key", "secret"),
    )
    .build()
    .unwrap();
    let request = RequestToken {
        token: "request-token".to_owned(),
        secret: Secret::new("request-secret"),
        callback_confirmed: true,
    };
    for (url, says) in [
        ("", "is not a URL"),
        ("/relative/path?oauth_token=request-token", "is not a URL"),
        ("https://app.example/cb", "no oauth_token"),
        (
            "https://app.example/cb?oauth_token=request-token",
            "no oauth_verifier",
        ),
        (
            "https://app.example/cb?oauth_token=forged&oauth_verifier=v",
            "is not the request token",
        ),
        (
            "https://app.example/cb?oauth_token=request-token&oauth_verifier=",
            "empty",
        ),
        (
            "https://app.example/cb?oauth_verifier=a&oauth_verifier=b&oauth_token=request-token",
            "more than once",
        ),
    ] {
        let error = client.verifier_from_callback(&request, url).unwrap_err();
        assert!(matches!(error, Error::Callback { .. }), "{url}: {error}");
        assert!(error.to_string().contains(says), "{url}: {error}");
    }
    let error = futures::executor::block_on(client.request_token(Some("no scheme"))).unwrap_err();
    assert!(error.to_string().contains("`oauth_callback`"), "{error}");
}

#[test]
fn callbacks_with_user_info_are_refused_without_showing_it() {
    let client = Client::builder(
        "https://marketplace.example",
        ConsumerCredentials::new("key", "secret"),
    )
    .build()
    .unwrap();
    for (callback, says) in [
        ("myapp://user:hunter2@app/cb", "user name or password"),
        ("https://tok3n@app.example/cb", "user name or password"),
        // A parser reads a host and a path here; a reader, user info.
        ("https://us/er:hunter2@app.example/cb", "`%40`"),
        ("myapp://app/cb?state=hunter2\u{7}", "control character"),
        // A bidirectional control reorders what the user reads; the verifier's rule.
        ("myapp://app/cb?state=hunter2\u{202e}", "U+202E"),
        ("myapp://app/\u{2066}cb", "U+2066"),
    ] {
        let error = futures::executor::block_on(client.request_token(Some(callback))).unwrap_err();
        let shown = format!("{error} {error:?}");
        assert!(matches!(error, Error::InvalidArgument { .. }), "{shown}");
        assert!(shown.contains(says), "{callback}: {shown}");
        assert!(
            !shown.contains("hunter2") && !shown.contains("tok3n"),
            "{shown}"
        );
    }
}

#[test]
fn bad_configuration_is_refused_when_building() {
    for (url, says) in [
        ("", "base URL"),
        ("marketplace.example", "base URL"),
        ("mailto:someone@example.com", "http or https"),
        ("https://marketplace.example/#top", "fragment"),
        (
            "https://user:hunter2@marketplace.example/",
            "user name or password",
        ),
        (
            "https://hunter2@marketplace.example/",
            "user name or password",
        ),
        (
            "https://us/er:hunter2@marketplace.example/",
            "user name or password",
        ),
        ("https://marketplace.example/?api_key=hunter2", "query"),
        ("https://user:hunter2@market place.example/", "not a URL"),
    ] {
        let builder = Client::builder(url, ConsumerCredentials::new("key", "secret"));
        // Refused when the builder is made: neither it nor its error keeps the credential.
        let shown = format!("{builder:?}");
        let error = builder.build().unwrap_err();
        assert!(error.to_string().contains(says), "{url}: {error}");
        let shown = format!("{shown} {error} {error:?}");
        assert!(!shown.contains("hunter2"), "{url}: {shown}");
    }
    let error = Client::builder(
        "https://marketplace.example",
        ConsumerCredentials::new("", "secret"),
    )
    .build()
    .unwrap_err();
    assert!(
        error.to_string().contains("consumer key is empty"),
        "{error}"
    );
}
