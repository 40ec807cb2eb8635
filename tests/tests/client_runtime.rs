//! The client runtime over real HTTP, against the scripted stub on 127.0.0.1: the OAuth flow,
//! every paged stream, retries, clock correction, expiry, each error kind, and secrets kept out
//! of debug output, errors and logs.

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use jiff::Timestamp;
use marketplace_client::oauth::signature::{
    self, OAuthParams, SignatureRequest, SigningKey, parse_authorization_header,
};
use marketplace_client::oauth::{AccessToken, Verifier};
use marketplace_client::{
    Client, ConsumerCredentials, Error, ErrorCode, RetryPolicy, Session, TimeoutLimit,
};
use marketplace_tests::fixtures;
use marketplace_tests::stub::{RecordedRequest, Reply, StubServer};
use serde_json::{Value, json};

const CONSUMER_SECRET: &str = "consumer-secret-4f9a";
const ACCESS_SECRET: &str = "access-secret-77c1";
const REQUEST_SECRET: &str = "request-secret-03be";

fn consumer() -> ConsumerCredentials {
    ConsumerCredentials::new("app-key", CONSUMER_SECRET)
}

fn fast_retries() -> RetryPolicy {
    RetryPolicy::default()
        .max_attempts(3)
        .base_delay(Duration::from_millis(10))
        .max_delay(Duration::from_millis(40))
        .max_retry_after(Duration::from_secs(5))
}

async fn start() -> (StubServer, Client) {
    let stub = StubServer::start().await.unwrap();
    let client = Client::builder(stub.base_url(), consumer())
        .allow_plain_http_oauth_on_loopback()
        .retry(fast_retries())
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    (stub, client)
}

fn session(client: &Client) -> Session {
    client.session(AccessToken::new(
        "access-token",
        ACCESS_SECRET,
        Timestamp::now(),
    ))
}

fn fixture(name: &str) -> String {
    String::from_utf8(fixtures::read(name).unwrap()).unwrap()
}

/// The OAuth parameters a request carried in its Authorization header.
fn oauth_params(request: &RecordedRequest) -> Vec<(String, String)> {
    let header = request
        .header("authorization")
        .expect("an Authorization header");
    assert!(header.starts_with("OAuth realm=\"\""), "{header}");
    parse_authorization_header(header).expect("a well-formed header")
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Whether the request's signature is the HMAC-SHA1 of what was actually sent.
fn signed_with(request: &RecordedRequest, base_url: &str, token_secret: &str) -> bool {
    let params = oauth_params(request);
    let get = |name: &str| param(&params, name);
    let mut url = url::Url::parse(&format!("{base_url}{}", request.path)).unwrap();
    url.set_query(request.query.as_deref());
    let oauth = OAuthParams {
        consumer_key: get("oauth_consumer_key").unwrap(),
        token: get("oauth_token"),
        nonce: get("oauth_nonce").unwrap(),
        timestamp: get("oauth_timestamp").unwrap().parse().unwrap(),
        callback: get("oauth_callback"),
        verifier: get("oauth_verifier"),
        version: get("oauth_version"),
    };
    let base = signature::base_string(
        &SignatureRequest {
            method: &request.method,
            url: &url,
            form: &[],
        },
        &oauth,
    );
    let expected = signature::sign(
        &base,
        &SigningKey {
            consumer_secret: CONSUMER_SECRET,
            token_secret,
        },
    );
    get("oauth_signature") == Some(expected.as_str())
        && get("oauth_signature_method") == Some("HMAC-SHA1")
        && get("oauth_version") == Some("1.0")
}

// ---- the three-legged flow ------------------------------------------------------------------

#[tokio::test]
async fn the_three_legged_flow_with_a_callback() {
    let (stub, client) = start().await;
    stub.enqueue(
        "/oauth/getRequestToken",
        Reply::text(
            200,
            "application/x-www-form-urlencoded",
            format!("oauth_token=req-token&oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true"),
        ),
    );
    stub.enqueue(
        "/oauth/getAccessToken",
        Reply::text(
            200,
            "application/x-www-form-urlencoded",
            format!("oauth_token=access-token&oauth_token_secret={ACCESS_SECRET}"),
        ),
    );
    stub.enqueue(
        "/api/pay/getTimesheet",
        Reply::json(200, fixture("pay/getTimesheet.json")),
    );

    let request = client
        .request_token(Some("myapp://oauth/done"))
        .await
        .unwrap();
    assert_eq!(request.token, "req-token");
    assert!(request.callback_confirmed);
    let authorize = client.authorization_url(&request);
    assert_eq!(
        authorize.as_str(),
        format!(
            "{}/oauth/authorizeToken?oauth_token=req-token",
            stub.base_url()
        )
    );
    let verifier = client
        .verifier_from_callback(
            &request,
            "myapp://oauth/done?oauth_token=req-token&oauth_verifier=v-123",
        )
        .unwrap();
    let before = Timestamp::now();
    let token = client.access_token(&request, &verifier).await.unwrap();
    assert_eq!(token.token(), "access-token");
    assert!(
        token.granted_at()
            >= before
                .checked_sub(jiff::SignedDuration::from_secs(1))
                .unwrap()
    );
    let granted_at = token.granted_at();
    let session = client.session(token);
    assert_eq!(
        session.expires_at().as_second() - granted_at.as_second(),
        6 * 3600
    );

    let details = session.get_timesheet_by_id(880104).send().await.unwrap();
    assert_eq!(details.timesheet.id, 880104);

    let requests = stub.requests();
    assert_eq!(requests.len(), 3);
    let base = stub.base_url();

    let first = &requests[0];
    assert_eq!(
        (first.method.as_str(), first.path.as_str()),
        ("POST", "/oauth/getRequestToken")
    );
    let params = oauth_params(first);
    assert_eq!(param(&params, "oauth_token"), Some(""), "sent blank");
    assert_eq!(param(&params, "oauth_callback"), Some("myapp://oauth/done"));
    assert!(
        signed_with(first, &base, ""),
        "signed with an empty token secret"
    );

    let second = &requests[1];
    assert_eq!(second.path, "/oauth/getAccessToken");
    let params = oauth_params(second);
    assert_eq!(param(&params, "oauth_token"), Some("req-token"));
    assert_eq!(param(&params, "oauth_verifier"), Some("v-123"));
    assert!(
        signed_with(second, &base, REQUEST_SECRET),
        "signed with the request token secret"
    );

    let third = &requests[2];
    assert_eq!(
        (third.method.as_str(), third.path.as_str()),
        ("GET", "/api/pay/getTimesheet")
    );
    assert_eq!(
        third.query_pairs(),
        [("id".to_owned(), "880104".to_owned())]
    );
    assert_eq!(
        param(&oauth_params(third), "oauth_token"),
        Some("access-token")
    );
    assert!(
        signed_with(third, &base, ACCESS_SECRET),
        "signed with the access token secret"
    );
}

#[tokio::test]
async fn the_flow_without_a_callback_takes_a_typed_in_verifier() {
    let (stub, client) = start().await;
    stub.enqueue(
        "/oauth/getRequestToken",
        Reply::text(200, "text/plain", format!("oauth_token=req-2&oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true")),
    );
    stub.enqueue(
        "/oauth/getAccessToken",
        Reply::text(
            200,
            "text/plain",
            format!("oauth_token=acc-2&oauth_token_secret={ACCESS_SECRET}"),
        ),
    );
    let request = client.request_token(None).await.unwrap();
    let verifier = Verifier::new("  typed-123 \n").unwrap();
    let token = client.access_token(&request, &verifier).await.unwrap();
    assert_eq!(token.token(), "acc-2");
    let requests = stub.requests();
    assert_eq!(param(&oauth_params(&requests[0]), "oauth_callback"), None);
    assert_eq!(
        param(&oauth_params(&requests[1]), "oauth_verifier"),
        Some("typed-123")
    );
}

#[tokio::test]
async fn the_callback_signed_and_sent_is_the_normalized_one() {
    for (given, sent) in [
        (
            "HTTPS://App.Example:443/cb/../done?x=a b#top",
            "https://app.example/done?x=a%20b#top",
        ),
        ("myapp://oauth/done", "myapp://oauth/done"),
        ("oob", "oob"),
    ] {
        let (stub, client) = start().await;
        stub.enqueue(
            "/oauth/getRequestToken",
            Reply::text(
                200,
                "application/x-www-form-urlencoded",
                "oauth_token=req&oauth_token_secret=s&oauth_callback_confirmed=true",
            ),
        );
        client.request_token(Some(given)).await.unwrap();
        let request = &stub.requests()[0];
        assert_eq!(
            param(&oauth_params(request), "oauth_callback"),
            Some(sent),
            "{given:?}"
        );
        assert!(signed_with(request, &stub.base_url(), ""), "{given:?}");
    }
}

/// SECURITY.md, credentials: a token or token secret the app made (`AccessToken::new`, one
/// restored from a file, a `RequestToken`'s fields) holding a character no credential holds is
/// refused by every call that would sign with it, before anything is sent, naming the
/// parameter and never the value: a data call, a revocation, the access-token exchange.
#[tokio::test]
async fn a_token_the_app_made_with_a_foreign_character_is_refused_before_any_request() {
    let (stub, client) = start().await;
    let verifier = Verifier::new("verifier-1234").unwrap();
    for foreign in [
        '\n', '\r', '\0', '\u{feff}', '\u{200b}', '\u{a0}', '\u{202e}', '\u{2028}',
    ] {
        for (token, secret, name) in [
            (
                format!("tok{foreign}"),
                "s3cret-value".to_owned(),
                "oauth_token",
            ),
            (
                "tok".to_owned(),
                format!("s3cret-value{foreign}"),
                "oauth_token_secret",
            ),
            (
                "tok".to_owned(),
                format!("{foreign}s3cret-value"),
                "oauth_token_secret",
            ),
        ] {
            let what = format!("token {token:?}, secret {secret:?}");
            let session = client.session(AccessToken::new(&token, &secret, Timestamp::now()));
            let request = marketplace_client::oauth::RequestToken {
                token: token.clone(),
                secret: marketplace_client::Secret::new(secret.as_str()),
                callback_confirmed: true,
            };
            let errors = [
                session.get_invoice(1).send().await.map(|_| ()).unwrap_err(),
                session.revoke().await.unwrap_err(),
                client
                    .access_token(&request, &verifier)
                    .await
                    .map(|_| ())
                    .unwrap_err(),
            ];
            for error in errors {
                let shown = format!("{error} {error:?}");
                assert!(
                    matches!(&error, Error::InvalidArgument { name: n, .. } if n == name),
                    "{what}: {shown}"
                );
                assert!(
                    shown.contains(&format!("U+{:04X}", u32::from(foreign))),
                    "{what}: {shown}"
                );
                assert!(!shown.contains("s3cret-value"), "{what}: {shown}");
            }
        }
    }
    assert!(stub.requests().is_empty(), "{:?}", stub.requests());
}

#[tokio::test]
async fn a_callback_parsing_would_alter_is_refused_before_any_request() {
    let (stub, client) = start().await;
    for (callback, says) in [
        ("myapp://cb\r\nX-Injected: 1", "U+000D"),
        ("https://app.example/c\tb", "U+0009"),
        ("https://app.example/cb\u{0}", "U+0000"),
        ("https://app.example/\u{85}", "U+0085"),
        (" myapp://cb", "white space"),
        ("myapp://cb ", "white space"),
        ("no scheme", "not an absolute URI"),
    ] {
        let error = client.request_token(Some(callback)).await.unwrap_err();
        assert!(
            matches!(&error, Error::InvalidArgument { name, .. } if name == "oauth_callback"),
            "{callback:?}: {error}"
        );
        assert!(error.to_string().contains(says), "{callback:?}: {error}");
    }
    assert!(stub.requests().is_empty());
}

#[tokio::test]
async fn a_denied_or_forged_callback_is_refused() {
    let (_stub, client) = start().await;
    let request = marketplace_client::oauth::RequestToken {
        token: "req-token".to_owned(),
        secret: marketplace_client::Secret::new(REQUEST_SECRET),
        callback_confirmed: true,
    };
    let forged = client
        .verifier_from_callback(
            &request,
            "myapp://done?oauth_token=someone-else&oauth_verifier=v",
        )
        .unwrap_err();
    assert!(matches!(forged, Error::Callback { .. }), "{forged}");
    let denied = client
        .verifier_from_callback(&request, "myapp://done?oauth_token=req-token")
        .unwrap_err();
    assert!(denied.to_string().contains("no oauth_verifier"), "{denied}");
}

#[tokio::test]
async fn oauth_over_plain_http_is_refused_before_any_request() {
    let stub = StubServer::start().await.unwrap();
    let client = Client::builder(stub.base_url(), consumer())
        .build()
        .unwrap();
    let error = client.request_token(None).await.unwrap_err();
    assert!(matches!(error, Error::Config { .. }), "{error}");
    assert!(error.to_string().contains("must use HTTPS"), "{error}");
    assert!(stub.requests().is_empty());
}

#[tokio::test]
async fn revocation_sends_a_signed_post_with_the_access_token() {
    let (stub, client) = start().await;
    stub.enqueue("/oauth/revokeToken", Reply::text(200, "text/plain", ""));
    session(&client).revoke().await.unwrap();
    let requests = stub.requests();
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("POST", "/oauth/revokeToken")
    );
    assert_eq!(
        param(&oauth_params(&requests[0]), "oauth_token"),
        Some("access-token")
    );
    assert!(signed_with(&requests[0], &stub.base_url(), ACCESS_SECRET));
}

#[tokio::test]
async fn an_expired_token_fails_locally_without_a_round_trip() {
    let (stub, client) = start().await;
    let granted = Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_hours(6))
        .unwrap();
    let session = client.session(AccessToken::new("old", ACCESS_SECRET, granted));
    let error = session.get_timesheet_by_id(1).send().await.unwrap_err();
    assert!(matches!(error, Error::TokenExpired { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("authorize the application again"),
        "{error}"
    );
    let error = session.revoke().await.unwrap_err();
    assert!(matches!(error, Error::TokenExpired { .. }), "{error}");
    assert!(stub.requests().is_empty());
}

#[tokio::test]
async fn a_restored_token_keeps_its_expiry() {
    let granted = Timestamp::now()
        .checked_sub(jiff::SignedDuration::from_hours(2))
        .unwrap();
    let token = AccessToken::new("t", ACCESS_SECRET, granted);
    let saved = serde_json::to_string(&token).unwrap();
    let restored: AccessToken = serde_json::from_str(&saved).unwrap();
    assert_eq!(restored, token);
    let client = Client::builder("https://marketplace.example", consumer())
        .build()
        .unwrap();
    let session = client.session(restored);
    assert_eq!(
        session.expires_at(),
        granted + jiff::SignedDuration::from_hours(6)
    );
    assert!(session.expires_at() > Timestamp::now());
}

// ---- paged streams ----------------------------------------------------------------------------

/// A paged method served by [`serve_pages`].
struct Paged {
    path: &'static str,
    fixture: &'static str,
    items_key: &'static str,
    total: usize,
    default_size: usize,
    /// The most items the server puts on a page, whatever `rpp` asks (its real cap).
    cap: Option<usize>,
    with_totals: bool,
    /// Makes an item tell its position.
    mark: fn(&mut Value, usize),
}

/// Serves `total` items of a paged method, built from a fixture's first item. Pages follow the
/// reference's rule and may be fetched in any order.
fn serve_pages(stub: &StubServer, paged: Paged) {
    let Paged {
        path,
        fixture: fixture_name,
        items_key,
        total,
        default_size,
        cap,
        with_totals,
        mark,
    } = paged;
    let body: Value = serde_json::from_str(&fixture(fixture_name)).unwrap();
    stub.route(path, move |request| {
        let query = request.query_pairs();
        let number = |name: &str, default: usize| {
            query
                .iter()
                .find(|(n, _)| n == name)
                .map_or(default, |(_, v)| v.parse().unwrap())
        };
        let page = number("page", 1);
        let size = number("rpp", default_size).min(cap.unwrap_or(usize::MAX));
        let mut body = body.clone();
        let data = &mut body["data"];
        let template = data[items_key]["0"].clone();
        let start = (page - 1) * size;
        let items: serde_json::Map<String, Value> = (start..total.min(start + size))
            .enumerate()
            .map(|(i, position)| {
                let mut item = template.clone();
                mark(&mut item, position);
                (i.to_string(), item)
            })
            .collect();
        if with_totals {
            data["totalResults"] = json!(total);
            data["totalPages"] = json!(total.div_ceil(size));
            data["page"] = json!(page);
            data["numResults"] = json!(items.len());
        }
        data[items_key] = Value::Object(items);
        Reply::json(200, body.to_string())
    });
}

fn pages_requested(stub: &StubServer, path: &str) -> Vec<String> {
    let mut pages: Vec<String> = stub
        .requests()
        .iter()
        .filter(|r| r.path == path)
        .map(|r| {
            r.query_pairs()
                .into_iter()
                .find(|(n, _)| n == "page")
                .map_or("1".to_owned(), |(_, v)| v)
        })
        .collect();
    pages.sort_by_key(|p| p.parse::<u32>().unwrap_or(0));
    pages
}

#[tokio::test]
async fn timesheets_stream_yields_every_item_once_in_order() {
    let (stub, client) = start().await;
    serve_pages(
        &stub,
        Paged {
            path: "/api/pay/getTimesheetsForBid",
            fixture: "pay/getTimesheetsForBid.json",
            items_key: "timesheets",
            total: 23,
            default_size: 10,
            cap: None,
            with_totals: true,
            mark: |item, i| {
                item["id"] = json!(1000 + i);
            },
        },
    );
    let ids: Vec<u64> = session(&client)
        .get_timesheets_for_bid(310001)
        .rpp(5)
        .items()
        .map_ok(|sheet| sheet.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids, (1000..1023).collect::<Vec<u64>>());
    assert_eq!(
        pages_requested(&stub, "/api/pay/getTimesheetsForBid"),
        ["1", "2", "3", "4", "5"]
    );
}

#[tokio::test]
async fn status_reports_stream_yields_pages_in_order() {
    let (stub, client) = start().await;
    serve_pages(
        &stub,
        Paged {
            path: "/api/pay/getStatusReportsForBid",
            fixture: "pay/getStatusReportsForBid.json",
            items_key: "statusReports",
            total: 12,
            default_size: 10,
            cap: None,
            with_totals: true,
            mark: |item, i| {
                item["id"] = json!(2000 + i);
            },
        },
    );
    // The named stream needs no pinning: `.next()` on it directly, then the rest at once.
    let mut stream = session(&client).get_status_reports_for_bid(310002).pages();
    let first = stream.next().await.unwrap().unwrap();
    let mut pages = vec![first];
    pages.extend(stream.collect_all().await.unwrap());
    assert_eq!(pages.iter().map(|p| p.page).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(
        pages.iter().map(|p| p.status_reports.len()).sum::<usize>(),
        12
    );
    assert_eq!(pages[1].status_reports[1].id, Some(2011));
}

#[tokio::test]
async fn providers_stream_starts_at_the_requested_page() {
    let (stub, client) = start().await;
    serve_pages(
        &stub,
        Paged {
            path: "/api/manage/getMyProviders",
            fixture: "manage/getMyProviders.json",
            items_key: "agents",
            total: 7,
            default_size: 20,
            cap: None,
            with_totals: true,
            mark: |item, i| {
                item["screenData"]["userId"] = json!((60000 + i).to_string());
            },
        },
    );
    let users: Vec<u64> = session(&client)
        .get_my_providers()
        .rpp(3)
        .page(2)
        .items()
        .map_ok(|agent| agent.screen_data.user_id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(users, [60003, 60004, 60005, 60006]);
    assert_eq!(
        pages_requested(&stub, "/api/manage/getMyProviders"),
        ["2", "3"]
    );
}

#[tokio::test]
async fn workview_stream_without_a_page_count_ends_at_an_empty_page() {
    let (stub, client) = start().await;
    serve_pages(
        &stub,
        Paged {
            path: "/api/workroom/getWorkviewDetails",
            fixture: "workroom/getWorkviewDetails.json",
            items_key: "screenBuckets",
            total: 8,
            default_size: 6,
            cap: None,
            with_totals: false,
            mark: |item, i| {
                item["title"] = json!(format!("{i}:00 - {}:00", i + 1));
            },
        },
    );
    let titles: Vec<String> = session(&client)
        .get_workview_details(310003, 50003)
        .items()
        .map_ok(|bucket| bucket.title)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(titles.len(), 8);
    assert_eq!(titles[7], "7:00 - 8:00");
    // Page 2 holds 2 of 6: short, but only the empty page 3 ends the stream.
    assert_eq!(
        pages_requested(&stub, "/api/workroom/getWorkviewDetails"),
        ["1", "2", "3"]
    );

    // A full last page: the next page comes back empty and ends the stream cleanly.
    let (stub, client) = start().await;
    serve_pages(
        &stub,
        Paged {
            path: "/api/workroom/getWorkviewDetails",
            fixture: "workroom/getWorkviewDetails.json",
            items_key: "screenBuckets",
            total: 6,
            default_size: 6,
            cap: None,
            with_totals: false,
            mark: |item, i| {
                item["title"] = json!(i.to_string());
            },
        },
    );
    let count = session(&client)
        .get_workview_details(310003, 50003)
        .items()
        .try_collect::<Vec<_>>()
        .await
        .unwrap()
        .len();
    assert_eq!(count, 6);
    assert_eq!(
        pages_requested(&stub, "/api/workroom/getWorkviewDetails"),
        ["1", "2"]
    );
}

#[tokio::test]
async fn a_server_cap_below_the_requested_page_size_loses_no_item() {
    // The service serves at most 4 items a page, though rpp 10 is within the documented cap.
    let (stub, client) = start().await;
    serve_pages(
        &stub,
        Paged {
            path: "/api/workroom/getWorkviewDetails",
            fixture: "workroom/getWorkviewDetails.json",
            items_key: "screenBuckets",
            total: 10,
            default_size: 6,
            cap: Some(4),
            with_totals: false,
            mark: |item, i| {
                item["title"] = json!(i.to_string());
            },
        },
    );
    let titles: Vec<String> = session(&client)
        .get_workview_details(310003, 50003)
        .rpp(10)
        .items()
        .map_ok(|bucket| bucket.title)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(titles, (0..10).map(|i| i.to_string()).collect::<Vec<_>>());
    // 4 + 4 + 2 items, then the empty page that ends the stream.
    assert_eq!(
        pages_requested(&stub, "/api/workroom/getWorkviewDetails"),
        ["1", "2", "3", "4"]
    );

    // With a page count the server computes it with its own cap, and the count is followed.
    let (stub, client) = start().await;
    serve_pages(
        &stub,
        Paged {
            path: "/api/pay/getTimesheetsForBid",
            fixture: "pay/getTimesheetsForBid.json",
            items_key: "timesheets",
            total: 23,
            default_size: 10,
            cap: Some(5),
            with_totals: true,
            mark: |item, i| {
                item["id"] = json!(1000 + i);
            },
        },
    );
    let ids: Vec<u64> = session(&client)
        .get_timesheets_for_bid(310001)
        .rpp(25)
        .items()
        .map_ok(|sheet| sheet.id)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids, (1000..1023).collect::<Vec<u64>>());
    assert_eq!(
        pages_requested(&stub, "/api/pay/getTimesheetsForBid"),
        ["1", "2", "3", "4", "5"]
    );
}

#[tokio::test]
async fn a_server_that_ignores_the_page_number_ends_the_stream_with_an_error() {
    let (stub, client) = start().await;
    stub.fallback(
        "/api/workroom/getWorkviewDetails",
        Reply::json(200, fixture("workroom/getWorkviewDetails.json")),
    );
    let results: Vec<_> = session(&client)
        .get_workview_details(310003, 50003)
        .pages()
        .collect()
        .await;
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    match &results[1] {
        Err(Error::Paging {
            method: "workroom/getWorkviewDetails",
            after_page: 1,
            reason,
        }) => assert!(reason.contains("same items as page 1"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        pages_requested(&stub, "/api/workroom/getWorkviewDetails"),
        ["1", "2"]
    );
}

#[tokio::test]
async fn paging_from_the_last_page_number_is_an_error_not_a_panic() {
    let (stub, client) = start().await;
    stub.fallback(
        "/api/workroom/getWorkviewDetails",
        Reply::json(200, fixture("workroom/getWorkviewDetails.json")),
    );
    let results: Vec<_> = session(&client)
        .get_workview_details(310003, 50003)
        .page(u64::MAX)
        .pages()
        .collect()
        .await;
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].is_ok());
    let error = results[1].as_ref().unwrap_err();
    assert!(
        matches!(
            error,
            Error::Paging {
                after_page: u64::MAX,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        "workroom/getWorkviewDetails: paging stopped after page 18446744073709551615: page \
         18446744073709551615 is the last page number there is"
    );
    let requested: Vec<String> = stub
        .requests()
        .iter()
        .filter_map(|r| r.query.clone())
        .collect();
    assert_eq!(requested.len(), 1);
    assert!(
        requested[0].contains("page=18446744073709551615"),
        "{requested:?}"
    );

    // With a page count, the page u64::MAX is past the last one: it is yielded and the stream
    // ends there.
    let (stub, client) = start().await;
    stub.fallback(
        "/api/pay/getTimesheetsForBid",
        Reply::json(200, fixture("pay/getTimesheetsForBid.json")),
    );
    let pages: Vec<_> = session(&client)
        .get_timesheets_for_bid(310001)
        .page(u64::MAX)
        .pages()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_ends_after_an_error() {
    let (stub, client) = start().await;
    stub.fallback("/api/pay/getTimesheetsForBid", Reply::json(404, "{}"));
    let results: Vec<_> = session(&client)
        .get_timesheets_for_bid(1)
        .items()
        .collect()
        .await;
    assert_eq!(results.len(), 1);
    assert!(matches!(results[0], Err(Error::Status { status: 404, .. })));
}

// ---- arguments ----------------------------------------------------------------------------------

#[tokio::test]
async fn invalid_arguments_are_refused_before_any_request() {
    let (stub, client) = start().await;
    let session = session(&client);
    let error = session
        .get_timesheets_for_bid(310001)
        .rpp(26)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "pay/getTimesheetsForBid: invalid argument `rpp`: 26 is above the documented cap 25 (the service would answer with 25)"
    );
    let error = session
        .get_workview_details(1, 2)
        .rpp(11)
        .send()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::InvalidArgument { .. }), "{error}");
    let error = session.get_my_providers().page(0).send().await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`page`: 0 is below the minimum 1"),
        "{error}"
    );
    let error = session.get_timesheet_by_id(0).send().await.unwrap_err();
    assert!(error.to_string().contains("0 is not an ID"), "{error}");
    assert!(stub.requests().is_empty());
}

#[tokio::test]
async fn the_workroom_date_is_sent_as_dd_mon_yy() {
    let (stub, client) = start().await;
    stub.enqueue(
        "/api/workroom/getWorkviewDetails",
        Reply::json(200, fixture("workroom/getWorkviewDetails.json")),
    );
    session(&client)
        .get_workview_details(310003, 50003)
        .date(jiff::civil::date(2026, 1, 5))
        .send()
        .await
        .unwrap();
    let query = stub.requests()[0].query_pairs();
    assert!(
        query.contains(&("date".to_owned(), "05-JAN-26".to_owned())),
        "{query:?}"
    );
}

// ---- retries, clock ---------------------------------------------------------------------------

#[tokio::test]
async fn transient_failures_are_retried_and_each_attempt_is_signed_afresh() {
    let (stub, client) = start().await;
    let path = "/api/pay/getInvoice";
    stub.enqueue(path, Reply::reset());
    stub.enqueue(
        path,
        Reply::json(200, fixture("pay/getInvoice.json")).truncated(),
    );
    stub.enqueue(path, Reply::json(200, fixture("pay/getInvoice.json")));
    let summary = session(&client).get_invoice(9003).send().await.unwrap();
    assert_eq!(summary.invoice.id, 9003);
    let requests = stub.requests();
    assert_eq!(requests.len(), 3);
    let nonces: Vec<String> = requests
        .iter()
        .map(|r| param(&oauth_params(r), "oauth_nonce").unwrap().to_owned())
        .collect();
    assert!(
        nonces[0] != nonces[1] && nonces[1] != nonces[2],
        "fresh nonces: {nonces:?}"
    );
    assert!(
        requests
            .iter()
            .all(|r| signed_with(r, &stub.base_url(), ACCESS_SECRET))
    );
}

#[tokio::test]
async fn retry_after_is_honoured_for_503_and_429() {
    let (stub, client) = start().await;
    let path = "/api/pay/getPayment";
    stub.enqueue(
        path,
        Reply::text(503, "text/plain", "busy").header("Retry-After", "1"),
    );
    stub.enqueue(path, Reply::text(429, "text/plain", "slow down"));
    stub.enqueue(path, Reply::json(200, fixture("pay/getPayment.json")));
    let started = tokio::time::Instant::now();
    let payment = session(&client).get_payment(7001).send().await.unwrap();
    assert_eq!(payment.payment.id, 7001);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited for Retry-After"
    );
    assert_eq!(stub.requests().len(), 3);
}

#[tokio::test]
async fn retries_stop_after_the_last_attempt_with_the_last_status() {
    let (stub, client) = start().await;
    stub.fallback(
        "/api/pay/getBilling",
        Reply::text(500, "text/html", "<html><h1>Internal error</h1></html>"),
    );
    let error = session(&client).get_billing(9003).send().await.unwrap_err();
    match &error {
        Error::Status {
            status,
            body,
            method,
        } => {
            assert_eq!((*status, *method), (500, "pay/getBilling"));
            assert!(body.contains("Internal error"));
        }
        other => panic!("expected a status error, got {other:?}"),
    }
    assert_eq!(stub.requests().len(), 3, "max_attempts");
}

#[tokio::test]
async fn oauth_posts_are_not_retried() {
    let (stub, client) = start().await;
    stub.fallback(
        "/oauth/getRequestToken",
        Reply::text(503, "text/plain", "busy"),
    );
    let error = client.request_token(None).await.unwrap_err();
    assert_eq!(error.status(), Some(503));
    assert_eq!(stub.requests().len(), 1);
}

fn http_date(at: Timestamp) -> String {
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&at)
        .unwrap()
}

fn mismatch_body() -> String {
    json!({"api": "pay/getTimesheet", "apiVersion": 1, "rcode": 0,
           "error": {"code": "E_API_AUTH_SIGNATURE_MISMATCH", "type": "authentication",
                     "message": "signature mismatch"}})
    .to_string()
}

#[tokio::test]
async fn a_skewed_clock_is_corrected_once_from_the_date_header() {
    let (stub, client) = start().await;
    let server_now = Timestamp::now()
        .checked_add(jiff::SignedDuration::from_hours(1))
        .unwrap();
    let path = "/api/pay/getTimesheet";
    stub.enqueue(
        path,
        Reply::json(401, mismatch_body()).header("Date", &http_date(server_now)),
    );
    stub.fallback(path, Reply::json(200, fixture("pay/getTimesheet.json")));
    let session = session(&client);
    session.get_timesheet_by_id(880104).send().await.unwrap();
    session.get_timesheet_by_id(880104).send().await.unwrap();

    let stamps: Vec<i64> = stub
        .requests()
        .iter()
        .map(|r| {
            param(&oauth_params(r), "oauth_timestamp")
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(stamps.len(), 3);
    let local = Timestamp::now().as_second();
    assert!(
        (stamps[0] - local).abs() < 30,
        "first attempt on the local clock"
    );
    assert!(
        (stamps[1] - server_now.as_second()).abs() < 30,
        "retried on the service's clock"
    );
    assert!(
        (stamps[2] - server_now.as_second()).abs() < 30,
        "later calls keep the correction"
    );
}

/// Calls signed before the clock was corrected and refused after it, each at its own time:
/// every one is retried with the corrected clock and succeeds, whichever refusal arrives
/// first, whether the service is ahead or behind, however many calls and however far apart.
/// (The offset is measured against the clock each attempt signed with and set, not added: a
/// refusal measured against the already corrected clock would see no skew and fail, and one
/// added to the offset would double it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_refusals_of_a_skewed_clock_all_retry_on_the_corrected_clock() {
    for (skew_hours, calls, gap_ms) in [(2, 4, 150), (-2, 4, 150), (3, 8, 40), (1, 2, 400)] {
        let (stub, client) = start().await;
        let skew = jiff::SignedDuration::from_hours(skew_hours);
        let refused = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counter = std::sync::Arc::clone(&refused);
        stub.route("/api/pay/getTimesheet", move |request| {
            let server_now = Timestamp::now().checked_add(skew).unwrap();
            let stamp: i64 = param(&oauth_params(request), "oauth_timestamp")
                .and_then(|stamp| stamp.parse().ok())
                .unwrap_or(0);
            if (stamp - server_now.as_second()).abs() <= 300 {
                return Reply::json(200, fixture("pay/getTimesheet.json"))
                    .header("Date", &http_date(server_now));
            }
            // The first refusal waits until every call was sent (signed on the local clock);
            // each other arrives `gap_ms` after the one before.
            let nth = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Reply::json(401, mismatch_body())
                .header("Date", &http_date(server_now))
                .delay(Duration::from_millis(300 + gap_ms * nth))
        });
        let session = session(&client);
        let results = futures::future::join_all(
            (0..calls).map(|_| session.get_timesheet_by_id(880104).send()),
        )
        .await;
        for result in &results {
            assert!(
                result.is_ok(),
                "skew {skew_hours} h, {calls} calls {gap_ms} ms apart: {result:?}"
            );
        }
        assert_eq!(
            refused.load(std::sync::atomic::Ordering::SeqCst),
            calls,
            "each call refused once"
        );
        assert_eq!(stub.requests().len(), 2 * calls as usize);
    }
}

#[tokio::test]
async fn a_signature_mismatch_without_skew_is_an_api_error() {
    let (stub, client) = start().await;
    let path = "/api/pay/getTimesheet";
    stub.fallback(
        path,
        Reply::json(401, mismatch_body()).header("Date", &http_date(Timestamp::now())),
    );
    let error = session(&client)
        .get_timesheet_by_id(1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        ErrorCode::of(&error),
        Some(ErrorCode::ApiAuthSignatureMismatch)
    );
    assert_eq!(error.status(), Some(401));
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn a_slow_response_times_out() {
    let stub = StubServer::start().await.unwrap();
    let client = Client::builder(stub.base_url(), consumer())
        .timeout(Duration::from_millis(200))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    stub.fallback(
        "/api/pay/getInvoice",
        Reply::json(200, fixture("pay/getInvoice.json")).delay(Duration::from_secs(2)),
    );
    let error = session(&client).get_invoice(9003).send().await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::Timeout {
                method: "pay/getInvoice",
                limit: TimeoutLimit::Attempt,
                attempts: 1,
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_response_larger_than_the_limit_is_an_error_not_an_allocation() {
    let stub = StubServer::start().await.unwrap();
    let client = Client::builder(stub.base_url(), consumer())
        .max_response_bytes(1024)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let body = fixture("pay/getBilling.json");
    assert!(body.len() > 1024);
    stub.fallback("/api/pay/getBilling", Reply::json(200, body));
    let error = session(&client).get_billing(9003).send().await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::ResponseTooLarge {
                limit: 1024,
                method: "pay/getBilling"
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_caller_supplied_http_client_is_used() {
    let stub = StubServer::start().await.unwrap();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-app", reqwest::header::HeaderValue::from_static("tour"));
    let http = marketplace_client::http_client_builder()
        .unwrap()
        .default_headers(headers)
        .build()
        .unwrap();
    let client = Client::builder(stub.base_url(), consumer())
        .http_client(http)
        .build()
        .unwrap();
    stub.enqueue(
        "/api/pay/getInvoice",
        Reply::json(200, fixture("pay/getInvoice.json")),
    );
    session(&client).get_invoice(9003).send().await.unwrap();
    assert_eq!(stub.requests()[0].header("x-app"), Some("tour"));
}

// ---- errors ---------------------------------------------------------------------------------------

#[tokio::test]
async fn an_rcode_other_than_one_is_an_api_error_with_the_raw_body() {
    let (stub, client) = start().await;
    let body = json!({"api": "pay/getTimesheet", "apiVersion": 1, "rcode": 0,
                      "error": {"code": "E_VALIDATION_INVALID_ID", "message": "no such timesheet"}})
    .to_string();
    stub.fallback("/api/pay/getTimesheet", Reply::json(200, body.clone()));
    let error = session(&client)
        .get_timesheet_by_bid_id(999)
        .send()
        .await
        .unwrap_err();
    assert_eq!(ErrorCode::of(&error), Some(ErrorCode::ValidationInvalidId));
    assert!(
        error
            .code()
            .is_some_and(|code| *code == ErrorCode::ValidationInvalidId)
    );
    match &error {
        Error::Api {
            failure, method, ..
        } => {
            assert_eq!(*method, "pay/getTimesheet");
            assert_eq!(failure.rcode, Some(0));
            assert_eq!(failure.message.as_deref(), Some("no such timesheet"));
            assert_eq!(failure.body, body);
        }
        other => panic!("expected an API error, got {other:?}"),
    }
    assert!(
        error.to_string().contains("E_VALIDATION_INVALID_ID"),
        "{error}"
    );
}

#[tokio::test]
async fn an_unknown_error_code_is_kept() {
    let (stub, client) = start().await;
    stub.fallback(
        "/api/pay/getInvoice",
        Reply::json(403, r#"{"rcode": 9, "error": "E_QUOTA_EXCEEDED"}"#),
    );
    let error = session(&client).get_invoice(1).send().await.unwrap_err();
    assert_eq!(
        ErrorCode::of(&error),
        Some(ErrorCode::Other("E_QUOTA_EXCEEDED".to_owned()))
    );
    assert_eq!(error.code().unwrap().as_str(), "E_QUOTA_EXCEEDED");
}

#[tokio::test]
async fn a_decode_error_names_the_method_and_the_json_path() {
    let (stub, client) = start().await;
    let body =
        fixture("pay/getTimesheet.json").replacen("\"rate\": 30", "\"rate\": \"1,000.00\"", 1);
    assert!(body.contains("1,000.00"));
    stub.fallback("/api/pay/getTimesheet", Reply::json(200, body));
    let error = session(&client)
        .get_timesheet_by_id(880104)
        .send()
        .await
        .unwrap_err();
    match &error {
        Error::Decode {
            method,
            path,
            message,
            excerpt,
        } => {
            assert_eq!(*method, "pay/getTimesheet");
            assert_eq!(path, "data.timesheet.rate");
            assert!(message.contains("1,000.00"), "{message}");
            assert!(excerpt.starts_with('{'), "{excerpt}");
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_html_page_with_status_200_is_a_decode_error_naming_the_content_type() {
    let (stub, client) = start().await;
    stub.fallback(
        "/api/pay/getInvoice",
        Reply::text(200, "text/html", "<html>maintenance</html>"),
    );
    let error = session(&client).get_invoice(9003).send().await.unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, Error::Decode { .. }), "{text}");
    assert!(
        text.contains("text/html") && text.contains("<html>maintenance"),
        "{text}"
    );
}

/// What an app holds while a call waits is small: the call's state (kilobytes: the attempt,
/// the answer, the decoded data) is boxed where the client makes it. The bound is clippy.toml's
/// `future-size-threshold`, which the client's own awaits are held to (`large_futures`).
#[test]
fn the_futures_an_app_holds_stay_small() {
    const BOUND: usize = 2048;
    let client = Client::builder("https://127.0.0.1:9/", consumer())
        .build()
        .unwrap();
    let session = session(&client);
    let request = marketplace_client::oauth::RequestToken {
        token: "request".to_owned(),
        secret: marketplace_client::Secret::new(REQUEST_SECRET),
        callback_confirmed: true,
    };
    let verifier = Verifier::new("verifier").unwrap();
    let sizes = [
        ("request_token", size_of_val(&client.request_token(None))),
        (
            "access_token",
            size_of_val(&client.access_token(&request, &verifier)),
        ),
        ("revoke", size_of_val(&session.revoke())),
        (
            "get_invoice.send",
            size_of_val(&session.get_invoice(9003).send()),
        ),
        (
            "get_invoice.send_with_metadata",
            size_of_val(&session.get_invoice(9003).send_with_metadata()),
        ),
        (
            "get_my_providers.send",
            size_of_val(&session.get_my_providers().send()),
        ),
    ];
    for (name, size) in sizes {
        assert!(
            size <= BOUND,
            "{name}'s future is {size} bytes, over {BOUND}"
        );
    }
}
