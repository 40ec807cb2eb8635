//! Secrets that must never reach Debug output, errors or logs, and how text kept for an error is
//! cleaned of them.
//!
//! Redaction works on structure: a JSON body is redacted as parsed JSON (keys and strings after
//! unescaping, at any depth) and a form body as decoded pairs, before any text is kept. Only
//! bodies that are neither (HTML, plain text) get the text pass, which finds `name=value` and
//! `"name": "value"` by the name. Last, the client's own secrets (the consumer secret and the
//! token secret in use) are scrubbed by value from every kept text, written raw,
//! percent-encoded, form-encoded, JSON-escaped or HTML-escaped.

use std::fmt;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// Whether a field or parameter of this name holds a secret: any name with `secret` or
/// `password` in it, and the OAuth values that prove possession of one (`oauth_signature`,
/// `oauth_verifier`). Compared without regard to ASCII case.
pub(crate) fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("secret")
        || name.contains("password")
        || name == "oauth_signature"
        || name == "oauth_verifier"
}

/// The secrets the client holds for one call: the consumer secret and the token secret in use.
/// Empty ones are ignored.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KnownSecrets<'a> {
    values: [&'a str; 2],
}

impl<'a> KnownSecrets<'a> {
    /// No secret known (for bodies read outside a call).
    pub(crate) const NONE: KnownSecrets<'static> = KnownSecrets { values: ["", ""] };

    pub(crate) fn new(consumer_secret: &'a str, token_secret: &'a str) -> Self {
        KnownSecrets {
            values: [consumer_secret, token_secret],
        }
    }

    fn values(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.values
            .iter()
            .copied()
            .filter(|value| !value.is_empty())
    }

    /// `text` with every known secret replaced, if it holds one (for unescaped strings of a
    /// parsed body).
    fn replace_raw(&self, text: &str) -> Option<String> {
        let mut out: Option<String> = None;
        for secret in self.values() {
            let current = out.as_deref().unwrap_or(text);
            if current.contains(secret) {
                out = Some(current.replace(secret, REDACTED));
            }
        }
        out
    }

    /// `text` with every known secret replaced in each of its usual encodings (for kept text).
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut forms: Vec<String> = self.values().flat_map(encodings).collect();
        // Longest first, so a short form never breaks up a longer one that contains it.
        forms.sort_by_key(|form| std::cmp::Reverse(form.len()));
        forms.dedup();
        let mut out = text.to_owned();
        for form in forms {
            if out.contains(&form) {
                out = out.replace(&form, REDACTED);
            }
        }
        out
    }
}

/// Characters RFC 3986 leaves unencoded (the OAuth encoding).
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A secret as it may be written in a body or a URL: raw, percent-encoded (RFC 3986 and form
/// encoding, upper- and lower-case hex), JSON-escaped and HTML-escaped.
fn encodings(secret: &str) -> Vec<String> {
    let percent = utf8_percent_encode(secret, UNRESERVED).to_string();
    let form: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    let json = serde_json::to_string(secret).unwrap_or_default();
    let json = json
        .strip_prefix('"')
        .and_then(|json| json.strip_suffix('"'))
        .unwrap_or_default()
        .to_owned();
    let html = secret
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;");
    let lower = |encoded: &str| lower_hex_escapes(encoded);
    let mut forms = vec![
        secret.to_owned(),
        lower(&percent),
        lower(&form),
        percent,
        form,
        json,
        html,
    ];
    forms.retain(|form| !form.is_empty());
    forms
}

/// `%2F` -> `%2f`: the same escape with lower-case hex digits.
fn lower_hex_escapes(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut after_percent = 0;
    for c in encoded.chars() {
        if after_percent > 0 {
            out.push(c.to_ascii_lowercase());
            after_percent -= 1;
        } else {
            out.push(c);
            if c == '%' {
                after_percent = 2;
            }
        }
    }
    out
}

/// Removes secrets from a parsed JSON value, at any depth: the value of every secret-named key
/// (keys are compared after unescaping, which parsing did), and every known secret inside any
/// key or string. A number that spells a known secret is replaced too. Returns whether anything
/// changed.
pub(crate) fn redact_json(value: &mut Value, known: &KnownSecrets<'_>) -> bool {
    match value {
        Value::Object(object) => {
            let mut changed = false;
            let renamed: Vec<(String, String)> = object
                .keys()
                .filter_map(|key| known.replace_raw(key).map(|new| (key.clone(), new)))
                .collect();
            for (old, new) in renamed {
                if let Some(moved) = object.remove(&old) {
                    object.insert(new, moved);
                    changed = true;
                }
            }
            for (key, nested) in object.iter_mut() {
                changed |= if is_secret_name(key) {
                    redact_value(nested)
                } else {
                    redact_json(nested, known)
                };
            }
            changed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| redact_json(item, known) | changed),
        Value::String(text) => match known.replace_raw(text) {
            Some(clean) => {
                *text = clean;
                true
            }
            None => false,
        },
        Value::Number(number) => {
            let written = number.to_string();
            if known.replace_raw(&written).is_some() {
                *value = Value::from(REDACTED);
                return true;
            }
            false
        }
        Value::Bool(_) | Value::Null => false,
    }
}

/// Replaces a secret-named value, whatever its type; an empty one (nothing to hide) stays.
fn redact_value(value: &mut Value) -> bool {
    let empty = match &*value {
        Value::Null => true,
        Value::String(text) => text.is_empty() || text == REDACTED,
        _ => false,
    };
    if !empty {
        *value = Value::from(REDACTED);
    }
    !empty
}

/// Removes secrets from decoded form pairs: the value of every secret-named pair, and every
/// known secret inside any name or value. Returns whether anything changed.
pub(crate) fn redact_pairs(pairs: &mut [(String, String)], known: &KnownSecrets<'_>) -> bool {
    let mut changed = false;
    for (name, value) in pairs.iter_mut() {
        if let Some(clean) = known.replace_raw(name) {
            *name = clean;
            changed = true;
        }
        if is_secret_name(name) {
            if !value.is_empty() && value != REDACTED {
                *value = REDACTED.to_owned();
                changed = true;
            }
        } else if let Some(clean) = known.replace_raw(value) {
            *value = clean;
            changed = true;
        }
    }
    changed
}

/// Form-encodes redacted pairs, writing the redaction marker readably.
pub(crate) fn form_text(pairs: &[(String, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
        .replace("%5Bredacted%5D", REDACTED)
}

/// The text pass, for bodies that are neither JSON nor form pairs (HTML, plain text, broken
/// JSON): after every secret name followed by `=` or `:` (quoted or not), the value is removed;
/// a quoted value up to its closing quote, an unquoted one up to a separator. Then the known
/// secrets are scrubbed.
pub(crate) fn redact_text(text: &str, known: &KnownSecrets<'_>) -> String {
    known.scrub(&redact_named_values(text))
}

/// Words that start a secret name in text; the name runs on over `[A-Za-z0-9_-]`.
const SECRET_WORDS: [&str; 4] = ["secret", "password", "oauth_signature", "oauth_verifier"];

fn redact_named_values(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some((start, word)) = SECRET_WORDS
        .iter()
        .filter_map(|word| lower[at..].find(word).map(|found| (at + found, *word)))
        .min()
    {
        let name_end = start
            + word.len()
            + text[start + word.len()..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(text.len() - start - word.len());
        at = name_end;
        let Some(value) = value_after(text, name_end) else {
            continue;
        };
        if value.is_empty() {
            continue;
        }
        out.push_str(&text[copied..value.start]);
        out.push_str(REDACTED);
        copied = value.end;
        at = value.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Where the value after a name ends up: past a closing quote, `=` or `:`, spaces and an
/// opening quote. `None` when the name is not followed by `=` or `:` (prose, not a pair).
fn value_after(text: &str, name_end: usize) -> Option<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut i = name_end;
    if matches!(bytes.get(i), Some(b'"' | b'\'')) {
        i += 1;
    }
    while bytes.get(i) == Some(&b' ') {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b'=' | b':')) {
        return None;
    }
    i += 1;
    while bytes.get(i) == Some(&b' ') {
        i += 1;
    }
    let quote = match bytes.get(i) {
        Some(&quote @ (b'"' | b'\'')) => {
            i += 1;
            Some(quote)
        }
        _ => None,
    };
    let start = i;
    let mut escaped = false;
    while let Some(&b) = bytes.get(i) {
        let ends = match quote {
            Some(quote) => !escaped && b == quote,
            None => {
                b.is_ascii_whitespace()
                    || matches!(
                        b,
                        b'&' | b'"' | b'\'' | b'<' | b'>' | b',' | b';' | b'}' | b']'
                    )
            }
        };
        if ends {
            break;
        }
        escaped = quote.is_some() && !escaped && b == b'\\';
        i += 1;
    }
    // `i` stops on an ASCII byte or at the end, so it is a character boundary.
    Some(start..i)
}

/// A URL (a redirect's `Location`) fit to keep: the values of its OAuth and secret-named query
/// parameters and any password in it are removed, then the known secrets are scrubbed. Text
/// that is not a URL gets the text pass.
pub(crate) fn redact_url(location: &str, known: &KnownSecrets<'_>) -> String {
    let Ok(mut url) = url::Url::parse(location) else {
        return redact_text(location, known);
    };
    if url.password().is_some() {
        // Only fails for URLs that cannot have credentials, which have no password either.
        let _ = url.set_password(Some(REDACTED));
    }
    if url.query().is_some() {
        let mut pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        for (name, value) in &mut pairs {
            if (name.starts_with("oauth_") || is_secret_name(name)) && !value.is_empty() {
                *value = REDACTED.to_owned();
            }
        }
        redact_pairs(&mut pairs, known);
        url.set_query(Some(&form_text(&pairs)));
    }
    known.scrub(&url.as_str().replace("%5Bredacted%5D", REDACTED))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: KnownSecrets<'static> = KnownSecrets {
        values: ["c0nsumer&secret", ""],
    };

    #[test]
    fn debug_never_shows_a_secret() {
        let consumer = ConsumerCredentials::new("key", "hunter2");
        let shown = format!("{consumer:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("key"));
    }

    #[test]
    fn json_is_redacted_by_key_at_any_depth_after_unescaping() {
        let mut value: Value = serde_json::from_str(
            r#"{"a": {"b": [{"oauth\u005ftoken_secret": "s\u0033cret"}]}, "Client_Secret": 7,
                "empty_secret": "", "message": "c0nsumer&secret is wrong", "n": 1}"#,
        )
        .unwrap();
        assert!(redact_json(&mut value, &KNOWN));
        assert_eq!(
            value,
            serde_json::json!({"a": {"b": [{"oauth_token_secret": "[redacted]"}]},
                "Client_Secret": "[redacted]", "empty_secret": "",
                "message": "[redacted] is wrong", "n": 1})
        );
        let mut clean = serde_json::json!({"error": {"code": "E_X"}});
        assert!(!redact_json(&mut clean, &KNOWN));
    }

    #[test]
    fn form_pairs_are_redacted_after_decoding() {
        let mut pairs: Vec<(String, String)> =
            url::form_urlencoded::parse(b"oauth_token=t&oauth%5Ftoken_secret=a%26b%20c+d&x=1")
                .into_owned()
                .collect();
        assert!(redact_pairs(&mut pairs, &KNOWN));
        assert_eq!(
            form_text(&pairs),
            "oauth_token=t&oauth_token_secret=[redacted]&x=1"
        );
    }

    #[test]
    fn text_bodies_lose_named_values_whole() {
        assert_eq!(
            redact_text(
                "<p>oauth_token_secret=a%26b c</p> and \"secret\": \"x y\\\" z\", ok",
                &KNOWN
            ),
            "<p>oauth_token_secret=[redacted] c</p> and \"secret\": \"[redacted]\", ok"
        );
        assert_eq!(
            redact_text("the secret was wrong", &KNOWN),
            "the secret was wrong"
        );
        assert_eq!(
            redact_text("oauth_token_secret=", &KNOWN),
            "oauth_token_secret="
        );
    }

    #[test]
    fn known_secrets_are_scrubbed_in_every_encoding() {
        for written in [
            "c0nsumer&secret",
            "c0nsumer%26secret",
            "c0nsumer&amp;secret",
        ] {
            let scrubbed = KNOWN.scrub(&format!("before {written} after"));
            assert_eq!(scrubbed, "before [redacted] after", "{written}");
        }
        let spaced = KnownSecrets::new("a b/c", "");
        for written in ["a%20b%2Fc", "a+b%2Fc", "a+b%2fc", "a%20b%2fc"] {
            assert_eq!(spaced.scrub(written), REDACTED, "{written}");
        }
        assert_eq!(KnownSecrets::NONE.scrub("nothing"), "nothing");
    }

    #[test]
    fn locations_lose_oauth_values_and_passwords() {
        assert_eq!(
            redact_url(
                "https://user:pw@evil.example/cb?oauth_token=t&oauth_verifier=v&keep=1",
                &KNOWN
            ),
            "https://user:[redacted]@evil.example/cb?oauth_token=[redacted]&oauth_verifier=[redacted]&keep=1"
        );
        assert_eq!(
            redact_url("/relative?password=x", &KNOWN),
            "/relative?password=[redacted]"
        );
    }
}
