//! The fake marketplace's answers validated against the OpenAPI export (`spec/openapi.json`)
//! by a JSON Schema validator this project did not write (the `jsonschema` crate, draft
//! 2020-12, as OpenAPI 3.1 has it).
//!
//! A fake over plain HTTP records everything it answers (its own recorder, as CI records the
//! whole suite): signed calls of every method (each variant of answer the seeded world has,
//! paging past the last page, parameters above the cap), the errors the spec documents and the
//! ones it does not (an invalid parameter), a call without a signature, and the OAuth
//! endpoints; in fixed spellings and in spellings varied by seeds 1 to 3 (and by
//! `MARKETPLACE_FAKE_SPELLING_SEED` when set), and with the data-call errors in every error
//! shape of the fake. Every recorded answer must have a documented status for its operation,
//! a documented media type, and a body valid against that response's schema. The committed
//! recording of `tests/app` is held to the export the same way.

use std::collections::HashMap;
use std::path::Path;

use jsonschema::Validator;
use marketplace_client::oauth::signature::{
    OAuthParams, PairsRequest, SigningKey, authorization_header, nonce,
};
use marketplace_client::recording::{self, Recorder, Rotation};
use marketplace_tests::fake::{ErrorShape, FakeMarketplace, ServiceError, Spellings};
use serde_json::Value;

const EXPORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.json");
const APP_RECORDINGS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/app/tests/recordings");

const CLIENT: u64 = 40001;
const PROVIDER: u64 = 50002;

/// The export, and a validator per response schema (compiled once).
struct Judge {
    doc: Value,
    validators: HashMap<String, Validator>,
    checked: usize,
}

/// A JSON pointer's segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

impl Judge {
    fn new() -> Judge {
        let text = std::fs::read_to_string(EXPORT).expect("spec/openapi.json reads");
        Judge {
            doc: serde_json::from_str(&text).expect("the export is JSON"),
            validators: HashMap::new(),
            checked: 0,
        }
    }

    /// Whether the answer `status`, `content_type`, `body` to `http_method path` is one the
    /// export documents; why not otherwise.
    fn check(
        &mut self,
        http_method: &str,
        path: &str,
        status: u16,
        content_type: Option<&str>,
        body: Option<&str>,
    ) -> Result<(), String> {
        self.checked += 1;
        let http_method = http_method.to_ascii_lowercase();
        let operation = &self.doc["paths"][path][&http_method];
        if operation.is_null() {
            return Err(format!("{http_method} {path}: no such operation"));
        }
        let status_key = status.to_string();
        let response = &operation["responses"][&status_key];
        if response.is_null() {
            return Err(format!(
                "{http_method} {path}: status {status} is not documented"
            ));
        }
        let Some(content) = response.get("content") else {
            return match body {
                None | Some("") => Ok(()),
                Some(body) => Err(format!(
                    "{http_method} {path} {status}: a body where none is documented: {body}"
                )),
            };
        };
        let media = content_type
            .and_then(|kind| kind.split(';').next())
            .map(str::trim)
            .unwrap_or_default()
            .to_ascii_lowercase();
        if content.get(&media).is_none() {
            return Err(format!(
                "{http_method} {path} {status}: media type {media:?} is not documented"
            ));
        }
        // A recording keeps no body of a token answer (it holds tokens): the status and the
        // media type are all there is to check.
        let Some(body) = body else { return Ok(()) };
        let instance = match media.as_str() {
            "application/json" => serde_json::from_str(body)
                .map_err(|error| format!("{http_method} {path} {status}: not JSON: {error}"))?,
            "application/x-www-form-urlencoded" => Value::Object(
                url::form_urlencoded::parse(body.as_bytes())
                    .map(|(name, value)| (name.into_owned(), Value::String(value.into_owned())))
                    .collect(),
            ),
            _ => Value::String(body.to_owned()),
        };
        let mut pointer = format!(
            "#/paths/{}/{http_method}/responses/{status_key}/content/{}/schema",
            escape(path),
            escape(&media)
        );
        // A success is judged by the envelope alone, the first alternative of a 200 (the
        // other needs an `rcode` other than 1), so that a failure names the field.
        if status == 200 && instance["rcode"] == 1 && content[&media]["schema"]["anyOf"].is_array()
        {
            pointer.push_str("/anyOf/0");
        }
        let validator = match self.validators.get(&pointer) {
            Some(validator) => validator,
            None => {
                // The whole document is the root, so that its `$ref`s resolve; an OpenAPI
                // document's own keys are not JSON Schema keywords and are ignored.
                let mut root = self.doc.clone();
                root["$ref"] = Value::String(pointer.clone());
                let validator = jsonschema::draft202012::new(&root)
                    .unwrap_or_else(|error| panic!("{pointer} does not compile: {error}"));
                self.validators.entry(pointer.clone()).or_insert(validator)
            }
        };
        let errors: Vec<String> = validator
            .iter_errors(&instance)
            .take(5)
            .map(|error| {
                let message: String = error.to_string().chars().take(300).collect();
                format!("  at {}: {message}", error.instance_path())
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{http_method} {path} {status} ({media}) is not valid against {pointer}:\n{}\nbody: {}",
                errors.join("\n"),
                body.chars().take(300).collect::<String>()
            ))
        }
    }
}

/// One data call: the user, the method and the query.
type Call = (u64, &'static str, Vec<(&'static str, String)>);

/// Calls showing every method, the variants of answer the seeded world has, and its errors.
fn calls(fake: &FakeMarketplace) -> Vec<Call> {
    let q = |pairs: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
        pairs.iter().map(|(n, v)| (*n, (*v).to_owned())).collect()
    };
    let workrooms = fake.world().workrooms();
    let foreign = workrooms
        .iter()
        .find(|w| w.client != CLIENT && w.provider != CLIENT)
        .expect("a workroom of another client");
    let outsider = workrooms
        .iter()
        .map(|w| w.provider)
        .find(|p| *p != 50003)
        .expect("another provider");
    vec![
        (CLIENT, "pay/getTimesheetsForBid", q(&[("bidId", "310001")])),
        (
            CLIENT,
            "pay/getTimesheetsForBid",
            q(&[("bidId", "310001"), ("page", "3")]),
        ),
        (
            CLIENT,
            "pay/getTimesheetsForBid",
            q(&[("bidId", "310001"), ("page", "99")]),
        ),
        (
            CLIENT,
            "pay/getTimesheetsForBid",
            q(&[("bidId", "310001"), ("rpp", "1000")]),
        ),
        (
            CLIENT,
            "pay/getTimesheetsForBid",
            q(&[("bidId", "310001"), ("rpp", "0")]),
        ),
        (CLIENT, "pay/getTimesheetsForBid", q(&[("bidId", "1")])),
        (
            CLIENT,
            "pay/getStatusReportsForBid",
            q(&[("bidId", "310002")]),
        ),
        (
            CLIENT,
            "pay/getStatusReportsForBid",
            q(&[("bidId", "310002"), ("page", "abc")]),
        ),
        (CLIENT, "pay/getTimesheet", q(&[("id", "880104")])),
        (CLIENT, "pay/getTimesheet", q(&[("bidId", "310001")])),
        (CLIENT, "pay/getTimesheet", q(&[])),
        (PROVIDER, "pay/getStatusReport", q(&[("id", "990202")])),
        (CLIENT, "pay/getStatusReport", q(&[("bidId", "310002")])),
        (CLIENT, "pay/getStatusReport", q(&[("id", "0")])),
        (CLIENT, "pay/getBilling", q(&[("id", "9003")])),
        (CLIENT, "pay/getBilling", q(&[("id", "9001")])),
        (CLIENT, "pay/getBilling", q(&[("id", "1")])),
        (CLIENT, "pay/getInvoice", q(&[("id", "9001")])),
        (CLIENT, "pay/getInvoice", q(&[("id", "9003")])),
        (CLIENT, "pay/getPayment", q(&[("id", "7001")])),
        (CLIENT, "pay/getPayment", q(&[])),
        (CLIENT, "manage/getMyProviders", q(&[])),
        (CLIENT, "manage/getMyProviders", q(&[("bidId", "310001")])),
        (
            CLIENT,
            "manage/getMyProviders",
            q(&[("rpp", "2"), ("page", "2")]),
        ),
        (CLIENT, "manage/getMyProviders", q(&[("bidId", "1")])),
        (
            CLIENT,
            "workroom/getWorkviewDetails",
            q(&[("bidId", "310003"), ("userId", "50003")]),
        ),
        (
            CLIENT,
            "workroom/getWorkviewDetails",
            q(&[
                ("bidId", "310003"),
                ("userId", "50003"),
                ("rpp", "1"),
                ("page", "2"),
            ]),
        ),
        (
            CLIENT,
            "workroom/getWorkviewDetails",
            q(&[
                ("bidId", "310003"),
                ("userId", "50003"),
                ("date", "01-JAN-20"),
            ]),
        ),
        (
            CLIENT,
            "workroom/getWorkviewDetails",
            vec![
                ("bidId", foreign.bid_id.to_string()),
                ("userId", "50003".to_owned()),
            ],
        ),
        (
            CLIENT,
            "workroom/getWorkviewDetails",
            vec![
                ("bidId", "310003".to_owned()),
                ("userId", outsider.to_string()),
            ],
        ),
        (
            CLIENT,
            "workroom/getWorkviewDetails",
            q(&[("bidId", "0"), ("userId", "50003")]),
        ),
        (
            CLIENT,
            "workroom/getWorkviewDetails",
            q(&[
                ("bidId", "310003"),
                ("userId", "50003"),
                ("date", "2026-01-05"),
            ]),
        ),
    ]
}

/// Sends `call` signed with `user`'s access token (or unsigned) and returns the status.
async fn send(
    fake: &FakeMarketplace,
    tokens: &HashMap<u64, (String, String)>,
    call: &Call,
    signed: bool,
) -> u16 {
    let (user, method, query) = call;
    let mut url = url::Url::parse(&format!("{}/api/{method}", fake.base_url())).unwrap();
    if !query.is_empty() {
        url.query_pairs_mut()
            .extend_pairs(query.iter().map(|(n, v)| (*n, v.as_str())));
    }
    let mut request = fake.http_client().get(url.clone());
    if signed {
        let (token, secret) = &tokens[user];
        let demo = fake.credentials();
        let nonce = nonce().unwrap();
        let header = authorization_header(
            &PairsRequest {
                method: "GET",
                url: &url,
                query: query.as_slice(),
            },
            &OAuthParams {
                consumer_key: &demo.consumer_key,
                token: Some(token),
                nonce: &nonce,
                timestamp: fake.clock().now().as_second(),
                callback: None,
                verifier: None,
                version: Some("1.0"),
            },
            &SigningKey {
                consumer_secret: &demo.consumer_secret,
                token_secret: secret,
            },
        );
        request = request.header("Authorization", header);
    }
    request
        .send()
        .await
        .expect("the fake answers")
        .status()
        .as_u16()
}

/// Every recorded answer of `dir`, judged; the failures.
fn judge_recording(judge: &mut Judge, dir: &Path) -> Vec<String> {
    let recorded =
        recording::read(dir).unwrap_or_else(|error| panic!("{}: {error}", dir.display()));
    assert!(!recorded.is_empty(), "{} holds no exchange", dir.display());
    recorded
        .iter()
        // Injected faults and replayed answers are not the fake's own answers; its refusals of
        // requests the spec does not describe (noted "outside the API", a parameter out of
        // bounds among them) are, and the export documents them.
        .filter(|entry| {
            entry
                .exchange
                .note
                .as_deref()
                .is_none_or(|note| note.starts_with("outside the API"))
        })
        .filter_map(|entry| {
            let exchange = &entry.exchange;
            judge
                .check(
                    &exchange.http_method,
                    &exchange.path,
                    exchange.status,
                    exchange.headers.get("content-type").map(String::as_str),
                    exchange.body.as_deref(),
                )
                .err()
                .map(|error| format!("{}:{}: {error}", entry.file.display(), entry.line))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fakes_answers_are_valid_against_the_export() {
    let mut spellings = vec![
        Spellings::Fixed,
        Spellings::Varied { seed: 1 },
        Spellings::Varied { seed: 2 },
        Spellings::Varied { seed: 3 },
    ];
    if let Ok(from_env @ Spellings::Varied { .. }) = Spellings::from_env() {
        spellings.push(from_env);
    }
    let fake = FakeMarketplace::start_plain_http().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let recorder = Recorder::to_dir(dir.path(), "openapi", Rotation::default()).unwrap();
    fake.record(recorder.clone());
    let mut tokens = HashMap::new();
    for user in [CLIENT, PROVIDER] {
        let session = fake.session(user).unwrap();
        let token = session.token();
        tokens.insert(
            user,
            (token.token().to_owned(), token.secret().expose().to_owned()),
        );
    }
    let calls = calls(&fake);
    let mut statuses = std::collections::BTreeSet::new();
    for spelling in spellings {
        fake.set_spellings(spelling);
        for call in &calls {
            statuses.insert(send(&fake, &tokens, call, true).await);
        }
    }
    // Every error shape of the fake, for a documented error and a refused signature.
    for shape in ErrorShape::ALL {
        fake.set_error_shape(shape);
        statuses.insert(send(&fake, &tokens, &calls[16], true).await);
        statuses.insert(send(&fake, &tokens, &calls[0], false).await);
    }
    fake.set_error_shape(ErrorShape::default());
    // The OAuth endpoints: a request token (signed as the flow signs it), and refusals.
    let client = fake
        .client_builder()
        .allow_plain_http_oauth_on_loopback()
        .build()
        .unwrap();
    client
        .request_token(Some("oob"))
        .await
        .expect("a request token");
    for endpoint in ["getRequestToken", "getAccessToken", "revokeToken"] {
        let answer = fake
            .http_client()
            .post(format!("{}/oauth/{endpoint}", fake.base_url()))
            .send()
            .await
            .unwrap();
        statuses.insert(answer.status().as_u16());
    }
    assert_eq!(
        statuses,
        [200, 400, 401, 403].into(),
        "the calls show every status the data methods answer"
    );
    recorder.flush().unwrap();

    let mut judge = Judge::new();
    let failures = judge_recording(&mut judge, dir.path());
    assert!(
        failures.is_empty(),
        "{} of {} answers disagree with spec/openapi.json:\n{}",
        failures.len(),
        judge.checked,
        failures.join("\n\n")
    );
    assert!(judge.checked > 150, "{} answers checked", judge.checked);
}

/// Each error shape the fake can answer in, rendered directly, is what the export documents for
/// an error of a data method; the one that answers HTTP 200 is a documented 200.
#[test]
fn every_error_shape_is_documented() {
    let mut judge = Judge::new();
    let error = ServiceError::new(
        "pay/getTimesheet",
        400,
        "E_VALIDATION_INVALID_ID",
        "validation",
        "Invalid id 7",
    );
    for shape in ErrorShape::ALL {
        let (status, content_type, body) = error.render(shape);
        judge
            .check(
                "GET",
                "/api/pay/getTimesheet",
                status,
                Some(content_type),
                Some(&body),
            )
            .unwrap_or_else(|why| panic!("{shape:?}: {why}"));
    }
}

/// A planted disagreement is found: a field of the wrong JSON kind, a missing required field,
/// an undocumented status, an `api` other than the delivered one.
#[test]
fn the_judge_finds_a_planted_disagreement() {
    let mut judge = Judge::new();
    let good = r#"{"api":"pay/getBilling","apiVersion":1,"rcode":1,"data":{"bidDetails":null}}"#;
    assert!(
        judge
            .check(
                "GET",
                "/api/pay/getPayment",
                200,
                Some("application/json"),
                Some(good)
            )
            .is_err()
    );
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/pay/getPayment.json"
    ))
    .unwrap();
    judge
        .check(
            "GET",
            "/api/pay/getPayment",
            200,
            Some("application/json"),
            Some(&text),
        )
        .expect("the reference's example of pay/getPayment is valid");
    let wrong_api = text.replacen("pay/getBilling", "pay/getPayment", 1);
    assert!(
        judge
            .check(
                "GET",
                "/api/pay/getPayment",
                200,
                Some("application/json"),
                Some(&wrong_api)
            )
            .is_err()
    );
    assert!(
        judge
            .check(
                "GET",
                "/api/pay/getPayment",
                418,
                Some("application/json"),
                Some("{}")
            )
            .is_err()
    );
    assert!(
        judge
            .check(
                "GET",
                "/api/pay/getPayment",
                400,
                Some("application/xml"),
                Some("<e/>")
            )
            .is_err()
    );
}

#[test]
fn the_committed_recording_of_the_app_is_valid_against_the_export() {
    let mut judge = Judge::new();
    let failures = judge_recording(&mut judge, Path::new(APP_RECORDINGS));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
