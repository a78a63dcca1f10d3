//! PNG line plots of the per-frame metrics, one file per metric, one line per variant.

use anyhow::{anyhow, Result};
use flip_nodes::compare::{FrameMetrics, VariantReport};
use plotters::prelude::*;
use std::path::Path;

type Getter = fn(&FrameMetrics) -> f64;

const METRICS: [(&str, &str, Getter, bool); 7] = [
    (
        "solve_ms",
        "pressure solve time per frame (ms)",
        |m| m.solve_ms,
        true,
    ),
    (
        "iterations",
        "solver iterations per frame",
        |m| m.iterations,
        true,
    ),
    ("residual", "largest final residual", |m| m.residual, true),
    (
        "max_divergence",
        "max |div u| after projection (1/s)",
        |m| m.max_divergence,
        true,
    ),
    (
        "volume",
        "liquid volume (fluid cells · dx^d)",
        |m| m.volume,
        false,
    ),
    (
        "kinetic_energy",
        "kinetic energy: sum of |v|^2/2 over particles (per unit particle mass)",
        |m| m.kinetic_energy,
        false,
    ),
    (
        "rms_vs_baseline",
        "RMS particle distance to baseline (m)",
        // no point where the baseline failed (n/a, not 0)
        |m| m.rms_vs_baseline.unwrap_or(f64::NAN),
        false,
    ),
];

/// Writes `plot_<metric>.png` for every metric.
///
/// # Errors
/// Drawing or I/O failures.
pub fn write_all(dir: &Path, reports: &[VariantReport]) -> Result<()> {
    for (name, title, get, log) in METRICS {
        let path = dir.join(format!("plot_{name}.png"));
        plot(&path, title, reports, get, log).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn plot(
    path: &Path,
    title: &str,
    reports: &[VariantReport],
    get: Getter,
    log: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let frames = reports
        .iter()
        .map(|r| r.frames.len())
        .max()
        .unwrap_or(1)
        .max(2) as u32;
    let values: Vec<f64> = reports
        .iter()
        .flat_map(|r| r.frames.iter().map(get))
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if values.is_empty() {
        (0.0, 1.0)
    } else if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, hi + 1.0)
    };
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(80);
    let palette = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
    ];
    macro_rules! draw {
        ($chart:expr) => {{
            let mut c = $chart;
            c.configure_mesh().x_desc("frame").draw()?;
            for (k, r) in reports.iter().enumerate() {
                let color = palette[k % palette.len()];
                let pts: Vec<(u32, f64)> = r
                    .frames
                    .iter()
                    .map(|m| (m.frame, get(m)))
                    .filter(|(_, v)| v.is_finite() && (!log || *v > 0.0))
                    .collect();
                c.draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                    .label(r.name.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
            }
            c.configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }};
    }
    if log {
        draw!(builder.build_cartesian_2d(1u32..frames, (lo * 0.9..hi * 1.1).log_scale())?);
    } else {
        let pad = 0.05 * (hi - lo);
        draw!(builder.build_cartesian_2d(1u32..frames, lo - pad..hi + pad)?);
    }
    root.present()?;
    Ok(())
}
