//! The state every request of the fake shares ([`App`]), a request as the OAuth checks and
//! the login form read it ([`ReadRequest`]), and the marks the front layer's recorder notes.

use std::sync::atomic::AtomicUsize;
use std::sync::{Mutex, MutexGuard, PoisonError};

use axum::body::{Bytes, HttpBody as _};
use axum::extract::Request;
use axum::http::{Method, header};
use axum::response::Response;
use marketplace_client::recording::Recorder;

use crate::clock::FakeClock;
use crate::credentials::DemoCredentials;
use crate::error_shape::{ErrorShape, ServiceError};
use crate::faults::Faults;
use crate::replay::Player;
use crate::spelling::Spellings;
use crate::tokens::Tokens;
use crate::verify::RawRequest;
use crate::world::World;

/// The largest request body read.
const MAX_BODY: usize = 64 * 1024;

/// How long a request's body may take to arrive once its head is read: far beyond any client
/// on loopback, and a client that declares a body and never sends it holds nothing longer.
const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The state shared by every request.
#[derive(Debug)]
pub(crate) struct App {
    pub(crate) world: World,
    pub(crate) credentials: DemoCredentials,
    pub(crate) clock: FakeClock,
    pub(crate) faults: Faults,
    /// `https` or `http`.
    pub(crate) scheme: &'static str,
    /// `127.0.0.1:PORT`, the host of a request without `Host`.
    pub(crate) authority: String,
    pub(crate) tokens: Mutex<Tokens>,
    pub(crate) served: AtomicUsize,
    pub(crate) error_shape: Mutex<ErrorShape>,
    /// Where every answer is recorded, if anywhere ([`FakeMarketplace::record`]).
    pub(crate) recorder: Mutex<Option<Recorder>>,
    /// How data answers spell their values ([`FakeMarketplace::set_spellings`]).
    pub(crate) spellings: Mutex<Spellings>,
    /// The recordings data calls are answered from, if any ([`FakeMarketplace::replay`]).
    pub(crate) replay: Mutex<Option<Player>>,
}

impl App {
    /// The token store, locked.
    pub(crate) fn tokens(&self) -> MutexGuard<'_, Tokens> {
        self.tokens.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer to `error`, in the shape errors are answered in.
    pub(crate) fn error(&self, error: ServiceError) -> Response {
        error.response(self.error_shape())
    }

    pub(crate) fn error_shape(&self) -> ErrorShape {
        *self
            .error_shape
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn spellings(&self) -> Spellings {
        *self
            .spellings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn player(&self) -> MutexGuard<'_, Option<Player>> {
        self.replay.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn recorder(&self) -> Option<Recorder> {
        self.recorder
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The parts of a request that the OAuth checks and the login form read, body included.
#[derive(Debug)]
pub(crate) struct ReadRequest {
    method: Method,
    host: String,
    path: String,
    /// The raw query string.
    pub(crate) query: Option<String>,
    authorization: Option<String>,
    /// The whole body.
    pub(crate) body: Bytes,
    is_form: bool,
}

impl ReadRequest {
    /// Reads the request and its body (up to 64 KiB; 413 beyond, at once when the length
    /// announced is beyond: the body is then never polled, so a client that sent
    /// `Expect: 100-continue` gets the refusal rather than a `100 Continue`, RFC 9110 §10.1.1;
    /// 408 when the body has not come within [`BODY_TIMEOUT`]).
    pub(crate) async fn read(app: &App, request: Request) -> Result<ReadRequest, Response> {
        let (parts, body) = request.into_parts();
        let refuse = |status: u16, code: &str, message: &str, why: &'static str| {
            let refusal = app.error(ServiceError::new(
                parts.uri.path().trim_start_matches('/'),
                status,
                code,
                "request",
                message,
            ));
            outside_the_api(refusal, why)
        };
        let too_large = || {
            refuse(
                413,
                "E_API_REQUEST_TOO_LARGE",
                "the request body is too large or could not be read",
                "the request body is over the limit",
            )
        };
        // Bounded before it is read: a length announced over the limit (hyper's reading of
        // `Content-Length`, which it has checked) is refused without polling the body.
        if body.size_hint().lower() > MAX_BODY as u64 {
            return Err(too_large());
        }
        let body =
            match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await {
                Ok(Ok(body)) => body,
                Ok(Err(_)) => return Err(too_large()),
                Err(_) => {
                    return Err(refuse(
                        408,
                        "E_API_REQUEST_TIMEOUT",
                        "the request body did not arrive in time",
                        "the request body did not arrive in time",
                    ));
                }
            };
        let text = |name: header::HeaderName| {
            parts
                .headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let host = parts
            .uri
            .authority()
            .map(|authority| authority.as_str().to_owned())
            .or_else(|| text(header::HOST))
            .unwrap_or_else(|| app.authority.clone());
        let is_form = text(header::CONTENT_TYPE).is_some_and(|kind| {
            kind.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
        Ok(ReadRequest {
            host,
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().map(str::to_owned),
            authorization: text(header::AUTHORIZATION),
            is_form,
            method: parts.method,
            body,
        })
    }

    /// The request as the signature checks see it.
    pub(crate) fn raw(&self, scheme: &'static str) -> RawRequest<'_> {
        RawRequest {
            method: self.method.as_str(),
            scheme,
            host: &self.host,
            path: &self.path,
            query: self.query.as_deref(),
            authorization: self.authorization.as_deref(),
            form: (self.is_form && self.method == Method::POST).then_some(&self.body[..]),
        }
    }
}

/// Marks `response` as the refusal of a request outside the API (a wrong HTTP method, a body
/// over the limit), which the recorder notes and the wire audit does not hold to the spec.
pub(crate) fn outside_the_api(mut response: Response, why: &'static str) -> Response {
    response.extensions_mut().insert(OutsideTheApi(why));
    response
}

/// The mark [`outside_the_api`] sets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OutsideTheApi(pub(crate) &'static str);

/// The mark of an answer of a replay (from a recording, or its refusal of a request no
/// recording matched), which the recorder notes `replay: …`.
#[derive(Clone, Debug)]
pub(crate) struct Replayed(pub(crate) String);
