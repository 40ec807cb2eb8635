//! The client's overhead per call: `pay/getInvoice` calls through the client against the same
//! requests sent with plain reqwest and decoded with plain serde, and the wire recorder's cost.
//!
//! Every side talks to the scripted stub server (`marketplace_tests::stub::StubServer`) on
//! 127.0.0.1, which answers every `GET /api/pay/getInvoice` with the `pay/getInvoice.json`
//! fixture (one connection per request, `Connection: close`, no signature check).
//!
//! - `project`: `session.get_invoice(9003).send()`: argument checks, URL building, a fresh nonce
//!   and HMAC-SHA1 signature, the request with its timeout, retry bookkeeping, a tracing span,
//!   reading the body, cleaning the headers the app sees, decoding it into `InvoiceSummary`;
//! - `app_reqwest` (the baseline): what an app would write instead of the client, each call
//!   signed by oauth1-request (the independent OAuth 1.0a signer: `Builder::get` with a fresh
//!   nonce and timestamp, the query as a `ParameterList`, the URL by `oauth1_request::to_query`),
//!   sent with `reqwest::Client::get`, the body read and decoded with `serde_json::from_slice`
//!   into [`plain::Envelope`], a plain `#[derive(Deserialize)]` struct of `InvoiceSummary`'s
//!   shape (checked once to decode the stub's answer to the same values as the client, and its
//!   signature checked once against the client's signer on the same nonce and timestamp);
//! - `app_with_timeouts` (for information, interleaved only): `app_reqwest` with the client's
//!   default timeouts (reqwest's `connect_timeout(10 s)` and `timeout(30 s)`): what an app that
//!   bounds its calls writes, and pays for (two timer registrations a call);
//! - `plain_reqwest` (the floor, for information): the same request with an `Authorization`
//!   header signed once for all calls, outside the timing, which no real app can do: what is
//!   left of the client's cost beyond it is OAuth itself;
//! - `project_recording`: `project` with the wire recorder on (`ClientBuilder::record`, files
//!   in a temporary directory): each answer cleaned for the hooks, copied and queued on the
//!   call's task, cleaned again and written on the recorder's thread;
//! - `project_hook` (for information, interleaved only): `project` with an empty response hook,
//!   which is what a hook that reads neither headers nor body costs the call (they are cleaned
//!   when a hook first reads them).
//!
//! Targets: project / app_reqwest <= 1.00; project_recording / project <= 1.05.
//!
//! Measured three ways in one run:
//!
//! - criterion's mean of 50 sequential calls, on a 2-worker tokio runtime (each sample a fresh
//!   stub and fresh clients, outside the timed part);
//! - interleaved (when benchmarking), on the [`Rig`]: the client on a current-thread runtime on
//!   the main thread, the stub on a runtime of its own on another thread. Rounds of a batch of
//!   calls of each side, alternating which goes first; the median and quartiles of the rounds'
//!   ratios of wall time, of the calling thread's CPU time (all of the client's work, kernel
//!   included) and of the process's CPU time (the stub's thread and the recorder's writer
//!   included); see [`interleave`]. Each recording batch is followed by `Recorder::flush`:
//!   outside its wall time (the writer works beside the calls, as in an app), inside its
//!   process CPU time (all the writer did for that batch), so nothing of it lands in the other
//!   side's batch. Then the writer's CPU per exchange, measured apart ([`recorder_writer`]);
//! - instructions (when benchmarking, with valgrind): 50 calls of each side on the rig, the
//!   calling thread counted, broken down by phase ([`PHASES`]: callgrind's inclusive count of
//!   the functions of each).
//!
//! `BENCH_CLIENT_CALLS=<side>:<n>` runs n calls of one side on the rig and exits, for a CPU
//! time taken from outside (`/usr/bin/time -v`, `perf record`).

// `count` and the other benches' helpers are not used here.
#[allow(dead_code)]
#[path = "support/callgrind.rs"]
mod callgrind;
#[path = "ratio.rs"]
mod ratio;
#[path = "support/thousands.rs"]
mod thousands;

use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

use callgrind::Functions;
use criterion::{Criterion, SamplingMode};
use jiff::Timestamp;
use marketplace_client::oauth::AccessToken;
use marketplace_client::oauth::signature::{self, OAuthParams, SignatureRequest, SigningKey};
use marketplace_client::recording::{Exchange, Recorder, Rotation, Side};
use marketplace_client::{Client, ConsumerCredentials, InvoiceSummary, Session};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};
use ratio::{Row, Target, id};
use reqwest::header::AUTHORIZATION;
use tokio::runtime::Runtime;

/// Calls per criterion iteration.
const CALLS: usize = 50;
const PATH: &str = "/api/pay/getInvoice";
const CONSUMER_KEY: &str = "bench-consumer-key";
const CONSUMER_SECRET: &str = "bench-consumer-secret";
const TOKEN: &str = "bench-access-token";
const TOKEN_SECRET: &str = "bench-token-secret";
const GROUP: &str = "client_50_calls";
const TRACE_GROUP: &str = "client_trace";
/// The targets of project / app_reqwest and project_recording / project.
const CLIENT_TARGET: f64 = 1.00;
const RECORDING_TARGET: f64 = 1.05;

/// The plain serde baseline: `InvoiceSummary`'s shape in the envelope, each field with the type
/// plain serde gives its wire form (a JSON string stays a `String`, enums are `String`s,
/// amounts `Decimal` through rust_decimal's own `Deserialize`, epoch seconds a `Timestamp`
/// through jiff's own serde module), no decoder of the project's. Every field is decoded; only
/// some are read back (by `check_same_answer`).
#[allow(dead_code)]
mod plain {
    use marketplace_client::Decimal;
    use marketplace_client::jiff::Timestamp;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Envelope {
        pub api: String,
        pub api_version: i64,
        pub rcode: i64,
        pub data: InvoiceSummary,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct InvoiceSummary {
        pub bid_details: Bid,
        pub invoice: Invoice,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Bid {
        pub bid_id: String,
        pub job_id: String,
        pub job_name: String,
        pub user_type: String,
        pub client_user_id: Option<String>,
        pub client_name: String,
        #[serde(rename = "clientImageURL")]
        pub client_image_url: String,
        pub client_country: String,
        pub client_country_code: String,
        pub client_city: Option<String>,
        pub provider_user_id: Option<String>,
        pub provider_name: String,
        #[serde(rename = "providerImageURL")]
        pub provider_image_url: String,
        pub provider_country: String,
        pub provider_country_code: String,
        pub provider_city: String,
        pub phase: String,
        pub status: String,
        pub secondary_status: Option<String>,
        pub is_hourly: bool,
        pub is_sponsored: bool,
        pub is_pre_bid: bool,
        pub bid_amount: Decimal,
        pub hours_per_week: Option<String>,
        pub duration: String,
        #[serde(default, with = "jiff::fmt::serde::timestamp::second::optional")]
        pub submission_date: Option<Timestamp>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Invoice {
        pub id: u64,
        #[serde(with = "jiff::fmt::serde::timestamp::second::required")]
        pub date: Timestamp,
        pub bid_id: u64,
        pub job_id: u64,
        pub client_user_id: u64,
        pub provider_user_id: u64,
        pub client: String,
        pub provider: String,
        #[serde(rename = "type")]
        pub kind: String,
        pub status: String,
        pub amount_billed: Decimal,
        pub amount_paid: Decimal,
        pub amount_outstanding: Decimal,
        pub currency: String,
        pub comments: String,
        pub line_item_count: i64,
        pub payment_ids: Vec<u64>,
    }
}

/// A stub answering every getInvoice request with the fixture.
async fn stub(body: &str) -> StubServer {
    let stub = StubServer::start().await.expect("stub server");
    stub.fallback(PATH, Reply::json(200, body));
    stub
}

/// What the client under test carries besides the call itself.
#[derive(Clone, Copy)]
enum Extra<'a> {
    Nothing,
    /// An empty response hook.
    Hook,
    Recorder(&'a Recorder),
}

fn session(base_url: &str, extra: Extra<'_>) -> Session {
    let mut builder = Client::builder(
        base_url,
        ConsumerCredentials::new(CONSUMER_KEY, CONSUMER_SECRET),
    );
    match extra {
        Extra::Nothing => {}
        Extra::Hook => {
            builder = builder.on_response(|response| {
                black_box(response);
            })
        }
        Extra::Recorder(recorder) => builder = builder.record(recorder.clone()),
    }
    let client = builder.build().expect("client");
    client.session(AccessToken::new(TOKEN, TOKEN_SECRET, Timestamp::now()))
}

/// The URL the client sends, and a valid Authorization header for it (computed once).
fn plain_request(base_url: &str) -> (String, String) {
    let url = format!("{base_url}{PATH}?id={INVOICE}");
    let parsed = url::Url::parse(&url).expect("URL");
    let header = signature::authorization_header(
        &SignatureRequest {
            method: "GET",
            url: &parsed,
            form: &[],
        },
        &OAuthParams {
            consumer_key: CONSUMER_KEY,
            token: Some(TOKEN),
            nonce: "0123456789abcdef0123456789abcdef",
            timestamp: Timestamp::now().as_second(),
            callback: None,
            verifier: None,
            version: Some("1.0"),
        },
        &SigningKey {
            consumer_secret: CONSUMER_SECRET,
            token_secret: TOKEN_SECRET,
        },
    );
    (url, header)
}

/// One call of the baseline: the request with the precomputed header, the body read and
/// decoded into the plain struct.
async fn plain_call(http: &reqwest::Client, url: &str, header: &str) -> plain::Envelope {
    let response = http
        .get(url)
        .header(AUTHORIZATION, header)
        .send()
        .await
        .expect("response");
    assert!(response.status().is_success());
    let body = response.bytes().await.expect("body");
    serde_json::from_slice(&body).expect("the plain struct decodes the answer")
}

/// The invoice every side asks for.
const INVOICE: u64 = 9003;

/// What an app would write instead of the client: its credentials, and the URL of the method
/// without its query.
struct App {
    http: reqwest::Client,
    uri: String,
    token: oauth1_request::Token<&'static str>,
}

impl App {
    fn new(base_url: &str) -> App {
        App::with_http(base_url, plain_client())
    }

    /// The app with the timeouts the client has by default (`ClientBuilder`: 10 s to connect,
    /// 30 s an attempt), which cost each call two timer registrations: what an app that bounds
    /// its calls writes.
    fn with_timeouts(base_url: &str) -> App {
        let http = marketplace_client::http_client_builder()
            .expect("TLS configuration")
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .build()
            .expect("HTTP client");
        App::with_http(base_url, http)
    }

    fn with_http(base_url: &str, http: reqwest::Client) -> App {
        App {
            http,
            uri: format!("{base_url}{PATH}"),
            token: oauth1_request::Token::from_parts(
                CONSUMER_KEY,
                CONSUMER_SECRET,
                TOKEN,
                TOKEN_SECRET,
            ),
        }
    }

    /// The request of one call as oauth1-request makes it: the URL with its query, and the
    /// Authorization header with a fresh nonce and timestamp (`oauth_version="1.0"`, as the
    /// client sends it).
    fn signed(&self, id: u64) -> (String, String) {
        let id = id.to_string();
        let query = oauth1_request::ParameterList::new([("id", id.as_str())]);
        let mut builder =
            oauth1_request::Builder::with_token(self.token, oauth1_request::HMAC_SHA1);
        builder.version(true);
        let authorization = builder.get(&self.uri, &query);
        (
            oauth1_request::to_query(self.uri.clone(), &query),
            authorization,
        )
    }

    /// One call: signed, sent, the body read and decoded into the plain struct.
    async fn call(&self, id: u64) -> plain::Envelope {
        let (url, authorization) = self.signed(id);
        plain_call(&self.http, &url, &authorization).await
    }
}

/// The app's request is the client's: the same URL, and a signature the client's signer
/// computes alike from the nonce and timestamp oauth1-request chose.
fn check_same_request(app: &App, client_request: &RecordedRequest, app_request: &RecordedRequest) {
    assert_eq!(
        (&client_request.path, &client_request.query),
        (&app_request.path, &app_request.query)
    );
    let header = app_request.header("authorization").expect("signed");
    let params: std::collections::HashMap<String, String> =
        signature::parse_authorization_header(header)
            .expect("an OAuth header")
            .into_iter()
            .collect();
    let url = url::Url::parse(&format!(
        "{}?{}",
        app.uri,
        app_request.query.as_deref().unwrap_or("")
    ))
    .expect("URL");
    let ours = signature::authorization_header(
        &SignatureRequest {
            method: "GET",
            url: &url,
            form: &[],
        },
        &OAuthParams {
            consumer_key: &params["oauth_consumer_key"],
            token: Some(&params["oauth_token"]),
            nonce: &params["oauth_nonce"],
            timestamp: params["oauth_timestamp"].parse().expect("a timestamp"),
            callback: None,
            verifier: None,
            version: Some(&params["oauth_version"]),
        },
        &SigningKey {
            consumer_secret: CONSUMER_SECRET,
            token_secret: TOKEN_SECRET,
        },
    );
    // The client's header carries an empty `realm` besides (RFC 5849 3.5.1), unsigned.
    let signed: std::collections::HashMap<String, String> =
        signature::parse_authorization_header(&ours)
            .expect("an OAuth header")
            .into_iter()
            .filter(|(name, _)| name != "realm")
            .collect();
    assert_eq!(signed, params, "oauth1-request and the client sign alike");
    let client_header = client_request.header("authorization").expect("signed");
    let client: std::collections::HashMap<String, String> =
        signature::parse_authorization_header(client_header)
            .expect("an OAuth header")
            .into_iter()
            .collect();
    for name in [
        "oauth_consumer_key",
        "oauth_token",
        "oauth_signature_method",
        "oauth_version",
    ] {
        assert_eq!(client[name], params[name], "{name}");
    }
}

async fn project_call(session: &Session) -> InvoiceSummary {
    session.get_invoice(INVOICE).send().await.expect("call")
}

/// The plain struct decodes the stub's answer to what the client decodes.
fn check_same_answer(plain: &plain::Envelope, ours: &InvoiceSummary) {
    assert_eq!(plain.api, "pay/getBilling");
    assert_eq!((plain.api_version, plain.rcode), (1, 1));
    let (bid, invoice) = (&plain.data.bid_details, &plain.data.invoice);
    let (our_bid, our_invoice) = (&ours.bid_details, &ours.invoice);
    assert_eq!(bid.bid_id, our_bid.bid_id.to_string());
    assert_eq!(bid.job_name, our_bid.job_name);
    assert_eq!(bid.phase, our_bid.phase.to_string());
    assert_eq!(bid.bid_amount, our_bid.bid_amount);
    assert_eq!(bid.is_hourly, our_bid.is_hourly);
    assert_eq!(bid.provider_city, our_bid.provider_city);
    assert_eq!(invoice.id, our_invoice.id);
    assert_eq!(invoice.date, our_invoice.date);
    assert_eq!(invoice.amount_billed, our_invoice.amount_billed);
    assert_eq!(invoice.amount_outstanding, our_invoice.amount_outstanding);
    assert_eq!(invoice.payment_ids, our_invoice.payment_ids);
    assert_eq!(invoice.comments, our_invoice.comments);
    assert_eq!(invoice.line_item_count, our_invoice.line_item_count);
}

/// A CPU clock's reading.
fn cpu(clock: rustix::time::ClockId) -> Duration {
    let time = rustix::time::clock_gettime(clock);
    Duration::new(
        u64::try_from(time.tv_sec).unwrap_or(0),
        u32::try_from(time.tv_nsec).unwrap_or(0),
    )
}

/// The calling thread's CPU time so far.
fn thread_cpu() -> Duration {
    cpu(rustix::time::ClockId::ThreadCPUTime)
}

/// The process's CPU time so far (every thread, finished ones included).
fn process_cpu() -> Duration {
    cpu(rustix::time::ClockId::ProcessCPUTime)
}

/// The load averages of the last 1, 5 and 15 minutes (`/proc/loadavg`), as text.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// The calling thread's context switches so far, voluntary (it waited) and involuntary (it was
/// preempted), from `/proc/thread-self/status` (zeros where there is none).
fn thread_switches() -> [u64; 2] {
    let status = std::fs::read_to_string("/proc/thread-self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0)
    };
    [
        field("voluntary_ctxt_switches:"),
        field("nonvoluntary_ctxt_switches:"),
    ]
}

/// One batch of one side.
#[derive(Clone, Copy)]
struct Batch {
    /// The calls, start to end.
    wall: Duration,
    /// The calling thread's CPU time over the calls: on the rig's current-thread runtime,
    /// everything the client (or the baseline) does.
    thread: Duration,
    /// The process's CPU time over the calls and whatever settles them (the recorder's flush):
    /// the stub's thread and the recorder's writer included.
    process: Duration,
}

/// What an interleaved comparison found.
struct Interleaved {
    rounds: usize,
    batch: usize,
    /// Quartiles of the rounds' ratios (project / baseline): wall, thread CPU, process CPU.
    ratios: [[f64; 3]; 3],
    /// Mean per call of each side, over all rounds: wall, thread CPU, process CPU.
    project: [Duration; 3],
    baseline: [Duration; 3],
}

fn quartiles(mut values: Vec<f64>) -> [f64; 3] {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    [n / 4, n / 2, 3 * n / 4].map(|at| values[at])
}

/// `rounds` rounds of one batch of each side, alternating which goes first (the idea of
/// `support/interleave.rs`, for calls over the network and with CPU times): the load of the
/// machine hardly changes within a round, so the median of the rounds' ratios is steady where
/// criterion's two means, seconds apart, are not.
fn interleave(
    rounds: usize,
    batch_size: usize,
    project: &mut dyn FnMut() -> Batch,
    baseline: &mut dyn FnMut() -> Batch,
) -> Interleaved {
    // One round of each first, unmeasured: allocator, caches, lazy statics.
    project();
    baseline();
    let mut pairs = Vec::with_capacity(rounds);
    for round in 0..rounds {
        pairs.push(if round % 2 == 0 {
            let ours = project();
            (ours, baseline())
        } else {
            let theirs = baseline();
            (project(), theirs)
        });
    }
    let measures: [fn(&Batch) -> Duration; 3] = [|b| b.wall, |b| b.thread, |b| b.process];
    let calls = u32::try_from(rounds * batch_size).unwrap_or(u32::MAX);
    Interleaved {
        rounds,
        batch: batch_size,
        ratios: measures.map(|measure| {
            quartiles(
                pairs
                    .iter()
                    .map(|(p, b)| measure(p).as_secs_f64() / measure(b).as_secs_f64())
                    .collect(),
            )
        }),
        project: measures
            .map(|measure| pairs.iter().map(|(p, _)| measure(p)).sum::<Duration>() / calls),
        baseline: measures
            .map(|measure| pairs.iter().map(|(_, b)| measure(b)).sum::<Duration>() / calls),
    }
}

fn show_quartiles([low, median, high]: [f64; 3]) -> String {
    format!("{median:.3} ({low:.3}-{high:.3})")
}

fn micros(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1e6)
}

fn main() {
    let started = SystemTime::now();
    let body =
        String::from_utf8(fixtures::read("pay/getInvoice.json").expect("fixture")).expect("UTF-8");
    let rig = Rig::new(&body, 0);

    // The instruction counts: a child run under callgrind counts one function and exits.
    rig.functions(callgrind::child);
    // `BENCH_CLIENT_CALLS=<side>:<n>`: n calls of one side on the rig, then exit, for a CPU
    // time taken from outside (`/usr/bin/time -v`; see BENCHMARKS.md).
    if let Ok(wanted) = std::env::var("BENCH_CLIENT_CALLS") {
        rig.calls_only(&wanted);
        return;
    }
    // `BENCH_CLIENT_INTERLEAVED=<runs>`: the interleaved comparisons on the current-thread rig
    // only, `runs` times one after the other, then exit: the figures of the top table, with
    // how much they move from run to run.
    if let Ok(runs) = std::env::var("BENCH_CLIENT_INTERLEAVED") {
        let runs: usize = runs
            .parse()
            .unwrap_or_else(|_| panic!("BENCH_CLIENT_INTERLEAVED={runs}: expected a number"));
        for run in 1..=runs {
            println!("\nrun {run} of {runs}, load average {}", load_average());
            interleaved_table(&[("current-thread", rig.interleaved())]);
        }
        return;
    }

    let runtime = marketplace_tests::runtime();

    // Every side sends the same request and gets the same answer, and the plain struct
    // decodes it to the client's values.
    runtime.block_on(async {
        let stub = stub(&body).await;
        let ours = project_call(&session(&stub.base_url(), Extra::Nothing)).await;
        assert_eq!(ours.invoice.id, INVOICE);
        let app = App::new(&stub.base_url());
        check_same_answer(&app.call(INVOICE).await, &ours);
        let (url, header) = plain_request(&stub.base_url());
        check_same_answer(&plain_call(&plain_client(), &url, &header).await, &ours);
        let requests = stub.requests();
        assert_eq!(requests.len(), 3);
        check_same_request(&app, &requests[0], &requests[1]);
        assert_eq!(requests[0].query, requests[2].query);
    });

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(30)
        .configure_from_args();
    let mut group = c.benchmark_group(GROUP);
    // An iteration takes milliseconds: the same iteration count in every sample.
    group.sampling_mode(SamplingMode::Flat);
    // A fresh folder, removed when dropped.
    let recordings = tempfile::tempdir().expect("a folder for the recordings");
    let recorder =
        Recorder::to_dir(recordings.path(), "bench", Rotation::default()).expect("recorder");
    for (function, extra) in [
        ("project", Extra::Nothing),
        ("project_recording", Extra::Recorder(&recorder)),
    ] {
        group.bench_function(function, |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let stub = stub(&body).await;
                    let session = session(&stub.base_url(), extra);
                    let start = Instant::now();
                    for _ in 0..iters {
                        for _ in 0..CALLS {
                            black_box(project_call(&session).await);
                        }
                    }
                    start.elapsed()
                })
            });
        });
    }
    group.bench_function("app_reqwest", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let stub = stub(&body).await;
                let app = App::new(&stub.base_url());
                let start = Instant::now();
                for _ in 0..iters {
                    for _ in 0..CALLS {
                        black_box(app.call(INVOICE).await);
                    }
                }
                start.elapsed()
            })
        });
    });
    group.bench_function("plain_reqwest", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let stub = stub(&body).await;
                let http = plain_client();
                let (url, header) = plain_request(&stub.base_url());
                let start = Instant::now();
                for _ in 0..iters {
                    for _ in 0..CALLS {
                        black_box(plain_call(&http, &url, &header).await);
                    }
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    c.final_summary();
    let stats = recorder.stats();
    assert!(stats.written > 0 && stats.write_errors == 0, "{stats:?}");
    drop(recorder);
    drop(recordings);

    ratio::report(
        "client overhead, 50 sequential calls",
        started,
        &[
            Row {
                name: "50 x pay/getInvoice (baseline: reqwest + oauth1-request signing each call \
                       + serde decode)",
                project: id(GROUP, "project"),
                baseline: Some(id(GROUP, "app_reqwest")),
                target: Target {
                    max_ratio: Some(CLIENT_TARGET),
                    min_speedup: None,
                },
            },
            Row {
                name: "50 x pay/getInvoice (floor: reqwest signed once for all calls + serde \
                       decode)",
                project: id(GROUP, "project"),
                baseline: Some(id(GROUP, "plain_reqwest")),
                target: Target::default(),
            },
            Row {
                name: "50 x pay/getInvoice, recording the wire",
                project: id(GROUP, "project_recording"),
                baseline: Some(id(GROUP, "project")),
                target: Target {
                    max_ratio: Some(RECORDING_TARGET),
                    min_speedup: None,
                },
            },
        ],
    );

    // The slower figures only when benchmarking (criterion's `--test` mode runs each function
    // once, as a check).
    if std::env::args().any(|arg| arg == "--bench") {
        // The same comparisons on a 2-worker runtime (criterion's, and tokio's default on
        // this machine): hyper's connection tasks run on the workers, beside the calling
        // thread, so the calling thread's CPU is not all of the client's work there.
        let multi_thread = Rig::new(&body, 2);
        interleaved_table(&[
            ("current-thread", rig.interleaved()),
            ("2 workers", multi_thread.interleaved()),
        ]);
        recorder_writer(&body);
        rig.instructions_tables();
    }
}

/// Prints the interleaved comparisons of each rig (by its runtime).
fn interleaved_table(rigs: &[(&str, [Interleaved; 5])]) {
    let met = |[_, median, _]: [f64; 3], target: f64| if median <= target { "yes" } else { "NO" };
    let mut lines = vec![
        [
            "comparison",
            "client runtime",
            "rounds x calls",
            "wall ratio, median (quartiles)",
            "calling thread's CPU ratio",
            "process CPU ratio",
            "per call, project: wall / thread CPU / process CPU (µs)",
            "baseline (µs)",
            "target",
            "met (wall / thread / process)",
        ]
        .map(str::to_owned),
    ];
    let names = [
        (
            "client / app (reqwest + oauth1-request each call + serde)",
            Some(CLIENT_TARGET),
        ),
        (
            "client / app with the client's timeouts (10 s connect, 30 s attempt; for information)",
            None,
        ),
        (
            "client / floor (reqwest signed once + serde; for information)",
            None,
        ),
        ("recording / not", Some(RECORDING_TARGET)),
        ("empty response hook / none (for information)", None),
    ];
    for (index, (name, target)) in names.into_iter().enumerate() {
        for (runtime, found) in rigs {
            let found = &found[index];
            // On worker threads the calling thread does only part of the client's work.
            let current = *runtime == "current-thread";
            let thread = |text: String| if current { text } else { "-".to_owned() };
            let per_call = |times: &[Duration; 3]| {
                let [wall, cpu, process] = times.map(micros);
                format!("{wall} / {} / {process}", thread(cpu))
            };
            lines.push([
                name.to_owned(),
                (*runtime).to_owned(),
                format!("{} x {}", found.rounds, found.batch),
                show_quartiles(found.ratios[0]),
                thread(show_quartiles(found.ratios[1])),
                show_quartiles(found.ratios[2]),
                per_call(&found.project),
                per_call(&found.baseline),
                target.map_or_else(|| "-".to_owned(), |t| format!("<= {t:.2}")),
                target.map_or_else(
                    || "-".to_owned(),
                    |t| {
                        [0, 1, 2]
                            .map(|at| match at {
                                1 if !current => "-",
                                _ => met(found.ratios[at], t),
                            })
                            .join(" / ")
                    },
                ),
            ]);
        }
    }
    ratio::print_table(
        "interleaved, the stub on its own thread (wall: the calls; thread: the calling thread's \
         CPU, on a current-thread runtime all of the client's work; process: every thread, the \
         stub's and the recorder's writer included, the recorder flushed after each of its \
         batches)",
        &lines,
    );
}

/// The recorder's writer per exchange, on one thread: what `write_loop` does with each queued
/// exchange of this bench (the answer cleaned by structure, the line serialized), timed apart
/// from the calls.
fn recorder_writer(body: &str) {
    let exchange = Exchange::new(Side::Client, "pay/getInvoice", 200)
        .with_body(body.as_bytes())
        .with_headers([
            ("content-type", b"application/json".as_slice()),
            ("content-length", b"1434".as_slice()),
            ("connection", b"close".as_slice()),
        ]);
    let rounds: u32 = 2000;
    let before = thread_cpu();
    for _ in 0..rounds {
        let mut line = black_box(exchange.clone()).redacted().to_line();
        line.push('\n');
        black_box(line);
    }
    let spent = thread_cpu() - before;
    println!(
        "\nrecorder's writer, per exchange of this bench ({} bytes of body): {:.1} µs of CPU \
         (the thread's CPU time over {rounds} exchanges cleaned and serialized)",
        body.len(),
        (spent / rounds).as_secs_f64() * 1e6
    );
}

/// The client under test on a current-thread runtime on the main thread, the stub on a
/// runtime of its own on another thread: everything the client (or the baseline) does runs on
/// the calling thread, whose CPU time and instructions are then the client's alone. The
/// interleaved figures and the instruction counts are taken on it.
struct Rig {
    runtime: Runtime,
    project: Session,
    hook: Session,
    recording: Session,
    http: reqwest::Client,
    request: (String, String),
    app: App,
    app_with_timeouts: App,
    recorder: Recorder,
    /// The recorder's fresh folder, removed with the rig.
    _recordings: tempfile::TempDir,
    /// Kept alive: the stub serves as long as both are.
    _stub: (StubServer, Runtime),
}

/// Calls per counted run.
const TRACED_CALLS: usize = 50;

impl Rig {
    /// A rig whose client runs on a current-thread runtime (`workers` 0), or on a runtime of
    /// `workers` worker threads (the calls then start from the main thread, `block_on`).
    fn new(body: &str, workers: usize) -> Rig {
        let stub_runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("stub runtime");
        let stub = stub_runtime.block_on(stub(body));
        let runtime = match workers {
            0 => tokio::runtime::Builder::new_current_thread(),
            _ => {
                let mut builder = tokio::runtime::Builder::new_multi_thread();
                builder.worker_threads(workers);
                builder
            }
        }
        .enable_all()
        .build()
        .expect("tokio runtime");
        let base_url = stub.base_url();
        let recordings = tempfile::tempdir().expect("a folder for the recordings");
        // A run under callgrind counts the calling thread only (not the writer's), and exits
        // without cleaning up: it records into nothing.
        let recorder = if std::env::var_os("BENCH_COUNT_INSTRUCTIONS").is_some() {
            Recorder::to_writer(std::io::sink())
        } else {
            Recorder::to_dir(recordings.path(), "bench", Rotation::default()).expect("recorder")
        };
        Rig {
            project: session(&base_url, Extra::Nothing),
            hook: session(&base_url, Extra::Hook),
            recording: session(&base_url, Extra::Recorder(&recorder)),
            http: plain_client(),
            request: plain_request(&base_url),
            app: App::new(&base_url),
            app_with_timeouts: App::with_timeouts(&base_url),
            recorder,
            _recordings: recordings,
            runtime,
            _stub: (stub, stub_runtime),
        }
    }

    /// `calls` calls of the client.
    async fn project_calls(session: &Session, calls: usize) {
        for _ in 0..calls {
            black_box(project_call(session).await);
        }
    }

    /// `calls` calls of the baseline.
    async fn plain_calls(&self, calls: usize) {
        let (url, header) = &self.request;
        for _ in 0..calls {
            black_box(plain_call(&self.http, url, header).await);
        }
    }

    /// `calls` calls of what an app would write instead (oauth1-request signing each).
    async fn app_calls(app: &App, calls: usize) {
        for _ in 0..calls {
            black_box(app.call(INVOICE).await);
        }
    }

    /// Runs `calls`, then `settle` (outside the wall time, inside the process's CPU time).
    fn batch<F: Future<Output = ()>>(&self, calls: F, settle: impl FnOnce()) -> Batch {
        let process = process_cpu();
        let thread = thread_cpu();
        let start = Instant::now();
        self.runtime.block_on(calls);
        let wall = start.elapsed();
        let thread = thread_cpu() - thread;
        settle();
        Batch {
            wall,
            thread,
            process: process_cpu() - process,
        }
    }

    /// The interleaved comparisons: the client against what an app would write instead and
    /// against the signed-once floor, recording on against off, and an empty response hook
    /// against none (what any hook costs the call).
    fn interleaved(&self) -> [Interleaved; 5] {
        let (rounds, size) = (200, 25);
        let client = interleave(
            rounds,
            size,
            &mut || self.batch(Self::project_calls(&self.project, size), || {}),
            &mut || self.batch(Self::app_calls(&self.app, size), || {}),
        );
        let app_with_timeouts = interleave(
            rounds,
            size,
            &mut || self.batch(Self::project_calls(&self.project, size), || {}),
            &mut || self.batch(Self::app_calls(&self.app_with_timeouts, size), || {}),
        );
        let floor = interleave(
            rounds,
            size,
            &mut || self.batch(Self::project_calls(&self.project, size), || {}),
            &mut || self.batch(self.plain_calls(size), || {}),
        );
        // Batches of 50 calls, several of the writer's 10 ms windows: the writer works beside
        // the calls as it would in an app, and what is left is flushed after the batch.
        let (rounds, size) = (100, 50);
        let flush = || self.recorder.flush().expect("recorder flush");
        let recording = interleave(
            rounds,
            size,
            &mut || self.batch(Self::project_calls(&self.recording, size), flush),
            &mut || self.batch(Self::project_calls(&self.project, size), || {}),
        );
        let hook = interleave(
            rounds,
            size,
            &mut || self.batch(Self::project_calls(&self.hook, size), || {}),
            &mut || self.batch(Self::project_calls(&self.project, size), || {}),
        );

        let stats = self.recorder.stats();
        assert!(stats.written > 0 && stats.write_errors == 0, "{stats:?}");
        [client, app_with_timeouts, floor, recording, hook]
    }

    /// `<side>:<n>`: n calls of the side (`project`, `project_hook`, `project_recording`,
    /// `app_reqwest`, `plain_reqwest`), after 50 to warm up; the recorder is flushed at the end.
    fn calls_only(&self, wanted: &str) {
        let (side, calls) = wanted
            .split_once(':')
            .and_then(|(side, n)| Some((side, n.parse::<usize>().ok()?)))
            .unwrap_or_else(|| panic!("BENCH_CLIENT_CALLS={wanted}: expected <side>:<calls>"));
        let session = match side {
            "project" => Some(&self.project),
            "project_hook" => Some(&self.hook),
            "project_recording" => Some(&self.recording),
            "app_reqwest" | "plain_reqwest" => None,
            _ => panic!("BENCH_CLIENT_CALLS: no side {side}"),
        };
        for calls in [50, calls] {
            let switches = thread_switches();
            let before = (Instant::now(), thread_cpu(), process_cpu());
            match session {
                Some(session) => self.runtime.block_on(Self::project_calls(session, calls)),
                None if side == "app_reqwest" => {
                    self.runtime.block_on(Self::app_calls(&self.app, calls))
                }
                None => self.runtime.block_on(self.plain_calls(calls)),
            }
            self.recorder.flush().expect("recorder flush");
            let per_call = |spent: Duration| micros(spent / u32::try_from(calls).unwrap_or(1));
            let (thread, process) = (thread_cpu() - before.1, process_cpu() - before.2);
            let [voluntary, involuntary] =
                [0, 1].map(|at| (thread_switches()[at] - switches[at]) as f64 / calls as f64);
            println!(
                "{side}: {calls} calls, per call: wall {} µs, calling thread CPU {} µs, process \
                 CPU {} µs; the calling thread's context switches: {voluntary:.2} voluntary, \
                 {involuntary:.2} involuntary",
                per_call(before.0.elapsed()),
                per_call(thread),
                per_call(process)
            );
        }
    }

    /// The counted functions, handed to `with`.
    fn functions(&self, with: impl FnOnce(&Functions<'_>)) {
        let mut functions = Functions::new();
        let sessions = [
            ("project", &self.project),
            ("project_hook", &self.hook),
            ("project_recording", &self.recording),
        ];
        for (name, session) in sessions {
            functions.add(id(TRACE_GROUP, name), move || {
                self.runtime
                    .block_on(Self::project_calls(session, TRACED_CALLS));
            });
        }
        functions.add(id(TRACE_GROUP, "app_reqwest"), || {
            self.runtime
                .block_on(Self::app_calls(&self.app, TRACED_CALLS));
        });
        functions.add(id(TRACE_GROUP, "plain_reqwest"), || {
            self.runtime.block_on(self.plain_calls(TRACED_CALLS));
        });
        with(&functions);
    }

    /// Counts each side's calls under callgrind and prints the instructions per call, and by
    /// phase.
    fn instructions_tables(&self) {
        let names = [
            "app_reqwest",
            "plain_reqwest",
            "project",
            "project_hook",
            "project_recording",
        ];
        let profiles: Vec<_> = names
            .iter()
            .map(|name| callgrind::profile(id(TRACE_GROUP, name)))
            .collect();
        let Some(app) = profiles[0].as_ref() else {
            println!("\ninstructions per call: no valgrind");
            return;
        };
        let per_call = |count: u64| thousands::thousands(count / TRACED_CALLS as u64);
        let mut lines = vec![
            [
                "what (the calling thread)",
                "instructions per call",
                "/ app_reqwest",
            ]
            .map(str::to_owned),
        ];
        for (name, profile) in names.iter().zip(&profiles) {
            let profile = profile.as_ref().expect("profiled");
            lines.push([
                (*name).to_owned(),
                per_call(profile.total),
                format!("{:.3}", profile.total as f64 / app.total as f64),
            ]);
        }
        ratio::print_table(
            &format!(
                "instructions, {TRACED_CALLS} calls on the rig's current-thread runtime \
                 (callgrind; the stub's thread and the recorder's writer not counted)"
            ),
            &lines,
        );
        let mut phases = vec![
            [
                "phase (inclusive)",
                "app_reqwest",
                "plain_reqwest",
                "project",
                "project_hook",
                "project_recording",
            ]
            .map(str::to_owned),
        ];
        for (phase, patterns) in PHASES {
            let mut line = [const { String::new() }; 6];
            line[0] = (*phase).to_owned();
            for (cell, profile) in line[1..].iter_mut().zip(&profiles) {
                let profile = profile.as_ref().expect("profiled");
                *cell = per_call(profile.inclusive(patterns));
            }
            phases.push(line);
        }
        ratio::print_table(
            "instructions per call by phase (callgrind's inclusive count of the functions named \
             in PHASES, client.rs; phases nest)",
            &phases,
        );
    }
}

/// The phases of a call, each as the functions whose inclusive cost it is (a function name
/// contains one of the patterns; the largest match counts, so a phase nested in itself is not
/// counted twice).
const PHASES: &[(&str, &[&str])] = &[
    (
        "whole call (project_call / App::call / plain_call)",
        &[
            "client::project_call::{{closure}}",
            "client::App::call::{{closure}}",
            "client::plain_call::{{closure}}",
        ],
    ),
    (
        "signing: oauth1-request (nonce, timestamp, header; the URL's query)",
        &["client::App::signed"],
    ),
    (
        "one attempt (Transport::attempt, in its span and timeout)",
        &["<tracing::instrument::Instrumented<T> as core::future::future::Future>::poll"],
    ),
    (
        "signing: Transport::authorization (nonce, header, signature read back)",
        &["marketplace_client::transport::Transport::authorization"],
    ),
    (
        "  of which authorization_header",
        &["marketplace_client::oauth::signature::authorization_header"],
    ),
    (
        "request building: the query checked (DataMethod::query)",
        &["as marketplace_client::request::DataMethod>::query"],
    ),
    (
        "request building: the URL (Transport::url)",
        &["marketplace_client::transport::Transport::url"],
    ),
    (
        "the scrubber made (Scrubber::remembering)",
        &["marketplace_client::scrub::Scrubber::remembering"],
    ),
    (
        "headers cleaned (Scrubber::headers: for the app's metadata, and for hooks)",
        &["marketplace_client::scrub::Scrubber::headers"],
    ),
    (
        "body cleaned for the hooks (transport::Response::read)",
        &["marketplace_client::transport::Response::read"],
    ),
    (
        "  of which the call's automaton built (SecretSet::build)",
        &["marketplace_client::scrub::known::SecretSet::build"],
    ),
    (
        "recorder on the call: Exchange::from_response (copy, queue)",
        &["marketplace_client::recording::Exchange::from_response"],
    ),
    (
        "reqwest: RequestBuilder::send",
        &["reqwest::async_impl::request::RequestBuilder::send"],
    ),
    (
        "reqwest: the pending request (connect, write, read the head)",
        &["<reqwest::async_impl::client::Pending as core::future::future::Future>::poll"],
    ),
    (
        "decode (marketplace_client::decode / serde_json::from_slice)",
        &[
            "marketplace_client::envelope::decode",
            "serde_json::de::from_slice",
        ],
    ),
    (
        "timers (tokio::time::timeout's delay)",
        &["tokio::time::timeout::poll_delay"],
    ),
];

/// A reqwest client with the TLS of this build: reqwest's own `Client::new()` would look for a
/// process-wide rustls provider (see `marketplace_client::http_client_builder`).
fn plain_client() -> reqwest::Client {
    marketplace_client::http_client_builder()
        .expect("TLS configuration")
        .build()
        .expect("HTTP client")
}
