//! Red team 9: `marketplace-fake` as the test kit apps depend on (`FakeMarketplace`'s `start`,
//! `session`, `client`, `sign_in`, `authorize`, `faults`, `record`, `replay`/`check_replay`,
//! `http_client`; `Replay`, a `Recorder` set on the fake, `FakeError`), attacked through the
//! SECURITY.md claims that cover it, each case a sibling of one the project already holds:
//! another writer, channel, route, input or name the same property should cover.
//!
//! Written from SECURITY.md, README.md, docs/ and the rendered API docs only. The channels
//! (`FakeError`'s `Display`/`Debug`/sources, `Authorization`'s `Debug`, `check_replay`'s
//! reports, the client's errors about replayed answers, what the fake's recorder writes) are
//! watched for generated canaries under secret-named names, in user info and in a callback's
//! query; the routes of the fake's browser and `http_client` are watched with a tap (the
//! environment's proxies, a client of another origin, the callback redirect, another fake's
//! certificate); the bounds of requests to the fake are checked on raw connections (HTTP/1,
//! HTTP/2 prior knowledge, TLS), with a panic hook counting panics on the runtime's workers.
//! Cases that need their own environment run in a child process of this test binary.
//!
//! Five cases failed when they were written: `FakeError::ForeignUrl`/`InvalidUrl` quote the
//! refused URL whole (user info password, secret-named query values); `Authorization::Callback`'s
//! `Debug` (and `FakeError::NotAuthorized`) shows the app's callback query values; the fake's
//! recorder writes them too, inside the base string its signature refusal quotes; the replay's
//! miss text names a recorded secret-named parameter's value as prose, which reaches the client's
//! error, `check_replay`'s report and `Replay`'s `Debug`; and connections that never send a
//! request head (nothing, part of HTTP/2's preface, or an HTTP/2 head never ended, in clear or
//! over TLS) are held past the 10 s bound.

use marketplace_tests::runtime;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use marketplace_client::files::OutputDir;
use marketplace_client::jiff::SignedDuration;
use marketplace_client::recording::{Exchange, Recorder, Side};
use marketplace_client::{Client, ConsumerCredentials};
use marketplace_fake::{Authorization, FakeError, FakeMarketplace, Fault, Replay};
use marketplace_tests::stub::{Reply, StubServer};
use marketplace_tests::tap::{Tap, TapAnswer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

/// Set in a child process of this binary: which case it runs.
const CHILD: &str = "RED_TEAM9_CHILD";

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn login(fake: &FakeMarketplace) -> String {
    fake.world().users()[0].login.clone()
}

fn host_port(fake: &FakeMarketplace) -> String {
    fake.base_url().split_once("://").unwrap().1.to_owned()
}

/// A canary: a tag and random letters and digits, 12 bytes at least (past the 8-byte rule).
fn canary(tag: &'static str) -> impl Strategy<Value = String> {
    "[A-Z0-9]{10,14}".prop_map(move |tail| format!("{tag}{tail}"))
}

/// A secret-named name as SECURITY.md defines it: one of the words anywhere in the name, ASCII
/// case and `_-. ` ignored.
fn secret_name() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "secret",
            "password",
            "passwd",
            "private_key",
            "oauth_verifier",
            "oauth_signature",
        ]),
        prop::sample::select(vec!["", "client_", "x-", "my.", "api"]),
        prop::sample::select(vec!["", "_value", "-2", "s"]),
        any::<u32>(),
        prop::sample::select(vec!["", ".", "-"]),
    )
        .prop_map(|(word, before, after, case, sep)| {
            let mut word: String = word
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if case >> (i % 32) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            if !sep.is_empty() && word.len() > 4 {
                word.insert_str(2, sep);
            }
            format!("{before}{word}{after}")
        })
}

/// Every text an error shows: `Display`, `Debug`, and each source's.
fn error_texts(error: &(dyn std::error::Error + 'static)) -> String {
    let mut out = format!("{error}\n{error:?}");
    let mut source = error.source();
    while let Some(next) = source {
        out.push_str(&format!("\n{next}\n{next:?}"));
        source = next.source();
    }
    out
}

/// `text` with up to three layers of percent-encoding undone, each layer appended.
fn with_decoded(text: &str) -> String {
    let mut all = text.to_owned();
    let mut layer = text.to_owned();
    for _ in 0..3 {
        layer = percent_encoding::percent_decode_str(&layer)
            .decode_utf8_lossy()
            .into_owned();
        all.push('\n');
        all.push_str(&layer);
    }
    all
}

/// A writer the recorder can own, read back by the test.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Panics seen on the tokio runtime's worker threads (where the fake's connections run), since
/// the hook was installed; assertions of the tests run on the tests' own threads.
fn worker_panics() -> &'static AtomicUsize {
    static COUNT: OnceLock<&'static AtomicUsize> = OnceLock::new();
    COUNT.get_or_init(|| {
        let count: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() == Some("tokio-runtime-worker") {
                count.fetch_add(1, Ordering::SeqCst);
            }
            previous(info);
        }));
        count
    })
}

fn run_child(test: &str, mode: &str, env: &[(&str, String)]) -> std::process::Output {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, mode)
        .env_remove("MARKETPLACE_FAKE_SPELLING_SEED")
        .env_remove("MARKETPLACE_FAKE_RECORD_DIR");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn child_mode() -> Option<String> {
    std::env::var(CHILD).ok()
}

// ---------------------------------------------------------------------------------------------
// Output channels: FakeError, Authorization, the fake's recorder, replay's texts
// ---------------------------------------------------------------------------------------------

/// SECURITY.md, Output channels: "`Debug` and `Display` of every public type (of both published
/// crates) | no secret and no credential the app configured, in any field", where a secret is
/// "any value under a **secret-named** name (`secret`, `password`, `passwd`, `private_key`,
/// `oauth_signature`, `oauth_verifier` anywhere in the name, ASCII case and `_-.+ ` ignored)",
/// and "A credential in a form the client refuses (user info in a URL) is refused before it is
/// stored, so no value of the crate holds it."
///
/// The sibling: the client's refused URLs are shown through `Scrubber::configured_url` (no user
/// info, no query value); `FakeMarketplace::authorize` refuses URLs too (`FakeError::ForeignUrl`,
/// `FakeError::InvalidUrl`, "the demo login and password reach no other server"). Generated
/// authorization URLs at another origin, or unparsable, carrying a password in their user info
/// and a value under a secret-named query name: no canary in the error's `Display`, `Debug` or
/// sources.
#[test]
fn a_refused_authorization_url_shows_no_user_info_password_or_secret_named_value() {
    let rt = runtime();
    let fake = rt.block_on(FakeMarketplace::start()).unwrap();
    let shapes = (
        prop::sample::select(vec![
            "https://evil.example",
            "https://127.0.0.2",
            "https://localhost",
            "http://127.0.0.1",
            "https://[::1]",
        ]),
        canary("USERPW"),
        secret_name(),
        canary("QVAL"),
        prop::sample::select(vec!["foreign", "invalid-host", "invalid-port"]),
    );
    let result = runner(24).run(&shapes, |(origin, password, name, value, kind)| {
        let host = origin.split_once("://").unwrap().1;
        let url = match kind {
            "foreign" => format!(
                "{}://app:{password}@{host}:9/oauth/authorizeToken?oauth_token=t&{name}={value}",
                &origin[..origin.find(':').unwrap()]
            ),
            "invalid-host" => format!("https://app:{password}@[::1/x?{name}={value}"),
            _ => format!("https://app:{password}@{host}:99999/x?{name}={value}"),
        };
        let error = rt
            .block_on(fake.authorize(&url, "dwhitfield", true))
            .expect_err("a foreign or unparsable URL is refused");
        let shown = error_texts(&error);
        for canary in [&password, &value] {
            prop_assert!(
                !shown.contains(canary.as_str()),
                "the refusal of {url:?} shows {canary:?}:\n{shown}"
            );
        }
        Ok(())
    });
    result.unwrap();
}

/// SECURITY.md, Output channels: the secrets include "the credentials the app puts in headers
/// and a callback's query values (**known secrets**, removed by value)"; the credentials table:
/// "callback URL (`request_token`) | query, fragment | sent (the service redirects there); each
/// of their components ... a known secret of the request-token call"; and "The fake ... Its
/// public types hold no credential of an app: ... `Authorization` (a verifier) ... show none".
///
/// The sibling: `public_debug.rs` shows `Authorization` for a callback without a query
/// (`myapp://cb`). Here the app's callback carries its own values (a session, a state) under
/// plain names: `Authorization::Callback`'s `Debug`, and `FakeError::NotAuthorized` holding it
/// (what `sign_in` returns), must show none of them, as they show no verifier.
#[test]
fn the_authorization_the_browser_returns_shows_no_query_value_of_the_apps_callback() {
    let rt = runtime();
    let fake = rt.block_on(FakeMarketplace::start()).unwrap();
    let client = fake.client().unwrap();
    let who = login(&fake);
    let shapes = (
        prop::sample::select(vec!["session", "state", "sid", "code", "ticket"]),
        canary("CBVAL"),
    );
    let result = runner(8).run(&shapes, |(name, value)| {
        let callback = format!("https://app.example/cb?{name}={value}&lang=en");
        let shown = rt.block_on(async {
            let request = client.request_token(Some(&callback)).await.unwrap();
            let url = client.authorization_url(&request);
            let authorization = fake.authorize(url.as_str(), &who, true).await.unwrap();
            assert!(matches!(authorization, Authorization::Callback(_)));
            let error = FakeError::NotAuthorized(authorization.clone());
            format!("{authorization:?}\n{}", error_texts(&error))
        });
        prop_assert!(
            !shown.contains(&value),
            "the callback's {name} value {value:?} is shown:\n{shown}"
        );
        Ok(())
    });
    result.unwrap();
}

/// SECURITY.md, Output channels: "recordings (`ClientBuilder::record`, the fake's recorder) | a
/// recording holds no secret: fit to commit", the secrets including "a callback's query values
/// (**known secrets**, removed by value ...)"; Inputs: "requests to the fake marketplace | ...
/// its recorder cleans what it writes like the client's".
///
/// The sibling: the client's error about a refused request token is cleaned of the callback's
/// values (its known secrets). The fake's refusal quotes the service's base string, which holds
/// `oauth_callback` percent-encoded twice; the fake's recorder writes that answer. A client with
/// a wrong consumer secret asks for a request token with a callback carrying the app's values:
/// the recording must hold none of them, in any percent-decoding.
#[test]
fn the_fakes_recorder_writes_no_callback_value_a_refused_request_token_echoes() {
    let rt = runtime();
    let fake = rt.block_on(FakeMarketplace::start()).unwrap();
    let sink = Sink::default();
    let recorder = Recorder::to_writer(sink.clone());
    fake.record(recorder.clone());
    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(fake.credentials().consumer_key.clone(), "not-the-secret"),
    )
    .http_client(fake.http_client())
    .build()
    .unwrap();
    let shapes = (
        prop::sample::select(vec!["session", "state", "sid", "ticket"]),
        canary("CBREC"),
    );
    let values = Mutex::new(Vec::new());
    let result = runner(6).run(&shapes, |(name, value)| {
        let callback = format!("https://app.example/cb?{name}={value}");
        let error = rt
            .block_on(client.request_token(Some(&callback)))
            .expect_err("a wrong consumer secret is refused");
        let shown = error_texts(&error);
        prop_assert!(
            !shown.contains(&value),
            "the client's error shows it: {shown}"
        );
        values.lock().unwrap().push(value);
        Ok(())
    });
    result.unwrap();
    recorder.flush().unwrap();
    let written = with_decoded(&sink.text());
    assert!(
        written.contains("oauth/getRequestToken"),
        "nothing recorded: {written}"
    );
    let values = values.into_inner().unwrap();
    let leaked: Vec<&String> = values
        .iter()
        .filter(|v| written.contains(v.as_str()))
        .collect();
    assert!(
        leaked.is_empty(),
        "the fake's recording holds the callback values {leaked:?}:\n{}",
        sink.text()
    );
}

/// SECURITY.md, Output channels: a secret is also "any value under a **secret-named** name ...,
/// which the client may not know, removed by structure"; "`Error` (`Display`, `Debug`, every
/// `source()`) | no secret, in any variant or field"; "`Debug` and `Display` of every public type
/// (of both published crates)"; "recordings (... the fake's recorder) | a recording holds no
/// secret". The threat model: "every file a pull request can add or change (... recordings)" is
/// untrusted.
///
/// The sibling: the recorder blanks secret-named parameters, and the scrubber removes
/// `name=value` by structure. A committed recording (as a pull request could change it) holds a
/// value under a secret-named parameter; a request with another id misses it. The miss is
/// written by the fake as prose (`NAME is not sent, "VALUE" recorded`), a shape no structure
/// names: it must reach none of the client's error, `check_replay`'s error (`Unmatched`, and a
/// strict replay's `Unused`), the `Replay`'s `Debug`, or the fake's recording of its 404.
#[test]
fn replay_texts_show_no_value_a_recording_holds_under_a_secret_named_parameter() {
    let rt = runtime();
    let scratch = tempfile::tempdir().unwrap();
    let dir = OutputDir::create(scratch.path()).unwrap();
    let result = runner(10).run(&(secret_name(), canary("PARAM")), |(name, value)| {
        let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 200);
        exchange.http_method = "GET".into();
        exchange.path = "/api/pay/getInvoice".into();
        exchange.params.insert("id".into(), "8901".into());
        exchange.params.insert(name.clone(), value.clone());
        exchange
            .headers
            .insert("content-type".into(), "application/json".into());
        exchange.body =
            Some(r#"{"api":"pay/getInvoice","apiVersion":1,"rcode":1,"data":{}}"#.into());
        dir.write("committed.jsonl", format!("{}\n", exchange.to_line()))
            .unwrap();
        let file = scratch.path().join("committed.jsonl");
        let mut shown = Vec::new();
        rt.block_on(async {
            let fake = FakeMarketplace::start().await.unwrap();
            let sink = Sink::default();
            let recorder = Recorder::to_writer(sink.clone());
            fake.record(recorder.clone());
            let replay = Replay::from_files([&file]).unwrap().strict();
            shown.push(("Replay's Debug", format!("{replay:?}")));
            fake.replay(replay);
            let session = fake.session(fake.world().hourly_workroom().client).unwrap();
            let error = session.get_invoice(8902).send().await.unwrap_err();
            shown.push(("the client's error", error_texts(&error)));
            let check = fake.check_replay().unwrap_err();
            shown.push(("check_replay (a miss)", error_texts(&check)));
            recorder.flush().unwrap();
            shown.push(("the fake's recording", with_decoded(&sink.text())));
            let strict = FakeMarketplace::start().await.unwrap();
            strict.replay(Replay::from_files([&file]).unwrap().strict());
            let session = strict
                .session(strict.world().hourly_workroom().client)
                .unwrap();
            let _ = session.get_timesheet_by_bid_id(310001).send().await;
            if let Err(error) = strict.check_replay() {
                shown.push(("check_replay (another miss)", error_texts(&error)));
            }
        });
        let leaks: Vec<String> = shown
            .iter()
            .filter(|(_, text)| text.contains(value.as_str()))
            .map(|(channel, text)| format!("{channel}: {text}"))
            .collect();
        prop_assert!(
            leaks.is_empty(),
            "{name}={value:?} recorded is shown by:\n{}",
            leaks.join("\n")
        );
        Ok(())
    });
    result.unwrap();
}

// ---------------------------------------------------------------------------------------------
// Routes: the fake's browser and its HTTP client
// ---------------------------------------------------------------------------------------------

/// SECURITY.md, Routes: "the fake's browser (`FakeMarketplace::authorize`, `sign_in`: the demo
/// login and password, in an app's tests) | only to the fake itself"; "a proxy the environment
/// names (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, lower-case forms ...) | never used, for HTTP
/// nor HTTPS ... The environment is not the app's configuration (any parent process sets it)";
/// the fake's docs: `http_client` "ignores proxy settings".
///
/// The sibling: `env_proxies.rs` holds the client's own HTTP clients to it. Here the fake's
/// browser (which posts the demo password) and `http_client`, in a child process whose
/// environment names a tap as every proxy: over plain HTTP (where a proxy would read the login
/// form whole) and HTTPS. The tap must receive nothing, and the flow must succeed directly.
#[test]
fn the_fakes_browser_and_http_client_ignore_every_proxy_the_environment_names() {
    if child_mode().as_deref() == Some("proxies") {
        let rt = runtime();
        rt.block_on(async {
            for plain in [true, false] {
                let fake = if plain {
                    FakeMarketplace::start_plain_http().await.unwrap()
                } else {
                    FakeMarketplace::start().await.unwrap()
                };
                let client = fake
                    .client_builder()
                    .allow_plain_http_oauth_on_loopback()
                    .build()
                    .unwrap();
                let request = client.request_token(Some("oob")).await.unwrap();
                let url = client.authorization_url(&request);
                let outcome = fake.authorize(url.as_str(), &login(&fake), true).await;
                println!("plain={plain} authorize: {:?}", outcome.map(|_| "approved"));
                let signed_in = fake.sign_in(&client, &login(&fake)).await;
                println!("plain={plain} sign_in: {:?}", signed_in.map(|_| "session"));
                let page = fake
                    .http_client()
                    .get(format!("{}/api/nothing", fake.base_url()))
                    .send()
                    .await
                    .map(|r| r.status().as_u16());
                println!("plain={plain} http_client: {page:?}");
            }
        });
        return;
    }
    let rt = runtime();
    let tap = rt.block_on(Tap::start(TapAnswer::Status(502))).unwrap();
    let url = tap.url();
    let env: Vec<(&str, String)> = [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ]
    .into_iter()
    .map(|name| (name, url.clone()))
    .chain([("NO_PROXY", String::new()), ("no_proxy", String::new())])
    .collect();
    let output = run_child(
        "the_fakes_browser_and_http_client_ignore_every_proxy_the_environment_names",
        "proxies",
        &env,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let connections = tap.connections();
    assert!(
        connections.is_empty(),
        "the proxy received {} connection(s): {:?}\nchild: {stdout}",
        connections.len(),
        tap.requests()
    );
    assert!(output.status.success(), "child failed: {stdout}");
    for line in [
        "plain=true authorize: Ok(\"approved\")",
        "plain=true sign_in: Ok(\"session\")",
        "plain=true http_client: Ok(404)",
        "plain=false authorize: Ok(\"approved\")",
        "plain=false sign_in: Ok(\"session\")",
        "plain=false http_client: Ok(404)",
    ] {
        assert!(stdout.contains(line), "expected {line:?} in:\n{stdout}");
    }
}

/// SECURITY.md, Routes: "the fake's browser (`FakeMarketplace::authorize`, `sign_in`: the demo
/// login and password, in an app's tests) | only to the fake itself: an authorization URL or a
/// login form at another origin (scheme, host, port) is `FakeError::ForeignUrl` before anything
/// is sent".
///
/// The sibling: `fake_server.rs` hands `authorize` a foreign URL. Here `sign_in` is handed a
/// client of the demo application whose base URL is another server (a stub posing as the
/// service, answering its request token): the authorization URL `sign_in` makes is then at the
/// stub, and the stub must receive no login page request and no form carrying the password.
#[test]
fn sign_in_with_a_client_of_another_origin_sends_the_demo_login_nowhere() {
    let rt = runtime();
    rt.block_on(async {
        let fake = FakeMarketplace::start().await.unwrap();
        let stub = StubServer::start().await.unwrap();
        stub.fallback(
            "/oauth/getRequestToken",
            Reply::text(
                200,
                "application/x-www-form-urlencoded",
                "oauth_token=stubtoken&oauth_token_secret=stubsecret&oauth_callback_confirmed=true",
            ),
        );
        stub.fallback(
            "/oauth/authorizeToken",
            Reply::text(
                200,
                "text/html",
                "<form method=post action=/oauth/authorizeToken></form>",
            ),
        );
        let credentials = ConsumerCredentials::new(
            fake.credentials().consumer_key.clone(),
            fake.credentials().consumer_secret.clone(),
        );
        let client = Client::builder(stub.base_url(), credentials)
            .allow_plain_http_oauth_on_loopback()
            .build()
            .unwrap();
        let outcome = tokio::time::timeout(
            Duration::from_secs(20),
            fake.sign_in(&client, &login(&fake)),
        )
        .await
        .expect("sign_in ends");
        let password = &fake.credentials().password;
        let seen: Vec<String> = stub
            .requests()
            .iter()
            .filter(|r| r.path != "/oauth/getRequestToken")
            .map(|r| {
                format!(
                    "{} {} {}",
                    r.method,
                    r.path,
                    String::from_utf8_lossy(&r.body)
                )
            })
            .collect();
        assert!(
            seen.is_empty(),
            "the stub received the browser's requests: {seen:?}"
        );
        assert!(
            !stub
                .requests()
                .iter()
                .any(|r| String::from_utf8_lossy(&r.body).contains(password.as_str())),
            "the stub received the demo password"
        );
        assert!(
            matches!(outcome, Err(FakeError::ForeignUrl { .. })),
            "sign_in: {:?}",
            outcome.map(|_| ())
        );
    });
}

/// SECURITY.md, Routes: "the fake's browser ... | only to the fake itself"; the docs of
/// `authorize`: "Returns where the service sent the browser: the callback redirect".
///
/// The sibling: the route a redirect opens. The fake answers the approved form with a redirect
/// to the app's callback; the callback here is a tap (over plain HTTP, with an `https` twin on
/// the same port): the browser returns `Authorization::Callback` and the tap receives nothing
/// (the verifier and the browser's next request stay on the machine's fake).
#[test]
fn the_fakes_browser_returns_the_callback_and_never_follows_it() {
    let rt = runtime();
    rt.block_on(async {
        let fake = FakeMarketplace::start().await.unwrap();
        let tap = Tap::start(TapAnswer::Status(200)).await.unwrap();
        let client = fake.client().unwrap();
        for callback in [
            format!("{}/cb?state=x", tap.url()),
            format!("{}/cb", tap.url().replace("http://", "https://")),
        ] {
            let request = client.request_token(Some(&callback)).await.unwrap();
            let url = client.authorization_url(&request);
            let authorization = fake.authorize(url.as_str(), &login(&fake), true).await;
            assert!(
                matches!(authorization, Ok(Authorization::Callback(_))),
                "{callback}: {authorization:?}"
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            tap.connections().is_empty(),
            "the callback received {:?}",
            tap.connections()
        );
    });
}

/// SECURITY.md, Routes: "credentials reach only the configured origin"; the fake's docs:
/// `http_client` is "A reqwest client that trusts the fake's certificate (and only it)", "fit
/// for `ClientBuilder::http_client`", and "FakeMarketplace::http_client trusts that certificate
/// only".
///
/// The sibling: the client's own HTTP client is shown to refuse the fake's self-signed
/// certificate (`routes.rs`). Here the other direction: two fakes, each with a certificate for
/// 127.0.0.1 made at start; one fake's `http_client` (and a client of that fake built on it)
/// must refuse the other fake's certificate before any request is served there.
#[test]
fn a_fakes_http_client_trusts_no_other_fakes_certificate() {
    let rt = runtime();
    rt.block_on(async {
        let mine = FakeMarketplace::start().await.unwrap();
        let other = FakeMarketplace::start().await.unwrap();
        let before = other.requests_served();
        let page = mine
            .http_client()
            .get(format!("{}/api/nothing", other.base_url()))
            .send()
            .await;
        assert!(
            page.is_err(),
            "another fake's certificate was trusted: {page:?}"
        );
        let client = Client::builder(
            other.base_url(),
            ConsumerCredentials::new(
                other.credentials().consumer_key.clone(),
                other.credentials().consumer_secret.clone(),
            ),
        )
        .http_client(mine.http_client())
        .build()
        .unwrap();
        let token = client.request_token(Some("oob")).await;
        assert!(token.is_err(), "a request token came through: {token:?}");
        assert_eq!(
            other.requests_served(),
            before,
            "the other fake served a request"
        );
    });
}

// ---------------------------------------------------------------------------------------------
// Replays: nothing replayed is not a pass
// ---------------------------------------------------------------------------------------------

/// SECURITY.md, Inputs: "recordings replayed by the fake | ... a replay no request came to
/// (`check_replay` says how many exchanges it loaded and requests it answered: nothing replayed
/// is not a pass)".
///
/// The sibling: `replay.rs` counts data requests that came or did not. Here data requests come,
/// but the replay answers none of them: another writer answers each first (an injected fault of
/// every kind that does not handle the request, or the fake's own OAuth refusing an expired
/// token). `check_replay` must not pass.
#[test]
fn a_replay_whose_every_request_a_fault_or_the_fakes_oauth_answered_is_not_a_pass() {
    let rt = runtime();
    let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 200);
    exchange.http_method = "GET".into();
    exchange.path = "/api/pay/getInvoice".into();
    exchange.params.insert("id".into(), "8901".into());
    exchange
        .headers
        .insert("content-type".into(), "application/json".into());
    exchange.body = Some(r#"{"api":"pay/getInvoice","apiVersion":1,"rcode":1,"data":{}}"#.into());
    let faults = vec![
        Some(Fault::Status {
            status: 404,
            retry_after: None,
        }),
        Some(Fault::HtmlErrorPage { status: 403 }),
        Some(Fault::Rcode(5)),
        Some(Fault::Reset),
        None,
    ];
    let mut passed = Vec::new();
    rt.block_on(async {
        for fault in faults {
            let fake = FakeMarketplace::start().await.unwrap();
            fake.replay(Replay::from_exchanges([exchange.clone()]).unwrap());
            let client = fake
                .client_builder()
                .retry(marketplace_client::RetryPolicy::none())
                .build()
                .unwrap();
            let session = client.session(
                fake.session(fake.world().hourly_workroom().client)
                    .unwrap()
                    .token()
                    .clone(),
            );
            match &fault {
                Some(fault) => {
                    fake.faults()
                        .inject(Some("/api/pay/getInvoice"), fault.clone(), 100)
                }
                None => fake.clock().advance(SignedDuration::from_hours(7)),
            }
            let _ = session.get_invoice(8901).send().await;
            if let Ok(count) = fake.check_replay() {
                passed.push(format!("{fault:?}: {count}"));
            }
        }
    });
    assert!(passed.is_empty(), "check_replay passed: {passed:?}");
}

// ---------------------------------------------------------------------------------------------
// Requests to the fake: bounded, never a panic
// ---------------------------------------------------------------------------------------------

/// Seconds until the peer closes, at most `cap`.
fn until_closed(stream: &mut TcpStream, cap: Duration) -> Option<Duration> {
    let start = Instant::now();
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = [0u8; 4096];
    while start.elapsed() < cap {
        match stream.read(&mut buf) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return Some(start.elapsed()),
        }
    }
    None
}

#[derive(Debug)]
struct AnyCertificate;

impl rustls::client::danger::ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }
    fn verify_tls13_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        rustls::crypto::ring::default_provider()
            .signature_verification_algorithms
            .supported_schemes()
    }
}

fn tls_client() -> rustls::ClientConnection {
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .dangerous()
    .with_custom_certificate_verifier(Arc::new(AnyCertificate))
    .with_no_client_auth();
    rustls::ClientConnection::new(
        Arc::new(config),
        rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap(),
    )
    .unwrap()
}

/// HTTP/2's connection preface and an empty SETTINGS frame.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00";
/// A HEADERS frame on stream 1 without END_HEADERS (`:method GET` only): a head left open.
const H2_OPEN_HEAD: &[u8] = &[0, 0, 1, 1, 0, 0, 0, 0, 1, 0x82];

/// SECURITY.md, Inputs: "requests to the fake marketplace | a malformed or oversized request is
/// refused with a typed error, never a panic | ... a request head within 10 s (hyper's
/// `header_read_timeout`), a TLS handshake within 10 s"; the threat model: the client "must not
/// be made to ... hang", and the fake is a server of apps' test suites.
///
/// The siblings of the endless HTTP/1 head (`red_team2_routes.rs`) and of the handshake never
/// begun (`red_team_inputs.rs`): the bytes before a head is known to be HTTP/1, and the other
/// HTTP version the fake speaks (it answers HTTP/2 prior knowledge, in clear and inside TLS).
/// Connections opened at once, on the plain-HTTP fake and inside a finished TLS handshake:
/// nothing sent; each proper prefix of HTTP/2's preface; the whole preface and SETTINGS; the
/// preface and a HEADERS frame never ended. Each must be closed by the fake within the 10 s
/// bound (2.5 s margin).
#[test]
fn connections_whose_request_head_never_comes_are_closed_within_10_s() {
    let rt = runtime();
    let plain = rt.block_on(FakeMarketplace::start_plain_http()).unwrap();
    let tls = rt.block_on(FakeMarketplace::start()).unwrap();
    let mut openings: Vec<(String, Vec<u8>)> = vec![("nothing".into(), vec![])];
    for len in [1, 3, 8, 16, 23] {
        openings.push((
            format!("{len} bytes of the preface"),
            H2_PREFACE[..len].to_vec(),
        ));
    }
    openings.push(("the HTTP/2 preface".into(), H2_PREFACE.to_vec()));
    openings.push((
        "an HTTP/2 head never ended".into(),
        [H2_PREFACE, H2_OPEN_HEAD].concat(),
    ));
    let cap = Duration::from_millis(12_500);
    let mut threads = Vec::new();
    for (what, bytes) in openings {
        for tls_side in [false, true] {
            let address = host_port(if tls_side { &tls } else { &plain });
            let what = what.clone();
            let bytes = bytes.clone();
            threads.push(std::thread::spawn(move || {
                let mut socket = TcpStream::connect(&address).unwrap();
                let started = Instant::now();
                let closed = if tls_side {
                    let mut connection = tls_client();
                    while connection.is_handshaking() {
                        connection.complete_io(&mut socket).unwrap();
                    }
                    rustls::Stream::new(&mut connection, &mut socket)
                        .write_all(&bytes)
                        .unwrap();
                    until_closed(&mut socket, cap.saturating_sub(started.elapsed()))
                } else {
                    socket.write_all(&bytes).unwrap();
                    until_closed(&mut socket, cap)
                };
                let side = if tls_side { "TLS" } else { "plain" };
                match closed {
                    Some(_) => None,
                    None => Some(format!("{side}, {what}: still open after {cap:?}")),
                }
            }));
        }
    }
    let open: Vec<String> = threads
        .into_iter()
        .filter_map(|t| t.join().unwrap())
        .collect();
    assert!(
        open.is_empty(),
        "connections held past the bound:\n{}",
        open.join("\n")
    );
}

/// SECURITY.md, Inputs: "requests to the fake marketplace | ... a TLS handshake within 10 s".
///
/// The sibling of the handshake never begun or cut short (`red_team_inputs.rs`): a real
/// ClientHello, trickled one byte every 150 ms, so that every read the fake makes returns data
/// and only a bound on the whole handshake ends it. The fake must close it within 10 s (2.5 s
/// margin).
#[test]
fn a_tls_handshake_trickled_byte_by_byte_ends_within_10_s() {
    let rt = runtime();
    let fake = rt.block_on(FakeMarketplace::start()).unwrap();
    let mut hello = Vec::new();
    tls_client().write_tls(&mut hello).unwrap();
    let mut socket = TcpStream::connect(host_port(&fake)).unwrap();
    socket.set_nonblocking(true).unwrap();
    let started = Instant::now();
    let mut closed_at = None;
    'trickle: for _ in 0..4 {
        for byte in &hello {
            if socket.write_all(&[*byte]).is_err() {
                closed_at = Some(started.elapsed());
                break 'trickle;
            }
            std::thread::sleep(Duration::from_millis(150));
            let mut scratch = [0u8; 64];
            if let Ok(0) = socket.read(&mut scratch) {
                closed_at = Some(started.elapsed());
                break 'trickle;
            }
            if started.elapsed() > Duration::from_millis(12_500) {
                break 'trickle;
            }
        }
    }
    assert!(
        closed_at.is_some_and(|at| at <= Duration::from_millis(12_500)),
        "a trickled handshake of {} bytes was still open at {:?}",
        hello.len(),
        started.elapsed()
    );
}

/// A request line and headers, as bytes.
fn hostile_request() -> impl Strategy<Value = Vec<u8>> {
    let method = prop_oneof![
        prop::sample::select(vec![
            "GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE", "PATCH", "CONNECT", "get",
            "Post", "PRI", "M-SEARCH",
        ])
        .prop_map(String::from),
        "[!#$%&'*+.^_`|~0-9A-Za-z-]{1,24}",
    ];
    let path = prop::sample::select(vec![
        "/api/pay/getTimesheet",
        "/api/pay/getInvoice",
        "/oauth/getRequestToken",
        "/oauth/authorizeToken",
        "/oauth/getAccessToken",
        "/oauth/revokeToken",
        "/",
        "*",
        "127.0.0.1:1",
        "http://127.0.0.1:1/oauth/authorizeToken",
        "//oauth//authorizeToken/",
        "/api/pay/getTimesheet/..%2f..%2foauth",
    ]);
    let query = prop::collection::vec(any::<u8>(), 0..24).prop_map(|bytes| {
        let mut out = String::new();
        for (i, b) in bytes.iter().enumerate() {
            match i % 3 {
                0 => out.push_str(&format!("%{b:02X}")),
                1 => out.push_str(if b % 2 == 0 { "&" } else { "=" }),
                _ => out.push(char::from(b'a' + b % 26)),
            }
        }
        out
    });
    let version = prop::sample::select(vec![
        "HTTP/1.1",
        "HTTP/1.0",
        "HTTP/1.2",
        "HTTP/0.9",
        "HTTP/2.0",
        "HTTP/9.9",
        "http/1.1",
        "HTTP/1.1 ",
        "",
    ]);
    let header = (
        "[!#$%&'*+.^_`|~0-9A-Za-z-]{1,16}",
        prop::collection::vec(prop_oneof![0x20u8..0x7f, 0x80u8..=0xff, Just(b'\t')], 0..40),
    );
    let body = prop::collection::vec(any::<u8>(), 0..64);
    (
        method,
        path,
        query,
        version,
        prop::collection::vec(header, 0..4),
        body,
        any::<bool>(),
    )
        .prop_map(|(method, path, query, version, headers, body, form)| {
            let mut out = format!("{method} {path}");
            if !query.is_empty() {
                out.push('?');
                out.push_str(&query);
            }
            out.push(' ');
            out.push_str(version);
            let mut bytes = out.into_bytes();
            bytes.extend_from_slice(b"\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
            for (name, value) in headers {
                bytes.extend_from_slice(name.as_bytes());
                bytes.extend_from_slice(b": ");
                bytes.extend_from_slice(&value);
                bytes.extend_from_slice(b"\r\n");
            }
            if form {
                bytes.extend_from_slice(b"Content-Type: application/x-www-form-urlencoded\r\n");
            }
            bytes.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
            bytes.extend_from_slice(&body);
            bytes
        })
}

/// SECURITY.md, Inputs: "requests to the fake marketplace (a test server on loopback, in apps'
/// tests) | a malformed or oversized request is refused with a typed error, never a panic".
///
/// The sibling of `garbage_is_refused_without_harm` and of the hostile query values: the other
/// parts of a request line and head as a class. Generated methods (any token, lower case,
/// `CONNECT`, `PRI`), targets (every route of the fake, `*`, authority and absolute forms, dot
/// segments) with queries of any percent-encoded bytes, versions (`HTTP/0.9` to `HTTP/9.9`, lower
/// case, none), header names and values with obs-text, bodies of any bytes labelled as forms.
/// Each on its own connection to the plain-HTTP fake: an HTTP status comes back, no worker of
/// the runtime panics, and the fake still serves a client afterwards.
#[test]
fn request_lines_of_any_method_target_and_version_get_a_status_never_a_panic() {
    let panics = worker_panics();
    let rt = runtime();
    let fake = rt.block_on(FakeMarketplace::start_plain_http()).unwrap();
    let address = host_port(&fake);
    let before = panics.load(Ordering::SeqCst);
    let result = runner(96).run(&hostile_request(), |request| {
        let mut socket = TcpStream::connect(&address).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(3)))
            .unwrap();
        let _ = socket.write_all(&request);
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        while answer.len() < 16 {
            match socket.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
        prop_assert_eq!(panics.load(Ordering::SeqCst), before, "a worker panicked");
        let head = String::from_utf8_lossy(&answer[..answer.len().min(16)]).into_owned();
        prop_assert!(
            head.starts_with("HTTP/1.1 ") || head.starts_with("HTTP/1.0 "),
            "no status for {:?}: {:?}",
            String::from_utf8_lossy(&request),
            head
        );
        Ok(())
    });
    let still = rt.block_on(async {
        fake.session(fake.world().hourly_workroom().client)
            .unwrap()
            .get_timesheet_by_bid_id(310001)
            .send()
            .await
            .map(|_| ())
    });
    result.unwrap();
    assert!(still.is_ok(), "the fake no longer serves: {still:?}");
}
