//! What the volume correction reports (`volume_correction`).

use flip_graph::NodeStats;

/// One volume correction: its stage times and how far the liquid was from its rest density.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VolumeCorrectionStats {
    /// Time to measure density and level set from the particles (ms); `None` when wired
    /// before advection with the level set's measurement.
    pub measure_ms: Option<f64>,
    /// The correction solve; `None` until a rest density is known.
    pub solve: Option<CorrectionSolve>,
}

/// The correction's solve and displacement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CorrectionSolve {
    /// Time to assemble the correction problem (ms).
    pub assemble_ms: f64,
    /// Time to solve it (ms).
    pub solve_ms: f64,
    /// Time to displace the particles or build the shift field (ms).
    pub displace_ms: f64,
    /// Iterations of the solve.
    pub iterations: u32,
    /// Final residual of the solve.
    pub residual: f64,
    /// Rest density.
    pub rest_density: f32,
    /// Mean density error.
    pub density_error: f64,
    /// Volume error.
    pub volume_error: f64,
    /// Largest shift, in cells.
    pub max_shift_cells: f32,
}

impl VolumeCorrectionStats {
    /// Whether there is anything to report.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.measure_ms.is_none() && self.solve.is_none()
    }
}

impl NodeStats for VolumeCorrectionStats {
    // named apart from the pressure solve's statistics, which summaries add up
    fn values(&self) -> Vec<(&'static str, f64)> {
        let mut v: Vec<_> = self
            .measure_ms
            .map(|t| ("correction_measure_ms", t))
            .into_iter()
            .collect();
        if let Some(s) = &self.solve {
            v.extend([
                ("correction_assemble_ms", s.assemble_ms),
                ("correction_solve_ms", s.solve_ms),
                ("correction_displace_ms", s.displace_ms),
                ("correction_iterations", f64::from(s.iterations)),
                ("correction_residual", s.residual),
                ("rest_density", f64::from(s.rest_density)),
                ("density_error", s.density_error),
                ("volume_error", s.volume_error),
                ("max_shift_cells", f64::from(s.max_shift_cells)),
            ]);
        }
        v
    }
}
