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
//! oauth1-request, then the other way round, for many rounds): on a shared machine the load
//! changes between criterion's two measurements, which are seconds apart, but hardly within
//! one round, so the median of the rounds' ratios is the steadier figure.

#[path = "../../tests/benches/ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::num::NonZeroU64;
use std::time::{Duration, Instant, SystemTime};

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

/// The quartiles of project / baseline over `rounds` rounds of `batch` calls of each,
/// alternating which goes first.
fn interleaved_ratios(
    rounds: usize,
    batch: usize,
    project: impl Fn() -> String,
    baseline: impl Fn() -> String,
) -> [f64; 3] {
    let time = |f: &dyn Fn() -> String| {
        let start = Instant::now();
        for _ in 0..batch {
            black_box(f());
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|round| {
            if round % 2 == 0 {
                let ours = time(&project);
                ours / time(&baseline)
            } else {
                let theirs = time(&baseline);
                time(&project) / theirs
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    [rounds / 4, rounds / 2, 3 * rounds / 4].map(|at| ratios[at])
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

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .sample_size(50)
        .configure_from_args();
    let mut group = c.benchmark_group("signing");
    group.bench_function("project", |b| b.iter(|| project(black_box(&url))));
    group.bench_function("oauth1_request", |b| b.iter(|| black_box(baseline())));
    group.bench_function("project_url", |b| b.iter(|| project_url(black_box(&url))));
    group.bench_function("project_base_string", |b| {
        b.iter(|| base_string(&request(black_box(&url)), &oauth()))
    });
    group.finish();
    c.final_summary();

    ratio::report(
        "signing, one Authorization header",
        started,
        &[
            Row {
                name: "GET getTimesheetsForBid, HMAC-SHA1",
                project: id("signing", "project"),
                baseline: Some(id("signing", "oauth1_request")),
                target: Target {
                    max_ratio: Some(0.8),
                    min_speedup: None,
                },
            },
            Row {
                name: "  project, query read back from the URL",
                project: id("signing", "project_url"),
                baseline: Some(id("signing", "oauth1_request")),
                target: Target::default(),
            },
            Row {
                name: "  project: base string as a String only",
                project: id("signing", "project_base_string"),
                baseline: None,
                target: Target::default(),
            },
        ],
    );

    // Only when benchmarking (criterion's `--test` mode runs each function once).
    if std::env::args().any(|arg| arg == "--bench") {
        let (rounds, batch) = (2000, 200);
        let [low, median, high] =
            interleaved_ratios(rounds, batch, || project(black_box(&url)), baseline);
        println!(
            "interleaved, {rounds} rounds of {batch} calls each: project / oauth1_request \
             median {median:.3} (quartiles {low:.3} to {high:.3}), target <= 0.80"
        );
    }
}
