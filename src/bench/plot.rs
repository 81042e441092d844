//! The benchmark as a picture: per-puzzle time against grid size, one colour per engine, on a
//! log scale, drawn as SVG (plotters' SVG backend: no system font libraries needed).

use plotters::prelude::*;

use super::{percentile, EngineKind, Record};

/// Drawing the plot failed: plotters' error is the source.
#[derive(Debug, thiserror::Error)]
#[error("plot: {0}")]
pub struct PlotError(#[source] Box<dyn std::error::Error + Send + Sync>);

fn err(e: impl std::error::Error + Send + Sync + 'static) -> PlotError {
    PlotError(Box::new(e))
}

fn colour(e: EngineKind) -> RGBColor {
    match e {
        EngineKind::Native => RGBColor(0x1f, 0x77, 0xb4),
        EngineKind::Fd => RGBColor(0xd6, 0x27, 0x28),
        EngineKind::Plain => RGBColor(0x2c, 0xa0, 0x2c),
        EngineKind::GprologFd => RGBColor(0x94, 0x67, 0xbd),
        EngineKind::GprologPlain => RGBColor(0xff, 0x7f, 0x0e),
        EngineKind::SwiplFd => RGBColor(0x8c, 0x56, 0x4b),
        EngineKind::SwiplPlain => RGBColor(0x17, 0xbe, 0xcf),
    }
}

/// Horizontal offset of an engine's points, so that they do not hide each other.
fn offset(e: EngineKind) -> f64 {
    match e {
        EngineKind::Native => -0.3,
        EngineKind::Fd => -0.2,
        EngineKind::Plain => -0.1,
        EngineKind::GprologFd => 0.0,
        EngineKind::GprologPlain => 0.1,
        EngineKind::SwiplFd => 0.2,
        EngineKind::SwiplPlain => 0.3,
    }
}

/// The SVG text of the plot. Timed-out solves are drawn as crosses on the timeout line; each
/// engine's median per size is joined by a line.
pub fn svg(records: &[Record], timeout_ms: f64, title: &str) -> Result<String, PlotError> {
    let sizes: Vec<usize> = records.iter().map(|r| r.size).collect();
    let (lo, hi) = match (sizes.iter().min(), sizes.iter().max()) {
        (Some(&lo), Some(&hi)) => (lo as f64 - 0.5, hi as f64 + 0.5),
        _ => (0.5, 1.5),
    };
    let finished = records.iter().filter_map(|r| r.time_ms);
    let fastest = finished.fold(timeout_ms, f64::min).max(1e-4);
    let (y_lo, y_hi) = (fastest / 2.0, timeout_ms.max(fastest) * 3.0);
    let mut engines: Vec<EngineKind> = Vec::new();
    for r in records {
        if !engines.contains(&r.engine) {
            engines.push(r.engine);
        }
    }
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(80)
            .build_cartesian_2d(lo..hi, (y_lo..y_hi).log_scale())
            .map_err(err)?;
        let whole = |x: &f64| {
            if (x - x.round()).abs() < 1e-6 {
                format!("{}", x.round())
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .x_desc("grid size N")
            .y_desc("time per puzzle (ms, log scale)")
            .x_labels(((hi - lo) as usize + 1) * 2)
            .x_label_formatter(&whole)
            .y_label_formatter(&|y| format!("{y}"))
            .draw()
            .map_err(err)?;
        let limit = [(lo, timeout_ms), (hi, timeout_ms)];
        chart
            .draw_series(LineSeries::new(limit, BLACK.mix(0.35)))
            .map_err(err)?
            .label(format!("timeout ({} s)", timeout_ms / 1000.0))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.mix(0.35)));
        for &e in &engines {
            let c = colour(e);
            let mine: Vec<&Record> = records.iter().filter(|r| r.engine == e).collect();
            let points = mine
                .iter()
                .filter_map(|r| Some((r.size as f64 + offset(e), r.time_ms?)));
            chart
                .draw_series(points.map(|p| Circle::new(p, 3, c.mix(0.7).filled())))
                .map_err(err)?
                .label(e.name())
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled()));
            let timeouts = mine
                .iter()
                .filter(|r| r.time_ms.is_none() && r.status == super::RunStatus::Timeout)
                .map(|r| Cross::new((r.size as f64 + offset(e), timeout_ms), 5, c));
            chart.draw_series(timeouts).map_err(err)?;
            let mut line = Vec::new();
            let mut ns: Vec<usize> = mine.iter().map(|r| r.size).collect();
            ns.sort_unstable();
            ns.dedup();
            for n in ns {
                let times: Vec<f64> = mine
                    .iter()
                    .filter(|r| r.size == n && r.status != super::RunStatus::Error)
                    .map(|r| r.time_ms.unwrap_or(f64::INFINITY))
                    .collect();
                let m = percentile(&times, 0.5);
                if m.is_finite() {
                    line.push((n as f64 + offset(e), m));
                }
            }
            chart
                .draw_series(LineSeries::new(line, c.stroke_width(2)))
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(out)
}
