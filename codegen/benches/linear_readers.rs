//! Linearity of the spec's readers: each run on a synthetic input of n and of 10n, so that a
//! ratio near 10 shows time growing linearly with the input (a quadratic reader gives 100).
//!
//! - `spec/*`: loading a spec (pre-scan, YAML parse, resolve with every check), on four
//!   shapes: a valid spec of many types, many aliases (within the expansion bound), many
//!   errors (unknown types with suggestions), and long lines.
//! - `reference/*`: the reference reader (`audit::parse_reference`) on resources with many
//!   fields, long `data:` lines and many unreadable rows.
//!
//! `cargo bench -p marketplace-codegen --bench linear_readers`; figures in BENCHMARKS.md.

#[path = "../../tests/benches/ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::Criterion;
use marketplace_codegen::{SpecSource, audit, resolve};
use ratio::{Row, Target, id};

/// `units` repetitions of each shape, as spec files.
fn spec(shape: &str, units: usize) -> Vec<SpecSource> {
    let mut text = String::from("types:\n");
    match shape {
        "valid" => {
            for i in 0..units {
                text.push_str(&format!(
                    "  T{i}:\n    doc: A type.\n    fields:\n      a{i}: {{ type: string, doc: A. }}\n      b{i}: {{ type: integer, doc: B. }}\n"
                ));
            }
        }
        "aliases" => {
            text.push_str("  Base:\n    doc: &doc The same documentation, repeated by aliases.\n    fields:\n");
            for i in 0..units {
                text.push_str(&format!("      f{i}: {{ type: string, doc: *doc }}\n"));
            }
        }
        "errors" => {
            text.push_str("  Many:\n    doc: Unknown types.\n    fields:\n");
            for i in 0..units {
                text.push_str(&format!("      f{i}: {{ type: Unknwn{i}, doc: F. }}\n"));
            }
        }
        _ => {
            let doc = "word ".repeat(units * 8);
            text.push_str(&format!(
                "  Long:\n    doc: {doc}\n    fields:\n      a: {{ type: string, doc: {doc} }}\n"
            ));
        }
    }
    vec![SpecSource {
        path: "spec/bench.yaml".to_owned(),
        text,
    }]
}

fn reference(units: usize) -> String {
    let mut text = String::from("## Resources and their fields\n\n");
    for i in 0..units {
        text.push_str(&format!(
            "### Resource{i} (notes)\n\n| Field | Type | Notes |\n|---|---|---|\n| a{i}, b{i} | string | A. |\n| c{i} | Missing{i} | C. |\n\n"
        ));
    }
    text.push_str("## Endpoints\n\n### pay/method\n\ndata: ");
    let items: Vec<String> = (0..units).map(|i| format!("item{i} (integer)")).collect();
    text.push_str(&items.join(", "));
    text.push('\n');
    text
}

const SHAPES: [&str; 4] = ["valid", "aliases", "errors", "long"];
const N: usize = 300;

fn main() {
    let started = SystemTime::now();
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(10)
        .configure_from_args();
    for shape in SHAPES {
        let mut group = c.benchmark_group(format!("spec-{shape}"));
        for (name, units) in [("n", N), ("10n", 10 * N)] {
            let sources = spec(shape, units);
            group.bench_function(name, |b| b.iter(|| resolve(black_box(&sources)).is_ok()));
        }
        group.finish();
    }
    let mut group = c.benchmark_group("reference");
    for (name, units) in [("n", N), ("10n", 10 * N)] {
        let text = reference(units);
        group.bench_function(name, |b| {
            b.iter(|| audit::parse_reference(black_box(&text), "bench.md").is_ok())
        });
    }
    group.finish();
    c.final_summary();
    let linear = Target {
        max_ratio: Some(15.0),
        min_speedup: None,
    };
    let row = |name, group| Row {
        name,
        project: id(group, "10n"),
        baseline: Some(id(group, "n")),
        target: linear,
    };
    ratio::report(
        "linear readers (10n / n; near 10 is linear)",
        started,
        &[
            row("spec: valid types", "spec-valid"),
            row("spec: aliases", "spec-aliases"),
            row("spec: errors", "spec-errors"),
            row("spec: long lines", "spec-long"),
            row("reference reader", "reference"),
        ],
    );
}
