//! The fake marketplace server: the OAuth flow end to end with the client (approve with and
//! without a callback, deny), every reason a signed request is refused, token expiry and
//! revocation by the fake's clock, each injected fault on a raw request, plain HTTP, and the
//! `Date` header.

use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use marketplace_client::oauth::signature::{self, OAuthParams, SignatureRequest, SigningKey};
use marketplace_client::oauth::{RequestToken, Verifier};
use marketplace_client::{
    Client, ConsumerCredentials, Error, ErrorCode, RetryPolicy, Secret, Session,
};
use marketplace_tests::fake::{Authorization, FakeError, FakeMarketplace, Fault};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, DATE, RETRY_AFTER};
use serde_json::Value;
use url::Url;

/// A data path every test can call.
const PROVIDERS: &str = "/api/manage/getMyProviders";

async fn start() -> FakeMarketplace {
    FakeMarketplace::start().await.expect("the fake starts")
}

fn client_with(fake: &FakeMarketplace, key: &str, secret: &str) -> Client {
    Client::builder(fake.base_url(), ConsumerCredentials::new(key, secret))
        .http_client(fake.http_client())
        .retry(RetryPolicy::none())
        .build()
        .unwrap()
}

fn client(fake: &FakeMarketplace) -> Client {
    let credentials = fake.credentials();
    client_with(
        fake,
        &credentials.consumer_key,
        &credentials.consumer_secret,
    )
}

fn login(fake: &FakeMarketplace) -> String {
    fake.credentials().logins[0].clone()
}

/// The whole flow with a callback: an access token's session.
async fn session(fake: &FakeMarketplace, client: &Client) -> Session {
    let request = client.request_token(Some("myapp://done")).await.unwrap();
    let url = client.authorization_url(&request);
    let Authorization::Callback(callback) = fake
        .authorize(url.as_str(), &login(fake), true)
        .await
        .unwrap()
    else {
        panic!("approval with a callback redirects");
    };
    let verifier = client
        .verifier_from_callback(&request, callback.as_str())
        .unwrap();
    client.session(client.access_token(&request, &verifier).await.unwrap())
}

fn url(fake: &FakeMarketplace, path_and_query: &str) -> Url {
    Url::parse(&format!("{}{path_and_query}", fake.base_url())).unwrap()
}

/// An Authorization header for `method url` signed with the demo consumer and `token`.
fn oauth_header(
    fake: &FakeMarketplace,
    method: &str,
    url: &Url,
    token: Option<(&str, &str)>,
    timestamp: i64,
    nonce: &str,
) -> String {
    let credentials = fake.credentials();
    signature::authorization_header(
        &SignatureRequest {
            method,
            url,
            form: &[],
        },
        &OAuthParams {
            consumer_key: &credentials.consumer_key,
            token: Some(token.map_or("", |(token, _)| token)),
            nonce,
            timestamp,
            callback: None,
            verifier: None,
            version: Some("1.0"),
        },
        &SigningKey {
            consumer_secret: &credentials.consumer_secret,
            token_secret: token.map_or("", |(_, secret)| secret),
        },
    )
}

fn nonce() -> String {
    signature::nonce().unwrap()
}

fn access(session: &Session) -> (&str, &str) {
    (session.token().token(), session.token().secret().expose())
}

async fn get(fake: &FakeMarketplace, url: &Url, header: &str) -> reqwest::Response {
    fake.http_client()
        .get(url.clone())
        .header(AUTHORIZATION, header)
        .send()
        .await
        .unwrap()
}

/// A freshly signed GET of `path_and_query` with the session's access token.
async fn signed_get(
    fake: &FakeMarketplace,
    session: &Session,
    path_and_query: &str,
) -> reqwest::Response {
    let url = url(fake, path_and_query);
    let timestamp = fake.clock().now().as_second();
    let header = oauth_header(
        fake,
        "GET",
        &url,
        Some(access(session)),
        timestamp,
        &nonce(),
    );
    get(fake, &url, &header).await
}

async fn json(response: reqwest::Response) -> Value {
    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
}

/// Asserts a 401 `E_API_AUTH_SIGNATURE_MISMATCH` whose message contains `reason`.
async fn assert_refused(response: reqwest::Response, reason: &str) {
    assert_eq!(response.status(), 401);
    let body = json(response).await;
    assert_eq!(
        body["error"]["code"], "E_API_AUTH_SIGNATURE_MISMATCH",
        "{body}"
    );
    assert_eq!(body["error"]["type"], "authentication", "{body}");
    assert_eq!(body["rcode"], 0, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(reason), "{message:?} lacks {reason:?}");
}

/// Asserts a client error that is the service's signature mismatch, mentioning `reason`.
fn assert_mismatch(error: &Error, reason: &str) {
    assert_eq!(
        ErrorCode::of(error),
        Some(ErrorCode::ApiAuthSignatureMismatch),
        "{error}"
    );
    assert_eq!(error.status(), Some(401), "{error}");
    assert!(
        error.to_string().contains(reason),
        "{error} lacks {reason:?}"
    );
}

#[tokio::test]
async fn approving_with_a_callback_redirects_there_and_grants_an_access_token() {
    let fake = start().await;
    assert!(fake.base_url().starts_with("https://127.0.0.1:"));
    assert!(fake.certificate_pem().contains("BEGIN CERTIFICATE"));
    let client = client(&fake);
    let request = client
        .request_token(Some("https://app.example/cb?state=a%20b#top"))
        .await
        .unwrap();
    assert!(request.callback_confirmed);
    let url = client.authorization_url(&request);
    let Ok(Authorization::Callback(callback)) =
        fake.authorize(url.as_str(), &login(&fake), true).await
    else {
        panic!("approval with a callback redirects");
    };
    assert_eq!(callback.host_str(), Some("app.example"));
    assert_eq!(callback.fragment(), Some("top"));
    let query: Vec<(String, String)> = callback.query_pairs().into_owned().collect();
    assert_eq!(query[0], ("state".to_owned(), "a b".to_owned()));
    assert_eq!(query[1], ("oauth_token".to_owned(), request.token.clone()));
    assert_eq!(query[2].0, "oauth_verifier");

    let verifier = client
        .verifier_from_callback(&request, callback.as_str())
        .unwrap();
    let session = client.session(client.access_token(&request, &verifier).await.unwrap());
    let providers = session.get_my_providers().send().await.unwrap();
    let _ = providers;
}

/// A request token obtained with a raw request carrying `oauth_callback`.
async fn raw_request_token(fake: &FakeMarketplace, callback: &str) -> RequestToken {
    let endpoint = url(fake, "/oauth/getRequestToken");
    let credentials = fake.credentials();
    let header = signature::authorization_header(
        &SignatureRequest {
            method: "POST",
            url: &endpoint,
            form: &[],
        },
        &OAuthParams {
            consumer_key: &credentials.consumer_key,
            token: Some(""),
            nonce: &nonce(),
            timestamp: Timestamp::now().as_second(),
            callback: Some(callback),
            verifier: None,
            version: Some("1.0"),
        },
        &SigningKey {
            consumer_secret: &credentials.consumer_secret,
            token_secret: "",
        },
    );
    let response = fake
        .http_client()
        .post(endpoint)
        .header(AUTHORIZATION, header)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = response.bytes().await.unwrap();
    let form: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(&body).into_owned().collect();
    RequestToken {
        token: form["oauth_token"].clone(),
        secret: Secret::new(form["oauth_token_secret"].clone()),
        callback_confirmed: form["oauth_callback_confirmed"] == "true",
    }
}

#[tokio::test]
async fn approving_without_a_callback_shows_the_verifier() {
    let fake = start().await;
    let client = client(&fake);
    for callback in [None, Some("oob")] {
        // The client accepts only absolute URIs; "oob" is sent raw.
        let request = match callback {
            None => client.request_token(None).await.unwrap(),
            Some(callback) => raw_request_token(&fake, callback).await,
        };
        let url = client.authorization_url(&request);
        let Ok(Authorization::Verifier(verifier)) =
            fake.authorize(url.as_str(), &login(&fake), true).await
        else {
            panic!("approval without a callback shows the verifier");
        };
        let verifier = Verifier::new(&verifier).unwrap();
        let session = client.session(client.access_token(&request, &verifier).await.unwrap());
        session.get_my_providers().send().await.unwrap();
    }
}

/// `authorize` plays the browser at this fake only. The authorization URL of a real request
/// token, moved to another origin in every way an origin differs (scheme, host, port, each
/// alone and together; the other port a stub's that records what reaches it), is refused
/// before anything is sent: the stub receives nothing, so the demo login and password reach
/// no other server. The URL as the client made it still authorizes.
#[tokio::test]
async fn authorize_refuses_every_other_origin_and_sends_nothing_there() {
    let fake = start().await;
    let stub = marketplace_tests::stub::StubServer::start().await.unwrap();
    let client = client(&fake);
    let request = client.request_token(Some("myapp://done")).await.unwrap();
    let url = client.authorization_url(&request);
    let stub_port = Url::parse(&stub.base_url()).unwrap().port().unwrap();
    let fake_port = url.port().unwrap();
    let mut refused = 0;
    for scheme in ["https", "http"] {
        for host in ["127.0.0.1", "localhost"] {
            for port in [fake_port, stub_port] {
                if (scheme, host, port) == ("https", "127.0.0.1", fake_port) {
                    continue;
                }
                let mut foreign = url.clone();
                foreign.set_scheme(scheme).unwrap();
                foreign.set_host(Some(host)).unwrap();
                foreign.set_port(Some(port)).unwrap();
                let result = fake.authorize(foreign.as_str(), &login(&fake), true).await;
                // Named without its query's values (the request token, and where an app's
                // values go).
                let mut named = foreign.clone();
                named.set_query(None);
                let named = format!("{named}?[redacted]");
                assert!(
                    matches!(&result, Err(FakeError::ForeignUrl { url, fake: base })
                        if *url == named && base == fake.base_url()),
                    "{foreign}: {result:?}"
                );
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 7);
    assert!(stub.requests().is_empty(), "{:?}", stub.requests());
    let approved = fake.authorize(url.as_str(), &login(&fake), true).await;
    assert!(
        matches!(approved, Ok(Authorization::Callback(_))),
        "{approved:?}"
    );
}

/// A refused URL is shown as the client shows one (`redact_url`): a password written where a
/// reader takes it for user info, wherever a parser puts it (user info, a path or a query
/// before an `@`), a query value, a fragment, is in neither the error's text nor its `Debug`.
#[tokio::test]
async fn a_refused_url_shows_no_password_wherever_it_is_written() {
    let fake = start().await;
    let password = "Pw0rdXq7Zt";
    let shapes = [
        format!("https://me:{password}@127.0.0.2/oauth/authorize"),
        format!("https://me/x:{password}@127.0.0.2/oauth/authorize"),
        format!("https://me?x:{password}@127.0.0.2/oauth/authorize"),
        format!("https://127.0.0.2/oauth/authorize?oauth_token=t&app={password}"),
        format!("https://127.0.0.2/oauth/authorize?{password}"),
        format!("https://127.0.0.2/oauth/authorize#{password}"),
        format!("https://127.0.0.2/{password}@/oauth/authorize"),
    ];
    for given in shapes {
        let result = fake.authorize(&given, &login(&fake), true).await;
        let Err(error @ FakeError::ForeignUrl { .. }) = &result else {
            panic!("{given}: {result:?}");
        };
        for shown in [error.to_string(), format!("{error:?}")] {
            assert!(!shown.contains(password), "{given}: {shown}");
        }
    }
}

/// A request of the browser that fails is an error without its URL: the authorization URL an
/// app gives may carry values of its own (here after the request token) and they show in
/// neither the error's text nor its `Debug`, for the login page and for the form's post.
#[tokio::test]
async fn a_failed_browser_request_shows_no_url() {
    let fake = start().await;
    let client = client(&fake);
    for failing in ["the login page", "the form's post"] {
        let request = client.request_token(Some("myapp://done")).await.unwrap();
        let mut url = client.authorization_url(&request);
        url.query_pairs_mut().append_pair("app_value", "V4lu3Of4pp");
        let path = if failing == "the login page" {
            url.path().to_owned()
        } else {
            "/oauth/authorizeToken".to_owned()
        };
        fake.faults().inject(Some(&path), Fault::Reset, 1);
        let result = fake.authorize(url.as_str(), &login(&fake), true).await;
        let Err(error @ FakeError::Browser(_)) = &result else {
            panic!("{failing}: {result:?}");
        };
        for shown in [error.to_string(), format!("{error:?}")] {
            for value in ["V4lu3Of4pp", request.token.as_str(), "127.0.0.1"] {
                assert!(!shown.contains(value), "{failing}: {value} in {shown}");
            }
        }
    }
}

/// Each request of `authorize` ends within `BROWSER_TIMEOUT`: a login page the fake is told
/// to delay four times as long ends the authorization with the browser's timeout, at the
/// bound (not before it, and not long after).
#[tokio::test]
async fn a_login_page_delayed_past_the_bound_ends_the_authorization_at_it() {
    let fake = start().await;
    let client = client(&fake);
    let request = client.request_token(Some("myapp://done")).await.unwrap();
    let url = client.authorization_url(&request);
    fake.faults().inject(
        Some(url.path()),
        Fault::Latency(marketplace_tests::fake::BROWSER_TIMEOUT * 4),
        1,
    );
    let started = Instant::now();
    let result = fake.authorize(url.as_str(), &login(&fake), true).await;
    let elapsed = started.elapsed();
    assert!(
        matches!(&result, Err(FakeError::Browser(error)) if error.is_timeout()),
        "{result:?}"
    );
    assert!(
        elapsed >= marketplace_tests::fake::BROWSER_TIMEOUT
            && elapsed < marketplace_tests::fake::BROWSER_TIMEOUT + Duration::from_secs(10),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn denying_leaves_the_request_token_unauthorized() {
    let fake = start().await;
    let client = client(&fake);
    let request = client.request_token(Some("myapp://done")).await.unwrap();
    let url = client.authorization_url(&request);
    let denied = fake.authorize(url.as_str(), &login(&fake), false).await;
    assert!(matches!(denied, Ok(Authorization::Denied)), "{denied:?}");
    let error = client
        .access_token(&request, &Verifier::new("guess").unwrap())
        .await
        .unwrap_err();
    assert_mismatch(&error, "not been authorized");
    // The user may still change their mind.
    let approved = fake.authorize(url.as_str(), &login(&fake), true).await;
    assert!(
        matches!(approved, Ok(Authorization::Callback(_))),
        "{approved:?}"
    );
}

#[tokio::test]
async fn the_login_page_refuses_unknown_tokens_and_users() {
    let fake = start().await;
    let client = client(&fake);
    let request = client.request_token(None).await.unwrap();
    let url = client.authorization_url(&request);
    let error = fake
        .authorize(url.as_str(), "nobody", true)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FakeError::UnexpectedPage { status: 401, .. }),
        "{error}"
    );
    let unknown = format!("{}/oauth/authorizeToken?oauth_token=nope", fake.base_url());
    let error = fake
        .authorize(&unknown, &login(&fake), true)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FakeError::UnexpectedPage { status: 400, .. }),
        "{error}"
    );
    let error = fake
        .authorize("not a url", &login(&fake), true)
        .await
        .unwrap_err();
    assert!(matches!(error, FakeError::InvalidUrl { .. }), "{error}");
}

#[tokio::test]
async fn the_request_token_is_discarded_after_the_exchange() {
    let fake = start().await;
    let client = client(&fake);
    let request = client.request_token(None).await.unwrap();
    let url = client.authorization_url(&request);
    let Ok(Authorization::Verifier(verifier)) =
        fake.authorize(url.as_str(), &login(&fake), true).await
    else {
        panic!("approval shows the verifier");
    };
    let verifier = Verifier::new(&verifier).unwrap();
    client.access_token(&request, &verifier).await.unwrap();
    let error = client.access_token(&request, &verifier).await.unwrap_err();
    assert_mismatch(&error, "unknown request token");
}

#[tokio::test]
async fn a_wrong_verifier_is_refused() {
    let fake = start().await;
    let client = client(&fake);
    let request = client.request_token(None).await.unwrap();
    let url = client.authorization_url(&request);
    let Ok(Authorization::Verifier(verifier)) =
        fake.authorize(url.as_str(), &login(&fake), true).await
    else {
        panic!("approval shows the verifier");
    };
    let wrong = Verifier::new(&format!("{verifier}0")).unwrap();
    let error = client.access_token(&request, &wrong).await.unwrap_err();
    assert_mismatch(&error, "oauth_verifier is wrong");
    // The request token survives a wrong guess.
    let right = Verifier::new(&verifier).unwrap();
    client.access_token(&request, &right).await.unwrap();
}

#[tokio::test]
async fn a_tampered_signature_is_refused() {
    let fake = start().await;
    let session = session(&fake, &client(&fake)).await;
    let signed = url(&fake, &format!("{PROVIDERS}?rpp=5"));
    let header = oauth_header(
        &fake,
        "GET",
        &signed,
        Some(access(&session)),
        Timestamp::now().as_second(),
        &nonce(),
    );
    // Another query than the one signed.
    let other = url(&fake, &format!("{PROVIDERS}?rpp=6"));
    assert_refused(get(&fake, &other, &header).await, "does not match").await;
    // Another signature value.
    let start = header.find("oauth_signature=\"").unwrap() + "oauth_signature=\"".len();
    let mut tampered = header.clone();
    tampered.replace_range(start..start + 4, "AAAA");
    assert_refused(get(&fake, &signed, &tampered).await, "does not match").await;
    // The untouched header passes.
    assert_eq!(get(&fake, &signed, &header).await.status(), 200);
}

#[tokio::test]
async fn an_unknown_consumer_key_is_refused() {
    let fake = start().await;
    let secret = fake.credentials().consumer_secret.clone();
    let error = client_with(&fake, "someone-else", &secret)
        .request_token(None)
        .await
        .unwrap_err();
    assert_mismatch(&error, "unknown consumer key");
    // The right key with a wrong secret is a plain mismatch.
    let key = fake.credentials().consumer_key.clone();
    let error = client_with(&fake, &key, "wrong")
        .request_token(None)
        .await
        .unwrap_err();
    assert_mismatch(&error, "does not match");
}

#[tokio::test]
async fn a_stale_timestamp_is_refused() {
    let fake = start().await;
    let client = client(&fake);
    let session = session(&fake, &client).await;
    fake.clock().set_offset(SignedDuration::from_mins(10));
    let url = url(&fake, PROVIDERS);
    let header = oauth_header(
        &fake,
        "GET",
        &url,
        Some(access(&session)),
        Timestamp::now().as_second(),
        &nonce(),
    );
    assert_refused(get(&fake, &url, &header).await, "oauth_timestamp").await;
    // The client learns the fake's clock from the Date header and retries once.
    session.get_my_providers().send().await.unwrap();
}

#[tokio::test]
async fn a_replayed_nonce_is_refused() {
    let fake = start().await;
    let session = session(&fake, &client(&fake)).await;
    let url = url(&fake, PROVIDERS);
    let header = oauth_header(
        &fake,
        "GET",
        &url,
        Some(access(&session)),
        Timestamp::now().as_second(),
        &nonce(),
    );
    assert_eq!(get(&fake, &url, &header).await.status(), 200);
    assert_refused(get(&fake, &url, &header).await, "oauth_nonce").await;
}

#[tokio::test]
async fn unsupported_protocol_values_are_refused() {
    let fake = start().await;
    let session = session(&fake, &client(&fake)).await;
    let url = url(&fake, PROVIDERS);
    let now = Timestamp::now().as_second();
    let header = oauth_header(&fake, "GET", &url, Some(access(&session)), now, &nonce());
    let plaintext = header.replace("HMAC-SHA1", "PLAINTEXT");
    assert_refused(get(&fake, &url, &plaintext).await, "oauth_signature_method").await;

    let credentials = fake.credentials();
    let versioned = |version| {
        signature::authorization_header(
            &SignatureRequest {
                method: "GET",
                url: &url,
                form: &[],
            },
            &OAuthParams {
                consumer_key: &credentials.consumer_key,
                token: Some(access(&session).0),
                nonce: &nonce(),
                timestamp: now,
                callback: None,
                verifier: None,
                version,
            },
            &SigningKey {
                consumer_secret: &credentials.consumer_secret,
                token_secret: access(&session).1,
            },
        )
    };
    assert_refused(
        get(&fake, &url, &versioned(Some("2.0"))).await,
        "oauth_version",
    )
    .await;
    assert_eq!(get(&fake, &url, &versioned(None)).await.status(), 200);
}

#[tokio::test]
async fn tokens_of_the_wrong_kind_are_refused() {
    let fake = start().await;
    let client = client(&fake);
    let session = session(&fake, &client).await;
    // A request token where an access token is expected.
    let request = client.request_token(None).await.unwrap();
    let url = url(&fake, PROVIDERS);
    let now = Timestamp::now().as_second();
    let header = oauth_header(
        &fake,
        "GET",
        &url,
        Some((&request.token, request.secret.expose())),
        now,
        &nonce(),
    );
    assert_refused(get(&fake, &url, &header).await, "is a request token").await;
    // An access token where a request token is expected.
    let posing = RequestToken {
        token: access(&session).0.to_owned(),
        secret: Secret::new(access(&session).1),
        callback_confirmed: true,
    };
    let error = client
        .access_token(&posing, &Verifier::new("v").unwrap())
        .await
        .unwrap_err();
    assert_mismatch(&error, "is an access token");
    // A made-up token.
    let header = oauth_header(&fake, "GET", &url, Some(("made-up", "x")), now, &nonce());
    assert_refused(get(&fake, &url, &header).await, "unknown access token").await;
    // getRequestToken needs a blank oauth_token.
    let endpoint = self::url(&fake, "/oauth/getRequestToken");
    let header = oauth_header(
        &fake,
        "POST",
        &endpoint,
        Some(access(&session)),
        now,
        &nonce(),
    );
    let response = fake
        .http_client()
        .post(endpoint)
        .header(AUTHORIZATION, header)
        .send()
        .await
        .unwrap();
    assert_refused(response, "blank").await;
}

/// The body's OAuth values lose to the header's (the reference: "When both carry OAuth
/// values, the header values are used"), and a body parameter the endpoint does not take
/// (`extra`) is ignored by the service, so it is not signed: a signature without it is the
/// one the fake computes.
#[tokio::test]
async fn header_values_win_over_body_values() {
    let fake = start().await;
    let endpoint = url(&fake, "/oauth/getRequestToken");
    let credentials = fake.credentials();
    let form: [(String, String); 0] = [];
    let header = signature::authorization_header(
        &SignatureRequest {
            method: "POST",
            url: &endpoint,
            form: &form,
        },
        &OAuthParams {
            consumer_key: &credentials.consumer_key,
            token: Some(""),
            nonce: &nonce(),
            timestamp: Timestamp::now().as_second(),
            callback: None,
            verifier: None,
            version: Some("1.0"),
        },
        &SigningKey {
            consumer_secret: &credentials.consumer_secret,
            token_secret: "",
        },
    );
    let response = fake
        .http_client()
        .post(endpoint)
        .header(AUTHORIZATION, header)
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(
            "oauth_consumer_key=bogus&oauth_signature=bogus&oauth_nonce=x&oauth_timestamp=1\
             &oauth_signature_method=PLAINTEXT&extra=a+b",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()[CONTENT_TYPE],
        "application/x-www-form-urlencoded"
    );
    let body = response.text().await.unwrap();
    assert!(
        body.starts_with("oauth_token=") && body.ends_with("&oauth_callback_confirmed=true"),
        "{body}"
    );
}

#[tokio::test]
async fn oauth_parameters_may_come_in_the_body() {
    let fake = start().await;
    let endpoint = url(&fake, "/oauth/getRequestToken");
    let credentials = fake.credentials();
    let (nonce, timestamp) = (nonce(), Timestamp::now().as_second());
    let oauth = OAuthParams {
        consumer_key: &credentials.consumer_key,
        token: Some(""),
        nonce: &nonce,
        timestamp,
        callback: Some("oob"),
        verifier: None,
        version: Some("1.0"),
    };
    let base = signature::base_string(
        &SignatureRequest {
            method: "POST",
            url: &endpoint,
            form: &[],
        },
        &oauth,
    );
    let signed = signature::sign(
        &base,
        &SigningKey {
            consumer_secret: &credentials.consumer_secret,
            token_secret: "",
        },
    );
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("oauth_consumer_key", &credentials.consumer_key)
        .append_pair("oauth_token", "")
        .append_pair("oauth_nonce", &nonce)
        .append_pair("oauth_timestamp", &timestamp.to_string())
        .append_pair("oauth_signature_method", "HMAC-SHA1")
        .append_pair("oauth_callback", "oob")
        .append_pair("oauth_version", "1.0")
        .append_pair("oauth_signature", &signed)
        .finish();
    let response = fake
        .http_client()
        .post(endpoint)
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn an_access_token_expires_six_hours_after_it_was_granted() {
    let fake = start().await;
    let session = session(&fake, &client(&fake)).await;
    fake.clock()
        .advance(SignedDuration::from_hours(6) - SignedDuration::from_mins(1));
    assert_eq!(signed_get(&fake, &session, PROVIDERS).await.status(), 200);
    fake.clock().advance(SignedDuration::from_mins(1));
    assert_refused(signed_get(&fake, &session, PROVIDERS).await, "expired").await;
    // The client's own local check does not know the fake's clock; the fake refuses.
    let error = session.get_my_providers().send().await.unwrap_err();
    assert_mismatch(&error, "expired");
}

#[tokio::test]
async fn a_revoked_token_is_refused() {
    let fake = start().await;
    let session = session(&fake, &client(&fake)).await;
    session.revoke().await.unwrap();
    let error = session.get_my_providers().send().await.unwrap_err();
    assert_mismatch(&error, "revoked");
    let error = session.revoke().await.unwrap_err();
    assert_mismatch(&error, "revoked");
}

#[tokio::test]
async fn latency_delays_the_normal_answer() {
    let fake = start().await;
    let url = url(&fake, PROVIDERS);
    fake.faults().inject(
        Some(PROVIDERS),
        Fault::Latency(Duration::from_millis(300)),
        1,
    );
    let started = Instant::now();
    let response = get(&fake, &url, "none").await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_refused(response, "no OAuth parameters").await;
}

#[tokio::test]
async fn a_status_fault_answers_that_status_on_its_path_only() {
    let fake = start().await;
    let url = url(&fake, PROVIDERS);
    let fault = Fault::Status {
        status: 503,
        retry_after: Some(7),
    };
    fake.faults().inject(Some(PROVIDERS), fault, 2);
    let other = self::url(&fake, "/api/pay/getInvoice?id=1");
    assert_eq!(get(&fake, &other, "none").await.status(), 401);
    for _ in 0..2 {
        let response = get(&fake, &url, "none").await;
        assert_eq!(response.status(), 503);
        assert_eq!(response.headers()[RETRY_AFTER], "7");
        assert!(response.text().await.unwrap().contains("503"));
    }
    assert_eq!(get(&fake, &url, "none").await.status(), 401);
    assert_eq!(fake.requests_served(), 4);
}

#[tokio::test]
async fn the_client_retries_through_status_faults() {
    let fake = start().await;
    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(
            &fake.credentials().consumer_key,
            &fake.credentials().consumer_secret,
        ),
    )
    .http_client(fake.http_client())
    .build()
    .unwrap();
    let session = session(&fake, &client).await;
    let fault = Fault::Status {
        status: 503,
        retry_after: Some(0),
    };
    fake.faults().inject(Some(PROVIDERS), fault, 2);
    let before = fake.requests_served();
    session.get_my_providers().send().await.unwrap();
    assert_eq!(fake.requests_served() - before, 3);
}

#[tokio::test]
async fn a_reset_closes_the_connection_without_an_answer() {
    let fake = start().await;
    let url = url(&fake, PROVIDERS);
    fake.faults().inject(None, Fault::Reset, 1);
    let error = fake
        .http_client()
        .get(url.clone())
        .send()
        .await
        .unwrap_err();
    assert!(error.status().is_none(), "{error}");
    assert_eq!(fake.requests_served(), 1);
    // The next request is served normally.
    assert_eq!(get(&fake, &url, "none").await.status(), 401);
}

#[tokio::test]
async fn a_truncated_answer_breaks_off_halfway() {
    let fake = start().await;
    let url = url(&fake, PROVIDERS);
    let full = get(&fake, &url, "none").await.bytes().await.unwrap();
    fake.faults().inject(Some(PROVIDERS), Fault::Truncated, 1);
    let response = get(&fake, &url, "none").await;
    assert_eq!(response.status(), 401);
    assert_eq!(response.content_length(), Some(full.len() as u64));
    assert!(response.bytes().await.is_err());
}

#[tokio::test]
async fn an_html_error_page_answers_html() {
    let fake = start().await;
    fake.faults()
        .inject(Some(PROVIDERS), Fault::HtmlErrorPage { status: 502 }, 1);
    let response = get(&fake, &url(&fake, PROVIDERS), "none").await;
    assert_eq!(response.status(), 502);
    assert!(
        response.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let body = response.text().await.unwrap();
    assert!(
        body.starts_with("<html>") && body.trim_end().ends_with("</html>"),
        "{body}"
    );
}

#[tokio::test]
async fn a_wrong_content_type_labels_the_normal_body_html() {
    let fake = start().await;
    let session = session(&fake, &client(&fake)).await;
    fake.faults()
        .inject(Some(PROVIDERS), Fault::WrongContentType, 1);
    let response = signed_get(&fake, &session, PROVIDERS).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()[CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert_eq!(json(response).await["rcode"], 1);
}

#[tokio::test]
async fn an_rcode_fault_answers_an_empty_envelope() {
    let fake = start().await;
    fake.faults().inject(None, Fault::Rcode(7), 1);
    let response = get(&fake, &url(&fake, PROVIDERS), "none").await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        json(response).await,
        serde_json::json!({"api": "manage/getMyProviders", "apiVersion": 1, "rcode": 7, "data": {}})
    );
}

#[tokio::test]
async fn cleared_faults_are_not_applied() {
    let fake = start().await;
    fake.faults().inject(None, Fault::Reset, 3);
    fake.faults().clear();
    assert_eq!(
        get(&fake, &url(&fake, PROVIDERS), "none").await.status(),
        401
    );
}

#[tokio::test]
async fn plain_http_serves_the_same_fake() {
    let fake = FakeMarketplace::start_plain_http().await.unwrap();
    assert!(fake.base_url().starts_with("http://127.0.0.1:"));
    assert_eq!(fake.certificate_pem(), "");
    // The client refuses plain HTTP for the OAuth endpoints unless told otherwise.
    let error = client(&fake).request_token(None).await.unwrap_err();
    assert!(matches!(error, Error::Config { .. }), "{error}");
    assert_eq!(fake.requests_served(), 0);

    let credentials = fake.credentials();
    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&credentials.consumer_key, &credentials.consumer_secret),
    )
    .http_client(fake.http_client())
    .allow_plain_http_oauth_on_loopback()
    .build()
    .unwrap();
    let session = session(&fake, &client).await;
    session.get_my_providers().send().await.unwrap();
}

/// `start_on` and `start_plain_http_on` serve on the caller's listener (a port it chose or
/// holds), the whole flow included; a listener on any other address than 127.0.0.1 (every
/// interface, another loopback address the certificate does not name) is refused as
/// `InvalidInput` naming it, before anything is served.
#[tokio::test]
async fn the_fake_serves_on_the_callers_listener_on_127_0_0_1_only() {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let fake = FakeMarketplace::start_on(listener).await.unwrap();
    assert_eq!(fake.base_url(), format!("https://127.0.0.1:{port}"));
    let session = session(&fake, &client(&fake)).await;
    session.get_my_providers().send().await.unwrap();

    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    let fake = FakeMarketplace::start_plain_http_on(listener)
        .await
        .unwrap();
    assert_eq!(fake.base_url(), format!("http://127.0.0.1:{port}"));
    assert_eq!(
        get(&fake, &url(&fake, PROVIDERS), "none").await.status(),
        401
    );

    let mut refused = 0;
    // HTTPS and plain HTTP in turn.
    for (index, address) in ["0.0.0.0", "127.0.0.2", "::1", "::"]
        .into_iter()
        .enumerate()
    {
        // An address this machine cannot bind is not one to refuse.
        let Ok(listener) = std::net::TcpListener::bind((address, 0)) else {
            continue;
        };
        let at = listener.local_addr().unwrap();
        let started = if index % 2 == 0 {
            FakeMarketplace::start_on(listener).await
        } else {
            FakeMarketplace::start_plain_http_on(listener).await
        };
        let error = started.expect_err(address);
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{address}");
        assert!(
            error.to_string().contains("127.0.0.1 only")
                && error.to_string().contains(&at.to_string()),
            "{error}"
        );
        refused += 1;
    }
    assert!(refused >= 1, "no other address could be bound to try");
}

#[tokio::test]
async fn every_answer_carries_the_fake_clocks_date() {
    let fake = start().await;
    fake.clock().set_offset(SignedDuration::from_hours(30));
    let read_date = |response: &reqwest::Response| {
        let date = response.headers()[DATE].to_str().unwrap().to_owned();
        assert!(date.ends_with(" GMT"), "{date}");
        let date = jiff::fmt::rfc2822::DateTimeParser::new()
            .parse_timestamp(&date)
            .unwrap();
        let off = date.duration_since(fake.clock().now()).abs();
        assert!(off < SignedDuration::from_secs(5), "{date}");
    };
    read_date(&get(&fake, &url(&fake, PROVIDERS), "none").await);
    read_date(&get(&fake, &url(&fake, "/nowhere"), "none").await);
    fake.faults()
        .inject(None, Fault::HtmlErrorPage { status: 500 }, 1);
    read_date(&get(&fake, &url(&fake, PROVIDERS), "none").await);
}

/// A body whose announced length is past the limit is refused before a byte of it is read,
/// on every route that reads one (the data methods are GET only: a POST is 405 unread): the 413 comes at once, never a `100 Continue` to a client
/// that waits for one before sending (RFC 9110 §10.1.1), whatever the length announced.
#[test]
fn an_announced_body_past_the_limit_is_refused_before_it_is_read() {
    use proptest::prelude::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let runtime = marketplace_tests::runtime();
    let fake = runtime
        .block_on(FakeMarketplace::start_plain_http())
        .unwrap();
    let host = fake
        .base_url()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let strategy = (
        prop_oneof![65_537u64..1 << 20, (1u64 << 20)..=u64::MAX],
        prop::sample::select(vec![
            "/oauth/getRequestToken",
            "/oauth/getAccessToken",
            "/oauth/authorizeToken",
        ]),
        any::<bool>(),
    );
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 32,
        failure_persistence: None,
        ..Default::default()
    });
    runner
        .run(&strategy, |(length, path, expect)| {
            let expect = if expect {
                "Expect: 100-continue\r\n"
            } else {
                ""
            };
            let request = format!(
                "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: \
                 application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n{expect}\r\n"
            );
            let answer = runtime.block_on(async {
                let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
                stream.write_all(request.as_bytes()).await.unwrap();
                let mut answer = Vec::new();
                let mut buffer = [0u8; 4096];
                while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
                        .await
                    {
                        Ok(Ok(read)) if read > 0 => answer.extend_from_slice(&buffer[..read]),
                        _ => break,
                    }
                }
                String::from_utf8_lossy(&answer).into_owned()
            });
            prop_assert!(
                answer.starts_with("HTTP/1.1 413 "),
                "{length} to {path}: {answer:?}"
            );
            Ok(())
        })
        .unwrap();
}

#[tokio::test]
async fn garbage_is_refused_without_harm() {
    let fake = start().await;
    let http = fake.http_client();
    let endpoint = url(&fake, "/oauth/getRequestToken");
    for header in [
        "OAuth ",
        "OAuth oauth_nonce=\"%zz\"",
        "OAuth oauth_nonce=\"a\", oauth_nonce=\"b\"",
        "OAuth oauth_consumer_key=\"x\",",
        "Basic dXNlcjpwYXNz",
    ] {
        let response = http
            .post(endpoint.clone())
            .header(AUTHORIZATION, header)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{header}");
    }
    let response = http
        .post(endpoint.clone())
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(vec![b'a'; 100 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let response = http
        .post(url(&fake, "/oauth/authorizeToken"))
        .body("oauth_token=%ff&login=%&password")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let response = http
        .get(url(&fake, "/api/pay/nothing"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(
        json(response).await["error"]["code"],
        "E_API_UNKNOWN_METHOD"
    );
    let response = http
        .get(url(&fake, "/oauth/getRequestToken"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    // Still serving.
    assert_eq!(
        get(&fake, &url(&fake, PROVIDERS), "none").await.status(),
        401
    );
}

/// A signature refusal is the evidence for what went wrong: the client's error shows the
/// service's base string whole (`oauth_signature_method` names the algorithm, not a secret, so
/// the parameters after it stay), and none of the app's secrets.
#[tokio::test]
async fn a_signature_refusal_shows_the_services_base_string_whole() {
    let fake = start().await;
    let wrong = "not-the-consumer-secret-8c41e7";
    let client = client_with(&fake, &fake.credentials().consumer_key, wrong);
    let error = client.request_token(Some("myapp://cb")).await.unwrap_err();
    let shown = format!("{error}\n{error:?}");
    for part in [
        "oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D",
        "%26oauth_version%3D1.0\"",
    ] {
        assert!(shown.contains(part), "{part} in {shown}");
    }
    assert!(!shown.contains(wrong), "{shown}");
}

/// A client that sends a body past the limit whole, without `Expect: 100-continue` (reqwest's
/// way), reads the 413 rather than a broken connection, whatever the body's size: up to 128
/// times the limit, past what the sockets buffer, so the fake answers while the client still
/// writes. (Red team 10 saw one broken pipe at 64 KiB + 1; not reproduced since.)
#[tokio::test]
async fn a_client_sending_a_body_past_the_limit_whole_reads_the_413() {
    let fake = start().await;
    let http = fake.http_client();
    let endpoint = url(&fake, "/oauth/getRequestToken");
    for size in [64 * 1024 + 1, 1 << 20, 8 << 20] {
        let response = http
            .post(endpoint.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(vec![b'a'; size])
            .send()
            .await
            .unwrap_or_else(|error| panic!("{size} bytes with a length: {error:?}"));
        assert_eq!(response.status(), 413, "{size} bytes with a length");
    }
}
