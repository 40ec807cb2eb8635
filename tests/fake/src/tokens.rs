//! The tokens the fake has issued (request tokens, the user's approval, access tokens with their
//! lifetime and revocation) and the nonces it has seen, with the check of a signed request
//! against them.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};

use crate::credentials::DemoCredentials;
use crate::verify::{OAuthRequest, TIMESTAMP_TOLERANCE_SECS};

/// How long an access token is valid after it was granted.
pub(crate) const ACCESS_TOKEN_LIFETIME: SignedDuration = SignedDuration::from_hours(6);

/// Every token the fake has issued, and the nonces seen recently.
#[derive(Debug, Default)]
pub(crate) struct Tokens {
    pub(crate) requests: HashMap<String, RequestToken>,
    pub(crate) access: HashMap<String, AccessToken>,
    /// (consumer key, token, nonce) -> the request's `oauth_timestamp`.
    nonces: HashMap<(String, String, String), i64>,
}

/// An issued request token.
#[derive(Debug)]
pub(crate) struct RequestToken {
    pub(crate) secret: String,
    pub(crate) consumer_key: String,
    /// `None` for `oob` or no callback: the verifier is shown on a page.
    pub(crate) callback: Option<String>,
    pub(crate) approval: Option<Approval>,
}

/// A user's approval of a request token.
#[derive(Debug)]
pub(crate) struct Approval {
    pub(crate) user: u64,
    pub(crate) verifier: String,
}

/// An issued access token.
#[derive(Debug)]
pub(crate) struct AccessToken {
    pub(crate) secret: String,
    pub(crate) consumer_key: String,
    pub(crate) user: u64,
    pub(crate) granted_at: Timestamp,
    pub(crate) revoked: bool,
}

/// Which kind of `oauth_token` a signed request must carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// Present and blank (getRequestToken).
    Blank,
    /// An issued request token (getAccessToken).
    Request,
    /// An issued access token (revokeToken, data calls).
    Access,
}

impl Tokens {
    /// Checks a signed request: consumer key, protocol parameters, token kind, signature and
    /// nonce (recorded when everything else is right). Returns the `oauth_token`.
    pub(crate) fn authenticate(
        &mut self,
        credentials: &DemoCredentials,
        request: &OAuthRequest,
        expect: Expect,
        now: Timestamp,
    ) -> Result<String, String> {
        let consumer = request
            .get("oauth_consumer_key")
            .ok_or("oauth_consumer_key is missing")?;
        if consumer != credentials.consumer_key {
            return Err(format!("unknown consumer key {consumer:?}"));
        }
        request.check_protocol(now)?;
        let token = request.get("oauth_token").ok_or("oauth_token is missing")?;
        let (token_secret, owner) = match expect {
            Expect::Blank if token.is_empty() => ("", consumer),
            Expect::Blank => {
                return Err("oauth_token must be sent blank to obtain a request token".to_owned());
            }
            Expect::Request => match self.requests.get(token) {
                Some(issued) => (issued.secret.as_str(), issued.consumer_key.as_str()),
                None if self.access.contains_key(token) => {
                    return Err("oauth_token is an access token, not a request token".to_owned());
                }
                None => {
                    return Err(
                        "unknown request token (never issued, or already exchanged for \
                                an access token)"
                            .to_owned(),
                    );
                }
            },
            Expect::Access => match self.access.get(token) {
                Some(issued) => (issued.secret.as_str(), issued.consumer_key.as_str()),
                None if self.requests.contains_key(token) => {
                    return Err("oauth_token is a request token, not an access token".to_owned());
                }
                None => return Err("unknown access token".to_owned()),
            },
        };
        if owner != consumer {
            return Err("the token was issued to another application".to_owned());
        }
        request.check_signature(&credentials.consumer_secret, token_secret)?;

        let timestamp = request
            .get("oauth_timestamp")
            .and_then(|t| t.parse::<i64>().ok())
            .unwrap_or_default();
        let oldest = now.as_second().saturating_sub(TIMESTAMP_TOLERANCE_SECS);
        self.nonces.retain(|_, seen| *seen >= oldest);
        let key = (
            consumer.to_owned(),
            token.to_owned(),
            request.get("oauth_nonce").unwrap_or_default().to_owned(),
        );
        if self.nonces.contains_key(&key) {
            return Err("oauth_nonce has already been used (replayed request)".to_owned());
        }
        self.nonces.insert(key, timestamp);
        Ok(token.to_owned())
    }

    /// Issues the access token `token` with `secret` to the application `consumer_key`, acting
    /// for `user` from `now`: the end of the flow, or the test kit's shortcut past it.
    pub(crate) fn grant(
        &mut self,
        token: &str,
        secret: &str,
        consumer_key: String,
        user: u64,
        now: Timestamp,
    ) {
        self.access.insert(
            token.to_owned(),
            AccessToken {
                secret: secret.to_owned(),
                consumer_key,
                user,
                granted_at: now,
                revoked: false,
            },
        );
    }

    /// The user of a live access token: refuses a revoked or expired one.
    pub(crate) fn access_user(&self, token: &str, now: Timestamp) -> Result<u64, String> {
        let issued = self.access.get(token).ok_or("unknown access token")?;
        if issued.revoked {
            return Err(
                "the access token has been revoked; the user must authorize the \
                        application again"
                    .to_owned(),
            );
        }
        let expires_at = issued
            .granted_at
            .checked_add(ACCESS_TOKEN_LIFETIME)
            .unwrap_or(issued.granted_at);
        if now >= expires_at {
            return Err(format!(
                "the access token expired at {expires_at}; the user must authorize the \
                 application again"
            ));
        }
        Ok(issued.user)
    }

    /// Whether `token` is an issued, not yet exchanged request token.
    pub(crate) fn has_request(&self, token: &str) -> bool {
        self.requests.contains_key(token)
    }
}

/// `bytes` random bytes from the OS, as lower-case hex.
pub(crate) fn random_hex(bytes: usize) -> Option<String> {
    let mut buffer = vec![0u8; bytes];
    getrandom::fill(&mut buffer).ok()?;
    Some(buffer.iter().map(|b| format!("{b:02x}")).collect())
}
