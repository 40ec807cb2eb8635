//! Red team 8: the deadline of every public future that talks to a server or waits.
//!
//! The claim attacked (SECURITY.md, "Inputs", the row "an answer's timing (stalls,
//! `Retry-After` storms) and its cost"): **every call ends within its deadline, the CPU work
//! on what it read included**; README: "every call ends within its deadline".
//!
//! The futures: `Client::request_token`, `Client::access_token`, `Session::revoke`,
//! `Request::send`, `Request::send_with_metadata`, the paged streams `pages()` / `items()`
//! (read item by item, and through `collect_all`), `FakeMarketplace::sign_in` (which an app's
//! test awaits with a client it configured), dropping a stalled stream (no request after it),
//! and what waits for the CPU work on what a call read: `Recorder::flush` and closing a
//! recorder (dropping its last clone or the client holding it), and the cleaning a deadline
//! cuts (no CPU spent after it).
//!
//! The phases a hostile loopback server stalls in: never accepting, accepting but never
//! reading, reading the request but never answering, the status line then nothing, headers
//! trickled a byte at a time, a `Content-Length` body trickled, a chunked body that never ends,
//! a body shorter than its `Content-Length` with the connection held open, a 429/503 with
//! `Retry-After: 0` on every request; over TLS: a handshake never answered, never read,
//! trickled a byte at a time through a relay, and the fake's own latency and storm faults.
//!
//! The per-call options generated: the deadline (300–800 ms) on the builder or only per call,
//! the attempt timeout unset (30 s default), below or above the deadline, on the builder or
//! only per call, the retry policy (the client's, none, or thousands of attempts without
//! backoff), the connect timeout, the page concurrency, and "noise" (the builder set to 20 s
//! where the call sets its own, so a call that ignored its option would be caught).
//!
//! **Slack.** The docs state none. `SLACK` = 300 ms: the client's timers are tokio's (1 ms
//! ticks) and the last cleaning of an error is bounded by the same deadline, so anything past
//! the deadline is scheduling on a shared, loaded 2-core machine; 300 ms stays below half of
//! the smallest deadline generated, so a deadline restarted per attempt, per page or per
//! retry, or a fallback to a default (30 s, 60 s), cannot hide inside it (observed: every call
//! of the generators ends within about 65 ms of its deadline, under the load of this file). A
//! hang is caught by an outer `tokio::time::timeout` of ten times the deadline (at least 3 s),
//! which FAILS.

use marketplace_tests::runtime;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use marketplace_client::jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, RequestToken, Verifier};
use marketplace_client::recording::Recorder;
use marketplace_client::{
    CallOptions, Client, ClientBuilder, ConsumerCredentials, Error, RetryPolicy, Secret, Session,
    TryStreamExt,
};
use marketplace_fake::world::World;
use marketplace_fake::{FakeError, FakeMarketplace, Fault};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What a call may take past its deadline (see the module docs for why 300 ms).
const SLACK: Duration = Duration::from_millis(300);
/// What a builder is set to where the call sets its own limit ("noise"): a call that ignored
/// its own option would run into this, far past the bound.
const NOISE: Duration = Duration::from_secs(20);
/// How long a stalling server holds a connection: far past any bound of this file.
const HOLD: Duration = Duration::from_secs(120);
/// The pause between two bytes of a trickle.
const TRICKLE: Duration = Duration::from_millis(10);

const CONSUMER_KEY: &str = "rt8-consumer-key";
const CONSUMER_SECRET: &str = "rt8-consumer-secret-0123456789";

// ---------------------------------------------------------------------------------------------
// The hostile server (raw TCP on 127.0.0.1, port 0).
// ---------------------------------------------------------------------------------------------

/// The phase a hostile plain-HTTP server stalls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stall {
    /// The listener is bound but `accept` is never called (the kernel completes the TCP
    /// handshake into the backlog).
    NeverAccept,
    /// Accepted, never read.
    NeverRead,
    /// The request read whole, nothing answered.
    NoAnswer,
    /// `HTTP/1.1 200 OK\r\n`, then nothing.
    StatusLine,
    /// The status line, then one header whose value trickles a byte every 10 ms, forever.
    HeadersTrickled,
    /// A complete head with `Content-Length: 1000000`, then a byte every 10 ms.
    BodyTrickled,
    /// `Transfer-Encoding: chunked`, then a one-byte chunk every 10 ms, forever.
    ChunkedForever,
    /// A complete head, half of the `Content-Length` body, then the connection held open.
    ShortBodyHeld,
    /// This status with `Retry-After: 0` on every request, at once.
    Storm(u16),
}

impl Stall {
    /// Whether the phase is a stall (the call must end in `Error::Timeout`) rather than an
    /// answer (a storm may also end with the service's answer).
    fn is_stall(self) -> bool {
        !matches!(self, Stall::Storm(_))
    }
}

/// Every phase of the plain-HTTP server, the storm's status chosen by the generator.
fn plain_stalls(storm: u16) -> Vec<Stall> {
    vec![
        Stall::NeverAccept,
        Stall::NeverRead,
        Stall::NoAnswer,
        Stall::StatusLine,
        Stall::HeadersTrickled,
        Stall::BodyTrickled,
        Stall::ChunkedForever,
        Stall::ShortBodyHeld,
        Stall::Storm(storm),
    ]
}

/// Answers the requests that are not to stall: `Some((status, body))` for a good answer.
type Serve = Arc<dyn Fn(&str, &[(String, String)]) -> Option<(u16, String)> + Send + Sync>;

/// A running hostile server and what it saw.
struct Hostile {
    base: String,
    /// Connections accepted.
    accepted: Arc<AtomicUsize>,
    /// Requests that got the stall (or the storm).
    stalled: Arc<AtomicUsize>,
    /// When the last good answer was written whole.
    last_good: Arc<Mutex<Option<Instant>>>,
}

fn serve_nothing() -> Serve {
    Arc::new(|_: &str, _: &[(String, String)]| None)
}

/// Starts a hostile server. Every request gets `serve`'s answer when it has one, else the
/// stall. The phases that cannot see the request (`NeverAccept`, `NeverRead`) read and answer
/// connections one at a time until `good_answers` good answers are written, and stall every
/// connection after (a connection the client closed unsent, after an attempt timed out in the
/// backlog of a loaded machine, does not count).
async fn hostile(stall: Stall, good_answers: usize, serve: Serve) -> Hostile {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let base = format!("http://{}", listener.local_addr().expect("local address"));
    let accepted = Arc::new(AtomicUsize::new(0));
    let stalled = Arc::new(AtomicUsize::new(0));
    let last_good = Arc::new(Mutex::new(None));
    let server = Hostile {
        base,
        accepted: accepted.clone(),
        stalled: stalled.clone(),
        last_good: last_good.clone(),
    };
    let blind = matches!(stall, Stall::NeverAccept | Stall::NeverRead);
    tokio::spawn(async move {
        let mut served = 0usize;
        loop {
            if stall == Stall::NeverAccept && served >= good_answers {
                // Keep the listener bound, never accept again.
                let _listener = listener;
                std::future::pending::<()>().await;
                return;
            }
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            accepted.fetch_add(1, Ordering::SeqCst);
            let (serve, stalled, last_good) = (serve.clone(), stalled.clone(), last_good.clone());
            if blind && served < good_answers {
                // Inline, so that no later connection is accepted before this one is answered.
                match answer_if_good(socket, &serve, &last_good).await {
                    Answer::Good => served += 1,
                    Answer::Closed => {}
                    Answer::ToStall(socket) => {
                        stalled.fetch_add(1, Ordering::SeqCst);
                        tokio::spawn(hold(socket));
                    }
                }
                continue;
            }
            let read = !blind;
            tokio::spawn(async move {
                connection(socket, stall, read, serve, stalled, last_good).await;
            });
        }
    });
    server
}

/// What became of a connection read by `answer_if_good`.
enum Answer {
    /// `serve`'s good answer was written.
    Good,
    /// The client closed it before a whole request.
    Closed,
    /// A request to stall.
    ToStall(TcpStream),
}

/// Reads a request and writes `serve`'s good answer to it, if it has one.
async fn answer_if_good(
    mut socket: TcpStream,
    serve: &Serve,
    last_good: &Arc<Mutex<Option<Instant>>>,
) -> Answer {
    let Some((path, params)) = read_request(&mut socket).await else {
        return Answer::Closed;
    };
    let (status, body) = match serve(&path, &params) {
        Some(answer) => answer,
        None => return Answer::ToStall(socket),
    };
    let head = format!(
        "HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = socket.write_all(head.as_bytes()).await;
    let _ = socket.write_all(body.as_bytes()).await;
    let _ = socket.flush().await;
    *last_good.lock().expect("lock") = Some(Instant::now());
    let _ = socket.shutdown().await;
    Answer::Good
}

/// Reads one request head (and its `Content-Length` body): the path and the query pairs.
async fn read_request(socket: &mut TcpStream) -> Option<(String, Vec<(String, String)>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buffer.len() > 256 * 1024 {
            return None;
        }
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut have = buffer.len() - head_end;
    while have < length {
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            break;
        }
        have += read;
    }
    let target = head.lines().next()?.split(' ').nth(1)?.to_string();
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path.to_string(), query.to_string()),
        None => (target, String::new()),
    };
    let pairs = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => (name.to_string(), value.to_string()),
            None => (pair.to_string(), String::new()),
        })
        .collect();
    Some((path, pairs))
}

async fn hold(socket: TcpStream) {
    tokio::time::sleep(HOLD).await;
    drop(socket);
}

async fn connection(
    socket: TcpStream,
    stall: Stall,
    read: bool,
    serve: Serve,
    stalled: Arc<AtomicUsize>,
    last_good: Arc<Mutex<Option<Instant>>>,
) {
    if !read {
        stalled.fetch_add(1, Ordering::SeqCst);
        hold(socket).await;
        return;
    }
    let Answer::ToStall(mut socket) = answer_if_good(socket, &serve, &last_good).await else {
        return;
    };
    stalled.fetch_add(1, Ordering::SeqCst);
    match stall {
        Stall::NeverAccept | Stall::NeverRead | Stall::NoAnswer => hold(socket).await,
        Stall::StatusLine => {
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\n").await;
            hold(socket).await;
        }
        Stall::HeadersTrickled => {
            if socket
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Trickle: ")
                .await
                .is_err()
            {
                return;
            }
            trickle_forever(socket, b"a").await;
        }
        Stall::BodyTrickled => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                        Content-Length: 1000000\r\nConnection: close\r\n\r\n{";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            trickle_forever(socket, b" ").await;
        }
        Stall::ChunkedForever => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                        Transfer-Encoding: chunked\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            trickle_forever(socket, b"1\r\n \r\n").await;
        }
        Stall::ShortBodyHeld => {
            let body = format!("{{\"rcode\":1,\"pad\":\"{}\"}}", "x".repeat(2000));
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&body.as_bytes()[..body.len() / 2]).await;
            let _ = socket.flush().await;
            hold(socket).await;
        }
        Stall::Storm(status) => {
            let answer = format!(
                "HTTP/1.1 {status} Busy\r\nRetry-After: 0\r\nContent-Type: text/plain\r\n\
                 Content-Length: 4\r\nConnection: close\r\n\r\nbusy"
            );
            let _ = socket.write_all(answer.as_bytes()).await;
            let _ = socket.flush().await;
            let _ = socket.shutdown().await;
        }
    }
}

/// Writes `piece` every `TRICKLE` until the peer goes away or `HOLD` passes.
async fn trickle_forever(mut socket: TcpStream, piece: &[u8]) {
    let end = Instant::now() + HOLD;
    while Instant::now() < end {
        if socket.write_all(piece).await.is_err() || socket.flush().await.is_err() {
            return;
        }
        tokio::time::sleep(TRICKLE).await;
    }
}

// ---------------------------------------------------------------------------------------------
// The limits an app configures, generated.
// ---------------------------------------------------------------------------------------------

/// One configuration of the limits: where the deadline, the attempt timeout and the retry
/// policy are set (the builder or only the call), and their values.
#[derive(Clone, Debug)]
struct Limits {
    /// The deadline that applies to the call (per page for a stream).
    deadline: Duration,
    deadline_per_call: bool,
    /// The attempt timeout; `None`: the client's default (30 s).
    timeout: Option<Duration>,
    timeout_per_call: bool,
    /// The retry policy; `None`: the client's default.
    retry: Option<RetryPolicy>,
    retry_per_call: bool,
    connect_timeout: Option<Duration>,
    page_concurrency: Option<usize>,
    /// Set the builder to `NOISE` where the call sets its own value.
    noise: bool,
}

impl Limits {
    /// The limits as a builder takes them; `per_call` is false for futures without
    /// `CallOptions` (the OAuth calls), which get everything on the builder.
    fn on_builder(&self, mut builder: ClientBuilder, per_call: bool) -> ClientBuilder {
        if self.deadline_per_call && per_call {
            if self.noise {
                builder = builder.deadline(NOISE);
            }
        } else {
            builder = builder.deadline(self.deadline);
        }
        if let Some(timeout) = self.timeout {
            if self.timeout_per_call && per_call {
                if self.noise {
                    builder = builder.timeout(NOISE);
                }
            } else {
                builder = builder.timeout(timeout);
            }
        }
        if let Some(retry) = &self.retry {
            if !(self.retry_per_call && per_call) {
                builder = builder.retry(retry.clone());
            }
        }
        if let Some(connect) = self.connect_timeout {
            builder = builder.connect_timeout(connect);
        }
        if let Some(pages) = self.page_concurrency {
            builder = builder.page_concurrency(pages);
        }
        builder
    }

    /// The limits set per call.
    fn on_call(&self, mut options: CallOptions) -> CallOptions {
        if self.deadline_per_call {
            options = options.deadline(self.deadline);
        }
        if let (Some(timeout), true) = (self.timeout, self.timeout_per_call) {
            options = options.timeout(timeout);
        }
        if let (Some(retry), true) = (&self.retry, self.retry_per_call) {
            options = options.retry(retry.clone());
        }
        options
    }

    /// The outer guard: a call still running then hangs.
    fn guard(&self) -> Duration {
        (self.deadline * 10).max(Duration::from_secs(3))
    }
}

fn scaled(base: Duration, factor: f64) -> Duration {
    Duration::from_secs_f64((base.as_secs_f64() * factor).max(0.05))
}

prop_compose! {
    fn limits()(
        deadline_ms in 300u64..=800,
        deadline_per_call in any::<bool>(),
        timeout_kind in 0u8..3,
        small in 0.2f64..0.9,
        large in 1.2f64..3.0,
        timeout_per_call in any::<bool>(),
        retry_kind in 0u8..3,
        attempts in 2u32..20_000,
        base_ms in 0u64..25,
        retry_per_call in any::<bool>(),
        connect_kind in 0u8..3,
        misc in (any::<bool>(), prop::option::of(0usize..7)),
    ) -> Limits {
        let deadline = Duration::from_millis(deadline_ms);
        let timeout = match timeout_kind {
            0 => None,
            1 => Some(scaled(deadline, small)),
            _ => Some(scaled(deadline, large)),
        };
        let retry = match retry_kind {
            0 => None,
            1 => Some(RetryPolicy::none()),
            _ => Some(
                RetryPolicy::default()
                    .max_attempts(attempts)
                    .base_delay(Duration::from_millis(base_ms))
                    .max_delay(Duration::from_millis(base_ms * 2)),
            ),
        };
        let connect_timeout = match connect_kind {
            0 => None,
            1 => Some(scaled(deadline, small)),
            _ => Some(scaled(deadline, large)),
        };
        Limits {
            deadline,
            deadline_per_call,
            timeout,
            timeout_per_call,
            retry,
            retry_per_call,
            connect_timeout,
            page_concurrency: misc.1,
            noise: misc.0,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The futures.
// ---------------------------------------------------------------------------------------------

/// A public future of the client that talks to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    RequestToken,
    AccessToken,
    Revoke,
    Send,
    SendWithMetadata,
    /// `get_timesheets_for_bid(..).pages().collect_all()` (a page count: pages fetched ahead).
    PagesCollectAll,
    /// `get_timesheets_for_bid(..).items().collect_all()`.
    ItemsCollectAll,
    /// `get_timesheets_for_bid(..).items()` read with `try_next` until its end.
    ItemsTryNext,
    /// `get_workview_details(..).items()` read with `try_next` (no page count: one by one).
    WorkviewItems,
}

impl Kind {
    fn has_call_options(self) -> bool {
        !matches!(self, Kind::RequestToken | Kind::AccessToken | Kind::Revoke)
    }

    fn is_stream(self) -> bool {
        matches!(
            self,
            Kind::PagesCollectAll
                | Kind::ItemsCollectAll
                | Kind::ItemsTryNext
                | Kind::WorkviewItems
        )
    }
}

fn credentials() -> ConsumerCredentials {
    ConsumerCredentials::new(CONSUMER_KEY, CONSUMER_SECRET)
}

fn access_token() -> AccessToken {
    AccessToken::new(
        "rt8-access-token",
        "rt8-access-secret-0123456789",
        Timestamp::now(),
    )
}

fn request_token() -> RequestToken {
    RequestToken {
        token: "rt8-request-token".to_string(),
        secret: Secret::new("rt8-request-secret-0123456789"),
        callback_confirmed: true,
    }
}

/// Runs one future of `kind` to its end: `Ok` when it completed without error.
async fn call(
    kind: Kind,
    client: &Client,
    session: &Session,
    limits: &Limits,
) -> Result<(), Error> {
    let world = World::seeded();
    let hourly = world.hourly_workroom();
    let screens = world.screenshots_workroom();
    let options = |options: CallOptions| limits.on_call(options);
    match kind {
        Kind::RequestToken => client
            .request_token(Some("https://app.example/callback"))
            .await
            .map(drop),
        Kind::AccessToken => {
            let verifier = Verifier::new("rt8-verifier-0123456789").expect("a valid verifier");
            client
                .access_token(&request_token(), &verifier)
                .await
                .map(drop)
        }
        Kind::Revoke => session.revoke().await,
        Kind::Send => session
            .get_invoice(8901)
            .customize(options)
            .send()
            .await
            .map(drop),
        Kind::SendWithMetadata => session
            .get_invoice(8901)
            .customize(options)
            .send_with_metadata()
            .await
            .map(drop),
        Kind::PagesCollectAll => session
            .get_timesheets_for_bid(hourly.bid_id)
            .rpp(10)
            .customize(options)
            .pages()
            .collect_all()
            .await
            .map(drop),
        Kind::ItemsCollectAll => session
            .get_timesheets_for_bid(hourly.bid_id)
            .rpp(10)
            .customize(options)
            .items()
            .collect_all()
            .await
            .map(drop),
        Kind::ItemsTryNext => {
            let mut items = session
                .get_timesheets_for_bid(hourly.bid_id)
                .rpp(10)
                .customize(options)
                .items();
            while items.try_next().await?.is_some() {}
            Ok(())
        }
        Kind::WorkviewItems => {
            let mut items = session
                .get_workview_details(screens.bid_id, screens.provider)
                .rpp(1)
                .customize(options)
                .items();
            while items.try_next().await?.is_some() {}
            Ok(())
        }
    }
}

/// The fake's answers to the pages the streams of this file ask for, made once (making them
/// takes long enough in a debug build to pass a short attempt timeout under load): the
/// timesheets of the hourly workroom at 10 a page (3 pages and an empty 4th), the workview of
/// the screenshots workroom at 1 a page (2 pages and an empty 3rd).
fn page_answers() -> &'static std::collections::HashMap<(&'static str, u64), String> {
    static ANSWERS: std::sync::OnceLock<std::collections::HashMap<(&'static str, u64), String>> =
        std::sync::OnceLock::new();
    ANSWERS.get_or_init(|| {
        let world = World::seeded();
        let hourly = world.hourly_workroom();
        let screens = world.screenshots_workroom();
        let now = Timestamp::now();
        let mut answers = std::collections::HashMap::new();
        for page in 1..=4u64 {
            let params = [
                ("bidId", hourly.bid_id.to_string()),
                ("page", page.to_string()),
                ("rpp", "10".into()),
            ];
            let params: Vec<(String, String)> = params
                .into_iter()
                .map(|(n, v)| (n.to_string(), v))
                .collect();
            let reply = marketplace_fake::data::respond(
                &world,
                hourly.client,
                "pay/getTimesheetsForBid",
                &params,
                now,
            );
            assert_eq!(reply.status, 200, "the fake answers page {page}");
            answers.insert(
                ("/api/pay/getTimesheetsForBid", page),
                reply.body.to_string(),
            );
        }
        for page in 1..=3u64 {
            let params = [
                ("bidId", screens.bid_id.to_string()),
                ("userId", screens.provider.to_string()),
                ("page", page.to_string()),
                ("rpp", "1".into()),
            ];
            let params: Vec<(String, String)> = params
                .into_iter()
                .map(|(n, v)| (n.to_string(), v))
                .collect();
            let reply = marketplace_fake::data::respond(
                &world,
                screens.client,
                "workroom/getWorkviewDetails",
                &params,
                now,
            );
            assert_eq!(reply.status, 200, "the fake answers workview page {page}");
            answers.insert(
                ("/api/workroom/getWorkviewDetails", page),
                reply.body.to_string(),
            );
        }
        answers
    })
}

fn page_of(params: &[(String, String)]) -> u64 {
    params
        .iter()
        .find(|(name, _)| name == "page")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(1)
}

/// Serves the pages of the streams before `stall_page` as the fake would; the rest stall.
fn serve_pages_before(stall_page: u64) -> Serve {
    let answers = page_answers();
    Arc::new(move |path: &str, params: &[(String, String)]| {
        let page = page_of(params);
        if page >= stall_page {
            return None;
        }
        answers
            .iter()
            .find(|((p, n), _)| *p == path && *n == page)
            .map(|(_, body)| (200, body.clone()))
    })
}

/// The verdict of one run: `None` when the claim held, else what broke it.
fn judge(
    what: &str,
    expect_stall: bool,
    deadline: Duration,
    elapsed: Duration,
    outcome: Option<Result<(), String>>,
    timeout_after: Option<Duration>,
) -> Option<String> {
    let bound = deadline + SLACK;
    match outcome {
        None => Some(format!(
            "{what}: HANG, still running after {elapsed:?} (deadline {deadline:?})"
        )),
        Some(_) if elapsed > bound => Some(format!(
            "{what}: ended after {elapsed:?}, past its deadline {deadline:?} + slack {SLACK:?}"
        )),
        Some(Ok(())) if expect_stall => Some(format!(
            "{what}: completed Ok though the server never answered"
        )),
        Some(Err(error)) if expect_stall && timeout_after.is_none() => Some(format!(
            "{what}: a stall ended in an error that is not Error::Timeout: {error}"
        )),
        Some(_) => match timeout_after {
            Some(after) if after > bound => Some(format!(
                "{what}: Error::Timeout says `after: {after:?}`, past {deadline:?} + {SLACK:?}"
            )),
            _ => None,
        },
    }
}

fn timeout_after(error: &Error) -> Option<Duration> {
    match error {
        Error::Timeout { after, .. } => Some(*after),
        _ => None,
    }
}

/// One future of `kind` against one stalling plain-HTTP server with `limits`: `None` when
/// it ended within its deadline as the docs say.
async fn exercise_plain(
    kind: Kind,
    stall: Stall,
    limits: Limits,
    stall_page: u64,
) -> Option<String> {
    let (serve, good) = if kind.is_stream() {
        (serve_pages_before(stall_page), (stall_page - 1) as usize)
    } else {
        (serve_nothing(), 0)
    };
    let server = hostile(stall, good, serve).await;
    let builder =
        Client::builder(server.base.clone(), credentials()).allow_plain_http_oauth_on_loopback();
    let client = match limits.on_builder(builder, kind.has_call_options()).build() {
        Ok(client) => client,
        Err(error) => return Some(format!("{kind:?}: the client did not build: {error}")),
    };
    let session = client.session(access_token());
    let start = Instant::now();
    let outcome =
        tokio::time::timeout(limits.guard(), call(kind, &client, &session, &limits)).await;
    let end = Instant::now();
    // A stream's deadline is per page: its stalled page's call starts once the page before it
    // arrived, so the bound is counted from the last good page the server sent.
    let base = match *server.last_good.lock().expect("lock") {
        Some(good) if kind.is_stream() && good > start => good,
        _ => start,
    };
    let what = format!(
        "{kind:?} / {stall:?}{} / {limits:?}",
        if kind.is_stream() {
            format!(" from page {stall_page}")
        } else {
            String::new()
        }
    );
    let after = outcome
        .as_ref()
        .ok()
        .and_then(|result| result.as_ref().err())
        .and_then(timeout_after);
    let outcome = outcome
        .ok()
        .map(|result| result.map_err(|error| error.to_string()));
    judge(
        &what,
        stall.is_stall(),
        limits.deadline,
        end - base,
        outcome,
        after,
    )
}

/// Runs a generated case on a multi-thread runtime of its own: what a case leaves running (held
/// connections, blocking threads) ends with it.
fn run<F: Future<Output = Vec<String>> + Send + 'static>(case: F) -> Vec<String> {
    let runtime = runtime();
    let failures = runtime.block_on(async move { tokio::spawn(case).await.expect("the case ran") });
    runtime.shutdown_timeout(Duration::from_millis(200));
    failures
}

/// Every plain phase at once for `kind`, each with its own generated limits and server.
fn plain_case(kind: Kind, storm: u16, stall_page: u64, limits: Vec<Limits>) -> Vec<String> {
    run(async move {
        let runs = plain_stalls(storm)
            .into_iter()
            .zip(limits)
            .map(|(stall, limits)| tokio::spawn(exercise_plain(kind, stall, limits, stall_page)))
            .collect::<Vec<_>>();
        let mut failures = Vec::new();
        for run in runs {
            if let Some(failure) = run.await.expect("the run ended") {
                failures.push(failure);
            }
        }
        failures
    })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 0,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn limits_per_phase() -> impl Strategy<Value = Vec<Limits>> {
    prop::collection::vec(limits(), 9)
}

fn storm_status() -> impl Strategy<Value = u16> {
    prop_oneof![Just(429u16), Just(503u16)]
}

macro_rules! plain_generator {
    ($($(#[$doc:meta])* $name:ident => $kind:expr, $pages:expr;)*) => {
        proptest! {
            #![proptest_config(config(3))]
            $(
                $(#[$doc])*
                #[test]
                fn $name(storm in storm_status(), stall_page in $pages, limits in limits_per_phase()) {
                    let failures = plain_case($kind, storm, stall_page, limits);
                    prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
                }
            )*
        }
    };
}

plain_generator! {
    /// "every call ends within its deadline" (SECURITY.md, Inputs): `request_token` against
    /// every stall phase (never accepted, never read, never answered, status line only,
    /// headers or body trickled, endless chunks, a short body held open, a `Retry-After: 0`
    /// storm), the builder's generated deadline, attempt and connect timeouts and retries.
    request_token_ends_by_its_deadline_in_every_stall_phase => Kind::RequestToken, Just(1u64);
    /// "every call ends within its deadline": `access_token` in every stall phase.
    access_token_ends_by_its_deadline_in_every_stall_phase => Kind::AccessToken, Just(1u64);
    /// "every call ends within its deadline": `Session::revoke` in every stall phase.
    revoke_ends_by_its_deadline_in_every_stall_phase => Kind::Revoke, Just(1u64);
    /// "every call ends within its deadline": `send` in every stall phase, the deadline, the
    /// attempt timeout and the retry policy each on the builder or only per call.
    send_ends_by_its_deadline_in_every_stall_phase_wherever_the_limits_are_set => Kind::Send, Just(1u64);
    /// "every call ends within its deadline": `send_with_metadata` in every stall phase.
    send_with_metadata_ends_by_its_deadline_in_every_stall_phase => Kind::SendWithMetadata, Just(1u64);
    /// "every call ends within its deadline" (a stream's deadline is per page, docs): page 2
    /// or 3 of `pages().collect_all()` stalls in every phase; the stream ends within that
    /// page's deadline after the page before it came.
    pages_collect_all_ends_by_the_stalled_pages_deadline_in_every_phase => Kind::PagesCollectAll, 2u64..=3;
    /// As above for `items().collect_all()`.
    items_collect_all_ends_by_the_stalled_pages_deadline_in_every_phase => Kind::ItemsCollectAll, 2u64..=3;
    /// As above for `items()` read item by item with `try_next`.
    items_read_one_by_one_end_by_the_stalled_pages_deadline_in_every_phase => Kind::ItemsTryNext, 2u64..=3;
    /// As above for a stream without a page count (workroom/getWorkviewDetails, pages one by
    /// one, one item a page): page 2 (data) or 3 (the empty page that would end it) stalls.
    a_workview_stream_ends_by_the_stalled_pages_deadline_in_every_phase => Kind::WorkviewItems, 2u64..=3;
}

// ---------------------------------------------------------------------------------------------
// TLS: a base URL over HTTPS on 127.0.0.1.
// ---------------------------------------------------------------------------------------------

/// The phase a hostile HTTPS origin stalls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TlsStall {
    /// The TCP connection accepted and the ClientHello read; no ServerHello, ever.
    NoHandshake,
    /// The TCP connection accepted, nothing read.
    NeverRead,
    /// A relay in front of the fake passes the server's bytes on one every 10 ms: the
    /// handshake itself trickles.
    HandshakeTrickled,
    /// The fake, its handshake done, holds the answer (`Fault::Latency`).
    FakeLatency,
    /// The fake answers this status with `Retry-After: 0` to every request (`Fault::Status`).
    FakeStorm(u16),
}

impl TlsStall {
    fn is_stall(self) -> bool {
        !matches!(self, TlsStall::FakeStorm(_))
    }

    fn uses_the_fakes_trust(self) -> bool {
        !matches!(self, TlsStall::NoHandshake | TlsStall::NeverRead)
    }
}

fn tls_stalls(storm: u16) -> Vec<TlsStall> {
    vec![
        TlsStall::NoHandshake,
        TlsStall::NeverRead,
        TlsStall::HandshakeTrickled,
        TlsStall::FakeLatency,
        TlsStall::FakeStorm(storm),
    ]
}

/// Which HTTP client the app's client uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Http {
    /// The client's own (`ClientBuilder::build` without `http_client`).
    Own,
    /// `ClientBuilder::http_client(http_client_builder()?.build()?)`.
    FromHttpClientBuilder,
    /// `ClientBuilder::http_client(fake.http_client())` (trusts the fake's certificate).
    Fakes,
}

/// A public future over HTTPS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TlsKind {
    RequestToken,
    AccessToken,
    Revoke,
    Send,
    SendWithMetadata,
    /// `get_timesheets_for_bid(..).pages()` read with `try_next`.
    PagesTryNext,
    /// `FakeMarketplace::sign_in(&client, login)`: request token, the fake's browser,
    /// access token; the stall at the request-token step (page 1) or the access-token step.
    SignIn,
}

/// An HTTPS origin that accepts TCP and never completes the handshake.
async fn tls_black_hole(read_hello: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("https://{}", listener.local_addr().expect("address"));
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                if read_hello {
                    let mut hello = [0u8; 4096];
                    let _ = socket.read(&mut hello).await;
                }
                hold(socket).await;
            });
        }
    });
    base
}

/// A relay to `target` that passes the client's bytes at once and the server's one at a time.
async fn trickling_relay(target: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("https://{}", listener.local_addr().expect("address"));
    tokio::spawn(async move {
        loop {
            let Ok((client, _)) = listener.accept().await else {
                return;
            };
            let target = target.clone();
            tokio::spawn(async move {
                let Ok(server) = TcpStream::connect(&target).await else {
                    return;
                };
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                let upstream = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut client_read, &mut server_write).await;
                });
                let mut chunk = [0u8; 4096];
                'relay: while let Ok(read) = server_read.read(&mut chunk).await {
                    if read == 0 {
                        break;
                    }
                    for byte in &chunk[..read] {
                        if client_write.write_all(&[*byte]).await.is_err() {
                            break 'relay;
                        }
                        tokio::time::sleep(TRICKLE).await;
                    }
                }
                upstream.abort();
            });
        }
    });
    base
}

fn fake_address(fake: &FakeMarketplace) -> String {
    fake.base_url().trim_start_matches("https://").to_string()
}

/// One future over HTTPS against one stalling origin; `None` when the claim held.
async fn exercise_tls(
    kind: TlsKind,
    stall: TlsStall,
    http: Http,
    limits: Limits,
    step: u64,
) -> Option<String> {
    let fake = match FakeMarketplace::start().await {
        Ok(fake) => fake,
        Err(error) => return Some(format!("the fake did not start: {error}")),
    };
    let world = World::seeded();
    let hourly = world.hourly_workroom();
    let login = world
        .user(hourly.client)
        .expect("the hourly workroom's client")
        .login
        .clone();
    let http = if stall.uses_the_fakes_trust() || kind == TlsKind::SignIn {
        Http::Fakes
    } else {
        http
    };
    // A sign-in against a black hole or through the relay stalls at its first step.
    let step = if kind == TlsKind::SignIn
        && !matches!(stall, TlsStall::FakeLatency | TlsStall::FakeStorm(_))
    {
        1
    } else {
        step
    };
    let base = match stall {
        TlsStall::NoHandshake => tls_black_hole(true).await,
        TlsStall::NeverRead => tls_black_hole(false).await,
        TlsStall::HandshakeTrickled => trickling_relay(fake_address(&fake)).await,
        TlsStall::FakeLatency | TlsStall::FakeStorm(_) => fake.base_url().to_string(),
    };
    let demo = fake.credentials();
    let mut builder = Client::builder(
        base,
        ConsumerCredentials::new(demo.consumer_key.clone(), demo.consumer_secret.clone()),
    );
    builder = match http {
        Http::Own => builder,
        Http::FromHttpClientBuilder => {
            match marketplace_client::http_client_builder().and_then(|b| {
                b.build().map_err(|error| Error::Config {
                    reason: error.to_string(),
                })
            }) {
                Ok(http) => builder.http_client(http),
                Err(error) => return Some(format!("no HTTP client: {error}")),
            }
        }
        Http::Fakes => builder.http_client(fake.http_client()),
    };
    let per_call = matches!(
        kind,
        TlsKind::Send | TlsKind::SendWithMetadata | TlsKind::PagesTryNext
    );
    let client = match limits.on_builder(builder, per_call).build() {
        Ok(client) => client,
        Err(error) => return Some(format!("{kind:?}: the client did not build: {error}")),
    };
    let token = match fake.session(hourly.client) {
        Ok(session) => session.token().clone(),
        Err(error) => return Some(format!("no session from the fake: {error}")),
    };
    let session = client.session(token);
    let path = match kind {
        TlsKind::RequestToken => "/oauth/getRequestToken",
        TlsKind::AccessToken => "/oauth/getAccessToken",
        TlsKind::Revoke => "/oauth/revokeToken",
        TlsKind::Send | TlsKind::SendWithMetadata => "/api/pay/getInvoice",
        TlsKind::PagesTryNext => "/api/pay/getTimesheetsForBid",
        TlsKind::SignIn if step == 1 => "/oauth/getRequestToken",
        TlsKind::SignIn => "/oauth/getAccessToken",
    };
    let faults = fake.faults();
    if kind == TlsKind::PagesTryNext {
        faults.inject(
            Some(path),
            Fault::Latency(Duration::ZERO),
            (step - 1) as usize,
        );
    }
    match stall {
        TlsStall::FakeLatency => faults.inject(Some(path), Fault::Latency(HOLD), 100_000),
        TlsStall::FakeStorm(status) => {
            faults.inject(
                Some(path),
                Fault::Status {
                    status,
                    retry_after: Some(0),
                },
                1_000_000,
            );
        }
        _ => {}
    }
    let options = |options: CallOptions| limits.on_call(options);
    let last_page = Arc::new(Mutex::new(None::<Instant>));
    let start = Instant::now();
    let future = async {
        match kind {
            TlsKind::RequestToken => client
                .request_token(Some("https://app.example/cb"))
                .await
                .map(drop),
            TlsKind::AccessToken => {
                let verifier = Verifier::new("rt8-verifier-0123456789").expect("a verifier");
                client
                    .access_token(&request_token(), &verifier)
                    .await
                    .map(drop)
            }
            TlsKind::Revoke => session.revoke().await,
            TlsKind::Send => session
                .get_invoice(8901)
                .customize(options)
                .send()
                .await
                .map(drop),
            TlsKind::SendWithMetadata => session
                .get_invoice(8901)
                .customize(options)
                .send_with_metadata()
                .await
                .map(drop),
            TlsKind::PagesTryNext => {
                let mut pages = session
                    .get_timesheets_for_bid(hourly.bid_id)
                    .rpp(10)
                    .customize(options)
                    .pages();
                while pages.try_next().await?.is_some() {
                    *last_page.lock().expect("lock") = Some(Instant::now());
                }
                Ok(())
            }
            TlsKind::SignIn => match fake.sign_in(&client, &login).await {
                Ok(_) => Ok(()),
                Err(FakeError::Client(error)) => Err(error),
                Err(other) => Err(Error::Config {
                    reason: format!("sign_in failed otherwise: {other}"),
                }),
            },
        }
    };
    let outcome = tokio::time::timeout(limits.guard(), future).await;
    let end = Instant::now();
    let base_time = last_page.lock().expect("lock").unwrap_or(start);
    // A sign-in stalled at its access-token step ran its request-token call and the fake's
    // browser first: FLOW for those.
    const FLOW: Duration = Duration::from_millis(400);
    let elapsed = end - base_time;
    let elapsed = if kind == TlsKind::SignIn && step > 1 {
        elapsed.saturating_sub(FLOW)
    } else {
        elapsed
    };
    let what = format!("TLS {kind:?} / {stall:?} (step {step}) / {http:?} / {limits:?}");
    let after = outcome
        .as_ref()
        .ok()
        .and_then(|result| result.as_ref().err())
        .and_then(timeout_after);
    let outcome = outcome
        .ok()
        .map(|result| result.map_err(|error| error.to_string()));
    // The fake's latency is counted from its own clock; the bound is the client's.
    judge(
        &what,
        stall.is_stall(),
        limits.deadline,
        elapsed,
        outcome,
        after,
    )
}

prop_compose! {
    fn http_choice()(choice in 0u8..3) -> Http {
        match choice {
            0 => Http::Own,
            1 => Http::FromHttpClientBuilder,
            _ => Http::Fakes,
        }
    }
}

fn tls_case(kind: TlsKind, storm: u16, step: u64, runs: Vec<(Http, Limits)>) -> Vec<String> {
    run(async move {
        let runs = tls_stalls(storm)
            .into_iter()
            .zip(runs)
            .map(|(stall, (http, limits))| {
                tokio::spawn(exercise_tls(kind, stall, http, limits, step))
            })
            .collect::<Vec<_>>();
        let mut failures = Vec::new();
        for run in runs {
            if let Some(failure) = run.await.expect("the run ended") {
                failures.push(failure);
            }
        }
        failures
    })
}

macro_rules! tls_generator {
    ($($(#[$doc:meta])* $name:ident => $kind:expr, $steps:expr;)*) => {
        proptest! {
            #![proptest_config(config(2))]
            $(
                $(#[$doc])*
                #[test]
                fn $name(
                    storm in storm_status(),
                    step in $steps,
                    runs in prop::collection::vec((http_choice(), limits()), 5),
                ) {
                    let failures = tls_case($kind, storm, step, runs);
                    prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
                }
            )*
        }
    };
}

tls_generator! {
    /// "every call ends within its deadline": `request_token` over HTTPS on 127.0.0.1 against
    /// a handshake never answered, never read, trickled through a relay, the fake holding its
    /// answer and a `Retry-After: 0` storm; the client's own HTTP client, one from
    /// `http_client_builder` (no connect timeout of the builder applies) or the fake's.
    request_token_over_tls_ends_by_its_deadline_in_every_stall_phase => TlsKind::RequestToken, Just(1u64);
    /// As above for `access_token`.
    access_token_over_tls_ends_by_its_deadline_in_every_stall_phase => TlsKind::AccessToken, Just(1u64);
    /// As above for `Session::revoke`.
    revoke_over_tls_ends_by_its_deadline_in_every_stall_phase => TlsKind::Revoke, Just(1u64);
    /// As above for `send`, its limits on the builder or per call.
    send_over_tls_ends_by_its_deadline_in_every_stall_phase => TlsKind::Send, Just(1u64);
    /// As above for `send_with_metadata`.
    send_with_metadata_over_tls_ends_by_its_deadline_in_every_stall_phase => TlsKind::SendWithMetadata, Just(1u64);
    /// As above for `pages()` read page by page, the stall from page 1, 2 or 3.
    a_page_stream_over_tls_ends_by_the_stalled_pages_deadline => TlsKind::PagesTryNext, 1u64..=3;
    /// "every call ends within its deadline" for the calls of `FakeMarketplace::sign_in` (the
    /// fake's kit an app awaits with a client it configured): a stall at the request-token
    /// or the access-token step ends the sign-in within that call's deadline (plus FLOW, 400
    /// ms, for the steps before it).
    the_fakes_sign_in_ends_by_the_deadline_of_the_stalled_step => TlsKind::SignIn, 1u64..=2;
}

// ---------------------------------------------------------------------------------------------
// Dropping a stalled stream.
// ---------------------------------------------------------------------------------------------

/// How the app lets go of a stream stalled on page 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Letting {
    /// `items()`: the first item read, then the stream dropped.
    ItemsDropped,
    /// `pages()`: the first page read, then the stream dropped.
    PagesDropped,
    /// The app's own bound around `items().collect_all()` (the docs advise
    /// `tokio::time::timeout`; here a `tokio::select!` that fires once the stalled page was
    /// retried, the same drop at a moment that holds on a loaded machine) ends first.
    ItemsCollectAllTimedOut,
    /// The same around `pages().collect_all()`.
    PagesCollectAllTimedOut,
    /// The workview's `items()` (pages one by one): the first item read, then dropped.
    WorkviewItemsDropped,
}

const LETTINGS: [Letting; 5] = [
    Letting::ItemsDropped,
    Letting::PagesDropped,
    Letting::ItemsCollectAllTimedOut,
    Letting::PagesCollectAllTimedOut,
    Letting::WorkviewItemsDropped,
];

/// A stream stalled on page 2 (and after), retrying every `attempt` (deadline 20 s, thousands
/// of attempts), let go of as `letting` says: `None` when no connection reached the server
/// after the stream was gone.
async fn exercise_drop(
    letting: Letting,
    stall: Stall,
    attempt: Duration,
    per_call: bool,
) -> Option<String> {
    let server = hostile(stall, 1, serve_pages_before(2)).await;
    let limits = Limits {
        deadline: Duration::from_secs(20),
        deadline_per_call: per_call,
        timeout: Some(attempt),
        timeout_per_call: per_call,
        retry: Some(
            RetryPolicy::default()
                .max_attempts(100_000)
                .base_delay(Duration::from_millis(5))
                .max_delay(Duration::from_millis(10)),
        ),
        retry_per_call: per_call,
        connect_timeout: None,
        page_concurrency: None,
        noise: false,
    };
    let client = limits
        .on_builder(Client::builder(server.base.clone(), credentials()), true)
        .build()
        .expect("a client");
    let session = client.session(access_token());
    let world = World::seeded();
    let hourly = world.hourly_workroom();
    let screens = world.screenshots_workroom();
    let options = |options: CallOptions| limits.on_call(options);
    let what = format!("{letting:?} / {stall:?} / attempt {attempt:?} / per call: {per_call}");
    let first = Duration::from_secs(10);
    let patience = attempt * 3;
    let stalled_before;
    match letting {
        Letting::ItemsDropped | Letting::WorkviewItemsDropped => {
            let mut items = if letting == Letting::ItemsDropped {
                let items = session
                    .get_timesheets_for_bid(hourly.bid_id)
                    .rpp(10)
                    .customize(options)
                    .items();
                futures::future::Either::Left(items)
            } else {
                let items = session
                    .get_workview_details(screens.bid_id, screens.provider)
                    .rpp(1)
                    .customize(options)
                    .items();
                futures::future::Either::Right(items)
            };
            // Read the items that come; the app gives up on the next one after `patience`.
            let mut read = 0usize;
            loop {
                let wait = if read == 0 { first } else { patience };
                let got = match &mut items {
                    futures::future::Either::Left(items) => {
                        tokio::time::timeout(wait, items.try_next())
                            .await
                            .map(|r| r.map(|i| i.is_some()))
                    }
                    futures::future::Either::Right(items) => {
                        tokio::time::timeout(wait, items.try_next())
                            .await
                            .map(|r| r.map(|i| i.is_some()))
                    }
                };
                match got {
                    Ok(Ok(true)) => read += 1,
                    Err(_) if read > 0 => break,
                    other => {
                        return Some(format!(
                            "{what}: setup: after {read} items: {other:?} (accepted {}, stalled {}, good {:?})",
                            server.accepted.load(Ordering::SeqCst),
                            server.stalled.load(Ordering::SeqCst),
                            server.last_good.lock().expect("lock").map(|t| t.elapsed())
                        ));
                    }
                }
            }
            retried(&server, 2, Duration::from_secs(15)).await;
            stalled_before = server.stalled.load(Ordering::SeqCst);
            drop(items);
        }
        Letting::PagesDropped => {
            let mut pages = session
                .get_timesheets_for_bid(hourly.bid_id)
                .rpp(10)
                .customize(options)
                .pages();
            let got = tokio::time::timeout(first, pages.try_next()).await;
            if !matches!(got, Ok(Ok(Some(_)))) {
                return Some(format!("{what}: setup: the first page did not come"));
            }
            let next = tokio::time::timeout(patience, pages.try_next()).await;
            if next.is_ok() {
                return Some(format!("{what}: setup: page 2 did not stall"));
            }
            retried(&server, 2, Duration::from_secs(15)).await;
            stalled_before = server.stalled.load(Ordering::SeqCst);
            drop(pages);
        }
        Letting::ItemsCollectAllTimedOut | Letting::PagesCollectAllTimedOut => {
            let request = session
                .get_timesheets_for_bid(hourly.bid_id)
                .rpp(10)
                .customize(options);
            // The app's own timeout around `collect_all` fires once the stalled page has been
            // retried (at the latest after 15 s, on a loaded machine), dropping the future.
            let retried = retried(&server, 2, Duration::from_secs(15));
            let ended = if letting == Letting::ItemsCollectAllTimedOut {
                tokio::select! {
                    _ = request.items().collect_all() => true,
                    () = retried => false,
                }
            } else {
                tokio::select! {
                    _ = request.pages().collect_all() => true,
                    () = retried => false,
                }
            };
            if ended {
                return Some(format!(
                    "{what}: setup: the stream ended before its 20 s deadline"
                ));
            }
            stalled_before = server.stalled.load(Ordering::SeqCst);
        }
    }
    if stalled_before < 2 {
        return Some(format!(
            "{what}: setup: the stalled page was not retried before the drop ({stalled_before} \
             stalled requests), though its attempt timeout is {attempt:?}"
        ));
    }
    // A connection already on its way when the stream went is not a new request (accepted
    // late on a loaded machine); a stream that kept retrying would connect again in the
    // window after, every attempt timeout.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let at_drop = server.accepted.load(Ordering::SeqCst);
    tokio::time::sleep(attempt * 6).await;
    let later = server.accepted.load(Ordering::SeqCst);
    (later > at_drop).then(|| {
        format!(
            "{what}: {} new connection(s) reached the server in the {:?} after the stream was \
             gone ({at_drop} before)",
            later - at_drop,
            attempt * 6
        )
    })
}

/// [`exercise_drop`], run again (up to three times in all) while its setup fails: at load,
/// page 1's first attempt can time out before the blind server answers it, and the retry then
/// meets the stall, so the first page never comes. That run proves nothing either way; a
/// failure of the claim itself is never run again.
async fn exercise_drop_set_up(
    letting: Letting,
    stall: Stall,
    attempt: Duration,
    per_call: bool,
) -> Option<String> {
    let mut outcome = None;
    for _ in 0..3 {
        outcome = exercise_drop(letting, stall, attempt, per_call).await;
        if !outcome
            .as_deref()
            .is_some_and(|failure| failure.contains(": setup: "))
        {
            break;
        }
    }
    outcome
}

/// Waits until `server` has stalled `count` requests (the stalled page retried), at most
/// `limit`.
async fn retried(server: &Hostile, count: usize, limit: Duration) {
    let until = Instant::now() + limit;
    while server.stalled.load(Ordering::SeqCst) < count && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

proptest! {
    #![proptest_config(config(2))]

    /// "every call ends within its deadline" and the docs of `paging` ("The calls in flight
    /// are aborted when the stream ends in an error or is dropped: no request is sent or
    /// retried for it afterwards"): a stream stalled on page 2 in each phase, retrying it
    /// every attempt timeout, let go of in each way an app can (the stream dropped after its
    /// first item or page, `tokio::time::timeout` around `collect_all`, the workview's
    /// one-by-one stream): no new connection reaches the server afterwards.
    #[test]
    fn a_stream_let_go_of_while_a_stalled_page_retries_sends_nothing_more(
        attempt_ms in 250u64..=500,
        per_call in prop::collection::vec(any::<bool>(), 35),
        storm in storm_status(),
    ) {
        let stalls = [
            Stall::NeverRead,
            Stall::NoAnswer,
            Stall::StatusLine,
            Stall::HeadersTrickled,
            Stall::ChunkedForever,
            Stall::ShortBodyHeld,
            Stall::Storm(storm),
        ];
        let failures = run(async move {
            let mut runs = Vec::new();
            for (index, (letting, stall)) in LETTINGS
                .iter()
                .flat_map(|letting| stalls.iter().map(move |stall| (*letting, *stall)))
                .enumerate()
            {
                runs.push(tokio::spawn(exercise_drop_set_up(
                    letting,
                    stall,
                    Duration::from_millis(attempt_ms),
                    per_call[index],
                )));
            }
            let mut failures = Vec::new();
            for run in runs {
                if let Some(failure) = run.await.expect("the run ended") {
                    failures.push(failure);
                }
            }
            failures
        });
        prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

// ---------------------------------------------------------------------------------------------
// The CPU work on what a call read: the recorder's cleaning, a cleaning cut by the deadline.
// ---------------------------------------------------------------------------------------------

/// The session's token secret: a short unit repeated to 4 KiB (`MAX_TOKEN_BYTES`), the shape
/// SECURITY.md names as the costly one ("a secret that repeats a short unit (`tttt…`) keeps
/// one alive at each place").
fn periodic_token() -> AccessToken {
    AccessToken::new("rt8-access-token", "t".repeat(4096), Timestamp::now())
}

/// A text an answer echoes the periodic secret in, its `t`s plain, percent-escaped and
/// JSON-escaped in turn (about 2.5 s to clean whole in a debug build, 4 KB); `large` puts
/// 70,000 plain bytes before it, so the body is over 64 KiB.
fn costly_note(large: bool) -> String {
    let unit = "ttt%74tt\\u0074tt";
    let costly = unit.repeat(4000 / unit.len());
    if large {
        format!("{}{costly}", "x".repeat(70_000))
    } else {
        costly
    }
}

/// The fake's invoice 8901 answer with `note` added at its top level.
fn invoice_with(note: &str) -> String {
    let world = World::seeded();
    let hourly = world.hourly_workroom();
    let params = [("id".to_string(), hourly.invoices[0].to_string())];
    let reply = marketplace_fake::data::respond(
        &world,
        hourly.client,
        "pay/getInvoice",
        &params,
        Timestamp::now(),
    );
    let mut body = reply.body;
    body["note"] = serde_json::Value::String(note.to_string());
    body.to_string()
}

/// Serves invoice 8901 and every timesheet page with `note` in it (page 1 only for pages).
fn serve_with_note(note: String, status: u16) -> Serve {
    let invoice = invoice_with(&note);
    let answers = page_answers();
    Arc::new(move |path: &str, params: &[(String, String)]| {
        if status != 200 {
            return Some((status, note.clone()));
        }
        if path == "/api/pay/getInvoice" {
            return Some((200, invoice.clone()));
        }
        let page = page_of(params);
        let body = answers
            .iter()
            .find(|((p, n), _)| *p == path && *n == page)
            .map(|(_, body)| body.clone())?;
        if page != 1 {
            return Some((200, body));
        }
        let mut body: serde_json::Value = serde_json::from_str(&body).expect("a page");
        body["note"] = serde_json::Value::String(note.clone());
        Some((200, body.to_string()))
    })
}

/// A data future whose answer is costly to clean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Costly {
    Send,
    SendWithMetadata,
    ItemsCollectAll,
}

/// What the app's response hook reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hook {
    None,
    StatusOnly,
    Body,
}

async fn costly_call(kind: Costly, session: &Session) -> Result<(), Error> {
    match kind {
        Costly::Send => session.get_invoice(8901).send().await.map(drop),
        Costly::SendWithMetadata => session
            .get_invoice(8901)
            .send_with_metadata()
            .await
            .map(drop),
        Costly::ItemsCollectAll => session
            .get_timesheets_for_bid(310_001)
            .rpp(10)
            .items()
            .collect_all()
            .await
            .map(drop),
    }
}

fn with_hook(builder: ClientBuilder, hook: Hook) -> ClientBuilder {
    match hook {
        Hook::None => builder,
        Hook::StatusOnly => builder.on_response(|response| {
            let _ = response.status();
        }),
        Hook::Body => builder.on_response(|response| {
            let _ = response.body();
        }),
    }
}

/// One recorded call of `kind` whose answer is costly to clean, then `Recorder::flush`.
async fn recorded_costly_call(
    kind: Costly,
    large: bool,
    hook: Hook,
    deadline: Duration,
) -> Option<String> {
    let server = hostile(Stall::NoAnswer, 0, serve_with_note(costly_note(large), 200)).await;
    let recorder = Recorder::to_writer(std::io::sink());
    let builder = Client::builder(server.base.clone(), credentials())
        .deadline(deadline)
        .retry(RetryPolicy::none())
        .record(recorder.clone());
    let client = with_hook(builder, hook).build().expect("a client");
    let session = client.session(periodic_token());
    let what = format!(
        "recorded {kind:?} / body over 64 KiB: {large} / hook {hook:?} / deadline {deadline:?}"
    );
    let start = Instant::now();
    let outcome = tokio::time::timeout(deadline * 10, costly_call(kind, &session)).await;
    let call_took = start.elapsed();
    let flushing = tokio::task::spawn_blocking(move || recorder.flush());
    let flushed = tokio::time::timeout(Duration::from_secs(8), flushing).await;
    let flush_done = start.elapsed();
    let mut failures = Vec::new();
    match &outcome {
        Err(_) => failures.push(format!("the call HANGS past {:?}", deadline * 10)),
        Ok(Err(error)) if timeout_after(error).is_none() => {
            failures.push(format!(
                "the call failed otherwise than by a timeout: {error}"
            ));
        }
        _ => {}
    }
    if call_took > deadline + SLACK {
        failures.push(format!("the call took {call_took:?}"));
    }
    match flushed {
        Err(_) => failures.push(format!(
            "Recorder::flush still waits {flush_done:?} after the call started"
        )),
        Ok(Ok(Err(error))) => failures.push(format!("Recorder::flush failed: {error}")),
        Ok(_) if flush_done > deadline + SLACK => failures.push(format!(
            "Recorder::flush returned {flush_done:?} after the call started (the call itself took \
             {call_took:?}, {}): the recorder's cleaning of what the call read ran past the call's \
             deadline",
            match &outcome {
                Ok(Ok(())) => "Ok".to_string(),
                Ok(Err(error)) => error.to_string(),
                Err(_) => "hung".to_string(),
            }
        )),
        Ok(_) => {}
    }
    (!failures.is_empty()).then(|| format!("{what}: {}", failures.join("; ")))
}

proptest! {
    #![proptest_config(config(3))]

    /// "every call ends within its deadline, the CPU work on what it read included"
    /// (SECURITY.md, Inputs), and `ReceivedResponse::body`: "Cleaned when first asked for (once
    /// for every hook and recorder), except a body over 64 KiB, cleaned before the hooks run
    /// under the call's deadline. Either way the cleaning stops at the deadline". A recorded
    /// call (`ClientBuilder::record`) whose answer echoes the session's periodic token secret
    /// with escapes (a success body, under or over 64 KiB; no hook, a hook reading only the
    /// status, or one reading the body): the call ends by its deadline, and so does the
    /// cleaning of what it read: `Recorder::flush`, which waits for it, returns by the call's
    /// deadline too. Each case runs every (size, hook) pair at once for its method and deadline.
    #[test]
    fn a_recorders_cleaning_of_what_a_call_read_stops_at_the_calls_deadline(
        kind in prop_oneof![Just(Costly::Send), Just(Costly::SendWithMetadata), Just(Costly::ItemsCollectAll)],
        deadline_ms in 400u64..=700,
    ) {
        let failures = run(async move {
            let mut runs = Vec::new();
            for large in [false, true] {
                for hook in [Hook::None, Hook::StatusOnly, Hook::Body] {
                    let deadline = Duration::from_millis(deadline_ms);
                    runs.push(tokio::spawn(recorded_costly_call(kind, large, hook, deadline)));
                }
            }
            let mut failures = Vec::new();
            for run in runs {
                failures.extend(run.await.expect("the run ended"));
            }
            failures
        });
        prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// The CPU time (user and system) the threads of this process whose name starts with
/// `prefix` have spent, from `/proc/self/task/*/stat` (clock ticks of 10 ms, Linux's
/// `USER_HZ`).
fn threads_cpu(prefix: &str) -> Duration {
    let mut ticks = 0u64;
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        if !name.trim().starts_with(prefix) {
            continue;
        }
        let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
        // The fields after the command name, which is in parentheses.
        let Some(after) = stat.rsplit_once(')').map(|(_, after)| after) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
        ticks += fields
            .get(11)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        ticks += fields
            .get(12)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Duration::from_millis(ticks * 10)
}

/// "cleaning and decoding a body over 64 KiB run on a blocking thread the call awaits only
/// until its deadline, the cleaning cancelled then" (SECURITY.md, Inputs: "the CPU work on
/// what it read included"): an error answer (500) echoing the periodic token secret with
/// escapes, over 64 KiB (cleaned on a blocking thread) or under (cleaned in place), ends the
/// call by its deadline, and the threads of the call's runtime (its blocking pool included)
/// spend no more CPU once it ended: at most 200 ms in the 1.5 s after.
#[test]
fn a_cleaning_cut_at_the_deadline_spends_no_cpu_after_the_call_ended() {
    let mut failures = Vec::new();
    for (kind, large) in [
        (Costly::Send, true),
        (Costly::ItemsCollectAll, true),
        (Costly::SendWithMetadata, false),
    ] {
        let name = "rt8-cpu-cut";
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(name)
            .enable_all()
            .build()
            .expect("a runtime");
        let deadline = Duration::from_millis(500);
        let outcome = runtime.block_on(async move {
            let server =
                hostile(Stall::NoAnswer, 0, serve_with_note(costly_note(large), 500)).await;
            let client = Client::builder(server.base.clone(), credentials())
                .deadline(deadline)
                .retry(RetryPolicy::none())
                .build()
                .expect("a client");
            let session = client.session(periodic_token());
            let start = Instant::now();
            let outcome = tokio::time::timeout(deadline * 10, costly_call(kind, &session)).await;
            let took = start.elapsed();
            let before = threads_cpu(name);
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let spent = threads_cpu(name).saturating_sub(before);
            (
                outcome.map(|result| result.map_err(|error| error.to_string())),
                took,
                spent,
            )
        });
        runtime.shutdown_timeout(Duration::from_millis(200));
        let (outcome, took, spent) = outcome;
        let what = format!("{kind:?} / error body over 64 KiB: {large}");
        if took > deadline + SLACK || outcome.is_err() {
            failures.push(format!(
                "{what}: the call took {took:?} ({outcome:?}), deadline {deadline:?}"
            ));
        }
        if spent > Duration::from_millis(200) {
            failures.push(format!(
                "{what}: the call's runtime spent {spent:?} of CPU in the 1.5 s after the call ended \
                 ({outcome:?})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Named cases: the worst of the matrix above, one by one.
// ---------------------------------------------------------------------------------------------

/// The limit and time of an `Error::Timeout`, or what the call returned instead.
fn timeout_parts(
    outcome: &Result<(), Error>,
) -> Result<(marketplace_client::TimeoutLimit, Duration), String> {
    match outcome {
        Err(Error::Timeout { limit, after, .. }) => Ok((*limit, *after)),
        Err(other) => Err(other.to_string()),
        Ok(()) => Err("Ok".to_string()),
    }
}

/// "every call ends within its deadline": a `Retry-After: 0` storm (429 to every request),
/// the client built with its defaults (deadline 60 s), the call setting only its own deadline
/// (500 ms) and a retry policy of `u32::MAX` attempts without backoff: `send` and
/// `items().collect_all()` end by the call's deadline.
#[test]
fn a_retry_after_zero_storm_with_unbounded_attempts_set_only_per_call_ends_by_the_calls_deadline() {
    let failures = run(async {
        let mut failures = Vec::new();
        for stream in [false, true] {
            let server = hostile(Stall::Storm(429), 0, serve_nothing()).await;
            let client = Client::builder(server.base.clone(), credentials())
                .build()
                .expect("a client");
            let session = client.session(access_token());
            let deadline = Duration::from_millis(500);
            let storm = RetryPolicy::default()
                .max_attempts(u32::MAX)
                .base_delay(Duration::ZERO)
                .max_delay(Duration::ZERO);
            let options = |options: CallOptions| options.deadline(deadline).retry(storm.clone());
            let start = Instant::now();
            let outcome = tokio::time::timeout(deadline * 10, async {
                if stream {
                    session
                        .get_timesheets_for_bid(310_001)
                        .customize(options)
                        .items()
                        .collect_all()
                        .await
                        .map(drop)
                } else {
                    session
                        .get_invoice(8901)
                        .customize(options)
                        .send()
                        .await
                        .map(drop)
                }
            })
            .await;
            let took = start.elapsed();
            let requests = server.stalled.load(Ordering::SeqCst);
            match outcome {
                Err(_) => failures.push(format!("stream {stream}: HANGS ({requests} requests)")),
                Ok(Ok(())) => failures.push(format!("stream {stream}: Ok from a storm")),
                Ok(Err(_)) if took > deadline + SLACK => {
                    failures.push(format!(
                        "stream {stream}: took {took:?} ({requests} requests)"
                    ));
                }
                Ok(Err(_)) => {}
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// "every call ends within its deadline" and `TimeoutLimit::Deadline` ("The call's deadline
/// passed (ClientBuilder::deadline or CallOptions::deadline)"): the builder's attempt timeout
/// 5 s, the call's own deadline 400 ms, a server that reads the request and never answers:
/// `send` ends by 400 ms with the limit `Deadline`.
#[test]
fn a_per_call_deadline_under_the_builders_attempt_timeout_ends_the_call_and_names_the_deadline() {
    let failures = run(async {
        let server = hostile(Stall::NoAnswer, 0, serve_nothing()).await;
        let client = Client::builder(server.base.clone(), credentials())
            .timeout(Duration::from_secs(5))
            .build()
            .expect("a client");
        let deadline = Duration::from_millis(400);
        let start = Instant::now();
        let outcome = tokio::time::timeout(
            deadline * 10,
            client
                .session(access_token())
                .get_invoice(8901)
                .customize(|o| o.deadline(deadline))
                .send(),
        )
        .await;
        let took = start.elapsed();
        match outcome.map(|result| timeout_parts(&result.map(drop))) {
            Err(_) => vec![format!("HANGS past {:?}", deadline * 10)],
            Ok(Ok((marketplace_client::TimeoutLimit::Deadline, _))) if took <= deadline + SLACK => {
                vec![]
            }
            Ok(other) => vec![format!("after {took:?}: {other:?}")],
        }
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// "every call ends within its deadline" and `TimeoutLimit::Attempt`: the builder's deadline
/// 5 s, the call's own attempt timeout 300 ms and no retries, a server that sends its status
/// line and stalls: `send` ends by the attempt timeout (not the builder's deadline) with the
/// limit `Attempt`.
#[test]
fn a_per_call_attempt_timeout_under_the_builders_deadline_ends_the_call_and_names_the_attempt() {
    let failures = run(async {
        let server = hostile(Stall::StatusLine, 0, serve_nothing()).await;
        let client = Client::builder(server.base.clone(), credentials())
            .deadline(Duration::from_secs(5))
            .build()
            .expect("a client");
        let attempt = Duration::from_millis(300);
        let start = Instant::now();
        let outcome = tokio::time::timeout(
            Duration::from_secs(10),
            client
                .session(access_token())
                .get_invoice(8901)
                .customize(|o| o.timeout(attempt).retry(RetryPolicy::none()))
                .send(),
        )
        .await;
        let took = start.elapsed();
        match outcome.map(|result| timeout_parts(&result.map(drop))) {
            Err(_) => vec!["HANGS past 10 s".to_string()],
            Ok(Ok((marketplace_client::TimeoutLimit::Attempt, _))) if took <= attempt + SLACK => {
                vec![]
            }
            Ok(other) => vec![format!("after {took:?}: {other:?}")],
        }
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// "every call ends within its deadline", for the OAuth calls, which take no `CallOptions`
/// and are never retried, through an app's own HTTP client (`http_client_builder`, to which
/// the builder's connect timeout does not apply): `revoke`, `request_token` and
/// `access_token` against an HTTPS origin on 127.0.0.1 that accepts TCP and never answers
/// the ClientHello end by the builder's deadline.
#[test]
fn oauth_calls_against_a_tls_handshake_that_never_finishes_through_an_apps_http_client_end_by_the_deadline()
 {
    let failures = run(async {
        let mut failures = Vec::new();
        for kind in [TlsKind::Revoke, TlsKind::RequestToken, TlsKind::AccessToken] {
            let base = tls_black_hole(true).await;
            let http = marketplace_client::http_client_builder()
                .expect("a builder")
                .build()
                .expect("an HTTP client");
            let deadline = Duration::from_millis(450);
            let client = Client::builder(base, credentials())
                .http_client(http)
                .deadline(deadline)
                .build()
                .expect("a client");
            let session = client.session(access_token());
            let start = Instant::now();
            let outcome = tokio::time::timeout(deadline * 10, async {
                match kind {
                    TlsKind::Revoke => session.revoke().await,
                    TlsKind::RequestToken => client.request_token(None).await.map(drop),
                    _ => {
                        let verifier =
                            Verifier::new("rt8-verifier-0123456789").expect("a verifier");
                        client
                            .access_token(&request_token(), &verifier)
                            .await
                            .map(drop)
                    }
                }
            })
            .await;
            let took = start.elapsed();
            match outcome.map(|result| timeout_parts(&result)) {
                Err(_) => failures.push(format!("{kind:?}: HANGS")),
                Ok(Ok(_)) if took <= deadline + SLACK => {}
                Ok(other) => failures.push(format!("{kind:?}: after {took:?}: {other:?}")),
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// "every call ends within its deadline, the CPU work on what it read included", and the
/// `Recorder` docs ("the writer thread ends, after writing what is queued, when the last
/// clone is dropped"): closing a recorder, by dropping its last clone or the only client that
/// holds it (as an app does when it is done, often inside an async task), after a call whose
/// answer echoes the session's periodic token secret with escapes, returns by that call's
/// deadline: what it waits for (the cleaning of what the call read) stops there.
#[test]
fn closing_a_recorder_after_a_call_waits_no_longer_than_the_calls_deadline() {
    let failures = run(async {
        let mut failures = Vec::new();
        for drop_the_client in [false, true] {
            let server =
                hostile(Stall::NoAnswer, 0, serve_with_note(costly_note(false), 200)).await;
            let deadline = Duration::from_millis(500);
            let recorder = Recorder::to_writer(std::io::sink());
            let kept = (!drop_the_client).then(|| recorder.clone());
            let client = Client::builder(server.base.clone(), credentials())
                .deadline(deadline)
                .record(recorder)
                .build()
                .expect("a client");
            let session = client.session(periodic_token());
            let start = Instant::now();
            let outcome =
                tokio::time::timeout(deadline * 10, costly_call(Costly::Send, &session)).await;
            let took = start.elapsed();
            let closing = Instant::now();
            drop(session);
            drop(client);
            drop(kept);
            let closed = start.elapsed();
            let what = if drop_the_client {
                "dropping the client (the recorder's only holder)"
            } else {
                "dropping the recorder's last clone"
            };
            if took > deadline + SLACK || !matches!(outcome, Ok(Ok(()))) {
                failures.push(format!("{what}: the call took {took:?}: {outcome:?}"));
            }
            if closed > deadline + SLACK {
                failures.push(format!(
                    "{what} blocked the app's task {:?}, returning {closed:?} after the call started \
                     (the call took {took:?}; deadline {deadline:?})",
                    closing.elapsed()
                ));
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
