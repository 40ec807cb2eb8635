//! Every reader of untrusted input in the client, at n and 10 n: linear growth shows as a
//! ratio near 10 (a quadratic reader's is near 100).
//!
//! Each reader gets the hostile shape that would expose a hidden loop over what it read: an
//! error body listing thousands of distinct codes (a `contains` on a growing list made that
//! 20 s), a text of thousands of secret words (a rescan from each hit made that 24 s), escapes
//! nested three deep (every view of the scrubber at work), text made of near-matches of a known
//! secret (the most threads its matcher can have), a secret-named value nested thousands deep,
//! index-keyed objects out of order, a recording of many lines, a callback URL of many pairs.
//! Both criterion's time and callgrind's instruction count (steady whatever the load) are
//! compared; the verdict is on instructions, `linear` when 10 n costs at most 13 times n.

#[path = "support/callgrind.rs"]
mod callgrind;
#[path = "support/plot.rs"]
mod plot;
#[allow(dead_code)]
#[path = "ratio.rs"]
mod ratio;
#[path = "support/thousands.rs"]
mod thousands;

use std::time::{Duration, SystemTime};

use callgrind::Functions;
use criterion::Criterion;
use marketplace_client::files::OutputDir;
use marketplace_client::oauth::RequestToken;
use marketplace_client::recording::{self, Exchange, Side};
use marketplace_client::{ApiFailure, Client, ConsumerCredentials, Secret, TimesheetList};
use marketplace_client::{Envelope, decode, redact};
use marketplace_codegen::SpecSource;
use marketplace_tests::fixtures;
use ratio::id;
use serde_json::{Value, json};

const GROUP: &str = "readers";

/// The ratio of instructions at 10 n to n that still reads as linear (10, with room for
/// the allocator's and the hash maps' steps).
const LINEAR: f64 = 13.0;

/// A reader and its hostile input, run at n and 10 n.
struct Case {
    /// The criterion function names stem (`<key>-n`, `<key>-10n`).
    key: &'static str,
    reader: &'static str,
    input: &'static str,
    run: Box<dyn Fn(usize)>,
    /// The n of the table.
    n: usize,
}

fn cases(dir: &std::path::Path) -> Vec<Case> {
    let secret = Secret::new("abcdefghijklmnopqrstuvwxyz0123456789");
    let consumer = Secret::new("k1SnWq9vXa7Lr3Pb");
    let token = Secret::new("t0Kq4sD8fJ2mZ6yHc1");
    let client = Client::builder(
        "https://marketplace.example",
        ConsumerCredentials::new("key", "consumer-secret"),
    )
    .build()
    .unwrap();
    let request = RequestToken {
        token: "request".to_owned(),
        secret: Secret::new("request-secret"),
        callback_confirmed: true,
    };
    let page: Value =
        serde_json::from_slice(&fixtures::read("pay/getTimesheetsForBid.json").unwrap()).unwrap();
    let sheet = page["data"]["timesheets"]["0"].clone();
    let recordings = dir.to_path_buf();
    vec![
        Case {
            key: "scrub-clean",
            reader: "scrubber",
            input: "a clean answer (the usual case)",
            n: 2_000,
            run: Box::new(|k| {
                let text =
                    r#"{"id": 880104, "note": "Hourly work, week 3", "rate": "30.00"}, "#.repeat(k);
                std::hint::black_box(redact(&text, &[]));
            }),
        },
        Case {
            key: "scrub-clean-known",
            reader: "scrubber",
            input: "a clean answer, two secrets known",
            n: 2_000,
            run: Box::new(move |k| {
                let text =
                    r#"{"id": 880104, "note": "Hourly work, week 3", "rate": "30.00"}, "#.repeat(k);
                std::hint::black_box(redact(&text, &[&consumer, &token]));
            }),
        },
        Case {
            key: "scrub-pairs",
            reader: "scrubber",
            input: "secret=x pairs in prose",
            n: 2_000,
            run: Box::new(|k| {
                let text = "a secret and secret=x ".repeat(k);
                std::hint::black_box(redact(&text, &[]));
            }),
        },
        Case {
            key: "scrub-words",
            reader: "scrubber",
            input: "secret words, no pair",
            n: 4_000,
            run: Box::new(|k| {
                let text = "secret ".repeat(k);
                std::hint::black_box(redact(&text, &[]));
            }),
        },
        Case {
            key: "scrub-escapes",
            reader: "scrubber",
            input: "escapes three deep (%25252F)",
            n: 2_000,
            run: Box::new(|k| {
                let text = "%25252F\\u0025&amp; ".repeat(k);
                std::hint::black_box(redact(&text, &[]));
            }),
        },
        Case {
            key: "scrub-near-matches",
            reader: "scrubber",
            input: "near-matches of a 36-byte known secret",
            n: 500,
            run: Box::new(move |k| {
                let text = "abcdefghijklmnopqrstuvwxyz012345678%".repeat(k);
                std::hint::black_box(redact(&text, &[&secret]));
            }),
        },
        Case {
            key: "scrub-nesting",
            reader: "scrubber",
            input: "a secret-named value nested n deep",
            n: 10_000,
            run: Box::new(|k| {
                let text = format!(
                    r#"{{"secret": {}{}, "a": 1}}"#,
                    "[".repeat(k),
                    "]".repeat(k)
                );
                std::hint::black_box(redact(&text, &[]));
            }),
        },
        Case {
            key: "error-json-codes",
            reader: "error body",
            input: "JSON listing n distinct codes",
            n: 2_000,
            run: Box::new(|k| {
                let errors: Vec<Value> = (0..k)
                    .map(|i| json!({"code": format!("E_CODE_{i}"), "message": "no"}))
                    .collect();
                let body = json!({"rcode": 0, "errors": errors}).to_string();
                std::hint::black_box(ApiFailure::parse(body.as_bytes()));
            }),
        },
        Case {
            key: "error-text-codes",
            reader: "error body",
            input: "text of n distinct E_ words",
            n: 2_000,
            run: Box::new(|k| {
                let body: String = (0..k).map(|i| format!("E_CODE_{i} happened. ")).collect();
                std::hint::black_box(ApiFailure::parse(body.as_bytes()));
            }),
        },
        Case {
            key: "error-form-pairs",
            reader: "error body",
            input: "form of n error pairs",
            n: 2_000,
            run: Box::new(|k| {
                let body: Vec<String> = (0..k)
                    .map(|i| format!("error=E_CODE_{i}&error_description=no+{i}"))
                    .collect();
                std::hint::black_box(ApiFailure::parse(body.join("&").as_bytes()));
            }),
        },
        Case {
            key: "decode-reversed-keys",
            reader: "response decode",
            input: "n timesheets keyed in reverse order",
            n: 200,
            run: Box::new(move |k| {
                let sheets: serde_json::Map<String, Value> = (0..k)
                    .rev()
                    .map(|i| (i.to_string(), sheet.clone()))
                    .collect();
                let mut body = page.clone();
                body["data"]["timesheets"] = Value::Object(sheets);
                body["data"]["numResults"] = json!(k);
                let body = body.to_string();
                let page = decode::<Envelope<TimesheetList>>(body.as_bytes()).unwrap();
                assert_eq!(page.data.timesheets.len(), k);
            }),
        },
        Case {
            key: "recording-lines",
            reader: "recording",
            input: "a file of n exchanges, read and cleaned",
            n: 200,
            run: Box::new(move |k| {
                let name = format!("bench-{k}.jsonl");
                let file = recordings.join(&name);
                if !file.exists() {
                    let mut exchange = Exchange::new(Side::Client, "pay/getInvoice", 200);
                    exchange.body =
                        Some(r#"{"rcode":1,"data":{"password":"x","n":"30.00"}}"#.into());
                    let line = exchange.to_line() + "\n";
                    OutputDir::open(&recordings)
                        .and_then(|dir| dir.write(&name, line.repeat(k)))
                        .unwrap();
                }
                let read = recording::read(&file).unwrap();
                let cleaned: Vec<Exchange> =
                    read.into_iter().map(|r| r.exchange.redacted()).collect();
                assert_eq!(cleaned.len(), k);
            }),
        },
        Case {
            key: "spec-error-lists",
            reader: "spec validation",
            input: "a code naming one method n times, a method naming the code n times",
            n: 2_000,
            run: Box::new(|k| {
                let spec = format!(
                    "types:\n  T:\n    doc: T.\n    fields:\n      a: {{ type: string, doc: A. }}\n\
                     errors:\n  E_A:\n    doc: A.\n    methods: [{}]\nmethods:\n  a/b:\n    \
                     doc: B.\n    response: T\n    errors: [E_A]\n  a/c:\n    doc: C.\n    \
                     response: T\n    errors: [{}]\n",
                    vec!["a/b"; k].join(", "),
                    vec!["E_A"; k].join(", ")
                );
                let sources = [SpecSource {
                    path: "spec/x.yaml".to_owned(),
                    text: spec,
                }];
                // Refused (each repeated entry located), in time linear in the lists.
                assert!(marketplace_codegen::resolve(&sources).is_err());
            }),
        },
        Case {
            key: "callback-pairs",
            reader: "callback URL",
            input: "n query pairs",
            n: 1_000,
            run: Box::new(move |k| {
                let pairs: String = (0..k).map(|i| format!("&p{i}=v{i}")).collect();
                let url = format!("myapp://cb?oauth_token=request&oauth_verifier=v{pairs}");
                std::hint::black_box(client.verifier_from_callback(&request, &url).unwrap());
            }),
        },
    ]
}

fn main() {
    let started = SystemTime::now();
    // One directory for this process and the callgrind runs of its own binary: beside the
    // bench's executable (the user's build folder, not the shared temporary one, where
    // another user could plant a link at a name known in advance).
    let exe = std::env::current_exe().expect("the bench's own path");
    let build = OutputDir::open(exe.parent().expect("the bench's folder")).unwrap();
    let scratch = "readers-bench-files";
    let dir = build.subdir(scratch).unwrap().path().to_path_buf();
    let cases = cases(&dir);
    // Criterion and callgrind name functions with `&'static str`.
    let names: Vec<(&'static str, &'static str)> = cases
        .iter()
        .map(|case| {
            let small: &'static str = format!("{}-n", case.key).leak();
            let large: &'static str = format!("{}-10n", case.key).leak();
            (small, large)
        })
        .collect();
    let mut functions = Functions::new();
    for (case, (small, large)) in cases.iter().zip(&names) {
        functions.add(id(GROUP, small), || (case.run)(case.n));
        functions.add(id(GROUP, large), || (case.run)(10 * case.n));
    }
    callgrind::child(&functions);

    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10);
    let mut group = criterion.benchmark_group(GROUP);
    for (name, function) in functions.of_group(GROUP) {
        group.bench_function(name, |b| b.iter(function));
    }
    group.finish();
    criterion.final_summary();

    let header = [
        "reader",
        "hostile input",
        "n",
        "time n",
        "time 10 n",
        "x",
        "instructions n",
        "instructions 10 n",
        "x",
        "growth",
    ];
    let mut lines = vec![header.map(str::to_owned)];
    // The plots: each reader's time, and its instructions (the verdict's figure), at n and 10 n.
    let (mut times, mut counts) = (Vec::new(), Vec::new());
    for (case, (small, large)) in cases.iter().zip(&names) {
        let time = |name| ratio::mean_ns(id(GROUP, name), started);
        let count = |name| callgrind::count(id(GROUP, name));
        let (t1, t10) = (time(small), time(large));
        let (i1, i10) = (count(small), count(large));
        let growth = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if a > 0.0 => Some(b / a),
            _ => None,
        };
        let time_growth = growth(t1, t10);
        let count_growth = growth(i1.map(|i| i as f64), i10.map(|i| i as f64));
        let show_growth = |g: Option<f64>| g.map_or("-".to_owned(), |g| format!("{g:.1}"));
        let verdict = match count_growth.or(time_growth) {
            Some(g) if g <= LINEAR => "linear",
            Some(_) => "NOT LINEAR",
            None => "-",
        };
        if let (Some(t1), Some(t10)) = (t1, t10) {
            times.push(plot::Series {
                name: format!("{} (x{})", case.key, show_growth(time_growth)),
                points: vec![(1.0, t1 / 1e6), (10.0, t10 / 1e6)],
                dashed: false,
            });
        }
        if let (Some(i1), Some(i10)) = (i1, i10) {
            counts.push(plot::Series {
                name: format!("{} (x{})", case.key, show_growth(count_growth)),
                points: vec![(1.0, i1 as f64 / 1e6), (10.0, i10 as f64 / 1e6)],
                dashed: false,
            });
        }
        lines.push([
            case.reader.to_owned(),
            case.input.to_owned(),
            thousands::thousands(case.n as u64),
            t1.map_or("not run".into(), ratio::show),
            t10.map_or("not run".into(), ratio::show),
            show_growth(time_growth),
            callgrind::show(i1),
            callgrind::show(i10),
            show_growth(count_growth),
            verdict.to_owned(),
        ]);
    }
    ratio::print_table(
        "readers of untrusted input at n and 10 n (linear: 10 n costs at most 13 times n, in instructions)",
        &lines,
    );
    let x_label = "input size (x n, each reader's n in BENCHMARKS.md section 7)";
    // Only when measuring: criterion's `--test` mode runs each function once.
    let measured = std::env::args().any(|arg| arg == "--bench");
    if measured && !times.is_empty() {
        plot::write(&plot::Plot {
            file: "readers.svg",
            title: "Readers of untrusted input: time at n and 10 n (linear: x10)",
            x_label,
            y_label: "time (ms, criterion mean)",
            log: true,
            series: &times,
            legend_right: true,
        });
    }
    if measured && !counts.is_empty() {
        plot::write(&plot::Plot {
            file: "readers_instructions.svg",
            title: "Readers of untrusted input: instructions at n and 10 n (linear: x10)",
            x_label,
            y_label: "instructions (millions, callgrind)",
            log: true,
            series: &counts,
            legend_right: true,
        });
    }
    let _ = build.remove_all(scratch);
}
