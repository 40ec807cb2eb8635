//! `cargo xtask wire-audit` against traffic we did not write by hand: the fake marketplace's
//! answers, recorded on both sides (the fake's recorder and the client's), must agree with the
//! spec (no finding); and the same recording with one drift of each kind planted in it must
//! give exactly that finding, at the spec line of the field, enum, method or error it is about,
//! with the proposal the evidence supports, which `--propose` writes and spec-diff judges.
//!
//! The whole end-to-end suite is audited the same way in CI (`.ci/run` records it with
//! `MARKETPLACE_FAKE_RECORD_DIR`); this test keeps a sample of every method and every error
//! shape inside `cargo test`.

use std::path::{Path, PathBuf};

use marketplace_client::files::OutputDir;
use marketplace_client::recording::{self, Exchange, Recorder, Rotation};
use marketplace_fake::{ErrorShape, FakeMarketplace};
use serde_json::{Value, json};
use xtask::wire_audit::{self, Options};

use marketplace_codegen::wire_audit::{Finding, FindingKind};

mod tree;
use tree::{Node, snapshot};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Records the fake's answers (`fake/`) and the client's view of them (`client/`) for a
/// sample of every data method, the OAuth flow and a documented error in every error shape.
async fn record_fake_traffic(dir: &Path) {
    let fake = FakeMarketplace::start().await.unwrap();
    let server = Recorder::to_dir(dir.join("fake"), "fake", Rotation::default()).unwrap();
    let client_side = Recorder::to_dir(dir.join("client"), "client", Rotation::default()).unwrap();
    fake.record(server.clone());
    let client = fake
        .client_builder()
        .record(client_side.clone())
        .build()
        .unwrap();
    let world = fake.world();
    let login = |id: u64| world.user(id).unwrap().login.clone();

    let hourly = world.hourly_workroom();
    let session = fake.sign_in(&client, &login(hourly.client)).await.unwrap();
    session
        .get_timesheets_for_bid(hourly.bid_id)
        .items()
        .collect_all()
        .await
        .unwrap();
    for id in &hourly.timesheets {
        session.get_timesheet_by_id(*id).send().await.unwrap();
    }
    session
        .get_timesheet_by_bid_id(hourly.bid_id)
        .send()
        .await
        .unwrap();
    for id in &hourly.invoices {
        session.get_billing(*id).send().await.unwrap();
        session.get_invoice(*id).send().await.unwrap();
    }
    for id in &hourly.payments {
        session.get_payment(*id).send().await.unwrap();
    }
    session.get_my_providers().send().await.unwrap();
    session
        .get_my_providers()
        .bid_id(hourly.bid_id)
        .send()
        .await
        .unwrap();

    let fixed = world.fixed_price_workroom();
    let session = fake.sign_in(&client, &login(fixed.client)).await.unwrap();
    session
        .get_status_reports_for_bid(fixed.bid_id)
        .items()
        .collect_all()
        .await
        .unwrap();
    for id in &fixed.status_reports {
        session.get_status_report_by_id(*id).send().await.unwrap();
    }
    session
        .get_status_report_by_bid_id(fixed.bid_id)
        .send()
        .await
        .unwrap();

    let screens = world.screenshots_workroom();
    let session = fake.sign_in(&client, &login(screens.client)).await.unwrap();
    session
        .get_workview_details(screens.bid_id, screens.provider)
        .items()
        .collect_all()
        .await
        .unwrap();

    // A documented error (an ID that does not exist) in every shape the fake can answer in.
    for shape in ErrorShape::ALL {
        fake.set_error_shape(shape);
        let error = session.get_timesheet_by_id(1).send().await.unwrap_err();
        assert!(error.code().is_some(), "{shape:?}: {error}");
    }
    client_side.flush().unwrap();
    server.flush().unwrap();
}

fn audit(recordings: &[&Path], propose: bool) -> wire_audit::Outcome {
    let options = Options {
        recordings: recordings.iter().map(|p| p.to_path_buf()).collect(),
        spec: PathBuf::from("spec"),
        propose,
        propose_into: None,
    };
    wire_audit::run(&root(), &options).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_fakes_traffic_agrees_with_the_spec_on_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    record_fake_traffic(dir.path()).await;
    for side in ["fake", "client"] {
        let outcome = audit(&[&dir.path().join(side)], false);
        assert!(
            outcome.audit.findings.is_empty(),
            "{side}: the fake and the spec disagree:\n{}",
            outcome.report
        );
        let coverage = &outcome.audit.coverage;
        assert_eq!(
            coverage.unrecorded_methods,
            Vec::<String>::new(),
            "{side}: spec methods the recorded traffic never calls: add a call of each to \
             record_fake_traffic in this file"
        );
        assert!(
            coverage.errors >= ErrorShape::ALL.len(),
            "{side}: {coverage:?}"
        );
        assert!(outcome.report.contains("no finding"), "{}", outcome.report);
    }
    // Both sides saw the same answers: the client's lines hold the fake's bodies.
    let bodies = |side: &str| -> Vec<(String, u16, Option<String>)> {
        let mut bodies: Vec<_> = recording::read(dir.path().join(side))
            .unwrap()
            .into_iter()
            .map(|r| (r.exchange.method, r.exchange.status, r.exchange.body))
            .filter(|(method, _, _)| !method.starts_with("oauth/"))
            .collect();
        bodies.sort();
        bodies
    };
    assert_eq!(bodies("fake"), bodies("client"));
}

#[tokio::test(flavor = "multi_thread")]
async fn no_credential_reaches_a_recording() {
    let dir = tempfile::tempdir().unwrap();
    record_fake_traffic(dir.path()).await;
    let mut text = String::new();
    for side in ["fake", "client"] {
        for entry in std::fs::read_dir(dir.path().join(side)).unwrap() {
            text.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
    }
    for word in [
        "oauth_token",
        "oauth_signature",
        "oauth_verifier",
        "oauth_consumer_key",
    ] {
        assert!(!text.contains(word), "{word} in a recording");
    }
    assert!(text.contains("pay/getTimesheet"));
}

/// The recording of `dir`'s fake side with `plant` applied to each exchange, written as a
/// file of its own.
fn planted(dir: &Path, name: &str, mut plant: impl FnMut(&mut Exchange)) -> PathBuf {
    let mut lines = String::new();
    for recorded in recording::read(dir.join("fake")).unwrap() {
        let mut exchange = recorded.exchange;
        plant(&mut exchange);
        lines.push_str(&exchange.to_line());
        lines.push('\n');
    }
    let path = dir.join(format!("{name}.jsonl"));
    OutputDir::open(dir)
        .unwrap()
        .write(format!("{name}.jsonl"), lines)
        .unwrap();
    path
}

/// Applies `edit` to the JSON body of every successful answer of `method`.
fn edit_body(exchange: &mut Exchange, method: &str, edit: impl Fn(&mut Value)) {
    if exchange.method != method || exchange.status != 200 {
        return;
    }
    let Some(body) = &exchange.body else { return };
    let mut json: Value = serde_json::from_str(body).unwrap();
    if json["rcode"] != json!(1) {
        return;
    }
    edit(&mut json);
    exchange.body = Some(json.to_string());
}

/// How many successful answers of `method` the base recording holds.
fn answers(dir: &Path, method: &str) -> usize {
    recording::read(dir.join("fake"))
        .unwrap()
        .iter()
        .filter(|r| r.exchange.method == method && r.exchange.status == 200)
        .filter(|r| {
            r.exchange
                .body
                .as_deref()
                .is_some_and(|b| b.contains("\"rcode\":1"))
        })
        .count()
}

/// How many items the successful answers of `method` list under `data.<key>` (an array or
/// an index-keyed object).
fn list_items(dir: &Path, method: &str, key: &str) -> usize {
    recording::read(dir.join("fake"))
        .unwrap()
        .iter()
        .filter(|r| r.exchange.method == method && r.exchange.status == 200)
        .filter_map(|r| serde_json::from_str::<Value>(r.exchange.body.as_deref()?).ok())
        .map(|json| match &json["data"][key] {
            Value::Array(items) => items.len(),
            Value::Object(items) => items.len(),
            _ => 0,
        })
        .sum()
}

/// The line of `key:` (indented by `indent`) in `file`, after the first line equal to
/// `after`: found in the text, not with the audit's own location index.
fn spec_line(file: &str, after: &[&str], key: &str) -> usize {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let mut from = 0;
    let lines: Vec<&str> = text.lines().collect();
    for anchor in after {
        from += lines[from..]
            .iter()
            .position(|line| line == anchor)
            .unwrap_or_else(|| panic!("{anchor:?} not in {file}"));
    }
    from + lines[from..]
        .iter()
        .position(|line| line.trim_start().starts_with(&format!("{key}:")))
        .unwrap_or_else(|| panic!("{key}: not after {after:?} in {file}"))
        + 1
}

/// The one finding of the audit, after checking there is exactly one.
fn only_finding(outcome: &wire_audit::Outcome) -> &Finding {
    assert_eq!(
        outcome.audit.findings.len(),
        1,
        "expected one finding:\n{}",
        outcome.report
    );
    &outcome.audit.findings[0]
}

/// Checks a finding's kind, spec place, JSON path and count, and returns its proposal text.
fn check(
    finding: &Finding,
    kind: FindingKind,
    (file, line, spec_path): (&str, usize, &str),
    (json_path, count): (&str, usize),
) -> Option<String> {
    assert_eq!(finding.kind, kind, "{finding}");
    assert_eq!(finding.spec.file, file, "{finding}");
    assert_eq!(
        finding.spec.location.map(|at| at.line),
        Some(line),
        "{finding}"
    );
    assert_eq!(finding.spec.path, spec_path, "{finding}");
    assert_eq!(finding.json_path, json_path, "{finding}");
    assert_eq!(finding.count, count, "{finding}");
    finding.proposal.as_ref().map(ToString::to_string)
}

const TIMESHEET: &str = "pay/getTimesheet";

#[tokio::test(flavor = "multi_thread")]
async fn each_planted_drift_is_exactly_its_finding_with_its_proposal() {
    let dir = tempfile::tempdir().unwrap();
    record_fake_traffic(dir.path()).await;
    let dir = dir.path();
    let sheets = answers(dir, TIMESHEET);
    assert!(sheets > 1);
    let timesheet_field = |key: &str| spec_line("spec/pay.yaml", &["  Timesheet:"], key);

    // A field the spec does not know: proposed as a new, optional decimal field.
    let file = planted(dir, "unknown-field", |e| {
        edit_body(e, TIMESHEET, |json| {
            json["data"]["timesheet"]["overtimeHours"] = json!(2.5)
        })
    });
    let outcome = audit(&[&file], false);
    let proposal = check(
        only_finding(&outcome),
        FindingKind::UnknownField,
        (
            "spec/pay.yaml",
            timesheet_field("fields"),
            "types.Timesheet.fields",
        ),
        ("data.timesheet.overtimeHours", sheets),
    );
    let proposal = proposal.expect("a new field");
    assert!(
        proposal.starts_with("add types.Timesheet.fields.overtimeHours {type: decimal"),
        "{proposal}"
    );
    assert!(proposal.contains("optional: Seen in"), "{proposal}");

    // A field every list answer has and no single-timesheet answer: absent_in that method.
    let file = planted(dir, "missing-field", |e| {
        edit_body(e, TIMESHEET, |json| {
            json["data"]["timesheet"]
                .as_object_mut()
                .unwrap()
                .remove("client");
        })
    });
    let outcome = audit(&[&file], false);
    let proposal = check(
        only_finding(&outcome),
        FindingKind::MissingField,
        (
            "spec/pay.yaml",
            timesheet_field("client"),
            "types.Timesheet.fields.client",
        ),
        ("data.timesheet.client", sheets),
    );
    assert_eq!(
        proposal.as_deref(),
        Some(
            "types.Timesheet.fields.client: absent_in: [pay/getTimesheet] \
             (removing optional, only_in)"
        )
    );

    // A DD-MON-YY day where the spec says epoch seconds for this method.
    let file = planted(dir, "undeclared-encoding", |e| {
        edit_body(e, TIMESHEET, |json| {
            json["data"]["timesheet"]["startDate"] = json!("05-JAN-26")
        })
    });
    let outcome = audit(&[&file], false);
    let proposal = check(
        only_finding(&outcome),
        FindingKind::UndeclaredEncoding,
        (
            "spec/pay.yaml",
            timesheet_field("startDate"),
            "types.Timesheet.fields.startDate",
        ),
        ("data.timesheet.startDate", sheets),
    );
    assert_eq!(
        proposal.as_deref(),
        Some("types.Timesheet.fields.startDate: encoding: dmy")
    );

    // A status the open enum does not list.
    let file = planted(dir, "unlisted-enum-value", |e| {
        edit_body(e, TIMESHEET, |json| {
            json["data"]["timesheet"]["status"] = json!("Approved")
        })
    });
    let outcome = audit(&[&file], false);
    let proposal = check(
        only_finding(&outcome),
        FindingKind::UnlistedEnumValue,
        (
            "spec/api.yaml",
            spec_line("spec/api.yaml", &["  ReportStatus:"], "values"),
            "enums.ReportStatus.values",
        ),
        ("data.timesheet.status", sheets),
    );
    assert_eq!(
        proposal.as_deref(),
        Some("add \"Approved\" to enums.ReportStatus.values")
    );

    // null where the spec does not say nullable.
    let file = planted(dir, "unexpected-null", |e| {
        edit_body(e, TIMESHEET, |json| {
            json["data"]["timesheet"]["planComment"] = Value::Null
        })
    });
    let outcome = audit(&[&file], false);
    let proposal = check(
        only_finding(&outcome),
        FindingKind::UnexpectedNull,
        (
            "spec/pay.yaml",
            timesheet_field("planComment"),
            "types.Timesheet.fields.planComment",
        ),
        ("data.timesheet.planComment", sheets),
    );
    assert_eq!(
        proposal.as_deref(),
        Some("types.Timesheet.fields.planComment: nullable: true")
    );

    // An empty string where a decimal is due.
    let file = planted(dir, "unexpected-empty", |e| {
        edit_body(e, TIMESHEET, |json| {
            json["data"]["timesheet"]["totalHours"] = json!("")
        })
    });
    let outcome = audit(&[&file], false);
    let finding = only_finding(&outcome);
    check(
        finding,
        FindingKind::UnexpectedEmpty,
        (
            "spec/pay.yaml",
            timesheet_field("totalHours"),
            "types.Timesheet.fields.totalHours",
        ),
        ("data.timesheet.totalHours", sheets),
    );

    // A field no answer carries, though the spec lists it as optional.
    let file = planted(dir, "never-seen", |e| {
        for method in [TIMESHEET, "pay/getTimesheetsForBid"] {
            edit_body(e, method, |json| {
                let data = &mut json["data"];
                let mut sheets: Vec<&mut Value> = match data.get_mut("timesheets") {
                    Some(Value::Object(items)) => items.values_mut().collect(),
                    Some(Value::Array(items)) => items.iter_mut().collect(),
                    _ => vec![&mut data["timesheet"]],
                };
                for sheet in sheets.iter_mut() {
                    if let Some(sheet) = sheet.as_object_mut() {
                        sheet.remove("submitDate");
                    }
                }
            })
        }
    });
    let outcome = audit(&[&file], false);
    check(
        only_finding(&outcome),
        FindingKind::NeverSeen,
        (
            "spec/pay.yaml",
            timesheet_field("submitDate"),
            "types.Timesheet.fields.submitDate",
        ),
        (
            "data.timesheet.submitDate",
            sheets + list_items(dir, "pay/getTimesheetsForBid", "timesheets"),
        ),
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn planted_error_and_envelope_drifts_are_found_and_their_proposals_judged() {
    let dir = tempfile::tempdir().unwrap();
    record_fake_traffic(dir.path()).await;
    let dir = dir.path();
    let payments = answers(dir, "pay/getPayment");

    // The envelope of pay/getPayment names the method itself, not pay/getBilling.
    let file = planted(dir, "envelope", |e| {
        edit_body(e, "pay/getPayment", |json| {
            json["api"] = json!("pay/getPayment")
        })
    });
    let outcome = audit(&[&file], true);
    let proposal = check(
        only_finding(&outcome),
        FindingKind::EnvelopeMismatch,
        (
            "spec/pay.yaml",
            spec_line("spec/pay.yaml", &["methods:"], "pay/getPayment"),
            "methods.pay/getPayment",
        ),
        ("api", payments),
    );
    assert_eq!(
        proposal.as_deref(),
        Some("methods.pay/getPayment: delivered_api: pay/getPayment")
    );
    // --propose: the YAML edit as a unified diff, then spec-diff's verdict on adopting it.
    let report = &outcome.report;
    assert!(
        report.contains("-    delivered_api: pay/getBilling"),
        "{report}"
    );
    assert!(
        report.contains("+    delivered_api: pay/getPayment"),
        "{report}"
    );
    assert!(report.contains("breaking"), "{report}");

    // An error code the spec does not declare, and an error answer with no code at all.
    let first_billing = recording::read(dir.join("fake"))
        .unwrap()
        .into_iter()
        .position(|r| r.exchange.method == "pay/getBilling")
        .unwrap();
    let mut index = 0;
    let file = planted(dir, "errors", |e| {
        if e.method == "pay/getInvoice" && e.status == 200 {
            e.status = 429;
            e.body = Some(
                json!({"api": "pay/getBilling", "apiVersion": 1, "rcode": 0,
                       "error": {"code": "E_API_RATE_LIMITED", "message": "slow down"}})
                .to_string(),
            );
        }
        if e.method == "pay/getBilling" {
            // Only the first billing answer: a gateway's page, no code in any shape.
            if index == first_billing {
                e.status = 502;
                e.body = Some("Bad gateway".to_owned());
            }
        }
        index += 1;
    });
    let outcome = audit(&[&file], true);
    let findings = &outcome.audit.findings;
    assert_eq!(findings.len(), 2, "{}", outcome.report);
    let undeclared = findings
        .iter()
        .find(|f| f.kind == FindingKind::UndeclaredError)
        .expect("an undeclared error");
    let invoices = recording::read(dir.join("fake"))
        .unwrap()
        .iter()
        .filter(|r| r.exchange.method == "pay/getInvoice" && r.exchange.status == 200)
        .count();
    let proposal = check(
        undeclared,
        FindingKind::UndeclaredError,
        (
            "spec/pay.yaml",
            spec_line(
                "spec/pay.yaml",
                &["methods:", "  pay/getInvoice:"],
                "errors",
            ),
            "methods.pay/getInvoice.errors",
        ),
        ("HTTP 429", invoices),
    );
    assert_eq!(
        proposal.as_deref(),
        Some(
            "declare errors.E_API_RATE_LIMITED; add E_API_RATE_LIMITED to methods.pay/getInvoice.errors"
        )
    );
    let unreadable = findings
        .iter()
        .find(|f| f.kind == FindingKind::UnreadableError)
        .expect("an unreadable error");
    assert_eq!(unreadable.count, 1, "{unreadable}");
    assert_eq!(unreadable.proposal, None, "{unreadable}");
    let report = &outcome.report;
    assert!(report.contains("+  E_API_RATE_LIMITED:"), "{report}");
    assert!(
        report.contains(
            "errors: [E_API_AUTH_SIGNATURE_MISMATCH, E_VALIDATION_INVALID_ID, E_API_RATE_LIMITED]"
        ),
        "{report}"
    );
}

// ---- --propose-into: where the proposed copy goes --------------------------------------------

/// `wire-audit --propose-into DIR` on the committed recording (no finding: the copy is the
/// spec itself): its outcome, or the error.
fn propose_into(dir: &Path) -> Result<wire_audit::Outcome, wire_audit::WireAuditError> {
    let recordings = root().join("tests/app/tests/recordings");
    let options = Options::parse(&[
        "--propose-into",
        dir.to_str().unwrap(),
        recordings.to_str().unwrap(),
    ])
    .unwrap();
    wire_audit::run(&root(), &options)
}

/// The spec files' names and texts.
fn spec_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(root().join("spec"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// A link planted at a proposed file's name (another user's, in a shared folder) is replaced;
/// the file it points to is untouched.
#[cfg(unix)]
#[test]
fn the_proposed_copy_replaces_a_planted_link_and_writes_nothing_outside() {
    let scratch = tempfile::tempdir().unwrap();
    let out = OutputDir::open(scratch.path()).unwrap();
    out.write("outside/kept.yaml", "outside, untouched\n")
        .unwrap();
    let proposed = scratch.path().join("proposed");
    let (first, _) = spec_files().remove(0);
    out.subdir("proposed").unwrap();
    std::os::unix::fs::symlink(
        scratch.path().join("outside/kept.yaml"),
        proposed.join(&first),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        scratch.path().join("outside/new.yaml"),
        proposed.join(&spec_files()[1].0),
    )
    .unwrap();
    let outside = snapshot(&scratch.path().join("outside"));
    let outcome = propose_into(&proposed).unwrap();
    assert!(
        outcome.report.contains("The proposed spec is in"),
        "{}",
        outcome.report
    );
    assert_eq!(snapshot(&scratch.path().join("outside")), outside);
    let expected: std::collections::BTreeMap<PathBuf, Node> = spec_files()
        .into_iter()
        .map(|(name, text)| (PathBuf::from(name), Node::File(text)))
        .collect();
    assert_eq!(snapshot(&proposed), expected);
}

/// A failure midway (one file's place is a non-empty directory, which fails for root too)
/// leaves the earlier copy whole and no temporary file.
#[test]
fn a_failed_proposed_copy_leaves_the_old_copy_whole() {
    let scratch = tempfile::tempdir().unwrap();
    let out = OutputDir::open(scratch.path()).unwrap();
    let files = spec_files();
    for (name, _) in &files {
        out.write(Path::new("proposed").join(name), "an older copy\n")
            .unwrap();
    }
    let (last, _) = files.last().unwrap();
    out.remove(Path::new("proposed").join(last)).unwrap();
    out.write(Path::new("proposed").join(last).join("inside"), "x")
        .unwrap();
    let before = snapshot(scratch.path());
    let error = propose_into(&scratch.path().join("proposed"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(last.as_str()) && error.contains("directory"),
        "{error}"
    );
    assert_eq!(snapshot(scratch.path()), before);
}
