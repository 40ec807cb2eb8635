//! Behaviour around every HTTP exchange: request hooks that see and add headers before the
//! request is signed and sent ([`OutgoingRequest`]), and response hooks that see each answer
//! ([`ReceivedResponse`]). They are set on the [`ClientBuilder`](crate::ClientBuilder) and run
//! for every attempt of every call, OAuth endpoints included, in the order they were added.
//!
//! Neither side can reach a secret: a request hook runs before the `Authorization` header (the
//! only place OAuth values travel) is added, and replaces nothing of it; a response hook gets
//! every body and header as the scrubber left them: secret-named values and the call's own
//! secrets removed, whatever the answer (see [`ReceivedResponse::body`]). A client without
//! hooks pays nothing for them: no header map is built, no clock is read and no body is
//! cleaned; a hook pays for the cleaning of what it reads (headers, body) when it reads it. The crate docs show both kinds at work.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use jiff::Timestamp;
use reqwest::header::HeaderMap;
use url::Url;

use crate::error_body::ReadBody;
use crate::scrub::Scrubber;
use crate::secret::DebugHeaders;

/// A request hook.
pub(crate) type RequestHook = Arc<dyn Fn(&mut OutgoingRequest<'_>) + Send + Sync>;
/// A response hook.
pub(crate) type ResponseHook = Arc<dyn Fn(&ReceivedResponse<'_>) + Send + Sync>;

/// The hooks of a client, in the order they were added.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) request: Vec<RequestHook>,
    pub(crate) response: Vec<ResponseHook>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("request", &self.request.len())
            .field("response", &self.response.len())
            .finish()
    }
}

/// One attempt of a call about to be sent, as a request hook sees it: where it goes, and the
/// headers it will carry, which the hook may change.
///
/// The headers are those of [`CallOptions::header`](crate::CallOptions::header) and of earlier
/// hooks; the `Authorization` header is added after every hook (replacing any set here), so a
/// hook never sees the signature and cannot alter it. Headers are not part of an OAuth 1.0a
/// signature, so what a hook adds does not change it.
///
/// A credential header (see [`CallOptions`](crate::CallOptions)), from the call's options or
/// an earlier hook, is marked sensitive before each hook runs, and `Debug` shows it as
/// `[redacted]`; one a hook adds is a known secret of the attempt (removed from what the
/// service echoes of it).
pub struct OutgoingRequest<'a> {
    pub(crate) api_method: &'static str,
    pub(crate) http_method: &'a reqwest::Method,
    pub(crate) url: &'a Url,
    pub(crate) attempt: u32,
    pub(crate) headers: &'a mut HeaderMap,
}

impl std::fmt::Debug for OutgoingRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutgoingRequest")
            .field("api_method", &self.api_method)
            .field("http_method", self.http_method)
            .field("url", &self.url.as_str())
            .field("attempt", &self.attempt)
            .field("headers", &DebugHeaders(self.headers))
            .finish()
    }
}

impl OutgoingRequest<'_> {
    /// The API method: `pay/getTimesheet`, `oauth/getRequestToken`, ….
    pub fn api_method(&self) -> &'static str {
        self.api_method
    }

    /// The HTTP method: GET for data methods, POST for the OAuth endpoints.
    pub fn http_method(&self) -> &reqwest::Method {
        self.http_method
    }

    /// The URL, with the method's parameters in its query (OAuth values travel in the
    /// `Authorization` header, never here).
    pub fn url(&self) -> &Url {
        self.url
    }

    /// Which attempt of the call this is, from 1 (retries are further attempts).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The headers the request will carry.
    pub fn headers(&self) -> &HeaderMap {
        self.headers
    }

    /// The headers, to add to (a trace id, an app tag, …).
    pub fn headers_mut(&mut self) -> &mut HeaderMap {
        self.headers
    }
}

/// One answer of the service, as a response hook sees it: the exchange (method, URL,
/// parameters, attempt, when it was sent) and the answer (status, headers, latency, body).
///
/// A hook sees every answer that arrived, whatever the call makes of it: an error status, a
/// 5xx that will be retried, a redirect that will be refused. A connection that failed or an
/// attempt that timed out has no answer and reaches no hook (the call's [`Error`](crate::Error)
/// and its `marketplace_call` tracing span report it).
pub struct ReceivedResponse<'a> {
    pub(crate) api_method: &'static str,
    pub(crate) http_method: &'a reqwest::Method,
    pub(crate) url: &'a Url,
    pub(crate) params: &'a [(&'static str, String)],
    pub(crate) attempt: u32,
    pub(crate) sent_at: Timestamp,
    pub(crate) latency: Duration,
    pub(crate) status: u16,
    /// The answer's headers and body as the hook is shown them.
    pub(crate) shown: Shown<'a>,
}

/// The headers and the body a hook is shown: cleaned when first asked for, so a hook that reads neither (one that counts statuses or times calls) costs the call no
/// cleaning.
pub(crate) enum Shown<'a> {
    /// Cleaned already (the recorder's tests, which show a hook any answer).
    #[cfg(test)]
    Cleaned {
        headers: &'a HeaderMap,
        body: Option<&'a [u8]>,
        body_redacted: bool,
    },
    /// Cleaned by the attempt's scrubber on first use, at most once each.
    OnFirstUse {
        scrubber: &'a Scrubber<'a>,
        /// As they arrived.
        headers: &'a HeaderMap,
        cleaned_headers: OnceLock<Cow<'a, HeaderMap>>,
        /// The body cleaned, made on the first call; `None` when the body was not read. It is
        /// the answer's one cleaning (`transport::Response::read`), shared with the recorders
        /// and the call.
        body: Option<&'a dyn CleanedBody>,
    },
}

/// A body that is cleaned on first use, once (the transport's answer with its scrubber).
pub(crate) trait CleanedBody: Sync + std::panic::RefUnwindSafe {
    fn cleaned(&self) -> &ReadBody;
}

/// The answer as the hook is shown it: every field through its accessor, so `Debug` shows
/// the headers and body cleaned.
impl fmt::Debug for ReceivedResponse<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReceivedResponse")
            .field("api_method", &self.api_method)
            .field("http_method", &self.http_method)
            .field("url", &self.url)
            .field("params", &self.params)
            .field("attempt", &self.attempt)
            .field("sent_at", &self.sent_at)
            .field("latency", &self.latency)
            .field("status", &self.status)
            .field("headers", self.headers())
            .field("body", &self.body())
            .field("body_redacted", &self.body_is_redacted())
            .finish()
    }
}

impl ReceivedResponse<'_> {
    /// The API method: `pay/getTimesheet`, `oauth/getRequestToken`, ….
    pub fn api_method(&self) -> &'static str {
        self.api_method
    }

    /// The HTTP method.
    pub fn http_method(&self) -> &reqwest::Method {
        self.http_method
    }

    /// The URL the request went to (no OAuth values: those travel in the `Authorization`
    /// header).
    pub fn url(&self) -> &Url {
        self.url
    }

    /// The method's parameters as sent, in order, without any OAuth value.
    pub fn params(&self) -> impl Iterator<Item = (&str, &str)> {
        self.params
            .iter()
            .map(|(name, value)| (*name, value.as_str()))
    }

    /// Which attempt of the call this was, from 1.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// When the request was sent, by the local clock.
    pub fn sent_at(&self) -> Timestamp {
        self.sent_at
    }

    /// From sending the request to the end of the body (to the headers when the body was not
    /// read).
    pub fn latency(&self) -> Duration {
        self.latency
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The response headers, cleaned of secrets: a header whose name holds a secret of the call
    /// shown as `x-redacted` without its value; `Authorization`, cookies and secret-named
    /// headers without their values; any other value without a secret-named pair or one of the
    /// call's secrets in it (the headers as sent when there was nothing to remove). Cleaned
    /// when first asked for: a hook that never asks costs the call no cleaning. Cleaned until
    /// the call's deadline: a value still being cleaned then, and every one after, is withheld,
    /// and the call ends with [`Error::Timeout`](crate::Error::Timeout).
    pub fn headers(&self) -> &HeaderMap {
        match &self.shown {
            #[cfg(test)]
            Shown::Cleaned { headers, .. } => headers,
            Shown::OnFirstUse {
                scrubber,
                headers,
                cleaned_headers,
                ..
            } => cleaned_headers.get_or_init(|| scrubber.headers(headers)),
        }
    }

    /// The body, cleaned of secrets whatever the answer: every secret-named value (a name with
    /// `secret`, `password`, `oauth_signature`, `oauth_verifier`, … in it, in JSON, form pairs or
    /// text, however escaped or nested) and every secret of the call (the consumer secret, the
    /// token secret, the verifier, the signature, in any encoding) replaced by `[redacted]`;
    /// the bytes as sent when there was nothing to remove (see
    /// [`body_is_redacted`](Self::body_is_redacted)). A body a reader would decode before
    /// reading (a `Content-Encoding`, a charset other than UTF-8, a UTF-16 byte order mark, a
    /// NUL byte) is withheld whole. A token endpoint's answer, which holds
    /// the new token secret, shows without it. `None` when the client did not read the body: a
    /// redirect, or a body larger than `ClientBuilder::max_response_bytes`. Cleaned when first
    /// asked for (once for every hook and recorder), except a body over 64 KiB, cleaned before
    /// the hooks run under the call's deadline. Either way the cleaning stops at the deadline:
    /// the body is then withheld and the call ends with
    /// [`Error::Timeout`](crate::Error::Timeout).
    pub fn body(&self) -> Option<&[u8]> {
        match &self.shown {
            #[cfg(test)]
            Shown::Cleaned { body, .. } => *body,
            Shown::OnFirstUse { body, .. } => body.map(|body| body.cleaned().bytes()),
        }
    }

    /// Whether [`body`](Self::body) is not the bytes as sent: secrets were removed (or the
    /// whole body withheld, when it could not be cleaned for certain).
    pub fn body_is_redacted(&self) -> bool {
        match &self.shown {
            #[cfg(test)]
            Shown::Cleaned { body_redacted, .. } => *body_redacted,
            Shown::OnFirstUse { body, .. } => body.is_some_and(|body| body.cleaned().changed()),
        }
    }
}
