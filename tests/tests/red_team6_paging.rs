//! Red team 6: the documented behaviour of paged streams (`Request::pages`, `Request::items`,
//! `paging::{pages, Pages, Items, Walk, MAX_PAGES}`, `ClientBuilder::page_concurrency`,
//! `CallOptions` per page) and the SECURITY.md claim that touches them: every call ends within
//! its deadline, and a paged stream's deadline is per page.
//!
//! Three kinds of servers: the page engine itself (`paging::pages`) with pages whose answers the
//! test releases in an order a generator picks; the scripted raw-TCP stub; and the fake.

use marketplace_tests::runtime;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures::future::{self, Either};
use futures::stream::BoxStream;
use marketplace_client::jiff::Timestamp;
use marketplace_client::jiff::civil::Date;
use marketplace_client::oauth::AccessToken;
use marketplace_client::paging::{self, BeyondLast, Items, MAX_PAGES, Page, Pages, Walk};
use marketplace_client::request::{DataMethod, Request};
use marketplace_client::{
    Agent, CallOptions, Client, ClientBuilder, ConsumerCredentials, Error, ProviderList,
    RetryPolicy, ScreenBucket, Session, StatusReport, StatusReportList, StreamExt, TimeoutLimit,
    Timesheet, TimesheetList, TryStreamExt, Workview,
};
use marketplace_tests::fake::{FakeMarketplace, Fault};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};
use proptest::prelude::*;
use serde_json::{Value, json};

// ---- the page engine, answers released in any order ------------------------------------------

/// A page of the engine tests: its number, its page count, its items.
#[derive(Clone, Debug, PartialEq)]
struct TestPage {
    number: u64,
    total: Option<u64>,
    items: Vec<u64>,
}

impl Page for TestPage {
    type Item = u64;
    fn total_pages(&self) -> Option<u64> {
        self.total
    }
    fn items(&self) -> &[u64] {
        &self.items
    }
    fn into_items(self) -> Vec<u64> {
        self.items
    }
}

type Answer = Result<TestPage, Error>;

/// Fetches waiting for their answer, and what the engine asked for.
#[derive(Default)]
struct Gates {
    waiting: Vec<(u64, tokio::sync::oneshot::Sender<Answer>)>,
    requested: Vec<u64>,
    answered: usize,
    max_outstanding: usize,
    /// A fetch started while the first page had not been answered yet.
    alongside_first: bool,
}

/// What one walk of the engine did.
#[derive(Debug)]
struct Outcome {
    yielded: Vec<Answer>,
    requested: Vec<u64>,
    max_outstanding: usize,
    alongside_first: bool,
    /// The stream waited while no fetch was outstanding: it can never end.
    stalled: bool,
}

/// Walks `walk` with `answer(n)` as page `n`'s answer, releasing the outstanding fetches in the
/// order `schedule` picks (each step takes the `schedule[i] % outstanding`-th of them), on one
/// thread, so every interleaving the schedule names is the one that runs.
fn engine_walk(walk: Walk, answer: impl Fn(u64) -> Answer, schedule: &[usize]) -> Outcome {
    let runtime = marketplace_tests::current_thread_runtime();
    runtime.block_on(async move {
        let gates = Arc::new(Mutex::new(Gates::default()));
        let fetch_gates = gates.clone();
        let fetch = move |n: u64| {
            let gates = fetch_gates.clone();
            async move {
                let (tx, rx) = tokio::sync::oneshot::channel();
                {
                    let mut g = gates.lock().expect("gates");
                    if g.answered == 0 && !g.waiting.is_empty() {
                        g.alongside_first = true;
                    }
                    g.requested.push(n);
                    g.waiting.push((n, tx));
                    g.max_outstanding = g.max_outstanding.max(g.waiting.len());
                }
                rx.await.unwrap_or_else(|_| {
                    Err(Error::Config {
                        reason: "the test dropped a fetch".into(),
                    })
                })
            }
        };
        let mut stream = Pages::new(paging::pages(walk, fetch));
        let done = Arc::new(AtomicBool::new(false));
        let consumer_done = done.clone();
        let consumer = Box::pin(async move {
            let mut yielded = Vec::new();
            while let Some(page) = stream.next().await {
                yielded.push(page);
                if yielded.len() > 100_000 {
                    break;
                }
            }
            consumer_done.store(true, Ordering::SeqCst);
            yielded
        });
        let driver_gates = gates.clone();
        let driver = Box::pin(async move {
            let mut step = 0usize;
            let mut idle = 0u32;
            loop {
                for _ in 0..8 {
                    tokio::task::yield_now().await;
                }
                if done.load(Ordering::SeqCst) {
                    return;
                }
                let next = {
                    let mut g = driver_gates.lock().expect("gates");
                    if g.waiting.is_empty() {
                        None
                    } else {
                        let pick = schedule[step % schedule.len()] % g.waiting.len();
                        g.answered += 1;
                        Some(g.waiting.remove(pick))
                    }
                };
                match next {
                    Some((n, tx)) => {
                        step += 1;
                        idle = 0;
                        let _ = tx.send(answer(n));
                    }
                    None => {
                        idle += 1;
                        if idle > 200 {
                            return;
                        }
                    }
                }
            }
        });
        let (yielded, stalled) = match future::select(consumer, driver).await {
            Either::Left((yielded, _)) => (yielded, false),
            Either::Right(((), _)) => (Vec::new(), true),
        };
        let g = gates.lock().expect("gates");
        Outcome {
            yielded,
            requested: g.requested.clone(),
            max_outstanding: g.max_outstanding,
            alongside_first: g.alongside_first,
            stalled,
        }
    })
}

fn walk(first_page: u64, concurrency: usize, max_pages: u64) -> Walk {
    Walk {
        method: "test/paged",
        first_page,
        beyond_last: BeyondLast::AboveTotal,
        concurrency,
        max_pages,
    }
}

/// The items of page `n` (distinct across pages): `sizes` items.
fn items_of(n: u64, size: usize) -> Vec<u64> {
    (0..size as u64)
        .map(|i| n.wrapping_mul(1_000).wrapping_add(i))
        .collect()
}

fn test_error(n: u64) -> Error {
    Error::Status {
        method: "test/paged",
        status: 418,
        body: format!("page {n} failed"),
    }
}

/// The non-empty pages yielded before the end (or before the error), and the error.
fn split_outcome(yielded: &[Answer]) -> (Vec<u64>, Vec<u64>, Option<&Error>, usize) {
    let mut numbers = Vec::new();
    let mut items = Vec::new();
    let mut error = None;
    let mut after_error = 0;
    for answer in yielded {
        if error.is_some() {
            after_error += 1;
            continue;
        }
        match answer {
            Ok(page) => {
                if !page.items.is_empty() {
                    numbers.push(page.number);
                    items.extend(page.items.iter().copied());
                }
            }
            Err(e) => error = Some(e),
        }
    }
    (numbers, items, error, after_error)
}

/// Every page requested once, no earlier than `first`, every page through `must` requested, none
/// past `may`.
fn check_requests(requested: &[u64], first: u64, must: u64, may: u64) -> Result<(), String> {
    let set: BTreeSet<u64> = requested.iter().copied().collect();
    if set.len() != requested.len() {
        return Err(format!("a page was requested twice: {requested:?}"));
    }
    if requested.first() != Some(&first) {
        return Err(format!(
            "the first request is not page {first}: {requested:?}"
        ));
    }
    if let Some(low) = set.iter().find(|&&n| n < first) {
        return Err(format!(
            "page {low} before the first {first}: {requested:?}"
        ));
    }
    if let Some(high) = set.iter().find(|&&n| n > may) {
        return Err(format!(
            "page {high} requested, past the last page fetching ahead allows ({may}): {requested:?}"
        ));
    }
    let mut n = first;
    while n <= must {
        if !set.contains(&n) {
            return Err(format!("page {n} never requested: {requested:?}"));
        }
        n += 1;
    }
    Ok(())
}

fn concurrency() -> impl Strategy<Value = usize> {
    prop_oneof![1usize..=6, Just(64usize)]
}

fn engine_config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn http_config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(engine_config())]

    /// Attacks `paging` (module docs): "The first page is fetched alone. When it says how many
    /// pages there are, the following pages are fetched ahead, up to the client's page
    /// concurrency at a time, and yielded in order, up to that count. When the method gives no
    /// page count …, pages are fetched one after another until an empty page: a page with fewer
    /// items than asked for does not end the stream".
    ///
    /// The engine with pages of 1 to 4 items (short pages everywhere), with or without a page
    /// count, from any first page, at concurrency 1 to 6 or 64, the answers released in any
    /// order: the pages come in page order, each once, every item once; the first page alone;
    /// never more fetches outstanding than the concurrency (one without a count); exactly the
    /// pages there are requested (and the empty one without a count); the stream ends cleanly.
    #[test]
    fn engine_pages_arrive_in_page_order_each_once_whatever_order_the_answers_complete_in(
        first in prop_oneof![Just(1u64), 2u64..1_000_000],
        sizes in prop::collection::vec(1usize..=4, 1..10),
        counted in any::<bool>(),
        concurrency in concurrency(),
        schedule in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let n = sizes.len() as u64;
        let last = first + n - 1;
        let answer = |m: u64| -> Answer {
            let j = (m - first) as usize;
            let items = if j < sizes.len() { items_of(m, sizes[j]) } else if counted {
                items_of(m, 2) // a hostile service with data past its count
            } else {
                Vec::new()
            };
            Ok(TestPage { number: m, total: counted.then_some(last), items })
        };
        let outcome = engine_walk(walk(first, concurrency, MAX_PAGES), answer, &schedule);
        prop_assert!(!outcome.stalled, "the stream stalled: {outcome:?}");
        let (numbers, items, error, _) = split_outcome(&outcome.yielded);
        prop_assert!(error.is_none(), "error: {error:?}");
        prop_assert_eq!(numbers, (first..=last).collect::<Vec<_>>());
        let expected: Vec<u64> = (first..=last)
            .zip(&sizes)
            .flat_map(|(m, &s)| items_of(m, s))
            .collect();
        prop_assert_eq!(items, expected);
        prop_assert!(!outcome.alongside_first, "a page was fetched alongside the first: {:?}", outcome.requested);
        let (must, may, ahead) = if counted {
            (last, last, concurrency)
        } else {
            (last + 1, last + 1, 1)
        };
        let checked = check_requests(&outcome.requested, first, must, may);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
        prop_assert!(outcome.max_outstanding <= ahead,
            "{} fetches outstanding at once, concurrency {concurrency} (counted: {counted})",
            outcome.max_outstanding);
    }

    /// Attacks `paging` (module docs): "Either way the stream ends cleanly at the first empty
    /// page", and `Request::pages`: "The stream ends there, at the first empty page".
    ///
    /// A page count of n, and page k < n empty (the first page included) while the pages after
    /// it, fetched ahead, hold items and may be answered first: the stream yields the items of
    /// the pages before k only, ends without an error, and no page past k + concurrency − 1 is
    /// requested.
    #[test]
    fn engine_an_empty_page_ends_the_stream_though_pages_after_it_fetched_ahead_hold_items(
        first in prop_oneof![Just(1u64), 2u64..1_000],
        n in 3u64..10,
        empty_at in 0u64..9,
        concurrency in concurrency(),
        schedule in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let k = first + empty_at % (n - 1);
        let last = first + n - 1;
        let answer = |m: u64| -> Answer {
            let items = if m == k { Vec::new() } else { items_of(m, 3) };
            Ok(TestPage { number: m, total: Some(last), items })
        };
        let outcome = engine_walk(walk(first, concurrency, MAX_PAGES), answer, &schedule);
        prop_assert!(!outcome.stalled, "the stream stalled: {outcome:?}");
        let (numbers, _, error, _) = split_outcome(&outcome.yielded);
        prop_assert!(error.is_none(), "error: {error:?}");
        prop_assert_eq!(numbers, (first..k).collect::<Vec<_>>(), "pages past the empty page {} were yielded", k);
        let may = last.min(k.saturating_add(concurrency as u64 - 1));
        let checked = check_requests(&outcome.requested, first, k, may);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// Attacks `paging::items`: "an error is passed on as it comes (the page stream ends after
    /// it)", `paging` "ends after the first error", and "yielded in order".
    ///
    /// Page k fails; pages before it and after it (fetched ahead) succeed, in any order, the
    /// failure possibly first: every page before k is yielded, in order, then k's error (not
    /// another), then nothing; no page past k + concurrency − 1 is requested.
    #[test]
    fn engine_an_error_ends_the_stream_after_every_page_before_it_whatever_answers_first(
        first in prop_oneof![Just(1u64), 2u64..1_000],
        n in 2u64..10,
        error_at in 0u64..9,
        counted in any::<bool>(),
        concurrency in concurrency(),
        schedule in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let k = first + error_at % n;
        let last = first + n - 1;
        let answer = |m: u64| -> Answer {
            if m == k {
                return Err(test_error(m));
            }
            let items = if m <= last { items_of(m, 2) } else if counted { items_of(m, 1) } else { Vec::new() };
            Ok(TestPage { number: m, total: counted.then_some(last), items })
        };
        let outcome = engine_walk(walk(first, concurrency, MAX_PAGES), answer, &schedule);
        prop_assert!(!outcome.stalled, "the stream stalled: {outcome:?}");
        let (numbers, _, error, after_error) = split_outcome(&outcome.yielded);
        prop_assert_eq!(numbers, (first..k).collect::<Vec<_>>());
        let expected = format!("page {k} failed");
        prop_assert!(
            matches!(error, Some(Error::Status { body, .. }) if *body == expected),
            "expected page {}'s error, got {:?}", k, error
        );
        prop_assert_eq!(after_error, 0, "the stream went on after the error: {:?}", outcome.yielded);
        let ahead = if counted { concurrency as u64 } else { 1 };
        let may = last.min(k.saturating_add(ahead - 1));
        let checked = check_requests(&outcome.requested, first, k, may);
        prop_assert!(checked.is_ok(), "{}", checked.unwrap_err());
    }

    /// Attacks `paging` (module docs): "A service that sends the same items for two pages in a
    /// row (one that ignores `page`, or repeats its last page instead of an empty one) … ends
    /// the stream with `Error::Paging` after the pages before it", and `Error::Paging`: "The
    /// pages up to `after_page` were yielded".
    ///
    /// From any first page, page k repeats page k − 1's items (with or without a page count,
    /// answers in any order): pages first..k−1 are yielded, then `Error::Paging` whose
    /// `after_page` is k − 1, then nothing.
    #[test]
    fn engine_a_repeated_page_ends_with_paging_error_naming_the_page_before(
        first in prop_oneof![Just(1u64), 2u64..1_000_000, (u64::MAX - 40)..=(u64::MAX - 12)],
        n in 2u64..10,
        repeat_at in 1u64..9,
        counted in any::<bool>(),
        concurrency in concurrency(),
        schedule in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let k = first + 1 + (repeat_at - 1) % (n - 1);
        let last = first + n - 1;
        let answer = |m: u64| -> Answer {
            let source = if m == k { m - 1 } else { m };
            let items = if m <= last { items_of(source, 2) } else if counted { items_of(m, 1) } else { Vec::new() };
            Ok(TestPage { number: m, total: counted.then_some(last), items })
        };
        let outcome = engine_walk(walk(first, concurrency, MAX_PAGES), answer, &schedule);
        prop_assert!(!outcome.stalled, "the stream stalled: {outcome:?}");
        let (numbers, _, error, after_error) = split_outcome(&outcome.yielded);
        prop_assert_eq!(numbers, (first..k).collect::<Vec<_>>());
        prop_assert!(
            matches!(error, Some(Error::Paging { after_page, .. }) if *after_page == k - 1),
            "expected Error::Paging after page {}, got {:?}", k - 1, error
        );
        prop_assert_eq!(after_error, 0);
    }

    /// Attacks `paging::MAX_PAGES` ("The most pages one stream requests; a longer walk ends
    /// with `Error::Paging`") through `Walk::max_pages`, and `Error::Paging`'s `after_page`
    /// ("The last page yielded").
    ///
    /// With a bound m: a walk of exactly m pages (the count says so) ends cleanly with m pages;
    /// a walk that would be longer (a larger count, u64::MAX, or no count and pages that never
    /// end) requests exactly m pages, yields them, then `Error::Paging` after page first+m−1.
    #[test]
    fn engine_the_page_bound_is_exact_a_walk_of_max_pages_ends_cleanly_a_longer_one_with_paging(
        first in prop_oneof![Just(1u64), 2u64..1_000_000],
        max in 1u64..24,
        longer in prop_oneof![Just(None), Just(Some(0u64)), Just(Some(1u64)), Just(Some(u64::MAX))],
        concurrency in concurrency(),
        schedule in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let exact_last = first + max - 1;
        // `longer`: None = exactly max pages; Some(0) = no count, never ending; Some(1) = the
        // count one past the bound; Some(u64::MAX) = the largest count.
        let total = match longer {
            None => Some(exact_last),
            Some(0) => None,
            Some(1) => Some(exact_last + 1),
            Some(_) => Some(u64::MAX),
        };
        let answer = |m: u64| -> Answer { Ok(TestPage { number: m, total, items: items_of(m, 1) }) };
        let outcome = engine_walk(walk(first, concurrency, max), answer, &schedule);
        prop_assert!(!outcome.stalled, "the stream stalled: {outcome:?}");
        let (numbers, _, error, _) = split_outcome(&outcome.yielded);
        prop_assert_eq!(numbers, (first..=exact_last).collect::<Vec<_>>());
        prop_assert_eq!(outcome.requested.len() as u64, max, "requests: {:?}", outcome.requested);
        match longer {
            None => prop_assert!(error.is_none(), "a walk of exactly max_pages pages failed: {error:?}"),
            Some(_) => prop_assert!(
                matches!(error, Some(Error::Paging { after_page, .. }) if *after_page == exact_last),
                "expected Error::Paging after page {}, got {:?}", exact_last, error
            ),
        }
    }
}

/// Attacks `paging` (module docs): only "the same items for two pages in a row" end a stream
/// with `Error::Paging`.
///
/// Pages alternating two lists of items (A, B, A, B, A, B), the count saying 6: no two pages in
/// a row are the same, so all six are yielded and the stream ends cleanly.
#[test]
fn engine_pages_repeating_an_earlier_page_but_not_the_one_before_do_not_end_the_stream() {
    for concurrency in [1, 2, 6] {
        let answer = |m: u64| -> Answer {
            Ok(TestPage {
                number: m,
                total: Some(6),
                items: items_of(1 + (m + 1) % 2, 2),
            })
        };
        let outcome = engine_walk(walk(1, concurrency, MAX_PAGES), answer, &[0, 1, 2]);
        assert!(!outcome.stalled, "{outcome:?}");
        let (numbers, _, error, _) = split_outcome(&outcome.yielded);
        assert!(error.is_none(), "concurrency {concurrency}: {error:?}");
        assert_eq!(numbers, vec![1, 2, 3, 4, 5, 6], "concurrency {concurrency}");
    }
}

// ---- the client over the stub ------------------------------------------------------------------

const BID: u64 = 310_001;
const USER: u64 = 420_042;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Timesheets,
    StatusReports,
    Providers,
    Workview,
}

impl Kind {
    fn path(self) -> &'static str {
        match self {
            Kind::Timesheets => "/api/pay/getTimesheetsForBid",
            Kind::StatusReports => "/api/pay/getStatusReportsForBid",
            Kind::Providers => "/api/manage/getMyProviders",
            Kind::Workview => "/api/workroom/getWorkviewDetails",
        }
    }
    fn fixture(self) -> &'static str {
        match self {
            Kind::Timesheets => "pay/getTimesheetsForBid.json",
            Kind::StatusReports => "pay/getStatusReportsForBid.json",
            Kind::Providers => "manage/getMyProviders.json",
            Kind::Workview => "workroom/getWorkviewDetails.json",
        }
    }
    fn list_key(self) -> &'static str {
        match self {
            Kind::Timesheets => "timesheets",
            Kind::StatusReports => "statusReports",
            Kind::Providers => "agents",
            Kind::Workview => "screenBuckets",
        }
    }
    fn counted(self) -> bool {
        self != Kind::Workview
    }
    fn cap(self) -> u64 {
        if self == Kind::Workview { 10 } else { 25 }
    }
}

fn counted_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Timesheets),
        Just(Kind::StatusReports),
        Just(Kind::Providers)
    ]
}

fn any_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Timesheets),
        Just(Kind::StatusReports),
        Just(Kind::Providers),
        Just(Kind::Workview)
    ]
}

fn fixture(name: &str) -> Value {
    static CACHE: OnceLock<Mutex<Vec<(String, Value)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let mut cache = cache.lock().expect("cache");
    if let Some((_, value)) = cache.iter().find(|(n, _)| n == name) {
        return value.clone();
    }
    let bytes = fixtures::read(name).expect("fixture");
    let value: Value = serde_json::from_slice(&bytes).expect("fixture JSON");
    cache.push((name.to_owned(), value.clone()));
    value
}

/// `value` written as `old` was: a string if it was one, else a number.
fn like(old: &Value, value: u64) -> Value {
    if old.is_string() {
        Value::String(value.to_string())
    } else {
        json!(value)
    }
}

/// The body of page `page` of `kind` listing items identified by `ids`; `total` is the
/// `totalPages` value written (`None`: the key left out; ignored for the workview).
fn page_json(kind: Kind, page: u64, total: Option<Value>, ids: &[u64]) -> String {
    let mut envelope = fixture(kind.fixture());
    let data = envelope["data"].as_object_mut().expect("data");
    let template = data[kind.list_key()]["0"].clone();
    let list: serde_json::Map<String, Value> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let mut item = template.clone();
            match kind {
                Kind::Timesheets | Kind::StatusReports => item["id"] = like(&item["id"], id),
                Kind::Providers => item["hoursToday"] = json!(id),
                Kind::Workview => item["title"] = json!(format!("bucket-{id}")),
            }
            (i.to_string(), item)
        })
        .collect();
    data.insert(kind.list_key().to_owned(), Value::Object(list));
    if kind.counted() {
        data.insert("page".to_owned(), json!(page));
        data.insert("numResults".to_owned(), json!(ids.len()));
        match total {
            Some(total) => {
                data.insert("totalPages".to_owned(), total);
            }
            None => {
                data.remove("totalPages");
            }
        }
    }
    envelope.to_string()
}

/// Ids of page `n` (distinct across pages, never 0): `size` of them.
fn ids_of(n: u64, size: usize) -> Vec<u64> {
    (1..=size as u64)
        .map(|i| (n % 1_000_000) * 100 + i)
        .collect()
}

fn page_of(request: &RecordedRequest) -> u64 {
    request
        .query_pairs()
        .into_iter()
        .find(|(name, _)| name == "page")
        .map_or(1, |(_, value)| value.parse().unwrap_or(0))
}

fn param(request: &RecordedRequest, name: &str) -> Option<String> {
    request
        .query_pairs()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

fn pages_requested(stub: &StubServer, kind: Kind) -> Vec<u64> {
    stub.requests()
        .iter()
        .filter(|r| r.path == kind.path())
        .map(page_of)
        .collect()
}

fn session_of(
    stub: &StubServer,
    configure: impl FnOnce(ClientBuilder) -> ClientBuilder,
) -> Session {
    let builder = Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("rt6-consumer-key", "rt6-consumer-secret"),
    );
    let client = configure(builder).build().expect("client");
    client.session(AccessToken::new(
        "rt6-access-token",
        "rt6-token-secret",
        Timestamp::now(),
    ))
}

/// How a request is set up: its first page, page size, date, per-call options.
#[derive(Clone, Default)]
struct Setup {
    start: Option<u64>,
    rpp: Option<u64>,
    date: Option<Date>,
    timeout: Option<Duration>,
    deadline: Option<Duration>,
    retry: Option<RetryPolicy>,
}

fn customized<M: DataMethod>(request: Request<M>, setup: &Setup) -> Request<M> {
    let setup = setup.clone();
    request.customize(move |options: CallOptions| {
        let mut options = options;
        if let Some(t) = setup.timeout {
            options = options.timeout(t);
        }
        if let Some(d) = setup.deadline {
            options = options.deadline(d);
        }
        if let Some(r) = setup.retry {
            options = options.retry(r);
        }
        options
    })
}

fn timesheet_id(t: Timesheet) -> u64 {
    t.id
}
fn report_id(r: StatusReport) -> u64 {
    r.id.unwrap_or(0)
}
fn agent_id(a: Agent) -> u64 {
    a.hours_today.to_string().parse().unwrap_or(0)
}
fn bucket_id(b: ScreenBucket) -> u64 {
    b.title
        .strip_prefix("bucket-")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The item stream of `kind` for `setup`, each item as its id.
fn id_stream(
    kind: Kind,
    session: &Session,
    setup: &Setup,
) -> BoxStream<'static, Result<u64, Error>> {
    macro_rules! walk {
        ($request:expr, $id:expr) => {{
            let mut request = $request;
            if let Some(p) = setup.start {
                request = request.page(p);
            }
            if let Some(r) = setup.rpp {
                request = request.rpp(r);
            }
            customized(request, setup)
                .items()
                .map(|item| item.map($id))
                .boxed()
        }};
    }
    match kind {
        Kind::Timesheets => walk!(session.get_timesheets_for_bid(BID), timesheet_id),
        Kind::StatusReports => walk!(session.get_status_reports_for_bid(BID), report_id),
        Kind::Providers => walk!(session.get_my_providers().bid_id(BID), agent_id),
        Kind::Workview => {
            let mut request = session.get_workview_details(BID, USER);
            if let Some(d) = setup.date {
                request = request.date(d);
            }
            walk!(request, bucket_id)
        }
    }
}

/// Every result of the stream, up to the end (or 100,000 of them).
async fn drain(mut stream: BoxStream<'static, Result<u64, Error>>) -> Vec<Result<u64, Error>> {
    let mut out = Vec::new();
    while let Some(item) = stream.next().await {
        out.push(item);
        if out.len() > 100_000 {
            break;
        }
    }
    out
}

/// The ids before the first error, the error, and how many results came after it.
fn split_ids(results: &[Result<u64, Error>]) -> (Vec<u64>, Option<&Error>, usize) {
    let mut ids = Vec::new();
    let mut error = None;
    let mut after = 0;
    for result in results {
        match (error.is_some(), result) {
            (true, _) => after += 1,
            (false, Ok(id)) => ids.push(*id),
            (false, Err(e)) => error = Some(e),
        }
    }
    (ids, error, after)
}

fn check_http_requests(pages: &[u64], first: u64, must: u64, may: u64) -> Result<(), String> {
    check_requests(pages, first, must, may)
}

proptest! {
    #![proptest_config(http_config(16))]

    /// Attacks `Request::pages`: "the following pages are fetched ahead (see
    /// `ClientBuilder::page_concurrency`), up to that count" and "Every page … in order", and
    /// `Items`: "Every item of every page of a paged request, in order".
    ///
    /// Over HTTP, each page answered after its own delay (0 to 40 ms, so answers fetched ahead
    /// overtake each other), page sizes 1 to 3 under an rpp of 5 (every page short), at page
    /// concurrency 1, 2, 3, 5 or 16, and a service that answers pages past the count (or past
    /// the empty page of the workview) with data: every item once, in page order; every page
    /// requested once, none past the count (the workview: none past its empty page).
    #[test]
    fn over_http_answers_overtaking_each_other_still_yield_every_item_once_in_page_order(
        kind in any_kind(),
        sizes in prop::collection::vec(1usize..=3, 1..7),
        delays in prop::collection::vec(0u64..40, 12),
        concurrency in prop::sample::select(vec![1usize, 2, 3, 5, 16]),
    ) {
        let n = sizes.len() as u64;
        let outcome: Result<(), String> = runtime().block_on(async {
            let stub = StubServer::start().await.expect("stub");
            let route_sizes = sizes.clone();
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                let delay = Duration::from_millis(delays[(m as usize) % delays.len()]);
                let ids = if m >= 1 && m <= n {
                    ids_of(m, route_sizes[(m - 1) as usize])
                } else if kind.counted() {
                    ids_of(m, 1)
                } else if m == n + 1 {
                    Vec::new()
                } else {
                    ids_of(m, 1)
                };
                Reply::json(200, page_json(kind, m, Some(json!(n)), &ids)).delay(delay)
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let setup = Setup { rpp: Some(5), ..Setup::default() };
            let results = tokio::time::timeout(Duration::from_secs(20), drain(id_stream(kind, &session, &setup)))
                .await
                .map_err(|_| "the stream did not end in 20 s".to_owned())?;
            let (ids, error, _) = split_ids(&results);
            if let Some(e) = error {
                return Err(format!("error: {e}"));
            }
            let expected: Vec<u64> = (1..=n).zip(&sizes).flat_map(|(m, &s)| ids_of(m, s)).collect();
            if ids != expected {
                return Err(format!("items {ids:?}, expected {expected:?}"));
            }
            let last = if kind.counted() { n } else { n + 1 };
            check_http_requests(&pages_requested(&stub, kind), 1, last, last)
        });
        prop_assert!(outcome.is_ok(), "{kind:?}, concurrency {concurrency}: {}", outcome.unwrap_err());
    }

    /// Attacks `Request::pages`: "Every page from the request's page (the method's first page
    /// unless `page` was set) on", and the setters' promise that a request's parameters are
    /// what is sent (`rpp`, `bidId`, `userId`, `date`) — on every page's request, not only the
    /// first.
    ///
    /// Each of the four methods, from a start page of 1 to 10^12, with an rpp within the cap,
    /// at concurrency 1 to 4: the pages requested are exactly start..=last (and the empty one
    /// for the workview), each carrying the same rpp, bidId (userId and date for the workview).
    #[test]
    fn every_page_request_carries_the_requests_own_start_page_rpp_and_parameters(
        kind in any_kind(),
        start in prop_oneof![Just(1u64), 2u64..60, 1_000_000u64..1_000_000_000_000],
        rpp_seed in any::<u64>(),
        n in 1u64..5,
        concurrency in 1usize..=4,
    ) {
        let rpp = 1 + rpp_seed % kind.cap();
        let last = start + n - 1;
        let outcome: Result<(), String> = runtime().block_on(async {
            let stub = StubServer::start().await.expect("stub");
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                let ids = if (start..=last).contains(&m) || (kind.counted() && m < start) {
                    ids_of(m, 2)
                } else {
                    Vec::new()
                };
                Reply::json(200, page_json(kind, m, Some(json!(last)), &ids))
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let date = marketplace_client::jiff::civil::date(2026, 1, 5);
            let setup = Setup {
                start: (start != 1 || rpp_seed % 2 == 0).then_some(start),
                rpp: Some(rpp),
                date: Some(date),
                ..Setup::default()
            };
            let results = tokio::time::timeout(Duration::from_secs(20), drain(id_stream(kind, &session, &setup)))
                .await
                .map_err(|_| "the stream did not end in 20 s".to_owned())?;
            let (ids, error, _) = split_ids(&results);
            if let Some(e) = error {
                return Err(format!("error: {e}"));
            }
            let expected: Vec<u64> = (start..=last).flat_map(|m| ids_of(m, 2)).collect();
            if ids != expected {
                return Err(format!("items {ids:?}, expected {expected:?}"));
            }
            let end = if kind.counted() { last } else { last + 1 };
            check_http_requests(&pages_requested(&stub, kind), start, end, end)?;
            for request in stub.requests().iter().filter(|r| r.path == kind.path()) {
                let rpp_sent = param(request, "rpp");
                if rpp_sent.as_deref() != Some(rpp.to_string().as_str()) {
                    return Err(format!("page {} sent rpp {rpp_sent:?}, not {rpp}", page_of(request)));
                }
                if param(request, "bidId").as_deref() != Some(BID.to_string().as_str()) {
                    return Err(format!("page {} lost bidId: {:?}", page_of(request), request.query));
                }
                if kind == Kind::Workview {
                    if param(request, "userId").as_deref() != Some(USER.to_string().as_str()) {
                        return Err(format!("page {} lost userId: {:?}", page_of(request), request.query));
                    }
                    if param(request, "date").as_deref() != Some("05-JAN-26") {
                        return Err(format!("page {} lost date: {:?}", page_of(request), request.query));
                    }
                }
            }
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{kind:?}, start {start}, rpp {rpp}, concurrency {concurrency}: {}", outcome.unwrap_err());
    }

    /// Attacks `paging` (module docs): "The first page is fetched alone. When it says how many
    /// pages there are, the following pages are fetched ahead … and yielded in order, up to
    /// that count" — that count, the first page's.
    ///
    /// The first page says T; every later page says something else (0, 1, T ± 3, u64::MAX,
    /// u64::MAX as a string), each page holding items and the service answering any page: the
    /// stream yields exactly pages 1..=T and requests no page past T.
    #[test]
    fn a_page_count_that_changes_on_later_pages_does_not_move_the_end_set_by_the_first(
        kind in counted_kind(),
        first_total in 1u64..7,
        later in prop::collection::vec(0usize..6, 8),
        concurrency in prop::sample::select(vec![1usize, 2, 4, 16]),
    ) {
        let outcome: Result<(), String> = runtime().block_on(async {
            let stub = StubServer::start().await.expect("stub");
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                let total = if m == 1 {
                    json!(first_total)
                } else {
                    match later[(m as usize) % later.len()] {
                        0 => json!(0),
                        1 => json!(1),
                        2 => json!(first_total + 3),
                        3 => json!(first_total.saturating_sub(3)),
                        4 => json!(u64::MAX),
                        _ => json!(u64::MAX.to_string()),
                    }
                };
                Reply::json(200, page_json(kind, m, Some(total), &ids_of(m, 2)))
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let results = tokio::time::timeout(Duration::from_secs(20), drain(id_stream(kind, &session, &Setup::default())))
                .await
                .map_err(|_| "the stream did not end in 20 s".to_owned())?;
            let (ids, error, _) = split_ids(&results);
            let expected: Vec<u64> = (1..=first_total).flat_map(|m| ids_of(m, 2)).collect();
            if ids != expected || error.is_some() {
                return Err(format!("items {ids:?} then {error:?}; expected {expected:?} and a clean end"));
            }
            check_http_requests(&pages_requested(&stub, kind), 1, first_total, first_total)
        });
        prop_assert!(outcome.is_ok(), "{kind:?}, first count {first_total}, concurrency {concurrency}: {}", outcome.unwrap_err());
    }

    /// Attacks SECURITY.md, "page count and page numbers": "a `u64` (anything else is
    /// `Error::Decode`)" with "`Error::Paging` after the pages before" / `paging`: "ends after
    /// the first error", on a page after the first one, fetched ahead.
    ///
    /// Page k (2 ≤ k ≤ n) has no page count, or `null`, `""`, `-1`, `1.5`: the items of the
    /// pages before k arrive in order, then `Error::Decode` for k, then nothing; the items of
    /// pages after k (answered, with data) are never yielded; no page past k + concurrency − 1
    /// is requested.
    #[test]
    fn a_page_count_missing_or_unreadable_on_a_later_page_fails_after_the_pages_before(
        kind in counted_kind(),
        n in 2u64..6,
        k_seed in any::<u64>(),
        spelling in 0usize..5,
        concurrency in prop::sample::select(vec![1usize, 2, 3, 8]),
    ) {
        let k = 2 + k_seed % (n - 1);
        let outcome: Result<(), String> = runtime().block_on(async {
            let stub = StubServer::start().await.expect("stub");
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                let total = if m == k {
                    match spelling {
                        0 => None,
                        1 => Some(Value::Null),
                        2 => Some(json!("")),
                        3 => Some(json!(-1)),
                        _ => Some(json!(1.5)),
                    }
                } else {
                    Some(json!(n))
                };
                // Pages after k answer first, so they are there when k fails.
                let delay = if m == k { 30 } else { 0 };
                Reply::json(200, page_json(kind, m, total, &ids_of(m, 2))).delay(Duration::from_millis(delay))
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let results = tokio::time::timeout(Duration::from_secs(20), drain(id_stream(kind, &session, &Setup::default())))
                .await
                .map_err(|_| "the stream did not end in 20 s".to_owned())?;
            let (ids, error, after) = split_ids(&results);
            let expected: Vec<u64> = (1..k).flat_map(|m| ids_of(m, 2)).collect();
            if ids != expected {
                return Err(format!("items {ids:?}, expected {expected:?}"));
            }
            if !matches!(error, Some(Error::Decode { .. })) {
                return Err(format!("expected Error::Decode for page {k}, got {error:?}"));
            }
            if after != 0 {
                return Err(format!("{after} results after the error"));
            }
            let may = n.min(k + concurrency as u64 - 1);
            check_http_requests(&pages_requested(&stub, kind), 1, k, may)
        });
        prop_assert!(outcome.is_ok(), "{kind:?}, n {n}, page {k}, spelling {spelling}, concurrency {concurrency}: {}", outcome.unwrap_err());
    }

    /// Attacks `Request::pages`: "When the first page gives the page count, the following pages
    /// are fetched ahead …, up to that count" with a count that leaves nothing to fetch: zero
    /// (as `0`, `"0"`, `0.0`), or below the request's own start page.
    ///
    /// From a start page p, the first page (holding items) says a count below p: the stream
    /// yields that page's items, ends cleanly, and no other page is requested.
    #[test]
    fn a_first_page_whose_count_is_zero_or_below_it_is_the_only_request(
        kind in counted_kind(),
        start in 1u64..50,
        total_seed in any::<u64>(),
        spelling in 0usize..4,
        concurrency in prop::sample::select(vec![1usize, 4, 64]),
    ) {
        let below = total_seed % start; // 0..start
        let total = match spelling {
            0 => json!(below),
            1 => json!(below.to_string()),
            2 => json!(0.0),
            _ => json!(0),
        };
        let outcome: Result<(), String> = runtime().block_on(async {
            let stub = StubServer::start().await.expect("stub");
            let route_total = total.clone();
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                Reply::json(200, page_json(kind, m, Some(route_total.clone()), &ids_of(m, 3)))
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let setup = Setup { start: Some(start), ..Setup::default() };
            let results = tokio::time::timeout(Duration::from_secs(20), drain(id_stream(kind, &session, &setup)))
                .await
                .map_err(|_| "the stream did not end in 20 s".to_owned())?;
            let (ids, error, _) = split_ids(&results);
            if ids != ids_of(start, 3) || error.is_some() {
                return Err(format!("items {ids:?} then {error:?}; expected page {start}'s items and a clean end"));
            }
            let requested = pages_requested(&stub, kind);
            if requested != vec![start] {
                return Err(format!("requested {requested:?}, expected only page {start}"));
            }
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{kind:?}, start {start}, count {total}: {}", outcome.unwrap_err());
    }

    /// Attacks `paging::items` "an error is passed on as it comes (the page stream ends after
    /// it)" together with "yielded in order": an error answer that arrives before the pages in
    /// front of it.
    ///
    /// Over HTTP, page k answers 404 at once while the pages before it (and after it) answer
    /// 20 to 60 ms later: every item of the pages before k, in order, then the 404, then
    /// nothing; no page past k + concurrency − 1 requested.
    #[test]
    fn over_http_an_error_answered_first_still_comes_after_every_page_before_it(
        kind in counted_kind(),
        n in 2u64..6,
        k_seed in any::<u64>(),
        delays in prop::collection::vec(20u64..60, 8),
        concurrency in prop::sample::select(vec![2usize, 3, 5, 16]),
    ) {
        let k = 2 + k_seed % (n - 1);
        let outcome: Result<(), String> = runtime().block_on(async {
            let stub = StubServer::start().await.expect("stub");
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                if m == k {
                    return Reply::json(404, "{}");
                }
                let delay = Duration::from_millis(delays[(m as usize) % delays.len()]);
                Reply::json(200, page_json(kind, m, Some(json!(n)), &ids_of(m, 2))).delay(delay)
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let results = tokio::time::timeout(Duration::from_secs(20), drain(id_stream(kind, &session, &Setup::default())))
                .await
                .map_err(|_| "the stream did not end in 20 s".to_owned())?;
            let (ids, error, after) = split_ids(&results);
            let expected: Vec<u64> = (1..k).flat_map(|m| ids_of(m, 2)).collect();
            if ids != expected {
                return Err(format!("items {ids:?}, expected {expected:?}"));
            }
            if error.and_then(Error::status) != Some(404) || after != 0 {
                return Err(format!("expected page {k}'s 404 and nothing after, got {error:?} and {after} more"));
            }
            let may = n.min(k + concurrency as u64 - 1);
            check_http_requests(&pages_requested(&stub, kind), 1, k, may)
        });
        prop_assert!(outcome.is_ok(), "{kind:?}, n {n}, error page {k}, concurrency {concurrency}: {}", outcome.unwrap_err());
    }

    /// Attacks `Request::pages`: "A service that sends the same items for two pages in a row …
    /// ends the stream with `Error::Paging` after the pages before", and `Error::Paging`'s
    /// `after_page`: "The last page yielded" — page numbers, counted from the request's own
    /// `page(p)`.
    ///
    /// From a start page p (1 to 10^9), page p+r repeats the items of page p+r−1 (r ≥ 1), with
    /// a page count or none (the workview): the items of pages p..p+r−1, then `Error::Paging`
    /// naming the method and `after_page` p+r−1, then nothing.
    #[test]
    fn over_http_a_repeated_page_fails_with_after_page_counted_from_the_requests_own_start(
        kind in any_kind(),
        start in prop_oneof![Just(1u64), 2u64..1_000_000_000],
        n in 2u64..6,
        r_seed in any::<u64>(),
        concurrency in prop::sample::select(vec![1usize, 2, 4]),
    ) {
        let r = 1 + r_seed % (n - 1);
        let last = start + n - 1;
        let outcome: Result<(), String> = runtime().block_on(async {
            let stub = StubServer::start().await.expect("stub");
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                let source = if m == start + r { m - 1 } else { m };
                let ids = if m <= last { ids_of(source, 2) } else { Vec::new() };
                Reply::json(200, page_json(kind, m, Some(json!(last)), &ids))
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let setup = Setup { start: Some(start), ..Setup::default() };
            let results = tokio::time::timeout(Duration::from_secs(20), drain(id_stream(kind, &session, &setup)))
                .await
                .map_err(|_| "the stream did not end in 20 s".to_owned())?;
            let (ids, error, after) = split_ids(&results);
            let expected: Vec<u64> = (start..start + r).flat_map(|m| ids_of(m, 2)).collect();
            if ids != expected {
                return Err(format!("items {ids:?}, expected {expected:?}"));
            }
            let want = start + r - 1;
            match error {
                Some(Error::Paging { after_page, method, .. }) if *after_page == want && method.ends_with(&kind.path()["/api/".len()..]) => {}
                other => return Err(format!("expected Error::Paging after page {want}, got {other:?}")),
            }
            if after != 0 {
                return Err(format!("{after} results after the error"));
            }
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{kind:?}, start {start}, repeat at {}: {}", start + r, outcome.unwrap_err());
    }
}

/// Attacks SECURITY.md, "page count and page numbers": "requests at most `MAX_PAGES`
/// (10,000), at most the page concurrency ahead, nothing allocated by the count … `Error::Paging`
/// after the pages before", with the largest count there is, written as a string (a spelling
/// the row accepts), from a start page other than 1.
///
/// Timesheets from `page(7)`, every page distinct, `totalPages` "18446744073709551615", page
/// concurrency 32: exactly `MAX_PAGES` requests, pages 7..=10,006 each once; every item of
/// them in order; then `Error::Paging` with `after_page` 10,006.
#[test]
fn a_count_of_u64_max_as_a_string_from_page_7_stops_at_exactly_max_pages_naming_the_last() {
    runtime().block_on(async {
        let stub = StubServer::start().await.expect("stub");
        let kind = Kind::Timesheets;
        stub.route(kind.path(), move |request| {
            let m = page_of(request);
            Reply::json(
                200,
                page_json(kind, m, Some(json!(u64::MAX.to_string())), &ids_of(m, 1)),
            )
        });
        let session = session_of(&stub, |b| b.page_concurrency(32));
        let setup = Setup {
            start: Some(7),
            ..Setup::default()
        };
        let results = tokio::time::timeout(
            Duration::from_secs(120),
            drain(id_stream(kind, &session, &setup)),
        )
        .await
        .expect("the stream ends");
        let (ids, error, after) = split_ids(&results);
        let last = 7 + MAX_PAGES - 1;
        assert_eq!(ids.len() as u64, MAX_PAGES, "items yielded");
        assert!(
            ids.iter().copied().eq((7..=last).map(|m| ids_of(m, 1)[0])),
            "items out of order"
        );
        assert!(
            matches!(error, Some(Error::Paging { after_page, .. }) if *after_page == last),
            "expected Error::Paging after page {last}, got {error:?}"
        );
        assert_eq!(after, 0);
        let requested = pages_requested(&stub, kind);
        assert_eq!(requested.len() as u64, MAX_PAGES, "requests made");
        check_requests(&requested, 7, last, last).expect("pages requested");
    });
}

/// Attacks SECURITY.md, "an answer's timing": "every call ends within its deadline", and the
/// manual: "A paged stream's deadline is per page (each page is a call) …, each within the
/// deadline"; the brief's "a stream whose pages each answer just under the deadline
/// completes".
///
/// Five full pages (25 timesheets, the documented cap: about 16 KB each), each answered 50 ms
/// after it is asked for, a per-call deadline of 300 ms, and an app that spends 700 ms on the
/// first item of page 2 before asking for the next (a user reading a page, a slow write): every
/// page's answer was sent far within its deadline, so the stream must complete. At concurrency 1
/// (nothing fetched ahead) and 3 (pages 3 and 4 fetched ahead while the app works).
#[test]
fn pages_fetched_ahead_for_a_slow_consumer_do_not_time_out() {
    runtime().block_on(async {
        for concurrency in [1usize, 3] {
            let stub = StubServer::start().await.expect("stub");
            let kind = Kind::Timesheets;
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                Reply::json(200, page_json(kind, m, Some(json!(5)), &ids_of(m, 25)))
                    .delay(Duration::from_millis(50))
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let setup = Setup {
                rpp: Some(25),
                deadline: Some(Duration::from_millis(300)),
                ..Setup::default()
            };
            let mut stream = id_stream(kind, &session, &setup);
            let mut ids = Vec::new();
            while let Some(item) = stream.next().await {
                match item {
                    Ok(id) => ids.push(id),
                    Err(e) => panic!(
                        "concurrency {concurrency}: after {} items, pages requested {:?}: {e}",
                        ids.len(),
                        pages_requested(&stub, kind)
                    ),
                }
                if ids.len() == 26 {
                    tokio::time::sleep(Duration::from_millis(700)).await;
                }
            }
            let expected: Vec<u64> = (1..=5).flat_map(|m| ids_of(m, 25)).collect();
            assert_eq!(ids, expected, "concurrency {concurrency}");
        }
    });
}

/// Attacks SECURITY.md's "every call ends within its deadline" for streams and `Request::pages`
/// ("or at the first error"): "one page that stalls ends the stream with a timeout after the
/// pages before", with pages after it fetched ahead and answered.
///
/// Six pages at concurrency 4, a deadline of 400 ms per page; page 3 never answers, the others
/// answer at once: the items of pages 1 and 2, then `Error::Timeout` (the deadline) no later
/// than the deadline and slack after the stream began, then nothing; pages 4 to 6 never
/// reach the app; no page past 6 is requested, and nothing more after the error.
#[test]
fn a_stalled_page_among_pages_fetched_ahead_ends_the_stream_with_a_timeout_after_the_pages_before()
{
    runtime().block_on(async {
        let stub = StubServer::start().await.expect("stub");
        let kind = Kind::Timesheets;
        stub.route(kind.path(), move |request| {
            let m = page_of(request);
            let reply = Reply::json(200, page_json(kind, m, Some(json!(6)), &ids_of(m, 2)));
            if m == 3 {
                reply.delay(Duration::from_secs(30))
            } else {
                reply
            }
        });
        let session = session_of(&stub, |b| b.page_concurrency(4));
        let deadline = Duration::from_millis(400);
        let setup = Setup {
            deadline: Some(deadline),
            ..Setup::default()
        };
        let began = Instant::now();
        let mut stream = id_stream(kind, &session, &setup);
        let mut ids = Vec::new();
        let error = loop {
            match tokio::time::timeout(Duration::from_secs(10), stream.next()).await {
                Err(_) => panic!("no result 10 s into the stream (deadline 400 ms): {ids:?}"),
                Ok(None) => panic!("the stream ended without an error: {ids:?}"),
                Ok(Some(Ok(id))) => ids.push(id),
                Ok(Some(Err(e))) => break e,
            }
        };
        let elapsed = began.elapsed();
        assert_eq!(ids, [ids_of(1, 2), ids_of(2, 2)].concat());
        assert!(
            matches!(
                error,
                Error::Timeout {
                    limit: TimeoutLimit::Deadline,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(
            elapsed >= deadline && elapsed < deadline + Duration::from_millis(1_500),
            "the stalled page ended the stream after {elapsed:?} (deadline {deadline:?})"
        );
        let after = tokio::time::timeout(Duration::from_secs(5), stream.next()).await;
        assert!(matches!(after, Ok(None)), "after the error: {after:?}");
        let at_error = stub.requests().len();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            stub.requests().len(),
            at_error,
            "requests after the stream failed"
        );
        check_requests(&pages_requested(&stub, kind), 1, 3, 6).expect("pages requested");
    });
}

/// Attacks `CallOptions` ("a paged stream applies them to each page's call") for the
/// per-attempt `timeout`, and SECURITY.md's per-page deadline claim for that limit.
///
/// A stream whose pages each answer in 120 ms, with a per-attempt timeout of 300 ms and no
/// retry, takes longer than the timeout in all and completes (concurrency 1 and 2). Then page
/// 3 answers in 2 s: the items of pages 1 and 2, then `Error::Timeout` naming the attempt
/// limit, then nothing.
#[test]
fn the_per_attempt_timeout_applies_to_each_page_and_a_slow_page_fails_after_the_pages_before() {
    runtime().block_on(async {
        for concurrency in [1usize, 2] {
            let stub = StubServer::start().await.expect("stub");
            let kind = Kind::StatusReports;
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                Reply::json(200, page_json(kind, m, Some(json!(4)), &ids_of(m, 1)))
                    .delay(Duration::from_millis(120))
            });
            let session = session_of(&stub, |b| b.page_concurrency(concurrency));
            let setup = Setup {
                timeout: Some(Duration::from_millis(300)),
                retry: Some(RetryPolicy::none()),
                ..Setup::default()
            };
            let began = Instant::now();
            let results = drain(id_stream(kind, &session, &setup)).await;
            let (ids, error, _) = split_ids(&results);
            assert!(
                error.is_none(),
                "concurrency {concurrency}, after {:?}: {error:?}",
                began.elapsed()
            );
            assert_eq!(ids, (1..=4).flat_map(|m| ids_of(m, 1)).collect::<Vec<_>>());
        }
        let stub = StubServer::start().await.expect("stub");
        let kind = Kind::StatusReports;
        stub.route(kind.path(), move |request| {
            let m = page_of(request);
            let delay = if m == 3 { 2_000 } else { 20 };
            Reply::json(200, page_json(kind, m, Some(json!(4)), &ids_of(m, 1)))
                .delay(Duration::from_millis(delay))
        });
        let session = session_of(&stub, |b| b.page_concurrency(2));
        let setup = Setup {
            timeout: Some(Duration::from_millis(300)),
            retry: Some(RetryPolicy::none()),
            ..Setup::default()
        };
        let results = drain(id_stream(kind, &session, &setup)).await;
        let (ids, error, after) = split_ids(&results);
        assert_eq!(ids, [ids_of(1, 1), ids_of(2, 1)].concat());
        assert!(
            matches!(
                error,
                Some(Error::Timeout {
                    limit: TimeoutLimit::Attempt,
                    ..
                })
            ),
            "{error:?}"
        );
        assert_eq!(after, 0);
    });
}

/// Attacks the brief's claim from `paging` and `Items` ("no page is requested after the stream
/// ended … beyond what fetching ahead documents") for a stream the app drops part-way, and
/// SECURITY.md's "every call ends within its deadline": a dropped stream's calls end with it.
///
/// Fifty pages at concurrency 2; pages from 3 on answer 503 with `Retry-After: 0` after 100 ms
/// (a call that is still alive retries them). The app reads pages 1 and 2, waits 150 ms on
/// page 3, then drops the stream: nothing reaches the server afterwards.
#[test]
fn dropping_an_item_stream_part_way_stops_every_further_request() {
    runtime().block_on(async {
        let stub = StubServer::start().await.expect("stub");
        let kind = Kind::Timesheets;
        stub.route(kind.path(), move |request| {
            let m = page_of(request);
            if m <= 2 {
                Reply::json(200, page_json(kind, m, Some(json!(50)), &ids_of(m, 2)))
            } else {
                Reply::json(503, "{}")
                    .header("Retry-After", "0")
                    .delay(Duration::from_millis(100))
            }
        });
        let session = session_of(&stub, |b| {
            b.page_concurrency(2).retry(
                RetryPolicy::default()
                    .max_attempts(50)
                    .base_delay(Duration::from_millis(10))
                    .max_delay(Duration::from_millis(20)),
            )
        });
        let mut stream = id_stream(kind, &session, &Setup::default());
        for _ in 0..4 {
            stream.next().await.expect("an item").expect("no error");
        }
        let pending = tokio::time::timeout(Duration::from_millis(150), stream.next()).await;
        assert!(pending.is_err(), "page 3 answered: {pending:?}");
        assert!(
            pages_requested(&stub, kind).contains(&3),
            "page 3 was never requested: the case shows nothing"
        );
        drop(stream);
        tokio::time::sleep(Duration::from_millis(60)).await;
        let at_drop = stub.requests().len();
        tokio::time::sleep(Duration::from_millis(700)).await;
        let later = stub.requests();
        assert_eq!(
            later.len(),
            at_drop,
            "requests after the stream was dropped: {:?}",
            later[at_drop..].iter().map(page_of).collect::<Vec<_>>()
        );
    });
}

/// Attacks `Items::collect_all` ("Every item, in order; the first error instead") when the
/// app gives up on it: dropping the `collect_all` future part-way stops the walk.
///
/// Against the fake: the hourly workroom's 23 timesheets one a page (`rpp(1)`), each answer
/// 80 ms late, concurrency 3; `collect_all` given 300 ms by `tokio::time::timeout`, then
/// dropped: the fake is asked for nothing more afterwards.
#[test]
fn dropping_the_collect_all_future_part_way_stops_further_requests_to_the_fake() {
    runtime().block_on(async {
        let fake = FakeMarketplace::start().await.expect("fake");
        let workroom = fake.world().hourly_workroom();
        let client = fake
            .client_builder()
            .page_concurrency(3)
            .build()
            .expect("client");
        let token = fake
            .session(workroom.client)
            .expect("session")
            .token()
            .clone();
        let session = client.session(token);
        fake.faults().inject(
            Some("/api/pay/getTimesheetsForBid"),
            Fault::Latency(Duration::from_millis(80)),
            1_000,
        );
        let before = fake.requests_served();
        let all = session
            .get_timesheets_for_bid(workroom.bid_id)
            .rpp(1)
            .items()
            .collect_all();
        let cut = tokio::time::timeout(Duration::from_millis(300), all).await;
        assert!(
            cut.is_err(),
            "collect_all finished in 300 ms: {:?}",
            cut.map(|r| r.map(|v| v.len()))
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        let at_drop = fake.requests_served();
        assert!(
            at_drop > before + 1,
            "the walk had not started: the case shows nothing"
        );
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(
            fake.requests_served(),
            at_drop,
            "the fake was asked for more after collect_all was dropped"
        );
    });
}

proptest! {
    #![proptest_config(http_config(6))]

    /// Attacks `Request::pages` ("Every page … in order", each page once) when pages are
    /// retried: the fake answers some requests 503 with `Retry-After: 0` (whichever pages they
    /// fall on) and delays others, at page concurrency 1 to 8: the items are exactly those of a
    /// plain walk, in the same order, each once.
    #[test]
    fn retried_pages_against_the_fake_still_yield_each_item_once_in_order(
        failures in 0usize..4,
        latencies in 0usize..6,
        rpp in 1u64..6,
        concurrency in 1usize..=8,
    ) {
        let outcome: Result<(), String> = runtime().block_on(async {
            let fake = FakeMarketplace::start().await.expect("fake");
            let workroom = fake.world().hourly_workroom();
            let token = fake.session(workroom.client).expect("session").token().clone();
            let plain = fake.client().expect("client").session(token.clone());
            let reference: Vec<u64> = plain
                .get_timesheets_for_bid(workroom.bid_id)
                .rpp(rpp)
                .items()
                .collect_all()
                .await
                .map_err(|e| e.to_string())?
                .into_iter()
                .map(|t| t.id)
                .collect();
            let path = Some("/api/pay/getTimesheetsForBid");
            fake.faults().inject(path, Fault::Latency(Duration::from_millis(40)), latencies);
            fake.faults().inject(path, Fault::Status { status: 503, retry_after: Some(0) }, failures);
            let client = fake
                .client_builder()
                .page_concurrency(concurrency)
                .retry(RetryPolicy::default().base_delay(Duration::from_millis(5)).max_delay(Duration::from_millis(20)))
                .build()
                .expect("client");
            let ids: Vec<u64> = client
                .session(token)
                .get_timesheets_for_bid(workroom.bid_id)
                .rpp(rpp)
                .items()
                .map_ok(|t| t.id)
                .try_collect()
                .await
                .map_err(|e| e.to_string())?;
            if ids != reference {
                return Err(format!("items {ids:?}, a plain walk gives {reference:?}"));
            }
            if reference.len() != workroom.timesheets.len() {
                return Err(format!("{} items, the workroom has {}", reference.len(), workroom.timesheets.len()));
            }
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}

/// Attacks `ClientBuilder::page_concurrency` ("How many pages a paged stream fetches at once")
/// and the `paging` module docs ("at most the page concurrency in flight, nothing allocated
/// from the page count"): the largest concurrency an app can write.
///
/// `page_concurrency(usize::MAX)`: a three-page timesheet list is read whole with three
/// requests, and a workview (no count) one page after the other.
#[test]
fn page_concurrency_usize_max_allocates_nothing_and_requests_only_the_pages_there_are() {
    runtime().block_on(async {
        for kind in [Kind::Timesheets, Kind::Workview] {
            let stub = StubServer::start().await.expect("stub");
            stub.route(kind.path(), move |request| {
                let m = page_of(request);
                let ids = if m <= 3 { ids_of(m, 2) } else { Vec::new() };
                Reply::json(200, page_json(kind, m, Some(json!(3)), &ids))
            });
            let session = session_of(&stub, |b| b.page_concurrency(usize::MAX));
            let results = tokio::time::timeout(
                Duration::from_secs(10),
                drain(id_stream(kind, &session, &Setup::default())),
            )
            .await
            .expect("the stream ends");
            let (ids, error, _) = split_ids(&results);
            assert!(error.is_none(), "{kind:?}: {error:?}");
            assert_eq!(ids, (1..=3).flat_map(|m| ids_of(m, 2)).collect::<Vec<_>>());
            let last = if kind.counted() { 3 } else { 4 };
            check_requests(&pages_requested(&stub, kind), 1, last, last).expect("pages requested");
        }
    });
}

/// Attacks `ClientBuilder::page_concurrency` with 0, which its docs neither refuse nor define
/// (`Walk::concurrency` says "at least 1"), against SECURITY.md's threat model ("The client must
/// not be made to … hang"): a stream at concurrency 0 still reads every page, or fails, within
/// its deadline; it never waits for ever.
#[test]
fn page_concurrency_zero_does_not_hang_a_stream() {
    runtime().block_on(async {
        let stub = StubServer::start().await.expect("stub");
        let kind = Kind::Providers;
        stub.route(kind.path(), move |request| {
            let m = page_of(request);
            Reply::json(200, page_json(kind, m, Some(json!(3)), &ids_of(m, 2)))
        });
        let session = session_of(&stub, |b| {
            b.page_concurrency(0).deadline(Duration::from_secs(2))
        });
        let results = tokio::time::timeout(
            Duration::from_secs(10),
            drain(id_stream(kind, &session, &Setup::default())),
        )
        .await;
        let results = results.unwrap_or_else(|_| {
            panic!(
                "a stream at page concurrency 0 hangs: pages requested {:?}",
                pages_requested(&stub, kind)
            )
        });
        let (ids, error, _) = split_ids(&results);
        assert!(error.is_none(), "{error:?}");
        assert_eq!(ids, (1..=3).flat_map(|m| ids_of(m, 2)).collect::<Vec<_>>());
    });
}

/// Attacks `paging` (module docs) and `Request::pages`/`items`: "A request's streams are the
/// named types `Pages` and `Items`: `Unpin` (`.next()` and `.try_next()` need no pinning) and
/// `Send`".
///
/// At compile time, for each of the four paged methods' `Pages` and `Items`; at run time, a
/// stream is moved into a spawned task (on a multi-threaded runtime) and read there with
/// `.try_next()` unpinned, and a `Pages` read with `.next()`, page numbers and counts as sent.
#[test]
fn the_streams_of_every_paged_method_are_unpin_and_send_and_read_in_a_spawned_task() {
    fn unpin_send<T: Unpin + Send + 'static>(_: &T) {}
    fn check<T: Unpin + Send + 'static>() {}
    check::<Pages<TimesheetList>>();
    check::<Items<Timesheet>>();
    check::<Pages<StatusReportList>>();
    check::<Items<StatusReport>>();
    check::<Pages<ProviderList>>();
    check::<Items<Agent>>();
    check::<Pages<Workview>>();
    check::<Items<ScreenBucket>>();
    runtime().block_on(async {
        let stub = StubServer::start().await.expect("stub");
        let kind = Kind::Timesheets;
        stub.route(kind.path(), move |request| {
            let m = page_of(request);
            Reply::json(200, page_json(kind, m, Some(json!(2)), &ids_of(m, 2)))
        });
        let session = session_of(&stub, |b| b);
        let mut items = session.get_timesheets_for_bid(BID).items();
        unpin_send(&items);
        let task = tokio::spawn(async move {
            let mut ids = Vec::new();
            while let Some(sheet) = items.try_next().await.expect("no error") {
                ids.push(sheet.id);
            }
            ids
        });
        let ids = task.await.expect("task");
        assert_eq!(ids, (1..=2).flat_map(|m| ids_of(m, 2)).collect::<Vec<_>>());
        let mut pages = session.get_timesheets_for_bid(BID).pages();
        let mut seen = Vec::new();
        while let Some(page) = pages.next().await {
            let page = page.expect("no error");
            seen.push((page.page, page.total_pages, page.timesheets.len()));
        }
        assert_eq!(seen, vec![(1, 2, 2), (2, 2, 2)]);
    });
}

/// Added by the lead, after a review of the fix of `pages_fetched_ahead_for_a_slow_consumer_do_
/// not_time_out`: a page's call runs on a task of its own, so a stream that ended in an error
/// but is kept (not dropped, not polled again) must not leave its pages fetched ahead running:
/// page 2 fails after 250 ms while pages 3 to 5, fetched ahead, retry a 503 for seconds.
#[test]
fn a_stream_kept_after_its_error_sends_nothing_more() {
    runtime().block_on(async {
        let stub = StubServer::start().await.expect("stub");
        let kind = Kind::Timesheets;
        stub.route(kind.path(), move |request| {
            let m = page_of(request);
            match m {
                1 => Reply::json(200, page_json(kind, m, Some(json!(50)), &ids_of(m, 2))),
                // Late enough that pages 3 to 5 are asked for, and retrying, when it fails.
                2 => Reply::json(404, "{}").delay(Duration::from_millis(250)),
                _ => Reply::json(503, "{}")
                    .header("Retry-After", "0")
                    .delay(Duration::from_millis(100)),
            }
        });
        let session = session_of(&stub, |b| {
            b.page_concurrency(4).retry(
                RetryPolicy::default()
                    .max_attempts(50)
                    .base_delay(Duration::from_millis(10))
                    .max_delay(Duration::from_millis(20)),
            )
        });
        let mut stream = id_stream(kind, &session, &Setup::default());
        let mut error = None;
        while let Some(item) = stream.next().await {
            if let Err(failed) = item {
                error = Some(failed);
                break;
            }
        }
        assert!(error.is_some(), "page 2's 404 ends the stream");
        assert!(
            pages_requested(&stub, kind).contains(&3),
            "page 3 was never fetched ahead: the case shows nothing"
        );
        tokio::time::sleep(Duration::from_millis(60)).await;
        let at_error = stub.requests().len();
        tokio::time::sleep(Duration::from_millis(700)).await;
        let later = stub.requests();
        assert_eq!(
            later.len(),
            at_error,
            "requests after the stream's error, the stream kept: {:?}",
            later[at_error..].iter().map(page_of).collect::<Vec<_>>()
        );
        drop(stream);
    });
}
