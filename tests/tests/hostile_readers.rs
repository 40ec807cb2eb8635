//! Every reader of untrusted input in the client, fed large hostile inputs made of the pieces
//! that steer it (quotes, brackets, escapes of every family, secret words, separators, error
//! codes, index keys, bytes that are not UTF-8), hundreds of kilobytes at a time: each holds
//! the property its fuzz target checks (`tests/fuzz/checks/`: no panic, no secret left, a
//! failure located), and the recording reader names the line of the first one that is not an
//! exchange. How the cost grows with the size is the `readers` bench's (BENCHMARKS.md): a test
//! asserts no time.

use std::io::Write;

use marketplace_client::files::OutputDir;
use marketplace_client::recording::{self, Exchange, RecordingError, Side};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[path = "../fuzz/checks/callback_url.rs"]
mod callback_url;
#[path = "../fuzz/checks/decode_response.rs"]
mod decode_response;
#[path = "../fuzz/checks/error_body.rs"]
mod error_body;
#[path = "../fuzz/checks/scrubber.rs"]
mod scrubber;

/// The pieces hostile inputs are made of.
const PIECES: &[&[u8]] = &[
    b"secret",
    b"oauth_token_secret",
    b"Pass-Word",
    b"oauth_verifier",
    b"\"",
    b"'",
    b"\\",
    b"\\\"",
    b":",
    b"=",
    b"&",
    b";",
    b",",
    b" ",
    b"\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b"<",
    b">",
    b"%",
    b"%2F",
    b"%25",
    b"%5C",
    b"\\u0073",
    b"\\ud83d\\ude00",
    b"&amp;",
    b"&#115;",
    b"&quot;",
    b"E_CODE_1",
    b"E_CODE_2",
    b"\"errors\"",
    b"\"code\"",
    b"\"rcode\": 0",
    b"\"0\"",
    b"\"10\"",
    b"null",
    b"30.00",
    b"[redacted]",
    b"x",
    b"\xff",
    b"\xc3",
    b"\0",
];

/// A hostile input of `pieces` pieces, up to a few hundred kilobytes.
fn hostile(pieces: std::ops::Range<usize>) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(PIECES.to_vec()), pieces)
        .prop_map(|pieces| pieces.concat())
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 32,
        ..Config::default()
    })
}

#[test]
fn the_scrubber_holds_on_large_hostile_texts() {
    runner(12)
        .run(&(hostile(10_000..60_000), any::<u8>()), |(text, choice)| {
            let mut input = b"c0nsumer%secret\0".to_vec();
            input.extend(text.iter().filter(|&&byte| byte != 0));
            input.extend([0, choice]);
            scrubber::check(&input);
            Ok(())
        })
        .unwrap();
}

#[test]
fn error_bodies_hold_on_large_hostile_bodies() {
    runner(12)
        .run(&hostile(10_000..60_000), |body| {
            error_body::check(&body);
            Ok(())
        })
        .unwrap();
}

#[test]
fn decoding_holds_on_large_hostile_answers() {
    runner(12)
        .run(&(any::<u8>(), hostile(10_000..60_000)), |(method, body)| {
            let mut input = vec![method];
            // A JSON envelope around the hostile data, so decoding gets past the first byte.
            input.extend_from_slice(br#"{"api": "x", "apiVersion": 1, "rcode": 1, "data": {"#);
            input.extend(body);
            decode_response::check(&input);
            Ok(())
        })
        .unwrap();
}

#[test]
fn callback_urls_hold_on_large_hostile_urls() {
    runner(12)
        .run(&hostile(2_000..20_000), |tail| {
            let mut url = b"myapp://cb?oauth_token=request&".to_vec();
            url.extend(tail);
            callback_url::check(&url);
            Ok(())
        })
        .unwrap();
}

/// A recording file of exchange lines with hostile lines among them: read whole when every
/// line is an exchange (or blank), else an error naming the first line that is not.
#[test]
fn recordings_hold_on_large_hostile_files() {
    let dir = tempfile::tempdir().unwrap();
    let strategy = prop::collection::vec(
        prop_oneof![
            4 => hostile(1..40).prop_map(|body| (true, body)),
            1 => hostile(1..40).prop_map(|line| (false, line)),
        ],
        1_000..4_000,
    );
    runner(8)
        .run(&strategy, |lines| {
            let path = dir.path().join("hostile.jsonl");
            let out = OutputDir::open(dir.path()).unwrap();
            let mut file = out.pending("hostile.jsonl").unwrap();
            let mut first_bad = None;
            let mut exchanges = 0;
            for (number, (exchange, bytes)) in lines.iter().enumerate() {
                let line: Vec<u8> = if *exchange {
                    let mut recorded = Exchange::new(Side::Client, "pay/getInvoice", 200);
                    recorded.body = Some(String::from_utf8_lossy(bytes).into_owned());
                    exchanges += 1;
                    recorded.to_line().into_bytes()
                } else {
                    bytes.iter().copied().filter(|&b| b != b'\n').collect()
                };
                let blank = line.iter().all(u8::is_ascii_whitespace);
                let is_exchange =
                    std::str::from_utf8(&line).is_ok_and(|text| Exchange::from_line(text).is_ok());
                if !blank && !is_exchange && first_bad.is_none() {
                    first_bad = Some(number + 1);
                }
                file.write_all(&line).unwrap();
                file.write_all(b"\n").unwrap();
            }
            file.publish().unwrap();
            match (recording::read(&path), first_bad) {
                (Ok(read), None) => prop_assert_eq!(read.len(), exchanges),
                (Err(RecordingError::Line { line, .. }), Some(bad)) => prop_assert_eq!(line, bad),
                (other, bad) => prop_assert!(false, "{other:?}, first bad line {bad:?}"),
            }
            Ok(())
        })
        .unwrap();
}
