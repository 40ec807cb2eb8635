//! [`FakeError`]: what can go wrong in the test kit's calls.

/// A failure of the test kit: [`FakeMarketplace::session`](crate::FakeMarketplace::session),
/// [`client`](crate::FakeMarketplace::client), [`sign_in`](crate::FakeMarketplace::sign_in)
/// or [`authorize`](crate::FakeMarketplace::authorize).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FakeError {
    /// No seeded user has this ID (see [`World::users`](crate::world::World::users)).
    #[error("no seeded user has the ID {0}")]
    UnknownUser(u64),
    /// The OS random source failed, so no token could be issued.
    #[error("the OS random source failed")]
    NoRandomness,
    /// The client for the fake could not be built, or a call of the flow failed.
    #[error("the client failed: {0}")]
    Client(#[from] marketplace_client::Error),
    /// The browser did not end at the callback: the login was refused, or access denied.
    #[error("the authorization ended in {0:?}, not at the callback")]
    NotAuthorized(crate::Authorization),
    /// The authorization URL given to `authorize` is not a URL.
    #[error("the authorization URL given is not a URL ({url}): {source}")]
    InvalidUrl {
        /// The text given, not shown (`[not shown: N bytes]`): a text that does not parse may
        /// hold a password anywhere.
        url: String,
        /// Why it does not parse.
        source: url::ParseError,
    },
    /// The authorization URL given to `authorize`, or the form of its login page, is at
    /// another origin than the fake's: the browser sends the demo login only to the fake.
    #[error("{url:?} is not at the fake marketplace ({fake}): the browser goes only there")]
    ForeignUrl {
        /// The URL refused, as [`marketplace_client::redact_url`] shows it: without its user
        /// info, query and fragment.
        url: String,
        /// The fake's base URL.
        fake: String,
    },
    /// A request of the browser failed: connecting, TLS, or reading the page, or took longer
    /// than [`BROWSER_TIMEOUT`](crate::BROWSER_TIMEOUT). The error carries no URL (the
    /// authorization URL the app gave may hold its values); where it went is the fake.
    #[error("the browser's request to the fake marketplace failed: {0}")]
    Browser(reqwest::Error),
    /// The service answered the browser with a page it did not expect: an HTTP error, a login
    /// page without its form (an unknown request token), a refused login.
    #[error("{what} (HTTP {status}): {page}")]
    UnexpectedPage {
        /// What was expected and not found.
        what: String,
        /// The HTTP status of the page.
        status: u16,
        /// The page as served.
        page: String,
    },
}
