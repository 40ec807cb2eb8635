//! [`Client`] (the application: base URL, consumer credentials, HTTP settings, the OAuth flow)
//! and [`Session`] (the client acting for one user with an access token: the data methods).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use url::Url;

use crate::api_failure::excerpt;
use crate::envelope::{Envelope, decode};
use crate::error::{Error, TimeoutLimit};
use crate::error_body::{Structure, token_pairs};
use crate::hooks::{OutgoingRequest, ReceivedResponse};
use crate::oauth::signature::{KeyedMac, SigningKey};
use crate::oauth::{AccessToken, MAX_TOKEN_BYTES, RequestToken, Verifier};
use crate::options::{CallOptions, RetryPolicy};
use crate::query::Query;
use crate::recording::Recorder;
use crate::response::{MetaParts, Metadata};
use crate::scrub::{KnownSecrets, Scrubber};
use crate::secret::{ConsumerCredentials, callback_credentials};
use crate::service::Service;
use crate::tls;
use crate::transport::{Call, Deadline, INLINE_BYTES, Response, Settings, Transport, within};

/// The marketplace client of one application.
///
/// Cheap to clone (the HTTP connection pool is shared). It runs the OAuth flow; a [`Session`]
/// from [`Client::session`] calls the data methods for the user who authorized it.
#[derive(Clone)]
pub struct Client {
    transport: Arc<Transport>,
}

/// Shows what the client was configured with, secrets and the HTTP client left out: the
/// consumer secret is never shown, and a `reqwest::Client` given to
/// [`ClientBuilder::http_client`] prints its default headers (an app's `X-Api-Key`) and
/// proxies (with their credentials), which nothing here can clean.
impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let transport = &*self.transport;
        f.debug_struct("Client")
            .field("base_url", &transport.base_url.as_str())
            .field("consumer", &transport.consumer)
            .field("settings", &transport.settings)
            .finish_non_exhaustive()
    }
}

/// Configures a [`Client`].
///
/// The base URL is checked when the builder is made, and kept only as checked: a URL with a
/// user name, a password, a query or a fragment (where credentials hide) is refused there, and
/// the refusal, which [`build`](Self::build) returns, shows it without them. `Debug` shows
/// neither them nor the consumer secret nor the HTTP client.
#[must_use]
pub struct ClientBuilder {
    base_url: BaseUrl,
    consumer: ConsumerCredentials,
    http: Option<reqwest::Client>,
    connect_timeout: Duration,
    settings: Settings,
}

/// A base URL as given to [`ClientBuilder`]: checked at once, never kept as written.
enum BaseUrl {
    /// An http or https URL without user info, query or fragment.
    Checked(Url),
    /// Why it is refused, the URL shown without its user info, query and fragment.
    Refused(String),
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut builder = f.debug_struct("ClientBuilder");
        match &self.base_url {
            BaseUrl::Checked(url) => builder.field("base_url", &url.as_str()),
            BaseUrl::Refused(reason) => builder.field("refused", reason),
        };
        builder
            .field("consumer", &self.consumer)
            .field("http_client_given", &self.http.is_some())
            .field("connect_timeout", &self.connect_timeout)
            .field("settings", &self.settings)
            .finish()
    }
}

impl ClientBuilder {
    /// Uses this `reqwest::Client` (for proxies, pool settings, …) instead of a new one. Its own
    /// timeouts apply in addition to [`Self::timeout`]. Start from
    /// [`http_client_builder`](crate::http_client_builder): it has this build's TLS, follows
    /// no redirects and takes no proxy from the environment. A proxy it is given carries
    /// plain-HTTP requests whole: such an answer is refused with [`Error::Intermediary`] when
    /// the base URL's host is an IP literal, and cannot be noticed for a name.
    ///
    /// **Build it with `.redirect(reqwest::redirect::Policy::none())`.** The client never
    /// follows a redirect: a 3xx answer is an [`Error::Redirect`]. But an HTTP client that
    /// follows redirects does so before this crate sees the answer, so by then it has already
    /// sent the request, OAuth `Authorization` header included, to the redirect target (reqwest
    /// drops that header on a hop to another host, but not on the hops after it). The client
    /// notices that the answer came from another URL and refuses it with [`Error::Redirect`]
    /// (`status: None`); it cannot call the request back.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// The longest a single attempt may take, response body included (default 30 s). An
    /// attempt that takes longer is retried like any transient failure of a GET call; the last
    /// one ends in [`Error::Timeout`] with [`TimeoutLimit::Attempt`](crate::TimeoutLimit).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.settings.timeout = timeout;
        self
    }

    /// The longest a whole call may take: every attempt, every backoff and every `Retry-After`
    /// wait (default 60 s). A wait that would pass the deadline is not started: the call ends
    /// at once with the last answer (a `Retry-After` longer than the time left gives the
    /// service's 429 or 5xx as [`Error::Status`] or [`Error::Api`]). An attempt still running
    /// at the deadline ends in [`Error::Timeout`] with
    /// [`TimeoutLimit::Deadline`](crate::TimeoutLimit). One call can set its own with
    /// [`CallOptions::deadline`].
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.settings.deadline = deadline;
        self
    }

    /// The longest connecting may take (default 10 s); not applied to a client given with
    /// [`Self::http_client`].
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How transient failures are retried (default [`RetryPolicy::default`]: four attempts,
    /// backoff from 200 ms to 5 s, `Retry-After` honoured up to 30 s), always within the
    /// [deadline](Self::deadline).
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.settings.retry = retry;
        self
    }

    /// How many pages a paged stream fetches at once once it knows the page count (default 4;
    /// 0 counts as 1). Each runs on a task of its own (see [`paging`](crate::paging)).
    pub fn page_concurrency(mut self, pages: usize) -> Self {
        self.settings.page_concurrency = pages.max(1);
        self
    }

    /// The largest response body the client reads (default 32 MiB); a larger one fails with
    /// [`Error::ResponseTooLarge`] instead of growing memory without bound.
    pub fn max_response_bytes(mut self, bytes: u64) -> Self {
        self.settings.max_response_bytes = bytes;
        self
    }

    /// Adds a hook that runs before every attempt of every call is sent (after the call's own
    /// [`CallOptions::header`]s, before the `Authorization` header), and may add headers: a
    /// trace id, an app tag. It never sees a secret (see [`OutgoingRequest`]). Hooks run in
    /// the order they were added.
    pub fn on_request(
        mut self,
        hook: impl Fn(&mut OutgoingRequest<'_>) + Send + Sync + 'static,
    ) -> Self {
        self.settings.hooks.request.push(Arc::new(hook));
        self
    }

    /// Adds a hook that sees every answer of the service: the exchange (method, URL,
    /// parameters, attempt, send time) and the answer (status, headers, latency, and the body
    /// without secrets; see [`ReceivedResponse`]), for metrics, logs or a traffic recorder.
    /// Hooks run in the order they were added, before the call interprets the answer.
    pub fn on_response(
        mut self,
        hook: impl Fn(&ReceivedResponse<'_>) + Send + Sync + 'static,
    ) -> Self {
        self.settings.hooks.response.push(Arc::new(hook));
        self
    }

    /// Records every answer of the service with `recorder` (see [`recording`](crate::recording)):
    /// one JSON line per exchange, what a response hook sees of it (the call's secrets removed)
    /// with secrets removed by structure besides, for `cargo xtask wire-audit`. Every attempt
    /// of every call, OAuth endpoints included, after the response hooks. The cleaning and the
    /// writing happen on the recorder's own thread: the call copies the request's parameters,
    /// the kept headers and its secrets, shares the body, and queues them; a full queue drops
    /// the exchange rather than wait. The cleaning stops at the call's deadline, as the call's
    /// own does: an answer the writer is still cleaning then (a hostile one: cleaning is
    /// linear) is recorded with what is left withheld.
    ///
    /// ```no_run
    /// use marketplace_client::recording::{Recorder, Rotation};
    /// use marketplace_client::{Client, ConsumerCredentials};
    ///
    /// let recorder = Recorder::to_dir("recordings", "client", Rotation::default())?;
    /// let client = Client::builder("https://marketplace.example", ConsumerCredentials::new("key", "secret"))
    ///     .record(recorder.clone())
    ///     .build()?;
    /// # let _ = client;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn record(mut self, recorder: Recorder) -> Self {
        self.settings.recorders.push(recorder);
        self
    }

    /// Lets the OAuth endpoints use plain HTTP when the base URL's host is a loopback address
    /// written as an IP literal (`127.0.0.1`, `[::1]`; not a name such as `localhost`, which a
    /// resolver may send anywhere), for a local test server. The reference requires HTTPS for
    /// them; without this, or for any other host, plain HTTP is refused before a request is
    /// sent.
    pub fn allow_plain_http_oauth_on_loopback(mut self) -> Self {
        self.settings.allow_plain_http_oauth = true;
        self
    }

    /// Checks the configuration and builds the client: the refusal of the base URL (see
    /// [`ClientBuilder`]), an empty consumer key, or HTTPS without a TLS feature is an
    /// [`Error::Config`].
    pub fn build(self) -> Result<Client, Error> {
        let consumer_secret = self.consumer.secret.clone();
        self.build_checked().map_err(|error| {
            error.scrubbed(&Scrubber::new(KnownSecrets::new(
                consumer_secret.expose(),
                "",
            )))
        })
    }

    fn build_checked(self) -> Result<Client, Error> {
        let config = |reason: String| Error::Config { reason };
        let base_url = match self.base_url {
            BaseUrl::Checked(url) => url,
            BaseUrl::Refused(reason) => return Err(config(reason)),
        };
        if self.consumer.key.is_empty() {
            return Err(config("the consumer key is empty".to_owned()));
        }
        // A key or secret read from a file or a variable with its last line break (or a byte
        // order mark) would sign every call wrong; said here, without showing either.
        for (name, text) in [
            ("key", self.consumer.key.as_str()),
            ("secret", self.consumer.secret.expose()),
        ] {
            if let Some((at, c, what)) = crate::oauth::foreign_character(text) {
                return Err(config(format!(
                    "the consumer {name} holds {what} U+{:04X} at byte {at} (no credential \
                     holds one: was it read with a line break, or from a file with a byte \
                     order mark?)",
                    u32::from(c)
                )));
            }
        }
        let http = match self.http {
            Some(http) => http,
            None if base_url.scheme() == "https" && !tls::AVAILABLE => {
                return Err(config(format!(
                    "base URL {:?} needs TLS, but marketplace-client was built without a TLS \
                     feature (rustls-ring, rustls-aws-lc or native-tls); enable one, or give \
                     an HTTP client with ClientBuilder::http_client",
                    base_url.as_str()
                )));
            }
            None => tls::http_client_builder()?
                .connect_timeout(self.connect_timeout)
                .build()
                .map_err(|error| config(format!("HTTP client: {error}")))?,
        };
        Ok(Client {
            transport: Arc::new(Transport::new(http, base_url, self.consumer, self.settings)),
        })
    }
}

impl ClientBuilder {
    /// A client of `service` at `base_url`, for the application with these credentials. The
    /// generated `Client::builder` calls it with the spec's service. The base URL is checked
    /// here, so that a credential in it is never kept (see [`BaseUrl`]).
    pub(crate) fn new(
        service: &'static Service,
        base_url: impl Into<String>,
        consumer: ConsumerCredentials,
    ) -> ClientBuilder {
        let base_url = base_url.into();
        let scrubber = Scrubber::new(KnownSecrets::new(consumer.secret.expose(), ""));
        let base_url = match checked_base_url(&base_url, &scrubber) {
            Ok(url) => BaseUrl::Checked(url),
            Err(reason) => BaseUrl::Refused(reason),
        };
        ClientBuilder {
            base_url,
            consumer,
            http: None,
            connect_timeout: Duration::from_secs(10),
            settings: Settings {
                service,
                timeout: Duration::from_secs(30),
                deadline: Duration::from_secs(60),
                retry: RetryPolicy::default(),
                page_concurrency: 4,
                allow_plain_http_oauth: false,
                max_response_bytes: 32 << 20,
                hooks: Default::default(),
                recorders: Vec::new(),
            },
        }
    }
}

/// `given` as a base URL: an http or https URL that can be a base, without user info (it
/// would travel with every request and show wherever the URL is printed; nor an `@` anywhere,
/// which a reader takes for the end of user info wherever a parser puts it), query or
/// fragment.
/// A refusal shows the URL as [`Scrubber::configured_url`] leaves it, and no part of it that
/// could hold a credential.
fn checked_base_url(given: &str, scrubber: &Scrubber<'_>) -> Result<Url, String> {
    let shown = || scrubber.configured_url(given);
    let url = Url::parse(given)
        .map_err(|error| format!("base URL {:?} is not a URL: {error}", shown()))?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Err(format!(
            "base URL {:?} must be an http or https URL",
            shown()
        ));
    }
    // Any `@` is user info to a reader, wherever a parser puts it (`https://us/er:pw@host`
    // has the host `us` and a path; `https://us?er:pw@host` a query).
    if !url.username().is_empty() || url.password().is_some() || given.contains('@') {
        return Err(format!(
            "base URL {:?} must not carry a user name or password, nor an `@` (the client \
             signs with OAuth; credentials in a URL would be sent and shown with every call)",
            shown()
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "base URL {:?} must not have a query or fragment",
            shown()
        ));
    }
    Ok(url)
}

impl Client {
    /// The service the client talks to.
    pub fn service(&self) -> &'static Service {
        self.transport.settings.service
    }

    /// What every error of the client's own calls is cleaned with before it leaves: the
    /// consumer secret, and the token secret and verifier the call holds; stopping at the
    /// call's deadline.
    fn scrubber<'a>(
        &'a self,
        token_secret: &'a str,
        verifier: &'a str,
        deadline: Option<Instant>,
    ) -> Scrubber<'a> {
        self.transport.scrubber_of(
            KnownSecrets::new(self.transport.consumer.secret.expose(), token_secret)
                .with_verifier(verifier),
            deadline,
        )
    }

    /// Step 1 of the flow: obtains a request token, signed with the consumer secret and an
    /// empty token secret. With a `callback` (any URI scheme), the service redirects the user
    /// there after approval; without (or with RFC 5849's `"oob"`), it shows the user a
    /// verifier to type into the app.
    ///
    /// The callback sent (and signed) is the parsed URI written out again (`HTTPS://App/a/../b`
    /// is sent as `https://app/b`); one with control characters or surrounding white space,
    /// which parsing would silently drop, or with bidirectional-text controls, which reorder
    /// what the user reads, is refused with [`Error::InvalidArgument`].
    pub async fn request_token(&self, callback: Option<&str>) -> Result<RequestToken, Error> {
        let deadline = self.transport.deadline(&CallOptions::default());
        // Boxed, like a data call's state (`Session::call`): the app's future stays small.
        let unscrubbed = Box::pin(self.request_token_unscrubbed(callback, deadline));
        unscrubbed
            .await
            .map_err(|error| error.scrubbed(&self.scrubber("", "", deadline.at)))
    }

    async fn request_token_unscrubbed(
        &self,
        callback: Option<&str>,
        deadline: Deadline,
    ) -> Result<RequestToken, Error> {
        const METHOD: &str = "oauth/getRequestToken";
        let callback = callback
            .map(|callback| normalized_callback(METHOD, callback))
            .transpose()?;
        let app_credentials = callback
            .as_deref()
            .map(callback_credentials)
            .unwrap_or_default();
        let call = Call {
            method: METHOD,
            http_method: reqwest::Method::POST,
            path: self.service().oauth.request_token_path,
            query: &[],
            token: Some(""),
            token_secret: "",
            keyed_mac: None,
            callback: callback.as_deref(),
            verifier: None,
            oauth_endpoint: true,
            app_credentials: &app_credentials,
            deadline,
        };
        let response = self.transport.send(&call, &CallOptions::default()).await?;
        let scrubber = self.transport.scrubber(&call, &response);
        let mut form = token_response(METHOD, &response, &scrubber)?;
        let token = RequestToken {
            token: form.take(METHOD, "oauth_token")?,
            secret: crate::Secret::new(form.take(METHOD, "oauth_token_secret")?),
            callback_confirmed: form.get("oauth_callback_confirmed") == Some("true"),
        };
        self.transport.secrets.remember(token.secret.expose());
        Ok(token)
    }

    /// Step 2: where to send the user's browser to approve the request token.
    ///
    /// Over HTTPS, as every OAuth endpoint (the user signs in there): on a client whose base
    /// URL is plain HTTP (which the reference allows for data methods), the same address over
    /// HTTPS, unless its host is a loopback address written as an IP literal (`127.0.0.1`,
    /// `[::1]`: a local test server; the browser's request never leaves the machine).
    pub fn authorization_url(&self, request: &RequestToken) -> Url {
        self.transport.oauth_url(
            self.service().oauth.authorize_path,
            &[("oauth_token", request.token.clone())],
        )
    }

    /// Step 3 (with a callback): the verifier from the URL the service redirected the user to.
    /// Refuses a callback whose `oauth_token` is not `request`'s (a forged or mixed-up
    /// redirect), one without a verifier (the user did not approve), and one whose verifier is
    /// not within [`Verifier::new`]'s bounds (at most 4 KiB, no control or bidirectional-text
    /// character: the URL comes from a browser, which anyone can send anything). The callback
    /// URL carries the verifier, a secret: an error shows the URL without it, and never the
    /// verifier.
    pub fn verifier_from_callback(
        &self,
        request: &RequestToken,
        callback_url: &str,
    ) -> Result<Verifier, Error> {
        let verifier = verifier_in(request, callback_url).map_err(|error| {
            // Not a call: no deadline (the URL is read at once, its length bounded).
            error.scrubbed(&self.scrubber(request.secret.expose(), "", None))
        })?;
        self.transport.secrets.remember(verifier.as_str());
        Ok(verifier)
    }

    /// Step 4: exchanges the approved request token and its verifier for an access token,
    /// signed with the request token's secret. The service discards the request token.
    pub async fn access_token(
        &self,
        request: &RequestToken,
        verifier: &Verifier,
    ) -> Result<AccessToken, Error> {
        let deadline = self.transport.deadline(&CallOptions::default());
        let unscrubbed = Box::pin(self.access_token_unscrubbed(request, verifier, deadline));
        unscrubbed.await.map_err(|error| {
            let scrubber = self.scrubber(request.secret.expose(), verifier.as_str(), deadline.at);
            error.scrubbed(&scrubber)
        })
    }

    async fn access_token_unscrubbed(
        &self,
        request: &RequestToken,
        verifier: &Verifier,
        deadline: Deadline,
    ) -> Result<AccessToken, Error> {
        const METHOD: &str = "oauth/getAccessToken";
        let call = Call {
            method: METHOD,
            http_method: reqwest::Method::POST,
            path: self.service().oauth.access_token_path,
            query: &[],
            token: Some(&request.token),
            token_secret: request.secret.expose(),
            keyed_mac: None,
            callback: None,
            verifier: Some(verifier.as_str()),
            oauth_endpoint: true,
            app_credentials: &[],
            deadline,
        };
        let granted_at = self.transport.now();
        let response = self.transport.send(&call, &CallOptions::default()).await?;
        let scrubber = self.transport.scrubber(&call, &response);
        let mut form = token_response(METHOD, &response, &scrubber)?;
        let token = AccessToken::new(
            form.take(METHOD, "oauth_token")?,
            form.take(METHOD, "oauth_token_secret")?,
            granted_at,
        );
        self.transport.secrets.remember(token.secret().expose());
        Ok(token)
    }

    /// A session acting for the user who granted `token`.
    pub fn session(&self, token: AccessToken) -> Session {
        self.transport.secrets.remember(token.secret().expose());
        let key = KeyedMac::new(&SigningKey {
            consumer_secret: self.transport.consumer.secret.expose(),
            token_secret: token.secret().expose(),
        });
        Session {
            transport: self.transport.clone(),
            token: Arc::new(token),
            key: Arc::new(key),
        }
    }
}

/// The verifier of a callback URL for `request` (see [`Client::verifier_from_callback`]).
fn verifier_in(request: &RequestToken, callback_url: &str) -> Result<Verifier, Error> {
    let reject = |reason: String| Error::Callback { reason };
    let url = Url::parse(callback_url).map_err(|error| {
        reject(format!(
            "{:?} is not a URL: {error}",
            Scrubber::structural().url(callback_url)
        ))
    })?;
    let mut token = None;
    let mut verifier = None;
    for (name, value) in url.query_pairs() {
        let slot = match name.as_ref() {
            "oauth_token" => &mut token,
            "oauth_verifier" => &mut verifier,
            _ => continue,
        };
        if slot.replace(value.into_owned()).is_some() {
            return Err(reject(format!("{name} appears more than once")));
        }
    }
    match token {
        None => return Err(reject("it has no oauth_token".to_owned())),
        // The callback's own token is not quoted: it is text of the callback (a browser's, any
        // bytes, a verifier behind a `;` among them), shown only through `Scrubber::url`.
        Some(token) if token != request.token => {
            return Err(reject(format!(
                "its oauth_token is not the request token {:?}",
                request.token
            )));
        }
        Some(_) => {}
    }
    let verifier = verifier
        .ok_or_else(|| reject("it has no oauth_verifier (was access denied?)".to_owned()))?;
    // The one constructor of a verifier, whose bounds every verifier meets; its reasons never
    // show the verifier.
    Verifier::new(&verifier).map_err(|error| match error {
        // No colon after the name: the scrubber reads a secret's name and then a colon as a
        // secret's value, and the reason is no secret.
        Error::InvalidArgument { reason, .. } => reject(format!(
            "the oauth_verifier it carries is refused ({reason})"
        )),
        other => other,
    })
}

/// The client acting for one user: the data methods (generated, one per method of the
/// reference) and revocation. Cheap to clone.
#[derive(Clone)]
pub struct Session {
    transport: Arc<Transport>,
    token: Arc<AccessToken>,
    /// The HMAC keyed with the consumer secret and the token's secret: every call's signature
    /// starts from it.
    key: Arc<KeyedMac>,
}

/// The client as [`Client`] shows it, and the token (whose secret `Debug` never shows).
impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field(
                "client",
                &Client {
                    transport: Arc::clone(&self.transport),
                },
            )
            .field("token", &self.token)
            .finish()
    }
}

impl Session {
    /// The access token in use (to persist it).
    pub fn token(&self) -> &AccessToken {
        &self.token
    }

    /// What every error of the session's calls is cleaned with before it leaves: the
    /// consumer secret and the access token's secret; stopping at the call's deadline.
    fn scrubber(&self, deadline: Option<Instant>) -> Scrubber<'_> {
        self.transport.scrubber_of(
            KnownSecrets::new(
                self.transport.consumer.secret.expose(),
                self.token.secret().expose(),
            ),
            deadline,
        )
    }

    /// Ends the access token at once (`oauth/revokeToken`). Later calls with it fail.
    pub async fn revoke(&self) -> Result<(), Error> {
        let deadline = self.transport.deadline(&CallOptions::default());
        let unscrubbed = Box::pin(self.revoke_unscrubbed(deadline));
        unscrubbed
            .await
            .map_err(|error| error.scrubbed(&self.scrubber(deadline.at)))
    }

    async fn revoke_unscrubbed(&self, deadline: Deadline) -> Result<(), Error> {
        const METHOD: &str = "oauth/revokeToken";
        self.check_expiry()?;
        let call = Call {
            method: METHOD,
            http_method: reqwest::Method::POST,
            path: self.transport.settings.service.oauth.revoke_path,
            query: &[],
            token: Some(self.token.token()),
            token_secret: self.token.secret().expose(),
            keyed_mac: Some(&self.key),
            callback: None,
            verifier: None,
            oauth_endpoint: true,
            app_credentials: &[],
            deadline,
        };
        let response = self.transport.send(&call, &CallOptions::default()).await?;
        // The reference does not show revokeToken's body: any success status will do, unless
        // the body says it failed (an error code, or an rcode other than 1).
        let scrubber = self.transport.scrubber(&call, &response);
        if !response.is_success() || response.read(&scrubber).failure().is_some() {
            return Err(response_error(METHOD, &response, &scrubber));
        }
        Ok(())
    }

    /// When the access token expires: the service's token lifetime after it was granted.
    /// From then on every call fails with [`Error::TokenExpired`] without a request.
    pub fn expires_at(&self) -> jiff::Timestamp {
        self.token
            .expires_after(self.transport.settings.service.oauth.token_lifetime)
    }

    /// Pages fetched at once by paged streams.
    pub(crate) fn page_concurrency(&self) -> usize {
        self.transport.settings.page_concurrency
    }

    fn check_expiry(&self) -> Result<(), Error> {
        let expires_at = self.expires_at();
        if self.transport.now() >= expires_at {
            return Err(Error::TokenExpired { expires_at });
        }
        Ok(())
    }

    /// Calls the data method `method` at `path` with `query` (its arguments as checked, or why
    /// one was refused) and decodes its `data`, kept with the response's metadata: what
    /// [`Request::send_with_metadata`](crate::Request::send_with_metadata) runs. Every error
    /// leaves through the session's scrubber.
    pub(crate) async fn call<T: DeserializeOwned + Send + 'static, K: Metadata>(
        &self,
        method: &'static str,
        path: &'static str,
        query: Result<Query, Error>,
        options: &CallOptions,
    ) -> Result<(T, K::Kept), Error> {
        let deadline = self.transport.deadline(options);
        let result = match query {
            // Boxed: the call's state is kilobytes (the attempt, the decoded data), and a future
            // is moved whole into each one that awaits it, the app's included.
            Ok(query) => {
                Box::pin(self.get::<T, K>(method, path, query.pairs(), options, deadline)).await
            }
            Err(error) => Err(error),
        };
        // The error's texts were cleaned by the call; cleaned again here (the one place every
        // error leaves), within the same deadline.
        result.map_err(|error| error.scrubbed(&self.scrubber(deadline.at)))
    }

    /// Calls a data method and decodes its `data`, kept with the response's metadata. Decoding
    /// and cleaning a large body run on a blocking thread under the call's deadline, like
    /// everything else the call does ([`Response::clean_within_deadline`]).
    async fn get<T: DeserializeOwned + Send + 'static, K: Metadata>(
        &self,
        method: &'static str,
        path: &'static str,
        query: &[(&'static str, String)],
        options: &CallOptions,
        deadline: Deadline,
    ) -> Result<(T, K::Kept), Error> {
        self.check_expiry()?;
        let call = Call {
            method,
            http_method: reqwest::Method::GET,
            path,
            query,
            token: Some(self.token.token()),
            token_secret: self.token.secret().expose(),
            keyed_mac: Some(&self.key),
            callback: None,
            verifier: None,
            oauth_endpoint: false,
            app_credentials: &[],
            deadline,
        };
        let response = self.transport.send(&call, options).await?;
        let scrubber = self.transport.scrubber(&call, &response);
        let timeout = || response.progress.timeout(method, TimeoutLimit::Deadline);
        if !response.is_success() {
            return Err(response_error(method, &response, &scrubber));
        }
        let decoded = if response.body.len() <= INLINE_BYTES {
            decode::<Envelope<T>>(&response.body)
        } else {
            let body = response.body.clone();
            let decoding = tokio::task::spawn_blocking(move || decode::<Envelope<T>>(&body));
            match within(response.progress.deadline, decoding).await {
                Some(Ok(decoded)) => decoded,
                // Decoding panicked (it does not): do it here, to the same end.
                Some(Err(_)) => decode::<Envelope<T>>(&response.body),
                None => return Err(timeout()),
            }
        };
        if !matches!(&decoded, Ok(envelope) if envelope.rcode == 1)
            && !response.clean_within_deadline(&scrubber).await
        {
            return Err(timeout());
        }
        match decoded {
            Ok(envelope) if envelope.rcode == 1 => {
                // The app sees the headers as the hooks do: cleaned of secrets; a caller that
                // drops the metadata (`send`) gets none, and nothing is cleaned for it.
                let meta = MetaParts {
                    status: response.status,
                    headers: &response.headers,
                    api: envelope.api,
                    api_version: envelope.api_version,
                    attempts: response.attempts,
                    elapsed: response.elapsed,
                };
                let kept = K::keep(meta, &scrubber);
                // Cleaning the metadata is bounded by the deadline like any cleaning.
                if scrubber.stopped() {
                    return Err(timeout());
                }
                match kept {
                    Some(kept) => Ok((envelope.data, kept)),
                    // The body holds the number however it spelled it (`5.84224e5`): no
                    // excerpt of it is shown either.
                    None => Err(Error::Decode {
                        method,
                        path: "apiVersion".to_owned(),
                        message: "the number spells a secret of the call (not shown)".to_owned(),
                        excerpt: format!(
                            "[withheld: {} bytes that spell a secret of the call as a number]",
                            response.body.len()
                        ),
                    }),
                }
            }
            // An rcode other than 1 is a failure, whatever else the body holds.
            Ok(_) => Err(response_error(method, &response, &scrubber)),
            Err(error) => {
                let read = response.read(&scrubber);
                Err(match read.failure() {
                    Some(failure) => Error::api(method, response.status, failure),
                    None => Error::Decode {
                        method,
                        path: error.path,
                        message: scrubber
                            .text(&match &response.content_type {
                                Some(kind) if !kind.contains("json") => {
                                    format!("{} (the content type is {kind})", error.message)
                                }
                                _ => error.message,
                            })
                            .into_owned(),
                        excerpt: excerpt(read.kept()),
                    },
                })
            }
        }
    }
}

/// The error a response stands for: what its body says ([`Error::Api`]), or else its status
/// ([`Error::Status`]).
fn response_error(method: &'static str, response: &Response, scrubber: &Scrubber<'_>) -> Error {
    let read = response.read(scrubber);
    match read.failure() {
        Some(failure) => Error::api(method, response.status, failure),
        None => Error::Status {
            method,
            status: response.status,
            body: read.kept().to_owned(),
        },
    }
}

/// The name/value pairs of a token endpoint's answer (secrets included: they are the point),
/// and the answer's text without them, for errors.
struct TokenForm {
    pairs: Vec<(String, String)>,
    kept: String,
}

impl TokenForm {
    fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn take(&mut self, method: &'static str, name: &str) -> Result<String, Error> {
        let index = self
            .pairs
            .iter()
            .position(|(n, v)| n == name && !v.is_empty());
        let refuse = |message: String| Error::Decode {
            method,
            path: name.to_owned(),
            message,
            excerpt: excerpt(&self.kept),
        };
        match index {
            // A value a sane service could mean: see MAX_TOKEN_BYTES.
            Some(index) if self.pairs[index].1.len() > MAX_TOKEN_BYTES => Err(refuse(format!(
                "the answer's {name} is {} bytes long, over the {MAX_TOKEN_BYTES} a token may be",
                self.pairs[index].1.len()
            ))),
            // The message shows no part of the value: it is the new credential.
            Some(index) => match crate::oauth::foreign_character(&self.pairs[index].1) {
                Some((at, c, what)) => Err(refuse(format!(
                    "the answer's {name} holds {what} U+{:04X} at byte {at}, which no token \
                     holds",
                    u32::from(c)
                ))),
                None => Ok(self.pairs.swap_remove(index).1),
            },
            None => Err(refuse(format!("the answer has no {name}"))),
        }
    }
}

/// A token endpoint's answer: an error in any shape (whatever the status), or its pairs. The
/// pairs (which hold the new token secret) are read from the body as sent; errors from the
/// body cleaned of secrets.
fn token_response(
    method: &'static str,
    response: &Response,
    scrubber: &Scrubber<'_>,
) -> Result<TokenForm, Error> {
    if !response.is_success() {
        return Err(response_error(method, response, scrubber));
    }
    let read = response.read(scrubber);
    if let Some(failure) = read.failure() {
        return Err(Error::api(method, response.status, failure));
    }
    let kept = read.kept().to_owned();
    token_pairs(&Structure::parse(&response.body))
        .map(|pairs| TokenForm { pairs, kept })
        .ok_or_else(|| Error::Decode {
            method,
            path: "(the whole answer)".to_owned(),
            message: "the answer is not name/value pairs".to_owned(),
            excerpt: excerpt(read.kept()),
        })
}

/// The `oauth_callback` to sign and send: `oob` as is; any other value must be an absolute URI
/// without control characters or surrounding white space (which parsing would silently drop,
/// so the value signed would not be the one checked), without bidirectional-text controls (the
/// one rule of `one_line::hides_or_reorders`) and without user info or any `@` (the
/// service hands the callback to the user's browser), and is sent as the parsed URI writes it.
/// A refusal shows the callback without user info, query values or fragment.
fn normalized_callback(method: &'static str, callback: &str) -> Result<String, Error> {
    let shown = || Scrubber::structural().configured_url(callback);
    let refuse = |reason: String| Error::InvalidArgument {
        method,
        name: "oauth_callback".to_owned(),
        reason,
    };
    // "oob" (out of band) is RFC 5849's word for no callback.
    if callback == "oob" {
        return Ok(callback.to_owned());
    }
    if let Some((at, c)) = callback
        .char_indices()
        .find(|(_, c)| crate::one_line::hides_or_reorders(*c))
    {
        return Err(refuse(format!(
            "{:?} holds the control character U+{:04X} at byte {at}",
            shown(),
            u32::from(c)
        )));
    }
    if callback.trim() != callback {
        return Err(refuse(format!(
            "{:?} starts or ends with white space",
            shown()
        )));
    }
    let url = Url::parse(callback)
        .map_err(|error| refuse(format!("{:?} is not an absolute URI: {error}", shown())))?;
    // Any `@` is user info to a reader, wherever a parser puts it; data writes it `%40`.
    if !url.username().is_empty() || url.password().is_some() || callback.contains('@') {
        return Err(refuse(format!(
            "{:?} carries a user name or password, or an `@` (write `%40` for one in data); \
             the service would hand them to the user's browser",
            shown()
        )));
    }
    Ok(url.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder(base_url: &str) -> ClientBuilder {
        ClientBuilder::new(
            &crate::SERVICE,
            base_url,
            ConsumerCredentials::new("key", "secret"),
        )
    }

    fn client() -> Client {
        builder("https://marketplace.example/").build().unwrap()
    }

    /// A consumer key or secret is read from a file or a variable by every app: its last line
    /// break, or the file's byte order mark, is refused when the client is built, naming which
    /// and never showing it.
    #[test]
    fn a_consumer_credential_with_a_line_break_or_a_mark_is_refused_unshown() {
        for (key, secret, expected) in [
            (
                "ck",
                "hunter2\n",
                "the consumer secret holds the control character U+000A at byte 7",
            ),
            (
                "\u{feff}ck",
                "hunter2",
                "the consumer key holds the invisible character U+FEFF at byte 0",
            ),
            (
                "ck",
                "hunter 2\u{a0}",
                "the consumer secret holds the white space U+00A0 at byte 8",
            ),
        ] {
            let refused = Client::builder(
                "https://marketplace.example/",
                ConsumerCredentials::new(key, secret),
            )
            .build();
            let error = refused.expect_err("refused").to_string();
            assert!(error.contains(expected), "{error}");
            assert!(!error.contains("hunter"), "{error}");
        }
    }

    fn request() -> RequestToken {
        RequestToken {
            token: "req-token".to_owned(),
            secret: crate::Secret::new("req-secret"),
            callback_confirmed: true,
        }
    }

    /// A client's `Debug` says what the app configured on one screen: the service by its
    /// name, not the spec's endpoint and error lists.
    #[test]
    fn a_clients_debug_is_short_and_names_the_service() {
        let shown = format!("{:?}", client());
        assert!(shown.len() < 600, "{} bytes: {shown}", shown.len());
        assert!(
            shown.contains(r#"service: "Freelance Marketplace Developer API""#),
            "{shown}"
        );
        assert!(!shown.contains("E_API_AUTH"), "{shown}");
    }

    #[test]
    fn builds_the_authorization_url() {
        assert_eq!(
            client().authorization_url(&request()).as_str(),
            "https://marketplace.example/oauth/authorizeToken?oauth_token=req-token"
        );
    }

    #[test]
    fn takes_the_verifier_from_a_matching_callback() {
        let verifier = client()
            .verifier_from_callback(
                &request(),
                "myapp://done?oauth_token=req-token&oauth_verifier=v123",
            )
            .unwrap();
        assert_eq!(verifier.as_str(), "v123");
    }

    #[test]
    fn refuses_bad_callbacks() {
        let refuse = |url: &str| {
            client()
                .verifier_from_callback(&request(), url)
                .unwrap_err()
                .to_string()
        };
        assert!(refuse("not a url").contains("is not a URL"));
        assert!(
            refuse("https://app/cb?oauth_token=other&oauth_verifier=v")
                .contains("is not the request token")
        );
        assert!(refuse("https://app/cb?oauth_token=req-token").contains("no oauth_verifier"));
        assert!(refuse("https://app/cb?oauth_verifier=v").contains("no oauth_token"));
        assert!(
            refuse("https://app/cb?oauth_token=req-token&oauth_token=req-token&oauth_verifier=v")
                .contains("more than once")
        );
        assert!(refuse("https://app/cb?oauth_token=req-token&oauth_verifier=").contains("empty"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// No text of a refused callback reaches its error but through the scrubber: values
        /// (canaries) under any name, behind any separator, in the query, the fragment, the
        /// user info, the `oauth_token` itself, of a URL or of text that does not parse.
        #[test]
        fn a_refused_callback_quotes_none_of_its_values(
            pairs in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "oauth_token", "oauth_verifier", "oauth_verifier[]", "state", "x", "",
                    ]),
                    "[A-Za-z0-9]{10,14}",
                    proptest::sample::select(vec!["&", ";", "&amp;", "%26", "#", "=", "&oauth_token="]),
                ),
                0..5,
            ),
            start in proptest::sample::select(vec![
                "https://app.example/cb?oauth_token=",
                "https://app.example/cb?oauth_token=req-token",
                "https://app.example/cb?oauth_token=req-token&oauth_token=",
                "https://app.example/cb#oauth_token=",
                "https://user:CANARYuserinfo@app.example/cb?oauth_token=",
                "https://app example/cb?oauth_token=",
                "myapp://done?oauth_token=",
            ]),
        ) {
            let mut url = start.to_owned();
            let mut canaries = vec!["CANARYuserinfo".to_owned()];
            for (name, value, separator) in &pairs {
                let canary = format!("CANARY{value}");
                url.push_str(&format!("{canary}{separator}{name}="));
                canaries.push(canary);
            }
            if let Err(error) = client().verifier_from_callback(&request(), &url) {
                let shown = format!("{error}\n{error:?}");
                for canary in &canaries {
                    proptest::prop_assert!(!shown.contains(canary.as_str()), "{url}: {shown}");
                }
            }
        }
    }

    #[test]
    fn refuses_bad_base_urls() {
        let build = |url: &str| builder(url).build().unwrap_err().to_string();
        assert!(build("marketplace.example").contains("base URL"));
        assert!(build("ftp://marketplace.example").contains("http or https"));
        assert!(build("https://marketplace.example/?a=1").contains("query"));
        let credentials = build("https://user:hunter2@marketplace.example/");
        assert!(
            credentials.contains("user name or password"),
            "{credentials}"
        );
        assert!(!credentials.contains("hunter2"), "{credentials}");
    }

    #[test]
    fn an_expired_token_fails_without_a_request() {
        let session = client().session(AccessToken::new(
            "t",
            "s",
            jiff::Timestamp::from_second(1_000_000_000).unwrap(),
        ));
        let error = futures::executor::block_on(
            session.get::<serde_json::Value, crate::response::WithMetadata>(
                "pay/getTimesheet",
                "/api/pay/getTimesheet",
                &[],
                &CallOptions::default(),
                session.transport.deadline(&CallOptions::default()),
            ),
        )
        .unwrap_err();
        assert!(matches!(error, Error::TokenExpired { .. }), "{error}");
    }
}
