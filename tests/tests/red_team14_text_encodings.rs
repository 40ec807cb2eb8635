//! Red team 14: text encodings at the byte level, in the readers other than the spec loader.
//!
//! The property attacked: text the project reads arrives in several encoding-level spellings (a
//! UTF-8 byte order mark at the start, CRLF line ends, a last line without a newline, a NUL byte,
//! bytes that are not UTF-8, a UTF-16 body, white space before the JSON value), and each is either
//! read as the same content or refused with a typed error that says what and where; nothing
//! panics, nothing is silently misread. The spec loader was fixed for the byte order mark
//! (docs/changing-the-spec.md: "A byte order mark at the start of a file is not content"); these
//! cases hold its siblings to the same rule.
//!
//! Doc sentences the cases hold the code to:
//! - docs/bad-input.md: "Decoding never panics on any bytes"; "A typed error that says what and
//!   where. A response value that does not fit names the method, the JSON path and the value".
//! - docs/using-the-client.md: "Error bodies are read in every plausible shape, structure first:
//!   JSON (a top-level code/errorCode/error string ...) ... then form pairs ... then text and HTML
//!   (every E_… word)", and "the token endpoints work whatever the shape and the status".
//! - RFC 8259 §8.1 (where the docs are silent on the mark): "implementations that parse JSON texts
//!   MAY ignore the presence of a byte order mark rather than treating it as an error"; JSON allows
//!   white space (CR LF included) before, between and after tokens (§2).
//! - docs/auditing.md / docs/commands.md: `wire-audit` reads recordings, "one JSON line per
//!   exchange", and exits 2 naming what it cannot read (`file:line`); `recording::read` returns
//!   `RecordingError::Line { path, line, .. }`.
//!
//! Cases (client side, a hostile server on 127.0.0.1:0 answering every request the same):
//! - `data_body_*`: a successful JSON body: JSON-legal spellings (leading white space, CRLF
//!   between tokens, trailing newline) must decode to the same value; a BOM may be ignored (then
//!   the same value) or refused as `Error::Decode` naming the method; NUL, UTF-16 and invalid UTF-8
//!   must never decode to something else (and a bad byte inside a value names its JSON path).
//! - `error_body_*`: a 400 JSON/form error body, and a 200 with rcode 0, each behind a BOM,
//!   leading white space or CRLF: the API failure is still recognized (`Error::code()`).
//! - `api_failure_parse_*`: the same through the public `ApiFailure::parse`.
//! - `request_token_*` / `access_token_*`: a token endpoint's form body behind a BOM or ending
//!   in CRLF/LF: the token and secret are read exactly, or the call fails with a typed error;
//!   never a secret with a CR LF glued on, never the first key read as "\u{feff}oauth_token".
//! - `request_token_secret_*` / `access_token_secret_*`: a token or secret followed by U+FEFF
//!   (the mark's bytes), U+200B, NUL or a C0/C1/bidi character: read without it or refused, by
//!   the rule SECURITY.md gives verifiers ("no control (C0, DEL, C1) or bidirectional-text
//!   character; surrounding white space ignored"), never kept glued to the secret.
//! - `verifier_*`: a verifier typed in or read from a callback with a mark first or last: read
//!   without it or refused (`InvalidArgument` naming `oauth_verifier` / `Error::Callback`).
//! - `send_with_metadata_*`: the envelope (`api`, `apiVersion`) read through JSON white space.
//! - `recording_*` / `replay_*` / `wire_audit_*`: recording files with a BOM, CRLF, no last newline, a BOM
//!   inside (two files concatenated), a NUL line: the same exchanges, or an error naming file:line.

use marketplace_client::oauth::{AccessToken, Verifier};
use marketplace_client::{ApiFailure, Client, ConsumerCredentials, Error, ErrorCode};
use marketplace_tests::fixtures::write_file as put;
use proptest::prelude::*;
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const INVOICE: &str = r#"{"api":"pay/getBilling","apiVersion":1,"data":{"bidDetails":{"bidAmount":"1500.00","bidId":"310001","clientCountry":"United States","clientCountryCode":"US","clientImageURL":"https://img.example-market.com/u/40001/avatar.jpg","clientName":"Dana Whitfield","clientUserId":40001,"duration":"","isHourly":true,"isPreBid":false,"isSponsored":false,"jobId":220001,"jobName":"Inventory sync service for Shopify store","phase":"5","providerCity":"Pune","providerCountry":"India","providerCountryCode":"IN","providerImageURL":"https://img.example-market.com/u/50001/avatar.jpg","providerName":"Ravi Menon","providerUserId":"50001","status":"Working","userType":"CLIENT"},"invoice":{"amountBilled":360,"amountOutstanding":0,"amountPaid":360,"bidId":310001,"client":"dwhitfield","clientUserId":40001,"comments":"Timesheet 880083, week ending 24-AUG-25","currency":"USD","date":1756108800,"id":8901,"jobId":220001,"lineItemCount":1,"paymentIds":[6901],"provider":"ravimenon","providerUserId":50001,"status":"Released","type":"Invoice"}},"rcode":1}"#;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Starts a server on 127.0.0.1:0 that answers every request with `status`, `content_type` and
/// `body` (Connection: close).
async fn serve(status: u16, content_type: &'static str, body: Vec<u8>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let body = body.clone();
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                // Read the head, then the body the Content-Length announces.
                let head_end = loop {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                    if let Some(i) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        break i + 4;
                    }
                };
                let head = String::from_utf8_lossy(&seen[..head_end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                while seen.len() < head_end + length {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let reason = if status == 200 { "OK" } else { "Bad Request" };
                let mut answer = format!(
                    "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                )
                .into_bytes();
                answer.extend_from_slice(&body);
                let _ = socket.write_all(&answer).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    addr
}

fn client(addr: SocketAddr) -> Client {
    Client::builder(
        format!("http://{addr}"),
        ConsumerCredentials::new("rt14-consumer-key", "rt14-consumer-secret"),
    )
    .allow_plain_http_oauth_on_loopback()
    .build()
    .expect("a client for a loopback server")
}

fn token() -> AccessToken {
    AccessToken::new(
        "rt14-access-token",
        "rt14-access-secret",
        marketplace_client::jiff::Timestamp::now(),
    )
}

/// The invoice call against a server sending `body` (200, application/json).
async fn invoice_with(body: Vec<u8>) -> Result<String, Error> {
    let addr = serve(200, "application/json", body).await;
    let session = client(addr).session(token());
    session
        .get_invoice(8901)
        .send()
        .await
        .map(|v| format!("{v:?}"))
}

async fn baseline() -> String {
    invoice_with(INVOICE.as_bytes().to_vec())
        .await
        .expect("the plain body decodes")
}

fn with_bom(body: &[u8]) -> Vec<u8> {
    [BOM, body].concat()
}

/// JSON's own white space at the start, between every token and at the end (CR LF included):
/// RFC 8259 §2 makes these the same JSON text.
fn crlf_between_tokens(body: &str) -> Vec<u8> {
    let mut out = String::from("\r\n \t\r\n");
    let mut in_string = false;
    let mut escaped = false;
    for c in body.chars() {
        out.push(c);
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if matches!(c, '{' | '[' | ',' | ':') {
            out.push_str("\r\n  ");
        }
    }
    out.push_str("\r\n");
    out.into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_body_json_white_space_crlf_and_trailing_newline_decode_the_same() {
    let plain = baseline().await;
    let variants: Vec<(&str, Vec<u8>)> = vec![
        (
            "leading CRLF and spaces",
            [b"\r\n  \r\n".as_slice(), INVOICE.as_bytes()].concat(),
        ),
        ("trailing LF", [INVOICE.as_bytes(), b"\n"].concat()),
        ("trailing CRLF", [INVOICE.as_bytes(), b"\r\n"].concat()),
        ("CRLF between every token", crlf_between_tokens(INVOICE)),
    ];
    for (name, body) in variants {
        match invoice_with(body).await {
            Ok(decoded) => assert_eq!(decoded, plain, "{name}: decoded to another value"),
            Err(error) => panic!("{name}: JSON-legal white space refused: {error}"),
        }
    }
}

/// Ok must be the same value; Err must be a typed decode error naming the method.
fn same_or_decode_error(name: &str, result: Result<String, Error>, plain: &str) {
    match result {
        Ok(decoded) => assert_eq!(decoded, plain, "{name}: silently read as another value"),
        Err(Error::Decode { method, .. }) => {
            assert_eq!(
                method, "pay/getInvoice",
                "{name}: the decode error names another method"
            )
        }
        Err(other) => panic!("{name}: not a decode error naming the method: {other:?} / {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_body_with_a_byte_order_mark_is_the_same_value_or_a_decode_error() {
    let plain = baseline().await;
    let result = invoice_with(with_bom(INVOICE.as_bytes())).await;
    eprintln!(
        "BOM data body: {:?}",
        result
            .as_ref()
            .map(|_| "same value")
            .map_err(|e| e.to_string())
    );
    same_or_decode_error("BOM", result, &plain);
    // A mark after leading white space, and two marks: never another value.
    same_or_decode_error(
        "two BOMs",
        invoice_with(with_bom(&with_bom(INVOICE.as_bytes()))).await,
        &plain,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_body_with_nul_or_utf16_is_never_read_as_another_value() {
    let plain = baseline().await;
    let utf16le: Vec<u8> = [0xFFu8, 0xFE]
        .into_iter()
        .chain(INVOICE.encode_utf16().flat_map(|u| u.to_le_bytes()))
        .collect();
    let utf16be_no_bom: Vec<u8> = INVOICE
        .encode_utf16()
        .flat_map(|u| u.to_be_bytes())
        .collect();
    let variants: Vec<(&str, Vec<u8>)> = vec![
        ("trailing NUL", [INVOICE.as_bytes(), b"\0"].concat()),
        (
            "leading NUL",
            [b"\0".as_slice(), INVOICE.as_bytes()].concat(),
        ),
        ("UTF-16LE with BOM", utf16le),
        ("UTF-16BE without BOM", utf16be_no_bom),
    ];
    for (name, body) in variants {
        let result = invoice_with(body).await;
        eprintln!(
            "{name}: {:?}",
            result
                .as_ref()
                .map(|_| "same value")
                .map_err(|e| e.to_string())
        );
        same_or_decode_error(name, result, &plain);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_body_with_bytes_not_utf8_in_a_value_names_the_json_path() {
    let body = INVOICE.replacen("Timesheet 880083", "Timesheet \u{1}880083", 1);
    assert_ne!(body, INVOICE);
    let mut bytes = body.into_bytes();
    let at = bytes.iter().position(|&b| b == 1).unwrap();
    bytes[at] = 0xFF;
    match invoice_with(bytes).await {
        Ok(decoded) => panic!("bytes that are not UTF-8 silently decoded: {decoded}"),
        Err(Error::Decode { method, path, .. }) => {
            assert_eq!(method, "pay/getInvoice");
            assert!(
                path.contains("comments"),
                "the decode error does not name the value's path: {path:?}"
            );
        }
        Err(other) => panic!("not a decode error: {other:?}"),
    }
}

const ERROR_JSON: &str =
    r#"{"errorCode":"E_VALIDATION_INVALID_ID","message":"Invalid invoice id"}"#;
const RCODE_JSON: &str = r#"{"api":"pay/getInvoice","apiVersion":1,"rcode":0,"errorCode":"E_VALIDATION_INVALID_ID","message":"Invalid invoice id"}"#;
const ERROR_FORM: &str = "error=E_VALIDATION_INVALID_ID&error_description=Invalid+invoice+id";

async fn error_of(status: u16, content_type: &'static str, body: Vec<u8>) -> Error {
    let addr = serve(status, content_type, body).await;
    let session = client(addr).session(token());
    session
        .get_invoice(8901)
        .send()
        .await
        .expect_err("an error answer")
}

fn assert_recognized(name: &str, error: &Error) {
    let code = error.code().map(|c| c.as_str().to_owned());
    assert_eq!(
        code.as_deref(),
        Some("E_VALIDATION_INVALID_ID"),
        "{name}: the API failure is not recognized: {error:?} / {error}"
    );
    assert!(
        error
            .code()
            .is_some_and(|c| *c == ErrorCode::ValidationInvalidId),
        "{name}: code not matched to its ErrorCode"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_body_baselines_are_recognized() {
    assert_recognized(
        "400 JSON",
        &error_of(400, "application/json", ERROR_JSON.into()).await,
    );
    assert_recognized(
        "200 rcode 0",
        &error_of(200, "application/json", RCODE_JSON.into()).await,
    );
    assert_recognized(
        "400 form",
        &error_of(400, "application/x-www-form-urlencoded", ERROR_FORM.into()).await,
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_body_with_a_byte_order_mark_is_still_an_api_failure() {
    let cases: Vec<(&str, u16, &'static str, &str)> = vec![
        ("400 JSON", 400, "application/json", ERROR_JSON),
        ("200 rcode 0", 200, "application/json", RCODE_JSON),
        (
            "400 form",
            400,
            "application/x-www-form-urlencoded",
            ERROR_FORM,
        ),
    ];
    let mut failures = Vec::new();
    for (name, status, ct, body) in cases {
        let error = error_of(status, ct, with_bom(body.as_bytes())).await;
        eprintln!("BOM {name}: {error:?}");
        if error.code().map(|c| c.as_str()) != Some("E_VALIDATION_INVALID_ID") {
            failures.push(format!("BOM {name}: {error}"));
        }
    }
    assert!(
        failures.is_empty(),
        "API failures behind a BOM not recognized:\n{}",
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_body_with_white_space_and_crlf_is_still_an_api_failure() {
    let cases: Vec<(&str, u16, Vec<u8>)> = vec![
        (
            "400 JSON leading CRLF",
            400,
            [b"\r\n\r\n  ".as_slice(), ERROR_JSON.as_bytes()].concat(),
        ),
        (
            "400 JSON CRLF between tokens",
            400,
            crlf_between_tokens(ERROR_JSON),
        ),
        (
            "200 rcode 0 CRLF between tokens",
            200,
            crlf_between_tokens(RCODE_JSON),
        ),
    ];
    for (name, status, body) in cases {
        let error = error_of(status, "application/json", body).await;
        assert_recognized(name, &error);
    }
    let form = error_of(
        400,
        "application/x-www-form-urlencoded",
        format!("{ERROR_FORM}\r\n").into_bytes(),
    )
    .await;
    assert_recognized("400 form trailing CRLF", &form);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    /// `ApiFailure::parse` reads the same code whatever the mark, the white space before the
    /// value and the line ends inside it.
    #[test]
    fn api_failure_parse_reads_the_code_behind_any_prefix(
        bom in any::<bool>(),
        lead in prop::collection::vec(prop::sample::select(vec![" ", "\t", "\r\n", "\n"]), 0..4),
        crlf in any::<bool>(),
        body in prop::sample::select(vec![ERROR_JSON, RCODE_JSON, ERROR_FORM]),
    ) {
        let mut bytes = Vec::new();
        if bom { bytes.extend_from_slice(BOM); }
        if body != ERROR_FORM { bytes.extend(lead.concat().into_bytes()); }
        if crlf && body != ERROR_FORM { bytes.extend(crlf_between_tokens(body)); } else { bytes.extend_from_slice(body.as_bytes()); }
        let parsed = ApiFailure::parse(&bytes);
        let code = parsed.as_ref().and_then(|f| f.code.as_ref()).map(|c| c.as_str().to_owned());
        prop_assert_eq!(code.as_deref(), Some("E_VALIDATION_INVALID_ID"), "{:?} parsed as {:?}", String::from_utf8_lossy(&bytes), parsed);
        // Structure first: the same message, rcode and entries as the body without the spelling.
        let plain = ApiFailure::parse(body.as_bytes()).expect("the plain body parses");
        let parsed = parsed.unwrap();
        prop_assert_eq!(
            (&parsed.message, parsed.rcode, &parsed.errors),
            (&plain.message, plain.rcode, &plain.errors),
            "{:?} read with less than {:?}", String::from_utf8_lossy(&bytes), plain
        );
    }
}

const REQUEST_TOKEN: &str = "rt14-request-token";
const REQUEST_SECRET: &str = "rt14-request-secret-0001";

/// The request-token call against a server sending `body`: Ok must hold exactly the token and
/// secret; Err must be typed (not a transport failure, not a panic).
async fn request_token_with(name: &str, body: Vec<u8>) {
    if let Err(failure) = request_token_outcome(name, body).await {
        panic!("{failure}");
    }
}

/// The request-token call against \`body\`: \`Err\` says how the property broke.
async fn request_token_outcome(name: &str, body: Vec<u8>) -> Result<(), String> {
    let addr = serve(200, "application/x-www-form-urlencoded", body).await;
    match client(addr).request_token(None).await {
        Ok(request) => {
            if request.token != REQUEST_TOKEN || request.secret.expose() != REQUEST_SECRET {
                return Err(format!(
                    "{name}: read as token {:?}, secret {:?} (sent {REQUEST_TOKEN:?}, {REQUEST_SECRET:?})",
                    request.token,
                    request.secret.expose()
                ));
            }
            eprintln!("{name}: read exactly");
            Ok(())
        }
        Err(error) => {
            eprintln!("{name}: refused: {error}");
            if matches!(error, Error::Transport { .. } | Error::Timeout { .. }) {
                return Err(format!(
                    "{name}: not a typed refusal of the body: {error:?}"
                ));
            }
            if !error.to_string().contains("getRequestToken") {
                return Err(format!("{name}: the error does not say where: {error}"));
            }
            Ok(())
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_token_form_body_baseline_is_read() {
    let addr = serve(
        200,
        "application/x-www-form-urlencoded",
        format!("oauth_token={REQUEST_TOKEN}&oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true").into_bytes(),
    )
    .await;
    let request = client(addr)
        .request_token(None)
        .await
        .expect("the plain form body is read");
    assert_eq!(request.token, REQUEST_TOKEN);
    assert_eq!(request.secret.expose(), REQUEST_SECRET);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_token_form_body_with_a_byte_order_mark_is_read_or_refused_never_misread() {
    let body = format!(
        "oauth_token={REQUEST_TOKEN}&oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true"
    );
    request_token_with("BOM, token first", with_bom(body.as_bytes())).await;
    let secret_first = format!(
        "oauth_token_secret={REQUEST_SECRET}&oauth_token={REQUEST_TOKEN}&oauth_callback_confirmed=true"
    );
    request_token_with("BOM, secret first", with_bom(secret_first.as_bytes())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_token_form_body_ending_in_a_newline_never_glues_it_to_the_secret() {
    for end in ["\r\n", "\n", "\r\n\r\n"] {
        let body = format!(
            "oauth_callback_confirmed=true&oauth_token={REQUEST_TOKEN}&oauth_token_secret={REQUEST_SECRET}{end}"
        );
        request_token_with(&format!("secret last, then {end:?}"), body.into_bytes()).await;
    }
    let crlf_pairs = format!(
        "oauth_token={REQUEST_TOKEN}\r\n&oauth_token_secret={REQUEST_SECRET}\r\n&oauth_callback_confirmed=true\r\n"
    );
    request_token_with("CRLF after every pair", crlf_pairs.into_bytes()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_token_form_body_with_a_mark_or_a_newline_is_read_or_refused_never_misread() {
    let request = marketplace_client::oauth::RequestToken {
        token: REQUEST_TOKEN.into(),
        secret: marketplace_client::Secret::new(REQUEST_SECRET),
        callback_confirmed: true,
    };
    let verifier = Verifier::new("rt14verifier0001").expect("a verifier");
    let plain = "oauth_token=rt14-access-token-1&oauth_token_secret=rt14-access-secret-0001";
    for (name, body) in [
        ("plain", plain.as_bytes().to_vec()),
        ("BOM", with_bom(plain.as_bytes())),
        ("trailing CRLF", format!("{plain}\r\n").into_bytes()),
        ("trailing LF", format!("{plain}\n").into_bytes()),
    ] {
        let addr = serve(200, "application/x-www-form-urlencoded", body).await;
        match client(addr).access_token(&request, &verifier).await {
            Ok(access) => {
                assert_eq!(
                    access.token(),
                    "rt14-access-token-1",
                    "{name}: token misread"
                );
                assert_eq!(
                    access.secret().expose(),
                    "rt14-access-secret-0001",
                    "{name}: secret misread"
                );
            }
            Err(error) => {
                assert_ne!(name, "plain", "the plain body is refused: {error}");
                eprintln!("{name}: refused: {error}");
                assert!(
                    !matches!(error, Error::Transport { .. } | Error::Timeout { .. }),
                    "{name}: not a typed refusal: {error:?}"
                );
                assert!(
                    error.to_string().contains("getAccessToken"),
                    "{name}: the error does not say where: {error}"
                );
            }
        }
    }
}

/// A small recording, three exchanges, written by the client's own recorder format.
const RECORDING: &str = concat!(
    r#"{"format":"marketplace-recording/1","side":"client","time":"2026-11-29T14:11:39.218437835Z","method":"oauth/getAccessToken","http_method":"POST","path":"/oauth/getAccessToken","params":{},"attempt":1,"latency_us":2421,"status":200,"headers":{"content-type":"application/x-www-form-urlencoded"},"body":null,"body_redacted":false,"note":"the answer of an OAuth endpoint holds credentials only: body not recorded"}"#,
    "\n",
    r#"{"format":"marketplace-recording/1","side":"client","time":"2026-11-29T14:11:40.000000000Z","method":"pay/getInvoice","http_method":"GET","path":"/api/pay/getInvoice","params":{"id":"8901"},"attempt":1,"latency_us":1000,"status":400,"headers":{"content-type":"application/json"},"body":"{\"errorCode\":\"E_VALIDATION_INVALID_ID\",\"message\":\"Invalid invoice id\"}","body_redacted":false}"#,
    "\n",
    r#"{"format":"marketplace-recording/1","side":"client","time":"2026-11-29T14:11:41.000000000Z","method":"pay/getInvoice","http_method":"GET","path":"/api/pay/getInvoice","params":{"id":"8902"},"attempt":1,"latency_us":1000,"status":400,"headers":{"content-type":"application/json"},"body":"{\"errorCode\":\"E_VALIDATION_INVALID_ID\",\"message\":\"Invalid invoice id\"}","body_redacted":false}"#,
    "\n",
);

/// The spellings of a recording file: (name, bytes, the 1-based line an error may name).
fn recording_spellings() -> Vec<(&'static str, Vec<u8>, usize)> {
    let lines: Vec<&str> = RECORDING.lines().collect();
    vec![
        ("BOM at the start", with_bom(RECORDING.as_bytes()), 1),
        (
            "CRLF line ends",
            RECORDING.replace('\n', "\r\n").into_bytes(),
            1,
        ),
        (
            "no newline after the last line",
            RECORDING.trim_end().as_bytes().to_vec(),
            3,
        ),
        (
            "BOM and CRLF",
            with_bom(RECORDING.replace('\n', "\r\n").as_bytes()),
            1,
        ),
        (
            "a BOM at line 2 (two files concatenated)",
            format!("{}\n\u{feff}{}\n{}\n", lines[0], lines[1], lines[2]).into_bytes(),
            2,
        ),
        (
            "white space before each JSON value",
            lines
                .iter()
                .map(|l| format!(" \t{l}\n"))
                .collect::<String>()
                .into_bytes(),
            1,
        ),
        (
            "a NUL line",
            format!("{}\n\0\n{}\n{}\n", lines[0], lines[1], lines[2]).into_bytes(),
            2,
        ),
        (
            "UTF-16LE with BOM",
            [0xFFu8, 0xFE]
                .into_iter()
                .chain(RECORDING.encode_utf16().flat_map(|u| u.to_le_bytes()))
                .collect(),
            1,
        ),
    ]
}

#[test]
fn recording_read_gives_the_same_exchanges_or_an_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let plain_path = dir.path().join("plain.jsonl");
    put(&plain_path, RECORDING).unwrap();
    let plain: Vec<_> = marketplace_client::recording::read(&plain_path)
        .expect("the plain recording is read")
        .into_iter()
        .map(|r| (r.line, format!("{:?}", r.exchange)))
        .collect();
    assert_eq!(plain.len(), 3);
    let mut failures = Vec::new();
    for (i, (name, bytes, line)) in recording_spellings().into_iter().enumerate() {
        let path = dir.path().join(format!("variant{i}.jsonl"));
        put(&path, &bytes).unwrap();
        match marketplace_client::recording::read(&path) {
            Ok(read) => {
                let read: Vec<_> = read
                    .into_iter()
                    .map(|r| (r.line, format!("{:?}", r.exchange)))
                    .collect();
                let same_exchanges = read.iter().map(|r| &r.1).eq(plain.iter().map(|r| &r.1));
                if !same_exchanges {
                    failures.push(format!("{name}: read as other exchanges: {read:?}"));
                }
                eprintln!("{name}: read, same exchanges: {same_exchanges}");
            }
            Err(error) => {
                let text = error.to_string();
                eprintln!("{name}: refused: {text}");
                match &error {
                    marketplace_client::recording::RecordingError::Line {
                        path: p,
                        line: l,
                        ..
                    } => {
                        if p != &path || *l != line {
                            failures.push(format!(
                                "{name}: error names {p:?}:{l}, expected {path:?}:{line}: {text}"
                            ));
                        }
                    }
                    other => failures.push(format!("{name}: not a line error: {other:?}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn recording_exchange_from_line_reads_a_crlf_or_bom_line_the_same_or_refuses() {
    let line = RECORDING.lines().nth(1).unwrap();
    let plain = format!(
        "{:?}",
        marketplace_client::recording::Exchange::from_line(line).expect("a plain line")
    );
    for (name, text) in [
        ("CR at the end", format!("{line}\r")),
        ("BOM at the start", format!("\u{feff}{line}")),
        ("leading white space", format!("  {line}")),
    ] {
        match marketplace_client::recording::Exchange::from_line(&text) {
            Ok(exchange) => assert_eq!(
                format!("{exchange:?}"),
                plain,
                "{name}: read as another exchange"
            ),
            Err(message) => assert!(!message.is_empty(), "{name}: an empty error"),
        }
    }
}

/// `cargo xtask wire-audit DIR` in the workspace: (exit code, stdout + stderr). Run in this
/// process through the command line's own entry (`xtask::cli::run`, as `main` calls it): a
/// `cargo xtask` child would wait on the build directory's lock while other builds hold it.
fn wire_audit(dir: &std::path::Path) -> (i32, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = xtask::cli::run(
        [std::ffi::OsStr::new("wire-audit"), dir.as_os_str()],
        root,
        &mut xtask::cli::Output::new(&mut out, &mut err),
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&err)
    );
    (i32::from(code), text)
}

/// `text`'s lines, with the folder `dir` written `DIR`.
fn lines_naming_dir(text: &str, dir: &std::path::Path) -> Vec<String> {
    let dir = dir.to_str().unwrap();
    text.lines().map(|line| line.replace(dir, "DIR")).collect()
}

#[test]
fn wire_audit_of_a_recording_with_a_mark_crlf_or_no_last_newline_gives_the_same_findings_or_names_file_and_line()
 {
    let base = tempfile::tempdir().unwrap();
    let plain_dir = base.path().join("plain");
    mkdir(&plain_dir).unwrap();
    put(plain_dir.join("r.jsonl"), RECORDING).unwrap();
    let (plain_code, plain_text) = wire_audit(&plain_dir);
    assert!(
        plain_code == 0 || plain_code == 1,
        "the plain recording is judged: {plain_code} {plain_text}"
    );
    let plain_lines = lines_naming_dir(&plain_text, &plain_dir);
    let mut failures = Vec::new();
    for (i, (name, bytes, line)) in recording_spellings().into_iter().take(5).enumerate() {
        let dir = base.path().join(format!("v{i}"));
        mkdir(&dir).unwrap();
        put(dir.join("r.jsonl"), &bytes).unwrap();
        let (code, text) = wire_audit(&dir);
        let lines = lines_naming_dir(&text, &dir);
        eprintln!("{name}: exit {code}: {}", lines.join(" | "));
        if code == plain_code && lines == plain_lines {
            continue;
        }
        let named = format!("DIR/r.jsonl:{line}");
        if code == 2 && lines.iter().any(|l| l.contains(&named)) {
            continue;
        }
        failures.push(format!(
            "{name}: exit {code}, neither the same findings nor an error naming {named}: {}",
            lines.join(" | ")
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_body_with_a_byte_order_mark_keeps_its_message_and_rcode() {
    let mut failures = Vec::new();
    for (name, status, ct, body) in [
        ("400 JSON", 400, "application/json", ERROR_JSON),
        ("200 rcode 0", 200, "application/json", RCODE_JSON),
        (
            "400 form",
            400,
            "application/x-www-form-urlencoded",
            ERROR_FORM,
        ),
    ] {
        let plain = error_of(status, ct, body.as_bytes().to_vec()).await;
        let marked = error_of(status, ct, with_bom(body.as_bytes())).await;
        let (
            Error::Api { failure: plain, .. },
            Error::Api {
                failure: marked, ..
            },
        ) = (&plain, &marked)
        else {
            failures.push(format!(
                "{name}: not both API failures: {plain:?} / {marked:?}"
            ));
            continue;
        };
        if (&plain.message, plain.rcode, &plain.errors)
            != (&marked.message, marked.rcode, &marked.errors)
        {
            failures.push(format!(
                "{name}: behind a BOM read as message {:?}, rcode {:?}, errors {:?}; without: message {:?}, rcode {:?}, errors {:?}",
                marked.message, marked.rcode, marked.errors, plain.message, plain.rcode, plain.errors
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A NUL byte after a whole JSON error body: SECURITY.md withholds such a body from every view,
/// but the failure's code must still be read, or the error must say why it is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_body_followed_by_a_nul_byte_keeps_its_code_or_says_why() {
    let error = error_of(
        400,
        "application/json",
        [ERROR_JSON.as_bytes(), b"\0"].concat(),
    )
    .await;
    let recognized = error.code().map(|c| c.as_str()) == Some("E_VALIDATION_INVALID_ID");
    let says_why = error.to_string().to_lowercase().contains("nul");
    assert!(
        recognized || says_why,
        "the API failure is lost without saying why: {error:?} / {error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_with_metadata_reads_the_envelope_through_json_white_space() {
    for (name, body) in [
        ("plain", INVOICE.as_bytes().to_vec()),
        (
            "leading CRLF",
            [b"\r\n\r\n ".as_slice(), INVOICE.as_bytes()].concat(),
        ),
        ("CRLF between every token", crlf_between_tokens(INVOICE)),
    ] {
        let addr = serve(200, "application/json", body).await;
        let session = client(addr).session(token());
        let response = session
            .get_invoice(8901)
            .send_with_metadata()
            .await
            .unwrap_or_else(|e| panic!("{name}: JSON-legal white space refused: {e}"));
        let (invoice, meta) = response.into_parts();
        assert_eq!(invoice.invoice.id, 8901, "{name}");
        assert_eq!(meta.api_version(), 1, "{name}: apiVersion misread");
        assert_eq!(meta.api(), "pay/getBilling", "{name}: api misread");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_token_secret_followed_by_a_control_or_invisible_character_is_never_read_with_it() {
    let mut bodies = Vec::new();
    for end in ["\0", "\r", "\u{feff}", "\0\r\n", "\u{feff}\r\n", "\u{200b}"] {
        bodies.push((
            format!("secret last, then {end:?}"),
            format!("oauth_callback_confirmed=true&oauth_token={REQUEST_TOKEN}&oauth_token_secret={REQUEST_SECRET}{end}"),
        ));
    }
    for end in ["\0", "\u{feff}"] {
        bodies.push((
            format!("token then {end:?}"),
            format!("oauth_token={REQUEST_TOKEN}{end}&oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true"),
        ));
    }
    // A BOM before a key in the middle (pairs joined from pieces, one read from a marked file).
    bodies.push((
        "a BOM before the secret's key".to_owned(),
        format!("oauth_token={REQUEST_TOKEN}&\u{feff}oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true"),
    ));
    let mut failures = Vec::new();
    for (name, body) in bodies {
        if let Err(failure) = request_token_outcome(&name, body.into_bytes()).await {
            failures.push(failure);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_token_utf16_form_body_is_never_read_as_another_token() {
    let body = format!(
        "oauth_token={REQUEST_TOKEN}&oauth_token_secret={REQUEST_SECRET}&oauth_callback_confirmed=true"
    );
    let utf16le: Vec<u8> = [0xFFu8, 0xFE]
        .into_iter()
        .chain(body.encode_utf16().flat_map(|u| u.to_le_bytes()))
        .collect();
    request_token_with("UTF-16LE with BOM", utf16le).await;
}

#[test]
fn replay_from_files_with_a_mark_crlf_or_no_last_newline_loads_the_same_or_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let plain_path = dir.path().join("plain.jsonl");
    put(&plain_path, RECORDING).unwrap();
    let plain = marketplace_fake::replay::Replay::from_files([&plain_path])
        .expect("the plain recording loads");
    let mut failures = Vec::new();
    for (i, (name, bytes, line)) in recording_spellings().into_iter().enumerate() {
        let path = dir.path().join(format!("variant{i}.jsonl"));
        put(&path, &bytes).unwrap();
        match marketplace_fake::replay::Replay::from_files([&path]) {
            Ok(replay) => {
                if (replay.len(), replay.refused()) != (plain.len(), plain.refused()) {
                    failures.push(format!(
                        "{name}: loaded {} ({} refused), the plain file {} ({} refused)",
                        replay.len(),
                        replay.refused(),
                        plain.len(),
                        plain.refused()
                    ));
                }
            }
            Err(error) => {
                let text = error.to_string();
                eprintln!("{name}: refused: {text}");
                let named = format!("{}:{line}", path.display());
                if !text.contains(&named) {
                    failures.push(format!("{name}: the error does not name {named}: {text}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What the client recorded of an error answer behind a byte order mark (the client reads its
/// code): `wire-audit` judges it as it judges the answer without the mark.
#[test]
fn wire_audit_judges_a_recorded_error_body_behind_a_mark_as_without_it() {
    let base = tempfile::tempdir().unwrap();
    let mut outcomes = Vec::new();
    for (name, body) in [
        ("plain", "{"),
        ("BOM", "\u{feff}{"),
        ("leading CRLF", "\r\n{"),
    ] {
        let dir = base.path().join(name.replace(' ', "-"));
        mkdir(&dir).unwrap();
        let json_body = serde_json::to_string(&format!(
            "{body}\"errorCode\":\"E_VALIDATION_INVALID_ID\",\"message\":\"Invalid invoice id\"}}"
        ))
        .unwrap();
        let line = format!(
            r#"{{"format":"marketplace-recording/1","side":"client","time":"2026-11-29T14:11:40.000000000Z","method":"pay/getInvoice","http_method":"GET","path":"/api/pay/getInvoice","params":{{"id":"8901"}},"attempt":1,"latency_us":1000,"status":400,"headers":{{"content-type":"application/json"}},"body":{json_body},"body_redacted":false}}"#
        );
        put(dir.join("r.jsonl"), format!("{line}\n")).unwrap();
        let (code, text) = wire_audit(&dir);
        let last = lines_naming_dir(&text, &dir);
        eprintln!("{name}: exit {code}: {}", last.join(" | "));
        outcomes.push((name, code, last));
    }
    let (_, plain_code, plain_lines) = outcomes[0].clone();
    for (name, code, lines) in &outcomes[1..] {
        assert_eq!(
            (code, lines),
            (&plain_code, &plain_lines),
            "{name}: judged otherwise than the same answer without the spelling"
        );
    }
}

/// Creates a directory inside a test's own temporary directory.
fn mkdir(path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
    marketplace_client::files::OutputDir::create(path)
        .map(drop)
        .map_err(|error| std::io::Error::other(error.to_string()))
}

/// SECURITY.md, verifiers: "no control (C0, DEL, C1) or bidirectional-text character; surrounding
/// white space ignored". A verifier pasted from a file that starts with a byte order mark, or
/// read from a callback whose value ends in one (`%EF%BB%BF`), is either read without the mark
/// or refused naming `oauth_verifier`: never kept with an invisible character, to be signed and
/// sent.
#[test]
fn verifier_with_a_byte_order_mark_is_read_without_it_or_refused() {
    let mut failures = Vec::new();
    for (name, text) in [
        ("BOM first", "\u{feff}rt14verifier0001"),
        ("BOM last", "rt14verifier0001\u{feff}"),
        ("BOM then CRLF", "rt14verifier0001\u{feff}\r\n"),
    ] {
        match Verifier::new(text) {
            Ok(verifier) if verifier.as_str() == "rt14verifier0001" => {}
            Ok(verifier) => failures.push(format!("{name}: kept as {:?}", verifier.as_str())),
            Err(Error::InvalidArgument { name: param, .. }) if param == "oauth_verifier" => {}
            Err(other) => failures.push(format!(
                "{name}: not a refusal naming oauth_verifier: {other:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verifier_from_a_callback_ending_in_an_encoded_byte_order_mark_is_read_without_it_or_refused()
 {
    // No request is made: the callback is read locally.
    let client = Client::builder(
        "http://127.0.0.1:9",
        ConsumerCredentials::new("rt14-consumer-key", "rt14-consumer-secret"),
    )
    .allow_plain_http_oauth_on_loopback()
    .build()
    .unwrap();
    let request = marketplace_client::oauth::RequestToken {
        token: REQUEST_TOKEN.into(),
        secret: marketplace_client::Secret::new(REQUEST_SECRET),
        callback_confirmed: true,
    };
    let mut failures = Vec::new();
    for (name, verifier) in [
        ("%EF%BB%BF last", "rt14verifier0001%EF%BB%BF"),
        ("%EF%BB%BF first", "%EF%BB%BFrt14verifier0001"),
    ] {
        let url =
            format!("myapp://oauth/callback?oauth_token={REQUEST_TOKEN}&oauth_verifier={verifier}");
        match client.verifier_from_callback(&request, &url) {
            Ok(v) if v.as_str() == "rt14verifier0001" => {}
            Ok(v) => failures.push(format!("{name}: kept as {:?}", v.as_str())),
            Err(Error::Callback { .. }) => {}
            Err(other) => failures.push(format!("{name}: not an Error::Callback: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The verifier's rule (no C0, DEL, C1 or bidirectional-text character; surrounding white space
/// ignored), held against its sibling: the token and secret the token endpoint sends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_token_secret_with_a_control_or_bidi_character_is_never_kept_with_it() {
    let mut failures = Vec::new();
    for end in [
        "\u{1}", "\u{1b}", "\u{7f}", "\u{85}", "\u{202e}", "\u{b}", "\u{c}", "\t",
    ] {
        let body = format!(
            "oauth_callback_confirmed=true&oauth_token={REQUEST_TOKEN}&oauth_token_secret={REQUEST_SECRET}{end}"
        );
        if let Err(failure) =
            request_token_outcome(&format!("secret then {end:?}"), body.into_bytes()).await
        {
            failures.push(failure);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_token_secret_followed_by_a_byte_order_mark_is_never_read_with_it() {
    let request = marketplace_client::oauth::RequestToken {
        token: REQUEST_TOKEN.into(),
        secret: marketplace_client::Secret::new(REQUEST_SECRET),
        callback_confirmed: true,
    };
    let verifier = Verifier::new("rt14verifier0001").expect("a verifier");
    let body =
        "oauth_token=rt14-access-token-1&oauth_token_secret=rt14-access-secret-0001\u{feff}\r\n";
    let addr = serve(
        200,
        "application/x-www-form-urlencoded",
        body.as_bytes().to_vec(),
    )
    .await;
    match client(addr).access_token(&request, &verifier).await {
        Ok(access) => {
            assert_eq!(access.token(), "rt14-access-token-1");
            assert_eq!(
                access.secret().expose(),
                "rt14-access-secret-0001",
                "the access secret is misread"
            );
        }
        Err(error) => assert!(
            error.to_string().contains("getAccessToken"),
            "the refusal does not say where: {error}"
        ),
    }
}
