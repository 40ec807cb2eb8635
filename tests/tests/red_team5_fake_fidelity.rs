//! Red team 5: the fake marketplace's fidelity to the reference of the service
//! (`/work/shared/marketplace-api.md`) and to its own docs, over real HTTP as an app sees it.
//! Requests are signed here by hand (the base string written in this file, HMAC-SHA1 from
//! oauth1-request), so the fake is checked against a signer that shares nothing with it.
//!
//! Four cases failed when they were written. Two found the fake signing a parameter the
//! service ignores (a misspelled data or `oauth_` name): the fake now reads only each method's
//! parameters from the spec and RFC 5849's, and refuses such a signature naming what it
//! ignored. Two asserted the literal reading of the workroom page rule, which the project
//! decided against (ARCHITECTURE.md, decisions): they are now one generated test of the
//! decision, which the fake's docs now state.

use marketplace_tests::runtime;
use std::sync::atomic::{AtomicU64, Ordering};

use marketplace_client::reqwest;
use marketplace_fake::FakeMarketplace;
use oauth1_request::signature_method::{HmacSha1, Sign, SignatureMethod};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn enc(s: &str) -> String {
    utf8_percent_encode(s, UNRESERVED).to_string()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

static NONCE: AtomicU64 = AtomicU64::new(0);

fn fresh_nonce() -> String {
    let n = NONCE.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("rt5n{t}x{n}")
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Header,
    Body,
}

/// One request signed by hand (RFC 5849, HMAC-SHA1 over a base string built here).
#[derive(Clone, Debug)]
struct Raw {
    method: &'static str,
    path: String,
    query: Vec<(String, String)>,
    form: Vec<(String, String)>,
    /// Protocol parameters, without `oauth_signature`.
    oauth: Vec<(String, String)>,
    place: Place,
    consumer_secret: String,
    token_secret: String,
    /// Parameters sent in the query but left out of the base string.
    unsigned_query: Vec<(String, String)>,
    /// Replace the computed signature with this (already percent-encoded) text.
    signature_override: Option<String>,
    realm: Option<String>,
}

#[derive(Debug)]
struct Answer {
    status: u16,
    content_type: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
    fn form(&self, name: &str) -> Option<String> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }
    /// The error code wherever the nested default shape puts it.
    fn code(&self) -> String {
        let j = self.json();
        j.pointer("/error/code")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    }
    fn kind(&self) -> String {
        let j = self.json();
        j.pointer("/error/type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    }
}

struct Fx {
    fake: FakeMarketplace,
    http: reqwest::Client,
}

impl Fx {
    async fn start() -> Fx {
        let fake = FakeMarketplace::start().await.expect("fake starts");
        let http = fake.http_client();
        Fx { fake, http }
    }
    fn key(&self) -> String {
        self.fake.credentials().consumer_key.clone()
    }
    fn secret(&self) -> String {
        self.fake.credentials().consumer_secret.clone()
    }
    fn base_oauth(&self, token: &str) -> Vec<(String, String)> {
        pairs(&[
            ("oauth_consumer_key", &self.key()),
            ("oauth_nonce", &fresh_nonce()),
            ("oauth_signature_method", "HMAC-SHA1"),
            ("oauth_timestamp", &now_secs().to_string()),
            ("oauth_token", token),
            ("oauth_version", "1.0"),
        ])
    }
    fn raw(&self, method: &'static str, path: &str, token: &str, token_secret: &str) -> Raw {
        Raw {
            method,
            path: path.to_owned(),
            query: Vec::new(),
            form: Vec::new(),
            oauth: self.base_oauth(token),
            place: Place::Header,
            consumer_secret: self.secret(),
            token_secret: token_secret.to_owned(),
            unsigned_query: Vec::new(),
            signature_override: None,
            realm: Some(String::new()),
        }
    }
    /// A data call signed with an access token of `user`.
    fn data(&self, user: u64, method: &str, query: &[(&str, &str)]) -> Raw {
        let session = self.fake.session(user).expect("session");
        let token = session.token();
        let mut raw = self.raw(
            "GET",
            &format!("/api/{method}"),
            token.token(),
            token.secret().expose(),
        );
        raw.query = pairs(query);
        raw
    }
    async fn send(&self, raw: &Raw) -> Answer {
        let base_uri = format!("{}{}", self.fake.base_url(), raw.path);
        let mut all: Vec<(String, String)> = Vec::new();
        all.extend(raw.query.iter().cloned());
        all.extend(
            raw.form
                .iter()
                .filter(|(k, _)| raw.place == Place::Header || !k.starts_with("oauth_"))
                .cloned(),
        );
        all.extend(raw.oauth.iter().cloned());
        let mut encoded: Vec<(String, String)> =
            all.iter().map(|(k, v)| (enc(k), enc(v))).collect();
        encoded.sort();
        let mut sign = HmacSha1::new().sign_with(&raw.consumer_secret, Some(&raw.token_secret));
        sign.request_method(raw.method);
        sign.uri(enc(&base_uri));
        for (i, (k, v)) in encoded.iter().enumerate() {
            if i > 0 {
                sign.delimiter();
            }
            sign.parameter(&enc(k), enc(v));
        }
        let signature = raw
            .signature_override
            .clone()
            .unwrap_or_else(|| sign.end().to_string());
        let query: Vec<String> = raw
            .query
            .iter()
            .chain(raw.unsigned_query.iter())
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect();
        let mut form: Vec<String> = raw
            .form
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect();
        let mut header = None;
        match raw.place {
            Place::Header => {
                let mut parts: Vec<String> = Vec::new();
                if let Some(realm) = &raw.realm {
                    parts.push(format!("realm=\"{realm}\""));
                }
                parts.extend(
                    raw.oauth
                        .iter()
                        .map(|(k, v)| format!("{}=\"{}\"", enc(k), enc(v))),
                );
                parts.push(format!("oauth_signature=\"{signature}\""));
                header = Some(format!("OAuth {}", parts.join(", ")));
            }
            Place::Body => {
                form.extend(
                    raw.oauth
                        .iter()
                        .map(|(k, v)| format!("{}={}", enc(k), enc(v))),
                );
                form.push(format!("oauth_signature={signature}"));
            }
        }
        let url = if query.is_empty() {
            base_uri.clone()
        } else {
            format!("{base_uri}?{}", query.join("&"))
        };
        let method = reqwest::Method::from_bytes(raw.method.as_bytes()).expect("method");
        let mut request = self.http.request(method, &url);
        if let Some(h) = header {
            request = request.header("Authorization", h);
        }
        if !form.is_empty() || raw.method == "POST" {
            request = request
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(form.join("&"));
        }
        let response = request.send().await.expect("the fake answers");
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = response.text().await.unwrap_or_default();
        Answer {
            status,
            content_type,
            body,
        }
    }
    async fn request_token(&self, callback: Option<&str>) -> (Answer, String, String) {
        let mut raw = self.raw("POST", "/oauth/getRequestToken", "", "");
        if let Some(cb) = callback {
            raw.oauth.push(("oauth_callback".into(), cb.into()));
        }
        let a = self.send(&raw).await;
        let t = a.form("oauth_token").unwrap_or_default();
        let s = a.form("oauth_token_secret").unwrap_or_default();
        (a, t, s)
    }
    fn authorization_url(&self, token: &str) -> String {
        format!(
            "{}/oauth/authorizeToken?oauth_token={}",
            self.fake.base_url(),
            enc(token)
        )
    }
    async fn approve(&self, token: &str, approve: bool) -> marketplace_fake::Authorization {
        self.fake
            .authorize(&self.authorization_url(token), "dwhitfield", approve)
            .await
            .expect("authorize")
    }
    async fn access_token(&self, token: &str, secret: &str, verifier: &str) -> Answer {
        let mut raw = self.raw("POST", "/oauth/getAccessToken", token, secret);
        raw.oauth.push(("oauth_verifier".into(), verifier.into()));
        self.send(&raw).await
    }
}

fn verifier_of(a: &marketplace_fake::Authorization) -> String {
    match a {
        marketplace_fake::Authorization::Verifier(v) => v.clone(),
        marketplace_fake::Authorization::Callback(url) => url
            .query_pairs()
            .find(|(k, _)| k == "oauth_verifier")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default(),
        marketplace_fake::Authorization::Denied => String::new(),
    }
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn assert_oauth_refusal(a: &Answer, what: &str) {
    assert_eq!(
        a.status, 401,
        "{what}: expected the fake's OAuth refusal (401), got {} {}",
        a.status, a.body
    );
    assert_eq!(
        a.kind(),
        "authentication",
        "{what}: OAuth errors are of type authentication: {}",
        a.body
    );
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

fn is_dd_mon_yy(v: &Value) -> bool {
    let Some(s) = v.as_str() else { return false };
    let b = s.as_bytes();
    b.len() == 9
        && b[0].is_ascii_digit()
        && b[1].is_ascii_digit()
        && b[2] == b'-'
        && MONTHS.contains(&&s[3..6])
        && b[6] == b'-'
        && b[7].is_ascii_digit()
        && b[8].is_ascii_digit()
}

// ---------------------------------------------------------------------------------------------
// OAuth
// ---------------------------------------------------------------------------------------------

/// Reference, Authentication 9: "A parameter whose name is misspelled is ignored by the service
/// and therefore changes the computed signature." and Errors, E_API_AUTH_SIGNATURE_MISMATCH:
/// "Causes: ... misspelled or mismatched parameter names". A data call carrying a parameter the
/// method does not have (signed by the app with it) must be refused as a signature mismatch.
#[test]
fn a_misspelled_data_parameter_is_ignored_and_so_refused_as_a_signature_mismatch() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let names = prop_oneof![
        Just("bidid".to_owned()),
        Just("bid_id".to_owned()),
        Just("RPP".to_owned()),
        Just("pages".to_owned()),
        "[a-z]{3,10}".prop_filter("not a parameter of the method", |n| ![
            "bidid", "rpp", "page"
        ]
        .contains(&n.as_str())
            && n != "bidId"),
    ];
    runner(12)
        .run(&(names, "[0-9]{1,3}"), |(name, value)| {
            let raw = fx.data(
                40001,
                "pay/getTimesheetsForBid",
                &[("bidId", "310001"), (&name, &value)],
            );
            let a = rt.block_on(fx.send(&raw));
            prop_assert_eq!(
                a.status,
                401,
                "misspelled `{}` accepted: {} {}",
                name,
                a.status,
                &a.body[..a.body.len().min(200)]
            );
            prop_assert_eq!(a.code(), "E_API_AUTH_SIGNATURE_MISMATCH");
            Ok(())
        })
        .unwrap();
}

/// Reference, OAuth parameter table: "oauth_signature_method | required, must be HMAC-SHA1";
/// Authentication 3: "Signature method HMAC-SHA1 only." A request correctly signed with
/// PLAINTEXT (or naming another method) is refused, on every OAuth endpoint and data calls.
#[tokio::test]
async fn a_signature_method_other_than_hmac_sha1_is_refused_even_when_its_signature_is_right() {
    let fx = Fx::start().await;
    for method in ["PLAINTEXT", "RSA-SHA1", "HMAC-SHA256", "hmac-sha1"] {
        let mut raw = fx.raw("POST", "/oauth/getRequestToken", "", "");
        for (k, v) in &mut raw.oauth {
            if k == "oauth_signature_method" {
                *v = method.to_owned();
            }
        }
        if method == "PLAINTEXT" {
            raw.signature_override = Some(enc(&format!("{}&", enc(&fx.secret()))));
        }
        let a = fx.send(&raw).await;
        assert_oauth_refusal(&a, method);
    }
}

/// Reference, OAuth parameter table: "oauth_version | optional, default 1.0, only valid value
/// 1.0". Absent: accepted; any other value: refused.
#[test]
fn oauth_version_is_optional_and_only_1_0_is_valid() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let mut raw = fx.raw("POST", "/oauth/getRequestToken", "", "");
    raw.oauth.retain(|(k, _)| k != "oauth_version");
    let a = rt.block_on(fx.send(&raw));
    assert_eq!(
        a.status, 200,
        "oauth_version absent must default to 1.0: {}",
        a.body
    );
    runner(16)
        .run(
            &"(1|1\\.1|2\\.0|1\\.0a|1\\.00|0\\.9|[0-9]\\.[0-9]{1,2})"
                .prop_filter("not 1.0", |v| v != "1.0"),
            |version| {
                let mut raw = fx.raw("POST", "/oauth/getRequestToken", "", "");
                for (k, v) in &mut raw.oauth {
                    if k == "oauth_version" {
                        v.clone_from(&version);
                    }
                }
                let a = rt.block_on(fx.send(&raw));
                prop_assert_eq!(
                    a.status,
                    401,
                    "oauth_version={} accepted: {}",
                    version,
                    a.body
                );
                Ok(())
            },
        )
        .unwrap();
}

/// Reference, Authentication 8: "Timestamps: the client clock must be within a few minutes of
/// network time, or the signed request is rejected." Generated offsets of a quarter hour to
/// days, either way, on a data call and on getRequestToken; a few seconds off is accepted.
#[test]
fn a_timestamp_far_off_the_service_clock_is_refused_and_a_close_one_accepted() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let far = (900i64..400_000).prop_flat_map(|m| prop_oneof![Just(m), Just(-m)]);
    runner(12)
        .run(&(far, any::<bool>()), |(offset, data)| {
            let mut raw = if data {
                fx.data(40001, "pay/getInvoice", &[("id", "8901")])
            } else {
                fx.raw("POST", "/oauth/getRequestToken", "", "")
            };
            for (k, v) in &mut raw.oauth {
                if k == "oauth_timestamp" {
                    *v = (now_secs() + offset).to_string();
                }
            }
            let a = rt.block_on(fx.send(&raw));
            prop_assert_eq!(
                a.status,
                401,
                "timestamp {}s off accepted: {}",
                offset,
                &a.body[..a.body.len().min(200)]
            );
            Ok(())
        })
        .unwrap();
    for offset in [-30i64, 30] {
        let mut raw = fx.data(40001, "pay/getInvoice", &[("id", "8901")]);
        for (k, v) in &mut raw.oauth {
            if k == "oauth_timestamp" {
                *v = (now_secs() + offset).to_string();
            }
        }
        let a = rt.block_on(fx.send(&raw));
        assert_eq!(
            a.status, 200,
            "{offset}s off is within a few minutes: {}",
            a.body
        );
    }
}

/// Reference, OAuth parameter table: "oauth_nonce | required | Random value against replay."
/// A nonce reused by the same application and token on a *different* request (other
/// parameters, other endpoint) is still a replay and is refused.
#[tokio::test]
async fn a_nonce_reused_on_a_different_request_of_the_same_token_is_refused() {
    let fx = Fx::start().await;
    let session = fx.fake.session(40001).expect("session");
    let (tok, sec) = (
        session.token().token().to_owned(),
        session.token().secret().expose().to_owned(),
    );
    let mut first = fx.raw("GET", "/api/pay/getInvoice", &tok, &sec);
    first.query = pairs(&[("id", "8901")]);
    assert_eq!(fx.send(&first).await.status, 200);
    let mut second = first.clone();
    second.path = "/api/pay/getPayment".into();
    second.query = pairs(&[("id", "6901")]);
    let a = fx.send(&second).await;
    assert_oauth_refusal(&a, "nonce reused on another method");
    let mut third = first.clone();
    third.query = pairs(&[("id", "8902")]);
    let a = fx.send(&third).await;
    assert_oauth_refusal(&a, "nonce reused with another id");
}

/// Reference, Errors: "E_API_AUTH_SIGNATURE_MISMATCH | The signature computed by the service
/// differs from the client's." and "OAuth-related errors are of the error type authentication."
/// Any single-character change of a good signature is refused with that code and type, on
/// every OAuth endpoint and a data call.
#[test]
fn any_one_character_change_of_a_signature_is_refused_with_the_documented_code_and_type() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let alphabet: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        .chars()
        .collect();
    runner(16)
        .run(&(0usize..27, 0usize..64, 0u8..3), |(pos, ch, endpoint)| {
            let mut raw = match endpoint {
                0 => fx.raw("POST", "/oauth/getRequestToken", "", ""),
                1 => {
                    let s = fx.fake.session(40001).expect("session");
                    fx.raw(
                        "POST",
                        "/oauth/revokeToken",
                        s.token().token(),
                        s.token().secret().expose(),
                    )
                }
                _ => fx.data(40001, "pay/getInvoice", &[("id", "8901")]),
            };
            // Compute the good signature by sending nothing: sign through a copy with a known override.
            let good = {
                let mut probe = raw.clone();
                probe.signature_override = None;
                signature_of(&fx, &probe)
            };
            let decoded: String = percent_encoding::percent_decode_str(&good)
                .decode_utf8_lossy()
                .into_owned();
            let mut chars: Vec<char> = decoded.chars().collect();
            let p = pos % chars.len().saturating_sub(1).max(1);
            let replacement = alphabet[ch];
            prop_assume!(chars[p] != replacement);
            chars[p] = replacement;
            let bad: String = chars.into_iter().collect();
            raw.signature_override = Some(enc(&bad));
            let a = rt.block_on(fx.send(&raw));
            prop_assert_eq!(a.status, 401, "tampered signature accepted: {}", a.body);
            prop_assert_eq!(a.code(), "E_API_AUTH_SIGNATURE_MISMATCH");
            prop_assert_eq!(a.kind(), "authentication");
            Ok(())
        })
        .unwrap();
}

fn signature_of(fx: &Fx, raw: &Raw) -> String {
    let base_uri = format!("{}{}", fx.fake.base_url(), raw.path);
    let mut all: Vec<(String, String)> = Vec::new();
    all.extend(raw.query.iter().cloned());
    all.extend(
        raw.form
            .iter()
            .filter(|(k, _)| raw.place == Place::Header || !k.starts_with("oauth_"))
            .cloned(),
    );
    all.extend(raw.oauth.iter().cloned());
    let mut encoded: Vec<(String, String)> = all.iter().map(|(k, v)| (enc(k), enc(v))).collect();
    encoded.sort();
    let mut sign = HmacSha1::new().sign_with(&raw.consumer_secret, Some(&raw.token_secret));
    sign.request_method(raw.method);
    sign.uri(enc(&base_uri));
    for (i, (k, v)) in encoded.iter().enumerate() {
        if i > 0 {
            sign.delimiter();
        }
        sign.parameter(&enc(k), enc(v));
    }
    sign.end().to_string()
}

/// Reference, token lifecycle: "Authorized request token | POST getAccessToken | Token, verifier
/// and signature correct | Access token". A verifier issued for another request token (the
/// user approved two apps' requests, or two tabs) does not unlock this one; neither does a
/// missing verifier, nor a request token the user never approved.
#[tokio::test]
async fn a_verifier_of_another_request_token_or_none_does_not_exchange() {
    let fx = Fx::start().await;
    let (_, t1, s1) = fx.request_token(Some("myapp://one")).await;
    let (_, t2, s2) = fx.request_token(Some("myapp://two")).await;
    let v1 = verifier_of(&fx.approve(&t1, true).await);
    let v2 = verifier_of(&fx.approve(&t2, true).await);
    assert!(!v1.is_empty() && !v2.is_empty());
    let crossed = fx.access_token(&t1, &s1, &v2).await;
    assert_oauth_refusal(&crossed, "verifier of token 2 on token 1");
    let mut none = fx.raw("POST", "/oauth/getAccessToken", &t2, &s2);
    none.oauth.retain(|(k, _)| k != "oauth_verifier");
    assert_oauth_refusal(&fx.send(&none).await, "no verifier");
    let (_, t3, s3) = fx.request_token(None).await;
    assert_oauth_refusal(&fx.access_token(&t3, &s3, &v1).await, "unapproved token");
    // Reference, flow 4(d): "signed with the consumer secret and the request token secret".
    assert_oauth_refusal(
        &fx.access_token(&t1, &s2, &v1).await,
        "other token's secret",
    );
    // And the right pairing still works after those refusals of others.
    let ok = fx.access_token(&t2, &s2, &v2).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert!(
        ok.form("oauth_token").is_some_and(|t| t != t2) && ok.form("oauth_token_secret").is_some()
    );
}

/// Reference, getRequestToken response: "oauth_callback_confirmed (always true)", and the
/// callback row: "Callback (if oauth_callback given) receives oauth_token and oauth_verifier";
/// oauth_callback: "URI (any scheme)". Generated app schemes with a query of their own: the
/// redirect keeps the app's URI and query and adds the request token and a verifier.
#[test]
fn a_callback_of_any_scheme_with_its_own_query_receives_the_token_and_verifier() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    runner(8)
        .run(
            &("[a-z][a-z0-9+.-]{0,10}", "[a-z]{1,8}", "[A-Za-z0-9]{1,12}"),
            |(scheme, path, state)| {
                prop_assume!(!["http", "https", "oob"].contains(&scheme.as_str()));
                let callback = format!("{scheme}://{path}/done?state={state}");
                let (a, t, _) = rt.block_on(fx.request_token(Some(&callback)));
                prop_assert_eq!(a.status, 200, "callback {} refused: {}", callback, a.body);
                let confirmed = a.form("oauth_callback_confirmed");
                prop_assert_eq!(confirmed.as_deref(), Some("true"));
                let auth = rt.block_on(fx.approve(&t, true));
                let marketplace_fake::Authorization::Callback(url) = auth else {
                    return Err(TestCaseError::fail(format!(
                        "no callback redirect for {callback}: {auth:?}"
                    )));
                };
                prop_assert_eq!(url.scheme(), scheme.as_str());
                let q: Vec<(String, String)> = url
                    .query_pairs()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect();
                prop_assert!(
                    q.contains(&("state".into(), state.clone())),
                    "app's query lost: {}",
                    url
                );
                prop_assert!(
                    q.contains(&("oauth_token".into(), t.clone())),
                    "no oauth_token: {}",
                    url
                );
                prop_assert!(
                    q.iter()
                        .any(|(k, v)| k == "oauth_verifier" && !v.is_empty()),
                    "no verifier: {}",
                    url
                );
                Ok(())
            },
        )
        .unwrap();
    let (a, _, _) = rt.block_on(fx.request_token(None));
    assert_eq!(
        a.form("oauth_callback_confirmed").as_deref(),
        Some("true"),
        "always true: {}",
        a.body
    );
}

/// Reference, Authentication 6: "Parameters may appear in the Authorization header or the POST
/// body. When both carry OAuth values, the header values are used." With a good header, the
/// body's OAuth values (another consumer key, a bogus signature and nonce) are ignored, on
/// getAccessToken, where the verifier is the one in the header.
#[tokio::test]
async fn header_oauth_values_win_over_conflicting_body_values_at_the_access_token_step() {
    let fx = Fx::start().await;
    let (_, t, s) = fx.request_token(Some("myapp://cb")).await;
    let v = verifier_of(&fx.approve(&t, true).await);
    let mut raw = fx.raw("POST", "/oauth/getAccessToken", &t, &s);
    raw.oauth.push(("oauth_verifier".into(), v));
    raw.form = pairs(&[
        ("oauth_consumer_key", "someone-else"),
        ("oauth_signature", "bm90IGEgc2lnbmF0dXJl"),
        ("oauth_verifier", "wrong"),
        ("oauth_token", "not-the-request-token"),
    ]);
    // The header carries OAuth, so the body's oauth_* values are not part of the signature.
    raw.form.retain(|_| true);
    let mut signed = raw.clone();
    signed.form.clear();
    raw.signature_override = Some(signature_of(&fx, &signed));
    let a = fx.send(&raw).await;
    assert_eq!(a.status, 200, "header values must be used: {}", a.body);
}

/// Reference, token lifecycle: "Access token | POST revokeToken | Token supplied with a signed
/// request | Expired". An unsigned or badly signed revocation is not a signed request: the
/// token stays valid. A properly signed one (parameters in the POST body) ends it at once.
#[tokio::test]
async fn only_a_properly_signed_revocation_expires_the_token() {
    let fx = Fx::start().await;
    let session = fx.fake.session(40001).expect("session");
    let (tok, sec) = (
        session.token().token().to_owned(),
        session.token().secret().expose().to_owned(),
    );
    let mut bad = fx.raw("POST", "/oauth/revokeToken", &tok, &sec);
    bad.signature_override = Some(enc("AAAAAAAAAAAAAAAAAAAAAAAAAAA="));
    assert_oauth_refusal(&fx.send(&bad).await, "badly signed revocation");
    let mut wrong_secret = fx.raw("POST", "/oauth/revokeToken", &tok, "not-the-secret");
    wrong_secret.place = Place::Body;
    assert_oauth_refusal(
        &fx.send(&wrong_secret).await,
        "revocation signed with another secret",
    );
    let mut call = fx.raw("GET", "/api/pay/getInvoice", &tok, &sec);
    call.query = pairs(&[("id", "8901")]);
    assert_eq!(
        fx.send(&call).await.status,
        200,
        "token must survive refused revocations"
    );
    let mut good = fx.raw("POST", "/oauth/revokeToken", &tok, &sec);
    good.place = Place::Body;
    let a = fx.send(&good).await;
    assert_eq!(a.status, 200, "signed revocation in the body: {}", a.body);
    let mut after = fx.raw("GET", "/api/pay/getInvoice", &tok, &sec);
    after.query = pairs(&[("id", "8901")]);
    assert_oauth_refusal(&fx.send(&after).await, "data call after revocation");
}

/// Reference, flow 4(b)-(d) and the lifecycle: only an *access* token authenticates data calls;
/// a request token (approved or not) is not one, and an access token is not a request token.
#[tokio::test]
async fn a_request_token_never_authenticates_a_data_call_nor_an_access_token_an_exchange() {
    let fx = Fx::start().await;
    let (_, t, s) = fx.request_token(Some("myapp://cb")).await;
    let v = verifier_of(&fx.approve(&t, true).await);
    let mut call = fx.raw("GET", "/api/pay/getInvoice", &t, &s);
    call.query = pairs(&[("id", "8901")]);
    assert_oauth_refusal(
        &fx.send(&call).await,
        "approved request token on a data call",
    );
    let session = fx.fake.session(40001).expect("session");
    let (at, asec) = (
        session.token().token().to_owned(),
        session.token().secret().expose().to_owned(),
    );
    assert_oauth_refusal(
        &fx.access_token(&at, &asec, &v).await,
        "access token at getAccessToken",
    );
}

// ---------------------------------------------------------------------------------------------
// Paging
// ---------------------------------------------------------------------------------------------

/// Reference, workroom/getWorkviewDetails: "page | no | integer | Default 1; when equal to or
/// above totalPages, no records are returned." and Limits: "Workroom method: page equal to or
/// above totalPages gives none". Read literally (pages counted from 1, as "Default 1" says),
/// a day's last page could never be fetched, and a day of one page would show nothing at the
/// default page. The project decided (ARCHITECTURE.md, decisions; the fake's `data` module
/// docs) to read it as every other paged method: pages 1 to totalPages hold the buckets, a
/// page above totalPages none. This case was written as a failing test of the literal reading;
/// the lead kept the decision, documented it in the fake's docs, and turned the case into a
/// test of the decision, as a class: generated day, `rpp` (default 6, cap 10) and page, every
/// bucket reachable exactly once in order, every page above totalPages empty.
#[test]
fn workroom_pages_hold_every_bucket_once_and_pages_above_total_pages_none() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let fetch = |date: &str, rpp: Option<u64>, page: Option<u64>| -> Vec<Value> {
        let mut q = vec![
            ("bidId".to_owned(), "310003".to_owned()),
            ("userId".to_owned(), "50003".to_owned()),
            ("date".to_owned(), date.to_owned()),
        ];
        q.extend(rpp.map(|rpp| ("rpp".to_owned(), rpp.to_string())));
        q.extend(page.map(|page| ("page".to_owned(), page.to_string())));
        let qq: Vec<(&str, &str)> = q.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let a = rt.block_on(fx.send(&fx.data(40001, "workroom/getWorkviewDetails", &qq)));
        let buckets = a.json()["data"]["screenBuckets"].clone();
        let object = buckets.as_object().cloned().unwrap_or_default();
        (0..object.len())
            .map(|i| object.get(&i.to_string()).cloned().unwrap_or(Value::Null))
            .collect()
    };
    let days = prop::sample::select(vec![
        ("30-DEC-25", 9usize),
        ("02-JAN-26", 3),
        ("05-JAN-26", 2),
    ]);
    runner(16)
        .run(
            &(days, prop::option::of(1u64..=12), 0u64..3),
            |((date, n), rpp, past)| {
                let everything = fetch(date, Some(10), None);
                prop_assert_eq!(everything.len(), n, "{} has {} buckets", date, n);
                let size = rpp.unwrap_or(6).min(10);
                let total_pages = (n as u64).div_ceil(size);
                let mut seen = Vec::new();
                for page in 1..=total_pages {
                    let got = fetch(date, rpp, Some(page));
                    prop_assert!(
                        !got.is_empty(),
                        "{} rpp={:?} page {} of {} is empty",
                        date,
                        rpp,
                        page,
                        total_pages
                    );
                    seen.extend(got);
                }
                prop_assert_eq!(
                    &seen,
                    &everything,
                    "{} rpp={:?}: the pages in order are the day",
                    date,
                    rpp
                );
                let above = fetch(date, rpp, Some(total_pages + 1 + past));
                prop_assert!(
                    above.is_empty(),
                    "{} rpp={:?} page {} (totalPages {}): {} buckets",
                    date,
                    rpp,
                    total_pages + 1 + past,
                    total_pages,
                    above.len()
                );
                Ok(())
            },
        )
        .unwrap();
}

/// Reference, pay/getTimesheetsForBid and manage/getMyProviders: "rpp ... default 10 / 20;
/// values above 25 give 25"; "page ... From 1; default 1; above totalPages gives zero
/// results". Generated rpp and page: numResults, totalPages and the collection agree with
/// the clamped page size, totals never change, and a page past the end is an empty object.
#[test]
fn page_sizes_clamp_at_25_and_pages_past_the_end_are_empty_with_unchanged_totals() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let cases = (
        prop_oneof![Just(0u8), Just(1), Just(2)],
        prop::option::of(1u64..400),
        1u64..12,
    );
    runner(24)
        .run(&cases, |(which, rpp, page)| {
            let (method, bid, coll, total, default) = match which {
                0 => (
                    "pay/getTimesheetsForBid",
                    Some("310001"),
                    "timesheets",
                    23u64,
                    10u64,
                ),
                1 => (
                    "pay/getStatusReportsForBid",
                    Some("310002"),
                    "statusReports",
                    12,
                    10,
                ),
                _ => ("manage/getMyProviders", None, "agents", 27, 20),
            };
            let (rpp_s, page_s) = (rpp.map(|r| r.to_string()), page.to_string());
            let mut q: Vec<(&str, &str)> = vec![("page", &page_s)];
            if let Some(b) = bid {
                q.push(("bidId", b));
            }
            if let Some(r) = &rpp_s {
                q.push(("rpp", r));
            }
            let a = rt.block_on(fx.send(&fx.data(40001, method, &q)));
            prop_assert_eq!(a.status, 200, "{}", a.body);
            let d = &a.json()["data"];
            let size = rpp.unwrap_or(default).min(25);
            let pages = total.div_ceil(size);
            let expect = if page > pages {
                0
            } else {
                (total - (page - 1) * size).min(size)
            };
            let num = |v: &Value| {
                v.as_u64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            };
            prop_assert_eq!(num(&d["totalResults"]), Some(total));
            prop_assert_eq!(num(&d["totalPages"]), Some(pages));
            prop_assert_eq!(num(&d["numResults"]), Some(expect));
            prop_assert_eq!(num(&d["page"]), Some(page));
            let m = d[coll].as_object();
            prop_assert!(
                m.is_some(),
                "{} must be an object, even when empty: {}",
                coll,
                d[coll]
            );
            prop_assert_eq!(m.map(|m| m.len() as u64), Some(expect));
            Ok(())
        })
        .unwrap();
}

/// Reference, manage/getMyProviders: "data: jobName (string, only when bidId given) ...
/// totalPages (JSON number), page (JSON number), numResults (JSON number)", and bidId: "Only
/// the provider of that Workroom is returned."
#[tokio::test]
async fn providers_carry_job_name_only_for_a_bid_and_counts_as_json_numbers() {
    let fx = Fx::start().await;
    let all = fx
        .send(&fx.data(40001, "manage/getMyProviders", &[]))
        .await
        .json();
    assert!(
        all["data"].get("jobName").is_none(),
        "jobName without bidId: {}",
        all["data"]["jobName"]
    );
    let one = fx
        .send(&fx.data(40001, "manage/getMyProviders", &[("bidId", "310002")]))
        .await
        .json();
    let d = &one["data"];
    assert_eq!(
        d["jobName"].as_str(),
        Some(fx.fake.world().fixed_price_workroom().job_name.as_str())
    );
    let agents = d["agents"].as_object().expect("agents object");
    assert_eq!(agents.len(), 1);
    assert_eq!(agents["0"]["screenData"]["bidId"], "310002");
    for k in ["totalPages", "page", "numResults"] {
        assert!(
            d[k].is_number() && all["data"][k].is_number(),
            "{k} must be a JSON number"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Wire quirks, in the fixed and the varied spellings
// ---------------------------------------------------------------------------------------------

const COLLECTIONS: [&str; 11] = [
    "timesheets",
    "statusReports",
    "agents",
    "workItems",
    "progressItems",
    "comments",
    "invoiceDetails",
    "invoiceActivity",
    "payments",
    "screenBuckets",
    "screens",
];

fn calls(fx: &Fx) -> Vec<(String, Vec<(String, String)>)> {
    let h = fx.fake.world().hourly_workroom();
    let f = fx.fake.world().fixed_price_workroom();
    let mut out: Vec<(String, Vec<(String, String)>)> = vec![
        (
            "pay/getTimesheetsForBid".into(),
            pairs(&[("bidId", "310001"), ("rpp", "25")]),
        ),
        (
            "pay/getStatusReportsForBid".into(),
            pairs(&[("bidId", "310002"), ("rpp", "25")]),
        ),
        ("pay/getTimesheet".into(), pairs(&[("bidId", "310001")])),
        ("pay/getStatusReport".into(), pairs(&[("bidId", "310002")])),
        ("manage/getMyProviders".into(), pairs(&[("rpp", "25")])),
        (
            "manage/getMyProviders".into(),
            pairs(&[("bidId", "310001")]),
        ),
        (
            "workroom/getWorkviewDetails".into(),
            pairs(&[("bidId", "310003"), ("userId", "50003")]),
        ),
        (
            "workroom/getWorkviewDetails".into(),
            pairs(&[("bidId", "310001"), ("userId", "50001")]),
        ),
    ];
    for id in h.timesheets.iter().take(2).chain(h.timesheets.last()) {
        out.push((
            "pay/getTimesheet".into(),
            vec![("id".into(), id.to_string())],
        ));
    }
    for id in f.status_reports.iter().take(2) {
        out.push((
            "pay/getStatusReport".into(),
            vec![("id".into(), id.to_string())],
        ));
    }
    for id in h.invoices.iter().take(2).chain(f.invoices.iter().take(2)) {
        out.push(("pay/getBilling".into(), vec![("id".into(), id.to_string())]));
        out.push(("pay/getInvoice".into(), vec![("id".into(), id.to_string())]));
    }
    for id in h.payments.iter().take(2).chain(f.payments.iter().take(2)) {
        out.push(("pay/getPayment".into(), vec![("id".into(), id.to_string())]));
    }
    out
}

async fn fetch_all(fx: &Fx) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (m, q) in calls(fx) {
        let qq: Vec<(&str, &str)> = q.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let a = fx.send(&fx.data(40001, &m, &qq)).await;
        assert_eq!(a.status, 200, "{m} {q:?}: {}", a.body);
        assert!(
            a.content_type.starts_with("application/json"),
            "{m}: a JSON response, not {}",
            a.content_type
        );
        out.push((format!("{m} {q:?}"), a.json()));
    }
    out
}

fn walk(v: &Value, path: &str, f: &mut dyn FnMut(&str, &str, &Value)) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                f(path, k, x);
                walk(x, &format!("{path}.{k}"), f);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                walk(x, &format!("{path}.{i}"), f);
            }
        }
        _ => {}
    }
}

/// The wire rules of the reference that hold for every answer, whatever the spelling:
/// "Collections documented as arrays (...) are delivered as JSON objects keyed by zero-based
/// index strings ("0", "1", ...). An empty collection is an empty object. Only the arrays
/// paymentIds and invoiceIds are plain JSON arrays of integers."; the envelope "apiVersion |
/// integer | 1", "rcode | integer | 1"; DD-MON-YY fields (week; the list's startDate, endDate,
/// nextEndDate; screenData date) stay DD-MON-YY; the JSON-number fields of getMyProviders
/// (totalPages, page, numResults; Agent hours, hoursToday "decimal (JSON number)") stay numbers;
/// booleans (isHourly, overdue, ...) stay booleans.
fn check_wire_rules(label: &str, body: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    if body["apiVersion"] != 1 || body["rcode"] != 1 {
        bad.push(format!(
            "{label}: envelope apiVersion/rcode not the integer 1: {} {}",
            body["apiVersion"], body["rcode"]
        ));
    }
    walk(body, "", &mut |path, k, x| {
        let at = format!("{label} {path}.{k}");
        // `comments` is a collection in getTimesheet/getStatusReport data, a string in InvoiceData.
        if COLLECTIONS.contains(&k) && (k != "comments" || path == ".data") {
            match x.as_object() {
                Some(m) => {
                    let mut keys: Vec<usize> = m.keys().filter_map(|s| s.parse().ok()).collect();
                    keys.sort_unstable();
                    let canonical = m
                        .keys()
                        .all(|s| s.parse::<usize>().is_ok_and(|n| n.to_string() == *s));
                    if !canonical || keys != (0..m.len()).collect::<Vec<_>>() {
                        bad.push(format!(
                            "{at}: keys are not \"0\"..\"{}\": {:?}",
                            m.len(),
                            m.keys().collect::<Vec<_>>()
                        ));
                    }
                }
                None => bad.push(format!("{at}: a collection that is not an object: {x}")),
            }
        }
        if (k == "paymentIds" || k == "invoiceIds")
            && !x.as_array().is_some_and(|a| a.iter().all(Value::is_u64))
        {
            bad.push(format!("{at}: not a plain array of integers: {x}"));
        }
        if k == "week" && !is_dd_mon_yy(x) {
            bad.push(format!("{at}: not DD-MON-YY: {x}"));
        }
        if k == "date" && path.contains("screens") && !is_dd_mon_yy(x) {
            bad.push(format!("{at}: screenData date not DD-MON-YY: {x}"));
        }
        if label.starts_with("pay/getTimesheetsForBid")
            && path.contains("timesheets")
            && [
                "startDate",
                "endDate",
                "nextEndDate",
                "submitDate",
                "sentDate",
                "approveByDate",
                "autoPayDate",
            ]
            .contains(&k)
            && !is_dd_mon_yy(x)
        {
            bad.push(format!("{at}: list date not DD-MON-YY: {x}"));
        }
        if label.starts_with("manage/getMyProviders")
            && ((path == ".data" && ["totalPages", "page", "numResults"].contains(&k))
                || (path.contains("agents")
                    && !path.contains("screenData")
                    && ["hours", "hoursToday"].contains(&k)))
            && !x.is_number()
        {
            bad.push(format!("{at}: must be a JSON number: {x}"));
        }
        if [
            "isHourly",
            "isSponsored",
            "isPreBid",
            "overdue",
            "seenByClient",
            "revised",
            "isOnTracker",
        ]
        .contains(&k)
            && !x.is_boolean()
        {
            bad.push(format!("{at}: not a boolean: {x}"));
        }
    });
    bad
}

#[tokio::test]
async fn the_fixed_spelling_keeps_every_wire_rule_of_the_reference() {
    let fx = Fx::start().await;
    let bad: Vec<String> = fetch_all(&fx)
        .await
        .iter()
        .flat_map(|(l, b)| check_wire_rules(l, b))
        .collect();
    assert!(
        bad.is_empty(),
        "{} departures:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The fake's docs: "each value takes one of the spellings the spec declares for that field in
/// that method ... never another value", and the reference's wire rules above still hold
/// under every seed (generated seeds).
#[test]
fn varied_spellings_keep_every_wire_rule_of_the_reference() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    runner(6)
        .run(&any::<u64>(), |seed| {
            fx.fake
                .set_spellings(marketplace_fake::Spellings::Varied { seed });
            let all = rt.block_on(fetch_all(&fx));
            let bad: Vec<String> = all
                .iter()
                .flat_map(|(l, b)| check_wire_rules(l, b))
                .collect();
            prop_assert!(
                bad.is_empty(),
                "seed {}: {} departures:\n{}",
                seed,
                bad.len(),
                bad.join("\n")
            );
            Ok(())
        })
        .unwrap();
}

fn normalized(v: &Value) -> Value {
    match v {
        Value::Number(n) => Value::String(n.to_string()),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), normalized(x))).collect())
        }
        other => other.clone(),
    }
}

/// The fake's docs (spelling module): "Values never change, only their spelling: a string
/// becomes a number only when the number is written with the same text ("14", never
/// "12.50"). The same seed and the same request give the same bytes, whatever the order of
/// requests." Generated seeds: every varied answer equals the fixed one once numbers and
/// strings are compared as text, and two fakes asked in opposite orders give the same bytes.
#[test]
fn varied_spellings_change_no_value_and_repeat_byte_for_byte_in_any_order() {
    let rt = runtime();
    let fixed_fx = rt.block_on(Fx::start());
    let fixed = rt.block_on(fetch_all(&fixed_fx));
    let a = rt.block_on(Fx::start());
    let b = rt.block_on(Fx::start());
    runner(4)
        .run(&any::<u64>(), |seed| {
            a.fake
                .set_spellings(marketplace_fake::Spellings::Varied { seed });
            b.fake
                .set_spellings(marketplace_fake::Spellings::Varied { seed });
            let mut forward = Vec::new();
            for (m, q) in calls(&a) {
                let qq: Vec<(&str, &str)> =
                    q.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                forward.push(rt.block_on(a.send(&a.data(40001, &m, &qq))).body);
            }
            let mut backward = Vec::new();
            for (m, q) in calls(&b).into_iter().rev() {
                let qq: Vec<(&str, &str)> =
                    q.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                backward.push(rt.block_on(b.send(&b.data(40001, &m, &qq))).body);
            }
            backward.reverse();
            for (i, ((f, g), (label, fixed_body))) in
                forward.iter().zip(&backward).zip(&fixed).enumerate()
            {
                prop_assert_eq!(
                    f,
                    g,
                    "seed {}: call {} ({}) differs between request orders",
                    seed,
                    i,
                    label
                );
                let varied: Value = serde_json::from_str(f).unwrap_or(Value::Null);
                prop_assert_eq!(
                    normalized(&varied),
                    normalized(fixed_body),
                    "seed {}: {} changed a value",
                    seed,
                    label
                );
            }
            Ok(())
        })
        .unwrap();
}

/// Reference, TimesheetData: "startDate, endDate, nextEndDate | DD-MON-YY string in
/// pay/getTimesheetsForBid; epoch integer in pay/getTimesheet"; "submitDate, sentDate,
/// approveByDate, autoPayDate | ... Present only once the timesheet has been sent; absent on
/// Draft"; "planComment | In the single-timesheet response only"; "adjustedHours | In the list
/// response only"; "amountBilled, amountPaid, amountOutstanding | In the single-timesheet
/// response only"; "invoiceId | Present only when an invoice exists".
#[tokio::test]
async fn timesheet_fields_appear_where_and_as_the_reference_places_them() {
    let fx = Fx::start().await;
    let list = fx
        .send(&fx.data(
            40001,
            "pay/getTimesheetsForBid",
            &[("bidId", "310001"), ("rpp", "25")],
        ))
        .await
        .json();
    let mut bad = Vec::new();
    for (i, t) in list["data"]["timesheets"]
        .as_object()
        .expect("timesheets")
        .iter()
    {
        let draft = t["status"] == "Draft";
        for k in ["submitDate", "sentDate", "approveByDate", "autoPayDate"] {
            if draft == t.get(k).is_some() {
                bad.push(format!(
                    "list {i} ({}) {k} present={}",
                    t["status"],
                    t.get(k).is_some()
                ));
            }
        }
        for k in [
            "planComment",
            "amountBilled",
            "amountPaid",
            "amountOutstanding",
        ] {
            if t.get(k).is_some() {
                bad.push(format!("list {i}: {k} is single-response only"));
            }
        }
        if t.get("adjustedHours").is_none() {
            bad.push(format!("list {i}: adjustedHours missing"));
        }
    }
    let h = fx.fake.world().hourly_workroom();
    for id in &h.timesheets {
        let one = fx
            .send(&fx.data(40001, "pay/getTimesheet", &[("id", &id.to_string())]))
            .await
            .json();
        let t = &one["data"]["timesheet"];
        let draft = t["status"] == "Draft";
        for k in ["startDate", "endDate", "nextEndDate"] {
            if !t[k].is_i64() {
                bad.push(format!("single {id}: {k} not an epoch integer: {}", t[k]));
            }
        }
        for k in ["submitDate", "sentDate", "approveByDate", "autoPayDate"] {
            if draft == t.get(k).is_some() || (!draft && !t[k].is_i64()) {
                bad.push(format!("single {id} ({}) {k}: {:?}", t["status"], t.get(k)));
            }
        }
        for k in [
            "planComment",
            "amountBilled",
            "amountPaid",
            "amountOutstanding",
        ] {
            if t.get(k).is_none() {
                bad.push(format!("single {id}: {k} missing"));
            }
        }
        if t.get("adjustedHours").is_some() {
            bad.push(format!("single {id}: adjustedHours is list-only"));
        }
        if let Some(inv) = t.get("invoiceId") {
            let inv = inv.as_u64().unwrap_or(0);
            let r = fx
                .send(&fx.data(40001, "pay/getInvoice", &[("id", &inv.to_string())]))
                .await;
            if r.status != 200 {
                bad.push(format!(
                    "single {id}: invoiceId {inv} not usable with getInvoice: {}",
                    r.body
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Reference, pay/getPayment: "the payment record (PaymentData), documented under the name
/// invoice and delivered under the name payment"; pay/getBilling: "The properties are
/// documented as siblings of bidDetails but are delivered inside billing"; BidData:
/// "clientUserId | Absent in the provider-list and Workroom-monitoring variants",
/// "providerUserId | Absent in the provider-list and Workroom-monitoring variants".
#[tokio::test]
async fn payloads_arrive_under_their_delivered_names_and_bid_variants_drop_user_ids() {
    let fx = Fx::start().await;
    let p = fx
        .send(&fx.data(40001, "pay/getPayment", &[("id", "6901")]))
        .await
        .json();
    assert!(
        p["data"].get("payment").is_some() && p["data"].get("invoice").is_none(),
        "{}",
        p["data"]
    );
    assert_eq!(p["data"]["payment"]["invoiceId"], 8901);
    let b = fx
        .send(&fx.data(40001, "pay/getBilling", &[("id", "8901")]))
        .await
        .json();
    for k in ["invoice", "invoiceDetails", "invoiceActivity", "payments"] {
        assert!(b["data"]["billing"].get(k).is_some(), "billing.{k} missing");
        assert!(
            b["data"].get(k).is_none(),
            "{k} delivered as a sibling of bidDetails"
        );
    }
    let providers = fx
        .send(&fx.data(40001, "manage/getMyProviders", &[("rpp", "25")]))
        .await
        .json();
    for (i, a) in providers["data"]["agents"].as_object().expect("agents") {
        let bid = &a["screenData"]["bidData"];
        assert!(
            bid.get("clientUserId").is_none() && bid.get("providerUserId").is_none(),
            "agent {i}: {bid}"
        );
    }
    let w = fx
        .send(&fx.data(
            40001,
            "workroom/getWorkviewDetails",
            &[("bidId", "310003"), ("userId", "50003")],
        ))
        .await;
    let bid = &w.json()["data"]["bidData"];
    assert!(
        bid.get("clientUserId").is_none() && bid.get("providerUserId").is_none(),
        "workroom bidData: {bid}"
    );
}

/// Reference, workroom/getWorkviewDetails: "date | no | string DD-MON-YY | Day; when omitted,
/// the most recent data is returned and prevDate/nextDate are used to navigate", "nextDate
/// (next available date; null when none)". Walking back by prevDate visits every seeded day,
/// and each day's nextDate names the day after it.
#[tokio::test]
async fn workroom_days_navigate_by_prev_and_next_date() {
    let fx = Fx::start().await;
    let w = fx.fake.world().screenshots_workroom();
    let mut seen = Vec::new();
    let mut date: Option<String> = None;
    let mut later: Value = Value::Null;
    for _ in 0..10 {
        let mut q = vec![("bidId", "310003"), ("userId", "50003")];
        if let Some(d) = &date {
            q.push(("date", d));
        }
        let a = fx
            .send(&fx.data(40001, "workroom/getWorkviewDetails", &q))
            .await;
        assert_eq!(a.status, 200, "{}", a.body);
        let d = &a.json()["data"];
        assert_eq!(d["nextDate"], later, "nextDate of {}", d["date"]);
        assert!(is_dd_mon_yy(&d["date"]), "{}", d["date"]);
        seen.push(d["date"].as_str().unwrap_or_default().to_owned());
        later = d["date"].clone();
        match d["prevDate"].as_str() {
            Some(p) => date = Some(p.to_owned()),
            None => break,
        }
    }
    assert_eq!(
        seen.len(),
        w.screenshot_days.len(),
        "days visited: {seen:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Reference, Errors: "E_VALIDATION_INVALID_ID_BIDID | Neither id nor bidId was supplied.",
/// "E_VALIDATION_INVALID_ID | id or bidId is invalid, or is valid but the current user has no
/// permission to the object." Generated ids (malformed, unknown, or another user's records):
/// always E_VALIDATION_INVALID_ID for getTimesheet and getStatusReport.
#[test]
fn invalid_or_foreign_ids_answer_e_validation_invalid_id() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    for m in ["pay/getTimesheet", "pay/getStatusReport"] {
        let a = rt.block_on(fx.send(&fx.data(40001, m, &[])));
        assert_eq!(a.code(), "E_VALIDATION_INVALID_ID_BIDID", "{m}: {}", a.body);
    }
    let h = fx.fake.world().hourly_workroom();
    let f = fx.fake.world().fixed_price_workroom();
    let ids = prop_oneof![
        "[0-9]{1,5}",
        "-[0-9]{1,3}",
        "[a-z]{1,6}",
        "[0-9]{2,4}\\.[0-9]",
        prop::sample::select(
            h.timesheets
                .iter()
                .chain(&f.status_reports)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
        ),
    ];
    runner(20)
        .run(
            &(ids, any::<bool>(), any::<bool>()),
            |(id, sheet, by_bid)| {
                let m = if sheet {
                    "pay/getTimesheet"
                } else {
                    "pay/getStatusReport"
                };
                let key = if by_bid { "bidId" } else { "id" };
                // User 40002 (Mira Khan) is party to none of Dana Whitfield's records.
                let a = rt.block_on(fx.send(&fx.data(40002, m, &[(key, &id)])));
                prop_assert_eq!(
                    a.code(),
                    "E_VALIDATION_INVALID_ID",
                    "{} {}={}: {} {}",
                    m,
                    key,
                    id,
                    a.status,
                    a.body
                );
                Ok(())
            },
        )
        .unwrap();
}

/// Reference, Errors: "E_WORKROOM_INVALID_BID | bidId is invalid or missing where required.",
/// "E_API_NOT_AUTHORIZED | The user is not authorized to access the data.", "E_WORKROOM_BID_ACCESS
/// | The user given by userId has no access to the workroom given by bidId."
#[tokio::test]
async fn workroom_errors_are_the_documented_ones() {
    let fx = Fx::start().await;
    let m = "workroom/getWorkviewDetails";
    for q in [
        vec![("userId", "50003")],
        vec![("bidId", "abc"), ("userId", "50003")],
        vec![("bidId", "999999"), ("userId", "50003")],
    ] {
        let a = fx.send(&fx.data(40001, m, &q)).await;
        assert_eq!(a.code(), "E_WORKROOM_INVALID_BID", "{q:?}: {}", a.body);
    }
    let a = fx
        .send(&fx.data(40002, m, &[("bidId", "310003"), ("userId", "50003")]))
        .await;
    assert_eq!(a.code(), "E_API_NOT_AUTHORIZED", "{}", a.body);
    let a = fx
        .send(&fx.data(40001, m, &[("bidId", "310003"), ("userId", "50002")]))
        .await;
    assert_eq!(a.code(), "E_WORKROOM_BID_ACCESS", "{}", a.body);
}

// ---------------------------------------------------------------------------------------------
// The fake's own promises
// ---------------------------------------------------------------------------------------------

/// Fake crate docs: "every OAuth failure answers 401 with E_API_AUTH_SIGNATURE_MISMATCH (type
/// authentication)". Generated junk Authorization headers on every endpoint: each is answered
/// so (no 5xx, no reset), and the fake keeps serving.
#[test]
fn junk_authorization_headers_are_typed_oauth_refusals_and_never_break_the_fake() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let header = prop_oneof![
        "OAuth [ -~]{0,80}",
        "OAuth (oauth_[a-z_]{1,12}=\"[ -~&&[^\"]]{0,10}\", ?){0,8}",
        "[ -~]{0,60}",
        Just("OAuth oauth_consumer_key=\"\\\"".to_owned()),
        Just("OAuth ,,,,=,=\"".to_owned()),
    ];
    let paths = prop::sample::select(vec![
        ("POST", "/oauth/getRequestToken"),
        ("POST", "/oauth/getAccessToken"),
        ("POST", "/oauth/revokeToken"),
        ("GET", "/api/pay/getTimesheet?bidId=310001"),
        ("GET", "/api/manage/getMyProviders"),
    ]);
    runner(40)
        .run(&(header, paths), |(header, (method, path))| {
            let url = format!("{}{path}", fx.fake.base_url());
            let m = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
            let r = rt.block_on(async {
                let resp = fx
                    .http
                    .request(m, &url)
                    .header("Authorization", header.as_str())
                    .send()
                    .await?;
                let status = resp.status().as_u16();
                let body = resp.text().await?;
                Ok::<_, reqwest::Error>(Answer {
                    status,
                    content_type: String::new(),
                    body,
                })
            });
            let a = match r {
                Ok(a) => a,
                Err(e) => {
                    return Err(TestCaseError::fail(format!(
                        "no answer for {header:?}: {e}"
                    )));
                }
            };
            prop_assert_eq!(
                a.status,
                401,
                "{} {} with {:?}: {}",
                method,
                path,
                header,
                a.body
            );
            prop_assert_eq!(a.code(), "E_API_AUTH_SIGNATURE_MISMATCH");
            prop_assert_eq!(a.kind(), "authentication");
            Ok(())
        })
        .unwrap();
    let ok = rt.block_on(fx.send(&fx.data(40001, "pay/getInvoice", &[("id", "8901")])));
    assert_eq!(ok.status, 200, "the fake still serves");
}

/// Fake crate docs: "unknown paths answer 404 JSON errors" and data::respond: "An unknown method
/// gives 404 E_API_UNKNOWN_METHOD."
#[tokio::test]
async fn unknown_paths_answer_404_json() {
    let fx = Fx::start().await;
    for path in [
        "/api/pay/getTimesheets",
        "/api/pay/gettimesheet",
        "/api/work/room",
        "/nowhere",
        "/oauth/requestToken",
    ] {
        let resp = fx
            .http
            .get(format!("{}{path}", fx.fake.base_url()))
            .send()
            .await
            .expect("answer");
        let status = resp.status().as_u16();
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = resp.text().await.unwrap_or_default();
        assert_eq!(status, 404, "{path}: {body}");
        assert!(
            ct.starts_with("application/json") && serde_json::from_str::<Value>(&body).is_ok(),
            "{path}: {ct} {body}"
        );
    }
    let signed = fx
        .send(&fx.data(40001, "pay/getTimesheets", &[("bidId", "310001")]))
        .await;
    assert_eq!(
        (signed.status, signed.code().as_str()),
        (404, "E_API_UNKNOWN_METHOD"),
        "{}",
        signed.body
    );
}

/// Fake docs: "HTTPS on 127.0.0.1"; FakeMarketplace: "A running fake marketplace on 127.0.0.1
/// with an OS-chosen port". Nothing answers on the same port at the machine's other addresses.
#[tokio::test]
async fn the_fake_listens_on_loopback_only() {
    let fx = Fx::start().await;
    let url = url::Url::parse(fx.fake.base_url()).expect("url");
    assert_eq!(url.host_str(), Some("127.0.0.1"));
    let port = url.port().expect("port");
    let mut others: Vec<std::net::IpAddr> = Vec::new();
    if let Ok(sock) = std::net::UdpSocket::bind("0.0.0.0:0") {
        if sock.connect("192.0.2.1:9").is_ok() {
            if let Ok(a) = sock.local_addr() {
                others.push(a.ip());
            }
        }
    }
    others.push("127.0.0.2".parse().expect("ip"));
    for ip in others
        .into_iter()
        .filter(|ip| !ip.is_unspecified() && *ip != std::net::IpAddr::from([127, 0, 0, 1]))
    {
        let attempt = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            tokio::net::TcpStream::connect((ip, port)),
        )
        .await;
        assert!(
            !matches!(attempt, Ok(Ok(_))),
            "the fake accepted a connection at {ip}:{port}"
        );
    }
}

#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Fake docs (recording): "the parameters without any oauth_* value (a secret-named one
/// blanked), ... four headers (... never Authorization or cookies), ... the OAuth endpoints'
/// answers (credentials only) are kept without their bodies". A whole flow recorded by the
/// fake holds no consumer secret, token, token secret, verifier or signature.
#[tokio::test]
async fn a_fake_recording_of_the_whole_flow_holds_no_credential() {
    let fx = Fx::start().await;
    let buf = Shared::default();
    let recorder = marketplace_client::recording::Recorder::to_writer(buf.clone());
    fx.fake.record(recorder.clone());
    let (_, t, s) = fx.request_token(Some("myapp://cb")).await;
    let v = verifier_of(&fx.approve(&t, true).await);
    let at = fx.access_token(&t, &s, &v).await;
    let (tok, sec) = (
        at.form("oauth_token").unwrap_or_default(),
        at.form("oauth_token_secret").unwrap_or_default(),
    );
    let mut call = fx.raw("GET", "/api/pay/getTimesheetsForBid", &tok, &sec);
    call.query = pairs(&[("bidId", "310001")]);
    let signature = signature_of(&fx, &call);
    assert_eq!(fx.send(&call).await.status, 200);
    let mut revoke = fx.raw("POST", "/oauth/revokeToken", &tok, &sec);
    revoke.place = Place::Body;
    let _ = fx.send(&revoke).await;
    // Refusals too: their bodies explain the base string, which holds the verifier and token.
    let (_, t2, s2) = fx.request_token(Some("myapp://cb")).await;
    let v2 = verifier_of(&fx.approve(&t2, true).await);
    let mut refused = fx.raw("POST", "/oauth/getAccessToken", &t2, &s2);
    refused.oauth.push(("oauth_verifier".into(), v2.clone()));
    refused.signature_override = Some(enc("AAAAAAAAAAAAAAAAAAAAAAAAAAA="));
    assert_eq!(fx.send(&refused).await.status, 401);
    let other = fx.fake.session(40001).expect("session");
    let other_token = other.token().token().to_owned();
    let mut wrong = fx.raw("GET", "/api/pay/getInvoice", &other_token, "wrong");
    wrong.query = pairs(&[("id", "8901"), ("password", "hunter2-canary")]);
    assert_eq!(fx.send(&wrong).await.status, 401);
    recorder.flush().expect("flush");
    let text = String::from_utf8_lossy(&buf.0.lock().expect("lock")).into_owned();
    assert!(text.lines().count() >= 4, "recorded: {text}");
    let decoded_sig = percent_encoding::percent_decode_str(&signature)
        .decode_utf8_lossy()
        .into_owned();
    for (name, secret) in [
        ("consumer secret", fx.secret()),
        ("request token", t),
        ("request token secret", s),
        ("verifier", v),
        ("access token", tok),
        ("access token secret", sec),
        ("signature", decoded_sig),
        ("verifier of the refused exchange", v2),
        ("password parameter", "hunter2-canary".to_owned()),
    ] {
        assert!(
            !secret.is_empty() && !text.contains(&secret),
            "the recording holds the {name}"
        );
    }
    assert!(
        !text.to_ascii_lowercase().contains("authorization\""),
        "an Authorization header was kept"
    );
}

/// Fake docs (replay): "The OAuth flow and the signature checks stay the fake's own"; "A request
/// no recording matches is answered 404 E_FAKE_NO_RECORDING". A replayed request with a bad
/// signature, or after the token's six hours, is the fake's OAuth refusal, not the recording;
/// a request with other parameters is the documented miss.
#[tokio::test]
async fn replay_keeps_the_fakes_oauth_and_answers_misses_as_documented() {
    let fx = Fx::start().await;
    let buf = Shared::default();
    let recorder = marketplace_client::recording::Recorder::to_writer(buf.clone());
    fx.fake.record(recorder.clone());
    assert_eq!(
        fx.send(&fx.data(40001, "pay/getInvoice", &[("id", "8901")]))
            .await
            .status,
        200
    );
    recorder.flush().expect("flush");
    let text = String::from_utf8_lossy(&buf.0.lock().expect("lock")).into_owned();
    let exchanges: Vec<_> = text
        .lines()
        .map(|l| marketplace_client::recording::Exchange::from_line(l).expect("exchange"))
        .collect();
    let replayer = Fx::start().await;
    replayer
        .fake
        .replay(marketplace_fake::Replay::from_exchanges(exchanges).expect("replay"));
    let ok = replayer
        .send(&replayer.data(40001, "pay/getInvoice", &[("id", "8901")]))
        .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    let mut bad = replayer.data(40001, "pay/getInvoice", &[("id", "8901")]);
    bad.signature_override = Some(enc("AAAAAAAAAAAAAAAAAAAAAAAAAAA="));
    assert_oauth_refusal(&replayer.send(&bad).await, "bad signature under replay");
    let session = replayer.fake.session(40001).expect("session");
    let (tok, sec) = (
        session.token().token().to_owned(),
        session.token().secret().expose().to_owned(),
    );
    replayer.fake.clock().advance(
        marketplace_client::jiff::SignedDuration::from_hours(6)
            + marketplace_client::jiff::SignedDuration::from_secs(60),
    );
    let mut late = replayer.raw("GET", "/api/pay/getInvoice", &tok, &sec);
    late.query = pairs(&[("id", "8901")]);
    for (k, v) in &mut late.oauth {
        if k == "oauth_timestamp" {
            *v = (now_secs() + 6 * 3600 + 60).to_string();
        }
    }
    assert_oauth_refusal(&replayer.send(&late).await, "expired token under replay");
    replayer
        .fake
        .clock()
        .set_offset(marketplace_client::jiff::SignedDuration::ZERO);
    let miss = replayer
        .send(&replayer.data(40001, "pay/getInvoice", &[("id", "8902")]))
        .await;
    assert_eq!(
        (miss.status, miss.code().as_str()),
        (404, "E_FAKE_NO_RECORDING"),
        "{}",
        miss.body
    );
}

/// Fake docs: every refusal typed, "answers each documented error where the reference says"; the
/// data module's decisions: "rpp or page below 1 or not an integer: 400
/// E_VALIDATION_INVALID_PARAMETER". Generated values (any printable text, huge numbers, signs,
/// decimals) for every parameter of every method, properly signed: each answer is a JSON
/// success or a 4xx JSON error with a code, never a 5xx or a broken connection.
#[test]
fn generated_parameter_values_never_make_the_fake_fail() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let methods = prop::sample::select(vec![
        ("pay/getTimesheetsForBid", vec!["bidId", "rpp", "page"]),
        ("pay/getStatusReportsForBid", vec!["bidId", "rpp", "page"]),
        ("pay/getTimesheet", vec!["id", "bidId"]),
        ("pay/getStatusReport", vec!["id", "bidId"]),
        ("pay/getBilling", vec!["id"]),
        ("pay/getInvoice", vec!["id"]),
        ("pay/getPayment", vec!["id"]),
        ("manage/getMyProviders", vec!["bidId", "rpp", "page"]),
        (
            "workroom/getWorkviewDetails",
            vec!["bidId", "userId", "date", "rpp", "page"],
        ),
    ]);
    let value = prop_oneof![
        "[ -~]{0,12}",
        "[0-9]{15,25}",
        "-[0-9]{1,20}",
        "\\+[0-9]{1,3}",
        "[0-9]{1,3}\\.[0-9]{1,2}",
        "[0-9]{2}-[A-Za-z]{3}-[0-9]{2,4}",
        "\\PC{0,6}",
        Just("18446744073709551616".to_owned()),
        Just("9223372036854775808".to_owned()),
        Just("310001".to_owned()),
    ];
    runner(60)
        .run(
            &(methods, prop::collection::vec(value, 5)),
            |((method, params), values)| {
                let q: Vec<(&str, &str)> = params
                    .iter()
                    .zip(&values)
                    .map(|(k, v)| (*k, v.as_str()))
                    .collect();
                let a = rt.block_on(fx.send(&fx.data(40001, method, &q)));
                prop_assert!(
                    a.status < 500,
                    "{} {:?}: {} {}",
                    method,
                    q,
                    a.status,
                    a.body
                );
                let j = a.json();
                prop_assert!(j.is_object(), "{} {:?}: not JSON: {}", method, q, a.body);
                if a.status != 200 {
                    prop_assert!((400..500).contains(&a.status));
                    prop_assert!(
                        a.code().starts_with("E_"),
                        "{} {:?}: no code: {}",
                        method,
                        q,
                        a.body
                    );
                }
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(
        rt.block_on(fx.send(&fx.data(40001, "pay/getInvoice", &[("id", "8901")])))
            .status,
        200
    );
}

/// Reference: "pay/getPayment ... id: payment ID, taken from InvoiceData.paymentIds. The related
/// invoice is fetched with pay/getInvoice using PaymentData.invoiceId."; pay/getBilling: "id ...
/// taken from TimesheetData.invoiceId or from an element of StatusReportData.invoiceIds";
/// InvoiceActivityData: "paymentId | 0 when no payment; otherwise the ID of a PaymentData
/// record". Every link in every seeded workroom of the caller resolves, and back.
#[tokio::test]
async fn every_cross_reference_between_records_resolves() {
    let fx = Fx::start().await;
    let mut bad = Vec::new();
    let mut invoices: Vec<u64> = Vec::new();
    for (m, key, bid) in [
        ("pay/getTimesheetsForBid", "timesheets", "310001"),
        ("pay/getStatusReportsForBid", "statusReports", "310002"),
    ] {
        for page in ["1", "2"] {
            let list = fx
                .send(&fx.data(40001, m, &[("bidId", bid), ("rpp", "25"), ("page", page)]))
                .await
                .json();
            for r in list["data"][key]
                .as_object()
                .into_iter()
                .flat_map(|o| o.values())
            {
                if let Some(i) = r.get("invoiceId") {
                    invoices.extend(
                        i.as_u64()
                            .or_else(|| i.as_str().and_then(|s| s.parse().ok())),
                    );
                }
                for i in r
                    .get("invoiceIds")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    invoices.extend(i.as_u64());
                }
            }
        }
    }
    assert!(!invoices.is_empty());
    for inv in &invoices {
        let b = fx
            .send(&fx.data(40001, "pay/getBilling", &[("id", &inv.to_string())]))
            .await;
        if b.status != 200 {
            bad.push(format!("invoice {inv}: getBilling {}", b.body));
            continue;
        }
        let billing = &b.json()["data"]["billing"];
        let ids: Vec<u64> = billing["invoice"]["paymentIds"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
            .collect();
        for act in billing["invoiceActivity"]
            .as_object()
            .into_iter()
            .flat_map(|o| o.values())
        {
            let p = act["paymentId"].as_u64().unwrap_or(u64::MAX);
            if p != 0 && !ids.contains(&p) {
                bad.push(format!(
                    "invoice {inv}: activity paymentId {p} not in paymentIds {ids:?}"
                ));
            }
        }
        for pid in ids {
            let p = fx
                .send(&fx.data(40001, "pay/getPayment", &[("id", &pid.to_string())]))
                .await
                .json();
            if p["data"]["payment"]["invoiceId"].as_u64() != Some(*inv) {
                bad.push(format!(
                    "payment {pid} of invoice {inv}: invoiceId {}",
                    p["data"]["payment"]["invoiceId"]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Reference, Agent: "hours | decimal (JSON number) | Total hours logged on the project",
/// "hoursToday | ... Hours logged within the current calendar day"; workroom data "hours
/// (integer JSON number; hours worked by the provider that day)"; screenData: "screenId ...
/// screenURL, thumbURL, tileURL | Snapshot variant only", "bidId ... bidData | Provider-list
/// variant only".
#[tokio::test]
async fn agent_hours_total_the_timesheets_and_screen_data_variants_stay_apart() {
    let fx = Fx::start().await;
    let list = fx
        .send(&fx.data(
            40001,
            "pay/getTimesheetsForBid",
            &[("bidId", "310001"), ("rpp", "25")],
        ))
        .await
        .json();
    let mut total = rust_decimal::Decimal::ZERO;
    for t in list["data"]["timesheets"]
        .as_object()
        .expect("timesheets")
        .values()
    {
        total += t["totalHours"]
            .as_str()
            .and_then(|s| s.parse::<rust_decimal::Decimal>().ok())
            .expect("totalHours");
    }
    let agents = fx
        .send(&fx.data(40001, "manage/getMyProviders", &[("bidId", "310001")]))
        .await
        .json();
    let agent = &agents["data"]["agents"]["0"];
    let hours: rust_decimal::Decimal = agent["hours"].to_string().parse().expect("hours");
    assert_eq!(hours, total, "Agent.hours must total the project's hours");
    assert!(agent["hoursToday"].is_number());
    for k in ["screenId", "screenURL", "thumbURL", "tileURL"] {
        assert!(
            agent["screenData"].get(k).is_none(),
            "provider-list screenData carries {k}"
        );
    }
    for (bid, user) in [("310003", "50003"), ("310001", "50001")] {
        let w = fx
            .send(&fx.data(
                40001,
                "workroom/getWorkviewDetails",
                &[("bidId", bid), ("userId", user)],
            ))
            .await
            .json();
        assert!(
            w["data"]["hours"].is_u64(),
            "workroom hours must be an integer JSON number: {}",
            w["data"]["hours"]
        );
        for b in w["data"]["screenBuckets"]
            .as_object()
            .expect("buckets")
            .values()
        {
            for sd in b["screens"].as_object().expect("screens").values() {
                assert!(
                    sd.get("bidId").is_none() && sd.get("bidData").is_none(),
                    "snapshot screenData carries bid fields: {sd}"
                );
                assert!(
                    ["screenId", "screenURL", "thumbURL", "tileURL"]
                        .iter()
                        .all(|k| sd.get(*k).is_some()),
                    "{sd}"
                );
            }
        }
    }
}

/// Reference, StatusReportData: "startDate, endDate, nextEndDate | integer | Epoch."; "submitDate,
/// sentDate, approveByDate | integer | Epoch; absent on Draft."; "invoiceIds | array of integer
/// | Empty when no invoice exists."; pay/getStatusReport: "statusReport (declared as
/// TimesheetData but delivered with the StatusReportData fields)".
#[tokio::test]
async fn status_reports_carry_the_status_report_fields_in_list_and_single() {
    let fx = Fx::start().await;
    let mut reports: Vec<(String, Value)> = Vec::new();
    let list = fx
        .send(&fx.data(
            40001,
            "pay/getStatusReportsForBid",
            &[("bidId", "310002"), ("rpp", "25")],
        ))
        .await
        .json();
    for (i, r) in list["data"]["statusReports"].as_object().expect("reports") {
        reports.push((format!("list {i}"), r.clone()));
    }
    for id in fx.fake.world().fixed_price_workroom().status_reports {
        let one = fx
            .send(&fx.data(40001, "pay/getStatusReport", &[("id", &id.to_string())]))
            .await
            .json();
        reports.push((format!("single {id}"), one["data"]["statusReport"].clone()));
    }
    let current = fx
        .send(&fx.data(40001, "pay/getStatusReport", &[("bidId", "310002")]))
        .await
        .json();
    reports.push(("current".into(), current["data"]["statusReport"].clone()));
    let mut bad = Vec::new();
    for (label, r) in &reports {
        let draft = r["status"] == "Draft";
        for k in ["startDate", "endDate", "nextEndDate"] {
            if !r[k].is_i64() {
                bad.push(format!("{label}: {k} not epoch: {}", r[k]));
            }
        }
        for k in ["submitDate", "sentDate", "approveByDate"] {
            if draft == r.get(k).is_some() || (!draft && !r[k].is_i64()) {
                bad.push(format!("{label} ({}): {k} {:?}", r["status"], r.get(k)));
            }
        }
        if !r["invoiceIds"].is_array() {
            bad.push(format!("{label}: invoiceIds {}", r["invoiceIds"]));
        }
        for k in [
            "rate",
            "billedHours",
            "invoiceId",
            "autoPayDate",
            "adjustedHours",
        ] {
            if r.get(k).is_some() {
                bad.push(format!("{label}: timesheet-only field {k}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Fake docs (replay): "a request recorded several times ... is answered in recorded order";
/// replay module: "the last answers again once they are used up"; "A data request is matched by
/// method and parameters (OAuth values aside)": the same parameters in another order are the
/// same request.
#[tokio::test]
async fn replay_answers_repeated_recordings_in_order_and_ignores_parameter_order() {
    let fx = Fx::start().await;
    let buf = Shared::default();
    let recorder = marketplace_client::recording::Recorder::to_writer(buf.clone());
    fx.fake.record(recorder.clone());
    let q = [("bidId", "310001"), ("rpp", "5")];
    let first = fx
        .send(&fx.data(40001, "pay/getTimesheetsForBid", &q))
        .await
        .body;
    fx.fake
        .set_spellings(marketplace_fake::Spellings::Varied { seed: 11 });
    let second = fx
        .send(&fx.data(40001, "pay/getTimesheetsForBid", &q))
        .await
        .body;
    recorder.flush().expect("flush");
    assert_ne!(first, second, "two spellings of one answer");
    let text = String::from_utf8_lossy(&buf.0.lock().expect("lock")).into_owned();
    let exchanges: Vec<_> = text
        .lines()
        .map(|l| marketplace_client::recording::Exchange::from_line(l).expect("exchange"))
        .collect();
    let replayer = Fx::start().await;
    replayer
        .fake
        .replay(marketplace_fake::Replay::from_exchanges(exchanges).expect("replay"));
    let swapped = [("rpp", "5"), ("bidId", "310001")];
    let got: Vec<String> = vec![
        replayer
            .send(&replayer.data(40001, "pay/getTimesheetsForBid", &q))
            .await
            .body,
        replayer
            .send(&replayer.data(40001, "pay/getTimesheetsForBid", &swapped))
            .await
            .body,
        replayer
            .send(&replayer.data(40001, "pay/getTimesheetsForBid", &q))
            .await
            .body,
    ];
    assert_eq!(got[0], first, "first recording first");
    assert_eq!(
        got[1], second,
        "then the second (parameters in another order are the same request)"
    );
    assert_eq!(got[2], second, "the last answers again once used up");
    let count = replayer.fake.check_replay().expect("every request matched");
    assert_eq!(count.answered, 3);
}

fn misspell(word: &str, how: u8, at: usize) -> String {
    let mut c: Vec<char> = word.chars().collect();
    let i = at % c.len();
    match how % 3 {
        0 => {
            c.remove(i);
        }
        1 if i + 1 < c.len() => c.swap(i, i + 1),
        _ => c.insert(i, c[i]),
    }
    c.into_iter().collect()
}

/// Reference, Authentication 9: "A parameter whose name is misspelled is ignored by the service
/// and therefore changes the computed signature." The OAuth protocol parameters are no
/// exception: an app that misspells `oauth_callback` or `oauth_version` (generated
/// misspellings: a letter dropped, swapped or doubled) and signs what it sent is refused as a
/// signature mismatch, on getRequestToken and on a data call.
#[test]
fn a_misspelled_oauth_parameter_is_ignored_and_so_refused_as_a_signature_mismatch() {
    let rt = runtime();
    let fx = rt.block_on(Fx::start());
    let cases = (
        prop::sample::select(vec![("callback", "myapp://done"), ("version", "1.0")]),
        0u8..3,
        0usize..8,
        any::<bool>(),
    );
    runner(12)
        .run(&cases, |((word, value), how, at, data)| {
            let name = format!("oauth_{}", misspell(word, how, at));
            prop_assume!(name != format!("oauth_{word}"));
            prop_assume!(
                ![
                    "oauth_token",
                    "oauth_nonce",
                    "oauth_timestamp",
                    "oauth_signature",
                    "oauth_verifier"
                ]
                .contains(&name.as_str())
            );
            let mut raw = if data {
                fx.data(40001, "pay/getInvoice", &[("id", "8901")])
            } else {
                fx.raw("POST", "/oauth/getRequestToken", "", "")
            };
            raw.oauth.push((name.clone(), value.to_owned()));
            let a = rt.block_on(fx.send(&raw));
            prop_assert_eq!(
                a.status,
                401,
                "misspelled `{}` accepted ({}): {}",
                name,
                if data { "data call" } else { "getRequestToken" },
                &a.body[..a.body.len().min(160)]
            );
            prop_assert_eq!(a.code(), "E_API_AUTH_SIGNATURE_MISMATCH");
            Ok(())
        })
        .unwrap();
}

/// Reference, "Dates: the marketplace uses two formats. (a) Epoch ... (b) Day-month-year text
/// DD-MON-YY", TimesheetData: "startDate, endDate, nextEndDate | DD-MON-YY string in
/// pay/getTimesheetsForBid; epoch integer in pay/getTimesheet", "week | Week-ending day". The
/// two spellings of one timesheet name the same days (UTC), and week is the ending day.
#[tokio::test]
async fn both_date_formats_of_a_timesheet_name_the_same_days() {
    use marketplace_client::jiff::{Timestamp, tz::TimeZone};
    let fx = Fx::start().await;
    let list = fx
        .send(&fx.data(
            40001,
            "pay/getTimesheetsForBid",
            &[("bidId", "310001"), ("rpp", "25")],
        ))
        .await
        .json();
    let day = |epoch: &Value| -> String {
        let d = Timestamp::from_second(epoch.as_i64().unwrap_or(0))
            .expect("epoch")
            .to_zoned(TimeZone::UTC)
            .date();
        format!(
            "{:02}-{}-{:02}",
            d.day(),
            MONTHS[(d.month() - 1) as usize],
            d.year() % 100
        )
    };
    let mut bad = Vec::new();
    for t in list["data"]["timesheets"]
        .as_object()
        .expect("timesheets")
        .values()
    {
        let id = t["id"].as_u64().unwrap_or(0);
        let one = fx
            .send(&fx.data(40001, "pay/getTimesheet", &[("id", &id.to_string())]))
            .await
            .json();
        let s = &one["data"]["timesheet"];
        for k in [
            "startDate",
            "endDate",
            "nextEndDate",
            "submitDate",
            "sentDate",
            "approveByDate",
            "autoPayDate",
        ] {
            if t.get(k).is_some() && t[k].as_str() != Some(day(&s[k]).as_str()) {
                bad.push(format!(
                    "{id} {k}: list {} vs single {} ({})",
                    t[k],
                    s[k],
                    day(&s[k])
                ));
            }
        }
        if t["week"] != t["endDate"] || s["week"] != t["week"] {
            bad.push(format!(
                "{id}: week {} / {} vs endDate {}",
                t["week"], s["week"], t["endDate"]
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Reference, BidData: "userType | Role of the calling user in this bid; values CLIENT and
/// PROVIDER occur." The provider of a workroom calling its methods sees PROVIDER, its client
/// CLIENT.
#[tokio::test]
async fn user_type_is_the_callers_role_in_the_bid() {
    let fx = Fx::start().await;
    for (user, role) in [(40001u64, "CLIENT"), (50001, "PROVIDER")] {
        for (m, q) in [
            ("pay/getTimesheetsForBid", vec![("bidId", "310001")]),
            ("pay/getTimesheet", vec![("bidId", "310001")]),
            ("pay/getBilling", vec![("id", "8901")]),
            ("pay/getPayment", vec![("id", "6901")]),
        ] {
            let a = fx.send(&fx.data(user, m, &q)).await;
            assert_eq!(a.status, 200, "{user} {m}: {}", a.body);
            assert_eq!(
                a.json()["data"]["bidDetails"]["userType"],
                role,
                "{user} {m}"
            );
        }
    }
    let w = fx
        .send(&fx.data(
            50003,
            "workroom/getWorkviewDetails",
            &[("bidId", "310003"), ("userId", "50003")],
        ))
        .await;
    assert_eq!(
        w.json()["data"]["bidData"]["userType"],
        "PROVIDER",
        "{}",
        w.body
    );
}
