//! Draws `docs/benchmarks/build_cost.svg` (BENCHMARKS.md section 8) from the figures
//! `tests/benches/build_cost.sh` writes at the end of a run (`build-cost.tsv` in its scratch
//! folder); the script runs it:
//!
//! ```sh
//! cargo run -p marketplace-tests --example build_cost_plot -- <build-cost.tsv>
//! ```
//!
//! The file: a first line `# <when and where it was measured>`, then one line per figure,
//! tab-separated: measure, profile, spec lines, CPU seconds (user + sys). Each measure and
//! profile is a line of the plot: CPU seconds against spec lines.

use std::collections::BTreeMap;
use std::process::ExitCode;

#[path = "../benches/support/plot.rs"]
mod plot;

/// The measures drawn, as the script names them, and how the legend says them.
const MEASURES: [(&str, &str); 3] = [
    ("clean", "clean build"),
    ("doc", "rebuild after a doc edit"),
    ("type", "rebuild after a type edit"),
];

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: build_cost_plot <build-cost.tsv>");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("build_cost_plot: {path}: {error}");
            return ExitCode::from(2);
        }
    };
    let mut when = String::new();
    let mut lines: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        if let Some(comment) = line.strip_prefix("# ") {
            when = comment.to_owned();
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let parsed = match fields[..] {
            [measure, profile, spec, cpu] => spec
                .parse::<f64>()
                .ok()
                .zip(cpu.parse::<f64>().ok())
                .map(|point| ((measure.to_owned(), profile.to_owned()), point)),
            _ => None,
        };
        let Some((key, point)) = parsed else {
            eprintln!(
                "build_cost_plot: {path}:{}: expected measure, profile, spec lines, CPU seconds",
                number + 1
            );
            return ExitCode::from(2);
        };
        lines.entry(key).or_default().push(point);
    }
    let mut series = Vec::new();
    for (measure, said) in MEASURES {
        for profile in ["debug", "release"] {
            if let Some(points) = lines.get(&(measure.to_owned(), profile.to_owned())) {
                let mut points = points.clone();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                series.push(plot::Series {
                    name: format!("{said}, {profile}"),
                    points,
                    dashed: profile == "release",
                });
            }
        }
    }
    if series.is_empty() {
        eprintln!("build_cost_plot: {path}: no clean, doc or type figure");
        return ExitCode::from(2);
    }
    let x_label = format!("spec lines (1x, 2x, 4x); measured {when}");
    plot::write(&plot::Plot {
        file: "build_cost.svg",
        title: "Build cost of marketplace-client against spec size",
        x_label: &x_label,
        y_label: "CPU seconds (user + sys, median)",
        log: false,
        series: &series,
        legend_right: false,
    });
    ExitCode::SUCCESS
}
