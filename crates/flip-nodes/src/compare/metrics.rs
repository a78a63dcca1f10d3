//! Per-frame metrics of a variant: solver numbers from the frame's step reports, particle
//! numbers (volume, kinetic energy, RMS distance to the baseline) from its state.

use crate::stats::{LiquidVolume, SolveReport};
use flip_core::{GridSpec, Particles};
use flip_graph::StepReport;
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// One frame of one variant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// Liquid volume (m^d) at the frame's last step: of the level set where a node reports
    /// `liquid_volume` (the level-set node does), else fluid cells · dx^d.
    pub volume: f64,
    /// Fluid cells (pressure unknowns) at the frame's last solve.
    pub fluid_cells: f64,
    /// Whether `volume` came from a level set.
    #[serde(skip)]
    pub volume_from_level_set: bool,
    /// Kinetic energy Σ ½|v|² summed over particles, per unit particle mass.
    pub kinetic_energy: f64,
    /// RMS particle-position difference to the baseline (m); `None` (n/a) when the baseline
    /// has no particles this frame (it failed).
    pub rms_vs_baseline: Option<f64>,
    /// Particles.
    pub particles: usize,
}

/// All frames of one variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantReport {
    /// Variant name.
    pub name: String,
    /// Its overrides.
    pub overrides: Vec<flip_graph::Override>,
    /// Frames completed.
    pub frames: Vec<FrameMetrics>,
    /// Why it stopped early, if it did.
    pub failure: Option<String>,
}

impl VariantReport {
    /// An empty report.
    pub fn new(name: &str, overrides: &[flip_graph::Override]) -> Self {
        Self {
            name: name.into(),
            overrides: overrides.to_vec(),
            frames: Vec::new(),
            failure: None,
        }
    }
}

/// RMS distance between particles of the same index (over the shorter list; 0 when empty).
pub fn rms_distance(a: &[Vec3], b: &[Vec3]) -> f64 {
    let n = a.len().min(b.len());
    let sum: f64 = a[..n]
        .iter()
        .zip(&b[..n])
        .map(|(a, b)| f64::from(a.distance_squared(*b)))
        .sum();
    if n == 0 {
        0.0
    } else {
        (sum / n as f64).sqrt()
    }
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
            for i in 0..r.node_stats.len() {
                if let Some(v) = r.stats::<LiquidVolume>(i) {
                    m.volume = v.0;
                    m.volume_from_level_set = true;
                }
                let Some(s) = r.stats::<SolveReport>(i) else {
                    continue;
                };
                m.iterations += f64::from(s.iterations);
                m.solve_ms += s.solve_ms;
                m.residual = m.residual.max(s.residual);
                m.max_divergence = m.max_divergence.max(f64::from(s.max_divergence));
                m.fluid_cells = s.fluid_cells().map_or(0.0, |n| n as f64);
            }
        }
        m
    }

    /// Adds the particle-based metrics (call once per frame: it turns a fluid cell count into
    /// a volume).
    pub fn finish(&mut self, grid: &GridSpec, p: Option<&Particles>, baseline: Option<&Particles>) {
        if !self.volume_from_level_set {
            self.volume = self.fluid_cells * f64::from(grid.dx).powi(grid.dimension() as i32);
        }
        let Some(p) = p else { return };
        self.particles = p.len();
        self.kinetic_energy = flip_core::measure::kinetic_energy(p);
        self.rms_vs_baseline = baseline.map(|b| rms_distance(&p.pos, &b.pos));
    }

    /// The distance to the baseline as text: `n/a` when there is none.
    pub fn rms_text(&self) -> String {
        self.rms_vs_baseline
            .map_or_else(|| "n/a".into(), |d| format!("{d:.3e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_particles_have_no_distance_and_moved_ones_do() {
        let grid = GridSpec::new(4, 4, 1, 0.5);
        let mut a = Particles::default();
        a.push(Vec3::new(0.1, 0.2, 0.0), Vec3::X);
        a.push(Vec3::new(0.3, 0.4, 0.0), Vec3::ZERO);
        let mut m = FrameMetrics {
            fluid_cells: 3.0,
            ..Default::default()
        };
        m.finish(&grid, Some(&a), Some(&a));
        assert_eq!((m.rms_vs_baseline, m.particles), (Some(0.0), 2));
        assert_eq!(m.volume, 0.75);
        assert_eq!(m.kinetic_energy, 0.5);
        let mut b = a.clone();
        b.pos[0].x += 0.2;
        let mut m = FrameMetrics::default();
        m.finish(&grid, Some(&b), Some(&a));
        assert!((m.rms_vs_baseline.unwrap() - (0.04f64 / 2.0).sqrt()).abs() < 1e-6);
    }

    #[test]
    fn distance_to_a_failed_baseline_is_not_available() {
        let grid = GridSpec::new(4, 4, 1, 0.5);
        let mut a = Particles::default();
        a.push(Vec3::new(0.1, 0.2, 0.0), Vec3::X);
        let mut m = FrameMetrics::default();
        m.finish(&grid, Some(&a), None);
        assert_eq!(m.rms_vs_baseline, None);
        assert_eq!(m.rms_text(), "n/a");
        m.finish(&grid, Some(&a), Some(&a));
        assert_eq!(m.rms_text(), "0.000e0");
    }
}
