//! What a pressure solve reports (the `pressure` and `tallcell_pressure` nodes).

use flip_graph::NodeStats;

/// One pressure solve.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveReport {
    /// Iterations (inner iterations summed for LCP outer methods; V-cycles for multigrid).
    pub iterations: u32,
    /// Final residual.
    pub residual: f64,
    /// Whether the tolerance was met.
    pub converged: bool,
    /// Solve time (ms).
    pub solve_ms: f64,
    /// Largest |∇·u| left after the projection (1/s).
    pub max_divergence: f32,
    /// Unknowns of the solve (fluid cells on the regular grid).
    pub unknowns: usize,
    /// What the grid's kind adds.
    pub grid: SolvedGrid,
}

/// What a solve reports beyond the common figures, by grid.
#[derive(Clone, Debug, PartialEq)]
pub enum SolvedGrid {
    /// The regular MAC grid (`pressure`).
    Regular(RegularSolve),
    /// The tall-cell grid (`tallcell_pressure`).
    TallCell(TallCellSolve),
    /// The implicit viscosity step (`viscosity`): unknowns are face velocities.
    Viscosity(ViscositySolve),
}

/// The viscosity solve (`viscosity`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViscositySolve {
    /// Residual before the first iteration (m/s).
    pub initial_residual: f64,
    /// Assembling the system (ms).
    pub assemble_ms: f64,
    /// Shared-memory copies of an isolated solver, part of `solve_ms`.
    pub transfer_ms: Option<f64>,
    /// Whether the step was solved by the fallback solver.
    pub on_fallback: bool,
    /// Largest change of a face velocity in the step (m/s).
    pub max_change: f64,
}

impl Default for SolvedGrid {
    fn default() -> Self {
        Self::Regular(RegularSolve::default())
    }
}

/// The regular grid's solve (`pressure`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegularSolve {
    /// Outer iterations (LCP policy or penalty iterations; 0 for linear solves).
    pub outer_iterations: u32,
    /// Residual before the first iteration.
    pub initial_residual: f64,
    /// Shared-memory copies of an isolated solver, part of `solve_ms`.
    pub transfer_ms: Option<f64>,
    /// Whether the step was solved by the fallback solver.
    pub on_fallback: bool,
}

/// The tall-cell grid's solve (`tallcell_pressure`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TallCellSolve {
    /// Cells of the regular grid the tall cells stand for.
    pub regular_grid_cells: usize,
    /// Whether the operator was symmetric.
    pub symmetric: bool,
}

impl SolveReport {
    /// The report of a solve: the common figures from the solver's statistics, the rest
    /// measured by the node.
    #[must_use]
    pub fn new(
        stats: &flip_sdk::abi::SolveStats,
        solve_ms: f64,
        max_divergence: f32,
        unknowns: usize,
        grid: SolvedGrid,
    ) -> Self {
        Self {
            iterations: stats.iterations,
            residual: stats.residual,
            converged: stats.converged != 0,
            solve_ms,
            max_divergence,
            unknowns,
            grid,
        }
    }

    /// Outer iterations (0 where the solve has none).
    #[must_use]
    pub fn outer_iterations(&self) -> u32 {
        match &self.grid {
            SolvedGrid::Regular(r) => r.outer_iterations,
            SolvedGrid::TallCell(_) | SolvedGrid::Viscosity(_) => 0,
        }
    }

    /// Fluid cells of a regular-grid solve (a tall cell's unknowns are not cells).
    #[must_use]
    pub fn fluid_cells(&self) -> Option<usize> {
        matches!(self.grid, SolvedGrid::Regular(_)).then_some(self.unknowns)
    }
}

impl NodeStats for SolveReport {
    fn values(&self) -> Vec<(&'static str, f64)> {
        let common = (
            ("iterations", f64::from(self.iterations)),
            ("residual", self.residual),
            ("converged", f64::from(u8::from(self.converged))),
            ("solve_ms", self.solve_ms),
            ("max_divergence", f64::from(self.max_divergence)),
        );
        let (iterations, residual, converged, solve_ms, max_divergence) = common;
        match &self.grid {
            SolvedGrid::Regular(r) => {
                let mut v = vec![
                    iterations,
                    ("outer_iterations", f64::from(r.outer_iterations)),
                    residual,
                    ("initial_residual", r.initial_residual),
                    converged,
                    solve_ms,
                ];
                v.extend(r.transfer_ms.map(|t| ("transfer_ms", t)));
                v.push(("on_fallback", f64::from(u8::from(r.on_fallback))));
                v.push(max_divergence);
                v.push(("fluid_cells", self.unknowns as f64));
                v
            }
            SolvedGrid::TallCell(t) => vec![
                solve_ms,
                iterations,
                residual,
                converged,
                ("unknowns", self.unknowns as f64),
                ("regular_grid_cells", t.regular_grid_cells as f64),
                ("symmetric", f64::from(u8::from(t.symmetric))),
                max_divergence,
            ],
            SolvedGrid::Viscosity(v) => {
                let mut out = vec![
                    iterations,
                    residual,
                    ("initial_residual", v.initial_residual),
                    converged,
                    solve_ms,
                    ("assemble_ms", v.assemble_ms),
                ];
                out.extend(v.transfer_ms.map(|t| ("transfer_ms", t)));
                out.push(("on_fallback", f64::from(u8::from(v.on_fallback))));
                out.push(("unknowns", self.unknowns as f64));
                out.push(("max_change", v.max_change));
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(report: &SolveReport) -> Vec<&'static str> {
        report.values().into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn solves_name_their_figures_as_the_nodes_always_did() {
        let regular = SolveReport {
            converged: true,
            unknowns: 7,
            ..Default::default()
        };
        assert_eq!(
            names(&regular),
            [
                "iterations",
                "outer_iterations",
                "residual",
                "initial_residual",
                "converged",
                "solve_ms",
                "on_fallback",
                "max_divergence",
                "fluid_cells"
            ]
        );
        assert_eq!(regular.values()[4], ("converged", 1.0));
        assert_eq!(regular.fluid_cells(), Some(7));
        let tall = SolveReport {
            grid: SolvedGrid::TallCell(TallCellSolve::default()),
            ..regular
        };
        assert_eq!(
            names(&tall),
            [
                "solve_ms",
                "iterations",
                "residual",
                "converged",
                "unknowns",
                "regular_grid_cells",
                "symmetric",
                "max_divergence"
            ]
        );
        assert_eq!((tall.fluid_cells(), tall.outer_iterations()), (None, 0));
    }
}
