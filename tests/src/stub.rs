//! A scripted HTTP/1.1 stub server for testing the client against faults a framework hides.
//!
//! The server speaks raw HTTP/1.1 over TCP so that a test can script a connection reset before
//! any response, a body shorter than its `Content-Length`, a delay before responding, a body
//! that stalls halfway, redirects, and arbitrary status codes and headers. Each connection
//! serves exactly one request and is then closed; every response carries `Connection: close`.
//!
//! Two servers are two origins (`127.0.0.1` on two ports): a hostile one can redirect to the
//! other, and each records every request it receives, so a test can show what reached which.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use marketplace_tests::stub::{Reply, StubServer};
//!
//! let server = StubServer::start().await?;
//! server.enqueue("/v1/items", Reply::json(429, "{}").header("Retry-After", "1"));
//! server.fallback("/v1/items", Reply::json(200, r#"{"items":[]}"#));
//! // ... point the client at `server.base_url()`, then inspect `server.requests()`.
//! # Ok(())
//! # }
//! ```

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// The largest request head (request line and headers, terminator included) that is accepted.
const MAX_HEAD: usize = 64 * 1024;
/// The largest request body that is accepted.
const MAX_BODY: usize = 1024 * 1024;
/// How long a connection is drained after the response before it is closed.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);
/// Pause after a failed `accept` so that a persistent error (such as `EMFILE`) cannot spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);
/// How much longer than asked tokio's timer may sleep: its ticks are milliseconds, a deadline
/// is rounded up to the next tick and the driver parks in whole milliseconds, so a
/// `sleep(20 ms)` takes 21 to 22 ms.
const TIMER_OVERSHOOT: Duration = Duration::from_millis(3);

/// A scripted HTTP/1.1 server on 127.0.0.1 with an OS-chosen port. Each connection serves one
/// request and closes (responses carry `Connection: close`).
///
/// Replies are scripted per path with [`enqueue`](Self::enqueue) and
/// [`fallback`](Self::fallback); every request received is recorded and available from
/// [`requests`](Self::requests). Connections are served concurrently.
///
/// Dropping the server stops the accept loop and aborts every connection still being served,
/// so a client waiting on a delayed reply sees a connection error rather than hanging.
#[derive(Debug)]
pub struct StubServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    accept_task: JoinHandle<()>,
}

/// A reply computed from the request (for replies that depend on the query, such as pages
/// fetched concurrently in any order).
type Route = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

/// The script and the record, shared by the server handle and the connection tasks.
#[derive(Default)]
struct State {
    queues: HashMap<String, VecDeque<Reply>>,
    fallbacks: HashMap<String, Reply>,
    routes: HashMap<String, Route>,
    requests: Vec<RecordedRequest>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("queues", &self.queues)
            .field("fallbacks", &self.fallbacks)
            .field("routes", &self.routes.keys().collect::<Vec<_>>())
            .field("requests", &self.requests.len())
            .finish()
    }
}

impl State {
    /// The route answering requests to `path`, if one is set.
    fn route(&self, path: &str) -> Option<Route> {
        self.routes.get(path).cloned()
    }

    /// The reply for a request to `path`: the head of its queue, else its fallback, else 404.
    fn next_reply(&mut self, path: &str) -> Reply {
        if let Some(reply) = self.queues.get_mut(path).and_then(VecDeque::pop_front) {
            return reply;
        }
        match self.fallbacks.get(path) {
            Some(reply) => reply.clone(),
            None => Reply::text(404, "text/plain", "no scripted reply"),
        }
    }
}

/// Locks the shared state; a poisoned lock is still usable because every update is a single
/// push or pop that cannot leave the state half-written.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl StubServer {
    /// Binds 127.0.0.1:0 and starts serving on the current tokio runtime.
    ///
    /// # Errors
    ///
    /// Fails if the listening socket cannot be bound.
    ///
    /// # Panics
    ///
    /// Panics if called outside a tokio runtime.
    pub async fn start() -> io::Result<StubServer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State::default()));
        let accept_task = tokio::spawn(accept_loop(listener, Arc::clone(&state)));
        Ok(StubServer {
            addr,
            state,
            accept_task,
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A client of this stub as most tests want one: the consumer `app-key` /
    /// `consumer-secret`, OAuth over plain HTTP on loopback allowed, no retries (each scripted
    /// reply answers one call).
    pub fn client(&self) -> marketplace_client::Client {
        marketplace_client::Client::builder(
            self.base_url(),
            marketplace_client::ConsumerCredentials::new("app-key", "consumer-secret"),
        )
        .allow_plain_http_oauth_on_loopback()
        .retry(marketplace_client::RetryPolicy::none())
        .build()
        .expect("a client of a loopback stub builds")
    }

    /// Queues a reply for requests whose path (without query) equals `path`; replies for a path
    /// are used in FIFO order; when a path's queue is empty the [`fallback`](Self::fallback) for
    /// that path is used if set, else 404 with body "no scripted reply".
    ///
    /// The path is compared byte for byte with the request target as sent (no percent-decoding,
    /// no normalisation), e.g. `"/v1/items"`.
    pub fn enqueue(&self, path: &str, reply: Reply) {
        lock(&self.state)
            .queues
            .entry(path.to_owned())
            .or_default()
            .push_back(reply);
    }

    /// Answers every request to `path` with `route(request)`, ahead of queued replies and the
    /// fallback.
    pub fn route(
        &self,
        path: &str,
        route: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) {
        lock(&self.state)
            .routes
            .insert(path.to_owned(), Arc::new(route));
    }

    /// The reply used for `path` whenever its queue is empty; replaces any earlier fallback for
    /// that path.
    pub fn fallback(&self, path: &str, reply: Reply) {
        lock(&self.state).fallbacks.insert(path.to_owned(), reply);
    }

    /// Every request received so far, in arrival order.
    ///
    /// A request is recorded as soon as it has been read, before any scripted delay, so it is
    /// visible here while its reply is still pending. Malformed requests (answered with 400)
    /// are recorded as far as they were parsed. A connection closed before sending a single
    /// byte is not recorded.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }
}

impl Drop for StubServer {
    /// Stops the accept loop and aborts the connections it is serving.
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}

/// Accepts connections until aborted. The connection tasks live in a [`JoinSet`] owned by this
/// task, so aborting it aborts them too.
async fn accept_loop(listener: TcpListener, state: Arc<Mutex<State>>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(stream, Arc::clone(&state)));
                }
                Err(_) => tokio::time::sleep(ACCEPT_BACKOFF).await,
            },
            // Reap finished connection tasks so the set does not grow without bound.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// A request as received by the stub server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedRequest {
    /// The method as sent, e.g. `"GET"`; empty if the request line could not be parsed.
    pub method: String,
    /// The path of the request target without the query, as sent (not percent-decoded); empty
    /// if the request line could not be parsed. An absolute-form target
    /// (`http://host/path`) is reduced to its path.
    pub path: String,
    /// The raw query (after `?`, not decoded); `None` if the target has no `?`.
    pub query: Option<String>,
    /// The headers in the order received, names lower-cased, values trimmed. Repeated headers
    /// appear once per occurrence.
    pub headers: Vec<(String, String)>,
    /// The body: exactly `Content-Length` bytes (fewer if the client closed early).
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The value of the first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The query decoded as `application/x-www-form-urlencoded` (`+` is a space, `%XX` escapes
    /// are decoded), in order; empty when there is no query.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        match &self.query {
            Some(query) => url::form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect(),
            None => Vec::new(),
        }
    }

    /// An empty record, filled in as parsing proceeds.
    fn empty() -> RecordedRequest {
        RecordedRequest {
            method: String::new(),
            path: String::new(),
            query: None,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }
}

/// A scripted reply, built in builder style.
///
/// The server always writes `Content-Length` (the full body length) and `Connection: close`
/// itself; it writes no other header (not even `Date`) unless the reply sets it.
#[derive(Clone, Debug)]
pub struct Reply {
    action: Action,
    delay: Option<Duration>,
}

/// What the server does once the request has been read (and any delay has passed).
#[derive(Clone, Debug)]
enum Action {
    /// Write a response.
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        truncated: bool,
        /// Pause this long after the first half of the body, before the rest.
        stall: Option<Duration>,
    },
    /// Close the socket without writing anything.
    Reset,
}

impl Reply {
    /// A response with `Content-Type: application/json` and the given body.
    pub fn json(status: u16, body: impl Into<String>) -> Reply {
        Reply::text(status, "application/json", body)
    }

    /// A response with the given `Content-Type` and body.
    pub fn text(status: u16, content_type: &str, body: impl Into<String>) -> Reply {
        Reply {
            action: Action::Respond {
                status,
                headers: vec![("Content-Type".to_owned(), content_type.to_owned())],
                body: body.into().into_bytes(),
                truncated: false,
                stall: None,
            },
            delay: None,
        }
    }

    /// A response with the given `Content-Type` and a body of any bytes (invalid UTF-8
    /// included).
    pub fn bytes(status: u16, content_type: &str, body: Vec<u8>) -> Reply {
        let mut reply = Reply::text(status, content_type, "");
        if let Action::Respond { body: slot, .. } = &mut reply.action {
            *slot = body;
        }
        reply
    }

    /// A redirect: `status` (301, 302, 303, 307, 308, …) with `Location: location` and an
    /// empty body.
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::text(status, "text/plain", "").header("Location", location)
    }

    /// Sets a response header, replacing any earlier value of the same name (case-insensitive),
    /// so `Reply::json(..).header("Content-Type", "text/html")` overrides the content type.
    /// The name's case is kept on the wire.
    ///
    /// `Content-Length` and `Connection` are always written by the server and are ignored here.
    /// No effect on [`Reply::reset`].
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        if let Action::Respond { headers, .. } = &mut self.action {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }

    /// Waits this long after reading the request before writing anything (or, for
    /// [`Reply::reset`], before closing), to within about 0.1 ms: not rounded up to tokio's
    /// millisecond timer ticks.
    pub fn delay(mut self, delay: std::time::Duration) -> Reply {
        self.delay = Some(delay);
        self
    }

    /// Sends the headers with the full `Content-Length` but only the first half of the body
    /// (rounded down), then closes. With an empty body the response is complete, since there
    /// is nothing to cut. No effect on [`Reply::reset`].
    pub fn truncated(mut self) -> Reply {
        if let Action::Respond { truncated, .. } = &mut self.action {
            *truncated = true;
        }
        self
    }

    /// Sends the headers (with the full `Content-Length`) and the first half of the body
    /// (rounded down), then waits `pause` before sending the rest: a body that stalls. No
    /// effect on [`Reply::reset`].
    pub fn stalled(mut self, pause: Duration) -> Reply {
        if let Action::Respond { stall, .. } = &mut self.action {
            *stall = Some(pause);
        }
        self
    }

    /// Accepts the connection, reads the request, then closes the socket without writing
    /// anything, with `SO_LINGER` 0 so that the client receives a TCP reset.
    pub fn reset() -> Reply {
        Reply {
            action: Action::Reset,
            delay: None,
        }
    }
}

/// The reason phrase written after `status` in the status line.
fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// What was read from a connection.
enum Incoming {
    /// The client closed (or failed) before sending a single byte.
    Nothing,
    /// A well-formed request.
    Request(RecordedRequest),
    /// A malformed or oversized request, recorded as far as parsed.
    Bad(RecordedRequest),
}

/// Reads one request, records it, and answers it as scripted (400 for a malformed request).
async fn serve_connection(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let incoming = read_request(&mut stream).await;
    // A delay counts from here, so routing and recording take none of the client's time.
    let read_at = Instant::now();
    let reply = match incoming {
        Incoming::Nothing => return,
        Incoming::Request(request) => {
            // The route runs outside the lock: it is the test's code.
            let route = lock(&state).route(&request.path);
            let reply = match route {
                Some(route) => route(&request),
                None => lock(&state).next_reply(&request.path),
            };
            lock(&state).requests.push(request);
            reply
        }
        Incoming::Bad(request) => {
            lock(&state).requests.push(request);
            Reply::text(400, "text/plain", "bad request")
        }
    };
    respond(stream, &reply, read_at).await;
}

/// Reads the head (up to [`MAX_HEAD`]) and then exactly `Content-Length` body bytes.
async fn read_request(stream: &mut TcpStream) -> Incoming {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0_u8; 8192];
    let head_len = loop {
        let searched = &buf[..buf.len().min(MAX_HEAD)];
        if let Some(end) = find(searched, b"\r\n\r\n") {
            break end;
        }
        if buf.len() >= MAX_HEAD {
            return Incoming::Bad(parse_partial_head(&buf[..MAX_HEAD]));
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) if buf.is_empty() => return Incoming::Nothing,
            Ok(0) | Err(_) => return Incoming::Bad(parse_partial_head(&buf)),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };

    let mut request = RecordedRequest::empty();
    if parse_head(&buf[..head_len], &mut request).is_err() {
        return Incoming::Bad(request);
    }
    let Ok(content_length) = content_length(&request) else {
        return Incoming::Bad(request);
    };

    let mut body = buf.split_off(head_len + 4);
    // Anything past the body (a pipelined request) is ignored: one request per connection.
    body.truncate(content_length);
    while body.len() < content_length {
        let want = (content_length - body.len()).min(chunk.len());
        match stream.read(&mut chunk[..want]).await {
            Ok(0) | Err(_) => {
                request.body = body;
                return Incoming::Bad(request);
            }
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    request.body = body;
    Incoming::Request(request)
}

/// The position of the first occurrence of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Parses the complete lines of an unterminated head, for the record of a bad request.
fn parse_partial_head(buf: &[u8]) -> RecordedRequest {
    let complete = match buf.windows(2).rposition(|w| w == b"\r\n") {
        Some(end) => &buf[..end],
        None => buf,
    };
    let mut request = RecordedRequest::empty();
    // The result is irrelevant: the request is bad either way.
    let _ = parse_head(complete, &mut request);
    request
}

/// Parses the request line and headers (without the final `\r\n\r\n`) into `request`,
/// stopping at the first malformed line.
fn parse_head(head: &[u8], request: &mut RecordedRequest) -> Result<(), ()> {
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split("\r\n");

    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(());
    };
    if method.is_empty() || target.is_empty() || !version.starts_with("HTTP/1.") {
        return Err(());
    }
    request.method = method.to_owned();
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query.to_owned())),
        None => (target, None),
    };
    request.path = origin_path(path).to_owned();
    request.query = query;

    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(());
        };
        let name = name.trim();
        if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(());
        }
        request
            .headers
            .push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    Ok(())
}

/// Reduces an absolute-form target path (`http://host/path`) to its path; other forms are
/// returned unchanged.
fn origin_path(path: &str) -> &str {
    if path.starts_with('/') {
        return path;
    }
    match path.split_once("://") {
        Some((_, rest)) => match rest.find('/') {
            Some(slash) => &rest[slash..],
            None => "/",
        },
        None => path,
    }
}

/// The body length announced by the request: 0 without `Content-Length`; an error for a
/// malformed, conflicting or oversized length, or for `Transfer-Encoding` (unsupported).
fn content_length(request: &RecordedRequest) -> Result<usize, ()> {
    if request.header("transfer-encoding").is_some() {
        return Err(());
    }
    let mut length = None;
    for (name, value) in &request.headers {
        if name != "content-length" {
            continue;
        }
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(());
        }
        let value: usize = value.parse().map_err(|_| ())?;
        if length.is_some_and(|previous| previous != value) {
            return Err(());
        }
        length = Some(value);
    }
    let length = length.unwrap_or(0);
    if length > MAX_BODY {
        return Err(());
    }
    Ok(length)
}

/// Waits until `deadline` to within a fraction of a millisecond, so that a scripted latency is
/// the latency a client sees (the paging benchmark compares against multiples of it): tokio's
/// timer takes all but the last few milliseconds, and a blocking sleep, which the OS ends
/// within about 0.1 ms of its deadline, the rest. The blocking part is short, so a runtime
/// shutting down never waits long for it.
async fn wait_until(deadline: Instant) {
    if let Some(coarse) = deadline.checked_sub(TIMER_OVERSHOOT) {
        tokio::time::sleep_until(coarse.into()).await;
    }
    let rest = deadline.saturating_duration_since(Instant::now());
    if !rest.is_zero() {
        // A join error would mean the sleep panicked; the delay is over either way.
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(rest)).await;
    }
}

/// Carries out `reply` on the connection, then closes it.
async fn respond(mut stream: TcpStream, reply: &Reply, read_at: Instant) {
    if let Some(delay) = reply.delay {
        wait_until(read_at + delay).await;
    }
    let (status, headers, body, truncated, stall) = match &reply.action {
        Action::Reset => {
            // If SO_LINGER cannot be set, a plain close still fails the client's request.
            let _ = stream.set_zero_linger();
            drop(stream);
            return;
        }
        Action::Respond {
            status,
            headers,
            body,
            truncated,
            stall,
        } => (*status, headers, body, *truncated, *stall),
    };

    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason_phrase(status)).into_bytes();
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("content-length") || name.eq_ignore_ascii_case("connection") {
            continue;
        }
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    let half = body.len() / 2;
    let (first, rest) = match (truncated, stall) {
        (true, _) => (&body[..half], None),
        (false, Some(pause)) => (&body[..half], Some((pause, &body[half..]))),
        (false, None) => (&body[..], None),
    };
    out.extend_from_slice(first);

    if stream.write_all(&out).await.is_err() {
        return;
    }
    if let Some((pause, rest)) = rest {
        let _ = stream.flush().await;
        tokio::time::sleep(pause).await;
        if stream.write_all(rest).await.is_err() {
            return;
        }
    }
    let _ = stream.flush().await;
    let _ = stream.shutdown().await;
    // Drain until the client closes, so that unread request bytes (say, after a 400) do not
    // make the kernel reset the connection and discard the response before it is read.
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, async {
        let mut sink = [0_u8; 4096];
        while let Ok(1..) = stream.read(&mut sink).await {}
    })
    .await;
}
