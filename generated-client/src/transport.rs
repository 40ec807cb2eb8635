//! Sending one signed call: a fresh signature on every attempt, retries with backoff for
//! transient failures of GET calls within the call's deadline, one retry with a corrected clock
//! when the service rejects the signature and its `Date` header shows the local clock is off
//! (by less than a day), no redirect ever followed, and no plain-HTTP answer taken from an
//! intermediary.

use std::net::{IpAddr, SocketAddr};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use jiff::Timestamp;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, DATE, HeaderMap, LOCATION, RETRY_AFTER};
use tracing::Instrument;
use url::Url;

use crate::clock::{self, Clock, Correction};
use crate::error::{Error, TimeoutLimit, TransportError};
use crate::error_body::{ReadBody, issued_secrets};
use crate::hooks::{CleanedBody, Hooks, OutgoingRequest, ReceivedResponse, Shown};
use crate::oauth::MAX_TOKEN_BYTES;
use crate::oauth::signature::{self, KeyedMac, OAuthParams, PairsRequest, SigningKey};
use crate::options::{CallOptions, RetryPolicy};
use crate::recording::{Answer, AnswerBody, Recorder, Sent};
use crate::scrub::{Canceller, KnownSecrets, Scrubber, SecretRegistry};
use crate::secret::{ConsumerCredentials, credential_values, mark_credential_headers};
use crate::service::Service;

pub(crate) use crate::scrub::INLINE_BYTES;

/// The bounds of the token and token secret a call signs with, here where every call passes:
/// the app makes them in ways no constructor checks (`AccessToken::new`, one restored from
/// storage, a `RequestToken`'s fields). Both or neither (OAuth's token credentials are a pair;
/// only the request-token call has neither), each at most `MAX_TOKEN_BYTES`, and the
/// credentials' one rule (`oauth::foreign_character`): one read with its line break would sign
/// the call wrong and show only as a signature mismatch. The call ends before anything is sent
/// or remembered; the value is never shown.
fn check_tokens(call: &Call<'_>) -> Result<(), Error> {
    let token = call.token.unwrap_or_default();
    let refuse = |name: &str, reason: String| Error::InvalidArgument {
        method: call.method,
        name: name.to_owned(),
        reason,
    };
    match (token.is_empty(), call.token_secret.is_empty()) {
        (true, false) => return Err(refuse("oauth_token", "the token is empty".to_owned())),
        (false, true) => {
            return Err(refuse(
                "oauth_token_secret",
                "the token secret is empty".to_owned(),
            ));
        }
        _ => {}
    }
    for (name, text) in [
        ("oauth_token", token),
        ("oauth_token_secret", call.token_secret),
    ] {
        if text.len() > MAX_TOKEN_BYTES {
            return Err(refuse(
                name,
                format!(
                    "the {name} the call signs with is {} bytes long, over the \
                     {MAX_TOKEN_BYTES} a token may be",
                    text.len()
                ),
            ));
        }
        if let Some((at, c, what)) = crate::oauth::foreign_character(text) {
            return Err(refuse(
                name,
                format!(
                    "the {name} the call signs with holds {what} U+{:04X} at byte {at}, which \
                     no credential holds (was it read with a line break, or from a file with a \
                     byte order mark?)",
                    u32::from(c)
                ),
            ));
        }
    }
    Ok(())
}

/// Cancels a cleaning on another thread when dropped (see [`Response::clean_within_deadline`]).
struct CancelOnDrop(Option<Canceller>);

impl CancelOnDrop {
    /// The result came: nothing to cancel.
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(canceller) = &self.0 {
            canceller.cancel();
        }
    }
}

/// `future`'s output, or `None` when `deadline` passes first.
pub(crate) async fn within<T>(
    deadline: Option<Instant>,
    future: impl Future<Output = T>,
) -> Option<T> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline.into(), future).await.ok(),
        None => Some(future.await),
    }
}

/// How calls are made, as configured on the `ClientBuilder`.
#[derive(Clone)]
pub(crate) struct Settings {
    /// The service, as the spec describes it.
    pub(crate) service: &'static Service,
    /// The longest one attempt may take.
    pub(crate) timeout: Duration,
    /// The longest a whole call may take, every attempt and wait included.
    pub(crate) deadline: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) page_concurrency: usize,
    pub(crate) allow_plain_http_oauth: bool,
    /// The largest response body read; a larger one is an error, not an allocation.
    pub(crate) max_response_bytes: u64,
    pub(crate) hooks: Hooks,
    /// The recorders of `ClientBuilder::record`: handed each answer as it arrived, with the
    /// call's secrets, and cleaning it on their own thread (`recording/answer.rs`).
    pub(crate) recorders: Vec<Recorder>,
}

/// What an app configured; the service by its name (its endpoints and error lists are the
/// spec's, `marketplace_client::SERVICE`), so a client's `Debug` stays short.
impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Settings {
            service,
            timeout,
            deadline,
            retry,
            page_concurrency,
            allow_plain_http_oauth,
            max_response_bytes,
            hooks,
            recorders,
        } = self;
        f.debug_struct("Settings")
            .field("service", &service.name)
            .field("timeout", timeout)
            .field("deadline", deadline)
            .field("retry", retry)
            .field("page_concurrency", page_concurrency)
            .field("allow_plain_http_oauth", allow_plain_http_oauth)
            .field("max_response_bytes", max_response_bytes)
            .field("hooks", hooks)
            .field("recorders", &recorders.len())
            .finish()
    }
}

/// The HTTP side of a [`Client`](crate::Client).
#[derive(Debug)]
pub(crate) struct Transport {
    pub(crate) http: reqwest::Client,
    pub(crate) base_url: Url,
    pub(crate) consumer: ConsumerCredentials,
    pub(crate) settings: Settings,
    /// The local clock, corrected by what the service's `Date` headers taught (within a day).
    clock: Clock,
    /// Every secret the client holds or held lately, cleaned from every call's answers.
    pub(crate) secrets: SecretRegistry,
}

/// One call to make.
pub(crate) struct Call<'a> {
    /// The API method, for errors and traces.
    pub(crate) method: &'static str,
    pub(crate) http_method: reqwest::Method,
    pub(crate) path: &'a str,
    pub(crate) query: &'a [(&'static str, String)],
    /// The `oauth_token`: `Some("")` is sent blank, `None` not at all.
    pub(crate) token: Option<&'a str>,
    pub(crate) token_secret: &'a str,
    /// The HMAC keyed with the consumer secret and `token_secret`, when the caller keeps one
    /// (a session does); keyed for the call otherwise.
    pub(crate) keyed_mac: Option<&'a KeyedMac>,
    pub(crate) callback: Option<&'a str>,
    pub(crate) verifier: Option<&'a str>,
    /// OAuth endpoints must use HTTPS.
    pub(crate) oauth_endpoint: bool,
    /// Credentials the app handed the call besides its headers (a callback's query values).
    pub(crate) app_credentials: &'a [String],
    /// When the call started and must end ([`Transport::deadline`]), made once as it starts:
    /// every attempt and wait, and every cleaning of what it received up to the error it
    /// returns, end by it.
    pub(crate) deadline: Deadline,
}

/// When a call started, and when it must end: one instant, so that the time a timeout reports
/// is never short of the deadline it names.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    pub(crate) started: Instant,
    /// `None`: a deadline too far to represent.
    pub(crate) at: Option<Instant>,
}

/// A response that arrived whole, from the URL it was sent to.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Bytes,
    /// Attempts the call made, this one included.
    pub(crate) attempts: u32,
    /// From the call's first attempt to the end of this body.
    pub(crate) elapsed: Duration,
    /// The signatures the call's attempts were sent with, this answer's last: secrets the
    /// answer may echo.
    pub(crate) signatures: Vec<String>,
    /// The credentials the app sent in the attempt's headers: secrets the answer may echo.
    pub(crate) app_credentials: Vec<String>,
    /// The token secrets a token endpoint's answer issues, echoed anywhere else in it.
    pub(crate) issued: Vec<String>,
    /// The call's progress when the answer arrived: its start, attempts and deadline.
    pub(crate) progress: Progress,
    /// The body cleaned of secrets, at most once (see [`Response::read`]).
    read: OnceLock<ReadBody>,
}

impl Response {
    fn new(
        status: u16,
        headers: HeaderMap,
        body: Bytes,
        progress: Progress,
        secrets: AnswerSecrets,
    ) -> Self {
        let content_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Response {
            status,
            headers,
            content_type,
            body,
            attempts: progress.attempt,
            elapsed: progress.started.elapsed(),
            signatures: secrets.signatures,
            app_credentials: secrets.app_credentials,
            issued: secrets.issued,
            progress,
            read: OnceLock::new(),
        }
    }

    /// Whether the status is a success (2xx).
    pub(crate) fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body cleaned of secrets (and parsed when asked): on the first call only, so the
    /// hooks, the clock check and the error that follows share one cleaning. Every caller
    /// passes the scrubber of the call that got this answer ([`Transport::scrubber`]).
    pub(crate) fn read(&self, scrubber: &Scrubber<'_>) -> &ReadBody {
        self.read
            .get_or_init(|| ReadBody::read(&self.body, &self.headers, scrubber))
    }

    /// Cleans the body ([`Response::read`]) so that the call still ends by its deadline:
    /// cleaning is CPU work no timer interrupts, linear but not free on a large hostile body,
    /// so a body over [`INLINE_BYTES`] is cleaned on a blocking thread that the call awaits
    /// only until the deadline (the thread then finishes unobserved and nothing it made is
    /// used). `false` when the deadline came first.
    pub(crate) async fn clean_within_deadline(&self, scrubber: &Scrubber<'_>) -> bool {
        if self.read.get().is_some() || self.body.len() <= INLINE_BYTES {
            // Stopped at the deadline, if it comes first (`Scrubber::until`).
            self.read(scrubber);
            return !scrubber.stopped();
        }
        let parts = scrubber.to_parts();
        // Cancelled when this future ends without the result: at the deadline, or dropped
        // with the attempt at its timeout.
        let cancel_on_drop = CancelOnDrop(Some(parts.canceller()));
        let (body, headers) = (self.body.clone(), self.headers.clone());
        let cleaning = tokio::task::spawn_blocking(move || {
            let scrubber = parts.scrubber();
            let read = ReadBody::read(&body, &headers, &scrubber);
            (read, scrubber.stopped())
        });
        let outcome = within(self.progress.deadline, cleaning).await;
        if outcome.is_some() {
            cancel_on_drop.disarm();
        }
        match outcome {
            // The thread's scrubber stops at the same deadline: what it withheld then is the
            // deadline's, as on this thread.
            Some(Ok((_, true))) => false,
            Some(Ok((read, false))) => {
                let _ = self.read.set(read);
                true
            }
            // The cleaning panicked (it does not): do it here, to the same end.
            Some(Err(_)) => {
                self.read(scrubber);
                true
            }
            None => false,
        }
    }
}

/// A body read chunk by chunk: a body of one chunk (most answers) is kept as it came, without
/// a copy (as reqwest's own `bytes()` does); the chunks of a longer one are gathered into one
/// buffer.
#[derive(Default)]
struct Chunks {
    first: Bytes,
    gathered: Option<bytes::BytesMut>,
}

impl Chunks {
    fn len(&self) -> usize {
        self.gathered
            .as_ref()
            .map_or(self.first.len(), |gathered| gathered.len())
    }

    /// Adds the next chunk; `expected` is the size to make room for when gathering starts.
    fn push(&mut self, chunk: Bytes, expected: usize) {
        match &mut self.gathered {
            Some(gathered) => gathered.extend_from_slice(&chunk),
            None if self.first.is_empty() => self.first = chunk,
            None => {
                let first = std::mem::take(&mut self.first);
                let mut gathered =
                    bytes::BytesMut::with_capacity(expected.max(first.len() + chunk.len()));
                gathered.extend_from_slice(&first);
                gathered.extend_from_slice(&chunk);
                self.gathered = Some(gathered);
            }
        }
    }

    fn into_bytes(self) -> Bytes {
        match self.gathered {
            Some(gathered) => gathered.freeze(),
            None => self.first,
        }
    }
}

/// The secrets of the call that an answer may echo besides the client's own
/// ([`Transport::known`]), kept with the answer for everything made of it later.
struct AnswerSecrets {
    signatures: Vec<String>,
    app_credentials: Vec<String>,
    issued: Vec<String>,
}

/// An answer's body with the scrubber of its attempt, cleaned when a hook first reads it
/// ([`Response::read`]).
struct ReadWith<'r, 's>(&'r Response, &'r Scrubber<'s>);

impl CleanedBody for ReadWith<'_, '_> {
    fn cleaned(&self) -> &ReadBody {
        self.0.read(self.1)
    }
}

/// One attempt as the response hooks and the recorders are told of it.
struct Exchange<'a> {
    call: &'a Call<'a>,
    url: &'a Url,
    progress: Progress,
    /// When the request was sent, by the local clock.
    sent_at: Timestamp,
    started: Instant,
}

impl Exchange<'_> {
    /// Tells the response hooks and the recorders of the answer: its headers, and its body when
    /// it was read (`response`). The hooks get both as cleaned by the attempt's scrubber (the
    /// body was cleaned before, under the attempt's limits); the recorders get them as they
    /// arrived, with the scrubber's secrets, and clean them on their own thread alike (or the
    /// body already cleaned, when the call cleaned it).
    fn notify(
        &self,
        settings: &Settings,
        scrubber: &Scrubber<'_>,
        status: u16,
        headers: &HeaderMap,
        response: Option<&Response>,
    ) {
        let latency = self.started.elapsed();
        if !settings.hooks.response.is_empty() {
            let read = response.map(|response| ReadWith(response, scrubber));
            let received = ReceivedResponse {
                api_method: self.call.method,
                http_method: &self.call.http_method,
                url: self.url,
                params: self.call.query,
                attempt: self.progress.attempt,
                sent_at: self.sent_at,
                latency,
                status,
                shown: Shown::OnFirstUse {
                    scrubber,
                    headers,
                    cleaned_headers: OnceLock::new(),
                    body: read.as_ref().map(|read| read as &dyn CleanedBody),
                },
            };
            for hook in &settings.hooks.response {
                hook(&received);
            }
        }
        let Some((last, others)) = settings.recorders.split_last() else {
            return;
        };
        let body = match response {
            None => AnswerBody::Unread,
            // A copy of its own, cleaned or not: a body of one chunk is a slice of the
            // connection's read buffer (and a cleaning that removed nothing is the body
            // itself), which the writer's thread would otherwise hold, and free, whole.
            Some(response) => match response.read.get() {
                Some(read) => {
                    AnswerBody::Cleaned(Bytes::copy_from_slice(&read.shared()), read.changed())
                }
                None => AnswerBody::Raw(Bytes::copy_from_slice(&response.body)),
            },
        };
        let sent = Sent {
            api_method: self.call.method,
            http_method: &self.call.http_method,
            url: self.url,
            params: self.call.query,
            attempt: self.progress.attempt,
            sent_at: self.sent_at,
            latency,
        };
        let answer = Answer::new(sent, status, headers, body, scrubber.to_parts());
        for recorder in others {
            recorder.record_answer(answer.clone());
        }
        last.record_answer(answer);
    }
}

/// What a call's attempts leave to the later ones.
#[derive(Default)]
struct Earlier {
    /// The clock was corrected once already: a call retries for it once.
    clock_corrected: bool,
    /// Every attempt's signature so far, known to the cleaning of every later answer (a
    /// retried answer may echo an earlier one).
    signatures: Vec<String>,
}

/// What to do after an attempt.
enum Next {
    Done(Result<Response, Error>),
    /// Try again after `after`; `last` is the call's outcome when the wait would pass the
    /// deadline.
    Retry {
        after: Duration,
        reason: String,
        last: Result<Response, Error>,
    },
}

/// Where a call stands: what its errors report, and when it must end.
#[derive(Clone, Copy)]
pub(crate) struct Progress {
    started: Instant,
    attempt: u32,
    /// `None`: a deadline too far to represent.
    pub(crate) deadline: Option<Instant>,
}

impl Progress {
    pub(crate) fn timeout(self, method: &'static str, limit: TimeoutLimit) -> Error {
        Error::Timeout {
            method,
            limit,
            after: self.started.elapsed(),
            attempts: self.attempt,
        }
    }
}

impl Transport {
    pub(crate) fn new(
        http: reqwest::Client,
        base_url: Url,
        consumer: ConsumerCredentials,
        settings: Settings,
    ) -> Self {
        let secrets = SecretRegistry::new(&consumer.secret);
        Transport {
            http,
            base_url,
            consumer,
            settings,
            clock: Clock::default(),
            secrets,
        }
    }

    /// The deadline of a call with `options` that starts now (its own, else the client's); a
    /// deadline too far to represent is none.
    pub(crate) fn deadline(&self, options: &CallOptions) -> Deadline {
        let started = Instant::now();
        Deadline {
            started,
            at: started.checked_add(options.deadline.unwrap_or(self.settings.deadline)),
        }
    }

    /// The local clock, corrected by what the service's `Date` headers taught.
    pub(crate) fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// The secrets a call holds, which no text may keep: the consumer secret, the call's
    /// token secret and verifier.
    pub(crate) fn known<'a>(&'a self, call: &Call<'a>) -> KnownSecrets<'a> {
        KnownSecrets::new(self.consumer.secret.expose(), call.token_secret)
            .with_verifier(call.verifier.unwrap_or_default())
    }

    /// The scrubber of what `call` received in `response`: the call's secrets, the signatures
    /// its attempts were sent with, the token secrets the answer issues and the secrets the
    /// client remembers; stopping at the call's deadline.
    pub(crate) fn scrubber<'a>(&'a self, call: &Call<'a>, response: &'a Response) -> Scrubber<'a> {
        self.answer_scrubber(
            call,
            &response.signatures,
            &response.app_credentials,
            &response.issued,
        )
    }

    /// The scrubber of an answer to `call`: the call's secrets, the signatures of its attempts
    /// so far, the credentials the app put in the attempt, the token secrets the answer issues
    /// and the secrets the client remembers; stopping at the call's deadline. Made before the
    /// answer (without `issued`), and again once a token answer is read.
    fn answer_scrubber<'a>(
        &'a self,
        call: &Call<'a>,
        signatures: &'a [String],
        app_credentials: &'a [String],
        issued: &'a [String],
    ) -> Scrubber<'a> {
        self.scrubber_of(
            self.known(call)
                .with_signatures(signatures)
                .with_app_credentials(app_credentials)
                .with_issued(issued),
            call.deadline.at,
        )
    }

    /// The scrubber of `known` and the secrets the client remembers, stopping at `deadline`
    /// (the call's whose texts it cleans; `None` outside a call): how every scrubber of a
    /// client is made, so none is made without deciding its deadline.
    pub(crate) fn scrubber_of<'a>(
        &'a self,
        known: KnownSecrets<'a>,
        deadline: Option<Instant>,
    ) -> Scrubber<'a> {
        Scrubber::new(known)
            .remembering(&self.secrets)
            .until(deadline)
    }

    /// The URL of `path` (and `query`) below the base URL.
    pub(crate) fn url(&self, path: &str, query: &[(&'static str, String)]) -> Url {
        let mut url = self.base_url.clone();
        let joined = format!("{}{path}", url.path().trim_end_matches('/'));
        url.set_path(&joined);
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(name, value)| (*name, value.as_str())));
        }
        url
    }

    /// Sends the call, retrying as the policy allows within the deadline; returns any whole
    /// response that is not a redirect.
    ///
    /// Each attempt runs under the smaller of the attempt timeout and the time left before the
    /// deadline, body included. A wait (backoff or `Retry-After`) that would reach the deadline
    /// is not started: the call ends at once with the last answer; when no time is left at
    /// all, with a deadline timeout.
    pub(crate) async fn send(
        &self,
        call: &Call<'_>,
        options: &CallOptions,
    ) -> Result<Response, Error> {
        check_tokens(call)?;
        let url = self.url(call.path, call.query);
        self.secrets.remember(call.token_secret);
        self.secrets.remember(call.verifier.unwrap_or_default());
        if call.oauth_endpoint {
            self.check_https(call.method, &url)?;
        }
        let retry = self.retry_policy(options);
        let attempt_timeout = options.timeout.unwrap_or(self.settings.timeout);
        let Deadline {
            started,
            at: deadline,
        } = call.deadline;
        let time_left =
            || deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
        let retry_transient = call.http_method == reqwest::Method::GET;
        let mut earlier = Earlier::default();
        let mut progress = Progress {
            started,
            attempt: 0,
            deadline,
        };
        loop {
            progress.attempt += 1;
            let attempt = progress.attempt;
            let (budget, limit) = match time_left() {
                Some(left) if left <= attempt_timeout => (left, TimeoutLimit::Deadline),
                _ => (attempt_timeout, TimeoutLimit::Attempt),
            };
            if budget.is_zero() {
                return Err(progress.timeout(call.method, limit));
            }
            let may_retry = retry_transient && attempt < retry.max_attempts;
            let span = tracing::info_span!(
                "marketplace_call",
                method = call.method,
                attempt,
                status = tracing::field::Empty,
                latency_ms = tracing::field::Empty,
            );
            // Boxed: the attempt is most of the call's state, and a future is moved whole into
            // each layer around it (the timeout, the span, every caller's future).
            let attempted = tokio::time::timeout(
                budget,
                Box::pin(self.attempt(call, &url, options, progress, may_retry, &mut earlier)),
            )
            .instrument(span)
            .await;
            let next = match attempted {
                Ok(next) => next,
                // Cut short by the attempt timeout: a transient failure like any other.
                Err(_) if limit == TimeoutLimit::Attempt && may_retry => Next::Retry {
                    after: self.backoff(retry, attempt),
                    reason: "the attempt timed out".to_owned(),
                    last: Err(progress.timeout(call.method, limit)),
                },
                Err(_) => return Err(progress.timeout(call.method, limit)),
            };
            match next {
                Next::Done(result) => return result,
                Next::Retry {
                    after,
                    reason,
                    last,
                } => {
                    match time_left() {
                        // The attempt ended as time ran out: the deadline ended the call.
                        Some(left) if left.is_zero() => {
                            return Err(progress.timeout(call.method, TimeoutLimit::Deadline));
                        }
                        Some(left) if after >= left => {
                            tracing::debug!(method = call.method, attempt, delay_ms = after.as_millis() as u64, %reason, "not retrying: the wait would pass the deadline");
                            return last;
                        }
                        _ => {
                            tracing::debug!(method = call.method, attempt, delay_ms = after.as_millis() as u64, %reason, "retrying");
                            tokio::time::sleep(after).await;
                        }
                    }
                }
            }
        }
    }

    async fn attempt(
        &self,
        call: &Call<'_>,
        url: &Url,
        options: &CallOptions,
        progress: Progress,
        may_retry: bool,
        earlier: &mut Earlier,
    ) -> Next {
        let retry = self.retry_policy(options);
        let signed_at = self.now();
        let header = match self.authorization(call, url, signed_at) {
            Ok((header, signature)) => {
                earlier.signatures.push(signature);
                header
            }
            Err(error) => return Next::Done(Err(error)),
        };
        let signatures: &[String] = &earlier.signatures;
        let headers = self.extra_headers(call, url, options, progress.attempt);
        // The credentials the app put in them are this attempt's secrets too, and, remembered,
        // of the client's later calls and attempts (another user's, a retry's).
        let mut app_credentials = call.app_credentials.to_vec();
        app_credentials.extend(headers.as_ref().map(credential_values).unwrap_or_default());
        self.secrets.remember_app(&app_credentials);
        // Everything this attempt hands on (hooks, errors, traces) goes through it, and it
        // stops at the call's deadline.
        let scrubber = self.answer_scrubber(call, signatures, &app_credentials, &[]);
        let mut request = self.http.request(call.http_method.clone(), url.clone());
        if let Some(headers) = headers {
            request = request.headers(headers);
        }
        let started = Instant::now();
        // What the response hooks and recorders are told of the exchange; nothing without
        // either.
        let told = !self.settings.hooks.response.is_empty() || !self.settings.recorders.is_empty();
        let exchange = told.then(|| Exchange {
            call,
            url,
            progress,
            sent_at: Timestamp::now(),
            started,
        });
        let sent = request.header(AUTHORIZATION, header).send().await;
        let span = tracing::Span::current();
        let transport_error = |source: reqwest::Error| {
            let retriable = may_retry && !source.is_builder();
            let error = if source.is_timeout() {
                // A timeout of the HTTP client itself (its connect timeout, or one set on a
                // client given to the builder) is this attempt's timeout.
                progress.timeout(call.method, TimeoutLimit::Attempt)
            } else {
                Error::Transport {
                    method: call.method,
                    source: TransportError::new(&source, &scrubber, url),
                }
            };
            if retriable {
                Next::Retry {
                    after: self.backoff(retry, progress.attempt),
                    reason: error.to_string(),
                    last: Err(error),
                }
            } else {
                Next::Done(Err(error))
            }
        };
        let mut response = match sent {
            Ok(response) => response,
            Err(source) => return transport_error(source),
        };
        let status = response.status().as_u16();
        span.record("status", status);
        // What the response hooks and recorders are told of an answer whose body is not read.
        let unread = |headers: &HeaderMap| {
            if let Some(exchange) = &exchange {
                exchange.notify(&self.settings, &scrubber, status, headers, None);
            }
        };
        // A redirect is never followed: credentials stay with the configured origin. A
        // caller-supplied client that followed one has already sent the request there; its
        // answer is refused all the same.
        if response.url() != url {
            unread(response.headers());
            return Next::Done(Err(Error::Redirect {
                method: call.method,
                status: None,
                location: Some(scrubber.url(response.url().as_str())),
            }));
        }
        // Over plain HTTP the answer must come from the address the URL names: one from
        // elsewhere came through a proxy (of a caller-supplied client), which saw the signed
        // request whole. Refused like a redirect; the request cannot be called back.
        if let Some(peer) = intermediary(url, response.remote_addr()) {
            unread(response.headers());
            return Next::Done(Err(Error::Intermediary {
                method: call.method,
                origin: origin(url),
                peer,
            }));
        }
        if response.status().is_redirection() {
            unread(response.headers());
            let location = response
                .headers()
                .get(LOCATION)
                .map(|value| scrubber.url(&String::from_utf8_lossy(value.as_bytes())));
            return Next::Done(Err(Error::Redirect {
                method: call.method,
                status: Some(status),
                location,
            }));
        }
        let content_length = response.content_length();
        // Taken, not cloned: the body is read from the response without them.
        let headers = std::mem::take(response.headers_mut());
        let too_large = || {
            unread(&headers);
            Next::Done(Err(Error::ResponseTooLarge {
                method: call.method,
                limit: self.settings.max_response_bytes,
            }))
        };
        if content_length.is_some_and(|length| length > self.settings.max_response_bytes) {
            return too_large();
        }
        // Read chunk by chunk so that a body without a Content-Length is capped too.
        let expected = content_length.unwrap_or(0).min(1 << 20);
        let mut body = Chunks::default();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if (body.len() + chunk.len()) as u64 > self.settings.max_response_bytes {
                        return too_large();
                    }
                    body.push(chunk, usize::try_from(expected).unwrap_or(0));
                }
                Ok(None) => break,
                Err(source) => return transport_error(source),
            }
        }
        span.record("latency_ms", started.elapsed().as_millis() as u64);
        let body = body.into_bytes();
        // A token endpoint's answer issues a token secret: a secret from now on, wherever else
        // the answer echoes it, before anything of it is shown.
        let issued = if call.oauth_endpoint && (200..300).contains(&status) {
            issued_secrets(&body)
        } else {
            Vec::new()
        };
        let answer_scrubber;
        let scrubber = if issued.is_empty() {
            &scrubber
        } else {
            answer_scrubber = self.answer_scrubber(call, signatures, &app_credentials, &issued);
            &answer_scrubber
        };
        let response = Response::new(
            status,
            headers,
            body,
            progress,
            AnswerSecrets {
                signatures: signatures.to_vec(),
                app_credentials: app_credentials.clone(),
                issued: issued.clone(),
            },
        );
        // What will be read of the answer is cleaned now, under the attempt's limits: for an
        // error or a token answer (never kept as sent), and a large body for the hooks (a small
        // one is cleaned when a hook first reads it, `hooks::Shown`). Not for the recorders:
        // they clean a successful data answer on their own thread.
        let read = (!self.settings.hooks.response.is_empty() && response.body.len() > INLINE_BYTES)
            || !response.is_success()
            || call.oauth_endpoint;
        if read && !response.clean_within_deadline(scrubber).await {
            return Next::Done(Err(progress.timeout(call.method, TimeoutLimit::Deadline)));
        }
        if let Some(exchange) = &exchange {
            exchange.notify(
                &self.settings,
                scrubber,
                status,
                &response.headers,
                Some(&response),
            );
            // What the hooks read was cleaned until the deadline, and withheld after: the call
            // is out of time. So it is when the hooks themselves ran past the deadline, whatever
            // they read (a short text is cleaned without a look at the clock).
            if scrubber.stopped()
                || progress
                    .deadline
                    .is_some_and(|deadline| Instant::now() >= deadline)
            {
                return Next::Done(Err(progress.timeout(call.method, TimeoutLimit::Deadline)));
            }
        }

        if may_retry && (status == 429 || (500..600).contains(&status)) {
            match retry_after(&response.headers, self.now()) {
                Some(wait) if wait > retry.max_retry_after => {}
                Some(wait) => {
                    return Next::Retry {
                        after: wait,
                        reason: format!("HTTP {status} with Retry-After"),
                        last: Ok(response),
                    };
                }
                None => {
                    return Next::Retry {
                        after: self.backoff(retry, progress.attempt),
                        reason: format!("HTTP {status}"),
                        last: Ok(response),
                    };
                }
            }
        }

        if !earlier.clock_corrected {
            match self.correct_clock(call, &response, scrubber, signed_at) {
                Ok(false) => {}
                Ok(true) => {
                    earlier.clock_corrected = true;
                    return Next::Retry {
                        after: Duration::ZERO,
                        reason: "signature mismatch with a skewed clock".to_owned(),
                        last: Ok(response),
                    };
                }
                Err(implausible) => return Next::Done(Err(implausible)),
            }
        }
        Next::Done(Ok(response))
    }

    /// The call's retry policy: its own, else the client's.
    fn retry_policy<'a>(&'a self, options: &'a CallOptions) -> &'a RetryPolicy {
        options.retry.as_ref().unwrap_or(&self.settings.retry)
    }

    /// The headers of one attempt besides `Authorization`: the call's own
    /// ([`CallOptions::header`]), then what the request hooks add. `None` when there are
    /// neither, so a plain call builds no header map.
    fn extra_headers(
        &self,
        call: &Call<'_>,
        url: &Url,
        options: &CallOptions,
        attempt: u32,
    ) -> Option<HeaderMap> {
        let hooks = &self.settings.hooks.request;
        if hooks.is_empty() && options.headers.is_empty() {
            return None;
        }
        // Credential headers are marked sensitive before every hook sees them (secret.rs).
        let mut headers = options.headers.clone();
        mark_credential_headers(&mut headers);
        for hook in hooks {
            hook(&mut OutgoingRequest {
                api_method: call.method,
                http_method: &call.http_method,
                url,
                attempt,
                headers: &mut headers,
            });
            mark_credential_headers(&mut headers);
        }
        // The signature's header is the transport's alone.
        headers.remove(AUTHORIZATION);
        Some(headers)
    }

    /// The Authorization header for one attempt, signed at `signed_at`, and the signature in
    /// it: a fresh nonce and timestamp every time. A clock at or before 1970 has no
    /// `oauth_timestamp` to sign: an error, nothing is signed.
    fn authorization(
        &self,
        call: &Call<'_>,
        url: &Url,
        signed_at: Timestamp,
    ) -> Result<(String, String), Error> {
        let timestamp = clock::oauth_timestamp(signed_at).ok_or(Error::ImplausibleClock {
            method: call.method,
            clock: signed_at,
            service: None,
        })?;
        let nonce = signature::nonce().map_err(|error| Error::Config {
            reason: format!("no random nonce: {error}"),
        })?;
        let oauth = OAuthParams {
            consumer_key: &self.consumer.key,
            token: call.token,
            nonce: &nonce,
            timestamp,
            callback: call.callback,
            verifier: call.verifier,
            version: Some(self.settings.service.oauth.version),
        };
        // The query as the pairs the URL was built from: signing need not parse it back.
        let request = PairsRequest {
            method: call.http_method.as_str(),
            url,
            query: call.query,
        };
        let keyed_here;
        let key = match call.keyed_mac {
            Some(key) => key,
            None => {
                keyed_here = KeyedMac::new(&SigningKey {
                    consumer_secret: self.consumer.secret.expose(),
                    token_secret: call.token_secret,
                });
                &keyed_here
            }
        };
        Ok(signature::signed_header_keyed(&request, &oauth, key))
    }

    /// When the service rejected the signature (in any error shape, whatever the status) and
    /// its clock differs by more than the tolerance from the clock the attempt was signed with
    /// (`signed_at`), adopts its clock and says so (`Ok(true)`). The `Date` check comes first,
    /// so a body is only read for this when the clocks disagree. A service clock more than a
    /// day from the local one is not adopted: the call ends with [`Error::ImplausibleClock`]
    /// ([`Clock::correct`] holds the bound).
    fn correct_clock(
        &self,
        call: &Call<'_>,
        response: &Response,
        scrubber: &Scrubber<'_>,
        signed_at: Timestamp,
    ) -> Result<bool, Error> {
        let Some(server_now) = response.headers.get(DATE).and_then(http_date) else {
            return Ok(false);
        };
        if !clock::skewed(server_now, signed_at) {
            return Ok(false);
        }
        let mismatch = response.read(scrubber).failure().is_some_and(|failure| {
            failure.is_signature_mismatch(self.settings.service.authentication_errors)
        });
        if !mismatch {
            return Ok(false);
        }
        match self.clock.correct(server_now) {
            Correction::Adopted(offset) => {
                tracing::warn!(
                    offset_seconds = offset,
                    "local clock differs from the service's; correcting"
                );
                Ok(true)
            }
            Correction::Implausible => Err(Error::ImplausibleClock {
                method: call.method,
                clock: self.now(),
                service: Some(server_now),
            }),
        }
    }

    /// Exponential backoff with full jitter.
    fn backoff(&self, retry: &RetryPolicy, attempt: u32) -> Duration {
        let exponent = attempt.saturating_sub(1).min(16);
        let ceiling = retry
            .base_delay
            .saturating_mul(1 << exponent)
            .min(retry.max_delay);
        let random = getrandom::u64().unwrap_or(u64::MAX);
        let fraction = (random >> 11) as f64 / (1u64 << 53) as f64;
        ceiling.mul_f64(fraction)
    }

    /// The URL of an OAuth page the user's browser opens (the authorization page): as
    /// [`Transport::url`], over HTTPS unless the service does not require it or the host is a
    /// loopback address written as an IP literal (the browser's request never leaves the
    /// machine; the opt-in governs what the client itself sends).
    pub(crate) fn oauth_url(&self, path: &str, query: &[(&'static str, String)]) -> Url {
        let mut url = self.url(path, query);
        if url.scheme() != "https"
            && self.settings.service.oauth.https_required
            && !is_loopback_literal(&url)
        {
            // http to https: both special schemes, which `set_scheme` never refuses.
            let _ = url.set_scheme("https");
        }
        url
    }

    /// Whether an OAuth request may go to `url` as it is: HTTPS, a service that does not
    /// require it, or the loopback opt-in for a loopback literal.
    fn plain_http_allowed(&self, url: &Url) -> bool {
        url.scheme() == "https"
            || !self.settings.service.oauth.https_required
            || (self.settings.allow_plain_http_oauth && is_loopback_literal(url))
    }

    fn check_https(&self, method: &'static str, url: &Url) -> Result<(), Error> {
        if self.plain_http_allowed(url) {
            return Ok(());
        }
        Err(Error::Config {
            reason: format!(
                "{method} must use HTTPS (the reference requires it for OAuth endpoints), not {url}; \
                 for a local test server on a loopback address written as an IP literal \
                 (127.0.0.1, [::1]; not a name such as localhost), opt in with \
                 ClientBuilder::allow_plain_http_oauth_on_loopback"
            ),
        })
    }
}

/// Whether `url`'s host, as the URL parser reads it (every IPv4 spelling, IDNA and percent
/// forms included, is one address by then), is a loopback address written as an IP literal:
/// 127.0.0.0/8 or `::1`. A name is not, `localhost` included: what it resolves to is the
/// resolver's to say (a hosts file, DNS), and an OAuth request over plain HTTP must not go
/// wherever that is. The one rule of the plain-HTTP OAuth exemption.
fn is_loopback_literal(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(_)) | None => false,
    }
}

/// The peer a plain-HTTP answer came from when it is not the address `url` names: a proxy
/// carried the request. Only a URL whose host is an IP literal names its address; for a name,
/// what it resolved to is not known here (`None`), nor is a peer the HTTP client does not
/// report. HTTPS is not checked: a proxy can only tunnel it.
fn intermediary(url: &Url, peer: Option<SocketAddr>) -> Option<SocketAddr> {
    if url.scheme() != "http" {
        return None;
    }
    let peer = peer?;
    let named = match url.host()? {
        url::Host::Ipv4(ip) => IpAddr::V4(ip),
        url::Host::Ipv6(ip) => IpAddr::V6(ip),
        url::Host::Domain(_) => return None,
    };
    let port = url.port_or_known_default()?;
    let same = peer.ip().to_canonical() == named.to_canonical() && peer.port() == port;
    (!same).then_some(peer)
}

/// `url`'s host and port, as an error names the origin.
fn origin(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// `Retry-After` as a wait: delay-seconds or an HTTP date (a date past is no wait). Any wait
/// is then held to `RetryPolicy::max_retry_after` and the call's deadline by the caller.
fn retry_after(headers: &reqwest::header::HeaderMap, now: Timestamp) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?;
    let text = value.to_str().ok()?.trim();
    // delay-seconds is digits only (RFC 9110); too many for a u64 is longer than any wait.
    if !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()) {
        return Some(text.parse().map_or(Duration::MAX, Duration::from_secs));
    }
    let at = http_date(value)?;
    Some(Duration::try_from(at.duration_since(now)).unwrap_or(Duration::ZERO))
}

/// An HTTP date in any of the three forms RFC 9110 (section 5.6.7) requires a recipient to
/// read: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime's (`Sun Nov  6 08:49:37 1994`).
pub(crate) fn http_date(value: &reqwest::header::HeaderValue) -> Option<Timestamp> {
    let text = value.to_str().ok()?.trim();
    jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(text)
        .ok()
        .or_else(|| {
            let at = httpdate::parse_http_date(text).ok()?;
            // A date jiff cannot hold (the last hours of 9999) is still a date: the latest
            // instant it holds, which every bound (a wait, the clock) then judges as that far.
            Some(
                Timestamp::try_from(at).unwrap_or(if at > std::time::SystemTime::UNIX_EPOCH {
                    Timestamp::MAX
                } else {
                    Timestamp::MIN
                }),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn transport(retry: RetryPolicy) -> Transport {
        Transport::new(
            crate::http_client_builder().unwrap().build().unwrap(),
            Url::parse("https://example.com/base/").unwrap(),
            ConsumerCredentials::new("key", "secret"),
            Settings {
                service: &crate::SERVICE,
                timeout: Duration::from_secs(5),
                deadline: Duration::from_secs(60),
                retry,
                page_concurrency: 4,
                allow_plain_http_oauth: false,
                max_response_bytes: 1 << 20,
                hooks: Hooks::default(),
                recorders: Vec::new(),
            },
        )
    }

    #[test]
    fn joins_paths_below_the_base_and_encodes_the_query() {
        let url = transport(RetryPolicy::default()).url(
            "/api/pay/getTimesheet",
            &[
                ("id", "880104".to_owned()),
                ("date", "05-JAN-26".to_owned()),
            ],
        );
        assert_eq!(
            url.as_str(),
            "https://example.com/base/api/pay/getTimesheet?id=880104&date=05-JAN-26"
        );
    }

    #[test]
    fn backoff_grows_exponentially_up_to_the_cap() {
        let retry = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
            ..RetryPolicy::default()
        };
        let t = transport(retry.clone());
        for _ in 0..50 {
            assert!(t.backoff(&retry, 1) <= Duration::from_millis(100));
            assert!(t.backoff(&retry, 2) <= Duration::from_millis(200));
            assert!(t.backoff(&retry, 10) <= Duration::from_millis(350));
        }
    }

    #[test]
    fn reads_http_dates_in_each_form_rfc_9110_requires() {
        let at = Timestamp::from_second(784_111_777).unwrap();
        for form in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(
                http_date(&HeaderValue::from_static(form)),
                Some(at),
                "{form}"
            );
        }
        for not_a_date in [
            "",
            "yesterday",
            "06 Nov 1994",
            "Sun, 06 Nov 1994 25:49:37 GMT",
        ] {
            assert_eq!(
                http_date(&HeaderValue::from_static(not_a_date)),
                None,
                "{not_a_date}"
            );
        }
        // Past the last instant jiff holds (about 9999-12-30 22:00 UTC), still a date: the
        // latest one, which no bound mistakes for "unreadable" (a retry backed off from).
        for form in ["Fri, 31 Dec 9999 23:59:59 GMT", "Fri Dec 31 23:59:59 9999"] {
            let read = http_date(&HeaderValue::from_static(form));
            assert!(
                read.is_some_and(|at| at.as_second() > 253_402_000_000),
                "{form}: {read:?}"
            );
        }
    }

    #[test]
    fn reads_retry_after_as_seconds_or_a_date() {
        let now = Timestamp::from_second(1_700_000_000).unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(3)));
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Tue, 14 Nov 2023 22:13:25 GMT"),
        );
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(5)));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers, now), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("+3"));
        assert_eq!(retry_after(&headers, now), None);
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("18446744073709551616"),
        );
        assert_eq!(retry_after(&headers, now), Some(Duration::MAX));
    }

    #[test]
    fn oauth_endpoints_need_https_unless_a_loopback_opt_in() {
        let t = transport(RetryPolicy::default());
        let plain = Url::parse("http://127.0.0.1:9/oauth/getRequestToken").unwrap();
        let error = t.check_https("oauth/getRequestToken", &plain).unwrap_err();
        assert!(error.to_string().contains("must use HTTPS"), "{error}");

        let mut t = t;
        t.settings.allow_plain_http_oauth = true;
        assert!(t.check_https("oauth/getRequestToken", &plain).is_ok());
        let remote = Url::parse("http://example.com/oauth/getRequestToken").unwrap();
        assert!(t.check_https("oauth/getRequestToken", &remote).is_err());
        // A name is not a loopback literal, whatever it resolves to.
        for name in ["localhost", "LOCALHOST.", "a.localhost", "127.0.0.1.nip.io"] {
            let url = Url::parse(&format!("http://{name}:9/oauth/getRequestToken")).unwrap();
            let error = t.check_https("oauth/getRequestToken", &url).unwrap_err();
            assert!(error.to_string().contains("IP literal"), "{name}: {error}");
        }
    }

    #[test]
    fn a_plain_http_answer_from_another_address_than_the_literal_named_came_through_a_proxy() {
        let peer = |text: &str| Some(text.parse::<SocketAddr>().unwrap());
        let url = |text: &str| Url::parse(text).unwrap();
        assert_eq!(
            intermediary(&url("http://127.0.0.1:8080/a"), peer("127.0.0.1:8080")),
            None
        );
        assert_eq!(
            intermediary(&url("http://[::1]:80/a"), peer("[::1]:80")),
            None
        );
        assert_eq!(
            intermediary(&url("http://10.0.0.1/a"), peer("[::ffff:10.0.0.1]:80")),
            None
        );
        assert_eq!(
            intermediary(&url("http://127.0.0.1:8080/a"), peer("127.0.0.1:3128")),
            peer("127.0.0.1:3128")
        );
        assert_eq!(
            intermediary(&url("http://10.0.0.1/a"), peer("10.0.0.2:80")),
            peer("10.0.0.2:80")
        );
        // What cannot be told: a name, no peer reported, and HTTPS (a proxy only tunnels it).
        assert_eq!(
            intermediary(&url("http://example.com/a"), peer("10.0.0.2:80")),
            None
        );
        assert_eq!(intermediary(&url("http://127.0.0.1/a"), None), None);
        assert_eq!(
            intermediary(&url("https://127.0.0.1/a"), peer("10.0.0.2:443")),
            None
        );
    }

    /// A `pay/getInvoice` call with a token, without a deadline.
    fn invoice_call() -> Call<'static> {
        Call {
            method: "pay/getInvoice",
            http_method: reqwest::Method::GET,
            path: "/api/pay/getInvoice",
            query: &[],
            token: Some("token"),
            token_secret: "token-secret",
            keyed_mac: None,
            callback: None,
            verifier: None,
            oauth_endpoint: false,
            app_credentials: &[],
            deadline: Deadline {
                started: Instant::now(),
                at: None,
            },
        }
    }

    /// The transport's part of a call's state (what `Session::get` keeps while a call waits,
    /// boxed with it) stays under clippy.toml's `future-size-threshold`, 2 KiB: `large_futures`
    /// does not see it awaited, `Session::get` being generic. The attempt is boxed apart.
    #[test]
    fn the_transport_part_of_a_call_stays_small() {
        let t = transport(RetryPolicy::default());
        let call = invoice_call();
        let options = CallOptions::default();
        let size = size_of_val(&t.send(&call, &options));
        assert!(size <= 2048, "Transport::send's future is {size} bytes");
    }

    #[test]
    fn a_clock_at_or_before_1970_signs_nothing() {
        let t = transport(RetryPolicy::default());
        let url = t.url("/api/pay/getInvoice", &[]);
        let call = invoice_call();
        for seconds in [0, -1, -86_400, Timestamp::MIN.as_second()] {
            let at = Timestamp::from_second(seconds).unwrap();
            let error = t.authorization(&call, &url, at).unwrap_err();
            assert!(
                matches!(error, Error::ImplausibleClock { service: None, clock, .. } if clock == at),
                "{error}"
            );
            assert!(
                error.to_string().contains("positive number of seconds"),
                "{error}"
            );
        }
        let (header, _) = t
            .authorization(&call, &url, Timestamp::from_second(1).unwrap())
            .unwrap();
        assert!(header.contains("oauth_timestamp=\"1\""), "{header}");
    }

    proptest::proptest! {
        /// However a body is cut into chunks (empty ones included), what is kept is the body,
        /// and its length is known after every chunk (the size cap reads it).
        #[test]
        fn chunks_keep_the_body_whole(
            body in proptest::collection::vec(proptest::num::u8::ANY, 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..6),
            expected in 0usize..400,
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|cut| cut.min(body.len())).collect();
            cuts.push(0);
            cuts.push(body.len());
            cuts.sort_unstable();
            let mut chunks = Chunks::default();
            let mut read = 0;
            for pair in cuts.windows(2) {
                chunks.push(Bytes::copy_from_slice(&body[pair[0]..pair[1]]), expected);
                read += pair[1] - pair[0];
                proptest::prop_assert_eq!(chunks.len(), read);
            }
            proptest::prop_assert_eq!(&chunks.into_bytes()[..], &body[..]);
        }
    }
}
