//! Red team 3: the response hooks, the response metadata and the recordings, as SECURITY.md
//! states them now that a hook's headers and body are cleaned when a hook first reads them
//! (once, shared by every hook and the recorders), a body over 64 KiB is cleaned before the
//! hooks under the call's deadline, and `Request::send` keeps no metadata.
//!
//! Every server is started here, on 127.0.0.1 with an OS-chosen port. Each case plants the
//! call's own secrets (the consumer secret, the token secret, each attempt's signature) in an
//! answer, in the spellings the scrubber says it undoes, and looks for them in every channel a
//! hook, the metadata or a recording offers.
//!
//! Six cases found open siblings when they were written, each fixed at one place since:
//! a token answer's new secret known before the hooks run (`error_body::issued_secrets`);
//! every attempt's signature known to the later attempts of the call (`KnownSecrets::
//! with_signatures`); every cleaning of a call's texts bounded by its deadline
//! (`Scrubber::until`), for hooks and metadata; a short secret of digits followed by a
//! number's exponent removed where it stands (`scrub/known.rs`), and the `apiVersion`
//! refusal's excerpt withheld.

use marketplace_tests::runtime;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use marketplace_client::oauth::{AccessToken, RequestToken};
use marketplace_client::recording::{Exchange, Recorder};
use marketplace_client::request::DataMethod;
use marketplace_client::{
    Client, ClientBuilder, ConsumerCredentials, Error, GetInvoice, GetTimesheetsForBid,
    ReceivedResponse, RetryPolicy, Secret, Session, TryStreamExt,
};
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

// ---------------------------------------------------------------------------------------------
// Secrets and the spellings a reader takes for them
// ---------------------------------------------------------------------------------------------

/// A random secret of letters and digits, distinct from any text the client or the stub writes.
fn secret_strategy() -> impl Strategy<Value = String> {
    "[A-Za-z0-9]{18,26}"
}

/// The spellings planted in answers and looked for in every channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spelling {
    Plain,
    Percent,
    Base64,
    Base64Url,
    Hex,
    JsonEscape,
    HtmlHex,
}

const SPELLINGS: [Spelling; 7] = [
    Spelling::Plain,
    Spelling::Percent,
    Spelling::Base64,
    Spelling::Base64Url,
    Spelling::Hex,
    Spelling::JsonEscape,
    Spelling::HtmlHex,
];

fn spelling_strategy() -> impl Strategy<Value = Spelling> {
    proptest::sample::select(SPELLINGS.to_vec())
}

/// `secret` spelled so that it can stand inside a JSON string, a header value or a form value.
fn spell(secret: &str, spelling: Spelling) -> String {
    match spelling {
        Spelling::Plain => secret.to_owned(),
        Spelling::Percent => secret.bytes().map(|b| format!("%{b:02X}")).collect(),
        Spelling::Base64 => base64::engine::general_purpose::STANDARD.encode(secret),
        Spelling::Base64Url => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret),
        Spelling::Hex => secret.bytes().map(|b| format!("{b:02x}")).collect(),
        Spelling::JsonEscape => secret.bytes().map(|b| format!("\\u{b:04x}")).collect(),
        Spelling::HtmlHex => secret.bytes().map(|b| format!("&#x{b:x};")).collect(),
    }
}

/// What is looked for: each spelling of `secret`, the base64 ones cut to the characters its
/// whole 3-byte groups fix (so that padding and what follows do not matter).
fn readings(secret: &str) -> Vec<(Spelling, String, bool)> {
    let whole = secret.len() / 3 * 3;
    let cut = |text: String| text[..whole / 3 * 4].to_owned();
    SPELLINGS
        .iter()
        .map(|&spelling| match spelling {
            Spelling::Base64 => (
                spelling,
                cut(base64::engine::general_purpose::STANDARD.encode(&secret[..whole])),
                false,
            ),
            Spelling::Base64Url => (
                spelling,
                cut(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&secret[..whole])),
                false,
            ),
            // Case is ignored for every other reading (ASCII case ignored, SECURITY.md).
            other => (other, spell(secret, other).to_ascii_lowercase(), true),
        })
        .collect()
}

/// Every (channel, secret's name, spelling) under which a secret shows in `shown`.
fn leaks(shown: &[(String, String)], secrets: &[(&str, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (what, secret) in secrets {
        for (spelling, reading, fold) in readings(secret) {
            for (channel, text) in shown {
                let hit = if fold {
                    text.to_ascii_lowercase().contains(&reading)
                } else {
                    text.contains(&reading)
                };
                if hit {
                    found.push(format!(
                        "the {what} ({spelling:?}) in {channel}: {}",
                        excerpt(text, &reading, fold)
                    ));
                }
            }
        }
    }
    found
}

fn excerpt(text: &str, reading: &str, fold: bool) -> String {
    let at = if fold {
        text.to_ascii_lowercase().find(reading)
    } else {
        text.find(reading)
    }
    .unwrap_or(0);
    let mut start = at.saturating_sub(60);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + reading.len() + 60).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    format!("…{}…", &text[start..end])
}

fn assert_no_leak(shown: &[(String, String)], secrets: &[(&str, String)]) {
    let found = leaks(shown, secrets);
    assert!(
        found.is_empty(),
        "a secret left the process: {}",
        summary(&found)
    );
}

/// How many hits, in which channels, and the first few of them.
fn summary(found: &[String]) -> String {
    let mut channels: Vec<String> = found
        .iter()
        .filter_map(|hit| {
            let start = hit.find(") in ")? + ") in ".len();
            let end = hit[start..].find(": ")? + start;
            let channel = &hit[start..end];
            // "hook 0 attempt 2 body" → "hook body"
            let words: Vec<&str> = channel
                .split(' ')
                .filter(|word| word.parse::<u32>().is_err() && *word != "attempt")
                .collect();
            Some(words.join(" "))
        })
        .collect();
    channels.sort();
    channels.dedup();
    let first: Vec<String> = found
        .iter()
        .take(8)
        .map(|hit| hit.replace('\n', " ").chars().take(260).collect())
        .collect();
    format!(
        "{} hits, in {} kinds of channel: {}\nfirst hits:\n{}",
        found.len(),
        channels.len(),
        channels.join("; "),
        first.join("\n")
    )
}

/// The signatures the stub received (percent-decoded from `Authorization`).
fn signatures(requests: &[RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .filter_map(|request| request.header("authorization"))
        .filter_map(|header| {
            let at = header.find("oauth_signature=\"")? + "oauth_signature=\"".len();
            let end = header[at..].find('"')? + at;
            Some(percent_decode(&header[at..end]))
        })
        .collect()
}

fn signature_of(request: &RecordedRequest) -> String {
    signatures(std::slice::from_ref(request))
        .pop()
        .expect("a signed request")
}

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

// ---------------------------------------------------------------------------------------------
// Channels: what hooks, the metadata and the recorder show
// ---------------------------------------------------------------------------------------------

/// Texts gathered from hooks, errors, metadata and recordings, by channel.
#[derive(Clone, Default)]
struct Shown(Arc<Mutex<Vec<(String, String)>>>);

impl Shown {
    fn push(&self, channel: impl Into<String>, text: impl Into<String>) {
        self.0.lock().unwrap().push((channel.into(), text.into()));
    }
    fn take(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn headers_text(headers: &marketplace_client::reqwest::header::HeaderMap) -> String {
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

/// A recording written to memory.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Recording {
    recorder: Recorder,
    lines: Lines,
}

impl Recording {
    fn new() -> Recording {
        let lines = Lines::default();
        Recording {
            recorder: Recorder::to_writer(lines.clone()),
            lines,
        }
    }

    /// Every line written so far (raw, and each field of the exchange it holds, decoded).
    fn texts(&self) -> Vec<(String, String)> {
        self.recorder.flush().expect("the recorder writes");
        let text = String::from_utf8_lossy(&self.lines.0.lock().unwrap()).into_owned();
        let mut texts = Vec::new();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            texts.push(("recording line".to_owned(), line.to_owned()));
            let exchange = Exchange::from_line(line).expect("a recording line is an exchange");
            texts.extend(exchange_texts("recorded exchange", &exchange));
        }
        texts
    }

    fn count(&self) -> usize {
        self.recorder.flush().expect("the recorder writes");
        String::from_utf8_lossy(&self.lines.0.lock().unwrap())
            .lines()
            .filter(|line| !line.trim().is_empty())
            .count()
    }
}

fn exchange_texts(what: &str, exchange: &Exchange) -> Vec<(String, String)> {
    let mut texts = vec![
        (format!("{what} Debug"), format!("{exchange:?}")),
        (format!("{what} line"), exchange.to_line()),
        (format!("{what} path"), exchange.path.clone()),
        (
            format!("{what} body"),
            exchange.body.clone().unwrap_or_default(),
        ),
        (
            format!("{what} note"),
            exchange.note.clone().unwrap_or_default(),
        ),
    ];
    for (name, value) in &exchange.headers {
        texts.push((format!("{what} header"), format!("{name}: {value}")));
    }
    for (name, value) in &exchange.params {
        texts.push((format!("{what} param"), format!("{name}={value}")));
    }
    texts
}

fn error_texts(what: &str, error: &Error) -> Vec<(String, String)> {
    let mut texts = vec![
        (format!("{what} error Display"), error.to_string()),
        (format!("{what} error Debug"), format!("{error:?}")),
        (format!("{what} error Debug alt"), format!("{error:#?}")),
    ];
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        texts.push((format!("{what} error source"), cause.to_string()));
        source = cause.source();
    }
    texts
}

// ---------------------------------------------------------------------------------------------
// What a hook reads
// ---------------------------------------------------------------------------------------------

/// One read a hook makes of what it is handed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    IsRedacted,
    Body,
    Headers,
    Debug,
    DebugAlternate,
    Url,
    FromResponse,
}

const READS: [Read; 7] = [
    Read::IsRedacted,
    Read::Body,
    Read::Headers,
    Read::Debug,
    Read::DebugAlternate,
    Read::Url,
    Read::FromResponse,
];

/// What one hook saw of one answer.
#[derive(Clone, Debug, Default)]
struct Sight {
    hook: usize,
    attempt: u32,
    status: u16,
    body: Option<Option<Vec<u8>>>,
    redacted: Vec<bool>,
}

#[derive(Clone, Default)]
struct Sights(Arc<Mutex<Vec<Sight>>>);

/// Makes `response` be read by `reads` in order, pushing every text to `shown`.
fn read_all(hook: usize, response: &ReceivedResponse<'_>, reads: &[Read], shown: &Shown) -> Sight {
    let mut sight = Sight {
        hook,
        attempt: response.attempt(),
        status: response.status(),
        ..Sight::default()
    };
    let channel = |what: &str| format!("hook {hook} attempt {} {what}", response.attempt());
    for read in reads {
        match read {
            Read::IsRedacted => sight.redacted.push(response.body_is_redacted()),
            Read::Body => {
                let body = response.body().map(<[u8]>::to_vec);
                shown.push(
                    channel("body"),
                    String::from_utf8_lossy(body.as_deref().unwrap_or_default()),
                );
                if let Some(earlier) = &sight.body {
                    assert_eq!(earlier, &body, "the body changed between two reads");
                }
                sight.body = Some(body);
            }
            Read::Headers => shown.push(channel("headers"), headers_text(response.headers())),
            Read::Debug => shown.push(channel("Debug"), format!("{response:?}")),
            Read::DebugAlternate => shown.push(channel("Debug alt"), format!("{response:#?}")),
            Read::Url => shown.push(channel("url"), response.url().to_string()),
            Read::FromResponse => {
                let exchange = Exchange::from_response(response);
                for (what, text) in exchange_texts(&channel("Exchange::from_response"), &exchange) {
                    shown.push(what, text);
                }
                let redacted = exchange.redacted();
                for (what, text) in
                    exchange_texts(&channel("Exchange::from_response().redacted()"), &redacted)
                {
                    shown.push(what, text);
                }
            }
        }
    }
    sight
}

// ---------------------------------------------------------------------------------------------
// The client, the session and the answers
// ---------------------------------------------------------------------------------------------

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn builder(stub: &StubServer, consumer: &str) -> ClientBuilder {
    Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("red-team-three-key", consumer),
    )
    .retry(RetryPolicy::none())
    .allow_plain_http_oauth_on_loopback()
}

fn session(client: &Client, token: &str) -> Session {
    client.session(AccessToken::new(
        "red-team-three-token",
        token,
        jiff::Timestamp::now(),
    ))
}

/// The invoice fixture (a data answer the client decodes), as text.
fn invoice_fixture() -> String {
    String::from_utf8(marketplace_tests::fixtures::read("pay/getInvoice.json").unwrap()).unwrap()
}

/// The invoice fixture with `fields` (already JSON) added at the end of the envelope.
fn invoice_with(fields: &str) -> String {
    let fixture = invoice_fixture();
    let end = fixture.trim_end().rfind('}').unwrap();
    format!("{},{fields}}}", &fixture[..end].trim_end())
}

/// A data answer echoing `secrets` (each in its spelling) in an extra envelope field.
fn invoice_echoing(secrets: &[(String, Spelling)]) -> String {
    let echoed: Vec<String> = secrets
        .iter()
        .map(|(secret, spelling)| format!("seen {} here", spell(secret, *spelling)))
        .collect();
    invoice_with(&format!("\"echo\":\"{}\"", echoed.join(" and ")))
}

/// Headers echoing `secrets` in their values, as a hostile service would.
fn echoing_headers(reply: Reply, secrets: &[(String, Spelling)]) -> Reply {
    let mut reply = reply;
    for (n, (secret, spelling)) in secrets.iter().enumerate() {
        let spelled = spell(secret, *spelling);
        reply = reply
            .header(&format!("X-Echo-{n}"), &format!("key {spelled} seen"))
            .header(&format!("X-Trace-{n}"), &format!("t={spelled}"));
    }
    reply
}

fn block_on_with_timeout<T>(
    runtime: &tokio::runtime::Runtime,
    future: impl Future<Output = T>,
) -> T {
    runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(30), future)
            .await
            .expect("the case ended within 30 s")
    })
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

/// SECURITY.md, response hooks: "`body()` is `Response::read(&scrubber)` … each made on first
/// use …, once, with the attempt's scrubber"; `ReceivedResponse::body_is_redacted`: "Whether
/// body is not the bytes as sent: secrets were removed". A hook that asks whether the body was
/// cleaned *before* any hook read the body must get the same answer as after: with the body
/// made on first use, the flag must not report the state of a cleaning not yet done.
#[test]
fn body_is_redacted_asked_before_any_body_read_says_the_secret_was_removed() {
    let runtime = runtime();
    block_on_with_timeout(&runtime, async {
        let stub = StubServer::start().await.unwrap();
        let (consumer, token) = (
            "ConsumerSecretRt3aQ9xZ".to_owned(),
            "TokenSecretRt3bW7yK".to_owned(),
        );
        stub.fallback(
            GetInvoice::PATH,
            Reply::json(
                200,
                invoice_echoing(&[
                    (consumer.clone(), Spelling::Plain),
                    (token.clone(), Spelling::Base64),
                ]),
            ),
        );
        let shown = Shown::default();
        let sights = Sights::default();
        let (first, second) = (
            (shown.clone(), sights.clone()),
            (shown.clone(), sights.clone()),
        );
        let client = builder(&stub, &consumer)
            .on_response(move |response| {
                let sight = read_all(0, response, &[Read::IsRedacted], &first.0);
                first.1.0.lock().unwrap().push(sight);
            })
            .on_response(move |response| {
                let sight = read_all(1, response, &[Read::Body, Read::IsRedacted], &second.0);
                second.1.0.lock().unwrap().push(sight);
            })
            .build()
            .unwrap();
        let invoice = session(&client, &token).get_invoice(9003).send().await;
        assert!(invoice.is_ok(), "the invoice decodes: {invoice:?}");
        let sights = sights.0.lock().unwrap().clone();
        assert_eq!(sights.len(), 2, "{sights:?}");
        assert_eq!(
            sights[0].redacted,
            vec![true],
            "the first hook asked body_is_redacted() before any body() and was told the body is \
             the bytes as sent, though it holds the consumer secret: {sights:?}"
        );
        assert_eq!(sights[1].redacted, vec![true], "{sights:?}");
        assert_no_leak(
            &shown.take(),
            &[("consumer secret", consumer), ("token secret", token)],
        );
    });
}

/// SECURITY.md, response hooks: "`ReceivedResponse` holds the answer only behind its accessors
/// (`hooks::Shown`: no field, no `Debug` reaches it otherwise)"; recordings: "the client's
/// recorder writes what hooks get". `Exchange::from_response` is public and takes a
/// `ReceivedResponse`: "The exchange a response hook sees … The body is copied as the hook has
/// it; cleaning it happens on the recorder's thread." A hook that reads nothing else and builds
/// that exchange (as a traffic recorder of the app's would) must not get the answer's raw body,
/// neither as the exchange is made nor after `redacted()`, which has no secret of the call.
#[test]
fn exchange_from_response_in_a_hook_that_read_nothing_else_holds_no_secret() {
    let runtime = runtime();
    block_on_with_timeout(&runtime, async {
        for spelling in SPELLINGS {
            let stub = StubServer::start().await.unwrap();
            let (consumer, token) = (
                format!("FromRespConsumer{spelling:?}x9"),
                format!("FromRespToken{spelling:?}q7Z"),
            );
            let planted = [(consumer.clone(), spelling), (token.clone(), spelling)];
            stub.fallback(
                GetInvoice::PATH,
                echoing_headers(Reply::json(200, invoice_echoing(&planted)), &planted),
            );
            let shown = Shown::default();
            let seen = shown.clone();
            let client = builder(&stub, &consumer)
                .on_response(move |response| {
                    read_all(0, response, &[Read::FromResponse], &seen);
                })
                .build()
                .unwrap();
            let invoice = session(&client, &token).get_invoice(9003).send().await;
            assert!(invoice.is_ok(), "{invoice:?}");
            let shown = shown.take();
            assert!(!shown.is_empty());
            assert_no_leak(
                &shown,
                &[("consumer secret", consumer), ("token secret", token)],
            );
        }
    });
}

/// SECURITY.md, response hooks: "no secret in any answer's body or header …, data answers
/// included"; `headers()` and `body()` "each made on first use …, once, with the attempt's
/// scrubber" and shared by every hook. Generated: one to four hooks, each reading the answer
/// in its own order (`body_is_redacted()` first, headers only, `Debug` only through `{:?}` or
/// `{:#?}`, the URL, `Exchange::from_response`, or nothing), an answer that echoes the consumer
/// and token secrets in the body, in header values and as a header name, in any spelling, with
/// a success or an error status and any of the content types a service sends. No hook sees a secret, every hook that reads the body gets the same bytes, and
/// every `body_is_redacted()` says the body was cleaned.
#[test]
fn hooks_reading_in_any_order_see_no_secret_and_the_same_cleaned_body() {
    let runtime = runtime();
    let reads = proptest::collection::vec(proptest::sample::select(READS.to_vec()), 0..5);
    let strategy = (
        secret_strategy(),
        secret_strategy(),
        spelling_strategy(),
        spelling_strategy(),
        proptest::collection::vec(reads, 1..5),
        proptest::sample::select(vec![200u16, 400, 404, 500]),
        proptest::sample::select(vec![
            "application/json",
            "text/html; charset=utf-8",
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/problem+json",
        ]),
    );
    runner(48)
        .run(
            &strategy,
            |(consumer, token, in_body, in_headers, hooks, status, content_type)| {
                block_on_with_timeout(&runtime, async {
                    let stub = StubServer::start().await.unwrap();
                    let body = invoice_echoing(&[
                        (consumer.clone(), in_body),
                        (token.clone(), in_headers),
                    ]);
                    let planted = [(consumer.clone(), in_headers), (token.clone(), in_body)];
                    let secrets = [
                        ("consumer secret", consumer.clone()),
                        ("token secret", token.clone()),
                    ];
                    // The detector finds what was planted (the case is not vacuous).
                    assert!(leaks(&[("raw body".into(), body.clone())], &secrets).len() >= 2);
                    let mut reply =
                        echoing_headers(Reply::text(status, content_type, body), &planted);
                    // A header whose name is the token secret, in a spelling a name can hold.
                    if matches!(
                        in_headers,
                        Spelling::Plain | Spelling::Hex | Spelling::Base64Url | Spelling::Percent
                    ) {
                        reply = reply.header(&format!("X-{}", spell(&token, in_headers)), "1");
                    }
                    stub.fallback(GetInvoice::PATH, reply);
                    let shown = Shown::default();
                    let sights = Sights::default();
                    let mut client = builder(&stub, &consumer);
                    for (n, reads) in hooks.iter().enumerate() {
                        let (shown, sights, reads) = (shown.clone(), sights.clone(), reads.clone());
                        client = client.on_response(move |response| {
                            let sight = read_all(n, response, &reads, &shown);
                            sights.0.lock().unwrap().push(sight);
                        });
                    }
                    let client = client.build().unwrap();
                    let result = session(&client, &token).get_invoice(9003).send().await;
                    let mut texts = shown.take();
                    if let Err(error) = &result {
                        texts.extend(error_texts("get_invoice", error));
                    }
                    assert_no_leak(
                        &texts,
                        &[
                            ("consumer secret", consumer.clone()),
                            ("token secret", token.clone()),
                        ],
                    );
                    let sights = sights.0.lock().unwrap().clone();
                    assert_eq!(sights.len(), hooks.len(), "every hook ran once");
                    let bodies: Vec<&Option<Vec<u8>>> = sights
                        .iter()
                        .filter_map(|sight| sight.body.as_ref())
                        .collect();
                    assert!(
                        bodies.windows(2).all(|pair| pair[0] == pair[1]),
                        "two hooks were shown different bodies of one answer"
                    );
                    for sight in &sights {
                        assert_eq!((sight.status, sight.attempt), (status, 1), "{sight:?}");
                        assert!(
                            sight.redacted.iter().all(|&redacted| redacted),
                            "body_is_redacted() said the body holding the secrets was not \
                         cleaned: {sight:?} (reads {:?})",
                            hooks[sight.hook]
                        );
                    }
                });
                Ok(())
            },
        )
        .unwrap();
}

/// SECURITY.md, response hooks: `ReceivedResponse` "each made on first use …, once"; the
/// rendered docs: `ReceivedResponse` is `Sync`. A hook may hand the answer to several threads
/// at once (`std::thread::scope`): whichever thread asks first, and however many ask while the
/// cleaning is under way, every one sees the cleaned headers and body, never the answer as it
/// arrived, and all see the same bytes.
#[test]
fn threads_racing_to_read_a_hooks_answer_first_all_see_it_cleaned() {
    let runtime = runtime();
    block_on_with_timeout(&runtime, async {
        for (round, size) in [0usize, 20_000, 60_000, 100_000].into_iter().enumerate() {
            let stub = StubServer::start().await.unwrap();
            let (consumer, token) = (
                format!("RaceConsumer{round}Kq8dWx"),
                format!("RaceToken{round}Pz3mNv"),
            );
            let planted = [
                (consumer.clone(), Spelling::Percent),
                (token.clone(), Spelling::Hex),
            ];
            let body = invoice_with(&format!(
                "\"pad\":\"{}\",\"echo\":\"{} {}\"",
                "q".repeat(size),
                spell(&consumer, Spelling::Base64),
                spell(&token, Spelling::JsonEscape)
            ));
            stub.fallback(
                GetInvoice::PATH,
                echoing_headers(Reply::json(200, body), &planted),
            );
            let shown = Shown::default();
            let bodies: Arc<Mutex<Vec<Option<Vec<u8>>>>> = Arc::default();
            let (seen, kept) = (shown.clone(), bodies.clone());
            let client = builder(&stub, &consumer)
                .on_response(move |response| {
                    let barrier = std::sync::Barrier::new(8);
                    std::thread::scope(|scope| {
                        for thread in 0..8usize {
                            let (barrier, seen, kept) = (&barrier, &seen, &kept);
                            scope.spawn(move || {
                                barrier.wait();
                                let reads: &[Read] = match thread % 4 {
                                    0 => &[Read::Body, Read::Headers],
                                    1 => &[Read::Headers, Read::Body],
                                    2 => &[Read::Debug, Read::IsRedacted, Read::Body],
                                    _ => &[Read::IsRedacted, Read::DebugAlternate, Read::Body],
                                };
                                let sight = read_all(thread, response, reads, seen);
                                assert!(sight.redacted.iter().all(|&r| r), "{sight:?}");
                                kept.lock().unwrap().push(sight.body.unwrap());
                            });
                        }
                    });
                })
                .build()
                .unwrap();
            let invoice = session(&client, &token).get_invoice(9003).send().await;
            assert!(invoice.is_ok(), "{invoice:?}");
            let bodies = bodies.lock().unwrap().clone();
            assert_eq!(bodies.len(), 8);
            assert!(bodies.windows(2).all(|pair| pair[0] == pair[1]));
            assert_no_leak(
                &shown.take(),
                &[("consumer secret", consumer), ("token secret", token)],
            );
        }
    });
}

/// What a hook beside the recorder reads of each answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Beside {
    NoHook,
    ReadsNothing,
    HeadersOnly,
    BodyOnly,
    IsRedactedOnly,
    DebugOnly,
    StatusOnly,
}

const BESIDE: [Beside; 7] = [
    Beside::NoHook,
    Beside::ReadsNothing,
    Beside::HeadersOnly,
    Beside::BodyOnly,
    Beside::IsRedactedOnly,
    Beside::DebugOnly,
    Beside::StatusOnly,
];

fn beside(builder: ClientBuilder, beside: Beside, shown: &Shown) -> ClientBuilder {
    let shown = shown.clone();
    let reads: &'static [Read] = match beside {
        Beside::NoHook => return builder,
        Beside::ReadsNothing | Beside::StatusOnly => &[],
        Beside::HeadersOnly => &[Read::Headers],
        Beside::BodyOnly => &[Read::Body],
        Beside::IsRedactedOnly => &[Read::IsRedacted],
        Beside::DebugOnly => &[Read::Debug],
    };
    builder.on_response(move |response| {
        if beside == Beside::StatusOnly {
            shown.push(
                "hook status",
                format!("{} {:?}", response.status(), response.latency()),
            );
        }
        read_all(0, response, reads, &shown);
    })
}

/// SECURITY.md, recordings: "a recording holds no secret: fit to commit … the client's
/// recorder writes what hooks get: the answer goes to the recorder's thread with the call's
/// secrets … and is cleaned there by the call's own scrubber"; CHANGELOG: cleaned "once, for
/// every hook and the recorders". Generated: a recorder beside no hook, a hook that reads
/// nothing (or only the status), only the headers, only the body, only `body_is_redacted()`
/// or only `Debug`; answers of every kind of status echoing the consumer and token secrets in
/// the body and the kept headers (`Content-Type`, `Retry-After`, `Date`, whichever the
/// recorder keeps) in any spelling. Neither the lines written nor the exchanges read back hold
/// a secret, and every answer is recorded.
#[test]
fn a_recorder_beside_hooks_that_read_nothing_or_part_records_no_secret() {
    let runtime = runtime();
    let strategy = (
        secret_strategy(),
        secret_strategy(),
        spelling_strategy(),
        spelling_strategy(),
        proptest::sample::select(BESIDE.to_vec()),
        proptest::sample::select(vec![200u16, 401, 404, 429, 503]),
    );
    runner(56)
        .run(&strategy, |(consumer, token, one, two, hook, status)| {
            block_on_with_timeout(&runtime, async {
                let stub = StubServer::start().await.unwrap();
                let body = invoice_echoing(&[(consumer.clone(), one), (token.clone(), two)]);
                let planted = [(consumer.clone(), two), (token.clone(), one)];
                let reply = echoing_headers(Reply::json(status, body), &planted)
                    .header(
                        "Content-Type",
                        &format!(
                            "application/json; charset=utf-8; x={}",
                            spell(&consumer, two)
                        ),
                    )
                    .header("Retry-After", &spell(&token, one))
                    .header(
                        "Date",
                        &format!("Mon, 19 Jan 2026 {}", spell(&consumer, one)),
                    );
                stub.fallback(GetInvoice::PATH, reply);
                let recording = Recording::new();
                let shown = Shown::default();
                let client = beside(builder(&stub, &consumer), hook, &shown)
                    .record(recording.recorder.clone())
                    .build()
                    .unwrap();
                let result = session(&client, &token).get_invoice(9003).send().await;
                let mut texts = recording.texts();
                assert_eq!(recording.count(), 1, "the answer is recorded");
                texts.extend(shown.take());
                if let Err(error) = &result {
                    texts.extend(error_texts("get_invoice", error));
                }
                assert_no_leak(
                    &texts,
                    &[
                        ("consumer secret", consumer.clone()),
                        ("token secret", token.clone()),
                    ],
                );
            });
            Ok(())
        })
        .unwrap();
}

/// A data answer of exactly `size` bytes echoing `planted` in a field that starts at `at`
/// bytes (or as close after it as the envelope allows).
fn invoice_of_size(size: usize, at: usize, planted: &str) -> String {
    let head = {
        let fixture = invoice_fixture();
        let end = fixture.trim_end().rfind('}').unwrap();
        fixture[..end].trim_end().to_owned()
    };
    let open = format!("{head},\"pad\":\"");
    let echo = format!("\",\"echo\":\"{planted}");
    let close = "\"}";
    let fixed = open.len() + echo.len() + close.len();
    // Where the planted text starts with `pad` filler bytes: open + pad + echo - planted.
    let before = open.len() + echo.len() - planted.len();
    let pad = at.saturating_sub(before);
    let tail = size
        .checked_sub(fixed + pad)
        .unwrap_or_else(|| panic!("no room for {size} bytes with the secret at {at}"));
    let body = format!("{open}{}{echo}{}{close}", "x".repeat(pad), " ".repeat(tail));
    assert_eq!(body.len(), size);
    body
}

/// SECURITY.md, response hooks: headers and body "each made on first use …; a body over
/// 64 KiB is cleaned before the hooks, under the deadline". Two code paths meet at 64 KiB:
/// bodies of 64 KiB − 1, 64 KiB, 64 KiB + 1 and more, echoing the call's secrets in each
/// spelling at the start, astride the 64 KiB mark and at the very end, read by a hook that
/// reads the body, by one that reads only the headers (the recorder cleans the body then), and
/// recorded, as a success and as an error (500). No hook, no exchange from the hook and no
/// recorded line shows a secret, and a hook's body is shown whole, the secrets replaced.
#[test]
fn bodies_at_the_64_kib_edge_show_no_secret_to_hooks_or_recorder() {
    let runtime = runtime();
    let strategy = (
        secret_strategy(),
        spelling_strategy(),
        proptest::sample::select(vec![65_535usize, 65_536, 65_537, 65_540, 70_000]),
        proptest::sample::select(vec![0usize, 1, 2, 3]),
        any::<bool>(),
        proptest::sample::select(vec![200u16, 500]),
    );
    runner(40)
        .run(
            &strategy,
            |(consumer, spelling, size, place, body_first, status)| {
                block_on_with_timeout(&runtime, async {
                    let token = format!("{}tok", consumer.chars().rev().collect::<String>());
                    let planted =
                        format!("{} {}", spell(&consumer, spelling), spell(&token, spelling));
                    let at = match place {
                        0 => 0,
                        1 => 65_536 - planted.len() / 2,
                        2 => 65_536 - planted.len(),
                        _ => size - planted.len() - 2,
                    };
                    let body = invoice_of_size(size, at.min(size - planted.len() - 2), &planted);
                    let stub = StubServer::start().await.unwrap();
                    stub.fallback(
                        GetInvoice::PATH,
                        echoing_headers(
                            Reply::json(status, body.clone()),
                            &[(consumer.clone(), spelling)],
                        ),
                    );
                    let recording = Recording::new();
                    let shown = Shown::default();
                    let (seen, bodies) = (shown.clone(), Arc::new(Mutex::new(Vec::new())));
                    let kept = bodies.clone();
                    let reads: &'static [Read] = if body_first {
                        &[Read::Body, Read::FromResponse]
                    } else {
                        &[Read::Headers, Read::FromResponse]
                    };
                    let client = builder(&stub, &consumer)
                        .on_response(move |response| {
                            let sight = read_all(0, response, reads, &seen);
                            kept.lock().unwrap().push(sight.body);
                        })
                        .record(recording.recorder.clone())
                        .build()
                        .unwrap();
                    let result = session(&client, &token).get_invoice(9003).send().await;
                    let mut texts = recording.texts();
                    texts.extend(shown.take());
                    if let Err(error) = &result {
                        texts.extend(error_texts("get_invoice", error));
                    }
                    assert_no_leak(
                        &texts,
                        &[
                            ("consumer secret", consumer.clone()),
                            ("token secret", token.clone()),
                        ],
                    );
                    if body_first {
                        let body_seen = bodies.lock().unwrap()[0].clone().unwrap().unwrap();
                        let seen = String::from_utf8_lossy(&body_seen).into_owned();
                        assert!(
                            seen.contains("[redacted]"),
                            "{}",
                            excerpt(&seen, "echo", false)
                        );
                        assert!(seen.ends_with("\"}"), "the body is shown whole, not cut");
                    }
                });
                Ok(())
            },
        )
        .unwrap();
}

/// SECURITY.md: the secrets are "the consumer secret, every token secret (request and access)
/// …"; response hooks: "no secret in any answer's body or header"; "known secrets in every
/// spelling a reader takes for them"; `ReceivedResponse::body`: "A token endpoint's answer,
/// which holds the new token secret, shows without it"; hooks run "before the call interprets
/// the answer" (`ClientBuilder::on_response`). The token secret a token endpoint hands back is
/// known only once its answer is read; the same answer also echoes it in its headers and in
/// another form pair, in each spelling. Hooks reading in either order, `Debug`,
/// `Exchange::from_response` and the recording must show it nowhere, for the request token and
/// for the access token.
#[test]
fn a_token_endpoints_new_secret_echoed_elsewhere_in_its_answer_reaches_no_hook_or_recording() {
    let runtime = runtime();
    let mut failures = Vec::new();
    for access in [false, true] {
        for spelling in SPELLINGS {
            for headers_first in [false, true] {
                let new_secret = format!("NewTok{}{spelling:?}{access}Zq", u8::from(headers_first));
                let found = block_on_with_timeout(&runtime, async {
                    let stub = StubServer::start().await.unwrap();
                    let path = if access {
                        "/oauth/getAccessToken"
                    } else {
                        "/oauth/getRequestToken"
                    };
                    let spelled = spell(&new_secret, spelling);
                    let form = format!(
                        "oauth_token=rt-red3&oauth_token_secret={new_secret}&oauth_callback_confirmed=true&echo={}",
                        spelled
                            .replace('&', "%26")
                            .replace('#', "%23")
                            .replace(';', "%3B")
                    );
                    let reply = Reply::text(200, "application/x-www-form-urlencoded", form)
                        .header("X-Echo", &format!("issued {spelled}"))
                        .header(
                            "Link",
                            &format!("<https://marketplace.example/t?s={spelled}>; rel=next"),
                        );
                    stub.fallback(path, reply);
                    let recording = Recording::new();
                    let shown = Shown::default();
                    let seen = shown.clone();
                    let reads: &'static [Read] = if headers_first {
                        &[
                            Read::Headers,
                            Read::IsRedacted,
                            Read::Body,
                            Read::Debug,
                            Read::FromResponse,
                        ]
                    } else {
                        &[
                            Read::Body,
                            Read::Headers,
                            Read::DebugAlternate,
                            Read::FromResponse,
                        ]
                    };
                    let client = builder(&stub, "consumer-secret-red-team-3")
                        .on_response(move |response| {
                            read_all(0, response, reads, &seen);
                        })
                        .record(recording.recorder.clone())
                        .build()
                        .unwrap();
                    let outcome = if access {
                        let request = RequestToken {
                            token: "rt-red3".into(),
                            secret: Secret::new("request-secret-red-team-3"),
                            callback_confirmed: true,
                        };
                        let verifier =
                            marketplace_client::oauth::Verifier::new("verifier-red-team-3")
                                .unwrap();
                        client
                            .access_token(&request, &verifier)
                            .await
                            .map(|token| token.token().to_owned())
                    } else {
                        client
                            .request_token(Some("myapp://cb"))
                            .await
                            .map(|token| token.token)
                    };
                    let mut texts = recording.texts();
                    texts.extend(shown.take());
                    match &outcome {
                        Ok(token) => assert_eq!(token, "rt-red3"),
                        Err(error) => texts.extend(error_texts("token call", error)),
                    }
                    leaks(&texts, &[("new token secret", new_secret.clone())])
                });
                let endpoint = if access { "access" } else { "request" };
                let order = if headers_first {
                    "headers first"
                } else {
                    "body first"
                };
                failures.extend(
                    found.into_iter().map(|leak| {
                        format!("[{endpoint} token, {spelling:?} echo, {order}] {leak}")
                    }),
                );
            }
        }
    }
    let mut combos: Vec<String> = failures
        .iter()
        .map(|hit| hit[..hit.find(']').unwrap() + 1].to_owned())
        .collect();
    combos.dedup();
    assert!(
        failures.is_empty(),
        "a token endpoint's new secret left the process in {} of 28 answers ({}): {}",
        combos.len(),
        combos.join(", "),
        summary(&failures)
    );
}

/// A data answer whose `apiVersion` is written `version` (any JSON text).
fn invoice_with_api_version(version: &str) -> String {
    let fixture = invoice_fixture();
    let replaced = fixture.replacen(
        "\"apiVersion\": 1",
        &format!("\"apiVersion\": {version}"),
        1,
    );
    assert_ne!(replaced, fixture, "the fixture's apiVersion is replaced");
    replaced
}

/// The ways a JSON text can write the number `digits` or a reader can take it for it.
fn api_version_forms(digits: &str) -> Vec<String> {
    vec![
        format!("{digits}.0"),
        format!("{digits}e0"),
        format!("{digits}.000E+0"),
        format!("-{digits}"),
        format!("\"{digits}\""),
        format!("{}.{}e{}", &digits[..1], &digits[1..], digits.len() - 1),
        format!("{digits}0e-1"),
        format!("0.{digits}e{}", digits.len()),
        format!("\" {digits} \""),
        format!("9{digits}"),
    ]
}

/// Sends `send_with_metadata` and `send` to an answer whose `apiVersion` is `version`, with a
/// token secret of `digits`, and gives every text that shows the digits.
fn api_version_shown(
    runtime: &tokio::runtime::Runtime,
    digits: &str,
    version: &str,
) -> Vec<String> {
    block_on_with_timeout(runtime, async {
        let stub = StubServer::start().await.unwrap();
        stub.fallback(
            GetInvoice::PATH,
            Reply::json(200, invoice_with_api_version(version)),
        );
        let shown = Shown::default();
        let seen = shown.clone();
        let client = builder(&stub, "consumer-secret-red-team-3")
            .on_response(move |response| {
                read_all(0, response, &[Read::Body, Read::Debug], &seen);
            })
            .build()
            .unwrap();
        let session = session(&client, digits);
        let mut texts = Vec::new();
        match session.get_invoice(9003).send_with_metadata().await {
            Ok(response) => {
                let meta = &response.meta;
                texts.push((
                    "ResponseMeta::api_version".to_owned(),
                    meta.api_version().to_string(),
                ));
                texts.push((
                    "ResponseMeta Debug".to_owned(),
                    format!("{meta:?} {meta:#?}"),
                ));
            }
            Err(error) => texts.extend(error_texts("send_with_metadata", &error)),
        }
        if let Err(error) = session.get_invoice(9003).send().await {
            texts.extend(error_texts("send", &error));
        }
        texts.extend(shown.take());
        texts
            .into_iter()
            .filter(|(_, text)| text.contains(digits))
            .map(|(channel, text)| {
                format!(
                    "apiVersion {version}, token secret {digits}: {channel}: {}",
                    excerpt(&text, digits, false)
                )
            })
            .collect()
    })
}

/// SECURITY.md, response metadata: "an `apiVersion` whose digits spell a secret of the call
/// refuses the answer (`Error::Decode` at `apiVersion`: a number cannot be shown in part).
/// Made only for `send_with_metadata`"; `ResponseMeta::api_version`: "An answer whose
/// apiVersion spells a secret of the call … is refused". A token secret of 8 to 18 digits
/// echoed as `apiVersion` in the other ways JSON writes that number or a reader takes for it:
/// with a fraction of zeros, an exponent, a sign, as a string (the reference: "unless otherwise
/// specified, JSON values are strings"), or after another digit. `send_with_metadata` either
/// refuses it or shows a version whose digits do not spell the secret; its error, the
/// metadata's `Debug` and a hook show the digits nowhere; nor does `send` on the same answer.
#[test]
fn an_api_version_spelling_a_long_secret_in_another_json_number_form_is_never_shown() {
    let runtime = runtime();
    let shown = std::cell::RefCell::new(Vec::new());
    runner(6)
        .run(
            &proptest::string::string_regex("[1-9][0-9]{7,17}").unwrap(),
            |digits| {
                for version in api_version_forms(&digits) {
                    shown
                        .borrow_mut()
                        .extend(api_version_shown(&runtime, &digits, &version));
                }
                Ok(())
            },
        )
        .unwrap();
    let shown = shown.into_inner();
    assert!(
        shown.is_empty(),
        "{} texts show the secret:\n{}",
        shown.len(),
        shown.join("\n")
    );
}

/// As above, with a token secret of 5 to 7 digits. SECURITY.md: a short secret "is removed
/// only where it stands alone, not inside a longer run of letters and digits" (so that a
/// short value does not blank the *words* that contain it). `apiVersion` written as exactly
/// that number with an exponent (`584224e0`, `5.84224e5`, `0.584224e6`, `5842240e-1`) is no
/// word: it is the secret standing alone as a JSON number, and the client reads it so, since
/// it refuses the answer ("the number spells a secret of the call (not shown)"). Its refusal
/// must then not show the number in the excerpt of the body beside it, nor a hook's body.
#[test]
fn an_api_version_spelling_a_short_secret_with_an_exponent_is_never_shown() {
    let runtime = runtime();
    let mut shown = Vec::new();
    for digits in ["584224", "73105", "9182736"] {
        for version in [
            format!("{digits}e0"),
            format!("{}.{}e{}", &digits[..1], &digits[1..], digits.len() - 1),
            format!("0.{digits}e{}", digits.len()),
            format!("{digits}0e-1"),
        ] {
            shown.extend(api_version_shown(&runtime, digits, &version));
        }
    }
    assert!(
        shown.is_empty(),
        "{} texts show the secret:\n{}",
        shown.len(),
        shown.join("\n")
    );
}

/// A GET retried after two 503s, every answer echoing the consumer and token secrets and the
/// signature of its own attempt (and, with `earlier`, of every attempt before it) in the
/// headers and the body, in `spelling`; one hook reads the body of the second attempt only,
/// another the headers and URL of every attempt, a third nothing; every attempt recorded.
/// Gives every hit of a secret or signature in any hook, recorded line or the call's error.
fn retried_answers_leaks(runtime: &tokio::runtime::Runtime, earlier: bool) -> Vec<String> {
    let mut failures = Vec::new();
    for (round, spelling) in SPELLINGS.into_iter().enumerate() {
        let (consumer, token) = (
            format!("RetryConsumer{round}{earlier}Hq2v"),
            format!("RetryToken{round}{earlier}Lm5x"),
        );
        let found = block_on_with_timeout(runtime, async {
            let stub = StubServer::start().await.unwrap();
            let sent: Arc<Mutex<Vec<String>>> = Arc::default();
            let (c, t) = (consumer.clone(), token.clone());
            stub.route(GetInvoice::PATH, move |request| {
                let mut sent = sent.lock().unwrap();
                sent.push(signature_of(request));
                let echoed = if earlier {
                    &sent[..]
                } else {
                    &sent[sent.len() - 1..]
                };
                let planted: Vec<(String, Spelling)> = echoed
                    .iter()
                    .map(|signature| (signature.clone(), spelling))
                    .chain([(c.clone(), spelling), (t.clone(), Spelling::Plain)])
                    .collect();
                let reply = if sent.len() < 3 {
                    let echoed: Vec<String> = planted
                        .iter()
                        .map(|(secret, spelling)| spell(secret, *spelling))
                        .collect();
                    Reply::json(
                        503,
                        format!(
                            r#"{{"error":{{"code":"E_BUSY","message":"busy; saw {}"}}}}"#,
                            echoed.join(", ")
                        ),
                    )
                } else {
                    Reply::json(200, invoice_echoing(&planted))
                };
                echoing_headers(reply, &planted)
            });
            let recording = Recording::new();
            let shown = Shown::default();
            let (second, every) = (shown.clone(), shown.clone());
            let client = builder(&stub, &consumer)
                .retry(
                    RetryPolicy::default()
                        .max_attempts(3)
                        .base_delay(Duration::from_millis(1))
                        .max_delay(Duration::from_millis(2)),
                )
                .on_response(move |response| {
                    if response.attempt() == 2 {
                        read_all(0, response, &[Read::Body, Read::IsRedacted], &second);
                    }
                })
                .on_response(move |response| {
                    read_all(1, response, &[Read::Headers, Read::Url], &every);
                })
                .on_response(|_| {})
                .record(recording.recorder.clone())
                .build()
                .unwrap();
            let result = session(&client, &token).get_invoice(9003).send().await;
            let mut texts = recording.texts();
            assert_eq!(recording.count(), 3, "every attempt is recorded");
            texts.extend(shown.take());
            if let Err(error) = &result {
                texts.extend(error_texts("get_invoice", error));
            }
            let sent = signatures(&stub.requests());
            assert_eq!(sent.len(), 3, "three attempts were made: {result:?}");
            let mut secrets: Vec<(&str, String)> = vec![
                ("consumer secret", consumer.clone()),
                ("token secret", token.clone()),
            ];
            let names = [
                "attempt 1's signature",
                "attempt 2's signature",
                "attempt 3's signature",
            ];
            for (name, signature) in names.into_iter().zip(&sent) {
                secrets.push((name, signature.clone()));
            }
            leaks(&texts, &secrets)
        });
        failures.extend(
            found
                .into_iter()
                .map(|leak| format!("[{spelling:?}] {leak}")),
        );
    }
    failures
}

/// SECURITY.md, the secrets: "the signature of each attempt"; response hooks: a hook "sees
/// every answer …: an error status, a 5xx that will be retried" (`ReceivedResponse`), each
/// cleaned "with the attempt's scrubber", on first use; recordings: "every attempt of every
/// call". Each answer of a retried call (503, 503, 200) echoes its own attempt's signature and
/// the consumer and token secrets, in every spelling: hooks reading on some attempts only and
/// the recording show none of them.
#[test]
fn retried_5xx_answers_echoing_their_own_attempts_signature_reach_no_hook_or_recording() {
    let runtime = runtime();
    let failures = retried_answers_leaks(&runtime, false);
    assert!(failures.is_empty(), "{}", summary(&failures));
}

/// As above, each answer also echoing the signatures of the attempts *before* it (the second
/// 503 quotes the first attempt's signature, the 200 both): SECURITY.md counts "the signature
/// of each attempt" among the secrets, not only the current attempt's, and the scrubber is
/// said to know "the client's secrets of other calls too". An earlier attempt of the same call
/// is closer still: its signature must not show in a later attempt's hook view or line.
#[test]
fn a_retried_answer_echoing_an_earlier_attempts_signature_reaches_no_hook_or_recording() {
    let runtime = runtime();
    let failures = retried_answers_leaks(&runtime, true);
    assert!(failures.is_empty(), "{}", summary(&failures));
}

/// SECURITY.md, response hooks: "no secret in any answer's body or header (name or value …)";
/// `ReceivedResponse`: a hook sees "a redirect that will be refused", its body `None`, its
/// headers cleaned "when first asked for". A 3xx whose `Location`, `Refresh`,
/// `Content-Location`, a cookie and other headers carry the consumer and token secrets in
/// every spelling, read by a hook that reads only the headers, by one that reads only `Debug`
/// (`{:?}` and `{:#?}`), by `Exchange::from_response`, and recorded: none shows a secret, nor
/// does the call's `Error::Redirect`.
#[test]
fn a_redirects_headers_echoing_secrets_reach_no_hook_recording_or_error() {
    let runtime = runtime();
    let mut failures = Vec::new();
    for (round, spelling) in SPELLINGS.into_iter().enumerate() {
        for status in [301u16, 302, 303, 307, 308] {
            let (consumer, token) = (
                format!("RedirConsumer{round}{status}Wq"),
                format!("RedirToken{round}{status}Pk"),
            );
            let found = block_on_with_timeout(&runtime, async {
                let stub = StubServer::start().await.unwrap();
                let (c, t) = (spell(&consumer, spelling), spell(&token, spelling));
                let reply = Reply::redirect(
                    status,
                    &format!("http://127.0.0.1:9/next?app={c}&t={t}#{t}"),
                )
                .header("Refresh", &format!("0; url=/elsewhere?k={c}"))
                .header("Content-Location", &format!("/api/v/{t}/{c}"))
                .header("Set-Cookie", &format!("sid={t}; Path=/; HttpOnly"))
                .header("X-Echo", &format!("{c} {t}"));
                stub.fallback(GetInvoice::PATH, reply);
                let recording = Recording::new();
                let shown = Shown::default();
                let (one, two, three) = (shown.clone(), shown.clone(), shown.clone());
                let client = builder(&stub, &consumer)
                    .on_response(move |response| {
                        read_all(0, response, &[Read::Headers], &one);
                    })
                    .on_response(move |response| {
                        read_all(1, response, &[Read::Debug, Read::DebugAlternate], &two);
                    })
                    .on_response(move |response| {
                        read_all(2, response, &[Read::FromResponse, Read::Body], &three);
                    })
                    .record(recording.recorder.clone())
                    .build()
                    .unwrap();
                let result = session(&client, &token).get_invoice(9003).send().await;
                let error = result.expect_err("a redirect is refused");
                let mut texts = recording.texts();
                texts.extend(shown.take());
                texts.extend(error_texts("get_invoice", &error));
                leaks(
                    &texts,
                    &[
                        ("consumer secret", consumer.clone()),
                        ("token secret", token.clone()),
                    ],
                )
            });
            failures.extend(
                found
                    .into_iter()
                    .map(|leak| format!("[{status} {spelling:?}] {leak}")),
            );
        }
    }
    assert!(failures.is_empty(), "{}", summary(&failures));
}

/// A page of timesheets: the fixture's page `page` of 3, its items renumbered by page, echoing
/// `planted`.
fn timesheets_page(page: u64, planted: &[(String, Spelling)]) -> String {
    let fixture = marketplace_tests::fixtures::read("pay/getTimesheetsForBid.json").unwrap();
    let mut envelope: serde_json::Value = serde_json::from_slice(&fixture).unwrap();
    let data = &mut envelope["data"];
    data["page"] = serde_json::json!(page);
    data["totalPages"] = serde_json::json!(3);
    for (_, sheet) in data["timesheets"].as_object_mut().unwrap().iter_mut() {
        let id = sheet["id"].as_u64().unwrap();
        sheet["id"] = serde_json::json!(id + page * 1000);
    }
    let echoed: Vec<String> = planted
        .iter()
        .map(|(secret, spelling)| spell(secret, *spelling))
        .collect();
    // The JSON escapes stay escapes: the echo is written into the text, not through serde.
    let text = serde_json::to_string(&envelope).unwrap();
    format!(
        "{},\"echo\":\"page {page}: {}\"}}",
        &text[..text.len() - 1],
        echoed.join(" ")
    )
}

/// SECURITY.md, response metadata: "`send` and streams keep none, and clean none"; response
/// hooks and recordings as above. A paged stream (`items()` and `pages()`, pages fetched ahead
/// concurrently) whose every page echoes the consumer and token secrets in the body and the
/// headers in a spelling of its own; hooks that read each page differently (the body of even
/// pages only, the headers only, `Debug` only) and a recorder. No page shows a secret in any
/// hook or recorded line, and every page is recorded.
#[test]
fn paged_streams_with_hooks_and_a_recorder_show_no_secret_of_any_page() {
    let runtime = runtime();
    let strategy = (
        secret_strategy(),
        secret_strategy(),
        proptest::collection::vec(spelling_strategy(), 3),
        any::<bool>(),
    );
    runner(12)
        .run(&strategy, |(consumer, token, spellings, as_items)| {
            block_on_with_timeout(&runtime, async {
                let stub = StubServer::start().await.unwrap();
                let (c, t, s) = (consumer.clone(), token.clone(), spellings.clone());
                stub.route(GetTimesheetsForBid::PATH, move |request| {
                    let page: u64 = request
                        .query_pairs()
                        .iter()
                        .find(|(name, _)| name == "page")
                        .map_or(1, |(_, value)| value.parse().unwrap());
                    let spelling = s[(page as usize - 1) % 3];
                    let planted = [(c.clone(), spelling), (t.clone(), s[page as usize % 3])];
                    echoing_headers(Reply::json(200, timesheets_page(page, &planted)), &planted)
                });
                let recording = Recording::new();
                let shown = Shown::default();
                let (one, two, three) = (shown.clone(), shown.clone(), shown.clone());
                let client = builder(&stub, &consumer)
                    .page_concurrency(3)
                    .on_response(move |response| {
                        let page = response
                            .params()
                            .find(|(name, _)| *name == "page")
                            .map_or(1, |(_, value)| value.parse::<u64>().unwrap());
                        if page % 2 == 0 {
                            read_all(0, response, &[Read::Body], &one);
                        }
                    })
                    .on_response(move |response| {
                        read_all(1, response, &[Read::Headers], &two);
                    })
                    .on_response(move |response| {
                        read_all(2, response, &[Read::Debug], &three);
                    })
                    .record(recording.recorder.clone())
                    .build()
                    .unwrap();
                let session = session(&client, &token);
                let count = if as_items {
                    session
                        .get_timesheets_for_bid(310001)
                        .items()
                        .try_collect::<Vec<_>>()
                        .await
                        .map(|items| items.len())
                } else {
                    session
                        .get_timesheets_for_bid(310001)
                        .pages()
                        .try_collect::<Vec<_>>()
                        .await
                        .map(|pages| pages.len() * 2)
                };
                assert_eq!(count.as_ref().ok(), Some(&6), "{count:?}");
                let mut texts = recording.texts();
                assert_eq!(recording.count(), 3, "every page is recorded");
                texts.extend(shown.take());
                assert_no_leak(
                    &texts,
                    &[
                        ("consumer secret", consumer.clone()),
                        ("token secret", token.clone()),
                    ],
                );
            });
            Ok(())
        })
        .unwrap();
}

/// SECURITY.md, response hooks and recordings: headers and body cleaned "each made on first
/// use …, once" and shared with the recorders, with "the client's secrets of other calls too
/// (the last 64 token secrets …)". The threat model trusts the app's hooks, but a hook can
/// panic (the docs do not say what follows). A hook that panics on one call, before reading
/// anything or right after reading the body, while other hooks and a recorder are set: that
/// call's task ends in the panic; the client's next calls (another session, whose answer echoes
/// the first session's token secret and its own secrets) still show no secret to any hook or
/// recording, and nothing recorded of the panicked call shows one.
#[test]
fn a_panicking_hook_leaves_no_secret_in_any_later_channel() {
    let runtime = runtime();
    block_on_with_timeout(&runtime, async {
        for read_first in [false, true] {
            let stub = StubServer::start().await.unwrap();
            let consumer = format!("PanicConsumer{}Xv8", u8::from(read_first));
            let (first, later) = (
                format!("PanicFirstToken{}Nb4", u8::from(read_first)),
                format!("PanicLaterToken{}Jc6", u8::from(read_first)),
            );
            let planted = [
                (consumer.clone(), Spelling::Base64),
                (first.clone(), Spelling::Percent),
                (later.clone(), Spelling::Hex),
            ];
            stub.fallback(
                GetInvoice::PATH,
                echoing_headers(Reply::json(200, invoice_echoing(&planted)), &planted),
            );
            let recording = Recording::new();
            let shown = Shown::default();
            let calls = Arc::new(AtomicUsize::new(0));
            let (panicking, seen, after) = (calls.clone(), shown.clone(), shown.clone());
            let client = builder(&stub, &consumer)
                .on_response(move |response| {
                    read_all(0, response, &[Read::IsRedacted], &seen);
                })
                .on_response(move |response| {
                    if panicking.fetch_add(1, Ordering::SeqCst) == 0 {
                        if read_first {
                            let _ = response.body();
                        }
                        panic!("the app's hook fails");
                    }
                })
                .on_response(move |response| {
                    read_all(
                        2,
                        response,
                        &[Read::Headers, Read::Body, Read::Debug],
                        &after,
                    );
                })
                .record(recording.recorder.clone())
                .build()
                .unwrap();
            let (c, token) = (client.clone(), first.clone());
            let panicked = tokio::spawn(async move {
                session(&c, &token)
                    .get_invoice(9003)
                    .send()
                    .await
                    .map(|_| ())
            })
            .await;
            assert!(
                panicked
                    .as_ref()
                    .is_err_and(tokio::task::JoinError::is_panic),
                "the hook's panic ends the call's task: {panicked:?}"
            );
            for _ in 0..2 {
                let result = session(&client, &later).get_invoice(9003).send().await;
                assert!(result.is_ok(), "a later call works: {result:?}");
            }
            let mut texts = recording.texts();
            assert!(recording.count() >= 2, "the later calls are recorded");
            texts.extend(shown.take());
            assert!(
                texts
                    .iter()
                    .any(|(channel, _)| channel.starts_with("hook 2"))
            );
            assert_no_leak(
                &texts,
                &[
                    ("consumer secret", consumer.clone()),
                    ("first session's token secret", first.clone()),
                    ("later session's token secret", later.clone()),
                ],
            );
        }
    });
}

/// SECURITY.md, response metadata: "as hooks … `ResponseMeta::cleaned` names every field: the
/// same `Scrubber::headers` … Made only for `send_with_metadata`"; `ResponseMeta::headers`:
/// "cleaned of secrets as response hooks see them". Now that a hook's headers are cleaned only
/// when it reads them, the metadata must be cleaned whatever the hooks read: no hook, a hook
/// that reads nothing, the body only, the headers only. Generated headers echoing the secrets
/// in every spelling, under plain names, credential names and secret-named ones. The
/// metadata's headers and `Debug` hold no secret, and a hook that read the headers saw the
/// same headers as the metadata.
#[test]
fn metadata_headers_are_cleaned_whatever_the_hooks_read() {
    let runtime = runtime();
    let strategy = (
        secret_strategy(),
        secret_strategy(),
        spelling_strategy(),
        proptest::sample::select(BESIDE.to_vec()),
    );
    runner(40)
        .run(&strategy, |(consumer, token, spelling, hook)| {
            block_on_with_timeout(&runtime, async {
                let stub = StubServer::start().await.unwrap();
                let (c, t) = (spell(&consumer, spelling), spell(&token, spelling));
                let reply = Reply::json(200, invoice_fixture())
                    .header("X-Plain", &format!("a {c} b"))
                    .header("X-Api-Key", &t)
                    .header("X-Client-Secret", "value-by-structure")
                    .header("WWW-Authenticate", &format!("OAuth realm=\"{t}\""))
                    .header("Set-Cookie", &format!("s={c}"))
                    .header("Link", &format!("</p?k={t}>; rel=next"));
                stub.fallback(GetInvoice::PATH, reply);
                let shown = Shown::default();
                let hook_headers: Arc<Mutex<Vec<String>>> = Arc::default();
                let kept = hook_headers.clone();
                let mut builder = beside(builder(&stub, &consumer), hook, &shown);
                if hook == Beside::HeadersOnly {
                    builder = builder.on_response(move |response| {
                        kept.lock().unwrap().push(headers_text(response.headers()));
                    });
                }
                let client = builder.build().unwrap();
                let response = session(&client, &token)
                    .get_invoice(9003)
                    .send_with_metadata()
                    .await
                    .expect("the invoice decodes");
                let meta = &response.meta;
                let mut texts = shown.take();
                texts.push(("ResponseMeta headers".into(), headers_text(meta.headers())));
                texts.push(("ResponseMeta Debug".into(), format!("{meta:?}")));
                texts.push(("ResponseMeta Debug alt".into(), format!("{meta:#?}")));
                texts.push((
                    "Response Debug".into(),
                    format!("{:?}", response.meta.clone()),
                ));
                assert_no_leak(
                    &texts,
                    &[
                        ("consumer secret", consumer.clone()),
                        ("token secret", token.clone()),
                    ],
                );
                let meta_secret_named = meta
                    .headers()
                    .get("x-client-secret")
                    .map(|value| value.as_bytes().to_vec());
                assert_ne!(
                    meta_secret_named.as_deref(),
                    Some(&b"value-by-structure"[..]),
                    "a secret-named header keeps its value in the metadata"
                );
                if let Some(seen) = hook_headers.lock().unwrap().first() {
                    assert_eq!(
                        seen,
                        &headers_text(meta.headers()),
                        "hook and metadata differ"
                    );
                }
            });
            Ok(())
        })
        .unwrap();
}

/// A text that is slow to clean for its size (escapes three layers deep, secret-named pairs
/// and HTML references), `size` bytes long, valid inside a JSON string.
fn costly(size: usize) -> String {
    let unit = "secret=%25252F\\u0025&amp; ";
    let mut text = unit.repeat(size / unit.len() + 1);
    text.truncate(size);
    // No escape cut short at the end: blank it, keeping the length.
    let tail = text.len().saturating_sub(6);
    if let Some(at) = text[tail..].rfind('\\').map(|at| tail + at) {
        let cut = text.len() - at;
        text.truncate(at);
        text.push_str(&" ".repeat(cut));
    }
    text
}

/// A data answer of exactly `size` bytes whose extra field is costly to clean.
fn costly_invoice(size: usize) -> String {
    let head = invoice_with("\"note\":\"");
    let head = &head[..head.len() - 1];
    let room = size - head.len() - 2;
    let body = format!("{head}{}\"}}", costly(room));
    assert_eq!(body.len(), size);
    body
}

/// How long a call of `send` or `send_with_metadata` to `reply` takes, with `hook` set.
async fn timed_call(
    reply: Reply,
    deadline: Duration,
    hook: Option<fn(&ReceivedResponse<'_>)>,
    metadata: bool,
) -> (Duration, String) {
    let stub = StubServer::start().await.unwrap();
    stub.fallback(GetInvoice::PATH, reply);
    let mut builder = builder(&stub, "consumer-secret-red-team-3").deadline(deadline);
    if let Some(hook) = hook {
        builder = builder.on_response(hook);
    }
    let client = builder.build().unwrap();
    let request = session(&client, "token-secret-red-team-3").get_invoice(9003);
    let start = Instant::now();
    let outcome = if metadata {
        request.send_with_metadata().await.map(|_| ())
    } else {
        request.send().await.map(|_| ())
    };
    let took = start.elapsed();
    let outcome = match outcome {
        Ok(()) => "with the data".to_owned(),
        Err(error) => error.to_string().chars().take(120).collect(),
    };
    (took, outcome)
}

/// SECURITY.md, the row "an answer's timing … and its cost": "every call ends within its
/// deadline, the CPU work on what it read included"; response hooks: the body is cleaned "on
/// first use …; a body over 64 KiB is cleaned before the hooks, under the deadline". A data
/// answer of 64 KiB − 536 and 64 KiB exactly (the most that is cleaned when a hook reads it,
/// outside the deadline; and 64 KiB + 1, cleaned under the deadline) whose extra field is what costs the scrubber most per byte, read by
/// a hook, with a deadline of 50 ms: the call still ends by twice its deadline. (The same call
/// without a hook ends in a few milliseconds: checked first.)
#[test]
fn a_hook_reading_a_costly_body_of_64_kib_ends_the_call_by_its_deadline() {
    let runtime = runtime();
    block_on_with_timeout(&runtime, async {
        let deadline = Duration::from_millis(50);
        let mut late = Vec::new();
        for size in [65_000usize, 65_536, 65_537] {
            let reply = Reply::json(200, costly_invoice(size));
            let (control, outcome) = timed_call(reply.clone(), deadline, None, false).await;
            assert!(
                control < deadline,
                "without a hook: {control:?} ({outcome})"
            );
            assert_eq!(outcome, "with the data", "the invoice decodes");
            let read_body: fn(&ReceivedResponse<'_>) = |response| {
                assert!(response.body().is_some());
            };
            let (took, outcome) = timed_call(reply, deadline, Some(read_body), false).await;
            if took > deadline * 2 {
                late.push(format!(
                    "a {size}-byte body read by a hook: the call ended after {took:?} ({outcome}); \
                     without the hook after {control:?}"
                ));
            }
        }
        assert!(
            late.is_empty(),
            "deadline {deadline:?}, calls ended late:\n{}",
            late.join("\n")
        );
    });
}

/// The answer of `a_hook_reading_costly_headers…`: 90 header values of 4 KiB of costly text.
fn costly_headers() -> Reply {
    let mut reply = Reply::json(200, invoice_fixture());
    for n in 0..90 {
        reply = reply.header(&format!("X-Costly-{n}"), &costly(4_000));
    }
    reply
}

/// As above, for the headers: `ReceivedResponse::headers` is "Cleaned when first asked for",
/// and no bound like the body's 64 KiB is stated for them. An answer with as many headers of
/// costly text as the HTTP client takes (90 values of 4 KiB), read by a hook that reads only
/// the headers, with a deadline of 300 ms: the call ends by twice its deadline. (The same call
/// without a hook ends in milliseconds: checked first.)
#[test]
fn a_hook_reading_costly_headers_ends_the_call_by_its_deadline() {
    let runtime = runtime();
    block_on_with_timeout(&runtime, async {
        let deadline = Duration::from_millis(300);
        let (control, outcome) = timed_call(costly_headers(), deadline, None, false).await;
        assert!(
            control < deadline,
            "without a hook: {control:?} ({outcome})"
        );
        let read_headers: fn(&ReceivedResponse<'_>) = |response| {
            assert!(!response.headers().is_empty());
        };
        let (took, outcome) =
            timed_call(costly_headers(), deadline, Some(read_headers), false).await;
        assert!(
            took <= deadline * 2,
            "deadline {deadline:?}: with a hook reading the headers the call ended after \
             {took:?} ({outcome}); without it after {control:?}"
        );
    });
}

/// As above, for the metadata: `ResponseMeta::headers` are cleaned "as response hooks see
/// them", for `send_with_metadata` only. The same answer of 90 costly headers, no hook, a
/// deadline of 300 ms: `send_with_metadata` ends by twice its deadline, as `send` does.
#[test]
fn metadata_of_costly_headers_ends_the_call_by_its_deadline() {
    let runtime = runtime();
    block_on_with_timeout(&runtime, async {
        let deadline = Duration::from_millis(300);
        let (control, outcome) = timed_call(costly_headers(), deadline, None, false).await;
        assert!(control < deadline, "send: {control:?} ({outcome})");
        let (took, outcome) = timed_call(costly_headers(), deadline, None, true).await;
        assert!(
            took <= deadline * 2,
            "deadline {deadline:?}: send_with_metadata ended after {took:?} ({outcome}); send \
             after {control:?}"
        );
    });
}

/// A raw HTTP/1.1 server on 127.0.0.1: answers every request with `answer` and closes.
struct RawServer {
    base: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for RawServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn raw_server(answer: Vec<u8>) -> RawServer {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let answer = Arc::new(answer);
    let task = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buffer = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buffer[..n]),
                    }
                }
                let _ = socket.write_all(&answer).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    RawServer { base, task }
}

/// An HTTP/1.1 answer with `headers` (repeats kept, in order) and `body`.
fn raw_answer(status_line: &str, headers: &[(String, String)], body: &[u8]) -> Vec<u8> {
    let mut answer = format!("HTTP/1.1 {status_line}\r\n").into_bytes();
    for (name, value) in headers {
        answer.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    answer.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    answer.extend_from_slice(body);
    answer
}

/// SECURITY.md, response hooks: "no secret in any answer's body or header (name or value …)";
/// `headers()` is `Scrubber::headers`, "made on first use"; response metadata: "the same
/// `Scrubber::headers`"; recordings keep only `KEPT_HEADERS`, "every text through the
/// scrubber". A header may come several times: an answer whose repeated headers (`X-Echo`,
/// `Set-Cookie`, `Link`, and the kept `Content-Type`, `Retry-After`, `Date`) carry a harmless
/// first value and the consumer or token secret in a later one, in every spelling, read by
/// hooks in different orders, by `send_with_metadata` and by the recorder: no value of any
/// repeat shows a secret.
#[test]
fn a_secret_in_a_later_value_of_a_repeated_header_reaches_no_hook_metadata_or_recording() {
    let runtime = runtime();
    let mut failures = Vec::new();
    for (round, spelling) in SPELLINGS.into_iter().enumerate() {
        for metadata in [false, true] {
            let (consumer, token) = (
                format!("RepeatConsumer{round}{metadata}Vb"),
                format!("RepeatToken{round}{metadata}Gd"),
            );
            let found = block_on_with_timeout(&runtime, async {
                let (c, t) = (spell(&consumer, spelling), spell(&token, spelling));
                let pairs = |name: &str, harmless: &str, hostile: String| {
                    [
                        (name.to_owned(), harmless.to_owned()),
                        (name.to_owned(), hostile),
                    ]
                };
                let mut headers = Vec::new();
                headers.extend(pairs(
                    "Content-Type",
                    "application/json",
                    format!("text/plain; x={c}"),
                ));
                headers.extend(pairs("X-Echo", "harmless", format!("seen {t}")));
                headers.extend(pairs("Set-Cookie", "a=1", format!("sid={c}; Path=/")));
                headers.extend(pairs("Link", "</a>; rel=a", format!("</b?t={t}>; rel=b")));
                headers.extend(pairs("Retry-After", "1", t.clone()));
                headers.extend(pairs(
                    "Date",
                    "Mon, 19 Jan 2026 08:00:00 GMT",
                    format!("Mon, 19 Jan 2026 {c}"),
                ));
                let server =
                    raw_server(raw_answer("200 OK", &headers, invoice_fixture().as_bytes())).await;
                let recording = Recording::new();
                let shown = Shown::default();
                let (one, two) = (shown.clone(), shown.clone());
                let client = Client::builder(
                    server.base.clone(),
                    ConsumerCredentials::new("red-team-three-key", consumer.clone()),
                )
                .retry(RetryPolicy::none())
                .on_response(move |response| {
                    read_all(0, response, &[Read::Debug], &one);
                })
                .on_response(move |response| {
                    read_all(
                        1,
                        response,
                        &[Read::Headers, Read::DebugAlternate, Read::FromResponse],
                        &two,
                    );
                })
                .record(recording.recorder.clone())
                .build()
                .unwrap();
                let request = session(&client, &token).get_invoice(9003);
                let mut texts = Vec::new();
                if metadata {
                    match request.send_with_metadata().await {
                        Ok(response) => {
                            let meta = &response.meta;
                            texts.push((
                                "ResponseMeta headers".to_owned(),
                                headers_text(meta.headers()),
                            ));
                            texts.push((
                                "ResponseMeta Debug".to_owned(),
                                format!("{meta:?} {meta:#?}"),
                            ));
                        }
                        Err(error) => texts.extend(error_texts("send_with_metadata", &error)),
                    }
                } else if let Err(error) = request.send().await {
                    texts.extend(error_texts("send", &error));
                }
                texts.extend(recording.texts());
                texts.extend(shown.take());
                assert!(texts.iter().any(|(channel, _)| channel.contains("headers")));
                leaks(
                    &texts,
                    &[
                        ("consumer secret", consumer.clone()),
                        ("token secret", token.clone()),
                    ],
                )
            });
            failures.extend(
                found
                    .into_iter()
                    .map(|leak| format!("[{spelling:?}, metadata {metadata}] {leak}")),
            );
        }
    }
    assert!(failures.is_empty(), "{}", summary(&failures));
}

/// SECURITY.md: "A body a reader would decode before reading (a `Content-Encoding`, a charset
/// other than UTF-8, a UTF-16 or UTF-32 byte order mark, a NUL byte) is withheld whole"; hooks:
/// the body made "on first use", shared "once, for every hook and the recorders". Such bodies,
/// each holding the consumer and token secrets as that reader would see them, read by hooks in
/// every order (`body_is_redacted()` first, `Debug` first, `Exchange::from_response` first) and
/// recorded: every reading says the body was withheld, and no hook, exchange or recorded line
/// shows a secret once NUL bytes are dropped (how a UTF-16 or UTF-32 reader's ASCII looks).
#[test]
fn a_body_withheld_whole_is_withheld_in_every_read_order_and_in_the_recording() {
    let runtime = runtime();
    let mut failures = Vec::new();
    let orders: [&[Read]; 3] = [
        &[Read::IsRedacted, Read::Body, Read::Debug],
        &[Read::Debug, Read::IsRedacted, Read::Body],
        &[Read::FromResponse, Read::Body, Read::IsRedacted],
    ];
    for (kind, order) in (0..5).flat_map(|kind| orders.iter().map(move |order| (kind, *order))) {
        let (consumer, token) = (
            format!(
                "WithheldConsumer{kind}{}Tz",
                order.len() + order[0] as usize
            ),
            format!("WithheldToken{kind}{}Yr", order[0] as usize),
        );
        let text = format!(r#"{{"echo":"{consumer} {token}"}}"#);
        let (content_type, extra, body): (&str, Vec<(String, String)>, Vec<u8>) = match kind {
            0 => (
                "application/json; charset=iso-8859-1",
                vec![],
                text.clone().into_bytes(),
            ),
            1 => {
                let mut body = vec![0xFF, 0xFE];
                body.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
                ("application/json", vec![], body)
            }
            2 => {
                let mut body = vec![0xFF, 0xFE, 0, 0];
                body.extend(text.chars().flat_map(|c| (c as u32).to_le_bytes()));
                ("application/json", vec![], body)
            }
            3 => ("application/json", vec![], format!("{text}\0").into_bytes()),
            _ => (
                "application/json",
                vec![(
                    "Content-Encoding".to_owned(),
                    "identity, x-custom".to_owned(),
                )],
                text.clone().into_bytes(),
            ),
        };
        let found = block_on_with_timeout(&runtime, async {
            let mut headers = vec![("Content-Type".to_owned(), content_type.to_owned())];
            headers.extend(extra);
            let server = raw_server(raw_answer("200 OK", &headers, &body)).await;
            let recording = Recording::new();
            let shown = Shown::default();
            let sights = Sights::default();
            let (seen, kept) = (shown.clone(), sights.clone());
            let client = Client::builder(
                server.base.clone(),
                ConsumerCredentials::new("red-team-three-key", consumer.clone()),
            )
            .retry(RetryPolicy::none())
            .on_response(move |response| {
                let sight = read_all(0, response, order, &seen);
                kept.0.lock().unwrap().push(sight);
            })
            .record(recording.recorder.clone())
            .build()
            .unwrap();
            let result = session(&client, &token).get_invoice(9003).send().await;
            let mut texts = recording.texts();
            texts.extend(shown.take());
            if let Err(error) = &result {
                texts.extend(error_texts("send", error));
            }
            let texts: Vec<(String, String)> = texts
                .into_iter()
                .map(|(channel, text)| (channel, text.replace(['\0', '\u{FFFD}'], "")))
                .collect();
            let mut found = leaks(
                &texts,
                &[
                    ("consumer secret", consumer.clone()),
                    ("token secret", token.clone()),
                ],
            );
            for sight in sights.0.lock().unwrap().iter() {
                if sight.redacted.iter().any(|&redacted| !redacted) {
                    found.push(format!(
                        "body_is_redacted() false for a withheld body: {sight:?}"
                    ));
                }
            }
            found
        });
        failures.extend(
            found
                .into_iter()
                .map(|leak| format!("[body kind {kind}, reads {order:?}] {leak}")),
        );
    }
    assert!(failures.is_empty(), "{}", summary(&failures));
}

/// SECURITY.md, output channels: the scrubber removes "the client's secrets of other calls too
/// (the last 64 token secrets and verifiers, and the last 64 credentials the app put in its
/// calls' headers and callbacks)"; recordings: "the client's recorder writes what hooks get: the
/// answer goes to the recorder's thread with the call's secrets … and is cleaned there by the
/// call's own scrubber". When no hook reads the body, the recorder cleans it alone: it must
/// know those remembered secrets too. Earlier calls of one client: an access-token exchange
/// (its verifier and request token's secret), a data call of another session (its token
/// secret) sending an `X-Api-Key`; then a data call whose answer echoes all four in the body
/// and the kept headers, in every spelling, beside no hook, a hook that reads nothing, only the
/// headers, or only the body.
#[test]
fn a_recorder_cleaning_alone_removes_the_secrets_of_the_clients_earlier_calls() {
    use marketplace_client::reqwest::header::{HeaderName, HeaderValue};
    let runtime = runtime();
    let mut failures = Vec::new();
    for (round, spelling) in SPELLINGS.into_iter().enumerate() {
        for hook in [
            Beside::NoHook,
            Beside::ReadsNothing,
            Beside::HeadersOnly,
            Beside::BodyOnly,
        ] {
            let tag = format!("{round}{}", hook as usize);
            let verifier = format!("EarlierVerifier{tag}Qm");
            let request_secret = format!("EarlierRequestSecret{tag}Wn");
            let earlier_token = format!("EarlierTokenSecret{tag}Ex");
            let api_key = format!("EarlierApiKey{tag}Rt77");
            let found = block_on_with_timeout(&runtime, async {
                let stub = StubServer::start().await.unwrap();
                stub.fallback(
                    "/oauth/getAccessToken",
                    Reply::text(
                        200,
                        "application/x-www-form-urlencoded",
                        "oauth_token=at-red3&oauth_token_secret=AccessSecretRed3Unused",
                    ),
                );
                let planted: Vec<(String, Spelling)> =
                    [&verifier, &request_secret, &earlier_token, &api_key]
                        .into_iter()
                        .map(|secret| (secret.clone(), spelling))
                        .collect();
                let echo: Vec<String> = planted.iter().map(|(s, sp)| spell(s, *sp)).collect();
                stub.enqueue(GetInvoice::PATH, Reply::json(200, invoice_fixture()));
                stub.fallback(
                    GetInvoice::PATH,
                    Reply::json(200, invoice_echoing(&planted))
                        .header(
                            "Content-Type",
                            &format!("application/json; x=\"{}\"", echo.join(" ")),
                        )
                        .header("Retry-After", &echo[0])
                        .header("Date", &format!("Mon, 19 Jan 2026 {}", echo[2])),
                );
                let recording = Recording::new();
                let shown = Shown::default();
                let client = beside(builder(&stub, "ConsumerSecretOfRed3Client"), hook, &shown)
                    .record(recording.recorder.clone())
                    .build()
                    .unwrap();
                let request = RequestToken {
                    token: "rt-red3".into(),
                    secret: Secret::new(request_secret.clone()),
                    callback_confirmed: true,
                };
                let given = marketplace_client::oauth::Verifier::new(&verifier).unwrap();
                client
                    .access_token(&request, &given)
                    .await
                    .expect("the exchange succeeds");
                let key = api_key.clone();
                session(&client, &earlier_token)
                    .get_invoice(9003)
                    .customize(move |options| {
                        options.header(
                            HeaderName::from_static("x-api-key"),
                            HeaderValue::from_str(&key).unwrap(),
                        )
                    })
                    .send()
                    .await
                    .expect("the earlier data call succeeds");
                let result = session(&client, "LaterTokenSecretRed3x")
                    .get_invoice(9003)
                    .send()
                    .await;
                let mut texts = recording.texts();
                assert_eq!(recording.count(), 3, "three exchanges recorded");
                texts.extend(shown.take());
                if let Err(error) = &result {
                    texts.extend(error_texts("the later call", error));
                }
                leaks(
                    &texts,
                    &[
                        ("earlier verifier", verifier.clone()),
                        ("earlier request token secret", request_secret.clone()),
                        ("earlier session's token secret", earlier_token.clone()),
                        ("earlier call's X-Api-Key", api_key.clone()),
                    ],
                )
            });
            failures.extend(
                found
                    .into_iter()
                    .map(|leak| format!("[{spelling:?}, {hook:?}] {leak}")),
            );
        }
    }
    assert!(failures.is_empty(), "{}", summary(&failures));
}
