//! Paging with server latency: the client's item stream against the round-trip bound.
//!
//! The service (`support/service.rs`) serves lists of 20, 100 and 400 pages of 25 timesheets
//! (pay/getTimesheetsForBid), every answer 20 ms after the request was read.
//!
//! - `items_<n>_pages`: `session.get_timesheets_for_bid(n).rpp(25).items()` collected, with the
//!   client's default page concurrency (4): the first page alone (the page count is not known
//!   before it), then 4 pages in flight. The bound is the latency times the round trips that
//!   takes, `1 + ceil((n - 1) / 4)`: 6, 26 and 101 round trips, 120 ms, 520 ms and 2,020 ms.
//!   Target: time / bound <= 1.10.
//! - `sequential_20_pages` (baseline of the former target): `.page(p).send()` for p = 1..=20, one
//!   after another; items_20_pages must be at least 3 times faster.
//!
//! After criterion's tables, the stub's own latency as a raw TCP client sees it, and one traced
//! run per list showing where the time beyond the bound goes: when each request was started,
//! when the stub had read it, when its page was decoded and when the stream yielded it (the
//! same walk as `items()`, through `paging::pages` with a fetch that takes the times).

#[path = "support/plot.rs"]
mod plot;
#[path = "ratio.rs"]
mod ratio;
#[path = "support/service.rs"]
mod service;

use std::hint::black_box;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, SamplingMode};
use futures::TryStreamExt;
use marketplace_client::paging::{self, BeyondLast, Walk};
use marketplace_client::{Session, Timesheet};
use ratio::{Row, Target, id};
use service::{PAGE_SIZE, Service};

const LATENCY: Duration = Duration::from_millis(20);
/// The client's default page concurrency (`ClientBuilder::page_concurrency`).
const CONCURRENCY: u64 = 4;
const LISTS: [(u64, &str); 3] = [
    (20, "items_20_pages"),
    (100, "items_100_pages"),
    (400, "items_400_pages"),
];
const GROUP: &str = "paging";

async fn items(session: &Session, pages: u64) -> Vec<Timesheet> {
    session
        .get_timesheets_for_bid(pages)
        .rpp(PAGE_SIZE)
        .items()
        .try_collect()
        .await
        .expect("items")
}

async fn sequential(session: &Session, pages: u64) -> Vec<Timesheet> {
    let mut items = Vec::new();
    for page in 1..=pages {
        let list = session
            .get_timesheets_for_bid(pages)
            .rpp(PAGE_SIZE)
            .page(page)
            .send()
            .await
            .expect("page");
        items.extend(list.timesheets);
    }
    items
}

/// Round trips of a list of `pages` pages: the first page alone, then `CONCURRENCY` at a time.
fn round_trips(pages: u64) -> u64 {
    1 + (pages - 1).div_ceil(CONCURRENCY)
}

fn bound(pages: u64) -> Duration {
    LATENCY * round_trips(pages) as u32
}

/// `docs/benchmarks/paging.svg`: the time of each list against its round trips, with the bound
/// and the page-after-page walk of 20 pages (20 round trips).
fn plot_paging(started: SystemTime) {
    let ms = |ns: f64| ns / 1e6;
    let measured: Vec<(f64, f64)> = LISTS
        .iter()
        .filter_map(|&(pages, name)| {
            let ns = ratio::mean_ns(id(GROUP, name), started)?;
            Some((round_trips(pages) as f64, ms(ns)))
        })
        .collect();
    let bound: Vec<(f64, f64)> = LISTS
        .iter()
        .map(|&(pages, _)| {
            let trips = round_trips(pages);
            (trips as f64, bound(pages).as_secs_f64() * 1e3)
        })
        .collect();
    let sequential: Vec<(f64, f64)> = ratio::mean_ns(id(GROUP, "sequential_20_pages"), started)
        .map(|ns| (20.0, ms(ns)))
        .into_iter()
        .collect();
    let pages = LISTS.map(|(pages, _)| format!("{pages} pages: {}", round_trips(pages)));
    plot::write(&plot::Plot {
        file: "paging.svg",
        title: "Paging: time against round trips (20 ms each, 4 pages in flight)",
        x_label: &format!("round trips ({})", pages.join(", ")),
        y_label: "time (ms, criterion mean)",
        log: true,
        series: &[
            plot::Series {
                name: "items(): 20, 100, 400 pages".to_owned(),
                points: measured,
                dashed: false,
            },
            plot::Series {
                name: "bound: round trips x 20 ms".to_owned(),
                points: bound,
                dashed: true,
            },
            plot::Series {
                name: "page after page, 20 pages (20 round trips)".to_owned(),
                points: sequential,
                dashed: false,
            },
        ],
        legend_right: false,
    });
}

/// The times of one page of a traced walk, from the start of the walk.
#[derive(Clone, Copy, Default)]
struct PageTimes {
    requested: Duration,
    arrived: Duration,
    decoded: Duration,
    yielded: Duration,
}

/// Walks the list of `pages` pages as `items()` does, taking the times of every page.
fn trace(runtime: &tokio::runtime::Runtime, service: &Service, pages: u64) -> Vec<PageTimes> {
    let session = service.session(None);
    let times = Arc::new(Mutex::new(vec![PageTimes::default(); pages as usize]));
    service.take_arrivals();
    let start = Instant::now();
    let walk = Walk {
        method: "pay/getTimesheetsForBid",
        first_page: 1,
        beyond_last: BeyondLast::AboveTotal,
        concurrency: CONCURRENCY as usize,
        max_pages: paging::MAX_PAGES,
    };
    let record = Arc::clone(&times);
    let fetch = move |page: u64| {
        let (session, record) = (session.clone(), Arc::clone(&record));
        async move {
            let requested = start.elapsed();
            let result = session
                .get_timesheets_for_bid(pages)
                .rpp(PAGE_SIZE)
                .page(page)
                .send()
                .await;
            let mut times = record.lock().expect("times");
            let entry = &mut times[page as usize - 1];
            entry.requested = requested;
            entry.decoded = start.elapsed();
            result
        }
    };
    runtime.block_on(async {
        let mut stream = std::pin::pin!(paging::pages(walk, fetch));
        while let Some(page) = stream.try_next().await.expect("page") {
            times.lock().expect("times")[page.page as usize - 1].yielded = start.elapsed();
        }
    });
    let mut times = times.lock().expect("times").clone();
    for (_, page, arrived) in service.take_arrivals() {
        times[page as usize - 1].arrived = arrived - start;
    }
    times
}

/// The stub's own latency, as a client that does nothing else sees it: from a request written
/// (on a connection already open) to the first byte of the answer, with `CONCURRENCY` requests
/// at once as in a round trip of the stream; the mean of 20 such round trips.
fn stub_latency(service: &Service) -> Duration {
    const ROUNDS: u32 = 20;
    let address = service.base_url.trim_start_matches("http://").to_owned();
    let mut total = Duration::ZERO;
    for _ in 0..ROUNDS {
        let requests: Vec<_> = (0..CONCURRENCY)
            .map(|_| {
                let address = address.clone();
                std::thread::spawn(move || {
                    let mut stream = TcpStream::connect(&address).expect("connect");
                    let start = Instant::now();
                    stream
                        .write_all(b"GET /api/pay/getTimesheetsForBid?bidId=20 HTTP/1.1\r\n\r\n")
                        .expect("write");
                    let mut first = [0; 1];
                    stream.read_exact(&mut first).expect("an answer");
                    let latency = start.elapsed();
                    std::io::copy(&mut stream, &mut std::io::sink()).expect("the answer");
                    latency
                })
            })
            .collect();
        for request in requests {
            total += request.join().expect("a request");
        }
    }
    total / (ROUNDS * CONCURRENCY as u32)
}

fn ms(duration: Duration) -> String {
    format!("{:.2}", duration.as_secs_f64() * 1e3)
}

fn print_trace(pages: u64, times: &[PageTimes], stub: Duration) {
    let total = times.iter().map(|t| t.yielded).max().unwrap_or_default();
    let trips = round_trips(pages) as f64;
    let mean = |part: fn(&PageTimes) -> Duration| {
        times.iter().map(part).sum::<Duration>().as_secs_f64() * 1e3 / times.len() as f64
    };
    let out = mean(|t| t.arrived - t.requested);
    let back = mean(|t| t.decoded - t.arrived);
    let per_trip = (total.as_secs_f64() - bound(pages).as_secs_f64()) * 1e3 / trips;
    let stub_late = (stub.as_secs_f64() - LATENCY.as_secs_f64()) * 1e3;
    println!(
        "\ntrace, {pages} pages: {} ms against the bound {} ms ({} round trips x 20 ms), {:.3}; \
         {per_trip:.3} ms more per round trip, of which the stub's own lateness {stub_late:.3} ms \
         and the rest {:.3} ms. Per page, on average: request started -> read by the stub \
         {out:.3} ms; read by the stub -> page decoded {back:.3} ms (the stub's own latency \
         {} ms, then the answer's transfer and decoding)",
        ms(total),
        ms(bound(pages)),
        round_trips(pages),
        total.as_secs_f64() / bound(pages).as_secs_f64(),
        per_trip - stub_late,
        ms(stub),
    );
    if pages <= 20 {
        let mut lines = vec![
            [
                "page",
                "requested",
                "read by the stub",
                "decoded",
                "yielded",
            ]
            .map(str::to_owned),
        ];
        for (index, t) in times.iter().enumerate() {
            lines.push([
                (index + 1).to_string(),
                ms(t.requested),
                ms(t.arrived),
                ms(t.decoded),
                ms(t.yielded),
            ]);
        }
        ratio::print_table(&format!("trace, {pages} pages (ms from the start)"), &lines);
    }
}

fn main() {
    let started = SystemTime::now();
    let runtime = marketplace_tests::runtime();
    let service = Service::start(&LISTS.map(|(pages, _)| pages), Some(LATENCY));
    let session = service.session(None);

    // Every way of walking a list gives its timesheets in order.
    runtime.block_on(async {
        for (pages, _) in LISTS {
            let ids: Vec<u64> = items(&session, pages).await.iter().map(|t| t.id).collect();
            assert!(
                ids.iter().copied().eq(service::expected_ids(pages)),
                "{pages}"
            );
        }
        let ids: Vec<u64> = sequential(&session, 20)
            .await
            .iter()
            .map(|t| t.id)
            .collect();
        assert!(ids.iter().copied().eq(service::expected_ids(20)));
    });

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10)
        .configure_from_args();
    let mut group = c.benchmark_group(GROUP);
    // An iteration takes 0.1-2 s: the same iteration count in every sample.
    group.sampling_mode(SamplingMode::Flat);
    for (pages, name) in LISTS {
        group.bench_function(name, |b| {
            b.iter(|| runtime.block_on(async { black_box(items(&session, pages).await) }));
        });
    }
    group.bench_function("sequential_20_pages", |b| {
        b.iter(|| runtime.block_on(async { black_box(sequential(&session, 20).await) }));
    });
    group.finish();
    c.final_summary();

    let mut lines = vec![
        [
            "list",
            "items() (criterion mean)",
            "bound",
            "time / bound",
            "target",
            "met",
        ]
        .map(str::to_owned),
    ];
    for (pages, name) in LISTS {
        let measured = ratio::mean_ns(id(GROUP, name), started);
        let bound_ns = bound(pages).as_secs_f64() * 1e9;
        let (shown, over, met) = match measured {
            Some(ns) => (
                ratio::show(ns),
                format!("{:.3}", ns / bound_ns),
                if ns / bound_ns <= 1.10 { "yes" } else { "NO" },
            ),
            None => ("not run".to_owned(), "-".to_owned(), "-"),
        };
        lines.push([
            format!("{pages} pages x 25, 20 ms latency"),
            shown,
            format!(
                "{} ({} round trips x 20 ms)",
                ratio::show(bound_ns),
                round_trips(pages)
            ),
            over,
            "<= 1.10".to_owned(),
            met.to_owned(),
        ]);
    }
    ratio::print_table(
        "paging against the round-trip bound (default concurrency 4)",
        &lines,
    );
    if std::env::args().any(|arg| arg == "--bench") {
        plot_paging(started);
    }
    ratio::report(
        "paging, page after page",
        started,
        &[Row {
            name: "20 pages: items() against page after page",
            project: id(GROUP, "items_20_pages"),
            baseline: Some(id(GROUP, "sequential_20_pages")),
            target: Target {
                max_ratio: None,
                min_speedup: Some(3.0),
            },
        }],
    );

    // The traces only when benchmarking (criterion's `--test` mode runs each function once).
    if std::env::args().any(|arg| arg == "--bench") {
        let stub = stub_latency(&service);
        println!(
            "\nthe stub's own latency (a raw TCP client, {CONCURRENCY} requests at once, request \
             written -> first byte of the answer): {} ms",
            ms(stub)
        );
        for (pages, _) in LISTS {
            print_trace(pages, &trace(&runtime, &service, pages), stub);
        }
    }
}
