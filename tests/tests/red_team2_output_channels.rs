//! Red team, round 2: SECURITY.md, "Output channels: no secret leaves the process" and
//! "Credentials the app hands the client and the service hands back".
//!
//! Each case attacks one sentence of those sections through a channel, a form of credential or
//! a writer that the first round (`canary.rs`, `public_debug.rs`, `redaction.rs`, `secrets.rs`,
//! `hooks.rs`, `red_team_*.rs`) does not enumerate: header values read through `HeaderMap::get`
//! rather than `Debug`, header *names*, the envelope's `api`, a secret cut by an excerpt, the
//! fake's `check_signature`, refused callbacks in every defect, form-decoded callback values,
//! `Basic` halves, repeated and non-UTF-8 credential headers, values marked sensitive in
//! `CallOptions::headers`, recordings' kept headers, `Exchange::redacted` on every text field,
//! per-character escapes with unusual spellings, and text shapes of secret-named values.
//! Every network case also reads a process-wide TRACE subscriber (with `log` records).

use marketplace_tests::runtime;
use std::io::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine as _;
use jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, RequestToken, Verifier};
use marketplace_client::recording::{Exchange, Recorder, Side};
use marketplace_client::request::DataMethod;
use marketplace_client::reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use marketplace_client::{
    ApiFailure, CallOptions, Client, ClientBuilder, ConsumerCredentials, Error, GetInvoice,
    RetryPolicy, SERVICE, Secret, Session, redact,
};
use marketplace_tests::fake::verify::{RawRequest, check_signature};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

// ---------------------------------------------------------------------------------------------
// Harness

const KEY: &str = "rt2-consumer-key";

/// Everything the tracing subscriber (TRACE, spans opened and closed, `log` records) printed.
fn trace_buffer() -> Arc<Mutex<Vec<u8>>> {
    static BUFFER: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    BUFFER
        .get_or_init(|| {
            let buffer = Arc::new(Mutex::new(Vec::new()));
            let sink = buffer.clone();
            let _ = tracing_log::LogTracer::init();
            let subscriber = tracing_subscriber::fmt()
                .with_max_level(tracing::Level::TRACE)
                .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
                .with_writer(move || Sink(sink.clone()))
                .finish();
            let _ = tracing::subscriber::set_global_default(subscriber);
            buffer
        })
        .clone()
}

#[derive(Clone)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn traced_text() -> String {
    String::from_utf8_lossy(&trace_buffer().lock().unwrap()).into_owned()
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        // A failure is shown with every channel it leaks through; shrinking network cases
        // costs more than it tells.
        max_shrink_iters: 8,
        ..Config::default()
    })
}

/// A canary: a tag and random lower-case letters and digits (header-name and URL safe).
fn canary(tag: &'static str, len: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[a-z0-9]{{{len}}}"))
        .unwrap()
        .prop_map(move |tail| format!("{tag}{tail}"))
}

fn builder(base: &str, consumer_secret: &str) -> ClientBuilder {
    Client::builder(base, ConsumerCredentials::new(KEY, consumer_secret))
        .retry(RetryPolicy::none())
        .allow_plain_http_oauth_on_loopback()
}

fn session_of(client: &Client, token_secret: &str) -> Session {
    client.session(AccessToken::new(
        "rt2-access-token",
        token_secret,
        Timestamp::now(),
    ))
}

fn invoice_path() -> &'static str {
    GetInvoice::PATH
}

fn invoice_fixture() -> String {
    String::from_utf8(fixtures::read("pay/getInvoice.json").unwrap()).unwrap()
}

/// The ways a reader could find `secret` in `text`: as it is, percent-encoded (either case).
fn readings(secret: &str) -> Vec<String> {
    let upper: String = secret.bytes().map(|b| format!("%{b:02X}")).collect();
    let lower: String = secret.bytes().map(|b| format!("%{b:02x}")).collect();
    let mut out = vec![secret.to_owned()];
    if secret.bytes().any(|b| !b.is_ascii_alphanumeric()) {
        out.push(
            percent_encoding::utf8_percent_encode(secret, percent_encoding::NON_ALPHANUMERIC)
                .to_string(),
        );
    }
    out.push(upper);
    out.push(lower);
    out
}

/// Fails naming the channel and the secret when any `(channel, text)` holds a secret.
fn assert_none(shown: &[(String, String)], secrets: &[(&str, &str)]) -> Result<(), TestCaseError> {
    let leaks = leaks(shown, secrets);
    if leaks.is_empty() {
        Ok(())
    } else {
        Err(TestCaseError::fail(leaks.join("\n---\n")))
    }
}

/// Every channel through which a secret leaks (the first reading found per channel), with the
/// text around it; the tracing output is read too.
fn leaks(shown: &[(String, String)], secrets: &[(&str, &str)]) -> Vec<String> {
    let trace = traced_text();
    let mut found = Vec::new();
    for (what, secret) in secrets {
        for (channel, text) in shown
            .iter()
            .chain(std::iter::once(&("tracing".to_owned(), trace.clone())))
        {
            if let Some(reading) = readings(secret).into_iter().find(|r| text.contains(r)) {
                found.push(format!(
                    "{what} `{secret}` (as `{reading}`) leaks through {channel}:\n{}",
                    excerpt_around(text, &reading)
                ));
            }
        }
    }
    found
}

fn excerpt_around(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap_or(0);
    let mut start = at.saturating_sub(160);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + needle.len() + 160).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text[start..end].to_owned()
}

fn error_texts(what: &str, error: &Error) -> Vec<(String, String)> {
    let mut texts = vec![
        (format!("{what} Display"), error.to_string()),
        (format!("{what} Debug"), format!("{error:?}")),
        (format!("{what} alternate Debug"), format!("{error:#?}")),
    ];
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        texts.push((format!("{what} source"), format!("{cause} {cause:?}")));
        source = cause.source();
    }
    if let Some(code) = error.code() {
        texts.push((format!("{what} code()"), format!("{code} {code:?}")));
    }
    texts
}

fn header_texts(what: &str, headers: &HeaderMap) -> Vec<(String, String)> {
    let mut texts = vec![(format!("{what} Debug"), format!("{headers:?} {headers:#?}"))];
    for (name, value) in headers {
        texts.push((
            format!("{what} value of {name} (read with get)"),
            format!("{}: {}", name, String::from_utf8_lossy(value.as_bytes())),
        ));
    }
    texts
}

/// What the response hooks saw: headers (by value), the body, and `Debug`.
#[derive(Clone, Default)]
struct HookSeen(Arc<Mutex<Vec<(String, String)>>>);

impl HookSeen {
    fn install(&self, builder: ClientBuilder) -> ClientBuilder {
        let seen = self.clone();
        builder.on_response(move |response| {
            let mut texts = header_texts("hook headers", response.headers());
            texts.push((
                "hook body".into(),
                String::from_utf8_lossy(response.body().unwrap_or_default()).into_owned(),
            ));
            texts.push(("hook Debug".into(), format!("{response:?} {response:#?}")));
            texts.push(("hook url".into(), response.url().to_string()));
            seen.0.lock().unwrap().extend(texts);
        })
    }
    fn texts(&self) -> Vec<(String, String)> {
        self.0.lock().unwrap().clone()
    }
}

/// A recorder's writer: the lines written, shared.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn value(bytes: &[u8]) -> HeaderValue {
    HeaderValue::from_bytes(bytes).unwrap()
}

/// A data call with `options`, to a stub answering `reply`; what every channel showed.
fn call_with(
    rt: &tokio::runtime::Runtime,
    consumer_secret: &str,
    token_secret: &str,
    reply: Reply,
    options: impl Fn(CallOptions) -> CallOptions + Send + Sync + Clone + 'static,
) -> Vec<(String, String)> {
    rt.block_on(async {
        let stub = StubServer::start().await.unwrap();
        stub.fallback(invoice_path(), reply);
        let hooks = HookSeen::default();
        let lines = Lines::default();
        let recorder = Recorder::to_writer(lines.clone());
        let client = hooks
            .install(builder(&stub.base_url(), consumer_secret))
            .record(recorder.clone())
            .build()
            .unwrap();
        let session = session_of(&client, token_secret);
        let result = session
            .get_invoice(9003)
            .customize(options)
            .send_with_metadata()
            .await;
        let mut shown = hooks.texts();
        match &result {
            Ok(response) => {
                let (_, meta) = response.clone().into_parts();
                shown.extend(header_texts("ResponseMeta::headers", meta.headers()));
                shown.push(("ResponseMeta Debug".into(), format!("{meta:?} {meta:#?}")));
                shown.push(("ResponseMeta::api".into(), meta.api().to_owned()));
            }
            Err(error) => shown.extend(error_texts("error", error)),
        }
        recorder.flush().unwrap();
        drop(client);
        drop(session);
        drop(recorder);
        shown.push((
            "recording".into(),
            String::from_utf8_lossy(&lines.0.lock().unwrap()).into_owned(),
        ));
        shown
    })
}

// ---------------------------------------------------------------------------------------------
// Response headers, by value and by name

/// SECURITY.md: "response metadata (`ResponseMeta::headers`) | as hooks" and hooks: "no secret in
/// any answer's body or header, data answers included ... (credential headers and secret-named
/// ones lose their values)". Reads each value with the `HeaderMap` (what an app's logger does),
/// not `Debug`, where a value merely marked sensitive would look clean.
#[test]
fn response_meta_and_hook_headers_of_a_data_answer_hold_no_secret_when_read_by_value() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(12)
        .run(
            &(
                canary("cs", 20),
                canary("ts", 20),
                canary("ck", 20),
                canary("xa", 20),
                canary("pw", 20),
            ),
            |(cs, ts, cookie, auth, password)| {
                let reply = Reply::json(200, invoice_fixture())
                    .header("Set-Cookie", &format!("sid={cookie}; Path=/; HttpOnly"))
                    .header("X-Auth-Token", &auth)
                    .header("X-Echo", &format!("signed with {cs}&{ts}"))
                    .header("WWW-Authenticate", &format!("OAuth realm=\"{ts}\""))
                    .header("X-Debug", &format!("user=dana&password={password}"));
                let shown = call_with(&rt, &cs, &ts, reply, |o| o);
                prop_assert!(
                    shown.iter().any(|(c, _)| c.starts_with("ResponseMeta")),
                    "the data call failed: {shown:?}"
                );
                assert_none(
                    &shown,
                    &[
                        ("consumer secret", &cs),
                        ("token secret", &ts),
                        ("cookie", &cookie),
                        ("X-Auth-Token", &auth),
                        ("secret-named value", &password),
                    ],
                )
            },
        )
        .unwrap();
}

/// SECURITY.md: hooks and metadata hold "no secret in any answer's body or header"; the consumer
/// secret and the token secret are known secrets "removed by value ... from every channel". A
/// hostile service writes them as header *names* (the scrubber blanks values).
#[test]
fn a_secret_written_as_a_response_header_name_reaches_no_hook_metadata_or_recording() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(12)
        .run(&(canary("cs", 20), canary("ts", 20)), |(cs, ts)| {
            let mut all = Vec::new();
            for success in [true, false] {
                let reply = if success {
                    Reply::json(200, invoice_fixture())
                } else {
                    Reply::json(500, "{}")
                }
                .header(&format!("x-{cs}"), "1")
                .header(&format!("{ts}-echo"), "1");
                let shown = call_with(&rt, &cs, &ts, reply, |o| o);
                for leak in leaks(&shown, &[("consumer secret", &cs), ("token secret", &ts)]) {
                    all.push(format!(
                        "answer {}: {leak}",
                        if success { 200 } else { 500 }
                    ));
                }
            }
            prop_assert!(all.is_empty(), "{}", all.join("\n---\n"));
            Ok(())
        })
        .unwrap();
}

/// SECURITY.md: "`Debug` and `Display` of every public type ... no secret ... in any field" and
/// response metadata holds "no secret in any answer's body". The envelope's `api` is text of the
/// answer that `ResponseMeta` keeps (it is not the app's data): a hostile service echoes the
/// consumer secret or the token secret there.
#[test]
fn an_envelope_api_echoing_a_secret_is_not_kept_in_response_meta() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(12)
        .run(&(canary("cs", 20), canary("ts", 20)), |(cs, ts)| {
            let mut all = Vec::new();
            for form in 0..3u8 {
                let mut body: serde_json::Value = serde_json::from_str(&invoice_fixture()).unwrap();
                body["api"] = serde_json::Value::String(match form {
                    0 => cs.clone(),
                    1 => format!("pay/{ts}"),
                    _ => format!("pay/getBilling?oauth_token_secret={ts}&c={cs}"),
                });
                let reply = Reply::json(200, body.to_string());
                let shown = call_with(&rt, &cs, &ts, reply, |o| o);
                for leak in leaks(&shown, &[("consumer secret", &cs), ("token secret", &ts)]) {
                    all.push(format!("api {}: {leak}", body["api"]));
                }
            }
            prop_assert!(all.is_empty(), "{}", all.join("\n---\n"));
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Partial secrets

/// SECURITY.md: `Error` holds "no secret, in any variant or field" (decode messages, bodies
/// cleaned "where it was made"). An excerpt is "the start of the body": a hostile service pads
/// its answer so that the cut falls inside the consumer secret or the token secret, and the
/// prefix that is left is no longer the whole secret a matcher looks for.
#[test]
fn an_excerpt_or_body_cut_inside_a_known_secret_shows_no_part_of_it() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(48)
        .run(
            &(
                canary("cs", 38),
                canary("ts", 38),
                0..2200usize,
                0..3u8,
                any::<bool>(),
            ),
            |(cs, ts, pad, shape, consumer)| {
                let secret = if consumer { &cs } else { &ts };
                let padding = "a".repeat(pad);
                let reply = match shape {
                    // A success envelope that does not decode: an excerpt.
                    0 => Reply::json(
                        200,
                        format!(
                            r#"{{"echo":"{padding}{secret}","api":"pay/getBilling","apiVersion":1,"rcode":1,"data":7}}"#
                        ),
                    ),
                    // A status without a recognizable API error: the body.
                    1 => Reply::text(500, "text/plain", format!("{padding}{secret} and more")),
                    // An API error whose message is long.
                    _ => Reply::json(
                        400,
                        format!(
                            r#"{{"error":{{"code":"E_RT2","message":"{padding}{secret} and more"}}}}"#
                        ),
                    ),
                };
                let shown = call_with(&rt, &cs, &ts, reply, |o| o);
                prop_assert!(!shown.iter().any(|(c, _)| c.starts_with("ResponseMeta")));
                // Any 12 consecutive characters of the secret (a prefix left by a cut, or a
                // suffix).
                let parts: Vec<String> = (0..=secret.len() - 12)
                    .map(|i| secret[i..i + 12].to_owned())
                    .collect();
                let named: Vec<(&str, &str)> =
                    parts.iter().map(|p| ("part of a known secret", p.as_str())).collect();
                assert_none(&shown, &named)
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// ApiFailure::parse, a public reader of error bodies

/// SECURITY.md: "any value under a secret-named name (`secret`, `password`, ..., ASCII case and
/// `_-. ` ignored) ... removed by structure"; `ApiFailure::parse`: "Secret-named values are
/// redacted from what is kept". Puts them inside the code, the message, a listed error and a
/// form description, in name spellings and shapes nested in strings.
#[test]
fn api_failure_parse_keeps_no_secret_named_value_in_any_field() {
    let names = prop_oneof![
        Just("password"),
        Just("Client_Secret"),
        Just("OAUTH-VERIFIER"),
        Just("private.key"),
        Just("pass word"),
        Just("oauth_signature"),
        Just("user_passwd"),
    ];
    runner(64)
        .run(
            &(names, canary("sv", 16), 0..7u8),
            |(name, secret, shape)| {
                let json_name = serde_json::to_string(name).unwrap();
                let body = match shape {
                    0 => format!(r#"{{"error":{{"code":"E_RT2","message":"{name}={secret}"}}}}"#),
                    1 => format!(
                        r#"{{"error":{{"code":"E_RT2","message":"{{\"{name}\": \"{secret}\"}}"}}}}"#
                    ),
                    2 => format!(
                        r#"{{"code":"E_RT2","errors":[{{"code":"E_ONE","message":"x"}},{{"code":"E_TWO",{json_name}:"{secret}"}}]}}"#
                    ),
                    3 => format!(
                        "error=E_RT2&error_description={}",
                        percent_encoding::utf8_percent_encode(
                            &format!("{name}={secret}"),
                            percent_encoding::NON_ALPHANUMERIC
                        )
                    ),
                    4 => format!(
                        "oauth_problem=signature_invalid&oauth_problem_advice=x&{}={secret}",
                        percent_encoding::utf8_percent_encode(name, percent_encoding::NON_ALPHANUMERIC)
                    ),
                    5 => format!(
                        r#"{{"rcode":0,"data":{{"errors":{{"0":{{"code":"E_RT2","message":"see <{tag}>{secret}</{tag}>"}}}}}}}}"#,
                        tag = name.replace(' ', "_")
                    ),
                    _ => format!(r#"{{"error":"E_RT2","message":"{name}: {secret}"}}"#),
                };
                let Some(failure) = ApiFailure::parse(body.as_bytes()) else {
                    return Err(TestCaseError::fail(format!("not read as an error: {body}")));
                };
                let shown = vec![
                    ("ApiFailure Display".to_owned(), failure.to_string()),
                    ("ApiFailure Debug".to_owned(), format!("{failure:?} {failure:#?}")),
                    ("ApiFailure::message".to_owned(), format!("{:?}", failure.message)),
                    ("ApiFailure::code".to_owned(), format!("{:?}", failure.code)),
                    ("ApiFailure::errors".to_owned(), format!("{:?}", failure.errors)),
                    ("ApiFailure::body".to_owned(), failure.body.clone()),
                ];
                assert_none(&shown, &[("secret-named value", &secret)])
                    .map_err(|e| TestCaseError::fail(format!("body {body}: {e}")))
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The fake's outputs

/// SECURITY.md: "the verifier, the signature of each attempt ... and any value under a
/// secret-named name" are secrets of every channel; the fake's "public types hold no credential
/// of an app ... `RawRequest` (what a signer under test sent, which may be signed with real
/// credentials)". `check_signature`, for tests of any signer, says "the service's base string
/// when the signatures differ": that string holds the signer's `oauth_verifier` and its
/// secret-named parameters.
#[test]
fn check_signature_errors_show_no_verifier_signature_or_secret_named_value_of_the_signer() {
    let _ = trace_buffer();
    runner(32)
        .run(
            &(
                canary("vf", 20),
                canary("sg", 20),
                canary("pw", 20),
                canary("cs", 20),
                canary("ts", 20),
                any::<bool>(),
            ),
            |(verifier, signature, password, cs, ts, in_form)| {
                let authorization = format!(
                    "OAuth realm=\"\", oauth_consumer_key=\"{KEY}\", oauth_token=\"rt2-request\", \
                     oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"{}\", \
                     oauth_nonce=\"n0nce\", oauth_version=\"1.0\", oauth_verifier=\"{verifier}\", \
                     oauth_signature=\"{signature}\"",
                    Timestamp::now().as_second()
                );
                let form = format!("client_secret={password}&x=1");
                let query = format!("password={password}&x=1");
                let raw = RawRequest {
                    method: "POST",
                    scheme: "https",
                    host: "127.0.0.1:443",
                    path: SERVICE.oauth.access_token_path,
                    query: (!in_form).then_some(query.as_str()),
                    authorization: Some(&authorization),
                    form: in_form.then_some(form.as_bytes()),
                };
                let error = check_signature(&raw, &cs, &ts)
                    .err()
                    .ok_or_else(|| TestCaseError::fail("a made-up signature was accepted"))?;
                let shown = vec![
                    ("check_signature error".to_owned(), error),
                    ("RawRequest Debug".to_owned(), format!("{raw:?} {raw:#?}")),
                ];
                assert_none(
                    &shown,
                    &[
                        ("oauth_verifier", &verifier),
                        ("oauth_signature", &signature),
                        ("secret-named parameter", &password),
                        ("consumer secret", &cs),
                        ("token secret", &ts),
                    ],
                )
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Callbacks

/// SECURITY.md (credentials table, callback URL): "user info, any `@` | refused
/// (`Error::InvalidArgument`), shown cleaned; a control character, surrounding white space or
/// unparsable text is refused the same way", shown through `Scrubber::configured_url`: "no user
/// info, query value or fragment". Every defect, with secrets in query values, the fragment and
/// user info at once.
#[test]
fn a_refused_callback_shows_none_of_its_query_values_fragment_or_user_info() {
    let rt = runtime();
    let _ = trace_buffer();
    let client = builder("http://127.0.0.1:9", "rt2-consumer-secret-value")
        .build()
        .unwrap();
    runner(96)
        .run(
            &(
                canary("qa", 12),
                canary("qb", 12),
                canary("fr", 12),
                canary("ui", 12),
                0..10u8,
                prop_oneof![
                    Just("https://app.example"),
                    Just("myapp://cb"),
                    Just("HTTPS://App.Example:8443")
                ],
            ),
            |(a, b, fragment, user, defect, origin)| {
                let clean = format!("{origin}/oauth/done?state={a}&code={b}#{fragment}");
                let callback = match defect {
                    0 => format!("{clean} "),
                    1 => format!(" {clean}"),
                    2 => format!("{clean}\n"),
                    3 => clean.replace("/oauth/", "/oa\tuth/"),
                    4 => clean.replace("&code", "\u{7f}&code"),
                    5 => clean.replace("://", &format!("://rt2:{user}@")),
                    6 => clean.replace("://", &format!("://{user}@")),
                    7 => clean.replace("/oauth/", &format!("/{user}@x/")),
                    8 => clean.replace("#", "\u{202e}#"),
                    _ => format!("\u{85}{clean}"),
                };
                let result = rt.block_on(client.request_token(Some(&callback)));
                let error = match result {
                    Err(error) => error,
                    Ok(_) => return Err(TestCaseError::fail(format!("{callback:?} accepted"))),
                };
                assert_none(
                    &error_texts("refused callback", &error),
                    &[
                        ("query value", &a),
                        ("query value", &b),
                        ("fragment", &fragment),
                        ("user info", &user),
                    ],
                )
                .map_err(|e| TestCaseError::fail(format!("{callback:?}: {e}")))
            },
        )
        .unwrap();
}

/// SECURITY.md: a callback's "query values, fragment | sent ... and a known secret of the
/// request-token call (8 bytes and more, decoded and as written)". A query value is decoded two
/// ways by the readers a service may use (`+` is a space in form decoding, not in percent
/// decoding); the hostile service echoes the value as the other reading, and the fragment.
#[test]
fn a_callback_query_value_echoed_in_its_form_decoded_reading_is_removed() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(24)
        .run(
            &(canary("qa", 8), canary("qb", 8), canary("fr", 10), 0..4u8),
            |(a, b, fragment, reading)| {
                let written = format!("{a}+{b}%2B{a}%20{b}");
                let callback = format!("https://app.example/cb?state={written}#{fragment}");
                let echoed = match reading {
                    0 => format!("{a} {b}+{a} {b}"), // form decoding
                    1 => format!("{a}+{b}+{a} {b}"), // percent decoding
                    2 => written.clone(),            // as written
                    _ => fragment.clone(),
                };
                let shown = rt.block_on(async {
                    let stub = StubServer::start().await.unwrap();
                    let body = format!("oauth_problem=parameter_rejected&echo={echoed}");
                    stub.fallback(
                        SERVICE.oauth.request_token_path,
                        Reply::text(400, "text/plain", body.clone()),
                    );
                    let hooks = HookSeen::default();
                    let client = hooks
                        .install(builder(&stub.base_url(), "rt2-consumer-secret-value"))
                        .build()
                        .unwrap();
                    let error = client.request_token(Some(&callback)).await.unwrap_err();
                    let mut shown = error_texts("request-token error", &error);
                    shown.extend(hooks.texts());
                    shown
                });
                assert_none(&shown, &[("callback query value as echoed", &echoed)])
            },
        )
        .unwrap();
}

/// SECURITY.md: "`Verifier` ... callback URL given to `verifier_from_callback` | verifier |
/// ... errors show the callback through `Scrubber::url`", secret-named names matched with "ASCII
/// case and `_-. ` ignored", escaped names too. The verifier travels in a misspelled,
/// percent-escaped, repeated or fragment name, or is refused for its own content.
#[test]
fn verifier_from_callback_errors_show_no_verifier_in_any_name_spelling_or_place() {
    let _ = trace_buffer();
    let client = builder("http://127.0.0.1:9", "rt2-consumer-secret-value")
        .build()
        .unwrap();
    let request = RequestToken {
        token: "rt2-request-token".into(),
        secret: Secret::new("rt2-request-secret-value"),
        callback_confirmed: true,
    };
    runner(96)
        .run(
            &(canary("vf", 16), canary("vg", 16), 0..9u8, any::<bool>()),
            |(verifier, other, place, own_token)| {
                let token = if own_token {
                    "rt2-request-token"
                } else {
                    "rt2-forged-token"
                };
                let query = match place {
                    0 => format!("oauth_token={token}&OAuth-Verifier={verifier}"),
                    1 => format!("oauth_token={token}&oauth%5Fverifier={verifier}"),
                    2 => format!(
                        "oauth_token={token}&oauth_verifier={other}&oauth_verifier={verifier}"
                    ),
                    3 => format!("oauth_token={token}#oauth_verifier={verifier}"),
                    4 => format!("oauth_token={token}&oauth_verifier={verifier}%07"),
                    5 => format!("oauth_token={token}&oauth_verifier={verifier}%E2%80%AE{other}"),
                    6 => format!("oauth_token={token}&oauth_verifier=&oauth.verifier={verifier}"),
                    7 => format!("oauth_token={token};oauth_verifier={verifier}"),
                    _ => format!("oauth_token={token}&OAUTH_VERIFIER={verifier}&state=%zz"),
                };
                let callback = format!("myapp://cb?{query}");
                let shown = match client.verifier_from_callback(&request, &callback) {
                    Err(error) => error_texts("callback error", &error),
                    Ok(found) => {
                        vec![("verifier Debug".to_owned(), format!("{found:?} {found:#?}"))]
                    }
                };
                assert_none(
                    &shown,
                    &[("verifier", &verifier), ("other verifier", &other)],
                )
                .map_err(|e| TestCaseError::fail(format!("{callback}: {e}")))
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Credential headers the app sets, in unusual forms

/// SECURITY.md (credentials table, headers): "its value and the parts a service could echo alone
/// (the credentials after an auth scheme, `Basic`'s `user:password` decoded and each half ...)
/// are known secrets of the attempt that sends them ... if 8 bytes or more". The scheme in any
/// case, under several credential names; the service echoes one half alone.
#[test]
fn each_half_of_a_basic_credential_echoed_alone_is_removed_from_every_channel() {
    let rt = runtime();
    let _ = trace_buffer();
    let names = prop_oneof![
        Just("proxy-authorization"),
        Just("x-upstream-authorization"),
        Just("x-api-key"),
    ];
    let schemes = prop_oneof![Just("Basic"), Just("basic"), Just("BASIC")];
    runner(24)
        .run(
            &(
                names,
                schemes,
                canary("us", 10),
                canary("pw", 12),
                any::<bool>(),
                0..3u8,
            ),
            |(name, scheme, user, password, echo_user, place)| {
                let encoded =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                let header = format!("{scheme} {encoded}");
                let echoed = if echo_user {
                    user.clone()
                } else {
                    password.clone()
                };
                let reply = match place {
                    0 => Reply::text(500, "text/plain", format!("denied for {echoed}")),
                    1 => Reply::json(500, "{}").header("X-Rejected", &echoed),
                    _ => Reply::json(200, invoice_fixture()).header("X-Seen", &echoed),
                };
                let shown = call_with(
                    &rt,
                    "rt2-consumer-secret-value",
                    "rt2-token-secret-value",
                    reply,
                    move |o| o.header(HeaderName::from_static(name), value(header.as_bytes())),
                );
                assert_none(&shown, &[("half of a Basic credential", &echoed)])
            },
        )
        .unwrap();
}

/// SECURITY.md (credentials table, headers): a credential header from `CallOptions::header` is
/// a known secret; `CallOptions::header`: "a second value for the same name is added beside the
/// first". The service echoes the second (or first) value of a repeated credential header.
#[test]
fn every_value_of_a_repeated_credential_header_is_a_known_secret() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(16)
        .run(
            &(
                canary("ka", 16),
                canary("kb", 16),
                any::<bool>(),
                any::<bool>(),
            ),
            |(first, second, echo_second, via_field)| {
                let echoed = if echo_second {
                    second.clone()
                } else {
                    first.clone()
                };
                let reply = Reply::text(500, "text/plain", format!("unknown key {echoed}"));
                let (a, b) = (first.clone(), second.clone());
                let shown = call_with(
                    &rt,
                    "rt2-consumer-secret-value",
                    "rt2-token-secret-value",
                    reply,
                    move |mut o| {
                        let name = HeaderName::from_static("x-api-key");
                        if via_field {
                            o.headers.append(name.clone(), value(a.as_bytes()));
                            o.headers.append(name, value(b.as_bytes()));
                            o
                        } else {
                            o.header(name.clone(), value(a.as_bytes()))
                                .header(name, value(b.as_bytes()))
                        }
                    },
                );
                let options = CallOptions::default()
                    .header(
                        HeaderName::from_static("x-api-key"),
                        value(first.as_bytes()),
                    )
                    .header(
                        HeaderName::from_static("x-api-key"),
                        value(second.as_bytes()),
                    );
                let mut shown = shown;
                shown.push((
                    "CallOptions Debug".into(),
                    format!("{options:?} {options:#?}"),
                ));
                assert_none(&shown, &[("repeated credential header value", &echoed)])
            },
        )
        .unwrap();
}

/// SECURITY.md: a credential header's "value ... known secrets of the attempt", removed "in any
/// encoding" from every channel; the scrubber "reads text as bytes ... invalid UTF-8 ... cleaned
/// alike". A header value may hold obs-text bytes (`HeaderValue::from_bytes`); the service echoes
/// the exact bytes back, in a body that is not UTF-8 and in a header.
#[test]
fn a_credential_header_value_with_non_utf8_bytes_echoed_back_leaves_no_part_of_it() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(16)
        .run(
            &(canary("ha", 12), canary("hb", 12), 0x80..=0xffu8),
            |(head, tail, byte)| {
                let mut all = Vec::new();
                for place in 0..3u8 {
                    let mut secret = head.as_bytes().to_vec();
                    secret.push(byte);
                    secret.extend_from_slice(tail.as_bytes());
                    let mut body = b"rejected key: ".to_vec();
                    body.extend_from_slice(&secret);
                    let reply = match place {
                        0 => Reply::bytes(500, "text/plain", body),
                        1 => Reply::bytes(401, "application/x-www-form-urlencoded", {
                            let mut form = b"oauth_problem=key_rejected&key=".to_vec();
                            form.extend_from_slice(&secret);
                            form
                        }),
                        _ => Reply::json(200, invoice_fixture())
                            .header("X-Key-Seen", &format!("{head}\u{fffd}{tail}")),
                    };
                    let sent = secret.clone();
                    let shown = call_with(
                        &rt,
                        "rt2-consumer-secret-value",
                        "rt2-token-secret-value",
                        reply,
                        move |o| o.header(HeaderName::from_static("x-api-key"), value(&sent)),
                    );
                    for leak in leaks(
                        &shown,
                        &[
                            ("credential before the byte", &head),
                            ("credential after the byte", &tail),
                        ],
                    ) {
                        all.push(format!("echo {place}: {leak}"));
                    }
                }
                prop_assert!(all.is_empty(), "{}", all.join("\n---\n"));
                Ok(())
            },
        )
        .unwrap();
}

/// SECURITY.md (credentials table, headers): "a value the app marked sensitive" is a credential
/// header, its value a known secret; `CallOptions::headers`: "Credential headers added here
/// directly are marked sensitive when the call is sent". A value marked sensitive under a plain
/// name, put in the field directly (not through `header`), echoed in a body and a header.
#[test]
fn a_value_marked_sensitive_under_a_plain_name_in_the_options_field_is_a_known_secret() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(16)
        .run(&(canary("sv", 16), 0..3u8), |(secret, place)| {
            let reply = match place {
                0 => Reply::text(500, "text/plain", format!("request x-trace={secret} refused")),
                1 => Reply::json(403, format!(r#"{{"error":{{"code":"E_API_NOT_AUTHORIZED","message":"trace {secret}"}}}}"#)),
                _ => Reply::json(200, invoice_fixture()).header("X-Trace-Echo", &secret),
            };
            let sent = secret.clone();
            let shown = call_with(&rt, "rt2-consumer-secret-value", "rt2-token-secret-value", reply, move |mut o| {
                let mut marked = value(sent.as_bytes());
                marked.set_sensitive(true);
                o.headers.insert(HeaderName::from_static("x-trace"), marked);
                o
            });
            assert_none(&shown, &[("value marked sensitive", &secret)])
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Recordings

/// SECURITY.md: "recordings ... a recording holds no secret: fit to commit ... only
/// `KEPT_HEADERS` ... every text through the scrubber; the client's recorder gets what hooks
/// get, already cleaned of the call's secrets". The kept headers themselves (`content-type`,
/// `date`, `retry-after`) carry the app's credential header and the consumer secret.
#[test]
fn kept_headers_of_a_recording_carry_no_credential_the_app_sent() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(16)
        .run(
            &(canary("ak", 16), canary("cs", 20), 0..3u8, any::<bool>()),
            |(key, cs, header, success)| {
                let (name, text) = match header {
                    0 => (
                        "Content-Type",
                        format!("application/json; charset=utf-8; k={key}; c={cs}"),
                    ),
                    1 => ("Retry-After", format!("{key} {cs}")),
                    _ => ("Date", format!("Mon, 01 Jan 2024 00:00:00 GMT {key} {cs}")),
                };
                let reply = if success {
                    Reply::json(200, invoice_fixture())
                } else {
                    Reply::json(503, "{}")
                }
                .header(name, &text);
                let sent = key.clone();
                let shown = call_with(&rt, &cs, "rt2-token-secret-value", reply, move |o| {
                    o.header(HeaderName::from_static("x-api-key"), value(sent.as_bytes()))
                });
                assert_none(&shown, &[("x-api-key", &key), ("consumer secret", &cs)])
            },
        )
        .unwrap();
}

/// SECURITY.md: "`Exchange::redacted` (every field named, exhaustively): `oauth_*` parameters
/// dropped, secret-named ones blanked, only `KEPT_HEADERS`, ... every text through the
/// scrubber". A secret-named pair in each text field an exchange has: path, note, method, a
/// parameter's value, a kept header's value, the body, and names spelled with separators and
/// case.
#[test]
fn exchange_redacted_leaves_no_secret_named_value_in_any_text_field() {
    let names = prop_oneof![
        Just("password"),
        Just("Client-Secret"),
        Just("OAUTH_VERIFIER"),
        Just("private key"),
        Just("x.passwd"),
        Just("Oauth.Signature"),
    ];
    runner(64)
        .run(
            &(names, canary("sv", 16), 0..8u8),
            |(name, secret, field)| {
                let pair = format!("{name}={secret}");
                let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 500);
                exchange.path = "/api/pay/getInvoice".into();
                match field {
                    0 => exchange.path = format!("/api/pay/getInvoice;{pair}"),
                    1 => exchange.note = Some(format!("fault: {pair}")),
                    2 => exchange.method = format!("pay/getInvoice?{pair}"),
                    3 => {
                        exchange.params.insert("q".into(), pair.clone());
                    }
                    4 => {
                        exchange.params.insert(name.into(), secret.clone());
                    }
                    5 => {
                        exchange
                            .headers
                            .insert("content-type".into(), format!("text/plain; {pair}"));
                    }
                    6 => exchange.body = Some(format!("a=1&{pair}")),
                    _ => exchange.http_method = format!("GET {pair}"),
                }
                let redacted = exchange.clone().redacted();
                let shown = vec![
                    ("Exchange::redacted line".to_owned(), redacted.to_line()),
                    (
                        "Exchange::redacted Debug".to_owned(),
                        format!("{redacted:?}"),
                    ),
                    (
                        "Exchange::redacted serde".to_owned(),
                        serde_json::to_string(&redacted).unwrap(),
                    ),
                ];
                assert_none(&shown, &[("secret-named value", &secret)])
                    .map_err(|e| TestCaseError::fail(format!("field {field}, {pair}: {e}")))
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The scrubber through `redact`

#[derive(Clone, Copy, Debug)]
enum CharForm {
    Plain,
    PercentLower,
    JsonUpperHex,
    HtmlDecimalZeros,
    HtmlHexUpperX,
    HtmlNamed,
}

fn char_form(c: char, form: CharForm) -> String {
    match form {
        CharForm::Plain => c.to_string(),
        CharForm::PercentLower => c.to_string().bytes().map(|b| format!("%{b:02x}")).collect(),
        CharForm::JsonUpperHex => {
            let mut units = [0u16; 2];
            c.encode_utf16(&mut units)
                .iter()
                .map(|u| format!("\\u{u:04X}"))
                .collect()
        }
        CharForm::HtmlDecimalZeros => format!("&#000{};", u32::from(c)),
        CharForm::HtmlHexUpperX => format!("&#X{:x};", u32::from(c)),
        CharForm::HtmlNamed => match c {
            '&' => "&amp;".into(),
            '<' => "&lt;".into(),
            '>' => "&gt;".into(),
            '"' => "&quot;".into(),
            '\'' => "&apos;".into(),
            _ => format!("&#x{:x};", u32::from(c)),
        },
    }
}

fn outer_layer(text: &str, layer: u8) -> String {
    match layer {
        0 => percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC)
            .to_string(),
        1 => {
            let quoted = serde_json::to_string(text).unwrap();
            quoted[1..quoted.len() - 1].to_owned()
        }
        _ => text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('"', "&quot;"),
    }
}

/// SECURITY.md: "known secrets with each character plain or escaped, mixed (`known.rs`)", with
/// "views with one, two and three layers of percent, JSON and HTML escapes decoded". Per
/// character: lower-case percent, `\u` with upper-case hex, decimal entities with leading zeros,
/// `&#X..;` with an upper-case X, named entities; then at most two whole-text layers (three in
/// all).
#[test]
fn redact_removes_a_known_secret_escaped_per_character_in_unusual_spellings() {
    let forms = prop_oneof![
        Just(CharForm::Plain),
        Just(CharForm::PercentLower),
        Just(CharForm::JsonUpperHex),
        Just(CharForm::HtmlDecimalZeros),
        Just(CharForm::HtmlHexUpperX),
        Just(CharForm::HtmlNamed),
    ];
    runner(256)
        .run(
            &(
                proptest::string::string_regex("[a-zA-Z0-9&<>\"'/=+]{10,20}").unwrap(),
                proptest::collection::vec(forms, 20),
                proptest::collection::vec(0..3u8, 0..=2),
            ),
            |(secret, forms, layers)| {
                let mut encoded: String = secret
                    .chars()
                    .zip(forms.iter().cycle())
                    .map(|(c, form)| char_form(c, *form))
                    .collect();
                for layer in &layers {
                    encoded = outer_layer(&encoded, *layer);
                }
                let text = format!("upstream said: {encoded} (end)");
                let secret_value = Secret::new(secret.clone());
                let cleaned = redact(&text, &[&secret_value]);
                prop_assert!(
                    !cleaned.contains(&encoded) && !cleaned.contains(&secret),
                    "secret {secret:?} as {encoded:?} (forms {forms:?}, layers {layers:?}) kept: {cleaned}"
                );
                Ok(())
            },
        )
        .unwrap();
}

/// SECURITY.md: "any value under a secret-named name ... removed by structure", in "every shape
/// (`name=value`, `"name": value`, `<name>value</name>`, escaped strings inside strings, whole
/// objects and arrays)"; `redact`: "in JSON, form pairs, XML or text". Shapes a log line takes:
/// an XML attribute, JSON with white space and line breaks around the colon, a JSON number, a
/// `name: value` text line, a URL's query, a header line, a percent-encoded pair.
#[test]
fn redact_removes_secret_named_values_in_the_shapes_of_log_lines() {
    let names = prop_oneof![
        Just("password"),
        Just("Client_Secret"),
        Just("X-Api-Secret"),
        Just("oauth_verifier"),
        Just("PRIVATE.KEY"),
    ];
    runner(128)
        .run(
            &(
                names,
                proptest::string::string_regex("[a-z]{4}[0-9]{8}").unwrap(),
            ),
            |(name, secret)| {
                let mut kept = Vec::new();
                for shape in 0..9u8 {
                    let text = match shape {
                        0 => format!(
                            r#"<auth user="dana" {}="{secret}"/>"#,
                            name.replace(' ', "_")
                        ),
                        1 => {
                            format!("{{\"user\": \"dana\",\n  \"{name}\"\n  :\n  \"{secret}\"\n}}")
                        }
                        2 => format!(r#"{{"{name}": {}}}"#, &secret[4..]),
                        3 => format!("config loaded\n{name}: {secret}\nport: 8080"),
                        4 => format!("GET https://h.example/p?a=1&{name}={secret}&b=2 -> 500"),
                        5 => format!("{name}: {secret}\r\nContent-Type: text/plain"),
                        6 => format!(
                            "redirect to /cb%3F{}%3D{secret}%26x%3D1",
                            percent_encoding::utf8_percent_encode(
                                name,
                                percent_encoding::NON_ALPHANUMERIC
                            )
                        ),
                        7 => format!(
                            r#"{{"data": {{"{name}": ["{secret}", {{"x": "{secret}"}}]}}}}"#
                        ),
                        _ => format!(r#"{{"{name}":{{"value":"{secret}"}}}}"#),
                    };
                    let cleaned = redact(&text, &[]);
                    if cleaned.contains(&secret[4..]) {
                        kept.push(format!("shape {shape}:\n{text}\n->\n{cleaned}"));
                    }
                }
                prop_assert!(
                    kept.is_empty(),
                    "{name} value kept in {} shapes:\n{}",
                    kept.len(),
                    kept.join("\n---\n")
                );
                Ok(())
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Debug of the credential types in every formatting

/// SECURITY.md: "`Debug` and `Display` of every public type ... no secret and no credential the
/// app configured, in any field": hand-written `Debug` for `Secret`, `Verifier`, `Client`,
/// `Session`, `ClientBuilder`, `CallOptions`. Every formatting an app's logger may use: plain,
/// alternate (`{:#?}`), padded, with precision; of clones; and `Verifier::new`'s refusal ("never
/// showing the verifier").
#[test]
fn credential_types_show_no_secret_in_any_debug_formatting_or_clone() {
    let _ = trace_buffer();
    runner(24)
        .run(
            &(
                canary("cs", 16),
                canary("ts", 16),
                canary("vf", 16),
                canary("hk", 16),
            ),
            |(cs, ts, verifier, header)| {
                let consumer = ConsumerCredentials::new(KEY, cs.clone());
                let token = AccessToken::new("rt2-access", ts.clone(), Timestamp::now());
                let request = RequestToken {
                    token: "rt2-request".into(),
                    secret: Secret::new(ts.clone()),
                    callback_confirmed: true,
                };
                let verified = Verifier::new(&verifier).unwrap();
                let mut options = CallOptions::default().header(
                    HeaderName::from_static("x-api-key"),
                    value(header.as_bytes()),
                );
                options.headers.append(
                    HeaderName::from_static("cookie"),
                    value(format!("sid={header}").as_bytes()),
                );
                let builder = Client::builder("http://127.0.0.1:9/base", consumer.clone());
                let builder_shown = format!("{builder:?} {builder:#?}");
                let client = builder.build().unwrap();
                let session = client.session(token.clone());
                let refused = Verifier::new(&format!("{verifier}\u{7}{verifier}")).unwrap_err();
                let refused_bidi = Verifier::new(&format!("{verifier}\u{2066}")).unwrap_err();
                let (
                    consumer_clone,
                    request_clone,
                    verifier_clone,
                    options_clone,
                    client_clone,
                    session_clone,
                ) = (
                    consumer.clone(),
                    request.clone(),
                    verified.clone(),
                    options.clone(),
                    client.clone(),
                    session.clone(),
                );
                let items: Vec<(&str, &dyn std::fmt::Debug)> = vec![
                    ("Secret", &consumer.secret),
                    ("ConsumerCredentials clone", &consumer_clone),
                    ("AccessToken", &token),
                    ("AccessToken::secret", token.secret()),
                    ("RequestToken clone", &request_clone),
                    ("Verifier clone", &verifier_clone),
                    ("CallOptions clone", &options_clone),
                    ("Client clone", &client_clone),
                    ("Session clone", &session_clone),
                    ("Session::token", session.token()),
                    ("Verifier::new refusal", &refused),
                    ("Verifier::new bidi refusal", &refused_bidi),
                ];
                let mut shown = vec![("ClientBuilder".to_owned(), builder_shown)];
                for (what, item) in items {
                    shown.push((
                        what.to_owned(),
                        format!(
                            "{item:?} {item:#?} {item:>200?} {item:<3?} {item:.4?} {item:#.2?}"
                        ),
                    ));
                }
                shown.push((
                    "Verifier::new refusal Display".into(),
                    format!("{refused} {refused_bidi}"),
                ));
                assert_none(
                    &shown,
                    &[
                        ("consumer secret", &cs),
                        ("token secret", &ts),
                        ("verifier", &verifier),
                        ("credential header", &header),
                    ],
                )
            },
        )
        .unwrap();
}

/// SECURITY.md (credentials table): "`AccessToken`, `RequestToken` given back | secret | ... a
/// known secret of the calls that sign with it and remembered (`registry.rs`)"; "the client's
/// secrets of other calls too (the last 64 token secrets and verifiers)". The timing of when a
/// secret becomes known: a session restored by deserializing a token (never given back by the
/// service to this client), used on a *clone* of the client; a later call of another session of
/// the original client is answered with the first session's token secret.
#[test]
fn a_restored_token_used_on_a_clone_is_remembered_by_the_original_client() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(8)
        .run(
            &(canary("ts", 20), canary("tu", 20)),
            |(restored, other)| {
                let shown = rt.block_on(async {
                    let stub = StubServer::start().await.unwrap();
                    stub.fallback(invoice_path(), Reply::text(500, "text/plain", "first call"));
                    let hooks = HookSeen::default();
                    let client = hooks
                        .install(builder(&stub.base_url(), "rt2-consumer-secret-value"))
                        .build()
                        .unwrap();
                    let saved = serde_json::to_string(&AccessToken::new(
                        "rt2-restored",
                        restored.clone(),
                        Timestamp::now(),
                    ))
                    .unwrap();
                    let token: AccessToken = serde_json::from_str(&saved).unwrap();
                    let clone = client.clone();
                    let _ = clone.session(token).get_invoice(9003).send().await;
                    stub.fallback(
                        invoice_path(),
                        Reply::text(500, "text/plain", format!("wrong secret: {restored}")),
                    );
                    let error = session_of(&client, &other)
                        .get_invoice(9003)
                        .send()
                        .await
                        .unwrap_err();
                    let mut shown = error_texts("later call's error", &error);
                    shown.extend(hooks.texts());
                    shown
                });
                assert_none(&shown, &[("restored token secret", &restored)])
            },
        )
        .unwrap();
}

#[test]
fn harness_paths_are_the_services() {
    // The stub answers the exact path the client requests; a mismatch would make every
    // network case above test a 404 instead.
    assert!(invoice_path().starts_with('/'), "{}", invoice_path());
    let rt = runtime();
    rt.block_on(async {
        let stub = StubServer::start().await.unwrap();
        stub.fallback(invoice_path(), Reply::json(200, invoice_fixture()));
        let client = builder(&stub.base_url(), "rt2-consumer-secret-value")
            .build()
            .unwrap();
        session_of(&client, "rt2-token-secret-value")
            .get_invoice(9003)
            .send()
            .await
            .unwrap();
    });
    let _ = std::io::stdout().flush();
}

// ---------------------------------------------------------------------------------------------
// Secrets in names: decode paths

/// SECURITY.md: `Error` holds "no secret, in any variant or field" ("decode messages" cleaned
/// where they are made); the consumer and token secrets are removed "by value ... from every
/// channel". A collection the service sends "as objects keyed `"0"`, `"1"`" has a key that is
/// the consumer secret (or the token secret) and a value that does not decode: the secret is a
/// JSON *name*, and lands in `Error::Decode::path` and its message.
#[test]
fn a_secret_as_a_collection_key_reaches_no_decode_path_or_message() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(12)
        .run(
            &(
                canary("cs", 20),
                canary("ts", 20),
                any::<bool>(),
                any::<bool>(),
            ),
            |(cs, ts, consumer, break_value)| {
                let secret = if consumer { cs.clone() } else { ts.clone() };
                let mut body: serde_json::Value = serde_json::from_slice(
                    &fixtures::read("pay/getTimesheetsForBid.json").unwrap(),
                )
                .unwrap();
                let sheets = body["data"]["timesheets"].as_object_mut().unwrap();
                let mut sheet = sheets.remove("1").unwrap();
                if break_value {
                    sheet["rate"] = serde_json::Value::String("not a rate".into());
                }
                sheets.insert(secret.clone(), sheet);
                let shown = rt.block_on(async {
                    let stub = StubServer::start().await.unwrap();
                    stub.fallback(
                        marketplace_client::GetTimesheetsForBid::PATH,
                        Reply::json(200, body.to_string()),
                    );
                    let hooks = HookSeen::default();
                    let client = hooks
                        .install(builder(&stub.base_url(), &cs))
                        .build()
                        .unwrap();
                    let result = session_of(&client, &ts)
                        .get_timesheets_for_bid(310001)
                        .send()
                        .await;
                    let mut shown = hooks.texts();
                    match result {
                        Err(error) => {
                            if let Error::Decode {
                                path,
                                message,
                                excerpt,
                                ..
                            } = &error
                            {
                                shown.push(("Decode::path".into(), path.clone()));
                                shown.push(("Decode::message".into(), message.clone()));
                                shown.push(("Decode::excerpt".into(), excerpt.clone()));
                            }
                            shown.extend(error_texts("decode error", &error));
                        }
                        Ok(list) => shown.push((
                            "decoded".into(),
                            format!(
                                "{} items",
                                marketplace_client::paging::Page::into_items(list).len()
                            ),
                        )),
                    }
                    shown
                });
                assert_none(&shown, &[("known secret as a key", &secret)])
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Readers of recordings: their errors quote the line

/// SECURITY.md: "any value under a secret-named name ... removed by structure" from every
/// channel, and "`Debug` and `Display` of every public type". Recordings are committed files a
/// pull request can change; a line that is not an exchange is an error (`Exchange::from_line`,
/// `recording::read`'s `RecordingError::Line`, the fake's `Replay::from_files`). Its message
/// quotes what serde read: a secret-named parameter of the wrong type, or a field holding a
/// secret-named pair.
#[test]
fn errors_of_recording_readers_quote_no_secret_named_value_of_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = marketplace_client::files::OutputDir::open(dir.path()).unwrap();
    runner(24)
        .run(
            &(
                prop_oneof![
                    Just("password"),
                    Just("Client_Secret"),
                    Just("oauth_verifier")
                ],
                proptest::string::string_regex("[1-9][0-9]{15}").unwrap(),
            ),
            |(name, secret)| {
                let mut all = Vec::new();
                for place in 0..4u8 {
                    let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 200);
                    exchange.path = "/api/pay/getInvoice".into();
                    let mut line: serde_json::Value =
                        serde_json::from_str(&exchange.to_line()).unwrap();
                    match place {
                        0 => {
                            line["params"] =
                                serde_json::json!({ name: secret.parse::<u64>().unwrap() })
                        }
                        1 => line["status"] = serde_json::Value::String(format!("{name}={secret}")),
                        2 => line["attempt"] = serde_json::json!({ name: secret }),
                        _ => {
                            line["headers"] =
                                serde_json::json!({ "content-type": [format!("{name}={secret}")] })
                        }
                    }
                    let text = line.to_string();
                    let mut shown = Vec::new();
                    match Exchange::from_line(&text) {
                        Err(message) => {
                            shown.push(("Exchange::from_line error".to_owned(), message))
                        }
                        Ok(read) => {
                            shown.push(("Exchange::from_line read".to_owned(), format!("{read:?}")))
                        }
                    }
                    out.write("bad.jsonl", format!("{text}\n")).unwrap();
                    let file = dir.path().join("bad.jsonl");
                    match marketplace_client::recording::read(&file) {
                        Err(error) => shown.push((
                            "recording::read error".to_owned(),
                            format!("{error} {error:?}"),
                        )),
                        Ok(read) => shown.push(("recording::read".to_owned(), format!("{read:?}"))),
                    }
                    if let Err(error) = marketplace_tests::fake::Replay::from_files([&file]) {
                        shown.push((
                            "Replay::from_files error".to_owned(),
                            format!("{error} {error:?}"),
                        ));
                    }
                    for leak in leaks(&shown, &[("secret-named value", &secret)]) {
                        all.push(format!("line {text}: {leak}"));
                    }
                }
                prop_assert!(all.is_empty(), "{}", all.join("\n---\n"));
                Ok(())
            },
        )
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Redirect locations

/// SECURITY.md: "redirect locations through `Scrubber::url`"; `Error::Redirect::location`: "with
/// OAuth parameters, passwords and known secrets removed"; secret-named names "ASCII case and
/// `_-. ` ignored" in every shape. Locations a hostile service writes: relative, scheme-relative,
/// a matrix parameter, a fragment, an escaped name, a name with separators.
#[test]
fn a_redirect_location_shows_no_secret_named_value_in_any_url_part() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(32)
        .run(&canary("rv", 16), |secret| {
            let mut all = Vec::new();
            for form in 0..8u8 {
                let location = match form {
                    0 => format!("/next?Client-Secret={secret}"),
                    1 => format!("//evil.example/next?pass%77ord={secret}"),
                    2 => format!("https://evil.example/next#password={secret}"),
                    3 => format!("https://evil.example/next;password={secret}?x=1"),
                    4 => format!("https://evil.example/next?x=1&OAuth.Verifier={secret}"),
                    5 => format!("https://evil.example/next?redirect=%2Fcb%3Fpassword%3D{secret}"),
                    6 => format!("https://evil.example/next?private%20key={secret}"),
                    _ => format!("myapp:cb?oauth_signature={secret}"),
                };
                let reply = Reply::redirect(302, &location);
                let shown = call_with(
                    &rt,
                    "rt2-consumer-secret-value",
                    "rt2-token-secret-value",
                    reply,
                    |o| o,
                );
                prop_assert!(
                    shown
                        .iter()
                        .any(|(c, t)| c.starts_with("error") && t.contains("edirect")),
                    "not a redirect refusal: {shown:?}"
                );
                for leak in leaks(&shown, &[("secret-named value in a location", &secret)]) {
                    all.push(format!("Location {location}: {leak}"));
                }
            }
            prop_assert!(all.is_empty(), "{}", all.join("\n---\n"));
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Encodings of the app's own secrets, and bodies that arrive in pieces

/// SECURITY.md (credentials table): "`ConsumerCredentials` | secret | ... a known secret of every
/// call"; "`AccessToken` ... secret ... a known secret of the calls that sign with it", removed
/// "in any encoding". Secrets with spaces, `&`, `=` and `+`: the service echoes them
/// form-encoded (a space as `+`), as the signing key (`consumer&token`, each percent-encoded),
/// and HTML-escaped.
#[test]
fn secrets_with_spaces_and_delimiters_echoed_form_encoded_or_as_the_signing_key_are_removed() {
    let rt = runtime();
    let _ = trace_buffer();
    let texts =
        || proptest::string::string_regex("[a-z0-9]{4}( |&|=|\\+)[a-z0-9]{4} [a-z0-9]{4}").unwrap();
    runner(24)
        .run(&(texts(), texts(), 0..4u8), |(cs, ts, form)| {
            let form_encode = |s: &str| -> String {
                s.bytes()
                    .map(|b| match b {
                        b' ' => "+".to_owned(),
                        b'a'..=b'z' | b'0'..=b'9' => (b as char).to_string(),
                        _ => format!("%{b:02X}"),
                    })
                    .collect()
            };
            let rfc3986 = |s: &str| {
                percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC)
                    .to_string()
            };
            let (echo, look_for): (String, Vec<String>) = match form {
                0 => (
                    format!(
                        "oauth_problem=x&c={}&t={}",
                        form_encode(&cs),
                        form_encode(&ts)
                    ),
                    vec![form_encode(&cs), form_encode(&ts)],
                ),
                1 => {
                    let key = format!("{}&{}", rfc3986(&cs), rfc3986(&ts));
                    (format!("signing key was {key}"), vec![key])
                }
                2 => {
                    let html = |s: &str| s.replace('&', "&amp;");
                    (
                        format!("<p>{}</p><p>{}</p>", html(&cs), html(&ts)),
                        vec![html(&cs), html(&ts)],
                    )
                }
                _ => (
                    format!("{{\"c\":{}}}", serde_json::to_string(&cs).unwrap()),
                    vec![cs.clone()],
                ),
            };
            let reply = Reply::text(500, "text/plain", echo.clone());
            let shown = call_with(&rt, &cs, &ts, reply, |o| o);
            let named: Vec<(&str, &str)> = look_for
                .iter()
                .map(|s| ("secret as echoed", s.as_str()))
                .chain([
                    ("consumer secret", cs.as_str()),
                    ("token secret", ts.as_str()),
                ])
                .collect();
            assert_none(&shown, &named)
                .map_err(|e| TestCaseError::fail(format!("echo {echo}: {e}")))
        })
        .unwrap();
}

/// SECURITY.md: response hooks show "no secret in any answer's body"; errors hold bodies
/// "cleaned where [they were] made". A body that arrives in two pieces with a pause between
/// them, the cut inside the consumer secret (the stub sends the first half, waits, then the
/// rest), must be cleaned as one text.
#[test]
fn a_secret_split_across_two_pieces_of_a_stalled_body_is_still_removed() {
    let rt = runtime();
    let _ = trace_buffer();
    runner(12)
        .run(
            &(canary("cs", 24), 0..24usize, any::<bool>()),
            |(cs, cut, json)| {
                // The body's middle (where the stub pauses) falls `cut` bytes into the secret.
                let tail = "z".repeat(40);
                let head_len = 40 + cs.len() - 2 * cut;
                let head = "y".repeat(head_len.max(1));
                let body = format!("{head}{cs}{tail}");
                let reply = if json {
                    Reply::json(502, format!("{{\"m\":\"{body}\"}}"))
                } else {
                    Reply::text(502, "text/plain", body)
                }
                .stalled(std::time::Duration::from_millis(30));
                let shown = call_with(&rt, &cs, "rt2-token-secret-value", reply, |o| o);
                assert_none(&shown, &[("consumer secret", &cs)])
            },
        )
        .unwrap();
}
