//! OAuth 1.0a request signing (RFC 5849), HMAC-SHA1 only.
//!
//! [`authorization_header`] signs a request and renders the `Authorization: OAuth ...` header
//! value (sections 3.4 and 3.5.1); [`base_string`](fn@base_string) returns the signature base
//! string it signs (section 3.4.1), for tests and debugging, and [`sign`] signs a given base
//! string (section 3.4.2). [`nonce`] draws a fresh nonce from the OS random source;
//! [`parse_authorization_header`] reads a header back.
//!
//! A request to sign is a [`SignatureRequest`] (the query is read back from the URL) or, on
//! the client's own path, a [`PairsRequest`] (the query parameters as the pairs the URL was
//! built from). Signing streams the base string into the HMAC as it is produced: the
//! parameters are sorted by their encoded form without being encoded, and each is encoded
//! twice on its way into the hash; [`base_string`](fn@base_string) runs the very same writer
//! into a `String`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;

use hmac::Hmac;
use percent_encoding::percent_decode_str;
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use sha1::Sha1;

use super::base_string::{self, Decimal, MacSink, ProtocolParam};
use super::percent::{Pair, Sink, Times, cmp_pair, is_unreserved};

/// The only signature method this module implements.
const SIGNATURE_METHOD: &str = "HMAC-SHA1";

/// RFC 3986 percent-encoding over the unreserved set (ALPHA / DIGIT / "-" / "." / "_" / "~"),
/// upper-case hex, as RFC 5849 section 3.6 requires.
///
/// Every other byte of the UTF-8 encoding is written as `%XX`; a space becomes `%20`, never
/// `+`. Borrows the input when nothing needs encoding.
pub fn percent_encode(text: &str) -> Cow<'_, str> {
    if text.bytes().all(is_unreserved) {
        Cow::Borrowed(text)
    } else {
        let mut out = Vec::with_capacity(text.len() * 3);
        out.put_encoded(text.as_bytes(), Times::Once);
        Cow::Owned(ascii_string(out))
    }
}

/// The OAuth protocol parameters of one request (everything but `oauth_signature`).
///
/// `oauth_signature_method` is always `HMAC-SHA1` and is not a field.
#[derive(Clone, Debug)] // Debug is harmless: this holds no secret.
pub struct OAuthParams<'a> {
    /// `oauth_consumer_key`: the client identifier.
    pub consumer_key: &'a str,
    /// `oauth_token`. `None`: no oauth_token parameter at all; `Some("")`: sent blank (the
    /// marketplace's request-token call requires a blank oauth_token).
    pub token: Option<&'a str>,
    /// `oauth_nonce`: unique per timestamp, see [`nonce`].
    pub nonce: &'a str,
    /// `oauth_timestamp`: seconds since the Unix epoch.
    pub timestamp: i64,
    /// `oauth_callback`, sent only when given (the temporary-credentials request).
    pub callback: Option<&'a str>,
    /// `oauth_verifier`, sent only when given (the token request).
    pub verifier: Option<&'a str>,
    /// `oauth_version`: `Some("1.0")` normally; `None` to omit it (the RFC's examples omit it).
    pub version: Option<&'a str>,
}

/// The protocol parameters a request sends, in name order, without the signature.
struct Protocol<'a> {
    params: [ProtocolParam<'a>; 8],
    len: usize,
    /// Where `oauth_signature` goes among them in the header.
    signature_at: usize,
}

impl<'a> Protocol<'a> {
    fn new(oauth: &OAuthParams<'a>, timestamp: &'a [u8]) -> Self {
        use base_string::{
            CALLBACK, CONSUMER_KEY, NONCE, SIGNATURE_METHOD as METHOD, TIMESTAMP, TOKEN, VERIFIER,
            VERSION,
        };
        let mut protocol = Protocol {
            params: [ProtocolParam::new(&METHOD, b""); 8],
            len: 0,
            signature_at: 0,
        };
        protocol.push(&CALLBACK, oauth.callback.map(str::as_bytes));
        protocol.push(&CONSUMER_KEY, Some(oauth.consumer_key.as_bytes()));
        protocol.push(&NONCE, Some(oauth.nonce.as_bytes()));
        protocol.signature_at = protocol.len;
        protocol.push(&METHOD, Some(SIGNATURE_METHOD.as_bytes()));
        protocol.push(&TIMESTAMP, Some(timestamp));
        protocol.push(&TOKEN, oauth.token.map(str::as_bytes));
        protocol.push(&VERIFIER, oauth.verifier.map(str::as_bytes));
        protocol.push(&VERSION, oauth.version.map(str::as_bytes));
        protocol
    }

    fn push(&mut self, name: &'static base_string::ProtocolName, value: Option<&'a [u8]>) {
        if let Some(value) = value {
            self.params[self.len] = ProtocolParam::new(name, value);
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[ProtocolParam<'a>] {
        &self.params[..self.len]
    }
}

/// The secrets a signature is keyed with: the consumer secret and the token secret (empty for
/// the request-token call).
///
/// Its `Debug` output shows no secret.
#[derive(Clone, Copy)]
pub struct SigningKey<'a> {
    /// The consumer (client) secret.
    pub consumer_secret: &'a str,
    /// The token secret; empty when there is no token yet.
    pub token_secret: &'a str,
}

impl fmt::Debug for SigningKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("consumer_secret", &"<redacted>")
            .field("token_secret", &"<redacted>")
            .finish()
    }
}

/// A request to sign: method, URL (its query string is part of the signed parameters), and the
/// form-encoded body parameters (already decoded name/value pairs; empty for GET or for a POST
/// without a form body).
#[derive(Clone, Copy, Debug)]
pub struct SignatureRequest<'a> {
    /// The HTTP method, in any case (it is upper-cased for signing).
    pub method: &'a str,
    /// The request URL, query string included.
    pub url: &'a url::Url,
    /// The decoded `application/x-www-form-urlencoded` body parameters, in any order.
    pub form: &'a [(String, String)],
}

/// A request to sign whose query parameters are given as the decoded pairs its URL's query was
/// built from (as `Url::query_pairs_mut().extend_pairs(query)` builds it), so that signing
/// need not parse the query back out of the URL. This is how the client signs its calls.
///
/// # Panics
///
/// In debug builds, signing panics if `url`'s query does not decode to exactly `query`: the
/// signature would not match the request sent.
#[derive(Clone, Copy, Debug)]
pub struct PairsRequest<'a, N, V> {
    /// The HTTP method, in any case (it is upper-cased for signing).
    pub method: &'a str,
    /// The request URL; its query must be `query`, encoded.
    pub url: &'a url::Url,
    /// The query parameters (decoded name/value pairs), in the URL's order or any other.
    pub query: &'a [(N, V)],
}

/// A request [`base_string`](fn@base_string) and [`authorization_header`] can sign: [`SignatureRequest`] or
/// [`PairsRequest`].
pub trait Signable: sealed::RequestParts {}

impl Signable for SignatureRequest<'_> {}

impl<N: AsRef<str>, V: AsRef<str>> Signable for PairsRequest<'_, N, V> {}

mod sealed {
    /// What signing reads from a request.
    pub trait RequestParts {
        fn method(&self) -> &str;
        fn url(&self) -> &url::Url;
        /// Calls `f` with the request's own parameters (query and form, decoded), without
        /// `oauth_signature`, in the base string's order.
        fn with_sorted_params<T>(&self, f: impl FnOnce(&[super::Pair<'_>]) -> T) -> T;
    }
}

impl sealed::RequestParts for SignatureRequest<'_> {
    fn method(&self) -> &str {
        self.method
    }

    fn url(&self) -> &url::Url {
        self.url
    }

    fn with_sorted_params<T>(&self, f: impl FnOnce(&[Pair<'_>]) -> T) -> T {
        let query: Vec<(Cow<'_, str>, Cow<'_, str>)> = self.url.query_pairs().collect();
        let pairs = query
            .iter()
            .map(|(name, value)| (name.as_bytes(), value.as_bytes()));
        let form = self
            .form
            .iter()
            .map(|(name, value)| (name.as_bytes(), value.as_bytes()));
        sorted_params(pairs.chain(form), f)
    }
}

impl<N: AsRef<str>, V: AsRef<str>> sealed::RequestParts for PairsRequest<'_, N, V> {
    fn method(&self) -> &str {
        self.method
    }

    fn url(&self) -> &url::Url {
        self.url
    }

    fn with_sorted_params<T>(&self, f: impl FnOnce(&[Pair<'_>]) -> T) -> T {
        let pairs = self
            .query
            .iter()
            .map(|(name, value)| (name.as_ref(), value.as_ref()));
        debug_assert!(
            self.url.query_pairs().eq(pairs
                .clone()
                .map(|(n, v)| (Cow::Borrowed(n), Cow::Borrowed(v)))),
            "the URL's query is not the query pairs signed: {}",
            self.url
        );
        sorted_params(
            pairs.map(|(name, value)| (name.as_bytes(), value.as_bytes())),
            f,
        )
    }
}

/// Sorts the parameters (without `oauth_signature`) on the stack when there are few, as a data
/// call has, and calls `f` with them.
fn sorted_params<'p, T>(
    pairs: impl Iterator<Item = Pair<'p>>,
    f: impl FnOnce(&[Pair<'_>]) -> T,
) -> T {
    const INLINE: usize = 8;
    let mut inline: [Pair<'p>; INLINE] = [(b"", b""); INLINE];
    let mut len = 0;
    let mut spilled = Vec::new();
    for pair in pairs.filter(|(name, _)| *name != b"oauth_signature") {
        match inline.get_mut(len).filter(|_| spilled.is_empty()) {
            Some(slot) => {
                *slot = pair;
                len += 1;
            }
            None => {
                if spilled.is_empty() {
                    spilled.extend_from_slice(&inline);
                }
                spilled.push(pair);
            }
        }
    }
    let params = if spilled.is_empty() {
        &mut inline[..len]
    } else {
        &mut spilled[..]
    };
    // Equal in this order means equal text, so an unstable sort loses nothing.
    params.sort_unstable_by(cmp_pair);
    f(params)
}

/// Text this module wrote, which is ASCII by construction (percent-encoded values, constant
/// names and punctuation).
fn ascii_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

/// The signature base string (RFC 5849 section 3.4.1): upper-case method, '&', encoded base
/// string URI (scheme and host lower-cased, default port 80 for http / 443 for https dropped,
/// path kept, query and fragment removed), '&', encoded normalized parameters (query parameters
/// decoded from the URL with application/x-www-form-urlencoded rules, form parameters, oauth
/// parameters; realm and oauth_signature excluded; each name and value percent-encoded, sorted
/// by encoded name then encoded value, duplicates kept, joined name=value with '&').
///
/// An `oauth_signature` parameter in the query or the form is left out; a query or form
/// parameter named `realm` is an ordinary parameter and is signed (the RFC excludes `realm`
/// only from the Authorization header, and [`OAuthParams`] has none).
///
/// This is exactly the text [`authorization_header`] feeds the HMAC (the same writer runs).
pub fn base_string(request: &impl Signable, oauth: &OAuthParams<'_>) -> String {
    let timestamp = Decimal::new(oauth.timestamp);
    let protocol = Protocol::new(oauth, timestamp.as_bytes());
    request.with_sorted_params(|params| {
        let mut out = Vec::with_capacity(256);
        let (method, url) = (request.method(), request.url());
        base_string::write(&mut out, method, url, params, protocol.as_slice());
        ascii_string(out)
    })
}

/// HMAC-SHA1 over the base string keyed with encode(consumer_secret) & encode(token_secret),
/// base64 (standard, padded).
pub fn sign(base_string: &str, key: &SigningKey<'_>) -> String {
    let mut mac = MacSink::new(base_string::keyed_mac(
        key.consumer_secret,
        key.token_secret,
    ));
    mac.put(base_string.as_bytes());
    ascii_string(mac.finish().as_bytes().to_vec())
}

/// The full Authorization header value: `OAuth realm="", oauth_consumer_key="...",
/// oauth_nonce="...", oauth_signature="...", oauth_signature_method="HMAC-SHA1",
/// oauth_timestamp="...", oauth_token="...", oauth_version="1.0"` (plus oauth_callback /
/// oauth_verifier when given), every value percent-encoded, an empty realm first (the
/// marketplace requires `realm=""`).
///
/// Parameters are in name order; `oauth_token` and `oauth_version` appear only when
/// [`OAuthParams`] has them (`oauth_token=""` for `Some("")`). The signature is that of
/// [`sign`]`(&`[`base_string`](fn@base_string)`(request, oauth), key)`, computed without building the base
/// string.
pub fn authorization_header(
    request: &impl Signable,
    oauth: &OAuthParams<'_>,
    key: &SigningKey<'_>,
) -> String {
    signed_header_keyed(request, oauth, &KeyedMac::new(key)).0
}

/// The HMAC keyed with a [`SigningKey`], ready for any number of signatures: keying is two of
/// the eight SHA-1 blocks of a data call's signature, and a session signs every call with the
/// same key (`Session` keeps one).
#[derive(Clone)]
pub(crate) struct KeyedMac(Hmac<Sha1>);

impl KeyedMac {
    pub(crate) fn new(key: &SigningKey<'_>) -> Self {
        KeyedMac(base_string::keyed_mac(
            key.consumer_secret,
            key.token_secret,
        ))
    }
}

/// The keyed state is derived from the secrets: never shown.
impl fmt::Debug for KeyedMac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyedMac(<redacted>)")
    }
}

/// [`authorization_header`] with the HMAC already keyed, and the signature the header carries
/// (base64, before the header percent-encodes it): a call's answers are cleaned of it, so it
/// is handed back rather than read back out of the header.
pub(crate) fn signed_header_keyed(
    request: &impl Signable,
    oauth: &OAuthParams<'_>,
    key: &KeyedMac,
) -> (String, String) {
    let timestamp = Decimal::new(oauth.timestamp);
    let protocol = Protocol::new(oauth, timestamp.as_bytes());
    let computed = request.with_sorted_params(|params| {
        let mut mac = MacSink::new(key.0.clone());
        let (method, url) = (request.method(), request.url());
        base_string::write(&mut mac, method, url, params, protocol.as_slice());
        mac.finish()
    });
    let signature = ProtocolParam::new(&base_string::SIGNATURE, computed.as_bytes());

    // Room for every value encoded at its longest: the header is written without growing.
    let len: usize = protocol
        .as_slice()
        .iter()
        .chain([&signature])
        .map(|param| param.name.header.len() + param.max_len(Times::Once))
        .sum();
    let mut out = Vec::with_capacity(HEADER_START.len() + len + 1);
    out.put(HEADER_START.as_bytes());
    for (i, param) in protocol.as_slice().iter().enumerate() {
        if i == protocol.signature_at {
            out.put(signature.name.header.as_bytes());
            signature.put_value(&mut out, Times::Once);
        }
        out.put(param.name.header.as_bytes());
        param.put_value(&mut out, Times::Once);
    }
    out.put(b"\"");
    (
        ascii_string(out),
        ascii_string(computed.as_bytes().to_vec()),
    )
}

/// The scheme and the empty realm the marketplace requires, before the protocol parameters
/// (each of which closes the quote before it).
const HEADER_START: &str = "OAuth realm=\"";

/// The OS random source failed while drawing a nonce (see [`nonce`]).
#[derive(Clone, Copy, Debug, thiserror::Error)]
#[error("the OS random source failed: {0}")]
pub struct NonceError(
    /// The underlying `getrandom` error (shown in the message; not exposed as a `source()`,
    /// since `getrandom::Error` implements `std::error::Error` only with its `std` feature).
    pub getrandom::Error,
);

impl From<getrandom::Error> for NonceError {
    fn from(error: getrandom::Error) -> Self {
        Self(error)
    }
}

/// A fresh nonce: 32 lowercase hex characters (16 random bytes), from the calling thread's
/// cryptographic generator (rand's `StdRng`, ChaCha12), seeded from the OS random source on
/// the thread's first nonce.
///
/// A generator rather than the OS source for each nonce: its system call was a point of a
/// call's CPU time (BENCHMARKS.md, the client row). The nonces are as unpredictable (a
/// 256-bit seed from the OS, a generator built for keys), and each thread's are its own. A
/// process that forks carries its threads' generators into the child, as every user-space
/// generator does (rand's `ThreadRng` too): a child that signs calls would repeat its
/// parent's next nonces, which the service refuses as replays, never accepts.
///
/// # Errors
///
/// [`NonceError`] if the OS random source fails while seeding the thread's generator (it is
/// tried again on the next nonce).
pub fn nonce() -> Result<String, NonceError> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut bytes = [0u8; 16];
    let drawn = NONCES.try_with(|generator| -> Result<(), NonceError> {
        let mut generator = generator.borrow_mut();
        let generator = match &mut *generator {
            Some(generator) => generator,
            None => {
                let mut seed = <StdRng as SeedableRng>::Seed::default();
                getrandom::fill(&mut seed)?;
                generator.insert(StdRng::from_seed(seed))
            }
        };
        generator.fill_bytes(&mut bytes);
        Ok(())
    });
    match drawn {
        Ok(drawn) => drawn?,
        // The thread is ending (a nonce drawn by another thread-local's destructor): its
        // generator is gone, the OS source is not.
        Err(_) => getrandom::fill(&mut bytes)?,
    }
    let mut out = String::with_capacity(2 * bytes.len());
    for byte in bytes {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    Ok(out)
}

thread_local! {
    /// Each thread's nonce generator (see [`nonce`]), seeded on its first nonce.
    static NONCES: RefCell<Option<StdRng>> = const { RefCell::new(None) };
}

/// Parses an Authorization header of the form above back into (name, value) pairs with values
/// percent-decoded (used by servers and tests); returns None if it is not an `OAuth ` header or
/// is malformed (never panics).
///
/// The scheme is matched case-insensitively and must be followed by a space or tab. Each
/// parameter is `name="value"`; parameters are separated by commas with optional spaces or
/// tabs around them. Malformed means: no parameter at all, a missing `=` or quote, an empty or
/// non-token name, a trailing comma, a backslash or control character in a value, a `%` not
/// followed by two hex digits, a decoded value that is not UTF-8, or a parameter that appears
/// twice (RFC 5849 section 3.5.1 forbids that). `realm` is returned like any other parameter.
pub fn parse_authorization_header(header: &str) -> Option<Vec<(String, String)>> {
    const OWS: [char; 2] = [' ', '\t'];

    let scheme = header.get(..5)?;
    if !scheme.eq_ignore_ascii_case("oauth") {
        return None;
    }
    let rest = &header[5..];
    if !rest.starts_with(OWS) {
        return None;
    }
    let mut rest = rest.trim_start_matches(OWS);

    let mut params: Vec<(String, String)> = Vec::with_capacity(10);
    loop {
        let eq = rest.find('=')?;
        let name = &rest[..eq];
        if name.is_empty() || !name.bytes().all(is_name_byte) {
            return None;
        }
        let after = rest[eq + 1..].strip_prefix('"')?;
        let close = after.find('"')?;
        let name = decode_strict(name)?;
        let value = decode_strict(&after[..close])?;
        if params.iter().any(|(seen, _)| *seen == name) {
            return None;
        }
        params.push((name, value));

        rest = after[close + 1..].trim_start_matches(OWS);
        if rest.is_empty() {
            return Some(params);
        }
        rest = rest.strip_prefix(',')?.trim_start_matches(OWS);
    }
}

/// A byte allowed in a (percent-encoded) parameter name: unreserved or `%`.
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'%')
}

/// Percent-decodes `text`, rejecting control characters, backslashes, `%` not followed by two
/// hex digits, and decoded bytes that are not UTF-8.
fn decode_strict(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    for (i, &byte) in bytes.iter().enumerate() {
        if byte.is_ascii_control() || byte == b'\\' {
            return None;
        }
        if byte == b'%'
            && !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
        {
            return None;
        }
    }
    percent_decode_str(text)
        .decode_utf8()
        .ok()
        .map(Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).expect("test URL parses")
    }

    fn form(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|&(name, value)| (name.to_owned(), value.to_owned()))
            .collect()
    }

    /// RFC 5849 section 1.2 consumer credentials.
    const RFC_CONSUMER_KEY: &str = "dpf43f3p2l4k3l03";
    const RFC_CONSUMER_SECRET: &str = "kd94hf93k423kf44";

    fn rfc_params<'a>(
        token: Option<&'a str>,
        nonce: &'a str,
        timestamp: i64,
        callback: Option<&'a str>,
        verifier: Option<&'a str>,
    ) -> OAuthParams<'a> {
        OAuthParams {
            consumer_key: RFC_CONSUMER_KEY,
            token,
            nonce,
            timestamp,
            callback,
            verifier,
            version: None,
        }
    }

    #[test]
    fn rfc5849_1_2_temporary_credentials() {
        let url = url("https://photos.example.net/initiate");
        let request = SignatureRequest {
            method: "POST",
            url: &url,
            form: &[],
        };
        let oauth = rfc_params(
            None,
            "wIjqoS",
            137131200,
            Some("http://printer.example.com/ready"),
            None,
        );
        let key = SigningKey {
            consumer_secret: RFC_CONSUMER_SECRET,
            token_secret: "",
        };
        let base = base_string(&request, &oauth);
        assert_eq!(
            base,
            "POST&https%3A%2F%2Fphotos.example.net%2Finitiate&oauth_callback%3Dhttp%253A%252F%252F\
             printer.example.com%252Fready%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce\
             %3DwIjqoS%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131200"
        );
        assert_eq!(sign(&base, &key), "74KNZJeDHnMBp0EMJ9ZHt/XKycU=");

        let header = authorization_header(&request, &oauth, &key);
        assert_eq!(
            header,
            "OAuth realm=\"\", oauth_callback=\"http%3A%2F%2Fprinter.example.com%2Fready\", \
             oauth_consumer_key=\"dpf43f3p2l4k3l03\", oauth_nonce=\"wIjqoS\", \
             oauth_signature=\"74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D\", \
             oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"137131200\""
        );
    }

    #[test]
    fn rfc5849_1_2_token_credentials() {
        let url = url("https://photos.example.net/token");
        let request = SignatureRequest {
            method: "POST",
            url: &url,
            form: &[],
        };
        let oauth = rfc_params(
            Some("hh5s93j4hdidpola"),
            "walatlh",
            137131201,
            None,
            Some("hfdp7dh39dks9884"),
        );
        let key = SigningKey {
            consumer_secret: RFC_CONSUMER_SECRET,
            token_secret: "hdhd0244k9j7ao03",
        };
        let base = base_string(&request, &oauth);
        assert_eq!(sign(&base, &key), "gKgrFCywp7rO0OXSjdot/IHF7IU=");
    }

    #[test]
    fn rfc5849_1_2_protected_resource() {
        let url = url("http://photos.example.net/photos?file=vacation.jpg&size=original");
        let request = SignatureRequest {
            method: "GET",
            url: &url,
            form: &[],
        };
        let oauth = rfc_params(Some("nnch734d00sl2jdk"), "chapoH", 137131202, None, None);
        let key = SigningKey {
            consumer_secret: RFC_CONSUMER_SECRET,
            token_secret: "pfkkdhi9sl3r4s00",
        };
        let base = base_string(&request, &oauth);
        assert_eq!(
            base,
            "GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26\
             oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3DchapoH%26\
             oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131202%26\
             oauth_token%3Dnnch734d00sl2jdk%26size%3Doriginal"
        );
        assert_eq!(sign(&base, &key), "MdpQcU8iPSUjWoN/UDMsK2sui9I=");
    }

    #[test]
    fn twitter_creating_a_signature_example() {
        let url = url("https://api.twitter.com/1.1/statuses/update.json?include_entities=true");
        let body = form(&[(
            "status",
            "Hello Ladies + Gentlemen, a signed OAuth request!",
        )]);
        let request = SignatureRequest {
            method: "POST",
            url: &url,
            form: &body,
        };
        let oauth = OAuthParams {
            consumer_key: "xvz1evFS4wEEPTGEFPHBog",
            token: Some("370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"),
            nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
            timestamp: 1318622958,
            callback: None,
            verifier: None,
            version: Some("1.0"),
        };
        let key = SigningKey {
            consumer_secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
            token_secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
        };
        let base = base_string(&request, &oauth);
        assert_eq!(
            base,
            "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&\
             include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26\
             oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg%26\
             oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26\
             oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26\
             oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C\
             %2520a%2520signed%2520OAuth%2520request%2521"
        );
        assert_eq!(sign(&base, &key), "hCtSmYh+iHYCEqBWrE7C7hYmtUk=");
    }

    #[test]
    fn rfc5849_3_4_1_1_base_string() {
        // The body "c2&a3=2+q", decoded; realm "Example" lives only in the header.
        let url = url("http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b");
        let body = form(&[("c2", ""), ("a3", "2 q")]);
        let request = SignatureRequest {
            method: "POST",
            url: &url,
            form: &body,
        };
        let oauth = OAuthParams {
            consumer_key: "9djdj82h48djs9d2",
            token: Some("kkk9d7dh3k39sjv7"),
            nonce: "7d8f3e4a",
            timestamp: 137131201,
            callback: None,
            verifier: None,
            version: None,
        };
        assert_eq!(
            base_string(&request, &oauth),
            "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26\
             b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26\
             oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26\
             oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7"
        );
    }

    #[test]
    fn project_base_string_encoding_and_ordering() {
        // Query, decoded with form rules: x=z, x="%41", x="a b", empty="", "ü"="1",
        // "a+b"="plus"; its oauth_signature is excluded. Form: "a b"="space", x="ü", x="a|",
        // x="a_", flag="", and another oauth_signature (excluded).
        //
        // Encoded and sorted by encoded name then encoded value:
        //   %C3%BC=1            ("ü" sorts after "z" raw, first encoded)
        //   a%20b=space, a%2Bb=plus, empty=, flag=, oauth_* (oauth_token= blank),
        //   x=%2541, x=%C3%BC, x=a%20b, x=a%7C, x=a_, x=z
        // (raw, "a_" < "a|" and "z" < "ü"; encoded, "a%7C" < "a_" and "%C3%BC" < "z").
        let url = url(
            "https://API.Example.com/v2/jobs?x=z&x=%2541&x=a+b&empty=&%C3%BC=1&a%2Bb=plus\
             &oauth_signature=bogus#fragment",
        );
        let body = form(&[
            ("a b", "space"),
            ("x", "ü"),
            ("x", "a|"),
            ("x", "a_"),
            ("flag", ""),
            ("oauth_signature", "bogus"),
        ]);
        let request = SignatureRequest {
            method: "post",
            url: &url,
            form: &body,
        };
        let oauth = OAuthParams {
            consumer_key: "ck",
            token: Some(""),
            nonce: "n0nce",
            timestamp: 1700000000,
            callback: None,
            verifier: None,
            version: Some("1.0"),
        };
        assert_eq!(
            base_string(&request, &oauth),
            "POST&https%3A%2F%2Fapi.example.com%2Fv2%2Fjobs&\
             %25C3%25BC%3D1%26a%2520b%3Dspace%26a%252Bb%3Dplus%26empty%3D%26flag%3D%26\
             oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce%26\
             oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26\
             oauth_token%3D%26oauth_version%3D1.0%26\
             x%3D%252541%26x%3D%25C3%25BC%26x%3Da%2520b%26x%3Da%257C%26x%3Da_%26x%3Dz"
        );

        // No token at all: no oauth_token parameter.
        let no_token = OAuthParams {
            token: None,
            ..oauth.clone()
        };
        assert!(!base_string(&request, &no_token).contains("oauth_token"));
    }

    /// The base string URI, decoded back from the second segment of a parameterless base string.
    fn base_uri(text: &str) -> String {
        let url = url(text);
        let request = SignatureRequest {
            method: "GET",
            url: &url,
            form: &[],
        };
        let oauth = rfc_params(None, "n", 1, None, None);
        let base = base_string(&request, &oauth);
        let segment = base.split('&').nth(1).expect("three segments");
        percent_decode_str(segment)
            .decode_utf8()
            .expect("UTF-8")
            .into_owned()
    }

    #[test]
    fn base_string_uri_rules() {
        assert_eq!(
            base_uri("https://EXAMPLE.com:443/Path"),
            "https://example.com/Path"
        );
        assert_eq!(base_uri("HTTP://example.com:80/"), "http://example.com/");
        assert_eq!(
            base_uri("http://example.com:8080/x"),
            "http://example.com:8080/x"
        );
        assert_eq!(
            base_uri("https://example.com:80/x"),
            "https://example.com:80/x"
        );
        assert_eq!(
            base_uri("https://user:pass@example.com/a/b?q=1&r=2#frag"),
            "https://example.com/a/b"
        );
        assert_eq!(base_uri("http://example.com"), "http://example.com/");
        // The path is kept as sent on the request line (already percent-encoded).
        assert_eq!(
            base_uri("http://example.com/r%20v/X?id=123"),
            "http://example.com/r%20v/X"
        );
    }

    #[test]
    fn a_decoded_query_value_of_one_reserved_character_is_encoded() {
        // Regression (found by the property test against the fake's verifier): `a=+` decodes
        // to a lone space, which must appear as %20 (so %2520 in the base string).
        for query in ["a=+", "a=%20", "%20=x"] {
            let url = url::Url::parse(&format!("https://example.com/p?{query}")).unwrap();
            let request = SignatureRequest {
                method: "GET",
                url: &url,
                form: &[],
            };
            let oauth = OAuthParams {
                consumer_key: "k",
                token: None,
                nonce: "n",
                timestamp: 1,
                callback: None,
                verifier: None,
                version: None,
            };
            let base = base_string(&request, &oauth);
            assert!(base.contains("%2520"), "{query}: {base}");
        }
    }

    #[test]
    fn percent_encode_rules() {
        assert_eq!(
            percent_encode("!#$&'()*+,/:;=?@[]"),
            "%21%23%24%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D"
        );
        assert_eq!(percent_encode("a b"), "a%20b");
        assert_eq!(percent_encode("*"), "%2A");
        assert_eq!(percent_encode("%"), "%25");
        assert_eq!(percent_encode("\"<>\\^`{|}"), "%22%3C%3E%5C%5E%60%7B%7C%7D");
        assert_eq!(percent_encode("ü"), "%C3%BC");
        assert_eq!(percent_encode("€"), "%E2%82%AC");
        assert_eq!(percent_encode("😀"), "%F0%9F%98%80");
        assert_eq!(percent_encode("\n\0"), "%0A%00");
        assert_eq!(percent_encode(""), "");
        // Unreserved characters are kept, and borrowed.
        let unreserved = "AZaz09-._~";
        assert_eq!(percent_encode(unreserved), unreserved);
        assert!(matches!(percent_encode(unreserved), Cow::Borrowed(_)));
    }

    /// A session signs every call from one keyed HMAC: each signature starts from a copy of
    /// it, so none depends on the ones before, and each is the signature of `sign`.
    #[test]
    fn one_keyed_mac_signs_any_number_of_requests_alike() {
        let key = SigningKey {
            consumer_secret: "consumer secret/+",
            token_secret: "token&secret",
        };
        let keyed = KeyedMac::new(&key);
        for (index, address) in [
            "https://api.example.com/api/pay/getInvoice?id=9003",
            "https://api.example.com/api/pay/getTimesheet?page=2&rpp=100",
            "https://api.example.com/api/pay/getInvoice?id=9003",
        ]
        .into_iter()
        .enumerate()
        {
            let url = url(address);
            let request = SignatureRequest {
                method: "GET",
                url: &url,
                form: &[],
            };
            let nonce = format!("nonce{index}");
            let oauth = OAuthParams {
                consumer_key: "key",
                token: Some("token"),
                nonce: &nonce,
                timestamp: 1_768_000_000 + i64::try_from(index).unwrap(),
                callback: None,
                verifier: None,
                version: Some("1.0"),
            };
            let expected = format!(
                "oauth_signature=\"{}\"",
                percent_encoding::utf8_percent_encode(
                    &sign(&base_string(&request, &oauth), &key),
                    percent_encoding::NON_ALPHANUMERIC
                )
            );
            let (header, signature) = signed_header_keyed(&request, &oauth, &keyed);
            assert!(header.contains(&expected), "{header} lacks {expected}");
            assert_eq!(signature, sign(&base_string(&request, &oauth), &key));
            assert_eq!(header, authorization_header(&request, &oauth, &key));
        }
        assert_eq!(format!("{keyed:?}"), "KeyedMac(<redacted>)");
    }

    #[test]
    fn authorization_header_round_trip() {
        let url = url("https://api.example.com/v1/jobs?page=2");
        let body = form(&[("title", "Inventory sync & more")]);
        let request = SignatureRequest {
            method: "POST",
            url: &url,
            form: &body,
        };
        let oauth = OAuthParams {
            consumer_key: "key with space",
            token: Some(""),
            nonce: "0123456789abcdef0123456789abcdef",
            timestamp: 1768000000,
            callback: Some("oob"),
            verifier: Some("v/1+2="),
            version: Some("1.0"),
        };
        let key = SigningKey {
            consumer_secret: "cs&",
            token_secret: "",
        };
        let header = authorization_header(&request, &oauth, &key);
        assert!(header.starts_with("OAuth realm=\"\", "), "{header}");

        let expected_signature = sign(&base_string(&request, &oauth), &key);
        let expected = [
            ("realm", ""),
            ("oauth_callback", "oob"),
            ("oauth_consumer_key", "key with space"),
            ("oauth_nonce", "0123456789abcdef0123456789abcdef"),
            ("oauth_signature", expected_signature.as_str()),
            ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", "1768000000"),
            ("oauth_token", ""),
            ("oauth_verifier", "v/1+2="),
            ("oauth_version", "1.0"),
        ];
        for (name, _) in expected {
            assert_eq!(
                header.matches(&format!("{name}=\"")).count(),
                1,
                "{name} in {header}"
            );
        }
        let parsed = parse_authorization_header(&header).expect("own header parses");
        let parsed: Vec<(&str, &str)> = parsed
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        assert_eq!(parsed, expected);

        // Values are encoded in the header itself.
        assert!(header.contains("oauth_consumer_key=\"key%20with%20space\""));
        assert!(header.contains("oauth_verifier=\"v%2F1%2B2%3D\""));
        assert!(header.contains("oauth_token=\"\""));

        // Without token and version, neither appears.
        let bare = OAuthParams {
            token: None,
            version: None,
            callback: None,
            verifier: None,
            ..oauth
        };
        let header = authorization_header(&request, &bare, &key);
        assert!(!header.contains("oauth_token"), "{header}");
        assert!(!header.contains("oauth_version"), "{header}");
    }

    #[test]
    fn nonce_is_32_lowercase_hex_and_fresh() {
        let first = nonce().expect("OS random source");
        let second = nonce().expect("OS random source");
        for n in [&first, &second] {
            assert_eq!(n.len(), 32, "{n}");
            assert!(
                n.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
                "{n}"
            );
        }
        assert_ne!(first, second);
    }

    /// A nonce drawn while the thread ends (by another thread-local's destructor, after the
    /// generator's own may have run) is still a nonce, not a panic.
    #[test]
    fn a_nonce_drawn_as_the_thread_ends_is_a_nonce() {
        struct DrawsOnDrop(std::sync::mpsc::Sender<Result<String, NonceError>>);
        impl Drop for DrawsOnDrop {
            fn drop(&mut self) {
                let _ = self.0.send(nonce());
            }
        }
        thread_local! {
            static DRAWER: RefCell<Option<DrawsOnDrop>> = const { RefCell::new(None) };
        }
        for draw_first in [false, true] {
            let (sender, receiver) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                if draw_first {
                    // The generator exists before the drawer: it is destroyed first or after.
                    nonce().expect("OS random source");
                }
                DRAWER.with_borrow_mut(|drawer| *drawer = Some(DrawsOnDrop(sender)));
                if !draw_first {
                    nonce().expect("OS random source");
                }
            })
            .join()
            .expect("the thread ends without a panic");
            let drawn = receiver.recv().expect("drawn on drop").expect("a nonce");
            assert_eq!(drawn.len(), 32, "{drawn}");
        }
    }

    /// Each thread's generator is seeded on its own from the OS: a fixed or shared seed would
    /// give two threads the same nonces (and two processes, which this cannot see, alike).
    #[test]
    fn nonces_of_every_thread_are_distinct() {
        let per_thread: Vec<Vec<String>> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        (0..2_000)
                            .map(|_| nonce().expect("OS random source"))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|thread| thread.join().expect("nonce thread"))
                .collect()
        });
        let all: std::collections::HashSet<&String> = per_thread.iter().flatten().collect();
        assert_eq!(all.len(), 4 * 2_000, "a nonce repeated");
        let firsts: std::collections::HashSet<&String> =
            per_thread.iter().map(|nonces| &nonces[0]).collect();
        assert_eq!(firsts.len(), 4, "two threads began alike: {firsts:?}");
    }

    #[test]
    fn parse_authorization_header_accepts_and_rejects() {
        assert_eq!(
            parse_authorization_header("oauth  a=\"1\" ,\tb=\"x%20y\""),
            Some(vec![
                ("a".to_owned(), "1".to_owned()),
                ("b".to_owned(), "x y".to_owned())
            ])
        );
        let malformed = [
            "",
            "OAuth",
            "OAuth ",
            "OAuth    ",
            "Basic realm=\"\"",
            "OAuthrealm=\"\"",
            "realm=\"\", oauth_nonce=\"n\"",
            "OAuth realm=",
            "OAuth realm=\"",
            "OAuth realm=\"\"x",
            "OAuth realm",
            "OAuth realm=x",
            "OAuth realm=\"\",",
            "OAuth realm=\"\", ",
            "OAuth realm=\"\",, a=\"b\"",
            "OAuth realm=\"\" a=\"b\"",
            "OAuth =\"x\"",
            "OAuth a b=\"x\"",
            "OAuth a=\"%\"",
            "OAuth a=\"%4\"",
            "OAuth a=\"%zz\"",
            "OAuth a=\"%FF\"",
            "OAuth a=\"x\\\"",
            "OAuth a=\"line\nbreak\"",
            "OAuth a=\"1\", a=\"2\"",
            "OAut",
            "OAü",
            "ü OAuth a=\"b\"",
        ];
        for header in malformed {
            assert_eq!(parse_authorization_header(header), None, "{header:?}");
        }
    }

    #[test]
    fn query_pairs_sign_as_the_url_they_built() {
        // More pairs than fit on the stack, duplicates, reserved and multi-byte characters,
        // and an oauth_signature parameter (never signed).
        let query = form(&[
            ("b", "2"),
            ("a", "é"),
            ("a", "a"),
            ("a b", "+&="),
            ("oauth_signature", "x"),
            ("c", ""),
            ("d", "~"),
            ("e", "%41"),
            ("f", "/"),
            ("ü", "1"),
            ("g", "日本"),
        ]);
        let mut url = url("https://api.example.com/v1/jobs");
        url.query_pairs_mut().extend_pairs(&query);
        let pairs = PairsRequest {
            method: "GET",
            url: &url,
            query: &query,
        };
        let from_url = SignatureRequest {
            method: "GET",
            url: &url,
            form: &[],
        };
        let oauth = rfc_params(Some("token"), "nonce", 1_700_000_000, None, None);
        let key = SigningKey {
            consumer_secret: "cs",
            token_secret: "ts",
        };
        let base = base_string(&pairs, &oauth);
        assert_eq!(base, base_string(&from_url, &oauth));
        assert!(!base.contains("oauth_signature%3D"), "{base}");
        assert!(
            base.contains("a%3D%25C3%25A9%26a%3Da%26"),
            "é sorts before a: {base}"
        );
        let header = authorization_header(&pairs, &oauth, &key);
        assert_eq!(header, authorization_header(&from_url, &oauth, &key));
        let signed = parse_authorization_header(&header).expect("own header parses");
        assert!(signed.contains(&("oauth_signature".to_owned(), sign(&base, &key))));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "the URL's query is not the query pairs signed")]
    fn query_pairs_that_did_not_build_the_url_are_caught_in_debug_builds() {
        let url = url("https://api.example.com/v1/jobs?page=2");
        let request = PairsRequest {
            method: "GET",
            url: &url,
            query: &[("page", "3")],
        };
        base_string(&request, &rfc_params(None, "n", 1, None, None));
    }

    #[test]
    fn signing_key_debug_hides_secrets() {
        let key = SigningKey {
            consumer_secret: "very-secret",
            token_secret: "also-secret",
        };
        let debug = format!("{key:?}");
        assert!(
            !debug.contains("very-secret") && !debug.contains("also-secret"),
            "{debug}"
        );
    }
}
