//! Replay of traffic recorded against a server whose OAuth is not the fake's: a call that server
//! refused by its own OAuth (a signature, a clock, a nonce, a token it had expired or revoked)
//! is the fake's to decide, so a recorded refusal is never replayed, whatever its status and
//! shape; every other answer, errors of the data included, is replayed as recorded, in order.
//!
//! The oracle is what the client saw over HTTP (a response hook: every attempt's status and
//! body), against the sessions the generator wrote. The refusal codes are this file's own list
//! (the OAuth Problem Reporting extension's, and the spec's `authentication` errors), not the
//! fake's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use marketplace_client::files::OutputDir;
use marketplace_client::recording::{self, Exchange, Recorder, Rotation, Side};
use marketplace_client::{Client, RetryPolicy, SERVICE, Session};
use marketplace_tests::fake::replay::NO_RECORDING_CODE;
use marketplace_tests::fake::{FakeMarketplace, Replay, ReplayError};
use proptest::prelude::*;

/// Every problem of the OAuth Problem Reporting extension.
const OAUTH_PROBLEMS: [&str; 18] = [
    "version_rejected",
    "parameter_absent",
    "parameter_rejected",
    "timestamp_refused",
    "nonce_used",
    "signature_method_rejected",
    "signature_invalid",
    "consumer_key_unknown",
    "consumer_key_rejected",
    "consumer_key_refused",
    "token_used",
    "token_expired",
    "token_revoked",
    "token_rejected",
    "additional_authorization_required",
    "permission_unknown",
    "permission_denied",
    "user_refused",
];

/// Every refusal code: the spec's `authentication` errors, then the OAuth problems.
fn refusal_codes() -> Vec<&'static str> {
    SERVICE
        .authentication_errors
        .iter()
        .copied()
        .chain(OAUTH_PROBLEMS)
        .collect()
}

/// The requests the sessions make: a method and its one parameter.
const REQUESTS: [(&str, &str, u64); 4] = [
    ("pay/getInvoice", "id", 9101),
    ("pay/getInvoice", "id", 9102),
    ("pay/getPayment", "id", 7101),
    ("pay/getTimesheet", "bidId", 310001),
];

type Params = BTreeMap<String, String>;

fn params_of(request: usize) -> Params {
    let (_, name, value) = REQUESTS[request];
    [(name.to_owned(), value.to_string())].into()
}

/// Sends request `request` of [`REQUESTS`]; what the call returns is not the oracle.
async fn call(session: &Session, request: usize) -> Result<(), marketplace_client::Error> {
    let (method, _, value) = REQUESTS[request];
    match method {
        "pay/getInvoice" => session.get_invoice(value).send().await.map(drop),
        "pay/getPayment" => session.get_payment(value).send().await.map(drop),
        _ => session
            .get_timesheet_by_bid_id(value)
            .send()
            .await
            .map(drop),
    }
}

/// A refusal of the recording server's own OAuth, in one of the shapes servers send.
#[derive(Clone, Debug)]
enum RefusalShape {
    /// `401` with the nested JSON error (`{"error": {"code", …}}`).
    Nested,
    /// `401` with an empty body, or none recorded.
    Empty { kept: bool },
    /// `401` with form pairs: `oauth_problem=…&oauth_problem_advice=…`.
    Form,
    /// `200` whose envelope says `rcode` 0 with the code in `data`.
    InData,
    /// A status with an `errors` array whose second entry is the code (a string).
    ErrorsArray { status: u16 },
    /// A status with an HTML page that names the code.
    Page { status: u16 },
    /// A status with form pairs (`oauth_problem=permission_denied` on a `403`).
    FormAt { status: u16 },
    /// `401` or `407` with a body that names no refusal code at all.
    StatusOnly { status: u16, body: u8 },
}

/// A data answer the fake replays: errors of the data included.
#[derive(Clone, Copy, Debug)]
enum Accepted {
    /// `200`, `rcode` 1.
    Data,
    /// `200`, `rcode` 1, whose data mentions a refusal code in a value that is not a code.
    DataMentioningACode,
    /// `403 E_API_NOT_AUTHORIZED`: the user's permission to the record.
    NotAuthorized,
    /// `400 E_VALIDATION_INVALID_ID`.
    Validation,
    /// `503` (retried by the client: the next answer follows).
    Unavailable,
    /// `429`, text.
    TooMany,
}

#[derive(Clone, Debug)]
enum Answer {
    Refusal { shape: RefusalShape, code: usize },
    Accepted(Accepted),
}

fn shape() -> impl Strategy<Value = RefusalShape> {
    let status = prop::sample::select(vec![200u16, 400, 403, 404, 429, 500, 503]);
    prop_oneof![
        Just(RefusalShape::Nested),
        any::<bool>().prop_map(|kept| RefusalShape::Empty { kept }),
        Just(RefusalShape::Form),
        Just(RefusalShape::InData),
        status
            .clone()
            .prop_map(|status| RefusalShape::ErrorsArray { status }),
        status
            .clone()
            .prop_map(|status| RefusalShape::Page { status }),
        status.prop_map(|status| RefusalShape::FormAt { status }),
        (prop::sample::select(vec![401u16, 407]), 0..3u8)
            .prop_map(|(status, body)| RefusalShape::StatusOnly { status, body }),
    ]
}

fn answer() -> impl Strategy<Value = Answer> {
    let accepted = prop::sample::select(vec![
        Accepted::Data,
        Accepted::DataMentioningACode,
        Accepted::NotAuthorized,
        Accepted::Validation,
        Accepted::Unavailable,
        Accepted::TooMany,
    ]);
    prop_oneof![
        (shape(), 0..refusal_codes().len())
            .prop_map(|(shape, code)| Answer::Refusal { shape, code }),
        accepted.prop_map(Answer::Accepted),
    ]
}

/// The recorded exchange of `answer` to `request`, the `n`th of the session (its bodies are
/// distinct, so that the client's view tells which answered).
fn exchange(request: usize, answer: &Answer, n: usize) -> Exchange {
    let (method, _, _) = REQUESTS[request];
    let json = |value: serde_json::Value| (Some(value.to_string()), "application/json");
    let (status, (body, content_type)) = match answer {
        Answer::Accepted(accepted) => {
            let marker = format!("accepted answer {n}");
            let error = |code: &str, kind: &str| {
                json(
                    serde_json::json!({"api": method, "apiVersion": 1, "rcode": 0,
                    "error": {"code": code, "type": kind, "message": marker}}),
                )
            };
            match accepted {
                Accepted::Data => (
                    200,
                    json(
                        serde_json::json!({"api": method, "apiVersion": 1, "rcode": 1,
                        "data": {"marker": marker}}),
                    ),
                ),
                Accepted::DataMentioningACode => (
                    200,
                    json(
                        serde_json::json!({"api": method, "apiVersion": 1, "rcode": 1,
                        "data": {"memo": "token_expired", "marker": marker}}),
                    ),
                ),
                Accepted::NotAuthorized => (403, error("E_API_NOT_AUTHORIZED", "authorization")),
                Accepted::Validation => (400, error("E_VALIDATION_INVALID_ID", "validation")),
                Accepted::Unavailable => (503, error("E_API_UNAVAILABLE", "internal")),
                Accepted::TooMany => (429, (Some(marker), "text/plain")),
            }
        }
        Answer::Refusal { shape, code } => {
            let code = refusal_codes()[*code];
            let marker = format!("refusal {n}");
            let form = || {
                (
                    Some(format!(
                        "oauth_problem={code}&oauth_problem_advice=refusal+{n}"
                    )),
                    "application/x-www-form-urlencoded",
                )
            };
            match shape {
                RefusalShape::Nested => (
                    401,
                    json(
                        serde_json::json!({"api": method, "apiVersion": 1, "rcode": 0,
                        "error": {"code": code, "type": "authentication", "message": marker}}),
                    ),
                ),
                RefusalShape::Empty { kept } => (401, (kept.then(String::new), "application/json")),
                RefusalShape::Form => (401, form()),
                RefusalShape::InData => (
                    200,
                    json(
                        serde_json::json!({"api": method, "apiVersion": 1, "rcode": 0,
                        "data": {"code": code, "message": marker}}),
                    ),
                ),
                RefusalShape::ErrorsArray { status } => (
                    *status,
                    json(serde_json::json!({"rcode": 0,
                        "errors": [{"code": "E_VALIDATION_INVALID_ID", "message": marker}, code]})),
                ),
                RefusalShape::Page { status } => (
                    *status,
                    (
                        Some(format!(
                            "<html><body><h1>Refused</h1><p>{code}: {marker}</p></body></html>"
                        )),
                        "text/html",
                    ),
                ),
                RefusalShape::FormAt { status } => (*status, form()),
                RefusalShape::StatusOnly { status, body } => {
                    let body = match body {
                        0 => json(serde_json::json!({"rcode": 0,
                            "error": {"code": "E_VALIDATION_INVALID_ID", "message": marker}})),
                        1 => (Some(format!("<html>{marker}</html>")), "text/html"),
                        _ => (None, "text/plain"),
                    };
                    (*status, body)
                }
            }
        }
    };
    let mut exchange = Exchange::new(Side::Client, method, status);
    exchange.path = format!("/api/{method}");
    exchange.params = params_of(request);
    exchange.headers = [("content-type".to_owned(), content_type.to_owned())].into();
    exchange.body = body;
    exchange
}

/// An OAuth endpoint's exchange, as a client records it (left to the fake).
fn oauth_line() -> String {
    let mut exchange = Exchange::new(Side::Client, "oauth/getAccessToken", 200);
    exchange.note = Some("the answer of an OAuth endpoint holds credentials only".into());
    exchange.to_line()
}

/// The session written as two recording files, in order (an OAuth exchange first, as a
/// client records one), with the origin (`file:line`) of each answer.
fn write_session(dir: &Path, exchanges: &[Exchange]) -> (Vec<PathBuf>, Vec<String>) {
    let out = OutputDir::create(dir).unwrap();
    let half = exchanges.len().div_ceil(2);
    let mut origins = Vec::new();
    let mut paths = Vec::new();
    for (file, part) in [&exchanges[..half], &exchanges[half..]]
        .into_iter()
        .enumerate()
    {
        let name = format!("session-{file}.jsonl");
        let path = dir.join(&name);
        let mut text = String::new();
        if file == 0 {
            text.push_str(&oauth_line());
            text.push('\n');
        }
        for exchange in part {
            text.push_str(&exchange.to_line());
            text.push('\n');
            origins.push(format!("{}:{}", path.display(), text.lines().count()));
        }
        out.write(&name, text).unwrap();
        paths.push(path);
    }
    (paths, origins)
}

/// What the client saw: every attempt's request, status and body.
type Seen = Arc<Mutex<Vec<(String, Params, u16, Option<String>)>>>;

/// A client of the fake whose hook keeps every answer, retrying a `503` at once.
fn watching_client(fake: &FakeMarketplace) -> (Client, Seen) {
    let seen: Seen = Arc::default();
    let kept = Arc::clone(&seen);
    let client = fake
        .client_builder()
        .retry(
            RetryPolicy::default()
                .max_attempts(2)
                .base_delay(Duration::from_millis(1))
                .max_delay(Duration::from_millis(1)),
        )
        .on_response(move |response| {
            if response.api_method().starts_with("oauth/") {
                return;
            }
            let params = response
                .params()
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .collect();
            let body = response
                .body()
                .map(|body| String::from_utf8_lossy(body).into_owned());
            kept.lock().unwrap().push((
                response.api_method().to_owned(),
                params,
                response.status(),
                body,
            ));
        })
        .build()
        .unwrap();
    (client, seen)
}

/// The answers of `request` the client saw, as (status, body).
fn seen_for(seen: &Seen, request: usize) -> Vec<(u16, String)> {
    let (method, _, _) = REQUESTS[request];
    let params = params_of(request);
    seen.lock()
        .unwrap()
        .iter()
        .filter(|(m, p, _, _)| m == method && *p == params)
        .map(|(_, _, status, body)| (*status, body.clone().unwrap_or_default()))
        .collect()
}

/// A generated session: each exchange, which request it answers and whether it is a refusal,
/// in recorded order.
struct Generated {
    requests: Vec<usize>,
    refusal: Vec<bool>,
    exchanges: Vec<Exchange>,
}

impl Generated {
    fn new(session: &[(usize, Answer)]) -> Generated {
        Generated {
            requests: session.iter().map(|(request, _)| *request).collect(),
            refusal: session
                .iter()
                .map(|(_, answer)| matches!(answer, Answer::Refusal { .. }))
                .collect(),
            exchanges: session
                .iter()
                .enumerate()
                .map(|(n, (request, answer))| exchange(*request, answer, n))
                .collect(),
        }
    }

    fn refusals(&self) -> usize {
        self.refusal.iter().filter(|refused| **refused).count()
    }

    /// The accepted answers of `request`, as (status, body), in recorded order.
    fn kept(&self, request: usize) -> Vec<(u16, String)> {
        (0..self.exchanges.len())
            .filter(|at| self.requests[*at] == request && !self.refusal[*at])
            .map(|at| {
                let exchange = &self.exchanges[at];
                (exchange.status, exchange.body.clone().unwrap_or_default())
            })
            .collect()
    }

    /// How many refusals of `request` were recorded.
    fn refused(&self, request: usize) -> usize {
        (0..self.exchanges.len())
            .filter(|at| self.requests[*at] == request && self.refusal[*at])
            .count()
    }
}

/// What a replay of a generated session did: what the client saw, the check after the
/// accepted calls (with the requests made until then), and the misses of the requests
/// recorded only as refusals with the check after them.
struct Replayed {
    seen: Seen,
    checked: Result<(marketplace_tests::fake::ReplayCount, usize), ReplayError>,
    misses: Vec<(usize, marketplace_client::Error)>,
    after_misses: Result<marketplace_tests::fake::ReplayCount, ReplayError>,
}

/// Replays `replay` to a client of the test kit: calls in recorded order, then each request
/// until its last answer came again (a retried `503` takes the next answer too, which the
/// hook sees); then once each request recorded only as refusals.
async fn replay_session(replay: Replay, generated: &Generated) -> Replayed {
    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(replay.strict());
    let (client, seen) = watching_client(&fake);
    let user = fake.world().hourly_workroom().client;
    let login = fake.world().user(user).unwrap().login.clone();
    let session = fake.sign_in(&client, &login).await.unwrap();
    let kept: Vec<Vec<(u16, String)>> = (0..REQUESTS.len()).map(|r| generated.kept(r)).collect();
    let accepted = generated
        .requests
        .iter()
        .zip(&generated.refusal)
        .filter(|(_, refused)| !**refused);
    for (request, _) in accepted {
        if seen_for(&seen, *request).len() < kept[*request].len() {
            let _ = call(&session, *request).await;
        }
    }
    for (request, answers) in kept.iter().enumerate() {
        while !answers.is_empty() && seen_for(&seen, request).len() <= answers.len() {
            let _ = call(&session, request).await;
        }
    }
    let checked = fake
        .check_replay()
        .map(|count| (count, seen.lock().unwrap().len()));
    let mut misses = Vec::new();
    for (request, answers) in kept.iter().enumerate() {
        if answers.is_empty() && generated.refused(request) > 0 {
            misses.push((request, call(&session, request).await.unwrap_err()));
        }
    }
    Replayed {
        seen,
        checked,
        misses,
        after_misses: fake.check_replay(),
    }
}

/// The property of [`refusals_of_the_recording_servers_oauth_are_never_replayed`].
fn check_session(session: &[(usize, Answer)]) -> Result<(), TestCaseError> {
    let generated = Generated::new(session);
    let dir = tempfile::tempdir().unwrap();
    let (paths, origins) = write_session(dir.path(), &generated.exchanges);
    let refusals = generated.refusals();
    let refusal_origins: Vec<&String> = origins
        .iter()
        .zip(&generated.refusal)
        .filter(|(_, refused)| **refused)
        .map(|(origin, _)| origin)
        .collect();
    let replay = match Replay::from_files(&paths) {
        Ok(replay) => replay,
        Err(error) => {
            // Nothing but refusals (and the OAuth exchange): empty, saying why.
            prop_assert_eq!(refusals, session.len());
            let ReplayError::Empty {
                exchanges,
                refused,
                first_refused,
                ..
            } = &error
            else {
                panic!("not refused as empty: {error}");
            };
            prop_assert_eq!((*exchanges, *refused), (session.len() + 1, refusals));
            prop_assert!(first_refused[0].starts_with(refusal_origins[0].as_str()));
            // The OAuth exchange is the fake's own; every other one a refusal.
            let why = format!(
                "{} exchange(s) read, {refusals} of them refusals the recording server made by its own OAuth",
                refusals + 1
            );
            prop_assert!(error.to_string().contains(&why), "{}", error);
            return Ok(());
        }
    };
    prop_assert_eq!(
        (replay.len(), replay.refused()),
        (session.len() - refusals, refusals)
    );
    let runtime = marketplace_tests::runtime();
    let replayed = runtime.block_on(replay_session(replay, &generated));

    // Every request: its accepted answers in recorded order, then the last again; byte for
    // byte, and never a refusal.
    for (request, described) in REQUESTS.iter().enumerate() {
        let kept = generated.kept(request);
        let Some(last) = kept.last() else { continue };
        let got = seen_for(&replayed.seen, request);
        let mut expected = kept.clone();
        expected.resize(got.len().max(kept.len()), last.clone());
        prop_assert_eq!(&got, &expected, "request {:?}", described);
        let refusal_served = got
            .iter()
            .any(|(status, body)| matches!(status, 401 | 407) || body.contains("refusal"));
        prop_assert!(!refusal_served, "a refusal was served: {:?}", got);
    }
    // The refusals left out, counted exactly, the first named.
    let (count, requests) = replayed.checked.unwrap();
    prop_assert_eq!(
        (count.loaded, count.refused, count.answered, count.requests),
        (session.len() - refusals, refusals, requests, requests)
    );
    let text = count.to_string();
    if refusals == 0 {
        prop_assert!(!text.contains("refusal"), "{}", text);
    } else {
        let counted = format!(
            "; {refusals} recorded refusal(s) of the recording server's own OAuth left out"
        );
        prop_assert!(text.contains(&counted), "{}", text);
        for origin in refusal_origins.iter().take(3) {
            prop_assert!(
                text.contains(&format!("{origin} (")),
                "{} lacks {}",
                text,
                origin
            );
        }
    }
    // A request recorded only as refusals: a miss naming them.
    for (request, error) in &replayed.misses {
        prop_assert_eq!(
            error.code().map(|code| code.as_str()),
            Some(NO_RECORDING_CODE)
        );
        let named = format!(
            "its {} recorded answer(s) were refusals the recording server made by its own OAuth",
            generated.refused(*request)
        );
        prop_assert!(error.to_string().contains(&named), "{}", error);
    }
    match replayed.after_misses {
        Ok(_) => prop_assert!(replayed.misses.is_empty()),
        Err(ReplayError::Unmatched { misses }) => {
            prop_assert_eq!(misses.len(), replayed.misses.len());
        }
        Err(other) => prop_assert!(false, "{}", other),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Sessions that interleave refused and accepted calls of the same requests: every call is
    /// answered with the accepted answers of its request in recorded order (then the last
    /// again), byte for byte, never with a refusal; `check_replay` counts the refusals left
    /// out exactly and names the first; a request recorded only as refusals is a miss that
    /// names them; a session of refusals only is refused as empty, saying so.
    #[test]
    fn refusals_of_the_recording_servers_oauth_are_never_replayed(
        session in prop::collection::vec((0..REQUESTS.len(), answer()), 1..28),
    ) {
        check_session(&session)?;
    }
}

/// Every refusal code in every shape is left out, and every accepted answer kept: the shapes
/// and codes one by one, so that a classifier missing a single one fails here by name.
#[test]
fn every_code_in_every_shape_is_left_out() {
    let shapes = [
        RefusalShape::Nested,
        RefusalShape::Form,
        RefusalShape::InData,
        RefusalShape::ErrorsArray { status: 400 },
        RefusalShape::Page { status: 500 },
        RefusalShape::FormAt { status: 403 },
    ];
    for code in 0..refusal_codes().len() {
        for shape in &shapes {
            let refusal = Answer::Refusal {
                shape: shape.clone(),
                code,
            };
            let data = Answer::Accepted(Accepted::Validation);
            let replay =
                Replay::from_exchanges([exchange(0, &refusal, 0), exchange(0, &data, 1)]).unwrap();
            assert_eq!(
                (replay.len(), replay.refused()),
                (1, 1),
                "{} as {shape:?} was not left out",
                refusal_codes()[code]
            );
        }
    }
    for status in [401, 407] {
        for body in 0..3 {
            let refusal = Answer::Refusal {
                shape: RefusalShape::StatusOnly { status, body },
                code: 0,
            };
            let error = Replay::from_exchanges([exchange(0, &refusal, 0)]).unwrap_err();
            assert!(
                matches!(error, ReplayError::Empty { refused: 1, .. }),
                "{error}"
            );
        }
    }
}

/// Records a session against a live fake, as a user would against the service: a call the
/// server refuses (the token was revoked), then, signed in again, the same call accepted.
/// Replayed, the fake's own OAuth accepts the call, which gets the accepted answer, not the
/// recorded refusal.
#[tokio::test]
async fn a_live_recorded_refusal_is_decided_by_the_fake_and_the_accepted_answer_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live");
    let live = FakeMarketplace::start().await.unwrap();
    let workroom = live.world().hourly_workroom();
    let login = live.world().user(workroom.client).unwrap().login.clone();
    let invoice = workroom.invoices[0];
    let recorder = Recorder::to_dir(&path, "live", Rotation::default()).unwrap();
    let client = live
        .client_builder()
        .record(recorder.clone())
        .build()
        .unwrap();
    let first = live.sign_in(&client, &login).await.unwrap();
    first.revoke().await.unwrap();
    let refused = first.get_invoice(invoice).send().await.unwrap_err();
    assert_eq!(refused.status(), Some(401), "{refused}");
    let second = live.sign_in(&client, &login).await.unwrap();
    let accepted = second.get_invoice(invoice).send().await.unwrap();
    recorder.flush().unwrap();
    let statuses: Vec<u16> = recording::read(&path)
        .unwrap()
        .into_iter()
        .filter(|recorded| recorded.exchange.method == "pay/getInvoice")
        .map(|recorded| recorded.exchange.status)
        .collect();
    assert_eq!(statuses, [401, 200]);

    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(Replay::from_files([&path]).unwrap().strict());
    let session = fake.session(workroom.client).unwrap();
    let replayed = session.get_invoice(invoice).send().await.unwrap();
    assert_eq!(replayed, accepted);
    let count = fake.check_replay().unwrap();
    assert_eq!((count.loaded, count.answered, count.refused), (1, 1, 1));
    assert!(
        count
            .to_string()
            .contains(" (401 E_API_AUTH_SIGNATURE_MISMATCH)"),
        "{count}"
    );
}
