//! Secrets that must never reach Debug output, errors, hooks, recordings or logs, and what
//! makes a name secret. Cleaning text of them is the scrubber's (`scrub/`).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A secret string (consumer secret, token secret). `Debug` prints `Secret([redacted])`; there
/// is no `Display`. Serialization writes the value, so apps can persist tokens; keep the
/// serialized form where you keep other credentials.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value, for signing.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// The application's credentials: the developer API key (sent as `oauth_consumer_key`) and the
/// consumer secret that signs every request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsumerCredentials {
    /// The developer API key.
    pub key: String,
    /// The consumer secret.
    pub secret: Secret,
}

impl ConsumerCredentials {
    /// Credentials from a key and a secret.
    pub fn new(key: impl Into<String>, secret: impl Into<String>) -> Self {
        ConsumerCredentials {
            key: key.into(),
            secret: Secret::new(secret),
        }
    }
}

/// What a removed value is replaced with.
pub(crate) const REDACTED: &str = "[redacted]";

/// Words that make a name secret wherever they are in it, ASCII case ignored and the
/// separators `_`, `-`, `.` and space left out (`oauth_verifier`, `X-OAuth-Verifier`,
/// `oauthVerifier` and `OAUTH VERIFIER` are one name): the value of a field, parameter, header
/// or pair so named is removed from everything kept. `secret` covers `oauth_token_secret` and
/// `client_secret`; `oauth_signature` and `oauth_verifier` prove possession of a secret.
pub(crate) const SECRET_WORDS: [&str; 6] = [
    "secret",
    "password",
    "passwd",
    "privatekey",
    "oauthsignature",
    "oauthverifier",
];

/// Whether a byte separates the words of a name (`_`, `-`, `.`, a space), left out when names
/// are compared with [`SECRET_WORDS`].
pub(crate) fn is_name_separator(byte: u8) -> bool {
    matches!(byte, b'_' | b'-' | b'.' | b' ')
}

/// Whether a field, parameter or header of this name holds a secret (see [`SECRET_WORDS`]).
pub(crate) fn is_secret_name(name: &str) -> bool {
    let name: String = name
        .bytes()
        .filter(|&byte| !is_name_separator(byte))
        .map(|byte| char::from(byte.to_ascii_lowercase()))
        .collect();
    SECRET_WORDS.iter().any(|word| name.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_a_secret() {
        let consumer = ConsumerCredentials::new("key", "hunter2");
        let shown = format!("{consumer:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("key"));
    }

    #[test]
    fn secret_names_are_found_whatever_their_case_and_place() {
        for name in [
            "oauth_token_secret",
            "Client_Secret",
            "PASSWORD",
            "db_passwd",
            "oauth_signature",
            "oauth_verifier",
            "x-oauth-verifier",
            "oauthSignature",
            "private_key_pem",
            "Private Key",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["oauth_token", "signature", "key", "id"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }
}
