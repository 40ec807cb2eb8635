//! The plots BENCHMARKS.md shows: what a growth bench measured, drawn as SVG with plotters and
//! written to `docs/benchmarks/` of the workspace through `marketplace_client::files` (whole or
//! not at all). Shared through `#[path = ...] mod plot;` (the paging and readers benches, the
//! build-cost plotter `tests/examples/build_cost_plot.rs`).

use std::path::PathBuf;

use marketplace_client::files::OutputDir;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

/// Where the plots go, relative to the workspace (BENCHMARKS.md links them there).
pub const PLOT_DIR: &str = "docs/benchmarks";

/// One line of a plot: its name in the legend and its points (x, y).
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// The points, in the order they are joined.
    pub points: Vec<(f64, f64)>,
    /// Dashed: a bound or a reference rather than a measure.
    pub dashed: bool,
}

/// A plot: a title, its axes, and the lines drawn on them.
pub struct Plot<'a> {
    /// The file name in [`PLOT_DIR`] (`paging.svg`).
    pub file: &'a str,
    /// The caption above the plot.
    pub title: &'a str,
    /// The x axis's label.
    pub x_label: &'a str,
    /// The y axis's label.
    pub y_label: &'a str,
    /// Both axes logarithmic (growth over decades), or both linear from zero.
    pub log: bool,
    /// The lines.
    pub series: &'a [Series],
    /// Room on the right of the lines for the legend (many lines, all across the plot).
    pub legend_right: bool,
}

/// The lines' colors, told apart by most readers (matplotlib's "tab10").
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The workspace's root (the parent of the tests crate).
fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The range of `values` with a margin, or `None` when there is nothing to draw.
fn range(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let (low, high) = values
        .filter(|value| value.is_finite() && (!log || *value > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), value| {
            (low.min(value), high.max(value))
        });
    if low > high {
        return None;
    }
    Some(if log {
        (low / 1.5, high * 1.5)
    } else {
        (0.0, high * 1.1)
    })
}

/// Draws `plot` and writes it to [`PLOT_DIR`]; says where on stdout, or why not on stderr (a
/// plot that cannot be drawn or written never fails the bench's own figures).
pub fn write(plot: &Plot<'_>) {
    match render(plot) {
        Ok(svg) => {
            let written = OutputDir::open(workspace())
                .and_then(|root| root.subdir(PLOT_DIR))
                .and_then(|dir| dir.write(plot.file, svg));
            match written {
                Ok(()) => println!("plot: {PLOT_DIR}/{}", plot.file),
                Err(error) => eprintln!("plot {}: {error}", plot.file),
            }
        }
        Err(error) => eprintln!("plot {}: {error}", plot.file),
    }
}

/// The SVG text of `plot`.
pub fn render(plot: &Plot<'_>) -> Result<String, String> {
    let points = || plot.series.iter().flat_map(|series| series.points.iter());
    let mut x = range(points().map(|point| point.0), plot.log).ok_or("no point to draw")?;
    if plot.legend_right {
        x.1 = if plot.log {
            x.1 * (x.1 / x.0).powf(0.9)
        } else {
            x.1 * 2.2
        };
    }
    let y = range(points().map(|point| point.1), plot.log).ok_or("no point to draw")?;
    let mut svg = String::new();
    {
        // Taller with many lines, so the legend stays readable.
        let height = 440 + 14 * u32::try_from(plot.series.len().saturating_sub(6)).unwrap_or(0);
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|error| error.to_string())?;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(plot.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72);
        if plot.log {
            let mut chart = builder
                .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())
                .map_err(|error| error.to_string())?;
            draw(&mut chart, plot)?;
        } else {
            let mut chart = builder
                .build_cartesian_2d(x.0..x.1, y.0..y.1)
                .map_err(|error| error.to_string())?;
            draw(&mut chart, plot)?;
        }
        root.present().map_err(|error| error.to_string())?;
    }
    Ok(svg)
}

/// The mesh, the lines and the legend, on either kind of axes.
fn draw<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    plot: &Plot<'_>,
) -> Result<(), String>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(plot.x_label)
        .y_desc(plot.y_label)
        .light_line_style(TRANSPARENT)
        .bold_line_style(BLACK.mix(0.12))
        .x_label_formatter(&|value| short(*value))
        .y_label_formatter(&|value| short(*value))
        .draw()
        .map_err(|error| error.to_string())?;
    for (index, series) in plot.series.iter().enumerate() {
        let color = PALETTE[index % PALETTE.len()].to_rgba();
        let style = color.stroke_width(2);
        // Past the palette, the colors come back dashed.
        let line = if series.dashed || index >= PALETTE.len() {
            chart.draw_series(DashedLineSeries::new(
                series.points.iter().copied(),
                6,
                4,
                style,
            ))
        } else {
            chart.draw_series(LineSeries::new(series.points.iter().copied(), style))
        }
        .map_err(|error| error.to_string())?;
        line.label(series.name.as_str()).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
        });
        chart
            .draw_series(
                series
                    .points
                    .iter()
                    .map(|&point| Circle::new(point, 3, color.filled())),
            )
            .map_err(|error| error.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(if plot.legend_right {
            SeriesLabelPosition::UpperRight
        } else {
            SeriesLabelPosition::UpperLeft
        })
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(|error| error.to_string())?;
    Ok(())
}

/// A tick's label: few digits, thousands as k.
fn short(value: f64) -> String {
    if value >= 10_000.0 {
        format!("{:.0}k", value / 1000.0)
    } else if value >= 100.0 || value == value.round() {
        format!("{value:.0}")
    } else if value >= 1.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}
