//! The test kit: a [`Client`] configured for the fake, a [`Session`] for any seeded user
//! without the OAuth dance, and the dance itself in one call for a client of the test's own
//! ([`FakeMarketplace::authorize`] plays the user's browser step by step).

use marketplace_client::oauth::AccessToken;
use marketplace_client::{Client, ClientBuilder, ConsumerCredentials, Session};

use crate::error::FakeError;
use crate::server::{Authorization, FakeMarketplace};
use crate::tokens::random_hex;

impl FakeMarketplace {
    /// A client of the fake as the demo application: its base URL, the demo consumer
    /// credentials, and an HTTP client that trusts the fake's certificate.
    ///
    /// # Errors
    ///
    /// [`FakeError::Client`] if the client cannot be built (it can for every fake).
    pub fn client(&self) -> Result<Client, FakeError> {
        Ok(self.client_builder().build()?)
    }

    /// The builder of [`client`](Self::client), to configure further first (hooks, limits,
    /// retries); with [`sign_in`](Self::sign_in), a session of that client.
    pub fn client_builder(&self) -> ClientBuilder {
        let demo = self.credentials();
        Client::builder(
            self.base_url(),
            ConsumerCredentials::new(&demo.consumer_key, &demo.consumer_secret),
        )
        .http_client(self.http_client())
    }

    /// A session acting for the seeded user `user_id`, as if that user had approved the demo
    /// application just now: the fake issues the access token directly, and every call is
    /// signed and checked as after the real flow. As there, each side keeps the grant time by
    /// its own clock: the fake by its [clock](Self::clock) (the token expires six hours later
    /// on it), the session by the local one; [`Session::revoke`] ends it.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    /// use marketplace_fake::FakeMarketplace;
    ///
    /// let fake = FakeMarketplace::start().await?;
    /// let workroom = fake.world().hourly_workroom();
    /// let session = fake.session(workroom.client)?;
    /// let first = session.get_timesheets_for_bid(workroom.bid_id).send().await?;
    /// assert_eq!(first.total_results, workroom.timesheets.len() as u64);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`FakeError::UnknownUser`] for an ID no seeded user has (see
    /// [`World::users`](crate::world::World::users)); [`FakeError::NoRandomness`] if no token
    /// can be drawn.
    pub fn session(&self, user_id: u64) -> Result<Session, FakeError> {
        if self.world().user(user_id).is_none() {
            return Err(FakeError::UnknownUser(user_id));
        }
        let client = self.client()?;
        let (Some(token), Some(secret)) = (random_hex(16), random_hex(20)) else {
            return Err(FakeError::NoRandomness);
        };
        let consumer_key = self.credentials().consumer_key.clone();
        self.app()
            .tokens()
            .grant(&token, &secret, consumer_key, user_id, self.clock().now());
        let granted_at = jiff::Timestamp::now();
        Ok(client.session(AccessToken::new(token, secret, granted_at)))
    }

    /// The whole three-legged flow for `client` (a client of the demo application, configured
    /// as the test needs: hooks, limits): a request token with a callback, the user `login`
    /// approving it in the browser, the verifier from the callback, the access token. Every
    /// step goes over the wire and is checked as the service checks it.
    ///
    /// # Errors
    ///
    /// [`FakeError::Client`] when a call of the flow fails, [`FakeError::NotAuthorized`] when
    /// the browser does not end at the callback (an unknown login), and what
    /// [`authorize`](Self::authorize) returns.
    pub async fn sign_in(&self, client: &Client, login: &str) -> Result<Session, FakeError> {
        let request = client.request_token(Some("fake-kit://callback")).await?;
        let url = client.authorization_url(&request);
        let callback = match self.authorize(url.as_str(), login, true).await? {
            Authorization::Callback(callback) => callback,
            other => return Err(FakeError::NotAuthorized(other)),
        };
        let verifier = client.verifier_from_callback(&request, callback.as_str())?;
        Ok(client.session(client.access_token(&request, &verifier).await?))
    }
}
