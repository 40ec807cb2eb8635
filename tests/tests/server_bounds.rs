//! Every value a service can put into the client's state is bounded to what a sane service
//! could mean, and never makes the client send what RFC 5849 forbids (SECURITY.md, "Values a
//! service sets"). A hostile service on loopback (the scripted stub) sends generated hostile
//! values, and each test checks what the client then sends, as the stub received it:
//!
//! - the clock: `Date` headers of signature refusals from 1970 to year 9999, near and far: a
//!   service clock within a day is adopted, one beyond is refused with
//!   `Error::ImplausibleClock` and changes nothing, and every `oauth_timestamp` sent is a
//!   positive integer within a day of the local clock;
//! - `Retry-After`: seconds of any size, dates past and future, garbage: a wait is honoured only
//!   up to `max_retry_after`, never more attempts than allowed;
//! - tokens: an `oauth_token` or secret longer than 4 KiB is refused, a shorter one is sent
//!   back as it came;
//! - paging: hostile page counts, endless or repeated pages, first pages at the end of `u64`:
//!   page numbers sent are consecutive, each once, and never wrap.

use marketplace_tests::runtime;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use jiff::{SignedDuration, Timestamp};
use marketplace_client::oauth::signature::parse_authorization_header;
use marketplace_client::oauth::{AccessToken, Verifier};
use marketplace_client::{Client, ConsumerCredentials, Error, RetryPolicy, Session};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

const INVOICE: &str = "/api/pay/getInvoice";
const TIMESHEETS: &str = "/api/pay/getTimesheetsForBid";
/// The largest correction the client adopts (`clock::MAX_OFFSET`).
const DAY: SignedDuration = SignedDuration::from_hours(24);
/// How far from a bound a case must be for its outcome to be certain: the local clock moves
/// while a case runs, and HTTP dates have whole seconds.
const MARGIN: SignedDuration = SignedDuration::from_secs(5);

fn fixture(name: &str) -> String {
    String::from_utf8(fixtures::read(name).unwrap()).unwrap()
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    })
}

/// A fresh client of `stub` (its own clock) on one HTTP client shared by every case, built as
/// the client builds its own: starting the platform's certificate verifier for each case would
/// cost more than the case.
fn client(stub: &StubServer, retry: RetryPolicy) -> Client {
    static HTTP: std::sync::LazyLock<reqwest::Client> = std::sync::LazyLock::new(|| {
        marketplace_client::http_client_builder()
            .unwrap()
            .build()
            .unwrap()
    });
    Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("app-key", "consumer-secret"),
    )
    .http_client(HTTP.clone())
    .allow_plain_http_oauth_on_loopback()
    .retry(retry)
    .timeout(Duration::from_secs(5))
    .deadline(Duration::from_secs(10))
    .build()
    .unwrap()
}

/// A session whose token no clock correction makes look expired: expiry is judged on the
/// corrected clock, and a correction may be up to a day, so it was granted a day ahead.
fn session(client: &Client) -> Session {
    let granted = Timestamp::now().checked_add(DAY).unwrap();
    client.session(AccessToken::new("access-token", "access-secret", granted))
}

/// The OAuth parameter `name` of a request's Authorization header.
fn oauth_param(request: &RecordedRequest, name: &str) -> Option<String> {
    let header = request.header("authorization")?;
    parse_authorization_header(header)?
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, value)| value)
}

/// The `oauth_timestamp` a request carried: RFC 5849's positive integer (digits, no sign, no
/// leading zero), or a failure saying what was sent instead.
fn timestamp_sent(request: &RecordedRequest) -> Result<i64, TestCaseError> {
    let text = oauth_param(request, "oauth_timestamp")
        .ok_or_else(|| TestCaseError::fail(format!("no oauth_timestamp: {request:?}")))?;
    let positive_integer = !text.is_empty()
        && text.bytes().all(|byte| byte.is_ascii_digit())
        && !text.starts_with('0');
    prop_assert!(positive_integer, "oauth_timestamp {:?}", text);
    text.parse()
        .map_err(|_| TestCaseError::fail(format!("oauth_timestamp {text:?} overflows")))
}

fn http_date(at: Timestamp) -> Option<String> {
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&at)
        .ok()
}

fn mismatch_body() -> String {
    json!({"api": "pay/getInvoice", "apiVersion": 1, "rcode": 0,
           "error": {"code": "E_API_AUTH_SIGNATURE_MISMATCH", "type": "authentication",
                     "message": "signature mismatch"}})
    .to_string()
}

// ---- the clock --------------------------------------------------------------------------------

/// The `Date` of a signature refusal.
#[derive(Clone, Debug)]
enum ServiceDate {
    /// The service's clock this far from the local one when the case starts.
    Offset(SignedDuration),
    /// A fixed instant: 1970, the years around 1 and 9999, anything between.
    At(Timestamp),
    /// A text the client does not read as a date.
    Garbage(&'static str),
    /// A date in an obsolete form RFC 9110 still has recipients read (RFC 850, asctime), and
    /// the instant it names.
    Obsolete(&'static str, i64),
}

fn service_date() -> impl Strategy<Value = ServiceDate> {
    let seconds = |range: std::ops::RangeInclusive<i64>| {
        (range, any::<bool>()).prop_map(|(seconds, ahead)| {
            let seconds = if ahead { seconds } else { -seconds };
            ServiceDate::Offset(SignedDuration::from_secs(seconds))
        })
    };
    let day = DAY.as_secs();
    // Year 1 to year 9999, as an HTTP date can write them.
    let any_instant = (-62_135_596_800_i64..253_402_207_200)
        .prop_map(|seconds| ServiceDate::At(Timestamp::from_second(seconds).unwrap()));
    prop_oneof![
        1 => seconds(0..=55),
        3 => seconds(65..=day - 5),
        1 => seconds(day - 5..=day + 5),
        2 => seconds(day + 5..=100 * 365 * day),
        2 => any_instant,
        1 => prop::sample::select(vec![0, 1, -1, 86_400, 253_402_207_200, -62_135_596_800])
            .prop_map(|seconds| ServiceDate::At(Timestamp::from_second(seconds).unwrap())),
        1 => prop::sample::select(vec![
            "",
            "0",
            "-1",
            "1700000000",
            "tomorrow",
            "Thu, 32 Jan 2026 00:00:00 GMT",
            "Thu, 01 Jan 2026 25:00:00 GMT",
            "Mon, 01 Jan 10000 00:00:00 GMT",
        ])
        .prop_map(ServiceDate::Garbage),
        1 => prop::sample::select(vec![
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ])
        .prop_map(|text| ServiceDate::Obsolete(text, 784_111_777)),
    ]
}

/// A signature refused with a hostile `Date`, then a second call: the service's clock is
/// adopted when it lies within a day of the local clock (the refused call is retried once, on
/// it, and later calls keep it), and refused beyond with `Error::ImplausibleClock` naming it,
/// the clock unchanged; a `Date` the client cannot read changes nothing. Whatever the `Date`,
/// every `oauth_timestamp` sent is a positive integer within a day of the local clock.
#[test]
fn a_service_clock_is_adopted_within_a_day_and_never_makes_a_timestamp_out_of_bounds() {
    let runtime = runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    let refusal: Arc<Mutex<Option<String>>> = Arc::default();
    let next = Arc::clone(&refusal);
    stub.route(INVOICE, move |_| match next.lock().unwrap().take() {
        Some(date) => Reply::json(401, mismatch_body()).header("Date", &date),
        None => Reply::json(200, fixture("pay/getInvoice.json")),
    });
    runner(256)
        .run(&service_date(), |date| {
            let local = Timestamp::now();
            let (header, service) = match &date {
                ServiceDate::Offset(offset) => {
                    let at = local.checked_add(*offset).unwrap();
                    (http_date(at).unwrap(), Some(at))
                }
                ServiceDate::At(at) => (http_date(*at).unwrap(), Some(*at)),
                ServiceDate::Garbage(text) => ((*text).to_owned(), None),
                ServiceDate::Obsolete(text, seconds) => (
                    (*text).to_owned(),
                    Some(Timestamp::from_second(*seconds).unwrap()),
                ),
            };
            // The instant the header names: the whole second it falls in, as it was written.
            let service = service.map(|at| {
                let floor = at.as_second() - i64::from(at.subsec_nanosecond() < 0);
                Timestamp::from_second(floor).unwrap()
            });
            let client = client(&stub, RetryPolicy::none());
            let session = session(&client);
            let before = stub.requests().len();
            *refusal.lock().unwrap() = Some(header.clone());
            let first = runtime.block_on(session.get_invoice(9003).send());
            let after_first = stub.requests().len();
            let second = runtime.block_on(session.get_invoice(9003).send());
            let requests = stub.requests()[before..].to_vec();
            let stamps = requests
                .iter()
                .map(timestamp_sent)
                .collect::<Result<Vec<_>, _>>()?;
            let what = format!("Date {header:?}: {first:?} then {stamps:?}");

            // Every timestamp sent is within a day of the local clock, whatever the service said.
            for stamp in &stamps {
                let from_local = SignedDuration::from_secs(stamp - local.as_second());
                prop_assert!(from_local.abs() <= DAY + MARGIN, "{}", what);
            }
            prop_assert!(second.is_ok(), "{}", what);
            let near = |stamp: i64, at: Timestamp| (stamp - at.as_second()).abs() <= 5;
            let offset = service.map(|at| at.duration_since(local));
            match offset {
                Some(offset) if offset.abs() > DAY + MARGIN => {
                    prop_assert!(
                        matches!(&first, Err(Error::ImplausibleClock { service: Some(at), .. })
                            if Some(*at) == service),
                        "{}",
                        what
                    );
                    let shown = first.as_ref().unwrap_err().to_string();
                    prop_assert!(shown.contains("more than 24 h"), "{}", shown);
                    prop_assert_eq!(after_first - before, 1, "{}", what);
                    prop_assert!(near(*stamps.last().unwrap(), local), "{}", what);
                }
                Some(offset)
                    if offset.abs() > SignedDuration::from_secs(60) + MARGIN
                        && offset.abs() < DAY - MARGIN =>
                {
                    prop_assert!(first.is_ok(), "{}", what);
                    prop_assert_eq!(after_first - before, 2, "{}", what);
                    let service = service.unwrap();
                    prop_assert!(near(stamps[1], service), "{}", what);
                    prop_assert!(near(stamps[2], service), "{}", what);
                }
                Some(offset) if offset.abs() < SignedDuration::from_secs(60) - MARGIN => {
                    prop_assert!(
                        matches!(first, Err(Error::Api { status: 401, .. })),
                        "{}",
                        what
                    );
                    prop_assert_eq!(after_first - before, 1, "{}", what);
                }
                // At a bound, either outcome: the bounds above hold all the same.
                Some(_) => {}
                None => {
                    prop_assert!(
                        matches!(first, Err(Error::Api { status: 401, .. })),
                        "{}",
                        what
                    );
                    prop_assert_eq!(after_first - before, 1, "{}", what);
                    prop_assert!(stamps.iter().all(|&stamp| near(stamp, local)), "{}", what);
                }
            }
            Ok(())
        })
        .unwrap();
}

// ---- Retry-After --------------------------------------------------------------------------------

/// A `Retry-After` value, with what it asks for.
#[derive(Clone, Debug)]
enum RetryAfter {
    /// delay-seconds, as digits (of any length).
    Seconds(String),
    /// An HTTP date this many seconds from now.
    Date(i64),
    /// Not a wait the client reads (so it backs off as without one).
    Garbage(&'static str),
}

fn retry_after() -> impl Strategy<Value = RetryAfter> {
    prop_oneof![
        1 => Just(RetryAfter::Seconds("0".to_owned())),
        1 => Just(RetryAfter::Seconds("000".to_owned())),
        2 => (1_u64..=10).prop_map(|s| RetryAfter::Seconds(s.to_string())),
        2 => any::<u64>().prop_map(|s| RetryAfter::Seconds(s.max(1).to_string())),
        2 => "[1-9][0-9]{20,40}".prop_map(RetryAfter::Seconds),
        2 => prop_oneof![-400_000_000_000_i64..=-1, 2_i64..=86_400 * 365 * 9000]
            .prop_map(RetryAfter::Date),
        2 => prop::sample::select(vec![
            "", "-1", "-0", "0.5", "1e3", "0x10", "soon", "\u{FF15}", "1 2", "Sun Nov  6 08:49:37 1994",
        ])
        .prop_map(RetryAfter::Garbage),
    ]
}

/// A service that answers 503 with a hostile `Retry-After` every time: a wait is honoured only
/// when it is at most `max_retry_after` (a zero wait, a date past); a longer one, however
/// large, ends the call at once with the 503; one the client cannot read is backed off from
/// as if absent. Never more attempts than the policy allows, never a long wait.
#[test]
fn a_retry_after_is_honoured_only_up_to_max_retry_after() {
    let runtime = runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    let header: Arc<Mutex<String>> = Arc::default();
    let value = Arc::clone(&header);
    stub.route(INVOICE, move |_| {
        Reply::text(503, "text/plain", "busy").header("Retry-After", &value.lock().unwrap())
    });
    let retry = RetryPolicy::default()
        .max_attempts(3)
        .base_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(5))
        .max_retry_after(Duration::from_millis(200));
    runner(128)
        .run(&retry_after(), |asked| {
            let (text, retried) = match &asked {
                RetryAfter::Seconds(digits) => (digits.clone(), digits.bytes().all(|b| b == b'0')),
                RetryAfter::Date(seconds) => {
                    let at = Timestamp::now().checked_add(SignedDuration::from_secs(*seconds));
                    let at = at.unwrap_or(if *seconds < 0 {
                        Timestamp::MIN
                    } else {
                        Timestamp::MAX
                    });
                    match http_date(at) {
                        Some(date) => (date, *seconds < 0),
                        // Beyond what an HTTP date writes: not a date.
                        None => ("not a date".to_owned(), true),
                    }
                }
                RetryAfter::Garbage(text) => ((*text).to_owned(), true),
            };
            *header.lock().unwrap() = text.clone();
            let client = client(&stub, retry.clone());
            let before = stub.requests().len();
            let started = Instant::now();
            let error = runtime
                .block_on(session(&client).get_invoice(9003).send())
                .unwrap_err();
            let took = started.elapsed();
            let attempts = stub.requests().len() - before;
            let what = format!("Retry-After {text:?}: {attempts} attempts in {took:?}: {error}");
            prop_assert_eq!(error.status(), Some(503), "{}", what);
            prop_assert_eq!(attempts, if retried { 3 } else { 1 }, "{}", what);
            // Two waits of at most 200 ms each, and the work around them.
            prop_assert!(took < Duration::from_secs(2), "{}", what);
            Ok(())
        })
        .unwrap();
}

// ---- tokens -----------------------------------------------------------------------------------

/// A token endpoint's answer with an `oauth_token` and secret of any length up to twice the
/// bound: each longer than 4 KiB is refused with a decode error naming the field, before the
/// client holds it; shorter ones are taken and sent back exactly (the access-token call signs
/// with them).
#[test]
fn tokens_longer_than_4_kib_are_refused_and_shorter_ones_sent_back_as_they_came() {
    let runtime = runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    let answer: Arc<Mutex<String>> = Arc::default();
    let body = Arc::clone(&answer);
    stub.route("/oauth/getRequestToken", move |_| {
        Reply::text(
            200,
            "application/x-www-form-urlencoded",
            body.lock().unwrap().clone(),
        )
    });
    stub.fallback(
        "/oauth/getAccessToken",
        Reply::text(
            200,
            "text/plain",
            "oauth_token=access&oauth_token_secret=access-secret",
        ),
    );
    let length = || prop_oneof![1_usize..64, 4090_usize..=4100, 1_usize..=8192];
    runner(64)
        .run(
            &(length(), length(), "[A-Za-z0-9]{8}"),
            |(token_len, secret_len, seed)| {
                let token: String = seed.chars().cycle().take(token_len).collect();
                let secret: String = seed.chars().rev().cycle().take(secret_len).collect();
                *answer.lock().unwrap() = format!(
                    "oauth_token={token}&oauth_token_secret={secret}&oauth_callback_confirmed=true"
                );
                let client = client(&stub, RetryPolicy::none());
                let result = runtime.block_on(client.request_token(Some("oob")));
                let too_long = [
                    ("oauth_token", token_len),
                    ("oauth_token_secret", secret_len),
                ]
                .into_iter()
                .find(|(_, len)| *len > 4096);
                match (too_long, result) {
                    (Some((name, len)), Err(Error::Decode { path, message, .. })) => {
                        prop_assert_eq!(path, name);
                        prop_assert!(message.contains(&format!("{len} bytes")), "{}", message);
                    }
                    (None, Ok(request)) => {
                        prop_assert_eq!(&request.token, &token);
                        prop_assert_eq!(request.secret.expose(), secret.as_str());
                        let verifier = Verifier::new("verifier").unwrap();
                        runtime
                            .block_on(client.access_token(&request, &verifier))
                            .map_err(|error| TestCaseError::fail(error.to_string()))?;
                        let sent = stub.requests().last().cloned().unwrap();
                        prop_assert_eq!(oauth_param(&sent, "oauth_token"), Some(token));
                    }
                    (expected, got) => {
                        return Err(TestCaseError::fail(format!("{expected:?}: {got:?}")));
                    }
                }
                Ok(())
            },
        )
        .unwrap();
}

// ---- paging -----------------------------------------------------------------------------------

/// A hostile paged service.
#[derive(Clone, Debug)]
struct PagedService {
    /// The page the app starts at (`None`: the method's first).
    first_page: Option<u64>,
    /// How many pages, from the first, hold items; the rest are empty.
    data_pages: u64,
    /// Every page holds the first page's items (a service that ignores `page`).
    repeats: bool,
    /// What `totalPages` says, as JSON text.
    total_pages: String,
}

fn paged_service() -> impl Strategy<Value = PagedService> {
    let first_page = prop_oneof![
        2 => Just(None),
        1 => (1_u64..5).prop_map(Some),
        1 => (0_u64..40).prop_map(|back| Some(u64::MAX - back)),
    ];
    let total_pages = prop_oneof![
        3 => (0_u64..40).prop_map(|n| n.to_string()),
        1 => Just(u64::MAX.to_string()),
        1 => Just((u64::MAX - 1).to_string()),
        1 => prop::sample::select(vec![
            "-1", "1.5", "\"7\"", "null", "1e30", "18446744073709551616", "-9223372036854775808",
            "7.0", "[]",
        ])
        .prop_map(str::to_owned),
    ];
    (
        first_page,
        0_u64..30,
        prop::bool::weighted(0.2),
        total_pages,
    )
        .prop_map(
            |(first_page, data_pages, repeats, total_pages)| PagedService {
                first_page,
                data_pages,
                repeats,
                total_pages,
            },
        )
}

/// Page streams over a hostile paged service: whatever the page count says (negative,
/// fractional, past `u64`, zero, the largest page number), whether pages repeat, and from
/// pages at the end of `u64`, the page numbers sent are digits, each once, consecutive from
/// the first, never wrapping, at most the pages with items plus those fetched ahead plus one;
/// the stream yields pages in order, then at most one typed error, and ends.
#[test]
fn page_numbers_sent_stay_consecutive_and_bounded_whatever_the_service_says() {
    let runtime = runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    let script: Arc<Mutex<Option<PagedService>>> = Arc::default();
    let served = Arc::clone(&script);
    let template: Value = serde_json::from_str(&fixture("pay/getTimesheetsForBid.json")).unwrap();
    stub.route(TIMESHEETS, move |request| {
        let service = served.lock().unwrap().clone().unwrap();
        let page: u64 = request
            .query_pairs()
            .into_iter()
            .find(|(name, _)| name == "page")
            .map_or(1, |(_, value)| value.parse().unwrap_or(0));
        let first = service.first_page.unwrap_or(1);
        let holds = page
            .checked_sub(first)
            .is_some_and(|n| n < service.data_pages);
        let mut body = template.clone();
        let item = body["data"]["timesheets"]["0"].clone();
        let ids: Vec<u64> = match (holds, service.repeats) {
            (false, _) => vec![],
            (true, true) => vec![1, 2],
            (true, false) => vec![page % 1_000_000 * 2, page % 1_000_000 * 2 + 1],
        };
        let items: serde_json::Map<String, Value> = ids
            .iter()
            .enumerate()
            .map(|(at, id)| {
                let mut item = item.clone();
                item["id"] = json!(id);
                (at.to_string(), item)
            })
            .collect();
        body["data"]["timesheets"] = Value::Object(items);
        body["data"]["totalPages"] = json!("TOTAL_PAGES");
        let body = body
            .to_string()
            .replace("\"TOTAL_PAGES\"", &service.total_pages);
        Reply::json(200, body)
    });
    let cases = std::sync::atomic::AtomicU64::new(0);
    runner(128)
        .run(&paged_service(), |service| {
            *script.lock().unwrap() = Some(service.clone());
            let client = client(&stub, RetryPolicy::none());
            let session = session(&client);
            // Each case asks for its own bid, to tell its requests from those a case before
            // had in flight when its stream ended (cancelled, they may still arrive).
            let bid = 310_000 + cases.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut request = session.get_timesheets_for_bid(bid);
            if let Some(first) = service.first_page {
                request = request.page(first);
            }
            let results: Vec<_> = runtime.block_on(request.pages().collect());
            let sent: Vec<String> = stub
                .requests()
                .iter()
                .filter(|request| {
                    let pairs = request.query_pairs();
                    pairs.iter().any(|(_, value)| *value == bid.to_string())
                })
                .map(|request| {
                    request
                        .query_pairs()
                        .into_iter()
                        .find(|(name, _)| name == "page")
                        .map_or_else(|| "1".to_owned(), |(_, value)| value)
                })
                .collect();
            let what = format!(
                "{service:?}: sent pages {sent:?}, got {} results",
                results.len()
            );

            let mut numbers = BTreeSet::new();
            for text in &sent {
                prop_assert!(text.bytes().all(|b| b.is_ascii_digit()), "{}", what);
                let number: u64 = text
                    .parse()
                    .map_err(|_| TestCaseError::fail(what.clone()))?;
                prop_assert!(
                    numbers.insert(number),
                    "page {} sent twice: {}",
                    number,
                    what
                );
            }
            // From the first page on, never past the pages with items, the empty one that
            // ends the stream and the page concurrency (4) fetched ahead (whose requests may be
            // cancelled, in any order, once the stream ends); every page yielded was sent.
            let first = service.first_page.unwrap_or(1);
            let last = first.saturating_add(service.data_pages + 4);
            prop_assert!(
                numbers.iter().all(|n| (first..=last).contains(n)),
                "{}",
                what
            );
            let yielded = results.iter().filter(|result| result.is_ok()).count() as u64;
            let expected: BTreeSet<u64> =
                (0..yielded).map_while(|n| first.checked_add(n)).collect();
            prop_assert!(numbers.is_superset(&expected), "{}", what);
            let errors = results.iter().filter(|result| result.is_err()).count();
            prop_assert!(errors <= 1, "{}", what);
            if let Some(Err(error)) = results.last() {
                prop_assert!(
                    matches!(error, Error::Paging { .. } | Error::Decode { .. }),
                    "{}: {}",
                    what,
                    error
                );
            }
            let ids: Vec<u64> = results
                .iter()
                .filter_map(|result| result.as_ref().ok())
                .flat_map(|page| page.timesheets.iter().map(|sheet| sheet.id))
                .collect();
            let distinct: BTreeSet<u64> = ids.iter().copied().collect();
            prop_assert_eq!(distinct.len(), ids.len(), "an item twice: {}", what);
            Ok(())
        })
        .unwrap();
}
