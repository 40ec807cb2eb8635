//! OAuth 1.0a signing: the client's Authorization header against the oauth1-request crate.
//!
//! Both produce the complete `Authorization` header value (HMAC-SHA1) of one data call,
//! `GET https://marketplace.example/api/pay/getTimesheetsForBid?bidId=310001&page=2&rpp=25`,
//! with the same consumer key and secret, token and secret, a fixed nonce and timestamp, and
//! `oauth_version="1.0"`:
//!
//! - `project`: `marketplace_client::oauth::signature::authorization_header` of a
//!   `PairsRequest`: the parsed URL and the query as the pairs it was built from, exactly as the
//!   client's transport signs each attempt;
//! - `oauth1_request` (baseline): `oauth1_request::Builder::get` with the URL without its query
//!   and the query as an `oauth1_request::ParameterList` (its documented way to sign query
//!   parameters).
//!
//! For information: `project_url`, the same header from a `SignatureRequest` (the query read
//! back from the URL), and `project_base_string`, the base string as a `String` (the
//! inspection path; signing streams the same text into the HMAC instead).
//!
//! The parameter structs of both are built inside the timed closure. Before timing, the
//! `oauth_signature` values are checked to be equal. Target: project / oauth1_request <= 0.8.
//!
//! After criterion's table, the same ratio measured in alternating batches (project, then
//! oauth1-request, then the other way round, for many rounds; `support/interleave.rs`): on a
//! shared machine the load changes between criterion's two measurements, which are seconds
//! apart, but hardly within one round, so the median of the rounds' ratios is the steadier
//! figure. Then the instructions of one call of each function (callgrind,
//! `support/callgrind.rs`), the figure the target is judged by on a loaded machine.

#[path = "../../tests/benches/support/callgrind.rs"]
mod callgrind;
#[path = "../../tests/benches/support/interleave.rs"]
mod interleave;
#[path = "../../tests/benches/ratio.rs"]
mod ratio;
#[path = "../../tests/benches/support/thousands.rs"]
mod thousands;

use std::hint::black_box;
use std::num::NonZeroU64;
use std::time::{Duration, SystemTime};

use callgrind::Functions;
use criterion::Criterion;
use marketplace_client::oauth::signature::{
    OAuthParams, PairsRequest, SignatureRequest, SigningKey, authorization_header, base_string,
    parse_authorization_header,
};
use ratio::{Row, Target, id};

const URL: &str =
    "https://marketplace.example/api/pay/getTimesheetsForBid?bidId=310001&page=2&rpp=25";
const BASE_URI: &str = "https://marketplace.example/api/pay/getTimesheetsForBid";
const QUERY: [(&str, &str); 3] = [("bidId", "310001"), ("page", "2"), ("rpp", "25")];
const CONSUMER_KEY: &str = "dpf43f3p2l4k3l03";
const CONSUMER_SECRET: &str = "kd94hf93k423kf44";
const TOKEN: &str = "nnch734d00sl2jdk";
const TOKEN_SECRET: &str = "pfkkdhi9sl3r4s00";
const NONCE: &str = "kllo9940pd9333jh";
const TIMESTAMP: u64 = 1_768_987_686;
const GROUP: &str = "signing";

fn request(url: &url::Url) -> PairsRequest<'_, &'static str, &'static str> {
    PairsRequest {
        method: "GET",
        url,
        query: &QUERY,
    }
}

fn url_request(url: &url::Url) -> SignatureRequest<'_> {
    SignatureRequest {
        method: "GET",
        url,
        form: &[],
    }
}

fn oauth() -> OAuthParams<'static> {
    OAuthParams {
        consumer_key: CONSUMER_KEY,
        token: Some(TOKEN),
        nonce: NONCE,
        timestamp: TIMESTAMP as i64,
        callback: None,
        verifier: None,
        version: Some("1.0"),
    }
}

fn key() -> SigningKey<'static> {
    SigningKey {
        consumer_secret: CONSUMER_SECRET,
        token_secret: TOKEN_SECRET,
    }
}

fn project(url: &url::Url) -> String {
    authorization_header(&request(url), &oauth(), &key())
}

fn project_url(url: &url::Url) -> String {
    authorization_header(&url_request(url), &oauth(), &key())
}

fn baseline() -> String {
    let mut builder = oauth1_request::Builder::<_, _>::new(
        oauth1_request::Credentials::new(CONSUMER_KEY, CONSUMER_SECRET),
        oauth1_request::HMAC_SHA1,
    );
    builder
        .token(oauth1_request::Credentials::new(TOKEN, TOKEN_SECRET))
        .nonce(NONCE)
        .timestamp(NonZeroU64::new(TIMESTAMP))
        .version(true);
    builder.get(BASE_URI, &oauth1_request::ParameterList::new(QUERY))
}

/// The decoded value of `name` in an Authorization header.
fn param(header: &str, name: &str) -> String {
    parse_authorization_header(header)
        .unwrap_or_else(|| panic!("not an OAuth header: {header}"))
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in {header}"))
        .1
}

fn main() {
    let started = SystemTime::now();
    let url = url::Url::parse(URL).expect("URL");

    let ours = project(&url);
    let theirs = baseline();
    assert_eq!(
        param(&ours, "oauth_signature"),
        param(&theirs, "oauth_signature"),
        "the two headers must carry the same signature:\n{ours}\n{theirs}"
    );
    assert_eq!(project_url(&url), ours, "both request shapes sign alike");
    for name in [
        "oauth_version",
        "oauth_token",
        "oauth_nonce",
        "oauth_timestamp",
    ] {
        assert_eq!(param(&ours, name), param(&theirs, name), "{name}");
    }

    let mut functions = Functions::new();
    functions.add(id(GROUP, "project"), || project(black_box(&url)));
    functions.add(id(GROUP, "oauth1_request"), baseline);
    functions.add(id(GROUP, "project_url"), || project_url(black_box(&url)));
    functions.add(id(GROUP, "project_base_string"), || {
        base_string(&request(black_box(&url)), &oauth())
    });
    callgrind::child(&functions);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(50)
        .configure_from_args();
    let mut group = c.benchmark_group(GROUP);
    for (name, function) in functions.of_group(GROUP) {
        group.bench_function(name, |b| b.iter(function));
    }
    group.finish();
    c.final_summary();

    ratio::report(
        "signing, one Authorization header",
        started,
        &[
            Row {
                name: "GET getTimesheetsForBid, HMAC-SHA1",
                project: id(GROUP, "project"),
                baseline: Some(id(GROUP, "oauth1_request")),
                target: Target {
                    max_ratio: Some(0.8),
                    min_speedup: None,
                },
            },
            Row {
                name: "  project, query read back from the URL",
                project: id(GROUP, "project_url"),
                baseline: Some(id(GROUP, "oauth1_request")),
                target: Target::default(),
            },
            Row {
                name: "  project: base string as a String only",
                project: id(GROUP, "project_base_string"),
                baseline: None,
                target: Target::default(),
            },
        ],
    );

    // Only when benchmarking (criterion's `--test` mode runs each function once).
    if std::env::args().any(|arg| arg == "--bench") {
        let (rounds, batch) = (2000, 200);
        let ratios = interleave::ratios(
            rounds,
            batch,
            &|| {
                black_box(project(black_box(&url)));
            },
            &|| {
                black_box(baseline());
            },
        );
        println!(
            "\ninterleaved, {rounds} rounds of {batch} calls each: project / oauth1_request \
             {}, target <= 0.80",
            interleave::show(ratios)
        );
        let count = |name| callgrind::count(id(GROUP, name));
        let theirs = count("oauth1_request");
        let mut lines = vec![
            [
                "function",
                "instructions",
                "/ oauth1_request",
                "target",
                "met",
            ]
            .map(str::to_owned),
        ];
        for name in [
            "project",
            "oauth1_request",
            "project_url",
            "project_base_string",
        ] {
            let ours = count(name);
            let ratio = ours.zip(theirs).map(|(a, b)| a as f64 / b as f64);
            let target = name == "project";
            lines.push([
                name.to_owned(),
                callgrind::show(ours),
                ratio.map_or_else(|| "-".to_owned(), |r| format!("{r:.3}")),
                if target { "<= 0.80" } else { "-" }.to_owned(),
                match ratio {
                    Some(r) if target => if r <= 0.8 { "yes" } else { "NO" }.to_owned(),
                    _ => "-".to_owned(),
                },
            ]);
        }
        ratio::print_table(
            "signing, instructions of one header (callgrind, one call)",
            &lines,
        );
    }
}
