//! Properties checked on random inputs (a short proptest run; the fuzz targets in `tests/fuzz`
//! run the same properties for as long as you like):
//!
//! - for random methods, URLs and parameter sets (`support/signing_cases.rs`: unicode, every
//!   reserved character, duplicate names, empty values, blank tokens) the client's signature,
//!   with the query read back from the URL and as the client signs it (query pairs), verifies
//!   under the fake marketplace's independent verifier, and the client's base string equals one
//!   built by a deliberately simple second implementation here (`signing_oracles.rs` holds two
//!   more judges: oauth1-request and Python's oauthlib);
//! - decoding arbitrary JSON shaped like responses, or arbitrary bytes, never panics, and a
//!   failure names the JSON path of the value that failed;
//! - the wire decoders read back what they are given: integers, decimals and DD-MON-YY days.

#[path = "support/signing_cases.rs"]
mod signing_cases;

use marketplace_client::oauth::signature::{authorization_header, base_string};
use marketplace_client::{
    BillingDetails, Envelope, InvoiceSummary, PaymentDetails, ProviderList, StatusReportDetails,
    StatusReportList, TimesheetDetails, TimesheetList, Workview, decode,
};
use marketplace_tests::fake::verify::{RawRequest, check_signature};
use marketplace_tests::fixtures;
use proptest::prelude::*;
use serde_json::Value;
use signing_cases::{Case, case, plain_encode as enc};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// RFC 5849's base string, written as plainly as possible.
fn simple_base_string(case: &Case) -> String {
    let url = &case.url;
    let default_port = matches!(
        (url.scheme(), url.port()),
        ("http", Some(80)) | ("https", Some(443)) | (_, None)
    );
    let host = url.host_str().unwrap().to_lowercase();
    let authority = if default_port {
        host
    } else {
        format!("{host}:{}", url.port().unwrap())
    };
    let base_uri = format!(
        "{}://{}{}",
        url.scheme().to_lowercase(),
        authority,
        url.path()
    );

    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    pairs.extend(case.form.iter().cloned());
    pairs.push(("oauth_consumer_key".into(), case.consumer_key.clone()));
    if let Some(token) = &case.token {
        pairs.push(("oauth_token".into(), token.clone()));
    }
    if let Some(callback) = &case.callback {
        pairs.push(("oauth_callback".into(), callback.clone()));
    }
    if let Some(verifier) = &case.verifier {
        pairs.push(("oauth_verifier".into(), verifier.clone()));
    }
    pairs.push(("oauth_nonce".into(), case.nonce.clone()));
    pairs.push(("oauth_timestamp".into(), case.timestamp.to_string()));
    pairs.push(("oauth_signature_method".into(), "HMAC-SHA1".into()));
    if case.version {
        pairs.push(("oauth_version".into(), "1.0".into()));
    }
    let mut encoded: Vec<(String, String)> = pairs.iter().map(|(k, v)| (enc(k), enc(v))).collect();
    encoded.sort();
    let normalized = encoded
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    format!(
        "{}&{}&{}",
        case.method.to_uppercase(),
        enc(&base_uri),
        enc(&normalized)
    )
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn the_base_string_matches_a_simple_second_implementation(case in case()) {
        let expected = simple_base_string(&case);
        prop_assert_eq!(&base_string(&case.url_request(), &case.oauth()), &expected);
        if let Some(request) = case.pairs_request() {
            prop_assert_eq!(&base_string(&request, &case.oauth()), &expected);
        }
    }

    #[test]
    fn client_signatures_verify_under_the_fakes_independent_verifier(case in case()) {
        let mut headers = vec![authorization_header(&case.url_request(), &case.oauth(), &case.key())];
        if let Some(request) = case.pairs_request() {
            headers.push(authorization_header(&request, &case.oauth(), &case.key()));
        }
        let host = match case.url.port() {
            Some(port) => format!("{}:{port}", case.url.host_str().unwrap()),
            None => case.url.host_str().unwrap().to_owned(),
        };
        let body = case.form_body();
        for header in &headers {
            let raw = RawRequest {
                method: case.method,
                scheme: case.url.scheme(),
                host: &host,
                path: case.url.path(),
                query: case.url.query(),
                authorization: Some(header),
                form: body.as_deref().map(str::as_bytes),
            };
            let verified = check_signature(&raw, &case.consumer_secret, &case.token_secret);
            prop_assert!(verified.is_ok(), "{:?}\nheader: {}", verified, header);
            // A different secret must not verify.
            let wrong = format!("{}x", case.consumer_secret);
            prop_assert!(check_signature(&raw, &wrong, &case.token_secret).is_err());
        }
    }
}

// ---- decoding ---------------------------------------------------------------------------------

/// JSON leaves that exercise every decoder: numbers, numeric and non-numeric text, dates, nulls.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON has no NaN or infinity", |f| f.is_finite())
            .prop_map(Value::from),
        Just(Value::from("30.00")),
        Just(Value::from("1,000")),
        Just(Value::from(" 5")),
        Just(Value::from("05-JAN-26")),
        Just(Value::from("31-FEB-26")),
        Just(Value::from("5-jan-26")),
        Just(Value::from("99999999999999999999999")),
        ".{0,8}".prop_map(Value::from),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[0-9a-z]{1,3}", inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// The fixture with the value at a random path replaced (or removed).
fn mutated(fixture: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let wire: Value = serde_json::from_slice(&fixtures::read(fixture).unwrap()).unwrap();
    (
        prop::collection::vec(any::<prop::sample::Index>(), 1..6),
        prop::option::of(json()),
    )
        .prop_map(move |(path, replacement)| {
            let mut value = wire.clone();
            replace_at(&mut value, &path, replacement.unwrap_or(Value::Null));
            serde_json::to_vec(&value).unwrap()
        })
}

/// Replaces the node reached by following `steps` (each picks a child) with `replacement`.
fn replace_at(node: &mut Value, steps: &[prop::sample::Index], replacement: Value) {
    let has_children = match node {
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => false,
    };
    let Some((step, rest)) = steps.split_first().filter(|_| has_children) else {
        *node = replacement;
        return;
    };
    let child = match node {
        Value::Object(map) => {
            let key = map.keys().nth(step.index(map.len())).cloned().unwrap();
            map.get_mut(&key).unwrap()
        }
        Value::Array(items) => {
            let at = step.index(items.len());
            &mut items[at]
        }
        _ => unreachable!("only containers have children"),
    };
    replace_at(child, rest, replacement);
}

/// Decodes a body, which must either succeed or fail with a JSON path.
fn decodes_or_names_a_path<T: serde::de::DeserializeOwned>(
    body: &[u8],
) -> Result<(), TestCaseError> {
    if let Err(error) = decode::<Envelope<T>>(body) {
        prop_assert!(
            !error.path.is_empty() && !error.message.is_empty(),
            "{error:?}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn mutated_timesheet_lists_decode_or_fail_with_a_path(body in mutated("pay/getTimesheetsForBid.json")) {
        decodes_or_names_a_path::<TimesheetList>(&body)?;
    }

    #[test]
    fn mutated_status_reports_decode_or_fail_with_a_path(body in mutated("pay/getStatusReportsForBid.json")) {
        decodes_or_names_a_path::<StatusReportList>(&body)?;
    }

    #[test]
    fn mutated_single_records_decode_or_fail_with_a_path(
        timesheet in mutated("pay/getTimesheet.json"),
        report in mutated("pay/getStatusReport.json"),
        billing in mutated("pay/getBilling.json"),
        invoice in mutated("pay/getInvoice.json"),
        payment in mutated("pay/getPayment.json"),
    ) {
        decodes_or_names_a_path::<TimesheetDetails>(&timesheet)?;
        decodes_or_names_a_path::<StatusReportDetails>(&report)?;
        decodes_or_names_a_path::<BillingDetails>(&billing)?;
        decodes_or_names_a_path::<InvoiceSummary>(&invoice)?;
        decodes_or_names_a_path::<PaymentDetails>(&payment)?;
    }

    #[test]
    fn mutated_providers_and_workviews_decode_or_fail_with_a_path(
        providers in mutated("manage/getMyProviders.json"),
        workview in mutated("workroom/getWorkviewDetails.json"),
    ) {
        decodes_or_names_a_path::<ProviderList>(&providers)?;
        decodes_or_names_a_path::<Workview>(&workview)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = decode::<Envelope<TimesheetList>>(&body);
        let _ = decode::<Envelope<Workview>>(&body);
    }
}

// ---- the wire decoders read back what they are given ------------------------------------------

#[derive(Debug, serde::Deserialize)]
struct Scalars {
    #[serde(with = "marketplace_client::wire::lenient")]
    integer: i64,
    #[serde(with = "marketplace_client::wire::lenient")]
    decimal: marketplace_client::Decimal,
    #[serde(with = "marketplace_client::wire::lenient")]
    day: jiff::civil::Date,
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn numbers_and_days_round_trip_through_their_wire_text(
        integer in any::<i64>(),
        whole in 0u64..10_000_000_000,
        fraction in 0u32..100,
        day in 0i64..36_524,
    ) {
        let date = jiff::civil::date(2000, 1, 1).checked_add(jiff::Span::new().days(day)).unwrap();
        prop_assume!(date.year() <= 2099);
        let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
        let dmy = format!("{:02}-{}-{:02}", date.day(), months[(date.month() - 1) as usize], date.year() % 100);
        let decimal = format!("{whole}.{fraction:02}");
        let body = format!(r#"{{"integer": "{integer}", "decimal": "{decimal}", "day": "{dmy}"}}"#);
        let scalars: Scalars = serde_json::from_str(&body).unwrap();
        prop_assert_eq!(scalars.integer, integer);
        prop_assert_eq!(scalars.decimal.to_string(), decimal);
        prop_assert_eq!(scalars.day, date);
    }
}
