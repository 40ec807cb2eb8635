//! Typed async client for the freelance-marketplace developer API.
//!
//! A [`Client`] holds the application's settings and runs the OAuth 1.0a flow; a [`Session`]
//! acts for one user with an access token and has a method per data method of the API, each
//! returning a [`Request`]: required parameters are arguments, optional ones are setters,
//! `send()` returns the typed data and `send_with_metadata()` the data with the response's
//! [`ResponseMeta`]. Paged methods also stream their `pages()` and `items()`
//! ([`paging::Pages`], [`paging::Items`]: no pinning needed, `collect_all()` for the whole list).
//! Every failure is one [`Error`]. Requests are signed with HMAC-SHA1 afresh on every attempt;
//! transient failures of GET calls are retried ([`RetryPolicy`]) within a deadline per call
//! (60 s by default; one call can set its own limits and headers with `customize`, see
//! [`CallOptions`]). Hooks add behaviour around every exchange ([`ClientBuilder::on_request`],
//! [`ClientBuilder::on_response`]). Redirects are never followed: credentials stay with the
//! configured origin ([`Error::Redirect`]). Error responses are read in every plausible shape
//! ([`ApiFailure`]), and no secret is kept in any error or shown to a hook.
//!
//! Apps test against `marketplace-fake`, a faithful fake of the service with a test kit (a
//! [`Session`] for a seeded user in one line; see its crate docs), and build model values in
//! unit tests with the generated builders (`Timesheet::builder()`, see [`BuildError`]).
//!
//! # Getting started
//!
//! ```toml
//! [dependencies]
//! marketplace-client = "0.1"   # from the first release; until then a path or git dependency
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! [dev-dependencies]
//! marketplace-fake = "0.1"
//! ```
//!
//! The repository's README has a complete `main` and a test of it against the fake; its tour
//! (`cargo run --example tour` in a clone) walks every call against the fake, and its `docs/`
//! hold a page per task (using the client, testing with the fake).
//!
//! # Cargo features
//!
//! The TLS of the HTTP client the crate builds: `rustls-ring` (the default: rustls with the
//! ring provider, a short C build), `rustls-aws-lc` (rustls with aws-lc-rs) or `native-tls`
//! (the platform's). When several are on, `native-tls` wins, then `rustls-aws-lc`. With none,
//! only plain-HTTP base URLs work, unless [`ClientBuilder::http_client`] brings its own. The
//! rustls features build reqwest with `rustls-no-provider`: start a custom `reqwest::Client`
//! from [`http_client_builder`], since reqwest's own `Client::new()` then needs a process-wide
//! rustls provider. [`reqwest`], [`url`] and the stream traits are re-exported, so an app
//! needs none of them as dependencies of its own.
//!
//! # The OAuth flow, then a call
//!
//! ```no_run
//! use marketplace_client::{Client, ConsumerCredentials};
//! use marketplace_client::oauth::Verifier;
//!
//! # async fn run() -> Result<(), marketplace_client::Error> {
//! let client = Client::builder(
//!     "https://marketplace.example",
//!     ConsumerCredentials::new("developer-api-key", "consumer-secret"),
//! )
//! .build()?;
//!
//! // 1. A request token; the service will redirect the user to the callback.
//! let request = client.request_token(Some("myapp://oauth/callback")).await?;
//! // 2. Send the user's browser here to approve the application.
//! println!("open {}", client.authorization_url(&request));
//! // 3. The service redirects to the callback with oauth_token and oauth_verifier.
//! let callback_url = std::env::args().nth(1).unwrap_or_default(); // where the user came back
//! let verifier = client.verifier_from_callback(&request, &callback_url)?;
//! //    (Without a callback, the user types in the verifier: `Verifier::new(&typed)?`.)
//! # let _ = Verifier::new("typed");
//! // 4. The access token: valid for six hours; serialize it to keep the session.
//! let token = client.access_token(&request, &verifier).await?;
//! let session = client.session(token);
//!
//! let timesheet = session.get_timesheet_by_bid_id(310001).send().await?;
//! println!("{} hours", timesheet.timesheet.total_hours);
//! session.revoke().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # A paged stream
//!
//! ```no_run
//! use marketplace_client::TryStreamExt;
//! # async fn run(session: marketplace_client::Session) -> Result<(), marketplace_client::Error> {
//! // Every timesheet of the workroom, across pages; pages after the first are fetched ahead.
//! let mut timesheets = session.get_timesheets_for_bid(310001).rpp(25).items();
//! while let Some(sheet) = timesheets.try_next().await? {
//!     println!("{} week ending {}: {} h", sheet.id, sheet.week, sheet.total_hours);
//! }
//! // Or the whole list at once: every item, or the first error.
//! let providers = session.get_my_providers().items().collect_all().await?;
//! # let _ = providers;
//! # Ok(())
//! # }
//! ```
//!
//! # Handling an error by its code
//!
//! [`Error::code`] is the service's error code as sent, whatever the shape of the error body;
//! `ErrorCode::of` gives it typed, unknown codes kept as `ErrorCode::Other`:
//!
//! ```no_run
//! use marketplace_client::{Error, ErrorCode, TimesheetDetails};
//!
//! # async fn run(session: marketplace_client::Session) -> Result<(), Error> {
//! /// The timesheet, or `None` when it does not exist or is not the user's to see.
//! async fn timesheet(
//!     session: &marketplace_client::Session,
//!     id: u64,
//! ) -> Result<Option<TimesheetDetails>, Error> {
//!     match session.get_timesheet_by_id(id).send().await {
//!         Ok(details) => Ok(Some(details)),
//!         Err(error) if ErrorCode::of(&error) == Some(ErrorCode::ValidationInvalidId) => Ok(None),
//!         Err(error) => Err(error),
//!     }
//! }
//!
//! match timesheet(&session, 880104).await {
//!     Ok(found) => println!("{:?}", found.map(|details| details.timesheet.total_hours)),
//!     // Six hours after the grant: no request was sent; the user must authorize again.
//!     Err(Error::TokenExpired { expires_at }) => println!("expired at {expires_at}"),
//!     Err(error) => return Err(error),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Hooks and metadata
//!
//! A request hook sees every attempt before it is signed and may add headers; a response hook
//! sees every answer: status, headers, latency, attempt, and the body without secrets (what a
//! traffic recorder or metrics need). One call can add headers of its own, and return the
//! response's metadata with its data:
//!
//! ```no_run
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use marketplace_client::reqwest::header::{HeaderName, HeaderValue};
//! use marketplace_client::{Client, ConsumerCredentials};
//!
//! # async fn run(token: marketplace_client::oauth::AccessToken) -> Result<(), marketplace_client::Error> {
//! static NEXT_TRACE: AtomicU64 = AtomicU64::new(1);
//!
//! let client = Client::builder("https://marketplace.example", ConsumerCredentials::new("key", "secret"))
//!     .on_request(|request| {
//!         let trace = NEXT_TRACE.fetch_add(1, Ordering::Relaxed);
//!         request.headers_mut().insert("x-trace-id", HeaderValue::from(trace));
//!     })
//!     .on_response(|response| {
//!         println!(
//!             "{} attempt {}: HTTP {} in {} ms",
//!             response.api_method(),
//!             response.attempt(),
//!             response.status(),
//!             response.latency().as_millis()
//!         );
//!     })
//!     .build()?;
//! let session = client.session(token);
//!
//! let response = session
//!     .get_invoice(9003)
//!     .customize(|options| options.header(HeaderName::from_static("x-app"), HeaderValue::from_static("billing")))
//!     .send_with_metadata()
//!     .await?;
//! println!(
//!     "{} (api version {}) after {} attempt(s), the service's clock at {:?}",
//!     response.meta.api(),
//!     response.meta.api_version(),
//!     response.meta.attempts(),
//!     response.meta.date()
//! );
//! let invoice = response.data.invoice;
//! # let _ = invoice;
//! # Ok(())
//! # }
//! ```
//!
//! # Building models in an app's tests
//!
//! The records are `#[non_exhaustive]` (a new field is not a breaking change), so an app makes
//! its own values with their builders; `build()` checks that every field the service always
//! sends is set:
//!
//! ```
//! use marketplace_client::jiff::civil::date;
//! use marketplace_client::{Decimal, ProjectStatus, ReportStatus, Timesheet, UserType};
//!
//! let sheet = Timesheet::builder()
//!     .id(880104)
//!     .week(date(2026, 1, 18))
//!     .bid_id(310001)
//!     .client("dwhitfield")
//!     .provider("ravimenon")
//!     .client_user_id(40001)
//!     .provider_user_id(50001)
//!     .status(ReportStatus::Sent)
//!     .project_status(ProjectStatus::Ok)
//!     .project_status_changed_by(UserType::Provider)
//!     .start_date(date(2026, 1, 12))
//!     .end_date(date(2026, 1, 18))
//!     .next_end_date(date(2026, 1, 25))
//!     .total_hours(Decimal::new(1250, 2))
//!     .authorized_hours(20)
//!     .billed_hours(Decimal::new(1250, 2))
//!     .auto_pay_hours(Decimal::new(1250, 2))
//!     .next_authorized_hours(20)
//!     .rate(30)
//!     .overdue(false)
//!     .seen_by_client(true)
//!     .build()?;
//! assert_eq!(sheet.total_hours * sheet.rate, Decimal::new(375, 0));
//! assert_eq!(sheet.invoice_id, None); // optional fields start as None
//! # Ok::<(), marketplace_client::BuildError>(())
//! ```
//!
//! # Decoding the wire format
//!
//! The response types are generated from `spec/` (one module per spec file, re-exported here);
//! a hand-written runtime decodes the service's loosely typed JSON (numbers as strings, arrays
//! as index-keyed objects, two date formats, `0` for none) into exact Rust types. [`decode`]
//! does the same for a body obtained elsewhere:
//!
//! ```
//! use marketplace_client::{Decimal, Envelope, TimesheetList, decode};
//! use marketplace_client::jiff::civil::date;
//!
//! let body = br#"{"api": "pay/getTimesheetsForBid", "apiVersion": 1, "rcode": 1, "data": {
//!     "totalResults": 1, "totalPages": 1, "page": 1, "numResults": 1,
//!     "bidDetails": {"bidId": "310001", "jobId": "220001", "jobName": "Inventory sync",
//!         "userType": "CLIENT", "clientUserId": "40001", "clientName": "Dana Whitfield",
//!         "clientImageURL": "", "clientCountry": "United States", "clientCountryCode": "US",
//!         "providerUserId": "50001", "providerName": "Ravi Menon", "providerImageURL": "",
//!         "providerCountry": "India", "providerCountryCode": "IN", "providerCity": "Pune",
//!         "phase": "5", "status": "Working", "isHourly": true, "isSponsored": false,
//!         "isPreBid": false, "bidAmount": "1500.00", "duration": ""},
//!     "timesheets": {"0": {"id": 880104, "week": "18-JAN-26", "bidId": "310001",
//!         "client": "dwhitfield", "provider": "ravimenon", "clientUserId": "40001",
//!         "providerUserId": "50001", "status": "Sent", "projectStatus": "OK",
//!         "projectStatusChangedBy": "PROVIDER", "startDate": "12-JAN-26", "endDate": "18-JAN-26",
//!         "nextEndDate": "25-JAN-26", "totalHours": "12.50", "adjustedHours": "0.00",
//!         "authorizedHours": "20.00", "billedHours": "12.50", "autoPayHours": "12.50",
//!         "nextAuthorizedHours": "20.00", "rate": "30.00", "overdue": false, "seenByClient": true}}
//! }}"#;
//! let page: Envelope<TimesheetList> = decode(body)?;
//! let sheet = &page.data.timesheets[0];
//! assert_eq!(sheet.week, date(2026, 1, 18)); // "18-JAN-26" is a date
//! assert_eq!(sheet.rate.to_string(), "30.00"); // "30.00" is the exact decimal 30.00
//! assert_eq!(sheet.total_hours * sheet.rate, Decimal::new(375, 0));
//! assert_eq!(sheet.invoice_id, None); // absent until invoiced
//! # Ok::<(), marketplace_client::DecodeError>(())
//! ```

// A library prints nothing: what it has to say is a value or an error its caller shows (and
// a test's output is the harness's). Every program's line goes through its one writer.
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]
// An app holds and moves each call's future: awaiting one larger than clippy.toml's
// `future-size-threshold` (2 KiB) is refused, so a future that grows is boxed where it is made
// (the OAuth flows' were 2.2 KiB).
#![warn(clippy::large_futures)]

// Generated by `cargo xtask codegen` from `spec/`; formatted by the generator, not rustfmt.
#[rustfmt::skip]
mod generated;

// The hand-written runtime, one concept per module. It never names generated code (only its
// unit tests use the spec's `SERVICE`): what the spec decides reaches it as values (`Service`)
// and through traits (`request::DataMethod`, `paging::Page`, `wire::WireEnum`) that the
// generated code implements.
mod api_failure;
mod build_error;
mod client;
mod clock;
mod envelope;
mod error;
mod error_body;
pub mod files;
mod hooks;
mod input_file;
pub mod oauth;
mod one_line;
mod options;
pub mod paging;
mod query;
pub mod recording;
pub mod request;
mod response;
mod scrub;
mod secret;
mod service;
mod tls;
mod transport;

// The decoders the generated types name in `#[serde(with)]`: public for the fuzz targets and the
// spec-diff oracle, which call them directly, but not part of the API (nor of its semver).
#[doc(hidden)]
pub mod wire;

pub use api_failure::{ApiFailure, ListedError, RawErrorCode};
pub use build_error::BuildError;
pub use client::{Client, ClientBuilder, Session};
pub use envelope::{DecodeError, Envelope, decode};
pub use error::{Error, TimeoutLimit, TransportError, TransportErrorKind};
pub use generated::*;
pub use hooks::{OutgoingRequest, ReceivedResponse};
pub use one_line::OneLine;
pub use options::{CallOptions, RetryPolicy};
pub use request::Request;
pub use response::{Response, ResponseMeta};
pub use scrub::{redact, redact_url};
pub use secret::{ConsumerCredentials, Secret, callback_secrets};
pub use service::{OAuthService, Service};

pub use tls::{http_client_builder, http_client_builder_trusting};
pub use wire::DayOrInstant;

/// The HTTP library the client runs on, at the version it uses: [`ClientBuilder::http_client`]
/// takes a `reqwest::Client` (see [`http_client_builder`]), and hooks see its header types.
pub use reqwest;

/// The URL library: [`Client::authorization_url`] returns a [`url::Url`].
pub use url;

/// The stream traits a caller needs for the paged streams (`try_next`, `try_collect`,
/// `map_ok`, …), so an app needs no `futures` dependency of its own.
pub use futures::{Stream, StreamExt, TryStreamExt};

/// Exact decimal type used for money, rates and hours.
pub use rust_decimal::Decimal;

/// The date and time library used for dates and timestamps.
pub use jiff;
