//! Paged timesheet lists served by the scripted stub (`marketplace_tests::stub::StubServer`) on
//! 127.0.0.1, for the paging and memory benches.
//!
//! The bid id names the list: bid `n` has `n` full pages of [`PAGE_SIZE`] timesheets
//! (pay/getTimesheetsForBid, built from the first timesheet of the fixture, keyed `"0"`..,
//! with ids `1..=25 n` in order and the page totals of each page), and answers a page past the
//! last with no items. The stub runs on a thread of its own, so it shares no runtime with the
//! client (and allocates nothing on the client's thread, which the memory bench counts).
//! Every answer waits the given latency, measured from the moment the request has been read;
//! the stub waits to within about 0.1 ms (see `Reply::delay`). Each arrival is recorded (bid,
//! page, instant) for the paging trace.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::{Client, ConsumerCredentials, Session};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{Reply, StubServer};
use serde_json::{Value, json};

const PATH: &str = "/api/pay/getTimesheetsForBid";
/// Timesheets per page: the method's largest page.
pub const PAGE_SIZE: u64 = 25;

/// When a request reached the stub: (bid, page, instant).
pub type Arrival = (u64, u64, Instant);

/// A running service: the stub's URL and the arrivals it recorded.
pub struct Service {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    arrivals: Arc<Mutex<Vec<Arrival>>>,
}

impl Service {
    /// Serves a list of `pages` pages for each bid in `lists`, each answer after `latency`.
    pub fn start(lists: &[u64], latency: Option<Duration>) -> Service {
        let bytes = fixtures::read("pay/getTimesheetsForBid.json").expect("fixture");
        let fixture: Value = serde_json::from_slice(&bytes).expect("JSON");
        let bodies: Vec<(u64, Vec<String>)> = lists
            .iter()
            .map(|&pages| {
                let bodies = (1..=pages + 1).map(|n| body(&fixture, pages, n)).collect();
                (pages, bodies)
            })
            .collect();
        let arrivals = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&arrivals);
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = marketplace_tests::current_thread_runtime();
            runtime.block_on(async move {
                let stub = StubServer::start().await.expect("stub server");
                stub.route(PATH, move |request| {
                    let arrived = Instant::now();
                    let pairs = request.query_pairs();
                    let number = |name: &str| -> u64 {
                        pairs
                            .iter()
                            .find(|(n, _)| n == name)
                            .map_or(1, |(_, value)| value.parse().expect("a number"))
                    };
                    let (bid, page) = (number("bidId"), number("page"));
                    record.lock().expect("arrivals").push((bid, page, arrived));
                    let (_, pages) = bodies
                        .iter()
                        .find(|(pages, _)| *pages == bid)
                        .expect("a bid the service serves");
                    let index = (page.max(1) - 1).min(pages.len() as u64 - 1);
                    let reply = Reply::json(200, pages[index as usize].as_str());
                    match latency {
                        Some(latency) => reply.delay(latency),
                        None => reply,
                    }
                });
                sender.send(stub.base_url()).expect("the bench waits");
                // Serve until the bench process exits.
                std::future::pending::<()>().await;
            });
        });
        Service {
            base_url: receiver.recv().expect("the stub started"),
            arrivals,
        }
    }

    /// A session of a client of this service, with `concurrency` pages fetched ahead (the
    /// client's default when `None`).
    pub fn session(&self, concurrency: Option<usize>) -> Session {
        let mut builder = Client::builder(
            &self.base_url,
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

    /// Takes the arrivals recorded so far.
    pub fn take_arrivals(&self) -> Vec<Arrival> {
        std::mem::take(&mut *self.arrivals.lock().expect("arrivals"))
    }
}

/// The ids of the timesheets of a list of `pages` pages, in order.
pub fn expected_ids(pages: u64) -> std::ops::RangeInclusive<u64> {
    1..=pages * PAGE_SIZE
}

/// Page `page` (1-based) of the list of `pages` pages; past the last, no items.
fn body(fixture: &Value, pages: u64, page: u64) -> String {
    let mut envelope = fixture.clone();
    let template = envelope["data"]["timesheets"]["0"].clone();
    let first = (page - 1) * PAGE_SIZE;
    let count = if page <= pages { PAGE_SIZE } else { 0 };
    // Keys in index order, as the service writes them (a `serde_json::Map` would sort them as
    // text: "0", "1", "10", ...).
    let items: Vec<String> = (0..count)
        .map(|index| {
            let mut item = template.clone();
            item["id"] = json!(first + index + 1);
            format!("\"{index}\":{item}")
        })
        .collect();
    let data = &mut envelope["data"];
    data["totalResults"] = json!(pages * PAGE_SIZE);
    data["totalPages"] = json!(pages);
    data["page"] = json!(page);
    data["numResults"] = json!(count);
    data["timesheets"] = json!("@timesheets");
    envelope
        .to_string()
        .replace("\"@timesheets\"", &format!("{{{}}}", items.join(",")))
}
