//! OAuth 1.0 (RFC 5849) signature verification, HMAC-SHA1 only, written independently of the
//! client's signing code so that the fake checks the client rather than agreeing with it.
//!
//! Deliberately simple: the protocol parameters come from the `Authorization: OAuth ...`
//! header, else from a form-encoded POST body, else from the query string. When the header
//! carries OAuth values, `oauth_*` parameters in the body are ignored (neither read nor signed).
//! The base string is `METHOD & enc(base URI) & enc(normalized parameters)` where the
//! parameters are the query parameters, the body's non-OAuth parameters and the protocol
//! parameters (without `oauth_signature` and `realm`), each name and value encoded and the
//! pairs sorted. The key is `enc(consumer secret) & enc(token secret)`.

use std::collections::HashSet;

use base64::prelude::{BASE64_STANDARD, Engine as _};
use hmac::{Hmac, KeyInit as _, Mac as _};
use jiff::Timestamp;
use sha1::Sha1;

/// The protocol parameters of RFC 5849 a service reads (sections 2 and 3.1; `oauth_signature`
/// is never signed): any other `oauth_` name is one it does not know.
const PROTOCOL_PARAMETERS: [&str; 8] = [
    "oauth_consumer_key",
    "oauth_token",
    "oauth_signature_method",
    "oauth_timestamp",
    "oauth_nonce",
    "oauth_version",
    "oauth_callback",
    "oauth_verifier",
];

/// How far (in seconds, either way) a request's `oauth_timestamp` may be from the fake's clock.
pub(crate) const TIMESTAMP_TOLERANCE_SECS: i64 = 300;

/// Where the protocol parameters of a request were found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Header,
    Body,
    Query,
}

/// The signed parts of one request, with its protocol parameters picked out.
#[derive(Debug)]
pub(crate) struct OAuthRequest {
    /// Upper-case HTTP method.
    method: String,
    /// `scheme://host[:port]/path`, scheme and host lower-cased, default port dropped.
    base_uri: String,
    /// The protocol parameters (`oauth_*`, no `realm`), from one source.
    protocol: Vec<(String, String)>,
    /// Every parameter that is signed (decoded), `oauth_signature` and `realm` excluded.
    signed: Vec<(String, String)>,
    /// The names sent that the service does not know, left out of `signed`
    /// ([`OAuthRequest::recognizing`]).
    ignored: Vec<String>,
}

/// The parts of an HTTP request that OAuth looks at.
///
/// `Debug` shows the query, the `Authorization` header and the form without their secrets
/// (`oauth_signature`, `oauth_verifier` and every secret-named value, by
/// [`marketplace_client::redact`]): a signer under test may sign with real credentials.
#[derive(Clone, Copy)]
pub struct RawRequest<'a> {
    /// The HTTP method.
    pub method: &'a str,
    /// `http` or `https`.
    pub scheme: &'a str,
    /// The `Host` (or `:authority`) as sent, possibly with a port.
    pub host: &'a str,
    /// The path as sent (still percent-encoded).
    pub path: &'a str,
    /// The raw query string, without `?`.
    pub query: Option<&'a str>,
    /// The `Authorization` header value, if any.
    pub authorization: Option<&'a str>,
    /// The body when it is `application/x-www-form-urlencoded`.
    pub form: Option<&'a [u8]>,
}

impl std::fmt::Debug for RawRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let clean = |text: &str| marketplace_client::redact(text, &[]).into_owned();
        f.debug_struct("RawRequest")
            .field("method", &self.method)
            .field("scheme", &self.scheme)
            .field("host", &self.host)
            .field("path", &self.path)
            .field("query", &self.query.map(clean))
            .field("authorization", &self.authorization.map(clean))
            .field(
                "form",
                &self.form.map(|form| clean(&String::from_utf8_lossy(form))),
            )
            .finish()
    }
}

impl OAuthRequest {
    /// Picks the protocol parameters and the signed parameters out of a request.
    ///
    /// # Errors
    ///
    /// A message when the Authorization header is malformed, no OAuth parameters were sent, or
    /// a protocol parameter appears twice.
    pub(crate) fn parse(raw: &RawRequest<'_>) -> Result<OAuthRequest, String> {
        let header = match raw.authorization {
            Some(value) if has_oauth_scheme(value) => Some(
                parse_authorization(value)
                    .ok_or_else(|| "the Authorization header is malformed".to_owned())?,
            ),
            _ => None,
        };
        let query = raw.query.map(form_pairs).unwrap_or_default();
        let body = raw.form.map(form_pairs).unwrap_or_default();

        let has_oauth = |pairs: &[(String, String)]| pairs.iter().any(|(n, _)| is_oauth(n));
        let source = match &header {
            Some(header) if has_oauth(header) => Source::Header,
            _ if has_oauth(&body) => Source::Body,
            _ if has_oauth(&query) => Source::Query,
            _ => return Err("the request carries no OAuth parameters".to_owned()),
        };
        let from_source: &[(String, String)] = match source {
            Source::Header => header.as_deref().unwrap_or_default(),
            Source::Body => &body,
            Source::Query => &query,
        };
        let protocol: Vec<(String, String)> = from_source
            .iter()
            .filter(|(name, _)| is_oauth(name))
            .cloned()
            .collect();
        // A set, not a look back over the names: linear in what the request holds.
        let mut seen = HashSet::with_capacity(protocol.len());
        for (name, _) in &protocol {
            if !seen.insert(name.as_str()) {
                return Err(format!("the OAuth parameter {name} appears twice"));
            }
        }

        let mut signed: Vec<(String, String)> = Vec::new();
        signed.extend(query.into_iter().filter(|(n, _)| n != "oauth_signature"));
        signed.extend(
            body.into_iter()
                .filter(|(n, _)| n != "oauth_signature")
                .filter(|(n, _)| source == Source::Body || !is_oauth(n)),
        );
        if source == Source::Header {
            signed.extend(
                protocol
                    .iter()
                    .filter(|(n, _)| n != "oauth_signature")
                    .cloned(),
            );
        }

        Ok(OAuthRequest {
            method: raw.method.to_ascii_uppercase(),
            base_uri: base_uri(raw.scheme, raw.host, raw.path),
            protocol,
            signed,
            ignored: Vec::new(),
        })
    }

    /// This request as the service reads it: a parameter it does not know (not one of
    /// `known`, the method's, nor a protocol parameter of RFC 5849) is ignored, so it is not in
    /// the base string the service computes. The reference: "A parameter whose name is
    /// misspelled is ignored by the service and therefore changes the computed signature" (a
    /// signer that signed it is refused with `E_API_AUTH_SIGNATURE_MISMATCH`, the refusal
    /// naming it).
    pub(crate) fn recognizing(mut self, known: &[&str]) -> OAuthRequest {
        let recognized = |name: &str| known.contains(&name) || PROTOCOL_PARAMETERS.contains(&name);
        let (kept, ignored): (Vec<_>, Vec<_>) = std::mem::take(&mut self.signed)
            .into_iter()
            .partition(|(name, _)| recognized(name));
        self.signed = kept;
        self.ignored = ignored.into_iter().map(|(name, _)| name).collect();
        self
    }

    /// A protocol parameter's value.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.protocol
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The signature base string (RFC 5849 section 3.4.1).
    pub(crate) fn base_string(&self) -> String {
        self.base_string_of(|_, value| value.to_owned())
    }

    /// The base string as a refusal shows it: each parameter whose `name=value` the client's
    /// scrubber would clean (the verifier, a secret-named one) with its value `[redacted]`, so
    /// that the rest still reads as signed, for the signer to compare.
    fn shown_base_string(&self) -> String {
        self.base_string_of(|name, value| {
            // The protocol's own parameters carry no secret but the verifier (the signature
            // is not in the base string): shown as signed, for the signer to compare.
            if name.starts_with("oauth_") && name != "oauth_verifier" {
                return value.to_owned();
            }
            let pair = format!("{name}={value}");
            match marketplace_client::redact(&pair, &[]) {
                std::borrow::Cow::Borrowed(_) => value.to_owned(),
                std::borrow::Cow::Owned(_) => "[redacted]".to_owned(),
            }
        })
    }

    /// The base string with each parameter's value as `value` gives it.
    fn base_string_of(&self, value: impl Fn(&str, &str) -> String) -> String {
        let mut pairs: Vec<(String, String)> = self
            .signed
            .iter()
            .map(|(name, given)| (encode(name), encode(&value(name, given))))
            .collect();
        pairs.sort();
        let normalized = pairs
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("&");
        format!(
            "{}&{}&{}",
            encode(&self.method),
            encode(&self.base_uri),
            encode(&normalized)
        )
    }

    /// Checks the parameters that do not depend on a token: signature method, version,
    /// timestamp within the tolerance of `now`, a nonce and a signature present.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong.
    pub(crate) fn check_protocol(&self, now: Timestamp) -> Result<(), String> {
        match self.get("oauth_signature_method") {
            Some("HMAC-SHA1") => {}
            Some(other) => {
                return Err(format!(
                    "oauth_signature_method {other:?} is not supported (only HMAC-SHA1)"
                ));
            }
            None => return Err("oauth_signature_method is missing".to_owned()),
        }
        match self.get("oauth_version") {
            None | Some("1.0") => {}
            Some(other) => return Err(format!("oauth_version {other:?} is not 1.0")),
        }
        let timestamp = self
            .get("oauth_timestamp")
            .ok_or_else(|| "oauth_timestamp is missing".to_owned())?;
        let seconds: i64 = timestamp
            .parse()
            .ok()
            .filter(|_| timestamp.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| format!("oauth_timestamp {timestamp:?} is not an integer"))?;
        let skew = seconds.saturating_sub(now.as_second());
        if skew.saturating_abs() > TIMESTAMP_TOLERANCE_SECS {
            return Err(format!(
                "oauth_timestamp {seconds} is {skew} s from the service's clock \
                 (tolerance {TIMESTAMP_TOLERANCE_SECS} s)"
            ));
        }
        match self.get("oauth_nonce") {
            Some(nonce) if !nonce.is_empty() => {}
            _ => return Err("oauth_nonce is missing or empty".to_owned()),
        }
        match self.get("oauth_signature") {
            Some(signature) if !signature.is_empty() => Ok(()),
            _ => Err("oauth_signature is missing or empty".to_owned()),
        }
    }

    /// Checks `oauth_signature` against the one computed with these secrets.
    ///
    /// # Errors
    ///
    /// A message when the signatures differ (or none was sent).
    pub(crate) fn check_signature(
        &self,
        consumer_secret: &str,
        token_secret: &str,
    ) -> Result<(), String> {
        let sent = self
            .get("oauth_signature")
            .ok_or_else(|| "oauth_signature is missing".to_owned())?;
        let base_string = self.base_string();
        let expected = sign(&base_string, consumer_secret, token_secret)
            .ok_or_else(|| "the signature could not be computed".to_owned())?;
        if constant_time_eq(sent.as_bytes(), expected.as_bytes()) {
            Ok(())
        } else {
            // The base string holds every parameter as signed, the verifier and any
            // secret-named one among them: shown without their values.
            let ignored = if self.ignored.is_empty() {
                String::new()
            } else {
                format!(
                    " (parameters the service does not know are ignored, not signed: {})",
                    self.ignored.join(", ")
                )
            };
            Err(format!(
                "the signature does not match the service's base string {:?}{ignored}",
                self.shown_base_string()
            ))
        }
    }
}

/// Checks a request's OAuth signature as the fake marketplace does, with its own code (not
/// the client's): for tests of any signer, on any URL, so every parameter sent is signed (the
/// fake's own endpoints also leave out a name their method does not take, as the service
/// does).
///
/// # Errors
///
/// What is wrong: a malformed header, a missing parameter, or the service's base string when
/// the signatures differ.
pub fn check_signature(
    raw: &RawRequest<'_>,
    consumer_secret: &str,
    token_secret: &str,
) -> Result<(), String> {
    OAuthRequest::parse(raw)?.check_signature(consumer_secret, token_secret)
}

/// HMAC-SHA1 of `text` keyed with `enc(consumer_secret)&enc(token_secret)`, base64.
pub(crate) fn sign(text: &str, consumer_secret: &str, token_secret: &str) -> Option<String> {
    let key = format!("{}&{}", encode(consumer_secret), encode(token_secret));
    let mut mac = Hmac::<Sha1>::new_from_slice(key.as_bytes()).ok()?;
    mac.update(text.as_bytes());
    Some(BASE64_STANDARD.encode(mac.finalize().into_bytes()))
}

/// RFC 3986 percent-encoding: every byte outside ALPHA / DIGIT / `-` `.` `_` `~` becomes
/// `%XX` (upper-case hex).
pub(crate) fn encode(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
    }
    out
}

/// Percent-decoding (no `+` rule); `None` for a bad escape or a result that is not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether a header value uses the `OAuth` scheme.
fn has_oauth_scheme(value: &str) -> bool {
    value.as_bytes().get(..6).is_some_and(|start| {
        start[..5].eq_ignore_ascii_case(b"oauth") && matches!(start[5], b' ' | b'\t')
    })
}

/// The parameters of an `OAuth k="v", ...` header, values percent-decoded; `None` if malformed.
fn parse_authorization(value: &str) -> Option<Vec<(String, String)>> {
    let mut rest = value.get(6..)?.trim_matches([' ', '\t']);
    let mut params = Vec::new();
    // The names so far, to refuse a repeated one in time linear in the header.
    let mut names = HashSet::new();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let name = rest[..eq].trim_matches([' ', '\t']);
        if name.is_empty() {
            return None;
        }
        let after = rest[eq + 1..].trim_start_matches([' ', '\t']);
        let after = after.strip_prefix('"')?;
        let close = after.find('"')?;
        let name = decode(name)?;
        if !names.insert(name.clone()) {
            return None;
        }
        params.push((name, decode(&after[..close])?));
        rest = after[close + 1..].trim_start_matches([' ', '\t']);
        if let Some(next) = rest.strip_prefix(',') {
            rest = next.trim_start_matches([' ', '\t']);
            if rest.is_empty() {
                return None;
            }
        } else if !rest.is_empty() {
            return None;
        }
    }
    (!params.is_empty()).then_some(params)
}

/// `application/x-www-form-urlencoded` pairs (`+` is a space).
fn form_pairs(text: impl AsRef<[u8]>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(text.as_ref())
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

/// Whether a parameter is an OAuth protocol parameter.
fn is_oauth(name: &str) -> bool {
    name.starts_with("oauth_")
}

/// `scheme://host[:port]path` with scheme and host lower-cased and the default port dropped.
fn base_uri(scheme: &str, host: &str, path: &str) -> String {
    let scheme = scheme.to_ascii_lowercase();
    let host = host.to_ascii_lowercase();
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    let host = host.strip_suffix(default_port).unwrap_or(&host);
    let path = if path.is_empty() { "/" } else { path };
    format!("{scheme}://{host}{path}")
}

/// Compares two byte strings in time independent of where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5849 section 3.4.1.1's example request.
    #[test]
    fn builds_the_rfc_base_string() {
        let raw = RawRequest {
            method: "post",
            scheme: "HTTP",
            host: "Example.com:80",
            path: "/request",
            query: Some("b5=%3D%253D&a3=a&c%40=&a2=r%20b"),
            authorization: Some(
                "OAuth realm=\"Example\", oauth_consumer_key=\"9djdj82h48djs9d2\", \
                 oauth_token=\"kkk9d7dh3k39sjv7\", oauth_signature_method=\"HMAC-SHA1\", \
                 oauth_timestamp=\"137131201\", oauth_nonce=\"7d8f3e4a\", \
                 oauth_signature=\"bYT5CMsGcbgUdFHObYMEfcx6bsw%3D\"",
            ),
            form: Some(b"c2&a3=2+q"),
        };
        let request = OAuthRequest::parse(&raw).unwrap();
        assert_eq!(
            request.base_string(),
            "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q\
             %26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_\
             key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m\
             ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk\
             9d7dh3k39sjv7"
        );
        assert_eq!(request.get("oauth_nonce"), Some("7d8f3e4a"));
    }

    /// A signature refusal shows the base string with the verifier's value and every
    /// secret-named parameter's value removed, and keeps the rest for the signer to compare.
    #[test]
    fn a_refusal_shows_the_base_string_without_the_verifier_or_secret_named_values() {
        let raw = RawRequest {
            method: "POST",
            scheme: "https",
            host: "marketplace.example",
            path: "/oauth/getAccessToken",
            query: Some("client_secret=pw-QX7q&page=2"),
            authorization: Some(
                "OAuth oauth_consumer_key=\"key\", oauth_token=\"tok\", \
                 oauth_verifier=\"vf-Zk29a\", oauth_signature_method=\"HMAC-SHA1\", \
                 oauth_timestamp=\"137131201\", oauth_nonce=\"n1\", oauth_signature=\"wrong\"",
            ),
            form: None,
        };
        let refusal = OAuthRequest::parse(&raw)
            .unwrap()
            .check_signature("cs", "ts")
            .unwrap_err();
        assert!(refusal.contains("base string"), "{refusal}");
        assert!(refusal.contains("oauth_nonce"), "{refusal}");
        for secret in ["vf-Zk29a", "pw-QX7q"] {
            assert!(!refusal.contains(secret), "{secret} in {refusal}");
        }
    }

    /// The signature of RFC 5849 section 1.2's example (temporary credentials request).
    #[test]
    fn signs_the_rfc_example() {
        let raw = RawRequest {
            method: "POST",
            scheme: "https",
            host: "photos.example.net",
            path: "/initiate",
            query: None,
            authorization: Some(
                "OAuth realm=\"Photos\", oauth_consumer_key=\"dpf43f3p2l4k3l03\", \
                 oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"137131200\", \
                 oauth_nonce=\"wIjqoS\", oauth_callback=\"http%3A%2F%2Fprinter.example.com%2Fready\", \
                 oauth_signature=\"74KNZJeDHnMBp0EMJ9ZHt%2FXKycU%3D\"",
            ),
            form: None,
        };
        let request = OAuthRequest::parse(&raw).unwrap();
        request.check_signature("kd94hf93k423kf44", "").unwrap();
        assert!(request.check_signature("other", "").is_err());
    }

    #[test]
    fn a_parameter_the_method_does_not_take_is_left_out_of_the_base_string_and_named() {
        let raw = RawRequest {
            method: "GET",
            scheme: "https",
            host: "h",
            path: "/api/pay/getInvoice",
            query: Some("id=1&bidid=2"),
            authorization: Some(
                "OAuth oauth_nonce=\"n\", oauth_signatur_method=\"x\", oauth_signature=\"s\"",
            ),
            form: None,
        };
        let signed_all = OAuthRequest::parse(&raw).unwrap();
        assert_eq!(
            signed_all.base_string(),
            "GET&https%3A%2F%2Fh%2Fapi%2Fpay%2FgetInvoice&bidid%3D2%26id%3D1%26oauth_nonce%3Dn%26oauth_signatur_method%3Dx"
        );
        let read = OAuthRequest::parse(&raw).unwrap().recognizing(&["id"]);
        assert_eq!(
            read.base_string(),
            "GET&https%3A%2F%2Fh%2Fapi%2Fpay%2FgetInvoice&id%3D1%26oauth_nonce%3Dn"
        );
        let refusal = read.check_signature("c", "t").unwrap_err();
        assert!(
            refusal.ends_with("ignored, not signed: bidid, oauth_signatur_method)"),
            "{refusal}"
        );
    }

    #[test]
    fn header_values_win_over_the_body() {
        let raw = RawRequest {
            method: "POST",
            scheme: "https",
            host: "h",
            path: "/p",
            query: None,
            authorization: Some("OAuth oauth_nonce=\"n\""),
            form: Some(b"oauth_nonce=bogus&x=1"),
        };
        let request = OAuthRequest::parse(&raw).unwrap();
        assert_eq!(request.get("oauth_nonce"), Some("n"));
        assert_eq!(
            request.base_string(),
            "POST&https%3A%2F%2Fh%2Fp&oauth_nonce%3Dn%26x%3D1"
        );
    }

    #[test]
    fn refuses_malformed_headers_without_panicking() {
        for header in [
            "OAuth ",
            "OAuth a",
            "OAuth a=\"",
            "OAuth a=\"1\",",
            "OAuth a=\"1\" b=\"2\"",
            "OAuth a=\"%zz\"",
            "OAuth a=\"%\"",
            "OAuth a=\"%e9\"",
            "OAuth a=\"1\", a=\"2\"",
            "OAuth =\"1\"",
            "OAuth é=\"%C3%A9\", ",
        ] {
            assert!(parse_authorization(header).is_none(), "{header}");
        }
        assert_eq!(
            parse_authorization("oauth\trealm=\"\" ,oauth_token = \"a%20b\"").unwrap(),
            [
                ("realm".to_owned(), String::new()),
                ("oauth_token".to_owned(), "a b".to_owned())
            ]
        );
    }

    #[test]
    fn checks_the_protocol_parameters() {
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let check = |header: &str| {
            let raw = RawRequest {
                method: "GET",
                scheme: "https",
                host: "h",
                path: "/p",
                query: None,
                authorization: Some(header),
                form: None,
            };
            OAuthRequest::parse(&raw).unwrap().check_protocol(now)
        };
        let ok = "OAuth oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1800000100\", \
                  oauth_nonce=\"n\", oauth_signature=\"s\"";
        check(ok).unwrap();
        assert!(check(&ok.replace("HMAC-SHA1", "PLAINTEXT")).is_err());
        assert!(check(&format!("{ok}, oauth_version=\"2.0\"")).is_err());
        check(&format!("{ok}, oauth_version=\"1.0\"")).unwrap();
        assert!(check(&ok.replace("1800000100", "1800000301")).is_err());
        assert!(check(&ok.replace("1800000100", "-5")).is_err());
        assert!(check(&ok.replace("oauth_nonce=\"n\"", "oauth_nonce=\"\"")).is_err());
    }

    #[test]
    fn encodes_like_rfc_3986() {
        assert_eq!(encode("a b+c/~é"), "a%20b%2Bc%2F~%C3%A9");
        assert_eq!(decode("a%20b+%C3%A9").as_deref(), Some("a b+é"));
    }
}
