//! The ratio table printed at the end of every bench of the workspace (shared through
//! `#[path = ...] mod ratio;`, so it lives in one place).
//!
//! Each bench measures the project's code and its baseline in the same run with criterion,
//! then calls [`report`]: it reads criterion's mean estimates
//! (`<target>/criterion/<group>/<function>/new/estimates.json`, field `mean.point_estimate`,
//! in nanoseconds) and prints one row per comparison: benchmark, project time, baseline time,
//! ratio (project / baseline), target and whether it is met. An estimate older than this
//! process (a benchmark filtered out of this run) is shown as "not run" rather than reused.
//!
//! [`mean_ns`], [`show`] and [`print_table`] serve the benches' other tables too (instruction
//! counts, bounds, memory).

use std::path::PathBuf;
use std::time::SystemTime;

/// A measured function: its criterion group and function name.
#[derive(Clone, Copy, Debug)]
pub struct Id {
    /// The benchmark group (`c.benchmark_group(..)`).
    pub group: &'static str,
    /// The function inside the group (`group.bench_function(..)`).
    pub function: &'static str,
}

/// `Id { group, function }` in one line.
pub const fn id(group: &'static str, function: &'static str) -> Id {
    Id { group, function }
}

/// What the ratio project / baseline must satisfy (`Target::default()`: nothing, the row is
/// for information).
#[derive(Clone, Copy, Debug, Default)]
pub struct Target {
    /// project / baseline must be at most this (1.15: at most 15% slower).
    pub max_ratio: Option<f64>,
    /// baseline / project must be at least this (3: at least three times faster).
    pub min_speedup: Option<f64>,
}

impl Target {
    fn describe(self) -> String {
        match (self.max_ratio, self.min_speedup) {
            (Some(bound), _) => format!("<= {bound:.2}"),
            (None, Some(factor)) => format!("<= {:.3} ({factor}x faster)", 1.0 / factor),
            (None, None) => "-".to_owned(),
        }
    }

    fn met(self, ratio: f64) -> &'static str {
        if self.max_ratio.is_none() && self.min_speedup.is_none() {
            return "-";
        }
        let bound_met = self.max_ratio.is_none_or(|bound| ratio <= bound);
        let speedup_met = self
            .min_speedup
            .is_none_or(|factor| ratio > 0.0 && 1.0 / ratio >= factor);
        if bound_met && speedup_met {
            "yes"
        } else {
            "NO"
        }
    }
}

/// One line of the table: the project's function against a baseline, or alone.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// What is compared, as shown in the table.
    pub name: &'static str,
    /// The project's code.
    pub project: Id,
    /// The baseline, if any.
    pub baseline: Option<Id>,
    /// The target for project / baseline.
    pub target: Target,
}

/// Where criterion writes its results: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`,
/// else `<workspace>/target/criterion` (the workspace being the parent of the bench's crate).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
    };
    target.join("criterion")
}

/// The mean time in nanoseconds of `id`, if it was measured by this process.
pub fn mean_ns(id: Id, started: SystemTime) -> Option<f64> {
    let path = criterion_dir()
        .join(id.group)
        .join(id.function)
        .join("new/estimates.json");
    let fresh = std::fs::metadata(&path)
        .and_then(|meta| meta.modified())
        .is_ok_and(|modified| modified >= started);
    if !fresh {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let estimates: serde_json::Value = serde_json::from_str(&text).ok()?;
    estimates["mean"]["point_estimate"].as_f64()
}

/// A duration in nanoseconds with a readable unit.
pub fn show(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

/// Prints the table of `rows` under `title`, reading the estimates written since `started`.
pub fn report(title: &str, started: SystemTime, rows: &[Row]) {
    let header = ["benchmark", "project", "baseline", "ratio", "target", "met"];
    let mut lines: Vec<[String; 6]> = vec![header.map(str::to_owned)];
    for row in rows {
        let project = mean_ns(row.project, started);
        let baseline = row.baseline.map(|id| mean_ns(id, started));
        let not_run = || "not run".to_owned();
        let (baseline_text, ratio_text, met) = match (project, baseline) {
            (_, None) => ("-".to_owned(), "-".to_owned(), "-".to_owned()),
            (Some(project), Some(Some(baseline))) => {
                let ratio = project / baseline;
                let ratio_text = if ratio < 1.0 {
                    format!("{ratio:.3} ({:.2}x faster)", 1.0 / ratio)
                } else {
                    format!("{ratio:.3}")
                };
                (show(baseline), ratio_text, row.target.met(ratio).to_owned())
            }
            (_, Some(baseline)) => (
                baseline.map_or_else(not_run, show),
                "-".to_owned(),
                "-".to_owned(),
            ),
        };
        lines.push([
            row.name.to_owned(),
            project.map_or_else(not_run, show),
            baseline_text,
            ratio_text,
            row.target.describe(),
            met,
        ]);
    }
    print_table(
        &format!("{title} (ratio = project / baseline, criterion mean)"),
        &lines,
    );
}

/// Prints `lines` (the first is the header) as a Markdown table with aligned columns, under
/// `title`.
pub fn print_table<const N: usize>(title: &str, lines: &[[String; N]]) {
    let mut widths = [0; N];
    for line in lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    println!("\n{title}");
    for (index, line) in lines.iter().enumerate() {
        let cells: Vec<String> = line
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        println!("| {} |", cells.join(" | "));
        if index == 0 {
            let rule: Vec<String> = widths.iter().map(|&width| "-".repeat(width)).collect();
            println!("|-{}-|", rule.join("-|-"));
        }
    }
}
