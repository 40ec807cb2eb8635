//! The one error type of the client.
//!
//! The reference does not show the error body format nor the HTTP statuses of errors, so an
//! error response is read in every plausible shape ([`ApiFailure::parse`]: JSON, then form
//! pairs, then text; see `error_body.rs`). The body is kept as text, without secrets.
//!
//! Every text an error holds went through the scrubber: what a call's errors hold is cleaned
//! of the call's secrets where the call hands them out ([`Error::scrubbed`], one exhaustive
//! match, so a new variant or field does not compile until it says how it is cleaned), and an
//! error of the HTTP client is kept as cleaned text ([`TransportError`]), not as a foreign
//! error whose `Display` and `Debug` (URL, TLS details) nothing here controls.

use std::borrow::Cow;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use jiff::Timestamp;

use crate::api_failure::{ApiFailure, RawErrorCode, excerpt};
use crate::one_line::OneLine;
use crate::scrub::Scrubber;

/// Everything that can go wrong. Each variant names the API method (`pay/getTimesheet`,
/// `oauth/getRequestToken`, …) where one was being called.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The service could not be reached, or the connection failed before a full response
    /// arrived (connect error, timeout, reset, truncated body).
    Transport {
        /// The API method.
        method: &'static str,
        /// The cause.
        #[source]
        source: TransportError,
    },
    /// No complete answer within a time limit: one attempt's timeout (after retries, if any were
    /// allowed), or the call's deadline, which covers every attempt and every wait between
    /// them. A body that stops arriving is a timeout too.
    Timeout {
        /// The API method.
        method: &'static str,
        /// Which limit was reached.
        limit: TimeoutLimit,
        /// How long the call had run, from its first attempt.
        after: Duration,
        /// Attempts made, the one cut short included.
        attempts: u32,
    },
    /// The service answered with a redirect (a 3xx status), or a caller-supplied HTTP client
    /// followed one. Redirects are never followed with credentials: the answer is refused.
    Redirect {
        /// The API method.
        method: &'static str,
        /// The 3xx status; `None` when a caller-supplied HTTP client followed the redirect
        /// itself (the status is then unknown).
        status: Option<u16>,
        /// Where it pointed (`Location`, or the URL the HTTP client ended at), with OAuth
        /// parameters, passwords and known secrets removed.
        location: Option<String>,
    },
    /// A plain-HTTP answer came from another address than the one the base URL names: the HTTP
    /// client given to `ClientBuilder::http_client` sent the signed request through a proxy,
    /// which saw it whole. The answer is refused (the request cannot be called back); use
    /// HTTPS, or an HTTP client without a proxy for plain HTTP. Noticed only when the base
    /// URL's host is an IP literal (see `SECURITY.md`).
    Intermediary {
        /// The API method.
        method: &'static str,
        /// The host and port the base URL names.
        origin: String,
        /// Where the request went instead.
        peer: SocketAddr,
    },
    /// The response body is larger than `ClientBuilder::max_response_bytes`: refused at once
    /// when its `Content-Length` says so, else read up to the limit and no further.
    ResponseTooLarge {
        /// The API method.
        method: &'static str,
        /// The limit.
        limit: u64,
    },
    /// A non-success HTTP status without a recognizable API error in its body.
    Status {
        /// The API method.
        method: &'static str,
        /// The HTTP status.
        status: u16,
        /// The response body, as text (secrets removed).
        body: String,
    },
    /// The service reported an error: an `rcode` other than 1, or an error code in the body.
    Api {
        /// The API method.
        method: &'static str,
        /// The HTTP status.
        status: u16,
        /// What the body said (boxed: it is the largest part of an error).
        failure: Box<ApiFailure>,
    },
    /// A success response that does not decode into the method's type.
    Decode {
        /// The API method.
        method: &'static str,
        /// JSON path of the value that failed, e.g. `data.timesheets.3.rate`.
        path: String,
        /// What was wrong with it.
        message: String,
        /// The start of the body.
        excerpt: String,
    },
    /// A page stream stopped before its end: the service sent the same items for two pages in a
    /// row, or kept sending pages beyond [`MAX_PAGES`](crate::paging::MAX_PAGES), or the next
    /// page number does not exist, or the task fetching the next page was cancelled (its tokio
    /// runtime shut down while the stream was read from another). The pages up to
    /// `after_page` were yielded.
    Paging {
        /// The API method.
        method: &'static str,
        /// The last page yielded.
        after_page: u64,
        /// Why.
        reason: String,
    },
    /// The clock a request would be signed with cannot be trusted, so nothing more is signed
    /// with it: the service refused a signature and its `Date` header lies more than a day
    /// from the local clock (a correction that large is not adopted: the clock stays as it
    /// was), or the clock reads a time at or before 1970, which no `oauth_timestamp` (a
    /// positive number of seconds) can carry.
    ImplausibleClock {
        /// The API method.
        method: &'static str,
        /// The clock the client signs with: the local clock with the correction adopted so far.
        clock: Timestamp,
        /// The service's clock, from its `Date` header; `None` when the client's own clock is
        /// the one at fault.
        service: Option<Timestamp>,
    },
    /// The access token is past its six-hour lifetime; no request was sent.
    TokenExpired {
        /// When it expired.
        expires_at: Timestamp,
    },
    /// An argument the service would refuse; no request was sent.
    InvalidArgument {
        /// The API method.
        method: &'static str,
        /// The parameter.
        name: String,
        /// Why it is refused.
        reason: String,
    },
    /// An OAuth callback URL that cannot be accepted.
    Callback {
        /// What is wrong with it.
        reason: String,
    },
    /// The client cannot be built or used as configured (bad base URL, plain HTTP for OAuth, …).
    Config {
        /// What is wrong.
        reason: String,
    },
}

/// The text of an error, before [`Error`]'s `Display` writes it on one line ([`OneLine`]):
/// every variant's text passes through there.
struct Describe<'e>(&'e Error);

impl fmt::Display for Describe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Error::Transport { method, source } => write!(
                f,
                "{method}: the request to {} failed: {source}",
                source.origin
            ),
            Error::Timeout {
                method,
                limit,
                after,
                attempts,
            } => write!(
                f,
                "{method}: no complete answer within {limit}: gave up after {} ms and {attempts} attempt{}",
                after.as_millis(),
                if *attempts == 1 { "" } else { "s" }
            ),
            Error::Redirect {
                method,
                status,
                location,
            } => write!(
                f,
                "{method}: refused a redirect{} to {}: the client never follows redirects{}",
                status
                    .map(|status| format!(" (HTTP {status})"))
                    .unwrap_or_default(),
                location.as_deref().unwrap_or("an unnamed location"),
                if status.is_none() {
                    " (the reqwest::Client given to ClientBuilder::http_client followed it; build that client with redirect::Policy::none())"
                } else {
                    ""
                }
            ),
            Error::Intermediary {
                method,
                origin,
                peer,
            } => write!(
                f,
                "{method}: the plain-HTTP request went to {peer}, not to {origin}: a proxy of the HTTP client given to ClientBuilder::http_client carried it (a signed request over plain HTTP never goes through an intermediary); the answer is refused"
            ),
            Error::ResponseTooLarge { method, limit } => write!(
                f,
                "{method}: the response is larger than the limit of {limit} bytes"
            ),
            Error::Status {
                method,
                status,
                body,
            } => write!(f, "{method}: HTTP {status}: {}", excerpt(body)),
            Error::Api {
                method, failure, ..
            } => write!(f, "{method}: {failure}"),
            Error::Decode {
                method,
                path,
                message,
                excerpt,
            } => write!(
                f,
                "{method}: cannot decode the response at `{path}`: {message} (body starts: {excerpt})"
            ),
            Error::Paging {
                method,
                after_page,
                reason,
            } => write!(
                f,
                "{method}: paging stopped after page {after_page}: {reason}"
            ),
            Error::ImplausibleClock {
                method,
                clock,
                service,
            } => write!(f, "{method}: {}", implausible_clock(*clock, *service)),
            Error::TokenExpired { expires_at } => write!(
                f,
                "the access token expired at {expires_at}; the user must authorize the application again"
            ),
            Error::InvalidArgument {
                method,
                name,
                reason,
            } => write!(f, "{method}: invalid argument `{name}`: {reason}"),
            Error::Callback { reason } => write!(f, "invalid OAuth callback: {reason}"),
            Error::Config { reason } => write!(f, "invalid client configuration: {reason}"),
        }
    }
}

/// On one line without a control character, whatever the service sent: a message, a code, a
/// body, a JSON key or value an error quotes can neither start a line of an app's log (forge
/// an entry) nor move a terminal's cursor nor reorder what a reader sees ([`OneLine`]).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&OneLine(Describe(self)), f)
    }
}

impl Error {
    /// What a response's body said went wrong.
    pub(crate) fn api(method: &'static str, status: u16, failure: ApiFailure) -> Error {
        Error::Api {
            method,
            status,
            failure: Box::new(failure),
        }
    }

    /// The service's error code, when it sent one (the generated `ErrorCode::of` gives it
    /// typed).
    pub fn code(&self) -> Option<&RawErrorCode> {
        match self {
            Error::Api { failure, .. } => failure.code.as_ref(),
            _ => None,
        }
    }

    /// The HTTP status, when a response arrived.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Status { status, .. } | Error::Api { status, .. } => Some(*status),
            Error::Redirect { status, .. } => *status,
            Error::Transport { .. } => None,
            _ => None,
        }
    }
}

impl Error {
    /// This error with every text it holds cleaned by `scrubber`: the one place an error's
    /// text is cleaned of a call's secrets before the error leaves the call.
    pub(crate) fn scrubbed(self, scrubber: &Scrubber<'_>) -> Error {
        let clean = |text: String| match scrubber.text(&text) {
            Cow::Borrowed(_) => text,
            Cow::Owned(clean) => clean,
        };
        match self {
            Error::Transport { method, source } => Error::Transport {
                method,
                source: TransportError {
                    kind: source.kind,
                    origin: clean(source.origin),
                    message: clean(source.message),
                },
            },
            Error::Timeout {
                method,
                limit,
                after,
                attempts,
            } => Error::Timeout {
                method,
                limit,
                after,
                attempts,
            },
            Error::Redirect {
                method,
                status,
                location,
            } => Error::Redirect {
                method,
                status,
                location: location.map(clean),
            },
            Error::Intermediary {
                method,
                origin,
                peer,
            } => Error::Intermediary {
                method,
                origin: clean(origin),
                peer,
            },
            Error::ResponseTooLarge { method, limit } => Error::ResponseTooLarge { method, limit },
            Error::Status {
                method,
                status,
                body,
            } => Error::Status {
                method,
                status,
                body: clean(body),
            },
            Error::Api {
                method,
                status,
                failure,
            } => Error::Api {
                method,
                status,
                failure: Box::new(failure.scrubbed(&clean)),
            },
            Error::Decode {
                method,
                path,
                message,
                excerpt,
            } => Error::Decode {
                method,
                path: clean(path),
                message: clean(message),
                excerpt: clean(excerpt),
            },
            Error::Paging {
                method,
                after_page,
                reason,
            } => Error::Paging {
                method,
                after_page,
                reason: clean(reason),
            },
            Error::ImplausibleClock {
                method,
                clock,
                service,
            } => Error::ImplausibleClock {
                method,
                clock,
                service,
            },
            Error::TokenExpired { expires_at } => Error::TokenExpired { expires_at },
            Error::InvalidArgument {
                method,
                name,
                reason,
            } => Error::InvalidArgument {
                method,
                name: clean(name),
                reason: clean(reason),
            },
            Error::Callback { reason } => Error::Callback {
                reason: clean(reason),
            },
            Error::Config { reason } => Error::Config {
                reason: clean(reason),
            },
        }
    }
}

/// What [`Error::ImplausibleClock`] says: whose clock, and what to check.
fn implausible_clock(clock: Timestamp, service: Option<Timestamp>) -> String {
    match service {
        Some(service) => format!(
            "the service refused the signature and its Date header ({service}) lies more than \
             {} h from the local clock; that correction is not adopted and the client keeps \
             signing with {clock} (check the local clock, or the service)",
            crate::clock::MAX_OFFSET.as_hours()
        ),
        None => format!(
            "the clock reads {clock}, and an oauth_timestamp must be a positive number of \
             seconds since 1970 (RFC 5849): nothing was signed (set the local clock)"
        ),
    }
}

/// Why a request got no complete answer from the HTTP client (connection refused or reset, TLS
/// refused, a body cut short): what kind of failure, and the HTTP client's account of it as
/// cleaned text, without the URL. The HTTP client's own error is not kept: its `Display` and
/// `Debug` (the URL, TLS details a server chose) would bypass the scrubber.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", OneLine(message))]
pub struct TransportError {
    kind: TransportErrorKind,
    /// Where the request went: `https://host:port` (the base URL's origin, which holds no
    /// credential: the builder refuses one there).
    origin: String,
    message: String,
}

/// What kind of failure a [`TransportError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// Connecting failed (refused, unreachable, TLS handshake refused).
    Connect,
    /// The answer's body could not be read whole (the connection closed or reset).
    Body,
    /// The request could not be sent or its answer not read (anything else).
    Request,
}

impl TransportError {
    /// The account of `error`, its causes included, without the URL, cleaned by `scrubber`,
    /// of a request to `url`'s origin.
    pub(crate) fn new(
        error: &reqwest::Error,
        scrubber: &Scrubber<'_>,
        url: &url::Url,
    ) -> TransportError {
        let kind = if error.is_connect() {
            TransportErrorKind::Connect
        } else if error.is_body() || error.is_decode() {
            TransportErrorKind::Body
        } else {
            TransportErrorKind::Request
        };
        let mut message = String::new();
        let mut cause: Option<&dyn std::error::Error> = Some(error);
        while let Some(error) = cause {
            let text = error.to_string();
            // reqwest names the URL in its own text ("… for url (…)"): the call's method names
            // the call, and the URL holds nothing the caller does not know.
            let text = match text.find(" for url (") {
                Some(at) => &text[..at],
                None => &text,
            };
            if !message.is_empty() {
                message.push_str(": ");
            }
            message.push_str(text);
            cause = error.source();
        }
        TransportError {
            kind,
            origin: scrubber
                .text(&url.origin().ascii_serialization())
                .into_owned(),
            message: scrubber.text(&message).into_owned(),
        }
    }

    /// Where the request went: the origin of the client's base URL (`https://host:port`; no
    /// path, no credential).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// What kind of failure it was.
    pub fn kind(&self) -> TransportErrorKind {
        self.kind
    }

    /// Whether connecting failed.
    pub fn is_connect(&self) -> bool {
        self.kind == TransportErrorKind::Connect
    }
}

/// The time limit an [`Error::Timeout`] reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeoutLimit {
    /// One attempt took longer than its timeout (`ClientBuilder::timeout` or
    /// `CallOptions::timeout`; or a timeout of the HTTP client itself, such as its connect
    /// timeout), and no retry was left.
    Attempt,
    /// The call's deadline passed (`ClientBuilder::deadline` or `CallOptions::deadline`), which
    /// covers every attempt and every wait between attempts.
    Deadline,
}

impl std::fmt::Display for TimeoutLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutLimit::Attempt => "the per-attempt timeout",
            TimeoutLimit::Deadline => "the call's deadline",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_say_which_limit_after_how_long_and_how_many_attempts() {
        let error = Error::Timeout {
            method: "pay/getInvoice",
            limit: TimeoutLimit::Deadline,
            after: Duration::from_millis(1500),
            attempts: 3,
        };
        assert_eq!(
            error.to_string(),
            "pay/getInvoice: no complete answer within the call's deadline: gave up after 1500 ms and 3 attempts"
        );
    }

    #[test]
    fn a_redirect_says_where_and_why() {
        let error = Error::Redirect {
            method: "oauth/getRequestToken",
            status: Some(307),
            location: Some("https://elsewhere.example/".to_owned()),
        };
        assert_eq!(
            error.to_string(),
            "oauth/getRequestToken: refused a redirect (HTTP 307) to https://elsewhere.example/: the client never follows redirects"
        );
        assert_eq!(error.status(), Some(307));
    }

    #[test]
    fn an_intermediary_says_where_the_request_went_instead() {
        let error = Error::Intermediary {
            method: "pay/getInvoice",
            origin: "10.0.0.1:80".to_owned(),
            peer: "10.0.0.9:3128".parse().unwrap(),
        };
        assert_eq!(
            error.to_string(),
            "pay/getInvoice: the plain-HTTP request went to 10.0.0.9:3128, not to 10.0.0.1:80: a \
             proxy of the HTTP client given to ClientBuilder::http_client carried it (a signed \
             request over plain HTTP never goes through an intermediary); the answer is refused"
        );
    }

    #[test]
    fn an_implausible_clock_says_whose_clock_and_what_to_check() {
        let at = |seconds| Timestamp::from_second(seconds).unwrap();
        let error = Error::ImplausibleClock {
            method: "pay/getInvoice",
            clock: at(1_800_000_000),
            service: Some(at(1)),
        };
        assert_eq!(
            error.to_string(),
            "pay/getInvoice: the service refused the signature and its Date header \
             (1970-01-01T00:00:01Z) lies more than 24 h from the local clock; that correction is \
             not adopted and the client keeps signing with 2027-01-15T08:00:00Z (check the local \
             clock, or the service)"
        );
        let error = Error::ImplausibleClock {
            method: "pay/getInvoice",
            clock: at(0),
            service: None,
        };
        assert_eq!(
            error.to_string(),
            "pay/getInvoice: the clock reads 1970-01-01T00:00:00Z, and an oauth_timestamp must be \
             a positive number of seconds since 1970 (RFC 5849): nothing was signed (set the local \
             clock)"
        );
    }
}
