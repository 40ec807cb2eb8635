//! The typed-client judge of the OpenAPI export: an app in another language generates its types
//! from `spec/openapi.json` and the fake marketplace's real answers fit them.
//!
//! openapi-typescript (pinned with TypeScript by `xtask/openapi-ts/package-lock.json`, installed
//! by `cargo xtask openapi`'s code with `npm ci` under the target directory's `tmp/` on first
//! use) generates `schema.d.ts` with its default options. The fake's answers are recorded by its
//! own recorder (as `openapi_conformance.rs` and the wire audit record them) while the client
//! calls every data method over the seeded world's workrooms, in fixed spellings and in
//! spellings varied by seeds 1 and 2, and every documented error the fake can be led to, in
//! every error shape; the OAuth endpoints' successful answers, which a recording keeps no body
//! of (they hold tokens), are taken from a response hook of the client (the token secret shown
//! as `[redacted]`) and from the authorization page as the browser gets it. Each distinct answer
//! becomes one literal in `answers.ts`, assigned to its response's type
//! (`paths["/api/pay/getTimesheet"]["get"]["responses"][200]["content"]["application/json"]`;
//! a form answer as an object of its pairs, a text or HTML one as a string, an empty one as
//! `undefined`), and `tsc --noEmit --strict` must find no error in it.
//!
//! In the same tsc run, `planted.ts` holds real answers with one thing made wrong each (a string
//! where the schema says an object, a number where it says an error code, a status the export
//! does not document, a token answer without its secret): tsc must refuse each of them, on its
//! line, and nothing else, so the judge is seen to fail. Without Node.js and npm, or the npm
//! registry the first time, the test fails saying what to install; it never skips.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use marketplace_client::files::OutputDir;
use marketplace_client::oauth::signature::{
    OAuthParams, PairsRequest, SigningKey, authorization_header, nonce,
};
use marketplace_client::recording::{self, Recorder, Rotation};
use marketplace_fake::{Authorization, ErrorShape, FakeMarketplace, Spellings};
use serde_json::Value;
use xtask::codegen::workspace_root;
use xtask::openapi::{self, TscDiagnostic};

/// One answer of the fake: where it answered, with what status, media type and body.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Answer {
    path: String,
    http_method: String,
    status: u16,
    /// The media type, without parameters; `None` for an answer without a body.
    media: Option<String>,
    body: String,
}

/// Answers, each with what it was (a spelling, an error shape), for tsc's report.
type Answers = BTreeMap<Answer, String>;

fn media(content_type: Option<&str>) -> Option<String> {
    content_type
        .and_then(|kind| kind.split(';').next())
        .map(|kind| kind.trim().to_ascii_lowercase())
        .filter(|kind| !kind.is_empty())
}

/// Every data method over the seeded workrooms, as `sessions` (hourly, fixed-price,
/// screenshots) see them: every record, every page, past the last page.
async fn data_calls(fake: &FakeMarketplace, sessions: &[marketplace_client::Session; 3]) {
    let world = fake.world();
    let [hourly_session, fixed_session, screens_session] = sessions;
    let hourly = world.hourly_workroom();
    let s = hourly_session;
    s.get_timesheets_for_bid(hourly.bid_id)
        .items()
        .collect_all()
        .await
        .unwrap();
    s.get_timesheets_for_bid(hourly.bid_id)
        .page(99)
        .send()
        .await
        .unwrap();
    for id in &hourly.timesheets {
        s.get_timesheet_by_id(*id).send().await.unwrap();
    }
    s.get_timesheet_by_bid_id(hourly.bid_id)
        .send()
        .await
        .unwrap();
    for id in &hourly.invoices {
        s.get_billing(*id).send().await.unwrap();
        s.get_invoice(*id).send().await.unwrap();
    }
    for id in &hourly.payments {
        s.get_payment(*id).send().await.unwrap();
    }
    s.get_my_providers().send().await.unwrap();
    s.get_my_providers().items().collect_all().await.unwrap();
    s.get_my_providers()
        .bid_id(hourly.bid_id)
        .send()
        .await
        .unwrap();

    let fixed = world.fixed_price_workroom();
    let s = fixed_session;
    s.get_status_reports_for_bid(fixed.bid_id)
        .items()
        .collect_all()
        .await
        .unwrap();
    s.get_status_reports_for_bid(fixed.bid_id)
        .page(99)
        .send()
        .await
        .unwrap();
    for id in &fixed.status_reports {
        s.get_status_report_by_id(*id).send().await.unwrap();
    }
    s.get_status_report_by_bid_id(fixed.bid_id)
        .send()
        .await
        .unwrap();
    for id in &fixed.invoices {
        s.get_billing(*id).send().await.unwrap();
        s.get_invoice(*id).send().await.unwrap();
    }
    for id in &fixed.payments {
        s.get_payment(*id).send().await.unwrap();
    }

    let screens = world.screenshots_workroom();
    let s = screens_session;
    s.get_workview_details(screens.bid_id, screens.provider)
        .items()
        .collect_all()
        .await
        .unwrap();
    for day in &screens.screenshot_days {
        s.get_workview_details(screens.bid_id, screens.provider)
            .date(*day)
            .items()
            .collect_all()
            .await
            .unwrap();
    }
}

/// The documented errors the fake can be led to, in its current error shape: a refused ID of
/// every data method (400), a workroom of others (403), and unsigned calls (401).
async fn error_calls(fake: &FakeMarketplace, session: &marketplace_client::Session) {
    // The calls fail as they should; the recording keeps what the fake answered.
    let _ = session.get_timesheets_for_bid(1).send().await;
    let _ = session.get_status_reports_for_bid(1).send().await;
    let _ = session.get_timesheet_by_id(1).send().await;
    let _ = session.get_status_report_by_id(1).send().await;
    let _ = session.get_billing(1).send().await;
    let _ = session.get_invoice(1).send().await;
    let _ = session.get_payment(1).send().await;
    let _ = session.get_my_providers().bid_id(1).send().await;
    let _ = session.get_workview_details(1, 50003).send().await;
    let world = fake.world();
    let foreign = world
        .workrooms()
        .into_iter()
        .find(|w| w.client != 40001 && w.provider != 40001)
        .expect("a workroom of another client");
    let _ = session
        .get_workview_details(foreign.bid_id, foreign.provider)
        .send()
        .await;
    let http = fake.http_client();
    for method in marketplace_fake::data::served_methods() {
        http.get(format!("{}/api/{method}", fake.base_url()))
            .send()
            .await
            .unwrap();
    }
    for endpoint in ["getRequestToken", "getAccessToken", "revokeToken"] {
        http.post(format!("{}/oauth/{endpoint}", fake.base_url()))
            .send()
            .await
            .unwrap();
    }
    // A callback that is neither a URI nor `oob` (the client refuses to send one): 400.
    let url = url::Url::parse(&format!("{}/oauth/getRequestToken", fake.base_url())).unwrap();
    let demo = fake.credentials();
    let nonce = nonce().unwrap();
    let header = authorization_header(
        &PairsRequest::<&str, &str> {
            method: "POST",
            url: &url,
            query: &[],
        },
        &OAuthParams {
            consumer_key: &demo.consumer_key,
            token: Some(""),
            nonce: &nonce,
            timestamp: fake.clock().now().as_second(),
            callback: Some("not a callback"),
            verifier: None,
            version: Some("1.0"),
        },
        &SigningKey {
            consumer_secret: &demo.consumer_secret,
            token_secret: "",
        },
    );
    let refused = http
        .post(url)
        .header("Authorization", header)
        .send()
        .await
        .unwrap();
    // 400, or 200 in the error shape that answers errors with HTTP 200; a 401 would be the
    // signature refused.
    assert_ne!(
        refused.status(),
        401,
        "the fake refuses the callback, not the signature"
    );
}

/// A page of the fake's user-facing OAuth endpoint (which its recorder leaves to the browser),
/// as the browser gets it.
async fn page(fake: &FakeMarketplace, url: &str) -> Answer {
    let page = fake.http_client().get(url).send().await.unwrap();
    Answer {
        path: page.url().path().to_owned(),
        http_method: "GET".to_owned(),
        status: page.status().as_u16(),
        media: media(
            page.headers()
                .get("content-type")
                .and_then(|value| value.to_str().ok()),
        ),
        body: page.text().await.unwrap(),
    }
}

/// The fake's answers: data calls in three spellings, errors in every shape, the OAuth flow.
async fn answers_of_the_fake() -> Answers {
    let fake = FakeMarketplace::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let recorder = Recorder::to_dir(dir.path(), "typescript", Rotation::default()).unwrap();
    fake.record(recorder.clone());
    // The OAuth endpoints' successful answers, as the client sees them.
    let hooked: Arc<Mutex<Vec<Answer>>> = Arc::default();
    let seen = hooked.clone();
    let client = fake
        .client_builder()
        .on_response(move |response| {
            let body = response.body();
            if response.api_method().starts_with("oauth/")
                && response.status() == 200
                && let Some(body) = body
            {
                let content_type = response
                    .headers()
                    .get("content-type")
                    .and_then(|value| value.to_str().ok());
                seen.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(Answer {
                        path: response.url().path().to_owned(),
                        http_method: response.http_method().as_str().to_owned(),
                        status: response.status(),
                        media: media(content_type).filter(|_| !body.is_empty()),
                        body: String::from_utf8_lossy(body).into_owned(),
                    });
            }
        })
        .build()
        .unwrap();
    let world = fake.world();
    let login = |id: u64| world.user(id).unwrap().login.clone();
    let mut sessions = Vec::new();
    for workroom in [
        world.hourly_workroom(),
        world.fixed_price_workroom(),
        world.screenshots_workroom(),
    ] {
        sessions.push(
            fake.sign_in(&client, &login(workroom.client))
                .await
                .unwrap(),
        );
    }
    let sessions: [marketplace_client::Session; 3] = sessions.try_into().unwrap();

    for spelling in [
        Spellings::Fixed,
        Spellings::Varied { seed: 1 },
        Spellings::Varied { seed: 2 },
    ] {
        fake.set_spellings(spelling);
        data_calls(&fake, &sessions).await;
    }
    fake.set_spellings(Spellings::Fixed);
    for shape in ErrorShape::ALL {
        fake.set_error_shape(shape);
        error_calls(&fake, &sessions[0]).await;
    }
    fake.set_error_shape(ErrorShape::default());
    // The authorization page of a live request token (approved then, to see it was live), and
    // the page for an unknown one.
    let request = client.request_token(Some("oob")).await.unwrap();
    let url = client.authorization_url(&request);
    let live = page(&fake, url.as_str()).await;
    assert!(
        matches!(
            fake.authorize(url.as_str(), &login(40001), true)
                .await
                .unwrap(),
            Authorization::Verifier(_)
        ),
        "the page shown was a live one"
    );
    let mut unknown = url.clone();
    unknown.set_query(Some("oauth_token=unknown"));
    let unknown = page(&fake, unknown.as_str()).await;
    let [first, ..] = sessions;
    first.revoke().await.unwrap();
    recorder.flush().unwrap();

    let mut answers = Answers::new();
    answers.insert(
        live,
        "the authorization page, as the browser gets it".to_owned(),
    );
    answers.insert(unknown, "the page for an unknown request token".to_owned());
    for answer in hooked
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .drain(..)
    {
        answers
            .entry(answer)
            .or_insert_with(|| "an OAuth endpoint's answer, as the client sees it".to_owned());
    }
    for entry in recording::read(dir.path()).unwrap() {
        let exchange = entry.exchange;
        // An OAuth endpoint's success is recorded without its body: the hook has it.
        let (Some(body), None) = (exchange.body, exchange.note.as_deref()) else {
            continue;
        };
        let answer = Answer {
            path: exchange.path,
            http_method: exchange.http_method,
            status: exchange.status,
            media: media(exchange.headers.get("content-type").map(String::as_str)),
            body,
        };
        answers.entry(answer).or_insert_with(|| {
            format!(
                "{} {}, recorded by the fake",
                exchange.method, exchange.status
            )
        });
    }
    answers
}

/// The type of `answer`'s body in openapi-typescript's `paths`.
fn type_of(answer: &Answer) -> String {
    let mut type_ = format!(
        "paths[{}][{}][\"responses\"][{}][\"content\"]",
        Value::from(answer.path.as_str()),
        Value::from(answer.http_method.to_ascii_lowercase()),
        answer.status
    );
    if let Some(media) = &answer.media {
        type_.push_str(&format!("[{}]", Value::from(media.as_str())));
    }
    type_
}

/// `answer`'s body as a TypeScript literal: JSON as sent, form pairs as an object of strings,
/// any other text as a string, nothing as `undefined`.
fn literal(answer: &Answer) -> String {
    match answer.media.as_deref() {
        None if answer.body.is_empty() => "undefined".to_owned(),
        Some("application/json") => {
            serde_json::from_str::<Value>(&answer.body).unwrap_or_else(|error| {
                panic!("{answer:?} is not JSON: {error}");
            });
            answer.body.clone()
        }
        Some("application/x-www-form-urlencoded") => {
            // Each pair as a property, in order: a repeated name is a duplicate property,
            // which tsc refuses.
            let pairs: Vec<String> = url::form_urlencoded::parse(answer.body.as_bytes())
                .map(|(name, value)| {
                    format!(
                        "{}: {}",
                        Value::from(name.as_ref()),
                        Value::from(value.as_ref())
                    )
                })
                .collect();
            format!("{{ {} }}", pairs.join(", "))
        }
        _ => Value::from(answer.body.as_str()).to_string(),
    }
}

/// A TypeScript module assigning each of `literals` (what it is, its type, the literal) to a
/// constant; the label of each line the constants take.
fn module(literals: &[(String, String, String)]) -> (String, BTreeMap<usize, String>) {
    let mut text = String::from("import type { paths } from \"./schema\";\n\n");
    let mut labels = BTreeMap::new();
    for (index, (label, type_, literal)) in literals.iter().enumerate() {
        text.push_str(&format!("// {}\n", label.replace('\n', " ")));
        let first = text.lines().count() + 1;
        text.push_str(&format!(
            "export const answer{index}: {type_} = {literal};\n\n"
        ));
        for line in first..=text.lines().count() {
            labels.insert(line, label.clone());
        }
    }
    (text, labels)
}

/// Real answers with one thing made wrong each, which the types must refuse.
fn planted(answers: &Answers) -> Vec<(String, String, String)> {
    let find = |wanted: &dyn Fn(&Answer, &Value) -> bool| -> (Answer, Value) {
        answers
            .keys()
            .find_map(|answer| {
                let value = match answer.media.as_deref() {
                    Some("application/json") => serde_json::from_str(&answer.body).ok()?,
                    _ => Value::Null,
                };
                wanted(answer, &value).then(|| (answer.clone(), value))
            })
            .expect("the fake gave an answer to plant a wrong value in")
    };
    let mut planted = Vec::new();
    // A string where the schema says an object: a timesheet's `data`.
    let (answer, mut value) = find(&|answer, value| {
        answer.path == "/api/pay/getTimesheet" && answer.status == 200 && value["rcode"] == 1
    });
    value["data"] = Value::from("a timesheet");
    planted.push((
        "pay/getTimesheet 200 with `data` a string".to_owned(),
        type_of(&answer),
        value.to_string(),
    ));
    // A number where the schema says an error code (a string).
    let (answer, mut value) =
        find(&|answer, value| answer.status == 400 && value["error"]["code"].is_string());
    value["error"]["code"] = Value::from(400);
    planted.push((
        format!("{} 400 with `error.code` a number", answer.path),
        type_of(&answer),
        value.to_string(),
    ));
    // A status the export does not document.
    let (mut answer, value) = find(&|answer, value| answer.status == 200 && value["rcode"] == 1);
    answer.status = 418;
    planted.push((
        format!("{} 418, a status the export does not document", answer.path),
        type_of(&answer),
        value.to_string(),
    ));
    // A token answer without its secret (a required property).
    let (answer, _) =
        find(&|answer, _| answer.path == "/oauth/getAccessToken" && answer.status == 200);
    let mut without = answer.clone();
    without.body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            url::form_urlencoded::parse(answer.body.as_bytes())
                .filter(|(name, _)| name != "oauth_token_secret"),
        )
        .finish();
    planted.push((
        "oauth/getAccessToken 200 without oauth_token_secret".to_owned(),
        type_of(&without),
        literal(&without),
    ));
    planted
}

/// tsc's errors of `text` (whose lines `labels` names), each distinct message once with how
/// often it came, the answer of its first place and the text there.
fn findings(
    diagnostics: &[&TscDiagnostic],
    text: &str,
    labels: &BTreeMap<usize, String>,
) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut distinct: BTreeMap<&str, (usize, &TscDiagnostic)> = BTreeMap::new();
    for diagnostic in diagnostics {
        distinct
            .entry(diagnostic.message.as_str())
            .or_insert((0, diagnostic))
            .0 += 1;
    }
    distinct
        .into_iter()
        .map(|(message, (count, first))| {
            // A place in another file (`schema.d.ts`) has no answer to show.
            let line = (first.file == "answers.ts")
                .then_some(first.line)
                .and_then(|line| line.checked_sub(1))
                .and_then(|index| lines.get(index))
                .copied()
                .unwrap_or_default();
            // Around the column (UTF-16 units; the answers are mostly ASCII).
            let at = first.column.saturating_sub(1);
            let around: String = line
                .chars()
                .skip(at.saturating_sub(120))
                .take(240)
                .collect();
            format!(
                "{count} times: {message}\n  first at {}({},{}): {}\n  …{around}…",
                first.file,
                first.line,
                first.column,
                labels
                    .get(&first.line)
                    .filter(|_| first.file == "answers.ts")
                    .map_or("", String::as_str)
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Every operation of the export and its documented statuses: `(path, method) -> statuses`.
fn operations(root: &Path) -> BTreeMap<(String, String), BTreeSet<u16>> {
    let text = std::fs::read_to_string(openapi::export_path(root)).unwrap();
    let export: Value = serde_json::from_str(&text).unwrap();
    let mut operations = BTreeMap::new();
    for (path, item) in export["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Some(responses) = operation["responses"].as_object() else {
                continue;
            };
            operations.insert(
                (path.clone(), method.clone()),
                responses
                    .keys()
                    .map(|status| status.parse().unwrap())
                    .collect(),
            );
        }
    }
    operations
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_types_of_the_export_take_the_fakes_answers_and_refuse_planted_ones() {
    let root = workspace_root();
    let answers = answers_of_the_fake().await;

    // Every operation answered 200, and every documented error status answered but the 400s
    // of the token endpoints' reading of the request (a body too large, …).
    let mut unanswered = Vec::new();
    for ((path, method), statuses) in operations(&root) {
        for status in statuses {
            let answered = answers.keys().any(|answer| {
                answer.path == path
                    && answer.http_method.eq_ignore_ascii_case(&method)
                    && answer.status == status
            });
            if !answered {
                unanswered.push(format!("{method} {path} {status}"));
            }
        }
    }
    assert_eq!(
        unanswered,
        [
            "post /oauth/getAccessToken 400",
            "post /oauth/revokeToken 400"
        ],
        "operations and statuses the fake's answers here do not show"
    );

    let literals: Vec<(String, String, String)> = answers
        .iter()
        .map(|(answer, label)| {
            let kind = answer.media.as_deref().unwrap_or("no body");
            (
                format!("{label} ({kind})"),
                type_of(answer),
                literal(answer),
            )
        })
        .collect();
    let planted = planted(&answers);
    let (answers_ts, answer_labels) = module(&literals);
    let (planted_ts, planted_labels) = module(&planted);
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::open(dir.path()).unwrap();
    out.write(
        "schema.d.ts",
        openapi::typescript_types(&root).unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap();
    out.write("answers.ts", answers_ts.as_str()).unwrap();
    out.write("planted.ts", planted_ts.as_str()).unwrap();
    let report = openapi::tsc_strict(&root, dir.path(), &["answers.ts", "planted.ts"])
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "tsc: {} answers of the fake, {} planted wrong values, {} errors",
        literals.len(),
        planted.len(),
        report.diagnostics.len()
    );

    let refused: Vec<&TscDiagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| d.file != "planted.ts")
        .collect();
    if !refused.is_empty() {
        // The files stay for a look: tsc's findings are by line and column.
        let kept = dir.keep();
        panic!(
            "tsc --strict refuses answers of the fake against openapi-typescript's types of \
             spec/openapi.json: {} errors; the files are in {}.\n{}",
            refused.len(),
            kept.display(),
            findings(&refused, &answers_ts, &answer_labels)
        );
    }
    let refused_lines: BTreeSet<&String> = report
        .diagnostics
        .iter()
        .filter(|d| d.file == "planted.ts")
        .filter_map(|d| planted_labels.get(&d.line))
        .collect();
    for (label, _, _) in &planted {
        assert!(
            refused_lines.contains(label),
            "tsc accepted a planted wrong value: {label}\n{}",
            report.output
        );
    }
    assert_eq!(
        report.diagnostics.len(),
        report
            .diagnostics
            .iter()
            .filter(|d| d.file == "planted.ts" && planted_labels.contains_key(&d.line))
            .count(),
        "tsc's errors are the planted ones only:\n{}",
        report.output
    );
}
