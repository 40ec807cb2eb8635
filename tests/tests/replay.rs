//! Tests on real traffic: the fake replays recordings (the committed one of
//! `tests/app/tests/recordings/`, and recordings made here of a live fake), and serves its
//! answers in varied spellings.
//!
//! The oracle of a replay is a live reading of the same world: what an app reads through the
//! replay is what it reads from the fake itself.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use marketplace_client::Error;
use marketplace_client::files::OutputDir;
use marketplace_client::recording::{self, Recorder, Rotation};
use marketplace_tests::fake::replay::NO_RECORDING_CODE;
use marketplace_tests::fake::{FakeMarketplace, Fault, Latency, Replay, ReplayError, Spellings};
use marketplace_tests::workroom_reading::{WorkroomReading, read_workroom};
use proptest::prelude::*;

/// The committed recording (written by `examples/record.rs`).
fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("app/tests/recordings/workroom.jsonl")
}

/// The login of the hourly workroom's client, and the workroom's bid and first invoice.
fn workroom(fake: &FakeMarketplace) -> (String, u64, u64) {
    let workroom = fake.world().hourly_workroom();
    let login = fake.world().user(workroom.client).unwrap().login.clone();
    (login, workroom.bid_id, workroom.invoices[0])
}

/// The reading an app makes of the live fake, in its fixed spellings.
async fn live_reading() -> WorkroomReading {
    let fake = FakeMarketplace::start().await.unwrap();
    let (login, bid, invoice) = workroom(&fake);
    let session = fake.sign_in(&fake.client().unwrap(), &login).await.unwrap();
    read_workroom(&session, bid, invoice).await.unwrap()
}

#[tokio::test]
async fn an_app_signs_in_and_reads_a_committed_recording_as_it_reads_the_live_fake() {
    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(Replay::from_files([committed()]).unwrap().strict());
    let dir = tempfile::tempdir().unwrap();
    let own_recording = dir.path().join("fake");
    let recorder = Recorder::to_dir(&own_recording, "fake", Rotation::default()).unwrap();
    fake.record(recorder.clone());
    let (login, bid, invoice) = workroom(&fake);
    // The fake's own OAuth flow and signature checks, then the recorded answers.
    let session = fake.sign_in(&fake.client().unwrap(), &login).await.unwrap();
    let replayed = read_workroom(&session, bid, invoice).await.unwrap();

    assert_eq!(replayed, live_reading().await);
    assert_eq!(replayed.timesheets.len(), 23);
    fake.check_replay().unwrap();
    // What the replaying fake sends is noted as a replay, which the wire audit leaves out.
    recorder.flush().unwrap();
    let data: Vec<_> = recording::read(&own_recording)
        .unwrap()
        .into_iter()
        .filter(|recorded| !recorded.exchange.method.starts_with("oauth/"))
        .collect();
    assert_eq!(data.len(), 6);
    for recorded in data {
        let note = recorded.exchange.note.unwrap_or_default();
        assert!(note.starts_with("replay: answered from "), "{note}");
    }
}

#[tokio::test]
async fn a_request_with_a_changed_parameter_fails_naming_the_nearest_recording() {
    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(Replay::from_files([committed()]).unwrap());
    let (login, _, invoice) = workroom(&fake);
    let session = fake.sign_in(&fake.client().unwrap(), &login).await.unwrap();

    let error = session.get_invoice(invoice + 1).send().await.unwrap_err();
    let Error::Api {
        status, failure, ..
    } = &error
    else {
        panic!("not an API error: {error}");
    };
    assert_eq!(*status, 404);
    assert_eq!(
        failure.code.as_ref().map(|code| code.as_str()),
        Some(NO_RECORDING_CODE)
    );
    let expected = format!(
        "no recording answers pay/getInvoice?id={}; the nearest is pay/getInvoice?id={invoice} ({}:",
        invoice + 1,
        committed().display()
    );
    assert!(error.to_string().contains(&expected), "{error}");
    assert!(
        error.to_string().contains(&format!(
            "id is \"{}\", \"{invoice}\" recorded",
            invoice + 1
        )),
        "{error}"
    );
    let Err(ReplayError::Unmatched { misses }) = fake.check_replay() else {
        panic!("check_replay accepted a request no recording matched");
    };
    assert_eq!(misses.len(), 1);
    assert!(misses[0].starts_with(&expected), "{}", misses[0]);
}

/// A miss line quotes the recording it was nearest to: a recorded value with a line feed, a
/// carriage return or an escape sequence (a recording from a server of someone else's) starts
/// no line of its own in `check_replay`'s report, and drives no terminal.
#[tokio::test]
async fn a_recorded_value_with_control_characters_forges_no_line_of_the_report() {
    let fake = FakeMarketplace::start().await.unwrap();
    let hostile = "7\nforged: line\r\u{1b}[2J\u{202e}";
    let mut exchange = recording::Exchange::new(recording::Side::Client, "pay/getInvoice", 200)
        .with_body(br#"{"api":"pay/getInvoice","apiVersion":1,"rcode":1,"data":{}}"#);
    exchange.params.insert("id".to_owned(), hostile.to_owned());
    fake.replay(Replay::from_exchanges([exchange]).unwrap());
    let (login, _, invoice) = workroom(&fake);
    let session = fake.sign_in(&fake.client().unwrap(), &login).await.unwrap();
    let error = session.get_invoice(invoice).send().await.unwrap_err();
    let shown = error.to_string();
    assert!(!shown.chars().any(char::is_control), "{shown:?}");

    let Err(error @ ReplayError::Unmatched { .. }) = fake.check_replay() else {
        panic!("check_replay accepted a request no recording matched");
    };
    let report = error.to_string();
    assert_eq!(report.lines().count(), 2, "{report}");
    assert!(
        !report
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{report:?}"
    );
    assert!(report.contains("forged: line"), "{report}");
}

#[tokio::test]
async fn strict_replay_reports_the_recordings_never_used() {
    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(Replay::from_files([committed()]).unwrap().strict());
    let (login, bid, _) = workroom(&fake);
    let session = fake.sign_in(&fake.client().unwrap(), &login).await.unwrap();
    session.get_timesheet_by_bid_id(bid).send().await.unwrap();

    let Err(ReplayError::Unused { unused }) = fake.check_replay() else {
        panic!("strict replay accepted unused recordings");
    };
    // Three pages of timesheets, the invoice and the providers were not asked for.
    assert_eq!(unused.len(), 5, "{unused:#?}");
    assert!(
        unused
            .iter()
            .any(|line| line.ends_with("pay/getTimesheetsForBid?bidId=310001&page=3&rpp=10")),
        "{unused:#?}"
    );
    // Without strict mode, unused recordings are fine.
    fake.replay(Replay::from_files([committed()]).unwrap());
    session.get_timesheet_by_bid_id(bid).send().await.unwrap();
    fake.check_replay().unwrap();
}

/// Records `call` against a live fake, with `fault` injected once on `path`, into a
/// recording directory.
async fn record_live(path: &Path, fault_path: &str, fault: Fault) {
    let fake = FakeMarketplace::start().await.unwrap();
    let (login, _, invoice) = workroom(&fake);
    let recorder = Recorder::to_dir(path, "live", Rotation::default()).unwrap();
    let client = fake
        .client_builder()
        .record(recorder.clone())
        .build()
        .unwrap();
    let session = fake.sign_in(&client, &login).await.unwrap();
    fake.faults().inject(Some(fault_path), fault, 1);
    session.get_invoice(invoice).send().await.unwrap();
    recorder.flush().unwrap();
}

#[tokio::test]
async fn a_recorded_fault_comes_back_as_recorded_and_the_client_retries_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fault");
    let fault = Fault::Status {
        status: 503,
        retry_after: Some(1),
    };
    record_live(&path, "/api/pay/getInvoice", fault).await;

    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(Replay::from_files([&path]).unwrap().strict());
    let (login, _, invoice) = workroom(&fake);
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&statuses);
    let client = fake
        .client_builder()
        .on_response(move |response| {
            if response.api_method() == "pay/getInvoice" {
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .map(|value| value.to_str().unwrap().to_owned());
                seen.lock().unwrap().push((response.status(), retry_after));
            }
        })
        .build()
        .unwrap();
    let session = fake.sign_in(&client, &login).await.unwrap();
    let replayed = session.get_invoice(invoice).send().await.unwrap();

    assert_eq!(replayed.invoice.id, invoice);
    assert_eq!(
        *statuses.lock().unwrap(),
        [(503, Some("1".to_owned())), (200, None)]
    );
    fake.check_replay().unwrap();
}

#[tokio::test]
async fn recorded_latency_is_replayed_when_asked_and_skipped_by_default() {
    // The invoice's answer from the committed recording, made slow.
    let mut exchange = recording::read(committed())
        .unwrap()
        .into_iter()
        .map(|recorded| recorded.exchange)
        .find(|exchange| exchange.method == "pay/getInvoice")
        .unwrap();
    let recorded = Duration::from_millis(400);
    exchange.latency_us = Some(recorded.as_micros() as u64);

    for latency in [Latency::Replay, Latency::Skip] {
        let fake = FakeMarketplace::start().await.unwrap();
        let replay = Replay::from_exchanges([exchange.clone()]).unwrap();
        fake.replay(replay.latency(latency));
        let (login, _, invoice) = workroom(&fake);
        let session = fake.sign_in(&fake.client().unwrap(), &login).await.unwrap();
        let started = Instant::now();
        session.get_invoice(invoice).send().await.unwrap();
        if latency == Latency::Replay {
            assert!(started.elapsed() >= recorded, "{:?}", started.elapsed());
        }
    }
}

#[test]
fn a_recording_that_cannot_be_replayed_is_refused_with_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(committed()).unwrap();
    let first_data = good.lines().find(|line| line.contains("\"pay/")).unwrap();

    let out = OutputDir::open(dir.path()).unwrap();
    let not_json = dir.path().join("not-json.jsonl");
    out.write("not-json.jsonl", format!("{first_data}\n{{\"format\":\n"))
        .unwrap();
    let error = Replay::from_files([&not_json]).unwrap_err();
    assert!(matches!(error, ReplayError::Read(_)), "{error}");
    assert!(error.to_string().contains("not-json.jsonl:2:"), "{error}");

    let bad_status = dir.path().join("bad-status.jsonl");
    let line = first_data.replacen("\"status\":200", "\"status\":1000", 1);
    out.write("bad-status.jsonl", format!("\n{line}\n"))
        .unwrap();
    let error = Replay::from_files([&bad_status]).unwrap_err();
    assert!(
        error.to_string().ends_with(
            "bad-status.jsonl:2: the recorded answer cannot be replayed: status 1000 is not HTTP"
        ),
        "{error}"
    );

    let only_oauth = dir.path().join("only-oauth.jsonl");
    let oauth: String = good
        .lines()
        .filter(|line| line.contains("\"oauth/"))
        .map(|line| format!("{line}\n"))
        .collect();
    out.write("only-oauth.jsonl", oauth).unwrap();
    let error = Replay::from_files([&only_oauth]).unwrap_err();
    assert!(matches!(error, ReplayError::Empty { .. }), "{error}");
}

#[tokio::test]
async fn varied_spellings_reach_the_client_and_read_as_the_fixed_ones() {
    let fixed = live_reading().await;
    let (mut job_ids, mut job_ids_as_text) = (0, 0);
    for seed in [1, 2, 3] {
        let fake = FakeMarketplace::start().await.unwrap();
        fake.set_spellings(Spellings::Varied { seed });
        assert_eq!(fake.spellings(), Spellings::Varied { seed });
        let (login, bid, invoice) = workroom(&fake);
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&bodies);
        let client = fake
            .client_builder()
            .on_response(move |response| {
                if let Some(body) = response.body() {
                    seen.lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(body).into_owned());
                }
            })
            .build()
            .unwrap();
        let session = fake.sign_in(&client, &login).await.unwrap();
        let varied = read_workroom(&session, bid, invoice).await.unwrap();
        assert_eq!(varied, fixed, "seed {seed}");
        let bodies = bodies.lock().unwrap().join("\n");
        job_ids += bodies.matches("\"jobId\":").count();
        job_ids_as_text += bodies.matches("\"jobId\":\"").count();
    }
    // jobId (string_or_number, always text in the fixed spellings) came both ways.
    assert!(
        job_ids > job_ids_as_text && job_ids_as_text > 0,
        "{job_ids_as_text} of {job_ids} jobIds as text"
    );
}

#[tokio::test]
async fn a_recording_made_by_a_fake_replays_as_one_made_by_a_client() {
    // The server side: the fake records what it sends, varied spellings included.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("server");
    let live = FakeMarketplace::start().await.unwrap();
    live.set_spellings(Spellings::Varied { seed: 11 });
    let recorder = Recorder::to_dir(&path, "server", Rotation::default()).unwrap();
    live.record(recorder.clone());
    let (login, bid, invoice) = workroom(&live);
    let session = live.sign_in(&live.client().unwrap(), &login).await.unwrap();
    let recorded = read_workroom(&session, bid, invoice).await.unwrap();
    recorder.flush().unwrap();

    let fake = FakeMarketplace::start().await.unwrap();
    fake.replay(Replay::from_files([&path]).unwrap().strict());
    let session = fake.sign_in(&fake.client().unwrap(), &login).await.unwrap();
    assert_eq!(
        read_workroom(&session, bid, invoice).await.unwrap(),
        recorded
    );
    fake.check_replay().unwrap();
}

/// A recorded exchange the replay leaves to the fake: an OAuth endpoint's, or a refusal of a
/// request outside the API.
fn left_to_the_fake(oauth: bool) -> String {
    let (method, note) = if oauth {
        ("oauth/getRequestToken", None)
    } else {
        ("pay/getInvoice", Some("outside the API: POST"))
    };
    let mut exchange = recording::Exchange::new(recording::Side::Server, method, 200);
    exchange.note = note.map(str::to_owned);
    exchange.to_line()
}

/// A recorded answer of `pay/getInvoice?id={id}`.
fn data_exchange(id: u64) -> String {
    let mut exchange = recording::Exchange::new(recording::Side::Server, "pay/getInvoice", 404);
    exchange.params = [("id".to_owned(), id.to_string())].into();
    exchange.body = Some(r#"{"rcode":0,"errors":[{"code":"E_VALIDATION_INVALID_ID"}]}"#.into());
    exchange.to_line()
}

/// `lines` written into `files` recordings (round robin) under `dir`.
fn write_lines(dir: &Path, lines: &[String], files: usize) -> Vec<PathBuf> {
    let out = marketplace_client::files::OutputDir::create(dir).unwrap();
    (0..files)
        .map(|file| {
            let path = dir.join(format!("r{file}.jsonl"));
            let text: String = lines
                .iter()
                .skip(file)
                .step_by(files)
                .map(|line| format!("{line}\n"))
                .collect();
            out.write(format!("r{file}.jsonl"), text).unwrap();
            path
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Recordings without a single data exchange (OAuth exchanges, refusals of requests
    /// outside the API, blank lines): refused when read, naming every file and how many
    /// exchanges they held.
    #[test]
    fn recordings_with_nothing_to_replay_are_refused_naming_what_was_read(
        kinds in prop::collection::vec(0..3usize, 0..10),
        files in 1..4usize,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let lines: Vec<String> = kinds
            .iter()
            .map(|kind| match kind {
                0 => left_to_the_fake(true),
                1 => left_to_the_fake(false),
                _ => "  ".to_owned(),
            })
            .collect();
        let paths = write_lines(dir.path(), &lines, files);
        let error = Replay::from_files(&paths).unwrap_err();
        let exchanges_read = kinds.iter().filter(|kind| **kind < 2).count();
        let ReplayError::Empty { read, exchanges, refused, .. } = &error else {
            panic!("not refused as empty: {error}");
        };
        prop_assert_eq!(*exchanges, exchanges_read);
        prop_assert_eq!(*refused, 0);
        prop_assert_eq!(read.len(), files);
        for path in &paths {
            prop_assert!(error.to_string().contains(&path.display().to_string()), "{}", error);
        }
    }

    /// The replay loads every data exchange among the rest, answers every request that comes
    /// from them and says so; when none came, it replayed nothing: an error.
    #[test]
    fn the_replay_counts_what_it_loaded_and_answered(
        noise in prop::collection::vec(any::<bool>(), 0..6),
        data in 1..6u64,
        asked in 0..6u64,
    ) {
        let asked = asked.min(data);
        let dir = tempfile::tempdir().unwrap();
        let mut lines: Vec<String> = noise.iter().map(|oauth| left_to_the_fake(*oauth)).collect();
        lines.extend((0..data).map(|at| data_exchange(9000 + at)));
        let paths = write_lines(dir.path(), &lines, 2);
        let replay = Replay::from_files(&paths).unwrap();
        prop_assert_eq!(replay.len(), data as usize);
        let runtime = marketplace_tests::runtime();
        let checked = runtime.block_on(async {
            let fake = FakeMarketplace::start().await.unwrap();
            fake.replay(replay);
            let client = fake.world().hourly_workroom().client;
            let session = fake.session(client).unwrap();
            for at in 0..asked {
                // The recorded answer is an error answer: the replay answered it.
                let error = session.get_invoice(9000 + at).send().await.unwrap_err();
                assert_eq!(error.code().map(|code| code.as_str()), Some("E_VALIDATION_INVALID_ID"));
            }
            fake.check_replay()
        });
        match checked {
            Ok(count) => {
                prop_assert!(asked > 0);
                prop_assert_eq!(
                    (count.loaded, count.requests, count.answered),
                    (data as usize, asked as usize, asked as usize)
                );
                prop_assert_eq!(
                    count.to_string(),
                    format!("answered {asked} of {asked} request(s) from {data} recorded exchange(s)")
                );
            }
            Err(ReplayError::NothingAnswered { loaded }) => {
                prop_assert_eq!(asked, 0);
                prop_assert_eq!(loaded, data as usize);
            }
            Err(other) => prop_assert!(false, "{}", other),
        }
    }
}
