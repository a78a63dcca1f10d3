//! The terminal summary of a comparison, and its CSV/JSON files (the metrics themselves are
//! `flip_nodes::compare`'s).

use flip_nodes::compare::{FrameMetrics, VariantReport};
use std::fmt::Write as _;
use std::path::Path;

fn mean(frames: &[FrameMetrics], f: impl Fn(&FrameMetrics) -> f64) -> Option<f64> {
    (!frames.is_empty()).then(|| frames.iter().map(f).sum::<f64>() / frames.len() as f64)
}

/// `v` written with `write`, or `n/a`.
fn or_na(v: Option<f64>, write: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "n/a".into(), write)
}

/// Prints one line per variant. Figures a variant does not have are `n/a`: every figure when
/// it completed no frame, and its largest residual and divergence when it failed (the frame
/// that failed has none, so the largest of the run is not known).
pub fn print_table(reports: &[VariantReport]) {
    println!(
        "{:<14} {:>7} {:>11} {:>11} {:>10} {:>10} {:>11} {:>11} {:>11}  status",
        "variant",
        "frames",
        "solve ms/f",
        "iter/frame",
        "max res",
        "max div",
        "volume end",
        "KE end",
        "rms vs base"
    );
    for r in reports {
        let last = r.frames.last();
        let whole_run = r.failure.is_none() && !r.frames.is_empty();
        let max = |f: fn(&FrameMetrics) -> f64| {
            whole_run.then(|| r.frames.iter().map(f).fold(0.0, f64::max))
        };
        println!(
            "{:<14} {:>7} {:>11} {:>11} {:>10} {:>10} {:>11} {:>11} {:>11}  {}",
            r.name,
            r.frames.len(),
            or_na(mean(&r.frames, |m| m.solve_ms), |x| format!("{x:.2}")),
            or_na(mean(&r.frames, |m| m.iterations), |x| format!("{x:.1}")),
            or_na(max(|m| m.residual), |x| format!("{x:.2e}")),
            or_na(max(|m| m.max_divergence), |x| format!("{x:.2e}")),
            or_na(last.map(|m| m.volume), |x| format!("{x:.4}")),
            or_na(last.map(|m| m.kinetic_energy), |x| format!("{x:.4}")),
            or_na(last.and_then(|m| m.rms_vs_baseline), |d| format!("{d:.2e}")),
            r.failure.as_deref().unwrap_or("ok")
        );
    }
}

/// Writes metrics.csv and summary.json.
///
/// # Errors
/// I/O.
pub fn write_files(dir: &Path, reports: &[VariantReport]) -> anyhow::Result<()> {
    let mut csv = String::from("variant,frame,substeps,solve_ms,iterations,residual,max_divergence,volume,kinetic_energy,rms_vs_baseline,particles\n");
    for r in reports {
        for m in &r.frames {
            writeln!(
                csv,
                "{},{},{},{:.4},{},{:.4e},{:.4e},{:.6},{:.6},{},{}",
                r.name,
                m.frame,
                m.substeps,
                m.solve_ms,
                m.iterations,
                m.residual,
                m.max_divergence,
                m.volume,
                m.kinetic_energy,
                // an empty cell: no baseline to compare with
                m.rms_vs_baseline
                    .map_or(String::new(), |d| format!("{d:.6e}")),
                m.particles
            )?;
        }
    }
    std::fs::write(dir.join("metrics.csv"), csv)?;
    std::fs::write(
        dir.join("summary.json"),
        serde_json::to_string_pretty(reports)?,
    )?;
    Ok(())
}
