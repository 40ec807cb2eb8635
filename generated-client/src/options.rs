//! How long a call may take and how it is retried: [`RetryPolicy`], and [`CallOptions`] to
//! override the client's settings for one call and add headers to it.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::secret::{DebugHeaders, carries_credential};

/// When and how often a transient failure is retried.
///
/// Only GET calls (the data methods) are retried, after a connection error, an attempt that
/// timed out, a truncated body, HTTP 429 or a 5xx status. The delay before attempt `n + 1` is a
/// random duration up to `base_delay * 2^(n-1)` (capped at `max_delay`), or what `Retry-After`
/// asks for when the service sends it, up to `max_retry_after` (longer waits are not retried).
/// Whatever the policy, the call's deadline (`ClientBuilder::deadline`) bounds all attempts and
/// waits: a wait that would pass it ends the call at once with the last answer.
///
/// Start from [`RetryPolicy::default`] or [`RetryPolicy::none`] and change what differs:
///
/// ```
/// use std::time::Duration;
/// use marketplace_client::RetryPolicy;
///
/// let patient = RetryPolicy::default().max_attempts(6).max_delay(Duration::from_secs(10));
/// assert_eq!(patient.base_delay, Duration::from_millis(200));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Four attempts, backoff from 200 ms up to 5 s, `Retry-After` honoured up to 30 s.
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
        RetryPolicy::default().max_attempts(1)
    }

    /// Attempts in all, the first included (1 disables retries; 0 counts as 1).
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// The backoff before the second attempt (later ones double it, up to the longest).
    #[must_use]
    pub fn base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// The longest backoff.
    #[must_use]
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// The longest `Retry-After` that is honoured; a longer one ends the call with the answer.
    #[must_use]
    pub fn max_retry_after(mut self, wait: Duration) -> Self {
        self.max_retry_after = wait;
        self
    }
}

/// Settings for one call: limits overriding the client's (the per-attempt timeout, the deadline
/// of the whole call, the retry policy) and headers to add to its requests. The default changes
/// nothing (the client's settings apply).
///
/// Every request builder takes them through `customize`; a paged stream applies them to each
/// page's call.
///
/// A header that carries a credential (`Authorization`-like, a cookie, a name with `key`,
/// `token`, `session`, `secret`, … in it, or a value the app marked sensitive) is treated as
/// one wherever it goes: marked sensitive, shown by `Debug` as `[redacted]`, and removed from
/// every error, hook, recording and trace of the calls that send it, in any encoding the
/// service echoes it back in (see SECURITY.md).
///
/// ```no_run
/// use std::time::Duration;
/// use marketplace_client::RetryPolicy;
///
/// # async fn run(session: marketplace_client::Session) -> Result<(), marketplace_client::Error> {
/// // At most 5 s for this call, all retries and Retry-After waits included.
/// let invoice = session
///     .get_invoice(9003)
///     .customize(|options| options.deadline(Duration::from_secs(5)).retry(RetryPolicy::none()))
///     .send()
///     .await?;
/// # let _ = invoice;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallOptions {
    /// The longest one attempt may take, response body included (`None`: the client's,
    /// `ClientBuilder::timeout`).
    pub timeout: Option<Duration>,
    /// The longest the whole call may take: every attempt and every wait between attempts
    /// (`None`: the client's, `ClientBuilder::deadline`).
    pub deadline: Option<Duration>,
    /// How transient failures are retried (`None`: the client's, `ClientBuilder::retry`).
    pub retry: Option<RetryPolicy>,
    /// Headers added to every attempt of the call, before the client's request hooks run
    /// (`Authorization` excepted: the client sets it). Credential headers added here directly
    /// are marked sensitive when the call is sent.
    pub headers: HeaderMap,
}

/// The limits as they are, and the headers without the values of credential headers.
impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("deadline", &self.deadline)
            .field("retry", &self.retry)
            .field("headers", &DebugHeaders(&self.headers))
            .finish()
    }
}

impl CallOptions {
    /// The longest one attempt may take, response body included.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The longest the whole call may take, every attempt and every wait included.
    #[must_use]
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// How transient failures of this call are retried.
    #[must_use]
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }

    /// Adds a header to every attempt of this call (a trace id, an idempotency tag, a key);
    /// a second value for the same name is added beside the first. A credential header (see
    /// [`CallOptions`]) is marked sensitive here.
    ///
    /// ```no_run
    /// use marketplace_client::reqwest::header::{HeaderName, HeaderValue};
    ///
    /// # async fn run(session: marketplace_client::Session) -> Result<(), marketplace_client::Error> {
    /// let trace = HeaderValue::from_static("4bf92f3577b34da6a3ce929d0e0e4736");
    /// let invoice = session
    ///     .get_invoice(9003)
    ///     .customize(|options| options.header(HeaderName::from_static("x-trace-id"), trace))
    ///     .send()
    ///     .await?;
    /// # let _ = invoice;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn header(mut self, name: HeaderName, mut value: HeaderValue) -> Self {
        if carries_credential(name.as_str(), &value) {
            value.set_sensitive(true);
        }
        self.headers.append(name, value);
        self
    }
}
