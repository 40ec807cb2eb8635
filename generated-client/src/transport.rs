//! Sending one signed call: a fresh signature on every attempt, retries with backoff for
//! transient failures of GET calls, and one retry with a corrected clock when the service
//! rejects the signature and its `Date` header shows the local clock is off.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use jiff::{SignedDuration, Timestamp};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, DATE, RETRY_AFTER};
use tracing::Instrument;
use url::Url;

use crate::error::{ApiFailure, Error};
use crate::oauth::signature::{self, OAuthParams, SignatureRequest, SigningKey};
use crate::secret::ConsumerCredentials;

/// When and how often a transient failure is retried.
///
/// Only GET calls (the data methods) are retried, after a connection error, a timeout, a
/// truncated body, HTTP 429 or a 5xx status. The delay before attempt `n + 1` is a random
/// duration up to `base_delay * 2^(n-1)` (capped at `max_delay`), or what `Retry-After` asks
/// for when the service sends it, up to `max_retry_after` (longer waits are not retried).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 disables retries).
    pub max_attempts: u32,
    /// The backoff before the second attempt.
    pub base_delay: Duration,
    /// The longest backoff.
    pub max_delay: Duration,
    /// The longest `Retry-After` that is honoured.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }
}

/// A local clock more than this far from the service's is corrected.
const CLOCK_TOLERANCE: SignedDuration = SignedDuration::from_secs(60);

/// How calls are made, as configured on the `ClientBuilder`.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) timeout: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) page_concurrency: usize,
    pub(crate) allow_plain_http_oauth: bool,
    /// The largest response body read; a larger one is an error, not an allocation.
    pub(crate) max_response_bytes: u64,
}

/// The HTTP side of a [`Client`](crate::Client).
#[derive(Debug)]
pub(crate) struct Transport {
    pub(crate) http: reqwest::Client,
    pub(crate) base_url: Url,
    pub(crate) consumer: ConsumerCredentials,
    pub(crate) settings: Settings,
    /// Seconds to add to the local clock, learned from the service's `Date` header.
    clock_offset: AtomicI64,
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
    pub(crate) callback: Option<&'a str>,
    pub(crate) verifier: Option<&'a str>,
    /// OAuth endpoints must use HTTPS.
    pub(crate) oauth_endpoint: bool,
}

/// A response that arrived whole.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) content_type: Option<String>,
    pub(crate) body: Bytes,
}

/// What to do after an attempt.
enum Next {
    Done(Result<Response, Error>),
    Retry { after: Duration, reason: String },
}

impl Transport {
    pub(crate) fn new(
        http: reqwest::Client,
        base_url: Url,
        consumer: ConsumerCredentials,
        settings: Settings,
    ) -> Self {
        Transport {
            http,
            base_url,
            consumer,
            settings,
            clock_offset: AtomicI64::new(0),
        }
    }

    /// The local clock, corrected by what the service's `Date` headers taught.
    pub(crate) fn now(&self) -> Timestamp {
        let offset = SignedDuration::from_secs(self.clock_offset.load(Ordering::Relaxed));
        Timestamp::now()
            .checked_add(offset)
            .unwrap_or_else(|_| Timestamp::now())
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

    /// Sends the call, retrying as the policy allows; returns any whole response.
    pub(crate) async fn send(&self, call: &Call<'_>) -> Result<Response, Error> {
        let url = self.url(call.path, call.query);
        if call.oauth_endpoint {
            self.check_https(call.method, &url)?;
        }
        let retry_transient = call.http_method == reqwest::Method::GET;
        let mut clock_corrected = false;
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let span = tracing::info_span!(
                "marketplace_call",
                method = call.method,
                attempt,
                status = tracing::field::Empty,
                latency_ms = tracing::field::Empty,
            );
            let next = self
                .attempt(call, &url, attempt, retry_transient, &mut clock_corrected)
                .instrument(span)
                .await;
            match next {
                Next::Done(result) => return result,
                Next::Retry { after, reason } => {
                    tracing::debug!(method = call.method, attempt, delay_ms = after.as_millis() as u64, %reason, "retrying");
                    tokio::time::sleep(after).await;
                }
            }
        }
    }

    async fn attempt(
        &self,
        call: &Call<'_>,
        url: &Url,
        attempt: u32,
        retry_transient: bool,
        clock_corrected: &mut bool,
    ) -> Next {
        let may_retry = retry_transient && attempt < self.settings.retry.max_attempts;
        let header = match self.authorization(call, url) {
            Ok(header) => header,
            Err(error) => return Next::Done(Err(error)),
        };
        let started = std::time::Instant::now();
        let sent = self
            .http
            .request(call.http_method.clone(), url.clone())
            .header(AUTHORIZATION, header)
            .timeout(self.settings.timeout)
            .send()
            .await;
        let span = tracing::Span::current();
        let transport_error = |source: reqwest::Error| {
            if may_retry && !source.is_builder() && !source.is_redirect() {
                Next::Retry {
                    after: self.backoff(attempt),
                    reason: source.to_string(),
                }
            } else {
                Next::Done(Err(Error::Transport {
                    method: call.method,
                    source,
                }))
            }
        };
        let mut response = match sent {
            Ok(response) => response,
            Err(source) => return transport_error(source),
        };
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let too_large = || {
            Next::Done(Err(Error::ResponseTooLarge {
                method: call.method,
                limit: self.settings.max_response_bytes,
            }))
        };
        if response
            .content_length()
            .is_some_and(|length| length > self.settings.max_response_bytes)
        {
            return too_large();
        }
        // Read chunk by chunk so that a body without a Content-Length is capped too.
        let expected = response.content_length().unwrap_or(0).min(1 << 20);
        let mut body = bytes::BytesMut::with_capacity(usize::try_from(expected).unwrap_or(0));
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if (body.len() + chunk.len()) as u64 > self.settings.max_response_bytes {
                        return too_large();
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(source) => return transport_error(source),
            }
        }
        let body = body.freeze();
        span.record("status", status);
        span.record("latency_ms", started.elapsed().as_millis() as u64);

        if may_retry && (status == 429 || (500..600).contains(&status)) {
            match retry_after(&headers, self.now()) {
                Some(wait) if wait > self.settings.retry.max_retry_after => {}
                Some(wait) => {
                    return Next::Retry {
                        after: wait,
                        reason: format!("HTTP {status} with Retry-After"),
                    };
                }
                None => {
                    return Next::Retry {
                        after: self.backoff(attempt),
                        reason: format!("HTTP {status}"),
                    };
                }
            }
        }

        if !*clock_corrected && self.correct_clock(status, &headers, &body) {
            *clock_corrected = true;
            return Next::Retry {
                after: Duration::ZERO,
                reason: "signature mismatch with a skewed clock".to_owned(),
            };
        }

        let content_type = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Next::Done(Ok(Response {
            status,
            content_type,
            body,
        }))
    }

    /// The Authorization header for one attempt: a fresh nonce and timestamp every time.
    fn authorization(&self, call: &Call<'_>, url: &Url) -> Result<String, Error> {
        let nonce = signature::nonce().map_err(|error| Error::Config {
            reason: format!("no random nonce: {error}"),
        })?;
        let oauth = OAuthParams {
            consumer_key: &self.consumer.key,
            token: call.token,
            nonce: &nonce,
            timestamp: self.now().as_second(),
            callback: call.callback,
            verifier: call.verifier,
            version: Some(crate::oauth::VERSION),
        };
        let request = SignatureRequest {
            method: call.http_method.as_str(),
            url,
            form: &[],
        };
        let key = SigningKey {
            consumer_secret: self.consumer.secret.expose(),
            token_secret: call.token_secret,
        };
        Ok(signature::authorization_header(&request, &oauth, &key))
    }

    /// When the service rejected the signature and its clock differs from ours by more than the
    /// tolerance, adopts its clock and says so. Cheap checks first: a success never parses the
    /// body, and neither does a response without a skewed `Date`.
    fn correct_clock(
        &self,
        status: u16,
        headers: &reqwest::header::HeaderMap,
        body: &[u8],
    ) -> bool {
        if (200..300).contains(&status) {
            return false;
        }
        let Some(server_now) = headers.get(DATE).and_then(http_date) else {
            return false;
        };
        let skew = server_now.duration_since(Timestamp::now());
        if skew.abs() <= CLOCK_TOLERANCE {
            return false;
        }
        if !ApiFailure::parse(body).is_some_and(|f| f.is_signature_mismatch()) {
            return false;
        }
        tracing::warn!(
            skew_seconds = skew.as_secs(),
            "local clock differs from the service's; correcting"
        );
        self.clock_offset.store(skew.as_secs(), Ordering::Relaxed);
        true
    }

    /// Exponential backoff with full jitter.
    fn backoff(&self, attempt: u32) -> Duration {
        let exponent = attempt.saturating_sub(1).min(16);
        let ceiling = self
            .settings
            .retry
            .base_delay
            .saturating_mul(1 << exponent)
            .min(self.settings.retry.max_delay);
        let random = getrandom::u64().unwrap_or(u64::MAX);
        let fraction = (random >> 11) as f64 / (1u64 << 53) as f64;
        ceiling.mul_f64(fraction)
    }

    fn check_https(&self, method: &'static str, url: &Url) -> Result<(), Error> {
        if url.scheme() == "https" {
            return Ok(());
        }
        let loopback = match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(domain)) => domain == "localhost",
            None => false,
        };
        if self.settings.allow_plain_http_oauth && loopback {
            return Ok(());
        }
        Err(Error::Config {
            reason: format!(
                "{method} must use HTTPS (the reference requires it for OAuth endpoints), not {url}; \
                 for a local test server on a loopback address, opt in with \
                 ClientBuilder::allow_plain_http_oauth_on_loopback"
            ),
        })
    }
}

/// `Retry-After` as a wait: delay-seconds or an HTTP date.
fn retry_after(headers: &reqwest::header::HeaderMap, now: Timestamp) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?;
    let text = value.to_str().ok()?.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = http_date(value)?;
    Some(Duration::try_from(at.duration_since(now)).unwrap_or(Duration::ZERO))
}

/// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(value: &reqwest::header::HeaderValue) -> Option<Timestamp> {
    let text = value.to_str().ok()?;
    jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(text)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn transport(retry: RetryPolicy) -> Transport {
        Transport::new(
            reqwest::Client::new(),
            Url::parse("https://example.com/base/").unwrap(),
            ConsumerCredentials::new("key", "secret"),
            Settings {
                timeout: Duration::from_secs(5),
                retry,
                page_concurrency: 4,
                allow_plain_http_oauth: false,
                max_response_bytes: 1 << 20,
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
        let t = transport(RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
            ..RetryPolicy::default()
        });
        for _ in 0..50 {
            assert!(t.backoff(1) <= Duration::from_millis(100));
            assert!(t.backoff(2) <= Duration::from_millis(200));
            assert!(t.backoff(10) <= Duration::from_millis(350));
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
    }
}
