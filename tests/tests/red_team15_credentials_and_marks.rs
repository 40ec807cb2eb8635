//! Red team 15: the credentials rule reached through entry points other than the ones it was
//! fixed at.
//!
//! The rule (SECURITY.md, "Bounds on what the service and the app hand the client"): tokens and
//! token secrets are "non-empty, at most 4 KiB each (...); no control, bidirectional-text,
//! invisible formatting or white space character but a space"; "tokens and token secrets the
//! app made | `AccessToken::new`, a token restored from storage, a `RequestToken`'s public
//! fields | the rule above | `Error::InvalidArgument` naming `oauth_token` or
//! `oauth_token_secret` ..., never the value, by every call that would sign with it ..., before
//! anything is sent". Verifiers: "a saved one (`Deserialize`) | ... refused ... neither showing
//! the verifier".
//!
//! Cases:
//! - `app_made_tokens_outside_the_length_bounds_are_refused_before_anything_is_sent`: the
//!   "non-empty, at most 4 KiB" half of "the rule above" for tokens the app made.
//! - `a_deserialized_access_token_with_a_foreign_character_anywhere_is_refused_before_anything_is_sent`:
//!   every Cf and non-space White_Space character, first, middle or last, of a token restored
//!   from JSON.
//! - `a_deserialized_verifier_with_a_foreign_character_is_refused_unshown`: `Deserialize` goes
//!   through `Verifier::new` (generated Cf at any position, White_Space inside).
//! - `a_percent_encoded_foreign_character_in_a_token_answer_is_refused_unshown`: "as decoded
//!   from the form": `%EF%BB%BF`, `%E2%80%8B` and every Cf character percent-encoded.
//! - `a_callback_with_a_percent_encoded_foreign_character_in_its_verifier_is_refused_unshown`.
//! - `consumer_credentials_with_a_foreign_character_anywhere_are_refused_at_build_unshown`.

// Fixtures are written only inside each test's own temporary directory.
use marketplace_tests::fixtures::write_file as put;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use marketplace_client::oauth::{AccessToken, RequestToken, Verifier};
use marketplace_client::{Client, ConsumerCredentials, Error};
use proptest::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const CANARY: &str = "Zq7CanaryXv";

/// A hostile loopback server: counts connections and answers every request with `body`.
struct Hostile {
    base: String,
    connections: Arc<AtomicUsize>,
    body: Arc<Mutex<String>>,
}

async fn hostile() -> Hostile {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let body = Arc::new(Mutex::new(String::new()));
    let (c, b) = (connections.clone(), body.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            c.fetch_add(1, Ordering::SeqCst);
            let b = b.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let mut seen = Vec::new();
                loop {
                    let Ok(n) = socket.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    if seen.windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
                let body = b.lock().unwrap().clone();
                let answer = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                    body.len(),
                    body
                );
                let _ = socket.write_all(answer.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    Hostile {
        base: format!("http://127.0.0.1:{port}"),
        connections,
        body,
    }
}

fn client(base: &str) -> Client {
    Client::builder(
        base,
        ConsumerCredentials::new("consumer-key-0123456789", "consumer-secret-0123456789"),
    )
    .allow_plain_http_oauth_on_loopback()
    .build()
    .unwrap()
}

fn shown(e: &Error) -> String {
    format!("{e} {e:?}")
}

/// A canary with `c` placed first, in the middle or last.
fn placed(c: char, at: usize) -> String {
    match at % 3 {
        0 => format!("{c}{CANARY}"),
        1 => format!("{}{c}{}", &CANARY[..5], &CANARY[5..]),
        _ => format!("{CANARY}{c}"),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    marketplace_tests::runtime_with_workers(1)
}

#[tokio::test]
async fn app_made_tokens_outside_the_length_bounds_are_refused_before_anything_is_sent() {
    let server = hostile().await;
    let client = client(&server.base);
    let long = "t".repeat(4097);
    let cases: Vec<(&str, AccessToken)> = vec![
        (
            "empty token",
            AccessToken::new("", "secret-0123456789", jiff::Timestamp::now()),
        ),
        (
            "empty secret",
            AccessToken::new("token-0123456789", "", jiff::Timestamp::now()),
        ),
        (
            "4097-byte token",
            AccessToken::new(long.clone(), "secret-0123456789", jiff::Timestamp::now()),
        ),
        (
            "4097-byte secret",
            AccessToken::new("token-0123456789", long.clone(), jiff::Timestamp::now()),
        ),
    ];
    let mut failures = Vec::new();
    for (what, token) in cases {
        let session = client.session(token);
        let before = server.connections.load(Ordering::SeqCst);
        let result = session.get_my_providers().send().await;
        let sent = server.connections.load(Ordering::SeqCst) - before;
        match result {
            Err(Error::InvalidArgument { ref name, .. })
                if sent == 0 && (name == "oauth_token" || name == "oauth_token_secret") => {}
            other => failures.push(format!(
                "{what}: {sent} request(s) sent, result {:?}",
                other.map(|_| "Ok").map_err(|e| shown(&e))
            )),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

fn foreign() -> impl Strategy<Value = char> {
    prop_oneof![
        proptest::string::string_regex(r"\p{Cf}").unwrap(),
        proptest::string::string_regex(r"[\p{White_Space}&&[^ ]]").unwrap(),
        proptest::string::string_regex(r"\p{Cc}").unwrap(),
    ]
    .prop_map(|s| s.chars().next().unwrap())
}

fn cf() -> impl Strategy<Value = char> {
    proptest::string::string_regex(r"\p{Cf}")
        .unwrap()
        .prop_map(|s| s.chars().next().unwrap())
}

#[test]
fn a_deserialized_access_token_with_a_foreign_character_anywhere_is_refused_before_anything_is_sent()
 {
    let rt = runtime();
    let server = rt.block_on(hostile());
    let client = rt.block_on(async { client(&server.base) });
    let template = serde_json::to_value(AccessToken::new(
        "token-0123456789",
        "secret-0123456789",
        jiff::Timestamp::now(),
    ))
    .unwrap();
    let fields: Vec<String> = template
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v.as_str().is_some_and(|s| s.contains("0123456789")))
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(fields.len(), 2, "token and secret fields in {template}");
    proptest!(ProptestConfig::with_cases(256), |(c in foreign(), at in 0usize..3, field in 0usize..2)| {
        let mut value = template.clone();
        value[&fields[field]] = serde_json::Value::String(placed(c, at));
        let token: AccessToken = match serde_json::from_value(value) {
            // Refused when restored: fine, as long as the error does not show it.
            Err(e) => {
                prop_assert!(!e.to_string().contains(CANARY), "{e}");
                return Ok(());
            }
            Ok(t) => t,
        };
        let before = server.connections.load(Ordering::SeqCst);
        let result = rt.block_on(client.session(token).get_my_providers().send());
        let sent = server.connections.load(Ordering::SeqCst) - before;
        prop_assert_eq!(sent, 0, "U+{:04X} at {} of {}: a request was sent", c as u32, at, &fields[field]);
        match result {
            Err(e @ Error::InvalidArgument { .. }) => {
                prop_assert!(!shown(&e).contains(&CANARY[..5]), "{}", shown(&e));
            }
            other => prop_assert!(false, "U+{:04X}: {:?}", c as u32, other.map(|_| ()).map_err(|e| shown(&e))),
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_deserialized_verifier_with_a_foreign_character_is_refused_unshown(c in foreign(), at in 0usize..3) {
        // Surrounding White_Space is trimmed by the documented rule: only Cf/Cc go first or last.
        let at = if c.is_whitespace() { 1 } else { at };
        let json = serde_json::to_string(&placed(c, at)).unwrap();
        match serde_json::from_str::<Verifier>(&json) {
            Ok(v) => prop_assert!(false, "U+{:04X} at {}: taken as {:?}", c as u32, at, v.as_str()),
            Err(e) => prop_assert!(!e.to_string().contains(&CANARY[..5]), "{e}"),
        }
    }

    #[test]
    fn consumer_credentials_with_a_foreign_character_anywhere_are_refused_at_build_unshown(
        c in foreign(), at in 0usize..3, in_key: bool,
    ) {
        let bad = placed(c, at);
        let creds = if in_key {
            ConsumerCredentials::new(bad, "consumer-secret-0123456789")
        } else {
            ConsumerCredentials::new("consumer-key-0123456789", bad)
        };
        match Client::builder("https://api.example.test", creds).build() {
            Ok(_) => prop_assert!(false, "U+{:04X} at {} (key: {}) built", c as u32, at, in_key),
            Err(e @ Error::Config { .. }) => prop_assert!(!shown(&e).contains(&CANARY[..5]), "{}", shown(&e)),
            Err(e) => prop_assert!(false, "not Config: {}", shown(&e)),
        }
    }
}

fn percent(c: char) -> String {
    let mut b = [0u8; 4];
    c.encode_utf8(&mut b)
        .bytes()
        .map(|x| format!("%{x:02X}"))
        .collect()
}

#[test]
fn a_percent_encoded_foreign_character_in_a_token_answer_is_refused_unshown() {
    let rt = runtime();
    let server = rt.block_on(hostile());
    let client = rt.block_on(async { client(&server.base) });
    let mut cases: Vec<(char, usize, bool)> = Vec::new();
    for c in [
        '\u{feff}',
        '\u{200b}',
        '\u{00ad}',
        '\u{202e}',
        '\u{e0041}',
        '\u{2028}',
        '\u{a0}',
    ] {
        for at in 0..3 {
            cases.push((c, at, true));
            cases.push((c, at, false));
        }
    }
    let check = |c: char, at: usize, in_token: bool| -> Result<(), String> {
        let v = placed(c, at);
        let enc = v.replace(c, &percent(c));
        *server.body.lock().unwrap() = if in_token {
            format!(
                "oauth_token={enc}&oauth_token_secret=secret-0123456789&oauth_callback_confirmed=true"
            )
        } else {
            format!(
                "oauth_token=token-0123456789&oauth_token_secret={enc}&oauth_callback_confirmed=true"
            )
        };
        match rt.block_on(client.request_token(Some("https://app.example.test/cb"))) {
            Ok(t) => Err(format!(
                "U+{:04X} at {at} (token: {in_token}): kept, token {:?}",
                c as u32, t.token
            )),
            // A refused token secret is never shown; a refused token may be (SECURITY.md,
            // Output channels: a token is an identifier, sent in clear, shown; the lead's
            // decision on this case, which first asserted neither was).
            Err(e @ Error::Decode { .. }) if in_token || !shown(&e).contains(&CANARY[..5]) => {
                Ok(())
            }
            Err(e) => Err(format!("U+{:04X}: {}", c as u32, shown(&e))),
        }
    };
    let mut failures: Vec<String> = cases
        .into_iter()
        .filter_map(|(c, at, t)| check(c, at, t).err())
        .collect();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(128));
    if let Err(e) = runner.run(&(cf(), 0usize..3, any::<bool>()), |(c, at, t)| {
        check(c, at, t).map_err(proptest::test_runner::TestCaseError::fail)
    }) {
        failures.push(e.to_string());
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_callback_with_a_percent_encoded_foreign_character_in_its_verifier_is_refused_unshown() {
    let client = client("https://api.example.test");
    let request = RequestToken {
        token: "request-token-0123456789".into(),
        secret: marketplace_client::Secret::new("request-secret-0123456789"),
        callback_confirmed: true,
    };
    let mut failures = Vec::new();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(256));
    let outcome = runner.run(&(cf(), 0usize..3), |(c, at)| {
        let enc = placed(c, at).replace(c, &percent(c));
        let callback = format!(
            "https://app.example.test/cb?oauth_token=request-token-0123456789&oauth_verifier={enc}"
        );
        match client.verifier_from_callback(&request, &callback) {
            Ok(v) => Err(proptest::test_runner::TestCaseError::fail(format!(
                "U+{:04X} at {at}: taken as {:?}",
                c as u32,
                v.as_str()
            ))),
            Err(e @ Error::Callback { .. }) if !shown(&e).contains(&CANARY[..5]) => Ok(()),
            Err(e) => Err(proptest::test_runner::TestCaseError::fail(shown(&e))),
        }
    });
    if let Err(e) = outcome {
        failures.push(e.to_string());
    }
    // The callback's oauth_token differs from the request token by an invisible mark: not ours.
    for c in ['\u{feff}', '\u{200b}'] {
        let callback = format!(
            "https://app.example.test/cb?oauth_token=request-token-0123456789{}&oauth_verifier=verifier-0123456789",
            percent(c)
        );
        if let Ok(v) = client.verifier_from_callback(&request, &callback) {
            failures.push(format!(
                "a callback whose oauth_token ends in U+{:04X} was taken: {:?}",
                c as u32,
                v.as_str()
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// "tokens and token secrets the app made | ... a `RequestToken`'s public fields | the rule
/// above" (non-empty, at most 4 KiB) "by every call that would sign with it (... the
/// access-token exchange), before anything is sent".
#[tokio::test]
async fn request_tokens_outside_the_length_bounds_are_refused_at_the_exchange_before_anything_is_sent()
 {
    let server = hostile().await;
    *server.body.lock().unwrap() =
        "oauth_token=access-token-0123456789&oauth_token_secret=access-secret-0123456789".into();
    let client = client(&server.base);
    let verifier = Verifier::new("verifier-0123456789").unwrap();
    let long = "r".repeat(4097);
    let make = |token: &str, secret: &str| RequestToken {
        token: token.into(),
        secret: marketplace_client::Secret::new(secret),
        callback_confirmed: true,
    };
    let cases = [
        ("empty token", make("", "request-secret-0123456789")),
        ("empty secret", make("request-token-0123456789", "")),
        ("4097-byte token", make(&long, "request-secret-0123456789")),
        ("4097-byte secret", make("request-token-0123456789", &long)),
    ];
    let mut failures = Vec::new();
    for (what, request) in cases {
        let before = server.connections.load(Ordering::SeqCst);
        let result = client.access_token(&request, &verifier).await;
        let sent = server.connections.load(Ordering::SeqCst) - before;
        match result {
            Err(Error::InvalidArgument { .. }) if sent == 0 => {}
            other => failures.push(format!(
                "{what}: {sent} request(s) sent, result {:?}",
                other.map(|t| t.token().len()).map_err(|e| shown(&e))
            )),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// SECURITY.md, tokens and token secrets: "`Error::Decode` naming the field ...; the answer's
/// excerpt is cleaned as every answer is (its token secret `[redacted]`; its token, an
/// identifier, shown)". A token answer refused for its token's length names `oauth_token` and
/// shows no part of the answer's secret. (This case first asserted the token unshown too; the
/// lead kept the documented design, a token being an identifier shown like the consumer key.)
#[tokio::test]
async fn a_token_answer_refused_for_its_length_does_not_show_the_secret() {
    let server = hostile().await;
    let client = client(&server.base);
    let long = "t".repeat(4097);
    *server.body.lock().unwrap() =
        format!("oauth_token={long}&oauth_token_secret={CANARY}&oauth_callback_confirmed=true");
    match client
        .request_token(Some("https://app.example.test/cb"))
        .await
    {
        Ok(t) => panic!("a {}-byte token was kept", t.token.len()),
        Err(e @ Error::Decode { .. }) => {
            let shown = shown(&e);
            assert!(shown.contains("oauth_token"), "{shown}");
            assert!(!shown.contains(&CANARY[..5]), "{shown}");
        }
        Err(e) => panic!("not Decode: {}", shown(&e)),
    }
}

/// CHANGELOG: "`recording::read` (and so the fake's replay ...) reads a recording file that
/// starts with a byte order mark as without it". The fake's `Replay::from_files`, directly.
#[test]
fn the_fakes_replay_reads_a_recording_starting_with_a_mark_as_without_it() {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("app/tests/recordings/workroom.jsonl");
    let text = std::fs::read(&source).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.jsonl");
    let marked = dir.path().join("marked.jsonl");
    put(&plain, &text).unwrap();
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend_from_slice(&text);
    put(&marked, bytes).unwrap();
    let a = marketplace_fake::Replay::from_files([&plain]).unwrap();
    let b = marketplace_fake::Replay::from_files([&marked])
        .unwrap_or_else(|e| panic!("a marked recording was refused: {e}"));
    assert!(!a.is_empty());
    assert_eq!((a.len(), a.refused()), (b.len(), b.refused()));
}
