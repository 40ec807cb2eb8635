//! Secrets that must never reach Debug output, errors or logs.

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

/// Replaces the value of every `oauth_token_secret` in a body kept for an error, so a token
/// endpoint's answer can be shown without its secret.
pub(crate) fn redact(body: &str) -> String {
    const NAME: &str = "oauth_token_secret";
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find(NAME) {
        let (before, after) = rest.split_at(at + NAME.len());
        out.push_str(before);
        // Skip `=value` or `": "value"` up to the next separator.
        let value_start = after
            .find(|c: char| !['=', '"', ':', ' '].contains(&c))
            .unwrap_or(after.len());
        out.push_str(&after[..value_start]);
        let value = &after[value_start..];
        let value_end = value
            .find(['&', '"', ',', '\n', '\r', ' ', '}'])
            .unwrap_or(value.len());
        if value_end > 0 {
            out.push_str("[redacted]");
        }
        rest = &value[value_end..];
    }
    out.push_str(rest);
    out
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
    fn redacts_token_secrets_in_form_and_json_bodies() {
        assert_eq!(
            redact("oauth_token=abc&oauth_token_secret=s3cr3t&x=1"),
            "oauth_token=abc&oauth_token_secret=[redacted]&x=1"
        );
        assert_eq!(
            redact(r#"{"oauth_token_secret": "s3cr3t", "a": 1}"#),
            r#"{"oauth_token_secret": "[redacted]", "a": 1}"#
        );
        assert_eq!(redact("no secrets here"), "no secrets here");
        assert_eq!(redact("oauth_token_secret="), "oauth_token_secret=");
    }
}
