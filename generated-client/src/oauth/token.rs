//! The credentials of the three-legged flow: request token, verifier, access token.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::secret::Secret;

/// The longest token or token secret the client takes from a token endpoint's answer: far
/// beyond any service's (tens of bytes are usual), small enough that every header carrying
/// one, and the 64 secrets the client remembers, stay small.
pub(crate) const MAX_TOKEN_BYTES: usize = 4096;

/// A temporary (request) token from `oauth/getRequestToken`, to be authorized by the user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestToken {
    /// The request token (`oauth_token`).
    pub token: String,
    /// Its secret; signs the access-token exchange.
    pub secret: Secret,
    /// `oauth_callback_confirmed` as sent (always true per the reference).
    pub callback_confirmed: bool,
}

/// The `oauth_verifier` the service gives when the user approves: through the callback, or on a
/// page for the user to type in. It proves the user's approval until it is exchanged, so it is a
/// secret: `Debug` does not show it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verifier(String);

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Verifier([redacted])")
    }
}

impl Verifier {
    /// A verifier typed in by the user (surrounding white space is ignored).
    pub fn new(text: &str) -> Result<Self, crate::Error> {
        let text = text.trim();
        if text.is_empty() {
            return Err(crate::Error::InvalidArgument {
                method: "oauth/getAccessToken",
                name: "oauth_verifier".to_owned(),
                reason: "the verifier is empty".to_owned(),
            });
        }
        Ok(Verifier(text.to_owned()))
    }

    /// The verifier as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An access token: acts for the user who approved the application, for at most the service's
/// token lifetime (six hours), after which [`Session::expires_at`](crate::Session::expires_at)
/// says it expired.
///
/// Serialize it to persist a session and deserialize it to restore one; the grant time travels
/// with it, so a restored token still knows when it expires.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessToken {
    token: String,
    secret: Secret,
    granted_at: Timestamp,
}

impl AccessToken {
    /// A token granted at `granted_at`.
    pub fn new(token: impl Into<String>, secret: impl Into<String>, granted_at: Timestamp) -> Self {
        AccessToken {
            token: token.into(),
            secret: Secret::new(secret),
            granted_at,
        }
    }

    /// The access token (`oauth_token`).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Its secret.
    pub fn secret(&self) -> &Secret {
        &self.secret
    }

    /// When it was granted.
    pub fn granted_at(&self) -> Timestamp {
        self.granted_at
    }

    /// When it expires if tokens live `lifetime` (the service's `token_lifetime`).
    pub(crate) fn expires_after(&self, lifetime: Duration) -> Timestamp {
        let lifetime = SignedDuration::try_from(lifetime).unwrap_or(SignedDuration::MAX);
        self.granted_at
            .checked_add(lifetime)
            .unwrap_or(Timestamp::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expires_a_lifetime_after_it_was_granted() {
        let granted = Timestamp::from_second(1_768_000_000).unwrap();
        let token = AccessToken::new("t", "s", granted);
        let six_hours = Duration::from_secs(6 * 3600);
        assert_eq!(
            token.expires_after(six_hours).as_second() - granted.as_second(),
            6 * 3600
        );
        assert_eq!(token.expires_after(Duration::MAX), Timestamp::MAX);
    }

    #[test]
    fn survives_a_save_and_restore_and_never_shows_its_secret() {
        let token = AccessToken::new(
            "t",
            "hunter2",
            Timestamp::from_second(1_768_000_000).unwrap(),
        );
        let saved = serde_json::to_string(&token).unwrap();
        let restored: AccessToken = serde_json::from_str(&saved).unwrap();
        assert_eq!(restored, token);
        assert_eq!(restored.granted_at(), token.granted_at());
        assert!(!format!("{token:?}").contains("hunter2"));
    }

    #[test]
    fn an_empty_verifier_is_refused() {
        assert!(Verifier::new("  ").is_err());
        assert_eq!(Verifier::new(" abc \n").unwrap().as_str(), "abc");
    }
}
