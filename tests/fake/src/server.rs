//! [`FakeMarketplace`]: the listener (HTTPS or plain HTTP on 127.0.0.1), the router of the
//! OAuth endpoints and the data methods, and the front layer every request passes (request
//! count, injected faults, the `Date` header from the [`FakeClock`]).

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use marketplace_client::recording::{Exchange, Recorder, Rotation, Side};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};
use tokio_rustls::TlsAcceptor;

use crate::app::{App, OutsideTheApi, ReadRequest, Replayed, outside_the_api};
use crate::clock::FakeClock;
use crate::credentials::DemoCredentials;
use crate::data::respond;
use crate::error_shape::{ErrorShape, ServiceError};
use crate::faults::{self, ConnectionKill, Faults};
use crate::oauth;
use crate::replay::{Answer, NO_RECORDING_CODE, Player, Replay, ReplayCount, ReplayError};
use crate::spelling::{self, Spellings};
use crate::tls;
use crate::tokens::{Tokens, random_hex};
use crate::world::World;

/// The longest a TLS handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection may take to send a request's head (hyper's `header_read_timeout`).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Pause after a failed `accept` so that a persistent error cannot spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);
/// The demo users' password.
const DEMO_PASSWORD: &str = "demo-password";
/// The environment variable naming a directory to record every fake's answers in.
pub const RECORD_DIR_VARIABLE: &str = "MARKETPLACE_FAKE_RECORD_DIR";

/// A running fake marketplace on 127.0.0.1, on a port the OS chooses or on the caller's
/// listener ([`start_on`](Self::start_on)), served over HTTPS with a certificate generated at
/// start (rcgen; SANs `127.0.0.1` and `localhost`), or over plain HTTP.
///
/// It is stateful (issued tokens, nonces, the seeded [`World`]) and checks every OAuth
/// signature with its own code. Dropping it stops the accept loop and closes every open
/// connection.
pub struct FakeMarketplace {
    app: Arc<App>,
    base_url: String,
    certificate_pem: String,
    http: reqwest::Client,
    browser: reqwest::Client,
    accept_task: JoinHandle<()>,
}

/// Where the service sent the user's browser after the login form (see
/// [`FakeMarketplace::authorize`]). `Debug` shows no verifier, and of a callback only where it
/// goes and its `oauth_token`: every other value of its query (the app's own, which the client
/// counts among its secrets) and its fragment are `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub enum Authorization {
    /// Approved with a callback: the redirect target, carrying `oauth_token` and
    /// `oauth_verifier` in its query.
    Callback(url::Url),
    /// Approved without a callback: the verifier shown on the page.
    Verifier(String),
    /// The user denied access; the callback was not used.
    Denied,
}

/// Where it listens and what it served: not the tokens and verifiers it issued, the demo
/// application's secret or its HTTP clients.
impl std::fmt::Debug for FakeMarketplace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeMarketplace")
            .field("base_url", &self.base_url)
            .field("requests_served", &self.requests_served())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Authorization::Callback(url) => f
                .debug_tuple("Callback")
                .field(&shown_callback(url))
                .finish(),
            Authorization::Verifier(_) => f.debug_tuple("Verifier").field(&"[redacted]").finish(),
            Authorization::Denied => f.write_str("Denied"),
        }
    }
}

/// A callback URL as `Authorization`'s `Debug` shows it: the app's values in its query and
/// fragment (and any user info) replaced, the request token kept; then cleaned like any text.
fn shown_callback(url: &url::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    if url.query().is_some() {
        let query: Vec<String> = url
            .query_pairs()
            .map(|(name, value)| {
                let kept = if name == "oauth_token" {
                    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
                } else {
                    "[redacted]".to_owned()
                };
                let name: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect();
                format!("{name}={kept}")
            })
            .collect();
        shown.set_query(Some(&query.join("&")));
    }
    if url.fragment().is_some() {
        shown.set_fragment(Some("[redacted]"));
    }
    marketplace_client::redact(shown.as_str(), &[]).into_owned()
}

impl FakeMarketplace {
    /// Starts the fake over HTTPS on the current tokio runtime.
    ///
    /// # Errors
    ///
    /// Fails if the certificate cannot be generated or the socket cannot be bound.
    pub async fn start() -> io::Result<FakeMarketplace> {
        FakeMarketplace::launch(true, None).await
    }

    /// Starts the fake over HTTPS on `listener`, a socket the caller bound on 127.0.0.1: a
    /// port chosen in advance, so that an app's configuration (its base URL) survives restarts
    /// (the `fake-marketplace` binary's `--port`), or one a test holds from before the start.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use marketplace_fake::FakeMarketplace;
    ///
    /// let listener = std::net::TcpListener::bind(("127.0.0.1", 8443))?;
    /// let fake = FakeMarketplace::start_on(listener).await?;
    /// assert_eq!(fake.base_url(), "https://127.0.0.1:8443");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::InvalidInput`] if the listener is not on 127.0.0.1 (the fake hands its
    /// demo secrets to whoever connects, and its certificate names `127.0.0.1` and `localhost`
    /// only); otherwise as [`start`](Self::start).
    pub async fn start_on(listener: std::net::TcpListener) -> io::Result<FakeMarketplace> {
        FakeMarketplace::launch(true, Some(listener)).await
    }

    /// Starts the same fake over plain HTTP (for manual use with curl, and for tests of a
    /// client's refusal of plain HTTP); [`certificate_pem`](Self::certificate_pem) is empty.
    ///
    /// # Errors
    ///
    /// Fails if the socket cannot be bound.
    pub async fn start_plain_http() -> io::Result<FakeMarketplace> {
        FakeMarketplace::launch(false, None).await
    }

    /// Starts the same fake over plain HTTP on `listener`, a socket the caller bound on
    /// 127.0.0.1 (see [`start_on`](Self::start_on)).
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::InvalidInput`] if the listener is not on 127.0.0.1.
    pub async fn start_plain_http_on(
        listener: std::net::TcpListener,
    ) -> io::Result<FakeMarketplace> {
        FakeMarketplace::launch(false, Some(listener)).await
    }

    /// Starts the fake on `listener`, or on a port the OS chooses.
    async fn launch(
        https: bool,
        listener: Option<std::net::TcpListener>,
    ) -> io::Result<FakeMarketplace> {
        let listener = match listener {
            Some(listener) => loopback_listener(listener)?,
            None => TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?,
        };
        let spellings = Spellings::from_env()
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
        if spellings != Spellings::Fixed {
            show_seed(&spellings);
        }
        let tls = if https { Some(tls::generate()?) } else { None };
        let addr: SocketAddr = listener.local_addr()?;
        let scheme = if https { "https" } else { "http" };
        let world = World::seeded();
        let random = |bytes| {
            random_hex(bytes).ok_or_else(|| io::Error::other("the OS random source failed"))
        };
        let credentials = DemoCredentials {
            consumer_key: format!("demo-{}", random(8)?),
            // Characters that need percent-encoding, to exercise the signing key's encoding.
            consumer_secret: format!("{}+/=", random(16)?),
            password: DEMO_PASSWORD.to_owned(),
            logins: world.users().iter().map(|u| u.login.clone()).collect(),
        };
        let app = Arc::new(App {
            world,
            credentials,
            clock: FakeClock::new(),
            faults: Faults::default(),
            scheme,
            authority: addr.to_string(),
            tokens: Mutex::new(Tokens::default()),
            served: AtomicUsize::new(0),
            error_shape: Mutex::new(ErrorShape::default()),
            recorder: Mutex::new(recorder_from_env()?),
            spellings: Mutex::new(spellings),
            replay: Mutex::new(None),
        });
        let certificate_pem = tls
            .as_ref()
            .map(|tls| tls.certificate_pem.clone())
            .unwrap_or_default();
        let pem = tls.as_ref().map(|tls| tls.certificate_pem.as_str());
        // Apps must not follow redirects with their credentials (see the client's
        // `ClientBuilder::http_client`), so the client offered to them follows none.
        let http = tls::http_client(pem)?;
        let browser = tls::http_client(pem)?;
        let accept_task = tokio::spawn(accept_loop(
            listener,
            tls.map(|tls| tls.acceptor),
            router(Arc::clone(&app)),
        ));
        Ok(FakeMarketplace {
            app,
            base_url: format!("{scheme}://{addr}"),
            certificate_pem,
            http,
            browser,
            accept_task,
        })
    }

    /// `https://127.0.0.1:PORT` (or `http://` for a plain-HTTP fake), without a trailing
    /// slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The demo application's consumer key and secret, and the demo users' logins and
    /// password.
    pub fn credentials(&self) -> &DemoCredentials {
        &self.app.credentials
    }

    /// The server certificate, PEM-encoded (empty for a plain-HTTP fake).
    pub fn certificate_pem(&self) -> &str {
        &self.certificate_pem
    }

    /// A `reqwest` client that trusts the fake's certificate (and only it), ignores proxy
    /// settings and follows no redirects (so it is fit for `ClientBuilder::http_client`).
    /// Cheap: clones of one client share a connection pool.
    pub fn http_client(&self) -> reqwest::Client {
        self.http.clone()
    }

    /// The seeded marketplace it serves: users, workrooms and the IDs of their records.
    pub fn world(&self) -> &World {
        &self.app.world
    }

    /// The state shared by every request.
    pub(crate) fn app(&self) -> &App {
        &self.app
    }

    /// The fake's clock, to move time (token expiry, timestamp tolerance).
    pub fn clock(&self) -> &FakeClock {
        &self.app.clock
    }

    /// The faults to apply to coming requests.
    pub fn faults(&self) -> &Faults {
        &self.app.faults
    }

    /// Answers every error from now on (data methods and OAuth endpoints) in `shape`; the
    /// default is [`ErrorShape::Nested`].
    pub fn set_error_shape(&self, shape: ErrorShape) {
        *self
            .app
            .error_shape
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = shape;
    }

    /// The shape errors are answered in.
    pub fn error_shape(&self) -> ErrorShape {
        self.app.error_shape()
    }

    /// Records every answer from now on with `recorder` (see
    /// [`marketplace_client::recording`]), as the service sent it: one JSON line per exchange of
    /// the API (the OAuth endpoints and the data methods; not the login page, which is the
    /// user's browser's), secrets removed, for `cargo xtask wire-audit`. An answer shaped by an
    /// injected [`Fault`](crate::Fault) is noted as such (`note: "fault: …"`), an answer of a
    /// [replay](Self::replay) too (`note: "replay: …"`: audited where it was recorded), and the
    /// audit leaves them out. Replaces any recorder set before.
    ///
    /// Setting `MARKETPLACE_FAKE_RECORD_DIR` records every fake a process starts into that
    /// directory (files `fake-….jsonl`), which is how CI records the whole end-to-end suite.
    pub fn record(&self, recorder: Recorder) {
        *self
            .app
            .recorder
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(recorder);
    }

    /// Spells the values of data answers from now on as `spellings` says: each value in one
    /// of the encodings the spec declares for that field in that method, chosen by a seeded
    /// generator ([`Spellings::Varied`]), or in the one spelling of the reference's examples
    /// ([`Spellings::Fixed`], the default). `MARKETPLACE_FAKE_SPELLING_SEED` sets it for every
    /// fake a process starts; a varied fake prints its seed when it starts, which a failing
    /// test shows with its output.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use marketplace_fake::{FakeMarketplace, Spellings};
    ///
    /// let fake = FakeMarketplace::start().await?;
    /// fake.set_spellings(Spellings::Varied { seed: 7 }); // "14" or 14, "0","1",... in any order
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_spellings(&self, spellings: Spellings) {
        if spellings != Spellings::Fixed {
            show_seed(&spellings);
        }
        *self
            .app
            .spellings
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = spellings;
    }

    /// How data answers spell their values.
    pub fn spellings(&self) -> Spellings {
        self.app.spellings()
    }

    /// Answers data calls from `replay`'s recordings from now on (see [`crate::replay`]); the
    /// OAuth flow and the signature checks stay the fake's, and so recorded refusals of the
    /// recording server's own OAuth are never replayed. Replaces any replay set before.
    pub fn replay(&self, replay: Replay) {
        *self.app.player() = Some(Player::new(replay));
    }

    /// Whether the replay went as recorded: how many recorded exchanges it loaded, how many
    /// requests it answered from them, and how many recorded refusals of the recording
    /// server's own OAuth it left out (naming the first few), when every data request matched
    /// a recording, at least one came, and, for a [strict](Replay::strict) replay, every
    /// recording was used.
    ///
    /// # Errors
    ///
    /// The requests that matched none (each with the nearest recording and what differs, and
    /// the refusals of it left out);
    /// [`ReplayError::NothingAnswered`] when no data request came (nothing replayed is not a
    /// pass); the unused recordings of a strict replay; [`ReplayError::NotReplaying`] without
    /// a replay.
    pub fn check_replay(&self) -> Result<ReplayCount, ReplayError> {
        self.app
            .player()
            .as_ref()
            .map_or(Err(ReplayError::NotReplaying), Player::check)
    }

    /// How many HTTP requests reached the service so far (faulted ones included).
    pub fn requests_served(&self) -> usize {
        self.app.served.load(Ordering::SeqCst)
    }

    /// The browser used by [`authorize`](Self::authorize): trusts the certificate, follows no
    /// redirects.
    pub(crate) fn browser(&self) -> &reqwest::Client {
        &self.browser
    }
}

impl Drop for FakeMarketplace {
    /// Stops the accept loop, and publishes what the recorder (if any) wrote so far: its files
    /// appear whole only when published (`Recorder::to_dir`), and connection tasks holding a
    /// clone may outlive the fake; what they record later is published when the last goes.
    fn drop(&mut self) {
        self.accept_task.abort();
        let recorder = self
            .app
            .recorder
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(recorder) = recorder {
            // A failed write is in the recorder's stats; a drop has no one to tell.
            let _ = recorder.flush();
        }
    }
}

/// The routes, behind the front layer.
fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/oauth/getRequestToken", post(oauth::get_request_token))
        .route(
            "/oauth/authorizeToken",
            get(oauth::login_page).post(oauth::login),
        )
        .route("/oauth/getAccessToken", post(oauth::get_access_token))
        .route("/oauth/revokeToken", post(oauth::revoke_token))
        .route("/api/{group}/{method}", get(data_call))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(Arc::clone(&app), front))
        .with_state(app)
}

/// Every request: counted, faults applied, the `Date` header set from the fake's clock, and
/// the answer recorded when a recorder is set.
async fn front(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    app.served.fetch_add(1, Ordering::SeqCst);
    let path = request.uri().path().to_owned();
    let recording = app.recorder().map(|recorder| {
        let query = request.uri().query().unwrap_or_default().to_owned();
        (recorder, request.method().as_str().to_owned(), query)
    });
    let fault = app.faults.take(&path);
    let mut note = fault.as_ref().map(|fault| format!("fault: {fault:?}"));
    let mut response = match fault {
        Some(fault) => faults::apply(fault, &path, request, next).await,
        None => next.run(request).await,
    };
    let date = jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&app.clock.now())
        .ok()
        .and_then(|date| HeaderValue::from_str(&date).ok());
    if let Some(date) = date {
        response.headers_mut().insert(header::DATE, date);
    }
    match recording {
        Some((recorder, http_method, query)) if path != "/oauth/authorizeToken" => {
            if let Some(OutsideTheApi(why)) = response.extensions().get::<OutsideTheApi>() {
                note.get_or_insert_with(|| format!("outside the API: {why}"));
            }
            if let Some(Replayed(what)) = response.extensions().get::<Replayed>() {
                note.get_or_insert_with(|| format!("replay: {what}"));
            }
            let sent = Sent {
                path: &path,
                http_method,
                query: &query,
                note,
            };
            record(&recorder, sent, response).await
        }
        _ => response,
    }
}

/// The request side of a recorded exchange.
struct Sent<'a> {
    path: &'a str,
    http_method: String,
    query: &'a str,
    /// `fault: …` for an injected fault, `outside the API: …` for the refusal of a request the
    /// API does not describe: answers the wire audit leaves out.
    note: Option<String>,
}

/// Records `response` and returns it unchanged. The body of an answer the fake made is in
/// memory already, so reading it costs a copy; a noted answer (a fault may cut a body off or
/// stall it on purpose) is recorded without its body.
async fn record(recorder: &Recorder, sent: Sent<'_>, response: Response) -> Response {
    let method = sent.path.trim_start_matches('/');
    let method = method.strip_prefix("api/").unwrap_or(method);
    let mut exchange = Exchange::new(Side::Server, method, response.status().as_u16());
    exchange.http_method = sent.http_method;
    exchange.path = sent.path.to_owned();
    exchange.params = url::form_urlencoded::parse(sent.query.as_bytes())
        .filter(|(name, _)| !name.starts_with("oauth_"))
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    exchange = exchange.with_headers(
        response
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes())),
    );
    if let Some(note) = sent.note {
        exchange.note = Some(note);
        recorder.record(exchange);
        return response;
    }
    let (parts, body) = response.into_parts();
    // The fake's own answers are whole in memory (`Body::from` of bytes): reading cannot fail.
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let recorded: std::borrow::Cow<'_, [u8]> =
        match parts.extensions.get::<crate::oauth::AppSecrets>() {
            // The app's values the answer echoes, removed as the client removes them; the fake's
            // answers are text (an answer that is not is withheld).
            Some(crate::oauth::AppSecrets(secrets)) => {
                let secrets: Vec<&marketplace_client::Secret> = secrets.iter().collect();
                match std::str::from_utf8(&bytes) {
                    Ok(text) => marketplace_client::redact(text, &secrets)
                        .into_owned()
                        .into_bytes()
                        .into(),
                    Err(_) => format!("[withheld: {} bytes that are not text]", bytes.len())
                        .into_bytes()
                        .into(),
                }
            }
            None => (&bytes[..]).into(),
        };
    recorder.record(exchange.with_body(&recorded));
    drop(recorded);
    Response::from_parts(parts, Body::from(bytes))
}

/// The recorder `MARKETPLACE_FAKE_RECORD_DIR` asks for, if set.
fn recorder_from_env() -> io::Result<Option<Recorder>> {
    match std::env::var_os(RECORD_DIR_VARIABLE) {
        Some(dir) if !dir.is_empty() => {
            Recorder::to_dir(dir, "fake", Rotation::default()).map(Some)
        }
        _ => Ok(None),
    }
}

/// `GET /api/<group>/<method>`: a data method, for the user of the access token.
async fn data_call(State(app): State<Arc<App>>, request: Request) -> Response {
    let api = request
        .uri()
        .path()
        .strip_prefix("/api/")
        .unwrap_or_default()
        .to_owned();
    let Some(params) = crate::spelling::data_method_params(&api) else {
        return app.error(ServiceError::new(
            &api,
            404,
            "E_API_UNKNOWN_METHOD",
            "request",
            &format!("there is no method {api:?}"),
        ));
    };
    let read = match ReadRequest::read(&app, request).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let user = match oauth::authenticate_data_call(&app, &read, params) {
        Ok(user) => user,
        Err(message) => return oauth::auth_error(&app, &api, &message),
    };
    let query: Vec<(String, String)> = read
        .query
        .as_deref()
        .map(|query| {
            url::form_urlencoded::parse(query.as_bytes())
                .filter(|(name, _)| !name.starts_with("oauth_"))
                .map(|(name, value)| (name.into_owned(), value.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    let answer = app.player().as_mut().map(|player| {
        let params = query.iter().cloned().collect();
        player.answer(&api, &params)
    });
    // Replayed answers are the recording's, audited where it was recorded: the recorder notes
    // them, and the wire audit leaves them out.
    match answer {
        Some(Answer::Recorded(recorded)) => {
            let origin = recorded.origin().to_owned();
            let mut response = recorded.respond().await;
            response
                .extensions_mut()
                .insert(Replayed(format!("answered from {origin}")));
            return response;
        }
        Some(Answer::Missing(message)) => {
            let mut response = app.error(ServiceError::new(
                &api,
                404,
                NO_RECORDING_CODE,
                "request",
                &message,
            ));
            response
                .extensions_mut()
                .insert(Replayed("no recording matched".to_owned()));
            return response;
        }
        None => {}
    }
    let now = app.clock.now();
    // A bug in the data half answers 500 rather than dropping the connection.
    let answered = std::panic::catch_unwind(AssertUnwindSafe(|| {
        respond(&app.world, user, &api, &query, now)
    }));
    let Ok(reply) = answered else {
        return app.error(ServiceError::new(
            &api,
            500,
            "E_API_INTERNAL",
            "internal",
            "the fake's data half panicked",
        ));
    };
    if let Some(error) = reply.error {
        if error.code == crate::data::INVALID_PARAMETER {
            let why = "a parameter out of the spec's type or bounds";
            return outside_the_api(app.error(error), why);
        }
        return app.error(error);
    }
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let text = spelling::write(&api, &query, &reply.body, app.spellings());
    json_response(status, text)
}

/// A path of the API asked with the wrong HTTP method: a refusal of a request the reference
/// does not describe, answered in the error shape, and left out of the wire audit.
async fn method_not_allowed(State(app): State<Arc<App>>, request: Request) -> Response {
    let path = request.uri().path();
    let api = path.trim_start_matches('/');
    let api = api.strip_prefix("api/").unwrap_or(api);
    let method = request.method().clone();
    outside_the_api(
        app.error(ServiceError::new(
            api,
            405,
            "E_API_METHOD_NOT_ALLOWED",
            "request",
            &format!("{api} is not answered to {method}"),
        )),
        "the HTTP method is not the API's",
    )
}

/// Any other path: a refusal of a request the reference does not describe, left out of the
/// wire audit like a wrong HTTP method.
async fn not_found(State(app): State<Arc<App>>, request: Request) -> Response {
    let path = request.uri().path();
    let api = path.strip_prefix('/').unwrap_or(path);
    outside_the_api(
        app.error(ServiceError::new(
            api,
            404,
            "E_API_NOT_FOUND",
            "request",
            &format!("there is nothing at {path:?}"),
        )),
        "no such path in the API",
    )
}

/// A response of JSON text.
fn json_response(status: StatusCode, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Accepts connections until aborted; each is served on its own task, and aborting this task
/// aborts them all.
/// A listener the caller bound, as tokio's: refused unless it is on 127.0.0.1, where the fake
/// always listens.
fn loopback_listener(listener: std::net::TcpListener) -> io::Result<TcpListener> {
    let addr = listener.local_addr()?;
    if addr.ip() != IpAddr::V4(Ipv4Addr::LOCALHOST) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("the fake listens on 127.0.0.1 only, not on {addr}"),
        ));
    }
    listener.set_nonblocking(true)?;
    TcpListener::from_std(listener)
}

async fn accept_loop(listener: TcpListener, tls: Option<TlsAcceptor>, router: Router) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => {
                    let router = router.clone();
                    match tls.clone() {
                        Some(acceptor) => connections.spawn(async move {
                            if let Ok(Ok(stream)) =
                                tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await
                            {
                                // Boxed: a TLS stream's state is kilobytes (clippy's
                                // large_futures, clippy.toml).
                                Box::pin(serve_connection(stream, router)).await;
                            }
                        }),
                        None => connections.spawn(serve_connection(tcp, router)),
                    };
                }
                Err(_) => tokio::time::sleep(ACCEPT_BACKOFF).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// Serves HTTP/1.1 on one connection until it closes or a request asks for it to be dropped
/// ([`Fault::Reset`](crate::Fault::Reset)).
async fn serve_connection<I>(io: I, router: Router)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let kill = ConnectionKill::default();
    let handle = kill.clone();
    let tower = TowerToHyperService::new(router);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(handle.clone());
        hyper::service::Service::call(&tower, request)
    });
    // HTTP/1.1 only, as the service and the client speak it: HTTP/2 (by prior knowledge; TLS
    // offers only http/1.1) would be a second protocol whose heads hyper does not bound, and
    // bytes that may start its preface would wait unbounded for the rest.
    let mut builder = auto::Builder::new(TokioExecutor::new()).http1_only();
    // A request head that does not arrive within the bound (a client trickling it, or silent)
    // ends the connection: the fake is bounded before it reads, as every service should be.
    builder
        .http1()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let connection = builder.serve_connection(TokioIo::new(io), service);
    tokio::select! {
        _ = connection => {}
        () = kill.0.notified() => {}
    }
}

/// Shows varied spellings' seed with the output of a failing test, so that its run can be
/// repeated (the fake's one printed line).
fn show_seed(spellings: &Spellings) {
    #[expect(
        clippy::print_stderr,
        reason = "a test harness captures eprintln, not io::stderr"
    )]
    {
        eprintln!("marketplace-fake: {spellings}");
    }
}
