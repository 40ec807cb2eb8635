//! A call's data together with what the response said besides: [`Response`] and
//! [`ResponseMeta`].

use std::time::Duration;

use jiff::Timestamp;
use reqwest::header::{DATE, HeaderMap};

/// The data of a call with the response's metadata, from a request builder's
/// `send_with_metadata()`.
///
/// ```no_run
/// # async fn run(session: marketplace_client::Session) -> Result<(), marketplace_client::Error> {
/// let response = session.get_invoice(9003).send_with_metadata().await?;
/// println!(
///     "HTTP {} from {} (api version {}), after {} attempt(s); the service's clock: {:?}",
///     response.meta.status(),
///     response.meta.api(),
///     response.meta.api_version(),
///     response.meta.attempts(),
///     response.meta.date(),
/// );
/// let invoice = response.data.invoice;
/// # let _ = invoice;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Response<T> {
    /// The method's data, as `send()` returns it.
    pub data: T,
    /// What the response said besides.
    pub meta: ResponseMeta,
}

impl<T> Response<T> {
    /// The data and the metadata.
    pub fn into_parts(self) -> (T, ResponseMeta) {
        (self.data, self.meta)
    }
}

/// What a successful response said besides its data: the HTTP status and headers, the
/// envelope's `api` and `apiVersion`, and how the call went (attempts, time).
#[derive(Clone, Debug)]
pub struct ResponseMeta {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) api: String,
    pub(crate) api_version: i64,
    pub(crate) attempts: u32,
    pub(crate) elapsed: Duration,
}

impl ResponseMeta {
    /// The HTTP status (a 2xx).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The response's headers, as the service sent them.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The service's clock when it answered: its `Date` header, if present and valid.
    pub fn date(&self) -> Option<Timestamp> {
        self.headers.get(DATE).and_then(crate::transport::http_date)
    }

    /// The envelope's `api`: the answering method, `group/method` (pay/getPayment and
    /// pay/getInvoice answer `pay/getBilling`).
    pub fn api(&self) -> &str {
        &self.api
    }

    /// The envelope's `apiVersion` (1 so far).
    pub fn api_version(&self) -> i64 {
        self.api_version
    }

    /// Attempts made, this successful one included (more than 1 after retries).
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// How long the call took, from its first attempt to the whole body of the last.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }
}
