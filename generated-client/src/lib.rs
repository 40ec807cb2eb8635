//! Typed async client for the freelance-marketplace developer API.
//!
//! A [`Client`] holds the application's settings and runs the OAuth 1.0a flow; a [`Session`]
//! acts for one user with an access token and has a method per data method of the API, each
//! returning a [`Request`]: required parameters are arguments, optional ones are setters, and
//! `send()` returns the typed data. Paged methods also stream their `pages()` and `items()`
//! ([`paging::Pages`], [`paging::Items`]: no pinning needed, `collect_all()` for the whole list).
//! Every failure is one [`Error`]. Requests are signed with HMAC-SHA1 afresh on every attempt;
//! transient failures of GET calls are retried ([`RetryPolicy`]) within a deadline per call
//! (60 s by default; one call can set its own limits with `customize`, see [`CallOptions`]).
//! Redirects are never followed: credentials stay with the configured origin
//! ([`Error::Redirect`]). Error responses are read in every plausible shape ([`ApiFailure`]),
//! and no secret is kept in any error.
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
//! # let callback_url = "";
//! let verifier = client.verifier_from_callback(&request, callback_url)?;
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
//! use futures::TryStreamExt;
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
//! # Decoding the wire format
//!
//! The response types are generated from `spec/` (one module per spec file, re-exported here);
//! the [`wire`] module is the hand-written runtime they use to decode the service's loosely
//! typed JSON (numbers as strings, arrays as index-keyed objects, two date formats, `0` for
//! none) into exact Rust types. [`decode`] does the same for a body obtained elsewhere:
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

// Generated by `cargo xtask codegen` from `spec/`; formatted by the generator, not rustfmt.
#[rustfmt::skip]
mod generated;

// The hand-written runtime, one concept per module. It never names generated code (only its
// unit tests use the spec's `SERVICE`): what the spec decides reaches it as values (`Service`)
// and through traits (`request::DataMethod`, `paging::Page`, `wire::WireEnum`) that the
// generated code implements.
mod client;
mod envelope;
mod error;
mod error_body;
pub mod oauth;
mod options;
pub mod paging;
mod query;
pub mod request;
mod secret;
mod service;
mod transport;
pub mod wire;

pub use client::{Client, ClientBuilder, Session};
pub use envelope::{DecodeError, Envelope, decode};
pub use error::{ApiFailure, Error, ListedError, RawErrorCode, TimeoutLimit};
pub use generated::*;
pub use options::{CallOptions, RetryPolicy};
pub use request::Request;
pub use secret::{ConsumerCredentials, Secret};
pub use service::{OAuthService, Service};

pub use wire::DayOrInstant;

/// Exact decimal type used for money, rates and hours.
pub use rust_decimal::Decimal;

/// The date and time library used for dates and timestamps.
pub use jiff;
