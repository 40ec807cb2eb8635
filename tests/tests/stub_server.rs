//! The scripted stub server: replies in order then the fallback, recorded requests, decoded
//! queries, and the faults it exists for (delay, truncated body, reset, malformed requests).

use std::error::Error as _;
use std::time::Duration;

use marketplace_tests::stub::{Reply, StubServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// A client that ignores proxy settings and cannot hang the suite.
fn client() -> reqwest::Client {
    marketplace_client::http_client_builder()
        .expect("TLS configuration")
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("client builds")
}

async fn get(client: &reqwest::Client, url: &str) -> (u16, String) {
    let response = client.get(url).send().await.expect("request succeeds");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body reads"))
}

/// The kind of the innermost `std::io::Error` in the source chain of `error`.
fn io_error_kind(error: &reqwest::Error) -> Option<std::io::ErrorKind> {
    let mut kind = None;
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            kind = Some(io.kind());
        }
        source = cause.source();
    }
    kind
}

#[tokio::test]
async fn queued_replies_are_served_in_order_then_the_fallback() {
    let server = StubServer::start().await.unwrap();
    server.enqueue("/items", Reply::json(200, r#"{"n":1}"#));
    server.enqueue("/items", Reply::json(201, r#"{"n":2}"#));
    server.enqueue("/other", Reply::json(500, "{}"));
    server.fallback("/items", Reply::json(503, r#"{"fallback":true}"#));
    let client = client();
    let url = format!("{}/items", server.base_url());

    let first = client.get(&url).send().await.unwrap();
    assert_eq!(first.status().as_u16(), 200);
    let headers = first.headers();
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["content-length"], "7");
    assert_eq!(headers["connection"], "close");
    assert!(headers.get("date").is_none(), "no Date unless scripted");
    assert_eq!(first.text().await.unwrap(), r#"{"n":1}"#);

    assert_eq!(get(&client, &url).await, (201, r#"{"n":2}"#.to_owned()));
    for _ in 0..2 {
        assert_eq!(
            get(&client, &url).await,
            (503, r#"{"fallback":true}"#.to_owned())
        );
    }
    // The query is not part of the path that selects the script.
    let with_query = format!("{url}?page=2");
    assert_eq!(get(&client, &with_query).await.0, 503);
    assert_eq!(server.requests().len(), 5);
}

#[tokio::test]
async fn an_unscripted_path_gives_404() {
    let server = StubServer::start().await.unwrap();
    server.fallback("/known", Reply::json(200, "{}"));
    let (status, body) = get(&client(), &format!("{}/unknown", server.base_url())).await;
    assert_eq!((status, body.as_str()), (404, "no scripted reply"));
}

#[tokio::test]
async fn request_headers_and_body_are_recorded_in_arrival_order() {
    let server = StubServer::start().await.unwrap();
    server.fallback("/orders", Reply::json(201, "{}"));
    let client = client();
    let base = server.base_url();

    client.get(format!("{base}/orders")).send().await.unwrap();
    let response = client
        .post(format!("{base}/orders?dry_run=1"))
        .header("X-Api-Key", "secret-key")
        .header("Content-Type", "application/json")
        .body(r#"{"qty":3}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "GET");
    assert!(requests[0].body.is_empty());
    let post = &requests[1];
    assert_eq!(post.method, "POST");
    assert_eq!(post.path, "/orders");
    assert_eq!(post.query.as_deref(), Some("dry_run=1"));
    assert_eq!(post.header("x-api-key"), Some("secret-key"));
    assert_eq!(post.header("X-API-KEY"), Some("secret-key"));
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert_eq!(post.header("content-length"), Some("9"));
    assert_eq!(post.header("x-missing"), None);
    assert!(
        post.headers
            .iter()
            .all(|(name, _)| *name == name.to_lowercase())
    );
    assert_eq!(post.body, br#"{"qty":3}"#);
}

#[tokio::test]
async fn query_pairs_are_form_urlencoded_decoded() {
    let server = StubServer::start().await.unwrap();
    let url = format!(
        "{}/search?q=hello%20world&tag=a%2Bb&plus=a+b&empty=&q=again",
        server.base_url()
    );
    get(&client(), &url).await;
    let request = &server.requests()[0];
    assert_eq!(request.path, "/search");
    let decoded = request.query_pairs();
    let pairs: Vec<(&str, &str)> = decoded
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("q", "hello world"),
            ("tag", "a+b"),
            ("plus", "a b"),
            ("empty", ""),
            ("q", "again"),
        ]
    );

    get(&client(), &format!("{}/search", server.base_url())).await;
    let without = &server.requests()[1];
    assert_eq!(without.query, None);
    assert!(without.query_pairs().is_empty());
}

#[tokio::test]
async fn scripted_status_and_headers_are_sent_verbatim() {
    let server = StubServer::start().await.unwrap();
    server.enqueue(
        "/limited",
        Reply::text(429, "text/html", "<html>slow down</html>")
            .header("Retry-After", "7")
            .header("Date", "Wed, 21 Oct 2015 07:28:00 GMT"),
    );
    server.enqueue(
        "/limited",
        Reply::json(418, "{}").header("content-type", "text/plain"),
    );
    let client = client();
    let url = format!("{}/limited", server.base_url());

    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 429);
    let headers = response.headers();
    assert_eq!(headers["retry-after"], "7");
    assert_eq!(headers["date"], "Wed, 21 Oct 2015 07:28:00 GMT");
    assert_eq!(headers["content-type"], "text/html");
    assert_eq!(response.text().await.unwrap(), "<html>slow down</html>");

    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 418);
    let content_types: Vec<_> = response.headers().get_all("content-type").iter().collect();
    assert_eq!(content_types, ["text/plain"]);
}

/// Waits (up to 2 s) until the server has recorded `count` requests.
async fn wait_for_requests(server: &StubServer, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while server.requests().len() < count {
        assert!(Instant::now() < deadline, "{count} requests never arrived");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_delayed_reply_arrives_after_the_delay_and_the_request_is_recorded_first() {
    let server = StubServer::start().await.unwrap();
    let delay = Duration::from_millis(300);
    server.enqueue("/slow", Reply::json(200, "{}").delay(delay));
    let url = format!("{}/slow", server.base_url());
    let client = client();

    let started = Instant::now();
    let pending = tokio::spawn(async move { get(&client, &url).await });
    wait_for_requests(&server, 1).await;
    assert!(
        !pending.is_finished(),
        "recorded before the reply is written"
    );

    assert_eq!(pending.await.unwrap().0, 200);
    assert!(
        started.elapsed() >= delay,
        "arrived after {:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_served_concurrently() {
    let server = StubServer::start().await.unwrap();
    server.enqueue(
        "/slow",
        Reply::json(200, "{}").delay(Duration::from_millis(500)),
    );
    server.enqueue("/fast", Reply::json(200, "{}"));
    let base = server.base_url();
    let client = client();

    let slow_url = format!("{base}/slow");
    let slow_client = client.clone();
    let slow = tokio::spawn(async move { get(&slow_client, &slow_url).await });
    wait_for_requests(&server, 1).await;
    assert_eq!(get(&client, &format!("{base}/fast")).await.0, 200);
    assert!(
        !slow.is_finished(),
        "the fast reply waited for the slow one"
    );
    assert_eq!(slow.await.unwrap().0, 200);
}

#[tokio::test]
async fn a_truncated_reply_fails_the_body_read() {
    let server = StubServer::start().await.unwrap();
    server.enqueue(
        "/short",
        Reply::json(200, r#"{"items":[1,2,3,4,5,6,7,8]}"#).truncated(),
    );
    let response = client()
        .get(format!("{}/short", server.base_url()))
        .send()
        .await
        .expect("the head is complete");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.content_length(), Some(27));
    let error = response.bytes().await.expect_err("the body is short");
    // reqwest 0.13 reports a short body from `bytes()` as a decode error wrapping a body error.
    assert!(error.is_decode() || error.is_body(), "{error:?}");
    assert_eq!(
        io_error_kind(&error),
        Some(std::io::ErrorKind::UnexpectedEof),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_reset_fails_the_request_with_a_connection_error() {
    let server = StubServer::start().await.unwrap();
    server.enqueue("/reset", Reply::reset());
    server.fallback("/reset", Reply::json(200, "{}"));
    let client = client();
    let url = format!("{}/reset", server.base_url());

    let error = client
        .get(&url)
        .send()
        .await
        .expect_err("the connection is reset");
    assert!(error.is_request(), "{error:?}");
    assert!(!error.is_timeout() && error.status().is_none(), "{error:?}");
    // reqwest reports this as a request error (not `is_connect`, which is for failures to
    // establish the connection) caused by an io `ConnectionReset`.
    assert!(!error.is_connect(), "{error:?}");
    assert_eq!(
        io_error_kind(&error),
        Some(std::io::ErrorKind::ConnectionReset),
        "{error:?}"
    );
    // The request was read before the reset, and the next one gets the fallback.
    assert_eq!(server.requests().len(), 1);
    assert_eq!(get(&client, &url).await.0, 200);
}

/// Sends raw bytes on a fresh connection and returns everything the server writes back.
async fn raw_exchange(server: &StubServer, request: &[u8]) -> String {
    let address = server.base_url().replace("http://", "");
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(request).await.unwrap();
    stream.shutdown().await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    String::from_utf8_lossy(&response).into_owned()
}

#[tokio::test]
async fn malformed_requests_get_400_and_are_recorded_as_far_as_parsed() {
    let server = StubServer::start().await.unwrap();
    server.fallback("/x", Reply::json(200, "{}"));

    let response = raw_exchange(&server, b"garbage\r\n\r\n").await;
    assert!(
        response.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{response}"
    );
    assert!(response.contains("Connection: close\r\n"), "{response}");

    let response = raw_exchange(&server, b"GET /x?a=1 HTTP/1.1\r\nHost: h\r\nbroken\r\n\r\n").await;
    assert!(response.starts_with("HTTP/1.1 400 "), "{response}");

    let response = raw_exchange(&server, b"POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n").await;
    assert!(response.starts_with("HTTP/1.1 400 "), "{response}");

    let response = raw_exchange(
        &server,
        b"POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc",
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 400 "), "{response}");

    let oversized = format!(
        "GET /x HTTP/1.1\r\nX-Big: {}\r\n\r\n",
        "a".repeat(70 * 1024)
    );
    let response = raw_exchange(&server, oversized.as_bytes()).await;
    assert!(response.starts_with("HTTP/1.1 400 "), "{response}");

    let response = raw_exchange(
        &server,
        b"POST /x HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n",
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 400 "), "{response}");

    let response = raw_exchange(&server, b"GET /x HTTP/1.1\r\nHost: h\r\n").await;
    assert!(response.starts_with("HTTP/1.1 400 "), "{response}");

    // A connection closed without a byte is not a request.
    assert_eq!(raw_exchange(&server, b"").await, "");

    let requests = server.requests();
    assert_eq!(requests.len(), 7);
    assert_eq!(requests[0].method, "");
    let broken = &requests[1];
    assert_eq!(
        (broken.method.as_str(), broken.path.as_str()),
        ("GET", "/x")
    );
    assert_eq!(broken.query.as_deref(), Some("a=1"));
    assert_eq!(broken.header("host"), Some("h"));
    assert_eq!(requests[3].body, b"abc");
    assert_eq!(requests[4].path, "/x");
    assert_eq!(requests[6].header("host"), Some("h"));

    // A well-formed raw request still works, absolute-form target included.
    let response = raw_exchange(
        &server,
        b"POST http://example.test/x?q=1 HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",
    )
    .await;
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(response.ends_with("\r\n\r\n{}"), "{response}");
    let last = server.requests().pop().unwrap();
    assert_eq!(
        (last.path.as_str(), last.body.as_slice()),
        ("/x", &b"hi"[..])
    );
}

#[tokio::test]
async fn dropping_the_server_stops_it() {
    let server = StubServer::start().await.unwrap();
    let url = format!("{}/gone", server.base_url());
    drop(server);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(client().get(&url).send().await.is_err());
}
