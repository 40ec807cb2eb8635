//! Red team: SECURITY.md, "Inputs: bounded before they are read, linear in what is read", the
//! rows about what the client and the fake read (an answer's body, timing and cost, redirects,
//! `Date` headers, callback URLs, values given by the app, recordings, replay, the spelling
//! seed, requests to the fake) and the Known limits that concern them.
//!
//! Written from SECURITY.md, README.md and the rendered API docs only. Growth is measured as a
//! ratio of n to 10 n: allocations counted on the measuring thread (`allocation_counter`), and
//! the thread's own CPU time (`/proc/thread-self/schedstat`, nanoseconds on the CPU, not wall
//! time), with thresholds far from both 10 (linear) and 100 (quadratic). Deadlines are asserted
//! with a generous margin. Cases that could abort the process (a stack overflow) or need their
//! own environment run in a child process of this test binary.

use std::ffi::{OsStr, OsString};
use std::future::Future;
use std::net::SocketAddr;
use std::os::unix::ffi::OsStrExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use marketplace_client::files::OutputDir;
use marketplace_client::jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, RequestToken};
use marketplace_client::recording::{self, Exchange, Side};
use marketplace_client::{
    ApiFailure, Client, ClientBuilder, ConsumerCredentials, Envelope, Error, RetryPolicy, Secret,
    Session, StatusReportDetails, TimeoutLimit, TimesheetList, decode, redact,
};
use marketplace_fake::replay::{Latency, MAX_REPLAYED_LATENCY};
use marketplace_fake::verify::{RawRequest, check_signature};
use marketplace_fake::world::World;
use marketplace_fake::{FakeMarketplace, Replay, Spellings};
use marketplace_tests::stub::{Reply, StubServer};
use marketplace_tests::workroom_reading::read_workroom;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

const KEY: &str = "red-team-consumer-key";
const CONSUMER_SECRET: &str = "red-team-consumer-secret";
/// Set in a child process of this binary: which probe to run.
const CHILD: &str = "RED_TEAM_INPUTS_CHILD";
/// Longest a call may run past its deadline before a case says it outlived it.
const MARGIN: Duration = Duration::from_millis(2500);

fn builder(base: &str) -> ClientBuilder {
    Client::builder(base, ConsumerCredentials::new(KEY, CONSUMER_SECRET))
        .allow_plain_http_oauth_on_loopback()
}

fn session_of(client: &Client) -> Session {
    client.session(AccessToken::new(
        "red-team-access-token",
        "red-team-access-secret",
        Timestamp::now(),
    ))
}

fn fixture(name: &str) -> String {
    String::from_utf8(marketplace_tests::fixtures::read(name).unwrap()).unwrap()
}

/// Runs `call` and returns its output and how long it took; a call still running after a
/// minute fails the case (whatever deadline it was given).
async fn timed<T>(call: impl Future<Output = T>) -> (T, Duration) {
    let started = Instant::now();
    let output = tokio::time::timeout(Duration::from_secs(60), call)
        .await
        .expect("the call was still running after 60 s");
    (output, started.elapsed())
}

/// A raw TCP server on 127.0.0.1 (small send buffer) running `script` on every connection;
/// counts the bytes its scripts managed to write. Dropping it stops everything it runs.
struct RawServer {
    addr: SocketAddr,
    written: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl RawServer {
    async fn start<F, Fut>(script: F) -> RawServer
    where
        F: Fn(TcpStream, Arc<AtomicU64>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_send_buffer_size(16 * 1024).unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(128).unwrap();
        let addr = listener.local_addr().unwrap();
        let written = Arc::new(AtomicU64::new(0));
        let counter = written.clone();
        let script = Arc::new(script);
        let task = tokio::spawn(async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                let (script, counter) = (script.clone(), counter.clone());
                connections.spawn(async move { script(stream, counter).await });
                while connections.try_join_next().is_some() {}
            }
        });
        RawServer {
            addr,
            written,
            task,
        }
    }

    fn http(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads a request head (up to the blank line) and returns it.
async fn read_head(stream: &mut TcpStream) -> Vec<u8> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 4096];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") && head.len() < (1 << 20) {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => head.extend_from_slice(&buffer[..read]),
        }
    }
    head
}

/// Writes `bytes`, counting them; false once the peer is gone.
async fn send(stream: &mut TcpStream, written: &AtomicU64, bytes: &[u8]) -> bool {
    if stream.write_all(bytes).await.is_ok() {
        written.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        true
    } else {
        false
    }
}

/// The thread's own time on the CPU (Linux schedstat, in nanoseconds).
fn thread_cpu() -> Duration {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap();
    Duration::from_nanos(text.split_whitespace().next().unwrap().parse().unwrap())
}

/// What one run of a reader cost on this thread: bytes allocated, allocations, peak bytes held,
/// CPU time (each the least of two runs, on its own: the first run may pay a one-time cost, a
/// lazily built table, and which run used less CPU depends on the machine's load).
#[derive(Debug, Clone, Copy)]
struct Cost {
    bytes: u64,
    allocations: u64,
    peak: u64,
    cpu: Duration,
}

fn cost(run: &dyn Fn()) -> Cost {
    let mut best: Option<Cost> = None;
    for _ in 0..2 {
        let started = thread_cpu();
        let info = allocation_counter::measure(run);
        let cpu = thread_cpu().saturating_sub(started);
        let this = Cost {
            bytes: info.bytes_total,
            allocations: info.count_total,
            peak: info.bytes_max,
            cpu,
        };
        best = Some(match best {
            Some(best) => Cost {
                bytes: best.bytes.min(this.bytes),
                allocations: best.allocations.min(this.allocations),
                peak: best.peak.min(this.peak),
                cpu: best.cpu.min(this.cpu),
            },
            None => this,
        });
    }
    best.unwrap()
}

/// The growth from `n` to `10 n` of `run`, or a line saying how it is out of proportion.
fn growth(what: &str, n: usize, run: &dyn Fn(usize)) -> Option<String> {
    let small = cost(&|| run(n));
    let large = cost(&|| run(10 * n));
    let ratio = |a: u64, b: u64| b as f64 / a.max(1) as f64;
    let bytes = ratio(small.bytes, large.bytes);
    let allocations = ratio(small.allocations, large.allocations);
    let peak = ratio(small.peak.max(4096), large.peak);
    // A floor of 2 ms under the small run keeps timer noise out of the ratio.
    let cpu = large.cpu.as_secs_f64() / small.cpu.as_secs_f64().max(0.002);
    let verdict = bytes <= 25.0 && allocations <= 25.0 && peak <= 25.0 && cpu <= 30.0;
    (!verdict).then(|| {
        format!(
            "{what}: n={n} -> 10n: bytes x{bytes:.1}, allocations x{allocations:.1}, peak x{peak:.1}, \
             cpu x{cpu:.1} ({:?} -> {:?})",
            small.cpu, large.cpu
        )
    })
}

/// A reader's input shape: its name, its n, and a run at a given size.
type Shape<'a> = (&'a str, usize, Box<dyn Fn(usize)>);
/// A callback URL of a given size.
type UrlOf = Box<dyn Fn(usize) -> String>;

fn linear_failures(cases: Vec<Shape<'_>>) -> Vec<String> {
    let mut failures = Vec::new();
    for (what, n, run) in &cases {
        if let Some(failure) = growth(what, *n, run.as_ref()) {
            eprintln!("{failure}");
            failures.push(failure);
        }
    }
    failures
}

fn assert_all_linear(cases: Vec<Shape<'_>>) {
    let failures = linear_failures(cases);
    assert!(
        failures.is_empty(),
        "out of proportion with what was read (n -> 10n; linear is ~10, the bound 25, cpu 30):\n{}",
        failures.join("\n")
    );
}

/// Runs this test binary again with only `test` selected and `CHILD=mode`, plus `env`.
fn run_child(test: &str, mode: &str, env: &[(&str, &OsStr)]) -> std::process::Output {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, mode)
        .env_remove("MARKETPLACE_FAKE_SPELLING_SEED");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn child_mode() -> Option<String> {
    std::env::var(CHILD).ok()
}

fn proptest_runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// A data exchange of pay/getInvoice for `id`, answered with the fixture.
fn invoice_exchange(id: u64) -> Exchange {
    let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 200);
    exchange.http_method = "GET".into();
    exchange.path = "/api/pay/getInvoice".into();
    exchange.params.insert("id".into(), id.to_string());
    exchange
        .headers
        .insert("content-type".into(), "application/json".into());
    exchange.body = Some(fixture("pay/getInvoice.json"));
    exchange
}

fn write_lines(dir: &Path, name: &str, exchanges: &[Exchange]) -> PathBuf {
    let text: String = exchanges.iter().map(|e| e.to_line() + "\n").collect();
    OutputDir::open(dir).unwrap().write(name, text).unwrap();
    dir.join(name)
}

fn sh(script: &str, args: &[&OsStr]) {
    let status = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
}

fn symlink(target: impl AsRef<OsStr>, link: &Path) {
    sh(
        "ln -s -- \"$1\" \"$2\"",
        &[target.as_ref(), link.as_os_str()],
    );
}

fn mkfifo(path: &Path) {
    sh("mkfifo -- \"$1\"", &[path.as_os_str()]);
}

/// `run` on a thread of its own; None when it has not returned within `limit` (it is then left
/// running, and `unblock` is called so that it can end).
fn within<T: Send + 'static>(
    limit: Duration,
    run: impl FnOnce() -> T + Send + 'static,
    unblock: impl FnOnce(),
) -> Option<T> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(run());
    });
    match receiver.recv_timeout(limit) {
        Ok(value) => Some(value),
        Err(_) => {
            unblock();
            None
        }
    }
}

// ---------------------------------------------------------------------------------------------
// An answer's timing: every call ends within its deadline
// ---------------------------------------------------------------------------------------------

/// Attacks: "an answer's timing (stalls, `Retry-After` storms) and its cost | every call ends
/// within its deadline" — answers whose head never completes, with an attempt timeout and a
/// connect timeout far longer than the deadline, for a data GET and an OAuth POST: a head that
/// trickles in one byte at a time (the status line, then a header that never ends); an HTTPS
/// origin that accepts the connection and reads the ClientHello but never answers it; and
/// informational (1xx) answers for ever, as fast as the socket takes them (`100 Continue`,
/// `102 Processing`, `103 Early Hints` with headers), no final answer ever coming.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_whose_head_never_completes_ends_the_call_at_its_deadline() {
    let trickled = RawServer::start(|mut stream, written| async move {
        read_head(&mut stream).await;
        if !send(
            &mut stream,
            &written,
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: ",
        )
        .await
        {
            return;
        }
        while send(&mut stream, &written, b"a").await {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let silent = RawServer::start(|mut stream, _| async move {
        let mut sink = [0u8; 4096];
        while let Ok(read) = stream.read(&mut sink).await {
            if read == 0 {
                break;
            }
        }
        tokio::time::sleep(Duration::from_secs(600)).await;
    })
    .await;
    let informational = RawServer::start(|mut stream, written| async move {
        read_head(&mut stream).await;
        let storm = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
            .repeat(64);
        while send(&mut stream, &written, &storm).await {
            tokio::task::yield_now().await;
        }
    })
    .await;
    let deadline = Duration::from_millis(1500);
    let origins = [
        ("a trickled head", trickled.http()),
        (
            "a TLS handshake never answered",
            format!("https://{}", silent.addr),
        ),
        ("endless 1xx answers", informational.http()),
    ];
    let mut failures = Vec::new();
    for (shape, base) in origins {
        let client = builder(&base)
            .timeout(Duration::from_secs(50))
            .connect_timeout(Duration::from_secs(50))
            .deadline(deadline)
            .build()
            .unwrap();
        let (result, elapsed) = timed(session_of(&client).get_invoice(9003).send()).await;
        if result.is_ok() || elapsed > deadline + MARGIN {
            failures.push(format!(
                "{shape}, data call: {elapsed:?} (deadline {deadline:?}): {:?}",
                result.map(drop)
            ));
        }
        let (result, elapsed) = timed(client.request_token(Some("oob"))).await;
        if result.is_ok() || elapsed > deadline + MARGIN {
            failures.push(format!(
                "{shape}, request_token: {elapsed:?} (deadline {deadline:?}): {:?}",
                result.map(drop)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attacks: "every call ends within its deadline" and `ClientBuilder::timeout` ("response body
/// included") — with a body trickled one byte at a time, never stalling long enough for a read
/// timeout, framed by Content-Length and by chunked encoding; each limit alone must end it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_trickled_byte_by_byte_ends_the_call_at_its_deadline_or_attempt_timeout() {
    for chunked in [false, true] {
        let server = RawServer::start(move |mut stream, written| async move {
            read_head(&mut stream).await;
            let head: &[u8] = if chunked {
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            } else {
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
            };
            if !send(&mut stream, &written, head).await {
                return;
            }
            let piece: &[u8] = if chunked { b"1\r\n \r\n" } else { b" " };
            while send(&mut stream, &written, piece).await {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await;
        // The deadline alone.
        let deadline = Duration::from_millis(1500);
        let client = builder(&server.http())
            .timeout(Duration::from_secs(50))
            .deadline(deadline)
            .build()
            .unwrap();
        let (result, elapsed) = timed(session_of(&client).get_invoice(9003).send()).await;
        assert!(
            result.is_err() && elapsed <= deadline + MARGIN,
            "chunked={chunked}: a trickled body held the call {elapsed:?} (deadline {deadline:?}): {result:?}"
        );
        // The attempt timeout alone, without retries.
        let timeout = Duration::from_millis(1500);
        let client = builder(&server.http())
            .timeout(timeout)
            .deadline(Duration::from_secs(50))
            .retry(RetryPolicy::none())
            .build()
            .unwrap();
        let (result, elapsed) = timed(session_of(&client).get_invoice(9003).send()).await;
        assert!(
            matches!(
                result,
                Err(Error::Timeout {
                    limit: TimeoutLimit::Attempt,
                    ..
                })
            ) && elapsed <= timeout + MARGIN,
            "chunked={chunked}: the attempt timeout ({timeout:?}) did not end a trickled body: {elapsed:?}: {result:?}"
        );
    }
}

/// Attacks: "an answer's body | at most `max_response_bytes` ..., checked on `Content-Length`
/// and while reading" together with the section's title, "bounded before they are read" —
/// chunked framing that never ends: a chunk-size line of endless leading zeros, an endless
/// chunk extension, endless trailer fields, and a body of one-byte chunks past the limit.
/// Each must end (an error) within the deadline, after reading a bounded amount: the server
/// counts what it managed to write (64 MiB covers the limit, its framing and every socket
/// buffer of the loopback).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunked_framing_that_never_ends_is_read_bounded_and_ends_by_the_deadline() {
    // Small: the one-byte chunks reach it in a few thousand frames, which a debug build on a
    // loaded machine reads well within the deadline (65,536 of them took 3 s there).
    let limit: u64 = 4 * 1024;
    let shapes: [(&str, &[u8], &[u8]); 4] = [
        (
            "endless zeros in a chunk-size line",
            b"",
            b"0000000000000000000000000000000000000000000000000000000000000000",
        ),
        (
            "an endless chunk extension",
            b"1;ext=",
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ),
        (
            "endless trailer fields",
            b"0\r\n",
            b"X-Trailer: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n",
        ),
        (
            "one-byte chunks past the limit",
            b"",
            b"1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n1\r\n \r\n",
        ),
    ];
    let mut failures = Vec::new();
    for (shape, start, repeated) in shapes {
        let (start, repeated) = (start.to_vec(), repeated.repeat(512));
        let server = RawServer::start(move |mut stream, written| {
            let (start, repeated) = (start.clone(), repeated.clone());
            async move {
                read_head(&mut stream).await;
                let head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
                if !send(&mut stream, &written, head).await || !send(&mut stream, &written, &start).await {
                    return;
                }
                while written.load(Ordering::Relaxed) < (4 << 30)
                    && send(&mut stream, &written, &repeated).await
                {}
            }
        })
        .await;
        let deadline = Duration::from_secs(3);
        let client = builder(&server.http())
            .timeout(Duration::from_secs(50))
            .deadline(deadline)
            .max_response_bytes(limit)
            .retry(RetryPolicy::none())
            .build()
            .unwrap();
        let (result, elapsed) = timed(session_of(&client).get_invoice(9003).send()).await;
        let written = server.written();
        eprintln!("{shape}: {elapsed:?}, {written} bytes written, {result:?}");
        if result.is_ok() || elapsed > deadline + MARGIN {
            failures.push(format!("{shape}: ended after {elapsed:?} with {result:?}"));
        }
        if written > 64 << 20 {
            failures.push(format!(
                "{shape}: the client read {} MiB of an answer whose body limit is {limit} bytes",
                written >> 20
            ));
        }
        if shape.starts_with("one-byte") && !matches!(result, Err(Error::ResponseTooLarge { .. })) {
            failures.push(format!("{shape}: not ResponseTooLarge: {result:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attacks: "at most `max_response_bytes` (32 MiB), checked on `Content-Length`" — a
/// Content-Length past the limit (by one byte, by far, and the largest length hyper carries,
/// `u64::MAX - 2`) followed by a body that never comes must be refused on the header as
/// `ResponseTooLarge`, at once, not after waiting for the deadline; lengths the HTTP stack
/// cannot carry (`u64::MAX`, past it, negative, two that disagree) end the call promptly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_content_length_past_the_limit_is_refused_before_the_body_is_awaited() {
    let limit: u64 = 32 << 20;
    let lengths = [
        (format!("Content-Length: {}\r\n", limit + 1), true),
        (format!("Content-Length: {}\r\n", 1u64 << 40), true),
        (format!("Content-Length: {}\r\n", u64::MAX - 2), true),
        (format!("Content-Length: {}\r\n", u64::MAX), false),
        ("Content-Length: 18446744073709551616\r\n".to_owned(), false),
        (
            "Content-Length: 99999999999999999999999999999999\r\n".to_owned(),
            false,
        ),
        ("Content-Length: -1\r\n".to_owned(), false),
        (
            "Content-Length: 5\r\nContent-Length: 40000000\r\n".to_owned(),
            false,
        ),
        ("Content-Length: 5, 40000000\r\n".to_owned(), false),
    ];
    let mut failures = Vec::new();
    for (header, too_large) in lengths {
        let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{header}\r\n{{");
        let server = RawServer::start(move |mut stream, written| {
            let head = head.clone();
            async move {
                read_head(&mut stream).await;
                send(&mut stream, &written, head.as_bytes()).await;
                tokio::time::sleep(Duration::from_secs(600)).await;
            }
        })
        .await;
        let deadline = Duration::from_secs(20);
        let client = builder(&server.http())
            .timeout(Duration::from_secs(50))
            .deadline(deadline)
            .retry(RetryPolicy::none())
            .build()
            .unwrap();
        let (result, elapsed) = timed(session_of(&client).get_invoice(9003).send()).await;
        let prompt = elapsed <= MARGIN;
        let right = if too_large {
            matches!(result, Err(Error::ResponseTooLarge { .. }))
        } else {
            result.is_err()
        };
        if !prompt || !right {
            failures.push(format!(
                "{}: after {elapsed:?}: {result:?}",
                header.trim_end()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A deflate stream (fixed Huffman) of `1 + 258 * matches` spaces: one literal, then matches of
/// length 258 at distance 1, 13 bits each.
fn deflate_spaces(matches: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }
    impl Bits {
        fn put(&mut self, value: u64, count: u32) {
            self.acc |= value << self.n;
            self.n += count;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        fn code(&mut self, code: u64, len: u32) {
            let reversed = (0..len).fold(0, |r, i| r | (((code >> i) & 1) << (len - 1 - i)));
            self.put(reversed, len);
        }
    }
    let mut bits = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // BFINAL
    bits.put(1, 2); // fixed Huffman
    bits.code(0x30 + u64::from(b' '), 8);
    for _ in 0..matches {
        bits.code(0xC0 + 5, 8); // length code 285: 258
        bits.code(0, 5); // distance code 0: 1
    }
    bits.code(0, 7); // end of block
    if bits.n > 0 {
        bits.out.push(bits.acc as u8);
    }
    bits.out
}

/// Attacks: "an answer's body | at most `max_response_bytes`, checked ... while reading" and the
/// threat model's "spend memory ... out of proportion with what it read" — a compression bomb
/// (gzip and zlib-deflate, 1.6 MB on the wire, 256 MiB inflated) sent with `Content-Encoding`
/// whether or not the client asked for it. Peak heap of the whole call (on a current-thread
/// runtime on this thread) must stay near the limit, never near the inflated size.
#[test]
fn a_compression_bomb_is_bounded_by_max_response_bytes() {
    let deflate = deflate_spaces((256 << 20) / 258);
    let mut gzip = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    gzip.extend_from_slice(&deflate);
    gzip.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
    let mut zlib = vec![0x78, 0x01];
    zlib.extend_from_slice(&deflate);
    zlib.extend_from_slice(&[0, 0, 0, 1]);
    let servers = marketplace_tests::runtime();
    let limit: u64 = 2 << 20;
    let mut failures = Vec::new();
    for (encoding, body) in [("gzip", gzip), ("deflate", zlib)] {
        let body = Arc::new(body);
        let server = servers.block_on(RawServer::start(move |mut stream, written| {
            let body = body.clone();
            async move {
                read_head(&mut stream).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: {encoding}\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                if send(&mut stream, &written, head.as_bytes()).await {
                    send(&mut stream, &written, &body).await;
                }
            }
        }));
        let base = server.http();
        let mut outcome = None;
        let info = allocation_counter::measure(|| {
            let runtime = marketplace_tests::current_thread_runtime();
            outcome = Some(runtime.block_on(async {
                let client = builder(&base)
                    .max_response_bytes(limit)
                    .deadline(Duration::from_secs(30))
                    .retry(RetryPolicy::none())
                    .build()
                    .unwrap();
                session_of(&client).get_invoice(9003).send().await.map(drop)
            }));
        });
        eprintln!(
            "{encoding}: peak {} KiB: {outcome:?}",
            info.bytes_max / 1024
        );
        if outcome.as_ref().is_some_and(Result::is_ok) || info.bytes_max > 64 << 20 {
            failures.push(format!(
                "{encoding}: peak heap {} MiB with a {} MiB limit: {outcome:?}",
                info.bytes_max >> 20,
                limit >> 20
            ));
        }
        drop(server);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A page of `count` copies of the fixture's first timesheet (written as text, not built as a
/// `Value`, to keep the test's own memory small).
fn big_page(count: usize) -> String {
    let mut page: Value = serde_json::from_str(&fixture("pay/getTimesheetsForBid.json")).unwrap();
    let sheet = page["data"]["timesheets"]["0"].to_string();
    page["data"]["timesheets"] = json!("PLACEHOLDER");
    page["data"]["numResults"] = json!(count);
    let mut items = String::with_capacity(count * (sheet.len() + 12));
    items.push('{');
    for index in 0..count {
        if index > 0 {
            items.push(',');
        }
        items.push_str(&format!("\"{index}\":{sheet}"));
    }
    items.push('}');
    page.to_string().replacen("\"PLACEHOLDER\"", &items, 1)
}

/// Attacks: "cleaning and decoding a body over 64 KiB run on a blocking thread the call awaits
/// only until its deadline" — on the success path, without hooks: a valid page whose decoding
/// alone (measured first, on this thread) takes several times the deadline. The call must end
/// near its deadline, not when decoding ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_body_costly_to_decode_ends_the_call_at_its_deadline() {
    let mut count = 40_000;
    let (body, decoding) = loop {
        let body = big_page(count);
        let started = Instant::now();
        let decoded = decode::<Envelope<TimesheetList>>(body.as_bytes()).unwrap();
        let decoding = started.elapsed();
        drop(decoded);
        if decoding >= Duration::from_secs(5) || body.len() > 120 << 20 {
            break (body, decoding);
        }
        count *= 2;
    };
    eprintln!("{} bytes decode in {decoding:?}", body.len());
    let stub = StubServer::start().await.unwrap();
    stub.fallback("/api/pay/getTimesheetsForBid", Reply::json(200, body));
    let deadline = decoding / 3;
    let client = builder(&stub.base_url())
        .max_response_bytes(256 << 20)
        .timeout(Duration::from_secs(50))
        .deadline(deadline)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let (result, elapsed) = timed(session_of(&client).get_timesheets_for_bid(310001).send()).await;
    assert!(
        elapsed <= deadline + MARGIN,
        "decoding {decoding:?} of work held the call {elapsed:?} past its deadline of {deadline:?}: {:?}",
        result.map(|page| page.timesheets.len())
    );
}

/// Attacks: "cleaning ... a body over 64 KiB run on a blocking thread the call awaits only until
/// its deadline, the cleaning cancelled then" — on the path of a *successful* answer with a
/// response hook (which gets the body cleaned): 10 MiB of secret-named pairs, which cost the
/// scrubber far more than the deadline (measured first on this thread).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_body_costly_to_clean_for_a_hook_ends_the_call_at_its_deadline() {
    let invoice: Value = serde_json::from_str(&fixture("pay/getInvoice.json")).unwrap();
    let pairs = r#"{"secret":"x","password":"y"},"#.repeat((10 << 20) / 30);
    let body = invoice.to_string().replacen(
        r#""data":{"#,
        &format!(r#""data":{{"extra":[{pairs}{{}}],"#),
        1,
    );
    let started = Instant::now();
    let cleaned = redact(&body, &[]);
    let cleaning = started.elapsed();
    drop(cleaned);
    eprintln!("{} bytes clean in {cleaning:?}", body.len());
    let stub = StubServer::start().await.unwrap();
    stub.fallback("/api/pay/getInvoice", Reply::json(200, body));
    let deadline = (cleaning / 4).max(Duration::from_millis(500));
    let seen = Arc::new(AtomicU64::new(0));
    let hook_seen = seen.clone();
    let client = builder(&stub.base_url())
        .timeout(Duration::from_secs(100))
        .deadline(deadline)
        .retry(RetryPolicy::none())
        .on_response(move |response| {
            hook_seen.fetch_add(
                response.body().map_or(0, <[u8]>::len) as u64,
                Ordering::Relaxed,
            );
        })
        .build()
        .unwrap();
    let (result, elapsed) = timed(session_of(&client).get_invoice(9003).send()).await;
    assert!(
        elapsed <= deadline + MARGIN,
        "cleaning for a hook ({cleaning:?} of work) held the call {elapsed:?} past its deadline of {deadline:?}: {:?}",
        result.map(drop)
    );
}

// ---------------------------------------------------------------------------------------------
// Date headers (the clock)
// ---------------------------------------------------------------------------------------------

fn signed_timestamp(request: &marketplace_tests::stub::RecordedRequest) -> i64 {
    let header = request.header("authorization").unwrap();
    let start = header.find("oauth_timestamp=\"").unwrap() + "oauth_timestamp=\"".len();
    let end = start + header[start..].find('"').unwrap();
    header[start..end].parse().unwrap()
}

const MISMATCH: &str = r#"{"api":"pay/getInvoice","apiVersion":1,"rcode":0,"error":{"code":"E_API_AUTH_SIGNATURE_MISMATCH","type":"authentication","message":"signature mismatch"}}"#;

/// Attacks: "`Date` headers of refusals | ... refused after it retries once with the corrected
/// clock; bounded" — a service that refuses every request with a `Date` two hours ahead of
/// whatever the request was signed with. Call after call, each correction is measured against
/// the clock the attempt signed with: each call may retry once, no more, and no timestamp the
/// client signs may leave a day of the local clock however many calls ratchet it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_date_that_always_runs_ahead_of_the_signature_never_ratchets_the_clock_past_a_day() {
    let stub = StubServer::start().await.unwrap();
    stub.route("/api/pay/getInvoice", |request| {
        let date = Timestamp::from_second(signed_timestamp(request) + 2 * 3600).unwrap();
        Reply::json(401, MISMATCH).header(
            "Date",
            &date.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string(),
        )
    });
    let client = builder(&stub.base_url())
        .deadline(Duration::from_secs(20))
        .build()
        .unwrap();
    let session = session_of(&client);
    let mut failures = Vec::new();
    for call in 0..20 {
        let before = stub.requests().len();
        let result = session.get_invoice(9003).send().await;
        let requests = stub.requests();
        if requests.len() - before > 2 {
            failures.push(format!(
                "call {call}: {} requests for one call: {result:?}",
                requests.len() - before
            ));
        }
        if result.is_ok() {
            failures.push(format!("call {call}: succeeded"));
        }
    }
    let now = Timestamp::now().as_second();
    for request in stub.requests() {
        let signed = signed_timestamp(&request);
        if (signed - now).abs() > 24 * 3600 + 300 {
            failures.push(format!(
                "signed {signed}, {} s from the local clock",
                signed - now
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attacks the Known limit "`Date` and `Retry-After` are read in the IMF-fixdate form (RFC 2822)
/// only: a service sending an obsolete HTTP date form gets no clock correction". RFC 9110 §5.6.7:
/// "A recipient that parses a timestamp value in an HTTP header field MUST accept all three
/// HTTP-date formats." A refusal whose `Date` (two hours ahead) is in RFC 850 or asctime form
/// must correct the clock like one in IMF-fixdate form (the control, which must pass too).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_dated_in_any_http_date_form_corrects_the_clock() {
    let forms = [
        ("IMF-fixdate", "%a, %d %b %Y %H:%M:%S GMT"),
        ("RFC 850", "%A, %d-%b-%y %H:%M:%S GMT"),
        ("asctime", "%a %b %e %H:%M:%S %Y"),
    ];
    let mut failures = Vec::new();
    for (form, format) in forms {
        let stub = StubServer::start().await.unwrap();
        let format = format.to_owned();
        let refused = Arc::new(Mutex::new(false));
        stub.route("/api/pay/getInvoice", move |request| {
            let mut refused = refused.lock().unwrap();
            if *refused {
                return Reply::json(200, fixture("pay/getInvoice.json"));
            }
            *refused = true;
            let date = Timestamp::from_second(signed_timestamp(request) + 2 * 3600).unwrap();
            Reply::json(401, MISMATCH).header("Date", &date.strftime(&format).to_string())
        });
        let client = builder(&stub.base_url()).build().unwrap();
        let result = session_of(&client).get_invoice(9003).send().await;
        let requests = stub.requests();
        let corrected = requests.len() == 2
            && (signed_timestamp(&requests[1]) - signed_timestamp(&requests[0]) - 7200).abs() < 300;
        if !corrected || result.is_err() {
            failures.push(format!(
                "{form}: {} request(s), not retried on the corrected clock: {:?}",
                requests.len(),
                result.map(drop)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Readers: linear in what is read
// ---------------------------------------------------------------------------------------------

/// Attacks: "the scrubber (each pass one look at each byte)" and `redact`'s "Linear in the text"
/// — with openers that are never closed or that nest, in places the benches do not go: XML tags
/// never closed, secret-named arrays and objects never closed or nested inside each other,
/// escaped strings inside strings, percent- and HTML-escaped openers, names spelled with long
/// runs of ignored separators, attribute values never closed. Each at n and 10 n.
#[test]
fn the_scrubber_is_linear_on_openers_that_never_close_or_nest() {
    let shapes: Vec<Shape<'_>> = vec![
        (
            "<secret> never closed",
            2_000,
            Box::new(|k| drop(redact(&"<secret>a ".repeat(k), &[]))),
        ),
        (
            "<password> tags nested",
            2_000,
            Box::new(|k| {
                drop(redact(
                    &format!("{}x{}", "<password>".repeat(k), "</password>".repeat(k)),
                    &[],
                ))
            }),
        ),
        (
            "\"secret\":[ never closed",
            2_000,
            Box::new(|k| drop(redact(&"{\"secret\":[".repeat(k), &[]))),
        ),
        (
            "\"secret\":{ never closed",
            2_000,
            Box::new(|k| drop(redact(&"{\"secret\":{\"a\":".repeat(k), &[]))),
        ),
        (
            "secret-named arrays nested",
            2_000,
            Box::new(|k| {
                drop(redact(
                    &format!("{}1{}", "{\"secret\":[".repeat(k), "]}".repeat(k)),
                    &[],
                ))
            }),
        ),
        (
            "escaped secret strings in a string",
            2_000,
            Box::new(|k| {
                drop(redact(
                    &format!("{{\"a\":\"{}\"}}", "\\\"secret\\\":\\\"".repeat(k)),
                    &[],
                ))
            }),
        ),
        (
            "&quot;secret&quot;:&quot; openers",
            2_000,
            Box::new(|k| drop(redact(&"&quot;secret&quot;:&quot;".repeat(k), &[]))),
        ),
        (
            "%22secret%22%3A%5B openers",
            2_000,
            Box::new(|k| drop(redact(&"%22secret%22%3A%5B".repeat(k), &[]))),
        ),
        (
            "\\u0022secret\\u0022:\\u0022 openers",
            2_000,
            Box::new(|k| drop(redact(&"\\u0022secret\\u0022:\\u0022".repeat(k), &[]))),
        ),
        (
            "a name of n ignored separators",
            20_000,
            Box::new(|k| {
                drop(redact(
                    &format!("{{\"s{}ecret\": \"value\"}}", "_-. ".repeat(k)),
                    &[],
                ))
            }),
        ),
        (
            "partial names s_e_c_r_e_",
            4_000,
            Box::new(|k| drop(redact(&"s_e_c_r_e_".repeat(k), &[]))),
        ),
        (
            "secret= chained without separators",
            4_000,
            Box::new(|k| drop(redact(&"secret=".repeat(k), &[]))),
        ),
        (
            "<a secret=\" attributes never closed",
            2_000,
            Box::new(|k| drop(redact(&"<a secret=\"".repeat(k), &[]))),
        ),
        (
            "oauth_verifier names without values",
            2_000,
            Box::new(|k| drop(redact(&"\"oauth_verifier\" oauth_verifier ".repeat(k), &[]))),
        ),
        (
            "backslash runs before quotes",
            2_000,
            Box::new(|k| {
                drop(redact(
                    &format!("{{\"secret\":\"{}\"}}", "\\\\\\\"".repeat(k)),
                    &[],
                ))
            }),
        ),
    ];
    assert_all_linear(shapes);
}

/// Attacks: "error bodies (`error_body.rs`: errors kept once through a set, depth bounded)" —
/// with nesting and repetition in places the benches do not go: `errors` arrays and index-keyed
/// objects never closed, `error` objects nested in `error`, `data` in `data`, one duplicated key
/// repeated, a single `E_` word n bytes long, form pairs without separators, HTML never closed.
#[test]
fn error_bodies_are_linear_on_nesting_and_repetition() {
    let parse = |body: String| drop(ApiFailure::parse(body.as_bytes()));
    let shapes: Vec<Shape<'_>> = vec![
        (
            "errors arrays never closed",
            2_000,
            Box::new(move |k| parse("{\"errors\":[".repeat(k))),
        ),
        (
            "errors index objects never closed",
            2_000,
            Box::new(move |k| parse("{\"errors\":{\"0\":".repeat(k))),
        ),
        (
            "error in error",
            2_000,
            Box::new(move |k| {
                parse(format!(
                    "{}{{\"code\":\"E_X\"}}{}",
                    "{\"rcode\":0,\"error\":".repeat(k),
                    "}".repeat(k)
                ))
            }),
        ),
        (
            "data in data with errors",
            2_000,
            Box::new(move |k| {
                parse(format!(
                    "{}{{\"errors\":[{{\"code\":\"E_X\"}}]}}{}",
                    "{\"rcode\":0,\"data\":".repeat(k),
                    "}".repeat(k)
                ))
            }),
        ),
        (
            "one code key duplicated",
            4_000,
            Box::new(move |k| {
                parse(format!(
                    "{{\"rcode\":0,{}\"x\":1}}",
                    "\"code\":\"E_SAME\",".repeat(k)
                ))
            }),
        ),
        (
            "one E_ word n bytes long",
            40_000,
            Box::new(move |k| parse(format!("E_{}", "A".repeat(k)))),
        ),
        (
            "E_ words glued",
            4_000,
            Box::new(move |k| parse("E_A_".repeat(k))),
        ),
        (
            "error= without &",
            4_000,
            Box::new(move |k| parse("error=E_X".repeat(k))),
        ),
        (
            "oauth_problem= chained",
            4_000,
            Box::new(move |k| parse("oauth_problem=".repeat(k))),
        ),
        (
            "<html> of open tags",
            2_000,
            Box::new(move |k| parse(format!("<html>{}E_X", "<div><p>".repeat(k)))),
        ),
        (
            "errors listing errors",
            1_000,
            Box::new(move |k| {
                parse(format!(
                    "{}{{\"code\":\"E_X\"}}{}",
                    "{\"code\":\"E_Y\",\"errors\":[".repeat(k),
                    "]}".repeat(k)
                ))
            }),
        ),
    ];
    assert_all_linear(shapes);
}

/// Numbers whose cost follows their value rather than their length (see the test below).
fn number_cost_failures() -> Vec<String> {
    let page = fixture("pay/getTimesheetsForBid.json");
    let sheet = fixture("pay/getTimesheet.json");
    let mut failures = Vec::new();
    let exponents = [
        "99",
        "999999999999999999",
        "9999999999999999999999999999999999999999",
    ];
    for (field, body) in [
        ("rate", &page),
        ("id", &page),
        ("totalHours", &sheet),
        ("startDate", &sheet),
    ] {
        let replace = |number: &str| {
            let value: Value = serde_json::from_str(body).unwrap();
            let text = value.to_string();
            let key = format!("\"{field}\":");
            let at = text.find(&key).unwrap() + key.len();
            let end = at + text[at..].find([',', '}']).unwrap();
            format!("{}{number}{}", &text[..at], &text[end..])
        };
        for sign in ["", "-"] {
            let costs: Vec<Cost> = exponents
                .iter()
                .map(|exponent| {
                    let body = replace(&format!("1e{sign}{exponent}"));
                    cost(&|| {
                        for _ in 0..20 {
                            drop(decode::<Envelope<TimesheetList>>(body.as_bytes()));
                            drop(decode::<Envelope<marketplace_client::TimesheetDetails>>(
                                body.as_bytes(),
                            ));
                        }
                    })
                })
                .collect();
            let base = costs[0].cpu.as_secs_f64().max(0.002);
            for (exponent, cost) in exponents.iter().zip(&costs) {
                let ratio = cost.cpu.as_secs_f64() / base;
                if ratio > 5.0 || cost.bytes > costs[0].bytes * 5 + 65_536 {
                    failures.push(format!(
                        "{field} = 1e{sign}{exponent}: cpu x{ratio:.1}, bytes {} vs {}",
                        cost.bytes, costs[0].bytes
                    ));
                }
            }
        }
    }
    for exponent in exponents {
        let cheap = cost(&|| drop(ApiFailure::parse(br#"{"rcode":1e2,"error":"E_X"}"#)));
        let body = format!(r#"{{"rcode":1e{exponent},"error":"E_X"}}"#);
        let this = cost(&|| drop(ApiFailure::parse(body.as_bytes())));
        if this.cpu.as_secs_f64() > 5.0 * cheap.cpu.as_secs_f64().max(0.002) {
            failures.push(format!(
                "rcode 1e{exponent}: {:?} vs {:?}",
                this.cpu, cheap.cpu
            ));
        }
    }
    failures
}

/// Attacks: "decoders (`wire/`)" linear in what is read, and README's "a JSON number is read
/// from its digits" — with the hostile parts where nobody listed them: an unknown field holding
/// many keys, a key n bytes long, long runs of escapes, a long number; the one field of the API
/// that holds free JSON (a status report's `comments`, kept as a map), given many keys and long
/// escape runs; and numbers whose cost must follow their length, not their value: `1e<E>` with
/// E of 2 digits against E of 18 and 40 digits (either sign) in a decimal (`rate`,
/// `totalHours`), an ID (`id`), an epoch date (`startDate`) and an error body's `rcode`.
#[test]
fn decoding_costs_follow_the_length_of_unknown_fields_escapes_free_json_and_numbers() {
    let page = fixture("pay/getTimesheetsForBid.json");
    let report = fixture("pay/getStatusReport.json");
    let with_unknown = move |extra: String| {
        let body = page.replacen('{', &format!("{{\"extra\":{extra},"), 1);
        drop(decode::<Envelope<TimesheetList>>(body.as_bytes()));
    };
    let with_comments = move |comment: String| {
        let mut value: Value = serde_json::from_str(&report).unwrap();
        value["data"]["comments"] = json!({"0": "PLACEHOLDER"});
        let body = value.to_string().replacen("\"PLACEHOLDER\"", &comment, 1);
        drop(decode::<Envelope<StatusReportDetails>>(body.as_bytes()));
    };
    let (a, b, c, d) = (
        with_unknown.clone(),
        with_unknown.clone(),
        with_unknown.clone(),
        with_unknown,
    );
    let (e, f) = (with_comments.clone(), with_comments);
    let shapes: Vec<Shape<'_>> = vec![
        (
            "an unknown object of many keys",
            4_000,
            Box::new(move |k| {
                a(format!(
                    "{{{}\"z\":0}}",
                    (0..k).map(|i| format!("\"k{i}\":{i},")).collect::<String>()
                ))
            }),
        ),
        (
            "an unknown key n bytes long",
            100_000,
            Box::new(move |k| b(format!("{{\"{}\":1}}", "k".repeat(k)))),
        ),
        (
            "a run of \\u escapes",
            20_000,
            Box::new(move |k| c(format!("\"{}\"", "\\u00e9\\\\".repeat(k)))),
        ),
        (
            "a number n digits long",
            100_000,
            Box::new(move |k| d(format!("1{}", "0".repeat(k)))),
        ),
        (
            "comments of many keys",
            4_000,
            Box::new(move |k| {
                e(format!(
                    "{{{}\"z\":0}}",
                    (0..k)
                        .map(|i| format!("\"k{i}\":[{i}],"))
                        .collect::<String>()
                ))
            }),
        ),
        (
            "comments with escape runs",
            20_000,
            Box::new(move |k| {
                f(format!(
                    "{{\"text\":\"{}\"}}",
                    "\\ud83d\\ude00\\n".repeat(k)
                ))
            }),
        ),
    ];
    let mut failures = linear_failures(shapes);
    failures.extend(number_cost_failures());
    assert!(
        failures.is_empty(),
        "out of proportion with what was read (n -> 10n; linear is ~10, the bound 25, cpu 30; a number's value x5):\n{}",
        failures.join("\n")
    );
}

/// Attacks: "callback URLs | a verifier or a clear `Error::Callback`" with the readers linear —
/// callbacks large in the parts the benches leave alone: an internationalized host of n
/// distinct characters (IDNA to ASCII: punycode), a path of n `..` segments, a fragment of n
/// escapes, n empty pairs, n duplicated verifiers, tabs and newlines the URL parser strips,
/// a user info part n bytes long.
#[test]
fn callback_urls_are_linear_in_hosts_paths_fragments_and_repetition() {
    let client = Client::builder(
        "https://marketplace.example",
        ConsumerCredentials::new(KEY, CONSUMER_SECRET),
    )
    .build()
    .unwrap();
    let client = Arc::new(client);
    let request = Arc::new(RequestToken {
        token: "request-token".to_owned(),
        secret: Secret::new("request-token-secret"),
        callback_confirmed: true,
    });
    let check = move |url: String| {
        drop(client.verifier_from_callback(&request, &url));
    };
    let query = "?oauth_token=request-token&oauth_verifier=verifier-value";
    let cases: Vec<(&str, UrlOf, usize)> = vec![
        (
            "an IDNA host of n distinct characters",
            Box::new(move |k| {
                let host: String = (0..k)
                    .map(|i| char::from_u32(0x4E00 + i as u32).unwrap())
                    .collect();
                format!("https://{host}.example/cb{query}")
            }),
            500,
        ),
        (
            "an IDNA host of n labels",
            Box::new(move |k| format!("https://{}example/cb{query}", "é.".repeat(k))),
            2_000,
        ),
        (
            "a path of n .. segments",
            Box::new(move |k| format!("https://app.example/{}cb{query}", "a/../".repeat(k))),
            4_000,
        ),
        (
            "a fragment of n escapes",
            Box::new(move |k| format!("https://app.example/cb{query}#{}", "%25".repeat(k))),
            10_000,
        ),
        (
            "n empty pairs",
            Box::new(move |k| format!("https://app.example/cb{query}{}", "&".repeat(k))),
            10_000,
        ),
        (
            "n duplicated verifiers",
            Box::new(move |k| {
                format!(
                    "https://app.example/cb?oauth_token=request-token{}",
                    "&oauth_verifier=v".repeat(k)
                )
            }),
            2_000,
        ),
        (
            "tabs and newlines everywhere",
            Box::new(move |k| format!("https://app.example/c\tb{}{query}", "\n\t".repeat(k))),
            10_000,
        ),
        (
            "a user info n bytes long",
            Box::new(move |k| format!("https://{}@app.example/cb{query}", "u".repeat(k))),
            10_000,
        ),
        (
            "an opaque URL of n percent-encoded bytes",
            Box::new(move |k| format!("myapp:{}{query}", "%E2%80%AE".repeat(k))),
            4_000,
        ),
    ];
    let shapes: Vec<Shape<'_>> = cases
        .into_iter()
        .map(|(what, url, n)| {
            let check = check.clone();
            (
                what,
                n,
                Box::new(move |k: usize| check(url(k))) as Box<dyn Fn(usize)>,
            )
        })
        .collect();
    assert_all_linear(shapes);
}

/// Attacks: "callback URLs | a verifier or a clear `Error::Callback` that shows no secret" —
/// generated callbacks carrying verifiers under every secret-named spelling (case, `_-. `
/// separators, percent-escaped name characters, prefixes and suffixes), in the query, the
/// fragment or both, duplicated, percent-encoded, behind `;` or `&amp;` separators, with the
/// right or a forged `oauth_token`. When the callback is refused, no verifier value it held
/// (as written or decoded) and not the request token's secret may appear in the error.
#[test]
fn a_refused_callback_shows_no_verifier_in_any_spelling() {
    let request = RequestToken {
        token: "request-token".to_owned(),
        secret: Secret::new("request-token-secret-4f1"),
        callback_confirmed: true,
    };
    let name = prop_oneof![
        Just("oauth_verifier".to_owned()),
        Just("OAUTH_VERIFIER".to_owned()),
        Just("OAuth-Verifier".to_owned()),
        Just("oauth.verifier".to_owned()),
        Just("oauth%20verifier".to_owned()),
        Just("oauth+verifier".to_owned()),
        Just("oauthverifier".to_owned()),
        Just("oauth%5Fverifier".to_owned()),
        Just("%6Fauth_verifier".to_owned()),
        Just("x_oauth_verifier".to_owned()),
        Just("oauth_verifier_2".to_owned()),
        Just("oauth_verifier[]".to_owned()),
        Just("oauth_verifier[0]".to_owned()),
        Just("client_secret".to_owned()),
        Just("client_secret*".to_owned()),
        Just("Pass_Word".to_owned()),
    ];
    let value = "[A-Za-z0-9]{8,16}";
    let encoded = prop_oneof![Just(0u8), Just(1u8), Just(2u8)];
    let separator = prop_oneof![Just("&"), Just(";"), Just("&amp;"), Just("%26")];
    let place = prop_oneof![Just("query"), Just("fragment"), Just("both")];
    let token = prop_oneof![Just("request-token"), Just("forged-token"), Just("")];
    let strategy = (
        proptest::collection::vec((name, value, encoded, separator), 1..4),
        place,
        token,
    );
    let mut runner = proptest_runner(512);
    runner
        .run(&strategy, |(pairs, place, token)| {
            // A client of its own per case: what earlier cases made it remember stays out.
            let client = Client::builder(
                "https://marketplace.example",
                ConsumerCredentials::new(KEY, CONSUMER_SECRET),
            )
            .build()
            .unwrap();
            let mut values = Vec::new();
            let mut text = String::new();
            for (name, value, encoded, separator) in &pairs {
                let written = match encoded {
                    0 => value.clone(),
                    1 => value.bytes().map(|b| format!("%{b:02X}")).collect(),
                    _ => value.bytes().map(|b| format!("%{b:02x}")).collect(),
                };
                values.push(value.clone());
                text.push_str(&format!("{separator}{name}={written}"));
            }
            let url = match place {
                "query" => format!("https://app.example/cb?oauth_token={token}{text}"),
                "fragment" => format!("https://app.example/cb?oauth_token={token}#x=1{text}"),
                _ => format!("https://app.example/cb?oauth_token={token}{text}#{text}"),
            };
            if let Err(error) = client.verifier_from_callback(&request, &url) {
                let mut shown = format!("{error}\n{error:?}");
                let mut source = std::error::Error::source(&error);
                while let Some(cause) = source {
                    shown.push_str(&format!("\n{cause}\n{cause:?}"));
                    source = cause.source();
                }
                for secret in values
                    .iter()
                    .map(String::as_str)
                    .chain(["request-token-secret-4f1"])
                {
                    prop_assert!(!shown.contains(secret), "{url}\nshows {secret}:\n{shown}");
                }
            }
            Ok(())
        })
        .unwrap();
}

/// A stub on a runtime of its own (so its allocations are not counted on this thread).
struct SideStub {
    stub: StubServer,
    _runtime: tokio::runtime::Runtime,
}

fn side_stub(body: String) -> SideStub {
    let runtime = marketplace_tests::runtime();
    let stub = runtime.block_on(StubServer::start()).unwrap();
    stub.fallback("/api/pay/getInvoice", Reply::json(401, body.clone()));
    stub.fallback("/oauth/getRequestToken", Reply::json(401, body));
    SideStub {
        stub,
        _runtime: runtime,
    }
}

fn on_this_thread<T>(call: impl Future<Output = T>) -> T {
    marketplace_tests::current_thread_runtime().block_on(call)
}

fn random_text(len: usize, seed: u64) -> String {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let alphabet = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~";
            alphabet[(state % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

/// Attacks: "values given by the app | ... a secret's length costs linear memory (`SecretSet`: a
/// DFA up to 4 KiB of secrets, a contiguous NFA beyond)" — a consumer secret, a credential
/// header's value and a callback's query values (each a known secret) at n and 10 n, on both
/// sides of the 4 KiB switch, through a whole call whose refusal (16 KiB, echoing pieces of
/// them) is cleaned; the stub runs on another thread, so what is counted is the client's.
#[test]
fn the_apps_secrets_cost_memory_and_time_linear_in_their_size() {
    let body = format!(
        "{{\"rcode\":0,\"error\":{{\"code\":\"E_API_AUTH_SIGNATURE_MISMATCH\",\"message\":\"{}\"}}}}",
        random_text(16 * 1024, 7)
    );
    let stub = Arc::new(side_stub(body));
    let base = stub.stub.base_url();
    let (b1, b2, b3) = (base.clone(), base.clone(), base);
    let shapes: Vec<Shape<'_>> = vec![
        (
            "a consumer secret below 4 KiB",
            300,
            Box::new(move |k| {
                let client =
                    Client::builder(&b1, ConsumerCredentials::new(KEY, random_text(k, 11)))
                        .allow_plain_http_oauth_on_loopback()
                        .build()
                        .unwrap();
                drop(on_this_thread(session_of(&client).get_invoice(9003).send()));
            }),
        ),
        (
            "a consumer secret past 4 KiB",
            8_000,
            Box::new({
                let base = b2.clone();
                move |k| {
                    let client =
                        Client::builder(&base, ConsumerCredentials::new(KEY, random_text(k, 13)))
                            .allow_plain_http_oauth_on_loopback()
                            .build()
                            .unwrap();
                    drop(on_this_thread(session_of(&client).get_invoice(9003).send()));
                }
            }),
        ),
        (
            "an X-Api-Key value",
            8_000,
            Box::new(move |k| {
                let client = builder(&b2).build().unwrap();
                let value =
                    marketplace_client::reqwest::header::HeaderValue::from_str(&random_text(k, 17))
                        .unwrap();
                let name =
                    marketplace_client::reqwest::header::HeaderName::from_static("x-api-key");
                drop(on_this_thread(
                    session_of(&client)
                        .get_invoice(9003)
                        .customize(|options| options.header(name, value))
                        .send(),
                ));
            }),
        ),
        (
            "a callback's query values",
            100,
            Box::new(move |k| {
                let client = builder(&b3).build().unwrap();
                let query: String = (0..k)
                    .map(|i| format!("&v{i}={}", random_text(12, i as u64 + 3)))
                    .collect();
                let callback = format!("https://app.example/cb?x=1{query}");
                drop(on_this_thread(client.request_token(Some(&callback))));
            }),
        ),
    ];
    assert_all_linear(shapes);
    drop(stub);
}

/// Attacks: "values given by the app | ... errors cleaned of the app's secrets" with the cleaning
/// bounded — app secrets that spell the scrubber's own mark (`[redacted]`, `redacted`), so
/// that every replacement makes the secret appear again; the service echoes them. Re-reading
/// the result must not loop: the call ends within its deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_that_spell_the_redaction_mark_do_not_make_cleaning_loop() {
    let mut failures = Vec::new();
    for secret in [
        "[redacted]",
        "redacted",
        "[redacted][redacted]",
        "d][redacted][re",
        "]redacted[",
    ] {
        let echo = format!(
            "{{\"rcode\":0,\"error\":{{\"code\":\"E_X\",\"message\":\"{s} {s}{s} [{s}]\"}},\"secret\":\"{s}\"}}",
            s = secret
        );
        let stub = StubServer::start().await.unwrap();
        stub.fallback("/api/pay/getInvoice", Reply::json(401, echo.repeat(200)));
        let deadline = Duration::from_secs(3);
        let client = Client::builder(stub.base_url(), ConsumerCredentials::new(KEY, secret))
            .deadline(deadline)
            .build()
            .unwrap();
        let session = client.session(AccessToken::new("token", secret, Timestamp::now()));
        let (result, elapsed) = timed(session.get_invoice(9003).send()).await;
        if result.is_ok() || elapsed > deadline + MARGIN {
            failures.push(format!("{secret}: {elapsed:?}: {result:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Deep nesting: a child process, so that a stack overflow fails this case and no other
// ---------------------------------------------------------------------------------------------

fn deep_probes() {
    let deep_arrays = "[".repeat(1_000_000);
    let deep_objects = "{\"a\":".repeat(500_000);
    let closed = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    fn on_small_stack(name: &str, probe: Box<dyn FnOnce() + Send>) {
        println!("probe: {name}");
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(probe)
            .unwrap()
            .join()
            .unwrap();
        println!("done: {name}");
    }
    let report = fixture("pay/getStatusReport.json");
    let page = fixture("pay/getTimesheetsForBid.json");
    for (place, deep) in [
        ("arrays", &deep_arrays),
        ("objects", &deep_objects),
        ("closed", &closed),
    ] {
        let mut value: Value = serde_json::from_str(&report).unwrap();
        value["data"]["comments"] = json!({"0": {"deep": "PLACEHOLDER"}});
        let body = value.to_string().replacen("\"PLACEHOLDER\"", deep, 1);
        on_small_stack(
            &format!("decode: a status report's comments, deep {place}"),
            Box::new(move || drop(decode::<Envelope<StatusReportDetails>>(body.as_bytes()))),
        );
        let body = page.replacen('{', &format!("{{\"extra\":{deep},"), 1);
        on_small_stack(
            &format!("decode: an unknown field, deep {place}"),
            Box::new(move || drop(decode::<Envelope<TimesheetList>>(body.as_bytes()))),
        );
        for shape in [
            "{\"rcode\":0,\"error\":",
            "{\"rcode\":0,\"errors\":[",
            "{\"rcode\":0,\"data\":{\"errors\":",
            "{\"rcode\":0,\"error\":{\"message\":",
        ] {
            let body = format!("{shape}{deep}");
            on_small_stack(
                &format!("ApiFailure::parse: {shape} deep {place}"),
                Box::new(move || drop(ApiFailure::parse(body.as_bytes()))),
            );
        }
        let text = format!("{{\"secret\":{deep}");
        on_small_stack(
            &format!("redact: deep {place}"),
            Box::new(move || drop(redact(&text, &[]))),
        );
        let text = format!("{{\"a\":\"{}\"}}", deep.replace('"', "\\\""));
        on_small_stack(
            &format!("redact: deep {place} escaped in a string"),
            Box::new(move || drop(redact(&text, &[]))),
        );
        let line = invoice_exchange(1)
            .to_line()
            .replacen('{', &format!("{{\"extra\":{deep},"), 1);
        let for_read = line.clone();
        on_small_stack(
            &format!("Exchange::from_line: deep {place}"),
            Box::new(move || drop(Exchange::from_line(&line))),
        );
        on_small_stack(
            &format!("recording::read: deep {place}"),
            Box::new(move || {
                let dir = tempfile::tempdir().unwrap();
                OutputDir::open(dir.path())
                    .unwrap()
                    .write("deep.jsonl", for_read + "\n")
                    .unwrap();
                drop(recording::read(dir.path()));
                drop(Replay::from_files([dir.path()]));
            }),
        );
        let mut exchange = invoice_exchange(1);
        exchange.body = Some(format!(
            "{{\"api\":\"pay/getBilling\",\"apiVersion\":1,\"rcode\":1,\"data\":{deep}"
        ));
        on_small_stack(
            &format!("Replay::from_exchanges: a body deep {place}"),
            Box::new(move || drop(Replay::from_exchanges([exchange]))),
        );
    }
}

/// Attacks: "every reader of it linear", "depth bounded" and README's "Decoding never panics
/// on any bytes" — deep nesting (a million arrays, half a million objects, and 200,000 closed
/// levels) where nobody listed it: the free-JSON `comments` of a status report, an unknown
/// field of a page, inside `error`, `errors`, `data.errors` and a message of an error body, a
/// secret-named value for the scrubber (also escaped inside a string), an unknown field of a
/// recording line read by `recording::read` and `Replay::from_files`, and a replayed body.
/// Each on a 2 MiB stack (tokio's blocking threads); run in a child process, which must exit
/// normally (a stack overflow aborts it).
#[test]
fn deep_nesting_in_places_nobody_listed_never_overflows_the_stack() {
    if child_mode().as_deref() == Some("deep") {
        deep_probes();
        return;
    }
    let output = run_child(
        "deep_nesting_in_places_nobody_listed_never_overflows_the_stack",
        "deep",
        &[],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout
        .lines()
        .rev()
        .find(|line| line.starts_with("probe: "));
    assert!(
        output.status.success(),
        "the child died ({:?}) in {last:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Recordings: recording::read and Replay::from_files
// ---------------------------------------------------------------------------------------------

/// Attacks: "recordings (`recording::read`, `wire-audit`) | regular files only ...
/// `O_NONBLOCK`/`O_NOFOLLOW`, checked through the open handle" — a FIFO named `.jsonl`, and a
/// `.jsonl` link to a FIFO *of the same directory* (the one kind of link `read` follows), read
/// as a directory, as a file and by `Replay::from_files`: refused, without blocking (no writer
/// ever opens the FIFOs; after 10 s the test opens them to free the reader and fails).
#[test]
fn a_fifo_reached_through_a_link_of_the_same_directory_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    write_lines(&root, "a-good.jsonl", &[invoice_exchange(1)]);
    mkfifo(&root.join("fifo"));
    mkfifo(&root.join("b-fifo.jsonl"));
    symlink("fifo", &root.join("c-link.jsonl"));
    symlink("./fifo", &root.join("d-dot-link.jsonl"));
    let mut failures = Vec::new();
    let targets = [
        root.clone(),
        root.join("b-fifo.jsonl"),
        root.join("c-link.jsonl"),
        root.join("d-dot-link.jsonl"),
    ];
    for target in targets {
        for via in ["recording::read", "Replay::from_files"] {
            let path = target.clone();
            let unblock_dir = root.clone();
            let outcome = within(
                Duration::from_secs(10),
                move || match via {
                    "recording::read" => recording::read(&path)
                        .map(|r| r.len())
                        .map_err(|e| e.to_string()),
                    _ => Replay::from_files([&path])
                        .map(|r| r.len())
                        .map_err(|e| e.to_string()),
                },
                || {
                    for fifo in ["fifo", "b-fifo.jsonl"] {
                        sh(": > \"$1\" &", &[unblock_dir.join(fifo).as_os_str()]);
                    }
                },
            );
            match outcome {
                None => failures.push(format!("{via}({}): blocked on a FIFO", target.display())),
                Some(Ok(count)) if target != root => failures.push(format!(
                    "{via}({}): read {count} exchanges from a FIFO",
                    target.display()
                )),
                Some(Ok(_)) => failures.push(format!(
                    "{via}({}): a directory holding FIFOs named .jsonl read without error",
                    target.display()
                )),
                Some(Err(_)) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attacks: "recordings | ... no link out of the directory" and `read`'s "a symbolic link is
/// followed only to a file of the same directory" — links that leave by every route: relative,
/// absolute, a chain through a link of the same directory (named `.jsonl` or not), through a
/// directory link inside, `sub/../..`, out and back in and out again, into a sibling whose name
/// starts like the directory's, and through `/proc/self/root`. The outside file holds an
/// exchange with a marker; it must never be read, whether the directory, the link, or a
/// directory link leading to the directory is read.
#[test]
fn a_link_that_leaves_the_directory_by_any_route_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let outside = OutputDir::create(root.join("outside")).unwrap();
    let marker = 66_666_666;
    write_lines(outside.path(), "secret.jsonl", &[invoice_exchange(marker)]);
    let sibling = OutputDir::create(root.join("rec2")).unwrap();
    write_lines(sibling.path(), "secret.jsonl", &[invoice_exchange(marker)]);
    let routes: Vec<(&str, Vec<(&str, String)>)> = vec![
        (
            "relative",
            vec![("a.jsonl", "../outside/secret.jsonl".into())],
        ),
        (
            "absolute",
            vec![(
                "a.jsonl",
                format!("{}/outside/secret.jsonl", root.display()),
            )],
        ),
        (
            "chain through a .jsonl link",
            vec![
                ("a.jsonl", "b.jsonl".into()),
                ("b.jsonl", "../outside/secret.jsonl".into()),
            ],
        ),
        (
            "chain through a plain link",
            vec![
                ("a.jsonl", "b".into()),
                ("b", "../outside/secret.jsonl".into()),
            ],
        ),
        (
            "through a directory link",
            vec![
                ("sub", "../outside".into()),
                ("a.jsonl", "sub/secret.jsonl".into()),
            ],
        ),
        (
            "out, in and out",
            vec![("a.jsonl", "../rec/../outside/secret.jsonl".into())],
        ),
        (
            "dot segments",
            vec![("a.jsonl", "./.././outside/./secret.jsonl".into())],
        ),
        (
            "a sibling named like the directory",
            vec![("a.jsonl", "../rec2/secret.jsonl".into())],
        ),
        (
            "an absolute path into the sibling",
            vec![("a.jsonl", format!("{}/rec2/secret.jsonl", root.display()))],
        ),
        (
            "/proc/self/root",
            vec![(
                "a.jsonl",
                format!("/proc/self/root{}/outside/secret.jsonl", root.display()),
            )],
        ),
        (
            "a double slash",
            vec![(
                "a.jsonl",
                format!("/{}//outside//secret.jsonl", root.display()),
            )],
        ),
    ];
    let mut failures = Vec::new();
    for (route, links) in routes {
        let rec = root.join("rec");
        sh(
            "rm -rf -- \"$1\" \"$2\"",
            &[rec.as_os_str(), root.join("rec-link").as_os_str()],
        );
        let rec_dir = OutputDir::create(&rec).unwrap();
        write_lines(rec_dir.path(), "0-good.jsonl", &[invoice_exchange(1)]);
        for (name, target) in &links {
            symlink(target, &rec.join(name));
        }
        symlink("rec", &root.join("rec-link"));
        for read_path in [rec.clone(), rec.join("a.jsonl"), root.join("rec-link")] {
            let read = catch_unwind(|| recording::read(&read_path));
            let leaked = match &read {
                Err(_) => {
                    failures.push(format!("{route}: read({}) panicked", read_path.display()));
                    continue;
                }
                Ok(Ok(records)) => records.iter().any(|r| {
                    r.exchange
                        .params
                        .get("id")
                        .is_some_and(|id| id == &marker.to_string())
                }),
                Ok(Err(_)) => false,
            };
            if leaked {
                failures.push(format!(
                    "{route}: read({}) followed a link out",
                    read_path.display()
                ));
            }
            // The good file holds one exchange; a replay of more followed the link.
            let honest = if read_path.ends_with("a.jsonl") { 0 } else { 1 };
            match catch_unwind(|| Replay::from_files([&read_path])) {
                Err(_) => failures.push(format!(
                    "{route}: Replay::from_files({}) panicked",
                    read_path.display()
                )),
                Ok(Ok(replay)) if replay.len() > honest => failures.push(format!(
                    "{route}: Replay::from_files({}) loaded {} exchanges: it followed a link out",
                    read_path.display(),
                    replay.len()
                )),
                Ok(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attacks: "recordings | ... a line that is not an exchange named by file and line" and `read`'s
/// "every .jsonl file of a directory in name order" — file names no one expects: invalid UTF-8,
/// a newline, a bidi override, only the extension, a leading dash, the extension in capitals,
/// trailing dots and spaces, 255 bytes long. Reading must never panic, and whatever is read
/// comes in name order.
#[test]
fn odd_file_names_never_panic_and_are_read_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<OsString> = vec![
        OsStr::from_bytes(b"\xff\xfe-invalid.jsonl").to_owned(),
        OsStr::from_bytes(b"bad\xc3.jsonl").to_owned(),
        "new\nline.jsonl".into(),
        "\u{202e}lnosj.txt.jsonl".into(),
        ".jsonl".into(),
        "-rf.jsonl".into(),
        "UPPER.JSONL".into(),
        "dots.jsonl.".into(),
        "space.jsonl ".into(),
        format!("{}.jsonl", "n".repeat(249)).into(),
        "plain.jsonl".into(),
    ];
    for (index, name) in names.iter().enumerate() {
        let line = invoice_exchange(index as u64 + 1).to_line();
        sh(
            "printf '%s\\n' \"$1\" > \"$2\"",
            &[OsStr::new(&line), dir.path().join(name).as_os_str()],
        );
    }
    let read = catch_unwind(|| recording::read(dir.path()));
    let records = match read {
        Err(_) => panic!("recording::read panicked on odd file names"),
        Ok(Err(error)) => {
            eprintln!("refused: {error}");
            Vec::new()
        }
        Ok(Ok(records)) => records,
    };
    let files: Vec<&PathBuf> = records.iter().map(|r| &r.file).collect();
    let mut sorted = files.clone();
    sorted.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    assert_eq!(files, sorted, "not read in name order");
    for name in &names {
        let path = dir.path().join(name);
        assert!(
            catch_unwind(|| drop(recording::read(&path))).is_ok(),
            "recording::read panicked on {name:?}"
        );
        assert!(
            catch_unwind(|| drop(Replay::from_files([&path]))).is_ok(),
            "Replay::from_files panicked on {name:?}"
        );
    }
    assert!(
        catch_unwind(|| drop(Replay::from_files([dir.path()]))).is_ok(),
        "Replay::from_files panicked on the directory"
    );
}

/// Attacks: "recordings | ... ≤ 4,096 files" (`MAX_FILES`, "The most recording files read
/// reads from one directory") — a directory of 4,097 one-exchange files: `read` and
/// `Replay::from_files` must not read them all.
#[test]
fn a_directory_of_more_than_max_files_recordings_is_not_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::open(dir.path()).unwrap();
    let files = recording::MAX_FILES + 1;
    for index in 0..files {
        let line = invoice_exchange(index as u64 + 1).to_line() + "\n";
        out.write(format!("{index:05}.jsonl"), line).unwrap();
    }
    match recording::read(dir.path()) {
        Ok(records) => assert!(
            records.len() <= recording::MAX_FILES,
            "read {} exchanges from {files} files (MAX_FILES {})",
            records.len(),
            recording::MAX_FILES
        ),
        Err(error) => eprintln!("refused: {error}"),
    }
    if let Ok(replay) = Replay::from_files([dir.path()]) {
        assert!(
            replay.len() <= recording::MAX_FILES,
            "replayed {} exchanges",
            replay.len()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Replay: what a recording can make the fake send
// ---------------------------------------------------------------------------------------------

/// Signs in to `fake` with a client that records the headers of every answer.
async fn signed_in(
    fake: &FakeMarketplace,
    deadline: Duration,
) -> (Session, Arc<Mutex<Vec<(String, String)>>>) {
    let headers = Arc::new(Mutex::new(Vec::new()));
    let seen = headers.clone();
    let client = fake
        .client_builder()
        .deadline(deadline)
        .timeout(deadline)
        .on_response(move |response| {
            let mut seen = seen.lock().unwrap();
            for (name, value) in response.headers() {
                seen.push((
                    name.to_string(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                ));
            }
        })
        .build()
        .unwrap();
    let login = fake
        .world()
        .user(fake.world().hourly_workroom().client)
        .unwrap()
        .login
        .clone();
    let session = fake.sign_in(&client, &login).await.unwrap();
    (session, headers)
}

/// Attacks: "recordings replayed by the fake | ... an exchange that cannot be sent back (a status
/// or a header that is not HTTP) is a typed error naming its file and line" — generated header
/// names and values (CR, LF, CRLF followed by an injected header, NUL, DEL, non-ASCII, a colon
/// in a name, an empty name) under the kept headers and others. Either the replay is refused
/// naming `file:line`, or what the fake sends carries no injected header and ends in time.
#[test]
fn replayed_headers_that_are_not_http_are_refused_or_never_reach_the_wire() {
    let runtime = marketplace_tests::runtime();
    let name = prop_oneof![
        Just("content-type".to_owned()),
        Just("retry-after".to_owned()),
        Just("date".to_owned()),
        Just("content-length".to_owned()),
        Just("x-other".to_owned()),
        Just("bad name".to_owned()),
        Just("a:b".to_owned()),
        Just(String::new()),
        Just("content-type\r\nx-injected".to_owned()),
    ];
    let poison = prop_oneof![
        Just("\r\nx-injected: yes".to_owned()),
        Just("\nx-injected: yes".to_owned()),
        Just("\rx-injected: yes".to_owned()),
        Just("\u{0}".to_owned()),
        Just("\u{7f}".to_owned()),
        Just("é".to_owned()),
        Just("\r\n\r\n<html>injected body".to_owned()),
    ];
    let strategy = (name, "[a-z/ 0-9]{0,12}", poison, 1usize..4);
    let mut runner = proptest_runner(24);
    runner
        .run(&strategy, |(name, before, poison, line)| {
            let dir = tempfile::tempdir().unwrap();
            let mut exchanges: Vec<Exchange> = (1..line as u64).map(invoice_exchange).collect();
            let mut bad = invoice_exchange(9003);
            bad.headers.insert(name.clone(), format!("{before}{poison}"));
            exchanges.push(bad);
            let path = write_lines(dir.path(), "poisoned.jsonl", &exchanges);
            match Replay::from_files([&path]) {
                Err(error) => {
                    let text = error.to_string();
                    prop_assert!(
                        text.contains(&format!("poisoned.jsonl:{line}")),
                        "{name:?}: {poison:?}: the error does not name poisoned.jsonl:{line}: {text}"
                    );
                }
                Ok(replay) => {
                    let outcome: Result<(), String> = runtime.block_on(async {
                        let fake = FakeMarketplace::start().await.unwrap();
                        fake.replay(replay);
                        let (session, headers) = signed_in(&fake, Duration::from_secs(10)).await;
                        let (result, elapsed) = timed(session.get_invoice(9003).send()).await;
                        let headers = headers.lock().unwrap().clone();
                        if headers.iter().any(|(n, _)| n.contains("injected")) {
                            return Err(format!("an injected header reached the client: {headers:?}"));
                        }
                        if let Err(error) = &result {
                            if error.to_string().contains("injected body") {
                                return Err(format!("an injected body reached the client: {error}"));
                            }
                        }
                        if elapsed > Duration::from_secs(10) + MARGIN {
                            return Err(format!("the replayed answer took {elapsed:?}: {result:?}"));
                        }
                        Ok(())
                    });
                    prop_assert!(outcome.is_ok(), "{name:?}: {poison:?}: {}", outcome.unwrap_err());
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Attacks: "recordings replayed by the fake | ... an exchange that cannot be sent back (a status
/// or a header that is not HTTP) is a typed error naming its file and line", with README's
/// "answered ... status, `Content-Type`, `Retry-After` and body as recorded" — answers that
/// are HTTP but cannot be framed as recorded: framing headers that lie about the body
/// (`content-length` too short and too long, `transfer-encoding: chunked`, `connection:
/// upgrade`), and statuses that cannot be a final answer with a body (1xx: 100, 101 switching
/// protocols, 102, 103, 199; the bodiless 204 and 304 with a recorded body). The replay is
/// refused naming `file:line`, or the client reads the answer (framing: the recorded body,
/// whole) without hanging, and the fake keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_answers_that_cannot_be_framed_as_recorded_neither_hang_nor_break_the_fake() {
    let mut failures = Vec::new();
    let framings: [&[(&str, &str)]; 5] = [
        &[("content-length", "2")],
        &[("content-length", "99999")],
        &[("transfer-encoding", "chunked")],
        &[("connection", "upgrade"), ("upgrade", "h2c")],
        &[("content-length", "2"), ("transfer-encoding", "chunked")],
    ];
    for framing in framings {
        let dir = tempfile::tempdir().unwrap();
        let mut exchange = invoice_exchange(9003);
        for (name, value) in framing {
            exchange.headers.insert((*name).into(), (*value).into());
        }
        let path = write_lines(dir.path(), "framing.jsonl", &[exchange]);
        let replay = match Replay::from_files([&path]) {
            Err(error) => {
                if !error.to_string().contains("framing.jsonl:1") {
                    failures.push(format!(
                        "{framing:?}: refused without file and line: {error}"
                    ));
                }
                continue;
            }
            Ok(replay) => replay,
        };
        let fake = FakeMarketplace::start().await.unwrap();
        fake.replay(replay);
        let deadline = Duration::from_secs(8);
        let (session, _) = signed_in(&fake, deadline).await;
        let (result, elapsed) = timed(session.get_invoice(9003).send()).await;
        if result.is_err() || elapsed > deadline {
            failures.push(format!(
                "{framing:?}: after {elapsed:?}: {:?}",
                result.map(drop)
            ));
        }
    }

    for status in [100u16, 101, 102, 103, 199, 204, 304] {
        let dir = tempfile::tempdir().unwrap();
        let mut exchange = invoice_exchange(9003);
        exchange.status = status;
        let path = write_lines(
            dir.path(),
            "status.jsonl",
            &[exchange, invoice_exchange(9004)],
        );
        let replay = match Replay::from_files([&path]) {
            Err(error) => {
                if !error.to_string().contains("status.jsonl:1") {
                    failures.push(format!("{status}: refused without file and line: {error}"));
                }
                continue;
            }
            Ok(replay) => replay,
        };
        let fake = FakeMarketplace::start().await.unwrap();
        fake.replay(replay);
        let deadline = Duration::from_secs(5);
        let (session, _) = signed_in(&fake, deadline).await;
        let (result, elapsed) = timed(session.get_invoice(9003).send()).await;
        if elapsed > deadline + MARGIN {
            failures.push(format!(
                "{status}: the client waited {elapsed:?}: {:?}",
                result.as_ref().map(drop)
            ));
        }
        let (after, _) = timed(session.get_invoice(9004).send()).await;
        if after.is_err() {
            failures.push(format!(
                "{status}: the fake no longer answers after replaying it ({:?}): {:?}",
                result.map(drop),
                after.map(drop)
            ));
        }
    }

    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attacks: "recordings replayed by the fake | ... a recorded latency waits at most 30 s"
/// (`MAX_REPLAYED_LATENCY`) — recorded latencies of `u64::MAX`, `2^63` and one microsecond past
/// the cap, replayed with `Latency::Replay`, all at once: each answer comes within the cap
/// (plus a margin), and none makes the fake fail the request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_latencies_past_u64_bounds_wait_at_most_the_cap() {
    let latencies = [
        u64::MAX,
        1 << 63,
        MAX_REPLAYED_LATENCY.as_micros() as u64 + 1,
    ];
    let dir = tempfile::tempdir().unwrap();
    let exchanges: Vec<Exchange> = latencies
        .iter()
        .zip(9001..)
        .map(|(&latency, id)| {
            let mut exchange = invoice_exchange(id);
            exchange.latency_us = Some(latency);
            exchange.attempt = Some(1);
            exchange
        })
        .collect();
    let path = write_lines(dir.path(), "slow.jsonl", &exchanges);
    let replay = Replay::from_files([&path])
        .unwrap()
        .latency(Latency::Replay);
    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(replay);
    let limit = MAX_REPLAYED_LATENCY + Duration::from_secs(20);
    let (session, _) = signed_in(&fake, limit).await;
    let calls = (9001..9004).map(|id| timed(session.get_invoice(id).send()));
    let results = futures::future::join_all(calls).await;
    let mut failures = Vec::new();
    for ((result, elapsed), latency) in results.into_iter().zip(latencies) {
        if result.is_err() || elapsed > MAX_REPLAYED_LATENCY + MARGIN {
            failures.push(format!(
                "latency_us {latency}: after {elapsed:?} (cap {MAX_REPLAYED_LATENCY:?}): {:?}",
                result.map(drop)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn host_of(fake: &FakeMarketplace) -> String {
    fake.base_url()
        .split_once("://")
        .unwrap()
        .1
        .trim_end_matches('/')
        .to_owned()
}

/// Attacks: "requests to the fake marketplace | a malformed ... request is refused ... never a
/// panic" and the threat model's "hang" — connections that never finish: on the HTTPS fake,
/// TLS handshakes never begun or a ClientHello cut short; on the plain-HTTP fake, a request
/// line never ended, headers never ended, a body shorter than its `Content-Length`, one header
/// byte every half second. Opened before a real client comes, they must not keep the fake
/// from answering it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfinished_connections_do_not_stall_the_fake() {
    let mut failures = Vec::new();
    for tls in [true, false] {
        let fake = if tls {
            FakeMarketplace::start().await.unwrap()
        } else {
            FakeMarketplace::start_plain_http().await.unwrap()
        };
        let host = host_of(&fake);
        let partials: Vec<&[u8]> = if tls {
            vec![
                b"",
                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\x00\x01\x02",
            ]
        } else {
            vec![
                b"GET /api/pay/getInvoice?id=1 HT",
                b"GET /api/pay/getInvoice?id=1 HTTP/1.1\r\nHost: x\r\nX-A: ",
                b"POST /oauth/getRequestToken HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nabc",
                b"G",
            ]
        };
        let mut stalled = Vec::new();
        for _ in 0..(16 / partials.len()) {
            for partial in &partials {
                let mut stream = TcpStream::connect(&host).await.unwrap();
                stream.write_all(partial).await.unwrap();
                stalled.push(stream);
            }
        }
        let dripper = {
            let host = host.clone();
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(&host).await.unwrap();
                let start: &[u8] = if tls {
                    b"\x16"
                } else {
                    b"GET / HTTP/1.1\r\nX-Drip: "
                };
                stream.write_all(start).await.unwrap();
                while stream.write_all(b"a").await.is_ok() {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        let workroom = fake.world().hourly_workroom();
        let session = fake.session(workroom.client).unwrap();
        let (result, elapsed) = timed(
            session
                .get_timesheet_by_bid_id(workroom.bid_id)
                .customize(|options| options.deadline(Duration::from_secs(10)))
                .send(),
        )
        .await;
        dripper.abort();
        if result.is_err() {
            failures.push(format!(
                "{}: with {} unfinished connections open, a real call failed after {elapsed:?}: {:?}",
                if tls { "HTTPS" } else { "plain HTTP" },
                stalled.len() + 1,
                result.map(drop)
            ));
        }
        drop(stalled);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Offers up to `total` bytes (`start`, then `filler` repeated) on a new connection to `host`;
/// returns how many the peer accepted before it stopped reading or closed, and what it answered.
async fn offer(host: &str, start: &[u8], filler: &[u8], total: usize) -> (usize, Vec<u8>) {
    let stream = TcpStream::connect(host).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let answer = tokio::spawn(async move {
        let mut answer = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(Ok(read)) =
            tokio::time::timeout(Duration::from_secs(15), reader.read(&mut buffer)).await
        {
            if read == 0 || answer.len() > 1 << 20 {
                break;
            }
            answer.extend_from_slice(&buffer[..read]);
        }
        answer
    });
    let filler = filler.repeat((64 * 1024 / filler.len()).max(1));
    let mut accepted = 0;
    if writer.write_all(start).await.is_ok() {
        accepted += start.len();
        while accepted < total {
            match tokio::time::timeout(Duration::from_secs(3), writer.write_all(&filler)).await {
                Ok(Ok(())) => accepted += filler.len(),
                _ => break,
            }
        }
    }
    drop(writer);
    (accepted, answer.await.unwrap())
}

fn status_of(answer: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(answer);
    let line = text
        .lines()
        .find(|line| line.starts_with("HTTP/1.1 ") && !line.starts_with("HTTP/1.1 1"))?;
    line.split(' ').nth(1)?.parse().ok()
}

/// Attacks: "requests to the fake marketplace | a malformed or oversized request is refused with
/// a typed error" — request heads without end: a request line of 256 MiB, one header value of
/// 256 MiB, millions of small headers, a header name without its colon. The fake must stop
/// reading after a bounded amount (64 MiB covers every socket buffer) and answer 4xx, if it
/// answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_request_head_is_refused_after_a_bounded_read() {
    let fake = FakeMarketplace::start_plain_http().await.unwrap();
    let host = host_of(&fake);
    let total = 256 << 20;
    let shapes: [(&str, &[u8], &[u8]); 4] = [
        (
            "an endless request target",
            b"GET /api/pay/getInvoice?id=",
            b"1111111111111111",
        ),
        (
            "an endless header value",
            b"GET /api/pay/getInvoice?id=1 HTTP/1.1\r\nHost: x\r\nX-Big: ",
            b"aaaaaaaaaaaaaaaa",
        ),
        (
            "millions of headers",
            b"GET /api/pay/getInvoice?id=1 HTTP/1.1\r\nHost: x\r\n",
            b"X-A: b\r\n",
        ),
        (
            "an endless header name",
            b"GET /api/pay/getInvoice?id=1 HTTP/1.1\r\nHost: x\r\n",
            b"XXXXXXXXXXXXXXXX",
        ),
    ];
    let mut failures = Vec::new();
    for (shape, start, filler) in shapes {
        let (accepted, answer) = offer(&host, start, filler, total).await;
        let status = status_of(&answer);
        eprintln!(
            "{shape}: accepted {} KiB, answered {status:?}",
            accepted >> 10
        );
        if accepted > 64 << 20 {
            failures.push(format!(
                "{shape}: the fake read {} MiB of one request head",
                accepted >> 20
            ));
        }
        if status.is_some_and(|status| !(400..500).contains(&status)) {
            failures.push(format!("{shape}: answered {status:?}"));
        }
    }
    let workroom = fake.world().hourly_workroom();
    let session = fake.session(workroom.client).unwrap();
    assert!(
        session
            .get_timesheet_by_bid_id(workroom.bid_id)
            .send()
            .await
            .is_ok(),
        "the fake stopped serving"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Bodies past 64 KiB in every framing (see the test below).
async fn body_framing_failures(host: &str) -> Vec<String> {
    let host = host.to_owned();
    let post = "POST /oauth/getRequestToken HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n";
    let chunk = format!("8000\r\n{}\r\n", "a".repeat(0x8000));
    let shapes: [(&str, String, Vec<u8>); 3] = [
        (
            "chunked without end",
            format!("{post}Transfer-Encoding: chunked\r\n\r\n"),
            chunk.into_bytes(),
        ),
        (
            "a chunk of 2^64-1 bytes",
            format!("{post}Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n"),
            b"aaaaaaaaaaaaaaaa".to_vec(),
        ),
        (
            "chunked and a small Content-Length",
            format!("{post}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
            format!("8000\r\n{}\r\n", "b".repeat(0x8000)).into_bytes(),
        ),
    ];
    let mut failures = Vec::new();
    for (shape, head, filler) in shapes {
        let (accepted, answer) = offer(&host, head.as_bytes(), &filler, 256 << 20).await;
        let status = status_of(&answer);
        eprintln!(
            "{shape}: accepted {} KiB, answered {status:?}",
            accepted >> 10
        );
        if accepted > 64 << 20 || !matches!(status, Some(400 | 413)) {
            failures.push(format!(
                "{shape}: accepted {} MiB, answered {status:?}",
                accepted >> 20
            ));
        }
    }
    // Expect: 100-continue with a terabyte announced: the refusal must not wait for the body.
    let mut stream = TcpStream::connect(&host).await.unwrap();
    stream
        .write_all(
            format!("{post}Content-Length: 1099511627776\r\nExpect: 100-continue\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let started = Instant::now();
    while status_of(&answer).is_none() && started.elapsed() < Duration::from_secs(5) {
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer)).await {
            Ok(Ok(read)) if read > 0 => answer.extend_from_slice(&buffer[..read]),
            _ => break,
        }
    }
    if status_of(&answer) != Some(413) {
        failures.push(format!(
            "Expect: 100-continue with a terabyte body: after {:?}: {:?}",
            started.elapsed(),
            String::from_utf8_lossy(&answer)
        ));
    }
    failures
}

/// Attacks: "requests to the fake marketplace | a malformed or oversized request is refused with
/// a typed error, never a panic; ... (bodies ≤ 64 KiB, 413 beyond)" — request bodies past the
/// limit in every framing: chunked without end, a chunk announcing `2^64 - 1` bytes, chunked
/// with a small `Content-Length` beside it, each answered 413 (400 for a framing that is not
/// HTTP) after a bounded read; `Expect: 100-continue` with a terabyte `Content-Length` and no
/// body sent (the 413 must come without it: RFC 9110 §10.1.1, the point of the expectation);
/// and generated `Content-Length` values that are not a length (past `u64`, signed, hex,
/// non-ASCII digits, lists of different values, two headers that disagree, a fraction), each
/// answered 4xx at once.
#[test]
fn request_bodies_past_64_kib_or_with_malformed_lengths_are_refused() {
    let runtime = marketplace_tests::runtime();
    let fake = runtime
        .block_on(FakeMarketplace::start_plain_http())
        .unwrap();
    let host = host_of(&fake);
    let mut failures = runtime.block_on(body_framing_failures(&host));
    let value = prop_oneof![
        "[1-9][0-9]{20,40}".prop_map(|v| format!("Content-Length: {v}\r\n")),
        "[+-][0-9]{1,3}".prop_map(|v| format!("Content-Length: {v}\r\n")),
        "0x[0-9a-f]{1,4}".prop_map(|v| format!("Content-Length: {v}\r\n")),
        "[٠-٩０-９]{1,3}".prop_map(|v| format!("Content-Length: {v}\r\n")),
        "[0-9]{1,2}\\.[0-9]".prop_map(|v| format!("Content-Length: {v}\r\n")),
        (1u32..50, 51u32..99).prop_map(|(a, b)| format!("Content-Length: {a}, {b}\r\n")),
        (1u32..50, 51u32..99)
            .prop_map(|(a, b)| format!("Content-Length: {a}\r\nContent-Length: {b}\r\n")),
    ];
    let mut runner = proptest_runner(48);
    let lengths = runner
        .run(&value, |header| {
            let request = format!(
                "POST /oauth/getRequestToken HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n{header}\r\n"
            );
            let answer: Vec<u8> = runtime.block_on(async {
                let mut stream = TcpStream::connect(&host).await.unwrap();
                stream.write_all(request.as_bytes()).await.unwrap();
                let mut answer = Vec::new();
                let mut buffer = [0u8; 4096];
                while status_of(&answer).is_none() {
                    match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer)).await {
                        Ok(Ok(read)) if read > 0 => answer.extend_from_slice(&buffer[..read]),
                        _ => break,
                    }
                }
                answer
            });
            let status = status_of(&answer);
            prop_assert!(
                status.is_some_and(|status| (400..500).contains(&status)),
                "{}: answered {:?}",
                header.trim_end(),
                String::from_utf8_lossy(&answer)
            );
            Ok(())
        });
    if let Err(failure) = lengths {
        failures.push(format!("malformed Content-Length: {failure}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attacks: "requests to the fake marketplace | a malformed ... request is refused with a typed
/// error, never a panic; the fake's verification" (`verify::check_signature`, "Checks a
/// request's OAuth signature exactly as the fake marketplace does") — generated Authorization
/// headers, queries and forms made of the pieces a parser trips on (unbalanced quotes, `%` cut
/// short, invalid UTF-8 escapes, multi-byte characters, empty names, missing `=`, doubled
/// separators, huge timestamps); and linear: n parameters against 10 n, n duplicated nonces.
#[test]
fn malformed_oauth_requests_are_refused_never_a_panic_and_linearly() {
    if child_mode().as_deref() == Some("oauth-wire") {
        oauth_over_the_wire();
        return;
    }
    let piece = prop_oneof![
        Just("OAuth "),
        Just("oauth "),
        Just("OAuth"),
        Just(" "),
        Just(","),
        Just("="),
        Just("\""),
        Just("%"),
        Just("%2"),
        Just("%zz"),
        Just("%C3"),
        Just("%FF"),
        Just("é"),
        Just("\u{0}"),
        Just("\t"),
        Just("\\"),
        Just("realm"),
        Just("oauth_consumer_key"),
        Just("oauth_signature"),
        Just("oauth_nonce"),
        Just("oauth_timestamp=\"99999999999999999999999\""),
        Just("oauth_timestamp=\"-1\""),
        Just("oauth_signature_method=\"HMAC-SHA1\""),
        Just("oauth_version=\"1.0\""),
        Just("oauth_token=\"\""),
        Just("=\"\""),
        Just(",,"),
        Just("oauth_consumer_key=\"red-team-consumer-key\""),
        Just("oauth_signature=\"%3D%3D\""),
        Just("a=\"b"),
        Just("\"\"\""),
        Just("&"),
        Just("+"),
        Just("\u{1F600}"),
    ];
    let text = proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat());
    let strategy = (
        text.clone(),
        text.clone(),
        text,
        prop_oneof![Just("GET"), Just("POST"), Just("")],
    );
    let mut runner = proptest_runner(2048);
    runner
        .run(&strategy, |(authorization, query, form, method)| {
            let raw = RawRequest {
                method,
                scheme: "https",
                host: "127.0.0.1:1",
                path: "/api/pay/getInvoice",
                query: Some(query.as_str()),
                authorization: Some(authorization.as_str()),
                form: Some(form.as_bytes()),
            };
            let verdict = catch_unwind(AssertUnwindSafe(|| {
                check_signature(&raw, CONSUMER_SECRET, "")
            }));
            prop_assert!(verdict.is_ok(), "check_signature panicked on {raw:?}");
            prop_assert!(
                verdict.unwrap().is_err(),
                "a random request verified: {raw:?}"
            );
            Ok(())
        })
        .unwrap();
    let check = |authorization: String| {
        let raw = RawRequest {
            method: "GET",
            scheme: "https",
            host: "127.0.0.1:1",
            path: "/api/pay/getInvoice",
            query: Some("id=1"),
            authorization: Some(&authorization),
            form: None,
        };
        drop(check_signature(&raw, CONSUMER_SECRET, "secret"));
    };
    let base = "OAuth oauth_consumer_key=\"k\", oauth_token=\"t\", oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1\", oauth_nonce=\"n\", oauth_version=\"1.0\", oauth_signature=\"x\"";
    let shapes: Vec<Shape<'_>> = vec![
        (
            "n distinct parameters",
            2_000,
            Box::new(move |k| {
                check(format!(
                    "{base}{}",
                    (0..k)
                        .map(|i| format!(", p{i}=\"v{i}\""))
                        .collect::<String>()
                ))
            }),
        ),
        (
            "n duplicated nonces",
            2_000,
            Box::new(move |k| check(format!("{base}{}", ", oauth_nonce=\"n\"".repeat(k)))),
        ),
        (
            "n percent escapes in a value",
            20_000,
            Box::new(move |k| check(format!("{base}, p=\"{}\"", "%41".repeat(k)))),
        ),
        (
            "n unbalanced quotes",
            20_000,
            Box::new(move |k| check(format!("OAuth a=\"{}", "\"".repeat(k)))),
        ),
    ];
    let mut failures = linear_failures(shapes);
    // The same over the wire, in a child process whose CPU is the fake's: a request token
    // request with n parameters in its Authorization header, against 10 n.
    let output = run_child(
        "malformed_oauth_requests_are_refused_never_a_panic_and_linearly",
        "oauth-wire",
        &[],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let costs: Vec<(usize, String, u64)> = stdout
        .lines()
        .filter_map(|line| {
            let at = line.find("wire: ")?;
            let mut parts = line[at + 6..].split(' ');
            Some((
                parts.next()?.parse().ok()?,
                parts.next()?.to_owned(),
                parts.next()?.parse().ok()?,
            ))
        })
        .collect();
    assert_eq!(costs.len(), 2, "the child said: {stdout}");
    let ratio = costs[1].2 as f64 / costs[0].2.max(2_000_000) as f64;
    eprintln!("over the wire: {costs:?}");
    if ratio > 30.0 {
        failures.push(format!(
            "over the wire, {} parameters cost the fake {} ms of CPU, {} parameters {} ms (x{ratio:.0}; answered {} and {})",
            costs[0].0,
            costs[0].2 / 1_000_000,
            costs[1].0,
            costs[1].2 / 1_000_000,
            costs[0].1,
            costs[1].1
        ));
    }
    assert!(
        failures.is_empty(),
        "out of proportion with what was read (n -> 10n; linear is ~10, the bound 25, cpu 30):\n{}",
        failures.join("\n")
    );
}

/// The CPU time of every thread of this process, in nanoseconds.
fn process_cpu() -> u64 {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn oauth_over_the_wire() {
    let runtime = marketplace_tests::runtime();
    runtime.block_on(async {
        let fake = FakeMarketplace::start_plain_http().await.unwrap();
        let host = host_of(&fake);
        for n in [1_500usize, 15_000] {
            let params: String = (0..n).map(|i| format!(", p{i}=\"v{i}\"")).collect();
            let request = format!(
                "POST /oauth/getRequestToken HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nAuthorization: OAuth oauth_consumer_key=\"{KEY}\", oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1\", oauth_nonce=\"n\", oauth_version=\"1.0\", oauth_signature=\"x\"{params}\r\n\r\n"
            );
            let before = process_cpu();
            let mut stream = TcpStream::connect(&host).await.unwrap();
            stream.write_all(request.as_bytes()).await.unwrap();
            let mut answer = Vec::new();
            let mut buffer = [0u8; 4096];
            while status_of(&answer).is_none() {
                match tokio::time::timeout(Duration::from_secs(120), stream.read(&mut buffer)).await {
                    Ok(Ok(read)) if read > 0 => answer.extend_from_slice(&buffer[..read]),
                    _ => break,
                }
            }
            let cpu = process_cpu() - before;
            println!("wire: {n} {:?} {cpu}", status_of(&answer));
        }
    });
}

/// Attacks: "requests to the fake marketplace | a malformed ... request is refused with a typed
/// error, never a panic" at the place that answers them (`data::respond`, given "the decoded
/// query parameters") — generated values at and past the edges of `u64` for every parameter
/// of every method (page and rpp whose product overflows, IDs of `u64::MAX`, signs, spaces,
/// non-ASCII digits, impossible dates), repeated: a 2xx/4xx answer, never a panic; and over the
/// wire, a page of `u64::MAX` from the client.
#[test]
fn hostile_query_values_are_answered_with_a_status_never_a_panic() {
    let world = World::seeded();
    let methods: Vec<&'static str> = marketplace_fake::data::served_methods().collect();
    let users: Vec<u64> = world.users().iter().map(|user| user.id).collect();
    let name = prop_oneof![
        Just("id"),
        Just("bidId"),
        Just("page"),
        Just("rpp"),
        Just("date"),
        Just("userId"),
    ];
    let value = prop_oneof![
        Just("18446744073709551615".to_owned()),
        Just("18446744073709551614".to_owned()),
        Just("9223372036854775808".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("4294967296".to_owned()),
        Just("0".to_owned()),
        Just("-1".to_owned()),
        Just("+1".to_owned()),
        Just(" 1".to_owned()),
        Just("1e3".to_owned()),
        Just("٣".to_owned()),
        Just("１".to_owned()),
        Just(String::new()),
        Just("99999999999999999999999999999999".to_owned()),
        Just("31-FEB-26".to_owned()),
        Just("00-JAN-00".to_owned()),
        Just("99-DEC-99".to_owned()),
        Just("2026-02-30".to_owned()),
        Just("\u{0}".to_owned()),
        "[0-9]{1,20}",
        any::<u64>().prop_map(|v| v.to_string()),
    ];
    let strategy = (
        proptest::sample::select(methods),
        prop_oneof![proptest::sample::select(users), any::<u64>()],
        proptest::collection::vec((name, value), 0..6),
    );
    let mut runner = proptest_runner(2048);
    runner
        .run(&strategy, |(method, caller, params)| {
            let query: Vec<(String, String)> =
                params.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
            let reply = catch_unwind(AssertUnwindSafe(|| {
                marketplace_fake::data::respond(&world, caller, method, &query, Timestamp::now())
            }));
            prop_assert!(
                reply.is_ok(),
                "respond panicked: {method} as {caller} with {query:?}"
            );
            let status = reply.unwrap().status;
            prop_assert!(
                matches!(status, 200 | 400 | 403 | 404),
                "{method} {query:?}: status {status}"
            );
            Ok(())
        })
        .unwrap();
    let runtime = marketplace_tests::runtime();
    runtime.block_on(async {
        let fake = FakeMarketplace::start().await.unwrap();
        let workroom = fake.world().hourly_workroom();
        let session = fake.session(workroom.client).unwrap();
        for page in [u64::MAX, u64::MAX - 1, 1 << 63] {
            let result = session
                .get_timesheets_for_bid(workroom.bid_id)
                .page(page)
                .rpp(25)
                .send()
                .await;
            assert!(
                !matches!(
                    result,
                    Err(Error::Transport { .. }) | Err(Error::Timeout { .. })
                ),
                "page {page}: the fake did not answer: {:?}",
                result.map(drop)
            );
        }
    });
}

/// The workroom read under seeds at the edges of `u64` (see the test below).
async fn seed_edge_failures(failures: &mut Vec<String>) {
    let fake = FakeMarketplace::start().await.unwrap();
    let workroom = fake.world().hourly_workroom();
    let session = fake.session(workroom.client).unwrap();
    let invoice = workroom.invoices[0];
    fake.set_spellings(Spellings::Fixed);
    let fixed = read_workroom(&session, workroom.bid_id, invoice)
        .await
        .unwrap();
    for seed in [0, 1, 1 << 63, u64::MAX - 1, u64::MAX] {
        fake.set_spellings(Spellings::Varied { seed });
        match read_workroom(&session, workroom.bid_id, invoice).await {
            Ok(varied) if varied == fixed => {}
            Ok(varied) => failures.push(format!("seed {seed}: {varied:?} != {fixed:?}")),
            Err(error) => failures.push(format!("seed {seed}: {error}")),
        }
    }
}

/// Attacks: "`MARKETPLACE_FAKE_SPELLING_SEED` | an integer seed or a typed error naming the
/// variable and what it held (the fake does not start); only the spelling of values changes,
/// never a value" — the seeds at the edges of `u64` (0, 1, 2^63, `u64::MAX - 1`, `u64::MAX`),
/// where a seeded generator overflows or degenerates: a whole workroom read under each must
/// equal the fixed reading; and values that are not a `u64`: invalid
/// UTF-8, past `u64::MAX`, negative, hex, non-ASCII digits, 100 KiB of digits, a trailing
/// letter: `Spellings::from_env` is an error (never `Fixed`), its `found` bounded ("The start of
/// what the variable holds"), its text naming the variable, and `FakeMarketplace::start` fails.
/// Each value in a child process of its own (the environment is the process's).
#[test]
fn the_spelling_seed_is_a_u64_or_an_error_and_changes_no_value_at_its_edges() {
    if child_mode().as_deref() == Some("seed") {
        let from_env = Spellings::from_env();
        match &from_env {
            Ok(spellings) => println!("from_env: Ok({spellings:?})"),
            Err(error) => println!(
                "from_env: Err(found {} bytes, names the variable: {})",
                error.found.len(),
                error.to_string().contains("MARKETPLACE_FAKE_SPELLING_SEED")
            ),
        }
        let started = marketplace_tests::runtime().block_on(FakeMarketplace::start());
        println!("start: {}", if started.is_ok() { "Ok" } else { "Err" });
        return;
    }
    // An environment string may hold at most 128 KiB (Linux's MAX_ARG_STRLEN).
    let long = "7".repeat(100 * 1024);
    let values: Vec<(&str, OsString)> = vec![
        ("invalid UTF-8", OsStr::from_bytes(b"7\xff").to_owned()),
        ("past u64::MAX", "18446744073709551616".into()),
        ("negative", "-1".into()),
        ("hex", "0x10".into()),
        ("Arabic-Indic digits", "٧".into()),
        ("full-width digits", "７".into()),
        ("100 KiB of digits", long.into()),
        ("a trailing letter", "7x".into()),
    ];
    let mut failures = Vec::new();
    marketplace_tests::runtime().block_on(seed_edge_failures(&mut failures));
    for (what, value) in values {
        let output = run_child(
            "the_spelling_seed_is_a_u64_or_an_error_and_changes_no_value_at_its_edges",
            "seed",
            &[("MARKETPLACE_FAKE_SPELLING_SEED", &value)],
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        // The harness prints "test <name> ... " on the line the child's first output goes to.
        let line_from = |tag: &str| {
            stdout
                .lines()
                .find_map(|line| line.find(tag).map(|at| line[at..].to_owned()))
                .unwrap_or_else(|| "none".to_owned())
        };
        let (from_env, start) = (line_from("from_env: "), line_from("start: "));
        let found_len: Option<usize> = from_env
            .strip_prefix("from_env: Err(found ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok());
        let ok = output.status.success()
            && from_env.starts_with("from_env: Err(")
            && from_env.ends_with("names the variable: true)")
            && found_len.is_some_and(|len| len <= 1024)
            && start == "start: Err";
        if !ok {
            failures.push(format!(
                "{what}: {from_env}; {start}; exit {:?}",
                output.status
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
