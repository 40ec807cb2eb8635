//! Two judges of the client's OAuth 1.0 signatures that share no code with it, on random
//! requests (`support/signing_cases.rs`: unicode, every reserved character, duplicate names,
//! empty values, blank tokens, any method case, default and other ports):
//!
//! - **oauth1-request** (Rust): for the same inputs, same nonce and timestamp, the client's
//!   `oauth_signature` equals oauth1-request's, both as the client signs (query pairs) and with
//!   the query read back from the URL.
//! - **oauthlib** (Python, pinned by hash in `support/oauthlib-requirements.txt`, installed by
//!   this test with pip into a venv under `CARGO_TARGET_TMPDIR`, the target directory's `tmp/`):
//!   a batch of requests signed by the client each verify with
//!   `oauthlib.oauth1.rfc5849.signature.verify_hmac_sha1`, and the same requests checked with a
//!   wrong secret do not (paths whose last segment ends in its only `;` are left out:
//!   oauthlib drops that `;`, see [`oauthlib_drops_the_semicolon`]). It needs
//!   CPython 3 with `venv` and pip and, the first time, PyPI; without them it fails (it does
//!   not skip) and says what to install.

#[path = "support/python_venv.rs"]
mod python_venv;
#[path = "support/signing_cases.rs"]
mod signing_cases;

use std::num::NonZeroU64;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use marketplace_client::files::OutputDir;
use marketplace_client::oauth::signature::{authorization_header, parse_authorization_header};
use proptest::prelude::*;
use proptest::strategy::ValueTree as _;
use proptest::test_runner::TestRunner;
use serde_json::json;
use signing_cases::{Case, case, plain_encode};

/// The decoded `oauth_signature` of an Authorization header.
fn signature_in(header: &str) -> String {
    parse_authorization_header(header)
        .unwrap_or_else(|| panic!("not an OAuth header: {header}"))
        .into_iter()
        .find(|(name, _)| name == "oauth_signature")
        .unwrap_or_else(|| panic!("no oauth_signature in {header}"))
        .1
}

/// The headers the client makes for a case: as it signs its own calls (query pairs) when the
/// case has no form body, and with the query read back from the URL.
fn client_headers(case: &Case) -> Vec<String> {
    let mut headers = vec![authorization_header(
        &case.url_request(),
        &case.oauth(),
        &case.key(),
    )];
    if let Some(request) = case.pairs_request() {
        headers.push(authorization_header(&request, &case.oauth(), &case.key()));
    }
    headers
}

// ---- oauth1-request ---------------------------------------------------------------------------

/// oauth1-request's signature for the same request.
///
/// oauth1-request writes parameter names into the base string as they are given (it expects
/// names that need no encoding) and orders parameters by their raw bytes, where RFC 5849
/// section 3.4.1.3.2 orders the encoded bytes (they differ, e.g., for `a` against `é`). So
/// the test hands it each name as it appears in the base string (encoded twice) and the pairs
/// in the RFC's order, by a plain encode-and-sort here; oauth1-request does the rest: the
/// values' encoding, the base string URI, the protocol parameters and their place among the
/// others, the key, the HMAC and base64.
fn oauth1_request_signature(case: &Case) -> String {
    let mut pairs: Vec<(String, String, &str)> = case
        .query
        .iter()
        .chain(&case.form)
        .map(|(name, value)| (plain_encode(name), plain_encode(value), value.as_str()))
        .collect();
    pairs.sort();
    let params: Vec<(String, &str)> = pairs
        .into_iter()
        .map(|(name, _, value)| (plain_encode(&name), value))
        .collect();

    let mut builder = oauth1_request::Builder::<_, &str>::new(
        oauth1_request::Credentials::new(&case.consumer_key, &case.consumer_secret),
        oauth1_request::HMAC_SHA1,
    );
    builder
        .token(
            case.token
                .as_deref()
                .map(|token| oauth1_request::Credentials::new(token, &case.token_secret)),
        )
        .nonce(case.nonce.as_str())
        .timestamp(NonZeroU64::new(
            u64::try_from(case.timestamp).expect("a positive timestamp"),
        ))
        .callback(case.callback.as_deref())
        .verifier(case.verifier.as_deref())
        .version(case.version);
    // The URL as the url crate serializes it (scheme and host lower-cased, default port
    // dropped), without its query: oauth1-request encodes it as the base string URI.
    let uri = &case.url[..url::Position::AfterPath];
    let header = builder.authorize(
        &case.method.to_ascii_uppercase(),
        uri,
        &oauth1_request::request::AssertSorted::new(
            params.iter().map(|(name, value)| (name.as_str(), *value)),
        ),
    );
    signature_in(&header)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn client_signatures_equal_oauth1_requests(case in case()) {
        let theirs = oauth1_request_signature(&case);
        for header in client_headers(&case) {
            prop_assert_eq!(&signature_in(&header), &theirs, "header: {}", header);
        }
    }
}

/// Why the judge above sorts for oauth1-request: its own order is not the RFC's when a byte
/// that needs encoding meets one that does not (`é` is 0xC3 0xA9, above `a`, but `%C3%A9` sorts
/// below `a`). If this starts failing, oauth1-request has changed and can be handed the raw
/// pairs.
#[test]
fn oauth1_request_orders_raw_bytes_not_encoded_ones() {
    let case = Case {
        method: "GET",
        url: url::Url::parse("https://marketplace.example/p?n=%C3%A9&n=a").unwrap(),
        query: vec![("n".into(), "é".into()), ("n".into(), "a".into())],
        form: Vec::new(),
        consumer_key: "key".into(),
        consumer_secret: "secret".into(),
        token: None,
        token_secret: String::new(),
        nonce: "nonce".into(),
        timestamp: 1_700_000_000,
        callback: None,
        verifier: None,
        version: true,
    };
    let raw_order = {
        let mut builder = oauth1_request::Builder::<_, &str>::new(
            oauth1_request::Credentials::new("key", "secret"),
            oauth1_request::HMAC_SHA1,
        );
        builder
            .nonce("nonce")
            .timestamp(NonZeroU64::new(1_700_000_000))
            .version(true);
        let list = oauth1_request::ParameterList::new([("n", "é"), ("n", "a")]);
        signature_in(&builder.get("https://marketplace.example/p", &list))
    };
    let ours = signature_in(&client_headers(&case)[0]);
    assert_eq!(ours, oauth1_request_signature(&case));
    assert_ne!(ours, raw_order);
}

// ---- oauthlib ---------------------------------------------------------------------------------

const REQUIREMENTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/support/oauthlib-requirements.txt"
);
const VERIFIER_SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/support/oauthlib_verify.py"
);

/// How many random requests the batch holds (each is also checked with a wrong secret).
const BATCH: usize = 300;

#[test]
fn client_signatures_verify_under_oauthlib() {
    let started = Instant::now();
    let python = venv_python();
    let installed = started.elapsed();

    let mut runner = TestRunner::default();
    let strategy = case();
    let mut entries = Vec::with_capacity(2 * BATCH);
    let mut expected = Vec::with_capacity(2 * BATCH);
    while entries.len() < 2 * BATCH {
        let case = strategy
            .new_tree(&mut runner)
            .expect("a random case")
            .current();
        if oauthlib_drops_the_semicolon(&case.url) {
            continue;
        }
        // The header the client would send: its own path when it applies.
        let header = client_headers(&case).pop().expect("a header");
        let entry = json!({
            "method": case.method,
            "uri": case.url.as_str(),
            "authorization": header,
            "body": case.form_body(),
            "consumer_secret": case.consumer_secret,
            "token_secret": case.token_secret,
        });
        let mut wrong = entry.clone();
        wrong["consumer_secret"] = json!(format!("{}x", case.consumer_secret));
        entries.extend([entry, wrong]);
        expected.extend([true, false]);
    }

    let scratch = scratch();
    let batch_name = format!("oauthlib-requests-{}.json", std::process::id());
    let batch = scratch.path().join(&batch_name);
    scratch
        .write(&batch_name, serde_json::to_vec_pretty(&entries).unwrap())
        .unwrap_or_else(|error| panic!("{error}"));
    let verified_at = Instant::now();
    let output = Command::new(&python)
        .arg(VERIFIER_SCRIPT)
        .arg(&batch)
        .output()
        .unwrap_or_else(|error| panic!("running {}: {error}", python.display()));
    assert!(
        output.status.success(),
        "{VERIFIER_SCRIPT} failed on {} ({}):\n{}",
        batch.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let verdicts: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("the verifier's output is not JSON: {error}"));
    assert_eq!(verdicts.len(), entries.len(), "one verdict per request");

    let wrong: Vec<String> = entries
        .iter()
        .zip(&verdicts)
        .zip(&expected)
        .filter(|((_, verdict), expected)| verdict["valid"].as_bool() != Some(**expected))
        .map(|((entry, verdict), expected)| {
            format!(
                "expected {}: {}\noauthlib's base string: {}",
                if *expected { "valid" } else { "invalid" },
                serde_json::to_string_pretty(entry).unwrap(),
                verdict["base_string"]
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} verdicts differ (batch kept in {}):\n{}",
        wrong.len(),
        entries.len(),
        batch.display(),
        wrong.join("\n\n")
    );
    scratch.remove(&batch_name).ok();
    eprintln!(
        "oauthlib judge: {BATCH} requests and {BATCH} forgeries checked in {:.1?} \
         (venv ready in {installed:.1?})",
        verified_at.elapsed()
    );
}

/// Whether oauthlib would sign a different base string URI than the one sent: its
/// `base_string_uri` splits the URL with Python's `urlparse`, which takes what follows the
/// last segment's first `;` as "parameters", and `urlunparse` drops an empty one, so a path
/// ending `/a;` is signed as `/a` (RFC 5849 section 3.4.1.2 keeps the path as sent; the client
/// and the other judges do). Such requests are left out of the batch.
fn oauthlib_drops_the_semicolon(url: &url::Url) -> bool {
    let last_segment = url.path().rsplit('/').next().unwrap_or_default();
    last_segment
        .find(';')
        .is_some_and(|at| at + 1 == last_segment.len())
}

/// The tests' scratch folder (`CARGO_TARGET_TMPDIR`, the target directory's `tmp/`), through
/// which the batch and the venv's marker are written.
fn scratch() -> OutputDir {
    OutputDir::create(env!("CARGO_TARGET_TMPDIR"))
        .unwrap_or_else(|error| panic!("the scratch folder: {error}"))
}

/// The Python of a venv under `CARGO_TARGET_TMPDIR` (the target directory's `tmp/`) with the
/// pinned oauthlib, made on first use.
fn venv_python() -> PathBuf {
    let venv = python_venv::venv("oauthlib-venv", REQUIREMENTS, "import oauthlib.oauth1");
    python_venv::bin(&venv, "python")
}
