//! Linearity of the recording reader and the wire audit's walk (`recording::read` then
//! `wire_audit::run` on the committed spec), on recordings of n and 10n: answers with many
//! unknown keys and error answers listing many codes. A ratio near 10 is linear.
//!
//! `cargo bench -p xtask --bench wire_audit_reader`; figures in BENCHMARKS.md.

#[path = "../../tests/benches/ratio.rs"]
mod ratio;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::Criterion;
use ratio::{Row, Target, id};
use xtask::{codegen, wire_audit};

fn line(status: u16, body: &serde_json::Value) -> String {
    serde_json::json!({
        "format": "marketplace-recording/1",
        "side": "server",
        "time": "2024-01-01T00:00:00Z",
        "method": "pay/getTimesheet",
        "http_method": "GET",
        "path": "/api/pay/getTimesheet",
        "status": status,
        "body": body.to_string(),
    })
    .to_string()
}

/// A recording of `units` answers with unknown keys and one error answer of `units` codes.
fn recording(units: usize) -> String {
    let mut text = String::new();
    for i in 0..units {
        let data = serde_json::json!({ format!("unknown{i}"): "x", "rate": "1.5" });
        let body = serde_json::json!({"api": "pay/getTimesheet", "apiVersion": 1, "rcode": 1, "data": data});
        text.push_str(&line(200, &body));
        text.push('\n');
    }
    let codes: Vec<serde_json::Value> = (0..units * 10)
        .map(|i| serde_json::json!({"code": format!("E_B_{i}")}))
        .collect();
    text.push_str(&line(
        400,
        &serde_json::json!({"rcode": 0, "errors": codes}),
    ));
    text.push('\n');
    text
}

fn main() {
    let started = SystemTime::now();
    let dir = tempfile::tempdir().expect("a scratch folder");
    let out = marketplace_client::files::OutputDir::open(dir.path()).expect("the scratch folder");
    let root = codegen::workspace_root();
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(10)
        .configure_from_args();
    let mut group = c.benchmark_group("wire-audit");
    for (name, units) in [("n", 200), ("10n", 2000)] {
        let path = dir.path().join(format!("{name}.jsonl"));
        out.write(format!("{name}.jsonl"), recording(units))
            .expect("written");
        let options =
            wire_audit::Options::parse(&[path.to_str().expect("UTF-8")]).expect("options");
        group.bench_function(name, |b| {
            b.iter(|| wire_audit::run(black_box(&root), &options).map(|o| o.audit.findings.len()))
        });
    }
    group.finish();
    c.final_summary();
    ratio::report(
        "recording reader + wire-audit walk (10n / n; near 10 is linear)",
        started,
        &[Row {
            name: "recording + walk",
            project: id("wire-audit", "10n"),
            baseline: Some(id("wire-audit", "n")),
            target: Target {
                max_ratio: Some(15.0),
                min_speedup: None,
            },
        }],
    );
}
