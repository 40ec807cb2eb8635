//! A listener that records whatever reaches it, to show where a request went: an origin that
//! keeps connections open (to watch connection reuse), a proxy named by the environment or by
//! an app (that must receive nothing, or only a tunnel), or the network itself (an HTTP client
//! whose every request is sent to a tap leaves no packet on the machine's network).
//!
//! Unlike [`StubServer`](crate::stub::StubServer), which closes each connection after one
//! request, a tap serves HTTP/1.1 keep-alive, records every connection (even one that sends
//! nothing, or TLS), and can tunnel `CONNECT` like a real proxy.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use marketplace_tests::tap::{Tap, TapAnswer};
//!
//! let proxy = Tap::start(TapAnswer::Status(502)).await?;
//! // ... name `proxy.url()` in HTTP_PROXY for a child process, then:
//! assert!(proxy.connections().is_empty());
//! # Ok(())
//! # }
//! ```

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// The largest request head read; a longer one ends the connection.
const MAX_HEAD: usize = 64 * 1024;
/// The largest request body read; a longer one ends the connection.
const MAX_BODY: usize = 1024 * 1024;
/// How much of a connection that does not speak HTTP (a TLS handshake) is kept.
const MAX_RAW: usize = 4096;
/// How long a connection that does not speak HTTP is read before it is closed.
const RAW_READ: Duration = Duration::from_millis(50);

/// What a tap answers each HTTP request with.
#[derive(Clone, Debug)]
pub enum TapAnswer {
    /// This status with an empty body, the connection kept open.
    Status(u16),
    /// 200 with this JSON body, the connection kept open.
    Json(String),
    /// A proxy that tunnels: `CONNECT host:port` is connected and relayed both ways; any other
    /// request gets 502.
    Tunnel,
}

/// One request a tap read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapRequest {
    /// The method, e.g. `GET` or `CONNECT`.
    pub method: String,
    /// The request target as sent: a path (`/a?b`), an absolute URL (to a proxy) or
    /// `host:port` (`CONNECT`).
    pub target: String,
    /// The protocol, e.g. `HTTP/1.1`.
    pub version: String,
    /// The headers in order, names lower-cased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body (`Content-Length` bytes).
    pub body: Vec<u8>,
}

impl TapRequest {
    /// The value of the first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One connection a tap accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TapConnection {
    /// Every HTTP request read on it, in order.
    pub requests: Vec<TapRequest>,
    /// Its first bytes when they were not HTTP (a TLS `ClientHello` starts with `0x16`), at
    /// most 4 KiB.
    pub raw: Vec<u8>,
}

/// A TCP listener on 127.0.0.1 with an OS-chosen port that records every connection and every
/// request reaching it. Dropping it stops it and closes its connections.
#[derive(Debug)]
pub struct Tap {
    addr: SocketAddr,
    connections: Arc<Mutex<Vec<TapConnection>>>,
    accept_task: JoinHandle<()>,
}

/// Locks the record; every update is one push, so a poisoned lock holds a whole record.
fn lock(connections: &Mutex<Vec<TapConnection>>) -> MutexGuard<'_, Vec<TapConnection>> {
    connections.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Tap {
    /// Binds 127.0.0.1:0 and starts serving on the current tokio runtime.
    ///
    /// # Errors
    ///
    /// Fails if the listening socket cannot be bound.
    pub async fn start(answer: TapAnswer) -> io::Result<Tap> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let connections = Arc::new(Mutex::new(Vec::new()));
        let accept_task = tokio::spawn(accept_loop(listener, Arc::clone(&connections), answer));
        Ok(Tap {
            addr,
            connections,
            accept_task,
        })
    }

    /// Its address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash: as a base URL, or as a proxy URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every connection accepted so far, in the order accepted, with what was read on each.
    pub fn connections(&self) -> Vec<TapConnection> {
        lock(&self.connections).clone()
    }

    /// Every request read so far, on every connection.
    pub fn requests(&self) -> Vec<TapRequest> {
        self.connections()
            .into_iter()
            .flat_map(|connection| connection.requests)
            .collect()
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.accept_task.abort();
    }
}

async fn accept_loop(
    listener: TcpListener,
    connections: Arc<Mutex<Vec<TapConnection>>>,
    answer: TapAnswer,
) {
    let mut served = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let index = {
                        let mut record = lock(&connections);
                        record.push(TapConnection::default());
                        record.len() - 1
                    };
                    served.spawn(serve(stream, Arc::clone(&connections), index, answer.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = served.join_next(), if !served.is_empty() => {}
        }
    }
}

/// Reads requests on one connection and answers each, until it closes.
async fn serve(
    mut stream: TcpStream,
    connections: Arc<Mutex<Vec<TapConnection>>>,
    index: usize,
    answer: TapAnswer,
) {
    let mut buffer = Vec::new();
    loop {
        let request = match read_request(&mut stream, &mut buffer).await {
            Read::Request(request) => request,
            Read::Raw(raw) => {
                lock(&connections)[index].raw = raw;
                return;
            }
            Read::Closed => return,
        };
        lock(&connections)[index].requests.push(request.clone());
        let reply = match (&answer, request.method.as_str()) {
            (TapAnswer::Tunnel, "CONNECT") => {
                tunnel(stream, &request.target).await;
                return;
            }
            (TapAnswer::Tunnel, _) => response(502, ""),
            (TapAnswer::Status(status), _) => response(*status, ""),
            (TapAnswer::Json(body), _) => response(200, body),
        };
        if stream.write_all(&reply).await.is_err() {
            return;
        }
    }
}

/// An HTTP/1.1 response that keeps the connection open.
fn response(status: u16, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} Tap\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Connects to `target` and relays both ways, as a proxy does for `CONNECT`.
async fn tunnel(mut stream: TcpStream, target: &str) {
    let Ok(mut upstream) = TcpStream::connect(target).await else {
        let _ = stream.write_all(&response(502, "")).await;
        return;
    };
    if stream
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await
        .is_err()
    {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut stream, &mut upstream).await;
}

/// What was read from a connection.
enum Read {
    Request(TapRequest),
    /// Bytes that are not an HTTP request.
    Raw(Vec<u8>),
    /// Closed (or failed) before a whole request.
    Closed,
}

/// Reads one request; `buffer` holds what was read past it (a pipelined request).
async fn read_request(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Read {
    let mut chunk = [0_u8; 8192];
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        // An HTTP request starts with a method in capitals; anything else (TLS) is raw.
        if buffer.first().is_some_and(|b| !b.is_ascii_uppercase()) {
            let _ = tokio::time::timeout(RAW_READ, async {
                while buffer.len() < MAX_RAW {
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                    }
                }
            })
            .await;
            buffer.truncate(MAX_RAW);
            return Read::Raw(std::mem::take(buffer));
        }
        if buffer.len() > MAX_HEAD {
            return Read::Closed;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return Read::Closed,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    buffer.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let mut parts = lines.next().unwrap_or_default().split(' ');
    let (method, target, version) = (
        parts.next().unwrap_or_default().to_owned(),
        parts.next().unwrap_or_default().to_owned(),
        parts.next().unwrap_or_default().to_owned(),
    );
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_BODY {
        return Read::Closed;
    }
    while buffer.len() < length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return Read::Closed,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    }
    let body = buffer.drain(..length).collect();
    Read::Request(TapRequest {
        method,
        target,
        version,
        headers,
        body,
    })
}
