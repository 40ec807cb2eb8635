//! Secrets that must never reach Debug output, errors, hooks, recordings or logs, and what
//! makes a name secret. Cleaning text of them is the scrubber's (`scrub/`).

use std::fmt;

use base64::Engine as _;
use reqwest::header::{HeaderMap, HeaderValue};
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
/// `oauth_signature_method` is not secret (it names the algorithm): a name ending in it holds
/// a secret only when another word comes before.
pub(crate) const SECRET_WORDS: [&str; 6] = [
    "secret",
    "password",
    "passwd",
    "privatekey",
    "oauthsignature",
    "oauthverifier",
];

/// Whether a byte separates the words of a name (`_`, `-`, `.`, a space, and `+`, a space as
/// a form or a URL's query writes it: `private+key`), left out when names are compared with
/// [`SECRET_WORDS`].
pub(crate) fn is_name_separator(byte: u8) -> bool {
    matches!(byte, b'_' | b'-' | b'.' | b' ' | b'+')
}

/// Whether `name` holds `word`: a few bytes in a name of a few dozen, compared at each place,
/// without the searcher `str::contains` builds for each (every header name a hook or a
/// recorder sees is asked this of every word).
fn contains_word(name: &[u8], word: &str) -> bool {
    name.windows(word.len())
        .any(|window| window == word.as_bytes())
}

/// `read` of `name` without its separators ([`is_name_separator`]), in ASCII lower case: on
/// the stack for a name of up to 64 bytes (every header name the recorder's writer checks).
fn with_normalized<R>(name: &[u8], read: impl FnOnce(&[u8]) -> R) -> R {
    let kept = name.iter().filter(|&&byte| !is_name_separator(byte));
    let mut stack = [0u8; 64];
    if name.len() <= stack.len() {
        let mut len = 0;
        for (slot, byte) in stack.iter_mut().zip(kept) {
            *slot = byte.to_ascii_lowercase();
            len += 1;
        }
        read(&stack[..len])
    } else {
        let heap: Vec<u8> = kept.map(u8::to_ascii_lowercase).collect();
        read(&heap)
    }
}

/// Whether a field, parameter or header of this name holds a secret (see [`SECRET_WORDS`]):
/// the scrubber's rule (`scrub/scan.rs`), `oauth_signature_method` exempt as there (the
/// algorithm's name, unless another secret word comes before it).
///
/// The name is read as it is and through up to three layers of percent escapes, as the
/// scrubber reads text (`pass%77ord`, `pass%2577ord`: `password`), so an escaped name hides no
/// secret word.
pub(crate) fn is_secret_name(name: &str) -> bool {
    is_secret_name_bytes(name.as_bytes())
}

/// [`is_secret_name`] of a name's bytes.
fn is_secret_name_bytes(name: &[u8]) -> bool {
    const SIGNATURE_METHOD: &str = "oauthsignaturemethod";
    const LAYERS: usize = 3;
    let holds_secret_word = |name: &[u8]| {
        with_normalized(name, |name| {
            let name = name
                .strip_suffix(SIGNATURE_METHOD.as_bytes())
                .unwrap_or(name);
            SECRET_WORDS.iter().any(|word| contains_word(name, word))
        })
    };
    let mut read = std::borrow::Cow::Borrowed(name);
    for _ in 0..=LAYERS {
        if holds_secret_word(&read) {
            return true;
        }
        if !read.contains(&b'%') {
            return false; // Nothing more to decode.
        }
        let decoded: Vec<u8> = percent_encoding::percent_decode(&read).collect();
        if decoded == *read {
            return false;
        }
        read = std::borrow::Cow::Owned(decoded);
    }
    false
}

/// Words that make a header carry a credential wherever they are in its name (ASCII case
/// ignored, separators left out as for [`SECRET_WORDS`]): `Authorization`,
/// `Proxy-Authorization`, `X-Auth-Token`, `Cookie`, `Set-Cookie`, `X-Api-Key`,
/// `Private-Token`, `X-Session-Id`, `X-CSRF-Token`, `X-Amz-Security-Token`, … A name that
/// merely resembles one (`X-Monkey-Id`) is treated as one too: over-redacting a header costs a
/// value in a log, missing one costs a credential.
const CREDENTIAL_HEADER_WORDS: [&str; 10] = [
    "auth",
    "cookie",
    "token",
    "key",
    "session",
    "credential",
    "signature",
    "jwt",
    "csrf",
    "xsrf",
];

/// The one rule of short secrets, in bytes. A known secret shorter than this (a token secret
/// `e` a hostile service handed out, an app's header value `1`) is removed only where it stands
/// alone, not inside a longer run of letters and digits (`scrub/known.rs`): each `e` of every
/// text removed would blank the errors the scrubber is meant to keep readable. A credential is
/// longer (API keys and tokens run to 16 characters and more). Where such a secret is named
/// (`oauth_token_secret=e`) it is removed by structure wherever it is. A spelling or a part
/// *derived* from a secret (its hexadecimal, a cookie's value, a callback's query component)
/// shorter than this is not looked for at all: the `1` of `consent=1` is not a secret.
pub(crate) const SHORT_SECRET: usize = 8;

/// Whether a header of this name carries a credential: a secret-named name
/// ([`is_secret_name`]) or one with a [`CREDENTIAL_HEADER_WORDS`] word in it.
pub(crate) fn is_credential_header(name: &str) -> bool {
    with_normalized(name.as_bytes(), |name| {
        is_secret_name_bytes(name)
            || CREDENTIAL_HEADER_WORDS
                .iter()
                .any(|word| contains_word(name, word))
    })
}

/// The rule for every header the app hands the client ([`CallOptions::header`], the
/// `CallOptions::headers` map, request hooks): a header carries a credential when its name says
/// so ([`is_credential_header`]) or the app marked its value sensitive. Such a value is marked
/// sensitive (so `http`'s `Debug` prints `Sensitive`, and HTTP/2 never indexes it), shown by
/// the client's own `Debug` as `[redacted]`, and a known secret of the calls that send it
/// ([`credential_values`]).
///
/// [`CallOptions::header`]: crate::CallOptions::header
pub(crate) fn carries_credential(name: &str, value: &HeaderValue) -> bool {
    value.is_sensitive() || is_credential_header(name)
}

/// Marks every credential header of `headers` sensitive (see [`carries_credential`]).
pub(crate) fn mark_credential_headers(headers: &mut HeaderMap) {
    for (name, value) in headers.iter_mut() {
        if carries_credential(name.as_str(), value) {
            value.set_sensitive(true);
        }
    }
}

/// Known secrets found in a credential the app handed the client: the value itself at any
/// length (a short one by the rule of [`SHORT_SECRET`]), and the parts derived from it of at
/// least [`SHORT_SECRET`] bytes, each as written and percent-decoded (a service echoes what its
/// framework decoded), without surrounding white space and quotes.
#[derive(Default)]
struct Credentials(Vec<String>);

impl Credentials {
    fn add(&mut self, value: &str, derived: bool) {
        let value = value.trim().trim_matches('"');
        let decoded = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        for value in [value, &decoded] {
            let long_enough = !value.is_empty() && (!derived || value.len() >= SHORT_SECRET);
            if long_enough && !self.0.iter().any(|held| held == value) {
                self.0.push(value.to_owned());
            }
        }
    }

    /// `text`'s parts split at `separators`, each whole and its name and value (`name=value`).
    fn add_components(&mut self, text: &str, separators: &[char]) {
        for component in text.split(separators) {
            self.add(component, true);
            if let Some((name, value)) = component.split_once('=') {
                self.add(name, true);
                self.add(value, true);
            }
        }
    }
}

/// The bytes `Basic` credentials spell, read as leniently as servers read them: either base64
/// alphabet, padded or not.
fn basic_credentials(encoded: &str) -> Option<String> {
    use base64::alphabet::{STANDARD, URL_SAFE};
    use base64::engine::DecodePaddingMode;
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let encoded = encoded.trim();
    [STANDARD, URL_SAFE]
        .iter()
        .find_map(|alphabet| GeneralPurpose::new(alphabet, config).decode(encoded).ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// What of the credential headers in `headers` a scrubber looks for, by value, in everything
/// the service sends back: each value, and the parts a service could echo alone (the
/// credentials after an auth scheme, `user:password` of `Basic` in any base64 spelling and
/// each of them, each cookie and `name="value"` parameter), each as written and decoded (see
/// [`SHORT_SECRET`] for which are looked for).
pub(crate) fn credential_values(headers: &HeaderMap) -> Vec<String> {
    let mut values = Credentials::default();
    for (name, value) in headers {
        if !carries_credential(name.as_str(), value) {
            continue;
        }
        let value = String::from_utf8_lossy(value.as_bytes());
        values.add(&value, false);
        // Bytes that are not UTF-8 (`HeaderValue::from_bytes` takes them) come back as they
        // were, which the text above (U+FFFD in their place) does not match: each run of text
        // between them is a secret too.
        if value.contains(char::REPLACEMENT_CHARACTER) {
            for piece in value.split(char::REPLACEMENT_CHARACTER) {
                values.add(piece, true);
            }
        }
        // `Bearer abc`, `Basic dXNlcjpwYXNz`, `basic  dXNlcjpwYXNz`, `Token token="abc"`.
        if let Some((scheme, credentials)) = value.trim().split_once(' ') {
            values.add(credentials, true);
            if scheme.eq_ignore_ascii_case("basic") {
                if let Some(decoded) = basic_credentials(credentials) {
                    values.add(&decoded, true);
                    if let Some((user, password)) = decoded.split_once(':') {
                        values.add(user, true);
                        values.add(password, true);
                    }
                }
            }
        }
        // `session=abc; theme=dark`, `realm="x", key="abc"`.
        for part in value.split([';', ',']) {
            if let Some((_, part_value)) = part.split_once('=') {
                values.add(part_value, true);
            }
        }
    }
    values.0
}

/// The values of a callback URL that the client counts among the app's secrets: its query and
/// fragment, whole, and each of their components, its name and its value, as written and
/// decoded (SECURITY.md, the table of credentials). The
/// client removes them from every text of the request-token call that sent the callback; an
/// app (or a server that received the callback, such as the fake marketplace) removes them
/// from its own texts with [`redact`](crate::redact). None for a text that is not a URL.
///
/// ```
/// use marketplace_client::{callback_secrets, redact};
///
/// let secrets = callback_secrets("https://app.example/cb?session=4f1c9a0b77e2");
/// let secrets: Vec<_> = secrets.iter().collect();
/// let cleaned = redact("back at cb?session=4f1c9a0b77e2", &secrets);
/// assert!(!cleaned.contains("4f1c9a0b77e2"));
/// ```
pub fn callback_secrets(callback: &str) -> Vec<Secret> {
    callback_credentials(callback)
        .into_iter()
        .map(Secret::new)
        .collect()
}

/// What of a callback the app sends is a secret of the call that sends it (the service could
/// echo it back): every component of its query and of its fragment (split at `&` and `;`),
/// whole, its name and its value (a bare `?T0K3N`, a credential as a parameter's name, an
/// app's `state`), and the query and the fragment whole, each as written and decoded (see
/// [`SHORT_SECRET`] for which are looked for).
pub(crate) fn callback_credentials(callback: &str) -> Vec<String> {
    let Ok(url) = url::Url::parse(callback) else {
        return Vec::new();
    };
    let mut values = Credentials::default();
    for part in [url.query(), url.fragment()].into_iter().flatten() {
        values.add(part, true);
        values.add_components(part, &['&', ';']);
    }
    values.0
}

/// Headers as the client's own `Debug` shows them: the value of a credential header (see
/// [`carries_credential`]) as `[redacted]`, others as they are.
pub(crate) struct DebugHeaders<'a>(pub(crate) &'a HeaderMap);

impl fmt::Debug for DebugHeaders<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (name, value) in self.0 {
            if carries_credential(name.as_str(), value) {
                map.entry(&name.as_str(), &format_args!("{REDACTED}"));
            } else {
                map.entry(&name.as_str(), value);
            }
        }
        map.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderName;

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
            "oauth_signature_methods",
            "client_secret_oauth_signature_method",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "oauth_token",
            "signature",
            "key",
            "id",
            "oauth_signature_method",
            "OAuth-Signature-Method",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    proptest::proptest! {
        /// A secret word behind one to three layers of percent escapes, any of its bytes
        /// escaped in each layer, in any case and with anything around it, is still a secret
        /// name: each layer is read as the scrubber reads text.
        #[test]
        fn a_secret_word_behind_percent_escapes_is_a_secret_name(
            word in proptest::sample::select(SECRET_WORDS.to_vec()),
            layers in proptest::collection::vec(proptest::collection::vec(proptest::bool::ANY, 16), 1..=3),
            before in "[a-z_]{0,4}",
            after in "[a-z_]{0,4}",
            upper in proptest::bool::ANY,
        ) {
            let word = if upper { word.to_ascii_uppercase() } else { word.to_owned() };
            let mut name = format!("{before}{word}{after}");
            for escaped in &layers {
                name = name
                    .bytes()
                    .enumerate()
                    .map(|(index, byte)| {
                        if escaped[index % escaped.len()] || byte == b'%' {
                            format!("%{byte:02X}")
                        } else {
                            char::from(byte).to_string()
                        }
                    })
                    .collect();
            }
            proptest::prop_assert!(is_secret_name(&name), "{name}");
        }
    }

    #[test]
    fn credential_headers_are_known_by_name_or_mark() {
        for name in [
            "authorization",
            "Proxy-Authorization",
            "cookie",
            "set-cookie",
            "x-api-key",
            "X-Auth-Token",
            "private-token",
            "x-csrf-token",
            "x-session-id",
            "x-amz-security-token",
            "x-client-secret",
            "x-oauth-verifier",
        ] {
            assert!(is_credential_header(name), "{name}");
        }
        for name in [
            "x-trace-id",
            "accept",
            "content-type",
            "user-agent",
            "x-request-id",
        ] {
            assert!(!is_credential_header(name), "{name}");
        }
        let mut marked = HeaderValue::from_static("hunter2hunter2");
        marked.set_sensitive(true);
        assert!(carries_credential("x-custom", &marked));
    }

    #[test]
    fn a_credential_header_is_marked_and_its_echoable_parts_known() {
        let mut headers = HeaderMap::new();
        let basic = base64::engine::general_purpose::STANDARD.encode("someuser:hunter2hunter2");
        headers.insert(
            HeaderName::from_static("proxy-authorization"),
            HeaderValue::from_str(&format!("Basic {basic}")).unwrap(),
        );
        headers.insert(
            HeaderName::from_static("cookie"),
            HeaderValue::from_static("theme=dark; session=s3ss10nvalue"),
        );
        headers.insert(
            HeaderName::from_static("x-api-key"),
            HeaderValue::from_static("1"),
        );
        headers.insert(
            HeaderName::from_static("x-trace-id"),
            HeaderValue::from_static("4bf92f3577b34da6"),
        );
        mark_credential_headers(&mut headers);
        assert!(headers["proxy-authorization"].is_sensitive());
        assert!(headers["x-api-key"].is_sensitive());
        assert!(!headers["x-trace-id"].is_sensitive());
        let values = credential_values(&headers);
        for part in [
            basic.as_str(),
            "someuser:hunter2hunter2",
            "hunter2hunter2",
            "s3ss10nvalue",
        ] {
            assert!(
                values.iter().any(|value| value == part),
                "{part}: {values:?}"
            );
        }
        // A value given is looked for at any length (`1`: where it stands alone); a part
        // derived from one only at 8 bytes and more (not "dark"); not a credential header's
        // (the trace id).
        assert!(values.iter().any(|value| value == "1"));
        assert!(!values.iter().any(|value| value == "dark"));
        assert!(!values.iter().any(|value| value.contains("4bf92f")));
        let shown = format!("{:?}", DebugHeaders(&headers));
        assert!(
            !shown.contains("s3ss10n") && !shown.contains(&basic),
            "{shown}"
        );
        assert!(shown.contains("4bf92f3577b34da6"), "{shown}");
    }

    #[test]
    fn basic_in_any_base64_spelling_and_decoded_parts_are_known() {
        use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE};
        let pair = "dana:pa?>ss~word01";
        for value in [
            format!("basic {}", STANDARD_NO_PAD.encode(pair)),
            format!("Basic  {}", URL_SAFE.encode(pair)),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert("authorization", HeaderValue::from_str(&value).unwrap());
            let values = credential_values(&headers);
            assert!(
                values.iter().any(|v| v == "pa?>ss~word01"),
                "{value}: {values:?}"
            );
        }
        let mut headers = HeaderMap::new();
        headers.insert("cookie", HeaderValue::from_static("sid=abc%2Bdef%3D%3Dghi"));
        let values = credential_values(&headers);
        assert!(values.iter().any(|v| v == "abc+def==ghi"), "{values:?}");
    }

    #[test]
    fn every_component_of_a_callbacks_query_and_fragment_is_known() {
        let values = callback_credentials(
            "https://app.example/cb?T0K3N-bare-value&state=s7a7e-v4lue;n4me-as-credential=1#fr4gment-t0ken",
        );
        for part in [
            "T0K3N-bare-value",
            "s7a7e-v4lue",
            "n4me-as-credential=1",
            "n4me-as-credential",
            "fr4gment-t0ken",
        ] {
            assert!(values.iter().any(|v| v == part), "{part}: {values:?}");
        }
        // Derived parts shorter than a short secret are not looked for.
        assert!(
            !values.iter().any(|v| v == "state" || v == "1"),
            "{values:?}"
        );
    }
}
