//! Paging with server latency: the client's item stream against fetching page after page.
//!
//! The scripted stub server (`marketplace_tests::stub::StubServer`) on 127.0.0.1 serves a
//! 200-timesheet list of pay/getTimesheetsForBid in 20 pages of 10 (built from the first
//! timesheet of the `pay/getTimesheetsForBid.json` fixture, keyed `"0"`..`"9"`, with the page
//! totals of each page), answering every request after 20 ms.
//!
//! - `project`: `session.get_timesheets_for_bid(310001).rpp(10).items()` collected, with the
//!   client's default page concurrency (the first page alone, then the following pages ahead);
//! - `project_concurrency_8` (for information): the same with `page_concurrency(8)`;
//! - `sequential` (baseline): `.rpp(10).page(n).send()` for n = 1..=20, one after another.
//!
//! Target: sequential / project >= 3 (at least three times faster).

#[path = "ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::{Criterion, SamplingMode};
use futures::TryStreamExt;
use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::{Client, ConsumerCredentials, Session, Timesheet};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};
use ratio::{Row, Target, id};
use serde_json::{Value, json};

const PATH: &str = "/api/pay/getTimesheetsForBid";
const PAGES: usize = 20;
const PAGE_SIZE: usize = 10;
const LATENCY: Duration = Duration::from_millis(20);

/// The body of page `page` (1-based; beyond the last: no items), with keys in index order.
fn page_body(fixture: &Value, template: &Value, page: usize) -> String {
    let start = (page - 1) * PAGE_SIZE;
    let items: Vec<String> = (start..(start + PAGE_SIZE).min(PAGES * PAGE_SIZE))
        .enumerate()
        .map(|(index, position)| {
            let mut item = template.clone();
            item["id"] = json!(1_000 + position);
            format!("\"{index}\":{item}")
        })
        .collect();
    let mut body = fixture.clone();
    let data = &mut body["data"];
    data["totalResults"] = json!(PAGES * PAGE_SIZE);
    data["totalPages"] = json!(PAGES);
    data["page"] = json!(page);
    data["numResults"] = json!(items.len());
    data["timesheets"] = json!("@timesheets");
    body.to_string()
        .replace("\"@timesheets\"", &format!("{{{}}}", items.join(",")))
}

/// Serves the pages (any order, as the stream fetches ahead), each after [`LATENCY`].
fn serve(stub: &StubServer) {
    let bytes = fixtures::read("pay/getTimesheetsForBid.json").expect("fixture");
    let fixture: Value = serde_json::from_slice(&bytes).expect("JSON");
    let template = fixture["data"]["timesheets"]["0"].clone();
    let bodies: Vec<String> = (1..=PAGES + 1)
        .map(|page| page_body(&fixture, &template, page))
        .collect();
    stub.route(PATH, move |request| {
        let page: usize = request
            .query_pairs()
            .iter()
            .find(|(name, _)| name == "page")
            .map_or(1, |(_, value)| value.parse().expect("page number"));
        let body = &bodies[(page.max(1) - 1).min(PAGES)];
        Reply::json(200, body.as_str()).delay(LATENCY)
    });
}

fn session(stub: &StubServer, concurrency: Option<usize>) -> Session {
    let mut builder = Client::builder(
        stub.base_url(),
        ConsumerCredentials::new("bench-consumer-key", "bench-consumer-secret"),
    );
    if let Some(pages) = concurrency {
        builder = builder.page_concurrency(pages);
    }
    let client = builder.build().expect("client");
    client.session(AccessToken::new(
        "bench-access-token",
        "bench-token-secret",
        Timestamp::now(),
    ))
}

async fn stream(session: &Session) -> Vec<Timesheet> {
    session
        .get_timesheets_for_bid(310001)
        .rpp(PAGE_SIZE as u64)
        .items()
        .try_collect()
        .await
        .expect("items")
}

async fn sequential(session: &Session) -> Vec<Timesheet> {
    let mut items = Vec::new();
    for page in 1..=PAGES as u64 {
        let list = session
            .get_timesheets_for_bid(310001)
            .rpp(PAGE_SIZE as u64)
            .page(page)
            .send()
            .await
            .expect("page");
        items.extend(list.timesheets);
    }
    items
}

fn main() {
    let started = SystemTime::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let stub = runtime.block_on(StubServer::start()).expect("stub server");
    serve(&stub);
    let default = session(&stub, None);
    let eight = session(&stub, Some(8));

    // All three give the same 200 timesheets in order.
    runtime.block_on(async {
        let expected: Vec<u64> = (1_000..1_000 + (PAGES * PAGE_SIZE) as u64).collect();
        for items in [
            stream(&default).await,
            stream(&eight).await,
            sequential(&default).await,
        ] {
            assert_eq!(
                items.iter().map(|sheet| sheet.id).collect::<Vec<_>>(),
                expected
            );
        }
    });

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10)
        .configure_from_args();
    let mut group = c.benchmark_group("paging_20_pages");
    // Each iteration takes 0.1-0.5 s: the same iteration count in every sample.
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function("project", |b| {
        b.iter(|| runtime.block_on(async { black_box(stream(&default).await) }));
    });
    group.bench_function("project_concurrency_8", |b| {
        b.iter(|| runtime.block_on(async { black_box(stream(&eight).await) }));
    });
    group.bench_function("sequential", |b| {
        b.iter(|| runtime.block_on(async { black_box(sequential(&default).await) }));
    });
    group.finish();
    c.final_summary();

    let baseline = Some(id("paging_20_pages", "sequential"));
    ratio::report(
        "paging, 20 pages x 20 ms latency",
        started,
        &[
            Row {
                name: "items(), default concurrency",
                project: id("paging_20_pages", "project"),
                baseline,
                target: Target {
                    max_ratio: None,
                    min_speedup: Some(3.0),
                },
            },
            Row {
                name: "items(), page_concurrency(8)",
                project: id("paging_20_pages", "project_concurrency_8"),
                baseline,
                target: Target::default(),
            },
        ],
    );
}
