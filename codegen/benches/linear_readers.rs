//! Linearity of the spec's readers: each run on a synthetic input of n and of 10n, so that a
//! ratio near 10 shows time growing linearly with the input (a quadratic reader gives 100).
//!
//! - `spec/*`: loading a spec (pre-scan, YAML parse, resolve with every check), on four
//!   shapes: a valid spec of many types, many aliases (within the expansion bound), many
//!   errors (unknown types with suggestions), and long lines.
//! - `reference/*`: the reference reader (`audit::parse_reference`) on resources with many
//!   fields, long `data:` lines and many unreadable rows.
//! - `generate/*`: generating the client from a resolved spec of n units (a unit: an error
//!   code, an enum, two types with fields of every kind, a paged method and another one; see
//!   `tests/support/synthetic.rs`).
//! - `spec-diff/*`: `diff::diff` of two resolved specs of n units that differ in every item
//!   (renamed types and methods included): both crates generated and read, every rule run.
//! - `spec-audit/*`: `audit::audit` of a spec of n types, each with a `narrowed:` quote that is
//!   looked up in a reference of n resources.
//!
//! `cargo bench -p marketplace-codegen --bench linear_readers`; figures in BENCHMARKS.md.

#[path = "../../tests/benches/ratio.rs"]
mod ratio;
#[path = "../tests/support/synthetic.rs"]
#[allow(
    dead_code,
    reason = "the expected changes are the tests' (large_specs.rs), not the bench's"
)]
mod synthetic;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::Criterion;
use marketplace_codegen::diff::{self, Side};
use marketplace_codegen::{SpecSource, audit, generate, resolve};
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
/// Units of the generation, spec-diff and spec-audit rows: a unit is heavier than a type of
/// the loaders' rows (generated, formatted and read back with syn).
const GENERATE_N: usize = 100;
const DIFF_N: usize = 50;
/// At 300 types the audit's automaton and indexes fit in a core's cache and at 3,000 they do
/// not, which alone gives a ratio near 16: from 1,000 both sizes are out of it, and the ratio
/// measures the algorithm (near 11).
const AUDIT_N: usize = 1_000;

fn resolved(sources: &[SpecSource]) -> marketplace_codegen::ir::Api {
    resolve(sources).expect("the synthetic spec is valid")
}

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
    let mut group = c.benchmark_group("generate");
    for (name, units) in [("n", GENERATE_N), ("10n", 10 * GENERATE_N)] {
        let api = resolved(&synthetic::api(units, synthetic::Side::Base));
        group.bench_function(name, |b| b.iter(|| generate(black_box(&api)).is_ok()));
    }
    group.finish();
    let mut group = c.benchmark_group("spec-diff");
    for (name, units) in [("n", DIFF_N), ("10n", 10 * DIFF_N)] {
        let base_sources = synthetic::api(units, synthetic::Side::Base);
        let head_sources = synthetic::api(units, synthetic::Side::Head);
        let (base, head) = (resolved(&base_sources), resolved(&head_sources));
        group.bench_function(name, |b| {
            b.iter(|| {
                let side = |api, sources| Side { api, sources };
                diff::diff(
                    side(black_box(&base), &base_sources),
                    side(black_box(&head), &head_sources),
                )
                .map(|diff| diff.changes.len())
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("spec-audit");
    for (name, units) in [("n", AUDIT_N), ("10n", 10 * AUDIT_N)] {
        let sources = synthetic::audited(units);
        let api = resolved(&sources);
        let reference = audit::parse_reference(&synthetic::reference(units), "bench.md")
            .expect("the synthetic reference reads");
        group.bench_function(name, |b| {
            b.iter(|| {
                audit::audit(black_box(&api), &sources, &reference)
                    .findings
                    .len()
            })
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
            row("generation", "generate"),
            row("spec-diff", "spec-diff"),
            row("spec-audit: narrowed quotes", "spec-audit"),
        ],
    );
}
