//! Red team 11: the published `marketplace-client` at runtime, as an app uses it, against
//! servers these tests start (a raw TCP stub on 127.0.0.1:0 scripted to misbehave, and the
//! fake). Written without reading the implementation; each case holds the client to a sentence
//! of SECURITY.md or docs/using-the-client.md.
//!
//! 18 cases were written; 5 failed on the code they were written against, and all are fixed: a
//! response hook that ran past the deadline let the call end `Ok` (the attempt now checks the
//! deadline after its hooks); a secret written in compatibility characters (full-width,
//! mathematical bold: what NFKC folds to the secret), its base64 or hexadecimal broken into
//! lines, or its characters interleaved with invisible ones, in a service's text or in `redact`
//! (the scrubber now reads every view folded too: `scrub/folded.rs`).
//!
//! Properties attacked and the sentence each case holds the code to:
//!
//! 1. No secret leaves the process. SECURITY.md: "known secrets in every spelling a reader
//!    takes for them (`spellings.rs`: each Unicode normalization form, ASCII case ignored, …)".
//!    - `compatibility_spellings_of_a_secret_reach_no_channel` (proptest): each character of the
//!      consumer secret or token secret written plain, full-width (U+FF01…) or mathematical
//!      bold (U+1D400…), which NFKC reads back as the secret; watched in the error's
//!      `Display`/`Debug`, the response hook's body and headers, the recorder's line and TRACE
//!      tracing.
//!    - `callback_credentials_reach_no_hook_view`: "a callback's query values (known secrets …)";
//!      every hook view (`Debug`, `url()`, `params()`, `headers()`, `body()`) of `request_token`.
//!    - `wrapped_base64_or_hex_of_a_secret_reaches_no_error_or_hook` (proptest): "in base64 of
//!      either alphabet … alone or inside a longer base64 text", broken into lines as MIME does.
//!    - `a_secret_interleaved_with_invisible_characters_reaches_no_error` (proptest): U+200B and
//!      siblings between the secret's characters, which a person reading the log does not see.
//!    - `the_verifier_and_token_secrets_reach_no_hook_view_of_the_access_token_call`.
//!    - `a_hostile_callback_is_refused_on_one_line_without_its_values` (proptest; also 5).
//!    - `redact_removes_compatibility_and_wrapped_spellings_of_a_secret` (proptest): "`redact` …
//!      the same as every channel".
//!    - `an_echoed_secret_in_a_status_reason_reaches_no_trace_or_error`: "tracing (every level,
//!      spans and events) … no secret"; "the status line's reason" cleaned.
//! 2. Credentials reach only the configured origin. docs/using-the-client.md: "Any 3xx, from a
//!    data method or an OAuth endpoint, ends the call in `Error::Redirect` … nothing is sent to
//!    the redirect target".
//!    - `every_3xx_from_every_endpoint_is_a_redirect_error_and_the_target_sees_nothing` (proptest).
//!    - `a_hostile_request_token_adds_no_parameter_to_the_authorization_url`: the client "must not
//!      be made to … follow the service anywhere": the service's token is one `oauth_token` value.
//! 3. Every call ends within its deadline. using-the-client.md: "A limit reached is
//!    `Error::Timeout` naming the limit, the time spent and the attempts made (a body that stalls
//!    is a timeout, not a decode error)."
//!    - `every_stall_on_every_endpoint_ends_in_a_timeout` (proptest: endpoint × stall kind).
//!    - `a_stalled_later_page_ends_the_stream_in_a_timeout` ("A paged stream's deadline is per
//!      page").
//!    - `a_response_hook_reading_past_the_deadline_ends_the_call_in_a_timeout` (SECURITY.md:
//!      "what a hook reads later is cleaned until the deadline too (… past it … the call ends
//!      with `Error::Timeout`)").
//!    - `a_request_hook_slower_than_the_deadline_ends_the_call_in_a_timeout`.
//!    - `a_retry_after_past_the_deadline_ends_every_endpoint_with_the_answer` ("A wait that would
//!      pass the deadline is not started"; "OAuth POSTs are never retried").
//! 4. Bad server input is a typed error, never a panic ("its `Display` names the method").
//!    - `any_status_and_body_on_any_endpoint_is_a_typed_error_naming_the_method` (proptest).
//! 5. Error texts are one line. SECURITY.md: "one line without a control character, whatever the
//!    service sent: a message, code, body, JSON key or value quoted in an error starts no line of
//!    an app's log (no forged entry), drives no terminal and reorders nothing (bidirectional
//!    controls)".
//!    - `hostile_text_in_every_error_field_stays_on_one_line` (proptest: code, message, listed
//!      errors, OAuth problem, Location, reason phrase, plain body; `Display` of `Error`, its
//!      `source()` chain, `Error::code()`, `ErrorCode::of`, `ApiFailure`), with U+2028/U+2029
//!      (Unicode's line and paragraph separators) among the line breaks.
//!    - `a_recording_line_that_is_not_an_exchange_is_reported_on_one_line`
//!      (`RecordingError`, `Exchange::from_line`).

use marketplace_tests::runtime;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use base64::Engine as _;
use marketplace_client::oauth::{AccessToken, RequestToken};
use marketplace_client::paging::Page as _;
use marketplace_client::recording::Recorder;
use marketplace_client::{
    Client, ClientBuilder, ConsumerCredentials, Error, ErrorCode, RetryPolicy, TryStreamExt,
};
use proptest::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const KEY: &str = "rt11-consumer-key";
const GUARD: Duration = Duration::from_secs(30);

// ---------------------------------------------------------------------------------------------
// A scripted stub: every connection's request is read whole, then handed to the script.

#[derive(Clone, Default)]
struct Seen {
    requests: Arc<Mutex<Vec<String>>>,
    connections: Arc<AtomicUsize>,
}

impl Seen {
    fn count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let length = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.trim()
                        .eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            while buf.len() < end + 4 + length {
                let n = stream.read(&mut chunk).await.ok()?;
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            return Some(String::from_utf8_lossy(&buf).to_string());
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Starts a stub on 127.0.0.1:0; `script(index, request, stream)` answers each connection.
async fn stub<F, Fut>(script: F) -> (SocketAddr, Seen)
where
    F: Fn(usize, String, TcpStream) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Seen::default();
    let shared = seen.clone();
    let script = Arc::new(script);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let index = shared.connections.fetch_add(1, Ordering::SeqCst);
            let shared = shared.clone();
            let script = script.clone();
            tokio::spawn(async move {
                if let Some(request) = read_request(&mut stream).await {
                    shared.requests.lock().expect("lock").push(request.clone());
                    script(index, request, stream).await;
                }
            });
        }
    });
    (addr, seen)
}

fn response(status_line: &str, headers: &[(&str, &[u8])], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status_line}\r\n").into_bytes();
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(body);
    out
}

async fn answer(mut stream: TcpStream, bytes: Vec<u8>) {
    let _ = stream.write_all(&bytes).await;
    let _ = stream.flush().await;
    let _ = stream.shutdown().await;
}

fn builder(addr: SocketAddr, consumer_secret: &str) -> ClientBuilder {
    Client::builder(
        format!("http://{addr}"),
        ConsumerCredentials::new(KEY, consumer_secret),
    )
    .allow_plain_http_oauth_on_loopback()
    .retry(RetryPolicy::none())
    .timeout(Duration::from_secs(5))
    .deadline(Duration::from_secs(5))
}

fn token(token_secret: &str) -> AccessToken {
    AccessToken::new("rt11-access-token", token_secret, jiff::Timestamp::now())
}

fn request_token_value(secret: &str) -> RequestToken {
    serde_json::from_value(serde_json::json!({
        "token": "rt11-request-token",
        "secret": secret,
        "callback_confirmed": true,
    }))
    .expect("a request token")
}

/// Which call a case makes.
#[derive(Clone, Copy, Debug)]
enum Endpoint {
    Data,
    RequestToken,
    AccessToken,
    Revoke,
}

fn endpoints() -> impl Strategy<Value = Endpoint> {
    prop_oneof![
        Just(Endpoint::Data),
        Just(Endpoint::RequestToken),
        Just(Endpoint::AccessToken),
        Just(Endpoint::Revoke),
    ]
}

async fn call(client: &Client, endpoint: Endpoint, token_secret: &str) -> Result<(), Error> {
    match endpoint {
        Endpoint::Data => client
            .session(token(token_secret))
            .get_invoice(9003)
            .send()
            .await
            .map(drop),
        Endpoint::RequestToken => client
            .request_token(Some("https://app.example/cb"))
            .await
            .map(drop),
        Endpoint::AccessToken => {
            let request = request_token_value(token_secret);
            let verifier = marketplace_client::oauth::Verifier::new("rt11-verifier-value")?;
            client.access_token(&request, &verifier).await.map(drop)
        }
        Endpoint::Revoke => client.session(token(token_secret)).revoke().await,
    }
}

// ---------------------------------------------------------------------------------------------
// Capturing channels: a global TRACE subscriber (with `log` records) and a recorder's writer.

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("lock")).to_string()
    }
}

impl std::io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn traces() -> &'static Buffer {
    static TRACES: OnceLock<Buffer> = OnceLock::new();
    TRACES.get_or_init(|| {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
        let _ = tracing_log::LogTracer::init();
        buffer
    })
}

// ---------------------------------------------------------------------------------------------
// Readings of a text an app's reader undoes.

/// NFKC's reading of the full-width and mathematical-bold ASCII forms, then ASCII lower case.
fn compatibility_folded(text: &str) -> String {
    text.chars()
        .map(|c| {
            let u = c as u32;
            let folded = if (0xFF01..=0xFF5E).contains(&u) {
                char::from_u32(u - 0xFF01 + 0x21)
            } else if (0x1D400..=0x1D419).contains(&u) {
                char::from_u32(u - 0x1D400 + u32::from(b'A'))
            } else if (0x1D41A..=0x1D433).contains(&u) {
                char::from_u32(u - 0x1D41A + u32::from(b'a'))
            } else if (0x1D7CE..=0x1D7D7).contains(&u) {
                char::from_u32(u - 0x1D7CE + u32::from(b'0'))
            } else {
                Some(c)
            };
            folded.unwrap_or(c).to_ascii_lowercase()
        })
        .collect()
}

fn full_width(c: char) -> char {
    if c.is_ascii_graphic() {
        char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c)
    } else {
        c
    }
}

fn math_bold(c: char) -> char {
    let u = c as u32;
    let mapped = if c.is_ascii_uppercase() {
        char::from_u32(0x1D400 + u - u32::from(b'A'))
    } else if c.is_ascii_lowercase() {
        char::from_u32(0x1D41A + u - u32::from(b'a'))
    } else if c.is_ascii_digit() {
        char::from_u32(0x1D7CE + u - u32::from(b'0'))
    } else {
        None
    };
    mapped.unwrap_or(c)
}

/// Where a reader of `text` finds `secret` (after NFKC of the compatibility forms), if anywhere.
fn finds(text: &str, secret: &str) -> Option<String> {
    let folded = compatibility_folded(text);
    let needle = secret.to_ascii_lowercase();
    folded.find(&needle).map(|at| {
        let start = folded[..at]
            .char_indices()
            .rev()
            .nth(20)
            .map_or(0, |(i, _)| i);
        let end = (at + needle.len() + 20).min(folded.len());
        let end = (end..=folded.len())
            .find(|i| folded.is_char_boundary(*i))
            .unwrap_or(folded.len());
        folded[start..end].to_string()
    })
}

fn check_no_secret(channel: &str, text: &str, secret: &str) -> Result<(), TestCaseError> {
    match finds(text, secret) {
        Some(around) => Err(TestCaseError::fail(format!(
            "{channel} shows the secret {secret:?} (read after NFKC and ASCII case: …{around}…); \
             as written: {}",
            text.chars().take(400).collect::<String>()
        ))),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Secrets.

fn secrets() -> impl Strategy<Value = String> {
    "[A-Za-z0-9]{16,24}"
}

fn spelling(secret: &str, picks: &[u8]) -> String {
    secret
        .chars()
        .zip(picks.iter().cycle())
        .map(|(c, pick)| match pick % 3 {
            0 => c,
            1 => full_width(c),
            _ => math_bold(c),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    /// SECURITY.md: "known secrets in every spelling a reader takes for them (each Unicode
    /// normalization form, ASCII case ignored …)": a full-width or mathematical-bold spelling is
    /// what NFKC (the normalization form a reader folds compatibility characters with) reads as
    /// the secret; error, hook, recorder and tracing must not show it.
    #[test]
    fn compatibility_spellings_of_a_secret_reach_no_channel(
        consumer_secret in secrets(),
        token_secret in secrets(),
        picks in proptest::collection::vec(0u8..3, 1..8),
        which in any::<bool>(),
        status in prop_oneof![Just(400u16), Just(500), Just(200)],
    ) {
        // Every pick plain would be the secret itself; keep at least one compatibility form.
        let mut picks = picks;
        picks[0] = 1 + picks[0] % 2;
        let traces = traces();
        let planted = if which { consumer_secret.clone() } else { token_secret.clone() };
        let spelled = spelling(&planted, &picks);
        let upper = spelling(&planted.to_ascii_uppercase(), &picks);
        let body = serde_json::json!({
            "error": {"code": "E_RT11", "message": format!("bad {spelled} and {upper}")},
            "detail": spelled,
        })
        .to_string();
        let recorded = Buffer::default();
        let hook_seen = Arc::new(Mutex::new(String::new()));
        let (error, record, hook) = runtime().block_on(async {
            let body = body.clone();
            let (addr, _) = stub(move |_, _, stream| {
                let bytes = response(
                    &format!("{status} Whatever"),
                    &[("Content-Type", b"application/json"), ("X-Echo", body.as_bytes())],
                    body.as_bytes(),
                );
                answer(stream, bytes)
            })
            .await;
            let seen = hook_seen.clone();
            let client = builder(addr, &consumer_secret)
                .record(Recorder::to_writer(recorded.clone()))
                .on_response(move |response| {
                    let mut out = seen.lock().expect("lock");
                    out.push_str(&format!("{response:?}"));
                    if let Some(body) = response.body() {
                        out.push_str(&String::from_utf8_lossy(body));
                    }
                    out.push_str(&format!("{:?}", response.headers()));
                })
                .build()
                .expect("client");
            let result = tokio::time::timeout(GUARD, call(&client, Endpoint::Data, &token_secret))
                .await
                .expect("the guard");
            drop(client);
            tokio::time::sleep(Duration::from_millis(100)).await;
            let error = match result {
                Err(error) => format!("{error} | {error:?}"),
                Ok(()) => String::new(),
            };
            (error, recorded.text(), hook_seen.lock().expect("lock").clone())
        });
        let traced = traces.text();
        let mut leaks = Vec::new();
        for secret in [&consumer_secret, &token_secret] {
            for (channel, text) in [
                ("the error", &error),
                ("the response hook", &hook),
                ("the recording", &record),
                ("tracing", &traced),
            ] {
                if let Err(leak) = check_no_secret(channel, text, secret) {
                    leaks.push(leak.to_string());
                }
            }
        }
        prop_assert!(leaks.is_empty(), "{}", leaks.join("\n"));
    }
}

/// SECURITY.md: "the credentials the app puts in headers and a callback's query values (known
/// secrets, removed by value …)"; request hooks "never see the signature"; response hooks: "no
/// secret in any answer's body or header". Every view a hook has of `request_token`, with the
/// service echoing the callback, shows none of the callback's query values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callback_credentials_reach_no_hook_view() {
    let callback_value = "CbSessionValue4242XyZ";
    let callback = format!("https://app.example/cb?sid={callback_value}&state=Another9876Value");
    let echoed = callback.clone();
    let (addr, _) = stub(move |_, _, stream| {
        let body = format!(
            "oauth_token=rt11rq&oauth_token_secret=rt11RequestSecret99&oauth_callback_confirmed=true&cb={}",
            percent_encoding::utf8_percent_encode(&echoed, percent_encoding::NON_ALPHANUMERIC)
        );
        answer(
            stream,
            response(
                "200 OK",
                &[
                    ("Content-Type", b"application/x-www-form-urlencoded"),
                    ("X-Callback", echoed.as_bytes()),
                ],
                body.as_bytes(),
            ),
        )
    })
    .await;
    let views = Arc::new(Mutex::new(Vec::<String>::new()));
    let (requests, responses) = (views.clone(), views.clone());
    let client = builder(addr, "ConsumerSecretValue123")
        .on_request(move |request| {
            requests.lock().expect("lock").push(format!(
                "{request:?} {} {:?}",
                request.url(),
                request.headers()
            ));
        })
        .on_response(move |response| {
            let params: Vec<String> = response
                .params()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            let body = response
                .body()
                .map(|b| String::from_utf8_lossy(b).to_string());
            responses.lock().expect("lock").push(format!(
                "{response:?} {} {params:?} {:?} {body:?}",
                response.url(),
                response.headers()
            ));
        })
        .build()
        .expect("client");
    let token = tokio::time::timeout(GUARD, client.request_token(Some(&callback)))
        .await
        .expect("guard")
        .expect("the request token");
    let debug = format!("{token:?} {client:?}");
    let views = views.lock().expect("lock").join("\n");
    assert!(!views.is_empty(), "the hooks ran");
    for value in [callback_value, "Another9876Value", "rt11RequestSecret99"] {
        assert!(
            !views.contains(value),
            "a hook view shows {value:?}: {views}"
        );
        assert!(!debug.contains(value), "a Debug shows {value:?}: {debug}");
    }
}

/// SECURITY.md: tracing "(every level, spans and events) … no secret"; "the status line's
/// reason" is cleaned; `retrying`'s `reason` is "the failure, cleaned". The reason phrase and
/// the body of a retried 503 carry the token secret in base64 and the consumer secret in `\u`
/// escapes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_echoed_secret_in_a_status_reason_reaches_no_trace_or_error() {
    let traces = traces();
    let token_secret = "TraceTokenSecret7731QQ";
    let consumer_secret = "TraceConsumerSecret8842";
    let b64 = base64::engine::general_purpose::STANDARD.encode(token_secret);
    let escaped: String = consumer_secret
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let (addr, _) = stub(move |_, _, stream| {
        let reason = format!("Unavailable {b64} {token_secret}");
        let body = format!("{{\"message\":\"{escaped}\",\"code\":\"E_{b64}\"}}");
        answer(
            stream,
            response(
                &format!("503 {reason}"),
                &[("Retry-After", b"0"), ("Content-Type", b"application/json")],
                body.as_bytes(),
            ),
        )
    })
    .await;
    let client = builder(addr, consumer_secret)
        .retry(
            RetryPolicy::default()
                .max_attempts(2)
                .base_delay(Duration::from_millis(1)),
        )
        .build()
        .expect("client");
    let result = tokio::time::timeout(GUARD, call(&client, Endpoint::Data, token_secret))
        .await
        .expect("guard");
    let error = result.expect_err("a 503 twice is an error");
    let text = format!("{error} {error:?}");
    let b64 = base64::engine::general_purpose::STANDARD.encode(token_secret);
    for secret in [token_secret, consumer_secret, b64.trim_end_matches('=')] {
        assert!(!text.contains(secret), "the error shows {secret:?}: {text}");
        let traced = traces.text();
        assert!(!traced.contains(secret), "tracing shows {secret:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// SECURITY.md: known secrets are removed "in hexadecimal and in base64 of either alphabet,
    /// padded or not, alone or inside a longer base64 text". Base64 as MIME writes it (RFC 2045:
    /// lines broken every so many characters, line breaks a decoder ignores) or with spaces is
    /// still the secret's base64 to every lenient decoder (and hexadecimal with spaces, as a hex
    /// dump writes it, to `xxd -r -p`); error and hook must not show it.
    #[test]
    fn wrapped_base64_or_hex_of_a_secret_reaches_no_error_or_hook(
        token_secret in "[A-Za-z0-9]{24,48}",
        every in 4usize..24,
        separator in prop_oneof![Just("\r\n"), Just("\n"), Just(" "), Just("\t")],
        plain_body in any::<bool>(),
        hex in any::<bool>(),
    ) {
        let b64 = if hex {
            token_secret.bytes().map(|b| format!("{b:02x}")).collect::<String>()
        } else {
            base64::engine::general_purpose::STANDARD.encode(&token_secret)
        };
        let every = if hex { 2 * (every / 2).max(1) } else { every };
        let wrapped: String = b64
            .as_bytes()
            .chunks(every)
            .map(|chunk| String::from_utf8_lossy(chunk).to_string())
            .collect::<Vec<_>>()
            .join(separator);
        let body = if plain_body {
            format!("error: bad credentials\n{wrapped}\n")
        } else {
            serde_json::json!({"error": {"code": "E_RT11", "message": wrapped}}).to_string()
        };
        let hook_seen = Arc::new(Mutex::new(String::new()));
        let seen = hook_seen.clone();
        let error = runtime().block_on(async move {
            let (addr, _) = stub(move |_, _, stream| {
                answer(stream, response("400 Bad Request", &[], body.as_bytes()))
            })
            .await;
            let client = builder(addr, "WrappedConsumerSecret")
                .on_response(move |response| {
                    if let Some(body) = response.body() {
                        seen.lock().expect("lock").push_str(&String::from_utf8_lossy(body));
                    }
                })
                .build()
                .expect("client");
            tokio::time::timeout(GUARD, call(&client, Endpoint::Data, &token_secret))
                .await
                .expect("guard")
                .expect_err("a 400 is an error")
        });
        let needle = b64.trim_end_matches('=');
        let squeeze = |text: &str| -> String {
            text.replace("\\r", "").replace("\\n", "").replace("\\t", "")
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        };
        let display = error.to_string();
        let hook = hook_seen.lock().expect("lock").clone();
        for (channel, text) in [("the error's Display", &display), ("the response hook's body", &hook)] {
            prop_assert!(
                !squeeze(text).contains(needle),
                "{} shows the secret's base64 or hexadecimal {} broken by {:?}: {}",
                channel,
                needle,
                separator,
                text
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// SECURITY.md: "known secrets in every spelling a reader takes for them"; an error text is
    /// read by a person in a log. The token secret with invisible format characters between
    /// its characters (zero-width space, zero-width joiner, word joiner, soft hyphen, byte order
    /// mark) is the secret to that reader; `OneLine` leaves them as they are (they are neither
    /// controls nor bidirectional controls), so the error must not show the secret through them.
    #[test]
    fn a_secret_interleaved_with_invisible_characters_reaches_no_error(
        token_secret in "[A-Za-z0-9]{16,24}",
        invisible in prop_oneof![
            Just('\u{200b}'), Just('\u{200d}'), Just('\u{2060}'), Just('\u{ad}'), Just('\u{feff}')
        ],
    ) {
        let spelled: String = token_secret
            .chars()
            .flat_map(|c| [c, invisible])
            .collect();
        let body = serde_json::json!({"error": {"code": "E_RT11", "message": spelled}}).to_string();
        let secret = token_secret.clone();
        let error = runtime().block_on(async move {
            let (addr, _) = stub(move |_, _, stream| {
                answer(stream, response("400 Bad Request", &[], body.as_bytes()))
            })
            .await;
            let client = builder(addr, "InvisibleConsumerSecret").build().expect("client");
            tokio::time::timeout(GUARD, call(&client, Endpoint::Data, &secret))
                .await
                .expect("guard")
                .expect_err("a 400 is an error")
                .to_string()
        });
        let seen: String = error.chars().filter(|c| *c != invisible).collect();
        prop_assert!(
            !seen.contains(token_secret.as_str()),
            "the error shows the secret between {:?}: {}",
            invisible,
            error.escape_debug()
        );
    }
}

/// SECURITY.md: "the verifier" and every token secret are secrets; request hooks "never see the
/// signature"; response hooks "no secret in any answer's body or header". Every view a hook has
/// of `access_token` (`Debug`, `url()`, `params()`, `headers()`, `body()`, and
/// `Exchange::from_response`'s line), the service echoing the verifier and the request token's
/// secret, shows none of them, nor of the new access token's secret.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verifier_and_token_secrets_reach_no_hook_view_of_the_access_token_call() {
    let verifier_value = "VerifierValue12345678";
    let request_secret = "RequestTokSecret987654";
    let access_secret = "NewAccessSecret55555xyz";
    let (addr, _) = stub(move |_, request, stream| {
        let body = format!(
            "oauth_token=rt11acc&oauth_token_secret={access_secret}&echo={}",
            percent_encoding::utf8_percent_encode(&request, percent_encoding::NON_ALPHANUMERIC)
        );
        let echo = format!("v={verifier_value}; s={request_secret}; a={access_secret}");
        answer(
            stream,
            response(
                "200 OK",
                &[
                    ("Content-Type", b"application/x-www-form-urlencoded"),
                    ("X-Echo", echo.as_bytes()),
                ],
                body.as_bytes(),
            ),
        )
    })
    .await;
    let views = Arc::new(Mutex::new(Vec::<String>::new()));
    let (requests, responses) = (views.clone(), views.clone());
    let client = builder(addr, "AccessConsumerSecret77")
        .on_request(move |request| {
            requests.lock().expect("lock").push(format!(
                "{request:?} {} {:?}",
                request.url(),
                request.headers()
            ));
        })
        .on_response(move |response| {
            let params: Vec<String> = response
                .params()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            let body = response
                .body()
                .map(|b| String::from_utf8_lossy(b).to_string());
            let exchange = marketplace_client::recording::Exchange::from_response(response);
            responses.lock().expect("lock").push(format!(
                "{response:?} {} {params:?} {:?} {body:?} {exchange:?} {}",
                response.url(),
                response.headers(),
                exchange.to_line()
            ));
        })
        .build()
        .expect("client");
    let request = request_token_value(request_secret);
    let verifier = marketplace_client::oauth::Verifier::new(verifier_value).expect("a verifier");
    let result = tokio::time::timeout(GUARD, client.access_token(&request, &verifier))
        .await
        .expect("guard");
    let shown = match &result {
        Ok(token) => format!("{token:?}"),
        Err(error) => format!("{error} {error:?}"),
    };
    let views = views.lock().expect("lock").join("\n");
    assert!(!views.is_empty(), "the hooks ran");
    for value in [verifier_value, request_secret, access_secret] {
        assert!(
            !views.contains(value),
            "a hook view shows {value:?}: {views}"
        );
        assert!(
            !shown.contains(value),
            "the result shows {value:?}: {shown}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// SECURITY.md: callback URLs are untrusted ("they come through the user's browser"); a
    /// refused callback is "a clear `Error::Callback` that shows no secret" ("errors show the
    /// callback through `Scrubber::url` only, never a value of it"), and its text is one line.
    #[test]
    fn a_hostile_callback_is_refused_on_one_line_without_its_values(
        verifier in "[A-Za-z0-9]{12,20}",
        hostile in hostile_text(),
        place in 0usize..6,
    ) {
        let verifier_value = format!("CbVerifier{verifier}");
        let callback = match place {
            0 => format!("https://app.example/{hostile}?oauth_token=rt11-request-token&oauth_verifier={verifier_value}"),
            1 => format!("https://app.example/cb?oauth_token=rt11-request-token&oauth_verifier={verifier_value}{hostile}"),
            2 => format!("https://app.{hostile}.example/cb?oauth_verifier={verifier_value}&oauth_token=rt11-request-token"),
            3 => format!("{hostile}https://app.example/cb?oauth_token=rt11-request-token&oauth_verifier={verifier_value}"),
            4 => format!("https://app.example/cb?oauth_token={hostile}&oauth_verifier={verifier_value}#{hostile}"),
            _ => format!("https://u:{verifier_value}@app.example/cb?oauth_token=rt11-request-token&oauth_verifier={verifier_value}&x={hostile}"),
        };
        let client = Client::builder("https://marketplace.example", ConsumerCredentials::new(KEY, "CallbackConsumerSecret"))
            .build()
            .expect("client");
        let request = request_token_value("CallbackRequestSecret1");
        if let Err(error) = client.verifier_from_callback(&request, &callback) {
            let display = error.to_string();
            check_one_line("the refused callback's Display", &display)?;
            let debug = format!("{error:?}");
            prop_assert!(!display.contains(&verifier_value), "Display shows the verifier: {}", display);
            prop_assert!(!debug.contains(&verifier_value), "Debug shows the verifier: {}", debug);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// SECURITY.md: "`marketplace_client::redact` (for an app's own logs) | the same as every
    /// channel | the same scrubber". An app's own log line holding the secret in a compatibility
    /// spelling or as wrapped base64 is cleaned by `redact` like every channel.
    #[test]
    fn redact_removes_compatibility_and_wrapped_spellings_of_a_secret(
        secret in "[A-Za-z0-9]{16,32}",
        picks in proptest::collection::vec(1u8..3, 1..6),
        wrapped in any::<bool>(),
    ) {
        let credentials = ConsumerCredentials::new(KEY, secret.as_str());
        let written = if wrapped {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&secret);
            b64.as_bytes()
                .chunks(4)
                .map(|chunk| String::from_utf8_lossy(chunk).to_string())
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            spelling(&secret, &picks)
        };
        let line = format!("app: the service said {written} at login");
        let cleaned = marketplace_client::redact(&line, &[&credentials.secret]).to_string();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&secret);
        let squeezed: String = cleaned.chars().filter(|c| !c.is_whitespace()).collect();
        prop_assert!(
            finds(&cleaned, &secret).is_none() && !squeezed.contains(b64.trim_end_matches('=')),
            "redact kept the secret {:?}: {}",
            secret,
            cleaned
        );
    }
}

/// using-the-client.md: "OAuth POSTs are never retried. A wait that would pass the deadline is
/// not started: the call ends at once with the service's answer." A 503 with a `Retry-After`
/// past the deadline, on every endpoint: one request, and the call ends with the 503, not a
/// timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_past_the_deadline_ends_every_endpoint_with_the_answer() {
    for endpoint in [
        Endpoint::Data,
        Endpoint::RequestToken,
        Endpoint::AccessToken,
        Endpoint::Revoke,
    ] {
        let (addr, seen) = stub(|_, _, stream| {
            answer(
                stream,
                response(
                    "503 Service Unavailable",
                    &[("Retry-After", b"20")],
                    b"{\"code\":\"E_BUSY\"}",
                ),
            )
        })
        .await;
        let client = builder(addr, "RetryAfterConsumerSecret")
            .retry(RetryPolicy::default())
            .deadline(Duration::from_secs(2))
            .build()
            .expect("client");
        let result = tokio::time::timeout(GUARD, call(&client, endpoint, "RetryAfterTokenSecret"))
            .await
            .expect("guard");
        let error = result.expect_err("a 503 is an error");
        assert_eq!(error.status(), Some(503), "{endpoint:?} gave {error:?}");
        assert_eq!(seen.count(), 1, "{endpoint:?} sent more than one request");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Routes.

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// using-the-client.md: "Any 3xx, from a data method or an OAuth endpoint, ends the call in
    /// `Error::Redirect` with the method, the status and the `Location` … nothing is sent to the
    /// redirect target". Every status 300…399, every endpoint, a Location at a second stub (the
    /// tap) or none.
    #[test]
    fn every_3xx_from_every_endpoint_is_a_redirect_error_and_the_target_sees_nothing(
        status in 300u16..400,
        endpoint in endpoints(),
        with_location in any::<bool>(),
    ) {
        let (result, tapped) = runtime().block_on(async {
            let (tap, tapped) =
                stub(|_, _, stream| answer(stream, response("200 OK", &[], b"{}"))).await;
            let location = format!("http://{tap}/next?x=1");
            let (addr, _) = stub(move |_, _, stream| {
                let headers: Vec<(&str, &[u8])> = if with_location {
                    vec![("Location", location.as_bytes())]
                } else {
                    vec![]
                };
                let bytes = response(&format!("{status} Moved"), &headers, b"");
                answer(stream, bytes)
            })
            .await;
            let client = builder(addr, "RedirectConsumerSecret1").build().expect("client");
            let result =
                tokio::time::timeout(GUARD, call(&client, endpoint, "RedirectTokenSecret22"))
                    .await
                    .expect("guard");
            (result, tapped.count())
        });
        prop_assert_eq!(tapped, 0, "the redirect target was contacted");
        match result {
            Err(Error::Redirect { status: Some(got), .. }) => prop_assert_eq!(got, status),
            other => prop_assert!(
                false,
                "{} on {:?} gave {:?}, not Error::Redirect",
                status,
                endpoint,
                other
            ),
        }
    }
}

/// SECURITY.md threat model: "every answer of the service" is untrusted; the client "must not be
/// made to … follow the service anywhere". A request token the service hands back is one
/// `oauth_token` value of the authorization URL, at the configured origin: it adds no parameter
/// (a callback of the service's choosing) and changes no part of the URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_request_token_adds_no_parameter_to_the_authorization_url() {
    let hostile = [
        "tok&oauth_callback=https://evil.example/steal",
        "tok#@evil.example/",
        "tok?x=1&y=2",
        "tok/../../evil",
        "tok%26oauth_callback%3Dhttps%3A%2F%2Fevil.example",
        "tok;oauth_callback=https://evil.example",
        "tok+and space",
    ];
    let mut checked = 0;
    for token in hostile {
        let form = format!(
            "oauth_token={}&oauth_token_secret=AuthUrlSecret123&oauth_callback_confirmed=true",
            percent_encoding::utf8_percent_encode(token, percent_encoding::NON_ALPHANUMERIC)
        );
        let (addr, _) = stub(move |_, _, stream| {
            answer(
                stream,
                response(
                    "200 OK",
                    &[("Content-Type", b"application/x-www-form-urlencoded")],
                    form.as_bytes(),
                ),
            )
        })
        .await;
        let client = builder(addr, "AuthUrlConsumerSecret")
            .build()
            .expect("client");
        let result = tokio::time::timeout(GUARD, client.request_token(Some("oob")))
            .await
            .expect("guard");
        let Ok(request) = result else {
            continue; // refusing the token is fine too
        };
        checked += 1;
        let url = client.authorization_url(&request);
        assert_eq!(url.host_str(), Some("127.0.0.1"), "{url}");
        assert_eq!(url.port(), Some(addr.port()), "{url}");
        assert!(
            url.fragment().is_none(),
            "the token {token:?} made a fragment: {url}"
        );
        let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        let tokens: Vec<&(String, String)> =
            pairs.iter().filter(|(n, _)| n == "oauth_token").collect();
        assert_eq!(tokens.len(), 1, "{url}");
        assert_eq!(tokens[0].1, request.token, "{url}");
        assert!(
            pairs.iter().all(|(name, _)| name == "oauth_token"),
            "the token {token:?} added parameters to the authorization URL: {url}"
        );
    }
    assert!(
        checked > 0,
        "every hostile token was refused: nothing checked"
    );
}

// ---------------------------------------------------------------------------------------------
// 3. Deadlines.

#[derive(Clone, Copy, Debug)]
enum Stall {
    /// Accepts, reads the request, never writes.
    Silent,
    /// The status line, then one header line every 40 ms, forever.
    TrickleHead,
    /// A complete head with a long `Content-Length`, then one byte every 40 ms.
    TrickleBody,
    /// A chunked head, a chunk, then nothing.
    StalledChunk,
}

fn stalls() -> impl Strategy<Value = Stall> {
    prop_oneof![
        Just(Stall::Silent),
        Just(Stall::TrickleHead),
        Just(Stall::TrickleBody),
        Just(Stall::StalledChunk),
    ]
}

async fn stall(mut stream: TcpStream, how: Stall) {
    let tick = Duration::from_millis(40);
    match how {
        Stall::Silent => tokio::time::sleep(Duration::from_secs(60)).await,
        Stall::TrickleHead => {
            if stream.write_all(b"HTTP/1.1 200 OK\r\n").await.is_err() {
                return;
            }
            for i in 0..1500 {
                let line = format!("X-Slow-{i}: y\r\n");
                if stream.write_all(line.as_bytes()).await.is_err() {
                    return;
                }
                tokio::time::sleep(tick).await;
            }
        }
        Stall::TrickleBody => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"a\":\"";
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for _ in 0..1500 {
                if stream.write_all(b"x").await.is_err() {
                    return;
                }
                tokio::time::sleep(tick).await;
            }
        }
        Stall::StalledChunk => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n5\r\noauth\r\n";
            let _ = stream.write_all(head.as_bytes()).await;
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    /// using-the-client.md: "the whole call … may take `ClientBuilder::deadline` … A limit
    /// reached is `Error::Timeout` … (a body that stalls is a timeout, not a decode error)";
    /// the token endpoints and revocation included.
    #[test]
    fn every_stall_on_every_endpoint_ends_in_a_timeout(
        endpoint in endpoints(),
        how in stalls(),
        short_attempt in any::<bool>(),
    ) {
        let result = runtime().block_on(async {
            let (addr, _) = stub(move |_, _, stream| stall(stream, how)).await;
            let limit = Duration::from_millis(400);
            let mut b = builder(addr, "StallConsumerSecret1");
            b = if short_attempt { b.timeout(limit) } else { b.deadline(limit) };
            let client = b.build().expect("client");
            tokio::time::timeout(GUARD, call(&client, endpoint, "StallTokenSecret22"))
                .await
                .expect("the call outlived the 30 s guard")
        });
        prop_assert!(
            matches!(result, Err(Error::Timeout { .. })),
            "{:?} with {:?} gave {:?}",
            endpoint,
            how,
            result
        );
    }
}

/// The first page of a paged list as the fake writes it (5 of 23 timesheets: 5 pages).
async fn first_page_from_the_fake() -> (u64, Vec<u8>) {
    let fake = marketplace_fake::FakeMarketplace::start()
        .await
        .expect("the fake");
    let workroom = fake.world().hourly_workroom();
    let token = fake
        .session(workroom.client)
        .expect("a session")
        .token()
        .clone();
    let body = Arc::new(Mutex::new(Vec::new()));
    let seen = body.clone();
    let client = fake
        .client_builder()
        .on_response(move |response| {
            *seen.lock().expect("lock") = response.body().unwrap_or_default().to_vec();
        })
        .build()
        .expect("client");
    let page = client
        .session(token)
        .get_timesheets_for_bid(workroom.bid_id)
        .rpp(5)
        .send()
        .await
        .expect("the first page");
    assert!(
        page.total_pages().unwrap_or(0) > 1,
        "the fake's list has pages"
    );
    let body = body.lock().expect("lock").clone();
    (workroom.bid_id, body)
}

/// using-the-client.md: "A paged stream's deadline is per page (each page is a call)": a later
/// page that stalls ends the stream with `Error::Timeout`, whatever the first page said.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_later_page_ends_the_stream_in_a_timeout() {
    let (bid_id, first_page) = first_page_from_the_fake().await;
    for how in [Stall::Silent, Stall::TrickleHead, Stall::TrickleBody] {
        let first_page = first_page.clone();
        let (addr, _) = stub(move |_, request, stream| {
            let first_page = first_page.clone();
            async move {
                let first_line = request.lines().next().unwrap_or_default().to_string();
                let first = first_line.contains("page=1&")
                    || first_line.contains("page=1 ")
                    || !first_line.contains("page=");
                if first {
                    answer(
                        stream,
                        response(
                            "200 OK",
                            &[("Content-Type", b"application/json")],
                            &first_page,
                        ),
                    )
                    .await;
                } else {
                    stall(stream, how).await;
                }
            }
        })
        .await;
        let client = builder(addr, "PagingConsumerSecret1")
            .deadline(Duration::from_millis(500))
            .build()
            .expect("client");
        let session = client.session(token("PagingTokenSecret22"));
        let mut pages = session.get_timesheets_for_bid(bid_id).rpp(5).pages();
        let outcome = tokio::time::timeout(GUARD, async {
            let mut got = 0usize;
            loop {
                match pages.try_next().await {
                    Ok(Some(_)) => got += 1,
                    Ok(None) => return Ok(got),
                    Err(error) => return Err(error),
                }
            }
        })
        .await
        .expect("the stream outlived the 30 s guard");
        assert!(
            matches!(outcome, Err(Error::Timeout { .. })),
            "a stalled page ({how:?}) gave {outcome:?}"
        );
    }
}

/// SECURITY.md: "what a hook reads later is cleaned until the deadline too (`Scrubber::until`:
/// past it, what the scrubber was reading and everything after is withheld, and the call ends
/// with `Error::Timeout`)". A response hook that sleeps past the deadline, then reads the body:
/// the call ended `Ok` after its deadline (fixed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_hook_reading_past_the_deadline_ends_the_call_in_a_timeout() {
    let fake = marketplace_fake::FakeMarketplace::start()
        .await
        .expect("the fake");
    let workroom = fake.world().hourly_workroom();
    let token = fake
        .session(workroom.client)
        .expect("a session")
        .token()
        .clone();
    let read_after = Arc::new(Mutex::new(None::<bool>));
    let seen = read_after.clone();
    let client = fake
        .client_builder()
        .deadline(Duration::from_millis(300))
        .retry(RetryPolicy::none())
        .on_response(move |response| {
            std::thread::sleep(Duration::from_millis(700));
            let shown =
                response.body().is_some_and(|b| !b.is_empty()) && !response.body_is_redacted();
            *seen.lock().expect("lock") = Some(shown);
        })
        .build()
        .expect("client");
    let result = tokio::time::timeout(
        GUARD,
        client
            .session(token)
            .get_timesheets_for_bid(workroom.bid_id)
            .send(),
    )
    .await
    .expect("guard");
    let shown = *read_after.lock().expect("lock");
    assert!(
        matches!(result, Err(Error::Timeout { .. })),
        "the call whose hook read past its deadline gave {} (the hook was shown the body \
         after the deadline: {shown:?})",
        match &result {
            Ok(_) => "Ok(data)".to_string(),
            Err(error) => format!("{error:?}"),
        }
    );
    // The hook did read the body: a short text with nothing to decode or look up is shown
    // even past the deadline (SECURITY.md, the response hooks' row, as made precise after this
    // case); what must not happen is the call ending `Ok` after its deadline.
    assert_eq!(shown, Some(true), "the hook read the body");
}

/// using-the-client.md: "Every call has a deadline … the whole call, every attempt and every
/// backoff or `Retry-After` wait, may take `ClientBuilder::deadline`"; a request hook that
/// takes longer than the deadline leaves none of it for the attempt: the call is a timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_hook_slower_than_the_deadline_ends_the_call_in_a_timeout() {
    let fake = marketplace_fake::FakeMarketplace::start()
        .await
        .expect("the fake");
    let workroom = fake.world().hourly_workroom();
    let token = fake
        .session(workroom.client)
        .expect("a session")
        .token()
        .clone();
    let client = fake
        .client_builder()
        .deadline(Duration::from_millis(300))
        .retry(RetryPolicy::none())
        .on_request(|_| std::thread::sleep(Duration::from_millis(700)))
        .build()
        .expect("client");
    let result = tokio::time::timeout(
        GUARD,
        client
            .session(token)
            .get_timesheets_for_bid(workroom.bid_id)
            .send(),
    )
    .await
    .expect("guard");
    assert!(
        matches!(result, Err(Error::Timeout { .. })),
        "gave {result:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// 4. Bad input.

fn method_name(endpoint: Endpoint) -> &'static str {
    match endpoint {
        Endpoint::Data => "getInvoice",
        Endpoint::RequestToken => "RequestToken",
        Endpoint::AccessToken => "AccessToken",
        Endpoint::Revoke => "revoke",
    }
}

fn bodies() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..64),
        Just(b"{\"api\":\"pay/getInvoice\",\"apiVersion\":1,\"rcode\":1,\"data\":{}}".to_vec()),
        Just(b"{\"rcode\":1,\"data\":{\"invoice\":{\"id\":\"-1e999\"}}}".to_vec()),
        Just(b"oauth_token=&oauth_token_secret=".to_vec()),
        Just(b"oauth_token=a&oauth_token=b&oauth_token_secret=c&oauth_token_secret=d".to_vec()),
        Just(vec![b'['; 100_000]),
        "\\PC{0,40}".prop_map(String::into_bytes),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// docs (Bad input, using-the-client.md): bad server input is a typed error, never a panic;
    /// "its `Display` names the method". Any status 200…299 or 400…999 with any body on every
    /// endpoint.
    #[test]
    fn any_status_and_body_on_any_endpoint_is_a_typed_error_naming_the_method(
        status in prop_oneof![200u16..300, 400u16..1000],
        body in bodies(),
        endpoint in endpoints(),
    ) {
        let joined = runtime().block_on(async {
            let (addr, _) = stub(move |_, _, stream| {
                answer(stream, response(&format!("{status} X"), &[], &body))
            })
            .await;
            let client = builder(addr, "BadInputConsumerSecret").build().expect("client");
            tokio::spawn(async move {
                tokio::time::timeout(GUARD, call(&client, endpoint, "BadInputTokenSecret"))
                    .await
                    .expect("guard")
            })
            .await
        });
        let result = match joined {
            Ok(result) => result,
            Err(panic) => return Err(TestCaseError::fail(format!("the call panicked: {panic:?}"))),
        };
        if !(200..300).contains(&status) {
            prop_assert!(result.is_err(), "status {} on {:?} was a success", status, endpoint);
        }
        if let Err(error) = result {
            let text = error.to_string();
            prop_assert!(
                text.to_ascii_lowercase().contains(&method_name(endpoint).to_ascii_lowercase()),
                "the error of {:?} does not name its method: {}",
                endpoint,
                text
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 5. One line.

fn hostile_chars() -> impl Strategy<Value = char> {
    prop_oneof![
        Just('\n'),
        Just('\r'),
        Just('\t'),
        Just('\u{b}'),
        Just('\u{c}'),
        Just('\u{1b}'),
        Just('\u{7f}'),
        Just('\u{85}'),
        Just('\u{9b}'),
        Just('\u{2028}'),
        Just('\u{2029}'),
        Just('\u{202e}'),
        Just('\u{2066}'),
        Just('\u{200f}'),
        Just('\u{61c}'),
        Just('\u{0}'),
        proptest::char::range('a', 'z'),
    ]
}

fn hostile_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(hostile_chars(), 1..12)
        .prop_map(|chars| format!("E_RT{}X", chars.into_iter().collect::<String>()))
}

fn breaks_the_line(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn check_one_line(what: &str, text: &str) -> Result<(), TestCaseError> {
    if let Some(c) = text.chars().find(|c| breaks_the_line(*c)) {
        return Err(TestCaseError::fail(format!(
            "{what} holds {c:?}: {}",
            text.escape_debug()
        )));
    }
    Ok(())
}

#[derive(Clone, Copy, Debug)]
enum Field {
    CodeJson,
    MessageJson,
    ListedJson,
    FormProblem,
    Location,
    Reason,
    PlainBody,
    DecodeKey,
    DecodeValue,
}

fn fields() -> impl Strategy<Value = Field> {
    prop_oneof![
        Just(Field::CodeJson),
        Just(Field::MessageJson),
        Just(Field::ListedJson),
        Just(Field::FormProblem),
        Just(Field::Location),
        Just(Field::Reason),
        Just(Field::PlainBody),
        Just(Field::DecodeKey),
        Just(Field::DecodeValue),
    ]
}

fn hostile_answer(field: Field, text: &str) -> Vec<u8> {
    let json = |value: serde_json::Value| value.to_string().into_bytes();
    let raw_header = |text: &str| text.replace(['\r', '\n', '\0'], " ");
    match field {
        Field::CodeJson => response("400 Bad", &[], &json(serde_json::json!({"code": text}))),
        Field::MessageJson => response(
            "403 Forbidden",
            &[],
            &json(serde_json::json!({"error": {"code": "E_X", "message": text, "type": text}})),
        ),
        Field::ListedJson => response(
            "200 OK",
            &[],
            &json(serde_json::json!({
                "rcode": 5,
                "data": {"errors": {"0": {"code": text, "message": text, "type": text}}}
            })),
        ),
        Field::FormProblem => {
            let enc =
                percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC);
            let body = format!("oauth_problem={enc}&oauth_problem_advice={enc}&error={enc}");
            response("401 Unauthorized", &[], body.as_bytes())
        }
        Field::Location => {
            let location = format!("http://127.0.0.1:1/{}", raw_header(text));
            response("302 Found", &[("Location", location.as_bytes())], b"")
        }
        Field::Reason => response(&format!("500 {}", raw_header(text)), &[], b""),
        Field::PlainBody => response(
            "502 Bad Gateway",
            &[("Content-Type", b"text/plain")],
            text.as_bytes(),
        ),
        Field::DecodeKey => response(
            "200 OK",
            &[("Content-Type", b"application/json")],
            &json(serde_json::json!({
                "api": "pay/getInvoice", "apiVersion": 1, "rcode": 1,
                "data": {"bidDetails": {text: [text]}, "invoice": {text: {text: text}}}
            })),
        ),
        Field::DecodeValue => {
            // Raw (unescaped) characters inside JSON strings, as valid JSON allows for all but
            // C0 controls; C0 controls as `\u` escapes.
            let raw = serde_json::to_string(text).unwrap_or_default();
            let body = format!(
                "{{\"api\":{raw},\"apiVersion\":1,\"rcode\":1,\"data\":{{\"bidDetails\":{raw},\"invoice\":{{\"id\":{raw}}}}}}}"
            );
            response(
                "200 OK",
                &[("Content-Type", b"application/json")],
                body.as_bytes(),
            )
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// SECURITY.md: "one line without a control character, whatever the service sent: a message,
    /// code, body, JSON key or value quoted in an error starts no line of an app's log (no forged
    /// entry), drives no terminal and reorders nothing (bidirectional controls)". Watched: the
    /// error's `Display`, every `source()`'s, `Error::code()`'s and `ErrorCode::of`'s text and
    /// `ApiFailure`'s `Display`.
    #[test]
    fn hostile_text_in_every_error_field_stays_on_one_line(
        text in hostile_text(),
        field in fields(),
        endpoint in endpoints(),
    ) {
        let bytes = hostile_answer(field, &text);
        let result = runtime().block_on(async {
            let (addr, _) = stub(move |_, _, stream| answer(stream, bytes.clone())).await;
            let client = builder(addr, "OneLineConsumerSecret").build().expect("client");
            tokio::time::timeout(GUARD, call(&client, endpoint, "OneLineTokenSecret"))
                .await
                .expect("guard")
        });
        let error = match result {
            Err(error) => error,
            // A revocation's 200 says nothing the client reads.
            Ok(()) if matches!(endpoint, Endpoint::Revoke) => return Ok(()),
            Ok(()) => return Err(TestCaseError::fail(format!("{field:?} on {endpoint:?} was a success"))),
        };
        check_one_line("the error's Display", &error.to_string())?;
        let mut source = std::error::Error::source(&error);
        while let Some(inner) = source {
            check_one_line("a source's Display", &inner.to_string())?;
            source = inner.source();
        }
        if let Some(code) = error.code() {
            check_one_line("Error::code()'s Display", &format!("{code}"))?;
        }
        if let Some(code) = ErrorCode::of(&error) {
            check_one_line("ErrorCode::of's as_str", code.as_str())?;
        }
        if let Error::Api { failure, .. } = &error {
            check_one_line("ApiFailure's Display", &failure.to_string())?;
        }
    }
}

/// SECURITY.md: the error texts of `RecordingError` are "one line without a control
/// character"; a recording is untrusted (a file "a pull request can add"). A line that is not
/// an exchange, with controls and bidi controls in what a reader quotes, through
/// `recording::read` and `Exchange::from_line`.
#[test]
fn a_recording_line_that_is_not_an_exchange_is_reported_on_one_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let hostile = "E\u{1b}[2J\u{202e}\u{2028}x\ny";
    let lines = [
        serde_json::json!({"side": hostile}).to_string(),
        serde_json::json!({hostile: 1}).to_string(),
        serde_json::json!({"side": "client", "method": 1, "status": hostile}).to_string(),
        format!("{{\"{hostile}"),
    ];
    let out = marketplace_client::files::OutputDir::open(dir.path()).expect("the directory");
    for (i, line) in lines.iter().enumerate() {
        let name = format!("r{i}.jsonl");
        out.write(&name, line.as_bytes()).expect("write");
        let path = dir.path().join(&name);
        let error = marketplace_client::recording::read(&path).expect_err("not an exchange");
        let text = error.to_string();
        assert!(
            !text.chars().any(breaks_the_line),
            "RecordingError's Display: {}",
            text.escape_debug()
        );
        let message =
            marketplace_client::recording::Exchange::from_line(line).expect_err("not an exchange");
        assert!(
            !message.chars().any(breaks_the_line),
            "Exchange::from_line's error: {}",
            message.escape_debug()
        );
    }
}
