//! Decoding full pages of the wire format: the project's quirk decoders against plain serde.
//!
//! The pages and the decoders compared on each (project, plain derive, and for information
//! the parse floor, no JSON path, the plain derive from a `str`) are in `support/pages.rs`. Each is measured three ways in one run:
//!
//! - time, criterion's mean;
//! - time, interleaved: project and plain derive in alternating batches (`support/interleave.rs`),
//!   the median of the rounds' ratios, steady on a loaded machine;
//! - instructions of one call, counted by callgrind (`support/callgrind.rs`), which do not
//!   move with the load at all.
//!
//! Target: project / plain derive <= 1.10 in time and in instructions. The memory of the same
//! decodes is measured by the `memory` bench (it needs a counting allocator, which would slow
//! every allocation here).

#[path = "support/callgrind.rs"]
mod callgrind;
#[path = "support/interleave.rs"]
mod interleave;
#[path = "support/pages.rs"]
mod pages;
// Only criterion's estimates and the table printer are used here, not `report`.
#[allow(dead_code)]
#[path = "ratio.rs"]
mod ratio;
#[path = "support/thousands.rs"]
mod thousands;

use std::time::{Duration, SystemTime};

use callgrind::Functions;
use criterion::Criterion;
use ratio::id;

const TARGET: f64 = 1.10;

/// `a / b` to three places, or "-" when either is missing.
fn ratio_of(a: Option<f64>, b: Option<f64>) -> (Option<f64>, String) {
    match (a, b) {
        (Some(a), Some(b)) => (Some(a / b), format!("{:.3}", a / b)),
        _ => (None, "-".to_owned()),
    }
}

fn met(ratio: Option<f64>) -> &'static str {
    match ratio {
        Some(ratio) if ratio <= TARGET => "yes",
        Some(_) => "NO",
        None => "-",
    }
}

fn main() {
    let started = SystemTime::now();
    let pages = pages::all();
    let mut functions = Functions::new();
    for page in &pages {
        for decoder in page.decoders() {
            functions.add(id(page.group, decoder.name), move || decoder.run());
        }
    }
    callgrind::child(&functions);
    for page in &pages {
        println!("{}", page.describe());
    }

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
        .configure_from_args();
    for page in &pages {
        let mut group = c.benchmark_group(page.group);
        for (name, function) in functions.of_group(page.group) {
            group.bench_function(name, |b| b.iter(function));
        }
        group.finish();
    }
    c.final_summary();

    // The slower figures only when benchmarking (criterion's `--test` mode runs each function
    // once, as a check).
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let mut lines = vec![
        [
            "page",
            "time: project",
            "plain derive",
            "ratio",
            "interleaved ratio, median (quartiles)",
            "instructions: project",
            "plain derive",
            "ratio",
            "target",
            "met (time / interleaved / instructions)",
        ]
        .map(str::to_owned),
    ];
    let mut information = vec![
        [
            "page",
            "parse floor: time",
            "instructions",
            "no JSON path: time",
            "instructions",
            "plain derive from a str: time",
            "instructions",
            "project / plain derive from a str, instructions",
        ]
        .map(str::to_owned),
    ];
    for page in &pages {
        let time = |name| ratio::mean_ns(id(page.group, name), started);
        let count = |name| {
            benchmarking
                .then(|| callgrind::count(id(page.group, name)))
                .flatten()
        };
        let [project, plain, floor, no_path, plain_str] = page.decoders();
        let interleaved =
            benchmarking.then(|| interleave::ratios(500, 20, &|| project.run(), &|| plain.run()));
        let counts = [&project, &plain, &floor, &no_path, &plain_str].map(|d| count(d.name));
        let to_f64 = |count: Option<u64>| count.map(|n| n as f64);
        let (time_ratio, time_text) = ratio_of(time(project.name), time(plain.name));
        let (count_ratio, count_text) = ratio_of(to_f64(counts[0]), to_f64(counts[1]));
        let show_time = |ns: Option<f64>| ns.map_or_else(|| "not run".to_owned(), ratio::show);
        lines.push([
            page.label.to_owned(),
            show_time(time(project.name)),
            show_time(time(plain.name)),
            time_text,
            interleaved.map_or_else(|| "-".to_owned(), interleave::show),
            callgrind::show(counts[0]),
            callgrind::show(counts[1]),
            count_text,
            format!("<= {TARGET:.2}"),
            [
                met(time_ratio),
                met(interleaved.map(|[_, median, _]| median)),
                met(count_ratio),
            ]
            .join(" / "),
        ]);
        information.push([
            page.label.to_owned(),
            show_time(time(floor.name)),
            callgrind::show(counts[2]),
            show_time(time(no_path.name)),
            callgrind::show(counts[3]),
            show_time(time(plain_str.name)),
            callgrind::show(counts[4]),
            ratio_of(to_f64(counts[0]), to_f64(counts[4])).1,
        ]);
    }
    ratio::print_table(
        "decode: project against the plain derive (time: criterion mean and interleaved \
         batches; instructions: callgrind, one call)",
        &lines,
    );
    ratio::print_table("decode, for information", &information);
}
