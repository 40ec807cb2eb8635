//! An error's text is one line without a control character, whatever the service sent: a
//! service's message, code, body, JSON key or value quoted in `Error`'s `Display` can
//! neither start a line of its own in an app's log (forging an entry) nor move a terminal's
//! cursor, nor reorder what a reader sees (bidirectional controls). `Error`'s `Display`
//! writes every variant through `OneLine` (`error.rs`, `Describe`); these cases come in by
//! every channel a service has: an error body in each shape, a body that is none, a success
//! answer that does not decode, a token endpoint's answer.

use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::{Client, Error};
use marketplace_tests::current_thread_runtime as runtime;
use marketplace_tests::fake::{ErrorShape, ServiceError};
use marketplace_tests::stub::{Reply, StubServer};
use proptest::prelude::*;

const TIMESHEET: &str = "/api/pay/getTimesheet";

/// Characters a hostile service writes to forge a line or drive a terminal.
const HOSTILE: &[char] = &[
    '\n', '\r', '\u{1b}', '\u{7}', '\u{0}', '\u{8}', '\u{7f}', '\u{85}', '\u{9b}', '\u{2028}',
    '\u{2029}', '\u{202e}', '\u{2066}', '\u{200f}', '\u{61c}', '\t', '\u{b}', '\u{c}',
];

fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn hostile_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => "[a-zA-Z ]{1,6}",
            2 => proptest::sample::select(HOSTILE).prop_map(String::from),
            1 => Just("\u{1b}[2J\u{1b}[31mFORGED".to_owned()),
        ],
        1..8,
    )
    .prop_map(|parts| parts.concat())
}

async fn call(reply: Reply) -> Error {
    let (stub, client) = start().await;
    stub.enqueue(TIMESHEET, reply);
    let session = client.session(AccessToken::new("token", "token-secret", Timestamp::now()));
    session.get_timesheet_by_id(7).send().await.unwrap_err()
}

async fn start() -> (StubServer, Client) {
    let stub = StubServer::start().await.unwrap();
    let client = stub.client();
    (stub, client)
}

fn assert_one_line(error: &Error, given: &str) -> Result<(), TestCaseError> {
    let shown = error.to_string();
    prop_assert!(
        !shown.chars().any(forbidden),
        "{given:?} reached the text: {shown:?}"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// An error body's message and code, in every shape the client reads.
    #[test]
    fn an_error_bodys_message_and_code_show_on_one_line(
        message in hostile_text(),
        code in hostile_text(),
        shape in proptest::sample::select(&ErrorShape::ALL[..]),
        status in proptest::sample::select(&[200u16, 400, 403, 404, 500][..]),
    ) {
        let error = ServiceError::new("pay/getTimesheet", status, &code, "validation", &message);
        let (status, content_type, body) = error.render(shape);
        let error = runtime().block_on(call(Reply::text(status, content_type, body)));
        assert_one_line(&error, &format!("{message:?} / {code:?}"))?;
    }

    /// The token endpoints: an error body in every shape, and a success answer that is not
    /// a token (its text quoted).
    #[test]
    fn a_token_endpoints_answer_shows_on_one_line(
        text in hostile_text(),
        shape in proptest::sample::select(&ErrorShape::ALL[..]),
    ) {
        let refusal = ServiceError::new("oauth/getRequestToken", 401, &text, "authentication", &text);
        let (status, content_type, body) = refusal.render(shape);
        for reply in [
            Reply::text(status, content_type, body),
            Reply::text(200, "application/x-www-form-urlencoded", format!("oauth_token={text}")),
            Reply::text(200, "text/plain", text.clone()),
        ] {
            let error = runtime().block_on(async {
                let (stub, client) = start().await;
                stub.enqueue("/oauth/getRequestToken", reply);
                client.request_token(None).await.unwrap_err()
            });
            assert_one_line(&error, &text)?;
        }
    }

    /// A body that is no API error: its excerpt.
    #[test]
    fn a_bodys_excerpt_shows_on_one_line(body in hostile_text(), status in 400u16..600) {
        let error = runtime().block_on(call(Reply::text(status, "text/plain", body.clone())));
        assert_one_line(&error, &body)?;
    }

    /// A success answer that does not decode: the path (a key the service chose) and the
    /// message (which may quote the value).
    #[test]
    fn a_decode_failures_path_and_message_show_on_one_line(key in hostile_text(), value in hostile_text()) {
        let body = serde_json::json!({
            "api": "pay/getTimesheet", "apiVersion": 1, "rcode": 1,
            "data": {"timesheet": {"id": value, "totalHours": {key.clone(): value.clone()}}}
        });
        let error = runtime().block_on(call(Reply::json(200, body.to_string())));
        assert_one_line(&error, &format!("{key:?} / {value:?}"))?;
    }
}
