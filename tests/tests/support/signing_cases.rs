//! Random requests to sign, shared by the signing properties (`properties.rs`: the fake's
//! verifier, a plain second base string) and the signing oracles (`signing_oracles.rs`:
//! oauth1-request, Python's oauthlib): methods in any case, hosts in any case with default and
//! other ports, path segments, query and form parameters built from every character class that
//! breaks naive signers (unicode, every reserved character, `%`, spaces, controls), duplicate
//! names, empty values, and protocol parameters with and without token (blank token included),
//! callback, verifier and version.

use marketplace_client::oauth::signature::{
    OAuthParams, PairsRequest, SignatureRequest, SigningKey,
};
use proptest::prelude::*;
use url::Url;

/// RFC 3986 percent-encoding as RFC 5849 section 3.6 defines it, written as plainly as
/// possible (the test side's own, not the client's).
pub fn plain_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Text with the characters that break naive signers: every RFC 3986 reserved character, the
/// other printable ASCII that must be encoded, `%` and things that look like escapes, spaces,
/// controls and multi-byte UTF-8.
pub fn tricky_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => "[a-zA-Z0-9]{1,3}",
            1 => "[-._~]",
            // gen-delims and sub-delims (RFC 3986 section 2.2).
            2 => "[:/?#\\[\\]@!$&'()*+,;=]",
            // The rest of printable ASCII outside the unreserved set.
            1 => "[ \"%<>\\\\^`{|}]",
            1 => Just("%41".to_owned()),
            1 => Just("%zz".to_owned()),
            1 => "[\u{0}\t\n\u{7f}]",
            2 => "[éü日本😀\u{a0}]",
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

/// Parameters with names drawn from a small set, so duplicates are common (`realm` included:
/// outside the header it is an ordinary parameter).
pub fn params() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(
        (
            prop_oneof![
                Just("a".to_owned()),
                Just("b c".to_owned()),
                Just("ü".to_owned()),
                Just("realm".to_owned()),
                tricky_text()
            ],
            prop_oneof![1 => Just(String::new()), 4 => tricky_text()],
        ),
        0..7,
    )
}

/// One request to sign and everything it is signed with.
#[derive(Clone, Debug)]
pub struct Case {
    /// The method as the caller spells it (signers upper-case it).
    pub method: &'static str,
    /// The URL, its query built from `query` the way the client builds it.
    pub url: Url,
    /// The query parameters the URL was built from.
    pub query: Vec<(String, String)>,
    /// Form parameters (POST only).
    pub form: Vec<(String, String)>,
    pub consumer_key: String,
    pub consumer_secret: String,
    /// `Some("")` is a blank token.
    pub token: Option<String>,
    /// Empty when there is no token.
    pub token_secret: String,
    pub nonce: String,
    pub timestamp: i64,
    pub callback: Option<String>,
    pub verifier: Option<String>,
    /// Whether `oauth_version="1.0"` is sent.
    pub version: bool,
}

/// The protocol parameters of a case: consumer key and secret, token and secret, nonce,
/// timestamp, callback, verifier, version.
#[allow(clippy::type_complexity)]
fn protocol() -> impl Strategy<
    Value = (
        String,
        String,
        Option<(String, String)>,
        String,
        i64,
        Option<String>,
        Option<String>,
        bool,
    ),
> {
    (
        prop_oneof!["[a-zA-Z0-9]{16}", tricky_text()],
        tricky_text(),
        prop::option::of((
            prop_oneof![Just(String::new()), "[a-f0-9]{8}", tricky_text()],
            tricky_text(),
        )),
        prop_oneof!["[a-f0-9]{32}", tricky_text()],
        prop_oneof![Just(1i64), 1_000_000_000i64..=9_999_999_999],
        prop::option::of(prop_oneof![
            Just("oob".to_owned()),
            Just("https://app.example/cb?x=1&y=a b".to_owned()),
            tricky_text()
        ]),
        prop::option::of(tricky_text()),
        any::<bool>(),
    )
}

pub fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![
            Just("GET"),
            Just("POST"),
            Just("PUT"),
            Just("DELETE"),
            Just("patch")
        ],
        prop_oneof![
            Just("https://marketplace.example"),
            Just("HTTPS://Marketplace.Example:443"),
            Just("https://marketplace.example:8443"),
            Just("http://127.0.0.1:8080"),
            Just("http://EXAMPLE.com:80"),
        ],
        prop::collection::vec(tricky_text(), 0..3),
        params(),
        params(),
        protocol(),
    )
        .prop_map(|(method, base, segments, query, form, protocol)| {
            let (
                consumer_key,
                consumer_secret,
                token,
                nonce,
                timestamp,
                callback,
                verifier,
                version,
            ) = protocol;
            let mut url = Url::parse(base).expect("a base URL");
            url.path_segments_mut()
                .expect("an http(s) URL has a path")
                .extend(&segments);
            if !query.is_empty() {
                url.query_pairs_mut().extend_pairs(&query);
            }
            // Only POST bodies are form-encoded parameters.
            let form = if method == "POST" { form } else { Vec::new() };
            let (token, token_secret) = match token {
                Some((token, secret)) => (Some(token), secret),
                None => (None, String::new()),
            };
            Case {
                method,
                url,
                query,
                form,
                consumer_key,
                consumer_secret,
                token,
                token_secret,
                nonce,
                timestamp,
                callback,
                verifier,
                version,
            }
        })
}

impl Case {
    pub fn oauth(&self) -> OAuthParams<'_> {
        OAuthParams {
            consumer_key: &self.consumer_key,
            token: self.token.as_deref(),
            nonce: &self.nonce,
            timestamp: self.timestamp,
            callback: self.callback.as_deref(),
            verifier: self.verifier.as_deref(),
            version: self.version.then_some("1.0"),
        }
    }

    pub fn key(&self) -> SigningKey<'_> {
        SigningKey {
            consumer_secret: &self.consumer_secret,
            token_secret: &self.token_secret,
        }
    }

    /// The request with its query read back from the URL, and its form.
    pub fn url_request(&self) -> SignatureRequest<'_> {
        SignatureRequest {
            method: self.method,
            url: &self.url,
            form: &self.form,
        }
    }

    /// The request as the client signs it: the query as pairs. `None` with a form body, which
    /// this shape does not carry (the client sends none).
    pub fn pairs_request(&self) -> Option<PairsRequest<'_, String, String>> {
        self.form.is_empty().then_some(PairsRequest {
            method: self.method,
            url: &self.url,
            query: &self.query,
        })
    }

    /// The form body as sent.
    pub fn form_body(&self) -> Option<String> {
        (!self.form.is_empty()).then(|| {
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&self.form)
                .finish()
        })
    }
}
