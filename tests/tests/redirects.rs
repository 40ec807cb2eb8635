//! Credentials never follow a redirect. A hostile service on loopback answers data calls and
//! each OAuth POST with 301/302/303/307/308 and redirect chains pointing at a second origin (a
//! second stub on another port), which records everything it receives: it never sees an
//! `Authorization` header, an `oauth_` parameter or a `Referer`, and every call ends in
//! `Error::Redirect`. A caller-supplied HTTP client that follows redirects gets its answer
//! refused all the same.

use jiff::Timestamp;
use marketplace_client::oauth::{AccessToken, RequestToken, Verifier};
use marketplace_client::{Client, ConsumerCredentials, Error, RetryPolicy, Secret, Session};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};

const INVOICE: &str = "/api/pay/getInvoice";
const STATUSES: [u16; 5] = [301, 302, 303, 307, 308];

/// The service (a hostile one) and the foreign origin it redirects to.
struct Origins {
    service: StubServer,
    foreign: StubServer,
}

impl Origins {
    async fn start() -> Origins {
        Origins {
            service: StubServer::start().await.unwrap(),
            foreign: StubServer::start().await.unwrap(),
        }
    }

    /// A URL on the foreign origin carrying OAuth values, as a hostile redirect might.
    fn foreign_url(&self, path: &str) -> String {
        format!(
            "{}{path}?oauth_token=stolen-token&oauth_signature=stolen-signature&page=2",
            self.foreign.base_url()
        )
    }

    fn client(&self) -> Client {
        self.client_with(None)
    }

    fn client_with(&self, http: Option<reqwest::Client>) -> Client {
        let mut builder = Client::builder(
            self.service.base_url(),
            ConsumerCredentials::new("app-key", "consumer-secret"),
        )
        .allow_plain_http_oauth_on_loopback()
        .retry(RetryPolicy::default());
        if let Some(http) = http {
            builder = builder.http_client(http);
        }
        builder.build().unwrap()
    }
}

fn session(client: &Client) -> Session {
    client.session(AccessToken::new(
        "access-token",
        "access-secret",
        Timestamp::now(),
    ))
}

fn request_token() -> RequestToken {
    RequestToken {
        token: "request-token".to_owned(),
        secret: Secret::new("request-secret"),
        callback_confirmed: true,
    }
}

/// Whether a request carries credentials or the page it came from.
fn leaks(request: &RecordedRequest) -> Vec<String> {
    let mut found = Vec::new();
    for name in ["authorization", "referer"] {
        if let Some(value) = request.header(name) {
            found.push(format!("{name}: {value}"));
        }
    }
    let body = url::form_urlencoded::parse(&request.body).into_owned();
    for (name, value) in request.query_pairs().into_iter().chain(body) {
        if name.starts_with("oauth_") {
            found.push(format!("{name}={value}"));
        }
    }
    found
}

/// The foreign origin received nothing at all, and the service no `Referer`.
fn assert_nothing_reached(origins: &Origins, what: &str) {
    let foreign = origins.foreign.requests();
    assert!(
        foreign.is_empty(),
        "{what}: the foreign origin got {foreign:?}"
    );
    for request in origins.service.requests() {
        assert_eq!(request.header("referer"), None, "{what}");
    }
}

/// A typed redirect error with this status, whose location is the foreign URL without its
/// OAuth values.
fn assert_refused(error: &Error, status: Option<u16>, what: &str) {
    match error {
        Error::Redirect {
            status: got,
            location: Some(location),
            ..
        } => {
            assert_eq!(*got, status, "{what}: {error}");
            assert!(
                location.contains("oauth_token=[redacted]"),
                "{what}: {location}"
            );
            assert!(location.contains("page=2"), "{what}: {location}");
        }
        other => panic!("{what}: expected a refused redirect, got {other:?}"),
    }
    let shown = format!("{error} {error:?}");
    assert!(
        !shown.contains("stolen-token") && !shown.contains("stolen-signature"),
        "{what}: {shown}"
    );
}

#[tokio::test]
async fn a_data_call_never_follows_a_redirect() {
    for status in STATUSES {
        let origins = Origins::start().await;
        origins.service.enqueue(
            INVOICE,
            Reply::redirect(status, &origins.foreign_url("/steal")),
        );
        let error = session(&origins.client())
            .get_invoice(9003)
            .send()
            .await
            .unwrap_err();
        let what = format!("GET with HTTP {status}");
        assert_refused(&error, Some(status), &what);
        assert_eq!(error.status(), Some(status));
        assert_nothing_reached(&origins, &what);
        assert_eq!(origins.service.requests().len(), 1, "{what}: not retried");
    }
}

#[tokio::test]
async fn every_oauth_post_never_follows_a_redirect() {
    for status in [302, 307, 308] {
        let origins = Origins::start().await;
        let client = origins.client();
        for path in [
            "/oauth/getRequestToken",
            "/oauth/getAccessToken",
            "/oauth/revokeToken",
        ] {
            origins.service.enqueue(
                path,
                Reply::redirect(status, &origins.foreign_url("/oauth/getRequestToken")),
            );
        }
        let what = format!("POST with HTTP {status}");
        let error = client.request_token(Some("myapp://cb")).await.unwrap_err();
        assert_refused(&error, Some(status), &what);
        let verifier = Verifier::new("verifier").unwrap();
        let error = client
            .access_token(&request_token(), &verifier)
            .await
            .unwrap_err();
        assert_refused(&error, Some(status), &what);
        let error = session(&client).revoke().await.unwrap_err();
        assert_refused(&error, Some(status), &what);
        assert_nothing_reached(&origins, &what);
        assert_eq!(origins.service.requests().len(), 3, "{what}");
    }
}

#[tokio::test]
async fn a_redirect_chain_stops_at_its_first_hop() {
    let origins = Origins::start().await;
    let service = origins.service.base_url();
    // Same origin first, then the foreign one: a client following redirects would end there.
    origins
        .service
        .enqueue(INVOICE, Reply::redirect(302, &format!("{service}/hop")));
    origins
        .service
        .enqueue("/hop", Reply::redirect(307, &origins.foreign_url("/steal")));
    let error = session(&origins.client())
        .get_invoice(9003)
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(&error, Error::Redirect { status: Some(302), location: Some(l), .. } if l.ends_with("/hop")),
        "{error:?}"
    );
    assert_nothing_reached(&origins, "chain");
    let paths: Vec<String> = origins
        .service
        .requests()
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert_eq!(paths, [INVOICE]);
}

#[tokio::test]
async fn a_caller_client_that_follows_redirects_gets_the_answer_refused() {
    let fixture = String::from_utf8(fixtures::read("pay/getInvoice.json").unwrap()).unwrap();
    let origins = Origins::start().await;
    // reqwest's default policy follows up to ten redirects.
    let client = origins.client_with(Some(following_client()));
    // One hop to the foreign origin, then a chain within it, which answers a valid body.
    origins.service.enqueue(
        INVOICE,
        Reply::redirect(302, &origins.foreign_url("/first")),
    );
    origins.foreign.enqueue(
        "/first",
        Reply::redirect(307, &origins.foreign_url("/second")),
    );
    origins
        .foreign
        .enqueue("/second", Reply::json(200, fixture.clone()));
    let error = session(&client).get_invoice(9003).send().await.unwrap_err();
    assert_refused(&error, None, "followed by the caller's client");
    assert!(
        error.to_string().contains("redirect::Policy::none()"),
        "says how to fix it: {error}"
    );
    assert_eq!(origins.service.requests().len(), 1, "not retried");

    // Built as `http_client` asks, the same client type never reaches the foreign origin.
    let origins = Origins::start().await;
    let careful = marketplace_client::http_client_builder()
        .unwrap()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let client = origins.client_with(Some(careful));
    origins.service.enqueue(
        INVOICE,
        Reply::redirect(307, &origins.foreign_url("/steal")),
    );
    let error = session(&client).get_invoice(9003).send().await.unwrap_err();
    assert_refused(&error, Some(307), "caller's client without redirects");
    assert_nothing_reached(&origins, "caller's client without redirects");
}

#[tokio::test]
async fn the_foreign_origin_is_a_real_second_origin_that_records_what_reaches_it() {
    // The check above is only as good as the foreign stub's record: a plain client that
    // follows the redirect does reach it, and the record shows the OAuth values in its query.
    let origins = Origins::start().await;
    origins.service.enqueue(
        "/start",
        Reply::redirect(302, &origins.foreign_url("/landed")),
    );
    origins
        .foreign
        .enqueue("/landed", Reply::text(200, "text/plain", "ok"));
    let response = following_client()
        .get(format!("{}/start", origins.service.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let reached = origins.foreign.requests();
    assert_eq!(reached.len(), 1);
    assert!(
        leaks(&reached[0])
            .iter()
            .any(|leak| leak.starts_with("oauth_token=")),
        "{:?}",
        reached[0]
    );
    assert_ne!(origins.service.base_url(), origins.foreign.base_url());
}

/// An HTTP client with reqwest's default redirect policy: it follows up to ten redirects.
fn following_client() -> reqwest::Client {
    marketplace_client::http_client_builder()
        .unwrap()
        .redirect(reqwest::redirect::Policy::default())
        .build()
        .unwrap()
}
