//! `flipgraph-sor`: a pressure-solver plugin for flipgraph, written in safe Rust.
//!
//! One algorithm, `rb-sor`: successive over-relaxation (Gauss-Seidel with a relaxation factor
//! ω) in red-black order on the structured pressure problem. It is an example, not a fast
//! solver: its sweeps grow with the grid, and it runs on one thread.
//!
//! Build it with `cargo build --release`; flipgraph loads `target/release/libflipgraph_sor.so`
//! with `--plugin-dir target/release`, and the algorithm is `sor/rb-sor`.
//! The walk-through is docs/plugin-authors.md in the flipgraph repository.
#![forbid(unsafe_code)]

use flip_sdk::abi::{CAP_LINEAR, CAP_STRUCTURED, CELL_FLUID};
use flip_sdk::{
    cancelled, Algorithm, ParamSchema, Params, PressureSolver, Problem, SolveError, SolveStats,
    SolverPlugin,
};

/// Sweeps between two measurements of the residual (a measurement costs about one sweep).
const CHECK_EVERY: u32 = 10;

/// The plugin: its algorithms and a factory for solver instances.
pub struct SorPlugin;

impl SolverPlugin for SorPlugin {
    const ALGORITHMS: &'static [Algorithm] = &[Algorithm {
        name: "rb-sor",
        label: "Red-black SOR",
        help: "Successive over-relaxation in red-black order (Young 1950; Saad, Iterative Methods \
               for Sparse Linear Systems, §4.1): Gauss-Seidel sweeps over the cells with \
               i + j + k even, then odd, each value moved omega times the Gauss-Seidel step. \
               An example plugin: simple and sequential; its sweeps grow with the grid.",
        capabilities: CAP_LINEAR | CAP_STRUCTURED,
        params: &[
            ParamSchema::float(
                "omega",
                "Relaxation (omega)",
                "1 = Gauss-Seidel; SOR converges for 0 < omega < 2, fastest just below 2 on fine grids.",
                1.9,
                0.05,
                1.99,
            ),
            // These two names are the ones the pressure node reads to check a convergence claim.
            ParamSchema::float(
                "rel_tolerance",
                "Relative tolerance",
                "Converged when max|rhs - A p| <= max(abs_tolerance, rel_tolerance * max|rhs|).",
                1e-6,
                0.0,
                1.0,
            ),
            ParamSchema::float(
                "abs_tolerance",
                "Absolute tolerance",
                "Absolute floor of the residual tolerance (max-norm, velocity units).",
                1e-9,
                0.0,
                1.0,
            ),
            ParamSchema::int(
                "max_iterations",
                "Max sweeps",
                "Sweep budget per solve; running out is reported as not converged, not as an error.",
                10_000,
                1,
                1_000_000,
            ),
        ],
    }];

    fn create(
        _algorithm: &Algorithm,
        params: &Params,
    ) -> Result<Box<dyn PressureSolver>, SolveError> {
        // `params` is validated against the schema and has every default filled in.
        Ok(Box::new(RbSor {
            omega: params.float("omega"),
            rel_tolerance: params.float("rel_tolerance"),
            abs_tolerance: params.float("abs_tolerance"),
            max_sweeps: params.int("max_iterations") as u32,
        }))
    }
}

/// One solver instance (the host makes one per pressure node). It keeps nothing between solves,
/// so the SDK's default `reset`, `save_state` and `load_state` are right for it.
struct RbSor {
    omega: f64,
    rel_tolerance: f64,
    abs_tolerance: f64,
    max_sweeps: u32,
}

impl PressureSolver for RbSor {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        if problem.lcp {
            // flipgraph asks only CAP_LCP algorithms for LCPs (separating walls); refuse one anyway.
            return Err(SolveError::Unsupported(
                "rb-sor solves linear systems only".into(),
            ));
        }
        // Copy out the read-only arrays, then borrow the pressure mutably.
        let grid = Grid {
            dims: problem.dims,
            kind: problem.cell_kind,
            diag: problem.diag,
            off: problem.off,
            rhs: problem.rhs,
        };
        let p = &mut *problem.pressure; // in: the initial guess; out: the solution

        let target = self.abs_tolerance.max(self.rel_tolerance * grid.rhs_norm());
        let initial = grid.residual(p);
        if !initial.is_finite() {
            return Err(SolveError::BadValue(
                "the initial guess or the right-hand side is not finite".into(),
            ));
        }
        let mut stats = SolveStats {
            initial_residual: initial,
            residual: initial,
            ..SolveStats::default()
        };
        while stats.residual > target && stats.iterations < self.max_sweeps {
            if cancelled() {
                // Ctrl-C, the editor's Reset, or the node's time_limit: stop promptly.
                return Err(SolveError::Cancelled(format!(
                    "after {} sweeps",
                    stats.iterations
                )));
            }
            grid.half_sweep(p, 0, self.omega); // red: (i + j + k) even
            grid.half_sweep(p, 1, self.omega); // black: odd
            stats.iterations += 1;
            if stats.iterations % CHECK_EVERY == 0 || stats.iterations == self.max_sweeps {
                stats.residual = grid.residual(p);
                if !stats.residual.is_finite() {
                    return Err(SolveError::Failed(format!(
                        "diverged after {} sweeps",
                        stats.iterations
                    )));
                }
            }
        }
        // Report honestly: `residual` belongs to the pressure returned, and `converged` says
        // whether it met the tolerance. The host recomputes both claims.
        stats.converged = u32::from(stats.residual <= target);
        Ok(stats)
    }
}

/// The parts of the structured problem a sweep reads. Cells are numbered
/// `c = i + ni * (j + nj * k)`; a 2D problem has `nk = 1`.
struct Grid<'a> {
    dims: [usize; 3],
    kind: &'a [u8],
    diag: &'a [f32],
    /// `off[a][c]` = A[c][c + e_a], the coupling to the next cell along axis `a`
    /// (≤ 0, and 0 unless both cells are unknowns). By symmetry it is also A[c + e_a][c].
    off: [&'a [f32]; 3],
    rhs: &'a [f64],
}

impl Grid<'_> {
    /// Σ A[c][m] · p[m] over the neighbours m of cell c = (i, j, k): row c without its diagonal.
    fn neighbours(&self, p: &[f64], c: usize, ijk: [usize; 3]) -> f64 {
        let strides = [1, self.dims[0], self.dims[0] * self.dims[1]];
        let mut sum = 0.0;
        for a in 0..3 {
            let s = strides[a];
            if ijk[a] + 1 < self.dims[a] {
                let w = self.off[a][c]; // A[c][c + s]
                if w != 0.0 {
                    sum += f64::from(w) * p[c + s];
                }
            }
            if ijk[a] > 0 {
                let w = self.off[a][c - s]; // A[c - s][c] = A[c][c - s]
                if w != 0.0 {
                    sum += f64::from(w) * p[c - s];
                }
            }
        }
        sum
    }

    /// One SOR half-sweep over the unknowns whose (i + j + k) mod 2 is `colour`. A cell of one
    /// colour couples only to cells of the other, so the order within a colour does not matter.
    fn half_sweep(&self, p: &mut [f64], colour: usize, omega: f64) {
        let [ni, nj, nk] = self.dims;
        for k in 0..nk {
            for j in 0..nj {
                for i in ((j + k + colour) % 2..ni).step_by(2) {
                    let c = i + ni * (j + nj * k);
                    let d = f64::from(self.diag[c]);
                    if self.kind[c] != CELL_FLUID || d <= 0.0 {
                        continue; // not an unknown (air, solid), or a row with no equation
                    }
                    let gauss_seidel = (self.rhs[c] - self.neighbours(p, c, [i, j, k])) / d;
                    p[c] += omega * (gauss_seidel - p[c]);
                }
            }
        }
    }

    /// max |rhs − A p| over the unknowns: the norm the host recomputes to check
    /// `SolveStats::residual` (NaN if any row is NaN).
    fn residual(&self, p: &[f64]) -> f64 {
        let [ni, nj, nk] = self.dims;
        let mut max = 0.0f64;
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    let c = i + ni * (j + nj * k);
                    if self.kind[c] != CELL_FLUID {
                        continue;
                    }
                    let ap = f64::from(self.diag[c]) * p[c] + self.neighbours(p, c, [i, j, k]);
                    let r = (self.rhs[c] - ap).abs();
                    if r.is_nan() {
                        return f64::NAN;
                    }
                    max = max.max(r);
                }
            }
        }
        max
    }

    /// max |rhs| over the unknowns.
    fn rhs_norm(&self) -> f64 {
        let mut max = 0.0f64;
        for (r, &kind) in self.rhs.iter().zip(self.kind) {
            if kind == CELL_FLUID {
                max = max.max(r.abs());
            }
        }
        max
    }
}

// The one entry symbol flipgraph looks for: plugin id "sor", shown as "Red-black SOR example".
flip_sdk::export_plugin!(SorPlugin, "sor", "Red-black SOR example");

#[cfg(test)]
mod tests {
    use super::*;
    use flip_sdk::abi::{CELL_AIR, CELL_SOLID};
    use flip_sdk::{check, OwnedProblem};

    /// A tank: solid walls at the sides and bottom, air in the top quarter, liquid below, and
    /// a made-up right-hand side on the liquid cells.
    fn tank(dims: [usize; 3]) -> OwnedProblem {
        let [ni, nj, nk] = dims;
        let mut p = OwnedProblem::empty(dims, 0.1);
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    let c = p.index(i, j, k);
                    let wall =
                        i == 0 || i == ni - 1 || j == 0 || (nk > 1 && (k == 0 || k == nk - 1));
                    p.cell_kind[c] = if wall {
                        CELL_SOLID
                    } else if j >= nj * 3 / 4 {
                        CELL_AIR
                    } else {
                        CELL_FLUID
                    };
                }
            }
        }
        p.assemble_matrix(); // the unit 5/7-point stencil from the cell kinds
        for c in 0..p.cell_count() {
            if p.cell_kind[c] == CELL_FLUID {
                p.rhs[c] = ((c * 7919) % 13) as f64 / 13.0 - 0.5;
            }
        }
        p
    }

    fn solver(given: &[(&str, f64)]) -> Box<dyn PressureSolver> {
        let alg = &SorPlugin::ALGORITHMS[0];
        let params = Params::resolve(alg.params, given).expect("valid parameters");
        SorPlugin::create(alg, &params).expect("creates")
    }

    #[test]
    fn converges_in_2d_and_3d_and_reports_the_residual_the_host_recomputes() {
        for dims in [[24, 24, 1], [12, 12, 12]] {
            let mut p = tank(dims);
            let stats = solver(&[]).solve(&mut p.view()).expect("solves");
            let host = check::structured(&p.view());
            assert_eq!(stats.converged, 1, "{dims:?}: {stats:?}");
            assert!(
                stats.residual <= 1e-6 * host.rhs_norm,
                "{dims:?}: {stats:?}"
            );
            assert!(host.finite, "{dims:?}: {host:?}");
            assert!(
                host.max <= 2.0 * stats.residual + 1e-12,
                "{dims:?}: {host:?} {stats:?}"
            );
        }
    }

    #[test]
    fn running_out_of_sweeps_is_reported_as_not_converged() {
        let mut p = tank([24, 24, 1]);
        let stats = solver(&[("max_iterations", 3.0)])
            .solve(&mut p.view())
            .expect("not an error");
        assert_eq!((stats.iterations, stats.converged), (3, 0));
        let host = check::structured(&p.view());
        assert!(
            host.max <= 2.0 * stats.residual + 1e-12,
            "{host:?} {stats:?}"
        );
    }

    #[test]
    fn parameters_outside_the_schema_are_refused() {
        let alg = &SorPlugin::ALGORITHMS[0];
        assert!(Params::resolve(alg.params, &[("omega", 2.0)]).is_err());
        assert!(Params::resolve(alg.params, &[("tau", 0.5)]).is_err());
    }
}
