//! Injected faults: latency, error statuses, connection resets, truncated bodies, HTML error
//! pages, a wrong content type and envelopes with an error `rcode`, each for the next N
//! requests to a path (or to any path).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt as _;
use tokio::sync::Notify;

/// A misbehaviour of the service, applied to a request before its normal handling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Waits this long, then handles the request normally.
    Latency(Duration),
    /// Answers this status with a short text body (and `Retry-After: N` when given) without
    /// handling the request.
    Status {
        /// The HTTP status, e.g. 503 (an invalid status becomes 500).
        status: u16,
        /// Seconds for a `Retry-After` header.
        retry_after: Option<u64>,
    },
    /// Closes the connection without sending any response.
    Reset,
    /// Handles the request normally, then sends the response's headers (with the full
    /// `Content-Length`) and only the first half of its body before breaking the connection.
    Truncated,
    /// Answers an HTML error page (`text/html`) with this status, as a proxy in front of the
    /// service might.
    HtmlErrorPage {
        /// The HTTP status, e.g. 502 (an invalid status becomes 500).
        status: u16,
    },
    /// Handles the request normally but labels the body `text/html`.
    WrongContentType,
    /// Answers 200 with an envelope whose `rcode` is this value and whose `data` is empty.
    Rcode(i64),
}

/// The faults waiting to be applied. Clones share the list.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    pending: Arc<Mutex<Vec<Pending>>>,
}

/// One injected fault and how many more requests it applies to.
#[derive(Debug)]
struct Pending {
    path: Option<String>,
    fault: Fault,
    remaining: usize,
}

impl Faults {
    /// Applies `fault` to the next `times` requests whose path is `path` (e.g.
    /// `"/api/pay/getTimesheet"`, compared with the request path as sent, without the query),
    /// or to any request when `path` is `None`. Faults injected earlier are used first; each
    /// matching request consumes one use of one fault.
    pub fn inject(&self, path: Option<&str>, fault: Fault, times: usize) {
        if times == 0 {
            return;
        }
        self.lock().push(Pending {
            path: path.map(str::to_owned),
            fault,
            remaining: times,
        });
    }

    /// Removes every fault not yet used up.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// The fault for a request to `path`, consuming one use, if any applies.
    pub(crate) fn take(&self, path: &str) -> Option<Fault> {
        let mut pending = self.lock();
        let index = pending
            .iter()
            .position(|p| p.path.as_deref().is_none_or(|wanted| wanted == path))?;
        let entry = &mut pending[index];
        entry.remaining -= 1;
        let fault = entry.fault.clone();
        if entry.remaining == 0 {
            pending.remove(index);
        }
        Some(fault)
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Lets a request's handler drop the connection that carries it (see [`Fault::Reset`]).
///
/// The connection task inserts one into every request's extensions and drops the connection
/// when it is notified.
#[derive(Clone, Debug, Default)]
pub(crate) struct ConnectionKill(pub(crate) Arc<Notify>);

/// How long a truncated body pauses after its first half, so that half reaches the client
/// before the connection breaks.
const TRUNCATE_PAUSE: Duration = Duration::from_millis(50);

/// Answers `request` (to `path`) with `fault` applied; `next` is the normal handling.
pub(crate) async fn apply(fault: Fault, path: &str, request: Request, next: Next) -> Response {
    match fault {
        Fault::Latency(delay) => {
            tokio::time::sleep(delay).await;
            next.run(request).await
        }
        Fault::Status {
            status,
            retry_after,
        } => {
            let status = status_code(status);
            let mut response = text(
                status,
                "text/plain; charset=utf-8",
                format!("injected fault: HTTP {}\n", status.as_u16()),
            );
            if let Some(seconds) = retry_after {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            }
            response
        }
        Fault::Reset => match request.extensions().get::<ConnectionKill>() {
            Some(kill) => {
                kill.0.notify_one();
                // The connection task drops the connection, and this future with it.
                std::future::pending::<Response>().await
            }
            None => {
                let broken = futures::stream::once(async {
                    Err::<Bytes, _>(std::io::Error::other("injected reset"))
                });
                Response::new(Body::from_stream(broken))
            }
        },
        Fault::Truncated => {
            let response = next.run(request).await;
            let (mut parts, body) = response.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap_or_default();
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
            let half = body.slice(..body.len() / 2);
            let stream = futures::stream::iter([Ok::<Bytes, std::io::Error>(half)]).chain(
                futures::stream::once(async {
                    tokio::time::sleep(TRUNCATE_PAUSE).await;
                    Err(std::io::Error::other("injected truncation"))
                }),
            );
            Response::from_parts(parts, Body::from_stream(stream))
        }
        Fault::HtmlErrorPage { status } => {
            let status = status_code(status);
            let reason = status.canonical_reason().unwrap_or("Error");
            let code = status.as_u16();
            text(
                status,
                "text/html; charset=utf-8",
                format!(
                    "<html>\r\n<head><title>{code} {reason}</title></head>\r\n<body>\r\n\
                     <center><h1>{code} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n\
                     </body>\r\n</html>\r\n"
                ),
            )
        }
        Fault::WrongContentType => {
            let mut response = next.run(request).await;
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            response
        }
        Fault::Rcode(rcode) => {
            let api = path
                .strip_prefix("/api/")
                .or_else(|| path.strip_prefix('/'))
                .unwrap_or(path);
            let body = serde_json::json!({
                "api": api,
                "apiVersion": 1,
                "rcode": rcode,
                "data": {},
            });
            text(StatusCode::OK, "application/json", body.to_string())
        }
    }
}

/// A status code from a number; 500 for one outside 100..=999.
fn status_code(status: u16) -> StatusCode {
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A response with a text body.
pub(crate) fn text(status: StatusCode, content_type: &'static str, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_used_in_order_per_path() {
        let faults = Faults::default();
        faults.inject(Some("/a"), Fault::Reset, 2);
        faults.inject(None, Fault::Truncated, 1);
        faults.inject(Some("/b"), Fault::Rcode(3), 0);
        assert_eq!(faults.take("/b"), Some(Fault::Truncated));
        assert_eq!(faults.take("/b"), None);
        assert_eq!(faults.take("/a"), Some(Fault::Reset));
        assert_eq!(faults.take("/a"), Some(Fault::Reset));
        assert_eq!(faults.take("/a"), None);
        faults.inject(None, Fault::WrongContentType, 5);
        faults.clear();
        assert_eq!(faults.take("/a"), None);
    }
}
