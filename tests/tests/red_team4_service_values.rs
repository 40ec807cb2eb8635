//! Red team 4: "Values a service sets: bounded to what a sane service could mean" and the
//! deadline row of "Inputs: bounded before they are read" (SECURITY.md), attacked with hostile
//! loopback services: a raw TCP listener of this file's own (so a header can be repeated, which
//! the scripted stub's `Reply::header` cannot do) and generated values.
//!
//! Four cases failed when they were written, all one defect: a known secret that repeats a
//! short unit (`tttt…`, 4 KiB) made the scrubber's anchored threads quadratic in its length, and
//! the deadline was looked at per 4 KiB read, not per work done, so calls ran seconds past
//! it (and a valid token answer timed out). Fixed at the scrubber: a text in which no escape
//! starts is read by one unanchored pass per set of secrets (`SecretSet::find_plain`, linear),
//! and the deadline is looked at per work done, partial matches counted.
//!
//! Run: `cargo test -p marketplace-tests --test red_team4_service_values`

use marketplace_tests::runtime;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use jiff::{SignedDuration, Timestamp};
use marketplace_client::oauth::AccessToken;
use marketplace_client::{Client, ConsumerCredentials, Error, RetryPolicy, Session};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const DAY: i64 = 86_400;

// ---------------------------------------------------------------------------------------------
// A raw loopback service: one request per connection, answered with scripted pieces.
// ---------------------------------------------------------------------------------------------

/// What a raw answer is made of: bytes written as they are, or a pause.
#[derive(Clone, Debug)]
enum Piece {
    Bytes(Vec<u8>),
    Sleep(Duration),
}

/// One request as the raw service read it.
#[derive(Clone, Debug)]
struct Seen {
    head: String,
    at: Instant,
}

impl Seen {
    fn target(&self) -> &str {
        self.head.split(' ').nth(1).unwrap_or("")
    }

    fn query(&self, name: &str) -> Option<String> {
        let query = self.target().split_once('?')?.1;
        query.split('&').find_map(|pair| {
            let (n, v) = pair.split_once('=')?;
            (n == name).then(|| v.to_owned())
        })
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.head.split("\r\n").skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// A parameter of the OAuth `Authorization` header, as written (still percent-encoded).
    fn oauth(&self, name: &str) -> Option<String> {
        let auth = self.header("authorization")?;
        let key = format!("{name}=\"");
        let start = auth.find(&key)? + key.len();
        let end = auth[start..].find('"')? + start;
        Some(auth[start..end].to_owned())
    }

    fn timestamp(&self) -> Option<i64> {
        self.oauth("oauth_timestamp")?.parse().ok()
    }
}

type Handler = dyn Fn(usize, &Seen) -> Vec<Piece> + Send + Sync;

struct Raw {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Raw {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Raw {
    async fn start(handler: impl Fn(usize, &Seen) -> Vec<Piece> + Send + Sync + 'static) -> Raw {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let record = seen.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let record = record.clone();
                let handler = handler.clone();
                tokio::spawn(async move {
                    let mut buffer = Vec::new();
                    let mut chunk = [0u8; 4096];
                    let head_end = loop {
                        if let Some(at) = find(&buffer, b"\r\n\r\n") {
                            break at + 4;
                        }
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
                    let length = head
                        .split("\r\n")
                        .find_map(|l| {
                            let (n, v) = l.split_once(':')?;
                            n.trim()
                                .eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    while buffer.len() < head_end + length {
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let request = Seen {
                        head,
                        at: Instant::now(),
                    };
                    let index = {
                        let mut all = record.lock().unwrap();
                        all.push(request.clone());
                        all.len() - 1
                    };
                    for piece in handler(index, &request) {
                        match piece {
                            Piece::Bytes(bytes) => {
                                if socket.write_all(&bytes).await.is_err() {
                                    return;
                                }
                                let _ = socket.flush().await;
                            }
                            Piece::Sleep(pause) => tokio::time::sleep(pause).await,
                        }
                    }
                    let _ = socket.shutdown().await;
                });
            }
        });
        Raw { base, seen, task }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A whole HTTP/1.1 answer: the status, the headers in order (repeats kept), the body.
fn answer(status: u16, headers: &[(&str, String)], content_type: &str, body: &str) -> Vec<u8> {
    let mut text = format!("HTTP/1.1 {status} Status\r\nContent-Type: {content_type}\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

fn json(status: u16, headers: &[(&str, String)], body: &str) -> Vec<Piece> {
    vec![Piece::Bytes(answer(
        status,
        headers,
        "application/json",
        body,
    ))]
}

fn mismatch_body() -> String {
    r#"{"error":{"code":"E_API_AUTH_SIGNATURE_MISMATCH","message":"signature mismatch","type":"authentication"}}"#.to_owned()
}

fn fixture(name: &str) -> String {
    String::from_utf8(marketplace_tests::fixtures::read(name).unwrap()).unwrap()
}

/// A page of `pay/getTimesheetsForBid` with the page number, count and one item of its own.
fn timesheets_page(page: u64, total: u64) -> String {
    let mut value: serde_json::Value =
        serde_json::from_str(&fixture("pay/getTimesheetsForBid.json")).unwrap();
    let data = &mut value["data"];
    data["page"] = page.into();
    data["totalPages"] = total.into();
    data["numResults"] = 1.into();
    let mut item = data["timesheets"]["0"].clone();
    item["id"] = (880_000 + page).into();
    data["timesheets"] = serde_json::json!({ "0": item });
    value.to_string()
}

fn imf_fixdate(at: Timestamp) -> String {
    at.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn client(base: &str, deadline: Duration, retry: RetryPolicy) -> Client {
    Client::builder(
        base,
        ConsumerCredentials::new("consumer-key-r4", "consumer-secret-red-team-4"),
    )
    .allow_plain_http_oauth_on_loopback()
    .deadline(deadline)
    .timeout(deadline)
    .retry(retry)
    .build()
    .unwrap()
}

fn session(client: &Client, granted_at: Timestamp) -> Session {
    client.session(AccessToken::new(
        "access-token-r4",
        "access-secret-red-team-4",
        granted_at,
    ))
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy::default()
        .base_delay(Duration::from_millis(5))
        .max_delay(Duration::from_millis(20))
        .max_retry_after(Duration::from_millis(300))
        .max_attempts(3)
}

fn within_a_day_of_local(ts: i64) -> bool {
    let now = Timestamp::now().as_second();
    ts > 0 && (ts - now).abs() <= DAY + 120
}

// ---------------------------------------------------------------------------------------------
// Clock offset: repeated Date headers
// ---------------------------------------------------------------------------------------------

fn date_value(kind: u8, now: Timestamp) -> String {
    let at = |hours: i64| imf_fixdate(now.checked_add(SignedDuration::from_hours(hours)).unwrap());
    match kind {
        0 => at(2),
        1 => at(-3),
        2 => at(25),
        3 => at(-30),
        4 => "Fri, 31 Dec 9999 23:59:59 GMT".to_owned(),
        5 => "Mon, 01 Jan 0001 00:00:00 GMT".to_owned(),
        6 => "Thu, 01 Jan 1970 00:00:00 GMT".to_owned(),
        _ => "not a date".to_owned(),
    }
}

/// Attacks: "clock offset | `Date` of a refused signature … | within a day of the local clock
/// (`clock::MAX_OFFSET`) | not adopted, the clock unchanged" and "`oauth_timestamp` signed | …
/// within a day of the local clock".
///
/// A refusal carries two or three `Date` headers (HTTP allows one; a hostile service sends
/// several), in any order, one plausible (two or three hours off) beside implausible ones (a day
/// and more, year 9999, year 1, 1970, garbage), or all of them folded into one comma-joined
/// header. Whichever the client reads, every timestamp it signs (the retry and a later call)
/// stays within a day of the local clock, and the call either succeeds on the retry or fails
/// with `ImplausibleClock`/the refusal.
#[test]
fn repeated_date_headers_on_a_refusal_never_move_the_clock_past_a_day() {
    let rt = runtime();
    let strategy = (prop::collection::vec(0u8..8, 2..4), any::<bool>());
    runner(32)
        .run(&strategy, |(kinds, folded)| {
            rt.block_on(async {
                let now = Timestamp::now();
                let dates: Vec<String> = kinds.iter().map(|k| date_value(*k, now)).collect();
                let headers: Vec<(&str, String)> = if folded {
                    vec![("Date", dates.join(", "))]
                } else {
                    dates.iter().map(|d| ("Date", d.clone())).collect()
                };
                let ok = fixture("pay/getInvoice.json");
                let raw = Raw::start(move |index, _| {
                    if index == 0 {
                        json(401, &headers, &mismatch_body())
                    } else {
                        json(200, &[], &ok)
                    }
                })
                .await;
                let client = client(&raw.base, Duration::from_secs(5), RetryPolicy::none());
                let session = session(&client, Timestamp::now());
                let first = session.get_invoice(9003).send().await;
                if let Err(error) = &first {
                    prop_assert!(
                        matches!(error, Error::ImplausibleClock { .. } | Error::Api { .. }),
                        "unexpected error {error:?} for Dates {dates:?}"
                    );
                }
                let _ = session.get_invoice(9003).send().await;
                for seen in raw.seen() {
                    let ts = seen.timestamp();
                    prop_assert!(
                        ts.is_some_and(within_a_day_of_local),
                        "timestamp {ts:?} signed after refusals dated {dates:?} (folded: {folded})"
                    );
                }
                Ok(())
            })
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Retry wait: Retry-After where it is not a source, repeated, odd spellings
// ---------------------------------------------------------------------------------------------

/// Attacks: "retry wait | `Retry-After` of a 429 or 5xx (GET calls) | at most
/// `RetryPolicy::max_retry_after` …".
///
/// A signature refusal whose `Date` is two hours ahead (so the client retries once on the
/// corrected clock) also says `Retry-After: 20`. A 401 is not a source of a wait: the clock
/// retry goes out at once, not 20 s later (nor at `max_retry_after`, 30 s by default).
#[test]
fn a_retry_after_on_a_clock_refusal_is_not_a_wait() {
    let rt = runtime();
    rt.block_on(async {
        let ahead = imf_fixdate(
            Timestamp::now()
                .checked_add(SignedDuration::from_hours(2))
                .unwrap(),
        );
        let ok = fixture("pay/getInvoice.json");
        let raw = Raw::start(move |index, _| {
            if index == 0 {
                json(
                    401,
                    &[("Date", ahead.clone()), ("Retry-After", "20".to_owned())],
                    &mismatch_body(),
                )
            } else {
                json(200, &[], &ok)
            }
        })
        .await;
        let client = client(&raw.base, Duration::from_secs(25), RetryPolicy::default());
        let started = Instant::now();
        let result = session(&client, Timestamp::now())
            .get_invoice(9003)
            .send()
            .await;
        let elapsed = started.elapsed();
        let seen = raw.seen();
        assert!(result.is_ok(), "the clock retry failed: {result:?}");
        assert_eq!(seen.len(), 2, "one refusal, one retry");
        let gap = seen[1].at.duration_since(seen[0].at);
        assert!(
            gap < Duration::from_secs(3),
            "the clock retry waited {gap:?} for a 401's Retry-After"
        );
        assert!(
            elapsed < Duration::from_secs(4),
            "the call took {elapsed:?}"
        );
    });
}

fn retry_after_spelling(kind: u8) -> String {
    match kind {
        0 => "0".to_owned(),
        1 => "1".to_owned(),
        2 => "+1".to_owned(),
        3 => "01".to_owned(),
        4 => " 2 ".to_owned(),
        5 => "0000000000000000000000000000000000000002".to_owned(),
        6 => "99999999999999999999999999".to_owned(),
        7 => "1, 100".to_owned(),
        8 => "-1".to_owned(),
        9 => "1.5".to_owned(),
        10 => "Fri, 31 Dec 9999 23:59:59 GMT".to_owned(),
        11 => imf_fixdate(
            Timestamp::now()
                .checked_add(SignedDuration::from_secs(5))
                .unwrap(),
        ),
        12 => "Sunday, 06-Nov-94 08:49:37 GMT".to_owned(),
        _ => "3600".to_owned(),
    }
}

/// Attacks: "retry wait | … | at most `RetryPolicy::max_retry_after` … and the time left before
/// the deadline; attempts at most `max_attempts` …".
///
/// 429s and 503s carry one to three `Retry-After` headers (repeated, which HTTP does not
/// allow), in spellings with signs, leading zeros, spaces, lists, fractions, huge numbers and
/// dates. With `max_retry_after` 300 ms and backoff at most 20 ms, no gap between two attempts
/// exceeds the bound (plus scheduling slack), at most `max_attempts` requests go out, and the
/// call ends well within its deadline.
#[test]
fn repeated_and_oddly_spelled_retry_after_headers_never_wait_past_the_bound() {
    let rt = runtime();
    let strategy = (
        prop::collection::vec(0u8..14, 1..4),
        prop::sample::select(vec![429u16, 500, 503]),
    );
    runner(24)
        .run(&strategy, |(kinds, status)| {
            rt.block_on(async {
                let values: Vec<String> = kinds.iter().map(|k| retry_after_spelling(*k)).collect();
                let headers: Vec<(&str, String)> =
                    values.iter().map(|v| ("Retry-After", v.clone())).collect();
                let raw =
                    Raw::start(move |_, _| json(status, &headers, r#"{"error":"busy"}"#)).await;
                let client = client(&raw.base, Duration::from_secs(10), fast_retry());
                let started = Instant::now();
                let result = session(&client, Timestamp::now())
                    .get_invoice(9003)
                    .send()
                    .await;
                let elapsed = started.elapsed();
                prop_assert!(result.is_err());
                let seen = raw.seen();
                prop_assert!(
                    seen.len() <= 3,
                    "{} attempts for Retry-After {values:?}",
                    seen.len()
                );
                for pair in seen.windows(2) {
                    let gap = pair[1].at.duration_since(pair[0].at);
                    prop_assert!(
                        gap <= Duration::from_millis(900),
                        "waited {gap:?} between attempts for Retry-After {values:?} (bound 300 ms)"
                    );
                }
                prop_assert!(
                    elapsed < Duration::from_secs(3),
                    "call took {elapsed:?} for {values:?}"
                );
                Ok(())
            })
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Tokens and token secrets: duplicate keys, percent-encoding, multi-byte characters
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct TokenValue {
    decoded: String,
    encoded: String,
}

fn token_value() -> impl Strategy<Value = TokenValue> {
    (
        prop::sample::select(vec![0usize, 1, 8, 9, 2048, 2049, 4096, 4097, 4100]),
        0u8..3,
    )
        .prop_map(|(len, form)| match form {
            // plain ASCII, not periodic (a periodic value is the timing cases' subject)
            0 => {
                let decoded = varied(len);
                TokenValue {
                    encoded: decoded.clone(),
                    decoded,
                }
            }
            // every byte percent-encoded: three times the bytes on the wire
            1 => {
                let decoded = varied(len);
                let encoded: String = decoded.bytes().map(|b| format!("%{b:02X}")).collect();
                TokenValue { decoded, encoded }
            }
            // two-byte UTF-8 characters, percent-encoded: `len` characters, 2 × len bytes
            _ => {
                let decoded: String = varied(len)
                    .chars()
                    .map(|c| char::from_u32(0xC0 + (c as u32 % 0x3F)).unwrap_or('\u{e9}'))
                    .collect();
                let encoded: String = decoded.bytes().map(|b| format!("%{b:02X}")).collect();
                TokenValue { decoded, encoded }
            }
        })
}

/// `len` letters and digits without a short period (a linear congruential walk).
fn varied(len: usize) -> String {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ len as u64;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            b"abcdefghijklmnopqrstuvwxyz0123456789"[((x >> 33) % 36) as usize] as char
        })
        .collect()
}

fn acceptable(value: &TokenValue) -> bool {
    !value.decoded.is_empty() && value.decoded.len() <= 4096
}

/// Attacks: "tokens and token secrets | token endpoints' answers | non-empty, at most 4 KiB each
/// (`MAX_TOKEN_BYTES`) | `Error::Decode` naming the field; nothing kept".
///
/// The request-token answer writes `oauth_token` and `oauth_token_secret` once or twice each
/// (duplicate keys), each value plain, percent-encoded byte by byte, or as two-byte UTF-8
/// characters (so a value of 2,049 characters is 4,098 bytes: under 4 KiB in characters, over
/// it in bytes). Whatever value the client keeps is non-empty and at most 4,096 bytes, and is one
/// the answer held; with one value per key, the answer is accepted exactly when both values
/// are within the bound.
#[test]
fn token_answers_with_repeated_or_encoded_values_keep_only_values_within_4_kib() {
    let rt = runtime();
    let strategy = (
        prop::collection::vec(token_value(), 1..3),
        prop::collection::vec(token_value(), 1..3),
    );
    runner(40)
        .run(&strategy, |(tokens, secrets)| {
            rt.block_on(async {
                let mut pairs: Vec<String> = Vec::new();
                for t in &tokens {
                    pairs.push(format!("oauth_token={}", t.encoded));
                }
                for s in &secrets {
                    pairs.push(format!("oauth_token_secret={}", s.encoded));
                }
                pairs.push("oauth_callback_confirmed=true".to_owned());
                let body = pairs.join("&");
                let raw = Raw::start(move |_, _| {
                    vec![Piece::Bytes(answer(
                        200,
                        &[],
                        "application/x-www-form-urlencoded",
                        &body,
                    ))]
                })
                .await;
                let client = client(&raw.base, Duration::from_secs(5), RetryPolicy::none());
                let result = client.request_token(None).await;
                match &result {
                    Ok(request) => {
                        let token = &request.token;
                        let secret = request.secret.expose();
                        prop_assert!(
                            !token.is_empty() && token.len() <= 4096,
                            "token of {} bytes kept",
                            token.len()
                        );
                        prop_assert!(
                            !secret.is_empty() && secret.len() <= 4096,
                            "secret of {} bytes kept",
                            secret.len()
                        );
                        prop_assert!(
                            tokens.iter().any(|t| &t.decoded == token),
                            "a token the answer did not hold"
                        );
                        prop_assert!(
                            secrets.iter().any(|s| s.decoded == secret),
                            "a secret the answer did not hold"
                        );
                    }
                    Err(error) => prop_assert!(matches!(error, Error::Decode { .. }), "{error:?}"),
                }
                if tokens.len() == 1 && secrets.len() == 1 {
                    let expected = acceptable(&tokens[0]) && acceptable(&secrets[0]);
                    prop_assert_eq!(
                        result.is_ok(),
                        expected,
                        "token {} bytes, secret {} bytes: {:?}",
                        tokens[0].decoded.len(),
                        secrets[0].decoded.len(),
                        result.as_ref().err()
                    );
                }
                Ok(())
            })
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// A token answer within the bound, costly to clean: the deadline and the cost
// ---------------------------------------------------------------------------------------------

/// A value of `len` bytes repeating a short unit (`t`, `ab`, `abc`, …): a token secret a
/// hostile service chooses, within `MAX_TOKEN_BYTES`.
fn periodic(unit: &str, len: usize) -> String {
    unit.repeat(len / unit.len() + 1)[..len].to_owned()
}

fn token_answer_with_secret(secret: &str) -> String {
    format!(
        "oauth_token=request-token-r4&oauth_token_secret={secret}&oauth_callback_confirmed=true"
    )
}

/// Attacks: "an answer's timing (stalls, `Retry-After` storms) and its cost | every call ends
/// within its deadline, the CPU work on what it read included | … every other cleaning of the
/// call's texts … is bounded by the deadline in the scrubber itself (`Scrubber::until`: it looks
/// at the clock every 4 KiB it reads …)".
///
/// The request-token answer is 4 KiB: a token secret of 4,096 bytes (within the bound) that
/// repeats a short unit. The answer is cleaned of its own new secret before anything sees it;
/// that cleaning costs seconds for these 4 KiB, between two of the scrubber's looks at the
/// clock. With a deadline of 500 ms, the call must end by it (plus slack), whatever it was
/// doing. Observed: about 3.5 s in a debug build.
#[test]
fn a_token_answer_with_a_periodic_secret_ends_the_call_by_its_deadline() {
    let rt = runtime();
    let strategy = prop::sample::select(vec!["t", "ab", "abc"]);
    runner(3)
        .run(&strategy, |unit| {
            rt.block_on(async {
                let body = token_answer_with_secret(&periodic(unit, 4096));
                let raw = Raw::start(move |_, _| {
                    vec![Piece::Bytes(answer(200, &[], "application/x-www-form-urlencoded", &body))]
                })
                .await;
                let client = client(&raw.base, Duration::from_millis(500), RetryPolicy::none());
                let started = Instant::now();
                let result = client.request_token(None).await;
                let elapsed = started.elapsed();
                prop_assert!(
                    elapsed < Duration::from_millis(1500),
                    "deadline 500 ms, the call ended after {elapsed:?} ({:?}) for a 4 KiB answer whose secret repeats {unit:?}",
                    result.as_ref().map(|_| ()).map_err(|e| e.to_string())
                );
                Ok(())
            })
        })
        .unwrap();
}

/// Attacks: "tokens and token secrets | token endpoints' answers | non-empty, at most 4 KiB
/// each" with the threat model's "the client must not be made to … spend memory or time out of
/// proportion with what it read" and "every reader … linear".
///
/// A secret of 2,048 bytes repeating one letter is within the bound, so the answer (2 KiB) is
/// accepted; reading it must cost about what reading any 2 KiB answer costs (a random secret
/// of 4 KiB takes tens of milliseconds in a debug build). With a 3 s deadline the call must
/// succeed, in under 1.5 s. Observed: 4.5 s without a deadline (1 KiB: 1.2 s; 4 KiB: 20 s, so
/// quadratic in the secret's length), so here a `Timeout` for a valid answer.
#[test]
fn a_token_answer_within_the_bound_is_read_in_time_proportionate_to_its_size() {
    let rt = runtime();
    rt.block_on(async {
        let secret = periodic("t", 2048);
        let body = token_answer_with_secret(&secret);
        let raw = Raw::start(move |_, _| {
            vec![Piece::Bytes(answer(
                200,
                &[],
                "application/x-www-form-urlencoded",
                &body,
            ))]
        })
        .await;
        let client = client(&raw.base, Duration::from_secs(3), RetryPolicy::none());
        let started = Instant::now();
        let result = client.request_token(None).await;
        let elapsed = started.elapsed();
        assert!(
            result.as_ref().is_ok_and(|r| r.secret.expose() == secret),
            "a 2 KiB token answer within the bound was not accepted: {:?}",
            result.as_ref().map(|_| ()).map_err(|e| e.to_string())
        );
        assert!(
            elapsed < Duration::from_millis(1500),
            "a 2 KiB token answer took {elapsed:?} to read"
        );
    });
}

/// Attacks: "verifiers | a callback URL (the user's browser: anyone can send anything) … |
/// non-empty, at most 4 KiB" with "every call ends within its deadline, the CPU work on what it
/// read included".
///
/// Whoever sends the callback chooses the verifier: 4,096 bytes of one letter, within the
/// bound, taken by `verifier_from_callback`. The access-token call then cleans its (ordinary)
/// answer of that verifier: with a 500 ms deadline it must end by it (plus slack), and the
/// answer, valid, should be accepted.
#[test]
fn an_access_token_call_with_a_periodic_verifier_from_a_callback_ends_by_its_deadline() {
    let rt = runtime();
    rt.block_on(async {
        let body = "oauth_token=access-token-r4&oauth_token_secret=Zq8vN3kP0wR5tY2uB7xC".to_owned();
        let raw = Raw::start(move |_, _| {
            vec![Piece::Bytes(answer(
                200,
                &[],
                "application/x-www-form-urlencoded",
                &body,
            ))]
        })
        .await;
        let client = client(&raw.base, Duration::from_millis(500), RetryPolicy::none());
        let request = marketplace_client::oauth::RequestToken {
            token: "request-token-r4".to_owned(),
            secret: marketplace_client::Secret::new("Rz7mK2pQ9sW4xV1nB6cD"),
            callback_confirmed: true,
        };
        let verifier_text = periodic("v", 4096);
        let callback =
            format!("myapp://cb?oauth_token=request-token-r4&oauth_verifier={verifier_text}");
        let verifier = client
            .verifier_from_callback(&request, &callback)
            .expect("a 4 KiB verifier is within the bound");
        let started = Instant::now();
        let result = client.access_token(&request, &verifier).await;
        let elapsed = started.elapsed();
        assert!(
            elapsed < Duration::from_millis(1500),
            "deadline 500 ms, the access-token call ended after {elapsed:?}: {:?}",
            result.as_ref().map(|_| ()).map_err(|e| e.to_string())
        );
    });
}

// ---------------------------------------------------------------------------------------------
// Access token expiry on the corrected clock
// ---------------------------------------------------------------------------------------------

/// Attacks: "access token expiry | judged on the corrected clock; the lifetime is the spec's
/// (six hours), never the service's | moved by at most the clock bound (a day)".
///
/// A token granted 5 h 30 min ago (local clock). A signature refusal dated two hours ahead
/// corrects the clock (within a day); on the corrected clock the token is 7 h 30 min old. The
/// next call must fail with `TokenExpired` without a request, and the expiry the session shows
/// stays the grant plus six hours (the service set none). Then a refusal more than a day off is
/// not adopted and moves nothing.
#[test]
fn a_clock_corrected_forward_expires_a_token_on_the_corrected_clock_without_a_request() {
    let rt = runtime();
    rt.block_on(async {
        let ahead = imf_fixdate(Timestamp::now().checked_add(SignedDuration::from_hours(2)).unwrap());
        let ok = fixture("pay/getInvoice.json");
        let raw = Raw::start(move |index, _| {
            if index == 0 {
                json(401, &[("Date", ahead.clone())], &mismatch_body())
            } else {
                json(200, &[], &ok)
            }
        })
        .await;
        let client = client(&raw.base, Duration::from_secs(5), RetryPolicy::none());
        let granted = Timestamp::now().checked_sub(SignedDuration::from_mins(330)).unwrap();
        let session = session(&client, granted);
        let expected_expiry = granted.checked_add(SignedDuration::from_hours(6)).unwrap();
        assert_eq!(session.expires_at(), expected_expiry);
        let first = session.get_invoice(9003).send().await;
        let after_first = raw.seen().len();
        let second = session.get_invoice(9003).send().await;
        assert!(
            matches!(second, Err(Error::TokenExpired { .. })),
            "after a +2 h correction a token 5.5 h old is 7.5 h old: second call gave {:?} (first: {:?})",
            second.as_ref().map(|_| ()).map_err(|e| e.to_string()),
            first.as_ref().map(|_| ()).map_err(|e| e.to_string())
        );
        assert_eq!(raw.seen().len(), after_first, "an expired token's call reached the service");
        assert_eq!(session.expires_at(), expected_expiry, "the expiry moved");
        for seen in raw.seen() {
            assert!(seen.timestamp().is_some_and(within_a_day_of_local));
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Deadlines around the clock retry and on paged streams
// ---------------------------------------------------------------------------------------------

/// Attacks: "every call ends within its deadline … one deadline over every attempt and wait
/// (`Transport::send`) … the deadline is made once as the call starts".
///
/// The signature refusal (its `Date` two hours ahead) arrives after 70 % of the deadline; the
/// clock retry's answer then stalls forever. The retry gets only what is left: the call ends
/// with `Timeout` by the one deadline (plus slack), not a fresh deadline for the retry.
#[test]
fn a_clock_retry_gets_only_what_is_left_of_the_one_deadline() {
    let rt = runtime();
    rt.block_on(async {
        let ahead = imf_fixdate(
            Timestamp::now()
                .checked_add(SignedDuration::from_hours(2))
                .unwrap(),
        );
        let raw = Raw::start(move |index, _| {
            if index == 0 {
                let mut pieces = vec![Piece::Sleep(Duration::from_millis(700))];
                pieces.extend(json(401, &[("Date", ahead.clone())], &mismatch_body()));
                pieces
            } else {
                vec![Piece::Sleep(Duration::from_secs(30))]
            }
        })
        .await;
        let client = client(&raw.base, Duration::from_secs(1), RetryPolicy::none());
        let started = Instant::now();
        let result = session(&client, Timestamp::now())
            .get_invoice(9003)
            .send()
            .await;
        let elapsed = started.elapsed();
        assert!(matches!(result, Err(Error::Timeout { .. })), "{result:?}");
        assert_eq!(raw.seen().len(), 2, "the clock retry went out");
        assert!(
            elapsed < Duration::from_millis(1600),
            "the call took {elapsed:?} with a 1 s deadline"
        );
    });
}

fn page_of(seen: &Seen) -> u64 {
    seen.query("page").and_then(|p| p.parse().ok()).unwrap_or(1)
}

/// Attacks (what the manual promises for streams, the row's "every call ends within its
/// deadline"): "A paged stream's deadline is per page (each page is a call) … each within the
/// deadline".
///
/// Four pages, each answered after 300 ms, deadline 600 ms, one page at a time: every page fits
/// its own deadline, so the stream yields all four though the whole takes twice the deadline.
/// Then page 3 of another stream stalls: pages 1 and 2 arrive, then `Timeout` for page 3 by its
/// deadline (plus slack) after page 2.
#[test]
fn a_paged_streams_deadline_is_per_page_and_a_stalled_page_ends_it_by_that_pages_deadline() {
    let rt = runtime();
    rt.block_on(async {
        let raw = Raw::start(|_, seen| {
            let page = page_of(seen);
            let mut pieces = vec![Piece::Sleep(Duration::from_millis(300))];
            pieces.extend(json(200, &[], &timesheets_page(page, 4)));
            pieces
        })
        .await;
        let client = Client::builder(
            &raw.base,
            ConsumerCredentials::new("consumer-key-r4", "consumer-secret-red-team-4"),
        )
        .deadline(Duration::from_millis(600))
        .timeout(Duration::from_millis(600))
        .page_concurrency(1)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
        let started = Instant::now();
        let pages = session(&client, Timestamp::now())
            .get_timesheets_for_bid(310001)
            .pages()
            .collect_all()
            .await;
        let elapsed = started.elapsed();
        assert_eq!(
            pages.as_ref().map(Vec::len).map_err(|e| e.to_string()),
            Ok(4),
            "each page within its deadline (took {elapsed:?})"
        );

        let stalled = Raw::start(|_, seen| {
            let page = page_of(seen);
            if page == 3 {
                vec![Piece::Sleep(Duration::from_secs(30))]
            } else {
                json(200, &[], &timesheets_page(page, 4))
            }
        })
        .await;
        let client = Client::builder(
            &stalled.base,
            ConsumerCredentials::new("consumer-key-r4", "consumer-secret-red-team-4"),
        )
        .deadline(Duration::from_millis(600))
        .timeout(Duration::from_millis(600))
        .page_concurrency(1)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
        let mut stream = session(&client, Timestamp::now())
            .get_timesheets_for_bid(310001)
            .pages();
        let mut last_ok = Instant::now();
        let mut got = 0;
        let outcome = loop {
            match tokio::time::timeout(Duration::from_secs(5), stream.next()).await {
                Err(_) => break "the stream hung past 5 s".to_owned(),
                Ok(None) => break "the stream ended without an error".to_owned(),
                Ok(Some(Ok(_))) => {
                    got += 1;
                    last_ok = Instant::now();
                }
                Ok(Some(Err(Error::Timeout { .. }))) => {
                    break format!("timeout after {:?}", last_ok.elapsed());
                }
                Ok(Some(Err(other))) => break format!("error {other}"),
            }
        };
        assert_eq!(got, 2, "pages before the stalled one: {outcome}");
        assert!(outcome.starts_with("timeout after"), "{outcome}");
        assert!(last_ok.elapsed() < Duration::from_millis(1300), "{outcome}");
    });
}

/// Attacks: "every call ends within its deadline, the CPU work on what it read included" (and
/// "remembered secrets | token secrets the service gave … each at most 4 KiB").
///
/// The service gave a token secret of 4,096 bytes repeating one letter (within the bound) and
/// now echoes it in a small error body of a later data call. Cleaning that body of the known secret
/// is the call's CPU work on what it read: with a 500 ms deadline the call must end by it (plus
/// slack).
#[test]
fn a_data_error_echoing_a_periodic_token_secret_ends_the_call_by_its_deadline() {
    if let Err(failure) = echo_case(true) {
        panic!("{failure}");
    }
}

/// Attacks: "every call ends within its deadline, the CPU work on what it read included" and
/// "verifiers | a callback URL (the user's browser: anyone can send anything) … | at most 4 KiB".
///
/// Whoever sends the callback chose a verifier of 4,096 bytes of one letter (within the bound);
/// the service, which received it, echoes it in the access-token answer (a few KiB). With a
/// 500 ms deadline the call must end by it (plus slack).
#[test]
fn an_access_token_answer_echoing_a_periodic_verifier_ends_the_call_by_its_deadline() {
    if let Err(failure) = echo_case(false) {
        panic!("{failure}");
    }
}

fn echo_case(data_call: bool) -> Result<(), String> {
    let rt = runtime();
    rt.block_on(async {
        let echoed = periodic("s", 4096);
        let body = if data_call {
            format!(r#"{{"error":{{"code":"E_BAD","message":"{echoed}"}}}}"#)
        } else {
            format!(
                "oauth_token=access-token-r4&oauth_token_secret=Zq8vN3kP0wR5tY2uB7xC&note={echoed}"
            )
        };
        let raw = Raw::start(move |_, _| {
            if data_call {
                json(400, &[], &body)
            } else {
                vec![Piece::Bytes(answer(
                    200,
                    &[],
                    "application/x-www-form-urlencoded",
                    &body,
                ))]
            }
        })
        .await;
        let client = client(&raw.base, Duration::from_millis(500), RetryPolicy::none());
        let started = Instant::now();
        let result = if data_call {
            let session = client.session(AccessToken::new(
                "access-token-r4",
                echoed.clone(),
                Timestamp::now(),
            ));
            session.get_invoice(9003).send().await.map(|_| ())
        } else {
            let request = marketplace_client::oauth::RequestToken {
                token: "request-token-r4".to_owned(),
                secret: marketplace_client::Secret::new("Rz7mK2pQ9sW4xV1nB6cD"),
                callback_confirmed: true,
            };
            let callback =
                format!("myapp://cb?oauth_token=request-token-r4&oauth_verifier={echoed}");
            let verifier = client.verifier_from_callback(&request, &callback).unwrap();
            client.access_token(&request, &verifier).await.map(|_| ())
        };
        let elapsed = started.elapsed();
        if elapsed < Duration::from_millis(1500) {
            Ok(())
        } else {
            Err(format!(
                "deadline 500 ms; the {} call ended after {elapsed:?}: {:?}",
                if data_call { "data" } else { "access-token" },
                result.map_err(|e| e.to_string().chars().take(160).collect::<String>())
            ))
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Remembered secrets: the newest 64 kept
// ---------------------------------------------------------------------------------------------

/// Attacks: "remembered secrets | token secrets the service gave … | the last 64 of each kind
/// (`REMEMBERED`) … the newest kept (`REMEMBERED_BYTES`) | the oldest forgotten".
///
/// Seventy request-token answers give seventy distinct secrets (40 bytes each, far under the
/// byte budget). A later data call of another session is refused with a body echoing the
/// newest 64 of them: every one of those is still a known secret of the client, so none
/// appears in the error's `Display` or `Debug`. (The refused call's session signs with the
/// newest of them, so it adds no secret of its own: a session signing with a 71st secret pushes
/// the oldest of the 64 out, as the rule says.)
#[test]
fn the_newest_64_token_secrets_the_service_gave_are_all_still_known() {
    let rt = runtime();
    rt.block_on(async {
        let secrets: Vec<String> = (0..70).map(|i| format!("{}{i:04}", varied(36 + i % 3))).collect();
        let given = Arc::new(secrets.clone());
        let newest: Vec<String> = secrets[secrets.len() - 64..].to_vec();
        let echo = format!(r#"{{"error":{{"code":"E_BAD","message":"{}"}}}}"#, newest.join(" "));
        let raw = Raw::start(move |index, seen| {
            if seen.head.starts_with("POST") {
                let body = format!(
                    "oauth_token=request-token-{index}&oauth_token_secret={}&oauth_callback_confirmed=true",
                    given[index]
                );
                vec![Piece::Bytes(answer(200, &[], "application/x-www-form-urlencoded", &body))]
            } else {
                json(400, &[], &echo)
            }
        })
        .await;
        let client = client(&raw.base, Duration::from_secs(20), RetryPolicy::none());
        for secret in &secrets {
            let request = client.request_token(None).await.expect("a plain request token");
            assert_eq!(request.secret.expose(), secret);
        }
        // The session signs with the newest secret the service gave: no 71st secret is used.
        let newest_secret = secrets.last().unwrap().clone();
        let session = client.session(AccessToken::new("request-token-69", newest_secret, Timestamp::now()));
        let error = session.get_invoice(9003).send().await.unwrap_err();
        let shown = format!("{error}\n{error:?}");
        let leaked: Vec<usize> =
            newest.iter().enumerate().filter(|(_, s)| shown.contains(s.as_str())).map(|(i, _)| i).collect();
        assert!(
            leaked.is_empty(),
            "of the newest 64 secrets, these (0 = oldest of them) were forgotten and shown: {leaked:?}"
        );
    });
}

/// Attacks: "every call ends within its deadline, the CPU work on what it read included", with
/// "remembered secrets | token secrets the service gave | the last 64 … each at most 4 KiB …
/// 256 KiB in all".
///
/// Twenty request-token answers each give a secret of 4,096 bytes (the longest allowed, not
/// periodic): the client remembers them all (80 KiB, within the budget). Each later call's
/// work then grows with what is remembered, not with what it reads (in a debug build about
/// 25 ms per remembered secret, 1.6 s per call with 64 of them). A data call of another
/// session whose answer is a 40-byte refusal, with a 200 ms deadline, must still end by its
/// deadline (plus slack).
#[test]
fn after_the_service_filled_the_remembered_secrets_a_small_answer_still_ends_by_the_deadline() {
    let rt = runtime();
    rt.block_on(async {
        let secrets: Vec<String> = (0..20).map(|i| format!("{i:04}{}", varied(4092 + i))[..4096].to_owned()).collect();
        let given = Arc::new(secrets.clone());
        let raw = Raw::start(move |index, seen| {
            if seen.head.starts_with("POST") {
                let body = format!(
                    "oauth_token=request-token-{index}&oauth_token_secret={}&oauth_callback_confirmed=true",
                    given[index]
                );
                vec![Piece::Bytes(answer(200, &[], "application/x-www-form-urlencoded", &body))]
            } else {
                json(400, &[], r#"{"error":{"code":"E_BAD","message":"no"}}"#)
            }
        })
        .await;
        let filler = client(&raw.base, Duration::from_secs(20), RetryPolicy::none());
        for _ in &secrets {
            filler.request_token(None).await.expect("a request token of 4 KiB");
        }
        let quick = filler.session(AccessToken::new("access-token-r4", "access-secret-red-team-4", Timestamp::now()));
        let started = Instant::now();
        let result = quick
            .get_invoice(9003)
            .customize(|options| options.deadline(Duration::from_millis(200)).timeout(Duration::from_millis(200)))
            .send()
            .await;
        let elapsed = started.elapsed();
        assert!(
            elapsed < Duration::from_millis(700),
            "deadline 200 ms; a call answered with 40 bytes ended after {elapsed:?}: {:?}",
            result.map(|_| ()).map_err(|e| e.to_string().chars().take(160).collect::<String>())
        );
    });
}

/// Attacks: "every call ends within its deadline" for the OAuth calls (`request_token`,
/// `access_token`, `revoke`), against an answer whose head arrives at once and whose body then
/// trickles one byte every 50 ms (each byte resets any idle timer a reader might use).
#[test]
fn oauth_calls_whose_answer_trickles_a_byte_at_a_time_end_by_their_deadline() {
    let rt = runtime();
    runner(6)
        .run(&(0u8..3), |kind| {
            rt.block_on(async {
                let raw = Raw::start(|_, _| {
                    let body = "oauth_token=request-token-r4&oauth_token_secret=Zq8vN3kP0wR5tY2uB7xC&oauth_callback_confirmed=true";
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let mut pieces = vec![Piece::Bytes(head.into_bytes())];
                    for byte in body.bytes() {
                        pieces.push(Piece::Sleep(Duration::from_millis(50)));
                        pieces.push(Piece::Bytes(vec![byte]));
                    }
                    pieces
                })
                .await;
                let client = client(&raw.base, Duration::from_millis(600), RetryPolicy::none());
                let request = marketplace_client::oauth::RequestToken {
                    token: "request-token-r4".to_owned(),
                    secret: marketplace_client::Secret::new("Rz7mK2pQ9sW4xV1nB6cD"),
                    callback_confirmed: true,
                };
                let verifier = marketplace_client::oauth::Verifier::new("verifier-r4").unwrap();
                let started = Instant::now();
                let result = match kind {
                    0 => client.request_token(None).await.map(|_| ()),
                    1 => client.access_token(&request, &verifier).await.map(|_| ()),
                    _ => session(&client, Timestamp::now()).revoke().await,
                };
                let elapsed = started.elapsed();
                prop_assert!(matches!(result, Err(Error::Timeout { .. })), "kind {kind}: {result:?}");
                prop_assert!(elapsed < Duration::from_millis(1200), "kind {kind}: ended after {elapsed:?}");
                Ok(())
            })
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Verifiers: the saved form (`Deserialize`) goes through the one constructor
// ---------------------------------------------------------------------------------------------

fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap()),
        Just('\u{7f}'),
        (0x80u32..0xA0).prop_map(|c| char::from_u32(c).unwrap()),
        prop::sample::select(vec![
            '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ]),
    ]
}

/// Attacks: "verifiers | … a saved one (`Deserialize`) | non-empty, at most 4 KiB
/// (`MAX_TOKEN_BYTES`, as tokens), no control (C0, DEL, C1) or bidirectional-text character;
/// surrounding white space ignored | … `Error::InvalidArgument` naming `oauth_verifier` … |
/// `Verifier::new`, the one constructor (the callback reader and `Deserialize` go through it)".
///
/// A saved verifier (JSON, the character written raw or as a `\u` escape) holding one control
/// or bidirectional-text character inside (not at its ends, where white space is ignored), or
/// 4,097 bytes, or only spaces, is refused by `Deserialize` as by `Verifier::new`; a verifier of
/// 4,096 bytes with spaces around it is accepted by both, trimmed.
#[test]
fn a_saved_verifier_is_bounded_like_a_new_one() {
    let strategy = (hostile_char(), 1usize..40, any::<bool>());
    runner(256)
        .run(&strategy, |(bad, at, escaped)| {
            let base = varied(40);
            let text = format!("{}{bad}{}", &base[..at], &base[at..]);
            prop_assert!(
                marketplace_client::oauth::Verifier::new(&text).is_err(),
                "new took U+{:04X}",
                bad as u32
            );
            let json = if escaped {
                format!("\"{}\\u{:04x}{}\"", &base[..at], bad as u32, &base[at..])
            } else {
                serde_json::to_string(&text).unwrap()
            };
            let saved = serde_json::from_str::<marketplace_client::oauth::Verifier>(&json);
            prop_assert!(
                saved.is_err(),
                "Deserialize took U+{:04X} ({json})",
                bad as u32
            );
            Ok(())
        })
        .unwrap();
    let long = varied(4097);
    assert!(marketplace_client::oauth::Verifier::new(&long).is_err());
    assert!(
        serde_json::from_str::<marketplace_client::oauth::Verifier>(
            &serde_json::to_string(&long).unwrap()
        )
        .is_err()
    );
    assert!(serde_json::from_str::<marketplace_client::oauth::Verifier>("\"   \"").is_err());
    assert!(serde_json::from_str::<marketplace_client::oauth::Verifier>("\"\"").is_err());
    let full = varied(4096);
    let padded = serde_json::to_string(&format!("  {full}  ")).unwrap();
    let saved = serde_json::from_str::<marketplace_client::oauth::Verifier>(&padded)
        .expect("4 KiB with spaces around");
    assert_eq!(saved.as_str(), full);
    assert_eq!(
        marketplace_client::oauth::Verifier::new(&format!("  {full}  "))
            .unwrap()
            .as_str(),
        full
    );
}

/// Attacks: "retry wait | `Retry-After` of a 429 or 5xx (GET calls) | … attempts at most
/// `max_attempts`" (and the manual's "OAuth POSTs are never retried").
///
/// Each OAuth call (`request_token`, `access_token`, `revoke`) is answered 503 or 429 with two
/// `Retry-After` headers (`0` and `1`): a POST is not a source of a wait, so exactly one
/// request goes out and the call ends at once with the answer, not after a second.
#[test]
fn oauth_posts_answered_with_retry_after_are_neither_retried_nor_delayed() {
    let rt = runtime();
    runner(9)
        .run(
            &(0u8..3, prop::sample::select(vec![429u16, 503])),
            |(kind, status)| {
                rt.block_on(async {
                    let raw = Raw::start(move |_, _| {
                        json(
                            status,
                            &[
                                ("Retry-After", "0".to_owned()),
                                ("Retry-After", "1".to_owned()),
                            ],
                            r#"{"error":"busy"}"#,
                        )
                    })
                    .await;
                    let client = client(&raw.base, Duration::from_secs(10), RetryPolicy::default());
                    let request = marketplace_client::oauth::RequestToken {
                        token: "request-token-r4".to_owned(),
                        secret: marketplace_client::Secret::new("Rz7mK2pQ9sW4xV1nB6cD"),
                        callback_confirmed: true,
                    };
                    let verifier = marketplace_client::oauth::Verifier::new("verifier-r4").unwrap();
                    let started = Instant::now();
                    let result = match kind {
                        0 => client.request_token(None).await.map(|_| ()),
                        1 => client.access_token(&request, &verifier).await.map(|_| ()),
                        _ => session(&client, Timestamp::now()).revoke().await,
                    };
                    let elapsed = started.elapsed();
                    prop_assert!(result.is_err());
                    prop_assert_eq!(
                        raw.seen().len(),
                        1,
                        "kind {} status {}: retried",
                        kind,
                        status
                    );
                    prop_assert!(
                        elapsed < Duration::from_millis(700),
                        "kind {kind} status {status}: took {elapsed:?}"
                    );
                    Ok(())
                })
            },
        )
        .unwrap();
}
