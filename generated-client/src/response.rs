//! A call's data together with what the response said besides: [`Response`] and
//! [`ResponseMeta`].

use std::time::Duration;

use jiff::Timestamp;
use reqwest::header::{DATE, HeaderMap};

use crate::scrub::Scrubber;

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
/// envelope's `api` and `apiVersion`, and how the call went (attempts, time). A channel like
/// errors and hooks: what it holds of the answer is cleaned of secrets (unlike the data, which
/// is the app's).
#[derive(Clone, Debug)]
pub struct ResponseMeta {
    status: u16,
    headers: HeaderMap,
    api: String,
    api_version: i64,
    attempts: u32,
    elapsed: Duration,
}

/// What a successful response said besides its data, as it came ([`ResponseMeta::cleaned`]).
pub(crate) struct MetaParts<'a> {
    pub(crate) status: u16,
    pub(crate) headers: &'a HeaderMap,
    pub(crate) api: String,
    pub(crate) api_version: i64,
    pub(crate) attempts: u32,
    pub(crate) elapsed: Duration,
}

impl ResponseMeta {
    /// The metadata of `parts`, every field that comes from the answer through the call's
    /// scrubber (every field is named here, so a new one does not compile until it says how it
    /// is cleaned): the headers as response hooks see them, the envelope's `api` cleaned like
    /// any text; `None` when the digits of its `apiVersion` hold a secret of the call (a
    /// number cannot be shown in part: the call refuses the answer, `Error::Decode`).
    pub(crate) fn cleaned(parts: MetaParts<'_>, scrubber: &Scrubber<'_>) -> Option<ResponseMeta> {
        let MetaParts {
            status,
            headers,
            api,
            api_version,
            attempts,
            elapsed,
        } = parts;
        if scrubber.clean(api_version.to_string().as_bytes()).changed() {
            return None;
        }
        let headers = scrubber.headers(headers).into_owned();
        let api = scrubber.text(&api).into_owned();
        Some(ResponseMeta {
            status,
            headers,
            api,
            api_version,
            attempts,
            elapsed,
        })
    }

    /// The HTTP status (a 2xx).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The response's headers, as the service sent them, cleaned of secrets as response hooks
    /// see them (`ReceivedResponse::headers`); none from `send()`, which drops them.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The service's clock when it answered: its `Date` header, if present and valid.
    pub fn date(&self) -> Option<Timestamp> {
        self.headers.get(DATE).and_then(crate::transport::http_date)
    }

    /// The envelope's `api`: the answering method, `group/method` (pay/getPayment and
    /// pay/getInvoice answer `pay/getBilling`), cleaned of secrets like any text the client
    /// hands out.
    pub fn api(&self) -> &str {
        &self.api
    }

    /// The envelope's `apiVersion` (1 so far). An answer whose `apiVersion` spells a secret of
    /// the call (a hostile service echoing a secret of digits as a number) is refused with
    /// [`Error::Decode`](crate::Error::Decode) at `apiVersion`: a number cannot be shown in part,
    /// and the error's excerpt withholds the body. Only where the metadata is kept (`send_with_metadata`): `send` shows none of it.
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

/// What a data call keeps of the response besides its data: the cleaned [`ResponseMeta`]
/// (`send_with_metadata`) or nothing (`send`, and the pages of a stream). Chosen by type, so a
/// call that drops the metadata cleans nothing for it, and one that keeps it cannot get none.
pub(crate) trait Metadata: Send + 'static {
    /// What the caller gets beside the data.
    type Kept: Send + 'static;

    /// What is kept of `parts`; `None` when the answer is refused instead
    /// ([`ResponseMeta::cleaned`]).
    fn keep(parts: MetaParts<'_>, scrubber: &Scrubber<'_>) -> Option<Self::Kept>;
}

/// The metadata kept, cleaned ([`ResponseMeta::cleaned`]).
pub(crate) enum WithMetadata {}

impl Metadata for WithMetadata {
    type Kept = ResponseMeta;

    fn keep(parts: MetaParts<'_>, scrubber: &Scrubber<'_>) -> Option<ResponseMeta> {
        ResponseMeta::cleaned(parts, scrubber)
    }
}

/// The metadata dropped: nothing of it reaches the caller, so nothing is cleaned.
pub(crate) enum DataOnly {}

impl Metadata for DataOnly {
    type Kept = ();

    fn keep(_: MetaParts<'_>, _: &Scrubber<'_>) -> Option<()> {
        Some(())
    }
}
