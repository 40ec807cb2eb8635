//! Red team: SECURITY.md, "Output channels: no secret leaves the process", and its subsection
//! "Credentials the app hands the client and the service hands back".
//!
//! Each test attacks one sentence of that section with a shape, an encoding or a route the
//! project's own suites (`canary.rs`, `public_debug.rs`, `redaction.rs`, `hooks.rs`, …) do not
//! try. A hostile service is played by a raw HTTP/1.1 server written here (on 127.0.0.1, an
//! OS-chosen port), so that a test controls every byte it sends: the status line, header names,
//! header bytes that are not UTF-8. Every case watches every channel at once: the error's
//! `Display`, `Debug` and `source()` chain, what request and response hooks see (`Debug`, URL,
//! headers, body), `ResponseMeta` (`Debug` and headers), a recording (`ClientBuilder::record`)
//! and a global TRACE subscriber that also hears the HTTP stack's `log` records.
//!
//! `RED_TEAM_CASES` sets the number of cases of each generator (24 by default).

use marketplace_tests::runtime;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use base64::Engine as _;
use marketplace_client::jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, Verifier};
use marketplace_client::recording::Recorder;
use marketplace_client::reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use marketplace_client::{
    CallOptions, Client, ClientBuilder, ConsumerCredentials, Error, RetryPolicy, Secret, Session,
    redact,
};
use marketplace_tests::fixtures;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

// ---------------------------------------------------------------------------------------------
// A raw hostile service.

/// One request the raw server read.
#[derive(Clone, Debug)]
struct Req {
    head: String,
    #[allow(dead_code)]
    body: Vec<u8>,
}

impl Req {
    fn target(&self) -> &str {
        self.head.split(' ').nth(1).unwrap_or("")
    }

    fn path(&self) -> &str {
        self.target().split('?').next().unwrap_or("")
    }

    fn header(&self, name: &str) -> Option<String> {
        self.head.split("\r\n").skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }

    /// An OAuth parameter of the `Authorization` header, percent-decoded.
    fn oauth(&self, name: &str) -> Option<String> {
        let header = self.header("authorization")?;
        let start = header.find(&format!("{name}=\""))? + name.len() + 2;
        let end = header[start..].find('"')? + start;
        Some(decode_percent(&header[start..end]))
    }

    /// The request's signature as the client computed it (base64).
    fn signature(&self) -> String {
        self.oauth("oauth_signature").unwrap_or_default()
    }
}

fn decode_percent(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

type Responder = Arc<dyn Fn(&Req, usize) -> Vec<u8> + Send + Sync>;

/// A raw HTTP/1.1 server: each connection is read up to the end of its request, answered with
/// the bytes the current responder makes, then closed.
struct Raw {
    base: String,
    requests: Arc<Mutex<Vec<Req>>>,
    responder: Arc<Mutex<Responder>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Raw {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Raw {
    async fn start(responder: impl Fn(&Req, usize) -> Vec<u8> + Send + Sync + 'static) -> Raw {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests: Arc<Mutex<Vec<Req>>> = Arc::default();
        let responder: Arc<Mutex<Responder>> = Arc::new(Mutex::new(Arc::new(responder)));
        let (seen, answer) = (requests.clone(), responder.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (seen, answer) = (seen.clone(), answer.clone());
                tokio::spawn(async move {
                    let mut buffer = Vec::new();
                    let mut chunk = [0u8; 4096];
                    let head_end = loop {
                        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                            break at + 4;
                        }
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
                    let mut request = Req {
                        head,
                        body: Vec::new(),
                    };
                    let length: usize = request
                        .header("content-length")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0);
                    while buffer.len() < head_end + length {
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                        }
                    }
                    request.body = buffer[head_end..].to_vec();
                    let index = {
                        let mut all = seen.lock().unwrap();
                        all.push(request.clone());
                        all.len() - 1
                    };
                    let respond = answer.lock().unwrap().clone();
                    let bytes = respond(&request, index);
                    let _ = socket.write_all(&bytes).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        Raw {
            base,
            requests,
            responder,
            task,
        }
    }

    fn answer(&self, responder: impl Fn(&Req, usize) -> Vec<u8> + Send + Sync + 'static) {
        *self.responder.lock().unwrap() = Arc::new(responder);
    }

    fn requests(&self) -> Vec<Req> {
        self.requests.lock().unwrap().clone()
    }
}

/// An HTTP/1.1 answer: `status_line` is what follows `HTTP/1.1 `.
fn response(status_line: &str, headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status_line}\r\n").into_bytes();
    for (name, value) in headers {
        out.extend_from_slice(name);
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    out.extend_from_slice(b"Connection: close\r\n\r\n");
    out.extend_from_slice(body);
    out
}

fn json(status_line: &str, body: &str) -> Vec<u8> {
    response(
        status_line,
        &[(b"Content-Type", b"application/json")],
        body.as_bytes(),
    )
}

fn invoice_body() -> String {
    String::from_utf8(fixtures::read("pay/getInvoice.json").unwrap()).unwrap()
}

fn timesheets_body() -> String {
    String::from_utf8(fixtures::read("pay/getTimesheetsForBid.json").unwrap()).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The channels.

/// Everything a reader of the app's logs could see, by channel.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(String, String)>>>);

impl Seen {
    fn push(&self, channel: &str, text: String) {
        self.0.lock().unwrap().push((channel.to_owned(), text));
    }

    fn take(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }

    fn text_from(&self, from: usize) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()[from..]).into_owned()
    }

    fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

/// A global TRACE subscriber (spans with their fields, at open and close) that also hears the
/// `log` records of the HTTP stack.
fn traces() -> &'static Buffer {
    static TRACES: OnceLock<Buffer> = OnceLock::new();
    TRACES.get_or_init(|| {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let _ = tracing_log::LogTracer::init();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
            .with_writer(move || writer.clone())
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
        buffer
    })
}

fn headers_text(headers: &HeaderMap) -> String {
    headers
        .iter()
        .map(|(name, value)| {
            format!(
                "{}: {}\n",
                name.as_str(),
                String::from_utf8_lossy(value.as_bytes())
            )
        })
        .collect()
}

/// A client builder whose every channel is watched: both kinds of hooks and a recorder.
struct Watched {
    seen: Seen,
    traces_from: usize,
    recording: Buffer,
    recorder: Recorder,
}

impl Watched {
    fn new() -> Watched {
        traces();
        let recording = Buffer::default();
        Watched {
            seen: Seen::default(),
            traces_from: traces().len(),
            recorder: Recorder::to_writer(recording.clone()),
            recording,
        }
    }

    fn builder(&self, base: &str, consumer_secret: &str) -> ClientBuilder {
        let (on_request, on_response) = (self.seen.clone(), self.seen.clone());
        Client::builder(base, ConsumerCredentials::new("app-key", consumer_secret))
            .allow_plain_http_oauth_on_loopback()
            .retry(RetryPolicy::none())
            .deadline(Duration::from_secs(10))
            .on_request(move |request| {
                on_request.push("request hook Debug", format!("{request:?}"));
                // The values are the app's own; what a hook prints is the map's `Debug`.
                on_request.push(
                    "request hook HeaderMap Debug",
                    format!("{:?}", request.headers()),
                );
            })
            .on_response(move |response| {
                on_response.push("response hook Debug", format!("{response:?}"));
                on_response.push("response hook url", response.url().to_string());
                on_response.push("response hook headers", headers_text(response.headers()));
                on_response.push(
                    "response hook params",
                    format!("{:?}", response.params().collect::<Vec<_>>()),
                );
                if let Some(body) = response.body() {
                    on_response.push(
                        "response hook body",
                        String::from_utf8_lossy(body).into_owned(),
                    );
                }
            })
            .record(self.recorder.clone())
    }

    fn error(&self, what: &str, error: &Error) {
        self.seen
            .push(&format!("{what}: error Display"), error.to_string());
        self.seen
            .push(&format!("{what}: error Debug"), format!("{error:?}"));
        if let Some(code) = error.code() {
            self.seen.push(
                &format!("{what}: Error::code()"),
                format!("{code:?} {code}"),
            );
        }
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            self.seen.push(
                &format!("{what}: error source"),
                format!("{cause} {cause:?}"),
            );
            source = cause.source();
        }
    }

    fn result<T>(&self, what: &str, result: &Result<marketplace_client::Response<T>, Error>) {
        match result {
            Ok(response) => {
                self.seen.push(
                    &format!("{what}: ResponseMeta Debug"),
                    format!("{:?}", response.meta),
                );
                self.seen.push(
                    &format!("{what}: ResponseMeta headers"),
                    headers_text(response.meta.headers()),
                );
                self.seen.push(
                    &format!("{what}: ResponseMeta api"),
                    format!("{} {}", response.meta.api(), response.meta.api_version()),
                );
            }
            Err(error) => self.error(what, error),
        }
    }

    /// Every text of every channel so far (the recording flushed first), and forgets them.
    fn drain(&self) -> Vec<(String, String)> {
        let _ = self.recorder.flush();
        let mut all = self.seen.take();
        all.push(("recording".into(), self.recording.text()));
        self.recording.clear();
        all.push(("tracing".into(), traces().text_from(self.traces_from)));
        all
    }
}

/// `Err` naming the channel and showing where, if any of `forbidden` shows anywhere.
fn clean(seen: &[(String, String)], forbidden: &[(&str, String)]) -> Result<(), String> {
    let mut found = Vec::new();
    for (label, needle) in forbidden {
        if needle.is_empty() {
            continue;
        }
        for (channel, text) in seen {
            if let Some(at) = text.find(needle.as_str()) {
                let mut from = at.saturating_sub(80);
                while !text.is_char_boundary(from) {
                    from -= 1;
                }
                let mut to = (at + needle.len() + 80).min(text.len());
                while !text.is_char_boundary(to) {
                    to += 1;
                }
                found.push(format!(
                    "{label} ({needle:?}) in {channel}: …{}…",
                    text[from..to].escape_debug()
                ));
            }
        }
    }
    if found.is_empty() {
        Ok(())
    } else {
        found.truncate(6);
        Err(found.join("\n"))
    }
}

fn check(seen: &[(String, String)], forbidden: &[(&str, String)]) {
    if let Err(found) = clean(seen, forbidden) {
        panic!("a secret left the process:\n{found}");
    }
}

fn cases() -> u32 {
    std::env::var("RED_TEAM_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24)
}

/// Runs `body` over `strategy` with proptest (shrinking included), on one tokio runtime.
fn generate<S: Strategy>(
    strategy: S,
    body: impl Fn(&tokio::runtime::Runtime, S::Value) -> Result<(), String>,
) where
    S::Value: std::fmt::Debug,
{
    let runtime = marketplace_tests::runtime();
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    if let Err(error) = runner.run(&strategy, |value| {
        body(&runtime, value).map_err(TestCaseError::fail)
    }) {
        panic!("{error}");
    }
}

/// A random string of `n` characters of `alphabet` (for the cases that are not generators).
fn random(alphabet: &str, n: usize) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let alphabet: Vec<char> = alphabet.chars().collect();
    let state = RandomState::new();
    (0..n)
        .map(|i| {
            let mut hasher = state.build_hasher();
            hasher.write_usize(i);
            hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
            alphabet[(hasher.finish() % alphabet.len() as u64) as usize]
        })
        .collect()
}

const ALNUM: &str = "abcdefghijklmnopqrstuvwxyz0123456789";

fn session(client: &Client, token_secret: &str) -> Session {
    client.session(AccessToken::new(
        "access-token",
        token_secret,
        Timestamp::now(),
    ))
}

fn percent_all_lower(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02x}")).collect()
}

fn error_body() -> String {
    r#"{"api":"pay/getBilling","apiVersion":1,"rcode":0,"error":{"code":"E_VALIDATION_INVALID_ID","type":"validation","message":"no such invoice"}}"#.to_owned()
}

/// The body of a status line: an invoice for a 2xx, an API error otherwise.
fn body_for(status: &str) -> String {
    if status.starts_with('2') {
        invoice_body()
    } else {
        error_body()
    }
}

/// Every signature the raw server received.
fn signatures(raw: &Raw) -> Vec<(&'static str, String)> {
    raw.requests()
        .iter()
        .map(|request| ("signature", request.signature()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Header names, header bytes, status lines.

/// SECURITY.md, response hooks row: "no secret in any answer's body or header, data answers
/// included" (`Scrubber::headers`: "credential headers and secret-named ones lose their
/// values"); response metadata row: "as hooks". A header is a name and a value: here the
/// hostile service writes the consumer secret or the token secret as a response header's *name*
/// (as is, inside a longer name, or percent-encoded), which no value rule looks at.
#[test]
fn a_known_secret_sent_as_a_response_header_name_is_not_shown() {
    let strategy = (
        "[a-z0-9]{8}[!#$&'*+.^_|~-][a-z0-9]{8}",
        "[a-z0-9]{20}",
        any::<bool>(),
        0..3u8,
        prop::sample::select(vec![
            "200 OK",
            "401 Unauthorized",
            "503 Service Unavailable",
        ]),
    );
    generate(
        strategy,
        |runtime, (consumer, token, of_consumer, form, status)| {
            runtime.block_on(async {
                let secret = if of_consumer { &consumer } else { &token };
                let name = match form {
                    0 => secret.clone(),
                    1 => format!("x-{secret}-echo"),
                    _ => percent_all_lower(secret),
                };
                let header = name.clone();
                let raw = Raw::start(move |_, _| {
                    response(
                        status,
                        &[
                            (b"Content-Type", b"application/json"),
                            (header.as_bytes(), b"1"),
                        ],
                        body_for(status).as_bytes(),
                    )
                })
                .await;
                let watched = Watched::new();
                let client = watched.builder(&raw.base, &consumer).build().unwrap();
                let result = session(&client, &token)
                    .get_invoice(9003)
                    .send_with_metadata()
                    .await;
                watched.result("get_invoice", &result);
                clean(
                    &watched.drain(),
                    &[
                        ("consumer secret", consumer.clone()),
                        ("token secret", token.clone()),
                        ("the header name", name),
                    ],
                )
            })
        },
    );
}

/// `ReceivedResponse::headers`: "any other value without a secret-named pair or one of the
/// call's secrets in it"; SECURITY.md: "no secret in any answer's body or header". Header values
/// are bytes, not text: obs-text (a Latin-1 `é`, `0xFF`, a lone continuation byte: not UTF-8)
/// next to a secret of the call (consumer secret, token secret, the attempt's signature), in a
/// plain header, in the content type (which recordings keep), a `Location` (which
/// `Error::Redirect` shows) and a `Link`.
#[test]
fn a_known_secret_beside_bytes_that_are_not_utf8_in_a_header_value_is_not_shown() {
    let strategy = (
        "[a-z0-9]{20}",
        "[a-z0-9]{20}",
        0..3usize,
        prop::sample::select(vec![
            "X-Echo",
            "Content-Type",
            "Location",
            "Link",
            "Warning",
        ]),
        prop::sample::select(vec![&b"\xe9"[..], b"caf\xe9 ", b"\xff", b""]),
        prop::sample::select(vec![&b"\x80"[..], b"\xfe\xff", b""]),
        prop::sample::select(vec!["200 OK", "401 Unauthorized", "302 Found"]),
    );
    generate(
        strategy,
        |runtime, (consumer, token, which, name, before, after, status)| {
            runtime.block_on(async {
                let (c, t) = (consumer.clone(), token.clone());
                let raw = Raw::start(move |request, _| {
                    let secret = match which {
                        0 => c.clone(),
                        1 => t.clone(),
                        _ => request.signature(),
                    };
                    let mut value = match name {
                        "Content-Type" => b"text/plain; charset=".to_vec(),
                        "Location" => b"http://127.0.0.1:9/cb?state=".to_vec(),
                        "Link" => b"</next/".to_vec(),
                        "Warning" => b"199 - \"".to_vec(),
                        _ => Vec::new(),
                    };
                    value.extend_from_slice(before);
                    value.extend_from_slice(secret.as_bytes());
                    value.extend_from_slice(after);
                    if name == "Link" {
                        value.extend_from_slice(b">; rel=\"next\"");
                    }
                    let mut headers: Vec<(&[u8], &[u8])> = vec![(name.as_bytes(), &value)];
                    if name != "Content-Type" {
                        headers.push((b"Content-Type", b"application/json"));
                    }
                    response(status, &headers, body_for(status).as_bytes())
                })
                .await;
                let watched = Watched::new();
                let client = watched.builder(&raw.base, &consumer).build().unwrap();
                let result = session(&client, &token)
                    .get_invoice(9003)
                    .send_with_metadata()
                    .await;
                watched.result("get_invoice", &result);
                let mut forbidden = vec![
                    ("consumer secret", consumer.clone()),
                    ("token secret", token.clone()),
                ];
                forbidden.extend(signatures(&raw));
                clean(&watched.drain(), &forbidden)
            })
        },
    );
}

/// SECURITY.md: "no secret in any answer's body or header" and, for errors, "no secret, in any
/// variant or field". The status line's reason phrase is neither a header nor the body: the
/// service puts a secret of the call, or a secret-named pair, there.
#[test]
fn a_secret_in_the_status_lines_reason_phrase_is_not_shown() {
    let strategy = (
        "[a-z0-9]{20}",
        "[a-z0-9]{20}",
        "[a-z0-9]{16}",
        0..4usize,
        prop::sample::select(vec!["200", "401", "500", "418"]),
    );
    generate(
        strategy,
        |runtime, (consumer, token, canary, which, code)| {
            runtime.block_on(async {
                let (c, t, k) = (consumer.clone(), token.clone(), canary.clone());
                let raw = Raw::start(move |request, _| {
                    let reason = match which {
                        0 => format!("Bad {c}"),
                        1 => format!("Bad {t}"),
                        2 => format!("Bad {}", request.signature()),
                        _ => format!("Bad oauth_token_secret={k}"),
                    };
                    let status = format!("{code} {reason}");
                    json(&status, &body_for(code))
                })
                .await;
                let watched = Watched::new();
                let client = watched.builder(&raw.base, &consumer).build().unwrap();
                let result = session(&client, &token)
                    .get_invoice(9003)
                    .send_with_metadata()
                    .await;
                watched.result("get_invoice", &result);
                let mut forbidden = vec![
                    ("consumer secret", consumer.clone()),
                    ("token secret", token.clone()),
                    ("secret-named canary", canary.clone()),
                ];
                forbidden.extend(signatures(&raw));
                clean(&watched.drain(), &forbidden)
            })
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Values the client reads out of an answer: error codes, numbers, the envelope, JSON paths.

/// SECURITY.md, `Error` row: "no secret, in any variant or field"; "every text an error holds
/// was cleaned where it was made". `ApiFailure::code`, `ListedError::{code, kind, message}` and
/// `Error::code()` are fields read out of the body: the service makes its error code (`E_…`),
/// its type or its message out of a secret of the call, in each body shape the client reads.
#[test]
fn an_error_code_type_or_message_made_of_a_secret_is_not_shown() {
    let strategy = (
        "[A-Z0-9]{20}",
        "[A-Z0-9]{20}",
        any::<bool>(),
        0..7u8,
        prop::sample::select(vec!["200 OK", "400 Bad Request", "401 Unauthorized"]),
    );
    generate(
        strategy,
        |runtime, (consumer, token, of_consumer, shape, status)| {
            runtime.block_on(async {
            let s = if of_consumer { consumer.clone() } else { token.clone() };
            let (content_type, body): (&[u8], String) = match shape {
                0 => (b"application/json", format!(r#"{{"api":"pay/getBilling","apiVersion":1,"rcode":0,"error":{{"code":"E_{s}","type":"validation","message":"m"}}}}"#)),
                1 => (b"application/json", format!(r#"{{"code":"E_{s}","message":"m"}}"#)),
                2 => (b"application/json", format!(r#"{{"errors":[{{"code":"E_VALIDATION_INVALID_ID","type":"{s}","message":"the key {s} is wrong"}}]}}"#)),
                3 => (b"application/x-www-form-urlencoded", format!("error=E_{s}&error_description=bad")),
                4 => (b"text/plain", format!("failed with E_{s}")),
                5 => (b"text/html", format!("<html><title>E_{s}</title></html>")),
                _ => (b"application/json", format!(r#"{{"rcode":0,"data":{{"errors":{{"0":{{"code":"E_{s}"}}}}}}}}"#)),
            };
            let raw = Raw::start(move |_, _| {
                response(status, &[(b"Content-Type", content_type)], body.as_bytes())
            })
            .await;
            let watched = Watched::new();
            let client = watched.builder(&raw.base, &consumer).build().unwrap();
            let result = session(&client, &token).get_invoice(9003).send_with_metadata().await;
            watched.result("get_invoice", &result);
            clean(
                &watched.drain(),
                &[("consumer secret", consumer.clone()), ("token secret", token.clone())],
            )
        })
        },
    );
}

/// SECURITY.md, `Error` row: "no secret, in any variant or field"; `Debug` row: "no secret and
/// no credential the app configured, in any field". A secret made of digits (a consumer secret
/// is any string) echoed as a JSON *number*: the body's text is cleaned, but `ApiFailure::rcode`
/// (an `i64`) and `ResponseMeta::api_version` (an `i64`) are numbers read out of the body.
#[test]
fn a_secret_of_digits_echoed_as_a_number_is_not_shown() {
    let strategy = ("[1-9][0-9]{15}", "[1-9][0-9]{15}", any::<bool>(), 0..4u8);
    generate(
        strategy,
        |runtime, (consumer, token, of_consumer, shape)| {
            runtime.block_on(async {
            let s = if of_consumer { consumer.clone() } else { token.clone() };
            let (status, body) = match shape {
                0 => ("200 OK", format!(r#"{{"api":"pay/getBilling","apiVersion":1,"rcode":{s},"data":{{}}}}"#)),
                1 => ("400 Bad Request", format!(r#"{{"rcode":{s},"error":{{"code":"E_VALIDATION_INVALID_ID","message":"m"}}}}"#)),
                2 => ("200 OK", invoice_body().replacen("\"apiVersion\": 1", &format!("\"apiVersion\": {s}"), 1)),
                _ => ("500 Internal Server Error", format!(r#"{{"rcode":{s}}}"#)),
            };
            let raw = Raw::start(move |_, _| json(status, &body)).await;
            let watched = Watched::new();
            let client = watched.builder(&raw.base, &consumer).build().unwrap();
            let result = session(&client, &token).get_invoice(9003).send_with_metadata().await;
            watched.result("get_invoice", &result);
            clean(
                &watched.drain(),
                &[("consumer secret", consumer.clone()), ("token secret", token.clone())],
            )
        })
        },
    );
}

/// The decision beside the case above: an `apiVersion` whose digits spell a secret of the call
/// refuses the answer only where the metadata is kept (`send_with_metadata`); `send` keeps none
/// (`response::Metadata`, chosen by type), so it returns the data and shows the number nowhere.
#[test]
fn an_api_version_of_a_secrets_digits_is_refused_only_where_the_metadata_is_kept() {
    let strategy = ("[1-9][0-9]{15}", "[1-9][0-9]{15}");
    generate(strategy, |runtime, (consumer, token)| {
        runtime.block_on(async {
            let body = invoice_body().replacen(
                "\"apiVersion\": 1",
                &format!("\"apiVersion\": {consumer}"),
                1,
            );
            if !body.contains(&consumer) {
                return Err("the fixture's apiVersion was not replaced".to_owned());
            }
            let raw = Raw::start(move |_, _| json("200 OK", &body)).await;
            let watched = Watched::new();
            let client = watched.builder(&raw.base, &consumer).build().unwrap();
            let session = session(&client, &token);
            let kept = session.get_invoice(9003).send_with_metadata().await;
            watched.result("get_invoice with metadata", &kept);
            match &kept {
                Err(Error::Decode { path, .. }) if path == "apiVersion" => {}
                other => return Err(format!("with metadata: {other:?}")),
            }
            let dropped = session.get_invoice(9003).send().await;
            if let Err(error) = &dropped {
                watched.error("get_invoice", error);
            }
            match &dropped {
                Ok(invoice) if invoice.invoice.id == 9003 => {}
                other => return Err(format!("without metadata: {other:?}")),
            }
            clean(
                &watched.drain(),
                &[
                    ("consumer secret", consumer.clone()),
                    ("token secret", token.clone()),
                ],
            )
        })
    });
}

fn json_escape_all(text: &str) -> String {
    text.encode_utf16().map(|u| format!("\\u{u:04x}")).collect()
}

/// SECURITY.md, response metadata row: `ResponseMeta` is a channel ("`canary.rs` (its `Debug` is
/// watched)"); `Debug` row: "no secret … in any field". `ResponseMeta::api` is the envelope's
/// `api`, a string of the answer, printed by `ResponseMeta`'s `Debug`: the service writes a
/// secret of the call there, as is, after the method, or escaped (`\u…`, `\/`).
#[test]
fn a_secret_in_the_envelopes_api_field_is_not_shown_by_response_meta() {
    let strategy = ("[a-z0-9]{20}", "[a-z0-9]{20}", 0..3usize, 0..4u8);
    generate(strategy, |runtime, (consumer, token, which, form)| {
        runtime.block_on(async {
            let (c, t) = (consumer.clone(), token.clone());
            let raw = Raw::start(move |request, _| {
                let s = match which {
                    0 => c.clone(),
                    1 => t.clone(),
                    _ => request.signature().replace('/', "\\/"),
                };
                let api = match form {
                    0 => s,
                    1 => format!("pay\\/getBilling {s}"),
                    2 => json_escape_all(&s),
                    _ => format!("pay/getBilling#{}", json_escape_all(&s)),
                };
                json(
                    "200 OK",
                    &invoice_body().replacen("\"pay/getBilling\"", &format!("\"{api}\""), 1),
                )
            })
            .await;
            let watched = Watched::new();
            let client = watched.builder(&raw.base, &consumer).build().unwrap();
            let result = session(&client, &token)
                .get_invoice(9003)
                .send_with_metadata()
                .await;
            watched.result("get_invoice", &result);
            let mut forbidden = vec![
                ("consumer secret", consumer.clone()),
                ("token secret", token.clone()),
            ];
            forbidden.extend(signatures(&raw));
            clean(&watched.drain(), &forbidden)
        })
    });
}

/// SECURITY.md: the secrets include "the signature of each attempt"; the canary suite finds
/// none "in any reading a reader could undo". An HMAC-SHA1 signature in base64 always ends in
/// `=`: the service's signature-mismatch message quotes it without that padding, in the
/// URL-safe alphabet, both (what a JWT-minded service prints), or as the digest's 20 bytes in
/// hexadecimal (how HMAC debugging output prints one), lower or upper case. Each is the whole
/// signature.
#[test]
fn the_signature_quoted_in_another_spelling_of_its_bytes_is_not_shown() {
    let strategy = (
        "[a-z0-9]{20}",
        prop::sample::select(vec![
            "unpadded",
            "url-safe",
            "url-safe unpadded",
            "hex",
            "HEX",
        ]),
        prop::sample::select(vec!["application/json", "text/plain"]),
    );
    generate(strategy, |runtime, (consumer, form, content_type)| {
        runtime.block_on(async {
            let planted: Arc<Mutex<Vec<String>>> = Arc::default();
            let record = planted.clone();
            let raw = Raw::start(move |request, _| {
                let signature = request.signature();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(&signature)
                    .unwrap_or_default();
                let spelled = match form {
                    "unpadded" => signature.trim_end_matches('=').to_owned(),
                    "url-safe" => signature.replace('+', "-").replace('/', "_"),
                    "url-safe unpadded" => signature.replace('+', "-").replace('/', "_").trim_end_matches('=').to_owned(),
                    "hex" => bytes.iter().map(|b| format!("{b:02x}")).collect(),
                    _ => bytes.iter().map(|b| format!("{b:02X}")).collect(),
                };
                record.lock().unwrap().push(spelled.clone());
                let body = if content_type == "text/plain" {
                    format!("E_API_AUTH_SIGNATURE_MISMATCH: received {spelled}, expected another")
                } else {
                    format!(r#"{{"error":{{"code":"E_API_AUTH_SIGNATURE_MISMATCH","type":"authentication","message":"received {spelled}"}}}}"#)
                };
                response("401 Unauthorized", &[(b"Content-Type", content_type.as_bytes())], body.as_bytes())
            })
            .await;
            let watched = Watched::new();
            let client = watched.builder(&raw.base, &consumer).build().unwrap();
            let result = session(&client, "token-secret-0123456789").get_invoice(9003).send_with_metadata().await;
            watched.result("get_invoice", &result);
            let mut forbidden: Vec<(&str, String)> =
                planted.lock().unwrap().iter().map(|s| ("the signature, respelled", s.clone())).collect();
            forbidden.extend(signatures(&raw));
            clean(&watched.drain(), &forbidden)
        })
    });
}

/// SECURITY.md, `Error` row: "every text an error holds was cleaned where it was made (…
/// decode messages …)". `Error::Decode::path` is a text too: the JSON path of the value that
/// failed, made of the body's *keys*, decoded. The service writes a secret of the call as the
/// key of an index-keyed collection (which is refused, naming the key), as is or `\u`-escaped
/// (the path then holds it decoded).
#[test]
fn a_secret_as_a_json_key_is_not_shown_in_a_decode_errors_path() {
    let strategy = ("[a-z0-9]{20}", "[a-z0-9]{20}", any::<bool>(), 0..3u8);
    generate(strategy, |runtime, (consumer, token, of_consumer, form)| {
        runtime.block_on(async {
            let s = if of_consumer {
                consumer.clone()
            } else {
                token.clone()
            };
            let key = match form {
                0 => s.clone(),
                1 => json_escape_all(&s),
                _ => format!("{}{}", json_escape_all(&s[..1]), &s[1..]),
            };
            let body = timesheets_body().replacen("\"1\": {", &format!("\"{key}\": {{"), 1);
            let raw = Raw::start(move |_, _| json("200 OK", &body)).await;
            let watched = Watched::new();
            let client = watched.builder(&raw.base, &consumer).build().unwrap();
            let result = session(&client, &token)
                .get_timesheets_for_bid(310001)
                .send_with_metadata()
                .await;
            if result.is_ok() {
                return Err("the bad key was accepted".into());
            }
            watched.result("get_timesheets_for_bid", &result);
            clean(
                &watched.drain(),
                &[
                    ("consumer secret", consumer.clone()),
                    ("token secret", token.clone()),
                ],
            )
        })
    });
}

// ---------------------------------------------------------------------------------------------
// How known secrets are matched: overlaps, cuts, other spellings.

/// SECURITY.md: "then every span replaced, the result read again, and the whole text withheld
/// if anything is left", over the call's secrets and "the client's secrets of other calls too
/// (the last 64 token secrets …)". Two secrets where one is a prefix or a suffix of the other:
/// replacing the shorter first leaves the rest of the longer one in clear (`[redacted]` plus
/// twelve characters of a token secret). Also across the two sets: a token secret of an earlier
/// session that starts with the consumer secret, or with the current token secret.
#[test]
fn a_secret_that_extends_another_is_not_left_half_shown() {
    let strategy = (
        "[a-z0-9]{12}",
        "[a-z0-9]{12}",
        "[a-z0-9]{12}",
        0..5u8,
        prop::sample::select(vec!["raw", "json", "percent"]),
    );
    generate(
        strategy,
        |runtime, (base, extra, other, arrangement, encoding)| {
            runtime.block_on(async {
                // (consumer secret, earlier session's token secret, this session's token secret,
                // the secret echoed)
                let (consumer, earlier, current, echoed) = match arrangement {
                    0 => (
                        base.clone(),
                        None,
                        format!("{base}{extra}"),
                        format!("{base}{extra}"),
                    ),
                    1 => (
                        base.clone(),
                        None,
                        format!("{extra}{base}"),
                        format!("{extra}{base}"),
                    ),
                    2 => (
                        base.clone(),
                        Some(format!("{base}{extra}")),
                        other.clone(),
                        format!("{base}{extra}"),
                    ),
                    3 => (
                        other.clone(),
                        Some(format!("{base}{extra}")),
                        base.clone(),
                        format!("{base}{extra}"),
                    ),
                    _ => (
                        other.clone(),
                        Some(base.clone()),
                        format!("{base}{extra}"),
                        format!("{base}{extra}"),
                    ),
                };
                let spelled = match encoding {
                    "raw" => echoed.clone(),
                    "json" => json_escape_all(&echoed),
                    _ => percent_all_lower(&echoed),
                };
                let body =
                    format!(r#"{{"error":{{"code":"E_X","message":"your secret is {spelled}"}}}}"#);
                let raw = Raw::start(move |_, _| json("400 Bad Request", &body)).await;
                let watched = Watched::new();
                let client = watched.builder(&raw.base, &consumer).build().unwrap();
                if let Some(earlier) = &earlier {
                    let _ = session(&client, earlier).get_invoice(1).send().await;
                    watched.drain();
                }
                let result = session(&client, &current)
                    .get_invoice(9003)
                    .send_with_metadata()
                    .await;
                watched.result("get_invoice", &result);
                clean(
                    &watched.drain(),
                    &[
                        ("the longer secret's other part", extra.clone()),
                        ("the longer secret", echoed.clone()),
                    ],
                )
            })
        },
    );
}

/// SECURITY.md, `Error` row: "every text an error holds was cleaned where it was made";
/// `Error::Decode::excerpt` is "the start of the body". A secret of the call placed so that the
/// excerpt's end cuts through it, at every offset, raw and `\u`-escaped: no part of it may show.
#[test]
fn a_decode_excerpt_cut_through_a_secret_shows_no_part_of_it() {
    let runtime = runtime();
    runtime.block_on(async {
        let consumer = random(ALNUM, 20);
        let token = random(ALNUM, 24);
        let bad = invoice_body().replacen("\"amountBilled\": 375.00", "\"amountBilled\": \"x\"", 1);
        let body = Arc::new(Mutex::new(bad.clone()));
        let serve = body.clone();
        let raw = Raw::start(move |_, _| json("200 OK", &serve.lock().unwrap())).await;
        let watched = Watched::new();
        let client = watched.builder(&raw.base, &consumer).build().unwrap();
        let session = session(&client, &token);
        // Where the excerpt ends, from a body with a long filler and no secret.
        let filler = "-".repeat(4000);
        *body.lock().unwrap() = bad.replacen('{', &format!("{{\"pad\": \"{filler}\", "), 1);
        let Err(Error::Decode { excerpt, .. }) = session.get_invoice(9003).send().await else {
            panic!("the invoice with a bad amount decoded");
        };
        let end = excerpt
            .find(&filler[..excerpt.len().min(40)])
            .map(|at| excerpt[at..].len())
            .unwrap_or(0);
        assert!(
            end > 0 && end < filler.len(),
            "the excerpt does not cut the filler: {excerpt:?}"
        );
        watched.drain();
        for escaped in [false, true] {
            let spelled = if escaped {
                json_escape_all(&token)
            } else {
                token.clone()
            };
            for shift in 0..spelled.len() + 2 {
                let before = "-".repeat(end.saturating_sub(shift));
                let pad = format!("{before}{spelled}{filler}");
                *body.lock().unwrap() = bad.replacen('{', &format!("{{\"pad\": \"{pad}\", "), 1);
                let result = session.get_invoice(9003).send_with_metadata().await;
                watched.result(&format!("shift {shift}, escaped {escaped}"), &result);
            }
        }
        let mut forbidden: Vec<(&str, String)> = Vec::new();
        for window in 0..=token.len() - 8 {
            forbidden.push((
                "8 characters of the token secret",
                token[window..window + 8].to_owned(),
            ));
        }
        let escaped = json_escape_all(&token);
        for window in (0..=escaped.len() - 24).step_by(6) {
            forbidden.push((
                "4 escaped characters of the token secret",
                escaped[window..window + 24].to_owned(),
            ));
        }
        check(&watched.drain(), &forbidden);
    });
}

/// The canary suite finds no secret "in any reading a reader could undo". A consumer secret
/// with accented letters (NFC, as typed), echoed by the service in the canonically equivalent
/// decomposed form (NFD: `e` + U+0301), which every Unicode-aware reader takes for the same
/// text: raw, `\u`-escaped and percent-encoded.
#[test]
fn a_secret_echoed_in_another_unicode_normalization_form_is_not_shown() {
    let runtime = runtime();
    runtime.block_on(async {
        let consumer = format!("clé-{}-secrète", random(ALNUM, 12));
        let decomposed = consumer.replace('é', "e\u{301}").replace('è', "e\u{300}");
        assert_ne!(consumer, decomposed);
        let forms = [
            decomposed.clone(),
            json_escape_all(&decomposed),
            percent_encoding::utf8_percent_encode(&decomposed, percent_encoding::NON_ALPHANUMERIC)
                .to_string(),
        ];
        let shared = Arc::new(Mutex::new(String::new()));
        let serve = shared.clone();
        let raw = Raw::start(move |_, _| {
            let echoed = serve.lock().unwrap().clone();
            response(
                "401 Unauthorized",
                &[
                    (b"Content-Type", b"text/plain; charset=utf-8"),
                    (b"X-Echo", echoed.as_bytes()),
                ],
                format!("E_API_AUTH_SIGNATURE_MISMATCH: consumer secret {echoed} refused")
                    .as_bytes(),
            )
        })
        .await;
        let watched = Watched::new();
        let client = watched.builder(&raw.base, &consumer).build().unwrap();
        for form in &forms {
            *shared.lock().unwrap() = form.clone();
            let result = session(&client, "token-secret-0123456789")
                .get_invoice(9003)
                .send_with_metadata()
                .await;
            watched.result(form, &result);
        }
        let forbidden: Vec<(&str, String)> = forms
            .iter()
            .map(|f| ("the consumer secret, decomposed", f.clone()))
            .chain([("the consumer secret", consumer.clone())])
            .collect();
        check(&watched.drain(), &forbidden);
    });
}

/// The same sentence, with binary-to-text encodings every reader undoes: the service quotes the
/// consumer secret or the token secret in base64 (standard, URL-safe, unpadded), as the
/// signature-debugging pages of OAuth services do with keys.
#[test]
fn a_secret_echoed_in_base64_is_not_shown() {
    let strategy = (
        "[a-zA-Z0-9]{20}",
        "[a-zA-Z0-9]{20}",
        any::<bool>(),
        prop::sample::select(vec!["standard", "url-safe unpadded", "standard unpadded"]),
    );
    generate(strategy, |runtime, (consumer, token, of_consumer, form)| {
        runtime.block_on(async {
            use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
            let s = if of_consumer { &consumer } else { &token };
            let encoded = match form {
                "standard" => STANDARD.encode(s),
                "url-safe unpadded" => URL_SAFE_NO_PAD.encode(s),
                _ => STANDARD_NO_PAD.encode(s),
            };
            let body = format!(r#"{{"error":{{"code":"E_API_AUTH_SIGNATURE_MISMATCH","message":"key material {encoded}"}}}}"#);
            let raw = Raw::start(move |_, _| json("401 Unauthorized", &body)).await;
            let watched = Watched::new();
            let client = watched.builder(&raw.base, &consumer).build().unwrap();
            let result = session(&client, &token).get_invoice(9003).send_with_metadata().await;
            watched.result("get_invoice", &result);
            clean(&watched.drain(), &[("a secret in base64", encoded.clone())])
        })
    });
}

// ---------------------------------------------------------------------------------------------
// The scrubber through `redact` ("the same scrubber" as every channel).

/// The HTML5 named character reference of an ASCII punctuation character, if it has one.
fn html_named(c: char) -> Option<&'static str> {
    Some(match c {
        '!' => "&excl;",
        '#' => "&num;",
        '$' => "&dollar;",
        '%' => "&percnt;",
        '(' => "&lpar;",
        ')' => "&rpar;",
        '*' => "&ast;",
        '+' => "&plus;",
        ',' => "&comma;",
        '.' => "&period;",
        '/' => "&sol;",
        ':' => "&colon;",
        ';' => "&semi;",
        '=' => "&equals;",
        '?' => "&quest;",
        '@' => "&commat;",
        '[' => "&lsqb;",
        '\\' => "&bsol;",
        ']' => "&rsqb;",
        '_' => "&lowbar;",
        '{' => "&lcub;",
        '|' => "&verbar;",
        '}' => "&rcub;",
        _ => return None,
    })
}

/// `redact` (and SECURITY.md: known secrets "with each character plain or escaped, mixed",
/// "HTML escapes decoded"; `redact`'s docs: "in any mix of percent, JSON and HTML escapes").
/// HTML has more escapes than `&amp;` and `&#NN;`: the HTML5 named references of punctuation
/// (`&lowbar;`, `&period;`, `&sol;`, …), hexadecimal references with an upper-case `X`
/// (`&#X5F;`), with leading zeros (`&#x00005f;`), and decimal references without their `;`
/// (decoded by every HTML5 parser). Each character of the secret takes one of them.
#[test]
fn a_secret_in_html_escapes_beyond_amp_and_numeric_is_redacted() {
    let strategy = (
        "[a-z0-9]{4}([!#$%()*+,./:;=?@_|-][a-z0-9]{3}){3}",
        prop::collection::vec(0..4u8, 32),
    );
    generate(strategy, |_, (secret, modes)| {
        let mut encoded = String::new();
        let chars: Vec<char> = secret.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            let next_is_digit = chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
            match (modes[i % modes.len()], html_named(*c)) {
                (0, Some(named)) => encoded.push_str(named),
                (1, _) if !c.is_ascii_alphanumeric() => {
                    encoded.push_str(&format!("&#X{:X};", *c as u32))
                }
                (2, _) if !c.is_ascii_alphanumeric() => {
                    encoded.push_str(&format!("&#x0000{:x};", *c as u32))
                }
                (3, _) if !c.is_ascii_alphanumeric() && !next_is_digit => {
                    encoded.push_str(&format!("&#{}", *c as u32));
                }
                _ => encoded.push(*c),
            }
        }
        if encoded == secret {
            return Ok(());
        }
        let secret_value = Secret::new(secret.clone());
        let text = format!("<html><body><p>Your key: {encoded}</p></body></html>");
        let cleaned = redact(&text, &[&secret_value]);
        clean(
            &[("redact".into(), cleaned.into_owned())],
            &[
                ("the secret, HTML-escaped", encoded.clone()),
                ("the secret", secret.clone()),
            ],
        )
    });
}

/// The same sentence, with JSON's own escapes that the canary suite does not write: `\/` (what
/// PHP's `json_encode` writes for every `/`), and a character outside the BMP as a UTF-16
/// surrogate pair (`\ud83d\udd11`), in either case of hex digits.
#[test]
fn a_secret_in_json_solidus_and_surrogate_pair_escapes_is_redacted() {
    let strategy = (
        "[a-z0-9]{6}/[a-z0-9]{6}",
        prop::sample::select(vec!['🔑', '𝒮', '😀']),
        any::<bool>(),
        any::<bool>(),
    );
    generate(strategy, |_, (stem, astral, upper, solidus_only)| {
        let secret = format!("{stem}{astral}/x");
        let mut encoded = String::new();
        for c in secret.chars() {
            match c {
                '/' => encoded.push_str("\\/"),
                c if (c as u32) > 0xFFFF && !solidus_only => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        encoded.push_str(&if upper {
                            format!("\\u{unit:04X}")
                        } else {
                            format!("\\u{unit:04x}")
                        });
                    }
                }
                c => encoded.push(c),
            }
        }
        let secret_value = Secret::new(secret.clone());
        let text = format!(r#"{{"error":"E_X","message":"secret {encoded} refused"}}"#);
        let cleaned = redact(&text, &[&secret_value]);
        clean(
            &[("redact".into(), cleaned.into_owned())],
            &[
                ("the secret, JSON-escaped", encoded.clone()),
                ("the secret", secret.clone()),
            ],
        )
    });
}

/// The same sentence, with the escapes of the languages whose errors services print: `\x5f`
/// (JavaScript, Python, PHP strings) and `\u{5f}` (JavaScript, Rust), per character.
#[test]
fn a_secret_in_hex_and_braced_unicode_escapes_is_redacted() {
    let strategy = ("[a-z0-9]{16}", prop::collection::vec(0..3u8, 16));
    generate(strategy, |_, (secret, modes)| {
        let encoded: String = secret
            .chars()
            .zip(modes.iter().cycle())
            .map(|(c, mode)| match mode {
                0 => format!("\\x{:02x}", c as u32),
                1 => format!("\\u{{{:x}}}", c as u32),
                _ => c.to_string(),
            })
            .collect();
        if encoded == secret {
            return Ok(());
        }
        let secret_value = Secret::new(secret.clone());
        let text = format!("Traceback: KeyError('{encoded}')");
        let cleaned = redact(&text, &[&secret_value]);
        clean(
            &[("redact".into(), cleaned.into_owned())],
            &[("the secret, escaped", encoded.clone())],
        )
    });
}

/// SECURITY.md: "secret-named values in every shape (`name=value`, `"name": value`,
/// `<name>value</name>`, …)". The third shape as XML writes it: an element with an attribute
/// (`<password type="string">…</password>`, as .NET and Java serializers write it) and an
/// element whose text is a CDATA section.
#[test]
fn secret_named_xml_elements_with_attributes_or_cdata_are_redacted() {
    let strategy = (
        prop::sample::select(vec![
            "password",
            "client_secret",
            "oauth_token_secret",
            "private_key",
            "passwd",
        ]),
        "[a-z0-9]{16}",
        0..3u8,
    );
    generate(strategy, |_, (name, value, shape)| {
        let text = match shape {
            0 => format!(r#"<error><{name} type="string">{value}</{name}></error>"#),
            1 => format!("<error><{name}><![CDATA[{value}]]></{name}></error>"),
            _ => format!(
                r#"<error><{name} xml:space="preserve"><![CDATA[{value}]]></{name}></error>"#
            ),
        };
        let cleaned = redact(&text, &[]);
        clean(
            &[(format!("redact of shape {shape}"), cleaned.into_owned())],
            &[("a secret-named value", value.clone())],
        )
    });
}

/// SECURITY.md: "any value under a secret-named name … removed by structure"; Known limits: only
/// "a value the text does not introduce with a name" cannot be. Here every value follows its
/// name directly, in shapes error pages and logs take besides `name=value`, `"name": value` and
/// XML: Ruby and PHP arrows (`"name" => "value"`), PHP's `print_r` (`[name] => value`) and
/// command lines (`--name value`), beside shapes the scrubber reads (YAML, Python's repr, XML
/// attributes, JavaScript object literals, INI) as controls.
#[test]
fn secret_named_values_in_other_common_shapes_are_redacted() {
    let strategy = (
        prop::sample::select(vec![
            "password",
            "client_secret",
            "oauth_token_secret",
            "private_key",
            "passwd",
        ]),
        "[a-z0-9]{16}",
        0..9u8,
    );
    generate(strategy, |_, (name, value, shape)| {
        let text = match shape {
            0 => format!("login failed\n{name}: {value}\nuser: dana"),
            1 => format!("KeyError: {{'user': 'dana', '{name}': '{value}'}}"),
            2 => format!(r#"<credentials user="dana" {name}="{value}"/>"#),
            3 => format!(r#"{{user: "dana", {name}: "{value}"}}"#),
            4 => format!("[auth]\nuser = dana\n{name} = {value}\n"),
            5 => format!(r#"{{"user" => "dana", "{name}" => "{value}"}}"#),
            6 => format!("Array\n(\n    [user] => dana\n    [{name}] => {value}\n)\n"),
            7 => format!("exec: login --user dana --{name} {value} --verbose"),
            _ => format!("exec: login --user=dana --{name} {value}"),
        };
        let cleaned = redact(&text, &[]);
        clean(
            &[(format!("redact of shape {shape}"), cleaned.into_owned())],
            &[("a secret-named value", value.clone())],
        )
    });
}

/// SECURITY.md, `redact` row: "the same as every channel"; its docs: "every one of secrets".
/// An app's log line holds many secrets (a batch job with one key per tenant): the first of 65
/// secrets handed to `redact`.
#[test]
fn redact_removes_every_secret_it_is_given_not_only_the_last_64() {
    let secrets: Vec<Secret> = (0..65).map(|_| Secret::new(random(ALNUM, 20))).collect();
    let refs: Vec<&Secret> = secrets.iter().collect();
    let text = format!(
        "tenant keys: {} and {}",
        secrets[0].expose(),
        secrets[64].expose()
    );
    let cleaned = redact(&text, &refs);
    check(
        &[("redact".into(), cleaned.into_owned())],
        &[
            ("the first secret", secrets[0].expose().to_owned()),
            ("the last secret", secrets[64].expose().to_owned()),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Credentials the app hands the client.

/// Credentials table, base URL row: "query, fragment | refused likewise, shown without values";
/// SECURITY.md: "A credential in a form the client refuses … is refused before it is stored, so
/// no value of the crate holds it". A query can be a bare credential with no `=` (`?T0K3N`, as
/// webhook URLs carry theirs), a credential written as a parameter's *name*, or a fragment
/// without `=`: the refusal (`Error::Config`) and the builder's `Debug` must show none.
#[test]
fn a_base_url_with_a_bare_credential_in_its_query_or_fragment_shows_it_nowhere() {
    let secret = random(ALNUM, 24);
    let mut seen = Vec::new();
    for shape in [
        format!("http://127.0.0.1:9/api?{secret}"),
        format!("http://127.0.0.1:9/api?{secret}="),
        format!("http://127.0.0.1:9/api?{secret}=1"),
        format!("http://127.0.0.1:9/api?v=2&{secret}"),
        format!("http://127.0.0.1:9/api?v=2;{secret}"),
        format!("http://127.0.0.1:9/api#{secret}"),
        format!("http://127.0.0.1:9/api?v=2#/{secret}"),
        format!("https://marketplace.example/?{secret}"),
    ] {
        let builder = Client::builder(
            shape.as_str(),
            ConsumerCredentials::new("app-key", "consumer-secret-1234"),
        );
        seen.push((
            format!("{shape:?}: ClientBuilder Debug"),
            format!("{builder:?}"),
        ));
        match builder.build() {
            Ok(client) => seen.push((
                format!("{shape:?}: Client Debug (accepted!)"),
                format!("{client:?}"),
            )),
            Err(error) => seen.push((
                format!("{shape:?}: build error"),
                format!("{error} {error:?}"),
            )),
        }
    }
    check(&seen, &[("a credential in the base URL", secret)]);
}

/// Credentials table, callback row: "query values, fragment | … a known secret of the
/// request-token call (8 bytes and more, decoded and as written)". A callback's query can carry
/// its credential bare (`?T0K3N`), as a parameter name, or after `;`; the service answers the
/// request-token call with an error quoting the callback it received.
#[test]
fn a_bare_credential_in_a_callbacks_query_is_a_known_secret_of_the_request_token_call() {
    let runtime = runtime();
    runtime.block_on(async {
        let secret = random(ALNUM, 24);
        let raw = Raw::start(|request, _| {
            let callback = request.oauth("oauth_callback").unwrap_or_default();
            json(
                "400 Bad Request",
                &format!(r#"{{"error":{{"code":"E_VALIDATION_INVALID_CALLBACK","message":"callback {callback} is not registered"}}}}"#),
            )
        })
        .await;
        let watched = Watched::new();
        let client = watched.builder(&raw.base, "consumer-secret-1234").build().unwrap();
        for callback in [
            format!("myapp://oauth/cb?{secret}"),
            format!("https://app.example/cb?{secret}=1"),
            format!("https://app.example/cb?state=1&{secret}"),
            format!("https://app.example/cb?state=1;{secret}"),
            format!("https://app.example/cb#{secret}"),
        ] {
            match client.request_token(Some(&callback)).await {
                Ok(token) => watched.seen.push("RequestToken Debug", format!("{token:?}")),
                Err(error) => watched.error(&format!("request_token({callback:?})"), &error),
            }
        }
        assert!(raw.requests().len() >= 5, "the callbacks were not all sent");
        check(&watched.drain(), &[("the callback's credential", secret)]);
    });
}

/// The echo the service makes of every credential header it received, each value and each
/// cookie value apart.
fn echo_credentials(request: &Req) -> String {
    let mut echoed = Vec::new();
    for line in request.head.split("\r\n").skip(1) {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if name == "authorization"
            || name == "host"
            || name.starts_with("content")
            || name == "accept"
        {
            continue;
        }
        echoed.push(value.to_owned());
        for part in value.split(';') {
            if let Some((_, v)) = part.split_once('=') {
                echoed.push(v.trim().to_owned());
            }
        }
    }
    format!(
        r#"{{"error":{{"code":"E_X","message":"rejected: {}"}}}}"#,
        echoed.join(" | ").replace('"', "'")
    )
}

/// Credentials table, headers row: "its value and the parts a service could echo alone (…
/// cookie and parameter values) are known secrets of the attempt that sends them"; "one rule,
/// used by every path that takes a header from the app". `CallOptions::header` documents that "a
/// second value for the same name is added beside the first": a second `X-Api-Key`, a second
/// `Cookie` line, by every path (`CallOptions::header` twice, `CallOptions::headers` appended
/// directly, a request hook's `headers_mut().append`); the service echoes each value.
#[test]
fn every_value_of_a_repeated_credential_header_is_a_known_secret() {
    let runtime = runtime();
    runtime.block_on(async {
        let (first, second) = (random(ALNUM, 20), random(ALNUM, 20));
        let (hook_first, hook_second) = (random(ALNUM, 20), random(ALNUM, 20));
        let raw =
            Raw::start(|request, _| json("400 Bad Request", &echo_credentials(request))).await;
        let watched = Watched::new();
        let (a, b) = (hook_first.clone(), hook_second.clone());
        let client = watched
            .builder(&raw.base, "consumer-secret-1234")
            .on_request(move |request| {
                let headers = request.headers_mut();
                headers.append("x-hook-token", HeaderValue::from_str(&a).unwrap());
                headers.append("x-hook-token", HeaderValue::from_str(&b).unwrap());
            })
            .on_request({
                let seen = watched.seen.clone();
                move |request| {
                    seen.push("a later request hook: Debug", format!("{request:?}"));
                    seen.push(
                        "a later request hook: HeaderMap Debug",
                        format!("{:?}", request.headers()),
                    );
                }
            })
            .build()
            .unwrap();
        let session = session(&client, "token-secret-0123456789");
        let key = HeaderName::from_static("x-api-key");
        let cookie = HeaderName::from_static("cookie");
        let (f, s) = (first.clone(), second.clone());
        let options = move |options: CallOptions| {
            options
                .header(key.clone(), HeaderValue::from_str(&f).unwrap())
                .header(key.clone(), HeaderValue::from_str(&s).unwrap())
        };
        watched.seen.push(
            "CallOptions Debug",
            format!("{:?}", options(CallOptions::default())),
        );
        let result = session
            .get_invoice(9003)
            .customize(options)
            .send_with_metadata()
            .await;
        watched.result("two X-Api-Key", &result);
        let (f, s) = (first.clone(), second.clone());
        let result = session
            .get_invoice(9003)
            .customize(move |mut options| {
                options.headers.append(
                    cookie.clone(),
                    HeaderValue::from_str(&format!("a=1; sid={f}")).unwrap(),
                );
                options.headers.append(
                    cookie.clone(),
                    HeaderValue::from_str(&format!("csrf={s}")).unwrap(),
                );
                options
            })
            .send_with_metadata()
            .await;
        watched.result("two Cookie lines", &result);
        let sent: Vec<String> = raw.requests().iter().map(|r| r.head.clone()).collect();
        assert!(
            sent.iter().any(|head| head.contains(&second)),
            "the second values were not sent: {sent:?}"
        );
        check(
            &watched.drain(),
            &[
                ("the first value", first),
                ("the second value", second),
                ("the hook's first value", hook_first),
                ("the hook's second value", hook_second),
            ],
        );
    });
}

/// Credentials table, headers row: the parts a service could echo alone ("the credentials after
/// an auth scheme, … cookie and parameter values") are known secrets. Those parts as a service
/// reads them: a cookie value in double quotes (RFC 6265 `cookie-value = DQUOTE *cookie-octet
/// DQUOTE`), an auth parameter in quotes (`Digest … response="…"`), a cookie value
/// percent-encoded by the app that the service echoes decoded.
#[test]
fn the_parts_of_a_credential_header_as_the_service_reads_them_are_known_secrets() {
    let runtime = runtime();
    runtime.block_on(async {
        let quoted_cookie = random(ALNUM, 20);
        let digest = random(ALNUM, 32);
        let encoded_cookie = format!("{}+{}==", random(ALNUM, 12), random(ALNUM, 12));
        let (q, d, e) = (quoted_cookie.clone(), digest.clone(), encoded_cookie.clone());
        let raw = Raw::start(move |request, _| {
            // What the service's framework hands its error page: values unquoted and decoded.
            let echoed = if request.header("cookie").is_some_and(|c| c.contains('"')) {
                q.clone()
            } else if request.header("x-upstream-authorization").is_some() {
                d.clone()
            } else {
                e.clone()
            };
            json("400 Bad Request", &format!(r#"{{"error":{{"code":"E_X","message":"session {echoed} expired"}}}}"#))
        })
        .await;
        let watched = Watched::new();
        let client = watched.builder(&raw.base, "consumer-secret-1234").build().unwrap();
        let session = session(&client, "token-secret-0123456789");
        let percent_encoded = percent_encoding::utf8_percent_encode(&encoded_cookie, percent_encoding::NON_ALPHANUMERIC).to_string();
        for (name, value) in [
            ("cookie", format!("sid=\"{quoted_cookie}\"")),
            ("x-upstream-authorization", format!("Digest username=\"dana\", realm=\"api\", nonce=\"n0nce\", uri=\"/\", response=\"{digest}\"")),
            ("cookie", format!("sid={percent_encoded}")),
        ] {
            let result = session
                .get_invoice(9003)
                .customize(move |options| {
                    options.header(HeaderName::from_static(name), HeaderValue::from_str(&value).unwrap())
                })
                .send_with_metadata()
                .await;
            watched.result(name, &result);
        }
        check(
            &watched.drain(),
            &[
                ("the quoted cookie's value", quoted_cookie),
                ("the Digest response", digest),
                ("the percent-encoded cookie, decoded", encoded_cookie),
            ],
        );
    });
}

/// Credentials table, headers row: "`Basic`'s `user:password` decoded and each half" are known
/// secrets. `Basic` as clients write it besides the canonical form: the scheme in lower case
/// (schemes are case-insensitive, RFC 9110 §11.1), two spaces after it, base64 without its `=`
/// padding, and the URL-safe alphabet; the service echoes the password alone.
#[test]
fn basic_credentials_in_every_accepted_spelling_are_known_secrets() {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE};
    let runtime = runtime();
    runtime.block_on(async {
        let password = Arc::new(Mutex::new(String::new()));
        let echo = password.clone();
        let raw = Raw::start(move |_, _| {
            json(
                "401 Unauthorized",
                &format!(
                    r#"{{"error":{{"code":"E_X","message":"password {} is wrong"}}}}"#,
                    echo.lock().unwrap()
                ),
            )
        })
        .await;
        let watched = Watched::new();
        let client = watched
            .builder(&raw.base, "consumer-secret-1234")
            .build()
            .unwrap();
        let session = session(&client, "token-secret-0123456789");
        let mut passwords = Vec::new();
        for spelling in 0..4 {
            // 22 bytes of `user:password`: its base64 ends in `==`; `?>` makes `+`/`/` likely.
            let secret = format!("{}?>{}", random(ALNUM, 8), random(ALNUM, 7));
            let pair = format!("dana:{secret}");
            let value = match spelling {
                0 => format!("basic {}", STANDARD.encode(&pair)),
                1 => format!("Basic  {}", STANDARD.encode(&pair)),
                2 => format!("Basic {}", STANDARD_NO_PAD.encode(&pair)),
                _ => format!("Basic {}", URL_SAFE.encode(&pair)),
            };
            *password.lock().unwrap() = secret.clone();
            let result = session
                .get_invoice(9003)
                .customize(move |options| {
                    options.header(
                        HeaderName::from_static("x-upstream-authorization"),
                        HeaderValue::from_str(&value).unwrap(),
                    )
                })
                .send_with_metadata()
                .await;
            watched.result(&format!("spelling {spelling}"), &result);
            passwords.push(("the Basic password", secret));
        }
        check(&watched.drain(), &passwords);
    });
}

/// SECURITY.md: the secrets include "the credentials the app puts in headers"; "no secret
/// leaves the process". The app's credential headers are known secrets "of the attempt that
/// sends them" only, unlike token secrets ("the last 64", `registry.rs`): one user's session
/// cookie (sent on that user's call) that the service echoes in the error of another user's
/// call later reaches that call's error, hooks and recording. Known limits do not list it.
#[test]
fn an_app_credential_header_of_one_call_is_not_shown_by_a_later_call_that_does_not_send_it() {
    let runtime = runtime();
    runtime.block_on(async {
        let cookie = random(ALNUM, 24);
        let api_key = random(ALNUM, 24);
        let leak = format!("{cookie} {api_key}");
        let raw = Raw::start(move |_, index| {
            if index == 0 {
                json("200 OK", &invoice_body())
            } else {
                json(
                    "400 Bad Request",
                    &format!(r#"{{"error":{{"code":"E_X","message":"last session: {leak}"}}}}"#),
                )
            }
        })
        .await;
        let watched = Watched::new();
        let client = watched
            .builder(&raw.base, "consumer-secret-1234")
            .build()
            .unwrap();
        let (c, k) = (cookie.clone(), api_key.clone());
        let first = session(&client, "token-secret-of-user-a-0123")
            .get_invoice(9003)
            .customize(move |options| {
                options
                    .header(
                        HeaderName::from_static("cookie"),
                        HeaderValue::from_str(&format!("session={c}")).unwrap(),
                    )
                    .header(
                        HeaderName::from_static("x-api-key"),
                        HeaderValue::from_str(&k).unwrap(),
                    )
            })
            .send()
            .await;
        assert!(first.is_ok(), "{first:?}");
        let result = session(&client, "token-secret-of-user-b-4567")
            .get_invoice(9003)
            .send_with_metadata()
            .await;
        watched.result("user B's call", &result);
        check(
            &watched.drain(),
            &[
                ("user A's session cookie", cookie),
                ("the API key", api_key),
            ],
        );
    });
}

/// The same sentences, within one call: a request hook that signs each attempt with a header of
/// its own (`X-Signature`, computed per attempt, as apps that sign requests for a gateway do).
/// The first attempt gets a 503 and is retried; the service's answer to the second quotes the
/// first attempt's signature, which is a known secret of the first attempt only.
#[test]
fn an_earlier_attempts_credential_header_is_not_shown_by_the_answer_to_a_retry() {
    let runtime = runtime();
    runtime.block_on(async {
        let stem = random(ALNUM, 16);
        let attempts = Arc::new(AtomicU64::new(0));
        let signed: Arc<Mutex<Vec<String>>> = Arc::default();
        let raw = Raw::start(|_, _| Vec::new()).await;
        let seen_by_raw = raw.requests.clone();
        raw.answer(move |request, index| {
            let earlier = seen_by_raw.lock().unwrap().first().and_then(|r| r.header("x-signature")).unwrap_or_default();
            if index == 0 {
                response("503 Service Unavailable", &[(b"Content-Type", b"text/plain")], b"busy")
            } else {
                let now = request.header("x-signature").unwrap_or_default();
                json("503 Service Unavailable", &format!(r#"{{"error":{{"code":"E_X","message":"signature {now} replaces {earlier}"}}}}"#))
            }
        });
        let watched = Watched::new();
        let (count, record, stem_for_hook) = (attempts.clone(), signed.clone(), stem.clone());
        let client = watched
            .builder(&raw.base, "consumer-secret-1234")
            .retry(RetryPolicy::default().max_attempts(2).base_delay(Duration::from_millis(5)).max_delay(Duration::from_millis(10)))
            .on_request(move |request| {
                let n = count.fetch_add(1, Ordering::Relaxed);
                let value = format!("{stem_for_hook}{n:08}");
                record.lock().unwrap().push(value.clone());
                request.headers_mut().insert("x-signature", HeaderValue::from_str(&value).unwrap());
            })
            .build()
            .unwrap();
        let result = session(&client, "token-secret-0123456789").get_invoice(9003).send_with_metadata().await;
        assert_eq!(raw.requests().len(), 2, "the call was not retried once");
        watched.result("get_invoice", &result);
        let forbidden: Vec<(&str, String)> = signed.lock().unwrap().iter().map(|s| ("an attempt's X-Signature", s.clone())).collect();
        check(&watched.drain(), &forbidden);
    });
}

// ---------------------------------------------------------------------------------------------
// The flow's secrets: the verifier, the request token's secret.

/// Credentials table: "`Verifier` given back, callback URL given to `verifier_from_callback` |
/// verifier | … a known secret"; "known secret … (and, for token secrets and verifiers, of the
/// client's later calls: `registry.rs`)"; Known limits: "The client remembers the last 64 token
/// secrets and verifiers it used or was given". The verifier the client read from the callback
/// and signed the access-token call with, and the request token's secret it was given, when that
/// exchange fails: a later data call's answer echoes both.
#[test]
fn the_verifier_and_request_secret_of_a_failed_exchange_are_remembered_for_later_calls() {
    let runtime = runtime();
    runtime.block_on(async {
        let verifier = random(ALNUM, 24);
        let request_secret = random(ALNUM, 24);
        let (v, r) = (verifier.clone(), request_secret.clone());
        let raw = Raw::start(move |request, _| match request.path() {
            "/oauth/getRequestToken" => response(
                "200 OK",
                &[(b"Content-Type", b"application/x-www-form-urlencoded")],
                format!("oauth_token=rt-4711&oauth_token_secret={r}&oauth_callback_confirmed=true")
                    .as_bytes(),
            ),
            "/oauth/getAccessToken" => json(
                "401 Unauthorized",
                r#"{"error":{"code":"E_API_AUTH_SIGNATURE_MISMATCH","message":"no"}}"#,
            ),
            _ => json(
                "400 Bad Request",
                &format!(r#"{{"error":{{"code":"E_X","message":"pending grant {v} with {r}"}}}}"#),
            ),
        })
        .await;
        let watched = Watched::new();
        let client = watched
            .builder(&raw.base, "consumer-secret-1234")
            .build()
            .unwrap();
        let request = client
            .request_token(Some("myapp://oauth/cb"))
            .await
            .unwrap();
        let given = client
            .verifier_from_callback(
                &request,
                &format!("myapp://oauth/cb?oauth_token=rt-4711&oauth_verifier={verifier}"),
            )
            .unwrap();
        let exchange = client.access_token(&request, &given).await;
        assert!(exchange.is_err(), "the exchange was not refused");
        assert!(
            raw.requests()
                .iter()
                .any(|r| r.oauth("oauth_verifier").as_deref() == Some(verifier.as_str())),
            "the verifier was not sent"
        );
        watched.drain();
        let result = session(&client, "token-secret-0123456789")
            .get_invoice(9003)
            .send_with_metadata()
            .await;
        watched.result("a later data call", &result);
        check(
            &watched.drain(),
            &[
                ("the verifier", verifier),
                ("the request token's secret", request_secret),
            ],
        );
    });
}

/// Credentials table: "`Verifier` … | `Debug` `[redacted]`; … errors show the callback through
/// `Scrubber::url`"; `verifier_from_callback`'s docs: "The callback URL carries the verifier, a
/// secret: an error shows the URL without it"; SECURITY.md: a secret-named value is removed
/// whatever "ASCII case and `_-. `" and escapes. Callbacks that are refused (a forged
/// `oauth_token`, an unparsable URL, a control character) carrying the verifier where a browser
/// or a framework puts it: a percent-encoded name, `[]` after the name, `;` between pairs, the
/// fragment (implicit-flow style), another case, twice, with a control character; and
/// `Verifier::new` refusing a typed-in verifier.
#[test]
fn a_refused_callback_or_verifier_never_shows_the_verifier() {
    let client = Client::builder(
        "https://marketplace.example",
        ConsumerCredentials::new("app-key", "consumer-secret-1234"),
    )
    .build()
    .unwrap();
    let request = marketplace_client::oauth::RequestToken {
        token: "rt-4711".into(),
        secret: Secret::new("request-secret-0123456789"),
        callback_confirmed: true,
    };
    let (v, v2) = (random(ALNUM, 24), random(ALNUM, 24));
    let mut seen = Vec::new();
    for callback in [
        format!("myapp://cb?oauth_token=forged&oauth%5Fverifier={v}"),
        format!("myapp://cb?oauth_token=forged&oauth%255Fverifier={v}"),
        format!("myapp://cb?oauth_token=forged&oauth_verifier%5B%5D={v}"),
        format!("myapp://cb?oauth_token=forged&oauth_verifier[]={v}"),
        format!("myapp://cb?oauth_token=forged;oauth_verifier={v}"),
        format!("myapp://cb#oauth_token=forged&oauth_verifier={v}"),
        format!("myapp://cb?oauth_token=forged&OAuth-Verifier={v}"),
        format!("myapp://cb?oauth_token=forged&oauth_verifier={v}&oauth_verifier={v2}"),
        format!("myapp://cb?oauth_token=rt-4711&oauth_verifier={v}\u{7}"),
        format!("myapp://cb?oauth_token=rt-4711&oauth_verifier={v}%00"),
        format!("myapp://c b/?oauth_token=rt-4711&oauth_verifier={v}"),
        format!("http://[::1/cb?oauth_token=rt-4711&oauth_verifier={v}"),
        format!("myapp://cb?oauth_token=rt-4711&oauth_verifier=&x={v}&oauth_verifier"),
    ] {
        match client.verifier_from_callback(&request, &callback) {
            Ok(verifier) => seen.push((
                format!("{callback:?}: accepted, Verifier Debug"),
                format!("{verifier:?}"),
            )),
            Err(error) => seen.push((format!("{callback:?}: error"), format!("{error} {error:?}"))),
        }
    }
    for typed in [
        format!("{v}\u{7}"),
        format!("\u{0}{v}"),
        format!("{v}\u{202e}"),
        format!("{v} {v2}"),
        format!("{v}\r\n{v2}"),
        v.repeat(400),
    ] {
        match Verifier::new(&typed) {
            Ok(verifier) => seen.push((
                "Verifier::new accepted: Debug".into(),
                format!("{verifier:?}"),
            )),
            Err(error) => seen.push((
                format!("Verifier::new({:?}…)", &typed[..4]),
                format!("{error} {error:?}"),
            )),
        }
    }
    check(&seen, &[("the verifier", v), ("the second verifier", v2)]);
}

// ---------------------------------------------------------------------------------------------
// A body cleaned on a blocking thread, cut short by the deadline.

/// SECURITY.md, Inputs: "cleaning and decoding a body over 64 KiB run on a blocking thread the
/// call awaits only until its deadline, the cleaning cancelled then"; response hooks row: "no
/// secret in any answer's body". A body of 24 MiB of nested escapes with the token secret in it
/// (raw and escaped), a deadline that ends during its cleaning: the call ends, and nothing that
/// arrives later (a hook, a recording, a trace) may hold the body as it was.
#[test]
fn a_body_whose_cleaning_is_cut_by_the_deadline_is_never_shown_uncleaned() {
    let runtime = runtime();
    runtime.block_on(async {
        let token = random(ALNUM, 24);
        let filler = "\\u0025\\u0032\\u0035%2525&#x25;".repeat(24 * 1024 * 1024 / 30);
        let body = format!(
            r#"{{"error":{{"code":"E_X","message":"{token} {filler} {} {token}"}}}}"#,
            json_escape_all(&token)
        );
        let raw = Raw::start(move |_, _| json("500 Internal Server Error", &body)).await;
        let watched = Watched::new();
        let client = watched
            .builder(&raw.base, "consumer-secret-1234")
            .deadline(Duration::from_millis(400))
            .build()
            .unwrap();
        for _ in 0..3 {
            let result = session(&client, &token)
                .get_invoice(9003)
                .send_with_metadata()
                .await;
            watched.result("get_invoice", &result);
        }
        // Whatever a cancelled cleaning hands on later.
        tokio::time::sleep(Duration::from_secs(3)).await;
        check(
            &watched.drain(),
            &[
                ("the token secret", token.clone()),
                ("the token secret, escaped", json_escape_all(&token)),
            ],
        );
    });
}

// ---------------------------------------------------------------------------------------------
// Bodies a reader decodes before reading: a declared charset, a declared content coding.

/// The UTF-16 form (little-endian, with its byte order mark) of `text`.
fn utf16le(text: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        out.extend_from_slice(&unit.to_le_bytes());
    }
    out
}

/// SECURITY.md: "It reads text as bytes, not through a parser"; the canary suite finds no secret
/// "in any reading a reader could undo"; `ReceivedResponse::body`: "cleaned of secrets whatever
/// the answer". The service sends its error as UTF-16 and says so (`charset=utf-16`, a byte
/// order mark): every reader that honours the content type reads the consumer secret in it,
/// while the bytes hold a NUL between its characters.
#[test]
fn a_secret_in_a_body_declared_as_utf16_is_not_shown() {
    let strategy = (
        "[a-z0-9]{20}",
        "[a-z0-9]{20}",
        any::<bool>(),
        prop::sample::select(vec!["400 Bad Request", "200 OK"]),
    );
    generate(
        strategy,
        |runtime, (consumer, token, of_consumer, status)| {
            runtime.block_on(async {
                let s = if of_consumer {
                    consumer.clone()
                } else {
                    token.clone()
                };
                let body = utf16le(&format!(
                    r#"{{"error":{{"code":"E_X","message":"key {s} refused"}}}}"#
                ));
                let raw = Raw::start(move |_, _| {
                    response(
                        status,
                        &[(b"Content-Type", b"application/json; charset=utf-16")],
                        &body,
                    )
                })
                .await;
                let watched = Watched::new();
                let client = watched.builder(&raw.base, &consumer).build().unwrap();
                let result = session(&client, &token)
                    .get_invoice(9003)
                    .send_with_metadata()
                    .await;
                watched.result("get_invoice", &result);
                let spread = |separator: &str| {
                    s.chars()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(separator)
                };
                clean(
                    &watched.drain(),
                    &[
                        ("the secret in UTF-16", spread("\0")),
                        ("the secret in UTF-16, JSON-escaped", spread("\\u0000")),
                        ("the secret in UTF-16, Debug-escaped", spread("\\0")),
                    ],
                )
            })
        },
    );
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// `bytes` as gzip: one deflate block with the fixed Huffman codes, literals only (RFC 1951
/// §3.2.6), so that no byte of the input shows as it was.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let (mut buffer, mut filled) = (0u64, 0u32);
    let mut push = |out: &mut Vec<u8>, value: u64, bits: u32| {
        buffer |= value << filled;
        filled += bits;
        while filled >= 8 {
            out.push(buffer as u8);
            buffer >>= 8;
            filled -= 8;
        }
    };
    let reversed = |code: u64, bits: u32| {
        (0..bits).fold(0u64, |acc, i| acc | (((code >> i) & 1) << (bits - 1 - i)))
    };
    push(&mut out, 1, 1); // BFINAL
    push(&mut out, 1, 2); // BTYPE 01: fixed Huffman
    for byte in bytes {
        let (code, bits) = if *byte < 144 {
            (0x30 + u64::from(*byte), 8)
        } else {
            (0x190 + u64::from(*byte) - 144, 9)
        };
        push(&mut out, reversed(code, bits), bits);
    }
    push(&mut out, 0, 7); // end of block (256)
    push(&mut out, 0, 7); // flush what is left
    out.extend_from_slice(&crc32(bytes).to_le_bytes());
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out
}

/// The inverse of `gzip` above, to show the test's body is what it claims to be.
fn gunzip_fixed(compressed: &[u8]) -> Vec<u8> {
    let data = &compressed[10..compressed.len() - 8];
    let bit = |i: usize| (data[i / 8] >> (i % 8)) & 1;
    let mut at = 3;
    let mut out = Vec::new();
    loop {
        let mut code = 0u64;
        for _ in 0..7 {
            code = (code << 1) | u64::from(bit(at));
            at += 1;
        }
        if code == 0 {
            return out;
        }
        code = (code << 1) | u64::from(bit(at));
        at += 1;
        if (0x30..0xC0).contains(&code) {
            out.push((code - 0x30) as u8);
        } else {
            code = (code << 1) | u64::from(bit(at));
            at += 1;
            out.push((code - 0x190 + 144) as u8);
        }
    }
}

/// `ReceivedResponse::body`: "cleaned of secrets whatever the answer: … every secret of the call
/// … replaced by `[redacted]`; the bytes as sent when there was nothing to remove";
/// SECURITY.md: "a text that cannot be cleaned by structure is not kept as it was". The client
/// asks for no content coding and decodes none, but a hostile service may send one anyway:
/// `Content-Encoding: gzip` over an error that quotes a secret of the call. Every HTTP reader
/// (a browser, curl `--compressed`, a log viewer) inflates it; the hook gets it as bytes.
#[test]
fn a_secret_in_a_gzip_encoded_body_is_not_handed_on() {
    let strategy = (
        "[a-z0-9]{20}",
        "[a-z0-9]{20}",
        0..3usize,
        prop::sample::select(vec!["400 Bad Request", "500 Internal Server Error"]),
    );
    generate(strategy, |runtime, (consumer, token, which, status)| {
        runtime.block_on(async {
            let (c, t) = (consumer.clone(), token.clone());
            let sent: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
            let keep = sent.clone();
            let raw = Raw::start(move |request, _| {
                let s = match which {
                    0 => c.clone(),
                    1 => t.clone(),
                    _ => request.signature(),
                };
                let plain = format!(r#"{{"error":{{"code":"E_X","message":"key {s} refused"}}}}"#);
                let body = gzip(plain.as_bytes());
                assert_eq!(gunzip_fixed(&body), plain.as_bytes());
                keep.lock().unwrap().push(body.clone());
                response(
                    status,
                    &[
                        (b"Content-Type", b"application/json"),
                        (b"Content-Encoding", b"gzip"),
                    ],
                    &body,
                )
            })
            .await;
            let watched = Watched::new();
            let gzipped: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
            let handed = gzipped.clone();
            let client = watched
                .builder(&raw.base, &consumer)
                .on_response(move |response| {
                    if let Some(body) = response.body() {
                        handed.lock().unwrap().push(body.to_vec());
                    }
                })
                .build()
                .unwrap();
            let result = session(&client, &token)
                .get_invoice(9003)
                .send_with_metadata()
                .await;
            watched.result("get_invoice", &result);
            let mut seen = watched.drain();
            // What a hook that keeps the body (a traffic recorder) would show once inflated.
            for body in gzipped.lock().unwrap().iter() {
                if body.starts_with(&[0x1f, 0x8b]) && body.len() > 18 {
                    seen.push((
                        "response hook body, inflated".into(),
                        String::from_utf8_lossy(&gunzip_fixed(body)).into_owned(),
                    ));
                }
            }
            let mut forbidden = vec![
                ("consumer secret", consumer.clone()),
                ("token secret", token.clone()),
            ];
            forbidden.extend(signatures(&raw));
            clean(&seen, &forbidden)
        })
    });
}
