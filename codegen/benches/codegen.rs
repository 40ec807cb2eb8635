//! Code generation time: reading, validating and generating the whole client from `spec/`.
//!
//! - `load_and_generate`: `marketplace_codegen::load_spec_dir` + `generate_from_sources` on the
//!   workspace's `spec/` folder, i.e. what `cargo xtask codegen` does before comparing with the
//!   files on disk (the files are read every iteration; nothing is written).
//!
//! There is no baseline: the time per run is reported, and the size of the generated code
//! (files, lines, bytes) is printed once.

#[path = "../../tests/benches/ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::Criterion;
use marketplace_codegen::{GeneratedFile, generate_from_sources, load_spec_dir};
use ratio::{Row, Target, id};

fn run(spec: &Path) -> Vec<GeneratedFile> {
    let sources = load_spec_dir(spec, "spec").expect("the spec loads");
    generate_from_sources(&sources).expect("the spec generates")
}

fn main() {
    let started = SystemTime::now();
    let spec = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec");

    let files = run(&spec);
    let lines: usize = files.iter().map(|file| file.contents.lines().count()).sum();
    let bytes: usize = files.iter().map(|file| file.contents.len()).sum();
    println!(
        "generated code: {} files, {lines} lines, {bytes} bytes ({})",
        files.len(),
        files
            .iter()
            .map(|file| file.path.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(20)
        .configure_from_args();
    let mut group = c.benchmark_group("codegen");
    group.bench_function("load_and_generate", |b| {
        b.iter(|| run(black_box(&spec)));
    });
    group.finish();
    c.final_summary();

    ratio::report(
        "codegen",
        started,
        &[Row {
            name: "spec/ -> generated files",
            project: id("codegen", "load_and_generate"),
            baseline: None,
            target: Target::default(),
        }],
    );
}
