//! Redaction by structure, as a property: random secrets holding every reserved character
//! (and quotes, backslashes, spaces, `%`, non-ASCII) are placed in the error responses of the
//! scripted stub, in JSON bodies (under escaped keys, as escaped values, at any depth) and in
//! form bodies (percent-encoded names and values, `+` for spaces), and never appear in any
//! error's `Display`, `Debug` or kept body, in any encoding.
//!
//! Three secrets per case: the consumer secret and the token secret, which the client holds
//! (scrubbed by value wherever they appear), and a secret of the server's, which the client
//! does not know (removed by its key, `oauth_token_secret` and the like).

use std::time::Duration;

use jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, RequestToken, Verifier};
use marketplace_client::{Client, ConsumerCredentials, Error, RetryPolicy, Secret};
use marketplace_tests::stub::{Reply, StubServer};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Every reserved character of RFC 3986, then what breaks naive escaping.
const SPECIALS: [char; 32] = [
    ':', '/', '?', '#', '[', ']', '@', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', '%',
    ' ', '"', '\\', '<', '>', '{', '}', '|', '^', '`', '~', 'é', '日',
];

/// A secret holding every special character once, in random order, between random runs of
/// letters and digits.
fn secret() -> impl Strategy<Value = String> {
    (
        Just(SPECIALS.to_vec()).prop_shuffle(),
        prop::collection::vec("[a-zA-Z0-9]{1,3}", SPECIALS.len()),
    )
        .prop_map(|(specials, runs)| {
            specials
                .iter()
                .zip(&runs)
                .map(|(special, run)| format!("{run}{special}"))
                .collect()
        })
}

const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// RFC 3986 percent-encoding.
fn percent(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

/// Every byte percent-encoded, letters and digits included.
fn percent_all(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// Form encoding (`+` for spaces).
fn form(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A JSON string literal (with quotes), escaped the usual way.
fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// A JSON string literal with every character written as `\uXXXX` (the characters used are
/// all in the basic plane).
fn json_escaped(text: &str) -> String {
    let escaped: String = text
        .chars()
        .map(|c| format!("\\u{:04x}", u32::from(c)))
        .collect();
    format!("\"{escaped}\"")
}

/// The ways a secret could show in text: raw, JSON-escaped, Debug-escaped, percent- and
/// form-encoded.
fn shown_forms(secret: &str) -> Vec<String> {
    let quoted = |text: String| text[1..text.len() - 1].to_owned();
    vec![
        secret.to_owned(),
        quoted(json(secret)),
        quoted(format!("{secret:?}")),
        percent(secret),
        form(secret),
    ]
}

/// The texts an error shows: `Display`, `Debug`, and the body it keeps.
fn texts(error: &Error) -> Vec<String> {
    let mut texts = vec![error.to_string(), format!("{error:?}")];
    match error {
        Error::Api { failure, .. } => texts.push(failure.body.clone()),
        Error::Status { body, .. } => texts.push(body.clone()),
        Error::Decode {
            excerpt, message, ..
        } => {
            texts.push(excerpt.clone());
            texts.push(message.clone());
        }
        _ => {}
    }
    texts
}

/// One case: the errors of six calls whose answers hold the three secrets.
async fn errors_holding(
    stub: &StubServer,
    consumer: &str,
    token: &str,
    server: &str,
) -> Vec<(&'static str, Error)> {
    let client = Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("app-key", consumer),
    )
    .allow_plain_http_oauth_on_loopback()
    .retry(RetryPolicy::none())
    .deadline(Duration::from_secs(10))
    .build()
    .unwrap();
    let session = client.session(AccessToken::new("token", token, Timestamp::now()));
    let invoice = "/api/pay/getInvoice";

    let nested_json = format!(
        r#"{{"rcode": 0,
            "error": {{"code": "E_VALIDATION_INVALID_ID", "message": "consumer secret {c} is wrong", "type": "validation"}},
            "oauth\u005ftoken_secret": {s_escaped},
            "details": {{"list": [{{"token": {t}, "oauth_token\u005fsecret": {s}}}], "Token_Secret": {s}}},
            "note": {t_escaped}}}"#,
        c = &json(consumer)[1..json(consumer).len() - 1],
        t = json(token),
        s = json(server),
        s_escaped = json_escaped(server),
        t_escaped = json_escaped(token),
    );
    stub.enqueue(invoice, Reply::json(400, nested_json));

    let form_body = format!(
        "error=E_VALIDATION_INVALID_ID&error_description={}&oauth%5Ftoken%5Fsecret={}&oauth_token_secret={}&note={}",
        form(consumer),
        percent_all(server),
        percent(server),
        percent_all(token),
    );
    stub.enqueue(
        invoice,
        Reply::text(400, "application/x-www-form-urlencoded", form_body),
    );

    // A success envelope that does not decode: the error shows the start of the body.
    let undecodable = format!(
        r#"{{"oauth_token_secret": {}, "rcode": 1, "data": {{"note": {}}}}}"#,
        json(server),
        json_escaped(consumer),
    );
    stub.enqueue(invoice, Reply::json(200, undecodable));

    // Text: only the client's own secrets can be recognized, by value, in any encoding.
    let html = format!(
        "<html><p>{consumer} {} {} {}</p><p>{}</p></html>",
        &json(token)[1..json(token).len() - 1],
        percent(consumer),
        form(token),
        consumer
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;"),
    );
    stub.enqueue(invoice, Reply::text(502, "text/html", html));

    let mut errors = Vec::new();
    for what in [
        "JSON error",
        "form error",
        "undecodable success",
        "HTML page",
    ] {
        let error = session.get_invoice(9003).send().await.unwrap_err();
        errors.push((what, error));
    }

    // The token endpoints: an error in JSON, and an answer without oauth_token.
    stub.enqueue(
        "/oauth/getRequestToken",
        Reply::json(
            401,
            format!(
                r#"{{"errors": [{{"code": "E_API_AUTH_SIGNATURE_MISMATCH", "description": {}}}], "consumer_secret": {}}}"#,
                json_escaped(consumer),
                json(consumer)
            ),
        ),
    );
    errors.push(("token error", client.request_token(None).await.unwrap_err()));
    stub.enqueue(
        "/oauth/getAccessToken",
        Reply::text(
            200,
            "application/x-www-form-urlencoded",
            format!(
                "oauth_token_secret={}&oauth_callback_confirmed=true&hint={}",
                form(server),
                percent_all(token)
            ),
        ),
    );
    let request = RequestToken {
        token: "request".to_owned(),
        secret: Secret::new(token),
        callback_confirmed: true,
    };
    let verifier = Verifier::new("verifier").unwrap();
    errors.push((
        "token answer without a token",
        client.access_token(&request, &verifier).await.unwrap_err(),
    ));
    errors
}

#[test]
fn secrets_never_appear_in_any_error_whatever_the_encoding() {
    let runtime = marketplace_tests::runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(secret(), secret(), secret()), |(consumer, token, server)| {
            let errors = runtime.block_on(errors_holding(&stub, &consumer, &token, &server));
            prop_assert_eq!(errors.len(), 6);
            for (what, error) in &errors {
                for (name, secret) in [("consumer", &consumer), ("token", &token), ("server", &server)] {
                    for form in shown_forms(secret) {
                        for text in texts(error) {
                            if text.contains(&form) {
                                return Err(TestCaseError::fail(format!(
                                    "the {name} secret {secret:?} shows as {form:?} in the {what}: {text}"
                                )));
                            }
                        }
                    }
                }
            }
            // What was kept is still useful: the code and the redaction mark.
            prop_assert!(errors[0].1.to_string().contains("E_VALIDATION_INVALID_ID"));
            let shown = format!("{:?}", errors[0].1);
            prop_assert!(shown.contains("[redacted]"), "{}", shown);
            prop_assert!(errors[1].1.to_string().contains("E_VALIDATION_INVALID_ID"));
            prop_assert!(matches!(errors[2].1, Error::Decode { .. }), "{}", errors[2].1);
            prop_assert!(matches!(errors[3].1, Error::Status { status: 502, .. }), "{}", errors[3].1);
            prop_assert!(errors[4].1.to_string().contains("E_API_AUTH_SIGNATURE_MISMATCH"));
            prop_assert!(matches!(errors[5].1, Error::Decode { .. }), "{}", errors[5].1);
            Ok(())
        })
        .unwrap();
}
