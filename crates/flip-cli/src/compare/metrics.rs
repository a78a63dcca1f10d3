//! Per-frame metrics of a variant, the terminal summary, and CSV/JSON output.

use flip_core::{GridSpec, Particles};
use flip_graph::StepReport;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// One frame of one variant.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FrameMetrics {
    /// Frame (1-based).
    pub frame: u32,
    /// Substeps.
    pub substeps: usize,
    /// Pressure-solve time summed over substeps (ms).
    pub solve_ms: f64,
    /// Iterations summed over substeps.
    pub iterations: f64,
    /// Largest final residual of the frame.
    pub residual: f64,
    /// Largest max |∇·u| after projection (1/s).
    pub max_divergence: f64,
    /// Liquid volume at the frame's last solve (fluid cells · dx^d).
    pub volume: f64,
    /// Kinetic energy Σ ½|v|² per unit particle mass.
    pub kinetic_energy: f64,
    /// RMS particle-position difference to the baseline (m).
    pub rms_vs_baseline: f64,
    /// Particles.
    pub particles: usize,
}

/// All frames of one variant.
#[derive(Clone, Debug, Serialize)]
pub struct VariantReport {
    /// Variant name.
    pub name: String,
    /// Its overrides.
    pub overrides: Vec<String>,
    /// Frames completed.
    pub frames: Vec<FrameMetrics>,
    /// Why it stopped early, if it did.
    pub failure: Option<String>,
}

impl VariantReport {
    /// An empty report.
    pub fn new(name: &str, overrides: &[String]) -> Self {
        Self {
            name: name.into(),
            overrides: overrides.to_vec(),
            frames: Vec::new(),
            failure: None,
        }
    }
}

fn stat(stats: &[(String, f64)], name: &str) -> Option<f64> {
    stats.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
}

impl FrameMetrics {
    /// Solver metrics from a frame's step reports (summed over every pressure node).
    pub fn from_steps(frame: u32, steps: &[StepReport]) -> Self {
        let mut m = Self {
            frame,
            substeps: steps.len(),
            ..Default::default()
        };
        for r in steps {
            for stats in &r.node_stats {
                let Some(it) = stat(stats, "iterations") else {
                    continue;
                };
                m.iterations += it;
                m.solve_ms += stat(stats, "solve_ms").unwrap_or(0.0);
                m.residual = m.residual.max(stat(stats, "residual").unwrap_or(0.0));
                m.max_divergence = m
                    .max_divergence
                    .max(stat(stats, "max_divergence").unwrap_or(0.0));
                m.volume = stat(stats, "fluid_cells").unwrap_or(0.0);
            }
        }
        m
    }
}

/// Adds the particle-based metrics.
pub fn finish(
    m: &mut FrameMetrics,
    grid: &GridSpec,
    p: Option<&Particles>,
    baseline: Option<&Particles>,
) {
    m.volume *= f64::from(grid.dx).powi(grid.dimension() as i32);
    let Some(p) = p else { return };
    m.particles = p.len();
    m.kinetic_energy = flip_core::measure::kinetic_energy(p);
    if let Some(b) = baseline {
        let n = p.len().min(b.len());
        let sum: f64 = p.pos[..n]
            .iter()
            .zip(&b.pos[..n])
            .map(|(a, b)| f64::from(a.distance_squared(*b)))
            .sum();
        m.rms_vs_baseline = if n == 0 { 0.0 } else { (sum / n as f64).sqrt() };
    }
}

fn mean(frames: &[FrameMetrics], f: impl Fn(&FrameMetrics) -> f64) -> f64 {
    if frames.is_empty() {
        f64::NAN
    } else {
        frames.iter().map(f).sum::<f64>() / frames.len() as f64
    }
}

/// Prints one line per variant.
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
        let last = r.frames.last().cloned().unwrap_or_default();
        let max = |f: fn(&FrameMetrics) -> f64| r.frames.iter().map(f).fold(0.0, f64::max);
        println!(
            "{:<14} {:>7} {:>11.2} {:>11.1} {:>10.2e} {:>10.2e} {:>11.4} {:>11.4} {:>11.2e}  {}",
            r.name,
            r.frames.len(),
            mean(&r.frames, |m| m.solve_ms),
            mean(&r.frames, |m| m.iterations),
            max(|m| m.residual),
            max(|m| m.max_divergence),
            last.volume,
            last.kinetic_energy,
            last.rms_vs_baseline,
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
                "{},{},{},{:.4},{},{:.4e},{:.4e},{:.6},{:.6},{:.6e},{}",
                r.name,
                m.frame,
                m.substeps,
                m.solve_ms,
                m.iterations,
                m.residual,
                m.max_divergence,
                m.volume,
                m.kinetic_energy,
                m.rms_vs_baseline,
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
